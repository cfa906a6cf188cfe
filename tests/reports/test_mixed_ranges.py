"""An expected-RTP-range table certified only up to some N (the N-round law's certified error grows with N,
Book of Power's bought Power Free Spins: certified to 10^6 rounds): its heading and rows say which rows are
certified and which are the normal approximation (the heading said "certified" over approximate rows)."""

from fractions import Fraction as F
from types import SimpleNamespace

from analytic.reports.format import range_rows, ranges_label
from analytic.reports.model import RangeRow


def _sheet(labels):
    rows = []
    for k, lab in zip(range(3, 3 + len(labels)), labels):
        if lab == "certified":
            q = ((90, F(90, 100), F(91, 100), F(98, 100), F(99, 100)),)
            rows.append(RangeRow(10**k, ((90, 0.9, 0.99),), (), "certified", q))
        else:
            rows.append(RangeRow(10**k, ((90, 0.92, 0.97),)))
    return SimpleNamespace(ranges=tuple(rows))


def test_mixed_table_by_hand():
    m = _sheet(["certified", "certified", "approximate"])
    assert ranges_label(m) == "certified to 10^4 rounds, approximate beyond"
    assert range_rows(m) == [["10^3", "90.00% .. 99.00%"], ["10^4", "90.00% .. 99.00%"],
                             ["10^5 (approximate)", "92.00% .. 97.00%"]]


def test_uniform_tables_keep_their_label():
    assert ranges_label(_sheet(["certified", "certified"])) == "certified"
    assert ranges_label(_sheet(["approximate"])) == "approximate"
    assert range_rows(_sheet(["approximate"])) == [["10^3", "92.00% .. 97.00%"]]
