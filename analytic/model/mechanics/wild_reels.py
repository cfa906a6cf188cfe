"""Mechanic ``wild_reels``: reels that are wild in the feature's spins.

Two forms:

* fixed: ``wild_reels = { reels = [2, 4], wild = "wild" }`` -- those reels
  (1-based) show ``wild`` on every row in every spin;
* revealed: ``wild_reels = { revealed_by = "book", multipliers = { 1 = 60,
  2 = 20 }, combine = "multiply" }`` -- in each spin every reel showing
  ``revealed_by`` expands to a wild reel that reveals a multiplier drawn
  independently with the given integer weights; the multipliers of several
  wild reels are multiplied (``combine = "multiply"``) or added
  (``"add"``) and apply to the spin's line wins.

Rule ``wild_reels_expansion`` (this mechanic's): whether wild reels alone
(no reel showing the expanding symbol) still form the expanding symbol's
all-lines win.
"""

from __future__ import annotations

from analytic.model.mechanics import register_mechanic
from analytic.model.game import frozen_mapping

RULES = {
    "wild_reels_expansion": (
        ("pays", "needs_symbol"),
        "pays",
        "wild reels alone (no reel showing the expanding symbol) still form the expanding symbol's "
        "all-lines win ('pays') or not ('needs_symbol')",
    ),
}


def validate(values, key, ctx) -> dict:
    """``{"wild_reels": {"reels", "wild"}}`` (fixed) or ``{"revealed_by", "multipliers", "combine"}``."""
    k = ctx.join(key, "wild_reels")
    v = values["wild_reels"]
    if isinstance(v, dict) and "revealed_by" in v:
        t = ctx.table(v, k, ("revealed_by", "multipliers", "combine"), required=("revealed_by", "multipliers"))
        by = ctx.symbol(t["revealed_by"], ctx.join(k, "revealed_by"))
        mult = ctx.weights(t["multipliers"], ctx.join(k, "multipliers"), what="multiplier")
        combine = ctx.string(t.get("combine", "multiply"), ctx.join(k, "combine"), choices=("multiply", "add"))
        return {"wild_reels": frozen_mapping({"revealed_by": by, "multipliers": frozen_mapping(mult),
                                              "combine": combine})}
    t = ctx.table(v, k, ("reels", "wild", "revealed_by", "multipliers", "combine"), required=("reels", "wild"))
    for extra in ("multipliers", "combine"):
        if extra in t:
            ctx.fail(ctx.join(k, extra), "only with revealed_by (fixed wild reels have no multiplier)")
    rk = ctx.join(k, "reels")
    reels = t["reels"]
    if not isinstance(reels, list) or not reels:
        ctx.fail(rk, "must be a non-empty list of reel numbers (1-based)")
    rs = tuple(ctx.integer(x, ctx.join(rk, i), min=1, max=ctx.reels) for i, x in enumerate(reels))
    if len(set(rs)) != len(rs):
        ctx.fail(rk, f"reels must be distinct, got {list(rs)}")
    wild = ctx.symbol(t["wild"], ctx.join(k, "wild"), roles=("wild", "wild_scatter"))
    return {"wild_reels": frozen_mapping({"reels": rs, "wild": wild})}


register_mechanic("wild_reels", ("wild_reels",), validate, rules=RULES)
