"""Do the committed par sheets still match the models?

:func:`check_reports` regenerates the Markdown and JSON par sheets of a model
in memory and compares them with the committed ``reports/<stem>.md`` and
``reports/<stem>.json``.  A test runs it over every ``models/*.toml`` that
has committed reports, so a model (or solver) change that alters a figure
fails until the sheets are regenerated with ``analytic report``.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass

from analytic.reports.json_ import render_json
from analytic.reports.markdown import render_markdown
from analytic.reports.model import ParSheet, sheet_for_model

__all__ = ["Mismatch", "check_reports", "committed_reports"]

_TEXT = {"md": render_markdown, "json": render_json}


@dataclass(frozen=True)
class Mismatch:
    """A committed file that differs from the regenerated text."""

    path: str
    diff: str


def committed_reports(model_path: str, reports_dir: str) -> dict[str, str]:
    """``format -> path`` of the committed Markdown/JSON sheets of a model."""
    stem = os.path.splitext(os.path.basename(model_path))[0]
    out = {}
    for fmt in _TEXT:
        p = os.path.join(reports_dir, f"{stem}.{fmt}")
        if os.path.exists(p):
            out[fmt] = p
    return out


def check_reports(model_path: str, reports_dir: str, sheet: ParSheet | None = None,
                  context: int = 2) -> list[Mismatch]:
    """Mismatches between the committed sheets of ``model_path`` and fresh ones.

    Returns an empty list when every committed file (of those present) matches.
    """
    files = committed_reports(model_path, reports_dir)
    if not files:
        return []
    sheet = sheet or sheet_for_model(model_path)
    out = []
    for fmt, path in files.items():
        new = _TEXT[fmt](sheet)
        with open(path, encoding="utf-8") as fh:
            old = fh.read()
        if old != new:
            diff = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), path,
                                                f"{path} (regenerated)", n=context))
            out.append(Mismatch(path, diff[:20000]))
    return out
