"""Engine ``drawn_expanding``: the regular Free Spins' win law below a reach, exact over the first draws.

Units: line-bet units inside (the grid's cell ``u``, the greatest common
divisor of every pay and the total bet); :meth:`DrawLaw.tail_bounds` takes
thresholds in line bets, exactly (Fractions or integers).

What is computed
----------------
The regular feature started with ``n0`` spins draws one expanding symbol at
its start and one at every award, uniformly over its ``S`` regular symbols
(docs/derivations.md s.4: the draws do not depend on the windows); a symbol
drawn ``c`` times pays its expansion at the multiplier of ``c`` (rule
``expanding_repeat_multiplier``, at most ``max_multiplier``).  A spin's win
given the draw counts ``D`` is ``L + sum_s f(D_s) E_s`` (line win and each
symbol's expansion pay of the window:
:func:`~analytic.features.engines.drawn_expanding.draw_cap.line_expansion_rows`),
a multiple of ``u``.

The forward law runs over the states ``(D, spins left)``: each carries the
law of the win so far on cells ``0 .. M - 1`` of ``u`` line bets plus one
cell ``M`` for every win of at least ``M u`` (``M u`` at least the reach,
:data:`REACH` total bets, or the cap).  A spin is a convolution per award
class: no award goes to ``(D, n - 1)``; an award of ``a`` spins draws a
symbol and goes to ``(D + e_s, n - 1 + a)``, each ``s`` with probability
``1 / S``.  A path awarded spins once its ``draws`` draws are made (the
start's and ``draws - 1`` retriggers') is stopped there: its win so far goes
to the *stopped* law ``T``; a path whose spins run out goes to the
*finished* law ``F``.  Every transition goes to fewer spins at the same
draw count or to one draw more: a DAG, processed draw count by draw count,
spins left descending.

So for a threshold ``c`` (line bets) and ``k = ceil(c / u) <= M``:

    P(W >= c) >= sum_{j >= k} (F_j + T_j)      (a stopped path's win is at least its win so far)
    P(W >= c) <= 1 - sum_{j < k} F_j           (a finished path below k wins below c)

The gap is at most the mass of the stopped paths whose win so far is below
``c``: at most ``P(more than draws - 1 retriggers)``.

Certification (lower bounds only, as :mod:`ladder_cap`)
-------------------------------------------------------
Every stored entry is a lower bound of the exact one, and every step is
monotone in its inputs, so ``F`` and ``T`` are entrywise lower bounds of
the true sub-laws; both formulas above only need that (the upper bound
subtracts a lowered sum from 1).  A spin's law sums ``count / cycle`` (each
rounded, lowered by ``4 u``) per cell, lowered by ``gamma`` of its term
count (Higham, *Accuracy and Stability of Numerical Algorithms*, s.3.1); a
convolution's cells below ``M`` are the FFT product (pocketfft through
numpy, a power-of-two length ``n``) lowered by the a-priori bound
:func:`fft_error`, ``3 d (||x||_2 ||h||_1 + ||x||_1 ||h||_2)`` with ``d = 50
log2(n) 2^-53`` (Higham s.24.1, with the margin :mod:`ladder_cap` takes on
each stage), and clamped at 0; its cell ``M`` is the lowered
product of the two masses minus the raised sum of the cells below (what
the exact lumped convolution puts there); a state's law, a sum of the
contributions reaching it, is lowered by ``gamma`` of their count; the
draw's ``1 / S`` is rounded down.

Cost: ``O(states * n log n)`` with ``states`` the ``(D, spins left)`` pairs
reached, which grow about like ``C(S + draws - 1, draws)`` times the spins
left; on the shipped model (``S = 9``, ``n = 4096``) 3 draws take a few
seconds per start (docs/benchmarks.md).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from analytic.features.engines.drawn_expanding.draw_cap import _gamma, line_expansion_rows

__all__ = ["DrawLaw", "draw_law", "draw_laws", "fft_error", "DRAWS", "REACH"]

U = 2.0 ** -53
#: Draws followed exactly: the start's and ``DRAWS - 1`` retriggers'; a path awarded spins after them
#: is stopped (its win so far kept as a lower bound).
DRAWS = 3
#: The grid covers wins up to this many total bets (or the cap, if lower); larger wins share one cell.
REACH = 1000
#: In a worker process of :func:`draw_laws` only: its jobs (inherited through ``fork``, never pickled);
#: never set in the parent process.
_WORKER_JOBS: list = []


class DrawLaw:
    """Lower-bound laws of one regular feature start: finished paths ``F``, stopped paths ``T``.

    Attributes
    ----------
    u : int
        Cell width, line bets.
    M : int
        Cells ``0 .. M - 1`` hold wins ``j u``; cell ``M`` every win of at least ``M u``.
    F, T : ndarray, shape (M + 1,)
        Entrywise lower bounds of the sub-laws of the win of the finished paths and of the win so
        far of the stopped ones.
    draws, n0, states : int
        Draws followed, the start's spins, the ``(D, spins left)`` states solved.
    """

    def __init__(self, F: np.ndarray, T: np.ndarray, u: int, draws: int, n0: int, states: int):
        self.F, self.T, self.u, self.M = F, T, int(u), len(F) - 1
        self.draws, self.n0, self.states = draws, n0, states
        m = self.M + 2
        # lo[k] <= sum_{j >= k} (F_j + T_j); cum[k] <= sum_{j < k} F_j  (float sums lowered)
        both = np.concatenate([np.cumsum((F + T)[::-1])[::-1], [0.0]])
        self._lo = np.maximum(both * (1 - _gamma(2 * m)), 0.0)
        self._cum = np.concatenate([[0.0], np.cumsum(F)]) * (1 - _gamma(m))

    @property
    def stopped(self) -> float:
        """The stopped paths' mass (a lower bound), for the record."""
        return float(self.T.sum())

    def tail_bounds(self, cs) -> tuple[np.ndarray, np.ndarray]:
        """``(lo, hi)`` of ``P(W >= c)`` for each threshold ``c`` of ``cs`` (line bets, exact numbers).

        A threshold beyond the grid (``ceil(c / u) > M``) or at most 0 gets the trivial ``(0, 1)``.
        """
        lo, hi = np.zeros(len(cs)), np.ones(len(cs))
        for i, c in enumerate(cs):
            k = math.ceil(Fraction(c) / self.u)
            if 0 < k <= self.M:
                lo[i] = self._lo[k]
                hi[i] = min(1.0, math.nextafter(1.0 - self._cum[k], math.inf))
        return lo, hi


def _lumped_convolutions(x: np.ndarray, spec: np.ndarray, h_tot: np.ndarray, h_norm: np.ndarray,
                         h_one: np.ndarray, nfft: int) -> np.ndarray:
    """Lower bounds of the lumped convolutions of ``x`` with each spin law (rows of the result).

    ``x``: shape (M + 1,), cell ``M`` the lump; ``spec``: the spin laws' spectra of their cells below
    ``M`` (rows), ``h_tot`` their masses (lowered), ``h_norm`` and ``h_one`` their cells' 2- and
    1-norms (raised).  Each cell below ``M`` is lowered by the bound of :func:`fft_error`.
    """
    M = len(x) - 1
    xg = x[:M]
    y = np.fft.irfft(np.fft.rfft(xg, nfft)[None, :] * spec, nfft)[:, :M]
    xn = math.sqrt(float(xg @ xg)) * (1 + _gamma(M + 2))
    x1 = float(xg.sum()) * (1 + _gamma(M + 2))
    err = fft_error(nfft, xn, x1, h_norm, h_one)  # per class
    out = np.empty((len(spec), M + 1))
    out[:, :M] = np.maximum(y - err[:, None], 0.0)
    grid_hi = (y.sum(axis=1) + M * err) * (1 + _gamma(M + 1)) + M * err * 1e-12  # >= the cells' exact sum
    x_tot = float(x.sum()) * (1 - _gamma(M + 2))
    out[:, M] = np.maximum(x_tot * h_tot * (1 - 4 * U) - np.maximum(grid_hi, 0.0), 0.0)
    return out


def fft_error(n: int, x2, x1, h2, h1):
    """A bound of every entry's error of the convolution of ``x`` and ``h`` computed by FFT of length ``n``.

    ``x2, x1`` (``h2, h1``): upper bounds of the 2- and 1-norms of ``x`` (``h``); arrays broadcast.
    Returns ``3 d (||x||_2 ||h||_1 + ||x||_1 ||h||_2) (1 + 1e-6)`` with ``d = 50 log2(n) 2^-53``.

    Derivation (Higham, *Accuracy and Stability of Numerical Algorithms*, Theorem 24.2: a computed
    FFT is within ``d ||F v||_2`` of the exact one in the 2-norm, ``d = log2(n) eta / (1 - log2(n)
    eta)`` with ``eta`` about 6 units of roundoff per stage; ``50 log2(n) u`` grants each stage about
    eight times that, as :mod:`ladder_cap` does).  With ``X = F x``, ``H = F h`` (``||X||_2 = sqrt(n)
    ||x||_2``, ``||X||_inf <= ||x||_1``), the product's error is at most ``||dX||_2 ||H||_inf + ||X||_inf
    ||dH||_2`` plus its own rounding (``sqrt(2) gamma_2 |X||H|``, Higham Lemma 3.5), the inverse
    transform divides 2-norms by ``sqrt(n)`` and adds ``d`` times its result: in all at most ``d
    ||x||_2 ||h||_1 + (2 d + sqrt(2) gamma_2) ||x||_1 ||h||_2`` plus terms of order ``d^2``, below the
    bound returned; every entry's error is at most the error vector's 2-norm.
    """
    d = 50 * math.log2(n) * U
    return 3 * d * (np.asarray(x2) * np.asarray(h1) + np.asarray(x1) * np.asarray(h2)) * (1 + 1e-6)


def _add(states: dict, n: int, y: np.ndarray) -> None:
    """Add the contribution ``y`` to state ``n`` of ``states`` (a copy when it is the first)."""
    hit = states.get(n)
    if hit is None:
        states[n] = [y.copy(), 1]
    else:
        hit[0] += y
        hit[1] += 1


def draw_law(st, n0: int, *, draws: int = DRAWS, reach_cells: int | None = None, cap_line_bets=None) -> DrawLaw:
    """The forward law of the regular feature (spin statistics ``st``, variant "draws") from ``n0`` spins.

    Parameters
    ----------
    st : SpinStats
        :func:`~analytic.features.engines.drawn_expanding.spin_stats.spin_stats` of the feature
        (its joint rows of award, expansion pays and line win are read).
    n0 : int
        Spins at the start.
    draws : int
        Draws followed exactly (module docstring); at least 1.
    reach_cells : int, optional
        ``M`` (default: :data:`REACH` total bets, or ``cap_line_bets`` if lower, in cells).
    cap_line_bets : number, optional
        The win cap in line bets, if any.

    Returns
    -------
    DrawLaw

    Raises
    ------
    ValueError
        ``draws`` below 1 or ``n0`` below 1.
    """
    if draws < 1 or n0 < 1:
        raise ValueError(f"draw_law: draws {draws} and n0 {n0} must be at least 1")
    from analytic.features.engines.drawn_expanding.engine import multiplier_of_count

    A, E, L, cnt = line_expansion_rows(st)
    tb = int(st.tb)
    u = int(np.gcd.reduce(np.concatenate([L, E.ravel(), [tb]])))
    if reach_cells is None:
        top = REACH * tb if cap_line_bets is None else min(REACH * tb, Fraction(cap_line_bets))
        reach_cells = max(1, math.ceil(Fraction(top) / u))
    M = int(reach_cells)
    nfft = 1 << max(1, (2 * M - 1 - 1).bit_length())
    S = E.shape[1]
    p = cnt / float(st.cycle) * (1 - 4 * U)
    awards = sorted(set(int(a) for a in A.tolist()))
    by_award = [A == a for a in awards]
    shrink = 1 - _gamma(len(p) + 1)

    tables: dict = {}

    def spin(D):
        """Spectra, masses and norms of the spin laws of draw counts ``D``, one row per award class."""
        hit = tables.get(D)
        if hit is not None:
            return hit
        w = L.astype(np.int64)
        for s, c in enumerate(D):
            if c:
                w = w + multiplier_of_count(c, st.reading, st.ceiling) * E[:, s]
        k = np.minimum(w // u, M)
        h = np.stack([np.bincount(k[sel], weights=p[sel], minlength=M + 1) for sel in by_award]) * shrink
        tot = h.sum(axis=1) * (1 - _gamma(M + 2))
        norm = np.sqrt(np.einsum("ij,ij->i", h[:, :M], h[:, :M])) * (1 + _gamma(M + 2))
        one = h[:, :M].sum(axis=1) * (1 + _gamma(M + 2))
        hit = tables[D] = (np.fft.rfft(h[:, :M], nfft, axis=1), tot, norm, one)
        return hit

    share = math.nextafter(1.0 / S, 0.0) * (1 - 2 * U)
    F = np.zeros(M + 1)
    T = np.zeros(M + 1)
    nF = nT = 0
    # level: D -> {spins left: [law, terms]} for the states with the current draw count
    level: dict = {}
    for s in range(S):
        x = np.zeros(M + 1)
        x[0] = share
        level[tuple(int(i == s) for i in range(S))] = {n0: [x, 1]}
    solved = 0
    d = 1
    while level:
        nxt: dict = {}
        for D in sorted(level):
            spec, tot, norm, one = spin(D)
            here = level[D]
            while here:
                n = max(here)
                x, terms = here.pop(n)
                solved += 1
                x = x * (1 - _gamma(terms + 1)) if terms > 1 else x
                if n == 0:
                    F += x
                    nF += 1
                    continue
                y = _lumped_convolutions(x, spec, tot, norm, one, nfft)
                for i, a in enumerate(awards):
                    if a == 0:
                        _add(here, n - 1, y[i])
                    elif d >= draws:
                        T += y[i]
                        nT += 1
                    else:
                        part = y[i] * share
                        for s in range(S):
                            _add(nxt.setdefault(tuple(c + (j == s) for j, c in enumerate(D)), {}), n - 1 + a, part)
        level = nxt
        d += 1
    F *= 1 - _gamma(nF + 1)
    T *= 1 - _gamma(nT + 1)
    return DrawLaw(F, T, u, draws, n0, solved)


def _init_worker(jobs) -> None:
    """Worker initializer of :func:`draw_laws`: the jobs, named by index."""
    _WORKER_JOBS[:] = list(jobs)


def _job(i: int) -> DrawLaw:
    st, n0, kw = _WORKER_JOBS[i]
    return draw_law(st, n0, **kw)


def draw_laws(jobs, workers: int = 1) -> list:
    """:func:`draw_law` of each job ``(st, n0, kwargs)``, in order, in up to ``workers`` processes.

    Each law is computed by the same code in one process, wherever it runs, so the results do not
    depend on ``workers``; the jobs are handed out longest first (most spins at the start).  The
    spin statistics should hold their joint rows already (built once here, inherited by ``fork``).
    """
    jobs = list(jobs)
    if workers <= 1 or len(jobs) <= 1:
        return [draw_law(st, n0, **kw) for st, n0, kw in jobs]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    for st, _n0, _kw in jobs:
        line_expansion_rows(st)  # (once here, not in every worker)
    order = sorted(range(len(jobs)), key=lambda i: -jobs[i][1])
    with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=multiprocessing.get_context("fork"),
                             initializer=_init_worker, initargs=(jobs,)) as pool:
        futures = {i: pool.submit(_job, i) for i in order}
        return [futures[i].result() for i in range(len(jobs))]
