"""Closed forms for free spins whose state never changes (Wald's identities).

Free spins start with ``n`` spins.  Spin ``t`` wins ``X_t`` and awards
``A_t >= 0`` extra spins; the pairs ``(X_t, A_t)`` are i.i.d. while the
feature's state is fixed (``X`` and ``A`` may be correlated: a retriggering
spin shows scatters).  Spins left move by ``A_t - 1`` and hit zero exactly at
spin ``T`` (``docs/derivations.md`` section 3).

* Expected spins (Wald's first identity on ``sum A_t = T - n``):
  ``E[T] = n / (1 - E[A])``, finite only when ``E[A] < 1``.
* Expected win (Wald's first identity): ``E[W] = E[T] E[X]``.
* Variance (Wald's second identity applied to ``X - E[X]`` and
  ``A - E[A]``, using ``sum A_t = T - n`` exactly):
  ``Var(W) = E[T] Var(X + c A)`` with ``c = E[X] / (1 - E[A])``, the
  expected win one awarded spin brings.
* A random start (``n`` drawn by the trigger count, or a fixed state drawn
  once per feature) is a mixture: ``E[W] = sum p_g E[W | g]`` and, by the law
  of total variance, ``Var(W) = E[Var(W | g)] + Var(E[W | g])``; equivalently
  second moments mix linearly.

All functions take and return :class:`fractions.Fraction` (exact).

References
----------
A. Wald, "On cumulative sums of random variables", Ann. Math. Statist. 15
(1944); "Differentiation under the expectation sign in the fundamental
identity of sequential analysis", ibid. 17 (1946).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable

from analytic.errors import UnboundedFeatureError

__all__ = [
    "WaldMoments",
    "check_finite",
    "expected_spins",
    "expected_win",
    "win_variance",
    "wald_moments",
    "mixture",
]


def check_finite(name: str, EA, path: str = "", always_one: bool = False) -> None:
    """Refuse a feature whose expected length is not finite.

    The spins left after ``t`` spins are ``n + sum (A_i - 1)``, a random walk
    with drift ``E[A] - 1``.  ``E[A] > 1``: with positive probability it
    never reaches 0 (the feature never ends).  ``E[A] = 1``: the walk has no
    drift; unless every spin awards exactly one spin (then it never ends) it
    reaches 0 with probability 1 (a recurrent walk), but the expected time
    to do so is infinite, so the expected number of spins and with it the
    mean win (when spins can pay) are infinite: no RTP exists.

    Parameters
    ----------
    name : str
        Feature name (the error's key is ``features.NAME.retrigger``).
    EA : Fraction
        Expected spins awarded per spin.
    path : str
        Model file, for the message.
    always_one : bool
        Every spin awards exactly one spin (only read when ``EA == 1``).

    Raises
    ------
    UnboundedFeatureError
        When ``EA >= 1``, saying which of the cases above it is and what
        would make it solvable.
    """
    if EA < 1:
        return
    got = f"feature '{name}' awards {Fraction(EA)} (= {float(EA):.6g}) extra spins per spin on average"
    fix = "lower the retrigger award or its frequency so that the average is below 1 (then it is solvable)"
    if EA > 1:
        why = "more than 1, so with positive probability it never ends"
    elif always_one:
        why = "every spin awards exactly one more spin, so it never ends"
    else:
        why = ("exactly 1: it ends with probability 1, but its expected length, and so its expected "
               "win, is infinite (no RTP exists)")
    raise UnboundedFeatureError(path, f"features.{name}.retrigger", f"{got}: {why}; {fix}")


def expected_spins(n, EA) -> Fraction:
    """``E[T] = n / (1 - E[A])``: expected spins played from ``n`` spins.

    Parameters
    ----------
    n : int or Fraction
        Spins awarded at the start (or their mean).
    EA : Fraction
        Expected spins awarded per spin; must be < 1.
    """
    if EA >= 1:
        raise ValueError(f"E[A] = {EA} >= 1: the number of spins has no finite mean")
    return Fraction(n) / (1 - Fraction(EA))


def expected_win(n, EA, EX) -> Fraction:
    """``E[W] = E[T] E[X]`` (Wald's first identity), total-bet multiples."""
    return expected_spins(n, EA) * Fraction(EX)


def win_variance(n, EA, EX, EX2, EXA, EA2) -> Fraction:
    """``Var(W) = E[T] Var(X + c A)``, ``c = E[X] / (1 - E[A])``.

    Parameters
    ----------
    n : int
        Spins at the start (fixed).
    EA, EX, EX2, EXA, EA2 : Fraction
        Moments of one spin: ``E[A]``, ``E[X]``, ``E[X^2]``, ``E[X A]``, ``E[A^2]``
        (wins in total-bet multiples, awards in spins).

    Returns
    -------
    Fraction
        Variance of the total win, (total-bet multiples)**2.
    """
    EA, EX = Fraction(EA), Fraction(EX)
    c = EX / (1 - EA)
    var_y = EX2 + 2 * c * EXA + c * c * EA2 - (EX + c * EA) ** 2
    return expected_spins(n, EA) * var_y


@dataclass(frozen=True)
class WaldMoments:
    """Moments of a fixed-state free-spin feature.

    Attributes
    ----------
    expected_spins : Fraction
    mean : Fraction
        ``E[W]``, total-bet multiples.
    second_moment : Fraction
        ``E[W^2]``.
    """

    expected_spins: Fraction
    mean: Fraction
    second_moment: Fraction

    @property
    def variance(self) -> Fraction:
        return self.second_moment - self.mean ** 2


def wald_moments(n: int, EX, EX2, EA, EA2, EXA) -> WaldMoments:
    """All Wald closed forms at once for a fixed start of ``n`` spins."""
    et = expected_spins(n, EA)
    ew = et * Fraction(EX)
    var = win_variance(n, EA, EX, EX2, EXA, EA2)
    return WaldMoments(et, ew, var + ew * ew)


def mixture(groups: Iterable[tuple]) -> WaldMoments:
    """Mixture over a random start (law of total variance).

    Parameters
    ----------
    groups : iterable of (weight, WaldMoments)
        Weights need not be normalised (integers or Fractions).

    Returns
    -------
    WaldMoments
        ``E[T] = sum p E[T|g]``, ``E[W] = sum p E[W|g]``,
        ``E[W^2] = sum p E[W^2|g]`` (which equals
        ``E[Var(W|g)] + Var(E[W|g]) + E[W]^2``).
    """
    groups = list(groups)
    tot = sum(Fraction(w) for w, _ in groups)
    et = sum(Fraction(w) * g.expected_spins for w, g in groups) / tot
    m1 = sum(Fraction(w) * g.mean for w, g in groups) / tot
    m2 = sum(Fraction(w) * g.second_moment for w, g in groups) / tot
    return WaldMoments(et, m1, m2)
