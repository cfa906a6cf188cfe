"""Par-sheet items of issue 21 (item 3) that need no round law.

Checked against the model files themselves (read here with ``tomllib``), hand
counts and brute-force enumeration written for the test, and the four formats
against each other -- never against the solver's output copied in:

* every feature's declared parameters in a features section (all formats; JSON
  ``declared`` equals the model file's values);
* the rules table lists only rules of what the game has; no scatter-count table
  or zero scatter-pay row in a game without scatter pays;
* the free-game combination table and the retrigger probability per free spin;
* ``--vi-z`` (the 90 % volatility index convention), printed in the sheet;
* the expected RTP range never below a return of 0: certified from the N-round law (a hand count
  with the binomial law), the normal approximation, labelled approximate, where there is no law;
* exact fractions over 40 characters only in the appendix and the JSON; XLSX
  figures stored as numbers with a label column.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import shutil
import subprocess
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

from analytic.cli import main
from analytic.model.loader import load_model, load_model_text
from analytic.reports.json_ import render_json
from analytic.reports.markdown import render_markdown
from analytic.reports.model import build_sheet
from analytic.reports.write import write_reports

ROOT = Path(__file__).resolve().parents[2]
MODELS = sorted((ROOT / "models").glob("*.toml"))


def _declared_only(path) -> tuple:
    """The sheet of a model without solving any bet mode (its game-level sections only)."""
    game = load_model(str(path))
    return game, build_sheet(game, {})


def _md_table(md: str, heading: str) -> list[list[str]]:
    """Rows (cells as text) of the first Markdown table after ``heading``."""
    lines = md.split("\n")
    i = lines.index(heading)
    rows = []
    for line in lines[i + 1:]:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split(" | ")])
        elif rows:
            break
    return rows[2:]  # header and alignment rows


# ------------------------------------------------------------------ features section


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_features_section_shows_every_declared_parameter(model, tmp_path):
    """Every key of every [features.X] table of the model file is in the sheet: its mechanic as a
    row, its values in the text and, as declared, in the JSON (the file read here with tomllib)."""
    raw = tomllib.loads(model.read_text())["features"]
    game, sheet = _declared_only(model)
    data = json.loads(render_json(sheet))
    md = render_markdown(sheet)
    rows = _md_table(md, "### Features")
    by_feature: dict = {}
    cur = None
    for name, param, value in rows:
        cur = name or cur
        by_feature.setdefault(cur, {})[param.replace("\\", "")] = value.replace("\\", "")
    assert list(by_feature) == list(raw)
    for jf in data["features"]:
        decl = raw[jf["name"]]
        params = by_feature[jf["name"]]
        assert params["reel set"] == decl["reels"]
        assert jf["reel_set"] == decl["reels"]
        assert params["kind / engine"].startswith(decl["kind"])
        for n, spins in decl["trigger"]["counts"].items():
            assert f"{n} -> {spins} spins" in params["trigger"]
        for key, value in decl.items():
            if key in ("kind", "reels", "trigger"):
                continue
            assert key in jf["declared"], key
            if key == "wild_reels":
                assert jf["declared"][key]["multipliers"] == {str(k): v for k, v in value["multipliers"].items()}
                for m, w in value["multipliers"].items():
                    assert f"x{m}: {w}" in params["wild reels"]
            elif key == "retrigger":
                assert jf["declared"][key] == value
                assert f"{value['per_symbol']} x (b - 1) spins" in params["retrigger"]
            elif key == "expanding_symbol":
                assert jf["declared"][key]["draw"] == value["draw"]
                if "repeat_multiplier" in value:
                    assert jf["declared"][key]["ceiling"] == value["repeat_multiplier"]["ceiling"]
                    assert f"at most x{value['repeat_multiplier']['ceiling']}" in params["expanding symbol"]
                else:
                    assert "no repeat multiplier" in params["expanding symbol"]
                for s in value.get("choose_from", []):
                    assert s in params["expanding symbol"]
            elif key == "ladder":
                assert jf["declared"][key] == value["order"]
                assert value["order"] in params["ladder"]
            elif key == "golden_reels":
                assert jf["declared"][key] == value
                assert ", ".join(map(str, value["reels"])) in params["golden reels"]
            elif key == "multiplier":
                assert jf["declared"][key] == value
                assert f"x {value}" in params["multiplier"]
            elif key == "gift_pick":
                gifts = value["gifts"]
                assert jf["declared"][key]["gifts"] == [[g["effect"], g["value"], g["count"]] for g in gifts]
                assert f"from {sum(g['count'] for g in gifts)}:" in params["gifts"]
            else:
                pytest.fail(f"untested declared key {key}")
        assert jf["parameters"] == {k: v for k, v in params.items() if k != "kind / engine"}


def test_features_section_same_in_xlsx(tmp_path):
    """The XLSX features table holds the Markdown table's rows."""
    import openpyxl

    _, sheet = _declared_only(ROOT / "models" / "book_of_power.toml")
    write_reports(sheet, str(tmp_path), ("xlsx", "md"))
    ws = openpyxl.load_workbook(tmp_path / "book_of_power.xlsx")["Summary"]
    vals = [[c.value or "" for c in row] for row in ws.iter_rows(max_col=3)]
    start = next(i for i, r in enumerate(vals) if r[:3] == ["feature", "parameter", "value"])
    xrows = []
    for r in vals[start + 1:]:
        if not any(r):
            break
        xrows.append(r[:3])
    md = (tmp_path / "book_of_power.md").read_text()
    assert [[c.replace("\\", "") for c in r] for r in _md_table(md, "### Features")] == xrows


# ------------------------------------------------------------------ rules and sections that apply


def test_rules_only_of_what_the_game_has():
    """Book of Christmas Eve: one triggered feature, an expanding symbol drawn once (no repeat
    multiplier): neither simultaneous_triggers nor expanding_repeat_multiplier applies.  Book of
    Power: two triggered features and repeat multipliers: both do.  Secrets of Christmas: a wild, no
    expanding symbol: only line_wild_pay."""
    rules = {m.stem: {r.name for r in _declared_only(m)[1].rules} for m in MODELS}
    boce = rules["book_of_christmas_eve"]
    assert "simultaneous_triggers" not in boce and "expanding_repeat_multiplier" not in boce
    assert {"wild_reels_expansion", "published_max_win", "line_wild_pay"} <= boce
    bop = rules["book_of_power"]
    assert {"simultaneous_triggers", "expanding_repeat_multiplier", "golden_immediate",
            "golden_symbol_retriggers"} <= bop
    assert "wild_reels_expansion" not in bop and "published_max_win" not in bop
    assert rules["secrets_of_christmas"] == {"line_wild_pay"}
    # no wild with a multiplier, no anywhere pays: the line-multiplier rules do not apply
    line_rules = {"line_wild_multipliers", "all_wild_win_multiplied", "line_win_chosen_on", "anywhere_pay_wilds"}
    assert not any(line_rules & r for r in rules.values())


NO_SCATTER = """
[game]
name = "Plain"
reels = 3
rows = 1
[symbols]
seven = "regular"
bar = "regular"
[paytable]
seven = { 3 = 50 }
bar = { 3 = 5 }
[paylines]
lines = [[0, 0, 0]]
[reels]
base = [["seven", "bar", "bar"], ["seven", "bar", "bar", "bar"], ["seven", "bar"]]
"""


def test_no_scatter_sections_without_scatter_pays(tmp_path):
    """No scatter pays: no "scatter symbols in view" table (it said "0 cells" on every spin), no
    zero scatter-pay row in the RTP split, no rule about wilds; the split still adds up."""
    game = load_model_text(NO_SCATTER, str(tmp_path / "plain.toml"))
    sheet = build_sheet(game)
    m = sheet.modes[0]
    assert m.scatter_counts == ()
    assert [n for n, _ in m.components] == ["base line wins"]
    # hand count: 3 * 4 * 2 = 24 stop combinations; seven x3 once (50), bar x3 2*3*1 = 6 times (5)
    assert m.rtp.value == Fraction(50 + 6 * 5, 24) == sum(f.value for _, f in m.components)
    assert sheet.rules == ()
    md = render_markdown(sheet)
    assert "Scatter symbols in view" not in md and "scatter pays" not in md
    assert "line_wild_pay" not in md


# ------------------------------------------------------------------ free games


def _brute_free_line_wins(path) -> dict:
    """(symbol, count) -> hits over every stop combination and payline of the toy's free reels, by a
    3-reel evaluator written here: three of a kind pays; a wild stands for any regular symbol; three
    wilds pay the wild's own pay (the highest reading); scatters never form line wins."""
    raw = tomllib.loads(Path(path).read_text())
    roles = raw["symbols"]
    pays = raw["paytable"]
    strips = raw["reels"]["free"]
    lines = raw["paylines"]["lines"]
    rows = raw["game"]["rows"]
    hits: dict = {}
    for stops in itertools.product(*(range(len(s)) for s in strips)):
        window = [[s[(p + r) % len(s)] for r in range(rows)] for s, p in zip(strips, stops)]
        for line in lines:
            cells = [window[i][row] for i, row in enumerate(line)]
            best = None
            for sym in pays:
                if roles[sym] == "scatter":
                    continue
                if all(c == sym or (roles[c] == "wild" and roles[sym] == "regular") for c in cells):
                    pay = pays[sym].get("3", pays[sym].get(3, 0))
                    if pay and (best is None or pay > best[1]):
                        best = (sym, pay)
            if best:
                hits[(best[0], 3)] = hits.get((best[0], 3), 0) + 1
    return hits


def test_free_game_table_and_retrigger_against_hand_count(tmp_path, fs_path, fake_free_spins):
    """The toy's free reels: a brute-force count of the line wins, and the retrigger by hand (one
    star per 5-stop strip, 3 rows: a reel shows it with probability 3/5, three reels (27/125)
    award 10 spins).  The same figures in the JSON, Markdown and XLSX."""
    import openpyxl

    game = load_model(fs_path)
    sheet = build_sheet(game)
    (g,) = sheet.free_games
    assert (g.feature, g.reel_set, g.cycle) == ("free_spins", "free", 125)
    got = {(w.symbol, w.count): w.hits for w in g.line_wins}
    assert got == _brute_free_line_wins(fs_path)
    for w in g.line_wins:
        assert w.probability == Fraction(w.hits, 125 * 5)
        assert w.rtp == Fraction(w.pay * w.hits, 125 * 5)  # total bet = 5 line bets
    assert g.retrigger_probability == Fraction(27, 125)
    assert g.retrigger_awards == ((10, Fraction(27, 125)),)
    write_reports(sheet, str(tmp_path), ("json", "md", "xlsx"))
    data = json.loads((tmp_path / "toyfs.json").read_text())
    (jg,) = data["free_games"]
    assert jg["retrigger_probability"]["exact"] == "27/125"
    assert {(w["symbol"], w["count"]): w["hits"] for w in jg["line_wins"]} == got
    md = (tmp_path / "toyfs.md").read_text()
    assert "1 in 4.63 (21.6000%)" in md
    assert "## Free games" in md
    ws = openpyxl.load_workbook(tmp_path / "toyfs.xlsx")["Free games"]
    nums = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, float)]
    assert 0.216 in nums


def test_per_symbol_retrigger_by_hand(tmp_path):
    """Retrigger per_symbol (b >= 2 trigger symbols award 2 (b - 1)): a 3-reel, 1-row game whose free
    strips show the book on reel 1 with 1/2, reel 2 1/4, reel 3 1/5.  By hand: P(b = 2) =
    1/2*1/4*4/5 + 1/2*3/4*1/5 + 1/2*1/4*1/5 = 4/40 + 3/40 + 1/40 = 8/40, P(b = 3) = 1/40.  (With
    per_symbol = 5 the mean award would be 50/40 >= 1: refused at load, features.free_spins.retrigger.)"""
    text = """
[game]
name = "Books"
reels = 3
rows = 1
[symbols]
ten = { role = "regular" }
ace = { role = "regular" }
book = { role = "wild_scatter" }
[paytable]
ten = { 3 = 5 }
ace = { 2 = 2, 3 = 10 }
[paylines]
lines = [[0, 0, 0]]
[reels]
base = [["book", "ten", "ace"], ["book", "ten", "ace", "ten"], ["book", "ace", "ten", "ace", "ten"]]
free = [["book", "ten"], ["book", "ten", "ace", "ten"], ["book", "ace", "ten", "ace", "ten"]]
[modes.base]
cost = 1
reels = "base"
[features.free_spins]
kind = "free_spins"
reels = "free"
trigger = { symbols = ["book"], counts = { 3 = 10 } }
retrigger = { per_symbol = 2 }
expanding_symbol = { draw = "at_each_award", repeat_multiplier = { ceiling = 3 } }
"""
    game = load_model_text(text, str(tmp_path / "books.toml"))
    (g,) = build_sheet(game, {}).free_games
    assert g.retrigger_awards == ((2, Fraction(8, 40)), (4, Fraction(1, 40)))
    assert g.retrigger_probability == Fraction(9, 40)


# ------------------------------------------------------------------ volatility index convention


def test_vi_z_option(tmp_path, toy_path):
    """--vi-z 1.65: the 90 % index is 1.65 x the sheet's sd, in the Markdown and JSON, and the
    convention is printed; the default keeps the quantile; another value is refused (exit 2)."""
    out = tmp_path / "out"
    assert main(["report", toy_path, "--out", str(out), "--formats", "md,json", "--vi-z", "1.65"]) == 0
    data = json.loads((out / "toy.json").read_text())
    m = data["modes"][0]
    assert m["volatility"]["90"] == pytest.approx(1.65 * m["sd"], rel=1e-15)
    assert data["volatility_z"] == 1.65
    md = (out / "toy.md").read_text()
    assert "z = 1.65 (rounded, --vi-z 1.65)" in md
    assert "| volatility index 90% | " + f"{1.65 * m['sd']:,.4f}" in md
    assert main(["report", toy_path, "--out", str(out), "--formats", "json"]) == 0
    d2 = json.loads((out / "toy.json").read_text())
    assert d2["modes"][0]["volatility"]["90"] == pytest.approx(1.6448536269514722 * m["sd"], rel=1e-15)
    assert main(["report", toy_path, "--out", str(out), "--vi-z", "1.96"]) == 2
    with pytest.raises(ValueError):
        build_sheet(load_model(toy_path), {}, vi_z=1.96)


# ------------------------------------------------------------------ RTP range never below 0

RARE = """
[game]
name = "Rare"
reels = 3
rows = 1
[symbols]
seven = "regular"
blank = "blank"
[paytable]
seven = { 3 = 8000 }
[paylines]
lines = [[0, 0, 0]]
[reels]
base = [STRIP, STRIP, STRIP]
""".replace("STRIP", "[" + ", ".join(['"seven"'] + ['"blank"'] * 19) + "]")


def test_rtp_range_certified_from_the_n_round_law(tmp_path):
    """One win of 8000 in 8000 spins: over N rounds the RTP is 8000 K / N with K ~ Binomial(N, 1/8000),
    its quantiles counted here in Fractions.  At N = 1000, P(K = 0) = (7999/8000)^1000 = 0.8825 and
    P(K <= 1) = 0.9928, so both central ranges are 0 .. 800 %; at 2000, 4000 and 10^4 every certified interval
    holds the binomial quantile, and every low end is >= 0.  Labelled certified in every format."""
    game = load_model_text(RARE, str(tmp_path / "rare.toml"))
    sheet = build_sheet(game)
    m = sheet.modes[0]
    p = Fraction(1, 8000)

    def binom_q(n, a):  # least K with P(K' <= K) >= a
        acc, k, term = Fraction(0), 0, (1 - p) ** n
        while True:
            acc += term
            if acc >= a:
                return k
            term = term * (n - k) * p / ((k + 1) * (1 - p))
            k += 1

    by_n = {r.rounds: r for r in m.ranges + m.bands}
    assert by_n[1000].quantiles[0] == (90, 0.0, 0.0, pytest.approx(8.0), pytest.approx(8.0))
    for n in (1000, 2000, 4000, 10**4):
        r = by_n[n]
        assert r.label == "certified"
        for lv, a, b, c, e in r.quantiles:
            ql = 8000 * binom_q(n, Fraction(100 - lv, 200)) / n
            qh = 8000 * binom_q(n, Fraction(100 + lv, 200)) / n
            assert a - 1e-12 <= ql <= b + 1e-12 and c - 1e-12 <= qh <= e + 1e-12, (n, lv, a, ql, b, c, qh, e)
    for r in m.ranges + m.bands:
        assert all(lo >= 0 for _, lo, _ in r.ranges)
    write_reports(sheet, str(tmp_path), ("md", "json", "xlsx"))
    md = (tmp_path / "rare.md").read_text()
    assert "### Expected RTP range (certified)" in md and "| 0.00% .. 800.00% |" in md
    data = json.loads((tmp_path / "rare.json").read_text())
    row = data["modes"][0]["ranges"][0]
    assert row["label"] == "certified" and row["90%"] == [0.0, pytest.approx(8.0)]
    assert row["quantile_bounds"]["95%"]["high"] == [pytest.approx(8.0), pytest.approx(8.0)]
    assert "N-fold convolution" in data["modes"][0]["ranges_note"]


def test_rtp_range_normal_fallback_truncated_at_zero(tmp_path, monkeypatch):
    """Where no N-round law is certified (here: the routine made to certify nothing) the normal
    approximation is used, said so per mode: one win of 8000 in 8000 spins, RTP 1, variance 8000 - 1 by
    hand.  After 1000 rounds the normal range's low end (1 - 1.645 * 89.4 / 31.6) is below 0: printed as 0,
    marked, labelled approximate; the high end is untouched."""
    from analytic.solver import nround

    monkeypatch.setattr(nround, "n_round_quantiles", lambda *a, **k: {})
    game = load_model_text(RARE, str(tmp_path / "rare.toml"))
    sheet = build_sheet(game)
    m = sheet.modes[0]
    sd = math.sqrt(7999)
    assert m.sd == pytest.approx(sd)
    first = m.ranges[0]
    assert first.rounds == 1000 and first.truncated == (90, 95) and first.label == "approximate"
    for lv, lo, hi in first.ranges:
        assert lo == 0.0
        z = {90: 1.6448536269514722, 95: 1.959963984540054}[lv]
        assert hi == pytest.approx(1 + z * sd / math.sqrt(1000))
    for r in m.ranges + m.bands:
        assert all(lo >= 0 for _, lo, _ in r.ranges)
    last = m.ranges[-1]  # 10^8 rounds: 1 - 1.96 * 89.4 / 10^4 > 0
    assert last.truncated == () and last.ranges[1][1] == pytest.approx(1 - 1.959963984540054 * sd / 1e4)
    write_reports(sheet, str(tmp_path), ("md", "json", "xlsx"))
    md = (tmp_path / "rare.md").read_text()
    assert "### Expected RTP range (approximate)" in md and "| 0.00%\\* .. " in md  # the mark, escaped in Markdown
    data = json.loads((tmp_path / "rare.json").read_text())
    assert data["modes"][0]["ranges"][0]["truncated_at_0"] == ["90%", "95%"]
    assert data["modes"][0]["ranges"][0]["90%"][0] == 0.0
    assert "approximate" in data["modes"][0]["ranges_note"]
    assert "No certified N-round law for this mode" in data["modes"][0]["ranges_note"]


# ------------------------------------------------------------------ long fractions, XLSX numbers

_FRACTION = re.compile(r"\d+/\d+")


@pytest.mark.parametrize("path", sorted((ROOT / "reports").glob("*.md")), ids=lambda p: p.stem)
def test_committed_markdown_long_fractions_only_in_appendix(path):
    """Outside the regulator appendix no exact fraction is longer than 40 characters."""
    md = path.read_text()
    body = md.split("## Regulator appendix")[0]
    long = [f for f in _FRACTION.findall(body) if len(f) > 40]
    assert not long, long[:3]


def test_pdf_long_fractions_below_the_appendix_table(tmp_path):
    """In the PDF (text by pdftotext) every fraction over 40 characters is after "Long exact
    values", never in a table; the capped game's RTP (a long fraction) is there in full."""
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext not installed")
    from tests.reports.test_rtp_split import CAPPED

    game = load_model_text(CAPPED, str(tmp_path / "capped.toml"))
    sheet = build_sheet(game)
    write_reports(sheet, str(tmp_path), ("pdf",))
    text = subprocess.run(["pdftotext", "-layout", str(tmp_path / "capped.pdf"), "-"], capture_output=True,
                          text=True, check=True).stdout
    before, _, after = text.partition("Long exact values")
    assert not [f for f in _FRACTION.findall(before) if len(f) > 40]
    rtp = sheet.modes[0].rtp.value
    if len(f"{rtp.numerator}/{rtp.denominator}") > 40:
        assert after and str(rtp.numerator)[:30] in after.replace("\n", "").replace(" ", "")


def test_xlsx_figures_are_numbers_with_a_label(tmp_path, fs_path, fake_free_spins):
    """In a mode sheet every figure row stores its value as a number with a number format, and its
    exactness label in the column beside it."""
    import openpyxl

    game = load_model(fs_path)
    write_reports(build_sheet(game), str(tmp_path), ("xlsx",))
    ws = openpyxl.load_workbook(tmp_path / "toyfs.xlsx")["Mode base"]
    head = [c.value for c in ws[2]]
    assert head[:3] == ["figure", "value", "label"]
    rows = 0
    for row in ws.iter_rows(min_row=3):
        name, value, label = row[0].value, row[1], row[2].value
        if name is None:
            break
        rows += 1
        if isinstance(value.value, str):  # only a text extra of the solver (a method, a reading)
            assert name.startswith("solver: ") and label is None
            continue
        assert isinstance(value.value, (int, float)), name
        assert value.number_format != "General", name
        assert label in ("exact", "bounded", "float"), name
    assert rows >= 8


def test_book_of_power_free_spins_retrigger_by_binomial():
    """Book of Power's free reel set has one Book on each 40-stop reel (checked from the file): a
    reel shows it with p = 3/40, the five reels independently, so a retrigger (b >= 2 Books) has
    probability 1 - q^5 - 5 p q^4, and b Books award 5 (b - 1) spins with C(5, b) p^b q^(5-b)."""
    raw = tomllib.loads((ROOT / "models" / "book_of_power.toml").read_text())
    strips = raw["reels"]["free"]
    assert all(sum(c in ("book", "power_book") for c in s) == 1 for s in strips)
    assert len({len(s) for s in strips}) == 1
    p = Fraction(raw["game"]["rows"], len(strips[0]))
    q = 1 - p
    game, sheet = _declared_only(ROOT / "models" / "book_of_power.toml")
    g = next(x for x in sheet.free_games if x.feature == "free_spins")
    assert g.retrigger_probability == 1 - q**5 - 5 * p * q**4
    assert g.retrigger_awards == tuple((5 * (b - 1), math.comb(5, b) * p**b * q**(5 - b)) for b in range(2, 6))
