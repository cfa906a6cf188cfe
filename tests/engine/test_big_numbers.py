"""No overflow: big pays, long strips, cycles and wins beyond 64 bits.

Expected values are computed here with Python integers from per-reel symbol
counts (``docs/derivations.md`` section 1: every payline has the same marginal,
the strip's symbol distribution on each reel), never read from the solver.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction


from analytic.engine.brute import brute_force, line_win
from analytic.engine.linewalk import walk
from analytic.engine.spin import CounterDef, build_spin
from analytic.model.game import BetMode, Game, ScatterPay, Symbol, frozen_mapping
from analytic.engine.base_game import solve_base

LINES_5x3 = [
    [1, 1, 1, 1, 1], [0, 0, 0, 0, 0], [2, 2, 2, 2, 2], [0, 1, 2, 1, 0], [2, 1, 0, 1, 2],
    [1, 0, 0, 0, 1], [1, 2, 2, 2, 1], [0, 0, 1, 2, 2], [2, 2, 1, 0, 0], [1, 0, 1, 2, 1],
]


def make_game(symbols, paytable, lines, strips, *, rows, scatter=None, total_bet=None):
    syms = tuple(Symbol(s[0], i, s[1], **(s[2] if len(s) > 2 else {})) for i, s in enumerate(symbols))
    return Game(
        path="<big>",
        name="big",
        reels=len(strips),
        rows=rows,
        symbols=syms,
        paytable=frozen_mapping({k: frozen_mapping(v) for k, v in paytable.items()}),
        lines=tuple(tuple(l) for l in lines),
        total_bet=len(lines) if total_bet is None else total_bet,
        reel_sets=frozen_mapping({"base": tuple(tuple(s) for s in strips)}),
        scatter=scatter,
        modes=frozen_mapping({"base": BetMode("base", Fraction(1), "base")}),
    )


def no_wild_line_moments(counts, lengths, paytable):
    """Sum over the cycle of one line's pay and squared pay, by hand.

    Without wilds a line pays ``pays[s][n]`` exactly when reels 1..n show ``s``
    and reel n+1 (if any) does not: ``prod_{i<n} c_i(s) * (L_n - c_n(s)) * prod_{i>n} L_i``.
    """
    r = len(lengths)
    s1 = s2 = 0
    for s, pays in paytable.items():
        for n, p in pays.items():
            k = 1
            for i in range(n):
                k *= counts[i][s]
            if n < r:
                k *= lengths[n] - counts[n][s]
                for i in range(n + 1, r):
                    k *= lengths[i]
            s1 += p * k
            s2 += p * p * k
    return s1, s2


def class_enumeration_moments(game, strips):
    """Sum of one line's pay and squared pay over the cycle, by enumerating
    symbol classes per reel (weight = product of per-reel counts) and judging
    each line with the rule-text oracle :func:`line_win`."""
    counts = [Counter(s) for s in strips]
    s1 = s2 = 0
    for combo in itertools.product(*[list(c.items()) for c in counts]):
        w = 1
        for _, n in combo:
            w *= n
        p = line_win(game, [sym for sym, _ in combo])[0]
        s1 += p * w
        s2 += p * p * w
    return s1, s2


def random_strips(rng, reels, length, weights):
    names = list(weights)
    return [rng.choices(names, weights=[weights[n] for n in names], k=length) for _ in range(reels)]


BIG_PAYS = {
    "seven": {3: 10000, 4: 50000, 5: 99999},
    "bar": {2: 1234, 3: 12345, 4: 23456, 5: 87654},
    "bell": {3: 11111, 4: 22222, 5: 33333},
    "plum": {3: 10001, 4: 10002, 5: 10003},
}


def test_linear_line_total_200_stops_no_wild():
    rng = random.Random(20261129)
    weights = {"seven": 3, "bar": 5, "bell": 6, "plum": 8, "blank": 6}
    strips = random_strips(rng, 5, 200, weights)
    syms = [(s, "regular") for s in BIG_PAYS] + [("blank", "blank")]
    game = make_game(syms, BIG_PAYS, LINES_5x3, strips, rows=3)
    counts = [Counter(s) for s in strips]
    s1, _ = no_wild_line_moments(counts, [200] * 5, BIG_PAYS)
    b = solve_base(game)
    assert b.cycle == 200**5
    assert b.line_total == len(LINES_5x3) * s1  # units = total_bet = 10 line bets; line pays are in line bets
    assert b.line_rtp == Fraction(len(LINES_5x3) * s1, 200**5 * len(LINES_5x3))
    assert sum(c.total_pay for c in b.combinations) == len(LINES_5x3) * s1


def test_second_moment_one_line_200_stops_no_wild():
    rng = random.Random(7)
    weights = {"seven": 4, "bar": 5, "bell": 6, "plum": 7, "blank": 5}
    strips = random_strips(rng, 5, 200, weights)
    syms = [(s, "regular") for s in BIG_PAYS] + [("blank", "blank")]
    game = make_game(syms, BIG_PAYS, [[1] * 5], strips, rows=3, total_bet=1)
    counts = [Counter(s) for s in strips]
    s1, s2 = no_wild_line_moments(counts, [200] * 5, BIG_PAYS)
    dist = walk(build_spin(game, "base"))
    assert dist.cycle == 200**5
    assert sum(k[-1] * c for k, c in dist.table.items()) == s1
    assert sum(k[-1] ** 2 * c for k, c in dist.table.items()) == s2
    f = solve_base(game).figures
    assert f.mean == Fraction(s1, 200**5)
    assert f.second_moment == Fraction(s2, 200**5)


def test_wilds_with_multipliers_200_stops():
    """Line total (3 lines) and one line's second moment with wilds that
    multiply, against the symbol-class enumeration with the oracle line rule.
    (3 lines, not 10: the walk of this wild game takes ~40 s on 10 lines.)"""
    rng = random.Random(99)
    weights = {"seven": 3, "bar": 5, "bell": 6, "plum": 8, "blank": 5, "W": 1, "W3": 1}
    strips = random_strips(rng, 5, 200, weights)
    syms = [(s, "regular") for s in BIG_PAYS] + [
        ("blank", "blank"),
        ("W", "wild", {"multiplier": 2}),
        ("W3", "wild", {"multiplier": 3, "substitutes": frozenset({"bell", "plum"})}),
    ]
    pays = dict(BIG_PAYS, W={2: 500, 3: 20000, 4: 60000, 5: 99999})
    lines = LINES_5x3[:3]
    game = make_game(syms, pays, lines, strips, rows=3)
    s1, s2 = class_enumeration_moments(game, strips)
    b = solve_base(game)
    assert b.line_total == len(lines) * s1
    assert sum(c.total_pay for c in b.combinations) == len(lines) * s1
    one = make_game(syms, pays, [[0, 1, 2, 1, 0]], strips, rows=3, total_bet=1)
    dist = walk(build_spin(one, "base"))
    assert sum(k[-1] * c for k, c in dist.table.items()) == s1
    assert sum(k[-1] ** 2 * c for k, c in dist.table.items()) == s2


def test_cycle_above_2_63():
    """6 reels of 2000 stops (cycle 6.4e19 > 2**63), mostly blanks."""
    rng = random.Random(1)
    reels, length = 6, 2000
    pays = {"A": {3: 50, 4: 500, 5: 5000, 6: 99999}, "B": {2: 5, 3: 20, 6: 10000}}
    strips = []
    for _ in range(reels):
        s = ["X"] * length
        for sym, n in (("A", 40), ("B", 60), ("S", 10)):
            for pos in rng.sample([i for i in range(length) if s[i] == "X"], n):
                s[pos] = sym
        strips.append(s)
    syms = [("A", "regular"), ("B", "regular"), ("S", "scatter"), ("X", "blank")]
    lines = [[1] * reels, [0] * reels, [2] * reels]
    scatter = ScatterPay(frozenset({"S"}), frozen_mapping({3: Fraction(7), 6: Fraction(1000)}))
    game = make_game(syms, pays, lines, strips, rows=3, scatter=scatter)
    cycle = length**reels
    assert cycle > 2**63
    counts = [Counter(s) for s in strips]
    s1, s2 = no_wild_line_moments(counts, [length] * reels, pays)
    dist = walk(build_spin(game, "base", [CounterDef("scatter", frozenset({"S"}))]))
    assert dist.cycle == cycle
    assert sum(dist.table.values()) == cycle
    assert sum(k[-1] * c for k, c in dist.table.items()) == len(lines) * s1
    # scatter-cell count distribution by hand: per reel, windows showing j stars
    per_reel = []
    for s in strips:
        c = Counter(sum(s[(i + r) % length] == "S" for r in range(3)) for i in range(length))
        per_reel.append(c)
    law = {0: 1}
    for c in per_reel:
        nxt: Counter = Counter()
        for a, wa in law.items():
            for j, wj in c.items():
                nxt[a + j] += wa * wj
        law = nxt
    got: Counter = Counter()
    for k, c in dist.table.items():
        got[k[0]] += c
    assert dict(got) == dict(law)
    b = solve_base(game)
    assert b.line_total == len(lines) * s1
    assert b.scatter_counts == dict(sorted(law.items()))
    # one line: exact second moment beyond 2**63
    one = make_game(syms, pays, [[1] * reels], strips, rows=3, total_bet=1)
    d1 = walk(build_spin(one, "base"))
    assert sum(k[-1] * c for k, c in d1.table.items()) == s1
    assert sum(k[-1] ** 2 * c for k, c in d1.table.items()) == s2
    assert s2 > 2**63


def test_pays_beyond_int64():
    """Wild multipliers 1000 on 6 reels: a line can pay 99999 x 1000**6 > 2**62."""
    strips = [["W", "A", "X"], ["W", "A", "X"], ["A", "W", "X"], ["W", "X", "A"], ["W", "A", "X"], ["A", "W", "X"]]
    syms = [("A", "regular"), ("W", "wild", {"multiplier": 1000}), ("X", "blank")]
    pays = {"A": {3: 7, 6: 99999}, "W": {2: 3, 6: 99999}}
    game = make_game(syms, pays, [[0] * 6, [1] * 6], strips, rows=2)
    dist = walk(build_spin(game, "base"))
    assert dist.table == brute_force(game, "base")
    # every strip has a W, so row 0 can show six wilds: 99999 x 1000**6 on that line alone
    assert max(k[-1] for k in dist.table) >= 99999 * 1000**6 > 2**63
