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
    "window_count_law",
    "ROLES",
    "Symbol",
    "ScatterPay",
    "Trigger",
    "FeatureSpec",
    "BetMode",
    "WinCap",
    "Combo",
    "Game",
    "frozen_mapping",
    "coin_game",
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

    def award(self, count: int) -> int:
        """Award of ``count`` trigger symbols (docs/model-format.md, ``trigger.counts``).

        A listed count awards its own value; a count that is not listed awards
        what the largest listed count below it awards (``{3 = 10, 5 = 20}``:
        4 symbols award 10, 6 award 20); below the smallest listed count
        nothing.  The same rule reads a retrigger table.

        Parameters
        ----------
        count : int
            Trigger symbols counted in the window (any integer).

        Returns
        -------
        int
            Free spins awarded (1 for a bonus without spins); 0 when ``count``
            is below :attr:`min_count`.
        """
        listed = [c for c in self.counts if c <= count]
        return int(self.counts[max(listed)]) if listed else 0


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
    declared : Mapping[str, Any]
        The feature's mechanic keys as declared and validated (model key ->
        normalised value, defaults filled in by the mechanic, file order),
        read-only: what the par sheet prints as the feature's parameters.
    """

    name: str
    kind: str
    trigger: Trigger | None
    reel_set: str | None
    params: Mapping[str, Any] = field(default_factory=frozen_mapping)
    engine: str = ""
    mechanics: tuple = ()
    declared: Mapping[str, Any] = field(default_factory=frozen_mapping)

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
class Combo:
    """An ordered mixed combination of a payline (``[combos.NAME]``).

    Attributes
    ----------
    cells : tuple of str
        One entry per reel from the leftmost: a symbol name or a group name
        (``Game.groups``).  Cell ``i`` of a line matches entry ``i`` when it
        shows that symbol (a member of that group), or a wild substituting
        for it (for at least one member of the group).
    pay : int
        Pay in **line-bet units** of a line whose first ``len(cells)``
        cells match.
    multiplied : bool
        ``True`` (default): the pay is multiplied by the wilds among the
        matched cells like any run (rules ``line_wild_multipliers``,
        ``all_wild_win_multiplied``).  ``False``: it is paid as written,
        whatever wilds the cells show (a top award that the game's doubling
        symbols do not double).
    """

    cells: tuple[str, ...]
    pay: int
    multiplied: bool = True


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
        Paylines: one row index per reel, row 0 on top; empty in a ways game.
    ways : bool
        Ways pays (``[paylines] ways = true``): every symbol pays on every
        way of adjacent reels from reel 1, any row (docs/model-format.md).
    pays_both_ways : bool
        Wins also pay from the rightmost reel leftwards; a combination
        spanning all reels is paid once (ways games only).
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
    groups : Mapping[str, frozenset of str]
        Symbol groups (``[groups]``): name -> member symbols (regular or blank).
    group_pays : Mapping[str, Mapping[int, int]]
        Line pays of groups (their ``[paytable]`` entries): group -> count
        from the left -> pay in **line-bet units**.
    combos : Mapping[str, Combo]
        Ordered mixed combinations (``[combos]``).
    anywhere_pays : Mapping[str, Mapping[int, int]]
        ``[anywhere_pays]``: symbol or group -> number of cells of the line
        showing it, anywhere on the line -> pay in **line-bet units**.
    autoplay_stops : tuple of str
        The advanced autoplay stop options the game's rules offer
        (``[autoplay] stops``, in the order of
        :data:`analytic.model.loader.AUTOPLAY_STOPS`); read only by the par
        sheet's session section (docs/sessions.md), no round figure.
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
    ways: bool = False
    pays_both_ways: bool = False
    features: Mapping[str, FeatureSpec] = field(default_factory=frozen_mapping)
    modes: Mapping[str, BetMode] = field(default_factory=frozen_mapping)
    cap: WinCap | None = None
    line_triggers: Mapping[str, Mapping[int, str]] = field(default_factory=frozen_mapping)
    rules: Mapping[str, Any] = field(default_factory=frozen_mapping)
    design: Mapping[str, str] = field(default_factory=frozen_mapping)
    meta: Mapping[str, Any] = field(default_factory=frozen_mapping)
    groups: Mapping[str, frozenset] = field(default_factory=frozen_mapping)
    group_pays: Mapping[str, Mapping[int, int]] = field(default_factory=frozen_mapping)
    combos: Mapping[str, Combo] = field(default_factory=frozen_mapping)
    anywhere_pays: Mapping[str, Mapping[int, int]] = field(default_factory=frozen_mapping)
    autoplay_stops: tuple[str, ...] = ()

    @property
    def classic_pays(self) -> bool:
        """True when the game has group pays, combos or anywhere pays."""
        return bool(self.group_pays or self.combos or self.anywhere_pays)

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


def window_count_law(strips, rows: int, symbols) -> dict[int, int]:
    """Law of how many window cells show one of ``symbols``, over a reel set's full cycle.

    Parameters
    ----------
    strips : sequence of sequence of str
        The reel set's strips, one per reel (a window of ``rows`` consecutive stops, wrapping).
    rows : int
        Cells per reel in the window.
    symbols : collection of str
        The symbols counted.

    Returns
    -------
    dict of int to int
        Cells showing ``symbols`` -> stop combinations (exact integers; they sum to the cycle).
        Each reel's per-stop count law is convolved over the reels (docs/derivations.md s.1).
    """
    law = {0: 1}
    for strip in strips:
        n = len(strip)
        step: dict[int, int] = {}
        for s in range(n):
            b = sum(strip[(s + r) % n] in symbols for r in range(rows))
            step[b] = step.get(b, 0) + 1
        new: dict[int, int] = {}
        for b0, c0 in law.items():
            for b1, c1 in step.items():
                new[b0 + b1] = new.get(b0 + b1, 0) + c0 * c1
        law = new
    return law


def coin_game(game: Game, mode: str | None = None) -> Game:
    """The game as played in bet mode ``mode``: its line and scatter pays for the mode's coins.

    A regular mode with ``coins = c`` pays ``c`` times every line pay
    (``[paytable]``, group pays, ``[combos]``, ``[anywhere_pays]``) and every
    scatter pay, except the pays listed in its ``coin_pays`` (key path ->
    pay with ``c`` coins, line-bet units).  A mode without ``coins`` plays
    the game as it is (returned unchanged).

    Parameters
    ----------
    game : Game
    mode : str, optional
        Bet mode name (default: the first).

    Returns
    -------
    Game
        Amounts in line-bet units of a one-coin line bet; the mode's cost is
        ``c`` total bets, so its RTP is the mean win over ``c`` total bets.
    """
    m = game.modes[mode] if mode else game.default_mode
    c = m.params.get("coins")
    if not c:
        return game
    over = dict(m.params.get("coin_pays", {}))

    def scaled(prefix, table):
        return frozen_mapping({n: over.get(f"{prefix}.{n}", p * c) for n, p in table.items()})

    from dataclasses import replace

    scatter = game.scatter
    if scatter is not None:
        scatter = ScatterPay(scatter.symbols, frozen_mapping({n: Fraction(p) * c for n, p in scatter.pays.items()}))
    return replace(
        game,
        paytable=frozen_mapping({s: scaled(f"paytable.{s}", t) for s, t in game.paytable.items()}),
        group_pays=frozen_mapping({g: scaled(f"paytable.{g}", t) for g, t in game.group_pays.items()}),
        combos=frozen_mapping({n: Combo(cb.cells, over.get(f"combos.{n}", cb.pay * c), cb.multiplied) for n, cb in game.combos.items()}),
        anywhere_pays=frozen_mapping({a: scaled(f"anywhere_pays.{a}", t) for a, t in game.anywhere_pays.items()}),
        scatter=scatter,
    )
