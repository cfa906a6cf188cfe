"""Red Roo (1024 ways, slotopol reel set "92.470094") against the figures its calculator printed.

Source: slotopol/server (github.com/slotopol/server, commit
f95504063d43b80aace6cb9937cf86710d7858c2), ``game/slot/aristocrat/redroo/``:
``redroo_rule.go`` (pays, scatter pays, free-spin tables, rules) and
``redroo_data.yaml`` (the reel set and its printed figures, quoted in the
header of ``tests/cases/red_roo.toml``).  The game: 5 reels x 4 rows, 1024
ways from the left, 2 of a kind paying for the high symbols, a wild on
reels 2-4 substituting for every regular symbol, a scatter, cost 50 bets.

The figures printed for the base ("regular") game are pure ways and
scatter pays, solved from the model.  The free games are not in the model
(each free spin draws a wild multiplier of 2 or 3, probability 1/2 each,
for each of reels 2, 3 and 4: the format has no per-reel random wild
multiplier); their figures are reproduced here from the model's reels:

* a ways win is ``pay x m_1 x ... x m_n`` with ``m_k`` the count of matching
  cells on reel ``k``, a wild counted with its reel's multiplier; the
  product is linear in each reel's multiplier, and the multipliers are
  independent, so the free spin's mean ways win is the mean over the 8
  equally likely assignments (2 or 3 on each of reels 2-4) of an ordinary
  ways game with fixed multipliers (slotopol uses the mean multiplier 2.5
  per reel, the same number);
* free spins: 3, 4, 5 scatters award 8, 15, 20 from the base game; 2, 3, 4,
  5 award 5, 8, 15, 20 in the free games (retriggers, no limit); with ``q``
  the mean award per free spin, a feature of ``n`` spins plays ``n / (1 - q)``
  spins on average (Wald), so the free games return ``sq x rtp(free spin)``
  with ``sq = 1 / (1 - q)`` and the game ``rtp(base spin) + q_base x that``,
  the calculator's own composition.

Independent oracles besides the printed figures: the scatter counts are
convolved here from the strips by hand (one scatter per reel at most in a
window), and a sampled check of the ways evaluation against the simulator's
evaluator.
"""

from __future__ import annotations

import itertools
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from analytic.engine.base_game import solve_base
from analytic.model.loader import load_model
from analytic.simulator.evaluate import compile_tables, evaluate_windows

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


def _variant(tmp_path: Path, mults: tuple[int, int, int]):
    """The model with the wild on reel 2, 3, 4 a wild of multiplier ``mults``."""
    text = MODEL.read_text()
    extra = "".join(f'wild_r{k} = {{ role = "wild", multiplier = {m} }}\n'
                    for k, m in zip((2, 3, 4), mults))
    text = text.replace('wild = "wild"', 'wild = "wild"\n' + extra, 1)
    head, reels = text.split("[reels]", 1)
    strips = GAME.reel_sets["base"]
    body = ["[reels]", "base = ["]
    for i, strip in enumerate(strips):
        cells = [f"wild_r{i + 1}" if (s == "wild" and i in (1, 2, 3)) else s for s in strip]
        body.append("  [" + ", ".join(f'"{c}"' for c in cells) + "],")
    body.append("]")
    p = tmp_path / f"red_roo_{''.join(map(str, mults))}.toml"
    p.write_text(head + "\n".join(body) + "\n")
    return load_model(p)


@pytest.fixture(scope="module")
def base():
    return solve_base(GAME)


@pytest.fixture(scope="module")
def free_spin_lined(tmp_path_factory):
    """Mean ways win of a free spin (total-bet multiples), over the 8 multiplier draws."""
    tmp = tmp_path_factory.mktemp("redroo")
    vals = [solve_base(_variant(tmp, m)).line_rtp for m in itertools.product((2, 3), repeat=3)]
    return sum(vals, Fraction(0)) / 8


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


def test_free_games_figures(base, free_spin_lined):
    law = _scatter_law()
    cycle = sum(law.values())
    printed(free_spin_lined, "152.01", percent=True)
    fs_sym = free_spin_lined + base.scatter_rtp  # scatter pays are not multiplied
    printed(fs_sym, "152.485423%", percent=True)
    spins = sum(FS_FREE.get(k, 0) * v for k, v in law.items())
    assert spins == 162558160  # "free spins 162558160"
    q = Fraction(spins, cycle)
    printed(q, "0.19894")
    printed(1 / (1 - q), "1.248342")
    printed(Fraction(cycle, sum(v for k, v in law.items() if k >= 2)), "26.246")
    fg = fs_sym / (1 - q)
    printed(fg, "190.353978%", percent=True)
    q_base = Fraction(sum(FS_BASE.get(k, 0) * v for k, v in law.items()), cycle)
    printed(base.line_rtp + base.scatter_rtp + q_base * fg, "92.470094%", percent=True)


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
