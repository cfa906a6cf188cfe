"""RTP ranges over N rounds of a round law whose top win is ~10^36 grid steps (pays up to 10^18
times wild multipliers, a scatter pay of 1/3): the law was put on an array of one float per grid
step (``ValueError: Maximum allowed dimension exceeded`` in ``analytic report``).

Oracle (independent of the solver): with ``X`` in {0, 1/3, W} and ``W = 10^36``, the total win of
``N`` rounds is ``S = K W + J / 3`` with ``K ~ Binomial(N, p_W)`` and ``0 <= J <= N``, so its
level-``a`` quantile lies in ``[q_K(a) W, q_K(a) W + N / 3]``; the certified interval must meet it.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

from analytic.solver.nround import n_round_quantiles

W = 10**36


def _binomial_quantile(n: int, p: Fraction, a: float) -> int:
    acc = Fraction(0)
    for k in range(n + 1):
        acc += comb(n, k) * p**k * (1 - p) ** (n - k)
        if acc >= Fraction(a):
            return k
    return n


def test_a_top_win_of_10_to_the_36_grid_steps_gets_certified_ranges():
    law = {Fraction(0): Fraction(1, 2), Fraction(1, 3): Fraction(1, 4), Fraction(W): Fraction(1, 4)}
    n = 1000
    bounds = n_round_quantiles(law, 0, Fraction(1), [n], [90])[n]
    assert bounds is not None
    (level, low_lo, low_hi, high_lo, high_hi), = bounds.ranges
    for a, lo, hi in ((0.05, low_lo, low_hi), (0.95, high_lo, high_hi)):
        k = _binomial_quantile(n, Fraction(1, 4), a)
        true_lo, true_hi = k * W / n, (k * W + n / 3) / n  # the RTP quantile lies here (cost 1)
        assert lo <= true_hi * (1 + 1e-12) and hi >= true_lo * (1 - 1e-12), (a, lo, hi, true_lo, true_hi)
        assert hi - lo < 0.01 * true_lo  # and the interval says something
