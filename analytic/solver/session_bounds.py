"""Certified sessions of a round without a law, from bounds of its exceedance probabilities.

Where the round has no law but certified bounds ``L(x) <= P(W >= x) <= U(x)``
at any threshold ``x`` (``RoundResult.extra["round_tail"]``, e.g. engine
``drawn_expanding``'s
:class:`~analytic.features.engines.drawn_expanding.round_tail.RoundTail`;
the win capped, ``W <= cap``), the session (:mod:`analytic.solver.session`)
is bracketed by two round laws and the monotone coupling
(docs/sessions.md, "Rounds without a law").

Two laws on a grid
------------------
The rounds without a feature have an exact law (the base spin's outcomes);
only a feature round's win ``W`` is bounded.  On grid points ``0 = g_0 <
g_1 < ... < g_m = cap`` (multiples of the exact part's lattice, so the
balance grid does not get finer):

(The grid: :data:`GRID_POINTS` points about geometric from the lattice of
the exact part's wins and the price -- at most one total bet -- to the cap.)

* ``W_lo``: ``P(W_lo >= g_i) = L(g_i)`` (``i >= 1``), the rest at 0: below
  ``W`` rounded down to the grid, so ``W_lo <= W`` in the usual stochastic
  order;
* ``W_hi``: ``P(W_hi >= g_i) = U(g_{i-1} + u)`` (``g_0 = 0``; ``u``: the
  lattice of the wins, one line bet when every pay is a whole number of line
  bets, so ``P(W > g) = P(W >= g + u)``; without it ``U(g_{i-1})``, and
  ``P(feature)`` for ``i = 1``): the mass of ``(g_{i-1}, g_i]`` moved up to
  ``g_i``, so ``W_hi >= W``; nothing above the cap.

Coupled by the quantile transform, ``W_lo <= W <= W_hi`` round by round,
with the same feature indicator (the base spin is shared).  The session
chain is run on both laws (each certified within its own total variation
``E``).  A figure that is a monotone function of the round wins lies between
the two chains' values (widened by their ``E``); which are monotone depends
on the stop rules:

* **stop on a feature** in force: a feature round ends the session, so the
  feature's win only enters the last round: the rounds played, every end
  reason but the split "any win" / "feature" (monotone), and the path
  before the last round do not depend on it; the final balance and the
  return experienced grow with it.  Every figure is bracketed.
* **stop on any win** (no feature stop): the session goes on only through
  rounds that win nothing, at a balance known in advance; every end reason
  and the rounds played are monotone (the first winning round comes no
  later with larger wins), the final balance is not (a later, larger win
  can end higher): its quantiles and ``P(above the start)`` get the trivial
  bracket, said so in the notes.
* otherwise the *up* exits (single win, cash up) and the *down* exits
  (cash down, ruin) are monotone as groups; a rule alone in its group is
  bracketed, two in one group each get ``[0, group's upper end]`` (their
  split depends on where a path lands); ``rounds`` is ``1 - up - down``.
  The final balance is monotone below the cash-up level and above the
  lower barriers' region (a path's overshoot beyond a barrier is not): a
  quantile interval end that falls in such a region is widened to the
  region's far end.  A single-win stop makes the balance non-monotone
  (trivial bracket).
* the law of the rounds played: ``P(T <= k)`` is the sum of the groups'
  monotone ``P(exit by k)``; its mean and quantiles follow.
* the mean final balance: Wald's identity ``B0 + s (mu - c) E[T]`` with the
  certified mean win ``mu`` and ``E[T]``'s bracket; as the balance never
  falls below 0, ``E[T] <= B0 / (s (c - mu))`` when ``mu < c`` (and the
  mean is at least 0).
* the mean rounds until ruin: ``E[T 1{ruin}] = N R_N - sum_{t < N} R_t``
  (``R_t``: ruin within ``t``, monotone), divided by ``R_N``'s bracket.
* the return experienced: only when the rounds played do not depend on the
  feature's win (stop on a feature); otherwise not given (None).

A bet ladder is refused: a larger balance plays a larger bet and can lose
more, so no figure is monotone in the round wins.

Long sessions on a coarse grid
------------------------------
:func:`coarse_session` brackets a session with no stop but ruin on a coarse
balance grid ``h`` (a feature buy's 10,000 rounds, docs/sessions.md): the
win rounded to ``h`` at random with its mean kept (:func:`rounded_law`), the
rounded walk within ``x`` of the true one at every round except with
probability ``fail`` (Hoeffding's maximal inequality, :func:`coupling_shift`),
two chains started at ``B0 - x`` and ``B0 + x`` bracketing it as the two laws
above do.

Units: wins in total-bet multiples, balance and amounts in the unit of the bet.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from analytic.figures import Figure

__all__ = ["IntervalLaws", "GRID_POINTS", "grid_points", "interval_laws", "interval_laws_from_bounds",
           "bounded_session", "bounded_summary", "COARSE_ROUNDS", "COARSE_STEPS", "COUPLING_FAIL", "COARSE_TRIM",
           "rounded_law", "coupling_shift", "needs_coarse", "coarse_session", "joined_laws", "check_coarse",
           "coarse_from_law"]

#: Grid points of the feature win by default (geometric from the exact part's lattice to the cap).
GRID_POINTS = 24
#: A probability whose bracket is wider than this (half-width) is named in the result's notes ("wide").
WIDE = 0.01
#: Relative step of the thresholds of the engine's mixture tails
#: (:attr:`~analytic.features.engines.drawn_expanding.round_tail.RoundTail.snap`): each moved to the
#: safe side on a geometric grid, so the bounds stay certified, slightly wider, at a fraction of the cost.
SNAP = 1 / 64


@dataclass(frozen=True)
class IntervalLaws:
    """The two round laws bracketing a round without a law.

    Attributes
    ----------
    nof : dict
        Exact sub-law of the rounds without a feature (win -> probability, total bets).
    lo, hi : dict
        Sub-laws of the feature rounds' win, ``W_lo`` and ``W_hi`` (Fractions).
    points : tuple of Fraction
        The grid ``g_1 .. g_m`` (total bets).
    gap : Fraction
        Largest ``U - L`` of the thresholds used.
    unit : Fraction or None
        The smallest positive win used for ``P(W_hi > 0)`` (None: not known).
    """

    nof: dict
    lo: dict
    hi: dict
    points: tuple
    gap: Fraction
    unit: Fraction | None


def grid_points(lattice: Fraction, cap: Fraction, n: int = GRID_POINTS) -> tuple:
    """``n`` grid points about geometric from ``lattice`` to ``cap``, each a multiple of ``lattice``
    (the cap itself last, whatever it is)."""
    lattice, cap = Fraction(lattice), Fraction(cap)
    if cap <= lattice:
        return (cap,)
    out = set()
    for v in np.geomspace(float(lattice), float(cap), n):
        k = max(1, math.floor(Fraction(float(v)) / lattice))
        out.add(k * lattice)
    out = {x for x in out if x < cap}
    out.add(cap)
    return tuple(sorted(out))


def _fgcd(values) -> Fraction:
    from analytic.solver.session import _fgcd as g

    return g(values)


def interval_laws_from_bounds(nof: dict, p_feature: Fraction, bounds, points, unit=None) -> IntervalLaws:
    """The two laws from a bound function (see the module docstring).

    Parameters
    ----------
    nof : dict
        Exact sub-law of the rounds without a feature.
    p_feature : Fraction
        Probability of a feature round (exact).
    bounds : callable
        ``bounds(xs) -> [(L, U)]``: certified bounds of ``P(W >= x, feature)``.
    points : sequence of Fraction
        Grid ``g_1 < ... < g_m`` (``g_m`` the cap: nothing pays above it).
    unit : Fraction, optional
        Every feature-round win is a multiple of this (then ``P(W > g) = P(W >= g + unit)``: the
        upper law uses ``U(g + unit)``, one more threshold per grid point; None: ``U(g)``).
    """
    pts = sorted(Fraction(x) for x in points)
    u = Fraction(unit) if unit is not None and unit > 0 else None
    # P(W > g) <= U(g + u) when every positive win is a multiple of u... at least u apart: thresholds g + u
    up_at = [u if u is not None and u <= pts[0] else None]
    up_at += [(g + u if u is not None and g + u <= pts[i + 1] else g) for i, g in enumerate(pts[:-1])]
    ths = sorted(set(pts) | {x for x in up_at if x is not None})
    got = dict(zip(ths, bounds(ths)))
    pf = Fraction(p_feature)
    L = [min(Fraction(got[x][0]), pf) for x in pts]
    for i in range(len(L) - 2, -1, -1):  # non-increasing (lower ends raised)
        L[i] = max(L[i], L[i + 1])
    lo: dict = {}
    for i, x in enumerate(pts):  # P(W_lo >= g_i) = L_i
        nxt = L[i + 1] if i + 1 < len(pts) else Fraction(0)
        if L[i] - nxt:
            lo[x] = L[i] - nxt
    if pf - L[0]:
        lo[Fraction(0)] = pf - L[0]
    S = [min(Fraction(got[x][1]), pf) if x is not None else pf for x in up_at]  # P(W_hi >= g_i)
    for i in range(1, len(S)):  # non-increasing (upper ends lowered)
        S[i] = min(S[i], S[i - 1])
    hi: dict = {}
    for i, x in enumerate(pts):
        nxt = S[i + 1] if i + 1 < len(pts) else Fraction(0)
        if S[i] - nxt:
            hi[x] = S[i] - nxt
    if pf - S[0]:
        hi[Fraction(0)] = pf - S[0]
    gap = max((Fraction(got[x][1]) - Fraction(got[x][0]) for x in ths), default=Fraction(0))
    return IntervalLaws(dict(nof), lo, hi, tuple(pts), gap, u)


def _unit(game) -> Fraction | None:
    """The smallest positive round win (total bets) when every pay is a whole number of line bets:
    one line bet; else None."""
    try:
        tb = Fraction(game.total_bet)
        pays = [Fraction(v) for row in game.paytable.values() for v in dict(row).values()]
    except (AttributeError, TypeError, ValueError):
        return None
    if tb <= 0 or any(v.denominator != 1 or v < 0 for v in pays):
        return None
    return 1 / tb


def interval_laws(r, n: int = GRID_POINTS) -> IntervalLaws:
    """The two laws of a solved round with ``extra["round_tail"]`` (module docstring).

    Parameters
    ----------
    r : RoundResult
    n : int
        Grid points (cost: one evaluation of the tail bounds per point, see docs/sessions.md).

    Raises
    ------
    ValueError
        The round has no tail bounds or no win cap.
    """
    from analytic.solver.cap import applied_cap

    tail = r.extra.get("round_tail") if r.extra else None
    cap = applied_cap(r)
    if tail is None or cap is None:
        raise ValueError("no bounds of P(W >= x) (round_tail) or no win cap")
    cap = Fraction(cap)
    nof: dict = {}
    feat = {}
    for key, p in tail.outcomes.items():
        if key[0] is None:
            w = min(Fraction(key[2]), cap)
            nof[w] = nof.get(w, Fraction(0)) + p
        else:
            feat[key] = p
    pf = sum(feat.values(), Fraction(0))
    ft = copy.copy(tail)
    ft.outcomes = feat
    if hasattr(ft, "snap"):  # the mixture tails at a geometric grid of relative step SNAP (still certified)
        ft.snap = SNAP
    # the exact part's lattice (and the price), at most one total bet (a buy's price alone would round
    # every feature win to a multiple of it)
    lattice = _fgcd(list(nof) + [Fraction(r.cost), Fraction(1)])
    return interval_laws_from_bounds(nof, pf, ft.bounds, grid_points(lattice, cap, n), _unit(r.game))


# ----------------------------------------------------------------------------
# the session between the two chains


def _between(a: float, ea: float, b: float, eb: float) -> tuple[float, float]:
    return max(0.0, min(a - ea, b - eb)), min(1.0, max(a + ea, b + eb))


def _ends(v) -> tuple:
    return v if isinstance(v, tuple) else (v, v)


def _ifig(lo: float, hi: float) -> Figure:
    lo, hi = Fraction(lo), Fraction(hi)
    return Figure((lo + hi) / 2, "bounded", (hi - lo) / 2)


def _classify(R, price: Fraction):
    """``(groups, individual, balance_mode, t_groups)``: which reasons are monotone (module docstring)."""
    from analytic.solver.session import _in_force

    fs, aw = R.stop_on_feature, R.stop_on_any_win
    sw = R.stop_single_win_above is not None
    ruin_possible = not (R.stop_cash_down is not None and price <= R.balance - R.stop_cash_down)
    inforce = [w for w in ("any win", "feature", "single win", "cash up", "cash down", "ruin", "rounds")
               if _in_force(R, w)]
    if fs or aw:
        groups = {w: (w,) for w in inforce if w != "rounds"}
        tg = [tuple(w for w in inforce if w != "rounds")]
        individual = set(inforce)
        bal = "monotone" if fs else "none"
        return groups, individual, bal, tg, ruin_possible
    up = tuple(w for w in ("single win", "cash up") if w in inforce)
    down = tuple(w for w in ("cash down", "ruin") if w in inforce and (w != "ruin" or ruin_possible))
    groups = {}
    individual = {"ruin"} if not ruin_possible else set()
    for g in (up, down):
        for w in g:
            groups[w] = g
            if len(g) == 1:
                individual.add(w)
    if not up:
        individual.add("rounds")
    tg = [g for g in (up, down) if g]
    bal = "none" if sw else "regions"
    return groups, individual, bal, tg, ruin_possible


def bounded_session(rules, laws: IntervalLaws, cost: Fraction, mean_win: Figure, *, cap=None,
                    method: str = "auto", snapshots=(), lump_high: bool = False, progress=None):
    """Certified session figures of a round without a law (module docstring).

    Parameters
    ----------
    rules : SessionRules
    laws : IntervalLaws
    cost : Fraction
        Price of a round (total bets).
    mean_win : Figure
        The round's certified mean win (total bets; Wald's identity).
    cap : Fraction, optional
        The win cap (total bets; the largest final balance past a cash-up level).
    method, snapshots, lump_high, progress
        As :func:`analytic.solver.session.session_law` (both chains).

    Returns
    -------
    SessionResult
        ``method`` ``"bounded"``; every probability an interval (``Figure``
        centre and half-width), quantiles intervals; ``notes`` says which
        figures are only trivially bracketed and why.  With ``snapshots``,
        ``snapshots`` maps each round count to its own SessionResult.

    Raises
    ------
    SessionRefused
        A bet ladder below the bet (or, a defect, a certified mean win outside the laws' means); two
        chains whose estimated work exceeds :data:`~analytic.solver.session.CERTIFIED_LIMIT` (``option``
        ``rounds``, before either runs).
    """
    from analytic.solver.session import SessionRefused, session_law

    if len(rules.levels) > 1:
        raise SessionRefused("a bet ladder with a round bounded only by its exceedance probabilities: a larger "
                             "balance plays a larger bet and can lose more, so no session figure is monotone in the "
                             "round wins and the two bracketing laws do not bracket it", option="bet_ladder")
    kw = dict(method=method, snapshots=snapshots, lump_high=lump_high, progress=progress, chains=2)
    a = session_law(rules, laws.nof, laws.lo, cost, **kw)
    b = session_law(rules, laws.nof, laws.hi, cost, **kw)
    trio = (laws.nof, laws.lo, laws.hi)
    res = _combine(rules, a, b, cost, mean_win, cap, trio)
    if snapshots:
        snaps = {t: _combine(a.snapshots[t].rules, a.snapshots[t], b.snapshots[t], cost, mean_win, cap, trio)
                 for t in a.snapshots}
        res.bracket["snapshots"] = snaps
    return res


def _combine(R, a, b, cost, mean_win: Figure, cap, a_laws, shift=0):
    """The bracketed figures of the true session (rules ``R``) from the chains ``a`` (smaller) and ``b``
    (larger); ``shift``: grid points by which ``a`` starts below and ``b`` above ``R.balance``
    (:func:`coarse_session`; 0 in :func:`bounded_session`), or a pair of them ``(da, db)`` (Fractions, not
    whole when the true start is off the chains' grid)."""
    from analytic.solver.session import QUANTILES, SessionResult, figures

    fa, fb = figures(a), figures(b)
    Ea, Eb = float(a.error), float(b.error)
    N = R.rounds
    s = R.bet
    price = cost * s
    groups, individual, bal, tgroups, ruin_possible = _classify(R, price)
    notes: dict = {}

    def cum(law, ws):
        v = sum((np.asarray(law.reason_time[w], dtype=float) for w in ws), np.zeros(N + 1))
        return np.cumsum(v)

    reasons = {}
    for w in fa.reasons:
        if w in individual:
            va, vb = float(sum(a.reason_time[w])), float(sum(b.reason_time[w]))
            reasons[w] = _ifig(*_between(va, Ea, vb, Eb))
        elif w == "rounds":
            # 1 - up - down, each group monotone
            lo_s, hi_s = 0.0, 0.0
            for g in tgroups:
                lo_g, hi_g = _between(cum(a, g)[-1], Ea, cum(b, g)[-1], Eb)
                lo_s, hi_s = lo_s + lo_g, hi_s + hi_g
            reasons[w] = _ifig(max(0.0, 1 - hi_s), min(1.0, 1 - lo_s))
            notes["rounds"] = "bracketed as 1 - P(up exits) - P(down exits): neither group alone decides it"
        else:
            g = groups[w]
            _, hi_g = _between(cum(a, g)[-1], Ea, cum(b, g)[-1], Eb)
            reasons[w] = _ifig(0.0, hi_g)
            notes[w] = (f"not monotone in the round wins alone (its split with {', '.join(x for x in g if x != w)} "
                        f"depends on where a path lands): bracketed by [0, P({' or '.join(g)})]")
    # the law of the rounds played: P(T <= k) = sum of the groups' P(exit by k)
    lo_c = np.zeros(N + 1)
    hi_c = np.zeros(N + 1)
    for g in tgroups:
        ca, cb = cum(a, g), cum(b, g)
        lo_c += np.maximum(np.minimum(ca - Ea, cb - Eb), 0.0)
        hi_c += np.minimum(np.maximum(ca + Ea, cb + Eb), 1.0)
    lo_c = np.minimum(lo_c, 1.0)
    hi_c = np.minimum(hi_c, 1.0)
    lo_c[N] = hi_c[N] = 1.0
    t_lo = float(np.sum(1 - hi_c[:N]))
    t_hi = float(np.sum(1 - lo_c[:N]))
    # the mean win: within the certified mean and within the two laws' means (E[W_lo] <= E[W] <= E[W_hi])
    if a_laws is None:  # one law (coarse_session of a round with a law): the certified mean alone
        m_lo, m_hi = mean_win.value - mean_win.error, mean_win.value + mean_win.error
    else:
        m_lo = sum((w * p for d in (a_laws[0], a_laws[1]) for w, p in d.items()), Fraction(0))
        m_hi = sum((w * p for d in (a_laws[0], a_laws[2]) for w, p in d.items()), Fraction(0))
    mu_lo = max(mean_win.value - mean_win.error, m_lo)
    mu_hi = min(mean_win.value + mean_win.error, m_hi)
    if mu_lo > mu_hi:  # (cannot happen when both are certified: a defect, said so rather than a figure)
        from analytic.solver.session import SessionRefused

        raise SessionRefused(f"the certified mean win [{float(mean_win.value - mean_win.error)}, "
                             f"{float(mean_win.value + mean_win.error)}] and the bracketing laws' means "
                             f"[{float(m_lo)}, {float(m_hi)}] are disjoint (a defect: please report it)")
    if mu_hi < cost:  # Wald and B_T >= 0: E[T] <= B0 / (s (c - mu))
        t_hi = min(t_hi, float(R.balance / (s * (cost - mu_hi))) * (1 + 1e-12))
        t_lo = min(t_lo, t_hi)
    rounds_mean = _ifig(t_lo, t_hi)
    rq = {}
    for q in QUANTILES:
        rq[q] = (int(np.searchsorted(hi_c, float(q))), int(np.searchsorted(lo_c, float(q))))
        rq[q] = (min(rq[q][0], N), min(rq[q][1], N))
    # mean final balance: Wald, B0 + s (mu - c) E[T]
    tl, th = Fraction(t_lo), Fraction(t_hi)
    corners = [max(R.balance + s * (m - cost) * t, Fraction(0)) for m in (mu_lo, mu_hi) for t in (tl, th)]
    balance_mean = Figure((min(corners) + max(corners)) / 2, "bounded", (max(corners) - min(corners)) / 2)
    # ruin
    if "ruin" in individual:
        ruin = reasons["ruin"]
        Ra, Rb = cum(a, ("ruin",)), cum(b, ("ruin",))
        Rl = np.maximum(np.minimum(Ra - Ea, Rb - Eb), 0.0)
        Rh = np.minimum(np.maximum(Ra + Ea, Rb + Eb), 1.0)
        ttr = None
        if Rh[N] > 0:
            e1_lo = max(0.0, N * Rl[N] - float(np.sum(Rh[:N])))
            e1_hi = N * Rh[N] - float(np.sum(Rl[:N]))
            lo_t = max(1.0, e1_lo / Rh[N])
            hi_t = min(float(N), e1_hi / Rl[N]) if Rl[N] > 0 else float(N)
            ttr = _ifig(min(lo_t, hi_t), max(lo_t, hi_t)) if Rl[N] > 0 else None
    else:
        ruin = reasons.get("ruin", _ifig(0.0, 0.0))
        ttr = None
        notes["rounds to ruin"] = "not given: ruin is not monotone in the round wins under these stop rules"
    ruin_by_round = np.minimum(np.maximum(cum(a, ("ruin",)) + Ea, cum(b, ("ruin",)) + Eb), 1.0)
    # final balance
    top = None
    if R.stop_cash_up is not None and cap is not None:
        top = R.balance + R.stop_cash_up + s * (Fraction(cap) - cost)
    if bal == "none":
        why = ("stop on any win" if R.stop_on_any_win else "stop on a single win")
        notes["final balance"] = (f"not monotone in the round wins under '{why}' (a later, larger win can end "
                                  f"higher): quantiles and P(above the start) only trivially bracketed")
        hi_b = top if top is not None else R.balance + N * s * (Fraction(cap) - cost) if cap is not None else None
        bq = {q: (Fraction(0), hi_b if hi_b is not None else Fraction(10**18)) for q in QUANTILES}
        above = _ifig(0.0, 1.0)
    else:
        bq = {}
        region_top = None
        if bal == "regions":
            # the lower barriers' region: below the price (ruin) or at most start - cash down
            region_top = max([price] + ([R.balance - R.stop_cash_down] if R.stop_cash_down is not None else []))
        for q in QUANTILES:
            lo_q = Fraction(_ends(fa.balance_quantiles[q])[0])
            hi_q = Fraction(_ends(fb.balance_quantiles[q])[1])
            if bal == "regions":
                in_low = lambda x: x < price or (R.stop_cash_down is not None and x <= R.balance - R.stop_cash_down)
                if in_low(lo_q):
                    lo_q = Fraction(0)
                if in_low(hi_q):
                    hi_q = max(hi_q, region_top)
                if R.stop_cash_up is not None:  # beyond the cash-up level the overshoot is not monotone
                    up = R.balance + R.stop_cash_up
                    lo_q = min(lo_q, up)
                    if hi_q >= up:
                        hi_q = max(hi_q, top if top is not None else Fraction(10**18))
            bq[q] = (lo_q, max(lo_q, hi_q))
        # P(final balance > R.balance): the first grid index above the true start, floor(da) + 1 in chain a
        # (started da grid points below it), floor(-db) + 1 in chain b (db above); shift + 1 and 1 - shift
        # when both are the whole number shift
        da, db = shift if isinstance(shift, tuple) else (shift, shift)

        def first(law, k):
            return float(law.final[max(k - law.offset, 0):].sum()) if len(law.final) else 0.0

        # chain a's mass taken out by lump_high ends above a's own start, not surely above R.balance
        fa_above = first(a, math.floor(da) + 1) - (a.lumped if da else 0.0)
        above = _ifig(*_between(max(fa_above, 0.0), Ea, first(b, math.floor(-db) + 1), Eb))
    # the return experienced: same rounds played in both chains only with the feature stop
    retq = None
    if R.stop_on_feature and fa.return_quantiles is not None and fb.return_quantiles is not None:
        retq = {q: (_ends(fa.return_quantiles[q])[0], _ends(fb.return_quantiles[q])[1]) for q in QUANTILES}
    elif not R.stop_on_feature:
        notes["return experienced"] = ("not given: the rounds played depend on the feature's win, so total won / "
                                       "total staked is not monotone in the round wins")
    wide = [name for name, f in [("P(above the start)", above), ("risk of ruin", ruin)]
            + [(f"P(ends by {w})", f) for w, f in reasons.items()] if float(f.error) > WIDE
            and not (name == "P(above the start)" and "final balance" in notes)]
    if wide:
        notes["wide"] = (f"wide bracket (half-width above {WIDE:g}): {', '.join(wide)} -- the certified bounds of "
                         f"P(win >= x) of the feature rounds are far apart, not the grid")
    E = max(Ea, Eb)
    # rounds_law: the steps of the upper bound of P(T <= t) (the law of T itself is only bracketed:
    # bracket["rounds_cdf"])
    steps = np.diff(np.concatenate([[0.0], hi_c]))
    return SessionResult("bounded", E, balance_mean, bq, above, reasons, rounds_mean, rq, steps, ruin, ttr, retq,
                         None, a, notes=notes, bracket={"ruin_by_round": ruin_by_round, "rounds_cdf": (lo_c, hi_c),
                                                        "law_hi": b})


def bounded_summary(r, rules, autoplay_rules, snapshots, laws: IntervalLaws | None = None, mean_win=None):
    """``(the longest horizon's result, its snapshots in ``bracket["snapshots"]``; the autoplay
    result or why not; the laws)`` for the par sheet (:func:`analytic.solver.session.summary_results`)."""
    from analytic.solver.cap import applied_cap
    from analytic.solver.session import SessionRefused

    laws = laws or interval_laws(r)
    cap = applied_cap(r)
    mean_win = mean_win if mean_win is not None else r.mean_win
    main = bounded_session(rules, laws, r.cost, mean_win, cap=cap, snapshots=snapshots, lump_high=True,
                           method="certified")
    auto = None
    if autoplay_rules is not None:
        try:
            auto = bounded_session(autoplay_rules, laws, r.cost, mean_win, cap=cap, method="certified")
        except SessionRefused as exc:
            auto = str(exc)
    return main, auto, laws


# ----------------------------------------------------------------------------
# long sessions on a coarse grid: the round win rounded down or up at random, two shifted chains

#: Horizons above this many rounds of a feature-buy mode whose price spans more than :data:`COARSE_STEPS`
#: points of its balance grid are run on the coarse grid by the par sheet's
#: :func:`~analytic.solver.session.summary_results` (:func:`needs_coarse`); shorter ones, and every other
#: mode's, keep the fine chain.
COARSE_ROUNDS = 1000
#: Points of the coarse balance grid per round's price (the grid ``h = c / COARSE_STEPS``).
COARSE_STEPS = 20
#: Probability that the rounded walk strays further than the chains' start shift from the true one
#: (Hoeffding's maximal inequality, :func:`coupling_shift`); added to both chains' error.
COUPLING_FAIL = 1e-5
#: Upper-tail mass dropped per round (into the error) by the coarse chains: at most ``N`` times this
#: (1e-4 in 10,000 rounds), far below the bracket's width.
COARSE_TRIM = 1e-8
_U = 2.0 ** -53


def needs_coarse(rounds: int, cost, balance_grid, steps: int | None = None) -> bool:
    """Whether a session of ``rounds`` rounds is run on the coarse grid: more than :data:`COARSE_ROUNDS`
    rounds and a price ``cost`` spanning more than ``steps`` points of the fine ``balance_grid``
    (a feature buy: Book of Christmas Eve's 131 bets on half a bet, 262 points; a base mode's price
    spans 2 to 5 points and keeps the fine chain)."""
    steps = COARSE_STEPS if steps is None else steps
    return rounds > COARSE_ROUNDS and Fraction(cost) > steps * Fraction(balance_grid)


def rounded_law(law, h, exact: bool = True) -> dict:
    """The round win rounded to the grid ``h`` at random, its mean kept.

    ``W' = h floor(W / h)`` with probability ``1 - f`` and ``h ceil(W / h)`` with
    probability ``f``, ``f = W / h - floor(W / h)``: ``E[W' | W] = W`` and
    ``|W' - W| < h``.

    Parameters
    ----------
    law : mapping Fraction -> Fraction
        The round win's law (or sub-law), total bets.
    h : Fraction
        The grid (total bets).
    exact : bool
        Fractions (the total and the mean exactly the law's), or float64 probabilities (faster
        for a law of many points).

    Returns
    -------
    dict Fraction -> Fraction
        The law of ``W'`` (``exact``); else ``(law, error)``: float64 probabilities and the
        bound ``error`` of their total variation from the exact rounded law's: each part
        ``p (1 - f)`` or ``p f`` within ``4 u p`` of its exact value (``u = 2^-53``: the
        conversions, the difference, the product), a grid point's sum of ``m`` parts within
        ``(m - 1) u`` of its mass more, so ``(m_max + 4) u`` with ``m_max`` the most parts of a
        point (times 1.01 for the second-order terms).
    """
    h = Fraction(h)
    if h <= 0:
        raise ValueError(f"grid must be positive, got {h}")
    out: dict = {}
    parts: dict = {}
    for w, p in law.items():
        if not p:
            continue
        q, r = divmod(Fraction(w), h)
        if r == 0:
            out[q * h] = out.get(q * h, 0) + (p if exact else float(p))
            parts[q] = parts.get(q, 0) + 1
            continue
        parts[q] = parts.get(q, 0) + 1
        parts[q + 1] = parts.get(q + 1, 0) + 1
        f = r / h
        if exact:
            out[q * h] = out.get(q * h, 0) + p * (1 - f)
            out[(q + 1) * h] = out.get((q + 1) * h, 0) + p * f
        else:
            pf, ff = float(p), float(f)
            out[q * h] = out.get(q * h, 0.0) + pf * (1.0 - ff)
            out[(q + 1) * h] = out.get((q + 1) * h, 0.0) + pf * ff
    got = {w: p for w, p in out.items() if p}
    if exact:
        return got
    return got, 1.01 * (max(parts.values(), default=0) + 4) * _U


def coupling_shift(rounds: int, fail: float = COUPLING_FAIL) -> int:
    """The smallest ``m`` with ``2 exp(-2 m^2 / N) <= fail``: in grid steps ``h``, the start shift of the
    coarse chains.

    ``D_t = sum_{i <= t} (W'_i - W_i)`` (the rounded walk less the true one) is,
    given the true wins, a sum of independent zero-mean steps each within an
    interval of length ``h``; Hoeffding's maximal inequality (Doob's inequality
    on ``exp(lambda D_t)``) gives ``P(max_{t <= N} |D_t| >= m h) <= 2 exp(-2 m^2
    / N)``.
    """
    N = int(rounds)
    if N <= 0 or fail >= 2:
        return 0
    m = math.ceil(math.sqrt(N * math.log(2 / fail) / 2))
    while 2 * math.exp(-2 * m * m / N) > fail:  # (float rounding of the root)
        m += 1
    return m


def coarse_session(rules, lo: dict, hi: dict, cost: Fraction, mean_win: Figure, *, cap=None,
                   steps: int | None = None, fail: float | None = None, snapshots=(), lump_high: bool = False,
                   law_error=0, progress=None):
    """A session bracketed on a coarse balance grid (docs/sessions.md, "Long sessions of a feature buy").

    The round win ``W`` (law ``lo`` and ``hi`` for a round with only bounds of
    ``P(W >= x)``, ``W_lo <= W <= W_hi``; the same law twice for a round with a
    law) is rounded to the grid ``h`` at random with its mean kept
    (:func:`rounded_law`): the rounded walk ``B'`` differs from the true one by
    ``D_t``, within ``x = m h`` (:func:`coupling_shift`) at every round up to
    ``N`` except with probability ``fail``.  On that event the chain started at
    ``B0 - x`` (law ``lo`` rounded) stays at or below the true walk and the one
    started at ``B0 + x`` (law ``hi`` rounded) at or above it, round by round
    (each start moved further out to the grid of the rounded moves through
    the price when ``B0`` is off it, so the chains keep the coarse grid
    whatever the start): the monotone coupling of :func:`bounded_session`, each chain's error
    widened by ``fail``.  Both chains run on the grid ``h`` (a price of
    ``steps`` points), certified, dropping :data:`COARSE_TRIM` of upper tail
    a round.

    Parameters
    ----------
    rules : SessionRules
        No stop but ruin and the rounds (the par sheet's sessions), no bet ladder.
    lo, hi : dict
        Laws of the round win bracketing it (the same law twice when it has one), total bets.
    cost : Fraction
        Price of a round (total bets).
    mean_win : Figure
        The round's (capped) mean win.
    cap : Fraction, optional
    steps : int, optional
        Grid points per price (default :data:`COARSE_STEPS`).
    fail : float, optional
        Probability that the coupling fails (default :data:`COUPLING_FAIL`).
    snapshots, lump_high, progress
        As :func:`analytic.solver.session.session_law`.
    law_error : float
        Total-variation bound of the laws (a certified law; 0 for an exact one or bracketing laws).

    Returns
    -------
    SessionResult
        Method ``bounded``; ``bracket["coarse"]``: ``{"grid": h, "shift": x, "fail": fail, "steps":
        steps}`` (``h`` and ``x`` in the unit of the bet), with ``start_low`` and ``start_high`` when the chains start
        elsewhere than ``B0 - x`` and ``B0 + x`` (a start ``B0`` off the grid of the rounded moves
        through the price: each chain's start moved out to it, the lower one at least 0);
        ``bracket["snapshots"]`` as :func:`bounded_session`.

    Raises
    ------
    SessionRefused
        Any stop rule but ruin and the rounds, or a bet ladder (not monotone with a shifted start); two
        chains whose estimated work exceeds :data:`~analytic.solver.session.CERTIFIED_LIMIT` (``option``
        ``rounds``).

    Cost: two certified chains of ``N`` rounds on ``steps`` points per price (the fine grid's
    ``c / G`` points per price replaced by ``steps``): ``O(N (K + M) log(K + M))`` with ``K`` and
    ``M`` divided by ``c / (G steps)``; the bracket's width grows like ``h sqrt(N)``.
    """
    from dataclasses import replace

    from analytic.solver.session import SessionRefused, _fgcd as fgcd, session_law

    if len(rules.levels) > 1 or any(v for v in (rules.stop_on_any_win, rules.stop_on_feature)) or any(
            v is not None for v in (rules.stop_single_win_above, rules.stop_cash_up, rules.stop_cash_down)):
        raise SessionRefused("the coarse grid's bracket is for sessions with no stop but ruin and the rounds "
                             "at one bet")
    steps = COARSE_STEPS if steps is None else int(steps)
    fail = COUPLING_FAIL if fail is None else float(fail)
    s = rules.bet
    h = Fraction(cost) / steps
    if lo is hi:  # a round with a law (many points): the rounded law in float64 (within its bound)
        la, e = rounded_law(lo, h, exact=False)
        lb = la
        law_error = Fraction(law_error) + Fraction(e)
    else:
        la, lb = rounded_law(lo, h), rounded_law(hi, h)
    # the shift a multiple of the rounded moves' grid g0 (and the price's); each chain's start moved out (down
    # for the lower, up for the upper: still below and above the true walk) to the grid of g0 through the
    # price, so both chains run on g0 whatever the start (a start already on it: B0 - x and B0 + x); a lower
    # start below 0 is 0, ruined at once like any start below the price (the least of all outcomes)
    g0 = fgcd([s * (w - cost) for w in list(la) + list(lb)] + [cost * s])
    m = coupling_shift(rules.rounds, fail)
    x = math.ceil(m * s * h / g0) * g0
    r = (rules.balance - cost * s) % g0
    start_a = max(rules.balance - x - r, Fraction(0))
    start_b = rules.balance + x + (g0 - r) % g0
    ra = replace(rules, balance=start_a)
    rb = replace(rules, balance=start_b)
    kw = dict(law_error=Fraction(law_error), method="certified", snapshots=snapshots, lump_high=lump_high,
              trim=COARSE_TRIM, progress=progress, chains=2)
    a = session_law(ra, la, {}, cost, mean_win=mean_win, **kw)
    # an upper law whose mean exceeds the price drifts up without bound (its chain's span grows like N):
    # its paths that rise above the true start are taken out as surviving above it -- only more optimistic,
    # so still an upper chain -- and the chain stays below the start
    up = sum((w * p for w, p in lb.items()), Fraction(0)) >= cost and lump_high
    # (the upper chain's index of the last grid point at or below the true start: every index above it is above)
    b = session_law(rb, lb, {}, cost, mean_win=mean_win,
                    lump_above=math.floor((rules.balance - start_b) / g0) if up else None, **kw)
    if a.grid != g0 or b.grid != g0:  # (cannot happen: both starts, the price and every move on g0)
        raise SessionRefused("the coarse chains' grids do not hold their starts (a defect: please report it)")
    # the starts' distances from the true one in grid points (whole when the start is on the grid)
    k = ((rules.balance - start_a) / g0, (start_b - rules.balance) / g0)
    if k[0] == k[1] and k[0].denominator == 1:
        k = int(k[0])
    trio = None if lo is hi else ({}, la, lb)  # bracketing laws: their means bound the mean win too
    info = {"grid": h * s, "shift": x, "fail": fail, "steps": steps}
    if start_a != rules.balance - x or start_b != rules.balance + x:
        info.update(start_low=start_a, start_high=start_b)
    starts = (f"{float(x):g} below and above the start" if "start_low" not in info else
              f"at {float(start_a):g} and {float(start_b):g} ({float(x):g} below and above the start, moved out "
              f"to the grid through the price)")

    def one(R, A, B):
        A, B = replace(A, error=A.error + fail), replace(B, error=B.error + fail)
        res = _combine(R, A, B, cost, mean_win, cap, trio, shift=k)
        # a level the upper chain's law does not reach once widened by its error and the mass it took out
        # (placed where taken out, its end unknown: all of it with lump_above) has no finite upper end but
        # the largest balance the rounds can reach
        reach = float(np.sum(B.final)) - B.error - B.lumped if len(B.final) else 0.0
        top = start_b + R.rounds * s * (max(lb) - cost)
        for q in list(res.balance_quantiles):
            if reach < float(q):
                lo_q, hi_q = res.balance_quantiles[q]
                res.balance_quantiles[q] = (lo_q, max(hi_q, top))
        res.notes.pop("wide", None)
        res.notes["coarse grid"] = (
            f"bracketed on a coarse grid of {float(h * s):g} (1/{steps} of the price): each round's win rounded "
            f"down or up to it at random with its mean kept, the chains started {starts} (the rounded walk stays "
            f"within {float(x):g} of the true one over the {R.rounds:,} rounds except with probability {fail:g}, "
            f"Hoeffding); not exact")
        if not R.stop_on_feature:
            res.notes["return experienced"] = ("not given on the coarse grid: the chains bracket the balance, not "
                                               "total won / total staked")
        res.bracket["coarse"] = dict(info)
        return res

    res = one(rules, a, b)
    if snapshots:
        res.bracket["snapshots"] = {t: one(replace(rules, rounds=t), a.snapshots[t], b.snapshots[t])
                                    for t in a.snapshots}
    return res


def joined_laws(laws: IntervalLaws) -> tuple[dict, dict]:
    """``(lo, hi)``: the two whole round laws of ``laws`` (the exact no-feature part added to each
    bracketing feature part), as :func:`coarse_session` takes them."""
    lo = {w: laws.nof.get(w, 0) + laws.lo.get(w, 0) for w in set(laws.nof) | set(laws.lo)}
    hi = {w: laws.nof.get(w, 0) + laws.hi.get(w, 0) for w in set(laws.nof) | set(laws.hi)}
    return lo, hi


#: The stop settings (:class:`~analytic.solver.session.SessionRules` fields) the coarse chains cannot honour.
_COARSE_STOPS = ("stop_on_any_win", "stop_on_feature", "stop_single_win_above", "stop_cash_up", "stop_cash_down")


def check_coarse(game, rules) -> None:
    """Refuse, before any solve, a session that :func:`coarse_session` cannot honour (``method='coarse'``).

    Parameters
    ----------
    game : Game
    rules : SessionRules

    Raises
    ------
    SessionRefused
        With ``option`` the stop rule or the bet ladder at fault (the coarse chains bracket a session
        with no stop but ruin and the rounds, at one bet), or ``key`` ``cap.currency`` (a win cap in
        currency: the chains step with the win in total bets).
    """
    from analytic.solver.session import SessionRefused

    for k in _COARSE_STOPS:
        v = getattr(rules, k)
        if v is not None and v is not False:
            raise SessionRefused("method 'coarse' brackets sessions with no stop but ruin and the rounds (its two "
                                 "chains start away from the start and play the wins rounded to the grid, which a "
                                 "stop rule would read); leave the stop out, or use method auto or certified (the "
                                 "fine chain)", option=k)
    if len(rules.levels) > 1:
        raise SessionRefused("method 'coarse' plays one bet: with a bet ladder a larger balance plays a larger bet "
                             "and can lose more, so the shifted chains do not bracket the session; leave the ladder "
                             "out, or use method auto or certified", option="bet_ladder")
    if game.cap is not None and game.cap.currency:
        raise SessionRefused("method 'coarse' with a win cap in currency is not solved (the chains step with the "
                             "win in total bets); use method auto or certified", key="cap.currency")


def coarse_from_law(game, saved, rules, method: str = "auto", progress=None):
    """A session of a saved round law on the coarse grid when the method asks for it, else None.

    ``method='auto'``: the par sheet's rule (:func:`analytic.solver.session.summary_results`): a
    feature-buy mode, more than :data:`COARSE_ROUNDS` rounds, a price spanning more than
    :data:`COARSE_STEPS` points of the fine chain's balance grid (:func:`needs_coarse`), no stop but
    ruin, one bet, no currency cap; ``method='coarse'``: whenever :func:`check_coarse` allows it and
    the coarse grid is coarser than the fine one.  The same call as the par sheet's
    (:func:`coarse_session` with ``lump_high``), so the same figures for the same setting.

    Parameters
    ----------
    game : Game
    saved : SavedRoundLaw
        The mode's round (:func:`analytic.solver.round_law_file.saved_round_law`).
    rules : SessionRules
    method : {'auto', 'exact', 'certified', 'coarse'}

    Returns
    -------
    SessionResult or None
        Method ``bounded``, ``bracket["coarse"]`` set; None: the fine chain (any other method,
        ``auto`` on a session outside the rule, or a start below one round's price: ruin at once,
        exactly, under any method).

    Raises
    ------
    SessionRefused
        ``method='coarse'`` on a session it cannot honour (:func:`check_coarse`), or whose price spans
        at most :data:`COARSE_STEPS` points of the fine grid (the coarse grid would be no coarser;
        ``option`` ``method``).
    """
    from analytic.solver.session import SessionRefused, _fgcd as fgcd

    if method not in ("auto", "coarse"):
        return None
    if method == "auto":
        try:
            check_coarse(game, rules)
        except SessionRefused:
            return None
        if game.modes[saved.mode].buys is None:
            return None
    else:
        check_coarse(game, rules)
    s, c, B = rules.bet, Fraction(saved.cost), rules.balance
    if B < c * s:  # every session ends by ruin before its first round: the fine chain says so exactly
        return None
    if saved.kind == "bracketed":
        lo, hi = joined_laws(saved.laws)
        points = list(saved.laws.nof) + list(saved.laws.lo) + list(saved.laws.hi)
        cap, err = saved.cap, 0
    else:
        lo = hi = dict(saved.points)
        points = list(lo)
        cap, err = None, saved.error
    fine = fgcd([s * (Fraction(w) - c) for w in points] + [c * s, B - c * s]) or Fraction(1)
    if method == "auto":
        if not needs_coarse(rules.rounds, c * s, fine):
            return None
    elif not c * s > COARSE_STEPS * fine:
        raise SessionRefused(f"method 'coarse': a round's price ({c * s}) spans {c * s / fine} points of this "
                             f"session's own balance grid ({fine}), not more than {COARSE_STEPS}: the coarse grid "
                             f"(the price over {COARSE_STEPS}) would be no coarser; use method auto or certified",
                             option="method")
    return coarse_session(rules, lo, hi, c, saved.mean_win, cap=cap, lump_high=True, law_error=err, progress=progress)
