"""Seed games: the exact solver inside the simulator's 99.9 % band.

Book of Christmas Eve, Secrets of Christmas and Book of Power (models/*.toml,
rule texts in ../shared/seeds/) are played spin by spin by the simulator's
own players (analytic/simulator/features/<kind>.py) and compared with the
exact solver (``solve_round``; for Book of Power its kind's round solver
``solve_drawn_expanding_round``) for every bet mode: RTP, hit frequency and feature
frequency, |z| <= 3.29, fixed seeds.

The solvers report **uncapped** figures (the caps of Book of Christmas Eve
and Book of Power are bracketed separately, Secrets of Christmas has a
currency cap that depends on the stake), so the simulations here play the
games with the cap removed; the capped play is checked for the cap itself.

Known solver bug kept as a test
-------------------------------
``analytic/solver/round.py::_solve_buy`` labels the hit frequency of a
feature-buy mode ``exact`` 1 when the feature solver gives no win
distribution (every kind here), but a bought feature can win nothing: see
:func:`test_buy_feature_can_win_nothing` (a brute-force zero-win free spin)
and the ``xfail`` :func:`test_solver_buy_hit_frequency_not_claimed_exact_one`.
"""

from __future__ import annotations

import dataclasses
import os
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from analytic.cli.verify import Z_LIMIT, compare
from analytic.model.loader import load_model
from analytic.simulator.evaluate import compile_tables
from analytic.simulator.features import get_player
from analytic.simulator.rounds import play_rounds
from analytic.simulator.runner import simulate

MODELS = Path(__file__).resolve().parents[2] / "models"
SEED = 20261201

# (model, mode, rounds): sized for the whole file to run under 90 s (about
# 50 s with ``pytest -n 2``); the exact solves take most of it (Secrets of
# Christmas ~30 s, Book of Power's power modes ~12 s each).
CASES = [
    ("book_of_christmas_eve", "base", 300_000),
    ("book_of_christmas_eve", "buy", 60_000),
    ("secrets_of_christmas", "base", 300_000),
    ("book_of_power", "base", 300_000),
    ("book_of_power", "power_bet", 1_000_000),  # heavy-tailed Power Free Spins: small samples run low
    ("book_of_power", "buy_free_spins", 40_000),
    ("book_of_power", "buy_power_free_spins", 40_000),
]

#: Set ANALYTIC_SLOW=1 to also run the rule readings whose solves are slow.
SLOW = bool(os.environ.get("ANALYTIC_SLOW"))

from analytic.solver.round import solve_round as _solve_round


def _plain_round(game, mode, workspace=None):
    """The mode's round without cap or gamble (what the round solver hands its delegate)."""
    return _solve_round(game, mode, plain=True, workspace=workspace)


@lru_cache(maxsize=None)
def _game(name: str):
    return load_model(MODELS / f"{name}.toml")


def _variant(name: str, cap: bool = False, **rules):
    g = _game(name)
    return dataclasses.replace(g, cap=g.cap if cap else None, rules={**g.rules, **rules})


def _solve(game, mode):
    if any(f.engine == "drawn_expanding" for f in game.features.values()):
        from analytic.features.engines.drawn_expanding.engine import solve_drawn_expanding_round

        return solve_drawn_expanding_round(game, mode, plain=_plain_round(game, mode))
    from analytic.solver.round import solve_round

    if game.cap is not None and game.cap.total_bet_multiple is None:
        # a currency cap only: the headline figures compared are the uncapped ones (the cap depends on
        # the stake; the simulator plays at no stake), so the per-stake table is not solved here
        return solve_round(game, mode, plain=True)
    return solve_round(game, mode)


def _buy_without_distribution(exact) -> bool:
    """A buy mode whose hit frequency the solver sets to 1 without a distribution (the bug)."""
    return exact.base is None and all(fr.distribution is None for fr in exact.feature_results.values())


def _check(game, mode, rounds, skip_buy_hit=True):
    exact = _solve(game, mode)
    sim = simulate(game, mode, rounds=rounds, seed=SEED, progress=False)
    assert sim.limited_rounds == 0
    rows = compare(exact, sim)
    for row in rows:
        if skip_buy_hit and row["figure"] == "hit frequency" and _buy_without_distribution(exact):
            continue  # solver bug, see test_solver_buy_hit_frequency_not_claimed_exact_one
        assert abs(row["z"]) <= Z_LIMIT, (game.name, mode, row)
    return exact, sim


@pytest.mark.parametrize("name, mode, rounds", CASES)
def test_solver_inside_simulation_band(name, mode, rounds):
    game = _variant(name)
    assert mode in game.modes
    _check(game, mode, rounds)


def test_every_shipped_mode_is_covered():
    for path in sorted(MODELS.glob("*.toml")):
        game = load_model(path)
        covered = {m for n, m, _ in CASES if n == path.stem}
        if any(f.engine in ("revealed_wild_reels", "gift_pick", "drawn_expanding")
               for f in game.features.values()):
            assert covered == set(game.modes), (path.stem, set(game.modes) - covered)


# --------------------------------------------------------------------------
# other rule readings the solver supports


@pytest.mark.skipif(not SLOW, reason="extra exact solve; set ANALYTIC_SLOW=1")
def test_needs_symbol_reading():
    game = _variant("book_of_christmas_eve", wild_reels_expansion="needs_symbol")
    _check(game, "buy", 60_000)


@pytest.mark.skipif(not SLOW, reason="extra exact solve; set ANALYTIC_SLOW=1")
def test_count_minus_one_reading():
    game = _variant("book_of_power", expanding_repeat_multiplier="count_minus_one")
    _check(game, "buy_free_spins", 30_000)


@pytest.mark.skipif(not SLOW, reason="slow exact solves; set ANALYTIC_SLOW=1")
@pytest.mark.parametrize("rules", [
    {"golden_immediate": False},
    {"golden_symbol_retriggers": False},
    {"expanding_repeat_multiplier": "count_minus_one"},
])
def test_ladder_readings(rules):
    _check(_variant("book_of_power", **rules), "buy_power_free_spins", 6_000)


@pytest.mark.skipif(not SLOW, reason="slow exact solve (~40 s); set ANALYTIC_SLOW=1")
def test_gamble_always_rtp():
    from analytic.model.game import frozen_mapping

    g = _variant("book_of_power")
    m = g.modes["power_bet"]
    gamble = frozen_mapping({**m.params["gamble"], "policy": "always"})
    modes = {**g.modes, "power_bet": dataclasses.replace(m, params=frozen_mapping({**m.params, "gamble": gamble}))}
    game = dataclasses.replace(g, modes=modes)
    exact = _solve(game, "power_bet")
    sim = simulate(game, "power_bet", rounds=40_000, seed=SEED, progress=False)
    # solve_drawn_expanding_round shifts the mean, the second moment and the hit frequency under the
    # gamble: compare the RTP
    rtp = compare(exact, sim)[0]
    assert abs(rtp["z"]) <= Z_LIMIT, rtp


# --------------------------------------------------------------------------
# mechanics checked by brute force


def test_bop_power_trigger_preempts_regular():
    """Books with a Power Book start only the Power Free Spins (trigger frequencies, exact convolution)."""
    from fractions import Fraction

    game = _game("book_of_power")
    reg, pw = "free_spins", "power_free_spins"
    books = set(game.features[reg].trigger.symbols)
    power = set(game.features[pw].trigger.requires)
    dist = {(0, False): Fraction(1)}
    for strip in game.reel_sets["power"]:
        L = len(strip)
        per = {}
        for s in range(L):
            cells = [strip[(s + r) % L] for r in range(game.rows)]
            k = (sum(c in books for c in cells), any(c in power for c in cells))
            per[k] = per.get(k, 0) + Fraction(1, L)
        new = {}
        for (a, pa), x in dist.items():
            for (b, pb), y in per.items():
                new[(a + b, pa or pb)] = new.get((a + b, pa or pb), 0) + x * y
        dist = new
    p_reg = sum(v for (b, p), v in dist.items() if b >= 3 and not p)
    p_pow = sum(v for (b, p), v in dist.items() if b >= 3 and p)
    n = 400_000
    b = play_rounds(compile_tables(game), "power_bet", n, np.random.default_rng(SEED))
    # rounds that played each feature (never both)
    assert compile_tables(game).features[pw].preempts == (reg,)
    # a round plays at most one of them
    assert b.features[reg][0] + b.features[pw][0] == int(b.triggered.sum())
    for f, p in ((reg, p_reg), (pw, p_pow)):
        got = b.features[f][0] / n
        se = float(p * (1 - p) / n) ** 0.5
        assert abs(got - float(p)) <= Z_LIMIT * se, (f, got, float(p))


def _boce_spin(game, window, s, mult):
    """Scalar reference of one Book of Christmas Eve free spin (line-bet units).

    ``window[reel][row]`` names; ``mult[reel]`` the multiplier a Book reel reveals.
    """
    book = game.features["free_spins"].params["revealed_by"]
    is_book = [book in reel for reel in window]
    total = 0
    for line in game.lines:
        best = 0
        for cand, pays in game.paytable.items():
            run, m = 0, 1
            for r, row in enumerate(line):
                if is_book[r]:
                    m *= mult[r]
                elif window[r][row] != cand:
                    break
                run += 1
            best = max(best, pays.get(run, 0) * m)
        total += best
    shows = [not is_book[r] and s in window[r] for r in range(game.reels)]
    k = sum(1 for r in range(game.reels) if shows[r] or is_book[r])
    kmin = min(c for c, v in game.paytable[s].items() if v > 0)
    if k >= kmin and (game.rules["wild_reels_expansion"] == "pays" or any(shows)):
        prod = 1
        for r in range(game.reels):
            if is_book[r]:
                prod *= mult[r]
        total += game.paytable[s][k] * len(game.lines) * prod
    return total


def test_boce_player_matches_scalar_reference():
    """The vectorised free spin (virtual multiplier wilds + expansion) against a plain loop."""
    game = _game("book_of_christmas_eve")
    tables = compile_tables(game)
    prep = tables.features["free_spins"]
    player = get_player("revealed_wild_reels")
    rng = np.random.default_rng(SEED)
    for trial in range(300):
        # play one spin with a generator that reproduces: symbol draw, window, multipliers
        seed = int(rng.integers(1 << 30))
        g1 = np.random.default_rng(seed)
        res = player.play(tables, "free_spins", prep, np.array([3]), np.array([1]), g1, 10)
        g2 = np.random.default_rng(seed)
        from analytic.simulator.features import weighted_draw

        s_idx = weighted_draw(np.array([tables.index(n) for n in prep.choose_from]), prep.weights, 1, g2)[0]
        w = tables.spin(prep.reel_set, 1, g2)[0]
        which = weighted_draw(np.arange(len(prep.multipliers)), [x for _, x in prep.multipliers],
                              game.reels, g2)
        mult = [prep.multipliers[i][0] for i in which]
        window = [[tables.symbol_names[c] for c in reel] for reel in w]
        want = _boce_spin(game, window, tables.symbol_names[s_idx], mult)
        assert int(res.win[0]) == want * tables.denom, (window, tables.symbol_names[s_idx], mult)


def _soc_line_win(game, window, wild_syms):
    """Scalar reference of a Secrets of Christmas free-spin line win (line-bet units)."""
    wild = game.features["free_spins"].params["wild"]
    total = 0
    for line in game.lines:
        best = 0
        for cand, pays in game.paytable.items():
            run = 0
            for r, row in enumerate(line):
                c = window[r][row]
                if not (c == cand or c == wild or c in wild_syms):
                    break
                run += 1
            best = max(best, pays.get(run, 0))
        total += best
    return total


def test_soc_player_matches_scalar_reference():
    """Gifts (extra spins, multiplier, wild reels, wild symbols): the player against a plain loop."""
    game = _game("secrets_of_christmas")
    tables = compile_tables(game)
    prep = tables.features["free_spins"]
    player = get_player("gift_pick")
    from analytic.simulator.features.gift_pick import open_gifts

    rng = np.random.default_rng(SEED)
    for trial in range(40):
        seed = int(rng.integers(1 << 30))
        picks = np.array([5])
        res = player.play(tables, "free_spins", prep, picks, np.array([2]), np.random.default_rng(seed), 100)
        g2 = np.random.default_rng(seed)
        extra, mult, wild_reels, cls, _ = open_gifts(prep, picks, game.reels, g2)
        n = 2 + int(extra[0])
        assert int(res.spins[0]) == n
        wild_syms = {s for b, s in enumerate(prep.wild_symbols) if cls[0] >> b & 1}
        w = tables.spin(prep.reel_set, n, g2)
        want = 0
        for i in range(n):
            window = [[tables.symbol_names[c] for c in reel] for reel in w[i]]
            for r in range(game.reels):
                if wild_reels[0, r]:
                    window[r] = [prep.wild] * game.rows
            want += _soc_line_win(game, window, wild_syms)
        assert int(res.win[0]) == want * int(mult[0]) * tables.denom


# --------------------------------------------------------------------------
# the solver bug on buy-mode hit frequencies


def _zero_free_spin(game, feature, s):
    """A free-spin window of ``feature`` with no Book and no win for expanding symbol ``s`` (brute force)."""
    strips = game.reel_sets[game.features[feature].reel_set]
    import itertools

    for stops in itertools.product(*(range(len(st)) for st in strips)):
        window = [[st[(p + r) % len(st)] for r in range(game.rows)] for st, p in zip(strips, stops)]
        if any(c in game.features[feature].trigger.symbols for reel in window for c in reel):
            continue
        if _boce_spin(game, window, s, [1] * game.reels) == 0:
            return window
    return None


def test_buy_feature_can_win_nothing():
    """Book of Christmas Eve: a bought feature wins 0 with positive probability.

    For the drawn symbol ``ten`` (weight > 0) some free-spin window pays
    nothing and shows no Book, so 10 such spins (probability >= (1/34^5)^10
    > 0) win nothing: the buy mode's hit frequency is below 1.  The
    simulation measures P(win = 0) about 1e-3.
    """
    game = _game("book_of_christmas_eve")
    w = _zero_free_spin(game, "free_spins", "ten")
    assert w is not None
    sim = simulate(_variant("book_of_christmas_eve"), "buy", rounds=60_000, seed=SEED, progress=False)
    assert sim.hit_frequency < 1 - 3 * sim.hit_frequency_se


def test_solver_buy_hit_frequency_not_claimed_exact_one():
    from analytic.solver.round import solve_round

    exact = solve_round(_variant("book_of_christmas_eve"), "buy")
    hf = exact.hit_frequency
    assert not (hf.label == "exact" and hf.value == 1)


# --------------------------------------------------------------------------
# the caps


def test_caps_applied_and_theoretical_reading():
    from fractions import Fraction

    g = _game("book_of_power")
    game = dataclasses.replace(g, cap=dataclasses.replace(g.cap, total_bet_multiple=Fraction(20)))
    tables = compile_tables(game)
    b = play_rounds(tables, "buy_power_free_spins", 300, np.random.default_rng(SEED))
    cap = int(tables.cap_ticks)
    assert cap == 20 * tables.total_bet * tables.denom
    assert b.win.max() <= cap and b.capped.any()
    assert (b.win[b.capped] == cap).all() and (b.feature_win[b.capped] > cap).all()
    boce = _variant("book_of_christmas_eve", cap=True, published_max_win="theoretical")
    assert compile_tables(boce).features["free_spins"].uncapped
    assert not compile_tables(_variant("book_of_christmas_eve", cap=True)).features["free_spins"].uncapped


def test_currency_cap_applies_at_the_stake():
    """A currency cap binds at a stake where cap / stake is small (here 5 total bets)."""
    from fractions import Fraction as _F

    from analytic.model.loader import load_model as _load
    from analytic.simulator.runner import simulate as _sim

    game = _load(MODELS / "secrets_of_christmas.toml")
    stake = _F(game.cap.currency) / 5
    res = _sim(game, "base", rounds=20_000, seed=3, progress=False, stake=stake)
    assert res.capped_rounds > 0
    assert res.max_win <= 5
    free = _sim(game, "base", rounds=20_000, seed=3, progress=False)
    assert free.capped_rounds == 0 and free.max_win > 5
