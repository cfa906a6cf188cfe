"""Player of engine ``gift_pick``: free spins whose effects are picked from gifts (e.g. the seed model
models/secrets_of_christmas.toml).

Written from the rule text of the seed model (its clauses are quoted where they decide a reading; the model file names its source)
and the kind's documented params; it shares no code with the solver.

Rules played
------------
* ``c`` scatters start the feature with ``counts[c]`` free spins (10) on the
  feature's reel set; no retriggers (additional free spins cannot be won).
* Before the spins the player opens ``c`` of the gifts (``gifts``: a list of
  ``(effect, value, count)``, ``count`` identical gifts of each), drawn
  uniformly **without replacement** (a random permutation of all gifts, the
  first ``c`` taken).  Effects:

  - ``spins``: ``+value`` free spins;
  - ``multiplier``: ``+value`` added to ``base_multiplier`` (default 1); the
    resulting multiplier multiplies every free-spin win;
  - ``wild_reel``: reel ``value`` (1-based) shows the wild (param ``wild``)
    in every row for every free spin;
  - ``wild_symbol``: symbol ``value`` substitutes like the wild for every
    free spin (and still pays as itself);
  - ``expanding_symbol``: symbol ``value`` (or, for ``value = "drawn"``, one
    symbol drawn with the declared weights, param ``draw``) expands for every
    free spin: after the line wins it pays ``paytable[s][n] * lines`` when it
    shows on ``n`` reels (rule ``expanding_count = "cells"``: visible cells),
    ``n`` at least its smallest paying count; a wild reel shows no ``s``.

* A free spin pays its line wins (the simulator's own evaluator: a wild
  stands in for every regular symbol, the highest candidate of a line pays)
  and scatter pays, if the game has any, times the feature multiplier.

Wins are in ticks (``1 / tables.denom`` line-bet units).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analytic.errors import ModelError
from analytic.simulator.evaluate import evaluate_windows
from analytic.simulator.features import FeatureBatch, weighted_draw
from analytic.simulator.features.common import capped_spins, feature_params, fixed_spin_blocks, with_virtual_symbols

__all__ = ["GiftPickFeature", "prepare", "play"]

_EFFECTS = ("spins", "multiplier", "wild_reel", "wild_symbol", "expanding_symbol")


@dataclass(frozen=True)
class GiftPickFeature:
    """Parameters of a ``gift_pick`` feature (plain data)."""

    reel_set: str
    wild: str
    base_multiplier: int
    gifts: tuple  # one entry per gift: (effect, value)
    wild_symbols: tuple  # symbols some gift turns wild (order fixes the class bits)
    draw: tuple = ()  # (symbol, weight) pairs an expanding_symbol gift "drawn" draws from
    expanding_count: str = "reels"
    denom: int = 1


def prepare(game, spec) -> GiftPickFeature:
    """Read the parameters of ``spec`` (a FeatureSpec of engine ``gift_pick``).

    Raises
    ------
    ModelError
        A parameter the player cannot use, naming its key path.
    """
    p, key = feature_params(game, spec)
    names = {s.name for s in game.symbols}
    wild = p.get("wild")
    if wild not in names:
        raise ModelError(game.path, f"{key}.wild", f"unknown symbol {wild!r}")
    gifts, wsyms = [], []
    for i, g in enumerate(p.get("gifts", ())):
        if isinstance(g, dict):
            eff, val, cnt = g["effect"], g["value"], g["count"]
        else:
            eff, val, cnt = g
        if eff not in _EFFECTS:
            raise ModelError(game.path, f"{key}.gifts[{i}].effect", f"unknown effect {eff!r}")
        if eff == "wild_reel" and not 1 <= int(val) <= game.reels:
            raise ModelError(game.path, f"{key}.gifts[{i}].value", f"no reel {val!r}")
        if eff == "expanding_symbol" and val != "drawn" and val not in names:
            raise ModelError(game.path, f"{key}.gifts[{i}].value", f"unknown symbol {val!r}")
        if eff == "wild_symbol":
            if val not in names:
                raise ModelError(game.path, f"{key}.gifts[{i}].value", f"unknown symbol {val!r}")
            if val not in wsyms:
                wsyms.append(val)
        gifts.extend([(eff, val)] * int(cnt))
    most = max(int(k) for k in spec.trigger.counts)
    if len(gifts) < most:
        raise ModelError(game.path, f"{key}.gifts", f"{len(gifts)} gifts, but a trigger picks up to {most}")
    return GiftPickFeature(
        reel_set=spec.reel_set,
        wild=wild,
        base_multiplier=int(p.get("multiplier", 1)),
        gifts=tuple(gifts),
        wild_symbols=tuple(wsyms),
        draw=tuple((str(a), int(b)) for a, b in (p.get("draw") or ())),
        expanding_count=str(game.rules.get("expanding_count", "reels")),
    )


def open_gifts(prep: GiftPickFeature, picks, reels: int, rng, index=None) -> tuple:
    """Open ``picks[i]`` gifts for each instance (without replacement).

    ``index``: symbol name -> symbol index (needed for an ``expanding_symbol`` gift).

    Returns
    -------
    (extra spins, multiplier, wild reels (m x reels bool), wild-symbol class (bit mask),
    expanding symbol index per instance (-1: none))
    """
    m = len(picks)
    g = len(prep.gifts)
    order = rng.permuted(np.tile(np.arange(g), (m, 1)), axis=1)
    taken = np.arange(g)[None, :] < np.asarray(picks)[:, None]  # first picks[i] of the permutation
    spins_v = np.array([int(v) if e == "spins" else 0 for e, v in prep.gifts], dtype=np.int64)
    mult_v = np.array([int(v) if e == "multiplier" else 0 for e, v in prep.gifts], dtype=np.int64)
    extra = (spins_v[order] * taken).sum(axis=1)
    mult = prep.base_multiplier + (mult_v[order] * taken).sum(axis=1)
    wild_reels = np.zeros((m, reels), dtype=bool)
    cls = np.zeros(m, dtype=np.int64)
    exp = np.full(m, -1, dtype=np.int64)
    for j, (e, v) in enumerate(prep.gifts):
        got = (taken & (order == j)).any(axis=1)
        if e == "wild_reel":
            wild_reels[got, int(v) - 1] = True
        elif e == "wild_symbol":
            cls[got] |= 1 << prep.wild_symbols.index(v)
        elif e == "expanding_symbol":
            if v == "drawn":
                idx = np.array([index[a] for a, _ in prep.draw], dtype=np.int64)
                exp[got] = weighted_draw(idx, [b for _, b in prep.draw], int(got.sum()), rng)
            else:
                exp[got] = index[v]
    return extra, mult, wild_reels, cls, exp


def play(tables, name, prep: GiftPickFeature, counts, awards, rng, max_spins: int = 10**6) -> FeatureBatch:
    """Play ``len(awards)`` gift-pick features at once.

    Parameters
    ----------
    tables : Tables
    name : str
    prep : GiftPickFeature
    counts : ndarray of int, shape (m,)
        Scatters that started each instance = gifts it opens.
    awards : ndarray of int, shape (m,)
        Initial free spins (from the trigger table).
    rng : numpy.random.Generator
    max_spins : int

    Returns
    -------
    FeatureBatch
    """
    m = len(awards)
    picks = np.minimum(np.asarray(counts, dtype=np.int64), len(prep.gifts))
    index = {n: tables.index(n) for n in tables.symbol_names}
    extra, mult, wild_reels, cls, exp = open_gifts(prep, picks, tables.reels, rng, index)
    # expanding pay in ticks, [symbol index, reels (or cells) showing it]
    exp_table = np.zeros((len(tables.symbol_names), tables.cells + 1), dtype=np.int64)
    for n in {a for a, _ in prep.draw} | {v for e, v in prep.gifts if e == "expanding_symbol" and v != "drawn"}:
        pt = tables.paytable[n]
        kmin, kmax = min(k for k, v in pt.items() if v > 0), max(pt)
        for k in range(kmin, tables.cells + 1):
            exp_table[index[n], k] = pt.get(min(k, kmax), 0) * tables.n_lines * tables.denom
    total = np.asarray(awards, dtype=np.int64) + extra
    spins, limited = capped_spins(total, max_spins)

    wild = tables.index(prep.wild)
    nsym = len(tables.symbol_names)
    # virtual copies of the symbols a gift turns wild: they support what the wild supports, and themselves
    extra_syms = []
    for sname in prep.wild_symbols:
        sup = tables.cand_support[:, wild].copy()
        sup |= tables.cand_support[:, tables.index(sname)]
        extra_syms.append((sup, tables.multiplier[tables.index(sname)]))
    ext, virt = with_virtual_symbols(tables, extra_syms)
    ncls = 1 << len(prep.wild_symbols)
    remap = np.tile(np.arange(nsym, dtype=np.int16), (ncls, 1))
    for c in range(ncls):
        for b, sname in enumerate(prep.wild_symbols):
            if c >> b & 1:
                remap[c, tables.index(sname)] = virt[b]

    win = np.zeros(m, dtype=np.int64)
    for owner, w in fixed_spin_blocks(tables, prep.reel_set, spins, rng):
        wr = wild_reels[owner]  # n x reels
        w[wr] = wild
        e = exp[owner]
        shows = (w == e[:, None, None]) & (e >= 0)[:, None, None]
        k = shows.any(axis=2).sum(axis=1) if prep.expanding_count == "reels" else shows.sum(axis=(1, 2))
        w = remap[cls[owner][:, None, None], w]
        ev = evaluate_windows(ext, w)
        epay = np.where(e >= 0, exp_table[np.maximum(e, 0), k], 0)
        np.add.at(win, owner, (ev.line_win + ev.scatter_win + epay) * mult[owner])
    return FeatureBatch(win, spins, limited)
