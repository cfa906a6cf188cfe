"""Shared number formatting of the renderers (text only, no figures computed).

Every renderer formats the same :class:`~analytic.reports.model.ParSheet`
values the same way: percentages with 4 decimals, probabilities also as
"1 in N", exact values as ``p/q``, bounded values with their certified error.
"""

from __future__ import annotations

import math
from fractions import Fraction

from analytic.figures import (
    VALUE_DIGITS,
    Figure,
    exact_format,
    fraction_text,
    int_text,
    bound_text,
    round_decimals,
    round_outward,
    shown,
)
from analytic.solver.round import extra_unit

__all__ = ["APPENDIX_NOTE", "frac", "cost_text", "pct", "num", "one_in", "one_in_fig", "fig_pct", "prob_pct", "fig_num", "exact_text", "decimal_text", "rounds_text", "line_grid",
           "extra_label", "extra_text", "extra_exact", "extra_tables", "currency_cap_rows", "CURRENCY_CAP_HEAD", "feature_rows", "range_cells", "short_frac", "FRACTION_LIMIT", "FREE_GAME_NOTE",
           "LINE_WINS_NOTE", "WAYS_WINS_NOTE", "FREE_GAME_WAYS_NOTE", "free_game_note", "rate_head", "line_wins_rate", "total_bet_text", "ways_game",
           "SPINS_HEAD", "RETRIGGERS_HEAD", "spins_rows", "spins_summary",
           "retrigger_text", "session_rows", "autoplay_rows", "SESSION_HEAD", "AUTOPLAY_HEAD", "quantile_text",
           "prob_text", "prob_bracket", "covers", "ranges_label", "range_rows", "range_exactness", "distribution_rows", "DISTRIBUTION_HEAD", "DISTRIBUTION_BOUNDED_NOTE",
           "ladder_table", "max_win_text", "bound_text", "pct_bound", "centre_text", "sd_text"]


#: Exact fractions longer than this many characters are printed only in the appendix and the JSON.
FRACTION_LIMIT = 40


def short_frac(v, limit: int = FRACTION_LIMIT, where: str = "(fraction in the appendix)") -> str:
    """``p/q`` of ``v`` when at most ``limit`` characters, else ``where``."""
    t = frac(v)
    return t if len(t) <= limit else where


def frac(v) -> str:
    """``p/q`` (or ``p``) of a Fraction or Figure."""
    if isinstance(v, Figure):
        v = v.value
    v = Fraction(v)
    return int_text(v.numerator) if v.denominator == 1 else fraction_text(v)


def cost_text(v) -> str:
    """A price (a bet mode's cost, total-bet multiples) as the model writes it: a decimal of at most
    12 places exactly (``"42.4"`` for 212/5), else ``p/q``; an integer as itself."""
    v = Fraction(v.value if isinstance(v, Figure) else v)
    k = max(_exponent(v.denominator, 2), _exponent(v.denominator, 5))  # 10^k / denominator is whole ...
    if v.denominator == 1 or k > 12 or 10**k % v.denominator:  # ... unless another prime divides it
        return frac(v)
    n = v.numerator * 10**k // v.denominator  # exact
    sign, n = ("-" if n < 0 else ""), abs(n)
    return f"{sign}{n // 10**k}.{n % 10**k:0{k}d}"


def _exponent(n: int, p: int) -> int:
    e = 0
    while n % p == 0:
        n //= p
        e += 1
    return e


def _exact(x):
    """``x`` as an exact Fraction when it is one (a Fraction, an int or a Figure's value), else None
    (a float: printed as a float, as before)."""
    if isinstance(x, Figure):
        x = x.value
    if isinstance(x, (Fraction, int)) and not isinstance(x, bool):
        return Fraction(x)
    return None


def pct(x, digits: int = 4) -> str:
    """``x`` as a percentage, e.g. ``0.951 -> '95.1000%'``; an exact ``x`` from its exact digits
    (:func:`~analytic.figures.exact_format`: no float, whatever its size)."""
    v = _exact(x)
    if v is not None:
        return exact_format(v * 100, f".{digits}f") + "%"
    return f"{float(x) * 100:.{digits}f}%"


def num(x, digits: int = 4) -> str:
    """A plain number: integers as is, others with ``digits`` significant decimals (an exact ``x``
    from its exact digits, :func:`~analytic.figures.exact_format`)."""
    if isinstance(x, (int,)) or (isinstance(x, Fraction) and x.denominator == 1):
        return f"{int(x):,}"
    v = _exact(x)
    if v is not None:
        if v != 0 and (abs(v) >= 10**7 or abs(v) < Fraction(1, 10**4)):
            return exact_format(v, f".{digits}e")
        return exact_format(v, f",.{digits}f")
    x = float(x)
    if math.isinf(x):
        return "never"
    if x != 0 and (abs(x) >= 1e7 or abs(x) < 1e-4):
        return f"{x:.{digits}e}"
    return f"{x:,.{digits}f}"


def one_in(p) -> str:
    """``'1 in N'`` of a probability (``'never'`` for 0); of an exact one ``N = 1 / p`` exactly
    (:func:`~analytic.figures.exact_format`: a probability below a float's range is not 'never')."""
    v = _exact(p)
    if v is not None:
        if v <= 0:
            return "never"
        n = 1 / v
        return f"1 in {exact_format(n, ',.2f')}" if n < 10**7 else f"1 in {exact_format(n, '.4e')}"
    p = float(p.value if isinstance(p, Figure) else p)
    if p <= 0:
        return "never"
    n = 1 / p
    return f"1 in {n:,.2f}" if n < 1e7 else f"1 in {n:.4e}"


def one_in_fig(f: Figure) -> str:
    """``'1 in N'`` of a probability Figure: of an exact one :func:`one_in`; of a bounded one the
    same text where it is within half a unit of its last digit of ``1 / p`` for every ``p`` in the
    certified interval (so it reads as a rounded figure should), else the certified range ``1 in A ..
    B`` (:func:`_one_in_range`, each end rounded outward)."""
    if f.label == "exact" or not f.error:
        return one_in(f)
    lo, hi = max(f.value - f.error, Fraction(0)), min(f.value + f.error, Fraction(1))
    t = one_in(f)
    if lo > 0 and t != "never" and covers(t, 1 / hi, 1 / lo, Fraction(1, 2)):
        return t
    return _one_in_range(lo, hi)


def _decimal(x: Fraction, d: int, sep: bool = True) -> str:
    """Exact text of ``x``, a multiple of ``10^-d``, with ``d`` decimals (thousands separators).

    Every digit of ``x``, however many (:func:`~analytic.figures.exact_format`; ``Decimal.scaleb``
    rounded to the context's 28 significant digits, so a longer ``x`` lost its last ones)."""
    n = x * 10 ** d
    if n.denominator != 1:
        raise ValueError(f"_decimal: {x} is not a multiple of 10^-{d}")
    return exact_format(x, f"{',' if sep else ''}.{d}f")


def centre_text(c: Fraction, d: int, sep: bool = True) -> str:
    """A printed centre (a multiple of ``10^-d``), exactly: fixed, or in scientific notation where
    :func:`num` would use it (below 1e-4 or from 1e7), with every digit it has."""
    if c == 0:
        return "0"
    if abs(c) >= 10 ** 7 or abs(c) < Fraction(1, 10 ** 4):
        # every digit of c, from its exact decimal (a float has only 17 significant digits: printed
        # to more it shows its binary expansion, not c); the exponent as a float prints it (e+07)
        from decimal import Context, Decimal

        n = c * 10 ** d
        if n.denominator != 1:
            raise ValueError(f"centre_text: {c} is not a multiple of 10^-{d}")
        k = max(_decade(abs(c)) + d, 0)
        m, x = format(Decimal(int(n)).scaleb(-d, Context(prec=len(str(abs(int(n)))) + 1)), f".{k}e").split("e")
        return f"{m}e{int(x):+03d}"
    return _decimal(c, d, sep)


def _decade(x: Fraction) -> int:
    from analytic.figures import _decade as dec

    return dec(Fraction(x))


def _err_text(e: Fraction) -> str:
    """A printed error (at most two significant digits, already rounded up: :func:`shown`)."""
    return exact_format(e, ".2g")  # (its digits exactly: a float is 0 below 1e-308)


def _pm_pct(f: Figure, digits: int) -> str:
    """``x% ± e%`` of a bounded Figure (:func:`~analytic.figures.shown`); ``x%`` of an exact one."""
    if f.label == "exact":
        return pct(f.value, digits)
    c, e, d = shown(f, digits, 100)
    return f"{_decimal(c, d, sep=False)}% ± {_err_text(e)}%"


def fig_pct(f: Figure, digits: int = 4) -> str:
    """A Figure as a percentage, with its certified error when bounded.

    A bounded figure prints its centre to at least ``digits`` decimals and to
    its error's second significant digit, the error rounded up to cover that
    rounding (:func:`~analytic.figures.shown`): the printed interval contains
    the certified one.
    """
    return _pm_pct(f, digits) + ("" if f.label == "exact" else " (bounded)")


def prob_pct(f: Figure, digits: int = 4) -> str:
    """A probability Figure as :func:`fig_pct` prints it; a bounded one whose printed ``centre ±
    error`` would reach below 0 % or above 100 % as its certified interval cut to [0 %, 100 %]
    (``[a%, b%] (bounded)``, each end rounded outward to ``digits`` decimals)."""
    if f.label != "exact":
        c, e, _ = shown(f, digits, 100)
        if c - e < 0 or c + e > 100:
            lo, hi = max(f.value - f.error, Fraction(0)), min(f.value + f.error, Fraction(1))
            return f"[{_pct_out(lo, False, digits)}, {_pct_out(hi, True, digits)}] (bounded)"
    return fig_pct(f, digits)


def fig_num(f: Figure, digits: int = 4) -> str:
    """A Figure as a number, with its certified error when bounded (printed as :func:`fig_pct` does)."""
    if f.label == "exact":
        return num(f.value, digits)
    c, e, d = shown(f, digits)
    return f"{centre_text(c, d)} ± {_err_text(e)} (bounded)"


APPENDIX_NOTE = ("Each headline figure exactly (a fraction), or its centre with the certified error bound: the "
                 "centre rounded to about a thousandth of the bound, the bound widened to cover the rounding "
                 "(the computed centre's last digits depend on the machine).")


def decimal_text(v: Fraction, digits: int = 20) -> str:
    """``v`` to ``digits`` significant digits (exact rounding of the fraction)."""
    from decimal import Context, Decimal

    ctx = Context(prec=digits)
    return str(ctx.divide(Decimal(v.numerator), Decimal(v.denominator)))


def exact_text(f: Figure, limit: int | None = None) -> str:
    """``p/q`` of an exact Figure; ``centre ± error (bounded)`` otherwise.

    A bounded figure is shown as published (:meth:`Figure.published`: the
    centre rounded outwards to about a thousandth of its error, the error
    widened to cover it), so its digits are those the certificate supports
    and do not depend on the machine.  With ``limit`` (a table cell), an
    exact fraction longer than ``limit`` characters is referred to the
    appendix and a bounded centre is shown to 12 digits.
    """
    f = f.published()
    if f.label == "exact":
        t = frac(f.value)
        return t if limit is None or len(t) <= limit else "(fraction in the appendix)"
    # the published centre has at most VALUE_DIGITS significant digits: printed exactly; the error
    # rounded up (to two significant digits in a table cell, three in the appendix)
    if limit is not None:
        return f"{decimal_text(f.value, VALUE_DIGITS)} ± {bound_text(f.error, digits=2)}"
    return f"{decimal_text(f.value)} ± {bound_text(f.error)} (bounded)"


def rounds_text(n: float) -> str:
    """``10^k`` for powers of ten, else the integer."""
    k = math.log10(n)
    return f"10^{round(k)}" if abs(k - round(k)) < 1e-9 else f"{n:,.0f}"


def line_grid(line, rows: int, on: str = "#", off: str = ".") -> list[str]:
    """Text drawing of one payline: ``rows`` strings, one char per reel."""
    return ["".join(on if r == row else off for r in line) for row in range(rows)]


def extra_label(key: str, extra=None) -> str:
    """The row label of a mechanic-specific figure (``RoundResult.extra[key]``) in every par sheet:
    ``"solver: <key>"``, the key as in the JSON, with its unit where the solver states one
    (:data:`analytic.solver.round.EXTRA_SHORT_UNITS`, the short form of the units ``analytic solve``
    prints, :data:`~analytic.solver.round.EXTRA_UNITS`), e.g. ``"solver: max_win (x total bet, before
    the cap)"``: a maximum win of 5000 reads as 5000 total bets, not line bets.

    Parameters
    ----------
    key : str
        The figure's key in ``RoundResult.extra`` (and in the JSON par sheet's ``extra``).
    extra : sequence of (key, value), optional
        All the mode's extras (``ModeSheet.extra``).  Where none of them is a capped figure (no cap
        applied to the round: none declared, or rule ``published_max_win = "theoretical"``), the unit
        drops its "before the cap" (``max_win`` of a game without a cap: "x total bet"; the sheet's
        win cap row says "none").  None: the unit as stated.

    Returns
    -------
    str
        The label; a key with no stated unit (a text, a table, an RTP: a fraction of the stake)
        as ``"solver: <key>"``.
    """
    unit = extra_unit(key, None if extra is None else [k for k, _ in extra], short=True)
    return f"solver: {key}" + (f" ({unit})" if unit else "")


def extra_text(v) -> str:
    """A mechanic-specific figure (``RoundResult.extra``) as short text."""
    if isinstance(v, Figure):
        if v.label == "exact":
            return f"{num(v.value, 10)} (exact)"
        c, e, d = shown(v, 10)
        return f"{centre_text(c, d)} ({v.label}) ± {_err_text(e)}"
    if isinstance(v, Fraction):
        return num(v, 10)
    if isinstance(v, dict):
        return f"({len(v)} entries; see the JSON par sheet)"
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, dict) for x in v):
        return f"(table of {len(v)} rows below)"
    if isinstance(v, bool):
        return "yes" if v else "no"
    t = str(v)
    return t if len(t) <= 300 else t[:297] + "..."


def extra_exact(v, limit: int = FRACTION_LIMIT) -> str:
    """The exact column for an extra: ``p/q`` when short, else a reference."""
    if isinstance(v, Figure) and v.label != "exact":
        return exact_text(v)
    if isinstance(v, (Figure, Fraction)):
        t = frac(v)
        return t if len(t) <= limit else "(fraction in the JSON par sheet)"
    return ""


#: Columns of an extras table holding a certified bound (:func:`extra_tables` rounds them outward).
BOUND_COLUMNS = {"lower": False, "upper": True}


def _extra_cell(h: str, x) -> str:
    if not isinstance(x, (Fraction, int)) or isinstance(x, bool):
        return extra_text(x)
    if h in BOUND_COLUMNS and Fraction(x).denominator != 1:  # a bound stays a bound: outward, not to nearest
        return _decimal(round_decimals(Fraction(x), 8, BOUND_COLUMNS[h]), 8)
    return num(x, 8)


def extra_tables(extra) -> list[tuple[str, list[str], list[list[str]]]]:
    """Tables of the extras that are lists of records (e.g. the RTP at each
    stake of a currency cap): ``[(title, header, rows)]``, cells as text.

    Numbers to 8 decimals; a ``lower`` / ``upper`` column (:data:`BOUND_COLUMNS`, a certified
    bracket of the row's figure) rounded outward, so the printed ends still bound it."""
    out = []
    for k, v in extra:
        if isinstance(v, (list, tuple)) and v and all(isinstance(x, dict) for x in v):
            head = list(dict.fromkeys(h for r in v for h in r))  # every row's columns, in order of first use
            rows = [["-" if h not in r else _extra_cell(h, r[h]) for h in head] for r in v]
            out.append((k.replace("_", " "), head, rows))
    return out


#: Header of :func:`currency_cap_rows`.
CURRENCY_CAP_HEAD = ["stake", "cap (x total bet)", "cap can bind", "capped RTP", "P(reach cap)", "label"]


def currency_cap_rows(rows) -> list[list[str]]:
    """The currency-cap table in short cells (a page-width table: the RTP as a percentage with 8
    decimals, the certified half-width after it; the probability as '1 in N'; one label column).

    Parameters
    ----------
    rows : list of dict
        ``extra["currency_cap"]`` of a round result (``stake``, ``cap_multiple``, ``binds``,
        ``capped_rtp``, optional ``p_reach_cap``).
    """
    out = []
    for r in rows:
        f, p = r["capped_rtp"], r.get("p_reach_cap")
        rtp = _pm_pct(f, 8)
        if p is None:
            reach = "-"
        elif p.label == "exact":
            reach = one_in(p)
        else:  # the certified interval of the probability, as "1 in A .. B" rounded outward
            p = p.published()
            reach = _one_in_range(max(p.value - p.error, Fraction(0)), min(p.value + p.error, Fraction(1)))
        labels = sorted({f.label} | ({p.label} if p is not None else set()))
        out.append([num(r["stake"], 2), num(r["cap_multiple"], 2), {True: "yes", False: "no"}.get(r.get("binds"), "-"), rtp, reach,
                    ", ".join(labels)])
    return out


def feature_rows(sheet) -> list[list[str]]:
    """Rows ``[feature, parameter, value]`` of the features section: kind and engine, then each
    declared parameter (:attr:`analytic.reports.model.FeatureInfo.parameters`); the feature's name
    only on its first row."""
    out = []
    for f in sheet.features:
        rows = [("kind / engine", f"{f.kind} / {f.engine}"), *f.parameters]
        for i, (k, v) in enumerate(rows):
            out.append([f.name if i == 0 else "", k, v])
    return out


def range_cells(r) -> list[str]:
    """The ``low .. high`` texts of a :class:`~analytic.reports.model.RangeRow`, one per level; a low
    end truncated at 0 (the normal approximation went below a return of 0) is marked ``*``.  A
    certified level's ``low`` is its lower quantile's certified lower bound rounded down to 0.01 %,
    ``high`` its upper quantile's certified upper bound rounded up: the printed range contains the
    true central range.  In a row certified at some levels only (``partly certified``), each
    approximate level's cell ends with " (approximate)"."""
    qs = {q[0]: q for q in r.quantiles}
    out = []
    for lv, lo, hi in r.ranges:
        if lv in qs:  # certified: from the lower quantile's lower bound to the upper quantile's upper
            # bound, each rounded outward: a range holding the central range whatever the quantiles are
            # within their certified intervals (model.CERTIFIED_RANGE_NOTE; both intervals in the JSON, XLSX)
            _, a, _, _, e = qs[lv]
            out.append(f"{_pct_out(a, False)} .. {_pct_out(e, True)}")
        else:
            out.append(f"{pct(lo, 2)}{'*' if lv in r.truncated else ''} .. {pct(hi, 2)}"
                       + (" (approximate)" if qs else ""))
    return out


def _partly(r) -> bool:
    """Whether a :class:`~analytic.reports.model.RangeRow` is certified at some levels only."""
    return bool(r.quantiles) and len(r.quantiles) < len(r.ranges)


def range_exactness(r, truncated: bool = False) -> str:
    """The exactness of a :class:`~analytic.reports.model.RangeRow` as one text: its label, or for a
    row certified at some levels only each level's, e.g. "90% certified, 95% approximate".

    ``truncated``: also name the approximate levels whose low end was truncated at 0 ("; 95% low end
    truncated at 0"), for a table with no column of its own for them (the XLSX's certified layout;
    the Markdown and PDF mark such a low end ``*``)."""
    text = r.label if not _partly(r) else ", ".join(f"{lv}% {r.level_label(lv)}" for lv, _, _ in r.ranges)
    if truncated and r.truncated:
        text += "; " + ", ".join(f"{lv}%" for lv in r.truncated) + " low end truncated at 0"
    return text


def ranges_label(m) -> str:
    """The exactness of a mode sheet's expected-RTP-range table (``m.ranges``, :class:`~analytic.reports.model.RangeRow`
    each): "certified", "approximate", or, where only the first rows are certified (the N-round law's
    certified error grows with N), "certified to 10^k rounds, approximate beyond"; certified rows that
    are not the first ones, "certified except the rows marked (approximate)" (:func:`range_rows`); a
    row certified at some levels only (its approximate ranges marked by :func:`range_cells`),
    "certified except the ranges marked (approximate)", or "the rows and ranges" where there are
    approximate rows too."""
    if any(_partly(r) for r in m.ranges):
        return ("certified except the rows and ranges marked (approximate)"
                if any(r.label == "approximate" for r in m.ranges) else "certified except the ranges marked (approximate)")
    labels = [r.label for r in m.ranges]
    if len(set(labels)) == 1:
        return labels[0]
    k = 0  # the certified rows first: how many
    while k < len(labels) and labels[k] == "certified":
        k += 1
    if k == 0 or "certified" in labels[k:]:
        return "certified except the rows marked (approximate)"
    return f"certified to {rounds_text(m.ranges[k - 1].rounds)} rounds, approximate beyond"


def range_rows(m) -> list[list[str]]:
    """Text rows of the expected-RTP-range table: the rounds (an approximate row of a table with
    certified rows marked "(approximate)") and :func:`range_cells` (an approximate range of a row
    certified at its other levels marked there)."""
    mixed = len({r.label for r in m.ranges}) > 1
    return [[rounds_text(r.rounds) + (" (approximate)" if mixed and r.label == "approximate" else "")]
            + range_cells(r) for r in m.ranges]


#: Header of the win-distribution table (:func:`distribution_rows`).
DISTRIBUTION_HEAD = ["win (x total bet)", "probability", "1 in", "RTP", "share of RTP"]

#: The sentence under a win-distribution table with a bounded cell (:func:`distribution_rows`).
DISTRIBUTION_BOUNDED_NOTE = (
    "Bounded figures: a figure printed without ± is within one unit of its last printed digit of the "
    "true value (its rounding plus its certified error, checked cell by cell); one whose error is "
    "larger is printed as centre ± error, or as its certified range. The certified errors are in the "
    "JSON and XLSX par sheets.")
_APPROXIMATE_SHARE_NOTE = (" A share marked (approximate) is not certified: the mode's RTP is not "
                           "certified away from 0.")


def _printed(text: str) -> tuple[Fraction, Fraction]:
    """``(x, u)`` of a printed number (``num``, ``pct``, ``one_in`` text): its exact value and one
    unit of its last printed digit (0 for an integer, which reads as exact)."""
    t = text.replace("1 in ", "").replace("%", "").replace(",", "")
    m, _, k = t.partition("e")
    dec = len(m.partition(".")[2])
    u = Fraction(0) if "." not in m else Fraction(10) ** (int(k or 0) - dec)
    return Fraction(t), u


def covers(text: str, lo, hi, units=Fraction(1)) -> bool:
    """Whether a printed figure stands for every value of a certified interval.

    Parameters
    ----------
    text : str
        A number as :func:`num`, :func:`pct` or :func:`one_in` print it (``"1 in "``, ``%``
        and thousands separators allowed).
    lo, hi : Fraction
        The certified interval, in the unit of the text (percent for a percentage).
    units : Fraction
        Tolerance in units of the text's last printed digit: 1, or 1/2 (a rounded figure's reading).

    Returns
    -------
    bool
        ``x - units u <= lo`` and ``hi <= x + units u``, exactly (``x`` the printed value, ``u`` one
        unit of its last digit; an integer text has ``u = 0``).
    """
    x, u = _printed(text)
    return x - units * u <= lo and hi <= x + units * u


def distribution_rows(table, cost) -> tuple[list[list[str]], str]:
    """Text rows of a win-distribution table (:data:`DISTRIBUTION_HEAD`) and the sentence to print
    under it ("" when every figure is exact).

    Each row's certified errors ``(probability, RTP, share)`` are
    :func:`~analytic.reports.model.row_errors`' (the JSON's and the XLSX's).  An exact figure is
    printed as before (probability to 6 decimals, "1 in N", RTP to 4 decimals of a percentage,
    share to 2).  A bounded one is printed the same way when that text is within one unit of its
    last digit of its whole certified interval (:data:`DISTRIBUTION_BOUNDED_NOTE`, which says so),
    else as centre ± error (:func:`prob_text`, :func:`fig_pct`'s form; a probability interval cut
    to [0, 1]) and its "1 in" as the certified range (``1 in A .. B``).  A share that cannot be
    certified is marked ``(approximate)``.

    Parameters
    ----------
    table : DistributionTable
    cost : Fraction
        The mode's cost (total bets), for :func:`~analytic.reports.model.row_errors`.

    Returns
    -------
    (list of list of str, str)
    """
    from analytic.reports.model import row_errors

    rows, bounded, approx = [], False, False
    for b, (pe, ea, se) in zip(table.buckets, row_errors(table, cost)):
        p, r, sh = Fraction(b.probability), Fraction(b.rtp), Fraction(b.share)
        cells = [num(p, 6), one_in(p), pct(r), pct(sh, 2)]
        if pe:
            lo, hi = max(p - pe, Fraction(0)), min(p + pe, Fraction(1))
            if not covers(cells[0], lo, hi):
                cells[0] = prob_text(Figure(p, "bounded", pe))
            if lo <= 0 or not covers(cells[1], 1 / hi, 1 / lo):
                cells[1] = _one_in_range(lo, hi)
        if ea and not covers(cells[2], (r - ea) * 100, (r + ea) * 100):
            cells[2] = _pm_pct(Figure(r, "bounded", ea), 4)
        if se is None:
            cells[3] += " (approximate)"
        elif se and not covers(cells[3], (sh - se) * 100, (sh + se) * 100):
            cells[3] = _pm_pct(Figure(sh, "bounded", se), 2)
        bounded = bounded or bool(pe or ea or se)
        approx = approx or se is None
        rows.append([b.label] + cells)
    note = (DISTRIBUTION_BOUNDED_NOTE if bounded else "") + (_APPROXIMATE_SHARE_NOTE if approx else "")
    return rows, note.strip()


def ways_game(s) -> bool:
    """Whether the sheet ``s`` is a ways game's (``ParSheet.ways`` "ways" or "ways, pays both ways";
    "paylines, pays both ways" is a payline game)."""
    return s.ways.startswith("ways")


def paytable_note(s) -> str:
    """The unit of sheet ``s``'s paytable: line pays in line-bet units, or a ways game's pays per way
    in pay units (docs/model-format.md, "Ways pays")."""
    if ways_game(s):
        return "Ways pays in pay units, per way (a spin costs the total bet in pay units)."
    return "Line pays in line-bet units."


def pays_text(s) -> str:
    """How sheet ``s``'s game pays, for the game table: ``"243 ways"`` (rows to the power of the
    reels; beyond 15 digits ``"3^40 ways"``), ``"paylines, pays both ways"``, ... ; empty for a
    one-way payline game (its paylines row says it)."""
    if not ways_game(s):
        return s.ways
    n = s.rows ** s.reels if s.reels * math.log10(max(s.rows, 1)) < 15 else None
    head = f"{n:,} ways" if n is not None else f"{s.rows}^{s.reels} ways"
    return head + s.ways[len("ways"):]


def total_bet_text(s) -> str:
    """The total bet of a regular spin with its unit: line bets, or a ways game's pay units (its
    paytable pays per way; docs/model-format.md, "Ways pays")."""
    return f"{s.total_bet} pay units (pays per way)" if ways_game(s) else f"{s.total_bet} line bets"


#: What a payline game's line-wins table counts.
LINE_WINS_NOTE = "Hits: (stop combination, payline) pairs over the cycle; probability per spin and line."
#: What a ways game's line-wins table counts (docs/model-format.md, "Ways pays"): its hits per stop
#: combination are the expected number of paying ways in a spin, which can exceed 1.
WAYS_WINS_NOTE = ("Hits: (stop combination, way, direction) triples over the cycle; 'ways per spin' is hits "
                  "per stop combination: the expected number of such paying ways in one spin (not a "
                  "probability: it can exceed 1).")


def rate_head(ways: bool, per_line: str) -> str:
    """The rate column's head of a line-wins table: ``per_line`` (the format's "probability" text)
    for a payline game, "ways per spin" for a ways game (:data:`WAYS_WINS_NOTE`)."""
    return "ways per spin" if ways else per_line


def line_wins_rate(w, ways: bool) -> str:
    """A line-wins row's rate: ``1 in N`` per spin and line, or a ways game's ways per spin."""
    return exact_format(w.probability, ".6g") if ways else one_in(w.probability)


#: What the free-game combination tables are.
FREE_GAME_NOTE = ("Line wins of one free spin on the feature's reel set by symbol and count, as the paytable "
                  "pays them, before the feature's own rules (expanding symbol, wild reels, multipliers, gifts): "
                  "hits are (stop combination, payline) pairs over the reel set's cycle; probability per free "
                  "spin and line; return per free spin in total-bet multiples. Exact.")

#: The same for a ways game: hits per way, their rate the expected paying ways per free spin.
FREE_GAME_WAYS_NOTE = ("Ways wins of one free spin on the feature's reel set by symbol and count, as the paytable "
                       "pays them, before the feature's own rules (multipliers): hits are (stop combination, way, "
                       "direction) triples over the reel set's cycle; 'ways per spin' is hits per stop combination "
                       "(the expected number of such paying ways in one free spin, not a probability); return per "
                       "free spin in total-bet multiples. Exact.")


def free_game_note(s) -> str:
    """The free-games section's note of sheet ``s`` (paylines or ways)."""
    return FREE_GAME_WAYS_NOTE if ways_game(s) else FREE_GAME_NOTE


#: Columns of a spins-played table and of its retriggers table.
SPINS_HEAD = ["spins played", "probability", "1 in", "cumulative"]
RETRIGGERS_HEAD = ["retriggers", "probability", "1 in", "cumulative"]


def spins_rows(rows) -> list[list[str]]:
    """Text rows of :class:`~analytic.reports.model.SpinsRow` s: label, probability, 1 in, cumulative."""
    def cum(c):  # "1 - 4.7e-07" where six decimals would round it to 1 (1 - 5e-7 too: a tie, half to even)
        return f"1 - {exact_format(1 - c, '.2e')}" if c < 1 and 1 - c <= Fraction(5, 10**7) else num(c, 6)
    return [[r.label, num(r.probability, 6), one_in(r.probability), cum(r.cumulative)] for r in rows]


def spins_summary(t) -> str:
    """The sentence under a :class:`~analytic.reports.model.SpinsPlayedTable`'s heading: expected spins
    and P(at least one retrigger), exact."""
    out = f"Expected spins played: {num(t.expected)} (exact: {short_frac(t.expected, where='fraction in the JSON')})."
    if t.p_retrigger:
        out += (f" P(at least one retrigger): {pct(t.p_retrigger)} ({one_in(t.p_retrigger)}), exact; "
                "a retrigger is a spin that awards spins.")
    else:
        out += " No spin awards spins."
    return out + (f" Method: {t.method}." if t.method else "")


def retrigger_text(g) -> str:
    """The retrigger sentence of a :class:`~analytic.reports.model.FreeGameSheet` ("" without retriggers:
    the features section says so)."""
    if g.retrigger_probability is None:
        return "" if g.retrigger_note == "no retriggers" else \
            f"Retrigger probability per free spin: {g.retrigger_note}."
    aw = "; ".join(f"+{a} spins {one_in(p)}" for a, p in g.retrigger_awards)
    return (f"Retrigger probability per free spin (exact): {one_in(g.retrigger_probability)} "
            f"({pct(g.retrigger_probability)}), {g.retrigger_note}; awards: {aw}.")


def _sqrt_out(lo, hi, digits: int = 4) -> tuple[Fraction, Fraction]:
    """``floor(sqrt(lo))`` and ``ceil(sqrt(hi))`` to ``digits`` decimals, exactly (integer square roots)."""
    from math import isqrt

    k = 10 ** (2 * digits)
    lo, hi = max(Fraction(lo), Fraction(0)) * k, max(Fraction(hi), Fraction(0)) * k
    a = isqrt(lo.numerator // lo.denominator)
    n = -((-hi.numerator) // hi.denominator)
    b = isqrt(n) + (isqrt(n) ** 2 < n)
    return Fraction(a, 10 ** digits), Fraction(b, 10 ** digits)


def sd_text(m, x=None) -> str:
    """The standard deviation (``x`` None) or a volatility index ``x = z * sd`` of a mode sheet ``m``
    (or of a feature row, :class:`~analytic.reports.model.FeatureRow`, its ``variance`` None or a Figure):
    :func:`num` of the value where the variance is exact; where it is bounded, the interval of the
    square roots of its certified ends (times ``z``), rounded outward to 4 decimals, as
    ``low .. high (bounded)`` (the centre's square root to 4 decimals would claim digits the
    variance's error does not support).

    ``z`` is ``x / m.sd`` (``x`` was computed as ``z * m.sd`` in floats, so within a relative
    ``2^-53`` of it); the interval is widened by ``2^-51`` relative to cover that.
    """
    iv = sd_interval(m, x)
    if iv is None:
        return num(m.sd if x is None else x)
    return f"{_decimal(iv[0], 4)} .. {_decimal(iv[1], 4)} (bounded)"


def sd_interval(m, x=None) -> tuple[Fraction, Fraction] | None:
    """The certified interval of :func:`sd_text` (4 decimals, outward), or None where the variance
    is exact (the value is then ``m.sd`` or ``x`` itself, a float of the exact variance)."""
    v = m.variance
    if v is None or v.label == "exact" or not v.error or (x is not None and not m.sd):
        return None
    z2 = Fraction(1) if x is None else (Fraction(x) / Fraction(m.sd)) ** 2
    w = Fraction(1, 2 ** 51) if x is not None else Fraction(0)
    return _sqrt_out(z2 * (1 - w) ** 2 * (v.value - v.error), z2 * (1 + w) ** 2 * (v.value + v.error))


def pct_bound(x, up: bool, digits: int = 2) -> str:
    """A certified bound ``x`` (a fraction of 1) as a percentage number with ``digits`` decimals,
    rounded outward (up for an upper bound); no ``%`` sign."""
    return _decimal(round_decimals(Fraction(x) * 100, digits, up), digits, sep=False)


def _pct_out(x, up: bool, digits: int = 2) -> str:
    return pct_bound(x, up, digits) + "%"


def _num_out(x, up: bool, digits: int = 2) -> str:
    """A certified bound as :func:`num` prints it (an integer as is, else ``digits`` decimals),
    rounded outward."""
    x = Fraction(x)
    if x.denominator == 1:
        return num(x)
    return _decimal(round_decimals(x, digits, up), digits)


def quantile_text(lo, hi) -> str:
    """A session quantile: the value, or ``low .. high`` when only the interval is certified (one value
    when its two ends print alike; each end rounded outward)."""
    a, b = _num_out(lo, False), _num_out(hi, True)
    return a if a == b else f"{a} .. {b}"


def prob_bracket(lo, hi) -> str:
    """``[a, b]``: the certified interval ``[lo, hi]`` of a probability, cut to ``[0, 1]`` (a
    probability lies there whatever its bound says), each end rounded outward, with as many
    significant digits (4 to 10) as keep the printed bracket within 1.5 times its width (never
    "[0.353, 0.353]", nor "[0.353, 0.3531]" for [0.353018, 0.353022])."""
    lo, hi = max(Fraction(lo), Fraction(0)), min(Fraction(hi), Fraction(1))
    for d in range(4, 11):
        a, b = bound_text(lo, False, d), bound_text(hi, True, d)
        if Fraction(b) - Fraction(a) <= Fraction(3, 2) * (hi - lo):
            break
    return f"[{a}, {b}]"


def prob_text(f: Figure) -> str:
    """A session probability: 6 significant digits (or the exact ``p/q`` when short), with the
    certified error when bounded; a bounded one whose ``centre ± error`` would reach below 0 or
    above 1 as its bracket cut to ``[0, 1]`` (:func:`prob_bracket`)."""
    t = exact_format(f.value, ".6g") if f.value else "0"  # (its exact digits: no float)
    if f.label == "exact":
        fr = frac(f.value)
        return fr if len(fr) <= 12 else t
    if f.error >= Fraction(1, 10**6):  # a bracket (a session of a round without a law): its two ends
        return prob_bracket(f.value - f.error, f.value + f.error)
    # six significant digits, or fewer where the published centre has fewer (no padding zeros)
    p = f.published()
    v, have = abs(p.value), max(-_decade(p.quantum), 0)
    c, e, d = shown(f, min(max(6 - 1 - _decade(v), 0), have) if v else 0)
    if c - e < 0 or c + e > 1:  # ("0 ± 2.6e-09": the ends of the interval a probability can have)
        return prob_bracket(f.value - f.error, f.value + f.error)
    return f"{centre_text(c, d, sep=False)} ± {_err_text(e)}"


#: Header of the session horizons table (the quantile columns follow ``levels``).
SESSION_HEAD = ["rounds", "mean balance", "P(end above start)", "risk of ruin", "rounds to ruin (mean)", "label"]


def session_rows(sec, levels) -> tuple[list[str], list[list[str]]]:
    """``(header, rows)`` of a :class:`~analytic.reports.model.SessionSection`'s horizons, with the
    final balance's quantiles at ``levels``."""
    head = SESSION_HEAD[:2] + [f"{pct(lv, 0)} quantile" for lv in levels] + SESSION_HEAD[2:]
    rows = []
    for h in sec.horizons:
        q = {lv: (lo, hi) for lv, lo, hi in h.quantiles}
        # a bracketed horizon (two chains, each certified within its error) is an interval, not a certified value
        lab = ("exact" if h.method == "exact" else "bounded (bracket)" if h.method == "bounded"
               else f"certified ± {bound_text(h.error, digits=2)}")
        rows.append([f"{h.rounds:,}", fig_num(h.balance_mean, 2)] + [quantile_text(*q[lv]) for lv in levels]
                    + [prob_text(h.p_above_start), prob_text(h.ruin),
                       _to_ruin(h), lab])
    return head, rows


def _to_ruin(h) -> str:
    """Mean rounds to ruin; ``-`` when ruin is impossible or its probability is not above its
    certified error (the mean is then not bounded below the horizon)."""
    f = h.rounds_to_ruin
    if f is None or (f.label != "exact" and f.error >= h.rounds):
        return "-"
    return fig_num(f, 1)


#: Header of the autoplay stops table.
AUTOPLAY_HEAD = ["stop", "setting", "probability it ends the run"]


def autoplay_rows(a) -> list[list[str]]:
    """Rows of an :class:`~analytic.reports.model.AutoplayTable`: each stop rule with its setting and
    probability, then the rounds played and the final balance."""
    setting = dict(a.setting)
    rows = [[name, setting.get(name, ""), prob_text(f)] for name, f in a.reasons]
    q = {lv: (lo, hi) for lv, lo, hi in a.rounds_quantiles}
    med = q.get(Fraction(1, 2))
    rows.append(["rounds played", f"at most {setting.get('rounds (at most)', '')}",
                 f"mean {fig_num(a.rounds_mean, 1)}" + (f", median {quantile_text(*med)}" if med else "")])
    rows.append(["final balance", "", f"mean {fig_num(a.balance_mean, 2)}, P(above start) {prob_text(a.p_above_start)}"])
    return rows
def ladder_table(ex) -> tuple[list[str], list[list[str]]]:
    """Header and rows (text) of an :class:`~analytic.solver.exceedance.Exceedance` ladder: an exact
    one with ``P(win >= x)``, "1 in" and the fraction when short; a bounded one with its certified
    low and high ends (10 significant digits, rounded outward), its ``P(win >= x)`` and "1 in" the
    centre's text only where that is within half a unit of its last digit of every value between
    them (else the interval, :func:`prob_text`, :func:`one_in_fig`)."""
    if ex.label == "exact":
        head = ["win >= x (x total bet)", "P(win >= x)", "1 in", "exact"]
        rows = [[r.label, num(r.low, 6), one_in(r.low), short_frac(r.low)] for r in ex.rows]
    elif getattr(ex, "kind", "law") == "interval":  # no law: only the two ends mean anything, no centre
        head = ["win >= x (x total bet)", "lower bound", "upper bound", "1 in (from .. to)"]
        rows = [[r.label, bound_text(r.low, False, 10), bound_text(r.high, True, 10), _one_in_range(r.low, r.high)] for r in ex.rows]
    else:  # the centre's text where it reads right (within half a unit of its last digit of every
        # value between the bounds), else the interval (prob_text: centre ± half-width, or [low, high])
        head = ["win >= x (x total bet)", "P(win >= x)", "1 in", "lower bound", "upper bound"]
        rows = []
        for r in ex.rows:
            f = Figure((r.low + r.high) / 2, "bounded", (r.high - r.low) / 2)
            p = num(f.value, 6)
            if not covers(p, r.low, r.high, Fraction(1, 2)):
                p = prob_text(f)
            one = (one_in_fig(f) if r.low > 0 else "never" if r.high == 0  # (above a cap: exactly 0)
                   else _one_in_range(r.low, r.high))  # ("1 in N or rarer", as the distribution rows)
            rows.append([r.label, p, one,
                         bound_text(r.low, False, 10), bound_text(r.high, True, 10)])
    return head, rows


def _one_in_range(low, high) -> str:
    """``1 in A .. B`` of a probability between ``low`` and ``high`` (one value when both print alike;
    ``A`` rounded down, ``B`` up)."""
    if low <= 0:
        return f"{_one_in_out(high, False)} or rarer"
    a, b = _one_in_out(high, False), _one_in_out(low, True)
    return a if a == b else f"{a} .. {b[5:]}"


def _one_in_out(p, up: bool) -> str:
    """``1 in N`` of a certified bound ``p > 0`` of a probability, ``N = 1 / p`` rounded down
    (``up`` False: from an upper bound of ``p``) or up; formatted as :func:`one_in`."""
    if p <= 0:
        return one_in(p)
    n = 1 / Fraction(p)
    if n < 10 ** 7:
        return f"1 in {_decimal(round_decimals(n, 2, up), 2)}"
    return f"1 in {exact_format(round_outward(n, up=up, digits=5), '.4e')}"


def max_win_text(ex) -> str:
    """The maximum-win sentence of an exceedance ladder."""
    if ex.max_win is None:
        return f"Maximum win: {ex.max_note}."
    if ex.max_low == ex.max_high:
        p = f"probability {num(ex.max_low, 6)} ({one_in(ex.max_low)}), exact"
    else:  # "1 in" of both certified ends (of the centre it would read as certified too)
        p = (f"probability {bound_text(ex.max_low, False, 10)} .. {bound_text(ex.max_high, True, 10)} ({_one_in_range(ex.max_low, ex.max_high)}), "
             "certified bounds")
    return f"Maximum win: {num(ex.max_win)} x total bet, {p} ({ex.max_note})."
