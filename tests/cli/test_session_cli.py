"""``analytic session``: hand counts on a tiny game, the refusals, and the simulator beside.

Tiny game: 2 reels, 1 row, one payline, each reel ``[a, b]``; ``a a`` pays 3
(total bet 1), so a round wins 3 with probability 1/4, else 0.
"""

from __future__ import annotations

import json
from fractions import Fraction as F
from pathlib import Path

import pytest

from analytic.cli import main

#: 2 reels [a, b], one payline; "a a" pays 3 (total bet 1): a round wins 3 w.p. 1/4, else 0.
TINY = (Path(__file__).resolve().parents[1] / "data" / "two_reels.toml").read_text(encoding="utf-8")

MODELS = Path(__file__).resolve().parents[2] / "models"


def _run(tmp_path, capsys, *argv):
    m = tmp_path / "tiny.toml"
    m.write_text(TINY, encoding="utf-8")
    rc = main(["session", str(m), *argv])
    return rc, capsys.readouterr()


def _frac(fig):
    return F(fig["exact"])


def test_hand_count(tmp_path, capsys):
    # start 1, two rounds: lose (3/4) -> 0, ruin after 1 round; win (1/4) -> 3, then 5 (1/16) or 2 (3/16)
    rc, cap = _run(tmp_path, capsys, "--balance", "1", "--rounds", "2", "--format", "json")
    assert rc == 0, cap.err
    d = json.loads(cap.out)
    assert d["method"] == "exact"
    assert _frac(d["ruin"]) == F(3, 4)
    assert _frac(d["balance_mean"]) == F(11, 16)
    assert _frac(d["rounds_mean"]) == F(5, 4)
    assert _frac(d["p_above_start"]) == F(1, 4)
    assert _frac(d["reasons"]["rounds"]) == F(1, 4)
    assert d["balance_quantiles"]["0.75"] == 0.0 and d["balance_quantiles"]["0.99"] == 5.0
    # return: lose once -> 0/1; win-win 6/2, win-lose 3/2
    assert _frac(d["return_mean"]) == F(3, 4) * 0 + F(1, 16) * 3 + F(3, 16) * F(3, 2)


def test_stops_hand_count(tmp_path, capsys):
    # any win stops at the first win: P = 1 - (3/4)^3 within 3 rounds from 5 (no ruin possible)
    rc, cap = _run(tmp_path, capsys, "--balance", "5", "--rounds", "3", "--stop-on-any-win", "--format", "json")
    d = json.loads(cap.out)
    assert _frac(d["reasons"]["any win"]) == 1 - F(27, 64)
    # cash down 2 from 5: two losses in a row
    rc, cap = _run(tmp_path, capsys, "--balance", "5", "--rounds", "3", "--stop-cash-down", "2", "--format", "json")
    d = json.loads(cap.out)
    assert _frac(d["reasons"]["cash down"]) == F(9, 16)
    # bet ladder: bet 2 from balance 3; a loss leaves 1 -> the bet drops to 1
    rc, cap = _run(tmp_path, capsys, "--balance", "3", "--bet", "2", "--bet-ladder", "1,2", "--rounds", "2",
                   "--format", "json")
    d = json.loads(cap.out)
    # round 1 at bet 2: win (1/4) -> 7, lose -> 1; round 2 at bet 2 (from 7): 11 or 5; at bet 1 (from 1): 3 or 0
    assert _frac(d["balance_mean"]) == F(1, 16) * 11 + F(3, 16) * 5 + F(3, 16) * 3 + F(9, 16) * 0
    assert _frac(d["ruin"]) == F(9, 16)
    assert d["return_quantiles"] is None


def test_simulate_beside(tmp_path, capsys):
    rc, cap = _run(tmp_path, capsys, "--balance", "4", "--rounds", "6", "--stop-cash-up", "4", "--simulate", "2000")
    assert rc == 0
    assert "sim: ends by 'cash up'" in cap.out and "(exact)" in cap.out
    rc, cap = _run(tmp_path, capsys, "--balance", "4", "--rounds", "6", "--stop-cash-up", "4", "--simulate", "2000",
                   "--seed", "7")
    assert rc == 0 and "sim: ends by 'cash up'" in cap.out


@pytest.mark.parametrize("argv, msg", [
    (["--balance", "-1", "--rounds", "2"], "--balance"),
    (["--balance", "1", "--rounds", "0"], "--rounds"),
    (["--balance", "1", "--rounds", "2", "--bet", "0"], "--bet"),
    (["--balance", "1", "--rounds", "2", "--stop-cash-up", "x"], "--stop-cash-up"),
    (["--balance", "1", "--rounds", "2", "--bet", "2", "--bet-ladder", "1,3"], "--bet-ladder"),
    (["--balance", "1", "--rounds", "2", "--mode", "nope"], "unknown bet mode"),
    # a seed without --simulate was ignored (the figures are exact): two seeds, the same output, no word
    (["--balance", "1", "--rounds", "2", "--seed", "7"], "--seed: "),
])
def test_bad_arguments(tmp_path, capsys, argv, msg):
    rc, cap = _run(tmp_path, capsys, *argv)
    assert rc == 2 and cap.err.startswith("error:") and msg in cap.err and not cap.out


BOP = MODELS / "book_of_power.toml"


def _no_solve(monkeypatch):
    """Make every round solve fail loudly: a refusal must come before it."""
    import analytic.solver.round as round_

    def reached(*a, **k):
        raise AssertionError("the round was solved before the refusal")

    monkeypatch.setattr(round_, "solve_round", reached)
    monkeypatch.setattr(round_, "solve_game", reached)


def _bop_without(tmp_path, old: str, new: str = "") -> Path:
    text = BOP.read_text(encoding="utf-8")
    assert text.count(old) == 1
    m = tmp_path / "bop.toml"
    m.write_text(text.replace(old, new), encoding="utf-8")
    return m


@pytest.mark.parametrize("model, argv, where, says", [
    # Book of Power's regular modes have no round law, only bounds of P(win >= x): bracketed, never exact
    (None, ["--method", "exact"], "--method", "never exact"),
    (None, ["--mode", "buy_free_spins", "--method", "exact"], "--method", "never exact"),
    # its Power buy has a certified law on the cap's grid: certified, never exact
    (None, ["--mode", "buy_power_free_spins", "--method", "exact"], "--method", "certified law"),
    # a bet ladder below the bet: the two bracketing laws do not bracket the session
    (None, ["--bet", "2", "--bet-ladder", "1,2"], "--bet-ladder", "without a bet ladder"),
    (None, ["--mode", "power_bet", "--bet", "2", "--bet-ladder", "1/2,2"], "--bet-ladder", "mode 'power_bet'"),
    # without a win cap: neither a law nor bounds
    (("[cap]\ntotal_bet_multiple = 15000\n", ""), [], ": cap: ", "total_bet_multiple"),
    # a currency cap on a bracketed round (the round's own check, analytic.solver.round.check_round, says it first)
    (("total_bet_multiple = 15000\n", "total_bet_multiple = 15000\ncurrency = 1000\nstakes = [1]\n"), [],
     ": cap.currency: ", "remove cap.currency"),
])
def test_refused_before_the_solve(tmp_path, capsys, monkeypatch, model, argv, where, says):
    """What the model and the options decide alone is one line ``error: MODEL: WHERE: reason``, exit 2,
    before the round's solve (Book of Power's takes about a minute; made to fail loudly here)."""
    path = BOP if model is None else _bop_without(tmp_path, *model)
    _no_solve(monkeypatch)
    rc = main(["session", str(path), "--balance", "100", "--rounds", "10", *argv])
    cap = capsys.readouterr()
    lines = cap.err.splitlines()
    assert rc == 2 and not cap.out and len(lines) == 1, cap.err
    assert lines[0].startswith(f"error: {path}: ") and where in lines[0] and says in lines[0], lines[0]
    assert "Traceback" not in cap.err


def test_stop_on_feature_without_a_feature_is_refused_before_the_solve(tmp_path, capsys, monkeypatch):
    # the tiny game has no feature: the stop can never fire
    _no_solve(monkeypatch)
    rc, cap = _run(tmp_path, capsys, "--balance", "5", "--rounds", "3", "--stop-on-feature")
    lines = cap.err.splitlines()
    assert rc == 2 and not cap.out and len(lines) == 1
    assert "--stop-on-feature" in lines[0] and "can never end a session" in lines[0] and "tiny.toml" in lines[0]


def test_stop_on_feature_on_a_mode_that_starts_none_is_refused(tmp_path, capsys):
    # a feature triggered by three 's' (the game's declared scatter), on reels that hold no 's': the base spin
    # can start it nowhere, so the stop can never fire (known from the base spin: after it, still exit 2)
    text = TINY.replace('b = "blank"', 'b = "blank"\ns = "scatter"')
    text += ('\n[modes.free]\ncost = 1\nreels = "free"\n'
             '\n[features.fs]\nkind = "free_spins"\nreels = "free"\n'
             'trigger = { symbols = ["s"], counts = { 2 = 1 } }\n')
    text = text.replace('base = [["a", "b"], ["a", "b"]]',
                        'base = [["a", "b"], ["a", "b"]]\nfree = [["a", "s"], ["a", "s"]]')
    m = tmp_path / "feat.toml"
    m.write_text(text, encoding="utf-8")
    rc = main(["session", str(m), "--balance", "5", "--rounds", "3", "--stop-on-feature"])
    cap = capsys.readouterr()
    lines = cap.err.splitlines()
    assert rc == 2 and not cap.out and len(lines) == 1, cap.err
    assert "--stop-on-feature" in lines[0] and "bet mode 'base' can start no feature" in lines[0]
    # the mode whose reels hold the scatter starts it: no refusal, and the stop fires (two 's': 1/4)
    rc = main(["session", str(m), "--mode", "free", "--balance", "5", "--rounds", "1", "--stop-on-feature",
               "--format", "json"])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    assert F(json.loads(cap.out)["reasons"]["feature"]["exact"]) == F(1, 4)


def test_return_not_given_without_a_round_says_why(tmp_path, capsys):
    # a start below one round's price plays no round: no return, and no bet ladder blamed for it
    rc, cap = _run(tmp_path, capsys, "--balance", "1/2", "--rounds", "3")
    assert rc == 0, cap.err
    line = next(ln for ln in cap.out.splitlines() if ln.startswith("return experienced"))
    assert "bet ladder" not in line and "no session played a round" in line
    rc, cap = _run(tmp_path, capsys, "--balance", "3", "--bet", "2", "--bet-ladder", "1,2", "--rounds", "2")
    line = next(ln for ln in cap.out.splitlines() if ln.startswith("return experienced"))
    assert "bet ladder" in line


def test_too_fine_grid_names_the_amounts(tmp_path, capsys):
    # the tiny round moves the balance by -1 or +2: its own grid is 1; a cash-up amount of 1/999999937
    # makes the balance grid that fine, and the refusal says which amounts and which grid to use
    rc, cap = _run(tmp_path, capsys, "--balance", "1", "--rounds", "2", "--stop-cash-up", "1/999999937")
    assert rc == 2 and not cap.out and len(cap.err.splitlines()) == 1
    assert "the round's own grid 1;" in cap.err and "stop amounts" in cap.err
    assert cap.err.startswith(f"error: {tmp_path / 'tiny.toml'}: --stop-cash-up: ")
    # the start likewise
    rc, cap = _run(tmp_path, capsys, "--balance", "1/999999937", "--rounds", "2")
    assert rc == 2 and cap.err.startswith(f"error: {tmp_path / 'tiny.toml'}: --balance: "), cap.err


def test_table_says_the_setting_and_prints_a_point_interval_as_one_value(tmp_path, capsys):
    # certified chain of the hand-counted session (start 1, two rounds): its balance quantiles are certified
    # intervals: 0 below 0.75 (ruin 3/4), 5 from 0.95 (P(5) = 1/16) -- one grid point each, printed as one value;
    # at 0.75 itself the cumulative law meets the level, so within the error the quantile is 0 or 2
    rc, cap = _run(tmp_path, capsys, "--balance", "1", "--rounds", "2", "--method", "certified")
    assert rc == 0, cap.err
    lines = cap.out.splitlines()
    assert lines[0].split(None, 1) == ["session", "mode 'base': start 1, at most 2 rounds at bet 1 (a round costs 1); "
                                                  "stops: ruin"]
    q = {ln.split()[2]: ln.split(None, 3)[3] for ln in lines if ln.lstrip().startswith("balance quantile")}
    assert q["0.5"] == "0" and q["0.75"] == "[0, 2]" and q["0.99"] == "5", q
    # a bet ladder and the stops in force are said too; the price is the mode's cost times the bet
    rc, cap = _run(tmp_path, capsys, "--balance", "3", "--bet", "2", "--bet-ladder", "1,2", "--rounds", "2",
                   "--stop-cash-down", "2")
    assert "at bet 2 (a round costs 2), lowered to 1 as the balance falls; stops: cash down 2, ruin" in cap.out


def test_a_limit_of_the_solver_is_exit_1_naming_the_model_and_the_mode(capsys):
    # Lobstermania's bonus laws are too many to combine exactly: not the input's fault (exit 1), but the
    # line still says which model and which mode
    path = Path(__file__).resolve().parents[1] / "cases" / "lobstermania_850.toml"
    rc = main(["session", str(path), "--balance", "100", "--rounds", "10"])
    cap = capsys.readouterr()
    assert rc == 1 and not cap.out and len(cap.err.splitlines()) == 1
    assert cap.err.startswith(f"error: {path}: mode 'base': the round's law of this mode is not available")


def test_json_probability_ends_within_0_1(tmp_path, capsys):
    """--method certified (floats with a total-variation bound) from 10 with at most 5 rounds: ruin is
    impossible (the balance stays >= 5, by hand), so P(ruin) = 0 and P(ends by 'rounds') = 1. They
    were written 0 +/- 5.2e-15 and 1 +/- 1e-12, ends outside [0, 1]; every written probability's
    value -/+ error now lies in [0, 1] and holds the true value."""
    rc, cap = _run(tmp_path, capsys, "--balance", "10", "--rounds", "5", "--method", "certified", "--format", "json")
    assert rc == 0
    d = json.loads(cap.out)

    def ends(fig):
        e = F(repr(fig.get("error", 0.0)))
        return _frac(fig) - e, _frac(fig) + e

    figs = {"p_above_start": d["p_above_start"], "ruin": d["ruin"],
            **{f"reason {k}": v for k, v in d["reasons"].items()}}
    assert d["ruin"]["label"] == "bounded"  # (the case of the fix)
    for name, fig in figs.items():
        lo, hi = ends(fig)
        assert 0 <= lo <= hi <= 1, (name, fig)
    assert ends(d["ruin"])[0] == 0 and ends(d["reasons"]["rounds"])[1] == 1


@pytest.mark.parametrize("argv, where", [
    # a start beyond the simulator's 64-bit integers: an OverflowError traceback after the exact solve
    (["--balance", "1e30", "--rounds", "5", "--simulate", "10"], "--simulate"),
    # 10^7 sessions of 10^6 rounds (10^13 rounds played in Python): ran until killed, its memory growing
    (["--balance", "10", "--rounds", "1000000", "--simulate", "10000000"], "--simulate"),
])
def test_a_simulation_beyond_the_simulator_is_refused_before_the_solve(tmp_path, capsys, monkeypatch, argv, where):
    _no_solve(monkeypatch)
    rc, cap = _run(tmp_path, capsys, *argv)
    lines = cap.err.splitlines()
    assert rc == 2 and not cap.out and len(lines) == 1, cap.err
    assert lines[0].startswith("error: ") and "tiny.toml" in lines[0] and where in lines[0], lines[0]


def test_progress_reports_every_round_of_every_chain_and_changes_nothing(tmp_path, monkeypatch):
    """A long certified session showed nothing while it ran (10^5 rounds: minutes, as if hung). The chain
    now reports ``progress(t, N)`` before each round; the CLI's bar (a terminal only) reads it. The
    figures with and without the callback are the same, and every round of the chain is reported once."""
    from analytic.model.loader import load_model
    from analytic.solver.session import SessionRules, solve_session

    m = tmp_path / "tiny.toml"
    m.write_text(TINY, encoding="utf-8")
    game = load_model(m)
    rules = SessionRules(balance=F(10), rounds=40)
    seen = []
    a = solve_session(game, None, rules, method="certified", progress=lambda t, n: seen.append((t, n)))
    b = solve_session(game, None, rules, method="certified")
    assert a.to_json() == b.to_json()
    assert seen == [(t, 40) for t in range(40)]


def test_progress_bar_only_on_a_terminal(tmp_path, capsys, monkeypatch):
    """On a terminal (stderr a TTY) the bar object is handed to the chain; --no-progress or a pipe: none."""
    from analytic.cli import session as cli_session

    import analytic.solver.session as S

    got = []

    orig = S.solve_session

    def spy(*a, progress=None, **kw):
        got.append(progress)
        return orig(*a, progress=progress, **kw)

    monkeypatch.setattr(S, "solve_session", spy)
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert _run(tmp_path, capsys, "--balance", "3", "--rounds", "3")[0] == 0
    assert _run(tmp_path, capsys, "--balance", "3", "--rounds", "3", "--no-progress")[0] == 0
    assert isinstance(got[0], cli_session._ChainBar) and got[1] is None


def test_a_cash_down_stop_beyond_the_balance_is_refused_before_the_solve(tmp_path, capsys, monkeypatch):
    """Found by a new user: ``--balance 100 --stop-cash-down 200`` ran and printed ``ends by 'cash down'
    [0, ...]``.  A round is played only when the balance pays its price and wins are never negative, so
    the balance never falls below 0 and never by more than the start: such a stop can never end a
    session (as ``--stop-on-feature`` on a mode without features, refused so).  A stop equal to the
    start can fire (the tiny game from 1: a lost round leaves 0, a fall of 1)."""
    _no_solve(monkeypatch)
    rc, cap = _run(tmp_path, capsys, "--balance", "5", "--rounds", "3", "--stop-cash-down", "6")
    lines = cap.err.splitlines()
    assert rc == 2 and not cap.out and len(lines) == 1, cap.err
    assert "--stop-cash-down" in lines[0] and "can never end a session" in lines[0] and "tiny.toml" in lines[0]
    monkeypatch.undo()
    rc, cap = _run(tmp_path, capsys, "--balance", "1", "--rounds", "2", "--stop-cash-down", "1", "--format", "json")
    assert rc == 0, cap.err
    d = json.loads(cap.out)
    assert _frac(d["reasons"]["cash down"]) == F(3, 4)


def test_a_single_win_stop_above_the_win_cap_is_refused_before_the_solve(tmp_path, capsys, monkeypatch):
    """Found by a new user: a single-win stop of 100,000 on a game capped at 5,000 total bets ran and
    printed ``ends by 'single win' [0, ...]``: every round pays at most the cap times the bet, so such a
    stop can never end a session.  The tiny game capped at 2 total bets: 'a a' (1 in 4) pays 2, so at
    bet 1 a stop of 2 fires with probability 1/4 in one round, and one above 2 is refused."""
    capped = TINY + "\n[cap]\ntotal_bet_multiple = 2\n"
    m = tmp_path / "capped.toml"
    m.write_text(capped, encoding="utf-8")
    _no_solve(monkeypatch)
    rc = main(["session", str(m), "--balance", "5", "--rounds", "1", "--stop-single-win-above", "2.5"])
    cap = capsys.readouterr()
    lines = cap.err.splitlines()
    assert rc == 2 and not cap.out and len(lines) == 1, cap.err
    assert "--stop-single-win-above" in lines[0] and "can never end a session" in lines[0]
    monkeypatch.undo()
    rc = main(["session", str(m), "--balance", "5", "--rounds", "1", "--stop-single-win-above", "2",
               "--format", "json"])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    assert _frac(json.loads(cap.out)["reasons"]["single win"]) == F(1, 4)
