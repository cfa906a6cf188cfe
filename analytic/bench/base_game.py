"""Benchmark of the exact base-game walk: ``python -m analytic.bench.base_game``.

Prints the time and peak traced memory of the exact win distribution of a
5x3, 10-line game with a wild-scatter book symbol (Book of Ra-like paytable,
deterministic strips) at 32 and 100 stops per reel (33.5 million and 10^10 stop
combinations), and the time of a vectorised brute-force enumerator on the
32-stop game, which must produce the identical distribution.

This is a command that prints figures, not a test: timings depend on the
machine.  ``--no-brute`` skips the brute force (about a minute).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections import Counter

import numpy as np

from analytic.engine.linewalk import walk
from analytic.engine.spin import CounterDef, build_spin
from analytic.model.game import Game, Symbol
from analytic.tuner.layout import spread

__all__ = ["bench_game", "brute_force_vectorised", "main"]

_NAMES = ["explorer", "mummy", "statue", "scarab", "A", "K", "Q", "J", "T", "book"]
_PAYS = {
    "explorer": {2: 10, 3: 100, 4: 1000, 5: 5000}, "mummy": {2: 5, 3: 40, 4: 400, 5: 2000},
    "statue": {2: 5, 3: 30, 4: 100, 5: 750}, "scarab": {2: 5, 3: 30, 4: 100, 5: 750},
    "A": {3: 5, 4: 40, 5: 150}, "K": {3: 5, 4: 40, 5: 150}, "Q": {3: 5, 4: 25, 5: 100},
    "J": {3: 5, 4: 25, 5: 100}, "T": {3: 5, 4: 25, 5: 100},
}
_LINES = ((1, 1, 1, 1, 1), (0, 0, 0, 0, 0), (2, 2, 2, 2, 2), (0, 1, 2, 1, 0), (2, 1, 0, 1, 2),
          (1, 2, 2, 2, 1), (1, 0, 0, 0, 1), (2, 2, 1, 0, 0), (0, 0, 1, 2, 2), (2, 1, 1, 1, 0))
_WEIGHTS = [1, 2, 3, 3, 5, 5, 6, 6, 6, 2]


def _counts(stops: int, reel: int) -> dict[str, int]:
    """Symbol counts of one benchmark reel: proportional to the weights
    (largest remainders), shifted a little per reel so the reels differ."""
    w = [x + (1 if (i + reel) % 3 == 0 else 0) for i, x in enumerate(_WEIGHTS)]
    total = sum(w)
    raw = [stops * x / total for x in w]
    c = [int(r) for r in raw]
    for i in sorted(range(len(w)), key=lambda i: c[i] - raw[i])[: stops - sum(c)]:
        c[i] += 1
    return {n: k for n, k in zip(_NAMES, c) if k}


def bench_game(stops: int) -> Game:
    """The benchmark game with ``stops`` stops per reel.

    Strips are laid out deterministically (counts from the weights, spread
    evenly, each reel rotated differently): nothing random is involved.
    """
    syms = tuple(Symbol(n, i, "wild_scatter" if n == "book" else "regular") for i, n in enumerate(_NAMES))
    strips = []
    for r in range(5):
        st = spread(_counts(stops, r))
        k = (7 * r) % stops
        strips.append(st[k:] + st[:k])
    strips = tuple(strips)
    return Game("<bench>", f"bench {stops}", 5, 3, syms, _PAYS, _LINES, 10, {"base": strips})


def brute_force_vectorised(game: Game) -> dict[tuple[int, int], int]:
    """Every stop combination, vectorised over reels 3-5: ``(books, line win) -> count``.

    Independent of the walk: per payline and candidate, the run is the
    cumulative product of a support mask along the line.
    """
    names = list(game.symbol_names)
    sid = {n: i for i, n in enumerate(names)}
    strips = [np.array([sid[s] for s in st]) for st in game.reel_sets["base"]]
    rows = game.rows
    wins = [np.stack([np.roll(st, -r) for r in range(rows)], axis=1) for st in strips]  # (L, rows)
    cands = [c for c in names if c in game.paytable]
    book = sid["book"]
    support = np.zeros((len(cands), len(names)), dtype=bool)
    # int64 is safe: a spin's win is at most max pay x lines, checked below against the 40-bit key
    pay = np.zeros((len(cands), game.reels + 1), dtype=np.int64)
    for i, c in enumerate(cands):
        support[i, sid[c]] = True
        support[i, book] = True
        for n, p in game.paytable[c].items():
            pay[i, n] = p
    if int(pay.max(initial=0)) * len(game.lines) >= 1 << 40:  # the key below packs the win in 40 bits
        raise ValueError("engine benchmark: a spin's line win can reach 2^40 line bets; int64 keys would overflow")
    l3, l4, l5 = (len(s) for s in strips[2:])
    i3, i4, i5 = np.meshgrid(np.arange(l3), np.arange(l4), np.arange(l5), indexing="ij")
    tail = [wins[2][i3.ravel()], wins[3][i4.ravel()], wins[4][i5.ravel()]]  # each (M, rows)
    out: Counter = Counter()
    for w1 in wins[0]:
        for w2 in wins[1]:
            m = tail[0].shape[0]
            win = np.zeros(m, dtype=np.int64)
            grid = [np.broadcast_to(w1, (m, rows)), np.broadcast_to(w2, (m, rows))] + tail
            for line in game.lines:
                cells = np.stack([grid[r][:, row] for r, row in enumerate(line)], axis=1)
                best = np.zeros(m, dtype=np.int64)
                for i in range(len(cands)):
                    run = np.cumprod(support[i][cells], axis=1).sum(axis=1)
                    best = np.maximum(best, pay[i][run])
                win += best
            books = sum((g == book).sum(axis=1) for g in grid)
            key = books.astype(np.int64) * (1 << 40) + win
            u, c = np.unique(key, return_counts=True)
            for k, n in zip(u.tolist(), c.tolist()):
                out[(k >> 40, k & ((1 << 40) - 1))] += n
    return dict(out)


def _walk(game: Game):
    spec = build_spin(game, "base", [CounterDef("books", frozenset({"book"}))])
    tracemalloc.start()
    t = time.perf_counter()
    dist = walk(spec)
    elapsed = time.perf_counter() - t
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return dist, elapsed, peak


def main(argv=None) -> int:
    from analytic.memory import use_small_pages

    use_small_pages()  # as the analytic command does (analytic/memory.py)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-brute", action="store_true", help="skip the brute-force enumerator")
    args = ap.parse_args(argv)
    print("exact win distribution, 5x3, 10 lines, wild-scatter book")
    print(f"{'stops/reel':>10} {'cycle':>16} {'outcomes':>9} {'time s':>8} {'peak MiB':>9}")
    dists = {}
    for stops in (32, 100):
        g = bench_game(stops)
        dist, el, peak = _walk(g)
        dists[stops] = dist
        print(f"{stops:>10} {dist.cycle:>16,} {len(dist.table):>9} {el:>8.3f} {peak / 2**20:>9.1f}")
    if not args.no_brute:
        g = bench_game(32)
        t = time.perf_counter()
        bf = brute_force_vectorised(g)
        el = time.perf_counter() - t
        walked = Counter()
        for (books, _lt, win), n in dists[32].table.items():
            walked[(books, win)] += n
        same = dict(walked) == bf
        print(f"brute force (vectorised numpy), 32 stops: {el:.2f} s; identical distribution: {same}")
        _, t32, _ = _walk(g)
        print(f"speed-up of the walk over brute force at 32 stops: {el / t32:,.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
