"""Wald closed forms, each on its own: hand examples and the truncated chain."""

from fractions import Fraction as F

import pytest

from analytic.errors import ModelError, UnboundedFeatureError
from analytic.features.graph import chain
from analytic.features.laws import wald
from analytic.features.engines.wald_spins import spins_left_graph
from analytic.features.graph.spin_outcomes import OutcomeClass, SpinOutcomes


def test_expected_spins_atkins():
    # 10 spins, +10 with P = 0.011185...: E[T] = 10 / (1 - 10 p)
    p = F(11185, 10**6)
    assert wald.expected_spins(10, 10 * p) == F(10) / (1 - 10 * p)


def test_expected_win_is_spins_times_spin_mean():
    assert wald.expected_win(10, F(1, 4), F(3, 2)) == F(20)


def test_variance_geometric_hand_example():
    # one spin, retrigger +1 w.p. 1/4 winning 4, else 0: W = 4 (T - 1), T - 1 geometric
    q = F(1, 4)
    v = wald.win_variance(1, EA=q, EX=4 * q, EX2=16 * q, EXA=4 * q, EA2=q)
    assert v == 16 * q / (1 - q) ** 2  # 64/9


def test_variance_without_retrigger_is_n_var_x():
    v = wald.win_variance(7, EA=0, EX=F(1), EX2=F(3), EXA=0, EA2=0)
    assert v == 7 * 2


def test_variance_constant_win_is_x2_var_t():
    # X = x fixed, A in {0, 2} w.p. 1/2 -> Var T = n Var A / (1 - EA)^3 ... E[A] = 1 would diverge; use 1/3
    x, pa = F(5), F(1, 6)
    EA, EA2 = 2 * pa, 4 * pa
    v = wald.win_variance(3, EA=EA, EX=x, EX2=x * x, EXA=x * EA, EA2=EA2)
    assert v == x * x * 3 * (EA2 - EA * EA) / (1 - EA) ** 3


def test_mixture_is_law_of_total_variance():
    a = wald.WaldMoments(F(10), F(2), F(9))  # var 5
    b = wald.WaldMoments(F(20), F(6), F(40))  # var 4
    m = wald.mixture([(1, a), (3, b)])
    assert m.mean == F(5) and m.expected_spins == F(35, 2)
    within = F(1, 4) * 5 + F(3, 4) * 4
    between = F(1, 4) * (2 - 5) ** 2 + F(3, 4) * (6 - 5) ** 2
    assert m.variance == within + between


def test_check_finite_rejects_ea_at_least_one():
    wald.check_finite("fs", F(99, 100))
    with pytest.raises(UnboundedFeatureError) as e:
        wald.check_finite("fs", F(1))
    assert isinstance(e.value, ModelError)
    assert e.value.key == "features.fs.retrigger" and "'fs'" in str(e.value) and "1" in str(e.value)


def _outcomes():
    # 4 equally likely outcomes (units = 1): win 0/2/6 with no award, win 8 with +2 spins
    joint = {(0, 0): 1, (0, 2): 1, (0, 6): 1, (2, 8): 1}
    classes = {0: OutcomeClass(0, 3, 8, 40), 2: OutcomeClass(2, 1, 8, 64)}
    return SpinOutcomes(classes=classes, cycle=4, units=1, joint=joint)


def test_wald_against_truncated_chain():
    o = _outcomes()
    m = o.moments()
    w = wald.wald_moments(3, m["EX"], m["EX2"], m["EA"], m["EA2"], m["EXA"])
    g = spins_left_graph(o, 3, 80)
    r = chain.solve_exact(g, 3)
    lost = r.end_probabilities["truncated"]
    assert 0 < lost < F(1, 10**6)
    assert r.mean <= w.mean and r.second_moment <= w.second_moment
    assert float(r.mean) == pytest.approx(float(w.mean), rel=1e-5)
    assert float(r.second_moment) == pytest.approx(float(w.second_moment), rel=1e-4)
    assert float(r.expected_spins) == pytest.approx(float(w.expected_spins), rel=1e-5)


def test_check_finite_says_which_infinity():
    """Issue 18: E[A] = 1 ends with probability 1 but has infinite expected length; E[A] > 1 may never end."""
    with pytest.raises(UnboundedFeatureError) as e:
        wald.check_finite("fs", F(1))
    msg = str(e.value)
    assert "ends with probability 1" in msg and "expected length" in msg and "infinite" in msg
    assert "below 1" in msg  # what would make it solvable
    with pytest.raises(UnboundedFeatureError) as e:
        wald.check_finite("fs", F(1), always_one=True)
    assert "never ends" in str(e.value) and "probability 1" not in str(e.value)
    with pytest.raises(UnboundedFeatureError) as e:
        wald.check_finite("fs", F(3, 2))
    assert "positive probability it never ends" in str(e.value)
