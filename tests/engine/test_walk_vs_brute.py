"""The joint line walk against the brute-force oracle, integer for integer.

Random small games (hypothesis) exercise every cell role the walk knows:
regular symbols, wilds with and without own pays, with multipliers and with
restricted substitution, scatters, books (wild_scatter), bonus symbols with
line triggers, blanks, paytables with zero rows and non-monotone pays.  The
walk's :class:`SpinDistribution` table must equal :func:`brute_force`'s,
counters included.

Hand-worked unit tests pin the line rule itself (both engines must agree with
a value worked out by hand from the rule text "highest win per line").
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analytic.engine.brute import brute_force, line_win
from analytic.engine.linewalk import walk
from analytic.engine.spin import CounterDef, build_spin
from analytic.model.game import BetMode, Game, ScatterPay, Symbol, frozen_mapping
from analytic.engine.combos import combination_table


def make_game(symbols, paytable, lines, strips, *, rows=1, scatter=None, line_triggers=None):
    """``symbols``: list of (name, role) or (name, role, Symbol kwargs)."""
    syms = tuple(Symbol(s[0], i, s[1], **(s[2] if len(s) > 2 else {})) for i, s in enumerate(symbols))
    return Game(
        path="<test>",
        name="test",
        reels=len(strips),
        rows=rows,
        symbols=syms,
        paytable=frozen_mapping({k: frozen_mapping(v) for k, v in paytable.items()}),
        lines=tuple(tuple(l) for l in lines),
        total_bet=len(lines),
        reel_sets=frozen_mapping({"base": tuple(tuple(s) for s in strips)}),
        scatter=scatter,
        modes=frozen_mapping({"base": BetMode("base", Fraction(1), "base")}),
        line_triggers=frozen_mapping({k: frozen_mapping(v) for k, v in (line_triggers or {}).items()}),
    )


# ---------------------------------------------------------------------------
# random games


@st.composite
def games(draw):
    reels = draw(st.integers(2, 4))
    rows = draw(st.integers(1, 3))
    nreg = draw(st.integers(2, 5))
    regs = [f"r{i}" for i in range(nreg)]
    pay = st.one_of(st.just(0), st.integers(0, 60))

    def pays_row(min_count=1):
        return {n: draw(pay) for n in range(min_count, reels + 1) if draw(st.booleans())}

    symbols = [(r, "regular") for r in regs]
    paytable = {}
    for r in regs:
        row = pays_row()
        if row:
            paytable[r] = row  # may be all zeros (a zero row)
    nwild = draw(st.integers(0, 2))
    for i in range(nwild):
        name = f"w{i}"
        role = draw(st.sampled_from(["wild", "wild", "wild_scatter"]))
        subs = None
        if draw(st.booleans()):
            subs = frozenset(draw(st.lists(st.sampled_from(regs), max_size=nreg, unique=True)))
        mult = draw(st.sampled_from([1, 1, 2, 3]))
        symbols.append((name, role, {"substitutes": subs, "multiplier": mult}))
        if draw(st.booleans()):
            row = pays_row()
            if row:
                paytable[name] = row
    scat = []
    if draw(st.booleans()):
        symbols.append(("S", "scatter"))
        scat.append("S")
    scat += [s[0] for s in symbols if s[1] == "wild_scatter"]
    line_triggers = {}
    if draw(st.booleans()):
        symbols.append(("B", "bonus"))
        line_triggers["B"] = {draw(st.integers(1, reels)): "bonus"}
    if draw(st.booleans()):
        symbols.append(("X", "blank"))
    names = [s[0] for s in symbols]
    strips = [
        draw(st.lists(st.sampled_from(names), min_size=rows, max_size=6)) for _ in range(reels)
    ]
    nlines = draw(st.integers(1, 5))
    lines = draw(
        st.lists(st.tuples(*[st.integers(0, rows - 1)] * reels), min_size=1, max_size=nlines, unique=True)
    )
    scatter = None
    if scat:
        scatter = ScatterPay(frozenset(scat), frozen_mapping({2: Fraction(1)}))
    game = make_game(symbols, paytable, lines, strips, rows=rows, scatter=scatter, line_triggers=line_triggers)
    counters = []
    if scat:
        counters.append(CounterDef("scatter", frozenset(scat), "cells"))
    # reels showing some symbol (an expanding-symbol style counter)
    counters.append(CounterDef("reels", frozenset({draw(st.sampled_from(names))}), "reels"))
    if draw(st.booleans()):
        counters.append(CounterDef("cells2", frozenset(draw(st.lists(st.sampled_from(names), min_size=1, max_size=3))), "cells"))
    return game, counters


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_walk_equals_brute_force(gc):
    game, counters = gc
    spec = build_spin(game, "base", counters)
    dist = walk(spec)
    oracle = brute_force(game, "base", counters)
    assert dist.cycle == sum(oracle.values()) == game.cycle("base")
    assert dist.table == oracle
    # the combination table (line by line) carries the same line-win total
    line_total = sum(k[-1] * c for k, c in dist.table.items())
    assert sum(c.total_pay for c in combination_table(spec)) == line_total


# ---------------------------------------------------------------------------
# hand-worked line rule


def one_line(cells, symbols, paytable, line_triggers=None):
    """Line win of a single 1-row window showing ``cells``: (walk, brute)."""
    game = make_game(symbols, paytable, [[0] * len(cells)], [[c] for c in cells], line_triggers=line_triggers)
    dist = walk(build_spin(game, "base"))
    assert dist.cycle == 1
    ((key, n),) = dist.table.items()
    assert n == 1
    return key[-1], line_win(game, list(cells))[0], key[-2]


SYMS = [("A", "regular"), ("K", "regular"), ("W", "wild"), ("S", "scatter"), ("X", "blank")]


@pytest.mark.parametrize(
    "wpay,apay,expected",
    [
        ({3: 50}, {4: 20}, 50),  # three wilds beat four A's
        ({3: 50}, {4: 100}, 100),  # four A's beat three wilds
        ({}, {3: 7, 4: 40}, 40),  # no own pay: W W W A is four A's (40 > K's 3-run 30)
    ],
)
def test_wwwa_highest(wpay, apay, expected):
    pt = {"A": apay, "K": {3: 30}}
    if wpay:
        pt["W"] = wpay
    assert one_line(["W", "W", "W", "A", "X"], SYMS, pt)[:2] == (expected, expected)


def test_wwwa_dropped_high_symbol():
    # K's 3-run (W W W) pays 30 > A's 4-run 20: K dropped at reel 4 must be kept
    pt = {"A": {4: 20}, "K": {3: 30}}
    assert one_line(["W", "W", "W", "A", "X"], SYMS, pt)[:2] == (30, 30)


def test_leading_wilds_then_scatter():
    pt = {"A": {2: 10}, "K": {2: 4}, "W": {2: 5}}
    assert one_line(["W", "W", "S", "A", "A"], SYMS, pt)[:2] == (10, 10)  # best of A(2)=10, K(2)=4, W(2)=5
    pt = {"A": {3: 10}, "K": {3: 4}, "W": {2: 5}}
    assert one_line(["W", "W", "S", "A", "A"], SYMS, pt)[:2] == (5, 5)  # only the wilds' own pay
    pt = {"A": {3: 10}}
    assert one_line(["W", "W", "S", "A", "A"], SYMS, pt)[:2] == (0, 0)


def test_wild_multipliers_multiply():
    syms = [("A", "regular"), ("W2", "wild", {"multiplier": 2}), ("W3", "wild", {"multiplier": 3}), ("X", "blank")]
    pt = {"A": {4: 10}}
    assert one_line(["W2", "A", "W3", "A", "X"], syms, pt)[:2] == (60, 60)
    assert one_line(["A", "W2", "W2", "A", "X"], syms, pt)[:2] == (40, 40)
    assert one_line(["A", "A", "A", "A", "W3"], syms, {"A": {4: 10, 5: 11}})[:2] == (33, 33)


def test_line_of_only_wilds():
    cells = ["W"] * 5
    assert one_line(cells, SYMS, {"A": {5: 500}, "K": {5: 200}, "W": {5: 1000}})[:2] == (1000, 1000)
    assert one_line(cells, SYMS, {"A": {5: 500}, "K": {5: 200}, "W": {5: 100}})[:2] == (500, 500)
    assert one_line(cells, SYMS, {"A": {5: 500}, "K": {5: 200}})[:2] == (500, 500)
    # restricted substitution: W stands in for K only
    syms = [("A", "regular"), ("K", "regular"), ("W", "wild", {"substitutes": frozenset({"K"})})]
    assert one_line(cells, syms, {"A": {5: 500}, "K": {5: 200}})[:2] == (200, 200)


def test_non_monotone_paytable_taken_at_its_word():
    pt = {"A": {3: 50, 4: 10, 5: 0}}
    assert one_line(["A", "A", "A", "X", "X"], SYMS, pt)[:2] == (50, 50)
    assert one_line(["A", "A", "A", "A", "X"], SYMS, pt)[:2] == (10, 10)
    assert one_line(["A", "A", "A", "A", "A"], SYMS, pt)[:2] == (0, 0)
    assert one_line(["W", "A", "W", "A", "A"], SYMS, pt)[:2] == (0, 0)


def test_bonus_line_trigger_not_substituted():
    syms = SYMS + [("B", "bonus")]
    lt = {"B": {3: "bonus"}}
    w, b, trig = one_line(["B", "B", "B", "A", "A"], syms, {"A": {2: 5}}, lt)
    assert (w, b, trig) == (0, 0, 1)
    w, b, trig = one_line(["B", "W", "B", "A", "A"], syms, {"A": {2: 5}}, lt)
    assert (w, b, trig) == (0, 0, 0)
    w, b, trig = one_line(["W", "B", "B", "A", "A"], syms, {"A": {1: 1, 2: 5}}, lt)
    assert (w, b, trig) == (1, 1, 0)  # W pays as a 1-run A; B run does not start
