"""Pick until a collect tile (``board``): the exact law against every order of the tiles.

Oracles: a hand count; enumeration of every permutation of the (labelled)
tiles on random small boards (hypothesis); the round's RTP, second moment
and law against the brute-force base spin mixed with the enumerated bonus
law; the simulator's own player.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from analytic.engine.base_game import base_counters
from analytic.engine.brute import brute_force
from analytic.errors import ModelError
from analytic.features.engines.pick_bonus import board_distribution
from analytic.model.loader import load_model_text
from analytic.solver.distribution import round_law
from analytic.solver.round import solve_round


def enumerate_board(collect: int, prizes: list, multipliers: list) -> dict:
    """Every order of the labelled tiles, equally likely: read up to the first collect tile."""
    tiles = [("c", 0)] * collect + [("p", v) for v, n in prizes for _ in range(n)] + \
            [("m", m) for m, n in multipliers for _ in range(n)]
    law: dict = defaultdict(int)
    total = 0
    for order in itertools.permutations(range(len(tiles))):
        s, f = 0, 1
        for i in order:
            kind, v = tiles[i]
            if kind == "c":
                break
            if kind == "p":
                s += v
            else:
                f *= v
        law[s * f] += 1
        total += 1
    return {x: Fraction(n, total) for x, n in sorted(law.items())}


def board(collect, prizes, multipliers=()):
    return {"collect": collect, "prizes": tuple(prizes), "multipliers": tuple(multipliers)}


def test_hand_count():
    # tiles C, 5, x2; six orders: C.. (2) -> 0; 5 C x2 -> 5; 5 x2 C -> 10; x2 C 5 -> 0; x2 5 C -> 10
    assert board_distribution(board(1, [(5, 1)], [(2, 1)])) == {0: Fraction(1, 2), 5: Fraction(1, 6),
                                                               10: Fraction(1, 3)}
    # C, C, 5: the prize comes first with probability 1/3
    assert board_distribution(board(2, [(5, 1)])) == {0: Fraction(2, 3), 5: Fraction(1, 3)}


@settings(max_examples=40, deadline=None)
@given(collect=st.integers(1, 3),
       prizes=st.lists(st.tuples(st.integers(0, 20), st.integers(1, 2)), min_size=1, max_size=3),
       multipliers=st.lists(st.tuples(st.integers(2, 4), st.integers(1, 2)), max_size=2))
def test_law_is_the_enumerated_law(collect, prizes, multipliers):
    if collect + sum(n for _, n in prizes) + sum(n for _, n in multipliers) > 7:
        return  # 8! orders and more: too slow for the suite
    # equal values merged as the loader does
    mp: dict = defaultdict(int)
    for v, n in prizes:
        mp[v] += n
    mm: dict = defaultdict(int)
    for v, n in multipliers:
        mm[v] += n
    got = board_distribution(board(collect, sorted(mp.items()), sorted(mm.items())))
    assert {x: p for x, p in got.items() if p} == enumerate_board(collect, prizes, multipliers)


GAME = """
[game]
name = "Board toy"
reels = 3
rows = 1
[symbols]
a = "regular"
S = "scatter"
[paytable]
a = { 3 = 4 }
[paylines]
lines = [[0, 0, 0]]
[reels]
base = [["a", "S"], ["a", "S", "a"], ["a", "S"]]
[features.chest]
kind = "pick_bonus"
trigger = { symbols = ["S"], counts = { 2 = 1 } }
board = { collect = 1, prizes = [[5, 1], [2, 1]], multipliers = [[3, 1]] }
"""


def test_round_against_brute_force():
    g = load_model_text(GAME)
    counters = base_counters(g)
    names = [c.name for c in counters]
    bonus = enumerate_board(1, [(5, 1), (2, 1)], [(3, 1)])
    oracle: dict = defaultdict(Fraction)
    cycle = g.cycle("base")
    for key, n in brute_force(g, "base", counters).items():
        vals = dict(zip(names, key[:-2]))
        p = Fraction(n, cycle)
        if vals["trigger:chest"] >= 2:
            for x, q in bonus.items():
                oracle[Fraction(key[-1] + x, g.total_bet)] += p * q
        else:
            oracle[Fraction(key[-1], g.total_bet)] += p
    mean = sum(x * p for x, p in oracle.items())
    m2 = sum(x * x * p for x, p in oracle.items())
    r = solve_round(g)
    assert r.rtp.label == "exact"
    assert r.rtp.value == mean
    assert r.second_moment.value == m2
    law = round_law(r)
    assert {x: p for x, p in law.points.items() if p} == {x: p for x, p in oracle.items() if p}


def test_load_refusals():
    def err(text):
        with pytest.raises(ModelError) as e:
            load_model_text(text)
        return str(e.value)

    line = "board = { collect = 1, prizes = [[5, 1], [2, 1]], multipliers = [[3, 1]] }"
    assert "features.chest.picks" in err(GAME.replace(line, line + "\npicks = { 1 = 1 }"))
    assert "features.chest.board.collect" in err(GAME.replace("collect = 1", "collect = 0"))
    assert "features.chest.board.multipliers[0][0]" in err(GAME.replace("[[3, 1]]", "[[1, 1]]"))
    assert "features.chest.board.prizes" in err(GAME.replace("prizes = [[5, 1], [2, 1]]", "prizes = []"))
    assert "features.chest.board.prize" in err(GAME.replace("[[5, 1], [2, 1]]", "[[5, 0]]"))
    big = "prizes = [" + ", ".join(f"[{v}, 3]" for v in range(1, 9)) + "]"
    assert "features.chest.board" in err(GAME.replace("prizes = [[5, 1], [2, 1]]", big))
    assert "at most 500" in err(GAME.replace("collect = 1,", "collect = 498,"))
    assert "features.chest.board.extra" in err(GAME.replace("collect = 1,", "collect = 1, extra = 2,"))


def test_simulator_plays_the_board():
    from analytic.simulator.evaluate import compile_tables
    from analytic.simulator.features.pick_bonus import play, prepare

    g = load_model_text(GAME)
    tables = compile_tables(g)
    prep = prepare(g, g.features["chest"])
    n = 60_000
    b = play(tables, "chest", prep, np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.int64),
             np.random.default_rng(11))
    vals, counts = np.unique(b.win, return_counts=True)
    exact = enumerate_board(1, [(5, 1), (2, 1)], [(3, 1)])
    assert set(vals.tolist()) == set(exact)
    for v, c in zip(vals.tolist(), counts.tolist()):
        p = float(exact[v])
        assert abs(c / n - p) < 5 * (p * (1 - p) / n) ** 0.5 + 1e-9
