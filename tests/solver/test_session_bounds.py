"""Bracketed sessions (analytic.solver.session_bounds) against every path of an exact round law.

The oracle: a tiny round law whose feature part is known exactly (written here), every path
enumerated by ``brute`` of ``test_session`` (the stop rules applied as the docs state them, in
Fractions).  The bracketing module only sees bounds ``L <= P(W >= x, feature) <= U`` made from
the exact law with random slack, and a coarse grid; every figure it certifies must hold the
exact one.
"""

from __future__ import annotations

import random
from collections import defaultdict
from fractions import Fraction as F

import pytest

from test_session import SETTINGS, brute

from analytic.figures import Figure
from analytic.solver.session import QUANTILES, SessionRefused, SessionRules
from analytic.solver.session_bounds import bounded_session, grid_points, interval_laws_from_bounds


def _game(seed):
    rng = random.Random(seed)
    nof = {F(0): F(rng.randint(4, 9)), F(1, 2): F(rng.randint(1, 4)), F(3, 2): F(rng.randint(1, 3)),
           F(4): F(rng.randint(0, 1))}
    feat = {F(rng.randint(0, 24), 2): F(rng.randint(1, 3)) for _ in range(4)}
    tot = sum(nof.values()) + sum(feat.values())
    nof = {w: p / tot for w, p in nof.items() if p}
    feat = {w: p / tot for w, p in feat.items()}
    slack = F(rng.randint(0, 3), 40)

    def bounds(xs):
        out = []
        for x in xs:
            s = sum((p for w, p in feat.items() if w >= x), F(0))
            out.append((max(F(0), s - slack * s), s + slack * (sum(feat.values()) - s)))
        return out

    return nof, feat, bounds, rng


def _quantile(law: dict, q):
    ks = sorted(law)
    acc = F(0)
    for k in ks:
        acc += law[k]
        if acc >= q:
            return k
    return ks[-1]


def _inside(fig: Figure, v, tol=F(1, 10**9)):
    return fig.value - fig.error - tol <= v <= fig.value + fig.error + tol


def _check(rules, nof, feat, laws, cost=F(1)):
    mean = sum((w * p for d in (nof, feat) for w, p in d.items()), F(0))
    got = bounded_session(rules, laws, cost, Figure(mean), cap=F(12))
    want = brute(rules, nof, feat, cost)
    assert got.method == "bounded"
    for why, fig in got.reasons.items():
        assert _inside(fig, sum((p for k, p in want.items() if k[0] == why), F(0))), (why, fig)
    assert set(k[0] for k in want) <= set(got.reasons)
    tl = defaultdict(F)
    fb = defaultdict(F)
    for k, p in want.items():
        tl[k[1]] += p
        fb[k[2]] += p
    assert _inside(got.rounds_mean, sum((t * p for t, p in tl.items()), F(0)))
    for q in QUANTILES:
        lo, hi = got.rounds_quantiles[q]
        assert lo <= _quantile(tl, q) <= hi, q
        lo, hi = got.balance_quantiles[q]
        assert lo <= _quantile(fb, q) <= hi, (q, lo, hi, _quantile(fb, q))
    assert _inside(got.balance_mean, sum((b * p for b, p in fb.items()), F(0)))
    assert _inside(got.p_above_start, sum((p for b, p in fb.items() if b > rules.balance), F(0)))
    pr = sum((p for k, p in want.items() if k[0] == "ruin"), F(0))
    assert _inside(got.ruin, pr)
    if got.rounds_to_ruin is not None and pr:
        assert _inside(got.rounds_to_ruin, sum((k[1] * p for k, p in want.items() if k[0] == "ruin"), F(0)) / pr)
    if got.return_quantiles is not None:
        rl = defaultdict(F)
        for k, p in want.items():
            if k[1]:
                rl[k[3] / k[4]] += p
        tot = sum(rl.values())
        for q in QUANTILES:
            lo, hi = got.return_quantiles[q]
            assert lo <= _quantile({r: p / tot for r, p in rl.items()}, q) <= hi
    return got


EXTRA = [dict(stop_cash_up=F(3), stop_cash_down=F(2)), dict(stop_single_win_above=F(4), stop_cash_up=F(6)),
         dict(stop_cash_down=F(9, 2)), dict(stop_on_any_win=True, stop_on_feature=True, stop_cash_down=F(2))]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("setting", [s for s in SETTINGS if "bet_ladder" not in s] + EXTRA)
def test_bracket_holds_every_path(setting, seed):
    nof, feat, bounds, rng = _game(seed)
    pts = grid_points(F(1, 2), F(12), rng.choice([4, 8, 30]))
    laws = interval_laws_from_bounds(nof, sum(feat.values()), bounds, pts, unit=F(1, 2))
    rules = SessionRules(balance=F(rng.choice([3, 5, 11, 2 * 5]), 2), rounds=rng.choice([3, 4]), **setting)
    _check(rules, nof, feat, laws)


def test_tight_without_slack_and_refuses_a_ladder():
    """No slack and every win on the grid: the two laws are the law, the brackets close."""
    nof = {F(0): F(1, 2), F(1): F(1, 4)}
    feat = {F(0): F(1, 8), F(3): F(1, 16), F(12): F(1, 16)}

    def bounds(xs):
        return [(s, s) for s in (sum((p for w, p in feat.items() if w >= x), F(0)) for x in xs)]

    pts = [F(k, 2) for k in range(1, 25)]
    laws = interval_laws_from_bounds(nof, F(1, 4), bounds, pts, unit=F(1, 2))
    assert laws.lo == laws.hi == feat
    rules = SessionRules(balance=F(3), rounds=3, stop_on_feature=True, stop_cash_down=F(2))
    got = _check(rules, nof, feat, laws)
    assert all(f.error < 1e-12 for f in got.reasons.values())
    with pytest.raises(SessionRefused, match="bet ladder"):
        bounded_session(SessionRules(balance=F(3), bet=F(1), bet_ladder=(F(1, 2), F(1))), laws, F(1), Figure(F(1)))
