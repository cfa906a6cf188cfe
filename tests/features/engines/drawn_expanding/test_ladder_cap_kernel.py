"""The ladder law's compiled spectrum products against an exact-rounding reference (Fractions)."""

from fractions import Fraction

import numpy as np
import pytest

from analytic.features.engines.drawn_expanding import ladder_cap_kernel as lk


def _fma(x: float, y: float, z: float) -> float:
    # x y + z rounded once: the exact rational, then Fraction's correctly rounded float
    return float(Fraction(x) * Fraction(y) + Fraction(z))


def _reference(rows):
    """The documented arithmetic, entry by entry, in Python floats and Fractions (no numpy, no numba)."""
    out = []
    for pairs in rows:
        n = len(pairs[0][0])
        acc = [None] * n
        for x, t in pairs:
            for f in range(n):
                a, b = float(x[f].real), float(x[f].imag)
                c, d = float(t[f].real), float(t[f].imag)
                re, im = _fma(a, c, -(b * d)), _fma(a, d, b * c)
                acc[f] = (re, im) if acc[f] is None else (acc[f][0] + re, acc[f][1] + im)
        out.append(np.array([complex(*v) for v in acc]))
    return out


def _spectra(rng, k, n):
    # magnitudes over many binades, both signs, exact zeros: products whose fused rounding differs
    # from the twice-rounded one
    mag = np.exp(rng.uniform(-30, 5, size=(k, n, 2)))
    v = mag * rng.choice([-1.0, 1.0], size=(k, n, 2))
    v[rng.random((k, n, 2)) < 0.05] = 0.0
    return np.ascontiguousarray(v).view(np.complex128)[..., 0]


@pytest.mark.parametrize("n", [1, 3, 4, 9, 37])
def test_sum_products_is_the_fused_arithmetic_in_pair_order(n):
    rng = np.random.default_rng(n)
    xs, ts = _spectra(rng, 9, n), _spectra(rng, 4, n)
    # rows sharing target spectra (as a batch's rows do), one row of a single pair
    rows = [[(xs[0], ts[0]), (xs[1], ts[1]), (xs[2], ts[0])],
            [(xs[3], ts[1])],
            [(xs[4], ts[2]), (xs[5], ts[3]), (xs[6], ts[2]), (xs[7], ts[0]), (xs[8], ts[1])]]
    want = _reference(rows)
    for block in (1, 2, 5, lk.BLOCK):
        acc = np.full((3, n), np.nan + 0j)
        lk.sum_products(list(acc), rows, block=block)
        for got, w in zip(acc, want):
            assert np.array_equal(got.view(np.float64), w.view(np.float64)), block


def test_the_fused_product_is_not_the_twice_rounded_one():
    # the reference above can fail: these operands' fused and twice-rounded real parts differ
    a, b, c, d = 1.0 + 2.0 ** -30, 1.0 + 2.0 ** -30, 1.0 - 2.0 ** -30, 1.0 + 2.0 ** -29
    x, t = np.array([complex(a, b)]), np.array([complex(c, d)])
    acc = np.empty(1, dtype=complex)
    lk.sum_products([acc], [[(x, t)]])
    assert acc[0].real == _fma(a, c, -(b * d))
    assert acc[0].real != a * c - b * d


def test_numpy_fallback_agrees_where_numpy_fuses():
    rng = np.random.default_rng(7)
    xs, ts = _spectra(rng, 3, 64), _spectra(rng, 2, 64)
    if not np.array_equal(np.array(_reference([[(xs[0], ts[0])]])[0]).view(np.float64),
                          (xs[0] * ts[0]).view(np.float64)):
        pytest.skip("numpy's complex product on this CPU is not the fused one")
    rows = [[(xs[0], ts[0]), (xs[1], ts[1]), (xs[2], ts[0])]]
    a, b = np.empty((1, 64), dtype=complex), np.empty((1, 64), dtype=complex)
    lk.sum_products(list(a), rows)
    lk.sum_products_numpy(list(b), rows)
    assert np.array_equal(a.view(np.float64), b.view(np.float64))


def test_bad_spectra_are_refused():
    good = np.ones(8, dtype=complex)
    out = np.empty(8, dtype=complex)
    for bad in (np.ones(8), np.ones(7, dtype=complex), np.ones(16, dtype=complex)[::2],
                np.ones((2, 8), dtype=complex)):
        with pytest.raises(ValueError, match="sum_products"):
            lk.sum_products([out], [[(good, bad)]])
    with pytest.raises(ValueError, match="without pairs"):
        lk.sum_products([out], [[]])
    with pytest.raises(ValueError, match="outputs"):
        lk.sum_products([out], [])
