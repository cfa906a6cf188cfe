"""Every interval a par sheet or the CLI prints holds the certified one.

The oracle is exact arithmetic on the printed text: each printed figure is
parsed back into Fractions (the text's own decimal digits) and the interval it
states (``centre ± error``, ``[low, high]``, ``low .. high``, "1 in A .. B")
must contain the certified interval ``[value - error, value + error]`` of the
figure printed.  Rounding to nearest (the former formatting) fails these on
figures like a 94.00145445 % RTP certified to 1.6e-5 %, printed as
"94.0015% ± 1.6e-05%".
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.figures import Figure, shown
from analytic.reports import format as F

_NUM = r"-?[0-9][0-9,]*(?:\.[0-9]+)?(?:e[-+][0-9]+)?"


def _q(text: str) -> Fraction:
    """The exact value of a printed decimal (thousands separators and an exponent allowed)."""
    return Fraction(text.replace(",", ""))


def _pm(text: str, unit: str = "") -> tuple[Fraction, Fraction]:
    """(low, high) stated by ``centre ± error`` text."""
    m = re.fullmatch(rf"({_NUM}){re.escape(unit)} ± ({_NUM}){re.escape(unit)}(?: \(bounded\))?", text)
    assert m, text
    c, e = _q(m.group(1)), _q(m.group(2))
    return c - e, c + e


# bounded figures: a centre of any magnitude, an error from far below its last printed digit to above it
centres = st.builds(lambda m, k: Fraction(m, 10 ** k), st.integers(-10 ** 14, 10 ** 14), st.integers(0, 20))
errors = st.builds(lambda m, k: Fraction(m, 10 ** k), st.integers(1, 10 ** 6), st.integers(0, 22))
figures = st.builds(lambda v, e: Figure(v, "bounded", e), centres, errors)


def _holds(lo, hi, f: Figure) -> None:
    assert lo <= f.value - f.error and f.value + f.error <= hi, (lo, hi, f)


@settings(max_examples=400, deadline=None)
@given(figures, st.integers(0, 8))
def test_fig_pct_and_fig_num_hold_the_certified_interval(f, digits):
    lo, hi = _pm(F.fig_pct(f, digits), "%")
    _holds(lo / 100, hi / 100, f)
    lo, hi = _pm(F.fig_num(f, digits))
    _holds(lo, hi, f)


@settings(max_examples=300, deadline=None)
@given(figures)
def test_shown_centre_has_the_errors_second_digit_and_widens_only_by_rounding(f):
    c, e, d = shown(f, 4)
    p = f.published()
    assert (c * 10 ** d).denominator == 1
    assert c - e <= p.value - p.error and p.value + p.error <= c + e
    # the widening is the rounding of the centre plus the rounding up of the error: at most a tenth
    # of the error and one unit of its second digit
    assert e <= p.error + Fraction(1, 2 * 10 ** d) + p.error / 5 + Fraction(1, 10 ** d)


def test_the_reported_rtp_that_rounding_to_nearest_misprinted():
    f = Figure(Fraction("0.9400145445"), "bounded", Fraction("1.58e-7"))
    text = F.fig_pct(f)
    assert text != "94.0015% ± 1.6e-05% (bounded)"
    lo, hi = _pm(text, "%")
    _holds(lo / 100, hi / 100, f)
    assert text.startswith("94.00145")


@settings(max_examples=300, deadline=None)
@given(st.builds(lambda v, e: Figure(v, "bounded", e),
                 st.fractions(0, 1, max_denominator=10 ** 12), st.fractions(Fraction(1, 10 ** 15), Fraction(1, 2),
                                                                           max_denominator=10 ** 15)))
def test_prob_text_holds_the_certified_interval(f):
    t = F.prob_text(f)
    m = re.fullmatch(rf"\[({_NUM}), ({_NUM})\]", t)
    if m:  # a bracket, cut to [0, 1]
        lo, hi = _q(m.group(1)), _q(m.group(2))
        assert lo <= max(f.value - f.error, 0) and min(f.value + f.error, 1) <= hi, (t, f)
    else:
        lo, hi = _pm(t)
        _holds(lo, hi, f)
    assert 0 <= lo and hi <= 1, (t, f)  # a probability's printed interval never leaves [0, 1]


def test_a_probability_certified_near_0_or_1_prints_within_0_and_1():
    """The certified session's "0 ± 2.6e-09" (a risk of ruin the chain's law gives as 0, within its
    total-variation error) reached below 0; "1 - 1e-9 ± 2.6e-09" above 1."""
    for v, e, want in ((Fraction(0), Fraction("2.6e-9"), "[0, 2.6e-09]"),
                       (1 - Fraction("1e-9"), Fraction("2.6e-9"), "[0.999999996, 1]")):
        assert F.prob_text(Figure(v, "bounded", e)) == want


bounds = st.fractions(Fraction(1, 10 ** 12), 1, max_denominator=10 ** 14)


@settings(max_examples=300, deadline=None)
@given(bounds, bounds)
def test_ladder_bounds_and_one_in_ranges_round_outward(a, b):
    lo, hi = min(a, b), max(a, b)
    assert _q(F.bound_text(lo, False, 10)) <= lo and hi <= _q(F.bound_text(hi, True, 10))
    t = F._one_in_range(lo, hi)  # "1 in A .. B": A <= 1 / hi and 1 / lo <= B
    m = re.fullmatch(rf"1 in ({_NUM})(?: \.\. ({_NUM}))?", t)
    assert m, t
    a_, b_ = _q(m.group(1)), _q(m.group(2) or m.group(1))
    assert a_ <= 1 / hi and 1 / lo <= b_, (t, lo, hi)


@settings(max_examples=300, deadline=None)
@given(st.fractions(-10 ** 6, 10 ** 6, max_denominator=10 ** 6), st.fractions(0, 10 ** 4, max_denominator=10 ** 6))
def test_quantile_and_percentage_bounds_round_outward(x, w):
    lo, hi = x, x + w
    t = F.quantile_text(lo, hi)
    parts = t.split(" .. ")
    assert _q(parts[0]) <= lo and hi <= _q(parts[-1]), (t, lo, hi)
    assert _q(F.pct_bound(lo, False)) <= lo * 100 <= hi * 100 <= _q(F.pct_bound(hi, True))


def test_bound_text_rounds_up():
    assert F.bound_text(Fraction("1.2301e-7")) == "1.24e-07"
    assert F.bound_text(Fraction("1.23e-7")) == "1.23e-07"
    assert F.bound_text(Fraction("1.2301e-7"), up=False) == "1.23e-07"


def test_cli_solve_pct_holds_the_certified_interval():
    from analytic.cli.solve import _pct

    f = Figure(Fraction("0.9400145445"), "bounded", Fraction("1.58e-7"))
    m = re.fullmatch(rf"({_NUM}) %  \(bounded, \+/- ({_NUM}) %\)", _pct(f))
    assert m
    c, e = _q(m.group(1)) / 100, _q(m.group(2)) / 100
    _holds(c - e, c + e, f)


def test_a_centre_in_scientific_notation_prints_its_own_digits_not_a_floats():
    # 123456789.1233 .. 123456789.1235: a float has 17 significant digits; printed to 19 it showed
    # "1.234567891234000027e+08", whose interval leaves out the certified low end
    for f, digits in ((Figure(Fraction("123456789.1234"), "bounded", Fraction("1e-4")), 8),
                      (Figure(Fraction("12345678.9"), "bounded", Fraction("1e-5")), 10)):
        lo, hi = _pm(F.fig_num(f, digits))
        _holds(lo, hi, f)
        m = re.fullmatch(rf"({_NUM}) \(bounded\) ± ({_NUM})", F.extra_text(f))
        assert m, F.extra_text(f)
        c, e = _q(m.group(1)), _q(m.group(2))
        _holds(c - e, c + e, f)


def test_cli_solve_prints_no_bounded_feature_figure_or_sd_without_its_error():
    import dataclasses
    from pathlib import Path

    from analytic.cli.solve import format_table
    from analytic.model.loader import load_model
    from analytic.solver.round import FeatureFigures, solve_game

    res = next(iter(solve_game(load_model(str(Path(__file__).parent / "data" / "toy.toml"))).values()))
    # a bounded feature and second moment, made by hand (the printed form is what is tested)
    avg = Figure(Fraction("77.9285361234"), "bounded", Fraction("2.5e-7"))
    spins = Figure(Fraction("13.19477712"), "bounded", Fraction("3e-9"))
    feat = FeatureFigures("free_spins", Figure(Fraction(1, 176)), avg, 1.0, spins, Figure(Fraction(1, 2)))
    bounded = dataclasses.replace(res, features=(feat,),
                                  second_moment=Figure(res.second_moment.value, "bounded", Fraction("0.0123")),
                                  rtp=Figure(res.rtp.value, "bounded", Fraction(1, 10**9)))
    text = format_table(bounded)
    line = next(l for l in text.splitlines() if l.lstrip().startswith("feature free_spins"))
    m = re.search(rf"average win ({_NUM}) \+/- ({_NUM})x\s+expected spins ({_NUM}) \+/- ({_NUM})\s+\[bounded\]", line)
    assert m, line
    for f, c, e in ((avg, m.group(1), m.group(2)), (spins, m.group(3), m.group(4))):
        _holds(_q(c) - _q(e), _q(c) + _q(e), f)
    line = next(l for l in text.splitlines() if "standard deviation" in l)
    m = re.search(rf"between ({_NUM}) and ({_NUM})\s+\[bounded\]", line)
    assert m, line
    v = bounded.variance_figure
    lo, hi = _q(m.group(1)), _q(m.group(2))
    assert lo >= 0 and lo * lo <= v.value - v.error and v.value + v.error <= hi * hi, (line, v)
    line = next(l for l in text.splitlines() if "volatility index" in l)
    ends = re.findall(rf"({_NUM}) \.\. ({_NUM})", line)
    assert len(ends) == 3 and line.endswith("[bounded]"), line
    from analytic.figures import Z_SCORES

    for (a, b), c in zip(ends, (90, 95, 99)):
        z = Fraction(Z_SCORES[c])
        assert _q(a) ** 2 <= z * z * (v.value - v.error) and z * z * (v.value + v.error) <= _q(b) ** 2, line


def test_cli_session_method_line_rounds_the_error_up():
    from types import SimpleNamespace

    from analytic.cli.session import _method

    for err in (3.9249e-9, 1.0001e-12, 2.5e-8):  # 3.9249e-9 to nearest: "3.92e-09", below the bound
        t = _method(SimpleNamespace(bracket={}, method="certified", error=err))
        m = re.search(rf"total-variation bound ({_NUM})\)", t)
        assert m and _q(m.group(1)) >= Fraction(err), t


def test_up_to_and_at_most_notes_round_up():
    from analytic.cli.verify import law_text
    from analytic.solver.distribution import RoundLaw
    from analytic.solver.exceedance import exceedance

    e = Fraction("1.2345e-7")  # to nearest, 3 digits: 1.23e-07, below the missing mass
    law = RoundLaw({Fraction(0): Fraction(1, 2), Fraction(3): Fraction(1, 2) - e}, e)
    m = re.search(rf"mass up to ({_NUM}) is missing", exceedance(law).max_note)
    assert m and _q(m.group(1)) >= e, exceedance(law).max_note
    t = law_text({"test": "binomial interval", "df": 3, "gap": 1.2345e-7, "statistic": 0.5, "p_value": 0.5,
                  "verdict": "ok"})
    m = re.search(rf"gap at most ({_NUM})\)", t)
    assert m and _q(m.group(1)) >= Fraction(1.2345e-7), t


@settings(max_examples=200, deadline=None)
@given(st.fractions(Fraction(1, 100), 10 ** 5, max_denominator=10 ** 6), st.fractions(Fraction(1, 10 ** 9), 1),
       st.sampled_from([90, 95, 99]))
def test_sd_and_volatility_of_a_bounded_variance_are_intervals_holding_the_certified_ones(var, rel, c):
    import math
    from types import SimpleNamespace

    from analytic.figures import Z_SCORES

    v = Figure(var, "bounded", var * rel / 2)
    sd = math.sqrt(float(v.published().value))
    m = SimpleNamespace(variance=v, sd=sd)
    for text, z in ((F.sd_text(m), Fraction(1)), (F.sd_text(m, Z_SCORES[c] * sd), Fraction(Z_SCORES[c]))):
        mt = re.fullmatch(rf"({_NUM}) \.\. ({_NUM}) \(bounded\)", text)
        assert mt, text  # never the centre's square root alone, as if it were known to 4 decimals
        lo, hi = _q(mt.group(1)), _q(mt.group(2))
        # lo <= z sqrt(var - e) and z sqrt(var + e) <= hi, squared (exact)
        assert lo >= 0 and lo * lo <= z * z * (v.value - v.error) and z * z * (v.value + v.error) <= hi * hi, (text, v)


def test_sd_of_an_exact_variance_is_its_number():
    from types import SimpleNamespace

    m = SimpleNamespace(variance=Figure(Fraction(4)), sd=2.0)
    assert F.sd_text(m) == "2.0000" and F.sd_text(m, 3.2897) == "3.2897"


def test_cli_verify_says_a_bounded_figure_is_the_centre_of_its_interval(tmp_path, capsys, monkeypatch):
    import dataclasses

    import analytic.solver.round as round_
    from analytic.cli import main

    real = round_.solve_round

    def bounded(*a, **k):  # the real solve, its RTP made bounded (what verify prints of it is tested)
        r = real(*a, **k)
        return dataclasses.replace(r, rtp=Figure(r.rtp.value, "bounded", Fraction("1.2345e-7")))

    monkeypatch.setattr(round_, "solve_round", bounded)
    from pathlib import Path

    model = Path(__file__).parent / "data" / "toy.toml"
    main(["verify", str(model), "--rounds", "200", "--no-progress"])
    out = capsys.readouterr().out
    m = re.search(rf"\(RTP: bounded, the centre of an interval certified within \+/- ({_NUM});", out)
    assert m and _q(m.group(1)) >= Fraction("1.2345e-7"), out


def test_maximum_win_one_in_is_the_range_of_its_certified_ends():
    from types import SimpleNamespace

    lo, hi = Fraction("1.913313056e-9"), Fraction("1.914619833e-9")
    ex = SimpleNamespace(max_win=Fraction(500), max_low=lo, max_high=hi, kind="law", max_note="the win cap")
    t = F.max_win_text(ex)
    m = re.search(rf"\(1 in ({_NUM}) \.\. ({_NUM})\)", t)
    assert m, t  # was "(1 in 5.2248e+08)": the centre's, inside a sentence of certified bounds
    assert _q(m.group(1)) <= 1 / hi and 1 / lo <= _q(m.group(2)), t


def test_currency_cap_method_text_rounds_its_bound_up():
    from analytic.figures import bound_text

    for x in (Fraction("1.2345e-9"), Fraction("9.96e-5"), Fraction("3e-7")):
        assert _q(bound_text(x, digits=2)) >= x and _q(bound_text(x, digits=2)) <= x * Fraction(11, 10)  # up, by at most a unit of the 2nd digit


def test_pdf_session_table_never_breaks_a_number(tmp_path):
    import dataclasses
    import shutil
    import subprocess

    import pytest

    if not shutil.which("pdftotext"):
        pytest.skip("pdftotext not installed")
    from tests.reports.test_session_section import TINY

    from analytic.model.loader import load_model_text
    from analytic.reports.model import build_sheet
    from analytic.reports.pdf import write_pdf

    sheet = build_sheet(load_model_text(TINY, str(tmp_path / "tiny.toml")), session={"balance": 3, "rounds": (2, 4)})
    m = sheet.modes[0]
    # a five-digit balance to 7 decimals with its error, as a long session of a feature buy prints it
    wide = Figure(Fraction("12578.7854138"), "bounded", Fraction("2.5e-6"))
    hs = tuple(dataclasses.replace(h, balance_mean=wide) for h in m.session.horizons)
    sheet = dataclasses.replace(sheet, modes=(dataclasses.replace(m, session=dataclasses.replace(m.session, horizons=hs)),))
    write_pdf(sheet, str(tmp_path / "t.pdf"))
    text = subprocess.run(["pdftotext", str(tmp_path / "t.pdf"), "-"], capture_output=True, text=True, check=True).stdout
    assert "12,578.7854138" in text, [l for l in text.splitlines() if "12,578" in l]


@settings(max_examples=200, deadline=None)
@given(centres, st.integers(0, 8))
def test_a_bounded_figure_with_error_0_prints_its_centre_whole(v, digits):
    # published with error 0 (its centre already a multiple of its quantum, e.g. 9.53125 from a float
    # chain whose bound is 0): was a ValueError ("not a multiple of 10^-4") from the report's formatting
    f = Figure(v, "bounded", Fraction(0))
    p = f.published()
    for text, unit, k in ((F.fig_num(f, digits), "", 1), (F.fig_pct(f, digits), "%", 100)):
        lo, hi = _pm(text, unit)
        assert lo / k <= p.value - p.error and p.value + p.error <= hi / k, (text, p)


rtps = st.fractions(0, 3, max_denominator=10 ** 9)


@settings(max_examples=300, deadline=None)
@given(st.lists(rtps, min_size=4, max_size=4))
def test_a_certified_rtp_range_prints_one_range_holding_every_central_range_it_allows(xs):
    """The lower quantile certified to [a, b], the upper to [c, e]: the cell is one range "X% .. Y%"
    with X <= a and e <= Y (the true central range inside it whatever the quantiles are), at most
    the rounding (0.01 % each end) wider than [a, e].  It printed both intervals,
    "96.32%-96.34% .. 97.06%-97.08%"."""
    from analytic.reports.model import RangeRow, CERTIFIED_RANGE_NOTE

    a, b, c, e = sorted(xs)
    r = RangeRow(10 ** 7, ((90, float(a), float(e)),), (), "certified", ((90, a, b, c, e),))
    (t,) = F.range_cells(r)
    m = re.fullmatch(rf"({_NUM})% \.\. ({_NUM})%", t)
    assert m, t
    lo, hi = _q(m.group(1)) / 100, _q(m.group(2)) / 100
    assert lo <= a and e <= hi and hi - lo < e - a + Fraction(2, 10 ** 4), (t, a, e)
    assert "rounded down" in CERTIFIED_RANGE_NOTE and "contains the true central range" in CERTIFIED_RANGE_NOTE


@settings(max_examples=300, deadline=None)
@given(st.builds(lambda v, e: Figure(v, "bounded", e),
                 st.fractions(Fraction(1, 10 ** 9), 1, max_denominator=10 ** 12),
                 st.fractions(Fraction(1, 10 ** 15), Fraction(1, 100), max_denominator=10 ** 15)))
def test_one_in_of_a_bounded_probability_holds_its_certified_interval(f):
    """The hit frequency's "1 in N" (par sheets: 2 decimals; the CLI: 4): a plain N is within half a
    unit of its last digit of 1/p for every p in the certified interval (cut to [0, 1]), else the
    printed range holds them all.  It printed the centre's 1/p."""
    from analytic.cli.solve import _one_in

    lo, hi = max(f.value - f.error, Fraction(0)), min(f.value + f.error, Fraction(1))
    for t in (F.one_in_fig(f), _one_in(f)):
        if m := re.fullmatch(rf"1 in ({_NUM}) or rarer", t):
            assert lo == 0 and _q(m.group(1)) <= 1 / hi, t
        elif m := re.fullmatch(rf"1 in ({_NUM}) \.\. ({_NUM})", t):
            assert _q(m.group(1)) <= 1 / hi and 1 / lo <= _q(m.group(2)), (t, f)
        else:
            m = re.fullmatch(rf"1 in ({_NUM})", t)
            assert m and lo > 0, t
            x = m.group(1).replace(",", "")
            base, _, k = x.partition("e")
            u = Fraction(10) ** (int(k or 0) - len(base.partition(".")[2]))
            assert _q(x) - u / 2 <= 1 / hi and 1 / lo <= _q(x) + u / 2, (t, f)



def test_one_in_of_a_wide_bounded_probability_is_its_range():
    """p = 0.0123456 +- 2e-6: 1/p runs from 80.987 to 81.013, printed "1 in 81.00" from the centre."""
    f = Figure(Fraction("0.0123456"), "bounded", Fraction("2e-6"))
    assert F.one_in_fig(f) == "1 in 80.98 .. 81.02"


def _half_unit(t: str) -> tuple[Fraction, Fraction]:
    """A plain printed number read as rounded: within half a unit of its last digit."""
    x = t.replace(",", "")
    base, _, k = x.partition("e")
    u = Fraction(10) ** (int(k or 0) - len(base.partition(".")[2]))
    return _q(x) - u / 2, _q(x) + u / 2


@settings(max_examples=300, deadline=None)
@given(st.fractions(0, 1, max_denominator=10 ** 12), st.fractions(0, Fraction(1, 100), max_denominator=10 ** 15))
def test_a_bounded_ladder_rows_probability_and_one_in_hold_its_bounds(low, gap):
    """A grid law's ladder row between certified ``low`` and ``high``: its P(win >= x) and "1 in"
    cells hold every value between them (a plain number read as rounded to its last digit).  The
    centre was printed whatever the gap ("2.318589e-13" for [0, 4.64e-13])."""
    from types import SimpleNamespace

    high = min(low + gap, Fraction(1))
    ex = SimpleNamespace(label="bounded", kind="law", rows=[SimpleNamespace(label="x", low=low, high=high)])
    _, (row,) = F.ladder_table(ex)
    p, one = row[1], row[2]
    if m := re.fullmatch(rf"\[({_NUM}), ({_NUM})\]", p):
        lo, hi = _q(m.group(1)), _q(m.group(2))
    elif "±" in p:
        lo, hi = _pm(p)
    else:
        lo, hi = _half_unit(p)
    assert lo <= low and high <= hi, (row, low, high)
    if one == "never":
        assert high == 0, row
    elif m := re.fullmatch(rf"1 in ({_NUM}) or rarer", one):  # (was "at most 1 in N": read as a bound of N)
        assert low == 0 and high <= 1 / _q(m.group(1)), row
    elif m := re.fullmatch(rf"1 in ({_NUM}) \.\. ({_NUM})", one):
        assert _q(m.group(1)) <= 1 / high and 1 / low <= _q(m.group(2)), row
    else:
        m = re.fullmatch(rf"1 in ({_NUM})", one)
        assert m, row
        a, b = _half_unit(m.group(1))
        assert a <= 1 / high and 1 / low <= b, row


@functools.lru_cache(maxsize=1)
def _toy_result():
    """The toy game's round (solved once; a bounded figure is put in by hand)."""
    from pathlib import Path

    from analytic.model.loader import load_model
    from analytic.solver.round import solve_game

    return next(iter(solve_game(load_model(str(Path(__file__).parent / "data" / "toy.toml"))).values()))


@settings(max_examples=300, deadline=None)
@given(st.builds(lambda v, e: Figure(v, "bounded", e),
                 st.fractions(0, 1, max_denominator=10 ** 12), st.fractions(Fraction(1, 10 ** 15), Fraction(1, 20),
                                                                           max_denominator=10 ** 15)))
def test_a_bounded_hit_frequency_prints_within_0_and_100_percent(f):
    """The md/pdf hit frequency (prob_pct) and the CLI solve's: the printed interval holds the
    certified one cut to [0, 1], and stays within [0 %, 100 %] (fig_pct printed "99.9995% ± 0.0010%")."""
    import dataclasses

    from analytic.cli.solve import format_table

    lo_c, hi_c = max(f.value - f.error, 0), min(f.value + f.error, 1)
    t = F.prob_pct(f)
    if m := re.fullmatch(rf"\[({_NUM})%, ({_NUM})%\] \(bounded\)", t):
        lo, hi = _q(m.group(1)) / 100, _q(m.group(2)) / 100
    else:
        lo, hi = (x / 100 for x in _pm(t, "%"))
    assert 0 <= lo <= lo_c and hi_c <= hi <= 1, (t, f)
    line = next(x for x in format_table(dataclasses.replace(_toy_result(), hit_frequency=f)).splitlines()
                if x.lstrip().startswith("hit frequency"))
    if m := re.search(rf"between ({_NUM}) % and ({_NUM}) %", line):
        lo, hi = _q(m.group(1)) / 100, _q(m.group(2)) / 100
    else:
        m = re.search(rf"({_NUM}) %  \(bounded, \+/- ({_NUM}) %\)", line)
        assert m, line
        c, e = _q(m.group(1)) / 100, _q(m.group(2)) / 100
        lo, hi = c - e, c + e
    assert 0 <= lo <= lo_c and hi_c <= hi <= 1, (line, f)
