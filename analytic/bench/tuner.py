"""Benchmark: tune a deliberately detuned copy of a shipped model back to its RTP.

``python -m analytic.bench.tuner [MODEL] [--mode M]`` (default model
``models/book_of_christmas_eve.toml``, mode ``base``):

1. loads the model and solves the mode exactly; its RTP is the target (the
   shipped model meets it, so the target is reachable);
2. makes a *detuned* copy in memory: on a few reels of the mode's reel set
   (default reels 1, 2, 3) it moves stops from a mid-paying regular symbol to
   a low-paying one (default one stop per reel; strip lengths are kept, and
   wilds, scatters and books are never touched), then solves the copy exactly;
3. runs the tuner on the copy towards the original RTP, through the same call
   as ``analytic tune`` (:func:`analytic.tuner.search.tune_with_cap` with the
   command's defaults: the tuner's default RTP tolerance of 0.005 percentage
   points, 60 steps, no locks, strips edited as little as possible), timing
   only that call with :func:`time.perf_counter`;
4. re-solves the tuned copy independently and prints the original, detuned
   and tuned RTP, whether the target was met, the tuner's steps and exact
   solves, and the wall-clock seconds of the tuning step.

RTP figures are printed in percent of the total bet (96.0 = 96 %); the
target tolerance is absolute, in percentage points.  The model file is only
read: nothing is written anywhere.  Exit code 0 when the target is met (by
the tuner's own figure and by the independent re-solve), 1 otherwise, 2 on a
usage error.

Options ``--from SYMBOL --to SYMBOL --reels 1,2,3 --stops N`` choose another
detuning (default symbols: the regular symbol with the median top line pay,
most stops on ties, and the one with the smallest top line pay, most stops on
ties; for Book of Christmas Eve ``reindeer`` -> ``ten``).
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

import analytic

__all__ = ["DEFAULT_MODEL", "default_symbols", "detune", "main"]

DEFAULT_MODEL = Path(analytic.__file__).resolve().parents[1] / "models" / "book_of_christmas_eve.toml"


def _pct(x: Fraction) -> str:
    return f"{float(x) * 100:.6f} %"


def default_symbols(game, reel_set: str, reels: list[int]) -> tuple[str, str]:
    """The default detuning pair ``(mid, low)`` of regular symbols.

    ``low`` has the smallest top line pay (most stops on the reel set on
    ties); ``mid`` has the median of the distinct top-pay levels (most stops
    on ties).  Both must show on every reel in ``reels`` (0-based).

    Raises
    ------
    ValueError
        When fewer than two regular paying symbols show on those reels.
    """
    strips = game.reel_sets[reel_set]
    present = set.intersection(*(set(strips[r]) for r in reels))
    regular = [s.name for s in game.symbols
               if s.role == "regular" and s.name in present and game.paytable.get(s.name)]
    if len(regular) < 2:
        raise ValueError(f"reel set '{reel_set}': fewer than two regular paying symbols on reels "
                         f"{', '.join(str(r + 1) for r in reels)}")
    top = {s: max(game.paytable[s].values()) for s in regular}
    stops = {s: sum(st.count(s) for st in strips) for s in regular}
    low = min(regular, key=lambda s: (top[s], -stops[s], s))
    levels = sorted({top[s] for s in regular if s != low})
    mid_level = levels[len(levels) // 2]
    mid = min((s for s in regular if s != low and top[s] == mid_level), key=lambda s: (-stops[s], s))
    return mid, low


def detune(game, reel_set: str, src: str, dst: str, reels: list[int], stops: int = 1):
    """A copy of ``game`` with ``stops`` stops of ``src`` turned into ``dst``.

    Parameters
    ----------
    game : Game
    reel_set : str
    src, dst : str
        Regular symbols (wilds, scatters, books and bonus symbols are refused).
    reels : list of int
        0-based reels to change.
    stops : int
        Stops moved on each of those reels; strip lengths are kept.

    Returns
    -------
    Game
        The changed copy (strips edited as little as possible, as the tuner
        edits them: :func:`analytic.tuner.search.with_counts`).

    Raises
    ------
    ValueError
        A symbol that is not regular, or a reel without enough ``src`` stops
        or without ``dst`` (the tuner only places symbols where a strip
        already shows them, so the copy stays tunable back).
    """
    from analytic.tuner.layout import strip_counts
    from analytic.tuner.search import with_counts

    for s in (src, dst):
        if game.symbol(s).role != "regular":
            raise ValueError(f"'{s}' is a {game.symbol(s).role} symbol; only regular symbols are moved")
    counts = [dict(strip_counts(st)) for st in game.reel_sets[reel_set]]
    for r in reels:
        if not 0 <= r < len(counts):
            raise ValueError(f"reel set '{reel_set}' has no reel {r + 1}")
        if counts[r].get(src, 0) <= stops:
            raise ValueError(f"reel {r + 1}: '{src}' has {counts[r].get(src, 0)} stops, "
                             f"cannot give away {stops} and keep one")
        if counts[r].get(dst, 0) == 0:
            raise ValueError(f"reel {r + 1} shows no '{dst}'")
        counts[r][src] -= stops
        counts[r][dst] += stops
    return with_counts(game, reel_set, counts)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit code (0 target met, 1 not met, 2 usage error)."""
    from analytic.memory import use_small_pages

    use_small_pages()  # as the analytic command does (analytic/memory.py)
    from analytic.model.loader import load_model
    from analytic.solver.round import solve_round
    from analytic.tuner.search import Targets, evaluate, tune_with_cap, tuned_reel_set

    p = argparse.ArgumentParser(prog="python -m analytic.bench.tuner",
                                description="Tune a detuned copy of a shipped model back to its RTP and time it.")
    p.add_argument("model", nargs="?", default=str(DEFAULT_MODEL))
    p.add_argument("--mode", default="base")
    p.add_argument("--from", dest="src", default=None, help="symbol that gives stops (default: a mid-paying one)")
    p.add_argument("--to", dest="dst", default=None, help="symbol that gets them (default: the lowest-paying)")
    p.add_argument("--reels", default="1,2,3", help="1-based reels to detune (default 1,2,3)")
    p.add_argument("--stops", type=int, default=1, help="stops moved per reel (default 1)")
    args = p.parse_args(argv)

    game = load_model(args.model)
    if args.mode not in game.modes:
        print(f"error: {args.model}: unknown bet mode '{args.mode}' (known: {', '.join(game.modes)})",
              file=sys.stderr)
        return 2
    rs = tuned_reel_set(game, args.mode)
    try:
        reels = [int(x) - 1 for x in args.reels.split(",") if x.strip()]
        mid, low = default_symbols(game, rs, reels)
        src, dst = args.src or mid, args.dst or low
        detuned = detune(game, rs, src, dst, reels, args.stops)
    except (ValueError, KeyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    t0 = time.perf_counter()
    original = evaluate(game, args.mode)
    t_orig = time.perf_counter() - t0
    start = evaluate(detuned, args.mode)
    targets = Targets(original.rtp)  # the tuner's default tolerance, as `analytic tune`

    print(f"model          {Path(args.model).name}, mode '{args.mode}', reel set '{rs}'")
    print(f"original RTP   {_pct(original.rtp)} ({original.label}, solved in {t_orig:.1f} s) = target")
    print(f"detuning       {args.stops} stop(s) {src} -> {dst} on reel(s) {', '.join(str(r + 1) for r in reels)}")
    print(f"detuned RTP    {_pct(start.rtp)} ({start.label}, {float(start.rtp - original.rtp) * 100:+.3f} points)")
    print(f"tolerance      +- {float(targets.rtp_tolerance) * 100:.4f} points")
    sys.stdout.flush()

    def progress(step, m, score):
        print(f"  step {step:3d}: RTP {float(m.rtp) * 100:.5f} %  score {score:.3g}", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    res = tune_with_cap(detuned, args.mode, targets, reel_set=None, locks=[], max_steps=60,
                        relayout=False, progress=progress)
    t_tune = time.perf_counter() - t0

    check = solve_round(res.game, args.mode).rtp.value
    check_ok = abs(check - targets.rtp) <= targets.rtp_tolerance
    met = res.met and check_ok
    print(f"tuned RTP      {_pct(res.metrics.rtp)} ({res.metrics.label}; independent re-solve {_pct(check)})")
    print(f"target met     {'yes' if met else 'NO'} (|tuned - target| = "
          f"{abs(float(res.metrics.rtp - targets.rtp)) * 100:.6f} points)")
    print(f"tuner          {res.steps} steps, {res.evaluations} exact solves")
    for c in res.changes:
        print(f"               {c}")
    print(f"tuning time    {t_tune:.1f} s wall clock (tune_with_cap only)")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
