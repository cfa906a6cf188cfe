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
from hypothesis import HealthCheck, event, given, settings

from analytic.errors import ModelError, UnboundedFeatureError, UnsupportedMechanicError
from analytic.model.loader import load_model_text
from analytic.solver.distribution import round_law
from analytic.solver.round import solve_round

from oracle_ext import OracleExt
from randgames import key_models, to_toml
from test_differential import same

SLOW = os.environ.get("ANALYTIC_SLOW") == "1"
KEY_EXAMPLES = int(os.environ.get("HUNT", 40))
SLOW_KEY_EXAMPLES = 1500

pytestmark = pytest.mark.filterwarnings("ignore::analytic.errors.ModelWarning")

LINE_RULE_DEFAULTS = {"line_wild_multipliers": "multiply", "all_wild_win_multiplied": True,
                      "line_win_chosen_on": "final_pay", "anywhere_pay_wilds": "counted"}


def _settings():
    return settings(max_examples=SLOW_KEY_EXAMPLES if SLOW else KEY_EXAMPLES, deadline=None, derandomize=True,
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
    if unbounded(o):
        if model.get("cap"):
            return
        with pytest.raises(UnboundedFeatureError):
            for mode in game.modes:
                solve_round(game, mode)
        return
    for mode in game.modes:
        try:
            res = solve_round(game, mode)
        except (ModelError, UnsupportedMechanicError) as e:
            key_path(str(e)) if isinstance(e, ModelError) else None
            event(f"refused at solve: {type(e).__name__}")
            assert "cap" in str(e) or "max_spins" in str(e), f"mode {mode}: refused at solve: {e}\n{text}"
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
    if cap is None:
        same(res.mean_win, want["mean"], where + "mean win")
        same(res.second_moment, want["m2"], where + "second moment")
        same(res.rtp, want["rtp"], where + "rtp")
        if all(c.rtp.label == "exact" for c in res.components) and res.rtp.label == "exact":
            assert sum(c.rtp.value for c in res.components) == res.rtp.value, where + "RTP split does not add up"
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


@_settings()
@given(key_models(shape="ways"))
def test_ways_keys(model):
    check_key_model(model)


@_settings()
@given(key_models(shape="lines"))
def test_line_keys(model):
    check_key_model(model)


@_settings()
@given(key_models(shape="both"))
def test_both_ways_keys(model):
    check_key_model(model)
