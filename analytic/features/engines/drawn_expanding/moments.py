"""Engine ``drawn_expanding``: first and second moments of the feature, with and without the ladder, certified.

Units: total-bet multiples.  Per-spin inputs: :mod:`spin_stats`.

Regular Free Spins (docs/derivations.md s.4)
--------------------------------
State ``(K, j)``: spins left, awards so far.  The drawn expanding symbols
``D`` are independent of the windows; after ``j`` awards symbol ``s`` has
multiplier ``m_s(j) = f(C_s(j))``, ``C_s(j) ~ Bin(j+1, 1/S)`` (``S`` the
regular symbols, 9 in the rule text; ``f`` capped at the feature's
``max_multiplier``, 9 in the rule text).  A spin of
class ``c`` at level ``j`` has ``E[X | c, D] = l_c + m(j).r_c`` and
``E[X^2 | c, D] = LL_c + 2 m(j).LE_c + sum_{s,r} m_s m_r EE_{sr,c}``.
With ``F_t`` the win after spin ``t`` (state ``(K', j')`` after it),

    E[W^2] = sum_t E[X_t^2] + 2 sum_t E[X_t F_t],
    E[X_t F_t | c, j, K', j'] = sum_d V(K', d) E_D[(l_c + m(j).r_c)(l + m(j'+d).r)]

because spin ``t``'s window acts on the future only through ``c``, and a
later spin's window is fresh (whether it is played is known before it).
``V(K', d)``: expected spins at ``d`` more awards starting with ``K'`` left
(the award law never changes):  ``V(K, d) = [d=0] + p_0 V(K-1, d) +
sum_{a>0} p_a V(K-1+a, d-1)``.  The draw moments are ``g(j) = E[m_s(j)]``,
``G1(j,k) = E[m_s(j) m_s(k)]`` and ``G2(j,k) = E[m_s(j) m_r(k)]`` (``s !=
r``, ``k >= j``), exact multinomial sums.

Power Free Spins (docs/derivations.md s.5)
------------------------------
State ``(lev, G, K)``: ladder level (1..S = symbol rank, then the top
symbol reached again and again, up to its multiplier ``max_multiplier``;
:func:`_ladder`), golden mask, spins left.  Given the class ``c`` the edge
moments are ``l_c + m E_c`` and ``LL_c + 2 m LE_c + m^2 EE_c`` of the ladder
symbol at mask ``G``; the chain (docs/derivations.md s.5 and s.8, :mod:`chain`'s equations
``m1 = r1 + Q m1``, ``m2 = r2 + 2 E[X m1(next)] + Q m2``) is solved as one
sparse system (:func:`power_chain`); :mod:`chain`'s networkx engine solves the
same graph exactly on small games (tests).

Third and fourth moments (Power only, for the cap)
--------------------------------------------------
``W(u) = X + W(v)`` with ``X`` and ``W(v)`` independent given the edge, so
``m3 = r3 + 3 E[X^2 m1(next)] + 3 E[X m2(next)] + Q m3`` and
``m4 = r4 + 4 E[X^3 m1] + 6 E[X^2 m2] + 4 E[X m3] + Q m4``, the edge
moments ``E[X^i | c]`` from the mixed sums ``L^a E_s^b`` of
:mod:`spin_stats` (``SpinStats.moment_x``).  Same factorisation;
each right-hand side carries the lower moments' certified errors.  The cut
paths are added by Minkowski, ``||W||_k <= ||W_kept||_k + ||W_post||_k``,
with ``E[W_post^k] <= P(cut) xmax^k E[T^k]`` (:func:`_tail_moment_bounds`).
Only upper bounds are kept (``info["m3_hi"]``, ``info["m4_hi"]``).

Certification
-------------
*Truncation.*  Paths are cut when the spins left exceed ``Kmax`` (and, for
the regular feature, when the awards exceed ``J``).  ``W = W_pre + W_post``
with ``W_pre`` the wins before the cut, which is what is computed.  After a
cut with ``K`` spins left, ``W_post`` is dominated path by path by the win of
``K`` spins of an i.i.d. feature paying ``X' = L + M sum_s E_s(all golden)``
(multipliers never exceed the ceiling ``M = max_multiplier``, pays grow
with ``n``), whose moments are Wald's
(docs/derivations.md s.3), ``E[X'^2]`` bounded by Cauchy-Schwarz on the pair terms.  So
``E[W] in [m1, m1 + T1]`` and ``E[W^2] in [m2, m2 + 2 sqrt(m2 T2) + T2]``
with ``T1, T2`` the cut mass times those bounds.

*Floating point.*  The regular feature's sums are all of non-negative terms
(no cancellation), each figure a chain of fewer than 10^6 roundings, so its
relative error is below ``10^6 * 2^-53 < 1.2e-10``; we widen by ``REL =
1e-9``.  The Power chain's sparse solve is checked a posteriori: for the
M-matrix ``I - Q`` with ``(I-Q)^{-1} 1 = s`` (expected spins ``<= Kmax /
(1 - E[A])``), ``|x - x~| <= s_max * max|b - (I-Q) x~|``; the residual is
evaluated in floats with its rounding (and the data's) bounded by
``(n + 8) u (|b| + (I + Q)|x~|)``.  The cut probability is certified
componentwise (:func:`_certify_vec`: ``(I-Q)^{-1}`` applied to the residual
bound), so a start state far from the cut gets a bound of its own size
(about 1e-26 with ``Kmax = 240``) rather than ``s_max`` times the largest
residual.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from analytic.features.engines.drawn_expanding.spin_stats import SpinStats

__all__ = ["multiplier_of_count", "draw_moments", "regular_moments", "power_chain", "power_moments",
           "Moments", "REL"]

REL = 1e-9
U = 2.0 ** -53


def multiplier_of_count(c: int, reading: str, ceiling: int) -> int:
    """Multiplier of a symbol drawn (or topped) ``c`` times; 0 = not expanding; capped at ``ceiling``.

    ``reading``: rule ``expanding_repeat_multiplier``; ``ceiling``: the feature's
    ``max_multiplier``.  (The same function as
    :func:`analytic.features.engines.drawn_expanding.engine.multiplier_of_count`.)
    """
    if c <= 0:
        return 0
    return min(c if reading == "count" else max(c - 1, 1), ceiling)


def _kmax(default: int, starts) -> int:
    """Spins-left truncation: ``default``, or three times the largest start when that is larger."""
    return max(default, 3 * max(starts, default=0))


class Moments:
    """Certified intervals of a feature's mean, second moment and expected spins (floats)."""

    def __init__(self, m1, m2, spins, t1, t2, ts, num1=0.0, num2=0.0, nums=0.0, info=None):
        self.m1_lo = m1 * (1 - REL) - num1
        self.m1_hi = (m1 + t1) * (1 + REL) + num1
        cross = 2 * math.sqrt(max(m2, 0) * t2) if t2 > 0 else 0.0
        self.m2_lo = m2 * (1 - REL) - num2
        self.m2_hi = (m2 + cross + t2) * (1 + REL) + num2
        self.s_lo = spins * (1 - REL) - nums
        self.s_hi = (spins + ts) * (1 + REL) + nums
        self.info = info or {}

    def __repr__(self):
        return (f"Moments(mean=[{self.m1_lo:.10g}, {self.m1_hi:.10g}], m2=[{self.m2_lo:.10g}, {self.m2_hi:.10g}], "
                f"spins=[{self.s_lo:.8g}, {self.s_hi:.8g}])")


# --------------------------------------------------------------------------
# draw moments (regular feature)


@lru_cache(maxsize=None)
def draw_moments(J: int, reading: str, nsym: int, ceiling: int):
    """``g[j]``, ``G1[j, k]``, ``G2[j, k]`` for ``0 <= j <= k <= J`` (floats, exact sums).

    Draws uniform over ``nsym`` regular symbols; multipliers capped at ``ceiling``.
    """
    q = 1 / nsym
    f = np.array([multiplier_of_count(c, reading, ceiling) for c in range(J + 3)], dtype=float)

    def binom(n):
        return np.array([math.comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(n + 1)])

    g = np.array([binom(j + 1) @ f[: j + 2] for j in range(J + 1)])
    G1 = np.zeros((J + 1, J + 1))
    G2 = np.zeros((J + 1, J + 1))
    for k_minus_j in range(J + 1):
        bb = binom(k_minus_j)
        # h[b] = E[f(b + B)], B ~ Bin(k-j, q)
        h = np.array([sum(bb[i] * multiplier_of_count(b + i, reading, ceiling) for i in range(k_minus_j + 1))
                      for b in range(J + 2)])
        for j in range(J + 1 - k_minus_j):
            n = j + 1
            pa = binom(n)
            G1[j, j + k_minus_j] = sum(pa[a] * f[a] * h[a] for a in range(n + 1))
            # trinomial (a draws of s, b of r) out of n
            tot = 0.0
            for a in range(1, n + 1):
                for b in range(0, n - a + 1):
                    p = math.comb(n, a) * math.comb(n - a, b) * q ** (a + b) * (1 - 2 * q) ** (n - a - b)
                    tot += p * f[a] * h[b]
            G2[j, j + k_minus_j] = tot
    return g, G1, G2


# --------------------------------------------------------------------------
# dominating i.i.d. feature (tail bounds)


def _dominating(st: SpinStats):
    """Wald moments per starting spin count of the dominating feature: (EX', EW' per K, EW'^2 fn)."""
    p = st.probs()
    a = np.array([c[0] for c in st.classes], dtype=float)
    full = st.nmask - 1
    M = st.ceiling  # no multiplier exceeds it
    # the line win while s expands (all the same unless the literal reading): per class, its
    # largest conditional moments over s bound every state's
    l = np.max([st.f("L1", s) for s in st.ordered], axis=0)
    EX = float(p @ l) + M * sum(float(p @ st.f("E1", s, full)) for s in st.ordered)
    LL = float(p @ np.max([st.f("L2", s) for s in st.ordered], axis=0))
    LE = sum(float(p @ st.f("LE", s, full)) for s in st.ordered)
    SS = sum(math.sqrt(float(p @ st.f("E2", s, full))) for s in st.ordered) ** 2
    EX2 = LL + 2 * M * LE + M * M * SS
    EXA = float(p @ (a * l)) + M * sum(float(p @ (a * st.f("E1", s, full))) for s in st.ordered)
    mu = float(p @ a)
    EA2 = float(p @ (a * a))
    c = EX / (1 - mu)
    var = EX2 + 2 * c * EXA + c * c * EA2 - (EX + c * mu) ** 2

    def w1(K):
        return K / (1 - mu) * EX

    def w2(K):
        T = K / (1 - mu)
        return T * max(var, 0) + (T * EX) ** 2

    return w1, w2, mu


# --------------------------------------------------------------------------
# regular free spins


def regular_moments(st: SpinStats, starts, J: int = 40, Kmax: int | None = None, line_means=None) -> dict:
    """Certified moments of the regular feature for each start spin count in ``starts``.

    ``Kmax`` (spins left kept) defaults to 200, or three times the largest
    start; ``ValueError`` when a start exceeds it.  ``line_means``
    (optional, ``J + 1`` numbers): the mean line win of a spin after ``j``
    awards, used for the mean in place of ``st``'s (the literal reading,
    :func:`~analytic.features.engines.drawn_expanding.line_sets.drawn_line_means`;
    the truncation bound still dominates ``st``'s feature, so ``st``'s line
    wins must be at least those); the second moment stays ``st``'s.
    """
    starts = list(starts)
    Kmax = _kmax(200, starts) if Kmax is None else Kmax
    if max(starts, default=0) > Kmax:
        raise ValueError(f"regular_moments: a start of {max(starts)} spins exceeds Kmax = {Kmax}")
    reading = st.reading
    p = st.probs()
    a = np.array([c[0] for c in st.classes])
    nc = len(p)
    S = st.ordered
    l_c = st.f("L1")
    LL_c = st.f("L2")
    r_sc = np.array([st.f("E1", s) for s in S])          # (symbols, nc)
    E2_sc = np.array([st.f("E2", s) for s in S])
    LE_c = sum(st.f("LE", s) for s in S)
    pair = np.zeros(nc)
    for i, s in enumerate(S):
        for r in S[i + 1:]:
            pair += 2 * st.f("EE", s, 0, r)
    R_c = r_sc.sum(0)
    r_s = r_sc @ p
    l = float(p @ l_c)
    R = float(r_s.sum())
    D_c = r_s @ r_sc                                        # sum_s r_{s,c} r_s
    g, G1, G2 = draw_moments(J + 1, reading, len(S), st.ceiling)
    # V(K, d): expected spins at d more awards from K spins left (paths kept below Kmax)
    p0 = float(p[a == 0].sum())
    aw = [(int(a[c]), float(p[c])) for c in range(nc) if a[c] > 0]
    V = np.zeros((Kmax + 1, J + 2))
    for d in range(J + 2):
        for K in range(1, Kmax + 1):
            v = (1.0 if d == 0 else 0.0) + p0 * V[K - 1, d]
            if d:
                for aa, pa in aw:
                    if K - 1 + aa <= Kmax:
                        v += pa * V[K - 1 + aa, d - 1]
            V[K, d] = v
    # for each (j, j') the d-sums: S0[K', j'], Sg[K', j'], S1[j, K', j'], S2[j, K', j']
    S0 = np.zeros((Kmax + 1, J + 2))
    Sg = np.zeros((Kmax + 1, J + 2))
    for jp in range(J + 1):
        dm = J - jp + 1
        S0[:, jp] = V[:, :dm].sum(1)
        Sg[:, jp] = V[:, :dm] @ g[jp: jp + dm]
    w1, w2, mu = _dominating(st)
    out = {}
    for n0 in starts:
        vis = np.zeros((J + 2, Kmax + 2))
        vis[0, n0] = 1.0
        cut1 = cut2 = cuts = 0.0
        m1 = m2 = spins = 0.0
        for j in range(J + 1):
            for K in range(Kmax, 0, -1):
                x = vis[j, K]
                if not x:
                    continue
                spins += x
                # this spin's own moments
                Q = LL_c + 2 * g[j] * LE_c + G1[j, j] * E2_sc.sum(0) + G2[j, j] * pair
                m1 += x * (float(p @ (l_c + g[j] * R_c)) if line_means is None
                           else float(line_means[j]) + g[j] * float(p @ R_c))
                own = float(p @ Q)
                cross = 0.0
                for c in range(nc):
                    Kp = K - 1 + int(a[c])
                    jp = j + (a[c] > 0)
                    if Kp == 0:
                        continue
                    if Kp > Kmax or jp > J:
                        cut1 += x * p[c] * w1(Kp)
                        cut2 += x * p[c] * w2(Kp)
                        cuts += x * p[c] * Kp / (1 - mu)
                        continue
                    if jp == j:
                        vis[j, Kp] += x * p[c]
                    else:
                        vis[jp, Kp] += x * p[c]
                    dm = J - jp + 1
                    Vd = V[Kp, :dm]
                    t = (l_c[c] * l * S0[Kp, jp] + l_c[c] * R * Sg[Kp, jp] + g[j] * R_c[c] * l * S0[Kp, jp]
                         + D_c[c] * float(Vd @ G1[j, jp: jp + dm])
                         + (R_c[c] * R - D_c[c]) * float(Vd @ G2[j, jp: jp + dm]))
                    cross += p[c] * t
                m2 += x * (own + 2 * cross)
        out[n0] = Moments(m1, m2, spins, cut1, cut2, cuts,
                          info={"J": J, "Kmax": Kmax, "cut_mean_bound": cut1})
    return out


# --------------------------------------------------------------------------
# power free spins


def _ladder(reading: str, nsym: int, ceiling: int):
    """Levels of the Power ladder: ``(symbol rank index 0..nsym-1, multiplier)``; the last is absorbing.

    The ranks first (x1), then the top symbol reached ``c = 2, 3, ...`` times
    (multiplier ``f(c)``, rule ``expanding_repeat_multiplier``) until ``f`` reaches
    the ceiling ``max_multiplier``.  Every ``c`` is a level of its own, also
    where ``f`` does not grow (``count_minus_one``: ``f(2) = f(1) = 1``), since
    the next award moves on from each.
    """
    lv = [(i, 1) for i in range(nsym)]
    c = 1
    while multiplier_of_count(c, reading, ceiling) < ceiling:
        c += 1
        lv.append((nsym - 1, multiplier_of_count(c, reading, ceiling)))
    return lv


def power_chain(st: SpinStats, Kmax: int):
    """Sparse truncated chain of the Power feature.

    Returns
    -------
    dict
        ``M`` (``I - Q``, CSR), ``b1`` (``r1``), ``r2``, edge lists for the
        second-moment right-hand side, ``cut`` (probability of a cut per state),
        index function and sizes.
    """
    from scipy.sparse import csr_matrix, identity

    lv = _ladder(st.reading, len(st.ordered), st.ceiling)
    NL, NG = len(lv), st.nmask
    p = st.probs()
    a = np.array([c[0] for c in st.classes])
    P = np.array([c[1] for c in st.classes])
    nc = len(p)
    # line win while s expands (the same for every s unless the literal reading)
    l_s = {s: st.f("L1", s) for s in st.ordered}
    LL_s = {s: st.f("L2", s) for s in st.ordered}
    E1 = {(s, G): st.f("E1", s, G) for s in st.ordered for G in range(NG)}
    E2 = {(s, G): st.f("E2", s, G) for s in st.ordered for G in range(NG)}
    LE = {(s, G): st.f("LE", s, G) for s in st.ordered for G in range(NG)}
    n = NL * NG * Kmax

    def idx(L, G, K):  # K in 1..Kmax
        return (L * NG + G) * Kmax + (K - 1)

    Ks = np.arange(1, Kmax + 1)
    rows, cols, vals = [], [], []
    b1 = np.zeros(n)
    r2 = np.zeros(n)
    r3 = np.zeros(n)
    r4 = np.zeros(n)
    X3 = {(L, G): st.moment_x(st.ordered[lv[L][0]], lv[L][1], G, 3) for L in range(NL) for G in range(NG)}
    X4 = {(L, G): st.moment_x(st.ordered[lv[L][0]], lv[L][1], G, 4) for L in range(NL) for G in range(NG)}
    e2_w, e3_w = [], []
    cut = np.zeros(n)
    e_rows, e_cols, e_w = [], [], []  # for 2 sum p_e m1_e m1(v)
    for L in range(NL):
        s = st.ordered[lv[L][0]]
        m = lv[L][1]
        l_c, LL_c = l_s[s], LL_s[s]
        for G in range(NG):
            base = idx(L, G, 1) + (Ks - 1)
            for c in range(nc):
                Kp = Ks - 1 + a[c]
                Lp = min(L + 1, NL - 1) if a[c] > 0 else L
                Gp = G | int(P[c])
                e1 = l_c[c] + m * E1[(s, G)][c]
                e2 = LL_c[c] + 2 * m * LE[(s, G)][c] + m * m * E2[(s, G)][c]
                b1[base] += p[c] * e1
                r2[base] += p[c] * e2
                e3, e4 = X3[(L, G)][c], X4[(L, G)][c]
                r3[base] += p[c] * e3
                r4[base] += p[c] * e4
                live = (Kp >= 1) & (Kp <= Kmax)
                cut[base[Kp > Kmax]] += p[c]
                tgt = idx(Lp, Gp, 1) + (Kp[live] - 1)
                rows.append(base[live]); cols.append(tgt); vals.append(np.full(live.sum(), p[c]))
                e_rows.append(base[live]); e_cols.append(tgt); e_w.append(np.full(live.sum(), p[c] * e1))
                e2_w.append(np.full(live.sum(), p[c] * e2)); e3_w.append(np.full(live.sum(), p[c] * e3))
    rows, cols, vals = map(np.concatenate, (rows, cols, vals))
    Q = csr_matrix((vals, (rows, cols)), shape=(n, n))
    er, ec = np.concatenate(e_rows), np.concatenate(e_cols)
    Em = csr_matrix((np.concatenate(e_w), (er, ec)), shape=(n, n))
    Em2 = csr_matrix((np.concatenate(e2_w), (er, ec)), shape=(n, n))
    Em3 = csr_matrix((np.concatenate(e3_w), (er, ec)), shape=(n, n))
    M = (identity(n, format="csr") - Q).tocsr()
    return {"M": M, "Q": Q, "Em": Em, "Em2": Em2, "Em3": Em3, "b1": b1, "r2": r2, "r3": r3, "r4": r4, "cut": cut, "idx": idx, "NL": NL, "NG": NG,
            "Kmax": Kmax, "n": n, "max_nnz": int(np.diff(Q.indptr).max()) + 1}


def _tail_moment_bounds(st: SpinStats, K: int) -> dict:
    """``k -> `` an upper bound of ``E[W_post^k]`` for the win after a cut with ``K`` spins left.

    Every spin pays at most ``xmax = (1 + M) * lines * max pay / total bet``
    (normal win plus the one expansion at the ceiling ``M = max_multiplier``), so ``W_post <= xmax T`` with ``T``
    the remaining spins.  For ``w > 1`` and ``lam = log(w / E[w^A])`` the
    process ``exp(lam t) w^(spins left)`` is a non-negative supermartingale,
    so ``E[exp(lam T)] <= w^K`` (optional stopping, Fatou) and
    ``E[T^k] <= k! w^K / lam^k``; the best of a few ``w`` is kept.
    """
    game = st.game
    maxpay = max(max(p.values()) for p in st.pays.values() if p)
    xmax = (1.0 + st.ceiling) * st.nl * maxpay / float(st.tb)
    p = st.probs()
    a = np.array([c[0] for c in st.classes], dtype=float)
    out = {}
    for k in (3, 4):
        best = math.inf
        for w in (1.0005, 1.001, 1.002, 1.003, 1.005, 1.0075, 1.01, 1.02, 1.05, 1.1):
            Ew = float(p @ (w ** a))
            lam = math.log(w / Ew) if w > Ew else 0.0
            if lam <= 0:
                continue
            best = min(best, math.factorial(k) * math.exp(K * math.log(w)) / lam ** k)
        out[k] = xmax ** k * best * (1 + 1e-6)
    del game
    return out


def _certify(M, Q, x, b, extra_abs, smax, nnz):
    """Bound of ``max|x_true - x|`` for ``M x = b`` (M = I - Q an M-matrix, ``(I-Q)^-1 1 <= smax``)."""
    r = b - M @ x
    gam = (nnz + 8) * U / (1 - (nnz + 8) * U)
    rb = np.abs(r) + gam * (np.abs(b) + np.abs(x) + abs(Q) @ np.abs(x)) + extra_abs
    return smax * float(rb.max())


def _certify_vec(lu, M, Q, x, b, smax, nnz):
    """Componentwise bound of ``|x_true - x|`` for ``M x = b``: ``(I-Q)^-1 rb`` solved, plus its own certificate.

    ``(I - Q)^{-1}`` is non-negative, so ``|x_true - x| <= (I-Q)^{-1} rb`` with
    ``rb`` the bound of the residual; that vector is itself solved with the
    same factorisation and certified with the scalar bound, which only costs
    ``smax * max|residual of rb's solve|`` (tiny).  States far from the cut
    get a bound proportional to their chance of reaching it.
    """
    r = b - M @ x
    gam = (nnz + 8) * U / (1 - (nnz + 8) * U)
    rb = np.abs(r) + gam * (np.abs(b) + np.abs(x) + abs(Q) @ np.abs(x))
    y = lu.solve(rb)
    return np.abs(y) + _certify(M, Q, y, rb, 0, smax, nnz)


def power_moments(st: SpinStats, starts, Kmax: int | None = None) -> dict:
    """Certified moments of the Power feature from ``(rho0 uniform, G = 0, K = n0)`` per ``n0``.

    ``Kmax`` (spins left kept) defaults to 240, or three times the largest
    start; ``ValueError`` when a start exceeds it.
    """
    from scipy.sparse.linalg import splu

    starts = list(starts)
    Kmax = _kmax(240, starts) if Kmax is None else Kmax
    if max(starts, default=0) > Kmax:
        raise ValueError(f"power_moments: a start of {max(starts)} spins exceeds Kmax = {Kmax}")

    ch = power_chain(st, Kmax)
    M, Q = ch["M"], ch["Q"]
    lu = splu(M.tocsc())
    ones = np.ones(ch["n"])
    spins = lu.solve(ones)
    m1 = lu.solve(ch["b1"])
    pcut = lu.solve(ch["cut"])
    rhs2 = ch["r2"] + 2 * (ch["Em"] @ m1)
    m2 = lu.solve(rhs2)
    w1, w2, mu = _dominating(st)
    amax = max(c[0] for c in st.classes)
    smax = (Kmax + amax) / (1 - mu)
    nnz = ch["max_nnz"]
    e_s = _certify(M, Q, spins, ones, 0, smax, nnz)
    e_1 = _certify(M, Q, m1, ch["b1"], 0, smax, nnz)
    e_c = _certify_vec(lu, M, Q, pcut, ch["cut"], smax, nnz)
    # rhs of m2 carries m1's error through 2 Em |e_1|
    em_rowsum = np.asarray(abs(ch["Em"]).sum(1)).ravel()
    e_2 = _certify(M, Q, m2, rhs2, 2 * em_rowsum * e_1, smax, nnz)
    # third and fourth moments: E[(X + W')^k] expanded over the edge moments E[X^i | e]
    rs = lambda E: np.asarray(abs(E).sum(1)).ravel()  # noqa: E731
    rhs3 = ch["r3"] + 3 * (ch["Em2"] @ m1) + 3 * (ch["Em"] @ m2)
    m3 = lu.solve(rhs3)
    e_3 = _certify(M, Q, m3, rhs3, 3 * rs(ch["Em2"]) * e_1 + 3 * em_rowsum * e_2, smax, nnz)
    rhs4 = ch["r4"] + 4 * (ch["Em3"] @ m1) + 6 * (ch["Em2"] @ m2) + 4 * (ch["Em"] @ m3)
    m4 = lu.solve(rhs4)
    e_4 = _certify(M, Q, m4, rhs4, 4 * rs(ch["Em3"]) * e_1 + 6 * rs(ch["Em2"]) * e_2 + 4 * em_rowsum * e_3,
                   smax, nnz)
    idx = ch["idx"]
    out = {}
    Kc = Kmax + amax
    tail_k = _tail_moment_bounds(st, Kc)
    for n0 in starts:
        ids = [idx(L, 0, n0) for L in range(len(st.ordered))]  # start rank uniform, no golden reel
        mm1 = float(np.mean(m1[ids]))
        mm2 = float(np.mean(m2[ids]))
        ss = float(np.mean(spins[ids]))
        pc = float(np.mean(pcut[ids] + e_c[ids]))
        mo = Moments(mm1, mm2, ss, pc * w1(Kc), pc * w2(Kc), pc * Kc / (1 - mu), e_1, e_2, e_s,
                     info={"Kmax": Kmax, "p_cut": pc, "states": ch["n"]})
        # upper bounds of E[W^3], E[W^4]: Minkowski over (paths kept, cut paths' remainder)
        for k, mk, ek in ((3, m3, e_3), (4, m4, e_4)):
            kept = (float(np.mean(mk[ids])) + ek) * (1 + REL)
            mo.info[f"m{k}_hi"] = (kept ** (1 / k) + (pc * tail_k[k]) ** (1 / k)) ** k
        mo.info["m2_hi"] = mo.m2_hi
        out[n0] = mo
    return out
