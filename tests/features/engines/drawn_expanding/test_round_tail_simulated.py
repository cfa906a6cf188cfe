"""Bracketed sessions of a round without a law (issue 23) against sessions played by the simulator.

The tiny one-row game of ``test_drawn_oracles`` (cap 12): its base mode has no round law, only
certified bounds of ``P(W >= x)``, so :func:`analytic.solver.session.solve_session` brackets every
session figure between two chains (:mod:`analytic.solver.session_bounds`).  The oracle:
:func:`analytic.simulator.session.simulate_sessions`, which plays every round with the simulator's
own evaluation (its own Free Spins player drawing the expanding symbols), nothing read from the
solver.  Each simulated figure -- the mean final balance, the risk of ruin, ``P(above the start)``,
the share of each end reason -- must fall inside its certified interval widened by ``Z`` standard
errors of the simulation.

Not vacuous: the autoplay setting's reasons are bracketed to 1e-10 (the feature stop keeps them
sharp), so a solver off by a few standard errors fails; and the same comparison run against the
chain of a law one grid step too generous (every feature win of the upper law moved up to the next
grid point) rejects the simulation of the ruin-only setting.  (Before the forward law over the
first draws, ``draw_law``, the upper law itself was that far from the truth; now the two laws are
within 1e-6 of each other on this game.)
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np

from test_round_tail import _rounds

from analytic.figures import Figure
from analytic.simulator.session import REASONS, simulate_sessions
from analytic.solver.cap import applied_cap
from analytic.solver.session import SessionRules, solve_session
from analytic.solver.session_bounds import IntervalLaws, bounded_session, interval_laws

#: Standard errors of the simulation allowed outside the certified interval.
Z = 5.0
SESSIONS = 20_000


def _inside(fig: Figure, est: float, se: float) -> bool:
    lo, hi = float(fig.value - fig.error), float(fig.value + fig.error)
    return lo - Z * se <= est <= hi + Z * se


def _se_p(fig: Figure, k: int, n: int) -> float:
    """Standard error of a simulated share ``k / n``: the larger of the share's and of the interval's
    nearer end's (a share of 0 or 1 does not make the margin vanish)."""
    p = k / n
    lo, hi = float(fig.value - fig.error), float(fig.value + fig.error)
    q = min(max(p, lo), hi)
    return math.sqrt(max(p * (1 - p), q * (1 - q), 1.0 / n) / n)


def _misses(res, sim, balance) -> list:
    """The figures whose simulated value falls outside the certified interval (widened by Z s.e.)."""
    n = len(sim.reason)
    fb = sim.final_balance().astype(float)
    bad = []
    if not _inside(res.balance_mean, fb.mean(), fb.std() / math.sqrt(n)):
        bad.append(("mean final balance", fb.mean(), res.balance_mean))
    k = int((sim.reason == REASONS.index("ruin")).sum())
    if not _inside(res.ruin, k / n, _se_p(res.ruin, k, n)):
        bad.append(("risk of ruin", k / n, res.ruin))
    if "final balance" not in res.notes:
        k = int((fb > float(balance)).sum())
        if not _inside(res.p_above_start, k / n, _se_p(res.p_above_start, k, n)):
            bad.append(("P(above the start)", k / n, res.p_above_start))
    for i, why in enumerate(REASONS):
        k = int((sim.reason == i).sum())
        if why not in res.reasons:
            if k:
                bad.append((why, k / n, None))
            continue
        if not _inside(res.reasons[why], k / n, _se_p(res.reasons[why], k, n)):
            bad.append((why, k / n, res.reasons[why]))
    return bad


def test_ruin_only_sessions_inside_the_bracket():
    """No stop but ruin: 200 rounds from 20 bets (the feature's win compounds: a wide bracket)."""
    r = _rounds()["base"]
    kw = dict(balance=F(20), rounds=200)
    res = solve_session(r.game, "base", SessionRules(**kw), result=r)
    assert res.method == "bounded"
    sim = simulate_sessions(r.game, "base", SESSIONS, 7, **kw)
    assert _misses(res, sim, kw["balance"]) == []
    # the forward law over the first draws (draw_law) follows this feature almost exactly: a narrow bracket
    laws = interval_laws(r)
    assert laws.gap < 1e-6
    # the simulation tells a wrong law apart: the upper law with every feature win moved up to the next
    # grid point (a law one grid step too generous) is rejected
    pts = sorted(laws.points)
    shifted: dict = {}
    for w, p in laws.hi.items():
        w2 = next((g for g in pts if g > w), w)
        shifted[w2] = shifted.get(w2, 0) + p
    wrong = IntervalLaws(laws.nof, shifted, shifted, laws.points, laws.gap, laws.unit)
    m_w = sum((w * p for d in (laws.nof, shifted) for w, p in d.items()), F(0))
    top = bounded_session(SessionRules(**kw), wrong, r.cost, Figure(m_w), cap=applied_cap(r), method="certified")
    assert {m[0] for m in _misses(top, sim, kw["balance"])} >= {"mean final balance", "P(above the start)"}


def test_autoplay_sessions_inside_the_bracket():
    """Stop on a feature, cash up 10, cash down 5 (100 rounds from 10 bets): every reason bracketed to
    1e-10, so the simulated shares are checked to their own sampling error."""
    r = _rounds()["base"]
    kw = dict(balance=F(10), rounds=100, stop_on_feature=True, stop_cash_up=F(10), stop_cash_down=F(5))
    res = solve_session(r.game, "base", SessionRules(**kw), result=r)
    assert res.method == "bounded"
    assert all(float(f.error) < 1e-10 for f in res.reasons.values())
    sim = simulate_sessions(r.game, "base", SESSIONS, 11, **kw)
    assert _misses(res, sim, kw["balance"]) == []
    assert np.isclose(sum(float(x.value) for x in res.reasons.values()), 1.0, atol=1e-9)
