"""Benchmark: solve every bet mode of a model with ``drawn_expanding`` features (default the seed model).

``python -m analytic.bench.drawn_expanding [standard|certify] [--model PATH] [--workers N]``
(defaults: 'standard', ``models/book_of_power.toml``, the core count).
"""

from __future__ import annotations

import time

__all__ = ["main"]

from analytic.solver.round import solve_round as _solve_round


def _plain_round(game, mode, workspace=None):
    """The mode's round without cap or gamble (what the round solver hands its delegate)."""
    return _solve_round(game, mode, plain=True, workspace=workspace)


def main(path: str = "models/book_of_power.toml", precision: str = "standard", processes: int | None = None) -> float:
    """Solve all modes (and the Power Bet with "always gamble"); print figures; return seconds.

    ``precision``: the cap precision preset; ``processes``: worker processes (default: the core count).
    """
    from analytic.features.engines.drawn_expanding import draw_cap as rc
    from analytic.features.engines.drawn_expanding.engine import (_regular_and_power, bound_free_work, fair_gamble_probability,
                                                 solve_drawn_expanding_round)
    from analytic.features.engines.drawn_expanding.ladder_cap import power_cap_law
    from analytic.features.engines.drawn_expanding.draw_bounds import JOB_SECONDS, regular_cap_bounds, workers
    from analytic.features.engines.drawn_expanding.draw_cap import precision_preset
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats
    from analytic.model.loader import load_model
    from analytic.workspace import Workspace, core_count

    t0 = time.perf_counter()
    game = load_model(path)
    ws = Workspace(game, precision=precision, workers=processes or core_count())
    reg, pw = _regular_and_power(game)
    C = float(game.cap.total_bet_multiple)
    starts = sorted(set(game.features[reg].trigger.counts.values()))
    t = time.perf_counter()
    rc.line_expansion_rows(spin_stats(game, reg, ws))
    print(f"regular free spins: spin tables and the joint line walk: {time.perf_counter() - t:.1f} s")
    t = time.perf_counter()
    t_pw = []

    def power_law():  # in this process while the workers solve the regular bounds (as solve_rounds does)
        t1 = time.perf_counter()
        power_cap_law(game, pw, ws=ws)
        t_pw.append(time.perf_counter() - t1)
        bound_free_work(game, reg, pw, ws)  # (the rest of it: the features' moments and zero-win laws)
        t_pw.append(time.perf_counter() - t1 - t_pw[0])

    bounds = regular_cap_bounds(game, reg, starts, meanwhile=power_law, ws=ws)
    name, eps, levels = precision_preset(ws.precision)
    runs = rc.level_runs(levels)
    jobs = len(starts) * (len(runs) + 1)
    print(f"regular cap bounds, precision '{name}' ({len(starts)} starts: {len(levels)} comonotone levels "
          f"in {len(runs)} runs at eps {eps:g} and the lower bound each, {workers(jobs, ws.workers)} worker processes): "
          f"{time.perf_counter() - t:.1f} s")
    if t_pw:
        print(f"    {t_pw[0]:6.1f} s  meanwhile in this process: the Power Free Spins' spin tables and capped law,")
        print(f"    {t_pw[1]:6.1f} s  then both features' moments and zero-win laws")
    for (kind, n0, chunk), sec in sorted(ws.get(JOB_SECONDS, {}).items(), key=lambda kv: -kv[1]):
        what = "lower bound" if kind == "lower" else f"upper bounds, levels {chunk[0]:.4g}..{chunk[-1]:.4g}"
        spins = "/".join(str(n) for n in n0) if isinstance(n0, tuple) else str(n0)
        print(f"    {sec:6.1f} s  {spins} spins: {what}")
    for n0 in starts:
        b, lo = bounds[n0]
        print(f"  {n0:3d} spins: {b.states} grid + {b.mgf_states} MGF states over the levels, "
              f"E[(W - C)+] in [{lo.excess(0.0, C):.3g}, {b.excess(0.0, C):.3g}] bet, "
              f"P(W >= C) in [{lo.p_reach(0.0, C):.2g}, {b.p_reach(0.0, C):.2g}]")
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
    r = solve_drawn_expanding_round(game, "power_bet", plain=_plain_round(game, "power_bet", workspace=ws), gamble="always", ws=ws)
    cp, pc = r.extra["capped_rtp"], r.extra["p_reach_cap"]
    print(f"{'power_bet (always)':22s} q={float(r.extra['gamble_probability']):.6f} "
          f"capped [{float(cp.value - cp.error):.8f}, {float(cp.value + cp.error):.8f}] "
          f"P(cap) in [{float(pc.value - pc.error):.3e}, {float(pc.value + pc.error):.3e}]")
    q = fair_gamble_probability(game, ws=ws)
    print(f"fair gamble probability {float(q.value):.12f} +- {float(q.error):.1e}")
    dt = time.perf_counter() - t0
    print(f"total {dt:.1f} s")
    return dt


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Solve every bet mode of a drawn-expanding model (default the seed model) and print the figures.")
    ap.add_argument("precision", nargs="?", default="standard", choices=("standard", "certify"),
                    help="cap precision preset (default: standard)")
    ap.add_argument("--model", default="models/book_of_power.toml")
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: the core count)")
    a = ap.parse_args()
    main(a.model, a.precision, a.workers)
