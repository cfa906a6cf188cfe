"""The certified grid law of free spins with retriggers against independent answers.

Oracles: a law worked out by hand (a geometric series), an exact path-by-path
enumeration in Fractions of small random spin laws (hypothesis), and Wald's
closed-form mean of the shipped case games.
"""

import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from analytic.features.engines.wald_spins import solve_free_spins
from analytic.features.laws.retrigger_law import retrigger_law, zero_probability
from analytic.model.loader import load_model

#: ANALYTIC_SLOW=1: ten times the path-enumeration examples (README, Tests).
SLOW = os.environ.get("ANALYTIC_SLOW") == "1"

CASES = Path(__file__).resolve().parents[2] / "cases"


def test_hand_worked_geometric_law():
    # a spin: 1/2 pays 0; 1/4 pays 1; 1/4 pays 1 and awards one more spin.
    # G = 1/2 + x/4 + (x/4) G  =>  g_0 = 1/2, g_k = 1.5 / 4^k (k >= 1)
    joint = {(0, 0): 2, (0, 1): 1, (1, 1): 1}
    law = retrigger_law(joint, 4, 1, 1, Fraction(1, 4))
    expected = np.array([0.5] + [1.5 / 4**k for k in range(1, len(law.probs))])
    assert np.abs(law.probs - expected).sum() <= law.error
    assert law.error < 1e-9
    assert zero_probability(joint, 4, 1) == Fraction(1, 2)


def _enumerate(joint, cycle, n, max_spins):
    """Exact law by playing every path spin by spin (Fractions), up to ``max_spins`` spins.

    Returns (law dict win -> probability, mass of the paths cut off)."""
    states = {(n, 0): Fraction(1)}
    done: dict = {}
    for _ in range(max_spins):
        nxt: dict = {}
        for (left, w), p in states.items():
            for (a, x), c in joint.items():
                q = p * Fraction(c, cycle)
                key = (left - 1 + a, w + x)
                if key[0] == 0:
                    done[key[1]] = done.get(key[1], 0) + q
                else:
                    nxt[key] = nxt.get(key, 0) + q
        states = nxt
        if not states:
            break
    return done, sum(states.values(), Fraction(0))


spin_laws = st.dictionaries(
    st.tuples(st.sampled_from([0, 0, 1, 2]), st.integers(0, 6)), st.integers(1, 5), min_size=1, max_size=5
).filter(lambda j: sum(a * c for (a, _), c in j.items()) * 10 < 7 * sum(j.values()))


@settings(max_examples=200 if SLOW else 20, deadline=None)
@given(joint=spin_laws, n=st.integers(1, 3))
def test_law_matches_path_enumeration(joint, n):
    cycle = sum(joint.values())
    ea = Fraction(sum(a * c for (a, _), c in joint.items()), cycle)
    law = retrigger_law(joint, cycle, 1, n, ea)
    exact, cut = _enumerate(joint, cycle, n, 60)
    step = int(law.step)
    diff = 0.0
    for k, p in enumerate(law.probs):
        diff += abs(float(p) - float(exact.get(k * step, 0)))
    # the enumeration misses `cut`; the law is certified within `error`
    assert diff <= law.error + float(cut) + 1e-12
    assert law.error < 1e-8
    z = zero_probability(joint, cycle, n)
    if z is not None:
        assert abs(float(z) - law.probs[0]) <= law.error + float(cut)


@pytest.mark.parametrize("name", ["atkins_diet.toml", "book_of_ra_deluxe_95.toml"])
def test_law_mean_matches_wald(name):
    game = load_model(CASES / name)
    fr = solve_free_spins(game, "free_spins", 3)
    law = fr.law
    k = np.arange(len(law.probs))
    mean = float((k * law.probs).sum()) * float(law.step)
    assert mean == pytest.approx(float(fr.mean.value), rel=1e-9)
    assert abs(law.probs.sum() - 1) <= law.error
    assert law.error < 1e-9
    assert fr.p_zero is not None and abs(float(fr.p_zero) - law.probs[0]) <= law.error


def test_unbounded_mean_award_is_refused():
    with pytest.raises(ValueError):
        retrigger_law({(0, 1): 1, (2, 0): 1}, 2, 1, 1, Fraction(1))


def test_aliased_tail_counts_twice():
    # a rare big pay so that 5 of them pass the largest grid: the folded mass sits in wrong
    # entries AND is missing from its place, so the true total variation is about 2 P(W >= M)
    Y = 209716
    joint = {(0, Y): 50, (0, 1): 949, (1, 1): 1}
    law = retrigger_law(joint, 1000, 1, 5, Fraction(1, 1000))
    assert law is not None and len(law.probs) == 1 << 20 and 5 * Y >= len(law.probs)
    # W >= M iff all 5 subtrees hold a big spin; one subtree holds one with probability 50/999
    p_alias = Fraction(50, 999) ** 5
    tv_lower = abs(law.probs.sum() - (1 - float(p_alias))) + float(p_alias)
    assert tv_lower <= law.error


@pytest.mark.parametrize("joint, cycle, ea", [
    ({(0, 1 << 20): 1, (0, 1): 9}, 10, Fraction(0)),  # a pay beyond half the largest grid
    ({(0, 3): 1, (1, 1): 99}, 100, Fraction(99, 100)),  # mean award near 1: tail too heavy
])
def test_uncertifiable_laws_are_refused_quickly(joint, cycle, ea):
    assert retrigger_law(joint, cycle, 1, 10, ea) is None
