"""XLSX par sheet (openpyxl): Summary, one sheet per bet mode, Reels,
Paytable, Distribution and Appendix; number formats, widths, frozen headers.

Exact values sit beside the floats as ``p/q`` text, so the workbook can be
checked without rounding.  Formats :class:`~analytic.reports.model.ParSheet` only.
"""

from __future__ import annotations

import math
import re

from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter

from analytic.figures import round_decimals, round_outward
from analytic.limits import XLSX_MAX_STOPS
from analytic.reports.format import (
    free_game_note,
    rate_head,
    ranges_label,
    range_exactness,
    cost_text,
    WAYS_WINS_NOTE,
    pays_text,
    ways_game,
    exact_text,
    extra_label,
    extra_text,
    feature_rows,
    frac,
    line_grid,
    sd_interval,
)
from analytic.reports.model import ModeSheet, ParSheet, row_errors

__all__ = ["write_xlsx"]

_HEAD = Font(bold=True, color="FFFFFF")
_FILL = PatternFill("solid", fgColor="3B6EA5")
_TITLE = Font(bold=True, size=14)
_SUB = Font(bold=True, size=11)
PCT = "0.0000%"
PROB = "0.000000"
NUM = "#,##0.0000"
INT = "#,##0"


#: A text starting with one of these would be read as a formula by a spreadsheet (OWASP CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: Integers beyond this lose digits as a spreadsheet number (a double); they are written as text.
_EXACT_INT = 2**53


#: Characters XML 1.0 cannot hold that openpyxl lets through (the noncharacters U+FFFE, U+FFFF; a
#: model's text may hold them): a sheet with one is not well-formed XML, which Excel and openpyxl refuse.
_NOT_XML = re.compile("[\ufffe\uffff]")


def _xml_text(text: str) -> str:
    """``text`` with every character XLSX cannot hold replaced: control characters by U+FFFD, the
    noncharacters U+FFFE and U+FFFF by their escapes (``\\uffff``, as the PDF shows them)."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", ILLEGAL_CHARACTERS_RE.sub("\ufffd", text))


def cell(ws, row: int, col: int, value):
    """Write ``value`` to a cell so that text always stays text.

    A string starting with ``= + - @``, a tab or a carriage return is stored
    as a string cell with Excel's quote prefix (it shows as typed and never
    becomes a formula, also after an edit); characters XLSX cannot hold
    (control characters) become U+FFFD, the noncharacters U+FFFE and U+FFFF their
    escapes; an integer beyond 2**53 is written as
    its exact digits (text), not as a rounded float.
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _EXACT_INT:
        value = str(value)
    c = ws.cell(row, col)
    if isinstance(value, str):
        value = _xml_text(value)
        c.value = value
        if value.startswith(_FORMULA_START):
            c.data_type = "s"
            c.quotePrefix = True
    else:
        c.value = value
    return c


def sheet_title(text: str, taken=()) -> str:
    """A worksheet name Excel accepts: no ``[]:*?/\\``, no apostrophe at either end, at most 31
    characters, and not one of ``taken`` ignoring case (Excel's sheet names ignore case); a clash
    ends in `` (2)``, `` (3)``, ... within the 31 characters."""
    t = re.sub(r"[\[\]:*?/\\]", "_", _NOT_XML.sub("_", ILLEGAL_CHARACTERS_RE.sub("_", text)))
    t = re.sub(r"^'|'$", "_", t[:31])
    used = {x.casefold() for x in taken}
    out, k = t, 1
    while out.casefold() in used:
        k += 1
        tail = f" ({k})"
        out = re.sub(r"'$", "_", t[:31 - len(tail)]) + tail
    return out


class _Sheet:
    """Row writer keeping column widths."""

    def __init__(self, ws):
        self.ws = ws
        self.row = 1
        self.widths: dict[int, int] = {}

    def title(self, text: str, font=_TITLE):
        cell(self.ws, self.row, 1, text).font = font
        self.row += 1

    def text(self, text: str):
        cell(self.ws, self.row, 1, text).alignment = Alignment(wrap_text=False)
        self.row += 1

    def blank(self):
        self.row += 1

    def header(self, cols, freeze: bool = False):
        for j, c in enumerate(cols, start=1):
            head = cell(self.ws, self.row, j, c)
            head.font, head.fill = _HEAD, _FILL
            self._w(j, c)
        if freeze:
            self.ws.freeze_panes = self.ws.cell(self.row + 1, 1)
        self.row += 1

    def put(self, values, formats=()):
        for j, v in enumerate(values, start=1):
            c = cell(self.ws, self.row, j, v)
            f = formats[j - 1] if j - 1 < len(formats) else None
            if f and isinstance(c.value, (int, float)):
                c.number_format = f
            self._w(j, v if not isinstance(v, float) else "0.000000000")
        self.row += 1

    def _w(self, j, v):
        self.widths[j] = min(max(self.widths.get(j, 8), len(str(v)) + 2), 70)

    def finish(self):
        for j, w in self.widths.items():
            self.ws.column_dimensions[get_column_letter(j)].width = w


def _number(text: str):
    """A number shown as text in the data model (``"20168"``, ``"1/4"``) as a float; other text as is."""
    from fractions import Fraction

    try:
        return float(Fraction(text))
    except (ValueError, ZeroDivisionError):
        return text


def _spins_played(w, t):
    """A spins-played table: probabilities as numbers, the label in its own column."""
    w.blank()
    w.title(f"Spins played: {t.feature}", _SUB)
    w.text(t.note)
    w.header(["figure", "value", "label", _EXACT_HEAD])
    for name, v, f in (("expected spins played", t.expected, NUM),
                       ("P(at least one retrigger)", t.p_retrigger, PROB)):
        w.put([name, float(v), "exact", frac(v) if len(frac(v)) <= 40 else "(JSON)"], ["", f])
    for head, rows in (("spins played", t.rows), ("retriggers", t.retriggers if t.p_retrigger else ())):
        if not rows:
            continue
        w.header([head, "low", "high", "probability", "1 in", "cumulative", "label"])
        for r in rows:
            w.put([r.label, r.low, r.high, float(r.probability), r.one_in if not math.isinf(r.one_in) else None,
                   float(r.cumulative), "exact"], ["", "0", "0", PROB, NUM, PROB])


def _summary(wb, s: ParSheet):
    w = _Sheet(wb.active)
    wb.active.title = "Summary"
    w.title(f"{s.name} - par sheet")
    w.text(f"Model {s.model_file}  SHA-256 {s.model_sha256}  analytic {s.solver_version}")
    w.blank()
    w.header(["item", "value"], freeze=True)
    w.put(["grid", f"{s.reels} reels x {s.rows} rows"])
    if s.lines:
        w.put(["paylines", len(s.lines)], ["0"])
    if s.ways:
        w.put(["pays", pays_text(s)])
    w.put(["total bet (pay units)" if ways_game(s) else "total bet (line bets)", s.total_bet], ["0"])
    for k, v in s.meta:
        w.put([k, v])
    for k, v in s.cap:
        w.put([f"win cap ({k})", _number(v)], ["", NUM])
    w.put(["volatility index z (90%)", s.volatility_z], ["", "0.0000000"])
    w.put(["volatility index convention", s.volatility_convention])
    w.blank()
    w.title("Bet modes", _SUB)
    w.header(["mode", "cost (x total bet)", "plays", "description", "RTP", "RTP label", "RTP error",
              "hit frequency", "hit frequency error", "sd", "sd error", "volatility 90%", "volatility 90% error"])
    for info, m in zip(s.modes_info, s.modes):
        sd, _l, sde = _sd_cells(m)
        vol, _l, vole = _sd_cells(m, m.volatility[0][1])
        w.put([info.name, float(info.cost), f"reel set {info.reel_set}" if info.kind == "spin" else f"buys {info.buys}",
               info.description, _num(m.rtp), m.rtp.label, _errn(m.rtp), _num(m.hit_frequency), _errn(m.hit_frequency),
               sd, sde, vol, vole],
              ["", "0.00", "", "", _fmt(m.rtp, PCT), "", "0.00E+00", _fmt(m.hit_frequency, PCT), "0.00E+00",
               NUM if sde is None else "0.00000", "0.00E+00", NUM if vole is None else "0.00000", "0.00E+00"])
    if s.lines:  # (a ways game has none)
        w.blank()
        w.title("Paylines (row 0 on top, # = payline cell)", _SUB)
        w.header(["line", "rows per reel"] + [f"row {r}" for r in range(s.rows)])
        for i, l in enumerate(s.lines, start=1):
            w.put([i, " ".join(map(str, l))] + line_grid(l, s.rows))
    if s.features:
        w.blank()
        w.title("Features", _SUB)
        w.header(["feature", "parameter", "value"])
        for r in feature_rows(s):
            w.put(r)
    w.blank()
    w.title("Rules as modelled", _SUB)
    if s.rules:
        w.header(["rule", "value", "default", "meaning"])
        for r in s.rules:
            w.put([r.name, str(r.value), str(r.default), r.doc])
    else:
        w.text("No rule switches apply to this game.")
    w.blank()
    w.title("Design reasons", _SUB)
    if s.design:
        w.header(["key", "reason"])
        for k, v in s.design:
            w.put([k, v])
    else:
        w.text("None recorded.")
    w.finish()


_EXACT_HEAD = "exact (p/q up to 40 characters; longer in the Appendix)"


def _num(f) -> float:
    """A Figure's published value (:meth:`~analytic.figures.Figure.published`) as a float."""
    return float(f.published().value)


def _errn(f) -> float | None:
    """A bounded Figure's published error, rounded up to 3 significant digits (what its cell's
    ``0.00E+00`` format shows is then the value itself, never below the certified error), as a float;
    None when exact."""
    if f.label == "exact":
        return None
    return float(round_outward(f.published().error, up=True, digits=3))


def _prob_cells(f, fmt: str) -> tuple:
    """A probability's value and error cells, ``(value, value format, error, error format)``, read as an
    interval inside ``[0, 1]``.

    The figure is published within ``[0, 1]``
    (:meth:`~analytic.figures.Figure.published_within`: a certified interval reaching past 0 or 1 is
    cut); its error cell is rounded up to 3 significant digits (:func:`_errn`) unless that would take
    the interval past 0 or 1 (a risk of ruin of 1.2745e-09 +/- 1.2745e-09: 1.28e-09), where it is
    written whole with a format showing every digit.
    """
    p = f.published_within()
    if p.label == "exact":
        return _num(p), _fmt(p, fmt), None, "0.00E+00"
    e3 = round_outward(p.error, up=True, digits=3)
    if 0 <= p.value - e3 and p.value + e3 <= 1:
        return _num(p), _fmt(p, fmt), float(e3), "0.00E+00"
    from decimal import Decimal, localcontext

    with localcontext() as ctx:  # the published error is a short decimal (a multiple of its quantum / 2)
        ctx.prec = 40
        digits = len((Decimal(p.error.numerator) / p.error.denominator).normalize().as_tuple().digits)
    # (a spreadsheet shows at most 15 significant digits)
    return _num(p), _fmt(p, fmt), float(p.error), "0." + "0" * (min(max(digits, 3), 15) - 1) + "E+00"


def _fmt(f, fmt: str) -> str:
    """The number format of a Figure's value cell: ``fmt``, widened for a bounded figure to every
    decimal of its published centre (:meth:`~analytic.figures.Figure.published`).

    Shown to fewer decimals (a 94.00145445 % RTP certified to 1.6e-7 as ``94.0015%``) the cell's
    text, with the error cell beside it, would state an interval leaving out the certified one;
    the published centre shown whole is the JSON's and the Markdown appendix's centre.
    """
    from analytic.figures import Figure, _decade

    if not isinstance(f, Figure) or f.label == "exact":
        return fmt
    p = f.published()
    if p.quantum is None or p.value == 0:
        return fmt
    k = -_decade(p.quantum)  # decimals of the published centre (the quantum is a power of ten)
    if fmt.endswith("%"):
        return "0." + "0" * max(len(fmt) - 3, k - 2) + "%"
    if "E+" in fmt:
        return "0." + "0" * max(len(fmt.split(".")[1].split("E")[0]), _decade(abs(p.value)) + k) + "E+00"
    head, _, dec = fmt.partition(".")
    n = max(len(dec), k)
    return head + ("." + "0" * n if n > 0 else "")


def _out(x, up: bool, decimals: int) -> float:
    """A certified bound rounded outward (up for an upper bound) to ``decimals`` decimals, so a
    cell showing that many decimals shows a bound still (rounded to nearest it could show a value
    inside the interval)."""
    return float(round_decimals(x, decimals, up))


def _sig_out(x, up: bool, digits: int) -> float:
    """A certified bound rounded outward to ``digits`` significant digits (an ``E+00`` cell's)."""
    return float(round_outward(x, up=up, digits=digits))


def _figure_row(w, name: str, f, fmt: str) -> None:
    """One figure: its value as a number (``fmt``), then label, certified error and the exact ``p/q``."""
    from analytic.figures import Figure

    if isinstance(f, Figure):
        f = f.published()
        w.put([name, float(f.value), f.label, _errn(f),
               frac(f.value) if f.label == "exact" and len(frac(f.value)) <= 40 else
               ("(Appendix / JSON)" if f.label == "exact" else "")], ["", _fmt(f, fmt), "", "0.00E+00"])
    else:  # a Fraction or int: exact
        t = frac(f)
        w.put([name, float(f) if not isinstance(f, int) else f, "exact", None,
               t if len(t) <= 40 else "(Appendix / JSON)"], ["", fmt])


def _sd_cells(m, x=None) -> tuple[float, str, float | None]:
    """``(value, label, error)`` of a mode's sd (``x`` None) or volatility index ``x``: the float of
    an exact variance's, label "float"; where the variance is bounded, the centre of the certified
    interval of :func:`~analytic.reports.format.sd_interval` and its half-width rounded up to 3
    significant digits (what the error cell's format shows), label "bounded"."""
    iv = sd_interval(m, x)
    if iv is None:
        return (m.sd if x is None else x), "float", None
    a, b = iv
    return float((a + b) / 2), "bounded", float(round_outward((b - a) / 2, up=True, digits=3))


def _sd_row(w, name: str, m, x=None) -> None:
    v, lab, e = _sd_cells(m, x)
    w.put([name, v, lab, e], ["", NUM if e is None else "0.00000", "", "0.00E+00"])


def _mode(wb, m: ModeSheet, ways: bool = False):
    import math


    w = _Sheet(wb.create_sheet(sheet_title(f"Mode {m.info.name}", wb.sheetnames)))
    w.title(f"Bet mode '{m.info.name}' (cost {cost_text(m.info.cost)} x total bet)")
    w.header(["figure", "value", "label", "error (certified)", _EXACT_HEAD], freeze=True)
    if m.cycle:
        w.put([f"cycle (stop combinations of reel set {m.reel_set})", m.cycle, "exact"], ["", INT])
    _figure_row(w, "RTP", m.rtp, PCT)
    _figure_row(w, "hit frequency", m.hit_frequency, PCT)
    if not math.isinf(m.hit_one_in):
        w.put(["hit frequency (1 in)", m.hit_one_in, "float"], ["", NUM])
    _sd_row(w, "standard deviation (per unit staked)", m)
    _figure_row(w, "variance (per unit staked)", m.variance, NUM)
    for c, v in m.volatility:
        _sd_row(w, f"volatility index {c}%", m, v)
    if m.top_win is not None:
        _figure_row(w, f"{m.top_note} (x total bet)", m.top_win, NUM)
        _figure_row(w, f"{m.top_note}: probability", m.top_probability, "0.00E+00")
    if m.cap_probability is not None:
        _figure_row(w, "probability of reaching the cap", m.cap_probability, "0.00E+00")
    _extras(w, m.extra)
    w.blank()
    w.title("RTP split", _SUB)
    w.header(["component", "RTP", "label", "error (certified)", _EXACT_HEAD])
    for n, f in m.components:
        _figure_row(w, n, f, PCT)
    _figure_row(w, "total", m.rtp, PCT)
    if m.features:
        w.blank()
        w.title("Features", _SUB)
        w.header(["feature", "frequency", "1 in", "average win (x bet)", "sd of win", "expected spins", "RTP",
                  "label", "frequency error", "average win error", "expected spins error", "RTP error",
                  "sd of win error"])
        for f in m.features:
            figs = (f.frequency, f.average_win, f.expected_spins, f.rtp)
            lab = "exact" if all(x.label == "exact" for x in figs) else "bounded"
            sd, _, sd_err = _sd_cells(f)  # a bounded variance's: the certified interval of its square roots
            w.put([f.name, _num(f.frequency), f.one_in if not math.isinf(f.one_in) else None,
                   _num(f.average_win), sd, _num(f.expected_spins), _num(f.rtp), lab] + [_errn(x) for x in figs]
                  + [sd_err],
                  ["", _fmt(f.frequency, PROB), NUM, _fmt(f.average_win, NUM), NUM if sd_err is None else "0.00000",
                   _fmt(f.expected_spins, NUM), _fmt(f.rtp, PCT), ""] + ["0.00E+00"] * 5)
    for t in m.spins_played:
        _spins_played(w, t)
    if m.line_wins:
        w.blank()
        w.title(("Ways wins" if ways else "Line wins") + " by symbol and count", _SUB)
        if ways:
            w.text(WAYS_WINS_NOTE)
        w.header(["symbol", "count", "wild mult.", "pay", "hits", rate_head(ways, "probability per line"),
                  "RTP", "label"])
        for x in m.line_wins:
            w.put([x.symbol, x.count, x.multiplier, x.pay, x.hits, float(x.probability), float(x.rtp), "exact"],
                  ["", "0", "0", INT, INT, "0.00E+00", PCT])
    _scatter_counts(w, m)
    _ladder(w, m)
    w.blank()
    w.title(f"Expected RTP range ({ranges_label(m)})", _SUB)
    w.text(m.ranges_note)
    levels = [lv for lv, _, _ in m.ranges[0].ranges]
    if m.ranges[0].quantiles:
        w.header(["rounds"] + [f"{lv}% {e}" for lv in levels
                               for e in ("low from", "low to", "high from", "high to")] + ["exactness"])
        for r in m.ranges:
            # each quantile's certified ends rounded outward to what the cell shows (4 decimals of a %);
            # an approximate level (no certified bound at that N) its normal range's ends, labelled so
            # (a row certified at some levels only: each level's label, range_exactness)
            cert = {q[0]: q for q in r.quantiles}
            qs = tuple(cert.get(lv) or (lv, lo, lo, hi, hi) for lv, lo, hi in r.ranges)
            w.put([r.rounds] + [_out(x, up, 6) for q in qs for x, up in zip(q[1:], (False, True, False, True))]
                  + [range_exactness(r, truncated=True)],
                  ["0.0E+0"] + [PCT] * (4 * len(levels)))
    else:
        w.header(["rounds"] + [f"{lv}% {e}" for lv in levels for e in ("low", "high")]
                 + ["low end truncated at 0", "exactness"])
        for r in m.ranges:
            w.put([r.rounds] + [x for _, lo, hi in r.ranges for x in (lo, hi)]
                  + [", ".join(f"{lv}%" for lv in r.truncated), range_exactness(r)], ["0.0E+0"] + [PCT] * 4)
    _methods(w, m)
    w.finish()


def _methods(w, m) -> None:
    """The methods table (``ModeSheet.methods``: figure, method), as the Markdown's and PDF's."""
    w.blank()
    w.title("Methods", _SUB)
    w.header(["figure", "method"])
    for name, method in m.methods:
        w.put([name, method])


#: Decimals of an extras cell (as the Markdown's tables print them, :func:`~analytic.reports.format.extra_tables`).
_EXTRA_DECIMALS = 8


def _extra_fmt(x) -> str:
    """The number format of an extra's value ``x``: 8 decimals, or 8 significant digits in
    scientific form below 1e-4 and from 1e7 (as the Markdown's :func:`~analytic.reports.format.num`
    switches; a probability of 1e-7 is never shown as ``0.0000``)."""
    v = abs(float(x.value if hasattr(x, "value") else x))
    if v and (v < 1e-4 or v >= 1e7):
        return "0." + "0" * (_EXTRA_DECIMALS - 1) + "E+00"
    return "#,##0." + "0" * _EXTRA_DECIMALS


def _extras(w, extra) -> None:
    """A mode's solver extras (``ModeSheet.extra``): each figure as a row (:func:`_figure_row`), text as
    is; then each table of records (e.g. the RTP at each stake of a currency cap) with a label column,
    a bounded figure's certified error in a column of its own (``<column> error``), and a ``lower`` /
    ``upper`` column (:data:`~analytic.reports.format.BOUND_COLUMNS`) rounded outward to the decimals
    its cell shows."""
    from fractions import Fraction

    from analytic.figures import Figure
    from analytic.reports.format import BOUND_COLUMNS

    for k, v in extra:
        if isinstance(v, (Figure, Fraction)) or (isinstance(v, int) and not isinstance(v, bool)):
            _figure_row(w, extra_label(k, extra), v, _extra_fmt(v))
        else:
            w.put([extra_label(k, extra), extra_text(v)])
    for k, v in extra:  # the extras that are tables (e.g. the RTP at each stake of a currency cap)
        if isinstance(v, (list, tuple)) and v and all(isinstance(x, dict) for x in v):
            w.blank()
            w.title(k.replace("_", " ").capitalize(), _SUB)
            head = list(dict.fromkeys(h for r in v for h in r))  # every row's columns, in order of first use
            errs = [h for h in head if any(isinstance(r.get(h), Figure) and r[h].label != "exact" for r in v)]
            w.header(head + ["label"] + [f"{h} error" for h in errs])
            for rec in v:
                vals, fmts, labels = [], [], set()
                for h in head:
                    x = rec.get(h)
                    if isinstance(x, Figure):
                        vals.append(_num(x))
                        fmts.append(_fmt(x.published(), _extra_fmt(x)))
                        labels.add(x.label)
                    elif isinstance(x, Fraction):
                        f = _extra_fmt(x)
                        vals.append(_out(x, BOUND_COLUMNS[h], _EXTRA_DECIMALS)
                                    if h in BOUND_COLUMNS and "E" not in f else float(x))
                        fmts.append(f)
                        labels.add("exact")
                    elif isinstance(x, bool) or x is None:
                        vals.append("" if x is None else ("yes" if x else "no"))
                        fmts.append("")
                    elif isinstance(x, (int, float)):
                        vals.append(x)
                        fmts.append(_extra_fmt(x))
                    else:
                        vals.append(str(x))
                        fmts.append("")
                ev = [_errn(rec[h]) if isinstance(rec.get(h), Figure) else None for h in errs]
                w.put(vals + [", ".join(sorted(labels))] + ev, fmts + [""] + ["0.00E+00"] * len(errs))


def _scatter_counts(w, m) -> None:
    """The scatter symbols in view (``ModeSheet.scatter_counts``: cells, stop combinations, exact
    probability), as the Markdown's and PDF's table: the probability as a number, its "1 in", ``p/q``."""
    if not m.scatter_counts:
        return
    w.blank()
    w.title("Scatter symbols in view", _SUB)
    w.header(["cells", "combinations", "probability", "1 in", "label", "exact"])
    for k, n, p in m.scatter_counts:
        t = frac(p)
        w.put([k, n, float(p), float(1 / p) if p else None, "exact", t if len(t) <= 40 else "(JSON)"],
              ["0", INT, "0.00000000E+00", NUM])


def _ladder(w, m: ModeSheet) -> None:
    """The exceedance ladder: thresholds and probabilities as numbers, the label in its own column."""
    w.blank()
    w.title("Exceedance ladder", _SUB)
    w.text(m.exceedance_note)
    ex = m.exceedance
    if ex is None:
        return
    w.header(["win >= x (x total bet)", "x", "P(win >= x)", "label", "lower bound", "upper bound", "1 in",
              "exact (p/q up to 40 characters; all in the JSON)"])
    for r in ex.rows:
        mid = (r.low + r.high) / 2
        t = frac(r.low)
        lo, hi = (float(r.low), float(r.high)) if r.low == r.high else \
            (_sig_out(r.low, False, 10), _sig_out(r.high, True, 10))  # what 0.000000000E+00 shows: still bounds
        w.put([r.label, float(r.threshold), float(mid), ex.label, lo, hi,
               # "1 in" of the centre only where the low bound is above 0 (else the Markdown's "1 in N or rarer")
               1 / float(mid) if mid and r.low > 0 else None, (t if len(t) <= 40 else "(JSON)") if r.exact else ""],
              ["", NUM, "0.000000E+00", "", "0.000000000E+00", "0.000000000E+00", NUM])
    if ex.max_win is not None:
        mid = (ex.max_low + ex.max_high) / 2
        w.put(["maximum win (x total bet)", float(ex.max_win), float(mid),
               "exact" if ex.max_low == ex.max_high else "bounded",
               *((float(ex.max_low), float(ex.max_high)) if ex.max_low == ex.max_high else
                 (_sig_out(ex.max_low, False, 10), _sig_out(ex.max_high, True, 10))),
               1 / float(mid) if mid and ex.max_low > 0 else None],  # (as the rows: no "1 in" of [0, high])
              ["", NUM, "0.000000E+00", "", "0.000000000E+00",
                                                  "0.000000000E+00", NUM])
    w.text(f"maximum win: {ex.max_note}")


def _reels(wb, s: ParSheet):
    w = _Sheet(wb.create_sheet("Reels"))
    first = True
    for rs in s.reel_sets:
        w.title(f"Reel set '{rs.name}' (cycle {rs.cycle:,})", _SUB)
        n = len(rs.strips)
        w.header(["symbol"] + [f"reel {i + 1}" for i in range(n)] + ["total"], freeze=first)
        first = False
        for sym, per, tot in rs.counts:
            w.put([sym, *per, tot])
        w.put(["length", *[len(x) for x in rs.strips], sum(len(x) for x in rs.strips)])
        w.blank()
        longest = max(len(x) for x in rs.strips)
        if longest > XLSX_MAX_STOPS:
            w.text(f"Stop table not written: the longest strip has {longest:,} stops, more than the workbook's "
                   f"limit of {XLSX_MAX_STOPS:,}; the Markdown and JSON par sheets list every stop.")
            w.blank()
            continue
        w.header(["stop"] + [f"reel {i + 1}" for i in range(n)])
        for k in range(longest):
            w.put([k] + [x[k] if k < len(x) else None for x in rs.strips])
        w.blank()
    w.finish()


def _free_games(wb, s: ParSheet):
    if not s.free_games:
        return
    w = _Sheet(wb.create_sheet("Free games"))
    w.text(free_game_note(s))
    for g in s.free_games:
        w.blank()
        w.title(f"Feature '{g.feature}': reel set '{g.reel_set}' (cycle {g.cycle:,})", _SUB)
        if g.retrigger_probability is None and g.retrigger_note != "no retriggers":
            w.text(f"Retrigger probability per free spin: {g.retrigger_note}.")
        elif g.retrigger_probability is not None:
            w.header(["retrigger", "probability per free spin", "label", "1 in", "note"])
            p = g.retrigger_probability
            w.put(["any", float(p), "exact", 1 / float(p) if p else None, g.retrigger_note], ["", PROB, "", NUM])
            for a, q in g.retrigger_awards:
                w.put([f"+{a} spins", float(q), "exact", 1 / float(q) if q else None], ["", PROB, "", NUM])
        w.blank()
        w.header(["symbol", "count", "wild mult.", "pay", "hits",
                  rate_head(ways_game(s), "probability per line"), "return (x total bet)",
                  "label"])
        for x in g.line_wins:
            w.put([x.symbol, x.count, x.multiplier, x.pay, x.hits, float(x.probability), float(x.rtp), "exact"],
                  ["", "0", "0", INT, INT, "0.00E+00", "0.000000"])
    w.finish()


def _paytable(wb, s: ParSheet):
    w = _Sheet(wb.create_sheet("Paytable"))
    counts = sorted({n for p in s.paytable for n, _ in p.pays})
    w.header(["symbol", "role"] + [f"{n} of a kind" for n in counts], freeze=True)
    for p in s.paytable:
        d = dict(p.pays)
        w.put([p.symbol, p.role_text] + [d.get(n) for n in counts])
    if s.scatter_pays:
        w.blank()
        w.title(f"Scatter pays ({', '.join(s.scatter_symbols)}), x total bet", _SUB)
        w.header(["count", "pay", "exact"])
        for n, p in s.scatter_pays:
            w.put([n, float(p), frac(p)], ["0", NUM])
    if s.line_triggers:
        w.blank()
        w.header(["bonus symbol", "count on a line", "starts"])
        for t in s.line_triggers:
            w.put(list(t))
    w.finish()


def _distribution(wb, s: ParSheet):
    from fractions import Fraction

    from analytic.figures import Figure

    w = _Sheet(wb.create_sheet("Distribution"))
    w.header(["mode", "win (x total bet)", "probability", "1 in", "RTP", "share of RTP", "label",
              "probability error", "RTP error", "share error",
              "probability exact (p/q up to 40 characters; all in the JSON)"], freeze=True)
    for m in s.modes:
        for b, errs in zip(m.distribution.buckets, row_errors(m.distribution, m.info.cost)):
            t = frac(b.probability)
            # a bounded figure: its published centre shown to every decimal (_fmt) beside its published
            # error rounded up (_errn), so the two cells hold the certified interval (a 9-decimal
            # 0.000000002 beside 6.54e-13 left out 1.91184e-09); no share error: the share is not certified
            cells = []
            for x, err, fmt in zip((b.probability, b.rtp, b.share), errs, ("0.000000000", PCT, "0.00%")):
                f = Figure(Fraction(x), "bounded", Fraction(err)) if err else None
                cells.append((float(x), fmt, None) if f is None else (_num(f), _fmt(f, fmt), _errn(f)))
            (p, pf, pe), (r, rf, re_), (sh, sf, se) = cells
            lab = "approximate" if errs[2] is None else "exact" if not any(errs) else "bounded"
            # "1 in" only of a probability certified above 0 (else the Markdown's "1 in N or rarer")
            one = 1 / p if p and Fraction(b.probability) - (errs[0] or 0) > 0 else None
            w.put([m.info.name, b.label, p, one, r, sh, lab, pe, re_, se,
                   (t if len(t) <= 40 else "(JSON)") if m.distribution.mass_error == 0 else ""],
                  ["", "", pf, NUM, rf, sf, "", "0.00E+00", "0.00E+00", "0.00E+00"])
    w.blank()
    for m in s.modes:
        w.text(f"{m.info.name}: {m.distribution.note}")
    w.finish()


def _to_ruin(h) -> float | None:
    """Mean rounds to ruin of a horizon, as the Markdown's :func:`~analytic.reports.format.session_rows`
    gives it: None (an empty cell) when ruin is impossible or its probability is not above its certified
    error (the mean is then not bounded below the horizon; its centre would look like a figure)."""
    f = h.rounds_to_ruin
    if f is None or (f.label != "exact" and f.error >= h.rounds):
        return None
    return _num(f)


def _sessions(wb, s: ParSheet):
    """One worksheet: every mode's session horizons (all quantile levels, low and high ends) and
    the autoplay stops, or the line saying why a mode has none."""
    if not any(m.session is not None for m in s.modes):
        return
    w = _Sheet(wb.create_sheet("Sessions"))
    for m in s.modes:
        sec = m.session
        if sec is None:
            continue
        w.title(f"Bet mode '{m.info.name}': sessions from {frac(sec.start)} ({sec.unit})", _SUB)
        if sec.refused:
            w.text(sec.refused)
            w.blank()
            continue
        w.text(sec.note)
        levels = [lv for lv, _, _ in sec.horizons[0].quantiles] if sec.horizons else []
        w.header(["rounds", "label", "error (certified)", "mean balance", "mean error", "P(end above start)",
                  "P(end above start) error", "risk of ruin", "risk of ruin error", "rounds to ruin (mean)",
                  "rounds to ruin error"]
                 + [f"{float(lv):.0%} quantile {e}" for lv in levels for e in ("low", "high")])
        for h in sec.horizons:
            # the error rounded up and the quantiles' ends outward, to what their cells show; the
            # probabilities inside [0, 1]
            ruin_t = _to_ruin(h)
            av, af, ae, aef = _prob_cells(h.p_above_start, PROB)
            rv, rf, re_, ref = _prob_cells(h.ruin, "0.00E+00")
            w.put([h.rounds, h.method, _sig_out(h.error, True, 3) if h.method != "exact" else None,
                   _num(h.balance_mean), _errn(h.balance_mean), av, ae, rv, re_, ruin_t,
                   None if ruin_t is None else _errn(h.rounds_to_ruin)]
                  + [_out(x, up, 4) for _, lo, hi in h.quantiles for x, up in ((lo, False), (hi, True))],
                  [INT, "", "0.00E+00", _fmt(h.balance_mean, NUM), "0.00E+00", af, aef, rf, ref,
                   _fmt(h.rounds_to_ruin, NUM), "0.00E+00"]
                  + [NUM] * (2 * len(levels)))
        w.blank()
        w.text(sec.autoplay_note)
        a = sec.autoplay
        if a is not None:
            w.header(["autoplay stop", "setting", "probability it ends the run", "label", "error (certified)"])
            setting = dict(a.setting)
            for name, f in a.reasons:
                v, vf, e, ef = _prob_cells(f, PROB)
                w.put([name, setting.get(name, ""), v, f.label, e], ["", "", vf, "", ef])
            w.put(["rounds played (mean)", setting.get("rounds (at most)", ""), _num(a.rounds_mean),
                   a.rounds_mean.label, _errn(a.rounds_mean)],
                  ["", "", _fmt(a.rounds_mean, NUM), "", "0.00E+00"])
            w.put(["final balance (mean)", "", _num(a.balance_mean), a.balance_mean.label, _errn(a.balance_mean)],
                  ["", "", _fmt(a.balance_mean, NUM), "", "0.00E+00"])
            v, vf, e, ef = _prob_cells(a.p_above_start, PROB)
            w.put(["P(end above start)", "", v, a.p_above_start.label, e], ["", "", vf, "", ef])
        w.blank()
    w.finish()


#: Characters of text an Excel cell holds (32,767); a longer exact value is referred to the other sheets.
XLSX_CELL_CHARS = 32767


def _appendix(wb, s: ParSheet):
    w = _Sheet(wb.create_sheet("Appendix"))
    w.text(f"Model {s.model_file}; SHA-256 {s.model_sha256}; analytic {s.solver_version}")
    w.header(["mode", "figure", "exact", "float", "label", "error", "method"], freeze=True)
    for a in s.appendix:
        t = exact_text(a.value)
        if len(t) > XLSX_CELL_CHARS:  # never a cut fraction (its start reads as another number)
            t = f"({len(t):,} characters, more than a cell holds: in full in the Markdown and PDF appendix)"
        w.put([a.mode, a.figure, t, _num(a.value), a.value.label,
               _errn(a.value) if a.value.label != "exact" else 0.0, a.method],
              ["", "", "", _fmt(a.value, "0.000000000000"), "", "0.00E+00"])
    w.finish()


def write_xlsx(sheet: ParSheet, path: str) -> None:
    """Write the workbook to ``path``."""
    wb = Workbook()
    _summary(wb, sheet)
    for m in sheet.modes:
        _mode(wb, m, ways_game(sheet))
    _reels(wb, sheet)
    _free_games(wb, sheet)
    _paytable(wb, sheet)
    _distribution(wb, sheet)
    _sessions(wb, sheet)
    _appendix(wb, sheet)
    wb.save(path)
