"""PDF par sheet (fpdf2): title page, tables, the plots embedded as PNG.

Formats :class:`~analytic.reports.model.ParSheet` only; the text matches the
Markdown sheet (:mod:`analytic.reports.markdown`).
"""

from __future__ import annotations

import io
import re
import unicodedata

from fpdf import FPDF
from fpdf.fonts import FontFace

from analytic.limits import PDF_MAX_REELS, PDF_MAX_STOPS
from analytic.reports import plots
from analytic.reports.format import (APPENDIX_NOTE,
    extra_exact,
    extra_label,
    extra_tables,
    extra_text,
    FRACTION_LIMIT, ranges_label, range_rows, cost_text, free_game_note, rate_head, WAYS_WINS_NOTE, line_wins_rate, pays_text, total_bet_text, ways_game, ladder_table, max_win_text, exact_text, feature_rows, retrigger_text, short_frac, fig_num, fig_pct, frac, num, one_in, pct, sd_text)
from analytic.reports.format import AUTOPLAY_HEAD, CURRENCY_CAP_HEAD, autoplay_rows, currency_cap_rows, session_rows
from analytic.reports.format import RETRIGGERS_HEAD, SPINS_HEAD, spins_rows, spins_summary
from analytic.reports.format import DISTRIBUTION_HEAD, distribution_rows, one_in_fig, prob_pct
from analytic.reports.model import SESSION_SHOWN, ModeSheet, ParSheet

__all__ = ["write_pdf"]

_HEAD = FontFace(emphasis="BOLD", color=(255, 255, 255), fill_color=(59, 110, 165))


_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


#: Typographic characters outside latin-1 -> their plain form (the rest: NFKC, then an escape).
_PLAIN = str.maketrans({"\u2014": "-", "\u2013": "-", "\u2018": "'", "\u2019": "'", "\u201c": '"',
                        "\u201d": '"', "\u2026": "...", "\u20ac": "EUR", "\u2212": "-"})


def _t(x) -> str:
    """Text safe for the core (latin-1) fonts; control characters other than a line break become spaces.

    Characters outside latin-1 are written plainly where they have a plain form (dashes, quotes,
    ``EUR``, NFKC's ``TM``) and otherwise as their escape (``\\u2603``), never as ``?``: two
    different names stay different on the sheet.
    """
    text = _CONTROL.sub(" ", str(x).translate(_PLAIN))
    if not text.isascii():
        text = "".join(ch if ord(ch) < 256 else unicodedata.normalize("NFKC", ch).translate(_PLAIN)
                       for ch in text)
    return text.encode("latin-1", "backslashreplace").decode("latin-1")


class _Doc(FPDF):
    def __init__(self, sheet: ParSheet):
        super().__init__(orientation="P", unit="mm", format="A4")
        self.sheet = sheet
        self.set_auto_page_break(True, 15)
        self.set_margins(15, 15, 15)

    def footer(self):
        self.set_y(-10)
        self.set_font("Helvetica", "", 7)
        self.set_text_color(120)
        page = f" - page {self.page_no()}"
        tail = _t(f" par sheet - {self.sheet.model_file} - analytic {self.sheet.solver_version}")
        name = _t(self.sheet.name)
        # one line: a long game name, then if need be a long file name, is cut visibly ("...") so that the
        # page number stays on the page
        name = self._cut(name, self.epw - self.get_string_width(tail + page))
        text = self._cut(name + tail, self.epw - self.get_string_width(page))
        self.cell(0, 5, text + page, align="C")
        self.set_text_color(0)

    def _cut(self, text: str, room: float) -> str:
        """``text``, or its longest start followed by ``...`` that fits in ``room`` mm (current font)."""
        if self.get_string_width(text) <= room:
            return text
        while text and self.get_string_width(text + "...") > room:
            text = text[:-1]
        return text + "..."

    def h1(self, text):
        self.set_font("Helvetica", "B", 14)
        self.multi_cell(0, 9, _t(text), new_x="LMARGIN", new_y="NEXT")  # a long name wraps, never off the page

    def h2(self, text):
        if self.get_y() > 250:
            self.add_page()
        self.ln(2)
        self.set_font("Helvetica", "B", 11)
        self.multi_cell(0, 7, _t(text), new_x="LMARGIN", new_y="NEXT")

    def para(self, text, size=8):
        self.set_font("Helvetica", "", size)
        self.multi_cell(0, 4, _t(text), new_x="LMARGIN", new_y="NEXT")

    def table(self, head, rows, widths=None, align=None, size=7):
        self.set_font("Helvetica", "", size)
        kw = {"col_widths": widths} if widths else {}
        aligns = align or ("LEFT",) + ("RIGHT",) * (len(head) - 1)
        with super().table(headings_style=_HEAD, line_height=size * 0.5, text_align=aligns,
                           borders_layout="HORIZONTAL_LINES", **kw) as t:
            r = t.row()
            for h in head:
                r.cell(_t(h))
            for row in rows:
                r = t.row()
                for c in row:
                    r.cell(_t("" if c is None else c))
        self.ln(2)

    def png(self, data: bytes, w: float = 170):
        self.image(io.BytesIO(data), w=w)
        self.ln(2)


def _word_widths(head, rows, least: int = 4) -> tuple[int, ...]:
    """Column widths (relative) of a table from each column's longest word, so a cell wraps between
    words and never inside a number (equal widths broke "12,578.7854138 ± 2.5e-06" as
    "12,578.785413" over "8 ± 2.5e-06")."""
    cols = list(zip(head, *rows))
    return tuple(max(least, *(len(w) for c in col for w in str("" if c is None else c).split())) for col in cols)


def _title(d: _Doc, s: ParSheet):
    d.add_page()
    d.ln(50)
    d.set_font("Helvetica", "B", 26)
    d.multi_cell(0, 12, _t(s.name), align="C", new_x="LMARGIN", new_y="NEXT")
    d.set_font("Helvetica", "", 14)
    d.cell(0, 10, "Par sheet", align="C", new_x="LMARGIN", new_y="NEXT")
    d.ln(10)
    d.set_font("Helvetica", "", 9)
    lines = [f"{s.reels} reels x {s.rows} rows, " + (f"{len(s.lines)} paylines" if s.lines else "")
             + (f" ({s.ways})" if s.ways and s.lines else pays_text(s)),
             *[f"{k}: {v}" for k, v in s.meta]]
    for m in s.modes:
        lines.append(f"mode {m.info.name} (cost {cost_text(m.info.cost)} x bet): RTP {fig_pct(m.rtp)}, "
                     f"hit frequency {one_in_fig(m.hit_frequency)}, volatility index (90%) {sd_text(m, m.volatility[0][1])}")
    for x in lines:
        d.multi_cell(0, 6, _t(x), align="C", new_x="LMARGIN", new_y="NEXT")
    d.ln(20)
    d.set_font("Helvetica", "", 8)
    d.multi_cell(0, 5, _t(f"model file {s.model_file}"), align="C", new_x="LMARGIN", new_y="NEXT")  # wraps
    d.cell(0, 5, _t(f"SHA-256 {s.model_sha256}"), align="C", new_x="LMARGIN", new_y="NEXT")
    d.cell(0, 5, _t(f"solver analytic {s.solver_version}"), align="C", new_x="LMARGIN", new_y="NEXT")


def _summary(d: _Doc, s: ParSheet):
    d.add_page()
    d.h1("Game")
    rows = [["grid", f"{s.reels} reels x {s.rows} rows"], ["pays", pays_text(s) + (f" ({len(s.lines)} paylines)" if s.lines else "")] if s.ways
            else ["paylines", len(s.lines)],
            ["total bet", total_bet_text(s)], *[[k, v] for k, v in s.meta]]
    rows += [[f"win cap ({k})", v] for k, v in s.cap] or [["win cap", "none"]]
    rows += [["volatility index convention", s.volatility_convention.replace("·", "x")]]
    d.table(["item", "value"], rows, widths=(1, 3), align=("LEFT", "LEFT"))
    d.h2("Bet modes")
    d.table(["mode", "cost (x bet)", "plays", "description"],
            [[m.name, cost_text(m.cost), f"reel set {m.reel_set}" if m.kind == "spin" else f"buys {m.buys}",
              m.description] for m in s.modes_info], widths=(2, 1, 2, 4), align=("LEFT", "RIGHT", "LEFT", "LEFT"))
    if s.lines:
        d.h2("Paylines")
        d.png(plots.paylines_png(s), w=min(170, 17 * min(len(s.lines), 10)))
    if s.features:
        d.h2("Features")
        d.table(["feature", "parameter", "value"], feature_rows(s), widths=(2, 2, 7), align=("LEFT",) * 3)
    d.h2("Rules as modelled")
    if s.rules:
        d.table(["rule", "value", "default", "meaning"], [[r.name, r.value, r.default, r.doc] for r in s.rules],
                widths=(3, 2, 2, 6), align=("LEFT",) * 4)
    else:
        d.para("No rule switches apply to this game.")
    d.h2("Design reasons")
    if s.design:
        d.table(["key", "reason"], [list(x) for x in s.design], widths=(1, 3), align=("LEFT",) * 2)
    else:
        d.para("None recorded.")
    d.h2("Paytable (ways pays in pay units, per way)" if ways_game(s) else "Paytable (line pays in line-bet units)")
    counts = sorted({n for p in s.paytable for n, _ in p.pays})
    d.table(["symbol", "role"] + [f"{n} of a kind" for n in counts],
            [[p.symbol, p.role_text] + [dict(p.pays).get(n, "") for n in counts] for p in s.paytable],
            align=("LEFT", "LEFT") + ("RIGHT",) * len(counts))
    if s.scatter_pays:
        d.para(f"Scatter pays ({', '.join(s.scatter_symbols)} anywhere), x total bet: "
               + ", ".join(f"{n}: {frac(p)}" for n, p in s.scatter_pays))
    for t in s.line_triggers:
        d.para(f"{t[1]} x {t[0]} on a payline starts {t[2]}")


def _reels(d: _Doc, s: ParSheet):
    d.add_page()
    d.h1("Reel strips")
    for rs in s.reel_sets:
        d.h2(f"Reel set '{rs.name}' (cycle {rs.cycle:,})")
        n = len(rs.strips)
        longest = max(len(x) for x in rs.strips)
        if n > PDF_MAX_REELS:
            d.para(f"{n} reels: the per-reel tables are wider than the PDF's limit of {PDF_MAX_REELS} reels; "
                   "the XLSX, Markdown and JSON par sheets hold them.")
            continue
        d.table(["symbol"] + [f"reel {i + 1}" for i in range(n)] + ["total"],
                [[sym, *per, tot] for sym, per, tot in rs.counts]
                + [["length", *[len(x) for x in rs.strips], sum(len(x) for x in rs.strips)]])
        if longest > PDF_MAX_STOPS:
            d.para(f"Stop table not printed: the longest strip has {longest:,} stops, more than the PDF's limit "
                   f"of {PDF_MAX_STOPS:,}; the XLSX (up to its own limit), Markdown and JSON par sheets list them.")
            continue
        d.table(["stop"] + [f"reel {i + 1}" for i in range(n)],
                [[k] + [x[k] if k < len(x) else "" for x in rs.strips] for k in range(longest)],
                align=("RIGHT",) + ("LEFT",) * n, size=6)


def _free_games(d: _Doc, s: ParSheet):
    if not s.free_games:
        return
    d.add_page()
    d.h1("Free games")
    d.para(free_game_note(s))
    ways = ways_game(s)
    for g in s.free_games:
        d.h2(f"Feature '{g.feature}': reel set '{g.reel_set}' (cycle {g.cycle:,})")
        if retrigger_text(g):
            d.para(retrigger_text(g))
            d.ln(1)
        d.table(["symbol", "count", "wild mult.", "pay", "hits", rate_head(ways, "probability (per line)"),
                 "return (x bet)"],
                [[w.symbol, w.count, w.multiplier, w.pay, num(w.hits), line_wins_rate(w, ways), num(w.rtp, 6)]
                 for w in g.line_wins]
                + [["total", "", "", "", "", "", num(sum(w.rtp for w in g.line_wins), 6)]])


def _mode(d: _Doc, m: ModeSheet, ways: bool = False):
    d.add_page()
    i = m.info
    d.h1(f"Bet mode '{i.name}'")
    d.para(f"Cost {frac(i.cost)} x total bet; "
           + (f"base reel set '{m.reel_set}', cycle {num(m.cycle)} stop combinations." if m.cycle
              else f"buys feature '{i.buys}'."))
    rows = [["RTP", fig_pct(m.rtp), exact_text(m.rtp, FRACTION_LIMIT)],
            ["hit frequency", f"{prob_pct(m.hit_frequency)} ({one_in_fig(m.hit_frequency)})", exact_text(m.hit_frequency, FRACTION_LIMIT)],
            ["standard deviation (per unit staked)", sd_text(m), ""],
            ["variance (per unit staked)", fig_num(m.variance), exact_text(m.variance, FRACTION_LIMIT)]]
    rows += [[f"volatility index {c}%", sd_text(m, v), ""] for c, v in m.volatility]
    if m.top_win is not None:
        rows.append([m.top_note, f"{num(m.top_win)} x bet, {one_in(m.top_probability)}", short_frac(m.top_probability)])
    if m.cap_probability is not None:
        rows.append(["probability of reaching the win cap", one_in(m.cap_probability), short_frac(m.cap_probability)])
    notes = [(k, v) for k, v in m.extra if isinstance(v, str) and len(v) > 60]
    rows += [[extra_label(k, m.extra), extra_text(v), extra_exact(v)] for k, v in m.extra
             if not (isinstance(v, str) and len(v) > 60)]
    d.table(["figure", "value", "exact"], rows, widths=(3.2, 3, 3.8), align=("LEFT", "RIGHT", "RIGHT"))
    for k, text in notes:  # long solver texts: a note below the table, not a wrapped right-aligned cell
        d.para(f"{extra_label(k, m.extra)}: {text}", size=7)
    for title, head, trows in extra_tables(m.extra):
        d.h2(title.capitalize())
        if title == "currency cap":  # short cells: the full figures are in the Markdown, JSON and XLSX
            rows = dict(m.extra)["currency_cap"]
            d.table(CURRENCY_CAP_HEAD, currency_cap_rows(rows), widths=(1.2, 1.6, 1.1, 2.2, 2, 1))
            d.png(plots.stake_png(rows), w=140)
        else:
            d.table(head, trows)
    d.h2("RTP split")
    d.table(["component", "RTP", "exact"], [[n, fig_pct(f), exact_text(f, FRACTION_LIMIT)] for n, f in m.components]
            + [["total", fig_pct(m.rtp), exact_text(m.rtp, FRACTION_LIMIT)]], widths=(3.2, 3, 3.8))
    d.png(plots.rtp_split_png(m), w=140)
    if m.features:
        d.h2("Features")
        d.table(["feature", "frequency", "average win (x bet)", "sd of win", "expected spins", "RTP"],
                [[f.name, one_in_fig(f.frequency), fig_num(f.average_win), sd_text(f), fig_num(f.expected_spins),
                  fig_pct(f.rtp)] for f in m.features])
    for t in m.spins_played:
        d.h2(f"Spins played: {t.feature}")
        d.para(t.note)
        d.para(spins_summary(t))
        d.table(SPINS_HEAD, spins_rows(t.rows), widths=(3, 2.5, 2.5, 2.5))
        if t.p_retrigger:
            d.table(RETRIGGERS_HEAD, spins_rows(t.retriggers), widths=(3, 2.5, 2.5, 2.5))
    if m.line_wins:
        d.h2(("Ways wins" if ways else "Line wins") + " by symbol and count")
        if ways:
            d.para(WAYS_WINS_NOTE)
        d.table(["symbol", "count", "wild mult.", "pay", "hits", rate_head(ways, "probability (per line)"), "RTP"],
                [[w.symbol, w.count, w.multiplier, w.pay, num(w.hits), line_wins_rate(w, ways), pct(w.rtp)]
                 for w in m.line_wins])
    if m.scatter_counts:
        d.h2("Scatter symbols in view")
        d.table(["cells", "combinations", "probability"], [[k, num(n), one_in(p)] for k, n, p in m.scatter_counts])
    d.h2(f"Expected RTP range after N rounds ({ranges_label(m)})")
    d.para(m.ranges_note.replace("·", " "))
    levels = [lv for lv, _, _ in m.ranges[0].ranges]
    d.table(["rounds"] + [f"{lv}% range" for lv in levels], range_rows(m))
    d.png(plots.bands_png(m), w=150)
    d.h2("Win distribution")
    d.para(m.distribution.note)
    drows, dnote = distribution_rows(m.distribution, m.info.cost)
    if dnote:
        d.para(dnote)
    # a cell with its error or a range ("1 in A .. B") wraps between words, never inside a number
    wide = any(x in c for r in drows for c in r[1:] for x in ("±", "..", "[", "("))
    d.table(DISTRIBUTION_HEAD, drows, widths=_word_widths(DISTRIBUTION_HEAD, drows) if wide else (4, 2, 2, 2, 2))
    if any(b.low is not None for b in m.distribution.buckets):  # a chart of win intervals, not of one
        d.png(plots.distribution_png(m), w=150)                  # "feature rounds" row of probability 1
    d.h2("Exceedance ladder")
    d.para(m.exceedance_note)
    if m.exceedance is not None:
        head, rows = ladder_table(m.exceedance)
        d.table(head, rows, widths=(3, 2, 2.5, 3) if len(head) == 4 else (3, 2, 2.5, 2.5, 2.5))
        d.para(max_win_text(m.exceedance))
        if any(r.high > 0 for r in m.exceedance.rows):  # a log-log chart of the rows of P > 0 (none: no
            d.png(plots.exceedance_png(m), w=150)       # chart; the table says "never")
    _session(d, m)
    d.h2("Methods")
    d.table(["figure", "method"], [list(x) for x in m.methods], widths=(1, 3), align=("LEFT",) * 2)


def _session(d: _Doc, m: ModeSheet):
    sec = m.session
    if sec is None:
        return
    if not sec.refused and d.get_y() > 150:  # the note, table and plot together on one page
        d.add_page()
    d.h2("Sessions")
    if sec.refused:
        d.para(sec.refused)
        return
    d.para(sec.note.replace("<=", "at most").replace(">=", "at least"), size=7)
    d.ln(1)
    head, rows = session_rows(sec, SESSION_SHOWN)
    d.table(head, rows, widths=_word_widths(head, rows), size=6)
    d.png(plots.session_png(m), w=170)
    d.h2("Autoplay")
    d.para(sec.autoplay_note, size=7)
    if sec.autoplay is not None:
        d.ln(1)
        d.table(AUTOPLAY_HEAD, autoplay_rows(sec.autoplay), widths=(3, 2, 4), align=("LEFT", "LEFT", "RIGHT"))
        d.png(plots.autoplay_png(m), w=140)


def _appendix(d: _Doc, s: ParSheet):
    d.add_page()
    d.h1("Regulator appendix")
    d.para(f"Model file {s.model_file}\nSHA-256 {s.model_sha256}\nSolver analytic {s.solver_version}\n"
           + APPENDIX_NOTE)
    d.ln(2)
    long: list = []
    rows = []
    for a in s.appendix:
        t = exact_text(a.value)
        if len(t) > FRACTION_LIMIT:
            long.append((a, t))
            t = f"see A{len(long)} below"
        rows.append([a.mode, a.figure, t, a.value.label, a.method])
    d.table(["mode", "figure", "value", "label", "method"], rows,
            widths=(1.0, 2.9, 4.0, 0.9, 5.0), align=("LEFT",) * 5, size=6)
    if long:
        d.h2("Long exact values")
        d.para("Values longer than 40 characters, in full (a fraction as numerator / denominator; "
               "digits continue on the next line).")
        for k, (a, t) in enumerate(long, start=1):
            if d.get_y() > 265:
                d.add_page()
            d.set_font("Helvetica", "B", 7)
            d.multi_cell(0, 4, _t(f"A{k}. {a.mode}: {a.figure} ({a.value.label})"), new_x="LMARGIN", new_y="NEXT")
            d.set_font("Courier", "", 6.5)
            text = t.replace("/", "\n/ ", 1) if a.value.label == "exact" else t
            d.multi_cell(0, 3, _t(text), new_x="LMARGIN", new_y="NEXT")
            d.ln(1)


def write_pdf(sheet: ParSheet, path: str) -> None:
    """Write the PDF par sheet to ``path``."""
    d = _Doc(sheet)
    d.set_title(_t(f"{sheet.name} par sheet"))
    _title(d, sheet)
    _summary(d, sheet)
    _reels(d, sheet)
    _free_games(d, sheet)
    for m in sheet.modes:
        _mode(d, m, ways_game(sheet))
    _appendix(d, sheet)
    d.output(path)
