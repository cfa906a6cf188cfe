"""The compiled step of the regular cap bounds against exact rational convolutions and plain loops."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from analytic.features.engines.drawn_expanding.kernel import (COMPILED, scatter_add, sorted_unique, spin_step,
                                                              spin_step_numpy, sum_blocks)
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


@pytest.mark.parametrize("values", [[], [7], [3, 3], [5, -2, 5, 9, 0, -2, 5], list(range(40, 0, -3)) * 3])
def test_sorted_unique_is_numpys_unique(values):
    """The chains' cheap unique: the distinct values, increasing, in the input's dtype (as numpy.unique,
    and as sorted(set(...))).  Fails on a lost or repeated value, another order or dtype."""
    a = np.array(values, dtype=np.int64)
    got = sorted_unique(a)
    assert got.dtype == np.int64 and got.tolist() == sorted(set(values))
    assert got.tobytes() == np.unique(a).tobytes()


@pytest.mark.parametrize("with_reach", [True, False])
def test_sum_blocks_adds_block_by_block_row_by_row(with_reach):
    """sum_blocks against the plain loop: per target id, ``+ w * row`` in block order, then row order
    (each product and sum rounded once), ids increasing; reach zeros where a block has none.  Fails on
    another order of the sums (the last bits), a lost row or a wrong target."""
    rng = np.random.default_rng(5)
    blocks = []
    for b in range(4):
        R = int(rng.integers(1, 7))
        ids = rng.integers(0, 6, R) * 3 + 1  # a strided view below, as the chains pass theirs
        rows = rng.random((R, 2, 3)) * 10.0 ** -rng.integers(0, 12)
        reach = rng.random(R) if (with_reach or b % 2) else None
        blocks.append((np.stack([ids, ids], axis=1)[:, 0], rows, float(rng.random()), reach))
    uid, sums, reach = sum_blocks(blocks)
    want_ids = sorted(set(int(i) for blk in blocks for i in blk[0]))
    assert uid.tolist() == want_ids
    want = {i: [0.0] * 6 for i in want_ids}
    want_r = {i: 0.0 for i in want_ids}
    for ids, rows, w, rch in blocks:
        for r, i in enumerate(ids.tolist()):
            flat = rows[r].ravel().tolist()
            for j in range(6):
                want[i][j] = want[i][j] + w * flat[j]
            want_r[i] = want_r[i] + w * (0.0 if rch is None else float(rch[r]))
    assert sums.shape == (len(want_ids), 2, 3)
    for k, i in enumerate(want_ids):
        assert sums[k].ravel().tolist() == want[i] and reach[k] == want_r[i]


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


def test_rank_pack_sorts_as_the_rows_do():
    # keys against np.unique over the rows of ranks (an independent route): the same order, the same groups
    from analytic.features.engines.drawn_expanding.kernel import rank_pack

    rng = np.random.default_rng(11)
    tables = [np.array([0, 9, 9, 3, 7]), np.array([5, 1]), np.array([2, 2, 8, 0, 0, 4])]
    ranks = [np.unique(t, return_inverse=True)[1].ravel() for t in tables]
    n = 4000
    raw = np.column_stack([rng.integers(0, len(t), n) for t in tables] + [rng.integers(0, 50, n)])
    last = rng.integers(0, 1000, n)
    pk, widths, shifts = rank_pack(raw, ranks, last)
    rows = np.column_stack([r[raw[:, i]] for i, r in enumerate(ranks)] + [last])
    _, first, inv = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    assert np.array_equal(np.argsort(pk[first], kind="stable"), np.arange(len(first)))  # sorted as the rows
    assert len(np.unique(pk)) == len(first)  # one key per distinct row
    assert np.array_equal(np.unique(pk, return_inverse=True)[1].ravel(), inv.ravel())
    assert widths == [int(r[raw[:, i]].max()).bit_length() for i, r in enumerate(ranks)] + [int(last.max()).bit_length()]
    for i, (w, sh) in enumerate(zip(widths, shifts)):  # every field read back
        want = rows[:, i]
        assert np.array_equal((pk >> sh) & ((1 << w) - 1), want)


def test_rank_pack_refuses_what_does_not_fit():
    from analytic.features.engines.drawn_expanding.kernel import rank_pack

    raw = np.array([[0, 1], [1, 0]])
    ranks = [np.array([0, 1]), np.array([0, 1])]
    assert rank_pack(raw, ranks, np.array([2 ** 61, 0])) is None  # 62 + 1 + 1 bits
    with pytest.raises(IndexError, match="column 1"):
        rank_pack(np.array([[0, 2]]), ranks, np.array([0]))
