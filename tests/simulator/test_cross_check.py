"""Solver versus simulator: every exact figure inside the simulation's 99.9 % band.

The simulator (analytic/simulator) evaluates windows with its own code,
written from the rules; a disagreement is a bug in one of them.  Seeds are
fixed, so the tests are reproducible; the band is |z| <= 3.29.
"""

from pathlib import Path

import pytest

from analytic.cli.verify import Z_LIMIT, compare
from analytic.model.loader import load_model
from analytic.simulator.runner import simulate
from analytic.solver.round import solve_round

CASES = Path(__file__).parent.parent / "cases"

# (model, rounds): sized to keep the whole file well under a minute on 2 cores
MODELS = [
    ("atkins_diet.toml", 150_000),
    ("sizzling_hot_95.toml", 150_000),
    ("wizards_fruit_slot.toml", 150_000),
    ("book_of_ra_deluxe_95.toml", 150_000),
    ("lobstermania_962.toml", 100_000),
]


@pytest.mark.parametrize("name, rounds", MODELS)
def test_solver_inside_simulation_band(name, rounds):
    game = load_model(CASES / name)
    for mode in game.modes:
        exact = solve_round(game, mode)
        sim = simulate(game, mode, rounds=rounds, seed=20261129, progress=False)
        for row in compare(exact, sim):
            assert abs(row["z"]) <= Z_LIMIT, (name, mode, row)
