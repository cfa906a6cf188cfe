"""Differential harness over random games of the other feature engines (issue 18 item 4).

:func:`randgames.gift_models` draws small games whose free spins are engine
``gift_pick`` (every fixed gift effect, a starting multiplier, a bought
feature, a round cap); :class:`oracle_engines.OracleGift` enumerates every
pick of gifts and every free spin.

:func:`randgames.revealed_models` draws small games whose free spins are
engine ``revealed_wild_reels`` (revealed wild reels with drawn multipliers,
an expanding symbol drawn at the start, optional retrigger tables, the
rules ``wild_reels_expansion``, ``published_max_win``,
``revealed_retrigger_count``, a bought feature, a round cap);
:class:`oracle_engines.OracleRevealed` enumerates every free spin (stop
combinations x multiplier draws) and every round.  Every figure labelled
exact must equal the oracle's fraction, every bounded one contain it
(:func:`test_differential.check_mode`).  A cap on a retriggering feature may
be refused at solve with the cap's key (documented: its certified law may be
out of reach).

Examples: ``ENGINE_EXAMPLES`` in CI (derandomized); ``ANALYTIC_SLOW=1``
raises them to ``SLOW_ENGINE_EXAMPLES`` (README, Tests).
"""

from __future__ import annotations

import os
import sys
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings

from analytic.errors import ModelError
from analytic.model.loader import load_model_text

from oracle_engines import OracleGift, OracleRevealed
from randgames import gift_models, revealed_models, to_toml
from test_differential import assert_every_mode_unbounded, check_mode, unbounded

SLOW = os.environ.get("ANALYTIC_SLOW") == "1"
ENGINE_EXAMPLES = 30
SLOW_ENGINE_EXAMPLES = 1000

pytestmark = pytest.mark.filterwarnings("ignore::analytic.errors.ModelWarning")


def check_revealed(model: dict) -> None:
    text = to_toml(model)
    raw = tomllib.loads(text)
    game = load_model_text(text, "random.toml")
    assert game.features["fs"].engine == "revealed_wild_reels", text
    o = OracleRevealed(raw)
    f = raw["features"]["fs"]
    event(f"retrigger: {'retrigger' in f}; cap: {o.cap is not None}; modes: {len(o.modes)}")
    if unbounded(o):
        assert_every_mode_unbounded(game)
        return
    for mode in game.modes:
        try:
            check_mode(game, o, mode, text)
        except ModelError as e:
            # documented: a cap on free spins with retriggers needs the certified law (refused if out of reach)
            assert "retrigger" in f and o.cap is not None and e.key == "cap.total_bet_multiple", f"{e}\n{text}"
            event("refused at solve: cap.total_bet_multiple")


@settings(max_examples=SLOW_ENGINE_EXAMPLES if SLOW else ENGINE_EXAMPLES, deadline=None, derandomize=True,
          report_multiple_bugs=False, suppress_health_check=list(HealthCheck))
@given(revealed_models())
def test_revealed_wild_reels(model):
    check_revealed(model)


def test_oracle_reproduces_the_engine_tests_brute_force():
    """The oracle's free spin is the hand-written brute force of the engine's own test (its toy)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "features" / "engines"))
    import test_revealed_wild_reels as toy

    for rule in ("pays", "needs_symbol"):
        raw = tomllib.loads(toy.TOY.replace("RULE", rule))
        o = OracleRevealed(raw)
        for s in ("a", "b"):
            tab, cyc = o.free_spin_table("fs", s)
            got: dict = {}
            for (x, _), c in tab.items():
                got[x] = got.get(x, 0) + Fraction(c, cyc)
            want = toy.brute_spin(s, rule)
            tot = sum(want.values())
            assert got == {Fraction(x): Fraction(c, tot) for x, c in want.items()}, (rule, s)


GIFT_EXAMPLES = 30


def check_gift(model: dict) -> None:
    text = to_toml(model)
    game = load_model_text(text, "random.toml")
    assert game.features["fs"].engine == "gift_pick", text
    o = OracleGift(tomllib.loads(text))
    g = model["features"]["fs"]["gift_pick"]["gifts"]
    event(f"effects: {sorted({x['effect'] for x in g})}; cap: {o.cap is not None}")
    event(f"expanding gift drawn: {any(x['value'] == 'drawn' for x in g)}")
    for mode in game.modes:
        check_mode(game, o, mode, text)


@settings(max_examples=SLOW_ENGINE_EXAMPLES if SLOW else GIFT_EXAMPLES, deadline=None, derandomize=True,
          report_multiple_bugs=False, suppress_health_check=list(HealthCheck))
@given(gift_models())
def test_gift_pick(model):
    check_gift(model)
