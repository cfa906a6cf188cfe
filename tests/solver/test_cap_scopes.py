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


FS = GAME.replace("[cap]", '[features.fs]\nkind = "free_spins"\nreels = "free"\n'
                          'trigger = { symbols = ["S"], counts = { 3 = 3 } }\nmultiplier = 2\n[cap]').replace(
    '[features.chest]', 'free = [["a", "S"], ["a", "a", "S"], ["a", "S", "S"]]\n[features.chest]')


def free_spin_law(g, spin_cap):
    """One free spin's win (x2, scatter pays included), capped: from brute force on reel set 'free'."""
    counters = base_counters(g)
    names = [c.name for c in counters]
    law: dict = defaultdict(Fraction)
    cycle = g.cycle("free")
    for key, n in brute_force(g, "free", counters).items():
        vals = dict(zip(names, key[:-2]))
        x = 2 * (key[-1] + (5 if vals["scatter"] == 3 else 0))
        law[min(x, spin_cap)] += Fraction(n, cycle)
    return law


def test_spin_cap_on_free_spins():
    # engine wald, no retrigger: 3 i.i.d. free spins, each capped; base spin capped too
    g = load_model_text(FS + "spin = 6\n")
    one = free_spin_law(g, 6)
    three: dict = {0: Fraction(1)}
    for _ in range(3):
        nxt: dict = defaultdict(Fraction)
        for a, p in three.items():
            for b, q in one.items():
                nxt[a + b] += p * q
        three = nxt
    counters = base_counters(g)
    names = [c.name for c in counters]
    cycle = g.cycle("base")
    bonus = board_law()
    want: dict = defaultdict(Fraction)
    for key, n in brute_force(g, "base", counters).items():
        vals = dict(zip(names, key[:-2]))
        b = min(key[-1] + (5 if vals["scatter"] == 3 else 0), 6)
        p = Fraction(n, cycle)
        # chest is declared first: a spin meeting both triggers starts chest only (first_declared_starts)
        feats = bonus.items() if vals["trigger:chest"] >= 2 else [(0, Fraction(1))]
        for x, q in feats:
            want[b + x] += p * q
    r = solve_round(g)
    assert r.rtp.value == sum(x * p for x, p in want.items())
    # the free spins alone (as if bought): the enumerated capped law
    from analytic.features.engines.wald_spins import solve_free_spins

    fr = solve_free_spins(g, "fs", 3)
    assert fr.mean.value == sum(x * p for x, p in three.items())
    assert fr.second_moment.value == sum(x * x * p for x, p in three.items())
    assert fr.mean.value < 3 * sum(x * p for x, p in free_spin_law(g, 10**9).items())  # the cap binds


def test_feature_cap_on_wald_free_spins():
    # fs the only feature: 3 i.i.d. free spins (x2), their total capped at 20; round capped at 25
    g = load_model_text(FS.replace('[features.chest]\nkind = "pick_bonus"\ntrigger = { symbols = ["S"], '
                                   'counts = { 2 = 1 } }\nboard = { collect = 1, prizes = [[5, 1], [2, 1]], '
                                   'multipliers = [[3, 1]] }\n', "") + "feature = 20\ntotal_bet_multiple = 25\n")
    assert list(g.features) == ["fs"]
    one = free_spin_law(g, 10**9)
    three: dict = {0: Fraction(1)}
    for _ in range(3):
        nxt: dict = defaultdict(Fraction)
        for a, p in three.items():
            for b, q in one.items():
                nxt[a + b] += p * q
        three = nxt
    counters = base_counters(g)
    names = [c.name for c in counters]
    cycle = g.cycle("base")
    want: dict = defaultdict(Fraction)
    for key, n in brute_force(g, "base", counters).items():
        vals = dict(zip(names, key[:-2]))
        b = key[-1] + (5 if vals["scatter"] == 3 else 0)
        p = Fraction(n, cycle)
        feats = three.items() if vals["trigger:fs"] >= 3 else [(0, Fraction(1))]
        for x, q in feats:
            want[min(b + min(x, 20), 25)] += p * q
    want = {x: p for x, p in want.items() if p}
    r = solve_round(g)
    assert r.rtp.label == "exact"
    assert r.rtp.value == sum(x * p for x, p in want.items())
    assert r.second_moment.value == sum(x * x * p for x, p in want.items())
    assert {x: p for x, p in round_law(r).points.items() if p} == want
    assert max(three) > 20  # the feature cap binds


def test_refusals():
    rwr = GAME.replace('S = "scatter"', 'S = "scatter"\nK = "wild_scatter"').replace(
        '[cap]', '[features.fs]\nkind = "free_spins"\nreels = "base"\n'
                 'trigger = { symbols = ["S"], counts = { 3 = 2 } }\n'
                 'wild_reels = { revealed_by = "K", multipliers = { 2 = 1 } }\n'
                 'expanding_symbol = { choose_from = ["a"] }\n[cap]')
    load_model_text(rwr.replace("[cap]\n", ""))  # loads without the caps
    fs_retrigger = FS.replace("multiplier = 2", 'multiplier = 2\nretrigger = { symbols = ["S"], counts = { 3 = 1 } }')
    for key, text in (("cap.spin", rwr + "spin = 4\n"), ("cap.feature", rwr + "feature = 4\n"),
                      ("cap.feature", fs_retrigger + "feature = 4\n"),
                      ("cap.spin", GAME + "spin = 0\n"), ("cap", GAME)):
        with pytest.raises(ModelError) as e:
            load_model_text(text)
        assert f": {key}:" in str(e.value), str(e.value)


def test_simulator_caps_each_free_spin():
    from analytic.simulator.evaluate import compile_tables
    from analytic.simulator.features.free_spins import play, prepare

    g = load_model_text(FS + "spin = 6\n")
    tables = compile_tables(g)
    n = 20_000
    b = play(tables, "fs", prepare(g, g.features["fs"]), np.full(n, 3), np.full(n, 3, dtype=np.int64),
             np.random.default_rng(9))
    one = free_spin_law(g, 6)
    e1 = sum(x * p for x, p in one.items())
    var = sum(x * x * p for x, p in one.items()) - e1 * e1
    assert b.win.max() <= 18
    assert abs(b.win.mean() - float(3 * e1)) < 5 * float(3 * var) ** 0.5 / n ** 0.5
