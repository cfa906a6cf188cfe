"""Classic line pays and wild-multiplier conventions: walk == brute force == simulator.

Issue 22 items 3 and 4.  Random small games (hypothesis, written as model
files and read by the loader) mix regular symbols, blanks, wilds with and
without multipliers and restricted substitution, scatters, symbol groups
with pays, ordered combos (multiplied by their wilds or not), anywhere pays and every value of the rules
``line_wild_multipliers``, ``all_wild_win_multiplied``,
``line_win_chosen_on`` and ``anywhere_pay_wilds``.  Three evaluations must
agree integer for integer: the exact line walk (:func:`walk`), the
brute-force oracle (:func:`brute_force`, its own reading of the rules) and
the simulator's batch and scalar evaluators (their own code again).

Hand-counted lines pin each mechanic's rule text (one line, worked by hand
in the comment).
"""

from __future__ import annotations

import os

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analytic.engine.brute import brute_force, line_win, window_line_wins
from analytic.engine.linewalk import walk
from analytic.engine.spin import CounterDef, build_spin
from analytic.errors import ModelError
from analytic.model.loader import load_model_text
from analytic.simulator.evaluate import compile_tables, evaluate_window, evaluate_windows

#: hypothesis examples: fewer in CI (the suite's 15-minute budget), all with ANALYTIC_SLOW=1
_SLOW = os.environ.get("ANALYTIC_SLOW") == "1"


def _toml(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, int):
        return str(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f'"{k}" = {_toml(x)}' for k, x in v.items()) + " }"
    return "[" + ", ".join(_toml(x) for x in v) + "]"


def model_text(m: dict) -> str:
    out = []
    for sec, body in m.items():
        if sec in ("combos",):
            for name, t in body.items():
                out.append(f'[{sec}."{name}"]')
                out += [f'"{k}" = {_toml(v)}' for k, v in t.items()]
        else:
            out.append(f"[{sec}]")
            out += [f'"{k}" = {_toml(v)}' for k, v in body.items()]
    return "\n".join(out) + "\n"


@st.composite
def classic_games(draw, flat_focus: bool = False):
    """A random small classic game; ``flat_focus``: with a multiplier wild and an unmultiplied combo led by it."""
    reels = draw(st.integers(2, 3))
    rows = draw(st.integers(1, 2))
    nreg = draw(st.integers(2, 4))
    regs = [f"r{i}" for i in range(nreg)]
    pay = st.integers(0, 40)
    symbols = {r: "regular" for r in regs}
    symbols["b0"] = "blank"
    paytable = {}
    for r in regs:
        row = {str(n): draw(pay) for n in range(1, reels + 1) if draw(st.booleans())}
        if row:
            paytable[r] = row
    rules = {
        "line_wild_multipliers": draw(st.sampled_from(["multiply", "add", "highest_once"])),
        "all_wild_win_multiplied": draw(st.booleans()),
        "line_win_chosen_on": draw(st.sampled_from(["final_pay", "base_pay"])),
        "anywhere_pay_wilds": draw(st.sampled_from(["counted", "not_counted"])),
    }
    wilds = []
    for i in range(draw(st.integers(1 if flat_focus else 0, 2))):
        name = f"w{i}"
        spec = {"role": draw(st.sampled_from(["wild", "wild", "wild_scatter"]))}
        if draw(st.booleans()):
            spec["substitutes"] = draw(st.lists(st.sampled_from(regs), min_size=1, max_size=nreg, unique=True))
        m = draw(st.sampled_from([2, 3] if flat_focus and i == 0 else [1, 2, 3]))
        if m > 1:
            spec["multiplier"] = m
        symbols[name] = spec
        wilds.append(name)
        if draw(st.booleans()):
            paytable[name] = {str(n): draw(pay) for n in range(1, reels + 1)}
    scat = draw(st.booleans())
    if scat:
        symbols["s0"] = "scatter"
    members = regs + ["b0"]
    groups = {}
    for i in range(draw(st.integers(0, 2))):
        groups[f"g{i}"] = draw(st.lists(st.sampled_from(members), min_size=2, max_size=3, unique=True))
        if draw(st.booleans()):
            paytable[f"g{i}"] = {str(n): draw(pay) for n in range(1, reels + 1) if draw(st.booleans())} or {"1": 1}
    entries = members + wilds + list(groups)
    combos = {}
    for i in range(draw(st.integers(0, 2))):
        cells = draw(st.lists(st.sampled_from(entries), min_size=1, max_size=reels))
        if tuple(cells) not in {tuple(c["cells"]) for c in combos.values()}:
            combos[f"c{i}"] = {"cells": cells, "pay": draw(st.integers(0, 60))}
            if draw(st.booleans()):
                combos[f"c{i}"]["multiplied"] = False  # paid as written, whatever the wilds
    if flat_focus:
        cells = ["w0"] + draw(st.lists(st.sampled_from(entries), min_size=0, max_size=reels - 1))
        if tuple(cells) not in {tuple(c["cells"]) for c in combos.values()}:
            combos["flat"] = {"cells": cells, "pay": draw(st.integers(1, 60)), "multiplied": False}
    anywhere = {}
    for a in draw(st.lists(st.sampled_from(regs + list(groups)), max_size=2, unique=True)):
        if a in groups and "b0" in groups[a]:
            continue
        anywhere[a] = {str(n): draw(pay) for n in range(1, reels + 1)}
    alphabet = list(symbols)
    strips = [draw(st.lists(st.sampled_from(alphabet), min_size=rows, max_size=5)) for _ in range(reels)]
    all_lines = [list(p) for p in itertools.product(range(rows), repeat=reels)]
    lines = draw(st.lists(st.sampled_from(all_lines), min_size=1, max_size=3, unique_by=tuple))
    m = {"game": {"name": "t", "reels": reels, "rows": rows}, "symbols": symbols}
    if groups:
        m["groups"] = groups
    m["paytable"] = paytable
    if combos:
        m["combos"] = combos
    if anywhere:
        m["anywhere_pays"] = anywhere
    if scat:
        m["scatter"] = {"symbols": ["s0"], "pays": {"2": 1}}
    m["paylines"] = {"lines": lines}
    m["reels"] = {"base": strips}
    m["rules"] = rules
    return load_model_text(model_text(m))


_SETTINGS = settings(max_examples=100 if _SLOW else 40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.filterwarnings("ignore::analytic.errors.ModelWarning")
@_SETTINGS
@given(classic_games())
def test_walk_equals_brute_force(game):
    counters = [CounterDef("scatters", frozenset({"s0"}))] if "s0" in game.symbol_names else []
    assert walk(build_spin(game, "base", counters)).table == brute_force(game, "base", counters)


@pytest.mark.filterwarnings("ignore::analytic.errors.ModelWarning")
@_SETTINGS
@given(classic_games(flat_focus=True))
def test_unmultiplied_combos_walk_equals_brute_force(game):
    """Combos with ``multiplied = false`` led by a multiplier wild: walk == brute force."""
    assert walk(build_spin(game, "base", [])).table == brute_force(game, "base", [])


@pytest.mark.filterwarnings("ignore::analytic.errors.ModelWarning")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.booleans().flatmap(lambda focus: classic_games(flat_focus=focus)))
def test_simulator_evaluators_equal_brute_force(game):
    tables = compile_tables(game)
    strips = game.reel_sets["base"]
    windows, expect = [], []
    for stops in itertools.product(*[range(len(s)) for s in strips]):
        w = [[s[(st_ + r) % len(s)] for r in range(game.rows)] for s, st_ in zip(strips, stops)]
        windows.append([[game.symbol_names.index(c) for c in col] for col in w])
        lw = window_line_wins(game, w)[0]
        expect.append(lw)
        assert evaluate_window(game, w).line_win == lw
    got = evaluate_windows(tables, np.array(windows, dtype=np.int16)).line_win
    assert [int(x) for x in got] == [e * tables.denom for e in expect]


# ---------------------------------------------------------------------------
# hand-counted lines

BASE = """
[game]
name = "hand"
reels = 3
rows = 1

[symbols]
bar1 = "regular"
bar2 = "regular"
bar3 = "regular"
seven = "regular"
cherry = "regular"
blank = "blank"
W = { role = "wild", multiplier = 2 }
V = { role = "wild", multiplier = 3 }

[groups]
any_bar = ["bar1", "bar2", "bar3"]

[paytable]
bar1 = { 3 = 10 }
bar2 = { 3 = 20 }
bar3 = { 3 = 40 }
seven = { 3 = 100 }
any_bar = { 3 = 5 }
W = { 3 = 1000 }

[combos]
seven_bar_seven = { cells = ["seven", "any_bar", "seven"], pay = 60 }
three_blanks = { cells = ["blank", "blank", "blank"], pay = 1 }

[anywhere_pays]
cherry = { 1 = 2, 2 = 5, 3 = 10 }

[paylines]
lines = [[0, 0, 0]]

[reels]
base = [["bar1", "W"], ["bar2", "V"], ["bar3", "seven"]]
"""


def _game(**rules):
    text = BASE + "\n[rules]\n" + "".join(f"{k} = {_toml(v)}\n" for k, v in rules.items())
    return load_model_text(text)


@pytest.mark.parametrize("cells, rules, pay", [
    # any bar: a mix of bars is 3 of any_bar (5); three bar3 pay bar3's 40, the highest
    (["bar1", "bar2", "bar3"], {}, 5),
    (["bar3", "bar3", "bar3"], {}, 40),
    # a wild counts as any bar: bar1 W bar3 = any_bar x2 = 10 (bar1 x2 runs only 2)
    (["bar1", "W", "bar3"], {}, 10),
    # ordered combo: seven, any bar, seven pays 60; with a wild (x2) standing for the bar: 120
    (["seven", "bar2", "seven"], {}, 60),
    (["seven", "W", "seven"], {}, 200),  # but three sevens (100 x2) pay more: highest win
    (["blank", "blank", "blank"], {}, 1),  # blanks as a named symbol of a combo
    # cherries anywhere: 1 cherry pays 2 wherever it is, 2 pay 5; wilds counted by default
    (["blank", "blank", "cherry"], {}, 2),
    (["cherry", "bar1", "cherry"], {}, 5),
    (["cherry", "W", "cherry"], {}, 10),  # an anywhere pay takes no multiplier
    (["cherry", "W", "cherry"], {"anywhere_pay_wilds": "not_counted"}, 5),
    # multipliers: W (x2) and V (x3) in one run of bar3 (40): multiply 240, add 200, once 120
    (["W", "V", "bar3"], {}, 240),
    (["W", "V", "bar3"], {"line_wild_multipliers": "add"}, 200),
    (["W", "V", "bar3"], {"line_wild_multipliers": "highest_once"}, 120),
    # all wilds: W W W pays its own 1000 x 2 x 2 x 2 = 8000, or unmultiplied 1000
    (["W", "W", "W"], {}, 8000),
    (["W", "W", "W"], {"all_wild_win_multiplied": False}, 1000),
    # chosen on the base pay: W bar1 bar1 = bar1 x2 (10 x 2 = 20) beats any_bar (5 x 2);
    # bar2 W bar1: any_bar 5 x2 = 10 on either choice
    (["bar1", "W", "bar1"], {"line_win_chosen_on": "base_pay"}, 20),
    # final vs base: seven V seven = sevens 100 x3 = 300 (also the highest base pay)
    (["seven", "V", "seven"], {"line_win_chosen_on": "base_pay"}, 300),
])
def test_hand_counted_line(cells, rules, pay):
    game = _game(**rules)
    assert line_win(game, cells)[0] == pay
    assert evaluate_window(game, [[c] for c in cells]).line_win == pay
    t = compile_tables(game)
    w = np.array([[[game.symbol_names.index(c)] for c in cells]], dtype=np.int16)
    assert int(evaluate_windows(t, w).line_win[0]) == pay * t.denom
    # the walk on one-stop strips showing exactly these cells
    one = _game(**rules)
    spin = build_spin(one, windows=[{(c,): 1} for c in cells])
    assert walk(spin).table == {(0, pay): 1}


def test_base_pay_choice_differs_from_final():
    # cherry pays 30 for 2 from the left; anywhere: 2 cherries (wilds counted) pay 40, unmultiplied.
    # Line V V blank: cherry's run is 2 (V, V stand for it): 30 x 3 x 3 = 270; anywhere count 2: 40.
    # Chosen on the final pay: 270.  Chosen on the base pay: 40 > 30, so the anywhere win, 40.
    text = BASE.replace('W = { 3 = 1000 }', 'W = { 3 = 1000 }\ncherry = { 2 = 30 }').replace(
        "cherry = { 1 = 2, 2 = 5, 3 = 10 }", "cherry = { 1 = 2, 2 = 40, 3 = 50 }")
    f = load_model_text(text)
    g = load_model_text(text + '\n[rules]\nline_win_chosen_on = "base_pay"\n')
    cells = ["V", "V", "blank"]
    for game, pay in ((f, 270), (g, 40)):
        assert line_win(game, cells)[0] == pay
        assert evaluate_window(game, [[c] for c in cells]).line_win == pay
        t = compile_tables(game)
        w = np.array([[[game.symbol_names.index(c)] for c in cells]], dtype=np.int16)
        assert int(evaluate_windows(t, w).line_win[0]) == pay * t.denom
        spin = build_spin(game, windows=[{(c,): 1} for c in cells])
        assert walk(spin).table == {(0, pay): 1}


# ---------------------------------------------------------------------------
# refused at load

FS_GAME = """
[game]
name = "fs"
reels = 3
rows = 1

[symbols]
A = "regular"
B = "regular"
W = { role = "wild", multiplier = 2 }
S = "scatter"

[paytable]
A = { 3 = 10 }

[paylines]
lines = [[0, 0, 0]]

[reels]
base = [["A", "S", "W"], ["A", "S", "B"], ["A", "S", "W"]]

[features.fs]
reels = "base"
trigger = { symbols = ["S"], counts = { 2 = 5 } }
"""


@pytest.mark.parametrize("extra, key", [
    ('[rules]\nline_wild_multipliers = "add"\n', "rules.line_wild_multipliers"),
    ('[rules]\nall_wild_win_multiplied = false\n', "rules.all_wild_win_multiplied"),
    ('[rules]\nline_win_chosen_on = "base_pay"\n', "rules.line_win_chosen_on"),
    ('[groups]\nab = ["A", "B"]\n', "groups"),
    ('[combos.ab]\ncells = ["A", "B"]\npay = 3\n', "combos"),
    ('[anywhere_pays]\nB = { 1 = 1 }\n', "anywhere_pays"),
])
def test_refused_with_free_spins(extra, key):
    with pytest.raises(ModelError, match=rf"<string>: {key}: not solved with free spins \(features.fs\)"):
        load_model_text(FS_GAME + extra)


def test_default_rules_accepted_with_free_spins():
    load_model_text(FS_GAME + '[rules]\nline_wild_multipliers = "multiply"\n')


def test_first_non_wild_refused_with_classic_pays():
    with pytest.raises(ModelError, match=r"rules.line_wild_pay: 'first_non_wild' is not solved together with \[groups\]"):
        _game(line_wild_pay="first_non_wild")


@pytest.mark.parametrize("body, key", [
    ('[groups]\nany_bar = ["bar1"]\n', "groups.any_bar: a group needs at least two"),
    ('[groups]\nany_bar = ["bar1", "W"]\n', r"groups.any_bar\[1\]: symbol 'W' has role 'wild'"),
    ('[groups]\nbar1 = ["bar1", "bar2"]\n', "groups.bar1: 'bar1' is already a symbol"),
])
def test_group_declarations_refused(body, key):
    text = BASE.replace('[groups]\nany_bar = ["bar1", "bar2", "bar3"]\n', body)
    with pytest.raises(ModelError, match=key):
        load_model_text(text)


def _flat_game(**rules):
    text = BASE.replace('three_blanks = { cells = ["blank", "blank", "blank"], pay = 1 }\n',
                        'three_blanks = { cells = ["blank", "blank", "blank"], pay = 1 }\n'
                        'three_w = { cells = ["W", "W", "W"], pay = 5000, multiplied = false }\n'
                        'w_v_bar3 = { cells = ["W", "V", "bar3"], pay = 200, multiplied = false }\n')
    return load_model_text(text + "\n[rules]\n" + "".join(f"{k} = {_toml(v)}\n" for k, v in rules.items()))


@pytest.mark.parametrize("cells, rules, pay", [
    # W W W: W's own 1000 x 2 x 2 x 2 = 8000 beats the flat combo's 5000
    (["W", "W", "W"], {}, 8000),
    # all-wild wins unmultiplied: W's own pay is 1000, the flat combo's 5000 is paid
    (["W", "W", "W"], {"all_wild_win_multiplied": False}, 5000),
    # W V bar3: bar3 40 x 2 x 3 = 240 beats the flat combo's 200
    (["W", "V", "bar3"], {}, 240),
    # applied once: bar3 40 x 3 = 120 < 200, the combo is paid as written (not 200 x 3)
    (["W", "V", "bar3"], {"line_wild_multipliers": "highest_once"}, 200),
    # chosen on the paytable pay: the combo's 200 is the highest, and paid as written
    (["W", "V", "bar3"], {"line_win_chosen_on": "base_pay"}, 200),
])
def test_unmultiplied_combo_by_hand(cells, rules, pay):
    g = _flat_game(**rules)
    assert line_win(g, cells)[0] == pay
    assert evaluate_window(g, [[c] for c in cells]).line_win == pay
    t = compile_tables(g)
    w = np.array([[[g.symbol_names.index(c)] for c in cells]], dtype=np.int16)
    assert int(evaluate_windows(t, w).line_win[0]) == pay * t.denom


def test_unmultiplied_combo_walk_equals_brute_force():
    for rules in ({}, {"all_wild_win_multiplied": False}, {"line_wild_multipliers": "highest_once"},
                  {"line_win_chosen_on": "base_pay"}):
        g = _flat_game(**rules)
        assert walk(build_spin(g, "base", [])).table == brute_force(g, "base", [])


def test_combo_declarations_refused():
    with pytest.raises(ModelError, match=r"combos.x.multiplied: must be true or false"):
        load_model_text(BASE + '[combos.x]\ncells = ["seven", "seven"]\npay = 1\nmultiplied = "no"\n')
    with pytest.raises(ModelError, match=r"combos.x.cells\[1\]: unknown symbol or group 'nope'"):
        load_model_text(BASE + '[combos.x]\ncells = ["seven", "nope"]\npay = 1\n')
    with pytest.raises(ModelError, match=r"combos.x.cells: has 4 entries"):
        load_model_text(BASE.replace("[combos]\n", '[combos]\nx = { cells = ["seven", "seven", "seven", "seven"], pay = 1 }\n'))


# ---------------------------------------------------------------------------
# coin-dependent pays

COINS = """
[game]
name = "coins"
reels = 3
rows = 1

[symbols]
bar1 = "regular"
bar2 = "regular"
seven = "regular"
blank = "blank"

[groups]
any_bar = ["bar1", "bar2"]

[paytable]
bar2 = { 3 = 20 }
any_bar = { 3 = 5 }
seven = { 3 = 50 }

[combos]
sbs = { cells = ["seven", "any_bar", "seven"], pay = 30 }

[paylines]
lines = [[0, 0, 0]]

[reels]
base = [["bar1", "bar2", "seven", "blank"], ["bar1", "bar2", "seven", "blank"], ["bar1", "bar2", "seven", "blank"]]

[modes.one]
cost = 1
reels = "base"

[modes.three]
cost = 3
reels = "base"
coins = 3
coin_pays = { "paytable.seven.3" = 1000, "combos.sbs" = 100 }
"""


def test_coin_pays_hand_counted():
    from fractions import Fraction

    from analytic.model.game import coin_game
    from analytic.solver.round import solve_round

    g = load_model_text(COINS)
    # 64 stop combinations.  One coin: bar2 bar2 bar2 (1 x 20); other all-bar lines (8 - 1 = 7 x 5);
    # seven seven seven (1 x 50); seven, bar, seven (2 x 30): 165.  Three coins: 3 x 20, 7 x 15,
    # 1000, 2 x 100: 1365, over a cost of 3 total bets.
    assert solve_round(g, "one").rtp.value == Fraction(165, 64)
    r = solve_round(g, "three")
    assert (r.mean_win.value, r.rtp.value) == (Fraction(1365, 64), Fraction(1365, 3 * 64))
    for mode, total in (("one", 165), ("three", 1365)):
        b = brute_force(coin_game(g, mode), "base")
        assert sum(k[-1] * v for k, v in b.items()) == total
    # the simulator's tables of the mode pay the same, window by window
    t = compile_tables(g)
    sub, f = t.modes["three"]["tables"], t.modes["three"]["tick_factor"]
    played = coin_game(g, "three")
    strips = g.reel_sets["base"]
    windows = [[[g.symbol_names.index(s[i])], [g.symbol_names.index(s2[j])], [g.symbol_names.index(s3[k])]]
               for s, s2, s3 in [strips] for i in range(4) for j in range(4) for k in range(4)]
    got = evaluate_windows(sub, np.array(windows, dtype=np.int16)).line_win * f
    want = [window_line_wins(played, [[g.symbol_names[c[0]]] for c in w])[0] * t.denom for w in windows]
    assert [int(x) for x in got] == want


@pytest.mark.parametrize("edit, msg", [
    (('coins = 3\ncoin_pays', 'coins = 2\ncoin_pays'), r"modes.three.cost: a mode of 2 coins costs 2"),
    (('"combos.sbs"', '"combos.nope"'), r'modes.three.coin_pays."combos.nope": must name a declared pay'),
    (('"paytable.seven.3"', '"paytable.seven.2"'), r'modes.three.coin_pays."paytable.seven.2": must name'),
    (('coins = 3\n', ''), r"modes.three.coin_pays: needs 'coins'"),
])
def test_coin_declarations_refused(edit, msg):
    with pytest.raises(ModelError, match=msg):
        load_model_text(COINS.replace(*edit))


def test_coins_refused_with_features():
    text = FS_GAME + '\n[modes.base]\ncost = 1\nreels = "base"\n\n[modes.max]\ncost = 2\nreels = "base"\ncoins = 2\n'
    with pytest.raises(ModelError, match=r"modes.max.coins: not solved with features \(features.fs\)"):
        load_model_text(text)


@pytest.mark.filterwarnings("ignore::analytic.errors.ModelWarning")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.booleans().flatmap(lambda focus: classic_games(flat_focus=focus)))
def test_combination_table_sums_to_the_line_total(game):
    from analytic.engine.combos import combination_table

    spec = build_spin(game, "base")
    rows = combination_table(spec)
    b = brute_force(game, "base")
    assert sum(r.total_pay for r in rows) == sum(k[-1] * v for k, v in b.items())
    # hits: the (stop combination, payline) pairs with a positive pay, per pay
    strips = game.reel_sets["base"]
    want: dict = {}
    for stops in itertools.product(*[range(len(s)) for s in strips]):
        w = [[s[(st_ + r) % len(s)] for r in range(game.rows)] for s, st_ in zip(strips, stops)]
        for line in game.lines:
            p = line_win(game, [w[r][row] for r, row in enumerate(line)])[0]
            if p:
                want[p] = want.get(p, 0) + 1
    got: dict = {}
    for r in rows:
        got[r.pay] = got.get(r.pay, 0) + r.hits
    assert got == want
