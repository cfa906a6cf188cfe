"""The win distribution of a whole round (base spin plus the features it starts).

Given the base spin's class ``c = (feature, count, line triggers, base win
b)`` the feature wins are independent of ``b``, so the round's law is the
mixture over the base walk's joint table (:attr:`BaseResult.joint`) of ``b``
shifted by the law of the class's feature wins (a sum of ``k`` independent
plays for ``k`` line-triggered bonuses).  Two representations meet here:

* **exact** laws (``FeatureResult.distribution``: win -> Fraction), combined
  in Fractions as long as the number of terms stays below
  :data:`MAX_TERMS`;
* **grid** laws (``FeatureResult.law``: float probabilities on a grid with a
  certified total-variation error, e.g. free spins with unbounded
  retriggers, :mod:`analytic.features.laws.retrigger_law`), combined on the
  common grid in floats.  Rounds without a feature stay exact; the
  feature rounds' error is ``sum_c p_c sum_parts k * error`` plus the
  float rounding of the mixture, and entries below :data:`FLOOR` are
  dropped into the error.

A round solver's own exact law (``RoundResult.extra["distribution"]``, e.g.
a capped round) is used as is; so is its certified law
(``extra["certified_law"]``: ``{"points", "error", "method"}``, the points'
total variation to the true law at most ``error``, e.g. a bought Power
feature, :func:`analytic.features.engines.drawn_expanding.engine.buy_power_law`).  A capped round (:func:`analytic.solver.cap.applied_cap`)
pays ``min(R, C)``: wins above the cap are lumped at the cap (the error
bound is unchanged).  Units: total-bet multiples.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

import numpy as np

from analytic.features.laws.capped import grid_of

from analytic.solver.round import RoundResult

__all__ = ["RoundLaw", "round_law", "round_classes", "MAX_TERMS", "FLOOR"]

#: Largest number of (class x feature outcome) terms combined in Fractions.
MAX_TERMS = 400_000
#: Grid entries below this probability are dropped (their mass joins the error).
FLOOR = 1e-18
_TOO_LARGE = "the feature distributions are too large to combine exactly"


@dataclass(frozen=True)
class RoundLaw:
    """The law of a round win.

    Attributes
    ----------
    points : Mapping[Fraction, Fraction] or None
        ``win -> probability`` (total-bet multiples); None when unavailable.
    error : Fraction
        Bound of the total variation between ``points`` and the true law
        (0: exact).
    reason : str
        Why ``points`` is None ("" otherwise).
    method : str
        ``"exact"`` (Fractions throughout) or ``"grid"`` (feature rounds in
        floats with a certified error).
    lower_bounds : bool
        Every point's mass is a certified lower bound of the true mass at that
        win (then ``error`` is the missing mass ``1 - sum``, and any event's
        probability lies in ``[p(A), p(A) + error]``).
    """

    points: Mapping[Fraction, Fraction] | None
    error: Fraction
    reason: str = ""
    method: str = "exact"
    lower_bounds: bool = False


def _convolve(a: Mapping[Fraction, Fraction], b: Mapping[Fraction, Fraction]) -> dict:
    out: dict = defaultdict(Fraction)
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] += p * q
    return out


def round_classes(r: RoundResult) -> list[tuple[int, Fraction, list]]:
    """The round's classes, each with its integer weight.

    Parameters
    ----------
    r : RoundResult

    Returns
    -------
    list of (int, Fraction, list of (FeatureResult, int))
        ``(weight, base win, [(feature result, plays)])``: for a spin mode one
        entry per base-spin class of :attr:`BaseResult.joint` (weight: stop
        combinations out of the cycle; base win in total-bet multiples; the
        started feature played once, each line-triggered bonus ``lt`` times);
        for a feature buy one entry per bought count (weight from
        ``buy_counts``, base win 0).  Given its class, the feature wins are
        independent of the base win.
    """
    fr = r.feature_results
    if r.base is None:
        m = r.game.modes[r.mode]
        return [(w, Fraction(0), [(fr.get((m.buys, n)), 1)]) for n, w in m.buy_counts.items() if w]
    base = r.base
    line_bonus = list(dict.fromkeys(f for counts in r.game.line_triggers.values() for f in counts.values()))
    out = []
    for (feat, n, lt, win), cnt in base.joint.items():
        parts = []
        if feat is not None:
            parts.append((fr.get((feat, n)), 1))
        if lt:
            parts.extend((fr.get((b, 0)), lt) for b in line_bonus)
        out.append((cnt, Fraction(win, base.units), parts))
    return out


def _parts(r: RoundResult):
    """``[(probability, base win, [(FeatureResult, plays)])]`` of the round's classes."""
    classes = round_classes(r)
    total = r.base.cycle if r.base is not None else sum(w for w, _, _ in classes)
    return [(Fraction(w, total), b, parts) for w, b, parts in classes]


def round_law(r: RoundResult) -> RoundLaw:
    """The law of the round win of ``r`` (see the module docstring).

    Returns
    -------
    RoundLaw
        ``points`` None with a ``reason`` when a feature gives no law.
    """
    from analytic.solver.cap import applied_cap

    own = r.extra.get("distribution") if r.extra else None
    certified = r.extra.get("certified_law") if r.extra else None
    if own is not None:
        law = RoundLaw({Fraction(w): Fraction(p) for w, p in own.items()}, Fraction(0))
    elif certified is not None:
        law = RoundLaw(dict(certified["points"]), Fraction(certified["error"]), method="grid",
                       lower_bounds=bool(certified.get("lower_bounds")))
    else:
        law = _uncapped_law(r)
    cap = applied_cap(r)
    if cap is None or law.points is None or all(w <= cap for w in law.points):
        return law
    pts: dict = defaultdict(Fraction)
    for w, p in law.points.items():
        pts[min(w, cap)] += p
    return RoundLaw(dict(pts), law.error, law.reason, law.method, law.lower_bounds)


def _uncapped_law(r: RoundResult) -> RoundLaw:
    classes = _parts(r)
    for _, _, parts in classes:
        for res, _ in parts:
            if res is None or (res.distribution is None and res.law is None):
                name = res.feature if res is not None else "?"
                return RoundLaw(None, Fraction(0), f"the distribution of feature '{name}' is not available")
    if any(res.distribution is None for _, _, parts in classes for res, _ in parts):
        return _grid_law(classes)
    return _exact_law(classes)


def _exact_law(classes) -> RoundLaw:
    pts: dict = defaultdict(Fraction)
    err = Fraction(0)
    terms = 0
    plays: dict = {}
    for p, b, parts in classes:
        law: dict = {Fraction(0): Fraction(1)}
        for res, k in parts:
            key = id(res)
            for j in range(1, k + 1):  # j-fold sums of independent plays, cached
                if (key, j) not in plays:
                    if j > 1:
                        terms += len(plays[(key, j - 1)]) * len(res.distribution)
                        if terms > MAX_TERMS:
                            return RoundLaw(None, Fraction(0), _TOO_LARGE)
                        plays[(key, j)] = _convolve(plays[(key, j - 1)], res.distribution)
                    else:
                        plays[(key, j)] = {Fraction(x): Fraction(q) for x, q in res.distribution.items()}
            terms += len(law) * len(plays[(key, k)])
            if terms > MAX_TERMS:
                return RoundLaw(None, Fraction(0), _TOO_LARGE)
            law = _convolve(law, plays[(key, k)])
            err += p * k * res.distribution_mass_error
        terms += len(law)
        if terms > MAX_TERMS:
            return RoundLaw(None, Fraction(0), _TOO_LARGE)
        for x, q in law.items():
            pts[b + x] += p * q
    return RoundLaw(dict(pts), err)


def _as_grid(res, step: Fraction) -> tuple[np.ndarray, float] | None:
    """A feature's law as floats on ``step`` (None when it does not fit the grid)."""
    if res.law is not None:
        k = res.law.step / step
        if k.denominator != 1:
            return None
        out = np.zeros((len(res.law.probs) - 1) * int(k) + 1)
        out[:: int(k)] = res.law.probs
        return out, res.law.error
    keys = [Fraction(x) / step for x in res.distribution]
    if any(k.denominator != 1 or k < 0 for k in keys) or max(keys) > 1 << 22:
        return None
    out = np.zeros(int(max(keys)) + 1)
    for k, q in zip(keys, res.distribution.values()):
        out[int(k)] += float(q)
    return out, float(res.distribution_mass_error) + len(keys) * 2.0**-53


def _grid_law(classes) -> RoundLaw:
    values = []
    for _, b, parts in classes:
        if parts:
            values.append(b)
        for res, _ in parts:
            values.extend([res.law.step] if res.law is not None else res.distribution)
    step = grid_of(values)
    pts: dict = defaultdict(Fraction)
    laws: dict = {}
    err = 0.0
    acc = np.zeros(1)
    for p, b, parts in classes:
        if not parts:
            pts[b] += p
            continue
        key = tuple((id(res), k) for res, k in parts)
        if key not in laws:
            arr, e = np.ones(1), 0.0
            for res, k in parts:
                g = _as_grid(res, step)
                if g is None:
                    return RoundLaw(None, Fraction(0), _TOO_LARGE)
                for _ in range(k):
                    n = len(arr) + len(g[0])
                    if len(arr) * len(g[0]) < 1 << 16:
                        arr = np.convolve(arr, g[0])
                        e += g[1] + n * 2.0**-52
                    else:  # a-priori FFT bound (as in retrigger_law), summed over the entries
                        arr = _fft_conv(arr, g[0])
                        e += g[1] + math.sqrt(n) * 50 * math.log2(n) * 2.0**-53
            laws[key] = (np.clip(arr, 0.0, None), e)
        arr, e = laws[key]
        off = int(b / step)
        if off + len(arr) > len(acc):
            acc = np.concatenate([acc, np.zeros(off + len(arr) - len(acc))])
        acc[off: off + len(arr)] += float(p) * arr
        err += float(p) * e
    keep = np.flatnonzero(acc > FLOOR)
    dropped = float(acc.sum() - acc[keep].sum())
    # float mixture rounding: relative 2^-52 per addition on a total mass <= 1
    err += max(dropped, 0.0) + len(classes) * 2.0**-52
    return RoundLaw(_with_grid(pts, step, keep, acc[keep]), Fraction(err), method="grid")


def _with_grid(pts: Mapping[Fraction, Fraction], step: Fraction, idx: np.ndarray, probs: np.ndarray) -> dict:
    """``pts`` plus the grid masses ``probs`` (floats, taken exactly) at the wins ``step * idx``.

    Parameters
    ----------
    pts : Mapping[Fraction, Fraction]
        Exact masses (win -> probability, total-bet multiples).
    step : Fraction
        The grid step, total-bet multiples.
    idx : ndarray of int, shape (n,)
        Increasing grid indices.
    probs : ndarray of float, shape (n,)
        Their masses.

    Returns
    -------
    dict
        The keys of ``pts`` first, in their order, then the grid's new wins in
        increasing order (the order of adding the grid point by point to
        ``pts``); a win in both holds the sum.
    """
    sn, sd = step.numerator, step.denominator
    on_grid = {}  # grid index -> key of pts at that win
    for w in pts:
        j = w / step
        if j.denominator == 1:
            on_grid[int(j)] = w
    out = dict(pts)
    keys, vals = [], []
    for i, v in zip(idx.tolist(), probs.tolist()):
        q = Fraction(*v.as_integer_ratio())
        w = on_grid.get(i)
        if w is None:
            keys.append(Fraction(sn * i, sd))
            vals.append(q)
        else:
            out[w] += q
    out.update(zip(keys, vals))
    return out


def _fft_conv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The full linear convolution of two 1-d float arrays through real FFTs.

    The steps of ``scipy.signal.fftconvolve(a, b)`` (the transform length
    padded to ``scipy.fft.next_fast_len``, ``rfftn`` / ``irfftn``, the head
    kept), so the floats are the same bit for bit, without importing
    ``scipy.signal`` (most of a second at start).
    """
    from scipy import fft as sfft

    if len(a) == 1 or len(b) == 1:  # fftconvolve: a length-1 axis is a broadcast product, no transform
        return a * b
    n = len(a) + len(b) - 1
    shape = [sfft.next_fast_len(n, True)]
    ret = sfft.irfftn(sfft.rfftn(a, shape, axes=[0]) * sfft.rfftn(b, shape, axes=[0]), shape, axes=[0])
    return ret[:n].copy()
