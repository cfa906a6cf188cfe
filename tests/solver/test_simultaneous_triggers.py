"""Two features whose triggers are met on one spin (rule ``simultaneous_triggers``, issue 18).

Oracle: every stop combination's window evaluated by the simulator's own
evaluator (:func:`analytic.simulator.evaluate.evaluate_window`), which
reports every trigger met; the rule then says which feature starts.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from analytic.model.loader import load_model_text
from analytic.reports.model import build_sheet
from analytic.simulator.evaluate import compile_tables, evaluate_window
from analytic.simulator.rounds import play_rounds
from analytic.engine.base_game import simultaneous_triggers
from analytic.solver.round import solve_round

GAME = """
[game]
name = "two triggers"
reels = 3
rows = 1

[symbols]
a = "regular"
S = "scatter"
T = "scatter"
x = "blank"

[paytable]
a = { 3 = 5 }

[paylines]
lines = [[0, 0, 0]]

[reels]
base = [["a", "S", "T", "x"], ["S", "a", "x", "T"], ["x", "T", "S", "a"]]

[features.pick]
kind = "pick_bonus"
trigger = { symbols = ["S", "T"], counts = { 3 = 1 } }
picks = { 1 = 1 }
prizes = [[10, 1]]

[features.fs]
kind = "free_spins"
reels = "base"
trigger = { symbols = ["S"], counts = { 2 = 1 } }
"""


@pytest.fixture
def game():
    return load_model_text(GAME, "two.toml")


def _windows(g):
    strips = g.reel_sets["base"]
    for stops in itertools.product(*(range(len(s)) for s in strips)):
        yield [[s[k]] for s, k in zip(strips, stops)]


def test_counted_exactly_and_said_on_the_par_sheet(game):
    both = sum(1 for w in _windows(game) if len(evaluate_window(game, w).awards) == 2)
    assert both == 4  # S S S and the three S S T
    assert simultaneous_triggers(game, "base") == {("pick", "fs"): both}
    sheet = build_sheet(game)
    text = dict(sheet.modes[0].extra)["simultaneous triggers"]
    assert "4 of 64 stop combinations" in text and "only pick starts" in text
    assert game.rules["simultaneous_triggers"] == "first_declared_starts"


def test_solver_starts_the_first_declared(game):
    """The round's RTP by the rule: pick (10 line bets) where its trigger is met, else fs (one base spin)."""
    n = len(list(_windows(game)))
    spin = Fraction(sum(evaluate_window(game, w).line_win for w in _windows(game)), n)
    rtp = spin
    fs_alone = 0
    for w in _windows(game):
        aw = evaluate_window(game, w).awards
        if "pick" in aw:
            rtp += Fraction(10, n)
        elif "fs" in aw:
            rtp += spin / n
            fs_alone += 1
    r = solve_round(game)
    assert r.rtp.value == rtp
    assert {f.name: f.frequency.value for f in r.features}["fs"] == Fraction(fs_alone, n)


def test_simulator_starts_one_feature_per_spin(game):
    """The simulator follows the same rule (before issue 18 it started both)."""
    n = 20000
    b = play_rounds(compile_tables(game), "base", n, np.random.default_rng(7))
    p = Fraction(6, 64)  # at least two S, not all three cells S or T
    sd = (n * p * (1 - p)) ** 0.5
    assert abs(b.features["fs"][0] - n * p) < 5 * sd
    assert b.features["fs"][0] + b.features["pick"][0] == int(b.triggered.sum())
