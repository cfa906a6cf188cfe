"""The ``line_wild_pay`` rule: walk and combination table against brute force
under both readings, on random small games."""

import random
from types import MappingProxyType

import pytest
from hypothesis import given, settings, strategies as st

from analytic.engine.brute import brute_force, line_win
from analytic.engine.linewalk import walk
from analytic.engine.spin import CounterDef, build_spin
from analytic.model.game import Game, Symbol
from analytic.engine.combos import combination_table


def _game(seed: int, reading: str) -> Game:
    rng = random.Random(seed)
    nreg = rng.randint(2, 4)
    syms = [Symbol(f"S{i}", i, "regular") for i in range(nreg)]
    syms.append(Symbol("W", nreg, "wild", multiplier=rng.choice([1, 1, 2, 3])))
    syms.append(Symbol("B", nreg + 1, "wild_scatter"))
    syms.append(Symbol("X", nreg + 2, "scatter"))
    reels, rows = rng.randint(2, 4), rng.randint(1, 3)
    pt = {s.name: {n: rng.randint(0, 50) for n in range(rng.randint(1, 2), reels + 1)} for s in syms[: nreg + 1]}
    lines = tuple(tuple(rng.randrange(rows) for _ in range(reels)) for _ in range(rng.randint(1, 4)))
    names = [s.name for s in syms]
    strips = tuple(tuple(rng.choice(names) for _ in range(rng.randint(rows, 6))) for _ in range(reels))
    return Game("<t>", "t", reels, rows, tuple(syms), pt, lines, len(lines), {"base": strips},
                rules=MappingProxyType({"line_wild_pay": reading}))


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**9), reading=st.sampled_from(["highest", "first_non_wild"]))
def test_walk_equals_brute_force_under_both_readings(seed, reading):
    g = _game(seed, reading)
    cds = [CounterDef("sc", frozenset({"B", "X"}))]
    spec = build_spin(g, "base", cds)
    table = walk(spec).table
    assert table == brute_force(g, "base", cds)
    line_total = sum(k[-1] * n for k, n in table.items())
    assert sum(c.total_pay for c in combination_table(spec)) == line_total


@pytest.mark.parametrize("reading, expected, all_books", [("highest", 1000, 5000), ("first_non_wild", 150, 0)])
def test_book_led_line(reading, expected, all_books):
    # "book book book book ace": explorer x4 (1000) under the highest reading, ace x5 (150) otherwise
    syms = (Symbol("explorer", 0, "regular"), Symbol("ace", 1, "regular"), Symbol("book", 2, "wild_scatter"))
    pt = {"explorer": {2: 10, 3: 100, 4: 1000, 5: 5000}, "ace": {3: 5, 4: 40, 5: 150}}
    g = Game("<t>", "t", 5, 1, syms, pt, ((0,) * 5,), 1, {"base": ()},
             rules=MappingProxyType({"line_wild_pay": reading}))
    assert line_win(g, ["book", "book", "book", "book", "ace"])[0] == expected
    assert line_win(g, ["book"] * 5)[0] == all_books
