"""The README and docs/*.md point only inside the repository: every relative link and every
code-quoted path (``analytic/...``, ``../x``) names a file of a fresh clone.

The oracle is the file tree itself, not the documents' text: a path the reader
of a fresh clone cannot open (the README named ``../shared/seeds/``, a folder
of the development machine) fails.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _targets(doc: Path):
    text = doc.read_text(encoding="utf-8")
    for m in re.finditer(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):  # [text](target#anchor)
        if not re.match(r"[a-z]+:", m.group(1)):  # not http:, mailto:
            yield doc.parent, m.group(1)
    for m in re.finditer(r"`((?:\.\./|analytic/|tests/|docs/|models/|reports/)[^`\s]*)`", text):
        path = m.group(1).rstrip(".,").split("::")[0]
        if not any(ch in path for ch in "*{<"):  # a pattern, not a path
            yield ROOT, path  # code-quoted paths are read from the repository's root


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_documented_paths_lie_inside_the_repository(doc: Path):
    bad = []
    for base, target in _targets(doc):
        p = (base / target).resolve()
        if not p.is_relative_to(ROOT) or not p.exists():
            bad.append(target)
    assert not bad, f"{doc.name} points outside the repository or to nothing: {bad}"


def test_the_readme_command_table_names_every_option():
    """Each ``| `analytic COMMAND ...` |`` row of the README lists every option of that command's parser
    (the parser is the oracle: a user reading the table finds every option ``--help`` shows)."""
    import argparse

    from analytic.cli import _parser

    sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    text = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| `analytic (\w+) ([^`]*)` \|", text, re.M))
    assert set(rows) == set(sub.choices), "one README row per command"
    for cmd, usage in rows.items():
        options = {o for a in sub.choices[cmd]._actions for o in a.option_strings if o.startswith("--")} - {"--help"}
        missing = options - set(re.findall(r"--[a-z][a-z-]*", usage))
        assert not missing, f"README's row of 'analytic {cmd}' lacks {sorted(missing)}"


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub renders it: lower case, punctuation but ``-`` and ``_`` dropped, spaces to ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_slug_by_hand():
    assert _slug("Benchmarks (commands that print figures)") == "benchmarks-commands-that-print-figures"
    assert _slug("Tests") == "tests"


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_link_anchors_name_headings(doc: Path):
    """A link's ``#anchor`` into a Markdown file names one of that file's headings."""
    bad = []
    for m in re.finditer(r"\]\(([^)#\s]*)#([^)\s]+)\)", doc.read_text(encoding="utf-8")):
        dest = (doc.parent / m.group(1)).resolve() if m.group(1) else doc
        if dest.suffix != ".md" or not dest.exists():
            continue  # (the file itself: test_documented_paths_lie_inside_the_repository)
        text = re.sub(r"```.*?```", "", dest.read_text(encoding="utf-8"), flags=re.S)
        if m.group(2) not in {_slug(h) for h in re.findall(r"^#+\s+(.*)$", text, re.M)}:
            bad.append(m.group(0))
    assert not bad, f"{doc.name}: anchors naming no heading: {bad}"
