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
  with and without settled lines (state 0) that it skips.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
from hypothesis import HealthCheck, given, settings

import analytic.engine.linewalk as lw
from analytic.engine.brute import brute_force
from analytic.engine.linewalk import walk, walk_arrays
from analytic.engine.linewalk_kernel import line_step
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
