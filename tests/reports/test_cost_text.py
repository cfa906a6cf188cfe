"""A bet mode's cost is printed as the model writes it: ``cost = "42.4"`` showed as 212/5."""

import random
from fractions import Fraction

from analytic.reports.format import cost_text


def test_cost_text_by_hand():
    assert cost_text(Fraction(212, 5)) == "42.4"
    assert cost_text(Fraction(131)) == "131"
    assert cost_text(Fraction(401, 2)) == "200.5"
    assert cost_text(Fraction(1, 3)) == "1/3"  # no terminating decimal: p/q
    assert cost_text(Fraction(7, 40)) == "0.175"


def test_cost_text_reads_back_exactly():
    """Python's own Fraction parser reads every printed decimal or p/q back to the same value; a
    denominator of only 2s and 5s (at most 12 decimals) prints as a decimal."""
    rng = random.Random(7)
    for _ in range(500):
        x = Fraction(rng.randrange(1, 10**9), 2 ** rng.randrange(0, 13) * 5 ** rng.randrange(0, 13)
                     * rng.choice((1, 1, 3, 7)))
        t = cost_text(x)
        assert Fraction(t) == x
        assert ("/" in t) == (x.denominator % 3 == 0 or x.denominator % 7 == 0)
