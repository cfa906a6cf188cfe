"""``line_wild_pay = "first_non_wild"``: a substituted run that ends on a wild which
does not substitute for its symbol still pays when the first non-wild cell shows
that symbol.

Found by the differential harness (``tests/solver/test_differential.py``): on
the line ``V W A`` (``V`` substitutes for ``A``, ``W`` does not) the first
non-wild symbol is ``A``, whose run from the left is 1 (``V``), paying
``A``'s 1-count: 10 x ``V``'s multiplier 2 = 20.  The joint walk and the
combination table dropped the run at ``W`` (before the line's symbol was
fixed) and paid 0, while the brute force paid 20.  Hand-worked values for
the other lines: ``V W X`` (blank fixes the line) and ``V W W`` (only wilds,
no own pays) pay 0.
"""

import pytest

from analytic.engine.brute import window_line_wins
from analytic.model.loader import load_model_text
from analytic.engine.base_game import solve_base

MODEL = """
[game]
name = "pending run"
reels = 3
rows = 1
[symbols]
A = "regular"
X = "blank"
V = { role = "wild", substitutes = ["A"], multiplier = 2 }
W = { role = "wild", except = ["A"] }
[paytable]
A = { 1 = 10 }
[paylines]
lines = [[0, 0, 0]]
[reels]
base = [["V"], ["W"], [%s]]
[rules]
line_wild_pay = "first_non_wild"
"""


@pytest.mark.parametrize("third, pay", [('"A"', 20), ('"X"', 0), ('"W"', 0)])
def test_pending_run_pays_when_the_line_fixes_on_its_symbol(third, pay):
    game = load_model_text(MODEL % third)
    base = solve_base(game, "base")
    assert base.line_rtp == pay
    assert window_line_wins(game, [["V"], ["W"], [third.strip('"')]]) == (pay, 0)
    combos = [(c.symbol, c.count, c.multiplier, c.pay, c.hits) for c in base.combinations]
    assert combos == ([("A", 1, 2, 20, 1)] if pay else [])


def test_mixed_strips_walk_equals_brute():
    game = load_model_text((MODEL % '"A", "X", "W", "V"').replace('[["V"], ["W"]', '[["V", "A"], ["W", "V", "X"]'))
    base = solve_base(game, "base")
    total = 0
    for a in ["V", "A"]:
        for b in ["W", "V", "X"]:
            for c in ["A", "X", "W", "V"]:
                total += window_line_wins(game, [[a], [b], [c]])[0]
    assert base.line_rtp * base.cycle == total
