"""Model text holding U+FFFE or U+FFFF still gives a well-formed XLSX.

The loader takes these noncharacters in free text (a mode's description, a design reason), and
openpyxl wrote them into the sheet's XML, which XML 1.0 does not allow: the workbook was not
well-formed (openpyxl could not read it back; Excel refuses or "repairs" it).  The oracle: every
XML part of the file parses with the standard library, and the cell shows the characters'
escapes.
"""

from __future__ import annotations

import zipfile
import xml.dom.minidom
from pathlib import Path

import pytest

from analytic.cli import main

openpyxl = pytest.importorskip("openpyxl")
ROOT = Path(__file__).resolve().parents[2]


def test_noncharacters_in_model_text(tmp_path):
    src = (ROOT / "tests" / "cases" / "sizzling_hot_95.toml").read_text()
    src += '\n[modes.base]\ncost = 1\nreels = "base"\ndescription = "a\\uFFFFb\\uFFFEc"\n'
    model = tmp_path / "nc.toml"
    model.write_text(src)
    out = tmp_path / "out"
    assert main(["report", str(model), "--out", str(out), "--formats", "xlsx"]) == 0
    path = out / "nc.xlsx"
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            if name.endswith(".xml") or name.endswith(".rels"):
                xml.dom.minidom.parseString(z.read(name))  # raises on text XML cannot hold
    ws = openpyxl.load_workbook(path)["Summary"]
    texts = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    assert "a\\uffffb\\ufffec" in texts
