"""The pick bonus's exact law against brute-force enumeration of every draw sequence."""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction

from hypothesis import given, settings, strategies as st

from analytic.features.engines.pick_bonus import bonus_distribution


def brute(picks: dict, per_pick: dict, prizes: list) -> dict:
    """Enumerate N picks, M prizes per pick and every prize sequence with its probability."""
    law: dict = defaultdict(Fraction)
    pt, mt, zt = sum(picks.values()), sum(per_pick.values()), sum(w for _, w in prizes)
    for n, wn in picks.items():
        for ms in itertools.product(per_pick.items(), repeat=n):
            p_ms = Fraction(wn, pt)
            for _, wm in ms:
                p_ms *= Fraction(wm, mt)
            for seq in itertools.product(prizes, repeat=sum(m for m, _ in ms)):
                p = p_ms
                for _, wz in seq:
                    p *= Fraction(wz, zt)
                law[sum(v for v, _ in seq)] += p
    return {x: p for x, p in sorted(law.items()) if p}


weights = st.integers(1, 4)


@settings(max_examples=40, deadline=None)
@given(picks=st.dictionaries(st.integers(1, 3), weights, min_size=1, max_size=2),
       per_pick=st.dictionaries(st.integers(1, 2), weights, min_size=1, max_size=2),
       prizes=st.lists(st.tuples(st.integers(0, 20), weights), min_size=1, max_size=3))
def test_law_is_the_enumerated_law(picks, per_pick, prizes):
    got = bonus_distribution({"picks": picks, "prizes_per_pick": per_pick, "prizes": prizes})
    assert {x: p for x, p in got.items() if p} == brute(picks, per_pick, prizes)
    assert sum(got.values()) == 1
