"""A medium ways game against the simulator: every exact figure inside the 99.9 % band.

The game (``tests/engine/data/ways_243_medium.toml``): 5x3, 243 ways paid
both ways, a x2 wild, scatter pays, free spins with a x3 multiplier and
retriggers (engine ``wald``, its spins paid by the base game's ways
evaluation).  The simulator evaluates ways with its own code
(``analytic/simulator/evaluate.py``); seeds are fixed.
"""

import dataclasses
from pathlib import Path

import pytest

from analytic.cli.verify import Z_LIMIT, compare
from analytic.model.loader import load_model
from analytic.simulator.runner import simulate
from analytic.solver.round import solve_round

MODEL = Path(__file__).parent.parent / "engine" / "data" / "ways_243_medium.toml"


@pytest.mark.parametrize("both", [True, False])
def test_ways_game_inside_simulation_band(both):
    game = dataclasses.replace(load_model(MODEL), pays_both_ways=both)
    exact = solve_round(game)
    sim = simulate(game, rounds=200_000, seed=243 + both, progress=False)
    rows = compare(exact, sim)
    assert rows
    for row in rows:
        assert abs(row["z"]) <= Z_LIMIT, row


CASES = Path(__file__).parent.parent / "cases"


def test_lines_both_ways_inside_simulation_band():
    """Sizzling Hot (5 paylines, a scatter) read both ways: solver and simulator agree."""
    game = dataclasses.replace(load_model(CASES / "sizzling_hot_95.toml"), pays_both_ways=True)
    exact = solve_round(game)
    sim = simulate(game, rounds=200_000, seed=5, progress=False)
    for row in compare(exact, sim):
        assert abs(row["z"]) <= Z_LIMIT, row
