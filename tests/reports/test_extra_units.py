"""The solver's own figures (``RoundResult.extra``) carry their unit in every par sheet.

"solver: uncapped_mean_win 7.5" does not say 7.5 of what (line bets? total bets? capped?): each
format's row label says it, from one label function (:func:`analytic.reports.format.extra_label`),
while the JSON keeps its keys (the units are documented in docs/parsheet-json.md).

The game: two reels, one line, ``a`` on one stop of two per reel, ``a a`` pays 30 x total bet (one
line: the line bet is the total bet), win cap 20 total bets.  By hand: P(a a) = 1/4, so the round wins
30 with probability 1/4 (the uncapped mean win 30/4 = 7.5 total bets, the second moment
900/4 = 225) and reaches the cap with probability 1/4.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from analytic.model.loader import load_model_text
from analytic.reports.model import build_sheet
from analytic.reports.write import write_reports
from analytic.solver.round import EXTRA_SHORT_UNITS, EXTRA_UNITS

DATA = Path(__file__).resolve().parents[1] / "data"
MEAN_LABEL = "solver: uncapped_mean_win (x total bet, before the cap)"
M2_LABEL = "solver: uncapped_second_moment ((x total bet)^2, before the cap)"
REACH_LABEL = "solver: p_reach_cap (probability per round)"


@pytest.fixture(scope="module")
def sheets(tmp_path_factory):
    out = tmp_path_factory.mktemp("units")
    text = ((DATA / "two_reels.toml").read_text().replace("a = { 2 = 3 }", "a = { 2 = 30 }")
            + "\n[cap]\ntotal_bet_multiple = 20\n")
    sheet = build_sheet(load_model_text(text, str(out / "units.toml")))
    write_reports(sheet, str(out), ("md", "json", "xlsx", "pdf"), stem="units")
    return out


def test_short_units_cover_the_solver_units():
    """Every unit the CLI prints has its short form, with the same unit word and the same "before the cap"."""
    assert set(EXTRA_SHORT_UNITS) == set(EXTRA_UNITS)
    for k, short in EXTRA_SHORT_UNITS.items():
        assert EXTRA_UNITS[k].split()[0].rstrip(":,") == short.split()[0].rstrip(":,"), k
        assert ("before the cap" in EXTRA_UNITS[k]) == ("before the cap" in short), k


def test_markdown_extra_rows_show_their_unit(sheets):
    rows = {c[0]: c[1:] for c in ([x.strip() for x in line.strip().strip("|").split("|")] for line in
                                  (sheets / "units.md").read_text().splitlines() if line.startswith("| solver: "))}
    assert rows[MEAN_LABEL][0].startswith("7.5") and rows[MEAN_LABEL][1] == "15/2"
    assert rows[M2_LABEL][0].startswith("225")
    assert rows[REACH_LABEL][0].startswith("0.25")
    assert "solver: uncapped_rtp" in rows  # an RTP (a fraction of the stake): no unit added


def test_xlsx_extra_rows_show_their_unit(sheets):
    import openpyxl

    ws = openpyxl.load_workbook(sheets / "units.xlsx")["Mode base"]
    rows = {r[0].value: r[1].value for r in ws.iter_rows() if isinstance(r[0].value, str)
            and r[0].value.startswith("solver: ")}
    assert rows[MEAN_LABEL] == 7.5 and rows[M2_LABEL] == 225 and rows[REACH_LABEL] == 0.25


def test_pdf_extra_rows_show_their_unit(sheets):
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext not installed")
    text = subprocess.run(["pdftotext", str(sheets / "units.pdf"), "-"], capture_output=True, text=True,
                          check=True).stdout
    flat = " ".join(text.split())  # a label wrapped in its cell: the words in order
    for label in (MEAN_LABEL, M2_LABEL, REACH_LABEL):
        assert label in flat, label


def test_json_extra_keys_unchanged(sheets):
    """The JSON's extras stay keyed by the solver's keys (no unit in a key), with the exact values."""
    extra = json.loads((sheets / "units.json").read_text())["modes"][0]["extra"]
    assert Fraction(extra["uncapped_mean_win"]["exact"]) == Fraction(15, 2)
    assert Fraction(extra["uncapped_second_moment"]["exact"]) == 225
    assert Fraction(extra["p_reach_cap"]["exact"]) == Fraction(1, 4)
    assert not [k for k in extra if "(" in k]


def test_no_cap_no_before_the_cap_by_hand():
    """A mode whose round is not capped (no capped figure among its extras) labels its maximum win in
    total bets without "before the cap"; a capped one (total-bet or currency cap) keeps it."""
    from analytic.reports.format import extra_label

    uncapped = (("max_win", Fraction(90)), ("max_win_reading", "theoretical"))
    assert extra_label("max_win", uncapped) == "solver: max_win (x total bet)"
    for cap_key in ("capped_rtp", "p_reach_cap", "currency_cap"):
        assert extra_label("max_win", uncapped + ((cap_key, None),)) == \
            "solver: max_win (x total bet, before the cap)", cap_key
    assert extra_label("max_win") == "solver: max_win (x total bet, before the cap)"


def test_sheet_without_a_cap_says_no_cap_in_the_label(tmp_path):
    """The toy gift game of tests/features/engines/test_gift_expanding.py has no [cap]: its sheet's win
    cap row says "none", and its maximum win was labelled "x total bet, before the cap" (a cap the
    game does not have)."""
    import openpyxl

    from tests.features.engines.test_gift_expanding import TOY

    assert "[cap]" not in TOY
    sheet = build_sheet(load_model_text(TOY, str(tmp_path / "toy.toml")))
    write_reports(sheet, str(tmp_path), ("md", "xlsx"), stem="toy")
    md = (tmp_path / "toy.md").read_text()
    assert "| win cap | none |" in md
    assert "| solver: max_win (x total bet) |" in md and "before the cap" not in md
    ws = openpyxl.load_workbook(tmp_path / "toy.xlsx")["Mode base"]
    labels = [r[0].value for r in ws.iter_rows() if isinstance(r[0].value, str) and r[0].value.startswith("solver: ")]
    assert "solver: max_win (x total bet)" in labels
