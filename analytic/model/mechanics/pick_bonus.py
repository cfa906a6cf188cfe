"""Mechanic ``pick_bonus``: a pick bonus (``kind = "pick_bonus"``), e.g. Lobstermania's buoy bonus.

``picks = { picks = weight }`` (number of picks), ``prizes_per_pick = {
prizes = weight }`` (default ``{ 1 = 1 }``) and ``prizes = [[prize, weight],
...]`` (line-bet units): each pick reveals that many prizes drawn
independently with the weights.  The bonus has no spins (``reels`` is not
allowed).
"""

from __future__ import annotations

from analytic.model.kinds import show
from analytic.model.mechanics import register_mechanic
from analytic.limits import MAX_PICK_PRIZES
from analytic.model.game import frozen_mapping

KEYS = ("picks", "prizes_per_pick", "prizes")


def validate(values, key, ctx) -> dict:
    """``{"picks", "prizes_per_pick", "prizes"}`` normalised."""
    for k in ("picks", "prizes"):
        if k not in values:
            ctx.fail(ctx.join(key, k), "required key is missing")
    out: dict = {
        "picks": frozen_mapping(ctx.weights(values["picks"], ctx.join(key, "picks"), what="number of picks")),
        "prizes_per_pick": frozen_mapping({1: 1}),
    }
    if "prizes_per_pick" in values:
        out["prizes_per_pick"] = frozen_mapping(
            ctx.weights(values["prizes_per_pick"], ctx.join(key, "prizes_per_pick"), what="prizes per pick"))
    most = max(out["picks"]) * max(out["prizes_per_pick"])  # the exact law's time grows with it
    if most > MAX_PICK_PRIZES:
        ctx.fail(ctx.join(key, "picks"), f"a bonus reveals up to {max(out['picks'])} x "
                                         f"{max(out['prizes_per_pick'])} = {most} prizes; at most {MAX_PICK_PRIZES}")
    pk = ctx.join(key, "prizes")
    prizes = values["prizes"]
    if not isinstance(prizes, list) or not prizes:
        ctx.fail(pk, f"must be a non-empty list of [prize, weight] pairs, got {show(prizes)}")
    pairs = []
    for i, pair in enumerate(prizes):
        ik = ctx.join(pk, i)
        if not isinstance(pair, list) or len(pair) != 2:
            ctx.fail(ik, f"must be a pair [prize, weight], got {show(pair)}")
        pairs.append((ctx.integer(pair[0], ctx.join(ik, 0), min=0), ctx.integer(pair[1], ctx.join(ik, 1), min=1)))
    out["prizes"] = tuple(pairs)
    return out


register_mechanic("pick_bonus", KEYS, validate, kinds=("pick_bonus",))
