"""Mechanic ``ladder``: each award upgrades the expanding symbol along a declared order.

``ladder = { order = "rank_ascending" }``: the expanding symbol (one, drawn
at the start among the candidates) moves to the next symbol by ``rank``
(``[symbols]``, required on every regular symbol; a higher rank is a more
valuable symbol) at each spin that awards spins; at the top (the highest
rank) it stays and its repeat multiplier grows instead
(``expanding_symbol.repeat_multiplier``, rule ``expanding_repeat_multiplier``,
counting the times the top is reached).  Needs ``expanding_symbol`` with
``draw = "at_each_award"``.

``ladder = { order = "rank_descending" }``: the same ladder run the other
way: each award moves the symbol to the next LOWER rank; its end is the
lowest rank, where the symbol stays and its repeat multiplier grows
(counting the times the lowest rank is reached), mirroring the top of
``rank_ascending``.
"""

from __future__ import annotations

from analytic.model.mechanics import register_mechanic

ORDERS = ("rank_ascending", "rank_descending")


def validate(values, key, ctx) -> dict:
    """``{"ladder": order}``; every regular symbol must have a ``rank``."""
    lk = ctx.join(key, "ladder")
    t = ctx.table(values["ladder"], lk, ("order",), required=("order",))
    order = ctx.string(t["order"], ctx.join(lk, "order"), choices=ORDERS)
    for sym in ctx.symbols.values():
        if sym.role == "regular" and sym.value_rank is None:
            ctx.fail(ctx.join(ctx.join("symbols", sym.name), "rank"),
                     f"required by {lk} (order {order!r}): the expanding symbol climbs the regular symbols by rank")
    return {"ladder": order}


register_mechanic("ladder", ("ladder",), validate)
