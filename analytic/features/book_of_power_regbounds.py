"""Book of Power: both certified bounds of the cap's cut on regular Free Spins, per start.

For every start (spins awarded by the trigger) the upper bound (the comonotone
mixture of :func:`~analytic.features.book_of_power_regcap.regular_cap_mixture`:
its levels share chain runs of
:data:`~analytic.features.book_of_power_regcap.LEVEL_RUN` levels,
:func:`~analytic.features.book_of_power_regcap.regular_cap_bound_levels`) and the lower bound
(:func:`~analytic.features.book_of_power_reglow.regular_cap_lower`) are
independent solves, so the missing ones run in worker processes: one job per
run of levels solves every start's upper bound (longest first, sharing the
run's per-id tables), one job per start its lower bound
(``concurrent.futures`` over a ``fork`` context: the workers inherit the game
and its spin tables and send back only the bounds; each worker keeps one BLAS
thread, via ``threadpoolctl``, so that the workers do not oversubscribe the cores).  The number of workers is
the number of cores, or ``ANALYTIC_WORKERS`` (``1``: in this process, no pool).
"""

from __future__ import annotations

import os
import time

__all__ = ["regular_cap_bounds", "workers", "JOB_SECONDS"]

_DONE: dict = {}
#: Seconds each solve of the last :func:`regular_cap_bounds` call took: ``{(kind, n0, levels): seconds}``
#: (for the benchmark's breakdown).
JOB_SECONDS: dict = {}
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
    """One solve: ``(kind, feature, n0, levels, eps) -> (job, bounds or None, seconds)``.

    ``kind`` 'upper': one chain run for the tuple ``levels`` per start of the
    tuple ``n0`` (in that order, sharing the run's per-id tables), a list of
    bounds back per start (``None``: the solve refused, too many states);
    'lower': the lower bound of the start ``n0`` (``None``: refused).
    """
    from analytic.features.book_of_power_regcap import TooManyStates, mixture_groups, regular_cap_bound_levels
    from analytic.features.book_of_power_reglow import regular_cap_lower
    from analytic.features.book_of_power_spin import spin_stats

    kind, feature, n0, levels, eps = job
    t0 = time.perf_counter()
    try:
        if kind == "lower":
            res = regular_cap_lower(_GAME, feature, n0)
    except TooManyStates:  # too many states: the caller falls back on the moment bounds (upper) or 0 (lower)
        res = None
    if kind == "upper":
        from analytic.features import book_of_power_regcap as rc

        groups = mixture_groups(spin_stats(_GAME, feature))
        res = {}
        rc._TABLES.clear()  # the job's starts share the run's tables, from empty (the same bits in any process)
        try:
            for n in n0:
                try:
                    res[n] = regular_cap_bound_levels(_GAME, feature, n, list(levels), groups=groups, eps=eps)
                except TooManyStates:
                    res[n] = None
        finally:
            rc._TABLES.clear()  # (about a gigabyte on the shipped model)
    return job, res, time.perf_counter() - t0


def regular_cap_bounds(game, feature: str, starts, meanwhile=None) -> dict:
    """``{n0: (upper, lower)}`` for the regular feature's starts ``n0`` (spins).

    ``upper`` is a :class:`~analytic.features.book_of_power_regcap.RegularCapBound`
    and ``lower`` a :class:`~analytic.features.book_of_power_reglow.RegularCapLower`,
    either ``None`` where its solve refused (too many states).  Results
    are kept per model fingerprint (and solver settings), so each start is
    solved once per process.  The precision preset (levels and ``eps`` of the
    upper bound) is :func:`~analytic.features.book_of_power_regcap.precision_preset`'s.
    ``meanwhile`` (optional, no arguments): other work that this process
    does while the workers solve (its result is dropped; it should fill a
    cache), e.g. the Power Free Spins' capped law when every mode is solved.
    """
    global _GAME
    from analytic.features import book_of_power_regcap as rc
    from analytic.features import book_of_power_reglow as rl

    # the model, and what the solves read besides it (patched in tests, so part of the key)
    _name, eps, levels = rc.precision_preset()
    fp = (rc._fingerprint(game, feature), id(rc.regular_cap_bound_levels), id(rl.regular_cap_lower), rc.EPS_MGF,
          rc.MAX_STATES, tuple(rc.MGF_THETAS), rc.LEVEL_KMAX, rc.LEVEL_RUN, rl.EPS_LOW, rl.MAX_STATES, rl.KMAX_LOW,
          rl.LOW_GRID)
    starts = sorted(set(int(n) for n in starts), reverse=True)  # longest solves first
    # the levels of a start share chain runs of LEVEL_RUN levels (a cut that does not depend on the
    # number of workers, so neither do the figures)
    # the starts of a run are solved in one job, longest first (they share the run's per-id tables)
    missing = tuple(n0 for n0 in starts if any((fp, "upper", feature, n0, lv, eps) not in _DONE for lv in levels))
    jobs = [("upper", feature, missing, run, eps) for run in rc.level_runs(levels)] if missing else []
    jobs += [("lower", feature, n0, None, None) for n0 in starts
             if (fp, "lower", feature, n0, None, None) not in _DONE]
    if jobs:
        _GAME = game
        try:
            from analytic.features.book_of_power_spin import spin_stats

            rc.line_expansion_rows(spin_stats(game, feature))  # built once here, inherited by the workers
            nw = workers(len(jobs))
            if nw == 1:
                results = [_solve(job) for job in jobs]
                if meanwhile is not None:
                    meanwhile()
            else:
                import multiprocessing
                from concurrent.futures import ProcessPoolExecutor

                with ProcessPoolExecutor(nw, mp_context=multiprocessing.get_context("fork"),
                                         initializer=_one_thread) as pool:
                    futures = [pool.submit(_solve, job) for job in jobs]  # the workers fork here
                    if meanwhile is not None:
                        meanwhile()
                    results = [f.result() for f in futures]
        finally:
            _GAME = None
        JOB_SECONDS.clear()
        for job, res, sec in results:
            kind, _f, n0, chunk, _e = job
            JOB_SECONDS[(kind, n0, chunk)] = sec
            if kind == "lower":
                _DONE[(fp,) + job] = res
            else:  # one entry per start and level
                for n, bounds in res.items():
                    for i, lv in enumerate(chunk):
                        _DONE[(fp, kind, feature, n, lv, eps)] = None if bounds is None else bounds[i]
    out = {}
    for n0 in starts:
        parts = [_DONE[(fp, "upper", feature, n0, lv, eps)] for lv in levels]
        upper = None if any(b is None for b in parts) else rc.combine_levels(levels, parts)
        out[n0] = (upper, _DONE[(fp, "lower", feature, n0, None, None)])
    return out
