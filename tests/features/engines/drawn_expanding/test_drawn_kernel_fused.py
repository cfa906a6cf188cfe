"""The compiled steps of the upper cap bound's chain against plain loops: the same floats, bit for bit.

Each oracle is the operation written out in Python floats (IEEE doubles, one rounding per
operation, in the order the chain's numpy expressions use): a kernel that sums in another order,
drops a nonzero term or reads the wrong row fails on the last bits.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from analytic.features.engines.drawn_expanding import kernel
from analytic.features.engines.drawn_expanding.draw_cap import _unique_rows
from analytic.features.engines.drawn_expanding.kernel import (grid_spin, group_pay, mgf_spin, multiply_gathered,
                                                              spin_step)


@pytest.fixture(params=["compiled", "numpy"])
def path(request, monkeypatch):
    """A test twice: on the compiled kernels, and on the numpy fallback a machine without numba would
    run (``kernel.COMPILED`` is read at each call).  The fused steps promise the fallback's floats;
    ``spin_step`` itself does not (its fallback, one ``numpy.convolve`` per row, sums in another
    order: "the same sums up to their rounding"), so its tests run compiled only."""
    if request.param == "compiled" and not kernel.COMPILED:
        pytest.skip("numba is not installed")
    if request.param == "numpy":
        monkeypatch.setattr(kernel, "COMPILED", False)
    return request.param


def _row(rng, n, zeros, cut):
    return [0.0 if (k >= cut or rng.random() < zeros) else rng.random() * 10 ** -rng.randint(0, 30) for k in range(n)]


def _plain_step(g, h, scale, shift, grid_hi):
    """The direct convolution as first written: ``for k: for j: acc[j + k] += h[k] g[j]``, then every entry."""
    n = len(g)
    acc = [0.0] * (2 * n - 1)
    for k in range(n):
        for j in range(n):
            acc[j + k] += h[k] * g[j]
    out = [max(v * scale + shift, 0.0) for v in acc]
    tail = tm = total = 0.0
    for i, v in enumerate(acc):
        total += v
        if i >= n:
            tail += out[i]
            tm += out[i] * grid_hi[i - n]
    return out[:n], tail, tm, total


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_spin_step_sums_as_the_plain_loop(seed):
    """Short spin laws (one pass per entry) and long ones, raised, lowered and shifted up: the same bits."""
    rng = random.Random(seed)
    N = 29
    G = np.array([_row(rng, N, 0.2, rng.randint(0, N)) for _ in range(12)])
    H = np.array([_row(rng, N, 0.3, rng.choice([1, 2, 5, 8, 9, 20, N])) for _ in range(7)])
    H[0] = 0.0
    hidx = np.array([rng.randrange(7) for _ in range(12)], dtype=np.int64)
    grid_hi = np.arange(N, 2 * N - 1, dtype=np.float64) * 3.0
    for scale, shift in ((1 + 2.0 ** -40, 0.0), (1 - 2.0 ** -40, -1e-300), (1.0, 1e-3)):
        new = np.full((12, N + 2), np.nan)
        tail, tm, total = spin_step(G, H, hidx, scale, shift, grid_hi, new)
        for r in range(12):
            out, t, m, s = _plain_step(G[r].tolist(), H[hidx[r]].tolist(), scale, shift, grid_hi.tolist())
            assert new[r, :N].tolist() == out
            assert (tail[r], tm[r], total[r]) == (t, m, s)


@pytest.mark.usefixtures("path")
def test_group_pay_adds_the_groups_in_order():
    rng = np.random.default_rng(3)
    R, ng, nl, nid = 9, 3, 4, 5
    E = rng.integers(0, 40, (R, ng)).astype(np.float64) * 0.37
    EM = np.minimum(E, rng.integers(0, 20, (R, ng)) * 0.37)
    MS = [rng.random((nl, int(rng.integers(1, 6)))) * 9 for _ in range(ng)]
    MM = [np.where(rng.random(m.shape) < 0.3, 1e300, rng.random(m.shape) * 30) for m in MS]
    F = np.array([[int(rng.integers(0, MS[g].shape[1])) for g in range(ng)] for _ in range(nid)])
    LX = rng.random(R) * 5
    x = group_pay(E, EM, MS, MM, F, LX)
    for r in range(R):
        for i in range(nid):
            for b in range(nl):
                v = 0.0
                for g in range(ng):
                    v += min(float(E[r, g]) * float(MS[g][b, F[i, g]]), float(EM[r, g]) * float(MM[g][b, F[i, g]]))
                assert x[r, i, b] == v + float(LX[r])
    with pytest.raises(ValueError):
        group_pay(E, EM, MS, MM, F + 10, LX)


@pytest.mark.usefixtures("path")
def test_multiply_gathered_is_numpys_product():
    rng = np.random.default_rng(4)
    P = np.exp(rng.random((3, 6, 5, 4)) * 800)  # overflow to inf
    P[1, 2, 0, 0] = 0.0
    ex = np.exp(rng.random((3, 4, 5, 4)) * 50)
    ex[0, 0, 0, 0] = np.inf
    idx = np.array([2, 0, 5, 2])
    with np.errstate(over="ignore", invalid="ignore"):
        want_levels, want_shared = ex * P[:, idx], ex * P[0, idx]
        want_broadcast = ex[:1] * P[:, idx]
    got = multiply_gathered(ex.copy(), P, idx, False)
    assert got.tobytes() == want_levels.tobytes()
    assert multiply_gathered(ex.copy(), P, idx, True).tobytes() == want_shared.tobytes()
    out = np.empty_like(ex)
    assert multiply_gathered(ex[:1].copy(), P, idx, False, out=out) is out
    assert out.tobytes() == want_broadcast.tobytes()
    with pytest.raises(ValueError):
        multiply_gathered(ex.copy(), P, np.array([0, 1, 6, 0]), False)


@pytest.mark.usefixtures("path")
def test_grid_spin_is_the_step_then_the_columns_formulas():
    """grid_spin against spin_step row by row and the columns beyond the grid written out in floats."""
    rng = random.Random(6)
    R, nl, nc, N, nslot = 4, 3, 2, 13, 5
    S = np.array([[_row(rng, N, 0.1, N) + [rng.random() * 1e-3, rng.random() * 1e-2, rng.random() * 1e-9]
                   for _ in range(nl)] for _ in range(R)])
    HL = np.array([[[_row(rng, N, 0.3, rng.choice([1, 3, 8, 11])) for _ in range(nc)] for _ in range(nl)]
                   for _ in range(nslot)])
    hlen = np.array([[[max([k + 1 for k in range(N) if HL[s, b, c, k] != 0.0], default=0) for c in range(nc)]
                      for b in range(nl)] for s in range(nslot)], dtype=np.int64)
    tables = tuple(np.array([[[rng.random() * 10 ** -rng.randint(0, 5) for _ in range(nc)] for _ in range(nl)]
                             for _ in range(nslot)]) for _ in range(4))
    slots = np.array([3, 0, 3, 4], dtype=np.int64)
    gmass, mean = S[:, :, :N].sum(axis=2), S[:, :, :N] @ (np.arange(N) * 2.0)
    grid_hi = np.arange(N, 2 * N - 1) * 2.0
    gam, under, under_top, raise_by = 2.0 ** -45, 2.0 ** -1022, 2.0 ** -1022 * 50, 1 + 1e-12
    news = grid_spin(S, HL, hlen, slots, [1, 0], 1 + gam, grid_hi, tables, gmass, mean, gam, under, under_top,
                     raise_by)
    for ci, new in zip([1, 0], news):
        for r in range(R):
            for b in range(nl):
                sl = int(slots[r])
                one = np.empty((1, N))
                t, tm, tot = (float(v[0]) for v in spin_step(S[r, b, :N][None], HL[sl, b, ci][None], np.array([0]),
                                                             1 + gam, 0.0, grid_hi, one))
                assert new[r, b, :N].tolist() == one[0].tolist()
                bp, bm, xm, x1 = (float(t_[sl, b, ci]) for t_ in tables)
                po, so, ri = (float(v) for v in S[r, b, N:])
                gm, mn = float(gmass[r, b]), float(mean[r, b])
                cm = xm + bp
                err = gam * tot + under
                assert new[r, b, N] == t + gm * bp + po * cm + under
                assert new[r, b, N + 1] == tm + mn * bp + gm * bm + so * cm + po * x1 + under_top
                assert new[r, b, N + 2] == (ri * cm + 2 * err) * raise_by + 1e-15 * ((gm + po) * cm)
    with pytest.raises(ValueError):
        grid_spin(S, HL, hlen, slots + 2, [0], 1.0, grid_hi, tables, gmass, mean, gam, under, under_top, raise_by)


@pytest.mark.usefixtures("path")
def test_mgf_spin_multiplies_as_written():
    rng = np.random.default_rng(8)
    Z = np.exp(rng.random((5, 3, 6)) * 400)
    GZ = np.exp(rng.random((7, 3, 2, 6)) * 400)
    GZ[2, 1, 1, 3] = 0.0
    Z[4, 1, 3] = np.inf
    ids = np.array([2, 6, 0, 2, 2])
    for ci in range(2):
        got = mgf_spin(Z, GZ, ids, ci)
        for r in range(5):
            for b in range(3):
                m = [float(v) for v in GZ[ids[r], b, ci]]
                z = [float(v) for v in Z[r, b]]
                want = [z[0] * m[0], z[1] * m[0] + z[0] * m[1]] + [z[t] * m[t] for t in range(2, 6)]
                assert np.array(want).tobytes() == got[r, b].tobytes()


@pytest.mark.parametrize("shape", [(0, 3), (1, 2), (40, 1), (500, 4)])
def test_unique_rows_is_numpys_unique(shape):
    rng = np.random.default_rng(shape[0])
    keys = rng.integers(-3, 4, shape).astype(np.int64) * 1_000_003
    uk, inv = _unique_rows(keys)
    want, want_inv = np.unique(keys, axis=0, return_inverse=True)
    assert uk.shape == want.shape and uk.tobytes() == want.tobytes()
    assert inv.tolist() == want_inv.ravel().tolist()
