"""The package's imports run one way: model <- engines <- solver <- reports <- CLI.

Layers, lowest first (a module may import its own layer and those below):

0. ``analytic.errors``, ``analytic.limits``, ``analytic.figures``, ``analytic.workspace``, ``analytic.memory``
1. ``analytic.model`` -- loading, the mechanics' declarations
2. ``analytic.engine`` -- the line walk and the base game
3. ``analytic.features`` -- the feature engines, state graphs, laws
4. ``analytic.solver``, ``analytic.simulator`` -- the round; the simulator plays
   the same declarations with its own evaluation code
5. ``analytic.tuner``
6. ``analytic.reports``
7. ``analytic.cli``
8. ``analytic.bench`` -- benchmark commands (may use anything)

The import graph is read with grimp (every ``import`` statement, also the
ones inside functions), so a deferred import cannot hide a cycle.
"""

from __future__ import annotations

import grimp

LAYERS = {
    "analytic.errors": 0, "analytic.limits": 0, "analytic.figures": 0, "analytic.workspace": 0,
    "analytic.memory": 0,
    "analytic.model": 1,
    "analytic.engine": 2,
    "analytic.features": 3,
    "analytic.solver": 4, "analytic.simulator": 4,
    "analytic.tuner": 5,
    "analytic.reports": 6,
    "analytic.cli": 7, "analytic.__main__": 7,
    "analytic.bench": 8,
}


def _layer(module: str) -> int | None:
    return LAYERS.get(".".join(module.split(".")[:2]))


def test_every_top_level_module_has_a_layer():
    graph = grimp.build_graph("analytic", cache_dir=None)
    tops = {".".join(m.split(".")[:2]) for m in graph.modules if m != "analytic"}
    assert tops <= set(LAYERS), sorted(tops - set(LAYERS))


def test_imports_point_down_only():
    graph = grimp.build_graph("analytic", cache_dir=None)
    upward = []
    for m in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(m):
            a, b = _layer(m), _layer(imported)
            if a is not None and b is not None and b > a:
                upward.append(f"{m} -> {imported}")
    assert not upward, "imports against the layers:\n" + "\n".join(upward)


def test_the_check_sees_deferred_imports(tmp_path, monkeypatch):
    """The check itself: an upward import inside a function is found (so the test can fail)."""
    pkg = tmp_path / "layercheck"
    (pkg / "model").mkdir(parents=True)
    (pkg / "cli").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model" / "__init__.py").write_text("")
    (pkg / "cli" / "__init__.py").write_text("")
    (pkg / "model" / "loader.py").write_text("def f():\n    from layercheck.cli import main\n")
    (pkg / "cli" / "main.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("layercheck", cache_dir=None)
    assert "layercheck.cli.main" in graph.find_modules_directly_imported_by("layercheck.model.loader")
