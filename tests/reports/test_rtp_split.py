"""The RTP split adds up to the total in every mode and format (issue 18).

A capped round keeps its parts uncapped and gets a ``cap deduction`` row.
Checked on the committed par sheets of the shipped models (JSON, exact
fractions; Markdown rows), and on a small capped game written in every
format.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from analytic.model.loader import load_model_text
from analytic.reports.model import build_sheet
from analytic.reports.write import write_reports

ROOT = Path(__file__).parent.parent.parent
COMMITTED = sorted((ROOT / "reports").glob("*.json"))

CAPPED = """
[game]
name = "Capped classic"
reels = 3
rows = 3
[symbols]
seven = "regular"
bar = "regular"
blank = "blank"
[paytable]
seven = { 3 = 500 }
bar = { 3 = 10 }
[paylines]
lines = [[1, 1, 1], [0, 0, 0], [2, 2, 2]]
[reels]
base = [
  ["seven", "bar", "blank", "bar", "blank", "blank"],
  ["bar", "seven", "blank", "blank", "bar", "blank"],
  ["blank", "bar", "seven", "blank", "bar", "blank"],
]
[cap]
total_bet_multiple = 100
"""


@pytest.mark.parametrize("path", COMMITTED, ids=[p.stem for p in COMMITTED])
def test_committed_split_adds_up(path):
    data = json.loads(path.read_text())
    for m in data["modes"]:
        parts = sum((Fraction(c["rtp"]["exact"]) for c in m["components"]), Fraction(0))
        assert parts == Fraction(m["rtp"]["exact"]), (path.name, m["info"]["name"])
        if "capped_rtp" in m["extra"]:
            assert m["components"][-1]["name"].startswith("cap deduction")


def test_every_format_has_the_cap_deduction(tmp_path):
    game = load_model_text(CAPPED, str(tmp_path / "capped.toml"))
    sheet = build_sheet(game)
    m = sheet.modes[0]
    names = [n for n, _ in m.components]
    assert names[-1].startswith("cap deduction") and m.components[-1][1].value < 0
    assert sum(f.value for _, f in m.components) == m.rtp.value
    out = tmp_path / "out"
    out.mkdir()
    write_reports(sheet, str(out))
    md = (out / "capped.md").read_text()
    assert f"| {names[-1]} |" in md
    data = json.loads((out / "capped.json").read_text())
    assert [c["name"] for c in data["modes"][0]["components"]] == names
    import openpyxl

    wb = openpyxl.load_workbook(out / "capped.xlsx")
    cells = {c.value for row in wb["Mode base"].iter_rows() for c in row}
    assert names[-1] in cells
    assert (out / "capped.pdf").read_bytes().startswith(b"%PDF")


def test_pdf_split_chart_shows_the_negative_cap_deduction(tmp_path, monkeypatch):
    """The PDF's RTP-split chart shows every bar, the negative cap deduction included: the x range
    holds each bar's end and 0 (it started at 0, so the deduction's bar was cut off and its label
    drawn over the row names)."""
    from analytic.reports import plots

    game = load_model_text(CAPPED, str(tmp_path / "capped.toml"))
    m = build_sheet(game).modes[0]
    figs = []
    monkeypatch.setattr(plots, "_png", lambda fig: figs.append(fig) or b"")
    plots.rtp_split_png(m)
    lo, hi = figs[0].axes[0].get_xlim()
    vals = [float(f.value) * 100 for _, f in m.components]
    assert min(vals) < 0
    assert lo < min(vals) and hi > max(vals) and lo <= 0 <= hi


def test_write_reports_checks_every_destination_before_moving_any(tmp_path):
    """A folder where the second sheet goes: nothing is replaced (the first sheet was moved into
    place before the second move failed: a half-updated set)."""
    game = load_model_text(CAPPED, str(tmp_path / "capped.toml"))
    sheet = build_sheet(game)
    out = tmp_path / "out"
    (out / "capped.json").mkdir(parents=True)
    (out / "capped.md").write_text("earlier")
    with pytest.raises(IsADirectoryError):
        write_reports(sheet, str(out), ("md", "json"))
    assert (out / "capped.md").read_text() == "earlier"
    assert sorted(p.name for p in out.iterdir()) == ["capped.json", "capped.md"]


def test_xlsx_sheet_names_excel_accepts(tmp_path):
    """Mode names that make worksheet names Excel refuses (the file then does not open): two long
    names with the same first 26 characters (openpyxl made the second 32 characters long), names
    differing only in case (Excel's sheet names ignore case) and a name ending with an apostrophe.
    Every sheet name must be at most 31 characters, unique ignoring case, without an apostrophe at
    either end."""
    import openpyxl

    long = "m" * 40
    text = CAPPED + "".join(f'[modes."{n}"]\ncost = 1\nreels = "base"\n'
                            for n in ("base", long + "1", long + "2", "Base", "BASE", "it's'"))
    game = load_model_text(text, str(tmp_path / "capped.toml"))
    out = tmp_path / "out"
    write_reports(build_sheet(game), str(out), ("xlsx",))
    names = openpyxl.load_workbook(out / "capped.xlsx").sheetnames
    assert len(names) == 5 + 6  # Summary, Reels, Paytable, Distribution, Appendix, and one per mode
    assert all(len(n) <= 31 and not n.startswith("'") and not n.endswith("'") for n in names), names
    assert len({n.casefold() for n in names}) == len(names), names
