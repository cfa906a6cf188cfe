"""The immutable game model: what a model file says, validated once.

Every engine (solver, simulator, tuner, reports) consumes a :class:`Game` and
never writes back into it.  The loader (:mod:`analytic.model.loader`) is the
only producer; it validates at the door so engines can trust every field.

Units
-----
* Line pays (``Game.paytable``) are in **line-bet units** (credits per credit
  bet on one line).
* Scatter pays (``ScatterPay.pays``) are in **total-bet multiples**.
* ``Game.total_bet`` is the total bet of one regular spin in line-bet units
  (by default the number of paylines).  A scatter pay of ``p`` x total bet is
  ``p * total_bet`` credits.
* Bet mode costs and the win cap are in **total-bet multiples**.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Mapping

__all__ = [
    "ROLES",
    "Symbol",
    "ScatterPay",
    "Trigger",
    "FeatureSpec",
    "BetMode",
    "WinCap",
    "Game",
    "frozen_mapping",
]

#: Symbol roles a model file may declare.
#: ``regular``: pays on lines; ``wild``: substitutes on lines (may have own pays);
#: ``scatter``: pays/counts anywhere, never on lines; ``wild_scatter``: both
#: (a "book"); ``bonus``: a line symbol that is never substituted (pick-bonus
#: triggers such as Lobstermania's lobster); ``blank``: pays nothing, stops lines.
ROLES = ("regular", "wild", "scatter", "wild_scatter", "bonus", "blank")


def frozen_mapping(d: Mapping | None = None) -> Mapping:
    """Return a read-only view of a *copy* of ``d`` (empty when ``None``)."""
    return MappingProxyType(dict(d or {}))


@dataclass(frozen=True)
class Symbol:
    """One symbol of the game.

    Attributes
    ----------
    name : str
        The name used in strips, paytables and rule switches.
    index : int
        Position in ``Game.symbols`` (0-based, the order of the model file).
    role : str
        One of :data:`ROLES`.
    tier : str or None
        ``"high"`` or ``"low"`` paying class where the rules need it
        (Book of Power's expanding symbols), else ``None``.
    value_rank : int or None
        Order of value among regular symbols, 1 = least valuable, where the
        rules need it (Book of Power's upgrade ladder), else ``None``.
    substitutes : frozenset of str or None
        For wilds: the names of the symbols this wild substitutes for.
        ``None`` means every ``regular`` symbol (the common rule text "substitutes
        for all symbols except scatters").
    multiplier : int
        Multiplier a wild applies to a line win it takes part in (1 = none).
    expands : bool
        For wilds: a base-game spin that lands it on a reel shows it on every
        row of that reel for the paylines (``symbols.NAME.expands``, see
        :func:`analytic.engine.spin.shown_windows`).
    """

    name: str
    index: int
    role: str
    tier: str | None = None
    value_rank: int | None = None
    substitutes: frozenset[str] | None = None
    multiplier: int = 1
    expands: bool = False

    @property
    def is_wild(self) -> bool:
        """True for ``wild`` and ``wild_scatter`` symbols."""
        return self.role in ("wild", "wild_scatter")

    @property
    def is_scatter(self) -> bool:
        """True for ``scatter`` and ``wild_scatter`` symbols."""
        return self.role in ("scatter", "wild_scatter")


@dataclass(frozen=True)
class ScatterPay:
    """Scatter pays: ``count of symbols anywhere in the window -> pay``.

    Attributes
    ----------
    symbols : frozenset of str
        Symbols that count (each visible cell counts once).
    pays : Mapping[int, Fraction]
        Count -> pay in **total-bet multiples**.  Counts not listed pay 0.
        A count above the largest listed count pays nothing unless listed.
    """

    symbols: frozenset[str]
    pays: Mapping[int, Fraction]


@dataclass(frozen=True)
class Trigger:
    """What starts a feature from a spin.

    Attributes
    ----------
    symbols : frozenset of str
        Symbols that count toward the trigger (cells anywhere in the window).
    counts : Mapping[int, int]
        Count of trigger symbols -> number of free spins (or 1 for a bonus
        without spins) awarded.  The smallest key is the minimum to trigger.
    requires : frozenset of str
        Symbols of which at least one must be among the counted cells
        (e.g. Book of Power's Power Book for Power Free Spins).  Empty = none.
    """

    symbols: frozenset[str]
    counts: Mapping[int, int]
    requires: frozenset[str] = frozenset()

    @property
    def min_count(self) -> int:
        return min(self.counts)


#: The engine of a feature built without one (by hand, not by the loader): Wald's free spins for
#: kind ``free_spins`` (the generic mechanics), the pick bonus for ``pick_bonus``.
GENERIC_ENGINES = {"free_spins": "wald", "pick_bonus": "pick_bonus"}


@dataclass(frozen=True)
class FeatureSpec:
    """A feature declared in the model (free spins, pick bonus, ...).

    The loader validates the common part; the feature's ``kind`` module
    validates ``params`` (kind-specific keys) with key paths in its errors.

    Attributes
    ----------
    name : str
        Key of the feature in the model file (``[features.NAME]``).
    kind : str
        Generic type: ``"free_spins"`` or ``"pick_bonus"``.
    trigger : Trigger or None
        What starts it from a base spin (None: only bought or gambled into).
    reel_set : str or None
        Reel set its spins use.
    params : Mapping[str, Any]
        The parameters the feature's engine reads, built from its validated
        mechanics (:mod:`analytic.model.mechanics.engines`), read-only.
    engine : str
        The engine solving the feature (default for a spec built by hand:
        :data:`GENERIC_ENGINES` of its kind) (``wald``, ``revealed_wild_reels``,
        ``gift_pick``, ``drawn_expanding``, ``pick_bonus``): the key of the
        solver, round-solver and simulator-player registries.
    mechanics : tuple of str
        The mechanics declared (``spins``, ``expanding_symbol``, ...), in file order.
    """

    name: str
    kind: str
    trigger: Trigger | None
    reel_set: str | None
    params: Mapping[str, Any] = field(default_factory=frozen_mapping)
    engine: str = ""
    mechanics: tuple = ()

    def __post_init__(self) -> None:
        # a spec built by hand (not by the loader) without an engine: the kind's generic engine
        if not self.engine:
            object.__setattr__(self, "engine", GENERIC_ENGINES.get(self.kind, self.kind))


@dataclass(frozen=True)
class BetMode:
    """A way to play a round, with its price.

    Attributes
    ----------
    name : str
    cost : Fraction
        Price of one round in **total-bet multiples** (1 = regular bet).
    reel_set : str or None
        Base-game reel set of this mode; None for a feature buy.
    buys : str or None
        For a feature buy: the feature it starts.
    buy_counts : Mapping[int, int]
        For a feature buy: trigger-symbol count -> integer weight (the
        distribution of the count the bought trigger shows); ``{0: 1}`` for
        a feature without a trigger (bought as one start).
    params : Mapping[str, Any]
        Remaining mode keys, read-only; ``params["wild_reels"]`` (spin
        modes): ``{"reels": (1-based reel numbers,), "wild": name}``, reels
        that show ``wild`` on every row in every base spin of the mode.
    """

    name: str
    cost: Fraction
    reel_set: str | None
    buys: str | None = None
    buy_counts: Mapping[int, int] = field(default_factory=frozen_mapping)
    params: Mapping[str, Any] = field(default_factory=frozen_mapping)


@dataclass(frozen=True)
class WinCap:
    """Caps on wins: of one round (base spin plus its features), of a spin, of a feature.

    Attributes
    ----------
    total_bet_multiple : Fraction or None
        Cap in total-bet multiples (Book of Power: 15,000).
    currency : Fraction or None
        Cap in currency (Secrets of Christmas: 250,000).  Binding depends on
        the stake, see ``stakes``.
    currency_name : str
    stakes : tuple of Fraction
        Total stakes (currency per round) at which a currency cap is reported.
    spin : Fraction or None
        Cap on the win of each spin (base-game spins and the spins of engine
        ``wald``), in total-bet multiples (``cap.spin``).
    feature : Fraction or None
        Cap on the total win of each feature a round plays, in total-bet
        multiples (``cap.feature``).
    """

    total_bet_multiple: Fraction | None = None
    currency: Fraction | None = None
    currency_name: str = ""
    stakes: tuple[Fraction, ...] = ()
    spin: Fraction | None = None
    feature: Fraction | None = None


@dataclass(frozen=True)
class Game:
    """A validated game model (immutable).

    Attributes
    ----------
    path : str
        File the model was read from (for messages and the par sheet hash).
    name : str
    reels : int
        Number of reels (columns).
    rows : int
        Window rows.
    symbols : tuple of Symbol
        In model-file order; ``symbol(name)`` looks one up.
    paytable : Mapping[str, Mapping[int, int]]
        Line pays: symbol -> count -> pay in **line-bet units**.  Wilds may
        have their own pays.  Bonus symbols' entries here are line triggers
        (see ``line_triggers``), not pays.
    line_triggers : Mapping[str, Mapping[int, str]]
        Bonus symbol -> count -> feature name started when a payline shows
        that many from the left (Lobstermania's lobster bonus).
    lines : tuple of tuple of int
        Paylines: one row index per reel, row 0 on top.
    total_bet : int
        Total bet of a regular spin in line-bet units (default: number of lines).
    reel_sets : Mapping[str, tuple[tuple[str, ...], ...]]
        Reel set name -> one strip per reel, each an ordered tuple of symbol
        names; a stop ``s`` shows ``strip[s], strip[s+1], ...`` (wrapping) in
        rows 0, 1, ...
    scatter : ScatterPay or None
    features : Mapping[str, FeatureSpec]
    modes : Mapping[str, BetMode]
        At least one; the first is the default.
    cap : WinCap or None
    rules : Mapping[str, Any]
        Named rule readings (switches) as written in ``[rules]``.
    design : Mapping[str, str]
        Key path -> one-line reason for each design choice (``[design]``).
    meta : Mapping[str, Any]
        ``[game]`` keys beyond name/reels/rows (provider, published figures, ...).
    """

    path: str
    name: str
    reels: int
    rows: int
    symbols: tuple[Symbol, ...]
    paytable: Mapping[str, Mapping[int, int]]
    lines: tuple[tuple[int, ...], ...]
    total_bet: int
    reel_sets: Mapping[str, tuple[tuple[str, ...], ...]]
    scatter: ScatterPay | None = None
    features: Mapping[str, FeatureSpec] = field(default_factory=frozen_mapping)
    modes: Mapping[str, BetMode] = field(default_factory=frozen_mapping)
    cap: WinCap | None = None
    line_triggers: Mapping[str, Mapping[int, str]] = field(default_factory=frozen_mapping)
    rules: Mapping[str, Any] = field(default_factory=frozen_mapping)
    design: Mapping[str, str] = field(default_factory=frozen_mapping)
    meta: Mapping[str, Any] = field(default_factory=frozen_mapping)

    def symbol(self, name: str) -> Symbol:
        """The :class:`Symbol` called ``name`` (KeyError if unknown)."""
        for s in self.symbols:
            if s.name == name:
                return s
        raise KeyError(name)

    @property
    def symbol_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.symbols)

    @property
    def default_mode(self) -> BetMode:
        return next(iter(self.modes.values()))

    def cycle(self, reel_set: str) -> int:
        """Number of stop combinations of a reel set (product of strip lengths)."""
        n = 1
        for strip in self.reel_sets[reel_set]:
            n *= len(strip)
        return n
