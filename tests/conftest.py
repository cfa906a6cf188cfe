"""Suite-wide settings.

The suite already runs in parallel (``pytest -n 2``); a solve's worker
processes are an argument (``Workspace(game, workers=...)``, default 1: in
the test process itself), given only where a test asks for workers
(``tests/features/engines/drawn_expanding/test_draw_cap_low.py`` does, and the committed Book
of Power sheet's fresh solve in ``tests/reports/test_committed.py``).

Tests marked ``early`` are collected first: the longest one (that fresh solve,
minutes) then starts at once on one xdist worker instead of last, when the
other worker would sit idle.

The par sheet's session section (``analytic.reports.model.session_section``)
runs a 10,000-round chain per bet mode (seconds to a minute each on the
shipped models, about 20 s on the toys whose RTP is above 100 %): every test
not marked ``full_sessions`` shortens its horizons to 10, 20 and 50 rounds
(the section's own tests pass their setting; the committed sheets' check keeps
the real one).
"""

import pytest


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("early") is None)  # stable: order kept otherwise


@pytest.fixture(autouse=True)
def _short_session_horizons(request, monkeypatch):
    if request.node.get_closest_marker("full_sessions") is not None:
        return
    import analytic.solver.session as session

    monkeypatch.setitem(session.DEFAULT_SUMMARY, "rounds", (10, 20, 50))
