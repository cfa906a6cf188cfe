"""Benchmark of the joint line walk against the number of paylines: ``python -m analytic.bench.lines``.

Prints issue 24's table: a 64-stop 5x3 game with a Book of Ra-like paytable
(book = wild scatter, three books start ten free spins with a drawn
expanding symbol, retriggered), at 10, 20, 50 and 99 paylines, solved as the
base game alone (:func:`analytic.engine.base_game.solve_base`) and as the whole
round with its expanding-symbol free spins
(:func:`analytic.solver.round.solve_round`).  Each row runs in a fresh
process (``--row LINES base|free``); the table shows the median over
``--runs`` runs of the solve's in-process wall time (model building and
imports excluded), the whole process's CPU time and its peak resident memory
(imports included, the operating system's own accounting of the finished
child).  ``--workers N`` walks the free spins' expanding-symbol states in
``N`` threads (:func:`analytic.features.engines.wald_spins.state_outcomes`).

The models are written here, deterministically (strips laid out from symbol
weights, the first paylines of a fixed enumeration); nothing is read from
disk and nothing random is involved.  This is a command that prints figures,
not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import time

__all__ = ["paylines", "model_text", "main"]

_NAMES = ["explorer", "mummy", "statue", "scarab", "ace", "king", "queen", "jack", "ten", "book"]
_PAYS = {
    "explorer": {2: 10, 3: 100, 4: 1000, 5: 5000}, "mummy": {2: 5, 3: 40, 4: 400, 5: 2000},
    "statue": {2: 5, 3: 30, 4: 100, 5: 750}, "scarab": {2: 5, 3: 30, 4: 100, 5: 750},
    "ace": {3: 5, 4: 40, 5: 150}, "king": {3: 5, 4: 40, 5: 150}, "queen": {3: 5, 4: 25, 5: 100},
    "jack": {3: 5, 4: 25, 5: 100}, "ten": {3: 5, 4: 25, 5: 100},
}
_FIRST = ((1, 1, 1, 1, 1), (0, 0, 0, 0, 0), (2, 2, 2, 2, 2), (0, 1, 2, 1, 0), (2, 1, 0, 1, 2),
          (1, 2, 2, 2, 1), (1, 0, 0, 0, 1), (2, 2, 1, 0, 0), (0, 0, 1, 2, 2), (2, 1, 1, 1, 0))
_WEIGHTS = [1, 2, 3, 3, 5, 5, 6, 6, 6, 2]
STOPS = 64
LINE_COUNTS = (10, 20, 50, 99)


def paylines(n: int) -> tuple[tuple[int, ...], ...]:
    """The first ``n`` paylines: the ten classic ones, then every row pattern
    whose consecutive rows differ by at most one, in lexical order."""
    out = list(_FIRST)
    for p in itertools.product(range(3), repeat=5):
        if len(out) >= n:
            break
        if p not in out and all(abs(a - b) <= 1 for a, b in zip(p, p[1:])):
            out.append(p)
    if len(out) < n:
        raise ValueError(f"only {len(out)} paylines available")
    return tuple(out[:n])


def _strip(stops: int, reel: int, shift: int) -> list[str]:
    from analytic.tuner.layout import spread

    w = [x + (1 if (i + reel + shift) % 3 == 0 else 0) for i, x in enumerate(_WEIGHTS)]
    total = sum(w)
    raw = [stops * x / total for x in w]
    c = [int(r) for r in raw]
    for i in sorted(range(len(w)), key=lambda i: c[i] - raw[i])[: stops - sum(c)]:
        c[i] += 1
    st = list(spread({n: k for n, k in zip(_NAMES, c) if k}))
    k = (7 * reel + shift) % stops
    return st[k:] + st[:k]


def model_text(lines: int, stops: int = STOPS) -> str:
    """TOML text of the benchmark game with ``lines`` paylines (total bet = lines)."""
    def q(xs):
        return "[" + ", ".join(f'"{x}"' for x in xs) + "]"

    out = ["[game]", f'name = "line benchmark {lines}"', "reels = 5", "rows = 3", f"total_bet = {lines}", "",
           "[symbols]"]
    out += [f'{n} = "regular"' for n in _NAMES[:-1]] + ['book = { role = "wild_scatter" }', "", "[paytable]"]
    out += [f"{n} = {{ " + ", ".join(f"{k} = {v}" for k, v in p.items()) + " }" for n, p in _PAYS.items()]
    out += ["", "[scatter]", 'symbols = ["book"]', "pays = { 3 = 2, 4 = 20, 5 = 200 }", "", "[paylines]"]
    out += ["lines = [" + ", ".join("[" + ", ".join(map(str, l)) + "]" for l in paylines(lines)) + "]", ""]
    out += ["[reels]", "base = ["] + [f"  {q(_strip(stops, r, 0))}," for r in range(5)] + ["]", "free = ["]
    out += [f"  {q(_strip(stops, r, 1))}," for r in range(5)] + ["]", ""]
    out += ["[modes.base]", "cost = 1", 'reels = "base"', "", "[features.free_spins]", 'kind = "free_spins"',
            'reels = "free"', 'trigger = { symbols = ["book"], counts = { 3 = 10, 4 = 10, 5 = 10 } }',
            'retrigger = { symbols = ["book"], counts = { 3 = 10, 4 = 10, 5 = 10 } }',
            "expanding_symbol = { choose_from = " + q(_NAMES[:-1]) + " }", "", "[rules]",
            'line_wild_pay = "first_non_wild"', 'expanding_count = "cells"', 'expanding_line_win = "wild_led_only"', ""]
    return "\n".join(out)


def _row(lines: int, kind: str, workers: int = 1) -> None:
    from analytic.model.loader import load_model_text
    from analytic.workspace import Workspace

    game = load_model_text(model_text(lines), f"<bench {lines} lines>")
    t = time.perf_counter()
    if kind == "base":
        from analytic.engine.base_game import solve_base

        r = solve_base(game)
        rtp = r.line_rtp + r.scatter_rtp
    else:
        from analytic.solver.round import solve_round

        r = solve_round(game, workspace=Workspace(game, workers=workers))
        rtp = r.rtp.value
    el = time.perf_counter() - t
    cpu = time.process_time()
    print(f"{el:.6f} {cpu:.6f} {rtp}")


def _run_child(lines: int, kind: str, workers: int = 1) -> tuple[float, float, str]:
    p = subprocess.Popen([sys.executable, "-m", "analytic.bench.lines", "--row", str(lines), kind,
                          "--workers", str(workers)], stdout=subprocess.PIPE, text=True)
    out = p.stdout.read()
    p.stdout.close()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        raise SystemExit(f"benchmark row {lines} {kind} failed (exit {p.returncode})")
    el, _cpu, rtp = out.split(None, 2)
    return float(el), ru.ru_maxrss / 1024, rtp.strip(), ru.ru_utime + ru.ru_stime


def main(argv=None) -> int:
    from analytic.memory import use_small_pages

    use_small_pages()  # as the analytic command does (analytic/memory.py)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="runs per row (median shown; default 3)")
    ap.add_argument("--lines", type=int, nargs="*", default=list(LINE_COUNTS), help="payline counts")
    ap.add_argument("--kinds", nargs="*", default=["base", "free"], choices=["base", "free"])
    ap.add_argument("--workers", type=int, default=1,
                    help="threads for the free spins' independent state walks (default 1)")
    ap.add_argument("--row", nargs=2, metavar=("LINES", "KIND"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.row:
        _row(int(args.row[0]), args.row[1], args.workers)
        return 0
    print(f"{STOPS}-stop 5x3 game, Book of Ra-like paytable; median of {args.runs} runs, one process each, "
          f"{args.workers} worker thread(s)")
    print("time: the solve in-process (wall); cpu: the whole process's CPU time (imports included); "
          "peak: the process's peak resident memory (imports included)")
    print(f"{'lines':>5} {'game':>22} {'time s':>8} {'cpu s':>7} {'peak MiB':>9}  RTP")
    for n in args.lines:
        for kind in args.kinds:
            rs = [_run_child(n, kind, args.workers) for _ in range(args.runs)]
            el = statistics.median(r[0] for r in rs)
            pk = statistics.median(r[1] for r in rs)
            cpu = statistics.median(r[3] for r in rs)
            label = "base game" if kind == "base" else "with free spins"
            print(f"{n:>5} {label:>22} {el:>8.2f} {cpu:>7.2f} {pk:>9.0f}  {rs[0][2]}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
