"""Engine ``drawn_expanding``: both certified bounds of the cap's cut on free spins with drawn symbols, per start.

For every start (spins awarded by the trigger) the upper bound (the comonotone
mixture of :func:`~analytic.features.engines.drawn_expanding.draw_cap.regular_cap_mixture`:
its levels share chain runs of
:data:`~analytic.features.engines.drawn_expanding.draw_cap.LEVEL_RUN` levels,
:func:`~analytic.features.engines.drawn_expanding.draw_cap.regular_cap_bound_levels`) and the lower bound
(:func:`~analytic.features.engines.drawn_expanding.draw_cap_low.regular_cap_lower`) are
independent solves, so the missing ones run in worker processes: one job per
run of levels solves every start's upper bound (longest first, sharing the
run's per-id tables), one job per start its lower bound
(``concurrent.futures`` over a ``fork`` context: the workers inherit the
workspace -- the game and its spin tables -- from the pool's initializer
arguments and send back only the bounds; each worker keeps one BLAS thread,
via ``threadpoolctl``, so that the workers do not oversubscribe the cores).
The number of workers is the workspace's ``workers`` (``1``: in this
process, no pool), one fewer while this process works ``meanwhile`` (it
keeps a core); it changes the speed only (the work is cut the same way).
The jobs wait in one queue: a worker is handed the first one left whenever
its last one ends, and this process, once its ``meanwhile`` work is done,
takes the last ones left (the shortest), so both end about together.  The
spin rows every job reads (:func:`~analytic.features.engines.drawn_expanding.draw_cap.line_expansion_rows`)
are built here before the pool forks when several workers share them; a
single worker builds them first itself (this process meanwhile on its own
work) and sends them back (this process's zero-win laws read them).
Under the literal reading the upper bounds are those of one bounding game and
the lower bounds those of the other: :func:`regular_cap_bounds_together` puts
both games' jobs in one pool (each worker inherits both workspaces), so the
upper bounds' jobs (one per run of levels) and the lower bounds run side by
side while this process does the caller's other work.
"""

from __future__ import annotations

import time

__all__ = ["regular_cap_bounds", "regular_cap_bounds_together", "workers", "JOB_SECONDS"]

#: Workspace key of the seconds each solve of the last :func:`regular_cap_bounds` call took:
#: ``{(kind, n0, levels): (wall, cpu)}`` (for the benchmark's breakdown).
JOB_SECONDS = "drawn_expanding.regbounds.seconds"
#: In a worker process only: the workspace it was started with (the pool's initializer argument,
#: inherited through ``fork``, never pickled); never set in the parent process.
_WORKER_WS: list = []
_LIMITS = None


def _init_worker(spaces) -> None:
    """Worker initializer: the workspaces to solve in (a tuple: a job names its workspace by
    index), and one BLAS thread per worker (the workers already fill the cores)."""
    global _LIMITS
    from threadpoolctl import threadpool_limits

    _WORKER_WS[:] = list(spaces)
    _LIMITS = threadpool_limits(limits=1)


def workers(jobs: int, requested: int = 1) -> int:
    """Worker processes for ``jobs`` independent solves: ``requested`` (at least 1), at most ``jobs``.

    Raises
    ------
    ValueError
        ``requested`` is not a whole number of at least 1.
    """
    if isinstance(requested, bool) or not isinstance(requested, int) or requested < 1:
        raise ValueError(f"workers = {requested!r} must be a whole number of at least 1")
    return max(1, min(requested, jobs))


def _solve_in_worker(side, job):
    return _solve(job, _WORKER_WS[side])


def _solve(job, ws):
    """One solve: ``(kind, feature, n0, levels, eps) -> (job, bounds or None, seconds)``.

    ``kind`` 'upper': one chain run for the tuple ``levels`` per start of the
    tuple ``n0`` (in that order, sharing the run's per-id tables), a list of
    bounds back per start (``None``: the solve refused, too many states);
    'lower': the lower bound of the start ``n0`` (``None``: refused); 'rows': the spin rows
    (:func:`~analytic.features.engines.drawn_expanding.draw_cap.line_expansion_rows`) of the game.
    ``ws``: the workspace of the game solved.
    """
    from analytic.features.engines.drawn_expanding.draw_cap import (RUN_TABLES, TooManyStates, line_expansion_rows,
                                                        mixture_groups, regular_cap_bound_levels)
    from analytic.features.engines.drawn_expanding.draw_cap_low import regular_cap_lower
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats

    game = ws.game
    kind, feature, n0, levels, eps = job
    t0, c0 = time.perf_counter(), time.process_time()
    if kind == "rows":  # the spin rows every job of the game reads (and this process's zero-win laws)
        return job, line_expansion_rows(spin_stats(game, feature, ws)), (time.perf_counter() - t0,
                                                                           time.process_time() - c0)
    try:
        if kind == "lower":
            res = regular_cap_lower(game, feature, n0, ws=ws)
    except TooManyStates:  # too many states: the caller falls back on the moment bounds (upper) or 0 (lower)
        res = None
    if kind == "upper":
        groups = mixture_groups(spin_stats(game, feature, ws))
        res = {}
        ws.discard(RUN_TABLES)  # the job's starts share the run's tables, from empty (the same bits in any process)
        try:
            for n in n0:
                try:
                    res[n] = regular_cap_bound_levels(game, feature, n, list(levels), groups=groups, eps=eps, ws=ws)
                except TooManyStates:
                    res[n] = None
        finally:
            ws.discard(RUN_TABLES)  # (about a gigabyte on the shipped model)
    return job, res, (time.perf_counter() - t0, time.process_time() - c0)


def regular_cap_bounds(game, feature: str, starts, meanwhile=None, ws=None, kinds=("upper", "lower")) -> dict:
    """``{n0: (upper, lower)}`` for the regular feature's starts ``n0`` (spins).

    ``upper`` is a :class:`~analytic.features.engines.drawn_expanding.draw_cap.RegularCapBound`
    and ``lower`` a :class:`~analytic.features.engines.drawn_expanding.draw_cap_low.RegularCapLower`,
    either ``None`` where its solve refused (too many states).  Results
    are kept in the workspace ``ws`` (:class:`analytic.workspace.Workspace`
    of ``game``; None: a fresh one), so each start is solved once per
    workspace.  The precision preset (levels and ``eps`` of the upper bound)
    is the workspace's ``precision``
    (:func:`~analytic.features.engines.drawn_expanding.draw_cap.precision_preset`), the
    worker processes its ``workers``.
    ``meanwhile`` (optional, no arguments): other work that this process
    does while the workers solve (its result is dropped; it should fill the
    workspace), e.g. the Power Free Spins' capped law when every mode is solved.
    ``kinds``: the bounds solved (``"upper"``, ``"lower"``); one left out is
    None in the result.  (Several games' bounds in one pool:
    :func:`regular_cap_bounds_together`.)
    """
    from analytic.workspace import workspace_for

    ws = workspace_for(game, ws)
    return regular_cap_bounds_together([(feature, starts, ws, kinds)], meanwhile=meanwhile)[0]


def _jobs(feature: str, starts, ws, kinds) -> list:
    """The solves still missing in ``ws`` for ``starts`` (longest first): upper runs, then lower bounds."""
    from analytic.features.engines.drawn_expanding import draw_cap as rc

    _name, eps, levels = rc.precision_preset(ws.precision)
    # the levels of a start share chain runs of LEVEL_RUN levels (a cut that does not depend on the
    # number of workers, so neither do the figures)
    # the starts of a run are solved in one job, longest first (they share the run's per-id tables)
    done = ws.memo(("drawn_expanding.regbounds", feature), dict)
    missing = tuple(n0 for n0 in starts if any(("upper", n0, lv, eps) not in done for lv in levels))
    jobs = [("upper", feature, missing, run, eps) for run in rc.level_runs(levels)] \
        if missing and "upper" in kinds else []
    if "lower" in kinds:
        jobs += [("lower", feature, n0, None, None) for n0 in starts if ("lower", n0) not in done]
    return jobs


class _Queue:
    """The jobs of one call, shared by the pool (from the front) and this process (from the back).

    A worker is handed one job at a time (the next when its last one ends: a done-callback in the
    pool's management thread), so a job no worker holds yet can still be taken here, once this
    process is free (:meth:`take_last`): both sides then end about together.  Results by index;
    a worker's ``rows`` job (the spin rows of a game) is kept on this process's spin statistics
    of that game besides (the same values its own build gives, so whichever comes first stands).
    """

    def __init__(self, pool, jobs, tasks):
        import threading
        from collections import deque

        self.pool, self.tasks = pool, tasks
        self.todo = deque(enumerate(jobs))  # (index, (side, job))
        self.results: dict = {}
        self.cond = threading.Condition()

    def feed(self) -> None:
        """Hand the first job not yet taken to the pool (nothing when none is left)."""
        while True:
            with self.cond:
                if not self.todo:
                    return
                i, (side, job) = self.todo.popleft()
            try:
                fut = self.pool.submit(_solve_in_worker, side, job)
            except Exception as err:  # (a broken or closing pool: the job fails, the next is tried)
                with self.cond:
                    self.results[i] = (side, err)
                    self.cond.notify_all()
                continue
            fut.add_done_callback(lambda fut: self._done(i, side, job, fut))
            return

    def _done(self, i, side, job, fut) -> None:
        err = fut.exception()
        if err is None and job[0] == "rows":
            _keep_rows(self.tasks[side], fut.result()[1])
        with self.cond:
            self.results[i] = (side, fut.result() if err is None else err)
            self.cond.notify_all()
        self.feed()

    def take_last(self):
        """``(index, (side, job))`` of the last job no worker holds, taken from the queue; None when none is left."""
        with self.cond:
            return self.todo.pop() if self.todo else None

    def wait(self, n: int) -> list:
        """The ``n`` results in job order, once all are in (a worker's exception raised here)."""
        with self.cond:
            self.cond.wait_for(lambda: len(self.results) == n)
        out = [self.results[i] for i in range(n)]
        for _side, res in out:
            if isinstance(res, BaseException):
                raise res
        return out


def _keep_rows(task, rows) -> None:
    """Keep a worker's spin rows of ``task``'s game on this process's spin statistics of it (if not built here)."""
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats

    f, _s, ws, _k = task
    st = spin_stats(ws.game, f, ws)
    if getattr(st, "_line_expansion_rows", None) is None:
        st._line_expansion_rows = rows


def regular_cap_bounds_together(tasks, meanwhile=None, meanwhile_core: bool = True) -> list[dict]:
    """:func:`regular_cap_bounds` of several tasks in one pool of worker processes.

    ``tasks``: ``(feature, starts, ws, kinds)`` each, ``ws`` the workspace of
    the game solved (e.g. the two bounding games of the literal reading,
    :func:`~analytic.features.engines.drawn_expanding.line_sets.bounding_workspace`:
    the upper bounds on one, the lower bounds on the other).  Every job of
    every task is solved exactly as :func:`regular_cap_bounds` solves it
    alone (the same cut into jobs, each job in one process, in the same
    order), so the figures are the same; only the wall time changes: the
    jobs share the pool (``workers`` of the first task's workspace, at most
    the jobs; one fewer while this process runs ``meanwhile`` when
    ``meanwhile_core``, for a ``meanwhile`` about as long as the jobs: the
    Power Free Spins' capped law), while this process runs ``meanwhile`` and
    then takes the jobs no worker holds yet, from the last.  With ``workers`` 1 every job runs
    here, then ``meanwhile``.  Returns one ``{n0: (upper, lower)}``
    per task; each workspace keeps its solves and, under
    :data:`JOB_SECONDS`, ``{(kind, n0, levels): (wall, cpu) seconds}`` of this call's.
    """
    from analytic.features.engines.drawn_expanding import draw_cap as rc
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats

    tasks = [(f, sorted(set(int(n) for n in starts), reverse=True), ws, tuple(kinds))  # longest solves first
             for f, starts, ws, kinds in tasks]
    spaces = tuple(ws for _f, _s, ws, _k in tasks)
    jobs = [(side, job) for side, (f, starts, ws, kinds) in enumerate(tasks) for job in _jobs(f, starts, ws, kinds)]
    # the longest jobs first: the upper bounds' runs (one job per run, each of several starts) before the
    # lower bounds
    jobs.sort(key=lambda sj: sj[1][0] != "upper")
    if jobs:
        nw = workers(len(jobs), spaces[0].workers)
        if meanwhile is not None and meanwhile_core and nw > 1:
            # this process works meanwhile (the Power Free Spins' capped law, about as long as all the
            # jobs together on the shipped model): it keeps a core, the pool gets the others (one worker
            # more only makes three processes share two cores); a short ``meanwhile`` (the features'
            # moments and zero-win laws, a fifth of the jobs) shares the cores with the whole pool
            nw = max(1, min(spaces[0].workers - 1, len(jobs)))
        sides = sorted(set(side for side, _job in jobs))
        rows_jobs = []
        for side in sides:
            f, _s, ws, _k = tasks[side]
            st = spin_stats(ws.game, f, ws)
            if spaces[0].workers == 1 or getattr(st, "_line_expansion_rows", None) is not None:
                continue  # (one process: each job builds what it reads, once)
            if nw > 1:  # several workers: built once here, inherited by each of them
                rc.line_expansion_rows(st)
                if ws.game.cap is not None and any(job[0] == "upper" for sd, job in jobs if sd == side):
                    rc.line_table_for(ws.game, st, rc.mixture_groups(st))  # read by every upper job, likewise
            else:  # one worker: it builds them first (this process meanwhile on its own work), and sends the
                # rows back for this process (its zero-win laws read them)
                rows_jobs.append((side, ("rows", f, None, None, None)))
        if spaces[0].workers == 1:
            results = [(side, _solve(job, spaces[side])) for side, job in jobs]
            if meanwhile is not None:
                meanwhile()
        else:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            order = rows_jobs + jobs  # (a worker builds the rows first, then solves)
            with ProcessPoolExecutor(nw, mp_context=multiprocessing.get_context("fork"),
                                     initializer=_init_worker, initargs=(spaces,)) as pool:
                queue = _Queue(pool, order, tasks)
                for _ in range(nw):
                    queue.feed()  # (fork here)
                if meanwhile is not None:
                    meanwhile()
                    # then the jobs no worker holds yet, here, from the last (the shortest); each solved
                    # as a worker solves it (one BLAS thread), so the figures are the same
                    from threadpoolctl import threadpool_limits

                    with threadpool_limits(limits=1):
                        while (item := queue.take_last()) is not None:
                            i, (side, job) = item
                            res = _solve(job, spaces[side])
                            with queue.cond:
                                queue.results[i] = (side, res)
                results = [r for r in queue.wait(len(order)) if r[1][0][0] != "rows"]
        seconds: dict = {side: {} for side in range(len(tasks))}
        for side, (job, res, sec) in results:
            kind, feature, n0, chunk, eps = job
            done = spaces[side].memo(("drawn_expanding.regbounds", feature), dict)
            seconds[side][(kind, n0, chunk)] = sec
            if kind == "lower":
                done[("lower", n0)] = res
            else:  # one entry per start and level
                for n, bounds in res.items():
                    for i, lv in enumerate(chunk):
                        done[("upper", n, lv, eps)] = None if bounds is None else bounds[i]
        for side, sec in seconds.items():
            if sec:
                spaces[side].put(JOB_SECONDS, sec)
    outs = []
    for feature, starts, ws, kinds in tasks:
        _name, eps, levels = rc.precision_preset(ws.precision)
        done = ws.memo(("drawn_expanding.regbounds", feature), dict)
        out = {}
        for n0 in starts:
            upper = None
            if "upper" in kinds:
                parts = [done[("upper", n0, lv, eps)] for lv in levels]
                upper = None if any(b is None for b in parts) else rc.combine_levels(levels, parts)
            out[n0] = (upper, done[("lower", n0)] if "lower" in kinds else None)
        outs.append(out)
    return outs
