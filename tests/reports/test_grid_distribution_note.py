"""The note of a win distribution from a grid law (free spins with retriggers) says how far its RTP
column is from the exact RTP, checked against the rows' own sum."""

import re
from fractions import Fraction

from analytic.model.loader import load_model_text
from analytic.reports.model import build_sheet

RETRIGGER = """
[game]
name = "Tiny retrigger"
reels = 3
rows = 1

[symbols]
a = "regular"
s = "scatter"

[paytable]
a = { 3 = 5 }

[paylines]
lines = [[0, 0, 0]]

[reels]
base = [["a", "s", "a"], ["a", "s"], ["s", "a", "a"]]
free = [["a", "s", "a", "a"], ["a", "s", "a"], ["s", "a", "a", "a"]]

[features.fs]
reels = "free"
trigger = { symbols = ["s"], counts = { 3 = 2 } }
retrigger = { symbols = ["s"], counts = { 3 = 2 } }
multiplier = 3
"""


def test_grid_note_states_the_rows_gap(tmp_path):
    """A gap of exactly 0 was printed "within 0 percentage points"; the note now says the column
    adds up exactly when the rows' RTPs sum to the exact RTP, and a bound of the gap otherwise."""
    game = load_model_text(RETRIGGER, str(tmp_path / "g.toml"))
    (m,) = build_sheet(game, session=False).modes
    d = m.distribution
    assert "grid laws" in d.note  # the retriggering feature's law is a grid law
    gap = abs(m.rtp.value - sum((b.rtp for b in d.buckets), Fraction(0)))
    assert "within 0 percentage" not in d.note
    if gap == 0:
        assert "adds up to the exact RTP exactly." in d.note
    else:
        (bound,) = re.findall(r"adds up to the exact RTP within (\S+) percentage points", d.note)
        assert gap * 100 <= Fraction(bound)


def test_grid_gap_text_by_hand():
    """A gap of 0 adds up exactly (it printed "within 0 percentage points"); a gap of 1.234e-15 per
    unit staked is 1.234e-13 percentage points, rounded up to two digits: 1.3e-13; the sign is dropped."""
    from analytic.reports.model import grid_gap_text

    assert grid_gap_text(Fraction(0)) == "their RTP column adds up to the exact RTP exactly."
    assert grid_gap_text(Fraction(-1234, 10**18)).endswith("within 1.3e-13 percentage points.")
