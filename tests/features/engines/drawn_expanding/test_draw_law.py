"""Book of Power: the regular Free Spins' forward law over the first draws (``draw_law``).

Oracle: the path recursion of ``test_draw_cap_law._oracle`` (every window class and every draw
enumerated, in floats), which drops the paths with more than ``jmax`` awards: with ``jmax = draws -
1`` it keeps exactly the paths the forward law finishes, so the finished law must match it cell by
cell; with a larger ``jmax`` the bounds of ``P(W >= c)`` must hold it.
"""

from __future__ import annotations

import pytest

from test_drawn_oracles import tiny
from test_draw_cap_law import _oracle


def _law(game, n0, draws, cells):
    from analytic.features.engines.drawn_expanding.draw_law import draw_law
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats
    from analytic.workspace import Workspace

    return draw_law(spin_stats(game, "free_spins", Workspace(game)), n0, draws=draws, reach_cells=cells)


def _tail(law: dict, c) -> float:
    return sum(q for w, q in law.items() if w >= c)


@pytest.mark.parametrize("n0, draws", [(2, 1), (2, 2), (3, 2), (2, 3)])
def test_finished_paths_match_the_recursion_of_the_same_paths(n0, draws):
    game = tiny()
    law = _law(game, n0, draws, cells=40)
    u, M = law.u, law.M
    same = _oracle(game, n0, lines=True, limit=10**9, jmax=draws - 1)  # the paths with < draws awards
    for k in range(M + 1):
        want = _tail(same, k * u)
        got = float(law.F[k:].sum())
        assert want - 1e-9 <= got <= want + 1e-13, (k, got, want)  # a lower bound, and sharp
    # nothing is lost but the lowerings: every path finishes or stops
    assert 1 - 1e-9 <= law.stopped + law.F.sum() <= 1 + 1e-13


@pytest.mark.parametrize("n0, draws", [(2, 1), (3, 2), (3, 3)])
def test_bounds_hold_the_whole_win(n0, draws):
    game = tiny()
    law = _law(game, n0, draws, cells=60)
    full = _oracle(game, n0, lines=True, limit=10**9, jmax=4)
    lost = 1 - sum(full.values())  # (the paths with more than 4 awards: the truth lies in [p, p + lost])
    assert lost < 1e-4
    cs = list(range(1, law.M * law.u + 1))
    lo, hi = law.tail_bounds(cs)
    for c, a, b in zip(cs, lo, hi):
        p = _tail(full, c)
        assert a <= p + lost + 1e-12 and p - 1e-12 <= b, (c, a, p, b)
        assert b - a <= law.stopped + 1e-9  # the gap: at most the stopped paths' mass
    # beyond the grid, or at 0: nothing said
    lo, hi = law.tail_bounds([0, law.M * law.u + 1])
    assert list(lo) == [0, 0] and list(hi) == [1, 1]


def test_more_draws_narrow_the_bounds():
    game = tiny()
    gaps = []
    for draws in (1, 2, 3):
        law = _law(game, 3, draws, cells=60)
        lo, hi = law.tail_bounds(range(1, law.M * law.u + 1))
        gaps.append(max(hi - lo))
    assert gaps[0] > gaps[1] > gaps[2]


def test_a_bad_start_is_refused():
    with pytest.raises(ValueError, match="draws 0"):
        _law(tiny(), 2, 0, cells=10)


def test_worker_processes_change_no_bit():
    from analytic.features.engines.drawn_expanding.draw_law import draw_laws
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats
    from analytic.workspace import Workspace

    game = tiny()
    st = spin_stats(game, "free_spins", Workspace(game))
    jobs = [(st, n0, {"draws": 2, "reach_cells": 30}) for n0 in (2, 3, 4)]
    one, two = draw_laws(jobs, workers=1), draw_laws(jobs, workers=2)
    for a, b in zip(one, two):
        assert a.F.tobytes() == b.F.tobytes() and a.T.tobytes() == b.T.tobytes() and a.n0 == b.n0
    assert [law.n0 for law in one] == [2, 3, 4]


@pytest.mark.parametrize("shape", ["uniform", "spiky", "point", "random"])
def test_fft_error_bound_holds_against_an_exact_convolution(shape):
    """Entries ``a / 2^30`` with integers ``a < 2^19`` (1,500 of them: masses below 1): the exact
    convolution is ``conv(a, b) / 2^60``, an integer sum below 2^49 (exact in int64) divided by a power
    of two (exact in float64).  The FFT product's error at every cell must lie within
    :func:`fft_error`."""
    import numpy as np

    from analytic.features.engines.drawn_expanding.draw_law import fft_error

    rng = np.random.default_rng(3)
    M, n = 1500, 4096
    if shape == "uniform":
        a = np.full(M, 2**18, dtype=np.int64)
        b = np.full(M, 2**18, dtype=np.int64)
    elif shape == "spiky":
        a = np.zeros(M, dtype=np.int64)
        a[::97] = rng.integers(1, 2**19, len(a[::97]))
        b = rng.integers(0, 2**12, M)
    elif shape == "point":
        a = np.zeros(M, dtype=np.int64)
        a[7] = 2**19 - 1
        b = rng.integers(0, 2**19, M)
    else:
        a = rng.integers(0, 2**19, M)
        b = rng.integers(0, 2**19, M)
    x, h = a / 2.0**30, b / 2.0**30
    assert x.sum() < 1 and h.sum() < 1
    exact = np.convolve(a, b) / 2.0**60  # (int64 sums below 2^49: exact)
    got = np.fft.irfft(np.fft.rfft(x, n) * np.fft.rfft(h, n), n)[:2 * M - 1]
    bound = fft_error(n, np.linalg.norm(x) * (1 + 1e-12), x.sum() * (1 + 1e-12),
                      np.linalg.norm(h) * (1 + 1e-12), h.sum() * (1 + 1e-12))
    assert np.max(np.abs(got - exact)) <= bound
