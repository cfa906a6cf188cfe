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
