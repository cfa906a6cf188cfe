"""``analytic solve`` (table format): what the header and the solver's extra figures say."""

import dataclasses
import re
from pathlib import Path
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
    # an RTP is not a probability (it can exceed 1) but is >= 0: printed in percent, its low end cut at 0
    m = re.search(r"^\s*capped_rtp\s+between (\S+) % and (\S+) %\s+\[bounded\]$", text, re.M)
    assert m and Fraction(m.group(1)) == 0 and Fraction(4, 10**10) <= Fraction(m.group(2)) <= Fraction(1, 10**6)


def test_capped_rtp_printed_as_the_rtp_rows():
    """capped_rtp and uncapped_rtp printed as raw fractions of the stake ('between 2.37370808 and
    2.373708081', '2.472222222') under an RTP row in percent: they read in percent now, with their
    label, and the exact fraction only on the RTP's own line. By hand: 89/36 = 247.2222...%; 19/20 +-
    1/10^9 = 95 % +- 1e-7 %."""
    extra = {"uncapped_rtp": Figure(Fraction(89, 36)),
             "capped_rtp": Figure(Fraction(19, 20), "bounded", Fraction(1, 10**9)),
             "p_reach_cap": Figure(Fraction(1, 8))}
    r = _round(game=SimpleNamespace(name="toy", total_bet=1), extra=extra,
               rtp=Figure(Fraction(19, 20), "bounded", Fraction(1, 10**9)))
    lines = {}
    for ln in format_table(r).splitlines():
        lines.setdefault(ln.split()[0], ln)  # (the first 'RTP' line: the RTP row)
    assert re.fullmatch(r"\s*uncapped_rtp\s+247\.222222 %\s+\[exact\]", lines["uncapped_rtp"])
    assert "89/36" not in format_table(r)
    m = re.fullmatch(r"\s*capped_rtp\s+(\S+) %\s+\(bounded, \+/- (\S+) %\)\s+\[bounded\]", lines["capped_rtp"])
    c, e = Fraction(m.group(1)), Fraction(m.group(2))
    assert c - e <= Fraction(95) - Fraction(1, 10**7) and Fraction(95) + Fraction(1, 10**7) <= c + e
    assert lines["capped_rtp"].split("capped_rtp")[1].strip() == lines["RTP"].split("RTP")[1].strip()
    # a probability: as it is, its meaning beside it
    assert re.fullmatch(r"\s*p_reach_cap\s+0\.125\s+\[exact\]   \(probability that the round reaches the win cap\)",
                        lines["p_reach_cap"])


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


def _tiny_cost(cost: str) -> str:
    """The 2-reel game of tests/data/two_reels.toml ("a a" pays 3, total bet 1) at a cost of ``cost`` total bets."""
    text = (Path(__file__).resolve().parents[1] / "data" / "two_reels.toml").read_text(encoding="utf-8")
    assert text.count("cost = 1\n") == 1
    return text.replace("cost = 1\n", f'cost = "{cost}"\n')


def test_exact_figures_of_a_tiny_cost_keep_their_digits(tmp_path, capsys):
    """Two reels [a, b], 'a a' pays 3 (total bet 1): the round wins 3 w.p. 1/4, mean 3/4. At a cost
    of 1e-30 total bets the RTP is 3/4 x 10^30 = 7.5 x 10^31 %, variance (9/4 - 9/16) x 10^60, SD
    sqrt(27/16) x 10^30 = 1299038105676657970145584756129.404275... (by hand: isqrt). The float
    printed 74999999999999990513822771183616.000000 % and 1299038105676658131507739623424.000000,
    digits a float does not have, labelled exact."""
    from math import isqrt

    from analytic.cli import main

    m = tmp_path / "tiny.toml"
    m.write_text(_tiny_cost("1e-30"), encoding="utf-8")
    assert main(["solve", str(m)]) == 0
    out = capsys.readouterr().out
    rtp = next(ln for ln in out.splitlines() if ln.strip().startswith("RTP "))
    assert re.search(r"RTP\s+75(0{30})\.000000 %\s+\[exact\]$", rtp), rtp
    sd = next(ln for ln in out.splitlines() if "standard deviation" in ln)
    s = isqrt(27 * 10**(60 + 12) // 16)  # floor(sqrt(27/16 x 10^60) x 10^6)
    s += 4 * Fraction(27 * 10**72, 16) > (2 * s + 1) ** 2  # to the nearest
    assert f"{s // 10**6}.{s % 10**6:06d}" in sd, (sd, s)
    # a cost of 1/1,000,000: 75,000,000 % exactly
    m.write_text(_tiny_cost("0.000001"), encoding="utf-8")
    assert main(["solve", str(m)]) == 0
    assert re.search(r"RTP\s+75000000\.000000 %\s+\[exact\]", capsys.readouterr().out)


def test_one_in_of_a_probability_below_a_float():
    """A feature probability of 1/(3 x 10^400) (below the smallest float: it became 0): 'hit frequency'
    and '1 in' from the exact value, not 0 % / a division by zero."""
    r = _round(game=SimpleNamespace(name="toy", total_bet=1), hit_frequency=Figure(Fraction(1, 3 * 10**400)))
    line = next(ln for ln in format_table(r).splitlines() if "hit frequency" in ln)
    assert "(1 in " + "3" + "0" * 400 + ".0000)" in line and "[exact]" in line


def test_extra_figures_say_their_units():
    """'max_win  8334888.5  (exact 16669777/2)' said nothing of its unit (total bets, before the cap:
    Book of Christmas Eve's theoretical maximum, far above its 20,168x published top win)."""
    extra = {"max_win": Fraction(16669777, 2), "uncapped_second_moment": Figure(Fraction(433)),
             "cap_free_stake_limit": Fraction(1250000, 108403), "cap_method": "text",
             "p_reach_cap": Figure(Fraction(1, 10**7))}
    text = format_table(_round(game=SimpleNamespace(name="toy", total_bet=1), extra=extra))
    lines = {ln.split()[0]: ln for ln in text.splitlines() if ln.strip()}
    assert "(x total bet: the round's theoretical maximum win, before the cap)" in lines["max_win"]
    assert lines["uncapped_second_moment"].endswith("((x total bet)^2, before the cap)")
    assert "currency: the largest stake" in lines["cap_free_stake_limit"]


def test_extra_units_say_before_the_cap_only_where_a_cap_applies():
    """A round with no win cap (no capped figure among its extras) printed 'max_win ... (x total bet:
    the round's theoretical maximum win, before the cap)': there is no cap to be before."""
    extra = {"max_win": Fraction(5000), "uncapped_second_moment": Figure(Fraction(433))}
    text = format_table(_round(game=SimpleNamespace(name="toy", total_bet=1), extra=extra))
    lines = {ln.split()[0]: ln for ln in text.splitlines() if ln.strip()}
    assert lines["max_win"].endswith("(x total bet: the round's theoretical maximum win)")
    assert lines["uncapped_second_moment"].endswith("((x total bet)^2)")
    assert "cap" not in lines["max_win"]


def test_an_exact_rtp_beyond_float_digits_prints_its_own_digits():
    """An exact RTP of 10^30 / 125 + 98/125 (a scatter paying 10^30 total bets, 1 in 125) printed
    '800000000000000072202695213056.000000 %  [exact]': the float's binary expansion, wrong from the
    17th digit, under the exact label.  Its digits now come from the fraction."""
    rtp = Fraction(10**30, 125) + Fraction(98, 125)  # by hand: 8e27 + 0.784 total bets
    text = format_table(_round(game=SimpleNamespace(name="toy", total_bet=1), rtp=Figure(rtp),
                               mean_win=Figure(rtp), second_moment=Figure(rtp * 10**30)))
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("RTP"))
    assert "800000000000000000000000000078.400000 %" in line, line


def test_currency_rows_print_the_cap_multiple_from_its_own_digits():
    """A currency cap of 10^20 + 1 at a stake of 1: a cap multiple of 100,000,000,000,000,000,001
    total bets, exact; through a float it printed 100,000,000,000,000,000,000.00, a digit it does not
    have. By hand."""
    from analytic.features.laws.capped import stake_row

    rows = [stake_row(Fraction(1), Fraction(10**20 + 1), Figure(Fraction(1, 2)), True)]
    text = format_table(_round(game=SimpleNamespace(name="toy", total_bet=1), extra={"currency_cap": rows}))
    got = [ln for ln in text.splitlines() if ln.strip().startswith("stake")]
    assert re.fullmatch(r"\s*stake\s+1\.00\s+cap 100,000,000,000,000,000,001\.00x\s+RTP 50\.00000000 %\s+\[exact\]",
                        got[0]), got


def test_top_base_spin_win_one_in_from_its_own_digits():
    """A cycle of 10^17 + 3 stop combinations and one of them the top win: '1 in
    100,000,000,000,000,003' exactly (a float of the quotient printed 100,000,000,000,000,000); a
    cycle of 5 with 2 top combinations: 2.5, a tie, rounds half to even to 2. By hand."""
    for cycle, weight, want in ((10**17 + 3, 1, "100,000,000,000,000,003"), (5, 2, "2")):
        base = SimpleNamespace(reel_set="base", cycle=cycle,
                               figures=SimpleNamespace(top_win=Fraction(7, 2), top_weight=weight))
        text = format_table(_round(game=SimpleNamespace(name="toy", total_bet=1, cap=None), base=base))
        (line,) = [ln for ln in text.splitlines() if "top base-spin win" in ln]
        assert line.endswith(f"x total bet   ({weight:,} combinations, 1 in {want})"), line


def _feature(freq: Figure):
    from analytic.solver.round import FeatureFigures

    return FeatureFigures("free_spins", freq, Figure(Fraction(20)), 3.0, Figure(Fraction(10)), Figure(Fraction(2, 15)))


def test_bounded_feature_frequency_prints_its_certified_one_in_range():
    """A feature frequency certified as 1/150 +/- 1/10^4 printed '1 in 150.0000' (its centre alone, as if
    exact).  By hand 1 / p lies in [1500000/10150, 1500000/9850] = [147.78325.., 152.28426..]: printed
    as the hit frequency's bounded '1 in' is, the range rounded outward, and the row labelled bounded.
    An exact frequency keeps '1 in 150.0000' and a frequency within half a unit of its last digit the
    centre."""
    def line(freq):
        text = format_table(_round(game=SimpleNamespace(name="toy", total_bet=1), features=(_feature(freq),)))
        return next(ln for ln in text.splitlines() if ln.strip().startswith("feature free_spins"))

    bounded = line(Figure(Fraction(1, 150), "bounded", Fraction(1, 10**4)))
    assert "1 in 147.7832 .. 152.2843   average win" in bounded and bounded.endswith("[bounded]"), bounded
    exact = line(Figure(Fraction(1, 150)))
    assert "1 in 150.0000   average win" in exact and exact.endswith("[exact]"), exact
    tight = line(Figure(Fraction(1, 150), "bounded", Fraction(1, 10**12)))  # 1/p within 150 +/- 2.3e-8
    assert "1 in 150.0000   average win" in tight and tight.endswith("[bounded]"), tight
    rare = line(Figure(Fraction(1, 12345)))  # thousands separators, as before
    assert "1 in 12,345.0000   average win" in rare, rare
    never = line(Figure(Fraction(0)))
    assert "1 in inf   average win" in never, never
