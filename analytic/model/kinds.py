"""Feature kinds, the validation context, and the registry of rule switches.

A model file declares features as ``[features.NAME]`` with a generic
``kind`` (``free_spins``, the default, or ``pick_bonus``).  The loader
(:mod:`analytic.model.loader`) validates the keys every feature shares
(``kind``, ``reels``, ``trigger``) and hands the remaining keys to
:func:`compose_feature`: the kind's check, then each mechanic's validator
(:mod:`analytic.model.mechanics`), then the engine that solves the
declared combination (:mod:`analytic.model.mechanics.engines`), whose
parameters become :attr:`analytic.model.game.FeatureSpec.params`.

Rule switches (``[rules]`` of a model file) are registered by the mechanic
(or engine) whose reading they change (:func:`register_rules`); a model may
only set the rules of the mechanics and engines its features use, and only
the default of a mechanic's rule its engine does not read.

A kind registered with :func:`register_kind` and no mechanics (an
extension) is its own engine: its validator's dict is the parameters.

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
from analytic.limits import MAX_AWARD, MAX_COUNT_DIGITS, MAX_EXPONENT, MAX_INTEGER, MAX_NUMBER_CHARS, MAX_SHOWN_CHARS
from analytic.model.game import FeatureSpec, Symbol, Trigger, frozen_mapping

__all__ = [
    "FEATURE_KINDS",
    "compose_feature",
    "register_rules",
    "RETIRED_KINDS",
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
    register_rules(name, rules or {})
    FEATURE_KINDS[name] = validator


def register_rules(owner: str, rules: Mapping[str, RuleSpec | tuple]) -> dict[str, RuleSpec]:
    """Register the rule switches of ``owner`` (a kind, ``mechanic:NAME`` or the game).

    Parameters
    ----------
    owner : str
    rules : mapping
        Rule name -> ``(allowed values or type, default, doc)``.

    Returns
    -------
    dict
        Rule name -> :class:`RuleSpec`.

    Raises
    ------
    ValueError
        A rule name already registered with a different spec, or a default not allowed.
    """
    specs = {r: RuleSpec(*s) for r, s in rules.items()}
    for r, spec in specs.items():
        if r in RULES and RULES[r] != spec:
            raise ValueError(f"rule {r!r} is already registered with a different spec")
        if spec.problem(spec.default) is not None:
            raise ValueError(f"rule {r!r}: default {spec.default!r} is not allowed")
    RULES.update(specs)
    KIND_RULES[owner] = tuple(specs)
    return specs


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
    """The rule switches known for a game whose features have ``kinds`` / mechanics.

    Parameters
    ----------
    kinds : iterable of str
        Registered owners: kind names, or ``mechanic:NAME`` for a feature's mechanics.

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
        self.ways = False
        self.groups: dict[str, frozenset[str]] = {}

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

    def _award(self, value: Any, key: str) -> int:
        """A trigger count's award: an integer 1 .. :data:`MAX_AWARD` (0 would start a feature of no spins,
        which the solver and the simulator cannot read alike: refused)."""
        v = self.integer(value, key, min=0, max=MAX_AWARD)
        if v == 0:
            self.fail(key, "an award of 0 starts nothing; leave the count out (a count below the smallest "
                           "listed one starts nothing, one above a listed count awards what that count awards)")
        return v

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
                             value_fn=lambda v, k: self._award(v, k))
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
# built-in kinds: a feature is composed of mechanics (analytic.model.mechanics)

#: The kinds that named a seed game before features were declared from mechanics: refused with the
#: new declaration (docs/model-format.md, "Mechanics").
RETIRED_KINDS = {
    "book_of_power": "kind = \"free_spins\" with retrigger = { per_symbol = 5 } and expanding_symbol = "
                     "{ draw = \"at_each_award\", repeat_multiplier = { ceiling = 9 } } (plus ladder = "
                     "{ order = \"rank_ascending\" } and golden_reels = { reels = [...], turned_by = [...] } for "
                     "the ladder feature; the gamble is declared on the bet mode: gamble = { ... })",
    "book_of_christmas_eve": "kind = \"free_spins\" with wild_reels = { revealed_by = \"book\", multipliers = "
                             "{ 1 = 60, ... }, combine = \"multiply\" } and expanding_symbol = { choose_from = [...] }",
    "secrets_of_christmas": "kind = \"free_spins\" with gift_pick = { wild = \"wild\", gifts = [...] } "
                            "(and multiplier = N for the starting multiplier)",
}

#: Keys of the retired kinds -> where they went.
RETIRED_KEYS = {
    "variant": "declare the mechanics instead (a ladder: ladder = { order = \"rank_ascending\" })",
    "spins_per_book": "now retrigger = { per_symbol = N }",
    "max_multiplier": "now expanding_symbol.repeat_multiplier = { ceiling = N }",
    "gamble_probability": "the gamble is declared on the bet mode: [modes.NAME] gamble = { ..., win_probability = q }",
    "book": "now wild_reels = { revealed_by = SYMBOL, multipliers = { ... }, combine = \"multiply\" }",
    "multipliers": "now wild_reels.multipliers (with revealed_by)",
    "wild": "now gift_pick.wild",
    "gifts": "now gift_pick.gifts",
    "base_multiplier": "now multiplier = N",
}


def _free_spins(params: Mapping[str, Any], key: str, ctx: ValidationContext) -> None:
    """What every free-spins feature needs: its reel set and a trigger (whose counts give the spins)."""
    f = ctx.feature
    if f is None or f.reel_set is None:
        ctx.fail(ctx.join(key, "reels"), "required for kind 'free_spins': the reel set its spins use")
    if f.trigger is None:
        ctx.fail(ctx.join(key, "trigger"),
                 "required for kind 'free_spins': its counts give the number of spins awarded")


def _pick_bonus(params: Mapping[str, Any], key: str, ctx: ValidationContext) -> None:
    """A pick bonus has no spins."""
    f = ctx.feature
    if f is not None and f.reel_set is not None:
        ctx.fail(ctx.join(key, "reels"), "not used by kind 'pick_bonus' (it has no spins)")
    if f is not None and f.trigger is not None:
        for n, award in f.trigger.counts.items():
            if award != 1:
                ctx.fail(ctx.join(ctx.join(ctx.join(key, "trigger"), "counts"), str(n)),
                         f"a pick bonus is played once per trigger: its award must be 1, got {award}")


register_kind("free_spins", _free_spins)
register_kind("pick_bonus", _pick_bonus)


def compose_feature(kind: str, params: Mapping[str, Any], key: str, ctx: ValidationContext,
                    declared_out: dict | None = None):
    """Validate a feature's mechanic keys and choose the engine that solves them.

    Parameters
    ----------
    kind : str
        A registered kind.
    params : mapping
        The feature's keys other than ``kind``, ``reels``, ``trigger``.
    key : str
        ``features.NAME``.
    ctx : ValidationContext
        ``ctx.feature`` holds the feature's common part.
    declared_out : dict, optional
        Filled with the validated mechanic keys (model key -> normalised
        value, file order): :attr:`FeatureSpec.declared`.

    Returns
    -------
    (str, tuple of str, dict)
        The engine's name, the mechanics declared (file order) and the
        parameters the engine's solver reads.

    Raises
    ------
    ModelError
        An unknown key (with where a retired key went), a bad mechanic value,
        or a combination no engine solves.
    """
    from analytic.model.mechanics import MECHANICS, declared
    from analytic.model.mechanics.engines import select_engine

    own = FEATURE_KINDS[kind](params, key, ctx)
    fitting = [m for m in MECHANICS.values() if kind in m.kinds]
    if not fitting:  # a kind registered with its own validator and no mechanics: its own engine
        return kind, (), dict(own or {})
    allowed = [k for m in fitting for k in m.keys]
    for k in params:
        if k not in allowed:
            hint = f" ({RETIRED_KEYS[k]})" if k in RETIRED_KEYS else ""
            ctx.fail(ctx.join(key, k), f"unknown key {k!r} for kind {kind!r}{hint}; allowed: kind, reels, trigger, "
                                       f"{', '.join(allowed)}")
    decl = {}
    for m, values in declared(params).items():
        decl[m] = MECHANICS[m].validate(values, key, ctx)
        if declared_out is not None:
            declared_out.update(decl[m])
    if kind == "pick_bonus" and "pick_bonus" not in decl:
        decl["pick_bonus"] = MECHANICS["pick_bonus"].validate({}, key, ctx)  # names the missing key
    engine, built = select_engine(kind, decl, key, ctx)
    return engine, tuple(decl), built


# --------------------------------------------------------------------------
# rules every game may set (not tied to a feature kind)

#: Rules of the line evaluation itself (refused with free spins when not at their default).
LINE_RULES = ("line_wild_multipliers", "all_wild_win_multiplied", "line_win_chosen_on", "anywhere_pay_wilds")

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
        "line_wild_multipliers": (
            ("multiply", "add", "highest_once"),
            "multiply",
            "several multiplier wilds in one winning run multiply (two x2: x4), add (two x2: x4, x2 and x3: "
            "x5; wilds without a multiplier add nothing) or apply once (highest_once: the largest multiplier "
            "of the wilds in the run, whatever their number)",
        ),
        "all_wild_win_multiplied": (
            (True, False),
            True,
            "a win whose counted cells are all wilds (the wilds' own pay, or wilds standing for a symbol) "
            "takes the wilds' multipliers (true) or pays unmultiplied (false)",
        ),
        "line_win_chosen_on": (
            ("final_pay", "base_pay"),
            "final_pay",
            "the one win paid per line is the highest after wild multipliers (final_pay) or the highest "
            "paytable pay before them, then multiplied (base_pay; equal base pays: the higher final pay)",
        ),
        "anywhere_pay_wilds": (
            ("counted", "not_counted"),
            "counted",
            "an [anywhere_pays] count includes the line's wilds that substitute for the symbol (counted) "
            "or only cells showing the symbol itself (not_counted)",
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
