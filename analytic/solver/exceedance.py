"""What follows from a round's law: the exceedance ladder, the maximum win, and a law test.

All three read a :class:`~analytic.solver.distribution.RoundLaw` (wins in
total-bet multiples, points ``win -> probability`` and a bound ``e`` of the
total variation between the points and the true law).

Exceedance ladder
-----------------
``P(R >= x)`` for ``x`` in :data:`LADDER` (and the win cap, where one
applies).  With ``S(x) = sum_{w >= x} p_w`` summed exactly (Fractions) over
the law's points, the true probability lies in ``[S(x) - e, S(x) + e]``
(total variation bounds the difference of the probabilities of any event),
clipped to ``[0, 1]`` (``[S(x), S(x) + e]`` when every point's mass is a
lower bound of the true one, ``RoundLaw.lower_bounds``).  An exact law (``e = 0``) gives the exact fraction
``S(x)``; a bounded one gives the two ends rounded outward to floats
(the lower end down, the upper end up), so the interval still holds the
truth; above a win cap the probability is 0 exactly.  The gap of a table is the largest ``high - low`` of its rows
(at most ``2 e`` plus the outward rounding).

Interval ladder (no law)
------------------------
:func:`interval_exceedance`: where the round has no law but its solver
bounds ``P(R >= x)`` at any threshold (``extra["round_tail"]``, an object
with ``bounds(xs) -> [(low, high)]`` in Fractions, e.g.
:class:`analytic.features.engines.drawn_expanding.round_tail.RoundTail`),
the same thresholds get those bounds, rounded outward to floats, label
``bounded``, ``kind`` ``"interval"``; the table's gap is the largest
``high - low`` (no total-variation error: ``error`` None).  The maximum win
is the cap when the lower bound of ``P(R >= cap)`` is positive (nothing pays
above it), with ``P(R = cap) = P(R >= cap)``; else it is not certified.

Maximum win
-----------
Of an exact law: its largest win of positive probability, with that
probability (exact).  Of a capped law with an error: the cap, when the lower
bound of ``P(R >= cap)`` is positive (nothing lies above the cap), with
``P(R = cap) = P(R >= cap)`` bounded as above.  Otherwise no maximum is
certified: a grid law leaves out entries of probability 1e-18 or less
(:data:`analytic.solver.distribution.FLOOR`), and missing mass may sit
anywhere, so its largest point is not the largest win.

Law test
--------
:func:`law_test`: Pearson's chi-square of observed round wins (e.g. the
simulator's ``win_counts``) against the law, on the bins ``{0}``,
``(0, 1)``, ``[1, 2)``, ``[2, 5)``, ... ``[10000, inf)`` of the ladder (the
cap splits its bin: ``[cap, inf)`` holds the capped wins).  Adjacent bins
are merged until every bin expects at least :data:`MIN_EXPECTED` rounds;
``df = bins - 1``; the p-value is the chi-square survival function
(:func:`scipy.stats.chi2.sf`).  An exact law also fails the test when a win
it gives probability 0 was observed.  The expected counts are ``n`` times the
law's central probabilities; a certified law's error ``e`` moves them by at
most ``n e`` in total (1e-3 rounds at ``n = 10^6``, ``e = 1e-9``), which is
left out of the statistic.

Interval test
-------------
:func:`interval_test`, for an interval ladder: at each threshold ``x`` the
count ``k`` of rounds with win ``>= x`` out of ``n`` is ``Binomial(n, p)``
for the true ``p`` in ``[low, high]``.  The p-value of the composite null is
the largest over that interval, reached at the end nearer ``k / n``: 1 when
``low <= k / n <= high``, else the two-sided binomial tail there,
``min(1, 2 P(Bin(n, low) <= k))`` below and ``min(1, 2 P(Bin(n, high) >= k))``
above (:mod:`scipy.stats.binom`).  The thresholds are combined by
Bonferroni: ``min(1, m * min_x p_x)`` over the ``m`` thresholds, a valid
p-value whatever their dependence.  The verdict is ``ok`` when it is at
least :data:`P_LIMIT`.  Wide intervals make the test weak, never wrong.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from analytic.solver.distribution import RoundLaw

__all__ = ["LADDER", "MIN_EXPECTED", "P_LIMIT", "ExceedanceRow", "Exceedance", "exceedance", "LawTest",
           "law_bins", "law_test", "interval_exceedance", "interval_test"]

#: The standard ladder of thresholds, in total-bet multiples.
LADDER = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
#: Fewest expected rounds in a bin of the chi-square test (smaller bins are merged with a neighbour).
MIN_EXPECTED = 5.0
#: A law test fails below this p-value (the 99.9 % level of ``verify``'s z-scores).
P_LIMIT = 0.001


@dataclass(frozen=True)
class ExceedanceRow:
    """``P(R >= threshold)`` with certified bounds.

    Attributes
    ----------
    threshold : Fraction
        ``x`` in total-bet multiples.
    label : str
        ``"5000"``, ``"20168 (cap)"``, ...
    low, high : Fraction
        Certified bounds of ``P(R >= x)``; equal (the exact value) for an exact law.
    """

    threshold: Fraction
    label: str
    low: Fraction
    high: Fraction

    @property
    def exact(self) -> bool:
        return self.low == self.high


@dataclass(frozen=True)
class Exceedance:
    """The exceedance ladder of a round's law and its maximum win.

    Attributes
    ----------
    rows : tuple of ExceedanceRow
    label : str
        ``"exact"`` (every row an exact fraction) or ``"bounded"``.
    error : Fraction or None
        The law's total-variation bound ``e`` (None for an interval ladder: no law).
    gap : Fraction
        Largest ``high - low`` of the rows (0 when exact).
    max_win : Fraction or None
        The certified maximum round win (total-bet multiples), None when not certified.
    max_low, max_high : Fraction or None
        Bounds of ``P(R = max_win)`` (equal when exact).
    max_note : str
        How the maximum was found, or why there is none.
    kind : str
        ``"law"`` (from the round's law) or ``"interval"`` (bounds at each
        threshold, :func:`interval_exceedance`).
    method : str
        How an interval ladder's bounds were found ("" for a law's).
    """

    rows: tuple[ExceedanceRow, ...]
    label: str
    error: Fraction | None
    gap: Fraction
    max_win: Fraction | None
    max_low: Fraction | None
    max_high: Fraction | None
    max_note: str
    kind: str = "law"
    method: str = ""


def _down(q: Fraction) -> Fraction:
    """The largest float <= q, as a Fraction."""
    f = float(q)
    if Fraction(f) > q:
        f = math.nextafter(f, -math.inf)
    return Fraction(f)


def _up(q: Fraction) -> Fraction:
    """The smallest float >= q, as a Fraction."""
    f = float(q)
    if Fraction(f) < q:
        f = math.nextafter(f, math.inf)
    return Fraction(f)


def _label(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _survival(points: Mapping[Fraction, Fraction]):
    """``S(x) = P(R >= x)`` of the points, summed exactly (a function of ``x``)."""
    wins = sorted(w for w, p in points.items() if p)
    tail = [Fraction(0)] * (len(wins) + 1)
    for i in range(len(wins) - 1, -1, -1):
        tail[i] = tail[i + 1] + points[wins[i]]

    def s(x: Fraction) -> Fraction:
        return tail[bisect.bisect_left(wins, x)]

    return s, wins


def thresholds(cap: Fraction | None) -> list[tuple[Fraction, str]]:
    """The ladder's thresholds and the cap, sorted, with their labels."""
    out = {Fraction(x): str(x) for x in LADDER}
    if cap is not None:
        out[Fraction(cap)] = f"{_label(Fraction(cap))} (cap)"
    return sorted(out.items())


def exceedance(law: RoundLaw, cap: Fraction | None = None) -> Exceedance:
    """The exceedance ladder and the maximum win of ``law`` (see the module docstring).

    Parameters
    ----------
    law : RoundLaw
        With points (a law whose ``points`` is None has no ladder).
    cap : Fraction, optional
        The round's win cap in total-bet multiples (a row of its own; the law
        is already capped there).

    Returns
    -------
    Exceedance

    Raises
    ------
    ValueError
        ``law.points`` is None.
    """
    if law.points is None:
        raise ValueError(f"no law: {law.reason}")
    e = Fraction(law.error)
    s, wins = _survival(law.points)
    rows = []
    for x, lab in thresholds(cap):
        v = s(x)
        if e == 0 or (cap is not None and x > cap):  # nothing pays above the cap
            v = v if e == 0 else Fraction(0)
            rows.append(ExceedanceRow(x, lab, v, v))
        elif law.lower_bounds:  # every mass a lower bound: the missing mass can only add
            rows.append(ExceedanceRow(x, lab, _down(v), _up(min(Fraction(1), v + e))))
        else:
            rows.append(ExceedanceRow(x, lab, _down(max(Fraction(0), v - e)), _up(min(Fraction(1), v + e))))
    gap = max((r.high - r.low for r in rows), default=Fraction(0))
    label = "exact" if e == 0 else "bounded"
    mx = lo = hi = None
    if e == 0 and wins:
        mx = wins[-1]
        lo = hi = law.points[mx]
        note = "largest win of the round's exact law"
    elif cap is not None and wins and wins[-1] == cap and s(Fraction(cap)) - (0 if law.lower_bounds else e) > 0:
        mx = Fraction(cap)
        v = s(mx)
        lo, hi = _down(v if law.lower_bounds else v - e), _up(min(Fraction(1), v + e))
        note = "the win cap: reached with certified positive probability, nothing pays above it"
    elif law.method == "grid":
        note = (f"not certified: a grid law leaves out entries of probability 1e-18 or less (its largest point "
                f"kept is {float(wins[-1]) if wins else 0:g} x total bet)")
    else:
        from analytic.figures import (
            bound_text,  # "up to": the bound rounded up, never to nearest
        )

        note = f"not certified: probability mass up to {bound_text(e)} is missing from the law, at unknown wins"
    return Exceedance(tuple(rows), label, e, gap, mx, lo, hi, note)


def interval_exceedance(tail, cap: Fraction | None = None) -> Exceedance:
    """The ladder of a round without a law, from certified bounds of ``P(R >= x)`` per threshold.

    Parameters
    ----------
    tail : object
        ``tail.bounds(xs)`` gives ``[(low, high)]`` (Fractions) of ``P(R >= x)``
        for thresholds ``xs`` (total-bet multiples); ``tail.method`` says how.
    cap : Fraction, optional
        The round's win cap (a row of its own).

    Returns
    -------
    Exceedance
        ``kind`` ``"interval"``, label ``"bounded"`` (``"exact"`` only if every
        row's ends meet), ``error`` None; see the module docstring.
    """
    ths = thresholds(cap)
    got = tail.bounds([x for x, _ in ths])
    rows = []
    for (x, lab), (lo, hi) in zip(ths, got):
        lo, hi = Fraction(lo), Fraction(hi)
        if not 0 <= lo <= hi <= 1:
            raise ValueError(f"interval_exceedance: bounds {lo}, {hi} of P(R >= {x}) are not an interval in [0, 1]")
        rows.append(ExceedanceRow(x, lab, lo, hi) if lo == hi else ExceedanceRow(x, lab, _down(lo), _up(hi)))
    gap = max((r.high - r.low for r in rows), default=Fraction(0))
    mx = lo = hi = None
    at_cap = [r for r in rows if cap is not None and r.threshold == cap]
    if at_cap and at_cap[0].low > 0:
        mx, lo, hi = Fraction(cap), at_cap[0].low, at_cap[0].high
        note = "the win cap: reached with certified positive probability, nothing pays above it"
    elif at_cap:  # (e.g. cap precision 'quick': no lower bound of the regular Free Spins' cut)
        note = ("not certified: the round has no law, and its certified lower bound of P(R >= cap) is 0 "
                "(nothing shows that the cap is reached; nothing pays above it)")
    else:
        note = "not certified: the round has no law, only bounds of P(R >= x) at the ladder's thresholds"
    label = "exact" if gap == 0 else "bounded"
    return Exceedance(tuple(rows), label, None, gap, mx, lo, hi, note, "interval", getattr(tail, "method", ""))


def interval_test(ex: Exceedance, counts: Mapping[Fraction, int]) -> "LawTest":
    """The binomial interval test of observed round wins against an interval ladder (module docstring).

    Parameters
    ----------
    ex : Exceedance
        Rows with certified ``[low, high]`` of ``P(R >= x)``.
    counts : mapping of Fraction -> int
        Observed round win (total-bet multiples) -> number of rounds.

    Returns
    -------
    LawTest
        ``test`` ``"binomial interval (Bonferroni)"``, ``bins`` the thresholds
        (``">= x"``), ``observed`` the counts ``k``, ``expected`` ``n`` times the
        nearest end of each interval to ``k / n``, ``statistic`` the smallest
        per-threshold p-value, ``df`` the number of thresholds, ``p_value`` the
        Bonferroni one.

    Raises
    ------
    ValueError
        No rounds observed, or a ladder without rows.
    """
    from scipy.stats import binom

    n = sum(counts.values())
    if n <= 0:
        raise ValueError("no rounds observed")
    if not ex.rows:
        raise ValueError("interval_test: a ladder without rows")
    wins = sorted((Fraction(w), c) for w, c in counts.items())
    obs, exp_, ps = [], [], []
    for r in ex.rows:
        k = sum(c for w, c in wins if w >= r.threshold)
        f = Fraction(k, n)
        if f < r.low:
            p, near = min(1.0, 2 * float(binom.cdf(k, n, float(r.low)))), r.low
        elif f > r.high:
            p, near = min(1.0, 2 * float(binom.sf(k - 1, n, float(r.high)))), r.high
        else:
            p, near = 1.0, f
        obs.append(k)
        exp_.append(float(n * near))
        ps.append(p)
    m = len(ps)
    pv = min(1.0, m * min(ps))
    return LawTest("binomial interval (Bonferroni)", tuple(f">= {r.label}" for r in ex.rows), tuple(obs),
                   tuple(exp_), min(ps), m, pv, 0, "ok" if pv >= P_LIMIT else "CHECK")


@dataclass(frozen=True)
class LawTest:
    """A chi-square test of observed round wins against a law (or the interval test, :func:`interval_test`).

    Attributes
    ----------
    test : str
        ``"chi-square"``, or ``"binomial interval (Bonferroni)"`` (then ``bins``
        are the thresholds, ``statistic`` the smallest per-threshold p-value,
        ``df`` the number of thresholds).
    bins : tuple of str
        The bins after merging (``"0"``, ``"(0, 1)"``, ``"[1, 5)"``, ..., ``"[10000, inf)"``).
    observed : tuple of int
    expected : tuple of float
        ``n`` times the law's probability of each bin.
    statistic : float
        Pearson's ``sum (O - E)^2 / E``.
    df : int
        ``bins - 1``.
    p_value : float
    impossible : int
        Rounds whose win an exact law gives probability 0 (0 for a bounded law).
    verdict : str
        ``"ok"`` when ``p_value >= P_LIMIT`` and ``impossible == 0``, else ``"CHECK"``.
    """

    test: str
    bins: tuple[str, ...]
    observed: tuple[int, ...]
    expected: tuple[float, ...]
    statistic: float
    df: int
    p_value: float
    impossible: int
    verdict: str

    def to_dict(self) -> dict:
        return {"test": self.test, "bins": list(self.bins), "observed": list(self.observed),
                "expected": list(self.expected), "statistic": self.statistic, "df": self.df,
                "p_value": self.p_value, "impossible": self.impossible, "verdict": self.verdict}


def law_bins(law: RoundLaw, cap: Fraction | None = None) -> list[tuple[Fraction | None, Fraction | None, str]]:
    """The unmerged bins of :func:`law_test`: ``(low, high, label)``; ``{0}`` is ``(None, 0)``, then
    ``[low, high)`` with ``(0, 1)`` open at 0 and the last ``[x, None)`` unbounded."""
    edges = [x for x, _ in thresholds(cap)]
    out: list = [(None, Fraction(0), "0")]
    lo = Fraction(0)
    for x in edges:
        out.append((lo, x, f"({_label(lo)}, {_label(x)})" if lo == 0 else f"[{_label(lo)}, {_label(x)})"))
        lo = x
    out.append((lo, None, f"[{_label(lo)}, inf)"))
    return out


def _bin_of(w: Fraction, edges: list[Fraction]) -> int:
    if w == 0:
        return 0
    return 1 + bisect.bisect_right(edges, w)


def law_test(law: RoundLaw, counts: Mapping[Fraction, int], cap: Fraction | None = None) -> LawTest:
    """Pearson's chi-square of observed round wins against ``law`` (see the module docstring).

    Parameters
    ----------
    law : RoundLaw
        With points.
    counts : mapping of Fraction -> int
        Observed round win (total-bet multiples) -> number of rounds.
    cap : Fraction, optional
        The win cap (its own bin edge).

    Returns
    -------
    LawTest

    Raises
    ------
    ValueError
        ``law.points`` is None, or no rounds observed.
    """
    from scipy.stats import chi2

    if law.points is None:
        raise ValueError(f"no law: {law.reason}")
    n = sum(counts.values())
    if n <= 0:
        raise ValueError("no rounds observed")
    bins = law_bins(law, cap)
    edges = [x for x, _ in thresholds(cap)]
    # exact bin probabilities (Fractions) from the points, then floats
    exact = [Fraction(0)] * len(bins)
    for w, p in law.points.items():
        if p:
            exact[_bin_of(w, edges)] += p
    prob = [float(p) for p in exact]
    obs = [0] * len(bins)
    impossible = 0
    for w, c in counts.items():
        obs[_bin_of(Fraction(w), edges)] += c
        if law.error == 0 and not law.points.get(Fraction(w)):
            impossible += c
    # merge adjacent bins until each expects MIN_EXPECTED rounds (a short last group joins the one before)
    groups: list[list] = []  # [first bin, last bin, observed, expected]
    cur = None
    for i in range(len(bins)):
        if cur is None:
            cur = [i, i, 0, 0.0]
        cur[1] = i
        cur[2] += obs[i]
        cur[3] += n * prob[i]
        if cur[3] >= MIN_EXPECTED:
            groups.append(cur)
            cur = None
    if cur is not None:
        if groups:
            g = groups[-1]
            g[1], g[2], g[3] = cur[1], g[2] + cur[2], g[3] + cur[3]
        else:
            groups.append(cur)

    def name(g) -> str:
        a, b = bins[g[0]], bins[g[1]]
        if g[0] == g[1]:
            return a[2]
        lo = "0" if a[0] is None else _label(a[0])
        hi = "inf" if b[1] is None else _label(b[1])
        return f"[{lo}, {hi})" if a[0] is None or a[0] != 0 or g[0] == 0 else f"({lo}, {hi})"

    stat = 0.0
    for g in groups:
        o, ex = g[2], g[3]
        if ex > 0:
            stat += (o - ex) ** 2 / ex
        elif o > 0:
            stat = math.inf
    df = len(groups) - 1
    pv = float(chi2.sf(stat, df)) if df > 0 else 1.0
    ok = pv >= P_LIMIT and impossible == 0
    return LawTest("chi-square", tuple(name(g) for g in groups), tuple(g[2] for g in groups),
                   tuple(g[3] for g in groups), stat, df, pv, impossible, "ok" if ok else "CHECK")
