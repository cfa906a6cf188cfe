"""The explicit state of one solve: a :class:`Workspace` bound to one loaded game.

A solve keeps tables between its steps (a feature's per-spin law read by
several start counts and bet modes, the regular cap bounds read by every
mode).  They live in the workspace the caller passes down, never in module
globals: two games solved in one process, or the tuner's candidates, can
never read each other's tables, and what a solve depends on (the cap
precision preset, the worker processes) is an argument, not an environment
variable.

Every public solver entry point (:func:`analytic.solver.round.solve_round`,
:func:`~analytic.solver.round.solve_rounds`,
:func:`~analytic.solver.round.solve_game`, the feature solvers registered in
:mod:`analytic.features.result`) takes ``workspace=None`` / ``ws=None``:
``None`` makes a fresh workspace for the game (nothing reused from an
earlier call).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Hashable

__all__ = ["Workspace", "workspace_for", "CAP_PRECISIONS", "core_count"]

#: Names of the cap precision presets (their levels and eps:
#: :data:`analytic.features.engines.drawn_expanding.draw_cap.PRESETS`).
CAP_PRECISIONS = ("quick", "standard", "certify")


def core_count() -> int:
    """Cores this process may run on (the affinity mask where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


class Workspace:
    """Memo tables and settings of the solves of ONE loaded game.

    Parameters
    ----------
    game : Game
        The loaded model every table of this workspace belongs to.  A
        solver handed a workspace together with another game object raises
        ``ValueError`` (see :func:`workspace_for`).
    precision : {'quick', 'standard', 'certify'}
        Cap precision preset of the certified bounds that have one (Book of
        Power's regular cap bounds: levels and eps of
        :data:`analytic.features.engines.drawn_expanding.draw_cap.PRESETS`).  It changes
        the width of certified intervals, never an exact figure.
    workers : int
        Worker processes for independent solves (default 1: all in this
        process; the CLI's ``--workers`` defaults to :func:`core_count`).
        Only the speed depends on it: the work is cut the same way whatever
        the count.

    Raises
    ------
    ValueError
        An unknown ``precision`` or ``workers`` below 1.

    Notes
    -----
    Keys of :meth:`memo` are plain values (tuples of names, counts,
    fractions), never object ids: the game is fixed by the workspace itself.
    """

    def __init__(self, game, *, precision: str = "standard", workers: int = 1):
        precision = str(precision).strip()
        if precision not in CAP_PRECISIONS:
            raise ValueError(f"cap precision {precision!r} is not one of {sorted(CAP_PRECISIONS)}")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers = {workers!r} must be a whole number of at least 1")
        self.game = game
        self.precision = precision
        self.workers = workers
        self._memo: dict = {}

    def memo(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The value kept under ``key``, computed by ``compute()`` on first use.

        Parameters
        ----------
        key : hashable
            Plain values naming the table, e.g. ``("free_spins.states", feature)``.
        compute : callable
            No arguments; its result is kept (also ``None``).  An exception
            keeps nothing.
        """
        try:
            return self._memo[key]
        except KeyError:
            value = self._memo[key] = compute()
            return value

    def __contains__(self, key: Hashable) -> bool:
        return key in self._memo

    def get(self, key: Hashable, default: Any = None) -> Any:
        """The value kept under ``key``, else ``default`` (nothing computed)."""
        return self._memo.get(key, default)

    def put(self, key: Hashable, value: Any) -> None:
        """Keep ``value`` under ``key`` (for results computed elsewhere, e.g. by worker processes)."""
        self._memo[key] = value

    def keys(self) -> list:
        """The keys kept (a copy)."""
        return list(self._memo)

    def discard(self, key: Hashable) -> None:
        """Forget ``key`` if kept."""
        self._memo.pop(key, None)

    def clear(self) -> None:
        """Forget every table (the settings stay)."""
        self._memo.clear()

    def __repr__(self) -> str:
        return (f"Workspace({getattr(self.game, 'path', '?')!s}, precision={self.precision!r}, "
                f"workers={self.workers}, tables={len(self._memo)})")


def workspace_for(game, ws: Workspace | None = None) -> Workspace:
    """``ws`` checked against ``game``, or a fresh :class:`Workspace` for ``game`` when ``ws`` is None.

    Parameters
    ----------
    game : Game
    ws : Workspace, optional

    Returns
    -------
    Workspace

    Raises
    ------
    ValueError
        ``ws`` belongs to another game object (its tables would be stale).
    """
    if ws is None:
        return Workspace(game)
    if ws.game is not game:
        raise ValueError(f"the workspace belongs to another game ({getattr(ws.game, 'path', '?')}); "
                         "make one per loaded game")
    return ws
