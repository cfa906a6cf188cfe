"""Exact figures of a win distribution, and the labels every figure carries.

A *win distribution* is a mapping ``win -> weight`` with integer weights
(stop combinations, or weighted outcomes) and wins in integer units of a
known size (``units`` per total bet).  Everything here is exact: means and
variances are :class:`fractions.Fraction`; only the square root (standard
deviation, volatility index) is a float, derived from the exact variance.

Exactness labels (``docs/derivations.md`` section 7): ``exact`` for a fraction
from integer counts or a rational solve; ``bounded`` for a value with a
certified absolute error; ``simulated`` only ever comes from the simulator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

__all__ = ["Figure", "DistributionFigures", "distribution_figures", "Z_SCORES", "volatility_index"]

#: Two-sided normal quantiles used for volatility indices and RTP ranges.
Z_SCORES = {90: 1.6448536269514722, 95: 1.959963984540054, 99: 2.5758293035489004}


@dataclass(frozen=True)
class Figure:
    """One reported number with its exactness.

    Attributes
    ----------
    value : Fraction
        The exact value (``label == "exact"``) or the centre of the interval.
    label : str
        ``"exact"`` or ``"bounded"``.
    error : Fraction
        Certified absolute error bound (0 when exact).
    """

    value: Fraction
    label: str = "exact"
    error: Fraction = Fraction(0)

    def __float__(self) -> float:
        return float(self.value)

    def to_json(self) -> dict:
        """``{"exact": "p/q", "float": x, "label": ..., "error": "p/q"}``."""
        d = {"exact": f"{self.value.numerator}/{self.value.denominator}", "float": float(self.value),
             "label": self.label}
        if self.label != "exact":
            d["error"] = float(self.error)
        return d


def volatility_index(sd: float, confidence: int = 90) -> float:
    """Volatility index ``z * sd`` (sd of one round in total-bet units).

    Source: the standard industry definition (e.g. Harrigan & Dixon 2009,
    "volatility index = z x standard deviation"); z is the two-sided normal
    quantile of ``confidence`` (90: 1.645, 95: 1.960, 99: 2.576).
    """
    return Z_SCORES[confidence] * sd


@dataclass(frozen=True)
class DistributionFigures:
    """Exact summary of a win distribution, in total-bet multiples.

    Attributes
    ----------
    total_weight : int
        Sum of the weights (the cycle for a base spin).
    mean : Fraction
        Expected win per round (total-bet multiples; the RTP when the round
        costs one total bet).
    second_moment : Fraction
    variance : Fraction
    hit_weight : int
        Weight of wins > 0.
    top_win : Fraction
        Largest win (total-bet multiples) and ``top_weight`` its weight.
    top_weight : int
    """

    total_weight: int
    mean: Fraction
    second_moment: Fraction
    variance: Fraction
    hit_weight: int
    top_win: Fraction
    top_weight: int
    extra: Mapping = field(default_factory=dict)

    @property
    def hit_frequency(self) -> Fraction:
        return Fraction(self.hit_weight, self.total_weight)

    @property
    def sd(self) -> float:
        return math.sqrt(self.variance)


def distribution_figures(dist: Mapping[int, int], units: int) -> DistributionFigures:
    """Exact figures of ``dist`` (``win units -> weight``; ``units`` per total bet).

    Sums run on Python integers, so no width can overflow.

    Raises
    ------
    ValueError
        Empty distribution or non-positive total weight.
    """
    total = sum(dist.values())
    if total <= 0:
        raise ValueError("empty win distribution")
    s1 = sum(w * n for w, n in dist.items())
    s2 = sum(w * w * n for w, n in dist.items())
    mean = Fraction(s1, total * units)
    m2 = Fraction(s2, total * units * units)
    top = max(dist)
    return DistributionFigures(
        total_weight=total,
        mean=mean,
        second_moment=m2,
        variance=m2 - mean * mean,
        hit_weight=sum(n for w, n in dist.items() if w > 0),
        top_win=Fraction(top, units),
        top_weight=dist[top],
    )
