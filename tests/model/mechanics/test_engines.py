"""Features declared from mechanics: each seed structure picks its engine, other combinations are refused.

Oracles: the engine names and refusals are stated here from the engines'
documented acceptance (docs/model-format.md, "Engines"); the shipped models'
figures under the new declarations are checked against the committed par
sheets by tests/reports/test_committed.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analytic.errors import ModelError
from analytic.model.kinds import RULES, FEATURE_KINDS
from analytic.model.mechanics import MECHANICS
from analytic.model.mechanics.engines import ENGINES
from analytic.model.loader import load_model, load_model_text

MODELS = Path(__file__).resolve().parents[3] / "models"
GAMES = ("book", "christmas", "secret", "power")  # no registered name may mention a game

GAME = """
[game]
name = "mech"
reels = 3
rows = 1

[symbols]
a = { role = "regular", rank = 1 }
b = { role = "regular", rank = 2 }
w = "wild"
k = "wild_scatter"
g = "wild_scatter"

[paytable]
a = { 2 = 2, 3 = 10 }
b = { 2 = 5, 3 = 20 }

[paylines]
lines = [[0, 0, 0]]

[reels]
base = [["a", "k", "b", "g"], ["b", "k", "a", "g"], ["a", "b", "k", "g"]]
free = [["a", "k", "b", "g"], ["b", "a", "k", "g"], ["k", "a", "b", "g"]]

[features.fs]
reels = "free"
trigger = { symbols = ["k", "g"], counts = { 2 = 3, 3 = 4 } }
"""


def load(extra: str, rules: str = ""):
    return load_model_text(GAME + extra + ("\n[rules]\n" + rules if rules else ""), path="mech.toml")


DRAWS = 'retrigger = { per_symbol = 1 }\nexpanding_symbol = { draw = "at_each_award", repeat_multiplier = { ceiling = 3 } }\n'
LADDER = DRAWS + 'ladder = { order = "rank_ascending" }\ngolden_reels = { reels = [2], turned_by = ["g"] }\n'
LADDER_TRIGGER = 'trigger = { symbols = ["k", "g"], counts = { 2 = 3, 3 = 4 } }'


@pytest.mark.parametrize("extra, engine, mechanics", [
    ("", "wald", ()),
    ('retrigger = { symbols = ["k"], counts = { 2 = 1 } }\nmultiplier = 2\nexpanding_symbol = { choose_from = ["a"] }\n',
     "wald", ("spins", "multiplier", "expanding_symbol")),
    ('wild_reels = { revealed_by = "k", multipliers = { 1 = 1, 2 = 1 } }\nexpanding_symbol = { choose_from = ["a", "b"] }\n',
     "revealed_wild_reels", ("wild_reels", "expanding_symbol")),
    ('wild_reels = { revealed_by = "k", multipliers = { 1 = 1, 2 = 1 } }\nexpanding_symbol = { choose_from = ["a", "b"] }\n'
     'retrigger = { symbols = ["k"], counts = { 2 = 1 } }\n',
     "revealed_wild_reels", ("wild_reels", "expanding_symbol", "spins")),
    ('gift_pick = { wild = "w", gifts = [{ effect = "spins", value = 1, count = 3 }] }\n', "gift_pick", ("gift_pick",)),
    (DRAWS, "drawn_expanding", ("spins", "expanding_symbol")),
])
def test_structure_picks_its_engine(extra, engine, mechanics):
    f = load(extra).features["fs"]
    assert (f.kind, f.engine, f.mechanics) == ("free_spins", engine, mechanics)


def test_ladder_with_golden_reels_is_drawn_expanding():
    text = LADDER.replace("", "")
    g = load_model_text(GAME.replace(LADDER_TRIGGER, LADDER_TRIGGER[:-2] + ', requires = ["g"] }') + text,
                        path="mech.toml")
    f = g.features["fs"]
    assert f.engine == "drawn_expanding" and f.params["ladder"] == "rank_ascending"
    assert f.params["golden_reels"] == (2,) and f.params["golden_symbols"] == ("g",)
    assert f.params["spins_per_symbol"] == 1 and f.params["max_multiplier"] == 3


def test_shipped_models_pick_their_engines():
    engines = {p.stem: {n: f.engine for n, f in load_model(p).features.items()} for p in MODELS.glob("*.toml")}
    assert engines == {
        "book_of_power": {"free_spins": "drawn_expanding", "power_free_spins": "drawn_expanding"},
        "book_of_christmas_eve": {"free_spins": "revealed_wild_reels"},
        "secrets_of_christmas": {"free_spins": "gift_pick"},
    }


@pytest.mark.parametrize("extra, fragments", [
    # revealed wild reels with a per-symbol retrigger, or a ceiling on the spins
    ('wild_reels = { revealed_by = "k", multipliers = { 2 = 1 } }\nexpanding_symbol = { choose_from = ["a"] }\n'
     'retrigger = { per_symbol = 1 }\n',
     ["declared: wild_reels (revealed_by, combine multiply), expanding_symbol (draw at_start), "
      "spins (retrigger per_symbol)",
      "wald [retrigger table, multiplier, scatter_pays, expanding_symbol at_start or reel_wild_multipliers] does not solve wild_reels",
      "revealed_wild_reels [wild_reels revealed_by (multiply) + expanding_symbol at_start, optional retrigger "
      "table] needs retrigger as a table"]),
    ('wild_reels = { revealed_by = "k", multipliers = { 2 = 1 } }\nexpanding_symbol = { choose_from = ["a"] }\n'
     'retrigger = { symbols = ["k"], counts = { 2 = 1 } }\nmax_spins = 50\n',
     ["revealed_wild_reels", "does not honour max_spins"]),
    # a gift pick with a ladder
    ('gift_pick = { wild = "w", gifts = [{ effect = "spins", value = 1, count = 3 }] }\n'
     'ladder = { order = "rank_ascending" }\n',
     ["gift_pick [gift_pick, multiplier, expanding_symbol at_start (drawn by a gift); no retrigger] does not solve ladder",
      "drawn_expanding [retrigger per_symbol + expanding_symbol at_each_award; ladder with golden_reels] needs "
      "expanding_symbol, spins"]),
    # a ladder without golden reels
    (DRAWS + 'ladder = { order = "rank_ascending" }\n',
     ["drawn_expanding", "solves a ladder together with golden_reels only"]),
    # golden reels turned by a symbol that is not the trigger's requires
    (LADDER, ["needs golden_reels.turned_by to be the trigger's requires symbols"]),
    # a ceiling on the spins with a retrigger: wald honours it up to 200
    ('max_spins = 201\nretrigger = { symbols = ["k"], counts = { 2 = 1 } }\n',
     ["wald", "honours max_spins with a retrigger up to 200"]),
    # the per-symbol retrigger without draws at each award
    ("retrigger = { per_symbol = 2 }\n", ["wald", "needs retrigger as a table", "drawn_expanding", "needs expanding_symbol"]),
    # draws at each award from a subset of the regular symbols
    ('retrigger = { per_symbol = 1 }\nexpanding_symbol = { draw = "at_each_award", choose_from = ["a"], '
     'repeat_multiplier = { ceiling = 3 } }\n', ["draws uniformly over every regular symbol"]),
    # fixed wild reels, symbols turning wild: declared, validated, solved by no engine
    ('wild_reels = { reels = [2], wild = "w" }\n', ["wild_reels (fixed)", "does not solve wild_reels"]),
    ('wild_symbols = { symbols = ["a"], wild = "w" }\n', ["does not solve wild_symbols"]),
])
def test_unsolved_combination_is_refused_at_the_feature(extra, fragments):
    with pytest.raises(ModelError) as err:
        load(extra)
    e = err.value
    assert e.key == "features.fs" and "no engine solves the mechanics declared" in e.reason, str(e)
    for frag in fragments:
        assert frag in e.reason, (frag, e.reason)
    assert "\n" not in str(e)


@pytest.mark.parametrize("old, hint", [
    ("book_of" + "_power", "retrigger = { per_symbol = 5 }"),
    ("book_of_christmas" + "_eve", "wild_reels = { revealed_by"),
    ("secrets_of" + "_christmas", "gift_pick = { wild"),
])
def test_retired_game_kinds_are_refused_with_the_new_declaration(old, hint):
    with pytest.raises(ModelError) as err:
        load(f'kind = "{old}"\n')
    assert err.value.key == "features.fs.kind"
    assert "named a game and is retired" in err.value.reason and hint in err.value.reason


@pytest.mark.parametrize("old, new", [
    (("bop", "repeat_multiplier"), "expanding_repeat_multiplier"),
    (("bop", "books_sub_expanding_normal"), "scatter_substitutes_for_expanding_in_line_wins"),
    (("bop", "power_book_retriggers"), "golden_symbol_retriggers"),
    (("bop", "golden_immediate"), "golden_immediate"),
    (("bop", "gamble"), "gamble = {"),
    (("boce", "wild_reels_expansion"), "wild_reels_expansion"),
    (("boce", "max_win"), "published_max_win"),
])
def test_retired_game_rules_are_refused_with_their_new_name(old, new):
    name = "_".join(old)
    with pytest.raises(ModelError) as err:
        load(DRAWS, f"{name} = true")
    assert err.value.key == f"rules.{name}" and new in err.value.reason, str(err.value)


@pytest.mark.parametrize("key", ["variant", "spins_per_book", "max_multiplier", "gamble_probability", "book",
                                 "multipliers", "gifts", "base_multiplier"])
def test_retired_keys_say_where_they_went(key):
    with pytest.raises(ModelError) as err:
        load(f"{key} = 1\n")
    assert err.value.key == f"features.fs.{key}" and "unknown key" in err.value.reason and "(" in err.value.reason


def test_rule_not_read_by_the_engine_keeps_its_default():
    assert load('expanding_symbol = { choose_from = ["a"] }\n', 'expanding_count = "cells"').rules["expanding_count"] == "cells"
    with pytest.raises(ModelError) as err:  # wald does not read the repeat multiplier
        load('expanding_symbol = { choose_from = ["a"] }\n', 'expanding_repeat_multiplier = "count_minus_one"')
    assert err.value.key == "rules.expanding_repeat_multiplier" and "engine wald" in err.value.reason
    with pytest.raises(ModelError) as err:  # a rule of a mechanic not declared is unknown
        load(DRAWS, "golden_immediate = false")
    assert err.value.key == "rules.golden_immediate" and "unknown rule" in err.value.reason
    with pytest.raises(ModelError) as err:  # a rule of an engine not used is unknown
        load(DRAWS, 'published_max_win = "theoretical"')
    assert err.value.key == "rules.published_max_win"


def test_no_registered_name_mentions_a_game():
    names = [*FEATURE_KINDS, *MECHANICS, *ENGINES, *RULES,
             *(k for m in MECHANICS.values() for k in m.keys)]
    assert not [n for n in names if any(g in n for g in GAMES)], names


def test_every_mechanic_key_belongs_to_one_mechanic():
    keys = [k for m in MECHANICS.values() for k in m.keys]
    assert len(keys) == len(set(keys))
