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
  :data:`analytic.figures.Z_SCORES`), labelled approximate; a low end below
  0 is truncated at 0 (a return cannot be negative) and marked.  The exact
  law of ``N`` rounds is not computed.
* Volatility index ``z * sd``; the 90 % index's ``z`` is the quantile or a
  test lab's rounding (``vi_z``: 1.645 or 1.65), printed in the sheet.
* Features as declared (:class:`FeatureInfo`, from
  :attr:`analytic.model.game.FeatureSpec.declared`), and the rules that apply
  to the game (:func:`_rule_applies`).
* Free games (:class:`FreeGameSheet`): the combination table of a free spin
  on the feature's reel set (:func:`analytic.engine.combos.combination_table`,
  before the feature's own rules) and the exact retrigger probability per
  free spin: the law of the retrigger symbols' count in a window, per-reel
  window counts convolved over the reels (cells as landed, or reels under
  rule ``revealed_retrigger_count = "reels"``).
* Win distribution by multiple of the total bet, bucketed at
  0, (0,1], (1,2], (2,5], (5,10], ... up to the win cap (or the top win),
  from the round's law (:func:`analytic.solver.distribution.round_law`:
  exact, or certified grid laws for features with unbounded retriggers).
  When a feature's distribution is unknown, the table shows the rounds
  without features exactly and all feature rounds as one row, with their
  probability and RTP share -- nothing is invented.
* Exceedance ladder (:func:`analytic.solver.exceedance.exceedance`):
  ``P(round win >= x)`` for x = 1, 2, 5, ..., 10000 x total bet and the
  win cap, exact fractions from an exact law or certified bounds (the gap
  stated), and the maximum win with its probability where the law
  certifies it.  A mode whose round has no law but whose solver bounds
  ``P(R >= x)`` at any threshold (``extra["round_tail"]``) gets an interval
  ladder (:func:`analytic.solver.exceedance.interval_exceedance`: rows with
  certified low and high ends, label ``bounded``, the table's gap stated);
  any other mode without a law gets no ladder, only the reason
  (``exceedance_note``).

* Sessions (:class:`SessionSection`, docs/sessions.md): per bet mode with a
  round law, the balance after 100, 1,000 and 10,000 rounds from 100 bets
  (a feature-buy mode: 100 and 1,000 buys from 100 buys' price)
  with no stop but ruin (mean, quantiles, P(ending above the start)), the
  risk of ruin within those horizons, and, for a game whose rules offer
  autoplay stop options (``[autoplay] stops``), the probability of each stop
  of the default autoplay setting
  (:func:`analytic.solver.session.summary_results`); a mode without a round
  law says why in one line.

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
from analytic.figures import Figure, Z_SCORES, fraction_text, int_text, published_split
from analytic.reports.format import bound_text
from analytic.solver.distribution import round_law
from analytic.solver.exceedance import Exceedance, exceedance, interval_exceedance
from analytic.solver.round import RoundResult, solve_game

__all__ = [
    "row_errors",
    "RANGE_LEVELS",
    "RANGE_ROUNDS",
    "PARTLY_CERTIFIED",
    "RANGE_NOTE",
    "VI_Z",
    "vi_convention",
    "bucket_edges",
    "RuleRow",
    "ModeInfo",
    "ReelSetSheet",
    "PayRow",
    "LineWin",
    "FeatureRow",
    "FeatureInfo",
    "FreeGameSheet",
    "SpinsRow",
    "SpinsPlayedTable",
    "Bucket",
    "DistributionTable",
    "RangeRow",
    "AppendixRow",
    "SessionHorizon",
    "AutoplayTable",
    "SessionSection",
    "SESSION_SHOWN",
    "ModeSheet",
    "ParSheet",
    "build_sheet",
    "sheet_for_model",
]

#: Confidence levels (percent) of the expected RTP ranges.
RANGE_LEVELS = (90, 95)
#: Rounds played at which the RTP range is tabulated (10^3 .. 10^8).
RANGE_ROUNDS = tuple(10**k for k in range(3, 9))
#: The z values a test lab may use for the 90 % volatility index (``--vi-z``).
VI_Z = (1.645, 1.65)
#: The note under every expected-RTP-range table.
RANGE_NOTE = ("Normal approximation RTP ± z·sd/sqrt(N) (approximate: the exact law of N rounds is not "
              "computed). A return cannot go below 0 (a player cannot lose more than staked): a low end "
              "below 0 is printed as 0.00% and marked *, where the approximation is poor.")


def vi_convention(vi_z: float | None) -> str:
    """The sentence printed for the volatility-index convention."""
    if vi_z is None:
        return (f"z · sd per unit staked; 90%: z = {Z_SCORES[90]:.7f} (the two-sided normal quantile), "
                f"95%: {Z_SCORES[95]:.4f}, 99%: {Z_SCORES[99]:.4f}")
    return (f"z · sd per unit staked; 90%: z = {vi_z:g} (rounded, --vi-z {vi_z:g}), "
            f"95%: {Z_SCORES[95]:.4f}, 99%: {Z_SCORES[99]:.4f}")


#: The note under a certified expected-RTP-range table (N-round law).
CERTIFIED_RANGE_NOTE = (
    "From the law of the total win of N rounds (the N-fold convolution of the round law, "
    "analytic.solver.nround): each end of the central range is a quantile of the RTP over N rounds, "
    "certified to lie in an interval (both intervals in the JSON and XLSX par sheets). The Markdown and "
    "PDF sheets print each range from the lower quantile's certified lower bound, rounded down, to the "
    "upper quantile's certified upper bound, rounded up: it contains the true central range, and is "
    "wider by at most the two quantiles' intervals and the rounding. The intervals hold the grid rebinning bound (Azuma-Hoeffding, "
    "probability 1e-9), the mass dropped outside the windows, float and round-law errors. A return is "
    "never below 0.")
#: Grid for the confidence-band plot: 10^k, 2 10^k, 4 10^k, 8 10^k (the N-round law's doublings).
_BAND_ROUNDS = tuple(sorted({c * 10**k for k in range(3, 8) for c in (1, 2, 4, 8)} | {10**8}))


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
    wild: str = ""  # a wild's multiplier, expansion and restricted substitution, where not the defaults

    @property
    def role_text(self) -> str:
        """The role, with a wild's non-default properties (``wild (x2, expands)``)."""
        return f"{self.role} ({self.wild})" if self.wild else self.role


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
    #: The feature win's variance (given it started): ``sd`` is its centre's square root; bounded
    #: where the feature's figures are (the text sheets print the sd as the certified interval of
    #: its square roots, :func:`~analytic.reports.format.sd_text`).  None where not computed.
    variance: Figure | None = None


@dataclass(frozen=True)
class FeatureInfo:
    """A feature as declared: trigger, reel set and every declared mechanic parameter.

    Attributes
    ----------
    parameters : tuple of (str, str)
        ``(parameter, text)`` rows in file order: the trigger, the reel set,
        then each declared mechanic key (multiplier, retrigger, scatter pays,
        wild reels, gifts, expanding symbol, ladder, golden reels, ...).
    declared : tuple of (str, Any)
        The validated mechanic keys themselves (model key -> value), for the
        JSON par sheet.
    """

    name: str
    kind: str
    engine: str
    reel_set: str | None
    trigger: str
    mechanics: tuple[str, ...]
    parameters: tuple[tuple[str, str], ...]
    declared: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class FreeGameSheet:
    """Exact figures of one free spin of a feature, on its reel set, before the feature's modifiers.

    Attributes
    ----------
    line_wins : tuple of LineWin
        The free reel set's line wins by symbol and count (the base game's
        combination table on these strips): ``probability`` per free spin and
        payline, ``rtp`` the return per free spin in total-bet multiples, as
        the paytable pays them (before an expanding symbol, wild reels,
        multipliers or gifts of the feature).
    retrigger_probability : Fraction or None
        Probability that one free spin awards spins (exact), None where the
        report does not give it (``retrigger_note`` says why).
    retrigger_awards : tuple of (int, Fraction)
        ``(spins awarded, probability per free spin)`` of the awarding spins.
    """

    feature: str
    reel_set: str
    cycle: int
    line_wins: tuple[LineWin, ...]
    retrigger_probability: Fraction | None
    retrigger_awards: tuple[tuple[int, Fraction], ...]
    retrigger_note: str


@dataclass(frozen=True)
class SpinsRow:
    """One row of a spins-played table: ``low <= N <= high`` spins (``high`` None: more than ``low - 1``).

    ``probability`` exact; ``cumulative`` is ``P(N <= high)`` (1 on the last row).
    """

    label: str
    low: int
    high: int | None
    probability: Fraction
    cumulative: Fraction

    @property
    def one_in(self) -> float:
        p = float(self.probability)
        return 1 / p if p else math.inf


@dataclass(frozen=True)
class SpinsPlayedTable:
    """The law of the number of free spins played in one feature of a bet mode, exactly.

    Mixed over the trigger counts of the mode's base game (or the buy's
    counts) with the probabilities with which the mode starts the feature
    with each, so its mean is the features table's "expected spins".

    Attributes
    ----------
    rows : tuple of SpinsRow
        Single spin counts first, then ranges (:data:`SPINS_SINGLE_ROWS`),
        then the exact tail beyond the computed rows (if any).
    expected : Fraction
        ``E[N]``, exact.
    p_retrigger : Fraction
        ``P(at least one spin awards spins)``, exact.
    retriggers : tuple of SpinsRow
        The law of the number of spins that award spins (the same layout).
    starts : tuple of (int, Fraction)
        ``(trigger count, probability given the feature starts)``.
    note, method : str
    """

    feature: str
    rows: tuple[SpinsRow, ...]
    expected: Fraction
    p_retrigger: Fraction
    retriggers: tuple[SpinsRow, ...]
    starts: tuple[tuple[int, Fraction], ...]
    note: str
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
    rtp_error : Fraction
        The certified error of the mode's RTP where it is bounded (0 when
        exact): the rows' RTP shares divide by that RTP's centre, and the
        row "rounds with a feature" (or the bought feature's one row) has
        that RTP less the exact rows' as its RTP, so both carry it.
    """

    scope: str
    note: str
    label: str
    mass_error: Fraction
    buckets: tuple[Bucket, ...]
    rtp_error: Fraction = Fraction(0)


def row_errors(table: DistributionTable, cost) -> list[tuple[Fraction, Fraction, Fraction | None]]:
    """Certified errors ``(probability, RTP, share)`` of each row of ``table`` (0 where exact); the
    share's error None for a row whose share cannot be certified (an RTP not certified away from 0:
    the row's probability and RTP keep their errors).

    A law within total variation ``e = table.mass_error`` of the round's (a grid law): a row's
    probability within ``e``; its RTP, ``E[W 1{lo < W <= hi}] / cost`` of a function between 0
    and ``hi``, within ``e hi / cost`` (total variation bounds the difference of the means of a
    function with values in ``[0, M]`` by ``M e``).  An exact law whose RTP is bounded (``eR =
    table.rtp_error``: the feature rounds' row, or a bought feature's one row, is the RTP's
    centre less the exact rows', so within ``eR``): the probabilities exact.  A share ``a / v``
    of the RTP's centre ``v`` (within ``eR``) of a row RTP ``a`` within ``ea`` is within ``ea /
    (v - eR) + |a| eR / (v (v - eR))`` of ``a / t`` for any true RTP ``|t - v| <= eR``; a share of
    1 (the only row) is exact.
    """
    e, eR = Fraction(table.mass_error), Fraction(table.rtp_error)
    bs = table.buckets
    if e > 0:
        tot = sum((b.share for b in bs), Fraction(0))
        v = sum((b.rtp for b in bs), Fraction(0)) / tot if tot else Fraction(0)
    else:
        v = sum((b.rtp for b in bs), Fraction(0))
    out = []
    for b in bs:
        if e > 0:
            pe, ea = e, e * Fraction(b.high or 0) / Fraction(cost)
        else:
            pe, ea = Fraction(0), (eR if b.low is None else Fraction(0))
        if not (ea or eR) or (e == 0 and len(bs) == 1 and b.share == 1):
            out.append((pe, ea, Fraction(0)))
        elif v > eR:
            out.append((pe, ea, ea / (v - eR) + abs(Fraction(b.rtp)) * eR / (v * (v - eR))))
        else:
            out.append((pe, ea, None))
    return out


@dataclass(frozen=True)
class RangeRow:
    """Expected RTP range after ``rounds`` rounds: level -> (low, high).

    Each level's range is certified from the N-round law where the law certifies
    that level at ``rounds`` (its quantiles in ``quantiles``), else the normal
    approximation ``RTP +- z * sd / sqrt(N)`` (approximate); an approximate low
    end below 0 is printed as 0 (a return cannot be negative: a player cannot
    lose more than staked) and its level is in ``truncated``.
    """

    rounds: float
    ranges: tuple[tuple[int, float, float], ...]  # (level, low, high)
    truncated: tuple[int, ...] = ()
    #: "approximate" (normal) or "certified" (from the N-round law: ``low`` is the certified lower
    #: bound of the lower quantile, ``high`` the upper bound of the upper quantile), or
    #: :data:`PARTLY_CERTIFIED`: the levels in ``quantiles`` certified, the others approximate
    #: (:meth:`level_label`).
    label: str = "approximate"
    #: The certified levels: (level, low_lo, low_hi, high_lo, high_hi), each quantile's interval (RTP).
    quantiles: tuple = ()

    def level_label(self, level: int) -> str:
        """``"certified"`` where ``level``'s range is from the N-round law (it is in ``quantiles``),
        else ``"approximate"`` (the normal approximation)."""
        return "certified" if any(q[0] == level for q in self.quantiles) else "approximate"


#: :attr:`RangeRow.label` of a row certified at some of its levels only (the others approximate).
PARTLY_CERTIFIED = "partly certified"


@dataclass(frozen=True)
class AppendixRow:
    """A headline figure for the regulator appendix."""

    mode: str
    figure: str
    value: Figure
    method: str


#: Quantile levels of the session tables in the Markdown and PDF sheets (all levels of
#: :data:`analytic.solver.session.QUANTILES` are in the JSON and XLSX sheets).
SESSION_SHOWN = (Fraction(5, 100), Fraction(25, 100), Fraction(1, 2), Fraction(75, 100), Fraction(95, 100))


@dataclass(frozen=True)
class SessionHorizon:
    """A session of ``rounds`` rounds from the start, no stop but ruin.

    Attributes
    ----------
    rounds : int
    method : str
        ``"exact"``, ``"certified"`` or ``"bounded"`` (a bracket: two chains, or the coarse grid of a long
        session, docs/sessions.md).
    error : Fraction
        Total-variation bound of the session's law (0: exact); every
        probability below is within it.
    balance_mean : Figure
        Mean final balance (the section's unit).
    quantiles : tuple of (Fraction, Fraction, Fraction)
        ``(level, low, high)``: the final balance's quantile at ``level`` (the
        smallest ``x`` with ``P(B <= x) >= level``) lies in ``[low, high]``
        (``low == high``: determined).
    p_above_start : Figure
        ``P(final balance > start)``.
    ruin : Figure
        ``P(the balance falls below one bet within rounds)``.
    rounds_to_ruin : Figure or None
        Mean rounds played by the sessions ruined (None: ruin impossible).
    """

    rounds: int
    method: str
    error: Fraction
    balance_mean: Figure
    quantiles: tuple[tuple[Fraction, Fraction, Fraction], ...]
    p_above_start: Figure
    ruin: Figure
    rounds_to_ruin: Figure | None


@dataclass(frozen=True)
class AutoplayTable:
    """The default autoplay setting's session: which stop ends it.

    Attributes
    ----------
    setting : tuple of (str, str)
        ``(stop, value)`` rows of the setting (the section's unit).
    reasons : tuple of (str, Figure)
        Probability that each rule in force ends the session (they add up to 1).
    rounds_mean : Figure
    rounds_quantiles : tuple of (Fraction, int, int)
        ``(level, low, high)`` of the rounds played.
    balance_mean : Figure
    p_above_start : Figure
    method : str
    error : Fraction
    """

    setting: tuple[tuple[str, str], ...]
    reasons: tuple[tuple[str, Figure], ...]
    rounds_mean: Figure
    rounds_quantiles: tuple[tuple[Fraction, int, int], ...]
    balance_mean: Figure
    p_above_start: Figure
    method: str
    error: Fraction


@dataclass(frozen=True)
class SessionSection:
    """Sessions of one bet mode (docs/sessions.md, "The par sheet's session section").

    Attributes
    ----------
    start : Fraction
        Starting balance (``unit``).
    bet : Fraction
        Total bet of every round (``unit``).
    unit : str
    note : str
        What the figures are and how they are obtained.
    refused : str
        Non-empty: why the mode has no session figures (one line); the
        other fields are then empty.
    horizons : tuple of SessionHorizon
    curve : tuple of (int, tuple, float)
        ``(rounds, quantiles as in SessionHorizon, P(ruin within rounds))`` at
        :data:`analytic.solver.session.CURVE_ROUNDS` (the plots).
    autoplay : AutoplayTable or None
    autoplay_note : str
        Why there is no autoplay table, or what it is.
    """

    start: Fraction
    bet: Fraction
    unit: str
    note: str
    refused: str = ""
    horizons: tuple[SessionHorizon, ...] = ()
    curve: tuple = ()
    autoplay: AutoplayTable | None = None
    autoplay_note: str = ""


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
    session: SessionSection | None = None
    exceedance: Exceedance | None = None  # P(R >= x) on the ladder, from the round's law
    exceedance_note: str = ""  # what the ladder is, or why there is none
    ranges_note: str = RANGE_NOTE  # how the RTP ranges were obtained (certified or the normal approximation)
    spins_played: tuple[SpinsPlayedTable, ...] = ()  # per feature with spins


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
    features: tuple[FeatureInfo, ...]
    modes: tuple[ModeSheet, ...]
    appendix: tuple[AppendixRow, ...]
    ways: str = ""  # "ways" / "ways, pays both ways" / "paylines, pays both ways"; empty for one-way paylines
    free_games: tuple[FreeGameSheet, ...] = ()
    volatility_z: float = Z_SCORES[90]
    volatility_convention: str = ""

    @property
    def stem(self) -> str:
        return os.path.splitext(self.model_file)[0]


# ---------------------------------------------------------------- builders


def _amount(v) -> str:
    """An amount of money or bets in a sentence: whole numbers with thousands separators (13,100), else
    as :func:`_show`."""
    v = Fraction(v)
    return f"{v.numerator:,}" if v.denominator == 1 else _show(v)


def _show(v: Any) -> str:
    if isinstance(v, Fraction):
        return int_text(v.numerator) if v.denominator == 1 else fraction_text(v)
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


def grid_gap_text(gap: Fraction) -> str:
    """How far a grid law's RTP column (the rows' RTP shares, floats) is from the exact RTP.

    Parameters
    ----------
    gap : Fraction
        The exact RTP less the sum of the rows' RTPs (per unit staked).

    Returns
    -------
    str
        "adds up ... exactly" for a gap of 0 (it read "within 0 percentage points"), else the gap's
        bound in percentage points, rounded up to 2 significant digits.
    """
    if gap == 0:
        return "their RTP column adds up to the exact RTP exactly."
    return f"their RTP column adds up to the exact RTP within {bound_text(abs(gap) * 100, digits=2)} percentage points."


def _distribution(r: RoundResult, top_cap: Fraction | None, law=None):
    cost = r.cost
    rtp = r.rtp.value
    law = round_law(r) if law is None else law
    pts, err, why = law.points, law.error, law.reason
    if pts is not None:
        top = max((w for w, p in pts.items() if p > 0), default=Fraction(0))
        buckets = _bucketise(pts, max(top, top_cap or 0), cost, rtp)
        has_feat = bool(r.features)
        own = r.extra.get("certified_law") if r.extra else None
        if own is not None:
            note = (f"Law of the whole round, wins in multiples of the total bet, certified by the round solver: "
                    f"{own['method']} (total variation error at most {bound_text(err)}).")
        elif law.method == "grid":
            note = ("Law of the whole round (base spin plus features), wins in multiples of the total bet: "
                    "rounds without a feature exactly, feature rounds from the features' certified grid laws "
                    f"(total variation error at most {bound_text(err)}; grid entries of probability 1e-18 or less "
                    "are left out, so the top row ends at the largest win more likely than that).")
        else:
            note = ("Exact law of the whole round" + (" (base spin plus features)" if has_feat else "")
                    + ", wins in multiples of the total bet.")
            if err:
                note += f" Probability mass missing from feature distributions: at most {bound_text(err)}."
        lab = "exact" if err == 0 and r.rtp.label == "exact" else "bounded"
        tp = pts.get(top, Fraction(0))
        capp = None
        if top_cap is not None:
            capp = sum((p for w, p in pts.items() if w >= top_cap), Fraction(0))
        if law.method == "grid":  # unbounded retriggers: no finite top win to show
            gap = rtp - sum((bk.rtp for bk in buckets), Fraction(0))
            note += (" The rows' probabilities and RTP shares are grid figures (floats, not exact fractions); "
                     + grid_gap_text(gap))
            return (DistributionTable("round", note, lab, err, tuple(buckets), r.rtp.error), None, None,
                    "no top win from a grid law (see the exceedance ladder's maximum win)" if own is not None
                    else "no finite top win (unbounded retriggers)", capp)
        return (DistributionTable("round", note, lab, err, tuple(buckets), r.rtp.error), top, tp,
                "top win of the round (exact law)", capp)
    if r.base is None:
        b = Bucket("bought feature (distribution not available)", None, None, Fraction(1), rtp,
                   Fraction(1) if rtp else Fraction(0))
        note = f"No win distribution: {why}. The bought feature is shown as one row."
        return DistributionTable("none", note, r.rtp.label, Fraction(0), (b,), r.rtp.error), None, None, \
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
    return (DistributionTable("base spin only", note, r.rtp.label, Fraction(0), tuple(buckets), r.rtp.error), bt,
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


def _mode_sheet(game: Game, r: RoundResult, vi_z: float | None = None, session=True) -> ModeSheet:
    m = game.modes[r.mode]
    info = _mode_info(m)
    cost = r.cost
    base = r.base
    line_wins: list[LineWin] = []
    scatter_counts = []
    if base is not None:
        nl = len(game.lines) or 1  # a ways game: hits per stop combination (every way counted)
        for c in base.combinations:
            line_wins.append(LineWin(
                c.symbol, c.count, c.multiplier, c.pay, c.hits, Fraction(c.hits, base.cycle * nl),
                Fraction(c.pay * c.hits, base.cycle * game.total_bet) / cost))
        if game.scatter is not None:  # no scatter pays: no "0 cells on every spin" table
            scatter_counts = [(k, n, Fraction(n, base.cycle)) for k, n in base.scatter_counts.items()]
    feats = tuple(
        FeatureRow(f.name, f.frequency, f.one_in, f.average_win,
                   f.sd if f.average_win.label == "exact" else float(f"{f.sd:.12g}"), f.expected_spins, f.rtp,
                   f.method, f.variance)
        for f in r.features
    )
    variance = r.variance_figure
    # a bounded variance's sd (and volatility) from its published centre, to 12 digits: the computed
    # centre's last bits depend on the machine (Figure.published)
    sd = r.sd if variance.label == "exact" else float(f"{math.sqrt(max(float(variance.published().value), 0)):.12g}")
    rtp = float(r.rtp.published().value)

    cap = game.cap.total_bet_multiple if game.cap else None
    law = round_law(r)
    certified = {}
    if law.points is not None:
        from analytic.solver.nround import n_round_quantiles

        certified = n_round_quantiles(law.points, law.error, cost, set(RANGE_ROUNDS) | set(_BAND_ROUNDS),
                                      RANGE_LEVELS)

    def rows(ns):
        """Per N, each level's range: certified where the N-round law certifies it at that N, else the
        normal approximation (a level that cannot be certified leaves the others certified)."""
        out = []
        for n in ns:
            b = certified.get(n)
            qs = {q[0]: q for q in b.ranges} if b is not None else {}
            half = {lv: Z_SCORES[lv] * sd / math.sqrt(n) for lv in RANGE_LEVELS}
            ranges = tuple((lv, qs[lv][1], qs[lv][4]) if lv in qs else (lv, max(0.0, rtp - half[lv]), rtp + half[lv])
                           for lv in RANGE_LEVELS)
            label = ("certified" if len(qs) == len(RANGE_LEVELS) else PARTLY_CERTIFIED if qs else "approximate")
            out.append(RangeRow(n, ranges, tuple(lv for lv in RANGE_LEVELS if lv not in qs and rtp - half[lv] < 0),
                                label, tuple(qs[lv] for lv in RANGE_LEVELS if lv in qs)))
        return tuple(out)

    ranges, bands = rows(RANGE_ROUNDS), rows(_BAND_ROUNDS)
    done = [x.rounds for x in ranges if x.label == "certified"]
    if len(done) == len(ranges):
        ranges_note = CERTIFIED_RANGE_NOTE
    elif any(x.label == PARTLY_CERTIFIED for x in ranges):  # some levels certified at some N
        ranges_note = (CERTIFIED_RANGE_NOTE + " Rows or ranges marked (approximate): no certified bound at that "
                       "N, or for that level at that N (the N-round law's certified error grows with N, and a "
                       "wider range's tails are thinner). In such a row an approximate range need not contain "
                       "the certified narrower one: the certified ends are widened by the errors, the "
                       "approximate ones are not. " + RANGE_NOTE)
    elif done:  # certified up to some N: the N-round law's error bound grows with N
        ranges_note = (CERTIFIED_RANGE_NOTE + " Rows marked (approximate): no certified bound at that N (the "
                       "N-round law's certified error grows with N). " + RANGE_NOTE)
    else:
        why = law.reason or "no certified bound at some N"
        ranges_note = f"No certified N-round law for this mode ({why}). " + RANGE_NOTE
    dist, top, top_p, top_note, cap_p = _distribution(r, cap, law)
    ladder, ladder_note = _exceedance(r, law)
    pr = r.extra.get("p_reach_cap")
    if isinstance(pr, Figure):  # the solver's own figure: shown as an exact row only when it is exact
        cap_p = pr.value if pr.label == "exact" else None
    shown = {str(k): v for k, v in r.extra.items()
             if k not in ("distribution", "certified_law", "round_tail")}  # the laws: shown as the tables
    if base is not None:
        both = _simultaneous_text(game, base.reel_set, base.cycle, game.modes[base.mode].params.get("wild_reels"))
        if both:
            shown["simultaneous triggers"] = both
    extra = tuple(sorted(shown.items()))
    hf = float(r.hit_frequency.value)
    return ModeSheet(
        info=info, reel_set=base.reel_set if base else None, cycle=base.cycle if base else None,
        rtp=r.rtp, mean_win=r.mean_win, second_moment=r.second_moment, variance=variance,
        components=published_split(_components(game, r), r.rtp), line_wins=tuple(line_wins),
        scatter_counts=tuple(scatter_counts), features=feats, hit_frequency=r.hit_frequency,
        hit_one_in=1 / hf if hf else math.inf, sd=sd,
        volatility=tuple((c, (vi_z * sd) if (c == 90 and vi_z is not None) else Z_SCORES[c] * sd)
                         for c in (90, 95, 99)),
        ranges=ranges, bands=bands, ranges_note=ranges_note, distribution=dist,
        top_win=top, top_probability=top_p, top_note=top_note, cap_probability=cap_p, extra=extra,
        methods=tuple(sorted(r.methods.items())),
        session=None if session is False else session_section(game, r, None if session is True else session),
        exceedance=ladder, exceedance_note=ladder_note,
        spins_played=_spins_played(game, r),
    )


#: A spins-played table lists this many single spin counts before grouping into doubling ranges.
SPINS_SINGLE_ROWS = 12


def _spin_rows(points, tail: Fraction, top: int) -> tuple[SpinsRow, ...]:
    """Rows of a law on integers (``[(n, p)]`` increasing, exact) and its exact tail beyond ``top``:
    the first :data:`SPINS_SINGLE_ROWS` values one by one, then ranges doubling in width (each
    labelled by its first and last value with positive probability)."""
    rows: list[SpinsRow] = []
    cum = Fraction(0)
    pts = list(points)
    single, rest = pts[:SPINS_SINGLE_ROWS], pts[SPINS_SINGLE_ROWS:]
    for n, p in single:
        cum += p
        rows.append(SpinsRow(str(n), n, n, p, cum))
    lo = single[-1][0] + 1 if single else 0
    width = max(lo // 2, 1)
    i = 0
    while i < len(rest):
        hi = lo + width - 1
        inside = []
        while i < len(rest) and rest[i][0] <= hi:
            inside.append(rest[i])
            i += 1
        if inside:  # labelled by the first and last value with positive probability in the range
            p = sum((x for _, x in inside), Fraction(0))
            a, b = inside[0][0], inside[-1][0]
            cum += p
            rows.append(SpinsRow(str(a) if a == b else f"{a}-{b}", a, b, p, cum))
        lo, width = hi + 1, width * 2
    if tail:
        rows.append(SpinsRow(f"more than {top}", top + 1, None, tail, cum + tail))
    return tuple(rows)


def _spins_played(game: Game, r: RoundResult) -> tuple[SpinsPlayedTable, ...]:
    """Per feature with spins: the exact law of the spins played and the retriggers, mixed over the
    trigger counts with which the mode starts it (read from the solver's feature results)."""
    from analytic.features.laws.spins_played import mix

    starts: dict[str, dict[int, Fraction]] = defaultdict(dict)
    if r.base is not None:
        for (feat, n, _lt, _win), cnt in r.base.joint.items():
            if feat is not None:
                starts[feat][n] = starts[feat].get(n, Fraction(0)) + Fraction(cnt, r.base.cycle)
    else:
        m = game.modes[r.mode]
        tot = sum(m.buy_counts.values())
        for n, w in m.buy_counts.items():
            if w:
                starts[m.buys][n] = Fraction(w, tot)
    out = []
    for f in r.features:
        st = starts.get(f.name)
        if not st:
            continue
        frs = [(p, r.feature_results.get((f.name, n))) for n, p in sorted(st.items())]
        if any(fr is None or fr.spins_law is None for _, fr in frs):
            continue
        tot = sum(p for p, _ in frs)
        law = mix((p, fr.spins_law) for p, fr in frs)
        given = tuple((n, p / tot) for n, p in sorted(st.items()))
        note = (f"Spins played in one {f.name} (its start and every spin awarded), mixed over the "
                + ("bought counts" if r.base is None else "trigger counts of this mode's base game")
                + " (given that it starts: "
                + ", ".join(f"{n} trigger symbols with probability {float(q):.6g}" for n, q in given)
                + "). Exact; the last row, if any, is the exact probability beyond the rows computed.")
        out.append(SpinsPlayedTable(
            f.name, _spin_rows(law.spins, law.tail, law.n_max), law.expected, law.p_retrigger,
            _spin_rows(law.retriggers, law.retrigger_tail, law.r_max), given, note, law.method))
    return tuple(out)


#: Names of the end reasons and stop rules in the sheet.
_STOP_NAMES = {"any win": "on any win", "feature": "if a feature is won", "single win": "if a single win reaches",
               "cash up": "if cash increases by", "cash down": "if cash decreases by", "ruin": "ruin (balance below one bet)",
               "rounds": "rounds played out"}


def _qrows(qs: Mapping) -> tuple:
    out = []
    for lv, v in qs.items():
        lo, hi = v if isinstance(v, tuple) else (v, v)
        out.append((Fraction(lv), Fraction(lo), Fraction(hi)))
    return tuple(out)


def _horizon(n: int, x) -> SessionHorizon:
    return SessionHorizon(n, x.method, Fraction(x.error), x.balance_mean, _qrows(x.balance_quantiles),
                          x.p_above_start, x.ruin, x.rounds_to_ruin)


def session_section(game: Game, r: RoundResult, setting: Mapping | None = None) -> SessionSection:
    """The session section of one bet mode.

    Parameters
    ----------
    game : Game
    r : RoundResult
        The mode's solved round.
    setting : mapping, optional
        Overrides of :data:`analytic.solver.session.DEFAULT_SUMMARY`:
        ``balance`` (start; default 100 bets, in a feature-buy mode 100
        buys' price), ``rounds`` (horizons), ``autoplay``
        (:class:`~analytic.solver.session.SessionRules` keywords; default
        :func:`~analytic.solver.session.default_autoplay` of the game's
        ``[autoplay] stops``).

    Returns
    -------
    SessionSection
        ``refused`` set (one line) when the mode has no round law.
    """
    from analytic.solver.session import DEFAULT_SUMMARY, default_autoplay, summary_results

    setting = dict(setting or {})
    bet = Fraction(DEFAULT_SUMMARY["bet"])
    buy = r.mode in game.modes and game.modes[r.mode].buys is not None
    # a feature buy's session is counted in buys: a start of 100 buys' price
    start = Fraction(setting.get("balance", DEFAULT_SUMMARY["balance"] * (r.cost * bet if buy else 1)))
    rounds = tuple(setting.get("rounds", DEFAULT_SUMMARY["rounds"]))
    if game.cap is not None and game.cap.currency is not None:
        cur = game.cap.currency_name or "currency units"
        unit = f"{cur} (total bet {_show(bet)} {cur} a round, the win cap {_show(game.cap.currency)} {cur} applied)"
    else:
        unit = "total bets"
    auto = setting.get("autoplay", default_autoplay(game.autoplay_stops))
    price = r.cost * bet
    if start < price:
        return SessionSection(start, bet, unit, "", refused=(
            f"No session figures: a start of {_show(start)} does not pay one round of this mode "
            f"(price {_show(price)}); every session would end by ruin before its first round."))
    got = summary_results(game, r.mode, result=r, rounds=rounds, balance=start, autoplay=auto)
    if isinstance(got, str):
        return SessionSection(start, bet, unit, "", refused=f"No session figures: {got}.")
    h0 = got.horizons[min(got.horizons)]
    lab = ("exact (every figure an exact fraction)" if h0.method == "exact" else
           ("bounded: the round has no law, only certified bounds of P(win >= x); the chain is run on two "
            "round laws bracketing it (the win rounded down to a grid with the lower bounds, up with the upper "
            "bounds), so every figure is an interval between the two (value +/- half-width; wide where the "
            "bounds of P(win >= x) are wide), and the plot's risk of ruin is its upper end" if h0.method == "bounded"
            else
           "certified: every probability within the session law's total-variation bound (the table's "
           "error column), a quantile given as the interval it is certified to lie in"))
    short = unit.split(" (")[0]
    cur_txt = "" if unit == "total bets" else f" {short}"
    capped = ("" if unit == "total bets" else
              f" (the win cap of {_show(game.cap.currency)}{cur_txt} applied at that stake)")
    bought = " (100 buys' price)" if buy and "balance" not in setting else ""
    coarse = [n for n in sorted(got.horizons) if "coarse" in got.horizons[n].bracket]
    if coarse:
        c = got.horizons[coarse[0]].bracket["coarse"]
        lab += (f"; {', '.join(f'{n:,}' for n in coarse)} rounds bounded on a coarse grid (not exact): the "
                f"balance on a grid of {float(c['grid']):,.6g}{cur_txt} (the price over "
                f"{int(r.cost * bet / c['grid'])}), each round's win rounded down or up to it at random with its "
                f"mean kept; the rounded walk stays within {float(c['shift']):,.6g}{cur_txt} of the true one over "
                f"all the rounds except with probability {c['fail']:g} (Hoeffding's maximal inequality), so the "
                f"chains started that much below and above the start bracket every figure (value +/- "
                f"half-width)")
    beyond = f" up to it (the coarse grid's two chains of {max(rounds):,} rounds beyond)" if coarse else ""
    note = (f"Sessions of {', '.join(f'{n:,}' for n in rounds)} rounds from a start of {_amount(start)} {short}{bought}, "
            f"one round at a time at a total bet of {_show(bet)}{cur_txt}{capped}, no stop but ruin (the balance "
            f"below the price of one round, {_amount(price)}{cur_txt}): the final balance (mean; quantile q: the smallest balance x with "
            f"P(balance <= x) >= q; the probability of ending above the start) and the risk of ruin within the "
            f"rounds. The balance is the Markov chain whose step is the round's law; {lab}. One chain of "
            f"{max(n for n in rounds if n not in coarse) if len(coarse) < len(rounds) else max(rounds):,} rounds "
            f"is read at every horizon{beyond}; sessions whose balance can no longer fall to the "
            f"start within the rounds left are taken out of its upper tail (at most 1e-8 of mass a round, "
            f"widening the quantile intervals by that mass; docs/sessions.md).")
    horizons = tuple(_horizon(n, got.horizons[n]) for n in sorted(got.horizons))
    ruin = got.ruin_by_round
    curve = tuple((t, _qrows(x.balance_quantiles), float(ruin[t]) if t < len(ruin) else float(x.ruin.value))
                  for t, x in sorted(got.curve.items()))
    table = None
    if not auto:
        anote = "The game's rules offer no autoplay stop options ([autoplay] stops): no autoplay table."
    elif isinstance(got.autoplay, str):
        anote = f"No autoplay figures: {got.autoplay}."
    else:
        a, R = got.autoplay, got.autoplay_rules
        rows = [("rounds (at most)", f"{R.rounds:,}")]
        if R.stop_on_any_win:
            rows.append((_STOP_NAMES["any win"], "on"))
        if R.stop_on_feature:
            rows.append((_STOP_NAMES["feature"], "on"))
        for k, name in (("stop_single_win_above", "single win"), ("stop_cash_up", "cash up"),
                        ("stop_cash_down", "cash down")):
            v = getattr(R, k)
            if v is not None:
                rows.append((_STOP_NAMES[name], _show(v)))
        off = [o.replace("_", " ") for o in ("any_win", "feature", "single_win", "cash_up", "cash_down")
               if o in game.autoplay_stops and not getattr(R, {"any_win": "stop_on_any_win",
                                                               "feature": "stop_on_feature",
                                                               "single_win": "stop_single_win_above",
                                                               "cash_up": "stop_cash_up",
                                                               "cash_down": "stop_cash_down"}[o])]
        anote = (f"The default autoplay setting (docs/sessions.md) of the stop options the game's rules offer, "
                 f"from the same start (amounts in {short}): the probability that each stop ends the run (checked after every round "
                 f"in the order listed; ruin when the balance no longer pays a round)"
                 + (f"; offered but off in this setting: {', '.join(off)}" if off else "")
                 + (". Exact." if a.method == "exact" else
                    ". Bounded: each figure an interval between the sessions of the two round laws bracketing "
                    "the round (value +/- half-width)." if a.method == "bounded" else
                    f". Certified: each probability within {bound_text(a.error, digits=2)}."))
        table = AutoplayTable(tuple(rows), tuple((_STOP_NAMES[w], f) for w, f in a.reasons.items()),
                              a.rounds_mean, tuple((Fraction(lv), int(v[0]) if isinstance(v, tuple) else int(v),
                                                    int(v[1]) if isinstance(v, tuple) else int(v))
                                                   for lv, v in a.rounds_quantiles.items()),
                              a.balance_mean, a.p_above_start, a.method, Fraction(a.error))
    return SessionSection(start, bet, unit, note, "", horizons, curve, table, anote)


def _exceedance(r: RoundResult, law) -> tuple[Exceedance | None, str]:
    """The exceedance ladder of the round's law and the sentence above it (the reason when there is
    no law: the section is then left out)."""
    from analytic.solver.cap import applied_cap

    tail = r.extra.get("round_tail") if r.extra else None
    if law.points is None and tail is not None:  # no law, but bounds of P(R >= x) at every threshold
        ex = interval_exceedance(tail, applied_cap(r))
        note = (f"P(round win >= x), x in multiples of the total bet, with certified lower and upper bounds at "
                f"each threshold (the round has no law: {law.reason}; bounds by the round solver: {ex.method}): "
                f"every row's gap (high - low) is at most {bound_text(ex.gap)}.")
        return ex, note
    if law.points is None:
        return None, f"Exceedance ladder not given: {law.reason}."
    ex = exceedance(law, applied_cap(r))
    if ex.label == "exact":
        note = ("P(round win >= x), x in multiples of the total bet, exact from the round's exact law "
                "(the fractions are in the JSON par sheet).")
    else:
        note = (f"P(round win >= x), x in multiples of the total bet, with certified bounds from the round's law "
                f"(total variation error at most {bound_text(ex.error)}): every row's gap "
                f"(high - low) is at most {bound_text(ex.gap)}.")
    return ex, note


def _components(game: Game, r: RoundResult) -> tuple[tuple[str, Figure], ...]:
    """The RTP split: the solver's components, without the zero scatter-pay row of a game without
    scatter pays (the sum is unchanged: the parts still add up to the total)."""
    return tuple((c.name, c.rtp) for c in r.components
                 if not (game.scatter is None and c.name == "base scatter pays" and c.rtp.value == 0
                         and c.rtp.label == "exact"))


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


def _names(xs) -> str:
    return ", ".join(str(x) for x in (sorted(xs) if isinstance(xs, (set, frozenset)) else xs))


def _weights_text(ws: Mapping, fmt=lambda k: str(k)) -> str:
    total = sum(ws.values())
    return ", ".join(f"{fmt(k)}: {w}" for k, w in ws.items()) + f" (of {total})"


def _trigger_text(t, unit: str) -> str:
    awards = ", ".join(f"{n} -> {a}{unit}" for n, a in sorted(t.counts.items()))
    out = f"{_names(t.symbols)} anywhere in the window: {awards}"
    if t.requires:
        out += f"; at least one of them {_names(t.requires)}"
    return out


def _param_rows(game: Game, f) -> list[tuple[str, str]]:
    """The rows of one feature's parameters (text), from its declared mechanics."""
    spins = " spins" if f.kind == "free_spins" else ""
    rows = [("trigger", _trigger_text(f.trigger, spins) if f.trigger else "none (bought or line-triggered only)"),
            ("reel set", f.reel_set if f.reel_set is not None else "none")]
    d = dict(f.declared)
    if f.kind == "free_spins":
        r = d.get("retrigger")
        if r is None:
            rows.append(("retrigger", "none: the feature plays the spins it was awarded"))
        elif isinstance(r, Mapping) and "per_symbol" in r:
            syms = _names(f.trigger.symbols) if f.trigger else "the trigger symbols"
            n = r["per_symbol"]
            rows.append(("retrigger", f"a free-spin window showing b >= 2 of {syms} awards {n} x (b - 1) spins "
                                      f"(2 symbols {n}, every further one {n} more)"))
        else:
            rows.append(("retrigger", "during the feature, " + _trigger_text(r, spins)))
    for k, v in d.items():
        if k == "retrigger":
            continue
        if k == "max_spins":
            rows.append(("spin ceiling", f"at most {v} spins in one feature"))
        elif k == "multiplier":
            rows.append(("multiplier", f"every win of the feature's spins x {_show(v)}"))
        elif k == "scatter_pays":
            rows.append(("scatter pays", "paid in the feature's spins" if v else "not paid in the feature's spins"))
        elif k == "wild_reels" and "revealed_by" in v:
            ws = v["multipliers"]
            mean = Fraction(sum(m * w for m, w in ws.items()), sum(ws.values()))
            rows.append(("wild reels", f"each reel showing {v['revealed_by']} turns wild and reveals a multiplier, "
                                       f"weights {_weights_text(ws, lambda m: f'x{m}')}, mean x{float(mean):.4g}; "
                                       + ("the multipliers of several wild reels are multiplied"
                                          if v["combine"] == "multiply" else f"combine = {v['combine']}")))
        elif k == "wild_reels":
            rows.append(("wild reels", f"reels {_names(v['reels'])} show {v['wild']} on every row in every spin"))
        elif k == "reel_wild_multipliers":
            per = "; ".join(f"reel {r}: {_weights_text(m, lambda x: f'x{x}')}" for r, m in v["reels"].items())
            rows.append(("reel wild multipliers", f"in each spin every listed reel draws the multiplier its "
                                                  f"{v['wild']} cells carry, independently: {per}"))
        elif k == "wild_symbols":
            rows.append(("wild symbols", f"{_names(v['symbols'])} are wild (as {v['wild']})"))
        elif k == "expanding_symbol":
            pool = ("every regular symbol" if v["choose_from"] is None else _names(v["choose_from"]))
            w = v["weights"]
            wt = "equal weights" if len(set(w)) <= 1 else "weights " + ", ".join(map(str, w))
            draw = {"at_start": "drawn once at the start of the feature",
                    "at_each_award": "drawn at each award (the start and every retrigger)"}.get(v["draw"], v["draw"])
            txt = f"{draw} from {pool} ({wt})"
            if v.get("ceiling") is None:
                txt += "; no repeat multiplier"
            else:
                txt += (f"; a symbol drawn again raises its multiplier (rule expanding_repeat_multiplier), "
                        f"at most x{v['ceiling']}")
            rows.append(("expanding symbol", txt))
        elif k == "ladder":
            rows.append(("ladder", f"order {v}: the expanding symbol drawn at the start moves to the next "
                                   f"{'higher' if v == 'rank_ascending' else 'lower'} rank at each spin that awards "
                                   "spins; at the end of the ladder its repeat multiplier grows instead"))
        elif k == "golden_reels":
            rows.append(("golden reels", f"reels {_names(v['reels'])} turn golden for the rest of the feature when "
                                         f"{_names(v['turned_by'])} lands on them; a golden reel counts as showing "
                                         "the expanding symbol in the expansion payout"))
        elif k == "gift_pick":
            gifts = v["gifts"]
            names = {"spins": "+{} spins", "multiplier": "multiplier +{}", "wild_reel": "wild reel {}",
                     "wild_symbol": "{} wild"}
            rows.append(("gifts", f"as many gifts as trigger symbols, picked without replacement from "
                                  f"{sum(g[2] for g in gifts)}: "
                         + ", ".join(f"{names.get(g[0], g[0] + ' {}').format(g[1])} x{g[2]}" for g in gifts)
                         + f"; wild of the wild reels and symbols: {v['wild']}"))
        elif k == "picks":
            rows.append(("picks", "number of picks, " + _weights_text(v)))
        elif k == "prizes_per_pick":
            rows.append(("prizes per pick", _weights_text(v)))
        elif k == "prizes":
            rows.append(("prizes", "line-bet units, weights: " + ", ".join(f"{_show(a)}: {w}" for a, w in v)))
        else:
            rows.append((k.replace("_", " "), _show(v)))
    return rows


def _count_law(game: Game, reel_set: str, symbols: frozenset, per: str) -> dict[int, int]:
    """``count -> stop combinations`` of the cells (or reels) showing ``symbols`` in a window of
    ``reel_set``: the per-reel window counts convolved (exact integers over the cycle)."""
    from analytic.engine.spin import strip_windows

    law = {0: 1}
    for strip in game.reel_sets[reel_set]:
        reel: dict = defaultdict(int)
        for w, n in strip_windows(strip, game.rows).items():
            k = sum(c in symbols for c in w)
            reel[min(k, 1) if per == "reels" else k] += n
        out: dict = defaultdict(int)
        for a, x in law.items():
            for b, y in reel.items():
                out[a + b] += x * y
        law = dict(out)
    return law


def _retrigger(game: Game, f) -> tuple[Fraction | None, tuple, str]:
    """Retrigger probability per free spin and the awards, exact, where the feature's engine counts
    the landed symbols of a window (retrigger table: cells, or reels under rule
    ``revealed_retrigger_count = "reels"``; per-symbol rule: the trigger's symbols, the golden
    symbols left out under ``golden_symbol_retriggers = false``)."""
    r = f.declared.get("retrigger")
    if r is None:
        return None, (), "no retriggers"
    cyc = game.cycle(f.reel_set)
    if isinstance(r, Mapping) and "per_symbol" in r:
        if f.engine != "drawn_expanding":
            return None, (), f"not given for engine {f.engine}"
        from analytic.features.engines.drawn_expanding.engine import book_symbols

        law = _count_law(game, f.reel_set, book_symbols(game, f.name), "cells")
        aw: dict = defaultdict(int)
        for b, n in law.items():
            if b >= 2:
                aw[r["per_symbol"] * (b - 1)] += n
        note = (f"a window showing b >= 2 of {_names(book_symbols(game, f.name))} (cells as landed) awards "
                f"{r['per_symbol']} x (b - 1) spins")
    else:
        per = "cells"
        if f.engine == "revealed_wild_reels" and game.rules.get("revealed_retrigger_count") == "reels":
            per = "reels"
        elif f.engine not in ("wald", "revealed_wild_reels"):
            return None, (), f"not given for engine {f.engine}"
        law = _count_law(game, f.reel_set, frozenset(r.symbols), per)
        aw = defaultdict(int)
        for k, n in law.items():
            if k >= r.min_count:
                aw[r.award(k)] += n
        note = f"{per} showing {_names(r.symbols)} as landed: " + ", ".join(
            f"{k} -> {a} spins" for k, a in sorted(r.counts.items()))
    awards = tuple(sorted((a, Fraction(n, cyc)) for a, n in aw.items()))
    return sum((p for _, p in awards), Fraction(0)), awards, note


def _free_games(game: Game) -> tuple[FreeGameSheet, ...]:
    from analytic.engine.combos import combination_table
    from analytic.engine.spin import build_spin

    out = []
    combos: dict = {}
    for f in game.features.values():
        if f.kind != "free_spins" or f.reel_set is None:
            continue
        rs = f.reel_set
        if rs not in combos:
            combos[rs] = combination_table(build_spin(game, rs, ()))
        cyc = game.cycle(rs)
        nl = len(game.lines) or 1  # a ways game: hits per stop combination
        wins = tuple(LineWin(c.symbol, c.count, c.multiplier, c.pay, c.hits, Fraction(c.hits, cyc * nl),
                             Fraction(c.pay * c.hits, cyc * game.total_bet)) for c in combos[rs])
        p, awards, note = _retrigger(game, f)
        out.append(FreeGameSheet(f.name, rs, cyc, wins, p, awards, note))
    return tuple(out)


def _plain(v: Any) -> Any:
    """A declared value as plain JSON-able data (mappings with text keys, lists)."""
    from analytic.model.game import Trigger

    if isinstance(v, Trigger):
        return {"symbols": sorted(v.symbols), "counts": {str(n): a for n, a in sorted(v.counts.items())},
                "requires": sorted(v.requires)}
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (set, frozenset)):
        return sorted(_plain(x) for x in v)
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def _feature_info(game: Game, f) -> FeatureInfo:
    t = f.trigger
    trig = (f"{min(t.counts)}+ of {_show(t.symbols)} anywhere; awards {_show(dict(t.counts))}"
            + (f"; requires {_show(t.requires)}" if t.requires else "")) if t else "bought or line-triggered"
    return FeatureInfo(f.name, f.kind, f.engine, f.reel_set, trig, tuple(f.mechanics),
                       tuple(_param_rows(game, f)), tuple((k, _plain(v)) for k, v in f.declared.items()))


def _rule_applies(game: Game, name: str) -> bool:
    """Whether the game has what rule ``name`` reads (the rules table lists only those, and any rule
    set to a value other than its default).

    The game's rules hold every rule of the mechanics and engines its features declare; some of
    them read a part the game may lack: ``simultaneous_triggers`` needs two features with a
    trigger, ``line_wild_pay`` a wild on paylines, ``expanding_repeat_multiplier`` an expanding symbol with a
    repeat-multiplier ceiling, ``scatter_substitutes_for_expanding_in_line_wins`` a wild scatter,
    ``published_max_win`` a win cap, ``revealed_retrigger_count`` a retrigger with wild reels,
    ``line_wild_multipliers``, ``all_wild_win_multiplied`` and ``line_win_chosen_on`` a wild with a
    multiplier, ``anywhere_pay_wilds`` an ``[anywhere_pays]`` table.
    """
    feats = list(game.features.values())
    if name == "simultaneous_triggers":
        return sum(f.trigger is not None for f in feats) >= 2
    if name == "line_wild_pay":  # a ways game reads no payline (the rule is refused there)
        return any(s.is_wild for s in game.symbols) and not game.ways
    if name == "expanding_repeat_multiplier":
        return any((f.declared.get("expanding_symbol") or {}).get("ceiling") is not None for f in feats)
    if name == "scatter_substitutes_for_expanding_in_line_wins":
        return any(s.role == "wild_scatter" for s in game.symbols)
    if name == "published_max_win":
        return game.cap is not None
    if name == "revealed_retrigger_count":
        return any(f.declared.get("retrigger") is not None and "wild_reels" in f.declared for f in feats)
    if name in ("line_wild_multipliers", "all_wild_win_multiplied", "line_win_chosen_on"):
        return any(s.is_wild and s.multiplier > 1 for s in game.symbols)
    if name == "anywhere_pay_wilds":
        return bool(game.anywhere_pays)
    return True


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
        if ms.cap_probability is not None:
            out.append(AppendixRow(n, "probability of reaching the win cap", Figure(ms.cap_probability),
                                   _method(r, "cap deduction")))
        if ms.top_win is not None and ms.top_probability is not None:
            out.append(AppendixRow(n, f"{ms.top_note}: probability", Figure(ms.top_probability),
                                   "from the distribution above"))
    return tuple(out)


def _mode_sheet_in_worker(i: int) -> ModeSheet:
    game, rs, vi_z, session = _SHEET_JOBS[0]
    return _mode_sheet(game, rs[i], vi_z, session)


#: In a worker process of :func:`_mode_sheets` only: its ``(game, results, vi_z, session)``, inherited
#: through ``fork`` (never pickled); empty in the parent process.
_SHEET_JOBS: list = []


def _mode_sheets(game: Game, rs: list, vi_z, session, workers: int = 1) -> list:
    """``[_mode_sheet(game, r, vi_z, session) for r in rs]``, shared out over ``workers`` processes.

    Each mode's section is built whole in one process, from the same results
    (``fork``: a worker inherits them, and sends back only the section), by
    the same code, so it is the same section as built here; the caches a
    worker fills (e.g. a mode's session laws) stay in it.  Where ``fork`` is
    not available, or with one worker or one mode, every section is built
    here, in order.
    """
    import multiprocessing

    nw = min(int(workers), len(rs))
    if nw < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [_mode_sheet(game, r, vi_z, session) for r in rs]
    from concurrent.futures import ProcessPoolExecutor

    _SHEET_JOBS[:] = [(game, rs, vi_z, session)]
    try:
        with ProcessPoolExecutor(nw, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_mode_sheet_in_worker, range(len(rs))))
    finally:
        _SHEET_JOBS.clear()


def build_sheet(game: Game, results: Mapping[str, RoundResult] | None = None, *,
                vi_z: float | None = None, session: bool | Mapping = True, workers: int = 1) -> ParSheet:
    """The par-sheet data model of ``game``.

    Parameters
    ----------
    game : Game
    results : mapping, optional
        ``mode -> RoundResult`` as from :func:`~analytic.solver.round.solve_game`
        (solved here when omitted).
    vi_z : float, optional
        The z of the 90 % volatility index (``z * sd``, sd per unit staked),
        one of :data:`VI_Z` (1.645 or 1.65: test labs round the two-sided
        90 % normal quantile differently); default the quantile itself
        (1.6448536...).  The 95 % and 99 % indices and the RTP ranges always
        use the quantiles.  The choice is printed in the sheet.
    session : bool or mapping
        The session section of each mode (:func:`session_section`): True
        (default setting), False (none: ``ModeSheet.session`` is None) or a
        mapping of overrides of the setting.
    workers : int
        Processes that build the modes' sections (their sessions, tails and
        spins laws), one mode each at a time (:func:`_mode_sheets`); 1 (default):
        all in this process.  The speed changes, never a figure.

    Returns
    -------
    ParSheet

    Raises
    ------
    ValueError
        ``vi_z`` not one of :data:`VI_Z`.
    """
    from analytic.model.kinds import RULES  # the catalogue registers kinds on import

    if results is None:
        results = solve_game(game)
    rules = tuple(
        RuleRow(k, v, RULES[k].default if k in RULES else None, RULES[k].doc if k in RULES else "")
        for k, v in sorted(game.rules.items())
        if _rule_applies(game, k) or (k in RULES and v != RULES[k].default)
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
        PayRow(s, game.symbol(s).role, tuple(sorted(p.items())), _wild_note(game.symbol(s)))
        for s, p in game.paytable.items() if s not in game.line_triggers
    ) + tuple(  # a wild without pays whose multiplier, expansion or substitution matters
        PayRow(s, game.symbol(s).role, (), _wild_note(game.symbol(s)))
        for s in game.symbol_names if s not in game.paytable and _wild_note(game.symbol(s))
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
    feats = [_feature_info(game, f) for f in game.features.values()]
    if vi_z is not None and vi_z not in VI_Z:
        raise ValueError(f"vi_z must be one of {', '.join(map(str, VI_Z))} (or None), got {vi_z!r}")
    modes = _mode_sheets(game, [results[name] for name in game.modes if name in results], vi_z, session, workers)
    return ParSheet(
        name=game.name,
        model_file=os.path.basename(game.path),
        model_sha256=_sha256(game.path),
        solver_version=__version__,
        reels=game.reels,
        rows=game.rows,
        total_bet=game.total_bet,
        lines=tuple(tuple(l) for l in game.lines),
        ways=("ways, pays both ways" if game.pays_both_ways else "ways") if game.ways
        else ("paylines, pays both ways" if game.pays_both_ways else ""),
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
        free_games=_free_games(game),
        volatility_z=Z_SCORES[90] if vi_z is None else vi_z,
        volatility_convention=vi_convention(vi_z),
    )


def sheet_for_model(path: str) -> ParSheet:
    """Load the model file at ``path``, solve every bet mode, build the sheet."""
    from analytic.model.loader import load_model

    return build_sheet(load_model(path))


def _wild_note(sym) -> str:
    """A wild's properties that change what a line pays, where not the defaults (multiplier 1, no
    expansion, substituting for every regular symbol): ``x2, expands, except clover``; ``""`` for
    any other symbol.  A wild without pays but with such a property is listed in the paytable for it."""
    if not sym.is_wild:
        return ""
    parts = []
    if sym.multiplier != 1:
        parts.append(f"x{sym.multiplier}")
    if sym.expands:
        parts.append("expands")
    if sym.substitutes is not None:
        parts.append("for " + ", ".join(sorted(sym.substitutes)) if sym.substitutes else "substitutes for none")
    return ", ".join(parts)
