"""Benchmark: solve every bet mode of a model with ``drawn_expanding`` features (default the seed model).

``python -m analytic.bench.drawn_expanding [quick|standard|certify] [--model PATH] [--workers N]``
(defaults: 'standard', ``models/book_of_power.toml``, the core count).

What it runs is what :func:`analytic.solver.round.solve_game` runs: the
engine's prefetch (the regular feature's cap bounds in worker processes, on
the bounding games of the literal reading where the model has it, while this
process builds the Power feature's capped law and both features' moments),
then every mode; then the Power Bet with "always gamble" and the fair gamble
probability.  It prints each part's wall seconds, the worker jobs' seconds,
and the whole run's CPU seconds (this process and its reaped workers).
"""

from __future__ import annotations

import resource
import time

__all__ = ["main"]

from analytic.solver.round import solve_round as _solve_round


def _plain_round(game, mode, workspace=None):
    """The mode's round without cap or gamble (what the round solver hands its delegate)."""
    return _solve_round(game, mode, plain=True, workspace=workspace)


def _cpu() -> float:
    """CPU seconds (user + system) of this process and of its reaped child processes."""
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def main(path: str = "models/book_of_power.toml", precision: str = "standard", processes: int | None = None) -> float:
    """Solve all modes (and the Power Bet with "always gamble"); print figures; return seconds.

    ``precision``: the cap precision preset; ``processes``: worker processes (default: the core count).
    """
    from analytic.memory import use_small_pages

    use_small_pages()  # as the analytic command does (analytic/memory.py)
    from analytic.features.engines.drawn_expanding.draw_bounds import JOB_SECONDS, workers
    from analytic.features.engines.drawn_expanding.draw_cap import WITH_LOWER, level_runs, precision_preset
    from analytic.features.engines.drawn_expanding.engine import (_regular_and_power, _regular_cap_bounds,
                                                                  bound_free_work, fair_gamble_probability,
                                                                  solve_drawn_expanding_round)
    from analytic.features.engines.drawn_expanding.ladder_cap import power_cap_law
    from analytic.features.engines.drawn_expanding.line_sets import bounding_workspace, literal_draws
    from analytic.model.loader import load_model
    from analytic.workspace import Workspace, core_count

    t0, c0 = time.perf_counter(), _cpu()
    game = load_model(path)
    ws = Workspace(game, precision=precision, workers=processes or core_count())
    reg, pw = _regular_and_power(game)
    C = float(game.cap.total_bet_multiple)
    starts = sorted(set(game.features[reg].trigger.counts.values()))
    t = time.perf_counter()
    t_pw = []

    def power_law():  # in this process while the workers solve the regular bounds (as solve_rounds does)
        t1, c1 = time.perf_counter(), time.process_time()
        power_cap_law(game, pw, ws=ws, threads=1)
        t_pw.append((time.perf_counter() - t1, time.process_time() - c1))
        bound_free_work(game, reg, pw, ws)  # (the rest of it: the features' moments and zero-win laws)
        t_pw.append((time.perf_counter() - t1 - t_pw[0][0], time.process_time() - c1 - t_pw[0][1]))

    bounds = _regular_cap_bounds(game, reg, starts, ws, meanwhile=power_law)
    name, eps, levels = precision_preset(ws.precision)
    runs = level_runs(levels)
    lower = name in WITH_LOWER
    jobs = len(runs) + len(starts) * lower
    print(f"regular cap bounds, precision '{name}' ({len(starts)} starts: {len(levels)} comonotone levels "
          f"in {len(runs)} run(s) at eps {eps:g}, "
          f"{'and the lower bound of each start' if lower else 'no lower bound'}; "
          f"{workers(jobs, ws.workers)} worker processes): {time.perf_counter() - t:.1f} s")
    if t_pw:
        print(f"    {t_pw[0][0]:6.1f} s  ({t_pw[0][1]:5.1f} s CPU) meanwhile in this process: the Power Free Spins' "
              "spin tables and capped law,")
        print(f"    {t_pw[1][0]:6.1f} s  ({t_pw[1][1]:5.1f} s CPU) then both features' moments and zero-win laws")
    sides = ([bounding_workspace(ws, reg, "upper"), bounding_workspace(ws, reg, "lower")]
             if literal_draws(game, reg) else [ws])
    for side in sides:
        for (kind, n0, chunk), (sec, cpu) in sorted(side.get(JOB_SECONDS, {}).items(), key=lambda kv: -kv[1][0]):
            what = "lower bound" if kind == "lower" else f"upper bounds, levels {chunk[0]:.4g}..{chunk[-1]:.4g}"
            spins = "/".join(str(n) for n in n0) if isinstance(n0, tuple) else str(n0)
            print(f"    {sec:6.1f} s  ({cpu:5.1f} s CPU) job, {spins} spins: {what}")
    for n0 in starts:
        b, lo = bounds[n0]
        e_lo, p_lo = (lo.excess(0.0, C), lo.p_reach(0.0, C)) if lo is not None else (0.0, 0.0)
        print(f"  {n0:3d} spins: {b.states} grid + {b.mgf_states} MGF states over the levels, "
              f"E[(W - C)+] in [{e_lo:.3g}, {b.excess(0.0, C):.3g}] bet, "
              f"P(W >= C) in [{p_lo:.2g}, {b.p_reach(0.0, C):.2g}]")
    print(f"prefetch: {time.perf_counter() - t:.1f} s")
    for mode in game.modes:
        t = time.perf_counter()
        r = solve_drawn_expanding_round(game, mode, plain=_plain_round(game, mode, workspace=ws), ws=ws)
        dt_mode = time.perf_counter() - t
        u = r.extra.get("uncapped_rtp", r.rtp)
        cp = r.extra.get("capped_rtp")
        pc = r.extra.get("p_reach_cap")
        print(f"{mode:22s} RTP {float(u.value):.8f} +- {float(u.error):.1e} ({u.label}) "
              f"sd {r.sd:.3f} m2 +- {float(r.second_moment.error / r.cost**2):.2g} "
              f"capped [{float(cp.value - cp.error):.6f}, {float(cp.value + cp.error):.6f}] "
              f"(width {float(2 * cp.error):.3g}) P(cap) <= {float(pc.value + pc.error):.2e}  [{dt_mode:.1f} s]")
    t = time.perf_counter()
    r = solve_drawn_expanding_round(game, "power_bet", plain=_plain_round(game, "power_bet", workspace=ws),
                                    gamble="always", ws=ws)
    cp, pc = r.extra["capped_rtp"], r.extra["p_reach_cap"]
    print(f"{'power_bet (always)':22s} q={float(r.extra['gamble_probability']):.6f} "
          f"capped [{float(cp.value - cp.error):.8f}, {float(cp.value + cp.error):.8f}] "
          f"P(cap) in [{float(pc.value - pc.error):.3e}, {float(pc.value + pc.error):.3e}]  "
          f"[{time.perf_counter() - t:.1f} s]")
    q = fair_gamble_probability(game, ws=ws)
    print(f"fair gamble probability {float(q.value):.12f} +- {float(q.error):.1e}")
    dt = time.perf_counter() - t0
    print(f"total {dt:.1f} s wall, {_cpu() - c0:.1f} s CPU (this process and its workers)")
    return dt


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Solve every bet mode of a drawn-expanding model (default the seed model) "
                                             "and print the figures.")
    from analytic.workspace import CAP_PRECISIONS

    ap.add_argument("precision", nargs="?", default="standard", choices=CAP_PRECISIONS,
                    help="cap precision preset (default: standard)")
    ap.add_argument("--model", default="models/book_of_power.toml")
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: the core count)")
    a = ap.parse_args()
    main(a.model, a.precision, a.workers)
