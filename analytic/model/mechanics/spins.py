"""Mechanic ``spins``: the spins a free-spins feature plays.

The trigger's ``counts`` give the spins awarded at the start (the award
table).  This mechanic adds:

* ``retrigger``: extra spins during the feature, either a table
  ``{ symbols = [...], counts = { count = spins } }`` (``count`` of the
  symbols in a window award ``spins``) or a per-symbol rule
  ``{ per_symbol = N }``: a window showing ``b >= 2`` of the feature's
  trigger symbols awards ``N * (b - 1)`` spins (2 symbols: ``N``, every
  further one ``N`` more);
* ``max_spins``: a ceiling on the spins one feature awards in total (awards
  beyond it are lost).  Honoured by engine ``wald`` (with a retrigger up to
  200: :func:`analytic.features.engines.wald_spins.ceiling_moments`);
  refused at load by the other engines.

Per spin: awards are added to the spins left after the spin is paid.
"""

from __future__ import annotations

from analytic.model.mechanics import register_mechanic
from analytic.limits import MAX_AWARD
from analytic.model.game import frozen_mapping

KEYS = ("retrigger", "max_spins")


def validate(values, key, ctx) -> dict:
    """Normalise ``retrigger`` (a :class:`~analytic.model.game.Trigger` or ``{"per_symbol": N}``) and ``max_spins``."""
    f = ctx.feature
    out: dict = {}
    if "retrigger" in values:
        rk = ctx.join(key, "retrigger")
        r = values["retrigger"]
        if isinstance(r, dict) and "per_symbol" in r:
            t = ctx.table(r, rk, ("per_symbol",))
            n = ctx.integer(t["per_symbol"], ctx.join(rk, "per_symbol"), min=1, max=MAX_AWARD)
            if f.trigger is None:
                ctx.fail(ctx.join(key, "trigger"), "required with retrigger.per_symbol: its symbols are counted")
            out["retrigger"] = frozen_mapping({"per_symbol": n})
        else:
            reel_sets = [f.reel_set] if f.reel_set is not None else []
            out["retrigger"] = ctx.trigger(r, rk, reel_sets=reel_sets, allow_requires=False)
    if "max_spins" in values:
        out["max_spins"] = ctx.integer(values["max_spins"], ctx.join(key, "max_spins"), min=1, max=MAX_AWARD)
    return out


register_mechanic("spins", KEYS, validate)
