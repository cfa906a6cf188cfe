"""The simulator's window evaluator against hand-worked windows."""

from fractions import Fraction

import numpy as np
import pytest

from analytic.model.game import FeatureSpec, ScatterPay, Trigger
from analytic.simulator.evaluate import compile_tables, evaluate_window, evaluate_windows
from simgames import fm, make_game

LINE = [[0, 0, 0, 0, 0]]


def one_line_game(paytable, symbols=None, **kw):
    symbols = symbols or [("W", "wild"), ("A", "regular"), ("B", "regular"), ("S", "scatter"), ("x", "blank")]
    names = [s[0] for s in symbols]
    return make_game(symbols, paytable, LINE, {"base": [names] * 5}, **kw)


def both(game, window):
    """Evaluate with the scalar and the vectorised evaluator; they must agree."""
    scalar = evaluate_window(game, window)
    t = compile_tables(game)
    idx = np.array([[[t.index(c) for c in reel] for reel in window]], dtype=np.int16)
    ev = evaluate_windows(t, idx)
    assert Fraction(int(ev.line_win[0]), t.denom) == scalar.line_win
    assert Fraction(int(ev.scatter_win[0]), t.denom) == scalar.scatter_win
    assert int(ev.scatter_count[0]) == scalar.scatter_count
    return scalar


def col(*cells):
    return [[c] for c in cells]


@pytest.mark.parametrize(
    "wild_pays, expected",
    [({3: 50}, 100), ({3: 200}, 200)],  # 4 A's pay 100: the higher of the two readings
)
def test_wild_own_pay_vs_substitution(wild_pays, expected):
    g = one_line_game({"W": wild_pays, "A": {3: 20, 4: 100, 5: 500}, "B": {3: 10}})
    assert both(g, col("W", "W", "W", "A", "x")).line_win == expected


def test_leading_wilds_then_scatter():
    g = one_line_game({"W": {2: 5, 3: 50}, "A": {2: 2, 3: 20}, "B": {3: 10}})
    # the scatter stops every candidate: W W counts as 2 wilds (5) or 2 A's (2)
    assert both(g, col("W", "W", "S", "A", "A")).line_win == 5
    g2 = one_line_game({"W": {3: 50}, "A": {2: 7, 3: 20}, "B": {3: 10}})
    assert both(g2, col("W", "W", "S", "A", "A")).line_win == 7


def test_all_wild_line_without_wild_pays_pays_best_symbol():
    g = one_line_game({"A": {5: 500}, "B": {5: 100}})
    assert both(g, col("W", "W", "W", "W", "W")).line_win == 500


def test_wild_multipliers_multiply():
    symbols = [("W", "wild", {"multiplier": 2}), ("A", "regular"), ("B", "regular"), ("S", "scatter"), ("x", "blank")]
    g = one_line_game({"W": {2: 5}, "A": {3: 10, 4: 40}}, symbols=symbols)
    assert both(g, col("W", "A", "A", "x", "x")).line_win == 20  # 3 A's x2
    assert both(g, col("A", "W", "W", "A", "x")).line_win == 160  # 4 A's x2x2
    assert both(g, col("W", "W", "x", "x", "x")).line_win == 20  # wild own pay 5 x2x2
    # a wild outside the run does not multiply
    assert both(g, col("A", "A", "A", "x", "W")).line_win == 10


def test_restricted_substitution():
    symbols = [("W", "wild", {"substitutes": frozenset({"A"})}), ("A", "regular"), ("B", "regular"), ("S", "scatter"), ("x", "blank")]
    g = one_line_game({"A": {3: 10}, "B": {3: 99}}, symbols=symbols)
    assert both(g, col("W", "B", "B", "x", "x")).line_win == 0
    assert both(g, col("W", "A", "A", "x", "x")).line_win == 10


def test_wild_does_not_substitute_bonus_or_another_wild():
    symbols = [("W", "wild"), ("V", "wild"), ("A", "regular"), ("L", "bonus"), ("x", "blank")]
    g = one_line_game({"V": {3: 30}, "A": {3: 10}}, symbols=symbols)
    # W V V: no V pay (W does not stand in for V), but three A's by substitution
    assert both(g, col("W", "V", "V", "x", "x")).line_win == 10
    g = one_line_game({"V": {3: 30}, "A": {4: 10}}, symbols=symbols)
    assert both(g, col("W", "V", "V", "x", "x")).line_win == 0
    assert both(g, col("V", "V", "V", "x", "x")).line_win == 30
    assert both(g, col("W", "L", "L", "x", "x")).line_win == 0


def test_scatter_anywhere_and_lines_add():
    names = ["W", "A", "B", "S", "x"]
    g = make_game(
        [("W", "wild"), ("A", "regular"), ("B", "regular"), ("S", "scatter"), ("x", "blank")],
        {"A": {3: 10}, "B": {3: 5}},
        [[0, 0, 0], [1, 1, 1], [0, 1, 0]],
        {"base": [names] * 3},
        rows=2,
        scatter=ScatterPay(frozenset({"S"}), fm({2: Fraction(1, 2), 3: Fraction(4)})),
    )
    # reels top/bottom: A/S, A/B, S/B -> 2 scatters (not on one line) pay 1/2 x total bet 3
    r = both(g, [["A", "S"], ["A", "B"], ["S", "B"]])
    assert r.scatter_count == 2 and r.scatter_win == Fraction(3, 2)
    assert r.line_win == 0
    r = both(g, [["A", "B"], ["A", "B"], ["A", "B"]])
    assert r.line_pays == (10, 5, 0) and r.line_win == 15


def test_triggers_and_line_triggers():
    symbols = [("W", "wild"), ("A", "regular"), ("L", "bonus"), ("S", "scatter"), ("x", "blank")]
    names = [s[0] for s in symbols]
    fs = FeatureSpec("fs", "free_spins", Trigger(frozenset({"S"}), fm({3: 10, 5: 20})), "base", fm({}))
    pb = FeatureSpec("buoy", "pick_bonus", None, None, fm({"picks": {1: 1}, "prizes": [[5, 1]]}))
    g = make_game(
        symbols, {"A": {3: 10}, "L": {3: 0}}, [[0] * 5, [1] * 5], {"base": [names] * 5}, rows=2,
        features={"fs": fs, "buoy": pb}, line_triggers={"L": {3: "buoy"}},
    )
    w = [["L", "S"], ["L", "S"], ["L", "S"], ["W", "S"], ["x", "A"]]
    r = evaluate_window(g, w)
    assert r.awards == {"fs": 10}  # 4 scatters: the award of the largest count not above 4
    assert r.line_triggers == ("buoy",)  # wilds never extend a bonus run
    t = compile_tables(g)
    ev = evaluate_windows(t, np.array([[[t.index(c) for c in reel] for reel in w]], dtype=np.int16))
    assert int(ev.awards["fs"][0]) == 10 and int(ev.line_trigger_hits["buoy"][0]) == 1


def test_vectorised_matches_scalar_on_random_windows():
    rng = np.random.default_rng(7)
    symbols = [
        ("W", "wild", {"multiplier": 3}),
        ("V", "wild", {"substitutes": frozenset({"A", "B"})}),
        ("A", "regular"), ("B", "regular"), ("C", "regular"),
        ("S", "scatter"), ("L", "bonus"), ("x", "blank"),
    ]
    names = [s[0] for s in symbols]
    lines = [[1, 1, 1, 1, 1], [0, 0, 0, 0, 0], [2, 2, 2, 2, 2], [0, 1, 2, 1, 0], [2, 1, 0, 1, 2]]
    g = make_game(
        symbols,
        {"W": {2: 5, 3: 30, 5: 1000}, "V": {3: 7}, "A": {2: 1, 3: 10, 4: 50, 5: 200},
         "B": {3: 8, 4: 40, 5: 100}, "C": {3: 5, 5: 60}},
        lines, {"base": [names] * 5}, rows=3,
        scatter=ScatterPay(frozenset({"S"}), fm({2: Fraction(1, 5), 3: Fraction(3)})),
    )
    t = compile_tables(g)
    wins = rng.integers(0, len(names), size=(400, 5, 3)).astype(np.int16)
    ev = evaluate_windows(t, wins)
    for i in range(len(wins)):
        r = evaluate_window(g, wins[i].tolist())
        assert tuple(Fraction(int(v), t.denom) for v in ev.line_pays[i]) == r.line_pays
        assert Fraction(int(ev.scatter_win[i]), t.denom) == r.scatter_win
