"""Mechanic ``golden_reels``: sticky reels that count as showing the expanding symbol.

``golden_reels = { reels = [2, 3, 4], turned_by = ["power_book"] }``: a
symbol of ``turned_by`` landing on one of ``reels`` (1-based) turns that
reel golden for the rest of the feature; a golden reel counts as showing
the expanding symbol in the expansion payout.

Rules: ``golden_immediate`` (the reel counts as golden already in the spin
where its symbol lands) and ``golden_symbol_retriggers`` (a ``turned_by``
symbol also counts as a trigger symbol for the per-symbol retrigger).
"""

from __future__ import annotations

from analytic.model.mechanics import register_mechanic
from analytic.model.game import frozen_mapping

RULES = {
    "golden_symbol_retriggers": (
        bool,
        True,
        "whether a symbol that turns reels golden counts as a trigger symbol for the per-symbol retrigger",
    ),
    "golden_immediate": (
        bool,
        True,
        "whether a reel turned golden counts as golden already in the spin where its symbol landed",
    ),
}


def validate(values, key, ctx) -> dict:
    """``{"golden_reels": {"reels": tuple of 1-based reels, "turned_by": tuple of symbols}}``."""
    gk = ctx.join(key, "golden_reels")
    t = ctx.table(values["golden_reels"], gk, ("reels", "turned_by"), required=("reels", "turned_by"))
    rk = ctx.join(gk, "reels")
    g = t["reels"]
    if not isinstance(g, list) or not g:
        ctx.fail(rk, "must be a non-empty list of reel numbers (1-based)")
    reels = tuple(ctx.integer(x, ctx.join(rk, i), min=1, max=ctx.reels) for i, x in enumerate(g))
    if len(set(reels)) != len(reels):
        ctx.fail(rk, f"reels must be distinct, got {list(reels)}")
    by = ctx.symbol_list(t["turned_by"], ctx.join(gk, "turned_by"))
    return {"golden_reels": frozen_mapping({"reels": reels, "turned_by": tuple(by)})}


register_mechanic("golden_reels", ("golden_reels",), validate, rules=RULES)
