"""The paytable of a par sheet states a wild's multiplier, expansion and restricted substitution.

A x2 expanding wild without pays of its own was in no table of the sheet: a reader could not tell
that the wild doubles and expands (the figures counted it, the sheet did not say it).  The oracle is
the model text below, by reading: ``W`` is a x2 expanding wild, ``V`` stands in for ``a`` only,
``U`` is a plain wild (all defaults: not listed, as before).
"""

from __future__ import annotations

import json

from analytic.model import load_model_text
from analytic.reports.json_ import render_json
from analytic.reports.markdown import render_markdown
from analytic.reports.model import build_sheet

MODEL = """
[game]
name = "Wild notes"
reels = 3
rows = 1

[symbols]
a = "regular"
b = "regular"
W = { role = "wild", multiplier = 2, expands = true }
V = { role = "wild", substitutes = ["a"] }
U = "wild"

[paytable]
a = { 3 = 10 }
b = { 3 = 5 }
V = { 3 = 50 }

[paylines]
lines = [[0, 0, 0]]

[reels]
base = [["a", "V"], ["W", "V", "U", "a"], ["a", "b"]]
"""


def _sheet():
    return build_sheet(load_model_text(MODEL, path="wild_notes.toml"), session=False)


def test_paytable_rows_name_wild_properties():
    rows = {p.symbol: p for p in _sheet().paytable}
    assert set(rows) == {"a", "b", "V", "W"}  # U: a plain wild without pays, nothing to state
    assert rows["W"].pays == () and rows["W"].role_text == "wild (x2, expands)"
    assert rows["V"].pays == ((3, 50),) and rows["V"].role_text == "wild (for a)"
    assert rows["a"].role_text == "regular"


def test_markdown_and_json_carry_them():
    sheet = _sheet()
    md = render_markdown(sheet)
    assert "| W | wild (x2, expands) |" in md and "| V | wild (for a) |" in md
    pay = {p["symbol"]: p for p in json.loads(render_json(sheet))["paytable"]}
    assert pay["W"] == {"symbol": "W", "role": "wild", "pays": {}, "wild": "x2, expands"}
    assert "wild" not in pay["a"]
