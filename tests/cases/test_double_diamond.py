"""Double Diamond (IGT): any bar, cherries anywhere and a doubling wild, against slotopol's 19 printed returns.

Source: slotopol/server (github.com/slotopol/server, commit
f95504063d43b80aace6cb9937cf86710d7858c2), ``game/slot/igt/doublediamond/``:
the pays and line rules (``doublediamond_rule.go``) and 19 reel sets, each
with its "reels lengths", "total reshuffles" and "RTP = x%" printed above it
by slotopol's calculator (``doublediamond_data.yaml``; all quoted in the
header of ``tests/cases/double_diamond.toml``, one bet mode per reel set).

The oracle here is the rules read from the pay table as text (header of
the model), written as a function of the counts of each symbol on the line
-- not the model's groups, combos and wild -- and enumerated over the
symbol counts of each reel (7 x 7 x 7 combinations, weighted).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from analytic.engine.brute import line_win
from analytic.model.loader import load_model
from analytic.simulator.evaluate import compile_tables, evaluate_windows
from analytic.solver.round import solve_round

HERE = Path(__file__).parent
MODEL = HERE / "double_diamond.toml"
GAME = load_model(MODEL)
#: (reel set, lengths, total reshuffles, printed RTP) as quoted in the model's header
PRINTED = [(k, [int(x) for x in lens.split(",")], int(n), rtp) for k, lens, n, rtp in re.findall(
    r"^#   ([0-9.]+): \[([0-9, ]+)\], (\d+), ([0-9.]+)%$", MODEL.read_text(), re.M)]

THREE = {"diamond": 1000, "seven": 80, "bar3": 40, "bar2": 25, "bar1": 10, "cherry": 10}
BARS = {"bar3", "bar2", "bar1"}


def rule_pay(cells: tuple[str, ...]) -> int:
    """The pay of a line by the rules as written (one win, the highest)."""
    n = Counter(cells)
    d, ch = n["diamond"], n["cherry"]
    rest = [c for c in cells if c != "diamond"]
    if d == 3:
        return 1000
    if len(set(rest)) == 1 and rest[0] != "space":  # three of a kind, diamonds standing in
        return THREE[rest[0]] * 2 ** d
    if ch == 1 and d == 1:
        return 4
    if ch:
        return {1: 2, 2: 5}[ch]
    if all(c in BARS for c in rest):  # any three bars, doubled by a diamond
        return 5 * 2 ** d
    return 0


def test_printed_figures_quoted():
    assert len(PRINTED) == 19 and len(GAME.modes) == 19


@pytest.mark.parametrize("key,lengths,cycle,rtp", PRINTED)
def test_printed_return(key, lengths, cycle, rtp):
    strips = GAME.reel_sets[key]
    assert [len(s) for s in strips] == lengths
    assert len(strips[0]) * len(strips[1]) * len(strips[2]) == cycle
    r = solve_round(GAME, f"rtp_{key.replace('.', '_')}")
    counts = [Counter(s) for s in strips]
    total = sum(counts[0][a] * counts[1][b] * counts[2][c] * rule_pay((a, b, c))
                for a, b, c in itertools.product(*[sorted(x) for x in counts]))
    assert r.rtp.value == Fraction(total, cycle)
    half = Fraction(1, 2 * 10 ** 6)
    assert abs(r.rtp.value * 100 - Fraction(rtp)) <= half


def test_line_pays_by_hand():
    assert line_win(GAME, ["diamond"] * 3)[0] == 1000  # not multiplied
    assert line_win(GAME, ["seven", "diamond", "seven"])[0] == 160
    assert line_win(GAME, ["diamond", "bar1", "diamond"])[0] == 40
    assert line_win(GAME, ["bar1", "bar2", "diamond"])[0] == 10  # any bar x2
    assert line_win(GAME, ["seven", "bar2", "diamond"])[0] == 0  # no any seven
    assert line_win(GAME, ["space", "cherry", "space"])[0] == 2  # cherries anywhere
    assert line_win(GAME, ["cherry", "space", "cherry"])[0] == 5
    assert line_win(GAME, ["space", "diamond", "cherry"])[0] == 4
    assert line_win(GAME, ["cherry", "diamond", "cherry"])[0] == 20
    assert line_win(GAME, ["diamond", "cherry", "diamond"])[0] == 40
    assert line_win(GAME, ["diamond", "diamond", "space"])[0] == 0


def test_every_line_against_the_rules_and_the_simulator():
    syms = ["diamond", "seven", "bar3", "bar2", "bar1", "cherry", "space"]
    combos = list(itertools.product(syms, repeat=3))
    assert [line_win(GAME, list(c))[0] for c in combos] == [rule_pay(c) for c in combos]
    t = compile_tables(GAME)
    names = GAME.symbol_names
    sp = names.index("space")
    windows = np.array([[[sp, names.index(c), sp] for c in cells] for cells in combos], dtype=np.int16)
    got = evaluate_windows(t, windows).line_win
    assert [int(x) for x in got] == [rule_pay(c) * t.denom for c in combos]
