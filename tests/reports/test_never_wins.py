"""A game whose round never wins: every output file is written and says so.

The PDF drew the exceedance ladder on log-log axes from the rows of probability > 0; with none
(every ``P(win >= x)`` is 0) matplotlib refused the empty log scale and ``analytic report`` stopped
with a traceback after the other formats.  The oracle: the model's one stop combination
(``a b a`` on a one-line 3-reel game paying only three of a kind) wins nothing, by hand.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from fractions import Fraction

import pytest

from analytic.cli import main

MODEL = """
[game]
name = "Never wins"
reels = 3
rows = 1

[symbols]
a = "regular"
b = "regular"

[paytable]
a = { 3 = 10 }
b = { 3 = 5 }

[paylines]
lines = [[0, 0, 0]]

[reels]
base = [["a"], ["b"], ["a"]]
"""


def test_report_of_a_game_that_never_wins(tmp_path):
    pytest.importorskip("fpdf")
    model = tmp_path / "never.toml"
    model.write_text(MODEL)
    out = tmp_path / "out"
    assert main(["report", str(model), "--out", str(out), "--formats", "json,md,pdf"]) == 0
    d = json.loads((out / "never.json").read_text())
    m = d["modes"][0]
    assert Fraction(m["rtp"]["exact"]) == 0 and Fraction(m["hit_frequency"]["exact"]) == 0
    assert all(Fraction(r["probability"]["exact"]) == 0 for r in m["exceedance"]["rows"])
    assert (out / "never.pdf").read_bytes().startswith(b"%PDF")
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", str(out / "never.pdf"), "-"], capture_output=True, text=True,
                              check=True).stdout
        assert "Exceedance ladder" in text and "never" in text
