"""Engine gift_pick: the gift pick and tiny free spins against brute force."""

from __future__ import annotations

import itertools
import tomllib
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

from analytic.features.engines import gift_pick
from analytic.model import load_model_text

MODEL = Path(__file__).resolve().parents[3] / "models" / "secrets_of_christmas.toml"


def model_gifts():
    raw = tomllib.loads(MODEL.read_text())["features"]["free_spins"]["gift_pick"]["gifts"]
    return [(g["effect"], g["value"], g["count"]) for g in raw]


def direct_classes(gifts, picks, base=1):
    """Every set of ``picks`` distinct gifts (itertools.combinations), equally likely."""
    flat = [(e, v) for e, v, n in gifts for _ in range(n)]
    out: dict[tuple, int] = {}
    for sub in itertools.combinations(range(len(flat)), picks):
        spins, mult, reels, syms = 0, base, set(), set()
        for i in sub:
            e, v = flat[i]
            if e == "spins":
                spins += v
            elif e == "multiplier":
                mult += v
            elif e == "wild_reel":
                reels.add(v)
            else:
                syms.add(v)
        key = (spins, mult, tuple(sorted(reels)), tuple(sorted(syms)), None)
        out[key] = out.get(key, 0) + 1
    tot = comb(len(flat), picks)
    return {k: Fraction(n, tot) for k, n in out.items()}


@pytest.mark.parametrize("picks", [3, 4, 5])
def test_gift_classes_equal_direct_combinations(picks):
    gifts = model_gifts()
    assert sum(n for *_, n in gifts) == 20
    got = gift_pick.gift_classes(gifts, picks)
    assert got == direct_classes(gifts, picks)
    assert sum(got.values()) == 1


def test_many_gift_entries_are_exact_and_fast():
    """20 spin gifts of 3 copies each, 3 picks: the law was found by enumerating every entry's pick count,
    4^20 tuples (it never ended); now entry by entry.  Oracle: every set of 3 of the 60 gifts."""
    import time

    gifts = [("spins", i + 1, 3) for i in range(20)] + [("wild_reel", 2, 1), ("wild_symbol", "candle", 1)]
    t0 = time.process_time()
    got = gift_pick.gift_classes(gifts, 3)
    assert time.process_time() - t0 < 30  # (about 0.01 s; the point is "ends", not speed)
    assert got == direct_classes(gifts, 3) and sum(got.values()) == 1


def test_gift_picks_beyond_the_limits_are_refused_at_load(monkeypatch):
    from analytic import limits
    from analytic.errors import ModelError

    many = "gift_pick.gifts = [" + ", ".join(f'{{ effect = "spins", value = {i + 1}, count = 3 }}'
                                             for i in range(300)) + "]"
    text = TOY[:TOY.index("gift_pick.gifts = [")] + many + TOY[TOY.index("]\n\n[cap]") + 1:]
    with pytest.raises(ModelError, match=r"features\.fs\.gift_pick\.gifts: 300 gift entries picked 3 at a time "
                                         r"can fall into up to 4,590,551 classes, more than 1,000,000"):
        load_model_text(text, "toy.toml")
    # 1 wild-reel and 1 wild-symbol gift: 4 kinds of free spin (none, either, both), refused below 4
    load_model_text(TOY, "toy.toml")
    monkeypatch.setattr(limits, "MAX_GIFT_SPIN_CLASSES", 3)
    with pytest.raises(ModelError, match=r"features\.fs\.gift_pick\.gifts: 2 wild-reel and wild-symbol gifts "
                                         r"picked 3 at a time start up to 4 kinds of free spin, more than 3"):
        load_model_text(TOY, "toy.toml")


TOY = """
[game]
name = "toy soc"
reels = 3
rows = 1
total_bet = 1

[symbols]
a = "regular"
candle = "regular"
wild = "wild"
scatter = "scatter"

[paytable]
a = { 2 = 1, 3 = 4 }
candle = { 3 = 10 }

[paylines]
lines = [[0, 0, 0]]

[reels]
base = [["a", "scatter", "candle"], ["scatter", "a", "wild", "candle"], ["a", "scatter", "candle"]]
free = [["a", "candle", "a"], ["candle", "a", "wild", "a"], ["a", "candle", "candle", "a"]]

[modes.base]
cost = 1
reels = "base"

[features.fs]
kind = "free_spins"
reels = "free"
trigger = { symbols = ["scatter"], counts = { 2 = 2, 3 = 2 } }
gift_pick.wild = "wild"
gift_pick.gifts = [
  { effect = "spins", value = 2, count = 2 },
  { effect = "multiplier", value = 1, count = 1 },
  { effect = "wild_reel", value = 2, count = 1 },
  { effect = "wild_symbol", value = "candle", count = 1 },
]

[cap]
currency = 1000
currency_name = "GBP"
stakes = [1, 100]
"""

PAYS = {"a": {2: 1, 3: 4}, "candle": {3: 10}}
FREE = [["a", "candle", "a"], ["candle", "a", "wild", "a"], ["a", "candle", "candle", "a"]]


def brute_spin(reels, syms):
    law: dict[int, int] = {}
    strips = [["wild"] * len(s) if k + 1 in reels else s for k, s in enumerate(FREE)]
    for stops in itertools.product(*(range(len(s)) for s in strips)):
        cells = [strips[k][stops[k]] for k in range(3)]
        wild = {k for k, c in enumerate(cells) if c == "wild" or c in syms}
        win = 0
        for c, pays in PAYS.items():
            run = 0
            for k, x in enumerate(cells):
                if x == c or k in wild:
                    run += 1
                else:
                    break
            win = max(win, pays.get(run, 0))
        law[win] = law.get(win, 0) + 1
    return law


def test_free_spin_classes_and_feature_against_brute_force():
    g = load_model_text(TOY, path="toy_soc.toml")
    gifts = g.features["fs"].params["gifts"]
    for picks in (2, 3):
        want1 = want2 = Fraction(0)
        for (extra, mult, reels, syms, _), p in direct_classes(gifts, picks).items():
            law = brute_spin(reels, syms)
            tot = sum(law.values())
            e1 = Fraction(sum(x * c for x, c in law.items()), tot)
            e2 = Fraction(sum(x * x * c for x, c in law.items()), tot)
            sm = gift_pick.spin_class_moments(g, "fs", reels, syms)
            assert sm["moments"][1] == e1 and sm["moments"][2] == e2
            assert sm["max"] == max(law)
            n = 2 + extra
            want1 += p * mult * n * e1
            want2 += p * mult**2 * (n * e2 + n * (n - 1) * e1 * e1)
        fr = gift_pick.solve_feature(g, "fs", picks, "base")
        assert fr.mean.value == want1 and fr.second_moment.value == want2


def test_currency_cap_binds_only_above_max_win():
    g = load_model_text(TOY, path="toy_soc.toml")
    mx = gift_pick.max_round_win(g, "base")
    rep = gift_pick.currency_cap_report(g, "base")
    for r in rep:
        assert r["binds"] == (mx * r["stake"] > 1000)
        if not r["binds"]:
            assert r["lower"] == r["upper"]
        else:
            assert r["lower"] <= r["upper"]
    assert rep[0]["binds"] is False  # stake 1: max win is far below 1000 total bets
    assert rep[1]["binds"] is True  # stake 100: cap is 10 total bets
    # the row shape the round's own cap gives too (tests/solver/test_cap.py), with the max win
    assert list(rep[1]) == ["stake", "cap_multiple", "binds", "lower", "upper", "capped_rtp", "p_reach_cap", "max_win"]


def test_shipped_model_loads_with_its_cap():
    from analytic.model import load_model

    g = load_model(MODEL)
    assert g.cap.currency == 250000 and g.cap.currency_name == "GBP"
    assert g.total_bet == 25 and len(g.lines) == 25
    assert sum(n for *_, n in g.features["free_spins"].params["gifts"]) == 20


def _toy_round_law(g) -> dict:
    """Round law of the toy by full enumeration (base stops x gift picks x spin sequences)."""
    gifts = g.features["fs"].params["gifts"]
    base = [["a", "scatter", "candle"], ["scatter", "a", "wild", "candle"], ["a", "scatter", "candle"]]
    flaws = {}
    for picks in (2, 3):
        law: dict = {}
        for (extra, mult, reels, syms, _), p in direct_classes(gifts, picks).items():
            sl = brute_spin(reels, syms)
            tot = sum(sl.values())
            for seq in itertools.product(sl, repeat=2 + extra):
                q = p
                for x in seq:
                    q *= Fraction(sl[x], tot)
                law[mult * sum(seq)] = law.get(mult * sum(seq), 0) + q
        flaws[picks] = law
    rnd: dict = {}
    tot = 3 * 4 * 3
    for stops in itertools.product(*(range(len(r)) for r in base)):
        cells = [base[k][stops[k]] for k in range(3)]
        sc = sum(c == "scatter" for c in cells)
        win = 0
        for c, pays in PAYS.items():
            run = 0
            for x in cells:
                if x in (c, "wild"):
                    run += 1
                else:
                    break
            win = max(win, pays.get(run, 0))
        for x, q in (flaws[sc].items() if sc >= 2 else [(0, Fraction(1))]):
            rnd[win + x] = rnd.get(win + x, 0) + Fraction(1, tot) * q
    return rnd


CAPS = [3, 10, Fraction(25, 2), 40]


@pytest.mark.parametrize("cap", CAPS)
def test_exact_capped_rtp_against_brute_force(cap):
    g = load_model_text(TOY, path="toy_soc.toml")
    rnd = _toy_round_law(g)
    want = sum((q * min(x, cap) for x, q in rnd.items()), Fraction(0))
    reach = sum((q for x, q in rnd.items() if x >= cap), Fraction(0))
    got = gift_pick.capped_rtp_exact(g, "base", Fraction(cap))
    assert got["capped_rtp"] == want and got["p_reach_cap"] == reach


def test_stake_table_exact_against_brute_force():
    """Every binding stake read from the one law below the largest binding cap, against enumeration;
    the moment brackets alone (``exact_stakes=False``) hold the same truth."""
    stakes = [Fraction(1000) / c for c in CAPS]
    g = load_model_text(TOY.replace("stakes = [1, 100]", "stakes = [" + ", ".join(f'"{s}"' for s in stakes) + "]"),
                        path="toy_soc.toml")
    rnd = _toy_round_law(g)
    rows = gift_pick.currency_cap_report(g, "base")
    brackets = gift_pick.currency_cap_report(g, "base", exact_stakes=False)
    assert [r["cap_multiple"] for r in rows] == CAPS and all(r["binds"] for r in rows)
    for r, b in zip(rows, brackets):
        c = r["cap_multiple"]
        want = sum((q * min(x, c) for x, q in rnd.items()), Fraction(0))
        reach = sum((q for x, q in rnd.items() if x >= c), Fraction(0))
        assert r["capped_rtp"].label == "exact" and r["capped_rtp"].value == want == r["lower"] == r["upper"]
        assert r["p_reach_cap"].value == reach and r["p_reach_cap"].label == "exact"
        assert b["capped_rtp"].label == "bounded" and b["lower"] <= want <= b["upper"]
