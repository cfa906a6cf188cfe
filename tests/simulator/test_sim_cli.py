"""``analytic simulate`` end to end on a TOML model."""

import json
from pathlib import Path

from analytic.cli import main

ATKINS = str(Path(__file__).parent / "data" / "atkins.toml")


def test_json_output(capsys):
    assert main(["simulate", ATKINS, "--rounds", "3000", "--seed", "4", "--format", "json", "--no-progress"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["schema"] == "analytic.simulate/1" and d["rounds"] == 3000 and d["seed"] == 4
    assert d["rtp_ci999"][0] <= d["rtp"] <= d["rtp_ci999"][1]
    assert "free_spins" in d["features"]


def test_table_output_and_bad_mode(capsys):
    assert main(["simulate", ATKINS, "--rounds", "1000", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "RTP 99.9% CI" in out and "rounds/s" in out
    assert main(["simulate", ATKINS, "--mode", "nope", "--rounds", "10", "--no-progress"]) == 2
    assert "nope" in capsys.readouterr().err


def test_table_says_normal_approximation_and_clipping():
    """A run of 10 rounds with one win of 10 total bets: RTP 100 %, SE 100 % (by hand: sample variance
    (100 - 10) / 9 = 10, SE sqrt(10 / 10)); the 95 % interval printed from 0, not -95.9964 %."""
    from analytic.cli.simulate import format_table
    from test_sim_runner import _one_big_win

    out = format_table(_one_big_win())
    line = next(l for l in out.splitlines() if l.startswith("RTP 95% CI"))
    assert "[0.0000 %, 295.9964 %]" in line and "normal approx." in line and "clipped at 0" in line
    assert "-" not in line.split("]")[0]


def test_table_mentions_the_cap_only_where_there_is_one(capsys):
    """Atkins Diet has no win cap: the RTP split is not 'before cap' and no capped rounds are counted;
    tests/data/tiny_scatter.toml has a cap: both are printed."""
    assert main(["simulate", ATKINS, "--rounds", "200", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "base / features" in out and "before cap" not in out and "capped rounds" not in out
    capped = str(Path(__file__).parents[1] / "data" / "tiny_scatter.toml")
    assert main(["simulate", capped, "--rounds", "200", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "(before cap)" in out and "capped rounds" in out
