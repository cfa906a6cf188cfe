"""Player of engine ``revealed_wild_reels``: free spins with a drawn expanding symbol and wild reels revealing
multipliers (e.g. the seed model models/book_of_christmas_eve.toml).

Written from the rule text of the seed model (its clauses are quoted where they decide a reading; the model file names its source)
and the kind's documented params; it shares no code with the solver.

Rules played
------------
* The trigger awards ``n`` free spins on the feature's reel set (``n`` from
  the trigger's ``counts``).
* ``retrigger = {symbols, counts}`` (optional): after a free spin is paid,
  ``k`` retrigger symbols in its window award ``counts[k]`` more spins
  (largest listed count not above ``k``).  Rule ``revealed_retrigger_count``:
  ``"landed"`` (default) counts every retrigger-symbol cell of the window as
  it landed, before a Book turns its reel wild; ``"reels"`` counts each reel
  showing a retrigger symbol once.
* Before the spins one paying symbol ``s`` is drawn from
  ``expanding_symbol.choose_from`` (``weights``, default uniform) and kept
  for the whole feature.
* In a free spin every reel showing the Book (param ``book``) in any row
  expands: the whole reel becomes a wild that reveals a multiplier drawn
  from ``multipliers = {m: weight}``, independently per reel.
* Normal line wins are evaluated on the expanded window (the simulator's own
  line evaluator, :func:`analytic.simulator.evaluate.evaluate_windows`): a
  Book reel supports every regular symbol and the multipliers of the Book
  reels in a line's run multiply its pay; the highest candidate pays.
* Scatter pays (the game's ``[scatter]``): the scatter symbols counted as
  they landed, before a Book turns its reel wild (a Book that is a scatter
  pays as one), ``scatter.pays[count]`` total bets.
* Then the *expansion*: ``k`` = reels showing ``s`` or an expanded Book (a
  Book has priority on a reel it shares with ``s``, counted once).  When
  ``k`` reaches the smallest paying count of ``s`` the spin also pays
  ``paytable[s][k] * number of paylines * product of the Book reels'
  multipliers``, whatever the reels' positions.  Rule
  ``wild_reels_expansion = "needs_symbol"`` requires at least one reel
  actually showing ``s`` (not a Book) for this win; ``"pays"`` (default)
  lets Book reels alone form it.
* Rule ``published_max_win``: ``"cap"`` keeps the game's ``[cap]``
  (applied to the round by :mod:`analytic.simulator.rounds`);
  ``"theoretical"`` plays without a cap (the prepared feature says
  ``uncapped``, which :func:`analytic.simulator.rounds.play_rounds` reads).

Wins are in ticks (``1 / tables.denom`` line-bet units).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fractions import Fraction

from analytic.errors import ModelError, UnboundedFeatureError
from analytic.simulator.evaluate import evaluate_windows, int_keys, lookup_award, plain
from analytic.simulator.features import FeatureBatch, weighted_draw
from analytic.simulator.features.common import (
    block_sizes,
    capped_spins,
    feature_params,
    retire_limited,
    fixed_spin_blocks,
    reel_expansion_pays,
    with_virtual_symbols,
)

__all__ = ["RevealedWildReelsFeature", "prepare", "play", "with_virtual_symbols"]


@dataclass(frozen=True)
class RevealedWildReelsFeature:
    """Parameters of a ``revealed_wild_reels`` feature (plain data)."""

    reel_set: str
    book: str
    multipliers: tuple  # ((m, weight), ...)
    choose_from: tuple  # symbol names
    weights: tuple
    wild_reels_expansion: str  # "pays" | "needs_symbol"
    max_win: str  # "cap" | "theoretical"
    uncapped: bool = False  # True: the round win is not capped (rule published_max_win = "theoretical")
    denom: int = 1
    retrigger_symbols: tuple = ()
    retrigger_counts: tuple = ()  # ((count, spins), ...)
    retrigger_count: str = "landed"  # "landed" | "reels"


def prepare(game, spec) -> RevealedWildReelsFeature:
    """Read the parameters of ``spec`` (a FeatureSpec of engine ``revealed_wild_reels``).

    Raises
    ------
    ModelError
        A parameter the player cannot use, naming its key path.
    """
    p, key = feature_params(game, spec)
    book = p.get("revealed_by")
    if book not in {s.name for s in game.symbols}:
        raise ModelError(game.path, f"{key}.wild_reels.revealed_by", f"unknown symbol {book!r}")
    mults = tuple(sorted((int(k), int(v)) for k, v in int_keys(p.get("multipliers", {})).items()))
    if not mults or sum(w for _, w in mults) <= 0 or any(m < 1 for m, _ in mults):
        raise ModelError(game.path, f"{key}.wild_reels.multipliers", "needs multipliers >= 1 with positive weights")
    e = p.get("expanding_symbol") or {}
    choose = tuple(e.get("choose_from", ()))
    weights = tuple(int(x) for x in (e.get("weights") or (1,) * len(choose)))
    if not choose or len(weights) != len(choose):
        raise ModelError(game.path, f"{key}.expanding_symbol", "choose_from and weights do not match")
    for n in choose:
        if not any(int(v) > 0 for v in game.paytable.get(n, {}).values()):
            raise ModelError(game.path, f"{key}.expanding_symbol", f"{n!r} has no line pays")
    rules = plain(game.rules)
    rsym, rcounts = (), ()
    r = spec.params.get("retrigger")
    if r is not None:
        rsym = tuple(sorted(r.symbols))
        rcounts = tuple(sorted((int(k), int(v)) for k, v in r.counts.items()))
    per = str(rules.get("revealed_retrigger_count", "landed"))
    if rcounts:
        ea = _expected_award(game, spec.reel_set, set(rsym), dict(rcounts), per)
        if ea >= 1:
            raise UnboundedFeatureError(game.path, f"{key}.retrigger",
                                        f"expected extra spins per free spin is {ea} >= 1: the feature's "
                                        "expected length is infinite; lower the retrigger awards")
    return RevealedWildReelsFeature(
        retrigger_symbols=rsym,
        retrigger_counts=rcounts,
        retrigger_count=per,
        reel_set=spec.reel_set,
        book=book,
        multipliers=mults,
        choose_from=choose,
        weights=weights,
        wild_reels_expansion=str(rules.get("wild_reels_expansion", "pays")),
        max_win=str(rules.get("published_max_win", "cap")),
        uncapped=str(rules.get("published_max_win", "cap")) == "theoretical",
    )


def _expected_award(game, reel_set: str, symbols: set, counts: dict, per: str) -> Fraction:
    """Exact expected award of one free spin: the reels' count laws convolved (reels are independent)."""
    dist = {0: Fraction(1)}
    for strip in game.reel_sets[reel_set]:
        L = len(strip)
        one: dict = {}
        for st in range(L):
            c = sum(1 for r in range(game.rows) if strip[(st + r) % L] in symbols)
            c = min(c, 1) if per == "reels" else c
            one[c] = one.get(c, 0) + Fraction(1, L)
        new: dict = {}
        for a, pa in dist.items():
            for c, pc in one.items():
                new[a + c] = new.get(a + c, 0) + pa * pc
        dist = new
    return sum((p * lookup_award(counts, k) for k, p in dist.items()), Fraction(0))


def _expansion_table(tables, names) -> tuple:
    """(pay in ticks indexed [symbol, reels counted] for all paylines, smallest paying count per symbol)."""
    nsym = len(tables.symbol_names)
    pay = np.zeros((nsym, tables.reels + 1), dtype=np.int64)
    kmin = np.full(nsym, tables.reels + 1, dtype=np.int64)
    idx = [tables.index(n) for n in names]
    pay[idx], kmin[idx] = reel_expansion_pays(tables, names)
    return pay, kmin


def play(tables, name, prep: RevealedWildReelsFeature, counts, awards, rng, max_spins: int = 10**6) -> FeatureBatch:
    """Play ``len(awards)`` revealed-wild-reels features at once.

    Parameters
    ----------
    tables : Tables
    name : str
    prep : RevealedWildReelsFeature
    counts : ndarray of int, shape (m,)
        Trigger counts (unused: the award gives the spins).
    awards : ndarray of int, shape (m,)
        Free spins of each instance.
    rng : numpy.random.Generator
    max_spins : int
        Spin limit of one instance.

    Returns
    -------
    FeatureBatch
    """
    m = len(awards)
    spins, limited = capped_spins(awards, max_spins)
    win = np.zeros(m, dtype=np.int64)
    sym_idx = np.array([tables.index(n) for n in prep.choose_from], dtype=np.int16)
    chosen = weighted_draw(sym_idx, prep.weights, m, rng)
    book = tables.index(prep.book)
    mvals = np.array([mm for mm, _ in prep.multipliers], dtype=np.int64)
    mweights = [w for _, w in prep.multipliers]
    book_support = tables.cand_support[:, book]
    ext, virt = with_virtual_symbols(tables, [(book_support, mm, True) for mm in mvals])  # the reels are wild
    exp_pay, kmin = _expansion_table(tables, prep.choose_from)
    needs_symbol = prep.wild_reels_expansion == "needs_symbol"

    def spin_wins(owner, w):
        n = owner.size
        is_book = (w == book).any(axis=2)  # n x reels
        which = weighted_draw(np.arange(len(mvals)), mweights, n * tables.reels, rng).reshape(n, tables.reels)
        reel_mult = np.where(is_book, mvals[which], 1)
        w2 = w.copy()
        w2[is_book] = virt[which[is_book]][:, None]  # the whole reel becomes the multiplier wild
        ev = evaluate_windows(ext, w2)
        # scatter pays count the scatter symbols as they landed (a Book pays as a scatter, then its reel is wild)
        spin_win = ev.line_win + tables.scatter_pays[tables.scatter_mask[w].sum(axis=(1, 2))]
        s = chosen[owner]
        shows = (w == s[:, None, None]).any(axis=2) & ~is_book
        k = (shows | is_book).sum(axis=1)
        ok = k >= kmin[s]
        if needs_symbol:
            ok &= shows.any(axis=1)
        spin_win += np.where(ok, exp_pay[s, k] * reel_mult.prod(axis=1), 0)
        np.add.at(win, owner, spin_win)

    if not prep.retrigger_counts:
        for owner, w in fixed_spin_blocks(tables, prep.reel_set, spins, rng):
            spin_wins(owner, w)
        return FeatureBatch(win, spins, limited)

    # retriggers: the drawn symbol never changes, so an instance plays all its spins left in one
    # block; the awards of those spins (counted on the window as it landed) make the next block
    rmask = tables.mask(prep.retrigger_symbols)
    counts = dict(prep.retrigger_counts)
    rtable = np.array([lookup_award(counts, k) for k in range(tables.cells + 1)], dtype=np.int64)
    left = np.asarray(awards, dtype=np.int64).copy()
    played = np.zeros(m, dtype=np.int64)
    limited = np.zeros(m, dtype=bool)
    active = np.nonzero(left > 0)[0]
    while active.size:
        block = block_sizes(active, left, played, max_spins)
        owner = np.repeat(active, block)
        w = tables.spin(prep.reel_set, owner.size, rng)
        spin_wins(owner, w)
        played[active] += block
        left[active] -= block
        hit = rmask[w]  # n x reels x rows, before any reel turns wild
        k = hit.any(axis=2).sum(axis=1) if prep.retrigger_count == "reels" else hit.sum(axis=(1, 2))
        np.add.at(left, owner, rtable[k])
        active = retire_limited(active, left, played, limited, max_spins)
    return FeatureBatch(win, played, limited)
