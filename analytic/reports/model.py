"""The par-sheet data model: every reported figure, held once.

:func:`build_sheet` turns a :class:`~analytic.model.game.Game` and the
solver's round results (:func:`analytic.solver.round.solve_game`) into one
immutable :class:`ParSheet`.  Every renderer (Markdown, JSON, XLSX, PDF,
plots) only *formats* this record; nothing is computed twice, so the formats
cannot disagree.

What is derived here (and nowhere else)
---------------------------------------
* Line wins by symbol and count: a :class:`~analytic.engine.combos.Combination`
  paying ``pay`` line-bet units with ``hits`` (stop combination, payline)
  pairs contributes ``pay * hits / (cycle * total_bet * cost)`` to the RTP
  and occurs on a given spin and line with probability
  ``hits / (cycle * lines)``.
* Where the triggers of several features can be met on one spin
  (:func:`analytic.engine.base_game.simultaneous_triggers`): a row saying on how
  many stop combinations, and which feature starts (rule
  ``simultaneous_triggers``).
* Expected RTP range after ``N`` rounds: ``RTP +- z * sd / sqrt(N)`` (central
  limit theorem; ``sd`` per unit staked, ``z`` from
  :data:`analytic.figures.Z_SCORES`).
* Win distribution by multiple of the total bet, bucketed at
  0, (0,1], (1,2], (2,5], (5,10], ... up to the win cap (or the top win),
  from the round's law (:func:`analytic.solver.distribution.round_law`:
  exact, or certified grid laws for features with unbounded retriggers).
  When a feature's distribution is unknown, the table shows the rounds
  without features exactly and all feature rounds as one row, with their
  probability and RTP share -- nothing is invented.

Units: wins in total-bet multiples; RTP figures per unit staked (``cost``).
"""

from __future__ import annotations

import hashlib
import math
import os
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from analytic import __version__
from analytic.model.game import Game
from analytic.figures import Figure, Z_SCORES
from analytic.solver.distribution import round_law
from analytic.solver.round import RoundResult, solve_game

__all__ = [
    "RANGE_LEVELS",
    "RANGE_ROUNDS",
    "bucket_edges",
    "RuleRow",
    "ModeInfo",
    "ReelSetSheet",
    "PayRow",
    "LineWin",
    "FeatureRow",
    "Bucket",
    "DistributionTable",
    "RangeRow",
    "AppendixRow",
    "ModeSheet",
    "ParSheet",
    "build_sheet",
    "sheet_for_model",
]

#: Confidence levels (percent) of the expected RTP ranges.
RANGE_LEVELS = (90, 95)
#: Rounds played at which the RTP range is tabulated (10^3 .. 10^8).
RANGE_ROUNDS = tuple(10**k for k in range(3, 9))
#: Finer grid (quarter decades) for the confidence-band plot.
_BAND_ROUNDS = tuple(10 ** (3 + i / 4) for i in range(21))


@dataclass(frozen=True)
class RuleRow:
    """A ``[rules]`` switch as modelled: value, default and its documentation."""

    name: str
    value: Any
    default: Any
    doc: str


@dataclass(frozen=True)
class ModeInfo:
    """A bet mode as declared: price and what it plays."""

    name: str
    cost: Fraction
    kind: str  # "spin" or "buy"
    reel_set: str | None
    buys: str | None
    buy_counts: tuple[tuple[int, int], ...]
    description: str


@dataclass(frozen=True)
class ReelSetSheet:
    """Strips of a reel set in full and symbol counts per reel."""

    name: str
    strips: tuple[tuple[str, ...], ...]
    counts: tuple[tuple[str, tuple[int, ...], int], ...]  # (symbol, per reel, total)
    cycle: int


@dataclass(frozen=True)
class PayRow:
    """Paytable row: line pays in line-bet units per count."""

    symbol: str
    role: str
    pays: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class LineWin:
    """Line wins of one (symbol, count, wild multiplier) over the cycle."""

    symbol: str
    count: int
    multiplier: int
    pay: int
    hits: int
    probability: Fraction  # per spin and payline
    rtp: Fraction  # contribution per unit staked


@dataclass(frozen=True)
class FeatureRow:
    """Round figures of one feature in a bet mode."""

    name: str
    frequency: Figure
    one_in: float
    average_win: Figure
    sd: float
    expected_spins: Figure
    rtp: Figure
    method: str


@dataclass(frozen=True)
class Bucket:
    """One row of the win distribution: wins in ``(low, high]`` x total bet.

    ``low == high == 0`` is the no-win row; ``low is None`` marks a row that
    is not a win interval (all feature rounds together).
    """

    label: str
    low: Fraction | None
    high: Fraction | None
    probability: Fraction
    rtp: Fraction  # contribution per unit staked
    share: Fraction  # of the mode's RTP


@dataclass(frozen=True)
class DistributionTable:
    """The bucketed win distribution of a round.

    Attributes
    ----------
    scope : str
        ``"round"`` (exact law of the whole round), ``"base spin only"``
        (rounds without features exactly, feature rounds as one row) or
        ``"none"`` (no distribution available).
    note : str
        What the table covers, in one or two sentences.
    label : str
        ``"exact"`` or ``"bounded"`` (missing probability mass ``mass_error``).
    """

    scope: str
    note: str
    label: str
    mass_error: Fraction
    buckets: tuple[Bucket, ...]


@dataclass(frozen=True)
class RangeRow:
    """Expected RTP range after ``rounds`` rounds: level -> (low, high)."""

    rounds: float
    ranges: tuple[tuple[int, float, float], ...]  # (level, low, high)


@dataclass(frozen=True)
class AppendixRow:
    """A headline figure for the regulator appendix."""

    mode: str
    figure: str
    value: Figure
    method: str


@dataclass(frozen=True)
class ModeSheet:
    """Every figure of one bet mode."""

    info: ModeInfo
    reel_set: str | None
    cycle: int | None
    rtp: Figure
    mean_win: Figure
    second_moment: Figure
    variance: Figure
    components: tuple[tuple[str, Figure], ...]
    line_wins: tuple[LineWin, ...]
    scatter_counts: tuple[tuple[int, int, Fraction], ...]  # (cells, combinations, probability)
    features: tuple[FeatureRow, ...]
    hit_frequency: Figure
    hit_one_in: float
    sd: float
    volatility: tuple[tuple[int, float], ...]  # (confidence, index)
    ranges: tuple[RangeRow, ...]  # decades 10^3..10^8
    bands: tuple[RangeRow, ...]  # quarter decades, for the plot
    distribution: DistributionTable
    top_win: Fraction | None
    top_probability: Fraction | None
    top_note: str
    cap_probability: Fraction | None
    extra: tuple[tuple[str, Any], ...]
    methods: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ParSheet:
    """The whole par sheet of a game (all bet modes)."""

    name: str
    model_file: str
    model_sha256: str
    solver_version: str
    reels: int
    rows: int
    total_bet: int
    lines: tuple[tuple[int, ...], ...]
    meta: tuple[tuple[str, str], ...]
    modes_info: tuple[ModeInfo, ...]
    cap: tuple[tuple[str, str], ...]
    rules: tuple[RuleRow, ...]
    design: tuple[tuple[str, str], ...]
    reel_sets: tuple[ReelSetSheet, ...]
    paytable: tuple[PayRow, ...]
    scatter_pays: tuple[tuple[int, Fraction], ...]
    scatter_symbols: tuple[str, ...]
    line_triggers: tuple[tuple[str, int, str], ...]
    features: tuple[tuple[str, str, str, str], ...]  # (name, kind, engine, trigger text)
    modes: tuple[ModeSheet, ...]
    appendix: tuple[AppendixRow, ...]

    @property
    def stem(self) -> str:
        return os.path.splitext(self.model_file)[0]


# ---------------------------------------------------------------- builders


def _show(v: Any) -> str:
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{k} = {_show(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple, frozenset, set)):
        items = sorted(v) if isinstance(v, (frozenset, set)) else v
        return "[" + ", ".join(_show(x) for x in items) + "]"
    return str(v)


def _sha256(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return ""


def bucket_edges(top: Fraction) -> list[Fraction]:
    """Upper edges 0, 1, 2, 5, 10, 20, 50, ... up to the first >= ``top``."""
    edges = [Fraction(0)]
    k = 0
    while edges[-1] < top or len(edges) == 1:
        for m in (1, 2, 5):
            edges.append(Fraction(m * 10**k))
            if edges[-1] >= top:
                break
        k += 1
    return edges


def _label(lo: Fraction, hi: Fraction) -> str:
    if hi == 0:
        return "0"
    return f"({_show(lo)}, {_show(hi)}]"


def _bucketise(points: Mapping[Fraction, Fraction], top: Fraction, cost: Fraction,
               rtp: Fraction) -> list[Bucket]:
    edges = bucket_edges(top)
    prob = [Fraction(0)] * len(edges)
    mass = [Fraction(0)] * len(edges)
    for w, p in points.items():
        i = 0 if w <= 0 else next(j for j, e in enumerate(edges) if w <= e)
        prob[i] += p
        mass[i] += p * w
    out = []
    for i, hi in enumerate(edges):
        lo = edges[i - 1] if i else Fraction(0)
        r = mass[i] / cost
        out.append(Bucket(_label(lo, hi), lo, hi, prob[i], r, r / rtp if rtp else Fraction(0)))
    return out


def _distribution(r: RoundResult, top_cap: Fraction | None):
    cost = r.cost
    rtp = r.rtp.value
    law = round_law(r)
    pts, err, why = law.points, law.error, law.reason
    if pts is not None:
        top = max((w for w, p in pts.items() if p > 0), default=Fraction(0))
        buckets = _bucketise(pts, max(top, top_cap or 0), cost, rtp)
        has_feat = bool(r.features)
        if law.method == "grid":
            note = ("Law of the whole round (base spin plus features), wins in multiples of the total bet: "
                    "rounds without a feature exactly, feature rounds from the features' certified grid laws "
                    f"(total variation error at most {float(err):.3g}; retriggers are unbounded, so the top "
                    "row ends at the largest win whose probability exceeds 1e-18).")
        else:
            note = ("Exact law of the whole round" + (" (base spin plus features)" if has_feat else "")
                    + ", wins in multiples of the total bet.")
            if err:
                note += f" Probability mass missing from feature distributions: at most {float(err):.3g}."
        lab = "exact" if err == 0 and r.rtp.label == "exact" else "bounded"
        tp = pts.get(top, Fraction(0))
        capp = None
        if top_cap is not None:
            capp = sum((p for w, p in pts.items() if w >= top_cap), Fraction(0))
        if law.method == "grid":  # unbounded retriggers: no finite top win to show
            gap = rtp - sum((bk.rtp for bk in buckets), Fraction(0))
            note += (f" The rows' probabilities and RTP shares are grid figures (floats, not exact fractions); "
                     f"their RTP column adds up to the exact RTP within {abs(float(gap)) * 100:.2g} percentage "
                     "points.")
            return (DistributionTable("round", note, lab, err, tuple(buckets)), None, None,
                    "no finite top win (unbounded retriggers)", capp)
        return (DistributionTable("round", note, lab, err, tuple(buckets)), top, tp,
                "top win of the round (exact law)", capp)
    if r.base is None:
        b = Bucket("bought feature (distribution not available)", None, None, Fraction(1), rtp,
                   Fraction(1) if rtp else Fraction(0))
        note = f"No win distribution: {why}. The bought feature is shown as one row."
        return DistributionTable("none", note, r.rtp.label, Fraction(0), (b,)), None, None, \
            "not available: " + why, None
    base = r.base
    u = Fraction(1, base.units)
    plain: dict = defaultdict(Fraction)
    for (feat, n, lt, win), cnt in base.joint.items():
        if feat is None and not lt:
            plain[win * u] += Fraction(cnt, base.cycle)
    top = max(plain, default=Fraction(0))
    buckets = _bucketise(plain, max(top, top_cap or 0), cost, rtp)
    fp = 1 - sum(plain.values(), Fraction(0))
    frtp = rtp - sum((bk.rtp for bk in buckets), Fraction(0))
    buckets.append(Bucket("rounds with a feature (base spin + feature win)", None, None, fp, frtp,
                          frtp / rtp if rtp else Fraction(0)))
    note = (f"Distribution of the base spin only: {why}, so rounds without a feature are shown exactly "
            "by base-spin win and all rounds with a feature as one row with their probability and "
            "RTP share.")
    bt = base.figures.top_win
    return (DistributionTable("base spin only", note, r.rtp.label, Fraction(0), tuple(buckets)), bt,
            Fraction(base.figures.top_weight, base.cycle), "top base-spin win (features not included)", None)


def _method(r: RoundResult, figure: str) -> str:
    m = r.methods
    if figure.startswith("feature "):
        return m.get(figure, "")
    if figure.startswith("base "):
        return m.get("base game", "")
    if figure.startswith("cap deduction"):
        return m.get("win cap") or m.get("round moments", "")
    return m.get("round moments") or m.get("buy") or "; ".join(m.values())


def _mode_sheet(game: Game, r: RoundResult) -> ModeSheet:
    m = game.modes[r.mode]
    info = _mode_info(m)
    cost = r.cost
    base = r.base
    line_wins: list[LineWin] = []
    scatter_counts = []
    if base is not None:
        nl = len(game.lines)
        for c in base.combinations:
            line_wins.append(LineWin(
                c.symbol, c.count, c.multiplier, c.pay, c.hits, Fraction(c.hits, base.cycle * nl),
                Fraction(c.pay * c.hits, base.cycle * game.total_bet) / cost))
        scatter_counts = [(k, n, Fraction(n, base.cycle)) for k, n in base.scatter_counts.items()]
    feats = tuple(
        FeatureRow(f.name, f.frequency, f.one_in, f.average_win, f.sd, f.expected_spins, f.rtp, f.method)
        for f in r.features
    )
    var_err = (r.second_moment.error + 2 * abs(r.mean_win.value) * r.mean_win.error
               + r.mean_win.error**2) / cost**2
    variance = Figure(r.variance, "exact" if r.label == "exact" else "bounded", var_err)
    sd = r.sd
    rtp = float(r.rtp.value)

    def rows(ns):
        return tuple(RangeRow(n, tuple((lv, rtp - Z_SCORES[lv] * sd / math.sqrt(n),
                                        rtp + Z_SCORES[lv] * sd / math.sqrt(n)) for lv in RANGE_LEVELS))
                     for n in ns)

    cap = game.cap.total_bet_multiple if game.cap else None
    dist, top, top_p, top_note, cap_p = _distribution(r, cap)
    pr = r.extra.get("p_reach_cap")
    if isinstance(pr, Figure):  # the solver's own figure: shown as an exact row only when it is exact
        cap_p = pr.value if pr.label == "exact" else None
    shown = {str(k): v for k, v in r.extra.items() if k != "distribution"}  # the distribution: shown as the table
    if base is not None:
        both = _simultaneous_text(game, base.reel_set, base.cycle, game.modes[base.mode].params.get("wild_reels"))
        if both:
            shown["simultaneous triggers"] = both
    extra = tuple(sorted(shown.items()))
    hf = float(r.hit_frequency.value)
    return ModeSheet(
        info=info, reel_set=base.reel_set if base else None, cycle=base.cycle if base else None,
        rtp=r.rtp, mean_win=r.mean_win, second_moment=r.second_moment, variance=variance,
        components=tuple((c.name, c.rtp) for c in r.components), line_wins=tuple(line_wins),
        scatter_counts=tuple(scatter_counts), features=feats, hit_frequency=r.hit_frequency,
        hit_one_in=1 / hf if hf else math.inf, sd=sd,
        volatility=tuple((c, r.volatility_index(c)) for c in (90, 95, 99)),
        ranges=rows(RANGE_ROUNDS), bands=rows(_BAND_ROUNDS), distribution=dist,
        top_win=top, top_probability=top_p, top_note=top_note, cap_probability=cap_p, extra=extra,
        methods=tuple(sorted(r.methods.items())),
    )


def _simultaneous_text(game: Game, reel_set: str, cycle: int, wild_reels=None) -> str:
    """What happens where the triggers of several features are met on one spin ("" if that cannot happen)."""
    from analytic.engine.base_game import simultaneous_triggers

    rule = game.rules.get("simultaneous_triggers", "first_declared_starts")
    order = list(game.features)
    out = []
    for met, n in simultaneous_triggers(game, reel_set, wild_reels).items():
        first = min(met, key=lambda f: (not game.features[f].trigger.requires, order.index(f)))
        out.append(f"{n:,} of {cycle:,} stop combinations (1 in {cycle / n:,.1f}) meet the triggers of "
                   f"{' and '.join(met)}: only {first} starts (rule simultaneous_triggers = {rule})")
    return "; ".join(out)


def _mode_info(m) -> ModeInfo:
    return ModeInfo(m.name, m.cost, "buy" if m.buys else "spin", m.reel_set, m.buys,
                    tuple(sorted(m.buy_counts.items())), str(m.params.get("description", "")))


def _appendix(sheet_modes: list[ModeSheet], results: Mapping[str, RoundResult]) -> tuple[AppendixRow, ...]:
    out = []
    for ms in sheet_modes:
        r = results[ms.info.name]
        n = ms.info.name
        out.append(AppendixRow(n, "RTP", ms.rtp, _method(r, "rtp")))
        out.append(AppendixRow(n, "mean round win (x total bet)", ms.mean_win, _method(r, "rtp")))
        out.append(AppendixRow(n, "second moment of round win", ms.second_moment, _method(r, "rtp")))
        out.append(AppendixRow(n, "variance per unit staked", ms.variance, _method(r, "rtp")))
        out.append(AppendixRow(n, "hit frequency", ms.hit_frequency, _method(r, "rtp")))
        for name, f in ms.components:
            out.append(AppendixRow(n, f"RTP: {name}", f, _method(r, name)))
        for f in ms.features:
            meth = _method(r, f"feature {f.name}") or f.method
            out.append(AppendixRow(n, f"feature {f.name}: frequency", f.frequency, meth))
            out.append(AppendixRow(n, f"feature {f.name}: average win", f.average_win, meth))
        if ms.top_win is not None and ms.top_probability is not None:
            out.append(AppendixRow(n, f"{ms.top_note}: probability", Figure(ms.top_probability),
                                   "from the distribution above"))
    return tuple(out)


def build_sheet(game: Game, results: Mapping[str, RoundResult] | None = None) -> ParSheet:
    """The par-sheet data model of ``game``.

    Parameters
    ----------
    game : Game
    results : mapping, optional
        ``mode -> RoundResult`` as from :func:`~analytic.solver.round.solve_game`
        (solved here when omitted).

    Returns
    -------
    ParSheet
    """
    from analytic.model.kinds import RULES  # the catalogue registers kinds on import

    if results is None:
        results = solve_game(game)
    rules = tuple(
        RuleRow(k, v, RULES[k].default if k in RULES else None, RULES[k].doc if k in RULES else "")
        for k, v in sorted(game.rules.items())
    )
    reel_sets = []
    for name, strips in game.reel_sets.items():
        counts = []
        for s in game.symbol_names:
            per = tuple(strip.count(s) for strip in strips)
            if any(per):
                counts.append((s, per, sum(per)))
        reel_sets.append(ReelSetSheet(name, strips, tuple(counts), game.cycle(name)))
    paytable = tuple(
        PayRow(s, game.symbol(s).role, tuple(sorted(p.items())))
        for s, p in game.paytable.items() if s not in game.line_triggers
    )
    cap = []
    if game.cap:
        if game.cap.total_bet_multiple is not None:
            cap.append(("total bet multiple", _show(game.cap.total_bet_multiple)))
        if game.cap.currency is not None:
            cap.append(("currency", f"{_show(game.cap.currency)} {game.cap.currency_name}".strip()))
            if game.cap.stakes:
                cap.append(("stakes", _show(game.cap.stakes)))
        if game.cap.spin is not None:
            cap.append(("per base spin (total bet multiple)", _show(game.cap.spin)))
        if game.cap.feature is not None:
            cap.append(("per feature (total bet multiple)", _show(game.cap.feature)))
    feats = []
    for f in game.features.values():
        t = f.trigger
        trig = (f"{min(t.counts)}+ of {_show(t.symbols)} anywhere; awards {_show(dict(t.counts))}"
                + (f"; requires {_show(t.requires)}" if t.requires else "")) if t else "bought or line-triggered"
        feats.append((f.name, f.kind, f.engine, trig))
    modes = [_mode_sheet(game, results[name]) for name in game.modes if name in results]
    return ParSheet(
        name=game.name,
        model_file=os.path.basename(game.path),
        model_sha256=_sha256(game.path),
        solver_version=__version__,
        reels=game.reels,
        rows=game.rows,
        total_bet=game.total_bet,
        lines=tuple(tuple(l) for l in game.lines),
        meta=tuple((str(k), _show(v)) for k, v in game.meta.items()),
        modes_info=tuple(_mode_info(m) for m in game.modes.values()),
        cap=tuple(cap),
        rules=rules,
        design=tuple(game.design.items()),
        reel_sets=tuple(reel_sets),
        paytable=paytable,
        scatter_pays=tuple(sorted(game.scatter.pays.items())) if game.scatter else (),
        scatter_symbols=tuple(sorted(game.scatter.symbols)) if game.scatter else (),
        line_triggers=tuple((s, n, f) for s, c in game.line_triggers.items() for n, f in sorted(c.items())),
        features=tuple(feats),
        modes=tuple(modes),
        appendix=_appendix(modes, results),
    )


def sheet_for_model(path: str) -> ParSheet:
    """Load the model file at ``path``, solve every bet mode, build the sheet."""
    from analytic.model.loader import load_model

    return build_sheet(load_model(path))
