"""Benchmark of the exact ways walk: ``python -m analytic.bench.ways``.

Prints the exact solve time (:func:`analytic.engine.base_game.solve_base`:
the joint ways walk with the scatter and trigger counters, the win
distribution, RTP, hit frequency and variance) of a 243-ways 5x3 game and a
3,125-ways 5x5 game, 40 stops per reel (102,400,000 stop combinations each;
nine paying symbols, a x2 wild on reels 2-4, a scatter), one-way and both
ways, with the brute-force oracle's time beside them
(:func:`analytic.engine.brute.brute_force` evaluates every stop combination
and every way one by one): timed on ``--brute-sample`` stop combinations
spread over the cycle and **projected** to the whole cycle, since a full
enumeration takes hours.  ``--check`` also runs the full brute force on the
same games cut to 8 stops per reel (32,768 combinations) and compares the
joint law integer for integer.

This is a command that prints figures, not a test: timings depend on the
machine.  The strips are laid out deterministically (nothing random).
"""

from __future__ import annotations

import argparse
import time

from analytic.engine.base_game import base_counters, solve_base
from analytic.engine.brute import window_ways_win
from analytic.model.game import Game
from analytic.model.loader import load_model_text
from analytic.tuner.layout import spread

__all__ = ["ways_game", "main"]

_NAMES = ["lion", "eagle", "wolf", "bear", "ace", "king", "queen", "jack", "ten", "wild", "coin"]
_PAYS = {
    "lion": {3: 40, 4: 100, 5: 400}, "eagle": {3: 30, 4: 80, 5: 250}, "wolf": {3: 20, 4: 60, 5: 150},
    "bear": {3: 15, 4: 40, 5: 100}, "ace": {3: 10, 4: 20, 5: 50}, "king": {3: 10, 4: 15, 5: 40},
    "queen": {3: 5, 4: 10, 5: 30}, "jack": {3: 5, 4: 10, 5: 25}, "ten": {3: 5, 4: 10, 5: 20},
}
_WEIGHTS = [2, 3, 3, 4, 5, 5, 6, 6, 6, 2, 2]


def _counts(stops: int, reel: int) -> dict[str, int]:
    """Symbol counts of one reel from the weights (largest remainders); no wild on reels 1 and 5."""
    w = [x + (1 if (i + reel) % 3 == 0 else 0) for i, x in enumerate(_WEIGHTS)]
    if reel in (0, 4):
        w[_NAMES.index("wild")] = 0
    total = sum(w)
    raw = [stops * x / total for x in w]
    c = [int(r) for r in raw]
    for i in sorted(range(len(w)), key=lambda i: c[i] - raw[i])[: stops - sum(c)]:
        c[i] += 1
    return {n: k for n, k in zip(_NAMES, c) if k}


def ways_game(rows: int, stops: int = 40, both: bool = False) -> Game:
    """A 5-reel ways game with ``rows`` rows (3: 243 ways, 5: 3,125) and ``stops`` stops per reel.

    Written as a model file and read by the loader (total bet 50 pay units).
    """
    strips = []
    for r in range(5):
        st = spread(_counts(stops, r))
        k = (7 * r) % stops
        strips.append(list(st[k:] + st[:k]))
    roles = {n: ('{ role = "wild", multiplier = 2 }' if n == "wild" else '"scatter"' if n == "coin" else '"regular"')
             for n in _NAMES}
    text = "\n".join([
        "[game]", f'name = "ways 5x{rows}"', "reels = 5", f"rows = {rows}", f"total_bet = {50 if rows == 3 else 500}",
        "[symbols]",
        *(f"{n} = {v}" for n, v in roles.items()),
        "[paytable]", *(f"{n} = {{ {', '.join(f'{c} = {p}' for c, p in v.items())} }}" for n, v in _PAYS.items()),
        "[scatter]", 'symbols = ["coin"]', "pays = { 3 = 2, 4 = 10, 5 = 50 }",
        "[paylines]", "ways = true", f"pays_both_ways = {'true' if both else 'false'}",
        "[reels]", "base = " + repr(strips).replace("'", '"'), ""])
    return load_model_text(text, "<bench>")


def _brute_rate(game: Game, sample: int) -> float:
    """Seconds per stop combination of the brute-force evaluation (ways win and counters), measured."""
    strips = game.reel_sets["base"]
    rows = game.rows
    wins = [[[s[(k + r) % len(s)] for r in range(rows)] for k in range(len(s))] for s in strips]
    counters = base_counters(game)
    step = max(1, game.cycle("base") // sample)
    n = 0
    t = time.perf_counter()
    for i in range(0, game.cycle("base"), step):
        idx, rest = [], i
        for s in reversed(wins):
            idx.append(rest % len(s))
            rest //= len(s)
        window = [w[j] for w, j in zip(wins, reversed(idx))]
        window_ways_win(game, window)
        for cd in counters:
            sum(1 for col in window for c in col if c in cd.symbols)
        n += 1
        if n >= sample:
            break
    return (time.perf_counter() - t) / n


def main(argv=None) -> int:
    from analytic.memory import use_small_pages

    use_small_pages()  # as the analytic command does (analytic/memory.py)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--brute-sample", type=int, default=2000, help="stop combinations the brute force is timed on")
    ap.add_argument("--check", action="store_true", help="full brute force on 8-stop versions, compared")
    args = ap.parse_args(argv)
    print("exact base game of a ways game, 5 reels x 40 stops (102,400,000 stop combinations)")
    print(f"{'game':>22} {'RTP':>11} {'outcomes':>9} {'exact solve s':>14} {'brute force (projected)':>24}")
    for rows, both in ((3, False), (3, True), (5, False), (5, True)):
        g = ways_game(rows, 40, both)
        t = time.perf_counter()
        r = solve_base(g)
        el = time.perf_counter() - t
        rate = _brute_rate(g, args.brute_sample)
        proj = rate * r.cycle
        name = f"{rows ** 5:,} ways 5x{rows}" + (" both" if both else "")
        print(f"{name:>22} {float(r.figures.mean):>10.4%} {len(r.distribution):>9} {el:>14.2f} "
              f"{proj / 3600:>18.1f} h (projected from {args.brute_sample} combinations, {rate * 1e6:.0f} us each)")
    if args.check:
        from analytic.engine.brute import brute_force
        from analytic.engine.linewalk import walk
        from analytic.engine.spin import build_spin

        for rows, both in ((3, False), (3, True), (5, True)):
            g = ways_game(rows, 8, both)
            cds = base_counters(g)
            t = time.perf_counter()
            bf = brute_force(g, "base", cds)
            el = time.perf_counter() - t
            t = time.perf_counter()
            table = walk(build_spin(g, "base", cds)).table
            ew = time.perf_counter() - t
            print(f"8 stops, 5x{rows}{' both' if both else ''}: brute force {el:.1f} s, walk {ew:.3f} s, "
                  f"identical joint law: {table == bf}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
