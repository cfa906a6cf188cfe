"""Direct evaluation of spin windows, written from the rule texts.

This module is the simulator's own reading of the rules; it shares nothing
with :mod:`analytic.engine` or :mod:`analytic.features` on purpose, so that a
disagreement between the simulator and the solver exposes a bug in one of them.

Rules evaluated
---------------
Window
    A stop ``s`` on a strip of length ``L`` shows ``strip[s], strip[s+1], ...``
    (mod ``L``) in rows ``0, 1, ...`` of that reel.
Line win
    For each payline and each *candidate* (every symbol with line pays that is
    ``regular``, ``wild`` or ``wild_scatter``), a cell *supports* the
    candidate when it shows the candidate, or when it shows a wild whose
    substitutes include the candidate (``Symbol.substitutes is None`` means
    every ``regular`` symbol; a wild never stands in for another wild, a
    scatter, a bonus or a blank symbol).  The run length is the number of
    leading cells supporting the candidate; its pay is
    ``paytable[c][run] * product(multiplier of the cells in the run)`` (only
    wilds carry multipliers).  The line pays the largest candidate pay; lines
    add.  Pays are in **line-bet units**.  Under the rule ``line_wild_pay =
    "first_non_wild"`` the first non-wild cell of a line fixes its symbol: the
    only non-wild candidate is that symbol (wilds still pay their own runs).
Scatter pay
    The number of cells in the window showing a scatter symbol pays
    ``scatter.pays[count]`` **total-bet multiples**, i.e.
    ``pays[count] * total_bet`` line-bet units.
Triggers
    A feature trigger counts the cells showing its symbols (at least one of
    ``requires`` must be among them when that set is non-empty); a count of at
    least the smallest key of ``counts`` starts the feature and awards
    ``counts[n]`` (the largest key not above ``n`` when ``n`` is not listed).
Ways win (``[paylines] ways = true``)
    For each candidate, on each reel the cells supporting it are counted,
    each with its multiplier (a way's multiplier is the product of its
    wilds' multipliers, so the per-reel count of a way-weighted sum is the
    sum of the cells' multipliers).  The leading reels with at least one
    such cell form the run ``n``; it pays ``paytable[c][n]`` times the
    product of those per-reel sums (every way).  Candidates add.  With
    ``pays_both_ways`` the trailing reels are read the same way from the
    right, except a run over every reel (the same combination, paid once).
    On paylines, ``pays_both_ways`` adds to each line the highest candidate
    pay of its trailing run read from the last reel leftwards, a run over
    every reel excluded.
Expanding wilds and fixed wild reels (base spins, :func:`base_windows`)
    A bet mode's fixed wild reel shows its wild on every row; a window
    showing a wild with ``expands`` shows the topmost such wild on every row
    for the paylines; scatters and triggers count the landed symbols.
Line triggers
    A payline whose leading cells are ``count`` copies of a bonus symbol (no
    substitution) starts the feature named for the largest listed ``count``
    not above the run, once per such line.

Two implementations live here: :func:`evaluate_window`, a plain scalar
reading of one window straight from a :class:`~analytic.model.game.Game`
(used by tests as the reference), and :func:`evaluate_windows`, a numpy
version over a batch of windows working on the picklable tables built by
:func:`compile_tables`.

Integer win units ("ticks")
---------------------------
The batch evaluator and everything downstream count wins as integers of
``1 / Tables.denom`` line-bet units, where ``denom`` is the least common
multiple of every denominator a win or the cap can have (1 for games whose
pays are whole line bets).  Sums are therefore exact.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm
from typing import Any, Mapping, Sequence

import math

import numpy as np

from analytic.errors import ModelError
from analytic.model.game import Game
from analytic.model.loader import feature_win_bound

__all__ = [
    "Tables",
    "BatchEvaluation",
    "WindowResult",
    "compile_tables",
    "evaluate_windows",
    "base_windows",
    "evaluate_window",
    "line_symbols",
    "candidate_line_pays",
    "lookup_award",
    "plain",
    "int_keys",
]

#: Roles of symbols that can be the symbol a payline pays for.
_LINE_ROLES = ("regular", "wild", "wild_scatter")


# --------------------------------------------------------------------------
# small helpers shared with the feature players
# --------------------------------------------------------------------------


def plain(obj: Any) -> Any:
    """Deep copy of ``obj`` with read-only mappings turned into ``dict``.

    Model parameters are ``MappingProxyType`` views, which cannot be pickled
    (and so cannot travel to dask workers); the simulator works on plain
    copies.
    """
    if isinstance(obj, Mapping):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, tuple):
        return tuple(plain(v) for v in obj)
    if isinstance(obj, list):
        return [plain(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return frozenset(obj)
    return obj


def int_keys(m: Mapping) -> dict[int, Any]:
    """``m`` with its keys converted to ``int`` (TOML tables have string keys)."""
    return {int(k): v for k, v in m.items()}


def lookup_award(counts: Mapping[int, int], n: int) -> int:
    """Award of a count table for ``n`` symbols.

    Parameters
    ----------
    counts : Mapping[int, int]
        Symbol count -> award (free spins, or 1 for a bonus).
    n : int
        Number of symbols shown.

    Returns
    -------
    int
        ``counts[n]``; for an unlisted ``n`` the award of the largest key not
        above ``n``; 0 below the smallest key.

    Notes
    -----
    The rule of docs/model-format.md (``trigger.counts``) read on its own,
    not through :meth:`analytic.model.game.Trigger.award`, which every
    engine uses: the simulator is the engines' independent oracle, so it
    shares no reading of a rule with them (it also reads plain
    ``{symbols, counts}`` tables of a feature's params).
    """
    keys = [k for k in counts if k <= n]
    if not keys:
        return 0
    return int(counts[max(keys)])


def _as_fraction(x: Any) -> Fraction:
    if isinstance(x, float):
        return Fraction(str(x))
    return Fraction(x)


# --------------------------------------------------------------------------
# compiled tables
# --------------------------------------------------------------------------


@dataclass
class Tables:
    """Everything the batch evaluator needs, as plain picklable data.

    Attributes
    ----------
    name : str
        Game name.
    path : str
        Model file.
    reels, rows : int
        Window shape.
    symbol_names : tuple of str
        Symbol index -> name (model-file order).
    lines : ndarray of int, shape (n_lines, reels)
        Row of each payline on each reel.
    total_bet : int
        Total bet of a regular spin in line-bet units.
    denom : int
        Ticks per line-bet unit (see the module docstring).
    cand_names : tuple of str
        Line-pay candidates.
    cand_support : ndarray of bool, shape (n_candidates, n_symbols)
        ``cand_support[c, s]``: a cell showing symbol ``s`` supports candidate ``c``.
    cand_pays : ndarray of int64, shape (n_candidates, reels + 1)
        Pay of a run of each length, in ticks.
    multiplier : ndarray of int64, shape (n_symbols,)
        Line multiplier of each symbol (1 for non-wilds).
    scatter_mask : ndarray of bool, shape (n_symbols,)
    scatter_pays : ndarray of int64, shape (reels * rows + 1,)
        Scatter count -> pay in ticks.
    triggers : dict
        Feature name -> (symbol mask, requires mask or None, award per count
        as int64 array of length ``reels * rows + 1``).
    line_triggers : tuple
        ``(bonus symbol index, ((count, feature name), ...) sorted by count)``.
    strips : dict
        Reel set -> tuple of int16 arrays, each the strip followed by its
        first ``rows - 1`` symbols (so a window is a contiguous slice).
    strip_lengths : dict
        Reel set -> tuple of strip lengths.
    paytable : dict
        Symbol -> {count: pay in line-bet units} (plain copy).
    cap_ticks : Fraction or None
        Win cap of a round in ticks.
    rules : dict
        Plain copy of ``Game.rules``.
    features : dict
        Feature name -> prepared object from the kind's player.
    feature_kinds : dict
        Feature name -> kind.
    wild_mask : ndarray of bool or None
        Symbols of role ``wild`` or ``wild_scatter``.
    expands_mask : ndarray of bool or None
        Wilds with ``expands = true`` (None when the game has none).
    spin_cap_ticks, feature_cap_ticks : int or None
        ``[cap] spin`` (the most one base spin pays: lines plus scatter) and
        ``[cap] feature`` (the most one feature pays), in ticks.
    """

    name: str
    path: str
    reels: int
    rows: int
    symbol_names: tuple
    lines: np.ndarray
    total_bet: int
    denom: int
    cand_names: tuple
    cand_support: np.ndarray
    cand_pays: np.ndarray
    multiplier: np.ndarray
    has_multipliers: bool
    scatter_mask: np.ndarray
    scatter_pays: np.ndarray
    triggers: dict
    line_triggers: tuple
    strips: dict
    strip_lengths: dict
    paytable: dict
    cap_ticks: Fraction | None
    rules: dict
    modes: dict = field(default_factory=dict)
    features: dict = field(default_factory=dict)
    feature_kinds: dict = field(default_factory=dict)
    wild_mask: np.ndarray | None = None  # symbols with role wild or wild_scatter
    ways: bool = False  # ways pays instead of paylines
    both_ways: bool = False  # pays both ways (ways games)
    #: the classic line pays and line rules (None: none, and every line rule at its default):
    #: see :func:`_compile_classic`
    classic: dict | None = None
    expands_mask: np.ndarray | None = None  # wilds with expands = true (None: none)
    spin_cap_ticks: int | None = None  # [cap] spin: most a base spin pays, ticks
    feature_cap_ticks: int | None = None  # [cap] feature: most one feature pays, ticks

    @property
    def n_lines(self) -> int:
        return int(self.lines.shape[0])

    @property
    def cells(self) -> int:
        return self.reels * self.rows

    def index(self, name: str) -> int:
        """Index of the symbol called ``name``."""
        return self.symbol_names.index(name)

    def mask(self, names) -> np.ndarray:
        """Boolean mask over symbol indices of the symbols in ``names``."""
        m = np.zeros(len(self.symbol_names), dtype=bool)
        for n in names:
            m[self.index(n)] = True
        return m

    def ticks(self, x) -> int:
        """``x`` line-bet units in ticks (must be a whole number of ticks)."""
        v = _as_fraction(x) * self.denom
        if v.denominator != 1:
            raise ValueError(f"{x} line-bet units is not a whole number of 1/{self.denom} ticks")
        return int(v)

    def spin(self, reel_set: str, n: int, rng: np.random.Generator) -> np.ndarray:
        """Draw ``n`` windows of ``reel_set``.

        Each reel's stop is uniform on its strip, independently.

        Returns
        -------
        ndarray of int16, shape (n, reels, rows)
            Symbol indices.
        """
        strips = self.strips[reel_set]
        out = np.empty((n, self.reels, self.rows), dtype=np.int16)
        offs = np.arange(self.rows)
        for r, (ext, length) in enumerate(zip(strips, self.strip_lengths[reel_set])):
            stops = rng.integers(0, length, size=n)
            out[:, r, :] = ext[stops[:, None] + offs]
        return out


#: Largest base-spin win (ticks) the simulator's int64 arithmetic takes: room for sums of many.
MAX_SPIN_TICKS = 2**62


def _check_int64(game: Game, den: int, cand_pays, scatter_pays, classic, mult) -> None:
    """Refuse a game whose base spin or pick bonus can win more ticks than int64 arithmetic holds.

    A bound in Python integers: the largest pay (line, group, combo, anywhere; ticks) times the
    largest wild multiplier to the power of the reels, times the paylines (ways: the symbols with
    pays times ``(rows x largest multiplier) ^ reels``; both ways twice), plus the largest scatter
    pay; a pick bonus: its largest prize times the most prizes revealed (a board: every prize tile
    times every multiplier tile); one free spin: the line bound times the feature's multipliers
    (``multiplier`` and its gifts, revealed wild reels' largest to the power of the reels, the
    reel wild multipliers' largest per reel) and 31 (an expansion's pay).  Pays of up to 10^18
    line bets times x10^6 wilds wrapped around silently (a simulated RTP of 3.5e17 for an exact
    2.8e34).  The sum over a feature's spins is not bounded here.

    Raises
    ------
    ModelError
        At ``paytable`` (or ``features.NAME`` of the pick bonus), with the bound.
    """
    pays = [int(v) for v in np.asarray(cand_pays).ravel()]
    if classic is not None:
        for k in ("pays", "any_pays"):
            if k in classic:
                pays += [int(v) for v in np.asarray(classic[k]).ravel()]
    top = max(pays, default=0)
    m = max(int(v) for v in np.asarray(mult).ravel()) if len(mult) else 1
    if game.ways:
        bound = top * len(pays) * (game.rows * m) ** game.reels
    else:
        bound = top * len(game.lines) * m ** game.reels
    if game.pays_both_ways:
        bound *= 2
    bound += max((int(v) for v in np.asarray(scatter_pays).ravel()), default=0)
    where, what = "paytable", "a base spin"
    for spec in game.features.values():
        most = feature_win_bound(game, spec, bound)  # a free spin: in ticks; a pick bonus: in line bets
        if spec.engine != "pick_bonus":
            if most > bound and most > MAX_SPIN_TICKS:
                bound, where, what = most, f"features.{spec.name}", f"a free spin of {spec.name!r}"
            continue
        if most is None:
            continue
        if int(most) * den > bound:
            bound, where, what = int(most) * den, f"features.{spec.name}", f"pick bonus {spec.name!r}"
    if bound > MAX_SPIN_TICKS:
        raise ModelError(game.path, where,
                         f"the simulator counts wins in 64-bit integers of 1/{den} line bet, and {what} can "
                         f"win up to about {float(bound):.3g} of them (more than 2^62): it cannot simulate this "
                         "game (the exact solver can)")


def _check_tick_amounts(game: Game, den: int, den_without_stake: int, stake) -> None:
    """Refuse, before any int64 table is filled, a single pay or cap beyond the simulator's ticks.

    Each amount of the tables (a line, group, combo or anywhere pay, a scatter pay in line bets, the
    win cap) times the tick denominator ``den`` must stay within :data:`MAX_SPIN_TICKS`: a pay of
    10^18 line bets beside a scatter pay of 1/100 (100 ticks a line bet), or ``--stake 1e30`` (a
    currency cap of 1/4e27 line bet), stopped with an ``OverflowError`` traceback while the tables
    were filled, before :func:`_check_int64`.

    Raises
    ------
    ModelError
        At ``cap.currency`` naming the stake when the stake's cap made the ticks that fine, else at
        ``paytable``, with the bound.
    """
    tables = [*game.paytable.values(), *game.group_pays.values(), *game.anywhere_pays.values()]
    top = max([int(v) for t in tables for v in t.values()] + [int(c.pay) for c in game.combos.values()]
              + [int(math.ceil(_as_fraction(v) * game.total_bet)) for v in
                 (game.scatter.pays.values() if game.scatter is not None else ())] + [1])
    if top * den <= MAX_SPIN_TICKS:
        return
    if den != den_without_stake and top * den_without_stake <= MAX_SPIN_TICKS:
        raise ModelError(game.path, "cap.currency",
                         f"at a stake of {float(_as_fraction(stake)):g} the win cap of "
                         f"{float(_as_fraction(game.cap.currency)):g} in currency is a fraction of a line bet that "
                         f"the simulator counts in 64-bit integers of 1/{den:.3g} line bet, where a pay of "
                         f"{top:,} line bets is more than 2^62 of them; simulate at another stake (fewer digits, "
                         "or smaller; the exact solver has no such limit)")
    raise ModelError(game.path, "paytable",
                     f"the simulator counts wins in 64-bit integers of 1/{den:,} line bet (the scatter pays' and "
                     f"caps' fractions), and a pay of {top:,} line bets is more than 2^62 of them: it cannot "
                     "simulate this game (the exact solver can)")


def compile_tables(game: Game, stake=None) -> Tables:
    """Build the batch evaluator's :class:`Tables` from a game.

    Parameters
    ----------
    game : Game
    stake : number, optional
        Total stake per round in currency: applies a currency win cap
        (``cap.currency / stake`` total bets), together with any cap in
        total-bet multiples (the smaller binds).

    Returns
    -------
    Tables
        Plain, picklable tables, including each feature's prepared player
        data (see :mod:`analytic.simulator.features`).

    Raises
    ------
    UnsupportedMechanicError
        A feature kind the simulator cannot play.
    ModelError
        A feature's parameters cannot be read.
    """
    from analytic.simulator.features import get_player

    names = tuple(s.name for s in game.symbols)
    nsym = len(names)
    idx = {n: i for i, n in enumerate(names)}
    reels, rows = game.reels, game.rows
    ncell = reels * rows

    # tick denominator: every fractional amount a round can win or be capped at
    den = 1
    if game.scatter is not None:
        for p in game.scatter.pays.values():
            den = lcm(den, (_as_fraction(p) * game.total_bet).denominator)
    cap_lb = None
    if game.cap is not None and game.cap.total_bet_multiple is not None:
        cap_lb = _as_fraction(game.cap.total_bet_multiple) * game.total_bet
    den_without_stake = den if cap_lb is None else lcm(den, cap_lb.denominator)
    if stake is not None and game.cap is not None and game.cap.currency is not None:
        cur = _as_fraction(game.cap.currency) / _as_fraction(stake) * game.total_bet
        cap_lb = cur if cap_lb is None else min(cap_lb, cur)
    if cap_lb is not None:
        den = lcm(den, cap_lb.denominator)
    scoped = {}  # [cap] spin / feature in line-bet units
    for scope in ("spin", "feature"):
        v = getattr(game.cap, scope, None) if game.cap is not None else None
        if v is not None:
            scoped[scope] = _as_fraction(v) * game.total_bet
            den = lcm(den, scoped[scope].denominator)
    prepared = {}
    for fname, spec in game.features.items():
        player = get_player(spec.engine, game.path, fname)
        prepared[fname] = player.prepare(game, spec)
        den = lcm(den, getattr(prepared[fname], "denom", 1))
        den_without_stake = lcm(den_without_stake, getattr(prepared[fname], "denom", 1))
    den_without_stake = lcm(den_without_stake, *(v.denominator for v in scoped.values()))
    _check_tick_amounts(game, den, den_without_stake, stake)

    # line candidates
    cand_names, supports, pays = [], [], []
    mult = np.ones(nsym, dtype=np.int64)
    for s in game.symbols:
        if s.is_wild:
            mult[idx[s.name]] = int(s.multiplier)
    for cname, table in game.paytable.items():
        sym = game.symbol(cname)
        if sym.role not in _LINE_ROLES:
            continue
        sup = np.zeros(nsym, dtype=bool)
        sup[idx[cname]] = True
        if sym.role == "regular":
            for w in game.symbols:
                if w.is_wild and (w.substitutes is None or cname in w.substitutes):
                    sup[idx[w.name]] = True
        row = np.zeros(reels + 1, dtype=np.int64)
        for k, v in table.items():
            if 0 < int(k) <= reels:
                row[int(k)] = int(v) * den
        if row.any():
            cand_names.append(cname)
            supports.append(sup)
            pays.append(row)
    cand_support = np.array(supports, dtype=bool).reshape(len(supports), nsym)
    cand_pays = np.array(pays, dtype=np.int64).reshape(len(pays), reels + 1)

    scatter_mask = np.zeros(nsym, dtype=bool)
    scatter_pays = np.zeros(ncell + 1, dtype=np.int64)
    if game.scatter is not None:
        for n in game.scatter.symbols:
            scatter_mask[idx[n]] = True
        for k, v in game.scatter.pays.items():
            if 0 <= int(k) <= ncell:
                scatter_pays[int(k)] = int(_as_fraction(v) * game.total_bet * den)

    triggers = {}
    for fname, spec in game.features.items():
        t = spec.trigger
        if t is None:
            continue
        m = np.zeros(nsym, dtype=bool)
        for n in t.symbols:
            m[idx[n]] = True
        req = None
        if t.requires:
            req = np.zeros(nsym, dtype=bool)
            for n in t.requires:
                req[idx[n]] = True
        counts = {int(k): int(v) for k, v in t.counts.items()}
        award = np.array([lookup_award(counts, n) for n in range(ncell + 1)], dtype=np.int64)
        triggers[fname] = (m, req, award)

    line_trig = []
    for bname, table in game.line_triggers.items():
        line_trig.append((idx[bname], tuple(sorted((int(k), str(v)) for k, v in table.items()))))

    strips, lengths = {}, {}
    for rs, reelset in game.reel_sets.items():
        arrs, ls = [], []
        for strip in reelset:
            a = np.array([idx[n] for n in strip], dtype=np.int16)
            ext = np.concatenate([a] * (1 + (rows - 1) // len(a) + 1))[: len(a) + rows - 1]
            arrs.append(ext)
            ls.append(len(a))
        strips[rs] = tuple(arrs)
        lengths[rs] = tuple(ls)

    modes = {}
    for mname, m in game.modes.items():
        modes[mname] = {
            "cost": _as_fraction(m.cost),
            "reel_set": m.reel_set,
            "buys": m.buys,
            "buy_counts": {int(k): int(v) for k, v in m.buy_counts.items()},
            # fixed wild reels: 0-based reel -> symbol index
            "wild_reels": ({int(r) - 1: idx[m.params["wild_reels"]["wild"]] for r in m.params["wild_reels"]["reels"]}
                           if "wild_reels" in m.params else {}),
        }
        if m.params.get("coins"):
            # the mode's own pays (coins x the one-coin pays, its coin_pays), as tables of their own
            from dataclasses import replace as _replace

            from analytic.model.game import BetMode, coin_game

            played = coin_game(game, mname)
            sub = compile_tables(_replace(played, modes={mname: BetMode(mname, m.cost, m.reel_set)}), stake)
            modes[mname]["tables"] = sub
            modes[mname]["tick_factor"] = den // sub.denom  # the mode's ticks in this game's ticks

    expands = np.array([bool(getattr(s, "expands", False)) for s in game.symbols], dtype=bool)
    classic = _compile_classic(game, idx, den)
    _check_int64(game, den, cand_pays, scatter_pays, classic, mult)
    return Tables(
        classic=classic,
        wild_mask=np.array([s.role in ("wild", "wild_scatter") for s in game.symbols], dtype=bool),
        ways=bool(game.ways),
        both_ways=bool(game.pays_both_ways),
        expands_mask=expands if expands.any() else None,
        name=game.name,
        path=game.path,
        reels=reels,
        rows=rows,
        symbol_names=names,
        lines=np.array(game.lines, dtype=np.intp).reshape(len(game.lines), reels),
        total_bet=int(game.total_bet),
        denom=den,
        cand_names=tuple(cand_names),
        cand_support=cand_support,
        cand_pays=cand_pays,
        multiplier=mult,
        has_multipliers=bool((mult != 1).any()),
        scatter_mask=scatter_mask,
        scatter_pays=scatter_pays,
        triggers=triggers,
        line_triggers=tuple(line_trig),
        strips=strips,
        strip_lengths=lengths,
        paytable={k: {int(c): int(p) for c, p in v.items()} for k, v in game.paytable.items()},
        cap_ticks=None if cap_lb is None else cap_lb * den,
        spin_cap_ticks=None if "spin" not in scoped else int(scoped["spin"] * den),
        feature_cap_ticks=None if "feature" not in scoped else int(scoped["feature"] * den),
        rules=plain(game.rules),
        modes=modes,
        features=prepared,
        feature_kinds={f: spec.engine for f, spec in game.features.items()},
    )


def _compile_classic(game: Game, idx: dict, den: int) -> dict | None:
    """Tables of group, combo and anywhere pays and of the line rules, or None when all are absent/default.

    Keys: ``combine`` (rule ``line_wild_multipliers``), ``all_wild`` (rule
    ``all_wild_win_multiplied``), ``base_choice`` (rule ``line_win_chosen_on
    = "base_pay"``); ``support`` (C, reels, n_symbols) bool: a cell showing
    symbol ``s`` on reel ``r`` counts for run candidate ``c`` (symbols with
    pays, groups, combos); ``pays`` (C, reels + 1) in ticks (a combo pays at
    its length only); ``any_support`` (A, n_symbols), ``any_pays`` (A, reels + 1)
    of the anywhere pays.
    """
    rules = game.rules
    default = (rules.get("line_wild_multipliers", "multiply") == "multiply"
               and rules.get("all_wild_win_multiplied", True) is True
               and rules.get("line_win_chosen_on", "final_pay") == "final_pay")
    if default and not (game.group_pays or game.combos or game.anywhere_pays):
        return None
    nsym, reels = len(game.symbols), game.reels

    def stands_for(entry: str) -> np.ndarray:
        # cells that count as a symbol or group: its members, and wilds substituting for a regular member
        members = game.groups.get(entry, frozenset({entry}))
        m = np.zeros(nsym, dtype=bool)
        for n in members:
            m[idx[n]] = True
            if game.symbol(n).role == "regular":
                for w in game.symbols:
                    if w.is_wild and (w.substitutes is None or n in w.substitutes):
                        m[idx[w.name]] = True
        return m

    support, pays, flat = [], [], []
    for cname, table in game.paytable.items():
        sym = game.symbol(cname)
        if sym.role not in _LINE_ROLES:
            continue
        row = np.zeros(reels + 1, dtype=np.int64)
        for k, v in table.items():
            row[int(k)] = int(v) * den
        support.append(np.broadcast_to(stands_for(cname), (reels, nsym)))
        pays.append(row)
        flat.append(False)
    for g, table in game.group_pays.items():
        row = np.zeros(reels + 1, dtype=np.int64)
        for k, v in table.items():
            row[int(k)] = int(v) * den
        support.append(np.broadcast_to(stands_for(g), (reels, nsym)))
        pays.append(row)
        flat.append(False)
    for combo in game.combos.values():
        row = np.zeros(reels + 1, dtype=np.int64)
        row[len(combo.cells)] = int(combo.pay) * den
        sup = np.zeros((reels, nsym), dtype=bool)
        for r, e in enumerate(combo.cells):
            sup[r] = stands_for(e)
        sup[len(combo.cells):] = False
        support.append(sup)
        pays.append(row)
        flat.append(not combo.multiplied)
    wilds_count = rules.get("anywhere_pay_wilds", "counted") == "counted"
    any_sup, any_pays = [], []
    for a, table in game.anywhere_pays.items():
        row = np.zeros(reels + 1, dtype=np.int64)
        for k, v in table.items():
            row[int(k)] = int(v) * den
        m = stands_for(a)
        if not wilds_count:
            m = np.zeros(nsym, dtype=bool)
            for n in game.groups.get(a, frozenset({a})):
                m[idx[n]] = True
        any_sup.append(m)
        any_pays.append(row)
    return {
        "combine": rules.get("line_wild_multipliers", "multiply"),
        "all_wild": bool(rules.get("all_wild_win_multiplied", True)),
        "base_choice": rules.get("line_win_chosen_on", "final_pay") == "base_pay",
        "support": np.array(support, dtype=bool).reshape(len(support), reels, nsym),
        "pays": np.array(pays, dtype=np.int64).reshape(len(pays), reels + 1),
        "unmultiplied": np.array(flat, dtype=bool),
        "any_support": np.array(any_sup, dtype=bool).reshape(len(any_sup), nsym),
        "any_pays": np.array(any_pays, dtype=np.int64).reshape(len(any_pays), reels + 1),
    }


def _classic_line_pays(tables: Tables, per_reel: list) -> np.ndarray:
    """Pay of every line under the classic pays and line rules (``tables.classic``), in ticks (N, n_lines).

    For each run candidate the run is the leading cells counting for it (on
    their reel); its multiplier comes from the wilds among those cells:
    their product, the sum of those above 1 (none: 1) or the largest, and 1
    when every cell of the run is a wild and ``all_wild`` is false.  An
    anywhere candidate pays on the number of the line's cells counting for
    it, unmultiplied.  The line pays one win: the largest final pay, or
    (``base_choice``) the largest paytable pay, ties to the larger final pay.
    """
    cl = tables.classic
    reels = tables.reels
    shape = per_reel[0].shape
    wild = tables.wild_mask
    # multiplier and all-wild flag of the first r cells, r = 0..reels
    pre_m = [np.ones(shape, dtype=np.int64) if cl["combine"] != "add" else np.zeros(shape, dtype=np.int64)]
    pre_w = [np.ones(shape, dtype=bool)]
    for r in range(reels):
        m = tables.multiplier[per_reel[r]]
        if cl["combine"] == "multiply":
            pre_m.append(pre_m[-1] * m)
        elif cl["combine"] == "add":
            pre_m.append(pre_m[-1] + np.where(m > 1, m, 0))
        else:
            pre_m.append(np.maximum(pre_m[-1], m))
        pre_w.append(pre_w[-1] & wild[per_reel[r]])
    pm = np.stack(pre_m)  # (reels + 1, N, L)
    if cl["combine"] == "add":
        pm = np.maximum(pm, 1)
    if not cl["all_wild"]:
        pm = np.where(np.stack(pre_w), 1, pm)
        pm[0] = 1
    best_b = np.zeros(shape, dtype=np.int64)
    best_f = np.zeros(shape, dtype=np.int64)

    def offer(b, f):
        nonlocal best_b, best_f
        if cl["base_choice"]:
            better = (b > best_b) | ((b == best_b) & (f > best_f))
            best_b = np.where(better, b, best_b)
            best_f = np.where(better, f, best_f)
        else:
            best_f = np.maximum(best_f, f)

    for c in range(len(cl["pays"])):
        alive = np.ones(shape, dtype=bool)
        run = np.zeros(shape, dtype=np.int64)
        for r in range(reels):
            alive &= cl["support"][c, r][per_reel[r]]
            run += alive
        b = cl["pays"][c][run]
        f = b if cl["unmultiplied"][c] else b * np.take_along_axis(pm, run[None], axis=0)[0]
        offer(b, f)
    for a in range(len(cl["any_pays"])):
        n = sum(cl["any_support"][a][per_reel[r]].astype(np.int64) for r in range(reels))
        b = cl["any_pays"][a][n]
        offer(b, b)
    return best_f


# --------------------------------------------------------------------------
# batch evaluation
# --------------------------------------------------------------------------


@dataclass
class BatchEvaluation:
    """Evaluation of ``N`` windows (all amounts in ticks).

    Attributes
    ----------
    line_pays : ndarray of int64, shape (N, n_lines)
        Pay of each payline; in a ways game shape (N, n_candidates), the ways
        pay of each candidate.
    line_win : ndarray of int64, shape (N,)
        Sum of the line pays.
    scatter_count : ndarray of int, shape (N,)
    scatter_win : ndarray of int64, shape (N,)
    awards : dict of str -> ndarray of int64, shape (N,)
        Feature -> award (0 = not triggered) of its symbol trigger.
    trigger_counts : dict of str -> ndarray of int, shape (N,)
        Feature -> count of its trigger symbols in the window.
    line_trigger_hits : dict of str -> ndarray of int, shape (N,)
        Feature -> number of paylines that start it.
    """

    line_pays: np.ndarray
    line_win: np.ndarray
    scatter_count: np.ndarray
    scatter_win: np.ndarray
    awards: dict
    trigger_counts: dict
    line_trigger_hits: dict

    @property
    def win(self) -> np.ndarray:
        """Line plus scatter win of each window, in ticks."""
        return self.line_win + self.scatter_win


def line_cells(tables: Tables, windows: np.ndarray) -> np.ndarray:
    """Symbols along every payline: shape (N, n_lines, reels)."""
    reel_idx = np.arange(tables.reels)
    return windows[:, reel_idx[None, :], tables.lines]


def line_symbols(tables: Tables, windows: np.ndarray) -> tuple:
    """Per reel, the symbol each payline shows there, and its line multiplier.

    Returns
    -------
    (list of ndarray, list of ndarray or None)
        ``reels`` arrays of shape (N, n_lines) of symbol indices, and the
        multipliers of those symbols (None when no symbol has one).
    """
    per_reel = [windows[:, r, tables.lines[:, r]] for r in range(tables.reels)]
    mults = [tables.multiplier[c] for c in per_reel] if tables.has_multipliers else None
    return per_reel, mults


def candidate_line_pays(tables: Tables, c: int, per_reel: list, mults, support=None) -> np.ndarray:
    """Pay of candidate ``c`` on every line, in ticks: shape (N, n_lines).

    Parameters
    ----------
    tables : Tables
    c : int
        Candidate index (into ``tables.cand_names``).
    per_reel, mults
        From :func:`line_symbols`.
    support : ndarray of bool, optional
        Symbols that continue the candidate's run (default
        ``tables.cand_support[c]``).
    """
    sup = tables.cand_support[c] if support is None else support
    alive = sup[per_reel[0]]  # the run is still going at this reel
    run = alive.astype(np.int8)
    mult = np.where(alive, mults[0], 1) if mults is not None else None
    for r in range(1, tables.reels):
        alive &= sup[per_reel[r]]
        run += alive
        if mults is not None:
            mult *= np.where(alive, mults[r], 1)
    pay = tables.cand_pays[c][run]
    if mult is not None:
        pay *= mult
    return pay


def base_windows(tables: Tables, mode: str, windows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """What a base spin of ``mode`` shows to the paylines and what it counts.

    Rules (docs/model-format.md, "Expanding wilds and wild reels"): a fixed
    wild reel of the mode shows its wild on every row (its landed symbols
    are those wilds); on any other reel, a window showing a wild with
    ``expands = true`` shows the topmost such wild on every row for the
    paylines, while scatter pays and triggers count the landed symbols.

    Parameters
    ----------
    tables : Tables
    mode : str or None
        The bet mode (its fixed wild reels); None for a feature's spins
        (expanding wilds only).
    windows : ndarray of int, shape (N, reels, rows)
        The drawn windows (symbol indices).

    Returns
    -------
    (shown, landed) : ndarrays like ``windows``
        ``landed`` is ``windows`` itself when nothing changes.
    """
    fixed = tables.modes[mode].get("wild_reels", {}) if mode is not None else {}
    if not fixed and tables.expands_mask is None:
        return windows, windows
    landed = windows.copy()
    for r, sym in fixed.items():
        landed[:, r, :] = sym
    shown = landed.copy()
    if tables.expands_mask is not None:
        for r in range(tables.reels):
            col = landed[:, r, :]
            hit = tables.expands_mask[col]  # N x rows
            has = hit.any(axis=1)
            top = col[np.arange(col.shape[0]), hit.argmax(axis=1)]  # the topmost expanding wild
            shown[:, r, :] = np.where(has[:, None], top[:, None], col)
    return shown, landed


def evaluate_windows(tables: Tables, windows: np.ndarray, landed: np.ndarray | None = None,
                     cell_multipliers: np.ndarray | None = None) -> BatchEvaluation:
    """Evaluate a batch of windows.

    Parameters
    ----------
    tables : Tables
        From :func:`compile_tables`.
    windows : ndarray of int, shape (N, reels, rows)
        Symbol indices the paylines read.
    landed : ndarray of int, shape (N, reels, rows), optional
        Symbol indices scatter pays and triggers count (default
        ``windows``), see :func:`base_windows`.
    cell_multipliers : ndarray of int64, shape (N, reels, rows), optional
        The multiplier each cell carries in a line or ways win, in place of
        its symbol's (``tables.multiplier[windows]``): a wild's multiplier
        drawn per reel and spin (mechanic ``reel_wild_multipliers``).  Not
        with classic line pays (``tables.classic``: ValueError).

    Returns
    -------
    BatchEvaluation
        Line pays, scatter and trigger results; amounts in ticks
        (``1 / tables.denom`` line-bet units).
    """
    n = windows.shape[0]
    if tables.ways:
        best = _ways_pays(tables, windows, cell_multipliers)
        line_win = best.sum(axis=1)
        return _finish(tables, windows, best, line_win, landed)
    # per reel, the symbol each payline shows there: R arrays of shape N x L
    per_reel, mults = line_symbols(tables, windows)
    if cell_multipliers is not None:
        if tables.classic is not None:
            raise ValueError("cell_multipliers: not with classic line pays")
        mults = [cell_multipliers[:, r, tables.lines[:, r]] for r in range(tables.reels)]
    best = np.zeros((n, tables.n_lines), dtype=np.int64)
    first = None
    if tables.classic is not None:
        best = _classic_line_pays(tables, per_reel)
    elif tables.rules.get("line_wild_pay", "highest") == "first_non_wild" and tables.wild_mask is not None:
        # the first non-wild symbol of each line fixes the line's symbol (-1: only wilds);
        # wilds still pay their own runs
        first = np.full(per_reel[0].shape, -1, dtype=np.int64)
        for r in range(tables.reels):
            first = np.where((first < 0) & ~tables.wild_mask[per_reel[r]], per_reel[r], first)
    for c in range(len(tables.cand_names) if tables.classic is None else 0):
        pay = candidate_line_pays(tables, c, per_reel, mults)
        if first is not None:
            sym = tables.index(tables.cand_names[c])
            if not tables.wild_mask[sym]:
                pay = np.where(first == sym, pay, 0)
        np.maximum(best, pay, out=best)
    if tables.both_ways:
        best = best + _right_to_left(tables, per_reel, mults)
    line_win = best.sum(axis=1)
    return _finish(tables, windows, best, line_win, landed)


def _right_to_left(tables: Tables, per_reel: list, mults) -> np.ndarray:
    """Right-to-left pay of every payline (pays both ways), in ticks: shape (N, n_lines).

    The highest candidate pay of the trailing run (cells supporting the
    candidate from the last reel leftwards, times their multipliers), a run
    over every reel excluded (it is paid once, from the left).
    """
    R = tables.reels
    best = np.zeros(per_reel[0].shape, dtype=np.int64)
    for c in range(len(tables.cand_names)):
        sup = tables.cand_support[c]
        alive = sup[per_reel[R - 1]]
        run = alive.astype(np.int64)
        mult = np.where(alive, mults[R - 1], 1) if mults is not None else None
        for r in range(R - 2, -1, -1):
            alive = alive & sup[per_reel[r]]
            run += alive
            if mults is not None:
                mult = mult * np.where(alive, mults[r], 1)
        pay = np.where(run < R, tables.cand_pays[c][run], 0)
        if mult is not None:
            pay = pay * mult
        np.maximum(best, pay, out=best)
    return best


def _ways_pays(tables: Tables, windows: np.ndarray, cell_multipliers: np.ndarray | None = None) -> np.ndarray:
    """Ways pay of every candidate, in ticks: shape (N, n_candidates) (module docstring's rule);
    ``cell_multipliers`` (N, reels, rows) in place of the symbols' multipliers when given."""
    n = windows.shape[0]
    R = tables.reels
    out = np.zeros((n, len(tables.cand_names)), dtype=np.int64)
    mult_cells = tables.multiplier[windows] if cell_multipliers is None else cell_multipliers  # (N, reels, rows)
    for c in range(len(tables.cand_names)):
        m = (tables.cand_support[c][windows] * mult_cells).sum(axis=2)  # (N, reels): weighted cells per reel
        alive = np.ones(n, dtype=bool)
        run = np.zeros(n, dtype=np.int64)
        ways = np.ones(n, dtype=np.int64)
        for r in range(R):
            alive &= m[:, r] > 0
            run += alive
            ways = np.where(alive, ways * m[:, r], ways)
        pay = tables.cand_pays[c][run] * ways
        if tables.both_ways:
            back = np.ones(n, dtype=bool)
            rrun = np.zeros(n, dtype=np.int64)
            rways = np.ones(n, dtype=np.int64)
            for r in range(R - 1, -1, -1):
                back &= m[:, r] > 0
                rrun += back
                rways = np.where(back, rways * m[:, r], rways)
            pay = pay + np.where(run < R, tables.cand_pays[c][rrun] * rways, 0)
        out[:, c] = pay
    return out


def _finish(tables: Tables, windows: np.ndarray, best: np.ndarray, line_win: np.ndarray,
            landed: np.ndarray | None = None) -> BatchEvaluation:
    """Scatter, trigger and line-trigger results of a batch, with its line (or ways) pays."""
    n = windows.shape[0]
    flat = (windows if landed is None else landed).reshape(n, -1)
    scatter_count = tables.scatter_mask[flat].sum(axis=1)
    scatter_win = tables.scatter_pays[scatter_count]

    awards, tcounts = {}, {}
    for fname, (mask, req, award) in tables.triggers.items():
        cnt = mask[flat].sum(axis=1)
        a = award[cnt]
        if req is not None:
            a = np.where(req[flat].any(axis=1), a, 0)
        awards[fname] = a
        tcounts[fname] = cnt

    lt_hits = {}
    cells = line_cells(tables, windows) if tables.line_triggers else None
    for bidx, table in tables.line_triggers:
        is_b = np.logical_and.accumulate(cells == bidx, axis=2).sum(axis=2)  # N x L run of bonus
        for i, (count, fname) in enumerate(table):
            upper = table[i + 1][0] if i + 1 < len(table) else None
            hit = is_b >= count
            if upper is not None:
                hit &= is_b < upper
            lt_hits[fname] = lt_hits.get(fname, 0) + hit.sum(axis=1)
    return BatchEvaluation(best, line_win, scatter_count, scatter_win, awards, tcounts, lt_hits)


# --------------------------------------------------------------------------
# scalar reference
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class WindowResult:
    """Evaluation of one window, read directly from the game.

    Attributes
    ----------
    line_pays : tuple of int
        Pay of each payline, in **line-bet units** (a ways game: of each
        symbol with pays, its ways pay).
    line_win : int
        Their sum (line-bet units).
    scatter_count : int
    scatter_win : Fraction
        Scatter pay in **line-bet units** (``pays[count] * total_bet``).
    awards : dict of str -> int
        Feature -> award of its symbol trigger (only triggered features).
    line_triggers : tuple of str
        Features started by paylines, once per line.
    """

    line_pays: tuple
    line_win: int
    scatter_count: int
    scatter_win: Fraction
    awards: dict
    line_triggers: tuple

    @property
    def win(self) -> Fraction:
        """Line plus scatter win in line-bet units."""
        return self.line_win + self.scatter_win


def _supports(game: Game, cell: str, candidate: str) -> bool:
    if cell == candidate:
        return True
    if game.symbol(candidate).role != "regular":
        return False
    sym = game.symbol(cell)
    return sym.is_wild and (sym.substitutes is None or candidate in sym.substitutes)


def _nondefault_line_rules(game: Game) -> bool:
    r = game.rules
    return (r.get("line_wild_multipliers", "multiply") != "multiply" or r.get("all_wild_win_multiplied", True) is not True
            or r.get("line_win_chosen_on", "final_pay") != "final_pay")


def _classic_line_pay(game: Game, cells: list[str]) -> int:
    """One line's pay under groups, combos, anywhere pays and the line rules (line-bet units).

    See :func:`_classic_line_pays` for the rules read; this is the plain
    reading, one line at a time.
    """
    rules = game.rules

    def counts_as(cell: str, entry: str) -> bool:
        members = game.groups.get(entry, frozenset({entry}))
        if cell in members:
            return True
        sym = game.symbol(cell)
        return sym.is_wild and any(game.symbol(m).role == "regular" and
                                   (sym.substitutes is None or m in sym.substitutes) for m in members)

    def mult(run: list[str]) -> int:
        ms = [game.symbol(c).multiplier for c in run if game.symbol(c).is_wild]
        if run and len(ms) == len(run) and not rules.get("all_wild_win_multiplied", True):
            return 1
        how = rules.get("line_wild_multipliers", "multiply")
        if how == "add":
            return max(sum(m for m in ms if m > 1), 1)
        if how == "highest_once":
            return max(ms + [1])
        p = 1
        for m in ms:
            p *= m
        return p

    offers = [(0, 0)]  # (paytable pay, final pay)
    entries = [(c, dict(p), None, True) for c, p in game.paytable.items() if game.symbol(c).role in _LINE_ROLES]
    entries += [(g, dict(p), None, True) for g, p in game.group_pays.items()]
    entries += [(None, {len(cb.cells): cb.pay}, cb.cells, cb.multiplied) for cb in game.combos.values()]
    for entry, pays, combo, multiplied in entries:
        run = 0
        for i, cell in enumerate(cells):
            want = entry if combo is None else (combo[i] if i < len(combo) else None)
            if want is None or not counts_as(cell, want):
                break
            run += 1
        b = int(pays.get(run, 0))
        offers.append((b, b * mult(cells[:run]) if multiplied else b))
    wilds = rules.get("anywhere_pay_wilds", "counted") == "counted"
    for a, pays in game.anywhere_pays.items():
        members = game.groups.get(a, frozenset({a}))
        n = sum(1 for c in cells if c in members or (wilds and counts_as(c, a)))
        b = int(pays.get(n, 0))
        offers.append((b, b))
    if rules.get("line_win_chosen_on", "final_pay") == "base_pay":
        return max(offers)[1]
    return max(f for _, f in offers)


def evaluate_window(game: Game, window: Sequence[Sequence]) -> WindowResult:
    """Evaluate one window the plain way, straight from the rules.

    Parameters
    ----------
    game : Game
    window : sequence of sequences
        ``window[reel][row]``: a symbol name or symbol index.

    Returns
    -------
    WindowResult
        Amounts in line-bet units.
    """
    names = [s.name for s in game.symbols]
    win = [[c if isinstance(c, str) else names[int(c)] for c in reel] for reel in window]

    line_pays = []
    if game.ways:
        for cand, pays in game.paytable.items():
            if game.symbol(cand).role not in _LINE_ROLES:
                continue
            per = [sum(game.symbol(c).multiplier if game.symbol(c).is_wild else 1
                       for c in reel if _supports(game, c, cand)) for reel in win]
            n, ways = 0, 1
            while n < len(per) and per[n] > 0:
                ways *= per[n]
                n += 1
            pay = int(pays.get(n, 0)) * ways
            if game.pays_both_ways and n < len(per):
                r, ways = 0, 1
                while per[-1 - r] > 0:
                    ways *= per[-1 - r]
                    r += 1
                pay += int(pays.get(r, 0)) * ways
            line_pays.append(pay)
    for line in game.lines:
        cells = [win[r][row] for r, row in enumerate(line)]
        if game.classic_pays or _nondefault_line_rules(game):
            line_pays.append(_classic_line_pay(game, cells))
            continue
        best = 0
        # rule line_wild_pay = "first_non_wild": the first non-wild symbol fixes the line's
        # symbol; wilds still pay their own runs
        first = next((c for c in cells if not game.symbol(c).is_wild), None)
        fnw = game.rules.get("line_wild_pay", "highest") == "first_non_wild"
        for cand, pays in game.paytable.items():
            if game.symbol(cand).role not in _LINE_ROLES:
                continue
            if fnw and not game.symbol(cand).is_wild and cand != first:
                continue
            run, mult = 0, 1
            for cell in cells:
                if not _supports(game, cell, cand):
                    break
                run += 1
                sym = game.symbol(cell)
                if sym.is_wild:
                    mult *= sym.multiplier
            best = max(best, int(pays.get(run, 0)) * mult)
        if game.pays_both_ways:  # right to left, a run over every reel paid once (from the left)
            back = 0
            for cand, pays in game.paytable.items():
                if game.symbol(cand).role not in _LINE_ROLES:
                    continue
                run, mult = 0, 1
                for cell in reversed(cells):
                    if not _supports(game, cell, cand):
                        break
                    run += 1
                    sym = game.symbol(cell)
                    if sym.is_wild:
                        mult *= sym.multiplier
                if run < len(cells):
                    back = max(back, int(pays.get(run, 0)) * mult)
            best += back
        line_pays.append(best)

    all_cells = [c for reel in win for c in reel]
    scount, swin = 0, Fraction(0)
    if game.scatter is not None:
        scount = sum(1 for c in all_cells if c in game.scatter.symbols)
        swin = _as_fraction(game.scatter.pays.get(scount, 0)) * game.total_bet

    awards = {}
    for fname, spec in game.features.items():
        t = spec.trigger
        if t is None:
            continue
        counted = [c for c in all_cells if c in t.symbols]
        if t.requires and not any(c in t.requires for c in counted):
            continue
        a = lookup_award({int(k): int(v) for k, v in t.counts.items()}, len(counted))
        if a:
            awards[fname] = a

    started = []
    for bonus, table in game.line_triggers.items():
        for line in game.lines:
            run = 0
            for r, row in enumerate(line):
                if win[r][row] != bonus:
                    break
                run += 1
            keys = [int(k) for k in table if int(k) <= run]
            if keys:
                started.append(str(table[max(keys)] if max(keys) in table else table[str(max(keys))]))
    return WindowResult(tuple(line_pays), sum(line_pays), scount, swin, awards, tuple(started))
