"""Player of engine ``pick_bonus`` (e.g. Lobstermania's Lobster Buoy Bonus).

Rules played
------------
The number of picks is drawn from ``picks = {n: weight}``; each pick holds a
number of prizes drawn from ``prizes_per_pick = {n: weight}`` (default: one); each prize is
drawn with replacement from ``prizes = [[prize, weight], ...]``.  The bonus
wins the sum of the prizes, in **line-bet units**.

Board (``board = { collect, prizes, multipliers }``): the board's tiles are
shuffled (every order equally likely) and turned over in that order until
the first collect tile; the bonus wins the sum of the prize tiles turned
before it times the product of the multiplier tiles turned before it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import lcm

import numpy as np

from analytic.errors import ModelError
from analytic.simulator.evaluate import int_keys, plain
from analytic.simulator.features import FeatureBatch, weighted_draw

__all__ = ["PickBonus", "prepare", "play"]


@dataclass(frozen=True)
class PickBonus:
    """Parameters of a ``pick_bonus`` feature (plain data; prizes in line-bet units)."""

    picks: tuple  # ((n, weight), ...)
    per_pick: tuple  # ((n, weight), ...)
    prizes: tuple  # ((Fraction prize, weight), ...)
    denom: int = 1
    board: tuple = ()  # pick until collect: one (prize, multiplier, is_collect) per tile; () without a board


def _weights(game, key, m) -> tuple:
    try:
        out = tuple(sorted((int(k), int(v)) for k, v in int_keys(m).items()))
    except (AttributeError, TypeError, ValueError):
        raise ModelError(game.path, key, f"expected a table count -> integer weight, got {m!r}") from None
    if not out or sum(w for _, w in out) <= 0:
        raise ModelError(game.path, key, "needs at least one positive weight")
    return out


def prepare(game, spec) -> PickBonus:
    """Read the parameters of ``spec`` (a ``pick_bonus`` FeatureSpec).

    Raises
    ------
    ModelError
        A missing or unreadable parameter, naming its key path.
    """
    p = plain(spec.params)
    key = f"features.{spec.name}"
    if "board" in p:
        b = p["board"]
        tiles = [(0, 1, True)] * int(b["collect"])
        for v, n in b["prizes"]:
            tiles += [(int(v), 1, False)] * int(n)
        for m, n in b.get("multipliers", ()):
            tiles += [(0, int(m), False)] * int(n)
        return PickBonus(picks=(), per_pick=(), prizes=(), board=tuple(tiles))
    for k in ("picks", "prizes"):
        if k not in p:
            raise ModelError(game.path, f"{key}.{k}", "missing")
    raw = p["prizes"]
    pairs = list(raw.items()) if isinstance(raw, dict) else [tuple(x) for x in raw]
    prizes = tuple((Fraction(str(v)), int(w)) for v, w in pairs)
    if not prizes or sum(w for _, w in prizes) <= 0:
        raise ModelError(game.path, f"{key}.prizes", "needs at least one positive weight")
    den = 1
    for v, _ in prizes:
        den = lcm(den, v.denominator)
    return PickBonus(
        picks=_weights(game, f"{key}.picks", p["picks"]),
        per_pick=_weights(game, f"{key}.prizes_per_pick", p.get("prizes_per_pick", {1: 1})),
        prizes=prizes,
        denom=den,
    )


def play(tables, name, prep: PickBonus, counts, awards, rng, max_spins: int = 10**6) -> FeatureBatch:
    """Play ``len(awards)`` pick bonuses at once.

    Returns
    -------
    FeatureBatch
        Wins in ticks (``1 / tables.denom`` line-bet units); no spins.
    """
    m = len(awards)
    if prep.board:
        return FeatureBatch(_play_board(tables, prep.board, m, rng), np.zeros(m, dtype=np.int64),
                            np.zeros(m, dtype=bool))
    picks = weighted_draw([n for n, _ in prep.picks], [w for _, w in prep.picks], m, rng)
    owner = np.repeat(np.arange(m), picks)
    per = weighted_draw([n for n, _ in prep.per_pick], [w for _, w in prep.per_pick], owner.size, rng)
    prize_owner = np.repeat(owner, per)
    values = np.array([tables.ticks(v) for v, _ in prep.prizes], dtype=np.int64)
    drawn = weighted_draw(values, [w for _, w in prep.prizes], prize_owner.size, rng)
    win = np.zeros(m, dtype=np.int64)
    np.add.at(win, prize_owner, drawn)
    return FeatureBatch(win, np.zeros(m, dtype=np.int64), np.zeros(m, dtype=bool))


def _play_board(tables, board: tuple, m: int, rng, chunk: int = 50_000) -> np.ndarray:
    """Wins (ticks) of ``m`` pick-until-collect bonuses: each board shuffled, read up to its first collect."""
    prize = np.array([tables.ticks(v) for v, _, _ in board], dtype=np.int64)
    mult = np.array([x for _, x, _ in board], dtype=np.int64)
    collect = np.array([c for _, _, c in board], dtype=bool)
    n = len(board)
    out = np.empty(m, dtype=np.int64)
    for lo in range(0, m, chunk):
        k = min(chunk, m - lo)
        order = np.argsort(rng.random((k, n)), axis=1)  # a uniform random order of the tiles
        first = collect[order].argmax(axis=1)  # position of the first collect tile
        before = np.arange(n)[None, :] < first[:, None]
        total = np.where(before, prize[order], 0).sum(axis=1)
        factor = np.where(before, mult[order], 1).prod(axis=1)
        out[lo:lo + k] = total * factor
    return out
