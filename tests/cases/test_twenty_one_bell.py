"""21 Bell (Wizard of Odds slot appendix 5): two-symbol stops, cherries and X-X-bar combos.

Source: https://wizardofodds.com/games/slots/appendix/5/ ("The 21 Bell slot
machine", Michael Shackleford, last updated August 19, 2016), read from a
stored copy of the page: Table 1 (reel strips, 20 equally likely stops),
Table 2 (symbol frequency per reel), Table 3 (probability and return
combinations of every paying combination), the totals 1073 and 7556 of
8000, hit frequency 13.41% and return 94.45%.

The machine's conventions, as the page's numbers fix them:

* a stop showing two symbols ("bell and bar") counts as either one (Table
  2 counts it under both; 3 bars = 3 x 2 x 1 = 6 needs reel 1's "bell and
  bar", reel 2's "plum and bar" and reel 3's "7 and bar"); the model writes
  it as a wild whose ``substitutes`` are its two symbols;
* "X, X, bar" pays as three X (a combo each);
* cherries pay from the left ("cherry, any, any" = 2 x 14 x 20 = 560);
* one win per line: the twelve rows of Table 3 add up to the hit count
  (1073), so no stop combination is in two rows, and the solver's
  combination table must match the rows one to one.

Oracles: the published table itself, a brute-force enumeration of the 8000
stop combinations (:func:`analytic.engine.brute.line_win`) and the
simulator's evaluator.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np

from analytic.engine.base_game import solve_base
from analytic.engine.brute import line_win
from analytic.model.loader import load_model
from analytic.simulator.evaluate import compile_tables, evaluate_windows
from analytic.solver.round import solve_round

HERE = Path(__file__).parent
GAME = load_model(HERE / "twenty_one_bell.toml")

#: Table 3 as printed: (win, pays, probability combinations, return combinations)
TABLE3 = [
    ("3 sevens", 200, 1, 200),
    ("3 bars", 100, 6, 600),
    ("3 melons", 100, 8, 800),
    ("melon, melon, bar", 100, 4, 400),
    ("3 bells", 18, 40, 720),
    ("bell, bell, bar", 18, 5, 90),
    ("3 plums", 14, 63, 882),
    ("plum, plum, bar", 14, 21, 294),
    ("3 oranges", 10, 100, 1000),
    ("orange, orange, bar", 10, 25, 250),
    ("cherry, cherry, any", 5, 240, 1200),
    ("cherry, any, any", 2, 560, 1120),
]
#: the model's name for each row: (symbol or combo, count)
ROW_KEY = {
    "3 sevens": ("seven", 3), "3 bars": ("bar", 3), "3 melons": ("melon", 3),
    "melon, melon, bar": ("combo:melon_melon_bar", 3), "3 bells": ("bell", 3),
    "bell, bell, bar": ("combo:bell_bell_bar", 3), "3 plums": ("plum", 3),
    "plum, plum, bar": ("combo:plum_plum_bar", 3), "3 oranges": ("orange", 3),
    "orange, orange, bar": ("combo:orange_orange_bar", 3),
    "cherry, cherry, any": ("cherry", 2), "cherry, any, any": ("cherry", 1),
}
#: Table 2 as printed (reel 1, 2, 3); a two-symbol stop counts under both
TABLE2 = {"seven": (1, 1, 1), "bar": (3, 2, 1), "melon": (2, 2, 2), "bell": (1, 5, 8),
          "plum": (7, 3, 3), "orange": (5, 5, 4), "cherry": (2, 6, 0), "lemon": (0, 0, 4)}


def _printed(value: Fraction, text: str) -> bool:
    """``value`` (a fraction, as a percentage when ``text`` ends in %) rounds to ``text``."""
    pct = text.endswith("%")
    t = text.rstrip("%")
    v = value * 100 if pct else value
    half = Fraction(1, 2 * 10 ** len(t.split(".")[1]))
    return abs(v - Fraction(t)) <= half


def test_table2_symbol_frequency():
    def shows(stop: str, sym: str) -> bool:
        s = GAME.symbol(stop)
        return stop == sym or (s.is_wild and sym in s.substitutes)

    got = {sym: tuple(sum(shows(s, sym) for s in strip) for strip in GAME.reel_sets["base"])
           for sym in TABLE2}
    assert got == TABLE2
    assert [len(s) for s in GAME.reel_sets["base"]] == [20, 20, 20]


def test_table3_rows_one_to_one():
    b = solve_base(GAME)
    assert b.cycle == 8000  # "20^3 = 8000"
    rows = {(c.symbol, c.count): c for c in b.combinations if c.hits}
    assert set(rows) == set(ROW_KEY.values())  # nothing else pays
    for win, pays, prob, ret in TABLE3:
        c = rows[ROW_KEY[win]]
        assert (c.pay, c.hits, c.hits * c.pay) == (pays, prob, ret), win


def test_totals_hit_frequency_and_return():
    r = solve_round(GAME)
    assert sum(p for _, _, p, _ in TABLE3) == 1073 and sum(x for *_, x in TABLE3) == 7556
    assert r.hit_frequency.value == Fraction(1073, 8000)
    assert r.rtp.value == Fraction(7556, 8000)
    assert _printed(r.hit_frequency.value, "13.41%")
    assert _printed(r.rtp.value, "94.45%")


def _brute() -> Counter:
    out = Counter()
    for cells in itertools.product(*GAME.reel_sets["base"]):
        out[line_win(GAME, list(cells))[0]] += 1
    return out


def test_brute_force_enumeration():
    dist = _brute()
    assert sum(dist.values()) == 8000
    assert sum(n for w, n in dist.items() if w) == 1073
    assert sum(w * n for w, n in dist.items()) == 7556
    # the pays' distribution, from Table 3 (rows of equal pay merged)
    want = Counter()
    for _, pays, prob, _ in TABLE3:
        want[pays] += prob
    want[0] = 8000 - 1073
    assert dist == want


def test_simulator_evaluator_pays_the_same():
    t = compile_tables(GAME)
    names = GAME.symbol_names
    combos = list(itertools.product(*GAME.reel_sets["base"]))
    windows = np.array([[[names.index(c)] for c in cells] for cells in combos], dtype=np.int16)
    got = evaluate_windows(t, windows).line_win
    assert [int(x) for x in got] == [line_win(GAME, list(c))[0] * t.denom for c in combos]
