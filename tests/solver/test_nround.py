"""Certified N-round RTP quantiles (analytic.solver.nround) against exact convolution in Fractions.

The oracle: the N-fold convolution of a small law computed here in Fractions
and its exact quantiles (least x with P(S_N <= x) >= a), independent of the
module's float / rebinning / windowing code.  Small grids (M) force the
rebinning and the windows so the bounds are exercised, and a deliberately
wrong bound (the rebinning shift t dropped) must miss an exact quantile.
"""

from __future__ import annotations

import random
from collections import defaultdict
from fractions import Fraction

import pytest

from analytic.solver import nround
from analytic.solver.nround import n_round_quantiles


_POWERS: dict = {}


def exact_power(law: dict, n: int) -> dict:
    """The law of the sum of n independent copies, in exact integers over a common denominator
    (the powers of a law kept for the next call)."""
    den = 1
    for p in law.values():
        den = den * p.denominator // __import__("math").gcd(den, p.denominator)
    w = {x: int(p * den) for x, p in law.items()}
    key = tuple(sorted(law.items()))
    start = max((j for k, j in _POWERS if k == key and j <= n), default=0)
    out = _POWERS[(key, start)] if start else {Fraction(0): 1}
    for _ in range(n - start):
        nxt: dict = defaultdict(int)
        for x, p in out.items():
            for y, q in w.items():
                nxt[x + y] += p * q
        out = dict(nxt)
    _POWERS[(key, n)] = out
    return {x: Fraction(c, den**n) for x, c in out.items()}


def exact_quantile(law: dict, a: Fraction) -> Fraction:
    """Least x with P(S <= x) >= a."""
    acc = Fraction(0)
    for x in sorted(law):
        acc += law[x]
        if acc >= a:
            return x
    raise AssertionError("mass below the level")


def check(law, ns, cost=Fraction(1), levels=(90, 95, 99), **kw):
    got = n_round_quantiles(law, 0, cost, ns, levels, **kw)
    widths = []
    for n in ns:
        b = got[n]
        assert b is not None and b.rounds == n
        s = exact_power(law, n)
        for lv, lo_lo, lo_hi, hi_lo, hi_hi in b.ranges:
            for a, lo, hi in ((Fraction(100 - lv, 200), lo_lo, lo_hi), (Fraction(100 + lv, 200), hi_lo, hi_hi)):
                q = float(exact_quantile(s, a) / (n * cost))
                assert lo - 1e-12 <= q <= hi + 1e-12, (n, lv, a, lo, q, hi)
                widths.append(hi - lo)
    return got, widths


def test_hand_checked_law():
    """X = 0 w.p. 3/4, 4 w.p. 1/4 (RTP 100 %): the RTP over 4 rounds is K ~ Binomial(4, 1/4); its 5 %
    quantile is 0 (P(K = 0) = 81/256 >= 0.05) and its 95 % quantile is 3 (P(K <= 2) = 243/256 = 0.949
    < 0.95, P(K <= 3) = 255/256): the certified intervals (no rebinning at this size) are these points."""
    law = {Fraction(0): Fraction(3, 4), Fraction(4): Fraction(1, 4)}
    got, _ = check(law, [4])
    lv, lo_lo, lo_hi, hi_lo, hi_hi = got[4].ranges[0]
    assert lv == 90 and lo_lo == 0 and lo_hi == pytest.approx(0) and hi_lo == pytest.approx(3) and hi_hi == pytest.approx(3)
    assert got[4].shift == 0


def test_cost_divides_the_rtp():
    law = {Fraction(0): Fraction(1, 2), Fraction(3): Fraction(1, 2)}
    a = n_round_quantiles(law, 0, Fraction(1), [5])[5]
    b = n_round_quantiles(law, 0, Fraction(3), [5])[5]
    assert [x / 3 for x in a.ranges[0][1:]] == pytest.approx(list(b.ranges[0][1:]))


@pytest.mark.parametrize("seed", range(8))
def test_random_small_laws_rebinned_and_windowed(seed):
    """Random laws on a few grid points with a rare large win; grids of 16-64 points force rebinning
    (and windows): every exact quantile lies in its certified interval, for N from 1 to 30."""
    rng = random.Random(seed)
    k = rng.randint(2, 5)
    wins = rng.sample(range(0, 12), k) + [rng.randint(20, 60)]
    weights = [rng.randint(1, 20) for _ in wins[:-1]] + [1]
    tot = sum(weights)
    law = defaultdict(Fraction)
    for w, c in zip(wins, weights):
        law[Fraction(w, 4)] += Fraction(c, tot)
    M = rng.choice([16, 32, 64])
    check(dict(law), [1, 2, 3, 7, 10, 20, 30], M=M)


def test_decade_chain_and_its_doublings():
    """N = 10, 20, 40, 80, 100 (the sheet's 10^k, 2 10^k, 4 10^k, 8 10^k chain) on a 64-point grid, and on
    a grid large enough for no rebinning, where the intervals shrink to the exact quantiles."""
    law = {Fraction(0): Fraction(7, 10), Fraction(1, 2): Fraction(1, 5), Fraction(6): Fraction(1, 10)}
    check(law, [10, 20, 40, 80, 100], M=64)  # rebinned: containment
    _, widths = check(law, [10, 20, 40, 80, 100], M=4096)  # no rebinning: the exact quantiles
    assert max(widths) < 1e-9


def test_wrong_bound_fails(monkeypatch):
    """With the rebinning bound t dropped (a wrong certificate) the intervals miss exact quantiles:
    the containment check above can fail."""
    real = nround._bounds

    def no_shift(s, *a, **k):
        s.sq = 0.0
        return real(s, *a, **k)

    monkeypatch.setattr(nround, "_bounds", no_shift)
    law = {Fraction(0): Fraction(7, 10), Fraction(1, 2): Fraction(1, 5), Fraction(6): Fraction(1, 10)}
    missed = 0
    for M in (8, 12, 16):
        try:
            check(law, [5, 10, 20, 40], M=M)
        except AssertionError:
            missed += 1
    assert missed


def test_refusals():
    with pytest.raises(ValueError):
        n_round_quantiles({Fraction(-1): Fraction(1)}, 0, 1, [3])
    with pytest.raises(ValueError):
        n_round_quantiles({Fraction(1): Fraction(1)}, 0, 1, [0])


def test_errors_beyond_the_tail_certify_nothing():
    """A round law known to within e0 = 1e-3 in total variation: over N = 10 rounds the error bound
    alone is N e0 = 0.01 (and the missing mass d counts it again, 3 N e0 in all), beyond the 2.5 %
    tail of the 95 % range: the low end could only be 0 (true, empty), so the 95 % range is not
    certified; the 90 % range (5 % tails) still is, alone or asked with the 95 % one (the whole N
    was dropped for the one level), and contains the exact quantiles.  With e0 = 1e-2 (3 N e0 = 0.3,
    beyond both tails) no level is: None."""
    law = {Fraction(0): Fraction(1, 2), Fraction(1): Fraction(1, 2)}
    assert n_round_quantiles(law, Fraction(1, 100), Fraction(1), [10], (90, 95))[10] is None
    both = n_round_quantiles(law, Fraction(1, 1000), Fraction(1), [10], (90, 95))[10]
    b = n_round_quantiles(law, Fraction(1, 1000), Fraction(1), [10], (90,))[10]
    assert b is not None and both is not None
    assert both.ranges == b.ranges and (both.shift, both.slack) == (b.shift, b.slack)
    (lv, lo_lo, lo_hi, hi_lo, hi_hi), = b.ranges
    assert lv == 90
    s = exact_power(law, 10)  # Binomial(10, 1/2): 5 % quantile 2, 95 % quantile 8
    assert lo_lo <= float(exact_quantile(s, Fraction(5, 100)) / 10) <= lo_hi
    assert hi_lo <= float(exact_quantile(s, Fraction(95, 100)) / 10) <= hi_hi
    assert 0 < lo_lo
