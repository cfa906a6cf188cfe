"""Rule ``expanding_line_win = "wild_led_only"`` must not hide reel 1's expanding
symbol from the retrigger and scatter counts.

The solver withholds the normal line win of a line led by the expanding
symbol by renaming that symbol's cells on reel 1; the renamed cells were no
longer counted as retrigger or scatter symbols.  Found by the differential
harness (``tests/solver/test_differential.py``).  Hand-worked: two reels of
``[K, B]``, one row; ``K`` (a wild_scatter with line pays) is the expanding
symbol, the retrigger symbol (2 -> 1 spin) and the scatter (2 -> 10 x total
bet): both reels show ``K`` with probability 1/4, so ``E[A] = 1/4`` and the
scatter pays 10 x 1/4 = 5/2 per spin on average.
"""

from fractions import Fraction

import pytest

from analytic.features.graph.spin_outcomes import free_spin_outcomes
from analytic.model.loader import load_model_text

MODEL = """
[game]
name = "lead"
reels = 2
rows = 1
[symbols]
B = "regular"
K = "wild_scatter"
[paytable]
B = { 2 = 1 }
K = { 1 = 1 }
[scatter]
symbols = ["K"]
pays = { 2 = 10 }
[paylines]
lines = [[0, 0]]
[reels]
base = [["K", "B"], ["K", "B"]]
free = [["K", "B"], ["K", "B"]]
[features.fs]
kind = "free_spins"
reels = "free"
trigger = { symbols = ["K"], counts = { 2 = 1 } }
retrigger = { symbols = ["K"], counts = { 2 = 1 } }
expanding_symbol = { choose_from = ["K"] }
[rules]
expanding_line_win = "%s"
"""


@pytest.mark.parametrize("reading", ["paid", "wild_led_only"])
def test_reel_one_expanding_cells_still_count(reading):
    game = load_model_text(MODEL % reading)
    o = free_spin_outcomes(game, "fs", "K")
    assert o.mean_award == Fraction(1, 4)
    assert Fraction(o.scatter_sum, o.cycle * o.units) == Fraction(10, 4)
