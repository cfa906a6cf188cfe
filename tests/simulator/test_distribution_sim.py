"""The round win distribution (solver) against the simulator's histogram.

The simulator plays spins with its own evaluation code; its counts per bucket
of the par sheet's edges must fit the solver's bucket probabilities
(chi-square test, fixed seed).  Features with unbounded retriggers give a
certified grid law (Atkins Diet, Book of Ra Deluxe); a no-retrigger feature
(Book of Christmas Eve) an exact one.
"""

from fractions import Fraction
from pathlib import Path

import pytest
from scipy.stats import chi2

from analytic.model.loader import load_model
from analytic.reports.model import bucket_edges
from analytic.simulator.runner import simulate
from analytic.solver.distribution import round_law
from analytic.solver.round import solve_round

ROOT = Path(__file__).parent.parent.parent


@pytest.mark.parametrize("path, rounds", [
    ("tests/cases/atkins_diet.toml", 200_000),
    ("tests/cases/book_of_ra_deluxe_95.toml", 200_000),
])
def test_bucket_probabilities_fit_simulation(path, rounds):
    game = load_model(ROOT / path)
    r = solve_round(game)
    law = round_law(r)
    assert law.points is not None and law.method == "grid"
    assert law.error < 1e-9
    edges = bucket_edges(Fraction(1000))
    probs = [Fraction(0)] * (len(edges) + 1)
    import bisect

    for w, p in law.points.items():
        probs[bisect.bisect_left(edges, w)] += p
    assert abs(float(sum(probs)) - 1) <= float(law.error) + 1e-12
    sim = simulate(game, rounds=rounds, seed=777, progress=False)
    counts = sim.bucket_counts(edges)
    stat, df = _chi_square(probs, counts, rounds)
    assert df >= 6
    assert chi2.sf(stat, df) > 1e-4, (stat, df)


@pytest.mark.parametrize("path, plays", [
    ("tests/cases/atkins_diet.toml", 60_000),
    ("tests/cases/book_of_ra_deluxe_95.toml", 60_000),
])
def test_feature_law_fits_simulated_features(path, plays, tmp_path):
    """The feature alone (a buy mode added to a copy of the model): its law
    against simulated plays, on fine buckets of the feature win."""
    text = (ROOT / path).read_text()
    text = text.replace("[features.free_spins]", '[modes.buy]\ncost = 100\nbuys = "free_spins"\n'
                        "buy_counts = { 3 = 1 }\n\n[features.free_spins]", 1)
    model = tmp_path / "with_buy.toml"
    model.write_text(text)
    game = load_model(model)
    r = solve_round(game, "buy")
    law = round_law(r)
    assert law.method == "grid" and law.error < 1e-9
    edges = [Fraction(x) for x in (0, 2, 5, 8, 11, 15, 20, 25, 30, 40, 50, 65, 80, 100, 130, 170, 230,
                                   300, 400, 600, 1000)]
    probs = [Fraction(0)] * (len(edges) + 1)
    import bisect

    for w, p in law.points.items():
        probs[bisect.bisect_left(edges, w)] += p
    sim = simulate(game, "buy", rounds=plays, seed=4242, progress=False)
    counts = sim.bucket_counts(edges)
    stat, df = _chi_square(probs, counts, plays)
    assert df >= 10
    assert chi2.sf(stat, df) > 1e-4, (stat, df)


def _chi_square(probs, counts, n):
    """Pearson statistic and degrees of freedom, pooling buckets (from the top) to >= 20 expected."""
    stat, df, pe, po = 0.0, -1, 0.0, 0
    for p, o in zip(reversed(probs), reversed(counts)):
        pe += float(p) * n
        po += o
        if pe >= 20:
            stat += (po - pe) ** 2 / pe
            df += 1
            pe, po = 0.0, 0
    return stat, df


def test_round_law_mean_is_the_rtp():
    # first moment of the combined law against the exact (Wald) round mean
    game = load_model(ROOT / "tests/cases/book_of_ra_deluxe_95.toml")
    r = solve_round(game)
    law = round_law(r)
    mean = sum(float(w) * float(p) for w, p in law.points.items())
    assert mean == pytest.approx(float(r.mean_win.value), rel=1e-8)
