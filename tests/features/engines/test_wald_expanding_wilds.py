"""Expanding wilds in the spins of engine ``wald``: the one-spin law against brute force, the feature
against the simulator, and the refusals of the other engines."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from analytic.engine.brute import brute_force
from analytic.engine.spin import CounterDef
from analytic.errors import ModelError
from analytic.features.engines.wald_spins import solve_free_spins
from analytic.features.graph.spin_outcomes import free_spin_outcomes
from analytic.model.loader import load_model_text

GAME = """
[game]
name = "Expanding free spins"
reels = 3
rows = 2
[symbols]
a = "regular"
b = "regular"
W = { role = "wild", multiplier = 2, expands = true }
S = "scatter"
[paytable]
a = { 2 = 1, 3 = 8 }
b = { 3 = 4 }
[scatter]
symbols = ["S"]
pays = { 2 = 1 }
[paylines]
lines = [[0, 0, 0], [1, 1, 1], [0, 1, 0]]
[reels]
base = [["a", "S", "b"], ["W", "S", "b", "a"], ["a", "b", "S"]]
free = [["a", "S", "b", "a"], ["W", "b", "S", "a", "b"], ["a", "W", "b", "S"]]
[features.fs]
kind = "free_spins"
reels = "free"
trigger = { symbols = ["S"], counts = { 2 = 3 } }
retrigger = { symbols = ["S"], counts = { 2 = 1 } }
multiplier = 3
"""


def test_one_spin_law_against_brute_force():
    g = load_model_text(GAME)
    counters = [CounterDef("S", frozenset({"S"}))]
    want: dict = defaultdict(int)
    for (s, _lt, lw), n in brute_force(g, "free", counters).items():
        award = 1 if s >= 2 else 0
        sp = 3 if s == 2 else 0  # scatter pays { 2 = 1 }: 1 x total bet = 3 line bets; 3 S pay nothing
        want[(award, 3 * (lw + sp))] += n
    got = free_spin_outcomes(g, "fs")
    assert got.joint == dict(want)
    # and the expansion matters here
    plain = g.__class__(**{**g.__dict__, "symbols": tuple(s.__class__(**{**s.__dict__, "expands": False})
                                                              for s in g.symbols)})
    assert free_spin_outcomes(plain, "fs").joint != got.joint


def test_feature_against_the_simulator():
    from analytic.simulator.evaluate import compile_tables
    from analytic.simulator.features.free_spins import play, prepare

    g = load_model_text(GAME)
    fr = solve_free_spins(g, "fs", 2)
    tables = compile_tables(g)
    n = 20_000
    b = play(tables, "fs", prepare(g, g.features["fs"]), np.full(n, 2), np.full(n, 3, dtype=np.int64),
             np.random.default_rng(4))
    mean = float(fr.mean.value) * g.total_bet  # ticks are line bets here
    sd = float(fr.second_moment.value - fr.mean.value ** 2) ** 0.5 * g.total_bet
    assert abs(b.win.mean() - mean) < 5 * sd / n ** 0.5


def test_other_engines_refused():
    text = GAME.replace("multiplier = 3", 'expanding_symbol = { choose_from = ["a"] }')
    with pytest.raises(ModelError) as e:
        load_model_text(text)
    assert "symbols.W.expands" in str(e.value) and "expanding_symbol" in str(e.value)
