"""Engine ``drawn_expanding``: a certified lower bound of the win cap's cut on free spins with drawn symbols.

Units: line-bet units inside (``u``, pays); :meth:`RegularCapLower.excess` and
:meth:`RegularCapLower.p_reach` take the base win ``B`` and the cap ``C`` in
total-bet multiples and return total-bet multiples / probabilities.

The upper bound (:mod:`draw_cap`) makes the win larger; this
module makes it smaller, so the two enclose ``E[(B + W - C)+]`` and
``P(B + W >= C)``.  Every step below can only make the bound smaller.

1. **Keep the tracked symbols' expansions, and the others' conditional mean.**
   ``W = L + sum_s m_s E_s`` with every term ``>= 0``.  The tracked symbols
   (default: the two most valuable, which carry the cap: five expanded
   explorers pay 5,000x bet at x1) keep their exact draw counts: each award
   draws a tracked symbol ``s`` with probability ``1/S`` (``S`` regular
   symbols), an untracked one otherwise, and the state counts the untracked
   draws ``K``.  Given the windows and those counts (call it ``F``), the
   untracked draws split uniformly over the ``S - 2`` untracked symbols, so
   each has count ``Bin(K, 1/(S - 2))``
   and the untracked pay's conditional mean is ``phi(K) sum E_s`` with
   ``phi(K) = E f(Bin(K, 1/(S - 2)))``.  ``(x + y - c)+`` is convex in ``y``, so
   ``E[(X + Y - c)+] >= E[(X + E[Y | F] - c)+]`` (Jensen); the line wins
   are dropped (``>= 0``).  ``rest_mean=False`` drops the untracked pays too.
2. **Pays rounded down to the grid** ``u`` (default ``C / LOW_GRID``): ``floor(x / u) u <= x``.
3. **Forward law over (awards so far, tracked counts, spins left).**  The
   same DAG as the upper bound, level by level, spins left descending; each
   state carries the law of the accumulated win on ``0..N-1`` (``(N - 1) u
   >= C``) plus the mass and the (rounded-down) first moment beyond it.  A
   spin is a direct convolution of nonnegative laws per award class
   (:func:`~analytic.features.engines.drawn_expanding.kernel.spin_step`);
   every entry is *lowered* by its relative error bound ``gamma_{N+1}``
   (Higham, *Accuracy and Stability of Numerical Algorithms*, s.3.1) and the
   underflow allowance, and clipped at 0, so all masses are lower bounds.
4. **States below ``eps`` are dropped** (their mass is lost: a lower bound).

Then ``E[(X - c)+] >= sum_k F_k (k u - c)+ + (M_over - c P_over)+`` and
``P(X >= c) >= sum_{k u >= c} F_k + P_over`` (for ``c <= (N - 1) u``), times
``1 - 1e-9`` for the floating-point sums of non-negative terms.

References: docs/derivations.md s.6 (the cap); convex order is not needed here (only
monotonicity of ``(x - c)+`` and of the indicator).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = ["RegularCapLower", "regular_cap_lower"]

#: States reached with less probability are dropped (their mass is lost).
EPS_LOW = 1e-11
#: Grid cells below the cap: pays are rounded down to ``C / LOW_GRID`` (finer is sharper; on the
#: shipped model 150 -> 600 raises the bound 1.81e-5 -> 2.29e-5 bet per 10-spin trigger, 7 -> 23 s).
LOW_GRID = 600
#: Untracked draws followed (beyond, the multiplier of this many stands: a lower bound).
KMAX_LOW = 30
#: Largest number of (tracked counts, spins left) states solved before refusing.
MAX_STATES = 4_000_000


@dataclass
class RegularCapLower:
    """Lower bounds of the cap's cut on regular Free Spins started with ``n0`` spins.

    Attributes (line-bet units): ``u`` grid unit, ``N`` grid length, ``law``
    lower-bound masses of the rounded tracked expansion win at ``k u``
    (``k < N``), ``over_p``/``over_mom`` mass and first moment beyond the
    grid (lower bounds), ``lost`` the mass dropped below ``eps``, ``states``
    solved, ``tb`` total bet in line bets, ``tracked`` the symbols kept.
    """

    n0: int
    u: int
    N: int
    tb: float
    law: np.ndarray
    over_p: float
    over_mom: float
    lost: float
    states: int
    tracked: tuple

    def x_excess_vec(self, cs) -> np.ndarray:
        """Lower bounds of ``E[(X - c)+]`` (line bets) for each ``c``."""
        cs = np.asarray(cs, dtype=np.float64)
        k = np.maximum(np.arange(self.N)[None, :] * float(self.u) - cs[:, None], 0.0)
        kept = k @ self.law
        over = np.maximum(self.over_mom - cs * self.over_p, 0.0)  # (x - c)+ >= x - c and >= 0
        return (kept + over) * (1 - 1e-9)

    def x_tail_vec(self, cs) -> np.ndarray:
        """Lower bounds of ``P(X >= c)`` for each ``c`` (line bets)."""
        cs = np.asarray(cs, dtype=np.float64)
        vals = np.arange(self.N) * float(self.u)
        kept = (vals[None, :] >= cs[:, None]).astype(np.float64) @ self.law
        over = np.where(cs <= (self.N - 1) * float(self.u), self.over_p, 0.0)
        return np.minimum((kept + over) * (1 - 1e-9), 1.0)

    def excess(self, B: float, C: float) -> float:
        """Lower bound of ``E[(B + W - C)+]`` (total-bet multiples)."""
        return float(self.x_excess_vec(np.array([(C - B) * self.tb]))[0]) / self.tb

    def p_reach(self, B: float, C: float) -> float:
        """Lower bound of ``P(B + W >= C)``."""
        if B >= C:
            return 1.0
        return float(self.x_tail_vec(np.array([(C - B) * self.tb]))[0])


def regular_cap_lower(game, feature: str, n0: int, u: int | None = None, eps: float | None = None,
                      tracked=None, max_states: int | None = None, rest_mean: bool = True,
                      ws=None) -> RegularCapLower:
    """Certified lower bounds of the cap's cut for regular Free Spins started with ``n0`` spins.

    Parameters
    ----------
    game, feature : the model and its ``drawn_expanding`` feature with drawn symbols (no ladder).
    n0 : int
        Starting spins (10/15/20 for 3/4/5 books on the shipped model).
    u : int, optional
        Grid unit in line-bet units (default: the cap's line-bet value / 600,
        rounded down to a multiple of the tracked pays' gcd).
    eps : float
        States reached with less probability are dropped (default ``EPS_LOW``).
    tracked : sequence of symbol names, optional
        Symbols whose expansions are kept (default: the two most valuable).
    max_states : int, optional
        Refuse (``ValueError``) rather than solve more states (default ``MAX_STATES``).
    ws : Workspace, optional
        The solve's workspace for ``game`` (:mod:`analytic.workspace`):
        the bound and the spin table of the tracked symbols (shared by the
        starts) are kept there.  None: a fresh one.

    Raises
    ------
    ValueError
        Without a cap, for the Power variant, for ``eps`` not positive, for
        tracked names that are not distinct regular symbols, for ``u`` not a
        positive integer.
    TooManyStates
        (from :mod:`draw_cap`, a ``ValueError``) beyond
        ``max_states`` states.
    """
    from analytic.features.engines.drawn_expanding.engine import multiplier_of_count
    from analytic.features.engines.drawn_expanding.draw_cap import (TooManyStates, _gamma, binomial_pmf,
                                                        _unique_rows, check_grid_unit, expansion_table)
    from analytic.features.engines.drawn_expanding.kernel import spin_step, sum_blocks
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats
    from analytic.workspace import workspace_for

    ws = workspace_for(game, ws)
    if game.cap is None:
        raise ValueError("regular_cap_lower: the model has no win cap")
    st = spin_stats(game, feature, ws)
    if st.variant != "draws":
        raise ValueError("regular_cap_lower: regular Free Spins only")
    eps = EPS_LOW if eps is None else eps
    if not eps > 0:
        raise ValueError("regular_cap_lower: eps must be positive (the chain has no last state)")
    tracked = tuple(tracked) if tracked is not None else tuple(reversed(st.ordered[-2:]))
    if not tracked or any(s not in st.ordered for s in tracked) or len(set(tracked)) != len(tracked):
        raise ValueError(f"regular_cap_lower: tracked symbols {tracked!r} must be distinct regular symbols")
    check_grid_unit(u, "regular_cap_lower")
    max_states = MAX_STATES if max_states is None else max_states
    key = ("drawn_expanding.reglow", feature, n0, u, eps, tracked, max_states, rest_mean, KMAX_LOW, LOW_GRID)
    hit = ws.get(key)
    if hit is not None:
        return hit
    reading, ceiling = st.reading, st.ceiling
    cmax = 1  # the first draw count at the ceiling (max_multiplier)
    while multiplier_of_count(cmax, reading, ceiling) < ceiling:
        cmax += 1
    mult = np.array([0] + [multiplier_of_count(c, reading, ceiling) for c in range(1, cmax + 1)], dtype=np.float64)
    tb = float(st.tb)
    Cl = float(game.cap.total_bet_multiple) * tb
    rest = tuple(s for s in st.ordered if s not in tracked)
    nt = len(tracked)
    rest_mean = rest_mean and bool(rest)
    tkey = ("drawn_expanding.reglow.table", feature, tracked, rest_mean)  # the spin table does not depend on the start

    def table():
        keys, cnt = expansion_table(st, [(s,) for s in tracked] + ([rest] if rest else []))
        keys = keys[:, :2 + nt] if rest_mean else keys[:, :1 + nt]
        uk, inv = _unique_rows(keys)  # (numpy.unique(keys, axis=0, return_inverse=True))
        icnt = np.zeros(len(uk), dtype=object)  # exact integer sums, then one rounding each
        for i, c in zip(inv.ravel(), cnt):
            icnt[i] += int(c)
        return uk, np.array([int(c) / st.cycle for c in icnt], dtype=np.float64)

    uk, prob = ws.memo(tkey, table)
    award = uk[:, 0]
    E = uk[:, 1:1 + nt].astype(np.int64)
    ER = uk[:, 1 + nt].astype(np.float64) if rest_mean else None  # sum of the untracked E_s
    if rest_mean:
        # phi(K) = E[f(Bin(K, 1/|rest|))], exactly, then to the nearest float: each untracked symbol's
        # multiplier given K untracked draws (the draws split uniformly, independently of the windows)
        qr = Fraction(1, len(rest))
        phi = []
        for k in range(KMAX_LOW + 1):
            v = sum(px * int(mult[min(x, cmax)]) for x, px in enumerate(binomial_pmf(k, qr)))
            phi.append(float(v))
    g0 = int(np.gcd.reduce(E.ravel())) if E.size else 0
    g0 = g0 or 1
    if u is None:
        u = max(g0, int(Cl // LOW_GRID) // g0 * g0)
    N = math.ceil(Cl / u) + 1
    gam = _gamma(N + 1)  # relative error of a direct convolution of nonnegative numbers
    tiny = (N + 1) * 2.0 ** -1074  # and the absolute error of underflowed products
    classes = sorted(set(int(a) for a in award))
    nsym = len(st.ordered)
    pdraw = 1.0 / nsym
    grid = np.arange(2 * N - 1, dtype=np.float64) * u

    tid: dict = {}
    tuples: list = []
    nc = len(classes)
    nb = nt + bool(rest)  # draw targets per state: each tracked symbol, then an untracked one
    # per tuple id: per class the spin law, over mass, over moment, class mass, moment; the ids after
    # a draw (grown as ids are met)
    tab = dict(S=np.zeros((64, nc, N)), BP=np.zeros((64, nc)), BM=np.zeros((64, nc)), CM=np.zeros((64, nc)),
               X1=np.zeros((64, nc)), BUMP=np.full((64, max(nb, 1)), -1, dtype=np.int64))
    cls_sel = [award == a for a in classes]

    def ident(m):
        i = tid.get(m)
        if i is None:
            i = tid[m] = len(tuples)
            tuples.append(m)
            if i >= len(tab["S"]):
                for k, v in tab.items():
                    tab[k] = np.concatenate([v, np.full_like(v, -1 if k == "BUMP" else 0)])
            f = mult[np.minimum(np.array(m[:nt]), cmax)]
            x = E @ f  # exact in float: integers below 2^53
            if rest_mean:  # the untracked pays' conditional mean, lowered past its float rounding
                y = ER * phi[m[nt]]
                x = np.where(y > 0, (x + y) * (1 - 2.0 ** -50), x)  # x alone is an exact integer
            k = (x // u).astype(np.int64)
            for ci, sel in enumerate(cls_sel):
                kk, pp = k[sel], prob[sel]
                small = kk < N
                tab["S"][i, ci] = np.bincount(kk[small], weights=pp[small], minlength=N)[:N]
                tab["BP"][i, ci] = float(pp[~small].sum())
                tab["BM"][i, ci] = float(np.sum(pp[~small] * kk[~small] * u))
                tab["CM"][i, ci] = float(pp.sum())
                tab["X1"][i, ci] = float(np.sum(pp * kk * u))
        return i

    def bumps(ids):
        """The ids after one draw of each tracked symbol, then (if any) of an untracked one."""
        out = tab["BUMP"]
        for i in ids[out[ids, 0] < 0] if nb else ():
            m = tuples[int(i)]
            row = [ident(bump(m, j)) for j in range(nt)]
            if rest:
                row.append(ident(bump(m, nt)) if rest_mean else int(i))
            out = tab["BUMP"]  # (ident may have grown it)
            out[i] = row
        return tab["BUMP"][ids]

    def bump(m, j):
        """One more draw of tracked symbol ``j``, or (``j = nt``) of an untracked one."""
        m2 = list(m)
        m2[j] = min(m2[j] + 1, cmax if j < nt else KMAX_LOW)
        return tuple(m2)

    W = N + 2  # grid masses, over mass, over first moment
    law = np.zeros(N)
    over = np.zeros(2)
    lost = 0.0
    states = 0
    wdraw = [pdraw] * nt + ([1.0 - nt * pdraw] if rest else [])

    zero = tuple([0] * (nt + rest_mean))
    pending: dict = {}  # spins left -> blocks (target ids, rows, weight, None), summed per target when processed
    start = [(bump(zero, j), pdraw) for j in range(nt)] + (
        [(bump(zero, nt) if rest_mean else zero, 1.0 - nt * pdraw)] if rest else [])
    for m, w in start:
        row = np.zeros((1, W))
        row[0, 0] = w
        pending.setdefault(n0, []).append((np.array([ident(m)]), row, 1.0, None))
    while pending:
        nxt: dict = {}
        for n in range(max(pending), 0, -1):
            blocks = pending.pop(n, None)
            if not blocks:
                continue
            ids, H, _ = sum_blocks(blocks)  # row by row, in the order the transitions were made
            mass = H[:, :N].sum(axis=1) + H[:, N]
            keep = mass >= eps
            lost += float(mass[~keep].sum())
            if not keep.any():
                continue
            ids, H = ids[keep], H[keep]
            states += len(ids)
            if states > max_states:
                raise TooManyStates(f"regular_cap_lower: more than {max_states} states at eps = {eps:g}; "
                                 "raise eps or track fewer symbols")
            G = H[:, :N]
            gmass = G.sum(axis=1)
            mean = G @ grid[:N]
            po, so = H[:, N], H[:, N + 1]
            after = bumps(ids)
            for ci, a in enumerate(classes):
                bp, bm, cm, x1 = (tab[k][ids, ci] for k in ("BP", "BM", "CM", "X1"))
                # the convolution lowered by gamma_{N+1} and the underflow, clamped at 0
                new = np.empty((len(ids), W))
                tail, tailm, _ = spin_step(G, tab["S"].reshape(-1, N), ids * nc + ci, 1 - gam, -tiny, grid[N:], new)
                new[:, N] = tail + gmass * bp + po * cm
                new[:, N + 1] = tailm + mean * bp + gmass * bm + so * cm + po * x1
                n2 = n - 1 + a
                if a == 0:
                    if n2 == 0:
                        law[:] += new[:, :N].sum(axis=0)
                        over[:] += new[:, N:].sum(axis=0)
                    else:
                        pending.setdefault(n2, []).append((ids, new, 1.0, None))
                    continue
                tgt = nxt.setdefault(n2, [])
                for j, w in enumerate(wdraw):
                    tgt.append((after[:, j], new, w, None))
        pending = nxt
    f = 1 - 1e-9
    res = RegularCapLower(n0=n0, u=u, N=N, tb=tb, law=law * f, over_p=float(over[0]) * f,
                          over_mom=float(over[1]) * f, lost=lost, states=states, tracked=tracked)
    ws.put(key, res)
    return res

