"""The JSON par sheet's exact fractions: written out up to JSON_FRACTION_DIGITS digits, longer ones as a
float with their digit counts (a 5,000-digit denominator once stopped the whole report with a traceback:
Python refuses to print integers of more than 4,300 digits)."""

import json
from fractions import Fraction

from analytic.reports.json_ import JSON_FRACTION_DIGITS, _conv


def test_long_fractions_are_left_out_with_their_digits():
    short = Fraction(2, 3**600)  # 287 digits
    long_ = Fraction(1, 7**6000)  # 5,071 digits
    edge = [Fraction(1, 10**(JSON_FRACTION_DIGITS - 2)), Fraction(1, 10**(JSON_FRACTION_DIGITS - 1))]  # 1000, 1001
    d = json.loads(json.dumps(_conv({"a": short, "b": long_, "c": edge})))
    assert d["a"]["exact"] == f"2/{3**600}" and d["a"]["label"] == "exact"
    assert d["b"] == {"exact": None, "float": 0.0, "label": "exact", "exact_digits": [1, 5071]}
    assert d["c"][0]["exact"] == f"1/{10**(JSON_FRACTION_DIGITS - 2)}"
    assert d["c"][1]["exact"] is None and d["c"][1]["exact_digits"] == [1, JSON_FRACTION_DIGITS]


def test_session_probabilities_written_within_0_1():
    """The committed Book of Power sheet wrote its ruin within 100 rounds as 7.269e-10 +/- 7.27e-10
    (low end -1e-13) and Secrets of Christmas's as 0 +/- 1.788e-09: probabilities below 0. Every
    session probability of the JSON (P(end above start), risk of ruin, the autoplay's reasons) is
    written with value -/+ error in [0, 1], holding its certified interval cut to [0, 1]."""
    from analytic.figures import Figure
    from analytic.reports.json_ import _session
    from analytic.reports.model import AutoplayTable, SessionHorizon, SessionSection

    def b(v, e):
        return Figure(Fraction(v), "bounded", Fraction(e))

    certified = {"ruin": (Fraction("7.269e-10"), Fraction("7.27e-10")), "above": (Fraction(0), Fraction("1.788e-9")),
                 "single": (Fraction("0.9999999997"), Fraction("2.706e-9")), "r": (Fraction(0), Fraction("2.706e-9"))}
    h = SessionHorizon(100, "certified", Fraction(0), Figure(Fraction(1)), (), b(*certified["above"]),
                       b(*certified["ruin"]), None)
    a = AutoplayTable((), (("single win", b(*certified["single"])), ("ruin", b(*certified["r"]))), Figure(Fraction(1)),
                      (), Figure(Fraction(1)), b(*certified["above"]), "certified", Fraction(0))
    d = json.loads(json.dumps(_session(SessionSection(Fraction(100), Fraction(1), "total bets", "", "",
                                                      (h,), (), a, ""))))
    written = {"ruin": d["horizons"][0]["ruin"], "above": d["horizons"][0]["p_above_start"],
               "single": d["autoplay"]["reasons"]["single win"], "r": d["autoplay"]["reasons"]["ruin"],
               "above2": d["autoplay"]["p_above_start"]}
    for k, fig in written.items():
        c, e = Fraction(fig["exact"]), Fraction(repr(fig["error"]))
        v, err = certified[k.rstrip("2")]
        assert 0 <= c - e <= max(v - err, 0) and min(v + err, 1) <= c + e <= 1, (k, fig)
