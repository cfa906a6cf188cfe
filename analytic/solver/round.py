"""Round figures of a bet mode: the base spin plus every feature it starts.

A round is one paid base spin and whatever it triggers (or, for a feature
buy, the bought feature alone).  Let ``B`` be the base-spin win and ``c`` the
spin's trigger class (which feature, with which count, how many line
triggers).  Given ``c``, the feature win ``F`` is independent of ``B``, so

* ``E[R]   = sum_c,b p(c,b) (b + mu_c)``
* ``E[R^2] = sum_c,b p(c,b) (b^2 + 2 b mu_c + m2_c)``

with ``mu_c = E[F | c]`` and ``m2_c = E[F^2 | c]`` from the feature solvers
(:mod:`analytic.features.result`).  Line-triggered bonuses add the sum of
``n`` independent bonus wins (mean ``n mu``, second moment
``n m2 + n(n-1) mu^2``).  The sums over ``b`` within a class are taken in
integers first (count, sum of wins, sum of squared wins, in win units), so
only the classes go through fractions.  Everything is a Fraction; a figure inherits the
label ``bounded`` (with the summed error) when any feature figure is bounded.

Units: wins in total-bet multiples; ``rtp = E[R] / cost``; the standard
deviation and volatility index are per unit staked (of ``R / cost``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

from analytic.features.result import FeatureResult, feature_solver, round_solver_for
from analytic.model.game import Game
from analytic.engine.base_game import BaseResult, solve_base
from analytic.figures import Figure, Z_SCORES
from analytic.workspace import Workspace, workspace_for

__all__ = ["Component", "FeatureFigures", "RoundResult", "solve_round", "solve_game", "check_round", "EXTRA_UNITS",
           "EXTRA_SHORT_UNITS", "CAPPED_KEYS", "extra_unit"]

#: Unit and meaning of the solver's own figures (``RoundResult.extra``) that are not an RTP (those are
#: fractions of the stake, printed as the RTP rows), as ``analytic solve`` prints them beside their values.
EXTRA_UNITS = {
    "max_win": "x total bet: the round's theoretical maximum win, before the cap",
    "uncapped_mean_win": "x total bet, before the cap",
    "uncapped_second_moment": "(x total bet)^2, before the cap",
    "p_reach_cap": "probability that the round reaches the win cap",
    "cap_free_stake_limit": "currency: the largest stake at which the currency win cap cannot bind",
    "gamble_probability": "probability that the gamble wins",
}

#: The same units in short, as the par sheets print them in a row's label ("solver: max_win (x total
#: bet, before the cap)", :func:`analytic.reports.format.extra_label`); the same keys as :data:`EXTRA_UNITS`.
EXTRA_SHORT_UNITS = {
    "max_win": "x total bet, before the cap",
    "uncapped_mean_win": "x total bet, before the cap",
    "uncapped_second_moment": "(x total bet)^2, before the cap",
    "p_reach_cap": "probability per round",
    "cap_free_stake_limit": "currency",
    "gamble_probability": "probability",
}

#: Keys of ``RoundResult.extra`` that the round solver sets only where it applies a win cap (in total
#: bets: ``capped_rtp``, ``p_reach_cap``; in currency: ``currency_cap``, the table per stake).
CAPPED_KEYS = frozenset({"capped_rtp", "p_reach_cap", "currency_cap"})


def extra_unit(key: str, keys=None, short: bool = False) -> str | None:
    """The unit of the solver's figure ``key`` (:data:`EXTRA_UNITS`, or :data:`EXTRA_SHORT_UNITS` if ``short``).

    ``keys``: every key of the round's ``extra``; where none of them is a capped figure
    (:data:`CAPPED_KEYS`: no win cap applies to the round), the unit drops its "before the cap"
    (a game without a cap has no cap to be before).  None: the unit as stated.  Returns None for a
    key with no stated unit.
    """
    unit = (EXTRA_SHORT_UNITS if short else EXTRA_UNITS).get(key)
    if unit and keys is not None and not any(k in CAPPED_KEYS for k in keys):
        unit = unit.replace(", before the cap", "")
    return unit


@dataclass(frozen=True)
class Component:
    """One share of the RTP (per unit staked), with its exactness."""

    name: str
    rtp: Figure


@dataclass(frozen=True)
class FeatureFigures:
    """Per-feature round figures.

    Attributes
    ----------
    name : str
    frequency : Figure
        Probability that a round starts it (1 for a buy).
    average_win : Figure
        Expected feature win given it started, total-bet multiples.
    sd : float
        Standard deviation of the feature win given it started.
    expected_spins : Figure
        Expected spins played given it started; exact, or bounded when an engine's figure is
        (its label and error are kept).
    rtp : Figure
        Its share of the mode's RTP (per unit staked).
    method : str
    variance : Figure or None
        Variance of the feature win given it started (``sd`` is the square root of its centre):
        exact, or bounded with the error carried from the feature's mean and second moment
        (``|d(m2 - a^2)| <= e2 + 2 |a| ea + ea^2``).  None where not computed.
    """

    name: str
    frequency: Figure
    average_win: Figure
    sd: float
    expected_spins: Figure
    rtp: Figure
    method: str = ""
    variance: Figure | None = None

    @property
    def one_in(self) -> float:
        f = float(self.frequency.value)
        return 1 / f if f else math.inf


@dataclass(frozen=True)
class RoundResult:
    """Exact round figures of one bet mode.

    Attributes
    ----------
    game : Game
    mode : str
    cost : Fraction
        Price of a round, total-bet multiples.
    base : BaseResult or None
        None for a feature buy.
    mean_win : Figure
        Expected round win, total-bet multiples.
    second_moment : Figure
        Expected squared round win.
    rtp : Figure
        ``mean_win / cost``.
    hit_frequency : Figure
        Probability that a round wins anything.
    components : tuple of Component
        RTP split (base lines, base scatter, each feature).
    features : tuple of FeatureFigures
    feature_results : Mapping
        ``(feature, count) -> FeatureResult``.
    methods : Mapping[str, str]
        Figure name -> method used (for the regulator appendix).
    """

    game: Game
    mode: str
    cost: Fraction
    base: BaseResult | None
    mean_win: Figure
    second_moment: Figure
    rtp: Figure
    hit_frequency: Figure
    components: tuple[Component, ...]
    features: tuple[FeatureFigures, ...]
    feature_results: Mapping = field(default_factory=dict)
    methods: Mapping[str, str] = field(default_factory=dict)
    extra: Mapping = field(default_factory=dict)

    @property
    def variance(self) -> Fraction:
        """Variance of the round win per unit staked (exact or bounded centre)."""
        return (self.second_moment.value - self.mean_win.value ** 2) / self.cost**2

    @property
    def variance_figure(self) -> Figure:
        """:attr:`variance` with its error bound (per unit staked).

        The error follows from those of the second moment ``e2`` and the mean
        win ``e1`` (total-bet multiples): ``|Var - v| <= (e2 + 2 |m| e1 +
        e1^2) / cost^2``; labelled exact only where the round is (:attr:`label`).
        """
        err = (self.second_moment.error + 2 * abs(self.mean_win.value) * self.mean_win.error
               + self.mean_win.error**2) / self.cost**2
        return Figure(self.variance, "exact" if self.label == "exact" else "bounded", err)

    @property
    def sd(self) -> float:
        """Standard deviation of the round win per unit staked."""
        return math.sqrt(max(self.variance, 0))

    def volatility_index(self, confidence: int = 90) -> float:
        """``z * sd`` per unit staked (90, 95 or 99 %)."""
        return Z_SCORES[confidence] * self.sd

    @property
    def label(self) -> str:
        return "exact" if self.rtp.label == "exact" else "bounded"


def _combine(figs) -> Figure:
    """Sum of Figures: exact when all are, else bounded with summed errors."""
    v = sum((f.value for f in figs), Fraction(0))
    err = sum((f.error for f in figs), Fraction(0))
    return Figure(v, "exact" if err == 0 and all(f.label == "exact" for f in figs) else "bounded", err)


def _scale(f: Figure, k: Fraction) -> Figure:
    return Figure(f.value * k, f.label, f.error * abs(k))


def _feature(game: Game, name: str, count: int, mode: str, cache: dict, shared: dict | None,
             ws: Workspace) -> FeatureResult:
    key = (name, count)
    if key not in cache:
        skey = (name, count, mode)
        if shared is not None and skey in shared:
            cache[key] = shared[skey]
        else:
            spec = game.features[name]
            cache[key] = feature_solver(spec.engine)(game, name, count, mode, ws=ws)
            if game.cap is not None and game.cap.feature is not None:
                cache[key] = capped_feature(cache[key], Fraction(game.cap.feature), game, ws)
            if shared is not None:
                shared[skey] = cache[key]
    return cache[key]


def capped_feature(fr: FeatureResult, cap: Fraction, game: Game | None = None, ws=None) -> FeatureResult:
    """``fr`` with its win capped at ``cap`` (``[cap] feature``, total-bet multiples).

    Exact: ``min(W, cap)``'s law, mean and second moment from the feature's
    exact, complete law (``fr.distribution``, engine ``pick_bonus``), else
    from its engine's exact law below the cap
    (:func:`analytic.features.result.capped_law_for`: engine ``wald``
    without a retrigger, the i.i.d. sum of its spins).  The loader admits
    ``cap.feature`` only for those.

    Raises
    ------
    ModelError
        ``cap.feature``: no exact law below the cap (a grid longer than the
        capped-law limit).
    """
    from dataclasses import replace

    from analytic.errors import ModelError
    from analytic.features.result import capped_law_for

    if fr.distribution is not None and not fr.distribution_mass_error and fr.mean.label == "exact":
        law: dict = defaultdict(Fraction)
        for x, p in fr.distribution.items():
            law[min(Fraction(x), cap)] += p
        law = dict(law)
    else:
        fn = capped_law_for(game.features[fr.feature].engine) if game is not None else None
        tl = fn(game, fr.feature, fr.count, cap, ws=ws) if fn is not None else None
        if tl is None:
            raise ModelError(game.path if game is not None else "", "cap.feature",
                             f"feature {fr.feature!r}: no exact law of its win below the cap (its engine gives "
                             f"none here, or the grid below the cap is too long): remove cap.feature")
        law = tl.distribution()
    mean = sum((x * p for x, p in law.items()), Fraction(0))
    m2 = sum((x * x * p for x, p in law.items()), Fraction(0))
    return replace(fr, mean=Figure(mean), second_moment=Figure(m2), distribution=dict(sorted(law.items())),
                   distribution_mass_error=Fraction(0),
                   method=fr.method + f"; capped at {cap} x total bet per feature (exact)", law=None)


def solve_round(game: Game, mode: str | None = None, *, feature_cache: dict | None = None,
                plain: bool = False, workspace: Workspace | None = None,
                precision: str | None = None) -> RoundResult:
    """Exact round figures of a bet mode (base spin + features, or a buy).

    Parameters
    ----------
    game : Game
    mode : str, optional
        Bet mode name; default the first.
    feature_cache : dict, optional
        Feature results shared between calls, keyed ``(feature, count, mode)``.
        Only valid while nothing a feature reads changes (the tuner passes one
        when it changes a base reel set that no feature uses).
    plain : bool
        Skip a kind's registered round solver (see
        :func:`analytic.features.result.register_round_solver`) and the win
        cap: the round without a cap or gamble, by the law of total
        expectation alone.
    workspace : Workspace, optional
        The solve's tables and settings for ``game``
        (:class:`analytic.workspace.Workspace`); pass the same one to
        solve several modes of one game without redoing their shared work.
        None: a fresh one (nothing kept from an earlier call).
    precision : {'quick', 'standard', 'certify'}, optional
        Cap precision preset of a fresh workspace (default 'standard'); with
        ``workspace`` it must be None or equal ``workspace.precision``.

    Returns
    -------
    RoundResult
        Unless ``plain``, with the game's ``[cap] total_bet_multiple``
        applied to the round win (by the kind's round solver, else by
        :func:`analytic.solver.cap.apply_round_cap`) and the RTP split
        completed by a ``cap deduction`` row
        (:func:`analytic.solver.cap.add_cap_deduction`).

    Raises
    ------
    UnsupportedMechanicError
        A feature kind without an exact solver.
    UnboundedFeatureError
        A feature that would never end.
    ModelError
        ``cap.total_bet_multiple`` or ``cap.currency``: a cap on a round
        whose win law is neither exact nor certified.
    ValueError
        ``workspace`` belongs to another game, or ``precision`` is unknown
        or contradicts ``workspace.precision``.
    """
    ws = _workspace(game, workspace, precision)
    m = game.modes[mode] if mode else game.default_mode
    if plain:
        return _solve_plain(game, m, feature_cache, ws)
    from analytic.solver.cap import (add_cap_deduction, add_stake_caps, applied_cap, apply_round_cap,
                                     tighten_stake_caps)

    if not feature_cache:  # refusals before the features' long work (a filled cache: checked already)
        check_round(game, m.name, ws)

    delegate = round_solver_for(game)
    if delegate is not None:
        res = _with_distribution_hits(delegate(game, m.name, plain=_solve_plain(game, m, feature_cache, ws), ws=ws))
        own_stake_rows = "currency_cap" in res.extra  # the kind's own per-stake brackets, to tighten below
        if applied_cap(res) is None and res.extra.get("max_win_reading") != "theoretical":
            res = apply_round_cap(res, ws)  # a cap the kind's round solver left alone
        elif applied_cap(res) is not None:
            res = add_stake_caps(res)
        if applied_cap(res) is not None and "uncapped_second_moment" not in res.extra:
            from dataclasses import replace

            res = replace(res, extra={**res.extra, "uncapped_moments_note": (
                "the mean win, second moment, variance, standard deviation and volatility index are those of "
                "the uncapped round win (this kind's round solver caps the RTP only); the capped variance is "
                "at most the uncapped one (min(R, C) is 1-Lipschitz)")})
        if own_stake_rows:
            res = tighten_stake_caps(res)
    else:
        res = apply_round_cap(_solve_plain(game, m, feature_cache, ws), ws)
    return add_cap_deduction(res)


def check_round(game: Game, mode: str, workspace: Workspace | None = None) -> None:
    """Refuse, before any long work, a bet mode that the solve would refuse later.

    Two kinds of refusal are decided here: a feature the mode plays whose
    engine refuses it from the model alone (the engines' play checks,
    :func:`analytic.features.result.register_play_check`; "plays": the mode
    buys it or its base spin starts it), and a win cap on a round whose win
    law is certainly unavailable (:func:`analytic.solver.cap.check_round_cap`).
    The solvers keep their own checks (the safety net).  The command-line
    tools call this for every mode before solving or simulating any.

    Parameters
    ----------
    game : Game
    mode : str
        Bet mode name.
    workspace : Workspace, optional
        The solve's workspace (the checks' tables are kept there).

    Raises
    ------
    ModelError
        With the key path, the reason and what would make the mode solvable.
    """
    from analytic.errors import ModelError
    from analytic.features.result import play_check_for
    from analytic.solver.cap import check_round_cap

    m = game.modes[mode]
    started = None
    for name, f in game.features.items():
        check = play_check_for(f.engine)
        why = check(game, name) if check is not None else None
        if why is None:
            continue
        if m.buys is None:
            if started is None:
                started = {feat for feat, _ in solve_base(game, m.name).trigger_counts}
            if name not in started:
                continue
        elif m.buys != name:
            continue
        raise ModelError(game.path, why[0], f"{why[1]} (bet mode {m.name!r} plays it)")
    check_round_cap(game, mode, workspace)


def _workspace(game: Game, workspace: Workspace | None, precision: str | None) -> Workspace:
    """``workspace`` checked against ``game`` and ``precision``, or a fresh one with ``precision``."""
    if workspace is None:
        return Workspace(game, precision=precision or "standard")
    ws = workspace_for(game, workspace)
    if precision is not None and precision != ws.precision:
        raise ValueError(f"precision {precision!r} differs from the workspace's {ws.precision!r}")
    return ws


def _solve_plain(game: Game, m, feature_cache: dict | None, ws: Workspace) -> RoundResult:
    """The round without a cap or gamble: the law of total expectation over the base spin's classes."""
    cache: dict = {}
    if m.buys is not None:
        return _solve_buy(game, m, cache, feature_cache, ws)
    base = solve_base(game, m.name)
    u = Fraction(1, base.units)
    cyc = base.cycle
    # per class: mean and second moment of the feature win
    s1 = s2 = Fraction(0)
    err1 = err2 = Fraction(0)
    labels_exact = True
    feat_mean: dict[str, Fraction] = {}
    feat_prob: dict[str, Fraction] = {}
    feat_m2: dict[str, Fraction] = {}
    feat_spins: dict[str, Fraction] = {}
    feat_err: dict[str, Fraction] = {}
    feat_m2_err: dict[str, Fraction] = {}
    feat_spins_err: dict[str, Fraction] = {}  # an engine's expected spins may be a certified interval
    methods = {}
    line_bonus = _line_bonus_features(game)
    last: dict = {}  # feature -> (index of its last entry in base.joint, method): the method reported
    for (feat, n, lt), (cnt, w1, w2, wa, at) in _class_sums(base.joint).items():
        # the class's spins: cnt of them, their base wins summing to w1 (squares w2, magnitudes wa) units
        p = Fraction(cnt, cyc)
        mu = m2 = Fraction(0)
        e_mu = e_m2 = Fraction(0)
        parts = []
        if feat is not None:
            fr = _feature(game, feat, n, m.name, cache, feature_cache, ws)
            parts.append((feat, fr, 1))
        if lt:
            for bname in line_bonus:
                fr = _feature(game, bname, 0, m.name, cache, feature_cache, ws)
                parts.append((bname, fr, lt))
        for name, fr, k in parts:
            fm, f2 = fr.mean.value, fr.second_moment.value
            pm = k * fm
            p2 = k * f2 + k * (k - 1) * fm * fm
            m2 += p2 + 2 * mu * pm
            mu += pm
            e_mu += k * fr.mean.error
            e_m2 += k * fr.second_moment.error + 2 * k * k * abs(fm) * fr.mean.error + 2 * abs(mu) * k * fr.mean.error
            labels_exact &= fr.mean.label == "exact" and fr.second_moment.label == "exact"
            feat_prob[name] = feat_prob.get(name, 0) + p
            feat_mean[name] = feat_mean.get(name, 0) + p * pm
            feat_m2[name] = feat_m2.get(name, 0) + p * p2
            feat_spins[name] = feat_spins.get(name, 0) + p * k * fr.expected_spins.value
            feat_spins_err[name] = feat_spins_err.get(name, 0) + p * k * fr.expected_spins.error
            feat_err[name] = feat_err.get(name, 0) + p * k * fr.mean.error
            # p2 = k f2 + k (k - 1) fm^2 from centres: within k e2 + k (k - 1) (2 |fm| e + e^2)
            feat_m2_err[name] = feat_m2_err.get(name, 0) + p * (
                k * fr.second_moment.error + k * (k - 1) * (2 * abs(fm) * fr.mean.error + fr.mean.error ** 2))
            methods[f"feature {name}"] = fr.method
            if at > last.get(name, (-1,))[0]:
                last[name] = (at, fr.method)
        # sum over the class's spins of p_b (b + mu), p_b (b^2 + 2 b mu + m2), p_b e_mu, p_b (e_m2 + 2 |b| e_mu)
        s1 += (w1 * u + cnt * mu) / cyc
        s2 += (w2 * u * u + 2 * w1 * u * mu + cnt * m2) / cyc
        err1 += p * e_mu
        err2 += (cnt * e_m2 + 2 * wa * u * e_mu) / cyc
    for name, (_, method) in last.items():
        methods[f"feature {name}"] = method
    lab = "exact" if labels_exact else "bounded"
    mean = Figure(s1, lab, err1)
    m2fig = Figure(s2, lab, err2)
    comps = [
        Component("base ways wins" if game.ways else "base line wins", Figure(base.line_rtp / m.cost)),
        Component("base scatter pays", Figure(base.scatter_rtp / m.cost)),
    ]
    if base.spin_cap_total:
        comps.append(Component("base spin cap deduction",
                               Figure(Fraction(base.spin_cap_total, base.cycle * base.units) / m.cost)))
    feats = []
    for name in feat_prob:
        fp = feat_prob[name]
        avg = feat_mean[name] / fp
        var = feat_m2[name] / fp - avg * avg
        ea = feat_err[name] / fp
        var_err = feat_m2_err[name] / fp + 2 * abs(avg) * ea + ea * ea
        fl = "exact" if feat_err[name] == 0 else "bounded"
        comps.append(Component(f"feature {name}", Figure(feat_mean[name] / m.cost, fl, feat_err[name] / m.cost)))
        feats.append(
            FeatureFigures(
                name=name,
                frequency=Figure(fp),
                average_win=Figure(avg, fl, feat_err[name] / fp),
                sd=math.sqrt(max(var, 0)),
                expected_spins=_labelled(feat_spins[name] / fp, feat_spins_err[name] / fp),
                rtp=Figure(feat_mean[name] / m.cost, fl, feat_err[name] / m.cost),
                method=methods.get(f"feature {name}", ""),
                variance=_labelled(var, var_err),
            )
        )
    hit = _round_hit_frequency(base, cache, line_bonus)
    methods.update({
        "base game": ("joint ways walk" if game.ways else "joint line walk") + " over the full cycle (exact integer counts)",
        "round moments": "law of total expectation over the base spin's trigger classes",
    })
    return RoundResult(
        game=game, mode=m.name, cost=m.cost, base=base, mean_win=mean, second_moment=m2fig,
        rtp=_scale(mean, 1 / m.cost), hit_frequency=hit, components=tuple(comps), features=tuple(feats),
        feature_results=dict(cache), methods=methods,
    )


def _class_sums(joint: Mapping) -> dict:
    """The base spin's joint table summed over the win within each trigger class.

    Parameters
    ----------
    joint : Mapping
        :attr:`BaseResult.joint`: ``(feature, count, line triggers, win units) -> combinations``.

    Returns
    -------
    dict
        ``(feature, count, line triggers) -> [combinations, sum of c * win, sum of c * win**2,
        sum of c * |win|, index in joint of its last entry]`` (integers: win units, their
        squares), classes in the order of their first entry in ``joint``.
    """
    out: dict = {}
    for i, ((feat, n, lt, win), cnt) in enumerate(joint.items()):
        acc = out.get((feat, n, lt))
        cw = cnt * win
        if acc is None:
            out[(feat, n, lt)] = [cnt, cw, cw * win, abs(cw), i]
        else:
            acc[0] += cnt
            acc[1] += cw
            acc[2] += cw * win
            acc[3] += abs(cw)
            acc[4] = i
    return out


def _with_distribution_hits(res: RoundResult) -> RoundResult:
    """Exact hit frequency from the round's exact win law, when the round
    solver provides one (``extra["distribution"]``: win -> probability)."""
    dist = res.extra.get("distribution") if res.extra else None
    if not dist or sum(dist.values()) != 1:
        return res
    from dataclasses import replace

    return replace(res, hit_frequency=Figure(1 - dist.get(Fraction(0), Fraction(0))))


def _line_bonus_features(game: Game) -> list[str]:
    names = []
    for counts in game.line_triggers.values():
        for f in counts.values():
            if f not in names:
                names.append(f)
    return names


def _round_hit_frequency(base: BaseResult, cache: dict, line_bonus) -> Figure:
    """P(round win > 0): a base win, or a feature whose win is positive.

    A feature contributes ``P(F > 0)`` when its solver reports a distribution;
    otherwise a feature with a positive mean is taken as a win only when its
    distribution shows no zero (left bounded by its mass error).
    """
    won = 0  # combinations whose base spin wins
    rest: dict = {}  # (feature, count, line triggers) -> combinations whose base spin does not win
    for (feat, n, lt, win), cnt in base.joint.items():
        if win > 0:
            won += cnt
        else:
            rest[(feat, n, lt)] = rest.get((feat, n, lt), 0) + cnt
    p = Fraction(won, base.cycle)
    err = Fraction(0)
    for (feat, n, lt), cnt in rest.items():
        q = Fraction(cnt, base.cycle)
        zero = Fraction(1)
        parts = []
        if feat is not None:
            parts.append((cache[(feat, n)], 1))
        for b in line_bonus if lt else ():
            parts.append((cache[(b, 0)], lt))
        if not parts:
            continue
        for fr, k in parts:
            zw = fr.zero_win()
            if zw is None:
                z = Fraction(0) if fr.mean.value > 0 else Fraction(1)
                err += q
            else:
                z, e = zw
                err += q * k * e
            zero *= z**k
        p += q * (1 - zero)
    # p assumed every unknown feature play wins: the truth lies in [p - err, p]
    return _hit_figure(p, err)


def _labelled(value: Fraction, error: Fraction) -> Figure:
    """``value`` exact when ``error`` is 0, else bounded by ``error`` (a figure keeps its engines' label)."""
    return Figure(value) if error == 0 else Figure(value, "bounded", error)


def _hit_figure(upper: Fraction, unknown: Fraction) -> Figure:
    """P(win > 0) known to lie in ``[upper - unknown, upper]``: exact when
    nothing is unknown, else bounded (centre and half width)."""
    if unknown == 0:
        return Figure(upper)
    return Figure(upper - unknown / 2, "bounded", unknown / 2)


def _solve_buy(game: Game, m, cache: dict, shared: dict | None, ws: Workspace) -> RoundResult:
    weights = m.buy_counts
    total = sum(weights.values())
    s1 = s2 = e1 = e2 = spins = spins_err = Fraction(0)
    zero = Fraction(0)
    unknown = Fraction(0)  # mass of counts whose feature gives no P(win = 0)
    exact = True
    for n, w in weights.items():
        if not w:
            continue
        p = Fraction(w, total)
        fr = _feature(game, m.buys, n, m.name, cache, shared, ws)
        s1 += p * fr.mean.value
        s2 += p * fr.second_moment.value
        e1 += p * fr.mean.error
        e2 += p * fr.second_moment.error
        spins += p * fr.expected_spins.value
        spins_err += p * fr.expected_spins.error
        exact &= fr.mean.label == "exact" and fr.second_moment.label == "exact"
        zw = fr.zero_win()
        if zw is None:
            unknown += p
        else:
            zero += p * zw[0]
            unknown += p * zw[1]
    lab = "exact" if exact else "bounded"
    mean = Figure(s1, lab, e1)
    var = s2 - s1 * s1
    rtp = _scale(mean, 1 / m.cost)
    feats = (
        FeatureFigures(m.buys, Figure(Fraction(1)), mean, math.sqrt(max(var, 0)), _labelled(spins, spins_err), rtp,
                       next(iter(cache.values())).method if cache else "",
                       _labelled(var, e2 + 2 * abs(s1) * e1 + e1 * e1)),
    )
    return RoundResult(
        game=game, mode=m.name, cost=m.cost, base=None, mean_win=mean, second_moment=Figure(s2, lab, e2),
        rtp=rtp, hit_frequency=_hit_figure(1 - zero, unknown), components=(Component(f"feature {m.buys}", rtp),),
        features=feats, feature_results=dict(cache),
        methods={"buy": f"bought {m.buys}: trigger count drawn from buy_counts"},
    )


def solve_rounds(game: Game, modes, *, workspace: Workspace | None = None,
                 precision: str | None = None) -> list[RoundResult]:
    """Round figures of the bet modes ``modes`` (names), in that order.

    The modes share one workspace (``workspace``, else a fresh one with the
    cap precision preset ``precision``, default 'standard'; see
    :func:`solve_round`).

    The prefetch registered for the game's feature kind
    (:func:`analytic.features.result.register_round_prefetch`) runs first:
    work the modes share or that can run side by side, done once; it decides
    from the modes whether there is any (Book of Power: the regular cap
    bounds' worker processes, when a mode needs them, beside the work that
    does not wait for them: the Power Free Spins' capped law where a mode
    needs it, as the Power Bet does, and the features' moments and zero-win
    laws).
    Errors: as :func:`solve_round`.
    """
    from analytic.features.result import round_prefetch_for

    ws = _workspace(game, workspace, precision)
    modes = list(modes)
    for m in modes:  # every mode's refusals before any mode's long work
        check_round(game, m or game.default_mode.name, ws)
    prefetch = round_prefetch_for(game)
    if prefetch is not None:  # (names: None is the default mode, as solve_round reads it)
        prefetch(game, [m or game.default_mode.name for m in modes], ws=ws)
    return [solve_round(game, m, workspace=ws) for m in modes]


def solve_game(game: Game, *, workspace: Workspace | None = None,
               precision: str | None = None) -> dict[str, RoundResult]:
    """Round figures of every bet mode, in model order.

    Parameters
    ----------
    game : Game
    workspace : Workspace, optional
        Shared by the modes; None: a fresh one (see :func:`solve_round`).
    precision : {'quick', 'standard', 'certify'}, optional
        Cap precision preset of a fresh workspace (default 'standard').

    Returns
    -------
    dict
        ``mode -> RoundResult``.  Errors: as :func:`solve_round`.
    """
    ws = _workspace(game, workspace, precision)
    return dict(zip(game.modes, solve_rounds(game, list(game.modes), workspace=ws)))
