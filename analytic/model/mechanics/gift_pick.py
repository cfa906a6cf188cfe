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
    _check_size(ctx, gk, out, most)
    return {"gift_pick": frozen_mapping({"wild": wild, "gifts": tuple(out)})}


def _check_size(ctx, gk: str, gifts: list, picks: int) -> None:
    """Refuse a gift pick whose exact law or spin classes are beyond :data:`~analytic.limits.MAX_GIFT_OUTCOMES`
    / :data:`~analytic.limits.MAX_GIFT_SPIN_CLASSES` (bounds from the model alone: the multisets of ``picks``
    gifts from the entries; the sets of at most ``picks`` wild-reel and wild-symbol gifts, times the
    expanding symbol's choices)."""
    from math import comb

    from analytic.limits import MAX_GIFT_OUTCOMES, MAX_GIFT_SPIN_CLASSES

    outcomes = comb(len(gifts) + picks, picks)
    if outcomes > MAX_GIFT_OUTCOMES:
        ctx.fail(gk, f"{len(gifts)} gift entries picked {picks} at a time can fall into up to {outcomes:,} classes, "
                     f"more than {MAX_GIFT_OUTCOMES:,} (the exact law's time grows with them); fewer entries")
    wilds = sum(1 for e, _, _ in gifts if e in ("wild_reel", "wild_symbol"))
    sets = sum(comb(wilds, j) for j in range(min(picks, wilds) + 1))
    exp = [v for e, v, _ in gifts if e == "expanding_symbol"]
    # the expanding symbol: none, or the gift's (a drawn one: at most every symbol with line pays)
    spins = sets * (1 + ((len(ctx.paytable) if exp == [DRAWN] else 1) if exp else 0))
    if spins > MAX_GIFT_SPIN_CLASSES:
        ctx.fail(gk, f"{wilds} wild-reel and wild-symbol gifts picked {picks} at a time start up to {spins:,} kinds of "
                     f"free spin, more than {MAX_GIFT_SPIN_CLASSES:,} (each an exact walk of the free reels); fewer "
                     "such gifts")


register_mechanic("gift_pick", ("gift_pick",), validate)
