"""The int64 form of a free spin's (award, win) law against the plain loop over the walk's table.

:func:`analytic.features.graph.spin_outcomes._joint_int64` groups the walk's rows
with numpy; the loop (:func:`~analytic.features.graph.spin_outcomes._joint_python`,
one row at a time in Python integers) is the reference: the same dict, key
order included (the grid law downstream sums floats in that order), the
same sums.  On the benchmark game of ``analytic.bench.lines`` (book =
wild scatter and retrigger symbol, nine drawn expanding symbols, rule
``wild_led_only``) and on a game whose wins pass 2**60, where the int64 form
must decline.
"""

from __future__ import annotations

import numpy as np
import pytest

from analytic.bench.lines import model_text
from analytic.engine.linewalk import SpinArrays
from analytic.features.graph import spin_outcomes as so
from analytic.model.loader import load_model_text


@pytest.fixture(scope="module")
def game():
    return load_model_text(model_text(10, stops=16), "<bench 10 lines, 16 stops>")


@pytest.mark.parametrize("expanding", [None, "explorer", "ten"])
def test_int64_grouping_equals_python_loop(game, expanding, monkeypatch):
    seen = []
    real = so._joint_int64

    def spy(arr, *a):
        out = real(arr, *a)
        seen.append((arr, a, out))
        return out

    monkeypatch.setattr(so, "_joint_int64", spy)
    o = so.free_spin_outcomes(game, "free_spins", expanding)
    (arr, (scale, sc_pay, exp_pay, mult, rcounts), fast), = seen
    assert fast is not None
    d = scale // mult
    ref = so._joint_python(arr.table(), arr.counter_names, d, mult, sc_pay, exp_pay, rcounts)
    assert list(fast[0].items()) == list(ref[0].items())
    assert all(type(a) is int and type(x) is int and type(c) is int for (a, x), c in fast[0].items())
    assert fast[1:] == ref[1:]
    assert o.joint == ref[0] and sum(o.joint.values()) == o.cycle
    assert len(set(o.joint.values())) > 1 and len({a for a, _ in o.joint}) > 1  # retriggers and many wins


def test_int64_declines_wins_beyond_2_60():
    arr = SpinArrays(("retrigger", "line_triggers"), np.zeros((2, 2), dtype=np.int64),
                     np.array([1, 1 << 59], dtype=np.int64), np.array([3, 4], dtype=np.int64), 7)
    assert so._joint_int64(arr, 4, {}, {}, 1, None) is None
    small = so._joint_int64(arr, 1, {}, {}, 1, None)
    assert small == ({(0, 1): 3, (0, 1 << 59): 4}, 3 + 4 * (1 << 59), 0, 0)
