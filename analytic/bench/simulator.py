"""Benchmark: rounds per second of the simulator's base game.

Usage::

    python -m analytic.bench.simulator MODEL [--mode M] [--rounds N] [--chunk C]

Prints the rounds per second of one process playing the mode (base spins and
the features they trigger), and of the bare vectorised window evaluation.
A command that prints figures, not a timed test.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

__all__ = ["main"]


def main(argv=None) -> int:
    """Run the benchmark; prints figures, returns 0."""
    from analytic.memory import use_small_pages

    use_small_pages()  # as the analytic command does (analytic/memory.py)
    from analytic.model.loader import load_model
    from analytic.simulator.evaluate import compile_tables, evaluate_windows
    from analytic.simulator.runner import simulate

    p = argparse.ArgumentParser(prog="python -m analytic.bench.simulator", description=__doc__.splitlines()[0])
    p.add_argument("model")
    p.add_argument("--mode", default=None)
    p.add_argument("--rounds", type=int, default=500_000)
    args = p.parse_args(argv)

    game = load_model(args.model)
    mode = args.mode or game.default_mode.name
    t = compile_tables(game)
    reel_set = game.modes[mode].reel_set
    if reel_set is not None:
        rng = np.random.default_rng(0)
        n = min(args.rounds, 100_000)
        t0 = time.perf_counter()
        w = t.spin(reel_set, n, rng)
        t1 = time.perf_counter()
        evaluate_windows(t, w)
        t2 = time.perf_counter()
        print(f"{game.name}: {t.n_lines} lines, {len(t.cand_names)} line-pay candidates")
        print(f"window draws      {n / (t1 - t0):>14,.0f} windows/s")
        print(f"window evaluation {n / (t2 - t1):>14,.0f} windows/s")
    r = simulate(game, mode, args.rounds, 0, progress=False)
    print(f"rounds ({mode})     {r.rounds_per_second:>14,.0f} rounds/s  (1 process, {r.rounds:,} rounds, "
          f"RTP {r.rtp * 100:.3f} %)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
