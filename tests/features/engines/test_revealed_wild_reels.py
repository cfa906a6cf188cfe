"""Engine revealed_wild_reels: tiny games against hand-written brute force."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from analytic.features.engines import revealed_wild_reels as rwr
from analytic.model import load_model_text
from analytic.solver.round import solve_round

TOY = """
[game]
name = "toy boce"
reels = 3
rows = 1

[symbols]
a = "regular"
b = "regular"
book = { role = "wild_scatter" }

[paytable]
a = { 2 = 2, 3 = 10 }
b = { 3 = 20 }

[paylines]
lines = [[0, 0, 0]]

[reels]
base = [["a", "b", "a"], ["a", "book", "b"], ["b", "book", "a", "a"]]
free = [["a", "b", "a", "b"], ["a", "book", "b", "book"], ["b", "book", "a"]]

[modes.base]
cost = 1
reels = "base"

[modes.buy]
cost = 50
buys = "fs"
buy_counts = { 2 = 1 }

[features.fs]
kind = "free_spins"
reels = "free"
trigger = { symbols = ["book"], counts = { 2 = 3 } }
wild_reels = { revealed_by = "book", multipliers = { 1 = 2, 2 = 1, 5 = 1 }, combine = "multiply" }
expanding_symbol = { draw = "at_start", choose_from = ["a", "b"], weights = [2, 1] }

[cap]
total_bet_multiple = 100

[rules]
wild_reels_expansion = "RULE"
"""

PAYS = {"a": {2: 2, 3: 10}, "b": {3: 20}}
MULTS = {1: 2, 2: 1, 5: 1}
FREE = [["a", "b", "a", "b"], ["a", "book", "b", "book"], ["b", "book", "a"]]


def _line_pay(cells) -> int:
    """Base-game line pay of the one-line toy: leftmost run of a symbol or books, best symbol."""
    win = 0
    for c, pays in PAYS.items():
        run = 0
        for x in cells:
            if x in (c, "book"):
                run += 1
            else:
                break
        win = max(win, pays.get(run, 0))
    return win


def toy(rule: str = "pays"):
    return load_model_text(TOY.replace("RULE", rule), path="toy_boce.toml")


def brute_spin(s: str, rule: str):
    """Every stop combination and every multiplier draw, by hand."""
    law: dict[int, int] = {}
    for stops in itertools.product(*(range(len(r)) for r in FREE)):
        cells = [FREE[k][stops[k]] for k in range(3)]
        books = [k for k in range(3) if cells[k] == "book"]
        for draw in itertools.product(MULTS, repeat=len(books)):
            w = sum(MULTS.values()) ** (3 - len(books))  # each stop combination has equal total weight
            for m in draw:
                w *= MULTS[m]
            mult = dict(zip(books, draw))
            # regular line win: best candidate, product of multipliers in the run
            line = 0
            for c, pays in PAYS.items():
                run, prod = 0, 1
                for k in range(3):
                    if cells[k] == c:
                        run += 1
                    elif k in mult:
                        run += 1
                        prod *= mult[k]
                    else:
                        break
                line = max(line, pays.get(run, 0) * prod)
            # expansion
            sreels = sum(1 for k in range(3) if cells[k] == s)
            k_all = sreels + len(books)
            exp = 0
            if k_all >= min(PAYS[s]) and not (rule == "needs_symbol" and sreels == 0):
                prod = 1
                for m in draw:
                    prod *= m
                exp = PAYS[s].get(k_all, 0) * 1 * prod
            x = line + exp
            law[x] = law.get(x, 0) + w
    return law


@pytest.mark.parametrize("rule", ["pays", "needs_symbol"])
@pytest.mark.parametrize("s", ["a", "b"])
def test_spin_moments_match_brute_force(rule, s):
    g = toy(rule)
    law = brute_spin(s, rule)
    tot = sum(law.values())
    sm = rwr.spin_moments(g, "fs", s)
    for j in range(5):
        assert sm["moments"][j] == Fraction(sum(x**j * n for x, n in law.items()), tot)
    assert sm["max"] == max(law)


def test_feature_mixture_and_round():
    g = toy()
    n = 3
    m1 = m2 = Fraction(0)
    for s, w in (("a", 2), ("b", 1)):
        law = brute_spin(s, "pays")
        tot = sum(law.values())
        e1 = Fraction(sum(x * c for x, c in law.items()), tot)
        e2 = Fraction(sum(x * x * c for x, c in law.items()), tot)
        m1 += Fraction(w, 3) * n * e1
        m2 += Fraction(w, 3) * (n * e2 + n * (n - 1) * e1 * e1)
    fr = rwr.solve_feature(g, "fs", 2, "base")
    assert fr.mean.value == m1 and fr.second_moment.value == m2
    assert fr.expected_spins.value == 3
    buy = solve_round(g, "buy", plain=True)
    assert buy.rtp.value == m1 / 50
    base = solve_round(g, "base", plain=True)
    assert base.features[0].average_win.value == m1
    capped = solve_round(g, "buy")  # the toy's cap of 100x binds: exact capped RTP
    assert capped.extra["uncapped_rtp"].value == m1 / 50
    assert capped.rtp.label == "exact" and capped.rtp.value < m1 / 50


def brute_feature_law(n: int = 3) -> dict:
    """Law of the whole feature win: every drawn symbol and every sequence of n spin outcomes."""
    law: dict = {}
    for s, w in (("a", 2), ("b", 1)):
        sl = brute_spin(s, "pays")
        tot = sum(sl.values())
        for seq in itertools.product(sl, repeat=n):
            p = Fraction(w, 3)
            for x in seq:
                p *= Fraction(sl[x], tot)
            law[sum(seq)] = law.get(sum(seq), 0) + p
    return law


def brute_base_classes(g):
    """(probability, base win, feature started) for every base stop combination, by hand."""
    base = [["a", "b", "a"], ["a", "book", "b"], ["b", "book", "a", "a"]]
    tot = 3 * 3 * 4
    out = []
    for stops in itertools.product(*(range(len(r)) for r in base)):
        cells = [base[k][stops[k]] for k in range(3)]
        win = _line_pay(cells)
        out.append((Fraction(1, tot), win, sum(x == "book" for x in cells) >= 2))
    return out


@pytest.mark.parametrize("cap", [100, 37, Fraction(15, 2)])
def test_capped_round_exact_against_brute_force(cap):
    """Capped RTP, P(reach cap) and the capped round law of both modes against full enumeration."""
    from dataclasses import replace

    g = toy()
    g = replace(g, cap=replace(g.cap, total_bet_multiple=Fraction(cap)))
    fl = brute_feature_law()
    rounds = {"buy": dict(fl), "base": {}}
    for p, b, trig in brute_base_classes(g):
        for x, q in (fl.items() if trig else [(0, Fraction(1))]):
            rounds["base"][b + x] = rounds["base"].get(b + x, 0) + p * q
    for mode, cost in (("buy", 50), ("base", 1)):
        law = rounds[mode]
        mean = sum((q * min(x, cap) for x, q in law.items()), Fraction(0))
        reach = sum((q for x, q in law.items() if x >= cap), Fraction(0))
        dist: dict = {}
        for x, q in law.items():
            dist[Fraction(min(x, cap))] = dist.get(Fraction(min(x, cap)), 0) + q
        r = solve_round(g, mode)
        assert r.rtp.label == "exact" and r.rtp.value == mean / cost
        assert r.extra["capped_rtp"].value == mean / cost
        assert r.extra["p_reach_cap"].value == reach
        assert r.extra["distribution"] == {k: v for k, v in dist.items() if v}
        m2 = sum((q * min(x, cap) ** 2 for x, q in law.items()), Fraction(0))
        assert r.mean_win.value == mean and r.second_moment.value == m2
        assert sum(c.rtp.value for c in r.components) == r.rtp.value


def test_iid_sum_moments_against_enumeration():
    law = {0: 3, 2: 1, 7: 2}
    tot = sum(law.values())
    m = [Fraction(sum(x**j * c for x, c in law.items()), tot) for j in range(5)]
    got = rwr.iid_sum_moments(m, 3)
    want = [Fraction(0)] * 5
    for xs in itertools.product(law, repeat=3):
        p = Fraction(law[xs[0]] * law[xs[1]] * law[xs[2]], tot**3)
        for j in range(5):
            want[j] += p * sum(xs) ** j
    assert got == want


def test_theoretical_max_win_and_cap_bracket():
    g = toy()
    # base: spins with 2 books (reels 2 and 3) win nothing on the line? compute by brute force
    base = [["a", "b", "a"], ["a", "book", "b"], ["b", "book", "a", "a"]]
    best_base = 0
    for stops in itertools.product(*(range(len(r)) for r in base)):
        cells = [base[k][stops[k]] for k in range(3)]
        if sum(c == "book" for c in cells) < 2:
            continue
        win = _line_pay(cells)
        best_base = max(best_base, win)
    best_spin = max(max(brute_spin(s, "pays")) for s in "ab")
    assert rwr.max_round_win(g, "base") == best_base + 3 * best_spin
    br = rwr.capped_rtp_bounds(g, "base", cap=Fraction(10**9))
    assert not br["binds"] and br["lower"] == br["upper"]
    br = rwr.capped_rtp_bounds(g, "base", cap=Fraction(30))
    assert br["binds"] and 0 <= br["upper"] - br["lower"]


def test_tail_bound_is_an_upper_bound():
    law = {0: 50, 10: 30, 100: 15, 1000: 5}
    tot = sum(law.values())
    m = [Fraction(sum(x**j * c for x, c in law.items()), tot) for j in range(5)]
    for c in (5, 50, 500):
        exact = Fraction(sum(max(x - c, 0) * n for x, n in law.items()), tot)
        assert exact <= rwr.tail_bound(m, Fraction(c))


def test_shipped_model_solves_every_mode():
    from pathlib import Path

    from analytic.model import load_model

    g = load_model(Path(__file__).resolve().parents[3] / "models" / "book_of_christmas_eve.toml")
    assert g.rules["published_max_win"] == "cap" and g.cap.total_bet_multiple == 20168
    for mode in g.modes:
        r = solve_round(g, mode)
        assert r.extra["uncapped_rtp"].label == "exact" and 0.9 < r.extra["uncapped_rtp"].value < 1.0
        assert r.rtp.label == "exact" and r.label == "exact"
        assert 0 < r.extra["p_reach_cap"].value < Fraction(1, 1000)
        assert r.rtp.value < r.extra["uncapped_rtp"].value
        # the exact capped RTP lies inside the earlier certified moment bracket
        br = rwr.capped_rtp_bounds(g, mode)
        assert br["lower"] <= r.rtp.value <= br["upper"]
        d = r.extra["distribution"]
        assert sum(d.values()) == 1 and max(d) == 20168
        assert d[Fraction(20168)] == r.extra["p_reach_cap"].value
        assert sum(w * q for w, q in d.items()) / r.cost == r.rtp.value
    # the theoretical maximum of a 3 x 5x multiplier book game is far above the published 20,168x
    assert rwr.max_round_win(g, "base") > 20168


def test_currency_cap_stakes_from_the_kinds_capped_law():
    """Issue 18: a currency cap's stakes on a kind that caps the round itself (read off its exact capped
    law; the smaller of currency / stake and the multiple cap), against full enumeration."""
    from dataclasses import replace

    g = toy()
    g = replace(g, cap=replace(g.cap, currency=Fraction(200), currency_name="GBP",
                               stakes=(Fraction(4), Fraction(1), Fraction(10))))
    fl = brute_feature_law()
    law: dict = {}
    for p, b, trig in brute_base_classes(g):
        for x, q in (fl.items() if trig else [(0, Fraction(1))]):
            law[b + x] = law.get(b + x, 0) + p * q
    r = solve_round(g, "base")
    rows = r.extra["currency_cap"]
    assert [row["cap_multiple"] for row in rows] == [50, 100, 20]  # 200 / 1 = 200 > the 100x cap
    for row in rows:
        c = row["cap_multiple"]
        assert row["capped_rtp"].value == sum((q * min(x, c) for x, q in law.items()), Fraction(0))
        assert row["p_reach_cap"].value == sum((q for x, q in law.items() if x >= c), Fraction(0))
        assert row["binds"] == any(x > c and q > 0 for x, q in law.items())


UNLISTED_COUNT = """
[game]
name = "unlisted count"
reels = 4
rows = 1

[symbols]
ten = "regular"
jack = "regular"
book = { role = "wild_scatter" }

[paytable]
ten = { 2 = 1, 4 = 3 }
jack = { 2 = 1 }

[paylines]
lines = [[0, 0, 0, 0]]

[reels]
base = [["book"], ["ten"], ["book"], ["book"]]
free = [["book"], ["ten"], ["ten"], ["ten"]]

[features.fs]
kind = "free_spins"
reels = "free"
trigger = { symbols = ["book"], counts = { 1 = 1, 2 = 2 } }
wild_reels = { revealed_by = "book", multipliers = { 1 = 1 } }
expanding_symbol = { draw = "at_start", choose_from = ["ten"] }
"""


def test_a_count_above_the_listed_ones_awards_the_largest_below_it():
    """Found by the differential harness (tests/solver/test_differential_engines.py): 3 books with
    counts { 1 = 1, 2 = 2 } start 2 spins (the largest listed count below 3), not the smallest count's 1.
    By hand (one stop combination, total bet 1 line bet): the base line ``book ten book book`` pays
    ten's 4-run, 3; each free spin ``W ten ten ten`` pays 3 on the line plus the expansion of ten on 4
    reels, 3 x 1 line: 6; two spins 12; the round 15."""
    g = load_model_text(UNLISTED_COUNT, path="unlisted.toml")
    r = solve_round(g, "base")
    (f,) = r.features
    assert f.expected_spins.value == 2 and f.average_win.value == 12
    assert r.rtp.label == "exact" and r.rtp.value == 15


ABOVE_LISTED = """
[game]
name = "expansion above the listed counts"
reels = 3
rows = 1

[symbols]
ten = "regular"
book = { role = "wild_scatter" }

[paytable]
ten = { 2 = 1 }

[paylines]
lines = [[0, 0, 0]]

[reels]
base = [["book"], ["ten"], ["book"]]
free = [["ten"], ["ten"], ["ten"]]

[features.fs]
kind = "free_spins"
reels = "free"
trigger = { symbols = ["book"], counts = { 2 = 1 } }
wild_reels = { revealed_by = "book", multipliers = { 1 = 1 } }
expanding_symbol = { draw = "at_start", choose_from = ["ten"] }
"""


def test_an_expansion_above_the_largest_listed_count_pays_that_count():
    """Found by the differential harness: ten pays only 2 of a kind; in the one free spin it shows on all
    3 reels.  As a normal line win ``ten ten ten`` pays nothing (count 3 not listed; the base line
    ``book ten book`` likewise), but its expansion on 3 reels pays ten's largest listed count, 1 x 1
    line (docs/model-format.md, mechanic expanding_symbol; engines wald and gift_pick read it so): the
    round pays 1 total bet (1 line).  The solver and the simulator (its own evaluation code)."""
    from analytic.simulator.runner import simulate

    g = load_model_text(ABOVE_LISTED, path="above.toml")
    r = solve_round(g, "base")
    assert r.rtp.label == "exact" and r.rtp.value == 1
    sim = simulate(g, "base", rounds=50, seed=1, progress=False)
    assert sim.rtp == 1
