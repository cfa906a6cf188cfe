"""An exact value too long for an Excel cell is never written cut short.

The XLSX appendix wrote ``exact_text(value)[:32000]``: a fraction of more than 32,000 characters
(the variance of a capped round of some thousand free spins: its parts are powers of the free
reel set's cycle) became its first 32,000, which still reads as a fraction ``p/q'`` with ``q'`` a
prefix of the denominator -- another number, labelled exact.  The oracle: read back with
openpyxl, the cell either parses (Fractions, the interpreter's digit limit lifted for the check)
as the figure's value or does not parse as a number at all.
"""

from __future__ import annotations

import dataclasses
import sys
from fractions import Fraction

import pytest

from analytic.figures import Figure
from analytic.model.loader import load_model
from analytic.reports.model import build_sheet
from analytic.solver.round import solve_game

openpyxl = pytest.importorskip("openpyxl")


def test_long_fraction_is_not_cut(tmp_path, toy_path):
    from analytic.reports.xlsx import write_xlsx

    game = load_model(toy_path)
    sheet = build_sheet(game, solve_game(game))
    big = Fraction(3**40000 + 1, 7**25000)  # 19,085 + 21,127 digits: 40,213 characters as p/q
    rows = list(sheet.appendix)
    rows[0] = dataclasses.replace(rows[0], value=Figure(big))
    sheet = dataclasses.replace(sheet, appendix=tuple(rows))
    path = tmp_path / "toy.xlsx"
    write_xlsx(sheet, str(path))
    ws = openpyxl.load_workbook(path)["Appendix"]
    col = [c.value for c in ws[2]].index("exact")
    cell = next(ws.iter_rows(min_row=3, values_only=True))[col]
    assert len(cell) <= 32767
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        try:
            shown = Fraction(cell)
        except ValueError:
            shown = None
        assert shown is None or shown == big
    finally:
        sys.set_int_max_str_digits(old)
