"""A ways game's par sheet: its total bet in pay units and its wins table per way, not per line."""

from fractions import Fraction
from itertools import product

from analytic.model.loader import load_model_text
from analytic.reports.markdown import render_markdown
from analytic.reports.model import build_sheet

# 3 reels x 2 rows = 8 ways; the ace's 3-run can be several ways at once
WAYS = """
[game]
name = "Tiny ways"
reels = 3
rows = 2
total_bet = 10

[symbols]
ace = "regular"
king = "blank"

[paytable]
ace = { 3 = 5 }

[paylines]
ways = true

[reels]
base = [["ace", "ace", "king"], ["ace", "king"], ["ace", "ace", "king"]]
"""


def _ways_per_spin() -> Fraction:
    """Every stop combination's windows counted by hand: the ace's 3-run pays on
    m1 * m2 * m3 ways (m_k the aces in reel k's window)."""
    strips = [["ace", "ace", "king"], ["ace", "king"], ["ace", "ace", "king"]]
    n = total = 0
    for stops in product(*(range(len(s)) for s in strips)):
        m = [sum(s[(t + r) % len(s)] == "ace" for r in range(2)) for s, t in zip(strips, stops)]
        total += m[0] * m[1] * m[2]
        n += 1
    return Fraction(total, n)


def test_ways_sheet_counts_ways(tmp_path):
    """The table said "probability per spin and line" and printed '1 in N' of hits per stop
    combination, which in a ways game is the expected number of paying ways (here 16/9: reels 1
    and 3 show 4/3 aces on average, the middle reel always 1): more than 1, not a probability."""
    game = load_model_text(WAYS, str(tmp_path / "ways.toml"))
    sheet = build_sheet(game, session=False)
    md = render_markdown(sheet)
    rate = _ways_per_spin()
    assert rate == Fraction(4, 3) * 1 * Fraction(4, 3)
    assert "| total bet | 10 pay units (pays per way) |" in md
    assert "### Ways wins by symbol and count" in md and "per spin and line" not in md
    (row,) = [ln for ln in md.splitlines() if ln.startswith("| ace | 3 |")]
    assert row.split("|")[6].strip() == f"{float(rate):.6g}"


WAYS_FREE = WAYS.replace('king = "blank"', 'king = "blank"\ns = "scatter"').replace(
    'base = [["ace", "ace", "king"], ["ace", "king"], ["ace", "ace", "king"]]',
    'base = [["ace", "s", "king"], ["ace", "s"], ["s", "ace", "king"]]\n'
    'free = [["ace", "ace", "king"], ["ace", "king"], ["ace", "ace", "king"]]') + """
[features.fs]
reels = "free"
trigger = { symbols = ["s"], counts = { 3 = 5 } }
multiplier = 2
"""


def test_ways_free_games_section_counts_ways(tmp_path):
    """The free games section of a ways game said "(stop combination, payline) pairs" and "1 in N"
    per line; the free reel set is the first test's base set: 16/9 paying ace ways per free spin."""
    game = load_model_text(WAYS_FREE, str(tmp_path / "ways_free.toml"))
    md = render_markdown(build_sheet(game, session=False))
    free = md[md.index("## Free games"):]
    free = free[:free.index("\n## ", 3)]  # up to the next section (the bet modes)
    assert "payline" not in free.split("###")[0] and "way, direction) triples" in free
    (row,) = [ln for ln in free.splitlines() if ln.startswith("| ace | 3 |")]
    assert row.split("|")[6].strip() == f"{float(_ways_per_spin()):.6g}"


WAYS_WILD = WAYS.replace('king = "blank"', 'king = "blank"\nwild = "wild"').replace(
    'base = [["ace", "ace", "king"]', 'base = [["ace", "wild", "king"]')


def test_ways_sheet_names_ways_not_lines(tmp_path):
    """A 243-ways design's sheet said "Line pays in line-bet units" over its paytable, split its RTP
    into "base line wins", named the method a "joint line walk", listed the payline rule
    ``line_wild_pay`` (refused in a ways game: docs/model-format.md, "Ways pays") among the rules
    as modelled, and gave the pays as "ways" without their number.  The number of ways here is
    counted by hand: 2 rows on each of 3 reels, 2 x 2 x 2 = 8."""
    game = load_model_text(WAYS_WILD, str(tmp_path / "ways.toml"))
    md = render_markdown(build_sheet(game, session=False))
    assert "Line pays in line-bet units" not in md
    assert "Ways pays in pay units, per way" in md
    assert "| pays | 8 ways |" in md
    assert "base line wins" not in md and "| base ways wins |" in md
    assert "joint line walk" not in md and "joint ways walk" in md
    assert "line_wild_pay" not in md


def test_payline_sheet_keeps_line_words(tmp_path):
    """The same words stay on a payline game's sheet (the line rule is listed: the game has a wild)."""
    text = WAYS_WILD.replace("ways = true", "lines = [[0, 0, 0]]").replace("total_bet = 10\n", "")
    game = load_model_text(text, str(tmp_path / "lines.toml"))
    md = render_markdown(build_sheet(game, session=False))
    assert "Line pays in line-bet units" in md and "| base line wins |" in md
    assert "joint line walk" in md and "| line_wild_pay |" in md


def test_ways_xlsx_has_no_empty_payline_table(tmp_path):
    """The XLSX summary of a ways game had a 'Paylines' title and header over no rows, and its
    rules table (none applies: the ways game has no wild) a header over no rows, where the Markdown
    says 'No rule switches apply to this game.'."""
    import openpyxl

    from analytic.reports.xlsx import write_xlsx

    game = load_model_text(WAYS, str(tmp_path / "ways.toml"))
    write_xlsx(build_sheet(game, session=False), str(tmp_path / "w.xlsx"))
    cells = [c for row in openpyxl.load_workbook(tmp_path / "w.xlsx")["Summary"].iter_rows(values_only=True)
             for c in row if c is not None]
    assert not any(str(c).startswith("Paylines") for c in cells)
    assert "rows per reel" not in cells
    assert "No rule switches apply to this game." in cells
