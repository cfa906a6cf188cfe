"""How this process asks the kernel for memory: small pages for numpy's arrays.

numpy (1.16 and later, on Linux) advises the kernel to back every array of
4 MiB or more with transparent huge pages (``madvise(MADV_HUGEPAGE)``).  On a
kernel whose huge-page defragmentation is ``madvise`` (the default of most
distributions, ``/sys/kernel/mm/transparent_hugepage/defrag``), each first
touch of such an array then compacts memory and clears a whole 2 MiB page in
the page fault, in the solving thread.  The solver's big steps allocate fresh
arrays of tens to hundreds of MiB many times (a line walk's merged partial
states, the capped law's spectra), so that cost is paid again and again: on
the 2-core machine Book of Power's Power Bet spent 17.4 s of its 76.4 s of
CPU in the kernel (one line walk of its Free Spins 7.9 s, against 1.1 s of
user time), and 2.6 s of 62.5 s without the advice (docs/benchmarks.md,
"small pages").

:func:`use_small_pages` turns numpy's advice off for the process.  It
changes how memory is mapped, never what is computed: every figure is the
same bits either way.  The ``analytic`` command and the benchmarks call it
at start; a program that solves in-process may call it too.
"""

from __future__ import annotations

__all__ = ["use_small_pages"]


def use_small_pages() -> bool | None:
    """Stop numpy advising huge pages for its arrays in this process (and the ones it forks).

    Returns
    -------
    bool or None
        Whether numpy advised huge pages before the call; None where this
        numpy has no such switch (nothing changed).

    Notes
    -----
    numpy's switch is ``numpy._core.multiarray._set_madvise_hugepage``
    (``numpy.core.multiarray`` before numpy 2), the same one its environment
    variable ``NUMPY_MADVISE_HUGEPAGE=0`` sets at import.  Process-wide, like
    that variable; it affects speed and memory mapping only.
    """
    import numpy as np

    core = getattr(np, "_core", None)
    mod = getattr(core, "multiarray", None) if core is not None else None
    if mod is None or not hasattr(mod, "_set_madvise_hugepage"):  # numpy 1.x
        try:
            from numpy.core import multiarray as mod  # type: ignore[no-redef]
        except ImportError:  # pragma: no cover - no numpy.core at all
            return None
    setter = getattr(mod, "_set_madvise_hugepage", None)
    if setter is None:  # pragma: no cover - a numpy without the switch
        return None
    return bool(setter(False))
