"""Differential harness over random games drawing the pay keys and scopes of issue 22.

Issue 18 item 4 / issue 22's property tests.  :func:`randgames.key_models`
draws small models with ways pays, pays both ways (ways and paylines),
groups, combos, anywhere pays, blanks, the line rules, coin modes, fixed wild
reels, expanding wilds, pick boards, the spin / feature / round caps and
``max_spins``, together with wilds, scatters, free spins, pick bonuses and
buys.  :class:`oracle_ext.OracleExt` (written from ``docs/model-format.md``,
reading the raw TOML data, importing nothing from ``analytic``) enumerates
every stop combination and every feature play.

* A model the format documents as refused (:func:`documented_refusals`, the
  refusals listed in ``docs/model-format.md``) must be refused at load with a
  ``ModelError`` naming one of the expected key paths; a model the loader
  refuses must be one of those.
* Every other model is solved in every mode: every figure labelled exact
  must equal the oracle's fraction (mean, second moment, RTP, hit frequency,
  the RTP split adding up, each feature's frequency, RTP share and expected
  spins, the round's law), every bounded one must contain it; with a round
  cap ``E[min(R, C)]``, ``E[min(R, C)^2]`` and ``P(R >= C)``.  A refusal at
  solve must name a key path.

Examples: ``KEY_EXAMPLES`` per shape in CI (derandomized); ``ANALYTIC_SLOW=1``
raises them to ``SLOW_KEY_EXAMPLES`` (README, Tests).
"""

from __future__ import annotations

import os
import re
import tomllib
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, event, example, given, settings

from analytic.errors import ModelError, UnsupportedMechanicError
from analytic.model.loader import load_model_text
from analytic.solver.distribution import round_law
from analytic.solver.round import solve_round

from oracle_ext import OracleExt
from randgames import key_models, to_toml
from test_differential import assert_every_mode_unbounded, same

SLOW = os.environ.get("ANALYTIC_SLOW") == "1"
#: CI examples per shape (the suite's budget: about 20 s together on the busy 2-core machine)
KEY_EXAMPLES = {"ways": 40, "lines": 60, "both": 40, "free": 60}
SLOW_KEY_EXAMPLES = 1500

pytestmark = pytest.mark.filterwarnings("ignore::analytic.errors.ModelWarning")

LINE_RULE_DEFAULTS = {"line_wild_multipliers": "multiply", "all_wild_win_multiplied": True,
                      "line_win_chosen_on": "final_pay", "anywhere_pay_wilds": "counted"}


def _settings(shape: str):
    return settings(max_examples=SLOW_KEY_EXAMPLES if SLOW else KEY_EXAMPLES[shape], deadline=None, derandomize=True,
                    report_multiple_bugs=False, suppress_health_check=list(HealthCheck))


def _role(m, s):
    v = m["symbols"][s]
    return v if isinstance(v, str) else v["role"]


def documented_refusals(m: dict) -> set:
    """Key paths at which ``docs/model-format.md`` says the loader refuses this model (empty: accepted)."""
    out: set = set()
    rules = m.get("rules", {})
    feats = m.get("features", {})
    spins = [n for n, f in feats.items() if f.get("kind", "free_spins") == "free_spins"]
    pl = m["paylines"]
    ways, both = pl.get("ways", False), pl.get("pays_both_ways", False)
    secs = [s for s in ("groups", "combos", "anywhere_pays") if m.get(s)]
    classic_pays = [s for s in secs if s != "groups"] + (["groups"] if m.get("groups") and any(
        g in m["paytable"] for g in m["groups"]) else [])
    changed = [f"rules.{r}" for r, d in LINE_RULE_DEFAULTS.items() if r in rules and rules[r] != d]
    expands = [s for s, v in m["symbols"].items() if isinstance(v, dict) and v.get("expands")]
    modes = m.get("modes", {})
    # groups, combos, anywhere pays and the line rules off their default: not with free spins
    if spins and (secs or changed):
        out |= set(secs) | set(changed)
    if rules.get("line_wild_pay") == "first_non_wild" and (classic_pays or changed):
        out.add("rules.line_wild_pay")
    if ways or both:
        if m.get("line_triggers"):
            out.add("line_triggers")
        if ways:
            out |= {f"paytable.{s}" for s, t in m["paytable"].items()
                    if s in m["symbols"] and _role(m, s) in ("wild", "wild_scatter") and any(v > 0 for v in t.values())}
            if "line_wild_pay" in rules:
                out.add("rules.line_wild_pay")
        elif rules.get("line_wild_pay", "highest") != "highest":
            out.add("rules.line_wild_pay")
        out |= set(secs) | set(changed)
        for name, md in modes.items():
            out |= {f"modes.{name}.{k}" for k in ("coins", "coin_pays", "wild_reels") if k in md}
        out |= {f"symbols.{s}.expands" for s in expands}
        for n in spins:
            if "expanding_symbol" in feats[n]:
                out.add(f"features.{n}.expanding_symbol")
    for name, md in modes.items():
        if "coins" in md and (feats or m.get("line_triggers") or expands):
            out.add(f"modes.{name}.coins")
        wr = md.get("wild_reels")
        if wr:
            for f in feats.values():
                t = f.get("trigger")
                if t and wr["wild"] in set(t["symbols"]) | set(t.get("requires", ())):
                    out.add(f"modes.{name}.wild_reels.wild")
    for s in expands:
        for n in spins:
            f = feats[n]
            if "expanding_symbol" in f and any(s in strip for strip in m["reels"][f["reels"]]):
                out.add(f"symbols.{s}.expands")
    if "feature" in m.get("cap", {}):
        if any("retrigger" in feats[n] for n in spins):
            out.add("cap.feature")
    return out


def key_path(msg: str) -> str:
    """The key path of a loader error ``FILE: KEY.PATH: reason``."""
    mt = re.match(r"random\.toml: ([^:]+): ", msg)
    assert mt, f"the refusal names no key path: {msg}"
    return mt.group(1).strip()


def _started(o: OracleExt) -> set:
    out = set()
    for name, md in o.modes.items():
        if "buys" in md:
            out.add(md["buys"])
        else:
            out |= {trig[0] for (_, trig, _), c in o.base_table(name)[0].items() if trig}
    return out


def unbounded(o: OracleExt) -> bool:
    started = _started(o)
    for name, f in o.features.items():
        if o.has_retrigger(name) and "max_spins" not in f and name in started:
            for _, s in o.states(name):
                tab, cyc = o.free_spin_table(name, s)
                if sum(a * c for (x, a), c in tab.items()) >= cyc:
                    return True
    return False


def check_key_model(model: dict) -> None:
    text = to_toml(model)
    raw = tomllib.loads(text)
    want_refused = documented_refusals(raw)
    try:
        game = load_model_text(text, "random.toml")
    except ModelError as e:
        path = key_path(str(e))
        event(f"refused at load: {path.split('.')[0]}")
        assert want_refused, f"refused, but the format documents no refusal of it: {e}\n{text}"
        assert any(path == k or path.startswith(k + ".") or k.startswith(path + ".") for k in want_refused) \
            or path.replace('"', "") in want_refused, f"refused at {path}, expected one of {sorted(want_refused)}: {e}\n{text}"
        return
    assert not want_refused, f"solved, but the format says it is refused at {sorted(want_refused)}:\n{text}"
    o = OracleExt(raw)
    event(f"shape: {'ways' if o.ways else 'lines'}{' both ways' if o.both else ''}")
    event(f"features: {sorted(('board' if 'board' in f else f.get('kind')) for f in o.features.values())}")
    event(f"caps: {sorted(model.get('cap', {}))}")
    event(f"expanding_symbol: {sorted(n for n, f in o.features.items() if 'expanding_symbol' in f) != []}")
    event(f"reel_wild_multipliers: {any('reel_wild_multipliers' in f for f in o.features.values())}")
    if unbounded(o):
        if model.get("cap"):
            return
        assert_every_mode_unbounded(game)
        return
    for mode in game.modes:
        try:
            res = solve_round(game, mode)
        except (ModelError, UnsupportedMechanicError) as e:
            # documented refusals at solve: a feature cap whose grid is too long (cap.feature), a round
            # cap on free spins with max_spins and a retrigger (no win law)
            where = key_path(str(e)) if isinstance(e, ModelError) else str(e)
            event(f"refused at solve: {where[:40]}")
            assert where.startswith("cap") or "max_spins" in where, f"mode {mode}: refused at solve: {e}\n{text}"
            continue
        check_key_mode(res, o, mode, text)


def check_key_mode(res, o: OracleExt, mode: str, text: str) -> None:
    want = o.figures(mode)
    cap = o.cap
    lf = o.law_figures(mode, cap)
    where = f"mode {mode!r} of\n{text}\n"
    assert res.cost == want["cost"], where
    same(res.hit_frequency, lf["hit"], where + "hit frequency")
    for f in res.features:
        same(f.frequency, want["frequency"].get(f.name, Fraction(0)), where + f"feature {f.name} frequency")
    if all(c.rtp.label == "exact" for c in res.components) and res.rtp.label == "exact":
        assert sum(c.rtp.value for c in res.components) == res.rtp.value, where + "the RTP split does not add up"
    if cap is None:
        same(res.mean_win, want["mean"], where + "mean win")
        same(res.second_moment, want["m2"], where + "second moment")
        same(res.rtp, want["rtp"], where + "rtp")
        for f in res.features:
            same(f.rtp, want["share"].get(f.name, Fraction(0)), where + f"feature {f.name} RTP share")
            same(f.expected_spins, want["expected_spins"].get(f.name, Fraction(0)),
                 where + f"feature {f.name} expected spins")
        assert {f.name for f in res.features} == {n for n, p in want["frequency"].items() if p}, where
        law = round_law(res)
        ol = lf["law"]
        if law.points is not None and ol.exact and law.error == 0:
            got = {x: p for x, p in law.points.items() if p}
            exp = {x: p for x, p in ol.points.items() if p}
            assert got == exp, where + "round law"
    else:
        same(res.mean_win, lf["capped_mean"], where + "capped mean win E[min(R, C)]")
        same(res.second_moment, lf["capped_m2"], where + "capped second moment")
        if lf["capped_mean"].exact is not None:
            same(res.rtp, lf["capped_mean"].exact / want["cost"], where + "capped rtp")
        same(res.extra["p_reach_cap"], lf["p_reach_cap"], where + "P(R >= C)")


#: Two different expanding wilds on one reel (the topmost expands), a group standing for a wild that
#: substitutes for one member only, a combo with a group cell, anywhere pays without wilds, coin pays.
TOPMOST_EXPANDS = {
    "game": {"name": "random", "reels": 3, "rows": 2},
    "symbols": {"a": "regular", "b": "regular", "c": "regular", "blank": "blank",
                "W2": {"role": "wild", "multiplier": 2, "expands": True},
                "W3": {"role": "wild", "multiplier": 3, "expands": True, "substitutes": ["a"]}, "S": "scatter"},
    "paytable": {"a": {"3": 10}, "b": {"2": 2, "3": 5}, "ab": {"3": 3}, "W3": {"3": 50}},
    "groups": {"ab": ["a", "b"]},
    "combos": {"c0": {"cells": ["c", "ab", "c"], "pay": 40}},
    "anywhere_pays": {"c": {"1": 1, "2": 4}},
    "scatter": {"symbols": ["S"], "pays": {"1": "1/2"}},
    "paylines": {"lines": [[0, 0, 0], [1, 1, 1], [0, 1, 0]]},
    "reels": {"base": [["a", "b", "c", "W3", "blank"], ["W2", "W3", "b", "W3", "W2", "S"], ["a", "c", "b", "blank"]]},
    "modes": {"base": {"cost": 1, "reels": "base"},
              "wild": {"cost": 2, "reels": "base", "wild_reels": {"reels": [3], "wild": "W2"}}},
    "rules": {"line_wild_multipliers": "add", "anywhere_pay_wilds": "not_counted"},
    "cap": {"spin": 9},
}

#: Ways paying both ways with multiplying wilds, free spins with a retrigger and max_spins, a spin cap.
WAYS_MAX_SPINS = {
    "game": {"name": "random", "reels": 3, "rows": 2, "total_bet": 5},
    "symbols": {"a": "regular", "b": "regular", "W": {"role": "wild", "multiplier": 2}, "S": "scatter"},
    "paytable": {"a": {"2": 1, "3": 4}, "b": {"1": 1, "3": 2}},
    "paylines": {"ways": True, "pays_both_ways": True},
    "scatter": {"symbols": ["S"], "pays": {"2": 1}},
    "reels": {"base": [["a", "S", "b"], ["W", "a", "S"], ["b", "S", "a"]],
              "free": [["a", "S", "W"], ["b", "W"], ["S", "a", "b"]]},
    "features": {"fs": {"kind": "free_spins", "reels": "free", "trigger": {"symbols": ["S"], "counts": {"2": 2, "3": 3}},
                        "retrigger": {"symbols": ["S"], "counts": {"2": 2}}, "max_spins": 4, "multiplier": 2}},
    "cap": {"spin": 3},
}


@_settings("ways")
@given(key_models(shape="ways"))
@example(WAYS_MAX_SPINS)
def test_ways_keys(model):
    check_key_model(model)


@_settings("lines")
@given(key_models(shape="lines"))
@example(TOPMOST_EXPANDS)
def test_line_keys(model):
    check_key_model(model)


@_settings("both")
@given(key_models(shape="both"))
def test_both_ways_keys(model):
    check_key_model(model)


@_settings("free")
@given(key_models(shape="free"))
def test_free_spin_keys(model):
    """Free spins (engine wald) with drawn expanding symbols, max_spins, expanding wilds and the caps."""
    check_key_model(model)


# ---------------------------------------------------------------------------- the oracle against the docs' hand counts

def _oracle(symbols, paytable, *, reels=3, rows=1, lines=None, ways=False, both=False, rules=None, **extra):
    m = {"game": {"name": "h", "reels": reels, "rows": rows, "total_bet": 1}, "symbols": symbols,
         "paytable": paytable, "paylines": {"ways": True} if ways else {"lines": lines or [[0] * reels]},
         "reels": {"base": [["x"] * rows] * reels}, **extra}
    if both:
        m["paylines"]["pays_both_ways"] = True
    if rules:
        m["rules"] = rules
    return OracleExt(m)


def test_oracle_reproduces_the_documented_hand_counts():
    """The oracle's readings are the docs' examples (docs/model-format.md), so its figures can be trusted."""
    # Ways pays: reels [ace, king], [wild, ace], [ace, king] with a x2 wild: 15 + 4 = 19
    o = _oracle({"ace": "regular", "king": "regular", "wild": {"role": "wild", "multiplier": 2}},
                {"ace": {"3": 5}, "king": {"2": 1, "3": 2}}, rows=2, ways=True)
    assert o.ways_win((("ace", "king"), ("wild", "ace"), ("ace", "king"))) == 19
    o.both = True  # both ways: the runs cover every reel, paid once
    assert o.ways_win((("ace", "king"), ("wild", "ace"), ("ace", "king"))) == 19
    # Pays both ways on paylines: W A B pays 2 + 2, W A A pays 10 once
    o = _oracle({"A": "regular", "B": "regular", "W": "wild"}, {"A": {"1": 1, "3": 10}, "B": {"1": 2, "2": 4}},
                both=True)
    assert o.line_pay(("W", "A", "B")) == 4 and o.line_pay(("W", "A", "A")) == 10
    # Groups, combos, anywhere pays: one win per line
    syms = {s: "regular" for s in ("bar1", "bar2", "bar3", "seven", "cherry")} | {"blank": "blank"}
    o = _oracle(syms, {"bar3": {"3": 40}, "any_bar": {"3": 5}}, groups={"any_bar": ["bar1", "bar2", "bar3"]},
                combos={"sbs": {"cells": ["seven", "any_bar", "seven"], "pay": 60}},
                anywhere_pays={"cherry": {"1": 2, "2": 5, "3": 10}})
    assert o.line_pay(("bar3", "bar3", "bar3")) == 40
    assert o.line_pay(("bar1", "bar3", "bar2")) == 5
    assert o.line_pay(("seven", "bar2", "seven")) == 60
    assert o.line_pay(("cherry", "bar1", "cherry")) == 5
    assert o.line_pay(("blank", "blank", "cherry")) == 2
    # anywhere_pay_wilds: cherry W cherry counts 3 (10), or 2 (5)
    for rule, pay in (("counted", 10), ("not_counted", 5)):
        o = _oracle({"cherry": "regular", "W": "wild"}, {}, anywhere_pays={"cherry": {"1": 2, "2": 5, "3": 10}},
                    rules={"anywhere_pay_wilds": rule})
        assert o.line_pay(("cherry", "W", "cherry")) == pay
    # line_wild_multipliers: W2 W3 bar3 with bar3 paying 40: 240, 200, 120
    for rule, pay in (("multiply", 240), ("add", 200), ("highest_once", 120)):
        o = _oracle({"bar3": "regular", "W2": {"role": "wild", "multiplier": 2},
                     "W3": {"role": "wild", "multiplier": 3}}, {"bar3": {"3": 40}},
                    rules={"line_wild_multipliers": rule})
        assert o.line_pay(("W2", "W3", "bar3")) == pay
    # all_wild_win_multiplied: three x2 wilds paying 1000: 8000 or 1000
    for rule, pay in ((True, 8000), (False, 1000)):
        o = _oracle({"a": "regular", "W": {"role": "wild", "multiplier": 2}}, {"W": {"3": 1000}},
                    rules={"all_wild_win_multiplied": rule})
        assert o.line_pay(("W", "W", "W")) == pay
    # line_win_chosen_on: cherry 30 for 2 from the left, 40 for 2 anywhere; V V blank, V a x3 wild: 270 or 40
    for rule, pay in (("final_pay", 270), ("base_pay", 40)):
        o = _oracle({"cherry": "regular", "V": {"role": "wild", "multiplier": 3}, "blank": "blank"},
                    {"cherry": {"2": 30}}, anywhere_pays={"cherry": {"2": 40}}, rules={"line_win_chosen_on": rule})
        assert o.line_pay(("V", "V", "blank")) == pay
    # combos.multiplied = false (the Double Strike example): three x2 doubles pay 2000, not 200 x 8
    o = _oracle({"red7": "regular", "d7": {"role": "wild", "substitutes": ["red7"], "multiplier": 2}},
                {"red7": {"3": 200}}, combos={"top": {"cells": ["d7", "d7", "d7"], "pay": 2000, "multiplied": False}})
    assert o.line_pay(("d7", "d7", "d7")) == 2000 and o.line_pay(("red7", "d7", "d7")) == 800
    # reel_wild_multipliers (the docs' hand count): wins 10, 20, 30, 40, 80, 120 with 6, 3, 3, 2, 1, 1 sixteenths
    o = _oracle({"a": "regular", "W": "wild"}, {"a": {"3": 10}},
                features={"fs": {"kind": "free_spins", "reels": "free",
                                 "trigger": {"symbols": ["a"], "counts": {"3": 1}},
                                 "reel_wild_multipliers": {"wild": "W", "reels": {"2": {"2": 1, "3": 1},
                                                                                  "3": {"1": 1, "4": 1}}}}})
    o.reel_sets["free"] = [["a"], ["a", "W"], ["a", "W"]]
    tab, cyc = o.free_spin_table("fs", None)
    got: dict = {}
    for (x, _), c in tab.items():
        got[x] = got.get(x, 0) + Fraction(c, cyc)
    assert got == {10: Fraction(6, 16), 20: Fraction(3, 16), 30: Fraction(3, 16), 40: Fraction(2, 16),
                   80: Fraction(1, 16), 120: Fraction(1, 16)}
    # A pick board: C, 5, x3: P(0) = 1/2, P(5) = 1/6, P(15) = 1/3
    o = _oracle({"a": "regular"}, {"a": {"3": 1}},
                features={"chest": {"kind": "pick_bonus", "board": {"collect": 1, "prizes": [[5, 1]],
                                                                     "multipliers": [[3, 1]]}}})
    assert o.pick_law("chest") == {0: Fraction(1, 2), 5: Fraction(1, 6), 15: Fraction(1, 3)}


def test_oracle_reproduces_the_expanding_wild_example():
    """docs/model-format.md, "Expanding wilds and fixed wild reels": 12 stop combinations, 4 each."""
    m = {"game": {"name": "x", "reels": 3, "rows": 2},
         "symbols": {"a": "regular", "b": "regular", "W": {"role": "wild", "multiplier": 2, "expands": True},
                     "S": "scatter"},
         "paytable": {"a": {"3": 10}, "b": {"3": 5}}, "scatter": {"symbols": ["S"], "pays": {"1": 1}},
         "paylines": {"lines": [[0, 0, 0], [1, 1, 1]]},
         "reels": {"base": [["a", "a"], ["W", "S", "b"], ["a", "b"]]},
         "modes": {"base": {"cost": 1, "reels": "base"},
                   "wild3": {"cost": 2, "reels": "base", "wild_reels": {"reels": [3], "wild": "W"}}}}
    o = OracleExt(m)
    for mode, wins in (("base", {22: 4, 2: 4, 20: 4}), ("wild3", {82: 4, 2: 4, 80: 4})):
        tab, cyc = o.base_table(mode)
        got: dict = {}
        for (win, _, _), c in tab.items():
            got[win * 2] = got.get(win * 2, 0) + c  # total bet = 2 line bets
        assert cyc == 12 and got == wins, (mode, got)
