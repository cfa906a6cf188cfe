"""Feature engines: the exact solvers a declared feature is handed to.

The loader picks an engine from the mechanics a feature declares
(:mod:`analytic.model.mechanics.engines`); each module here registers the
solver of that engine name (:func:`analytic.features.result.register_solver`):

* :mod:`.wald_spins` -- a fixed state with a retrigger table (Wald's identities
  and the retrigger law; the state graph is :mod:`analytic.features.graph`);
* :mod:`.revealed_wild_reels` -- multiplied wild reels revealed by a symbol, with
  an expanding symbol drawn at the start (i.i.d. spins per drawn symbol);
* :mod:`.gift_pick` -- a gift pick without replacement setting the spins'
  multiplier, wild reels and wild symbols;
* :mod:`.drawn_expanding` -- expanding symbols drawn at each award with repeat
  multipliers to a ceiling, optionally a ladder with golden reels;
* :mod:`.pick_bonus` -- a pick bonus's prize law.
"""
