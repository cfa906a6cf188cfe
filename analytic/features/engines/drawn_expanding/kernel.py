"""Engine ``drawn_expanding``: the compiled inner step of the drawn-symbol cap bounds (one spin on every state's grid law).

Both chains of the regular Free Spins' cap bounds (the upper bound of
:mod:`draw_cap` and the lower bound of :mod:`draw_cap_low`)
spend most of their time in one step: for each state (and comonotone level) the
law ``G`` of the win so far, on the grid ``0..N-1`` (line-bet units ``k u``), is
convolved with the spin law ``H`` of one award class, and the result is split
into the part that stays on the grid and the mass and first moment beyond it.
:func:`spin_step` does that per row in one pass: a direct convolution (sums of
nonnegative products, each entry within ``gamma_{N+1}`` times itself of the
exact value; Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd
ed., s.3.1), then each entry moved by ``scale`` and ``shift`` (raised for the
upper bound, lowered and clamped at 0 for the lower one), with no
``(rows, 2N - 1)`` temporaries and no per-row Python call.  The other step,
summing the transitions into each target state, is :func:`sum_blocks`
(:func:`scatter_add` row by row, no copy of the rows).

Compiled with numba (no fast-math flags: IEEE operations in a fixed order, so
the figures are the same on every run and machine); without numba the same
step runs on numpy (:func:`spin_step_numpy`, also the tests' second opinion).
"""

from __future__ import annotations

import math

import numpy as np

from analytic.engine.linewalk import sorted_unique  # noqa: F401  (the chains' per-batch unique)

__all__ = ["spin_step", "spin_step_numpy", "scatter_add", "sum_blocks", "sorted_unique", "chernoff_rows", "chernoff_rows_numpy",
           "group_pay", "group_pay_numpy", "multiply_gathered", "grid_spin", "mgf_spin", "rank_pack", "COMPILED"]


def spin_step_numpy(G, H, hidx, scale, shift, grid_hi, new):
    """:func:`spin_step` on numpy (one ``numpy.convolve`` per live row): same arguments, same sums up to their rounding."""
    from analytic.features.engines.drawn_expanding.draw_cap import convolve_nonnegative

    R, N = G.shape
    acc = convolve_nonnegative(G, H[hidx])
    total = acc.sum(axis=1)
    out = acc * scale + shift
    np.maximum(out, 0.0, out=out)
    new[:, :N] = out[:, :N]
    return out[:, N:].sum(axis=1), out[:, N:] @ grid_hi, total


try:  # pragma: no branch
    from analytic.engine.jit import load as _load_numba

    _nb = _load_numba()  # numba without its BLAS check (analytic.engine.jit): nothing here calls a BLAS
except ImportError:  # pragma: no cover - numba is a dependency; the numpy step stands in
    _nb = None

if _nb is not None:
    @_nb.njit(cache=True, nogil=True)
    def _spin_step(G, H, hidx, hlen, scale, shift, grid_hi, new, tail, tailm, total):  # pragma: no cover - compiled
        # acc[i] = sum over k = 0, 1, ... of H[k] G[i - k], added in that order from 0.0; what is
        # left out or added in beyond that only adds +0.0 to a nonnegative float (the same bits):
        # the products with a zero entry of H (left out, or added as 0 times G), the products
        # with G's zero padding (short spin laws: all eight terms of an entry in one pass), the
        # entries past the convolution's support (``i >= a + b - 1``: ``acc`` is 0 there) in the
        # total and, where ``shift <= 0`` (``max(0 * scale + shift, 0) = +0.0``), in the tail sums.
        # ``hlen``: H's used lengths per row (empty: found here)
        R, N = G.shape[0], H.shape[1]  # (G may be wider: its first N columns are the laws)
        M = 2 * N - 1
        acc = np.zeros(M)  # all 0 between rows (each row clears what it used)
        g = np.zeros(N)
        gp = np.zeros(M + 7)  # gp[7 + j] = G[r, j], 0 at 7 + j for j < 0 (never written) and a <= j < L
        for r in range(R):
            a = N  # used lengths: up to the last nonzero entry
            while a > 0 and G[r, a - 1] == 0.0:
                a -= 1
            hr = hidx[r]
            if len(hlen):
                b = hlen[hr]
            else:
                b = N
                while b > 0 and H[hr, b - 1] == 0.0:
                    b -= 1
            L = a + b - 1 if a > 0 and b > 0 else 0  # the support of the convolution
            if L > 0 and b <= 8:  # every entry's terms in one pass, k = 0..7 in order (past b: 0 G)
                for j in range(a):
                    gp[7 + j] = G[r, j]
                for j in range(a, L):
                    gp[7 + j] = 0.0
                h0 = H[hr, 0]
                h1 = H[hr, 1] if b > 1 else 0.0
                h2 = H[hr, 2] if b > 2 else 0.0
                h3 = H[hr, 3] if b > 3 else 0.0
                h4 = H[hr, 4] if b > 4 else 0.0
                h5 = H[hr, 5] if b > 5 else 0.0
                h6 = H[hr, 6] if b > 6 else 0.0
                h7 = H[hr, 7] if b > 7 else 0.0
                g0, g1, g2, g3 = gp[7:7 + L], gp[6:6 + L], gp[5:5 + L], gp[4:4 + L]  # g_k[i] = G[i - k]
                g4, g5, g6, g7 = gp[3:3 + L], gp[2:2 + L], gp[1:1 + L], gp[0:L]
                for i in range(L):  # (vectorised over i)
                    v = 0.0
                    v += h0 * g0[i]
                    v += h1 * g1[i]
                    v += h2 * g2[i]
                    v += h3 * g3[i]
                    v += h4 * g4[i]
                    v += h5 * g5[i]
                    v += h6 * g6[i]
                    v += h7 * g7[i]
                    acc[i] = v
            elif L > 0:
                for j in range(a):
                    g[j] = G[r, j]
                for k in range(b):  # the inner loop over the longer law, stride 1 (vectorised)
                    hk = H[hr, k]
                    if hk == 0.0:
                        continue
                    for j in range(a):
                        acc[j + k] += hk * g[j]
            s = 0.0
            for i in range(L):
                s += acc[i]
            for i in range(N):  # (apart from the sums: vectorised)
                v = acc[i] * scale + shift
                if v < 0.0:
                    v = 0.0
                new[r, i] = v
            hi = L if shift <= 0.0 else M
            t = 0.0
            tm = 0.0
            for i in range(N, hi):
                v = acc[i] * scale + shift
                if v < 0.0:
                    v = 0.0
                t += v
                tm += v * grid_hi[i - N]
            tail[r] = t
            tailm[r] = tm
            total[r] = s
            for i in range(L):
                acc[i] = 0.0

    @_nb.njit(cache=True, nogil=True)
    def _grid_columns(S, N, nl, nc, slots, ci, BP, BM, XM, X1, gmass, mean, tail, tailm, total, gam, under,
                      under_top, raise_by, new):  # pragma: no cover - compiled
        R = S.shape[0] // nl
        for r in range(R):
            sl = slots[r]
            for b in range(nl):
                rb = r * nl + b
                hr = (sl * nl + b) * nc + ci
                big_p, big_m, xm, x1 = BP[hr], BM[hr], XM[hr], X1[hr]
                po, so, raise_in = S[rb, N], S[rb, N + 1], S[rb, N + 2]
                gm = gmass[rb]
                cm = xm + big_p
                err = gam * total[rb] + under
                new[rb, N] = ((tail[rb] + gm * big_p) + po * cm) + under
                new[rb, N + 1] = ((((tailm[rb] + mean[rb] * big_p) + gm * big_m) + so * cm) + po * x1) + under_top
                new[rb, N + 2] = (raise_in * cm + 2.0 * err) * raise_by + 1e-15 * ((gm + po) * cm)

    @_nb.njit(cache=True, nogil=True)
    def _mgf_spin(Z, GZ, ids, ci, new):  # pragma: no cover - compiled
        R, nl, K2 = Z.shape
        for r in range(R):
            u = ids[r]
            for b in range(nl):
                m0, m1 = GZ[u, b, ci, 0], GZ[u, b, ci, 1]
                new[r, b, 0] = Z[r, b, 0] * m0
                new[r, b, 1] = Z[r, b, 1] * m0 + Z[r, b, 0] * m1
                for t in range(2, K2):
                    new[r, b, t] = Z[r, b, t] * GZ[u, b, ci, t]

    @_nb.njit(cache=True, nogil=True)
    def _rank_max(raw, ranks, lens, out):  # pragma: no cover - compiled
        # out[i] = max over rows of ranks[i, raw[r, i]]; -1 if every value is in its table, else the column
        # of the first one that is not
        m = ranks.shape[0]
        for i in range(m):
            out[i] = 0
        for r in range(raw.shape[0]):
            for i in range(m):
                v = raw[r, i]
                if v < 0 or v >= lens[i]:
                    return i
                c = ranks[i, v]
                if c > out[i]:
                    out[i] = c
        return -1

    @_nb.njit(cache=True, nogil=True)
    def _rank_pack(raw, ranks, shifts, last, last_shift, pk):  # pragma: no cover - compiled
        m = ranks.shape[0]
        for r in range(raw.shape[0]):
            k = last[r] << last_shift
            for i in range(m):
                k |= ranks[i, raw[r, i]] << shifts[i]
            pk[r] = k

    COMPILED = True
else:  # pragma: no cover
    COMPILED = False


_NO_LENGTHS = np.zeros(0, dtype=np.int64)


def spin_step(G, H, hidx, scale, shift, grid_hi, new):
    """One spin on every row's grid law: ``(tail, tail_moment, total)``; ``new[:, :N]`` filled.

    Shapes: ``G (R, N)`` the rows' laws on the grid (nonnegative), ``H (M, N)``
    spin laws, ``hidx (R,)`` the spin law of each row (an index into ``H``),
    ``grid_hi (N - 1,)`` the values ``(N + i) u`` beyond the grid (line bets),
    ``new (R, W >= N)`` written in its first ``N`` columns.  With ``acc`` the
    computed direct convolution ``G[r] * H[hidx[r]]`` (``2N - 1`` entries) and
    ``out = max(acc * scale + shift, 0)``: ``new[r, :N] = out[:N]``,
    ``tail[r] = sum(out[N:])``, ``tail_moment[r] = sum(out[N:] * grid_hi)``,
    ``total[r] = sum(acc)`` (float sums).  Every ``acc`` entry is a sum of at
    most ``N`` nonnegative products, within ``gamma_{N+1}`` times itself of the
    exact value, up to ``(N + 1) 2^-1074`` of underflow; a row whose ``G`` or
    spin law is all zero has ``acc = 0``.

    Raises ``ValueError`` when the shapes disagree, ``hidx`` leaves ``H`` or
    ``new`` is not float64 (the compiled loop checks no bounds).
    """
    G = np.ascontiguousarray(G, dtype=np.float64)
    R, N = G.shape
    H = np.asarray(H)
    hidx = np.asarray(hidx)
    if (H.ndim != 2 or H.shape[1] != N or new.dtype != np.float64 or new.ndim != 2 or new.shape[0] != R
            or new.shape[1] < N or hidx.shape != (R,) or len(grid_hi) != N - 1
            or (R and (int(hidx.min()) < 0 or int(hidx.max()) >= len(H)))):
        raise ValueError(f"spin_step: shapes G {G.shape}, H {H.shape}, hidx {hidx.shape}, new {new.shape} "
                         f"{new.dtype}, grid_hi {len(grid_hi)} do not fit (or hidx leaves H)")
    if not COMPILED:  # pragma: no cover
        return spin_step_numpy(G, H, hidx, scale, shift, grid_hi, new)
    tail, tailm, total = np.empty(R), np.empty(R), np.empty(R)
    _spin_step(G, np.ascontiguousarray(H, dtype=np.float64), np.ascontiguousarray(hidx, dtype=np.int64), _NO_LENGTHS,
               float(scale), float(shift), np.ascontiguousarray(grid_hi, dtype=np.float64), new, tail, tailm, total)
    return tail, tailm, total



if _nb is not None:
    @_nb.njit(cache=True, nogil=True)
    def _scatter_add(out, reach_out, pos, rows, w, reach):  # pragma: no cover - compiled
        R, M = rows.shape
        for r in range(R):
            p = pos[r]
            for j in range(M):
                out[p, j] += w * rows[r, j]
            reach_out[p] += w * reach[r]


def scatter_add(out, reach_out, pos, rows, w, reach):
    """``out[pos[r]] += w * rows[r]`` and ``reach_out[pos[r]] += w * reach[r]``, row by row in order.

    Shapes: ``out (T, M)``, ``reach_out (T,)``, ``pos (R,)`` indices into
    ``out``, ``rows (R, M)``, ``reach (R,)``; ``w`` a float.  Each addition
    rounds once, in the order of ``r`` (the order of a sparse matrix product
    over the same rows), summing the transitions into each target state.
    """
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    if not COMPILED:  # pragma: no cover
        for r, p in enumerate(pos):
            out[p] += w * rows[r]
            reach_out[p] += w * reach[r]
        return
    _scatter_add(out, reach_out, np.ascontiguousarray(pos, dtype=np.int64), rows, float(w),
                 np.ascontiguousarray(reach, dtype=np.float64))


if _nb is not None:
    @_nb.njit(cache=True, nogil=True)
    def _scatter_add_ids(out, reach_out, uniq, bid, rows, w, reach):  # pragma: no cover - compiled
        # _scatter_add at pos = searchsorted(uniq, bid) (bid's ids are all in the sorted uniq)
        R, M = rows.shape
        for r in range(R):
            x = bid[r]
            lo, hi = 0, len(uniq)
            while lo < hi:
                mid = (lo + hi) >> 1
                if uniq[mid] < x:
                    lo = mid + 1
                else:
                    hi = mid
            for j in range(M):
                out[lo, j] += w * rows[r, j]
            reach_out[lo] += w * reach[r]


def sum_blocks(blocks):
    """Sum transitions per target state: ``(ids, sums, reach)``.

    ``blocks``: ``(ids (R,), rows (R, ...), w, reach (R,) or None)`` each, the
    rows of ``R`` transitions into the states ``ids`` with weight ``w`` (a
    float).  Returns the distinct ids in increasing order, the sum of
    ``w * rows`` per id (shape ``(ids,) + rows.shape[1:]``) and of ``w *
    reach`` (zeros where ``reach`` is None), added block by block and row by
    row (:func:`scatter_add`: no copy of the rows, no sort).
    """
    ids = np.concatenate([blk[0] for blk in blocks])
    shape = blocks[0][1].shape[1:]
    if len(ids) == 0:
        return ids, np.zeros((0,) + shape), np.zeros(0)
    uniq = sorted_unique(ids)
    out = np.zeros((len(uniq), math.prod(shape)))
    reach = np.zeros(len(uniq))
    for bid, rows, w, rch in blocks:
        rows = rows.reshape(len(bid), -1)
        rch = np.zeros(len(bid)) if rch is None else rch
        if COMPILED and bid.dtype == np.int64 and rows.dtype == np.float64 and rows.flags.c_contiguous \
                and rch.dtype == np.float64 and rch.flags.c_contiguous:
            # (what scatter_add calls at pos = searchsorted(uniq, bid), the search in the same loop)
            _scatter_add_ids(out, reach, uniq, np.ascontiguousarray(bid), rows, float(w), rch)
        else:
            scatter_add(out, reach, np.searchsorted(uniq, bid), rows, w, rch)
    return uniq, out.reshape((len(uniq),) + shape), reach


if _nb is not None:
    @_nb.njit(cache=True, nogil=True)
    def _chernoff_rows(T0, T1, A, th, cs, out):  # pragma: no cover - compiled
        rows, K = A.shape
        for k in range(len(cs)):
            c = cs[k]
            m = c if c < 0.0 else 0.0
            s = 0.0
            for i in range(rows):
                part = T1[i] - m * T0[i]
                if part < 0.0:
                    part = 0.0
                if K:
                    best = np.inf
                    for t in range(K):
                        v = A[i, t] - th[t] * c
                        if v < best:  # (a NaN never wins: as +inf)
                            best = v
                    e = np.exp(best)
                    if e < part:
                        part = e
                s += part
            out[k] = s


def chernoff_rows(T, th, cs):
    """``sum_i min(max(T_i1 - min(c, 0) T_i0, 0), min_theta exp(log T_i(theta) - theta c - 1) / theta)`` per ``c``.

    ``T (rows, 2 + K)``: per row a mass, a first moment and ``E[exp(theta X)]``
    for the ``K`` thetas ``th``; rows of zero mass are skipped.  Each row is a
    Chernoff bound of ``E[(X - c)+]`` with its own best theta (``(z)+ <=
    exp(theta z - 1) / theta``), capped by the first-moment bound.  Returns an
    array shaped like ``cs``; the rows summed in order.  (The regular cap
    bounds' MGF-mode part, :mod:`draw_cap` item 6.)
    """
    cs = np.asarray(cs, dtype=np.float64)
    T = T[T[:, 0] > 0]
    th = np.asarray(th, dtype=np.float64)
    if len(T) == 0:
        return np.zeros(cs.shape)
    if not COMPILED:  # pragma: no cover
        return chernoff_rows_numpy(T, th, cs)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        A = np.log(T[:, 2:2 + len(th)]) - 1.0 - np.log(th)[None, :]
    out = np.empty(cs.size)
    _chernoff_rows(np.ascontiguousarray(T[:, 0]), np.ascontiguousarray(T[:, 1]), np.ascontiguousarray(A),
                   np.ascontiguousarray(th), np.ascontiguousarray(cs.ravel()), out)
    return out.reshape(cs.shape)


def chernoff_rows_numpy(T, th, cs):
    """:func:`chernoff_rows` on numpy arrays (rows x cs x thetas at once); the same bound up to rounding."""
    cs = np.asarray(cs, dtype=np.float64)
    T = T[T[:, 0] > 0]
    if len(T) == 0:
        return np.zeros(cs.shape)
    part = np.maximum(T[:, 1, None] - np.minimum(cs, 0.0)[None, :] * T[:, 0, None], 0.0)  # rows x cs
    if len(th):
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            v = (np.log(T[:, 2:])[:, None, :] - th[None, None, :] * cs[None, :, None]
                 - 1.0 - np.log(th)[None, None, :])
        v = np.where(np.isnan(v), np.inf, v)
        part = np.minimum(part, np.exp(np.min(v, axis=2)))
    return part.sum(axis=0)


if _nb is not None:
    @_nb.njit(cache=True, nogil=True)
    def _group_pay(E, EM, MS, MM, F, LX, x):  # pragma: no cover - compiled
        R, ng = E.shape
        nid = F.shape[0]
        nl = MS.shape[1]
        for r in range(R):
            for i in range(nid):
                for b in range(nl):
                    v = 0.0
                    for g in range(ng):
                        p = E[r, g] * MS[g, b, F[i, g]]
                        q = EM[r, g] * MM[g, b, F[i, g]]
                        v += q if q < p else p  # numpy.minimum (no NaN here: finite pays and multipliers)
                    x[r, i, b] = v + LX[r]

    @_nb.njit(cache=True, nogil=True)
    def _multiply_gathered(ex, P, idx, shared, out):  # pragma: no cover - compiled
        B, nid, RK = out.shape
        for b in range(B):
            pb = 0 if shared else b
            eb = b if ex.shape[0] > 1 else 0
            for i in range(nid):
                c = idx[i]
                for j in range(RK):
                    out[b, i, j] = ex[eb, i, j] * P[pb, c, j]


def group_pay_numpy(E, EM, MS, MM, F, LX):
    """:func:`group_pay` on numpy (``MS``, ``MM`` per group ``(levels, counts)``): the same floats."""
    x = np.zeros((len(E), len(F), MS[0].shape[0]))
    for g in range(E.shape[1]):
        ms, mm = MS[g][:, F[:, g]].T, MM[g][:, F[:, g]].T  # ids x levels
        x += np.minimum(E[:, g, None, None] * ms[None], EM[:, g, None, None] * mm[None])
    return x + LX[:, None, None]


def group_pay(E, EM, MS, MM, F, LX):
    """A spin's pay bound per row, id and level: ``sum_g min(E MS_g[b, F[i, g]], EM MM_g[b, F[i, g]]) + LX``.

    Shapes: ``E, EM (rows, groups)`` (a group's expansion pay summed over its
    symbols and the largest of them, multiplier 1), ``MS, MM`` one ``(levels,
    counts)`` array per group (the multipliers of a group count, :mod:`draw_cap`
    item 3), ``F (ids, groups)`` the group counts (integers indexing the
    counts), ``LX (rows,)`` the spread line win.  Returns ``(rows, ids,
    levels)`` float64, line-bet units.  The groups' terms are added in order
    from 0.0, then ``LX``: the floats of :func:`group_pay_numpy` (``x = 0; x +=
    minimum(...)`` per group, then ``+ LX``), without its temporaries.

    Raises ``ValueError`` when a count of ``F`` leaves its group's table (the
    compiled loop checks no bounds).
    """
    F = np.ascontiguousarray(F, dtype=np.int64)
    ng = E.shape[1]
    if F.ndim != 2 or F.shape[1] != ng or len(MS) != ng or len(MM) != ng \
            or any(F.shape[0] and (int(F[:, g].min()) < 0 or int(F[:, g].max()) >= MS[g].shape[1]
                                   or MM[g].shape != MS[g].shape) for g in range(ng)):
        raise ValueError(f"group_pay: counts F {F.shape} do not fit the {ng} groups' multiplier tables")
    if not COMPILED:  # pragma: no cover
        return group_pay_numpy(E, EM, MS, MM, F, LX)
    nl, kmax = MS[0].shape[0], max(m.shape[1] for m in MS)
    MSp, MMp = np.zeros((ng, nl, kmax)), np.zeros((ng, nl, kmax))
    for g in range(ng):
        MSp[g, :, :MS[g].shape[1]] = MS[g]
        MMp[g, :, :MM[g].shape[1]] = MM[g]
    x = np.empty((len(E), len(F), nl))
    _group_pay(np.ascontiguousarray(E, dtype=np.float64), np.ascontiguousarray(EM, dtype=np.float64), MSp, MMp,
               F, np.ascontiguousarray(LX, dtype=np.float64), x)
    return x


def multiply_gathered(ex, P, idx, shared: bool, out=None):
    """``ex * P[0 if shared else b, idx]`` per level ``b``: into ``out`` (None: ``ex`` in place), returned.

    Shapes: ``ex (B or 1, ids, ...)`` float64, ``P (B or 1, counts, ...)``
    with the same trailing shape, ``idx (ids,)`` integers into ``P``'s
    counts, ``out (B, ids, ...)`` C-contiguous (``ex`` with one level is
    broadcast over ``out``'s).  Each entry is one IEEE product, as ``ex *
    P[:, idx]`` or ``ex * P[0, idx]`` computes it (overflow gives ``inf``,
    ``inf * 0`` NaN, as there), without the gathered copy of ``P``.

    Raises ``ValueError`` when the shapes disagree or ``idx`` leaves ``P``.
    """
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    out = ex if out is None else out
    if (ex.dtype != np.float64 or out.dtype != np.float64 or not ex.flags.c_contiguous
            or not out.flags.c_contiguous or ex.shape[1:] != out.shape[1:] or ex.shape[0] not in (1, out.shape[0])
            or P.ndim != ex.ndim or P.shape[2:] != ex.shape[2:] or idx.shape != (ex.shape[1],)
            or (not shared and P.shape[0] != out.shape[0])
            or (len(idx) and (int(idx.min()) < 0 or int(idx.max()) >= P.shape[1]))):
        raise ValueError(f"multiply_gathered: shapes ex {ex.shape}, P {P.shape}, idx {idx.shape}, out {out.shape} "
                         "do not fit")
    if not COMPILED:  # pragma: no cover
        with np.errstate(over="ignore", invalid="ignore"):
            np.multiply(ex, P[:1, idx] if shared else P[:, idx], out=out)
        return out
    B, nid = out.shape[:2]
    _multiply_gathered(ex.reshape(ex.shape[0], nid, -1),
                       np.ascontiguousarray(P, dtype=np.float64).reshape(P.shape[0], P.shape[1], -1), idx,
                       bool(shared), out.reshape(B, nid, -1))
    return out


def grid_spin(S, HL, hlen, slots, classes, scale, grid_hi, tables, gmass, mean, gam, under, under_top, raise_by):
    """One spin of each class of ``classes`` on the grid states of the upper bound's chain (:mod:`draw_cap` item 5).

    Shapes: ``S (R, levels, N + 3)`` the states' rows (law on the grid
    ``0..N-1``, then the mass beyond it ``po``, its first moment ``so`` and
    the raise allowance ``raise_in``), ``HL (slots, levels, nc, N)`` the spin
    laws per award class spread on the grid, ``hlen (slots, levels, nc)``
    their used lengths (one past the last nonzero entry; 0: all zero),
    ``slots (R,)`` each state's slot in ``HL`` and in ``tables = (BP, BM, XM,
    X1)`` (each ``(slots, levels, nc)``: the spin's mass and first moment
    beyond the grid, its kept mass, its first moment), ``gmass, mean (R,
    levels)`` the rows' grid mass and mean; ``classes``: class indices.
    Returns one ``new (R, levels, N + 3)`` per class of ``classes``:
    ``new[..., :N]`` and ``(tail, tailm, total)`` of :func:`spin_step`
    (``scale``, shift 0), then, with ``cm = XM + BP`` and ``err = gam * total
    + under``: ``tail + gmass BP + po cm + under``, ``tailm + mean BP + gmass
    BM + so cm + po X1 + under_top`` and ``(raise_in cm + 2 err) raise_by +
    1e-15 (gmass + po) cm`` -- each formula evaluated left to right, one IEEE
    operation at a time, as the same numpy expressions on the arrays evaluate
    it (the floats of the numpy fallback), without the per-class gathers and
    temporaries.

    Raises ``ValueError`` when the shapes disagree, a class is not one of
    ``HL``'s or a slot leaves ``HL``.
    """
    BP, BM, XM, X1 = tables
    R, nl, W = S.shape
    nslot, nl2, nc, N = HL.shape
    slots = np.ascontiguousarray(slots, dtype=np.int64)
    classes = [int(ci) for ci in classes]
    if (W != N + 3 or nl2 != nl or not all(0 <= ci < nc for ci in classes) or slots.shape != (R,)
            or len(grid_hi) != N - 1 or any(t.shape != (nslot, nl, nc) for t in tables)
            or hlen.shape != (nslot, nl, nc) or hlen.dtype != np.int64 or not hlen.flags.c_contiguous
            or gmass.shape != (R, nl) or mean.shape != (R, nl)
            or (R and (int(slots.min()) < 0 or int(slots.max()) >= nslot))):
        raise ValueError(f"grid_spin: shapes S {S.shape}, HL {HL.shape}, slots {slots.shape} do not fit")
    hrow = ((slots[:, None] * nl + np.arange(nl)[None, :]) * nc).ravel()  # row (slot * nl + level) * nc + class
    HLf = HL.reshape(-1, N)
    outs = []
    if not COMPILED:  # pragma: no cover
        po, so, raise_in = S[:, :, N], S[:, :, N + 1], S[:, :, N + 2]
        for ci in classes:
            big_p, big_m, xm, x1 = BP[slots, :, ci], BM[slots, :, ci], XM[slots, :, ci], X1[slots, :, ci]
            cm = xm + big_p
            new = np.empty((R, nl, W))
            tail, tailm, total = (v.reshape(R, nl) for v in spin_step(
                S[:, :, :N].reshape(R * nl, N), HLf, hrow + ci, scale, 0.0, grid_hi, new.reshape(R * nl, W)))
            err = gam * total + under
            new[:, :, N] = tail + gmass * big_p + po * cm + under
            new[:, :, N + 1] = tailm + mean * big_p + gmass * big_m + so * cm + po * x1 + under_top
            new[:, :, N + 2] = (raise_in * cm + 2 * err) * raise_by + 1e-15 * ((gmass + po) * cm)
            outs.append(new)
        return outs
    S2 = np.ascontiguousarray(S, dtype=np.float64).reshape(R * nl, W)
    hl = hlen.reshape(-1)
    gh = np.ascontiguousarray(grid_hi, dtype=np.float64)
    flat = [np.ascontiguousarray(t, dtype=np.float64).reshape(-1) for t in tables]
    gm = np.ascontiguousarray(gmass, dtype=np.float64).reshape(-1)
    mn = np.ascontiguousarray(mean, dtype=np.float64).reshape(-1)
    tail, tailm, total = np.empty(R * nl), np.empty(R * nl), np.empty(R * nl)
    for ci in classes:
        new = np.empty((R * nl, W))
        _spin_step(S2, HLf, hrow + ci, hl, float(scale), 0.0, gh, new, tail, tailm, total)
        _grid_columns(S2, N, nl, nc, slots, ci, *flat, gm, mn, tail, tailm, total, float(gam), float(under),
                      float(under_top), float(raise_by), new)
        outs.append(new.reshape(R, nl, W))
    return outs


def mgf_spin(Z, GZ, ids, ci):
    """One spin of award class ``ci`` on MGF-mode rows (:mod:`draw_cap` item 6): the new rows.

    Shapes: ``Z (R, levels, K + 2)`` per row (mass, first moment, ``E[exp(theta
    X)]`` for ``K`` thetas), ``GZ (ids, levels, classes, K + 2)`` the spin's
    (class mass, ``E[x; class]``, ``E[exp(theta x); class]``), ``ids (R,)``
    the rows' ids.  Returns ``(Z0 m0, Z1 m0 + Z0 m1, Z_t m_t)`` per row and
    level (``m = GZ[id, level, ci]``; one IEEE product or sum each, as the
    numpy expressions; overflow gives ``inf``, ``inf * 0`` NaN).

    Raises ``ValueError`` when the shapes disagree or an id leaves ``GZ``.
    """
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    R, nl, K2 = Z.shape
    if (GZ.ndim != 4 or GZ.shape[1] != nl or GZ.shape[3] != K2 or not 0 <= ci < GZ.shape[2] or ids.shape != (R,)
            or (R and (int(ids.min()) < 0 or int(ids.max()) >= len(GZ)))):
        raise ValueError(f"mgf_spin: shapes Z {Z.shape}, GZ {GZ.shape}, ids {ids.shape} do not fit")
    if not COMPILED:  # pragma: no cover
        g3 = GZ[ids, :, ci]
        new = np.empty_like(Z)
        with np.errstate(over="ignore", invalid="ignore"):
            new[:, :, 0] = Z[:, :, 0] * g3[:, :, 0]
            new[:, :, 1] = Z[:, :, 1] * g3[:, :, 0] + Z[:, :, 0] * g3[:, :, 1]
            new[:, :, 2:] = Z[:, :, 2:] * g3[:, :, 2:]
        return new
    new = np.empty((R, nl, K2))
    _mgf_spin(np.ascontiguousarray(Z, dtype=np.float64), GZ, ids, ci, new)
    return new


def rank_pack(raw, ranks, last):
    """One int64 key per row: each of ``raw``'s first columns by its rank, then ``last``, bit fields in that order.

    Shapes: ``raw (n, >= m)`` nonnegative integers (table indices),
    ``ranks``: ``m`` 1-D integer arrays (``ranks[i][v]`` the rank of value
    ``v`` of column ``i``'s table, ``>= 0``), ``last (n,)`` nonnegative
    integers.  The fields are ``codes_i = ranks[i][raw[:, i]]`` and
    ``last``, each ``w`` bits wide with ``w`` the bit length of its largest
    value (at least 0 bits), the first column in the top bits: the keys
    sort as the rows ``(codes_0, ..., codes_{m-1}, last)`` do
    lexicographically.  Returns ``(keys, widths, shifts)`` (``widths`` and
    ``shifts`` per field, ``m + 1`` of each), or None when the widths add up
    to more than 62 bits.  Exact integer work, the same keys on numpy
    (without numba) as compiled.

    Raises ``IndexError`` for a value of ``raw`` outside its column's table
    (as numpy's indexing does).
    """
    m = len(ranks)
    raw = np.ascontiguousarray(raw, dtype=np.int64)
    last = np.ascontiguousarray(last, dtype=np.int64)
    if raw.ndim != 2 or raw.shape[1] < m or last.shape != (raw.shape[0],):
        raise ValueError(f"rank_pack: raw {raw.shape} with {m} ranked columns and last {last.shape} do not fit")
    lens = np.array([len(t) for t in ranks], dtype=np.int64)
    table = np.zeros((m, int(lens.max(initial=0))), dtype=np.int64)
    for i, t in enumerate(ranks):
        table[i, :len(t)] = t
    top = int(last.max(initial=0))
    if COMPILED:
        mx = np.zeros(m, dtype=np.int64)
        bad = _rank_max(raw, table, lens, mx)
        if bad >= 0:
            col = raw[:, bad]
            v = int(col[(col < 0) | (col >= lens[bad])][0])
            raise IndexError(f"rank_pack: value {v} of column {bad} outside its table of {int(lens[bad])}")
        codes = None
    else:  # pragma: no cover
        codes = [np.asarray(t, dtype=np.int64)[raw[:, i]] for i, t in enumerate(ranks)]
        mx = [int(c.max(initial=0)) for c in codes]
    widths = [int(v).bit_length() for v in mx] + [top.bit_length()]
    if sum(widths) > 62:
        return None
    shifts = [int(v) for v in np.cumsum([0] + widths[:0:-1])[::-1]]  # field i sits at bit shifts[i]
    pk = np.zeros(len(last), dtype=np.int64)
    if codes is None:
        _rank_pack(raw, table, np.array(shifts[:-1], dtype=np.int64), last, shifts[-1], pk)
    else:  # pragma: no cover
        for c, sh in zip(codes + [last], shifts):
            pk |= c << sh
    return pk, widths, shifts
