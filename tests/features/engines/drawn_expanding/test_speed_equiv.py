"""The vectorized Book of Power per-spin sums and cap-law reach against the plain per-row formulas.

:class:`~analytic.features.engines.drawn_expanding.spin_stats.SpinStats` sums its walk rows
with numpy (int64 where a bound below 2^63 is checked, else Python integers);
here the same sums are taken row by row in Python integers from the walk rows
it keeps (``walk_rows``), on the tiny game, on both paths.  The Python-integer
path is also run through the window brute force of the oracle tests.
"""

from __future__ import annotations

import numpy as np
import pytest
import test_drawn_oracles as oracles
from test_drawn_oracles import tiny

import analytic.features.engines.drawn_expanding.spin_stats as spin_mod


def _row_formulas(st):
    """The plain per-row sums (Python integers; floats for ``mix``) from ``st.walk_rows``."""
    ng, nmask = st.ng, 1 << st.ng

    def award(b):
        return st.spb * (b - 1) if b >= 2 else 0

    def epay(s, n):
        return st.pays[s].get(n, 0) * st.nl if n >= st.need[s] else 0

    def pmask(r):
        return sum(int(r[1 + k]) << k for k in range(ng))

    rows0, lw0, cnt0 = st.walk_rows[st.ordered[0]]
    classes = sorted({(award(int(r[0])), pmask(r)) for r in rows0})
    ci = {c: i for i, c in enumerate(classes)}
    nc = len(classes)
    out = {"classes": classes, "count": [0] * nc, "sL": [0] * nc, "sLL": [0] * nc, "line_law": {},
           "sE": {}, "sEE": {}, "sLE": {}, "zero_weight": {}, "mix": {}}
    for r, L, n in zip(rows0, lw0, cnt0):
        c = ci[(award(int(r[0])), pmask(r))]
        out["count"][c] += n
        out["sL"][c] += L * n
        out["sLL"][c] += L * L * n
        key = (award(int(r[0])), L)
        out["line_law"][key] = out["line_law"].get(key, 0) + n
    for s in st.ordered:
        rows, lw, cnt = st.walk_rows[s]
        out["zero_weight"][s] = sum(n for r, L, n in zip(rows, lw, cnt) if L == 0 and epay(s, int(r[1 + ng])) == 0)
        E = [[0] * nmask for _ in range(nc)]
        EE = [[0] * nmask for _ in range(nc)]
        LE = [[0] * nmask for _ in range(nc)]
        K = st.ORDER
        mix = np.zeros((K + 1, K + 1, nc, nmask))
        cls = np.array([ci[(award(int(r[0])), pmask(r))] for r in rows])
        Lf = np.array([float(x) for x in lw])
        nf = np.array([float(x) for x in cnt])
        for G in range(nmask):
            es = []
            for r, L, n in zip(rows, lw, cnt):
                P = pmask(r)
                c = ci[(award(int(r[0])), P)]
                H = G | P if st.immediate else G
                k = int(r[1 + ng]) + sum(1 if (H >> q) & 1 else int(r[2 + ng + q]) for q in range(ng))
                e = epay(s, k)
                es.append(float(e))
                E[c][G] += e * n
                EE[c][G] += e * e * n
                LE[c][G] += L * e * n
            e = np.array(es)
            for a in range(K + 1):
                for b in range(K + 1 - a):
                    mix[a, b, :, G] = np.bincount(cls, weights=nf * Lf ** a * e ** b, minlength=nc)
        out["sE"][s], out["sEE"][s], out["sLE"][s], out["mix"][s] = E, EE, LE, mix
    return out


@pytest.mark.parametrize("python_ints", [False, True])
def test_power_spin_sums_against_row_formulas(monkeypatch, python_ints):
    """Every exact sum equal (and Python ints), ``line_law`` in first-appearance order, ``mix`` bit for bit."""
    if python_ints:
        monkeypatch.setattr(spin_mod, "_I64", 1)  # no int64 sums at all
    st = spin_mod.SpinStats(tiny(), "power_free_spins")
    ref = _row_formulas(st)
    assert st.classes == ref["classes"]
    for name in ("count", "sL", "sLL", "line_law", "sE", "sEE", "sLE", "zero_weight"):
        assert getattr(st, name) == ref[name], name
    assert list(st.line_law) == list(ref["line_law"])
    ints = list(st.count) + st.sL + st.sLL + list(st.line_law.values()) + list(st.zero_weight.values())
    for name in ("sE", "sEE", "sLE"):
        ints += [x for s in st.ordered for row in getattr(st, name)[s] for x in row]
    assert all(type(x) is int for x in ints)
    for s in st.ordered:
        assert np.array_equal(st.mix[s], ref["mix"][s]), s


@pytest.mark.parametrize("feature,literal", [("free_spins", False), ("power_free_spins", False),
                                             ("power_free_spins", True)])
def test_python_int_path_against_window_sums(monkeypatch, feature, literal):
    """The Python-integer fallback (forced) against the oracle tests' window brute force."""
    monkeypatch.setattr(spin_mod, "_I64", 1)
    oracles.test_class_moments_against_window_sums(feature, literal)


def test_cap_reach_against_plain_loop():
    """The cap law's reach probabilities are bit for bit those of the plain forward loop over classes."""
    from analytic.features.engines.drawn_expanding.ladder_cap import SKIP, PowerCapLaw
    from analytic.features.engines.drawn_expanding.moments import _ladder

    game = tiny(40)
    Kmax, J = 60, 8
    law = PowerCapLaw(game, "power_free_spins", Kmax=Kmax, J=J)
    st = spin_mod.spin_stats(game, "power_free_spins")
    NP = len(_ladder(st.reading, len(st.ordered), st.ceiling)) + J
    NG = st.nmask
    p_cls = np.array(st.count, dtype=float) / float(st.cycle)
    reach = np.zeros((NP, NG, Kmax + 1))
    for K0 in sorted(set(game.features["power_free_spins"].trigger.counts.values())):
        reach[0:9, 0, K0] += 1.0 / 9
    for pl in range(NP):
        for K in range(Kmax, 0, -1):
            for G in range(NG):
                r = reach[pl, G, K]
                if r < SKIP:
                    continue
                for (a, P), pc in zip(st.classes, p_cls):
                    Kp = K - 1 + a
                    if Kp == 0 or Kp > Kmax or pl + (a > 0) >= NP:
                        continue
                    reach[pl + (a > 0), G | P, Kp] += r * pc
    assert np.array_equal(law.reach, reach)
