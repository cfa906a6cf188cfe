"""Feature players of the simulator: one module per engine (``FeatureSpec.engine``).

Each module ``analytic.simulator.features.<kind>`` provides two functions:

``prepare(game, spec) -> object``
    Reads and checks ``spec.params`` once, returning plain picklable data
    (it may carry a ``denom`` attribute: the ticks per line-bet unit its wins
    need, see :mod:`analytic.simulator.evaluate`).
``play(tables, name, prepared, counts, awards, rng, max_spins) -> FeatureBatch``
    Plays ``m`` independent instances of the feature, where ``counts[i]`` is
    the trigger-symbol count that started instance ``i`` and ``awards[i]``
    the award of the trigger table (free spins, or 1 for a bonus).  A player
    may work on the whole batch at once (vectorised) or loop over instances;
    all its randomness comes from ``rng``.

:data:`PLAYERS` maps an engine to its module; :func:`get_player` imports it or
raises :class:`~analytic.errors.UnsupportedMechanicError`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from analytic.errors import UnsupportedMechanicError

__all__ = ["PLAYERS", "FeatureBatch", "get_player", "weighted_draw"]

#: Engine (``FeatureSpec.engine``, :mod:`analytic.model.mechanics.engines`) -> module name of its
#: player (in this package).
PLAYERS = {
    "wald": "free_spins",
    "pick_bonus": "pick_bonus",
    "revealed_wild_reels": "revealed_wild_reels",
    "gift_pick": "gift_pick",
    "drawn_expanding": "drawn_expanding",
}


@dataclass
class FeatureBatch:
    """Outcome of ``m`` feature instances.

    Attributes
    ----------
    win : ndarray of int64, shape (m,)
        Win of each instance in ticks (``1 / tables.denom`` line-bet units).
    spins : ndarray of int64, shape (m,)
        Spins played by each instance (0 for a bonus without spins).
    limited : ndarray of bool, shape (m,)
        Instances stopped at the spin limit (a feature that would not end).
    """

    win: np.ndarray
    spins: np.ndarray
    limited: np.ndarray


def get_player(kind: str, path: str = "", feature: str = "") -> ModuleType:
    """The player module of engine ``kind`` (``FeatureSpec.engine``).

    Raises
    ------
    UnsupportedMechanicError
        No player for ``kind``; the message names the kind, the feature and
        the kinds the simulator can play.
    """
    mod = PLAYERS.get(kind)
    if mod is None:
        where = f"{path}: features.{feature}: " if feature else ""
        raise UnsupportedMechanicError(
            f"{where}the simulator cannot play engine {kind!r}; "
            f"it plays {', '.join(sorted(PLAYERS))}. Add a player module "
            f"in analytic/simulator/features/ and register it in PLAYERS."
        )
    return importlib.import_module(f"{__name__}.{mod}")


def weighted_draw(values, weights, size: int, rng: np.random.Generator) -> np.ndarray:
    """Draw ``size`` values with replacement, exactly proportional to integer weights.

    Parameters
    ----------
    values : sequence
        The outcomes (converted to a numpy array).
    weights : sequence of int
        Non-negative integer weights, same length.
    size : int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (size,)
    """
    cum = np.cumsum(np.asarray(weights, dtype=np.int64))
    u = rng.integers(0, int(cum[-1]), size=size)
    return np.asarray(values)[np.searchsorted(cum, u, side="right")]
