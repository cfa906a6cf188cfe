"""Engine ``drawn_expanding``: the literal substitution reading for expanding symbols drawn at each award.

Rule ``scatter_substitutes_for_expanding_in_line_wins = false`` (the literal
reading of "The Book Symbols substitute for all symbols except the special
Expanding Symbol in Free Spins"): in regular Free Spins every drawn symbol
expands, so while the set ``S`` of drawn symbols expands a Book (a wild
scatter: the trigger's books, the Power Books) does not stand in for any
symbol of ``S`` in a line win, and still stands in for every other one.  The
line win ``L_S(w)`` of a window ``w`` then depends on ``S``; the expansion
pays ``E_s(w)`` do not (books are disregarded there under both readings).

What is solved, and how (docs/derivations.md s.4, "the literal reading")
---------------------------------------------------------------------------
* **The mean, exactly.**  The draws are independent of the windows, so a
  spin after ``j`` awards has mean line win ``E[l_{S(j)}]`` with ``l_S`` the
  mean line win of the set ``S`` (:func:`set_line_means`: exact, one
  payline's cells enumerated -- every payline has the law of the strips'
  symbol counts -- for all ``2^n`` sets at once) and ``S(j)`` the support
  of ``j + 1`` uniform draws over the ``n`` regular symbols:
  ``P(S(j) = S) = surj(j + 1, |S|) / n^(j+1)`` (surjections), so
  ``E[l_{S(j)}] = sum_k surj(j + 1, k) / n^(j+1) * sum_{|S| = k} l_S``
  (:func:`drawn_line_means`).  The expansion part is the same as under the
  other reading.
* **Everything else, certified between two bounding games.**  With the pays
  of every symbol non-decreasing in the count (checked,
  :func:`check_literal_lines`), a book that stops standing in for a symbol
  can only shorten that symbol's run, so window by window
  ``L_none(w) <= L_S(w) <= L_all(w)``: ``L_all`` the line win when the books
  stand in for every symbol (the other reading's), ``L_none`` when they
  stand in for none.  The awards are the same, so on every path of windows
  and draws ``W_lower <= W <= W_upper`` for the feature wins of the two
  bounding games (:func:`bounding_game`).  Hence ``E[W^2]`` lies between
  their second moments, ``E[(B + W - C)+]`` and ``P(B + W >= C)`` (the
  cap) between the lower bounds of the lower game and the upper bounds of
  the upper game, and ``P(W = 0)`` between ``P(W_upper = 0)`` and
  ``P(W_lower = 0)``.

Units: total-bet multiples.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import numpy as np

from analytic.errors import UnsupportedMechanicError

__all__ = ["RULE", "literal_draws", "check_literal_lines", "set_line_means", "drawn_line_means",
           "bounding_game", "bounding_workspace", "MAX_SET_SYMBOLS"]

#: The rule whose ``false`` is the literal reading.
RULE = "scatter_substitutes_for_expanding_in_line_wins"
#: Most regular symbols for the ``2^n`` sets of expanding symbols (the rule text has 9).
MAX_SET_SYMBOLS = 12


def literal_draws(game, feature: str) -> bool:
    """True when ``feature`` draws expanding symbols at each award (no ladder) under the literal reading."""
    return (not game.rules.get(RULE, True)) and not game.features[feature].params.get("ladder")


def _wild_books(game, feature: str) -> frozenset:
    from analytic.features.engines.drawn_expanding.engine import book_symbols, power_book_symbols

    return frozenset(s for s in book_symbols(game, feature) | power_book_symbols(game) if game.symbol(s).is_wild)


def check_literal_lines(game, feature: str) -> None:
    """Refuse a model whose line wins the literal reading of the draws feature does not solve.

    Needed: line pays only (no group pays, combos, anywhere pays or line
    triggers, one direction), wilds without multipliers and the highest
    candidate paid (rule ``line_wild_pay`` "highest"), no expanding wild,
    every symbol's pays non-decreasing in the count (so that a book no
    longer standing in for a symbol can only lower the line win), at most
    :data:`MAX_SET_SYMBOLS` regular symbols.

    Raises
    ------
    UnsupportedMechanicError
        With the key that stops it and what would make it solvable.
    """
    why = None
    if game.group_pays or game.combos or game.anywhere_pays or game.line_triggers:
        why = "the line wins hold group pays, combos, anywhere pays or line triggers"
    elif game.pays_both_ways:
        why = "the lines pay both ways"
    elif game.rules.get("line_wild_pay", "highest") != "highest":
        why = "rule line_wild_pay is not 'highest'"
    elif any(s.is_wild and (s.multiplier != 1 or s.expands) for s in game.symbols):
        why = "a wild has a multiplier or expands"
    elif sum(s.role == "regular" for s in game.symbols) > MAX_SET_SYMBOLS:
        why = f"more than {MAX_SET_SYMBOLS} regular symbols (2^n sets of expanding symbols)"
    else:
        for s, pays in game.paytable.items():
            seq = [pays.get(k, 0) for k in range(1, game.reels + 1)]
            if any(b < a for a, b in zip(seq, seq[1:])):
                why = f"the pays of {s} fall with the count (paytable.{s})"
                break
    if why:
        raise UnsupportedMechanicError(
            f"rules.{RULE} = false in features.{feature} (expanding symbols drawn at each award): {why}; "
            f"solved for plain line pays non-decreasing in the count; set it to true")


def set_line_means(game, feature: str) -> dict:
    """Exact mean line win of every set ``S`` of expanding symbols (the books not standing in for ``S``).

    Parameters
    ----------
    game : Game
    feature : str
        A regular Free Spins feature (expanding symbols drawn at each award).

    Returns
    -------
    dict
        ``mask -> Fraction``: bit ``i`` of ``mask`` is the ``i``-th regular
        symbol (:func:`~analytic.features.engines.drawn_expanding.engine.regular_symbols`);
        the value is the mean line win of a spin on the feature's reels,
        all paylines, total-bet multiples (``mask = 0``: the books stand in
        for every symbol).

    Notes
    -----
    One payline's cells are enumerated over the strips' distinct symbols
    (weights: their counts on the strip, so the weights sum to the cycle);
    the mean is ``lines`` times that (every payline has this law).  A cell
    counts for candidate ``x`` when it shows ``x`` or is a wild standing in
    for it (the model's substitution), except a book while ``x`` is in ``S``;
    the line pays its highest candidate (:func:`check_literal_lines` holds).
    Exact integer sums.
    """
    from analytic.features.engines.drawn_expanding.engine import regular_symbols

    check_literal_lines(game, feature)
    from analytic.engine.brute import _supports

    strips = game.reel_sets[game.features[feature].reel_set]
    regular = regular_symbols(game)
    books = _wild_books(game, feature)
    cells, counts = [], []
    for strip in strips:
        cnt: dict = {}
        for c in strip:
            cnt[c] = cnt.get(c, 0) + 1
        cells.append(sorted(cnt))
        counts.append([cnt[c] for c in sorted(cnt)])
    cycle = math.prod(len(s) for s in strips)
    grids = np.meshgrid(*[np.arange(len(c)) for c in cells], indexing="ij")
    idx = [g.ravel() for g in grids]
    big = cycle * max((max(p.values(), default=0) for p in game.paytable.values()), default=0) >= 2 ** 62
    dt = object if big else np.int64
    weight = np.ones(len(idx[0]), dtype=dt)
    for i, ix in enumerate(idx):
        weight = weight * np.array(counts[i], dtype=dt)[ix]
    cands = [x for x in game.paytable if any(v > 0 for v in game.paytable[x].values())]
    W, P = [], []  # per candidate: pay of its run with / without the books standing in
    for x in cands:
        table = np.array([game.paytable[x].get(k, 0) for k in range(len(strips) + 1)], dtype=np.int64)
        runw = np.zeros(len(idx[0]), dtype=np.int64)
        runp = np.zeros(len(idx[0]), dtype=np.int64)
        alive_w = np.ones(len(idx[0]), dtype=bool)
        alive_p = np.ones(len(idx[0]), dtype=bool)
        for i, ix in enumerate(idx):
            sup = np.array([_supports(game, c, x) for c in cells[i]], dtype=bool)[ix]
            book = np.array([c in books and c != x for c in cells[i]], dtype=bool)[ix]
            alive_w &= sup
            alive_p &= sup & ~book
            runw += alive_w
            runp += alive_p
        W.append(table[runw])
        P.append(table[runp])
    W = np.array(W).reshape(len(cands), -1)
    P = np.array(P).reshape(len(cands), -1)
    base = W.max(axis=0, initial=0)
    in_reg = np.array([x in regular for x in cands], dtype=bool)
    # only the cells where a book's substitution decides a regular candidate's pay depend on S
    live = np.flatnonzero((W[in_reg] != P[in_reg]).any(axis=0)) if in_reg.any() else np.zeros(0, dtype=np.int64)
    base_sum = int((base.astype(dt) * weight).sum())
    Wl, Pl, wl = W[:, live], P[:, live], weight[live]
    base_live = int((base[live].astype(dt) * wl).sum())
    pos = {x: i for i, x in enumerate(regular)}
    nl, tb = len(game.lines), game.total_bet
    out = {}
    for mask in range(1 << len(regular)):
        inS = np.array([x in pos and (mask >> pos[x]) & 1 == 1 for x in cands], dtype=bool)
        pay = np.where(inS[:, None], Pl, Wl).max(axis=0, initial=0)
        tot = base_sum - base_live + int((pay.astype(dt) * wl).sum())
        out[mask] = Fraction(tot * nl, cycle) / tb
    return out


def _surjections(n: int, k: int) -> int:
    """Maps of ``n`` labelled draws onto ``k`` given symbols (every one drawn)."""
    return sum((-1) ** i * math.comb(k, i) * (k - i) ** n for i in range(k + 1))


def drawn_line_means(set_means: dict, nsym: int, J: int) -> list:
    """``E[l_{S(j)}]`` for ``j = 0..J``: the mean line win after ``j`` awards (exact Fractions).

    ``S(j)`` is the set of symbols among ``j + 1`` independent uniform draws
    over ``nsym`` symbols, ``P(S(j) = S) = surj(j + 1, |S|) / nsym^(j+1)``.
    ``set_means``: :func:`set_line_means` (masks over the ``nsym`` symbols).
    """
    by_size = [Fraction(0)] * (nsym + 1)
    for mask, v in set_means.items():
        by_size[bin(mask).count("1")] += v
    out = []
    for j in range(J + 1):
        n = j + 1
        out.append(sum((Fraction(_surjections(n, k), nsym ** n) * by_size[k] for k in range(1, nsym + 1)),
                       Fraction(0)))
    return out


def bounding_game(game, feature: str, side: str):
    """The game whose ``feature`` pays ``W_upper`` (``side = "upper"``) or ``W_lower`` (``"lower"``).

    ``"upper"``: the rule set to ``true`` (the books stand in for the
    expanding symbols in line wins); ``"lower"``: also ``true``, and the
    books (the trigger's wild scatters and the Power Books) stand in for no
    symbol at all.  Only ``feature``'s figures are read from it (its base
    game is not the model's under ``"lower"``).
    """
    if side not in ("upper", "lower"):
        raise ValueError(f"bounding_game: side {side!r}")
    rules = dict(game.rules)
    rules[RULE] = True
    from analytic.model.game import frozen_mapping

    g = replace(game, rules=frozen_mapping(rules))
    if side == "lower":
        books = _wild_books(game, feature)
        syms = tuple(replace(s, substitutes=frozenset()) if s.name in books else s for s in game.symbols)
        g = replace(g, symbols=syms)
    return g


def bounding_workspace(ws, feature: str, side: str):
    """The workspace of :func:`bounding_game` for ``ws``'s game, kept in ``ws`` (same precision, workers)."""
    from analytic.workspace import Workspace

    return ws.memo(("drawn_expanding.literal.side", feature, side),
                   lambda: Workspace(bounding_game(ws.game, feature, side), precision=ws.precision,
                                     workers=ws.workers))
