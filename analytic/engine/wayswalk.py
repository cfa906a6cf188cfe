"""The joint ways walk: the exact distribution of a ways spin's win.

Rule (``docs/model-format.md``, ``[paylines] ways = true``)
-----------------------------------------------------------
Every paying candidate ``c`` (a regular symbol with pays) is paid on its
own.  On reel ``k`` let ``m_k(c)`` be the sum, over the visible cells that
show ``c`` or a wild substituting for it, of the cell's multiplier (1 for a
plain cell, the wild's ``multiplier`` for a wild): the number of cells
showing ``c`` when no wild has a multiplier.  The left-to-right run is
``n = `` the number of leading reels with ``m_k(c) > 0``; it pays
``pays[c][n] * m_1(c) * ... * m_n(c)``: the pay per way times the ways,
each way weighted by the product of the multipliers of its wild cells.
With ``pays_both_ways`` the trailing run (reels ``N - r + 1 .. N``, all
with ``m > 0``) also pays ``pays[c][r] * m_{N-r+1}(c) * ... * m_N(c)`` when
``r < N``; a run over all ``N`` reels is the same combination read from
either end and is paid once.  The spin's ways win is the sum over
candidates, times ``spec.line_multiplier``.

Method (``docs/derivations.md`` section 2, the line walk's joint walk)
--------------------------------------------------------------------
Reels are independent; reel ``k`` shows window ``w`` with integer weight
``n_k(w)``.  Windows of a reel are first merged by what the walk reads from
them: the vector ``(m_k(c))_c`` and the counter increments.  A *partial
state* after reel ``k`` is

* per candidate still alive (its run reaches reel ``k``) the running
  product of its ``m`` (0 once dead); with both-ways pays, per candidate
  the length ``r`` and product of its trailing run (alive iff ``r = k``);
* the counters (scatter cells, trigger cells, ...) summed so far;
* the pay of the left-to-right runs already ended,

and carries the integer number of stop prefixes leading to it.  Reading
the next reel crosses every state with every merged window; equal states
merge (their counts add).  On the last reel the state is resolved to
``(counters, win)`` at once.  The cost is the sum over reels of (distinct
partial states x distinct merged windows x candidates), never the cycle:
it grows with the number of distinct running products, i.e. with the rows
(cells per reel) and the wild multipliers, and a candidate no longer alive
(one-way pays) leaves the state.

Exactness: int64 only when the cycle and a bound on every win and every
running product are below 2**62 (checked up front); otherwise the walk runs
on Python integers in dicts (:func:`_walk_python`).  Nothing is a float.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ways_walk_arrays", "ways_window_win"]

_SAFE = 1 << 62
_CHUNK = 1 << 21  # crossed rows per chunk (memory: rows x columns x 8 bytes)


def _candidates(spec):
    """Paying candidates ``(index list, pays array (nc, N+1))``; refuses line triggers."""
    pt = spec.paytable
    if any(pt.trigger_at):
        raise ValueError("ways pays: line-triggered candidates are not defined (refused at load)")
    idx = [c for c in range(len(pt.names)) if any(p > 0 for p in pt.pays[c])]
    return idx, [tuple(int(x) for x in pt.pays[c]) for c in idx]


def _reel_matches(spec, cands):
    """Per reel: merged windows ``(M (nw, nc) int lists, counter increments, weights)``."""
    roles = spec.roles
    out = []
    for reel in spec.reels:
        merged: dict = {}
        for cells, w, inc in zip(reel.cells, reel.weights, reel.counters):
            m = []
            for c in cands:
                s = 0
                for r in cells:
                    role = roles[r]
                    if c in role.supports:
                        s += role.multiplier
                m.append(s)
            key = (tuple(m), tuple(inc))
            merged[key] = merged.get(key, 0) + int(w)
        out.append(merged)
    return out


def ways_window_win(spec, window) -> int:
    """Ways win of one window (role ids ``window[reel][row]``), line multiplier included.

    The rule of the module docstring read straight off the window; used by
    the walk's Python path and its tests.
    """
    cands, pays = _candidates(spec)
    nreels = len(window)
    total = 0
    for ci, c in enumerate(cands):
        m = [sum(spec.roles[r].multiplier for r in col if c in spec.roles[r].supports) for col in window]
        n = 0
        prod = 1
        while n < nreels and m[n] > 0:
            prod *= m[n]
            n += 1
        total += pays[ci][n] * prod
        if spec.both_ways and n < nreels:
            r, prod = 0, 1
            while m[nreels - 1 - r] > 0:
                prod *= m[nreels - 1 - r]
                r += 1
            total += pays[ci][r] * prod
    return total * spec.line_multiplier


def _max_entries() -> int:
    """:data:`analytic.limits.MAX_WALK_ENTRIES` (read at each call: a test may lower it)."""
    from analytic import limits

    return limits.MAX_WALK_ENTRIES


def _refuse_size(spec, k: int, nw: int, what: str, limit: int | None = None):
    """The :class:`~analytic.errors.ModelError` of a ways walk beyond ``limit`` (default
    :data:`analytic.limits.MAX_WALK_ENTRIES`) entries an array."""
    from analytic.errors import ModelError

    limit = _max_entries() if limit is None else limit
    return ModelError(spec.source or "<model>", "paylines.ways",
                      f"the exact ways walk over the reels' {nw:,} distinct windows at reel {k + 1} needs {what} (at "
                      f"most {limit:,} entries an array: every paying symbol's run is kept exactly, its "
                      "memory grows with the rows, reels and distinct windows); fewer rows, reels or paying symbols")


def _walk_python(spec, cands, pays, reels):
    """The walk on Python integers (dict states): ``{(counters..., win): count}``."""
    nc = len(cands)
    N = len(reels)
    both = spec.both_ways
    ncnt = len(spec.counter_names)
    # state: (runs, products, counters, settled); a run is alive iff it covers every reel read so far
    states = {((0,) * nc, (1,) * nc, (0,) * ncnt, 0): 1}
    for k, merged in enumerate(reels):
        last = k == N - 1
        if len(states) * len(merged) > _max_entries() // 10:  # Python objects: ten times the memory an entry
            raise _refuse_size(spec, k, len(merged), f"{len(states) * len(merged):,} crossed partial states "
                                                     "(Python integers)", _max_entries() // 10)
        nxt: dict = {}
        for (run, prod, cnt, settled), sw in states.items():
            for (m, inc), w in merged.items():
                s = settled
                nrun, nprod = [], []
                for i in range(nc):
                    alive = run[i] == k
                    if m[i] > 0 and (alive or both):
                        r, p = run[i] + 1, prod[i] * m[i]
                    else:
                        if alive:
                            s += pays[i][k] * prod[i]
                        r, p = 0, (1 if both else 0)
                    if last and r > 0:
                        if r == N or both:
                            s += pays[i][r] * p
                    nrun.append(r)
                    nprod.append(p)
                c2 = tuple(a + b for a, b in zip(cnt, inc))
                key = (c2, s) if last else (tuple(nrun), tuple(nprod), c2, s)
                nxt[key] = nxt.get(key, 0) + sw * w
        states = nxt
    lm = spec.line_multiplier
    return {tuple(cnt) + (0, s * lm): c for (cnt, s), c in states.items()}


def _pack(cols: list, n: int) -> tuple[list[int], list[np.ndarray]]:
    """Bit widths of the non-negative int64 columns ``cols`` (length ``n``) and the columns packed into int64 words.

    Columns of width 0 (all zero) are left out; a word holds at most 62 bits.
    """
    widths = [int(c.max()).bit_length() if n else 0 for c in cols]
    words, cur, shift = [], None, 0
    for c, b in zip(cols, widths):
        if b == 0:
            continue
        if cur is None or shift + b > 62:
            if cur is not None:
                words.append(cur)
            cur, shift = np.zeros(n, dtype=np.int64), 0
        cur |= c << shift
        shift += b
    if cur is not None:
        words.append(cur)
    return widths, words


def _group(cols: list, w: np.ndarray):
    """Merge equal rows of the non-negative int64 ``cols``; returns (cols, summed w)."""
    n = len(w)
    if n == 0:
        return cols, w
    widths, words = _pack(cols, n)
    if not words:
        return [c[:1] for c in cols], np.array([w.sum()], dtype=w.dtype)
    if len(words) == 1:
        key = words[0]
        wb = int(w.max()).bit_length()
        if int(key.max()).bit_length() + wb <= 63 and int(w.min()) >= 0:
            # one plain sort of key << bits(w) | w; the columns are unpacked from the keys
            kw = key << wb
            kw |= w
            kw.sort()
            ks = kw >> wb
            starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
            uk = ks[starts]
            out, shift = [], 0
            for c, b in zip(cols, widths):
                out.append((uk >> shift) & ((1 << b) - 1) if b else np.zeros(len(uk), dtype=np.int64))
                shift += b
            return out, np.add.reduceat(kw & ((1 << wb) - 1), starts)
        order = np.argsort(key, kind="stable")
        ks = key[order]
        diff = ks[1:] != ks[:-1]
    else:
        order = np.lexsort(words[::-1])
        diff = np.zeros(n - 1, dtype=bool)
        for wd in words:
            s = wd[order]
            diff |= s[1:] != s[:-1]
    starts = np.flatnonzero(np.r_[True, diff])
    first = order[starts]
    return [c[first] for c in cols], np.add.reduceat(w[order], starts)


def _profile_step(A, V, M, P, k, N, both, last):
    """One reel on the distinct profiles: ``(next A, next V, pay (npf, nw))``.

    ``A``, ``V``: ``(npf, nc)`` profile columns (see :func:`_walk_numpy`);
    ``M``: ``(nw, nc)`` weighted matching cells of the reel's windows.  The
    pay is what the reel settles: runs from reel 1 that end here, and on
    the last reel every run still open.
    """
    if last:
        return None, None, _last_pay(A, V, M, P, k, N, both)
    pr = A[:, None, :]
    m = M[None, :, :]
    hit = m > 0
    alive = pr > 0
    nA = pr * m  # 0 where the run from reel 1 ends (or had ended)
    pay = (np.where(alive & ~hit, pr, 0) * P[:, k]).sum(axis=2)
    nV = None
    if both:
        v = V[:, None, :]
        start_pay = P[:, N - k][None, None, :]  # a trailing run starting on this reel ends with length N - k
        nV = np.where(hit & ~alive, np.where(v > 0, (v - 1) * m, start_pay * m) + 1, 0)
    if last:
        pay = pay + (nA * P[:, N]).sum(axis=2)  # runs over every reel: paid once
        if both:
            pay = pay + np.where(nV > 0, nV - 1, 0).sum(axis=2)
    return nA, nV, pay


def _last_pay(A, V, M, P, k, N, both):
    """The last reel's pay ``(npf, nw)``, candidate by candidate over their distinct ``(A, V)`` values.

    The pay is a sum over candidates of a function of the candidate's own
    ``(A, V)`` and its matching cells ``m``, so each candidate's few
    distinct values are evaluated once per window and gathered.
    """
    npf, nc = A.shape
    pay = np.zeros((npf, M.shape[0]), dtype=np.int64)
    for c in range(nc):
        vb = int(V[:, c].max()).bit_length() if both else 0
        if int(A[:, c].max()).bit_length() + vb <= 62:
            uk, inv = np.unique((A[:, c] << vb) | (V[:, c] if both else 0), return_inverse=True)
            u = np.stack([uk >> vb, uk & ((1 << vb) - 1)], axis=1)
        else:
            u, inv = np.unique(np.stack([A[:, c], V[:, c]], axis=1), axis=0, return_inverse=True)
        a = u[:, 0][:, None]
        m = M[:, c][None, :]
        hit = m > 0
        g = np.where(hit, a * m * P[c, N], a * P[c, k])  # a = 0 once the run from reel 1 ended
        if both:
            v = u[:, 1][:, None]
            g = g + np.where(hit & (a == 0), np.where(v > 0, (v - 1) * m, P[c, N - k] * m), 0)
        pay += g[inv.reshape(-1)]
    return pay


def _walk_numpy(spec, cands, pays, reels):
    """The walk on int64 arrays; returns ``(counters (n, ncnt), win (n,), count (n,))``.

    A *profile* is what the future pays depend on, per candidate: ``A``,
    the running product while the run from reel 1 is alive (0 once it
    ended, its pay settled); with both-ways pays also ``V`` for a candidate
    whose run from reel 1 ended: 0 while no trailing run is open (the last
    reel read had no match), else 1 + the value of the open trailing run,
    ``pays[N - start] x`` its product so far (a trailing run that reaches
    reel ``N`` has length ``N - start`` whatever comes between, so its pay
    is fixed once it starts and only the product grows).  A partial state
    is (profile id, counters, settled pay).  Each reel is first applied to
    the distinct profiles (profiles x windows x candidates), giving per
    (profile, window) the next profile id and the pay settled; the states
    are then crossed with the windows by table look-ups (states x windows)
    and equal states merged.
    """
    nc = len(cands)
    N = len(reels)
    both = spec.both_ways
    ncnt = len(spec.counter_names)
    P = np.asarray(pays, dtype=np.int64).reshape(nc, N + 1)
    A = np.ones((1, nc), dtype=np.int64)
    V = np.zeros((1, nc), dtype=np.int64)
    pid = np.zeros(1, dtype=np.int64)
    cnt = np.zeros((1, ncnt), dtype=np.int64)
    settled = np.zeros(1, dtype=np.int64)
    sw = np.ones(1, dtype=np.int64)
    for k, merged in enumerate(reels):
        last = k == N - 1
        keys = list(merged)
        M = np.array([m for m, _ in keys], dtype=np.int64).reshape(len(keys), nc)
        INC = np.array([i for _, i in keys], dtype=np.int64).reshape(len(keys), ncnt)
        WW = np.array([merged[x] for x in keys], dtype=np.int64)
        nw = len(keys)
        npf = len(A)
        if npf * nw * nc > _max_entries():  # the profile step's arrays (profiles, windows, candidates)
            raise _refuse_size(spec, k, nw, f"{npf * nw * nc:,} (run profile, window, symbol) entries in one array")
        nA, nV, t_pay = _profile_step(A, V, M, P, k, N, both, last)
        if not last:
            cols = [nA.reshape(npf * nw, nc)[:, i] for i in range(nc)]
            if both:
                cols += [nV.reshape(npf * nw, nc)[:, i] for i in range(nc)]
            t_next, A, V = _dense_ids(cols, npf * nw, nc, both)
            t_next = t_next.reshape(npf, nw)
        step = max(1, _CHUNK // max(nw, 1))
        parts = []
        for a in range(0, len(sw), step):
            b = min(a + step, len(sw))
            ns = b - a
            p_ = pid[a:b]
            s = (settled[a:b, None] + t_pay[p_]).reshape(-1)
            c2 = (cnt[a:b, None, :] + INC[None, :, :]).reshape(ns * nw, ncnt)
            w2 = (sw[a:b, None] * WW[None, :]).reshape(-1)
            cols = [c2[:, i] for i in range(ncnt)] + [s]
            if not last:
                cols = [t_next[p_].reshape(-1)] + cols
            parts.append(_group(cols, w2))
        if len(parts) == 1:
            cols, sw = parts[0]
        else:
            cols, sw = _group([np.concatenate([p[0][i] for p in parts]) for i in range(len(parts[0][0]))],
                              np.concatenate([p[1] for p in parts]))
        if not last:
            pid, cols = cols[0], cols[1:]
        if len(sw) > _max_entries():
            raise _refuse_size(spec, k, nw, f"{len(sw):,} distinct partial states")
        cnt = np.stack(cols[:ncnt], axis=1) if ncnt else np.zeros((len(sw), 0), dtype=np.int64)
        settled = cols[ncnt]
    return cnt, settled * spec.line_multiplier, sw


def _dense_ids(cols, n, nc, both):
    """Dense ids of equal rows of ``cols`` (length ``n``) and the distinct rows as ``(ids, A, V)``."""
    widths, words = _pack(cols, n)
    if not words:
        order = np.arange(n)
        diff = np.zeros(max(n - 1, 0), dtype=bool)
    elif len(words) == 1:
        order = np.argsort(words[0], kind="stable")
        ks = words[0][order]
        diff = ks[1:] != ks[:-1]
    else:
        order = np.lexsort(words[::-1])
        diff = np.zeros(n - 1, dtype=bool)
        for wd in words:
            x = wd[order]
            diff |= x[1:] != x[:-1]
    gid_sorted = np.concatenate([[0], np.cumsum(diff)]).astype(np.int64)
    ids = np.empty(n, dtype=np.int64)
    ids[order] = gid_sorted
    firsts = order[np.flatnonzero(np.r_[True, diff])]
    if nc == 0:  # no symbol pays a way (every pay 0): one profile, nothing to carry
        A = np.zeros((len(firsts), 0), dtype=np.int64)
        return ids, A, np.zeros_like(A)
    A = np.stack([c[firsts] for c in cols[:nc]], axis=1)
    V = np.stack([c[firsts] for c in cols[nc:2 * nc]], axis=1) if both else np.zeros_like(A)
    return ids, A, V


def ways_walk_arrays(spec):
    """Exact joint law of (counters, ways win) of a ways spin, as :class:`~analytic.engine.linewalk.SpinArrays`.

    Parameters
    ----------
    spec : SpinSpec
        With ``ways = True``; ``both_ways`` for pays both ways.  Candidates
        are the paytable's rows with a pay; a role's ``supports`` and
        ``multiplier`` decide which cells count for a candidate and with
        what weight.

    Returns
    -------
    SpinArrays
        Counters then ``line_triggers`` (always 0 in a ways game), the ways
        win in line-bet units (``line_multiplier`` applied) and the number of
        stop combinations of each distinct row; sums to the cycle.

    Raises
    ------
    ValueError
        A line-triggered candidate (not defined for ways pays).

    Notes
    -----
    Method and cost in the module docstring.
    """
    from analytic.engine.linewalk import SpinArrays

    cands, pays = _candidates(spec)
    reels = _reel_matches(spec, cands)
    N = len(reels)
    cycle = spec.cycle
    ncnt = len(spec.counter_names)
    names = tuple(spec.counter_names) + ("line_triggers",)
    # bound on every running product and win
    top_m = [max((max(m) if m else 0) for m, _ in r) if r else 0 for r in reels]
    bound = 0
    for i in range(len(cands)):
        prod = 1
        for k in range(N):
            prod *= max(top_m[k], 1)
        bound += max(pays[i]) * prod * (2 if spec.both_ways else 1)
    bound = max(bound, 1) * max(abs(int(spec.line_multiplier)), 1)
    prod_all = 1
    for t in top_m:
        prod_all *= max(t, 1)
    if cycle < _SAFE and bound < _SAFE and prod_all < _SAFE and spec.line_multiplier >= 0:
        cnt, win, count = _walk_numpy(spec, cands, pays, reels)
        cnt = np.concatenate([cnt, np.zeros((len(count), 1), dtype=np.int64)], axis=1)
        return SpinArrays(names, cnt, win, count, cycle)
    table = _walk_python(spec, cands, pays, reels)
    rows = list(table.items())
    cnt = np.array([k[:-1] for k, _ in rows], dtype=np.int64).reshape(len(rows), ncnt + 1)
    win = np.empty(len(rows), dtype=object)
    count = np.empty(len(rows), dtype=object)
    for i, (k, c) in enumerate(rows):
        win[i] = int(k[-1])
        count[i] = int(c)
    return SpinArrays(names, cnt, win, count, cycle)
