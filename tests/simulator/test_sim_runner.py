"""Reproducibility, statistics against hand-computed figures, dask."""

from fractions import Fraction
from itertools import product

import pytest

from analytic.errors import ModelError, UnsupportedMechanicError
from analytic.model.game import BetMode, FeatureSpec, Trigger, WinCap
from analytic.simulator import evaluate_window, simulate
from analytic.simulator.evaluate import compile_tables
from analytic.simulator.runner import ChunkStats, SimulationResult, run_chunks
from simgames import fm, make_game

NAMES = ["A", "B", "W", "X"]


def tiny(**kw):
    """3 reels x 1 row, one line, every strip A B W X (each 1/4).

    RTP by hand: WWW (1/64) pays 40; A/W windows other than WWW (7/64) pay 8;
    B/W windows other than WWW (7/64) pay 16:  (40 + 56 + 112) / 64 = 3.25;
    hit frequency 15/64.
    """
    return make_game(
        [("A", "regular"), ("B", "regular"), ("W", "wild"), ("X", "blank")],
        {"A": {3: 8}, "B": {3: 16}, "W": {3: 40}},
        [[0, 0, 0]],
        {"base": [NAMES] * 3},
        **kw,
    )


def test_tiny_rtp_by_hand_matches_enumeration():
    g = tiny()
    wins = [evaluate_window(g, [[a], [b], [c]]).win for a, b, c in product(NAMES, repeat=3)]
    assert Fraction(sum(wins), 64) == Fraction(13, 4)
    assert sum(1 for w in wins if w) == 15


def test_tiny_rtp_inside_interval():
    r = simulate(tiny(), rounds=200_000, seed=11, progress=False)
    lo, hi = r.rtp_ci999
    assert lo <= 3.25 <= hi
    assert abs(r.hit_frequency - 15 / 64) <= 3.3 * r.hit_frequency_se
    assert r.rtp_ci95[0] > lo and r.rtp_ci95[1] < hi
    assert r.max_win == 40 and r.feature_frequency == 0
    d = r.to_dict()
    assert d["max_win"] == "40" and d["rounds"] == 200_000


def test_same_seed_same_result_whatever_the_split():
    g = tiny()
    a = simulate(g, rounds=25_000, seed=5, chunk=4_000, progress=False)
    b = simulate(g, rounds=25_000, seed=5, chunk=4_000, progress=False)
    assert a.total_win == b.total_win and a.win_sd == b.win_sd
    # the same chunks played in another grouping and order add to the same sums
    t = compile_tables(g)
    chunks = [(i, min(4_000, 25_000 - i * 4_000)) for i in range(7)]
    parts = [run_chunks(t, "base", chunks[i::3], 5) for i in (2, 0, 1)]
    total = ChunkStats()
    for p in parts:
        total.add(p)
    assert Fraction(total.win, t.denom * t.total_bet) == a.total_win
    assert total.hits / total.rounds == a.hit_frequency
    c = simulate(g, rounds=25_000, seed=6, chunk=4_000, progress=False)
    assert c.total_win != a.total_win


def test_win_cap_counts_capped_rounds():
    g = tiny(cap=WinCap(total_bet_multiple=Fraction(20)))
    r = simulate(g, rounds=20_000, seed=1, progress=False)
    assert r.max_win == 20
    assert r.capped_rounds > 0  # WWW (40) and BBB-like (16 < 20 are not)
    assert abs(r.capped_rounds / r.rounds - 1 / 64) < 0.01


def test_unknown_kind_is_refused():
    f = FeatureSpec("magic", "teleport_reels", Trigger(frozenset({"X"}), fm({3: 1})), "base", fm({}))
    with pytest.raises(UnsupportedMechanicError, match="teleport_reels"):
        simulate(tiny(features={"magic": f}), rounds=10, progress=False)


def test_unknown_mode():
    with pytest.raises(ModelError, match="nope"):
        simulate(tiny(), mode="nope", rounds=10, progress=False)


def test_pick_bonus_buy_mode_mean():
    """A bought pick bonus: E[win] = E[picks] E[prizes per pick] E[prize]."""
    pb = FeatureSpec(
        "buoy", "pick_bonus", None, None,
        fm({"picks": {2: 1, 3: 1, 4: 1}, "prizes_per_pick": {2: 1, 3: 1}, "prizes": [[10, 3], [40, 1]]}),
    )
    modes = {
        "base": BetMode("base", Fraction(1), "base"),
        "buy": BetMode("buy", Fraction(50), None, buys="buoy", buy_counts=fm({3: 1})),
    }
    g = tiny(features={"buoy": pb}, modes=modes)
    r = simulate(g, mode="buy", rounds=20_000, seed=2, progress=False)
    expected = Fraction(3) * Fraction(5, 2) * Fraction(70, 4) / 50  # total_bet is 1 line
    assert r.feature_frequency == 1 and r.base_rtp == 0
    lo, hi = r.rtp_ci999
    assert lo <= expected <= hi


def test_line_triggered_pick_bonus_once_per_line():
    pb = FeatureSpec("buoy", "pick_bonus", None, None, fm({"picks": {1: 1}, "prizes": [[7, 1]]}))
    g = make_game(
        [("A", "regular"), ("L", "bonus"), ("X", "blank")],
        {"A": {3: 1}},
        [[0, 0, 0], [1, 1, 1]],
        {"base": [["L", "L"], ["L", "L"], ["L", "L"]]},
        rows=2, features={"buoy": pb}, line_triggers={"L": {3: "buoy"}},
    )
    r = simulate(g, rounds=100, seed=0, progress=False)
    # both lines show L L L every spin: two bonuses of 7 line bets, total bet 2
    assert r.rtp == 7.0 and r.features["buoy"]["instances"] == 200


@pytest.mark.dask
def test_local_dask_cluster_matches_single_process():
    g = tiny()
    one = simulate(g, rounds=30_000, seed=9, chunk=5_000, progress=False)
    two = simulate(g, rounds=30_000, seed=9, chunk=5_000, workers=2, progress=False)
    assert two.total_win == one.total_win
    assert two.win_sd == one.win_sd and two.hit_frequency == one.hit_frequency
    assert two.workers == 2


def _one_big_win(n=10, win=10):
    """``n`` rounds of ``tiny()``, one of which won ``win`` total bets, the others nothing."""
    t = compile_tables(tiny())
    tb = t.denom * t.total_bet
    s = ChunkStats(rounds=n, win=win * tb, win2=(win * tb) ** 2, hits=1, max_win=win * tb,
                   win_counts={0: n - 1, win * tb: 1})
    return SimulationResult.from_stats(t, "base", s, seed=0, seconds=1.0, workers=1, chunk=n)


def test_rtp_interval_clipped_at_zero_by_hand():
    """10 rounds, one win of 10 total bets: RTP 1, sample variance (100 - 10 * 1) / 9 = 10, SE
    sqrt(10 / 10) = 1; the normal 95 % interval 1 -+ 1.96 would start at -0.96, an RTP below 0."""
    r = _one_big_win()
    assert r.rtp == 1.0 and r.rtp_se == pytest.approx(1.0)
    for lv, z in (("95%", 1.959964), ("99%", 2.575829), ("99.9%", 3.290527)):
        lo, hi = r.interval(lv)
        assert lo == 0.0 and hi == pytest.approx(1 + z, abs=1e-6)
        assert r.clipped(lv)
    d = r.to_dict()
    assert d["rtp_ci95"][0] == 0.0 and d["rtp_ci_clipped"] == ["95%", "99%", "99.9%"]
    assert "normal approximation" in d["rtp_ci_method"] and "clipped at 0" in d["rtp_ci_method"]


def test_rtp_interval_not_clipped_when_inside():
    """100 rounds of which 50 win 2 total bets: RTP 1, sample variance (200 - 100) / 99, SE
    sqrt(100 / 99) / 10 ~ 0.1005; the 95 % low end 1 - 0.197 > 0 is kept as it is."""
    t = compile_tables(tiny())
    tb = t.denom * t.total_bet
    s = ChunkStats(rounds=100, win=50 * 2 * tb, win2=50 * (2 * tb) ** 2, hits=50, max_win=2 * tb,
                   win_counts={0: 50, 2 * tb: 50})
    r = SimulationResult.from_stats(t, "base", s, seed=0, seconds=1.0, workers=1, chunk=100)
    se = (100 / 99) ** 0.5 / 10
    assert r.rtp_se == pytest.approx(se)
    assert r.rtp_ci95 == pytest.approx((1 - 1.959964 * se, 1 + 1.959964 * se))
    assert not r.clipped("95%") and r.to_dict()["rtp_ci_clipped"] == []
