"""The compiled per-reel step of the joint line walk (:mod:`analytic.engine.linewalk`).

For every (joint id, window) pair of one reel, :func:`line_step` reads the
window's cell on every payline, steps each line's state through the reel's
transition table, sums the settled pays and triggers, and numbers the
resulting tuple of line states through an open-addressing hash table of the
distinct tuples, all in one pass: no ``(joint ids, windows, lines)`` array is
built.  A line in state 0 (settled) is skipped when state 0's table rows are
zero (they are: a settled line stays settled and pays nothing more), so the
work per pair is the number of live lines.  Memory is the ``(joint ids,
windows)`` results plus one row per *distinct* next joint state.

The numbering it returns is the order of first appearance; the walk's later
merges sort, so the final rows do not depend on it
(:func:`analytic.engine.linewalk._kernel_step`).  Only int64 pays reach this kernel (the
walk checks the pay bound against 2**62 first); integer additions only, no
floats.

The fused reel of the walk (:func:`analytic.engine.linewalk._fused_reel`)
uses two more kernels: :func:`reel_outcomes` takes joint states as lists of
live lines (memory and work follow the live lines, not the paylines) and
returns the distinct outcomes of each joint id (windows merged in a small
hash per joint id, so no ``(joint ids, windows)`` arrays; before the last
reel each row's roles are first grouped into classes that step that row's
live lines to the same next states, and windows with the same class in every
row share one look-up of their next joint state), :func:`pack_fused` and
:func:`unpack_keys` pack and unpack the crossing's int64 keys, and
:func:`cross_merge` crosses the partial states with those outcomes and
merges equal packed keys through a hash table (no sort, nothing of size
states x outcomes).  Hash collisions never merge unequal entries: a hash
only finds candidates, which are compared in full.

Compiled with numba on first use and cached on disk (numba loaded by
:func:`analytic.engine.jit.load`, without its BLAS check); the module is imported
only when a reel's work is large enough to repay the import.
"""

from __future__ import annotations

import numpy as np

from analytic.engine.jit import load as _load_numba

_nb = _load_numba()  # numba without its BLAS check (analytic.engine.jit): nothing here calls a BLAS


class WalkTooLarge(MemoryError):
    """A fused reel (:func:`reel_outcomes`, :func:`cross_merge`) would grow an array beyond ``max_entries``
    entries; nothing of the reel is returned."""

__all__ = ["line_step", "reel_outcomes", "cross_merge", "pack_fused", "unpack_keys", "WalkTooLarge"]

_MIX = np.uint64(0x9E3779B97F4A7C15)


@_nb.njit(cache=True, nogil=True)
def _rehash(hashes, n, hsize):  # pragma: no cover - compiled
    """A new open-addressing table of ``hsize`` slots (a power of two) holding rows ``0..n-1`` by their hashes."""
    table = np.full(hsize, -1, dtype=np.int64)
    mask = np.uint64(hsize - 1)
    for i in range(n):
        sl = hashes[i] & mask
        while table[sl] >= 0:
            sl = (sl + np.uint64(1)) & mask
        table[sl] = i
    return table


@_nb.njit(cache=True, nogil=True)
def _line_step(jt, roles, t_next, t_pay, t_trg, last, skip0):  # pragma: no cover - compiled
    nj, nl = jt.shape
    nw = roles.shape[0]
    nxt = np.zeros((nj, nw), dtype=np.int64)
    pay = np.zeros((nj, nw), dtype=np.int64)
    trg = np.zeros((nj, nw), dtype=np.int64)
    cap = 1024
    rows = np.empty((cap, nl), dtype=np.int64)
    hsize = 2048
    table = np.full(hsize, -1, dtype=np.int64)
    hashes = np.empty(cap, dtype=np.uint64)
    buf = np.zeros(nl, dtype=np.int64)
    live = np.empty(nl, dtype=np.int64)
    n = 0
    for j in range(nj):
        # the lines of this joint id that can still change: state 0 stays 0
        # and pays nothing when its table rows are zero (skip0)
        nlive = 0
        for li in range(nl):
            if not (skip0 and jt[j, li] == 0):
                live[nlive] = li
                nlive += 1
        for w in range(nw):
            p = 0
            t = 0
            h = np.uint64(1469598103934665603)
            for q in range(nlive):
                li = live[q]
                s = jt[j, li]
                r = roles[w, li]
                p += t_pay[s, r]
                t += t_trg[s, r]
                if not last:
                    ns = t_next[s, r]
                    buf[li] = ns
                    if ns != 0:  # the hash of a row: its nonzero (line, state) pairs in line order
                        h = (h ^ np.uint64(li)) * _MIX
                        h = (h ^ np.uint64(ns)) * _MIX
            pay[j, w] = p
            trg[j, w] = t
            if last:
                continue
            h ^= h >> np.uint64(33)  # fmix64 (MurmurHash3's finaliser): every bit into the low ones
            h *= np.uint64(0xFF51AFD7ED558CCD)
            h ^= h >> np.uint64(33)
            h *= np.uint64(0xC4CEB9FE1A85EC53)
            h ^= h >> np.uint64(33)
            mask = np.uint64(hsize - 1)
            slot = h & mask
            found = -1
            while True:
                idx = table[slot]
                if idx < 0:
                    break
                if hashes[idx] == h:
                    same = True
                    for li in range(nl):
                        if rows[idx, li] != buf[li]:
                            same = False
                            break
                    if same:
                        found = idx
                        break
                slot = (slot + np.uint64(1)) & mask
            if found < 0:
                if n == cap:
                    cap *= 2
                    r2 = np.empty((cap, nl), dtype=np.int64)
                    r2[:n] = rows[:n]
                    rows = r2
                    h2 = np.empty(cap, dtype=np.uint64)
                    h2[:n] = hashes[:n]
                    hashes = h2
                rows[n] = buf
                hashes[n] = h
                table[slot] = n
                found = n
                n += 1
                if 2 * n > hsize:  # keep the load factor at most 1/2
                    hsize *= 2
                    table = _rehash(hashes, n, hsize)
                    mask = np.uint64(hsize - 1)
            nxt[j, w] = found
        for q in range(nlive):  # back to all zeros for the next joint id
            buf[live[q]] = 0
    if last:
        return nxt, pay, trg, np.zeros((1, nl), dtype=np.int64)
    return nxt, pay, trg, rows[:n].copy()


@_nb.njit(cache=True, nogil=True, inline="always")
def _fmix(h):  # pragma: no cover - compiled
    h ^= h >> np.uint64(33)  # MurmurHash3's finaliser: every bit into the low ones
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    return h


_LOW = np.int64(0xFFFFFFFF)


@_nb.njit(cache=True, nogil=True)
def _reel_outcomes(j_off, j_ent, cells, line_rows, t_next, t_pay, t_trg, last, incc, wts, roles_here,
                   by_class, max_entries):  # pragma: no cover
    nj = j_off.shape[0] - 1
    nw, nrows = cells.shape
    nrole = t_pay.shape[1]
    nrh = roles_here.shape[0]
    # by_class (not last): per joint id, the roles of each row are grouped into classes that step
    # the row's live lines to the same next states; windows with the same class in every row lead
    # to the same next joint state, which is then looked up once (a small table per joint id)
    cls = np.zeros((nrows, nrole), dtype=np.int64)
    sig = np.zeros((nrows, nrole), dtype=np.uint64)
    ksize = 16
    while ksize < 2 * nw:
        ksize *= 2
    kmask = np.uint64(ksize - 1)
    ktab_key = np.full(ksize, -1, dtype=np.int64)
    ktab_val = np.empty(ksize, dtype=np.int64)
    kused = np.empty(nw, dtype=np.int64)
    rstart = np.zeros(nrows + 1, dtype=np.int64)
    # the distinct outcomes (next joint id, pay, triggers, counter class) of each joint id, CSR
    ocap = 64
    while ocap < 4 * nj:
        ocap *= 2
    o_off = np.zeros(nj + 1, dtype=np.int64)
    o_next = np.empty(ocap, dtype=np.int64)
    o_pay = np.empty(ocap, dtype=np.int64)
    o_trg = np.empty(ocap, dtype=np.int64)
    o_inc = np.empty(ocap, dtype=np.int64)
    o_w = np.empty(ocap, dtype=np.int64)
    no = 0
    # the outcomes of one joint id: a small open-addressing table, cleared after each joint id
    lsize = 16
    while lsize < 2 * nw:
        lsize *= 2
    lmask = np.uint64(lsize - 1)
    ltab = np.full(lsize, -1, dtype=np.int64)
    used = np.empty(nw, dtype=np.int64)
    # the distinct next joint states, numbered in order of first appearance: row i is the
    # list r_ent[r_off[i]:r_off[i+1]] of its live lines, (line << 32 | state) in line order
    cap = 1024
    r_off = np.zeros(cap + 1, dtype=np.int64)
    ecap = 8192
    r_ent = np.empty(ecap, dtype=np.int64)
    hsize = 2048
    table = np.full(hsize, -1, dtype=np.int64)
    hashes = np.empty(cap, dtype=np.uint64)
    longest = 1
    for j in range(nj):
        longest = max(longest, j_off[j + 1] - j_off[j])
    sbuf = np.empty(longest, dtype=np.int64)
    rbuf = np.empty(longest, dtype=np.int64)  # a joint id's live entries grouped by row
    # last reel: pay and triggers per (row, role) summed over the live lines of a joint id
    agg_p = np.zeros((nrows, nrole), dtype=np.int64)
    agg_t = np.zeros((nrows, nrole), dtype=np.int64)
    wp = np.empty(nw, dtype=np.int64)
    wt = np.empty(nw, dtype=np.int64)
    n = 0
    for j in range(nj):
        e0 = j_off[j]
        e1 = j_off[j + 1]
        nlive = e1 - e0
        if last:
            if nlive * nrole + nw * nrows < nlive * nw:
                agg_p[:, :] = 0
                agg_t[:, :] = 0
                for q in range(e0, e1):
                    s = j_ent[q] & _LOW
                    rr = line_rows[j_ent[q] >> 32]
                    for ro in range(nrole):
                        agg_p[rr, ro] += t_pay[s, ro]
                        agg_t[rr, ro] += t_trg[s, ro]
                for w in range(nw):
                    p = 0
                    t = 0
                    for rr in range(nrows):
                        ro = cells[w, rr]
                        p += agg_p[rr, ro]
                        t += agg_t[rr, ro]
                    wp[w] = p
                    wt[w] = t
            else:
                for w in range(nw):
                    p = 0
                    t = 0
                    for q in range(e0, e1):
                        s = j_ent[q] & _LOW
                        ro = cells[w, line_rows[j_ent[q] >> 32]]
                        p += t_pay[s, ro]
                        t += t_trg[s, ro]
                    wp[w] = p
                    wt[w] = t
        nkused = 0
        if by_class and not last:
            agg_p[:, :] = 0
            agg_t[:, :] = 0
            sig[:, :] = np.uint64(1469598103934665603)
            rstart[:] = 0
            for q in range(e0, e1):
                rstart[line_rows[j_ent[q] >> 32] + 1] += 1
            for rr in range(nrows):
                rstart[rr + 1] += rstart[rr]
            for q in range(e0, e1):  # entries by row (line order kept within a row); rstart shifted by one row
                rr = line_rows[j_ent[q] >> 32]
                rbuf[rstart[rr]] = j_ent[q]
                rstart[rr] += 1
            for rr in range(nrows - 1, 0, -1):
                rstart[rr] = rstart[rr - 1]
            rstart[0] = 0
            for rr in range(nrows):
                for q in range(rstart[rr], rstart[rr + 1]):
                    li = rbuf[q] >> 32
                    s = rbuf[q] & _LOW
                    for ix in range(nrh):
                        ro = roles_here[ix]
                        agg_p[rr, ro] += t_pay[s, ro]
                        agg_t[rr, ro] += t_trg[s, ro]
                        ns = t_next[s, ro]
                        if ns != 0:
                            sig[rr, ro] = (sig[rr, ro] ^ np.uint64((li << 32) | ns)) * _MIX
                for ix in range(nrh):
                    ro = roles_here[ix]
                    c = ro
                    for iy in range(ix):
                        r2 = roles_here[iy]
                        if cls[rr, r2] == r2 and sig[rr, r2] == sig[rr, ro]:
                            same = True  # a hash only finds candidates: compare the next states in full
                            for q in range(rstart[rr], rstart[rr + 1]):
                                s = rbuf[q] & _LOW
                                if t_next[s, ro] != t_next[s, r2]:
                                    same = False
                                    break
                            if same:
                                c = r2
                                break
                    cls[rr, ro] = c
        nused = 0
        for w in range(nw):
            found = 0
            hit = -1
            key = 0
            ksl = np.uint64(0)
            if by_class and not last:
                p = 0
                t = 0
                for rr in range(nrows):
                    ro = cells[w, rr]
                    key = key * nrole + cls[rr, ro]
                    p += agg_p[rr, ro]
                    t += agg_t[rr, ro]
                ksl = _fmix(np.uint64(key)) & kmask
                while True:
                    kk = ktab_key[ksl]
                    if kk < 0:
                        break
                    if kk == key:
                        hit = ktab_val[ksl]
                        break
                    ksl = (ksl + np.uint64(1)) & kmask
            if last:
                p = wp[w]
                t = wt[w]
            elif hit >= 0:
                found = hit
            else:
                p = 0
                t = 0
                h = np.uint64(1469598103934665603)
                cnt = 0
                for q in range(e0, e1):
                    li = j_ent[q] >> 32
                    s = j_ent[q] & _LOW
                    ro = cells[w, line_rows[li]]
                    p += t_pay[s, ro]
                    t += t_trg[s, ro]
                    ns = t_next[s, ro]
                    if ns != 0:
                        e = (li << 32) | ns
                        sbuf[cnt] = e
                        cnt += 1
                        h = (h ^ np.uint64(e)) * _MIX
                h = _fmix(h)
                mask = np.uint64(hsize - 1)
                slot = h & mask
                found = -1
                while True:
                    idx = table[slot]
                    if idx < 0:
                        break
                    if hashes[idx] == h and r_off[idx + 1] - r_off[idx] == cnt:
                        same = True
                        b0 = r_off[idx]
                        for q in range(cnt):
                            if r_ent[b0 + q] != sbuf[q]:
                                same = False
                                break
                        if same:
                            found = idx
                            break
                    slot = (slot + np.uint64(1)) & mask
                if found < 0:
                    if n == cap:
                        cap *= 2
                        if cap > max_entries:
                            return _over(o_off)
                        r_off = _grow(r_off, n + 1, cap + 1)
                        hashes = _grow(hashes, n, cap)
                    b0 = r_off[n]
                    while b0 + cnt > ecap:
                        ecap *= 2
                        if ecap > max_entries:
                            return _over(o_off)
                        r_ent = _grow(r_ent, b0, ecap)
                    for q in range(cnt):
                        r_ent[b0 + q] = sbuf[q]
                    r_off[n + 1] = b0 + cnt
                    hashes[n] = h
                    table[slot] = n
                    found = n
                    n += 1
                    if 2 * n > hsize:  # keep the load factor at most 1/2
                        hsize *= 2
                        table = _rehash(hashes, n, hsize)
                        mask = np.uint64(hsize - 1)
                if by_class:
                    ktab_key[ksl] = key
                    ktab_val[ksl] = found
                    kused[nkused] = ksl
                    nkused += 1
            # merge the window into the outcomes of joint id j
            c = incc[w]
            g = np.uint64(found) * _MIX
            g = (g ^ np.uint64(p)) * _MIX
            g = (g ^ np.uint64(t)) * _MIX
            g = _fmix(g ^ np.uint64(c))
            sl = g & lmask
            while True:
                idx = ltab[sl]
                if idx < 0:
                    if no == ocap:
                        ocap *= 2
                        if ocap > max_entries:
                            return _over(o_off)
                        o_next = _grow(o_next, no, ocap)
                        o_pay = _grow(o_pay, no, ocap)
                        o_trg = _grow(o_trg, no, ocap)
                        o_inc = _grow(o_inc, no, ocap)
                        o_w = _grow(o_w, no, ocap)
                    o_next[no] = found
                    o_pay[no] = p
                    o_trg[no] = t
                    o_inc[no] = c
                    o_w[no] = wts[w]
                    ltab[sl] = no
                    used[nused] = sl
                    nused += 1
                    no += 1
                    break
                if o_next[idx] == found and o_pay[idx] == p and o_trg[idx] == t and o_inc[idx] == c:
                    o_w[idx] += wts[w]
                    break
                sl = (sl + np.uint64(1)) & lmask
        for q in range(nused):
            ltab[used[q]] = -1
        for q in range(nkused):
            ktab_key[kused[q]] = -1
        o_off[j + 1] = no
    return (o_off, o_next[:no].copy(), o_pay[:no].copy(), o_trg[:no].copy(), o_inc[:no].copy(),
            o_w[:no].copy(), r_off[:n + 1].copy(), r_ent[:r_off[n]].copy())


@_nb.njit(cache=True, nogil=True)
def _over(o_off):  # pragma: no cover - compiled
    """:func:`_reel_outcomes`'s result when an array would grow beyond ``max_entries``: every array empty
    (``r_off`` too, which otherwise holds at least one offset)."""
    e = o_off[:0].copy()
    return e, e.copy(), e.copy(), e.copy(), e.copy(), e.copy(), e.copy(), e.copy()


@_nb.njit(cache=True, nogil=True)
def _grow(a, n, cap):  # pragma: no cover - compiled
    b = np.empty(cap, dtype=a.dtype)
    b[:n] = a[:n]
    return b


@_nb.njit(cache=True, nogil=True)
def _cross_merge(s_jid, s_key, s_w, o_off, o_key, o_w, max_entries):  # pragma: no cover - compiled
    ns = s_jid.shape[0]
    cap = 1024
    while cap < ns:
        cap *= 2
    keys = np.empty(cap, dtype=np.int64)
    ws = np.empty(cap, dtype=np.int64)
    hsize = 2 * cap
    mask = np.uint64(hsize - 1)
    table = np.full(hsize, -1, dtype=np.int64)
    m = 0
    for i in range(ns):
        j = s_jid[i]
        a = s_key[i]
        wi = s_w[i]
        for o in range(o_off[j], o_off[j + 1]):
            k = a + o_key[o]
            x = wi * o_w[o]
            sl = _fmix(np.uint64(k)) & mask
            while True:
                idx = table[sl]
                if idx < 0:
                    if m == cap:
                        cap *= 2
                        if cap > max_entries:  # (-1 in ws: beyond the limit)
                            return keys[:0].copy(), np.full(1, -1, dtype=np.int64)
                        keys = _grow(keys, m, cap)
                        ws = _grow(ws, m, cap)
                        hsize = 2 * cap
                        mask = np.uint64(hsize - 1)
                        table = np.full(hsize, -1, dtype=np.int64)
                        for e in range(m):
                            s2 = _fmix(np.uint64(keys[e])) & mask
                            while table[s2] >= 0:
                                s2 = (s2 + np.uint64(1)) & mask
                            table[s2] = e
                        sl = _fmix(np.uint64(k)) & mask
                        while table[sl] >= 0:
                            sl = (sl + np.uint64(1)) & mask
                    keys[m] = k
                    ws[m] = x
                    table[sl] = m
                    m += 1
                    break
                if keys[idx] == k:
                    ws[idx] += x
                    break
                sl = (sl + np.uint64(1)) & mask
    return keys[:m].copy(), ws[:m].copy()


@_nb.njit(cache=True, nogil=True)
def _bits(v):  # pragma: no cover - compiled
    b = 0
    while v > 0:
        v >>= 1
        b += 1
    return b


@_nb.njit(cache=True, nogil=True)
def _pack_fused(o_next, o_cls, inc_u, o_trg, o_pay, s_cnt, s_acc):  # pragma: no cover - compiled
    no = o_next.shape[0]
    ns = s_acc.shape[0]
    nc = inc_u.shape[1]
    nf = nc + 3  # fields: next joint id, counters..., triggers, pay
    widths = np.zeros(nf, dtype=np.int64)
    s_key = np.zeros(ns, dtype=np.int64)
    o_key = np.zeros(no, dtype=np.int64)
    if no == 0 or ns == 0:
        return False, s_key, o_key, widths
    omax = np.zeros(nf, dtype=np.int64)
    smax = np.zeros(nf, dtype=np.int64)
    low = 0
    used = np.zeros(inc_u.shape[0], dtype=np.bool_)
    for o in range(no):
        v = o_next[o]
        low = min(low, v)
        omax[0] = max(omax[0], v)
        used[o_cls[o]] = True
        v = o_trg[o]
        low = min(low, v)
        omax[nc + 1] = max(omax[nc + 1], v)
        v = o_pay[o]
        low = min(low, v)
        omax[nc + 2] = max(omax[nc + 2], v)
    for c in range(inc_u.shape[0]):
        if used[c]:
            for i in range(nc):
                v = inc_u[c, i]
                low = min(low, v)
                omax[1 + i] = max(omax[1 + i], v)
    for r in range(ns):
        for i in range(nc + 1):
            v = s_cnt[r, i]
            low = min(low, v)
            smax[1 + i] = max(smax[1 + i], v)
        v = s_acc[r]
        low = min(low, v)
        smax[nc + 2] = max(smax[nc + 2], v)
    if low < 0:
        return False, s_key, o_key, widths
    total = 0
    for f in range(nf):
        widths[f] = _bits(omax[f] + smax[f])
        total += widths[f]
    if total > 62:
        return False, s_key, o_key, widths
    shifts = np.zeros(nf, dtype=np.int64)
    for f in range(1, nf):
        shifts[f] = shifts[f - 1] + widths[f - 1]
    for o in range(no):
        k = o_next[o] << shifts[0]
        c = o_cls[o]
        for i in range(nc):
            k |= inc_u[c, i] << shifts[1 + i]
        k |= o_trg[o] << shifts[nc + 1]
        k |= o_pay[o] << shifts[nc + 2]
        o_key[o] = k
    for r in range(ns):
        k = 0
        for i in range(nc + 1):
            k |= s_cnt[r, i] << shifts[1 + i]
        k |= s_acc[r] << shifts[nc + 2]
        s_key[r] = k
    return True, s_key, o_key, widths


@_nb.njit(cache=True, nogil=True)
def _unpack_keys(keys, widths, ncol):  # pragma: no cover - compiled
    n = keys.shape[0]
    nf = widths.shape[0]
    shifts = np.zeros(nf, dtype=np.int64)
    masks = np.zeros(nf, dtype=np.int64)
    for f in range(nf):
        if f:
            shifts[f] = shifts[f - 1] + widths[f - 1]
        masks[f] = (np.int64(1) << widths[f]) - 1
    jid = np.empty(n, dtype=np.int64)
    cnt = np.empty((n, ncol), dtype=np.int64)
    pay = np.empty(n, dtype=np.int64)
    for r in range(n):
        k = keys[r]
        jid[r] = (k >> shifts[0]) & masks[0]
        for i in range(ncol):
            cnt[r, i] = (k >> shifts[1 + i]) & masks[1 + i]
        pay[r] = (k >> shifts[nf - 1]) & masks[nf - 1]
    return jid, cnt, pay


def pack_fused(o_next: np.ndarray, o_cls: np.ndarray, inc_u: np.ndarray, o_trg: np.ndarray, o_pay: np.ndarray,
               s_cnt: np.ndarray, s_acc: np.ndarray):
    """The packed int64 keys of :func:`analytic.engine.linewalk._pack_crossing`, in one compiled pass.

    The outcomes' counter increments are given by class (``inc_u[o_cls]``,
    as :func:`reel_outcomes` returns them) and their triggers apart, so the
    ``(outcomes, counters + 1)`` increment array is never built.  Fields,
    from the lowest bits up: next joint id, counters..., line triggers,
    settled pay, each as wide as the bit length of the largest state value
    plus the largest outcome value (the widths of ``_pack_crossing``).

    Parameters
    ----------
    o_next, o_cls, o_trg, o_pay : ndarray of int64, shape (outcomes,)
    inc_u : ndarray of int64, shape (classes, counters)
    s_cnt : ndarray of int64, shape (states, counters + 1)
        Counters, then line triggers, of each state.
    s_acc : ndarray of int64, shape (states,)
        Settled pay of each state.

    Returns
    -------
    (s_key, o_key, widths) or None
        ``widths`` a list of ``counters + 3`` ints; None when a value is
        negative, an array is empty, or the fields exceed 62 bits.
    """
    ok, s_key, o_key, widths = _pack_fused(*(np.ascontiguousarray(a, dtype=np.int64) for a in (
        o_next, o_cls, inc_u, o_trg, o_pay, s_cnt, s_acc)))
    return (s_key, o_key, widths.tolist()) if ok else None


def unpack_keys(keys: np.ndarray, widths, ncol: int):
    """:func:`analytic.engine.linewalk._unpack` in one compiled pass: ``(jid, counters (n, ncol), pay)``."""
    return _unpack_keys(np.ascontiguousarray(keys, dtype=np.int64), np.asarray(widths, dtype=np.int64), int(ncol))


def line_step(jt: np.ndarray, roles: np.ndarray, t_next: np.ndarray, t_pay: np.ndarray, t_trg: np.ndarray,
              last: bool):
    """One reel of the joint walk for every (joint id, window) pair.

    Parameters
    ----------
    jt : ndarray of int64, shape (nj, lines)
        Line states of each joint id.
    roles : ndarray of int64, shape (windows, lines)
        Role id each window shows on each payline at this reel.
    t_next, t_pay, t_trg : ndarray of int64, shape (line states, roles)
        The reel's transition table: next line state, settled pay (credits),
        settled triggers.
    last : bool
        Last reel: every line settles, no next joint states are numbered.

    Returns
    -------
    nxt : ndarray of int64, shape (nj, windows)
        Next joint id, numbered in order of first appearance (j-major); zeros
        when ``last``.
    pay, trg : ndarray of int64, shape (nj, windows)
        Sum over the lines of the settled pay and triggers.
    rows : ndarray of int64, shape (distinct next joint ids, lines)
        Line states of each new joint id (one row of ``DEAD`` when ``last``).
    """
    t_next, t_pay, t_trg = (np.ascontiguousarray(t, dtype=np.int64) for t in (t_next, t_pay, t_trg))
    skip0 = not (t_next[0].any() or t_pay[0].any() or t_trg[0].any())
    return _line_step(np.ascontiguousarray(jt, dtype=np.int64), np.ascontiguousarray(roles, dtype=np.int64),
                      t_next, t_pay, t_trg, bool(last), skip0)


def reel_outcomes(j_off: np.ndarray, j_ent: np.ndarray, cells: np.ndarray, line_rows: np.ndarray,
                  t_next: np.ndarray, t_pay: np.ndarray, t_trg: np.ndarray, last: bool, incc: np.ndarray,
                  wts: np.ndarray, by_class: bool | None = None, max_entries: int | None = None):
    """One reel of the joint walk: the distinct outcomes of every joint id, and the next joint states.

    A joint id is stored as the list of its live lines (a settled line, in
    state 0, stays settled and pays nothing more: the rows of state 0 must
    be zero), each entry ``line << 32 | state`` in line order, so memory and
    work follow the live lines, not the paylines.  For every (joint id,
    window) pair the live lines are stepped as in :func:`line_step`; on the
    last reel the pays and triggers of a joint id's lines are first summed
    per (row, role) when that is less work.  The windows of one joint id
    that lead to the same (next joint id, settled pay, triggers, counter
    class) are merged at once, their weights summed, so nothing of size
    joint ids x windows is kept.  With ``by_class`` (before the last reel),
    the roles of each row are first grouped, per joint id, into classes
    that step the row's live lines to the same next states (found by a hash,
    confirmed line by line); windows with the same class in every row have
    the same next joint state, looked up once.  Numbering and outcomes are
    the same either way.

    Parameters
    ----------
    j_off : ndarray of int64, shape (nj + 1,)
        Joint id ``j``'s live lines are ``j_ent[j_off[j]:j_off[j+1]]``.
    j_ent : ndarray of int64, shape (live lines,)
        ``line << 32 | state`` (state > 0), increasing lines within a joint id.
    cells : ndarray of int64, shape (windows, rows)
        Role id each window shows in each row.
    line_rows : ndarray of int64, shape (lines,)
        Row of each payline at this reel.
    t_next, t_pay, t_trg : ndarray of int64, shape (line states, roles)
        The reel's transition table (see :func:`line_step`); row 0 zero.
    last : bool
        Last reel: every next joint id is 0 and no next states are numbered.
    incc : ndarray of int64, shape (windows,)
        Class of each window's counter increments (equal increments, equal
        class).
    wts : ndarray of int64, shape (windows,)
        Weight (number of stops) of each window.
    by_class : bool, optional
        Group the roles into classes per row (ignored on the last reel);
        None: when the class keys (mixed radix over the rows) fit in int64.
    max_entries : int, optional
        Largest size an array of the result (the next joint states' live lines, the outcomes) may
        grow to; None: no limit.

    Returns
    -------
    off : ndarray of int64, shape (nj + 1,)
        Outcomes of joint id ``j`` are ``off[j]:off[j+1]`` of the arrays below.
    nxt, pay, trg, inc, w : ndarray of int64, shape (outcomes,)
        Next joint id (order of first appearance; 0 when ``last``), settled
        pay (credits) and triggers summed over the lines, counter class, and
        summed window weight of each distinct outcome.
    r_off, r_ent : ndarray of int64
        The next joint states in the form of ``j_off``, ``j_ent`` (one empty
        state, ``r_off == [0]``, when ``last``).

    Raises
    ------
    ValueError
        State 0's table rows are not zero.
    WalkTooLarge
        An array would grow beyond ``max_entries``.
    """
    t_next, t_pay, t_trg = (np.ascontiguousarray(t, dtype=np.int64) for t in (t_next, t_pay, t_trg))
    if t_next[0].any() or t_pay[0].any() or t_trg[0].any():
        raise ValueError("reel_outcomes: state 0 must be settled (its table rows zero)")
    cells = np.ascontiguousarray(cells, dtype=np.int64)
    roles_here = np.flatnonzero(np.bincount(cells.ravel(), minlength=t_pay.shape[1])).astype(np.int64)
    if by_class is None:  # the class keys (mixed radix over the rows) must fit in int64
        by_class = t_pay.shape[1] ** max(cells.shape[1], 1) < 1 << 62
    limit = (1 << 62) if max_entries is None else int(max_entries)
    out = _reel_outcomes(*(np.ascontiguousarray(a, dtype=np.int64) for a in (j_off, j_ent, cells, line_rows)),
                         t_next, t_pay, t_trg, bool(last), np.ascontiguousarray(incc, dtype=np.int64),
                         np.ascontiguousarray(wts, dtype=np.int64), roles_here, bool(by_class) and not last, limit)
    if len(out[6]) == 0:  # (r_off holds at least one offset otherwise)
        raise WalkTooLarge(f"more than {limit:,} distinct outcomes, or live lines of the next joint states")
    return out


def cross_merge(s_jid: np.ndarray, s_key: np.ndarray, s_w: np.ndarray, off: np.ndarray, o_key: np.ndarray,
                o_w: np.ndarray, max_entries: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Cross the partial states with the outcomes of their joint id and merge equal ones.

    The crossed state of state ``i`` and outcome ``o`` (one of
    ``off[s_jid[i]]:off[s_jid[i]+1]``) has key ``s_key[i] + o_key[o]`` (the
    packed fields of :func:`analytic.engine.linewalk._pack_crossing`, which
    never carry into each other) and weight ``s_w[i] * o_w[o]``.

    Parameters
    ----------
    s_jid, s_key, s_w : ndarray of int64, shape (states,)
        Joint id, packed key (joint id field zero) and count of each state.
    off : ndarray of int64, shape (nj + 1,)
    o_key, o_w : ndarray of int64, shape (outcomes,)
        Packed key and weight of each outcome.
    max_entries : int, optional
        Most distinct crossed states (the capacity of the merge's arrays); None: no limit.

    Returns
    -------
    keys, w : ndarray of int64, shape (distinct crossed states,)
        Distinct keys in order of first appearance and their summed counts
        (exact: every count is at most the cycle, below 2**62).

    Raises
    ------
    WalkTooLarge
        More than ``max_entries`` distinct crossed states.
    """
    limit = (1 << 62) if max_entries is None else int(max_entries)
    keys, w = _cross_merge(*(np.ascontiguousarray(a, dtype=np.int64) for a in (s_jid, s_key, s_w, off, o_key, o_w)),
                           limit)
    if len(w) != len(keys):  # (-1 in w: beyond the limit)
        raise WalkTooLarge(f"more than {limit:,} distinct partial states")
    return keys, w
