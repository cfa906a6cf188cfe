"""``analytic tune MODEL --mode M --target-rtp R ...``: reel-strip tuning.

Targets are percentages when above 2 (``94.00`` = 94 %), else fractions
(``0.94``).  The tuned model is written to ``--out`` (default
``<model stem>.tuned.toml`` beside the input), or over the input only with
``--in-place``.  Exit code 0 when every target holds, 3 when they cannot all
be met (the closest result is still written and shown).
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

__all__ = ["add_parser", "run", "parse_target"]


def parse_target(text: str) -> Fraction:
    """``"94.00"`` or ``"94%"`` -> 47/50; ``"0.94"`` -> 47/50."""
    import argparse

    t = text.strip().rstrip("%")
    try:
        v = Fraction(t)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    v = v / 100 if (v > 2 or text.strip().endswith("%")) else v
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text!r}")
    return v


def add_parser(sub):
    p = sub.add_parser("tune", help="change strip symbol counts until targets hold",
                       description="Tune a reel set's symbol counts to target RTP, hit frequency and "
                                   "feature frequency, re-solving exactly at each step.")
    p.add_argument("model")
    p.add_argument("--mode", default=None, help="bet mode (default: the first)")
    p.add_argument("--target-rtp", required=True, type=parse_target, help="e.g. 94.00 (percent) or 0.94")
    p.add_argument("--target-hit-frequency", type=parse_target, default=None)
    p.add_argument("--target-feature-frequency", type=parse_target, default=None)
    p.add_argument("--rtp-tolerance", type=parse_target, default=Fraction(5, 100000),
                   help="absolute, default 0.005 percentage points (0.00005)")
    p.add_argument("--reel-set", default=None, help="reel set to change (default: the mode's)")
    p.add_argument("--lock", nargs="*", default=[], metavar="REEL/SYMBOL",
                   help="counts that must not change: 2/book (reel 2) or book (all reels)")
    p.add_argument("--max-steps", type=int, default=60)
    p.add_argument("--relayout", action="store_true",
                   help="spread every symbol evenly (default: edit the strips as little as possible)")
    p.add_argument("--out", default=None, help="output model file")
    p.add_argument("--in-place", action="store_true", help="overwrite the input model")
    return p


def run(args) -> int:
    from analytic.model.loader import load_model
    from analytic.tuner.search import Targets, tune_with_cap
    from analytic.tuner.write import write_tuned_model

    game = load_model(args.model)
    mode = args.mode or game.default_mode.name
    if mode not in game.modes:
        print(f"error: {args.model}: modes: unknown bet mode '{mode}' (known: {', '.join(game.modes)})",
              file=sys.stderr)
        return 2
    src = Path(args.model)
    out = src if args.in_place else Path(args.out or src.with_name(src.stem + ".tuned.toml"))
    if out.resolve() == src.resolve() and not args.in_place:
        print("error: --out is the input model; pass --in-place to overwrite it", file=sys.stderr)
        return 2
    targets = Targets(args.target_rtp, args.target_hit_frequency, args.target_feature_frequency,
                      rtp_tolerance=args.rtp_tolerance)

    def progress(step, m, score):
        print(f"step {step:3d}: RTP {float(m.rtp) * 100:.5f} %  hit {float(m.hit_frequency) * 100:.4f} %  "
              f"feature 1 in {1 / float(m.feature_frequency) if m.feature_frequency else float('inf'):.2f}  "
              f"score {score:.3g}", file=sys.stderr, flush=True)

    res = tune_with_cap(game, mode, targets, reel_set=args.reel_set, locks=args.lock, max_steps=args.max_steps,
                        relayout=args.relayout, progress=progress)
    m = res.metrics
    verdict = "targets met" if res.met else "targets NOT all met: closest result"
    note = [f"tuned by analytic tune ({verdict}) for mode '{mode}': RTP {float(m.rtp) * 100:.5f} %, "
            f"hit frequency {float(m.hit_frequency) * 100:.4f} %"] + [f"  {c}" for c in res.changes]
    write_tuned_model(src, out, res.game, res.reel_set, note)
    print(f"{verdict} after {res.steps} steps, {res.evaluations} exact solves")
    print(f"  RTP {float(m.rtp) * 100:.6f} % (target {float(targets.rtp) * 100:.6f} %)  [{m.label}]")
    print(f"  hit frequency {float(m.hit_frequency) * 100:.5f} %   feature frequency {float(m.feature_frequency):.6g}")
    for c in res.changes:
        print(f"  {c}")
    print(f"wrote {out}")
    return 0 if res.met else 3
