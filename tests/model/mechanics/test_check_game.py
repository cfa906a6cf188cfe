"""Refusals an engine made only when solving, now made at load from the model alone
(:func:`analytic.model.mechanics.engines.check_game`): the key path, exit 2 and one line on the
command line.  The variants are text edits of shipped models and of the tiny Book of Power test game;
the engines' own checks stay as a safety net (tested with a game built past the loader)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from fractions import Fraction

from analytic.errors import ModelError, UnsupportedMechanicError
from analytic.model.loader import load_model_text

ROOT = Path(__file__).resolve().parents[3]
MODELS = ROOT / "models"
sys.path.insert(0, str(ROOT / "tests" / "features" / "engines" / "drawn_expanding"))
import test_drawn_oracles as drawn  # noqa: E402  (the tiny Book of Power game)

BOCE = (MODELS / "book_of_christmas_eve.toml").read_text()
SOC = (MODELS / "secrets_of_christmas.toml").read_text()
TINY = drawn.TINY.replace("CAP", "1000")


def _scatter(text: str, symbol: str, pays: str) -> str:
    out = text.replace("[paylines]", f'[scatter]\nsymbols = ["{symbol}"]\npays = {pays}\n\n[paylines]', 1)
    assert out != text
    return out


def _one_feature(text: str) -> str:
    """The tiny game without its ladder feature and the mode buying it (one feature drawing at each award)."""
    head, rest = text.split("[modes.buy_power_free_spins]", 1)
    _, rest = rest.split("[features.free_spins]", 1)
    feat, rest = rest.split("[features.power_free_spins]", 1)
    _, rest = rest.split("[cap]", 1)
    return head + "[features.free_spins]" + feat + "[cap]" + rest


sys.path.insert(0, str(ROOT / "tests" / "features" / "engines"))
import test_revealed_wild_reels as revealed  # noqa: E402  (the tiny Book of Christmas Eve game)


def _per_symbol(text: str, feature: str, n: int, rules: str = "") -> str:
    """The tiny game with ``features.FEATURE.retrigger = { per_symbol = n }`` (and extra rules)."""
    head, rest = text.split(f"[features.{feature}]", 1)
    rest = rest.replace("retrigger = { per_symbol = 1 }", f"retrigger = {{ per_symbol = {n} }}", 1)
    out = head + f"[features.{feature}]" + rest
    assert out != text
    return out.replace("[rules]\n", "[rules]\n" + rules, 1)


def _line_bonus(rule: str = "pays", extra_rule: str = "") -> str:
    """The tiny revealed-wild-reels game (cap 100) with a bonus symbol on base reel 1 starting a pick
    bonus from one on a payline."""
    t = revealed.TOY.replace("RULE", rule).replace('book = { role = "wild_scatter" }',
                                                 'book = { role = "wild_scatter" }\nL = "bonus"')
    t = t.replace('base = [["a", "b", "a"]', 'base = [["a", "b", "a", "L"]')
    t = t.replace("[features.fs]", '[line_triggers]\nL = { 1 = "buoy" }\n\n[features.buoy]\nkind = "pick_bonus"\n'
                  'picks = { 1 = 1 }\nprizes = [[5, 1]]\n\n[features.fs]')
    return t + extra_rule


CASES = {
    # engine revealed_wild_reels pays whole line bets: 1/20 total bet = 0.5 line bets at total bet 10
    "revealed scatter pay in half line bets": (_scatter(BOCE, "book", "{ 3 = \"1/20\" }"), "scatter.pays.3",
                                               "whole number of line bets"),
    "gift pick with scatter pays": (_scatter(SOC, "scatter", "{ 3 = 2 }"), "scatter.pays", "engine gift_pick"),
    "drawn expanding with scatter pays": (_scatter(TINY, "book", "{ 3 = 2 }"), "scatter.pays",
                                          "engine drawn_expanding"),
    "drawn expanding cap without a ladder feature": (_one_feature(TINY), "cap.total_bet_multiple",
                                                     "this game has 1 and 0"),
    # the round solver bounds the capped RTP, without a law to read each stake's cap from
    "drawn expanding currency cap with stakes": (
        TINY.replace("total_bet_multiple = 1000\n", "total_bet_multiple = 1000\ncurrency = 100\nstakes = [1, 2]\n"),
        "cap.currency", "does not give"),
    # free reels: a book on reels 1 and 2 (1 stop in 8 each): E[award] = N x P(b = 2) = N / 64
    "per-symbol retrigger awarding one spin per spin": (_per_symbol(TINY, "free_spins", 64),
                                                        "features.free_spins.retrigger", "exactly 1"),
    # power reels: books or Power Books on reels 1-4 (1/8, 2/8, 1/6, 1/7): E[(b - 1)+] = 103/672
    "per-symbol retrigger with the Power Books": (_per_symbol(TINY, "power_free_spins", 7),
                                                  "features.power_free_spins.retrigger", "103/96"),  # 7 x 103/672
    "revealed wild reels capped with a line-triggered bonus": (_line_bonus(), "line_triggers", "'buoy'"),
    # an expansion on 5 reels of a symbol paying up to 4 of a kind: not read by engine drawn_expanding
    "drawn expanding candidate whose pays stop below the reels": (
        TINY.replace("ten = { 3 = 1, 4 = 2, 5 = 4 }", "ten = { 3 = 1, 4 = 2 }"), "paytable.ten", "up to 5"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_refused_at_load_with_the_key(case):
    text, key, words = CASES[case]
    with pytest.raises(ModelError) as err:
        load_model_text(text, path="variant.toml")
    assert err.value.key == key and words in err.value.reason, str(err.value)


@pytest.mark.parametrize("case", sorted(CASES))
def test_refused_by_the_cli_in_one_line(case, tmp_path, capsys):
    from analytic.cli import main

    text, key, _ = CASES[case]
    model = tmp_path / "variant.toml"
    model.write_text(text)
    assert main(["solve", str(model), "--mode", "all"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith(f"error: {model}: {key}: ")


def test_the_unrefused_variants_load():
    """Whole line bets, no scatter pays, both drawn features: the same edits short of the refusal load."""
    load_model_text(_scatter(BOCE, "book", "{ 3 = \"1/2\" }"))
    load_model_text(_scatter(SOC, "scatter", "{ 3 = 0 }"))
    load_model_text(_one_feature(TINY).replace("[cap]\ntotal_bet_multiple = 1000\n", ""))
    load_model_text(TINY)
    load_model_text(TINY.replace("total_bet_multiple = 1000\n", "total_bet_multiple = 1000\ncurrency = 100\n"))
    load_model_text(_per_symbol(TINY, "free_spins", 63))
    load_model_text(_per_symbol(TINY, "power_free_spins", 6))  # 618/672
    # rule golden_symbol_retriggers = false: the Power Books do not count, E[award] = 7 / 64
    load_model_text(_per_symbol(TINY, "power_free_spins", 7, "golden_symbol_retriggers = false\n"))
    load_model_text(_line_bonus("pays", 'published_max_win = "theoretical"\n'))
    load_model_text(_line_bonus().replace("[cap]\ntotal_bet_multiple = 100\n", ""))


def test_per_symbol_award_agrees_with_the_engine():
    """The load-time expected award (hand counts above) is the one the engine's spin statistics find."""
    from analytic.features.engines.drawn_expanding.spin_stats import SpinStats

    for feature, n, rules, want in (("free_spins", 63, "", Fraction(63, 64)),
                                    ("power_free_spins", 6, "", Fraction(618, 672)),
                                    ("power_free_spins", 7, "golden_symbol_retriggers = false\n", Fraction(7, 64))):
        game = load_model_text(_per_symbol(TINY, feature, n, rules))
        assert SpinStats(game, feature).mean_award == want, (feature, n, rules)


def test_the_engines_keep_their_own_checks():
    """A game built past the loader (scatter pays swapped in) is still refused by the feature solvers."""
    from analytic.features.engines.drawn_expanding.engine import solve_feature as drawn_feature
    from analytic.features.engines.gift_pick import solve_feature as gift_feature
    from analytic.features.engines.revealed_wild_reels import _scatter_units
    from analytic.model.game import ScatterPay, frozen_mapping

    def with_pays(game, symbol, pays):
        return replace(game, scatter=ScatterPay(frozenset({symbol}), frozen_mapping(pays)))

    with pytest.raises(UnsupportedMechanicError, match="whole number of line bets"):
        from fractions import Fraction

        _scatter_units(with_pays(load_model_text(BOCE), "book", {3: Fraction(1, 20)}))
    with pytest.raises(UnsupportedMechanicError, match="no scatter pays"):
        gift_feature(with_pays(load_model_text(SOC), "scatter", {3: 2}), "free_spins", 3, "base")
    with pytest.raises(ModelError) as err:
        drawn_feature(with_pays(load_model_text(TINY), "book", {3: 2}), "free_spins", 3)
    assert err.value.key == "scatter.pays"
