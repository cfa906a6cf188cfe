"""Tests of the TOML model loader: one case per validation rule, a round trip, CSV strips."""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path

import pytest

from analytic.errors import ModelError
from analytic.model import kinds
from analytic.model import BetMode, Game, load_model, load_model_text

DATA = Path(__file__).parent / "data"
MINI = DATA / "mini.toml"
TEXT = MINI.read_text()


def variant(*edits: tuple[str, str]) -> str:
    """The fixture text with each ``old`` (which must occur exactly once) replaced by ``new``."""
    text = TEXT
    for old, new in edits:
        assert text.count(old) == 1, f"fixture edit {old!r} is ambiguous or missing"
        text = text.replace(old, new)
    return text


def load(text: str) -> Game:
    return load_model_text(text, path=str(MINI))


BASE_REELS = TEXT[TEXT.index("base = [\n"):TEXT.index("]\nfree =") + 2]
MODES = TEXT[TEXT.index("[modes.base]"):TEXT.index("[features.free_spins]")]

# (id, edits, key path, reason fragment)
BROKEN = [
    # top level
    ("unknown-section", [("[cap]\n", "[extra]\na = 1\n\n[cap]\n")], "extra", "unknown key 'extra'; allowed: game"),
    ("missing-paylines", [("[paylines]\nlines", "[paylins]\nlines")], "paylins", "unknown key 'paylins'"),
    # [game]
    ("game-unknown-key", [('notes = "fixture"', 'colour = "red"')], "game.colour", "unknown key 'colour'; allowed: name"),
    ("game-no-name", [('name = "Mini Book"\n', "")], "game.name", "required"),
    ("game-reels-zero", [("reels = 5\n", "reels = 0\n")], "game.reels", "must be >= 1, got 0"),
    ("game-rows-float", [("rows = 3\n", "rows = 2.5\n")], "game.rows", "must be an integer, got 2.5"),
    ("game-reels-bool", [("reels = 5\n", "reels = true\n")], "game.reels", "must be an integer, got true"),
    ("game-total-bet", [("total_bet = 10", "total_bet = 0")], "game.total_bet", "must be >= 1"),
    ("game-published", [('published = { rtp = "95.10%", hit_rate = "1 in 3.2" }', "published = 95")],
     "game.published", "must be a table, got 95"),
    # [symbols]
    ("symbol-role", [('blank = "blank"', 'blank = "blnk"')], "symbols.blank.role",
     "got 'blnk'; allowed: regular, wild, scatter, wild_scatter, bonus, blank"),
    ("symbol-name", [('blank = "blank"', '"bl ank" = "blank"')], "symbols.bl ank", "only letters"),
    # a leading '-' (a name that would start like a formula in a spreadsheet) is refused, and the message says so
    ("symbol-name-leading-dash", [('blank = "blank"', '"-blank" = "blank"')], "symbols.-blank",
     "may not start with '-'"),
    ("symbol-unknown-key", [('book = { role = "wild_scatter" }', 'book = { role = "wild_scatter", colour = 1 }')],
     "symbols.book.colour", "unknown key 'colour'; allowed: role, tier"),
    ("symbol-no-role", [('book = { role = "wild_scatter" }', "book = { multiplier = 2 }")],
     "symbols.book.role", "required"),
    ("wild-key-on-regular", [('ten = "regular"', 'ten = { role = "regular", multiplier = 2 }')],
     "symbols.ten.multiplier", "only a wild or wild_scatter"),
    ("wild-except-nonregular", [('except = ["explorer"]', 'except = ["book"]')], "symbols.wild.except[0]",
     "'book' is not a regular symbol (role 'wild_scatter')"),
    ("wild-except-unknown", [('except = ["explorer"]', 'except = ["Jak"]')], "symbols.wild.except[0]",
     "unknown symbol 'Jak'"),
    ("wild-both", [('except = ["explorer"]', 'except = ["explorer"], substitutes = ["ten"]')],
     "symbols.wild.except", "not both"),
    ("wild-multiplier", [("multiplier = 2 }", "multiplier = 0 }")], "symbols.wild.multiplier", "must be >= 1"),
    ("tier", [('tier = "high"', 'tier = "mid"')], "symbols.explorer.tier", "got 'mid'; allowed: high, low"),
    ("tier-on-wild", [('book = { role = "wild_scatter" }', 'book = { role = "wild_scatter", rank = 3 }')],
     "symbols.book.rank", "only a regular symbol"),
    ("rank-duplicate", [('tier = "low", rank = 2', 'tier = "low", rank = 1')], "symbols.queen.rank",
     "rank 1 is already used by 'jack'"),
    # a win beyond the float64 figures: a 20-reel line of x10^18 wilds was an OverflowError traceback after the
    # solve; the bound is the largest pay x the largest wild multiplier ^ reels x lines (5e108 line bets here)
    ("spin-win-beyond-10^100", [("multiplier = 2 }", "multiplier = 1000000000000000000 }"),
                                ("5 = 5000 }", "5 = 1000000000000000000 }")], "paytable",
     "a base spin could win up to about 10^107 x total bet"),
    ("free-spin-win-beyond-10^100", [("multiplier = 2 }", "multiplier = 100000000000000000 }"),
                                     ("multiplier = 1\n", "multiplier = 1000000000000000000\n")],
     "features.free_spins", "a free spin of 'free_spins' could win up to about 10^107"),
    # [paytable]
    ("pay-unknown-symbol", [("wild = { 2 = 5, 3 = 50 }", "wild = { 2 = 5, 3 = 50 }\nJak = { 3 = 5 }")],
     "paytable.Jak", "unknown symbol 'Jak' (known: ten, jack, queen"),
    ("pay-count-above-reels", [("ten = { 3 = 5, 4 = 25, 5 = 100 }", "ten = { 3 = 5, 4 = 25, 6 = 100 }")],
     "paytable.ten.6", "count 6 is more than 5 (the game has 5 reels)"),
    ("pay-count-zero", [("ten = { 3 = 5, 4 = 25, 5 = 100 }", "ten = { 0 = 5 }")], "paytable.ten.0",
     "count must be >= 1, got 0"),
    ("pay-count-negative", [("ten = { 3 = 5, 4 = 25, 5 = 100 }", "ten = { -3 = 5 }")], "paytable.ten.-3",
     "count must be >= 1, got -3"),
    ("pay-count-word", [("ten = { 3 = 5, 4 = 25, 5 = 100 }", "ten = { three = 5 }")], "paytable.ten.three",
     "count must be a whole number, got 'three'"),
    ("pay-float", [("ten = { 3 = 5, 4 = 25, 5 = 100 }", "ten = { 3 = 2.5 }")], "paytable.ten.3",
     "must be an integer, got 2.5"),
    ("pay-negative", [("ten = { 3 = 5, 4 = 25, 5 = 100 }", "ten = { 3 = -5 }")], "paytable.ten.3",
     "must be >= 0, got -5"),
    ("pay-bool", [("ten = { 3 = 5, 4 = 25, 5 = 100 }", "ten = { 3 = true }")], "paytable.ten.3",
     "must be an integer, got true"),
    ("pay-blank", [("wild = { 2 = 5, 3 = 50 }", "blank = { 3 = 1 }")], "paytable.blank",
     "role 'blank' and cannot have line pays"),
    ("pay-bonus", [("wild = { 2 = 5, 3 = 50 }", "lobster = { 3 = 1 }")], "paytable.lobster", "role 'bonus'"),
    ("pay-not-table", [("ten = { 3 = 5, 4 = 25, 5 = 100 }", "ten = 5")], "paytable.ten", "must be a table, got 5"),
    # [paylines]
    ("line-off-grid", [("[2, 1, 0, 1, 2]", "[2, 1, 3, 1, 2]")], "paylines.lines[4][2]", "row 3 is off the grid: the window has 3 row(s)"),
    ("line-negative", [("[2, 1, 0, 1, 2]", "[2, 1, -1, 1, 2]")], "paylines.lines[4][2]", "must be >= 0"),
    ("line-length", [("[0, 0, 0, 0, 0]", "[0, 0, 0, 0]")], "paylines.lines[1]",
     "has 4 entries; must have one row index per reel (5)"),
    ("line-duplicate", [("[2, 1, 0, 1, 2]", "[0, 0, 0, 0, 0]")], "paylines.lines[4]", "duplicate of line 1"),
    ("line-none", [("lines = [[1, 1, 1, 1, 1], [0, 0, 0, 0, 0], [2, 2, 2, 2, 2], [0, 1, 2, 1, 0], [2, 1, 0, 1, 2]]",
                    "lines = []")], "paylines.lines", "non-empty list"),
    # [reels]
    ("strip-count", [('  ["ten", "queen", "jack", "explorer", "blank", "book", "wild"],\n', "")], "reels.base",
     "has 4 strips; the game has 5 reels"),
    ("strip-empty", [('["ten", "jack", "book", "queen", "explorer", "lobster", "blank"]', "[]")], "reels.base[0]",
     "strip is empty"),
    ("strip-short", [('["ten", "jack", "book", "queen", "explorer", "lobster", "blank"]', '["ten", "book"]')],
     "reels.base[0]", "strip has 2 stops, fewer than the 3 rows"),
    ("strip-unknown-symbol", [('["queen", "explorer", "ten", "jack"', '["queen", "explorer", "ten", "Jak"')],
     "reels.base[2][3]", "unknown symbol 'Jak' (known: ten, jack"),
    ("strip-non-string", [('["ten", "jack", "book", "queen"', '["ten", 5, "book", "queen"')], "reels.base[0][1]",
     "must be a symbol name, got 5"),
    ("strip-not-list", [('["ten", "jack", "book", "queen", "explorer", "lobster", "blank"]', '"ten"')],
     "reels.base[0]", "must be a list of symbol names"),
    ("reels-table-key", [('free = { csv = "mini_free.csv" }', 'free = { strps = [] }')], "reels.free.strps",
     "unknown key 'strps'; allowed: strips, csv"),
    ("reels-table-both", [('free = { csv = "mini_free.csv" }', 'free = { csv = "mini_free.csv", strips = [] }')],
     "reels.free", "exactly one of 'strips'"),
    ("reels-strips-key", [('free = { csv = "mini_free.csv" }', 'free = { strips = [["ten"]] }')], "reels.free.strips",
     "has 1 strips"),
    ("csv-missing", [('free = { csv = "mini_free.csv" }', 'free = { csv = "nope.csv" }')], "reels.free.csv",
     "cannot read CSV file"),
    ("csv-bad-symbol", [('free = { csv = "mini_free.csv" }', 'free = { csv = "bad_symbol.csv" }')],
     "reels.free[2][2]", "bad_symbol.csv: row 4, column 3: unknown symbol 'Jak' (known: ten, jack"),
    # [scatter]
    ("scatter-no-symbols", [('symbols = ["book"]\npays', "pays")], "scatter.symbols", "required"),
    ("scatter-empty-symbols", [('symbols = ["book"]\npays', "symbols = []\npays")], "scatter.symbols",
     "at least one"),
    ("scatter-regular", [('symbols = ["book"]\npays', 'symbols = ["ten"]\npays')], "scatter.symbols[0]",
     "role 'regular'; must be scatter or wild_scatter (such symbols: book)"),
    ("scatter-float", [("pays = { 3 = 2,", "pays = { 3 = 0.5,")], "scatter.pays.3", "write it in quotes"),
    ("scatter-bad-string", [('5 = "401/2"', '5 = "lots"')], "scatter.pays.5", "got 'lots'"),
    ("scatter-negative", [('5 = "401/2"', '5 = "-1/2"')], "scatter.pays.5", "must be >= 0"),
    ("scatter-count", [('5 = "401/2"', '16 = 1')], "scatter.pays.16", "count 16 is more than 15"),
    # [features]
    ("feature-kind", [('kind = "free_spins"', 'kind = "freespins"')], "features.free_spins.kind",
     "unknown feature kind 'freespins' (known: free_spins, pick_bonus"),
    ("feature-retired-kind", [('kind = "free_spins"', 'kind = "book_of' + '_power"')], "features.free_spins.kind",
     "named a game and is retired: a feature is declared from mechanics; declare kind = \"free_spins\" with "
     "retrigger = { per_symbol = 5 }"),
    ("feature-kind-fixed-wild-reels-retrigger", [("multiplier = 1\n", 'wild_reels = { reels = [2], wild = "book" }\n')],
     "features.free_spins", "no engine solves the mechanics declared: spins (retrigger table), wild_reels (fixed)"),
    ("feature-reel-set", [('reels = "free"', 'reels = "fre"')], "features.free_spins.reels",
     "unknown reel set 'fre' (defined in [reels]: base, free)"),
    ("free-spins-needs-reels", [('reels = "free"\n', "")], "features.free_spins.reels", "required for kind"),
    ("free-spins-needs-trigger", [("trigger = { symbols = [\"book\"], counts = { 3 = 10, 4 = 10, 5 = 10 }, "
                                   "requires = [] }\n", "")], "features.free_spins.trigger", "required for kind"),
    ("feature-unknown-param", [("multiplier = 1\n", "multipler = 1\n")], "features.free_spins.multipler",
     "unknown key 'multipler' for kind 'free_spins'; allowed: kind, reels, trigger, retrigger, max_spins, multiplier"),
    ("trigger-unreachable", [("counts = { 3 = 10, 4 = 10, 5 = 10 }", "counts = { 3 = 10, 4 = 10, 5 = 10, 6 = 10 }")],
     "features.free_spins.trigger.counts.6", "count 6 can never show: a window of reel set 'base' holds at most 5"),
    ("trigger-above-grid", [("counts = { 3 = 10, 4 = 10, 5 = 10 }", "counts = { 3 = 10, 16 = 10 }")],
     "features.free_spins.trigger.counts.16", "more than 15"),
    ("trigger-negative-award", [("counts = { 3 = 10, 4 = 10, 5 = 10 }", "counts = { 3 = -10 }")],
     "features.free_spins.trigger.counts.3", "must be >= 0, got -10"),
    ("trigger-float-award", [("counts = { 3 = 10, 4 = 10, 5 = 10 }", "counts = { 3 = 7.5 }")],
     "features.free_spins.trigger.counts.3", "must be an integer, got 7.5"),
    ("trigger-unknown-symbol", [('\ntrigger = { symbols = ["book"]', '\ntrigger = { symbols = ["bok"]')],
     "features.free_spins.trigger.symbols[0]", "unknown symbol 'bok'"),
    ("trigger-requires", [("requires = []", 'requires = ["wild"]')], "features.free_spins.trigger.requires[0]",
     "'wild' is not one of the trigger symbols"),
    ("trigger-unknown-key", [("requires = []", "require = []")], "features.free_spins.trigger.require",
     "unknown key 'require'; allowed: symbols, counts, requires"),
    ("retrigger-unreachable", [("counts = { 3 = 10 } }", "counts = { 4 = 10 } }")],
     "features.free_spins.retrigger.counts.4", "reel set 'free' holds at most 3"),
    ("retrigger-requires", [("counts = { 3 = 10 } }", "counts = { 3 = 10 }, requires = [] }")],
     "features.free_spins.retrigger.requires", "unknown key 'requires'"),
    ("free-multiplier", [("multiplier = 1\n", "multiplier = 0\n")], "features.free_spins.multiplier",
     "must be >= 1"),
    ("free-scatter-pays", [("multiplier = 1\n", 'scatter_pays = "yes"\n')], "features.free_spins.scatter_pays",
     "must be true or false, got 'yes'"),
    ("expanding-weights-length", [("weights = [1, 1, 1, 2]", "weights = [1, 1]")],
     "features.free_spins.expanding_symbol.weights", "has 2 entries but choose_from has 4"),
    ("expanding-weight-zero", [("weights = [1, 1, 1, 2]", "weights = [1, 0, 1, 2]")],
     "features.free_spins.expanding_symbol.weights[1]", "must be >= 1"),
    ("expanding-no-pays", [('choose_from = ["ten", "jack"', 'choose_from = ["book", "jack"')],
     "features.free_spins.expanding_symbol.choose_from[0]", "'book' has no line pays"),
    ("expanding-duplicate", [('choose_from = ["ten", "jack"', 'choose_from = ["ten", "ten"')],
     "features.free_spins.expanding_symbol.choose_from[1]", "'ten' is listed twice"),
    ("pick-prize-weight", [("prizes = [[5, 3]", "prizes = [[5, 0]")], "features.buoy.prizes[0][1]",
     "must be >= 1, got 0"),
    ("pick-prize-pair", [("prizes = [[5, 3]", "prizes = [[5]")], "features.buoy.prizes[0]",
     "must be a pair [prize, weight]"),
    ("pick-picks-zero", [("picks = { 2 = 1, 3 = 1, 4 = 1 }", "picks = { 2 = 0 }")], "features.buoy.picks",
     "weights must not all be 0"),
    ("pick-missing-prizes", [("prizes = [[5, 3], [10, 2], [50, 1]]\n", "")], "features.buoy.prizes", "required"),
    ("pick-reels", [('kind = "pick_bonus"', 'kind = "pick_bonus"\nreels = "base"')], "features.buoy.reels",
     "not used by kind 'pick_bonus'"),
    # [line_triggers]
    ("line-trigger-role", [('lobster = { 3 = "buoy" }', 'ten = { 3 = "buoy" }')], "line_triggers.ten",
     "role 'regular'; must be bonus"),
    ("line-trigger-feature", [('lobster = { 3 = "buoy" }', 'lobster = { 3 = "bouy" }')], "line_triggers.lobster.3",
     "unknown feature 'bouy' (defined in [features]: free_spins, buoy)"),
    ("line-trigger-count", [('lobster = { 3 = "buoy" }', 'lobster = { 6 = "buoy" }')], "line_triggers.lobster.6",
     "more than 5"),
    # [modes]
    ("mode-reel-set", [('cost = 1\nreels = "base"', 'cost = 1\nreels = "bas"')], "modes.base.reels",
     "unknown reel set 'bas'"),
    ("mode-cost-zero", [('cost = 1\nreels = "base"', 'cost = 0\nreels = "base"')], "modes.base.cost", "must be > 0"),
    ("mode-cost-string", [('cost = 1\nreels = "base"', 'cost = "a lot"\nreels = "base"')], "modes.base.cost",
     "got 'a lot'"),
    ("mode-unknown-key", [('description = "regular play"', 'colour = "red"')], "modes.base.colour",
     "unknown key 'colour'; allowed: cost, reels, description, gamble"),
    ("mode-no-reels", [('cost = 1\nreels = "base"', "cost = 1")], "modes.base.reels", "required"),
    ("buy-with-reels", [("buys = \"free_spins\"", "buys = \"free_spins\"\nreels = \"base\"")], "modes.buy.reels",
     "unknown key 'reels'"),
    ("buy-unknown-feature", [('buys = "free_spins"', 'buys = "free_spin"')], "modes.buy.buys",
     "unknown feature 'free_spin'"),
    ("buy-count-not-trigger", [("buy_counts = { 3 = 90, 4 = 9, 5 = 1 }", "buy_counts = { 2 = 90, 3 = 1 }")],
     "modes.buy.buy_counts.2", "count 2 is not a trigger count of feature 'free_spins' (its counts: 3, 4, 5)"),
    ("buy-count-negative-weight", [("buy_counts = { 3 = 90, 4 = 9, 5 = 1 }", "buy_counts = { 3 = -1 }")],
     "modes.buy.buy_counts.3", "must be >= 0"),
    ("buy-count-zero-sum", [("buy_counts = { 3 = 90, 4 = 9, 5 = 1 }", "buy_counts = { 3 = 0 }")],
     "modes.buy.buy_counts", "must not all be 0"),
    ("buy-count-missing", [("buy_counts = { 3 = 90, 4 = 9, 5 = 1 }\n", "")], "modes.buy.buy_counts", "required"),
    ("buy-no-trigger", [('buys = "free_spins"\nbuy_counts = { 3 = 90, 4 = 9, 5 = 1 }', 'buys = "buoy"\n'
                         'buy_counts = { 3 = 1 }')], "modes.buy.buy_counts", "feature 'buoy' has no trigger"),
    ("buy-power", [("buy_counts = { 3 = 90, 4 = 9, 5 = 1 }", "buy_counts = { 3 = 90, 4 = 9, 5 = 1 }\npower = 1")],
     "modes.buy.power", "retired: the Power Bet's gamble is declared on the mode"),
    ("mode-gamble-engine", [('description = "regular play"', 'gamble = { feature = "free_spins", into = "free_spins", '
                             'policy = "always", win_probability = "1/2" }')], "modes.base.gamble",
     "a gamble is solved (engine drawn_expanding's round solver) from a feature of engine drawn_expanding"),
    ("modes-empty", [(MODES, "[modes]\n\n")], "modes", "at least one bet mode"),
    ("no-modes-no-base", [(MODES, ""), ("base = [\n", "main = [\n")], "modes", "reel set 'base'"),
    # [cap]
    ("cap-unknown", [("total_bet_multiple = 5000", "total_bet_multiplier = 5000")],
     "cap.total_bet_multiplier", "unknown key"),
    ("cap-zero", [("total_bet_multiple = 5000", "total_bet_multiple = 0")], "cap.total_bet_multiple", "> 0"),
    ("cap-name-alone", [("total_bet_multiple = 5000", 'total_bet_multiple = 5000\ncurrency_name = "GBP"')],
     "cap.currency_name", "only allowed together with 'currency'"),
    ("cap-stake", [("total_bet_multiple = 5000", 'currency = 250000\nstakes = [0.25, "x"]')], "cap.stakes[1]",
     "got 'x'"),
    ("cap-empty", [("total_bet_multiple = 5000", "")], "cap", "give total_bet_multiple and/or currency"),
    # [rules]
    ("rule-unknown", [('expanding_line_win = "wild_led_only"', 'expanding_lin = "wild_led_only"')],
     "rules.expanding_lin", "unknown rule 'expanding_lin' (known for this game's feature mechanics: "),
    ("rule-value", [('expanding_line_win = "wild_led_only"', 'expanding_line_win = "sometimes"')],
     "rules.expanding_line_win", "got 'sometimes'; allowed: 'paid', 'wild_led_only'"),
    ("rule-type", [('expanding_line_win = "wild_led_only"', "expanding_count = 3")], "rules.expanding_count",
     "got 3; allowed: 'reels', 'cells'"),
    # [design]
    ("design-not-string", [('"paytable.wild" = "the wild', '"paytable.wild" = 3\nx = "the wild')],
     "design.paytable.wild", "must be a one-line reason (a string), got 3"),
    # not TOML at all
    ("not-toml", [("[cap]\n", "[cap\n")], "", "not valid TOML"),
]


@pytest.mark.parametrize("edits,key,fragment", [c[1:] for c in BROKEN], ids=[c[0] for c in BROKEN])
def test_broken_model(edits, key, fragment):
    with pytest.raises(ModelError) as info:
        load(variant(*edits))
    err = info.value
    assert err.key == key, str(err)
    assert fragment in err.reason, str(err)
    assert err.path == str(MINI)


def test_broken_ids_unique():
    ids = [c[0] for c in BROKEN]
    assert len(ids) == len(set(ids))


def test_round_trip():
    g = load_model(MINI)
    assert isinstance(g, Game)
    assert g.path == str(MINI)
    assert (g.name, g.reels, g.rows, g.total_bet) == ("Mini Book", 5, 3, 10)
    assert g.symbol_names == ("ten", "jack", "queen", "explorer", "wild", "book", "lobster", "blank")
    assert [s.index for s in g.symbols] == list(range(8))
    jack, explorer, wild, book = (g.symbol(n) for n in ("jack", "explorer", "wild", "book"))
    assert (jack.tier, jack.value_rank, explorer.tier, explorer.value_rank) == ("low", 1, "high", 9)
    assert g.symbol("ten").tier is None and g.symbol("ten").value_rank is None
    assert wild.substitutes == frozenset({"ten", "jack", "queen"}) and wild.multiplier == 2
    assert book.is_wild and book.is_scatter and book.substitutes is None and book.multiplier == 1
    assert g.symbol("lobster").role == "bonus" and g.symbol("blank").role == "blank"
    assert dict(g.paytable["explorer"]) == {2: 10, 3: 100, 4: 1000, 5: 5000}
    assert dict(g.paytable["wild"]) == {2: 5, 3: 50}
    assert "book" not in g.paytable
    assert g.lines[3] == (0, 1, 2, 1, 0) and len(g.lines) == 5
    assert g.scatter.symbols == frozenset({"book"})
    assert dict(g.scatter.pays) == {3: Fraction(2), 4: Fraction(20), 5: Fraction(401, 2)}
    assert all(isinstance(v, Fraction) for v in g.scatter.pays.values())
    assert g.reel_sets["base"][0] == ("ten", "jack", "book", "queen", "explorer", "lobster", "blank")
    assert [len(s) for s in g.reel_sets["free"]] == [6, 5, 7, 5, 6]
    assert g.cycle("base") == 7 ** 5
    fs = g.features["free_spins"]
    assert (fs.kind, fs.reel_set) == ("free_spins", "free")
    assert fs.trigger.symbols == frozenset({"book"}) and dict(fs.trigger.counts) == {3: 10, 4: 10, 5: 10}
    assert fs.trigger.requires == frozenset() and fs.trigger.min_count == 3
    assert dict(fs.params["retrigger"].counts) == {3: 10}
    assert fs.params["multiplier"] == 1 and fs.params["scatter_pays"] is True
    assert fs.params["expanding_symbol"]["choose_from"] == ("ten", "jack", "queen", "explorer")
    assert fs.params["expanding_symbol"]["weights"] == (1, 1, 1, 2)
    buoy = g.features["buoy"]
    assert buoy.trigger is None and buoy.reel_set is None
    assert dict(buoy.params["picks"]) == {2: 1, 3: 1, 4: 1}
    assert buoy.params["prizes"] == ((5, 3), (10, 2), (50, 1))
    assert {k: dict(v) for k, v in g.line_triggers.items()} == {"lobster": {3: "buoy"}}
    assert list(g.modes) == ["base", "buy"] and g.default_mode.name == "base"
    assert g.modes["base"] == BetMode("base", Fraction(1), "base", params=g.modes["base"].params)
    assert g.modes["base"].params["description"] == "regular play"
    buy = g.modes["buy"]
    assert (buy.cost, buy.reel_set, buy.buys) == (Fraction(100), None, "free_spins")
    assert dict(buy.buy_counts) == {3: 90, 4: 9, 5: 1} and "gamble" not in buy.params
    assert (fs.engine, fs.mechanics) == ("wald", ("spins", "multiplier", "expanding_symbol"))
    assert g.cap.total_bet_multiple == Fraction(5000) and g.cap.currency is None
    assert dict(g.rules) == {"line_wild_pay": "highest", "simultaneous_triggers": "first_declared_starts",
                             "expanding_count": "reels", "expanding_line_win": "wild_led_only",
                             "expanding_repeat_multiplier": "count",
                             "scatter_substitutes_for_expanding_in_line_wins": True,
                             "line_wild_multipliers": "multiply", "all_wild_win_multiplied": True,
                             "line_win_chosen_on": "final_pay", "anywhere_pay_wilds": "counted"}
    assert dict(g.design) == {
        "paytable.wild": "the wild pays on its own, as on the published paytable",
        "scatter.pays": "5 books pay 200.5 x total bet",
    }
    assert g.meta["provider"] == "Test Provider" and g.meta["published"]["rtp"] == "95.10%"
    with pytest.raises(TypeError):
        g.paytable["ten"][3] = 1  # read-only


def test_defaults_minimal_model():
    text = """
[game]
name = "Tiny"
reels = 3
rows = 1
[symbols]
a = "regular"
w = "wild"
[paytable]
a = { 3 = 10 }
[paylines]
lines = [[0, 0, 0]]
[reels]
base = [["a", "w"], ["a"], ["w", "a", "a"]]
"""
    g = load_model_text(text)
    assert g.path == "<string>" and g.total_bet == 1
    assert list(g.modes) == ["base"] and g.modes["base"].cost == 1 and g.modes["base"].reel_set == "base"
    assert g.scatter is None and g.cap is None and not g.features and not g.meta
    # every game's own rules, at their defaults
    assert dict(g.rules) == {"line_wild_pay": "highest", "simultaneous_triggers": "first_declared_starts",
                             "line_wild_multipliers": "multiply", "all_wild_win_multiplied": True,
                             "line_win_chosen_on": "final_pay", "anywhere_pay_wilds": "counted"}
    assert g.symbol("w").substitutes is None and g.symbol("w").multiplier == 1


def test_currency_cap_and_fraction_cost():
    g = load(variant(
        ("total_bet_multiple = 5000", 'currency = 250000\ncurrency_name = "GBP"\nstakes = [0.25, 1, "1/3", 100]'),
        ("cost = 100", 'cost = "102.5"'),
    ))
    assert g.cap.currency == 250000 and g.cap.currency_name == "GBP"
    assert g.cap.stakes == (Fraction(1, 4), Fraction(1), Fraction(1, 3), Fraction(100))
    assert g.modes["buy"].cost == Fraction(205, 2)


def test_substitutes_list_and_inline_strips_table():
    g = load(variant(('except = ["explorer"]', 'substitutes = ["ten", "explorer"]'),
                     ('free = { csv = "mini_free.csv" }', "free = { strips = [" + '["ten","book","jack"],' * 5 + "] }")))
    assert g.symbol("wild").substitutes == frozenset({"ten", "explorer"})
    assert g.reel_sets["free"] == (("ten", "book", "jack"),) * 5


# -- CSV reel strips ------------------------------------------------------------------------------


def _with_csv(tmp_path: Path, content: str) -> Game:
    (tmp_path / "mini_free.csv").write_text(content)
    (tmp_path / "mini.toml").write_text(TEXT)
    return load_model(tmp_path / "mini.toml")


def test_csv_good_with_header_and_ragged_bottom():
    strips = load_model(MINI).reel_sets["free"]
    assert strips[0] == ("ten", "book", "jack", "queen", "explorer", "wild")
    assert strips[1] == ("jack", "ten", "queen", "explorer", "wild")
    assert strips[2] == ("queen", "book", "ten", "jack", "explorer", "queen", "wild")


def test_csv_without_header_and_spaces(tmp_path):
    rows = ["ten, book ,jack,jack,book", "book,ten,book,ten,ten", "jack,jack,ten,queen,jack,,"]
    g = _with_csv(tmp_path, "\n".join(rows) + "\n")
    assert g.reel_sets["free"][1] == ("book", "ten", "jack")
    assert len(g.reel_sets["free"]) == 5


def test_csv_bad_symbol_names_file_row_column(tmp_path):
    rows = ["reel1,reel2,reel3,reel4,reel5", "ten,book,jack,jack,book", "book,ten,Jak,ten,ten",
            "jack,jack,ten,queen,jack"]
    with pytest.raises(ModelError) as info:
        _with_csv(tmp_path, "\n".join(rows) + "\n")
    assert info.value.key == "reels.free[2][1]"
    assert "mini_free.csv: row 3, column 3: unknown symbol 'Jak'" in info.value.reason
    assert info.value.path == str(tmp_path / "mini.toml")


def test_csv_gap_inside_column(tmp_path):
    rows = ["ten,book,jack,jack,book", "book,,book,ten,ten", "jack,jack,ten,queen,jack"]
    with pytest.raises(ModelError) as info:
        _with_csv(tmp_path, "\n".join(rows) + "\n")
    assert info.value.key == "reels.free[1][1]"
    assert "row 3, column 2: symbol 'jack' below an empty cell" in info.value.reason


def test_csv_wrong_column_count(tmp_path):
    with pytest.raises(ModelError) as info:
        _with_csv(tmp_path, "ten,book,jack,jack\nbook,ten,book,ten\njack,jack,ten,queen\n")
    assert info.value.key == "reels.free"
    assert "mini_free.csv: has 4 strips; the game has 5 reels" in info.value.reason


@pytest.mark.parametrize("sep", [";", "\t"])
def test_csv_other_delimiter_named(tmp_path, sep):
    """A strip file saved with semicolons (a European spreadsheet's CSV) or tabs reads as one column
    per row; the error says the file's cells hold that separator and that columns are comma-separated."""
    rows = ["reel 1,reel 2,reel 3,reel 4,reel 5".replace(",", sep), "ten,book,jack,jack,book".replace(",", sep),
            "book,ten,book,ten,ten".replace(",", sep), "jack,jack,ten,queen,jack".replace(",", sep)]
    with pytest.raises(ModelError) as info:
        _with_csv(tmp_path, "\n".join(rows) + "\n")
    assert info.value.key == "reels.free"
    assert "mini_free.csv: has 1 strips; the game has 5 reels" in info.value.reason
    assert f"its cells hold {sep!r}" in info.value.reason and "separated by commas" in info.value.reason


def test_csv_wrong_column_count_no_separator_hint(tmp_path):
    with pytest.raises(ModelError) as info:
        _with_csv(tmp_path, "ten,book,jack,jack\nbook,ten,book,ten\njack,jack,ten,queen\n")
    assert "separated by commas" not in info.value.reason


def test_csv_short_column(tmp_path):
    with pytest.raises(ModelError) as info:
        _with_csv(tmp_path, "ten,book,jack,jack,book\nbook,ten,book,ten,ten\njack,,ten,queen,jack\n")
    assert info.value.key == "reels.free[1]"
    assert "column 2: strip has 2 stops, fewer than the 3 rows" in info.value.reason


# -- files, registry -----------------------------------------------------------------------------


def test_missing_file(tmp_path):
    with pytest.raises(ModelError) as info:
        load_model(tmp_path / "none.toml")
    assert info.value.key == "" and "cannot read the model file" in info.value.reason


def test_loading_writes_nothing(tmp_path):
    (tmp_path / "mini.toml").write_text(TEXT)
    (tmp_path / "mini_free.csv").write_text((DATA / "mini_free.csv").read_text())
    before = sorted((p.name, p.stat().st_mtime_ns) for p in tmp_path.iterdir())
    load_model(tmp_path / "mini.toml")
    assert sorted((p.name, p.stat().st_mtime_ns) for p in tmp_path.iterdir()) == before


def test_register_kind_extends_rules():
    def validator(params, key, ctx):
        p = ctx.table(params, key, allowed=("levels",))
        return {"levels": ctx.integer(p.get("levels", 1), ctx.join(key, "levels"), min=1)}

    kinds.register_kind("test_kind", validator, rules={"test_switch": (bool, False, "a test switch")})
    try:
        with pytest.raises(ValueError):
            kinds.register_kind("test_kind", validator)
        text = variant(("[cap]\n", '[features.extra]\nkind = "test_kind"\nlevels = 3\n\n[cap]\n'),
                       ('expanding_line_win = "wild_led_only"', "test_switch = true"))
        g = load(text)
        assert g.features["extra"].params["levels"] == 3
        assert g.rules["test_switch"] is True and g.rules["expanding_count"] == "reels"
        with pytest.raises(ModelError) as info:
            load(text.replace("test_switch = true", "test_switch = 1"))
        assert info.value.key == "rules.test_switch" and "must be true or false, got 1" in info.value.reason
        with pytest.raises(ModelError) as info:
            load(text.replace("levels = 3", "levels = 0"))
        assert info.value.key == "features.extra.levels"
    finally:
        kinds.unregister_kind("test_kind")
    assert "test_switch" not in kinds.RULES and "expanding_count" in kinds.RULES


def test_fixture_directory_untouched():
    assert sorted(os.listdir(DATA)) == ["bad_symbol.csv", "mini.toml", "mini_free.csv"]


def test_documented_example_loads():
    doc = (Path(__file__).parents[2] / "docs" / "model-format.md").read_text()
    start = doc.index("## A complete small example")
    example = doc[doc.index("```toml\n", start) + 8:doc.index("```\n", doc.index("```toml\n", start))]
    g = load_model_text(example, path="example.toml", base_dir=DATA)
    assert g.name == "Mini Book" and list(g.modes) == ["base", "buy"]
    assert set(g.features) == {"free_spins", "buoy"}


def test_csv_header_wider_than_data(tmp_path):
    rows = ["reel1,reel2,reel3,reel4,reel5,notes", "ten,book,jack,jack,book", "book,ten,book,ten,ten",
            "jack,jack,ten,queen,jack"]
    g = _with_csv(tmp_path, "\n".join(rows) + "\n")
    assert g.reel_sets["free"][4] == ("book", "ten", "jack")


@pytest.mark.parametrize("name", ["/etc/passwd", "../mini_free.csv"])
def test_csv_path_must_stay_inside_the_model_folder(name):
    with pytest.raises(ModelError) as info:
        load(variant(('free = { csv = "mini_free.csv" }', f'free = {{ csv = "{name}" }}')))
    assert info.value.key == "reels.free.csv"
    assert "relative path inside the model's folder" in info.value.reason


def test_a_byte_order_mark_is_read_as_nothing(tmp_path):
    """A model saved with a UTF-8 byte order mark (Windows Notepad) loads as without it; it was
    refused as "not valid TOML: Invalid statement (at line 1, column 1)" (CSV strips already
    accepted one)."""
    (tmp_path / "mini.toml").write_bytes(b"\xef\xbb\xbf" + MINI.read_bytes())
    for f in MINI.parent.glob("*.csv"):
        (tmp_path / f.name).write_bytes(f.read_bytes())
    g = load_model(tmp_path / "mini.toml")
    assert (g.name, g.reel_sets) == (load_model(MINI).name, load_model(MINI).reel_sets)


DEAD_PAYS = """
[game]
name = "dead pays"
reels = 3
rows = 1

[symbols]
a = "regular"
b = "regular"
w = "wild"

[paytable]
a = { 3 = 10 }
b = { 2 = 3, 3 = 20 }
w = { 2 = 5, 3 = 50 }

[paylines]
lines = [[0, 0, 0]]

[reels]
base = [["a", "a"], ["a", "b", "w"], ["b", "w"]]
"""


def test_pays_that_no_reel_1_can_start_warn():
    """Found by a new user: a wild left off reel 1 of every strip (a common design) kept its own
    pays in the paytable and par sheet, though a run of wilds from reel 1 can never land; so does a
    symbol that reel 1 shows neither itself nor through a wild.  Reel 1 here shows only 'a'."""
    import warnings

    from analytic.errors import ModelWarning

    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        load_model_text(DEAD_PAYS, "g.toml")
    keys = sorted(w.message.key for w in got if issubclass(w.category, ModelWarning))
    assert keys == ["paytable.b", "paytable.w"]
    assert any("reel 1" in str(w.message) for w in got)
    # a ways game reads its ways from reel 1 too (without the wild's own pays, refused there)
    ways = DEAD_PAYS.replace("lines = [[0, 0, 0]]", "ways = true").replace("w = { 2 = 5, 3 = 50 }\n", "")
    ways = ways.replace("rows = 1", "rows = 1\ntotal_bet = 1")
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        load_model_text(ways, "g.toml")
    assert [w.message.key for w in got if issubclass(w.category, ModelWarning)] == ["paytable.b"]
    # a wild on reel 1 makes both payable (w's own run; b through the wild); both ways reads from reel 3
    for text in (DEAD_PAYS.replace('base = [["a", "a"]', 'base = [["a", "w"]'),
                 DEAD_PAYS.replace("lines = [[0, 0, 0]]", "lines = [[0, 0, 0]]\npays_both_ways = true")):
        with warnings.catch_warnings():
            warnings.simplefilter("error", ModelWarning)
            load_model_text(text, "g.toml")


def test_unstartable_pays_warning_says_what_to_do():
    """The warning names the key and every remedy: for a symbol a wild stands in for, a wild on
    reel 1 starts its run as well as the symbol itself; a wild scatter's pays meant to pay
    anywhere in the window belong in [scatter] (a paytable row is a run from reel 1)."""
    import warnings

    from analytic.errors import ModelWarning

    text = DEAD_PAYS.replace('w = "wild"', 'w = "wild_scatter"')
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        load_model_text(text, "g.toml")
    msg = {w.message.key: str(w.message) for w in got if issubclass(w.category, ModelWarning)}
    assert sorted(msg) == ["paytable.b", "paytable.w"]
    assert msg["paytable.b"].startswith("g.toml: paytable.b: ")
    assert "a wild standing in for it, on reel 1" in msg["paytable.b"] and "remove its pays" in msg["paytable.b"]
    assert "[scatter]" not in msg["paytable.b"]
    assert "[scatter] pays" in msg["paytable.w"] and "remove its pays" in msg["paytable.w"]


def test_pays_started_on_reel_1_of_any_reel_set_do_not_warn(tmp_path):
    """No warning where reel 1 can start the run: 'b' on reel 1 of a free-spins or bought
    feature's reel set only, two rows with 'b' below the rows a line reads (any stop wraps it
    into the window), a wild on reel 1 that substitutes for 'b' by ``except`` or as a wild
    scatter, a stack of wilds, strips from a CSV file."""
    import warnings

    from analytic.errors import ModelWarning

    head = DEAD_PAYS.replace("w = { 2 = 5, 3 = 50 }\n", "").replace('w = "wild"', 'w = "wild"\nS = "scatter"')
    head = head.split("[reels]")[0]
    fs = ('[features.fs]\nreels = "free"\ntrigger = { symbols = ["S"], counts = { 3 = 5 } }\n')
    cases = {
        "free spins": head + '[reels]\nbase = [["a", "S"], ["a", "S"], ["S", "a"]]\n'
                             'free = [["b", "a"], ["a", "b"], ["b", "a"]]\n' + fs,
        "buy": head + '[reels]\nbase = [["a", "S"], ["a", "S"], ["S", "a"]]\nfree = [["b", "a"], ["a", "b"], ["b"]]\n'
                      + fs + '[modes.base]\ncost = 1\nreels = "base"\n[modes.buy]\ncost = 20\nbuys = "fs"\n'
                             'buy_counts = { 3 = 1 }\n',
        "two rows": head.replace("rows = 1", "rows = 2")
        + '[reels]\nbase = [["a", "a", "b"], ["a", "b"], ["b", "a"]]\n',
        "except": head.replace('w = "wild"', 'w = { role = "wild", except = ["a"] }')
        + '[reels]\nbase = [["a", "w"], ["a", "b"], ["b", "a"]]\n',
        "wild scatter": head.replace('w = "wild"', 'w = "wild_scatter"')
        + '[reels]\nbase = [["a", "w"], ["a", "b"], ["b", "a"]]\n',
        "stacked wild": head + '[reels]\nbase = [["a", "w", "w", "w"], ["a", "b"], ["b", "a"]]\n',
    }
    (tmp_path / "strips.csv").write_text("reel 1,reel 2,reel 3\na,a,b\nb,b,a\n")
    cases["csv"] = head + '[reels]\nbase = { csv = "strips.csv" }\n'
    for name, text in cases.items():
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            load_model_text(text, "g.toml", base_dir=tmp_path)
        assert [str(w.message) for w in got if issubclass(w.category, ModelWarning)] == [], name


def test_a_currency_cap_without_stakes_warns_that_it_caps_nothing():
    """Found by a new user: ``[cap] currency = 5000`` written for a cap of 5,000 total bets (the wrong
    key, so the wrong unit) loaded silently and ``analytic solve`` printed the uncapped RTP with no
    word of a cap: documented ("without stakes a currency cap is only listed"), but nothing said so.
    A currency cap without ``stakes`` now warns at ``cap.currency``; with stakes, or a cap in total-bet
    multiples, there is no such warning."""
    import warnings

    from analytic.errors import ModelWarning

    def cap_warnings(text):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            g = load(text)
        return g, [str(w.message) for w in got if issubclass(w.category, ModelWarning)
                   and w.message.key.startswith("cap")]

    g, msgs = cap_warnings(variant(("total_bet_multiple = 5000", "currency = 5000")))
    assert g.cap.currency == 5000 and g.cap.total_bet_multiple is None
    assert len(msgs) == 1 and "cap.currency: " in msgs[0]
    assert "stakes" in msgs[0] and "total_bet_multiple" in msgs[0]
    g, msgs = cap_warnings(variant(("total_bet_multiple = 5000", "total_bet_multiple = 5000\ncurrency = 5000")))
    assert len(msgs) == 1  # the round cap holds, the currency one still caps nothing
    for text in (TEXT, variant(("total_bet_multiple = 5000", "currency = 5000\nstakes = [1, 2]"))):
        assert cap_warnings(text)[1] == []
