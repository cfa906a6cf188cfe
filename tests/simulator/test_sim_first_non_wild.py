"""The simulator honours ``line_wild_pay = "first_non_wild"`` (it played ``highest`` always).

Found by cross-checking the differential harness's oracle against the
simulator: on a first_non_wild game the simulated RTP was the ``highest``
reading's.  Hand-worked: ``W W A`` with ``W`` substituting for everything,
``A`` paying 10 for 3 and ``B`` 30 for 2: ``highest`` pays B's 2-run (30),
``first_non_wild`` fixes the line on ``A`` (10).  ``V W A`` (``V``
substitutes for ``A``, multiplier 2; ``W`` does not): ``A``'s 1-run, 10 x 2.
"""

import numpy as np
import pytest

from analytic.model.loader import load_model_text
from analytic.simulator.evaluate import compile_tables, evaluate_window, evaluate_windows

MODEL = """
[game]
name = "fnw"
reels = 3
rows = 1
[symbols]
A = "regular"
B = "regular"
W = "wild"
V = { role = "wild", substitutes = ["A"], multiplier = 2 }
U = { role = "wild", except = ["A"] }
[paytable]
A = { 1 = 10, 3 = 10 }
B = { 2 = 30 }
[paylines]
lines = [[0, 0, 0]]
[reels]
base = [["A", "B", "W", "V"], ["A", "B", "W", "U"], ["A", "B", "W"]]
[rules]
line_wild_pay = "%s"
"""


@pytest.mark.parametrize("reading, window, pay", [
    ("highest", "WWA", 30), ("first_non_wild", "WWA", 10),
    ("highest", "VUA", 20), ("first_non_wild", "VUA", 20),
    ("first_non_wild", "WWW", 0), ("first_non_wild", "WBA", 30),
])
def test_line_reading(reading, window, pay):
    game = load_model_text(MODEL % reading)
    w = [[c] for c in window]
    assert evaluate_window(game, w).win == pay
    t = compile_tables(game)
    arr = np.array([[[t.index(c)] for c in window]], dtype=np.int16)
    assert int(evaluate_windows(t, arr).line_win[0]) == pay * t.denom
