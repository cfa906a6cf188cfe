"""The Markdown and PDF win-distribution tables: every printed cell holds its row's true value.

Oracle: the printed text parsed back with Fractions.  A plain figure states its value within one
unit of its last printed digit (the table's note says so; an integer states itself exactly),
``c ± e`` the interval ``[c - e, c + e]``, ``[a, b]`` that interval, ``1 in A .. B`` a probability in
``[1/B, 1/A]``, ``1 in A or rarer`` one in ``[0, 1/A]``.  The true values are the tables' own
construction (exact rows, a feature row whose RTP is the bounded RTP ``t`` less the exact rows', any
``t`` within its error; a law within total variation ``e`` of a grid law moving mass ``e`` between
rows), not :func:`~analytic.reports.model.row_errors`.  Before, the tables printed every figure
plainly (Book of Power's base mode: "37.1161%" for the feature rounds' RTP, certified only to an
interval).
"""

from __future__ import annotations

import re
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.reports import format as F
from analytic.reports.model import Bucket, DistributionTable

_NUM = r"-?[0-9][0-9,]*(?:\.[0-9]+)?(?:e[-+][0-9]+)?"


def _q(t: str) -> Fraction:
    return Fraction(t.replace(",", ""))


def _plain(t: str) -> tuple[Fraction, Fraction]:
    """``(low, high)`` a plain printed number states: one unit of its last digit either side; an
    integer, itself."""
    m, _, k = t.replace(",", "").partition("e")
    u = Fraction(0) if "." not in m else Fraction(10) ** (int(k or 0) - len(m.partition(".")[2]))
    x = _q(t)
    return x - u, x + u


def _stated(t: str, unit: str = "") -> tuple[Fraction, Fraction]:
    """The interval a value cell states (``unit``: "%" for a percentage, returned as a fraction of 1)."""
    k = 100 if unit else 1
    if m := re.fullmatch(rf"({_NUM}){unit} ± ({_NUM}){unit}", t):
        c, e = _q(m.group(1)), _q(m.group(2))
        return (c - e) / k, (c + e) / k
    if m := re.fullmatch(rf"\[({_NUM}), ({_NUM})\]", t):
        return _q(m.group(1)), _q(m.group(2))
    m = re.fullmatch(rf"({_NUM}){unit}", t)
    assert m, t
    lo, hi = _plain(m.group(1))
    return lo / k, hi / k


def _one_in(t: str) -> tuple[Fraction, Fraction]:
    """The interval of the probability a "1 in" cell states."""
    if t == "never":
        return Fraction(0), Fraction(0)
    if m := re.fullmatch(rf"1 in ({_NUM}) or rarer", t):
        return Fraction(0), 1 / _q(m.group(1))
    if m := re.fullmatch(rf"1 in ({_NUM}) \.\. ({_NUM})", t):
        return 1 / _q(m.group(2)), 1 / _q(m.group(1))
    m = re.fullmatch(rf"1 in ({_NUM})", t)
    assert m, t
    lo, hi = _plain(m.group(1))
    return 1 / hi, (1 / lo if lo > 0 else Fraction(10) ** 30)


def _holds(row, truths) -> None:
    """``row``: the printed cells; ``truths``: per row, the list of (probability, RTP, share) values
    the truth can take (all must be inside the printed intervals)."""
    _, p, one, r, s = row
    assert "(approximate)" not in s
    for tp, tr, ts in truths:
        for (lo, hi), x in ((_stated(p), tp), (_one_in(one), tp), (_stated(r, "%"), tr), (_stated(s, "%"), ts)):
            assert lo <= x <= hi, (row, tp, tr, ts)


def _base_spin_table(exact, feature_rtp, e):
    """Rows of exact (probability, RTP) pairs and the feature rounds' row; the mode's RTP centre
    ``v`` (the rows' sum) certified to ``e``."""
    v = sum((a for _, a in exact), Fraction(0)) + feature_rtp
    bs = [Bucket(f"({i}, {i + 1}]", Fraction(i), Fraction(i + 1), p, a, a / v) for i, (p, a) in enumerate(exact)]
    fp = 1 - sum((p for p, _ in exact), Fraction(0))
    bs.append(Bucket("rounds with a feature (base spin + feature win)", None, None, fp, feature_rtp, feature_rtp / v))
    return DistributionTable("base spin only", "", "bounded", Fraction(0), tuple(bs), e), v


def test_book_of_powers_feature_row_prints_its_error():
    """Book of Power's base mode (rounded): the feature rounds' RTP 0.371161 of a mode RTP 0.94012
    certified here to 2e-6 (two units of the printed 4th decimal of a percentage)."""
    exact = [(Fraction(2589, 10 ** 4), Fraction(167811, 10 ** 6)), (Fraction(25284, 10 ** 6), Fraction(41787, 10 ** 6))]
    table, v = _base_spin_table(exact, Fraction(371161, 10 ** 6), Fraction(2, 10 ** 6))
    rows, note = F.distribution_rows(table, 1)
    assert note == F.DISTRIBUTION_BOUNDED_NOTE
    feat = rows[-1]
    assert "±" in feat[3], feat
    for row, b in zip(rows, table.buckets):
        ts = [v - table.rtp_error, v + table.rtp_error]  # the true RTP: the rows are monotone in it
        tr = [b.rtp if b.low is not None else t - (v - b.rtp) for t in ts]
        _holds(row, [(b.probability, a, a / t) for a, t in zip(tr, ts)])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.fractions(Fraction(1, 10 ** 9), Fraction(1, 5), max_denominator=10 ** 9),
                          st.fractions(0, 1, max_denominator=10 ** 9)), min_size=1, max_size=4),
       st.fractions(Fraction(1, 10), 2, max_denominator=10 ** 9),
       st.fractions(Fraction(1, 10 ** 12), Fraction(1, 100), max_denominator=10 ** 15))
def test_base_spin_rows_hold_every_rtp_within_the_error(exact, feature_rtp, e):
    table, v = _base_spin_table(exact, feature_rtp, e)
    rows, note = F.distribution_rows(table, 1)
    assert note == F.DISTRIBUTION_BOUNDED_NOTE
    for row, b in zip(rows, table.buckets):
        ts = [v - e, v + e]
        tr = [b.rtp if b.low is not None else t - (v - b.rtp) for t in ts]
        _holds(row, [(b.probability, a, a / t) for a, t in zip(tr, ts)])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.fractions(Fraction(1, 10 ** 12), 1, max_denominator=10 ** 12), min_size=2, max_size=6),
       st.fractions(Fraction(1, 10 ** 14), Fraction(1, 10 ** 3), max_denominator=10 ** 16),
       st.integers(0, 5), st.integers(0, 5))
def test_grid_law_rows_hold_a_law_within_its_total_variation(ws, e, src, dst):
    """A grid law within total variation ``e`` of the truth, RTP ``v`` exact (the shares divide by
    it): a true law moving mass ``e`` from row ``src`` (its mass allowing) to row ``dst``'s top win."""
    tot = sum(ws)
    probs = [w / tot for w in ws]
    edges = [Fraction(0)] + [Fraction(2 ** i) for i in range(len(ws) - 1)]
    pts = {hi: p for hi, p in zip(edges, probs)}  # each row's mass at its top win
    v = sum((w * p for w, p in pts.items()), Fraction(0))
    if v == 0:
        return
    bs = tuple(Bucket(str(hi), edges[i - 1] if i else Fraction(0), hi, p, hi * p, hi * p / v)
               for i, (hi, p) in enumerate(zip(edges, probs)))
    table = DistributionTable("round", "", "bounded", e, bs)
    rows, note = F.distribution_rows(table, 1)
    assert note == F.DISTRIBUTION_BOUNDED_NOTE
    n = len(bs)
    src, dst = src % n, dst % n
    m = min(e, probs[src])
    true_p = list(probs)
    true_p[src] -= m
    true_p[dst] += m
    # the share: the row's true RTP over the mode's exact RTP (v: the grid law's own mean here)
    for i, (row, b) in enumerate(zip(rows, bs)):
        _, p, one, r, s = row
        a = b.high * true_p[i]
        for (lo, hi), x in ((_stated(p), true_p[i]), (_one_in(one), true_p[i]), (_stated(r, "%"), a),
                            (_stated(s, "%"), a / v)):
            assert lo <= x <= hi, (row, true_p[i])
        if "±" in p or "[" in p:  # a printed interval of a probability lies within [0, 1]
            assert 0 <= _stated(p)[0] and _stated(p)[1] <= 1, row


def test_an_exact_table_prints_as_before_with_no_note():
    bs = (Bucket("0", Fraction(0), Fraction(0), Fraction(1, 2), Fraction(0), Fraction(0)),
          Bucket("(0, 1]", Fraction(0), Fraction(1), Fraction(1, 2), Fraction(1, 3), Fraction(1)))
    rows, note = F.distribution_rows(DistributionTable("round", "", "exact", Fraction(0), bs), 1)
    assert note == ""
    assert rows == [["0", "0.500000", "1 in 2.00", "0.0000%", "0.00%"],
                    ["(0, 1]", "0.500000", "1 in 2.00", "33.3333%", "100.00%"]]


def test_a_share_not_certified_is_marked_approximate():
    v, eR = Fraction(1, 100), Fraction(1, 10)
    bs = (Bucket("(0, 1]", Fraction(0), Fraction(1), Fraction(1, 2), v / 2, Fraction(1, 2)),
          Bucket("rounds with a feature (base spin + feature win)", None, None, Fraction(1, 2), v / 2, Fraction(1, 2)))
    rows, note = F.distribution_rows(DistributionTable("base spin only", "", "bounded", Fraction(0), bs, eR), 1)
    assert all(r[4].endswith("(approximate)") for r in rows) and "not certified" in note
    lo, hi = _stated(rows[1][3], "%")  # the feature row's RTP: any t - v/2 with |t - v| <= eR
    assert lo <= v - eR - v / 2 and v + eR - v / 2 <= hi


def test_markdown_and_pdf_tables_of_a_grid_law(tmp_path):
    """A capped retriggering game (a certified grid law): the Markdown table's cells are those of
    :func:`~analytic.reports.format.distribution_rows` with the note under the section's, the PDF's
    text holds them too."""
    import shutil
    import subprocess
    from pathlib import Path

    from analytic.model.loader import load_model_text
    from analytic.reports.markdown import render_markdown
    from analytic.reports.model import build_sheet
    from analytic.reports.pdf import write_pdf

    tiny = (Path(__file__).resolve().parents[1] / "data" / "tiny_free_spins.toml.in").read_text()
    game = load_model_text(tiny.format(award=1, extra="") + "\n[cap]\ntotal_bet_multiple = 20\n",
                           str(tmp_path / "tiny.toml"))
    sheet = build_sheet(game)
    m = sheet.modes[0]
    rows, note = F.distribution_rows(m.distribution, m.info.cost)
    assert note == F.DISTRIBUTION_BOUNDED_NOTE
    sec = render_markdown(sheet).split("### Win distribution", 1)[1].split("###", 1)[0]
    assert note in sec
    for r in rows:
        assert "| " + " | ".join(r) + " |" in sec, r
    out = tmp_path / "t.pdf"
    write_pdf(sheet, str(out))
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", str(out), "-"], capture_output=True, text=True, check=True).stdout
        assert "Bounded figures: a figure printed without" in text


def test_distribution_plot_marks_a_row_whose_interval_reaches_zero(monkeypatch):
    """Found by a new user: a grid law's last row, probability 1.87e-13 within 1.89e-12 (the table
    prints [0, 2.075e-12]), was drawn as a solid bar at 1.87e-13, as if that probability were
    known.  Such a row is drawn hatched up to its certified upper bound (p + e, by hand below) and
    the legend says so; a row certified away from 0 keeps its solid bar at p."""
    from types import SimpleNamespace

    from analytic.reports import plots
    from analytic.reports.model import Bucket, DistributionTable

    e = Fraction(189, 10**14)
    rows = (Bucket("0", Fraction(0), Fraction(0), Fraction(1, 2), Fraction(0), Fraction(0)),
            Bucket("(0, 1]", Fraction(0), Fraction(1), Fraction(1, 2) - Fraction(187, 10**15),
                   Fraction(2, 5), Fraction(99, 100)),
            Bucket("(1000, 2000]", Fraction(1000), Fraction(2000), Fraction(187, 10**15), Fraction(1, 10**9),
                   Fraction(1, 10**8)))
    table = DistributionTable("round", "", "bounded", e, rows)
    got = {}
    monkeypatch.setattr(plots, "_png", lambda fig: got.setdefault("fig", fig) and b"")
    plots.distribution_png(SimpleNamespace(distribution=table, info=SimpleNamespace(name="m", cost=Fraction(1))))
    ax = got["fig"].axes[0]
    bars = [p for p in ax.patches if p.get_height() == p.get_height()]  # not nan
    solid = [p for p in bars if not p.get_hatch()]
    hatched = [p for p in bars if p.get_hatch()]
    assert [p.get_height() for p in solid] == [0.5, float(Fraction(1, 2) - Fraction(187, 10**15))]
    assert len(hatched) == 1 and hatched[0].get_height() == float(Fraction(187, 10**15) + e)
    assert any("upper bound" in t.get_text() for t in ax.get_legend().get_texts())


def test_payline_drawings_keep_the_grid_border(monkeypatch):
    """Found by a new user: the PDF's payline drawings had no bottom border (and half-width outer
    edges): the axes' limits were the grid's own edges, so the outer cells' edge lines were clipped.
    Every cell rectangle must lie strictly inside its axes' limits."""
    from types import SimpleNamespace

    from analytic.reports import plots

    got = {}
    monkeypatch.setattr(plots, "_png", lambda fig, **kw: got.setdefault("fig", fig) and b"")
    plots.paylines_png(SimpleNamespace(lines=((1, 1, 1), (0, 1, 2)), reels=3, rows=3))
    for ax in got["fig"].axes[:2]:
        (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
        cells = [p for p in ax.patches]
        assert len(cells) == 9
        assert x0 < min(c.get_x() for c in cells) and max(c.get_x() + c.get_width() for c in cells) < x1
        assert y0 < min(c.get_y() for c in cells) and max(c.get_y() + c.get_height() for c in cells) < y1


def test_payline_drawing_has_its_bottom_border_in_pixels():
    """The same, in the PNG itself (at 110 dpi the grid's 0.5 pt lines were 0.76 px wide and some
    vanished): the lowest row of non-white pixels of a one-line drawing is the grid's bottom border,
    a line across most of the drawing's width, not the feet of the vertical lines (5 px of 64 before)."""
    import io
    from types import SimpleNamespace

    import matplotlib.image as mpimg

    from analytic.reports import plots

    img = mpimg.imread(io.BytesIO(plots.paylines_png(SimpleNamespace(lines=((1, 1, 1, 1, 1),), reels=5, rows=3))))
    ink = img[:, :, :3].min(axis=2) < 0.9  # not white
    rows = [r for r in range(ink.shape[0]) if ink[r].any()]
    cols = [c for c in range(ink.shape[1]) if ink[:, c].any()]
    width = cols[-1] - cols[0] + 1
    assert max(ink[r].sum() for r in rows[-3:]) > 0.8 * width  # (anti-aliasing: the line's last 3 rows)
