"""``analytic solve --format json``: the variance carries its error where the round does."""

from fractions import Fraction
from itertools import product

from analytic.cli.solve import result_to_json
from analytic.figures import Figure
from analytic.solver.round import RoundResult


def _round(mean: Figure, m2: Figure, cost=Fraction(2)) -> RoundResult:
    return RoundResult(game=None, mode="m", cost=cost, base=None, mean_win=mean, second_moment=m2,
                       rtp=Figure(mean.value / cost, mean.label, mean.error / cost),
                       hit_frequency=Figure(Fraction(1, 2)), components=(), features=())


def test_bounded_variance_is_printed_with_its_error():
    """Mean win 3 +- 1/100, second moment 20 +- 1/10 total bets, cost 2: the variance per unit
    staked is (20 - 9) / 4 = 11/4 and, by hand, |Var - 11/4| <= (1/10 + 2 * 3/100 + 1/10^4) / 4
    = 0.040025.  It was printed labelled 'bounded' with no error.  The variance is monotone in
    each argument on the box, so its extremes are at the corners: the worst one (mean 3.01,
    second moment 19.9) attains the bound.  Published (Figure.published) the error is raised to a
    multiple of 10^(floor(log10 0.040025) - 3) = 1e-5: 0.04003."""
    mean, m2 = Figure(Fraction(3), "bounded", Fraction(1, 100)), Figure(Fraction(20), "bounded", Fraction(1, 10))
    d = result_to_json(_round(mean, m2))["variance_per_unit_staked"]
    assert d["exact"] == "11/4" and d["label"] == "bounded"
    assert d["error"] == 0.04003
    worst = max(abs((s - m * m) / 4 - Fraction(11, 4))
                for m, s in product((Fraction(299, 100), Fraction(301, 100)), (Fraction(199, 10), Fraction(201, 10))))
    assert worst == Fraction(1601, 40000) and float(worst) <= d["error"] < float(worst) + 1e-5


def test_exact_variance_has_no_error_key():
    """An exact round (mean 1, second moment 3, cost 1): variance 2, exact, no error key."""
    d = result_to_json(_round(Figure(Fraction(1)), Figure(Fraction(3)), cost=Fraction(1)))["variance_per_unit_staked"]
    assert d == {"exact": "2/1", "float": 2.0, "label": "exact"}


def test_text_output_prints_the_stake_table():
    """The currency cap's binding stakes are printed, with the certified ends of a bracket and the
    probability of reaching the cap (hand values: stake 4 of a 100-unit cap is 25 bets)."""
    from analytic.cli.solve import format_table

    rows = [{"stake": Fraction(1), "cap_multiple": Fraction(100), "binds": False, "capped_rtp": Figure(Fraction(1, 2))},
            {"stake": Fraction(4), "cap_multiple": Fraction(25), "binds": True,
             "capped_rtp": Figure(Fraction(49, 100)), "p_reach_cap": Figure(Fraction(1, 1000))},
            {"stake": Fraction(10), "cap_multiple": Fraction(10), "binds": True,
             "capped_rtp": Figure(Fraction(45, 100), "bounded", Fraction(1, 100))}]
    from types import SimpleNamespace
    import dataclasses

    r = dataclasses.replace(_round(Figure(Fraction(1)), Figure(Fraction(3)), cost=Fraction(2)),
                            game=SimpleNamespace(name="toy", total_bet=1), extra={"currency_cap": rows})
    text = format_table(r)
    assert "(3 stakes; the capped rows only" in text
    lines = [ln for ln in text.splitlines() if ln.strip().startswith("stake")]
    assert len(lines) == 2
    assert "cap        25.00x" in lines[0] and "RTP 49.00000000 %   [exact]" in lines[0] and "P(reach cap) 0.001" in lines[0]
    assert "RTP 44.00000000 .. 46.00000000 %   [bounded]" in lines[1]
