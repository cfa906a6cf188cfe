"""Book of Power: P(feature wins nothing) against path recursions written from the rule text.

The oracles enumerate the tiny game's windows (``test_drawn_oracles``), follow every
draw or ladder step and every golden reel, and cut paths after ``jmax`` awards (worth 0 below,
1 above): exact fractions.  The solver's bounds come from the joint line walk and the spin
tables, a zeta transform over the expanding sets and a backward float recursion.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from functools import lru_cache

import pytest

from test_drawn_oracles import ORDER, TINY, _award, _expand, _ladder, _line, _pays, _power_spin, \
    _power_table, _windows, tiny

from analytic.model.loader import load_model_text

from analytic.solver.round import solve_round as _solve_round


def _plain_round(game, mode, workspace=None):
    """The mode's round without cap or gamble (what the round solver hands its delegate)."""
    return _solve_round(game, mode, plain=True, workspace=workspace)


def tiny_with_books():
    """The tiny game with a book on free reels 4 and 5, so that spins with an award can win nothing
    (in ``tiny`` every free spin with two books wins a line: the award branch would go untested)."""
    head, rest = TINY.split("free = [", 1)
    free, tail = rest.split("power_free = [", 1)
    free = free.replace('["explorer", "statue", "beetle"]', '["explorer", "statue", "beetle", "book"]')
    free = free.replace('["explorer", "ten", "pharaoh"]', '["explorer", "ten", "pharaoh", "book"]')
    return load_model_text((head + "free = [" + free + "power_free = [" + tail).replace("CAP", str(10**6)),
                           path="tiny_books.toml")


def regular_zero_oracle(game, n0: int, jmax: int):
    """(lo, hi) of P(the regular feature wins nothing): floats (relative error far below 1e-12)."""
    pays = _pays(game)
    table = Counter()
    lit = not game.rules.get("scatter_substitutes_for_expanding_in_line_wins", True)
    for w in _windows(game, "free"):
        # literal reading: the line pay depends on the set S of expanding symbols (keep the cells)
        table[(_award(w), w if lit else _line(pays, w), tuple(w.count(s) for s in ORDER))] += 1
    tot = sum(table.values())

    @lru_cache(maxsize=None)
    def go(K, S, j):
        if K == 0:
            return 1.0, 1.0
        if j > jmax:
            return 0.0, 1.0
        lo = hi = 0.0
        for (a, L, ns), c in table.items():
            if (_line(pays, L, S) if lit else L) or any(_expand(pays, s, n) for s, n in zip(ORDER, ns) if s in S):
                continue
            p = c / tot
            if a:
                for d in ORDER:
                    x, y = go(K - 1 + a, S | frozenset([d]), j + 1)
                    lo, hi = lo + p * x / 9, hi + p * y / 9
            else:
                x, y = go(K - 1, S, j)
                lo, hi = lo + p * x, hi + p * y
        return lo, hi

    res = [go(n0, frozenset([d]), 0) for d in ORDER]
    return sum(r[0] for r in res) / 9, sum(r[1] for r in res) / 9


def power_zero_oracle(game, n0: int, jmax: int):
    tabs, pays = _power_table(game)
    tot_tabs = {s: [(k, Fraction(p).limit_denominator(10**9)) for k, p in t] for s, t in tabs.items()}

    @lru_cache(maxsize=None)
    def go(rho, j, G, K):
        if K == 0:
            return Fraction(1), Fraction(1)
        if j > jmax:
            return Fraction(0), Fraction(1)
        s, m = _ladder(rho + j)
        lo = hi = Fraction(0)
        for key, p in tot_tabs[s]:
            if _power_spin(pays, s, m, G, key):
                continue
            a, P = key[0], key[1]
            x, y = go(rho, j + (a > 0), G | P, K - 1 + a)
            lo, hi = lo + p * x, hi + p * y
        return lo, hi

    res = [go(r, 0, 0, n0) for r in range(1, 10)]
    return sum(r[0] for r in res) / 9, sum(r[1] for r in res) / 9


@pytest.mark.parametrize("feature,literal", [("free_spins", False), ("power_free_spins", False),
                                             ("power_free_spins", True)])
def test_zero_win_probability_against_path_recursion(feature, literal):
    from analytic.features.engines.drawn_expanding.zero_win import zero_win_probabilities

    game = tiny(literal=literal)  # literal: the oracle's table (_power_table) reads the rule
    got = zero_win_probabilities(game, feature)
    assert sorted(got) == [2, 3, 4]
    for n0, (lo, hi) in got.items():
        olo, ohi = (regular_zero_oracle if feature == "free_spins" else power_zero_oracle)(game, n0, 6)
        assert ohi - olo < 1e-6, (n0, float(olo), float(ohi))  # the oracle is sharp enough
        assert 0 < lo <= hi and hi - lo < 1e-9  # (awards are frequent in the tiny game: the cut shows)
        assert lo <= float(ohi) * (1 + 1e-12) and float(olo) <= hi * (1 + 1e-12), (n0, lo, hi, float(olo), float(ohi))


def test_regular_zero_win_literal_reading_within_the_bounding_games():
    """Regular Free Spins under the literal reading: P(feature wins nothing) lies between the
    bounding games' (books standing in for every symbol, for none), and the recursion paying the
    line of the set of expanding symbols drawn so far lies inside."""
    from analytic.features.engines.drawn_expanding.engine import solve_feature

    game = tiny(literal=True)
    for books, n0 in ((3, 2), (4, 3)):
        lo, hi = solve_feature(game, "free_spins", books).p_zero_bounds
        olo, ohi = regular_zero_oracle(game, n0, 4)
        assert ohi - olo < 1e-3
        assert float(lo) <= ohi * (1 + 1e-12) and olo <= float(hi) * (1 + 1e-12), (n0, lo, hi, olo, ohi)
        assert lo < hi


@lru_cache(maxsize=None)
def _books_oracle(n0):
    return regular_zero_oracle(tiny_with_books(), n0, 4)


@pytest.mark.parametrize("jmax", [None, 1, 0])
def test_regular_zero_win_with_awards_on_zero_win_spins(monkeypatch, jmax):
    """Awards on spins that win nothing: the draws, the award levels and the cut all count.  With
    ``JMAX`` lowered the cut's bound ``zsum^n`` carries more of the answer and must still hold."""
    from analytic.features.engines.drawn_expanding import zero_win as bz
    from analytic.features.engines.drawn_expanding.draw_cap import line_expansion_rows
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats

    game = tiny_with_books()
    A, E, L, cnt = line_expansion_rows(spin_stats(game, "free_spins"))
    assert cnt[(A > 0) & (L == 0) & (E.sum(axis=1) == 0)].sum() > 0  # zero-win spins with an award exist
    if jmax is not None:
        monkeypatch.setattr(bz, "JMAX", jmax)
    got = bz.zero_win_probabilities(game, "free_spins")  # (a fresh workspace: solved with this JMAX)
    for n0 in (2, 3):
        lo, hi = got[n0]
        olo, ohi = _books_oracle(n0)
        assert ohi - olo < 1e-3
        assert lo <= float(ohi) * (1 + 1e-12) and float(olo) <= hi * (1 + 1e-12), (n0, lo, hi, float(olo), float(ohi))
        if jmax is None:
            assert hi - lo < 1e-9
        else:  # the cut widens the interval, and it still holds the oracle's
            assert hi - lo > 1e-9


def test_power_table_probabilities_are_exact_fractions():
    """The Power oracle turns the window shares back into fractions: they must be the exact shares."""
    game = tiny()
    tabs, _pays_ = _power_table(game)
    tot = len(_windows(game, "power_free"))
    for t in tabs.values():
        for _key, p in t:
            assert Fraction(p).limit_denominator(10**9) * tot == round(p * tot)


def test_buy_hit_frequency_from_the_zero_win_bounds():
    """A buy's hit frequency is 1 - P(the bought feature wins nothing), the trigger counts weighted."""
    from analytic.features.engines.drawn_expanding import engine as bop

    game = tiny(40)  # (the cap does not touch P(win = 0); a small one keeps the round's cap bounds quick)
    for mode, feature, oracle in (("buy_free_spins", "free_spins", regular_zero_oracle),
                                  ("buy_power_free_spins", "power_free_spins", power_zero_oracle)):
        counts = game.modes[mode].buy_counts
        spins = game.features[feature].trigger.counts
        tot = sum(counts.values())
        zlo = sum(Fraction(w, tot) * oracle(game, spins[c], 6)[0] for c, w in counts.items())
        zhi = sum(Fraction(w, tot) * oracle(game, spins[c], 6)[1] for c, w in counts.items())
        hf = bop.solve_drawn_expanding_round(game, mode, plain=_plain_round(game, mode)).hit_frequency
        assert hf.label == "bounded" and hf.error < Fraction(1, 10**11)
        assert hf.value - hf.error <= 1 - zlo + Fraction(1, 10**12)
        assert hf.value + hf.error >= 1 - zhi - Fraction(1, 10**12)
