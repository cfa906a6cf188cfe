"""Engine ``drawn_expanding``: certified bounds of ``P(R >= x)`` for the round win ``R`` at any threshold.

Units: wins and thresholds in total-bet multiples; probabilities.

Where the round has no law (regular Free Spins drawing their expanding
symbols: their win's law is not computed), the bounds the round solver
already builds for the win cap ``C`` are parametric in the threshold, and
are evaluated here at every ``x <= C`` instead of ``C``.  The round win is
``R = min(B + W, C)`` (``W = 0`` on a spin without a feature), so for ``x <=
C`` ``P(R >= x) = P(B + W >= x)``, and for ``x > C`` it is 0 exactly.  Per
base outcome (feature ``f``, books ``n``, base win ``B``; a buy: the bought
feature with ``B = 0``):

* ``B >= x``: the round reaches ``x`` whatever the feature pays (``W >= 0``):
  probability 1, summed exactly (Fractions), as are the spins without a
  feature (``1{B >= x}``).
* Regular Free Spins (``W`` the feature's win), upper bound the smaller of

  - the comonotone mixture's Markov tail
    (:meth:`~analytic.features.engines.drawn_expanding.draw_cap.RegularCapBound.x_tail_vec`
    at ``c = (x - B) * total bet``, rounded down to a float: the bound falls
    with ``c``): its grid, overflow, charges and MGF parts hold for every
    ``c`` from 0 to the grid's end ``(N - 1) u >= C`` (every step of the
    chain only widens the win in convex order, whatever the threshold);
  - the moment bounds of :func:`~analytic.features.engines.drawn_expanding.engine._tail_bounds`
    at ``x`` (Cantelli for ``x > B + E[W]``, Markov on the second moment
    otherwise), and ``1 - P(W = 0)`` (its certified lower end,
    :mod:`~analytic.features.engines.drawn_expanding.zero_win`: ``B < x`` needs ``W > 0``);

  lower bound the larger of the tracked symbols' law
  (:meth:`~analytic.features.engines.drawn_expanding.draw_cap_low.RegularCapLower.x_tail_vec`:
  ``W >= X_low`` path by path, the masses lower bounds; ``c`` rounded up to
  a float: the bound falls with ``c``) and the first spins' law
  (:meth:`RoundTail._first_spins`: the ``n0`` spins every feature plays,
  with the first drawn symbol's expansion at x1 and the line wins; sharp far
  below the cap, where the other drops the line wins and rounds pays down
  to ``C / 600``; at precision 'quick', which solves no lower bound of
  the cut, the first spins' law alone, 0 above :data:`FIRST_SPINS_LIMIT`
  total bets).  At precisions 'standard' and 'certify', up to
  :data:`~analytic.features.engines.drawn_expanding.draw_law.REACH` total bets
  (or the cap) both ends are also taken from the forward law over the first
  :data:`DRAWS_FOLLOWED` draws
  (:mod:`~analytic.features.engines.drawn_expanding.draw_law`: exact over those
  draws, a path awarded spins after them stopped with its win so far; the
  larger lower end and the smaller upper end are kept).  Under the literal reading the
  upper bound is the bounding game's whose books stand in for every symbol,
  the lower the one's whose books stand in for none
  (:mod:`~analytic.features.engines.drawn_expanding.line_sets`).  A bound
  whose solve refused (too many states) is replaced by the moment bound
  (upper) or 0 (lower).
* Power Free Spins: the capped law on the cap's exact grid
  (:meth:`~analytic.features.engines.drawn_expanding.ladder_cap.PowerCapLaw.tail_bounds`):
  ``[P, P + lost]``.
* The gamble (a bet mode's ``gamble``, policy "always"): a regular trigger
  with ``n`` books is Power Free Spins with ``n`` books with probability
  ``q``, else the base win alone (below ``x`` here): ``q`` times the Power
  bounds, as in the cap's cut (``engine._cap_excess``).

With :attr:`RoundTail.snap` set (the sessions' bracketing laws,
:mod:`analytic.solver.session_bounds`), each mixture threshold ``c`` is
first moved to the geometric grid ``(1 + snap)^k``, down for the upper bound
and up for the lower (both fall with ``c``): still certified, a little
wider, and the mixtures are evaluated at a few hundred points instead of one
per outcome and threshold.

The round's bounds are the probability-weighted sums of the outcomes'
(float sums of nonnegative terms: the lower end lowered and the upper end
raised by ``1e-9``), plus the exact part; then, as ``P(R >= x)`` does not
increase with ``x``, each lower end is raised to the largest lower end at a
higher threshold and each upper end lowered to the smallest at a lower one.

How wide (the shipped model, 'standard'): narrow near the cap (the cap's own
interval) and at the smallest thresholds; up to 1,000x total bet the gap is
at most the probability of a third retrigger times that of a regular
trigger (widest at 500x, 2.4e-4 on the base mode, where the stopped paths'
wins so far fall short); from 1,000x to the cap the mixture's Markov tail
and the tracked symbols' law remain; the gap is never more than the
probability of a regular trigger (``docs/derivations.md``, "Exceedance ladder
without a law"; the measured gaps in README).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


__all__ = ["RoundTail"]

#: Relative margin of the float sums over the outcomes (as the cap's cut, ``engine._cap_excess``).
SUM_MARGIN = 1e-9
#: The first spins' lower bound (:meth:`RoundTail._first_spins`) covers wins up to this many total
#: bets (or the cap); 0 turns it off.
FIRST_SPINS_LIMIT = 500
#: Draws the forward law follows exactly (:mod:`~analytic.features.engines.drawn_expanding.draw_law`,
#: precisions with a lower bound only: 'standard', 'certify'); 0 turns it off.
DRAWS_FOLLOWED = 3


def _float_down(q: Fraction) -> float:
    f = float(q)
    return math.nextafter(f, -math.inf) if Fraction(f) > q else f


def _float_up(q: Fraction) -> float:
    f = float(q)
    return math.nextafter(f, math.inf) if Fraction(f) < q else f


class RoundTail:
    """Certified bounds of ``P(R >= x)`` of one bet mode's round, at thresholds given later.

    Built by the round solver
    (:func:`~analytic.features.engines.drawn_expanding.engine.solve_drawn_expanding_round`,
    ``extra["round_tail"]``) from the bound objects it already holds in its
    workspace; :meth:`bounds` evaluates them (see the module docstring).

    Parameters
    ----------
    game : Game
    res : RoundResult
        The mode's plain round (its base outcomes, or a buy's counts).
    cap : Fraction
        The win cap ``C``, total-bet multiples.
    gamble_q : Fraction or None
        The gamble's win probability under policy "always", else None.
    ws : Workspace
        The solve's workspace (the cap bounds are kept there).
    """

    def __init__(self, game, res, cap: Fraction, gamble_q: Fraction | None, ws):
        self.game, self.ws, self.cap, self.gamble_q = game, ws, Fraction(cap), gamble_q
        #: Relative step of the thresholds handed to the mixture tails (None: each exactly). With a step
        #: ``r``, each ``c = (x - B) * total bet`` is moved to a point of the geometric grid ``(1 + r)^k``:
        #: down for the upper bound, up for the lower one (both fall with ``c``, so both stay certified,
        #: a little wider); the mixture's tails are then evaluated at a few hundred points instead of one
        #: per outcome and threshold (the sessions' bracketing laws, ``analytic.solver.session_bounds``).
        self.snap: float | None = None
        self.mode = res.mode
        m = game.modes[res.mode]
        out: dict = {}
        if res.base is None:
            tot = sum(m.buy_counts.values())
            for n, w in m.buy_counts.items():
                if w:
                    out[(m.buys, n, Fraction(0))] = out.get((m.buys, n, Fraction(0)), Fraction(0)) + Fraction(w, tot)
        else:
            b = res.base
            for (feat, n, _lt, win), cnt in b.joint.items():
                key = (feat, n if feat is not None else 0, Fraction(win, b.units))
                out[key] = out.get(key, Fraction(0)) + Fraction(cnt, b.cycle)
        #: ``(feature or None, books, base win) -> probability`` (exact)
        self.outcomes = out
        from analytic.features.engines.drawn_expanding.draw_cap import WITH_LOWER

        first = "the first spins (the first drawn symbol at x1 and the line wins)"
        low = (f"the larger of the lower-bound laws of the two most valuable symbols' expansions (draw_cap_low) "
               f"and of {first}" if ws.precision in WITH_LOWER else
               f"the lower-bound law of {first} (precision '{ws.precision}': no draw_cap_low; 0 above "
               f"{FIRST_SPINS_LIMIT} total bets)")
        #: Whether the forward law over the first draws narrows the regular feature's bounds (the
        #: precisions with a lower bound, 'standard' and 'certify').
        self.forward = ws.precision in WITH_LOWER and DRAWS_FOLLOWED > 0
        law = ""
        if self.forward:
            from analytic.features.engines.drawn_expanding.draw_law import REACH

            law = (f", and up to {REACH} total bets (or the cap) the forward law over the first "
                   f"{DRAWS_FOLLOWED} draws (draw_law: exact per draw counts and spins left, a path awarded spins "
                   "after them stopped with its win so far; lower-bound masses)")
        self.method = (
            "P(R >= x) per base outcome (feature, books, base win B), x at most the cap: 1 where B >= x; regular "
            f"Free Spins between {low} and the smaller of the comonotone mixture's Markov tail (draw_cap) and the "
            f"moment bounds (Cantelli / Markov){law}; Power Free Spins from the capped law on the cap's grid "
            "(ladder_cap); summed over the outcomes, then made monotone in x; 0 above the cap")

    def __repr__(self) -> str:
        return f"RoundTail(mode {self.mode!r}, cap {self.cap})"

    __str__ = __repr__

    # ---------------------------------------------------------------- per feature

    def _regular(self, f: str, n: int, Bs: list, xs: list) -> tuple[np.ndarray, np.ndarray]:
        """``(lo, hi)`` arrays ``[len(Bs), len(xs)]`` of ``P(B + W >= x)`` for regular Free Spins (``B < x``)."""
        from analytic.features.engines.drawn_expanding import engine as E

        game, ws = self.game, self.ws
        mom = E._feature_upper_moments(game, f, n, ws)
        m1_lo = float(E.solve_feature(game, f, n, ws=ws).details["mean_interval"][0])
        nb, nx = len(Bs), len(xs)
        # B + W >= x > B needs W > 0: at most 1 - P(W = 0) (its certified lower end, zero_win)
        pz = E.solve_feature(game, f, n, ws=ws).p_zero_bounds
        hi = np.full((nb, nx), 1.0 if pz is None else min(1.0, (1 - float(pz[0])) * (1 + 1e-12)))
        lo = np.zeros((nb, nx))
        for i, B in enumerate(Bs):
            for j, x in enumerate(xs):
                if B < x:
                    hi[i, j] = min(1.0, E._tail_bounds(float(B), mom, float(x), m1_lo)[1])
        up = low = None
        if E.REGULAR_CAP_LAW and self.cap is not None:
            n0 = game.features[f].trigger.award(n)
            up, low = E._regular_cap_bounds(game, f, game.features[f].trigger.counts.values(), ws)[n0]
        if up is not None:
            tb = Fraction(up.tb)
            if up.lines_in:
                cs = np.array([[_float_down((x - B) * tb) for x in xs] for B in Bs])
                pos = cs > 0
                if pos.any():
                    vals, inv = np.unique(self._snapped(cs[pos], down=True), return_inverse=True)
                    t = up.x_tail_vec(vals)[inv.ravel()] * (1 + 1e-9)
                    h = hi[pos]
                    hi[pos] = np.minimum(h, np.minimum(t, 1.0))
            else:  # (the older split of the line wins: one threshold at a time)
                for i, B in enumerate(Bs):
                    for j, x in enumerate(xs):
                        if B < x:
                            hi[i, j] = min(hi[i, j], up.p_reach(float(B), float(x)))
        if low is not None:
            tb = Fraction(low.tb)
            cs = np.array([[_float_up((x - B) * tb) for x in xs] for B in Bs])
            pos = cs > 0
            if pos.any():
                vals, inv = np.unique(self._snapped(cs[pos], down=False), return_inverse=True)
                lo[pos] = np.maximum(low.x_tail_vec(vals)[inv.ravel()], 0.0)
        if self.forward:  # the forward law over the first draws
            laws = self._draw_laws(f, game.features[f].trigger.award(n))
            tb = Fraction(game.total_bet)  # (line bets)
            pairs = [(i, j) for i, B in enumerate(Bs) for j, x in enumerate(xs) if B < x]
            if pairs:
                cs = [(xs[j] - Bs[i]) * tb for i, j in pairs]
                a, _ = laws[0].tail_bounds(cs)
                _, b = laws[1].tail_bounds(cs)
                for (i, j), lo_ij, hi_ij in zip(pairs, a, b):
                    lo[i, j] = max(lo[i, j], lo_ij)
                    hi[i, j] = min(hi[i, j], hi_ij)
        if FIRST_SPINS_LIMIT > 0:  # the first spins' own law: sharper far below the cap
            u, tail = self._first_spins(f, game.features[f].trigger.award(n))
            tb = Fraction(game.total_bet)  # (line bets)
            for i, B in enumerate(Bs):
                for j, x in enumerate(xs):
                    if B < x:
                        k = math.ceil((x - B) * tb / u)  # W >= k u needed, decided exactly
                        if k < len(tail):
                            lo[i, j] = max(lo[i, j], float(tail[k]))
        return lo, np.maximum(hi, lo)

    def _draw_laws(self, f: str, n0: int):
        """``(lower side, upper side)``
        :class:`~analytic.features.engines.drawn_expanding.draw_law.DrawLaw` of the start ``n0``:
        under the literal reading those of the bounding games whose books stand in for no symbol and
        for every symbol (``W_lower <= W <= W_upper`` path by path), else the feature's own twice.
        Every start of both sides is solved at the first call, in the workspace's worker processes
        (the same laws on any number of them), and kept in the sides' workspaces."""
        from analytic.features.engines.drawn_expanding.draw_law import draw_laws
        from analytic.features.engines.drawn_expanding.line_sets import bounding_workspace, literal_draws
        from analytic.features.engines.drawn_expanding.spin_stats import spin_stats

        literal = literal_draws(self.game, f)
        spaces = [bounding_workspace(self.ws, f, side) if literal else self.ws for side in ("lower", "upper")]
        key = ("drawn_expanding.draw_law", f, n0, DRAWS_FOLLOWED)
        if any(ws.get(key) is None for ws in spaces):
            cap = None if self.cap is None else self.cap * Fraction(self.game.total_bet)
            kw = {"draws": DRAWS_FOLLOWED, "cap_line_bets": cap}
            starts = sorted({self.game.features[f].trigger.award(b) for b in self.game.features[f].trigger.counts})
            todo = [(ws, s) for ws in dict.fromkeys(spaces) for s in starts
                    if ws.get(("drawn_expanding.draw_law", f, s, DRAWS_FOLLOWED)) is None]
            laws = draw_laws([(spin_stats(ws.game, f, ws), s, kw) for ws, s in todo], workers=self.ws.workers)
            for (ws, s), law in zip(todo, laws):
                ws.put(("drawn_expanding.draw_law", f, s, DRAWS_FOLLOWED), law)
        return [ws.get(key) for ws in spaces]

    def _snapped(self, cs: np.ndarray, down: bool) -> np.ndarray:
        """``cs`` (positive floats) moved to the geometric grid of :attr:`snap`: down (``<= cs``) or up
        (``>= cs``); unchanged when ``snap`` is None."""
        if self.snap is None:
            return cs
        r = math.log1p(self.snap)
        k = np.floor(np.log(cs) / r) if down else np.ceil(np.log(cs) / r)
        out = np.exp(k * r)
        if down:  # (the exponential's rounding: one more step where it overshot)
            out = np.where(out > cs, np.exp((k - 1) * r), out)
            return np.minimum(out, cs)
        out = np.where(out < cs, np.exp((k + 1) * r), out)
        return np.maximum(out, cs)

    def _first_spins(self, f: str, n0: int):
        """Lower bounds of ``P(W >= k u)``, ``k = 0..M``, from the first ``n0`` spins alone: ``(u, tail)``.

        A regular feature started with ``n0`` spins plays at least those
        spins, on i.i.d. windows, and the first drawn symbol ``s`` (uniform
        over the ``S`` regular symbols, independent of the windows) expands
        in each of them at a multiplier of at least 1 (its count only
        grows); every other pay is ``>= 0``, and the line win is at least
        that of the game whose books stand in for no symbol (the literal
        reading's lower bounding game; the game itself otherwise).  So
        ``W >= sum_{t <= n0} (L(w_t) + E_s(w_t))`` path by path, whose law is
        the mixture over ``s`` of ``n0``-fold convolutions of the spin law
        (:func:`~analytic.features.engines.drawn_expanding.draw_cap.line_expansion_rows`).
        Values are rounded down to the grid ``u`` (line bets) and lumped at
        ``M u`` beyond (``M u`` up to :data:`FIRST_SPINS_LIMIT` total bets or the
        cap); every convolution (direct, nonnegative terms) and sum is lowered
        by its ``gamma`` (Higham s.3.1), so the masses are lower bounds.
        """
        key = ("bop.round_tail.first_spins", f, n0)
        hit = self.ws.get(key)
        if hit is not None:
            return hit
        from analytic.features.engines.drawn_expanding.draw_cap import _gamma, line_expansion_rows
        from analytic.features.engines.drawn_expanding.line_sets import bounding_workspace, literal_draws
        from analytic.features.engines.drawn_expanding.spin_stats import spin_stats

        ws = bounding_workspace(self.ws, f, "lower") if literal_draws(self.game, f) else self.ws
        st = spin_stats(ws.game, f, ws)
        _A, E, L, cnt = line_expansion_rows(st)
        tb = int(st.tb)
        g = int(np.gcd.reduce(np.concatenate([L, E.ravel(), [tb]])))
        u = max(g, (tb // 2) // g * g)
        top = min(Fraction(FIRST_SPINS_LIMIT), self.cap) * tb
        M = math.ceil(top / u)
        p = cnt / float(st.cycle) * (1 - 4 * 2.0 ** -53)  # count / cycle rounded: lowered
        acc = np.zeros(M + 1)
        for j in range(E.shape[1]):
            k = np.minimum((L + E[:, j]) // u, M)
            one = np.bincount(k, weights=p, minlength=M + 1) * (1 - _gamma(len(p) + 1))
            law = one
            for _ in range(n0 - 1):
                full = np.convolve(law, one)
                law = full[:M + 1].copy()
                law[M] += float(full[M + 1:].sum())
                law *= 1 - _gamma(2 * (M + 1) + 2)
            acc += law
        acc *= (1 - _gamma(E.shape[1] + 2)) / E.shape[1]
        tail = np.cumsum(acc[::-1])[::-1] * (1 - _gamma(M + 2))  # tail[k] <= P(W >= k u)
        out = (u, np.minimum(tail, 1.0))
        self.ws.put(key, out)
        return out

    def _power(self, f: str, n: int, Bs: list, xs: list) -> tuple[np.ndarray, np.ndarray]:
        """``(lo, hi)`` of ``P(B + F >= x)`` for Power Free Spins, from the capped law."""
        from analytic.features.engines.drawn_expanding.ladder_cap import power_cap_law

        law = power_cap_law(self.game, f, ws=self.ws)
        n0 = self.game.features[f].trigger.award(n)
        lo, hi = zip(*(law.tail_bounds(n0, B, xs) for B in Bs))
        return np.array(lo), np.array(hi)

    # ---------------------------------------------------------------- the round

    def bounds(self, xs) -> list[tuple[Fraction, Fraction]]:
        """``[(low, high)]`` of ``P(R >= x)`` for each ``x`` of ``xs`` (total-bet multiples), as Fractions.

        Raises
        ------
        ValueError
            A threshold is not positive.
        """
        from threadpoolctl import threadpool_limits

        # one BLAS thread: the tails' matrix products then sum in one order on every machine, so the
        # par sheets' figures do not depend on the thread count
        with threadpool_limits(limits=1, user_api="blas"):
            return self._bounds(xs)

    def _bounds(self, xs) -> list[tuple[Fraction, Fraction]]:
        from analytic.features.engines.drawn_expanding.engine import _regular_and_power

        xs = [Fraction(x) for x in xs]
        if any(x <= 0 for x in xs):
            raise ValueError("RoundTail.bounds: thresholds must be positive")
        inside = sorted({x for x in xs if x <= self.cap})
        game = self.game
        reg, pw = _regular_and_power(game)
        exact = {x: Fraction(0) for x in inside}
        lo_f = {x: 0.0 for x in inside}
        hi_f = {x: 0.0 for x in inside}
        groups: dict = {}
        for (f, n, B), p in self.outcomes.items():
            for x in inside:
                if B >= x:
                    exact[x] += p
            if f is not None:
                groups.setdefault((f, n), []).append((B, p))
        q = self.gamble_q
        for (f, n), items in sorted(groups.items(), key=lambda t: (t[0][0], t[0][1])):
            Bs = [B for B, _ in items]
            ps = np.array([float(p) for _, p in items])
            scale = 1.0
            if q is not None and f == reg:  # the gamble: Power Free Spins with probability q, else B alone
                f, scale = pw, float(q)
            if game.features[f].params.get("ladder"):
                lo, hi = self._power(f, n, Bs, inside)
            else:
                lo, hi = self._regular(f, n, Bs, inside)
            below = np.array([[B < x for x in inside] for B in Bs])
            lo = np.where(below, lo, 0.0) * scale
            hi = np.where(below, hi, 0.0) * scale
            for j, x in enumerate(inside):  # (fsum: correctly rounded, the same on every machine)
                lo_f[x] += math.fsum(ps * lo[:, j])
                hi_f[x] += math.fsum(ps * hi[:, j])
        out = {}
        for x in inside:
            low = exact[x] + Fraction(lo_f[x] * (1 - SUM_MARGIN))
            high = exact[x] + Fraction(hi_f[x] * (1 + SUM_MARGIN))
            out[x] = (max(low, Fraction(0)), min(high, Fraction(1)))
        # P(R >= x) does not increase with x
        best = Fraction(0)
        for x in reversed(inside):
            best = max(best, out[x][0])
            out[x] = (best, out[x][1])
        best = Fraction(1)
        for x in inside:
            best = min(best, out[x][1])
            out[x] = (out[x][0], best)
        return [out[x] if x <= self.cap else (Fraction(0), Fraction(0)) for x in xs]
