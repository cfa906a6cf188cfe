"""The solve's workspace: two games in one process keep their own tables.

Oracle: :class:`oracle.Oracle` (brute force over every stop combination,
written from the format's rule text; it shares nothing with the solver).
"""

from __future__ import annotations

import gc
import tomllib

import pytest

from analytic.model.loader import load_model_text
from analytic.solver.round import solve_game, solve_round
from analytic.workspace import Workspace, workspace_for
from oracle import Oracle

# one feature name ("fs"), one base game; only the free spins' strips differ between the games
TOML = """
[game]
name = "two strips"
reels = 3
rows = 1
[symbols]
a = "regular"
b = "regular"
s = "scatter"
[paytable]
a = {{ 2 = 2, 3 = 10 }}
b = {{ 3 = 4 }}
[scatter]
symbols = ["s"]
pays = {{ 2 = 1 }}
[paylines]
lines = [[0, 0, 0]]
[reels]
base = [["a", "b", "s"], ["a", "s", "b", "b"], ["s", "a", "b"]]
free = {free}
[modes.base]
cost = 1
reels = "base"
[features.fs]
kind = "free_spins"
reels = "free"
trigger = {{ symbols = ["s"], counts = {{ 2 = 2, 3 = 3 }} }}
"""

FREE_A = [["a", "a", "b"], ["a", "b", "b"], ["a", "a", "a"]]
FREE_B = [["b", "b", "a"], ["b", "a", "a"], ["b", "b", "b"]]


def _text(free) -> str:
    return TOML.format(free=repr(free).replace("'", '"'))


def _oracle_rtp(free):
    return Oracle(tomllib.loads(_text(free))).figures("base")


def test_two_games_with_the_same_feature_names_keep_their_own_figures():
    ga = load_model_text(_text(FREE_A), "a.toml")
    gb = load_model_text(_text(FREE_B), "b.toml")
    want_a, want_b = _oracle_rtp(FREE_A), _oracle_rtp(FREE_B)
    assert want_a["rtp"] != want_b["rtp"]  # the games differ where the feature plays
    wa, wb = Workspace(ga), Workspace(gb)
    # interleaved in one process, each with its workspace, then each again with a fresh one
    for res, want in ((solve_round(ga, workspace=wa), want_a), (solve_round(gb, workspace=wb), want_b),
                      (solve_round(ga, workspace=wa), want_a), (solve_round(gb), want_b),
                      (solve_game(ga)["base"], want_a)):
        assert res.rtp.label == "exact"
        assert res.rtp.value == want["rtp"]
        assert res.second_moment.value == want["m2"]
        assert res.features[0].rtp.value == want["share"]["fs"]


def test_a_workspace_refuses_another_game():
    ga = load_model_text(_text(FREE_A), "a.toml")
    gb = load_model_text(_text(FREE_A), "a.toml")  # equal content, another loaded object
    ws = Workspace(ga)
    assert workspace_for(ga, ws) is ws
    assert workspace_for(gb) is not ws
    with pytest.raises(ValueError, match="another game"):
        solve_round(gb, workspace=ws)
    with pytest.raises(ValueError, match="precision"):
        solve_round(ga, workspace=ws, precision="certify")  # the workspace says 'standard'
    with pytest.raises(ValueError, match="sloppy"):
        solve_round(ga, precision="sloppy")


def test_many_short_lived_games_never_share_tables():
    """Loaded, solved and dropped one after another (a dropped game's id may be reused by the next):
    every solve matches the brute force of its own strips."""
    variants = [FREE_A, FREE_B, [["a", "b", "b"], ["a", "a", "b"], ["b", "a", "a"]], FREE_A]
    for free in variants:
        game = load_model_text(_text(free), "v.toml")
        assert solve_round(game).rtp.value == _oracle_rtp(free)["rtp"]
        del game
        gc.collect()
