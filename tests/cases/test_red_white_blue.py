"""Red White & Blue (IGT): groups, ordered combos, blanks and coin-dependent pays against published returns.

Source: Wizard of Odds, "Red White & Blue Analysis" (slot appendix 6, last
updated January 21, 2019), https://wizardofodds.com/games/slots/appendix/6/:
the pay table for 1, 2 and 3 coins and the Wizard's 64-entry lookup table of
each reel.  What this test could read, and from where (say so, as it is):

* the pay table and the first six lookup rows: the stored copy of that page
  (``tests/cases/red_white_blue.toml`` holds them);
* the rest of the lookup table: public transcriptions of it (a JavaScript
  game's 64-entry lookups, and per-reel symbol counts in another project);
  both give the same counts per reel (red 7: 1, 3, 1; white 7: 6, 1, 7;
  blue 7: 6, 7, 1; 3 bar: 6, 7, 5; 2 bar: 7, 6, 9; 1 bar: 6, 8, 9; blank: 32
  on each reel);
* the returns 86.58% (one coin) and 87.47% (three coins): quoted from that
  page by public projects citing it, not read on the page itself (the stored
  copy ends before the return table).

The game: one line, three reels of 64 equally likely stops.  The colours:
1 bar red, 2 bar white, 3 bar blue.  One win per line, the highest (a 1-2-3
bar line is also "any red, any white, any blue" and "any three bars": it pays
50).  Two coins pay twice the one-coin pays except three red 7s (2400, not
2398); three coins pay three times except red-white-blue 7s (10000) and three
red 7s (5000).

The exact returns are 113477/131072 = 86.576...% (one coin), 226957/262144 =
86.577...% (two coins) and 687871/786432 = 87.467...% (three coins); the
oracle here is an enumeration of the 7 x 7 x 7 symbol combinations weighted
by their stop counts, evaluated by the brute-force line reading
(:func:`analytic.engine.brute.line_win`) and by the simulator's evaluator.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from analytic.engine.brute import line_win
from classic_checks import assert_simulator_pays_like_brute  # noqa: E402
from analytic.model.game import coin_game
from analytic.model.loader import load_model
from analytic.solver.round import solve_round

HERE = Path(__file__).parent
GAME = load_model(HERE / "red_white_blue.toml")

#: published return per bet mode (percent, as printed)
PUBLISHED = {"one_coin": "86.58", "three_coins": "87.47"}


def _rounds_to(value: Fraction, text: str) -> bool:
    target = Fraction(text)
    half = Fraction(1, 2 * 10 ** len(text.split(".")[1]))
    return abs(value * 100 - target) <= half


def _oracle(mode: str) -> Fraction:
    """Mean win per coin bet by weighted enumeration of the symbol combinations."""
    g = coin_game(GAME, mode)
    counts = [Counter(s) for s in g.reel_sets["base"]]
    total = 0
    for cells in itertools.product(*[sorted(c) for c in counts]):
        w = counts[0][cells[0]] * counts[1][cells[1]] * counts[2][cells[2]]
        total += line_win(g, list(cells))[0] * w
    return Fraction(total, 64 ** 3) / GAME.modes[mode].cost


def _oracle_second_moment(mode: str) -> Fraction:
    """Mean squared win per coin bet, squared (E[(win / coins)^2]), by the same enumeration."""
    g = coin_game(GAME, mode)
    counts = [Counter(s) for s in g.reel_sets["base"]]
    total = 0
    for cells in itertools.product(*[sorted(c) for c in counts]):
        w = counts[0][cells[0]] * counts[1][cells[1]] * counts[2][cells[2]]
        total += line_win(g, list(cells))[0] ** 2 * w
    return Fraction(total, 64 ** 3) / GAME.modes[mode].cost ** 2


#: exact standard deviation per coin bet, 4 decimals; a public summary of the
#: page quotes 9.03 (1-2 coins) and 10.80 (3 coins), which these do not round
#: to: the stored copy of the page ends before its return table, so where
#: those figures come from could not be read (reported, not asserted)
SD = {"one_coin": "9.0618", "two_coins": "9.0633", "three_coins": "10.8559"}


@pytest.mark.parametrize("mode", list(GAME.modes))
def test_standard_deviation_against_enumeration(mode):
    r = solve_round(GAME, mode)
    second = r.second_moment.value / r.cost ** 2
    assert second == _oracle_second_moment(mode)
    sd = (second - r.rtp.value ** 2) ** 0.5
    assert f"{float(sd):.4f}" == SD[mode]


def test_strip_counts():
    want = {"red7": (1, 3, 1), "white7": (6, 1, 7), "blue7": (6, 7, 1), "bar3": (6, 7, 5),
            "bar2": (7, 6, 9), "bar1": (6, 8, 9), "blank": (32, 32, 32)}
    got = {s: tuple(Counter(strip)[s] for strip in GAME.reel_sets["base"]) for s in want}
    assert got == want


@pytest.mark.parametrize("mode", list(GAME.modes))
def test_exact_return_against_enumeration(mode):
    assert solve_round(GAME, mode).rtp.value == _oracle(mode)


@pytest.mark.parametrize("mode", sorted(PUBLISHED))
def test_published_return(mode):
    assert _rounds_to(solve_round(GAME, mode).rtp.value, PUBLISHED[mode])


def test_simulator_evaluator_pays_the_same():
    assert_simulator_pays_like_brute(GAME)


def test_highest_win_per_line():
    one = coin_game(GAME, "one_coin")
    assert line_win(one, ["bar1", "bar2", "bar3"])[0] == 50  # not 20 (any red-white-blue) nor 5
    assert line_win(one, ["red7", "white7", "blue7"])[0] == 2400
    assert line_win(one, ["red7", "bar2", "blue7"])[0] == 20
    assert line_win(one, ["red7", "red7", "bar1"])[0] == 2  # any three reds
    assert line_win(one, ["blank", "blank", "blank"])[0] == 1
    three = coin_game(GAME, "three_coins")
    assert line_win(three, ["red7", "white7", "blue7"])[0] == 10000
    assert line_win(three, ["red7", "red7", "red7"])[0] == 5000
    assert line_win(three, ["white7", "white7", "white7"])[0] == 600
