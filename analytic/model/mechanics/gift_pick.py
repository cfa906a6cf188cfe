"""Mechanic ``gift_pick``: gifts picked without replacement before the spins start.

``gift_pick = { wild = "wild", gifts = [ { effect, value, count }, ... ] }``:
as many gifts as there were trigger symbols are picked at random, without
replacement, from the listed gifts (``count`` copies of each).  Effects,
applied to the whole feature:

* ``"spins"``: ``value`` extra spins;
* ``"multiplier"``: ``value`` added to the feature's ``multiplier``;
* ``"wild_reel"``: reel ``value`` (1-based) is a fixed wild reel (filled with ``wild``);
* ``"wild_symbol"``: symbol ``value`` turns into ``wild``;
* ``"expanding_symbol"``: symbol ``value`` (a regular symbol with line
  pays) expands for the whole feature, or with ``value = "drawn"`` one
  symbol drawn from the feature's ``expanding_symbol = { draw = "at_start",
  choose_from, weights }`` does.  It pays as the mechanic
  ``expanding_symbol`` says, after the normal line wins; a reel turned wild
  by a ``wild_reel`` gift shows the wild, not the expanding symbol.

A ``wild_reel``, ``wild_symbol`` or ``expanding_symbol`` gift may have only
one copy, and at most one gift entry may be an ``expanding_symbol``.
"""

from __future__ import annotations

from analytic.model.mechanics import register_mechanic

EFFECTS = ("spins", "multiplier", "wild_reel", "wild_symbol", "expanding_symbol")
#: ``value`` of an ``expanding_symbol`` gift that draws the symbol from the feature's ``expanding_symbol``
DRAWN = "drawn"


def validate(values, key, ctx) -> dict:
    """``{"gift_pick": {"wild": str, "gifts": ((effect, value, count), ...)}}``."""
    from analytic.model.game import frozen_mapping

    pk = ctx.join(key, "gift_pick")
    p = ctx.table(values["gift_pick"], pk, ("wild", "gifts"), required=("wild", "gifts"))
    wild = ctx.symbol(p["wild"], ctx.join(pk, "wild"), roles=("wild",))
    gk = ctx.join(pk, "gifts")
    gifts = p["gifts"]
    if not isinstance(gifts, list) or not gifts:
        ctx.fail(gk, "must be a non-empty list of { effect, value, count } tables")
    out = []
    seen = set()
    for i, g in enumerate(gifts):
        ik = ctx.join(gk, i)
        t = ctx.table(g, ik, ("effect", "value", "count"), required=("effect", "value", "count"))
        eff = ctx.string(t["effect"], ctx.join(ik, "effect"), choices=EFFECTS)
        vk = ctx.join(ik, "value")
        if eff in ("spins", "multiplier"):
            val = ctx.integer(t["value"], vk, min=1)
        elif eff == "wild_reel":
            val = ctx.integer(t["value"], vk, min=1, max=ctx.reels)
        elif eff == "expanding_symbol" and t["value"] == DRAWN:
            val = DRAWN
        else:
            val = ctx.symbol(t["value"], vk, roles=("regular",))
            if eff == "expanding_symbol" and not any(v > 0 for v in ctx.paytable.get(val, {}).values()):
                ctx.fail(vk, f"symbol {val!r} has no line pays, so it could never pay as the expanding symbol")
        n = ctx.integer(t["count"], ctx.join(ik, "count"), min=1)
        if (eff, val) in seen:
            ctx.fail(ik, f"gift effect {eff} = {val!r} is listed twice; give one entry with its count")
        seen.add((eff, val))
        if eff == "expanding_symbol" and any(e == eff for e, _, _ in out):
            ctx.fail(ik, "a second expanding_symbol gift: at most one gift entry may set the expanding symbol")
        if eff in ("wild_reel", "wild_symbol", "expanding_symbol") and n > 1:
            ctx.fail(ctx.join(ik, "count"), f"{'an' if eff[0] in 'aeiou' else 'a'} {eff} gift may be held by one gift only (a second copy would "
                                            f"change nothing), got count {n}")
        out.append((eff, val, n))
    f = ctx.feature
    if f.trigger is None:
        ctx.fail(ctx.join(key, "trigger"), "required with gift_pick: the trigger count is the number of picks")
    total = sum(n for _, _, n in out)
    most = max(f.trigger.counts)
    if total < most:
        ctx.fail(gk, f"holds {total} gifts but a trigger of {most} symbols picks {most}")
    return {"gift_pick": frozen_mapping({"wild": wild, "gifts": tuple(out)})}


register_mechanic("gift_pick", ("gift_pick",), validate)
