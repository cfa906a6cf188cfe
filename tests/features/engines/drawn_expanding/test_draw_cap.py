"""Book of Power, the cap where regular Free Spins are involved: bounds against oracles.

* :func:`book_of_power._tail_bounds` (regular Free Spins per base outcome)
  against ``E[(B + W - C)+]`` and ``P(B + W >= C)`` summed exactly over small
  random discrete laws of ``W`` (Fractions), and its sharpness on the
  two-point law that attains the mean-variance bound;
* the Power Bet with "always gamble": every regular trigger becomes Power Free
  Spins with probability ``q``, so the round's capped mean is exact; checked
  on the tiny game of ``test_drawn_oracles`` (with a Power Bet mode
  added) against that file's brute-force recursion over the accumulated win.
"""

from __future__ import annotations

import random
from fractions import Fraction


from analytic.features.engines.drawn_expanding import engine as bop

from analytic.solver.round import solve_round as _solve_round


def _plain_round(game, mode, workspace=None):
    """The mode's round without cap or gamble (what the round solver hands its delegate)."""
    return _solve_round(game, mode, plain=True, workspace=workspace)


def _exact(law, B, C):
    ex = sum(p * max(B + w - C, 0) for w, p in law.items())
    pc = sum(p for w, p in law.items() if B + w >= C)
    return ex, pc


def _moments(law):
    return [sum(p * w**k for w, p in law.items()) for k in range(3)]


def test_tail_bounds_hold_on_random_laws():
    rng = random.Random(5)
    for _ in range(300):
        n = rng.randint(2, 6)
        ws = [rng.choice([0, 1, 2, 5, 10, 40, 100, 400]) * rng.randint(1, 5) for _ in range(n)]
        ps = [rng.randint(1, 50) for _ in range(n)]
        law: dict = {}
        for w, p in zip(ws, ps):
            law[Fraction(w)] = law.get(Fraction(w), 0) + Fraction(p, sum(ps))
        m = _moments(law)
        C = rng.choice([50, 200, 1000])
        B = rng.choice([0, 3, 30])
        ex, pc = _exact(law, B, C)
        # the bound uses upper moments and a lower mean: widen them a little, as the solver's intervals do
        mom = [1.0, float(m[1]) * (1 + 1e-6), float(m[2]) * (1 + 1e-6)]
        e_hi, p_hi = bop._tail_bounds(float(B), mom, float(C), float(m[1]) * (1 - 1e-6))
        assert float(ex) <= e_hi * (1 + 1e-12) + 1e-15
        assert float(pc) <= p_hi * (1 + 1e-12) + 1e-15


def test_tail_bound_is_the_sharp_mean_variance_bound():
    """The two-point law with atoms C -/+ sqrt(s^2 + d^2) (weights making mean mu) attains it."""
    import math

    mu, s2, C = 100.0, 2.0e4, 1500.0
    d = C - mu
    r = math.sqrt(s2 + d * d)
    lo, hi = C - r, C + r  # lo < 0 is allowed for the bound; shift the law by B so that W >= 0
    ph = (mu - lo) / (hi - lo)
    B = -lo
    law = {lo + B: 1 - ph, hi + B: ph}  # W = X + B; the cap applies to B... so ask for X = W - B
    mean = sum(p * w for w, p in law.items())
    m2 = sum(p * w * w for w, p in law.items())
    # R = (-B) + W has mean mu, variance s2: _tail_bounds with base win -B
    e_hi, _ = bop._tail_bounds(-B, [1.0, mean, m2], C, mean)
    exact = ph * (hi - C)
    assert e_hi >= exact * (1 - 1e-9)
    assert e_hi <= exact * (1 + 1e-6)  # no slack: the bound is attained
    # and it beats the second-moment tangent bound E[R^2] / (4C)
    assert e_hi < (s2 + mu * mu) / (4 * C)


POWER_BET = '''
[modes.power_bet]
cost = 2
reels = "power"
gamble = { feature = "free_spins", into = "power_free_spins", policy = "POLICY", win_probability = "Q" }
'''

POWER_REELS = '''power = [
  ["ten", "book", "ace", "explorer"], ["jack", "power_book", "book", "ten"], ["ace", "book", "power_book", "queen"],
  ["statue", "ten", "book", "power_book"], ["book", "beetle", "queen", "ten"],
]
'''


def _tiny_power_bet(C: int, q: str):
    from test_drawn_oracles import TINY

    from analytic.model import load_model_text

    text = TINY.replace("CAP", str(C))
    text = text.replace("free = [", POWER_REELS + "free = [", 1)
    text = text.replace("[modes.buy_free_spins]", POWER_BET + "\n[modes.buy_free_spins]", 1)
    text = text.replace('"Q"', f'"{q}"', 1).replace('"POLICY"', '"never"', 1)
    return load_model_text(text, path="tiny_bop_power_bet.toml")


def test_always_gamble_capped_mean_against_brute_force():
    from test_drawn_oracles import power_capped_oracle

    from analytic.engine.base_game import solve_base

    C, q = 40, Fraction(3, 7)
    game = _tiny_power_bet(C, "3/7")
    base = solve_base(game, "power_bet")
    counts = game.features["power_free_spins"].trigger.counts
    kinds = {f for (f, _n, _lt, _w) in base.joint if f}
    assert kinds == {"free_spins", "power_free_spins"}  # both triggers occur
    capped = pcap = 0.0
    for (f, n, _lt, win), cnt in base.joint.items():
        p = cnt / base.cycle
        B = Fraction(win, base.units)
        assert B.denominator == 1
        B = int(B)
        if f is None:
            capped += p * min(B, C)
            pcap += p * (B >= C)
            continue
        e, r = power_capped_oracle(game, counts[n], C, w0=B)
        if f == "free_spins":  # gambled: Power Free Spins with probability q, else the base win alone
            capped += p * (float(q) * e + (1 - float(q)) * min(B, C))
            pcap += p * (float(q) * r + (1 - float(q)) * (B >= C))
        else:
            capped += p * e
            pcap += p * r
    assert pcap > 1e-3  # the cap bites
    res = bop.solve_drawn_expanding_round(game, "power_bet", plain=_plain_round(game, "power_bet"), gamble="always")
    cp, pc = res.extra["capped_rtp"], res.extra["p_reach_cap"]
    rtp = capped / 2
    assert float(cp.value - cp.error) - 1e-9 <= rtp <= float(cp.value + cp.error) + 1e-9
    assert float(pc.value - pc.error) - 1e-12 <= pcap <= float(pc.value + pc.error) + 1e-12
    assert 2 * cp.error < Fraction(1, 10**7)  # no regular feature is played: exact law only
    # the policy "never" keeps the regular feature's moment bound: wider
    never = bop.solve_drawn_expanding_round(game, "power_bet", plain=_plain_round(game, "power_bet"), gamble="never").extra["capped_rtp"]
    assert never.error > cp.error
