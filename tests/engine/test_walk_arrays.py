"""The walk's array form and its packed-key merge, against the dict walk and plain references.

* :func:`walk_arrays` holds exactly :func:`walk`'s table (distinct rows, counts
  summing to the cycle), on the random games of ``test_walk_vs_brute``;
* the packed-key merge of partial states gives the same states, in the same
  order, as the column sort it replaces (forced by disabling the packing);
* :func:`_merge_keys` (both its branches) against a Counter;
* Python-integer counts and pays (cycle and pays beyond 2**62) against a
  scaled small walk: scaling one reel's weights scales every count, scaling
  the line multiplier scales every line win;
* ``line_expansion_rows`` on the tiny Book of Power game against the former
  construction (dict walk, ``np.unique(axis=0)``), rows and order.
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from unittest import mock

import numpy as np
from hypothesis import HealthCheck, given, settings

import analytic.engine.linewalk as lw
from analytic.engine.linewalk import ReelWindows, walk, walk_arrays
from analytic.engine.spin import CounterDef, build_spin
from analytic.model.game import ScatterPay, frozen_mapping
from test_walk_vs_brute import games, make_game


def _table(arr):
    rows = [tuple(c) + (int(a),) for c, a in zip(arr.counters.tolist(), arr.line_win.tolist())]
    assert len(set(rows)) == len(rows)  # distinct rows
    return dict(zip(rows, (int(w) for w in arr.count.tolist())))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_arrays_equal_dict_walk_and_unpacked_merge(gc):
    game, counters = gc
    spec = build_spin(game, "base", counters)
    arr = walk_arrays(spec)
    dist = walk(spec)
    assert arr.counter_names == dist.counter_names
    assert arr.cycle == dist.cycle == int(sum(arr.count.tolist()))
    assert arr.counters.dtype == np.int64 and arr.counters.shape == (len(arr.count), len(arr.counter_names))
    assert _table(arr) == dist.table
    assert list(_table(arr)) == list(dist.table)  # same order
    with mock.patch.object(lw, "_pack_crossing", lambda *a: None):  # the column sort of the states
        plain = walk(spec)
    assert list(plain.table.items()) == list(dist.table.items())


def test_merge_keys_both_branches():
    rng = np.random.default_rng(5)
    for n, kmax, wmax in [(1, 10, 3), (1000, 50, 7), (5000, 2**40, 2**20), (3000, 2**55, 2**30), (0, 1, 1)]:
        key = rng.integers(0, kmax, n, dtype=np.int64)
        w = rng.integers(1, wmax + 1, n, dtype=np.int64)
        want = Counter()
        for k, x in zip(key.tolist(), w.tolist()):
            want[k] += x
        for ww in (w, w.astype(object)):
            ks, s = lw._merge_keys(key.copy(), ww)
            assert ks.tolist() == sorted(want)
            assert [int(x) for x in s.tolist()] == [want[k] for k in sorted(want)]


def test_python_integer_counts_and_pays():
    rng = random.Random(3)
    syms = [("a", "regular"), ("b", "regular"), ("W", "wild", {"multiplier": 2}), ("S", "scatter")]
    strips = [[rng.choice("abWS") for _ in range(7)] for _ in range(4)]
    game = make_game(syms, {"a": {2: 3, 3: 9, 4: 40}, "b": {3: 5, 4: 17}, "W": {3: 50}},
                     [[0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 1, 0]], strips, rows=2,
                     scatter=ScatterPay(frozenset({"S"}), frozen_mapping({2: Fraction(1)})))
    small = build_spin(game, "base", [CounterDef("scatter", frozenset({"S"}), "cells")])
    ref = walk(small).table
    M = 3**40
    r0 = small.reels[0]
    heavy = (ReelWindows(r0.cells, tuple(w * M for w in r0.weights), r0.counters),) + small.reels[1:]
    for lm, pay_dtype in [(1, np.int64), (2**61 + 1, object)]:  # packed merge, then the dict merge
        big = replace(small, reels=heavy, line_multiplier=lm)
        assert big.cycle >= 2**62
        arr = walk_arrays(big)
        assert arr.count.dtype == object and arr.line_win.dtype == pay_dtype
        want = {k[:-1] + (k[-1] * lm,): c * M for k, c in ref.items()}
        assert _table(arr) == want
        assert walk(big).table == want


def test_line_expansion_rows_as_before():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "features" / "engines" / "drawn_expanding"))
    try:
        from test_drawn_oracles import tiny
    finally:
        sys.path.pop(0)
    from analytic.features.engines.drawn_expanding import draw_cap as rc
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats

    st = spin_stats(tiny(), "free_spins")  # (a fresh workspace: the table is walked here)
    A, E, L, cnt = rc.line_expansion_rows(st)
    # the former construction: dict walk, np.unique(axis=0) of the mapped rows
    base = build_spin(st.game, st.reel_set, ())
    reels = []
    for i, ws in enumerate(st.windows):
        ctr = tuple((st._wb[i][w][0],) + tuple(int(s in w) for s in st.ordered) for w, _ in sorted(ws.items()))
        reels.append(ReelWindows(cells=base.reels[i].cells, weights=base.reels[i].weights, counters=ctr))
    dist = walk(replace(base, reels=tuple(reels), counter_names=("books",) + tuple(st.ordered)))
    raw = np.array(list(dist.table.keys()), dtype=np.int64)
    c0 = np.array(list(dist.table.values()), dtype=np.int64)
    cols = [np.where(raw[:, 0] >= 2, st.spb * (raw[:, 0] - 1), 0)]
    for j, s in enumerate(st.ordered):
        cols.append(np.array([st._epay(s, k) for k in range(st.nreels + 1)], dtype=np.int64)[raw[:, 1 + j]])
    cols.append(raw[:, -1])
    keys, inv = np.unique(np.stack(cols, axis=1), axis=0, return_inverse=True)
    counts = np.zeros(len(keys), dtype=np.int64)
    np.add.at(counts, inv.ravel(), c0)
    ns = len(st.ordered)
    assert A.dtype == E.dtype == L.dtype == cnt.dtype == np.int64
    assert np.array_equal(A, keys[:, 0]) and np.array_equal(E, keys[:, 1:1 + ns])
    assert np.array_equal(L, keys[:, 1 + ns]) and np.array_equal(cnt, counts)
