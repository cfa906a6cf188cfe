"""Read a TOML model file into an immutable :class:`~analytic.model.game.Game`.

The loader validates at the door: every rule of ``docs/model-format.md`` is
checked here, and the first problem found raises
:class:`analytic.errors.ModelError` naming the file, the key path (e.g.
``reels.base[2][17]``, 0-based indices) and what is wrong.  Engines can then
trust every field of the :class:`Game`.

Model files are data: they are parsed with :mod:`tomllib` (and :mod:`csv`
for reel strips kept in CSV files) and nothing is evaluated or written.

Sections are read in this order (which decides the first error reported):
``[game]``, ``[symbols]``, ``[paylines]``, ``[paytable]``, ``[reels]``,
``[scatter]``, ``[features]``, ``[line_triggers]``, ``[modes]``, trigger
reachability, ``[cap]``, ``[rules]``, ``[design]``.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import stat
import tomllib
import unicodedata
import warnings
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping

from analytic.errors import ModelError, ModelWarning
from analytic.limits import (MAX_CYCLE_DIGITS, MAX_FILE_BYTES, MAX_KEY_CHARS, MAX_NESTING, MAX_REELS, MAX_ROWS,
                             MAX_TEXT_CHARS)

# ``kinds`` imports analytic.model.game; use it only through attribute access
# at call time so either package may be imported first.
from analytic.model import kinds
from analytic.model.game import (
    ROLES,
    BetMode,
    FeatureSpec,
    Game,
    Combo,
    ScatterPay,
    Symbol,
    WinCap,
    frozen_mapping,
)

__all__ = ["load_model", "load_model_text", "SECTIONS", "AUTOPLAY_STOPS"]


#: Top-level tables a model file may have.
SECTIONS = (
    "game", "symbols", "paytable", "line_triggers", "scatter", "paylines",
    "reels", "modes", "features", "cap", "rules", "design", "groups", "combos", "anywhere_pays",
    "autoplay",
)
#: The advanced autoplay stop options a game's rules may offer (``[autoplay] stops``).
AUTOPLAY_STOPS = ("any_win", "feature", "single_win", "cash_up", "cash_down")
_GAME_KEYS = ("name", "reels", "rows", "total_bet", "provider", "notes", "published")
_SYMBOL_KEYS = ("role", "tier", "rank", "substitutes", "except", "multiplier", "expands")
_WILD_ONLY = ("substitutes", "except", "multiplier", "expands")
_MODE_KEYS = ("cost", "reels", "description", "gamble", "coins", "coin_pays", "wild_reels")
_BUY_KEYS = ("cost", "buys", "buy_counts", "description")
_GAMBLE_KEYS = ("feature", "into", "policy", "win_probability", "count")
_FEATURE_COMMON = ("kind", "reels", "trigger")
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_\-]*")

if TYPE_CHECKING:
    #: The loader's context: path/key tracking and the typed getters.
    from analytic.model.kinds import ValidationContext as _Ctx


def show(value: Any) -> str:
    """See :func:`analytic.model.kinds.show`."""
    return kinds.show(value)


def load_model(path: str | Path) -> Game:
    """Read and validate a model file.

    Parameters
    ----------
    path : str or pathlib.Path
        The TOML model file.  CSV reel strips it names are resolved relative
        to its directory.

    Returns
    -------
    Game
        The validated, immutable game model.

    Raises
    ------
    ModelError
        The file cannot be read, is not TOML, or breaks a rule of the model
        format; the first problem found is reported with its key path.
    """
    p = Path(path)
    data = read_limited(p, str(path), "", "the model file")
    try:
        text = data.decode("utf-8-sig")  # a byte order mark (Windows editors) is not text
    except UnicodeDecodeError as exc:
        raise ModelError(str(path), "", f"not UTF-8 text: {exc}") from None
    return load_model_text(text, path=str(path), base_dir=p.parent)


def read_limited(file: Path, path: str, key: str, what: str) -> bytes:
    """The bytes of a regular file of at most :data:`~analytic.limits.MAX_FILE_BYTES`.

    Parameters
    ----------
    file : pathlib.Path
        The file to read (symbolic links followed).
    path, key : str
        The model file and key path named in an error.
    what : str
        The file's description in an error ("the model file", "CSV file 'x.csv'").

    Returns
    -------
    bytes

    Raises
    ------
    ModelError
        The file is missing or unreadable, not a regular file (a folder, a
        named pipe, a device such as ``/dev/zero``), or larger than the limit.
        Nothing is read from a file that is not regular, so a pipe cannot hang
        the reader.
    """
    try:
        st = os.stat(file)
        if not stat.S_ISREG(st.st_mode):
            kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (a pipe, device or socket)"
            raise ModelError(path, key, f"cannot read {what}: it is {kind}")
        if st.st_size > MAX_FILE_BYTES:
            raise ModelError(path, key, f"{what} has {st.st_size:,} bytes; the limit is "
                                        f"{MAX_FILE_BYTES:,} bytes ({MAX_FILE_BYTES >> 20} MiB)")
        # O_NONBLOCK: should the file be swapped for a pipe after the check, open() does not wait
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise ModelError(path, key, f"cannot read {what}: not a regular file")
            data = fh.read(MAX_FILE_BYTES + 1)
    except ModelError:
        raise
    except OSError as exc:
        raise ModelError(path, key, f"cannot read {what}: {exc.strerror or exc}") from None
    except ValueError as exc:  # an embedded NUL byte in the path
        raise ModelError(path.replace("\0", "\\0"), key, f"cannot read {what}: {exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise ModelError(path, key, f"{what} is larger than the limit of {MAX_FILE_BYTES:,} bytes")
    return data


def load_model_text(text: str, path: str = "<string>", base_dir: str | Path | None = None) -> Game:
    """Validate a model given as TOML text.

    Parameters
    ----------
    text : str
        The TOML document.
    path : str, default "<string>"
        Name used in messages and stored as ``Game.path``.
    base_dir : str or pathlib.Path, optional
        Directory CSV reel strips are resolved against; default: the
        directory of ``path`` if it names an existing file's directory,
        else the current directory.

    Returns
    -------
    Game

    Raises
    ------
    ModelError
        ``text`` is not TOML or breaks a rule of the model format.
    """
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ModelError(path, "", f"not valid TOML: {exc}") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise ModelError(path, "", f"not a usable TOML file: {exc}") from None
    except RecursionError:
        raise ModelError(path, "", f"not a usable TOML file: tables or lists nested more than "
                                   f"{MAX_NESTING} levels deep") from None
    if base_dir is None:
        parent = Path(path).parent
        base_dir = parent if path != "<string>" and parent.is_dir() else Path.cwd()
    ctx = kinds.ValidationContext(path, base_dir)
    _check_data(ctx, raw)
    return _build(raw, ctx)


# --------------------------------------------------------------------------


#: Bidirectional embeddings, overrides and isolates: text holding them can display as other text
#: (a published ``"\u202e%0.69"`` shows as ``96.0%``), so they are control characters here.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _control(text: str, allowed: str = "") -> str | None:
    """The first control character of ``text`` not in ``allowed`` (Unicode category Cc, or a
    bidirectional control), or None."""
    for ch in text:
        if (unicodedata.category(ch) == "Cc" or ch in _BIDI) and ch not in allowed:
            return ch
    return None


def _invisible(text: str) -> str | None:
    """The first invisible format or separator character of a name (Unicode categories Cf, Zl,
    Zp: zero-width space and joiners, soft hyphen, BOM, line separators), or None: two names that
    differ only by one look the same in every sheet."""
    for ch in text:
        if unicodedata.category(ch) in ("Cf", "Zl", "Zp"):
            return ch
    return None


def _check_data(ctx: _Ctx, raw: dict[str, Any]) -> None:
    """Limits every value of the parsed file must keep, checked without recursion.

    Nesting depth (:data:`~analytic.limits.MAX_NESTING`), key and string
    lengths, and control characters: none in a key, only tab and line breaks
    in a string (a control character cannot reach a report as text, and
    spreadsheets refuse it).
    """
    stack: list[tuple[Any, str, int]] = [(raw, "", 0)]
    while stack:
        value, key, depth = stack.pop()
        if isinstance(value, Mapping):
            if depth >= MAX_NESTING:
                ctx.fail(key, f"tables and lists nest more than {MAX_NESTING} levels deep")
            seen: dict = {}
            for k, v in value.items():
                kk = ctx.join(key, k)
                if len(k) > MAX_KEY_CHARS:
                    ctx.fail(ctx.join(key, show(k)), f"key has {len(k):,} characters; at most {MAX_KEY_CHARS}")
                ch = _control(k)
                if ch is not None:
                    ctx.fail(ctx.join(key, show(k)), f"key contains the control character {ch!r}")
                ch = _invisible(k)
                if ch is not None:
                    ctx.fail(ctx.join(key, show(k)), f"key contains the invisible character {ch!r} "
                                                     "(a name must look as it is)")
                nfc = unicodedata.normalize("NFC", k)
                if nfc in seen:  # "caf\u00e9" and "cafe\u0301": two names that look the same
                    ctx.fail(ctx.join(key, show(k)), f"key {show(k)} looks the same as the key {show(seen[nfc])} "
                                                     f"(the same text in another Unicode form: {ascii(k)[:60]} and "
                                                     f"{ascii(seen[nfc])[:60]}); give each name once")
                seen[nfc] = k
                stack.append((v, kk, depth + 1))
        elif isinstance(value, list):
            if depth >= MAX_NESTING:
                ctx.fail(key, f"tables and lists nest more than {MAX_NESTING} levels deep")
            stack.extend((v, ctx.join(key, i), depth + 1) for i, v in enumerate(value))
        elif isinstance(value, str):
            if len(value) > MAX_TEXT_CHARS:
                ctx.fail(key, f"text has {len(value):,} characters; at most {MAX_TEXT_CHARS:,}")
            ch = _control(value, "\t\n\r")
            if ch is not None:
                ctx.fail(key, f"text contains the control character {ch!r} (only tab and line breaks are allowed)")


def _freeze(value: Any) -> Any:
    """Deep read-only copy of parsed TOML data (tables -> mappings, lists -> tuples)."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def _build(raw: dict[str, Any], ctx: _Ctx) -> Game:
    top = ctx.table(raw, "", SECTIONS)
    for section in ("game", "symbols", "paylines", "paytable", "reels"):
        if section not in top:
            ctx.fail(section, f"required table [{section}] is missing")

    name, total_bet_raw, meta = _game(ctx, top["game"])
    symbols = _symbols(ctx, top["symbols"])
    lines, ways, both_ways = _paylines(ctx, top["paylines"])
    total_bet = len(lines)
    if total_bet_raw is not None:
        total_bet = ctx.integer(total_bet_raw, "game.total_bet", min=1)
    elif ways:
        ctx.fail("game.total_bet", "required in a ways game (paylines.ways = true): the number of pay units "
                                   "(the unit the paytable is written in) a spin costs")
    groups = _groups(ctx, top.get("groups", {}))
    _paytable(ctx, top["paytable"])
    group_pays = {g: ctx.paytable.pop(g) for g in list(ctx.paytable) if g in groups}
    combos = _combos(ctx, top.get("combos", {}))
    anywhere = _anywhere_pays(ctx, top.get("anywhere_pays", {}))
    _reels(ctx, top["reels"])
    scatter = _scatter(ctx, top["scatter"]) if "scatter" in top else None
    _features(ctx, top.get("features", {}))
    _warn_unpaid(ctx, group_pays, combos, anywhere)  # (after the features: a trigger symbol is named as one)
    _check_expanding(ctx)
    line_triggers = _line_triggers(ctx, top.get("line_triggers", {}))
    modes = _modes(ctx, top)
    _check_coins(ctx, modes, group_pays, combos, anywhere, line_triggers)
    _check_triggers(ctx, modes)
    cap = _cap(ctx, top["cap"]) if "cap" in top else None
    rules = _rules(ctx, top.get("rules", {}))
    _check_line_pays(ctx, top, rules, bool(group_pays or combos or anywhere))
    _warn_unstartable_pays(ctx, modes, both_ways)
    design = _design(ctx, top.get("design", {}))
    autoplay = _autoplay(ctx, top["autoplay"]) if "autoplay" in top else ()
    if ways:
        _check_ways(ctx, top, line_triggers)
    elif both_ways:
        _check_both_ways_lines(ctx, top, line_triggers)

    game = Game(
        path=ctx.path,
        name=name,
        reels=ctx.reels,
        rows=ctx.rows,
        symbols=symbols,
        paytable=frozen_mapping({s: frozen_mapping(p) for s, p in ctx.paytable.items()}),
        lines=lines,
        ways=ways,
        pays_both_ways=both_ways,
        total_bet=total_bet,
        reel_sets=frozen_mapping(ctx.reel_sets),
        scatter=scatter,
        features=frozen_mapping(ctx.features),
        modes=frozen_mapping(modes),
        cap=cap,
        line_triggers=frozen_mapping({s: frozen_mapping(t) for s, t in line_triggers.items()}),
        rules=frozen_mapping(rules),
        design=frozen_mapping(design),
        meta=frozen_mapping(meta),
        groups=frozen_mapping(groups),
        group_pays=frozen_mapping({g: frozen_mapping(p) for g, p in group_pays.items()}),
        combos=frozen_mapping(combos),
        anywhere_pays=frozen_mapping({n: frozen_mapping(p) for n, p in anywhere.items()}),
        autoplay_stops=autoplay,
    )
    from analytic.model.mechanics.engines import check_game

    check_game(game)  # what an engine would refuse only when solving, from the model alone
    _check_win_range(game)
    return game


def feature_win_bound(game, spec, spin_bound):
    """A bound of one feature event's win: a free spin's, or a pick bonus's (None: no bound known).

    Parameters
    ----------
    game : Game
    spec : FeatureSpec
        One of ``game.features``.
    spin_bound : int or Fraction
        A bound of one base spin's line win, in any unit (line bets, the
        simulator's ticks).

    Returns
    -------
    int, Fraction or None
        A free spin: ``spin_bound`` times the feature's multipliers (its
        multiplier, the gifted ones, the largest revealed wild reel multiplier
        per reel, the wild reels' multipliers) and 31 (an expansion's pay too:
        a repeat multiplier of at most 30), in ``spin_bound``'s unit; a pick
        bonus: its largest prize total, in line bets (board: every prize
        times every multiplier; prizes: the largest prize times the most
        picks and prizes per pick); None for a pick bonus of another form.

    Notes
    -----
    Used by the loader's refusal of wins beyond :data:`analytic.limits.MAX_SPIN_WIN`
    and by the simulator's 64-bit check (:mod:`analytic.simulator.evaluate`).
    A revealed-wild-reel power is capped at 400 reels (far beyond any limit).
    """
    p = spec.params
    if spec.engine != "pick_bonus":
        fac = int(p.get("multiplier") or 1)
        fac += sum(int(v) * int(n) for e, v, n in p.get("gifts") or () if e == "multiplier")
        if spec.engine == "revealed_wild_reels" and p.get("multipliers"):
            fac *= max(int(k) for k in p["multipliers"]) ** min(game.reels, 400)
        if p.get("reel_wild_multipliers"):
            fac *= math.prod(max(int(k) for k in t) for t in p["reel_wild_multipliers"]["reels"].values())
        return spin_bound * fac * 31
    if "board" in p:
        b = p["board"]
        return sum(v * n for v, n in b["prizes"]) * math.prod(v ** n for v, n in b["multipliers"])
    if "prizes" in p:
        return (max(int(v) for v, _ in p["prizes"]) * max(int(k) for k in p.get("picks", {1: 1}))
                * max(int(k) for k in p.get("prizes_per_pick", {1: 1})))
    return None


def _check_win_range(game: Game) -> None:
    """Refuse a game one spin of which could win more than :data:`~analytic.limits.MAX_SPIN_WIN` total bets.

    The bound, in Python integers from the model alone: the largest pay (paytable, group, combo,
    anywhere pay; with coins, their pays) times the largest wild multiplier to the power of the reels
    and the paylines (ways: the symbols with pays times ``(rows x largest multiplier) ^ reels``; both
    ways twice), plus the largest scatter pay; one free spin: that bound times the feature's
    multipliers (``multiplier`` and its gifts, revealed wild reels' largest to the power of the reels,
    the reel wild multipliers' largest per reel) and 31 (an expansion's pay); a pick bonus: its largest
    prize times the most prizes revealed (a board: every prize tile times every multiplier tile).  The
    bound of :func:`analytic.simulator.evaluate._check_int64`, in total-bet multiples.

    Raises
    ------
    ModelError
        At ``paytable`` (a base spin) or ``features.NAME``, with the bound.
    """
    from analytic.limits import MAX_SPIN_WIN

    tables = [*game.paytable.values(), *game.group_pays.values(), *game.anywhere_pays.values()]
    pays = [int(v) for t in tables for v in t.values()] + [int(c.pay) for c in game.combos.values()]
    coins = max((int(m.params.get("coins") or 1) for m in game.modes.values()), default=1)
    coin_pays = [int(v) for m in game.modes.values() for v in (m.params.get("coin_pays") or {}).values()]
    top = max([p * coins for p in pays] + coin_pays + [0])
    m = max([int(s.multiplier) for s in game.symbols if s.is_wild] + [1])
    tb = Fraction(game.total_bet)
    limit = MAX_SPIN_WIN * tb  # in line bets
    # m ** reels can have thousands of digits (1,000 reels): compared with the limit in logarithms first
    if m > 1 and game.reels * math.log10(m * (game.rows if game.ways else 1)) > 400:
        bound = limit * 10**300  # (far beyond: no exact power needed)
    elif game.ways:
        bound = top * max(len(pays), 1) * (game.rows * m) ** game.reels
    else:
        bound = top * len(game.lines) * m ** game.reels
    if game.pays_both_ways:
        bound *= 2
    if game.scatter is not None:
        bound += max(Fraction(v) for v in game.scatter.pays.values()) * tb * coins
    where, what = "paytable", "a base spin"
    for spec in game.features.values():
        if bound > limit:
            break  # (a base spin already: named at paytable)
        most = feature_win_bound(game, spec, bound)
        if most is None:
            continue
        if most > limit and most > bound:
            bound, where, what = most, f"features.{spec.name}", (f"pick bonus {spec.name!r}" if spec.engine ==
                                                                 "pick_bonus" else f"a free spin of {spec.name!r}")
    if bound > limit:
        shown = "far beyond 10^300" if bound >= limit * 10**300 else f"about 10^{len(str(int(bound / tb))) - 1}"
        raise ModelError(game.path, where,
                         f"{what} could win up to {shown} x total bet (the largest pay times the wild multipliers "
                         f"over every reel and the lines): more than 10^100, beyond the float64 figures (a round's "
                         "second moment is its win squared); lower the pays or multipliers")


#: Feature engines whose spins are evaluated by the base game's spin law
#: (:func:`analytic.engine.spin.build_spin`), so by ways pays in a ways game.
WAYS_ENGINES = ("wald", "pick_bonus")


def _check_both_ways_lines(ctx: _Ctx, top: dict[str, Any], line_triggers: Mapping) -> None:
    """Refuse what pays both ways on paylines (``paylines.pays_both_ways``) cannot honour."""
    if line_triggers:
        ctx.fail("line_triggers", "line triggers with pays both ways are not solved (a line read from "
                                  "either end could start the feature twice): remove pays_both_ways or them")
    if top.get("rules", {}).get("line_wild_pay", "highest") != "highest":
        ctx.fail("rules.line_wild_pay", "pays both ways on paylines is solved for the reading 'highest' only")
    _check_classic(ctx, top, "pays both ways (paylines.pays_both_ways = true)")
    _check_features(ctx, "pays both ways on paylines (paylines.pays_both_ways = true)")


def _check_classic(ctx: _Ctx, top: dict[str, Any], what: str) -> None:
    """Refuse classic line pays, line rules and coins, which the ways walk and the both-ways line reading do not honour."""
    from analytic.model.kinds import LINE_RULES

    for sec in ("groups", "combos", "anywhere_pays"):
        if top.get(sec):
            ctx.fail(sec, f"[{sec}] is solved on one-way paylines only, not with {what}")
    raw = top.get("rules", {})
    for r in LINE_RULES:
        if r in raw and raw[r] != kinds.RULES[r].default:
            ctx.fail(ctx.join("rules", r), f"is solved on one-way paylines only, not with {what}; remove it or set "
                                           f"it to the default {kinds.RULES[r].default!r}")
    for name, m in (top.get("modes") or {}).items():
        if isinstance(m, Mapping) and ("coins" in m or "coin_pays" in m):
            ctx.fail(ctx.join(ctx.join("modes", name), "coins" if "coins" in m else "coin_pays"),
                     f"coin-dependent pays are solved on one-way paylines only, not with {what}")
        if isinstance(m, Mapping) and "wild_reels" in m:
            ctx.fail(ctx.join(ctx.join("modes", name), "wild_reels"),
                     f"fixed wild reels are solved on one-way paylines only, not with {what}")
    for name, sym in ctx.symbols.items():
        if getattr(sym, "expands", False):
            ctx.fail(ctx.join(ctx.join("symbols", name), "expands"),
                     f"expanding wilds are solved on one-way paylines only, not with {what}")


def _check_features(ctx: _Ctx, what: str) -> None:
    for f in ctx.features.values():
        key = ctx.join("features", f.name)
        if f.engine not in WAYS_ENGINES:
            ctx.fail(key, f"engine {f.engine} evaluates left-to-right line wins only; with {what} only the "
                          f"engines {', '.join(WAYS_ENGINES)} are solved (a free spin paid by the base "
                          "game's spin evaluation)")
        if "expanding_symbol" in f.mechanics:
            ctx.fail(ctx.join(key, "expanding_symbol"), f"an expanding symbol is not defined with {what}")


def _check_ways(ctx: _Ctx, top: dict[str, Any], line_triggers: Mapping) -> None:
    """Refuse what a ways game (``paylines.ways = true``) cannot honour, with its key path."""
    for name, pays in ctx.paytable.items():
        if ctx.symbols[name].is_wild and any(v > 0 for v in pays.values()):
            ctx.fail(ctx.join("paytable", name), f"wild {name!r} has its own pays: a wild's own ways pays are not "
                                                 "defined (a way of wilds would also be a way of every symbol "
                                                 "it substitutes); remove them in a ways game")
    if line_triggers:
        ctx.fail("line_triggers", "line triggers need paylines; a ways game (paylines.ways = true) has none")
    if "line_wild_pay" in top.get("rules", {}):
        ctx.fail("rules.line_wild_pay", "reads a payline led by wilds; a ways game pays every symbol's ways "
                                        "independently: remove it")
    _check_classic(ctx, top, "ways pays (paylines.ways = true)")
    _check_features(ctx, "ways pays (paylines.ways = true)")


def _game(ctx: _Ctx, value: Any) -> tuple[str, Any, dict[str, Any]]:
    g = ctx.table(value, "game", _GAME_KEYS, required=("name", "reels", "rows"))
    name = ctx.string(g["name"], "game.name")
    if "\n" in name or "\r" in name:
        ctx.fail("game.name", "must be one line (no line breaks)")
    ch = _invisible(name)
    if ch is not None:
        ctx.fail("game.name", f"contains the invisible character {ch!r} (a name must look as it is)")
    ctx.reels = ctx.integer(g["reels"], "game.reels", min=1, max=MAX_REELS)
    ctx.rows = ctx.integer(g["rows"], "game.rows", min=1, max=MAX_ROWS)
    meta: dict[str, Any] = {}
    for k in ("provider", "notes"):
        if k in g:
            meta[k] = ctx.string(g[k], f"game.{k}")
    if "published" in g:
        meta["published"] = _freeze(ctx.table(g["published"], "game.published"))
    return name, g.get("total_bet"), meta


def _symbols(ctx: _Ctx, value: Any) -> tuple[Symbol, ...]:
    t = ctx.table(value, "symbols")
    if not t:
        ctx.fail("symbols", "must declare at least one symbol")
    # Pass 1: names and roles (wild substitutes refer to regular symbols declared anywhere).
    specs: dict[str, dict[str, Any]] = {}
    for name, spec in t.items():
        key = ctx.join("symbols", name)
        if not _NAME.fullmatch(name):
            ctx.fail(key, f"symbol name {name!r} may use only letters, digits, '_' and '-', "
                          "and may not start with '-'")
        if isinstance(spec, str):
            spec = {"role": spec}
        spec = ctx.table(spec, key, _SYMBOL_KEYS, required=("role",))
        ctx.string(spec["role"], ctx.join(key, "role"), choices=ROLES)
        specs[name] = spec
    regular = [n for n, s in specs.items() if s["role"] == "regular"]

    symbols: list[Symbol] = []
    ranks: dict[int, str] = {}
    for index, (name, spec) in enumerate(specs.items()):
        key = ctx.join("symbols", name)
        role = spec["role"]
        if role not in ("wild", "wild_scatter"):
            for k in _WILD_ONLY:
                if k in spec:
                    ctx.fail(ctx.join(key, k), f"only a wild or wild_scatter symbol may have {k!r} "
                                               f"(this one has role {role!r})")
        if role != "regular":
            for k in ("tier", "rank"):
                if k in spec:
                    ctx.fail(ctx.join(key, k), f"only a regular symbol may have {k!r} (this one has role {role!r})")
        tier = None
        if "tier" in spec:
            tier = ctx.string(spec["tier"], ctx.join(key, "tier"), choices=("high", "low"))
        rank = None
        if "rank" in spec:
            rank = ctx.integer(spec["rank"], ctx.join(key, "rank"), min=1)
            if rank in ranks:
                ctx.fail(ctx.join(key, "rank"), f"rank {rank} is already used by {ranks[rank]!r}")
            ranks[rank] = name
        substitutes = None
        if "substitutes" in spec and "except" in spec:
            ctx.fail(ctx.join(key, "except"), "give either 'substitutes' or 'except', not both")
        for k in ("substitutes", "except"):
            if k in spec:
                kk = ctx.join(key, k)
                names = ctx.str_list(spec[k], kk, nonempty=(k == "substitutes"))
                for i, n in enumerate(names):
                    if n not in specs:
                        ctx.fail(ctx.join(kk, i), f"unknown symbol {n!r} (known: {', '.join(specs)})")
                    if n not in regular:
                        ctx.fail(ctx.join(kk, i), f"{n!r} is not a regular symbol (role {specs[n]['role']!r}); "
                                                  f"regular symbols: {', '.join(regular) or 'none'}")
                substitutes = frozenset(names) if k == "substitutes" else frozenset(regular) - set(names)
        multiplier = 1
        if "multiplier" in spec:
            multiplier = ctx.integer(spec["multiplier"], ctx.join(key, "multiplier"), min=1)
        expands = False
        if "expands" in spec:
            expands = ctx.boolean(spec["expands"], ctx.join(key, "expands"))
        symbols.append(Symbol(name, index, role, tier, rank, substitutes, multiplier, expands))
    ctx.symbols = {s.name: s for s in symbols}
    return tuple(symbols)


def _paylines(ctx: _Ctx, value: Any) -> tuple[tuple[tuple[int, ...], ...], bool, bool]:
    """``(lines, ways, pays_both_ways)`` of ``[paylines]``: exactly one of ``lines`` and ``ways = true``."""
    t = ctx.table(value, "paylines", ("lines", "ways", "pays_both_ways"))
    ways = ctx.boolean(t["ways"], "paylines.ways") if "ways" in t else False
    both = ctx.boolean(t["pays_both_ways"], "paylines.pays_both_ways") if "pays_both_ways" in t else False
    ctx.ways = ways
    if ways:
        if "lines" in t:
            ctx.fail("paylines.lines", "a game pays either on paylines or on ways: give lines or ways = true, "
                                       "not both (a game paying both is not defined)")
        return (), True, both
    if "lines" not in t:
        ctx.fail("paylines.lines", "required key is missing (or set ways = true for a ways game)")
    raw = t["lines"]
    if not isinstance(raw, list) or not raw:
        ctx.fail("paylines.lines", f"must be a non-empty list of lines, got {show(raw)}")
    lines: list[tuple[int, ...]] = []
    seen: dict[tuple[int, ...], int] = {}
    for i, line in enumerate(raw):
        key = ctx.join("paylines.lines", i)
        if not isinstance(line, list):
            ctx.fail(key, f"must be a list of {ctx.reels} row indices, got {show(line)}")
        if len(line) != ctx.reels:
            ctx.fail(key, f"has {len(line)} entries; must have one row index per reel ({ctx.reels})")
        rows = []
        for j, r in enumerate(line):
            v = ctx.integer(r, ctx.join(key, j), min=0)
            if v >= ctx.rows:
                ctx.fail(ctx.join(key, j), f"row {v} is off the grid: the window has {ctx.rows} row(s), "
                                           f"numbered 0 to {ctx.rows - 1} from the top")
            rows.append(v)
        rows = tuple(rows)
        if rows in seen:
            ctx.fail(key, f"duplicate of line {seen[rows]} (paylines.lines[{seen[rows]}])")
        seen[rows] = i
        lines.append(rows)
    return tuple(lines), False, both


def _groups(ctx: _Ctx, value: Any) -> dict[str, frozenset[str]]:
    """``[groups]``: name -> members (regular or blank symbols, at least two)."""
    t = ctx.table(value, "groups")
    out: dict[str, frozenset[str]] = {}
    for name, members in t.items():
        key = ctx.join("groups", name)
        if not _NAME.fullmatch(name):
            ctx.fail(key, f"group name {name!r} may use only letters, digits, '_' and '-', "
                          "and may not start with '-'")
        if name in ctx.symbols:
            ctx.fail(key, f"{name!r} is already a symbol name (a group needs a name of its own)")
        names = ctx.str_list(members, key, nonempty=True)
        if len(names) < 2:
            ctx.fail(key, "a group needs at least two member symbols")
        for i, n in enumerate(names):
            ctx.symbol(n, ctx.join(key, i), roles=("regular", "blank"))
        out[name] = frozenset(names)
    ctx.groups = out
    return out


def _line_entry(ctx: _Ctx, name: str, key: str, roles=("regular", "blank", "wild", "wild_scatter")) -> str:
    """A symbol or group name of a line pay entry (combo cell, anywhere pay)."""
    if name in getattr(ctx, "groups", {}):
        return name
    if not isinstance(name, str) or name not in ctx.symbols:
        ctx.fail(key, f"unknown symbol or group {show(name)} (symbols: {', '.join(ctx.symbols)}; "
                      f"groups: {', '.join(getattr(ctx, 'groups', {})) or 'none'})")
    return ctx.symbol(name, key, roles=roles)


def _combos(ctx: _Ctx, value: Any) -> dict[str, Combo]:
    """``[combos.NAME]``: ``cells`` (one symbol or group per reel from the left), ``pay``, ``multiplied``."""
    t = ctx.table(value, "combos")
    out: dict[str, Combo] = {}
    seen: dict[tuple, str] = {}
    for name, spec in t.items():
        key = ctx.join("combos", name)
        spec = ctx.table(spec, key, ("cells", "pay", "multiplied"), required=("cells", "pay"))
        ck = ctx.join(key, "cells")
        raw = spec["cells"]
        if not isinstance(raw, list) or not raw:
            ctx.fail(ck, f"must be a non-empty list of symbol or group names, got {show(raw)}")
        if len(raw) > ctx.reels:
            ctx.fail(ck, f"has {len(raw)} entries; the game has {ctx.reels} reels")
        cells = tuple(_line_entry(ctx, c, ctx.join(ck, i)) for i, c in enumerate(raw))
        if cells in seen:
            ctx.fail(ck, f"the same cells as combos.{seen[cells]}")
        seen[cells] = name
        multiplied = (ctx.boolean(spec["multiplied"], ctx.join(key, "multiplied"))
                      if "multiplied" in spec else True)
        out[name] = Combo(cells, ctx.integer(spec["pay"], ctx.join(key, "pay"), min=0), multiplied)
    return out


def _anywhere_pays(ctx: _Ctx, value: Any) -> dict[str, dict[int, int]]:
    """``[anywhere_pays]``: regular symbol or group -> { cells on the line = pay }."""
    t = ctx.table(value, "anywhere_pays")
    out: dict[str, dict[int, int]] = {}
    for name, pays in t.items():
        key = ctx.join("anywhere_pays", name)
        _line_entry(ctx, name, key, roles=("regular",))
        out[name] = ctx.counts(pays, key, hi=ctx.reels, hi_reason=f"the game has {ctx.reels} reels")
    return out


def _check_coins(ctx: _Ctx, modes, group_pays, combos, anywhere, line_triggers) -> None:
    """Check ``coins`` / ``coin_pays`` of the bet modes against the pays and the features."""
    for name, m in modes.items():
        key = ctx.join("modes", name)
        if "coins" not in m.params:
            continue
        if ctx.features:
            ctx.fail(ctx.join(key, "coins"), f"not solved with features (features.{next(iter(ctx.features))}): "
                                             "their engines read the one-coin pays")
        if line_triggers:
            ctx.fail(ctx.join(key, "coins"), "not solved with [line_triggers]")
        if "wild_reels" in m.params:
            ctx.fail(ctx.join(key, "coins"), "not solved with the mode's fixed wild_reels")
        for sname, sym in ctx.symbols.items():
            if getattr(sym, "expands", False):
                ctx.fail(ctx.join(key, "coins"), f"not solved with an expanding wild (symbols.{sname}.expands)")
        for path in m.params.get("coin_pays", {}):
            pk = ctx.join(ctx.join(key, "coin_pays"), f'"{path}"')
            parts = path.split(".")
            ok = False
            if parts[0] == "paytable" and len(parts) == 3 and parts[2].isdigit():
                table = ctx.paytable.get(parts[1]) or group_pays.get(parts[1]) or {}
                ok = int(parts[2]) in table
            elif parts[0] == "anywhere_pays" and len(parts) == 3 and parts[2].isdigit():
                ok = int(parts[2]) in anywhere.get(parts[1], {})
            elif parts[0] == "combos" and len(parts) == 2:
                ok = parts[1] in combos
            if not ok:
                ctx.fail(pk, "must name a declared pay: 'paytable.SYMBOL_OR_GROUP.COUNT', "
                             "'anywhere_pays.NAME.COUNT' or 'combos.NAME'")


def _check_line_pays(ctx: _Ctx, top: Mapping, rules: Mapping[str, Any], classic: bool) -> None:
    """Refuse line-pay declarations and line rules that a solver of this game does not honour."""
    from analytic.model.kinds import LINE_RULES

    spins = [f for f in ctx.features.values() if f.kind == "free_spins"]
    changed = [r for r in LINE_RULES if rules.get(r) != kinds.RULES[r].default]
    if spins:
        what = None
        for sec in ("groups", "combos", "anywhere_pays"):
            if top.get(sec):
                what = sec
                break
        if what is None:
            what = next((f"rules.{r}" for r in changed), None)
        if what is not None:
            ctx.fail(what, f"not solved with free spins (features.{spins[0].name}): the free-spin engines "
                           "and their simulator players read lines by symbol runs with multiplying wilds only")
    if (classic or changed) and rules.get("line_wild_pay") == "first_non_wild":
        what = next((f"[{s}]" for s in ("groups", "combos", "anywhere_pays") if top.get(s)), None)
        what = what or f"rule {changed[0]} = {show(rules[changed[0]])}"
        ctx.fail("rules.line_wild_pay", f"'first_non_wild' is not solved together with {what} (use 'highest')")


def _paytable(ctx: _Ctx, value: Any) -> None:
    t = ctx.table(value, "paytable")
    for name, pays in t.items():
        key = ctx.join("paytable", name)
        if name in getattr(ctx, "groups", {}):
            ctx.paytable[name] = ctx.counts(
                pays, key, hi=ctx.reels, hi_reason=f"the game has {ctx.reels} reels")
            continue
        ctx.symbol(name, key)
        role = ctx.symbols[name].role
        if role in ("scatter", "blank"):
            ctx.fail(key, f"symbol {name!r} has role {role!r} and cannot have line pays"
                          + (" (put scatter pays in [scatter])" if role == "scatter" else ""))
        if role == "bonus":
            ctx.fail(key, f"symbol {name!r} has role 'bonus': it pays nothing on lines; "
                          "use [line_triggers] to start a feature")
        ctx.paytable[name] = ctx.counts(
            pays, key, hi=ctx.reels, hi_reason=f"the game has {ctx.reels} reels")


def _warn_unpaid(ctx: _Ctx, group_pays=None, combos=None, anywhere=None) -> None:
    """Warn (:class:`~analytic.errors.ModelWarning`) of a regular symbol without a line pay above 0.

    A symbol paying through a group, a combo or an anywhere pay has a line pay.
    One that counts toward a feature's trigger (``ctx.features``, parsed
    before this runs) is named as a trigger symbol, not as one that never pays.
    """
    paid = set()
    for g, p in (group_pays or {}).items():
        if any(v > 0 for v in p.values()):
            paid |= ctx.groups[g]
    for c in (combos or {}).values():
        if c.pay > 0:
            for e in c.cells:
                paid |= ctx.groups.get(e, {e})
    for n, p in (anywhere or {}).items():
        if any(v > 0 for v in p.values()):
            paid |= ctx.groups.get(n, {n})
    for name, sym in ctx.symbols.items():
        if name in paid:
            continue
        if sym.role == "regular" and not any(v > 0 for v in ctx.paytable.get(name, {}).values()):
            starts = [f for f, spec in ctx.features.items() if spec.trigger is not None and name in spec.trigger.symbols]
            if starts:  # counted anywhere in the window, as a scatter is: say so, not "never pays"
                why = (f"regular symbol {name!r} has no line pays; it counts anywhere in the window toward the "
                       f"trigger of {', '.join(repr(f) for f in starts)}, as a scatter would (give it the role "
                       "'scatter' if it is one, or give it pays)")
            else:
                why = (f"regular symbol {name!r} has no line pays, so it never pays "
                       "(give it pays, or the role 'blank' if it is meant to stop lines)")
            warnings.warn(ModelWarning(ctx.path, ctx.join("paytable", name), why), stacklevel=2)


#: Feature mechanics that can make a reel pay what its strip does not show (an expanding symbol counts
#: reels anywhere; wild reels, gifts and wild symbols put wilds where the strip has none).
_RESHAPING = ("expanding_symbol", "wild_reels", "gift_pick", "wild_symbols", "golden_reels", "ladder")


def _warn_unstartable_pays(ctx: _Ctx, modes: Mapping[str, Any], not_from_reel_1: bool) -> None:
    """Warn (:class:`~analytic.errors.ModelWarning`) of a paytable entry whose run can never start:
    a payline (or a ways game's way) pays a run from reel 1, so a symbol whose pays are above 0 needs reel 1 of some reel
    set to show it, or (a symbol a wild stands in for) a wild substituting for it; a wild's own pays
    need the wild itself there.  Not checked where a run need not start on reel 1's strip: pays
    both ways (``not_from_reel_1``), a mode's fixed wild reels, a feature mechanic in
    :data:`_RESHAPING`.  (A ways game refuses a wild's own pays before this.)
    """
    if not_from_reel_1 or any("wild_reels" in m.params for m in modes.values()):
        return
    if any(k in f.declared for f in ctx.features.values() for k in _RESHAPING):
        return
    first = set()
    for strips in ctx.reel_sets.values():
        first |= set(strips[0])
    wilds = [ctx.symbols[s] for s in first if ctx.symbols[s].is_wild]
    for name, pays in ctx.paytable.items():
        if name in first or not any(v > 0 for v in pays.values()):
            continue
        sym = ctx.symbols[name]
        if not sym.is_wild and any(w.substitutes is None or name in w.substitutes for w in wilds):
            continue
        how = "" if sym.is_wild else " nor a wild standing in for it"
        put = "it" if sym.is_wild else "it, or a wild standing in for it,"
        anywhere = ("; pays anywhere in the window are [scatter] pays" if sym.is_scatter else "")
        warnings.warn(ModelWarning(ctx.path, ctx.join("paytable", name),
                                   f"no reel set shows {name!r} on reel 1{how}, so its pays (a run from "
                                   f"reel 1) can never be won (put {put} on reel 1 of a reel set, or remove "
                                   f"its pays{anywhere})"),
                      stacklevel=2)


def _reels(ctx: _Ctx, value: Any) -> None:
    t = ctx.table(value, "reels")
    if not t:
        ctx.fail("reels", "must define at least one reel set")
    for name, spec in t.items():
        key = ctx.join("reels", name)
        if isinstance(spec, Mapping):
            spec = ctx.table(spec, key, ("strips", "csv"))
            if len(spec) != 1:
                ctx.fail(key, "give exactly one of 'strips' (a list of strips) or 'csv' (a file name)")
            if "csv" in spec:
                strips = _read_csv(ctx, ctx.string(spec["csv"], ctx.join(key, "csv")), key)
            else:
                strips = _strips(ctx, spec["strips"], key, ctx.join(key, "strips"))
        else:
            strips = _strips(ctx, spec, key, key)
        digits = sum(math.log10(len(st)) for st in strips)
        if digits > MAX_CYCLE_DIGITS:  # beyond what any report (or int -> text) can write
            ctx.fail(key, f"the cycle has about 10^{int(digits)} stop combinations; at most 10^{MAX_CYCLE_DIGITS}")
        ctx.reel_sets[name] = strips


def _strips(ctx: _Ctx, value: Any, key: str, where: str) -> tuple[tuple[str, ...], ...]:
    """Strips written inline; ``key`` is the reel set's path (used for stops), ``where`` the value's."""
    if not isinstance(value, list):
        ctx.fail(where, f"must be a list of {ctx.reels} strips (lists of symbol names) "
                        f"or a table {{ csv = \"file.csv\" }}, got {show(value)}")
    _check_strip_count(ctx, len(value), where)
    strips = []
    for r, strip in enumerate(value):
        rk = ctx.join(key, r)
        if not isinstance(strip, list):
            ctx.fail(rk, f"must be a list of symbol names, got {show(strip)}")
        _check_strip_len(ctx, len(strip), rk)
        for s, name in enumerate(strip):
            if not isinstance(name, str):
                ctx.fail(ctx.join(rk, s), f"must be a symbol name, got {show(name)}")
            ctx.symbol(name, ctx.join(rk, s))
        strips.append(tuple(strip))
    return tuple(strips)


def _check_strip_count(ctx: _Ctx, n: int, key: str, prefix: str = "") -> None:
    if n != ctx.reels:
        ctx.fail(key, f"{prefix}has {n} strips; the game has {ctx.reels} reels (one strip per reel)")


def _check_strip_len(ctx: _Ctx, n: int, key: str, prefix: str = "") -> None:
    if n == 0:
        ctx.fail(key, f"{prefix}strip is empty")
    if n < ctx.rows:
        ctx.fail(key, f"{prefix}strip has {n} stops, fewer than the {ctx.rows} rows "
                      "(a window would show a stop twice)")


def _read_csv(ctx: _Ctx, name: str, key: str) -> tuple[tuple[str, ...], ...]:
    """Strips from a CSV file: one column per reel, one row per stop."""
    ck = ctx.join(key, "csv")
    if "\0" in name or Path(name).is_absolute() or ".." in Path(name).parts:
        ctx.fail(ck, f"CSV file {show(name)} must be a relative path inside the model's folder")
    # resolve symbolic links (of the file and of every folder on the way): the real file must
    # lie inside the model's real folder
    folder = Path(os.path.realpath(ctx.base_dir))
    real = Path(os.path.realpath(ctx.base_dir / name))
    if real != folder and folder not in real.parents:
        ctx.fail(ck, f"CSV file {show(name)} leads outside the model's folder (through a symbolic link); "
                     "copy the file into the model's folder")
    data = read_limited(real, ctx.path, ck, f"CSV file {show(name)}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        ctx.fail(ck, f"cannot read CSV file {show(name)}: not UTF-8 text ({exc.reason} at byte {exc.start})")
    try:
        rows = [[c.strip() for c in row] for row in csv.reader(io.StringIO(text))]
    except csv.Error as exc:
        ctx.fail(ctx.join(key, "csv"), f"{name}: not a readable CSV file: {exc}")
    first_data = 0
    if rows and not any(c in ctx.symbols for c in rows[0]):
        first_data = 1  # header row: none of its cells is a symbol name
    width = max((max((j + 1 for j, c in enumerate(row) if c), default=0) for row in rows[first_data:]), default=0)
    if width != ctx.reels:
        # a spreadsheet saved with another separator (';' in many locales, tabs) reads as one column
        held = [sep for sep in (";", "\t", "|") if any(sep in c for row in rows for c in row)]
        if held:
            ctx.fail(key, f"{name}: has {width} strips; the game has {ctx.reels} reels (one strip per reel): "
                          f"its cells hold {held[0]!r}; columns must be separated by commas")
    _check_strip_count(ctx, width, key, prefix=f"{name}: ")
    columns: list[list[str]] = [[] for _ in range(width)]
    ended = [False] * width  # column reached its (empty) bottom
    for i in range(first_data, len(rows)):
        row = rows[i]
        for j in range(width):
            cell = row[j] if j < len(row) else ""
            where = f"{name}: row {i + 1}, column {j + 1}"
            stop_key = ctx.join(ctx.join(key, j), len(columns[j]))
            if not cell:
                ended[j] = True
                continue
            if ended[j]:
                ctx.fail(stop_key, f"{where}: symbol {show(cell)} below an empty cell "
                                   "(only the bottom of a shorter column may be empty)")
            if cell not in ctx.symbols:
                ctx.fail(stop_key, f"{where}: unknown symbol {show(cell)} (known: {kinds._known(ctx.symbols)})")
            columns[j].append(cell)
    for j, col in enumerate(columns):
        _check_strip_len(ctx, len(col), ctx.join(key, j), prefix=f"{name}: column {j + 1}: ")
    return tuple(tuple(c) for c in columns)


def _scatter(ctx: _Ctx, value: Any) -> ScatterPay:
    t = ctx.table(value, "scatter", ("symbols", "pays"), required=("symbols", "pays"))
    syms = ctx.symbol_list(t["symbols"], "scatter.symbols", roles=("scatter", "wild_scatter"))
    cells = ctx.reels * ctx.rows
    pays = ctx.counts(t["pays"], "scatter.pays", hi=cells,
                      hi_reason=f"the window has {ctx.reels} x {ctx.rows} = {cells} cells",
                      value_fn=lambda v, k: ctx.fraction(v, k, min=0))
    return ScatterPay(frozenset(syms), frozen_mapping(pays))


def _reel_set_name(ctx: _Ctx, value: Any, key: str) -> str:
    name = ctx.string(value, key)
    if name not in ctx.reel_sets:
        ctx.fail(key, f"unknown reel set {name!r} (defined in [reels]: {', '.join(ctx.reel_sets)})")
    return name


def _features(ctx: _Ctx, value: Any) -> None:
    # Importing the mechanics registers every mechanic and the engines' declarations.
    import analytic.model.mechanics.engines  # noqa: F401

    t = ctx.table(value, "features")
    for name, spec in t.items():
        key = ctx.join("features", name)
        spec = ctx.table(spec, key)
        kind = ctx.string(spec.get("kind", "free_spins"), ctx.join(key, "kind"))
        if kind in kinds.RETIRED_KINDS:
            ctx.fail(ctx.join(key, "kind"), f"kind {kind!r} named a game and is retired: a feature is declared "
                                            f"from mechanics; declare {kinds.RETIRED_KINDS[kind]}")
        known = [k for k in kinds.FEATURE_KINDS if k != kinds.GAME_RULES_KIND]  # the game's rules: no feature
        if kind not in known:
            ctx.fail(ctx.join(key, "kind"), f"unknown feature kind {kind!r} (known: {', '.join(known)})")
        reel_set = None
        if "reels" in spec:
            reel_set = _reel_set_name(ctx, spec["reels"], ctx.join(key, "reels"))
        trigger = None
        if "trigger" in spec:
            # Counts are checked against the base reel sets once [modes] is read.
            trigger = ctx.trigger(spec["trigger"], ctx.join(key, "trigger"))
        ctx.feature = FeatureSpec(name, kind, trigger, reel_set)
        rest = {k: v for k, v in spec.items() if k not in _FEATURE_COMMON}
        decl: dict = {}
        engine, mechanics, params = kinds.compose_feature(kind, rest, key, ctx, declared_out=decl)
        ctx.feature = None
        ctx.features[name] = FeatureSpec(name, kind, trigger, reel_set, frozen_mapping(params), engine, mechanics,
                                         frozen_mapping(decl))


def _feature_name(ctx: _Ctx, value: Any, key: str) -> str:
    name = ctx.string(value, key)
    if name not in ctx.features:
        ctx.fail(key, f"unknown feature {name!r} (defined in [features]: {', '.join(ctx.features) or 'none'})")
    return name


def _line_triggers(ctx: _Ctx, value: Any) -> dict[str, dict[int, str]]:
    t = ctx.table(value, "line_triggers")
    out: dict[str, dict[int, str]] = {}
    for name, counts in t.items():
        key = ctx.join("line_triggers", name)
        ctx.symbol(name, key, roles=("bonus",))
        out[name] = ctx.counts(counts, key, hi=ctx.reels, hi_reason=f"the game has {ctx.reels} reels",
                               value_fn=lambda v, k: _line_feature(ctx, v, k))
    return out


def _line_feature(ctx: _Ctx, value: Any, key: str) -> str:
    """A feature a line trigger starts: a pick bonus (played once per payline); free spins get their spin
    count from their trigger's counts, which a line trigger has not (the solver gave 0 spins, the simulator 1)."""
    name = _feature_name(ctx, value, key)
    kind = ctx.features[name].kind
    if kind != "pick_bonus":
        ctx.fail(key, f"feature {name!r} is of kind {kind!r}: a line trigger starts only a pick bonus (played "
                      "once); free spins take their spins from their trigger's counts")
    return name


def _modes(ctx: _Ctx, top: dict[str, Any]) -> dict[str, BetMode]:
    if "modes" not in top:
        if "base" not in ctx.reel_sets:
            ctx.fail("modes", "no [modes] given, so the default mode plays reel set 'base', "
                              f"which is not defined (reel sets: {', '.join(ctx.reel_sets)})")
        return {"base": BetMode("base", Fraction(1), "base")}
    t = ctx.table(top["modes"], "modes")
    if not t:
        ctx.fail("modes", "must define at least one bet mode")
    modes: dict[str, BetMode] = {}
    for name, spec in t.items():
        key = ctx.join("modes", name)
        if name == "all":  # solve --mode all, verify --mode all: such a mode could never be chosen alone
            ctx.fail(key, "the name 'all' is taken by the command line ('--mode all' means every bet mode); "
                          "rename the mode")
        is_buy = isinstance(spec, Mapping) and "buys" in spec
        if isinstance(spec, Mapping) and "power" in spec:
            ctx.fail(ctx.join(key, "power"), "retired: the Power Bet's gamble is declared on the mode as "
                                             "gamble = { feature, into, policy, win_probability, count }")
        spec = ctx.table(spec, key, _BUY_KEYS if is_buy else _MODE_KEYS,
                         required=("cost", "buys") if is_buy else ("cost", "reels"))
        cost = ctx.fraction(spec["cost"], ctx.join(key, "cost"), positive=True)
        params: dict[str, Any] = {}
        if "description" in spec:
            params["description"] = ctx.string(spec["description"], ctx.join(key, "description"))
        if "gamble" in spec:
            params["gamble"] = _gamble(ctx, spec["gamble"], ctx.join(key, "gamble"))
        if "wild_reels" in spec:
            params["wild_reels"] = _mode_wild_reels(ctx, spec["wild_reels"], key)
        if not is_buy:
            if "coins" in spec:
                params["coins"] = ctx.integer(spec["coins"], ctx.join(key, "coins"), min=1, max=1000)
                if cost != params["coins"]:
                    ctx.fail(ctx.join(key, "cost"), f"a mode of {params['coins']} coins costs {params['coins']} "
                                                    f"(coins are counted in regular bets), got {show(spec['cost'])}")
            if "coin_pays" in spec:
                if "coins" not in spec:
                    ctx.fail(ctx.join(key, "coin_pays"), "needs 'coins' (the number of coins these pays are for)")
                cp = ctx.table(spec["coin_pays"], ctx.join(key, "coin_pays"))
                params["coin_pays"] = frozen_mapping(
                    {str(k): ctx.integer(v, ctx.join(ctx.join(key, "coin_pays"), f'"{k}"'), min=0)
                     for k, v in cp.items()})
            reel_set = _reel_set_name(ctx, spec["reels"], ctx.join(key, "reels"))
            modes[name] = BetMode(name, cost, reel_set, params=frozen_mapping(params))
            continue
        feature = _feature_name(ctx, spec["buys"], ctx.join(key, "buys"))
        trigger = ctx.features[feature].trigger
        buy_counts: dict[int, int] = {}
        bk = ctx.join(key, "buy_counts")
        if trigger is not None and "buy_counts" not in spec:
            ctx.fail(bk, f"required: feature {feature!r} awards by trigger count, so the buy must say "
                         f"which counts it shows, e.g. {{ {trigger.min_count} = 1 }}")
        if "buy_counts" in spec:
            if trigger is None:
                ctx.fail(bk, f"feature {feature!r} has no trigger, so there are no counts to buy")
            buy_counts = ctx.weights(spec["buy_counts"], bk)
            for c in buy_counts:
                if c not in trigger.counts:
                    ctx.fail(ctx.join(bk, str(c)), f"count {c} is not a trigger count of feature {feature!r} "
                                                   f"(its counts: {', '.join(map(str, trigger.counts))})")
        if trigger is None:
            buy_counts = {0: 1}  # a feature without a trigger is bought as one start with count 0
        modes[name] = BetMode(name, cost, None, feature, frozen_mapping(buy_counts), frozen_mapping(params))
    return modes


def _check_expanding(ctx: _Ctx) -> None:
    """``expands = true`` is honoured in base-game spins and engine wald's spins (without an
    expanding_symbol): refuse any other feature whose reels show such a wild."""
    for name, sym in ctx.symbols.items():
        if not sym.expands:
            continue
        for fname, f in ctx.features.items():
            if f.reel_set is None or not any(name in strip for strip in ctx.reel_sets[f.reel_set]):
                continue
            if f.engine != "wald" or f.params.get("expanding_symbol") is not None:
                ctx.fail(ctx.join(ctx.join("symbols", name), "expands"),
                         f"expanding wilds are solved in base-game spins and in the spins of engine wald without "
                         f"an expanding_symbol; feature {fname!r} (engine {f.engine}"
                         f"{' with an expanding_symbol' if f.params.get('expanding_symbol') else ''}) plays reel "
                         f"set {f.reel_set!r}, which shows {name!r} (remove it from those strips or the key)")


def _mode_wild_reels(ctx: _Ctx, value: Any, key: str) -> Mapping[str, Any]:
    """A spin mode's fixed wild reels: ``wild_reels = { reels = [2, 4], wild = "wild" }``.

    The names and validation of the fixed form of mechanic ``wild_reels``
    (:mod:`analytic.model.mechanics.wild_reels`); in every base spin of the
    mode those reels show ``wild`` on every row.  The wild must be of role
    ``wild`` (so it counts toward no scatter pay) and toward no trigger.
    """
    from analytic.model.mechanics.wild_reels import validate

    k = ctx.join(key, "wild_reels")
    if isinstance(value, Mapping) and "revealed_by" in value:
        ctx.fail(ctx.join(k, "revealed_by"), "revealed wild reels are a feature mechanic; a bet mode takes "
                                             "fixed wild reels only: { reels = [...], wild = SYMBOL }")
    out = validate({"wild_reels": value}, key, ctx)["wild_reels"]
    wild = out["wild"]
    wk = ctx.join(k, "wild")
    if ctx.symbols[wild].role != "wild":
        ctx.fail(wk, f"must be a symbol of role 'wild'; {wild!r} has role {ctx.symbols[wild].role!r}")
    for fname, f in ctx.features.items():
        if f.trigger is not None and wild in (f.trigger.symbols | f.trigger.requires):
            ctx.fail(wk, f"{wild!r} counts toward the trigger of feature {fname!r}; a fixed wild reel's wild "
                         f"must count toward none")
    return out


def _gamble(ctx: _Ctx, value: Any, key: str) -> Mapping[str, Any]:
    """A bet mode's gamble: ``{ feature, into, policy, win_probability, count }``.

    On this mode every trigger of ``feature`` is gambled (``policy =
    "always"``) or kept (``"never"``): a won gamble (probability
    ``win_probability``) plays ``into`` started with the same trigger count
    (``count = "same"``, the only reading), a lost one plays no feature.
    Solved by the round solver of engine ``drawn_expanding`` only, for a
    ``feature`` without a ladder and an ``into`` with one (checked here).
    """
    t = ctx.table(value, key, _GAMBLE_KEYS, required=("feature", "into", "policy", "win_probability"))
    feature = _feature_name(ctx, t["feature"], ctx.join(key, "feature"))
    into = _feature_name(ctx, t["into"], ctx.join(key, "into"))
    policy = ctx.string(t["policy"], ctx.join(key, "policy"), choices=("never", "always"))
    qk = ctx.join(key, "win_probability")
    q = ctx.fraction(t["win_probability"], qk, min=0)
    if q > 1:
        ctx.fail(qk, "must be <= 1")
    count = ctx.string(t.get("count", "same"), ctx.join(key, "count"), choices=("same",))
    f, g = ctx.features[feature], ctx.features[into]
    if f.engine != "drawn_expanding" or g.engine != "drawn_expanding" or f.params["ladder"] or not g.params["ladder"]:
        ctx.fail(key, f"a gamble is solved (engine drawn_expanding's round solver) from a feature of engine "
                      f"drawn_expanding without a ladder into one with a ladder; {feature!r} has engine "
                      f"{f.engine}{' with a ladder' if f.params.get('ladder') else ''}, {into!r} has engine "
                      f"{g.engine}{'' if g.params.get('ladder') else ' without a ladder'}")
    if dict(f.trigger.counts).keys() != dict(g.trigger.counts).keys():
        ctx.fail(ctx.join(key, "count"), f"'same': every trigger count of {feature!r} must be one of {into!r}")
    return frozen_mapping({"feature": feature, "into": into, "policy": policy, "win_probability": q,
                           "count": count})


def _check_triggers(ctx: _Ctx, modes: dict[str, BetMode]) -> None:
    """Every trigger count must show in some window of a base-game reel set."""
    base_sets = [m.reel_set for m in modes.values() if m.reel_set is not None]
    for name, f in ctx.features.items():
        if f.trigger is not None:
            ctx.check_reachable(f.trigger.counts, ctx.join(ctx.join("features", name), "trigger.counts"),
                                f.trigger.symbols, base_sets)


def _cap(ctx: _Ctx, value: Any) -> WinCap:
    t = ctx.table(value, "cap", ("total_bet_multiple", "currency", "currency_name", "stakes", "spin", "feature"))
    if not {"total_bet_multiple", "currency", "spin", "feature"} & set(t):
        ctx.fail("cap", "give total_bet_multiple and/or currency (a round's cap), spin or feature")
    if "currency" not in t:
        for k in ("currency_name", "stakes"):
            if k in t:
                ctx.fail(ctx.join("cap", k), "only allowed together with 'currency'")
    tbm = cur = None
    if "total_bet_multiple" in t:
        tbm = ctx.fraction(t["total_bet_multiple"], "cap.total_bet_multiple", positive=True)
    if "currency" in t:
        cur = ctx.fraction(t["currency"], "cap.currency", positive=True, allow_float=True)
    name = ctx.string(t["currency_name"], "cap.currency_name") if "currency_name" in t else ""
    stakes: tuple[Fraction, ...] = ()
    if "stakes" in t:
        raw = t["stakes"]
        if not isinstance(raw, list):
            ctx.fail("cap.stakes", f"must be a list of stakes, got {show(raw)}")
        stakes = tuple(ctx.fraction(s, ctx.join("cap.stakes", i), positive=True, allow_float=True)
                       for i, s in enumerate(raw))
    if cur is not None and not stakes:  # valid, but probably a cap in total bets under the wrong key
        warnings.warn(ModelWarning(ctx.path, "cap.currency",
                                   f"a currency cap without stakes caps no figure (it is only listed): add "
                                   f"stakes = [...], the total stakes per round at which its capped RTP is "
                                   f"reported; a cap of {cur} total bets is total_bet_multiple = {cur}"),
                      stacklevel=2)
    spin = feature = None
    if "spin" in t:
        spin = ctx.fraction(t["spin"], "cap.spin", positive=True)
        for fname, f in ctx.features.items():
            if f.reel_set is not None and f.engine != "wald":
                ctx.fail("cap.spin", f"a per-spin cap is solved on base-game spins and on the spins of engine wald "
                                     f"(i.i.d. spins: the capped spin law is exact); feature {fname!r} has engine "
                                     f"{f.engine}: remove cap.spin")
    if "feature" in t:
        feature = ctx.fraction(t["feature"], "cap.feature", positive=True)
        for fname, f in ctx.features.items():
            if f.engine == "pick_bonus" or (f.engine == "wald" and f.params.get("retrigger") is None):
                continue
            ctx.fail("cap.feature", f"a per-feature cap is solved where the feature's win law is exact (engine "
                                    f"pick_bonus; engine wald without a retrigger); feature {fname!r} has engine "
                                    f"{f.engine}{' with a retrigger' if f.engine == 'wald' else ''}")
    return WinCap(tbm, cur, name, stakes, spin, feature)


def _rules(ctx: _Ctx, value: Any) -> dict[str, Any]:
    t = ctx.table(value, "rules")
    owners = [f"mechanic:{m}" for f in ctx.features.values() for m in f.mechanics]
    owners += [f"engine:{f.engine}" for f in ctx.features.values()]
    owners += [f"engine:{f.engine}+{m}" for f in ctx.features.values() for m in f.mechanics]
    known = kinds.rules_for([*(f.kind for f in ctx.features.values()), *owners])
    out = {r: spec.default for r, spec in known.items()}
    for name, v in t.items():
        key = ctx.join("rules", name)
        if name not in known:
            retired = _RETIRED_RULES.get(name)
            hint = f"; {retired}" if retired else ""
            ctx.fail(key, f"unknown rule {name!r}{hint} (known for this game's feature mechanics: "
                          f"{', '.join(known) or 'none'})")
        problem = known[name].problem(v)
        if problem:
            ctx.fail(key, problem)
        out[name] = v
    from analytic.model.mechanics.engines import check_rules

    check_rules(ctx, out, ctx.features.values(), known)
    return out


#: The rules that named a game (prefix, rest) -> where they went; refused with that hint.
_RETIRED_RULES = {"_".join(k): v for k, v in {
    ("bop", "repeat_multiplier"): "renamed expanding_repeat_multiplier",
    ("bop", "books_sub_expanding_normal"): "renamed scatter_substitutes_for_expanding_in_line_wins",
    ("bop", "power_book_retriggers"): "renamed golden_symbol_retriggers",
    ("bop", "golden_immediate"): "renamed golden_immediate",
    ("bop", "gamble"): "the gamble is declared on the bet mode: gamble = { feature, into, policy, win_probability }",
    ("bop", "gamble_count"): "now the bet mode's gamble.count",
    ("boce", "wild_reels_expansion"): "renamed wild_reels_expansion",
    ("boce", "max_win"): "renamed published_max_win",
}.items()}


def _autoplay(ctx: _Ctx, value: Any) -> tuple[str, ...]:
    """``[autoplay] stops``: the advanced autoplay stop options of the game's rules, in
    :data:`AUTOPLAY_STOPS` order (each at most once)."""
    t = ctx.table(value, "autoplay", ("stops",), ("stops",))
    raw = t["stops"]
    if not isinstance(raw, list):
        ctx.fail("autoplay.stops", f"must be a list of stop options, got {show(raw)}")
    seen = []
    for i, x in enumerate(raw):
        k = ctx.join("autoplay.stops", i)
        v = ctx.string(x, k, choices=AUTOPLAY_STOPS)
        if v in seen:
            ctx.fail(k, f"{show(v)} is listed twice")
        if v == "feature" and not ctx.features:  # as session --stop-on-feature: a stop that can never act
            ctx.fail(k, "'feature' stops a run when a round starts a feature, and the game has no [features]: "
                        "it could never stop one (the par sheet printed its probability as a bound of 0); "
                        "remove it from the stops")
        seen.append(v)
    return tuple(x for x in AUTOPLAY_STOPS if x in seen)


def _design(ctx: _Ctx, value: Any) -> dict[str, str]:
    out: dict[str, str] = {}

    def walk(v: Any, key: str) -> None:
        if isinstance(v, Mapping):
            for k, sub in v.items():
                walk(sub, ctx.join(key, k))
        elif isinstance(v, str):
            out[key[len("design."):]] = v
        else:
            ctx.fail(key, f"must be a one-line reason (a string), got {show(v)}")

    walk(ctx.table(value, "design"), "design")
    return out
