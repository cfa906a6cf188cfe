"""``round_law_kind``: whether a bet mode's sessions have a law, are bracketed or are refused, decided
from the model before any solve, must agree with the solved round (:func:`bracketed`, ``round_law``).

Oracles: the solved round itself (``bracketed(game, r)`` and ``round_law(r)``) on every mode of the
published test games (``tests/cases``); on the shipped models the committed par sheets' session
method per mode (``reports/*.json``, themselves checked against a fresh solve by
``tests/reports/test_committed.py``), and with ``ANALYTIC_SLOW=1`` a fresh solve of every shipped mode
(Book of Power: minutes).  The tiny drawn-expanding game's modes (a law, bounds, none without a cap)
are checked in ``tests/features/engines/drawn_expanding/test_round_tail_sessions.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from analytic.model.loader import load_model
from analytic.solver.distribution import round_law
from analytic.solver.round import solve_round
from analytic.solver.session import bracketed, round_law_kind
from analytic.solver.session_bounds import COARSE_ROUNDS

ROOT = Path(__file__).resolve().parents[2]
CASES = sorted((ROOT / "tests" / "cases").glob("*.toml"))
SHIPPED = sorted((ROOT / "models").glob("*.toml"))


def agrees(game, mode: str, r) -> None:
    """The structural kind against the solved round ``r`` of ``mode``."""
    kind, key, why = round_law_kind(game, mode)
    law = round_law(r)
    assert (kind == "bracketed") == bracketed(game, r), (mode, kind)
    if kind == "none":
        assert law.points is None and key and why, (mode, why)
    if kind == "grid":
        assert law.points is not None and (law.error > 0 or law.method == "grid"), mode
    if kind == "law":  # a law, unless too large to combine (a limit of the solver, not the model)
        assert law.points is not None or "too large" in law.reason, (mode, law.reason)


@pytest.mark.filterwarnings("ignore::analytic.errors.ModelWarning")  # a published game's unpaid symbol
@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_kind_agrees_with_the_solved_round_of_the_test_games(path):
    game = load_model(path)
    for mode in game.modes:
        agrees(game, mode, solve_round(game, mode))


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_kind_agrees_with_the_committed_sheets(path):
    sheet = ROOT / "reports" / f"{path.stem}.json"
    if not sheet.exists():
        pytest.skip(f"no committed sheet of {path.stem}")
    game = load_model(path)
    modes = json.loads(sheet.read_text())["modes"]
    assert [m["info"]["name"] for m in modes] == list(game.modes)
    for m in modes:
        name = m["info"]["name"]
        kind = round_law_kind(game, name)[0]
        sec = m["session"]
        assert not sec.get("refused") and sec["horizons"], name
        # a feature buy's horizons beyond COARSE_ROUNDS are bracketed on the coarse grid (bounded)
        buy = game.modes[name].buys is not None
        long = [h for h in sec["horizons"] if buy and h["rounds"] > COARSE_ROUNDS]
        assert all(h["method"] == "bounded" for h in long), name
        methods = {h["method"] for h in sec["horizons"] if h not in long}
        assert methods == ({"bounded"} if kind == "bracketed" else methods - {"bounded"}), (name, kind, methods)
        if kind == "grid":
            assert methods == {"certified"}, name


@pytest.mark.skipif(os.environ.get("ANALYTIC_SLOW") != "1", reason="every shipped mode solved: ANALYTIC_SLOW=1")
@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_kind_agrees_with_the_solved_round_of_the_shipped_models(path):
    from analytic.workspace import Workspace

    game = load_model(path)
    ws = Workspace(game)
    for mode in game.modes:
        agrees(game, mode, solve_round(game, mode, workspace=ws))
