"""The exceedance ladder in all four par-sheet formats (issue 21, item 2).

Oracle: the independent round enumerator (``tests/solver/oracle.py``, reading the raw TOML) gives
the toy's exact round law; every format must show its ``P(R >= x)``.  A mode without a law shows
the reason and no row; a grid law shows certified bounds with the gap in its note.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

from analytic.model.loader import load_model, load_model_text
from analytic.reports.json_ import render_json
from analytic.reports.markdown import render_markdown
from analytic.reports.model import build_sheet
from analytic.reports.write import write_reports
from analytic.solver.exceedance import LADDER

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solver"))
from oracle import Oracle  # noqa: E402

TINY = (Path(__file__).resolve().parents[1] / "data" / "tiny_free_spins.toml.in").read_text()


def _want(path) -> dict:
    """``threshold -> P(min(R, C) >= threshold)`` of the toy, from the enumerator."""
    raw = tomllib.loads(Path(path).read_text())
    o = Oracle(raw)
    law = o.round_law("base")
    assert law.exact
    cap = o.cap
    out = {}
    for x in [Fraction(v) for v in LADDER] + [cap]:
        out[x] = sum((p for w, p in law.points.items() if min(w, cap) >= x), Fraction(0))
    return out


def test_ladder_in_all_four_formats(tmp_path, toy_path):
    want = _want(toy_path)
    sheet = build_sheet(load_model(toy_path))
    ex = sheet.modes[0].exceedance
    assert ex.label == "exact"
    assert {r.threshold: r.low for r in ex.rows} == want
    labels = [r.label for r in ex.rows]
    assert "5000 (cap)" in labels and labels.count("5000") == 0
    write_reports(sheet, str(tmp_path), ("md", "json", "xlsx", "pdf"))
    # Markdown: one row per threshold with its fraction
    md = (tmp_path / "toy.md").read_text()
    sec = md.split("### Exceedance ladder", 1)[1].split("###", 1)[0]
    for r in ex.rows:
        p = want[r.threshold]
        frac = str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"
        assert f"| {r.label} | " in sec and f"| {frac} |" in sec, (r.label, frac)
    assert "Maximum win: 40.8000 x total bet" in sec
    # JSON: exact fractions
    d = json.loads((tmp_path / "toy.json").read_text())["modes"][0]["exceedance"]
    got = {Fraction(r["x"]["exact"]): Fraction(r["probability"]["exact"]) for r in d["rows"]}
    assert got == want and d["label"] == "exact"
    # the enumerator's largest win (uncapped here: below the cap)
    o = Oracle(tomllib.loads(Path(toy_path).read_text()))
    top = max(w for w, p in o.round_law("base").points.items() if p)
    assert Fraction(d["max_win"]["exact"]) == top
    # XLSX: numbers with a number format, the label in its own column
    import openpyxl

    ws = openpyxl.load_workbook(tmp_path / "toy.xlsx")["Mode base"]
    rows = list(ws.iter_rows(values_only=False))
    start = next(i for i, r in enumerate(rows) if r[0].value == "Exceedance ladder")
    head = [c.value for c in rows[start + 2]]
    assert head[:4] == ["win >= x (x total bet)", "x", "P(win >= x)", "label"]
    seen = {}
    for r in rows[start + 3: start + 3 + len(ex.rows)]:
        assert isinstance(r[2].value, (int, float)) and r[2].number_format != "General"
        assert r[3].value == "exact"
        seen[Fraction(r[1].value)] = r[2].value
    assert seen == {x: pytest.approx(float(p), rel=1e-15) for x, p in want.items()}
    # PDF: the section and the plot's page exist
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", "-layout", str(tmp_path / "toy.pdf"), "-"], capture_output=True,
                              text=True, check=True).stdout
        assert "Exceedance ladder" in text and "5000 (cap)" in text and "Maximum win: 40.8000" in text


def test_mode_without_law_gives_the_reason_and_no_row(tmp_path, fs_path, fake_free_spins):
    if fake_free_spins:
        pytest.skip("the fake with a distribution has a law")
    sheet = build_sheet(load_model(fs_path))
    for m in sheet.modes:
        assert m.exceedance is None
        assert m.exceedance_note.startswith("Exceedance ladder not given: ") and "not available" in m.exceedance_note
    md = render_markdown(sheet)
    for sec in md.split("### Exceedance ladder")[1:]:
        body = sec.split("###", 1)[0]
        assert "|" not in body and "Exceedance ladder not given" in body
    d = json.loads(render_json(sheet))
    assert all(m["exceedance"] is None for m in d["modes"])
    write_reports(sheet, str(tmp_path), ("xlsx", "pdf"))


def test_grid_law_ladder_is_bounded_with_its_gap(tmp_path):
    """Free spins with retriggers under a 20x cap: the round's law is a certified grid law; every
    row's bounds hold the enumerator's value (its recursion is exact below the cap, with its own
    missing mass), the rows above the cap are exactly 0, the gap is stated."""
    text = TINY.format(award=1, extra="") + "\n[cap]\ntotal_bet_multiple = 20\n"
    game = load_model_text(text, str(tmp_path / "tiny.toml"))
    sheet = build_sheet(game)
    m = sheet.modes[0]
    ex = m.exceedance
    assert ex.label == "bounded" and 0 < ex.gap < 1e-9
    stated = re.search(r"gap \(high - low\) is at most ([0-9.e+-]+)\.", m.exceedance_note)
    assert stated and ex.gap <= Fraction(stated.group(1)) <= ex.gap * Fraction(101, 100)  # rounded up, 3 digits
    o = Oracle(tomllib.loads(text))
    ol = o.round_law("base")
    checked = 0
    for r in ex.rows:
        if r.threshold > 20:
            assert r.low == r.high == 0
            continue
        lo = sum(p for w, p in ol.points.items() if min(w, o.cap) >= r.threshold)
        assert float(r.high) >= lo - 1e-15 and float(r.low) <= lo + ol.missing + 1e-15, (r, lo, ol.missing)
        assert not r.exact
        checked += 1
    assert checked == 5  # 1, 2, 5, 10, 20 (cap)
    assert ex.max_win == 20 and ex.max_low < ex.max_high  # the cap, reached with certified probability
    d = json.loads(render_json(sheet))["modes"][0]["exceedance"]
    assert d["label"] == "bounded" and d["rows"][0]["probability"]["label"] == "bounded"
    assert all(r["probability"]["low"] <= r["probability"]["high"] for r in d["rows"][:5])
    assert d["rows"][-1]["probability"]["exact"] == "0/1"
    md = render_markdown(sheet)
    assert "| win >= x (x total bet) | P(win >= x) | 1 in | lower bound | upper bound |" in md


@pytest.mark.parametrize("cap", [20, 50])
def test_grid_law_distribution_rows_hold_the_enumerators_rows(tmp_path, cap):
    """Free spins with retriggers under a cap (a certified grid law): every JSON distribution row's
    probability, RTP and share is a bounded figure whose interval meets the enumerator's row (exact
    below the cap, less its own missing mass; uncapped it merges every positive win into one point,
    so rows cannot be compared), the no-win row's RTP exactly 0."""
    text = TINY.format(award=1, extra="") + ("" if cap is None else f"\n[cap]\ntotal_bet_multiple = {cap}\n")
    game = load_model_text(text, str(tmp_path / "tiny.toml"))
    sheet = build_sheet(game)
    m = sheet.modes[0]
    assert m.distribution.mass_error > 0
    o = Oracle(tomllib.loads(text))
    ol = o.round_law("base")
    top = o.cap if cap else max(ol.points)

    def capped(w):
        return min(w, o.cap) if cap else w

    rtp = sum((capped(w) * p for w, p in ol.points.items()), Fraction(0)) if cap else None
    rows = json.loads(render_json(sheet))["modes"][0]["distribution"]["buckets"]
    for r in rows:
        lo, hi = Fraction(r["low"]["exact"]), Fraction(r["high"]["exact"])
        inside = {w: p for w, p in ol.points.items() if (w == 0 if hi == 0 else lo < capped(w) <= hi)}
        want_p = sum(inside.values(), Fraction(0))
        want_r = sum((capped(w) * p for w, p in inside.items()), Fraction(0))
        miss_r = ol.missing * hi
        for key, want, miss in (("probability", want_p, ol.missing), ("rtp", want_r, miss_r)):
            f = r[key]
            c, e = Fraction(f["exact"]), Fraction(repr(f.get("error", 0)))
            assert f["label"] == ("exact" if key == "rtp" and hi == 0 else "bounded")
            assert c - e <= want + miss and want <= c + e, (key, r["label"], c, e, want)
        if rtp:
            f = r["share"]
            c, e = Fraction(f["exact"]), Fraction(repr(f.get("error", 0)))
            assert c - e <= (want_r + miss_r) / rtp and want_r / (rtp + ol.missing * top) <= c + e
