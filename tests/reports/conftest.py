"""Fixtures of the par-sheet tests: toy models and a fake free-spins solver.

The fake solver stands in for the real one (being written elsewhere) so the
tests pin what the report does with *any* feature result: with a known
distribution and with none.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from analytic.features.result import SOLVERS, FeatureResult
from analytic.solver.figures import Figure

DATA = Path(__file__).parent / "data"
#: The fake feature's win law (total-bet multiples): mean 15, second moment 450.
FAKE_LAW = {Fraction(0): Fraction(1, 4), Fraction(10): Fraction(1, 2), Fraction(40): Fraction(1, 4)}


def _fake(with_distribution: bool):
    def solver(game, name, count, mode):
        mean = sum(w * p for w, p in FAKE_LAW.items())
        m2 = sum(w * w * p for w, p in FAKE_LAW.items())
        return FeatureResult(name, count, Figure(mean), Figure(m2), Figure(Fraction(10)),
                             distribution=dict(FAKE_LAW) if with_distribution else None,
                             method="fake solver for the report tests")
    return solver


@pytest.fixture
def toy_path() -> str:
    return str(DATA / "toy.toml")


@pytest.fixture
def fs_path() -> str:
    return str(DATA / "toyfs.toml")


@pytest.fixture(params=[True, False], ids=["with-distribution", "no-distribution"])
def fake_free_spins(request, monkeypatch):
    """Register the fake free-spins solver; the param says whether it has a distribution."""
    try:
        import analytic.features.catalog  # noqa: F401  (registers the real kinds first)
    except ImportError:
        pass
    monkeypatch.setitem(SOLVERS, "free_spins", _fake(request.param))
    return request.param
