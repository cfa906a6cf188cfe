"""Study: where to put the comonotone levels (``python -m analytic.bench.drawn_expanding_levels``).

Prints the upper bound of the cap's cut (``E[(W - C)+]``, total-bet multiples, per trigger) of the
regular Free Spins at every candidate level, and the level sets of 10 ... 22 levels that minimise the
mixture's upper Riemann sum (weighted over the starts by the Buy Free Spins' trigger counts), found by
a dynamic programme over the candidates.  This is how :data:`~analytic.features.engines.drawn_expanding.draw_cap.LEVELS`
and ``LEVELS_STANDARD`` were chosen; any increasing levels ending at 1 give a valid bound.

Candidates: the steps of the quantiles of ``Bin(k, 1/g)`` for ``k <= 12`` at or above 0.45 (``g``
the size of the mixture's group; between steps a level's bound is constant), the grid
``1 - 10^-x``, ``x = 0.3, 0.45, ..., 5.4``, and the round levels used before (:data:`ROUND`).  About ten minutes on the 2-core machine.
Arguments: ``[MODEL] [--workers N]`` (default ``models/book_of_power.toml``, the core count).
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

__all__ = ["candidates", "best_levels", "main", "ROUND"]

#: The round levels used before the study (10 'standard', 19 'certify').
ROUND = (0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99, 0.995, 0.997, 0.998, 0.999, 0.9995, 0.9997, 0.9999,
         0.99995, 0.99999)


def candidates(members: int, kmax: int = 12, floor: float = 0.45) -> list[float]:
    """Candidate levels (sorted floats in ``(0, 1]``, ending at 1): quantile steps, a log grid, round levels."""
    from analytic.features.engines.drawn_expanding.draw_cap import binomial_step

    q = Fraction(1, members)
    pts = {1.0} | {float(1 - 10 ** -x) for x in np.arange(0.3, 5.41, 0.15)} | set(ROUND)
    pts |= {x for k in range(1, kmax + 1) for j in range(k) if (x := binomial_step(k, j, q)) >= floor}
    return sorted(pts)


def best_levels(levels, values, m: int) -> tuple[float, tuple]:
    """The ``m`` levels among ``levels`` (increasing, ending at 1) minimising the upper Riemann sum.

    ``values[i]``: the (increasing) integrand at ``levels[i]``.  The last level is always kept (the sum
    must reach 1).  Returns ``(sum, chosen levels)``; ``O(n^2 m)`` dynamic programme.
    """
    c = np.asarray(levels, dtype=float)
    g = np.asarray(values, dtype=float)
    n = len(c)
    best = np.full((m + 1, n), np.inf)
    arg = np.zeros((m + 1, n), dtype=int)
    best[1] = c * g
    for k in range(2, m + 1):
        for i in range(1, n):
            cand = best[k - 1, :i] + (c[i] - c[:i]) * g[i]
            j = int(np.argmin(cand))
            best[k, i], arg[k, i] = cand[j], j
    k = min(m, n)
    i, chosen = n - 1, []
    while k >= 1:
        chosen.append(i)
        i, k = arg[k, i], k - 1
    return float(best[min(m, n), n - 1]), tuple(float(c[i]) for i in sorted(chosen))


#: In a worker process only: the workspace of the model it loaded (the initializer's argument).
_WORKER_WS: list = []
_LIMITS = None


def _init(path):
    global _LIMITS
    from threadpoolctl import threadpool_limits

    from analytic.model.loader import load_model
    from analytic.workspace import Workspace

    _WORKER_WS[:] = [Workspace(load_model(path))]
    _LIMITS = threadpool_limits(limits=1)


def _run(job):
    from analytic.features.engines.drawn_expanding import draw_cap as rc
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats

    feature, n0, run, eps = job
    ws = _WORKER_WS[0]
    groups = rc.mixture_groups(spin_stats(ws.game, feature, ws))
    res = rc.regular_cap_bound_levels(ws.game, feature, n0, list(run), groups=groups, eps=eps, ws=ws)
    C = float(ws.game.cap.total_bet_multiple)
    return n0, {lv: b.excess(0.0, C) for lv, b in zip(run, res)}


def main(path: str = "models/book_of_power.toml", processes: int | None = None) -> None:
    """Print the per-level bounds and the best level sets of the shipped model's regular Free Spins.

    ``processes``: worker processes (default: the core count).
    """
    from analytic.memory import use_small_pages

    use_small_pages()  # as the analytic command does (analytic/memory.py)
    from concurrent.futures import ProcessPoolExecutor

    from analytic.features.engines.drawn_expanding import draw_cap as rc
    from analytic.features.engines.drawn_expanding.engine import _regular_and_power
    from analytic.features.engines.drawn_expanding.draw_bounds import workers
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats
    from analytic.model.loader import load_model
    from analytic.workspace import core_count

    t0 = time.perf_counter()
    game = load_model(path)
    reg, _pw = _regular_and_power(game)
    groups = rc.mixture_groups(spin_stats(game, reg))
    cand = candidates(max(len(g) for g in groups))
    eps = rc.PRESETS["standard"][0]
    starts = sorted(set(game.features[reg].trigger.counts.values()))
    runs = rc.level_runs(cand, 9)
    jobs = [(reg, n0, run, eps) for n0 in starts for run in runs]
    vals: dict = {n0: {} for n0 in starts}
    with ProcessPoolExecutor(workers(len(jobs), processes or core_count()), initializer=_init,
                             initargs=(path,)) as pool:
        for n0, out in pool.map(_run, jobs):
            vals[n0].update(out)
    buy = next((m.buy_counts for m in game.modes.values() if m.buys == reg), None)
    counts = game.features[reg].trigger.counts
    w = {n0: 0.0 for n0 in starts}
    for c, n in counts.items():
        w[n] += float(buy.get(c, 0) if buy else 1)
    tot = sum(w.values())
    obj = [sum(w[n0] / tot * vals[n0][lv] for n0 in starts) for lv in cand]
    print(f"{len(cand)} candidate levels, eps {eps:g}, starts {starts} (weights "
          + ", ".join(f"{w[n0] / tot:.3f}" for n0 in starts) + ")")
    for lv, o in zip(cand, obj):
        print(f"  {lv!r:22s} " + " ".join(f"{vals[n0][lv]:.4g}" for n0 in starts) + f"  weighted {o:.4g}")
    for name, lv in (("standard", rc.LEVELS_STANDARD), ("certify", rc.LEVELS)):
        if all(x in vals[starts[0]] for x in lv):
            _s, _ = best_levels(lv, [obj[cand.index(x)] for x in lv], len(lv))
            print(f"preset {name} ({len(lv)} levels): {_s:.4g}")
    for m in (10, 12, 14, 16, 18, 20, 22):
        s, lv = best_levels(cand, obj, m)
        print(f"{m} levels: {s:.4g}  ({', '.join(repr(x) for x in lv)})")
    print(f"total {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Where to put the comonotone levels (Book of Power regular Free Spins).")
    ap.add_argument("model", nargs="?", default="models/book_of_power.toml")
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: the core count)")
    a = ap.parse_args()
    main(a.model, a.workers)
