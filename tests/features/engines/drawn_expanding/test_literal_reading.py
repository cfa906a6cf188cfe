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


def test_literal_reading_refused_for_drawn_expanding_symbols():
    """Regular Free Spins (a set of expanding symbols drawn at each award) are not solved under ``false``."""
    from analytic.features.engines.drawn_expanding.engine import SpinStats as MeanStats
    from analytic.features.engines.drawn_expanding.engine import solve_feature
    from analytic.features.engines.drawn_expanding.spin_stats import SpinStats

    game = _game(True)
    for make in (SpinStats, MeanStats):
        with pytest.raises(UnsupportedMechanicError, match="scatter_substitutes_for_expanding_in_line_wins"):
            make(game, "free_spins")
    with pytest.raises(UnsupportedMechanicError, match="whole set of expanding symbols"):
        solve_feature(game, "free_spins", 3)


def test_literal_reading_refused_before_solving_the_modes_playing_the_regular_feature(tmp_path, capsys, monkeypatch):
    """Bet modes playing the regular feature (the base game starts it; its buy) are refused at
    ``rules.scatter_substitutes_for_expanding_in_line_wins`` before any feature is solved, exit 2 in one
    line; the mode buying the ladder feature still solves."""
    import analytic.features.engines.drawn_expanding.engine as eng
    from analytic.cli import main
    from analytic.errors import ModelError
    from analytic.solver.round import check_round

    game = _game(True)
    for mode in ("base", "buy_free_spins"):
        with pytest.raises(ModelError) as err:
            check_round(game, mode)
        assert err.value.key == "rules.scatter_substitutes_for_expanding_in_line_wins"
        assert f"bet mode {mode!r}" in err.value.reason
    check_round(game, "buy_power_free_spins")
    check_round(_game(False), "base")

    def no_solve(*a, **k):
        raise AssertionError("a feature was solved before the refusal")

    monkeypatch.setattr(eng, "solve_feature", no_solve)
    import analytic.features.result as result

    monkeypatch.setitem(result.SOLVERS, "drawn_expanding", no_solve)
    model = tmp_path / "literal.toml"
    start = TINY.replace("CAP", str(10**6))
    model.write_text(with_reading(start, True))
    assert main(["solve", str(model), "--mode", "all"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"error: {model}: rules.scatter_substitutes_for_expanding_in_line_wins: false: ")
