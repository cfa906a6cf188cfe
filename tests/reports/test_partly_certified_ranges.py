"""An expected-RTP-range row certified at one level and not at the other keeps the certified one.

The N-round law's certified error grows with N, and the 95 % range's tails (2.5 %) are thinner than
the 90 % range's (5 %): at some N the errors exceed the 95 % tail only.  The row fell back to the
normal approximation at both levels, dropping the 90 % range's certified ends; now each level is
certified where it can be, and every format says which level is which.

The game (tests/data/two_reels.toml): one line, ``a a`` pays 3 total bets with probability 1/4, so the
round law is {0: 3/4, 3: 1/4} (RTP 3/4, variance 9/4 - 9/16 = 27/16) and the RTP over N rounds is
3 K / N, K ~ Binomial(N, 1/4): the oracle, its quantiles counted here in integers.  The round law is
given an injected total-variation error e0 = 1e-6 (the law is exact; the error is only carried): at
N = 10^3 both levels certify, at 10^4 the error sum (about 3 N e0 = 0.03) exceeds the 2.5 % tail
only, from 10^5 both tails.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import pytest

from analytic.model.loader import load_model_text
from analytic.reports.format import range_rows, ranges_label
from analytic.reports.model import PARTLY_CERTIFIED, RangeRow, build_sheet
from analytic.reports.write import write_reports

DATA = Path(__file__).resolve().parents[1] / "data"
E0 = Fraction(1, 10**6)
Z = {90: 1.6448536269514722, 95: 1.959963984540054}


def _quantile_k(n: int, a: Fraction) -> int:
    """Least K with P(Binomial(n, 1/4) <= K) >= a: sum_k C(n, k) 3^(n - k) against a 4^n, in integers."""
    target = a * 4**n
    acc, term = 0, 3**n  # C(n, 0) 3^n
    for k in range(n + 1):
        acc += term
        if acc >= target:
            return k
        term = term * (n - k) // (k + 1) // 3
    raise AssertionError("no quantile")


@pytest.fixture(scope="module")
def sheet_dir(tmp_path_factory):
    from analytic.solver import nround

    orig = nround.n_round_quantiles
    mp = pytest.MonkeyPatch()
    mp.setattr(nround, "n_round_quantiles",  # the law given an error: built by hand, not the solver's
               lambda points, error, *a, **k: orig(points, Fraction(error) + E0, *a, **k))
    try:
        out = tmp_path_factory.mktemp("partly")
        sheet = build_sheet(load_model_text((DATA / "two_reels.toml").read_text(), str(out / "partly.toml")))
        write_reports(sheet, str(out), ("md", "json", "xlsx", "pdf"), stem="partly")
    finally:
        mp.undo()
    return sheet, out


def test_each_level_certified_where_it_can_be(sheet_dir):
    sheet, _ = sheet_dir
    m = sheet.modes[0]
    by_n = {r.rounds: r for r in m.ranges}
    assert by_n[1000].label == "certified" and by_n[10**5].label == "approximate"
    r = by_n[10**4]
    assert r.label == PARTLY_CERTIFIED  # it was "approximate" at both levels
    assert (r.level_label(90), r.level_label(95)) == ("certified", "approximate")
    (lv, a, b, c, e), = r.quantiles
    n = 10**4
    ql, qh = (Fraction(3 * _quantile_k(n, Fraction(x, 200)), n) for x in (100 - lv, 100 + lv))
    assert a <= ql <= b and c <= qh <= e, (a, ql, b, c, qh, e)
    assert r.ranges[0] == (90, a, e)
    sd = math.sqrt(27 / 16)  # the 95 % range: the normal approximation, by hand
    assert r.ranges[1][1] == pytest.approx(0.75 - Z[95] * sd / 100) and r.ranges[1][2] == pytest.approx(0.75 + Z[95] * sd / 100)
    assert r.truncated == ()
    assert "or for that level at that N" in m.ranges_note
    # here the approximate 95 % range's low end lies above the certified 90 % range's (72.45 % > 72.32 %):
    # the note says an approximate range need not contain the certified narrower one (it said nothing)
    assert r.ranges[1][1] > r.ranges[0][1]
    assert "an approximate range need not contain the certified narrower one" in m.ranges_note


def test_markdown_marks_the_approximate_level(sheet_dir):
    sheet, out = sheet_dir
    md = (out / "partly.md").read_text()
    assert "### Expected RTP range (certified except the rows and ranges marked (approximate))" in md
    rows = [line for line in md.splitlines() if line.startswith("| 10^4")]
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    assert cells[0] == "10^4" and not cells[1].endswith("(approximate)") and cells[2].endswith(" (approximate)")
    assert [line for line in md.splitlines() if line.startswith("| 10^5 (approximate) |")]


def test_json_keeps_the_certified_level(sheet_dir):
    _, out = sheet_dir
    rows = {r["rounds"]: r for r in json.loads((out / "partly.json").read_text())["modes"][0]["ranges"]}
    r = rows[10**4]
    assert r["label"] == "partly certified" and list(r["quantile_bounds"]) == ["90%"]
    assert r["90%"] == [r["quantile_bounds"]["90%"]["low"][0], r["quantile_bounds"]["90%"]["high"][1]]
    assert list(rows[1000]["quantile_bounds"]) == ["90%", "95%"] and "quantile_bounds" not in rows[10**5]


def test_xlsx_labels_each_level(sheet_dir):
    import openpyxl

    _, out = sheet_dir
    ws = openpyxl.load_workbook(out / "partly.xlsx")["Mode base"]
    found = {r[0].value: [c.value for c in r] for r in ws.iter_rows() if r[0].value in (1000, 10**4, 10**5)}
    labels = {n: [v for v in row if isinstance(v, str)][-1] for n, row in found.items()}
    assert labels == {1000: "certified", 10**4: "90% certified, 95% approximate", 10**5: "approximate"}


def test_pdf_marks_the_approximate_level(sheet_dir):
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext not installed")
    _, out = sheet_dir
    text = subprocess.run(["pdftotext", "-layout", str(out / "partly.pdf"), "-"], capture_output=True, text=True,
                          check=True).stdout
    row = [line for line in text.splitlines() if line.strip().startswith("10^4")]
    assert row and row[0].rstrip().endswith("(approximate)") and row[0].count("(approximate)") == 1, row


def test_band_plot_hatches_each_level_on_its_own(sheet_dir, monkeypatch):
    """The bands of the sheet: 90 % certified to 10^4, 95 % to 8000.  Each level's segment between two N
    is plain where that level is certified at both ends: 90 % has 4 plain segments (10^3 .. 10^4), 95 %
    3 (10^3 .. 8000); the segment 8000 .. 10^4 of the 90 % band was hatched with the 95 %'s."""
    from analytic.reports import plots

    sheet, _ = sheet_dir
    m = sheet.modes[0]
    got = {}
    monkeypatch.setattr(plots, "_png", lambda fig: got.setdefault("fig", fig) and b"")
    plots.bands_png(m)
    ax = got["fig"].axes[0]
    from matplotlib.colors import to_hex

    def count(hex_, hatched):
        return sum(1 for c in ax.collections
                   if to_hex(c.get_facecolor()[0]) == hex_ and bool(c.get_hatch()) == hatched)

    segs = len(m.bands) - 1
    assert (count("#9dc3e6", False), count("#dbe9f6", False)) == (4, 3)  # 90 %, 95 %: plain
    assert (count("#9dc3e6", True), count("#dbe9f6", True)) == (segs - 4, segs - 3)
    legend = ax.get_legend()
    named = {t.get_text(): (to_hex(h.get_facecolor()), bool(h.get_hatch()))
             for t, h in zip(legend.get_texts(), legend.legend_handles) if hasattr(h, "get_hatch")}
    assert named["90% range (certified)"] == ("#9dc3e6", False) and named["95% range (certified)"] == ("#dbe9f6", False)
    # the hatching named per level, on that level's shade (it was one white hatched patch for both)
    assert named["90% range, normal approximation (not certified)"] == ("#9dc3e6", True)
    assert named["95% range, normal approximation (not certified)"] == ("#dbe9f6", True)


def test_band_plot_zooms_on_where_the_hatching_starts(sheet_dir, monkeypatch):
    """The bands narrow as 1/sqrt(N): where a range turns approximate it is a fraction of the full
    scale's height (the 10^3 band; Book of Power's bought Power Free Spins, 2 10^6 rounds: about 3 %,
    its hatching a few pixels high).  A second panel starts at 8000 (the last N certified at both
    levels) with the bands from there filling it (here 10^4's 95 % band: over half its height, more
    than twice its share of the full scale), its segment 8000 .. 10^4 hatched and the 90 % one plain."""
    from matplotlib.colors import to_hex

    from analytic.reports import plots

    sheet, _ = sheet_dir
    m = sheet.modes[0]
    got = {}
    monkeypatch.setattr(plots, "_png", lambda fig: got.setdefault("fig", fig) and b"")
    plots.bands_png(m)
    assert len(got["fig"].axes) == 2
    full, z = got["fig"].axes
    by_n = {r.rounds: r for r in m.bands}
    (_, lo95, hi95), = [x for x in by_n[10**4].ranges if x[0] == 95]
    width = (hi95 - lo95) * 100
    share = width / (full.get_ylim()[1] - full.get_ylim()[0])
    assert z.get_xlim() == pytest.approx((8000, 10**8))
    zoomed = width / (z.get_ylim()[1] - z.get_ylim()[0])
    assert zoomed > 0.5 and zoomed > 2 * share, (share, zoomed)
    for r in m.bands[[x.rounds for x in m.bands].index(8000):]:  # every band from 8000 on inside the panel
        for _, lo, hi in r.ranges:
            assert z.get_ylim()[0] <= lo * 100 and hi * 100 <= z.get_ylim()[1]
    first = [c for c in z.collections if c.get_paths() and c.get_paths()[0].vertices[:, 0].min() == pytest.approx(8000)]
    kinds = sorted((to_hex(c.get_facecolor()[0]), bool(c.get_hatch())) for c in first)
    assert kinds == [("#9dc3e6", False), ("#dbe9f6", True)]


def test_label_of_tables_with_partly_certified_rows_by_hand():
    q90 = (90, Fraction(90, 100), Fraction(91, 100), Fraction(98, 100), Fraction(99, 100))
    q95 = (95, Fraction(88, 100), Fraction(89, 100), Fraction(99, 100), Fraction(1))
    both = RangeRow(10**3, ((90, 0.9, 0.99), (95, 0.88, 1.0)), (), "certified", (q90, q95))
    part = RangeRow(10**4, ((90, 0.9, 0.99), (95, 0.91, 0.98)), (), PARTLY_CERTIFIED, (q90,))
    m = SimpleNamespace(ranges=(both, part))
    assert ranges_label(m) == "certified except the ranges marked (approximate)"
    assert range_rows(m) == [["10^3", "90.00% .. 99.00%", "88.00% .. 100.00%"],
                             ["10^4", "90.00% .. 99.00%", "91.00% .. 98.00% (approximate)"]]


def test_xlsx_certified_layout_names_a_truncated_low_end_by_hand():
    """The XLSX's certified layout has no "low end truncated at 0" column: an approximate level whose
    normal range went below 0 (printed 0.00%* in the Markdown and PDF) showed 0.0000% with no word."""
    from analytic.reports.format import range_exactness, range_cells

    q90 = (90, Fraction(90, 100), Fraction(91, 100), Fraction(98, 100), Fraction(99, 100))
    part = RangeRow(10**3, ((90, 0.9, 0.99), (95, 0.0, 1.9)), (95,), PARTLY_CERTIFIED, (q90,))
    assert range_cells(part)[1] == "0.00%* .. 190.00% (approximate)"
    assert range_exactness(part, truncated=True) == "90% certified, 95% approximate; 95% low end truncated at 0"
    assert range_exactness(part) == "90% certified, 95% approximate"  # the other layout: a column of its own
    approx = RangeRow(10**8, ((90, 0.0, 1.5), (95, 0.0, 1.6)), (90, 95))
    assert range_exactness(approx, truncated=True) == "approximate; 90%, 95% low end truncated at 0"
