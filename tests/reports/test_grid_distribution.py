"""Par sheet of a game whose feature has unbounded retriggers (grid law rows)."""

import json
from pathlib import Path

from analytic.reports.json_ import render_json
from analytic.reports.model import sheet_for_model

CASES = Path(__file__).resolve().parents[1] / "cases"


def test_atkins_distribution_rows_are_bounded_and_add_up():
    sheet = sheet_for_model(str(CASES / "atkins_diet.toml"))
    mode = sheet.modes[0]
    table = mode.distribution
    assert table.scope == "round" and table.label == "bounded"
    assert 0 < table.mass_error < 1e-9
    assert "grid" in table.note
    assert mode.top_win is None  # unbounded retriggers: no finite top win is shown
    # the rows against the exact RTP (Wald closed forms, independent of the grid law)
    total_p = sum(float(b.probability) for b in table.buckets)
    total_rtp = sum(float(b.rtp) for b in table.buckets)
    assert abs(total_p - 1) <= float(table.mass_error) + 1e-12
    assert abs(total_rtp - float(mode.rtp.value)) < 1e-9
    rows = json.loads(render_json(sheet))["modes"][0]["distribution"]["buckets"]
    # bounded figures, each with its certified error (the centre's p/q as every bounded figure's)
    assert all(r["probability"]["label"] == "bounded" and r["probability"]["error"] > 0 for r in rows)
    assert all(r["rtp"]["label"] == "bounded" and r["rtp"]["error"] > 0 for r in rows[1:])
    assert rows[0]["rtp"] == {"exact": "0/1", "float": 0.0, "label": "exact"}  # the no-win row
