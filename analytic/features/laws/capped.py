"""Exact capped figures of a round by truncated integer polynomial powers.

A round win ``R`` capped at ``C`` pays ``min(R, C)``.  When every win is a
non-negative multiple of a grid step ``g`` its law is a polynomial with
integer weights: the coefficient of ``x^k`` is the weight of the win
``k g`` and the weights add up to a known integer ``T``.

The truncation identity
-----------------------
For laws ``A`` and ``B`` of non-negative wins the coefficient of ``x^k`` in
``A(x) B(x)`` is ``sum_{i+j=k} a_i b_j``: it only reads ``a_i`` and ``b_j``
with ``i, j <= k``.  So with ``L = ceil(C / g)`` (the grid points strictly
below ``C`` are ``k = 0..L-1``)

    ``(A B) mod x^L = ((A mod x^L) (B mod x^L)) mod x^L``

and everything a cap needs is exact from truncated products:

* ``P(R >= C) = 1 - sum_{k<L} r_k / T``;
* ``E[min(R, C)] = sum_{k<L} k g r_k / T + C P(R >= C)``;
* the capped law: ``k g -> r_k / T`` for ``k < L`` and ``C -> P(R >= C)``.

Building blocks (python-flint ``fmpz_poly``; integers only, no floats)
---------------------------------------------------------------------
* one spin given a state (drawn symbol, gift class): ``P(x)``, total
  ``T`` (:func:`law_from_weights`);
* ``n`` i.i.d. spins: ``P(x)^n mod x^L``, total ``T^n`` (:func:`iid_sum`,
  FLINT ``pow_trunc``);
* a multiplier ``M`` on the whole feature win: grid ``g -> M g``, truncated
  again (:func:`scale`);
* the mixture over drawn states with integer weights ``w_s``: with
  ``D = lcm_s T_s``, ``sum_s w_s (D / T_s) P_s(x)`` over ``D sum_s w_s``
  (:func:`mixture`; laws on different grids are first re-gridded onto the
  gcd grid by ``x -> x^(g / g')``);
* independent sums (base win plus feature win): ``mul_low`` of the two
  laws, totals multiply (:func:`convolve`).

The round
---------
Given the base spin's class (trigger, base win ``b``) the feature win ``F``
is independent of ``b``.  With the prefix sums ``Q[K] = sum_{k<K} f_k`` and
``S[K] = sum_{k<K} k f_k`` of the truncated feature law (total ``T``) and
``K(b) = ceil((C - b) / g)`` (the feature outcomes with ``b + k g < C``),

    ``E[min(b + F, C)] = (b Q[K] + g S[K] + C (T - Q[K])) / T``,
    ``P(b + F >= C) = 1 - Q[K] / T``

(:class:`Prefix`), and the round sums these over the base spin's joint law.
One law truncated at the largest cap serves every smaller cap (a currency
cap read at several stakes).  :func:`round_law` builds the whole capped
round law instead (base classes grouped per feature law, one ``mul_low``
per group).

Units: whatever unit the caller gives wins and the cap in (Fractions); the
kinds use total-bet multiples.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate
from math import ceil, gcd, lcm
from typing import Iterable, Iterator, Mapping, Sequence

__all__ = [
    "TruncatedLaw",
    "grid_of",
    "law_from_weights",
    "point_law",
    "iid_sum",
    "iid_sums",
    "scale",
    "regrid",
    "truncate",
    "mixture",
    "convolve",
    "Prefix",
    "round_law",
    "round_capped_mean",
    "stake_row",
]

#: Largest number of grid points below the cap the exact (polynomial) method builds.
MAX_GRID = 1 << 22


def fmpz_poly(coeffs):
    """python-flint's ``fmpz_poly(coeffs)``, flint imported on first use (a game without capped laws never loads it)."""
    from flint import fmpz_poly as poly

    return poly(coeffs)


def _frac_gcd(a: Fraction, b: Fraction) -> Fraction:
    """Largest ``h`` with ``a / h`` and ``b / h`` integers (``a, b`` rational, 0 allowed)."""
    a, b = Fraction(a), Fraction(b)
    if a == 0:
        return abs(b)
    if b == 0:
        return abs(a)
    d = lcm(a.denominator, b.denominator)
    return Fraction(gcd(a.numerator * (d // a.denominator), b.numerator * (d // b.denominator)), d)


def grid_of(values: Iterable) -> Fraction:
    """The coarsest grid step ``g`` with every value an integer multiple of it.

    Parameters
    ----------
    values : iterable of int or Fraction
        Non-negative wins.

    Returns
    -------
    Fraction
        ``gcd`` of the values (1 when all are 0).
    """
    g = Fraction(0)
    for v in values:
        g = _frac_gcd(g, Fraction(v))
    return g or Fraction(1)


def _length(cap: Fraction, grid: Fraction) -> int:
    """Number of grid points strictly below the cap: ``ceil(cap / grid)`` (>= 0)."""
    return max(0, ceil(Fraction(cap) / grid))


@dataclass(frozen=True)
class TruncatedLaw:
    """A law of non-negative wins on a grid, kept exactly below a cap.

    Attributes
    ----------
    poly : fmpz_poly
        Coefficient ``k``: integer weight of the win ``k * grid``, for
        ``k < length`` (wins ``>= cap`` are not held).
    total : int
        Total weight of the law, including the mass at or above the cap.
    grid : Fraction
        Win step.
    cap : Fraction
        The cap; ``length = ceil(cap / grid)``.
    """

    poly: fmpz_poly
    total: int
    grid: Fraction
    cap: Fraction

    @property
    def length(self) -> int:
        return _length(self.cap, self.grid)

    def coeffs(self) -> list[int]:
        """Integer weights of ``0, g, 2g, ...`` below the cap (trailing zeros omitted)."""
        return [int(c) for c in self.poly.coeffs()]

    @property
    def mass_below(self) -> int:
        """Weight of the wins below the cap."""
        return sum(self.coeffs())

    @property
    def p_reach_cap(self) -> Fraction:
        """``P(W >= cap)``, exact."""
        return Fraction(self.total - self.mass_below, self.total)

    @property
    def capped_mean(self) -> Fraction:
        """``E[min(W, cap)]``, exact."""
        cs = self.coeffs()
        below = sum(cs)
        first = sum(k * c for k, c in enumerate(cs))
        return (self.grid * first + self.cap * (self.total - below)) / self.total

    def capped_moments(self) -> tuple[Fraction, Fraction, Fraction]:
        """``(E[min(W, cap)], E[min(W, cap)^2], P(W >= cap))``, exact (integer sums)."""
        cs = self.coeffs()
        below = s1 = s2 = 0
        for k, c in enumerate(cs):
            if c:
                below += c
                s1 += k * c
                s2 += k * k * c
        tail = self.total - below
        g, cap, t = self.grid, self.cap, self.total
        return ((g * s1 + cap * tail) / t, (g * g * s2 + cap * cap * tail) / t, Fraction(tail, t))

    def distribution(self) -> dict[Fraction, Fraction]:
        """Exact capped law: win -> probability, wins at or above the cap lumped at the cap."""
        out: dict[Fraction, Fraction] = {}
        below = 0
        for k, c in enumerate(self.coeffs()):
            if c:
                out[k * self.grid] = Fraction(c, self.total)
                below += c
        if self.total > below:
            out[Fraction(self.cap)] = Fraction(self.total - below, self.total)
        return out

    def weights(self) -> tuple[dict[Fraction, int], int]:
        """The capped law as integer weights: (win -> weight, total); wins >= cap lumped at the cap."""
        out: dict[Fraction, int] = {}
        below = 0
        for k, c in enumerate(self.coeffs()):
            if c:
                out[k * self.grid] = c
                below += c
        if self.total > below:
            out[Fraction(self.cap)] = self.total - below
        return out, self.total


def law_from_weights(weights: Mapping, cap, grid: Fraction | None = None,
                     max_length: int | None = None) -> TruncatedLaw | None:
    """Truncated law of one outcome from integer weights.

    Parameters
    ----------
    weights : mapping
        ``win -> integer weight`` (wins non-negative ints or Fractions).
    cap : int or Fraction
        The cap, same unit as the wins.
    grid : Fraction, optional
        Win step; default the gcd of the wins (:func:`grid_of`).
    max_length : int, optional
        Largest number of grid points below the cap to hold; beyond it
        None is returned before anything is built (a fine grid under a
        large cap would need more memory than there is).

    Returns
    -------
    TruncatedLaw, or None when ``max_length`` is exceeded
    """
    cap = Fraction(cap)
    items = [(Fraction(w), c) for w, c in weights.items()]
    if any(c < 0 or w < 0 for w, c in items):
        raise ValueError("weights and wins must be non-negative")
    den = 1
    for w, _ in items:
        den = lcm(den, w.denominator)
    ints = [(w.numerator * (den // w.denominator), c) for w, c in items]  # wins in units of 1/den
    if grid is None:
        gi = 0
        for v, c in ints:
            if c:
                gi = gcd(gi, v)
        g = Fraction(gi or den, den)
    else:
        g = Fraction(grid)
    r = g * den  # grid in units of 1/den
    n = _length(cap, g)
    if max_length is not None and n > max_length:
        return None
    cs: dict[int, int] = {}
    total = 0
    for v, c in ints:
        total += c
        if not c:
            continue
        if r.denominator == 1 and v % r.numerator == 0:
            k = v // r.numerator
        else:
            kf = v / r
            if kf.denominator != 1:
                raise ValueError(f"win {Fraction(v, den)} is not on the grid {g}")
            k = int(kf)
        if k < n:
            cs[k] = cs.get(k, 0) + c
    arr = [0] * (max(cs) + 1 if cs else 0)
    for k, c in cs.items():
        arr[k] = c
    return TruncatedLaw(fmpz_poly(arr), total, g, cap)


def point_law(win, cap) -> TruncatedLaw:
    """The law of a fixed win (weight 1)."""
    return law_from_weights({Fraction(win): 1}, cap, grid=Fraction(win) or Fraction(1))


def truncate(law: TruncatedLaw, cap) -> TruncatedLaw:
    """The same law held only below a smaller cap."""
    cap = Fraction(cap)
    if cap > law.cap:
        raise ValueError("a truncated law cannot be extended to a larger cap")
    return TruncatedLaw(law.poly.truncate(_length(cap, law.grid)) if _length(cap, law.grid) else fmpz_poly([]),
                        law.total, law.grid, cap)


def iid_sum(law: TruncatedLaw, n: int) -> TruncatedLaw:
    """Law of the sum of ``n`` i.i.d. copies: ``P^n mod x^L``, total ``T^n``."""
    L = law.length
    if n == 0 or L == 0:
        return TruncatedLaw(fmpz_poly([1]) if L else fmpz_poly([]), law.total**n, law.grid, law.cap)
    return TruncatedLaw(law.poly.pow_trunc(n, L), law.total**n, law.grid, law.cap)


def iid_sums(law: TruncatedLaw, counts) -> Iterator[tuple[int, TruncatedLaw]]:
    """Laws of the sums of ``n`` i.i.d. copies for each ``n`` in ``counts``, sharing the products.

    The smallest count is one :func:`iid_sum`; each next one multiplies the
    previous sum by the law's power of the difference (``P^(n+d) = P^n P^d
    mod x^L``), so ``k`` counts cost ``k`` truncated products instead of
    ``k`` powers.  Exact, like :func:`iid_sum`.

    Parameters
    ----------
    law : TruncatedLaw
    counts : iterable of int
        Non-negative counts, in increasing order.

    Yields
    ------
    (int, TruncatedLaw)
        ``(n, law of the sum of n copies)`` in the order of ``counts``.
    """
    prev, cur = None, None
    L = law.length
    for n in counts:
        if prev is None or L == 0 or law.poly.length() == 0:
            cur = iid_sum(law, n)
        elif n == prev:
            pass
        else:
            if n < prev:
                raise ValueError("counts must increase")
            step = law.poly if n - prev == 1 else law.poly.pow_trunc(n - prev, L)
            p = cur.poly.mul_low(step, L) if cur.poly.length() else cur.poly
            cur = TruncatedLaw(p, law.total**n, law.grid, law.cap)
        prev = n
        yield n, cur


def scale(law: TruncatedLaw, m: int) -> TruncatedLaw:
    """Law of ``m W`` (integer ``m >= 1``): the grid becomes ``m g``; truncated again at the cap."""
    if m < 1 or int(m) != m:
        raise ValueError("the multiplier must be a positive integer")
    g = law.grid * m
    L = _length(law.cap, g)
    return TruncatedLaw(law.poly.truncate(L) if L else fmpz_poly([]), law.total, g, law.cap)


def regrid(law: TruncatedLaw, grid: Fraction) -> TruncatedLaw:
    """The same law on a finer grid ``grid`` (which must divide ``law.grid``)."""
    r = law.grid / Fraction(grid)
    if r.denominator != 1:
        raise ValueError(f"grid {grid} does not divide {law.grid}")
    r = int(r)
    if r == 1:
        return law
    p = law.poly.inflate(r) if law.poly.length() else law.poly
    return TruncatedLaw(p, law.total, Fraction(grid), law.cap)


def _common(laws: Sequence[TruncatedLaw]) -> tuple[Fraction, Fraction]:
    caps = {l.cap for l in laws}
    if len(caps) != 1:
        raise ValueError(f"laws truncated at different caps: {sorted(caps)}")
    g = Fraction(0)
    for l in laws:
        g = _frac_gcd(g, l.grid)
    return g, caps.pop()


def mixture(parts: Sequence[tuple[int, TruncatedLaw]]) -> TruncatedLaw:
    """Mixture of laws drawn with integer weights.

    Parameters
    ----------
    parts : sequence of (int, TruncatedLaw)
        ``(weight, law)``; the law is drawn with probability
        ``weight / sum(weights)``.  All laws share the cap.

    Returns
    -------
    TruncatedLaw
        On the gcd grid; total ``D * sum(weights)`` with ``D = lcm`` of the
        parts' totals.
    """
    parts = [(w, l) for w, l in parts if w]
    if not parts:
        raise ValueError("empty mixture")
    g, cap = _common([l for _, l in parts])
    d = 1
    for _, l in parts:
        d = lcm(d, l.total)
    acc = fmpz_poly([])
    for w, l in parts:
        acc += regrid(l, g).poly * (w * (d // l.total))
    return TruncatedLaw(acc, d * sum(w for w, _ in parts), g, cap)


def convolve(a: TruncatedLaw, b: TruncatedLaw) -> TruncatedLaw:
    """Law of ``A + B`` for independent ``A``, ``B``: ``mul_low`` below the cap."""
    g, cap = _common([a, b])
    L = _length(cap, g)
    pa, pb = regrid(a, g).poly, regrid(b, g).poly
    p = pa.mul_low(pb, L) if L and pa.length() and pb.length() else fmpz_poly([])
    return TruncatedLaw(p, a.total * b.total, g, cap)


class Prefix:
    """Prefix sums of a truncated law, for capped means at any cap up to its own.

    ``Q[K] = sum_{k<K} w_k`` and ``S[K] = sum_{k<K} k w_k`` (Python integers).

    Parameters
    ----------
    law : TruncatedLaw
    """

    def __init__(self, law: TruncatedLaw):
        cs = law.coeffs()
        self.law = law
        self.grid = law.grid
        self.total = law.total
        self.cap = law.cap
        self.q = [0] + list(accumulate(cs))
        self.s = [0] + list(accumulate(k * c for k, c in enumerate(cs)))

    def _k(self, room: Fraction) -> int:
        """Outcomes ``k`` with ``k g < room``: ``ceil(room / g)`` (clipped to the held length)."""
        if room <= 0:
            return 0
        return min(ceil(room / self.grid), len(self.q) - 1)

    def capped(self, b, cap=None) -> tuple[Fraction, Fraction]:
        """``(E[min(b + W, cap)], P(b + W >= cap))`` for a fixed ``b >= 0``.

        Parameters
        ----------
        b : int or Fraction
            Win added to every outcome (the base spin's win).
        cap : Fraction, optional
            At most the law's cap; default the law's cap.
        """
        cap = self.cap if cap is None else Fraction(cap)
        if cap > self.cap:
            raise ValueError(f"cap {cap} above the truncation {self.cap}")
        b = Fraction(b)
        K = self._k(cap - b)
        q, s = self.q[K], self.s[K]
        mean = (b * q + self.grid * s + cap * (self.total - q)) / self.total
        return mean, Fraction(self.total - q, self.total)


def round_capped_mean(classes: Iterable[tuple[int, Fraction, Prefix | None]], cap) -> tuple[Fraction, Fraction]:
    """Exact ``E[min(B + F, C)]`` and ``P(B + F >= C)`` over the base spin's joint law.

    Parameters
    ----------
    classes : iterable of (int, Fraction, Prefix or None)
        ``(weight, base win b, prefix of the feature law started or None)``
        per base class (weights need not be normalised).
    cap : Fraction

    Returns
    -------
    (Fraction, Fraction)
    """
    cap = Fraction(cap)
    tot = 0
    mean = Fraction(0)
    reach = Fraction(0)
    for w, b, pre in classes:
        if not w:
            continue
        tot += w
        b = Fraction(b)
        if pre is None:
            mean += w * min(b, cap)
            reach += w if b >= cap else 0
        else:
            m, r = pre.capped(b, cap)
            mean += w * m
            reach += w * r
    return mean / tot, reach / tot


def round_law(classes: Iterable[tuple[int, Fraction, object]], features: Mapping[object, TruncatedLaw],
              cap) -> TruncatedLaw:
    """The capped law of the round ``B + F`` from the base spin's joint law.

    Parameters
    ----------
    classes : iterable of (int, Fraction, key or None)
        ``(weight, base win b, feature key or None)`` per base class.
    features : mapping
        Feature key -> its law (truncated at ``cap``).
    cap : Fraction

    Returns
    -------
    TruncatedLaw
        Classes grouped per feature key: one base law per group, one
        ``mul_low`` with the feature law, then the mixture with the groups'
        weights.
    """
    cap = Fraction(cap)
    groups: dict = {}
    for w, b, key in classes:
        if w:
            d = groups.setdefault(key, {})
            d[Fraction(b)] = d.get(Fraction(b), 0) + w
    parts = []
    for key, wins in groups.items():
        bl = law_from_weights(wins, cap)
        law = bl if key is None else convolve(bl, features[key])
        parts.append((sum(wins.values()), law))
    return mixture(parts)


def stake_row(stake, cap_multiple, capped_rtp, binds: bool | None, p_reach_cap=None, max_win=None) -> dict:
    """One row of a currency cap's per-stake table (``RoundResult.extra["currency_cap"]``).

    The one builder of these rows: a kind's round solver
    (:func:`analytic.features.engines.gift_pick.currency_cap_report`) and the
    round's cap (:func:`analytic.solver.cap.apply_round_cap`,
    :func:`analytic.solver.cap.add_stake_caps`) give the reports
    (:func:`analytic.reports.format.currency_cap_rows`, the stake plot, the
    ``solve`` text) rows of one shape.

    Parameters
    ----------
    stake : Fraction
        Total stake of a regular round, in currency.
    cap_multiple : Fraction
        The cap at that stake in total-bet multiples (``currency / stake``,
        at most ``total_bet_multiple``).
    capped_rtp : Figure
        RTP of the round win capped at ``cap_multiple`` (per unit staked):
        exact, or the centre of a certified bracket (label ``bounded``).
    binds : bool or None
        Whether the cap can bind (the round win can exceed it); None when
        the figures at hand cannot tell.
    p_reach_cap : Figure, optional
        ``P(R >= cap_multiple)``; left out of the row when None.
    max_win : Fraction, optional
        Theoretical maximum round win (total-bet multiples); left out of the
        row when None.

    Returns
    -------
    dict
        Keys in this order: ``stake``, ``cap_multiple``, ``binds``,
        ``lower`` and ``upper`` (the ends of ``capped_rtp``'s certified
        bracket, both its value when exact), ``capped_rtp``, then
        ``p_reach_cap`` and ``max_win`` when given.
    """
    row = {"stake": stake, "cap_multiple": cap_multiple, "binds": binds,
           "lower": capped_rtp.value - capped_rtp.error, "upper": capped_rtp.value + capped_rtp.error,
           "capped_rtp": capped_rtp}
    if p_reach_cap is not None:
        row["p_reach_cap"] = p_reach_cap
    if max_win is not None:
        row["max_win"] = max_win
    return row
