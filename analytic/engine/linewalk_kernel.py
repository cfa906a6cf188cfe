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

Compiled with numba on first use and cached on disk; the module is imported
only when a reel's work is large enough to repay the import.
"""

from __future__ import annotations

import numba as _nb
import numpy as np

__all__ = ["line_step"]

_MIX = np.uint64(0x9E3779B97F4A7C15)


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
                    table = np.full(hsize, -1, dtype=np.int64)
                    mask = np.uint64(hsize - 1)
                    for i in range(n):
                        sl = hashes[i] & mask
                        while table[sl] >= 0:
                            sl = (sl + np.uint64(1)) & mask
                        table[sl] = i
            nxt[j, w] = found
        for q in range(nlive):  # back to all zeros for the next joint id
            buf[live[q]] = 0
    if last:
        return nxt, pay, trg, np.zeros((1, nl), dtype=np.int64)
    return nxt, pay, trg, rows[:n].copy()


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
