"""Markdown par sheet: deterministic text that diffs well (no timestamps).

Formats a :class:`~analytic.reports.model.ParSheet` only; see
:mod:`analytic.reports.model` for how each figure is obtained.
"""

from __future__ import annotations

import re

from analytic.reports.format import (APPENDIX_NOTE,
    extra_exact,
    extra_label,
    extra_tables,
    extra_text,
    FRACTION_LIMIT, ranges_label, range_rows, cost_text, free_game_note, rate_head, LINE_WINS_NOTE, WAYS_WINS_NOTE, line_wins_rate, pays_text, paytable_note, total_bet_text, ways_game, ladder_table, max_win_text, exact_text, feature_rows, retrigger_text, short_frac, fig_num, fig_pct, frac, line_grid, num, one_in, pct)
from analytic.reports.format import AUTOPLAY_HEAD, autoplay_rows, session_rows
from analytic.reports.format import RETRIGGERS_HEAD, SPINS_HEAD, sd_text, spins_rows, spins_summary
from analytic.reports.format import DISTRIBUTION_HEAD, distribution_rows, one_in_fig, prob_pct
from analytic.reports.model import SESSION_SHOWN, ModeSheet, ParSheet

__all__ = ["render_markdown", "write_markdown", "md_text", "md_code"]

_BREAKS = re.compile(r"\r\n|[\x00-\x1f\x7f\x85\u2028\u2029]")


def md_text(x) -> str:
    """Text from a model file, safe to place in Markdown: literal, on one line.

    Line breaks and other control characters become spaces (a name cannot
    start a heading or a new table row); ``\\`` `` ` `` ``*`` are
    backslash-escaped, ``&`` and ``<`` become entities (no HTML such as
    ``<script>``, no autolink), and ``](`` becomes ``]\\(`` (no inline link).

    Examples
    --------
    >>> md_text("<script>alert(1)</script>")
    '&lt;script>alert(1)&lt;/script>'
    >>> md_text("a\\n# b *c* [x](http://e)")
    'a # b \\\\*c\\\\* [x]\\\\(http://e)'
    """
    t = _BREAKS.sub(" ", str(x))
    for a, b in (("\\", "\\\\"), ("`", "\\`"), ("*", "\\*"), ("&", "&amp;"), ("<", "&lt;"), ("](", "]\\(")):
        t = t.replace(a, b)
    return t


def md_code(x) -> str:
    """Text from a model file as a Markdown code span, on one line (a longer fence if it holds backticks).

    Examples
    --------
    >>> md_code("base"), md_code("a`b")
    ('`base`', '`` a`b ``')
    """
    t = _BREAKS.sub(" ", str(x))
    if "`" not in t:
        return f"`{t}`"
    fence = "`" * (max(len(r) for r in re.findall(r"`+", t)) + 1)
    return f"{fence} {t} {fence}"


def _table(head: list[str], rows: list[list], align: str | None = None) -> list[str]:
    def cell(x) -> str:
        return md_text(x).replace("|", "\\|")

    align = align or "l" + "r" * (len(head) - 1)
    sep = ["---:" if a == "r" else "---" for a in align]
    out = ["| " + " | ".join(cell(h) for h in head) + " |", "| " + " | ".join(sep) + " |"]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return out + [""]


def _paylines(s: ParSheet) -> list[str]:
    out = ["### Paylines", "", "Row 0 on top; `#` marks the payline's cell on each reel.", "", "```"]
    per = 8
    for i in range(0, len(s.lines), per):
        chunk = list(enumerate(s.lines[i:i + per], start=i + 1))
        w = max(s.reels, 4)
        out.append("  ".join(f"{n:<{w}}" for n, _ in chunk).rstrip())
        grids = [line_grid(l, s.rows) for _, l in chunk]
        for r in range(s.rows):
            out.append("  ".join(f"{g[r]:<{w}}" for g in grids).rstrip())
        out.append("")
    out[-1] = "```"
    out.append("")
    return out


def _summary(s: ParSheet) -> list[str]:
    out = [f"# {md_text(s.name)} -- par sheet", "",
           f"Model {md_code(s.model_file)} (SHA-256 `{s.model_sha256}`), analytic {s.solver_version}.", "",
           "## Game", ""]
    rows = [["grid", f"{s.reels} reels x {s.rows} rows"], ["paylines", len(s.lines)],
            ["total bet", total_bet_text(s)]]
    if s.ways:
        rows[1] = ["pays", pays_text(s) + (f" ({len(s.lines)} paylines)" if s.lines else "")]
    rows += [[k, v] for k, v in s.meta]
    rows += [[f"win cap ({k})", v] for k, v in s.cap] or [["win cap", "none"]]
    rows += [["volatility index convention", s.volatility_convention]]
    out += _table(["item", "value"], rows, "ll")
    out += ["### Bet modes", ""]
    out += _table(["mode", "cost (x total bet)", "plays", "description"],
                  [[m.name, cost_text(m.cost), f"reel set {m.reel_set}" if m.kind == "spin"
                    else f"buys {m.buys} (counts {', '.join(f'{n}: {w}' for n, w in m.buy_counts)})",
                    m.description] for m in s.modes_info], "lrll")
    if s.lines:
        out += _paylines(s)
    if s.features:
        out += ["### Features", "", "Every feature's declared parameters (as the model file declares them, "
                "validated), and the engine that solves it.", ""]
        out += _table(["feature", "parameter", "value"], feature_rows(s), "lll")
    out += ["### Rules as modelled", ""]
    if s.rules:
        out += _table(["rule", "value", "default", "meaning"],
                      [[r.name, r.value, r.default, r.doc] for r in s.rules], "llll")
    else:
        out += ["No rule switches apply to this game.", ""]
    out += ["### Design reasons", ""]
    if s.design:
        out += _table(["key", "reason"], [list(d) for d in s.design], "ll")
    else:
        out += ["None recorded.", ""]
    return out


def _reels(s: ParSheet) -> list[str]:
    out = ["## Paytable", "", paytable_note(s), ""]
    counts = sorted({n for p in s.paytable for n, _ in p.pays})
    out += _table(["symbol", "role"] + [f"{n} of a kind" for n in counts],
                  [[p.symbol, p.role_text] + [dict(p.pays).get(n, "") for n in counts] for p in s.paytable],
                  "ll" + "r" * len(counts))
    if s.scatter_pays:
        out += [f"Scatter pays ({', '.join(s.scatter_symbols)} anywhere), in total-bet multiples:", ""]
        out += _table(["count", "pay"], [[n, frac(p)] for n, p in s.scatter_pays])
    if s.line_triggers:
        out += _table(["bonus symbol", "count on a line", "starts"], [list(t) for t in s.line_triggers], "lrl")
    out += ["## Reel strips", ""]
    for rs in s.reel_sets:
        out += [f"### Reel set {md_code(rs.name)} (cycle {num(rs.cycle)})", ""]
        n = len(rs.strips)
        out += _table(["symbol"] + [f"reel {i + 1}" for i in range(n)] + ["total"],
                      [[sym] + list(per) + [tot] for sym, per, tot in rs.counts]
                      + [["length"] + [len(st) for st in rs.strips] + [sum(len(st) for st in rs.strips)]])
        longest = max(len(st) for st in rs.strips)
        out += _table(["stop"] + [f"reel {i + 1}" for i in range(n)],
                      [[k] + [st[k] if k < len(st) else "" for st in rs.strips] for k in range(longest)],
                      "r" + "l" * n)
    if s.free_games:
        out += ["## Free games", "", md_text(free_game_note(s)), ""]
        ways = ways_game(s)
        for g in s.free_games:
            out += [f"### Feature {md_code(g.feature)}: reel set {md_code(g.reel_set)} (cycle {num(g.cycle)})", ""]
            if retrigger_text(g):
                out += [md_text(retrigger_text(g)), ""]
            out += _table(["symbol", "count", "wild mult.", "pay", "hits", rate_head(ways, "probability"),
                           "return (x total bet)"],
                          [[w.symbol, w.count, w.multiplier, w.pay, num(w.hits), line_wins_rate(w, ways),
                            num(w.rtp, 6)] for w in g.line_wins]
                          + [["total", "", "", "", "", "", num(sum(w.rtp for w in g.line_wins), 6)]], "lrrrrrr")
    return out


def _mode(m: ModeSheet, ways: bool = False) -> list[str]:
    i = m.info
    out = [f"## Bet mode {md_code(i.name)}", "",
           f"Cost {frac(i.cost)} x total bet; "
           + (f"base reel set {md_code(m.reel_set)}, cycle {num(m.cycle)} stop combinations." if m.cycle
              else f"buys feature {md_code(i.buys)}."), ""]
    rows = [["RTP", fig_pct(m.rtp), exact_text(m.rtp, FRACTION_LIMIT)],
            ["hit frequency", f"{prob_pct(m.hit_frequency)} ({one_in_fig(m.hit_frequency)})",
             exact_text(m.hit_frequency, FRACTION_LIMIT)],
            ["standard deviation (per unit staked)", sd_text(m), ""],
            ["variance (per unit staked)", fig_num(m.variance), exact_text(m.variance, FRACTION_LIMIT)]]
    rows += [[f"volatility index {c}%", sd_text(m, v), ""] for c, v in m.volatility]
    if m.top_win is not None:
        rows.append([m.top_note, f"{num(m.top_win)} x total bet, {one_in(m.top_probability)}",
                     short_frac(m.top_probability)])
    if m.cap_probability is not None:
        rows.append(["probability of reaching the win cap", one_in(m.cap_probability), short_frac(m.cap_probability)])
    rows += [[extra_label(k, m.extra), extra_text(v), extra_exact(v)] for k, v in m.extra]
    out += _table(["figure", "value", "exact"], rows, "lrl")
    for title, head, trows in extra_tables(m.extra):
        out += [f"### {title.capitalize()}", ""]
        out += _table(head, trows)
    out += ["### RTP split", ""]
    out += _table(["component", "RTP", "exact"], [[n, fig_pct(f), exact_text(f, FRACTION_LIMIT)] for n, f in m.components]
                  + [["total", fig_pct(m.rtp), exact_text(m.rtp, FRACTION_LIMIT)]])
    if m.line_wins:
        out += ["### " + ("Ways wins" if ways else "Line wins") + " by symbol and count", "",
                WAYS_WINS_NOTE if ways else LINE_WINS_NOTE, ""]
        out += _table(["symbol", "count", "wild mult.", "pay", "hits", rate_head(ways, "probability"), "RTP"],
                      [[w.symbol, w.count, w.multiplier, w.pay, num(w.hits), line_wins_rate(w, ways), pct(w.rtp)]
                       for w in m.line_wins], "lrrrrrr")
    if m.scatter_counts:
        out += ["### Scatter symbols in view", ""]
        out += _table(["cells", "combinations", "probability"],
                      [[k, num(n), one_in(p)] for k, n, p in m.scatter_counts])
    if m.features:
        out += ["### Features", ""]
        out += _table(["feature", "frequency", "average win (x bet)", "sd of win", "expected spins", "RTP"],
                      [[f.name, one_in_fig(f.frequency), fig_num(f.average_win), sd_text(f), fig_num(f.expected_spins),
                        fig_pct(f.rtp)] for f in m.features])
    for t in m.spins_played:
        out += [f"### Spins played: {md_text(t.feature)}", "", md_text(t.note), "", md_text(spins_summary(t)), ""]
        out += _table(SPINS_HEAD, spins_rows(t.rows), "lrrr")
        if t.p_retrigger:
            out += _table(RETRIGGERS_HEAD, spins_rows(t.retriggers), "lrrr")
    out += [f"### Expected RTP range ({ranges_label(m)})", "", md_text(m.ranges_note), ""]
    levels = [lv for lv, _, _ in m.ranges[0].ranges]
    out += _table(["rounds"] + [f"{lv}% range" for lv in levels], range_rows(m))
    d = m.distribution
    drows, dnote = distribution_rows(d, i.cost)
    out += ["### Win distribution", "", md_text(d.note), ""] + ([md_text(dnote), ""] if dnote else [])
    out += _table(DISTRIBUTION_HEAD, drows)
    out += ["### Exceedance ladder", "", md_text(m.exceedance_note), ""]
    if m.exceedance is not None:
        head, rows = ladder_table(m.exceedance)
        out += _table(head, rows, "lrrr" + "r" * (len(head) - 4))
        out += [md_text(max_win_text(m.exceedance)), ""]
    out += _session(m)
    out += ["### Methods", ""]
    out += _table(["figure", "method"], [list(x) for x in m.methods], "ll")
    return out


def _session(m: ModeSheet) -> list[str]:
    sec = m.session
    if sec is None:
        return []
    out = ["### Sessions", ""]
    if sec.refused:
        return out + [md_text(sec.refused), ""]
    out += [md_text(sec.note), ""]
    head, rows = session_rows(sec, SESSION_SHOWN)
    out += _table(head, rows)
    out += ["#### Autoplay", "", md_text(sec.autoplay_note), ""]
    if sec.autoplay is not None:
        out += _table(AUTOPLAY_HEAD, autoplay_rows(sec.autoplay), "llr")
    return out


def _appendix(s: ParSheet) -> list[str]:
    out = ["## Regulator appendix", "",
           f"- model file: {md_code(s.model_file)}", f"- SHA-256: `{s.model_sha256}`",
           f"- solver: analytic {s.solver_version}", "",
           APPENDIX_NOTE, ""]
    out += _table(["mode", "figure", "value", "label", "method"],
                  [[a.mode, a.figure, exact_text(a.value), a.value.label, a.method] for a in s.appendix], "lllll")
    return out


def render_markdown(sheet: ParSheet) -> str:
    """The Markdown par sheet as text."""
    lines = _summary(sheet) + _reels(sheet)
    for m in sheet.modes:
        lines += _mode(m, ways_game(sheet))
    lines += _appendix(sheet)
    return "\n".join(lines).rstrip() + "\n"


def write_markdown(sheet: ParSheet, path: str) -> None:
    """Write :func:`render_markdown` to ``path`` (UTF-8, LF)."""
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(render_markdown(sheet))
