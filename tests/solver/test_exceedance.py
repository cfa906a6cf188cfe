"""The exceedance ladder, the maximum win and the law test (analytic.solver.exceedance).

Oracles: hand counts; the independent enumerator of whole rounds (``oracle.Oracle``, written from
the model format, sharing no code with the solver) on random small games drawn by ``randgames``;
the simulator (its own evaluation code) for the law test, which must pass on the right law and fail
on a deliberately perturbed one.
"""

from __future__ import annotations

import tomllib
from fractions import Fraction as F
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from analytic.model.loader import load_model_text
from analytic.solver.distribution import RoundLaw, round_law
from analytic.solver.exceedance import LADDER, exceedance, law_test
from analytic.solver.round import solve_round

from oracle import Oracle
from randgames import models, to_toml
from test_differential import unbounded

pytestmark = pytest.mark.filterwarnings("ignore::analytic.errors.ModelWarning")

HAND = {F(0): F(1, 2), F(3, 2): F(1, 4), F(6000): F(1, 8), F(20168): F(1, 8)}


def test_hand_ladder_exact_with_cap():
    ex = exceedance(RoundLaw(dict(HAND), F(0)), F(20168))
    got = {r.threshold: r.low for r in ex.rows}
    assert [r.threshold for r in ex.rows] == [F(x) for x in LADDER] + [F(20168)]
    assert ex.rows[-1].label == "20168 (cap)"
    # by hand: P(R >= 1) = 1/2; 2 <= x <= 5000: only 6000 and 20168 remain (1/4); 10000: 1/8
    assert got[F(1)] == F(1, 2)
    assert all(got[F(x)] == F(1, 4) for x in (2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000))
    assert got[F(10000)] == got[F(20168)] == F(1, 8)
    assert all(r.exact for r in ex.rows) and ex.label == "exact" and ex.gap == 0
    assert (ex.max_win, ex.max_low, ex.max_high) == (F(20168), F(1, 8), F(1, 8))


def test_hand_ladder_bounded_holds_every_law_within_the_error():
    """A law given with a total-variation error e: the bounds hold the central law's values and
    those of laws moved by e (mass from 0 to 6000, or from 20168 to 0), and the gap is about 2e."""
    e = F(1, 10**9)
    ex = exceedance(RoundLaw(dict(HAND), e, method="grid"), None)
    assert ex.label == "bounded" and ex.max_win is None and "grid" in ex.max_note
    assert 2 * e <= ex.gap <= 2 * e + F(1, 10**15)
    moved_up = dict(HAND, **{})
    moved_up[F(0)] -= e
    moved_up[F(6000)] += e
    moved_down = dict(HAND)
    moved_down[F(20168)] -= e
    moved_down[F(0)] += e
    for law in (HAND, moved_up, moved_down):
        for r in ex.rows:
            p = sum((q for w, q in law.items() if w >= r.threshold), F(0))
            assert r.low <= p <= r.high, (r, p)


def test_capped_law_with_error_certifies_the_cap_as_maximum():
    e = F(1, 10**12)
    ex = exceedance(RoundLaw(dict(HAND), e), F(20168))
    assert ex.max_win == F(20168) and ex.max_low <= F(1, 8) <= ex.max_high
    assert ex.max_high - ex.max_low <= 2 * e + F(1, 10**15)


def test_lower_bound_masses_give_one_sided_bounds():
    """Masses that are lower bounds (1e-9 missing): every law that adds the missing mass anywhere
    lies in [S, S + e]; the gap is e, not 2e."""
    e = F(1, 10**9)
    low = dict(HAND)
    low[F(0)] -= e
    ex = exceedance(RoundLaw(low, e, method="grid", lower_bounds=True), F(20168))
    assert e <= ex.gap <= e + F(1, 10**15)
    for where in (F(0), F(3, 2), F(6000), F(20168)):
        law = dict(low)
        law[where] += e
        for r in ex.rows:
            p = sum((q for w, q in law.items() if w >= r.threshold), F(0))
            assert r.low <= p <= r.high, (where, r, p)
    assert ex.max_win == F(20168) and ex.max_low <= F(1, 8) <= ex.max_high


def test_no_law_is_refused():
    with pytest.raises(ValueError, match="no law"):
        exceedance(RoundLaw(None, F(0), "the distribution of feature 'x' is not available"))


# ------------------------------------------------------------------ against the enumerator


def _oracle_survival(points: dict, x: F) -> F:
    return sum((p for w, p in points.items() if w >= x), F(0)) if isinstance(next(iter(points.values())), F) \
        else sum(p for w, p in points.items() if w >= x)


def check_ladder(model: dict) -> None:
    text = to_toml(model)
    o = Oracle(tomllib.loads(text))
    if unbounded(o):
        return
    game = load_model_text(text, "random.toml")
    for mode in game.modes:
        res = solve_round(game, mode)
        law = round_law(res)
        if law.points is None:
            continue
        from analytic.solver.cap import applied_cap

        cap = applied_cap(res)
        ex = exceedance(law, cap)
        ol = o.round_law(mode)
        if o.cap is not None:  # the round pays min(R, C)
            capped: dict = {}
            for w, p in ol.points.items():
                capped[min(w, o.cap)] = capped.get(min(w, o.cap), 0) + p
            ol.points = capped
        where = f"mode {mode!r} of\n{text}\n"
        if ol.coarse and o.cap is None:
            continue  # the oracle's retrigger law keeps only "no win / a win" without a cap
        for r in ex.rows:
            if o.cap is not None and r.threshold > o.cap:
                assert r.low == 0, where + f"P(R >= {r.label}) above the cap"
                continue
            if ol.exact:
                want = _oracle_survival(ol.points, r.threshold)
                if ex.label == "exact":
                    assert r.low == want, where + f"P(R >= {r.label}): {r.low} != oracle {want}"
                else:
                    assert r.low <= want <= r.high, where + f"P(R >= {r.label}) misses oracle {want}"
            else:  # the oracle's truncated law: the missing mass may sit at any win
                lo = float(_oracle_survival(ol.points, r.threshold))
                hi = lo + ol.missing
                assert float(r.high) >= lo - 1e-12 and float(r.low) <= hi + 1e-12, (
                    where + f"P(R >= {r.label}): [{float(r.low)}, {float(r.high)}] vs oracle [{lo}, {hi}]")
        if ol.exact and ex.max_win is not None:
            top = max(w for w, p in ol.points.items() if p)
            assert ex.max_win == top and ex.max_low <= ol.points[top] <= ex.max_high, where + "maximum win"


_SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, report_multiple_bugs=False,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                            HealthCheck.filter_too_much])


@_SETTINGS
@given(models(cap=False))
def test_ladder_against_enumerated_rounds(model):
    check_ladder(model)


@_SETTINGS
@given(models(cap=True))
def test_capped_ladder_against_enumerated_rounds(model):
    check_ladder(model)


# ------------------------------------------------------------------ the law test

TINY = (Path(__file__).resolve().parents[1] / "data" / "tiny_free_spins.toml.in").read_text()


def test_law_test_statistic_by_hand():
    """Bins {0}, (0, 1), [1, 2), ..., by hand: observed 520/230/0/.../250 against 500/250/.../250."""
    law = RoundLaw({F(0): F(1, 2), F(1, 2): F(1, 4), F(7): F(1, 4)}, F(0))
    t = law_test(law, {F(0): 520, F(1, 2): 230, F(7): 250})
    # (0,1) holds 1/2; [1,2), [2,5) expect 0 and merge into [5,10) with 7; the empty tail joins it
    assert t.bins == ("0", "(0, 1)", "[1, inf)")
    assert t.observed == (520, 230, 250) and t.expected == (500.0, 250.0, 250.0)
    assert t.statistic == pytest.approx(20**2 / 500 + 20**2 / 250)  # 2.4
    assert t.df == 2
    assert t.p_value == pytest.approx(0.301194211912, rel=1e-9)  # exp(-1.2): chi-square, 2 df
    assert t.verdict == "ok"


def test_law_test_flags_a_win_the_exact_law_forbids():
    law = RoundLaw({F(0): F(1, 2), F(7): F(1, 2)}, F(0))
    t = law_test(law, {F(0): 500, F(7): 499, F(8): 1})
    assert t.impossible == 1 and t.verdict == "CHECK"


@pytest.fixture(scope="module")
def tiny_game():
    return load_model_text(TINY.format(award=1, extra=""), "tiny.toml")


def test_law_test_passes_on_the_true_law_and_fails_on_a_perturbed_one(tiny_game):
    """The tiny game's round law (free spins that retrigger: a certified grid law) against 40,000
    simulated rounds: the true law passes; the same law with 2 % of the no-win mass moved to the
    largest win, or with its wins doubled, fails."""
    from analytic.simulator.runner import simulate

    res = solve_round(tiny_game, "base")
    law = round_law(res)
    assert law.points is not None
    sim = simulate(tiny_game, "base", rounds=40_000, seed=3, progress=False)
    good = law_test(law, sim.win_counts)
    assert good.verdict == "ok" and good.p_value >= 0.001 and good.df >= 3, good
    pts = dict(law.points)
    top = max(w for w, p in pts.items() if p > 1e-3)
    pts[F(0)] -= F(2, 100)
    pts[top] += F(2, 100)
    bad = law_test(RoundLaw(pts, law.error, method=law.method), sim.win_counts)
    assert bad.verdict == "CHECK" and bad.p_value < 1e-6, bad
    doubled = {2 * w: p for w, p in law.points.items()}
    assert law_test(RoundLaw(doubled, law.error, method=law.method), sim.win_counts).verdict == "CHECK"


# --------------------------------------------------------------------------
# interval ladder (a round without a law) and its binomial interval test


class _Tail:
    """Fixed bounds of P(R >= x) per threshold (a stand-in for a solver's round tail)."""

    method = "hand-made bounds"

    def __init__(self, f):
        self.f = f

    def bounds(self, xs):
        return [self.f(x) for x in xs]


def _geometric(x):
    """P(R >= x) of R = 2^G - 1, G ~ Geometric(1/2) on {0, 1, ...}: P(R >= x) = 2^-ceil(log2(x + 1))."""
    k = 0
    while 2 ** k - 1 < x:
        k += 1
    return F(1, 2 ** k)


def test_interval_ladder_rounds_outward_and_certifies_the_cap():
    from analytic.solver.exceedance import interval_exceedance

    cap = F(1023)
    ex = interval_exceedance(_Tail(lambda x: (F(0) if x > cap else _geometric(x) / 2,
                                              F(0) if x > cap else min(F(1), _geometric(x) * 2))), cap)
    assert ex.kind == "interval" and ex.label == "bounded" and ex.error is None
    assert ex.method == "hand-made bounds"
    assert [r.threshold for r in ex.rows][-1] == 10000 and ex.rows[-1].low == ex.rows[-1].high == 0
    for r in ex.rows:
        if r.threshold <= cap:
            assert r.low <= _geometric(r.threshold) <= r.high
    assert ex.gap == max(r.high - r.low for r in ex.rows)
    assert ex.max_win == cap and ex.max_low == F(1, 2048) and ex.max_high == F(1, 512)
    with pytest.raises(ValueError, match="not an interval"):
        interval_exceedance(_Tail(lambda x: (F(1, 2), F(1, 3))), cap)
    # no positive lower bound at the cap: no certified maximum
    ex = interval_exceedance(_Tail(lambda x: (F(0), F(1, 2))), cap)
    assert ex.max_win is None and "not certified" in ex.max_note
    # the note says why: the cap's own row has lower bound 0 (found in review: at cap precision
    # 'quick' it only said the round has no law, which holds at 'standard' too, where the cap is certified)
    assert [r.low for r in ex.rows if r.threshold == cap] == [0]
    assert "lower bound of P(R >= cap) is 0" in ex.max_note


def _sample(n, seed, cap=None):
    import numpy as np

    g = np.random.default_rng(seed).geometric(0.5, size=n) - 1  # G on {0, 1, ...}
    wins = 2 ** g - 1
    if cap is not None:
        wins = np.minimum(wins, cap)
    out: dict = {}
    for w in wins.tolist():
        out[F(w)] = out.get(F(w), 0) + 1
    return out


def test_interval_test_by_hand_accepts_true_samples_and_rejects_a_wrong_law():
    from scipy.stats import binom

    from analytic.solver.exceedance import interval_exceedance, interval_test

    cap = F(1023)
    truth = _Tail(lambda x: (F(0), F(0)) if x > cap else (_geometric(x), _geometric(x)))
    counts = _sample(20000, 3, 1023)
    t = interval_test(interval_exceedance(truth, cap), counts)
    assert t.test == "binomial interval (Bonferroni)" and t.df == 14 and t.verdict == "ok"
    assert t.p_value >= 0.001 and sum(counts.values()) == 20000
    # loose bounds around the truth: every count inside its interval, p-value 1
    loose = _Tail(lambda x: (F(0), F(0)) if x > cap else (_geometric(x) / 2, min(F(1), _geometric(x) * 2)))
    t = interval_test(interval_exceedance(loose, cap), counts)
    assert t.p_value == 1.0 and t.statistic == 1.0
    # a wrong law (P(R >= x) a third higher from x = 5 on): rejected
    wrong = _Tail(lambda x: (F(0), F(0)) if x > cap else
                  ((_geometric(x) * F(4, 3),) * 2 if x >= 5 else (_geometric(x),) * 2))
    t = interval_test(interval_exceedance(wrong, cap), counts)
    assert t.verdict == "CHECK" and t.p_value < 1e-6
    # the p-value by hand: one threshold's count below its interval, Bonferroni over 14 thresholds
    ex = interval_exceedance(truth, cap)
    row = [r for r in ex.rows if r.threshold == 5][0]
    k = sum(c for w, c in counts.items() if w >= 5)
    lo = F(k + 100, 20000)
    hand = _Tail(lambda x: (lo, lo) if x == 5 else ((F(0), F(0)) if x > cap else (F(0), F(1))))
    t = interval_test(interval_exceedance(hand, cap), counts)
    want = min(1.0, 14 * min(1.0, 2 * float(binom.cdf(k, 20000, float(lo)))))
    assert t.p_value == pytest.approx(want, rel=1e-9) and t.observed[ex.rows.index(row)] == k
    # a win above a zero upper bound: p-value 0
    t = interval_test(interval_exceedance(_Tail(lambda x: (F(0), F(0))), cap), counts)
    assert t.p_value == 0.0 and t.verdict == "CHECK"
