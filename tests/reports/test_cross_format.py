"""The same figure says the same thing in the Markdown/PDF text and in the XLSX cells.

Found comparing the four sheets of Book of Christmas Eve and Secrets of Christmas
figure by figure: a currency-cap table's ``lower`` / ``upper`` columns printed to
nearest (an upper bound printed below the exact RTP it bounds), a cap's reach
probability of 1e-7 (or 2.6e-115) shown as ``0.0000`` by the XLSX, and the XLSX
ladder's maximum-win "1 in" of a probability bounded only above.  Oracles: hand
values, and the cell as a spreadsheet shows it (float and number format, rendered in
exact decimals by :func:`tests.reports.test_xlsx_printed_intervals._display`).
"""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

from openpyxl import Workbook

from analytic.figures import Figure
from analytic.reports import xlsx as X
from analytic.reports.format import extra_tables
from tests.reports.test_xlsx_printed_intervals import _display

#: Stake 100 of Secrets of Christmas's currency cap: capped RTP 0.96699906224... (exact: lower = upper).
RTP = Fraction(96699906224, 10**11)
P_REACH = Fraction(45340120497, 10**21)  # 4.5340120497e-11
TINY = Fraction(26451766089, 10**125)  # 2.6451766089e-115
ROWS = [{"stake": Fraction(100), "cap_multiple": Fraction(2500), "binds": True, "lower": RTP, "upper": RTP,
         "capped_rtp": Figure(RTP), "p_reach_cap": Figure(P_REACH), "max_win": Fraction(108403, 5)},
        {"stake": Fraction(25, 2), "cap_multiple": Fraction(20000), "binds": True,
         "lower": RTP - Fraction(1, 10**9), "upper": RTP + Fraction(1, 10**9),
         "capped_rtp": Figure(RTP, "bounded", Fraction(1, 10**9)), "p_reach_cap": Figure(TINY),
         "max_win": Fraction(108403, 5)}]


def _n(text: str) -> Fraction:
    return Fraction(text.replace(",", ""))


def test_markdown_cap_table_bounds_rounded_outward():
    (_, head, rows), = extra_tables([("currency_cap", ROWS)])
    lo, hi = head.index("lower"), head.index("upper")
    assert rows[0][lo] == "0.96699906" and rows[0][hi] == "0.96699907"  # (to nearest: 0.96699906 both)
    for r, rec in zip(rows, ROWS):
        assert _n(r[lo]) <= rec["lower"] and _n(r[hi]) >= rec["upper"]


def _sheet(extra):
    w = X._Sheet(Workbook().active)
    X._extras(w, extra)
    return w.ws


def _cells(ws):
    return [list(row) for row in ws.iter_rows() if any(c.value is not None for c in row)]


def test_xlsx_small_extra_figure_shows_its_value():
    ws = _sheet((("p_reach_cap", Figure(P_REACH)), ("max_win", Fraction(108403, 5))))
    (name, v, *_), (name2, v2, *_) = _cells(ws)
    assert name.value == "solver: p_reach_cap (probability per round)"
    shown = _display(v.value, v.number_format)
    assert abs(shown - P_REACH) <= P_REACH / 1000  # not "0.0000"
    assert _display(v2.value, v2.number_format) == Fraction(108403, 5)


def test_xlsx_cap_table_cells():
    ws = _sheet((("currency_cap", ROWS),))
    rows = _cells(ws)
    assert rows[0][0].value == "solver: currency_cap"
    rows = rows[1:]
    assert rows[0][0].value == "Currency cap"
    head = [c.value for c in rows[1]]
    assert len(rows) == 2 + len(ROWS)
    for rec, cells in zip(ROWS, rows[2:]):
        c = dict(zip(head, cells))
        lo, hi = (_display(c[k].value, c[k].number_format) for k in ("lower", "upper"))
        assert lo <= rec["lower"] and hi >= rec["upper"]  # bounds shown still bounds
        p = rec["p_reach_cap"].value
        assert abs(_display(c["p_reach_cap"].value, c["p_reach_cap"].number_format) - p) <= p / 1000
        f = rec["capped_rtp"]
        if f.label != "exact":  # the certified error beside a bounded figure, as the Markdown's "± e"
            e = c["capped_rtp error"]
            assert _display(e.value, e.number_format) >= f.error
        assert f.label in c["label"].value.split(", ")


def test_xlsx_ladder_max_win_bounded_above_only():
    """A maximum win of probability in [0, 1e-12]: no finite '1 in' (the Markdown: '1 in 1e12 or rarer')."""
    ex = SimpleNamespace(label="bounded", kind="law", rows=[], max_win=Fraction(5000), max_low=Fraction(0),
                         max_high=Fraction(1, 10**12), max_note="largest win of the grid law")
    m = SimpleNamespace(exceedance_note="note", exceedance=ex)
    w = X._Sheet(Workbook().active)
    X._ladder(w, m)
    row = next(r for r in w.ws.iter_rows() if r[0].value == "maximum win (x total bet)")
    assert row[6].value is None
    assert row[3].value == "bounded"


def test_xlsx_distribution_bounded_cells_hold_the_interval():
    """Red Roo's top rows (a grid law within total variation 6.535e-13): each bounded cell's shown value
    with its shown error holds the certified interval the JSON states (the Markdown prints
    '1.91184e-09 ± 6.6e-13'; a 9-decimal cell showed 0.000000002, whose ± 6.54e-13 leaves it out), and
    a probability bounded only above ([0, 6.5e-13]) has no finite '1 in' (the Markdown: 'or rarer')."""
    from analytic.reports.model import row_errors

    b = lambda label, lo, hi, p, r, s: SimpleNamespace(label=label, low=Fraction(lo), high=Fraction(hi),  # noqa: E731
                                                       probability=p, rtp=r, share=s)
    rows = [b("(0, 1]", 0, 1, Fraction(9, 10), Fraction(45, 100), Fraction(45, 100) / Fraction(45000132, 10**8)),
            b("(500, 1000]", 500, 1000, Fraction(191184, 10**14), Fraction(1326, 10**9),
              Fraction(1326, 10**9) / Fraction(45000132, 10**8)),
            b("(1000, 2000]", 1000, 2000, Fraction(33, 10**16), Fraction(3, 10**12),
              Fraction(3, 10**12) / Fraction(45000132, 10**8))]
    table = SimpleNamespace(buckets=rows, mass_error=Fraction(6535, 10**16), rtp_error=Fraction(0), note="grid law")
    mode = SimpleNamespace(info=SimpleNamespace(name="base", cost=Fraction(1)), distribution=table)
    wb = Workbook()
    X._distribution(wb, SimpleNamespace(modes=[mode]))
    got = list(wb["Distribution"].iter_rows())
    head = [c.value for c in got[0]]
    for bk, errs, cells in zip(rows, row_errors(table, Fraction(1)), got[1:]):
        c = dict(zip(head, cells))
        for key, col, err in zip(("probability", "rtp", "share"), ("probability", "RTP", "share of RTP"), errs):
            if not err:
                continue
            v = Fraction(getattr(bk, key))
            shown = _display(c[col].value, c[col].number_format)
            e = c[f"{col.split(' ')[0]} error"] if col != "share of RTP" else c["share error"]
            assert e.value is not None
            shown_e = _display(e.value, e.number_format)
            assert shown - shown_e <= v - err and v + err <= shown + shown_e, (bk.label, col)
        if bk.probability - errs[0] <= 0:
            assert c["1 in"].value is None


def test_xlsx_scatter_counts_table():
    """The 'Scatter symbols in view' table of the Markdown, PDF and JSON is in the XLSX mode sheet too
    (Red Roo: 1,024 of 817,131,600 stop combinations show 5 scatters)."""
    p5 = Fraction(1024, 817131600)
    m = SimpleNamespace(scatter_counts=((4, 72448, Fraction(72448, 817131600)), (5, 1024, p5)))
    w = X._Sheet(Workbook().active)
    X._scatter_counts(w, m)
    rows = [[c.value for c in r] for r in w.ws.iter_rows() if any(c.value is not None for c in r)]
    assert rows[0][0] == "Scatter symbols in view"
    head = rows[1]
    c = dict(zip(head, rows[3]))
    assert c["cells"] == 5 and c["combinations"] == 1024 and c["label"] == "exact"
    assert c["probability"] == float(p5) and c["1 in"] == float(1 / p5) and c["exact"] == "64/51070725"


def test_xlsx_methods_table():
    """The Markdown's and PDF's 'Methods' table (figure -> method) is in the XLSX mode sheet too."""
    m = SimpleNamespace(methods=(("base game", "joint line walk"), ("round moments", "law of total expectation")))
    w = X._Sheet(Workbook().active)
    X._methods(w, m)
    rows = [[c.value for c in r] for r in w.ws.iter_rows() if any(c.value is not None for c in r)]
    assert rows == [["Methods", None], ["figure", "method"], ["base game", "joint line walk"],
                    ["round moments", "law of total expectation"]]
