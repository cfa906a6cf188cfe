"""Brute-force enumeration of every stop combination: the oracle for tests.

This module deliberately shares nothing with the walk: it reads the game
model, builds each window stop by stop and evaluates every payline directly
from the rule text ("highest win per line, left to right, wilds substitute").
It visits the whole cycle, so it is for small games and benchmarks only.
"""

from __future__ import annotations

import itertools
from collections import Counter

from analytic.model.game import Game

__all__ = ["line_win", "window_line_wins", "brute_force"]


def _supports(game: Game, cell: str, cand: str, subs_override=None) -> bool:
    if cell == cand:
        return True
    sym = game.symbol(cell)
    if not sym.is_wild:
        return False
    target = game.symbol(cand)
    if target.role != "regular":
        return False
    subs = (subs_override or {}).get(cell, sym.substitutes)
    return subs is None or cand in subs


def line_win(game: Game, cells: list[str]) -> tuple[int, int]:
    """Pay (line-bet units) and line-trigger flag of one payline's cells.

    For every candidate symbol, count the leading cells that show it or a
    wild substituting for it; pay that run times the product of the wild
    multipliers in it; return the highest.  Under the rule
    ``line_wild_pay = "first_non_wild"`` the only substituted candidate is
    the first non-wild cell's symbol (wilds still pay their own runs).
    """
    best, trig = 0, 0
    names = game.symbol_names
    if game.rules.get("line_wild_pay", "highest") == "first_non_wild":
        first = next((c for c in cells if not game.symbol(c).is_wild), None)
        names = [n for n in names if game.symbol(n).is_wild or n == first]
    for cand in names:
        pays = game.paytable.get(cand)
        lt = game.line_triggers.get(cand)
        if not pays and not lt:
            continue
        run, mult = 0, 1
        for c in cells:
            if not _supports(game, c, cand):
                break
            run += 1
            mult *= game.symbol(c).multiplier if game.symbol(c).is_wild else 1
        if lt:
            if run >= min(lt):
                trig = 1
        elif pays:
            best = max(best, pays.get(run, 0) * mult)
    return best, trig


def window_line_wins(game: Game, window: list[list[str]]) -> tuple[int, int]:
    """Sum of line pays and number of line triggers of a window ``[reel][row]``."""
    total, trig = 0, 0
    for line in game.lines:
        p, t = line_win(game, [window[r][row] for r, row in enumerate(line)])
        total += p
        trig += t
    return total, trig


def brute_force(game: Game, reel_set: str, counters=(), wild_reels=None) -> dict[tuple[int, ...], int]:
    """Every stop combination, evaluated directly.

    Base-spin rules read from the rule text: a reel in ``wild_reels``
    (a bet mode's ``params["wild_reels"]``) shows its wild on every row; a
    reel whose window shows a wild with ``expands = true`` shows the topmost
    such wild on every row for the paylines; counters count the landed
    symbols (a fixed wild reel's landed symbols are its wilds).

    Returns
    -------
    dict
        ``(counter values..., line triggers, line win) -> count`` over the
        cycle, the same layout as :class:`analytic.engine.linewalk.SpinDistribution`.
    """
    strips = game.reel_sets[reel_set]
    rows = game.rows
    wins_by_reel = [
        [[strip[(s + r) % len(strip)] for r in range(rows)] for s in range(len(strip))] for strip in strips
    ]
    fixed = set(wild_reels["reels"]) if wild_reels else set()
    for r in fixed:
        wins_by_reel[r - 1] = [[wild_reels["wild"]] * rows for _ in wins_by_reel[r - 1]]
    out: Counter = Counter()
    for combo in itertools.product(*wins_by_reel):
        window = list(combo)
        shown = []
        for col in window:
            exp = [c for c in col if game.symbol(c).expands]
            shown.append([exp[0]] * rows if exp else col)
        lw, trig = window_line_wins(game, shown)
        cvals = []
        for cd in counters:
            if cd.per == "reels":
                cvals.append(sum(1 for col in window if any(c in cd.symbols for c in col)))
            else:
                cvals.append(sum(1 for col in window for c in col if c in cd.symbols))
        out[tuple(cvals) + (trig, lw)] += 1
    return dict(out)
