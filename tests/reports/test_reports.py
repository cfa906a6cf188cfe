"""Par sheets: the data model equals the solver, every format is written,
the JSON schema is stable, writing is atomic, the CLI's exit codes."""

from __future__ import annotations

import json
import os
from fractions import Fraction

import pytest

from analytic.cli import main
from analytic.model.loader import load_model
from analytic.reports import write as write_mod
from analytic.reports.check import check_reports
from analytic.reports.json_ import SCHEMA, render_json
from analytic.reports.markdown import render_markdown
from analytic.reports.model import RANGE_ROUNDS, bucket_edges, build_sheet
from analytic.reports.write import write_reports
from analytic.figures import Z_SCORES
from analytic.solver.round import solve_game


def _sheet(path):
    game = load_model(path)
    res = solve_game(game)
    return game, res, build_sheet(game, res)


def _check_against_solver(sheet, res):
    for m in sheet.modes:
        r = res[m.info.name]
        assert m.rtp == r.rtp
        assert m.mean_win == r.mean_win and m.second_moment == r.second_moment
        assert m.hit_frequency == r.hit_frequency
        assert m.variance.value == r.variance
        assert m.sd == r.sd
        assert dict(m.volatility) == {c: r.volatility_index(c) for c in (90, 95, 99)}
        assert m.components == tuple((c.name, c.rtp) for c in r.components)
        assert [f.name for f in m.features] == [f.name for f in r.features]
        for f, g in zip(m.features, r.features):
            assert (f.frequency, f.average_win, f.sd, f.rtp, f.expected_spins) == \
                (g.frequency, g.average_win, g.sd, g.rtp, g.expected_spins)
        assert m.methods == tuple(sorted(r.methods.items()))
        if r.base is not None:
            assert m.cycle == r.base.cycle
            # line wins by symbol and count add up to the line component exactly
            assert sum(w.rtp for w in m.line_wins) == r.base.line_rtp / r.cost
        # expected RTP ranges
        assert [x.rounds for x in m.ranges] == list(RANGE_ROUNDS)
        lv, lo, hi = m.ranges[0].ranges[0]
        if m.ranges[0].label == "approximate":  # the normal approximation (no N-round law)
            assert lo == pytest.approx(max(0.0, float(r.rtp.value) - Z_SCORES[lv] * r.sd / 1000**0.5))
        else:  # certified from the N-round law (its oracle: tests/solver/test_nround.py)
            assert m.ranges[0].label == "certified" and 0 <= lo <= hi and m.ranges[0].quantiles
        # the distribution partitions the round and its RTP exactly
        b = m.distribution.buckets
        assert sum(x.probability for x in b) == 1
        assert sum(x.rtp for x in b) == r.rtp.value


def test_bucket_edges():
    assert bucket_edges(Fraction(15000)) == [Fraction(x) for x in
                                             (0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000)]
    assert bucket_edges(Fraction(1, 2)) == [0, 1]
    assert bucket_edges(Fraction(0)) == [0, 1]


def test_base_only_sheet_equals_solver(toy_path):
    game, res, sheet = _sheet(toy_path)
    _check_against_solver(sheet, res)
    m = sheet.modes[0]
    base = res["base"].base
    assert m.distribution.scope == "round" and m.distribution.label == "exact"
    assert m.top_win == base.figures.top_win
    assert m.top_probability == Fraction(base.figures.top_weight, base.cycle)
    assert m.cap_probability == 0
    # buckets end at the cap
    assert m.distribution.buckets[-1].high == game.cap.total_bet_multiple
    assert sheet.model_sha256 and len(sheet.model_sha256) == 64


def test_feature_sheet_equals_solver(fs_path, fake_free_spins):
    game, res, sheet = _sheet(fs_path)
    _check_against_solver(sheet, res)
    base, buy = sheet.modes
    assert [f.name for f in base.features] == ["free_spins"]
    rules = {r.name: r for r in sheet.rules}
    # one feature with a trigger: no two triggers can meet, the rule does not apply (issue 21)
    assert "simultaneous_triggers" not in rules
    assert rules["line_wild_pay"].value == "highest" and rules["line_wild_pay"].doc  # the toy has a wild
    # a rule of a mechanic the toy does not declare (no expanding symbol) is not known to it
    assert "expanding_count" not in {r.name for r in sheet.rules}
    if fake_free_spins:
        assert base.distribution.scope == "round"
        assert buy.distribution.scope == "round"
        assert buy.top_win == 40
    else:
        assert base.distribution.scope == "base spin only"
        assert "not available" in base.distribution.note
        assert base.distribution.buckets[-1].low is None  # feature rounds as one row
        assert base.distribution.buckets[-1].probability == res["base"].features[0].frequency.value
        assert buy.distribution.scope == "none"
        assert buy.top_win is None
        md = render_markdown(sheet)
        assert "Distribution of the base spin only" in md


def test_capped_feature_without_distribution_refused(monkeypatch):
    """Issue 18: a cap on a round whose feature gives no win law is refused, not ignored."""
    from analytic.errors import ModelError
    from analytic.features.result import SOLVERS
    import analytic.features.catalog  # noqa: F401  (registers the real engines first)
    from tests.reports.conftest import DATA, _fake

    monkeypatch.setitem(SOLVERS, "wald", _fake(False))
    with pytest.raises(ModelError, match="cap.total_bet_multiple"):
        solve_game(load_model(str(DATA / "toyfs.toml")))


def test_every_format_written(tmp_path, fs_path, fake_free_spins):
    _, _, sheet = _sheet(fs_path)
    paths = write_reports(sheet, str(tmp_path))
    assert sorted(os.path.basename(p) for p in paths) == ["toyfs.json", "toyfs.md", "toyfs.pdf", "toyfs.xlsx"]
    assert (tmp_path / "toyfs.pdf").read_bytes().startswith(b"%PDF")
    import openpyxl

    wb = openpyxl.load_workbook(tmp_path / "toyfs.xlsx")
    assert wb.sheetnames == ["Summary", "Mode base", "Mode buy", "Reels", "Free games", "Paytable", "Distribution",
                             "Sessions", "Appendix"]
    assert wb["Mode base"].freeze_panes == "A3"
    data = json.loads((tmp_path / "toyfs.json").read_text())
    assert data["modes"][0]["rtp"]["exact"] == f"{sheet.modes[0].rtp.value.numerator}/{sheet.modes[0].rtp.value.denominator}"
    md = (tmp_path / "toyfs.md").read_text()
    for head in ("## Game", "### Paylines", "### Rules as modelled", "## Reel strips", "## Bet mode `base`",
                 "## Bet mode `buy`", "### Win distribution", "## Regulator appendix"):
        assert head in md
    assert [p for p in os.listdir(tmp_path) if p.endswith(".tmp")] == []


def test_text_formats_are_deterministic(toy_path):
    _, _, a = _sheet(toy_path)
    _, _, b = _sheet(toy_path)
    assert render_markdown(a) == render_markdown(b)
    assert render_json(a) == render_json(b)


#: The JSON schema: changing these keys is a breaking change (bump SCHEMA).
TOP_KEYS = ["schema", "name", "model_file", "model_sha256", "solver_version", "reels", "rows", "total_bet", "lines",
            "meta", "modes_info", "cap", "rules", "design", "reel_sets", "paytable", "scatter_pays",
            "scatter_symbols", "line_triggers", "features", "modes", "appendix", "free_games", "volatility_z",
            "volatility_convention"]
MODE_KEYS = ["info", "reel_set", "cycle", "rtp", "mean_win", "second_moment", "variance", "components",
             "line_wins", "scatter_counts", "features", "hit_frequency", "hit_one_in", "sd", "volatility", "ranges",
             "bands", "distribution", "top_win", "top_probability", "top_note", "cap_probability", "extra", "methods",
             "session", "exceedance", "exceedance_note", "spins_played", "sd_bounds", "volatility_bounds", "ranges_note"]


def test_json_schema_keys_stable(toy_path):
    _, _, sheet = _sheet(toy_path)
    d = json.loads(render_json(sheet))
    assert d["schema"] == SCHEMA
    assert list(d) == TOP_KEYS
    m = d["modes"][0]
    assert list(m) == MODE_KEYS
    assert set(m["rtp"]) == {"exact", "float", "label"}
    assert list(m["distribution"]) == ["scope", "note", "label", "mass_error", "buckets"]
    assert list(m["distribution"]["buckets"][0]) == ["label", "low", "high", "probability", "rtp", "share"]
    assert list(m["ranges"][0])[:5] == ["rounds", "90%", "95%", "truncated_at_0", "label"]
    assert list(m["ranges"][0])[5:] in ([], ["quantile_bounds"])  # a certified row's quantile intervals
    assert list(d["appendix"][0]) == ["mode", "figure", "value", "method"]
    assert list(m["exceedance"]) == ["label", "error", "gap", "rows", "max_win", "max_probability", "max_note"]
    assert list(m["exceedance"]["rows"][0]) == ["x", "label", "probability"]


def test_writing_is_atomic(tmp_path, toy_path, monkeypatch):
    _, _, sheet = _sheet(toy_path)
    (tmp_path / "toy.md").write_text("old\n")
    real = write_mod.renderer

    def failing(fmt):
        if fmt == "pdf":
            def boom(sheet, path):
                with open(path, "wb") as fh:
                    fh.write(b"%PDF half")
                raise RuntimeError("renderer failed")
            return boom
        return real(fmt)

    monkeypatch.setattr(write_mod, "renderer", failing)
    with pytest.raises(RuntimeError):
        write_reports(sheet, str(tmp_path), ["md", "json", "pdf"])
    assert sorted(os.listdir(tmp_path)) == ["toy.md"]
    assert (tmp_path / "toy.md").read_text() == "old\n"


def test_cli_writes(tmp_path, toy_path, capsys):
    out = tmp_path / "out"
    assert main(["report", toy_path, "--out", str(out), "--formats", "md,json"]) == 0
    assert sorted(os.listdir(out)) == ["toy.json", "toy.md"]


def test_cli_bad_model_exit_2_nothing_written(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("[game]\nname = 'x'\nreels = 0\n")
    out = tmp_path / "out"
    assert main(["report", str(bad), "--out", str(out)]) == 2
    assert "error:" in capsys.readouterr().err
    assert not out.exists() or os.listdir(out) == []
    assert main(["report", str(tmp_path / "missing.toml"), "--out", str(out)]) == 2
    assert not out.exists() or os.listdir(out) == []


def test_cli_bad_format_exit_2(tmp_path, toy_path, capsys):
    out = tmp_path / "out"
    assert main(["report", toy_path, "--out", str(out), "--formats", "md,docx"]) == 2
    assert not out.exists()


def test_check_reports(tmp_path, toy_path):
    _, _, sheet = _sheet(toy_path)
    assert check_reports(toy_path, str(tmp_path)) == []  # nothing committed: nothing to check
    write_reports(sheet, str(tmp_path), ["md", "json"])
    assert check_reports(toy_path, str(tmp_path), sheet) == []
    p = tmp_path / "toy.md"
    p.write_text(p.read_text().replace("Toy Fruits", "Toy Fruit"))
    bad = check_reports(toy_path, str(tmp_path), sheet)
    assert [os.path.basename(m.path) for m in bad] == ["toy.md"]
    assert "Toy Fruits" in bad[0].diff


def test_mode_sections_built_in_worker_processes_are_the_same(fs_path, tmp_path, monkeypatch):
    """``workers=2``: each mode's section built in a worker process; the sheet as built in this process.

    Oracle: the sheet built here mode by mode (``workers=1``), as JSON and Markdown text;
    which process built which mode is logged (process ids).
    """
    from analytic.reports import model as report_model

    game = load_model(fs_path)
    res = solve_game(game)
    here = build_sheet(game, res)
    log = tmp_path / "modes.log"
    real = report_model._mode_sheet

    def logged(game, r, *a):  # (inherited by the workers through fork)
        with open(log, "a") as fh:
            fh.write(f"{os.getpid()} {r.mode}\n")
        return real(game, r, *a)

    monkeypatch.setattr(report_model, "_mode_sheet", logged)
    shared = build_sheet(game, res, workers=2)
    assert render_json(shared) == render_json(here) and render_markdown(shared) == render_markdown(here)
    built = [line.split() for line in log.read_text().splitlines()]
    assert sorted(m for _pid, m in built) == sorted(game.modes) and len(game.modes) >= 2
    assert all(int(pid) != os.getpid() for pid, _m in built)  # (none in this process)
