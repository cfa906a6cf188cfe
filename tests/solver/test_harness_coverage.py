"""Which documented model keys the differential harness draws, and where the others are tested.

Issue 18, "Done when": "the differential harness runs in CI over every
documented key and finds nothing".  :data:`COVERAGE` lists every key of
``docs/model-format.md`` (the key tables, parsed by
``tests/model/test_documented_keys.py``, plus the keys written outside
tables, :data:`UNTABLED_KEYS`) with one of:

* ``("models", why)``: drawn by :func:`randgames.models` and checked against
  :class:`oracle.Oracle` (``test_differential.py``);
* ``("key_models", why)``: drawn by :func:`randgames.key_models` and
  checked against :class:`oracle_ext.OracleExt` (``test_differential_keys.py``);
* ``("revealed_models", why)``: drawn by :func:`randgames.revealed_models`
  and checked against :class:`oracle_engines.OracleRevealed`
  (``test_differential_engines.py``); ``("gift_models", why)`` likewise with
  :func:`randgames.gift_models` and :class:`oracle_engines.OracleGift`;
* ``("drawn_models", why)``: drawn by :func:`randgames_drawn.drawn_models`
  (engine ``drawn_expanding``, the gamble) and checked against
  :class:`oracle_drawn.OracleDrawn` (``test_differential_drawn.py``);
* ``("elsewhere", "tests/...py: why")``: not drawn by a random generator;
  the named test file covers it (with an independent oracle or a refusal)
  and the reason says why it is not in the harness.

``test_every_documented_key_is_listed`` fails when a documented key is
missing here; ``test_generated_keys_are_drawn`` draws a few hundred models
from each generator (no solving) and fails when a key claimed as generated
is never drawn; ``test_elsewhere_files_exist`` checks the named files.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from randgames import gift_models, key_models, models, revealed_models
from randgames_drawn import drawn_models

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS / "model"))
from test_documented_keys import _documented_keys  # noqa: E402

#: keys the format documents outside its key tables (sections without a table, trigger, reel forms)
UNTABLED_KEYS = {("paytable", "pays"), ("groups", "members"), ("anywhere_pays", "pays"), ("line_triggers", "count"),
                 ("reels", "strips"), ("reels", "csv"), ("trigger", "symbols"), ("trigger", "counts"),
                 ("trigger", "requires"), ("design", "reason")}

_INERT = "tests/model/test_documented_keys.py: documented as carrying no figure (the figures stay the same)"
_REVEALED = "engine revealed_wild_reels, fixed counts and retrigger tables (test_differential_engines)"

COVERAGE = {
    ("game", "name"): ("models", "every model; its name never changes a figure"),
    ("game", "reels"): ("models", "1 .. 5 reels"),
    ("game", "rows"): ("models", "1 .. 3 rows"),
    ("game", "total_bet"): ("models", "drawn or defaulted to the number of lines"),
    ("game", "provider"): ("elsewhere", _INERT),
    ("game", "notes"): ("elsewhere", _INERT),
    ("game", "published"): ("elsewhere", _INERT),
    ("symbols", "role"): ("models", "every role, short and long form"),
    ("symbols", "tier"): ("elsewhere", _INERT + " (read by no solver)"),
    ("symbols", "rank"): ("drawn_models", "the ladder's order (every ladder game; now and then without a ladder)"),
    ("symbols", "substitutes"): ("models", "wilds and wild scatters"),
    ("symbols", "except"): ("models", "wilds and wild scatters"),
    ("symbols", "multiplier"): ("models", "x1 .. x3"),
    ("symbols", "expands"): ("key_models", "base spins and engine wald's spins"),
    ("paytable", "pays"): ("models", "symbols and wilds"),
    ("groups", "members"): ("key_models", "with blanks"),
    ("combos", "cells"): ("key_models", "symbols, groups, wilds, blanks"),
    ("combos", "pay"): ("key_models", "0 .. 60"),
    ("combos", "multiplied"): ("key_models", "false: paid as written"),
    ("anywhere_pays", "pays"): ("key_models", "symbols and groups"),
    ("line_triggers", "count"): ("models", "a line-triggered pick bonus"),
    ("scatter", "symbols"): ("models", "scatters and wild scatters"),
    ("scatter", "pays"): ("models", "integers and p/q strings"),
    ("paylines", "lines"): ("models", "1 .. 4 lines"),
    ("paylines", "ways"): ("key_models", "ways games"),
    ("paylines", "pays_both_ways"): ("key_models", "ways and paylines"),
    ("reels", "strips"): ("models", "inline strips"),
    ("reels", "csv"): ("elsewhere", "tests/model/test_documented_keys.py: test_reel_set_forms_agree (the three "
                       "forms give the same figures); the harness writes models as text, without files"),
    ("modes", "cost"): ("models", "integers and p/q strings"),
    ("modes", "reels"): ("models", "a second reel set (a power-bet style mode)"),
    ("modes", "description"): ("models", "free text"),
    ("modes", "wild_reels"): ("key_models", "fixed wild reels"),
    ("modes", "gamble"): ("drawn_models", "policies always and never, p/q and decimal win probabilities"),
    ("modes", "coins"): ("key_models", "classic games"),
    ("modes", "coin_pays"): ("key_models", "classic games"),
    ("modes", "buys"): ("models", "free spins and pick bonuses, triggered and line-triggered"),
    ("modes", "buy_counts"): ("models", "a count law"),
    ("features", "kind"): ("models", "free_spins and pick_bonus"),
    ("features", "reels"): ("models", "the free reel set"),
    ("features", "trigger"): ("models", "scatter and symbol triggers"),
    ("trigger", "symbols"): ("models", "1 .. 2 symbols"),
    ("trigger", "counts"): ("models", "awards 1 .. 3"),
    ("trigger", "requires"): ("models", "one of the symbols"),
    ("spins", "retrigger"): ("models", "retrigger tables (per_symbol: drawn_models, engine drawn_expanding)"),
    ("spins", "max_spins"): ("key_models", "with and without retriggers"),
    ("multiplier", "multiplier"): ("models", "x1 .. x3"),
    ("scatter_pays", "scatter_pays"): ("models", "true and false"),
    ("expanding_symbol", "choose_from"): ("models", "drawn at the start"),
    ("expanding_symbol", "weights"): ("models", "drawn at the start"),
    ("expanding_symbol", "draw"): ("drawn_models", "at_each_award (at_start: revealed_models)"),
    ("expanding_symbol", "repeat_multiplier"): ("drawn_models", "ceilings 1 .. 4"),
    ("expanding_symbol", "expanding_count"): ("models", "reels and cells"),
    ("expanding_symbol", "expanding_line_win"): ("models", "paid and wild_led_only"),
    ("expanding_symbol", "expanding_repeat_multiplier"): ("drawn_models", "count and count_minus_one"),
    ("expanding_symbol", "scatter_substitutes_for_expanding_in_line_wins"): (
        "drawn_models", "true and false (false with pays falling with the count: refused at solve)"),
    ("wild_symbols", "wild_symbols"): ("elsewhere", "tests/model/test_documented_keys.py: refused on its own "
                                       "(no engine); as gift effects in tests/features/engines/test_gift_pick.py"),
    ("wild_reels", "wild_reels"): ("revealed_models", _REVEALED),
    ("wild_reels", "wild_reels_expansion"): ("revealed_models", _REVEALED),
    ("reel_wild_multipliers", "reel_wild_multipliers"): ("key_models", "shape free: engine wald's spins (also "
                                                           "tests/features/engines/test_reel_wild_multipliers.py)"),
    ("ladder", "order"): ("drawn_models", "rank_ascending and rank_descending"),
    ("golden_reels", "reels"): ("drawn_models", "one or two golden-eligible reels"),
    ("golden_reels", "turned_by"): ("drawn_models", "the Power Book (the trigger's requires)"),
    ("golden_reels", "golden_symbol_retriggers"): ("drawn_models", "true and false"),
    ("golden_reels", "golden_immediate"): ("drawn_models", "true and false"),
    ("gift_pick", "wild"): ("gift_models", "engine gift_pick, every fixed effect (test_differential_engines)"),
    ("gift_pick", "gifts"): ("gift_models", "engine gift_pick, every fixed effect (test_differential_engines)"),
    ("revealed_wild_reels", "published_max_win"): ("revealed_models", _REVEALED),
    ("revealed_wild_reels", "revealed_retrigger_count"): ("revealed_models", _REVEALED),
    ("pick_bonus", "picks"): ("models", "pick bonuses"),
    ("pick_bonus", "prizes"): ("models", "pick bonuses"),
    ("pick_bonus", "prizes_per_pick"): ("models", "pick bonuses"),
    ("pick_bonus", "board"): ("key_models", "pick-until-collect boards"),
    ("cap", "total_bet_multiple"): ("models", "integers and p/q strings"),
    ("cap", "currency"): ("models", "with and without total_bet_multiple (test_currency_capped)"),
    ("cap", "currency_name"): ("models", "test_currency_capped"),
    ("cap", "stakes"): ("models", "integers, p/q strings and floats (test_currency_capped)"),
    ("cap", "spin"): ("key_models", "base and wald spins"),
    ("cap", "feature"): ("key_models", "pick bonuses and wald features"),
    ("rules", "line_wild_pay"): ("models", "highest and first_non_wild"),
    ("rules", "line_wild_multipliers"): ("key_models", "classic games"),
    ("rules", "all_wild_win_multiplied"): ("key_models", "classic games"),
    ("rules", "line_win_chosen_on"): ("key_models", "classic games"),
    ("rules", "anywhere_pay_wilds"): ("key_models", "classic games"),
    ("rules", "simultaneous_triggers"): ("elsewhere", "tests/solver/test_simultaneous_triggers.py: one reading "
                                         "allowed; the harness draws one triggered feature per game"),
    ("autoplay", "stops"): ("elsewhere", _INERT),
    ("design", "reason"): ("elsewhere", _INERT),
}


def _rule_sections() -> dict:
    """Rule name -> the doc section whose table lists it."""
    out = {}
    for sec, key in _documented_keys() | UNTABLED_KEYS:
        out.setdefault(key, sec)
    return out


_RULE_SECTIONS = _rule_sections()

_MECHANIC_OF = {"retrigger": "spins", "max_spins": "spins", "multiplier": "multiplier",
                "scatter_pays": "scatter_pays", "wild_symbols": "wild_symbols", "wild_reels": "wild_reels",
                "reel_wild_multipliers": "reel_wild_multipliers", "picks": "pick_bonus", "prizes": "pick_bonus",
                "prizes_per_pick": "pick_bonus", "board": "pick_bonus"}


def emitted_keys(m: dict) -> set:
    """``(section, key)`` of the documented keys a raw model uses."""
    out = set()
    rule_sec = _RULE_SECTIONS
    for sec in ("game", "cap", "paylines", "scatter", "autoplay"):
        out |= {(sec, k) for k in m.get(sec, {})}
    for v in m["symbols"].values():
        out.add(("symbols", "role"))
        if isinstance(v, dict):
            out |= {("symbols", k) for k in v}
    for sec, key in (("paytable", "pays"), ("groups", "members"), ("anywhere_pays", "pays"),
                     ("line_triggers", "count"), ("design", "reason")):
        if m.get(sec):
            out.add((sec, key))
    for c in m.get("combos", {}).values():
        out |= {("combos", k) for k in c}
    for v in m["reels"].values():
        out.add(("reels", "csv") if isinstance(v, dict) and "csv" in v else ("reels", "strips"))
    for md in m.get("modes", {}).values():
        out |= {("modes", k) for k in md}
    for f in m.get("features", {}).values():
        for k, v in f.items():
            if k in ("kind", "reels", "trigger"):
                out.add(("features", k))
                if k == "trigger":
                    out |= {("trigger", x) for x in v}
            elif k in ("expanding_symbol", "gift_pick", "golden_reels", "ladder"):
                out |= {(k, "order" if k == "ladder" else x) for x in v}
            else:
                out.add((_MECHANIC_OF.get(k, k), k))
    for r in m.get("rules", {}):
        out.add((rule_sec.get(r, "rules"), r))
    return out


def test_every_documented_key_is_listed():
    doc = _documented_keys() | UNTABLED_KEYS
    missing = sorted(doc - set(COVERAGE))
    assert not missing, f"documented keys the harness neither draws nor lists as covered elsewhere: {missing}"
    stale = sorted(set(COVERAGE) - doc)
    assert not stale, f"listed keys the format no longer documents: {stale}"


def test_elsewhere_files_exist():
    for key, (how, why) in COVERAGE.items():
        assert how in ("models", "key_models", "revealed_models", "gift_models", "drawn_models", "elsewhere"), key
        if how == "elsewhere":
            path = why.split(":")[0]
            assert path.startswith("tests/") and (TESTS.parent / path).is_file(), f"{key}: {path}"


#: draws per generator (generation only: about a second per hundred on the busy 2-core machine)
DRAWS = 100


def _drawn(strategy, n: int) -> set:
    seen: set = set()

    @settings(max_examples=n, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def draw(m):
        seen.update(emitted_keys(m))

    draw()
    return seen


def test_generated_keys_are_drawn():
    """Every key claimed as generated is drawn by its generator (a few hundred draws, no solving)."""
    from hypothesis import strategies as st

    got = {
        "models": _drawn(st.one_of(models(), models(cap=True, currency=True)), DRAWS),
        "key_models": _drawn(key_models(), DRAWS) | _drawn(key_models(shape="free"), DRAWS),
        "revealed_models": _drawn(revealed_models(), DRAWS // 3),
        "gift_models": _drawn(gift_models(), DRAWS // 3),
        "drawn_models": _drawn(drawn_models(), DRAWS // 2),
    }
    never = sorted((how, key) for key, (how, _) in COVERAGE.items() if how != "elsewhere" and key not in got[how])
    assert not never, f"keys listed as drawn by a generator that it never drew: {never}"
