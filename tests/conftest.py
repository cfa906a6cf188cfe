"""Suite-wide settings.

The suite already runs in parallel (``pytest -n 2``); a solve's worker
processes are an argument (``Workspace(game, workers=...)``, default 1: in
the test process itself), given only where a test asks for workers
(``tests/features/engines/drawn_expanding/test_draw_cap_low.py`` does, and the committed Book
of Power sheet's fresh solve in ``tests/reports/test_committed.py``).

Tests marked ``early`` are collected first: the longest one (that fresh solve,
minutes) then starts at once on one xdist worker instead of last, when the
other worker would sit idle.
"""


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("early") is None)  # stable: order kept otherwise
