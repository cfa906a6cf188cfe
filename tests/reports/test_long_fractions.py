"""Exact values of more than 4,300 digits are written out, not refused.

Python refuses to turn an integer of more than ``sys.get_int_max_str_digits()`` digits (4,300) into
text.  A capped RTP from the round law of a few hundred free spins is a fraction whose parts are
powers of the free reel set's cycle (Book of Christmas Eve with 400 spins a trigger and a cap of 30
total bets: 5,999 characters), and ``analytic solve --format json`` stopped with a ValueError in
``Figure.to_json`` (the par sheets' ``frac`` likewise).  The oracle: ``str`` and ``Fraction`` with
the interpreter's limit lifted for the check only.
"""

from __future__ import annotations

import random
import sys
from contextlib import contextmanager
from fractions import Fraction

import pytest

from analytic.figures import Figure, fraction_text, int_text
from analytic.reports.format import frac


@contextmanager
def _no_limit():
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


@pytest.mark.parametrize("digits", [1, 17, 3999, 4000, 4001, 4300, 4301, 9000, 30001])
def test_int_text(digits):
    rng = random.Random(digits)
    for n in (10 ** (digits - 1), 10**digits - 1, rng.randrange(10 ** (digits - 1), 10**digits), 10**digits):
        with _no_limit():
            want = str(n)
        assert int_text(n) == want and int_text(-n) == "-" + want


def test_long_fraction_figure_and_frac():
    v = Fraction(3**9000 + 1, 7**6000)  # 4,295 and 5,071 digits
    d = Figure(v).to_json()
    t = frac(v)
    assert fraction_text(v) == t == d["exact"]
    with _no_limit():
        assert Fraction(d["exact"]) == v
    assert d["float"] == float(v) and d["label"] == "exact"


def test_exact_figures_printed_from_their_digits_not_a_float():
    """pct, num and one_in printed an exact figure through a float: 17 significant digits (an RTP of
    3/4 x 10^30 read 74999999999999990513822771183616.0000%), 0 below 1e-308 (a probability of
    10^-400 read 'never'), inf above. By hand: 3/4 x 10^32 % ; 1 / 10^-400 = 10^400."""
    from analytic.reports.format import num, one_in, pct

    assert pct(Fraction(3, 4) * 10**30) == "75" + "0" * 30 + ".0000%"
    assert pct(Fraction(1, 3), 2) == "33.33%" and pct(0.25) == "25.0000%"  # (a float as before)
    assert one_in(Fraction(1, 10**400)) == "1 in 1.0000e+400"
    assert one_in(Figure(Fraction(40, 169))) == "1 in 4.22"  # 4.225 exactly: half to even
    assert one_in(Fraction(0)) == "never"
    assert num(Fraction(1, 3 * 10**400)) == "3.3333e-401"
    assert num(Fraction(2, 3) * 10**400, 2) == "6.67e+399"
    assert num(Fraction(3, 4) * 10**6 + Fraction(1, 8)) == "750,000.1250"


def test_par_sheet_of_a_tiny_cost(tmp_path):
    """A tiny model at a cost of 1e-30 total bets: 2 reels [a, b], 'a a' pays 3 (total bet 1), mean
    win 3/4, RTP 3/4 x 10^30 = 7.5 x 10^31 % (by hand); the Markdown sheet's RTP rows print those
    digits."""
    import re

    from analytic.model.loader import load_model
    from analytic.reports.markdown import render_markdown
    from analytic.reports.model import build_sheet

    model = ("[game]\nname = \"tiny cost\"\nreels = 2\nrows = 1\n[symbols]\na = \"regular\"\nb = \"blank\"\n"
             "[paytable]\na = { 2 = 3 }\n[paylines]\nlines = [[0, 0]]\n[reels]\nbase = [[\"a\", \"b\"], [\"a\", \"b\"]]\n"
             "[modes.base]\ncost = \"1e-30\"\nreels = \"base\"\n")
    p = tmp_path / "tiny.toml"
    p.write_text(model, encoding="utf-8")
    md = render_markdown(build_sheet(load_model(str(p))))
    rows = [ln for ln in md.splitlines() if re.match(r"\| (RTP|base line wins|total) \|", ln)]
    assert rows and all(ln.split("|")[2].strip() == "75" + "0" * 30 + ".0000%" for ln in rows), rows


def test_probability_of_thousands_of_digits_is_printed_not_never():
    """A far row of a spins-played law: a probability 1/7^6000 (5,071 digits; a float's 0, so the sheet
    printed 0.000000 and 'never'). By hand (lifted limit, Decimal): 2.580833e-5071, 1 in 3.8747e+5070."""
    from decimal import Decimal, getcontext

    from analytic.reports.format import num, one_in

    p = Fraction(1, 7**6000)
    getcontext().prec = 30
    with _no_limit():
        want = Decimal(1) / Decimal(7**6000)
    assert num(p, 6) == f"{want:.6e}" == "2.580833e-5071"
    assert one_in(p) == f"1 in {1 / want:.4e}"


def test_an_exact_percentage_beyond_float_digits_keeps_its_own_digits():
    """``pct`` of an exact 10^30 / 125 + 98/125 printed the float's binary expansion
    ('800000000000000072202695213056.0000%'); ``_decimal`` of a number of more than 28 digits lost its last
    ones (Decimal's context).  Oracle: the decimal expansion by hand; ordinary figures print as before."""
    from fractions import Fraction as Fr

    from analytic.reports.format import _decimal, pct

    assert pct(Fr(10**30, 125) + Fr(98, 125)) == "800000000000000000000000000078.4000%"
    assert pct(Fr(951, 1000)) == "95.1000%" and pct(0.951) == "95.1000%"
    assert _decimal(Fr(10**40 + 7, 100), 2) == f"{10**38:,}.07"


def test_bounded_figure_of_a_tiny_error_does_not_print_0():
    """A bounded probability 5e-400 certified to 1e-401: its error, below a float's range, printed
    '± 0' (a bounded figure read as exact) through a float; it prints 1e-401 (the shown error: the
    centre 5e-400 needs no rounding, so the error itself, rounded up to 2 digits), by hand."""
    from analytic.cli.solve import _pct, _val
    from analytic.reports.format import fig_num, prob_text

    f = Figure(Fraction(5, 10**400), "bounded", Fraction(1, 10**401))
    for text in (prob_text(f), fig_num(f, 2), _val(f, 6)):
        assert text.split("±" if "±" in text else "+/-")[1].split()[0] == "1e-401", text
    assert "+/- 1e-399 %" in _pct(f)
