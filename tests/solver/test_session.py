"""Session chain (analytic.solver.session) against brute-force enumeration of every path.

The oracle below plays every sequence of round outcomes of a tiny round law,
applying the stop rules as the module docstring states them, in Fractions;
nothing of the chain is reused.
"""

from __future__ import annotations

import random
from collections import defaultdict
from fractions import Fraction as F

import pytest

from analytic.solver.session import SessionRefused, SessionRules, run_session


def brute(rules: SessionRules, nof, feat, cost, cap=None):
    """``{(reason, rounds, final balance, won, staked): p}`` over every path."""
    out: dict = defaultdict(F)
    ladder = sorted(rules.bet_ladder) if rules.bet_ladder else [rules.bet]
    B0 = rules.balance

    def lower(b, s):
        if b >= cost * s:
            return s
        c = [x for x in ladder if x <= s and cost * x <= b]
        return max(c) if c else None

    def go(t, b, s, won, staked, p):
        for is_feat, law in ((False, nof), (True, feat)):
            for w, q in law.items():
                if cap is not None:
                    w = min(w, cap / s)
                win = s * w
                nb = b - cost * s + win
                nwon, nst, np_ = won + win, staked + cost * s, p * q
                why = None
                if rules.stop_on_any_win and win > 0:
                    why = "any win"
                elif rules.stop_on_feature and is_feat:
                    why = "feature"
                elif rules.stop_single_win_above is not None and win >= rules.stop_single_win_above:
                    why = "single win"
                elif rules.stop_cash_up is not None and nb - B0 >= rules.stop_cash_up:
                    why = "cash up"
                elif rules.stop_cash_down is not None and B0 - nb >= rules.stop_cash_down:
                    why = "cash down"
                if why is None:
                    ns = lower(nb, s)
                    if ns is None:
                        why = "ruin"
                    elif t + 1 == rules.rounds:
                        why = "rounds"
                    else:
                        go(t + 1, nb, ns, nwon, nst, np_)
                        continue
                out[(why, t + 1, nb, nwon, nst)] += np_

    s0 = lower(B0, rules.bet)
    if s0 is None:
        out[("ruin", 0, B0, F(0), F(0))] += 1
    else:
        go(0, B0, s0, F(0), F(0), F(1))
    return out


def _random_law(rng, n, scale):
    ws = sorted({F(rng.randint(0, 12 * scale), scale) for _ in range(n)} | {F(0)})
    ps = [rng.randint(1, 9) for _ in ws]
    tot = sum(ps)
    return {w: F(p, tot) for w, p in zip(ws, ps)}


def _split(rng, law):
    nof, feat = {}, {}
    for w, p in law.items():
        if w > 3 and rng.random() < 0.5:
            a = p * F(rng.randint(0, 3), 3)
            if a:
                feat[w] = a
            if p - a:
                nof[w] = p - a
        else:
            nof[w] = p
    return nof, feat


SETTINGS = [
    dict(),
    dict(stop_on_any_win=True),
    dict(stop_on_feature=True),
    dict(stop_single_win_above=F(5)),
    dict(stop_cash_up=F(4)),
    dict(stop_cash_down=F(3)),
    dict(stop_cash_up=F(5, 2), stop_cash_down=F(2), stop_on_feature=True, stop_single_win_above=F(7)),
    dict(bet_ladder=(F(1, 2), F(1), F(2)), bet=F(2)),
    dict(bet_ladder=(F(1, 4), F(3, 4), F(1)), stop_cash_down=F(3), stop_on_feature=True),
]


def _check(rules, nof, feat, cost, cap=None, method="exact"):
    got = run_session(nof, feat, cost, rules, method=method, cap_currency=cap)
    want = brute(rules, nof, feat, cost, cap)
    E = F(got.error)
    tol = (lambda a, b: a == b) if method == "exact" else (lambda a, b: abs(F(float(a)) - F(b)) <= E + F(1, 10**15))
    # reasons
    for why, fig in got.reasons.items():
        assert tol(fig.value, sum((p for k, p in want.items() if k[0] == why), F(0))), why
    assert set(k[0] for k in want) <= set(got.reasons)
    # rounds played
    tl = defaultdict(F)
    for k, p in want.items():
        tl[k[1]] += p
    for t in range(rules.rounds + 1):
        assert tol(got.rounds_law[t], tl[t])
    # final balance law
    fb = defaultdict(F)
    for k, p in want.items():
        fb[k[2]] += p
    L = got.law
    mine = {rules.balance + (L.offset + i) * L.grid: p for i, p in enumerate(L.final) if p}
    assert set(mine) <= set(fb)
    for b, p in fb.items():
        assert tol(mine.get(b, 0), p)
    # mean final balance (Wald's identity in the chain) and ruin
    mean = sum((k[2] * p for k, p in want.items()), F(0))
    if method == "exact":
        assert got.balance_mean.value == mean
    else:
        assert abs(got.balance_mean.value - mean) <= got.balance_mean.error + F(1, 10**9)
    pr = sum((p for k, p in want.items() if k[0] == "ruin"), F(0))
    assert tol(got.ruin.value, pr)
    if pr and method == "exact":
        assert got.rounds_to_ruin.value == sum((k[1] * p for k, p in want.items() if k[0] == "ruin"), F(0)) / pr
    assert tol(got.p_above_start.value, sum((p for k, p in want.items() if k[2] > rules.balance), F(0)))
    # return experienced (one bet only)
    if not rules.bet_ladder and method == "exact":
        rl = defaultdict(F)
        for k, p in want.items():
            if k[1]:
                rl[k[3] / k[4]] += p
        tot = sum(rl.values())
        assert got.return_mean.value == sum((r * p for r, p in rl.items()), F(0)) / tot
        assert {r: p for r, p in L.returns.items() if p} == dict(rl)
    return got


@pytest.mark.parametrize("setting", range(len(SETTINGS)))
@pytest.mark.parametrize("seed", range(3))
def test_chain_matches_every_path(setting, seed):
    rng = random.Random(1000 * setting + seed)
    law = _random_law(rng, 4, rng.choice([1, 2]))
    nof, feat = _split(rng, law)
    kw = dict(balance=F(rng.randint(2, 6)), rounds=rng.randint(3, 5))
    kw.update(SETTINGS[setting])
    rules = SessionRules(**kw)
    cost = rng.choice([F(1), F(3, 2)])
    _check(rules, nof, feat, cost)


@pytest.mark.parametrize("seed", range(3))
def test_certified_contains_exact(seed):
    rng = random.Random(77 + seed)
    law = _random_law(rng, 5, 2)
    nof, feat = _split(rng, law)
    rules = SessionRules(balance=F(4), rounds=5, stop_on_feature=True, stop_cash_up=F(6), stop_cash_down=F(3))
    got = _check(rules, nof, feat, F(1), method="certified")
    assert got.method == "certified" and 0 < got.error < 1e-12


def test_currency_cap_per_bet():
    law = {F(0): F(1, 2), F(1): F(1, 4), F(20): F(1, 4)}
    for bet in (F(1), F(2)):  # cap 30 currency: binds at bet 2 (20 x 2 > 30)
        rules = SessionRules(balance=F(6), bet=bet, rounds=3, stop_cash_up=F(50))
        _check(rules, law, {}, F(1), cap=F(30))


def test_ruin_at_start_and_hand_count():
    # balance below the bet: the session ends at once by ruin
    got = run_session({F(0): F(1)}, {}, F(1), SessionRules(balance=F(1, 2), rounds=3))
    assert got.ruin.value == 1 and got.rounds_law[0] == 1
    # hand count: win 2 or 0 with p = 1/2, start 1, 2 rounds: ruin after round 1 w.p. 1/2,
    # after round 2 w.p. 1/4 (1 -> 2 -> 1? no: 1 -> 2 -> 3 or 1); balance 1 covers the bet
    got = run_session({F(0): F(1, 2), F(2): F(1, 2)}, {}, F(1), SessionRules(balance=F(1), rounds=2))
    # paths: L (ruin, 0), W L (1 after 2, rounds), W W (3, rounds)
    assert got.ruin.value == F(1, 2)
    assert got.balance_mean.value == F(1, 2) * 0 + F(1, 4) * 1 + F(1, 4) * 3
    assert got.rounds_to_ruin.value == 1


def test_exact_refuses_grid_law():
    with pytest.raises(SessionRefused, match="never exact") as exc:
        run_session({F(0): F(1)}, {}, F(1), SessionRules(balance=F(3), rounds=2), law_error=F(1, 10**9),
                    method="exact")
    assert exc.value.option == "method"  # the setting at fault (the command: --method, exit 2)


def test_session_summary_hand_count_and_refusal():
    from pathlib import Path

    from analytic.model.loader import load_model, load_model_text
    from analytic.solver.session import DEFAULT_SUMMARY, session_summary

    toml = (Path(__file__).resolve().parents[1] / "data" / "two_reels.toml").read_text(encoding="utf-8")
    game = load_model_text(toml)
    # a round wins 3 w.p. 1/4: from 1 bet, two rounds -> ruin 3/4 (hand count, see the CLI test)
    s = session_summary(game, rounds=(2,), balance=1, autoplay=False)
    assert s["sessions"][2]["ruin"]["exact"] == "3/4"
    # from 100 bets the default autoplay ends by cash down 50 or ruin ... never by a feature
    s = session_summary(game, rounds=(1,))
    a = s["autoplay"]
    assert a["reasons"]["feature"]["exact"] == "0/1"
    assert sum(F(v["exact"]) for v in a["reasons"].values()) == 1
    assert s["setting"]["autoplay"]["stop_cash_down"] == DEFAULT_SUMMARY["autoplay"]["stop_cash_down"]
    # a round without a law (engine drawn_expanding) is bracketed, never exact: refused before any solve
    from analytic.solver.session import solve_session

    bop = load_model(Path(__file__).resolve().parents[2] / "models" / "book_of_power.toml")
    with pytest.raises(SessionRefused, match="never exact"):
        solve_session(bop, "base", SessionRules(balance=F(100)), method="exact")


@pytest.mark.parametrize("setting", [0, 3, 5])
@pytest.mark.parametrize("method", ["exact", "certified"])
def test_snapshots_are_the_shorter_sessions(setting, method):
    """The chain of N rounds read at t < N is the session of t rounds: every path of t rounds."""
    from dataclasses import replace

    from analytic.solver.session import figures, session_law

    rng = random.Random(500 + setting)
    law = _random_law(rng, 4, 2)
    nof, feat = _split(rng, law)
    rules = SessionRules(**{"balance": F(3), "rounds": 5, **SETTINGS[setting]})
    L = session_law(rules, nof, feat, F(1), method=method, snapshots=(1, 2, 4, 7))
    assert sorted(L.snapshots) == [1, 2, 4]
    for t, cut in L.snapshots.items():
        got = figures(cut)
        want = brute(replace(rules, rounds=t), nof, feat, F(1))
        E = F(got.error) + F(1, 10**15)
        near = (lambda a, b: a == b) if method == "exact" else (lambda a, b: abs(F(float(a)) - b) <= E)
        for why, fig in got.reasons.items():
            assert near(fig.value, sum((p for k, p in want.items() if k[0] == why), F(0))), (t, why)
        for r in range(t + 1):
            assert near(got.rounds_law[r], sum((p for k, p in want.items() if k[1] == r), F(0)))
        mean = sum((k[2] * p for k, p in want.items()), F(0))
        assert abs(got.balance_mean.value - mean) <= got.balance_mean.error + (0 if method == "exact" else F(1, 10**9))
        fb = defaultdict(F)
        for k, p in want.items():
            fb[k[2]] += p
        mine = {rules.balance + (cut.offset + i) * cut.grid: p for i, p in enumerate(cut.final) if p}
        for b, p in fb.items():
            assert near(mine.get(b, 0), p), (t, b)


def test_a_forced_exact_session_too_long_to_run_is_refused():
    """A forced exact session whose big-integer chain would run for hours is refused with the
    reason and the way out, before the chain; the same law at a few rounds, or with cash barriers
    that keep the balance grid small, runs exactly (hand-made law: 1001 wins of 1/1001 each)."""
    from analytic.solver.session import EXACT_LIMIT, exact_work

    law = {F(k): F(1, 1001) for k in range(1001)}
    with pytest.raises(SessionRefused, match="certified") as e:
        run_session(law, {}, F(1), SessionRules(balance=F(100), rounds=1000), method="exact")
    assert e.value.option == "method"
    assert exact_work(1000, 1001, 100, 10) > EXACT_LIMIT
    # the barriers bound the live balances: the estimate, and the run, stay small
    assert exact_work(1000, 1001, 100, 10, up=20, down=-10) < EXACT_LIMIT / 10
    got = run_session(law, {}, F(1), SessionRules(balance=F(100), rounds=3), method="exact")
    assert got.method == "exact"
    # the estimate grows with the rounds about like N^2 (more live balances, longer integers) and more
    assert exact_work(80, 1001, 100, 24) > 4 * exact_work(40, 1001, 100, 24)


def test_exact_work_counts_the_weights_length():
    """A law with a long common denominator (Book of Christmas Eve's buy: 40,337 points over a
    427-bit denominator) costs long products from the first round: two rounds from 300 bets ran
    past 400 s of CPU, so the estimate must pass the limit; a short denominator's does not grow."""
    from analytic.solver.session import EXACT_LIMIT, exact_work

    assert exact_work(2, 40337, 300, 427) > EXACT_LIMIT
    assert exact_work(3, 1001, 100, 24) < EXACT_LIMIT
    # by hand, 2 rounds of a 3-point law: sum_t (t * 3) * 3 * (1 + t * bits / 64) * max(1, bits / 64)
    assert exact_work(2, 3, 10, 24) == 9 * (1 + 24 / 64) + 18 * (1 + 48 / 64)
    assert exact_work(2, 3, 10, 128) == (9 * 3 + 18 * 5) * 2
    assert exact_work(2, 3, 10, 128, up=1, down=-1) == (2 * 3 * 3 + 2 * 3 * 5) * 2  # 2 live balances
