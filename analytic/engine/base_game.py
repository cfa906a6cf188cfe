"""The base game of a bet mode, exactly over the full cycle.

:func:`solve_base` runs the joint line walk (:mod:`analytic.engine.linewalk`)
on the mode's reel set with counters for scatters and feature triggers, adds
scatter pays, and keeps the joint law of (spin win, trigger outcome): the
round solver needs it to combine the base spin with the features it starts
(their covariance enters the round's variance).

Units: wins are integers in ``units`` per total bet, where
``units = total_bet * D`` line-bet units and ``D`` clears the denominators of
fractional scatter pays (``D = 1`` for every shipped model).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

from analytic.engine.linewalk import SpinSpec, walk
from analytic.engine.spin import CounterDef, base_spin
from analytic.model.game import Game, coin_game
from analytic.engine.combos import Combination, combination_table
from analytic.figures import DistributionFigures, distribution_figures

__all__ = ["TriggerKey", "BaseResult", "solve_base", "base_counters", "unit_scale", "trigger_outcome"]


def unit_scale(game: Game) -> int:
    """``D``: win units per line-bet unit, clearing the denominators of scatter pays and of ``cap.spin``."""
    d = 1
    if game.scatter:
        for p in game.scatter.pays.values():
            d = math.lcm(d, (Fraction(p) * game.total_bet).denominator)
    if game.cap is not None and game.cap.spin is not None:
        d = math.lcm(d, (Fraction(game.cap.spin) * game.total_bet).denominator)
    return d


def base_counters(game: Game) -> list[CounterDef]:
    """Counters a base spin tracks: scatter cells, then per triggered feature
    its trigger cells and (if it has ``requires``) the required cells."""
    out = []
    if game.scatter:
        out.append(CounterDef("scatter", frozenset(game.scatter.symbols)))
    for f in game.features.values():
        if f.trigger is not None:
            out.append(CounterDef(f"trigger:{f.name}", frozenset(f.trigger.symbols)))
            if f.trigger.requires:
                out.append(CounterDef(f"requires:{f.name}", frozenset(f.trigger.requires)))
    return out


#: ``(feature name or None, trigger count)``: which feature a spin starts.
TriggerKey = tuple


def trigger_outcome(game: Game, counters: Mapping[str, int]) -> tuple[str | None, int]:
    """The feature a spin with these counter values starts, and its count.

    Rule ``simultaneous_triggers = "first_declared_starts"`` (the only
    reading solved, docs/model-format.md): a feature with ``requires`` (e.g.
    Power Free Spins needing a Power Book) takes precedence over one without
    when both are met; otherwise the first feature in model order whose
    minimum count is reached wins.  Returns ``(None, 0)`` when nothing
    triggers.
    """
    met = []
    for f in game.features.values():
        t = f.trigger
        if t is None:
            continue
        n = counters.get(f"trigger:{f.name}", 0)
        if n < t.min_count:
            continue
        if t.requires and counters.get(f"requires:{f.name}", 0) == 0:
            continue
        met.append((0 if t.requires else 1, f.name, n))
    if not met:
        return None, 0
    met.sort(key=lambda x: x[0])
    return met[0][1], met[0][2]


def simultaneous_triggers(game: Game, reel_set: str, wild_reels=None) -> dict[tuple[str, ...], int]:
    """Stop combinations of ``reel_set`` on which the triggers of two or more features are met.

    Rule ``simultaneous_triggers`` (``"first_declared_starts"``, the only
    reading solved): only the feature :func:`trigger_outcome` picks starts.
    Counted exactly by convolving over the reels, per reel and stop, each
    trigger's visible symbol cells (capped at its minimum count) and whether
    a ``requires`` symbol shows.

    Parameters
    ----------
    game : Game
    reel_set : str
    wild_reels : mapping, optional
        The bet mode's fixed wild reels (``params["wild_reels"]``): those
        reels show only their wild, which counts toward no trigger (checked
        at load); expanded wilds do not change the landed counts.

    Returns
    -------
    dict
        ``(features whose triggers are met, in model order) -> combinations``,
        only for two or more features; empty when it cannot happen.
    """
    feats = [f for f in game.features.values() if f.trigger is not None]
    if len(feats) < 2:
        return {}
    acc: dict = {(): 1}
    fixed = set(wild_reels["reels"]) if wild_reels else set()
    for reel, strip in enumerate(game.reel_sets[reel_set], start=1):
        per: dict = {}
        for k in range(len(strip)):
            cells = [strip[(k + r) % len(strip)] for r in range(game.rows)]
            if reel in fixed:
                cells = [wild_reels["wild"]] * game.rows
            key = []
            for f in feats:
                t = f.trigger
                key.append(min(sum(c in t.symbols for c in cells), t.min_count))
                key.append(int(any(c in t.requires for c in cells)) if t.requires else 1)
            per[tuple(key)] = per.get(tuple(key), 0) + 1
        nxt: dict = {}
        for a, ca in acc.items():
            for b, cb in per.items():
                if a:
                    v = tuple(min(x + y, feats[i // 2].trigger.min_count) if i % 2 == 0 else max(x, y)
                              for i, (x, y) in enumerate(zip(a, b)))
                else:
                    v = b
                nxt[v] = nxt.get(v, 0) + ca * cb
        acc = nxt
    out: dict = {}
    for v, c in acc.items():
        met = tuple(f.name for i, f in enumerate(feats) if v[2 * i] >= f.trigger.min_count and v[2 * i + 1])
        if len(met) >= 2:
            out[met] = out.get(met, 0) + c
    return out


@dataclass(frozen=True)
class BaseResult:
    """Exact figures of the base spin of a bet mode.

    Attributes
    ----------
    game : Game
    mode : str
    reel_set : str
    cycle : int
        Number of stop combinations.
    units : int
        Win units per total bet.
    joint : dict
        ``(feature name or None, trigger count, line triggers, spin win units) -> combinations``.
    distribution : dict
        ``spin win units -> combinations`` (base spin only, no features).
    figures : DistributionFigures
        Of the base spin win, in total-bet multiples.
    line_total, scatter_total : int
        Sums over the cycle of line and scatter wins, in units.
    spin_cap_total : int
        Sum over the cycle of ``min(win, cap.spin) - win`` (<= 0, units): what
        the per-spin cap (``[cap] spin``) takes from the base spins; the
        distribution, joint law and figures are of the capped spin win,
        ``line_total`` and ``scatter_total`` uncapped.
    scatter_counts : dict
        ``scatter cells -> combinations``.
    trigger_counts : dict
        ``(feature, count) -> combinations`` for every spin that starts a feature.
    line_trigger_counts : dict
        ``line triggers -> combinations``.
    combinations : list of Combination
        The combination table (per payline, summed over lines).
    spec : SpinSpec
    """

    game: Game
    mode: str
    reel_set: str
    cycle: int
    units: int
    joint: dict
    distribution: dict
    figures: DistributionFigures
    line_total: int
    scatter_total: int
    scatter_counts: dict
    trigger_counts: dict
    line_trigger_counts: dict
    combinations: list[Combination]
    spec: SpinSpec = field(repr=False)
    spin_cap_total: int = 0

    @property
    def line_rtp(self) -> Fraction:
        """Line-win return per total bet (exact)."""
        return Fraction(self.line_total, self.cycle * self.units)

    @property
    def scatter_rtp(self) -> Fraction:
        """Scatter-pay return per total bet (exact)."""
        return Fraction(self.scatter_total, self.cycle * self.units)

    def trigger_probability(self, feature: str | None = None) -> Fraction:
        """Probability that a spin starts ``feature`` (any feature if None)."""
        n = sum(c for (f, _), c in self.trigger_counts.items() if feature is None or f == feature)
        return Fraction(n, self.cycle)


def solve_base(game: Game, mode: str | None = None, *, reel_set: str | None = None) -> BaseResult:
    """Exact base-spin figures of a bet mode over its full cycle.

    Parameters
    ----------
    game : Game
    mode : str, optional
        Bet mode name (default: the first); must be a spin mode, not a buy.
    reel_set : str, optional
        Evaluate this reel set instead of the mode's.

    Returns
    -------
    BaseResult

    Raises
    ------
    KeyError
        Unknown mode or reel set.
    ValueError
        The mode is a feature buy (it has no base spin).

    Examples
    --------
    A 3-reel, 1-row toy game whose 24 stop combinations can be checked by
    hand (the wild substitutes for both symbols; cherry pays 1, 2, 5 for a
    run of 1, 2, 3; three sevens pay 20):

    >>> from analytic.model.loader import load_model_text
    >>> toy = load_model_text('''
    ... [game]
    ... name = "Toy"
    ... reels = 3
    ... rows = 1
    ... [symbols]
    ... seven = "regular"
    ... cherry = "regular"
    ... wild = "wild"
    ... [paytable]
    ... seven = { 3 = 20 }
    ... cherry = { 1 = 1, 2 = 2, 3 = 5 }
    ... [paylines]
    ... lines = [[0, 0, 0]]
    ... [reels]
    ... base = [["seven", "cherry", "wild", "cherry"], ["seven", "cherry", "cherry"], ["seven", "wild"]]
    ... ''')
    >>> r = solve_base(toy)
    >>> r.cycle, r.distribution
    (24, {0: 4, 1: 4, 2: 6, 5: 6, 20: 4})
    >>> r.figures.mean, r.figures.hit_frequency
    (Fraction(21, 4), Fraction(5, 6))
    """
    m = game.modes[mode] if mode else game.default_mode
    rs = reel_set or m.reel_set
    if rs is None:
        raise ValueError(f"bet mode '{m.name}' is a feature buy: it has no base spin")
    game = coin_game(game, m.name)  # the mode's coins: its pays (a mode with coins has no features)
    counters = base_counters(game)
    spec = base_spin(game, rs, counters, wild_reels=m.params.get("wild_reels"))
    dist = walk(spec)
    d = unit_scale(game)
    units = game.total_bet * d
    names = dist.counter_names
    sc_pay = {}
    if game.scatter:
        for n, p in game.scatter.pays.items():
            v = Fraction(p) * units
            assert v.denominator == 1
            sc_pay[n] = int(v)
    spin_cap = None
    if game.cap is not None and game.cap.spin is not None:
        v = Fraction(game.cap.spin) * units
        assert v.denominator == 1  # unit_scale clears it
        spin_cap = int(v)
    cap_total = 0
    joint: dict = defaultdict(int)
    distribution: dict = defaultdict(int)
    scatter_counts: dict = defaultdict(int)
    trigger_counts: dict = defaultdict(int)
    line_trig: dict = defaultdict(int)
    line_total = scatter_total = 0
    by_counters: dict = {}  # counter values -> (scatter count, feature, trigger count, line triggers)
    for key, cnt in dist.table.items():
        ck = key[:-1]
        cv = by_counters.get(ck)
        if cv is None:  # many rows share their counters (they differ in the line win)
            vals = dict(zip(names, ck))
            cv = by_counters[ck] = (vals.get("scatter", 0), *trigger_outcome(game, vals), vals["line_triggers"])
        sc, feat, n, lt = cv
        lw = key[-1] * d
        sp = sc_pay.get(sc, 0)
        win = lw + sp
        if spin_cap is not None and win > spin_cap:
            cap_total += (spin_cap - win) * cnt
            win = spin_cap
        joint[(feat, n, lt, win)] += cnt
        distribution[win] += cnt
        scatter_counts[sc] += cnt
        if feat is not None:
            trigger_counts[(feat, n)] += cnt
        line_trig[lt] += cnt
        line_total += lw * cnt
        scatter_total += sp * cnt
    combos = combination_table(spec)
    return BaseResult(
        game=game,
        mode=m.name,
        reel_set=rs,
        cycle=dist.cycle,
        units=units,
        joint=dict(joint),
        distribution=dict(sorted(distribution.items())),
        figures=distribution_figures(distribution, units),
        line_total=line_total,
        scatter_total=scatter_total,
        scatter_counts=dict(sorted(scatter_counts.items())),
        trigger_counts=dict(sorted(trigger_counts.items())),
        line_trigger_counts=dict(sorted(line_trig.items())),
        combinations=combos,
        spec=spec,
        spin_cap_total=cap_total,
    )
