"""What the XLSX cells show (value with its number format, beside its error cell) holds the certified interval.

The oracle renders a cell as a spreadsheet does, from the float stored and the
number format (the float's exact binary value taken to 15 significant digits,
as Excel and LibreOffice display a double, then rounded half away from zero to
the format's decimals), in exact decimal arithmetic, independently of the
writer's own rounding.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.figures import Figure
from analytic.reports import xlsx as X


def _display(x: float, fmt: str) -> Fraction:
    """The value a cell of float ``x`` with number format ``fmt`` shows (exactly)."""
    d = Decimal(x)  # the float's exact value, shown to 15 significant digits at most
    if d != 0:
        d = d.quantize(Decimal(1).scaleb(d.adjusted() - 14), ROUND_HALF_UP)
    m = re.fullmatch(r"(?:#,##)?0(?:\.(0+))?(%|E\+00)?", fmt)
    assert m, fmt
    n = len(m.group(1) or "")
    if m.group(2) == "%":
        return Fraction((d * 100).quantize(Decimal(1).scaleb(-n), ROUND_HALF_UP)) / 100
    if m.group(2) == "E+00":
        if d == 0:
            return Fraction(0)
        e = d.adjusted()
        return Fraction(d.scaleb(-e).quantize(Decimal(1).scaleb(-n), ROUND_HALF_UP)) * Fraction(10) ** e
    return Fraction(d.quantize(Decimal(1).scaleb(-n), ROUND_HALF_UP))


class _Rows:
    def __init__(self):
        self.rows = []

    def put(self, values, formats=()):
        self.rows.append((values, formats))


def _shown_interval(f: Figure, fmt: str):
    w = _Rows()
    X._figure_row(w, "x", f, fmt)
    (values, formats), = w.rows
    c = _display(values[1], formats[1])
    e = _display(values[3], formats[3])
    return c - e, c + e


def test_the_rtp_cell_that_four_decimals_misprinted():
    # 94.00145445 % certified to 1.58e-7: "94.0015%" with "1.58E-07" beside it states
    # [0.94001484, 0.94001516], which leaves out the certified [0.9400143865, 0.9400147025]
    f = Figure(Fraction("0.9400145445"), "bounded", Fraction("1.58e-7"))
    lo, hi = _shown_interval(f, X.PCT)
    assert lo <= f.value - f.error and f.value + f.error <= hi, (lo, hi)


centres = st.builds(lambda m, k: Fraction(m, 10 ** k), st.integers(1, 10 ** 14), st.integers(0, 16))
errors = st.builds(lambda m, k: Fraction(m, 10 ** k), st.integers(1, 10 ** 4), st.integers(0, 18))


@settings(max_examples=300, deadline=None)
@given(centres, errors, st.sampled_from([X.PCT, X.PROB, X.NUM, "0.00E+00", "0.000000000000"]))
def test_a_bounded_value_cell_with_its_error_cell_holds_the_certified_interval(v, e, fmt):
    f = Figure(v, "bounded", e)
    lo, hi = _shown_interval(f, fmt)
    assert lo <= v - e and v + e <= hi, (f, lo, hi)


bounds = st.fractions(Fraction(1, 10 ** 12), 10 ** 4, max_denominator=10 ** 14)


@settings(max_examples=300, deadline=None)
@given(bounds)
def test_certified_ends_show_outward(x):
    assert _display(X._out(x, False, 4), X.NUM) <= x <= _display(X._out(x, True, 4), X.NUM)
    assert _display(X._out(x / 10 ** 4, False, 6), X.PCT) <= x / 10 ** 4 <= _display(X._out(x / 10 ** 4, True, 6), X.PCT)
    assert _display(X._sig_out(x, False, 10), "0.000000000E+00") <= x <= _display(X._sig_out(x, True, 10), "0.000000000E+00")
    assert x <= _display(X._sig_out(x, True, 3), "0.00E+00")


def test_rounds_to_ruin_cell_is_empty_where_its_error_reaches_the_horizon():
    from types import SimpleNamespace

    # ruin 0 +- 3e-9 within 100 rounds: the mean rounds to ruin is not bounded below 100 (Markdown: "-")
    h = SimpleNamespace(rounds=100, rounds_to_ruin=Figure(Fraction(100), "bounded", Fraction(150)))
    assert X._to_ruin(h) is None
    h = SimpleNamespace(rounds=1000, rounds_to_ruin=Figure(Fraction("704.428955"), "bounded", Fraction("6e-5")))
    assert X._to_ruin(h) == 704.428955


@settings(max_examples=200, deadline=None)
@given(st.fractions(1, 10 ** 5, max_denominator=10 ** 6), st.fractions(Fraction(1, 10 ** 9), 50, max_denominator=10 ** 9),
       st.sampled_from([1.6448536269514722, 1.65]))
def test_sd_and_volatility_cells_of_a_bounded_variance_hold_the_square_roots(v, e, z):
    """The sd (and z times it) of a variance ``v +- e``: the cells' value with its error, as shown,
    hold ``[sqrt(v - e), sqrt(v + e)]`` (squared, exactly); an exact variance's is its float, no error."""
    import math
    from types import SimpleNamespace

    sd = math.sqrt(float(v))
    m = SimpleNamespace(variance=Figure(v, "bounded", e), sd=sd)
    for x, zz in ((None, 1), (z * sd, Fraction(z))):
        c, lab, err = X._sd_cells(m, x)
        assert lab == "bounded" and err is not None
        lo, hi = _display(c, "0.00000") - _display(err, "0.00E+00"), _display(c, "0.00000") + _display(err, "0.00E+00")
        assert max(lo, 0) ** 2 <= zz ** 2 * max(v - e, 0) * (1 + Fraction(1, 2 ** 49)) and \
            zz ** 2 * (v + e) * (1 - Fraction(1, 2 ** 49)) <= hi ** 2, (v, e, c, err)
    m = SimpleNamespace(variance=Figure(v), sd=sd)
    assert X._sd_cells(m) == (sd, "float", None)


def test_distribution_sheet_rows_carry_their_certified_errors(tmp_path):
    """A grid law's Distribution rows (a capped retriggering game): label bounded and each error
    cell at least the certified error of :func:`~analytic.reports.model.row_errors` (oracle for those:
    tests/reports/test_exceedance_report.py, against the enumerator)."""
    from pathlib import Path

    from openpyxl import load_workbook

    from analytic.model.loader import load_model_text
    from analytic.reports.model import build_sheet, row_errors
    from analytic.reports.xlsx import write_xlsx

    tiny = (Path(__file__).resolve().parents[1] / "data" / "tiny_free_spins.toml.in").read_text()
    game = load_model_text(tiny.format(award=1, extra="") + "\n[cap]\ntotal_bet_multiple = 20\n",
                           str(tmp_path / "tiny.toml"))
    sheet = build_sheet(game)
    out = tmp_path / "t.xlsx"
    write_xlsx(sheet, str(out))
    ws = load_workbook(out)["Distribution"]
    head = [c.value for c in ws[1]]
    rows = [[c.value for c in r] for r in ws.iter_rows(min_row=2) if r[0].value == "base"]
    m = sheet.modes[0]
    errs = row_errors(m.distribution, m.info.cost)
    assert len(rows) == len(errs) == len(m.distribution.buckets)
    for r, e in zip(rows, errs):
        cells = dict(zip(head, r))
        assert cells["label"] == "bounded"
        assert cells["probability error"] >= e[0] > 0
        for key, want in (("RTP error", e[1]), ("share error", e[2])):
            assert (cells[key] or 0) >= want


@settings(max_examples=300, deadline=None)
@given(st.fractions(min_value=0, max_value=1), st.fractions(min_value=Fraction(1, 10**15), max_value=Fraction(1, 10)),
       st.booleans())
def test_session_probability_cells_stay_inside_0_1(centre, error, near_one):
    """A session probability's value and error cells (risk of ruin, P(end above start), autoplay stops)
    as a spreadsheet shows them: an interval inside [0, 1] holding the certified one cut to [0, 1]
    (a risk of ruin 1.2745e-09 +/- 1.2745e-09 was written with the error 1.28e-09: below 0)."""
    v = 1 - centre * error if near_one else centre * error  # centres near 0 or 1, where the cut bites
    f = Figure(v, "bounded", error)
    value, vfmt, err, efmt = X._prob_cells(f, X.PROB)
    c, e = _display(value, vfmt), _display(err, efmt)
    assert 0 <= c - e and c + e <= 1
    assert c - e <= max(v - error, 0) and min(v + error, 1) <= c + e


def test_the_risk_of_ruin_cell_below_zero():
    value, vfmt, err, efmt = X._prob_cells(Figure(Fraction(0), "bounded", Fraction(2549, 10**12)), "0.00E+00")
    assert (_display(value, vfmt), _display(err, efmt)) == (Fraction(12745, 10**13), Fraction(12745, 10**13))
