"""``analytic solve`` (table format): what the header and the solver's extra figures say."""

import dataclasses
import re
from fractions import Fraction
from types import SimpleNamespace

from analytic.cli.solve import format_table
from analytic.figures import Figure
from analytic.solver.round import RoundResult


def _round(**kw) -> RoundResult:
    r = RoundResult(game=None, mode="m", cost=Fraction(1), base=None, mean_win=Figure(Fraction(1)),
                    second_moment=Figure(Fraction(3)), rtp=Figure(Fraction(1)),
                    hit_frequency=Figure(Fraction(1, 2)), components=(), features=())
    return dataclasses.replace(r, **kw)


def _between(text: str, key: str) -> tuple[float, float]:
    m = re.search(rf"^\s*{key}\s+between (\S+) and (\S+)", text, re.M)
    assert m, text
    return float(m.group(1)), float(m.group(2))


def test_probability_interval_is_cut_to_0_1():
    """A certified P(reach cap) of centre 0 and error 4e-12 (a retriggering feature's grid law far
    below a high cap) printed 'between -4e-12 and 4e-12': a probability below 0.  Its ends are cut to
    [0, 1] (a probability near 1 likewise); a figure that is not a probability keeps its ends."""
    extra = {"p_reach_cap": Figure(Fraction(0), "bounded", Fraction(4, 10**12)),
             "p_other": Figure(Fraction(1), "bounded", Fraction(1, 10**6)),
             "capped_rtp": Figure(Fraction(0), "bounded", Fraction(4, 10**12))}
    text = format_table(_round(game=SimpleNamespace(name="toy", total_bet=1), extra=extra))
    lo, hi = _between(text, "p_reach_cap")
    assert lo == 0 and 4e-12 <= hi < 4.01e-12
    lo, hi = _between(text, "p_other")
    assert 1 - 1.01e-6 < lo <= 1 - 1e-6 and hi == 1
    lo, hi = _between(text, "capped_rtp")
    assert lo < 0 < hi


def test_header_unit_of_the_total_bet():
    """A payline game's total bet is in line bets; a ways game's in pay units (its paytable pays per
    way; docs/model-format.md, "Ways pays"), not line bets."""
    lines = format_table(_round(game=SimpleNamespace(name="toy", total_bet=20, ways=False))).splitlines()[0]
    ways = format_table(_round(game=SimpleNamespace(name="toy", total_bet=25, ways=True))).splitlines()[0]
    assert lines.endswith("total bet = 20 line bets)")
    assert ways.endswith("total bet = 25 pay units)")


def test_certified_rtp_line_names_its_unit():
    """The last line gave the RTP's certified error as a fraction (1.99e-08) under an RTP row in
    percent (+/- 2e-06 %) with no unit: it now says both.  Error 1/10^8 of the stake = 1e-06 points."""
    r = _round(game=SimpleNamespace(name="toy", total_bet=1),
               rtp=Figure(Fraction(96, 100), "bounded", Fraction(1, 10**8)))
    last = format_table(r).splitlines()[-1]
    assert last == "  RTP certified within +/- 1e-08 of the stake (+/- 1e-06 percentage points)"


def test_an_exact_rtp_beyond_float_digits_prints_its_own_digits():
    """An exact RTP of 10^30 / 125 + 98/125 (a scatter paying 10^30 total bets, 1 in 125) printed
    '800000000000000072202695213056.000000 %  [exact]': the float's binary expansion, wrong from the
    17th digit, under the exact label.  Its digits now come from the fraction."""
    rtp = Fraction(10**30, 125) + Fraction(98, 125)  # by hand: 8e27 + 0.784 total bets
    text = format_table(_round(game=SimpleNamespace(name="toy", total_bet=1), rtp=Figure(rtp),
                               mean_win=Figure(rtp), second_moment=Figure(rtp * 10**30)))
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("RTP"))
    assert "800000000000000000000000000078.400000 %" in line, line
