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

__all__ = ["Figure", "exact_format", "int_text", "fraction_text", "publication_quantum", "round_outward", "round_decimals", "bound_text", "shown", "SHOWN_ERROR_DIGITS", "published_split", "DistributionFigures", "distribution_figures", "Z_SCORES", "volatility_index"]

#: Two-sided normal quantiles used for volatility indices and RTP ranges.
Z_SCORES = {90: 1.6448536269514722, 95: 1.959963984540054, 99: 2.5758293035489004}

#: Digits below which ``str(int)`` is used as is (Python refuses to convert an integer of more than
#: ``sys.get_int_max_str_digits()`` digits, 4,300 by default, to text).
_STR_DIGITS = 4000


def int_text(n: int) -> str:
    """Decimal text of the integer ``n``, however many digits it has.

    ``str(n)`` raises ``ValueError`` beyond the interpreter's limit on integer-to-text conversion
    (4,300 digits by default); an exact figure of a long feature's law (a capped RTP from the
    round law of hundreds of free spins: a power of the free reel set's cycle) has more.  The
    integer is split at a power of ten (``divmod``, exact) until each piece is short enough;
    the interpreter's limit is left as it is.

    Parameters
    ----------
    n : int
        Any integer.

    Returns
    -------
    str
        Its decimal digits, ``-`` first if negative (equal to ``str(n)`` where that works).
    """
    if n < 0:
        return "-" + int_text(-n)
    if n < 10**_STR_DIGITS:
        return str(n)
    k = int(n.bit_length() * 0.30102999566398120) // 2  # about half the digits
    hi, lo = divmod(n, 10**k)
    return int_text(hi) + int_text(lo).zfill(k)


def fraction_text(v: Fraction) -> str:
    """``"p/q"`` of a Fraction (:func:`int_text` of each part), however long."""
    v = Fraction(v)
    return f"{int_text(v.numerator)}/{int_text(v.denominator)}"


def exact_format(x, spec: str) -> str:
    """``format(x, spec)`` as it would print the exact number ``x`` (not its float).

    A float has 53 bits: an exact figure turned into one before printing
    loses every digit past the 17th (an RTP of 7.5e31 % printed
    ``74999999999999990513822771183616.000000 %``), becomes 0 or ``inf``
    outside about 1e-308 .. 1e308 (a probability of 1e-400 printed as
    ``never``), and can round the other way at a tie.  Here the number is
    rounded once, exactly (half to even, as ``format`` rounds a float's
    exact binary value), to the digits the spec asks for.

    Parameters
    ----------
    x : Fraction, int or float (taken exactly)
    spec : str
        ``[,][.N]f``, ``[,][.N]e``, ``[,][.N]g`` or ``[,][.N]%`` (the float presentation types;
        ``N`` defaults to 6, ``,`` groups the integer digits by thousands).

    Returns
    -------
    str
        The text ``format(float(x), spec)`` gives wherever the float holds every printed digit
        of ``x``; the exact digits elsewhere.

    Raises
    ------
    ValueError
        A spec outside those forms.

    Examples
    --------
    >>> exact_format(Fraction(3, 4) * 10**30, ",.2f")
    '750,000,000,000,000,000,000,000,000,000.00'
    >>> exact_format(Fraction(1, 10**400), ".3e")
    '1.000e-400'
    >>> exact_format(Fraction(1, 8), ".2f"), format(0.125, ".2f")  # a tie: half to even
    ('0.12', '0.12')
    """
    import re

    m = re.fullmatch(r"(,?)(?:\.(\d+))?([efg%])", spec)
    if m is None:
        raise ValueError(f"exact_format: unsupported spec {spec!r}")
    sep, p, kind = m.group(1), 6 if m.group(2) is None else int(m.group(2)), m.group(3)
    if isinstance(x, float) and not math.isfinite(x):  # (nan, inf: no exact value; as format() prints them)
        return format(x, spec)
    x = Fraction(x)
    sign, a = ("-" if x < 0 else ""), abs(x)

    def fixed(v: Fraction, d: int) -> str:
        n = round(v * 10**d)  # (Fraction.__round__: exact, half to even)
        whole, part = divmod(n, 10**d)
        w = int_text(whole)  # (any size: format(n, ",") refuses more than 4,300 digits)
        if sep:  # thousands separators
            head = len(w) % 3 or 3
            w = ",".join([w[:head]] + [w[i:i + 3] for i in range(head, len(w), 3)])
        return w + ("." + str(part).zfill(d) if d else "")

    def sci(v: Fraction, d: int) -> tuple[str, int]:
        if v == 0:
            return "0" * (d + 1), 0
        k = _decade(v)
        n = round(v * Fraction(10) ** (d - k))
        if n >= 10 ** (d + 1):  # rounded up to the next decade
            k += 1
            n = round(v * Fraction(10) ** (d - k))
        return str(n), k

    if kind == "f":
        return sign + fixed(a, p)
    if kind == "%":
        return sign + fixed(a * 100, p) + "%"
    if kind == "e":
        digits, k = sci(a, p)
        return f"{sign}{digits[0]}{'.' + digits[1:] if p else ''}e{k:+03d}"
    p = max(p, 1)  # "g": p significant digits, trailing zeros dropped
    if a == 0:
        return sign + "0"
    digits, k = sci(a, p - 1)
    if -4 <= k < p:
        t = fixed(a, p - 1 - k)
        return sign + (t.rstrip("0").rstrip(".") if "." in t else t)
    mant = digits[0] + ("." + digits[1:]).rstrip("0").rstrip(".")
    return f"{sign}{mant}e{k:+03d}"


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
    quantum : Fraction or None
        Set on a published bounded figure (:meth:`published`): the power of
        ten its centre and error are multiples of; such a figure is
        published as it is.  Not compared.
    """

    value: Fraction
    label: str = "exact"
    error: Fraction = Fraction(0)
    quantum: Fraction | None = field(default=None, compare=False)

    def __float__(self) -> float:
        return float(self.value)

    def published(self) -> "Figure":
        """The figure as par sheets and JSON show it: exact ones unchanged, bounded ones rounded outwards.

        A bounded figure's centre is a float computation whose last bits
        depend on the machine (the BLAS kernel its CPU selects sums a dot
        product in another order); only the interval ``[value - error,
        value + error]`` is certified.  Its published form keeps what the
        certificate supports: the centre rounded to the quantum ``q`` of
        :func:`publication_quantum` (about a thousandth of the error), the
        error widened by that rounding and raised to a multiple of ``q``, so
        the published interval contains the computed one (and so the true
        value).  Two machines whose centres differ by a few units in the
        last place publish the same figure unless a centre lies within
        those units of a rounding boundary (a chance of about ``1e-16 |value|
        / q``, at most 1e-3 and usually below 1e-6).
        """
        if self.label == "exact" or self.quantum is not None:
            return self
        q = publication_quantum(self.value, self.error)
        while True:  # (twice at most: a widened error may reach the next decade, a coarser quantum)
            v = round(self.value / q) * q
            e = _ceil_to(self.error + abs(self.value - v), q)
            q2 = publication_quantum(v, e)
            if q2 <= q:
                return Figure(Fraction(v), self.label, Fraction(e), q)
            q = q2

    def published_within(self, low=Fraction(0), high=Fraction(1)) -> "Figure":
        """:meth:`published`, its interval kept inside the range ``[low, high]`` of the quantity.

        A probability's certified interval can reach past 0 or 1 (a centre
        0 with its error), and publishing (the centre rounded, the error
        widened and raised to the quantum ``q``) can take an end past them by
        one rounding step (7.269e-10 +/- 7.27e-10).  Such a figure is
        published as the certified interval cut to ``[low, high]``, its ends
        rounded outward to multiples of ``q`` and cut again: centre
        ``(a + b) / 2``, error ``(b - a) / 2`` (quantum ``q / 10``: the centre
        may be a multiple of ``q / 2``).  The published interval still holds
        the true value (which lies in the range), and ``value - error`` and
        ``value + error`` are exactly its ends, within the range.

        Parameters
        ----------
        low, high : Fraction
            The quantity's range (a probability: 0 and 1; a nonnegative one: ``high`` None).

        Returns
        -------
        Figure
            :meth:`published` itself when its interval is inside the range (or the figure is exact).
        """
        p = self.published()
        lo_ok = low is None or p.value - p.error >= low
        hi_ok = high is None or p.value + p.error <= high
        if p.label == "exact" or (lo_ok and hi_ok):
            return p
        q = p.quantum
        a, b = self.value - self.error, self.value + self.error
        if low is not None:
            a = max(a, Fraction(low))
        if high is not None:
            b = min(b, Fraction(high))
        if a > b:  # a certificate outside the range: nothing to cut (never for a true certificate)
            return p
        a, b = (a // q) * q, _ceil_to(b, q)
        if low is not None:
            a = max(a, Fraction(low))
        if high is not None:
            b = min(b, Fraction(high))
        return Figure((a + b) / 2, p.label, (b - a) / 2, q / 10)


    def to_json(self) -> dict:
        """``{"exact": "p/q", "float": x, "label": ..., "error": e}`` of the :meth:`published` figure."""
        f = self.published()
        d = {"exact": fraction_text(f.value), "float": float(f.value), "label": f.label}
        if f.label != "exact":
            d["error"] = float(f.error)
        return d


def published_split(parts, total: Figure) -> tuple:
    """An RTP split as published: every part :meth:`Figure.published`, the last bounded one the rest.

    ``parts``: ``(name, Figure)`` pairs adding up to ``total``.  Rounded one by
    one the published centres would not add up to the published total; so
    the last bounded part is published as ``total' - sum of the other parts'``
    (its quantum the finest of theirs), its error widened by that change
    (``|part - part'|``, the computed centres'), raised to a multiple of the
    quantum.  Exact parts, and a split without a bounded part, are unchanged.

    Returns
    -------
    tuple of (str, Figure)
    """
    parts = tuple(parts)
    last = max((i for i, (_n, f) in enumerate(parts) if f.label != "exact"), default=None)
    if last is None:
        return parts
    out = [(n, f.published()) for n, f in parts]
    t = total.published()
    rest = t.value - sum((f.value for i, (_n, f) in enumerate(out) if i != last), Fraction(0))
    qs = [f.quantum for f in (t, *(f for _n, f in out)) if f.quantum is not None]
    q = min(qs)
    name, f = parts[last]
    out[last] = (name, Figure(rest, f.label, _ceil_to(f.error + abs(f.value - rest), q), q))
    return tuple(out)


#: A published bounded centre keeps this many significant digits below the error's first one
#: (:meth:`Figure.published`) ...
ERROR_DIGITS = 3
#: ... and at most this many significant digits of its own (a centre whose error is below a float's
#: resolution is not published to the last bit).
VALUE_DIGITS = 13


#: Significant digits of a published certified bound (:func:`round_outward`).
BOUND_DIGITS = 10


def round_outward(x, up: bool, digits: int = BOUND_DIGITS) -> Fraction:
    """A certified bound ``x`` rounded outwards to ``digits`` significant digits (a decimal Fraction).

    ``up``: round towards +infinity (an upper bound), else towards -infinity
    (a lower bound), so the published bound is still a bound.  A bound
    computed in floats differs between machines in its last bits (as a
    bounded figure's centre, :meth:`Figure.published`); rounded to
    ``digits`` digits it publishes alike unless it lies within those bits
    of a rounding boundary (a chance of about ``10^(digits - 16)``).

    Parameters
    ----------
    x : Fraction, int or float (taken exactly)
    up : bool
    digits : int, at least 1

    Returns
    -------
    Fraction
        ``x`` itself when it has at most ``digits`` significant digits.
    """
    x = Fraction(x)
    if x == 0:
        return x
    q = Fraction(10) ** (_decade(abs(x)) - digits + 1)
    return _ceil_to(x, q) if up else (x // q) * q


#: Significant digits of a printed certified error (:func:`shown`), rounded up.
SHOWN_ERROR_DIGITS = 2


def shown(f: Figure, decimals: int, scale=1) -> tuple[Fraction, Fraction, int]:
    """A figure as a table prints it: ``(centre, error, decimals)``, the printed interval still certified.

    A table prints a figure to a few decimals (a percentage to 4) and its
    error to :data:`SHOWN_ERROR_DIGITS` significant digits.  Rounded to
    nearest, both could print an interval that leaves out the truth (a
    centre 94.00145445 % with error 1.6e-5 % printed "94.0015 % +- 1.6e-05 %"
    is off by three errors).  Here the :meth:`Figure.published` centre is
    rounded to ``d`` decimals, ``d`` at least ``decimals`` and at least the
    error's second significant digit (the metrology convention: a value to
    the decimal place of its uncertainty), and the error is widened by that
    rounding and rounded up, so ``[centre - error, centre + error]``
    contains the published interval, and so the true value.

    Parameters
    ----------
    f : Figure
        Exact figures come back as their value, error 0, ``decimals``.
    decimals : int
        The least number of decimals of the printed centre (in units of ``scale``).
    scale : int or Fraction
        Display unit (100 for a percentage).

    Returns
    -------
    (Fraction, Fraction, int)
        The centre (a multiple of ``10^-d``), the error (at most
        :data:`SHOWN_ERROR_DIGITS` significant digits, rounded up) and ``d``,
        all in units of ``scale``.
    """
    f = f.published()
    v, e = f.value * scale, f.error * scale
    if f.label == "exact":
        return v, Fraction(0), decimals
    if e == 0:  # a bounded figure certified to its published centre (a multiple of its quantum): all its digits
        d = max(decimals, 0)
        while (v * 10 ** d).denominator != 1:
            d += 1
        return v, Fraction(0), d
    d = max(decimals, 1 - _decade(e), 0)
    q = Fraction(1, 10 ** d)
    c = round(v / q) * q
    return Fraction(c), round_outward(e + abs(v - c), up=True, digits=SHOWN_ERROR_DIGITS), d


def bound_text(x, up: bool = True, digits: int = 3, sci: bool = False) -> str:
    """A certified bound as text: ``digits`` significant digits, rounded outward (up for an upper
    bound, or an error; :func:`round_outward`), so the text is still a bound.

    ``sci``: in scientific notation (``1.24e-07``) rather than ``g`` format.
    """
    v = round_outward(x, up=up, digits=digits)  # (its digits exactly: no float, whatever its size)
    return exact_format(v, f".{digits - 1}e") if sci else exact_format(v, f".{digits}g")


def round_decimals(x, decimals: int, up: bool) -> Fraction:
    """A certified bound ``x`` rounded outwards to ``decimals`` decimal places (up for an upper bound).

    Parameters
    ----------
    x : Fraction, int or float (taken exactly)
    decimals : int, at least 0
    up : bool

    Returns
    -------
    Fraction
        A multiple of ``10^-decimals``: the least at or above ``x`` (``up``), else the greatest at or below.
    """
    q = Fraction(1, 10 ** decimals)
    x = Fraction(x)
    return _ceil_to(x, q) if up else (x // q) * q


def _ceil_to(x: Fraction, q: Fraction) -> Fraction:
    """The smallest multiple of ``q > 0`` at or above ``x``."""
    return -((-x) // q) * q


def _decade(x: Fraction) -> int:
    """``floor(log10 x)`` of a positive Fraction, exactly (of any size: the first guess from the bit
    lengths, never ``str`` of an integer of more than 4,300 digits, which Python refuses)."""
    k = int((x.numerator.bit_length() - x.denominator.bit_length()) * 0.30102999566398120)
    while Fraction(10) ** k > x:
        k -= 1
    while Fraction(10) ** (k + 1) <= x:
        k += 1
    return k


def publication_quantum(value, error) -> Fraction:
    """The power of ten a bounded figure is published to (:meth:`Figure.published`).

    ``10^(floor(log10 error) - ERROR_DIGITS)``, but not below
    ``10^(floor(log10 |value|) - VALUE_DIGITS + 1)`` (so at most
    :data:`VALUE_DIGITS` significant digits of the centre); ``1`` when both are 0.

    Parameters
    ----------
    value, error : Fraction or int
        The centre and its certified absolute error (``error >= 0``).

    Returns
    -------
    Fraction
        A power of ten.
    """
    value, error = Fraction(value), Fraction(error)
    ks = []
    if error > 0:
        ks.append(_decade(error) - ERROR_DIGITS)
    if value != 0:
        ks.append(_decade(abs(value)) - VALUE_DIGITS + 1)
    return Fraction(10) ** max(ks) if ks else Fraction(1)


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
