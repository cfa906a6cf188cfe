"""Mechanic ``reel_wild_multipliers``: a wild's multiplier drawn per reel in each free spin.

``reel_wild_multipliers = { wild = "W", reels = { 2 = { 2 = 1, 3 = 1 }, 4 = { 5 = 1 } } }``:
in every free spin, for each listed reel ``k`` (1-based) a multiplier
``m_k`` is drawn from ``{ multiplier = weight }`` (integer weights),
independently of the other reels and of the other spins; every cell of
``wild`` that lands on reel ``k`` in that spin carries ``m_k`` in place of
the wild's declared ``multiplier`` (on a reel not listed it keeps its
declared one).  The spin is then paid by the game's own conventions for wild
multipliers: on paylines the multipliers of the wilds in a run multiply, in a
ways game a reel's matching cells are counted by their multipliers (a way is
weighted by the product of its wilds' multipliers).  Scatter pays are not
multiplied; the feature's ``multiplier`` applies on top.

One spin's exact law of (award, win) is the mixture, with weights the product
of the drawn multipliers' weights, of the laws of the spin with every
multiplier vector fixed (:func:`analytic.features.graph.spin_outcomes.free_spin_outcomes`);
the spins stay i.i.d., so engine ``wald`` solves the feature as before.

Refused here: a ``wild`` that is not a symbol of role ``wild`` (a
``wild_scatter``'s drawn multiplier is not solved), a wild with ``expands =
true`` (its expansion with a drawn multiplier is not solved), a reel the
wild never shows on the feature's reels (the draw would change nothing).
"""

from __future__ import annotations

from analytic.model.game import frozen_mapping
from analytic.model.mechanics import register_mechanic

#: most multiplier vectors one spin mixes (the exact walk runs once per vector)
MAX_VECTORS = 4096


def validate(values, key, ctx) -> dict:
    """``{"reel_wild_multipliers": {"wild": str, "reels": {reel: {multiplier: weight}}}}`` (reels 1-based, ascending)."""
    k = ctx.join(key, "reel_wild_multipliers")
    t = ctx.table(values["reel_wild_multipliers"], k, ("wild", "reels"), required=("wild", "reels"))
    wk = ctx.join(k, "wild")
    wild = ctx.symbol(t["wild"], wk, roles=("wild",))
    if ctx.symbols[wild].expands:
        ctx.fail(wk, f"wild {wild!r} expands (symbols.{wild}.expands): a drawn multiplier on an expanding wild "
                     "is not solved")
    rk = ctx.join(k, "reels")
    reels = ctx.counts(t["reels"], rk, lo=1, hi=ctx.reels, what="reel",
                       hi_reason=f"the game has {ctx.reels} reels",
                       value_fn=lambda v, kk: ctx.weights(v, kk, what="multiplier", lo=1))
    n = 1
    for r in reels.values():
        n *= sum(1 for w in r.values() if w)
    if n > MAX_VECTORS:
        ctx.fail(rk, f"{n} multiplier vectors per spin (the product over the reels of the multipliers with a "
                     f"weight); at most {MAX_VECTORS} are solved")
    f = ctx.feature
    if f is not None and f.reel_set is not None and f.reel_set in ctx.reel_sets:
        strips = ctx.reel_sets[f.reel_set]
        for reel in reels:
            if wild not in strips[reel - 1]:
                ctx.fail(ctx.join(rk, str(reel)), f"wild {wild!r} is not on reel {reel} of reel set "
                                                  f"{f.reel_set!r}: its drawn multiplier would change nothing")
    return {"reel_wild_multipliers": frozen_mapping({
        "wild": wild,
        "reels": frozen_mapping({r: frozen_mapping(m) for r, m in reels.items()}),
    })}


register_mechanic("reel_wild_multipliers", ("reel_wild_multipliers",), validate)
