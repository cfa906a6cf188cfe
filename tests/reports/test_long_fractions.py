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


def test_an_exact_percentage_beyond_float_digits_keeps_its_own_digits():
    """``pct`` of an exact 10^30 / 125 + 98/125 printed the float's binary expansion
    ('800000000000000072202695213056.0000%'); ``_decimal`` of a number of more than 28 digits lost its last
    ones (Decimal's context).  Oracle: the decimal expansion by hand; ordinary figures print as before."""
    from fractions import Fraction as Fr

    from analytic.reports.format import _decimal, pct

    assert pct(Fr(10**30, 125) + Fr(98, 125)) == "800000000000000000000000000078.4000%"
    assert pct(Fr(951, 1000)) == "95.1000%" and pct(0.951) == "95.1000%"
    assert _decimal(Fr(10**40 + 7, 100), 2) == f"{10**38:,}.07"
