"""Exact solver of the ``pick_bonus`` kind (Lobstermania's buoy bonus).

The number of picks ``N`` is drawn from ``picks``; each pick reveals ``M``
prizes (``prizes_per_pick``); each prize is drawn with replacement from
``prizes``.  All draws are independent, so the bonus win is a compound sum
and its exact law is a small convolution: the law of one pick is the mixture
over ``M`` of ``M``-fold convolutions of the prize law, and the bonus law the
mixture over ``N`` of ``N``-fold convolutions of the pick law.  Prizes are in
line-bet units; results are converted to total-bet multiples by dividing by
``game.total_bet``.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from typing import Mapping

from analytic.features.result import FeatureResult, register_solver
from analytic.model.game import Game
from analytic.solver.figures import Figure

__all__ = ["solve_pick_bonus", "bonus_distribution"]


def _convolve(a: Mapping[int, Fraction], b: Mapping[int, Fraction]) -> dict[int, Fraction]:
    out: dict[int, Fraction] = defaultdict(Fraction)
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] += p * q
    return dict(out)


def _compound(count_w: Mapping[int, int], law: Mapping[int, Fraction]) -> dict[int, Fraction]:
    """Law of the sum of ``K`` i.i.d. draws from ``law``, ``K ~ count_w``."""
    tot = sum(count_w.values())
    out: dict[int, Fraction] = defaultdict(Fraction)
    power = {0: Fraction(1)}
    for k in range(0, max(count_w) + 1):
        if k:
            power = _convolve(power, law)
        w = count_w.get(k, 0)
        if w:
            for x, p in power.items():
                out[x] += Fraction(w, tot) * p
    return dict(out)


def bonus_distribution(params: Mapping) -> dict[int, Fraction]:
    """Exact law of the bonus win in **line-bet units**: ``prize sum -> probability``."""
    prizes = params["prizes"]
    tot = sum(w for _, w in prizes)
    prize_law: dict[int, Fraction] = defaultdict(Fraction)
    for v, w in prizes:
        prize_law[int(v)] += Fraction(w, tot)
    pick_law = _compound(dict(params.get("prizes_per_pick") or {1: 1}), prize_law)
    return dict(sorted(_compound(dict(params["picks"]), pick_law).items()))


def solve_pick_bonus(game: Game, feature: str, count: int = 0, mode: str | None = None) -> FeatureResult:
    """Exact mean, second moment and distribution of a pick bonus.

    Parameters
    ----------
    game : Game
    feature : str
    count : int
        Trigger count (unused: the bonus does not depend on it).
    mode : str, optional
        Unused.

    Returns
    -------
    FeatureResult
        Wins in total-bet multiples; ``distribution`` exact.
    """
    law = bonus_distribution(game.features[feature].params)
    tb = game.total_bet
    dist = {Fraction(x, tb): p for x, p in law.items()}
    mean = sum(x * p for x, p in dist.items())
    m2 = sum(x * x * p for x, p in dist.items())
    return FeatureResult(
        feature=feature, count=count, mean=Figure(mean), second_moment=Figure(m2),
        expected_spins=Figure(Fraction(0)), end_probabilities={"picks exhausted": Figure(Fraction(1))},
        distribution=dist, method="exact convolution of the pick and prize laws",
    )


register_solver("pick_bonus", solve_pick_bonus)
