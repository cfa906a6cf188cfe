"""The certified chain's work estimate: a session far beyond minutes is refused before its chain runs
(exit 2, ``--rounds`` named), one just inside the limit runs (docs/sessions.md, "Refusals")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import analytic.solver.session as session_
from analytic.cli import main

#: 2 reels [a, b], one payline; "a a" pays 3 (total bet 1): a round wins 3 w.p. 1/4, else 0.
TINY = (Path(__file__).resolve().parents[1] / "data" / "two_reels.toml").read_text(encoding="utf-8")


def _model(tmp_path) -> Path:
    m = tmp_path / "tiny.toml"
    m.write_text(TINY, encoding="utf-8")
    return m


def _no_chain(monkeypatch):
    """Make any round of a chain fail loudly: a refusal must come before the first convolution."""
    def boom(*a, **k):
        raise AssertionError("the chain ran")

    monkeypatch.setattr(session_, "_conv", boom)
    monkeypatch.setattr(session_, "_conv_split", boom)


def test_hand_count():
    # law changes -1 (w.p. 3/4) and +2 on a grid of 1: 4 points from -1; mean 0, sd 0 given to count by hand:
    # round 1 spans [-1, 0] (2 points), round 2 [-2, 0] (3): direct sums 2*4 + 3*4, bookkeeping 8 * (2 + 3)
    assert session_.certified_work(2, -1, 4, 0.0, 0.0) == 2 * 4 + 3 * 4 + session_.POINT_UNIT * 5
    # the ruin barrier one point below the start holds the bottom: [-1, 0] both rounds
    assert session_.certified_work(2, -1, 4, 0.0, 0.0, low=-1) == 2 * (2 * 4 + session_.POINT_UNIT * 2)


@pytest.mark.parametrize("extra", [(), ("--method", "certified")])
def test_a_chain_of_hours_is_refused_before_it_runs(tmp_path, capsys, monkeypatch, extra):
    # 1,000,000 rounds from 1,000,000 bets: the live balance spreads over ~750,000 points (the old code ran
    # it for hours); refused on the estimate alone
    _no_chain(monkeypatch)
    rc = main(["session", str(_model(tmp_path)), "--balance", "1000000", "--rounds", "1000000", *extra])
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert len(err.splitlines()) == 1
    assert err.startswith(f"error: {tmp_path / 'tiny.toml'}: --rounds: ")
    assert "fewer rounds" in err and "cash-up or cash-down" in err and "coarser bet unit" in err


def test_a_cash_down_stop_bounds_the_chain(tmp_path, capsys, monkeypatch):
    # the same session with a cash-down stop of 50: the live balance spans at most 50 points below the start
    # and a few hundred above: well inside the limit (the estimate, not the chain, is what is checked here)
    seen = []
    real = session_.certified_work
    monkeypatch.setattr(session_, "certified_work", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    _no_chain(monkeypatch)
    with pytest.raises(AssertionError, match="the chain ran"):
        main(["session", str(_model(tmp_path)), "--balance", "1000000", "--rounds", "1000000",
              "--stop-cash-down", "50"])
    assert seen and seen[0] < session_.CERTIFIED_LIMIT


def _json(tmp_path, capsys, *argv):
    rc = main(["session", str(_model(tmp_path)), "--balance", "1000", "--rounds", "300", "--method", "certified",
               "--format", "json", *argv])
    cap = capsys.readouterr()
    return rc, cap


def test_just_inside_the_limit_runs_just_beyond_is_refused(tmp_path, capsys, monkeypatch):
    seen = []
    real = session_.certified_work
    monkeypatch.setattr(session_, "certified_work", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    monkeypatch.setattr(session_, "CERTIFIED_LIMIT", float("inf"))
    rc, cap = _json(tmp_path, capsys)
    assert rc == 0
    free = json.loads(cap.out)
    w = seen[-1]
    monkeypatch.setattr(session_, "CERTIFIED_LIMIT", w)  # just inside: the estimate equals the limit
    rc, cap = _json(tmp_path, capsys)
    assert rc == 0 and json.loads(cap.out) == free
    monkeypatch.setattr(session_, "CERTIFIED_LIMIT", w * (1 - 1e-9))  # just beyond
    _no_chain(monkeypatch)
    rc, cap = _json(tmp_path, capsys)
    assert rc == 2 and ": --rounds: " in cap.err
