"""A hypothesis strategy drawing small random models from the whole documented format.

:func:`models` draws the raw TOML data of a model (``docs/model-format.md``):
1-5 reels, 1-3 rows, renamed symbols of every role (regular, wild and
wild_scatter with multipliers and ``except`` / ``substitutes``, scatter,
bonus, blank), paylines, an optional ``total_bet``, scatter pays (integer
or ``"p/q"``), one triggered feature (``free_spins`` with or without
retriggers, a multiplier, ``scatter_pays``, an expanding symbol with weights;
or ``pick_bonus`` with ``prizes_per_pick``), a trigger's ``requires``, a
line-triggered pick bonus, the rules ``line_wild_pay``, ``expanding_count``,
``expanding_line_win``, bet modes (regular with a cost, a second reel set,
feature buys with ``buy_counts``) and, when asked, a ``[cap]``.  Strips are
kept short enough that every reel set's cycle can be enumerated.

:func:`key_models` draws the pay keys and scopes added later (ways, pays both
ways, groups, combos, anywhere pays, line rules, coins, wild reels, expanding
wilds, pick boards, spin / feature caps, ``max_spins``) for
``test_differential_keys.py``.

:func:`to_toml` writes such data as model-file text.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

from hypothesis import strategies as st

NAME_POOL = ["ten", "jack", "Queen", "k-9", "gem_1", "Z", "lotus", "x2", "bar-bar", "seven", "cherry", "o_o",
             "plum", "bell"]
#: Largest number of stop combinations of one reel set.
MAX_CYCLE = 1500


def _key(k) -> str:
    return json.dumps(str(k))


def _inline(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_inline(x)}" for k, x in v.items()) + " }"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_inline(x) for x in v) + "]"
    raise TypeError(v)


def to_toml(model: dict) -> str:
    """Model-file text of raw model data (tables of tables become ``[a.b]`` sections)."""
    out = []
    for sec, body in model.items():
        if sec in ("features", "modes"):
            for name, t in body.items():
                out.append(f"[{sec}.{_key(name)}]")
                out.extend(f"{_key(k)} = {_inline(v)}" for k, v in t.items())
                out.append("")
        else:
            out.append(f"[{sec}]")
            out.extend(f"{_key(k)} = {_inline(v)}" for k, v in body.items())
            out.append("")
    return "\n".join(out)


def _max_cells(strips, symbols, rows) -> int:
    """Most cells of ``symbols`` a window of these strips can show."""
    tot = 0
    for s in strips:
        L = len(s)
        tot += max(sum(1 for r in range(rows) if s[(i + r) % L] in symbols) for i in range(L))
    return tot


def _count_table(draw, hi: int, values, lo: int = 1) -> dict:
    """A non-empty ``{count: value}`` table over ``lo .. hi`` (string keys, as TOML parses them)."""
    ks = draw(st.lists(st.integers(lo, hi), min_size=1, max_size=3, unique=True))
    return {str(k): draw(values) for k in sorted(ks)}


@st.composite
def models(draw, cap: bool | None = None, feature: str | None = None, currency: bool = False):
    """Raw data of a small random model.

    Parameters
    ----------
    cap : bool or None
        True: always a ``[cap]``; False: never; None: drawn.
    currency : bool
        With ``cap``: the ``[cap]`` also draws a currency cap (``currency``,
        ``currency_name``, ``stakes``: integers, ``"p/q"`` strings and floats),
        with or without ``total_bet_multiple`` (docs: "A currency cap depends
        on the stake").
    feature : str or None
        Force the triggered feature kind (``"free_spins"``, ``"retrigger"``,
        ``"pick_bonus"``, ``"none"``); None: drawn.
    """
    reels = draw(st.integers(1, 5))
    rows = draw(st.integers(1, 3))
    names = iter(draw(st.permutations(NAME_POOL)))
    nreg = draw(st.integers(1, 4))
    regs = [next(names) for _ in range(nreg)]
    symbols: dict = {}
    for r in regs:
        symbols[r] = "regular" if draw(st.booleans()) else {"role": "regular"}
    wilds = []
    for _ in range(draw(st.integers(0, 2))):
        w = next(names)
        role = draw(st.sampled_from(["wild", "wild", "wild_scatter"]))
        spec: dict = {"role": role}
        m = draw(st.sampled_from([1, 1, 2, 3]))
        if m > 1 or draw(st.booleans()):
            spec["multiplier"] = m
        how = draw(st.sampled_from(["all", "all", "except", "substitutes"]))
        if how != "all":
            spec[how] = draw(st.lists(st.sampled_from(regs), min_size=how == "substitutes", max_size=nreg, unique=True))
        symbols[w] = spec
        wilds.append(w)
    scat = next(names) if draw(st.booleans()) else None
    if scat:
        symbols[scat] = "scatter"
    bonus = next(names) if draw(st.integers(0, 3)) == 0 else None
    if bonus:
        symbols[bonus] = "bonus"
    blank = next(names) if draw(st.booleans()) else None
    if blank:
        symbols[blank] = {"role": "blank"}
    allsyms = list(symbols)

    pay = st.integers(0, 40)
    paytable = {}
    for s in regs + [w for w in wilds if draw(st.booleans())]:
        if draw(st.integers(0, 5)) or s in wilds:
            paytable[s] = _count_table(draw, reels, pay)
    if not paytable:
        paytable[regs[0]] = {str(reels): 10}
    nlines = draw(st.integers(1, 4))
    lines = draw(st.lists(st.lists(st.integers(0, rows - 1), min_size=reels, max_size=reels),
                          min_size=1, max_size=nlines, unique_by=tuple))

    def strips(pool):
        lens = [draw(st.integers(rows, rows + 3)) for _ in range(reels)]
        while True:
            cyc = 1
            for n in lens:
                cyc *= n
            if cyc <= MAX_CYCLE:
                break
            i = lens.index(max(lens))
            lens[i] -= 1
        return [[draw(st.sampled_from(pool)) for _ in range(n)] for n in lens]

    base = strips(allsyms)
    model: dict = {"game": {"name": "random", "reels": reels, "rows": rows}}
    if draw(st.integers(0, 3)) == 0:
        model["game"]["total_bet"] = draw(st.integers(1, 12))
    model["symbols"] = symbols
    model["paytable"] = paytable
    model["paylines"] = {"lines": lines}
    reel_sets: dict = {"base": base}
    model["reels"] = reel_sets
    scatters = [s for s in allsyms if (scat == s) or (isinstance(symbols[s], dict)
                                                     and symbols[s].get("role") == "wild_scatter")]
    if scatters and draw(st.booleans()):
        sy = draw(st.lists(st.sampled_from(scatters), min_size=1, max_size=len(scatters), unique=True))
        values = st.one_of(st.integers(0, 10), st.sampled_from(["1/2", "3/4", "0.25", "5/3"]))
        model["scatter"] = {"symbols": sy, "pays": _count_table(draw, min(reels * rows, 4), values)}

    features: dict = {}
    kind = feature or draw(st.sampled_from(["free_spins", "retrigger", "pick_bonus", "none", "free_spins", "retrigger"]))
    fname = draw(st.sampled_from(["fs", "free-spins", "bonus_1"]))
    reach = 0
    tsyms: list = []
    if kind != "none":
        tsyms = draw(st.lists(st.sampled_from(scatters or allsyms), min_size=1, max_size=2, unique=True))
        reach = _max_cells(base, set(tsyms), rows)
        if reach == 0:  # put a trigger symbol on the first reel
            base[0][0] = tsyms[0]
            reach = _max_cells(base, set(tsyms), rows)
    rules: dict = {}
    prize_table = st.lists(st.tuples(st.integers(0, 30), st.integers(1, 4)).map(list), min_size=1, max_size=3)

    def pick_params():
        p = {"picks": _count_table(draw, 3, st.integers(0, 3)), "prizes": draw(prize_table)}
        if all(v == 0 for v in p["picks"].values()):
            p["picks"][next(iter(p["picks"]))] = 1
        if draw(st.booleans()):
            p["prizes_per_pick"] = _count_table(draw, 2, st.integers(1, 3))
        return p

    if kind in ("free_spins", "retrigger"):
        free_pool = [s for s in allsyms if s != bonus]
        free = strips(free_pool)
        reel_sets["free"] = free
        f: dict = {"kind": "free_spins", "reels": "free"}
        trig: dict = {"symbols": tsyms, "counts": _count_table(draw, reach, st.integers(1, 3))}
        if draw(st.integers(0, 3)) == 0:
            trig["requires"] = [draw(st.sampled_from(tsyms))]
        f["trigger"] = trig
        if kind == "retrigger":
            rsyms = draw(st.lists(st.sampled_from(free_pool), min_size=1, max_size=2, unique=True))
            rreach = _max_cells(free, set(rsyms), rows)
            if rreach:
                lo = max(1, rreach - 1)
                f["retrigger"] = {"symbols": rsyms, "counts": _count_table(draw, rreach, st.integers(1, 2), lo=lo)}
        if draw(st.booleans()):
            f["multiplier"] = draw(st.integers(1, 3))
        if draw(st.booleans()):
            f["scatter_pays"] = draw(st.booleans())
        paying = [s for s, row in paytable.items() if any(v > 0 for v in row.values())]
        if paying and draw(st.booleans()):
            ch = draw(st.lists(st.sampled_from(paying), min_size=1, max_size=3, unique=True))
            e: dict = {"choose_from": ch}
            if draw(st.booleans()):
                e["weights"] = [draw(st.integers(1, 4)) for _ in ch]
            f["expanding_symbol"] = e
            if draw(st.booleans()):
                rules["expanding_count"] = draw(st.sampled_from(["reels", "cells"]))
            if draw(st.booleans()):
                rules["expanding_line_win"] = draw(st.sampled_from(["paid", "wild_led_only"]))
        features[fname] = f
    elif kind == "pick_bonus":
        f = {"kind": "pick_bonus", "trigger": {"symbols": tsyms, "counts": _count_table(draw, reach, st.just(1))}}
        f.update(pick_params())
        features[fname] = f
    line_triggers = {}
    if bonus and draw(st.booleans()):
        lname = "buoy"
        features[lname] = {"kind": "pick_bonus", **pick_params()}
        line_triggers[bonus] = {str(draw(st.integers(1, reels))): lname}
    if features:
        model["features"] = features
    if line_triggers:
        model["line_triggers"] = line_triggers

    # bet modes
    if draw(st.integers(0, 2)):
        cost = st.one_of(st.integers(1, 3), st.sampled_from(["3/2", "0.5", "7/4"]))
        modes: dict = {"base": {"cost": draw(cost), "reels": "base"}}
        if draw(st.booleans()):
            reel_sets["alt"] = strips(allsyms)
            modes["alt"] = {"cost": draw(cost), "reels": "alt", "description": "second reel set"}
        buyable = [n for n in features if draw(st.booleans())]
        for n in buyable:
            b: dict = {"cost": draw(st.integers(5, 100)), "buys": n}
            if "trigger" in features[n]:
                ks = list(features[n]["trigger"]["counts"])
                b["buy_counts"] = {k: draw(st.integers(0, 3)) for k in ks}
                if not any(b["buy_counts"].values()):
                    b["buy_counts"][ks[0]] = 1
            modes[f"buy-{n}"] = b
        model["modes"] = modes
        # every trigger count must show on a regular mode's reel set (the loader checks it)
    if cap is None:
        cap = draw(st.integers(0, 3)) == 0
    if cap:
        c: dict = {}
        if not currency or draw(st.booleans()):
            c["total_bet_multiple"] = draw(st.one_of(st.integers(1, 30), st.sampled_from(["5/2", "0.75"])))
        if currency:
            c["currency"] = draw(st.one_of(st.integers(1, 60), st.sampled_from(["25/2", "7.5"]), st.just(12.5)))
            if draw(st.booleans()):
                c["currency_name"] = "GBP"
            if draw(st.integers(0, 4)):
                c["stakes"] = draw(st.lists(st.one_of(st.integers(1, 10), st.sampled_from(["1/2", "3/4"]),
                                                      st.just(0.2)), min_size=1, max_size=3))
        model["cap"] = c
    if draw(st.integers(0, 2)) == 0:
        rules["line_wild_pay"] = draw(st.sampled_from(["highest", "first_non_wild"]))
    if rules:
        model["rules"] = rules
    return model


def exact_fraction(x) -> Fraction:
    return Fraction(x)


#: Largest number of stop combinations of one reel set in :func:`key_models` (kept small: CI time).
KEY_MAX_CYCLE = 400


@st.composite
def key_models(draw, shape: str | None = None):
    """Raw data of a small random model drawing the pay keys and scopes of issue 22.

    ``[paylines] ways`` / ``pays_both_ways``, ``[groups]``, ``[combos]`` (with ``multiplied``),
    ``[anywhere_pays]`` (blanks in groups and combos), the line rules
    ``line_wild_multipliers``, ``all_wild_win_multiplied``,
    ``line_win_chosen_on``, ``anywhere_pay_wilds``, ``line_wild_pay``, bet
    modes with ``coins`` / ``coin_pays`` and fixed ``wild_reels``,
    ``symbols.X.expands``, pick bonuses with a ``board``, ``[cap] spin`` /
    ``feature`` / ``total_bet_multiple`` and ``max_spins``, with wilds
    (multipliers, ``except`` / ``substitutes``), scatters, free spins (engine
    wald: retrigger table, multiplier, scatter_pays, now and then an
    expanding symbol), pick bonuses (triggered, line-triggered, bought).
    Combinations the loader refuses are drawn too (less often): the test
    checks the refusal.

    Parameters
    ----------
    shape : {"ways", "lines", "both", "free"} or None
        Ways pays, one-way paylines, or paylines paying both ways; None: drawn
        among these three.  ``"free"``: paylines without classic pays, always
        free spins (engine wald), an ``expanding_symbol`` drawn at the start
        (with ``weights`` and the rules ``expanding_count`` /
        ``expanding_line_win``) in about a fifth of them, else now and then
        ``reel_wild_multipliers``, with ``max_spins``,
        expanding wilds and the spin / feature / round caps.
    """
    def rare(k: int) -> bool:
        # about once in k + 1 draws (hypothesis favours the ends of a range: a middle value is drawn)
        return draw(st.integers(1, k + 1)) == (k + 2) // 2

    shape = shape or draw(st.sampled_from(["ways", "lines", "lines", "both"]))
    reels = draw(st.integers(1, 4))
    rows = draw(st.integers(1, 3))
    names = iter(draw(st.permutations(NAME_POOL)))
    nreg = draw(st.integers(2, 4))
    regs = [next(names) for _ in range(nreg)]
    symbols: dict = {r: "regular" for r in regs}
    wilds = []
    for _ in range(draw(st.sampled_from([0, 1, 2, 1]))):
        w = next(names)
        spec: dict = {"role": draw(st.sampled_from(["wild", "wild", "wild_scatter"]))}
        m = draw(st.sampled_from([1, 2, 3, 2]))
        if m > 1 or draw(st.booleans()):
            spec["multiplier"] = m
        how = draw(st.sampled_from(["all", "all", "except", "substitutes"]))
        if how != "all":
            spec[how] = draw(st.lists(st.sampled_from(regs), min_size=how == "substitutes", max_size=nreg, unique=True))
        if rare(2 if shape == "lines" else 5 if shape == "free" else 15):
            spec["expands"] = True
        symbols[w] = spec
        wilds.append(w)
    scat = next(names) if draw(st.booleans()) else None
    if scat:
        symbols[scat] = "scatter"
    blanks = [next(names) for _ in range(draw(st.integers(0, 2)))]
    for b in blanks:
        symbols[b] = "blank" if draw(st.booleans()) else {"role": "blank"}
    bonus = next(names) if shape == "lines" and rare(3) else None
    if bonus:
        symbols[bonus] = "bonus"
    allsyms = list(symbols)
    scatters = [s for s in allsyms if s == scat or (isinstance(symbols[s], dict)
                                                    and symbols[s].get("role") == "wild_scatter")]

    pay = st.integers(0, 30)
    paytable: dict = {}
    for s in regs:
        if draw(st.integers(0, 4)):
            paytable[s] = _count_table(draw, reels, pay)
    for w in wilds:
        if rare(2 if shape != "ways" else 8):
            paytable[w] = _count_table(draw, reels, pay)
    model: dict = {"game": {"name": "random", "reels": reels, "rows": rows}}
    if shape == "ways" or rare(3):
        model["game"]["total_bet"] = draw(st.integers(1, 12))
    model["symbols"] = symbols

    classic = shape == "lines" or (shape != "free" and rare(9))  # else refused: rarely
    groups: dict = {}
    combos: dict = {}
    anywhere: dict = {}
    if classic and draw(st.booleans()):
        pool = regs + blanks
        for i in range(draw(st.integers(1, 2))):
            groups[f"any_{i}"] = draw(st.lists(st.sampled_from(pool), min_size=2, max_size=len(pool), unique=True))
        for g in groups:
            if draw(st.booleans()):
                paytable[g] = _count_table(draw, reels, pay)
    if classic and draw(st.booleans()):
        pool = regs + blanks + wilds + list(groups)
        for i in range(draw(st.integers(1, 2))):
            cells = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=reels))
            if all(c["cells"] != cells for c in combos.values()):
                combos[f"c{i}"] = {"cells": cells, "pay": draw(st.integers(0, 60))}
                if wilds and rare(2):
                    combos[f"c{i}"]["multiplied"] = draw(st.booleans())
    if classic and draw(st.booleans()):
        pool = regs + [g for g, m in groups.items() if all(x in regs for x in m)]
        for n in draw(st.lists(st.sampled_from(pool), min_size=1, max_size=2, unique=True)):
            anywhere[n] = _count_table(draw, reels, st.integers(0, 20))
    if not paytable and not combos and not anywhere:
        paytable[regs[0]] = {str(reels): 10}
    model["paytable"] = paytable
    if groups:
        model["groups"] = groups
    if combos:
        model["combos"] = combos
    if anywhere:
        model["anywhere_pays"] = anywhere
    if shape == "ways":
        model["paylines"] = {"ways": True}
    else:
        lines = draw(st.lists(st.lists(st.integers(0, rows - 1), min_size=reels, max_size=reels),
                              min_size=1, max_size=3, unique_by=tuple))
        model["paylines"] = {"lines": lines}
    if shape == "both" or (shape == "ways" and draw(st.booleans())):
        model["paylines"]["pays_both_ways"] = True
    elif rare(5):
        model["paylines"]["pays_both_ways"] = False

    def strips(pool):
        lens = [draw(st.integers(rows, rows + 3)) for _ in range(reels)]
        while math.prod(lens) > KEY_MAX_CYCLE:
            lens[lens.index(max(lens))] -= 1
        return [[draw(st.sampled_from(pool)) for _ in range(n)] for n in lens]

    base = strips(allsyms)
    reel_sets: dict = {"base": base}
    if scatters and draw(st.booleans()):
        sy = draw(st.lists(st.sampled_from(scatters), min_size=1, max_size=len(scatters), unique=True))
        values = st.one_of(st.integers(0, 6), st.sampled_from(["1/2", "3/4", "5/3"]))
        model["scatter"] = {"symbols": sy, "pays": _count_table(draw, min(reels * rows, 4), values)}
    model["reels"] = reel_sets

    # features: classic pays with free spins are refused, so free spins come rarely with them
    spin_kinds = ["free_spins", "retrigger", "max_spins"]
    if shape == "free":
        kinds_ = spin_kinds
    elif classic and (groups or combos or anywhere):
        kinds_ = ["none", "none", "pick", "board", "none", "pick"] + (spin_kinds if rare(5) else [])
    else:
        kinds_ = ["none", "pick", "board"] + spin_kinds * 2
    kind = draw(st.sampled_from(kinds_))
    features: dict = {}
    fname = draw(st.sampled_from(["fs", "free-spins", "bonus_1"]))
    if kind != "none":
        tsyms = draw(st.lists(st.sampled_from(scatters or allsyms), min_size=1, max_size=2, unique=True))
        reach = _max_cells(base, set(tsyms), rows)
        if reach == 0:
            base[0][0] = tsyms[0]
            reach = _max_cells(base, set(tsyms), rows)

    def pick_params(board: bool):
        if board:
            b = {"collect": draw(st.integers(1, 2)),
                 "prizes": draw(st.lists(st.tuples(st.integers(0, 20), st.integers(1, 2)).map(list),
                                         min_size=1, max_size=3))}
            if draw(st.booleans()):
                b["multipliers"] = draw(st.lists(st.tuples(st.integers(2, 4), st.integers(1, 2)).map(list),
                                                 min_size=1, max_size=2))
            return {"board": b}
        p = {"picks": _count_table(draw, 2, st.integers(0, 3)),
             "prizes": draw(st.lists(st.tuples(st.integers(0, 30), st.integers(1, 4)).map(list), min_size=1,
                                     max_size=3))}
        if all(v == 0 for v in p["picks"].values()):
            p["picks"][next(iter(p["picks"]))] = 1
        return p

    exp_rules: dict = {}
    if kind in spin_kinds:
        free_pool = [s for s in allsyms if s != bonus]
        free = strips(free_pool)
        reel_sets["free"] = free
        f: dict = {"kind": "free_spins", "reels": "free",
                   "trigger": {"symbols": tsyms, "counts": _count_table(draw, reach, st.integers(1, 3))}}
        if kind in ("retrigger", "max_spins") and draw(st.integers(0, 3)):
            rsyms = draw(st.lists(st.sampled_from(free_pool), min_size=1, max_size=2, unique=True))
            rreach = _max_cells(free, set(rsyms), rows)
            if rreach:
                lo = max(1, rreach - 1)
                f["retrigger"] = {"symbols": rsyms, "counts": _count_table(draw, rreach, st.integers(1, 2), lo=lo)}
        if kind == "max_spins":
            f["max_spins"] = draw(st.integers(1, 4))
        if draw(st.booleans()):
            f["multiplier"] = draw(st.integers(1, 3))
        if draw(st.booleans()):
            f["scatter_pays"] = draw(st.booleans())
        paying = [s for s in regs if s in paytable and any(v > 0 for v in paytable[s].values())]
        if paying and (draw(st.booleans()) if shape == "free" else rare(7)):
            ch = draw(st.lists(st.sampled_from(paying), min_size=1, max_size=2, unique=True))
            f["expanding_symbol"] = {"choose_from": ch}
            if draw(st.booleans()):
                f["expanding_symbol"]["weights"] = [draw(st.integers(1, 3)) for _ in ch]
            if draw(st.booleans()):
                exp_rules["expanding_count"] = draw(st.sampled_from(["reels", "cells"]))
            if draw(st.booleans()):
                exp_rules["expanding_line_win"] = draw(st.sampled_from(["paid", "wild_led_only"]))
        plain = [w for w in wilds if symbols[w]["role"] == "wild" and any(w in strip for strip in free)]
        if (shape == "free" and plain and "expanding_symbol" not in f and draw(st.integers(0, 2)) > 0
                and not any(isinstance(v, dict) and v.get("expands") for v in symbols.values())):
            w = draw(st.sampled_from(plain))
            shown = [i + 1 for i, strip in enumerate(free) if w in strip]
            rs = draw(st.lists(st.sampled_from(shown), min_size=1, max_size=2, unique=True))
            tabs = {}
            for r in sorted(rs):
                t = _count_table(draw, 4, st.integers(0, 2))
                if not any(t.values()):
                    t[next(iter(t))] = 1
                tabs[str(r)] = t
            f["reel_wild_multipliers"] = {"wild": w, "reels": tabs}
        features[fname] = f
    elif kind in ("pick", "board"):
        features[fname] = {"kind": "pick_bonus",
                           "trigger": {"symbols": tsyms, "counts": _count_table(draw, reach, st.just(1))},
                           **pick_params(kind == "board")}
    line_triggers = {}
    if bonus and draw(st.booleans()):
        features["buoy"] = {"kind": "pick_bonus", **pick_params(draw(st.booleans()))}
        line_triggers[bonus] = {str(draw(st.integers(1, reels))): "buoy"}
    if features:
        model["features"] = features
    if line_triggers:
        model["line_triggers"] = line_triggers

    modes: dict = {}
    if (draw(st.booleans()) if not features else rare(8)):
        coins = draw(st.integers(2, 3))
        modes["base"] = {"cost": 1, "reels": "base"}
        m: dict = {"cost": coins, "reels": "base", "coins": coins}
        paths = [f"paytable.{s}.{k}" for s, t in paytable.items() for k in t]
        paths += [f"combos.{c}" for c in combos] + [f"anywhere_pays.{n}.{k}" for n, t in anywhere.items() for k in t]
        if paths and not rare(3):
            m["coin_pays"] = {p: draw(st.integers(0, 200)) for p in
                              draw(st.lists(st.sampled_from(paths), min_size=1, max_size=2, unique=True))}
        modes["coins"] = m
    plain_wilds = [w for w in wilds if symbols[w]["role"] == "wild"]
    if plain_wilds and rare(2 if shape == "lines" else 10):
        modes.setdefault("base", {"cost": 1, "reels": "base"})
        rs = draw(st.lists(st.integers(1, reels), min_size=1, max_size=reels, unique=True))
        modes["wild"] = {"cost": draw(st.sampled_from([1, 2, "3/2"])), "reels": "base",
                         "wild_reels": {"reels": rs, "wild": draw(st.sampled_from(plain_wilds))}}
    buyable = [n for n in features if rare(3)]
    for n in buyable:
        modes.setdefault("base", {"cost": 1, "reels": "base"})
        b = {"cost": draw(st.integers(5, 50)), "buys": n}
        if "trigger" in features[n]:
            ks = list(features[n]["trigger"]["counts"])
            b["buy_counts"] = {k: draw(st.integers(0, 2)) for k in ks}
            if not any(b["buy_counts"].values()):
                b["buy_counts"][ks[0]] = 1
        modes[f"buy-{n}"] = b
    if modes:
        model["modes"] = modes

    cap: dict = {}
    capval = st.one_of(st.integers(1, 12), st.sampled_from(["5/2", "3/4", "1/3"]))
    for k in ("total_bet_multiple", "spin", "feature"):
        if rare(3):
            cap[k] = draw(capval)
    if cap:
        model["cap"] = cap

    rules: dict = dict(exp_rules)
    if classic or rare(9):
        for r, vals in (("line_wild_multipliers", ["multiply", "add", "highest_once"]),
                        ("all_wild_win_multiplied", [True, False]),
                        ("line_win_chosen_on", ["final_pay", "base_pay"]),
                        ("anywhere_pay_wilds", ["counted", "not_counted"])):
            if not rare(2) if wilds else rare(2):
                rules[r] = draw(st.sampled_from(vals))
    if rare(5 if shape == "lines" else 15):
        rules["line_wild_pay"] = draw(st.sampled_from(["highest", "first_non_wild"]))
    if rules:
        model["rules"] = rules
    return model


#: Largest number of stop combinations of one reel set in :func:`revealed_models`.
REVEALED_MAX_CYCLE = 250


@st.composite
def revealed_models(draw):
    """Raw data of a small random game whose free spins are engine ``revealed_wild_reels``.

    3-4 reels, 1-2 rows, 1-3 paylines, 2-3 regular symbols (renamed), an
    optional blank, a Book (``wild_scatter``, default substitution, no line
    pays) that triggers the feature, reveals wild reels with multipliers
    drawn from ``wild_reels.multipliers`` and may be a scatter paying whole
    line bets; ``expanding_symbol`` drawn at the start (``weights``), an
    optional retrigger table (rule ``revealed_retrigger_count``), rules
    ``wild_reels_expansion`` and ``published_max_win``, a feature buy with a
    count law, and a ``[cap] total_bet_multiple`` now and then.
    """
    reels = draw(st.integers(3, 4))
    rows = draw(st.integers(1, 2))
    names = iter(draw(st.permutations(NAME_POOL)))
    regs = [next(names) for _ in range(draw(st.integers(2, 3)))]
    book = next(names)
    symbols: dict = {r: "regular" for r in regs}
    symbols[book] = {"role": "wild_scatter"}
    blank = next(names) if draw(st.booleans()) else None
    if blank:
        symbols[blank] = "blank"
    pool = list(symbols)
    paytable = {r: _count_table(draw, reels, st.integers(0, 20), lo=2) for r in regs}
    paying = [r for r in regs if any(v > 0 for v in paytable[r].values())]
    if not paying:
        paytable[regs[0]][str(reels)] = 10
        paying = [regs[0]]
    lines = draw(st.lists(st.lists(st.integers(0, rows - 1), min_size=reels, max_size=reels),
                          min_size=1, max_size=3, unique_by=tuple))

    def strips(cap: int):
        lens = [draw(st.integers(rows, rows + 3)) for _ in range(reels)]
        while math.prod(lens) > cap:
            lens[lens.index(max(lens))] -= 1
        return [[draw(st.sampled_from(pool)) for _ in range(n)] for n in lens]

    base, free = strips(REVEALED_MAX_CYCLE), strips(REVEALED_MAX_CYCLE // 2)
    for s in (base, free):
        s[draw(st.integers(0, reels - 1))][0] = book  # the Book shows on both reel sets
    reach = _max_cells(base, {book}, rows)
    model: dict = {"game": {"name": "random", "reels": reels, "rows": rows}, "symbols": symbols,
                   "paytable": paytable, "paylines": {"lines": lines}, "reels": {"base": base, "free": free}}
    if draw(st.booleans()):
        model["game"]["total_bet"] = draw(st.integers(1, 5))
    if draw(st.booleans()):
        model["scatter"] = {"symbols": [book], "pays": _count_table(draw, min(reach, 3), st.integers(0, 3))}
    ch = draw(st.lists(st.sampled_from(paying), min_size=1, max_size=2, unique=True))
    f: dict = {"kind": "free_spins", "reels": "free",
               "trigger": {"symbols": [book], "counts": _count_table(draw, reach, st.integers(1, 3))},
               "wild_reels": {"revealed_by": book,
                              "multipliers": _count_table(draw, 4, st.integers(1, 3))},
               "expanding_symbol": {"draw": "at_start", "choose_from": ch}}
    if draw(st.booleans()):
        f["expanding_symbol"]["weights"] = [draw(st.integers(1, 3)) for _ in ch]
    rules: dict = {}
    rreach = _max_cells(free, {book}, rows)
    if rreach and draw(st.integers(0, 2)) == 1:
        f["retrigger"] = {"symbols": [book], "counts": _count_table(draw, rreach, st.integers(1, 2),
                                                                     lo=max(1, rreach - 1))}
        if draw(st.booleans()):
            rules["revealed_retrigger_count"] = draw(st.sampled_from(["landed", "reels"]))
    model["features"] = {"fs": f}
    if draw(st.booleans()):
        model["modes"] = _base_and_buy(draw, f)
    if draw(st.booleans()):
        rules["wild_reels_expansion"] = draw(st.sampled_from(["pays", "needs_symbol"]))
    if draw(st.integers(0, 2)) == 1:
        model["cap"] = {"total_bet_multiple": draw(st.one_of(st.integers(1, 30), st.sampled_from(["5/2", "15/4"])))}
        if draw(st.booleans()):
            rules["published_max_win"] = draw(st.sampled_from(["cap", "theoretical"]))
    if rules:
        model["rules"] = rules
    return model


@st.composite
def gift_models(draw):
    """Raw data of a small random game whose free spins are engine ``gift_pick``.

    3 reels, 1-2 rows, 1-2 paylines, 2-3 regular symbols (renamed), a plain
    wild, a scatter triggering the feature (no scatter pays: refused with
    this engine), a fixed spin count, an optional starting ``multiplier``
    and gifts of every fixed effect (``spins``, ``multiplier``,
    ``wild_reel``, ``wild_symbol``, ``expanding_symbol`` with a named
    symbol or ``"drawn"`` from the feature's ``expanding_symbol``), at least
    as many as the most trigger symbols a window shows;
    a feature buy with a count law and a ``[cap] total_bet_multiple`` now
    and then.
    """
    reels, rows = 3, draw(st.integers(1, 2))
    names = iter(draw(st.permutations(NAME_POOL)))
    regs = [next(names) for _ in range(draw(st.integers(2, 3)))]
    wild, scat = next(names), next(names)
    symbols: dict = {r: "regular" for r in regs}
    symbols[wild] = "wild"
    symbols[scat] = "scatter"
    pool = list(symbols)
    paytable = {r: _count_table(draw, reels, st.integers(0, 20), lo=2) for r in regs}
    paying = [r for r in regs if any(v > 0 for v in paytable[r].values())]
    if not paying:
        paytable[regs[0]]["3"] = 10
        paying = [regs[0]]
    lines = draw(st.lists(st.lists(st.integers(0, rows - 1), min_size=reels, max_size=reels),
                          min_size=1, max_size=2, unique_by=tuple))

    def strips(cap: int, pool):
        lens = [draw(st.integers(rows, rows + 3)) for _ in range(reels)]
        while math.prod(lens) > cap:
            lens[lens.index(max(lens))] -= 1
        return [[draw(st.sampled_from(pool)) for _ in range(n)] for n in lens]

    base = strips(150, pool)
    base[draw(st.integers(0, reels - 1))][0] = scat
    free = strips(60, [s for s in pool if s != scat])
    reach = _max_cells(base, {scat}, rows)
    gifts = [{"effect": "spins", "value": draw(st.integers(1, 2)), "count": draw(st.integers(1, 3))}]
    if draw(st.booleans()):
        gifts.append({"effect": "multiplier", "value": draw(st.integers(1, 2)), "count": draw(st.integers(1, 2))})
    for r in draw(st.lists(st.integers(1, reels), max_size=2, unique=True)):
        gifts.append({"effect": "wild_reel", "value": r, "count": 1})
    if draw(st.booleans()):
        gifts.append({"effect": "wild_symbol", "value": draw(st.sampled_from(regs)), "count": 1})
    drawn = None
    if draw(st.booleans()):
        if draw(st.booleans()):
            gifts.append({"effect": "expanding_symbol", "value": draw(st.sampled_from(paying)), "count": 1})
        else:  # one symbol drawn by weight from the feature's expanding_symbol when the gift is opened
            gifts.append({"effect": "expanding_symbol", "value": "drawn", "count": 1})
            ch = draw(st.lists(st.sampled_from(paying), min_size=1, max_size=2, unique=True))
            drawn = {"draw": "at_start", "choose_from": ch}
            if draw(st.booleans()):
                drawn["weights"] = [draw(st.integers(1, 3)) for _ in ch]
    while sum(g["count"] for g in gifts) < reach:
        gifts[0]["count"] += 1
    gifts = draw(st.permutations(gifts))
    f: dict = {"kind": "free_spins", "reels": "free",
               "trigger": {"symbols": [scat], "counts": _count_table(draw, reach, st.integers(1, 2))},
               "gift_pick": {"wild": wild, "gifts": list(gifts)}}
    if drawn:
        f["expanding_symbol"] = drawn
    if draw(st.booleans()):
        f["multiplier"] = draw(st.integers(1, 2))
    model: dict = {"game": {"name": "random", "reels": reels, "rows": rows}, "symbols": symbols,
                   "paytable": paytable, "paylines": {"lines": lines}, "reels": {"base": base, "free": free},
                   "features": {"fs": f}}
    if draw(st.booleans()):
        model["game"]["total_bet"] = draw(st.integers(1, 4))
    if draw(st.booleans()):
        model["modes"] = _base_and_buy(draw, f)
    if draw(st.integers(0, 2)) == 1:
        model["cap"] = {"total_bet_multiple": draw(st.one_of(st.integers(1, 40), st.sampled_from(["5/2", "15/4"])))}
    return model


def _base_and_buy(draw, f) -> dict:
    """Modes ``base`` and ``buy`` (feature ``fs`` bought at 5-40 bets, a count law over its trigger
    counts, at least one weight above 0)."""
    counts = list(f["trigger"]["counts"])
    bc = {k: draw(st.integers(0, 2)) for k in counts}
    if not any(bc.values()):
        bc[counts[0]] = 1
    return {"base": {"cost": 1, "reels": "base"},
            "buy": {"cost": draw(st.integers(5, 40)), "buys": "fs", "buy_counts": bc}}
