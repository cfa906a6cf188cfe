"""Engine ``wald``: free spins in a fixed state with a retrigger table (e.g. Atkins Diet, Book of Ra).

The feature's state is fixed for the whole play: no expanding symbol, or one
symbol drawn (weighted) at the start and kept through retriggers.  Given the
state, the spins are i.i.d., so the Wald closed forms
(:mod:`analytic.features.laws.wald`) give the exact mean, second moment and
expected number of spins from the moments of one spin
(:func:`analytic.features.graph.spin_outcomes.free_spin_outcomes`).  The drawn
symbol is a mixture (law of total variance).  The trigger count fixes the
initial number of spins ``n = trigger.award(count)``
(:meth:`analytic.model.game.Trigger.award`).

The win distribution (retriggers make the number of spins unbounded) is the
certified grid law of :mod:`analytic.features.laws.retrigger_law` (branching
fixed point on the Fourier grid), mixed over the drawn state; the exact
``P(win = 0)`` comes with it when every retriggering spin pays.

:func:`spins_left_graph` builds the equivalent Markov chain on the number of
spins left (:mod:`analytic.features.graph.chain`), truncated at a bound, for
cross-checks and for features whose state does change.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import partial
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # networkx is imported by the functions that use it (a cold start without chains skips it)
    import networkx as nx

from analytic.features.graph import chain
from analytic.features.result import FeatureResult, register_solver
from analytic.features.laws.retrigger_law import mix_laws, retrigger_law, too_wide, zero_probability
from analytic.features.graph.spin_outcomes import SpinOutcomes, free_spin_outcomes
from analytic.features.laws.wald import WaldMoments, check_finite, mixture, wald_moments
from analytic.model.game import Game
from analytic.figures import Figure
from analytic.workspace import Workspace, workspace_for

__all__ = ["spins_law", "award_laws", "initial_spins", "ceiling_moments", "solve_free_spins", "solve_fixed_states", "state_outcomes", "spins_left_graph", "capped_law"]


def state_outcomes(game: Game, feature: str, ws: Workspace | None = None
                   ) -> list[tuple[int, str | None, SpinOutcomes]]:
    """One-spin outcomes per feature state: ``[(weight, expanding symbol or None, SpinOutcomes)]``.

    Kept in the workspace ``ws`` (:class:`analytic.workspace.Workspace`
    of ``game``; None: a fresh one, nothing kept).  The states' walks are
    independent: with ``ws.workers`` above 1 they run in that many threads
    (the compiled walk releases the GIL, :mod:`analytic.engine.linewalk_kernel`);
    the list is the same, in the same order, whatever the number of threads.
    """
    ws = workspace_for(game, ws)

    def compute():
        p = game.features[feature].params
        e = p.get("expanding_symbol")
        states = list(zip(e["weights"], e["choose_from"])) if e else [(1, None)]
        threads = min(ws.workers, len(states))
        if threads > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(threads) as pool:
                outs = list(pool.map(lambda s: free_spin_outcomes(game, feature, s), [s for _, s in states]))
        else:
            outs = [free_spin_outcomes(game, feature, s) for _, s in states]
        return [(w, s, o) for (w, s), o in zip(states, outs)]

    return ws.memo(("free_spins.states", feature), compute)


def award_laws(states: list[tuple[int, str | None, SpinOutcomes]]) -> tuple[tuple[int, tuple], ...]:
    """``((weight, ((award, stop combinations), ...)), ...)``: each drawn state's award law (states
    with the same award law merged), plain picklable data for :func:`spins_law`."""
    by_law: dict = {}
    for w, _s, o in states:
        key = tuple(sorted((a, c.weight) for a, c in o.classes.items() if c.weight))
        by_law[key] = by_law.get(key, 0) + w
    return tuple((w, k) for k, w in by_law.items())


def spins_law(n: int, laws: tuple[tuple[int, tuple], ...], ceiling: int | None = None):
    """Exact law of the spins played and the retriggers, mixed over the drawn state.

    Each state's award law (:func:`award_laws`: the stop combinations per
    award, ``SpinOutcomes.classes``) gives the law by the hitting-time
    theorem (:func:`analytic.features.laws.spins_played.hitting_law`), or
    with a ceiling on the spins awarded in total by the exact chain
    (:func:`~analytic.features.laws.spins_played.ceiling_law`).

    Parameters
    ----------
    n : int
        Spins at the start.
    laws : tuple of (weight, award law)
        From :func:`award_laws`.
    ceiling : int, optional
        ``max_spins`` (with a retrigger).

    Returns
    -------
    analytic.features.laws.spins_played.SpinsLaw
    """
    from analytic.features.laws import spins_played as sp

    if n == 0:
        return sp.fixed_law(0)
    parts = [(w, sp.hitting_law(n, dict(k)) if ceiling is None else sp.ceiling_law(n, dict(k), ceiling))
             for w, k in laws]
    if ceiling is None and len(parts) > 1:  # one range of rows for every part
        top = max(L.n_max for _, L in parts)
        parts = [(w, sp.hitting_law(n, dict(k), n_max=top)) for w, k in laws]
    return sp.mix(parts)


def _state_moments(o: SpinOutcomes, n: int) -> WaldMoments:
    m = o.moments()
    return wald_moments(n, m["EX"], m["EX2"], m["EA"], m["EA2"], m["EXA"])


def initial_spins(spec, count: int) -> int:
    """Spins a ``wald`` feature starts with: ``trigger.counts`` of ``count`` (the largest listed count
    not above it), at most ``max_spins`` (mechanic ``spins``; honoured only without a retrigger, so
    the spins played are exactly these)."""
    n = spec.trigger.award(count) if spec.trigger else 0
    ceiling = spec.params.get("max_spins")
    return n if ceiling is None else min(n, int(ceiling))


def ceiling_moments(feature: str, count: int, n: int, ceiling: int,
                    states: list[tuple[int, str | None, SpinOutcomes]]) -> FeatureResult:
    """Exact mean, second moment and expected spins of free spins with ``max_spins`` and a retrigger.

    The spins awarded in total are at most ``ceiling``: after a spin that
    awards ``a``, the spins left are ``min(left - 1 + a, ceiling - played)``
    (``played`` counting that spin).  With the spins played ``p`` and left
    ``l`` as the state, ``p`` grows at every spin, so the moments follow by
    backward induction over ``p = ceiling - 1, ..., 0`` (a finite recursion,
    no Wald identity needed): with ``W`` the win still to come,
    ``E[W | p, l] = sum_a P(a) (E[X | a] + E[W | p + 1, l']``) and
    ``E[W^2 | p, l] = sum_a P(a) (E[X^2 | a] + 2 E[X | a] E[W | p + 1, l'] +
    E[W^2 | p + 1, l'])`` (a spin's win and the later spins are independent
    given its award).  Per drawn state, then mixed with the state weights.

    Parameters
    ----------
    feature : str
    count : int
    n : int
        Spins at the start (already at most ``ceiling``).
    ceiling : int
        ``max_spins``.
    states : list of (weight, state name or None, SpinOutcomes)

    Returns
    -------
    FeatureResult
        Wins in total-bet multiples, all three figures exact, and the exact
        ``p_zero`` (``P(W = 0)``, the same induction on the spins winning
        0); no distribution.
    """
    wsum = sum(w for w, _, _ in states)
    mean = m2 = spins = p_zero = Fraction(0)
    for w, _s, o in states:
        cls = [(Fraction(c.weight, o.cycle), a, Fraction(c.win_sum, c.weight * o.units),
                Fraction(c.win_sq_sum, c.weight * o.units * o.units)) for a, c in o.classes.items() if c.weight]
        # P(award a and the spin wins 0)
        zero = {a: Fraction(c, o.cycle) for (a, x), c in o.joint.items() if x == 0}
        # nxt[l] = (E[W], E[W^2], E[spins], P(W = 0)) at played = p + 1 with l spins left
        nxt = [(Fraction(0), Fraction(0), Fraction(0), Fraction(1))]
        for p in range(ceiling - 1, -1, -1):
            cur = [(Fraction(0), Fraction(0), Fraction(0), Fraction(1))]
            for left in range(1, ceiling - p + 1):
                e1 = e2 = es = ez = Fraction(0)
                for pa, a, x1, x2 in cls:
                    f1, f2, fs, fz = nxt[min(left - 1 + a, ceiling - p - 1)]
                    e1 += pa * (x1 + f1)
                    e2 += pa * (x2 + 2 * x1 * f1 + f2)
                    es += pa * (1 + fs)
                    ez += zero.get(a, 0) * fz
                cur.append((e1, e2, es, ez))
            nxt = cur
        f1, f2, fs, fz = nxt[n]
        q = Fraction(w, wsum)
        mean += q * f1
        m2 += q * f2
        spins += q * fs
        p_zero += q * fz
    return FeatureResult(
        feature=feature, count=count, mean=Figure(mean), second_moment=Figure(m2), expected_spins=Figure(spins),
        end_probabilities={"spins exhausted": Figure(Fraction(1))},
        method=(f"backward induction over (spins played, spins left) under max_spins = {ceiling} (exact rationals)"
                + (", mixed over the drawn state" if _drawn(states) else "") + "; no win distribution"),
        details={"initial_spins": n, "max_spins": ceiling},
        p_zero=p_zero,
        spins_law_source=partial(spins_law, n, award_laws(states), ceiling),
    )


def solve_free_spins(game: Game, feature: str, count: int, mode: str | None = None, *,
                     ws: Workspace | None = None) -> FeatureResult:
    """Exact figures of a ``free_spins`` feature started by ``count`` trigger symbols.

    Parameters
    ----------
    game : Game
    feature : str
        Feature name.
    count : int
        Trigger-symbol count; the spins awarded are ``trigger.counts`` of it
        (largest listed count not above it).
    mode : str, optional
        Bet mode (unused: the feature's reel set is fixed).
    ws : Workspace, optional
        The solve's workspace for ``game`` (:mod:`analytic.workspace`);
        None: a fresh one.

    Returns
    -------
    FeatureResult
        Wins in total-bet multiples, moments exact (Wald closed forms,
        rational); ``law`` the certified win distribution, ``p_zero`` exact
        when every retriggering spin pays.

    Raises
    ------
    UnboundedFeatureError
        Expected awarded spins per spin >= 1 in some state.
    """
    spec = game.features[feature]
    n = initial_spins(spec, count)
    ws = workspace_for(game, ws)
    states = state_outcomes(game, feature, ws)
    if spec.params.get("max_spins") is not None and spec.params.get("retrigger") is not None:
        return ceiling_moments(feature, count, n, int(spec.params["max_spins"]), states)
    return solve_fixed_states(game, feature, count, n, states, ws=ws, law_key="free_spins.law")


def _drawn(states) -> bool:
    """Whether the feature draws a state at its start (more than one, or a named one): the method
    text says "mixed over the drawn state" only then."""
    return len(states) > 1 or any(s is not None for _, s, _ in states)


def solve_fixed_states(game: Game, feature: str, count: int, n: int,
                       states: list[tuple[int, str | None, SpinOutcomes]], *, ws: Workspace,
                       law_key: str, method: str = "Wald closed forms per fixed state (exact rationals)",
                       details: dict | None = None) -> FeatureResult:
    """Figures of free spins in a fixed state drawn at the start, from each state's one-spin law.

    Shared by every engine whose spins are i.i.d. given a state drawn once
    (an expanding symbol): Wald's closed forms per state
    (:func:`analytic.features.laws.wald.wald_moments`), the mixture over the
    state, the certified grid law of the retrigger law per state
    (:func:`analytic.features.laws.retrigger_law.retrigger_law`, mixed) and the
    exact ``P(win = 0)`` when every retriggering spin pays.

    Parameters
    ----------
    game : Game
    feature : str
    count : int
        Trigger count (reported).
    n : int
        Spins at the start.
    states : list of (weight, state name or None, SpinOutcomes)
        The drawn states with integer weights and one spin's exact joint law.
    ws : Workspace
        The solve's workspace (the grid laws are kept there under ``law_key``).
    law_key : str
        Workspace key prefix of the per-state grid laws.
    method : str
        The moments' method (first part of ``FeatureResult.method``).
    details : dict, optional
        Extra entries for ``FeatureResult.details``.

    Returns
    -------
    FeatureResult
        Wins in total-bet multiples, moments exact.

    Raises
    ------
    UnboundedFeatureError
        Expected awarded spins per spin >= 1 in some state.
    """
    for _, s, o in states:
        check_finite(feature, o.mean_award, game.path, always_one=set(o.classes) == {1})
    per = [(w, s, _state_moments(o, n)) for w, s, o in states]
    mix = mixture((w, m) for w, _, m in per)
    wsum = sum(w for w, _, _ in states)
    # the mixture needs every state's law: when one state's spin wins are already too wide for the
    # grid (decided from its joint law alone), no state's Fourier work is done
    if n and any(too_wide(o.joint) for _, _, o in states):
        law = None
    else:
        laws = [(Fraction(w, wsum), _state_law(ws, law_key, feature, s, o, n)) for w, s, o in states]
        law = None if any(L is None for _, L in laws) else mix_laws(laws)
    zeros = [zero_probability(o.joint, o.cycle, n) for _, _, o in states]
    p_zero = None if any(z is None for z in zeros) else sum(
        (Fraction(w, wsum) * z for (w, _, _), z in zip(states, zeros)), Fraction(0))
    det = {
        "initial_spins": n,
        "per_state": {
            (s or "-"): {
                "weight": w,
                "mean_win_per_spin": o.mean_win,
                "mean_award_per_spin": o.mean_award,
                "expected_spins": m.expected_spins,
                "mean": m.mean,
                "variance": m.variance,
            }
            for (w, s, m), (_, _, o) in zip(per, states)
        },
    }
    det.update(details or {})
    return FeatureResult(
        feature=feature,
        count=count,
        mean=Figure(mix.mean),
        second_moment=Figure(mix.second_moment),
        expected_spins=Figure(mix.expected_spins),
        end_probabilities={"spins exhausted": Figure(Fraction(1))},
        method=((f"{method}, mixed over the drawn state" if _drawn(states)
                 else method.replace(" per fixed state", "")) + "; win "
                + (f"distribution: branching fixed point on a Fourier grid, certified error {law.error:.1e}"
                   if law is not None else "distribution not certifiable on the grid (too wide or heavy-tailed)")),
        details=det,
        p_zero=p_zero,
        law=law,
        spins_law_source=partial(spins_law, n, award_laws(states)),
    )


def _state_law(ws: Workspace, key: str, feature: str, s, o: SpinOutcomes, n: int):
    return ws.memo((key, feature, s, n),
                   lambda: retrigger_law(o.joint, o.cycle, o.units, n, o.mean_award))


def spins_left_graph(o: SpinOutcomes, n: int, max_left: int) -> nx.DiGraph:
    """The spins-left Markov chain of a fixed state, truncated at ``max_left``.

    Parameters
    ----------
    o : SpinOutcomes
        One spin's outcome classes.
    n : int
        Initial spins (the start state is ``n``).
    max_left : int
        A spin that would leave more than this many spins goes to
        ``End("truncated")`` (its own win still counts).

    Returns
    -------
    networkx.DiGraph
        States ``k = 1..max_left`` (spins left), ``chain.END`` and
        ``End("truncated")``; wins in total-bet multiples.
    """
    import networkx as nx

    g = nx.DiGraph()
    u = o.units
    for k in range(1, max_left + 1):
        for a, c in o.classes.items():
            p = Fraction(c.weight, o.cycle)
            m1 = Fraction(c.win_sum, c.weight * u)
            m2 = Fraction(c.win_sq_sum, c.weight * u * u)
            nxt = k - 1 + a
            v = chain.END if nxt == 0 else (chain.End("truncated") if nxt > max_left else nxt)
            chain.add_outcome(g, k, v, p, m1, m2)
    return g


def capped_law(game: Game, feature: str, count: int, cap, *, ws: Workspace | None = None):
    """Exact law of the feature win held below ``cap`` when it has no retriggers, else None.

    Without retriggers (no spin awards spins) the ``n`` spins of a state are
    i.i.d.: one spin's law (integer weights from the joint line walk, wins
    in total-bet multiples, the multiplier applied) raised to ``n`` by a
    truncated power (:func:`analytic.features.laws.capped.iid_sum`), mixed over
    the drawn expanding symbol with its weights
    (:func:`analytic.features.laws.capped.mixture`).

    Parameters
    ----------
    game : Game
    feature : str
    count : int
        Trigger count (fixes the spins as in :func:`solve_free_spins`).
    cap : Fraction
        Total-bet multiples.
    ws : Workspace, optional
        The solve's workspace for ``game``; None: a fresh one.

    Returns
    -------
    analytic.features.laws.capped.TruncatedLaw or None
        None with retriggers, or when the grid below the cap is longer than
        :data:`analytic.features.laws.capped.MAX_GRID` points.
    """
    from analytic.features.laws import capped

    spec = game.features[feature]
    n = initial_spins(spec, count)
    states = state_outcomes(game, feature, ws)
    if any(a for _, _, o in states for (a, _x) in o.joint):
        return None
    from analytic.features.laws.capped import MAX_GRID

    parts = []
    for w, _s, o in states:
        one = capped.law_from_weights({Fraction(x, o.units): c for (_a, x), c in o.joint.items()}, cap,
                                      max_length=MAX_GRID)
        if one is None:
            return None  # too fine a grid below the cap for polynomials: the caller certifies instead
        parts.append((w, capped.iid_sum(one, n)))
    return capped.mixture(parts)


register_solver("wald", solve_free_spins)


def law_check(game: Game, feature: str, *, ws: Workspace | None = None) -> str | None:
    """Why the feature's win law is certainly unavailable, or None (see
    :func:`analytic.features.result.register_law_check`).

    Only a feature whose spins can award spins (a retrigger table that some
    free spin meets: one spin's joint law, :func:`state_outcomes`, kept in
    ``ws`` for the solve) can lack a law: with ``max_spins`` its figures come
    from the exact recursion of :func:`ceiling_moments`, which gives none;
    otherwise a state whose one-spin wins are too wide for the certified grid
    law (:func:`~analytic.features.laws.retrigger_law.too_wide`) leaves the
    mixture without one.  Anything else: None.
    """
    from analytic.features.laws.retrigger_law import M_MAX

    spec = game.features[feature]
    if spec.params.get("retrigger") is None:
        return None
    states = state_outcomes(game, feature, ws)
    if not any(a for _, _, o in states for (a, _x) in o.joint):
        return None  # no spin awards spins: the exact law of a fixed spin count
    if spec.params.get("max_spins") is not None:
        return (f"features.{feature} has max_spins with a retrigger table that its free spins meet: its "
                "figures come from an exact recursion over (spins played, spins left), which gives no win "
                "law (remove max_spins or the retrigger)")
    for w, s, o in states:
        if w and too_wide(o.joint):
            g = 0
            for _, x in o.joint:
                g = math.gcd(g, x)
            top = max(x for _, x in o.joint)
            what = f"with {s!r} drawn one" if s is not None else "one"
            return (f"features.{feature} has a retrigger table that its free spins meet, so its win law is the "
                    f"certified grid law; {what} free spin wins up to {float(Fraction(top, o.units)):,.10g} total "
                    f"bets, {top // g:,} steps of its wins' grid ({float(Fraction(g, o.units)):g} total bets), "
                    f"and the grid law holds fewer than {M_MAX // 2:,} (narrower spin wins would make it solvable: smaller "
                    "top pays or multipliers; or no retrigger table)")
    return None


def _register_capped() -> None:
    from analytic.features.result import register_capped_law, register_law_check

    register_capped_law("wald", capped_law)
    register_law_check("wald", law_check)


_register_capped()
