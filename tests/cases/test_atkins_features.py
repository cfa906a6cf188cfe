"""Atkins Diet (case 01): published free-spin and total figures, through solve_round."""

from pathlib import Path

import pytest

from analytic.model.loader import load_model
from analytic.solver.round import solve_round

MODEL = Path(__file__).with_name("atkins_diet.toml")


@pytest.fixture(scope="module")
def result():
    if not MODEL.exists():
        pytest.skip("tests/cases/atkins_diet.toml not present")
    return solve_round(load_model(MODEL))


def test_expected_free_spins_per_trigger(result):
    (f,) = result.features
    assert f"{float(f.expected_spins.value):.6f}" == "11.259335"


def test_expected_bonus_win(result):
    (f,) = result.features
    assert f"{float(f.average_win.value):.6f}" == "23.791632"


def test_bonus_return_and_total(result):
    (f,) = result.features
    assert f"{float(f.rtp.value) * 100:.3f}" == "26.610"
    assert f"{float(result.rtp.value) * 100:.3f}" == "97.046"
    assert result.rtp.label == "exact"


def test_every_trigger_count_has_the_same_feature(result):
    means = {fr.mean.value for fr in result.feature_results.values()}
    assert len(means) == 1  # 3, 4 and 5 scales all award 10 spins
