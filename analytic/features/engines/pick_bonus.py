"""Engine ``pick_bonus``: the exact prize law of a pick bonus (e.g. Lobstermania's buoy bonus).

The number of picks ``N`` is drawn from ``picks``; each pick reveals ``M``
prizes (``prizes_per_pick``); each prize is drawn with replacement from
``prizes``.  All draws are independent, so the bonus win is a compound sum
and its exact law is a small convolution: the law of one pick is the mixture
over ``M`` of ``M``-fold convolutions of the prize law, and the bonus law the
mixture over ``N`` of ``N``-fold convolutions of the pick law.  Prizes are in
line-bet units; results are converted to total-bet multiples by dividing by
``game.total_bet``.

Variant ``board`` (pick until a collect tile, docs/model-format.md):
tiles are picked without replacement, uniformly among those left, until a
collect tile ends the bonus; the win is the sum of the prize tiles picked
times the product of the multiplier tiles picked.  Its exact law
(:func:`board_distribution`, derivation in docs/derivations.md, "Pick until a
collect tile"): every order of the ``N`` prize and multiplier tiles and ``C``
collect tiles (all labelled) is equally likely, so a given set of ``k``
non-collect tiles is exactly the set picked before the first collect tile
with probability ``w(k) = k! * C * (N + C - 1 - k)! / (N + C)!`` (those ``k``
in any order, a collect tile, the rest in any order).  The law is then a
recursion over the tile types choosing how many copies ``j`` of each are
picked (``comb(copies, j)`` sets), keeping the integer count of sets per
(tiles picked, prize sum, multiplier product), and a final mixture with
``w(k)``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction
from typing import Mapping

from analytic.features.result import FeatureResult, register_solver
from analytic.model.game import Game
from analytic.figures import Figure

__all__ = ["solve_pick_bonus", "bonus_distribution", "board_distribution"]


def _convolve(a: Mapping[int, int], b: Mapping[int, int]) -> dict[int, int]:
    """Convolution of two integer-weight laws (weights multiply, totals multiply)."""
    out: dict[int, int] = defaultdict(int)
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] += p * q
    return dict(out)


def _compound(count_w: Mapping[int, int], law: Mapping[int, int], total: int) -> tuple[dict[int, int], int]:
    """Law of the sum of ``K`` i.i.d. draws from ``law``, ``K ~ count_w``, in integer weights.

    ``law`` holds integer weights summing to ``total``; the result's weights
    sum to the returned denominator ``sum(count_w) * total**max(K)`` (the
    ``k``-fold convolution, of total ``total**k``, is scaled by
    ``total**(max K - k)``).  Integers instead of fractions: the same exact
    law without a gcd per operation (about 25x faster on Lobstermania's
    bonus).
    """
    kmax = max(count_w)
    out: dict[int, int] = defaultdict(int)
    power: dict[int, int] = {0: 1}
    for k in range(0, kmax + 1):
        if k:
            power = _convolve(power, law)
        w = count_w.get(k, 0)
        if w:
            scale = w * total ** (kmax - k)
            for x, p in power.items():
                out[x] += scale * p
    return dict(out), sum(count_w.values()) * total ** kmax


def board_distribution(board: Mapping) -> dict[int, Fraction]:
    """Exact law of a pick-until-collect board's win, in **line-bet units**.

    Parameters
    ----------
    board : mapping
        ``{"collect": C, "prizes": ((value, copies), ...), "multipliers":
        ((m, copies), ...)}`` (the loaded ``board`` key), values in
        line-bet units.

    Returns
    -------
    dict
        ``win -> probability`` (exact Fractions, ascending wins), the win
        being (sum of the prize tiles picked) x (product of the multiplier
        tiles picked) before the first collect tile.

    Notes
    -----
    The recursion over tile types of the module docstring; its table has at
    most ``prod(copies + 1)`` entries (bounded at load by
    :data:`analytic.limits.MAX_BOARD_STATES`), integer counts until the
    final mixture.
    """
    collect = int(board["collect"])
    kinds = [(int(v), int(n), True) for v, n in board["prizes"]] + \
            [(int(m), int(n), False) for m, n in board["multipliers"]]
    # (tiles picked, prize sum, multiplier product) -> number of tile sets (labelled tiles)
    table: dict[tuple[int, int, int], int] = {(0, 0, 1): 1}
    for v, n, is_prize in kinds:
        nxt: dict[tuple[int, int, int], int] = defaultdict(int)
        for (k, a, b), cnt in table.items():
            for j in range(n + 1):
                key = (k + j, a + j * v, b) if is_prize else (k + j, a, b * v**j)
                nxt[key] += cnt * math.comb(n, j)
        table = nxt
    big_n = sum(n for _, n, _ in kinds)
    total = big_n + collect
    # w(k) = k! C (N + C - 1 - k)! / (N + C)!: numerators over the common denominator (N + C)!
    num = [math.factorial(k) * collect * math.factorial(total - 1 - k) for k in range(big_n + 1)]
    acc: dict[int, int] = defaultdict(int)
    for (k, a, b), cnt in table.items():
        acc[a * b] += cnt * num[k]
    den = math.factorial(total)
    return {x: Fraction(c, den) for x, c in sorted(acc.items())}


def bonus_distribution(params: Mapping) -> dict[int, Fraction]:
    """Exact law of the bonus win in **line-bet units**: ``prize sum -> probability``.

    A ``board`` (pick until a collect tile) is solved by :func:`board_distribution`.
    """
    if "board" in params:
        return board_distribution(params["board"])
    prize_law: dict[int, int] = defaultdict(int)
    for v, w in params["prizes"]:
        prize_law[int(v)] += int(w)
    pick_law, pick_total = _compound(dict(params.get("prizes_per_pick") or {1: 1}), prize_law,
                                     sum(prize_law.values()))
    law, total = _compound(dict(params["picks"]), pick_law, pick_total)
    return {x: Fraction(p, total) for x, p in sorted(law.items())}


def solve_pick_bonus(game: Game, feature: str, count: int = 0, mode: str | None = None, *, ws=None) -> FeatureResult:
    """Exact mean, second moment and distribution of a pick bonus.

    Parameters
    ----------
    game : Game
    feature : str
    count : int
        Trigger count (unused: the bonus does not depend on it).
    mode : str, optional
        Unused.
    ws : Workspace, optional
        The solve's workspace (unused: nothing is kept).

    Returns
    -------
    FeatureResult
        Wins in total-bet multiples; ``distribution`` exact.
    """
    params = game.features[feature].params
    law = bonus_distribution(params)
    tb = game.total_bet
    dist = {Fraction(x, tb): p for x, p in law.items()}
    mean = sum(x * p for x, p in dist.items())
    m2 = sum(x * x * p for x, p in dist.items())
    return FeatureResult(
        feature=feature, count=count, mean=Figure(mean), second_moment=Figure(m2),
        expected_spins=Figure(Fraction(0)),
        end_probabilities={("collect tile" if "board" in params else "picks exhausted"): Figure(Fraction(1))},
        distribution=dist,
        method=("exact law of the tiles picked before the first collect tile (recursion over tile types)"
                if "board" in params else "exact convolution of the pick and prize laws"),
    )


register_solver("pick_bonus", solve_pick_bonus)
