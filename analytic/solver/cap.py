"""The win cap on the round of any game: ``[cap] total_bet_multiple``.

A round (base spin plus every feature it starts, or a bought feature) that
would win ``R`` pays ``min(R, C)`` with ``C`` the cap in total-bet
multiples.  The capped figures are read off the law of the round win:

* ``E[min(R, C)]``, ``E[min(R, C)^2]`` and ``P(R >= C)``.

Three ways, tried in this order:

1. **exact** -- every feature the round can start has an exact law below the
   cap (a pick bonus's distribution; free spins without retriggers as the
   ``n``-th truncated power of one spin's law, registered with
   :func:`analytic.features.result.register_capped_law`): the round's law
   below ``C`` by truncated integer polynomials
   (:func:`analytic.features.laws.capped.round_law`), figures exact;
2. **certified** -- the round's law from :func:`analytic.solver.distribution.round_law`
   (exact fractions, or a grid law with a certified total-variation error
   ``eps``, e.g. free spins with unbounded retriggers): with ``f(w) =
   min(w, C)`` in ``[0, C]``, ``|E f(R) - E f(R')| <= C eps``, so the capped
   mean is labelled ``bounded`` with error ``C eps`` (second moment
   ``C^2 eps``, ``P(R >= C)`` ``eps``);
3. otherwise the model is **refused** (:class:`~analytic.errors.ModelError`
   on ``cap.total_bet_multiple``) with the reason and what would make it
   solvable -- never the uncapped figure under the capped name.

The RTP split keeps the uncapped parts and gets a ``cap deduction`` row
(:func:`add_cap_deduction`) so that the parts add up to the capped total.

Units: wins and the cap in total-bet multiples; RTP per unit staked.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from math import ceil, lcm

from analytic.errors import ModelError
from analytic.features.laws import capped
from analytic.figures import Figure, bound_text

__all__ = ["applied_cap", "apply_round_cap", "check_round_cap", "add_stake_caps", "add_cap_deduction", "MAX_GRID", "CAP_DEDUCTION"]

from analytic.features.laws.capped import MAX_GRID  # noqa: E402  (the laws' limit, re-exported)
#: Name of the RTP-split row that takes the cap's cut.
CAP_DEDUCTION = "cap deduction (parts uncapped)"


def applied_cap(res) -> Fraction | None:
    """The cap (total-bet multiples) a round result's figures are capped at, or None.

    A result is capped when its solver says so (``extra["capped_rtp"]``) and
    the game declares ``[cap] total_bet_multiple``.
    """
    g = res.game
    if res.extra.get("capped_rtp") is None or g.cap is None or g.cap.total_bet_multiple is None:
        return None
    return Fraction(g.cap.total_bet_multiple)


def _exact_feature_law(game, fr, cap: Fraction, ws=None):
    """The exact law of one feature play truncated at ``cap``, or None."""
    from analytic.features.result import capped_law_for

    if fr is None:
        return None
    if fr.distribution is not None and fr.distribution_mass_error == 0:
        d = {Fraction(x): Fraction(p) for x, p in fr.distribution.items()}
        den = 1
        for p in d.values():
            den = lcm(den, p.denominator)
        return capped.law_from_weights({x: int(p * den) for x, p in d.items()}, cap, max_length=MAX_GRID)
    fn = capped_law_for(game.features[fr.feature].engine)
    return fn(game, fr.feature, fr.count, cap, ws=ws) if fn is not None else None


def _classes(res):
    """``[(integer weight, base win, [(FeatureResult, plays)])]`` of the round's classes."""
    from analytic.solver.distribution import round_classes

    return round_classes(res)


def _exact_capped(res, cap: Fraction, ws=None):
    """``(mean, second moment, P(reach), law)`` exactly, or a string saying why not (a feature
    has no exact law below the cap, or the wins' grid is too fine for the cap)."""
    classes = _classes(res)
    laws: dict = {}
    grid = capped.grid_of([b for _, b, _ in classes])
    for _, _, parts in classes:
        for fr, _k in parts:
            key = id(fr)
            if key not in laws:
                law = _exact_feature_law(res.game, fr, cap, ws)
                if law is None:
                    return (f"feature '{fr.feature}' has no exact law below the cap (retriggers, or more than "
                            f"{MAX_GRID} points of its wins' grid below the cap)")
                laws[key] = law
                grid = capped._frac_gcd(grid, law.grid)
    if ceil(cap / grid) > MAX_GRID:
        return (f"the wins' grid ({grid} total bets) has more than {MAX_GRID} points below the cap")
    feats: dict = {}
    rows = []
    for w, b, parts in classes:
        key = None
        if parts:
            key = tuple((id(fr), k) for fr, k in parts)
            if key not in feats:
                law = None
                for fr, k in parts:
                    one = capped.iid_sum(laws[id(fr)], k)
                    law = one if law is None else capped.convolve(law, one)
                feats[key] = law
        rows.append((w, b, key))
    law = capped.round_law(rows, feats, cap)
    mean, m2, reach = law.capped_moments()
    return mean, m2, reach, law


def _certified_law(res):
    """The round's (uncapped) law from :func:`analytic.solver.distribution.round_law`."""
    from analytic.solver.distribution import round_law

    return round_law(res)


def _from_points(points, cap: Fraction):
    """``(E[min(R, C)], E[min(R, C)^2], P(R >= C))`` of a law given as points."""
    mean = m2 = reach = Fraction(0)
    for w, p in points.items():
        x = min(w, cap)
        mean += p * x
        m2 += p * x * x
        if w >= cap:
            reach += p
    return mean, m2, reach


def _stake_caps(g) -> list[tuple[Fraction, Fraction]]:
    """``[(stake, cap in total-bet multiples)]`` of a currency cap's declared stakes
    (the smaller of ``currency / stake`` and ``total_bet_multiple``)."""
    c = g.cap
    if c is None or c.currency is None:
        return []
    out = []
    for st in c.stakes or ():
        x = Fraction(c.currency) / Fraction(st)
        if c.total_bet_multiple is not None:
            x = min(x, Fraction(c.total_bet_multiple))
        out.append((Fraction(st), x))
    return out


def _binds(capped_rtp: Figure, uncapped_rtp) -> bool | None:
    """Whether a cap ``c`` can bind, from the RTP capped at it and the uncapped RTP (``binds`` of
    :func:`analytic.features.laws.capped.stake_row`).

    ``E[R] - E[min(R, c)] = E[(R - c)+]`` is positive exactly when ``P(R > c) > 0``: True when the
    capped RTP's bracket lies below the uncapped one's, False when both are exact and equal, None
    (cannot tell) when the brackets overlap or the uncapped RTP is not given.  ``uncapped_rtp``: a
    Figure, a Fraction or None.
    """
    if uncapped_rtp is None:
        return None
    u = uncapped_rtp if isinstance(uncapped_rtp, Figure) else Figure(Fraction(uncapped_rtp))
    if capped_rtp.value + capped_rtp.error < u.value - u.error:
        return True
    return False if capped_rtp.error == 0 and u.error == 0 else None


def _cap_key(g) -> str | None:
    """The key a refused cap is reported at, or None when :func:`apply_round_cap` caps nothing."""
    if g.cap is None:
        return None
    if g.cap.total_bet_multiple is not None:
        return "cap.total_bet_multiple"
    return "cap.currency" if _stake_caps(g) else None


def check_round_cap(game, mode: str, ws=None) -> None:
    """Refuse, before the long work, a win cap that :func:`apply_round_cap` would refuse.

    A round playing a feature whose engine's law check
    (:func:`analytic.features.result.register_law_check`) says its win law
    is certainly unavailable has neither the exact capped law nor the
    certified round law, so the cap is refused -- here, after the check's
    cheap tables and before the features' laws.  Anything in doubt is left
    to :func:`apply_round_cap` (the safety net).

    Parameters
    ----------
    game : Game
    mode : str
        Bet mode name.
    ws : Workspace, optional
        The solve's workspace (the check's tables are kept there).

    Raises
    ------
    ModelError
        At ``cap.total_bet_multiple`` (or ``cap.currency``), with the reason
        and what would make the model solvable.
    """
    from analytic.features.result import ROUND_SOLVERS, law_check_for, round_solver_for

    key = _cap_key(game)
    if key is None or game.rules.get("published_max_win") == "theoretical":
        return  # no cap applied (rule published_max_win = 'theoretical': the round solver leaves it off)
    m = game.modes[mode]
    delegate = round_solver_for(game)
    feats = [m.buys] if m.buys is not None else list(game.features)
    for name in feats:
        f = game.features[name]
        check = law_check_for(f.engine)
        if check is None or (delegate is not None and ROUND_SOLVERS.get(f.engine) is not delegate):
            continue
        why = check(game, name, ws=ws)
        if why is None:
            continue
        if m.buys is None:
            from analytic.engine.base_game import solve_base

            if not any(feat == name for feat, _ in solve_base(game, m.name).trigger_counts):
                continue  # the mode's base spin never starts it
        top = max(c for _, c in _stake_caps(game)) if key == "cap.currency" else game.cap.total_bet_multiple
        raise ModelError(
            game.path, key,
            f"the win cap (up to {Fraction(top)} total bets, bet mode {m.name!r}) needs the law of the round "
            f"win, and {why}: the capped RTP cannot be computed exactly or certified; remove the [cap] (the "
            "uncapped figures are then exact)")


def apply_round_cap(res, ws=None):
    """``res`` (uncapped round figures) with the game's ``[cap]`` applied.

    Parameters
    ----------
    res : RoundResult
        Uncapped figures of a bet mode (the generic path of
        :func:`analytic.solver.round.solve_round`, or a kind's round solver
        that left the cap alone).
    ws : Workspace, optional
        The solve's workspace for ``res.game``
        (:class:`analytic.workspace.Workspace`), handed to the
        features' capped laws; None: a fresh one.

    Returns
    -------
    RoundResult
        ``res`` unchanged without a cap.  With ``total_bet_multiple``:
        ``rtp``, ``mean_win`` and ``second_moment`` of the capped round win
        (exact, or bounded with a certified error), ``extra`` with
        ``uncapped_rtp``, ``capped_rtp``, ``p_reach_cap``,
        ``uncapped_mean_win``, ``uncapped_second_moment``, ``cap_method``
        and (exact method) ``distribution``, the capped round law.  With a
        ``currency`` cap and ``stakes`` (unless the kind's round solver
        reported them already), ``extra["currency_cap"]``: per stake
        (currency) the cap in total-bet multiples, the capped RTP and
        ``P(R >= cap)``; the headline figures then stay uncapped when there
        is no ``total_bet_multiple`` (they depend on the stake).

    Raises
    ------
    ModelError
        ``cap.total_bet_multiple`` (or ``cap.currency``): no exact or
        certified law of the round win is available (the reason and what
        would make it solvable).
    """
    g = res.game
    if g.cap is None:
        return res
    head = Fraction(g.cap.total_bet_multiple) if g.cap.total_bet_multiple is not None else None
    stakes = [] if "currency_cap" in res.extra else _stake_caps(g)
    caps = ([head] if head is not None else []) + [c for _, c in stakes]
    if not caps:
        return res
    top = max(caps)
    key = "cap.total_bet_multiple" if head is not None else "cap.currency"
    ex = _exact_capped(res, top, ws)
    why = ex if isinstance(ex, str) else ""
    ex = None if isinstance(ex, str) else ex
    if ex is not None:
        law = ex[3]

        def figs(c):
            mean, m2, reach = capped.truncate(law, c).capped_moments()
            return Figure(mean), Figure(m2), Figure(reach)

        method = ("exact capped round law below the cap C: each feature's law below C "
                  "(pick bonus: its distribution; free spins without retriggers: one spin's law raised to "
                  "the spins by truncated power), times the base spin's joint law (truncated integer "
                  "polynomials); E[min(R, C)], E[min(R, C)^2] and P(R >= C) from it")
    else:
        rl = _certified_law(res)
        if rl.points is None:
            raise ModelError(
                g.path, key,
                f"the win cap (up to {top} total bets) needs the law of the round win: the exact method cannot "
                f"be used ({why}) and {rl.reason}, so the capped "
                "RTP cannot be computed exactly or certified; remove the [cap] (the uncapped "
                "figures are then exact) or declare the feature so that its win law is known (free spins "
                "without retriggers, or with retriggers but no max_spins and spin wins on a grid of at most "
                "half a million steps; a pick bonus)")
        err = Fraction(rl.error)

        def figs(c):
            mean, m2, reach = _from_points(rl.points, c)
            if err == 0:
                return Figure(mean), Figure(m2), Figure(reach)
            return Figure(mean, "bounded", c * err), Figure(m2, "bounded", c * c * err), Figure(reach, "bounded", err)

        method = ("capped round win min(R, C) from the round's law "
                  + ("(exact fractions)" if err == 0 else
                     f"(certified grid law, total-variation error {float(err):.2g}; E[min(R, C)] within "
                     f"C x error)"))
    extra = dict(res.extra)
    methods = dict(res.methods)
    out = {}
    if stakes:
        rows = []
        for st, c in stakes:
            mfig, _, rfig = figs(c)
            cfig = Figure(mfig.value / res.cost, mfig.label, mfig.error / res.cost)
            rows.append(capped.stake_row(st, c, cfig, _binds(cfig, res.rtp), rfig))
        extra["currency_cap"] = rows
        if head is None:
            extra["currency_cap_note"] = ("the RTP, mean win and variance above are uncapped: a currency cap "
                                          "depends on the stake; the capped RTP at each declared stake is "
                                          "in currency_cap")
        methods["currency cap"] = method + "; C = currency / stake at each stake"
    if head is not None:
        mfig, m2fig, rfig = figs(head)
        if ex is not None:
            extra["distribution"] = capped.truncate(law, head).distribution()
        rtp = Figure(mfig.value / res.cost, mfig.label, mfig.error / res.cost)
        extra.update(uncapped_rtp=res.rtp, capped_rtp=rtp, p_reach_cap=rfig, uncapped_mean_win=res.mean_win,
                     uncapped_second_moment=res.second_moment, cap_method=f"{method}; C = {head} total bets")
        methods["win cap"] = f"{method}; C = {head} total bets"
        out = dict(rtp=rtp, mean_win=mfig, second_moment=m2fig)
    return replace(res, extra=extra, methods=methods, **out)


def add_stake_caps(res):
    """Per-stake figures of a currency cap for a result a kind's round solver capped itself.

    A kind's round solver that applied ``total_bet_multiple`` but did not
    report the currency cap's stakes: each stake's cap ``c`` is at most the
    multiple cap, so ``min(min(R, C), c) = min(R, c)`` is read off the
    solver's exact capped law (``extra["distribution"]``) exactly.

    Returns
    -------
    RoundResult
        ``res``, with ``extra["currency_cap"]`` when the game declares stakes.

    Raises
    ------
    ModelError
        ``cap.currency``: stakes are declared but the kind's round solver
        gives no exact capped law to read them from.
    """
    stakes = [] if "currency_cap" in res.extra else _stake_caps(res.game)
    if not stakes:
        return res
    pts = res.extra.get("distribution")
    if pts is None or applied_cap(res) is None:
        raise ModelError(
            res.game.path, "cap.currency",
            "the capped RTP at each declared stake needs the law of the capped round win, which this "
            "feature kind's round solver does not give; remove cap.currency (or its stakes) to solve "
            "the model with its total_bet_multiple cap")
    rows = []
    for st, c in stakes:
        mean, _m2, reach = _from_points({Fraction(w): Fraction(p) for w, p in pts.items()}, c)
        fig = Figure(mean / res.cost)
        rows.append(capped.stake_row(st, c, fig, _binds(fig, res.extra.get("uncapped_rtp")), Figure(reach)))
    return replace(res, extra={**res.extra, "currency_cap": rows})


def tighten_stake_caps(res):
    """Narrow a round solver's per-stake brackets of the capped RTP with the round's certified law.

    A kind's round solver may bracket the RTP under a currency cap at each
    stake (its own ``extra["currency_cap"]`` rows, ``lower``/``upper`` e.g.
    by moment bounds; :func:`~analytic.solver.round.solve_round` calls this
    only for such rows, not for those :func:`apply_round_cap` and
    :func:`add_stake_caps` read off the round's law).  When the round's law
    is known with a total-variation error ``e``
    (:func:`analytic.solver.distribution.round_law`),
    ``|E[min(R, c)] - sum_w p_w min(w, c)| <= c e`` (``min(R, c)`` lies in
    ``[0, c]``), and likewise ``P(R >= c)`` within ``e``.  Both brackets are
    certified, so their intersection is.

    Returns
    -------
    RoundResult
        ``res`` with each binding row's ``lower``/``upper``/``capped_rtp``
        narrowed and a ``p_reach_cap`` figure added (unchanged when the law
        is unavailable).
    """
    rows = res.extra.get("currency_cap")
    if not rows or not any(r.get("binds") for r in rows):
        return res
    law = _certified_law(res)
    if law.points is None:
        return res
    err = Fraction(law.error)
    out = []
    for r in rows:
        if not r.get("binds"):
            out.append(r)
            continue
        c = r["cap_multiple"]
        mean, _m2, reach = _from_points(law.points, c)
        if r["capped_rtp"].label == "exact":  # an exact row stays; it must lie in the law's bracket
            if abs(r["capped_rtp"].value * res.cost - mean) > c * err or (
                    "p_reach_cap" in r and abs(r["p_reach_cap"].value - reach) > err):
                raise AssertionError(f"exact capped figures at stake {r['stake']} outside the round law's bracket")
            out.append(r)
            continue
        lo = max(r["lower"], (mean - c * err) / res.cost)
        hi = min(r["upper"], (mean + c * err) / res.cost)
        if lo > hi:  # two certified brackets cannot miss each other
            raise AssertionError(f"disjoint certified brackets of the capped RTP at stake {r['stake']}")
        fig = Figure((lo + hi) / 2, "bounded", (hi - lo) / 2) if lo < hi else Figure(lo)
        lo_p, hi_p = max(reach - err, Fraction(0)), min(reach + err, Fraction(1))
        out.append(capped.stake_row(r["stake"], c, fig, True, Figure((lo_p + hi_p) / 2, "bounded", (hi_p - lo_p) / 2),
                                    r.get("max_win")))
    if all(r is q for r, q in zip(rows, out)):
        return res
    return replace(res, extra={**res.extra, "currency_cap": out},
                   methods={**res.methods, "currency cap (law)": (
                       "each stake's bracket intersected with the round's certified law: E[min(R, c)] within "
                       f"c x {bound_text(err, digits=2)} (total variation of the law), P(R >= c) within "
                       f"{bound_text(err, digits=2)}")})


def add_cap_deduction(res):
    """``res`` with the RTP split completed so that its parts add up to ``res.rtp``.

    The parts (base line wins, scatter pays, each feature) stay the uncapped
    shares.  When the round is capped (:func:`applied_cap`) a ``cap
    deduction`` row takes the difference between the capped RTP and the
    uncapped one (negative; its error is the sum of the errors involved);
    when the uncapped RTP itself differs from the parts (a gamble that
    replaces a feature, ``extra["gamble"]``) a ``gamble`` row takes that
    difference first, capped or not.  The centre values then add up to the
    total exactly.
    """
    from analytic.solver.round import Component

    if any(c.name in (CAP_DEDUCTION, "gamble") for c in res.components):
        return res
    if applied_cap(res) is None:  # uncapped: a gamble's row only (the uncapped RTP less the parts)
        if (res.extra or {}).get("gamble") in (None, "never"):
            return res
        parts = sum((c.rtp.value for c in res.components), Fraction(0))
        perr = sum((c.rtp.error for c in res.components), Fraction(0))
        if res.rtp.value == parts:
            return res
        lab = "exact" if res.rtp.label == "exact" and perr == 0 else "bounded"
        row = Component("gamble", Figure(res.rtp.value - parts, lab, res.rtp.error + perr))
        return replace(res, components=(*res.components, row))
    comps = list(res.components)
    parts = sum((c.rtp.value for c in comps), Fraction(0))
    perr = sum((c.rtp.error for c in comps), Fraction(0))
    unc = res.extra.get("uncapped_rtp")
    if isinstance(unc, Figure) and unc.value != parts:
        lab = "exact" if unc.label == "exact" and perr == 0 else "bounded"
        name = "gamble" if res.extra.get("gamble") not in (None, "never") else "not in the parts above"
        comps.append(Component(name, Figure(unc.value - parts, lab, unc.error + perr)))
        parts, perr = unc.value, unc.error
    lab = "exact" if res.rtp.label == "exact" and perr == 0 else "bounded"
    comps.append(Component(CAP_DEDUCTION, Figure(res.rtp.value - parts, lab, res.rtp.error + perr)))
    return replace(res, components=tuple(comps))
