"""Engine ``drawn_expanding``: the capped law of the ladder with golden reels (exact grid, certified lower bounds).

Units: the win grid ``u`` (line-bet units, the gcd of every line win and
expansion pay, 5 on the shipped model); the cap ``C`` (total-bet multiples)
is grid index ``N = ceil(C * total_bet / u)``: index ``i < N`` means a win
``i u < C``.

Method
------
The feature's state is ``(pl, G, K)``: pseudo-level ``pl`` (the ladder level
of :func:`moments._ladder`; beyond the top level, the top symbol
at the ceiling ``max_multiplier``, ``pl`` keeps counting the awards, up to
``J`` more), golden mask
``G``, spins left ``K <= Kmax``.  Every transition lowers ``K`` within a
level or raises ``pl``, so the states form a DAG.  Backward over it, each
state ``sigma`` gets

* ``h_sigma[i]``: probability that the rest of the feature pays ``i u``
  (``i < N``), and
* ``cap_sigma``: probability that it pays ``>= C``,

by ``h_sigma = sum_e x_e * h_t(e)`` truncated below ``N`` (``x_e[i]``: the
joint probability of the spin's class leading to target ``t(e)`` and of the
spin paying ``i u``), the overflow and the spins paying ``>= C`` themselves
added to ``cap``.  Products are FFT convolutions (pocketfft, through numpy and scipy; the
spectra's products summed by :mod:`ladder_cap_kernel`, the same IEEE operations as numpy's).

Certification (no error analysis of the solution, only lower bounds)
--------------------------------------------------------------------
Every stored number is a *lower bound* of the true one: a spin's law (sums of
``count / cycle`` per cell) is lowered by its float sums' error; a convolution's
entries are lowered by the a-priori FFT error bound ``gamma ||x||_2
||h||_2`` (open, found in session 23's review: this product of 2-norms is
not a proven bound of an FFT convolution's entries; the proven form,
:func:`~analytic.features.engines.drawn_expanding.draw_law.fft_error`, ``3
gamma (||x||_2 ||h||_1 + ||x||_1 ||h||_2)``, which ``draw_law`` uses, widens
the Power Bet's capped RTP interval from +/-1.8e-7 to +/-2.2e-6 and this
law's total variation bound from 5.6e-9 to 1.3e-7; measured errors of
exact-checked convolutions stay below 0.4 % of the bound used here)
(``gamma = 50 log2(n) 2^-53``, n the FFT length; Higham,
*Accuracy and Stability of Numerical Algorithms*, s.24.1, with a wide
margin: there a radix-2 stage adds a relative error ``eta`` of about 6
units of roundoff, ``log2(n) eta`` in all; ``n`` is the smallest length
>= ``2N - 1`` of factors 2, 3 and 5, 60000 on the shipped model, whose radix-3
and radix-5 stages (a size-r DFT, norm ``sqrt(r)``, each output a sum of
``r`` products) add about ``sqrt(r) gamma_{r+2}``, some 16 units for the
radix 5, against the 50 log2(r) that ``gamma`` grants them) and clamped at 0; the overflow mass is the (lowered) product mass
minus the (raised) kept mass.  States whose probability of being reached is
below ``SKIP`` are not solved (``h = 0``), paths beyond ``Kmax`` or ``J``
are dropped; the float sums that build a state's ``h`` and ``cap`` from
these lower bounds are lowered by ``gamma`` of their term count.  All of this only loses mass, and the lost mass
``1 - sum h - cap`` of a start state is known, so

    E[min(B + F, C)] in [S, S + lost * C],   P(B + F >= C) in [P, P + lost],

with ``S = sum_i h_i min(B + i u, C) + cap C`` and ``P`` the kept mass at
``B + i u >= C`` plus ``cap`` (lowered / raised for the final float sums
by ``rel = gamma_{N+1} + 1e-12``: a float sum of ``n`` nonnegative terms is
within ``gamma_n`` times itself of the exact one, Higham s.3.1; the norms'
squares are raised by the same factor, and the sum of FFT entries of
either sign by ``rel`` times the sum of their absolute values).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from analytic.features.engines.drawn_expanding.draw_cap import _gamma
from analytic.features.engines.drawn_expanding import ladder_cap_kernel as lk

__all__ = ["PowerCapLaw", "power_cap_law", "dot_halves"]

U = 2.0 ** -53
#: States reached with less probability are not solved.  On the shipped model 1e-13 / 1e-12 / 1e-11
#: solve 13500 / 12098 / 10670 states; the 10-spin start's interval is 8.23e-5 / 8.26e-5 / 8.53e-5
#: bet wide (20 spins: 1.13e-4 / 1.17e-4 / 1.67e-4): below 1e-12 the FFT error bounds dominate.
SKIP = 1e-12
#: Threads of one law build by default (its batched FFTs and its rows' spectrum products); a caller
#: whose process shares the cores with worker processes (the prefetch) keeps one.
WORKERS = 1


#: Awards kept beyond the ladder's top level.  On the shipped model the paths cut there were most
#: of the lost mass: per 10-spin start 1.14e-8 at J = 8, 5.5e-9 at 12 (then mostly the FFT error
#: bounds), for 8 % more states.
J_AWARDS = 12


#: Largest number of spins left kept by default (or three times the largest start, if larger).
KMAX = 110


def dot_halves(a: np.ndarray, b: np.ndarray) -> float:
    """The float dot product of two 1-D arrays as the sum of two: the first ``ceil(n / 2)`` entries, and the rest.

    Each half is one BLAS dot (one sequential sum when BLAS runs one
    thread); the split is fixed, so the result depends neither on the
    machine's cores nor on the BLAS thread count it would otherwise choose
    (with two threads, OpenBLAS's own split of a long dot is this one, so the
    figures are those of a 2-core machine).  A float sum in any order is
    within ``gamma_n`` of the exact sum (Higham s.3.1), the bound the callers
    already allow for.
    """
    m = (len(a) + 1) // 2
    return float(a[:m] @ b[:m]) + float(a[m:] @ b[m:])


def power_cap_law(game, feature: str, Kmax: int | None = None, J: int = J_AWARDS, ws=None,
                  threads: int | None = None) -> "PowerCapLaw":
    """The :class:`PowerCapLaw` of a Power feature, kept in the workspace ``ws`` per feature, ``Kmax``, ``J``.

    ``ws``: the solve's :class:`analytic.workspace.Workspace` of
    ``game`` (None: a fresh one, the law is built again).

    ``Kmax``: largest number of spins left kept (default :data:`KMAX`, or
    three times the largest start when that is larger); ``J``: awards kept
    beyond the ladder's top level; ``threads``: threads of the build (default
    the workspace's ``workers``, the cores this solve may use): the rows of
    one step's batched FFTs and of its spectrum products are shared out, each
    row computed as in one thread, so the law is the same bit for bit.
    Raises ValueError for a feature without golden reels, or a start above
    ``Kmax``.
    """
    if Kmax is None:
        Kmax = max(KMAX, 3 * max(game.features[feature].trigger.counts.values()))
    from analytic.workspace import workspace_for

    ws = workspace_for(game, ws)
    threads = max(1, int(ws.workers if threads is None else threads))
    return ws.memo(("drawn_expanding.power_cap_law", feature, Kmax, J),
                   lambda: PowerCapLaw(game, feature, Kmax, J, ws=ws, threads=threads))


class PowerCapLaw:
    """Lower-bound laws ``(h, cap)`` of the Power feature's win per start spin count (ranks averaged)."""

    def __init__(self, game, feature: str, Kmax: int = KMAX, J: int = J_AWARDS, ws=None, threads: int = WORKERS):
        from threadpoolctl import threadpool_limits

        # one BLAS thread: the only BLAS calls are the norms ``h @ h`` of 30000-entry vectors, which a
        # multi-threaded BLAS splits over its threads (waking them costs ~1 ms a call on a busy machine,
        # and its threads then spin on the cores the FFTs and products need); with one thread the
        # norms are also the same on every machine (a split sums in another order)
        with threadpool_limits(limits=1, user_api="blas"):
            if threads > 1:
                from concurrent.futures import ThreadPoolExecutor

                with ThreadPoolExecutor(threads) as pool:
                    self._build(game, feature, Kmax, J, ws, threads, pool)
            else:
                self._build(game, feature, Kmax, J, ws, 1, None)

    def _build(self, game, feature: str, Kmax: int, J: int, ws, threads: int, pool) -> None:
        from analytic.features.engines.drawn_expanding.moments import _ladder
        from analytic.features.engines.drawn_expanding.spin_stats import spin_stats

        self.game = game
        self._starts: dict = {}
        st = spin_stats(game, feature, ws)
        if st.ng == 0:
            raise ValueError("power_cap_law: feature without golden reels")
        cap = game.cap.total_bet_multiple
        tb = st.tb
        lv = _ladder(st.reading, len(st.ordered), st.ceiling)
        NL = len(lv)
        nsym = len(st.ordered)  # the start rank is uniform over the regular symbols
        NP = NL + J
        NG = st.nmask
        rows_s = st.walk_rows
        # grid unit: gcd of the line wins and of every expansion pay
        g = 0
        for s in st.ordered:
            _, lw, _ = rows_s[s]
            g = math.gcd(g, int(np.gcd.reduce(np.array(lw, dtype=np.int64))))
            for n in range(st.nreels + 1):
                g = math.gcd(g, st._epay(s, n))
        u = g or 1

        Cl = Fraction(cap) * tb  # cap in line-bet units
        N = math.ceil(Cl / u)
        from scipy import fft as sfft

        nfft = sfft.next_fast_len(2 * N - 1, real=True)  # (60000, not 65536: a quarter faster)
        gamma = 50 * math.log2(nfft) * U
        # margin of a float sum of at most N + 1 terms (Higham's gamma_{N+1}, s.3.1), plus 1e-12
        rel = self.rel = 1e-12 + _gamma(N + 1)
        self.u, self.N, self.tb, self.C = u, N, tb, Fraction(cap)
        self.Kmax, self.J = Kmax, J
        cyc = float(st.cycle)
        award = [c[0] for c in st.classes]
        pmask = [c[1] for c in st.classes]

        # per symbol: row class index, line win index, counters for the expansion
        prep = {}
        for s in st.ordered:
            rows, lw, cnt = rows_s[s]
            P = st._pmask(rows)
            ci = st._class_index(rows)
            plain = rows[:, 1 + st.ng]
            gb = rows[:, 2 + st.ng: 2 + 2 * st.ng]
            table = np.array([st._epay(s, k) for k in range(st.nreels + 1)], dtype=np.int64)
            prep[s] = (ci, np.array(lw, dtype=np.int64), np.array(cnt, dtype=float) / cyc, P, plain, gb, table,
                       np.unique(ci))
        award_c = np.array(award, dtype=np.int64)
        pmask_c = np.array(pmask, dtype=np.int64)

        def edges(L: int, G: int) -> dict:
            """target key (a, G') -> (x array < N, lump mass >= N, ||x||_2) for level L's symbol at mask G.

            ``x`` and the lump are lower bounds of the exact masses: each cell is a float sum of
            at most ``rows`` probabilities ``count / cycle`` (each within three roundings: the two
            conversions to float and the division), within ``gx = gamma_{rows + 4}`` of the exact
            sum (Higham s.3.1), so the cells are lowered by ``2 gx`` (covering the product's own
            rounding too).  The norm, an upper bound of the norm of the
            array transformed (the FFT error bound's), is raised besides by ``4 gx``.
            """
            si, m = lv[min(L, NL - 1)]
            s = st.ordered[si]
            ci, lw, pr, P, plain, gb, table, present = prep[s]
            gx = _gamma(len(lw) + 4)
            k = st._reels_showing(G, P, plain, gb)
            x = (lw + m * table[k]) // u
            out: dict = {}
            tgt_c = award_c * NG + (G | pmask_c)  # target per class
            ut = np.unique(tgt_c[present])        # = np.unique(tgt_c[ci])
            inv = np.searchsorted(ut, tgt_c)[ci]
            below = x < N
            flat = np.bincount(inv[below] * N + x[below], weights=pr[below], minlength=len(ut) * N) * (1 - 2 * gx)
            lumps = np.bincount(inv[~below], weights=pr[~below], minlength=len(ut)) * (1 - 2 * gx)
            for i, t in enumerate(ut):
                arr = flat[i * N:(i + 1) * N]
                out[(int(t) // NG, int(t) % NG)] = (
                    arr, float(lumps[i]), float(np.sqrt(float(arr @ arr) * (1 + rel))) * (1 + 1e-12) * (1 + 4 * gx))
            return out

        # reach probabilities (forward, scalar) from every start state, to skip negligible states;
        # one np.add.at per (pl, K): it accumulates in index order, i.e. in the (G, class) order of
        # the plain loop over sources, so the sums are bitwise those of that loop
        starts = sorted(set(game.features[feature].trigger.counts.values()))
        if starts[-1] > Kmax:
            raise ValueError(f"power_cap_law: a start of {starts[-1]} spins exceeds Kmax = {Kmax}")
        p_cls = np.array(st.count, dtype=float) / cyc
        reach = np.zeros((NP, NG, Kmax + 1))
        for K0 in starts:
            reach[0:nsym, 0, K0] += 1.0 / nsym
        gidx = np.arange(NG)
        for pl in range(NP):
            plp_c = pl + (award_c > 0)
            for K in range(Kmax, 0, -1):
                r = reach[pl, :, K]
                gs = gidx[r >= SKIP]
                if not len(gs):
                    continue
                Kp_c = K - 1 + award_c
                ok = np.flatnonzero((Kp_c != 0) & (Kp_c <= Kmax) & (plp_c < NP))
                if not len(ok):
                    continue
                vals = (r[gs][:, None] * p_cls[None, ok]).ravel()
                tp = np.broadcast_to(plp_c[ok][None, :], (len(gs), len(ok))).ravel()
                tg = (gs[:, None] | pmask_c[None, ok]).ravel()
                tk = np.broadcast_to(Kp_c[ok][None, :], (len(gs), len(ok))).ravel()
                np.add.at(reach, (tp, tg, tk), vals)
        self.reach = reach

        from scipy import fft as sfft

        def rfft(a):
            # one thread: numpy's pocketfft, the same transform bit for bit as scipy.fft's (the same C++
            # code; tested), about 40 % faster here, where the input is padded to nfft; more threads:
            # scipy's, which shares the rows out itself
            if threads == 1:
                return np.fft.rfft(a, nfft, axis=-1)
            return sfft.rfft(a, nfft, axis=-1, workers=threads)

        def irfft(a):
            return sfft.irfft(a, nfft, axis=-1, workers=threads)

        idx = np.arange(N, dtype=float)
        nf = nfft // 2 + 1
        Hhat: dict = {}   # (pl, G, K) -> (rfft of h, its address, l2 norm of h, mass of h, cap)
        ecache: dict = {}
        solved = 0
        accbuf = np.empty((NG, nf), dtype=complex)  # the summed products of one (pl, K), reused
        # each spectrum's address, checked once when it is made (the compiled products read them;
        # while a batch is summed its meta's pairs hold every array its addresses point into, and
        # Hhat and ecache drop entries only between levels, never one a batch of this level reads)
        addr = (lambda a: lk.address(a, nf)) if lk.COMPILED else (lambda a: 0)
        acc_addr = [lk.address(row, nf, writeable=True) if lk.COMPILED else 0 for row in accbuf]
        zN = np.zeros(N)
        for pl in range(NP - 1, -1, -1):
            for key in [k for k in Hhat if k[0] > pl + 1]:
                del Hhat[key]
            Ls = min(pl, NL - 1)
            for key in [k for k in ecache if k[0] != Ls]:
                del ecache[key]
            for K in range(1, Kmax + 1):
                todo = [G for G in range(NG) if reach[pl, G, K] >= SKIP]
                if not todo:
                    continue
                meta = []
                for G in todo:
                    if (Ls, G) not in ecache:
                        ed = list(edges(pl, G).items())
                        xh = rfft(np.stack([arr for _, (arr, _, _) in ed]))  # row by row the same as one by one
                        ecache[(Ls, G)] = [(t, arr, lump, n2, xh[j], addr(xh[j]), float(arr.sum()))
                                           for j, (t, (arr, lump, n2)) in enumerate(ed)]
                    pairs = []
                    apairs = []  # their addresses
                    direct = None
                    capm = eps = prod_mass = 0.0
                    for (a, Gp), arr, lump, n2, xh, xa, xm in ecache[(Ls, G)]:
                        capm += lump
                        Kp = K - 1 + a
                        if Kp == 0:
                            if direct is None:
                                direct = arr.copy()  # = 0 + arr
                            else:
                                direct += arr
                            continue
                        plp = pl + (a > 0)
                        tgt = Hhat.get((plp, Gp, Kp)) if (Kp <= Kmax and plp < NP) else None
                        if tgt is None:
                            continue  # lost mass (skipped, cut or award-truncated)
                        th, ta, tn2, tmass, tcap = tgt
                        pairs.append((xh, th))
                        apairs.append((xa, ta))
                        eps += gamma * n2 * tn2
                        prod_mass += xm * tmass
                        capm += xm * tcap * (1 - rel)
                    # eps: a float sum of positive terms (each within 2 ulps), raised for its roundings
                    meta.append((G, direct, capm, eps * (1 + 1e-12), prod_mass, pairs, apairs))
                # acc = sum over the edges of xh * th, in edge order
                live = [j for j, mt in enumerate(meta) if mt[5]]

                def products(rows):
                    if lk.COMPILED:
                        lk.sum_products_at([acc_addr[row] for row in rows], [meta[live[row]][6] for row in rows], nf)
                    else:  # pragma: no cover
                        lk.sum_products([accbuf[row] for row in rows], [meta[live[row]][5] for row in rows])

                if pool is None or len(live) < 2:
                    products(range(len(live)))
                else:  # rows shared out (the compiled loop releases the GIL); each row summed in edge order,
                    # by one thread into its own row of accbuf (the parts are disjoint)
                    list(pool.map(products, [range(i, len(live), threads) for i in range(threads)]))
                fulls = irfft(accbuf[:len(live)])[:, :N] if live else None
                hs = []
                row = 0
                for G, direct, capm, eps, prod_mass, pairs, _ in meta:
                    # h and capm below are float sums of lower bounds (h: the direct arrays and the
                    # clamped difference; capm: a lump and a product per edge, and the overflow
                    # mass), at most ``2 edges + 2`` terms, each addition within one ulp of its
                    # result: lowered by gamma_{2 edges + 4}
                    low = 1 - _gamma(2 * len(ecache[(Ls, G)]) + 4)
                    if pairs:
                        full = fulls[row]
                        row += 1
                        h = full - eps
                        np.maximum(h, 0.0, out=h)
                        # the sum of entries of either sign: its error is within rel times the sum of |entries|
                        kept_hi = (float(full.sum()) + rel * float(np.abs(full).sum()) + N * eps) * (1 + 1e-12)
                        capm += max(prod_mass * (1 - rel) - kept_hi, 0.0)
                        h += zN if direct is None else direct
                    else:
                        h = np.zeros(N) if direct is None else direct
                    hs.append((G, h * low, capm * low))
                hh = rfft(np.stack([h for _, h, _ in hs]))
                for j, (G, h, capm) in enumerate(hs):
                    hm = float(h.sum()) * (1 - rel)
                    Hhat[(pl, G, K)] = (hh[j], addr(hh[j]), float(np.sqrt(float(h @ h) * (1 + rel))) * (1 + 1e-12),
                                        hm, capm)
                    solved += 1
                    if pl < nsym and G == 0 and K in starts:
                        self._starts.setdefault(K, {})[pl] = (h.copy(), capm)
        self.solved = solved
        # start laws: average over the starting ranks
        self.start = {}
        low = 1 - _gamma(nsym + 2)
        for K0 in starts:
            d = self._starts.get(K0, {})
            # averages of nsym lower bounds: float sums and a division, lowered by gamma_{nsym+2}
            h = sum((d[r][0] for r in d), np.zeros(N)) / nsym * low
            c = sum(d[r][1] for r in d) / nsym * low
            self.start[K0] = (h, c)
        del self._starts
        self._idx = idx
        self._sum_tables: dict = {}  # per start: its suffix sums and total (:meth:`_sums`)

    def tail_bounds(self, K0: int, B, xs) -> tuple[np.ndarray, np.ndarray]:
        """Bounds ``(P_lo, P_hi)`` of ``P(B + F >= x)`` for each threshold ``x`` of ``xs`` (total-bet multiples).

        The same certificate as :meth:`capped` at another threshold: the
        kept masses are lower bounds, so ``P(B + F >= x)`` lies in ``[P, P +
        lost]`` with ``P`` the kept mass at ``B + i u >= x`` (cells decided
        exactly in Fractions) plus ``cap`` (``F >= C >= x``), lowered and
        raised by ``rel`` for the float sums (a suffix sum of nonnegative
        terms, within ``gamma_{N+1}`` of itself).  Every ``x`` must be at most the
        cap ``C`` (``ValueError`` otherwise: the law is truncated there).
        ``B`` (a Fraction, or a float taken exactly) the base win.
        """
        h, capm = self.start[K0]
        rel = self.rel
        B = Fraction(B)
        suffix, hsum = self._sums(K0)  # suffix[i] = sum h[i:]
        lost = max(1.0 - (hsum + capm) * (1 - rel), 0.0)
        lo, hi = [], []
        for x in xs:
            x = Fraction(x)
            if x > self.C:
                raise ValueError(f"PowerCapLaw.tail_bounds: threshold {x} above the cap {self.C}")
            first = min(max(math.ceil((x - B) * self.tb / self.u), 0), len(h))
            kept = float(suffix[first]) + capm
            lo.append(min(kept * (1 - rel), 1.0))
            hi.append(min((kept + lost) * (1 + rel), 1.0))
        return np.array(lo), np.array(hi)

    def capped(self, K0: int, B: float = 0.0):
        """``(E_lo, E_hi, P_lo, P_hi)`` of ``min(B + F, C)`` and ``1{B + F >= C}``, total-bet multiples.

        ``B``: the base win, a Fraction (or a float, taken exactly as the binary number it is: pass
        the exact base win, or a float just below ``C - i u / tb`` leaves out that cell's mass).

        The sum ``sum_i h_i min(B + i u, C)`` is taken as two float dot
        products, of the first ``ceil(N / 2)`` cells and of the rest, added
        (:func:`dot_halves`); called with BLAS at one thread (as
        :func:`~analytic.features.engines.drawn_expanding.engine.solve_drawn_expanding_round`
        does), each half is one sequential dot, so the figures do not depend
        on the machine's cores and no BLAS thread is woken per call.  Any
        order of the float sum is within ``rel`` of the exact sum (Higham
        s.3.1), so the certificate is the same.
        """
        h, capm = self.start[K0]
        C = float(self.C)
        w = float(B) + self._idx * (self.u / self.tb)
        # the cells at or above the cap, decided exactly: i u / tb >= C - B
        first = math.ceil((self.C - Fraction(B)) * self.tb / self.u)
        val = np.minimum(w, C)
        rel = self.rel
        hsum = self._sums(K0)[1]
        S = (dot_halves(h, val) + capm * C) * (1 - rel)
        P = (float(h[max(first, 0):].sum()) + capm) * (1 - rel)  # (the cells i >= first, in order)
        lost = max(1.0 - (hsum + capm) * (1 - rel), 0.0)
        return S, (S + lost * C) * (1 + rel) + 1e-300, P, min(P + lost * (1 + rel), 1.0), lost

    def _sums(self, K0: int):
        """``(suffix, h.sum())`` of the start law ``K0``: ``suffix[i] = sum h[i:]`` (with a final 0), kept per start."""
        got = self._sum_tables.get(K0)
        if got is None:
            h = self.start[K0][0]
            got = self._sum_tables[K0] = (np.concatenate([np.cumsum(h[::-1])[::-1], [0.0]]), float(h.sum()))
        return got
