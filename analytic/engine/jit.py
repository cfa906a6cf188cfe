"""Loading numba for the package's compiled kernels, without its BLAS check.

The first call of any numba-compiled function in a process (also one loaded
from numba's on-disk cache) loads numba's array-math registry, whose import
checks for a BLAS by importing ``scipy.linalg`` (:func:`numba.np.linalg.ensure_blas`).
That import alone costs a cold process about 0.5-0.9 s on the 2-core
development machine (``scipy._lib`` imports the array-API shims, which import
``numpy.f2py``), more than the kernels of a 50-line game's walk take.  None of
the package's kernels calls a BLAS or LAPACK routine (no ``np.dot``, ``@``,
``np.linalg`` inside a compiled function), so :func:`load` imports that
registry once with ``scipy.linalg`` unavailable: numba then records that it
has no BLAS (its linear-algebra functions would refuse to compile, with a
typing error, instead of running), and ``scipy.linalg`` stays importable for
everything else in the process (nothing is left in ``sys.modules``).

This changes what numba can compile in this process, never a figure: a
kernel either compiles and runs the same integer or IEEE operations, or
fails to compile.  If ``scipy.linalg`` is already imported (or the registry
already loaded) nothing is done.  While the registry is imported (once per
process), an import of ``scipy.linalg`` by another thread would fail; the
package's own threads that may load a kernel (the free spins' state walks,
:func:`analytic.features.engines.wald_spins.state_outcomes`) import nothing
from scipy.
"""

from __future__ import annotations

import sys

__all__ = ["load"]


def load():
    """Import numba for the package's kernels (skipping numba's BLAS check); returns the ``numba`` module.

    Raises
    ------
    ImportError
        numba is not installed.
    """
    import numba

    if "numba.np.arraymath" not in sys.modules and "scipy.linalg" not in sys.modules:
        # the first module of ``scipy.linalg.cython_blas``'s chain not yet imported is blocked (None in
        # sys.modules: the import fails at once with ModuleNotFoundError, numba's "no BLAS" branch)
        block = "scipy" if "scipy" not in sys.modules else "scipy.linalg"
        sys.modules[block] = None
        try:
            import numba.np.arraymath  # noqa: F401
        finally:
            if sys.modules.get(block, 0) is None:
                del sys.modules[block]
    return numba
