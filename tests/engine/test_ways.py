"""Ways pays (``[paylines] ways = true``, ``pays_both_ways``): the joint ways walk against oracles.

Oracles: the brute-force enumerator (:mod:`analytic.engine.brute`, every stop
combination and every way one by one), a way-by-way count of the
combination table written here, hand counts, and the simulator.
"""

from __future__ import annotations

import os

import dataclasses
import itertools
import random
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from analytic.engine import wayswalk
from analytic.engine.base_game import base_counters, solve_base, unit_scale
from analytic.engine.brute import brute_force
from analytic.engine.linewalk import walk, walk_arrays
from analytic.engine.spin import build_spin
from analytic.errors import ModelError
from analytic.model.loader import load_model_text

#: hypothesis examples: fewer in CI (the suite's 15-minute budget), all with ANALYTIC_SLOW=1
_SLOW = os.environ.get("ANALYTIC_SLOW") == "1"


def _toml(reels, rows, symbols, paytable, strips, *, both=False, scatter=None, total_bet=10, extra=""):
    out = ["[game]", 'name = "w"', f"reels = {reels}", f"rows = {rows}", f"total_bet = {total_bet}", "[symbols]"]
    out += [f"{k} = {v}" for k, v in symbols.items()]
    out += ["[paytable]"] + [f"{k} = {{ {', '.join(f'{n} = {p}' for n, p in v.items())} }}"
                             for k, v in paytable.items()]
    if scatter:
        out += ["[scatter]", f"symbols = {scatter[0]!r}".replace("'", '"'),
                f"pays = {{ {', '.join(f'{n} = {p}' for n, p in scatter[1].items())} }}"]
    out += ["[paylines]", "ways = true", f"pays_both_ways = {'true' if both else 'false'}"]
    out += ["[reels]", "base = " + repr([list(s) for s in strips]).replace("'", '"')]
    return "\n".join(out) + "\n" + extra


def _random_game(seed: int, both: bool):
    rng = random.Random(seed)
    rows = rng.randint(1, 4)
    reels = rng.randint(1, 5)
    while rows ** reels > 256:
        reels -= 1
    nreg = rng.randint(1, 4)
    regs = [f"R{i}" for i in range(nreg)]
    symbols = {r: '"regular"' for r in regs}
    pay = {r: {n: rng.choice([0, 1, 2, 5, 20]) for n in range(1, reels + 1)} for r in regs}
    pay = {r: ({n: p for n, p in v.items() if p} or {reels: 3}) for r, v in pay.items()}
    names = list(regs)
    for w in range(rng.randint(0, 2)):
        sub = rng.sample(regs, rng.randint(1, nreg))
        symbols[f"W{w}"] = (f'{{ role = "wild", multiplier = {rng.randint(1, 3)}, '
                            f'substitutes = {sub!r} }}'.replace("'", '"'))
        names.append(f"W{w}")
    scatter = None
    if rng.random() < 0.6:
        symbols["S"] = '"scatter"'
        names.append("S")
        if rng.random() < 0.5:
            symbols["K"] = f'{{ role = "wild_scatter", multiplier = {rng.randint(1, 2)} }}'
            names.append("K")
        sc = [n for n in ("S", "K") if n in symbols]
        scatter = (sc, {1: "\"1/2\"", 2: 3} if reels * rows >= 2 else {1: "\"1/2\""})
    if rng.random() < 0.4:
        symbols["X"] = '"blank"'
        names.append("X")
    cap = max(1, 900 // max(1, rows ** reels))
    strips = []
    for _ in range(reels):
        n = rng.randint(rows, rows + 3)
        strips.append([rng.choice(names) for _ in range(n)])
    while np.prod([len(s) for s in strips]) > max(cap, 64) and max(len(s) for s in strips) > rows:
        i = max(range(reels), key=lambda k: len(strips[k]))
        strips[i].pop()
    extra = ""
    if scatter:
        strips[rng.randrange(reels)][0] = "S"  # the trigger can show
    if scatter and rng.random() < 0.5:
        extra = ('[features.fs]\nreels = "base"\n'
                 f'trigger = {{ symbols = ["{scatter[0][0]}"], counts = {{ 1 = 2 }} }}\nmultiplier = 2\n')
    return load_model_text(_toml(reels, rows, symbols, pay, strips, both=both, scatter=scatter, extra=extra))


def _way_by_way_combinations(game):
    """``(symbol, run, multiplier) -> hits`` by listing every way of every window (oracle of the table)."""
    out: Counter = Counter()
    strips = game.reel_sets["base"]
    N = game.reels
    wins = [[[s[(k + r) % len(s)] for r in range(game.rows)] for k in range(len(s))] for s in strips]

    def supports(cell, cand):
        sym = game.symbol(cell)
        return cell == cand or (sym.is_wild and (sym.substitutes is None or cand in sym.substitutes))

    for window in itertools.product(*wins):
        for cand, pays in game.paytable.items():
            cells = [[c for c in col if supports(c, cand)] for col in window]
            dirs = [list(range(N))] + ([list(range(N - 1, -1, -1))] if game.pays_both_ways else [])
            left = 0
            for d, order in enumerate(dirs):
                n = 0
                while n < N and cells[order[n]]:
                    n += 1
                if d == 0:
                    left = n
                elif left == N:
                    continue
                if not pays.get(n, 0):
                    continue
                for way in itertools.product(*(cells[k] for k in order[:n])):
                    mu = 1
                    for c in way:
                        mu *= game.symbol(c).multiplier if game.symbol(c).is_wild else 1
                    out[(cand, n, mu)] += 1
    return out


@settings(max_examples=120 if _SLOW else 40, deadline=None)
@given(seed=st.integers(0, 10**9), both=st.booleans())
def test_walk_equals_brute_force(seed, both):
    g = _random_game(seed, both)
    cds = base_counters(g)
    spec = build_spin(g, "base", cds)
    assert walk(spec).table == brute_force(g, "base", cds)
    # the combination table, way by way
    combos = {(c.symbol, c.count, c.multiplier): c.hits for c in solve_base(g).combinations}
    assert combos == dict(_way_by_way_combinations(g))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), both=st.booleans())
def test_python_integer_path_equals_brute_force(seed, both):
    """Pays beyond 2**62 / (ways): the walk runs on Python integers (dicts), still equal to brute force."""
    g = _random_game(seed, both)
    big = {k: {n: p * 10**19 for n, p in v.items()} for k, v in g.paytable.items()}
    g = dataclasses.replace(g, paytable=big)
    cds = base_counters(g)
    spec = build_spin(g, "base", cds)
    assert walk_arrays(spec).line_win.dtype == object  # the Python-integer path
    table = walk(spec).table
    assert table == brute_force(g, "base", cds)


def test_group_rows_across_several_words():
    """The merge of rows wider than one int64 word (lexical sort of several packed words)."""
    rng = np.random.default_rng(5)
    cols = [rng.integers(0, 1 << 40, 3000) // (1 << 38) * (1 << 38) for _ in range(4)]
    w = rng.integers(1, 100, 3000)
    out, ws = wayswalk._group([c.astype(np.int64) for c in cols], w.astype(np.int64))
    expect: Counter = Counter()
    for row, x in zip(zip(*(c.tolist() for c in cols)), w.tolist()):
        expect[row] += x
    assert dict(zip(zip(*(c.tolist() for c in out)), ws.tolist())) == dict(expect)


HAND_MULT = _toml(2, 2, {"A": '"regular"', "B": '"regular"', "W": '{ role = "wild", multiplier = 2 }'},
                  {"A": {2: 5}, "B": {1: 1, 2: 10}}, [["A", "W"], ["A", "B", "A"]], total_bet=5)


def test_hand_counted_wild_multiplier():
    """2 reels x 2 rows, 6 stop combinations, counted by hand.

    Reel 1 shows (A, W) or (W, A): A has 1 + 2 = 3 weighted cells, B has 2
    (the x2 wild).  Reel 2 shows (A, B), (B, A) or (A, A).  (A, B) and
    (B, A): A pays 5 x 3 x 1 = 15, B pays 10 x 2 x 1 = 20, total 35.  (A, A):
    A pays 5 x 3 x 2 = 30, B's run is 1 and pays 1 x 2 = 2, total 32.  So
    the wins are {35: 4, 32: 2} over 6 (line-bet units; total bet 5).
    """
    g = load_model_text(HAND_MULT)
    r = solve_base(g)
    assert r.cycle == 6
    assert r.distribution == {35: 4, 32: 2}
    assert r.figures.mean == Fraction(35 * 4 + 32 * 2, 6 * 5)
    assert r.figures.hit_frequency == 1


@pytest.mark.parametrize("both", [False, True])
def test_no_symbol_pays_a_way(both):
    """A ways game whose every pay is 0 wins nothing on each of its 2 stop combinations.

    Regression (found by tests/solver/test_differential_keys.py): the ways
    walk raised ``ValueError: need at least one array to stack`` when no
    symbol had a pay above 0 (no candidate symbol to carry).
    """
    text = _toml(2, 1, {"A": '"regular"', "B": '"regular"'}, {"A": {1: 0}}, [["A", "B"], ["A"]], both=both)
    r = solve_base(load_model_text(text))
    assert r.cycle == 2
    assert r.distribution == {0: 2}
    assert r.figures.mean == 0 and r.figures.hit_frequency == 0


HAND_BOTH = _toml(3, 1, {"A": '"regular"', "B": '"regular"', "X": '"blank"'},
                  {"A": {2: 2, 3: 10}, "B": {1: 1}}, [["A", "B"], ["A", "X"], ["A", "B"]], total_bet=1)


@pytest.mark.parametrize("both, expected", [
    # AAA 10, AAB 2, AXA 0, AXB 0, BAA 1, BAB 1, BXA 1, BXB 1
    (False, {0: 2, 1: 4, 2: 1, 10: 1}),
    # AAA 10 (once), AAB 2+1, AXA 0, AXB 1, BAA 1+2, BAB 1+1, BXA 1, BXB 1+1
    (True, {0: 1, 1: 2, 2: 2, 3: 2, 10: 1}),
])
def test_hand_counted_both_ways(both, expected):
    """3 reels x 1 row, 8 stop combinations, each counted by hand (the comments)."""
    g = load_model_text(HAND_BOTH.replace("pays_both_ways = false", f"pays_both_ways = {str(both).lower()}"))
    assert solve_base(g).distribution == expected


def _refused(text, key):
    with pytest.raises(ModelError) as e:
        load_model_text(text, "g.toml")
    assert f"g.toml: {key}:" in str(e.value), str(e.value)


def test_refusals_at_load():
    base = HAND_MULT
    _refused(base.replace("ways = true", "ways = true\nlines = [[0, 0]]"), "paylines.lines")
    _refused(base.replace("total_bet = 5\n", ""), "game.total_bet")
    _refused(base.replace('A = { 2 = 5 }', 'A = { 2 = 5 }\nW = { 2 = 50 }'), "paytable.W")
    _refused(base + '[rules]\nline_wild_pay = "highest"\n', "rules.line_wild_pay")
    sc = base.replace('W = { role = "wild", multiplier = 2 }', 'W = { role = "wild", multiplier = 2 }\nK = "wild_scatter"').replace(
        '["A", "W"]', '["A", "W", "K"]')
    gift = sc + ('[features.fs]\nreels = "base"\ntrigger = { symbols = ["K"], counts = { 1 = 3 } }\n'
                 'gift_pick = { wild = "W", gifts = [{ effect = "spins", value = 1, count = 3 }] }\n')
    _refused(gift, "features.fs")
    exp = sc + ('[features.fs]\nreels = "base"\ntrigger = { symbols = ["K"], counts = { 1 = 3 } }\n'
                'expanding_symbol = { choose_from = ["A"] }\n')
    _refused(exp, "features.fs.expanding_symbol")
    bonus = base.replace('W = { role = "wild", multiplier = 2 }', 'W = { role = "wild", multiplier = 2 }\nL = "bonus"')
    bonus += '[line_triggers]\nL = { 2 = "pb" }\n[features.pb]\nkind = "pick_bonus"\npicks = { 1 = 1 }\nprizes = [[5, 1]]\n'
    _refused(bonus, "line_triggers")


# -- pays both ways on paylines ---------------------------------------------


def _random_lines_game(seed: int):
    """A random small paylines game with ``pays_both_ways = true`` (reading ``highest``)."""
    rng = random.Random(seed)
    g = _random_game(seed, True)
    rows, reels = g.rows, g.reels
    lines = sorted({tuple(rng.randrange(rows) for _ in range(reels)) for _ in range(rng.randint(1, 4))})
    pt = dict(g.paytable)
    for w in (s for s in g.symbols if s.role == "wild"):
        if rng.random() < 0.4:
            pt[w.name] = {reels: 7}  # a wild's own pays (allowed on paylines)
    return dataclasses.replace(g, ways=False, lines=tuple(lines), paytable=pt, total_bet=len(lines))


@settings(max_examples=100 if _SLOW else 40, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_lines_both_ways_walk_equals_brute_force(seed):
    g = _random_lines_game(seed)
    cds = base_counters(g)
    assert walk(build_spin(g, "base", cds)).table == brute_force(g, "base", cds)
    r = solve_base(g)
    assert sum(c.total_pay for c in r.combinations) * unit_scale(g) == r.line_total


HAND_LINES = """
[game]
name = "both ways on a line"
reels = 3
rows = 1
[symbols]
A = "regular"
B = "regular"
W = "wild"
[paytable]
A = { 1 = 1, 3 = 10 }
B = { 1 = 2, 2 = 4 }
[paylines]
lines = [[0, 0, 0]]
pays_both_ways = BOTH
[reels]
base = [["W"], ["A", "B"], ["A", "B"]]
"""


@pytest.mark.parametrize("both, expected", [
    # W A A: A x3 = 10; W A B: B x1 = 2 (A's 2-run pays nothing); W B A: B x2 = 4; W B B: A x1 = 1
    # (B's 3-run pays nothing)
    (False, {10: 1, 2: 1, 4: 1, 1: 1}),
    # right to left adds: W A A nothing (A's run covers every reel: paid once); W A B: B x1 = 2;
    # W B A: A x1 = 1; W B B nothing (B's run covers every reel)
    (True, {10: 1, 4: 1, 5: 1, 1: 1}),
])
def test_hand_counted_lines_both_ways(both, expected):
    g = load_model_text(HAND_LINES.replace("BOTH", str(both).lower()))
    assert solve_base(g).distribution == expected


def test_lines_both_ways_refusals():
    both = HAND_LINES.replace("BOTH", "true")
    _refused(both + '[rules]\nline_wild_pay = "first_non_wild"\n', "rules.line_wild_pay")
    bonus = both.replace('W = "wild"', 'W = "wild"\nL = "bonus"')
    bonus += '[line_triggers]\nL = { 2 = "pb" }\n[features.pb]\nkind = "pick_bonus"\npicks = { 1 = 1 }\nprizes = [[5, 1]]\n'
    _refused(bonus, "line_triggers")


@pytest.mark.parametrize("extra, key", [
    ('[groups]\nany = ["A", "B"]\n', "groups"),
    ('[combos.ab]\ncells = ["A", "B"]\npay = 3\n', "combos"),
    ('[anywhere_pays]\nA = { 1 = 1 }\n', "anywhere_pays"),
    ('[rules]\nline_wild_multipliers = "add"\n', "rules.line_wild_multipliers"),
    ('[rules]\nline_win_chosen_on = "base_pay"\n', "rules.line_win_chosen_on"),
])
@pytest.mark.parametrize("game", ["ways", "lines both ways"])
def test_classic_line_pays_refused_with_ways_and_both_ways(extra, key, game):
    """Groups, combos, anywhere pays and the line rules are solved on one-way paylines only."""
    text = HAND_MULT if game == "ways" else HAND_LINES.replace("BOTH", "true")
    _refused(text + extra, key)
