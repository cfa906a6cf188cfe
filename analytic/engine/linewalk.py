"""The joint line walk: the exact distribution of a spin's win.

Method (``docs/derivations.md`` section 2)
------------------------------------------
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

Equal partial states are merged by sorting.  Each state is packed into one
int64 key, each field (next joint id, counters, triggers, settled pay) as
wide as the largest state + outcome sum it can hold, so a crossed state's key
is the sum of its state's and its outcome's keys; when key and count fit
together in 63 bits one plain sort of ``key << bits | count`` groups them.
When the fields do not fit in 62 bits the crossed states' columns are sorted
lexically (or merged through a dict when pays are Python integers).
:func:`walk_arrays` returns the final states as arrays; :func:`walk` builds
its dict table from them.

The per-reel step is compiled (:mod:`analytic.engine.linewalk_kernel`,
numba) when a reel's work, joint ids x windows x lines, reaches
``_KERNEL_MIN_WORK`` (or the much lower ``_KERNEL_LOADED_MIN_WORK`` once the
kernel is loaded) and pays and counts are int64.  Then the whole reel is
fused (:func:`_fused_reel`): a joint id is kept as the list of its live
lines (settled lines drop out), the kernel steps only those lines for each
window, merges the windows of a joint id into its distinct outcomes at once
(on the last reel from pays summed per row and role), and a second kernel
crosses the states with their outcomes and merges equal packed keys through
a hash table.  Nothing of size joint ids x windows x lines, or states x
outcomes, is built; memory follows the live lines and the distinct states.
The final distinct keys are sorted, so the rows and their order are those
of the sorting merge.  When the packed fields do not fit, the reel falls
back to the compiled line step (:func:`_kernel_step`) and the column
grouping.  Below the work threshold (or with Python-integer pays) the numpy
step reads each payline over all pairs.  With int64 pays the distinct
outcomes per joint id are merged through one packed key as the states are.

Exactness: counts are int64 only when the cycle is below 2**62 and pays are
bounded well below 2**62 (checked up front); otherwise the walk runs on
Python integers (object arrays).  Nothing is ever a float.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from analytic.engine.linewin import DEAD, BothWaysLineMachine, CellRole, LinePaytable, LineStateMachine

__all__ = ["ReelWindows", "SpinSpec", "SpinDistribution", "SpinArrays", "sorted_unique", "walk", "walk_arrays"]

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
    ways : bool
        Ways pays instead of paylines (``lines`` unused): the walk is
        :func:`analytic.engine.wayswalk.ways_walk_arrays`.
    both_ways : bool
        Pays both ways: ways, or paylines (:class:`analytic.engine.linewin.BothWaysLineMachine`),
        also read from the rightmost reel (a run over every reel paid once).
    combine : str
        How the multipliers of several wilds in a run combine (rule
        ``line_wild_multipliers``, :data:`analytic.engine.linewin.COMBINES`).
    all_wild_multiplied : bool
        Rule ``all_wild_win_multiplied``.
    chosen_on : str
        Rule ``line_win_chosen_on`` (:data:`analytic.engine.linewin.CHOICES`).
    source : str
        The model file, named when the walk is refused (beyond :data:`analytic.limits.MAX_WALK_ENTRIES`).
    """

    paytable: LinePaytable
    roles: tuple[CellRole, ...]
    lines: tuple[tuple[int, ...], ...]
    reels: tuple[ReelWindows, ...]
    counter_names: tuple[str, ...] = ()
    line_multiplier: int = 1
    reading: str = "highest"
    ways: bool = False
    both_ways: bool = False
    combine: str = "multiply"
    all_wild_multiplied: bool = True
    chosen_on: str = "final_pay"
    source: str = ""

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


@dataclass(frozen=True)
class SpinArrays:
    """Exact joint law of (counters, line triggers, line win) of one spin, as arrays.

    The rows of :class:`SpinDistribution`'s table, one per distinct key.

    Attributes
    ----------
    counter_names : tuple of str
        Names of the counters, then ``"line_triggers"`` last.
    counters : ndarray of int64, shape (n, len(counter_names))
        ``counters[i]``: the counters, then the line triggers, of row ``i``.
    line_win : ndarray, shape (n,)
        Line win of row ``i`` in credits (line-bet units); int64, or object
        (Python ints) when the walk's pay bound reaches 2**62.
    count : ndarray, shape (n,)
        Number of stop combinations of row ``i``; int64 when the cycle is
        below 2**62, else object (Python ints).  Sums to ``cycle``.
    cycle : int
        Product of the reels' total weights.
    """

    counter_names: tuple[str, ...]
    counters: np.ndarray
    line_win: np.ndarray
    count: np.ndarray
    cycle: int

    def table(self) -> dict[tuple[int, ...], int]:
        """The rows as :class:`SpinDistribution`'s table: ``(counters..., line_triggers, line_win) -> count``.

        Python integers, in row order; rows with equal keys (possible only
        when the walk's line multiplier is 0) summed.
        """
        cols = [c.tolist() for c in self.counters.T] + [[int(a) for a in self.line_win.tolist()]
                                                        if self.line_win.dtype == object else self.line_win.tolist()]
        vals = self.count.tolist() if self.count.dtype != object else [int(w) for w in self.count.tolist()]
        table: dict[tuple[int, ...], int] = dict(zip(zip(*cols), vals))
        if len(table) != len(vals):
            table = {}
            for key, w in zip(zip(*cols), vals):
                table[key] = table.get(key, 0) + w
        return table


def sorted_unique(a) -> np.ndarray:
    """The distinct values of an integer array, increasing: ``numpy.unique(a)`` without its overhead.

    The same array (values, order and dtype) as ``numpy.unique`` on the
    flattened array: a sort, then the entries that differ from their
    predecessor.  Written out because ``np.unique`` without its optional
    outputs asks ``numpy.ma`` whether ``a`` is masked, which imports
    ``numpy.ma`` (about 0.05 s of a cold start) on the first call, and its
    dispatch costs more than the sort on the short arrays the drawn-symbol
    chains pass once per state batch.

    Parameters
    ----------
    a : array_like of int
        Any shape (flattened).

    Returns
    -------
    ndarray, shape (k,)
    """
    a = np.sort(np.asarray(a), axis=None)
    if len(a) < 2:
        return a
    keep = np.empty(len(a), dtype=bool)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


def _group(cols: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Group rows of equal values; returns (order, starts) of the sorted rows.

    Within a group the rows come in no particular order (they are equal).
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
        # not a stable sort: the rows of a group are equal in every column, so which of them comes
        # first changes nothing a caller reads (a group's first row, its sums, the groups' order)
        order = np.argsort(key)
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


def _pack_crossing(o_next, s_cnt, s_acc, o_inc, o_pay):
    """Packed int64 keys of partial states and outcomes, or ``None`` if they do not fit.

    Fields from the lowest bits up: next joint id, counters..., line triggers,
    settled pay -- the field order of :func:`_group` on the columns
    ``[jid, counters..., triggers, pay]``.  Each field is as wide as the
    largest sum (state + outcome) it can hold, so the key of a crossed state
    is ``s_key + o_key`` with no carry between fields, and sorted keys give
    the lexical order (pay, triggers, counters reversed, jid) that
    :func:`_group` gives.  ``None`` when a value is negative or the widths
    exceed 62 bits.  Returns ``(s_key, o_key, widths)``.
    """
    if not len(s_acc) or not len(o_next):
        return None
    lows = (o_next.min(), s_cnt.min(), o_inc.min(), s_acc.min(), o_pay.min())
    if min(int(x) for x in lows) < 0:
        return None
    tops = [int(o_next.max())]
    tops += [int(a) + int(b) for a, b in zip(s_cnt.max(axis=0).tolist(), o_inc.max(axis=0).tolist())]
    tops.append(int(s_acc.max()) + int(o_pay.max()))
    widths = [t.bit_length() for t in tops]
    if sum(widths) > 62:
        return None
    s_key = np.zeros(len(s_acc), dtype=np.int64)
    o_key = np.zeros(len(o_next), dtype=np.int64)
    s_cols = [None] + [s_cnt[:, i] for i in range(s_cnt.shape[1])] + [s_acc]
    o_cols = [o_next] + [o_inc[:, i] for i in range(o_inc.shape[1])] + [o_pay]
    shift = 0
    for sc, oc, b in zip(s_cols, o_cols, widths):
        if b:
            if sc is not None:
                s_key |= sc.astype(np.int64, copy=False) << shift
            o_key |= oc.astype(np.int64, copy=False) << shift
            shift += b
    return s_key, o_key, widths


def _unpack(keys: np.ndarray, widths: list[int], ncol: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inverse of :func:`_pack_crossing`'s packing: ``(jid, counters (n, ncol), pay)``."""
    shifts = np.cumsum([0] + widths[:-1]).astype(np.int64)
    masks = np.array([(1 << b) - 1 for b in widths], dtype=np.int64)
    jid = (keys >> shifts[0]) & masks[0]
    cnt = (keys[:, None] >> shifts[None, 1:1 + ncol]) & masks[None, 1:1 + ncol]  # row-major (n, ncol)
    pay = (keys >> shifts[-1]) & masks[-1]
    return jid, cnt, pay


def _merge_keys(key: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct ``key`` values in increasing order and the sum of ``w`` over each (exact integers).

    ``key`` non-negative int64; ``w`` int64 or Python ints (object), same
    length.  When key and a non-negative int64 weight fit together in 63
    bits, one plain sort of ``key << bits(w) | w`` replaces the (much slower)
    argsort and its gathers.
    """
    if not len(key):
        return key[:0], w[:0]
    if w.dtype == np.int64:
        wb = int(w.max()).bit_length()
        if int(key.max()).bit_length() + wb <= 63 and int(w.min()) >= 0:
            kw = key << wb
            kw |= w
            kw.sort()
            ks = kw >> wb
            starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
            return ks[starts], np.add.reduceat(kw & ((1 << wb) - 1), starts)
    order = np.argsort(key)
    ks = key[order]
    starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
    return ks[starts], np.add.reduceat(w[order], starts)


def _outcomes_packed(nxt, pay, trg, inc, wts):
    """Distinct outcomes per joint id through one packed int64 key, or ``None`` if they do not fit.

    ``nxt``, ``pay``, ``trg``: int64 ``(nj, windows)``; ``inc``: int64
    ``(windows, counters)``; ``wts``: the windows' weights.  The key packs,
    from the highest bits down, joint id, next joint id, settled pay,
    triggers and counter increments; equal keys are merged with their
    weights summed (:func:`_merge_keys`).  Returns ``(o_j, o_next, o_pay,
    o_inc, o_w)`` sorted by joint id, ``o_inc`` with the counters first and
    the triggers last; within a joint id the order differs from the column
    grouping's, which changes nothing after the crossing's merge (a sort).
    ``None`` when a value is negative or the fields exceed 62 bits.
    """
    nj, nw = nxt.shape
    if not nj or not nw:
        return None
    ncount = inc.shape[1]
    cols = [nxt, pay, trg] + [np.broadcast_to(inc[:, i], (nj, nw)) for i in range(ncount)]
    if min(int(c.min()) for c in cols) < 0:
        return None
    widths = [max(nj - 1, 0).bit_length()] + [int(c.max()).bit_length() for c in cols]
    if sum(widths) > 62:
        return None
    key = np.zeros((nj, nw), dtype=np.int64)
    shifts = []
    shift = 0
    for c, b in zip(cols[::-1], widths[:0:-1]):  # lowest field first: the last counter
        shifts.append(shift)
        if b:
            key |= c.astype(np.int64, copy=False) << shift
        shift += b
    shifts = shifts[::-1]
    key |= np.arange(nj, dtype=np.int64)[:, None] << shift
    keys, o_w = _merge_keys(key.ravel(), np.broadcast_to(wts, (nj, nw)).ravel())

    def field(sh, b):
        return (keys >> sh) & ((1 << b) - 1)

    o_j = keys >> shift
    o_next, o_pay, o_trg = (field(sh, b) for sh, b in zip(shifts[:3], widths[1:4]))
    o_inc = np.column_stack([field(sh, b) for sh, b in zip(shifts[3:], widths[4:])] + [o_trg])
    return o_j, o_next, o_pay, o_inc.reshape(len(keys), ncount + 1), o_w


#: Work (joint ids x windows x lines) of one reel from which the compiled step
#: (:mod:`analytic.engine.linewalk_kernel`) replaces the numpy one.  Loading
#: numba and the cached kernels costs a process about 1-1.5 s and 135 MiB on
#: the 2-core machine, more than the numpy step saves below it (a 20-line
#: game's largest reel is 2.6e6, a 50-line game's 2.7e7).  Both steps give the
#: same final rows.
_KERNEL_MIN_WORK = 10_000_000
#: The same threshold once the kernel is loaded in this process (an earlier reel
#: or walk needed it): from there on it is faster than the numpy step.
_KERNEL_LOADED_MIN_WORK = 100_000


def _max_entries() -> int:
    """:data:`analytic.limits.MAX_WALK_ENTRIES` (read at each call: a test may lower it)."""
    from analytic import limits

    return limits.MAX_WALK_ENTRIES


def _kernel_loaded() -> bool:
    """Whether the compiled step is already imported (speed only: both steps give the same rows)."""
    return "analytic.engine.linewalk_kernel" in sys.modules


def _kernel_step(jt, cells, lines, k, t_next, t_pay, t_trg, last):
    """The compiled step of one reel (int64 pays only): ``(nxt, pay, trg, jt)``.

    The kernel numbers the distinct next joint states in order of first
    appearance, not in the sorted order of the numpy step.  The numbering
    does not reach the result: the packed outcomes and the crossing's merge
    sort whatever they receive, and on the last reel every joint id is 0, so
    the final rows, their order included, are those of the numpy step
    (``tests/engine/test_walk_kernel.py``).
    """
    from analytic.engine.linewalk_kernel import line_step

    roles = cells[:, [line[k] for line in lines]]
    nxt, pay, trg, rows = line_step(jt, roles, t_next, t_pay, t_trg, last)
    if last:
        rows = np.full((1, jt.shape[1]), DEAD, dtype=np.int64)
    return nxt, pay, trg, rows


def _sparse(jt):
    """Joint line states as lists of live lines: ``(off, ent)``, ``ent = line << 32 | state``.

    ``jt`` is either that pair already or a dense ``(nj, lines)`` array.
    """
    if isinstance(jt, tuple):
        return jt
    j, li = np.nonzero(jt)
    ent = (li.astype(np.int64) << 32) | jt[j, li].astype(np.int64)
    return np.r_[0, np.cumsum(np.bincount(j, minlength=jt.shape[0]))].astype(np.int64), ent


def _dense(jt, nlines: int) -> np.ndarray:
    """The dense ``(nj, lines)`` int64 array of joint line states (see :func:`_sparse`)."""
    if not isinstance(jt, tuple):
        return jt
    off, ent = jt
    out = np.zeros((len(off) - 1, nlines), dtype=np.int64)
    out[np.repeat(np.arange(len(off) - 1), np.diff(off)), ent >> 32] = ent & 0xFFFFFFFF
    return out


def _pack_fused(o_next, o_cls, inc_u, o_trg, o_pay, s_cnt, s_acc):
    """:func:`_pack_crossing`'s keys for the fused reel, compiled
    (:func:`analytic.engine.linewalk_kernel.pack_fused`), or ``None`` when they do not fit."""
    from analytic.engine.linewalk_kernel import pack_fused

    return pack_fused(o_next, o_cls, inc_u, o_trg, o_pay, s_cnt, s_acc)


def _fused_reel(jt, cells, lines, k, t_next, t_pay, t_trg, last, inc, wts, s_jid, s_cnt, s_acc, s_w):
    """One reel stepped, crossed and merged by the compiled kernels (int64 pays and counts).

    :func:`analytic.engine.linewalk_kernel.reel_outcomes` gives the distinct
    outcomes of every joint id (joint ids kept as lists of live lines,
    :func:`_sparse`), :func:`_pack_fused` their packed keys (those of
    :func:`_pack_crossing`),
    :func:`analytic.engine.linewalk_kernel.cross_merge` the distinct crossed
    states through a hash table (no sort, nothing of size states x outcomes
    kept).  The states come out in hash order, which nothing downstream
    reads: the next reel's merge is again a hash, and on the last reel the
    distinct keys are sorted, so the final rows and their order are those
    of the sorting merge (:func:`_merge_keys`).  Returns ``(jt, s_jid,
    s_cnt, s_acc, s_w)``, or ``None`` when the packed fields exceed 62 bits
    (the caller's column path takes the reel).
    """
    from analytic.engine.linewalk_kernel import cross_merge, reel_outcomes, unpack_keys

    line_rows = np.array([line[k] for line in lines], dtype=np.int64)
    if inc.shape[1]:
        inc_u, incc = np.unique(inc, axis=0, return_inverse=True)
    else:
        inc_u, incc = inc[:1], np.zeros(len(inc), dtype=np.int64)
    j_off, j_ent = _sparse(jt)
    off, o_next, o_pay, o_trg, o_cls, o_w, r_off, r_ent = reel_outcomes(
        j_off, j_ent, cells, line_rows, t_next, t_pay, t_trg, last, incc.ravel(), wts, max_entries=_max_entries())
    # the packed keys of _pack_crossing (same widths), without the (outcomes, counters) increments array
    packed = _pack_fused(o_next, o_cls, inc_u, o_trg, o_pay, s_cnt, s_acc)
    if packed is None:
        return None
    s_key, o_key, widths = packed
    keys, w = cross_merge(s_jid, s_key, s_w, off, o_key, o_w, max_entries=_max_entries())
    if last:
        order = np.argsort(keys)
        keys, w = keys[order], w[order]
    s_jid, s_cnt, s_acc = unpack_keys(keys, widths, inc_u.shape[1] + 1)
    return (r_off, r_ent), s_jid, s_cnt, s_acc, w


def _refuse_size(spec: SpinSpec, k: int, what: str):
    """The :class:`~analytic.errors.ModelError` of a walk beyond :data:`analytic.limits.MAX_WALK_ENTRIES`."""
    from analytic.errors import ModelError

    return ModelError(spec.source or "<model>", "paylines",
                      f"the exact walk of {len(spec.lines):,} paylines over the reels' {len(spec.reels[k].weights):,} "
                      f"distinct windows at reel {k + 1} needs {what} (at most {_max_entries():,} entries an array: "
                      "the joint state of every payline is kept exactly, its memory grows with the lines crossing "
                      "distinct windows); fewer paylines, rows or distinct windows")


def _walk_states(spec: SpinSpec, load_kernel: bool = False):
    """The walk itself: final partial states ``(counters+triggers, settled pay, count)``.

    Rows are distinct.  Pays are not yet multiplied by ``spec.line_multiplier``.
    Returns ``(s_cnt, s_acc, s_w, pdtype)`` (see :func:`walk_arrays` for the dtypes).
    ``load_kernel``: as in :func:`walk_arrays`.
    """
    nreels = len(spec.reels)
    if spec.both_ways:
        machine = BothWaysLineMachine(spec.paytable, spec.roles, spec.reading)
    else:
        machine = LineStateMachine(spec.paytable, spec.roles, spec.reading, spec.combine,
                                   spec.all_wild_multiplied, spec.chosen_on)
    nlines = len(spec.lines)
    ncount = len(spec.counter_names)
    cycle = spec.cycle
    max_pay = max((max(r) for r in spec.paytable.pays), default=0)
    max_mult = 1
    for r in spec.roles:
        max_mult = max(max_mult, r.multiplier)
    # a bound of a run's multiplier under every combination rule (product, sum, largest); both ways: twice
    pay_bound = (nlines * max_pay * max(max_mult**nreels, max_mult * nreels) * spec.line_multiplier
                 * (2 if spec.both_ways else 1))
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
        nj = len(jt[0]) - 1 if isinstance(jt, tuple) else jt.shape[0]
        # transition table of this reel over the live line states and roles present
        if isinstance(jt, tuple):  # lists of live lines (the compiled step's form)
            live = sorted_unique(np.r_[jt[1] & 0xFFFFFFFF, 0])  # the line states present, increasing
        else:
            live = np.flatnonzero(np.bincount(jt.ravel()))
        roles_here = sorted_unique(cells)
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
        # per (joint id, window): next joint id, settled pay, triggers
        work = nj * nw * nlines
        compiled = work >= _KERNEL_MIN_WORK or (work >= _KERNEL_LOADED_MIN_WORK and (load_kernel or _kernel_loaded()))
        if compiled and pdtype is np.int64 and wdtype is np.int64:
            from analytic.engine.linewalk_kernel import WalkTooLarge

            try:
                fused = _fused_reel(jt, cells, spec.lines, k, t_next, t_pay, t_trg, last, inc, wts,
                                    s_jid, s_cnt, s_acc, s_w)
            except WalkTooLarge as exc:
                raise _refuse_size(spec, k, str(exc)) from None
            if fused is not None:
                jt, s_jid, s_cnt, s_acc, s_w = fused
                continue
        if nj * nw * nlines > _max_entries():  # the steps below hold (joint id, window, line) arrays
            raise _refuse_size(spec, k, f"{nj * nw * nlines:,} (joint state, window, line) entries in one array")
        jt = _dense(jt, nlines)
        if pdtype is np.int64 and compiled:
            nxt, pay, trg, jt = _kernel_step(jt, cells, spec.lines, k, t_next, t_pay, t_trg, last)
        else:
            # one flat index per (joint id, window) and line into the (state, role) tables; a line's
            # next states are written to its own contiguous block (line-major)
            new_lines = None if last else np.empty((nlines, nj, nw), dtype=np.int64)
            pay = np.zeros((nj, nw), dtype=pdtype)
            trg = np.zeros((nj, nw), dtype=np.int64)
            ncol = t_next.shape[1]
            f_next, f_pay, f_trg = t_next.ravel(), t_pay.ravel(), t_trg.ravel()
            any_trg = bool(t_trg.any())  # no line triggers in this reel's table: trg stays 0
            for li, line in enumerate(spec.lines):
                idx = jt[:, li][:, None] * ncol + cells[:, line[k]][None, :]
                if not last:
                    np.take(f_next, idx, out=new_lines[li])
                pay += f_pay.take(idx)
                if any_trg:
                    trg += f_trg.take(idx)
            if last:
                nxt = np.zeros((nj, nw), dtype=np.int64)
                jt = np.full((1, nlines), DEAD, dtype=np.int64)
            else:
                flat = new_lines.reshape(nlines, nj * nw).T
                order, starts = _group([flat[:, i] for i in range(nlines)])
                grp = np.zeros(nj * nw, dtype=np.int64)
                mark = np.zeros(nj * nw, dtype=np.int64)
                mark[starts] = 1
                grp[order] = np.cumsum(mark) - 1
                nxt = grp.reshape(nj, nw)
                jt = np.ascontiguousarray(flat[order[starts]])
                del new_lines, flat, grp, mark
        # distinct outcomes per joint id: (j, next, pay, trig, counter incs) -> weight
        packed_out = _outcomes_packed(nxt, pay, trg, inc, wts) if pdtype is np.int64 else None
        if packed_out is not None:
            o_j, o_next, o_pay, o_inc, o_w = packed_out
        else:
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
        if total > _max_entries():
            raise _refuse_size(spec, k, f"{total:,} crossed partial states in one array")
        si = np.repeat(np.arange(len(s_jid)), reps)
        base = np.repeat(off[s_jid] - np.r_[0, np.cumsum(reps)[:-1]], reps)
        oi = base + np.arange(total)
        # merge equal partial states
        packed = _pack_crossing(o_next, s_cnt, s_acc, o_inc, o_pay) if pdtype is np.int64 else None
        if packed is not None:  # one int64 key per crossed state (s_key + o_key), sorted once
            s_key, o_key, widths = packed
            key = s_key[si]
            key += o_key[oi]
            keys, s_w = _merge_keys(key, s_w[si] * o_w[oi])
            s_jid, s_cnt, s_acc = _unpack(keys, widths, ncount + 1)
            continue
        s_jid = o_next[oi]
        s_cnt = s_cnt[si] + o_inc[oi]
        s_acc = s_acc[si] + o_pay[oi]
        s_w = s_w[si] * o_w[oi]
        if pdtype is np.int64:  # too wide to pack: lexical sort of the columns
            order, starts = _group([s_jid] + [s_cnt[:, i] for i in range(ncount + 1)] + [s_acc])
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

    return s_cnt, s_acc, s_w, pdtype


def walk_arrays(spec: SpinSpec, load_kernel: bool = False) -> SpinArrays:
    """Exact joint distribution of counters, line triggers and line win of a spin, as arrays.

    The same law as :func:`walk` (which is built from it), without the dict.

    Parameters
    ----------
    spec : SpinSpec
    load_kernel : bool
        Speed only (the rows are the same either way): step every reel of at
        least ``_KERNEL_LOADED_MIN_WORK`` (joint line states x windows x lines)
        with the compiled step, loading it if this process has not yet (about
        0.16 s of CPU).  For a caller about to walk many spins (a feature's
        walk per symbol); by default the compiled step is loaded only for a
        reel of ``_KERNEL_MIN_WORK``, so that a small game's solve does not
        pay for the load.

    Returns
    -------
    SpinArrays
        One row per distinct (counters, line triggers, line win), in an
        unspecified but deterministic order; counts over the cycle (product
        of reel weights), line wins in credits, already multiplied by
        ``spec.line_multiplier``.

    Notes
    -----
    See the module docstring for the method and :func:`walk` for the cost.
    A ways spin (``spec.ways``) is walked by
    :func:`analytic.engine.wayswalk.ways_walk_arrays` (its own method and cost).
    """
    if spec.ways:
        from analytic.engine.wayswalk import ways_walk_arrays

        return ways_walk_arrays(spec)
    s_cnt, s_acc, s_w, pdtype = _walk_states(spec, load_kernel)
    lm = spec.line_multiplier
    top = int(np.abs(s_acc).max()) if pdtype is np.int64 and len(s_acc) else 0
    if pdtype is np.int64 and isinstance(lm, (int, np.integer)) and top * abs(int(lm)) < _SAFE:
        win = s_acc * int(lm)
    else:
        win = np.array([int(a) * lm for a in s_acc.tolist()], dtype=object)
    return SpinArrays(spec.counter_names + ("line_triggers",), s_cnt, win, s_w, spec.cycle)


def walk(spec: SpinSpec, load_kernel: bool = False) -> SpinDistribution:
    """Exact joint distribution of counters, line triggers and line win of a spin.

    Parameters
    ----------
    spec : SpinSpec
    load_kernel : bool
        As in :func:`walk_arrays` (speed only).

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
    The table is built from :func:`walk_arrays`.
    """
    arr = walk_arrays(spec, load_kernel)
    table = arr.table()
    return SpinDistribution(arr.counter_names, table, arr.cycle)
