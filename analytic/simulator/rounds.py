"""Play rounds of a bet mode as a player would.

A *round* is what one bet buys: a base spin of the mode's reel set plus every
feature it starts (of the features whose triggers the window meets only one
starts, rule ``simultaneous_triggers``, :func:`_one_per_spin`; line-triggered
bonuses start besides), or, for a feature-buy mode, the bought feature alone (the
trigger count drawn from the mode's ``buy_counts`` weights, no base spin
win).  The round's total win is capped at the game's win cap in total-bet
multiples (a currency cap depends on the stake: it is compiled into the
tables when ``simulate(..., stake=...)`` is given; a prepared feature saying ``uncapped`` -- engine ``revealed_wild_reels`` under rule
``published_max_win = "theoretical"`` -- lifts it).  A prepared feature may also
pre-empt other features triggered by the same window (``preempts``) and
carry a gamble played before it (``gamble``), see :func:`_preempt` and
:func:`_gamble`.

Base spins are evaluated as one numpy batch; the rounds that start a feature
are handed, as a batch, to the player of the feature's kind
(:mod:`analytic.simulator.features`).  Every amount is in ticks
(``1 / tables.denom`` line-bet units).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from analytic.errors import ModelError
from analytic.simulator.evaluate import Tables, base_windows, evaluate_windows
from analytic.simulator.features import get_player, weighted_draw

__all__ = ["RoundBatch", "play_rounds", "DEFAULT_MAX_SPINS"]

#: Spin limit of one feature instance (a feature that would never end stops here).
DEFAULT_MAX_SPINS = 10**6


@dataclass
class RoundBatch:
    """Outcome of ``n`` rounds (amounts in ticks).

    Attributes
    ----------
    win : ndarray of int64, shape (n,)
        Total (capped) win of each round.
    base_win : ndarray of int64, shape (n,)
        Base spin win (0 for a feature buy).
    feature_win : ndarray of int64, shape (n,)
        Win of the features the round played (before the cap).
    triggered : ndarray of bool, shape (n,)
        The round played at least one feature.
    capped : ndarray of bool, shape (n,)
        The round's win was cut to the cap.
    limited : ndarray of bool, shape (n,)
        A feature of the round stopped at the spin limit.
    features : dict of str -> list of int
        Feature -> [instances played, spins played, win in ticks].
    """

    win: np.ndarray
    base_win: np.ndarray
    feature_win: np.ndarray
    triggered: np.ndarray
    capped: np.ndarray
    limited: np.ndarray
    features: dict = field(default_factory=dict)


def play_rounds(
    tables: Tables,
    mode: str,
    n: int,
    rng: np.random.Generator,
    max_spins: int = DEFAULT_MAX_SPINS,
) -> RoundBatch:
    """Play ``n`` rounds of bet mode ``mode``.

    Parameters
    ----------
    tables : Tables
        From :func:`analytic.simulator.evaluate.compile_tables`.
    mode : str
        Bet mode name.
    n : int
        Number of rounds.
    rng : numpy.random.Generator
        The only source of randomness.
    max_spins : int
        Spin limit of one feature instance.

    Returns
    -------
    RoundBatch
    """
    m = tables.modes[mode]
    instances = []  # (feature, round indices, trigger counts, awards)
    if m["buys"]:
        fname = m["buys"]
        keys = sorted(m["buy_counts"])
        counts = weighted_draw(keys, [m["buy_counts"][k] for k in keys], n, rng).astype(np.int64)
        trig = tables.triggers.get(fname)
        awards = trig[2][counts] if trig is not None else np.ones(n, dtype=np.int64)
        base = np.zeros(n, dtype=np.int64)
        instances.append((fname, np.arange(n), counts, awards))
    else:
        if m["reel_set"] is None:
            raise ModelError(tables.path, f"modes.{mode}", "neither a reel set nor a feature to buy")
        if m.get("tables") is not None:  # a mode with coins: its own pays, no features (load refuses them)
            ev = evaluate_windows(m["tables"], tables.spin(m["reel_set"], n, rng))
            base = ev.win * m["tick_factor"]
        else:
            shown, landed = base_windows(tables, mode, tables.spin(m["reel_set"], n, rng))
            ev = evaluate_windows(tables, shown, landed)
            base = ev.win
        if tables.spin_cap_ticks is not None:
            base = np.minimum(base, tables.spin_cap_ticks)  # [cap] spin
        awards_by = _one_per_spin(tables, _preempt(tables, ev.awards))
        for fname, a in awards_by.items():
            rows = np.nonzero(a > 0)[0]
            if rows.size:
                instances.append((fname, rows, ev.trigger_counts[fname][rows], a[rows]))
        first_count = {}
        for _, table in tables.line_triggers:
            for count, fname in table:
                first_count.setdefault(fname, count)
        for fname, hits in ev.line_trigger_hits.items():
            rows = np.repeat(np.arange(n), hits)  # once per payline that starts it
            if rows.size:
                counts = np.full(rows.size, first_count[fname], dtype=np.int64)
                instances.append((fname, rows, counts, np.ones(rows.size, dtype=np.int64)))
    instances = _gamble(tables, mode, instances, rng)
    feature = np.zeros(n, dtype=np.int64)
    triggered = np.zeros(n, dtype=bool)
    limited = np.zeros(n, dtype=bool)
    stats = {}
    for fname, rows, counts, awards in instances:
        prep = tables.features[fname]
        player = get_player(tables.feature_kinds[fname])
        res = player.play(tables, fname, prep, counts, awards, rng, max_spins)
        fwin = res.win if tables.feature_cap_ticks is None else np.minimum(res.win, tables.feature_cap_ticks)
        np.add.at(feature, rows, fwin)
        triggered[rows] = True
        limited[rows[res.limited]] = True
        s = stats.setdefault(fname, [0, 0, 0])
        s[0] += int(rows.size)
        s[1] += int(res.spins.sum())
        s[2] += int(fwin.sum())
    win = base + feature
    capped = np.zeros(n, dtype=bool)
    if tables.cap_ticks is not None and not any(getattr(p, "uncapped", False) for p in tables.features.values()):
        cap = int(tables.cap_ticks)
        capped = win > cap
        win = np.where(capped, cap, win)
    return RoundBatch(win, base, feature, triggered, capped, limited, stats)


def _preempt(tables: Tables, awards: dict) -> dict:
    """Drop the awards of features pre-empted by another feature triggered by the same window.

    A prepared feature may list, in ``preempts``, features it replaces when
    both trigger in one window (Book of Power: books with a Power Book start
    the Power Free Spins, not the regular ones).
    """
    out = dict(awards)
    for fname, a in awards.items():
        for other in getattr(tables.features.get(fname), "preempts", ()) or ():
            if other in out:
                out[other] = np.where(a > 0, 0, out[other])
    return out


def _one_per_spin(tables: Tables, awards: dict) -> dict:
    """Only one feature starts per spin (rule ``simultaneous_triggers = "first_declared_starts"``).

    Of the features whose triggers are met in a window, one whose trigger
    has ``requires`` goes before those without, then the first declared;
    the others' awards are dropped for that spin.
    """
    names = list(tables.triggers)
    order = sorted(awards, key=lambda f: (tables.triggers[f][1] is None, names.index(f)) if f in tables.triggers
                   else (True, len(names)))
    out = {}
    taken = None
    for f in order:
        a = awards[f]
        out[f] = a if taken is None else np.where(taken, 0, a)
        taken = (a > 0) if taken is None else (taken | (a > 0))
    return {f: out[f] for f in awards}


def _gamble(tables: Tables, mode: str, instances: list, rng: np.random.Generator) -> list:
    """Play the gambles of triggered features.

    A prepared feature may carry ``gamble = (target, probability, modes)``:
    in a bet mode listed in ``modes`` each of its instances is gambled; with
    ``probability`` (an exact fraction) the round plays feature ``target``
    with the same trigger count instead (its award from the target's trigger
    table), else no feature (Book of Power's Power Bet gamble).
    """
    out = []
    for fname, rows, counts, awards in instances:
        g = getattr(tables.features.get(fname), "gamble", None)
        if not g or mode not in g[2]:
            out.append((fname, rows, counts, awards))
            continue
        target, q, _ = g
        q = Fraction(q)
        won = rng.integers(0, q.denominator, size=rows.size) < q.numerator
        if won.any():
            trig = tables.triggers.get(target)
            c = counts[won]
            a = trig[2][c] if trig is not None else awards[won]
            out.append((target, rows[won], c, a))
    return out
