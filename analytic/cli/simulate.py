"""``analytic simulate MODEL [--mode M] --rounds N [--seed S] [--workers K]
[--scheduler ADDR] [--format table|json] [--no-progress]``.

Plays rounds of one bet mode with the independent simulator
(:mod:`analytic.simulator`) and prints simulated figures with confidence
intervals.  The JSON record (``"schema": "analytic.simulate/1"``) is
:meth:`analytic.simulator.SimulationResult.to_dict` plus the schema and model
path.
"""

from __future__ import annotations


import json

from analytic.cli import args as args_
from analytic.limits import MAX_ROUNDS

__all__ = ["add_parser", "run", "format_table"]


def _positive(text: str) -> int:
    """argparse type: an integer >= 1."""
    import argparse

    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {v}")
    return v


def add_parser(sub):
    p = sub.add_parser(
        "simulate",
        help="simulate rounds of a bet mode (independent oracle)",
        description="Play rounds as a player would and estimate RTP, hit and feature "
                    "frequencies with confidence intervals.  Results depend only on "
                    "--seed and --rounds, not on --workers.",
    )
    p.add_argument("model", help="model file (TOML)")
    p.add_argument("--mode", default=None, help="bet mode name (default: the first mode)")
    p.add_argument("--rounds", type=args_.rounds, required=True,
                   help=f"number of rounds to play (1 .. {MAX_ROUNDS:,}; Ctrl-C stops a run)")
    p.add_argument("--seed", type=args_.seed, default=0, help="root seed, an integer >= 0 (default 0)")
    p.add_argument("--workers", type=args_.workers, default=1,
                   help="worker processes; > 1 starts a local dask cluster (default 1; needs the 'sim' extra)")
    p.add_argument("--scheduler", default=None, metavar="ADDR", type=args_.scheduler_address,
                   help="address of a running dask scheduler, e.g. tcp://host:8786 (needs the 'sim' extra)")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--stake", default=None, type=args_.stake,
                   help="total stake per round in currency (> 0), for a win cap in currency (e.g. 250)")
    return p


def _pct(x: float) -> str:
    return f"{x * 100:.4f} %"


def format_table(r, capped: bool = True) -> str:
    """Plain-text table of a :class:`~analytic.simulator.SimulationResult`; ``capped``: the game has a
    win cap (else the RTP split is not said to be before it, and no capped rounds are counted)."""
    rows = [
        ("game", r.game),
        ("mode", f"{r.mode} (cost {r.cost} x total bet)"),
        ("rounds", f"{r.rounds:,} (seed {r.seed})"),
        ("RTP", f"{_pct(r.rtp)}  +/- {_pct(r.rtp_se)} (1 SE)"),
        *((f"RTP {lv} CI", f"[{_pct(lo)}, {_pct(hi)}]  normal approx."
           + (", low end clipped at 0 (approximation poor)" if r.clipped(lv) else ""))
          for lv, (lo, hi) in (("95%", r.rtp_ci95), ("99%", r.rtp_ci99), ("99.9%", r.rtp_ci999))),
        ("  base / features", f"{_pct(r.base_rtp)} / {_pct(r.feature_rtp)}" + (" (before cap)" if capped else "")),
        ("hit frequency", f"{_pct(r.hit_frequency)}  +/- {_pct(r.hit_frequency_se)}"),
        ("feature frequency", f"{_pct(r.feature_frequency)}  +/- {_pct(r.feature_frequency_se)}"
         + (f"  (1 in {1 / r.feature_frequency:,.1f})" if r.feature_frequency else "")),
        ("avg feature win", f"{r.avg_feature_win:.4f} x total bet"),
        ("SD of round win", f"{r.win_sd:.4f} x total bet"),
        ("max win seen", f"{float(r.max_win):,.2f} x total bet"),
        *((("capped rounds", f"{r.capped_rounds:,}"),) if capped else ()),
    ]
    if r.limited_rounds:
        rows.append(("spin-limited rounds", f"{r.limited_rounds:,} (a feature hit the spin limit)"))
    for name, f in r.features.items():
        rows.append((f"feature {name}", f"{f['instances']:,} played, {f['spins_per_instance']:.4f} spins "
                                        f"and {f['win_per_instance']:.4f} x total bet each"))
    rows.append(("speed", f"{r.rounds_per_second:,.0f} rounds/s ({r.seconds:.2f} s, {r.workers} worker(s))"))
    w = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{w}}  {v}" for k, v in rows)


def run(args) -> int:
    """Run the command; returns the exit code."""
    from analytic.model.loader import load_model
    from analytic.simulator import simulate

    if not args.scheduler:  # a local cluster: its processes run on this machine
        args_.check_local_workers(args.workers, hint="; for a larger cluster start one and give --scheduler")
    if args.workers > 1 or args.scheduler:
        args_.require_extra("dask.distributed", "sim", "--workers above 1 or --scheduler")
    game = load_model(args.model)
    mode = game.default_mode.name if args.mode is None else args.mode
    if args.stake is not None and (game.cap is None or game.cap.currency is None):
        raise args_.UsageError(f"--stake: {args.model} has no win cap in currency, so a stake changes nothing "
                               "(--stake is for [cap] currency)")
    if mode not in game.modes:
        raise args_.UsageError(f"{args.model}: modes: unknown bet mode {mode!r} (known: {', '.join(game.modes)})")
    res = simulate(
        game,
        mode,
        args.rounds,
        args.seed,
        workers=args.workers,
        scheduler=args.scheduler,
        progress=False if args.no_progress else None,
        stake=args.stake,
    )
    if args.format == "json":
        d = {"schema": "analytic.simulate/1", "model": str(args.model)}
        d.update(res.to_dict())
        print(json.dumps(d, indent=2, default=str))
    else:
        print(format_table(res, capped=game.cap is not None))
    return 0
