"""Feature kinds: validators of kind-specific parameters, and rule switches.

A model file declares features as ``[features.NAME]`` with a ``kind``.  The
loader (:mod:`analytic.model.loader`) validates the keys every feature shares
(``kind``, ``reels``, ``trigger``) and hands the remaining keys to the kind's
validator registered here.  A validator returns the normalised parameters
that become :attr:`analytic.model.game.FeatureSpec.params`.

Rule switches (``[rules]`` of a model file) are registered together with the
kind whose mechanic they change; a model may only set the rules of the kinds
its features use.

Adding a kind
-------------
>>> def my_validator(params, key, ctx):
...     p = ctx.table(params, key, allowed=("levels",))
...     return {"levels": ctx.integer(p.get("levels", 1), ctx.join(key, "levels"), min=1)}
>>> register_kind("my_kind_doctest", my_validator,
...               rules={"my_switch_doctest": (("a", "b"), "a", "which reading")})
>>> FEATURE_KINDS["my_kind_doctest"] is my_validator
True
>>> unregister_kind("my_kind_doctest")

The validator signature is ``validator(params, key, ctx) -> dict`` where
``params`` is the mapping of the feature's remaining keys, ``key`` the key
path of the feature (``features.NAME``) and ``ctx`` a
:class:`ValidationContext` with typed getters that raise
:class:`analytic.errors.ModelError` carrying the right key path.
``ctx.feature`` is the feature's common part (a :class:`FeatureSpec` with
empty params).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, NamedTuple, NoReturn

from analytic.errors import ModelError
from analytic.limits import MAX_PICK_PRIZES, MAX_AWARD, MAX_COUNT_DIGITS, MAX_EXPONENT, MAX_INTEGER, MAX_NUMBER_CHARS, MAX_SHOWN_CHARS
from analytic.model.game import FeatureSpec, Symbol, Trigger, frozen_mapping

__all__ = [
    "FEATURE_KINDS",
    "RULES",
    "KIND_RULES",
    "RuleSpec",
    "ValidationContext",
    "Validator",
    "register_kind",
    "unregister_kind",
    "rules_for",
    "show",
]

#: ``validator(params, key, ctx) -> dict`` of normalised params.
Validator = Callable[[Mapping[str, Any], str, "ValidationContext"], dict]


class RuleSpec(NamedTuple):
    """A rule switch: what values it takes, its default and what it means.

    Attributes
    ----------
    allowed : tuple or type
        Either the tuple of allowed values or a type (``bool``, ``int``,
        ``str``) every value must have.
    default : Any
        Reading used when the model file does not set the rule.
    doc : str
        One line for the documentation and error messages.
    """

    allowed: tuple | type
    default: Any
    doc: str

    def problem(self, value: Any) -> str | None:
        """Return why ``value`` is not allowed, or ``None`` if it is."""
        if isinstance(self.allowed, type):
            ok = isinstance(value, self.allowed) and not (
                self.allowed is int and isinstance(value, bool)
            )
            return None if ok else f"must be {_type_name(self.allowed)}, got {show(value)}"
        if any(value == a and type(value) is type(a) for a in self.allowed):
            return None
        return f"got {show(value)}; allowed: {', '.join(show(a) for a in self.allowed)}"


#: Kind name -> validator of the kind-specific params.
FEATURE_KINDS: dict[str, Validator] = {}
#: Rule name -> :class:`RuleSpec` (every kind's rules).
RULES: dict[str, RuleSpec] = {}
#: Kind name -> names of the rules it registered.
KIND_RULES: dict[str, tuple[str, ...]] = {}


def register_kind(
    name: str,
    validator: Validator,
    rules: Mapping[str, RuleSpec | tuple] | None = None,
    *,
    replace: bool = False,
) -> None:
    """Register a feature kind and the rule switches its mechanic reads.

    Parameters
    ----------
    name : str
        The ``kind`` value in ``[features.NAME]``.
    validator : callable
        ``validator(params, key, ctx) -> dict``; see the module docstring.
    rules : mapping, optional
        Rule name -> ``(allowed values or type, default, doc)``.  A rule name
        may be shared by several kinds only with an identical spec.
    replace : bool, default False
        Allow re-registering an existing kind.

    Raises
    ------
    ValueError
        If the kind exists (and ``replace`` is false) or a rule name is
        already registered with a different spec.
    """
    if name in FEATURE_KINDS and not replace:
        raise ValueError(f"feature kind {name!r} is already registered")
    specs = {r: RuleSpec(*s) for r, s in (rules or {}).items()}
    for r, spec in specs.items():
        if r in RULES and RULES[r] != spec:
            raise ValueError(f"rule {r!r} is already registered with a different spec")
        if spec.problem(spec.default) is not None:
            raise ValueError(f"rule {r!r}: default {spec.default!r} is not allowed")
    FEATURE_KINDS[name] = validator
    RULES.update(specs)
    KIND_RULES[name] = tuple(specs)


def unregister_kind(name: str) -> None:
    """Remove a kind (and its rules not used by another kind); for tests.

    Parameters
    ----------
    name : str
        A registered kind.

    Raises
    ------
    KeyError
        If ``name`` is not registered.
    """
    del FEATURE_KINDS[name]
    rules = KIND_RULES.pop(name)
    still = {r for rs in KIND_RULES.values() for r in rs}
    for r in rules:
        if r not in still:
            RULES.pop(r, None)


def rules_for(kinds: Iterable[str]) -> dict[str, RuleSpec]:
    """The rule switches known for a game whose features have ``kinds``.

    Parameters
    ----------
    kinds : iterable of str
        Registered kind names.

    Returns
    -------
    dict
        Rule name -> :class:`RuleSpec`, in registration order.
    """
    names = {r for k in [GAME_RULES_KIND, *kinds] for r in KIND_RULES.get(k, ())}
    return {r: s for r, s in RULES.items() if r in names}


# --------------------------------------------------------------------------
# showing values in messages


def _type_name(t: type) -> str:
    return {bool: "true or false", int: "an integer", str: "a string"}.get(t, t.__name__)


def show(value: Any) -> str:
    """Render a parsed TOML value the way a model file spells it (for messages).

    Parameters
    ----------
    value : Any
        A value from the parsed model file.

    Returns
    -------
    str
        ``'Jak'`` for strings, ``true``/``false`` for bools, ``a table`` /
        ``a list [...]`` for containers (shortened), else ``repr``.

    Examples
    --------
    >>> show("Jak"), show(True), show(2.5), show({"a": 1})
    ("'Jak'", 'true', '2.5', 'a table')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        if len(value) > MAX_SHOWN_CHARS:  # never echo more than a short, escaped excerpt
            return repr(value[:MAX_SHOWN_CHARS]) + f"... ({len(value):,} characters)"
        return repr(value)
    if isinstance(value, int) and value.bit_length() > 3 * MAX_SHOWN_CHARS:  # str() of a huge int is slow
        return f"an integer of about {int(value.bit_length() * 0.30103):,} digits"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, (list, tuple)):
        text = "[" + ", ".join(show(v) for v in value[:6]) + (", ..." if len(value) > 6 else "") + "]"
        return f"a list {text}"
    return repr(value) if not isinstance(value, Fraction) else str(value)


def _known(names: Iterable[str], limit: int = 12) -> str:
    names = list(names)
    more = ", ..." if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


_COUNT_KEY = re.compile(r"[+-]?[0-9]+")  # ASCII digits only (not Arabic-Indic or other Unicode digits)
#: An exact-number string: an integer or decimal with an optional exponent, or ``p/q`` (ASCII only).
_EXACT = re.compile(r"\s*([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:[eE]([+-]?[0-9]+))?\s*"
                    r"|\s*[+-]?[0-9]+\s*/\s*[+-]?[0-9]+\s*")


class ValidationContext:
    """Where validation is (file, game so far) plus typed getters.

    Every getter takes the parsed value and its key path and either returns
    the value normalised or raises :class:`ModelError` naming the file, the
    key path and what is allowed.

    Attributes
    ----------
    path : str
        The model file (for messages).
    base_dir : pathlib.Path
        Directory relative paths (CSV reel strips) are resolved against.
    reels, rows : int
        Grid size (set once ``[game]`` is read).
    symbols : dict[str, Symbol]
        Declared symbols by name, in file order.
    paytable : dict[str, dict[int, int]]
        Line pays read so far.
    reel_sets : dict[str, tuple[tuple[str, ...], ...]]
        Reel sets read so far.
    features : dict[str, FeatureSpec]
        Features read so far.
    feature : FeatureSpec or None
        The feature whose kind validator is running (params still empty).
    """

    def __init__(self, path: str, base_dir: str | Path | None = None):
        self.path = str(path)
        self.base_dir = Path(base_dir) if base_dir is not None else Path.cwd()
        self.reels = 0
        self.rows = 0
        self.symbols: dict[str, Symbol] = {}
        self.paytable: dict[str, dict[int, int]] = {}
        self.reel_sets: dict[str, tuple[tuple[str, ...], ...]] = {}
        self.features: dict[str, FeatureSpec] = {}
        self.feature: FeatureSpec | None = None

    # -- basics -------------------------------------------------------------
    @staticmethod
    def join(key: str, child: str | int) -> str:
        """Key path of ``child`` under ``key`` (``a.b``, ``a[3]``)."""
        if isinstance(child, int):
            return f"{key}[{child}]"
        return f"{key}.{child}" if key else str(child)

    def fail(self, key: str, reason: str) -> NoReturn:
        """Raise :class:`ModelError` for this file at ``key``.

        Parameters
        ----------
        key : str
            Key path of the offending value.
        reason : str
            What is wrong and what is allowed.

        Raises
        ------
        ModelError
            Always.
        """
        raise ModelError(self.path, key, reason)

    # -- typed getters ------------------------------------------------------
    def table(
        self,
        value: Any,
        key: str,
        allowed: Iterable[str] | None = None,
        required: Iterable[str] = (),
    ) -> dict[str, Any]:
        """A TOML table, checked for unknown and missing keys.

        Parameters
        ----------
        value : Any
            The parsed value.
        key : str
            Its key path.
        allowed : iterable of str, optional
            Keys allowed (``None``: any key).
        required : iterable of str
            Keys that must be present.

        Returns
        -------
        dict
            A shallow copy of the table.

        Raises
        ------
        ModelError
            Not a table, an unknown key, or a missing required key.
        """
        if not isinstance(value, Mapping):
            self.fail(key, f"must be a table, got {show(value)}")
        if allowed is not None:
            allowed = tuple(allowed)
            for k in value:
                if k not in allowed:
                    self.fail(self.join(key, k), f"unknown key {k!r}; allowed: {', '.join(allowed)}")
        for k in required:
            if k not in value:
                self.fail(self.join(key, k), "required key is missing")
        return dict(value)

    def integer(self, value: Any, key: str, *, min: int | None = None, max: int | None = None) -> int:
        """A TOML integer (not a bool, not a float) within ``[min, max]``.

        Parameters
        ----------
        value : Any
        key : str
        min, max : int, optional
            Inclusive bounds.

        Returns
        -------
        int

        Raises
        ------
        ModelError
            Wrong type or out of bounds.
        """
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"must be an integer, got {show(value)}")
        if abs(value) > MAX_INTEGER:
            self.fail(key, f"must be at most 10^18 in absolute value, got {show(value)}")
        if min is not None and value < min:
            self.fail(key, f"must be >= {min}, got {value}")
        if max is not None and value > max:
            self.fail(key, f"must be <= {max}, got {value}")
        return value

    def fraction(
        self,
        value: Any,
        key: str,
        *,
        min: Fraction | int | None = None,
        positive: bool = False,
        allow_float: bool = False,
    ) -> Fraction:
        """An exact number: integer, or a string ``"p/q"`` / ``"0.25"``.

        Parameters
        ----------
        value : Any
        key : str
        min : number, optional
            Inclusive lower bound.
        positive : bool
            Require ``> 0``.
        allow_float : bool
            Accept a TOML float, read as the decimal it is written as
            (``0.1`` -> 1/10); for currency amounts.

        Returns
        -------
        fractions.Fraction

        Raises
        ------
        ModelError
            Wrong type, unparsable string, or out of bounds.
        """
        if isinstance(value, bool):
            self.fail(key, f"must be a number, got {show(value)}")
        if isinstance(value, int):
            result = Fraction(self.integer(value, key))
        elif isinstance(value, float) and allow_float:
            if not math.isfinite(value):
                self.fail(key, f"must be a finite number, got {value}")
            result = Fraction(repr(value))
        elif isinstance(value, float):
            self.fail(key, f"must be an integer or an exact string such as \"1/2\" or \"0.5\", "
                           f"got the float {value} (write it in quotes)")
        elif isinstance(value, str):
            # bounded before parsing: Fraction("1e999999999") would compute 10**999999999
            m = _EXACT.fullmatch(value)
            if m is None or len(value) > MAX_NUMBER_CHARS:
                self.fail(key, f"must be an integer or a string \"p/q\" or \"0.25\" of at most "
                               f"{MAX_NUMBER_CHARS} characters, got {show(value)}")
            if m.group(2) is not None and abs(int(m.group(2))) > MAX_EXPONENT:
                self.fail(key, f"decimal exponent must be within -{MAX_EXPONENT} .. {MAX_EXPONENT}, "
                               f"got {show(value)}")
            try:
                result = Fraction(value.strip())
            except (ValueError, ZeroDivisionError):
                self.fail(key, f"must be an integer or a string \"p/q\" or \"0.25\", got {show(value)} "
                               "(the denominator must not be 0)")
        else:
            self.fail(key, f"must be a number, got {show(value)}")
        if positive and result <= 0:
            self.fail(key, f"must be > 0, got {show(value)}")
        if min is not None and result < min:
            self.fail(key, f"must be >= {min}, got {show(value)}")
        return result

    def boolean(self, value: Any, key: str) -> bool:
        """A TOML boolean (``true``/``false``); raises :class:`ModelError` otherwise."""
        if not isinstance(value, bool):
            self.fail(key, f"must be true or false, got {show(value)}")
        return value

    def string(self, value: Any, key: str, *, choices: Iterable[str] | None = None) -> str:
        """A non-empty string, optionally one of ``choices``; raises :class:`ModelError` otherwise."""
        if not isinstance(value, str):
            self.fail(key, f"must be a string, got {show(value)}")
        if choices is not None:
            choices = tuple(choices)
            if value not in choices:
                self.fail(key, f"got {show(value)}; allowed: {', '.join(choices)}")
        elif not value.strip():
            self.fail(key, "must not be empty")
        return value

    def str_list(self, value: Any, key: str, *, nonempty: bool = False, unique: bool = True) -> list[str]:
        """A list of strings.

        Parameters
        ----------
        value : Any
        key : str
        nonempty : bool
            Require at least one entry.
        unique : bool
            Reject repeated entries.

        Returns
        -------
        list of str

        Raises
        ------
        ModelError
            Not a list, a non-string entry, empty or a duplicate.
        """
        if not isinstance(value, list):
            self.fail(key, f"must be a list of strings, got {show(value)}")
        if nonempty and not value:
            self.fail(key, "must list at least one entry")
        seen: set[str] = set()
        for i, v in enumerate(value):
            if not isinstance(v, str):
                self.fail(self.join(key, i), f"must be a string, got {show(v)}")
            if unique and v in seen:
                self.fail(self.join(key, i), f"{v!r} is listed twice")
            seen.add(v)
        return list(value)

    def symbol(self, value: Any, key: str, roles: Iterable[str] | None = None) -> str:
        """The name of a declared symbol, optionally with one of ``roles``.

        Parameters
        ----------
        value : Any
        key : str
        roles : iterable of str, optional
            Allowed roles (``None``: any).

        Returns
        -------
        str

        Raises
        ------
        ModelError
            Not a string, unknown symbol, or a symbol of another role.
        """
        if not isinstance(value, str):
            self.fail(key, f"must be a symbol name, got {show(value)}")
        sym = self.symbols.get(value)
        if sym is None:
            self.fail(key, f"unknown symbol {value!r} (known: {_known(self.symbols)})")
        if roles is not None:
            roles = tuple(roles)
            if sym.role not in roles:
                fit = [n for n, s in self.symbols.items() if s.role in roles]
                self.fail(key, f"symbol {value!r} has role {sym.role!r}; must be "
                               f"{' or '.join(roles)} (such symbols: {_known(fit) or 'none'})")
        return value

    def symbol_list(
        self, value: Any, key: str, roles: Iterable[str] | None = None, *, nonempty: bool = True
    ) -> list[str]:
        """A list of distinct declared symbol names (see :meth:`symbol`)."""
        names = self.str_list(value, key, nonempty=nonempty)
        roles = tuple(roles) if roles is not None else None
        for i, n in enumerate(names):
            self.symbol(n, self.join(key, i), roles)
        return names

    def count_key(
        self, k: str, key: str, *, lo: int = 1, hi: int | None = None, what: str = "count",
        hi_reason: str | None = None,
    ) -> int:
        """Parse the table key ``k`` of the table at ``key`` as a count (``3`` in ``{ 3 = 10 }``)."""
        kk = self.join(key, k)
        if not _COUNT_KEY.fullmatch(k.strip()):
            self.fail(kk, f"{what} must be a whole number, got {show(k)} (ASCII digits 0-9 only)")
        if len(k.strip().lstrip("+-")) > MAX_COUNT_DIGITS:
            self.fail(kk, f"{what} must have at most {MAX_COUNT_DIGITS} digits, got {show(k)}")
        n = int(k)
        if n < lo:
            self.fail(kk, f"{what} must be >= {lo}, got {n}")
        if hi is not None and n > hi:
            self.fail(kk, f"{what} {n} is more than {hi}" + (f" ({hi_reason})" if hi_reason else ""))
        return n

    def counts(
        self,
        value: Any,
        key: str,
        *,
        lo: int = 1,
        hi: int | None = None,
        what: str = "count",
        hi_reason: str | None = None,
        value_fn: Callable[[Any, str], Any] | None = None,
        nonempty: bool = True,
    ) -> dict[int, Any]:
        """A table ``{ count = value }`` with whole-number keys, sorted by count.

        Parameters
        ----------
        value : Any
        key : str
        lo, hi : int
            Bounds of the counts (``hi`` inclusive, optional).
        what : str
            Name of the key for messages ("count", "picks", ...).
        hi_reason : str, optional
            Explanation appended when a count exceeds ``hi``.
        value_fn : callable, optional
            ``value_fn(v, key) -> parsed``; default: integer >= 0.
        nonempty : bool
            Require at least one entry.

        Returns
        -------
        dict
            Count -> parsed value, ascending counts.

        Raises
        ------
        ModelError
            Not a table, bad count, duplicate count or bad value.
        """
        t = self.table(value, key)
        if nonempty and not t:
            self.fail(key, f"must have at least one entry {{ {what} = value }}")
        if value_fn is None:
            value_fn = lambda v, k: self.integer(v, k, min=0)  # noqa: E731
        out: dict[int, Any] = {}
        for k, v in t.items():
            kk = self.join(key, k)
            n = self.count_key(k, key, lo=lo, hi=hi, what=what, hi_reason=hi_reason)
            if n in out:
                self.fail(kk, f"{what} {n} is given twice")
            out[n] = value_fn(v, kk)
        return dict(sorted(out.items()))

    def weights(self, value: Any, key: str, *, what: str = "count", lo: int = 1) -> dict[int, int]:
        """``{ n = weight }`` with integer weights >= 0 summing to > 0."""
        w = self.counts(value, key, what=what, lo=lo)
        if sum(w.values()) <= 0:
            self.fail(key, "weights must not all be 0")
        return w

    # -- reel-set geometry --------------------------------------------------
    def max_count(self, symbols: Iterable[str], reel_set: str) -> int:
        """Most cells showing any of ``symbols`` in one window of ``reel_set``.

        The maximum over the stops of each reel (windows wrap) of the cells
        showing one of ``symbols``, summed over the reels.

        Parameters
        ----------
        symbols : iterable of str
        reel_set : str
            A reel set already read.

        Returns
        -------
        int
        """
        syms = set(symbols)
        total = 0
        for strip in self.reel_sets[reel_set]:
            n = len(strip)
            hits = [1 if s in syms else 0 for s in strip]
            window = sum(hits[i % n] for i in range(self.rows))
            best = window
            for s in range(1, n):
                window += hits[(s + self.rows - 1) % n] - hits[s - 1]
                best = window if window > best else best
            total += best
        return total

    def check_reachable(
        self, counts: Iterable[int], key: str, symbols: Iterable[str], reel_sets: Iterable[str]
    ) -> None:
        """Fail if a count of ``symbols`` cannot show in any window of ``reel_sets``.

        Parameters
        ----------
        counts : iterable of int
            Counts (keys of a trigger's ``counts`` table at ``key``).
        key : str
            Key path of the counts table; the error names ``key.COUNT``.
        symbols : iterable of str
        reel_sets : iterable of str
            Reel sets a window may come from (the best one counts).

        Raises
        ------
        ModelError
            For the first unreachable count.
        """
        symbols = sorted(set(symbols))
        sets = list(dict.fromkeys(reel_sets))
        if not sets:
            return
        best = max(self.max_count(symbols, rs) for rs in sets)
        for c in counts:
            if c > best:
                where = ", ".join(repr(s) for s in sets)
                self.fail(self.join(key, str(c)),
                          f"count {c} can never show: a window of reel set {where} holds at most "
                          f"{best} cell(s) of {', '.join(symbols)}")

    def trigger(
        self,
        value: Any,
        key: str,
        *,
        reel_sets: Iterable[str] = (),
        allow_requires: bool = True,
    ) -> Trigger:
        """A trigger table ``{ symbols = [...], counts = { n = award }, requires = [...] }``.

        Parameters
        ----------
        value : Any
        key : str
        reel_sets : iterable of str
            Reel sets whose windows must be able to show every count
            (empty: check only against the grid size).
        allow_requires : bool
            Whether ``requires`` may be given.

        Returns
        -------
        Trigger

        Raises
        ------
        ModelError
            Bad keys, unknown symbols, bad or unreachable counts.
        """
        allowed = ("symbols", "counts", "requires") if allow_requires else ("symbols", "counts")
        t = self.table(value, key, allowed, required=("symbols", "counts"))
        syms = self.symbol_list(t["symbols"], self.join(key, "symbols"))
        cells = self.reels * self.rows
        ck = self.join(key, "counts")
        counts = self.counts(t["counts"], ck, hi=cells,
                             hi_reason=f"the window has {self.reels} x {self.rows} = {cells} cells",
                             value_fn=lambda v, k: self.integer(v, k, min=0, max=MAX_AWARD))
        requires: list[str] = []
        if "requires" in t:
            rk = self.join(key, "requires")
            requires = self.symbol_list(t["requires"], rk, nonempty=False)
            for i, r in enumerate(requires):
                if r not in syms:
                    self.fail(self.join(rk, i), f"{r!r} is not one of the trigger symbols ({', '.join(syms)})")
        self.check_reachable(counts, ck, syms, reel_sets)
        return Trigger(frozenset(syms), frozen_mapping(counts), frozenset(requires))


# --------------------------------------------------------------------------
# built-in kinds


def _free_spins(params: Mapping[str, Any], key: str, ctx: ValidationContext) -> dict:
    """Generic free spins (Atkins Diet, Book of Ra): see docs/model-format.md."""
    p = ctx.table(params, key, allowed=("retrigger", "multiplier", "scatter_pays", "expanding_symbol"))
    f = ctx.feature
    if f is None or f.reel_set is None:
        ctx.fail(ctx.join(key, "reels"), "required for kind 'free_spins': the reel set its spins use")
    if f.trigger is None:
        ctx.fail(ctx.join(key, "trigger"),
                 "required for kind 'free_spins': its counts give the number of spins awarded")
    out: dict[str, Any] = {"retrigger": None, "multiplier": 1, "scatter_pays": True, "expanding_symbol": None}
    if "retrigger" in p:
        out["retrigger"] = ctx.trigger(p["retrigger"], ctx.join(key, "retrigger"),
                                       reel_sets=[f.reel_set], allow_requires=False)
    if "multiplier" in p:
        out["multiplier"] = ctx.integer(p["multiplier"], ctx.join(key, "multiplier"), min=1)
    if "scatter_pays" in p:
        out["scatter_pays"] = ctx.boolean(p["scatter_pays"], ctx.join(key, "scatter_pays"))
    if "expanding_symbol" in p:
        ek = ctx.join(key, "expanding_symbol")
        e = ctx.table(p["expanding_symbol"], ek, ("choose_from", "weights"), required=("choose_from",))
        ck = ctx.join(ek, "choose_from")
        choose = ctx.symbol_list(e["choose_from"], ck)
        for i, s in enumerate(choose):
            if not any(v > 0 for v in ctx.paytable.get(s, {}).values()):
                ctx.fail(ctx.join(ck, i), f"symbol {s!r} has no line pays, so it could never pay as the "
                                          "expanding symbol")
        if "weights" in e:
            wk = ctx.join(ek, "weights")
            w = e["weights"]
            if not isinstance(w, list):
                ctx.fail(wk, f"must be a list of positive integers, got {show(w)}")
            if len(w) != len(choose):
                ctx.fail(wk, f"has {len(w)} entries but choose_from has {len(choose)}")
            weights = tuple(ctx.integer(x, ctx.join(wk, i), min=1) for i, x in enumerate(w))
        else:
            weights = (1,) * len(choose)
        out["expanding_symbol"] = frozen_mapping({"choose_from": tuple(choose), "weights": weights})
    return out


def _pick_bonus(params: Mapping[str, Any], key: str, ctx: ValidationContext) -> dict:
    """Pick bonus (Lobstermania's buoy bonus): see docs/model-format.md."""
    p = ctx.table(params, key, allowed=("picks", "prizes_per_pick", "prizes"), required=("picks", "prizes"))
    f = ctx.feature
    if f is not None and f.reel_set is not None:
        ctx.fail(ctx.join(key, "reels"), "not used by kind 'pick_bonus' (it has no spins)")
    out: dict[str, Any] = {
        "picks": frozen_mapping(ctx.weights(p["picks"], ctx.join(key, "picks"), what="number of picks")),
        "prizes_per_pick": frozen_mapping({1: 1}),
    }
    if "prizes_per_pick" in p:
        out["prizes_per_pick"] = frozen_mapping(
            ctx.weights(p["prizes_per_pick"], ctx.join(key, "prizes_per_pick"), what="prizes per pick"))
    most = max(out["picks"]) * max(out["prizes_per_pick"])  # the exact law's time grows with it
    if most > MAX_PICK_PRIZES:
        ctx.fail(ctx.join(key, "picks"), f"a bonus reveals up to {max(out['picks'])} x "
                                         f"{max(out['prizes_per_pick'])} = {most} prizes; at most {MAX_PICK_PRIZES}")
    pk = ctx.join(key, "prizes")
    prizes = p["prizes"]
    if not isinstance(prizes, list) or not prizes:
        ctx.fail(pk, f"must be a non-empty list of [prize, weight] pairs, got {show(prizes)}")
    pairs = []
    for i, pair in enumerate(prizes):
        ik = ctx.join(pk, i)
        if not isinstance(pair, list) or len(pair) != 2:
            ctx.fail(ik, f"must be a pair [prize, weight], got {show(pair)}")
        pairs.append((ctx.integer(pair[0], ctx.join(ik, 0), min=0), ctx.integer(pair[1], ctx.join(ik, 1), min=1)))
    out["prizes"] = tuple(pairs)
    return out


register_kind(
    "free_spins",
    _free_spins,
    rules={
        "expanding_count": (
            ("reels", "cells"),
            "reels",
            "how the expanding symbol is counted: reels showing it, or visible cells",
        ),
        "expanding_line_win": (
            ("paid", "wild_led_only"),
            "paid",
            "normal line wins of the expanding symbol: all paid, or only wild-led lines "
            "(a line starting with the symbol itself is left to the expansion)",
        ),
    },
)
register_kind("pick_bonus", _pick_bonus)


# --------------------------------------------------------------------------
# rules every game may set (not tied to a feature kind)

#: Pseudo-kind holding the rule switches of the base game itself.
GAME_RULES_KIND = "__game__"

register_kind(
    GAME_RULES_KIND,
    lambda params, key, ctx: dict(params),
    rules={
        "line_wild_pay": (
            ("highest", "first_non_wild"),
            "highest",
            "a line led by wilds pays the highest combination the wilds can stand for (highest), "
            "or the first non-wild symbol fixes the line's symbol, wilds still paying their own runs "
            "(first_non_wild: Book of Ra's open-source engine)",
        ),
        "simultaneous_triggers": (
            ("first_declared_starts",),
            "first_declared_starts",
            "when the triggers of several features are met on one spin only one starts: one whose trigger "
            "has requires before those without, else the first declared in [features] (the only reading "
            "solved: the base walk tracks one started feature per spin)",
        ),
    },
)
