"""The Markov-chain engine: hand-worked answers, exact vs float."""

from fractions import Fraction as F

import networkx as nx
import pytest

from analytic.features.graph import chain


def _two_state():
    g = nx.DiGraph()
    chain.add_outcome(g, "a", "b", F(1, 2), 2, 4)
    chain.add_outcome(g, "a", chain.END, F(1, 2), 0, 0)
    chain.add_outcome(g, "b", chain.END, 1, 1, 1)
    return g


def _fixed(n):
    g = nx.DiGraph()
    for k in range(1, n + 1):  # X in {0, 2} w.p. 1/2 each: m1 = 1, m2 = 2
        chain.add_outcome(g, k, k - 1 if k > 1 else chain.END, 1, 1, 2)
    return g


def _retrigger_level(q=F(1, 4)):
    # one spin left; w.p. q win 4 and +1 spin (self-loop), else win 0 and end
    g = nx.DiGraph()
    chain.add_outcome(g, 1, 1, q, 4, 16)
    chain.add_outcome(g, 1, chain.END, 1 - q, 0, 0)
    return g


def test_two_state_chain():
    r = chain.solve_exact(_two_state(), "a")
    assert (r.mean, r.second_moment, r.expected_spins) == (F(3, 2), F(9, 2), F(3, 2))
    assert r.end_probabilities == {"spins exhausted": 1}


def test_fixed_number_of_spins():
    r = chain.solve_exact(_fixed(3), 3)
    assert (r.mean, r.variance, r.expected_spins) == (3, 3, 3)


def test_single_retrigger_level():
    q = F(1, 4)
    r = chain.solve_exact(_retrigger_level(q), 1)
    assert r.expected_spins == 1 / (1 - q)
    assert r.mean == 4 * q / (1 - q)
    assert r.variance == 16 * q / (1 - q) ** 2


def test_covariance_of_win_and_next_state_counts():
    # same state averages, different pairing of win and next state -> different E[W^2]
    g1, g2 = nx.DiGraph(), nx.DiGraph()
    chain.add_outcome(g1, 0, 1, F(1, 2), 10, 100)
    chain.add_outcome(g1, 0, chain.END, F(1, 2), 0, 0)
    chain.add_outcome(g2, 0, 1, F(1, 2), 0, 0)
    chain.add_outcome(g2, 0, chain.END, F(1, 2), 10, 100)
    for g in (g1, g2):
        chain.add_outcome(g, 1, chain.END, 1, 10, 100)
    r1, r2 = chain.solve_exact(g1, 0), chain.solve_exact(g2, 0)
    assert r1.mean == r2.mean == 10
    assert r1.second_moment == F(1, 2) * 400 and r2.second_moment == 100


def test_end_labels_and_start_distribution():
    g = nx.DiGraph()
    chain.add_outcome(g, "s", "s", F(1, 2), 1, 1)
    chain.add_outcome(g, "s", chain.End("cap"), F(1, 4), 0, 0)
    chain.add_outcome(g, "s", chain.END, F(1, 4), 0, 0)
    chain.add_outcome(g, "t", chain.END, 1, 0, 0)
    r = chain.solve_exact(g, {"s": 1, "t": 1})
    assert r.end_probabilities == {"cap": F(1, 4), "spins exhausted": F(3, 4)}
    assert r.expected_spins == F(3, 2)


@pytest.mark.parametrize("make", [_two_state, lambda: _fixed(5), _retrigger_level])
def test_exact_and_float_agree(make):
    g = make()
    ex, fl = chain.solve_exact(g), chain.solve_float(g)
    for s in ex:
        assert float(ex[s].mean) == pytest.approx(fl[s].mean, rel=1e-12)
        assert float(ex[s].second_moment) == pytest.approx(fl[s].second_moment, rel=1e-12)
        assert float(ex[s].expected_spins) == pytest.approx(fl[s].expected_spins, rel=1e-12)


def test_cyclic_sccs_exact_vs_float():
    # a 3-state cycle feeding a 2-state cycle: non-trivial SCC solves
    g = nx.DiGraph()
    chain.add_outcome(g, 0, 1, F(1, 2), 1, 2)
    chain.add_outcome(g, 0, 3, F(1, 2), 3, 10)
    chain.add_outcome(g, 1, 2, F(2, 3), 0, 0)
    chain.add_outcome(g, 1, chain.END, F(1, 3), 5, 25)
    chain.add_outcome(g, 2, 0, F(3, 4), 2, 5)
    chain.add_outcome(g, 2, 4, F(1, 4), 1, 1)
    chain.add_outcome(g, 3, 4, F(1, 2), 7, 50)
    chain.add_outcome(g, 3, chain.End("x"), F(1, 2), 0, 0)
    chain.add_outcome(g, 4, 3, F(1, 5), 1, 1)
    chain.add_outcome(g, 4, chain.END, F(4, 5), 2, 4)
    ex, fl = chain.solve_exact(g), chain.solve_float(g)
    for s in ex:
        assert float(ex[s].second_moment) == pytest.approx(fl[s].second_moment, rel=1e-12)
        assert sum(ex[s].end_probabilities.values()) == 1


def test_rejects_a_chain_that_never_ends():
    g = nx.DiGraph()
    chain.add_outcome(g, 0, 0, 1, 1, 1)
    chain.add_outcome(g, 1, chain.END, 1, 0, 0)
    with pytest.raises(ValueError, match="never"):
        chain.solve_exact(g)
