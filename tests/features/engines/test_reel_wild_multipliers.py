"""Mechanic ``reel_wild_multipliers`` (a wild's multiplier drawn per reel in each free spin).

Oracles: a hand count of a tiny game, the brute-force enumeration
(:func:`analytic.engine.brute.brute_force` with one fixed multiplier vector,
mixed over the draws here) on random small line and ways games (hypothesis),
the simulator's player against the hand count, and the refusals at load.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from analytic.engine.base_game import unit_scale
from analytic.engine.brute import brute_force
from analytic.engine.spin import CounterDef
from analytic.errors import ModelError
from analytic.features.engines.wald_spins import solve_free_spins
from analytic.features.graph.spin_outcomes import free_spin_outcomes
from analytic.model.loader import load_model_text
from analytic.solver.round import solve_round

TINY = """
[game]
name = "Drawn wild multipliers"
reels = 3
rows = 1
[symbols]
a = "regular"
W = "wild"
S = "scatter"
[paytable]
a = { 3 = 10 }
[paylines]
lines = [[0, 0, 0]]
[reels]
base = [["a", "S"], ["a", "S"], ["a", "S"]]
free = [["a"], ["a", "W"], ["a", "W"]]
[features.fs]
kind = "free_spins"
reels = "free"
trigger = { symbols = ["S"], counts = { 3 = 2 } }
reel_wild_multipliers = { wild = "W", reels = { 2 = { 2 = 1, 3 = 1 }, 3 = { 1 = 1, 4 = 1 } } }
"""

#: the hand count: 4 stops x 4 equally likely vectors (m2, m3) in {2, 3} x {1, 4}:
#: a a a pays 10 (4 vectors); a W a 10 m2 (20, 20, 30, 30); a a W 10 m3 (10, 40, 10, 40);
#: a W W 10 m2 m3 (20, 80, 30, 120)
HAND = {10: 6, 20: 3, 30: 3, 40: 2, 80: 1, 120: 1}


def test_tiny_game_by_hand():
    g = load_model_text(TINY)
    o = free_spin_outcomes(g, "fs")
    assert o.cycle == 16 and o.units == 1
    assert o.joint == {(0, x): n for x, n in HAND.items()}
    fr = solve_free_spins(g, "fs", 3)
    assert fr.mean.value == 2 * Fraction(490, 16)  # two spins of mean 30.625 line bets (one line)
    assert fr.second_moment.value == 2 * Fraction(sum(x * x * n for x, n in HAND.items()), 16) \
        + 2 * Fraction(490, 16) ** 2
    # the round: "a a a" (10) or 3 scatters (the feature), each on 1 stop combination of 8
    r = solve_round(g, "base")
    assert r.rtp.value == Fraction(10, 8) + Fraction(1, 8) * 2 * Fraction(490, 16)


def test_tiny_game_ways_two_rows_by_hand():
    """Ways: a reel's matching cells are counted by their multipliers (two W cells on reel 2: 2 m2)."""
    text = (TINY.replace("rows = 1", "rows = 2").replace("lines = [[0, 0, 0]]", "ways = true")
            .replace('name = "Drawn wild multipliers"', 'name = "Drawn wild multipliers"\ntotal_bet = 1')
            .replace('free = [["a"], ["a", "W"], ["a", "W"]]', 'free = [["a", "a"], ["W", "W"], ["a", "W"]]'))
    g = load_model_text(text)
    o = free_spin_outcomes(g, "fs")
    # every window (2 x 2 x 2 stops): reel 1 two a's (2), reel 2 two W's (2 m2), reel 3 one a and one W
    # (1 + m3): 10 x 2 x 2 m2 x (1 + m3) for (m2, m3) in {2, 3} x {1, 4}
    assert o.cycle == 8 * 4
    assert o.joint == {(0, 160): 8, (0, 400): 8, (0, 240): 8, (0, 600): 8}


def test_simulator_against_the_hand_count():
    from analytic.simulator.evaluate import compile_tables
    from analytic.simulator.features.free_spins import play, prepare

    g = load_model_text(TINY)
    tables = compile_tables(g)
    n = 40_000
    b = play(tables, "fs", prepare(g, g.features["fs"]), np.full(n, 3), np.full(n, 2, dtype=np.int64),
             np.random.default_rng(7))
    mean = 2 * 490 / 16
    var = 2 * (sum(x * x * c for x, c in HAND.items()) / 16 - (490 / 16) ** 2)
    assert abs(b.win.mean() / tables.denom - mean) < 5 * (var / n) ** 0.5
    # each value of the spin law shows with about its probability (spins are independent)
    one = b.win  # two spins each: check the sum's support is the hand law's pair sums
    assert set(np.unique(one // tables.denom).tolist()) <= {x + y for x in HAND for y in HAND}


def _refused(text: str, where: str) -> str:
    with pytest.raises(ModelError) as e:
        load_model_text(text, "t.toml")
    assert where in str(e.value), str(e.value)
    return str(e.value)


def test_refusals():
    key = "features.fs.reel_wild_multipliers"
    _refused(TINY.replace('wild = "W", reels', 'wild = "a", reels'), key + ".wild")
    _refused(TINY.replace('W = "wild"', 'W = { role = "wild", expands = true }'), key + ".wild")
    _refused(TINY.replace("3 = { 1 = 1, 4 = 1 }", "4 = { 1 = 1 }"), key + ".reels.4")
    _refused(TINY.replace("3 = { 1 = 1, 4 = 1 }", "1 = { 2 = 1 }"), key + ".reels.1")  # no W on reel 1
    _refused(TINY.replace("3 = { 1 = 1, 4 = 1 }", "3 = { 0 = 1 }"), key + ".reels.3.0")
    _refused(TINY.replace("3 = { 1 = 1, 4 = 1 }", "3 = { 2 = 0 }"), key + ".reels.3")
    _refused(TINY.replace('reels = "free"', 'reels = "free"\nexpanding_symbol = { choose_from = ["a"] }'),
             "features.fs")


# --------------------------------------------------------------------------
# solver == brute force on random small games

_SYMS = ["a", "b", "W", "V", "S"]


@st.composite
def _games(draw):
    rows = draw(st.integers(1, 2))
    ways = draw(st.booleans())
    strips = [draw(st.lists(st.sampled_from(_SYMS), min_size=rows, max_size=4)) for _ in range(3)]
    wild_reels = [r for r in (1, 2, 3) if "W" in strips[r - 1]]
    if not wild_reels:
        strips[1][0] = "W"
        wild_reels = [2]
    listed = draw(st.lists(st.sampled_from(wild_reels), min_size=1, unique=True))
    laws = {r: draw(st.dictionaries(st.integers(1, 5), st.integers(1, 3), min_size=1, max_size=3))
            for r in sorted(listed)}
    wmult = draw(st.integers(1, 3))
    retrigger = draw(st.booleans())
    if retrigger:  # 3 S must be able to show, and not on every spin (the feature must end in mean)
        strips = [s + ["S"] for s in strips]
        while _always_retriggers(strips, rows):
            for s in strips:
                s.append("a")
    fmult = draw(st.integers(1, 2))
    both = draw(st.booleans())
    return rows, ways, strips, laws, wmult, retrigger, fmult, both


def _always_retriggers(strips, rows: int) -> bool:
    """Every window shows 3 or more S: one extra spin per spin, a feature with no finite mean."""
    return all(sum(s[(k + r) % len(s)] == "S" for s, k in zip(strips, stops) for r in range(rows)) >= 3
               for stops in itertools.product(*[range(len(s)) for s in strips]))


def _text(rows, ways, strips, laws, wmult, retrigger, fmult, both) -> str:
    reels = ", ".join(f"{r} = {{ {', '.join(f'{m} = {w}' for m, w in law.items())} }}" for r, law in laws.items())
    strip = lambda s: "[" + ", ".join(f'"{c}"' for c in s) + "]"  # noqa: E731
    lines = "ways = true" if ways else ("lines = [[0, 0, 0]]" if rows == 1 else "lines = [[0, 0, 0], [1, 1, 1], [0, 1, 0]]")
    return f"""
[game]
name = "random"
reels = 3
rows = {rows}
total_bet = 3
[symbols]
a = "regular"
b = "regular"
W = {{ role = "wild", multiplier = {wmult} }}
V = {{ role = "wild", substitutes = ["a"], multiplier = 2 }}
S = "scatter"
[paytable]
a = {{ 1 = 1, 2 = 3, 3 = 7 }}
b = {{ 2 = 2, 3 = 5 }}
{'' if ways else 'W = { 3 = 20 }'}
[scatter]
symbols = ["S"]
pays = {{ 2 = 1 }}
[paylines]
{lines}
pays_both_ways = {'true' if both else 'false'}
[reels]
base = [["a", "S", "b"], ["S", "a", "W"], ["b", "S", "a"]]
free = [{", ".join(strip(s) for s in strips)}]
[features.fs]
kind = "free_spins"
reels = "free"
trigger = {{ symbols = ["S"], counts = {{ 2 = 2 }} }}
multiplier = {fmult}
{'retrigger = { symbols = ["S"], counts = { 3 = 1 } }' if retrigger else ''}
reel_wild_multipliers = {{ wild = "W", reels = {{ {reels} }} }}
"""


@settings(max_examples=40, deadline=None, derandomize=True)
@given(_games())
def test_solver_equals_brute_force(params):
    rows, ways, strips, laws, wmult, retrigger, fmult, both = params
    g = load_model_text(_text(*params))
    d = unit_scale(g)
    units = g.total_bet * d
    want: dict = defaultdict(int)
    total_w = 0
    for vec in itertools.product(*[list(law.items()) for law in laws.values()]):
        weight = 1
        rm = {}
        for r, (m, w) in zip(laws, vec):
            weight *= w
            rm[r - 1] = {"W": m}
        total_w += weight
        for (s, _lt, lw), n in brute_force(g, "free", [CounterDef("S", frozenset({"S"}))],
                                           reel_multipliers=rm).items():
            award = 1 if (retrigger and s >= 3) else 0
            x = fmult * (lw * d + (units if s == 2 else 0))
            want[(award, x)] += weight * n
    got = free_spin_outcomes(g, "fs")
    cycle = 1
    for s in strips:
        cycle *= len(s)
    assert got.cycle == cycle * total_w
    assert got.joint == dict(want)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(_games(), st.data())
def test_simulator_evaluation_equals_brute_force(params, data):
    """The simulator's evaluation with drawn cell multipliers against the brute force, window by window."""
    from analytic.engine.brute import window_line_wins, window_ways_win
    from analytic.simulator.evaluate import compile_tables, evaluate_windows

    rows, ways, strips, laws, *_ = params
    g = load_model_text(_text(*params))
    t = compile_tables(g)
    names = g.symbol_names
    windows, cms, want = [], [], []
    for stops in itertools.product(*[range(len(s)) for s in strips]):
        win = [[s[(k + r) % len(s)] for r in range(rows)] for s, k in zip(strips, stops)]
        rm = {r - 1: {"W": data.draw(st.sampled_from(sorted(law)))} for r, law in laws.items()}
        windows.append([[names.index(c) for c in col] for col in win])
        cms.append([[rm.get(k, {}).get(c, g.symbol(c).multiplier if g.symbol(c).is_wild else 1) for c in col]
                    for k, col in enumerate(win)])
        want.append(window_ways_win(g, win, rm) if ways else window_line_wins(g, win, rm)[0])
    ev = evaluate_windows(t, np.array(windows, dtype=np.int16), cell_multipliers=np.array(cms, dtype=np.int64))
    assert [int(x) for x in ev.line_win] == [w * t.denom for w in want]


def test_par_sheet_lists_the_draws():
    """The features section names the wild and every reel's multipliers and weights (as declared)."""
    import json

    from analytic.reports.json_ import render_json
    from analytic.reports.model import build_sheet

    g = load_model_text(TINY)
    f = json.loads(render_json(build_sheet(g, {})))["features"][0]
    assert f["declared"]["reel_wild_multipliers"] == {"wild": "W", "reels": {"2": {"2": 1, "3": 1},
                                                                            "3": {"1": 1, "4": 1}}}
    text = f["parameters"]["reel wild multipliers"]
    assert "W cells" in text and "reel 2: x2: 1, x3: 1 (of 2)" in text and "reel 3: x1: 1, x4: 1 (of 2)" in text


def test_spin_cap_on_the_mixture_by_hand():
    """``[cap] spin = 50``: each free spin of the hand count pays at most 50 (80 and 120 pay 50)."""
    g = load_model_text(TINY + "[cap]\nspin = 50\n")
    assert free_spin_outcomes(g, "fs").joint == {(0, 10): 6, (0, 20): 3, (0, 30): 3, (0, 40): 2, (0, 50): 2}
