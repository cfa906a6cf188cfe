"""``analytic verify``'s table (analytic/cli/verify.py): the columns were fixed widths (14, 14, 12, 8),
so a model paying 10^15 printed its RTP column as ``32000000000000.5039062527500000000000.48828125``
(the exact and the simulated value run together).  The oracle is the table's own layout: every value
is a separate whitespace-delimited word, right-aligned under its heading."""

from __future__ import annotations

from pathlib import Path

from analytic.cli import main

_TINY = (Path(__file__).resolve().parents[1] / "data" / "tiny_scatter.toml").read_text(encoding="utf-8")
_HEADS = ("exact", "simulated", "std err", "z")


def _check_layout(lines: list[str], n_rows: int) -> list[list[str]]:
    """Each row: figure name, four value words, the verdict; each value ends where its heading ends."""
    head, body = lines[0], lines[1:]
    assert len(body) == n_rows
    ends = [head.index(h) + len(h) for h in _HEADS]
    words = []
    for line in body:
        name = line[2:22].rstrip()
        rest = line[22:].split()
        assert len(rest) == 5, line  # exact, simulated, std err, z, verdict: none run together
        pos = 22
        for w, end in zip(rest, ends):
            pos = line.index(w, pos) + len(w)
            assert pos == end, (line, w)
            assert line[pos - len(w) - 2:pos - len(w)] == "  ", line  # two spaces before each value
        words.append([name, *rest])
    return words


def test_verify_table_keeps_huge_pays_apart(tmp_path, capsys):
    """Symbol 'a' pays 10^15 for three on the line (no cap).  By hand, three 'a' (or a wild on reels 1
    and 3, reel 2 has none) show with probability (2/5)(1/5)(2/5) = 4/125, so the RTP is
    4/125 * 10^15 = 3.2 * 10^13 plus the small pays (< 1 per unit)."""
    text = _TINY.replace("a = { 3 = 10 }", "a = { 3 = 1000000000000000 }")
    text = text[:text.index("[cap]")] + text[text.index("[design]"):]
    src = tmp_path / "huge.toml"
    src.write_text(text)
    assert main(["verify", str(src), "--rounds", "2000", "--no-progress"]) in (0, 4)
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("  ")][:4]
    words = _check_layout(lines, 3)
    assert [w[0] for w in words] == ["RTP", "hit frequency", "feature frequency"]
    exact = float(words[0][1])
    assert 3.2e13 <= exact <= 3.2e13 + 1
    assert float(words[0][2]) > 1e12  # the simulated RTP, its own word (about 64 wins of 10^15 expected)


def test_table_widens_only_the_columns_that_need_it():
    """Ordinary figures keep the former widths (header ``exact`` ends at column 36); a z of 10^7 and an
    infinite z stay separate words."""
    rows = [{"figure": "RTP", "exact": 0.95, "simulated": 0.94, "se": 0.01, "z": -12345678.9, "verdict": "CHECK"},
            {"figure": "hit frequency", "exact": 0.3, "simulated": 0.3, "se": 0.0, "z": None, "verdict": "CHECK"}]
    from analytic.cli.verify import table_lines

    lines = table_lines(rows)
    words = _check_layout(lines, 2)
    assert words[0][4] == "-12345678.90" and words[1][4] == "inf"
    assert lines[0].index("exact") + len("exact") == 2 + 20 + 14
    plain = table_lines([dict(rows[0], z=-0.5)])
    assert plain[0] == "  figure                       exact     simulated     std err       z  verdict"
