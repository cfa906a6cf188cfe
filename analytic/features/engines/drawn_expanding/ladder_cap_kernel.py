"""Engine ``drawn_expanding``: the compiled spectrum products of the ladder's capped law (:mod:`ladder_cap`).

Each state's law there is built from the sum, over its transitions ``e``, of
the elementwise complex products ``X_e * H_t(e)`` of two spectra (a spin's
and its target state's, 30,001 frequencies each on the shipped model).  On
numpy that is one ``multiply`` into a temporary and one ``+=`` per
transition; :func:`sum_products` does the same arithmetic in one compiled
pass, frequency block by frequency block over every row of a batch, so the
target spectra that several rows share are read once per block from the
cache, and no temporary is written.

The arithmetic is fixed, entry by entry, in IEEE double precision:

* one product ``x t`` (``x = a + b i``, ``t = c + d i``): real part
  ``fma(a, c, -(b d))``, imaginary part ``fma(a, d, b c)`` (each with
  one fused multiply-add, correctly rounded: the product ``b d`` or ``b c``
  rounded once, then the fused operation rounded once); this is what numpy's
  complex ``multiply`` computes where its SIMD loop runs on FMA instructions
  (numpy 2.4 on an x86-64 CPU with FMA, at every length: checked by
  ``tests/features/engines/drawn_expanding/test_ladder_cap_kernel.py``, whose
  numpy comparisons skip elsewhere);
* the row's sum ``((p_0 + p_1) + p_2) + ...`` in transition order, each
  addition rounded once (no addition is fused with a product: every ``+``
  adds an ``fma`` result).

These are IEEE operations throughout, on the vector steps and on the scalar
remainder alike, for any length and block: signed zeros, subnormals (no
flush to zero) and infinities come out as IEEE arithmetic has them (checked
entry by entry against an exact reference for 1 to 40 frequencies).  A NaN
result is NaN, but its sign and payload are not specified (IEEE 754 leaves
them open; here the vector steps and the scalar remainder do give NaNs of
different signs).  The ladder's spectra are finite.

Each entry is therefore within the error bound :mod:`ladder_cap` allows for
its FFT products (a complex product within a few units of roundoff of the
exact one; Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed.,
s.3.6), and every non-NaN entry is the same on every machine: ``llvm.fma`` is the IEEE fused
multiply-add wherever it runs (a CPU without FMA instructions gets it from
the C library, slower).  Without numba the same sums run on numpy
(:func:`sum_products_numpy`; there the products are numpy's, whose rounding
is this one where numpy fuses them, as above).

The spectra are passed to the compiled loop as the addresses of their first
entries (:func:`address`), each checked first to be a C-contiguous, aligned
``complex128`` array of ``n`` entries (an output also writeable);
:func:`sum_products` checks besides that no output overlaps another or an
input.  Nothing keeps an array alive through its address:
:func:`sum_products_at`'s caller must.
"""

from __future__ import annotations

import numpy as np

__all__ = ["sum_products", "sum_products_at", "sum_products_numpy", "address", "COMPILED", "BLOCK"]

#: Frequencies per block of :func:`sum_products` (16 KiB of each spectrum): every row of a batch is
#: summed over one block before the next block, so a target spectrum shared by several rows is read
#: from the cache (on the shipped model a target serves 3.2 products of its batch on average).
BLOCK = 1024

#: Complex entries per vector step of the compiled loop (8 doubles: one AVX-512 register, two AVX ones).
_W = 4

try:  # pragma: no branch
    from analytic.engine.jit import load as _load_numba

    _nb = _load_numba()  # numba without its BLAS check (analytic.engine.jit): nothing here calls a BLAS
except ImportError:  # pragma: no cover - numba is a dependency; numpy stands in
    _nb = None

if _nb is not None:
    import llvmlite.ir as _ir
    from numba import types as _t
    from numba.core import cgutils as _cg
    from numba.core.extending import intrinsic as _intrinsic

    _F64P = _t.CPointer(_t.float64)

    @_intrinsic
    def _address(typingctx, addr):  # pragma: no cover - compiled
        """The float64 pointer at the integer address ``addr``."""
        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], context.get_value_type(_F64P))
        return _F64P(_t.int64), codegen

    @_intrinsic
    def _fma(typingctx, x, y, z):  # pragma: no cover - compiled
        """IEEE ``fma(x, y, z)``: ``x y + z`` rounded once."""
        def codegen(context, builder, signature, args):
            d = _ir.DoubleType()
            fn = _cg.get_or_insert_function(builder.module, _ir.FunctionType(d, [d, d, d]), "llvm.fma.f64")
            return builder.call(fn, args)
        return _t.float64(_t.float64, _t.float64, _t.float64), codegen

    @_intrinsic
    def _step(typingctx, out, x, t, k, first):  # pragma: no cover - compiled
        """``_W`` complex entries from entry ``k``: ``out = x t`` (``first``) or ``out = out + x t``.

        One vector of ``2 _W`` doubles per operand: ``a a``, ``b b`` and ``d c``
        shuffled from ``x = (a, b)`` and ``t = (c, d)``; ``q = (b d, b c)``
        times ``(-1, 1)`` (exact, but for a NaN's sign), then ``fma((a, a), (c, d), (-(b d), b c))``:
        the scalar formula entry by entry, each operation an IEEE one (NaNs aside).
        """
        sig = _t.void(_F64P, _F64P, _F64P, _t.int64, _t.boolean)

        def codegen(context, builder, signature, args):
            o, xp, tp, k, fst = args
            n2 = 2 * _W
            V = _ir.VectorType(_ir.DoubleType(), n2)
            I = _ir.VectorType(_ir.IntType(32), n2)
            off = builder.mul(k, _ir.Constant(k.type, 2))
            xv = builder.load(builder.bitcast(builder.gep(xp, [off]), V.as_pointer()), align=8)
            tv = builder.load(builder.bitcast(builder.gep(tp, [off]), V.as_pointer()), align=8)
            re = builder.shuffle_vector(xv, xv, _ir.Constant(I, [j & ~1 for j in range(n2)]))
            im = builder.shuffle_vector(xv, xv, _ir.Constant(I, [j | 1 for j in range(n2)]))
            sw = builder.shuffle_vector(tv, tv, _ir.Constant(I, [j ^ 1 for j in range(n2)]))
            q = builder.fmul(builder.fmul(im, sw), _ir.Constant(V, [-1.0 if j % 2 == 0 else 1.0 for j in range(n2)]))
            fma = _cg.get_or_insert_function(builder.module, _ir.FunctionType(V, [V, V, V]), f"llvm.fma.v{n2}f64")
            r = builder.call(fma, [re, tv, q])
            op = builder.bitcast(builder.gep(o, [off]), V.as_pointer())
            with builder.if_else(fst) as (then, otherwise):
                with then:
                    builder.store(r, op, align=8)
                with otherwise:
                    builder.store(builder.fadd(builder.load(op, align=8), r), op, align=8)
            return context.get_dummy_value()
        return sig, codegen

    @_nb.njit(cache=True, nogil=True)
    def _pair(o, x, t, f0, f1, first):  # pragma: no cover - compiled
        f = f0
        while f + _W <= f1:
            _step(o, x, t, f, first)
            f += _W
        while f < f1:
            a = x[2 * f]
            b = x[2 * f + 1]
            c = t[2 * f]
            d = t[2 * f + 1]
            re = _fma(a, c, -(b * d))
            im = _fma(a, d, b * c)
            if first:
                o[2 * f] = re
                o[2 * f + 1] = im
            else:
                o[2 * f] = o[2 * f] + re
                o[2 * f + 1] = o[2 * f + 1] + im
            f += 1

    @_nb.njit(cache=True, nogil=True)
    def _sum_products(outs, starts, xs, ts, n, block):  # pragma: no cover - compiled
        for f0 in range(0, n, block):
            f1 = min(f0 + block, n)
            for q in range(len(outs)):
                o = _address(outs[q])
                for p in range(starts[q], starts[q + 1]):
                    _pair(o, _address(xs[p]), _address(ts[p]), f0, f1, p == starts[q])

    COMPILED = True
else:  # pragma: no cover
    COMPILED = False


def address(a: np.ndarray, n: int, writeable: bool = False) -> int:
    """The address of the spectrum ``a``'s first entry, for :func:`sum_products_at`.

    Parameters
    ----------
    a : numpy.ndarray
        A spectrum: complex128 of shape ``(n,)``, C-contiguous and aligned.
    n : int
        Its entries (frequencies).
    writeable : bool
        True for an output (``a`` must then be writeable).

    Returns
    -------
    int
        The address (bytes) of ``a[0]``; ``a`` spans ``16 n`` bytes from
        there.  It is valid only while ``a`` (or the array it views) is alive
        and not resized: nothing here keeps it alive.

    Raises ``ValueError`` for any other dtype, shape, layout or alignment,
    or a read-only ``a`` when ``writeable``.
    """
    if (a.dtype != np.complex128 or a.shape != (n,) or not a.flags.c_contiguous or not a.flags.aligned
            or (writeable and not a.flags.writeable)):
        raise ValueError(f"sum_products: a spectrum of dtype {a.dtype}, shape {a.shape} (C-contiguous: "
                         f"{a.flags.c_contiguous}, aligned: {a.flags.aligned}, writeable: {a.flags.writeable}); "
                         f"complex128 of shape ({n},), C-contiguous and aligned expected"
                         + (", writeable (an output)" if writeable else ""))
    return a.__array_interface__["data"][0]


def _disjoint(outs: list[int], ins: list[int], n: int) -> None:
    """Raise ``ValueError`` unless the outputs' ``16 n``-byte spans overlap neither each other nor any input's."""
    if n <= 0 or not outs:
        return
    w = 16 * n
    o = np.sort(np.array(outs, dtype=np.int64))
    if len(o) > 1 and np.any(np.diff(o) < w):
        raise ValueError("sum_products: two outputs overlap")
    if ins:
        x = np.array(ins, dtype=np.int64)
        j = np.searchsorted(o, x, side="right")  # o[j - 1] <= x < o[j]
        below = (j > 0) & (x < o[np.maximum(j - 1, 0)] + w)
        above = (j < len(o)) & (o[np.minimum(j, len(o) - 1)] < x + w)
        if np.any(below | above):
            raise ValueError("sum_products: an input spectrum overlaps an output")


def _counted(outs, rows) -> int:
    """The number of outputs, after checking there is one per row and every row has a pair (``ValueError``)."""
    if len(outs) != len(rows):
        raise ValueError(f"sum_products: {len(outs)} outputs for {len(rows)} rows")
    if any(not r for r in rows):
        raise ValueError("sum_products: a row without pairs")
    return len(outs)


def sum_products(outs, rows, block: int = BLOCK) -> None:
    """``outs[q] = sum over (x, t) in rows[q] of x * t``, elementwise, in the pairs' order.

    Parameters
    ----------
    outs : sequence of numpy.ndarray
        ``R`` output spectra, complex128 of shape ``(n,)``, C-contiguous,
        aligned and writeable (rows of one array are fine), each written in
        full; no two overlap.
    rows : sequence of sequences of (numpy.ndarray, numpy.ndarray)
        Per output, its at least one pair of spectra ``(x, t)``, each
        complex128 of shape ``(n,)``, C-contiguous and aligned; they may be
        shared between rows and pairs but must not overlap an output.
    block : int
        Frequencies per block (:data:`BLOCK`); the sums do not depend on it.

    Each entry is ``((p_0 + p_1) + ...)`` with ``p = x t`` rounded as in
    the module's docstring (every non-NaN entry the same on every machine;
    a NaN's sign and payload are not specified).  Without numba the sums
    are :func:`sum_products_numpy`'s, after the same checks.

    Raises
    ------
    ValueError
        For a spectrum of another dtype, shape, layout or alignment, a
        read-only output, outputs overlapping each other or an input, a row
        without pairs, or as many outputs as rows not given.
    """
    if not _counted(outs, rows):
        return
    n = outs[0].shape[0] if outs[0].ndim == 1 else -1
    oa = [address(o, n, writeable=True) for o in outs]
    ra = [[(address(x, n), address(t, n)) for x, t in r] for r in rows]
    _disjoint(oa, [a for r in ra for p in r for a in p], n)
    if not COMPILED:  # pragma: no cover
        sum_products_numpy(outs, rows)
        return
    sum_products_at(oa, ra, n, block)


def sum_products_at(outs, rows, n: int, block: int = BLOCK) -> None:
    """:func:`sum_products` on spectra given by their :func:`address` (checked once by the caller, not per call).

    Parameters
    ----------
    outs : sequence of int
        ``R`` output addresses (:func:`address` with ``writeable=True``).
    rows : sequence of sequences of (int, int)
        Per output, its at least one pair ``(x address, t address)``.
    n : int
        The entries of every spectrum.
    block : int
        Frequencies per block (:data:`BLOCK`); the sums do not depend on it.

    Nothing here is checked but the counts: the caller keeps every array
    alive through the call (an address of a freed array is read or
    written all the same), every array has ``n`` entries, and no output
    overlaps another or an input.  Outputs of different calls running at once
    (the compiled loop releases the GIL) must not overlap either.

    Raises
    ------
    ValueError
        For a row without pairs, or as many outputs as rows not given.
    RuntimeError
        Without numba.
    """
    if not _counted(outs, rows):
        return
    if not COMPILED:  # pragma: no cover
        raise RuntimeError("sum_products_at: numba is not available (use sum_products)")
    starts = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=starts[1:])
    flat = np.array([p for r in rows for p in r], dtype=np.int64).reshape(-1, 2)
    _sum_products(np.array(outs, dtype=np.int64), starts, np.ascontiguousarray(flat[:, 0]),
                  np.ascontiguousarray(flat[:, 1]), int(n), max(int(block), 1))


def sum_products_numpy(outs, rows) -> None:
    """:func:`sum_products` on numpy (a ``multiply`` and a ``+=`` per pair), unchecked.

    The same arguments (the arrays themselves); each product is numpy's
    complex ``multiply``, which on a CPU with FMA instructions is the fused
    product of the module's docstring (numpy's SIMD loop and its remainder;
    checked by the tests, which skip where it is not), so the sums are then
    :func:`sum_products`'s bit for bit (NaN aside).  No check of the
    spectra is made (:func:`sum_products` makes them); a row without pairs
    raises ``IndexError``.
    """
    for out, pairs in zip(outs, rows):
        x, t = pairs[0]
        np.multiply(x, t, out=out)
        if len(pairs) > 1:
            tmp = np.empty_like(out)
            for x, t in pairs[1:]:
                np.multiply(x, t, out=tmp)
                out += tmp
