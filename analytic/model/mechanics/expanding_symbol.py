"""Mechanic ``expanding_symbol``: a symbol that expands over whole reels and pays on every line.

``expanding_symbol = { draw = "at_start", choose_from = [...], weights = [...] }``
    One symbol is drawn before the first spin (integer ``weights``, one per
    ``choose_from`` entry, default all equal) and kept for the whole feature.
``expanding_symbol = { draw = "at_each_award", repeat_multiplier = { ceiling = 9 } }``
    One symbol is drawn at the start and one more at each spin that awards
    spins; every drawn symbol expands.  A symbol drawn again gets a
    multiplier (rule ``expanding_repeat_multiplier``) that stops at
    ``ceiling``.  ``choose_from`` defaults to every ``regular`` symbol (drawn
    uniformly); with a ``ladder`` each award upgrades the symbol instead.

Per spin: the normal line wins are paid first; then for every expanding
symbol ``s`` with multiplier ``m``, when ``s`` shows on at least its
smallest paying count of reels (rule ``expanding_count``), it pays
``paytable[s][n] x lines x m`` (``n`` the reels showing it).
"""

from __future__ import annotations

from analytic.model.kinds import show
from analytic.model.mechanics import register_mechanic
from analytic.model.game import frozen_mapping

#: The largest repeat-multiplier ceiling accepted: the engines' ladder and draw-count states grow with it.
MAX_CEILING = 30

RULES = {
    "expanding_count": (
        ("reels", "cells"),
        "reels",
        "how the expanding symbol is counted: reels showing it, or visible cells",
    ),
    "expanding_line_win": (
        ("paid", "wild_led_only"),
        "paid",
        "normal line wins of the expanding symbol: all paid, or only wild-led lines "
        "(a line starting with the symbol itself is left to the expansion)",
    ),
    "expanding_repeat_multiplier": (
        ("count", "count_minus_one"),
        "count",
        "multiplier of an expanding symbol drawn c times (or topped c-1 times on a ladder): 'count' gives "
        "x c (first repeat x2), 'count_minus_one' gives x max(c-1, 1); capped at repeat_multiplier.ceiling",
    ),
    "scatter_substitutes_for_expanding_in_line_wins": (
        bool,
        True,
        "true: wild scatters substitute for the expanding symbol in NORMAL line wins (they are disregarded "
        "only in the expansion payout); false: they do not",
    ),
}


def validate(values, key, ctx) -> dict:
    """``{"expanding_symbol": {"draw", "choose_from", "weights", "ceiling"}}`` (``choose_from`` None: every regular symbol)."""
    ek = ctx.join(key, "expanding_symbol")
    e = ctx.table(values["expanding_symbol"], ek, ("draw", "choose_from", "weights", "repeat_multiplier"))
    draw = ctx.string(e.get("draw", "at_start"), ctx.join(ek, "draw"), choices=("at_start", "at_each_award"))
    if draw == "at_start":
        if "choose_from" not in e:
            ctx.fail(ctx.join(ek, "choose_from"), "required key is missing (the symbols drawn at the start)")
        if "repeat_multiplier" in e:
            ctx.fail(ctx.join(ek, "repeat_multiplier"), "only with draw = 'at_each_award' (a symbol drawn once "
                                                        "never repeats)")
    choose = None
    if "choose_from" in e:
        ck = ctx.join(ek, "choose_from")
        choose = ctx.symbol_list(e["choose_from"], ck)
        for i, s in enumerate(choose):
            if not any(v > 0 for v in ctx.paytable.get(s, {}).values()):
                ctx.fail(ctx.join(ck, i), f"symbol {s!r} has no line pays, so it could never pay as the "
                                          "expanding symbol")
    n = len(choose) if choose is not None else sum(1 for s in ctx.symbols.values() if s.role == "regular")
    if "weights" in e:
        wk = ctx.join(ek, "weights")
        w = e["weights"]
        if not isinstance(w, list):
            ctx.fail(wk, f"must be a list of positive integers, got {show(w)}")
        if choose is None:
            ctx.fail(wk, "only together with choose_from (one weight per symbol)")
        if len(w) != len(choose):
            ctx.fail(wk, f"has {len(w)} entries but choose_from has {len(choose)}")
        weights = tuple(ctx.integer(x, ctx.join(wk, i), min=1) for i, x in enumerate(w))
    else:
        weights = (1,) * n
    ceiling = None
    if draw == "at_each_award":
        rk = ctx.join(ek, "repeat_multiplier")
        if "repeat_multiplier" not in e:
            ctx.fail(rk, "required key is missing with draw = 'at_each_award': { ceiling = N }, the most a "
                         "repeated symbol's multiplier can reach")
        r = ctx.table(e["repeat_multiplier"], rk, ("ceiling",), required=("ceiling",))
        ceiling = ctx.integer(r["ceiling"], ctx.join(rk, "ceiling"), min=1, max=MAX_CEILING)
    return {"expanding_symbol": frozen_mapping({
        "draw": draw, "choose_from": tuple(choose) if choose is not None else None,
        "weights": weights, "ceiling": ceiling})}


register_mechanic("expanding_symbol", ("expanding_symbol",), validate, rules=RULES)
