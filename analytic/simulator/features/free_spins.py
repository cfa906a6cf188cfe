"""Player of engine ``wald`` (free spins in a fixed state with a retrigger table; e.g. Atkins Diet, Book of Ra).

Rules played
------------
* The trigger awards ``n`` spins on the feature's reel set; every spin is
  evaluated like a base spin (line wins, and scatter pays unless
  ``scatter_pays = false``).
* ``multiplier`` (default 1) multiplies every free-spin win.
* ``retrigger = {symbols, counts}``: a free spin showing ``k`` retrigger
  symbols (``k`` at least the smallest key) adds ``counts[k]`` spins, without
  limit.
* ``expanding_symbol = {choose_from, weights}``: one symbol drawn (weighted)
  when the feature starts, kept through retriggers.  After the normal wins of
  a spin, if it shows on at least ``k`` reels (rule ``expanding_count =
  "reels"``, default) or cells (``"cells"``), ``k`` being its smallest paying
  count, it pays ``paytable[sym][k'] * number of paylines`` (``k'`` the number
  counted, capped at the largest paytable count), anywhere in the window.
  Rule ``expanding_line_win = "wild_led_only"`` withholds the normal line win
  of a payline whose first cell is the expanding symbol (default ``"paid"``).
* ``reel_wild_multipliers = {wild, reels}``: in every spin each listed reel
  draws a multiplier by its weights (independently of the other reels and
  spins), and every ``wild`` cell on that reel carries it in that spin's
  line or ways wins instead of the wild's own multiplier.
* A single instance stops after ``max_spins`` spins and is reported as
  limited (a feature whose expected extra spins per spin is >= 1 would never
  end).

Not played: other features triggered during free spins (line triggers, other
features' scatters) are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from analytic.errors import ModelError, UnboundedFeatureError
from analytic.simulator.evaluate import base_windows, evaluate_windows, int_keys, lookup_award, plain
from analytic.simulator.features import FeatureBatch, weighted_draw
from analytic.simulator.features.common import block_sizes, feature_params, retire_limited

__all__ = ["FreeSpins", "prepare", "play", "expected_awards"]


@dataclass(frozen=True)
class FreeSpins:
    """Parameters of a ``free_spins`` feature, read once (plain data)."""

    reel_set: str
    multiplier: int
    scatter_pays: bool
    retrigger_symbols: tuple
    retrigger_counts: tuple  # ((count, spins), ...)
    expanding: tuple  # symbol names to choose from (empty = none)
    expanding_weights: tuple
    expanding_count: str
    expanding_line_win: str
    denom: int = 1
    max_spins: int | None = None  # the model's ceiling on a feature's spins (spins mechanic), None: none
    wild_draws: tuple = ()  # ((0-based reel, wild name, multipliers, weights), ...): reel_wild_multipliers


def prepare(game, spec) -> FreeSpins:
    """Read the parameters of ``spec`` (a ``free_spins`` FeatureSpec).

    Raises
    ------
    ModelError
        A parameter the player cannot use, naming its key path.
    """
    p, key = feature_params(game, spec, reel_key="reel_set", need="free spins need a known reel set")
    mult = Fraction(str(p.get("multiplier", 1)))
    if mult.denominator != 1 or mult < 1:
        raise ModelError(game.path, f"{key}.multiplier", f"the simulator needs a whole multiplier >= 1, got {mult}")
    rsym, rcounts = (), ()
    r = spec.params.get("retrigger")
    if r:
        if hasattr(r, "symbols"):  # a Trigger (the loader's normal form)
            rsym, rc = tuple(sorted(r.symbols)), r.counts
        else:  # a plain table {symbols, counts}
            rsym, rc = tuple(r.get("symbols", ())), r.get("counts", {})
        rcounts = tuple(sorted((int(k), int(v)) for k, v in int_keys(rc).items()))
        if not rsym or not rcounts:
            raise ModelError(game.path, f"{key}.retrigger", "needs symbols and counts")
    names, weights = (), ()
    if p.get("expanding_symbol"):
        e = p["expanding_symbol"]
        choose = e.get("choose_from", e) if isinstance(e, dict) else e
        w = e.get("weights") if isinstance(e, dict) else None
        if isinstance(choose, dict):
            names = tuple(choose)
            weights = tuple(int(v) for v in choose.values())
        else:
            names = tuple(choose)
            if w is None:
                weights = (1,) * len(names)
            elif isinstance(w, dict):
                weights = tuple(int(w[n]) for n in names)
            else:
                weights = tuple(int(x) for x in w)
        if len(weights) != len(names) or not names or sum(weights) <= 0:
            raise ModelError(game.path, f"{key}.expanding_symbol", "choose_from and weights do not match")
        for n in names:
            if n not in game.paytable or not any(int(v) > 0 for v in game.paytable[n].values()):
                raise ModelError(game.path, f"{key}.expanding_symbol", f"{n!r} has no line pays")
    rules = plain(game.rules)
    if rcounts and p.get("max_spins") is None:  # a ceiling ends every feature
        ea = expected_awards(game, spec.reel_set, rsym, dict(rcounts))
        if ea >= 1:
            raise UnboundedFeatureError(
                game.path, f"{key}.retrigger",
                f"expected extra spins per free spin is {ea} = {float(ea):.6f} >= 1 on reel set "
                f"{spec.reel_set!r}: "
                + ("with positive probability the feature never ends" if ea > 1 else
                   "the feature ends with probability 1 (unless every spin awards exactly one spin), but "
                   "its expected length, and so its mean win, is infinite")
                + "; lower the retrigger awards or the retrigger symbols on the strips",
            )
    draws = []
    rwm = p.get("reel_wild_multipliers")
    if rwm:
        for reel, law in sorted(int_keys(rwm["reels"]).items()):
            items = sorted(int_keys(law).items())
            draws.append((reel - 1, str(rwm["wild"]), tuple(m for m, _ in items), tuple(int(w) for _, w in items)))
    return FreeSpins(
        wild_draws=tuple(draws),
        reel_set=spec.reel_set,
        multiplier=int(mult),
        scatter_pays=bool(p.get("scatter_pays", True)),
        retrigger_symbols=rsym,
        retrigger_counts=rcounts,
        expanding=names,
        expanding_weights=weights,
        expanding_count=str(rules.get("expanding_count", "reels")),
        expanding_line_win=str(rules.get("expanding_line_win", "paid")),
        max_spins=None if p.get("max_spins") is None else int(p["max_spins"]),
    )


def expected_awards(game, reel_set: str, symbols, counts: dict) -> Fraction:
    """Exact expected award of one spin of ``reel_set`` for a count table.

    The number of ``symbols`` cells each reel shows is read off every stop of
    its strip; reels are independent, so the window's count distribution is
    the convolution of the reels' distributions.

    Parameters
    ----------
    game : Game
    reel_set : str
    symbols : iterable of str
        Symbols counted (cells anywhere in the window).
    counts : dict of int -> int
        Count -> award (spins).

    Returns
    -------
    Fraction
        Expected award per spin (spins).
    """
    symbols = set(symbols)
    dist = {0: Fraction(1)}
    for strip in game.reel_sets[reel_set]:
        L = len(strip)
        per = {}
        for s in range(L):
            c = sum(1 for r in range(game.rows) if strip[(s + r) % L] in symbols)
            per[c] = per.get(c, 0) + 1
        new = {}
        for a, pa in dist.items():
            for b, nb in per.items():
                new[a + b] = new.get(a + b, 0) + pa * Fraction(nb, L)
        dist = new
    return sum((p * lookup_award(counts, k) for k, p in dist.items()), Fraction(0))


def _expanding_table(tables, prep: FreeSpins) -> np.ndarray:
    """Expanding pay in ticks, indexed [symbol index, number counted]."""
    out = np.zeros((len(tables.symbol_names), tables.cells + 1), dtype=np.int64)
    for name in prep.expanding:
        pt = tables.paytable[name]
        kmin = min(k for k, v in pt.items() if v > 0)
        kmax = max(pt)
        for k in range(kmin, tables.cells + 1):
            out[tables.index(name), k] = pt.get(min(k, kmax), 0) * tables.n_lines * tables.denom
    return out


def play(tables, name, prep: FreeSpins, counts, awards, rng, max_spins: int = 10**6) -> FeatureBatch:
    """Play ``len(awards)`` free-spin features at once.

    Parameters
    ----------
    tables : Tables
    name : str
        Feature name (for messages).
    prep : FreeSpins
    counts : ndarray of int, shape (m,)
        Trigger-symbol counts (unused: the award already encodes them).
    awards : ndarray of int, shape (m,)
        Initial free spins of each instance.
    rng : numpy.random.Generator
    max_spins : int
        Spin limit of one instance.

    Returns
    -------
    FeatureBatch
        Wins in ticks, spins played, limited flags.
    """
    m = len(awards)
    left = np.asarray(awards, dtype=np.int64).copy()
    if prep.max_spins is not None:
        left = np.minimum(left, prep.max_spins)  # the ceiling on the spins awarded in total
    played = np.zeros(m, dtype=np.int64)
    win = np.zeros(m, dtype=np.int64)
    limited = np.zeros(m, dtype=bool)
    es = None
    if prep.expanding:
        idx = np.array([tables.index(n) for n in prep.expanding], dtype=np.int16)
        es = weighted_draw(idx, prep.expanding_weights, m, rng)
        exp_table = _expanding_table(tables, prep)
        first_rows = tables.lines[:, 0]
    if prep.retrigger_symbols:
        rmask = tables.mask(prep.retrigger_symbols)
        rtable = np.array([lookup_award(dict(prep.retrigger_counts), k) for k in range(tables.cells + 1)], dtype=np.int64)

    # Every spin still to play is known to be played, and the state (the
    # expanding symbol) never changes, so an instance may play all its
    # remaining spins in one block; retriggers then add the next block.
    # Blocks keep the loop short even when few instances are left.
    active = np.nonzero(left > 0)[0]
    while active.size:
        block = block_sizes(active, left, played, max_spins)
        owner = np.repeat(active, block)  # instance of each spin
        n = owner.size
        w = tables.spin(prep.reel_set, n, rng)
        shown, _ = base_windows(tables, None, w)  # expanding wilds: lines read them, counts read w
        cm = None
        if prep.wild_draws:
            # each listed reel's wild cells carry the multiplier drawn for that reel in this spin
            cm = tables.multiplier[shown]
            for reel, wild, values, weights in prep.wild_draws:
                m = weighted_draw(np.asarray(values, dtype=np.int64), weights, n, rng)
                col = shown[:, reel, :]
                cm[:, reel, :] = np.where(col == tables.index(wild), m[:, None], cm[:, reel, :])
        ev = evaluate_windows(tables, shown, w, cell_multipliers=cm)
        if es is not None and prep.expanding_line_win == "wild_led_only":
            e = es[owner]
            first = w[:, 0, first_rows]  # n x lines
            spin = np.where(first == e[:, None], 0, ev.line_pays).sum(axis=1)
        else:
            spin = ev.line_win.copy()
        if prep.scatter_pays:
            spin += ev.scatter_win
        if es is not None:
            e = es[owner]
            shows = w == e[:, None, None]
            k = shows.any(axis=2).sum(axis=1) if prep.expanding_count == "reels" else shows.sum(axis=(1, 2))
            spin += exp_table[e, k]
        spin = spin * prep.multiplier
        if tables.spin_cap_ticks is not None:
            spin = np.minimum(spin, tables.spin_cap_ticks)  # [cap] spin: each free spin's win
        np.add.at(win, owner, spin)
        played[active] += block
        left[active] -= block
        if prep.retrigger_symbols:
            np.add.at(left, owner, rtable[rmask[w.reshape(n, -1)].sum(axis=1)])
            if prep.max_spins is not None:
                # awards beyond the ceiling are lost: spins awarded in total (played + left) <= max_spins
                left[active] = np.minimum(left[active], prep.max_spins - played[active])
        active = retire_limited(active, left, played, limited, max_spins)
    return FeatureBatch(win, played, limited)
