"""Mixtures of i.i.d. sums on a Fourier grid against exact convolution in Fractions."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from analytic.features.laws.iid_sums import iid_sums_law


def exact_law(table, units, spins):
    """``{win (total-bet multiples): probability}`` by repeated convolution of the exact spin law."""
    cycle = sum(table.values())
    one = {Fraction(x, units): Fraction(c, cycle) for x, c in table.items()}
    out: dict = {}
    cur = {Fraction(0): Fraction(1)}
    for n in range(max(spins) + 1):
        if n in spins:
            for x, p in cur.items():
                out[x] = out.get(x, 0) + spins[n] * p
        nxt: dict = {}
        for x, p in cur.items():
            for y, q in one.items():
                nxt[x + y] = nxt.get(x + y, 0) + p * q
        cur = nxt
    return out


def check(table, units, spins):
    law = iid_sums_law(table, units, spins)
    want = exact_law(table, units, spins)
    got = {law.step * k: float(p) for k, p in enumerate(law.probs) if p}
    dist = sum(abs(got.get(x, 0.0) - float(p)) for x, p in want.items())
    dist += sum(p for x, p in got.items() if x not in want)
    assert dist <= law.error, (dist, law.error)
    assert law.error < 1e-9
    return law


def test_hand_example():
    # a spin wins 0 (3 of 4) or 2 units (1 of 4); N = 1 or 2 equally likely; 2 units per total bet:
    # P(0) = 1/2 * 3/4 + 1/2 * 9/16 = 21/32, P(1 bet) = 1/2 * 1/4 + 1/2 * 6/16 = 10/32, P(2) = 1/32
    law = check({0: 3, 2: 1}, 2, {1: Fraction(1, 2), 2: Fraction(1, 2)})
    assert law.step == 1
    assert np.allclose(law.probs, [21 / 32, 10 / 32, 1 / 32], atol=1e-15)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    table=st.dictionaries(st.integers(0, 40), st.integers(1, 50), min_size=1, max_size=6),
    units=st.integers(1, 25),
    spins=st.dictionaries(st.integers(0, 6), st.integers(1, 9), min_size=1, max_size=4),
)
def test_random_laws(table, units, spins):
    tot = sum(spins.values())
    check(table, units, {n: Fraction(w, tot) for n, w in spins.items()})


def test_refuses_bad_input():
    with pytest.raises(ValueError):
        iid_sums_law({-1: 1}, 1, {1: Fraction(1)})
    with pytest.raises(ValueError):
        iid_sums_law({1: 1}, 1, {1: Fraction(1, 2)})
    assert iid_sums_law({1 << 19: 1, 1: 1}, 1, {4: Fraction(1)}) is None  # 2^21 grid points needed
