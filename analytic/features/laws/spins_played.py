"""Exact law of the number of free spins played and of the retriggers in one feature.

The problem
-----------
A feature starts with ``n0`` spins.  Spin ``t`` awards ``A_t >= 0`` more
spins, the ``A_t`` i.i.d. with an exact law given as integer weights
``w_a`` (stop combinations of the free reel set awarding ``a`` spins, total
``C``).  The spins left after ``t`` spins are ``n0 + sum_{i<=t} (A_i - 1)``,
a random walk that goes down by at most one per step (*skip-free*); the
feature ends at ``N``, the first ``t`` where it reaches 0.  ``R`` counts the
spins that award spins (``A_t > 0``, the retriggers) among the ``N`` played.

The hitting-time theorem
------------------------
For a skip-free walk started at ``n0`` (Kemperman; Otter and Dwass for
branching processes; ``docs/derivations.md`` section 13),

    ``P(N = n) = (n0 / n) P(A_1 + ... + A_n = n - n0)``,   ``n >= n0``.

The proof is the cycle lemma: among the ``n`` cyclic shifts of a sequence
of steps summing to ``n - n0``, exactly ``n0`` first reach 0 at step ``n``;
the steps are exchangeable, so every shift is as likely.  Any function of
the multiset of steps is invariant under the shifts, so the same holds
jointly with ``R_n = #{i <= n : A_i > 0}``:

    ``P(N = n, R = r) = (n0 / n) P(S_n = n - n0, R_n = r)
    = (n0 / n) C(n, r) w_0^(n - r) [x^(n - n0)] Q(x)^r / C^n``,

with ``Q(x) = sum_{a > 0} w_a x^a`` (choose which ``r`` of the ``n`` spins
award).  Only the powers ``Q^r`` (``r <= (n - n0) / a_min``), truncated, are
needed, as exact integers.  With ``g`` the gcd of the positive awards,
``N - n0`` is a multiple of ``g`` and everything runs on ``x^g``.

Truncation
----------
The rows ``n <= n_max`` are exact fractions; ``n_max`` is the first
``n`` at which ``P(N > n) = 1 - sum_{m <= n} P(N = m)`` (exact) is at most
:data:`TAIL_TARGET`, or :data:`N_LIMIT`, or ``n0 + STEP_LIMIT g`` (a slowly
ending feature: the cost of the exact powers grows about as the cube of the
steps); the remaining mass is reported as
the exact row "more than ``n_max`` spins".  ``R = r`` needs
``n0 + r a_min <= N <= n0 + r a_max``, so ``P(R = r)`` is a finite sum of
the joint rows, computed exactly for every ``r`` up to the first with ``P(R > r) <= TAIL_TARGET`` (or ``STEP_LIMIT``),
from one whole power ``Q^r`` per ``r``; the rest is one exact tail row.
``E[N] = n0 / (1 - E[A])`` (Wald) is the cross-check of the rows.

A ceiling on the spins awarded in total (``max_spins``: after a spin the
spins left are ``min(left - 1 + A, ceiling - played)``) breaks the walk's
exchangeability; :func:`ceiling_law` then runs the finite chain over
(spins left, retriggers) spin by spin, exactly (``N <= ceiling``, no tail).

Units: spins; probabilities exact :class:`fractions.Fraction`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb, gcd
from typing import Iterable, Mapping

__all__ = ["SpinsLaw", "TAIL_TARGET", "N_LIMIT", "fixed_law", "hitting_law", "ceiling_law", "count_law",
           "mix", "STEP_LIMIT"]

#: The rows stop at the first ``n`` where ``P(N > n)`` is at most this (exact, reported as the tail row).
TAIL_TARGET = Fraction(1, 10**12)
#: The rows stop at this many spins at most (the exact tail row holds the rest).
N_LIMIT = 2000
#: ... and at ``n0 + STEP_LIMIT g`` spins (``g`` the gcd of the awards): the powers table has about
#: ``STEP_LIMIT^2 / 2`` entries of up to ``STEP_LIMIT log2(C)`` bits (about 0.3 s at 200).
STEP_LIMIT = 200


@dataclass(frozen=True)
class SpinsLaw:
    """Law of the spins played ``N`` and of the retriggers ``R`` in one feature.

    Attributes
    ----------
    spins : tuple of (int, Fraction)
        ``(n, P(N = n))`` for every ``n <= n_max`` with positive probability,
        increasing ``n``, exact.
    tail : Fraction
        ``P(N > n_max)``, exact (0 when every row is there).
    n_max : int
        Largest ``n`` the rows cover.
    retriggers : tuple of (int, Fraction)
        ``(r, P(R = r))`` for ``r <= r_max`` (positive rows), exact.
    retrigger_tail : Fraction
        ``P(R > r_max)``, exact.
    r_max : int
    expected : Fraction
        ``E[N]``, exact (closed form, or the sum of a finite law).
    method : str
        One line for the regulator appendix.
    """

    spins: tuple[tuple[int, Fraction], ...]
    tail: Fraction
    n_max: int
    retriggers: tuple[tuple[int, Fraction], ...]
    retrigger_tail: Fraction
    r_max: int
    expected: Fraction
    method: str = ""

    @property
    def p_retrigger(self) -> Fraction:
        """``P(R >= 1)``: at least one spin awards spins, exact."""
        return 1 - dict(self.retriggers).get(0, Fraction(0))


def fixed_law(n0: int) -> SpinsLaw:
    """``N = n0`` with certainty, no retriggers (a fixed countdown)."""
    return SpinsLaw(((n0, Fraction(1)),), Fraction(0), n0, ((0, Fraction(1)),), Fraction(0), 0, Fraction(n0),
                    f"fixed countdown of {n0} spins")


def count_law(probabilities: Mapping[int, Fraction], method: str = "") -> SpinsLaw:
    """A spin count drawn once at the start (``n -> probability``), no retriggers."""
    rows = tuple(sorted((int(n), Fraction(p)) for n, p in probabilities.items() if p))
    if sum(p for _, p in rows) != 1:
        raise ValueError("the probabilities of the spin counts do not sum to 1")
    return SpinsLaw(rows, Fraction(0), rows[-1][0], ((0, Fraction(1)),), Fraction(0), 0,
                    sum((n * p for n, p in rows), Fraction(0)), method or "spin count drawn at the start")


def _check(weights: Mapping[int, int]) -> tuple[dict[int, int], int]:
    w = {int(a): int(c) for a, c in weights.items() if c}
    if not w or any(a < 0 or c < 0 for a, c in w.items()):
        raise ValueError("the award law needs positive integer weights on awards >= 0")
    return w, sum(w.values())


def hitting_law(n0: int, weights: Mapping[int, int], *, tail_target: Fraction = TAIL_TARGET,
                n_limit: int = N_LIMIT, step_limit: int = STEP_LIMIT, n_max: int | None = None,
                r_limit: int = STEP_LIMIT) -> SpinsLaw:
    """Exact law of the spins played and the retriggers by the hitting-time theorem.

    Parameters
    ----------
    n0 : int
        Spins at the start (>= 1).
    weights : mapping int -> int
        Spins awarded by one spin -> integer weight (e.g. stop combinations);
        the probability of ``a`` is ``weights[a] / sum(weights)``.
    tail_target : Fraction
        Stop the rows at the first ``n`` with ``P(N > n) <= tail_target``.
    n_limit : int
        ... or at ``n_limit`` spins.
    step_limit : int
        ... or at ``n0 + step_limit g`` spins (``g`` the gcd of the awards).
    n_max : int, optional
        Rows exactly up to this ``n`` instead (for mixing laws on one range).
    r_limit : int
        The retriggers' rows stop at ``P(R > r) <= tail_target`` or at
        ``r_limit`` (computed on their own: ``R = r`` needs one power ``Q^r``).

    Returns
    -------
    SpinsLaw

    Raises
    ------
    ValueError
        ``n0 < 1``, or ``E[A] >= 1`` (``N`` has no finite mean: the feature
        solvers refuse such features first).
    """
    if n0 < 1:
        raise ValueError("a feature with spins starts with at least one spin")
    w, C = _check(weights)
    EA = Fraction(sum(a * c for a, c in w.items()), C)
    if EA >= 1:
        raise ValueError(f"E[A] = {EA} >= 1: the number of spins played has no finite mean")
    pos = {a: c for a, c in w.items() if a > 0}
    if not pos:
        return fixed_law(n0)
    g = 0
    for a in pos:
        g = gcd(g, a)
    q = {a // g: c for a, c in pos.items()}  # Q(x) on x^g
    amin = min(q)
    w0 = w.get(0, 0)
    expected = Fraction(n0) / (1 - EA)
    # col[r] = [x^m] Q^r for the current m (a column per m: pw[r][m])
    pw: list[list[int]] = [[1]]  # pw[0] = 1
    rows: list[tuple[int, Fraction]] = []
    ftotal = 0.0
    m = 0
    while True:
        n = n0 + m * g
        if m:
            # extend every power by its coefficient of x^m; new power r = m // amin at most
            rtop = m // amin
            while len(pw) <= rtop:
                pw.append([0] * len(pw[-1]))
            pw[0].append(0)
            for r in range(1, len(pw)):
                s = 0
                prev = pw[r - 1]
                for k, c in q.items():
                    if k <= m:
                        s += c * prev[m - k]
                pw[r].append(s)
        num = 0
        for r in range(0, min(m // amin, n) + 1):
            cf = pw[r][m]
            if cf:
                i = comb(n, r) * w0 ** (n - r) * cf  # P(N = n, R = r) = n0 i / (n C^n)
                num += i
        if num:
            pn = Fraction(n0 * num, n * C ** n)
            rows.append((n, pn))
            ftotal += float(pn)
        if n_max is not None:
            if n + g > n_max:
                break
        elif n + g > n_limit or m >= step_limit:
            break
        elif 1 - ftotal <= 0.5 * float(tail_target):  # float guess (error ~1e-16), checked exactly below
            total = sum((p for _, p in rows), Fraction(0))
            if 1 - total <= tail_target:
                break
            ftotal = float(total)
        m += 1
    top = n
    total = sum((p for _, p in rows), Fraction(0))
    rrows, r_max = _retrigger_law(n0, q, w0, C, g, tail_target, r_limit)
    return SpinsLaw(tuple(rows), 1 - total, top, rrows, 1 - sum((p for _, p in rrows), Fraction(0)), r_max,
                    expected,
                    "hitting-time theorem P(N = n) = (n0/n) P(A_1 + ... + A_n = n - n0), exact integer powers of "
                    "the award law, jointly with the retriggers (docs/derivations.md s.13)")


def _retrigger_law(n0: int, q: dict[int, int], w0: int, C: int, g: int, tail_target: Fraction,
                   r_limit: int) -> tuple[tuple[tuple[int, Fraction], ...], int]:
    """``P(R = r)`` for ``r = 0, 1, ...`` until ``P(R > r) <= tail_target`` or ``r = r_limit``.

    ``R = r`` forces ``N = n0 + g m`` with ``m`` between ``r`` times the
    smallest and the largest award (in steps of ``g``), so
    ``P(R = r) = sum_m (n0 / n) C(n, r) w_0^(n - r) [x^m] Q^r / C^n``: one
    whole power ``Q^r`` per ``r`` (``q``: ``Q`` on ``x^g``), exact.
    """
    amin, amax = min(q), max(q)
    qp = [0] * (amax + 1)
    for k, c in q.items():
        qp[k] = c
    power = [1]  # Q^r
    out = []
    total = Fraction(0)
    r = 0
    while True:
        ms = range(r * amin, r * amax + 1)
        ns = [n0 + g * m for m in ms]
        L = 1
        for n in ns:
            L = L * n // gcd(L, n)
        top = ns[-1]
        num = sum(comb(n, r) * w0 ** (n - r) * power[m] * C ** (top - n) * (L // n)
                  for m, n in zip(ms, ns) if power[m] and r <= n)
        p = Fraction(n0 * num, L * C ** top)
        if p:
            out.append((r, p))
        total += p
        if 1 - total <= tail_target or r >= r_limit:
            return tuple(out), r
        nxt = [0] * (len(power) + amax)
        for i, a in enumerate(power):
            if a:
                for k in range(amin, amax + 1):
                    if qp[k]:
                        nxt[i + k] += a * qp[k]
        power = nxt
        r += 1


def ceiling_law(n0: int, weights: Mapping[int, int], ceiling: int) -> SpinsLaw:
    """Exact law of the spins played and retriggers under a ceiling on the spins awarded in total.

    After a spin the spins left are ``min(left - 1 + A, ceiling - played)``
    (``played`` counting that spin): the chain over (spins left,
    retriggers) is run spin by spin with integer weights (denominator
    ``C^played``), so ``N <= ceiling`` and every row is exact.  A spin
    whose award the ceiling cuts (in part or whole) still counts as a
    retrigger: ``R`` counts the spins with ``A > 0``.

    Parameters
    ----------
    n0 : int
        Spins at the start (``1 <= n0 <= ceiling``).
    weights : mapping int -> int
        Award law as in :func:`hitting_law` (any mean: the ceiling ends it).
    ceiling : int
        ``max_spins``.
    """
    if not 1 <= n0 <= ceiling:
        raise ValueError("the start must be between 1 and the ceiling")
    w, C = _check(weights)
    state: dict[tuple[int, int], int] = {(n0, 0): 1}
    ended: dict[tuple[int, int], Fraction] = {}
    played = 0
    while state:
        played += 1
        nxt: dict[tuple[int, int], int] = {}
        room = ceiling - played
        for (left, r), c in state.items():
            for a, wa in w.items():
                nl = min(left - 1 + a, room)
                key = (nl, r + (a > 0))
                if nl == 0:
                    k = (played, key[1])
                    ended[k] = ended.get(k, Fraction(0)) + Fraction(c * wa, C ** played)
                else:
                    nxt[key] = nxt.get(key, 0) + c * wa
        state = nxt
    spins: dict[int, Fraction] = {}
    rl: dict[int, Fraction] = {}
    for (n, r), p in ended.items():
        spins[n] = spins.get(n, Fraction(0)) + p
        rl[r] = rl.get(r, Fraction(0)) + p
    rows = tuple(sorted((n, p) for n, p in spins.items() if p))
    rrows = tuple(sorted((r, p) for r, p in rl.items() if p))
    return SpinsLaw(rows, Fraction(0), max(n for n, _ in rows), rrows, Fraction(0), max(r for r, _ in rrows),
                    sum((n * p for n, p in rows), Fraction(0)),
                    f"exact chain over (spins left, retriggers) under the ceiling of {ceiling} spins awarded "
                    "in total")


def mix(parts: Iterable[tuple[Fraction, SpinsLaw]]) -> SpinsLaw:
    """Mixture of laws (a state or a spin count drawn at the start), weights summing to 1 or not.

    Rows are kept up to the smallest ``n_max`` (and ``r_max``) of the parts
    with a tail (all rows when no part has one); the mass beyond moves to
    the exact tail rows.
    """
    parts = [(Fraction(p), L) for p, L in parts if p]
    tot = sum(p for p, _ in parts)
    if not parts or tot <= 0:
        raise ValueError("nothing to mix")
    if len(parts) == 1:
        return parts[0][1]
    cut = [L.n_max for _, L in parts if L.tail]
    n_max = min(cut) if cut else max(L.n_max for _, L in parts)
    cut = [L.r_max for _, L in parts if L.retrigger_tail]
    r_max = min(cut) if cut else max(L.r_max for _, L in parts)
    sp: dict[int, Fraction] = {}
    rt: dict[int, Fraction] = {}
    for p, L in parts:
        q = p / tot
        for n, x in L.spins:
            if n <= n_max:
                sp[n] = sp.get(n, Fraction(0)) + q * x
        for r, x in L.retriggers:
            if r <= r_max:
                rt[r] = rt.get(r, Fraction(0)) + q * x
    rows = tuple(sorted(sp.items()))
    rrows = tuple(sorted(rt.items()))
    methods = sorted({L.method for _, L in parts})
    return SpinsLaw(rows, 1 - sum((x for _, x in rows), Fraction(0)), n_max, rrows,
                    1 - sum((x for _, x in rrows), Fraction(0)), r_max,
                    sum((p / tot * L.expected for p, L in parts), Fraction(0)),
                    "; ".join(methods) + (", mixed" if len(parts) > 1 else ""))
