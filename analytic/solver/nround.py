"""Certified quantiles of the total win of ``N`` independent rounds, from the round's law.

The round win ``X`` has a law on a grid ``g Z`` (total-bet multiples; exact
fractions or a certified grid law with a total-variation error ``e0``).  The
``N``-round sum ``S_N = X_1 + ... + X_N`` is built from block sums by
convolution (doublings ``S_2m = S_m + S_m'`` and sums of two blocks), each
block's law kept on at most ``M`` grid points (4 round laws' grids, between
:data:`M_DEFAULT` and :data:`M_MAX`):

* **mean-preserving rebinning**: when a block's law does not fit, its grid
  step grows to ``H = 2^s g`` and the mass at a value ``v`` is split between
  the two grid points around it in proportion to make the mean unchanged.
  This is the law of ``v + D`` with ``E[D | v] = 0`` and ``|D| <= H``, so the
  computed variable is ``S~ = S + sum_k D_k``, the ``D_k`` (one per block
  rounding) a martingale difference sequence; by the Azuma-Hoeffding
  inequality ``P(|S~ - S| >= t) <= eta`` with
  ``t = sqrt(2 ln(2 / eta) sum_k H_k^2)``;
* **windowing**: mass of a block below ``m mu - c sd sqrt(m)`` or above
  ``m mu + c sd sqrt(m) + K max`` is dropped; the computed sub-law is that of
  ``S~`` on the event that no block left its window, and its missing mass
  ``d`` is read off the result;
* **float error**: each convolution adds an a-priori total-variation bound
  (:func:`_fft_conv`: the largest atoms convolved directly, the rest by FFT
  with the 2-norm bound of docs/derivations.md s.12) plus the negative mass
  clipped; the round law's own error adds ``N e0``.  Together ``e``.

With ``G`` the computed sub-law of ``S~`` and ``qG(b)`` the least grid value
with ``G(<= y) >= b``, the level-``a`` quantile of ``S_N`` (least ``x`` with
``P(S_N <= x) >= a``) lies in (docs/derivations.md, "RTP range over N
rounds")::

    [qG(a - d - 2e - eta) - t,  qG(a + e + eta) + t]

(no bound when ``a - d - 2e - eta <= 0``: the errors then exceed the
level's whole tail, and the low end would be 0, true but empty; nor when
``a + e + eta`` exceeds the mass of ``G``).  The RTP quantile is the win quantile divided by
``N`` times the mode's cost.  When no rebinning and no truncation happened
``t = d = 0`` and the interval is the exact quantile up to the float error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Mapping

import numpy as np

__all__ = ["QuantileBounds", "NRoundLaw", "n_round_quantiles", "M_DEFAULT", "M_MAX", "ETA"]

U = 2.0**-53
#: Largest number of grid points of a block's law.
M_DEFAULT = 1 << 16
#: Largest default number of grid points.
M_MAX = 1 << 19
#: Probability allowed for the rebinning error exceeding ``t`` (Azuma-Hoeffding).
ETA = 1e-9
#: Window half-width in standard deviations of the block sum.
C_SD = 14.0
#: Maximal round wins allowed above the window's normal part.
K_MAX = 4
#: Most grid points of the round law as given (a top win of 10^36 grid steps: pays up to 10^18 times
#: wild multipliers); a finer law is first split, mean-preserving, onto a coarser grid (counted in ``t``).
MAX_BASE_POINTS = 1 << 26


@dataclass(frozen=True)
class QuantileBounds:
    """Certified bounds of the central ranges of the RTP over ``rounds`` rounds.

    Attributes
    ----------
    rounds : int
    ranges : tuple of (level, low_lo, low_hi, high_lo, high_hi)
        ``level`` in percent; the lower quantile (level ``(1 - level) / 2``) of the
        RTP over ``rounds`` rounds (total win / (rounds x cost)) lies in
        ``[low_lo, low_hi]``, the upper quantile in ``[high_lo, high_hi]``.  Only the
        levels certified at ``rounds``, in the order asked: a level whose tail the
        errors exceed (or whose upper quantile the law's mass does not reach) is left
        out, the others kept.
    shift : float
        The rebinning bound ``t`` as RTP (``t / (rounds x cost)``).
    slack : float
        Probability slack ``d + 2 e + eta`` (missing mass, float and law error).
    """

    rounds: int
    ranges: tuple
    shift: float
    slack: float


class NRoundLaw:
    """A block sum's sub-law: values ``(off + i) * h`` grid units, ``probs[i]``."""

    __slots__ = ("off", "h", "probs", "m", "sq", "err")

    def __init__(self, off: int, h: int, probs: np.ndarray, m: int, sq: float, err: float):
        self.off, self.h, self.probs, self.m, self.sq, self.err = off, h, probs, m, sq, err


def _rebin(a: NRoundLaw, H: int, lo: int, hi: int) -> NRoundLaw:
    """Mean-preserving split onto step ``H`` (a multiple of ``a.h``), cells ``lo..hi`` (in units of ``H``) kept."""
    v = (a.off + np.arange(len(a.probs), dtype=np.int64)) * a.h
    k = v // H
    frac = (v - k * H) / H
    n = hi - lo + 1
    i0 = k - lo
    keep = (i0 >= -1) & (i0 < n)  # cells of H from lo - 1 to hi (the split reaches i0 + 1)
    i0, p, frac = i0[keep] + 1, a.probs[keep], frac[keep]
    out = (np.bincount(i0, p * (1.0 - frac), n + 2) + np.bincount(i0 + 1, p * frac, n + 2))[1: n + 1]
    sq = a.sq + (float(H) ** 2 if H != a.h else 0.0)
    return NRoundLaw(lo, H, out, a.m, sq, a.err + 4 * U)  # each cell: relative rounding <= 4 u


def _fit(a: NRoundLaw, mu: float, sd: float, top: int, M: int) -> NRoundLaw:
    """Window and rebin ``a`` (a sum of ``a.m`` rounds) to at most ``M`` points."""
    m = a.m
    nz = np.flatnonzero(a.probs > 0)
    if len(nz) == 0:
        return a
    s_lo = (a.off + int(nz[0])) * a.h
    s_hi = (a.off + int(nz[-1])) * a.h
    w_lo = max(s_lo, math.floor(m * mu - C_SD * sd * math.sqrt(m)))
    w_hi = min(s_hi, math.ceil(m * mu + C_SD * sd * math.sqrt(m) + K_MAX * top))
    H = a.h
    while (w_hi // H + 1) - (w_lo // H) + 1 > M:
        H *= 2
    lo, hi = w_lo // H, -(-w_hi // H)
    if H == a.h and lo == a.off + int(nz[0]) and hi == a.off + int(nz[-1]):
        return NRoundLaw(lo, H, a.probs[nz[0]: nz[-1] + 1].copy(), m, a.sq, a.err)
    return _rebin(a, H, lo, hi)


def _add(a: NRoundLaw, b: NRoundLaw, mu, sd, top, M) -> NRoundLaw:
    """The law of the sum of two independent blocks, fitted."""
    H = max(a.h, b.h)
    if a.h != H:
        a = _rebin(a, H, (a.off * a.h) // H, -(-((a.off + len(a.probs) - 1) * a.h) // H))
    if b.h != H:
        b = _rebin(b, H, (b.off * b.h) // H, -(-((b.off + len(b.probs) - 1) * b.h) // H))
    n = len(a.probs) + len(b.probs) - 1
    if len(a.probs) * len(b.probs) < 1 << 16:
        c = np.convolve(a.probs, b.probs)
        fl = n * 2.0**-52
    else:
        c, fl = _fft_conv(a.probs, b.probs)
    neg = float(-c[c < 0].sum())
    c = np.clip(c, 0.0, None)
    s = NRoundLaw(a.off + b.off, H, c, a.m + b.m, a.sq + b.sq, a.err + b.err + fl + neg)
    return _fit(s, mu, sd, top, M)


#: Largest atoms of each operand convolved directly (the FFT then carries only the rest, whose
#: small 2-norm makes its error bound small).
ATOMS = 32


def _fft_conv(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
    """``a * b`` and a bound of its total-variation error.

    ``a = A_a + R_a`` with ``A_a`` the :data:`ATOMS` largest entries (same for ``b``):
    ``a * b = A_a * b + R_a * A_b + R_a * R_b``, the first two by shifted additions (each output the
    sum of at most ``2 ATOMS + 1`` rounded terms: relative error ``(2 ATOMS + 2) u``), the last by a
    real FFT of size ``F`` with the a-priori bound (docs/derivations.md s.12)
    ``sqrt(F) (gamma (||R_a||_2 |R_b| + |R_a| ||R_b||_2 + n_c) + 3 u n_c)``,
    ``n_c = min(|R_a| ||R_b||_2, ||R_a||_2 |R_b|)``, ``gamma = 50 log2(F) u``.
    """
    n = len(a) + len(b) - 1
    size = 1 << (n - 1).bit_length()
    c = np.zeros(n)
    ra, rb = a.copy(), b.copy()
    ia = np.argpartition(a, -ATOMS)[-ATOMS:] if len(a) > ATOMS else np.arange(len(a))
    ib = np.argpartition(b, -ATOMS)[-ATOMS:] if len(b) > ATOMS else np.arange(len(b))
    ra[ia] = 0.0
    rb[ib] = 0.0
    for i in ia:
        if a[i]:
            c[i: i + len(b)] += a[i] * b
    for j in ib:
        if b[j]:
            c[j: j + len(a)] += b[j] * ra
    c += np.fft.irfft(np.fft.rfft(ra, size) * np.fft.rfft(rb, size), size)[:n]
    gamma = 50 * math.log2(size) * U
    na, nb = float(np.linalg.norm(ra)), float(np.linalg.norm(rb))
    ma, mb = float(ra.sum()), float(rb.sum())
    nc = min(ma * nb, na * mb)
    fl = math.sqrt(size) * (gamma * (na * mb + ma * nb + nc) + 3 * U * nc) * (1 + 1e-6)
    fl += (2 * ATOMS + 2) * U * float(a.sum()) * float(b.sum()) * (1 + 1e-6)
    return c, fl


def _bounds(s: NRoundLaw, N: int, e0: float, cost: Fraction, g: Fraction, levels: Iterable[int],
            eta: float) -> QuantileBounds | None:
    cdf = np.cumsum(s.probs)
    mass = float(cdf[-1]) if len(cdf) else 0.0
    e = s.err + N * e0 + 2 * len(cdf) * U
    d = max(0.0, 1.0 - mass) + e
    t = math.sqrt(2 * math.log(2 / eta) * s.sq) if s.sq else 0.0
    scale = float(g) / (N * float(cost))

    def q(b: float) -> float | None:
        """Least grid value (grid units) with cdf >= b; None when never."""
        if b <= 0:
            return -math.inf
        i = int(np.searchsorted(cdf, b, side="left"))
        return None if i >= len(cdf) else (s.off + i) * s.h

    out = []
    for lv in levels:  # each level on its own: one that cannot be certified leaves the others certified
        row = []
        for a in ((100 - lv) / 200, (100 + lv) / 200):
            if a - d - 2 * e - eta <= 0:  # the errors exceed the tail: a low end of 0, true but empty
                break
            lo = q(a - d - 2 * e - eta)
            hi = q(a + e + eta)
            if hi is None:
                break
            lo_v = 0.0 if lo is None else max(0.0, (lo - t) * scale)
            row += [lo_v, (hi + t) * scale]
        else:
            out.append((lv, *row))
    return QuantileBounds(N, tuple(out), t * scale, d + e + eta) if out else None


def n_round_quantiles(points: Mapping[Fraction, Fraction], error: Fraction | float, cost: Fraction,
                      rounds: Iterable[int], levels: Iterable[int] = (90, 95), *, M: int | None = None,
                      eta: float = ETA) -> dict[int, QuantileBounds | None]:
    """Certified bounds of the central RTP ranges over ``N`` rounds for every ``N`` in ``rounds``.

    Parameters
    ----------
    points : Mapping[Fraction, Fraction]
        The round law: win (total-bet multiples, >= 0) -> probability.
    error : Fraction or float
        Total-variation bound between ``points`` and the true law.
    cost : Fraction
        Cost of a round in total bets (RTP = win / cost).
    rounds : iterable of int
        Round counts ``N >= 1``.
    levels : iterable of int
        Central range levels in percent.
    M : int, optional
        Largest number of grid points of a block law (accuracy against time); by default the
        power of 2 holding 4 round laws' grids, at least :data:`M_DEFAULT`, at most :data:`M_MAX`.
    eta : float
        Probability allowed for the rebinning error exceeding its bound.

    Returns
    -------
    dict
        ``N -> QuantileBounds`` holding the levels certified at ``N`` (a level is left out where the
        errors exceed its tail: its low end would be 0, true but empty; or where no finite bound
        was certified); None where no level is.

    Raises
    ------
    ValueError
        A negative win, an empty law or a round count below 1.
    """
    from analytic.features.laws.capped import grid_of

    pts = {Fraction(w): Fraction(p) for w, p in points.items() if p}
    if not pts or min(pts) < 0:
        raise ValueError("n_round_quantiles: the law needs wins >= 0")
    ns = sorted(set(int(n) for n in rounds))
    if not ns or ns[0] < 1:
        raise ValueError("n_round_quantiles: round counts must be >= 1")
    levels = tuple(levels)
    g = grid_of(list(pts)) or Fraction(1)
    sq0 = 0.0
    if max(pts) / g >= MAX_BASE_POINTS:  # too fine for an array: split onto g 2^k (|D| <= one new step)
        g *= 1 << math.ceil(max(pts) / g / (MAX_BASE_POINTS - 2)).bit_length()
        split: dict[int, Fraction] = {}
        for w, p in pts.items():
            x = w / g
            k = x.numerator // x.denominator
            split[k] = split.get(k, Fraction(0)) + p * (1 - (x - k))
            if x != k:
                split[k + 1] = split.get(k + 1, Fraction(0)) + p * (x - k)
        pts = {k * g: p for k, p in split.items() if p}
        sq0 = 1.0
    idx = {w: int(w / g) for w in pts}
    top = max(idx.values())
    if M is None:
        M = min(M_MAX, max(M_DEFAULT, 1 << (4 * (top + 1) - 1).bit_length()))
    probs = np.zeros(top + 1)
    for w, p in pts.items():
        probs[idx[w]] += float(p)
    mu = float(sum(idx[w] * p for w, p in pts.items()))
    var = float(sum(idx[w] ** 2 * p for w, p in pts.items())) - mu * mu
    sd = math.sqrt(max(var, 0.0)) or 1.0
    e0 = float(error) + 2 * U  # float(p) rounds each p by a relative U: total variation <= U sum p
    one = _fit(NRoundLaw(0, 1, probs, 1, sq0, 0.0), mu, sd, top, M)
    powers = [one]  # powers[j]: 2^j rounds
    cache: dict[int, NRoundLaw] = {1: one}

    def power(j: int) -> NRoundLaw:
        while len(powers) <= j:
            p = powers[-1]
            powers.append(_add(p, p, mu, sd, top, M))
            cache.setdefault(powers[-1].m, powers[-1])
        return powers[j]

    def block(n: int) -> NRoundLaw:
        if n in cache:
            return cache[n]
        if n & (n - 1) == 0:
            s = power(n.bit_length() - 1)
        elif n % 2 == 0 and n // 2 in cache:
            s = _dbl(cache[n // 2])
        elif n >= 10 and n % 10 == 0:  # 10 k = 8 k + 2 k from k's doublings
            b2 = _dbl(block(n // 10))
            s = _add(_dbl(_dbl(b2)), b2, mu, sd, top, M)
        else:  # binary: the highest power plus the rest
            hp = 1 << (n.bit_length() - 1)
            s = _add(power(hp.bit_length() - 1), block(n - hp), mu, sd, top, M)
        cache[n] = s
        return s

    def _dbl(b: NRoundLaw) -> NRoundLaw:
        if 2 * b.m not in cache:
            cache[2 * b.m] = _add(b, b, mu, sd, top, M)
        return cache[2 * b.m]

    return {n: _bounds(block(n), n, e0, Fraction(cost), g, levels, eta) for n in ns}
