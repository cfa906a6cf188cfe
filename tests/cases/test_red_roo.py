"""Red Roo (1024 ways, slotopol reel set "92.470094") against the figures its calculator printed.

Source: slotopol/server (github.com/slotopol/server, commit
f95504063d43b80aace6cb9937cf86710d7858c2), ``game/slot/aristocrat/redroo/``:
``redroo_rule.go`` (pays, scatter pays, free-spin tables, rules) and
``redroo_data.yaml`` (the reel set and its printed figures, quoted in the
header of ``tests/cases/red_roo.toml``).  The game: 5 reels x 4 rows, 1024
ways from the left, 2 of a kind paying for the high symbols, a wild on
reels 2-4 substituting for every regular symbol, a scatter, cost 50 bets.

The figures printed for the base ("regular") game are pure ways and
scatter pays; the free games are the model's feature ``free_games``: each
free spin draws a wild multiplier of 2 or 3 (probability 1/2 each) for each
of reels 2, 3 and 4 (mechanic ``reel_wild_multipliers``), 3, 4, 5 scatters
award 8, 15, 20 free spins from the base game and 2, 3, 4, 5 award 5, 8, 15,
20 in the free games (retriggers, no limit).  Every printed figure is read
off the model's exact solve:

* "symbols: 152.01(lined) + 0.47439(scatter) = 152.485423%": one free
  spin's mean ways win and mean win (total-bet multiples);
* "free spins 162558160, q = 0.19894, sq = 1/(1-q)": the free spins a free
  spin awards, summed over the cycle, their mean ``q`` and the expected
  spins per awarded spin (Wald);
* "free games hit rate: 1/26.246": the probability that a free spin awards
  spins;
* "RTP = sq*rtp(sym) = 190.353978%": the feature's mean win per awarded
  spin; "RTP = ... = 92.470094%": the round's RTP.

Independent oracles besides the printed figures: the scatter counts are
convolved here from the strips by hand (one scatter per reel at most in a
window), a sampled check of the ways evaluation against the simulator's
evaluator, and the simulator's free games against the printed 190.353978 %.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from analytic.engine.base_game import solve_base
from analytic.features.engines.wald_spins import solve_free_spins, state_outcomes
from analytic.model.loader import load_model
from analytic.simulator.evaluate import compile_tables, evaluate_windows
from analytic.solver.round import solve_round
from analytic.workspace import Workspace

HERE = Path(__file__).parent
MODEL = HERE / "red_roo.toml"
GAME = load_model(MODEL)

#: free spins awarded per scatter count (redroo_rule.go)
FS_BASE = {3: 8, 4: 15, 5: 20}
FS_FREE = {2: 5, 3: 8, 4: 15, 5: 20}


def printed(value: Fraction, text: str, *, percent: bool = False) -> None:
    """Assert that ``value`` rounds to ``text`` at its printed precision."""
    t = text.rstrip("%")
    v = value * 100 if percent else value
    decimals = len(t.split(".")[1]) if "." in t else 0
    assert abs(v - Fraction(t)) <= Fraction(1, 2 * 10**decimals), f"{float(v)!r} vs {text}"


def _scatter_law() -> dict[int, int]:
    """Stop combinations per number of visible scatters, by hand from the strips."""
    law = {0: 1}
    for strip in GAME.reel_sets["base"]:
        n = len(strip)
        per = {}
        for stop in range(n):
            k = sum(strip[(stop + r) % n] == "scatter" for r in range(GAME.rows))
            per[k] = per.get(k, 0) + 1
        new: dict[int, int] = {}
        for a, x in law.items():
            for b, y in per.items():
                new[a + b] = new.get(a + b, 0) + x * y
        law = new
    return law


@pytest.fixture(scope="module")
def base():
    return solve_base(GAME)


@pytest.fixture(scope="module")
def ws():
    """One solve's workspace for the module (the free spin's law is walked once)."""
    return Workspace(GAME)


@pytest.fixture(scope="module")
def free_spin(ws):
    """One free spin's exact law (the mixture over the 8 drawn multiplier vectors)."""
    (_w, _s, o), = state_outcomes(GAME, "free_games", ws)
    return o


def test_cycle_and_wild_reels(base):
    assert base.cycle == 817131600  # "total reshuffles"
    assert [len(s) for s in GAME.reel_sets["base"]] == [60, 61, 61, 61, 60]  # "reels lengths"
    assert [("wild" in s) for s in GAME.reel_sets["base"]] == [False, True, True, True, False]


def test_regular_games_symbols(base):
    printed(base.line_rtp, "87.917", percent=True)
    printed(base.scatter_rtp, "0.47439", percent=True)
    printed(base.line_rtp + base.scatter_rtp, "88.391276%", percent=True)


def test_scatter_law_by_hand(base):
    law = _scatter_law()
    assert sum(law.values()) == base.cycle
    assert {k: v for k, v in base.scatter_counts.items() if v} == {k: v for k, v in law.items() if v}
    pays = {3: Fraction(8, 5), 4: Fraction(8), 5: Fraction(16)}
    assert base.scatter_rtp == sum(pays.get(k, 0) * v for k, v in law.items()) / base.cycle


def test_regular_games_free_spins():
    law = _scatter_law()
    cycle = sum(law.values())
    spins = sum(FS_BASE.get(k, 0) * v for k, v in law.items())
    assert spins == 17509120  # "free spins 17509120"
    q = Fraction(spins, cycle)
    printed(q, "0.021428")
    printed(1 / (1 - q), "1.021897")
    hits = sum(v for k, v in law.items() if k in FS_BASE)
    printed(Fraction(cycle, hits), "384.77")  # "free games hit rate: 1/384.77"


def test_free_games_figures(free_spin):
    o = free_spin
    assert o.cycle == 817131600 * 8  # the cycle times the 8 equally likely multiplier vectors
    printed(Fraction(o.line_sum, o.cycle * o.units), "152.01", percent=True)  # "152.01(lined)"
    printed(Fraction(o.scatter_sum, o.cycle * o.units), "0.47439", percent=True)  # "0.47439(scatter)"
    printed(o.mean_win, "152.485423%", percent=True)
    q = o.mean_award
    assert q * 817131600 == 162558160  # "free spins 162558160"
    printed(q, "0.19894")
    printed(1 / (1 - q), "1.248342")
    hits = sum(c.weight for a, c in o.classes.items() if a > 0)
    printed(Fraction(o.cycle, hits), "26.246")  # "free games hit rate: 1/26.246"


def test_free_games_rtp_and_total(ws):
    fr = solve_free_spins(GAME, "free_games", 3, ws=ws)  # 8 free games
    assert fr.mean.label == "exact"
    printed(fr.mean.value / 8, "190.353978%", percent=True)  # "RTP = sq*rtp(sym)"
    printed(fr.expected_spins.value / 8, "1.248342")  # "sq"
    r = solve_round(GAME, "base", workspace=ws)
    assert r.rtp.label == "exact"
    printed(r.rtp.value, "92.470094%", percent=True)  # "RTP = 88.391(sym) + 0.021428*190.35(fg)"


def test_free_games_against_the_simulator():
    """The simulator's free games (its own draws and ways evaluation) against the printed 190.353978 %."""
    from analytic.simulator.features.free_spins import play, prepare

    t = compile_tables(GAME)
    n = 10_000
    b = play(t, "free_games", prepare(GAME, GAME.features["free_games"]), np.full(n, 3),
             np.full(n, 8, dtype=np.int64), np.random.default_rng(5))
    per_spin = b.win.sum() / (t.denom * GAME.total_bet) / b.spins.sum()
    # per spin: mean 1.5249 total bets (printed), SD about 4.9 (the spins of a feature are i.i.d.)
    assert abs(per_spin - 1.52485423) < 5 * 4.9 / b.spins.sum() ** 0.5
    assert abs(b.spins.mean() / 8 - 1.248342) < 0.05
def test_ways_evaluation_matches_the_simulator_on_sampled_windows():
    """The simulator's own ways evaluation agrees with a hand count on sampled windows."""
    rng = np.random.default_rng(22)
    t = compile_tables(GAME)
    names = GAME.symbol_names
    strips = GAME.reel_sets["base"]
    pays = GAME.paytable
    wins = []
    windows = []
    for _ in range(300):
        win = [[strip[(s + r) % len(strip)] for r in range(4)]
               for strip, s in zip(strips, (int(rng.integers(len(x))) for x in strips))]
        windows.append([[names.index(c) for c in col] for col in win])
        total = 0
        for sym, table in pays.items():
            ways, n = 1, 0
            for col in win:
                m = sum(c == sym or c == "wild" for c in col)
                if m == 0:
                    break
                ways, n = ways * m, n + 1
            total += table.get(n, 0) * ways
        wins.append(total)
    got = evaluate_windows(t, np.array(windows, dtype=np.int16))
    assert [int(x) for x in got.line_win] == [w * t.denom for w in wins]
