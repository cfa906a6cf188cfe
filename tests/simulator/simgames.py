"""Game objects built directly for the simulator tests (no loader needed)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from analytic.model.game import (
    BetMode,
    FeatureSpec,
    Game,
    ScatterPay,
    Symbol,
    Trigger,
    frozen_mapping,
)

_ROOT = Path(__file__).resolve().parents[2]
CASES = next((p for p in (_ROOT.parent / "shared" / "cases", Path("/work/shared/cases")) if p.is_dir()),
             _ROOT.parent / "shared" / "cases")


def fm(d):
    return frozen_mapping(d)


def make_game(
    symbols,
    paytable,
    lines,
    reel_sets,
    *,
    rows=1,
    scatter=None,
    features=None,
    modes=None,
    cap=None,
    line_triggers=None,
    rules=None,
    total_bet=None,
    name="test",
):
    """``symbols``: list of (name, role) or (name, role, dict of Symbol kwargs)."""
    syms = []
    for i, s in enumerate(symbols):
        kw = s[2] if len(s) > 2 else {}
        syms.append(Symbol(s[0], i, s[1], **kw))
    reels = len(next(iter(reel_sets.values())))
    return Game(
        path=f"<{name}>",
        name=name,
        reels=reels,
        rows=rows,
        symbols=tuple(syms),
        paytable=fm({k: fm({int(c): int(p) for c, p in v.items()}) for k, v in paytable.items()}),
        lines=tuple(tuple(l) for l in lines),
        total_bet=len(lines) if total_bet is None else total_bet,
        reel_sets=fm({k: tuple(tuple(s) for s in v) for k, v in reel_sets.items()}),
        scatter=scatter,
        features=fm(features or {}),
        modes=fm(modes or {"base": BetMode("base", Fraction(1), next(iter(reel_sets)))}),
        cap=cap,
        line_triggers=fm({k: fm(v) for k, v in (line_triggers or {}).items()}),
        rules=fm(rules or {}),
    )


def atkins(multiplier=3, retrigger=True):
    """Atkins Diet (case_01) with its 10 free spins at x3 and retriggers."""
    d = json.loads((CASES / "case_01_woo_atkins_diet.json").read_text())
    symbols = [(s["name"], s["role"]) for s in d["symbols"]]
    sc = d["paytable"]["scatter_pays"]
    scat = ScatterPay(frozenset([sc["symbol"]]), fm({int(k): Fraction(v) for k, v in sc["pays_x_total_bet"].items()}))
    params = {"multiplier": multiplier}
    if retrigger:
        params["retrigger"] = {"symbols": ["Scale"], "counts": {"3": 10}}
    fs = FeatureSpec(
        "free_spins",
        "free_spins",
        Trigger(frozenset(["Scale"]), fm({3: 10})),
        "base",
        fm(params),
    )
    return make_game(
        symbols,
        d["paytable"]["line_pays"],
        d["paylines"]["lines"],
        {"base": d["reels"]["strips"]},
        rows=3,
        scatter=scat,
        features={"free_spins": fs},
        name="Atkins Diet",
    )
