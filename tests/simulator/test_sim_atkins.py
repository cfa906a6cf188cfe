"""Atkins Diet (case_01): the simulator against the published figures."""

import math

import numpy as np

from analytic.simulator import simulate
from analytic.simulator.evaluate import compile_tables
from analytic.simulator.features import free_spins
from simgames import atkins

Z999 = 3.2905267314918945


def test_expected_free_spins_per_trigger():
    g = atkins()
    t = compile_tables(g)
    m = 20_000
    res = free_spins.play(t, "free_spins", t.features["free_spins"], np.full(m, 3), np.full(m, 10),
                          np.random.default_rng(2024))
    mean, sd = res.spins.mean(), res.spins.std(ddof=1)
    assert abs(mean - 11.259335) <= Z999 * sd / math.sqrt(m)
    assert not res.limited.any() and res.spins.min() == 10 and (res.spins % 10 == 0).all()


def test_exact_expected_retrigger_award():
    g = atkins()
    ea = free_spins.expected_awards(g, "base", {"Scale"}, {3: 10})
    assert abs(10 / (1 - float(ea)) - 11.259335) < 5e-7  # Wald: E[T] = n / (1 - E[A])


def test_total_rtp_and_trigger_rate_inside_intervals():
    r = simulate(atkins(), rounds=300_000, seed=20080101, progress=False)
    lo, hi = r.rtp_ci999
    assert lo <= 0.97046 <= hi
    assert abs(r.feature_frequency - 0.011185) <= Z999 * r.feature_frequency_se
    assert r.limited_rounds == 0 and r.capped_rounds == 0
