"""One free spin in a fixed feature state, evaluated exactly.

A free spin played in a fixed state (a drawn expanding symbol, or none) is a
base-engine spin (:func:`analytic.engine.spin.build_spin` and
:func:`analytic.engine.linewalk.walk`) on the feature's reel set, with
counters for the retrigger symbols, the scatter and the expanding symbol.
Its outcomes are grouped into *classes* by the number of spins the spin
awards (``A``); per class we keep the integer number of stop combinations
and the exact sums of the win ``X`` and of ``X**2`` (Python integers), which
is all the Markov-chain and Wald solvers need (:mod:`analytic.features.graph.chain`,
:mod:`analytic.features.laws.wald`).

Win of a free spin (integer *units*, ``units`` per total bet)
--------------------------------------------------------------
``X = multiplier * (line win + scatter pay + expansion pay)`` where

* line wins are the normal payline wins (line-bet units times ``D``,
  :func:`analytic.engine.base_game.unit_scale`);
* scatter pays count only when the feature's ``scatter_pays`` is true;
* expansion pay: ``k`` = reels showing the expanding symbol (rule
  ``expanding_count = "reels"``) or its visible cells (``"cells"``); when
  ``k`` reaches the symbol's smallest paying count it pays
  ``paytable[sym][min(k, kmax)] * number of paylines``.

Expanding wilds (``symbols.NAME.expands``) expand on the feature's reels as
in the base game (:func:`analytic.engine.spin.shown_windows`): the paylines
read the expanded reels, retrigger and scatter counters the landed symbols.

A wild multiplier drawn per reel in every spin (mechanic
``reel_wild_multipliers``): the spin's law is the mixture over the drawn
multiplier vectors of the law with the vector fixed, the wild's cells on
each listed reel walking as a cell of its role with the drawn multiplier
(:func:`_drawn_mixture`); ``cycle`` is then the reel cycle times the sum of
the vectors' weights.

With ``[cap] spin`` each spin's ``X`` is ``min(X, cap)`` (the cap in
units).

Rule ``expanding_line_win = "wild_led_only"`` withholds the normal line win
of a payline whose *first* cell is the expanding symbol.  It is implemented
without touching the engine: on reel 1 the expanding symbol's cells become a
separate cell name whose role supports no candidate (so such a line is
settled with no pay at once) while the expanding counter still counts it.
"""

from __future__ import annotations

from collections import defaultdict
from operator import mul
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

import numpy as np

from analytic.engine.linewalk import SpinArrays, walk_arrays
from analytic.engine.linewin import CellRole
from analytic.engine.spin import (CounterDef, build_spin, cell_roles, landed_counters, line_paytable,
                                  shown_windows, strip_windows)
from analytic.model.game import Game
from analytic.engine.base_game import unit_scale

__all__ = ["OutcomeClass", "SpinOutcomes", "free_spin_outcomes", "outcomes_from_joint", "drawn_wild_cell"]


@dataclass(frozen=True)
class OutcomeClass:
    """Outcomes of one spin that award the same number of spins.

    Attributes
    ----------
    award : int
        Spins awarded (0 = no retrigger).
    weight : int
        Number of stop combinations in the class.
    win_sum : int
        Sum over those combinations of the win, in units.
    win_sq_sum : int
        Sum of the squared win, in units**2.
    """

    award: int
    weight: int
    win_sum: int
    win_sq_sum: int


@dataclass(frozen=True)
class SpinOutcomes:
    """Exact law of (award, win) of one free spin in a fixed state.

    Attributes
    ----------
    classes : Mapping[int, OutcomeClass]
        Award -> class, ascending awards.
    cycle : int
        Number of stop combinations (sum of the class weights).
    units : int
        Win units per total bet.
    joint : Mapping[tuple[int, int], int]
        ``(award, win units) -> combinations``.
    line_sum, scatter_sum, expansion_sum : int
        Sums over the cycle of the three win parts (units, multiplier applied).
    """

    classes: Mapping[int, OutcomeClass]
    cycle: int
    units: int
    joint: Mapping[tuple[int, int], int] = field(repr=False, default_factory=dict)
    line_sum: int = 0
    scatter_sum: int = 0
    expansion_sum: int = 0

    @property
    def mean_win(self) -> Fraction:
        """E[X], total-bet multiples."""
        return Fraction(sum(c.win_sum for c in self.classes.values()), self.cycle * self.units)

    @property
    def mean_award(self) -> Fraction:
        """E[A], spins awarded per spin."""
        return Fraction(sum(c.award * c.weight for c in self.classes.values()), self.cycle)

    def moments(self) -> dict[str, Fraction]:
        """Exact joint moments in total-bet multiples and spins.

        Returns
        -------
        dict
            ``EX, EX2, EA, EA2, EXA``.
        """
        u, n = self.units, self.cycle
        cl = self.classes.values()
        return {
            "EX": Fraction(sum(c.win_sum for c in cl), n * u),
            "EX2": Fraction(sum(c.win_sq_sum for c in cl), n * u * u),
            "EA": Fraction(sum(c.award * c.weight for c in cl), n),
            "EA2": Fraction(sum(c.award ** 2 * c.weight for c in cl), n),
            "EXA": Fraction(sum(c.award * c.win_sum for c in cl), n * u),
        }


_LEAD = "\x00lead:"  # prefix of the reel-1 stand-in cell name (never a symbol name)


def free_spin_outcomes(game: Game, feature: str, expanding: str | None = None) -> SpinOutcomes:
    """Exact outcome classes of one free spin of ``feature``.

    Parameters
    ----------
    game : Game
    feature : str
        Name of a ``free_spins`` feature.
    expanding : str, optional
        The drawn expanding symbol (None: no expansion).

    Returns
    -------
    SpinOutcomes
        Wins in units (``units`` per total bet), awards in spins; with
        ``reel_wild_multipliers`` the mixture over the drawn multipliers
        (``cycle`` = reel cycle x the sum of the vectors' weights).
    """
    spec = game.features[feature]
    p = spec.params
    mult = int(p.get("multiplier", 1))
    retrig = p.get("retrigger")
    scatter_pays = bool(p.get("scatter_pays", True)) and game.scatter is not None
    per = str(game.rules.get("expanding_count", "reels"))
    wild_led_only = str(game.rules.get("expanding_line_win", "paid")) == "wild_led_only"

    d = unit_scale(game)
    units = game.total_bet * d
    windows = [strip_windows(strip, game.rows) for strip in game.reel_sets[spec.reel_set]]
    pt, index = line_paytable(game)
    roles: dict[str, CellRole] = cell_roles(game, index)
    stand_ins: dict = {}
    if expanding is None and any(sym.expands for sym in game.symbols):
        # expanding wilds (symbols.NAME.expands): the paylines read the expanded reels, counters the
        # landed symbols (analytic.engine.spin.shown_windows); the loader refuses them with an
        # expanding_symbol
        windows, stand_ins = shown_windows(game, game.reel_sets[spec.reel_set])
        for name, (wild, _) in stand_ins.items():
            roles[name] = roles[wild]
    exp_cells = frozenset()
    if expanding is not None:
        exp_cells = frozenset({expanding})
        if wild_led_only:
            lead = _LEAD + expanding
            roles[lead] = CellRole(frozenset())
            w0: dict = defaultdict(int)
            for w, n in windows[0].items():
                w0[tuple(lead if c == expanding else c for c in w)] += n
            windows[0] = dict(w0)
            exp_cells = frozenset({expanding, lead})

    def counted(symbols) -> frozenset:
        """``symbols`` plus the reel-1 stand-in when the expanding symbol is among them
        (a retrigger or scatter symbol with line pays still counts on reel 1)."""
        out = frozenset(symbols)
        return out | (exp_cells - {expanding}) if expanding in out else out

    counters = []
    if retrig is not None:
        counters.append(CounterDef("retrigger", counted(retrig.symbols)))
    if scatter_pays:
        counters.append(CounterDef("scatter", counted(game.scatter.symbols)))
    if expanding is not None:
        counters.append(CounterDef("expanding", exp_cells, per))
    counters = landed_counters(counters, stand_ins)

    sc_pay: dict[int, int] = {}
    if scatter_pays:
        for k, v in game.scatter.pays.items():
            x = Fraction(v) * units
            assert x.denominator == 1
            sc_pay[k] = int(x)
    exp_pay: dict[int, int] = {}
    if expanding is not None:
        row = game.paytable[expanding]
        kmin = min(k for k, v in row.items() if v > 0)
        kmax = max(row)
        top = game.reels * game.rows
        for k in range(kmin, top + 1):
            exp_pay[k] = row.get(min(k, kmax), 0) * len(game.lines) * d

    def one(wins, rls, cds):
        """``(joint, line_sum, scatter_sum, exp_sum, cycle)`` of the spin on windows ``wins``."""
        arr = walk_arrays(build_spin(game, counters=cds, windows=wins, roles=rls, paytable=pt))
        fast = _joint_int64(arr, d * mult, sc_pay, exp_pay, mult, retrig)
        if fast is None:
            fast = _joint_python(arr.table(), arr.counter_names, d, mult, sc_pay, exp_pay, retrig)
        return (*fast, arr.cycle)

    drawn = p.get("reel_wild_multipliers")
    if drawn is None:
        joint, line_sum, scatter_sum, exp_sum, cycle = one(windows, roles, counters)
    else:
        joint, line_sum, scatter_sum, exp_sum, cycle = _drawn_mixture(drawn, windows, roles, counters, one)
    if game.cap is not None and game.cap.spin is not None:
        # [cap] spin: each free spin pays at most the cap (its win, multiplier included); the parts' sums
        # stay uncapped
        capu = Fraction(game.cap.spin) * units
        assert capu.denominator == 1  # unit_scale clears it
        capped: dict = defaultdict(int)
        for (a, x), c in joint.items():
            capped[(a, min(x, int(capu)))] += c
        joint = dict(capped)
    return outcomes_from_joint(joint, cycle, units, line_sum=line_sum, scatter_sum=scatter_sum,
                               expansion_sum=exp_sum)


def drawn_wild_cell(wild: str, multiplier: int) -> str:
    """Cell name of a ``wild`` cell carrying the drawn ``multiplier`` (mechanic ``reel_wild_multipliers``).

    ``~`` cannot start a symbol name, so it clashes with no symbol (nor with
    an expanding wild's stand-in, whose second part is a symbol name).
    """
    return f"~x{multiplier}~{wild}"


def _drawn_mixture(drawn, windows, roles, counters, one):
    """One spin's joint law under a wild multiplier drawn per reel (mechanic ``reel_wild_multipliers``).

    For every vector of drawn multipliers ``(m_k)`` over the listed reels
    (weight: the product of their weights), the ``wild`` cells of reel ``k``
    become a cell of the wild's line role with multiplier ``m_k``
    (:func:`drawn_wild_cell`; counters still count them as the wild), and the
    fixed spin's law ``one(windows, roles, counters)`` is taken.  The spin's
    law is the mixture: ``joint[(a, x)] = sum_v weight_v * joint_v[(a, x)]``
    over a cycle of ``cycle * sum_v weight_v`` (exact integers), the win
    parts' sums likewise.

    Returns
    -------
    (joint, line_sum, scatter_sum, exp_sum, cycle)
    """
    import itertools
    from dataclasses import replace

    wild = drawn["wild"]
    reels = list(drawn["reels"].items())  # (1-based reel, {multiplier: weight})
    names = {}
    for _, law in reels:
        for m in law:
            cell = drawn_wild_cell(wild, m)
            names[cell] = (wild, wild)
            roles[cell] = replace(roles[wild], multiplier=int(m))
    cds = landed_counters(counters, names)
    joint: dict = defaultdict(int)
    sums = [0, 0, 0]
    total_w = 0
    cycle = None
    for vec in itertools.product(*[[(m, w) for m, w in law.items() if w] for _, law in reels]):
        weight = 1
        wins = list(windows)
        for (reel, _), (m, w) in zip(reels, vec):
            weight *= w
            cell = drawn_wild_cell(wild, m)
            changed: dict = defaultdict(int)
            for win, n in wins[reel - 1].items():
                changed[tuple(cell if c == wild else c for c in win)] += n
            wins[reel - 1] = dict(changed)
        j, ls, ss, es, cyc = one(wins, roles, cds)
        cycle = cyc
        total_w += weight
        for key, c in j.items():
            joint[key] += weight * c
        for i, x in enumerate((ls, ss, es)):
            sums[i] += weight * x
    return dict(joint), sums[0], sums[1], sums[2], cycle * total_w


def outcomes_from_joint(joint: Mapping[tuple[int, int], int], cycle: int, units: int, *, line_sum: int = 0,
                        scatter_sum: int = 0, expansion_sum: int = 0) -> SpinOutcomes:
    """:class:`SpinOutcomes` of one spin's exact joint law of (award, win).

    Parameters
    ----------
    joint : Mapping[(int, int), int]
        ``(spins awarded, win in units) -> stop combinations`` (integers).
    cycle : int
        Total of the combinations.
    units : int
        Win units per total bet.
    line_sum, scatter_sum, expansion_sum : int
        Sums of the win parts over the cycle (units), when the caller has them.

    Returns
    -------
    SpinOutcomes
        Classes by award with the exact sums of the win and its square.
    """
    classes: dict[int, list[int]] = {}
    for (a, x), cnt in joint.items():
        c = classes.setdefault(a, [0, 0, 0])
        c[0] += cnt
        c[1] += x * cnt
        c[2] += x * x * cnt
    return SpinOutcomes(
        classes={a: OutcomeClass(a, *classes[a]) for a in sorted(classes)},
        cycle=cycle,
        units=units,
        joint=dict(joint),
        line_sum=line_sum,
        scatter_sum=scatter_sum,
        expansion_sum=expansion_sum,
    )


def _joint_python(table, names, d, mult, sc_pay, exp_pay, retrig):
    """``(joint, line_sum, scatter_sum, exp_sum)`` from the walk's table, in Python integers."""
    joint: dict = defaultdict(int)
    line_sum = scatter_sum = exp_sum = 0
    for key, cnt in table.items():
        vals = dict(zip(names, key[:-1]))
        lw = key[-1] * d * mult
        sp = sc_pay.get(vals.get("scatter", 0), 0) * mult
        ep = exp_pay.get(vals.get("expanding", 0), 0) * mult
        a = retrig.award(vals.get("retrigger", 0)) if retrig is not None else 0
        joint[(a, lw + sp + ep)] += cnt
        line_sum += lw * cnt
        scatter_sum += sp * cnt
        exp_sum += ep * cnt
    return dict(joint), line_sum, scatter_sum, exp_sum


def _joint_int64(arr: SpinArrays, scale: int, sc_pay, exp_pay, mult: int, retrig):
    """:func:`_joint_python` on the walk's arrays (int64), or ``None`` when a win or count may not fit.

    The same dict, insertion order included: the rows of one ``(award, win)``
    are summed (exact int64: every sum is at most the cycle, below 2**62) and
    the keys come in the order of their first row, as the loop over the
    table (whose rows are the arrays' rows, in order) inserts them.  The
    sums of win parts times counts are taken in Python integers.
    """
    if arr.line_win.dtype != np.int64 or arr.count.dtype != np.int64 or not len(arr.count):
        return None
    cols = dict(zip(arr.counter_names, arr.counters.T))

    def lookup(name, f):
        k = cols.get(name)
        if k is None:
            return np.full(len(arr.count), f(0), dtype=np.int64)
        top = int(k.max())
        vals = [f(i) for i in range(top + 1)]
        if int(k.min()) < 0 or max(map(abs, vals)) >= 1 << 60:
            return None
        return np.array(vals, dtype=np.int64)[k]

    sp = lookup("scatter", lambda i: sc_pay.get(i, 0) * mult)
    ep = lookup("expanding", lambda i: exp_pay.get(i, 0) * mult)
    a = lookup("retrigger", lambda i: retrig.award(i) if retrig is not None else 0)
    top = int(np.abs(arr.line_win).max())
    if sp is None or ep is None or a is None or top * abs(scale) >= 1 << 60:
        return None
    lw = arr.line_win * scale
    x = lw + sp + ep
    cnt = arr.count
    order = np.lexsort((x, a))  # stable: a group's first row is its earliest
    xs, as_ = x[order], a[order]
    starts = np.flatnonzero(np.r_[True, (xs[1:] != xs[:-1]) | (as_[1:] != as_[:-1])])
    sums = np.add.reduceat(cnt[order], starts)
    first = order[starts]
    by_first = np.argsort(first)
    keys = zip(as_[starts][by_first].tolist(), xs[starts][by_first].tolist())
    joint = dict(zip(keys, sums[by_first].tolist()))
    c = cnt.tolist()
    return joint, sum(map(mul, lw.tolist(), c)), sum(map(mul, sp.tolist(), c)), sum(map(mul, ep.tolist(), c))
