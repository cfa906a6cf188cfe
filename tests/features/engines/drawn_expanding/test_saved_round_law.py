"""Saved round laws of the tiny Book of Power game (cap 12): a certified grid law and bracketed modes.

Mode ``buy_power_free_spins`` has a certified law on the cap's grid (kind ``grid``); ``base`` and
``buy_free_spins`` have no law, only bounds of ``P(W >= x)``: their sessions are bracketed between
the chains of two laws (:mod:`analytic.solver.session_bounds`).  The oracle: the chain run straight
on the solved round as the session solver ran it before laws could be saved (``session_law`` on
``round_law(r)``; ``bounded_session`` on ``interval_laws(r)`` with the capped mean and the cap),
against the saved law read back from its JSON text.  Every figure and array equal, bit for bit.
Then the command line: ``solve --save-law`` and ``session --round-law`` print what ``session``
prints with its own solve, and a file whose bracketing law is tampered with is refused.
"""

from __future__ import annotations

import json
from fractions import Fraction as F

import pytest

from test_drawn_oracles import TINY, with_reading
from test_round_tail import _rounds

from analytic.cli import main
from analytic.solver.cap import applied_cap
from analytic.solver.distribution import round_law
from analytic.figures import Figure
from analytic.solver.round_law_file import session_from_law
from analytic.solver.session import SessionRules, _capped_mean, figures, session_law
from analytic.solver.session_bounds import bounded_session, interval_laws
from tests.solver.test_round_law_file import _through_file, same

SHA = "0" * 64
STOPS = [
    {},
    {"stop_on_feature": True},
    {"stop_on_any_win": True, "stop_on_feature": True, "stop_single_win_above": F(20), "stop_cash_up": F(30),
     "stop_cash_down": F(15)},
    {"stop_single_win_above": F(10), "stop_cash_down": F(8)},
]


@pytest.mark.parametrize("stops", STOPS)
@pytest.mark.parametrize("mode", ["base", "buy_free_spins"])
def test_bracketed_sessions_from_the_saved_laws(mode, stops):
    r = _rounds()[mode]
    game = r.game
    back = _through_file(game, r, mode)
    assert back.kind == "bracketed"
    rules = SessionRules(balance=F(40), rounds=80, **stops)
    want = bounded_session(rules, interval_laws(r), r.cost, _capped_mean(r), cap=applied_cap(r),
                           method="certified")
    got = session_from_law(game, back, rules)
    assert got.method == "bounded"
    same(got, want)


@pytest.mark.parametrize("stops", STOPS)
def test_certified_grid_law_sessions_from_the_saved_law(stops):
    from test_drawn_oracles import tiny
    from analytic.solver.round import solve_round
    from analytic.solver.session import split_round_law

    game = tiny(12)
    mode = "buy_power_free_spins"
    r = solve_round(game, mode)
    back = _through_file(game, r, mode)
    law = round_law(r)
    assert back.kind == "law" and law.method == "grid" and back.error == law.error > 0
    rules = SessionRules(balance=F(400), rounds=30, **stops)
    if rules.stop_on_feature:
        nof, feat, e = split_round_law(r, law)
        err = law.error + e
    else:
        nof, feat, err = dict(law.points), {}, law.error
    # the chain steps with the capped round's mean (the law's): the round solver's capped RTP times the
    # price (its mean_win is the uncapped round's)
    c = r.extra["capped_rtp"]
    mean = Figure(c.value * r.cost, c.label, c.error * r.cost)
    assert mean.value < r.mean_win.value  # the cap binds on this game
    want = figures(session_law(rules, nof, feat, r.cost, law_error=err, mean_win=mean))
    same(session_from_law(game, back, rules), want)


def test_command_line_round_trip_and_a_tampered_bracket(tmp_path, capsys):
    model = tmp_path / "bop.toml"
    model.write_text(with_reading(TINY.replace("CAP", "12"), False), encoding="utf-8")
    law = tmp_path / "base.json"
    assert main(["solve", str(model), "--mode", "base", "--save-law", str(law)]) == 0
    capsys.readouterr()
    argv = ["session", str(model), "--mode", "base", "--balance", "30", "--rounds", "60", "--stop-on-feature",
            "--stop-cash-up", "20", "--format", "json"]
    assert main(argv) == 0
    fresh = capsys.readouterr().out
    assert main(argv + ["--round-law", str(law)]) == 0
    assert capsys.readouterr().out == fresh
    d = json.loads(law.read_text())
    assert d["kind"] == "bracketed" and d["cap"] == "12/1"
    d["interval_laws"]["hi"][-1][1] = "1/2"  # the upper law no longer a probability law with the rest
    law.write_text(json.dumps(d))
    assert main(argv + ["--round-law", str(law)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {law}: interval_laws.hi"), err


@pytest.mark.parametrize("mode", ["buy_free_spins", "buy_power_free_spins"])
def test_a_long_buy_session_is_the_par_sheets(mode, monkeypatch):
    """A feature buy's session beyond COARSE_ROUNDS (lowered to 20) from 100 buys' price, no stop but
    ruin: ``analytic session``'s path (the saved law, method auto) runs the par sheet's coarse chains
    (:func:`summary_results`' longest horizon): the same figures and arrays, bit for bit -- a bracketed
    round (two bracketing laws rounded) and a certified grid law (one law rounded in float64)."""
    import analytic.solver.session_bounds as sb
    from test_drawn_oracles import tiny
    from analytic.solver.round import solve_round
    from analytic.solver.session import summary_results

    monkeypatch.setattr(sb, "COARSE_ROUNDS", 20)
    game = tiny(12)
    r = solve_round(game, mode)
    back = _through_file(game, r, mode)
    assert back.kind == ("bracketed" if mode == "buy_free_spins" else "law")
    start = 100 * r.cost
    want = summary_results(game, mode, result=r, rounds=(10, 40), balance=start, autoplay={}).horizons[40]
    got = session_from_law(game, back, SessionRules(balance=start, rounds=40))
    assert "coarse" in want.bracket and got.bracket["coarse"] == want.bracket["coarse"]
    same(got, want)
    # at most COARSE_ROUNDS rounds: the fine chain, as the sheet's shorter horizons
    assert "coarse" not in session_from_law(game, back, SessionRules(balance=start, rounds=20)).bracket
