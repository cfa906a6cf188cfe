"""Issue 19 item 4 (d): a gift pick where one gift sets an expanding symbol, by editing TOML only.

* A tiny 3x2 game: every spin class (wild reel, wild symbol, expanding
  symbol drawn by weight) against a brute force over the stops written here
  from the documented semantics (docs/model-format.md, mechanic
  ``gift_pick``), the feature's mean and second moment against the mixture
  over every set of opened gifts (``itertools.combinations``), and the exact
  capped RTP against an enumeration of whole rounds.
* The shipped Secrets of Christmas model with one more gift (the expanding
  symbol drawn from the five high symbols): solver against the simulator
  (its own evaluation code), behind ``ANALYTIC_SLOW=1`` (about two minutes).
* The declarations that cannot be solved are refused at load.
"""

from __future__ import annotations

import itertools
import os
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

from analytic.errors import ModelError
from analytic.features.engines import gift_pick
from analytic.model import load_model_text

MODELS = Path(__file__).resolve().parents[3] / "models"

TOY = """
[game]
name = "toy gift expanding"
reels = 3
rows = 2
total_bet = 2

[symbols]
a = "regular"
b = "regular"
candle = "regular"
wild = "wild"
scatter = "scatter"

[paytable]
a = { 2 = 1, 3 = 4 }
b = { 3 = 6 }
candle = { 3 = 10 }

[paylines]
lines = [[0, 0, 0], [1, 1, 1]]

[reels]
base = [["a", "scatter", "candle"], ["scatter", "a", "wild", "candle"], ["a", "scatter", "b"]]
free = [["a", "candle", "b"], ["candle", "a", "wild", "b"], ["a", "b", "candle", "a"]]

[modes.base]
cost = 1
reels = "base"

[features.fs]
kind = "free_spins"
reels = "free"
trigger = { symbols = ["scatter"], counts = { 2 = 2, 3 = 2 } }
gift_pick.wild = "wild"
gift_pick.gifts = [
  { effect = "spins", value = 1, count = 2 },
  { effect = "multiplier", value = 1, count = 1 },
  { effect = "wild_reel", value = 2, count = 1 },
  { effect = "wild_symbol", value = "candle", count = 1 },
  { effect = "expanding_symbol", value = "drawn", count = 1 },
]
expanding_symbol = { draw = "at_start", choose_from = ["a", "candle", "b"], weights = [3, 1, 2] }
"""

PAYS = {"a": {2: 1, 3: 4}, "b": {3: 6}, "candle": {3: 10}}
FREE = [["a", "candle", "b"], ["candle", "a", "wild", "b"], ["a", "b", "candle", "a"]]
BASE = [["a", "scatter", "candle"], ["scatter", "a", "wild", "candle"], ["a", "scatter", "b"]]
DRAW = {"a": 3, "candle": 1, "b": 2}
GIFTS = [("spins", 1)] * 2 + [("multiplier", 1), ("wild_reel", 2), ("wild_symbol", "candle"),
                              ("expanding_symbol", "drawn")]


def line_wins(cells, wilds):
    """Sum over the two lines (rows) of the best pay; ``cells[reel][row]``."""
    total = 0
    for row in range(2):
        best = 0
        for c, pays in PAYS.items():
            run = 0
            for k in range(3):
                x = cells[k][row]
                if x == c or x == "wild" or x in wilds:
                    run += 1
                else:
                    break
            best = max(best, pays.get(run, 0))
        total += best
    return total


def brute_spin(reels, syms, exp):
    """Win law of one free spin (line-bet units, x1) over every stop combination of the free strips."""
    law: dict[int, int] = {}
    for stops in itertools.product(*(range(len(s)) for s in FREE)):
        cells = []
        for k, s in enumerate(FREE):
            i = stops[k]
            cells.append(["wild", "wild"] if k + 1 in reels else [s[i], s[(i + 1) % len(s)]])
        win = line_wins(cells, set(syms))
        if exp is not None:
            n = sum(exp in col for col in cells)  # reels showing the symbol (a wild reel shows none)
            pays = PAYS[exp]
            if n >= min(pays):
                win += pays[min(n, max(pays))] * 2  # paid on both lines
        law[win] = law.get(win, 0) + 1
    return law


def gift_sets(picks):
    """(probability, extra spins, multiplier, wild reels, wild symbols, expanding symbol) per opened set and draw."""
    out = []
    tot = comb(len(GIFTS), picks)
    for sub in itertools.combinations(range(len(GIFTS)), picks):
        extra, mult, reels, syms, drawn = 0, 1, (), (), False
        for i in sub:
            e, v = GIFTS[i]
            if e == "spins":
                extra += v
            elif e == "multiplier":
                mult += v
            elif e == "wild_reel":
                reels = (v,)
            elif e == "wild_symbol":
                syms = (v,)
            else:
                drawn = True
        if drawn:
            for s, w in DRAW.items():
                out.append((Fraction(w, tot * sum(DRAW.values())), extra, mult, reels, syms, s))
        else:
            out.append((Fraction(1, tot), extra, mult, reels, syms, None))
    return out


def feature_law(picks):
    """Exact law of the feature win (line-bet units) by enumerating every spin sequence."""
    law: dict = {}
    for p, extra, mult, reels, syms, exp in gift_sets(picks):
        sl = brute_spin(reels, syms, exp)
        tot = sum(sl.values())
        for seq in itertools.product(sl, repeat=2 + extra):
            q = p
            for x in seq:
                q *= Fraction(sl[x], tot)
            law[mult * sum(seq)] = law.get(mult * sum(seq), 0) + q
    return law


def test_spin_classes_against_brute_force():
    g = load_model_text(TOY, path="toy_gift_expanding.toml")
    seen = set()
    for picks in (2, 3):
        for _, _, _, reels, syms, exp in gift_sets(picks):
            if (reels, syms, exp) in seen:
                continue
            seen.add((reels, syms, exp))
            law = brute_spin(reels, syms, exp)
            tot = sum(law.values())
            sm = gift_pick.spin_class_moments(g, "fs", reels, syms, expanding=exp)
            for j in (1, 2, 3):
                assert sm["moments"][j] == Fraction(sum(x**j * c for x, c in law.items()), tot * 2**j), (reels, syms, exp)
            assert sm["max"] == Fraction(max(law), 2)
    assert any(e == "candle" and s == ("candle",) for _, s, e in seen)  # an expanding symbol turned wild too


def test_class_probabilities_split_by_the_draw():
    g = load_model_text(TOY, path="toy_gift_expanding.toml")
    for picks in (2, 3):
        want: dict = {}
        for p, extra, mult, reels, syms, exp in gift_sets(picks):
            k = (extra, mult, reels, syms, exp)
            want[k] = want.get(k, 0) + p
        assert gift_pick.classes_of(g, "fs", picks) == want


@pytest.mark.parametrize("picks", [2, 3])
def test_feature_moments_against_enumeration(picks):
    g = load_model_text(TOY, path="toy_gift_expanding.toml")
    law = feature_law(picks)
    assert sum(law.values()) == 1
    fr = gift_pick.solve_feature(g, "fs", picks, "base")
    assert fr.mean.label == "exact"
    assert fr.mean.value == sum(x * q for x, q in law.items()) / 2
    assert fr.second_moment.value == sum(x * x * q for x, q in law.items()) / 4
    # the spins played: 2 plus the extra spins of the gift set, from the test's own gift enumeration
    spins: dict = {}
    for p, extra, *_ in gift_sets(picks):
        spins[2 + extra] = spins.get(2 + extra, 0) + p
    assert dict(fr.spins_law.spins) == {n: q for n, q in spins.items() if q} and fr.spins_law.p_retrigger == 0
    assert fr.spins_law.expected == fr.expected_spins.value


def round_enumeration():
    """Exact law of the round win (total-bet multiples): every base stop, gift set, draw and spin sequence."""
    flaws = {c: feature_law(c) for c in (2, 3)}
    rnd: dict = {}
    tot = 3 * 4 * 3
    for stops in itertools.product(*(range(len(r)) for r in BASE)):
        cells = [[BASE[k][stops[k]], BASE[k][(stops[k] + 1) % len(BASE[k])]] for k in range(3)]
        sc = sum(col.count("scatter") for col in cells)
        win = line_wins(cells, set())
        for x, q in (flaws[sc].items() if sc >= 2 else [(0, Fraction(1))]):
            r = Fraction(win + x, 2)
            rnd[r] = rnd.get(r, 0) + Fraction(1, tot) * q
    return rnd


def tv(grid_points, exact) -> float:
    """Total variation sum |p - q| between a float law and an exact one."""
    d = sum(abs(float(grid_points.get(x, 0)) - float(p)) for x, p in exact.items())
    return d + sum(float(p) for x, p in grid_points.items() if x not in exact)


@pytest.mark.parametrize("picks", [2, 3])
def test_feature_law_against_enumeration(picks):
    g = load_model_text(TOY, path="toy_gift_expanding.toml")
    law = gift_pick.solve_feature(g, "fs", picks, "base").law
    want = {Fraction(x, 2): q for x, q in feature_law(picks).items()}
    got = {law.step * k: p for k, p in enumerate(law.probs) if p}
    assert tv(got, want) <= law.error < 1e-9


def test_round_law_against_enumeration():
    from analytic.solver.distribution import round_law
    from analytic.solver.round import solve_round

    g = load_model_text(TOY, path="toy_gift_expanding.toml")
    law = round_law(solve_round(g, "base"))
    assert law.points is not None and law.method == "grid"
    assert tv(law.points, round_enumeration()) <= float(law.error) < 1e-9


@pytest.mark.parametrize("cap", [3, 8])
def test_capped_rtp_against_round_enumeration(cap):
    g = load_model_text(TOY, path="toy_gift_expanding.toml")
    rnd = round_enumeration()
    got = gift_pick.capped_rtp_exact(g, "base", Fraction(cap))
    assert got["capped_rtp"] == sum((q * min(x, cap) for x, q in rnd.items()), Fraction(0))
    assert got["p_reach_cap"] == sum((q for x, q in rnd.items() if x >= cap), Fraction(0))


def test_fixed_expanding_gift():
    """``value = <symbol>``: that symbol expands whenever the gift is opened (no draw)."""
    text = TOY.replace('{ effect = "expanding_symbol", value = "drawn", count = 1 }',
                       '{ effect = "expanding_symbol", value = "b", count = 1 }')
    text = text.replace('expanding_symbol = { draw = "at_start", choose_from = ["a", "candle", "b"], '
                        'weights = [3, 1, 2] }\n', "")
    g = load_model_text(text, path="toy_gift_expanding.toml")
    want = Fraction(0)
    for p, extra, mult, reels, syms, exp in gift_sets(2):
        e = "b" if exp is not None else None
        law = brute_spin(reels, syms, e)
        want += p * mult * (2 + extra) * Fraction(sum(x * c for x, c in law.items()), sum(law.values()))
    assert gift_pick.solve_feature(g, "fs", 2, "base").mean.value == want / 2


@pytest.mark.parametrize("edit, where", [
    # a drawn gift without the declaration to draw from
    (lambda t: t.replace('expanding_symbol = { draw = "at_start", choose_from = ["a", "candle", "b"], '
                         'weights = [3, 1, 2] }\n', ""), "no expanding_symbol = { draw = 'at_start'"),
    # the declaration without a drawn gift
    (lambda t: t.replace('value = "drawn"', 'value = "a"'), "without an expanding_symbol gift of value 'drawn'"),
    # a second expanding gift
    (lambda t: t.replace('  { effect = "expanding_symbol", value = "drawn", count = 1 },',
                         '  { effect = "expanding_symbol", value = "drawn", count = 1 },\n'
                         '  { effect = "expanding_symbol", value = "a", count = 1 },'), "gifts[5]"),
    # two copies
    (lambda t: t.replace('value = "drawn", count = 1', 'value = "drawn", count = 2'), "gifts[4].count"),
    # drawn at each award is another engine's structure
    (lambda t: t.replace('expanding_symbol = { draw = "at_start", choose_from = ["a", "candle", "b"], '
                         'weights = [3, 1, 2] }',
                         'expanding_symbol = { draw = "at_each_award", repeat_multiplier = { ceiling = 3 } }'),
     "at the start only"),
    # a rule of the mechanic the engine does not honour
    (lambda t: t + '\n[rules]\nexpanding_line_win = "wild_led_only"\n', "expanding_line_win"),
])
def test_unsolvable_declarations_are_refused(edit, where):
    with pytest.raises(ModelError) as e:
        load_model_text(edit(TOY), path="toy_gift_expanding.toml")
    assert where in str(e.value)


@pytest.mark.skipif(os.environ.get("ANALYTIC_SLOW") != "1", reason="about two minutes: ANALYTIC_SLOW=1")
def test_full_size_variant_against_simulator():
    from analytic.cli.verify import Z_LIMIT, compare
    from analytic.simulator.runner import simulate
    from analytic.solver.round import solve_round

    text = (MODELS / "secrets_of_christmas.toml").read_text()
    anchor = 'gifts = [\n'
    assert anchor in text
    text = text.replace(anchor, anchor + '  { effect = "expanding_symbol", value = "drawn", count = 1 },\n', 1)
    text = text.replace("[features.free_spins.gift_pick]",
                        '[features.free_spins.expanding_symbol]\ndraw = "at_start"\n'
                        'choose_from = ["star", "bell", "candle", "bauble", "ace"]\n'
                        'weights = [1, 2, 3, 4, 5]\n\n[features.free_spins.gift_pick]', 1)
    game = load_model_text(text, path=str(MODELS / "secrets_of_christmas_expanding_gift.toml"))
    exact = solve_round(game, "base")
    sim = simulate(game, "base", rounds=400_000, seed=20261201, progress=False)
    for row in compare(exact, sim):
        assert abs(row["z"]) <= Z_LIMIT, row


def test_currency_cap_brackets_tightened_by_the_round_law():
    """Each binding stake's bracket (moment bound, intersected with the certified law) holds the enumerated truth."""
    from analytic.solver.round import solve_round

    text = TOY + '\n[cap]\ncurrency = 100\ncurrency_name = "GBP"\nstakes = [1, 10, 20, 40]\n'
    g = load_model_text(text, path="toy_gift_expanding.toml")
    res = solve_round(g, "base")
    rnd = round_enumeration()
    rows = res.extra["currency_cap"]
    assert [r["binds"] for r in rows] == [False, True, True, True]
    for r in rows:
        c = r["cap_multiple"]
        want = sum((q * min(x, c) for x, q in rnd.items()), Fraction(0))
        reach = sum((q for x, q in rnd.items() if x >= c), Fraction(0))
        assert r["lower"] <= want <= r["upper"], r["stake"]
        if r["binds"]:
            assert r["upper"] - r["lower"] < Fraction(1, 10**8)  # the law's bracket, not the moment bound's
            p = r["p_reach_cap"]
            assert abs(p.value - reach) <= p.error
