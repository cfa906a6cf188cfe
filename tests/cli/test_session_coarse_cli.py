"""``analytic session`` on the coarse grid: a feature buy's long session as the par sheet runs it.

Oracles: the exact law of a tiny buy's session by a direct walk over its balances in Fractions
(a bonus bought for 8 paying 5 or 10, each with probability 1/2: the tiny game of
tests/reports/test_session_section.py), sessions played by the simulator's own code, and the
committed par sheet of Book of Christmas Eve (produced by the report path,
:func:`analytic.solver.session.summary_results`, not by this command).
"""

from __future__ import annotations

import json
from collections import defaultdict
from fractions import Fraction as F
from pathlib import Path

import pytest

from analytic.cli import main

ROOT = Path(__file__).resolve().parents[2]
BUY = '\n[modes.buy]\ncost = 8\nbuys = "pick"\nbuy_counts = { 2 = 1 }\n'


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """The tiny buy game's file; the coarse rule's horizon lowered to 20 rounds and its grid to the price
    over 4 (2 bets: the win's own grid is 1 bet, so the price spans 8 points, more than 4)."""
    import analytic.solver.session_bounds as sb
    from tests.reports.test_session_section import TINY

    monkeypatch.setattr(sb, "COARSE_ROUNDS", 20)
    monkeypatch.setattr(sb, "COARSE_STEPS", 4)
    m = tmp_path / "tiny.toml"
    m.write_text(TINY + BUY, encoding="utf-8")
    return m


def _json(capsys, *argv):
    rc = main(["session", *map(str, argv), "--format", "json"])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    return json.loads(cap.out)


def _walk(balance: F, rounds: int) -> dict:
    """``{final balance: probability}`` and the risk of ruin of the tiny buy's session: every round
    costs 8 and pays 5 or 10 (1/2 each) while the balance pays a round."""
    live = {balance: F(1)}
    final: dict = defaultdict(F)
    ruin = F(0)
    for _ in range(rounds + 1):
        nxt: dict = defaultdict(F)
        for b, p in live.items():
            if b < 8:
                final[b] += p
                ruin += p
            else:
                nxt[b + 2] += p / 2
                nxt[b - 3] += p / 2
        live, last = nxt, live
    for b, p in last.items():  # (the live mass after the last round: rounds over)
        if b >= 8:
            final[b] += p
    assert sum(final.values()) == 1
    return dict(final), ruin


def _inside(fig: dict, x) -> bool:
    return fig["float"] - fig["error"] <= float(x) <= fig["float"] + fig["error"]


@pytest.mark.parametrize("balance", [F(40), F(41), F(81, 2)])
def test_auto_runs_a_long_buy_session_on_the_coarse_grid(tiny, capsys, balance):
    """30 rounds (above the lowered COARSE_ROUNDS) of the buy: bounded on the coarse grid, every figure's
    interval holding the exact one; a start off the grid (41: not the price plus a multiple of 2; 81/2)
    has the chains' starts moved out, said in the JSON."""
    d = _json(capsys, tiny, "--mode", "buy", "--balance", balance, "--rounds", 30)
    assert d["method"] == "bounded" and d["coarse"]["grid"] == 2.0 and d["coarse"]["steps"] == 4
    assert d["coarse"]["fail"] == 1e-5 and "Hoeffding" in d["coarse"]["bound"]
    assert ("start_low" in d["coarse"]) == (balance != 40)
    final, ruin = _walk(balance, 30)
    assert _inside(d["ruin"], ruin)
    assert _inside(d["p_above_start"], sum(p for b, p in final.items() if b > balance))
    assert _inside(d["balance_mean"], sum(b * p for b, p in final.items()))
    assert d["return_quantiles"] is None and d["return_mean"] is None
    assert "not given on the coarse grid" in d["notes"]["return experienced"]


def test_short_sessions_other_methods_and_stops_keep_the_fine_chain(tiny, capsys):
    """At most COARSE_ROUNDS rounds, --method certified, a stop rule or the base mode: the fine chain (its
    figures those of the exact walk within the chain's error)."""
    for argv in (["--mode", "buy", "--rounds", 20], ["--mode", "buy", "--rounds", 30, "--method", "certified"],
                 ["--mode", "buy", "--rounds", 30, "--stop-cash-up", 50], ["--rounds", 30]):
        d = _json(capsys, tiny, "--balance", 40, *argv)
        assert "coarse" not in d and d["method"] in ("exact", "certified"), argv
    d = _json(capsys, tiny, "--balance", 40, "--mode", "buy", "--rounds", 30, "--method", "certified")
    _, ruin = _walk(F(40), 30)
    assert abs(d["ruin"]["float"] - float(ruin)) <= d["ruin"]["error"] + 1e-9


def test_method_coarse_on_a_short_session(tiny, capsys):
    """--method coarse asks for the coarse grid at any horizon the chains can honour."""
    d = _json(capsys, tiny, "--mode", "buy", "--balance", 40, "--rounds", 10, "--method", "coarse")
    _, ruin = _walk(F(40), 10)
    assert d["method"] == "bounded" and "coarse" in d and _inside(d["ruin"], ruin)


@pytest.mark.parametrize("method", ["auto", "coarse"])
def test_a_start_below_the_price_is_ruin_at_once_exactly(tiny, capsys, method):
    """A start that does not pay one round (7 < 8): ruin before the first round, exactly, not a bracket
    whose upper chain (started above the price) would play."""
    d = _json(capsys, tiny, "--mode", "buy", "--balance", 7, "--rounds", 30, "--method", method)
    assert "coarse" not in d and d["ruin"]["float"] == 1.0 and d["ruin"].get("error", 0) == 0


@pytest.mark.parametrize("argv, where", [
    (["--stop-cash-up", "10"], "--stop-cash-up"),
    (["--stop-on-any-win"], "--stop-on-any-win"),
    (["--bet", "2", "--bet-ladder", "1,2"], "--bet-ladder"),
])
def test_method_coarse_refuses_what_it_cannot_honour_before_the_solve(tiny, capsys, monkeypatch, argv, where):
    from tests.cli.test_session_cli import _no_solve

    _no_solve(monkeypatch)
    rc = main(["session", str(tiny), "--mode", "buy", "--balance", "40", "--rounds", "30", "--method", "coarse",
               *argv])
    cap = capsys.readouterr()
    assert rc == 2 and cap.err.startswith("error:") and f": {where}: " in cap.err and "coarse" in cap.err


def test_method_coarse_refused_where_the_grid_would_be_no_coarser(tiny, capsys):
    """The base mode's price (1) spans one point of its grid: the price over 4 is finer, refused."""
    rc = main(["session", str(tiny), "--balance", "40", "--rounds", "30", "--method", "coarse"])
    cap = capsys.readouterr()
    assert rc == 2 and ": --method: " in cap.err and "no coarser" in cap.err


def test_table_names_the_coarse_method(tiny, capsys):
    rc = main(["session", str(tiny), "--mode", "buy", "--balance", "41", "--rounds", "30"])
    out = capsys.readouterr().out
    assert rc == 0
    line = next(x for x in out.splitlines() if x.startswith("method"))
    assert "coarse grid 2 (the price over 4)" in line and "Hoeffding" in line and "1e-05" in line
    assert "started at 12 and 70" in line  # 41 - 28 - 1 and 41 + 28 + 1 (the shift: 14 steps of 2)


def test_coarse_session_holds_the_simulator(tiny, capsys):
    """The coarse bracket of 300 rounds from 100 against 4,000 sessions played by the simulator (5 standard
    errors): the risk of ruin, P(above the start) and the mean final balance."""
    from analytic.model.loader import load_model
    from analytic.simulator.session import simulate_sessions
    from analytic.solver.round import solve_round
    from analytic.solver.round_law_file import saved_round_law, session_from_law
    from analytic.solver.session import SessionRules
    from tests.solver.test_session_simulated import _bracket_misses

    game = load_model(str(tiny))
    rules = SessionRules(balance=F(100), rounds=300)
    res = session_from_law(game, saved_round_law(game, "buy", solve_round(game, "buy")), rules)
    assert "coarse" in res.bracket and float(res.ruin.error) < 0.5
    sim = simulate_sessions(game, "buy", 4000, 7, balance=F(100), rounds=300)
    assert _bracket_misses(res, sim, 100) == []
    # the command's own --simulate prints the simulator's figures beside the coarse bracket
    rc = main(["session", str(tiny), "--mode", "buy", "--balance", "100", "--rounds", "300", "--simulate", "500"])
    out = capsys.readouterr().out
    assert rc == 0 and "sim: ends by 'ruin'" in out and "coarse grid" in out


@pytest.mark.early
def test_christmas_eve_buy_matches_the_committed_par_sheet(capsys):
    """10,000 rounds of Book of Christmas Eve's buy from 100 buys' price (13,100 bets): the command's
    figures are the committed par sheet's row for that horizon, as published (same digits)."""
    sheet = json.loads((ROOT / "reports" / "book_of_christmas_eve.json").read_text(encoding="utf-8"))
    rows = [h for m in sheet["modes"] if m.get("session") for h in m["session"]["horizons"]
            if h["rounds"] == 10000 and h["method"] == "bounded"]
    assert len(rows) == 1
    row = rows[0]
    d = _json(capsys, ROOT / "models" / "book_of_christmas_eve.toml", "--mode", "buy", "--balance", 13100,
              "--rounds", 10000)
    assert d["method"] == "bounded" and d["coarse"]["grid"] == 6.55 and d["coarse"]["shift"] == 1624.4
    for k in ("balance_mean", "p_above_start", "ruin", "rounds_to_ruin"):
        assert d[k] == row[k], k
    assert d["error"] == row["error"]
    for q in row["balance_quantiles"]:
        assert d["balance_quantiles"][str(float(F(q["level"])))] == [q["low_float"], q["high_float"]], q["level"]


@pytest.mark.parametrize("balance, rounds", [(41, 30), (12, 60), (200, 30)])
def test_table_probabilities_stay_within_0_and_1(tiny, capsys, balance, rounds):
    """The coarse bracket's probabilities in the table: each printed interval (``value +/- error`` or
    ``[low, high]``) holds the exact walk's figure and lies within [0, 1].  From 41 the risk of ruin
    was printed "0.4488  +/- 4.49e-01" (below 0: the bracket's half-width rounded up), from 200
    "5e-06  +/- 5.01e-06" and "0.999995  +/- 5.01e-06" (below 0, above 1)."""
    import re

    rc = main(["session", str(tiny), "--mode", "buy", "--balance", str(balance), "--rounds", str(rounds)])
    out = capsys.readouterr().out
    assert rc == 0
    final, ruin = _walk(F(balance), rounds)
    truth = {"risk of ruin": ruin, "ends by 'ruin'": ruin, "ends by 'rounds'": 1 - ruin,
             "P(final balance > start)": sum(p for b, p in final.items() if b > balance)}
    num = r"[0-9.e+-]+"
    for line in out.splitlines():
        key = next((k for k in truth if line.startswith(k)), None)
        if key is None:
            continue
        text = line[len(key):].strip()
        m = re.fullmatch(rf"({num})  \+/- ({num})", text) or re.fullmatch(rf"\[({num}), ({num})\]", text)
        assert m, line
        a, b = F(m.group(1)), F(m.group(2))
        lo, hi = (a - b, a + b) if "+/-" in text else (a, b)
        assert 0 <= lo <= truth[key] <= hi <= 1, line
