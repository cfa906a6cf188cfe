"""``analytic tune MODEL --mode M --target-rtp R ...``: reel-strip tuning.

RTP and hit-frequency targets are percentages when above 2 or marked ``%``
(``94.00`` = 94 %), else fractions (``0.94``), and at most 100 %; the
feature-frequency target is a probability per round (``1/150``, ``0.0067`` or
``0.67%``).  Every value and the output path are checked before the first
solve (:mod:`analytic.cli.args`).  The tuned model is written to ``--out`` (default
``<model stem>.tuned.toml`` beside the input), or over the input only with
``--in-place``.  Exit code 0 when every target holds, 3 when they cannot all
be met (the closest result is still written and shown).
"""

from __future__ import annotations

import os
import stat
import sys
from fractions import Fraction
from pathlib import Path

from analytic.cli import args as args_

__all__ = ["add_parser", "run", "parse_target"]


def parse_target(text: str) -> Fraction:
    """``"94.00"`` or ``"94%"`` -> 47/50; ``"0.94"`` -> 47/50; refused outside (0 %, 100 %]."""
    return args_.rate(text)


def add_parser(sub):
    p = sub.add_parser("tune", help="change strip symbol counts until targets hold",
                       description="Tune a reel set's symbol counts to target RTP, hit frequency and "
                                   "feature frequency, re-solving exactly at each step.  Each step's "
                                   "line (on stderr) ends with its score: the sum over the targets of "
                                   "((figure - target) / tolerance)^2; a target is met when its term "
                                   "is at most 1.")
    p.add_argument("model")
    p.add_argument("--mode", default=None, help="bet mode (default: the first)")
    p.add_argument("--target-rtp", required=True, type=parse_target,
                   help="e.g. 94.00 or 94%% (percent) or 0.94; at most 100 %%")
    p.add_argument("--target-hit-frequency", type=lambda t: args_.rate(t, "hit frequency"), default=None,
                   help="share of rounds that win: 30 or 30%% (percent) or 0.3")
    p.add_argument("--target-feature-frequency", type=args_.probability, default=None,
                   help="probability per round of a feature: 1/150 (one in 150), 0.0067 or 0.67%%")
    p.add_argument("--rtp-tolerance", type=args_.tolerance, default=Fraction(5, 100000),
                   help="absolute, default 0.00005 (0.005 percentage points, also 0.005%%)")
    p.add_argument("--reel-set", default=None, help="reel set to change (default: the mode's base reel set; for a feature buy the "
                        "bought feature's reel set). Every other mode playing that set changes too: "
                        "re-solve them")
    p.add_argument("--lock", nargs="*", action="extend", default=[], metavar="REEL/SYMBOL",
                   help="counts that must not change: 2/book (reel 2) or book (all reels); the option may be "
                        "repeated (every lock holds)")
    p.add_argument("--max-steps", type=args_.int_type(0, 10_000, "max steps"), default=60,
                   help="most search steps, 0 .. 10,000 (default 60)")
    p.add_argument("--relayout", action="store_true",
                   help="spread every symbol evenly (default: edit the strips as little as possible)")
    p.add_argument("--allow-removal", action="store_true",
                   help="let a symbol's count on a reel fall to 0 (default: every symbol a strip shows keeps a stop)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--out", default=None, help="output model file (default: MODEL stem + .tuned.toml); a tuned reel set "
                          "read from a CSV file is written to <out stem>_<reel set>.csv beside it")
    out.add_argument("--in-place", action="store_true", help="overwrite the input model")
    return p


def _check_locks(locks: list[str], game) -> None:
    """Each ``--lock`` is ``REEL/SYMBOL`` (reel 1-based) or ``SYMBOL`` of the model; raise UsageError otherwise."""
    for lk in locks:
        reel, slash, sym = lk.rpartition("/")
        if slash:  # "REEL/SYMBOL": an empty reel ("/a") too
            if not reel.isascii() or not reel.isdigit() or not 1 <= int(reel) <= game.reels:
                raise args_.UsageError(f"--lock: {lk[:60]!r}: the reel must be 1 .. {game.reels}")
        if sym not in {s.name for s in game.symbols}:
            raise args_.UsageError(f"--lock: {lk[:60]!r}: unknown symbol {sym[:40]!r} (the model has "
                                   f"{', '.join(s.name for s in game.symbols)})")


def _check_feature_target(target, game, mode: str) -> None:
    """Refuse a feature-frequency target no strip can meet, before the first solve.

    Raises
    ------
    UsageError
        ``--target-feature-frequency`` on a feature buy (it starts its feature
        every round: the frequency is 1) other than 1, or on a game where no
        feature can start from a spin (no trigger, no line trigger).
    """
    if target is None:
        return
    if game.modes[mode].buys is not None:
        if target != 1:
            raise args_.UsageError(f"--target-feature-frequency: bet mode {mode!r} buys its feature, which then "
                                   "starts every round (feature frequency 1); no strip changes that")
        return
    if not game.line_triggers and not any(f.trigger is not None for f in game.features.values()):
        raise args_.UsageError("--target-feature-frequency: no feature of the model starts from a spin (no "
                               "trigger, no line trigger), so the feature frequency is 0 whatever the strips")


def _check_csv_strips(src: Path, out: Path, tuned: str) -> None:
    """Refuse an output whose model would not read the same strips (before any tuning).

    The tuned model keeps the other reel sets' ``{ csv = NAME }`` (relative to
    its own folder) and writes the tuned set, if it came from a CSV file, to
    ``<out stem>_<reel set>.csv`` beside it.  So every other CSV file must be
    the same file seen from ``out``'s folder, and the new CSV file must not be
    one of them.

    Raises
    ------
    UsageError
        On ``--out``, naming the reel set (``reels.NAME``); also when the
        tuned CSV file's path is a folder, a symbolic link or another
        non-regular file.
    """
    import tomllib

    try:
        reels = tomllib.loads(src.read_text(encoding="utf-8-sig")).get("reels", {})
    except (OSError, ValueError):  # the loader read it a moment ago; nothing to compare then
        return
    csvs = {rs: v["csv"] for rs, v in reels.items() if isinstance(v, dict) and isinstance(v.get("csv"), str)}
    new_csv = None
    if tuned in csvs:
        target = out.with_name(f"{out.stem}_{tuned}.csv")
        args_.check_name_lengths(str(out.parent), "--out", [f".{target.name}.partial"])  # tuner.write.partial_path
        if target.is_symlink() or (target.exists() and not target.is_file()):
            what = ("a symbolic link (it would be replaced by the file, not written through)" if target.is_symlink()
                    else "a folder" if target.is_dir() else "not a regular file")
            raise args_.UsageError(f"--out: the tuned strips of reels.{tuned} go to {str(target)!r}, which is "
                                   f"{what}; move it or choose another --out name")
        new_csv = target.resolve()
    for rs, name in csvs.items():
        if rs == tuned:
            continue
        here, there = (src.parent / name).resolve(), (out.parent / name).resolve()
        if here != there:
            raise args_.UsageError(
                f"--out: the tuned model would read reels.{rs} from {name!r} beside {str(out)!r}, which is not "
                f"the model's {str(here)!r}; write the tuned model in the model's folder (or copy the CSV files)")
        if new_csv is not None and new_csv == here:
            raise args_.UsageError(
                f"--out: the tuned strips of reels.{tuned} would be written to {str(new_csv)!r}, the file "
                f"reels.{rs} reads; choose another --out name")


def run(args) -> int:
    from analytic.model.loader import load_model
    from analytic.tuner.search import Targets, tune_with_cap
    from analytic.tuner.write import write_tuned_model

    src = Path(args.model)
    if args.out is not None:
        args_.check_out_file(args.out)  # before any work: a folder, a path under a file, a read-only folder
    game = load_model(args.model)
    mode = game.default_mode.name if args.mode is None else args.mode
    if mode not in game.modes:
        from analytic.errors import ModelError  # one line, escaped, exit 2 (cli.main)

        raise ModelError(args.model, "modes", f"unknown bet mode {mode!r} (known: {', '.join(game.modes)})")
    if args.reel_set is not None and args.reel_set not in game.reel_sets:
        raise args_.UsageError(f"--reel-set: unknown reel set {args.reel_set[:60]!r} "
                               f"(the model has {', '.join(game.reel_sets)})")
    if args.reel_set is not None:
        from analytic.tuner.search import reel_sets_read

        read = reel_sets_read(game, mode)
        if args.reel_set not in read:  # no change of its strips can move the mode's figures
            from analytic.errors import ModelError  # one line, escaped, exit 2 (cli.main)

            raise ModelError(args.model, "--reel-set",
                             f"bet mode {mode!r} never reads reel set {args.reel_set[:60]!r}, so tuning it cannot "
                             f"change the mode's figures (the mode reads {', '.join(read) or 'no reel set'})")
    _check_locks(args.lock, game)
    _check_feature_target(args.target_feature_frequency, game, mode)
    out = src if args.in_place else Path(args.out or src.with_name(src.stem + ".tuned.toml"))
    if not args.in_place:
        args_.check_out_file(str(out))
        if out.resolve() != src.resolve():  # (the model itself: --in-place, below)
            args_.check_not_an_input(str(out), args.model)
    elif src.is_symlink():  # the rename would replace the link by a file and leave its target as it was
        raise args_.UsageError(f"--in-place: {str(src)!r} is a symbolic link; tune the file it points to "
                               f"({str(src.resolve())!r}) or write the result with --out")
    else:  # the folder (written beside, renamed) and the file: a read-only model is refused
        args_.check_out_file(str(src), "--in-place")
    if out.resolve() == src.resolve() and not args.in_place:
        print("error: --out is the input model; pass --in-place to overwrite it", file=sys.stderr)
        return 2
    from analytic.tuner.search import tuned_reel_set
    from analytic.tuner.write import partial_path

    tuned = args.reel_set or tuned_reel_set(game, mode)
    shown = {(r, sym) for r, strip in enumerate(game.reel_sets[tuned]) for sym in strip}  # the counts the search moves
    if args.lock and all(sym in args.lock or f"{r + 1}/{sym}" in args.lock for r, sym in shown):
        raise args_.UsageError(f"--lock: every symbol count of reel set {tuned!r} is locked, so no count can "
                               f"change; lock fewer")
    _check_csv_strips(src, out, tuned)
    for f in (out, out.with_name(f"{out.stem}_{tuned}.csv")):  # the temporary names written, then renamed
        tmp = partial_path(f)
        try:
            in_the_way = tmp.is_dir() and not tmp.is_symlink()
        except OSError:  # a name too long to exist: the CSV name of strips not read from a CSV file
            in_the_way = False
        if in_the_way:
            raise args_.UsageError(f"--out: {str(tmp)!r}, where {f.name!r} is written before its rename, is a "
                                   "folder; move it")
    targets = Targets(args.target_rtp, args.target_hit_frequency, args.target_feature_frequency,
                      rtp_tolerance=args.rtp_tolerance)

    def progress(step, m, score):
        print(f"step {step:3d}: RTP {float(m.rtp) * 100:.5f} %  hit {float(m.hit_frequency) * 100:.4f} %  "
              f"feature 1 in {1 / float(m.feature_frequency) if m.feature_frequency else float('inf'):.2f}  "
              f"score {score:.3g}", file=sys.stderr, flush=True)

    res = tune_with_cap(game, mode, targets, reel_set=args.reel_set, locks=args.lock, max_steps=args.max_steps,
                        relayout=args.relayout, allow_removal=args.allow_removal, progress=progress)
    m = res.metrics
    verdict = "targets met" if res.met else "targets NOT all met: closest result"
    note = [f"tuned by analytic tune ({verdict}) for mode '{mode}': RTP {float(m.rtp) * 100:.5f} %, "
            f"hit frequency {float(m.hit_frequency) * 100:.4f} %"] + [f"  {c}" for c in res.changes]
    write_tuned_model(src, out, res.game, res.reel_set, note,
                      mode=stat.S_IMODE(os.stat(src).st_mode) if args.in_place else None)
    print(f"{verdict} after {res.steps} steps, {res.evaluations} exact solves")
    print(f"  RTP {float(m.rtp) * 100:.6f} % (target {float(targets.rtp) * 100:.6f} %)  [{m.label}]")
    ff = float(m.feature_frequency)
    ff_text = f"1 in {1 / ff:.2f} ({ff:.6g})" if ff else "0 (no feature starts)"
    print(f"  hit frequency {float(m.hit_frequency) * 100:.5f} %   feature frequency {ff_text}")
    names = {"rtp": "RTP", "hit_frequency": "hit frequency", "feature_frequency": "feature frequency"}
    for key, target, tol in targets.pairs():  # every target with its tolerance, met or not
        ok = abs(m.get(key) - target) <= tol
        shown = (f"1 in {1 / float(target):.2f} ({float(target):.6g})" if key == "feature_frequency" and target
                 else f"{float(target) * 100:.5f} %")
        tol_shown = f"{float(tol):.6g}" if key == "feature_frequency" else f"{float(tol) * 100:.6g} points"
        print(f"  {names[key]} target {shown} +/- {tol_shown}: {'met' if ok else 'MISSED'}")
    if not res.met and res.steps < args.max_steps:
        print("  stopped: no change among the candidates tried improved the score (a local optimum of the "
              "search, or locked or bounded counts hold a target back)")
    if res.changes:
        print(f"  reel set '{res.reel_set}' (mode '{mode}'):")
    for c in res.changes:
        print(f"  {c}")
    print(f"wrote {out}")
    from analytic.tuner.search import modes_sharing

    for other, how in modes_sharing(res.game, res.reel_set, mode):  # (not re-solved: each may take minutes)
        print(f"note: mode '{other}' reads reel set '{res.reel_set}' too ({how}): its figures change as well; "
              f"re-solve it (analytic solve {out} --mode {other})")
    return 0 if res.met else 3
