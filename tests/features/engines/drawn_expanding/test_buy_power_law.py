"""The round law of a mode buying the Power feature (engine drawn_expanding, issue 21).

Oracle: a brute-force recursion written here over (start rank, awards, golden reels, spins left)
giving the law of the rest of the feature's win capped at ``C`` (the tiny game's spin outcomes by
window enumeration, ``test_drawn_oracles._power_table``); paths beyond ``jmax`` awards are cut (as
in ``test_drawn_oracles.power_capped_oracle``, whose capped mean it must reproduce).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import numpy as np

from analytic.solver.cap import applied_cap
from analytic.solver.distribution import round_law
from analytic.solver.exceedance import exceedance
from analytic.solver.round import solve_round

from test_drawn_oracles import _ladder, _power_spin, _power_table, power_capped_oracle, tiny

C = 40


def capped_law_oracle(game, starts, C: int, jmax: int = 22) -> dict:
    """``{n0: law}``: ``law[k] = P(min(W, C) = k)``, ``k = 0..C``, of the Power feature started with ``n0``
    spins (ranks averaged), for each ``n0`` of ``starts`` (one recursion shared by all)."""
    tabs, pays = _power_table(game)

    @lru_cache(maxsize=None)
    def outcomes(s, m, G):
        """Per next state (awarded?, golden reels, spins change): the spin win's law capped at C."""
        grouped: dict = {}
        for key, p in tabs[s]:
            x = min(int(_power_spin(pays, s, m, G, key)), C)
            g = grouped.setdefault((key[0] > 0, G | key[1], key[0] - 1), np.zeros(C + 1))
            g[x] += p
        return tuple(grouped.items())

    @lru_cache(maxsize=None)
    def go(rho, j, G, K):
        out = np.zeros(C + 1)
        if K == 0 or j > jmax:
            out[0] = 1.0
            return out
        s, m = _ladder(rho + j)
        for (awarded, G2, dk), xs in outcomes(s, m, G):
            full = np.convolve(xs, go(rho, j + awarded, G2, K + dk))
            out[:C] += full[:C]
            out[C] += full[C:].sum()
        return out

    return {n0: sum(go(r, 0, 0, n0) for r in range(1, 10)) / 9 for n0 in starts}


def test_buy_power_round_law_against_brute_force():
    game = tiny(C)
    mode = game.modes["buy_power_free_spins"]
    res = solve_round(game, "buy_power_free_spins")
    law = round_law(res)
    assert law.points is not None and law.method == "grid" and law.lower_bounds
    assert 0 < law.error < 1e-9
    assert max(law.points) == C and sum(law.points.values()) + law.error == 1
    ex = exceedance(law, applied_cap(res))
    tot = sum(mode.buy_counts.values())
    counts = game.features["power_free_spins"].trigger.counts
    bought = [n for n, w in mode.buy_counts.items() if w]
    by_start = capped_law_oracle(game, {counts[n] for n in bought}, C)
    laws = {n: by_start[counts[n]] for n in bought}
    # the oracle against the older recursion (its capped mean and P(W >= c)) for one start, at c = 5
    n0 = counts[next(iter(laws))]
    e, q = power_capped_oracle(game, n0, 5)
    small = capped_law_oracle(game, [n0], 5)[n0]
    assert abs(float(small @ np.arange(6)) - e) < 1e-12 and abs(small[5] - q) < 1e-12
    mix = sum(w / tot * laws[n] for n, w in mode.buy_counts.items() if w)
    # the solver's law point by point (its masses are lower bounds, the rest within its error)
    for k in range(C + 1):
        got = float(law.points.get(Fraction(k), 0))
        assert got - 1e-12 <= mix[k] <= got + float(law.error) + 1e-12, (k, got, mix[k])
    checked = 0
    for r in ex.rows:
        if r.threshold > C:
            assert r.low == r.high == 0
            continue
        want = float(mix[int(r.threshold):].sum())
        assert float(r.low) - 1e-12 <= want <= float(r.high) + 1e-12, (r, want)
        assert r.high - r.low <= law.error * (1 + Fraction(1, 10**9)) + Fraction(1, 10**15)  # one-sided
        checked += 1
    assert checked == 6  # 1, 2, 5, 10, 20, 40 (cap)
    assert ex.max_win == C and ex.max_low > 0
    # the law's capped mean holds the round solver's capped RTP interval's truth too
    mean = sum((min(w, C) * p for w, p in law.points.items()), Fraction(0))
    cp = res.extra["capped_rtp"]
    lo, hi = mean / mode.cost, (mean + law.error * C) / mode.cost
    assert lo <= cp.value + cp.error and hi >= cp.value - cp.error
    # the par sheet of that mode: the round's distribution and the ladder from the law
    from analytic.reports.markdown import render_markdown
    from analytic.reports.model import build_sheet

    sheet = build_sheet(game, {"buy_power_free_spins": res})
    ms = sheet.modes[0]
    assert ms.distribution.scope == "round" and "certified by the round solver" in ms.distribution.note
    assert abs(sum(b.probability for b in ms.distribution.buckets) - 1) <= law.error
    assert [(r.low, r.high) for r in ms.exceedance.rows] == [(r.low, r.high) for r in ex.rows]
    md = render_markdown(sheet)
    assert "distribution not available" not in md and "### Exceedance ladder" in md


def test_dot_halves_within_the_float_sum_bound_of_the_exact_dot():
    """Oracle: the exact rational dot product; the halves' float sum is within gamma_n of it (Higham s.3.1)."""
    import random
    from fractions import Fraction

    import numpy as np

    from analytic.features.engines.drawn_expanding.draw_cap import _gamma
    from analytic.features.engines.drawn_expanding.ladder_cap import dot_halves

    rng = random.Random(7)
    for n in (1, 2, 7, 30001):
        a = np.array([rng.random() * 10 ** -rng.randint(0, 12) for _ in range(n)])
        b = np.array([rng.random() * 15000 for _ in range(n)])
        exact = sum((Fraction(x) * Fraction(y) for x, y in zip(a, b)), Fraction(0))
        got = dot_halves(a, b)
        assert abs(Fraction(got) - exact) <= Fraction(_gamma(n + 1)) * exact
        m = (n + 1) // 2
        assert got == float(a[:m] @ b[:m]) + float(a[m:] @ b[m:])  # the fixed split, whatever the cores


def test_buy_power_session_mean_is_the_capped_law_s():
    """The session's mean balance steps with the capped round's mean (the law's own), not the uncapped
    ``mean_win`` the round solver reports beside its capped RTP.  Oracle: Wald's identity on the
    round law's points, ``E[B_T] = B0 + (E[min(W, C)] - c) E[rounds played]``, the law's mean summed
    here from its points (within ``C`` times its total-variation error of the capped mean)."""
    from analytic.solver.session import SessionRules, solve_session

    game = tiny(C)
    res = solve_round(game, "buy_power_free_spins")
    law = round_law(res)
    mu = sum((w * p for w, p in law.points.items()), Fraction(0))
    assert res.mean_win.value - mu > 100 * C * law.error  # the uncapped mean is far from the law's: can fail
    rules = SessionRules(balance=10 * res.cost, bet=1, rounds=30)
    s = solve_session(game, "buy_power_free_spins", rules, result=res)
    played = s.rounds_mean
    expect = rules.balance + (mu - res.cost) * played.value
    tol = (s.balance_mean.error + abs(mu - res.cost) * played.error + C * law.error * rules.rounds
           + Fraction(1, 10 ** 9))
    assert abs(s.balance_mean.value - expect) <= tol, (float(s.balance_mean.value), float(expect), float(tol))
    # the par sheet's sessions (summary_results) read the same mean
    from analytic.solver.session import summary_results

    got = summary_results(game, "buy_power_free_spins", result=res, rounds=(30,), balance=10 * res.cost, autoplay={})
    h = got.horizons[30]
    assert abs(h.balance_mean.value - s.balance_mean.value) <= h.balance_mean.error + s.balance_mean.error


def test_power_cap_law_threads_change_no_bit():
    """Two threads share a step's FFT rows and spectrum products: every stored number as with one."""
    from analytic.features.engines.drawn_expanding.ladder_cap import PowerCapLaw
    from analytic.workspace import Workspace

    game = tiny(C)
    one = PowerCapLaw(game, "power_free_spins", ws=Workspace(game), threads=1)
    two = PowerCapLaw(game, "power_free_spins", ws=Workspace(game), threads=2)
    assert one.solved == two.solved > 0 and sorted(one.start) == sorted(two.start)
    for k in one.start:
        assert one.start[k][0].tobytes() == two.start[k][0].tobytes() and one.start[k][1] == two.start[k][1]
