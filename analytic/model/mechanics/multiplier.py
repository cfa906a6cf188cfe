"""Mechanic ``multiplier``: a global multiplier of every win of the feature's spins.

``multiplier = M`` (integer >= 1, default 1): each line win, scatter pay and
expansion pay of a free spin is multiplied by ``M``; in a gift pick the
gifts' multiplier effects add to it.
"""

from __future__ import annotations

from analytic.model.mechanics import register_mechanic


def validate(values, key, ctx) -> dict:
    """``{"multiplier": int >= 1}``."""
    return {"multiplier": ctx.integer(values["multiplier"], ctx.join(key, "multiplier"), min=1)}


register_mechanic("multiplier", ("multiplier",), validate)
