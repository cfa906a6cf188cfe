"""``analytic graph``: the exported state graph of a free-spins feature, and its refusals.

Oracles: a hand count on a 3-reel, 1-row game (each reel shows the scatter on
1 stop of 4, so a spin shows 2 or 3 scatters with probability
3 (1/4)^2 (3/4) + (1/4)^3 = 10/64), the law of an absorbing chain
(probabilities out of each state sum to 1), and the Wald closed forms of
``solve_free_spins`` against the exact solve of the chain read back from the
file (:func:`analytic.features.graph.chain.solve_exact`, its own linear algebra).
"""

from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import networkx as nx
import pytest

from analytic.cli import main
from analytic.features.graph import chain
from analytic.features.engines.wald_spins import solve_free_spins
from analytic.model.loader import load_model_text

TOML = (Path(__file__).resolve().parents[1] / "data" / "tiny_free_spins.toml.in").read_text()

P_RETRIGGER = F(10, 64)  # 2 or 3 scatters, hand count


def model(tmp_path, award=1, extra=""):
    path = tmp_path / "tiny.toml"
    path.write_text(TOML.format(award=award, extra=extra), encoding="utf-8")
    return path


def run_graph(tmp_path, capsys, argv, award=1, extra="", suffix="graphml"):
    out = tmp_path / f"g.{suffix}"
    rc = main(["graph", str(model(tmp_path, award, extra)), *argv, "--out", str(out)])
    cap = capsys.readouterr()
    return rc, out, cap


def transient(g):
    return [n for n, d in g.nodes(data=True) if d["node_kind"] == "transient"]


def test_hand_count_without_truncation(tmp_path, capsys):
    # award 1 never raises spins left: from 2 spins the states are 2 and 1, then the end
    rc, out, _ = run_graph(tmp_path, capsys, ["--feature", "fs"])
    assert rc == 0
    g = nx.read_graphml(out)
    assert sorted(transient(g)) == ["1", "2"]
    assert g.number_of_nodes() == 3 and not g.graph["truncated"]
    assert g.nodes["2"]["start_probability"] == "1" and g.nodes["1"]["start_probability"] == "0"
    assert g.nodes["2"]["spins_left"] == 2
    assert F(g.edges["2", "2"]["probability"]) == P_RETRIGGER
    assert F(g.edges["2", "1"]["probability"]) == 1 - P_RETRIGGER
    assert F(g.edges["1", "end:spins exhausted"]["probability"]) == 1 - P_RETRIGGER


def test_retrigger_graph_is_cut_and_counted(tmp_path, capsys):
    # award 2 from 3 spins (--count 3), cut at 3 + 2 = 5: states 1..5, the end and the cut
    rc, out, cap = run_graph(tmp_path, capsys, ["--feature", "fs", "--count", "3"], award=2)
    assert rc == 0 and "5 states, 2 ends" in cap.out
    g = nx.read_graphml(out)
    assert sorted(transient(g), key=int) == ["1", "2", "3", "4", "5"]
    assert set(g) - set(transient(g)) == {"end:spins exhausted", "end:truncated"}
    assert g.graph["truncated"] and g.graph["max_spins_left"] == 5 and g.graph["initial_spins"] == 3
    assert F(g.edges["5", "end:truncated"]["probability"]) == P_RETRIGGER
    assert F(g.edges["4", "5"]["probability"]) == P_RETRIGGER


@pytest.mark.parametrize("award,extra", [(1, ""), (2, ""),
                                         (1, 'expanding_symbol = { choose_from = ["a", "b"], weights = [1, 3] }')])
def test_each_state_sums_to_one_and_ends_absorb(tmp_path, capsys, award, extra):
    rc, out, _ = run_graph(tmp_path, capsys, ["--feature", "fs"], award=award, extra=extra)
    assert rc == 0
    g = nx.read_graphml(out)
    for n, d in g.nodes(data=True):
        total = sum((F(e["probability"]) for _, _, e in g.out_edges(n, data=True)), F(0))
        assert total == (1 if d["node_kind"] == "transient" else 0), n
    starts = {n: F(d["start_probability"]) for n, d in g.nodes(data=True) if d["start_probability"] != "0"}
    assert sum(starts.values()) == 1
    if extra:
        assert starts == {"a|2": F(1, 4), "b|2": F(3, 4)}
        assert len(transient(g)) == 4  # two drawn symbols x spins left 2, 1


def _chain_from_file(path):
    g = nx.read_graphml(path)
    c = nx.DiGraph()
    ends = {n: chain.End(g.nodes[n]["state"]) for n, d in g.nodes(data=True) if d["node_kind"] == "end"}
    for u, v, d in g.edges(data=True):
        chain.add_outcome(c, u, ends.get(v, v), F(d["probability"]), F(d["mean_win"]), F(d["second_moment_win"]))
    start = {n: F(d["start_probability"]) for n, d in g.nodes(data=True) if d["start_probability"] != "0"}
    return c, start


@pytest.mark.parametrize("extra", ["", 'expanding_symbol = { choose_from = ["a", "b"], weights = [1, 3] }'])
def test_file_solves_to_the_closed_forms(tmp_path, capsys, extra):
    """Not cut (award 1): the chain in the file, solved exactly, gives the solver's Wald figures."""
    rc, out, _ = run_graph(tmp_path, capsys, ["--feature", "fs", "--count", "3"], extra=extra)
    assert rc == 0
    c, start = _chain_from_file(out)
    r = chain.solve_exact(c, start)
    fr = solve_free_spins(load_model_text(TOML.format(award=1, extra=extra), "tiny.toml"), "fs", 3)
    assert (r.mean, r.second_moment, r.expected_spins) == (
        fr.mean.value, fr.second_moment.value, fr.expected_spins.value)


def test_dot_from_suffix(tmp_path, capsys):
    rc, out, _ = run_graph(tmp_path, capsys, ["--feature", "fs"], suffix="dot")
    assert rc == 0
    text = out.read_text()
    assert text.startswith("digraph") and '"2" -> "1"' in text and 'probability="27/32"' in text


@pytest.mark.parametrize("argv,fragment", [
    (["--feature", "pick", "--count", "4"], "--count: 4 trigger symbols cannot show"),
    (["--feature", "nope"], "--feature: unknown feature 'nope'"),
    (["--feature", "fs", "--count", "1"], "--count: 1 trigger symbols do not start feature 'fs'"),
    (["--feature", "fs", "--count", "4"], "--count: 4 trigger symbols cannot show"),
    # a cut below the start was raised to it, and a pick bonus's ignored: the graph was not the one asked for
    (["--feature", "fs", "--count", "3", "--max-spins-left", "2"],
     "--max-spins-left: 2 is below the 3 spins feature 'fs' starts with"),
    (["--feature", "pick", "--max-spins-left", "5"], "--max-spins-left: feature 'pick' is one draw"),
])
def test_refusals_one_line_exit_2(tmp_path, capsys, argv, fragment):
    rc, out, cap = run_graph(tmp_path, capsys, argv)
    assert rc == 2
    assert cap.err.count("\n") == 1 and cap.err.startswith("error: ") and fragment in cap.err
    assert not out.exists() and list(tmp_path.iterdir()) == [tmp_path / "tiny.toml"]


def test_a_cut_of_a_feature_that_never_retriggers_is_refused(tmp_path, capsys):
    """``--max-spins-left`` on free spins without a retrigger was ignored (the graph of its 2 spins came out)."""
    m = tmp_path / "tiny.toml"
    text = TOML.format(award=1, extra="")
    m.write_text("".join(line for line in text.splitlines(keepends=True) if not line.startswith("retrigger")))
    out = tmp_path / "g.graphml"
    rc = main(["graph", str(m), "--feature", "fs", "--max-spins-left", "5", "--out", str(out)])
    cap = capsys.readouterr()
    assert rc == 2 and cap.err.count("\n") == 1
    assert cap.err.startswith("error: --max-spins-left: feature 'fs' does not retrigger"), cap.err
    assert list(tmp_path.iterdir()) == [m]
    assert main(["graph", str(m), "--feature", "fs", "--out", str(out)]) == 0  # without the option: drawn


@pytest.mark.parametrize("out_name,fragment", [("g.txt", "cannot tell the format"),
                                               ("missing/g.graphml", "does not exist")])
def test_bad_out_refused_before_work(tmp_path, capsys, out_name, fragment):
    m = model(tmp_path)
    rc = main(["graph", str(m), "--feature", "fs", "--out", str(tmp_path / out_name)])
    cap = capsys.readouterr()
    assert rc == 2 and cap.err.startswith("error: --out: ") and fragment in cap.err
    assert cap.err.count("\n") == 1 and list(tmp_path.iterdir()) == [m]


@pytest.mark.parametrize("stem,feature", [("book_of_power", "free_spins")])  # drawn symbols without a ladder
def test_shipped_engines_without_graph_refused(tmp_path, capsys, stem, feature):
    m = Path(__file__).resolve().parents[2] / "models" / f"{stem}.toml"
    out = tmp_path / "g.graphml"
    rc = main(["graph", str(m), "--feature", feature, "--out", str(out)])
    cap = capsys.readouterr()
    assert rc == 2 and cap.err.count("\n") == 1
    assert f"features.{feature}: feature {feature!r}" in cap.err and "no " in cap.err and "graph" in cap.err
    assert not out.exists() and not list(tmp_path.iterdir())
