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
from analytic.figures import Figure

DATA = Path(__file__).parent / "data"
#: The fake feature's win law (total-bet multiples): mean 15, second moment 450.
FAKE_LAW = {Fraction(0): Fraction(1, 4), Fraction(10): Fraction(1, 2), Fraction(40): Fraction(1, 4)}


def _fake(with_distribution: bool):
    def solver(game, name, count, mode, ws=None):
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
def fs_path(fake_free_spins, tmp_path) -> str:
    """The toy free-spins model; without the fake's distribution its win cap cannot be
    applied (the solver refuses it, tests/solver/test_cap.py), so a copy without the cap."""
    if fake_free_spins:
        return str(DATA / "toyfs.toml")
    text = (DATA / "toyfs.toml").read_text()
    text = text.replace("[cap]\ntotal_bet_multiple = 1000\n", "")
    assert "[cap]" not in text
    (tmp_path / "model").mkdir()
    out = tmp_path / "model" / "toyfs.toml"
    out.write_text(text)
    return str(out)


@pytest.fixture(params=[True, False], ids=["with-distribution", "no-distribution"])
def fake_free_spins(request, monkeypatch):
    """Register the fake free-spins solver; the param says whether it has a distribution."""
    try:
        import analytic.features.catalog  # noqa: F401  (registers the real engines first)
    except ImportError:
        pass
    monkeypatch.setitem(SOLVERS, "wald", _fake(request.param))
    return request.param
