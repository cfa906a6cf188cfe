"""Book of Power: the lower bound of the cap's cut on regular Free Spins, and the parallel solves.

Oracles: the path recursion of ``test_draw_cap_law`` (every draw of the
9 symbols enumerated, on the tiny one-row game), which carries the whole win or
the expansion win alone.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from test_drawn_oracles import ORDER, tiny
from test_draw_cap_law import _oracle

from analytic.solver.round import solve_round as _solve_round


def _plain_round(game, mode, workspace=None):
    """The mode's round without cap or gamble (what the round solver hands its delegate)."""
    return _solve_round(game, mode, plain=True, workspace=workspace)


@pytest.mark.parametrize("n0", [2, 3])
def test_all_symbols_tracked_on_a_unit_grid_is_the_exact_expansion_law(n0):
    """Every symbol tracked, unit grid: the law is the expansion win's, less only the dropped mass."""
    from analytic.features.engines.drawn_expanding.draw_cap_low import regular_cap_lower

    C = 30
    game = tiny(C)
    b = regular_cap_lower(game, "free_spins", n0, u=1, eps=1e-15, tracked=ORDER)
    assert b.u == 1 and b.N == C + 1 and b.lost < 1e-9
    full = _oracle(game, n0, lines=False, limit=10**9)
    lost = 1 - sum(full.values())  # the oracle drops paths beyond 4 awards
    assert lost < 1e-7
    for k in range(b.N):
        exact = float(full.get(k, 0.0))
        assert exact - b.lost - 1e-12 <= b.law[k] <= exact + lost + 1e-12
    over = sum(q for w, q in full.items() if w >= b.N)
    assert over - b.lost - 1e-12 <= b.over_p <= over + lost + 1e-12
    for c in (0, 5, 12, 25):  # sharp, not only valid
        exact = sum(q * max(w - c, 0) for w, q in full.items())
        got = float(b.x_excess_vec([float(c)])[0])
        assert exact * (1 - 1e-6) - 1e-7 <= got <= exact + lost * 100 + 1e-12


@lru_cache(maxsize=None)
def _whole_win_law(C: int, n0: int) -> dict:
    """The whole feature win's law by the path recursion (paths beyond 5 awards dropped)."""
    return _oracle(tiny(C), n0, lines=True, limit=10**9, jmax=5)


@pytest.mark.parametrize("tracked", [None, ("explorer",), ("pharaoh", "ten", "beetle")])
def test_cut_lower_bounds_hold_against_path_recursion(tracked):
    from analytic.features.engines.drawn_expanding.draw_cap_low import regular_cap_lower

    C = 40
    game = tiny(C)
    n0 = 3
    b = regular_cap_lower(game, "free_spins", n0, eps=1e-12, tracked=tracked)
    law = _whole_win_law(C, n0)
    lost = 1 - sum(law.values())  # paths beyond 5 awards: the oracle is below the truth by about this
    assert lost < 1e-9
    for B in (0, 5, 17, 33, 45):
        ex = sum(q * max(B + w - C, 0) for w, q in law.items())
        pc = sum(q for w, q in law.items() if B + w >= C)
        lo_e, lo_p = b.excess(float(B), float(C)), b.p_reach(float(B), float(C))
        assert 0 <= lo_e <= ex + 1e4 * lost + 1e-12
        assert 0 <= lo_p <= pc + lost + 1e-12
        assert lo_e > 0 and lo_p > 0  # not vacuous (sharpness: the all-tracked test above)


@pytest.mark.parametrize("tracked", [("explorer",), ("pharaoh", "ten", "beetle")])
def test_the_untracked_conditional_mean_only_raises_the_bound(tracked):
    """Jensen's term (the untracked symbols at their conditional mean) adds pay: with nothing
    dropped (tiny eps, unit grid) the bound with it is at least the bound without, and it
    still holds against the whole win's law (the test above, on the default grid)."""
    from analytic.features.engines.drawn_expanding.draw_cap_low import regular_cap_lower

    C = 40
    game = tiny(C)
    with_mean = regular_cap_lower(game, "free_spins", 3, u=1, eps=1e-15, tracked=tracked)
    without = regular_cap_lower(game, "free_spins", 3, u=1, eps=1e-15, tracked=tracked, rest_mean=False)
    law = _whole_win_law(C, 3)
    lost = 1 - sum(law.values())
    gained = False
    for B in (0, 5, 17, 33):
        ex = sum(q * max(B + w - C, 0) for w, q in law.items())
        a, b = with_mean.excess(float(B), float(C)), without.excess(float(B), float(C))
        assert b * (1 - 1e-9) - 1e-12 <= a <= ex + 1e4 * lost + 1e-12
        gained |= a > b * (1 + 1e-6)
    assert gained


def test_lower_bound_rejects_bad_settings():
    from analytic.features.engines.drawn_expanding.draw_cap_low import regular_cap_lower

    game = tiny(40)
    with pytest.raises(ValueError, match="eps"):
        regular_cap_lower(game, "free_spins", 3, eps=0.0)
    with pytest.raises(ValueError, match="tracked"):
        regular_cap_lower(game, "free_spins", 3, tracked=("explorer", "book"))
    with pytest.raises(ValueError, match="regular Free Spins only"):
        regular_cap_lower(game, "power_free_spins", 3)


def test_parallel_solves_equal_the_sequential_ones(monkeypatch):
    """Two worker processes give the very same bounds as solving in this process."""
    from analytic.features.engines.drawn_expanding import draw_bounds as rb

    from analytic.workspace import Workspace

    game = tiny(40)
    par = rb.regular_cap_bounds(game, "free_spins", [2, 3], ws=Workspace(game, workers=2))
    seq = rb.regular_cap_bounds(game, "free_spins", [3, 2], ws=Workspace(game, workers=1))
    assert sorted(par) == sorted(seq) == [2, 3]
    for n0 in (2, 3):
        (up_p, lo_p), (up_s, lo_s) = par[n0], seq[n0]
        assert np.array_equal(up_p.law, up_s.law) and up_p.excess(5.0, 40.0) == up_s.excess(5.0, 40.0)
        assert np.array_equal(lo_p.law, lo_s.law) and lo_p.excess(5.0, 40.0) == lo_s.excess(5.0, 40.0)


@pytest.mark.parametrize("value", [0, "two", -1, 1.5, True])
def test_worker_count_setting_is_checked(value):
    from analytic.features.engines.drawn_expanding.draw_bounds import workers
    from analytic.workspace import Workspace

    with pytest.raises(ValueError, match="workers"):
        workers(3, value)
    with pytest.raises(ValueError, match="workers"):
        Workspace(tiny(40), workers=value)
    assert workers(3, 8) == 3 and workers(5, 2) == 2


# The round interval's two-sidedness on the tiny game's buy mode is asserted in
# test_draw_cap_law.test_round_interval_holds_brute_force_and_is_narrower (one brute force for both).


def test_lower_bound_refuses_beyond_its_state_limit_and_the_round_falls_back(monkeypatch):
    """Too many states: a ValueError from the solve; in a round, the cut's lower bound is then 0."""
    from analytic.features.engines.drawn_expanding import engine as bop
    from analytic.features.engines.drawn_expanding import draw_cap_low as rl

    game = tiny(40)
    with pytest.raises(ValueError, match="more than 5 states"):
        rl.regular_cap_lower(game, "free_spins", 3, max_states=5)
    r = bop.solve_drawn_expanding_round(game, "buy_free_spins", plain=_plain_round(game, "buy_free_spins"))
    monkeypatch.setattr(rl, "MAX_STATES", 5)  # (the next solve has a fresh workspace)
    r0 = bop.solve_drawn_expanding_round(game, "buy_free_spins", plain=_plain_round(game, "buy_free_spins"))
    cp, cp0 = r.extra["capped_rtp"], r0.extra["capped_rtp"]
    assert cp.value - cp.error == cp0.value - cp0.error  # the upper bound of the cut is unchanged
    assert cp0.value + cp0.error == r0.extra["uncapped_rtp"].value + r0.extra["uncapped_rtp"].error
    assert cp.value + cp.error < cp0.value + cp0.error
