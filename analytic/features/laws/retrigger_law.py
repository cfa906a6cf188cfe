"""Win distribution of free spins with unbounded retriggers (a certified grid law).

The problem
-----------
In a fixed feature state (no state, or an expanding symbol drawn once) the
spins are i.i.d.: a spin pays ``X`` and awards ``A`` more spins with a known
exact joint law (:class:`~analytic.features.graph.spin_outcomes.SpinOutcomes`).
Wald's identities give the moments (:mod:`analytic.features.laws.wald`); the
*distribution* of the feature's total win needs more, because retriggers
make the number of spins unbounded.

The branching identity
----------------------
Count every spin together with the spins it awards, the spins those award,
and so on (its *subtree*).  The subtrees of the ``n`` starting spins are
independent copies of one subtree, so with ``G(z) = E[z^W1]`` the
probability generating function of one subtree's win (on the grid ``k g``),

    ``G(z) = sum_a P_a(z) G(z)^a``,        feature law ``H(z) = G(z)^n``,

where ``P_a(z) = sum_x P(A = a, X = x g) z^x`` (a spin pays its own win and
then starts ``a`` independent subtrees).  ``G`` is the minimal fixed point;
on ``|z| <= 1`` the map is a contraction with constant ``E[A] < 1``
(``|d/dG| <= sum_a a P_a(1)``), so iterating from ``G = 0`` converges
geometrically, and it converges from below at real ``z >= 1`` wherever the
moment generating function is finite.

Evaluation on the discrete Fourier grid
---------------------------------------
Evaluate ``P_a`` at the ``M``-th roots of unity (one real-input FFT each:
the laws are real, so the roots ``k = 0 .. M/2`` carry everything), iterate
the fixed point pointwise (each root until its own step settles), raise to
``n`` and invert (one inverse real FFT).  The result is the law of ``W`` *folded* modulo
``M``: entry ``k`` holds ``sum_j P(W = (k + j M) g)``.  No truncation of the
series is needed, and all of the error is accounted:

* **Aliasing** (the folded tail): that mass sits in wrong entries and is
  missing beyond the grid, so it counts twice: ``2 P(W >= M g)``, bounded by
  Chernoff: ``P(W >= M g) <= H(r) r^-M`` for any ``r > 1`` with finite
  ``H(r) = G(r)^n``.  An upper bound of ``G(r)`` is *verified*, not assumed:
  a ``y`` with ``F(y) <= y`` (``F`` the fixed-point map, monotone on
  ``[0, inf)``) bounds the minimal fixed point from above.
* **The fixed point**: each root's iteration stops when its step is below
  ``1e-17`` or, below ``1e-14``, no longer halves; the distance to the fixed
  point is at most ``step * m / (1 - m)`` with ``step`` the largest final
  step (contraction ``m = E[A]``), and ``|G^n - G'^n| <= n |G - G'|``.
* **Rounding** of the FFTs: ``gamma ||x||_2`` with ``gamma = 50 log2(M)
  2^-53`` (a-priori bound, Higham, *Accuracy and Stability of Numerical
  Algorithms*, s.24.1, with a wide margin), turned into a bound on the sum
  of absolute errors by ``sqrt(M)``.

The sum of these is :attr:`GridLaw.error`: a bound of the total variation distance
between the returned probabilities and the true law restricted to
``[0, M g)``, plus the true mass beyond.  Values are clamped at 0.

Units: wins in total-bet multiples (``step``); probabilities as floats.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Mapping

import numpy as np

from analytic.features.laws.capped import grid_of

__all__ = ["GridLaw", "retrigger_law", "too_wide", "mix_laws", "zero_probability"]

U = 2.0 ** -53
#: Largest FFT length (grid points) tried before settling for a larger tail bound.
M_MAX = 1 << 20
#: Aliased tail mass aimed at when choosing the FFT length.
TAIL_TARGET = 1e-13
#: A law whose certified error would exceed this is not returned (None).
MAX_ERROR = 1e-6


@dataclass(frozen=True, eq=False)  # holds an array: identity equality, hashable
class GridLaw:
    """A win law on the grid ``k * step`` (``k = 0 .. len(probs) - 1``).

    Attributes
    ----------
    step : Fraction
        Grid step, total-bet multiples.
    probs : numpy.ndarray
        ``probs[k]`` approximates ``P(W = k * step)`` (float64, >= 0).
    error : float
        Certified bound of ``sum_k |probs[k] - P(W = k step)|`` plus
        ``P(W >= len(probs) * step)``: the total variation between this
        law and the true one.
    method : str
        One line for the regulator appendix.
    """

    step: Fraction
    probs: np.ndarray
    error: float
    method: str = ""

    @property
    def top(self) -> Fraction:
        """Largest grid win with positive probability in the array."""
        nz = np.flatnonzero(self.probs)
        return self.step * int(nz[-1]) if len(nz) else Fraction(0)

    def as_points(self, floor: float = 0.0) -> tuple[dict, float]:
        """``({win: probability}, dropped mass)``; entries ``<= floor`` are dropped."""
        keep = np.flatnonzero(self.probs > floor)
        dropped = float(self.probs.sum() - self.probs[keep].sum())
        return {self.step * int(k): Fraction(float(self.probs[k])) for k in keep}, max(dropped, 0.0)


def _by_award(joint: Mapping[tuple[int, int], int], cycle: int, g: int) -> dict[int, tuple[list, list]]:
    """``a -> ([x // g], [c / cycle])``: one spin's law split by award, in the order of ``joint``."""
    by_a: dict[int, tuple[list, list]] = {}
    for (a, x), c in joint.items():
        xs, ws = by_a.setdefault(a, ([], []))
        xs.append(x // g)
        ws.append(c / cycle)
    return by_a


def _grid_arrays(by_a: Mapping[int, tuple[list, list]], M: int) -> dict[int, np.ndarray]:
    """``a -> P(A = a, X = k g)`` on ``k = 0 .. M - 1`` (floats) from :func:`_by_award`."""
    # bincount adds each bin's weights in the order given, from 0.0: the sums of one loop of `+=`
    return {a: np.bincount(np.array(xs, dtype=np.int64), weights=np.array(ws), minlength=M)
            for a, (xs, ws) in by_a.items()}


def _mgf_bounds(by_a: Mapping[int, tuple[list, list]], xmax: int) -> list[tuple[float, float]]:
    """``[(t, log y_t)]``: verified upper bounds ``y_t`` of ``G(e^t)`` on a grid of tilts ``t``.

    ``by_a`` is the spin's law from :func:`_by_award`.  ``P_a(e^t)`` is
    rounded up by a relative ``1e-12`` (sums of positive float terms); ``y``
    is accepted only when ``F(y) <= y``, which bounds the minimal fixed point
    from above (``F`` is monotone on ``[0, inf)``).
    """
    arrs = {a: (np.array(xs, dtype=float), np.array(ws)) for a, (xs, ws) in by_a.items()}
    out = []
    for t in np.geomspace(1e-3, 50.0, 32) / max(xmax, 1):
        P = {a: float(np.dot(w, np.exp(t * x))) * (1 + 1e-12) for a, (x, w) in arrs.items()}

        def F(y: float) -> float:
            try:
                return sum(p * y**a for a, p in P.items())
            except OverflowError:
                return math.inf

        y = 0.0
        for _ in range(3000):
            ny = F(y)
            if not ny < 1e300:
                break
            if ny - y <= 1e-15 * ny:
                y = ny * (1 + 1e-9)
                if F(y) <= y:
                    out.append((float(t), math.log(y)))
                break
            y = ny
    return out


def _tail_bound(bounds: list[tuple[float, float]], n: int, M: int) -> float:
    """Chernoff: ``P(W >= M g) <= min_t G(e^t)^n e^(-t M)`` for the sum of ``n`` subtrees."""
    lb = min((n * ly - M * t for t, ly in bounds), default=0.0)
    return math.exp(lb) if lb < 0 else 1.0


def _ipow(z: np.ndarray, k: int) -> np.ndarray:
    """``z**k`` by repeated squaring (integer ``k >= 1``)."""
    out = None
    base = z
    while k:
        if k & 1:
            out = base if out is None else out * base
        k >>= 1
        if k:
            base = base * base
    return out


def _fixed_point(hats: Mapping[int, np.ndarray], M: int, max_iter: int = 2000) -> tuple[np.ndarray, float]:
    """The minimal fixed point of ``G = sum_a hats[a] G^a``, point by point, iterated from ``G = 0``.

    Each point is iterated until its own step ``|G_k - G_(k-1)|`` is at most
    ``1e-17`` or, below ``1e-14``, no longer halves (rounding level); the
    points still moving are iterated on (most points settle in a few steps:
    the map's contraction at ``z`` is ``|sum_a a P_a(z) G^(a-1)|``, small away
    from ``z = 1``).

    Parameters
    ----------
    hats : Mapping[int, numpy.ndarray]
        ``a -> P_a`` at the ``M`` grid points (complex, shape ``(M,)``).
    M : int
    max_iter : int
        Iterations at most; a point still moving then keeps its last step.

    Returns
    -------
    (numpy.ndarray, float)
        ``G`` (complex, shape ``(M,)``) and the largest final step over the
        points: ``|G - G*| <= step m / (1 - m)`` at every point (``m = E[A]``
        the contraction constant on the unit disc).
    """
    G = np.zeros(M, dtype=complex)
    idx = np.arange(M)
    prev = np.full(M, np.inf)
    cur, hs = G, dict(hats)
    step_size = 0.0
    if 0 in hs:  # the first step from G = 0 is F(0) = P_0, no arithmetic
        cur = hs[0].copy()
        prev = np.abs(cur)
        max_iter -= 1
    for _ in range(max_iter):
        new = sum(h * _ipow(cur, a) if a else h for a, h in hs.items())
        st = np.abs(new - cur)
        done = (st <= 1e-17) | ((st < 1e-14) & (st >= 0.5 * prev))
        if done.all():
            G[idx] = new
            return G, max(step_size, float(st.max()))
        if done.any():
            G[idx[done]] = new[done]
            step_size = max(step_size, float(st[done].max()))
            keep = ~done
            idx, cur, prev = idx[keep], new[keep], st[keep]
            hs = {a: h[keep] for a, h in hs.items()}
        else:
            cur, prev = new, st
    G[idx] = cur
    return G, max(step_size, float(prev.max()))


def _grid(joint: Mapping[tuple[int, int], int]) -> tuple[int, int]:
    """``(g, xmax)``: the gcd of the wins (1 when all are 0, or none) and the largest win in steps ``g``."""
    xs = [x for (_, x) in joint]
    g = math.gcd(*xs) or 1
    return g, (max(xs) // g if xs else 0)


def too_wide(joint: Mapping[tuple[int, int], int]) -> bool:
    """True when :func:`retrigger_law` returns None for ``joint`` whatever the start: one spin's
    largest win spans half of the largest grid (:data:`M_MAX`) or more.

    Cheap (one pass over the joint law): a caller mixing several states checks every state
    first and skips the Fourier work of all of them when one cannot be certified.

    Parameters
    ----------
    joint : Mapping[(int, int), int]
        One spin's exact law, as for :func:`retrigger_law`.
    """
    return _grid(joint)[1] >= M_MAX // 2


def retrigger_law(joint: Mapping[tuple[int, int], int], cycle: int, units: int, n: int,
                  mean_award: Fraction) -> GridLaw | None:
    """Certified law of a feature's total win: ``n`` starting spins, i.i.d. spins with retriggers.

    Parameters
    ----------
    joint : Mapping[(int, int), int]
        One spin's exact law: ``(spins awarded, win in units) -> stop combinations``.
    cycle : int
        Total of the combinations.
    units : int
        Win units per total bet.
    n : int
        Spins at the start.
    mean_award : Fraction
        ``E[A]``, spins awarded per spin (must be ``< 1``: the caller checks
        with :func:`analytic.features.laws.wald.check_finite`).

    Returns
    -------
    GridLaw or None
        Wins in total-bet multiples; ``error`` as in the module docstring.
        None when the law cannot be certified within :data:`MAX_ERROR` on at
        most :data:`M_MAX` grid points (a single pay of half the grid or more,
        or a tail too heavy for the Chernoff bound, e.g. a mean award near 1).
    """
    g, xmax = _grid(joint)
    step = Fraction(g, units)
    if n == 0:
        return GridLaw(step, np.ones(1), 0.0, "no spins")
    m = float(mean_award)
    if not m < 1:
        raise ValueError("retrigger_law: expected award per spin must be below 1")
    if xmax >= M_MAX // 2:
        return None
    by_a = _by_award(joint, cycle, g)
    bounds = _mgf_bounds(by_a, xmax)
    M = 1 << max(4, (4 * xmax).bit_length())
    while True:
        # a law without retriggers never reaches n * xmax: nothing to alias
        tail = 0.0 if (m == 0 and n * xmax < M) else _tail_bound(bounds, n, M)
        if tail <= TAIL_TARGET or M >= M_MAX:
            break
        M *= 2
    if 2 * tail > MAX_ERROR:
        return None
    arrays = _grid_arrays(by_a, M)
    # real laws: the transform at the conjugate points is the conjugate, so half the grid
    # (k = 0 .. M/2) carries everything, and so does the fixed point (real coefficients)
    hats = {a: np.fft.rfft(v) for a, v in arrays.items()}
    step_size = 0.0
    if m == 0:
        G = sum(hats.values())
    else:
        G, step_size = _fixed_point(hats, len(hats[next(iter(hats))]))
    fp_err = step_size * m / (1 - m) if m else 0.0
    H = _ipow(G, n)
    probs = np.fft.irfft(H, M)
    gamma = 50 * math.log2(M) * U
    # rounding: forward FFTs of the spin law (l2 norm <= 1), the pointwise powers, the inverse
    round_err = math.sqrt(M) * (3 * gamma + n * (fp_err + 8 * U * (n + 10)))
    neg = float(-probs[probs < 0].sum())
    probs = np.clip(probs, 0.0, None)
    # the aliased mass sits in wrong entries AND is missing from its true place: twice
    err = 2 * tail + round_err + neg
    if err > MAX_ERROR:
        return None
    method = (f"branching fixed point G = sum_a P_a G^a on {M} Fourier points (grid {float(step):g}x bet), "
              f"aliased tail <= {tail:.1e} (Chernoff, verified MGF bound), total error <= {err:.1e}")
    return GridLaw(step, probs, err, method)


def mix_laws(parts: Iterable[tuple[Fraction, GridLaw]]) -> GridLaw:
    """Mixture ``sum w_i law_i`` (weights summing to 1) on the common grid (gcd of the steps)."""
    parts = [(Fraction(w), L) for w, L in parts if w]
    step = grid_of(L.step for _, L in parts)
    size = max(len(L.probs) * int(L.step / step) for _, L in parts)
    out = np.zeros(size)
    err = 0.0
    for w, L in parts:
        k = int(L.step / step)
        out[::k][: len(L.probs)] += float(w) * L.probs
        err += float(w) * L.error
    methods = {L.method.split(" on ")[0] for _, L in parts}
    return GridLaw(step, out, err * (1 + 1e-12) + 4 * U, "; ".join(sorted(methods)) + " (mixture)")


def zero_probability(joint: Mapping[tuple[int, int], int], cycle: int, n: int) -> Fraction | None:
    """Exact ``P(W = 0)`` when every retriggering spin wins something.

    Then the feature wins nothing only if each of the ``n`` starting spins
    wins nothing and awards nothing: ``P(A = 0, X = 0)^n``.  ``None`` when a
    spin can retrigger without winning (the zero probability then solves a
    polynomial equation, left to the distribution).
    """
    if any(a > 0 and x == 0 for (a, x) in joint):
        return None
    return Fraction(joint.get((0, 0), 0), cycle) ** n
