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

__all__ = ["line_win", "window_line_wins", "window_ways_win", "brute_force"]


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


def _cell_multiplier(game: Game, cell: str, override) -> int:
    """A wild cell's multiplier: ``override`` (a drawn multiplier) when given, else its symbol's."""
    return game.symbol(cell).multiplier if override is None else override


def _run_multiplier(game: Game, run_cells: list[str], run_mults=None) -> int:
    """Multiplier of a win counted on ``run_cells``, from the rules' text.

    ``line_wild_multipliers``: the wilds' multipliers multiply, add (wilds
    without one add nothing; none at all: x1) or the largest applies once;
    ``all_wild_win_multiplied = false``: a win of wilds only is not multiplied.
    ``run_mults``: per cell, a multiplier in place of the symbol's (None: its own).
    """
    over = run_mults or [None] * len(run_cells)
    ms = [_cell_multiplier(game, c, o) for c, o in zip(run_cells, over) if game.symbol(c).is_wild]
    if run_cells and len(ms) == len(run_cells) and not game.rules.get("all_wild_win_multiplied", True):
        return 1
    how = game.rules.get("line_wild_multipliers", "multiply")
    if how == "add":
        return sum(m for m in ms if m > 1) or 1
    if how == "highest_once":
        return max(ms, default=1)
    out = 1
    for m in ms:
        out *= m
    return out


def _counts_as(game: Game, cell: str, entry: str) -> bool:
    """A cell counts as a symbol or group ``entry``: it shows it (a member) or a wild standing for it."""
    members = game.groups.get(entry, {entry})
    if cell in members:
        return True
    sym = game.symbol(cell)
    if not sym.is_wild:
        return False
    return any(game.symbol(m).role == "regular" and (sym.substitutes is None or m in sym.substitutes)
               for m in members)


def line_win(game: Game, cells: list[str], *, full_run: bool = True, mults=None) -> tuple[int, int]:
    """Pay (line-bet units) and line-trigger flag of one payline's cells.

    For every candidate symbol, count the leading cells that show it or a
    wild substituting for it; pay that run times the multiplier of the
    wilds in it (rule ``line_wild_multipliers``; ``all_wild_win_multiplied``);
    likewise for every group with pays (a cell counts when it shows a
    member or a wild substituting for one), every combo (its first cells
    each match their entry) and every anywhere pay (the number of the
    line's cells showing the symbol, wilds counted by rule
    ``anywhere_pay_wilds``, unmultiplied); return the highest, compared after
    the multiplier or, under ``line_win_chosen_on = "base_pay"``, on the
    paytable pay (ties: the higher final pay).  Under the rule
    ``line_wild_pay = "first_non_wild"`` the only substituted candidate is
    the first non-wild cell's symbol (wilds still pay their own runs).
    ``full_run=False`` (the right-to-left reading of pays both ways, on the
    reversed cells): a run over every cell pays nothing (it is paid once,
    from the left).  ``mults``: per cell, a multiplier its wild carries in
    place of the symbol's (None entries: the symbol's own), e.g. a multiplier
    drawn for its reel.
    """
    base_choice = game.rules.get("line_win_chosen_on", "final_pay") == "base_pay"
    wins = [(0, 0)]  # (base pay, final pay)
    trig = 0
    names = game.symbol_names
    if game.rules.get("line_wild_pay", "highest") == "first_non_wild":
        first = next((c for c in cells if not game.symbol(c).is_wild), None)
        names = [n for n in names if game.symbol(n).is_wild or n == first]
    for cand in names:
        pays = game.paytable.get(cand)
        lt = game.line_triggers.get(cand)
        if not pays and not lt:
            continue
        run = 0
        for c in cells:
            if not _supports(game, c, cand):
                break
            run += 1
        if lt:
            if run >= min(lt):
                trig = 1
        elif pays and pays.get(run, 0) and (full_run or run < len(cells)):
            b = pays.get(run, 0)
            wins.append((b, b * _run_multiplier(game, cells[:run], mults and mults[:run])))
    for g, pays in game.group_pays.items():
        run = 0
        for c in cells:
            if not _counts_as(game, c, g):
                break
            run += 1
        if pays.get(run, 0):
            wins.append((pays[run], pays[run] * _run_multiplier(game, cells[:run], mults and mults[:run])))
    for combo in game.combos.values():
        n = len(combo.cells)
        if combo.pay and all(_counts_as(game, c, e) for c, e in zip(cells[:n], combo.cells)):
            wins.append((combo.pay, combo.pay * (_run_multiplier(game, cells[:n], mults and mults[:n])
                                                 if combo.multiplied else 1)))
    wilds_count = game.rules.get("anywhere_pay_wilds", "counted") == "counted"
    for a, pays in game.anywhere_pays.items():
        members = game.groups.get(a, {a})
        n = sum(1 for c in cells if c in members or (wilds_count and _counts_as(game, c, a)))
        if pays.get(n, 0):
            wins.append((pays[n], pays[n]))
    best = max(wins) if base_choice else max(wins, key=lambda w: w[1])
    return best[1], trig


def window_line_wins(game: Game, window: list[list[str]], reel_multipliers=None) -> tuple[int, int]:
    """Sum of line pays and number of line triggers of a window ``[reel][row]``.

    ``reel_multipliers``: ``{0-based reel: {wild: multiplier}}``, the
    multiplier a wild landing on that reel carries in place of its own.
    """
    total, trig = 0, 0
    rm = reel_multipliers or {}
    for line in game.lines:
        cells = [window[r][row] for r, row in enumerate(line)]
        mults = [rm.get(r, {}).get(c) for r, c in enumerate(cells)] if rm else None
        p, t = line_win(game, cells, mults=mults)
        total += p
        trig += t
        if game.pays_both_ways:
            total += line_win(game, cells[::-1], full_run=False, mults=mults and mults[::-1])[0]
    return total, trig


def window_ways_win(game: Game, window: list[list[str]], reel_multipliers=None) -> int:
    """Ways win (line-bet units) of a window ``[reel][row]``, read from the rule text.

    Every symbol with pays on its own: on each reel the cells showing it or
    a wild substituting for it, each counted with its multiplier (a way's
    multiplier is the product of its wilds'); the ways of the leading reels
    that have such a cell pay ``pay(run) x ways``.  With
    ``pays_both_ways`` the trailing reels are read the same way from the
    right, unless the run covers every reel (then it is the same
    combination, paid once).  Evaluates every way one by one (itertools),
    sharing nothing with the walk.  ``reel_multipliers``: as in
    :func:`window_line_wins`.
    """
    total = 0
    nreels = len(window)
    rm = reel_multipliers or {}
    for cand, pays in game.paytable.items():
        if not any(v > 0 for v in pays.values()):
            continue
        cells = [[(c, rm.get(k, {}).get(c)) for c in col if _supports(game, c, cand)]
                 for k, col in enumerate(window)]

        def run_ways(reels):
            n = 0
            for k in reels:
                if not cells[k]:
                    break
                n += 1
            if n == 0:
                return 0, 0
            s = 0
            for way in itertools.product(*(cells[k] for k in reels[:n])):
                m = 1
                for c, o in way:
                    m *= _cell_multiplier(game, c, o) if game.symbol(c).is_wild else 1
                s += m
            return n, s

        n, ways = run_ways(list(range(nreels)))
        total += pays.get(n, 0) * ways
        if game.pays_both_ways and n < nreels:
            r, ways = run_ways(list(range(nreels - 1, -1, -1)))
            total += pays.get(r, 0) * ways
    return total


def brute_force(game: Game, reel_set: str, counters=(), wild_reels=None,
                reel_multipliers=None) -> dict[tuple[int, ...], int]:
    """Every stop combination, evaluated directly.

    Base-spin rules read from the rule text: a reel in ``wild_reels``
    (a bet mode's ``params["wild_reels"]``) shows its wild on every row; a
    reel whose window shows a wild with ``expands = true`` shows the topmost
    such wild on every row for the paylines; counters count the landed
    symbols (a fixed wild reel's landed symbols are its wilds).
    ``reel_multipliers`` (``{0-based reel: {wild: multiplier}}``): a wild
    landing on that reel carries that multiplier in place of its own (one
    fixed vector of drawn multipliers; a caller mixes over the draws).

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
        if game.ways:
            lw, trig = window_ways_win(game, shown, reel_multipliers), 0
        else:
            lw, trig = window_line_wins(game, shown, reel_multipliers)
        cvals = []
        for cd in counters:
            if cd.per == "reels":
                cvals.append(sum(1 for col in window if any(c in cd.symbols for c in col)))
            else:
                cvals.append(sum(1 for col in window for c in col if c in cd.symbols))
        out[tuple(cvals) + (trig, lw)] += 1
    return dict(out)
