"""Spin-by-spin simulator: the project's independent oracle.

It plays rounds as a player would and evaluates wins with its own code,
written directly from the rule texts (:mod:`analytic.simulator.evaluate`);
it imports nothing from :mod:`analytic.engine`, :mod:`analytic.solver` or
:mod:`analytic.features`.  A disagreement between the simulator and the
solver is a bug in one of them.

Public API
----------
simulate(game, mode=None, rounds=..., seed=0, workers=1, scheduler=None)
    -> SimulationResult (RTP with confidence intervals, frequencies, ...).
evaluate_window(game, window)
    Plain evaluation of one window (line-bet units).
compile_tables(game), evaluate_windows(tables, windows)
    Vectorised evaluation of a batch of windows (integer ticks).
play_rounds(tables, mode, n, rng)
    One batch of rounds, per-round arrays.

All randomness of the package lives in this subpackage.
"""

from analytic.simulator.evaluate import compile_tables, evaluate_window, evaluate_windows
from analytic.simulator.rounds import play_rounds
from analytic.simulator.runner import SimulationResult, simulate

__all__ = [
    "simulate",
    "SimulationResult",
    "evaluate_window",
    "evaluate_windows",
    "compile_tables",
    "play_rounds",
]
