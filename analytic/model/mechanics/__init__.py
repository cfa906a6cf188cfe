"""Feature mechanics: one small module per mechanic, composed in ``[features.NAME]``.

A feature of a model file has a generic ``kind`` (``"free_spins"``, the
default, or ``"pick_bonus"``), ``reels``, ``trigger`` and **mechanic keys**.
Each mechanic owns some of those keys, validates them (errors name the key
path) and declares the rule switches (``[rules]``) that change its reading.
Which exact solver plays the feature is then chosen by
:mod:`analytic.model.mechanics.engines`: an *engine* registers for the
combinations of mechanics (and parameter values) it can prove it solves; a
combination no engine solves is refused at load.

Mechanics (module, keys; see ``docs/model-format.md``, section "Mechanics"):

* :mod:`.spins` -- ``retrigger`` (a table, or ``{ per_symbol = N }``), ``max_spins``;
* :mod:`.multiplier` -- ``multiplier`` (a global win multiplier);
* :mod:`.scatter_pays` -- ``scatter_pays``;
* :mod:`.wild_symbols` -- ``wild_symbols`` (symbols turning wild);
* :mod:`.wild_reels` -- ``wild_reels`` (fixed, or revealed by a symbol with a multiplier law);
* :mod:`.reel_wild_multipliers` -- ``reel_wild_multipliers`` (a wild's multiplier drawn per reel each spin);
* :mod:`.expanding_symbol` -- ``expanding_symbol`` (drawn at the start or at each award);
* :mod:`.ladder` -- ``ladder`` (upgrades the expanding symbol along a declared order);
* :mod:`.golden_reels` -- ``golden_reels`` (sticky reels counting as the expanding symbol);
* :mod:`.gift_pick` -- ``gift_pick`` (gifts picked without replacement);
* :mod:`.pick_bonus` -- ``picks``, ``prizes_per_pick``, ``prizes``; or ``board`` (pick until a collect tile).

Adding a mechanic
-----------------
Write a module with ``validate(values, key, ctx) -> dict`` (``values``: the
mechanic's keys present in the feature; returns normalised values by key)
and call :func:`register_mechanic`; then let an engine accept it.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, NamedTuple

from analytic.model.kinds import RuleSpec

__all__ = ["Mechanic", "MECHANICS", "register_mechanic", "mechanic_of_key", "declared"]


class Mechanic(NamedTuple):
    """A mechanic: the feature keys it owns, its validator and its rule switches.

    Attributes
    ----------
    name : str
        The mechanic's name (module name).
    keys : tuple of str
        Keys of ``[features.NAME]`` it owns.
    kinds : tuple of str
        Feature kinds (``free_spins``, ``pick_bonus``) it may appear in.
    validate : callable
        ``validate(values, key, ctx) -> dict``: ``values`` maps each of its
        keys present to the parsed TOML value, ``key`` is ``features.NAME``,
        ``ctx`` the loader's :class:`~analytic.model.kinds.ValidationContext`
        (``ctx.feature`` holds the feature's reels and trigger).  Returns the
        normalised values by key; raises :class:`~analytic.errors.ModelError`.
    rules : Mapping[str, RuleSpec]
        Rule switches that change this mechanic's reading.
    """

    name: str
    keys: tuple
    kinds: tuple
    validate: Callable[[Mapping[str, Any], str, Any], dict]
    rules: Mapping[str, RuleSpec]


#: mechanic name -> :class:`Mechanic`, in registration order
MECHANICS: dict[str, Mechanic] = {}


def register_mechanic(name: str, keys, validate, rules=None, kinds=("free_spins",)) -> Mechanic:
    """Register a mechanic (its keys, validator and rule switches).

    Parameters
    ----------
    name : str
    keys : iterable of str
        Feature keys it owns (a key belongs to one mechanic).
    validate : callable
        See :class:`Mechanic`.
    rules : mapping, optional
        Rule name -> ``(allowed values or type, default, doc)``, registered
        with :func:`analytic.model.kinds.register_rules`.
    kinds : tuple of str
        Feature kinds it may appear in.

    Returns
    -------
    Mechanic

    Raises
    ------
    ValueError
        A key already owned by another mechanic.
    """
    from analytic.model.kinds import register_rules

    keys = tuple(keys)
    for k in keys:
        owner = mechanic_of_key(k)
        if owner is not None and owner != name:
            raise ValueError(f"key {k!r} already belongs to mechanic {owner!r}")
    specs = register_rules(f"mechanic:{name}", rules or {})
    m = Mechanic(name, keys, tuple(kinds), validate, specs)
    MECHANICS[name] = m
    return m


def mechanic_of_key(key: str) -> str | None:
    """The mechanic owning feature key ``key``, or None."""
    for m in MECHANICS.values():
        if key in m.keys:
            return m.name
    return None


def declared(params: Mapping[str, Any]) -> dict[str, dict]:
    """Group a feature's mechanic keys by mechanic: ``{mechanic: {key: value}}`` (file order)."""
    out: dict[str, dict] = {}
    for k, v in params.items():
        m = mechanic_of_key(k)
        if m is not None:
            out.setdefault(m, {})[k] = v
    return out


# one import per mechanic module (each registers itself)
from analytic.model.mechanics import spins  # noqa: E402,F401
from analytic.model.mechanics import multiplier  # noqa: E402,F401
from analytic.model.mechanics import scatter_pays  # noqa: E402,F401
from analytic.model.mechanics import wild_symbols  # noqa: E402,F401
from analytic.model.mechanics import wild_reels  # noqa: E402,F401
from analytic.model.mechanics import reel_wild_multipliers  # noqa: E402,F401
from analytic.model.mechanics import expanding_symbol  # noqa: E402,F401
from analytic.model.mechanics import ladder  # noqa: E402,F401
from analytic.model.mechanics import golden_reels  # noqa: E402,F401
from analytic.model.mechanics import gift_pick  # noqa: E402,F401
from analytic.model.mechanics import pick_bonus  # noqa: E402,F401
