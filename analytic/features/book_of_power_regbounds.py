"""Book of Power: both certified bounds of the cap's cut on regular Free Spins, per start.

For every start (spins awarded by the trigger) the upper bound (the comonotone
mixture of :func:`~analytic.features.book_of_power_regcap.regular_cap_mixture`:
one :func:`~analytic.features.book_of_power_regcap.regular_cap_bound` per level)
and the lower bound (:func:`~analytic.features.book_of_power_reglow.regular_cap_lower`)
are independent solves, so the missing ones run in worker processes
(``concurrent.futures`` over a ``fork`` context: the workers inherit the game
and its spin tables and send back only the bounds; each worker keeps one BLAS
thread, via ``threadpoolctl``, so that the workers do not oversubscribe the cores).  The number of workers is
the number of cores, or ``ANALYTIC_WORKERS`` (``1``: in this process, no pool).
"""

from __future__ import annotations

import os

__all__ = ["regular_cap_bounds", "workers"]

_DONE: dict = {}
_GAME = None  # the game the forked workers read (set only around a pool)
_LIMITS = None


def _one_thread() -> None:
    """Worker initializer: one BLAS thread per worker (the workers already fill the cores)."""
    global _LIMITS
    from threadpoolctl import threadpool_limits

    _LIMITS = threadpool_limits(limits=1)


def workers(jobs: int) -> int:
    """Worker processes for ``jobs`` independent solves: ``ANALYTIC_WORKERS`` or the core count, at most ``jobs``."""
    env = os.environ.get("ANALYTIC_WORKERS", "").strip()
    if env:
        try:
            n = int(env)
        except ValueError:
            raise ValueError(f"ANALYTIC_WORKERS={env!r} is not a whole number") from None
        if n < 1:
            raise ValueError(f"ANALYTIC_WORKERS={env!r} must be at least 1")
    else:
        n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(n, jobs))


def _solve(job):
    """One bound: ``(kind, feature, n0, level, eps) -> (job, bound or None)`` (``None``: the solve refused, too many states)."""
    from analytic.features.book_of_power_regcap import TooManyStates, mixture_groups, regular_cap_bound
    from analytic.features.book_of_power_reglow import regular_cap_lower
    from analytic.features.book_of_power_spin import spin_stats

    kind, feature, n0, level, eps = job
    try:
        if kind == "lower":
            return job, regular_cap_lower(_GAME, feature, n0)
        groups = mixture_groups(spin_stats(_GAME, feature))
        return job, regular_cap_bound(_GAME, feature, n0, level=level, groups=groups, eps=eps)
    except TooManyStates:  # too many states: the caller falls back on the moment bounds (upper) or 0 (lower)
        return job, None


def regular_cap_bounds(game, feature: str, starts) -> dict:
    """``{n0: (upper, lower)}`` for the regular feature's starts ``n0`` (spins).

    ``upper`` is a :class:`~analytic.features.book_of_power_regcap.RegularCapBound`
    and ``lower`` a :class:`~analytic.features.book_of_power_reglow.RegularCapLower`,
    either ``None`` where its solve refused (too many states).  Results
    are kept per model fingerprint (and solver settings), so each start is
    solved once per process.  The precision preset (levels and ``eps`` of the
    upper bound) is :func:`~analytic.features.book_of_power_regcap.precision_preset`'s.
    """
    global _GAME
    from analytic.features import book_of_power_regcap as rc
    from analytic.features import book_of_power_reglow as rl

    # the model, and what the solves read besides it (patched in tests, so part of the key)
    _name, eps, levels = rc.precision_preset()
    fp = (rc._fingerprint(game, feature), id(rc.regular_cap_bound), id(rl.regular_cap_lower), rc.EPS_MGF,
          rc.MAX_STATES, tuple(rc.MGF_THETAS), rc.LEVEL_KMAX, rl.EPS_LOW, rl.MAX_STATES, rl.KMAX_LOW,
          rl.LOW_GRID)
    starts = sorted(set(int(n) for n in starts), reverse=True)  # longest solves first
    jobs = [("upper", feature, n0, lv, eps) for n0 in starts for lv in levels]
    jobs += [("lower", feature, n0, None, None) for n0 in starts]
    jobs = [job for job in jobs if (fp,) + job not in _DONE]
    if jobs:
        _GAME = game
        try:
            from analytic.features.book_of_power_spin import spin_stats

            rc.line_expansion_rows(spin_stats(game, feature))  # built once here, inherited by the workers
            nw = workers(len(jobs))
            if nw == 1:
                results = [_solve(job) for job in jobs]
            else:
                import multiprocessing
                from concurrent.futures import ProcessPoolExecutor

                with ProcessPoolExecutor(nw, mp_context=multiprocessing.get_context("fork"),
                                         initializer=_one_thread) as pool:
                    results = list(pool.map(_solve, jobs))
        finally:
            _GAME = None
        for job, res in results:
            _DONE[(fp,) + job] = res
    out = {}
    for n0 in starts:
        parts = [_DONE[(fp, "upper", feature, n0, lv, eps)] for lv in levels]
        upper = None if any(b is None for b in parts) else rc.combine_levels(levels, parts)
        out[n0] = (upper, _DONE[(fp, "lower", feature, n0, None, None)])
    return out
