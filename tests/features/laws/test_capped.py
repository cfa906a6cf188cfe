"""Truncated polynomial powers (analytic.features.laws.capped) against brute-force enumeration."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from flint import fmpz_poly

from analytic.features.laws import capped as cp

# two drawn states, each an integer-weight law of one spin's win
SPIN = {
    "s": {0: 5, 2: 3, 3: 1, 7: 1},
    "t": {0: 2, 1: 1, 4: 2, 10: 1},
}
STATE_W = {"s": 2, "t": 1}
# base spin's joint law: (weight, base win, feature started?)
BASE = [(40, 0, False), (11, 1, False), (3, 5, False), (1, 25, False), (2, 0, True), (1, 2, True), (1, 6, True)]


def brute_feature(n: int) -> dict[int, Fraction]:
    """Law of the feature win: every state and every sequence of n spins."""
    law: dict[int, Fraction] = {}
    ws = sum(STATE_W.values())
    for s, w in STATE_W.items():
        tot = sum(SPIN[s].values())
        for seq in itertools.product(SPIN[s], repeat=n):
            p = Fraction(w, ws)
            for x in seq:
                p *= Fraction(SPIN[s][x], tot)
            law[sum(seq)] = law.get(sum(seq), 0) + p
    return law


def brute_round(n: int) -> dict[int, Fraction]:
    fl = brute_feature(n)
    tot = sum(w for w, _, _ in BASE)
    out: dict[int, Fraction] = {}
    for w, b, f in BASE:
        for x, q in (fl.items() if f else [(0, Fraction(1))]):
            out[b + x] = out.get(b + x, 0) + Fraction(w, tot) * q
    return out


def capped_of(law: dict, cap) -> tuple[Fraction, Fraction, dict]:
    mean = sum((p * min(w, cap) for w, p in law.items()), Fraction(0))
    reach = sum((p for w, p in law.items() if w >= cap), Fraction(0))
    dist: dict = {}
    for w, p in law.items():
        k = Fraction(min(w, cap))
        dist[k] = dist.get(k, 0) + p
    return mean, reach, {k: v for k, v in dist.items() if v}


def feature_law(n: int, cap) -> cp.TruncatedLaw:
    return cp.mixture([(STATE_W[s], cp.iid_sum(cp.law_from_weights(SPIN[s], cap), n)) for s in SPIN])


@pytest.mark.parametrize("n", [1, 3, 4])
@pytest.mark.parametrize("cap", [1, 5, Fraction(17, 2), 12, 40, 1000])
def test_feature_capped_mean_and_law(n, cap):
    want_mean, want_reach, want_dist = capped_of(brute_feature(n), cap)
    law = feature_law(n, cap)
    assert law.capped_mean == want_mean
    assert law.p_reach_cap == want_reach
    assert law.distribution() == want_dist
    w, tot = law.weights()
    assert {k: Fraction(v, tot) for k, v in w.items()} == want_dist


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("cap", [3, 9, Fraction(21, 2), 30])
def test_round_capped_mean_prefix_and_law(n, cap):
    want_mean, want_reach, want_dist = capped_of(brute_round(n), cap)
    pre = cp.Prefix(feature_law(n, cap))
    got = cp.round_capped_mean(((w, b, pre if f else None) for w, b, f in BASE), cap)
    assert got == (want_mean, want_reach)
    law = cp.round_law(((w, b, "fs" if f else None) for w, b, f in BASE), {"fs": feature_law(n, cap)}, cap)
    assert law.capped_mean == want_mean and law.p_reach_cap == want_reach
    assert law.distribution() == want_dist


def test_one_truncation_serves_smaller_caps():
    big = cp.Prefix(feature_law(3, 30))
    for cap in (1, 4, Fraction(13, 3), 11, 29, 30):
        want_mean, want_reach, _ = capped_of(brute_round(3), cap)
        got = cp.round_capped_mean(((w, b, big if f else None) for w, b, f in BASE), cap)
        assert got == (want_mean, want_reach)


def test_scaled_feature_and_fractional_grids():
    """A multiplier on the whole feature win, and wins on a fractional grid mixed with an integer one."""
    cap = Fraction(23, 2)
    a = cp.law_from_weights({Fraction(0): 1, Fraction(3, 2): 2, Fraction(5, 2): 1}, cap)
    b = cp.law_from_weights({0: 3, 2: 1}, cap)
    law = cp.mixture([(1, cp.scale(cp.iid_sum(a, 3), 2)), (2, b)])
    brute: dict = {}
    for seq in itertools.product(a.distribution().items(), repeat=3):
        p = Fraction(1, 3)
        for _, q in seq:
            p *= q
        x = 2 * sum(w for w, _ in seq)
        brute[x] = brute.get(x, 0) + p
    brute[Fraction(0)] = brute.get(Fraction(0), 0) + Fraction(2, 3) * Fraction(3, 4)
    brute[Fraction(2)] = brute.get(Fraction(2), 0) + Fraction(2, 3) * Fraction(1, 4)
    want_mean, want_reach, want_dist = capped_of(brute, cap)
    assert law.capped_mean == want_mean and law.p_reach_cap == want_reach
    assert law.distribution() == want_dist


@pytest.mark.parametrize("n", [2, 5, 9])
def test_truncation_identity(n):
    """Coefficients below L of a product depend only on the factors' coefficients below L."""
    p = fmpz_poly([3, 0, 1, 4, 1, 5, 9, 2, 6])
    q = fmpz_poly([2, 7, 1, 8, 2, 8])
    for L in (1, 3, 6, 10):
        assert (p * q).truncate(L) == p.truncate(L).mul_low(q.truncate(L), L)
        assert (p**n).truncate(L) == p.truncate(L).pow_trunc(n, L)


def test_no_cap_binding_gives_the_plain_mean():
    n = 3
    law = feature_law(n, 10**6)
    plain = sum((p * w for w, p in brute_feature(n).items()), Fraction(0))
    assert law.capped_mean == plain and law.p_reach_cap == 0


@pytest.mark.parametrize("cap", [1, 5, Fraction(17, 2), 40])
def test_iid_sums_share_products(cap):
    """Sums of n spins for several n from one chain of products, against enumeration of every sequence."""
    for s, w in SPIN.items():
        tot = sum(w.values())
        law = cp.law_from_weights(w, cap)
        counts = [0, 1, 3, 4, 4, 6] if s == "s" else [2, 5]
        got = list(cp.iid_sums(law, counts))
        assert [n for n, _ in got] == counts
        for n, part in got:
            want: dict = {}
            for seq in itertools.product(w, repeat=n):
                p = Fraction(1)
                for x in seq:
                    p *= Fraction(w[x], tot)
                want[sum(seq)] = want.get(sum(seq), 0) + p
            assert part.total == tot**n
            mean, reach, dist = capped_of(want, cap)
            assert part.capped_moments()[0] == mean and part.capped_moments()[2] == reach
            assert part.distribution() == dist
    with pytest.raises(ValueError):
        list(cp.iid_sums(cp.law_from_weights(SPIN["s"], cap), [3, 2]))
