"""Mechanic ``pick_bonus``: a pick bonus (``kind = "pick_bonus"``), e.g. Lobstermania's buoy bonus.

``picks = { picks = weight }`` (number of picks), ``prizes_per_pick = {
prizes = weight }`` (default ``{ 1 = 1 }``) and ``prizes = [[prize, weight],
...]`` (line-bet units): each pick reveals that many prizes drawn
independently with the weights.  The bonus has no spins (``reels`` is not
allowed).

Variant ``board = { collect = C, prizes = [[prize, copies], ...], multipliers =
[[m, copies], ...] }`` (instead of ``picks``, ``prizes_per_pick`` and
``prizes``): tiles are picked uniformly at random without replacement from a
board of ``C`` collect tiles and the listed prize and multiplier tiles until a
collect tile is picked, which ends the bonus (it may be the first pick).  The
bonus wins the sum of the prize tiles picked times the product of the
multiplier tiles picked (1 when none).
"""

from __future__ import annotations

from analytic.model.kinds import show
from analytic.model.mechanics import register_mechanic
from analytic.limits import MAX_BOARD_STATES, MAX_BOARD_TILES, MAX_PICK_PRIZES
from analytic.model.game import frozen_mapping

KEYS = ("picks", "prizes_per_pick", "prizes", "board")


def _tiles(ctx, value, key: str, *, lo: int) -> dict[int, int]:
    """A list of ``[value, copies]`` pairs -> ``{value: copies}`` (equal values merged)."""
    if not isinstance(value, list):
        ctx.fail(key, f"must be a list of [value, copies] pairs, got {show(value)}")
    out: dict[int, int] = {}
    for i, pair in enumerate(value):
        ik = ctx.join(key, i)
        if not isinstance(pair, list) or len(pair) != 2:
            ctx.fail(ik, f"must be a pair [value, copies], got {show(pair)}")
        v = ctx.integer(pair[0], ctx.join(ik, 0), min=lo)
        n = ctx.integer(pair[1], ctx.join(ik, 1), min=1)
        out[v] = out.get(v, 0) + n
    return out


def _board(ctx, value, key: str) -> dict:
    """``board = { collect, prizes, multipliers }`` normalised (sorted tuples of (value, copies))."""
    t = ctx.table(value, key, ("collect", "prizes", "multipliers"), required=("collect", "prizes"))
    collect = ctx.integer(t["collect"], ctx.join(key, "collect"), min=1)
    prizes = _tiles(ctx, t["prizes"], ctx.join(key, "prizes"), lo=0)
    if not prizes:
        ctx.fail(ctx.join(key, "prizes"), "must list at least one prize tile")
    mults = _tiles(ctx, t.get("multipliers", []), ctx.join(key, "multipliers"), lo=2)
    tiles = collect + sum(prizes.values()) + sum(mults.values())
    if tiles > MAX_BOARD_TILES:
        ctx.fail(key, f"the board has {tiles} tiles; at most {MAX_BOARD_TILES}")
    states = 1
    for n in (*prizes.values(), *mults.values()):
        states *= n + 1
    if states > MAX_BOARD_STATES:
        ctx.fail(key, f"the exact law's recursion has {states:,} states (product of copies + 1 over the "
                      f"distinct tiles); at most {MAX_BOARD_STATES:,}")
    return frozen_mapping({"collect": collect, "prizes": tuple(sorted(prizes.items())),
                           "multipliers": tuple(sorted(mults.items()))})


def validate(values, key, ctx) -> dict:
    """``{"picks", "prizes_per_pick", "prizes"}`` normalised, or ``{"board"}``."""
    if "board" in values:
        for k in ("picks", "prizes_per_pick", "prizes"):
            if k in values:
                ctx.fail(ctx.join(key, k), "not with 'board' (a board's picks end at a collect tile)")
        return {"board": _board(ctx, values["board"], ctx.join(key, "board"))}
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
