"""Book of Power: the grouped forward law that bounds the cap's cut on regular Free Spins.

Oracles written here, on the tiny one-row game of ``test_drawn_oracles``:

* the joint (award, group expansion pays) table against a window-by-window count;
* the law of the expansion win (singleton groups, unit grid) against a recursion
  over (spins left, draw counts of all 9 symbols) that enumerates every draw;
* ``E[(X - c)+]`` against that law to 1e-8 (sharp, not only valid);
* the cut ``E[(B + W - C)+]`` and ``P(B + W >= C)`` (line wins included) against the
  same recursion carrying the whole win: the bound must hold, with the default
  grouping and with coarser ones;
* the award-visit polynomial ``V(n) = alpha n^2 + beta n`` against value iteration;
* the round: the capped RTP interval of the buy mode holds the brute-force value and
  is narrower than with the moment bounds alone.
"""

from __future__ import annotations

import itertools
import os
from collections import Counter
from functools import lru_cache

from fractions import Fraction

import numpy as np
import pytest

from test_drawn_oracles import (
    ORDER,
    WILD,
    _expand,
    _line,
    _pays,
    tiny,
)

from analytic.solver.round import solve_round as _solve_round


def _plain_round(game, mode, workspace=None):
    """The mode's round without cap or gamble (what the round solver hands its delegate)."""
    return _solve_round(game, mode, plain=True, workspace=workspace)


def _table(game):
    """(award, line pay, reels showing each symbol) -> probability, by brute force over windows.

    Under the literal reading (rule ``scatter_substitutes_for_expanding_in_line_wins = false``) the
    line pay is the tuple of the pays per set of expanding symbols (bit ``i`` = ``ORDER[i]``): the
    books do not stand in for a drawn symbol.
    """
    pays = _pays(game)
    tab = Counter()
    wins = list(itertools.product(*game.reel_sets["free"]))
    lit = not game.rules.get("scatter_substitutes_for_expanding_in_line_wins", True)
    for w in wins:
        b = sum(c in WILD for c in w)
        a = b - 1 if b >= 2 else 0
        if lit:
            L = tuple(_line(pays, w, {s for i, s in enumerate(ORDER) if m >> i & 1}) for m in range(512))
        else:
            L = _line(pays, w)
        tab[(a, L, tuple(sum(x == s for x in w) for s in ORDER))] += 1
    return [(a, L, ns, n / len(wins)) for (a, L, ns), n in tab.items()], pays


def test_expansion_table_against_windows():
    from analytic.features.engines.drawn_expanding.draw_cap import expansion_table
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats

    game = tiny()
    st = spin_stats(game, "free_spins")
    groups = [("explorer",), ("pharaoh", "ten"), ("beetle", "statue", "jack", "queen", "king", "ace")]
    keys, cnt = expansion_table(st, groups)
    got = {tuple(int(x) for x in k): int(c) for k, c in zip(keys, cnt)}
    pays = _pays(game)
    want = Counter()
    for w in itertools.product(*game.reel_sets["free"]):
        b = sum(c in WILD for c in w)
        key = [b - 1 if b >= 2 else 0]
        for g in groups:
            key.append(sum(_expand(pays, s, sum(x == s for x in w)) for s in g))
        want[tuple(key)] += 1
    assert got == dict(want)


def _mult(c: int, reading: str = "count", ceiling: int = 9) -> int:
    """The rule text: a symbol drawn c times pays at x c ('count') or x max(c - 1, 1), at most the ceiling."""
    if c == 0:
        return 0
    return min(c if reading == "count" else max(c - 1, 1), ceiling)


def _oracle(game, n0, *, lines: bool, limit: int, jmax: int = 4, reading: str = "count", ceiling: int = 9):
    """Law of the feature win (with or without line wins), values >= limit lumped at limit.

    Recursion over (spins left, draw counts of the 9 symbols), every draw enumerated
    (1/9 each); paths with more than ``jmax`` awards are dropped (returned as lost mass).
    ``reading``, ``ceiling``: the multiplier of a symbol drawn c times (:func:`_mult`).
    """
    table, pays = _table(game)

    @lru_cache(maxsize=None)
    def go(K, counts):
        if K == 0:
            return {0: 1.0}
        if sum(counts) > jmax + 1:
            return {}
        mult = [_mult(c, reading, ceiling) for c in counts]
        S = sum(1 << i for i, c in enumerate(counts) if c)
        merged: dict = {}
        for a, L, ns, p in table:
            line = L[S] if isinstance(L, tuple) else L
            x = sum(m * _expand(pays, s, n) for m, s, n in zip(mult, ORDER, ns) if m) + (line if lines else 0)
            merged[(a, x)] = merged.get((a, x), 0.0) + p
        out: dict = {}
        for (a, x), p in merged.items():
            if a:
                nxt: dict = {}
                for d in range(9):
                    nc = list(counts)
                    nc[d] += 1
                    for w, q in go(K - 1 + a, tuple(nc)).items():
                        nxt[w] = nxt.get(w, 0) + q / 9
            else:
                nxt = go(K - 1, counts)
            for w, q in nxt.items():
                v = min(w + x, limit)
                out[v] = out.get(v, 0) + p * q
        return out

    law: dict = {}
    for d in range(9):
        c = [0] * 9
        c[d] = 1
        for w, q in go(n0, tuple(c)).items():
            law[w] = law.get(w, 0) + q / 9
    return law


@pytest.mark.parametrize("n0, lines", [(2, False), (3, False), (2, True), (3, True)])
def test_expansion_law_is_exact_with_singleton_groups(n0, lines):
    """Singleton groups, unit grid, pruning at 1e-14: the final law is the exact law of the
    expansion win (with ``lines``, of the whole win: line wins from the joint line walk)."""
    from analytic.features.engines.drawn_expanding.draw_cap import regular_cap_bound

    C = 30
    game = tiny(C)
    b = regular_cap_bound(game, "free_spins", n0, u=1, eps=1e-14, groups=[(s,) for s in ORDER], lines=lines)
    assert b.u == 1 and b.N == C + 1 and b.pr_mass < 1e-10
    full = _oracle(game, n0, lines=lines, limit=10**9)
    law: dict = {}
    for w, q in full.items():
        law[min(w, b.N)] = law.get(min(w, b.N), 0.0) + q
    lost = 1 - sum(law.values()) + 1e-13
    assert lost < 1e-7
    for k in range(b.N):
        exact = float(law.get(k, 0))
        assert exact - b.pr_mass - 1e-12 <= b.law[k] <= exact + float(lost) + 1e-12
    # the overflow mass: between the bounds kept by the solver
    over = float(law.get(b.N, 0))
    assert b.over_p_lo - 1e-12 <= over + float(lost) and over - b.pr_mass - 1e-12 <= b.over_p_hi
    # not only valid but sharp: E[(X - c)+] to 1e-6 relative (the overflow carries its exact mean;
    # the oracle drops paths beyond 4 awards)
    for c in (5, 12, 25):
        exact = sum(q * max(w - c, 0) for w, q in full.items())
        # (with line wins the oracle's dropped paths weigh more: 1.2e-7 absolute seen at c = 12)
        assert exact - 1e-12 <= b.x_excess(float(c)) <= exact * (1 + 1e-6) + (1e-6 if lines else 1e-8)


@pytest.mark.parametrize("groups", [
    None,  # the default grouping
    [("explorer",), ("pharaoh", "statue", "beetle"), ("ten", "jack", "queen", "king", "ace")],
    [tuple(ORDER)],
])
def test_cut_bounds_hold_against_path_recursion(groups):
    from analytic.features.engines.drawn_expanding.draw_cap import regular_cap_bound

    C = 40
    game = tiny(C)
    n0 = 3
    b = regular_cap_bound(game, "free_spins", n0, eps=1e-9, groups=groups)
    law = _oracle(game, n0, lines=True, limit=400)  # wins beyond 400 counted as 400: a lower bound
    for B in (0, 5, 17, 33):
        ex = sum(q * max(B + w - C, 0) for w, q in law.items())
        pc = sum(q for w, q in law.items() if B + w >= C)
        assert float(ex) <= b.excess(float(B), float(C))
        assert float(pc) <= b.p_reach(float(B), float(C))


def test_award_visit_polynomial_against_value_iteration():
    """V(n) = E[sum over award spins of the spins left after them] = alpha n^2 + beta n."""
    from analytic.features.engines.drawn_expanding.draw_cap import later_award_coefficients

    law = {0: Fraction(7, 10), 1: Fraction(2, 10), 3: Fraction(1, 10)}
    alpha, beta = later_award_coefficients(law)
    top = 600
    V = np.zeros(top + 4)
    for _ in range(3000):
        W = np.zeros_like(V)
        for n in range(1, top):
            W[n] = sum(float(p) * ((n - 1 + a if a else 0) + V[n - 1 + a]) for a, p in law.items())
        V = W
    for n in (1, 2, 5, 10, 30):
        assert abs(V[n] - float(alpha * n * n + beta * n)) < 1e-9 * max(1.0, V[n])


def _buy_capped_rtp(game, C: int, jmax: int = 5) -> tuple[float, float]:
    """Capped RTP of the tiny game's Free Spins buy, by the path recursion (whole win, capped at C).

    Returns ``(lo, hi)``: the paths cut after ``jmax`` awards count 0 in ``lo`` and ``C`` in
    ``hi``.  (Found when the mixture's levels moved to the quantile steps: with ``jmax = 4`` the
    cut mass was 1e-8, and the point value it gave fell 4.6e-9 below the tighter interval.)
    """
    mode = game.modes["buy_free_spins"]
    counts = game.features["free_spins"].trigger.counts
    tot = sum(mode.buy_counts.values())
    capped = lost = 0.0
    for n, w in mode.buy_counts.items():
        law = _oracle(game, counts[n], lines=True, limit=10**9, jmax=jmax)
        capped += w / tot * float(sum(q * min(x, C) for x, q in law.items()))
        lost += w / tot * max(0.0, 1.0 - float(sum(law.values())))
    return capped / float(mode.cost), (capped + lost * C) / float(mode.cost)


def test_round_interval_holds_brute_force_and_is_narrower(monkeypatch):
    """Buy mode of the tiny game: the capped RTP interval holds the recursion's; the cut's lower
    bound (draw_cap_low) makes it two-sided, below the uncapped RTP; the cap law narrows it."""
    from analytic.features.engines.drawn_expanding import engine as bop

    C = 40
    game = tiny(C)
    lo, hi = _buy_capped_rtp(game, C)
    assert hi - lo < 1e-9
    r = bop.solve_drawn_expanding_round(game, "buy_free_spins", plain=_plain_round(game, "buy_free_spins"))
    cp, un = r.extra["capped_rtp"], r.extra["uncapped_rtp"]
    assert float(cp.value - cp.error) - 1e-12 <= hi and lo <= float(cp.value + cp.error) + 1e-12
    assert cp.value + cp.error < un.value - un.error  # the cut is certainly positive
    pc = r.extra["p_reach_cap"]
    assert pc.value - pc.error > 0
    monkeypatch.setattr(bop, "REGULAR_CAP_LAW", False)
    r0 = bop.solve_drawn_expanding_round(game, "buy_free_spins", plain=_plain_round(game, "buy_free_spins"))
    assert cp.error < r0.extra["capped_rtp"].error


@pytest.mark.skipif(os.environ.get("ANALYTIC_SLOW") != "1", reason="literal reading of a heavy oracle: ANALYTIC_SLOW=1")
def test_round_interval_holds_brute_force_under_the_literal_reading():
    """Regular Free Spins under the literal reading: the capped RTP interval (the cut bounded by the
    bounding games' upper and lower bounds, the mean exact) holds the recursion's capped RTP, paid
    with the line pay of the set of expanding symbols drawn so far; and the reading moves it."""
    from analytic.features.engines.drawn_expanding import engine as bop

    C = 40
    game = tiny(C, literal=True)
    lo, hi = _buy_capped_rtp(game, C)
    assert hi - lo < 1e-9
    r = bop.solve_drawn_expanding_round(game, "buy_free_spins", plain=_plain_round(game, "buy_free_spins"))
    cp = r.extra["capped_rtp"]
    assert float(cp.value - cp.error) - 1e-12 <= hi and lo <= float(cp.value + cp.error) + 1e-12
    assert "literal reading" in r.extra["cap_method"]
    olo, ohi = _buy_capped_rtp(tiny(C), C)
    assert hi < olo  # the books standing in for fewer symbols: less to win


@pytest.mark.parametrize("u, C", [(11, 20), (3, 25)])
def test_spread_on_a_coarse_grid_still_bounds_the_expansion_excess(u, C):
    """A grid unit that does not divide the cap (the spread and the overflow near the cap in use)."""
    from analytic.features.engines.drawn_expanding.draw_cap import regular_cap_bound

    game = tiny(C)
    n0 = 2
    b = regular_cap_bound(game, "free_spins", n0, u=u, eps=1e-14, groups=[(s,) for s in ORDER])
    assert (b.N - 1) * b.u >= C
    full = _oracle(game, n0, lines=False, limit=10**9)
    for c in range(0, C + 1):
        exact = sum(q * max(w - c, 0) for w, q in full.items())
        assert exact <= b.x_excess(float(c)) * (1 + 1e-12) + 1e-15


@pytest.mark.parametrize("eps, eps_mgf", [(0.2, None), (0.05, None), (0.2, 0.02), (0.05, 0.005)])
def test_dropped_states_are_charged_enough(eps, eps_mgf):
    """Most states leave the grid (MGF mode), some also MGF mode: the bounds stay valid."""
    from analytic.features.engines.drawn_expanding.draw_cap import regular_cap_bound

    C = 24
    game = tiny(C)
    n0 = 3
    full = _oracle(game, n0, lines=False, limit=10**9)
    mean = sum(q * w for w, q in full.items())
    for groups in (None, [(s,) for s in ORDER]):
        b = regular_cap_bound(game, "free_spins", n0, eps=eps, groups=groups, eps_mgf=eps_mgf)
        assert b.pr_mass > 0.01  # most mass leaves the grid
        if eps_mgf is None:
            assert b.mgf_states > 0  # MGF mode is exercised
        else:
            assert b.pr_rbar > 0  # states dropped from MGF mode are charged
        assert mean <= b.x_excess(0.0) * (1 + 1e-12)
        for c in (4, 10, 20, 24):
            exact = sum(q * max(w - c, 0) for w, q in full.items())
            assert exact <= b.x_excess(float(c)) * (1 + 1e-12)
            tail = sum(q for w, q in full.items() if w >= c)
            assert tail <= b.x_tail(float(c)) * (1 + 1e-12)


def test_mgf_mode_is_sharper_than_mean_charge_in_the_tail():
    """With most mass in MGF mode, the Chernoff part stays far below the mass times the mean."""
    from analytic.features.engines.drawn_expanding.draw_cap import regular_cap_bound

    C = 24
    game = tiny(C)
    n0 = 3
    full = _oracle(game, n0, lines=False, limit=10**9)
    b = regular_cap_bound(game, "free_spins", n0, eps=0.2, groups=[(s,) for s in ORDER])
    exact = sum(q * max(w - C, 0) for w, q in full.items())
    mgf = float(b._mgf_excess(np.array([float(C)]))[0])
    assert exact <= b.x_excess(float(C))
    assert mgf < 0.5 * b.mgf_T[:, 1].sum()  # Chernoff beats charging every MGF path its whole mean


def test_a_refused_forward_law_is_said_in_cap_method(monkeypatch):
    """When the grouped forward law refuses (too many states), the moment bounds stand and cap_method says so."""
    from analytic.features.engines.drawn_expanding import engine as bop
    from analytic.features.engines.drawn_expanding import draw_cap as rc

    game = tiny(40)
    calls = []

    def refuse(game, feature, n0, levels, **kw):
        calls.append((n0, tuple(levels)))
        raise rc.TooManyStates("regular_cap_bound: more than 0 states")

    monkeypatch.setattr(rc, "regular_cap_bound_levels", refuse)
    r = bop.solve_drawn_expanding_round(game, "buy_free_spins", plain=_plain_round(game, "buy_free_spins"))
    assert "refused" in r.extra["cap_method"]
    assert len(calls) == len(set(calls))  # tried once per (start, run of levels), not once per outcome
    monkeypatch.setattr(bop, "REGULAR_CAP_LAW", False)
    r0 = bop.solve_drawn_expanding_round(game, "buy_free_spins", plain=_plain_round(game, "buy_free_spins"))
    cp, cp0 = r.extra["capped_rtp"], r0.extra["capped_rtp"]
    assert cp.value - cp.error == cp0.value - cp0.error  # the upper bound of the cut: moments alone
    assert cp.value + cp.error < cp0.value + cp0.error  # the lower bound (its own law) still applies
    assert "refused" not in r0.extra["cap_method"]


def test_other_errors_of_the_forward_law_are_not_taken_for_a_refusal(monkeypatch):
    """Found in review: any ValueError of the bound's solve was read as 'too many states'."""
    from analytic.features.engines.drawn_expanding import engine as bop
    from analytic.features.engines.drawn_expanding import draw_cap as rc

    def broken(game, feature, n0, levels, **kw):
        raise ValueError("regular_cap_bound: something else went wrong")

    monkeypatch.setattr(rc, "regular_cap_bound_levels", broken)
    with pytest.raises(ValueError, match="something else"):
        bop.solve_drawn_expanding_round(tiny(41), "buy_free_spins", plain=_plain_round(tiny(41), "buy_free_spins"))


def _explorer_game(free: str, C: int):
    """The tiny game with its free strips replaced (a review's adversarial case)."""
    import re

    from test_drawn_oracles import TINY

    from analytic.model import load_model_text

    text = re.sub(r"\nfree = \[.*?\n\]", free, TINY, count=1, flags=re.S).replace("CAP", str(C))
    return load_model_text(text, path="adversarial_bop.toml")


def test_tail_holds_when_states_are_dropped_mid_path():
    """States dropped from MGF mode carry only their win so far: the tail must still cover them.

    Found in review: a separate Chernoff tail of the MGF paths gave P(X >= 40) <= 0.064
    where the truth is 0.091 (explorer-only strips, a book on two reels).
    """
    from analytic.features.engines.drawn_expanding.draw_cap import regular_cap_bound

    strip = "[" + ", ".join(['"explorer"'] * 19 + ['"book"']) + "]"
    singles = [(s,) for s in ORDER]
    # expansion only
    game = _explorer_game(f"\nfree = [\n  {strip},\n  {strip},\n  [\"explorer\"], [\"explorer\"], [\"explorer\"],\n]", 40)
    law = _oracle(game, 2, lines=False, limit=10**9, jmax=6)
    b = regular_cap_bound(game, "free_spins", 2, u=1, eps=1.0, eps_mgf=0.111, groups=singles)
    assert b.pr_rbar > 0  # states were dropped from MGF mode
    for c in (10, 24, 40):
        assert sum(q for w, q in law.items() if w >= c) <= b.x_tail(float(c))
        assert sum(q * max(w - c, 0) for w, q in law.items()) <= b.x_excess(float(c))
    # the round's view, no line wins on these strips
    game = _explorer_game(f"\nfree = [\n  [\"explorer\"], [\"ten\"], [\"explorer\"],\n  {strip},\n  {strip},\n]", 24)
    law = _oracle(game, 2, lines=True, limit=10**9, jmax=6)
    b = regular_cap_bound(game, "free_spins", 2, u=1, eps=1.0, eps_mgf=0.111, groups=singles)
    for B in range(0, 8):
        assert sum(q for w, q in law.items() if B + w >= 24) <= b.p_reach(float(B), 24.0)
        assert sum(q * max(B + w - 24, 0) for w, q in law.items()) <= b.excess(float(B), 24.0)


def test_eps_must_be_positive():
    from analytic.features.engines.drawn_expanding.draw_cap import regular_cap_bound

    with pytest.raises(ValueError, match="positive"):
        regular_cap_bound(tiny(30), "free_spins", 2, eps=0.1, eps_mgf=0.0)


@pytest.mark.parametrize("groups", [[("ten",), ("ten",), ("jack", "queen", "king", "ace", "beetle", "statue", "pharaoh")],
                                    [("ten", "ten"), ("jack", "queen", "king", "ace", "beetle", "statue", "pharaoh")],
                                    # found in review: a book in a group was a KeyError deep in the table
                                    [("book",), ("ten", "jack", "queen", "king", "ace", "beetle", "statue",
                                                 "pharaoh", "explorer")],
                                    [(), ("ten", "jack", "queen", "king", "ace", "beetle", "statue",
                                          "pharaoh", "explorer")]])
def test_groups_that_are_not_a_partition_are_refused(groups):
    """Found in review: sizes adding up to 9 passed the check while explorer was left out (bound far too low)."""
    from analytic.features.engines.drawn_expanding.draw_cap import regular_cap_bound

    with pytest.raises(ValueError, match="partition"):
        regular_cap_bound(tiny(30), "free_spins", 3, groups=groups)


@pytest.mark.parametrize("u", [0, -5, 2.5, float("nan"), True])
def test_a_grid_unit_that_is_not_a_positive_integer_is_refused(u):
    """Found in review: u <= 0 or NaN gave numpy errors far from the cause."""
    from analytic.features.engines.drawn_expanding.draw_cap import regular_cap_bound
    from analytic.features.engines.drawn_expanding.draw_cap_low import regular_cap_lower

    with pytest.raises(ValueError, match="grid unit"):
        regular_cap_bound(tiny(30), "free_spins", 3, u=u)
    with pytest.raises(ValueError, match="grid unit"):
        regular_cap_lower(tiny(30), "free_spins", 3, u=u)
