"""The compiled per-reel step of the walk against brute force and against the numpy step.

* forced on every reel (work threshold 0), the walk equals the brute-force
  enumerator (:func:`analytic.engine.brute.brute_force`, its own line
  evaluation) on the random games of ``test_walk_vs_brute``;
* forced on or off, the walk's final arrays are identical, row order
  included (the kernel numbers joint states in order of appearance, the
  numpy step in sorted order; the merges after them sort), and so are
  they with the outcomes grouped by columns instead of one packed key;
* the kernel itself against a plain Python reference on random tables
  (hash collisions and table growth exercised by many distinct rows),
  with and without settled lines (state 0) that it skips;
* the fused reel kernels (:func:`reel_outcomes`: outcomes per joint id from
  lists of live lines, with and without the roles' classes per row; :func:`cross_merge`: the crossing merged through a
  hash) against plain Python references, and the walk with the fused path
  refused on some reels (packed fields too wide) so that it changes form
  between reels, against the numpy step.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import analytic.engine.linewalk as lw
from analytic.engine.brute import brute_force
from analytic.engine.linewalk import walk, walk_arrays
from analytic.engine.linewalk_kernel import (WalkTooLarge, cross_merge, line_step, pack_fused, reel_outcomes,
                                             unpack_keys)
from analytic.engine.spin import build_spin
from test_walk_vs_brute import games


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_kernel_walk_equals_brute_force_and_numpy_step(gc):
    game, counters = gc
    spec = build_spin(game, "base", counters)
    with mock.patch.object(lw, "_KERNEL_MIN_WORK", 0):
        fast = walk_arrays(spec)
        table = walk(spec).table
    with mock.patch.object(lw, "_KERNEL_MIN_WORK", 1 << 62), mock.patch.object(lw, "_KERNEL_LOADED_MIN_WORK", 1 << 62):
        slow = walk_arrays(spec)
        with mock.patch.object(lw, "_outcomes_packed", lambda *a: None):  # the column grouping of outcomes
            cols = walk_arrays(spec)
    assert table == brute_force(game, "base", counters)
    for other in (slow, cols):
        for a, b in [(fast.counters, other.counters), (fast.line_win, other.line_win), (fast.count, other.count)]:
            assert a.dtype == b.dtype and a.shape == b.shape and a.tolist() == b.tolist()


def test_kernel_against_python_reference():
    rng = np.random.default_rng(11)
    for nj, nw, nl, ns, nr in [(1, 5, 3, 4, 3), (40, 30, 7, 9, 5), (300, 64, 20, 6, 4), (2000, 3, 2, 50, 2)]:
        jt = rng.integers(0, ns, (nj, nl), dtype=np.int64)
        roles = rng.integers(0, nr, (nw, nl), dtype=np.int64)
        t_next = rng.integers(0, ns, (ns, nr), dtype=np.int64)
        t_pay = rng.integers(0, 1000, (ns, nr), dtype=np.int64)
        t_trg = rng.integers(0, 2, (ns, nr), dtype=np.int64)
        for last, settled in [(False, False), (True, False), (False, True), (True, True)]:
            if settled:  # state 0 settled: its rows zero, the kernel skips its lines
                jt[rng.random(jt.shape) < 0.6] = 0
                t_next[0] = t_pay[0] = t_trg[0] = 0
            nxt, pay, trg, rows = line_step(jt, roles, t_next, t_pay, t_trg, last)
            ids: dict[tuple, int] = {}
            for j in range(nj):
                for w in range(nw):
                    st = [int(jt[j, li]) for li in range(nl)]
                    rl = [int(roles[w, li]) for li in range(nl)]
                    assert pay[j, w] == sum(int(t_pay[s, r]) for s, r in zip(st, rl))
                    assert trg[j, w] == sum(int(t_trg[s, r]) for s, r in zip(st, rl))
                    if not last:
                        row = tuple(int(t_next[s, r]) for s, r in zip(st, rl))
                        assert nxt[j, w] == ids.setdefault(row, len(ids))
            if not last:
                assert [tuple(r) for r in rows.tolist()] == list(ids)


def _sparse_rows(jt):
    return [[(li << 32) | int(v) for li, v in enumerate(row) if v] for row in jt.tolist()]


def test_reel_outcomes_against_python_reference():
    rng = np.random.default_rng(12)
    for nj, nw, nrows, nl, ns, nr, ninc in [(1, 5, 1, 3, 4, 3, 1), (40, 30, 3, 7, 9, 5, 3), (300, 64, 4, 20, 6, 4, 2),
                                            (2000, 3, 2, 2, 50, 2, 1), (500, 40, 3, 30, 5, 12, 4)]:
        jt = rng.integers(0, ns, (nj, nl), dtype=np.int64)
        jt[rng.random(jt.shape) < 0.5] = 0
        cells = rng.integers(0, nr, (nw, nrows), dtype=np.int64)
        line_rows = rng.integers(0, nrows, nl, dtype=np.int64)
        t_next = rng.integers(0, ns, (ns, nr), dtype=np.int64)
        t_pay = rng.integers(0, 1000, (ns, nr), dtype=np.int64)
        t_trg = rng.integers(0, 2, (ns, nr), dtype=np.int64)
        t_next[0] = t_pay[0] = t_trg[0] = 0
        if nr > 3:  # few distinct pays: many windows merge into one outcome
            t_pay %= 3
        if nw > 30:  # few distinct next states: a row's roles fall into few classes (by_class)
            t_next %= 3
        incc = rng.integers(0, ninc, nw, dtype=np.int64)
        wts = rng.integers(1, 9, nw, dtype=np.int64)
        rows = _sparse_rows(jt)
        j_off = np.r_[0, np.cumsum([len(r) for r in rows])].astype(np.int64)
        j_ent = np.array([e for r in rows for e in r], dtype=np.int64)
        refs = {}
        for last in (False, True):  # the Python reference: per joint id, its outcomes; the next states' ids
            ids: dict[tuple, int] = {}
            wants = []
            tl, pl, gl = t_next.tolist(), t_pay.tolist(), t_trg.tolist()
            for j in range(nj):
                want: dict[tuple, int] = {}
                st = jt[j].tolist()
                for wi in range(nw):
                    rl = [int(cells[wi, line_rows[li]]) for li in range(nl)]
                    p = sum(pl[s][r] for s, r in zip(st, rl))
                    t = sum(gl[s][r] for s, r in zip(st, rl))
                    nx = 0
                    if not last:
                        row = tuple(tl[s][r] for s, r in zip(st, rl))
                        nx = ids.setdefault(row, len(ids))
                    key = (nx, p, t, int(incc[wi]))
                    want[key] = want.get(key, 0) + int(wts[wi])
                wants.append(want)
            refs[last] = ids, wants
        for last, by_class in [(False, True), (False, False), (True, None)]:
            off, nxt, pay, trg, inc, w, r_off, r_ent = reel_outcomes(j_off, j_ent, cells, line_rows, t_next, t_pay,
                                                                     t_trg, last, incc, wts, by_class)
            ids, wants = refs[last]
            for j in range(nj):
                got = {(int(nxt[o]), int(pay[o]), int(trg[o]), int(inc[o])): int(w[o]) for o in range(off[j], off[j + 1])}
                assert off[j + 1] - off[j] == len(got) and got == wants[j]
            if last:
                assert r_off.tolist() == [0] and len(r_ent) == 0
            # the same under a limit the arrays stay within (their capacity doubles from 64 / 1,024 / 8,192),
            # refused below it
            roomy = reel_outcomes(j_off, j_ent, cells, line_rows, t_next, t_pay, t_trg, last, incc, wts, by_class,
                                  max_entries=4 * max(len(w), len(r_ent), len(r_off), 8192, 4 * nj))
            assert [a.tolist() for a in roomy] == [a.tolist() for a in (off, nxt, pay, trg, inc, w, r_off, r_ent)]
            if max(len(w), len(r_ent)) > 2 * max(64, 4 * nj, 8192):
                with pytest.raises(WalkTooLarge, match="distinct outcomes"):
                    reel_outcomes(j_off, j_ent, cells, line_rows, t_next, t_pay, t_trg, last, incc, wts, by_class,
                                  max_entries=max(len(w), len(r_ent)) // 2)
            else:
                assert [r_ent[r_off[i]:r_off[i + 1]].tolist() for i in range(len(r_off) - 1)] == [
                    _sparse_rows(np.array([row]))[0] for row in ids]
    bad = np.ones((2, 2), dtype=np.int64)
    with pytest.raises(ValueError, match="state 0"):
        reel_outcomes(np.zeros(2, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros((1, 1), dtype=np.int64),
                      np.zeros(1, dtype=np.int64), bad, bad, bad, False, np.zeros(1, dtype=np.int64),
                      np.ones(1, dtype=np.int64))


def test_cross_merge_against_python_reference():
    rng = np.random.default_rng(13)
    for ns, nj, nout, kmax in [(1, 1, 1, 5), (50, 4, 30, 40), (3000, 200, 2000, 1 << 20), (5000, 7, 300, 60)]:
        s_jid = rng.integers(0, nj, ns, dtype=np.int64)
        s_key = rng.integers(0, kmax, ns, dtype=np.int64)
        s_w = rng.integers(1, 1 << 20, ns, dtype=np.int64)
        cnt = rng.integers(0, 2 * nout // nj + 1, nj)
        off = np.r_[0, np.cumsum(cnt)].astype(np.int64)
        o_key = rng.integers(0, kmax, off[-1], dtype=np.int64)
        o_w = rng.integers(1, 1 << 20, off[-1], dtype=np.int64)
        want: dict[int, int] = {}
        for i in range(ns):
            for o in range(off[s_jid[i]], off[s_jid[i] + 1]):
                k = int(s_key[i] + o_key[o])
                want[k] = want.get(k, 0) + int(s_w[i]) * int(o_w[o])
        keys, w = cross_merge(s_jid, s_key, s_w, off, o_key, o_w)
        assert list(zip(keys.tolist(), w.tolist())) == list(want.items())  # first appearance order
        # a limit on the distinct states (the merge's capacity, doubled from 1,024 or the states' count)
        keys, w = cross_merge(s_jid, s_key, s_w, off, o_key, o_w, max_entries=4 * max(len(want), ns, 1024))
        assert list(zip(keys.tolist(), w.tolist())) == list(want.items())
        if len(want) > 2 * max(ns, 1024):
            with pytest.raises(WalkTooLarge, match="distinct partial states"):
                cross_merge(s_jid, s_key, s_w, off, o_key, o_w, max_entries=len(want) // 2)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_fused_walk_changing_form_between_reels(gc):
    """The fused path refused on every other reel (as when its packed fields exceed 62 bits):
    the joint states go from lists of live lines to the dense array and back; same rows, same order."""
    game, counters = gc
    spec = build_spin(game, "base", counters)
    calls = [0]
    real = lw._pack_fused

    def every_other(*a):
        calls[0] += 1
        return real(*a) if calls[0] % 2 else None

    with mock.patch.object(lw, "_KERNEL_MIN_WORK", 1 << 62), mock.patch.object(lw, "_KERNEL_LOADED_MIN_WORK", 1 << 62):
        slow = walk_arrays(spec)
    for first in (0, 1):
        calls[0] = first
        with mock.patch.object(lw, "_KERNEL_MIN_WORK", 0), mock.patch.object(lw, "_pack_fused", every_other):
            mixed = walk_arrays(spec)
        for a, b in [(mixed.counters, slow.counters), (mixed.line_win, slow.line_win), (mixed.count, slow.count)]:
            assert a.dtype == b.dtype and a.shape == b.shape and a.tolist() == b.tolist()


def test_pack_fused_and_unpack_keys_against_the_numpy_packing():
    """The compiled packing (increments by class, triggers apart) gives _pack_crossing's keys and widths,
    refuses what it refuses (negative values, more than 62 bits), and unpack_keys inverts it like _unpack."""
    rng = np.random.default_rng(5)
    for ns, no, ncls, nc, top in [(1, 1, 1, 0, 3), (40, 300, 5, 2, 1000), (2000, 5000, 30, 3, 1 << 20),
                                  (10, 10, 2, 1, 1 << 40)]:
        s_cnt = rng.integers(0, 7, (ns, nc + 1), dtype=np.int64)
        s_acc = rng.integers(0, top, ns, dtype=np.int64)
        inc_u = rng.integers(0, 4, (ncls, nc), dtype=np.int64)
        o_cls = rng.integers(0, max(1, ncls - 1), no, dtype=np.int64)  # the last class unused
        o_next = rng.integers(0, 500, no, dtype=np.int64)
        o_trg = rng.integers(0, 3, no, dtype=np.int64)
        o_pay = rng.integers(0, top, no, dtype=np.int64)
        o_inc = np.column_stack([inc_u[o_cls], o_trg])
        want = lw._pack_crossing(o_next, s_cnt, s_acc, o_inc, o_pay)
        got = pack_fused(o_next, o_cls, inc_u, o_trg, o_pay, s_cnt, s_acc)
        if want is None:
            assert got is None
            continue
        assert got[2] == want[2] and got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()
        keys = (got[0][:50, None] + got[1][None, :200]).ravel()  # crossed keys, as cross_merge sums them
        for a, b in zip(unpack_keys(keys, got[2], nc + 1), lw._unpack(keys, want[2], nc + 1)):
            assert a.tolist() == b.tolist()
    s_cnt, s_acc = np.zeros((2, 1), dtype=np.int64), np.array([0, 1 << 61], dtype=np.int64)
    one = np.ones(1, dtype=np.int64)
    assert pack_fused(one, 0 * one, np.zeros((1, 0), dtype=np.int64), one, one << 61, s_cnt, s_acc) is None
    assert pack_fused(-one, 0 * one, np.zeros((1, 0), dtype=np.int64), one, one, s_cnt, s_acc[:1]) is None


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_load_kernel_steps_with_the_compiled_step_and_gives_the_same_rows(gc):
    """``load_kernel=True`` (a feature's walk per symbol) takes the compiled step below the cold
    threshold, even where the process has not loaded it; the rows are those of the numpy step."""
    game, counters = gc
    spec = build_spin(game, "base", counters)
    calls = []
    real_fused, real_step = lw._fused_reel, lw._kernel_step

    def fused(*a, **k):
        calls.append("fused")
        return real_fused(*a, **k)

    def step(*a, **k):
        calls.append("step")
        return real_step(*a, **k)

    with mock.patch.object(lw, "_KERNEL_MIN_WORK", 1 << 62), mock.patch.object(lw, "_KERNEL_LOADED_MIN_WORK", 0), \
            mock.patch.object(lw, "_kernel_loaded", lambda: False), mock.patch.object(lw, "_fused_reel", fused), \
            mock.patch.object(lw, "_kernel_step", step):
        slow = walk_arrays(spec)
        assert calls == []  # not loaded, below the cold threshold: the numpy step
        fast = walk_arrays(spec, load_kernel=True)
        assert len(calls) >= len(spec.reels)  # every reel through the compiled step
        table = walk(spec, load_kernel=True).table
    assert table == brute_force(game, "base", counters)
    for a, b in [(fast.counters, slow.counters), (fast.line_win, slow.line_win), (fast.count, slow.count)]:
        assert a.dtype == b.dtype and a.shape == b.shape and a.tolist() == b.tolist()
