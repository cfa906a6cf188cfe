"""The exported state graphs of engines revealed_wild_reels, gift_pick, pick_bonus and drawn_expanding.

Each graph is solved here on its own, as an absorbing chain (Kemeny and Snell:
with ``Q`` the transient block, the expected accumulated win from a state is
``m1 = r1 + Q m1``, its second moment ``m2 = r2 + 2 E[X m1(next)] + Q m2``,
the expected spins ``s = 1 + Q s``), by Gauss-Jordan elimination in
Fractions written in this file (not :mod:`analytic.features.graph.chain`),
from the graph's own start distribution.  The figures are compared with

* hand-written brute force of the tiny models of the engines' tests
  (every stop combination and multiplier draw, every gift subset, every
  pick sequence: tests/features/engines/test_revealed_wild_reels.py,
  test_revealed_wild_reels_retrigger.py, test_gift_pick.py, and a hand count
  of the tiny pick bonus), and
* the solver's own figures (``solve_feature`` of each engine).

A retriggering graph is cut; its solve is compared (floats) with the
branching oracle's exact figures once the cut is far enough that the mass
reaching it is negligible, and stays below them.  A ladder's graph
(drawn_expanding) is checked edge by edge against an enumeration of the
tiny game's windows (tests/features/engines/drawn_expanding/test_drawn_oracles.py's
helpers), and its solve (scipy's sparse LU here) against the solver's
certified interval for the same cut.
"""

from __future__ import annotations

import re
from fractions import Fraction as F
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from analytic.cli import main
from analytic.features.engines import gift_pick, pick_bonus, revealed_wild_reels
from analytic.features.graph.export import feature_graph
from analytic.model import load_model_text
from tests.features.engines import test_gift_pick as gift_oracle
from tests.features.engines import test_revealed_wild_reels as rwr_oracle
from tests.features.engines import test_revealed_wild_reels_retrigger as retrig_oracle

TINY = (Path(__file__).resolve().parents[2] / "data" / "tiny_free_spins.toml.in").read_text()


def _gauss_solve(a: list[list[F]], b: list[list[F]]) -> list[list[F]]:
    """Solve ``a x = b`` (square ``a``, several right-hand sides) by Gauss-Jordan in Fractions."""
    n, k = len(a), len(b[0])
    m = [list(a[i]) + list(b[i]) for i in range(n)]
    for c in range(n):
        piv = next(r for r in range(c, n) if m[r][c] != 0)
        m[c], m[piv] = m[piv], m[c]
        d = m[c][c]
        m[c] = [x / d for x in m[c]]
        for r in range(n):
            if r != c and m[r][c] != 0:
                f = m[r][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [row[n:n + k] for row in m]


def solve_graph(g: nx.DiGraph, exact: bool = True) -> dict:
    """Mean, second moment and expected spins (transient steps) of the accumulated win, and end
    probabilities, from the graph's start distribution; exact Fractions read from the attributes
    (``exact=False``: the same linear systems in floats, numpy's dense solve)."""
    tr = [n for n, d in g.nodes(data=True) if d["node_kind"] == "transient"]
    idx = {n: i for i, n in enumerate(tr)}
    ends = sorted(n for n in g if n not in idx)
    size = len(tr)
    num = F if exact else float
    if exact:
        a = [[F(int(i == j)) for j in range(size)] for i in range(size)]
        b = [[F(0)] * (2 + len(ends)) for _ in range(size)]
        c = [[F(0)] for _ in range(size)]
    else:
        a, b, c = np.identity(size), np.zeros((size, 2 + len(ends))), np.zeros((size, 1))
    edges = []
    for u in tr:
        i = idx[u]
        b[i][1] = num(1)
        for _, v, d in g.out_edges(u, data=True):
            p, e1, e2 = (num(F(d[k])) for k in ("probability", "mean_win", "second_moment_win"))
            edges.append((i, v, p, e1, e2))
            b[i][0] += p * e1
            if v in idx:
                a[i][idx[v]] -= p
            else:
                b[i][2 + ends.index(v)] += p
    x = _gauss_solve(a, b) if exact else np.linalg.solve(a, b)
    for i, v, p, e1, e2 in edges:
        c[i][0] += p * (e2 + 2 * e1 * (x[idx[v]][0] if v in idx else 0))
    m2 = _gauss_solve(a, c) if exact else np.linalg.solve(a, c)
    start = {n: F(d["start_probability"]) for n, d in g.nodes(data=True) if d["start_probability"] != "0"}
    assert sum(start.values()) == 1
    mix = lambda f: sum((num(p) * f(idx[n]) for n, p in start.items()), num(0))  # noqa: E731
    return {"mean": mix(lambda i: x[i][0]), "m2": mix(lambda i: m2[i][0]), "spins": mix(lambda i: x[i][1]),
            "ends": {e: mix(lambda i, j=j: x[i][2 + j]) for j, e in enumerate(ends)}}


def assert_absorbing(g: nx.DiGraph) -> None:
    """Probabilities out of each transient node sum to 1 exactly; ends have no out-edges."""
    for n, d in g.nodes(data=True):
        total = sum((F(e["probability"]) for _, _, e in g.out_edges(n, data=True)), F(0))
        assert total == (1 if d["node_kind"] == "transient" else 0), n
        for _, _, e in g.out_edges(n, data=True):
            assert float(e["probability_float"]) == float(F(e["probability"]))


def roundtrip(g: nx.DiGraph) -> nx.DiGraph:
    """Through GraphML text (what the CLI writes) and back."""
    return nx.parse_graphml("\n".join(nx.generate_graphml(g)))


# --------------------------------------------------------------------------- revealed_wild_reels


def test_revealed_wild_reels_graph_against_brute_force_and_solver():
    g = rwr_oracle.toy()
    graph = roundtrip(feature_graph(g, "fs", 2))
    assert_absorbing(graph)
    assert graph.graph["engine"] == "revealed_wild_reels" and not graph.graph["truncated"]
    # drawn a (weight 2) or b (weight 1), 3 spins each, no retriggers: 2 x 3 states and the end
    assert sorted(n for n in graph if "|" in n) == ["a|1", "a|2", "a|3", "b|1", "b|2", "b|3"]
    assert F(graph.nodes["a|3"]["start_probability"]) == F(2, 3)
    n = 3
    want1 = want2 = F(0)
    for s, w in (("a", 2), ("b", 1)):
        law = rwr_oracle.brute_spin(s, "pays")
        tot = sum(law.values())
        e1 = F(sum(x * c for x, c in law.items()), tot)
        e2 = F(sum(x * x * c for x, c in law.items()), tot)
        assert F(graph.edges[f"{s}|3", f"{s}|2"]["mean_win"]) == e1  # total bet 1 line bet
        want1 += F(w, 3) * n * e1
        want2 += F(w, 3) * (n * e2 + n * (n - 1) * e1 * e1)
    got = solve_graph(graph)
    assert (got["mean"], got["m2"], got["spins"]) == (want1, want2, 3)
    fr = revealed_wild_reels.solve_feature(g, "fs", 2, "base")
    assert (got["mean"], got["m2"], got["spins"]) == (fr.mean.value, fr.second_moment.value,
                                                      fr.expected_spins.value)


@pytest.mark.parametrize("count", ["landed", "reels"])
def test_revealed_wild_reels_retrigger_graph(count):
    g = retrig_oracle.toy(count)
    want = retrig_oracle.branching_oracle(count, g.total_bet)
    fr = revealed_wild_reels.solve_feature(g, "fs", 2, "buy")
    assert (fr.mean.value, fr.second_moment.value) == (want["mean"], want["m2"])
    # the default cut (3 spins + the top award 2): retrigger edges k -> k - 1 + award, exact from brute force
    small = roundtrip(feature_graph(g, "fs", 2))
    assert_absorbing(small)
    assert small.graph["max_spins_left"] == 5
    seen = set()
    for s in ("a", "b"):
        law = retrig_oracle.spin_law(s, count)
        tot = sum(law.values())
        p_award = {a: F(sum(c for (b, _), c in law.items() if b == a), tot) for a in (0, 1, 2)}
        assert p_award[1] > 0
        seen |= {a for a, p in p_award.items() if p}
        for a in (0, 1, 2):
            e = small.get_edge_data(f"{s}|3", f"{s}|{2 + a}")
            assert (F(e["probability"]) if e else 0) == p_award[a]
        if p_award[2]:
            assert F(small.edges[f"{s}|5", f"{s}|5"]["probability"]) == p_award[1]
            assert F(small.edges[f"{s}|5", "end:truncated"]["probability"]) == p_award[2]  # 6 left > 5
        else:  # never more spins left than at the start: the unreachable states are left out
            assert {f"{s}|4", f"{s}|5", "end:truncated"}.isdisjoint(small)
    assert small.graph["truncated"] == (2 in seen)
    assert seen == ({0, 1, 2} if count == "landed" else {0, 1})  # 'reels': at most 2 Book reels
    got = solve_graph(small)
    if small.graph["truncated"]:
        assert got["mean"] < want["mean"] and got["spins"] < want["spins"]
    else:  # awards of 1 at most: the chain never grows, it is whole, and its exact solve is the oracle's
        assert (got["mean"], got["m2"], got["spins"]) == (want["mean"], want["m2"], want["spins"])
    # a far cut: the truncated mass is negligible and the chain's figures are the closed forms'
    big = roundtrip(feature_graph(g, "fs", 2, max_spins_left=60))
    assert_absorbing(big)
    got = solve_graph(big, exact=False)
    assert got["ends"].get("end:truncated", 0) < 1e-12
    assert float(got["mean"]) == pytest.approx(float(want["mean"]), rel=1e-9)
    assert float(got["m2"]) == pytest.approx(float(want["m2"]), rel=1e-9)
    assert float(got["spins"]) == pytest.approx(float(want["spins"]), rel=1e-9)


# --------------------------------------------------------------------------- gift_pick


@pytest.mark.parametrize("picks,listed", [(2, "2 = 2, 3 = 2"), (3, "2 = 2, 3 = 2"), (3, "2 = 2")])
def test_gift_pick_graph_against_brute_force_and_solver(picks, listed):
    """``listed`` the trigger's counts: with ``2 = 2`` only, three scatters start the award of two (the
    largest listed count not above three) and pick three gifts, as the solver reads them."""
    text = gift_oracle.TOY.replace("counts = { 2 = 2, 3 = 2 }", f"counts = {{ {listed} }}")
    assert text.count(f"counts = {{ {listed} }}") == 1
    g = load_model_text(text, path="toy_gift_pick.toml")
    graph = roundtrip(feature_graph(g, "fs", picks))
    assert_absorbing(graph)
    classes = gift_oracle.direct_classes(g.features["fs"].params["gifts"], picks)
    starts = {n: F(d["start_probability"]) for n, d in graph.nodes(data=True) if d["start_probability"] != "0"}
    assert sorted(starts.values()) == sorted(p for p in classes.values())
    want1 = want2 = F(0)
    for (extra, mult, reels, syms, _), p in classes.items():
        law = gift_oracle.brute_spin(reels, syms)
        tot = sum(law.values())
        e1 = F(sum(x * c for x, c in law.items()), tot)
        e2 = F(sum(x * x * c for x, c in law.items()), tot)
        n = 2 + extra
        want1 += p * mult * n * e1
        want2 += p * mult**2 * (n * e2 + n * (n - 1) * e1 * e1)
        # the class's start node: its spins, multiplier and effects as attributes
        (node,) = [u for u, d in graph.nodes(data=True) if d["node_kind"] == "transient" and d["spins_left"] == n
                   and d["multiplier"] == mult and d["extra_spins"] == extra
                   and d["wild_reels"] == ",".join(map(str, reels)) and d["wild_symbols"] == ",".join(syms)]
        assert starts[node] == p
        (edge,) = graph.out_edges(node, data=True)
        assert F(edge[2]["mean_win"]) == mult * e1 and F(edge[2]["second_moment_win"]) == mult**2 * e2
    got = solve_graph(graph)
    assert (got["mean"], got["m2"]) == (want1, want2)
    fr = gift_pick.solve_feature(g, "fs", picks, "base")
    assert (got["mean"], got["m2"], got["spins"]) == (fr.mean.value, fr.second_moment.value,
                                                      fr.expected_spins.value)


# --------------------------------------------------------------------------- pick_bonus


def test_pick_bonus_graph_against_hand_count():
    g = load_model_text(TINY.format(award=1, extra=""), "tiny.toml")
    graph = roundtrip(feature_graph(g, "pick", 0))
    assert_absorbing(graph)
    # hand count: N picks 1 or 2 (1:1), each pick 1 prize (weight 3) or 2 (weight 1), prizes 1 or 3 (1:1);
    # the smallest total 1 needs N = 1, M = 1 and prize 1: 1/2 * 3/4 * 1/2 = 3/16
    tb = g.total_bet
    assert F(graph.edges["pick", f"end:win {F(1, tb)}"]["probability"]) == F(3, 16)
    mean = F(3, 2) * F(5, 4) * 2  # E[N] E[M] E[prize] (Wald), line-bet units
    got = solve_graph(graph)
    assert got["mean"] == mean / tb
    fr = pick_bonus.solve_pick_bonus(g, "pick")
    assert (got["mean"], got["m2"]) == (fr.mean.value, fr.second_moment.value)
    assert got["m2"] == sum(x * x * p for x, p in fr.distribution.items())


# --------------------------------------------------------------------------- the CLI

_DOT_EDGE = re.compile(r'^  "((?:[^"\\]|\\.)*)" -> "((?:[^"\\]|\\.)*)" \[(.*)\];$')
_DOT_NODE = re.compile(r'^  "((?:[^"\\]|\\.)*)" \[(.*)\];$')
_DOT_ATTR = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def parse_dot(text: str) -> nx.DiGraph:
    """The DOT subset :func:`analytic.features.graph.export.to_dot` writes (every id and value quoted)."""
    lines = text.splitlines()
    assert lines[0] == "digraph state_graph {" and lines[-1] == "}"
    g = nx.DiGraph()
    for line in lines[1:-1]:
        if line.startswith("  graph ["):
            continue
        m = _DOT_EDGE.match(line)
        if m:
            g.add_edge(m[1], m[2], **dict(_DOT_ATTR.findall(m[3])))
            continue
        m = _DOT_NODE.match(line)
        assert m, line
        g.add_node(m[1], **dict(_DOT_ATTR.findall(m[2])))
    return g


def _write(tmp_path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("which", ["revealed_wild_reels", "gift_pick", "pick_bonus", "drawn_expanding"])
def test_cli_writes_dot_and_graphml(tmp_path, capsys, which):
    from tests.features.engines.drawn_expanding import test_drawn_oracles as de

    if which == "drawn_expanding":
        model, argv = _write(tmp_path, "m.toml", de.TINY.replace("CAP", "1000")), ["--feature", "power_free_spins"]
    elif which == "revealed_wild_reels":
        model, argv = _write(tmp_path, "m.toml", rwr_oracle.TOY.replace("RULE", "pays")), ["--feature", "fs"]
    elif which == "gift_pick":
        model, argv = _write(tmp_path, "m.toml", gift_oracle.TOY), ["--feature", "fs", "--count", "3"]
    else:
        model, argv = _write(tmp_path, "m.toml", TINY.format(award=1, extra="")), ["--feature", "pick"]
    rc = main(["graph", str(model), *argv, "--format", "dot"])
    cap = capsys.readouterr()
    assert rc == 0 and cap.err == ""
    dot = parse_dot(cap.out)
    if which == "drawn_expanding":  # the larger graph: DOT only (GraphML is networkx's, checked on the others)
        assert_absorbing(dot)
        assert sum(F(d["start_probability"]) for _, d in dot.nodes(data=True)) == 1
        return
    out = tmp_path / "g.graphml"
    rc = main(["graph", str(model), *argv, "--out", str(out)])
    cap = capsys.readouterr()
    assert rc == 0 and cap.out.startswith(str(out))
    gml = nx.read_graphml(out)
    assert gml.graph["engine"] == which
    assert set(dot.nodes) == set(gml.nodes) and set(dot.edges) == set(gml.edges)
    for u, v, d in gml.edges(data=True):
        assert dot.edges[u, v]["probability"] == d["probability"]
        assert dot.edges[u, v]["mean_win"] == d["mean_win"]
    assert_absorbing(gml)


# --------------------------------------------------------------------------- drawn_expanding (ladder)


def _ladder_window_table(game):
    """(award, Power Book mask, line pay, reels showing s as a bit mask) -> windows, per symbol s, by
    enumerating every window of the tiny game's power_free reels with the oracle test's helpers."""
    from collections import Counter

    from tests.features.engines.drawn_expanding import test_drawn_oracles as de

    pays = de._pays(game)
    tabs = {s: Counter() for s in de.ORDER}
    wins = de._windows(game, "power_free")
    for w in wins:
        a, pm, line = de._award(w), de._pmask(w), de._line(pays, w, None)
        for s in de.ORDER:
            tabs[s][(a, pm, line, sum(1 << i for i, x in enumerate(w) if x == s))] += 1
    return tabs, pays, len(wins)


def test_ladder_graph_edges_against_window_enumeration():
    """Every (ladder level, golden mask) the start reaches: its edges' exact probabilities and win
    moments against the windows, counted by hand (line pay plus the level's multiplier times the
    expansion over the reels showing the symbol or golden)."""
    from tests.features.engines.drawn_expanding import test_drawn_oracles as de

    game = de.tiny()
    graph = feature_graph(game, "power_free_spins", 3)  # 2 spins, cut at 2 + 3
    assert_absorbing(graph)
    assert graph.graph["max_spins_left"] == 5 and graph.graph["truncated"]
    starts = {n: F(d["start_probability"]) for n, d in graph.nodes(data=True) if d["start_probability"] != "0"}
    assert starts == {f"L{r}|G0|2": F(1, 9) for r in range(1, 10)}  # the ranks uniformly, no golden reel
    tabs, pays, cycle = _ladder_window_table(game)
    tb = game.total_bet
    checked = set()
    for u, d in graph.nodes(data=True):
        if d["node_kind"] != "transient" or (d["ladder_level"], d["golden_reels"]) in checked:
            continue
        checked.add((d["ladder_level"], d["golden_reels"]))
        lev, k = d["ladder_level"], d["spins_left"]
        s, m = de._ladder(lev)
        assert (d["expanding_symbol"], d["multiplier"]) == (s, m)
        G = int(u.split("|")[1][1:])
        want: dict[str, list] = {}
        for (a, pm, line, show), cnt in tabs[s].items():
            x = de._power_spin(pays, s, m, G, (a, pm, line, show))  # line-bet units (integers)
            k2 = k - 1 + a
            v = ("end:spins exhausted" if k2 == 0 else "end:truncated" if k2 > 5
                 else f"L{min(lev + (a > 0), 17)}|G{G | pm}|{k2}")
            e = want.setdefault(v, [0, 0, 0])
            e[0] += cnt
            e[1] += cnt * x
            e[2] += cnt * x * x
        got = {v: e for _, v, e in graph.out_edges(u, data=True)}
        assert set(got) == set(want), u
        for v, (cnt, s1, s2) in want.items():
            assert F(got[v]["probability"]) == F(cnt, cycle)
            assert F(got[v]["mean_win"]) == F(s1, cnt * tb)
            assert F(got[v]["second_moment_win"]) == F(s2, cnt * tb * tb)
    assert len(checked) > 20


def test_ladder_graph_solves_to_the_solvers_chain():
    """The exported chain solved here (floats, scipy's sparse LU on the graph's edges) is the solver's
    chain cut at the same spins left: its mean is the bottom of the solver's certified interval for
    that cut (which adds the cut paths' bound on top), and the second moment lies in its interval."""
    from analytic.features.engines.drawn_expanding import moments as S
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats
    from analytic.workspace import Workspace
    from tests.features.engines.drawn_expanding import test_drawn_oracles as de

    game = de.tiny()
    ws = Workspace(game)
    graph = feature_graph(game, "power_free_spins", 3, max_spins_left=15, ws=ws)
    assert graph.graph["truncated"] and graph.graph["initial_spins"] == 2
    got = _sparse_mean(graph)
    m = S.power_moments(spin_stats(game, "power_free_spins", ws), [2], Kmax=15)[2]
    assert got["p_cut"] < 1e-12
    assert m.m1_lo <= got["mean"] <= m.m1_hi and m.m2_lo <= got["m2"] <= m.m2_hi
    assert got["mean"] == pytest.approx(m.m1_lo, rel=1e-8)


def _sparse_mean(g: nx.DiGraph) -> dict:
    """Mean, second moment and probability of the truncation end from the start distribution
    (scipy sparse LU: ``m1 = r1 + Q m1``, ``m2 = r2 + 2 E[X m1(next)] + Q m2``)."""
    from scipy.sparse import csc_matrix, identity
    from scipy.sparse.linalg import spsolve

    tr = [n for n, d in g.nodes(data=True) if d["node_kind"] == "transient"]
    idx = {n: i for i, n in enumerate(tr)}
    rows, cols, vals, edges = [], [], [], []
    b = np.zeros((len(tr), 2))
    r2 = np.zeros(len(tr))
    for u in tr:
        for _, v, d in g.out_edges(u, data=True):
            p, e1, e2 = (float(F(d[k])) for k in ("probability", "mean_win", "second_moment_win"))
            b[idx[u], 0] += p * e1
            r2[idx[u]] += p * e2
            if v in idx:
                rows.append(idx[u]), cols.append(idx[v]), vals.append(p)
                edges.append((idx[u], idx[v], p * e1))
            elif v == "end:truncated":
                b[idx[u], 1] += p
    q = csc_matrix((vals, (rows, cols)), shape=(len(tr), len(tr)))
    a = (identity(len(tr), format="csc") - q).tocsc()
    x = spsolve(a, b)
    for i, j, w in edges:
        r2[i] += 2 * w * x[j, 0]
    m2 = spsolve(a, r2)
    start = {idx[n]: float(F(d["start_probability"])) for n, d in g.nodes(data=True)
             if d["start_probability"] != "0"}
    return {"mean": sum(p * x[i, 0] for i, p in start.items()), "m2": sum(p * m2[i] for i, p in start.items()),
            "p_cut": sum(p * x[i, 1] for i, p in start.items())}


def test_drawn_expanding_without_ladder_and_huge_cuts_are_refused():
    from analytic.features.graph.export import MAX_STATES, NoStateGraph
    from tests.features.engines.drawn_expanding import test_drawn_oracles as de

    game = de.tiny()
    with pytest.raises(NoStateGraph, match="without a ladder"):
        feature_graph(game, "free_spins", 3)
    with pytest.raises(NoStateGraph, match=r"17 ladder levels x 8 golden masks x 100000 spins left.*--max-spins-left"):
        feature_graph(game, "power_free_spins", 3, max_spins_left=100_000)
    assert 17 * 8 * 100_000 > MAX_STATES


def test_cli_refuses_a_huge_ladder_graph_before_the_walk(tmp_path, capsys, monkeypatch):
    from analytic.features.engines.drawn_expanding import spin_stats
    from tests.features.engines.drawn_expanding import test_drawn_oracles as de

    def no_walk(*a, **k):
        raise AssertionError("walked before the refusal")

    monkeypatch.setattr(spin_stats, "SpinStats", no_walk)
    model = _write(tmp_path, "m.toml", de.TINY.replace("CAP", "1000"))
    out = tmp_path / "g.graphml"
    rc = main(["graph", str(model), "--feature", "power_free_spins", "--max-spins-left", "100000", "--out", str(out)])
    cap = capsys.readouterr()
    assert rc == 2 and cap.err.count("\n") == 1
    assert cap.err.startswith("error: --max-spins-left: ") and "13,600,000 states" in cap.err
    assert not out.exists()
    rc = main(["graph", str(model), "--feature", "free_spins", "--out", str(out)])
    cap = capsys.readouterr()
    assert rc == 2 and "features.free_spins: " in cap.err and "without a ladder" in cap.err
