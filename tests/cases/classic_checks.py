"""Checks shared by the classic-line public cases (coins, combos, blanks): no test of its own."""

from __future__ import annotations

import itertools

import numpy as np

from analytic.engine.brute import line_win
from analytic.model.game import coin_game
from analytic.simulator.evaluate import compile_tables, evaluate_windows


def assert_simulator_pays_like_brute(game) -> None:
    """Every window of a 3-reel, 1-row, 1-line ``game`` (each reel showing any of the symbols on its
    base strips), in every bet mode: the simulator's evaluator pays what the brute force's
    :func:`analytic.engine.brute.line_win` pays for the mode's coin game (two evaluators that share
    no code)."""
    t = compile_tables(game)
    names = game.symbol_names
    syms = sorted({s for strip in game.reel_sets["base"] for s in strip})
    combos = list(itertools.product(syms, repeat=3))
    windows = np.array([[[names.index(c)] for c in cells] for cells in combos], dtype=np.int16)
    for mode in game.modes:
        m = t.modes[mode]
        tables, f = (m["tables"], m["tick_factor"]) if m.get("tables") is not None else (t, 1)
        got = evaluate_windows(tables, windows).line_win * f
        g = coin_game(game, mode)
        assert [int(x) for x in got] == [line_win(g, list(c))[0] * t.denom for c in combos], mode
