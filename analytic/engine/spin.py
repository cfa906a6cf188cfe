"""From a game model to the walk's input: windows, cell roles, counters.

:func:`build_spin` turns a :class:`~analytic.model.game.Game` and one of its
reel sets into a :class:`~analytic.engine.linewalk.SpinSpec`.  Features build
modified spins (expanded wild reels, extra wilds, changed substitution, a
free-spin multiplier) by passing their own windows or cells here; the
payline logic stays in :mod:`analytic.engine.linewin`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from analytic.engine.linewalk import ReelWindows, SpinSpec
from analytic.engine.linewin import CellRole, LinePaytable
from analytic.model.game import Game

__all__ = [
    "CounterDef",
    "strip_windows",
    "line_paytable",
    "cell_roles",
    "build_spin",
    "max_count",
    "stand_in",
    "shown_windows",
    "landed_counters",
    "base_spin",
]


@dataclass(frozen=True)
class CounterDef:
    """A quantity summed over the reels of a spin.

    Attributes
    ----------
    name : str
    symbols : frozenset of str
        Cell names that count.
    per : str
        ``"cells"``: every visible cell counts; ``"reels"``: a reel counts 1
        when any of its visible cells shows one of the symbols.
    """

    name: str
    symbols: frozenset[str]
    per: str = "cells"

    def count(self, window: Sequence[str]) -> int:
        n = sum(1 for c in window if c in self.symbols)
        return min(n, 1) if self.per == "reels" else n


def strip_windows(strip: Sequence[str], rows: int) -> dict[tuple[str, ...], int]:
    """Distinct windows of a strip and how many stops show each.

    Parameters
    ----------
    strip : sequence of str
        Symbols in stop order; stop ``s`` shows ``strip[s .. s+rows-1]``
        (wrapping) in rows ``0 .. rows-1``.
    rows : int

    Returns
    -------
    dict
        window (tuple of ``rows`` names) -> number of stops (sums to ``len(strip)``).
    """
    n = len(strip)
    return dict(Counter(tuple(strip[(s + r) % n] for r in range(rows)) for s in range(n)))


def line_paytable(game: Game) -> tuple[LinePaytable, dict[str, int]]:
    """Candidates of the paylines and their pays in line-bet units.

    Returns
    -------
    (LinePaytable, index)
        ``index`` maps a candidate's name to its row.  Candidates are the
        symbols with line pays (regular symbols and wilds' own pays) and
        bonus symbols with line triggers, in model order; then the groups
        with pays (named as the group), the combos (``combo:NAME``, paying
        at their length only) and the anywhere pays (``anywhere:NAME``).
    """
    names, pays, trig, own, anyw, flat = [], [], [], set(), set(), set()
    for s in game.symbols:
        row = game.paytable.get(s.name)
        lt = game.line_triggers.get(s.name)
        if row or lt:
            names.append(s.name)
            pays.append(tuple((row or {}).get(n, 0) for n in range(game.reels + 1)))
            trig.append(min(lt) if lt else 0)
            if s.is_wild:
                own.add(len(names) - 1)
    for g, row in game.group_pays.items():
        names.append(g)
        pays.append(tuple(row.get(n, 0) for n in range(game.reels + 1)))
        trig.append(0)
    for cname, combo in game.combos.items():
        names.append(f"combo:{cname}")
        pays.append(tuple(combo.pay if n == len(combo.cells) else 0 for n in range(game.reels + 1)))
        trig.append(0)
        if not combo.multiplied:
            flat.add(len(names) - 1)
    for a, row in game.anywhere_pays.items():
        names.append(f"anywhere:{a}")
        pays.append(tuple(row.get(n, 0) for n in range(game.reels + 1)))
        trig.append(0)
        anyw.add(len(names) - 1)
    index = {n: i for i, n in enumerate(names)}
    return LinePaytable(tuple(names), tuple(pays), tuple(trig), frozenset(own), frozenset(anyw),
                        frozenset(flat)), index


def _entry_supported(game: Game, cell, entry: str) -> bool:
    """Whether a cell showing symbol ``cell`` counts as ``entry`` (a symbol or group name)."""
    members = game.groups.get(entry, frozenset({entry}))
    if cell.name in members:
        return True
    if not cell.is_wild:
        return False
    regular = {m for m in members if game.symbol(m).role == "regular"}
    return bool(regular) and (cell.substitutes is None or bool(regular & cell.substitutes))


def cell_roles(
    game: Game,
    index: Mapping[str, int],
    *,
    substitutes: Mapping[str, frozenset[str]] | None = None,
    multipliers: Mapping[str, int] | None = None,
) -> dict[str, CellRole]:
    """Line role of every symbol of the game.

    Parameters
    ----------
    game : Game
    index : mapping
        Candidate name -> row, from :func:`line_paytable`.
    substitutes : mapping, optional
        Override of a wild's substitution set (symbol names), e.g. Book of
        Power's books not substituting for the expanding symbol.
    multipliers : mapping, optional
        Override of a wild's multiplier.

    Returns
    -------
    dict
        symbol name -> :class:`CellRole`.  Scatters and blanks support no
        candidate and so end every run.
    """
    regular = [s.name for s in game.symbols if s.role == "regular" and s.name in index]
    roles: dict[str, CellRole] = {}
    for s in game.symbols:
        if s.is_wild:
            subs = (substitutes or {}).get(s.name, s.substitutes)
            names = set(regular if subs is None else (x for x in subs if x in index))
            if s.name in index:
                names.add(s.name)
            mult = (multipliers or {}).get(s.name, s.multiplier)
            roles[s.name] = CellRole(frozenset(index[x] for x in names) | _classic(game, index, s),
                                     mult, wild=True, supports_at=_combo_at(game, index, s))
        elif s.name in index and s.role in ("regular", "bonus"):
            roles[s.name] = CellRole(frozenset({index[s.name]}) | _classic(game, index, s),
                                     supports_at=_combo_at(game, index, s))
        else:
            roles[s.name] = CellRole(_classic(game, index, s), supports_at=_combo_at(game, index, s))
    return roles


def _classic(game: Game, index: Mapping[str, int], sym) -> frozenset[int]:
    """Group and anywhere candidates a cell showing ``sym`` supports on every reel."""
    out = set()
    for g in game.group_pays:
        if g in index and _entry_supported(game, sym, g):
            out.add(index[g])
    wilds_count = game.rules.get("anywhere_pay_wilds", "counted") == "counted"
    for a in game.anywhere_pays:
        name = f"anywhere:{a}"
        if name in index and _entry_supported(game, sym, a) and (wilds_count or not sym.is_wild or
                                                                 sym.name in game.groups.get(a, {a})):
            out.add(index[name])
    return frozenset(out)


def _combo_at(game: Game, index: Mapping[str, int], sym) -> tuple:
    """Per reel, the combo candidates a cell showing ``sym`` supports there (empty tuple: none)."""
    if not game.combos:
        return ()
    at = [set() for _ in range(game.reels)]
    for cname, combo in game.combos.items():
        name = f"combo:{cname}"
        if name not in index:
            continue
        for k, entry in enumerate(combo.cells):
            if _entry_supported(game, sym, entry):
                at[k].add(index[name])
    return tuple(frozenset(x) for x in at)


def build_spin(
    game: Game,
    reel_set: str | None = None,
    counters: Iterable[CounterDef] = (),
    *,
    windows: Sequence[Mapping[tuple[str, ...], int]] | None = None,
    roles: Mapping[str, CellRole] | None = None,
    paytable: LinePaytable | None = None,
    line_multiplier: int = 1,
    reading: str | None = None,
) -> SpinSpec:
    """The :class:`SpinSpec` of one spin on a reel set.

    Parameters
    ----------
    game : Game
    reel_set : str, optional
        Name of the reel set; ignored when ``windows`` is given.
    counters : iterable of CounterDef
        Quantities to track jointly with the win (scatter cells, trigger
        cells, reels showing an expanding symbol, ...).
    windows : sequence of mapping, optional
        Per reel: window (tuple of cell names) -> integer weight.  Defaults
        to the windows of the reel set's strips.
    roles : mapping, optional
        Cell name -> :class:`CellRole`; defaults to :func:`cell_roles`.
        Must cover every name appearing in the windows.
    paytable : LinePaytable, optional
        Defaults to :func:`line_paytable`; must match ``roles``.
    line_multiplier : int
        Multiplies every line win.
    reading : str, optional
        Line reading for leading wilds; default the model's rule
        ``line_wild_pay`` (``"highest"`` when unset).

    Raises
    ------
    KeyError
        A window shows a cell name that ``roles`` does not define.
    """
    if paytable is None or roles is None:
        pt, index = line_paytable(game)
        paytable = paytable or pt
        roles = roles or cell_roles(game, index)
    if windows is None:
        windows = [strip_windows(strip, game.rows) for strip in game.reel_sets[reel_set]]
    counters = tuple(counters)
    names = list(roles)
    role_id = {n: i for i, n in enumerate(names)}
    reels = []
    for wins in windows:
        items = sorted(wins.items())
        reels.append(
            ReelWindows(
                cells=tuple(tuple(role_id[c] for c in w) for w, _ in items),
                weights=tuple(int(n) for _, n in items),
                counters=tuple(tuple(cd.count(w) for cd in counters) for w, _ in items),
            )
        )
    return SpinSpec(
        paytable=paytable,
        roles=tuple(roles[n] for n in names),
        lines=tuple(tuple(l) for l in game.lines),
        reels=tuple(reels),
        counter_names=tuple(cd.name for cd in counters),
        line_multiplier=line_multiplier,
        reading=reading or game.rules.get("line_wild_pay", "highest"),
        ways=game.ways,
        both_ways=game.pays_both_ways,
        combine=game.rules.get("line_wild_multipliers", "multiply"),
        all_wild_multiplied=game.rules.get("all_wild_win_multiplied", True),
        chosen_on=game.rules.get("line_win_chosen_on", "final_pay"),
        source=game.path,
    )


def max_count(windows: Sequence[Mapping[tuple[str, ...], int]], symbols: frozenset[str]) -> int:
    """Largest number of cells showing ``symbols`` that any spin can show."""
    return sum(max(sum(c in symbols for c in w) for w in wins) for wins in windows)


def stand_in(wild: str, landed: str) -> str:
    """Cell name of a row covered by the expanded ``wild`` where ``landed`` landed.

    The cell plays ``wild``'s line role and counts as ``landed`` for scatter
    pays and triggers.  ``~`` cannot start a symbol name, so no stand-in
    clashes with a symbol.
    """
    return f"~{wild}~{landed}"


def shown_windows(
    game: Game, strips: Sequence[Sequence[str]], wild_reels: Mapping[str, object] | None = None
) -> tuple[list[dict[tuple[str, ...], int]], dict[str, tuple[str, str]]]:
    """Per-reel window law of a base spin after expanding wilds and fixed wild reels.

    Rules (docs/model-format.md, "Expanding wilds and wild reels"):

    * a reel listed in ``wild_reels["reels"]`` (1-based) shows
      ``wild_reels["wild"]`` on every row, whatever its stop (the stop is
      still drawn: the window keeps the strip length as its weight, so the
      cycle is unchanged);
    * otherwise, when the window shows a wild with ``expands = true``, the
      reel shows that wild on every row for the paylines; with several
      expanding wilds on one reel, the one on the topmost row expands;
    * scatter pays and triggers count the symbols as they landed: a covered
      row is a :func:`stand_in` cell (the wild's line role, the landed
      symbol's counts); an expanded wild counts once, where it landed.

    Parameters
    ----------
    game : Game
    strips : sequence of sequence of str
        One strip per reel.
    wild_reels : mapping, optional
        A bet mode's ``params["wild_reels"]``.

    Returns
    -------
    (windows, stand_ins)
        ``windows``: per reel, shown window -> number of stops (sums to the
        strip length); ``stand_ins``: stand-in cell name -> (wild, landed
        symbol).  Without expanding wilds or wild reels, the strips' own
        windows (:func:`strip_windows`) and no stand-ins.
    """
    expanding = frozenset(s.name for s in game.symbols if s.expands)
    fixed = set(wild_reels["reels"]) if wild_reels else set()
    windows: list[dict[tuple[str, ...], int]] = []
    stand_ins: dict[str, tuple[str, str]] = {}
    for r, strip in enumerate(strips, start=1):
        plain = strip_windows(strip, game.rows)
        if r in fixed:
            windows.append({(wild_reels["wild"],) * game.rows: len(strip)})
            continue
        out: dict[tuple[str, ...], int] = {}
        for w, n in plain.items():
            wild = next((c for c in w if c in expanding), None)
            if wild is not None:
                cells = []
                for c in w:
                    if c == wild:
                        cells.append(c)
                    else:
                        name = stand_in(wild, c)
                        stand_ins[name] = (wild, c)
                        cells.append(name)
                w = tuple(cells)
            out[w] = out.get(w, 0) + n
        windows.append(out)
    return windows, stand_ins


def landed_counters(counters: Iterable[CounterDef], stand_ins: Mapping[str, tuple[str, str]]) -> list[CounterDef]:
    """``counters`` also counting each stand-in cell whose landed symbol they count."""
    out = []
    for cd in counters:
        extra = frozenset(n for n, (_, landed) in stand_ins.items() if landed in cd.symbols)
        out.append(CounterDef(cd.name, cd.symbols | extra, cd.per) if extra else cd)
    return out


def base_spin(game: Game, reel_set: str, counters: Iterable[CounterDef] = (), *,
              wild_reels: Mapping[str, object] | None = None) -> SpinSpec:
    """The :class:`SpinSpec` of a base-game spin: :func:`build_spin` on the
    :func:`shown_windows` of ``reel_set`` (expanding wilds, a mode's fixed
    wild reels), counters reading the landed symbols.

    Parameters
    ----------
    game : Game
    reel_set : str
    counters : iterable of CounterDef
        Over landed symbols (see :func:`shown_windows`).
    wild_reels : mapping, optional
        The bet mode's ``params["wild_reels"]``.
    """
    windows, stand_ins = shown_windows(game, game.reel_sets[reel_set], wild_reels)
    if not stand_ins and not wild_reels:
        return build_spin(game, reel_set, counters)
    pt, index = line_paytable(game)
    roles = cell_roles(game, index)
    for name, (wild, _) in stand_ins.items():
        roles[name] = roles[wild]
    return build_spin(game, counters=landed_counters(counters, stand_ins), windows=windows, roles=roles,
                      paytable=pt)
