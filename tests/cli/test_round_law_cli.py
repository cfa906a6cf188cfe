"""``analytic solve --save-law`` and ``analytic session --round-law``: the same figures, hostile files refused.

The figures: a session from the saved file prints exactly what the session with its own solve prints
(the JSON compared whole).  The hostile files: each one a single line ``error: FILE: KEY: reason``,
exit 2, no traceback (the promise of DEVELOPERS.md rule 3, as in ``test_hostile_input.py``), the file
never used.
"""

from __future__ import annotations

import json
from fractions import Fraction as F
import os
from pathlib import Path

import pytest

from analytic.cli import main
from analytic.limits import MAX_FILE_BYTES

#: Two reels of [a, b, c]; ``a a`` pays 3, ``c c`` 10 (total bet 1); two modes of different cost.
MODEL = """
[game]
name = "tiny law file"
reels = 2
rows = 1
[symbols]
a = "regular"
b = "blank"
c = "regular"
[paytable]
a = { 2 = 3 }
c = { 2 = 10 }
[paylines]
lines = [[0, 0]]
[reels]
base = [["a", "b", "b", "c"], ["a", "b", "c", "b"]]
[modes.base]
cost = 1
reels = "base"
[modes.double]
cost = 2
reels = "base"
"""

SESSION = ["--balance", "12", "--rounds", "40", "--stop-on-any-win", "--stop-single-win-above", "5",
           "--stop-cash-up", "6", "--stop-cash-down", "4"]


@pytest.fixture()
def saved(tmp_path, capsys):
    model = tmp_path / "m.toml"
    model.write_text(MODEL, encoding="utf-8")
    law = tmp_path / "law.json"
    assert main(["solve", str(model), "--save-law", str(law)]) == 0
    capsys.readouterr()
    return model, law


def _session(capsys, model, *argv):
    rc = main(["session", str(model), *argv])
    return rc, capsys.readouterr()


@pytest.mark.parametrize("stops", [SESSION, ["--balance", "12", "--rounds", "40"],
                                   ["--balance", "7", "--rounds", "30", "--bet-ladder", "1/2,1"]])
@pytest.mark.parametrize("fmt", ["json", "table"])
def test_the_saved_law_prints_the_fresh_solves_figures(saved, capsys, stops, fmt):
    model, law = saved
    rc, fresh = _session(capsys, model, *stops, "--format", fmt)
    assert rc == 0, fresh.err
    rc, got = _session(capsys, model, *stops, "--format", fmt, "--round-law", str(law))
    assert rc == 0, got.err
    assert got.out == fresh.out
    if fmt == "json":  # and by hand: P(a win) = 1/16 + 1/16 = 1/8 per round, so "any win" ends most sessions
        d = json.loads(got.out)
        assert d["method"] == "exact"


def test_the_file_records_the_model_and_the_law(saved):
    model, law = saved
    import hashlib

    d = json.loads(law.read_text())
    assert d["schema"] == "analytic.round_law/1" and d["mode"] == "base" and d["kind"] == "law"
    assert d["model_sha256"] == hashlib.sha256(model.read_bytes()).hexdigest()
    # by hand: 16 windows; a a (1) pays 3, c c (1) pays 10, the other 14 pay 0
    assert sorted(map(tuple, d["law"]["points"])) == [("0/1", "7/8"), ("10/1", "1/16"), ("3/1", "1/16")]
    assert d["law"]["error"] == "0/1" and d["features"] == []


def _edit(law: Path, fn) -> Path:
    d = json.loads(law.read_text())
    fn(d)
    law.write_text(json.dumps(d))
    return law


def _set(path, value):
    def fn(d):
        obj = d
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
    return fn


HOSTILE = {
    "tampered-probability": (_set(("law", "points", 0, 1), "13/16"), "law.points"),
    "probability-above-1": (_set(("law", "points", 0, 1), "17/16"), "law.points[0][1]"),
    "negative-win": (_set(("law", "points", 0, 0), "-1/1"), "law.points[0][0]"),
    "float-as-int": (_set(("cost",), 1), "cost"),
    "wrong-cost": (_set(("cost",), "2/1"), "cost"),
    "zero-denominator": (_set(("law", "points", 0, 1), "1/0"), "law.points[0][1]"),
    "wrong-sha": (_set(("model_sha256",), "ab" * 32), "model_sha256"),
    "wrong-version": (_set(("solver_version",), "0.0.1"), "solver_version"),
    "wrong-schema": (_set(("schema",), "analytic.round_law/2"), "schema"),
    "no-schema": (lambda d: d.pop("schema"), "schema"),
    "unknown-mode": (_set(("mode",), "turbo"), "mode"),
    "unknown-key": (_set(("extra",), 1), "unknown key"),
    "missing-law": (lambda d: d.pop("law"), "missing key 'law'"),
    "bad-kind": (_set(("kind",), "pickle"), "kind"),
    "bad-label": (_set(("mean_win", "label"), "guess"), "mean_win.label"),
    "split-not-a-table": (_set(("split",), [1, 2]), "split"),
    "duplicate-win": (lambda d: d["law"]["points"].append(d["law"]["points"][0]), "given twice"),
    "unknown-feature": (_set(("features",), ["bonus"]), "features"),
}


def _one_line_refusal(rc, cap, file, where):
    assert rc == 2, (rc, cap.err)
    assert "Traceback" not in cap.err + cap.out
    lines = cap.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), cap.err
    assert str(file) in lines[0] and where in lines[0], lines[0]
    assert cap.out == ""


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_tampered_file_is_refused(saved, capsys, case):
    model, law = saved
    fn, where = HOSTILE[case]
    _edit(law, fn)
    rc, cap = _session(capsys, model, *SESSION, "--round-law", str(law))
    _one_line_refusal(rc, cap, law, where)


def test_another_model_file_is_refused(saved, capsys):
    model, law = saved
    model.write_text(MODEL + "# edited\n", encoding="utf-8")  # same game, another file: another SHA-256
    rc, cap = _session(capsys, model, *SESSION, "--round-law", str(law))
    _one_line_refusal(rc, cap, law, "model_sha256")


def test_another_mode_is_refused(saved, capsys):
    model, law = saved
    rc, cap = _session(capsys, model, *SESSION, "--mode", "double", "--round-law", str(law))
    _one_line_refusal(rc, cap, law, "mode")


@pytest.mark.parametrize("text", ["not json {", "", "[1, 2]", '{"schema": NaN}', "[" * 100_000,
                                  '{"schema": "analytic.round_law/1", "kind": "law"}'])
def test_not_a_round_law_file_is_refused(saved, capsys, text):
    model, law = saved
    law.write_text(text)
    rc, cap = _session(capsys, model, *SESSION, "--round-law", str(law))
    _one_line_refusal(rc, cap, law, "")


def test_a_law_of_the_wrong_kind_is_refused(saved, capsys):
    model, law = saved

    def bracketed(d):  # a well-formed bracketed law in place of the mode's exact one
        for k in ("law", "split"):
            d.pop(k)
        d["kind"] = "bracketed"
        d["cap"] = None
        d["interval_laws"] = {"nof": [["0/1", "7/8"], ["3/1", "1/16"]], "lo": [["0/1", "1/16"]],
                              "hi": [["10/1", "1/16"]], "points": ["10/1"], "gap": "0/1", "unit": None}

    _edit(law, bracketed)
    rc, cap = _session(capsys, model, *SESSION, "--round-law", str(law))
    _one_line_refusal(rc, cap, law, "kind")


def test_a_huge_file_is_refused_unread(saved, capsys):
    model, law = saved
    with open(law, "r+b") as fh:  # sparse: the size check refuses it before reading a byte
        fh.truncate(MAX_FILE_BYTES + 1)
    rc, cap = _session(capsys, model, *SESSION, "--round-law", str(law))
    _one_line_refusal(rc, cap, law, "limit")


def test_a_folder_or_missing_file_is_refused(saved, capsys, tmp_path):
    model, _ = saved
    for f in (tmp_path, tmp_path / "nothing.json"):
        rc, cap = _session(capsys, model, *SESSION, "--round-law", str(f))
        _one_line_refusal(rc, cap, f, "")


def test_the_feature_stop_on_a_mode_starting_none_is_refused(saved, capsys):
    model, law = saved
    rc, cap = _session(capsys, model, *SESSION, "--stop-on-feature", "--round-law", str(law))
    _one_line_refusal(rc, cap, model, "--stop-on-feature")


def test_save_law_needs_one_mode_and_a_writable_file(tmp_path, capsys):
    model = tmp_path / "m.toml"
    model.write_text(MODEL, encoding="utf-8")
    assert main(["solve", str(model), "--mode", "all", "--save-law", str(tmp_path / "x.json")]) == 2
    assert main(["solve", str(model), "--save-law", str(tmp_path / "no" / "x.json")]) == 2
    assert main(["solve", str(model), "--save-law", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(e.startswith("error: --save-law") for e in err), err
    assert sorted(os.listdir(tmp_path)) == ["m.toml"]


def test_save_law_onto_the_model_file_is_refused_before_the_solve(tmp_path, capsys):
    """``--save-law MODEL`` (or a hard link to it) replaced the model by the JSON law, exit 0."""
    model = tmp_path / "m.toml"
    model.write_text(MODEL, encoding="utf-8")
    link = tmp_path / "same.json"
    os.link(model, link)
    for out in (model, link):
        assert main(["solve", str(model), "--save-law", str(out)]) == 2
        err = capsys.readouterr().err
        assert "is the model file" in err and "Traceback" not in err
    assert model.read_text(encoding="utf-8") == MODEL


def test_save_law_onto_a_folder_suggests_a_json_name(tmp_path, capsys):
    model = tmp_path / "m.toml"
    model.write_text(MODEL, encoding="utf-8")
    assert main(["solve", str(model), "--save-law", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "round_law.json" in err and "tuned.toml" not in err


def test_a_hand_edit_keeping_the_total_at_1_is_refused(saved, capsys):
    """Swapping two probabilities keeps the law's total at 1 (it passed the total check and the session
    printed 'exact' figures of another game); by hand the law's mean is then 3 * 7/8 + 10 * 1/16 = 13/4,
    not the file's mean win 3/16 + 10/16 = 13/16."""
    model, law = saved
    d = json.loads(law.read_text())
    pts = {w: p for w, p in d["law"]["points"]}
    assert pts == {"0/1": "7/8", "3/1": "1/16", "10/1": "1/16"}
    d["law"]["points"] = [[w, {"0/1": "1/16", "3/1": "7/8"}.get(w, p)] for w, p in d["law"]["points"]]
    law.write_text(json.dumps(d))
    rc, got = _session(capsys, model, *SESSION, "--round-law", str(law))
    assert rc == 2 and "law.points: the law's mean win" in got.err and got.out == ""


def test_an_edited_split_is_refused(saved, capsys):
    """The split read by the feature stop must part the law itself."""
    model, law = saved
    d = json.loads(law.read_text())
    d["split"] = {"no_feature": [["0/1", "7/8"], ["3/1", "1/8"]], "feature": [], "error": "0/1"}
    law.write_text(json.dumps(d))
    rc, got = _session(capsys, model, *SESSION, "--round-law", str(law))
    assert rc == 2 and "split: the rounds without and with a feature" in got.err


@pytest.mark.parametrize("key, value", [(("law", "error"), "1/2"), (("law", "error"), "3/4"), (("law", "error"), 0.5),
                                        (("split", "error"), "1/2")])
def test_a_law_whose_error_is_half_or_more_is_refused(saved, capsys, key, value):
    """A total-variation error e >= 1/2 puts every probability p of the session within [p - e, p + e], an
    interval at least 1 wide: it certifies nothing (it was read and the session printed 'certified'
    figures).  The split's law is within law.error + split.error, refused alike."""
    model, law = saved
    _edit(law, _set(key, value))
    rc, cap = _session(capsys, model, *SESSION, "--round-law", str(law))
    _one_line_refusal(rc, cap, law, f"{'.'.join(key)}: ")
    assert "1/2" in cap.err


def test_a_law_whose_error_is_below_half_is_read(saved, capsys):
    """Just below 1/2 the file is read (the bound is the refusal's, not a tighter guess)."""
    model, law = saved
    _edit(law, _set(("law", "error"), "49/100"))
    rc, cap = _session(capsys, model, "--balance", "12", "--rounds", "40", "--round-law", str(law))
    assert rc == 0, cap.err


def _point(win: str, i: int, value):
    """Set part ``i`` (0: the win, 1: its probability) of the point of ``win`` in law.points and the split."""
    def fn(d):
        for part in (d["law"]["points"], d["split"]["no_feature"]):
            for pair in part:
                if pair[0] == win:
                    pair[i] = value
    return fn


@pytest.mark.parametrize("edit", [
    _point("10/1", 0, 20.0),  # the win of 10 made 20 (written as a JSON number): the mean check was skipped
    _point("0/1", 1, 0.8750000001),  # a probability 1e-10 off (the total within the float slack)
])
def test_a_float_in_an_exact_law_is_refused(saved, capsys, edit):
    """The writer gives an exact law (error 0) in exact numbers 'p/q' only; a number there written as a JSON
    float is a hand edit.  It was read: the checks of an exact law (its total, its mean) were skipped as for
    a float law, and the session printed 'exact' figures of another law (the final balance's quantiles and
    the return experienced from the edited points beside the mean from mean_win), or 'certified' ones whose
    error did not cover the edit."""
    model, law = saved
    _edit(law, edit)
    rc, cap = _session(capsys, model, *SESSION, "--round-law", str(law))
    _one_line_refusal(rc, cap, law, "law.points[")
    assert "exact" in cap.err


def test_a_certified_law_whose_mean_is_beyond_its_error_is_refused(tmp_path, capsys):
    """A certified law (Book of Ra Deluxe: a feature's grid law, error ~6e-13) whose top win and win 0
    swap probabilities keeps its total, so it was read, and the session printed 'certified' figures of
    another game (the quantiles from the edited points, the mean from mean_win).  Within total variation
    e of the true law, the law's mean is at most the true (capped) mean plus e times its largest win: the
    edited mean is far beyond."""
    model = Path(__file__).resolve().parents[1] / "cases" / "book_of_ra_deluxe_95.toml"
    law = tmp_path / "law.json"
    assert main(["solve", str(model), "--save-law", str(law)]) == 0
    capsys.readouterr()
    d = json.loads(law.read_text())
    assert d["law"]["error"] != "0/1"
    pts = d["law"]["points"]
    top = max(range(len(pts)), key=lambda i: F(pts[i][0]))
    zero = next(i for i in range(len(pts)) if F(pts[i][0]) == 0)
    pts[top][1], pts[zero][1] = pts[zero][1], pts[top][1]
    d["split"] = None
    law.write_text(json.dumps(d))
    rc, cap = _session(capsys, model, "--balance", "100", "--rounds", "10", "--round-law", str(law))
    _one_line_refusal(rc, cap, law, "law.points: ")
    assert "mean" in cap.err


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_save_law_says_what_it_wrote_on_stderr(tmp_path, capsys, fmt):
    """Found by a new user: ``solve --save-law FILE`` wrote the file without a word (``tune`` and
    ``report`` name what they write).  One line on stderr names the file and the mode; stdout
    stays the table or a JSON document that parses."""
    import json

    model = tmp_path / "m.toml"
    model.write_text(MODEL, encoding="utf-8")
    law = tmp_path / "law.json"
    assert main(["solve", str(model), "--save-law", str(law), "--format", fmt]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines() == [f"wrote {law}: the round law of mode 'base' (analytic session --round-law)"]
    assert law.exists()
    if fmt == "json":
        json.loads(out)
