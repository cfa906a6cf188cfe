"""Committed par sheets (reports/<stem>.md/.json) must match models/*.toml.

Fails when a model or the solver changed a figure and the sheets were not
regenerated (``analytic report models/X.toml --formats md,json``).  Models
without committed reports are skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analytic.reports.check import check_reports, committed_reports

ROOT = Path(__file__).resolve().parents[2]
MODELS = sorted((ROOT / "models").glob("*.toml"))
#: the committed sheets hold the session section's real horizons (tests/conftest.py)
pytestmark = pytest.mark.full_sessions


# Book of Power's fresh solve takes minutes: it starts first, with two worker processes for its
# cap bounds (the other xdist worker runs the rest of the suite meanwhile)
@pytest.mark.parametrize("model", [pytest.param(m, marks=pytest.mark.early) if m.stem == "book_of_power" else m
                                   for m in MODELS], ids=[m.stem for m in MODELS])
def test_committed_reports_match_model(model):
    from analytic.model.loader import load_model
    from analytic.reports.model import build_sheet
    from analytic.solver.round import solve_game
    from analytic.workspace import Workspace

    if not committed_reports(str(model), str(ROOT / "reports")):
        pytest.skip(f"no committed reports for {model.stem}")
    game = load_model(str(model))
    ws = Workspace(game, workers=2 if model.stem == "book_of_power" else 1)
    rounds = solve_game(game, workspace=ws)
    # the fresh solve's labels and the cap's direction (the one full solve of each model in CI)
    for mode, r in rounds.items():
        assert r.rtp.label in ("exact", "bounded") and r.second_moment.label in ("exact", "bounded"), mode
        assert r.sd > 0, mode
        if "uncapped_rtp" in r.extra:
            cp, u = r.rtp, r.extra["uncapped_rtp"]
            assert cp.value - cp.error <= u.value + u.error, mode
            assert r.extra["p_reach_cap"].label in ("exact", "bounded"), mode
    sheet = build_sheet(game, rounds)
    bad = check_reports(str(model), str(ROOT / "reports"), sheet=sheet)
    assert not bad, "par sheets out of date; regenerate with analytic report:\n" + "\n".join(m.diff for m in bad)
