"""Certified law of a mixture of i.i.d. sums: ``W = S_N``, ``N`` drawn, spins i.i.d. given the state.

A feature whose spins are i.i.d. in a state fixed at the start (a gift
class, a drawn symbol) and whose spin count ``N`` is fixed per class (no
retriggers) wins ``S_N = X_1 + ... + X_N``.  On a Fourier grid of ``M``
points holding ``max N`` maximal spins the sum does not alias, so
``P(S_n = k) = ifft(Q^n)[k]`` with ``Q = fft(q)`` the one-spin law ``q``;
a mixture over ``n`` is linear, so one inverse transform serves every
``n``: ``law = ifft(sum_n p_n Q^n)``.

Certified error (total variation, docs/derivations.md s. "Mixtures of
i.i.d. sums on a Fourier grid"): with ``gamma = 50 log2(M) u`` the bound of
one transform's relative 2-norm error (``u = 2^-53``), ``nbar = sum p_n n``
(weights summing to 1), ``K`` the number of terms, ``q`` the spin law,

``err <= sqrt(M) (gamma (nbar ||q||_2 + 1) + u (4 nbar + K + 2)) + neg``

where ``neg`` is the negative mass clipped to 0.  Units: the grid step is
``gcd(wins) / units`` total-bet multiples.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Mapping

import numpy as np

from analytic.features.laws.retrigger_law import M_MAX, GridLaw

__all__ = ["iid_sums_law", "iid_sums_laws"]

U = 2.0**-53


def iid_sums_law(table: Mapping[int, int], units: int, spins: Mapping[int, Fraction]) -> GridLaw | None:
    """Certified law of ``S_N`` for a spin law ``table`` and a law of the spin count ``N``.

    Parameters
    ----------
    table : Mapping[int, int]
        One spin's exact law: win in units (integer >= 0) -> stop combinations.
    units : int
        Win units per total bet.
    spins : Mapping[int, Fraction]
        ``n -> P(N = n)`` (``n >= 0``, probabilities summing to 1).

    Returns
    -------
    GridLaw or None
        Wins in total-bet multiples with a certified total-variation error;
        None when ``max N`` maximal spins do not fit :data:`M_MAX` grid points.

    Raises
    ------
    ValueError
        A negative win or spin count, or probabilities not summing to 1.
    """
    return iid_sums_laws(table, units, {None: spins})[None]


def iid_sums_laws(table: Mapping[int, int], units: int, mixtures: Mapping) -> dict:
    """:func:`iid_sums_law` for several laws of ``N`` with one spin law (the powers ``Q^n`` computed once).

    ``mixtures``: key -> ``{n: P(N = n)}``.  Returns key -> GridLaw (all None
    when the largest ``n`` does not fit the grid).  Same errors as
    :func:`iid_sums_law`.
    """
    if any(x < 0 for x in table) or any(n < 0 for sp in mixtures.values() for n in sp):
        raise ValueError("iid_sums_law: wins and spin counts must be >= 0")
    if any(sum(sp.values()) != 1 for sp in mixtures.values()):
        raise ValueError("iid_sums_law: the spin-count probabilities must sum to 1")
    g = 0
    for x in table:
        g = math.gcd(g, x)
    g = g or 1
    step = Fraction(g, units)
    mixtures = {k: {n: p for n, p in sp.items() if p} for k, sp in mixtures.items()}
    xmax = max(table) // g
    nmax = max(max(sp) for sp in mixtures.values())
    top = nmax * xmax
    if top >= M_MAX:
        return {k: None for k in mixtures}
    M = 1 << max(4, top.bit_length())  # M > nmax * xmax: no aliasing
    cycle = sum(table.values())
    q = np.zeros(M)
    for x, c in table.items():
        q[x // g] += c
    q /= cycle
    qnorm = math.sqrt(sum((c / cycle) ** 2 for c in table.values())) * (1 + 1e-15) if g else 0.0
    Q = np.fft.fft(q)
    H = {k: np.zeros(M, dtype=complex) for k in mixtures}
    wanted: dict[int, list] = {}
    for k, sp in mixtures.items():
        for n, p in sp.items():
            wanted.setdefault(n, []).append((k, float(p)))
    power = np.ones(M, dtype=complex)
    done = 0
    for n in sorted(wanted):
        while done < n:
            power *= Q
            done += 1
        for k, p in wanted[n]:
            H[k] += p * power
    gamma = 50 * math.log2(M) * U
    out = {}
    for k, sp in mixtures.items():
        probs = np.fft.ifft(H[k]).real
        nbar = float(sum(p * n for n, p in sp.items()))
        round_err = math.sqrt(M) * (gamma * (nbar * qnorm + 1) + U * (4 * nbar + len(sp) + 2))
        neg = float(-probs[probs < 0].sum())
        probs = np.clip(probs, 0.0, None)[: max(sp) * xmax + 1]
        err = round_err + neg
        method = (f"i.i.d. sums on {M} Fourier points (grid {float(step):g}x bet, no aliasing), "
                  f"one inverse transform for the {len(sp)} spin counts, total error <= {err:.1e}")
        out[k] = GridLaw(step, probs, err, method)
    return out
