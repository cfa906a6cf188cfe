"""The PDF's core fonts hold latin-1 only: text outside it keeps a readable, distinct form.

A game named "Jeu €" and one named "Jeu ?" printed the same name, and a snowman or a
Chinese name became "?" (``encode("latin-1", "replace")``).  The oracle is hand-written.
"""

from __future__ import annotations

import pytest

pytest.importorskip("fpdf")

from analytic.reports.pdf import _t  # noqa: E402


@pytest.mark.parametrize("text,shown", [
    ("Jeu \u20ac", "Jeu EUR"),                      # the euro sign: its plain form
    ("Book of Ra\u2122", "Book of RaTM"),            # NFKC: the trade mark sign
    ("\u201cquoted\u201d \u2014 x", '"quoted" - x'),  # typographic quotes and dashes
    ("Snow \u2603", "Snow \\u2603"),                # no plain form: its escape, never '?'
    ("\u4e2d\u6587", "\\u4e2d\\u6587"),
    ("\U0001f600", "\\U0001f600"),
    ("Caf\u00e9 \u00a3", "Caf\u00e9 \u00a3"),        # latin-1 stays as it is
    ("a\x1bb", "a b"),                              # control characters: spaces
])
def test_text_outside_latin1_keeps_a_distinct_form(text, shown):
    assert _t(text) == shown
    _t(text).encode("latin-1")  # what the core fonts can write


def test_two_names_stay_two_names():
    names = ["Jeu \u20ac", "Jeu ?", "Jeu \u2603", "Jeu \u2604"]
    assert len({_t(n) for n in names}) == len(names)
