"""Engine ``drawn_expanding``: a certified upper bound of the win cap's cut on free spins with drawn symbols.

Units: line-bet units inside (``c``, ``u``, pays); :meth:`RegularCapBound.excess`
and :meth:`RegularCapBound.p_reach` take the base win ``B`` and the cap ``C``
in total-bet multiples and return total-bet multiples / probabilities.

What is bounded
---------------
For the regular feature started with ``n0`` spins, its win ``W`` and a base
win ``B``: ``E[(B + W - C)+]`` and ``P(B + W >= C)`` from above (the lower
bound is :mod:`draw_cap_low`).  Every step below can only make the
bound larger.  The round uses :func:`regular_cap_mixture` (item 0).

0. **The comonotone mixture** (default in the round).  The two most valuable
   symbols keep their exact draw counts; the other seven form one group whose
   count ``k`` (draws so far) is exact.  Given the windows and which draws
   went to the group, each member's count is ``Bin(k, 1/7)``, and the sum of
   the members' pays over the spins is below, in convex order, its
   comonotonic version (one uniform ``U`` for every spin and member: each
   member paid as if its count were the ``U``-quantile of ``Bin(k, 1/7)``;
   Dhaene et al. 2002, Theorem 7).  So the cut is at most
   ``int_0^1 E[(W_U - C)+] dU``, bounded by an upper Riemann sum over
   :data:`LEVELS` (the integrand increases with ``U``); each level is one
   chain of items 3-7 with the level's multipliers (``level``).  The
   integrand depends on ``U`` only through the quantiles ``Q_U(k)``, so it
   is a step function, constant between the steps of the quantiles: a level
   placed at a step (:func:`binomial_step`) loses nothing to that step, and
   the level study picks the steps where the bound jumps most.  The levels' chains have the same states and
   masses (the draws do not depend on the level), so they run as one
   (:func:`regular_cap_bound_levels`): one row per level in every state.  Items 1-2 are the older treatment of the line
   wins (``lines=False``); by default they are inside the spin law.
1. **Split off the line wins** (``lines=False``).  ``W = L + X``: ``L`` the
   normal line wins, ``X = sum_s m_s E_s`` the expansion pays.  For any ``c_L``,
   ``(L + X - c)+ <= (L - c_L)+ + (X - (c - c_L))+`` and
   ``{L + X >= c} <= {L >= c_L} u {X >= c - c_L}``; ``c_L`` is optimised
   per threshold over a grid.  With ``lines=True`` (default) one line walk
   gives the joint law of (award, each symbol's expansion pay, line win)
   (:func:`line_expansion_rows`), the line win is spread on the grid (a
   mean-preserving spread, independent of the expansion's) and joins each
   spin's pay: no split.
2. **Line wins by Chernoff** (``lines=False``).  ``L`` summed over the feature is a branching
   sum (a spin pays ``L`` and starts ``A`` independent spins; the drawn
   symbols do not touch ``L``), so ``E[exp(t L_tot)] <= y^n0`` for any
   ``y`` with ``F(y) = E[exp(t L) y^A] <= y`` (checked with a floating-point
   margin).  ``(z)+ <= exp(t z - 1) / t`` gives ``E[(L_tot - c_L)+] <=
   y^n0 exp(-t c_L) / (e t)`` and ``P(L_tot >= c_L) <= y^n0 exp(-t c_L)``,
   minimised over a grid of ``t``.
3. **Group domination of the multipliers** (``level=None``).  The drawn-count state (one count per regular symbol) is
   replaced by the draw counts of *groups* of symbols (default: the two most
   valuable symbols alone, the other high symbols, the low symbols in twos
   and threes).  Given a group's count ``k``, its symbols' counts ``c_s``
   split ``k`` in an unknown way, and the group's expansion pay in a spin is
   at most ``min(f(k) sum_s E_s, F_g(k) max_s E_s)``, ``f`` the multiplier
   of a count (rule ``expanding_repeat_multiplier``; increasing, ``f(0) = 0``) and
   ``F_g(k)`` the largest ``sum_s f(c_s)`` over the splits (``min(k, M |g|)``
   for the rule 'count', ``M`` the ceiling ``max_multiplier``): ``sum_s f(c_s) E_s`` is below both because
   ``f(c_s) <= f(k)`` and ``E_s <= max E``.  So along every path (same
   windows, same draws) the grouped ``X_g`` is at least the true ``X``.
   The second form matters when several symbols of a group expand in one
   spin (a group's count is kept up to where ``F_g`` stops growing).  A draw
   lands in group ``g`` with probability ``|g| / S`` (``S`` regular symbols).  With a ``level``, a
   group of several symbols pays ``f(Q_U(k)) sum_s E_s`` instead (item 0).
4. **A mean-preserving spread onto the grid.**  Each spin's grouped pay
   ``x = (k + f) u`` is put at ``k u`` with mass ``1 - f`` and at ``(k + 1) u``
   with mass ``f``, independently of everything else.  Conditionally on the
   windows and draws the spread sum ``X~`` has mean ``X_g``, so by Jensen
   ``E[phi(X_g)] <= E[phi(X~)]`` for every convex ``phi`` -- in particular
   ``(x - c)+`` (convex order; Shaked and Shanthikumar, *Stochastic Orders*,
   s.3.A).  Probabilities are then bounded through excesses (Markov:
   ``P(X >= c) <= E[(X - c + d)+] / d``).
5. **Forward law over (awards so far, group counts, spins left).**  Every
   transition goes to a lower spin count at the same award level or to the
   next level: a DAG, processed level by level, spins left descending.  Each
   state carries the law of the accumulated spread win on ``0..N-1``
   (``(N - 1) u`` at or above the cap, so every value beyond the grid is above
   every threshold) plus the mass and first moment beyond it
   (there ``(x - c)+`` is linear, so they are exact for the bound); a spin is
   a direct convolution per award class (compiled:
   :func:`~analytic.features.engines.drawn_expanding.kernel.spin_step`; sums of
   nonnegative products, so each entry is within ``gamma_{N+1}`` times itself
   of the exact value; Higham, *Accuracy and Stability of Numerical
   Algorithms*, s.3.1), every entry raised by that factor and the raise
   tracked, so masses are upper bounds and the mass beyond the grid also has
   a lower bound.  What underflow may lose (at most ``(N + 1) 2^-1074`` per
   entry) is added beyond the grid at the convolution's largest value (a
   stochastically larger law; on the grid it would leave subnormal numbers in
   every cell, which slow every later product a hundredfold).  (An FFT's error bound is relative to the norm of the
   whole law and lands on entries that are 0: on the shipped model it was
   most of the old bound.)
6. **MGF mode.**  A state reached with probability below ``eps`` leaves the
   grid.  Its mass beyond the grid (already above the cap, where ``(x - c)+``
   is linear) is settled at once: mass, first moment, plus the mass times an
   upper bound of the remaining win's mean (item 7).  Its grid part goes on
   with the same transitions but carries only ``(mass, E[A], E[exp(theta A)])``
   for a fixed set of ``theta`` (the grid masses are upper bounds and
   ``exp`` is convex and increasing, so these are upper bounds for the true
   win too); a spin multiplies them by the spin's class mass, first moment
   and ``E[exp(theta x); class]`` of the grouped (unspread) pay.  Finished
   paths add up to ``T_l(theta)`` per award count ``l``; ``(z)+ <= exp(theta z
   - 1) / theta`` gives ``E[(X - c)+; MGF paths] <= sum_l min_theta
   exp(-theta c) T_l(theta) / (e theta)`` (a bound per part of a partition
   of the paths, each with its own ``theta``: the long chains, whose MGF
   explodes early, do not force a small ``theta`` on the short ones).
   Probabilities come from Markov on the whole excess bound,
   ``P(X >= c) <= E[(X - c + d)+] / d``, with ``d = 1 / theta`` among the
   candidates (which gives back Chernoff's tail); a separate Chernoff tail
   of ``T`` would be wrong, since the paths of item 7 carry only their win
   so far in it.
7. **Dropped MGF states.**  Below ``eps_mgf`` a state stops:
   ``(A + R - c)+ <= (A - c)+ + R``, so its ``E[exp(theta A)]`` joins
   ``T_l(theta)`` and it is charged its mass times an upper bound of the
   expected remaining win ``R`` of the chain being bounded: given the group
   counts, a group's draws split uniformly over its symbols (the draws are
   independent of the windows), so symbol ``s`` of group ``g`` has count
   ``Bin(c_g, 1/|g|)`` (at a ``level``: the level's quantile, and a later
   draw into ``g`` may raise every member's quantile by one); ``f(C + D) <=
   f(C) + D`` for ``D`` later draws; ``E[spins] = n / (1 - E[A])`` (Wald),
   the later draws seen by the later spins sum to ``V(n) / S`` per symbol
   with ``V`` of :func:`later_award_coefficients`; the line wins add their
   mean per spin.

Then ``E[(X - c)+] <= sum_k F_k (k u - c)+ + (M_over - c P_over_lo) +
R_charged + sum_l min_theta exp(-theta c) T_l(theta) / (e theta)`` with ``F`` the
final grid law and ``M_over`` the first moment beyond the grid.

How far from the truth, on the shipped model (``python -m
analytic.bench.drawn_expanding certify``; per 10-spin trigger, bet):
the mixture gives 9.0e-5 (1.0e-4 at 'standard'; its level 0.5 alone 3.3e-5,
the top level 0.115), against the lower bound's 2.3e-5; with all 123
candidate levels of :mod:`analytic.bench.drawn_expanding_levels` the
comonotone integral lies in [7.2e-5, 8.7e-5] at eps 3e-12.  The old default, item 3 with the FFT and
the line split, gave 1.1e-3; with direct convolutions (line split kept) it
gives 1.0e-3, most of it its MGF part (6e-4: its finer state falls below
``eps`` far more often) and its charges (7e-5).  What is left in the mixture is the
comonotone coupling at the high levels: every spin's low symbols at the
same high quantile.

References: docs/derivations.md s.4 (the draws are independent of the windows);
Wald's identity; Chernoff's bound for branching sums; convex order;
comonotonicity (Dhaene, Denuit, Goovaerts, Kaas, Vyncke 2002).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from analytic.engine.spin import strip_windows

__all__ = ["RegularCapBound", "regular_cap_bound", "regular_cap_bound_levels", "expansion_table", "default_groups",
           "later_award_coefficients", "RegularCapMixture", "regular_cap_mixture", "binomial_quantile",
           "combine_levels", "mixture_groups", "LEVELS", "LEVELS_STANDARD", "LEVELS_QUICK", "PRESETS", "WITH_LOWER", "binomial_step", "LEVEL_RUN", "level_runs", "line_expansion_rows", "convolve_nonnegative"]

U = 2.0 ** -53
#: States reached with less probability leave the grid for MGF mode.  On the shipped model
#: (10 spins, comonotone level 0.9) 3e-11 / 3e-12 / 3e-13 give 1.43e-4 / 1.01e-4 / 0.93e-4 bet at
#: 5 / 7 / 9 s: the MGF part shrinks from 6.5e-5 to 1.7e-6.
EPS = 3e-13
#: MGF-mode states reached with less probability are charged their mean.
EPS_MGF = 1e-13
#: Chernoff parameters of MGF mode, times the cap in line bets.
MGF_THETAS = tuple(float(t) for t in np.geomspace(1.0, 5.5, 16))
#: MGF-mode states allowed per grid state of ``max_states``.
MGF_STATE_FACTOR = 20
#: Largest group count followed at a comonotone level (beyond it the top multiplier is paid).
LEVEL_KMAX = 40
#: Largest number of (group counts, spins left) states solved before refusing.
MAX_STATES = 4_000_000
#: Workspace key of the last chain run's per-id tables (spin laws, draws, charges), shared by its starts.
RUN_TABLES = "drawn_expanding.regcap.run_tables"


class TooManyStates(ValueError):
    """A regular cap bound refused: its chain has more states than allowed (the caller may fall back)."""


def default_groups(st) -> list[tuple[str, ...]]:
    """Default grouping: the two highest-ranked symbols alone, the other high ones, the low ones."""
    order = list(st.ordered)
    top = order[-2:] if len(order) >= 2 else order
    high = [s for s in order if s not in top and st.game.symbol(s).tier == "high"]
    low = [s for s in order if s not in top and st.game.symbol(s).tier != "high"]
    k = -(-len(low) // 3) if low else 0  # low symbols in chunks of at most three, by rank
    chunks = [tuple(low[i * len(low) // k:(i + 1) * len(low) // k]) for i in range(k)]
    return [(s,) for s in reversed(top)] + [tuple(high)] * bool(high) + chunks


def _unique_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.unique(keys, axis=0, return_inverse=True)`` of an integer matrix: the distinct rows
    in lexicographic order (first column first) and each row's index among them, by one
    ``numpy.lexsort`` (``unique`` with ``axis=0`` sorts the rows as records: the same order,
    several times slower)."""
    if len(keys) == 0:
        return keys.copy(), np.zeros(0, dtype=np.intp)
    order = np.lexsort(keys.T[::-1])
    sk = keys[order]
    first = np.empty(len(sk), dtype=bool)
    first[0] = True
    np.any(sk[1:] != sk[:-1], axis=1, out=first[1:])
    inv = np.empty(len(keys), dtype=np.intp)
    inv[order] = np.cumsum(first) - 1
    return sk[first], inv


def expansion_table(st, groups, maxima: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Joint law of (awarded spins, expansion pay of each group) over the feature's cycle.

    Returns ``(keys, counts)``: ``keys[i] = (A, E_g1, E_g2, ...)`` with ``E_g =
    sum_{s in g} E_s`` (line-bet units, multiplier 1), followed, with
    ``maxima``, by ``max_{s in g} E_s`` for each group; ``counts[i]`` the stop
    combinations (int64, summing to the cycle).  Reels are combined one at a
    time over (books, reels showing each symbol), exact integer counts.
    """
    game = st.game
    syms = list(st.ordered)
    ns = len(syms)
    radix = st.nreels + 1
    if (ns + 1) * math.log2(radix) >= 62:  # one int64 code per (books, reels showing each symbol)
        raise TooManyStates(f"expansion_table: {ns} regular symbols on {st.nreels} reels do not fit one int64 code")
    codes = np.zeros(1, dtype=np.int64)
    weights = np.ones(1, dtype=np.int64)
    place = radix ** np.arange(ns + 1, dtype=np.int64)  # books, then one digit per symbol
    for strip in game.reel_sets[st.reel_set]:
        ws = strip_windows(strip, game.rows)
        rc = np.array([sum(c in st.books for c in w) * place[0]
                       + sum(int(s in w) * place[1 + i] for i, s in enumerate(syms)) for w in ws],
                      dtype=np.int64)
        rw = np.array(list(ws.values()), dtype=np.int64)
        allc = (codes[:, None] + rc[None, :]).ravel()
        allw = (weights[:, None] * rw[None, :]).ravel()
        codes, inv = np.unique(allc, return_inverse=True)
        weights = np.bincount(inv.ravel(), weights=allw).astype(np.int64)
    digits = (codes[:, None] // place[None, :]) % radix
    books = digits[:, 0]
    award = np.where(books >= 2, st.spb * (books - 1), 0)
    cols = [award]
    tops = []
    for g in groups:
        e = np.zeros(len(codes), dtype=np.int64)
        top = np.zeros(len(codes), dtype=np.int64)
        for s in g:
            table = np.array([st._epay(s, k) for k in range(radix)], dtype=np.int64)
            es = table[digits[:, 1 + syms.index(s)]]
            e += es
            np.maximum(top, es, out=top)
        cols.append(e)
        tops.append(top)
    if maxima:
        cols.extend(tops)
    keys = np.stack(cols, axis=1)
    uk, inv = _unique_rows(keys)
    cnt = np.bincount(inv, weights=weights.astype(np.float64))
    # exact integer re-sum (bincount's float sum is exact below 2^53; checked)
    cnt = cnt.astype(np.int64)
    if int(cnt.sum()) != st.cycle:
        raise AssertionError("expansion_table: counts do not sum to the cycle")
    return uk, cnt



def line_expansion_rows(st) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Exact joint law of (award, each symbol's expansion pay, line win) of a free spin.

    Returns ``(A, E, L, count)``: ``E[i, j]`` the expansion pay (multiplier
    1, line bets) of symbol ``st.ordered[j]`` in outcome ``i``, ``L[i]`` its
    line win (line bets), ``count[i]`` its stop combinations (summing to the
    cycle).  Rows are distinct and sorted lexicographically on
    ``(A, E[:, 0], ..., E[:, -1], L)`` (as ``np.unique(axis=0)`` sorts them).
    One line walk (:func:`analytic.engine.linewalk.walk_arrays`) with the
    books and the reels showing each symbol as counters; kept on ``st``
    (which lives in the solve's workspace).
    """
    from dataclasses import replace as _replace

    from analytic.engine.linewalk import ReelWindows, _merge_keys, walk_arrays
    from analytic.engine.spin import build_spin

    hit = getattr(st, "_line_expansion_rows", None)
    if hit is not None:
        return hit
    base = build_spin(st.game, st.reel_set, ())
    reels = []
    for i, ws in enumerate(st.windows):
        items = sorted(ws.items())
        ctr = tuple((st._wb[i][w][0],) + tuple(int(s in w) for s in st.ordered) for w, _ in items)
        reels.append(ReelWindows(cells=base.reels[i].cells, weights=base.reels[i].weights, counters=ctr))
    law = walk_arrays(_replace(base, reels=tuple(reels), counter_names=("books",) + tuple(st.ordered)))
    ns = len(st.ordered)
    raw = law.counters  # books, shows per symbol, triggers
    cnt = np.asarray(law.count, dtype=np.int64)
    books = raw[:, 0]
    line = np.asarray(law.line_win, dtype=np.int64)
    b_all = np.arange(max(int(books.max()), 0) + 1, dtype=books.dtype)
    tabs = [np.where(b_all >= 2, st.spb * (b_all - 1), 0)]  # A as a function of the books
    tabs += [np.array([st._epay(s, k) for k in range(st.nreels + 1)], dtype=np.int64) for s in st.ordered]
    # np.unique(rows, axis=0) through one packed int64 key per row: A and each E as their ranks
    # in their small tables (order-preserving dense codes), L as is, the first column in the top
    # bits -- the same lexicographic order; np.unique itself when that does not fit
    ok = all(t.dtype == np.int64 for t in tabs) and int(raw[:, :1 + ns].min()) >= 0 and int(line.min()) >= 0
    packed = None
    if ok:
        from analytic.features.engines.drawn_expanding.kernel import rank_pack

        ranked = [np.unique(t, return_inverse=True) for t in tabs]  # (distinct values, rank of each)
        packed = rank_pack(raw, [inv.ravel() for _, inv in ranked], line)  # (None: more than 62 bits)
    if packed is not None:
        pk, widths, shifts = packed
        pk, counts = _merge_keys(pk, cnt)  # sorted distinct keys, exact integer sums
        fields = [(pk >> sh) & ((1 << b) - 1) for sh, b in zip(shifts, widths)]
        keys = np.column_stack([vals[f] for (vals, _), f in zip(ranked, fields)] + [fields[-1]])
    else:
        cols = [np.where(books >= 2, st.spb * (books - 1), 0)]
        cols += [t[raw[:, 1 + j]] for j, t in enumerate(tabs[1:])]
        cols.append(line)
        keys, inv = np.unique(np.stack(cols, axis=1), axis=0, return_inverse=True)
        counts = np.zeros(len(keys), dtype=np.int64)
        np.add.at(counts, inv.ravel(), cnt)
    if int(counts.sum()) != st.cycle:
        raise AssertionError("line_expansion_rows: counts do not sum to the cycle")
    res = (keys[:, 0], keys[:, 1:1 + ns], keys[:, 1 + ns], counts)
    st._line_expansion_rows = res
    return res


def _line_table(st, groups, u: int | None, Cl: float):
    """Rows ``(A, E_g..., max E_g..., kL)`` with float probabilities: the line win spread on the grid.

    The line win ``L`` of an outcome is put at ``floor(L / u) u`` and ``(floor(L / u) + 1) u``
    with the masses of a mean-preserving spread (a convex-order upper bound, independent of the
    expansions' own spread).  ``u`` as in :func:`regular_cap_bound` (from the expansion pays).
    Kept on ``st`` per ``(groups, u, Cl)`` (every start of every run reads the same table; the
    round builds it before its worker processes fork, :func:`line_table_for`); read-only arrays.
    """
    tables = st.__dict__.setdefault("_line_tables", {})
    key = (tuple(tuple(g) for g in groups), u, Cl)
    hit = tables.get(key)
    if hit is None:
        hit = tables[key] = _build_line_table(st, groups, u, Cl)
    return hit


def cap_line_bets(game, st) -> float:
    """The cap in line bets, as the regular cap bounds compute it (a float)."""
    return float(game.cap.total_bet_multiple) * float(st.tb)


def line_table_for(game, st, groups) -> None:
    """Build (and keep on ``st``) the line table of :func:`_line_table` the default grid unit reads."""
    _line_table(st, [tuple(g) for g in groups], None, cap_line_bets(game, st))


def _build_line_table(st, groups, u: int | None, Cl: float):
    """:func:`_line_table`, built."""
    A, Es, L, cnt = line_expansion_rows(st)
    idx = [[st.ordered.index(x) for x in g] for g in groups]
    E = np.stack([Es[:, ix].sum(axis=1) for ix in idx], axis=1)
    EM = np.stack([Es[:, ix].max(axis=1) for ix in idx], axis=1)
    g0 = int(np.gcd.reduce(E.ravel())) or 1
    if u is None:
        u = max(g0, int(Cl // 150) // g0 * g0)
    k0 = L // u
    fr = (L - k0 * u) / u
    p = cnt / float(st.cycle)
    rows = np.concatenate([np.column_stack([A, E, EM, k0]), np.column_stack([A, E, EM, k0 + 1])])
    w = np.concatenate([p * (1 - fr), p * fr])
    rows, w = rows[w > 0], w[w > 0]
    keys, inv = np.unique(rows, axis=0, return_inverse=True)
    prob = np.bincount(inv.ravel(), weights=w)
    keys.flags.writeable = False
    prob.flags.writeable = False
    return keys, prob, u


@dataclass
class RegularCapBound:
    """Upper bounds of the cap's cut on regular Free Spins started with ``n0`` spins.

    Attributes (line-bet units): ``u`` grid unit, ``N`` grid length, ``law``
    final masses (upper bounds, but for underflow, whose allowance is beyond
    the grid) of the spread grouped expansion win at ``k u`` (``k < N``);
    ``over_p_lo``/``over_p_hi``/``over_mom`` mass bounds and first
    moment beyond the grid; ``pr_mass`` the mass that left the grid for MGF
    mode; ``mgf_thetas`` (per line bet) and ``mgf_T`` (mass, first moment,
    ``E[exp(theta X)]`` per theta, upper bounds) of the paths finished in MGF
    mode; ``pr_rbar`` the charges (mean remaining win of the mass beyond the
    grid and of the states dropped from MGF mode); ``states``/``mgf_states``
    solved; ``tb`` total bet in line bets; ``thetas``/``logy`` the verified
    Chernoff points of the line wins, ``line_mean`` ``E[L_tot]``.
    """

    n0: int
    u: int
    N: int
    tb: float
    law: np.ndarray
    over_mom: float
    over_p_lo: float
    over_p_hi: float
    pr_mass: float
    pr_rbar: float
    states: int
    thetas: np.ndarray
    logy: np.ndarray
    line_mean: float
    mgf_thetas: np.ndarray = field(default_factory=lambda: np.zeros(0))
    mgf_T: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    mgf_states: int = 0
    groups: list = field(default_factory=list)
    #: the line wins are inside the grid law (no split of the threshold)
    lines_in: bool = False

    def _grid_excess(self, cs: np.ndarray) -> np.ndarray:
        """Grid, overflow and charges part of ``E[(X - c)+]`` for each ``c`` (line bets)."""
        cs = np.asarray(cs, dtype=np.float64)
        k = np.maximum(np.arange(self.N)[None, :] * float(self.u) - cs[:, None], 0.0)
        kept = k @ self.law
        # overflowed values are >= (N - 1) u, where (x - c)+ is linear for c below it
        cc = np.minimum(cs, (self.N - 1) * float(self.u))
        over = np.where(cc >= 0, np.maximum(self.over_mom - cc * self.over_p_lo, 0.0),
                        self.over_mom - cc * self.over_p_hi)
        return kept + over + self.pr_rbar

    def _mgf_excess(self, cs: np.ndarray) -> np.ndarray:
        """MGF-mode part of ``E[(X - c)+]``: ``min(E[X] - c P, min_theta E[exp(theta (X - c))] / (e theta))``."""
        return _mgf_terms(self.mgf_T, self.mgf_thetas, np.asarray(cs, dtype=np.float64))

    def x_excess_vec(self, cs) -> np.ndarray:
        """Upper bounds of ``E[(X - c)+]`` (line bets) for each ``c <= (N - 1) u``."""
        return (self._grid_excess(cs) + self._mgf_excess(cs)) * (1 + 1e-12)

    def x_excess(self, c: float) -> float:
        """Upper bound of ``E[(X - c)+]`` (line bets) for ``0 <= c <= (N - 1) u`` (the cap and below)."""
        return float(self.x_excess_vec(np.array([c]))[0])

    def x_tail_vec(self, cs) -> np.ndarray:
        """Upper bounds of ``P(X >= c)``: Markov ``min_d E[(X - c + d)+] / d`` on the whole excess bound.

        The candidates for ``d`` include ``1 / theta`` for the MGF thetas, where
        Markov on the Chernoff excess gives back the Chernoff tail.  (A
        separate Chernoff tail of the MGF paths would be wrong: the paths
        dropped from MGF mode carry only their win so far in ``T``.)
        """
        cs = np.asarray(cs, dtype=np.float64)
        out = np.ones(cs.shape)
        pos = cs > 0
        if pos.any():
            c = cs[pos]
            fr = np.geomspace(1.0 / 4096, 1.0, 24)
            d = np.concatenate([c[:, None] * fr[None, :], np.minimum(self.u / 4, c)[:, None],
                                np.minimum(1.0 / self.mgf_thetas[None, :], c[:, None])], axis=1)
            d = np.maximum(d, 1e-300)
            ex = self.x_excess_vec((c[:, None] - d).ravel()).reshape(d.shape)
            out[pos] = np.minimum(1.0, np.min(ex / d, axis=1) * (1 + 1e-12))
        return out

    def x_tail(self, c: float) -> float:
        """Upper bound of ``P(X >= c)``."""
        return float(self.x_tail_vec(np.array([c]))[0])

    def line_excess(self, cl) -> np.ndarray | float:
        """Upper bound of ``E[(L_tot - cl)+]`` (line bets); ``cl`` a number or an array."""
        cl = np.asarray(cl, dtype=np.float64)
        out = self.line_mean - np.minimum(cl, 0.0)
        if len(self.thetas):
            v = self.n0 * self.logy[None, :] - self.thetas[None, :] * cl.reshape(-1, 1)
            ch = np.min(np.exp(v - 1.0) / self.thetas[None, :], axis=1).reshape(cl.shape)
            out = np.where(cl > 0, np.minimum(out, ch), out)
        return float(out) if out.ndim == 0 else out

    def line_tail(self, cl) -> np.ndarray | float:
        """Upper bound of ``P(L_tot >= cl)``; ``cl`` a number or an array."""
        cl = np.asarray(cl, dtype=np.float64)
        out = np.ones(cl.shape)
        if len(self.thetas):
            v = self.n0 * self.logy[None, :] - self.thetas[None, :] * cl.reshape(-1, 1)
            ch = np.min(np.exp(v), axis=1).reshape(cl.shape)
            out = np.where(cl > 0, np.minimum(out, ch), out)
        return float(out) if out.ndim == 0 else out

    @staticmethod
    def _splits(c: float) -> np.ndarray:
        return np.linspace(0.0, max(c, 0.0), 97)[:-1]

    def excess(self, B: float, C: float) -> float:
        """Upper bound of ``E[(B + W - C)+]`` (total-bet multiples; ``B``, ``C`` total-bet multiples)."""
        c = (C - B) * self.tb
        if c <= 0:
            # (the 1e-9 margin covers the input tables' round-to-nearest, as in the other branches)
            return ((B - C) + (self.line_mean + self.x_excess(0.0)) / self.tb) * (1 + 1e-9)
        if self.lines_in:
            return self.x_excess(c) / self.tb * (1 + 1e-9)
        cl = self._splits(c)
        best = float(np.min(self.line_excess(cl) + self.x_excess_vec(c - cl)))
        return best / self.tb * (1 + 1e-9)

    def p_reach(self, B: float, C: float) -> float:
        """Upper bound of ``P(B + W >= C)``."""
        # a threshold a rounding error above a win the law can take would leave that atom out of an
        # upper bound: lower it by a relative 1e-9 (the bound only grows)
        c = (C - B) * self.tb
        c -= 1e-9 * max(1.0, abs(c))
        if c <= 0:
            return 1.0
        if self.lines_in:
            return min(1.0, self.x_tail(c) * (1 + 1e-9))
        cl = self._splits(c)
        best = float(np.min(self.line_tail(cl) + self.x_tail_vec(c - cl)))
        return min(1.0, best * (1 + 1e-9))


@dataclass
class RegularCapMixture(RegularCapBound):
    """The comonotone mixture: ``E[(X - c)+] <= sum_b w_b E[(X_{U_b} - c)+]``.

    ``parts`` holds ``(w_b, bound at level U_b)``; the line-win fields are the
    first part's (the line wins do not depend on the level).  Tails use
    Markov on the mixed excess with one ``d`` for all parts (a mixture of
    per-part Markov bounds with different ``d`` would not be a bound).
    """

    parts: list = field(default_factory=list)

    def x_excess_vec(self, cs) -> np.ndarray:
        """``sum_b w_b`` (part ``b``'s bound), all parts at once.

        The grid term is linear in the law, so it is taken once on ``sum_b w_b law_b``;
        the overflow, charge and MGF terms part by part (vectorised over the parts;
        ``w min(a, b) = min(w a, w b)``, so a part's weight scales its MGF rows).  Every
        float sum here is of nonnegative terms (within ``1e-13`` of exact), which the
        parts' and the mixture's ``1 + 1e-12`` margins cover.
        """
        cs = np.asarray(cs, dtype=np.float64)
        st = self._stacked()
        if st is None:  # parts on different grids: one by one
            out = np.zeros(cs.shape)
            for w, b in self.parts:
                out += w * b.x_excess_vec(cs)
            return out * (1 + 1e-12)
        u, N, law, w, mom, p_lo, p_hi, rbar, T, th = st
        kept = np.maximum(np.arange(N)[None, :] * float(u) - cs[:, None], 0.0) @ law
        cc = np.minimum(cs, (N - 1) * float(u))[None, :]
        over = np.where(cc >= 0, np.maximum(mom[:, None] - cc * p_lo[:, None], 0.0),
                        mom[:, None] - cc * p_hi[:, None])
        out = kept + w @ over + rbar + _mgf_terms(T, th, cs)
        return out * (1 + 1e-12) * (1 + 1e-12)

    def _stacked(self):
        """The parts' fields as arrays (``None`` if their grids or thetas differ); kept for these parts."""
        ident = tuple((w, id(b)) for w, b in self.parts)
        if getattr(self, "_stack_of", None) != ident:
            self._stack_of = ident
            bs = [b for _, b in self.parts]
            same = bool(bs) and all(
                b.u == bs[0].u and b.N == bs[0].N and np.array_equal(b.mgf_thetas, bs[0].mgf_thetas)
                and b.mgf_T.shape[1:] == bs[0].mgf_T.shape[1:] and type(b) is RegularCapBound for b in bs)
            if not same:
                self._stack = (None,)
            else:
                w = np.array([wb for wb, _ in self.parts])
                law = sum((wb * b.law for wb, b in self.parts), np.zeros(bs[0].N))
                T = np.concatenate([wb * b.mgf_T for wb, b in self.parts])
                self._stack = (bs[0].u, bs[0].N, law, w, np.array([b.over_mom for b in bs]),
                               np.array([b.over_p_lo for b in bs]), np.array([b.over_p_hi for b in bs]),
                               float(sum(wb * b.pr_rbar for wb, b in self.parts)), T, bs[0].mgf_thetas)
        return None if self._stack[0] is None else self._stack


def _mgf_terms(T: np.ndarray, th: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """``sum_i min(max(T_i1 - min(c, 0) T_i0, 0), min_theta exp(log T_i(theta) - theta c - 1) / theta)``.

    One Chernoff bound per row of ``T`` (mass, first moment, ``E[exp(theta X)]``
    per theta; rows of zero mass skipped), each with its own theta; for each ``c``
    (compiled: :func:`~analytic.features.engines.drawn_expanding.kernel.chernoff_rows`).
    """
    from analytic.features.engines.drawn_expanding.kernel import chernoff_rows

    return chernoff_rows(T, th, cs)


def binomial_pmf(k: int, q: Fraction) -> list[Fraction]:
    """``[P(Bin(k, q) = x) for x in 0..k]``, exact fractions."""
    return [math.comb(k, x) * q ** x * (1 - q) ** (k - x) for x in range(k + 1)]


def binomial_step(k: int, j: int, q: Fraction = Fraction(1, 7)) -> float:
    """The largest float ``<= P(Bin(k, q) <= j)``: a comonotone level at a step of ``Q_U(k)``.

    ``Q_U(k)``, the ``U``-quantile of ``Bin(k, q)``, is ``j`` exactly on
    ``(P(Bin <= j - 1), P(Bin <= j)]``; a level's bound depends on ``U`` only
    through these quantiles, so it is constant between consecutive steps (of
    every ``k``), and a level placed at a step loses nothing to the step it
    sits on (rounding down keeps ``Q_U(k) = j``).  Raises ``ValueError`` when
    no float has ``Q_U(k) = j`` (the step is narrower than a float's spacing,
    e.g. ``k = 22, j = 21`` for ``q = 1/7``).
    """
    pmf = binomial_pmf(k, q)
    acc = sum(pmf[:j + 1], Fraction(0))
    x = float(acc)
    x = math.nextafter(x, 0.0) if Fraction(x) > acc else x
    if Fraction(x) <= acc - pmf[j]:
        raise ValueError(f"binomial_step: no float level has the quantile {j} of Bin({k}, {q})")
    return x


#: Comonotone levels of the mixture: bin ``(U_{b-1}, U_b]`` is bounded by its upper end.  Most are
#: steps of the quantiles of ``Bin(k, 1/7)`` (:func:`binomial_step`; the shipped group has seven
#: symbols), picked among 123 candidates (the steps for k <= 12 and a grid of ``1 - 10^-x``) by a
#: dynamic programme minimising the upper sum on the shipped model (10 and 20 spins, eps 3e-12;
#: ``python -m analytic.bench.drawn_expanding_levels`` redoes it).  Any increasing levels
#: ending at 1 give a valid bound; these make it small.  'certify': 22 levels, per 10-spin trigger
#: 9.4e-5 bet at eps 3e-12 (all 123 candidates: 8.7e-5), 9.0e-5 at its eps 3e-13.
LEVELS = (0.3, binomial_step(5, 0), binomial_step(9, 1), binomial_step(2, 0), binomial_step(10, 2),
          binomial_step(4, 1), binomial_step(7, 2), 1 - 10 ** -1.35, binomial_step(9, 3), binomial_step(2, 1),
          1 - 10 ** -1.8, binomial_step(4, 2), binomial_step(10, 4), binomial_step(6, 3), binomial_step(12, 5),
          binomial_step(8, 4), binomial_step(10, 5), binomial_step(12, 6), binomial_step(11, 6),
          binomial_step(5, 4), binomial_step(6, 5), 1.0)
#: The 'standard' precision (the designers' re-solve): 16 levels, 1.0e-4 bet per 10-spin trigger at
#: eps 3e-12 (the 10 round levels used before, 0.5 ... 0.9999, gave 1.34e-4).
LEVELS_STANDARD = tuple(binomial_step(k, j) for k, j in (
    (5, 0), (2, 0), (10, 2), (4, 1), (3, 1), (9, 3), (12, 4), (4, 2), (6, 3), (8, 4), (10, 5), (12, 6),
    (11, 6), (5, 4), (6, 5))) + (1.0,)
#: The 'quick' precision (a session, a designer's first look): 3 of the standard levels, 0.94, 0.9989
#: and 1 (seven sets of 2 to 8 standard levels at eps 1e-9 ... 3e-11 tried on the shipped model's
#: base mode: docs/benchmarks.md, "Cap precision 'quick'").
LEVELS_QUICK = tuple(LEVELS_STANDARD[i] for i in (4, 10)) + (1.0,)
#: Precision presets of the round's regular cap bounds: ``(eps, levels)``.  'standard' and
#: 'certify' meet what issue 5 asks on the shipped model (every capped RTP interval within 1e-6:
#: 'standard' leaves Buy Free Spins at 9.5e-7); 'certify' narrows it to 8.3e-7 at about 1.6x the
#: time.  'quick' solves no lower bound of the cut (:data:`WITH_LOWER`) and a coarser upper one: on
#: the shipped model its capped RTP intervals are 1.8e-6 (Power Bet) to 9.7e-6 (Buy Free Spins) wide,
#: the base mode's 3.3e-6, its bounds' jobs about an eighth of the CPU (3.6 s against 28 s; the base
#: solve 9.5 s of CPU against 32.6 s, docs/benchmarks.md).  Chosen by
#: the solve's workspace (``Workspace(precision=...)``, ``solve_round(..., precision=...)``) or the
#: CLI's ``--cap-precision``.
PRESETS = {"quick": (3e-10, LEVELS_QUICK), "standard": (3e-12, LEVELS_STANDARD), "certify": (3e-13, LEVELS)}
#: The presets that also solve the cut's lower bound (:mod:`draw_cap_low`); without it the cut's lower
#: end is 0 and ``P(W >= x)`` is bounded from below by the first spins' law alone
#: (:class:`~analytic.features.engines.drawn_expanding.round_tail.RoundTail`).
WITH_LOWER = frozenset({"standard", "certify"})


def precision_preset(name: str | None = None) -> tuple[str, float, tuple]:
    """``(name, eps, levels)`` of the preset ``name`` (default 'standard'), see :data:`PRESETS`.

    Raises ``ValueError`` for an unknown name.
    """
    name = (name or "standard").strip()
    if name not in PRESETS:
        raise ValueError(f"cap precision {name!r} is not one of {sorted(PRESETS)}")
    eps, levels = PRESETS[name]
    return name, eps, levels


def mixture_groups(st) -> list[tuple[str, ...]]:
    """Groups of the default mixture: the two most valuable symbols alone, the other seven together."""
    order = list(st.ordered)
    if len(order) <= 2:
        return [(s,) for s in reversed(order)]
    return [(order[-1],), (order[-2],), tuple(order[:-2])]


def check_levels(levels) -> tuple:
    """``levels`` as a tuple, or ``ValueError`` unless they increase in ``(0, 1]`` and end at 1."""
    levels = tuple(levels)
    if not levels or levels[-1] != 1 or any(not a < b for a, b in zip((0.0,) + levels, levels)):
        raise ValueError(f"regular_cap_mixture: levels {levels!r} must increase in (0, 1] and end at 1")
    return levels


def combine_levels(levels, bounds) -> RegularCapMixture:
    """The mixture of per-level bounds (``bounds[b]`` solved at ``levels[b]``), weights ``U_b - U_{b-1}``."""
    from dataclasses import fields

    levels = check_levels(levels)
    parts = [(lv - lo, b) for lo, lv, b in zip((0.0,) + levels, levels, bounds)]
    first = bounds[0]
    base = {f.name: getattr(first, f.name) for f in fields(RegularCapBound)}
    base.update(pr_mass=sum(w * b.pr_mass for w, b in parts), pr_rbar=0.0,
                states=sum(b.states for _, b in parts), mgf_states=sum(b.mgf_states for _, b in parts))
    return RegularCapMixture(**base, parts=parts)


def regular_cap_mixture(game, feature: str, n0: int, levels=None, **kw) -> RegularCapMixture:
    """Upper bounds of the cap's cut from the comonotone mixture of levels ``levels``.

    Why it bounds the truth: let ``F`` be the windows of every spin and the
    group of every draw (which group, and the singletons' draws).  Given
    ``F``, a group's draws split over its members uniformly and
    independently, so member ``s`` has count ``c_s(t) ~ Bin(k_g(t), 1/|g|)``
    at spin ``t`` and pays ``T_{t,s} = f(c_s(t)) E_s(w_t)``.  The sum of the
    ``T_{t,s}`` is below, in convex order, the comonotonic sum with the same
    marginals, ``sum_{t,s} f(Q_U(k_g(t))) E_s(w_t)`` with one uniform ``U``
    (Dhaene, Denuit, Goovaerts, Kaas and Vyncke, *The concept of
    comonotonicity in actuarial science and finance: theory*, Insurance:
    Mathematics and Economics 31 (2002), Theorem 7), and the rest of the
    win is ``F``-measurable.  So ``E[(W - c)+] <= int_0^1 E[(W_U - c)+] dU``;
    ``W_U`` grows with ``U``, so a bin ``(U_{b-1}, U_b]`` is bounded by its
    upper end, and for a fixed ``U`` the chain is the grouped chain of
    :func:`regular_cap_bound` with the level's multipliers (all levels in
    runs of :data:`LEVEL_RUN`: :func:`regular_cap_bound_levels`).  Every part is an
    upper bound of its level, so the weighted sum is one of the feature.

    Parameters: ``levels`` increasing, ending at 1 (default :data:`LEVELS`);
    ``kw`` as :func:`regular_cap_bound` (default groups:
    :func:`mixture_groups`), ``ws`` among them.

    Raises
    ------
    ValueError
        For levels that are not increasing in ``(0, 1]`` with the last 1;
        what :func:`regular_cap_bound` raises.
    """
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats
    from analytic.workspace import workspace_for

    kw["ws"] = workspace_for(game, kw.get("ws"))
    levels = check_levels(LEVELS if levels is None else levels)
    if kw.get("groups") is None:
        kw["groups"] = mixture_groups(spin_stats(game, feature, kw["ws"]))
    bounds = [b for run in level_runs(levels) for b in regular_cap_bound_levels(game, feature, n0, list(run), **kw)]
    return combine_levels(levels, bounds)


def later_award_coefficients(award_law) -> tuple:
    """``(alpha, beta)`` with ``V(n) = alpha n^2 + beta n``.

    ``V(n)`` is the expected sum, over the award spins of a feature started with
    ``n`` spins, of the spins left after each of them (``n_s - 1 + a_s``), for
    i.i.d. awards ``a`` with law ``award_law`` (``{a: probability}``, mean < 1).
    It solves ``V(n) = sum_a p_a ([a > 0] (n - 1 + a) + V(n - 1 + a))``, ``V(0) =
    0``: matching powers of ``n`` gives ``alpha = p_+ / (2 (1 - m))`` and ``beta =
    (m - p_+ + alpha (1 - 2 m + E[a^2])) / (1 - m)`` (``m = E[a]``, ``p_+ =
    P(a > 0)``), and the quadratic is the minimal solution because the spin count
    has finite second moment.  Exact with Fraction inputs.
    """
    m = sum(a * p for a, p in award_law.items())
    if m >= 1:
        raise ValueError("later_award_coefficients: mean award >= 1")
    p_plus = sum(p for a, p in award_law.items() if a > 0)
    a2 = sum(a * a * p for a, p in award_law.items())
    alpha = p_plus / (2 * (1 - m))
    beta = (m - p_plus + alpha * (1 - 2 * m + a2)) / (1 - m)
    return alpha, beta


def _fingerprint(game, feature: str) -> str:
    """SHA-256 of everything the bound reads (so equal models loaded twice share one solve)."""
    import hashlib

    spec = game.features[feature]
    parts = (
        game.rows,
        tuple(tuple(strip) for strip in game.reel_sets[spec.reel_set]),
        sorted((s, sorted(dict(p).items())) for s, p in game.paytable.items()),
        tuple(tuple(line) for line in game.lines),
        sorted((k, repr(v)) for k, v in game.rules.items()),
        repr(game.cap.total_bet_multiple) if game.cap is not None else "no cap",
        sorted((k, repr(v)) for k, v in spec.params.items()),
        sorted((s.name, s.role, repr(getattr(s, "tier", None)), repr(getattr(s, "value_rank", None)))
               for s in game.symbols),
        repr(game.total_bet),
        feature,
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def _bump(m: tuple, gi: int, cmax: int) -> tuple:
    m2 = list(m)
    m2[gi] = min(m2[gi] + 1, cmax)
    return tuple(m2)


def _gamma(n: int) -> float:
    """Higham's ``gamma_n = n u / (1 - n u)`` (unit roundoff ``u = 2^-53``), rounded up."""
    return math.nextafter(n * U / (1 - n * U), math.inf)


def convolve_nonnegative(G: np.ndarray, H: np.ndarray) -> np.ndarray:
    """Row-wise full convolutions of nonnegative laws: ``out[r] = G[r] * H[r]``.

    Shapes ``(R, N)`` and ``(R, N)`` -> ``(R, 2N - 1)``.  Every entry is a sum
    of at most ``N`` nonnegative products, so its computed value is within
    ``gamma_{N+1}`` times itself of the exact one (Higham, *Accuracy and
    Stability of Numerical Algorithms*, 2nd ed., s.3.1 and s.4.2), up to
    underflow (``2^-1074`` per product): an error relative to each entry,
    where an FFT's error is relative to the whole law's norm and lands on
    entries whose exact value is 0 (that raised the old bound tenfold on
    the shipped model).  One ``numpy.convolve`` per row (numpy's direct
    sum), on each row's used length: the numpy form of the compiled
    :func:`~analytic.features.engines.drawn_expanding.kernel.spin_step` (used where
    numba is missing, and by the tests as its second opinion).
    """
    R, N = G.shape
    out = np.zeros((R, 2 * N - 1))
    # per row, the used lengths (up to the last nonzero entry): zeros beyond add nothing
    tg = N - np.argmax(G[:, ::-1] > 0, axis=1)
    th = N - np.argmax(H[:, ::-1] > 0, axis=1)
    live = np.flatnonzero(G.any(axis=1) & H.any(axis=1))
    for r, a, b in zip(live.tolist(), tg[live].tolist(), th[live].tolist()):
        out[r, :a + b - 1] = np.convolve(G[r, :a], H[r, :b])  # numpy's direct sums (never an FFT)
    return out


@functools.lru_cache(maxsize=4096)
def binomial_quantile(level: Fraction, k: int, q: Fraction) -> int:
    """``min{x : P(Bin(k, q) <= x) >= level}``, exactly (Fraction arithmetic), for ``0 < level <= 1``.

    (Kept per argument values: every chain run asks it for each of its levels and counts.)
    """
    acc = Fraction(0)
    for x, px in enumerate(binomial_pmf(k, q)):
        acc += px
        if acc >= level:
            return x
    return k


def check_grid_unit(u, who: str) -> None:
    """``ValueError`` unless the grid unit ``u`` is None (the default) or a positive integer (line bets)."""
    if u is not None and (not isinstance(u, (int, np.integer)) or isinstance(u, bool) or u < 1):
        raise ValueError(f"{who}: grid unit u = {u!r} must be a positive integer (line bets)")


def regular_cap_bound(game, feature: str, n0: int, u: int | None = None, eps: float | None = None,
                      groups=None, max_states: int = MAX_STATES,
                      eps_mgf: float | None = None, level: float | None = None,
                      lines: bool = True, ws=None) -> RegularCapBound:
    """Certified upper bounds of the cap's cut for regular Free Spins started with ``n0`` spins.

    Parameters
    ----------
    game, feature : the model and its ``drawn_expanding`` feature with drawn symbols (no ladder).
    n0 : int
        Starting spins (10/15/20 for 3/4/5 books on the shipped model).
    u : int, optional
        Grid unit in line-bet units (default: the cap's line-bet value / 150,
        rounded down to a multiple of the pays' gcd).
    eps : float
        States reached with less mass leave the grid for MGF mode.
    eps_mgf : float
        MGF-mode states reached with less mass are dropped (charged their mean).
    groups : list of tuples of symbol names, optional
        Symbol groups of the multiplier domination (default
        :func:`default_groups`); singletons are exact.
    max_states : int
        Refuse (``ValueError``) rather than solve more states than this.
    lines : bool
        Put the line wins into the spin law (from one line walk with the
        books and each symbol's reels as counters; spread on the grid like
        the expansions), instead of splitting the threshold between them
        and a Chernoff bound of their total (item 1 and 2).
    level : float, optional
        Comonotone level ``U`` in ``(0, 1]`` (see :func:`regular_cap_mixture`):
        a group of several symbols then pays ``f(Q_U(k)) sum_s E_s`` with
        ``Q_U(k)`` the ``U``-quantile of ``Bin(k, 1 / |g|)``, instead of the
        domination of item 3.  The result bounds ``E[(X_U - c)+]`` for that
        level, not the feature's cut by itself.
    ws : Workspace, optional
        The solve's workspace for ``game`` (:mod:`analytic.workspace`):
        the bounds and the run's tables are kept there.  None: a fresh one.

    Raises
    ------
    ValueError
        Without a cap, for the Power variant, for ``eps`` or ``eps_mgf`` not
        positive, for groups that are not a partition of the regular
        symbols, for ``u`` not a positive integer.
    TooManyStates
        (a ``ValueError``) beyond ``max_states`` grid states or
        ``MGF_STATE_FACTOR * max_states`` MGF-mode states.
    """
    return regular_cap_bound_levels(game, feature, n0, [level], u=u, eps=eps, groups=groups,
                                    max_states=max_states, eps_mgf=eps_mgf, lines=lines, ws=ws)[0]


def regular_cap_bound_levels(game, feature: str, n0: int, levels, u: int | None = None,
                             eps: float | None = None, groups=None, max_states: int = MAX_STATES,
                             eps_mgf: float | None = None, lines: bool = True, ws=None) -> list[RegularCapBound]:
    """:func:`regular_cap_bound` for several levels at once: one chain run, one bound per level.

    ``levels``: a list of comonotone levels in ``(0, 1]`` or ``None`` (the
    domination of item 3), in any order; returns the bounds in that order,
    each as :func:`regular_cap_bound` defines it.  The levels share the
    chain's states and their masses (the draws and the spins left do not
    depend on the level); only the spin laws and the charges differ.  So
    every state carries one row per level, and the bookkeeping (summing
    the transitions per target, the draws, the routing) is done once for
    all of them.  The group counts are followed up to a cap that does not
    depend on the levels of the run (a level whose multiplier tops out
    earlier keeps its top value beyond: exactly what merging the counts
    would give).  A state leaves the grid (or MGF mode) when its reach
    probability, carried beside the rows, is below ``eps`` (``eps_mgf``);
    which states do is a choice of the method, not a condition of the bound
    (items 6 and 7 hold for any choice), and made this way it is the same
    whatever levels share the run: a level's bound does not depend on how
    the levels were cut into runs (the number of worker processes).

    Parameters and errors: as :func:`regular_cap_bound`.
    """
    from analytic.features.engines.drawn_expanding.engine import multiplier_of_count
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats
    from analytic.workspace import workspace_for

    ws = workspace_for(game, ws)
    if game.cap is None:
        raise ValueError("regular_cap_bound: the model has no win cap")
    st = spin_stats(game, feature, ws)
    if st.variant != "draws":
        raise ValueError("regular_cap_bound: regular Free Spins only")
    groups = [tuple(g) for g in (groups or default_groups(st))]
    eps = EPS if eps is None else eps
    eps_mgf = min(EPS_MGF if eps_mgf is None else eps_mgf, eps)
    if not (eps > 0 and eps_mgf > 0):
        raise ValueError("regular_cap_bound: eps and eps_mgf must be positive (the chain has no last state)")
    if sorted(x for g in groups for x in g) != sorted(st.ordered) or not all(groups):
        raise ValueError(f"regular_cap_bound: groups {groups!r} must partition the regular symbols "
                         f"{tuple(st.ordered)!r}")
    check_grid_unit(u, "regular_cap_bound")
    levels = list(levels)
    if not levels:
        raise ValueError("regular_cap_bound_levels: no level given")
    for level in levels:
        if level is not None and not (isinstance(level, (int, float)) and 0 < level <= 1):
            raise ValueError(f"regular_cap_bound: level = {level!r} must lie in (0, 1]")
    # one entry per run: a level's float sums may differ in their last bits with the run's other
    # levels (array shapes), so a result is reused only for the same run
    run = tuple(dict.fromkeys(levels))  # each level once, in order
    key = ("drawn_expanding.regcap", feature, n0, u, eps, eps_mgf, tuple(groups), tuple(MGF_THETAS), max_states,
           run, LEVEL_KMAX, lines)
    hit = ws.get(key)
    if hit is None:
        try:
            res = _solve_levels(game, st, feature, n0, list(run), u, eps, eps_mgf, groups, max_states, lines,
                                multiplier_of_count, ws)
        except BaseException:  # (an interrupted run may leave its per-id tables half filled)
            ws.discard(RUN_TABLES)
            raise
        hit = dict(zip(run, res))
        ws.put(key, hit)
    return [hit[lv] for lv in levels]


#: Levels per chain run (:func:`level_runs`): fixed, so that the bounds do not depend on the number
#: of worker processes (a run's float sums may depend, in their last bits, on the levels it holds:
#: the BLAS products over a state's level rows -- ``G @ grid``, ``Hd @ ez``, the MGF tables'
#: ``WC @ x`` -- are tiled by the level count, and in a run of one level every group's pays are
#: "shared", which reorders the MGF tables' products).  11: the 'standard' preset's 16 levels in two
#: runs of 8, one worker job each (on the shipped model about 17 s of CPU each, where its one run
#: of 16 took 35 s: the round's longest job, now split over the two cores), the 'certify' preset's
#: 22 in two runs of 11 (as before).  Two runs of 8 give the same floats as one of 16 (every field
#: of the 48 'standard' upper bounds of the shipped model, and the tests' tiny model: level counts
#: that are multiples of 4 fill the same OpenBLAS tiles), so the figures stayed bit for bit; runs of
#: 2 or 1, or 7/8/7 for 'certify', do not (last bits).  A run's bookkeeping is shared by its
#: levels: on the shipped model (before the compiled kernels, 10 spins) 5 levels took 22 s, 16
#: levels 48 s and 1.2 GB.
LEVEL_RUN = 11


def level_runs(levels, size: int = LEVEL_RUN) -> list[tuple]:
    """``levels`` cut into contiguous runs of at most ``size`` levels, of near-equal length.

    Each run is one :func:`regular_cap_bound_levels` solve; the cut depends only on the levels
    (never on the machine), so the sheet's figures are the same on any number of cores.
    """
    levels = tuple(levels)
    if not levels:
        return []
    parts = -(-len(levels) // max(1, size))
    cut = [round(i * len(levels) / parts) for i in range(parts + 1)]
    return [levels[a:b] for a, b in zip(cut, cut[1:])]


def _level_multipliers(groups, level, mult, cmax):
    """Per group: ``(MS, MM, kcap)`` of one level (``None``: the domination of item 3).

    A group with count ``k`` pays at most ``min(MS[k] sum_s E_s, MM[k] max_s E_s)``
    (``k`` capped at ``kcap``: from there on the top value stands).
    """
    MS, MM, kcap = [], [], []
    for g in groups:
        if level is not None and len(g) > 1:
            # comonotone level: every member pays as if its count were the level's quantile of
            # Bin(k, 1/|g|); from kcap on (the quantile is then at f's top, or the count too large
            # to follow) the top multiplier stands for every larger count
            lv, qg = Fraction(level), Fraction(1, len(g))
            ms = []
            for k in range(LEVEL_KMAX + 1):
                ms.append(float(mult[min(binomial_quantile(lv, k, qg), cmax)]))
                if ms[-1] >= mult[cmax]:
                    break
            ms[-1] = float(mult[cmax])
            kcap.append(len(ms) - 1)
            MS.append(np.array(ms))
            MM.append(np.full(len(ms), 1e300))  # no second form: min(.) picks f(Q_U(k)) sum E
            continue
        # a group with k draws, split c_s over its symbols: sum_s f(c_s) E_s <= min(f(k) sum_s E_s,
        # F_g(k) max_s E_s), F_g(k) = max of sum_s f(c_s) over the splits (f increasing, f(0) = 0)
        Fg = _split_maxima(len(g), tuple(int(v) for v in mult), cmax)
        top = next(k for k in range(len(Fg)) if Fg[k] == mult[cmax] * len(g) and k >= cmax)
        kcap.append(top)
        MS.append(np.array([float(mult[min(k, cmax)]) for k in range(top + 1)]))
        MM.append(np.array([float(Fg[k]) for k in range(top + 1)]))
    return MS, MM, kcap


@functools.lru_cache(maxsize=64)
def _split_maxima(size: int, mult: tuple, cmax: int) -> list:
    """``F(k)``, the largest ``sum_s f(c_s)`` over the splits of ``k`` draws over ``size`` symbols.

    ``k`` runs to ``size * cmax``, where every member can be at the top multiplier ``mult[cmax]``.
    """
    Fg = [mult[min(k, cmax)] for k in range(size * cmax + 1)]
    for _ in range(size - 1):
        Fg = [max(mult[min(c, cmax)] + Fg[k - c] for c in range(k + 1)) for k in range(len(Fg))]
    return Fg


def _extend(a: np.ndarray, n: int) -> np.ndarray:
    """``a`` padded to length ``n`` with its last value (a count beyond the cap pays the top)."""
    return np.concatenate([a, np.full(n - len(a), a[-1])])


def _solve_levels(game, st, feature, n0, levels, u, eps, eps_mgf, groups, max_states, lines,
                  multiplier_of_count, ws) -> list[RegularCapBound]:
    """The chain run of :func:`regular_cap_bound_levels` (arguments checked there)."""
    from analytic.features.engines.drawn_expanding.kernel import (grid_spin, group_pay, mgf_spin, multiply_gathered,
                                                                  sum_blocks)

    reading, ceiling = st.reading, st.ceiling
    cmax = 1  # the first draw count at the ceiling
    while multiplier_of_count(cmax, reading, ceiling) < ceiling:
        cmax += 1
    mult = np.array([0] + [multiplier_of_count(c, reading, ceiling) for c in range(1, cmax + 1)], dtype=np.int64)
    tb = float(st.tb)
    Cl = cap_line_bets(game, st)  # cap in line bets
    if lines:  # line wins inside the rows (spread on the grid): no split of the threshold
        keys, prob, u = _line_table(st, groups, u, Cl)
    else:
        keys, cnt = expansion_table(st, groups, maxima=True)
        g0 = 0
        for col in keys[:, 1:].T:
            g0 = math.gcd(g0, int(np.gcd.reduce(col)))
        g0 = g0 or 1
        if u is None:
            u = max(g0, int(Cl // 150) // g0 * g0)
        prob = cnt / float(st.cycle)
    N = math.ceil(Cl / u) + 1  # (N - 1) u >= the cap: every overflowed value is above any threshold
    gam = _gamma(N + 1)  # relative error of a direct convolution of nonnegative numbers
    tiny = (N + 1) * 2.0 ** -1074  # and the absolute error of underflowed products
    # per convolved row, all entries, rounded up to the smallest normal float (no subnormal allowance);
    # where an addition absorbs it, it is below that addition's own rounding, which the bounds'
    # relative margins cover like every other float sum of the chain
    under = max(tiny * (2 * N - 1), 2.0 ** -1022)
    cyc = float(st.cycle)
    by_class = np.argsort(keys[:, 0], kind="stable")  # rows of one award class contiguous
    keys, prob = keys[by_class], prob[by_class]
    award = keys[:, 0]
    nsym = len(st.ordered)
    ng = len(groups)
    nl = len(levels)
    E = keys[:, 1:1 + ng].astype(np.float64)  # sum of the group's expansion pays (multiplier 1)
    EM = keys[:, 1 + ng:1 + 2 * ng].astype(np.float64)  # the largest of them
    LX = keys[:, 1 + 2 * ng].astype(np.float64) * u if lines else np.zeros(len(keys))  # spread line win
    per_level = [_level_multipliers(groups, lv, mult, cmax) for lv in levels]
    # counts followed up to a cap that does not depend on which levels share the run (the
    # domination's, or LEVEL_KMAX for a group of several symbols, whichever is larger), so a level's
    # bound is the same whatever run it is solved in; MS[g][b, k], MM[g][b, k] of level b
    top_dom = _level_multipliers(groups, None, mult, cmax)[2]
    kcap = [max([top_dom[g], LEVEL_KMAX if len(groups[g]) > 1 else 0] + [pl[2][g] for pl in per_level])
            for g in range(ng)]
    MS = [np.stack([_extend(pl[0][g], kcap[g] + 1) for pl in per_level]) for g in range(ng)]
    MM = [np.stack([_extend(pl[1][g], kcap[g] + 1) for pl in per_level]) for g in range(ng)]

    def pay(F):
        """Bound of the spin's pay (expansions and spread line win), rows x ids x levels, for group counts
        ``F`` (ids x groups): the groups' ``min(E MS, EM MM)`` added in order, then ``LX``
        (:func:`~analytic.features.engines.drawn_expanding.kernel.group_pay`)."""
        return group_pay(E, EM, MS, MM, F, LX)
    classes = sorted(set(int(a) for a in award))
    cls_sl = [slice(int(np.searchsorted(award, a, "left")), int(np.searchsorted(award, a, "right")))
              for a in classes]
    award_law: dict = {}  # exact, from the line walk's (award, line win) law
    for (a, _L), c in st.line_law.items():
        award_law[int(a)] = award_law.get(int(a), 0) + Fraction(int(c), st.cycle)
    abar = float(sum(a * q for a, q in award_law.items()))
    wg = np.array([len(g) / nsym for g in groups])
    # remaining-win bound of a state (m, n): f(c + D) <= f(c) + D, D_g(t) the later draws of group g,
    # independent of spin t's window; E[T] = n / (1 - abar) spins, and
    # V(n) = E[sum over award spins s of (spins left after s)] = alpha n^2 + beta n exactly
    alpha, beta = (float(v) for v in later_award_coefficients(award_law))
    # the charge is the TRUE feature's expected remaining expansion win: given the group draw counts,
    # a group's draws split uniformly over its symbols (independent of the windows), so symbol s of
    # group g has count ~ Bin(c_g, 1/|g|); later draws add E[D_s] = (awards later) / nsym
    mu_s = {s: sum(st.sE[s][c][0] for c in range(len(st.classes))) / cyc for s in st.ordered}
    fmult = mult.astype(np.float64)
    SPL = []  # SPL[g][b, c]: the charge's multiplier of group g with count c at level b
    for gi, g in enumerate(groups):
        q = 1.0 / len(g)
        rows = []
        for b, lv in enumerate(levels):
            kc = per_level[b][2][gi]
            if lv is not None and len(g) > 1:  # the level's process: each member at f(Q_U(c))
                sp = list(MS[gi][b, :kc + 1])
            else:
                sp = [sum(math.comb(c, k) * q ** k * (1 - q) ** (c - k) * fmult[min(k, cmax)]
                          for k in range(c + 1)) for c in range(kc + 1)]
                if len(g) > 1:  # a group's count is capped at kcap: beyond it only f <= the ceiling is known
                    sp[kc] = float(ceiling)
            rows.append(_extend(np.array(sp, dtype=np.float64), kcap[gi] + 1))
        SPL.append(np.stack(rows))
    mu_grp = [sum(mu_s[s] for s in g) for g in groups]
    # with the line wins in the rows, a spin's line win joins the charge (its mean, per spin)
    mu_line = float(np.sum(prob * LX)) * (1 + 1e-12) if lines else 0.0
    # per later award, per spin; at a level a later draw into g raises Q_U of every member by at most one
    s2 = np.array([sum(len(g) / nsym * m for g, m in zip(groups, mu_grp)) if lv is not None
                   else sum(mu_grp) / nsym for lv in levels])

    nc = len(classes)
    K = len(MGF_THETAS)
    thetas_x = np.asarray(MGF_THETAS, dtype=np.float64) / Cl  # per line bet
    # group-count tuples get global ids; per id: the spin law per award class, the charge
    # coefficient s1 (per spin, this state, per level), the ids after one draw into each group.
    # None of it depends on the start: the tables are kept for the next start of the same run
    # (the workspace's :data:`RUN_TABLES`, the last run's only), filled as the ids are met.  Ids met together are
    # tabled together (matrix products over a batch of ids), so an entry's last bits may depend
    # on what was solved before; the round solves a run's starts in one job, in a fixed order
    # (:mod:`draw_bounds`), so its figures are the same on every run and machine.
    tkey = (feature, u, N, tuple(groups), tuple(levels), lines, tuple(kcap),
            tuple(MGF_THETAS), LEVEL_KMAX, tuple(m.tobytes() for m in MS + MM + SPL), prob.tobytes(), LX.tobytes())
    run_tables = ws.get(RUN_TABLES) or {}
    tab = run_tables.get(tkey)
    if tab is None:
        tab = dict(
            tid={}, tuples=[], nslots=0,
            # per tuple id: draws, charge and MGF tables
            GZ=np.zeros((64, nl, nc, K + 2)),  # per level and class: mass, E[x; class], E[exp(theta x); class]
            S1=np.zeros((64, nl)),  # charge coefficient of the state
            BUMP=np.zeros((64, ng), dtype=np.int64), done=np.zeros(64, dtype=bool),
            gz_done=np.zeros(64, dtype=bool), slot=np.full(64, -1, dtype=np.int64),
            # per grid slot (ids solved on the grid): spin laws
            HL=np.zeros((64, nl, nc, N)),  # the spin law per level and award class, spread on the grid
            BP=np.zeros((64, nl, nc)),  # mass of single spins paying >= N u
            BM=np.zeros((64, nl, nc)),  # their first moment
            XM=np.zeros((64, nl, nc)),  # kept mass of the spin law
            X1=np.zeros((64, nl, nc)),  # first moment of the class (E[x; class])
            HB=np.zeros((64, nl, nc), dtype=np.int64))  # used length of HL's laws (past the last nonzero)
        ws.put(RUN_TABLES, {tkey: tab})  # the last run's only
    tid, tuples, nslots = tab["tid"], tab["tuples"], tab["nslots"]
    GZ, S1, BUMP, done, gz_done, slot = (tab[k] for k in ("GZ", "S1", "BUMP", "done", "gz_done", "slot"))
    HL, BP, BM, XM, X1, HB = (tab[k] for k in ("HL", "BP", "BM", "XM", "X1", "HB"))

    def ident(m):
        i = tid.get(m)
        if i is None:
            i = tid[m] = len(tuples)
            tuples.append(m)
        return i

    WC = np.zeros((nc, len(prob)))  # class masses as a matrix: WC @ v sums v per award class
    for ci, sl in enumerate(cls_sl):
        WC[ci, sl] = prob[sl]
    if "PEX" not in tab:
        with np.errstate(over="ignore"):  # exp(theta f E_g) per group, level, count, row, theta (inf: overflow)
            tab["PEX"] = [np.exp(np.minimum(MS[g][:, :, None] * E[None, None, :, g],
                                            MM[g][:, :, None] * EM[None, None, :, g])[..., None] * thetas_x)
                          for g in range(ng)]
            tab["PEXL"] = np.exp(LX[:, None] * thetas_x[None, :])  # exp(theta L) of the spread line win per row
    PEX, PEXL = tab["PEX"], tab["PEXL"]
    same = [g for g in range(ng) if np.array_equal(MS[g], MS[g][:1].repeat(nl, 0))
            and np.array_equal(MM[g], MM[g][:1].repeat(nl, 0))]  # groups whose pays the levels share
    varies = [g for g in range(ng) if g not in same]
    ex_buf, level_buf = np.empty((1, 16) + PEXL.shape), np.empty((1, 16) + PEXL.shape)  # (prepare's MGF products)

    def grow(a, extra, fill=0):
        # (zeros: fresh pages, written only where used; no filled temporary copied in)
        out = (np.zeros if fill == 0 else functools.partial(np.full, fill_value=fill))(
            (len(a) + extra,) + a.shape[1:], dtype=a.dtype)
        out[:len(a)] = a
        return out

    def prepare(ids, mgf: bool = True):
        """Fill the per-id tables: ids after a draw, charge coefficient, and (``mgf``) the per-class MGF of the spin.

        ``ids``: distinct, increasing (a batch of :func:`sum_blocks`' ids, or a part of one)."""
        nonlocal GZ, S1, BUMP, done, slot, gz_done
        ids = np.asarray(ids, dtype=np.int64)
        for i in ids[~done[ids]]:
            m = tuples[int(i)]
            BUMP[i] = [ident(_bump(m, g, kcap[g])) for g in range(ng)]
            S1[i] = sum(mu_grp[g] * SPL[g][:, m[g]] for g in range(ng)) + mu_line
            if len(tuples) > len(done):
                extra = 2 * len(tuples) - len(done)
                GZ, S1, BUMP, done, gz_done = (grow(t, extra) for t in (GZ, S1, BUMP, done, gz_done))
                slot = grow(slot, extra, -1)
                tab.update(GZ=GZ, S1=S1, BUMP=BUMP, done=done, gz_done=gz_done, slot=slot)
        done[ids] = True
        if not mgf:
            return
        ids = ids[~gz_done[ids]]
        for j in range(0, len(ids), 16):
            part = ids[j:j + 16]
            F = np.array([tuples[int(i)] for i in part])  # counts per group
            x = pay(F)  # rows x ids x levels
            # exp(theta x) is a product over the groups: first the groups the levels share (1 x ids x
            # rows x thetas), then the others (levels x ids x rows x thetas), each factor in place
            # (the products of ``ex = ex * PEX[g][0 or :, F[:, g]]``, group by group)
            nid = len(part)
            GZ[part, :, :, 0] = WC.sum(axis=1)[None, None, :]
            # sums over the rows as matrix products (BLAS): x is rows x ids x levels, ex (levels or 1)
            # x ids x rows x thetas, broadcast over the levels
            GZ[part, :, :, 1] = (WC @ x.reshape(len(WC[0]), -1)).reshape(nc, nid, nl).transpose(1, 2, 0)
            if same or varies:
                ex = ex_buf[:, :nid]  # (1 x ids x rows x thetas, reused)
                ex[...] = PEXL
                for g in same:
                    multiply_gathered(ex, PEX[g], F[:, g], True)
                if not varies:
                    GZ[part, :, :, 2:] = np.matmul(WC, ex).transpose(1, 0, 2, 3)
                # then level by level (the shared product times the level's factors, group by group):
                # numpy's matmul is one BLAS product per (level, id), the same whether the levels are
                # stacked or not, and one level's products stay in cache
                ev = level_buf[:, :nid]
                for b in range(nl) if varies else ():
                    for gi, g in enumerate(varies):
                        multiply_gathered(ev if gi else ex, PEX[g][b:b + 1], F[:, g], True, out=ev)
                    GZ[part, b, :, 2:] = np.matmul(WC, ev)[0]
            else:  # (one factor: every id's the same)
                GZ[part, :, :, 2:] = np.matmul(WC, PEXL[None, None]).transpose(1, 0, 2, 3)
        gz_done[ids] = True

    def prepare_grid(ids):
        """Give each id a grid slot with its spin laws per level and award class (spread on the grid)."""
        nonlocal HL, BP, BM, XM, X1, HB, nslots
        new = ids[slot[ids] < 0]
        if len(new) == 0:
            return
        if nslots + len(new) > len(BP):
            extra = max(nslots, len(new))
            HL, BP, BM, XM, X1, HB = (grow(t, extra) for t in (HL, BP, BM, XM, X1, HB))
            tab.update(HL=HL, BP=BP, BM=BM, XM=XM, X1=X1, HB=HB)
        first = nslots
        for j in range(0, len(new), 32):
            part = new[j:j + 32]
            ks = np.arange(first + j, first + j + len(part))
            x = pay(np.array([tuples[int(i)] for i in part]))  # rows x ids x levels
            k = np.floor(x / u).astype(np.int64)
            f = x / u - k  # x = (k + f) u: mass 1 - f at k, f at k + 1 (a mean-preserving spread)
            small = k + 1 < N
            lo_w = np.where(small, prob[:, None, None] * (1 - f), 0.0)
            hi_w = np.where(small, prob[:, None, None] * f, 0.0)
            kk = np.where(small, k, 0)
            big_w = np.where(small, 0.0, prob[:, None, None])
            nb = len(part) * nl  # one law per (id, level): flat index (id * nl + level) * N + cell
            col = np.arange(nb).reshape(len(part), nl) * N
            for ci, sl in enumerate(cls_sl):
                h = (np.bincount((col + kk[sl]).ravel(), weights=lo_w[sl].ravel(), minlength=nb * N)
                     + np.bincount((col + np.minimum(kk[sl] + 1, N - 1)).ravel(),
                                   weights=hi_w[sl].ravel(), minlength=nb * N))
                HL[ks, :, ci] = h.reshape(len(part), nl, N)
                nz = h.reshape(len(part), nl, N) != 0.0
                HB[ks, :, ci] = np.where(nz.any(axis=-1), N - np.argmax(nz[..., ::-1], axis=-1), 0)
                BP[ks, :, ci] = big_w[sl].sum(axis=0)
                BM[ks, :, ci] = (big_w[sl] * x[sl]).sum(axis=0)
                XM[ks, :, ci] = HL[ks, :, ci].sum(axis=-1)
                X1[ks, :, ci] = (prob[sl, None, None] * x[sl]).sum(axis=0)
        # the ids get their slots once their laws are all in place
        slot[new] = np.arange(first, first + len(new))
        nslots += len(new)
        tab["nslots"] = nslots

    def charge(ids, w, n):
        """Per level: sum_r w_r * (upper bound of the true remaining expansion win) after the spin."""
        if n <= 0 or not np.any(w > 0):
            return np.zeros(nl)
        spins = n / (1 - abar)
        later = (alpha * n * n + beta * n) / (1 - abar)
        return np.sum(w * (S1[ids] * spins + s2[None, :] * later), axis=0) * (1 + 1e-9)

    # the blocks' weighted rows and reach masses summed per target id (sum_blocks: (ids, rows, reach));
    # the reach (the float probability of reaching the state, the same computation whatever levels
    # share the run) decides grid or MGF mode, so the decisions do not depend on how the levels
    # were cut into runs
    gather = sum_blocks

    law = np.zeros((nl, N))
    tot = np.zeros((nl, 4))  # per level: over mass (upper), over first moment, excess-mass bound, charges
    mgf_T = np.zeros((1, nl, K + 2))  # finished MGF-mode paths per award count: mass, E[X], E[exp(theta X)]
    depth = 0
    pr_mass = np.zeros(nl)
    states = 0
    mgf_states = 0
    grid = np.arange(2 * N - 1, dtype=np.float64) * u
    ez = np.exp(np.outer(grid[:N], thetas_x))  # exp(theta k u) on the grid
    # A state's row, per level: masses of the accumulated (spread) win at 0..N-1 (upper bounds); column N
    # the mass beyond the grid and N+1 its first moment (there (x - c)+ is linear, so mass and mean say
    # all); column N+2 an upper bound of how much the row's mass exceeds the truth (convolution
    # rounding raised), which turns the overflow mass into a lower bound too.  Transitions are stored as
    # blocks (target ids, rows, weight) per spin count and summed per target when it is processed.
    # A state below eps goes on in MGF mode: its row is (mass, E[X], E[exp(theta X)]) (upper bounds
    # of the grouped win: exp is convex and increasing), every spin multiplies by the spin's
    # (mass, first moment, MGF) per award class; below eps_mgf it is charged its mean.
    W = N + 3

    def route(uid, new, reach, a, n, same, later, finish, bumps):
        """Send rows after a spin of award ``a``: finished, same level (no draw), or a draw into each group
        (``bumps[g]``: the ids after a draw into group ``g``, ``BUMP[uid, g]``)."""
        n2 = n - 1 + a
        if a == 0:
            if n2 == 0:
                finish(new)
            else:
                same.setdefault(n2, []).append((uid, new, 1.0, reach))
            return
        for g in range(ng):
            later.setdefault(n2, []).append((bumps[g], new, wg[g], reach))

    def finish_grid(new):
        law[:] += new[:, :, :N].sum(axis=0)
        tot[:, :3] += new[:, :, N:].sum(axis=0)

    def finish_mgf(new):
        with np.errstate(over="ignore", invalid="ignore"):
            mgf_T[depth] += new.sum(axis=0)

    pending: dict = {}
    mpending: dict = {}
    for g in range(ng):
        row = np.zeros((1, nl, W))
        row[0, :, 0] = 1.0
        pending.setdefault(n0, []).append((np.array([ident(tuple(int(i == g) for i in range(ng)))]),
                                           row, wg[g], np.ones(1)))
    cmass = WC.sum(axis=1)  # class probabilities (floats), for the reach masses
    while pending or mpending:
        if depth == len(mgf_T):
            mgf_T = np.concatenate([mgf_T, np.zeros((1, nl, K + 2))])
        nxt: dict = {}
        mnxt: dict = {}
        top = max(list(pending) + list(mpending))
        for n in range(top, 0, -1):
            blocks = pending.pop(n, None)
            if blocks:
                uid, H, P = gather(blocks)  # ids x levels x W, reach per id
                gmass = H[:, :, :N].sum(axis=2)
                mass = gmass + H[:, :, N]
                keep = P >= eps
                drop = ~keep & (P > 0)
                if drop.any():
                    prepare(uid[drop], mgf=False)
                    pr_mass += mass[drop].sum(axis=0)
                    # beyond the grid (x - c)+ is linear: mass, moment, plus the mean remaining win
                    Hd = H[drop]
                    tot[:, 0] += Hd[:, :, N].sum(axis=0)
                    tot[:, 1] += Hd[:, :, N + 1].sum(axis=0)
                    tot[:, 2] += Hd[:, :, N + 2].sum(axis=0)
                    tot[:, 3] += charge(uid[drop], Hd[:, :, N], n)
                    Z = np.empty(Hd.shape[:2] + (K + 2,))
                    Z[:, :, 0] = gmass[drop]
                    Z[:, :, 1] = Hd[:, :, :N] @ grid[:N]
                    Z[:, :, 2:] = Hd[:, :, :N] @ ez
                    mpending.setdefault(n, []).append((uid[drop], Z, 1.0, P[drop]))
                if keep.any():
                    if not keep.all():  # (all kept: the arrays as they are, no copy)
                        uid, H, gmass, P = uid[keep], H[keep], gmass[keep], P[keep]
                    prepare(uid, mgf=False)
                    prepare_grid(uid)
                    sl_ = slot[uid]
                    mean = H[:, :, :N] @ grid[:N]
                    states += len(uid)
                    if states > max_states:
                        raise TooManyStates(f"regular_cap_bound: more than {max_states} states at eps = {eps:g}; "
                                            "raise eps or coarsen the groups")
                    # the convolution raised by gamma_{N+1} (its error, per row: err = gam * total + under,
                    # the raise allowance grows by 2 err); what underflow may have lost (at most tiny per
                    # entry) is put beyond the grid, at the largest value of the full convolution (a
                    # stochastically larger law; spread on the grid it would leave a subnormal number in
                    # every cell, which slows every later product a hundredfold); beyond the grid: the
                    # row's and the spin's overflow mass and moment (class mass cm = XM + BP)
                    news = grid_spin(H, HL, HB, sl_, range(nc), 1 + gam, grid[N:], (BP, BM, XM, X1), gmass, mean, gam,
                                     under, under * grid[-1], 1 + 1e-12)
                    bumps = np.ascontiguousarray(BUMP[uid].T)  # (each group's row contiguous)
                    for ci, a in enumerate(classes):
                        new = news[ci]
                        route(uid, new, P * cmass[ci], a, n, pending, nxt, finish_grid, bumps)
            mblocks = mpending.pop(n, None)
            if mblocks:
                uid, Z, P = gather(mblocks)  # ids x levels x (K + 2), reach per id
                prepare(uid)
                low = P < eps_mgf
                if low.any():  # (A + R - c)+ <= (A - c)+ + R: A joins the finished paths, R its mean
                    with np.errstate(over="ignore", invalid="ignore"):
                        mgf_T[depth] += Z[low].sum(axis=0)
                    tot[:, 3] += charge(uid[low], Z[low][:, :, 0], n)
                    uid, Z, P = uid[~low], Z[~low], P[~low]
                mgf_states += len(uid)
                if mgf_states > MGF_STATE_FACTOR * max_states:
                    raise TooManyStates(f"regular_cap_bound: more than {MGF_STATE_FACTOR * max_states} MGF-mode "
                                        f"states at eps_mgf = {eps_mgf:g}; raise eps_mgf")
                if len(uid) == 0:
                    continue
                bumps = np.ascontiguousarray(BUMP[uid].T)
                for ci, a in enumerate(classes):  # (mass, first moment, MGF) times the spin's, per class
                    route(uid, mgf_spin(Z, GZ, uid, ci), P * cmass[ci], a, n, mpending, mnxt, finish_mgf, bumps)
        pending, mpending = nxt, mnxt
        depth += 1
    mgf_T = np.where(np.isfinite(mgf_T), mgf_T, np.inf)
    # line wins: verified Chernoff points
    ll = st.line_law
    la = np.array([a for a, _ in ll], dtype=np.float64)
    lL = np.array([L for _, L in ll], dtype=np.float64)
    lp = np.array(list(ll.values()), dtype=np.float64) / cyc
    line_mean = float(np.sum(lp * lL)) / (1 - abar) * n0 * (1 + 1e-12)
    thetas, logy = [], []
    for t in (np.geomspace(1e-2, 2e2, 80) / Cl if not lines else ()):
        y = 1.0
        ok = False
        for _ in range(10000):
            y2 = float(np.sum(lp * np.exp(t * lL) * y ** la))
            if not math.isfinite(y2) or y2 > 1e12:
                break
            if abs(y2 - y) <= 1e-15 * y:
                ok = True
                break
            y = y2
        if not ok:
            continue
        yv = y * (1 + 1e-9)
        if float(np.sum(lp * np.exp(t * lL) * yv ** la)) * (1 + 1e-10) <= yv:
            thetas.append(t)
            logy.append(math.log(yv) * (1 + 1e-12))
    out = []
    for b in range(nl):
        over_p_hi, over_mom, excess_mass, pr_rbar = (float(v) for v in tot[b])
        over_p_lo = max(over_p_hi - excess_mass, 0.0) * (1 - 1e-12)
        out.append(RegularCapBound(n0=n0, u=u, N=N, tb=tb, law=law[b].copy(), over_mom=over_mom,
                                   over_p_lo=over_p_lo, over_p_hi=over_p_hi, pr_mass=float(pr_mass[b]),
                                   pr_rbar=pr_rbar, mgf_thetas=thetas_x, mgf_T=mgf_T[:, b].copy(),
                                   mgf_states=mgf_states, states=states, thetas=np.array(thetas),
                                   logy=np.array(logy), line_mean=0.0 if lines else line_mean,
                                   groups=groups, lines_in=lines))
    return out
