"""Engine ``revealed_wild_reels``: free spins with a drawn expanding symbol and wild reels revealing multipliers.

Mechanic
--------
The trigger starts a fixed number ``n`` of free spins (a retrigger table is
optional, below).  Before they start one paying symbol ``s`` is drawn
(weights ``w_s``).  In a free spin every reel showing the revealing symbol
(param ``revealed_by``, a wild and scatter; called the Book below) expands
into a wild reel and reveals a multiplier ``m`` (weights ``v_m``, e.g. 1..5),
independently per reel.  The seed model models/book_of_christmas_eve.toml
plays this mechanic (its rule text and source are named in the model file).
A spin pays

* the regular line wins, the expanded reels acting as wilds whose
  multipliers multiply along a line's run, and then
* the *expansion*: with ``k`` = reels showing ``s`` or an expanded Book
  (a Book has priority on a reel it shares with ``s``), when ``k`` reaches
  the smallest paying count of ``s`` the spin also pays
  ``pays[s][k] * lines * prod(m of the Book reels)`` (non-adjacent reels,
  all lines).  Rule ``wild_reels_expansion``: ``"pays"`` (default, the
  rule text "a possible win of the special expanding symbol on 10 paylines is
  still counted") lets Book reels alone form it; ``"needs_symbol"`` requires
  at least one reel showing ``s``.

Retriggers and scatter pays (generic compositions)
--------------------------------------------------
With ``spins.retrigger = { symbols, counts }`` a free spin showing ``k``
retrigger symbols awards ``retrigger.award(k)`` more spins.  The symbols are counted
as they *landed*, before a Book turns its reel wild (the trigger's count of
cells anywhere; rule ``revealed_retrigger_count = "reels"`` counts each reel
showing one once instead).  The drawn symbol is fixed for the whole feature,
so the spins are i.i.d. given it and the exact joint law of (award, win) of
one spin gives Wald's closed forms and the retrigger law's certified grid
law (:func:`state_outcomes`, ``wald_spins.solve_fixed_states``); the cap is
then applied from that certified law by :mod:`analytic.solver.cap` (or
refused there).  A game's ``[scatter]`` pays in the free spins with its
symbols counted as they landed, too.

Exact method
------------
Given ``s``, the spins are i.i.d.  One spin is evaluated by the joint line
walk (:mod:`analytic.engine.linewalk`) on *modified windows*: on each reel a
window showing a Book is replaced by five virtual all-Book windows
``book*m`` (a wild with multiplier ``m``) weighted ``count * v_m``; a
window without a Book keeps weight ``count * sum(v)``.  Counters track the
reels showing ``s`` and the Book reels of each multiplier, so the walk's
exact joint table gives ``X = line win + expansion`` with integer weights.
The raw moments ``E[X^j | s]`` (j <= 4) are exact fractions; the sum of ``n``
i.i.d. spins has moments by binomial convolution, e.g.

* ``E[W | s] = n E[X]``, ``E[W^2 | s] = n E[X^2] + n(n-1) E[X]^2``,

and the feature mixes over ``s`` (law of total expectation).  Nothing is
sampled.  Units: wins in **total-bet multiples** (line-bet units divided by
``game.total_bet``).

A published maximum win (``[cap] total_bet_multiple``, e.g. 20,168x in the
seed model) is read by rule ``published_max_win``: ``"cap"`` (default: the
round win is capped there; the theoretical maximum with large revealed
multipliers is usually far above it) or ``"theoretical"``.

The cap, exactly
----------------
One free spin's win given ``s`` is an integer number of line-bet units with
an exact integer weight per value (the walk's joint table), i.e. a
polynomial ``P_s(x)``.  The feature's law is ``P_s(x)^n`` mixed over ``s``,
and the round adds the base spin (independent given its trigger class).
Wins are non-negative, so every coefficient below the cap ``C`` of a
product depends only on the factors' coefficients below ``C``: the capped
round law, ``E[min(R, C)]`` and ``P(R >= C)`` are exact from truncated
products (:mod:`analytic.features.laws.capped`: FLINT ``pow_trunc`` and
``mul_low`` on integers).  :func:`solve_round_capped` reports them exact;
:func:`capped_rtp_bounds` (the earlier certified moment bracket) is kept
as an independent check.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import partial
from math import comb, gcd
from typing import Sequence

from analytic.engine.linewalk import walk
from analytic.engine.linewin import CellRole
from analytic.engine.spin import CounterDef, build_spin, cell_roles, line_paytable, strip_windows
from analytic.features.laws import capped
from analytic.features.laws.spins_played import fixed_law
from analytic.features.result import FeatureResult, register_law_check, register_solver
from analytic.model.game import Game
from analytic.figures import Figure
from analytic.workspace import Workspace, workspace_for

__all__ = [
    "KIND",
    "spin_moments",
    "feature_moments",
    "iid_sum_moments",
    "tail_bound",
    "round_raw_moments",
    "round_tail_bound",
    "capped_rtp_bounds",
    "spin_law",
    "feature_law",
    "capped_round",
    "max_round_win",
    "solve_feature",
    "state_outcomes",
    "has_retrigger",
]

#: The engine this module solves (the key of its solver and round solver).
KIND = "revealed_wild_reels"
#: Highest raw moment carried (for the cap's tail bound).
K_MOMENTS = 4
MULTIPLIERS = (1, 2, 3, 4, 5)


# --------------------------------------------------------------------------
# generic exact moment algebra (shared with engine gift_pick)


def iid_sum_moments(m: Sequence[Fraction], n: int) -> list[Fraction]:
    """Raw moments of the sum of ``n`` i.i.d. copies of ``X``.

    Parameters
    ----------
    m : sequence of Fraction
        ``m[j] = E[X^j]`` for ``j = 0..K`` (``m[0] = 1``).
    n : int
        Number of summands (>= 0).

    Returns
    -------
    list of Fraction
        ``E[S^j]``, ``j = 0..K``, by repeated binomial convolution
        ``E[(A+B)^j] = sum_i C(j,i) E[A^i] E[B^(j-i)]`` of independent parts.
    """
    K = len(m) - 1
    out = [Fraction(1)] + [Fraction(0)] * K
    for _ in range(n):
        out = [sum((comb(j, i) * out[i] * m[j - i] for i in range(j + 1)), Fraction(0)) for j in range(K + 1)]
    return out


def add_independent(a: Sequence[Fraction], b: Sequence[Fraction]) -> list[Fraction]:
    """Raw moments of ``A + B`` for independent ``A``, ``B`` (same length lists)."""
    K = len(a) - 1
    return [sum((comb(j, i) * a[i] * b[j - i] for i in range(j + 1)), Fraction(0)) for j in range(K + 1)]


def tail_bound(moments: Sequence[Fraction], c: Fraction) -> Fraction:
    """Certified upper bound of ``E[(R - c)+]`` for ``R >= 0``.

    Uses ``(r - c)+ <= r^k (k-1)^(k-1) / (k^k c^(k-1))`` for every ``r >= 0``
    and ``k >= 2`` (the right side touches the left at ``r = k c / (k-1)``),
    and takes the smallest over the available moments ``k = 2..K``.

    Parameters
    ----------
    moments : sequence of Fraction
        ``E[R^j]``, ``j = 0..K`` (K >= 2).
    c : Fraction
        The cap (> 0), same unit as ``R``.

    Returns
    -------
    Fraction
    """
    best = moments[1]  # (r - c)+ <= r
    for k in range(2, len(moments)):
        b = moments[k] * Fraction((k - 1) ** (k - 1), k**k) / Fraction(c) ** (k - 1)
        best = min(best, b)
    return best


# --------------------------------------------------------------------------
# parameters: built by engine revealed_wild_reels from the mechanics wild_reels and expanding_symbol
# (analytic.model.mechanics.engines); rules wild_reels_expansion and published_max_win




# --------------------------------------------------------------------------
# one free spin


def _free_spin_table(game: Game, feature: str, symbol: str, ws: Workspace | None = None
                     ) -> dict[tuple[int, int], int]:
    """Exact law of one free spin's win given the special symbol (kept in the workspace ``ws``)."""
    def compute():
        out: dict[tuple[int, int], int] = {}
        for (_a, lw, ex), c in _free_spin_joint(game, feature, symbol, ws).items():
            out[(lw, ex)] = out.get((lw, ex), 0) + c
        return out

    return workspace_for(game, ws).memo(("revealed_wild_reels.spin_table", feature, symbol), compute)


def _free_spin_joint(game: Game, feature: str, symbol: str, ws: Workspace | None = None
                     ) -> dict[tuple[int, int, int], int]:
    """Exact joint law of one free spin's (award, line win, expansion win) (kept in the workspace ``ws``)."""
    return workspace_for(game, ws).memo(("revealed_wild_reels.spin_joint", feature, symbol),
                                        lambda: _walk_free_spin_table(game, feature, symbol))


def _scatter_units(game: Game) -> dict[int, int]:
    """Scatter pays of a free spin in line-bet units (``pays * total_bet``), by count.

    Raises
    ------
    UnsupportedMechanicError
        A pay that is not a whole number of line bets (this engine's wins are integer line-bet units).
    """
    from analytic.errors import UnsupportedMechanicError

    out = {}
    for k, v in (game.scatter.pays.items() if game.scatter is not None else ()):
        x = Fraction(v) * game.total_bet
        if x.denominator != 1:
            raise UnsupportedMechanicError(
                f"engine '{KIND}': scatter.pays.{k} = {v} total bets is not a whole number of line bets; "
                "this engine pays whole line bets (make the scatter pays multiples of 1/total_bet)")
        out[k] = int(x)
    return out


def _walk_free_spin_table(game: Game, feature: str, symbol: str) -> dict[tuple[int, int, int], int]:
    """Exact joint law of one free spin's award and win given the special symbol.

    A window showing the revealing symbol becomes ``rows`` virtual wild cells
    ``book*m``.  Symbols counted as they *landed* (the retrigger symbols, and
    the game's scatter symbols when free spins pay scatters) keep their count
    on that reel: each landed cell of such a symbol becomes a virtual wild
    cell of the same role tagged ``+r`` (a retrigger symbol), ``+s`` (a
    scatter symbol) or ``+rs`` (both), so the counters see the landed
    symbols after the reel turned wild.  The retrigger counter counts cells
    or reels (rule ``revealed_retrigger_count``); the scatter counter counts
    cells (the game's scatter pays: cells anywhere).

    Returns
    -------
    dict
        ``(spins awarded, line win + scatter pay, expansion win) -> weight``
        in line-bet units; weights sum to ``cycle * (sum of multiplier
        weights)^(book reels)``.  Award 0 throughout without a retrigger.
    """
    f = game.features[feature]
    book = f.params["revealed_by"]
    mw = dict(f.params["multipliers"])
    retrig = f.params.get("retrigger")
    rsyms = frozenset(retrig.symbols) if retrig is not None else frozenset()
    spays = _scatter_units(game)
    ssyms = frozenset(game.scatter.symbols) if spays else frozenset()
    wtot = sum(mw.values())
    pt, index = line_paytable(game)
    roles = dict(cell_roles(game, index))
    brole = roles[book]

    def name(m: int, cell: str) -> str:
        tag = ("r" if cell in rsyms else "") + ("s" if cell in ssyms else "")
        return f"{book}*{m}" + (f"+{tag}" if tag else "")

    tags = ["", "+r", "+s", "+rs"]
    names = {m: [f"{book}*{m}{t}" for t in tags] for m in mw}
    for m in mw:
        for nm in names[m]:
            roles[nm] = CellRole(brole.supports, m, True)  # a wild reel (rule line_wild_pay = first_non_wild)
    windows = []
    for strip in game.reel_sets[f.reel_set]:
        out: dict[tuple[str, ...], int] = {}
        for w, n in strip_windows(strip, game.rows).items():
            if book in w:
                for m, v in mw.items():
                    if v:
                        k = tuple(sorted(name(m, x) for x in w))
                        out[k] = out.get(k, 0) + n * v
            else:
                out[w] = out.get(w, 0) + n * wtot
        windows.append(out)
    counters = [CounterDef("s", frozenset({symbol}), "reels")]
    counters += [CounterDef(f"m{m}", frozenset(names[m]), "reels") for m in mw]
    extra = []
    if retrig is not None:
        per = "reels" if game.rules.get("revealed_retrigger_count", "landed") == "reels" else "cells"
        tagged = frozenset(f"{book}*{m}{t}" for m in mw for t in ("+r", "+rs"))
        counters.append(CounterDef("retrigger", rsyms | tagged, per))
        extra.append("retrigger")
    if spays:
        tagged = frozenset(f"{book}*{m}{t}" for m in mw for t in ("+s", "+rs"))
        counters.append(CounterDef("scatter", ssyms | tagged, "cells"))
        extra.append("scatter")
    spec = build_spin(game, counters=counters, windows=windows, roles=roles, paytable=pt)
    dist = walk(spec)
    pays = game.paytable[symbol]
    minc = min(k for k, v in pays.items() if v > 0)
    kmax = max(pays)  # a count above the largest listed one pays that count (mechanic expanding_symbol)
    needs = game.rules.get("wild_reels_expansion", "pays") == "needs_symbol"
    nlines = len(game.lines)
    mults = list(mw)
    out: dict[tuple[int, int, int], int] = {}
    for key, cnt in dist.table.items():
        sreels = key[0]
        books = key[1:1 + len(mults)]
        vals = dict(zip(extra, key[1 + len(mults):-1]))
        a = retrig.award(vals["retrigger"]) if retrig is not None else 0
        lw = key[-1] + spays.get(vals.get("scatter", 0), 0)
        k = sreels + sum(books)
        exp = 0
        if k >= minc and not (needs and sreels == 0):
            prod = 1
            for m, c in zip(mults, books):
                prod *= m**c
            exp = pays.get(min(k, kmax), 0) * nlines * prod
        out[(a, lw, exp)] = out.get((a, lw, exp), 0) + cnt
    return out


def has_retrigger(game: Game, feature: str) -> bool:
    """Whether the feature declares a retrigger table (its spins are then Wald's, not a fixed count)."""
    return game.features[feature].params.get("retrigger") is not None


def state_outcomes(game: Game, feature: str, ws: Workspace | None = None) -> list:
    """One free spin's exact (award, win) law per drawn symbol: ``[(weight, symbol, SpinOutcomes)]``.

    Wins in line-bet units with ``units = game.total_bet`` per total bet
    (:class:`analytic.features.graph.spin_outcomes.SpinOutcomes`), the joint
    table of :func:`_walk_free_spin_table` with the line and expansion wins
    added.  ``ws``: the solve's workspace for ``game`` (None: a fresh one).
    """
    from analytic.features.graph.spin_outcomes import outcomes_from_joint

    ws = workspace_for(game, ws)
    es = game.features[feature].params["expanding_symbol"]
    out = []
    for s, w in zip(es["choose_from"], es["weights"]):
        joint: dict[tuple[int, int], int] = {}
        lsum = esum = 0
        for (a, lw, ex), c in _free_spin_joint(game, feature, s, ws).items():
            joint[(a, lw + ex)] = joint.get((a, lw + ex), 0) + c
            lsum += lw * c
            esum += ex * c
        out.append((w, s, outcomes_from_joint(joint, sum(joint.values()), int(game.total_bet),
                                              line_sum=lsum, expansion_sum=esum)))
    return out


def spin_moments(game: Game, feature: str, symbol: str, k: int = K_MOMENTS, ws: Workspace | None = None) -> dict:
    """Exact raw moments of one free spin's win given the special symbol.

    Parameters
    ----------
    game : Game
    feature : str
        Feature name (engine ``revealed_wild_reels``).
    symbol : str
        The drawn special expanding symbol.
    k : int
        Highest moment.
    ws : Workspace, optional
        The solve's workspace for ``game`` (None: a fresh one).

    Returns
    -------
    dict
        ``moments`` (list of Fraction, ``E[X^j]`` for j = 0..k, total-bet
        multiples), ``line_mean`` and ``expansion_mean`` (total-bet
        multiples), ``max`` (largest spin win, total-bet multiples),
        ``hit`` (P(X > 0)).
    """
    table = _free_spin_table(game, feature, symbol, ws)
    tb = game.total_bet
    total = sum(table.values())
    sums = [0] * (k + 1)
    lsum = esum = hit = 0
    top = 0
    for (lw, ex), c in table.items():
        x = lw + ex
        p = 1
        for j in range(k + 1):
            sums[j] += p * c
            p *= x
        lsum += lw * c
        esum += ex * c
        hit += c if x > 0 else 0
        top = max(top, x)
    return {
        "moments": [Fraction(sums[j], total * tb**j) for j in range(k + 1)],
        "line_mean": Fraction(lsum, total * tb),
        "expansion_mean": Fraction(esum, total * tb),
        "max": Fraction(top, tb),
        "hit": Fraction(hit, total),
    }


def _spins(game: Game, feature: str, count: int) -> int:
    """Spins the feature starts with for ``count`` trigger symbols: ``trigger.counts`` of the largest
    listed count not above it (docs/model-format.md, ``trigger.counts``; a count above the largest
    listed one takes that one's award, not the smallest's)."""
    return game.features[feature].trigger.award(count)


def feature_moments(game: Game, feature: str, count: int, k: int = K_MOMENTS, ws: Workspace | None = None) -> dict:
    """Exact raw moments of the whole feature win, and per-symbol details.

    ``ws``: the solve's workspace for ``game`` (None: a fresh one).

    Returns
    -------
    dict
        ``moments`` (``E[W^j]``, j = 0..k, total-bet multiples), ``spins``,
        ``max`` (largest feature win), ``per_symbol`` (symbol -> dict with
        ``probability``, ``spin_mean``, ``spin_second_moment``,
        ``feature_mean``, ``feature_second_moment``, ``max_spin_win``,
        ``line_mean``, ``expansion_mean``).
    """
    f = game.features[feature]
    n = _spins(game, feature, count)
    es = f.params["expanding_symbol"]
    wsum = sum(es["weights"])
    mom = [Fraction(0)] * (k + 1)
    per = {}
    top = Fraction(0)
    for s, w in zip(es["choose_from"], es["weights"]):
        p = Fraction(w, wsum)
        sm = spin_moments(game, feature, s, k, ws)
        wm = iid_sum_moments(sm["moments"], n)
        for j in range(k + 1):
            mom[j] += p * wm[j]
        top = max(top, n * sm["max"])
        per[s] = {
            "probability": p,
            "spin_mean": sm["moments"][1],
            "spin_second_moment": sm["moments"][2],
            "line_mean": sm["line_mean"],
            "expansion_mean": sm["expansion_mean"],
            "spin_hit": sm["hit"],
            "feature_mean": wm[1],
            "feature_second_moment": wm[2],
            "max_spin_win": sm["max"],
            "raw_moments": wm,
        }
    return {"moments": mom, "spins": n, "max": top, "per_symbol": per}


def _components(game: Game, feature: str, count: int, ws: Workspace) -> list:
    """Mixture components of the feature win: (P(symbol), moments of W | symbol)."""
    fm = _cached_feature(game, feature, count, ws)
    return [(d["probability"], d["raw_moments"]) for d in fm["per_symbol"].values()]


def _cached_feature(game: Game, feature: str, count: int, ws: Workspace | None) -> dict:
    ws = workspace_for(game, ws)
    return ws.memo(("revealed_wild_reels.feature", feature, count), lambda: feature_moments(game, feature, count, ws=ws))


def solve_feature(game: Game, feature: str, count: int, mode: str, *, ws: Workspace | None = None) -> FeatureResult:
    """Exact figures of revealed-wild-reels free spins started with ``count`` trigger symbols.

    Parameters
    ----------
    game : Game
    feature : str
    count : int
        Trigger count (selects the spins awarded).
    mode : str
        Bet mode (unused: free spins play at the triggering bet).
    ws : Workspace, optional
        The solve's workspace for ``game`` (None: a fresh one).

    Returns
    -------
    FeatureResult
        Mean and second moment of the feature win (total-bet multiples),
        exact; expected spins (the fixed count); ``details`` per drawn symbol.
    """
    if has_retrigger(game, feature):
        return _solve_retrigger(game, feature, count, ws)
    fm = _cached_feature(game, feature, count, ws)
    n = fm["spins"]
    return FeatureResult(
        feature=feature,
        count=count,
        mean=Figure(fm["moments"][1]),
        second_moment=Figure(fm["moments"][2]),
        expected_spins=Figure(Fraction(n)),
        end_probabilities={"spins exhausted": Figure(Fraction(1))},
        method=(f"fixed countdown of {n} i.i.d. spins per drawn symbol (no retriggers): moments of the sum "
                "by binomial convolution of exact per-spin moments from the joint line walk on book-expanded "
                "windows weighted by multiplier; mixture over the drawn symbol"),
        details={"per_symbol": fm["per_symbol"], "max_feature_win": fm["max"],
                 "raw_moments": fm["moments"], "spins": n},
        spins_law_source=partial(fixed_law, n),
    )


def _solve_retrigger(game: Game, feature: str, count: int, ws: Workspace | None) -> FeatureResult:
    """Figures of the feature with a retrigger table: Wald's closed forms and the retrigger law per drawn symbol.

    Given the drawn symbol the spins are i.i.d. with the exact joint law of
    (award, win) of :func:`state_outcomes`; the rest is
    :func:`analytic.features.engines.wald_spins.solve_fixed_states` (Wald's
    identities, :mod:`analytic.features.laws.wald`; the certified grid law,
    :mod:`analytic.features.laws.retrigger_law`).
    """
    from analytic.features.engines.wald_spins import solve_fixed_states

    ws = workspace_for(game, ws)
    n = _spins(game, feature, count)
    states = state_outcomes(game, feature, ws)
    return solve_fixed_states(
        game, feature, count, n, states, ws=ws, law_key="revealed_wild_reels.retrigger_law",
        method=("Wald closed forms per drawn symbol (exact rationals) from one spin's exact joint law of "
                "(retrigger award, win) by the joint line walk on book-expanded windows weighted by multiplier"))


register_solver(KIND, solve_feature)


def law_check(game: Game, feature: str, *, ws: Workspace | None = None) -> str | None:
    """Why the feature's win law is certainly unavailable, or None (see
    :func:`analytic.features.result.register_law_check`).

    Without retriggers the engine gives the exact law below any cap (None).
    With a retrigger table the law is the certified grid law of every drawn
    symbol's state (:func:`analytic.features.laws.retrigger_law.retrigger_law`),
    and a state whose one-spin wins span half the largest grid or more has
    none (:func:`~analytic.features.laws.retrigger_law.too_wide`).  The
    states are walked one at a time, the symbols with the largest line pays
    first, stopping at the first too wide; each walk is kept in ``ws`` for
    the solve that follows.
    """
    from analytic.features.laws.retrigger_law import M_MAX, too_wide

    if not has_retrigger(game, feature):
        return None
    ws = workspace_for(game, ws)
    es = game.features[feature].params["expanding_symbol"]
    drawn = [s for s, w in zip(es["choose_from"], es["weights"]) if w]
    drawn.sort(key=lambda s: -max(game.paytable.get(s, {}).values(), default=0))
    tb = int(game.total_bet)
    for s in drawn:
        joint: dict[tuple[int, int], int] = {}
        for (a, lw, ex), c in _free_spin_joint(game, feature, s, ws).items():
            joint[(a, lw + ex)] = joint.get((a, lw + ex), 0) + c
        if too_wide(joint):
            g = 0
            for _, x in joint:
                g = gcd(g, x)
            top = max(x for _, x in joint)
            return (f"features.{feature} has a retrigger table, so its win law is the certified grid law of "
                    f"each drawn symbol; with {s!r} drawn one free spin wins up to {float(Fraction(top, tb)):,.10g} "
                    f"total bets, {top // g:,} steps of its wins' grid ({float(Fraction(g, tb)):g} total bets), "
                    f"and the grid law holds fewer than {M_MAX // 2:,} (narrower spin wins would make it solvable: smaller "
                    "top pays or multipliers; or no retrigger table)")
    return None


register_law_check(KIND, law_check)


# --------------------------------------------------------------------------
# round level: max win and the cap


def round_raw_moments(game: Game, mode: str | None, feature_moments_fn, k: int = K_MOMENTS) -> list[Fraction]:
    """Raw moments ``E[R^j]`` (j = 0..k) of the round win of a bet mode.

    Parameters
    ----------
    game : Game
    mode : str or None
    feature_moments_fn : callable
        ``(feature, count) -> list of E[F^j]`` for the feature started.
    k : int

    Returns
    -------
    list of Fraction
        Total-bet multiples (not divided by the mode's cost).
    """
    from analytic.engine.base_game import solve_base

    m = game.modes[mode] if mode else game.default_mode
    if m.buys is not None:
        tot = sum(m.buy_counts.values())
        out = [Fraction(0)] * (k + 1)
        for c, w in m.buy_counts.items():
            fm = feature_moments_fn(m.buys, c)
            for j in range(k + 1):
                out[j] += Fraction(w, tot) * fm[j]
        return out
    base = solve_base(game, m.name)
    u = Fraction(1, base.units)
    out = [Fraction(0)] * (k + 1)
    for (feat, n, lt, win), cnt in base.joint.items():
        p = Fraction(cnt, base.cycle)
        b = win * u
        bm = [b**j for j in range(k + 1)]
        fm = feature_moments_fn(feat, n) if feat is not None else [Fraction(1)] + [Fraction(0)] * k
        rm = add_independent(bm, fm)
        for j in range(k + 1):
            out[j] += p * rm[j]
    return out


def round_tail_bound(game: Game, mode: str | None, components_fn, cap: Fraction) -> Fraction:
    """Certified upper bound of ``E[(R - C)+]`` for the round win ``R``, per class.

    ``E[(R - C)+] = sum_c p_c E[(R_c - C)+]`` over the base spin's classes
    (base win ``b``, feature started) and the feature's mixture components
    (drawn symbol, gift class); each term is bounded by :func:`tail_bound`
    of the exact moments of ``b + F_component`` (exact 0 or ``b - C`` when no
    feature starts).  Conditioning first makes the bound much tighter than one
    moment bound of the whole round.

    Parameters
    ----------
    game : Game
    mode : str or None
    components_fn : callable
        ``(feature, count) -> list of (probability, [E[F^j]])``.
    cap : Fraction
        Total-bet multiples.

    Returns
    -------
    Fraction
        Total-bet multiples per round.
    """
    from analytic.engine.base_game import solve_base

    m = game.modes[mode] if mode else game.default_mode
    cap = Fraction(cap)
    if m.buys is not None:
        tot = sum(m.buy_counts.values())
        return sum((Fraction(w, tot) * q * tail_bound(fm, cap)
                    for c, w in m.buy_counts.items() if w for q, fm in components_fn(m.buys, c)), Fraction(0))
    base = solve_base(game, m.name)
    out = Fraction(0)
    k = K_MOMENTS
    for (feat, n, lt, win), cnt in base.joint.items():
        p = Fraction(cnt, base.cycle)
        b = Fraction(win, base.units)
        if feat is None:
            out += p * max(b - cap, 0)
            continue
        bm = [b**j for j in range(k + 1)]
        for q, fm in components_fn(feat, n):
            out += p * q * tail_bound(add_independent(bm, fm), cap)
    return out


def max_round_win(game: Game, mode: str | None = None, ws: Workspace | None = None) -> Fraction:
    """Theoretical maximum round win of a bet mode (total-bet multiples), no cap.

    The largest base win among spins that trigger the feature (with that
    count) plus ``spins * max over symbols of the largest spin win``
    (every spin can repeat the best outcome), or the base maximum.
    ``ws``: the solve's workspace for ``game`` (None: a fresh one).
    """
    from analytic.engine.base_game import solve_base

    ws = workspace_for(game, ws)
    m = game.modes[mode] if mode else game.default_mode
    if m.buys is not None:
        return max(_cached_feature(game, m.buys, c, ws)["max"] for c, w in m.buy_counts.items() if w)
    base = solve_base(game, m.name)
    best = Fraction(0)
    for (feat, n, lt, win), cnt in base.joint.items():
        v = Fraction(win, base.units)
        if feat is not None:
            v += _cached_feature(game, feat, n, ws)["max"]
        best = max(best, v)
    return best


def capped_rtp_bounds(game: Game, mode: str | None = None, cap: Fraction | None = None,
                      ws: Workspace | None = None) -> dict:
    """Certified bracket of the RTP with the round win capped at ``cap``.

    ``E[min(R, C)] = E[R] - E[(R - C)+]`` and ``0 <= E[(R - C)+] <=``
    :func:`round_tail_bound` (per class and drawn symbol); if the theoretical
    maximum is at most ``C`` the cap never binds and the capped RTP is exact.

    Parameters
    ----------
    game : Game
    mode : str, optional
    cap : Fraction, optional
        Cap in total-bet multiples; default ``game.cap.total_bet_multiple``.
    ws : Workspace, optional
        The solve's workspace for ``game`` (None: a fresh one).

    Returns
    -------
    dict
        ``uncapped_rtp``, ``lower``, ``upper`` (Fractions, per unit staked),
        ``max_win`` (total-bet multiples), ``binds`` (bool).
    """
    m = game.modes[mode] if mode else game.default_mode
    if cap is None:
        if game.cap is None or game.cap.total_bet_multiple is None:
            raise ValueError(f"{game.path}: no [cap] total_bet_multiple; pass cap= (total-bet multiples)")
        cap = game.cap.total_bet_multiple
    ws = workspace_for(game, ws)
    mom = round_raw_moments(game, m.name, lambda f, c: _cached_feature(game, f, c, ws)["moments"])
    mx = max_round_win(game, m.name, ws)
    rtp = mom[1] / m.cost
    if mx <= cap:
        return {"uncapped_rtp": rtp, "lower": rtp, "upper": rtp, "max_win": mx, "binds": False}
    tb = round_tail_bound(game, m.name, lambda f, c: _components(game, f, c, ws), Fraction(cap))
    return {"uncapped_rtp": rtp, "lower": rtp - tb / m.cost, "upper": rtp, "max_win": mx, "binds": True}


def spin_law(game: Game, feature: str, symbol: str, cap: Fraction, ws: Workspace | None = None
             ) -> "capped.TruncatedLaw":
    """Law of one free spin's win given ``symbol``, held exactly below ``cap``.

    Parameters
    ----------
    game : Game
    feature : str
    symbol : str
        The drawn special expanding symbol.
    cap : Fraction
        Total-bet multiples.
    ws : Workspace, optional
        The solve's workspace for ``game`` (None: a fresh one).

    Returns
    -------
    capped.TruncatedLaw
        Wins in total-bet multiples (line-bet units / ``total_bet``), integer
        weights from the joint line walk.
    """
    tb = game.total_bet
    w: dict[Fraction, int] = {}
    for (lw, ex), c in _free_spin_table(game, feature, symbol, ws).items():
        x = Fraction(lw + ex, tb)
        w[x] = w.get(x, 0) + c
    return capped.law_from_weights(w, cap)


def feature_law(game: Game, feature: str, count: int, cap: Fraction, ws: Workspace | None = None
                ) -> "capped.TruncatedLaw":
    """Law of the whole feature win (total-bet multiples) held exactly below ``cap``.

    ``sum_s w_s P_s(x)^n`` over the drawn symbols (truncated powers), see
    :mod:`analytic.features.laws.capped`.  ``ws``: the solve's workspace for
    ``game`` (None: a fresh one).
    """
    ws = workspace_for(game, ws)

    def compute():
        f = game.features[feature]
        n = _spins(game, feature, count)
        es = f.params["expanding_symbol"]
        parts = [(w, capped.iid_sum(spin_law(game, feature, s, cap, ws), n))
                 for s, w in zip(es["choose_from"], es["weights"]) if w]
        return capped.mixture(parts)

    return ws.memo(("revealed_wild_reels.law", feature, count, Fraction(cap)), compute)


def capped_round(game: Game, mode: str | None, cap: Fraction, ws: Workspace | None = None
                 ) -> "capped.TruncatedLaw":
    """Exact law of the round win of a bet mode capped at ``cap`` (total-bet multiples).

    A buy mixes the feature laws of its ``buy_counts``; a spin mode combines
    the base spin's joint law (trigger class, base win) with the feature law
    of each trigger count by :func:`analytic.features.laws.capped.round_law`.
    ``ws``: the solve's workspace for ``game`` (None: a fresh one).

    Raises
    ------
    UnsupportedMechanicError
        Line-triggered bonuses in the base game (not modelled by this kind).
    """
    from analytic.errors import UnsupportedMechanicError
    from analytic.engine.base_game import solve_base

    ws = workspace_for(game, ws)
    m = game.modes[mode] if mode else game.default_mode
    cap = Fraction(cap)
    if m.buys is not None:
        return capped.mixture([(w, feature_law(game, m.buys, c, cap, ws)) for c, w in m.buy_counts.items() if w])
    base = solve_base(game, m.name)
    feats = {}
    classes = []
    for (feat, n, lt, win), cnt in base.joint.items():
        if lt:
            raise UnsupportedMechanicError(f"engine '{KIND}': line-triggered bonuses are not modelled with the cap")
        key = None
        if feat is not None:
            key = (feat, n)
            if key not in feats:
                feats[key] = feature_law(game, feat, n, cap, ws)
        classes.append((cnt, Fraction(win, base.units), key))
    return capped.round_law(classes, feats, cap)


def solve_round_capped(game: Game, mode: str, *, plain, ws: Workspace | None = None) -> "RoundResult":  # noqa: F821
    """Round figures with the published maximum win read as a cap (rule ``published_max_win``).

    ``plain``: the mode's round without cap (``solve_round(game, mode, plain=True)``); ``ws``: the
    solve's workspace for ``game`` (None: a fresh one).

    Returns
    -------
    RoundResult
        The plain (uncapped, exact) figures of
        :func:`analytic.solver.round.solve_round` when no cap applies (rule
        ``"theoretical"`` or no ``[cap] total_bet_multiple``).  With the cap,
        ``rtp``, ``mean_win`` and ``second_moment`` are those of the capped
        round win, **exact** (truncated polynomial powers, see
        :mod:`analytic.features.laws.capped`), the RTP split's parts uncapped, and ``extra`` holds ``uncapped_rtp``,
        ``capped_rtp``, ``p_reach_cap`` (Figures), ``distribution`` (capped
        round law: win in total-bet multiples -> probability, wins at or above
        the cap lumped at the cap), ``uncapped_mean_win``,
        ``uncapped_second_moment``, ``max_win`` (theoretical, total-bet
        multiples) and ``cap_method``.
    """
    ws = workspace_for(game, ws)
    res = plain
    extra = dict(res.extra)
    reading = game.rules.get("published_max_win", "cap")
    if any(f.engine == KIND and has_retrigger(game, f.name) for f in game.features.values()):
        # retriggers: the round win is unbounded (no theoretical maximum) and no fixed spin count,
        # so the cap goes to analytic.solver.cap (the certified retrigger law, or refused there)
        extra["max_win_reading"] = reading
        return replace(res, extra=extra)
    extra["max_win"] = max_round_win(game, res.mode, ws)
    extra["max_win_reading"] = reading
    if reading != "cap" or game.cap is None or game.cap.total_bet_multiple is None:
        return replace(res, extra=extra)
    cap = Fraction(game.cap.total_bet_multiple)
    law = capped_round(game, res.mode, cap, ws)
    return apply_cap(res, law, extra, method=(
        "exact capped round law: per drawn symbol the free spin's integer-weight polynomial raised to the "
        "spins by truncated power below the cap (FLINT pow_trunc), mixed over the symbol, multiplied by the "
        f"base spin's joint law (mul_low); E[min(R, C)] and P(R >= C) from it; C = {game.cap.total_bet_multiple} "
        "total bets"))


def apply_cap(res, law: "capped.TruncatedLaw", extra: dict, method: str):
    """``res`` with its round figures replaced by those of the exact capped law ``law``.

    The RTP split keeps the uncapped parts; :func:`analytic.solver.round.solve_round`
    adds the ``cap deduction`` row (:func:`analytic.solver.cap.add_cap_deduction`).
    """
    mean, m2, reach = law.capped_moments()
    rtp = Fraction(mean) / res.cost
    extra.update(
        uncapped_rtp=res.rtp, capped_rtp=Figure(rtp), p_reach_cap=Figure(reach),
        uncapped_mean_win=res.mean_win, uncapped_second_moment=res.second_moment,
        distribution=law.distribution(),
        cap_method=method,
    )
    methods = dict(res.methods)
    methods["win cap"] = method
    return replace(res, rtp=Figure(rtp), mean_win=Figure(Fraction(mean)), second_moment=Figure(Fraction(m2)),
                   methods=methods, extra=extra)


def _register_round() -> None:
    from analytic.features.result import register_round_solver

    register_round_solver(KIND, solve_round_capped)


_register_round()
