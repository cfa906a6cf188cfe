"""``max_spins`` in engine ``wald`` (no retrigger): the feature plays ``min(award, max_spins)`` spins.

Oracles: the brute-force enumeration of one free spin's line wins
(:func:`analytic.engine.brute.brute_force`) composed by hand (``n`` i.i.d.
spins: mean ``n E[X]``, second moment ``n Var X + (n E[X])**2``); the
simulator's free-spins player.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest

from analytic.engine.brute import brute_force
from analytic.engine.spin import CounterDef
from analytic.errors import ModelError
from analytic.features.engines.wald_spins import solve_free_spins
from analytic.model.loader import load_model_text

GAME = """
[game]
name = "Ceiling toy"
reels = 3
rows = 1
[symbols]
a = "regular"
b = "regular"
s = "scatter"
[paytable]
a = { 3 = 6 }
b = { 2 = 1, 3 = 2 }
[paylines]
lines = [[0, 0, 0]]
[reels]
base = [["a", "s"], ["s", "b"], ["a", "s", "b"]]
free = [["a", "b"], ["a", "b", "b"], ["a", "b"]]
[features.fs]
kind = "free_spins"
reels = "free"
trigger = { symbols = ["s"], counts = { 2 = 2, 3 = 5 } }
max_spins = 3
"""


def one_spin_moments(game):
    law = brute_force(game, "free")
    cyc = sum(law.values())
    e1 = Fraction(sum(k[-1] * c for k, c in law.items()), cyc)
    e2 = Fraction(sum(k[-1] ** 2 * c for k, c in law.items()), cyc)
    return e1, e2


@pytest.mark.parametrize("count,spins", [(2, 2), (3, 3)])  # award 2 stays 2, award 5 is cut to 3
def test_moments_against_brute_force(count, spins):
    g = load_model_text(GAME)
    e1, e2 = one_spin_moments(g)
    r = solve_free_spins(g, "fs", count)
    assert r.expected_spins.value == spins
    assert r.mean.value == spins * e1  # total bet = 1 line bet
    assert r.second_moment.value == spins * (e2 - e1 * e1) + (spins * e1) ** 2


def test_simulator_plays_the_ceiling():
    from analytic.simulator.evaluate import compile_tables
    from analytic.simulator.features.free_spins import play, prepare

    g = load_model_text(GAME)
    tables = compile_tables(g)
    prep = prepare(g, g.features["fs"])
    n = 2000
    b = play(tables, "fs", prep, np.full(n, 3), np.full(n, 5, dtype=np.int64), np.random.default_rng(3))
    assert (b.spins == 3).all()


RETRIG = GAME.replace("max_spins = 3", 'max_spins = 4\nretrigger = { symbols = ["b"], counts = { 2 = 1, 3 = 3 } }')


def enumerate_paths(game, n, ceiling):
    """Every sequence of spin outcomes (award, win) from the brute-force spin law, played under the ceiling."""
    counters = [CounterDef("b", frozenset({"b"}))]
    cyc = game.cycle("free")
    outcomes: dict = defaultdict(Fraction)
    for (b, _lt, lw), c in brute_force(game, "free", counters).items():
        award = {0: 0, 1: 0, 2: 1, 3: 3}[b]
        outcomes[(award, lw)] += Fraction(c, cyc)
    law: dict = defaultdict(Fraction)
    spins = Fraction(0)

    def play(played, left, win, p):
        nonlocal spins
        if left == 0:
            law[win] += p
            spins += p * played
            return
        for (a, x), q in outcomes.items():
            play(played + 1, min(left - 1 + a, ceiling - played - 1), win + x, p * q)

    play(0, min(n, ceiling), 0, Fraction(1))
    return law, spins


@pytest.mark.parametrize("count", [2, 3])
def test_ceiling_with_a_retrigger_against_every_path(count):
    g = load_model_text(RETRIG)
    law, spins = enumerate_paths(g, {2: 2, 3: 5}[count], 4)
    r = solve_free_spins(g, "fs", count)
    assert r.mean.value == sum(x * p for x, p in law.items())
    assert r.second_moment.value == sum(x * x * p for x, p in law.items())
    assert r.expected_spins.value == spins
    assert r.spins_law.expected == spins and r.spins_law.tail == 0  # the exact chain of the spins played
    assert sum(p for _, p in r.spins_law.spins) == 1 and r.spins_law.n_max <= 4
    assert r.p_zero == law.get(0, 0)
    # the ceiling binds: without it the feature would be longer
    free = load_model_text(RETRIG.replace("max_spins = 4\n", ""))
    assert solve_free_spins(free, "fs", count).expected_spins.value > spins


def test_simulator_with_a_retrigger():
    from analytic.simulator.evaluate import compile_tables
    from analytic.simulator.features.free_spins import play, prepare

    g = load_model_text(RETRIG)
    r = solve_free_spins(g, "fs", 2)
    tables = compile_tables(g)
    n = 20_000
    b = play(tables, "fs", prepare(g, g.features["fs"]), np.full(n, 2), np.full(n, 2, dtype=np.int64),
             np.random.default_rng(8))
    assert b.spins.max() <= 4
    sd = float(r.second_moment.value - r.mean.value ** 2) ** 0.5
    assert abs(b.win.mean() - float(r.mean.value)) < 5 * sd / n ** 0.5
    assert abs(b.spins.mean() - float(r.expected_spins.value)) < 0.05


def test_large_ceiling_with_a_retrigger_refused():
    with pytest.raises(ModelError) as e:
        load_model_text(RETRIG.replace("max_spins = 4", "max_spins = 201"))
    assert "features.fs" in str(e.value) and "up to 200" in str(e.value)


def test_cap_on_a_ceiling_with_a_retrigger_refused_before_the_recursion(monkeypatch, tmp_path, capsys):
    """max_spins + a retrigger gives moments, no win law: a [cap] is refused at cap.total_bet_multiple,
    decided from one spin's law before the (spins played, spins left) recursion runs."""
    import analytic.features.engines.wald_spins as ws_mod
    from analytic.cli import main
    from analytic.solver.round import solve_round

    text = RETRIG + "\n[cap]\ntotal_bet_multiple = 5\n"

    def no_recursion(*a, **k):
        raise AssertionError("the ceiling recursion ran before the refusal")

    monkeypatch.setattr(ws_mod, "ceiling_moments", no_recursion)
    with pytest.raises(ModelError) as e:
        solve_round(load_model_text(text, path="ceiling.toml"))
    assert e.value.key == "cap.total_bet_multiple" and "max_spins" in e.value.reason
    model = tmp_path / "ceiling.toml"
    model.write_text(text)
    assert main(["solve", str(model)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith(f"error: {model}: cap.total_bet_multiple: ")


def test_cap_on_a_retrigger_without_ceiling_still_solves():
    """Without max_spins the same capped game has the certified retrigger law: not refused."""
    from analytic.solver.round import solve_round

    res = solve_round(load_model_text(RETRIG.replace("max_spins = 4\n", "") + "\n[cap]\ntotal_bet_multiple = 5\n"))
    assert res.extra["capped_rtp"].value < res.extra["uncapped_rtp"].value
