"""The certified session chain's steps: the sparse law's convolution and the tail scans.

Oracles written here: ``numpy.convolve`` in float64 and exact sums in Fractions (the convolution's
error must stay within the bound it reports), ``numpy.cumsum`` of the reversed vector (the scans),
and a dict of grid index -> value (the growable accumulator).
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from analytic.solver import session_kernel as K
from analytic.solver.session import _Acc, _conv_split, _split_law, _Work


def _sparse_law(rng, span, dense, atoms):
    la = np.zeros(span)
    la[:dense] = rng.random(dense) ** 3
    la[rng.choice(np.arange(dense, span), atoms, replace=False)] = rng.random(atoms) * 1e-6
    return la / la.sum()


@pytest.mark.parametrize("seed", range(4))
def test_split_convolution_within_its_bound(seed):
    rng = np.random.default_rng(seed)
    la = _sparse_law(rng, 30_001, int(rng.integers(50, 1500)), int(rng.integers(1, 30)))
    split = _split_law(la)
    D, offs, probs = split
    assert len(offs) and D <= offs.min() and offs.max() < len(la) and np.array_equal(la[offs], probs)
    assert np.count_nonzero(la[D:]) == len(offs)  # every point above the core is an atom
    work = _Work()
    for n in (1, 12, 5000, 40_000):
        a = rng.random(n) ** 4
        a[rng.random(n) < 0.3] = 0.0
        got, e = _conv_split(a, la, split, {}, "k", work, n % 2)
        want = np.convolve(a, la)
        assert got.shape == want.shape and (got >= 0).all()
        assert np.abs(got - want).sum() <= e * a.sum() * la.sum() + 1e-15 * a.sum()
        # the same bound held against exact sums on a small case
        if n == 12:
            fa, fl = [F(x) for x in a], {int(i): F(la[i]) for i in np.flatnonzero(la)}
            exact = [F(0)] * (len(a) + len(la) - 1)
            for i, x in enumerate(fa):
                if x:
                    for j, y in fl.items():
                        exact[i + j] += x * y
            err = sum(abs(F(g) - x) for g, x in zip(got, exact))
            assert err <= F(e) * sum(fa) * sum(fl.values())


def test_dense_law_has_no_atoms():
    la = np.full(3000, 1 / 3000)
    assert _split_law(la)[0] == 3000 and len(_split_law(la)[1]) == 0


@pytest.mark.parametrize("seed", range(6))
def test_scans_match_cumsum(seed):
    rng = np.random.default_rng(seed)
    a = rng.random(int(rng.integers(1, 400))) ** 6 * 1e-6
    for x in (0.0, 1e-15, 1e-9, float(a.sum()) / 2, float(a.sum()), 1.0):
        assert K.top_cut(a, x) == K._top_cut_numpy(a, x)
        assert K.tail_start(a, x) == K._tail_start_numpy(a, x)
    out = np.zeros(len(a) + 50)
    want = out.copy()
    offs, probs = np.array([0, 7, 49], dtype=np.int64), np.array([0.5, 0.25, 1e-3])
    K.scatter_atoms(out, a, offs, probs)
    K._scatter_numpy(want, a, offs, probs)
    assert np.array_equal(out, want)


def test_accumulator_against_a_dict():
    rng = np.random.default_rng(5)
    acc, d = _Acc(False), {}
    for _ in range(300):
        off = int(rng.integers(-500, 500)) + _ * 3
        arr = rng.random(int(rng.integers(0, 40)))
        acc.add(off, arr)
        for i, x in enumerate(arr):
            d[off + i] = d.get(off + i, 0.0) + x
    lo, hi = min(d), max(d)
    assert acc.off == lo and len(acc.a) == hi - lo + 1
    for i, x in enumerate(acc.a):
        assert x == pytest.approx(d.get(lo + i, 0.0), rel=1e-12, abs=1e-300)
