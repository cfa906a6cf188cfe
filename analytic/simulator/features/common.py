"""Pieces shared by the feature players of the simulator.

Only what several players do the same way lives here: reading the common
head of a feature's params, the batching of spins (fixed spin counts, or
spins that retriggers may extend, both under the per-instance spin limit),
the pay table of an expanding symbol counted on reels, and virtual symbols
appended to the evaluator's tables.  All randomness still comes from the
``rng`` a player passes in, drawn in the same order as before.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from analytic.errors import ModelError
from analytic.simulator.evaluate import plain

__all__ = [
    "BLOCK",
    "feature_params",
    "capped_spins",
    "fixed_spin_blocks",
    "block_sizes",
    "retire_limited",
    "reel_expansion_pays",
    "with_virtual_symbols",
]

#: Largest number of spins evaluated in one numpy batch.
BLOCK = 50_000


def feature_params(game, spec, reel_key: str = "reels", need: str = "needs a known reel set") -> tuple:
    """Plain params of ``spec`` and its key path, after checking its reel set.

    Parameters
    ----------
    game : Game
    spec : FeatureSpec
    reel_key, need : str
        Key (below ``features.<name>``) and opening words of the error for an
        unknown reel set.

    Returns
    -------
    (dict, str)
        ``plain(spec.params)`` and ``"features.<name>"``.

    Raises
    ------
    ModelError
        ``spec.reel_set`` is missing or not a reel set of ``game``.
    """
    p = plain(spec.params)
    key = f"features.{spec.name}"
    if spec.reel_set is None or spec.reel_set not in game.reel_sets:
        raise ModelError(game.path, f"{key}.{reel_key}", f"{need}, got {spec.reel_set!r}")
    return p, key


def capped_spins(total, max_spins: int) -> tuple:
    """(spins played, limited flags) of instances owed ``total`` spins each."""
    total = np.asarray(total, dtype=np.int64)
    return np.minimum(total, max_spins), total > max_spins


def fixed_spin_blocks(tables, reel_set: str, spins, rng):
    """Spin ``spins[i]`` windows of ``reel_set`` for every instance ``i``, in blocks.

    Yields
    ------
    (owner, windows)
        ``owner``: instance of each spin (at most :data:`BLOCK` of them);
        ``windows``: their windows, drawn when the block is reached (so a
        caller's own draws between blocks keep their place in ``rng``).
    """
    owner_all = np.repeat(np.arange(len(spins)), spins)
    for start in range(0, owner_all.size, BLOCK):
        owner = owner_all[start:start + BLOCK]
        yield owner, tables.spin(reel_set, owner.size, rng)


def block_sizes(active, left, played, max_spins: int, most: int | None = None) -> np.ndarray:
    """Spins each ``active`` instance plays in the next block.

    At most its spins ``left``, its room under ``max_spins``, ``most`` (when
    given) and an even share of :data:`BLOCK` (at least 1).
    """
    budget = max(1, BLOCK // active.size)
    if most is not None:
        budget = min(budget, most)
    return np.minimum(np.minimum(left[active], budget), max_spins - played[active])


def retire_limited(active, left, played, limited, max_spins: int) -> np.ndarray:
    """Stop the instances at the spin limit that still have spins (flagged
    ``limited``, in place) and return the ``active`` ones with spins left."""
    over = active[(played[active] >= max_spins) & (left[active] > 0)]
    limited[over] = True
    left[over] = 0
    return active[left[active] > 0]


def reel_expansion_pays(tables, names) -> tuple:
    """Pay of an expanding symbol counted on reels, for each of ``names``.

    Returns
    -------
    (ndarray of int64, shape (len(names), reels + 1), ndarray of int64, shape (len(names),))
        ``pay[i, k]``: ``paytable[names[i]][min(k, K)] * number of paylines`` in
        ticks when ``k`` reels show the symbol, ``K`` its largest listed count
        (docs/model-format.md, mechanic ``expanding_symbol``; 0 below its
        smallest paying count); ``kmin[i]``: that smallest paying count.
    """
    pay = np.zeros((len(names), tables.reels + 1), dtype=np.int64)
    kmin = np.zeros(len(names), dtype=np.int64)
    for i, n in enumerate(names):
        pt = tables.paytable[n]
        kmin[i] = min(k for k, v in pt.items() if v > 0)
        kmax = max(pt)
        for k in range(kmin[i], tables.reels + 1):
            pay[i, k] = pt.get(min(k, kmax), 0) * tables.n_lines * tables.denom
    return pay, kmin


def with_virtual_symbols(tables, extra: list) -> tuple:
    """A copy of ``tables`` with extra (virtual) symbols appended.

    Parameters
    ----------
    tables : Tables
    extra : list of (support, multiplier) or (support, multiplier, wild)
        ``support``: bool array over the candidates (the candidates the
        virtual symbol supports); ``multiplier``: its line multiplier;
        ``wild`` (default False): it is a wild for rule
        ``line_wild_pay = "first_non_wild"``.

    Returns
    -------
    (Tables, ndarray of int16)
        The extended tables (no triggers, no line triggers: only line and
        scatter wins are evaluated) and the indices of the virtual symbols.
    """
    nsym = len(tables.symbol_names)
    k = len(extra)
    sup = np.zeros((tables.cand_support.shape[0], nsym + k), dtype=bool)
    sup[:, :nsym] = tables.cand_support
    mult = np.concatenate([tables.multiplier, np.ones(k, dtype=np.int64)])
    wild = None if tables.wild_mask is None else np.concatenate([tables.wild_mask, np.zeros(k, dtype=bool)])
    for i, (s, m, *w) in enumerate(extra):
        sup[:, nsym + i] = s
        mult[nsym + i] = int(m)
        if wild is not None:
            wild[nsym + i] = bool(w[0]) if w else False
    ext = replace(
        tables,
        symbol_names=tuple(tables.symbol_names) + tuple(f"__virtual{i}" for i in range(k)),
        cand_support=sup,
        multiplier=mult,
        has_multipliers=bool((mult != 1).any()),
        scatter_mask=np.concatenate([tables.scatter_mask, np.zeros(k, dtype=bool)]),
        wild_mask=wild,
        triggers={},
        line_triggers=(),
        features={},
    )
    return ext, np.arange(nsym, nsym + k, dtype=np.int16)
