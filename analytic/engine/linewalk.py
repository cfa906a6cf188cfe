"""The joint line walk: the exact distribution of a spin's win.

Method (``../shared/MATH.md`` section 2)
---------------------------------------
Reels are independent and each reel's stop is uniform, so a spin is a
product of per-reel *window* distributions: reel ``k`` shows window ``w``
with integer weight ``n_k(w)`` (the number of stops showing it; identical
windows merged).  The cycle is the product of the reels' total weights.

Walk the reels left to right.  A *partial state* after reel ``k`` is

* the tuple of all paylines' states (:mod:`analytic.engine.linewin`),
  numbered densely as a *joint id*,
* the counters (scatter cells, trigger cells, ... summed over reels so far),
* the pay of the lines already settled,

and carries the integer number of stop prefixes that lead to it.  Reading
reel ``k+1`` maps (state, window) to a new state; equal states merge, adding
their counts.  For one joint id, many windows lead to the same outcome
(same next joint id, same settled pay, same counter increments), so windows
are first grouped per joint id, and only distinct outcomes are crossed with
the states.  The work grows with the number of distinct partial states and
outcomes, never with the cycle.

Exactness: counts are int64 only when the cycle is below 2**62 and pays are
bounded well below 2**62 (checked up front); otherwise the walk runs on
Python integers (object arrays).  Nothing is ever a float.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analytic.engine.linewin import DEAD, CellRole, LinePaytable, LineStateMachine

__all__ = ["ReelWindows", "SpinSpec", "SpinDistribution", "walk"]

_SAFE = 1 << 62


@dataclass(frozen=True)
class ReelWindows:
    """The distinct windows of one reel with their weights.

    Attributes
    ----------
    cells : tuple of tuple of int
        ``cells[w][row]``: role id shown in that row.
    weights : tuple of int
        Number of stops (or weighted outcomes) showing window ``w``; > 0.
    counters : tuple of tuple of int
        ``counters[w][i]``: increment of counter ``i`` from window ``w``.
    """

    cells: tuple[tuple[int, ...], ...]
    weights: tuple[int, ...]
    counters: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class SpinSpec:
    """Everything the walk needs about one kind of spin.

    Attributes
    ----------
    paytable : LinePaytable
    roles : tuple of CellRole
    lines : tuple of tuple of int
        Row per reel for each payline.
    reels : tuple of ReelWindows
    counter_names : tuple of str
    line_multiplier : int
        Multiplies every line pay (a free-spin multiplier); 1 = none.
    reading : str
        How a line led by wilds is read (:data:`analytic.engine.linewin.READINGS`).
    """

    paytable: LinePaytable
    roles: tuple[CellRole, ...]
    lines: tuple[tuple[int, ...], ...]
    reels: tuple[ReelWindows, ...]
    counter_names: tuple[str, ...] = ()
    line_multiplier: int = 1
    reading: str = "highest"

    @property
    def cycle(self) -> int:
        """Product of the reels' total weights."""
        n = 1
        for r in self.reels:
            n *= sum(r.weights)
        return n


@dataclass(frozen=True)
class SpinDistribution:
    """Exact joint law of (counters, line win, line triggers) of one spin.

    Attributes
    ----------
    counter_names : tuple of str
        Names of the counters, then ``"line_triggers"`` last.
    table : dict
        ``(counters..., line_triggers, line_win) -> count`` (Python ints);
        ``line_win`` in credits (line-bet units).
    cycle : int
        Sum of all counts.
    """

    counter_names: tuple[str, ...]
    table: dict[tuple[int, ...], int]
    cycle: int


def _group(cols: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Group rows of equal values; returns (order, starts) of the sorted rows.

    ``cols`` are non-negative int64 columns of equal length.  Rows are packed
    into one int64 key when their bit widths fit, else sorted lexically.
    """
    n = len(cols[0])
    if n == 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    bits = [int(c.max()).bit_length() if len(c) else 0 for c in cols]
    if sum(bits) <= 62:
        key = np.zeros(n, dtype=np.int64)
        shift = 0
        for c, b in zip(cols, bits):
            if b:
                key |= c.astype(np.int64, copy=False) << shift
                shift += b
        order = np.argsort(key, kind="stable")
        ks = key[order]
        starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
        return order, starts
    order = np.lexsort(cols[::-1])
    diff = np.zeros(n, dtype=bool)
    diff[0] = True
    for c in cols:
        cs = c[order]
        diff[1:] |= cs[1:] != cs[:-1]
    return order, np.flatnonzero(diff)


def _codes(col: np.ndarray) -> np.ndarray:
    """An int64 column that groups like ``col`` (dense codes for Python-int columns)."""
    if col.dtype != object:
        return col
    return np.unique(col, return_inverse=True)[1].astype(np.int64).ravel()


def _segment_sum(values: np.ndarray, order: np.ndarray, starts: np.ndarray) -> np.ndarray:
    return np.add.reduceat(values[order], starts) if len(order) else values[:0]


def walk(spec: SpinSpec) -> SpinDistribution:
    """Exact joint distribution of counters, line triggers and line win of a spin.

    Parameters
    ----------
    spec : SpinSpec

    Returns
    -------
    SpinDistribution
        Counts over the cycle (product of reel weights); line wins in credits,
        already multiplied by ``spec.line_multiplier``.

    Notes
    -----
    See the module docstring for the method.  Cost: the sum over reels of
    (distinct joint line states x windows) for the transition tables plus
    (partial states x distinct outcomes per joint state) for the crossing.
    """
    nreels = len(spec.reels)
    machine = LineStateMachine(spec.paytable, spec.roles, spec.reading)
    nlines = len(spec.lines)
    ncount = len(spec.counter_names)
    cycle = spec.cycle
    max_pay = max((max(r) for r in spec.paytable.pays), default=0)
    max_mult = 1
    for r in spec.roles:
        max_mult = max(max_mult, r.multiplier)
    pay_bound = nlines * max_pay * max_mult**nreels * spec.line_multiplier
    wdtype = np.int64 if cycle < _SAFE else object
    pdtype = np.int64 if pay_bound < _SAFE else object

    # partial states
    jt = np.full((1, nlines), machine.initial, dtype=np.int64)  # joint id -> line states
    s_jid = np.zeros(1, dtype=np.int64)
    s_cnt = np.zeros((1, ncount + 1), dtype=np.int64)  # counters + line triggers
    s_acc = np.zeros(1, dtype=pdtype)
    s_w = np.ones(1, dtype=wdtype)

    for k, reel in enumerate(spec.reels):
        last = k == nreels - 1
        cells = np.asarray(reel.cells, dtype=np.int64).reshape(len(reel.weights), -1)
        wts = np.asarray(reel.weights, dtype=wdtype)
        inc = np.asarray(reel.counters, dtype=np.int64).reshape(len(reel.weights), ncount)
        nw = len(wts)
        nj = jt.shape[0]
        # transition table of this reel over the live line states and roles present
        live = np.unique(jt)
        roles_here = np.unique(cells)
        nstate_cap = len(machine.states) + 1
        tn = {}
        for s in live.tolist():
            for r in roles_here.tolist():
                tn[(s, r)] = machine.step(k, s, r)
        ns = len(machine.states)
        t_next = np.zeros((max(ns, nstate_cap), int(roles_here.max()) + 1), dtype=np.int64)
        t_pay = np.zeros(t_next.shape, dtype=pdtype)
        t_trg = np.zeros_like(t_next)
        for (s, r), (n2, p, t) in tn.items():
            t_next[s, r], t_pay[s, r], t_trg[s, r] = n2, p, t
        # per (joint id, window): next line states, settled pay, triggers
        new_lines = np.empty((nj, nw, nlines), dtype=np.int64)
        pay = np.zeros((nj, nw), dtype=pdtype)
        trg = np.zeros((nj, nw), dtype=np.int64)
        for li, line in enumerate(spec.lines):
            rl = cells[:, line[k]]
            st = jt[:, li][:, None]
            new_lines[:, :, li] = t_next[st, rl[None, :]]
            pay += t_pay[st, rl[None, :]]
            trg += t_trg[st, rl[None, :]]
        if last:
            nxt = np.zeros((nj, nw), dtype=np.int64)
            jt = np.full((1, nlines), DEAD, dtype=np.int64)
        else:
            flat = new_lines.reshape(nj * nw, nlines)
            order, starts = _group([flat[:, i] for i in range(nlines)])
            grp = np.zeros(nj * nw, dtype=np.int64)
            mark = np.zeros(nj * nw, dtype=np.int64)
            mark[starts] = 1
            grp[order] = np.cumsum(mark) - 1
            nxt = grp.reshape(nj, nw)
            jt = flat[order[starts]]
        # distinct outcomes per joint id: (j, next, pay, trig, counter incs) -> weight
        jj = np.repeat(np.arange(nj, dtype=np.int64), nw)
        ww = np.tile(np.arange(nw, dtype=np.int64), nj)
        cols = [jj, nxt.ravel(), _codes(pay.ravel()), trg.ravel()] + [
            np.tile(inc[:, i], nj) for i in range(ncount)
        ]
        order, starts = _group(cols)
        o_w = _segment_sum(wts[ww], order, starts)
        first = order[starts]
        o_j = jj[first]
        o_next = nxt.ravel()[first]
        o_pay = pay.ravel()[first].astype(pdtype)
        o_inc = np.column_stack([trg.ravel()[first]] + [np.tile(inc[:, i], nj)[first] for i in range(ncount)])
        # o_inc column 0 is triggers; reorder to counters..., triggers
        o_inc = np.column_stack([o_inc[:, 1:], o_inc[:, :1]])
        # CSR by joint id (outcomes are sorted by j first only if j is the leading key
        # in the packing; sort explicitly to be safe)
        by_j = np.argsort(o_j, kind="stable")
        o_j, o_next, o_pay, o_inc, o_w = o_j[by_j], o_next[by_j], o_pay[by_j], o_inc[by_j], o_w[by_j]
        n_out = np.bincount(o_j, minlength=nj)
        off = np.r_[0, np.cumsum(n_out)]
        # cross partial states with the outcomes of their joint id
        reps = n_out[s_jid]
        total = int(reps.sum())
        si = np.repeat(np.arange(len(s_jid)), reps)
        base = np.repeat(off[s_jid] - np.r_[0, np.cumsum(reps)[:-1]], reps)
        oi = base + np.arange(total)
        s_jid = o_next[oi]
        s_cnt = s_cnt[si] + o_inc[oi]
        s_acc = s_acc[si] + o_pay[oi]
        s_w = s_w[si] * o_w[oi]
        # merge equal partial states
        acc_col = s_acc if pdtype is np.int64 else None
        if acc_col is not None:
            order, starts = _group([s_jid] + [s_cnt[:, i] for i in range(ncount + 1)] + [acc_col])
            first = order[starts]
            s_w = _segment_sum(s_w, order, starts)
            s_jid, s_cnt, s_acc = s_jid[first], s_cnt[first], s_acc[first]
        else:  # Python-integer pays: merge through a dict
            merged: dict[tuple, int] = {}
            for j, c, a, w in zip(s_jid.tolist(), map(tuple, s_cnt.tolist()), s_acc.tolist(), s_w.tolist()):
                key = (j, c, a)
                merged[key] = merged.get(key, 0) + w
            keys = list(merged)
            s_jid = np.array([k[0] for k in keys], dtype=np.int64)
            s_cnt = np.array([k[1] for k in keys], dtype=np.int64).reshape(len(keys), ncount + 1)
            s_acc = np.array([k[2] for k in keys], dtype=object)
            s_w = np.array([merged[k] for k in keys], dtype=wdtype)

    lm = spec.line_multiplier
    table: dict[tuple[int, ...], int] = {}
    for c, a, w in zip(map(tuple, s_cnt.tolist()), s_acc.tolist(), s_w.tolist()):
        key = c + (int(a) * lm,)
        table[key] = table.get(key, 0) + int(w)
    return SpinDistribution(spec.counter_names + ("line_triggers",), table, cycle)
