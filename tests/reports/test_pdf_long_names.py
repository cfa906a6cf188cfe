"""Long names in the PDF par sheet stay on the page.

The page footer (game name, model file, version, page number) and the headings were single-line
cells: a game name of some 150 characters pushed the footer past both edges of the page, so the
page number was cut off (so was it by a long model file name), and a bet-mode name of 60 characters ran off the right edge of its
heading.  The oracle is ``pdftotext`` (text outside the page is not extracted): every page shows
its number, and the heading holds the whole mode name.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from analytic.cli import main

ROOT = Path(__file__).resolve().parents[2]
GAME = "Sizzling Hot " + " ".join(["Deluxe Ultimate Mega Edition with Extra Wilds"] * 3)  # 151 characters
MODE = "ante_bet_with_doubled_scatter_chance_and_the_golden_star_feature_x2"


@pytest.mark.skipif(not shutil.which("pdftotext"), reason="pdftotext (poppler-utils) not installed")
@pytest.mark.parametrize("stem", ["long", "a_model_file_" + "x" * 200])  # the footer also names the file
def test_long_game_and_mode_names_stay_on_the_page(tmp_path, stem):
    pytest.importorskip("fpdf")
    src = (ROOT / "tests" / "cases" / "sizzling_hot_95.toml").read_text()
    src = src.replace('name = "Sizzling Hot 95.655629"', f'name = "{GAME}"')
    src += f'\n[modes.{MODE}]\ncost = 1\nreels = "base"\n'
    model = tmp_path / f"{stem}.toml"
    model.write_text(src)
    out = tmp_path / "out"
    assert main(["report", str(model), "--out", str(out), "--formats", "pdf"]) == 0
    pdf = out / f"{stem}.pdf"
    pages = int(re.search(r"Pages:\s+(\d+)", subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True,
                                                                   check=True).stdout).group(1))
    for n in range(1, pages + 1):
        text = subprocess.run(["pdftotext", "-f", str(n), "-l", str(n), str(pdf), "-"], capture_output=True,
                              text=True, check=True).stdout
        assert f"page {n}" in text, f"page {n}: the footer's page number is not on the page"
    flat = re.sub(r"\s+", "", subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                                             check=True).stdout)
    assert f"Betmode'{MODE}'" in flat
    title = re.sub(r"\s+", "", subprocess.run(["pdftotext", "-f", "1", "-l", "2", str(pdf), "-"], capture_output=True,
                                              text=True, check=True).stdout)
    assert f"modelfile{stem}.tomlSHA-256" in title  # the title page's line, whole
