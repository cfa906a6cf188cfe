"""free_spins and pick_bonus solvers on a small game: Wald vs chain, divergence, pick law."""

from fractions import Fraction as F
from pathlib import Path

import pytest

from analytic.errors import UnboundedFeatureError
from analytic.features.graph import chain
from analytic.features.engines.wald_spins import solve_free_spins, spins_left_graph, state_outcomes
from analytic.features.engines.pick_bonus import solve_pick_bonus
from analytic.model.loader import load_model_text

TOML = (Path(__file__).resolve().parents[2] / "data" / "tiny_free_spins.toml.in").read_text()


def game(award=1, extra=""):
    return load_model_text(TOML.format(award=award, extra=extra), "tiny.toml")


def test_wald_matches_truncated_chain():
    g = game()
    (_, _, o), = state_outcomes(g, "fs")
    fr = solve_free_spins(g, "fs", 3)
    r = chain.solve_exact(spins_left_graph(o, 3, 200), 3)
    # award 1 never raises spins left above the start: the chain is not truncated, so equal exactly
    assert "truncated" not in r.end_probabilities
    assert (r.mean, r.second_moment, r.expected_spins) == (
        fr.mean.value, fr.second_moment.value, fr.expected_spins.value)
    fl = chain.solve_float(spins_left_graph(o, 3, 200), 3)
    assert fl.second_moment == pytest.approx(float(r.second_moment), rel=1e-10)


def test_trigger_count_sets_initial_spins():
    g = game()
    a, b = solve_free_spins(g, "fs", 2), solve_free_spins(g, "fs", 3)
    assert b.expected_spins.value == a.expected_spins.value * F(3, 2)
    assert b.mean.label == "exact"


def test_expanding_symbol_mixture():
    g = game(extra='expanding_symbol = { choose_from = ["a", "b"], weights = [1, 3] }')
    st = state_outcomes(g, "fs")
    fr = solve_free_spins(g, "fs", 2)
    per = fr.details["per_state"]
    assert fr.mean.value == (per["a"]["mean"] + 3 * per["b"]["mean"]) / 4
    assert len(st) == 2


def test_divergent_retrigger_is_refused():
    g = game(award=40)
    with pytest.raises(UnboundedFeatureError, match="features.fs"):
        solve_free_spins(g, "fs", 2)


def test_retrigger_mean_exactly_one_is_refused_with_the_reason():
    """Issue 18: E[A] = 6 * 9/64 + 10 * 1/64 = 1 exactly: the feature ends with probability 1,
    but its expected length (and mean win) is infinite; the refusal says so and how to fix it."""
    g = game(award="6, 3 = 10")
    (_, _, o), = state_outcomes(g, "fs")
    assert o.mean_award == 1
    with pytest.raises(UnboundedFeatureError, match="features.fs.retrigger") as e:
        solve_free_spins(g, "fs", 2)
    msg = str(e.value)
    assert "ends with probability 1" in msg and "expected length" in msg and "below 1" in msg


def test_pick_bonus_law():
    g = game()
    fr = solve_pick_bonus(g, "pick")
    # one pick: 1 prize (p 3/4) or 2 (p 1/4), prize 1 or 3 each 1/2; total bet = 1 line
    pick_mean = F(3, 4) * 2 + F(1, 4) * 4
    assert fr.mean.value == F(3, 2) * pick_mean
    assert sum(fr.distribution.values()) == 1
    assert fr.second_moment.value == sum(x * x * p for x, p in fr.distribution.items())
    assert min(fr.distribution) == 1 and max(fr.distribution) == 12


def test_state_walks_in_threads_give_the_same_list():
    """Expanding-symbol states walked in two threads: the same outcomes, in the same order, as one by one."""
    from analytic.bench.lines import model_text
    from analytic.workspace import Workspace

    g = load_model_text(model_text(10, stops=16), "bench.toml")
    one = state_outcomes(g, "free_spins", Workspace(g, workers=1))
    two = state_outcomes(g, "free_spins", Workspace(g, workers=2))
    assert tuple(s for _, s, _ in one) == tuple(g.features["free_spins"].params["expanding_symbol"]["choose_from"])
    assert one == two


def test_method_names_a_drawn_state_only_where_one_is_drawn():
    """The method text said "mixed over the drawn state" for free spins that draw nothing (no
    expanding symbol): a par sheet's Methods table then described a mechanic the game lacks."""
    plain = solve_free_spins(game(), "fs", 2).method
    assert "drawn state" not in plain and "per fixed state" not in plain
    assert plain.startswith("Wald closed forms (exact rationals); win ")
    drawn = solve_free_spins(game(extra='expanding_symbol = { choose_from = ["a", "b"] }'), "fs", 2).method
    assert "Wald closed forms per fixed state (exact rationals), mixed over the drawn state; win " in drawn
    ceiling = solve_free_spins(game(extra="max_spins = 4"), "fs", 2).method
    assert "drawn state" not in ceiling and ceiling.endswith("(exact rationals); no win distribution")
