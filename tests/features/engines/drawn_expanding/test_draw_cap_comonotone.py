"""Book of Power: the pieces of the comonotone upper bound of the cap's cut.

Oracles written here:

* the binomial quantile against an enumeration of every draw sequence;
* the direct convolution of nonnegative laws against exact rational arithmetic,
  within the relative error it claims;
* the joint line walk (award, each symbol's expansion pay, line win) against a
  window-by-window count of the tiny game;
* the comonotone mixture (and each level's chain) against the path recursion
  that carries the whole win (``test_draw_cap_law._oracle``).
"""

from __future__ import annotations

import itertools
import math
import os
import random
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

SLOW = os.environ.get("ANALYTIC_SLOW") == "1"

from test_drawn_oracles import WILD, _expand, _line, _pays, tiny
from test_draw_cap_law import _oracle


@pytest.mark.parametrize("members", [2, 3, 7])
def test_binomial_quantile_against_enumerated_draws(members):
    from analytic.features.engines.drawn_expanding.draw_cap import binomial_quantile

    q = Fraction(1, members)
    for k in range(0, 6 if members == 7 else 8):
        hits = Counter(sum(1 for d in seq if d == 0) for seq in itertools.product(range(members), repeat=k))
        total = members ** k
        cdf, acc = [], 0
        for x in range(k + 1):
            acc += hits.get(x, 0)
            cdf.append(Fraction(acc, total))
        # the levels at the jumps themselves, and between them
        levels = set(cdf) | {(a + b) / 2 for a, b in zip([Fraction(0)] + cdf, cdf) if a < b}
        for lv in levels:
            if not 0 < lv <= 1:
                continue
            want = next(x for x in range(k + 1) if cdf[x] >= lv)
            assert binomial_quantile(lv, k, q) == want, (k, lv)


@pytest.mark.parametrize("members", [3, 7])
def test_binomial_step_is_the_last_float_of_its_quantile_bin(members):
    """The levels sit on steps of the quantile: at the step ``Q_U(k) = j``, one float above it ``j + 1``
    (the CDF from an enumeration of every draw sequence)."""
    from analytic.features.engines.drawn_expanding.draw_cap import binomial_step

    q = Fraction(1, members)
    for k in range(1, 6 if members == 7 else 7):
        hits = Counter(sum(1 for d in seq if d == 0) for seq in itertools.product(range(members), repeat=k))
        acc = 0
        for j in range(k):
            acc += hits.get(j, 0)
            cdf = Fraction(acc, members ** k)
            x = binomial_step(k, j, q)
            assert Fraction(x) <= cdf < Fraction(math.nextafter(x, 2.0)), (k, j)
    with pytest.raises(ValueError, match="no float level"):  # a step narrower than a float's spacing
        binomial_step(22, 21, Fraction(1, 7))


def test_a_levels_bound_is_constant_between_steps():
    """A level enters the chain only through the quantiles ``Q_U(k)``: two levels with no step of any
    followed count between them give the same bound, and a level just past a step a larger one."""
    from analytic.features.engines.drawn_expanding import draw_cap as rc

    game = tiny(40)
    groups = [("explorer",), ("pharaoh",), ("ten", "jack", "queen", "king", "ace", "beetle", "statue")]
    q = Fraction(1, 7)
    steps = sorted({sum(rc.binomial_pmf(k, q)[:j + 1], Fraction(0)) for k in range(1, rc.LEVEL_KMAX + 1)
                    for j in range(k)})
    top = rc.binomial_step(2, 1)  # P(Bin(2, 1/7) <= 1) = 48/49
    below = max(s for s in steps if s < Fraction(top))
    inside = math.nextafter(float(below), 2.0)
    if Fraction(inside) <= below:
        inside = math.nextafter(inside, 2.0)
    past = math.nextafter(top, 2.0)
    a, b, c = rc.regular_cap_bound_levels(game, "free_spins", 4, [inside, top, past], eps=1e-9, groups=groups)
    assert a.excess(0.0, 40.0) == b.excess(0.0, 40.0) and np.array_equal(a.law, b.law)
    assert c.excess(0.0, 40.0) > b.excess(0.0, 40.0)


def test_direct_convolution_is_within_its_relative_error():
    from analytic.features.engines.drawn_expanding.draw_cap import _gamma, convolve_nonnegative

    rng = random.Random(5)
    R, N = 4, 37
    G = np.array([[rng.choice([0.0, rng.random(), rng.random() * 1e-300, 1e-320]) for _ in range(N)] for _ in range(R)])
    H = np.array([[rng.choice([0.0, 0.0, rng.random()]) for _ in range(N)] for _ in range(R)])
    out = convolve_nonnegative(G, H)
    assert out.shape == (R, 2 * N - 1)
    gam, tiny_ = _gamma(N + 1), (N + 1) * 2.0 ** -1074
    for r in range(R):
        exact = [sum((Fraction(G[r, i]) * Fraction(H[r, k - i]) for i in range(N) if 0 <= k - i < N), Fraction(0))
                 for k in range(2 * N - 1)]
        for k in range(2 * N - 1):
            assert abs(Fraction(out[r, k]) - exact[k]) <= Fraction(gam) * exact[k] + Fraction(tiny_)
            if exact[k] == 0:
                assert out[r, k] == 0  # no mass where there is none (what the FFT could not promise)


def test_line_walk_table_against_windows():
    from analytic.features.engines.drawn_expanding.draw_cap import line_expansion_rows
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats

    game = tiny()
    st = spin_stats(game, "free_spins")
    A, E, L, cnt = line_expansion_rows(st)
    got = Counter()
    for a, e, l_, c in zip(A, E, L, cnt):
        got[(int(a), tuple(int(x) for x in e), int(l_))] += int(c)
    pays = _pays(game)
    want = Counter()
    for w in itertools.product(*game.reel_sets["free"]):
        b = sum(c in WILD for c in w)
        e = tuple(_expand(pays, s, sum(x == s for x in w)) for s in st.ordered)
        want[(b - 1 if b >= 2 else 0, e, _line(pays, w))] += 1
    assert got == want


@pytest.mark.parametrize("n0", [2, 3])
def test_comonotone_mixture_holds_against_path_recursion(n0):
    from analytic.features.engines.drawn_expanding.draw_cap import regular_cap_bound, regular_cap_mixture

    C = 40
    game = tiny(C)
    law = _oracle(game, n0, lines=True, limit=400)  # wins beyond 400 counted as 400: a lower bound
    groups = [("explorer",), ("pharaoh",), ("ten", "jack", "queen", "king", "ace", "beetle", "statue")]
    levels = (0.3, 0.7, 0.95, 1.0)
    mx = regular_cap_mixture(game, "free_spins", n0, levels=levels, eps=1e-9, groups=groups)
    parts = [regular_cap_bound(game, "free_spins", n0, eps=1e-9, groups=groups, level=lv) for lv in levels]
    for B in (0, 5, 17, 33):
        ex = sum(q * max(B + w - C, 0) for w, q in law.items())
        pc = sum(q for w, q in law.items() if B + w >= C)
        assert ex <= mx.excess(float(B), float(C))
        assert pc <= mx.p_reach(float(B), float(C))
        # a level's chain grows with the level (its multipliers do)
        per = [b.excess(float(B), float(C)) for b in parts]
        assert all(a <= b * (1 + 1e-9) for a, b in zip(per, per[1:]))
        # and the mixture is the weighted sum of the parts
        w = np.diff((0.0,) + levels)
        assert mx.excess(float(B), float(C)) == pytest.approx(float(np.dot(w, per)), rel=1e-9)


@pytest.mark.parametrize("eps,kmax", [(1e-14, None), (1e-14, 1), (1e-5, None)])
def test_levels_in_one_run_match_one_run_per_level(eps, kmax, monkeypatch):
    """The batched chain (levels share states and masses) against a separate chain per level.

    At eps 1e-14 no state leaves the grid, so both are the same sums up to
    float rounding; at 1e-5 the batch sends a state to MGF mode on its largest
    mass over the levels, so the two may differ a little, and both must still
    bound the path recursion's excess.  ``kmax`` 1 (the levels' counts followed
    only to 1) makes the levels' count caps differ, so the batch pads a level's
    multipliers beyond its own cap.
    """
    from analytic.features.engines.drawn_expanding import draw_cap as rc

    if kmax is not None:
        monkeypatch.setattr(rc, "LEVEL_KMAX", kmax)
    C, n0 = 40, 3
    game = tiny(C)
    groups = [("explorer",), ("pharaoh",), ("ten", "jack", "queen", "king", "ace", "beetle", "statue")]
    levels = [1.0, 0.3, None, 0.9, 0.3]  # any order, the domination (None) among them, a repeat
    batch = rc.regular_cap_bound_levels(game, "free_spins", n0, levels, eps=eps, groups=groups)
    assert batch[1] is batch[4]
    single = []
    for lv in levels:
        single.append(rc.regular_cap_bound(game, "free_spins", n0, eps=eps, groups=groups, level=lv))
    law = _oracle(game, n0, lines=True, limit=400)
    for B in (0.0, 9.0, 25.0):
        ex = sum(q * max(B + w - C, 0) for w, q in law.items())
        for lv, b, s in zip(levels, batch, single):
            if eps < 1e-9:
                assert b.excess(B, C) == pytest.approx(s.excess(B, C), rel=1e-12, abs=1e-300), lv
                assert b.p_reach(B, C) == pytest.approx(s.p_reach(B, C), rel=1e-12, abs=1e-300), lv
            if lv is None or lv == 1.0:  # these two bound the feature by themselves
                assert ex <= b.excess(B, C) and ex <= s.excess(B, C)
    if eps < 1e-9:
        assert [b.states for b in batch] == [s.states for s in single]


@pytest.mark.parametrize("eps", [3e-13, 1e-5])
def test_a_levels_bound_hardly_depends_on_the_run_it_shares(eps):
    """Found in review: the grid/MGF decisions were taken on the largest mass over a run's levels,
    so a level's bound moved with the levels it shared a run with.  Now they are taken on the
    reach probability: every cut of the levels solves the same states, and the bounds agree up to
    the float sums' last bits."""
    from analytic.features.engines.drawn_expanding import draw_cap as rc

    game = tiny(40)
    groups = [("explorer",), ("pharaoh",), ("ten", "jack", "queen", "king", "ace", "beetle", "statue")]
    results = []
    for size in (len(rc.LEVELS), 5, 2, 1):
        got = []
        for run in rc.level_runs(rc.LEVELS, size):
            got += rc.regular_cap_bound_levels(game, "free_spins", 4, list(run), eps=eps, groups=groups)
        results.append(got)
    for other in results[1:]:
        for a, b in zip(results[0], other):
            assert (a.states, a.mgf_states) == (b.states, b.mgf_states)
            assert a.excess(0.0, 40.0) == pytest.approx(b.excess(0.0, 40.0), rel=1e-12)
            assert a.p_reach(9.0, 40.0) == pytest.approx(b.p_reach(9.0, 40.0), rel=1e-12)


def test_the_rounds_bounds_do_not_depend_on_the_worker_count():
    """Found in review: the levels were cut into one run per worker, so the sheet's last digits
    changed with the number of cores.  The runs are now a fixed cut (LEVEL_RUN)."""
    from analytic.features.engines.drawn_expanding import draw_bounds as rb
    from analytic.workspace import Workspace

    game = tiny(40)
    out = []
    for w in (1, 2, 3):
        ws = Workspace(game, precision="certify", workers=w)
        out.append(rb.regular_cap_bounds(game, "free_spins", [4, 2], ws=ws))
    for other in out[1:]:
        for n0 in (2, 4):
            a, b = out[0][n0][0], other[n0][0]
            for pa, pb in zip(a.parts, b.parts):
                assert np.array_equal(pa[1].law, pb[1].law) and np.array_equal(pa[1].mgf_T, pb[1].mgf_T)
            assert a.excess(0.0, 40.0) == b.excess(0.0, 40.0) and a.p_reach(9.0, 40.0) == b.p_reach(9.0, 40.0)


@pytest.mark.parametrize("eps", [3e-13, 1e-5])
def test_the_standard_levels_two_runs_are_bit_for_bit_one_run(eps):
    """The 'standard' preset's 16 levels are solved in two runs of 8 (LEVEL_RUN 11: one worker job each,
    so the round's longest job is split over two cores); before, in one run of 16.  The par sheets
    must not move: every float of every level's bound is the same either way (two starts sharing
    the run's tables, as the round's jobs do).  Fails if the cut changes (e.g. runs of 2, which do
    move the last bits) or if a float of the chain comes to depend on the other levels of its run."""
    import dataclasses

    from analytic.features.engines.drawn_expanding import draw_cap as rc
    from analytic.workspace import Workspace

    game = tiny(40)
    groups = [("explorer",), ("pharaoh",), ("ten", "jack", "queen", "king", "ace", "beetle", "statue")]
    levels = rc.LEVELS_STANDARD
    assert [len(r) for r in rc.level_runs(levels)] == [8, 8]
    assert [len(r) for r in rc.level_runs(rc.LEVELS)] == [11, 11]  # 'certify': as before

    def solve(runs):
        ws, out = Workspace(game), {}
        for run in runs:
            ws.discard(rc.RUN_TABLES)  # each run from empty tables, as in its own worker job
            for n0 in (4, 2):  # the starts of a run share its tables, longest first
                for lv, b in zip(run, rc.regular_cap_bound_levels(game, "free_spins", n0, list(run), eps=eps,
                                                                  groups=groups, ws=ws)):
                    out[(n0, lv)] = b
        return out

    one, two = solve([levels]), solve(rc.level_runs(levels))
    assert one.keys() == two.keys()
    for key, a in one.items():
        b = two[key]
        for f in dataclasses.fields(a):
            x, y = getattr(a, f.name), getattr(b, f.name)
            if isinstance(x, np.ndarray):
                assert x.shape == y.shape and x.tobytes() == y.tobytes(), (key, f.name)
            elif isinstance(x, float):
                assert np.float64(x).tobytes() == np.float64(y).tobytes(), (key, f.name)
            else:
                assert x == y, (key, f.name)


def test_level_runs_cut_the_levels_in_order():
    from analytic.features.engines.drawn_expanding.draw_cap import LEVELS, LEVELS_STANDARD, level_runs

    for lv in (LEVELS, LEVELS_STANDARD, (1.0,)):
        for size in (1, 2, 3, 5, 19, 40):
            runs = level_runs(lv, size)
            assert sum(runs, ()) == lv and max(map(len, runs)) <= size
            assert max(map(len, runs)) - min(map(len, runs)) <= 1
            assert len(runs) == -(-len(lv) // size)
    assert level_runs(()) == []


@pytest.mark.parametrize("levels", [(), (0.5,), (0.5, 0.4, 1.0), (0.0, 1.0), (0.5, 1.5)])
def test_bad_levels_are_refused(levels):
    from analytic.features.engines.drawn_expanding.draw_cap import regular_cap_mixture

    with pytest.raises(ValueError, match="levels"):
        regular_cap_mixture(tiny(30), "free_spins", 2, levels=levels)


@pytest.mark.parametrize("level", [0.0, -0.5, 1.01, float("nan")])
def test_a_bad_level_is_refused(level):
    from analytic.features.engines.drawn_expanding.draw_cap import regular_cap_bound

    with pytest.raises(ValueError, match="level"):
        regular_cap_bound(tiny(30), "free_spins", 2, level=level)


def test_precision_presets():
    from analytic.features.engines.drawn_expanding.draw_cap import LEVELS, PRESETS, check_levels, precision_preset
    from analytic.workspace import CAP_PRECISIONS, Workspace

    assert precision_preset()[0] == "standard"
    name, eps, levels = precision_preset("certify")
    assert name == "certify" and levels == LEVELS and eps < PRESETS["standard"][0]
    with pytest.raises(ValueError, match="sloppy"):
        precision_preset("sloppy")
    with pytest.raises(ValueError, match="sloppy"):
        Workspace(tiny(30), precision="sloppy")
    assert sorted(CAP_PRECISIONS) == sorted(PRESETS)
    for _name, (eps, levels) in PRESETS.items():  # every preset is a valid mixture
        assert eps > 0 and check_levels(levels) == levels


def test_quick_precision_solves_no_lower_bound_of_the_cut():
    """'quick' leaves the cut's lower bound out: the capped interval's high end is the uncapped
    mean's, ``P(reach the cap)`` starts at 0, the method says so; its interval and the standard one
    both hold the capped RTP, so they overlap (their brute-force oracle: the slow test below)."""
    from analytic.solver.round import solve_round

    game = tiny(40)
    got = {name: solve_round(game, "buy_free_spins", precision=name) for name in ("quick", "standard")}
    q, s = got["quick"], got["standard"]
    for r in (q, s):
        cap, unc = r.extra["capped_rtp"], r.extra["uncapped_rtp"]
        assert cap.value + cap.error <= unc.value + unc.error
    cap, unc = q.extra["capped_rtp"], q.extra["uncapped_rtp"]
    assert cap.value + cap.error == unc.value + unc.error  # the cut's lower end 0
    assert q.extra["p_reach_cap"].value == q.extra["p_reach_cap"].error  # [0, upper]
    assert "no lower bound at precision 'quick'" in q.extra["cap_method"]
    assert "draw_cap_low" in s.extra["cap_method"] and "no lower bound" not in s.extra["cap_method"]
    assert s.extra["p_reach_cap"].value > s.extra["p_reach_cap"].error  # standard: a positive lower end
    a, b = q.extra["capped_rtp"], s.extra["capped_rtp"]
    assert a.value - a.error <= b.value + b.error and b.value - b.error <= a.value + a.error


def test_cli_cap_precision_flag_is_checked():
    from analytic.cli import main

    # main() returns argparse's exit code 2 (one line on stderr) instead of raising SystemExit (issue 20)
    assert main(["solve", "models/book_of_power.toml", "--cap-precision", "sloppy"]) == 2


@pytest.mark.skipif(not SLOW, reason="two capped solves of the tiny game and its brute-force bracket (about 1 min); ANALYTIC_SLOW=1")
def test_cap_precision_reaches_the_solve(tmp_path, capsys):
    """The CLI's ``--cap-precision`` sets the solve's preset of the regular cap bounds: the certified
    capped RTP interval of the tiny game's Buy Free Spins is narrower with 'certify' and wider with
    'quick', and every interval holds the brute-force bracket of the capped RTP."""
    import json

    from test_drawn_oracles import TINY
    from test_draw_cap_law import _buy_capped_rtp

    from analytic.cli import main

    C = 40
    lo, hi = _buy_capped_rtp(tiny(C), C)
    path = tmp_path / "tiny_bop.toml"
    path.write_text(TINY.replace("CAP", str(C)))
    width = {}
    for name in ("quick", "standard", "certify"):
        assert main(["solve", str(path), "--mode", "buy_free_spins", "--format", "json",
                     "--cap-precision", name, "--workers", "1"]) == 0
        (mode,) = json.loads(capsys.readouterr().out)["modes"]
        mid, err = Fraction(mode["rtp"]["exact"]), Fraction(mode["rtp"]["error"])
        assert float(mid - err) - 1e-12 <= hi and lo <= float(mid + err) + 1e-12
        width[name] = err
    assert width["certify"] < width["standard"] < width["quick"]


def test_best_levels_against_every_subset():
    """The level study's dynamic programme against the upper Riemann sum of every subset."""
    from analytic.bench.drawn_expanding_levels import best_levels

    rng = random.Random(11)
    for _ in range(20):
        n = rng.randint(1, 8)
        lv = sorted(rng.sample(range(1, 100), n - 1))
        levels = [x / 100 for x in lv] + [1.0]
        values = sorted(rng.random() for _ in range(n))
        for m in range(1, n + 2):
            best = min(
                sum((levels[i] - (levels[p] if p is not None else 0.0)) * values[i]
                    for p, i in zip((None,) + sub + (n - 1,), sub + (n - 1,)))
                for r in range(0, min(m, n) )
                for sub in itertools.combinations(range(n - 1), r))
            got, chosen = best_levels(levels, values, m)
            assert got == pytest.approx(best, rel=1e-12, abs=1e-15)
            assert chosen[-1] == 1.0 and len(chosen) <= m and list(chosen) == sorted(chosen)


def test_a_run_interrupted_midway_leaves_no_tables_behind(monkeypatch):
    """Found in review: the starts of a run share per-id tables; a run that raised while filling
    them left ids marked as tabled with empty spin laws, and the next solve returned ~1e-303."""
    from analytic.features.engines.drawn_expanding import draw_cap as rc
    from analytic.workspace import Workspace

    game = tiny(40)
    groups = [("explorer",), ("pharaoh",), ("ten", "jack", "queen", "king", "ace", "beetle", "statue")]
    fresh = rc.regular_cap_bound_levels(game, "free_spins", 4, [0.5, 1.0], eps=1e-9, groups=groups,
                                        ws=Workspace(game))
    ws = Workspace(game)  # the interrupted solve and the next one share it
    real, calls = np.bincount, []

    def flaky(*a, **k):
        calls.append(1)
        if len(calls) == 40:
            raise RuntimeError("interrupted")
        return real(*a, **k)
    monkeypatch.setattr(np, "bincount", flaky)
    with pytest.raises(RuntimeError):
        rc.regular_cap_bound_levels(game, "free_spins", 4, [0.5, 1.0], eps=1e-9, groups=groups, ws=ws)
    monkeypatch.setattr(np, "bincount", real)
    again = rc.regular_cap_bound_levels(game, "free_spins", 4, [0.5, 1.0], eps=1e-9, groups=groups, ws=ws)
    for a, b in zip(fresh, again):
        assert a.excess(0.0, 40.0) == b.excess(0.0, 40.0) and np.array_equal(a.law, b.law)


def test_shared_tables_follow_what_they_are_made_of(monkeypatch):
    """Found in review: the tables' key missed LEVEL_KMAX, so a solve after a change of it reused
    the other setting's multipliers."""
    from analytic.features.engines.drawn_expanding import draw_cap as rc
    from analytic.workspace import Workspace

    game = tiny(40)
    groups = [("explorer",), ("pharaoh",), ("ten", "jack", "queen", "king", "ace", "beetle", "statue")]
    out = []
    for keep in (True, False):
        ws = Workspace(game)
        monkeypatch.setattr(rc, "LEVEL_KMAX", 2)
        rc.regular_cap_bound_levels(game, "free_spins", 3, [0.7, 1.0], eps=1e-9, groups=groups, ws=ws)
        for k in ws.keys():  # forget the bounds, keep (or not) the run's tables
            if k[0] == "drawn_expanding.regcap":
                ws.discard(k)
        if not keep:
            ws.discard(rc.RUN_TABLES)
        monkeypatch.setattr(rc, "LEVEL_KMAX", 1)
        out.append(rc.regular_cap_bound_levels(game, "free_spins", 3, [0.7, 1.0], eps=1e-9, groups=groups,
                                               ws=ws))
    for a, b in zip(*out):
        assert a.excess(0.0, 40.0) == pytest.approx(b.excess(0.0, 40.0), rel=1e-12)


def test_the_line_table_is_built_once_and_read_only():
    """Every start of every run reads the same line table, kept on the spin statistics (the round builds
    it before its workers fork).  The kept table must be the one a fresh build gives, bit for bit, and
    read-only (a run that wrote into it would change the next run's figures).  Fails if the key misses
    something the table depends on (the groups, the grid unit) or if the arrays are writable."""
    from analytic.features.engines.drawn_expanding import draw_cap as rc
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats
    from analytic.workspace import Workspace

    game = tiny(40)
    st = spin_stats(game, "free_spins", Workspace(game))
    groups = rc.mixture_groups(st)
    Cl = rc.cap_line_bets(game, st)
    rc.line_table_for(game, st, groups)
    kept = rc._line_table(st, groups, None, Cl)
    assert kept is rc._line_table(st, [list(g) for g in groups], None, Cl)  # the same key, however spelt
    fresh = rc._build_line_table(st, groups, None, Cl)
    assert kept[2] == fresh[2] and all(a.tobytes() == b.tobytes() for a, b in zip(kept[:2], fresh[:2]))
    assert not kept[0].flags.writeable and not kept[1].flags.writeable
    other = rc._line_table(st, [tuple(x for g in groups for x in g)], None, Cl)  # one group: another table
    assert other[0].shape[1] != kept[0].shape[1]
    coarse = rc._line_table(st, groups, 2 * kept[2], Cl)  # another grid unit: another table
    assert coarse[2] == 2 * kept[2] and coarse is not kept
