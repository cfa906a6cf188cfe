"""``analytic verify MODEL --rounds N``: the solver against the simulator.

Solves each bet mode exactly and simulates it with the independent
spin-by-spin simulator, then prints every figure side by side with the
standard error of the simulated figure if the exact one is true (the exact
standard deviation of the round win over ``sqrt(n)`` for the RTP,
``sqrt(p (1 - p) / n)`` for a frequency ``p``; for a bounded figure the
largest over its certified interval; the sample's own standard error only
where those are 0 or unknown: a sample's is 0 when every round lost, or no
feature started, which made a true solver look wrong), the z-score
``(simulated - exact) / se`` (for a bounded figure, the distance to its
certified interval over ``se``) and a
verdict: ``ok`` when ``|z| <= 3.29`` (the 99.9 % two-sided band), else
``CHECK``.

Where the solver has the round's law (:func:`analytic.solver.distribution.round_law`),
the simulated round wins are also tested against it
(:func:`analytic.solver.exceedance.law_test`: Pearson's chi-square on the
bins of the exceedance ladder, merged to at least 5 expected rounds each;
a bin ``[a, b)`` holds the wins ``a <= win < b``, as ``P(win >= x)`` counts them,
where the par sheet's distribution rows are ``(a, b]``: the line says so, see
:data:`BIN_CONVENTION`):
the test, its bins, statistic, degrees of freedom and p-value are printed, with
the verdict ``ok`` when ``p >= 0.001`` (the same 99.9 % level) and no win the
exact law forbids was seen, else ``CHECK``.  A mode without a law whose
solver bounds ``P(R >= x)`` at every threshold (``extra["round_tail"]``)
gets the binomial interval test instead
(:func:`analytic.solver.exceedance.interval_test`: per threshold of the
ladder the count of rounds with win ``>= x`` against ``Binomial(n, p)`` for
the most favourable ``p`` in the certified interval, Bonferroni over the
thresholds), same level and verdicts.  Any other mode without a law prints
why and is not tested (its verdicts are the figures' alone), as does a chi-square whose bins merge
into one (too few rounds: no degree of freedom).  Exit code 0
when every verdict is ok, 4 otherwise.
"""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction

from analytic.cli import args as args_
from analytic.figures import Figure
from analytic.limits import MAX_ROUNDS
from analytic.reports.format import bound_text

__all__ = ["BIN_CONVENTION", "add_parser", "run", "compare", "table_lines", "check_law", "law_text"]

Z_LIMIT = 3.2905267314919255  # 99.9 % two-sided

#: How the law test's bins read (printed with them, and the JSON's ``bin_convention``): the ladder's
#: ``[a, b)``, where the par sheet's win-distribution rows are ``(a, b]`` (a win of exactly 2 is in
#: the test's ``[2, 5)`` and in the sheet's ``(1, 2]``).
BIN_CONVENTION = "[a, b) is a <= win < b, as P(win >= x); the par sheet's distribution rows are (a, b]"


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
    n = max(int(getattr(sim, "rounds", 0) or 0), 1)
    for name, fig, s, se in pairs:
        e, err = float(fig.value), float(fig.error)
        se0 = _null_se(exact, n) if name == "RTP" else _frequency_se(e, err, n)
        if se0 > 0:
            se = se0
        # distance from the simulated value to the exact value, or to the
        # certified interval [e - err, e + err] of a bounded figure
        d = 0.0 if abs(s - e) <= err else (s - e) - (err if s > e else -err)
        if se > 0:
            z = d / se
            verdict = "ok" if abs(z) <= Z_LIMIT else "CHECK"
        else:  # no spread at all: any distance is a CHECK (z None: JSON has no infinity)
            z = 0.0 if d == 0 else None
            verdict = "ok" if d == 0 else "CHECK"
        rows.append({"figure": name, "exact": e, "exact_error": err, "exact_label": fig.label,
                     "simulated": s, "se": se, "z": z, "verdict": verdict})
    return rows


def _frequency_se(p: float, err: float, n: int) -> float:
    """Standard error of the share of ``n`` rounds with probability ``p`` (within ``err``): the
    largest ``sqrt(q (1 - q) / n)`` over ``q`` in ``[p - err, p + err]`` clipped to [0, 1]."""
    lo, hi = max(p - err, 0.0), min(p + err, 1.0)
    q = min(max(0.5, lo), hi) if lo <= hi else min(max(p, 0.0), 1.0)
    return math.sqrt(max(q * (1 - q), 0.0) / n)


def _null_se(exact, n: int) -> float:
    """Standard error of the simulated RTP of ``n`` rounds if the solver's law is true: the round
    win's standard deviation per unit staked (the upper end of a bounded variance) over ``sqrt(n)``;
    0 when the solver has no finite variance."""
    try:
        v = exact.variance_figure
        var = float(v.value + v.error)
    except (AttributeError, TypeError, ValueError, ZeroDivisionError, OverflowError):
        return 0.0
    return math.sqrt(var / n) if math.isfinite(var) and var > 0 else 0.0


def run(args) -> int:
    from analytic.model.loader import load_model
    from analytic.simulator.runner import simulate
    from analytic.solver.round import solve_rounds

    args_.check_local_workers(args.workers)  # a local cluster: its processes run on this machine
    if args.workers > 1:
        args_.require_extra("dask.distributed", "sim", "--workers above 1")
    game = load_model(args.model)
    modes = list(game.modes) if args.mode in (None, "all") else [args.mode]
    for m in modes:
        if m not in game.modes:
            from analytic.errors import (
                ModelError,  # one line, escaped, exit 2 (cli.main)
            )

            raise ModelError(args.model, "modes", f"unknown bet mode {m!r} (known: {', '.join(game.modes)})")
    from analytic.workspace import Workspace, core_count

    ws = Workspace(game, workers=core_count())  # the modes share the solve's tables
    from analytic.solver.round import check_round

    for m in modes:  # every mode's refusals before any solve or simulation
        check_round(game, m, ws)
    from analytic.simulator.evaluate import compile_tables

    compile_tables(game)  # and the simulator's (a game whose wins do not fit its integers)
    report = {}
    laws = {}
    all_ok = True
    solved = dict(zip(modes, solve_rounds(game, modes, workspace=ws)))  # (with the round's prefetch, as `solve`)
    for m in modes:
        exact = solved[m]
        sim = simulate(game, m, rounds=args.rounds, seed=args.seed, workers=args.workers,
                       progress=False if args.no_progress else None)
        rows = compare(exact, sim)
        all_ok &= all(r["verdict"] == "ok" for r in rows)
        report[m] = rows
        laws[m] = check_law(exact, sim)
        all_ok &= laws[m]["verdict"] in ("ok", "not tested")
    if args.format == "json":
        json.dump({"schema": "analytic.verify/1", "model": str(args.model), "rounds": args.rounds,
                   "seed": args.seed, "modes": report, "laws": laws}, sys.stdout, indent=1)
        print()
    else:
        for m, rows in report.items():
            print(f"{game.name} — bet mode '{m}', {args.rounds:,} simulated rounds (seed {args.seed})")
            for line in table_lines(rows):
                print(line)
            for r in rows:  # a bounded figure's column value is its centre: say so, with its error
                if r["exact_label"] != "exact":
                    print(f"  ({r['figure']}: bounded, the centre of an interval certified within +/- "
                          f"{bound_text(r['exact_error'])}; z is the distance to that interval)")
            print("  " + law_text(laws[m]))
    return 0 if all_ok else 4


#: The table's columns: heading, minimum width and how a row's value is written (right-aligned).
_COLUMNS = (("exact", 14, lambda r: f"{r['exact']:.8f}"),
            ("simulated", 14, lambda r: f"{r['simulated']:.8f}"),
            ("std err", 12, lambda r: f"{r['se']:.3g}"),
            ("z", 8, lambda r: "inf" if r["z"] is None else f"{r['z']:.2f}"))


def table_lines(rows: list[dict]) -> list[str]:
    """The table of one mode's :func:`compare` rows: a heading line, then one line per row.

    Each number column is right-aligned and at least as wide as the table has always been
    (14, 14, 12, 8 characters); a column holding a longer value (an RTP of 10^15, a z of
    10^6) widens so that two spaces still separate it from the column before it, so no two
    values ever touch.

    Parameters
    ----------
    rows : list of dict
        Rows of :func:`compare` (keys ``figure``, ``exact``, ``simulated``, ``se``, ``z``,
        ``verdict``).

    Returns
    -------
    list of str
        ``1 + len(rows)`` lines, each starting with two spaces.
    """
    cells = [[show(r) for _, _, show in _COLUMNS] for r in rows]
    widths = [max([width] + [len(c[i]) + 2 for c in cells]) for i, (_, width, _) in enumerate(_COLUMNS)]
    lines = ["  " + f"{'figure':<20}" + "".join(f"{h:>{w}}" for (h, _, _), w in zip(_COLUMNS, widths))
             + "  verdict"]
    for r, c in zip(rows, cells):
        lines.append(f"  {r['figure']:<20}" + "".join(f"{v:>{w}}" for v, w in zip(c, widths)) + f"  {r['verdict']}")
    return lines


def check_law(exact, sim) -> dict:
    """The law test of one mode as a JSON-ready dict (``verdict`` ``"not tested"`` with a ``reason``
    when the round has no law).

    Parameters
    ----------
    exact : RoundResult
    sim : SimulationResult
        Its ``win_counts`` (round win in total-bet multiples -> rounds) are tested.
    """
    from analytic.solver.cap import applied_cap
    from analytic.solver.exceedance import MIN_EXPECTED, law_test

    law = _law(exact)
    tail = exact.extra.get("round_tail") if exact.extra else None
    if law.points is None and tail is not None:  # bounds of P(R >= x) per threshold: the interval test
        from analytic.solver.exceedance import interval_exceedance, interval_test

        ex = interval_exceedance(tail, applied_cap(exact))
        out = interval_test(ex, sim.win_counts).to_dict()
        out["gap"] = float(ex.gap)
        return out
    if law.points is None:
        return {"test": None, "reason": law.reason, "verdict": "not tested"}
    out = law_test(law, sim.win_counts, applied_cap(exact)).to_dict()
    if out["df"] == 0 and not out["impossible"]:  # one bin: no law can fail it, so it tests nothing
        n = sum(out["observed"])
        return {"test": None, "verdict": "not tested",
                "reason": f"{n:,} rounds are too few: merged to at least {MIN_EXPECTED:g} expected rounds a bin, "
                          f"the ladder's bins make one bin, a chi-square without a degree of freedom; give more "
                          f"--rounds"}
    out["bin_convention"] = BIN_CONVENTION
    out["law_error"] = float(law.error)
    return out


def _law(exact):
    """The round's law of a solved mode (one place, so a test can hand ``verify`` a wrong law)."""
    from analytic.solver.distribution import round_law

    return round_law(exact)


def law_text(d: dict) -> str:
    """One line of the table output for a :func:`check_law` dict."""
    if d["test"] is None:
        return f"round-win law: not tested ({d['reason']})"
    if d["test"].startswith("binomial interval"):
        return (f"round-win law: {d['test']} on P(win >= x) at {d['df']} thresholds (certified bounds, gap "
                f"at most {bound_text(d['gap'])}), smallest p-value {d['statistic']:.4g}, p-value {d['p_value']:.4g}"
                f"  {d['verdict']}")
    extra = f", {d['impossible']:,} rounds with a win the exact law forbids" if d["impossible"] else ""
    return (f"round-win law: {d['test']} on {len(d['bins'])} bins ({', '.join(d['bins'])}; {BIN_CONVENTION}), "
            f"statistic {d['statistic']:.3f}, df {d['df']}, p-value {d['p_value']:.4g}{extra}  {d['verdict']}")
