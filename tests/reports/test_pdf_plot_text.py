"""Names from the model file in the PDF's charts are text, not mathtext.

matplotlib reads ``$...$`` in a title as mathtext: a bet mode named ``x$\\frac{$y`` stopped
``analytic report`` with a ParseSyntaxException while drawing its charts (and ``ante $2 or $5`` lost
its dollars to math italics).  The oracle: the report is written and ``pdftotext`` finds both
names in the sheet's tables.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from analytic.cli import main

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["ante $2 or $5", "x$\\frac{$y"]


def test_dollars_in_mode_names(tmp_path):
    pytest.importorskip("fpdf")
    src = (ROOT / "tests" / "cases" / "sizzling_hot_95.toml").read_text()
    for n in NAMES:
        key = n.replace("\\", "\\\\")
        src += f'\n[modes."{key}"]\ncost = 1\nreels = "base"\n'
    model = tmp_path / "dollar.toml"
    model.write_text(src)
    out = tmp_path / "out"
    assert main(["report", str(model), "--out", str(out), "--formats", "pdf"]) == 0
    pdf = out / "dollar.pdf"
    assert pdf.read_bytes().startswith(b"%PDF")
    if shutil.which("pdftotext"):
        flat = re.sub(r"\s+", "", subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                                                 check=True).stdout)
        for n in NAMES:
            assert "Betmode'" + re.sub(r"\s+", "", n) + "'" in flat
