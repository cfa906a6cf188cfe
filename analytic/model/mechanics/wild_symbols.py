"""Mechanic ``wild_symbols``: symbols that turn wild for the whole feature.

``wild_symbols = { symbols = ["bell"], wild = "wild" }``: every cell showing
one of ``symbols`` is read as the ``wild`` symbol in the feature's spins.
(A gift pick's ``wild_symbol`` gifts set this per feature play; declared on
its own it is refused by every engine until one solves it.)
"""

from __future__ import annotations

from analytic.model.mechanics import register_mechanic
from analytic.model.game import frozen_mapping


def validate(values, key, ctx) -> dict:
    """``{"wild_symbols": {"symbols": tuple, "wild": str}}``."""
    k = ctx.join(key, "wild_symbols")
    t = ctx.table(values["wild_symbols"], k, ("symbols", "wild"), required=("symbols", "wild"))
    syms = ctx.symbol_list(t["symbols"], ctx.join(k, "symbols"), roles=("regular",))
    wild = ctx.symbol(t["wild"], ctx.join(k, "wild"), roles=("wild",))
    return {"wild_symbols": frozen_mapping({"symbols": tuple(syms), "wild": wild})}


register_mechanic("wild_symbols", ("wild_symbols",), validate)
