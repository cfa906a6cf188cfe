"""Every key of the JSON par sheet is named in docs/parsheet-json.md.

A reader of a par sheet looks a key up in the schema's page; a key the writer adds without a word
there (the mode's ``cycle``, ``hit_one_in``, the session's ``curve``) is a figure nobody can read
with confidence.  The oracle is the page's text: each key must appear there in backticks.  The
sheets read are the committed ones (reports/*.json, games with features, caps, bounded laws and
sessions), so the check covers the keys a real sheet carries.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "parsheet-json.md").read_text(encoding="utf-8")
DOCUMENTED = set(re.findall(r"`([^`\s]+?)`", DOC)) | {
    k for span in re.findall(r"`([^`]+)`", DOC) for k in re.findall(r'"?([A-Za-z_][A-Za-z0-9_]*)"?\s*:', span)}
SHEETS = sorted((ROOT / "reports").glob("*.json"))


def _keys(d: dict, what: str) -> set:
    return {f"{what}.{k}" for k in d}


def _named(sheet: dict) -> set:
    """``where.key`` for the keys of the objects the page describes one by one."""
    out = _keys(sheet, "top")
    for m in sheet["modes"]:
        out |= _keys(m, "mode")
        out |= _keys(m["distribution"], "distribution")
        for b in m["distribution"]["buckets"]:
            out |= _keys(b, "bucket")
        if m["exceedance"]:
            out |= _keys(m["exceedance"], "exceedance")
            for r in m["exceedance"]["rows"]:
                out |= _keys(r, "exceedance row")
        if m["session"]:
            out |= _keys(m["session"], "session")
            for h in m["session"].get("horizons", []):
                out |= _keys(h, "horizon")
        for f in m["features"]:
            out |= _keys(f, "feature")
    return out


@pytest.mark.skipif(not SHEETS, reason="no committed JSON par sheets")
def test_every_json_key_is_documented():
    keys = set().union(*(_named(json.loads(p.read_text(encoding="utf-8"))) for p in SHEETS))
    missing = sorted(k for k in keys if k.split(".", 1)[1] not in DOCUMENTED)
    assert not missing, f"keys of the JSON par sheet not in docs/parsheet-json.md: {missing}"
