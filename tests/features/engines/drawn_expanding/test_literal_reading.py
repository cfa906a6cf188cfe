"""Rule ``scatter_substitutes_for_expanding_in_line_wins`` (issue 25): both readings against a hand count.

Rule text: "The Book Symbols substitute for all symbols except the special
Expanding Symbol in Free Spins."  ``true``: a book stands in for the
expanding symbol in normal line wins (it is disregarded only in the
expansion payout); ``false`` (the literal reading): while ``s`` expands, a
book does not stand in for ``s`` in any win.

The game below is the tiny game of ``test_drawn_oracles`` with Power Free
Spins reels of one stop each (one row, one payline): every free spin shows
``book king king ten ten``, so no spin awards spins and the expanding
symbol stays the one drawn at the start (uniform over the nine ladder ranks).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from test_drawn_oracles import TINY, with_reading

from analytic.errors import UnsupportedMechanicError
from analytic.model import load_model_text

ONE_WINDOW = '''power_free = [
  ["book"], ["king"], ["king"], ["ten"], ["ten"],
]
'''


def _game(literal: bool):
    text = with_reading(TINY.replace("CAP", str(10**6)), literal)
    start = text.index("power_free = [")
    end = text.index("\n]\n", start) + 3
    text = text[:start] + ONE_WINDOW + text[end:]
    return load_model_text(text, path="one_window.toml")


@pytest.mark.parametrize("literal", [False, True])
def test_one_window_power_free_spins_by_hand(literal):
    """Start with 3 books: 2 spins (tiny game), each showing ``book king king ten ten``.

    Line (king pays 3 = 2, ten pays 3 = 1; low symbols expand from 3 reels):

    * reading ``true``: the book stands in for king: ``book king king`` pays 2, whatever expands;
    * reading ``false``: while king expands the king run is ``book`` -> nothing, and ten's run is
      1 long -> nothing: 0; while any of the 8 other symbols expands: 2.
    * expansions: king and ten show on 2 reels (< 3), the others on none: nothing.

    Per spin: ``true`` 2; ``false`` (8 * 2 + 0) / 9 = 16/9.  Two identical spins:
    E[W] = 4 resp. 32/9, E[W^2] = 16 resp. 8/9 * 16 = 128/9 (total bets: one line, line bet 1).
    """
    from analytic.features.engines.drawn_expanding.engine import solve_feature

    game = _game(literal)
    assert game.features["power_free_spins"].trigger.counts[3] == 2
    r = solve_feature(game, "power_free_spins", 3)
    mean, m2 = (Fraction(32, 9), Fraction(128, 9)) if literal else (Fraction(4), Fraction(16))
    assert abs(r.mean.value - mean) <= r.mean.error + Fraction(1, 10**12)
    assert abs(r.second_moment.value - m2) <= r.second_moment.error + Fraction(1, 10**11)
    assert r.mean.error < Fraction(1, 10**6)
    # P(W = 0): only the literal reading with king expanding (1/9) pays nothing
    lo, hi = r.p_zero_bounds
    p0 = Fraction(1, 9) if literal else Fraction(0)
    assert lo - Fraction(1, 10**12) <= p0 <= hi + Fraction(1, 10**12)


def test_literal_reading_spin_stats_refused_for_drawn_expanding_symbols():
    """The per-spin statistics of regular Free Spins (a set of expanding symbols) are not built under
    ``false`` for the model itself: its figures come from the set line means and two bounding games."""
    from analytic.features.engines.drawn_expanding.spin_stats import SpinStats

    game = _game(True)
    with pytest.raises(UnsupportedMechanicError, match="whole set of expanding symbols"):
        SpinStats(game, "free_spins")


# --------------------------------------------------------------------------
# regular Free Spins: books and two different expanding symbols on one line

TWO = r'''
[game]
name = "two expanding symbols on a line"
reels = 5
rows = 1

[symbols]
ten = { role = "regular", tier = "low", rank = 1 }
king = { role = "regular", tier = "low", rank = 2 }
book = { role = "wild_scatter" }

[paytable]
ten = { 3 = 1, 4 = 2, 5 = 4 }
king = { 3 = 2, 4 = 3, 5 = 7 }

[paylines]
lines = [[0, 0, 0, 0, 0]]

[reels]
base = [["ten", "book"], ["king", "book"], ["book", "ten"], ["ten", "book"], ["book", "king"]]
free = [["book"], ["king"], ["king"], ["ten"], ["ten", "ten", "ten", "book"]]

[modes.base]
cost = 1
reels = "base"

[features.free_spins]
kind = "free_spins"
reels = "free"
trigger = { symbols = ["book"], counts = { 3 = 2, 4 = 3, 5 = 4 } }
retrigger = { per_symbol = 1 }
expanding_symbol = { draw = "at_each_award", repeat_multiplier = { ceiling = 9 } }

[rules]
expanding_repeat_multiplier = "count"
scatter_substitutes_for_expanding_in_line_wins = READING
'''

#: the regular symbols in the order of their ranks (bit i of a set of expanding symbols)
TWO_SYMBOLS = ("ten", "king")


def _two(literal: bool, text: str = TWO):
    return load_model_text(text.replace("READING", "false" if literal else "true"), path="two.toml")


def _two_line(cells, expanding, literal: bool) -> int:
    """The payline of the TWO game, counted here: the leftmost run of each symbol (a book counts
    unless, under the literal reading, that symbol expands), the highest pay."""
    pays = {"ten": {3: 1, 4: 2, 5: 4}, "king": {3: 2, 4: 3, 5: 7}}
    best = 0
    for s, table in pays.items():
        run = 0
        for c in cells:
            if c == s or (c == "book" and not (literal and s in expanding)):
                run += 1
            else:
                break
        best = max(best, table.get(run, 0))
    return best


def two_oracle(literal: bool, n0: int):
    """``(E[W], E[W^2], P(W = 0))`` of the TWO game's Free Spins started with ``n0`` spins, exact.

    Every free spin shows ``book king king ten X`` with ``X`` = ten (3 stops of 4: one book, no
    award) or book (1 of 4: two books, 1 extra spin, a symbol drawn).  No expansion pays (king and
    ten show on at most 2 reels, low symbols need 3), so a spin pays its line win only, the same in
    both windows (by hand: the book stands in for king: ``book king king`` = 2; under the literal
    reading while king expands the king run is 0 and ten's run 1: 0).  So with the set ``S`` of
    expanding symbols the spin pays ``x_S`` = 2, or under the literal reading 2 if king is not in
    ``S``, else 0.  Recursion over (spins left ``K``, ``S``): an award keeps ``K`` and adds a
    uniform draw ``d`` to ``S``, which may leave ``S`` unchanged (a linear equation, solved).
    """
    from fractions import Fraction as F

    xs = {S: F(_two_line(("book", "king", "king", "ten", "ten"), S, literal))
          for S in (frozenset(), frozenset({"ten"}), frozenset({"king"}), frozenset(TWO_SYMBOLS))}
    for S in xs:  # both windows pay alike (checked, not assumed)
        assert xs[S] == _two_line(("book", "king", "king", "ten", "book"), S, literal)
    pa = F(1, 4)
    m1, m2, z = {}, {}, {}
    for S in sorted(xs, key=len, reverse=True):  # larger sets first: an award only adds to S
        for K in range(0, n0 + 1):
            if K == 0:
                m1[K, S], m2[K, S], z[K, S] = F(0), F(0), F(1)
                continue
            x = xs[S]
            stay = pa * F(sum(d in S for d in TWO_SYMBOLS), 2)  # award drawing a symbol already in S
            go1 = (1 - pa) * m1[K - 1, S] + pa * sum((m1[K, S | {d}] for d in TWO_SYMBOLS if d not in S), F(0)) / 2
            go2 = (1 - pa) * m2[K - 1, S] + pa * sum((m2[K, S | {d}] for d in TWO_SYMBOLS if d not in S), F(0)) / 2
            goz = (1 - pa) * z[K - 1, S] + pa * sum((z[K, S | {d}] for d in TWO_SYMBOLS if d not in S), F(0)) / 2
            # E[W] = x + E[W'], E[W^2] = x^2 + 2 x E[W'] + E[W'^2], W' including the self-loop
            a1 = (x + go1) / (1 - stay)
            m1[K, S] = a1
            m2[K, S] = (x * x + 2 * x * (a1 - x) + go2) / (1 - stay)
            z[K, S] = (goz / (1 - stay)) if x == 0 else F(0)
    starts = [frozenset({d}) for d in TWO_SYMBOLS]
    return tuple(sum((t[n0, S] for S in starts), F(0)) / 2 for t in (m1, m2, z))


@pytest.mark.parametrize("literal", [False, True])
@pytest.mark.parametrize("books", [3, 4])
def test_two_expanding_symbols_on_a_line_by_hand(literal, books):
    """Books and two different expanding symbols on one line, paid under each reading (issue 25)."""
    from analytic.features.engines.drawn_expanding.engine import SpinStats as MeanStats
    from analytic.features.engines.drawn_expanding.engine import _feature_mean, solve_feature

    game = _two(literal)
    n0 = game.features["free_spins"].trigger.counts[books]
    m1, m2, p0 = two_oracle(literal, n0)
    if not literal:  # the hand count: E[T] = n0 / (1 - 1/4) spins of 2
        assert m1 == 2 * Fraction(4, 3) * n0
    else:  # the reading matters: the first spin pays 2 exactly when king was not drawn first
        assert m1 < 2 * Fraction(4, 3) * n0 and p0 == Fraction(1, 2)
    r = solve_feature(game, "free_spins", books)
    assert abs(r.mean.value - m1) <= r.mean.error + Fraction(1, 10**12)
    assert r.mean.error < Fraction(1, 10**7)
    lo, hi = r.details["second_moment_interval"]
    assert lo - Fraction(1, 10**9) <= m2 <= hi + Fraction(1, 10**9)
    if not literal:
        assert hi - lo < Fraction(1, 10**6)
    zlo, zhi = r.p_zero_bounds
    assert zlo <= p0 <= zhi
    (a, b), _, _ = _feature_mean(MeanStats(game, "free_spins"), n0)  # the exact sweep (Fractions)
    assert a - Fraction(1, 10**12) <= m1 <= b + Fraction(1, 10**12)


def test_set_line_means_against_window_sums():
    """The mean line win of every set of expanding symbols, against the tiny game's windows paid by
    the oracle's own payline (the books standing in for every symbol outside the set)."""
    import itertools

    from test_drawn_oracles import ORDER, _line, _pays, tiny

    from analytic.features.engines.drawn_expanding.line_sets import drawn_line_means, set_line_means

    game = tiny(literal=True)
    got = set_line_means(game, "free_spins")
    pays = _pays(game)
    wins = list(itertools.product(*game.reel_sets["free"]))
    by_size = [Fraction(0)] * 10
    for mask in range(512):
        S = {s for i, s in enumerate(ORDER) if mask >> i & 1}
        want = Fraction(sum(_line(pays, w, S) for w in wins), len(wins))
        assert got[mask] == want, mask
        by_size[len(S)] += want
    # after j awards the set is that of j + 1 uniform draws: j = 0 one symbol, j = 1 two draws
    # (the same symbol with probability 1/9)
    lm = drawn_line_means(got, 9, 1)
    assert lm[0] == by_size[1] / 9
    assert lm[1] == Fraction(1, 9) * by_size[1] / 9 + Fraction(8, 9) * by_size[2] / 36


def test_literal_reading_refused_for_pays_falling_with_the_count():
    """A book no longer standing in can lengthen nothing, but with pays falling in the count a shorter
    run could pay more: the bounds would not hold, so the model is refused (with the key)."""
    from analytic.features.engines.drawn_expanding.engine import solve_feature

    text = TWO.replace("king = { 3 = 2, 4 = 3, 5 = 7 }", "king = { 3 = 5, 4 = 3, 5 = 7 }")
    with pytest.raises(UnsupportedMechanicError, match="paytable.king"):
        solve_feature(_two(True, text), "free_spins", 3)
    solve_feature(_two(False, text), "free_spins", 3)  # the other reading needs no such bound


def test_literal_reading_refused_before_solving_the_modes_playing_an_unsolved_regular_feature(tmp_path, capsys,
                                                                                            monkeypatch):
    """A regular feature whose line wins the literal reading does not solve (pays falling with the
    count) is refused at ``rules.scatter_substitutes_for_expanding_in_line_wins`` in every bet mode
    that plays it, before any feature is solved: exit 2 in one line."""
    from analytic.cli import main
    from analytic.errors import ModelError
    from analytic.solver.round import check_round

    text = TWO.replace("king = { 3 = 2, 4 = 3, 5 = 7 }", "king = { 3 = 5, 4 = 3, 5 = 7 }")
    with pytest.raises(ModelError) as err:
        check_round(_two(True, text), "base")
    assert err.value.key == "rules.scatter_substitutes_for_expanding_in_line_wins"
    assert "paytable.king" in err.value.reason
    check_round(_two(False, text), "base")
    check_round(_two(True), "base")  # plain pays rising with the count: solved, not refused

    def no_solve(*a, **k):
        raise AssertionError("a feature was solved before the refusal")

    import analytic.features.result as result

    monkeypatch.setitem(result.SOLVERS, "drawn_expanding", no_solve)
    model = tmp_path / "literal.toml"
    model.write_text(text.replace("READING", "false"))
    assert main(["solve", str(model), "--mode", "all"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"error: {model}: rules.scatter_substitutes_for_expanding_in_line_wins: ")
