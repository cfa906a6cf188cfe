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


def test_solve_rounds_prefetches_when_the_modes_need_both_laws(monkeypatch):
    from analytic.features.engines.drawn_expanding import draw_bounds as rb
    from analytic.solver.round import solve_round, solve_rounds
    from analytic.workspace import Workspace

    game = tiny(40)
    modes = ["buy_free_spins", "buy_power_free_spins"]
    one_by_one = [solve_round(game, m) for m in modes]  # each in a fresh workspace
    seen = []
    real = rb.regular_cap_bounds

    def spy(*a, meanwhile=None, **kw):
        seen.append(meanwhile is not None)
        return real(*a, meanwhile=meanwhile, **kw)

    monkeypatch.setattr(rb, "regular_cap_bounds", spy)
    together = solve_rounds(game, modes, workspace=Workspace(game, workers=2))
    assert seen and seen[0]  # the first call came from the prefetch, with the Power law meanwhile
    for a, b in zip(one_by_one, together):
        for key in ("capped_rtp", "p_reach_cap"):
            assert (a.extra[key].value, a.extra[key].error) == (b.extra[key].value, b.extra[key].error)
        assert a.rtp.value == b.rtp.value
    seen.clear()
    solve_rounds(game, ["buy_free_spins"])  # one mode needing only the regular bounds: no prefetch
    assert seen == [False]
    from analytic.features.engines.drawn_expanding.engine import prefetch_modes

    asked = []
    monkeypatch.setattr("analytic.features.result.ROUND_PREFETCH",
                        {"drawn_expanding": lambda g, ms, ws: (asked.append(ms), prefetch_modes(g, ms, ws=ws))})
    solve_rounds(game, ["buy_power_free_spins"])  # (a single mode may need both, as the Power Bet does)
    assert asked == [["buy_power_free_spins"]]
