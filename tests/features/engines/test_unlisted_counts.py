"""A trigger count above the listed ones starts the feature with the award of the largest listed count
below it (docs/model-format.md, ``trigger.counts``), in every engine.

Found by the differential harness (``tests/solver/test_differential_engines.py``): engine
revealed_wild_reels started such a feature with the smallest count's spins (its test:
``test_revealed_wild_reels.py``); engines gift_pick and drawn_expanding raised ``KeyError`` (a
traceback, exit 1) on such a count.
"""

from __future__ import annotations

import sys
from pathlib import Path

from analytic.model.loader import load_model_text
from analytic.solver.round import solve_round

sys.path.insert(0, str(Path(__file__).resolve().parent / "drawn_expanding"))
import test_drawn_oracles as drawn  # noqa: E402  (the tiny Book of Power game)

GIFT = """
[game]
name = "unlisted gift count"
reels = 3
rows = 1

[symbols]
a = "regular"
b = "regular"
W = "wild"
S = "scatter"

[paytable]
a = { 2 = 1, 3 = 5 }
b = { 3 = 2 }

[paylines]
lines = [[0, 0, 0]]

[reels]
base = [["S"], ["S"], ["a"]]
free = [["a"], ["a"], ["a"]]

[features.fs]
kind = "free_spins"
reels = "free"
trigger = { symbols = ["S"], counts = { 1 = 2 } }

[features.fs.gift_pick]
wild = "W"
gifts = [{ effect = "spins", value = 1, count = 3 }]
"""


def test_gift_pick_by_hand():
    """One stop combination: 2 scatters (count 2, not listed) start counts[1] = 2 spins and pick 2 gifts
    of one more spin each: 4 spins of ``a a a`` paying 5 line bets (total bet 1 line): 20."""
    r = solve_round(load_model_text(GIFT, path="gift.toml"), "base")
    (f,) = r.features
    assert f.expected_spins.value == 4 and r.rtp.label == "exact" and r.rtp.value == 20


def test_drawn_expanding_reads_an_unlisted_count_as_the_largest_below():
    """The tiny Book of Power game (5 books can show in the base game) with ``counts = { 3 = 2, 4 = 3 }``
    solves the base game (where 5 books show) as with ``5 = 3`` written out."""
    text = drawn.TINY.replace("CAP", "1000")
    listed = "counts = { 3 = 2, 4 = 3, 5 = 4 }"
    assert text.count(listed) == 2
    short = load_model_text(text.replace(listed, "counts = { 3 = 2, 4 = 3 }"), path="short.toml")
    full = load_model_text(text.replace(listed, "counts = { 3 = 2, 4 = 3, 5 = 3 }"), path="full.toml")
    a, b = solve_round(short, "base"), solve_round(full, "base")
    assert (a.rtp, a.mean_win, a.second_moment, a.hit_frequency) == (b.rtp, b.mean_win, b.second_moment,
                                                                      b.hit_frequency)
    assert a.features[0].expected_spins == b.features[0].expected_spins
