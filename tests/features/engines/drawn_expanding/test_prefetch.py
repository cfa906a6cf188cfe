"""Book of Power: several modes solved together share work (the prefetch), and it changes no figure.

Oracle: the same modes solved one by one in a fresh cache state (the prefetch
only fills caches), plus call counts of the shared pieces.
"""

from __future__ import annotations

import pytest

from test_drawn_oracles import tiny


@pytest.mark.parametrize("workers", [1, 2])
def test_meanwhile_runs_once_and_changes_no_bound(workers):
    from analytic.features.engines.drawn_expanding.draw_bounds import regular_cap_bounds
    from analytic.workspace import Workspace

    game = tiny(40)
    plain = regular_cap_bounds(game, "free_spins", [2, 3], ws=Workspace(game, workers=workers))
    ws = Workspace(game, workers=workers)
    calls = []
    shared = regular_cap_bounds(game, "free_spins", [2, 3], meanwhile=lambda: calls.append(1), ws=ws)
    assert calls == [1]
    for n0 in (2, 3):
        for a, b in zip(plain[n0], shared[n0]):
            assert a.excess(0.0, 40.0) == b.excess(0.0, 40.0) and a.p_reach(5.0, 40.0) == b.p_reach(5.0, 40.0)
    calls.clear()
    regular_cap_bounds(game, "free_spins", [2, 3], meanwhile=lambda: calls.append(1), ws=ws)
    assert calls == []  # nothing left to solve in this workspace: no pool, nothing meanwhile


def _same_figures(a, b):
    for key in ("capped_rtp", "p_reach_cap"):
        assert (a.extra[key].value, a.extra[key].error) == (b.extra[key].value, b.extra[key].error)
    assert a.rtp.value == b.rtp.value and a.hit_frequency == b.hit_frequency
    assert a.second_moment == b.second_moment


@pytest.mark.parametrize("precision", ["standard", "quick"])
def test_solve_rounds_prefetches_and_changes_no_figure(monkeypatch, precision):
    """The prefetch runs the regular cap bounds beside the work that does not wait for them: with the
    Power law (this process keeping a core) when a mode needs it, else the moments and zero-win laws
    alone (the pool on every core).  Oracle: each mode solved alone in a fresh workspace, no prefetch."""
    from analytic.features.engines.drawn_expanding import draw_bounds as rb
    from analytic.solver.round import solve_round, solve_rounds
    from analytic.workspace import Workspace

    game = tiny(40)
    modes = ["buy_free_spins", "buy_power_free_spins"]
    one_by_one = {m: solve_round(game, m, precision=precision) for m in modes}  # each in a fresh workspace
    seen = []
    real = rb.regular_cap_bounds_together

    def spy(tasks, meanwhile=None, **kw):
        seen.append((meanwhile is not None, kw.get("meanwhile_core", True)))
        return real(tasks, meanwhile=meanwhile, **kw)

    monkeypatch.setattr(rb, "regular_cap_bounds_together", spy)
    together = solve_rounds(game, modes, workspace=Workspace(game, workers=2, precision=precision))
    assert seen[0] == (True, True)  # the first call came from the prefetch, with the Power law meanwhile
    for m, b in zip(modes, together):
        _same_figures(one_by_one[m], b)
    seen.clear()
    alone = solve_rounds(game, ["buy_free_spins"], workspace=Workspace(game, workers=2, precision=precision))[0]
    assert seen[0] == (True, False)  # only the regular bounds needed: the moments meanwhile, the pool on every core
    _same_figures(one_by_one["buy_free_spins"], alone)
    seen.clear()
    solve_rounds(game, ["buy_power_free_spins"])  # no regular feature played: no regular bounds at all
    assert seen == []
    from analytic.features.engines.drawn_expanding.engine import prefetch_modes

    asked = []
    monkeypatch.setattr("analytic.features.result.ROUND_PREFETCH",
                        {"drawn_expanding": lambda g, ms, ws: (asked.append(ms), prefetch_modes(g, ms, ws=ws))})
    solve_rounds(game, ["buy_power_free_spins"])  # (a single mode may need both, as the Power Bet does)
    assert asked == [["buy_power_free_spins"]]


def test_two_games_in_one_pool_solve_as_each_alone():
    """The literal reading's two bounding games in one pool: the same bounds as each game's own solve."""
    from analytic.features.engines.drawn_expanding.draw_bounds import (JOB_SECONDS, regular_cap_bounds,
                                                                       regular_cap_bounds_together)
    from analytic.features.engines.drawn_expanding.line_sets import bounding_game
    from analytic.workspace import Workspace

    game = tiny(40, literal=True)
    up_game, low_game = bounding_game(game, "free_spins", "upper"), bounding_game(game, "free_spins", "lower")
    alone_up = regular_cap_bounds(up_game, "free_spins", [2, 3], ws=Workspace(up_game), kinds=("upper",))
    alone_low = regular_cap_bounds(low_game, "free_spins", [2, 3], ws=Workspace(low_game), kinds=("lower",))
    wu, wl = Workspace(up_game, workers=2), Workspace(low_game, workers=2)
    calls = []
    up, low = regular_cap_bounds_together([("free_spins", [2, 3], wu, ("upper",)), ("free_spins", [3, 2], wl, ("lower",))],
                                          meanwhile=lambda: calls.append(1))
    assert calls == [1]
    for n0 in (2, 3):
        assert up[n0][1] is None and low[n0][0] is None
        a, b = alone_up[n0][0], up[n0][0]
        assert a.excess(0.0, 40.0) == b.excess(0.0, 40.0) and a.p_reach(5.0, 40.0) == b.p_reach(5.0, 40.0)
        a, b = alone_low[n0][1], low[n0][1]
        assert a.excess(0.0, 40.0) == b.excess(0.0, 40.0) and a.p_reach(5.0, 40.0) == b.p_reach(5.0, 40.0)
        assert 0 <= b.excess(0.0, 40.0) <= up[n0][0].excess(0.0, 40.0)  # lower bound of one game below the other's upper
    assert {k[0] for k in wu.get(JOB_SECONDS)} == {"upper"} and {k[0] for k in wl.get(JOB_SECONDS)} == {"lower"}


@pytest.mark.parametrize("slow_meanwhile", [False, True])
def test_jobs_shared_between_this_process_and_the_worker_solve_as_alone(tmp_path, monkeypatch, slow_meanwhile):
    """This process takes the jobs no worker holds once its own work is done; the worker builds the rows.

    Oracle: each bounding game's bounds solved alone in one process (no pool); which
    process solved which job is logged (the parent's and the worker's process ids).
    """
    import os
    import time

    from analytic.features.engines.drawn_expanding import draw_bounds as db
    from analytic.features.engines.drawn_expanding.draw_cap import line_expansion_rows, level_runs, precision_preset
    from analytic.features.engines.drawn_expanding.line_sets import bounding_game
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats
    from analytic.workspace import Workspace

    game = tiny(40, literal=True)
    up_game, low_game = bounding_game(game, "free_spins", "upper"), bounding_game(game, "free_spins", "lower")
    alone_up = db.regular_cap_bounds(up_game, "free_spins", [2, 3], ws=Workspace(up_game), kinds=("upper",))
    alone_low = db.regular_cap_bounds(low_game, "free_spins", [2, 3], ws=Workspace(low_game), kinds=("lower",))
    log = tmp_path / "solves.log"
    real = db._solve

    def logged(job, ws):  # (inherited by the worker through fork)
        with open(log, "a") as fh:
            fh.write(f"{os.getpid()} {job[0]}\n")
        return real(job, ws)

    monkeypatch.setattr(db, "_solve", logged)
    wu, wl = Workspace(up_game, workers=2), Workspace(low_game, workers=2)
    up, low = db.regular_cap_bounds_together([("free_spins", [2, 3], wu, ("upper",)),
                                              ("free_spins", [2, 3], wl, ("lower",))],
                                             meanwhile=(lambda: time.sleep(3)) if slow_meanwhile else (lambda: None))
    for n0 in (2, 3):
        a, b = alone_up[n0][0], up[n0][0]
        assert a.excess(0.0, 40.0) == b.excess(0.0, 40.0) and a.p_reach(5.0, 40.0) == b.p_reach(5.0, 40.0)
        a, b = alone_low[n0][1], low[n0][1]
        assert a.excess(0.0, 40.0) == b.excess(0.0, 40.0) and a.p_reach(5.0, 40.0) == b.p_reach(5.0, 40.0)
    solves = [line.split() for line in log.read_text().splitlines()]
    here = [kind for pid, kind in solves if int(pid) == os.getpid()]
    there = [kind for pid, kind in solves if int(pid) != os.getpid()]
    assert there[0] == "rows"  # the worker builds the rows first (one worker)
    runs = len(level_runs(precision_preset(wu.precision)[2]))
    assert sorted(here + there) == sorted(["rows"] * 2 + ["upper"] * runs + ["lower"] * 2)  # each job once
    if not slow_meanwhile:
        assert here  # free at once: this process took jobs from the back
    # the rows came back to this process, the same as its own build
    for w in (wu, wl):
        mine = spin_stats(w.game, "free_spins", w)._line_expansion_rows
        fresh = line_expansion_rows(spin_stats(w.game, "free_spins", Workspace(w.game)))
        assert all(x.tobytes() == y.tobytes() for x, y in zip(mine, fresh))


def _tiny_text(cap: str, extra_mode: str = "") -> str:
    from test_drawn_oracles import TINY, with_reading

    text = TINY.replace("total_bet_multiple = CAP", cap)
    if extra_mode:
        text = text.replace("[modes.buy_free_spins]", extra_mode + "\n[modes.buy_free_spins]")
    return with_reading(text, False)


def test_a_mode_gambling_every_regular_trigger_prefetches_no_regular_bound(monkeypatch):
    """Gamble policy "always": every regular trigger becomes Power Free Spins or nothing, so the mode's
    solve bounds no regular cut; the prefetch must not solve those bounds either.  Found in review: it
    ran the five regular jobs (in the worker pool) for a mode that reads none of them.  Oracle: the jobs
    the mode's own solve runs in a fresh workspace (none), counted by a spy on the job runner."""
    from analytic.features.engines.drawn_expanding import draw_bounds as rb
    from analytic.model import load_model_text
    from analytic.solver.round import solve_round, solve_rounds
    from analytic.workspace import Workspace

    game = load_model_text(_tiny_text("total_bet_multiple = 40", '''[modes.gambled]
cost = 2
reels = "base"
gamble = { feature = "free_spins", into = "power_free_spins", policy = "always", win_probability = "0.5", count = "same" }
'''), path="tiny_gamble.toml")
    jobs = []
    real = rb._solve
    monkeypatch.setattr(rb, "_solve", lambda job, ws: (jobs.append(job[0]), real(job, ws))[1])
    alone = solve_round(game, "gambled", workspace=Workspace(game, workers=1))
    assert jobs == []  # the oracle: the mode alone bounds no regular cut
    together = solve_rounds(game, ["gambled"], workspace=Workspace(game, workers=1))[0]
    assert jobs == []
    _same_figures(alone, together)
    solve_rounds(game, ["gambled", "base"], workspace=Workspace(game, workers=1))  # base plays them: prefetched
    assert "upper" in jobs


@pytest.mark.parametrize("mode", ["base", "buy_free_spins", "all"])
def test_a_currency_cap_alone_is_refused_as_each_mode_alone(tmp_path, capsys, mode):
    """A cap in currency only (no ``total_bet_multiple``): the round solver refuses the capped mode
    (the feature has no law below the cap).  Found in review: the prefetch read the missing total-bet
    cap, ``float(None)``, a TypeError traceback (exit 1) where ``solve_round`` alone gives the one-line
    refusal (exit 2).  Oracle: the ModelError of the mode solved alone, without the prefetch."""
    from analytic.cli import main
    from analytic.errors import ModelError
    from analytic.model import load_model_text
    from analytic.solver.round import solve_round

    text = _tiny_text('currency = 1000\nstakes = ["1", "10"]')
    path = tmp_path / "tiny_currency.toml"
    path.write_text(text)
    game = load_model_text(text, path=str(path))
    with pytest.raises(ModelError) as alone:
        solve_round(game, "base" if mode == "all" else mode)
    capsys.readouterr()
    assert main(["solve", str(path), "--mode", mode, "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "cap.currency" in err
    assert str(alone.value).split(": ", 1)[1] in err


def test_solve_rounds_reads_none_as_the_default_mode_as_solve_round_does():
    """``solve_round(game, None)`` solves the default mode; found in review: ``solve_rounds(game, [None])``
    raised KeyError in the prefetch (``game.modes[None]``).  Oracle: the default mode solved alone."""
    from analytic.solver.round import solve_round, solve_rounds

    game = tiny(40)
    (got,) = solve_rounds(game, [None])
    alone = solve_round(game, game.default_mode.name)
    assert got.mode == alone.mode
    _same_figures(alone, got)
