"""Engine ``drawn_expanding``: the probability that a feature wins nothing (for the hit frequencies).

Units: probabilities (floats, certified bounds; converted to fractions by the caller).

A free spin wins nothing when its line win is 0 and no expanding symbol pays
an expansion (every multiplier is at least 1, so the multipliers do not
matter, only which symbols expand).  So ``P(feature wins nothing)`` needs a
far smaller state than the win itself:

* **Regular Free Spins**: ``(S, j, n)``, ``S`` the set of expanding symbols
  (a bit mask over the regular symbols), ``j`` the awards so far, ``n``
  the spins left.  One joint line walk
  (:func:`~analytic.features.engines.drawn_expanding.draw_cap.line_expansion_rows`)
  gives, per outcome, the award ``a``, the line win and the set ``X`` of
  symbols whose expansion would pay; a spin at ``S`` wins nothing with
  award ``a`` with probability ``Z_a(S) = sum_{X disjoint from S} p(a, X,
  L = 0)`` (a sum over the subsets of the complement, one zeta transform
  per award).  An award draws one of the ``S`` regular symbols (``1/S`` each):
  ``S | {d}``.
* **Power Free Spins**: ``(pl, G, n)``, ``pl`` the ladder position (the
  expanding symbol; beyond the top it counts the awards), ``G`` the golden
  reels.  A spin at ``(s, G)`` wins nothing when its line win is 0 and the
  reels showing ``s``, golden ones included, are too few for ``s`` to pay;
  its Power Books join ``G`` (the per-symbol walks of
  :class:`~analytic.features.engines.drawn_expanding.spin_stats.SpinStats`).

Both are DAGs (``j`` or ``pl`` grows, else ``n`` falls) solved backward:
``V(state) = sum over zero-win outcomes p * V(next)``, ``V(., 0) = 1``.  The
awards are followed up to ``JMAX`` (beyond the Power ladder's top); a path
cut there is worth between 0 and ``zsum^n`` (``zsum`` the state's
probability of a zero-win spin: later states only add expanding symbols or
golden reels, so no later spin wins nothing more often -- for the golden
reels this needs the symbol's expansion pay to stay positive once it is
positive as reels are added, checked, else the cut is worth up to 1), which
gives the lower and the upper bound.  (Power: the cut is beyond the
ladder's top, where the expanding symbol no longer changes.)

Floating point: every value is a sum of at most ``k`` nonnegative products
(``k`` the award classes, plus the draws), so along a path of at most
``D`` spins the relative error is below ``D gamma_{k + 12}`` (Higham,
*Accuracy and Stability of Numerical Algorithms*, s.3.1, nonnegative sums);
the bounds are widened by that factor, with ``D`` taken as ``nmax`` times
the award levels (a path has at most ``nmax`` spins: a wide margin, which
also covers the rounding of the cut's powers ``zsum^n``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["zero_win_probabilities", "JMAX"]

#: Awards followed on a zero-win path (beyond the Power ladder's top); the rest is bounded.
JMAX = 12
#: Most regular symbols for the regular feature's subset states (``2^S`` sets of expanding symbols);
#: beyond, :func:`zero_win_probabilities` raises ValueError and the caller falls back on its cruder bound.
MAX_SUBSET_SYMBOLS = 12

def zero_win_probabilities(game, feature: str, ws=None) -> dict:
    """``{n0: (lo, hi)}``: certified bounds of ``P(feature wins nothing)`` per start (spins).

    ``feature`` is a ``drawn_expanding`` feature (drawn symbols or ladder); the
    starts are its trigger's spin counts.  Kept in the workspace ``ws``
    (:class:`analytic.workspace.Workspace` of ``game``; None: a fresh one).
    Raises ``ValueError`` when the feature's cycle is too large for exact
    int64 counts (above 2^62), or for a Power feature without golden reels.
    """
    from analytic.workspace import workspace_for

    ws = workspace_for(game, ws)
    starts = sorted(set(game.features[feature].trigger.counts.values()))
    return ws.memo(("drawn_expanding.zero", feature, tuple(starts), JMAX), lambda: _zero_win(game, feature, starts, ws))


def _zero_win(game, feature: str, starts, ws) -> dict:
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats

    st = spin_stats(game, feature, ws)
    if st.cycle >= 2 ** 62:
        raise ValueError(f"zero_win_probabilities: the cycle of {feature!r} ({st.cycle}) exceeds 2^62")
    if st.variant == "ladder" and not st.ng:
        raise ValueError(f"zero_win_probabilities: Power feature {feature!r} without golden reels")
    return _power(st, starts) if st.variant == "ladder" else _regular(st, starts)


def _widen(lo: float, hi: float, depth: int, k: int, nsym: int) -> tuple[float, float]:
    from analytic.features.engines.drawn_expanding.draw_cap import _gamma

    rel = depth * _gamma(k + nsym + 3) + 1e-15
    return max(lo * (1 - rel), 0.0), min(hi * (1 + rel), 1.0)


def _regular(st, starts) -> dict:
    from analytic.features.engines.drawn_expanding.draw_cap import line_expansion_rows

    A, E, L, cnt = line_expansion_rows(st)
    ns = E.shape[1]
    if ns > MAX_SUBSET_SYMBOLS:  # the state is a subset of the regular symbols
        raise ValueError(f"zero_win_probabilities: {ns} regular symbols; the subset states are solved for at "
                         f"most {MAX_SUBSET_SYMBOLS}")
    full = (1 << ns) - 1
    zero = L == 0
    X = ((E[zero] > 0).astype(np.int64) << np.arange(ns, dtype=np.int64)).sum(axis=1)
    Az, cz = A[zero], cnt[zero]
    awards = sorted(set(int(a) for a in np.unique(Az)))
    if not awards:  # every spin wins something: no feature wins nothing
        return {n0: (0.0, 0.0) for n0 in starts}
    cyc = float(st.cycle)
    masks = np.arange(full + 1)
    Z = {}
    for a in awards:
        f = np.zeros(full + 1, dtype=np.int64)
        np.add.at(f, X[Az == a], cz[Az == a])  # exact counts per expanding set X (sums <= cycle < 2^62)
        for b in range(ns):  # zeta transform: g[T] = sum of f[X] over X inside T
            has = (masks >> b) & 1 == 1
            f[has] += f[masks[has] ^ (1 << b)]
        Z[a] = f[full ^ masks] / cyc  # Z_a(S): X disjoint from S
    zsum = sum(Z.values())
    amax = max(awards)
    nmax = max(starts) + (JMAX + 1) * amax
    drawn = masks[:, None] | (1 << np.arange(ns))[None, :]  # S | {d}

    def solve(upper: bool):
        nxt = None  # V at j + 1, shape (nmax + 1, masks)
        for j in range(JMAX + 1, -1, -1):
            V = np.ones((nmax + 1, full + 1))
            if j == JMAX + 1:  # cut: 0, or at most zsum^n
                V = zsum[None, :] ** np.arange(nmax + 1)[:, None] * (1 + 1e-12) if upper else np.zeros_like(V)
                V[0] = 1.0
                nxt = V
                continue
            D = nxt[:, drawn].mean(axis=2)  # mean over the draw d of V(S | {d}, j + 1, m)
            for n in range(1, nmax + 1):
                v = Z[0] * V[n - 1] if 0 in Z else np.zeros(full + 1)
                for a in awards:
                    if a:  # (beyond nmax, unreachable from the starts: the trivial bounds 0 and 1)
                        m = n - 1 + a
                        v = v + Z[a] * (D[m] if m <= nmax else float(upper))
                V[n] = v
            nxt = V
        return nxt

    lo, hi = solve(False), solve(True)
    single = 1 << np.arange(ns)
    depth = nmax * (JMAX + 2)
    return {n0: _widen(float(lo[n0][single].mean()), float(hi[n0][single].mean()), depth, len(awards), ns)
            for n0 in starts}


def _power(st, starts) -> dict:
    from analytic.features.engines.drawn_expanding.moments import _ladder

    lv = _ladder(st.reading, len(st.ordered), st.ceiling)
    nsym = len(st.ordered)
    NG = st.nmask
    cyc = float(st.cycle)
    classes = st.classes
    nc = len(classes)
    # Z[si][G, c]: probability of a zero-win spin of class c with symbol si expanding, golden reels G
    Z = {}
    for si, s in enumerate(st.ordered):
        rows, lw, cnt = st.walk_rows[s]
        L = np.asarray(lw)
        n = np.asarray(cnt, dtype=np.int64)
        P = st._pmask(rows)
        ci = st._class_index(rows)
        plain = rows[:, 1 + st.ng]
        gb = rows[:, 2 + st.ng: 2 + 2 * st.ng]
        epay = np.array([st._epay(s, k) for k in range(st.nreels + 1)])
        z = np.zeros((NG, nc))
        for G in range(NG):
            k = st._reels_showing(G, P, plain, gb)
            ok = (L == 0) & (epay[k] == 0)
            tot = np.zeros(nc, dtype=np.int64)
            np.add.at(tot, ci[ok], n[ok])
            z[G] = tot / cyc
        Z[si] = z
    award = np.array([a for a, _ in classes])
    pm = np.array([p for _, p in classes])
    awards = sorted(set(int(x) for x in award))
    amax = max(awards)
    top = len(lv) - 1
    PL = top + JMAX  # positions followed; beyond, a cut
    nmax = max(starts) + (PL + 1) * amax

    def sym(pl):
        return lv[min(pl, top)][0]

    # the cut's bound needs the top symbol's expansion pay positive for every count of reels at or
    # above its first positive one (golden reels only add reels)
    ep = [st._epay(st.ordered[sym(PL + 1)], k) > 0 for k in range(st.nreels + 1)]
    closed = all(b or not a for a, b in zip(ep, ep[1:]))

    # per symbol and award: M[G, G'] = probability of a zero-win spin with that award from golden
    # reels G to G' (its Power Books join G)
    M = {}
    for si, z in Z.items():
        for x in awards:
            m = np.zeros((NG, NG))
            for c in np.flatnonzero(award == x):
                np.add.at(m, (np.arange(NG), np.arange(NG) | pm[c]), z[:, c])
            M[(si, x)] = m

    def solve(upper: bool):
        nxt = None
        res = {}
        for pl in range(PL + 1, -1, -1):
            if pl == PL + 1:
                zs = Z[sym(pl)].sum(axis=1) if closed else np.ones(NG)  # per G
                nxt = (zs[:, None] ** np.arange(nmax + 1)[None, :] * (1 + 1e-12)) if upper \
                    else np.zeros((NG, nmax + 1))
                nxt[:, 0] = 1.0
                continue
            si = sym(pl)
            V = np.full((NG, nmax + 1), float(upper))  # beyond reach from the starts: 0 or 1
            V[:, 0] = 1.0
            for n in range(1, min(nmax, max(starts) + pl * amax) + 1):
                v = M[(si, 0)] @ V[:, n - 1] if 0 in awards else np.zeros(NG)
                for x in awards:
                    if x:
                        v += M[(si, x)] @ (nxt[:, n - 1 + x] if n - 1 + x <= nmax else np.full(NG, float(upper)))
                V[:, n] = v
            res[pl] = V
            nxt = V
        return res

    lo, hi = solve(False), solve(True)
    depth = nmax * (PL + 2)
    out = {}
    for n0 in starts:  # the feature starts at a random rank (1/nsym each), no golden reel
        l = sum(lo[r][0, n0] for r in range(nsym)) / nsym
        h = sum(hi[r][0, n0] for r in range(nsym)) / nsym
        out[n0] = _widen(float(l), float(h), depth, nc, nsym)
    return out
