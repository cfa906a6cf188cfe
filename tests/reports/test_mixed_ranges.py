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


def _plotted(monkeypatch, labels):
    """The figure bands_png draws for bands labelled ``labels`` (certified rows have a low end of 90 %)."""
    from analytic.figures import Figure
    from analytic.reports import plots

    got = {}
    monkeypatch.setattr(plots, "_png", lambda fig: got.setdefault("fig", fig) and b"")
    m = SimpleNamespace(bands=_sheet(labels).ranges, rtp=Figure(F(95, 100)), info=SimpleNamespace(name="m"))
    plots.bands_png(m)
    ax = got["fig"].axes[0]
    hatched = [c for c in ax.collections if c.get_hatch()]
    return ax, hatched, [t.get_text() for t in ax.get_legend().get_texts()]


def test_band_plot_marks_the_approximate_part(monkeypatch):
    """Certified to 10^4, approximate at 10^5: the segment 10^4..10^5 is hatched, the legend says the
    hatching is the normal approximation, the title claims neither kind; a band of one kind says which."""
    ax, hatched, legend = _plotted(monkeypatch, ["certified", "certified", "approximate"])
    assert len(hatched) == 1 and "90% range, normal approximation (not certified)" in legend
    assert "(" not in ax.get_title().split("'m'")[1]
    ax, hatched, legend = _plotted(monkeypatch, ["certified", "certified"])
    assert not hatched and ax.get_title().endswith("(certified)")
    ax, hatched, legend = _plotted(monkeypatch, ["approximate", "approximate"])
    assert not hatched and ax.get_title().endswith("(normal approximation)")


def test_band_plot_names_each_level_without_a_certified_segment(monkeypatch):
    """Certified only at 10^3 (no segment with both ends certified, so every segment is hatched), or at
    10^3 and 10^5 around an approximate 10^4: the legend still names the level ("90% range") in the
    hatching's meaning (it named only the hatching and the RTP line), and claims no certified 90 % segment."""
    for labels in (["certified", "approximate", "approximate"], ["approximate", "certified"],
                   ["certified", "approximate", "certified"]):
        ax, hatched, legend = _plotted(monkeypatch, labels)
        assert hatched and legend.count("90% range, normal approximation (not certified)") == 1, labels
        assert "90% range (certified)" not in legend, labels


def test_table_certified_at_rows_that_are_not_the_first_says_so():
    """Certified at 10^4 only (10^3 and 10^5 approximate): the heading said "certified to 10^4 rounds,
    approximate beyond", a certified 10^3 row that is not there; it names the approximate rows instead."""
    m = _sheet(["approximate", "certified", "approximate"])
    assert ranges_label(m) == "certified except the rows marked (approximate)"
    assert [r[0] for r in range_rows(m)] == ["10^3 (approximate)", "10^4", "10^5 (approximate)"]
    assert ranges_label(_sheet(["certified", "approximate", "certified"])) == \
        "certified except the rows marked (approximate)"
