"""Compiled steps of the certified session chain (:func:`analytic.solver.session.session_law`).

* :func:`scatter_atoms` -- the far atoms of a sparse round law added to a
  convolution: ``out[o + i] += p * a[i]`` for each atom ``(o, p)``, each a
  product and a sum of non-negative float64 terms;
* :func:`top_cut` -- how many entries from the top of a vector sum to less
  than a mass (the trimmed upper tail);
* :func:`tail_start` -- the first index from which the vector's upper tail
  sums to at most a mass (the lumped upper tail).

The sums run from the top, one entry at a time, as ``numpy.cumsum`` of the
reversed vector does, so the compiled and numpy versions agree float for
float.  Compiled with numba on first use and cached on disk (numba loaded by
:func:`analytic.engine.jit.load`, without its BLAS check); numpy stands in when
numba is missing.
"""

from __future__ import annotations

import numpy as np

__all__ = ["scatter_atoms", "top_cut", "tail_start", "COMPILED"]


def _scatter_numpy(out, a, offs, probs):
    n = len(a)
    for o, p in zip(offs, probs):
        out[o: o + n] += p * a


def _top_cut_numpy(a, x):
    cs = np.cumsum(a[::-1])
    cut = int(np.searchsorted(cs, x))
    return cut, float(cs[cut - 1]) if cut else 0.0


def _tail_start_numpy(a, x):
    tail = np.cumsum(a[::-1])[::-1]
    return int(np.searchsorted(-tail, -x))


try:  # pragma: no branch
    from analytic.engine.jit import load as _load_numba

    _nb = _load_numba()  # numba without its BLAS check (analytic.engine.jit): nothing here calls a BLAS
except ImportError:  # pragma: no cover - numba is a dependency; numpy stands in
    _nb = None

if _nb is not None:
    @_nb.njit(cache=True, nogil=True)
    def _scatter(out, a, offs, probs):  # pragma: no cover - compiled
        n = a.shape[0]
        for k in range(offs.shape[0]):
            o = offs[k]
            p = probs[k]
            for i in range(n):
                out[o + i] += p * a[i]

    @_nb.njit(cache=True, nogil=True)
    def _top_cut(a, x):  # pragma: no cover - compiled
        n = a.shape[0]
        s = 0.0
        i = 0
        while i < n:
            t = s + a[n - 1 - i]
            if t >= x:
                break
            s = t
            i += 1
        return i, s

    @_nb.njit(cache=True, nogil=True)
    def _tail_start(a, x):  # pragma: no cover - compiled
        n = a.shape[0]
        s = 0.0
        i = n
        while i > 0:
            t = s + a[i - 1]
            if t > x:
                break
            s = t
            i -= 1
        return i

COMPILED = _nb is not None


def scatter_atoms(out: np.ndarray, a: np.ndarray, offs: np.ndarray, probs: np.ndarray) -> None:
    """Add ``probs[k] * a`` at ``out[offs[k]:]`` for each atom ``k`` (in place).

    Parameters
    ----------
    out : ndarray of float64, shape (L,)
        ``L >= max(offs) + len(a)``.
    a : ndarray of float64, shape (K,)
    offs : ndarray of int64, shape (m,)
    probs : ndarray of float64, shape (m,)
    """
    if len(offs) == 0 or len(a) == 0:
        return
    if COMPILED:
        _scatter(out, a, offs, probs)
    else:  # pragma: no cover
        _scatter_numpy(out, a, offs, probs)


def top_cut(a: np.ndarray, x: float) -> tuple[int, float]:
    """``(k, s)``: the top ``k`` entries of ``a`` sum (from the top) to ``s < x``, the top ``k + 1`` to at
    least ``x`` (``k = len(a)`` when the whole vector sums to less)."""
    if len(a) == 0:
        return 0, 0.0
    if COMPILED:
        k, s = _top_cut(a, float(x))
        return int(k), float(s)
    return _top_cut_numpy(a, x)  # pragma: no cover


def tail_start(a: np.ndarray, x: float) -> int:
    """The first index ``i`` with ``sum(a[i:]) <= x`` (summed from the top; ``len(a)`` when the top entry
    alone exceeds ``x``)."""
    if len(a) == 0:
        return 0
    if COMPILED:
        return int(_tail_start(a, float(x)))
    return _tail_start_numpy(a, x)  # pragma: no cover
