"""Mechanic ``scatter_pays``: whether the game's scatter pays (``[scatter]``) also pay in the feature's spins.

``scatter_pays = true`` (default) or ``false``.
"""

from __future__ import annotations

from analytic.model.mechanics import register_mechanic


def validate(values, key, ctx) -> dict:
    """``{"scatter_pays": bool}``."""
    return {"scatter_pays": ctx.boolean(values["scatter_pays"], ctx.join(key, "scatter_pays"))}


register_mechanic("scatter_pays", ("scatter_pays",), validate)
