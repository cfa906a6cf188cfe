"""``analytic verify MODEL --rounds N``: the solver against the simulator.

Solves each bet mode exactly and simulates it with the independent
spin-by-spin simulator, then prints every figure side by side with the
simulation's standard error, the z-score ``(simulated - exact) / se`` (for a
bounded figure, the distance to its certified interval over ``se``) and a
verdict: ``ok`` when ``|z| <= 3.29`` (the 99.9 % two-sided band), else
``CHECK``.  Exit code 0 when every verdict is ok, 4 otherwise.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction

from analytic.cli import args as args_
from analytic.limits import MAX_ROUNDS
from analytic.figures import Figure

__all__ = ["add_parser", "run", "compare"]

Z_LIMIT = 3.2905267314919255  # 99.9 % two-sided


def add_parser(sub):
    p = sub.add_parser("verify", help="solve and simulate; compare every figure",
                       description="Compare the exact solver with the independent simulator.")
    p.add_argument("model", help="model file (TOML)")
    p.add_argument("--mode", default=None, help="bet mode, or 'all' (default: all)")
    p.add_argument("--rounds", type=args_.rounds, required=True,
                   help=f"simulated rounds per bet mode (1 .. {MAX_ROUNDS:,})")
    p.add_argument("--seed", type=args_.seed, default=0, help="root seed of the simulation, >= 0 (default 0)")
    p.add_argument("--workers", type=args_.workers, default=1,
                   help="simulation worker processes; > 1 starts a local dask cluster (default 1)")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def compare(exact, sim) -> list[dict]:
    """Rows ``{figure, exact, simulated, se, z, verdict}`` for one mode.

    Parameters
    ----------
    exact : RoundResult
    sim : SimulationResult
    """
    rows = []
    feat = sum(float(f.frequency.value) for f in exact.features) if exact.base is not None else 1.0
    pairs = [
        ("RTP", exact.rtp, sim.rtp, sim.rtp_se),
        ("hit frequency", exact.hit_frequency, sim.hit_frequency, sim.hit_frequency_se),
        ("feature frequency", Figure(Fraction(feat)), sim.feature_frequency, sim.feature_frequency_se),
    ]
    for name, fig, s, se in pairs:
        e, err = float(fig.value), float(fig.error)
        # distance from the simulated value to the exact value, or to the
        # certified interval [e - err, e + err] of a bounded figure
        d = 0.0 if abs(s - e) <= err else (s - e) - (err if s > e else -err)
        if se > 0:
            z = d / se
            verdict = "ok" if abs(z) <= Z_LIMIT else "CHECK"
        else:
            z = 0.0 if d == 0 else float("inf")
            verdict = "ok" if d == 0 else "CHECK"
        rows.append({"figure": name, "exact": e, "exact_error": err, "exact_label": fig.label,
                     "simulated": s, "se": se, "z": z, "verdict": verdict})
    return rows


def run(args) -> int:
    from analytic.model.loader import load_model
    from analytic.simulator.runner import simulate
    from analytic.solver.round import solve_round

    if args.workers > 1:
        args_.require_extra("dask.distributed", "sim", "--workers above 1")
    game = load_model(args.model)
    modes = list(game.modes) if args.mode in (None, "all") else [args.mode]
    for m in modes:
        if m not in game.modes:
            from analytic.errors import ModelError  # one line, escaped, exit 2 (cli.main)

            raise ModelError(args.model, "modes", f"unknown bet mode {m!r} (known: {', '.join(game.modes)})")
    from analytic.workspace import Workspace, core_count

    ws = Workspace(game, workers=core_count())  # the modes share the solve's tables
    report = {}
    all_ok = True
    for m in modes:
        exact = solve_round(game, m, workspace=ws)
        sim = simulate(game, m, rounds=args.rounds, seed=args.seed, workers=args.workers,
                       progress=False if args.no_progress else None)
        rows = compare(exact, sim)
        all_ok &= all(r["verdict"] == "ok" for r in rows)
        report[m] = rows
    if args.format == "json":
        json.dump({"schema": "analytic.verify/1", "model": str(args.model), "rounds": args.rounds,
                   "seed": args.seed, "modes": report}, sys.stdout, indent=1)
        print()
    else:
        for m, rows in report.items():
            print(f"{game.name} — bet mode '{m}', {args.rounds:,} simulated rounds (seed {args.seed})")
            print(f"  {'figure':<20}{'exact':>14}{'simulated':>14}{'std err':>12}{'z':>8}  verdict")
            for r in rows:
                print(f"  {r['figure']:<20}{r['exact']:>14.8f}{r['simulated']:>14.8f}{r['se']:>12.3g}"
                      f"{r['z']:>8.2f}  {r['verdict']}")
    return 0 if all_ok else 4
