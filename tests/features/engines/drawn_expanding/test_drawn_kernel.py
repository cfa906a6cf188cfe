"""The compiled step of the regular cap bounds against exact rational convolutions and plain loops."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from analytic.features.engines.drawn_expanding.kernel import COMPILED, scatter_add, spin_step, spin_step_numpy
from analytic.features.engines.drawn_expanding.draw_cap import _gamma


def _laws(seed: int, R: int, N: int, M: int):
    rng = random.Random(seed)

    def row(zeros: float, cut: int):
        return [0.0 if (k >= cut or rng.random() < zeros) else rng.random() * 10 ** -rng.randint(0, 40)
                for k in range(N)]
    G = np.array([row(0.3, rng.randint(0, N)) for _ in range(R)])
    H = np.array([row(0.6, rng.randint(0, N)) for _ in range(M)])
    hidx = np.array([rng.randrange(M) for _ in range(R)], dtype=np.int64)
    return G, H, hidx


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_spin_step_brackets_the_exact_convolution(seed):
    R, N, M = 6, 23, 4
    G, H, hidx = _laws(seed, R, N, M)
    grid_hi = np.arange(N, 2 * N - 1, dtype=np.float64) * 5.0
    gam = _gamma(N + 1)
    for scale, sign in ((1 + gam, 1), (1 - gam, -1)):
        new = np.full((R, N + 3), np.nan)
        tail, tailm, total = spin_step(G, H, hidx, scale, 0.0, grid_hi, new)
        assert np.isnan(new[:, N:]).all()  # only the grid columns are written
        for r in range(R):
            g, h = G[r], H[hidx[r]]
            exact = [sum((Fraction(g[i]) * Fraction(h[k - i]) for i in range(N) if 0 <= k - i < N), Fraction(0))
                     for k in range(2 * N - 1)]
            for k in range(N):  # raised: never below the exact mass; lowered: never above
                assert sign * (Fraction(new[r, k]) - exact[k]) >= 0
                assert abs(Fraction(new[r, k]) - exact[k]) <= Fraction(3 * gam) * exact[k]
            beyond = sum(exact[N:], Fraction(0))
            assert abs(Fraction(tail[r]) - beyond) <= Fraction(4 * gam) * beyond
            mom = sum((e * Fraction(x) for e, x in zip(exact[N:], grid_hi)), Fraction(0))
            assert abs(Fraction(tailm[r]) - mom) <= Fraction(4 * gam) * mom
            whole = sum(exact, Fraction(0))
            assert abs(Fraction(total[r]) - whole) <= Fraction(4 * gam) * whole


def test_spin_step_shift_and_clamp():
    """``out = max(acc * scale + shift, 0)``: a lowering shift clamps empty cells at 0, a raise fills them."""
    G = np.array([[0.5, 0.0, 0.25]])
    H = np.array([[0.0, 1.0, 0.0]])
    new = np.zeros((1, 3))
    tail, tailm, total = spin_step(G, H, np.array([0]), 1.0, -1e-3, np.array([7.0, 9.0]), new)
    assert new[0].tolist() == [0.0, 0.5 - 1e-3, 0.0]
    assert tail[0] == 0.25 - 1e-3 and tailm[0] == (0.25 - 1e-3) * 7.0 and total[0] == 0.75
    tail, _, _ = spin_step(G, H, np.array([0]), 1.0, 1e-3, np.array([7.0, 9.0]), new)
    assert new[0].tolist() == [1e-3, 0.5 + 1e-3, 1e-3] and tail[0] == 1e-3 + (0.25 + 1e-3)


@pytest.mark.skipif(not COMPILED, reason="numba is not installed: spin_step is spin_step_numpy")
def test_compiled_step_agrees_with_numpy_convolve():
    G, H, hidx = _laws(7, 40, 61, 9)
    grid_hi = np.arange(61, 121, dtype=np.float64)
    a, b = np.zeros((40, 64)), np.zeros((40, 64))
    ra = spin_step(G, H, hidx, 1.0, 0.0, grid_hi, a)
    rb = spin_step_numpy(G, H, hidx, 1.0, 0.0, grid_hi, b)
    np.testing.assert_allclose(a, b, rtol=1e-13, atol=0)
    for x, y in zip(ra, rb):
        np.testing.assert_allclose(x, y, rtol=1e-13, atol=0)


def test_scatter_add_sums_in_row_order():
    rng = np.random.default_rng(3)
    out = rng.random((5, 4))
    reach_out = rng.random(5)
    pos = np.array([3, 0, 3, 3, 1, 0])
    rows = rng.random((6, 4)) * 1e-3
    reach = rng.random(6)
    want, want_r = out.copy(), reach_out.copy()
    for r, p in enumerate(pos):  # the plain loop: one rounded product and one rounded sum per entry
        for j in range(4):
            want[p, j] = want[p, j] + 0.3 * rows[r, j]
        want_r[p] = want_r[p] + 0.3 * reach[r]
    scatter_add(out, reach_out, pos, rows, 0.3, reach)
    assert np.array_equal(out, want) and np.array_equal(reach_out, want_r)


def test_spin_step_underflow_stays_within_its_allowance():
    """Products below the smallest float: each entry is short of the exact value by at most (N + 1) 2^-1074."""
    rng = random.Random(11)
    R, N = 3, 17
    G = np.array([[rng.random() * 1e-160 if rng.random() < 0.7 else 0.0 for _ in range(N)] for _ in range(R)])
    H = np.array([[rng.random() * 10 ** -rng.randint(150, 170) for _ in range(N)] for _ in range(R)])
    gam, tiny = _gamma(N + 1), (N + 1) * 2.0 ** -1074
    new = np.zeros((R, N))
    spin_step(G, H, np.arange(R), 1 + gam, 0.0, np.arange(N - 1, dtype=np.float64), new)
    for r in range(R):
        for k in range(N):
            exact = sum((Fraction(G[r, i]) * Fraction(H[r, k - i]) for i in range(k + 1)), Fraction(0))
            assert Fraction(new[r, k]) >= exact - Fraction(tiny)
            assert Fraction(new[r, k]) <= exact * (1 + Fraction(3 * gam)) + Fraction(tiny)


@pytest.mark.skipif(not COMPILED, reason="numba is not installed: spin_step is spin_step_numpy")
def test_compiled_step_agrees_with_numpy_when_lowering():
    G, H, hidx = _laws(8, 30, 41, 5)
    grid_hi = np.arange(41, 81, dtype=np.float64)
    gam = _gamma(42)
    a, b = np.zeros((30, 41)), np.zeros((30, 41))
    ra = spin_step(G, H, hidx, 1 - gam, -1e-30, grid_hi, a)
    rb = spin_step_numpy(G, H, hidx, 1 - gam, -1e-30, grid_hi, b)
    np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-45)
    assert np.array_equal(a == 0, b == 0)  # the same cells clamped
    for x, y in zip(ra, rb):
        np.testing.assert_allclose(x, y, rtol=1e-13, atol=1e-45)


def test_spin_step_refuses_what_the_compiled_loop_would_not_check():
    G, H, hidx = _laws(9, 4, 9, 3)
    grid_hi = np.arange(8, dtype=np.float64)
    with pytest.raises(ValueError):
        spin_step(G, H, np.array([0, 1, 2, 3]), 1.0, 0.0, grid_hi, np.zeros((4, 9)))  # index 3 leaves H
    with pytest.raises(ValueError):
        spin_step(G, H, np.array([0, -1, 2, 0]), 1.0, 0.0, grid_hi, np.zeros((4, 9)))
    with pytest.raises(ValueError):
        spin_step(G, H, hidx, 1.0, 0.0, grid_hi, np.zeros((4, 9), dtype=np.float32))
    with pytest.raises(ValueError):
        spin_step(G, H[:, :5], hidx, 1.0, 0.0, grid_hi, np.zeros((4, 9)))


def test_chernoff_rows_against_the_formula_row_by_row():
    """Each row: min(first-moment bound, best Chernoff bound over the thetas); zero-mass rows skipped."""
    import math

    from analytic.features.engines.drawn_expanding.kernel import chernoff_rows, chernoff_rows_numpy

    rng = random.Random(4)
    th = np.array([1e-4, 3e-4, 1e-3, 5e-3])
    T = []
    for _ in range(12):
        m = rng.choice([0.0, rng.random() * 1e-3])
        T.append([m, m * rng.random() * 100] + [m * math.exp(rng.random() * 50 * t) for t in th])
    T.append([1e-4, 5e-3, 1e-4, math.inf, math.inf, math.inf])  # an overflowed MGF: the other thetas or the mean
    T = np.array(T)
    cs = np.array([-50.0, 0.0, 10.0, 2000.0, 1e5])
    want = []
    for c in cs:
        s = 0.0
        for row in T:
            if row[0] <= 0:
                continue
            part = max(row[1] - min(c, 0.0) * row[0], 0.0)
            best = min(math.log(row[2 + j]) - t * c - 1 - math.log(t) if row[2 + j] > 0 else -math.inf
                       for j, t in enumerate(th))
            s += min(part, math.exp(best) if best < 700 else math.inf)
        want.append(s)
    got = chernoff_rows(T, th, cs)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    np.testing.assert_allclose(chernoff_rows_numpy(T, th, cs), want, rtol=1e-13)
    assert chernoff_rows(T[:0], th, cs).tolist() == [0.0] * len(cs)
