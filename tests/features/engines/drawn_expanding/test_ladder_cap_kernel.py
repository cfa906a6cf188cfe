"""The ladder law's compiled spectrum products against an exact-rounding reference (Fractions)."""

import math
from fractions import Fraction

import numpy as np
import pytest

from analytic.features.engines.drawn_expanding import ladder_cap_kernel as lk


def _fma(x: float, y: float, z: float) -> float:
    # x y + z rounded once, for finite operands and a nonzero result: the exact rational, then
    # Fraction's correctly rounded float (an exact zero comes out +0: see _fma_ieee)
    return float(Fraction(x) * Fraction(y) + Fraction(z))


def _fma_ieee(x: float, y: float, z: float) -> float:
    """IEEE 754 ``fusedMultiplyAdd(x, y, z)`` (round to nearest) for every non-NaN result.

    Infinities and NaNs as the standard has them (a product with an infinite or NaN factor is exact,
    so Python's ``x * y + z`` is the fused result there); an exact zero gets the standard's sign
    (``-0`` only when the product and ``z`` are both ``-0``), which :func:`_fma`'s Fraction loses.
    """
    if not (math.isfinite(x) and math.isfinite(y)):
        return x * y + z
    if not math.isfinite(z):
        return z
    exact = Fraction(x) * Fraction(y) + Fraction(z)
    if exact == 0:
        if x == 0 or y == 0:  # the product is a zero; z is a zero too
            return -0.0 if (math.copysign(1, x) * math.copysign(1, y) < 0 and math.copysign(1, z) < 0) else 0.0
        return 0.0
    try:
        return float(exact)  # correctly rounded; keeps the sign of a result that rounds to zero
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


def _reference(rows):
    """The documented arithmetic, entry by entry, in Python floats and Fractions (no numpy, no numba).

    Products by :func:`_fma_ieee` (signed zeros and infinities as IEEE has them; NaN where IEEE has one).
    """
    out = []
    for pairs in rows:
        n = len(pairs[0][0])
        acc = [None] * n
        for x, t in pairs:
            for f in range(n):
                a, b = float(x[f].real), float(x[f].imag)
                c, d = float(t[f].real), float(t[f].imag)
                re, im = _fma_ieee(a, c, -(b * d)), _fma_ieee(a, d, b * c)
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


def _same_bits_or_both_nan(got, want):
    g, w = got.view(np.float64), want.view(np.float64)
    nan = np.isnan(w)
    return np.array_equal(np.isnan(g), nan) and np.array_equal(g[~nan].view(np.uint64), w[~nan].view(np.uint64))


_BLOCKS = (1, 2, 3, 4, 5, 7, 8, 9, lk.BLOCK)  # below 4 every entry on the scalar path; then both paths


def _hard(rng, n):
    """Spectra whose products cancel (real part in even entries, imaginary part in odd ones).

    There the fused product, the twice-rounded one and the other fused order
    ``fma(-b, d, a c)`` all differ, at every entry (checked by the test).
    """
    a, b, c = (rng.uniform(1, 2, n) * rng.choice([-1.0, 1.0], n) for _ in range(3))
    e = 1 + rng.uniform(-2 ** -30, 2 ** -30, n)
    d = np.where(np.arange(n) % 2 == 0, a * c / b * e, -(b * c / a) * e)
    return a + 1j * b, c + 1j * d


@pytest.mark.parametrize("n", range(1, 41))
def test_cancelling_products_are_the_fused_ones_at_every_entry_and_block(n):
    rng = np.random.default_rng(1000 + n)
    (x0, t0), (x1, t1), (x2, t2) = _hard(rng, n), _hard(rng, n), _hard(rng, n)
    rows = [[(x0, t0), (x1, t1), (x2, t2)], [(x2, t2)]]
    want = _reference(rows)
    # the reference tells the documented product from the twice-rounded one and the other fused order
    for f in range(n):
        a, b, c, d = x2[f].real, x2[f].imag, t2[f].real, t2[f].imag
        part, unfused, other = ((want[1][f].real, a * c - b * d, _fma(-b, d, a * c)) if f % 2 == 0 else
                                (want[1][f].imag, a * d + b * c, _fma(b, c, a * d)))
        assert part != unfused and part != other, f
    for block in _BLOCKS:
        acc = np.full((2, n), np.nan + 0j)
        lk.sum_products(list(acc), rows, block=block)
        for got, w in zip(acc, want):
            assert np.array_equal(got.view(np.uint64), w.view(np.uint64)), block


@pytest.mark.parametrize("n", range(1, 41))
def test_signed_zeros_subnormals_and_infinities_the_same_on_either_path(n):
    # every non-NaN entry is the IEEE arithmetic of the docstring (the vector steps' bits and the
    # scalar remainder's); an entry IEEE makes NaN is NaN (its sign and payload are not specified)
    rng = np.random.default_rng(2000 + n)
    vals = np.array([0.0, -0.0, 5e-324, -5e-324, 2.0 ** -1070, -(2.0 ** -1022), 1.5, -1.0, 1e300, -3e300,
                     math.inf, -math.inf])
    p = np.array([6, 6, 2, 2, 2, 2, 3, 3, 1, 1, 0.5, 0.5])
    sp = [np.ascontiguousarray(rng.choice(vals, size=(n, 2), p=p / p.sum())).view(np.complex128)[:, 0]
          for _ in range(6)]
    rows = [[(sp[0], sp[1]), (sp[2], sp[3]), (sp[4], sp[5])], [(sp[0], sp[3])]]
    want = _reference(rows)
    for block in _BLOCKS:
        acc = np.full((2, n), np.nan + 0j)
        lk.sum_products(list(acc), rows, block=block)
        for got, w in zip(acc, want):
            assert _same_bits_or_both_nan(got, w), block
    # the data has what it is for: signed zeros in the results, and entries both finite and not
    got = acc.view(np.float64)
    if n >= 8:
        assert (got == 0).any() and np.isinf(got).any()


def test_the_reference_keeps_the_sign_of_zero():
    assert math.copysign(1, _fma_ieee(-0.0, 1.0, -0.0)) < 0
    assert math.copysign(1, _fma_ieee(0.0, -1.0, -0.0)) < 0
    assert math.copysign(1, _fma_ieee(0.0, -1.0, 0.0)) > 0
    assert math.copysign(1, _fma_ieee(2.0, 3.0, -6.0)) > 0
    assert math.copysign(1, _fma_ieee(-5e-324, 0.5, 0.0)) < 0  # rounds to -0
    assert _fma_ieee(1e300, 1e300, -1e300) == math.inf


def test_outputs_that_alias_are_refused():
    n = 8
    x, t = np.ones(n, dtype=complex), np.ones(n, dtype=complex)
    buf = np.zeros(2 * n, dtype=complex)
    out, other = buf[:n], buf[n:]
    for outs, rows in (([x], [[(x, t)]]),                         # the output is an input
                       ([out], [[(x, buf[n // 2:n // 2 + n])]]),  # an input overlaps it in part
                       ([out, out], [[(x, t)], [(x, t)]]),        # two rows into one output
                       ([buf[1:n + 1], out], [[(x, t)], [(x, t)]])):  # two outputs overlap
        with pytest.raises(ValueError, match="overlap"):
            lk.sum_products(outs, rows)
    lk.sum_products([out, other], [[(x, t)], [(x, t)]])  # adjacent rows of one array are fine
    assert np.array_equal(buf, np.ones(2 * n, dtype=complex))


def test_read_only_and_misaligned_arrays_are_refused():
    n = 4
    x = np.ones(n, dtype=complex)
    ro = np.frombuffer(bytes(16 * n), dtype=np.complex128)  # a view of an immutable bytes object
    with pytest.raises(ValueError, match="writeable"):
        lk.sum_products([ro], [[(x, x)]])
    assert bytes(ro.data) == bytes(16 * n)
    odd = np.frombuffer(bytearray(16 * n + 1), dtype=np.complex128, offset=1)
    assert odd.flags.c_contiguous and not odd.flags.aligned
    with pytest.raises(ValueError, match="aligned"):
        lk.sum_products([np.empty(n, dtype=complex)], [[(x, odd)]])
    with pytest.raises(ValueError, match="writeable"):
        lk.address(ro, n, writeable=True)
    assert lk.address(ro, n) == ro.__array_interface__["data"][0]  # read-only spectra are fine


def test_without_numba_the_same_checks_and_sums(monkeypatch):
    rng = np.random.default_rng(11)
    xs, ts = _spectra(rng, 3, 37), _spectra(rng, 2, 37)
    rows = [[(xs[0], ts[0]), (xs[1], ts[1]), (xs[2], ts[0])], [(xs[1], ts[1])]]
    want = _reference(rows)
    monkeypatch.setattr(lk, "COMPILED", False)
    for bad in (np.ones(37), np.ones(36, dtype=complex), np.ones(74, dtype=complex)[::2]):
        with pytest.raises(ValueError, match="sum_products"):
            lk.sum_products([np.empty(37, dtype=complex)], [[(xs[0], bad)]])
    with pytest.raises(ValueError, match="without pairs"):
        lk.sum_products([np.empty(37, dtype=complex)], [[]])
    with pytest.raises(RuntimeError, match="numba"):
        lk.sum_products_at([0], [[(0, 0)]], 37)
    acc = np.full((2, 37), np.nan + 0j)
    lk.sum_products(list(acc), rows)
    if not np.array_equal((xs[1] * ts[1]).view(np.uint64), want[1].view(np.uint64)):
        pytest.skip("numpy's complex product on this CPU is not the fused one")
    for got, w in zip(acc, want):
        assert np.array_equal(got.view(np.uint64), w.view(np.uint64))


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13, 40])
def test_numpy_products_are_the_fused_ones_at_every_length(n):
    # sum_products_numpy against the reference directly (numpy's SIMD loops and their remainders)
    rng = np.random.default_rng(3000 + n)
    (x0, t0), (x1, t1) = _hard(rng, n), _hard(rng, n)
    z = np.array([complex(-0.0, 0.0), complex(0.0, -0.0)] * n)[:n]
    rows = [[(x0, t0), (x1, t1)], [(z, t0)], [(x1, z), (z, z)]]
    want = _reference(rows)
    if not all(np.array_equal((x * t).view(np.uint64), _reference([[(x, t)]])[0].view(np.uint64))
               for x, t in ((x0, t0), (x1, t1))):
        pytest.skip("numpy's complex product on this CPU is not the fused one")
    acc = np.full((3, n), np.nan + 0j)
    lk.sum_products_numpy(list(acc), rows)
    for got, w in zip(acc, want):
        assert np.array_equal(got.view(np.uint64), w.view(np.uint64))


@pytest.mark.parametrize("threads", [1, 2])
def test_the_law_without_numba_is_the_same_bit_for_bit(monkeypatch, threads):
    # ladder_cap's COMPILED=False branch (sum_products on numpy, no addresses) against the compiled one,
    # on the oracle tests' tiny game, one thread and two (rows shared out)
    from test_drawn_oracles import tiny

    from analytic.features.engines.drawn_expanding.ladder_cap import PowerCapLaw
    from analytic.workspace import Workspace

    x, t = _hard(np.random.default_rng(5), 33)
    if not np.array_equal((x * t).view(np.uint64), _reference([[(x, t)]])[0].view(np.uint64)):
        pytest.skip("numpy's complex product on this CPU is not the fused one")
    game = tiny(40)
    laws = [PowerCapLaw(game, "power_free_spins", ws=Workspace(game), threads=threads)]
    monkeypatch.setattr(lk, "COMPILED", False)
    laws.append(PowerCapLaw(game, "power_free_spins", ws=Workspace(game), threads=threads))
    one, two = laws
    assert one.solved == two.solved > 0 and sorted(one.start) == sorted(two.start)
    for k in one.start:
        assert one.start[k][0].tobytes() == two.start[k][0].tobytes() and one.start[k][1] == two.start[k][1]


@pytest.mark.parametrize("n, nfft", [(5, 9), (30000, 60000), (1000, 2000), (777, 1600)])
def test_numpy_and_scipy_real_ffts_agree_bit_for_bit(n, nfft):
    # ladder_cap builds its law with numpy's rfft in one thread and scipy's with more threads (threads 1 and
    # 2 give the same law, tests/features/engines/drawn_expanding/test_buy_power_law.py): both are pocketfft
    from scipy import fft as sfft

    rng = np.random.default_rng(n)
    x = rng.random((3, n)) * np.exp(rng.uniform(-40, 0, size=(3, n)))
    a, b = np.fft.rfft(x, nfft, axis=-1), sfft.rfft(x, nfft, axis=-1, workers=2)
    assert np.array_equal(a.view(np.float64), b.view(np.float64))
