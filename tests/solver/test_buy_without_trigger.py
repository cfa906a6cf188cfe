"""A feature buy of a feature without a trigger (a line-triggered pick bonus).

``buy_counts`` is not allowed for such a feature (docs/model-format.md,
bet modes), so the buy starts it once.  Found by the differential harness
(``test_differential.py``): the solver returned a mean of 0 and the
simulator failed on the empty count table.  Hand-worked: one pick of a prize
5 or 15 (weights 1 and 3) line-bet units, total bet 2 line bets: the win is
2.5 or 7.5 total bets with probabilities 1/4 and 3/4, mean 25/4, second
moment (6.25 + 3 * 56.25) / 4 = 175/4.
"""

from fractions import Fraction

from analytic.model.loader import load_model_text
from analytic.simulator.runner import simulate
from analytic.solver.distribution import round_law
from analytic.solver.round import solve_round

MODEL = """
[game]
name = "buy a line-triggered bonus"
reels = 3
rows = 1
total_bet = 2
[symbols]
a = "regular"
lobster = "bonus"
[paytable]
a = { 3 = 5 }
[line_triggers]
lobster = { 3 = "buoy" }
[paylines]
lines = [[0, 0, 0]]
[reels]
base = [["a", "lobster"], ["a", "lobster"], ["a", "lobster"]]
[features.buoy]
kind = "pick_bonus"
picks = { 1 = 1 }
prizes = [[5, 1], [15, 3]]
[modes.base]
cost = 1
reels = "base"
[modes.buy]
cost = 10
buys = "buoy"
"""


def test_buy_of_a_feature_without_trigger_plays_it_once():
    game = load_model_text(MODEL)
    r = solve_round(game, "buy")
    assert r.mean_win.value == Fraction(25, 4)
    assert r.second_moment.value == Fraction(175, 4)
    assert r.rtp.value == Fraction(25, 40)
    assert r.hit_frequency.value == 1
    assert round_law(r).points == {Fraction(5, 2): Fraction(1, 4), Fraction(15, 2): Fraction(3, 4)}


def test_simulator_plays_the_buy():
    game = load_model_text(MODEL)
    sim = simulate(game, mode="buy", rounds=2000, seed=1, progress=False)
    assert sim.rounds == 2000
    assert abs(sim.rtp - 0.625) < 0.05
