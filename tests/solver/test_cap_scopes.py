"""``[cap] spin`` and ``[cap] feature``: per-spin and per-feature win caps.

Oracle: the brute-force base spin (:func:`analytic.engine.brute.brute_force`)
and every order of a pick-until-collect board's tiles, each capped by hand,
mixed into the round's law; the simulator's round player.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest

from analytic.engine.base_game import base_counters
from analytic.engine.brute import brute_force
from analytic.errors import ModelError
from analytic.model.loader import load_model_text
from analytic.solver.distribution import round_law
from analytic.solver.round import solve_round

GAME = """
[game]
name = "Scoped caps"
reels = 3
rows = 1
[symbols]
a = "regular"
S = "scatter"
[paytable]
a = { 2 = 1, 3 = 9 }
[scatter]
symbols = ["S"]
pays = { 3 = 5 }
[paylines]
lines = [[0, 0, 0]]
[reels]
base = [["a", "S", "a"], ["a", "S", "a"], ["a", "S"]]
[features.chest]
kind = "pick_bonus"
trigger = { symbols = ["S"], counts = { 2 = 1 } }
board = { collect = 1, prizes = [[5, 1], [2, 1]], multipliers = [[3, 1]] }
[cap]
"""


def board_law():
    tiles = [("c", 0), ("p", 5), ("p", 2), ("m", 3)]
    law: dict = defaultdict(Fraction)
    orders = list(itertools.permutations(tiles))
    for order in orders:
        s, f = 0, 1
        for kind, v in order:
            if kind == "c":
                break
            if kind == "p":
                s += v
            else:
                f *= v
        law[s * f] += Fraction(1, len(orders))
    return law


def oracle(g, spin_cap, feature_cap, round_cap=None):
    """Round law (total-bet multiples; total bet = 1 line bet) from brute force, capped by hand."""
    counters = base_counters(g)
    names = [c.name for c in counters]
    cycle = g.cycle("base")
    bonus = board_law()
    out: dict = defaultdict(Fraction)
    for key, n in brute_force(g, "base", counters).items():
        vals = dict(zip(names, key[:-2]))
        sc = vals["scatter"]
        b = key[-1] + (5 if sc == 3 else 0)
        if spin_cap is not None:
            b = min(b, spin_cap)
        p = Fraction(n, cycle)
        feats = bonus.items() if vals["trigger:chest"] >= 2 else [(0, Fraction(1))]
        for x, q in feats:
            if feature_cap is not None:
                x = min(x, feature_cap)
            r = b + x
            if round_cap is not None:
                r = min(r, round_cap)
            out[Fraction(r)] += p * q
    return {x: p for x, p in out.items() if p}


@pytest.mark.parametrize("caps", [{"spin": 4}, {"feature": 8}, {"spin": 4, "feature": 8},
                                  {"spin": 4, "feature": 12, "total_bet_multiple": 15}])
def test_round_against_brute_force(caps):
    g = load_model_text(GAME + "\n".join(f"{k} = {v}" for k, v in caps.items()) + "\n")
    want = oracle(g, caps.get("spin"), caps.get("feature"), caps.get("total_bet_multiple"))
    r = solve_round(g)
    assert r.rtp.label == "exact"
    assert r.rtp.value == sum(x * p for x, p in want.items())
    assert r.second_moment.value == sum(x * x * p for x, p in want.items())
    assert {x: p for x, p in round_law(r).points.items() if p} == want
    # the RTP split adds up to the capped RTP
    assert sum(c.rtp.value for c in r.components) == r.rtp.value
    # and the caps bind in this game
    assert want != oracle(g, None, None)


def test_simulator_applies_the_caps():
    from analytic.simulator.evaluate import compile_tables
    from analytic.simulator.rounds import play_rounds

    g = load_model_text(GAME + "spin = 4\nfeature = 8\n")
    want = oracle(g, 4, 8)
    b = play_rounds(compile_tables(g), "base", 40_000, np.random.default_rng(5))
    assert set(np.unique(b.win).tolist()) <= {int(x) for x in want}
    mean = sum(x * p for x, p in want.items())
    sd = float(sum(x * x * p for x, p in want.items()) - mean * mean) ** 0.5
    assert abs(b.win.mean() - float(mean)) < 5 * sd / 40_000 ** 0.5


def test_refusals():
    fs = GAME.replace("[cap]", '[features.fs]\nkind = "free_spins"\nreels = "base"\n'
                               'trigger = { symbols = ["S"], counts = { 3 = 2 } }\n[cap]')
    for key, text in (("cap.spin", fs + "spin = 4\n"), ("cap.feature", fs + "feature = 4\n"),
                      ("cap.spin", GAME + "spin = 0\n"), ("cap", GAME)):
        with pytest.raises(ModelError) as e:
            load_model_text(text)
        assert f": {key}:" in str(e.value), str(e.value)
