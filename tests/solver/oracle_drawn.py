"""An independent oracle for tiny games of engine ``drawn_expanding`` (and the gamble).

Written for ``tests/solver/test_differential_drawn.py`` from the rule text of
``docs/model-format.md`` (engine ``drawn_expanding``, mechanics ``spins``,
``expanding_symbol``, ``ladder``, ``golden_reels``, ``[modes] gamble``,
``[cap]``, rule ``simultaneous_triggers``).  It reads the raw TOML data and
imports nothing from ``analytic``.

The readings enumerated
-----------------------
* A window's line win: each payline pays the highest ``paytable[c][run]``
  over the regular symbols ``c``, ``run`` the leftmost cells showing ``c``
  or a ``wild_scatter`` (the Books: they substitute for every regular
  symbol).  Under rule ``scatter_substitutes_for_expanding_in_line_wins =
  false`` a Book does not stand in, during a feature, for a symbol that
  currently expands.
* A free spin pays its line win plus, for every expanding symbol ``s`` with
  multiplier ``m``: ``m x paytable[s][n] x lines`` when ``n`` (the reels
  showing ``s`` in any row, golden reels included) is at least the
  smallest count of ``s`` paying above 0.  It awards ``N x (b - 1)`` spins
  for ``b >= 2`` trigger-symbol cells (Power Books left out of a ladder
  feature's count under ``golden_symbol_retriggers = false``).
* Drawn symbols (no ladder): one drawn uniformly over the regular symbols
  at the start, one more after each spin that awards spins; a symbol
  drawn ``c`` times has multiplier ``f(c)`` (``c``, or ``max(c - 1, 1)``
  under ``expanding_repeat_multiplier = "count_minus_one"``), at most the
  ceiling.
* A ladder: the start symbol drawn uniformly over the regular symbols;
  each spin that awards spins moves it one step along the ranks
  (ascending, or descending), at the end of the ladder the times the end
  was reached count as repeated draws.  A Power Book on a golden-eligible
  reel turns that reel golden for the rest of the feature (already in its
  own spin under ``golden_immediate = true``).
* A base spin starts the feature whose trigger is met (one with
  ``requires`` first); ``n`` trigger symbols start
  ``counts[largest listed count <= n]`` spins.  A mode's gamble ``always``:
  a trigger of ``feature`` plays ``into`` with the same ``n`` with
  probability ``win_probability``, else nothing.

The feature is enumerated spin by spin (every window, every draw, every
award) in Fractions, carrying (spins left, draw counts or ladder level and
golden reels, win so far).  Paths still running after ``depth`` spins are
kept with their win so far and spins left: every figure is then an
interval, its upper end adding what the rest can win at most (Wald:
``E[remaining spins | k left] = k / (1 - mu)``, ``Var = k s^2 / (1 - mu)^3``,
``mu, s^2`` the mean and variance of one spin's award, the awards i.i.d.;
each spin at most ``xmax``).  Without truncated paths every figure is exact.

Units: total-bet multiples (Fractions).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from fractions import Fraction

from oracle import Interval


def _award(counts: dict, n: int) -> int:
    ks = [k for k in counts if k <= n]
    return counts[max(ks)] if ks else 0


def _q(x) -> Fraction:
    return Fraction(x)  # ints, "p/q" and decimal strings


class OracleDrawn:
    def __init__(self, model: dict, max_states: int = 20000, depth: int = 40, work: int = 40_000):
        self.m = model
        g = model["game"]
        self.reels, self.rows = g["reels"], g["rows"]
        self.roles = {n: (v if isinstance(v, str) else v["role"]) for n, v in model["symbols"].items()}
        self.rank = {n: v.get("rank") for n, v in model["symbols"].items() if isinstance(v, dict)}
        regular = [n for n, r in self.roles.items() if r == "regular"]
        if all(self.rank.get(n) is not None for n in regular):
            regular.sort(key=lambda n: self.rank[n])
        self.regular = regular
        self.books = {n for n, r in self.roles.items() if r == "wild_scatter"}
        self.pay = {s: {int(k): int(v) for k, v in t.items()} for s, t in model["paytable"].items()}
        self.lines = [tuple(x) for x in model["paylines"]["lines"]]
        self.total_bet = Fraction(g.get("total_bet", len(self.lines)))
        self.strips = model["reels"]
        self.features = model.get("features", {})
        self.modes = model.get("modes") or {"base": {"cost": 1, "reels": "base"}}
        rules = model.get("rules", {})
        self.count_minus_one = rules.get("expanding_repeat_multiplier", "count") == "count_minus_one"
        self.literal = rules.get("scatter_substitutes_for_expanding_in_line_wins", True) is False
        self.golden_retriggers = rules.get("golden_symbol_retriggers", True)
        self.golden_immediate = rules.get("golden_immediate", True)
        cap = model.get("cap", {}).get("total_bet_multiple")
        self.cap = _q(cap) if cap is not None else None
        #: enumeration limits per feature start: spins deep, states per spin, transitions in all (beyond
        #: them the paths still playing are kept as intervals)
        self.max_states, self.depth, self.work = max_states, depth, work
        self._laws: dict = {}

    # ---------------------------------------------------------------- windows

    def windows(self, reel_set: str):
        strips = self.strips[reel_set]
        for stops in itertools.product(*(range(len(s)) for s in strips)):
            yield tuple(tuple(s[(i + r) % len(s)] for r in range(self.rows)) for s, i in zip(strips, stops))

    def line_win(self, w, nosub=frozenset()) -> int:
        """Line-bet units; ``nosub``: regular symbols the Books do not stand in for."""
        tot = 0
        for line in self.lines:
            cells = [w[i][r] for i, r in enumerate(line)]
            best = 0
            for c in self.regular:
                run = 0
                for x in cells:
                    if x == c or (x in self.books and c not in nosub):
                        run += 1
                    else:
                        break
                best = max(best, self.pay.get(c, {}).get(run, 0))
            tot += best
        return tot

    def expansion(self, s: str, n: int) -> int:
        """Line-bet units of ``s`` expanding on ``n`` reels, multiplier 1."""
        t = self.pay.get(s, {})
        paying = [k for k, v in t.items() if v > 0]
        if not paying or n < min(paying):
            return 0
        return t.get(min(n, max(t)), 0) * len(self.lines)

    def mult(self, c: int, ceiling: int) -> int:
        if c <= 0:
            return 0
        return min(max(c - 1, 1) if self.count_minus_one else c, ceiling)

    def counted(self, name: str) -> set:
        f = self.features[name]
        s = set(f["trigger"]["symbols"])
        if "ladder" in f and not self.golden_retriggers:
            s -= set(f["golden_reels"]["turned_by"])
        return s

    def spin_windows(self, name: str):
        """Per window of the feature's reel set: (award, golden mask shown, reels showing each regular
        symbol, the window) with the window count; the cycle."""
        if ("windows", name) in self._laws:
            return self._laws[("windows", name)]
        f = self.features[name]
        per = f["retrigger"]["per_symbol"]
        counted = self.counted(name)
        golden = [r - 1 for r in f.get("golden_reels", {}).get("reels", [])]
        turned = set(f.get("golden_reels", {}).get("turned_by", []))
        out: dict = defaultdict(int)
        cyc = 0
        for w in self.windows(f["reels"]):
            cyc += 1
            b = sum(1 for col in w for x in col if x in counted)
            a = per * (b - 1) if b >= 2 else 0
            P = frozenset(r for r in golden if any(x in turned for x in w[r]))
            shows = tuple(frozenset(i for i, col in enumerate(w) if s in col) for s in self.regular)
            out[(a, P, shows, w)] += 1
        self._laws[("windows", name)] = (out, cyc)
        return out, cyc

    def award_law(self, name: str):
        tab, cyc = self.spin_windows(name)
        law: dict = defaultdict(Fraction)
        for (a, *_), c in tab.items():
            law[a] += Fraction(c, cyc)
        mu = sum(a * p for a, p in law.items())
        var = sum(a * a * p for a, p in law.items()) - mu * mu
        return mu, var

    def xmax(self, name: str) -> int:
        """Most one spin of the feature can win (line-bet units): every line at its best pay, every
        regular symbol expanding at the ceiling on every reel."""
        ceil = self.features[name]["expanding_symbol"]["repeat_multiplier"]["ceiling"]
        best_line = max((max(t.values(), default=0) for t in self.pay.values()), default=0) * len(self.lines)
        return best_line + sum(ceil * max(self.pay.get(s, {0: 0}).values()) * len(self.lines) for s in self.regular)

    # ---------------------------------------------------------------- one spin per state

    def _outcomes(self, name: str, state):
        """[(win, award, new golden set, probability)] of one spin in ``state`` (merged)."""
        key = ("out", name, state[1:])
        if key in self._laws:
            return self._laws[key]
        f = self.features[name]
        ceil = f["expanding_symbol"]["repeat_multiplier"]["ceiling"]
        tab, cyc = self.spin_windows(name)
        lad = "ladder" in f
        out: dict = defaultdict(int)
        if lad:
            _, level, top, G = state
            seq = self._ladder(name)
            s = seq[level]
            m = 1 if level < len(seq) - 1 else self.mult(top, ceil)
            si = self.regular.index(s)
            nosub = frozenset({s}) if self.literal else frozenset()
        else:
            _, counts = state
            G = frozenset()
            exp = [(s, self.mult(c, ceil)) for s, c in zip(self.regular, counts) if c]
            nosub = frozenset(s for s, _ in exp) if self.literal else frozenset()
        lw_cache: dict = {}
        for (a, P, shows, w), c in tab.items():
            if w not in lw_cache:
                lw_cache[w] = self.line_win(w, nosub)
            x = lw_cache[w]
            if lad:
                gold = (G | P) if self.golden_immediate else G
                x += m * self.expansion(s, len(shows[si] | gold))
                G2 = G | P
            else:
                x += sum(mm * self.expansion(s, len(shows[self.regular.index(s)])) for s, mm in exp)
                G2 = G
            out[(x, a, G2)] += c
        res = [(x, a, G2, Fraction(c, cyc)) for (x, a, G2), c in out.items()]
        self._laws[key] = res
        return res

    def _ladder(self, name: str) -> list:
        order = self.features[name]["ladder"]["order"]
        return list(self.regular) if order == "rank_ascending" else list(self.regular)[::-1]

    def _start(self, name: str, spins: int) -> dict:
        """The start states (spins left, draw counts | ladder level, top count, golden reels) -> p."""
        S = len(self.regular)
        out: dict = defaultdict(Fraction)
        for i in range(S):
            if "ladder" in self.features[name]:
                out[(spins, i, 1 if i == S - 1 else 0, frozenset())] += Fraction(1, S)
            else:
                out[(spins, tuple(int(j == i) for j in range(S)))] += Fraction(1, S)
        return out

    def _step(self, name: str, state):
        """[(next state, win, probability)] of one spin in ``state`` (spins left > 0): the draw at an award
        (uniform over the regular symbols) or the ladder's step, the golden reels, the spins left."""
        key = ("step", name, state)
        if key in self._laws:
            return self._laws[key]
        f = self.features[name]
        sat = f["expanding_symbol"]["repeat_multiplier"]["ceiling"] + 1  # draw counts beyond: same multiplier
        S = len(self.regular)
        out: dict = defaultdict(Fraction)
        for x, a, G2, q in self._outcomes(name, state):
            k2 = state[0] - 1 + a
            if "ladder" in f:
                _, lev, tc, _ = state
                if a:
                    if lev < S - 1:
                        lev += 1
                        tc = 1 if lev == S - 1 else 0
                    else:
                        tc = min(tc + 1, sat)
                out[((k2, lev, tc, G2), x)] += q
            elif a:
                for i in range(S):
                    c2 = tuple(min(c + (j == i), sat) for j, c in enumerate(state[1]))
                    out[((k2, c2), x)] += q / S
            else:
                out[((k2, state[1]), x)] += q
        res = [(st, x, q) for (st, x), q in out.items()]
        self._laws[key] = res
        return res

    def _int_steps(self, name: str, state):
        """:meth:`_step` with integer weights over ``D = cycle x regular symbols`` (exact: every
        probability of one spin is a multiple of ``1 / D``); returns ``(D, [(state, win, weight)])``."""
        key = ("istep", name, state)
        if key not in self._laws:
            D = self.spin_windows(name)[1] * len(self.regular)
            out = []
            for st, x, q in self._step(name, state):
                w = q * D
                assert w.denominator == 1
                out.append((st, x, int(w)))
            self._laws[key] = (D, out)
        return self._laws[key]

    def feature_moments(self, name: str, spins: int):
        """``(ended, running)``: ``ended = [p, E[W; ended], E[W^2; ended]]`` and ``running`` {spins left:
        [p, sum p W, sum p W^2]} of the paths still playing after the last spin enumerated (line-bet units).

        Integer arithmetic: after ``t`` spins every path's probability is an integer over ``D^t``."""
        key = ("moments", name, spins)
        if key in self._laws:
            return self._laws[key]
        S = len(self.regular)
        D = self.spin_windows(name)[1] * S
        cur = {st: [int(p * S), 0, 0] for st, p in self._start(name, spins).items()}  # over S
        den = S
        ended = [Fraction(0)] * 3
        work = 0
        for t in range(self.depth):
            nxt: dict = {}
            done = [0, 0, 0]  # the paths ending now, over den
            for st, (p, s1, s2) in cur.items():
                if st[0] == 0:
                    done[0] += p
                    done[1] += s1
                    done[2] += s2
                    continue
                steps = self._int_steps(name, st)[1]
                work += len(steps)
                for st2, x, w in steps:
                    acc = nxt.get(st2)
                    if acc is None:
                        acc = nxt[st2] = [0, 0, 0]
                    acc[0] += w * p
                    acc[1] += w * (s1 + p * x)
                    acc[2] += w * (s2 + 2 * x * s1 + p * x * x)
            for i in range(3):
                ended[i] += Fraction(done[i], den)
            cur = nxt
            den *= D
            if (not cur or sum(v[0] for v in cur.values()) * 10**10 < den or len(cur) > self.max_states
                    or work > self.work):
                break
        running: dict = {}
        for st, v in cur.items():
            if st[0] == 0:
                for i in range(3):
                    ended[i] += Fraction(v[i], den)
            else:
                acc = running.setdefault(st[0], [Fraction(0)] * 3)
                for i in range(3):
                    acc[i] += Fraction(v[i], den)
        self._laws[key] = (ended, running)
        return ended, running

    def feature_law(self, name: str, spins: int, clip: Fraction):
        """``(ended, running)``: the law of ``min(W, clip)`` for the paths that ended or reached ``clip``
        ({win: p}) and the paths still playing below it after the last spin enumerated ({win: p})."""
        key = ("law", name, spins, clip)
        if key in self._laws:
            return self._laws[key]
        S = len(self.regular)
        D = self.spin_windows(name)[1] * S
        cur: dict = defaultdict(int)
        for st, p in self._start(name, spins).items():
            cur[(st, 0)] += int(p * S)
        den = S
        ended: dict = defaultdict(Fraction)
        top = math.ceil(clip)  # an integer win W reaches the clip when W >= ceil(clip)
        work = 0
        for t in range(self.depth):
            nxt: dict = defaultdict(int)
            done: dict = defaultdict(int)  # the paths ending (or reaching the clip) now, over den
            for (st, W), p in cur.items():
                if st[0] == 0 or W >= top:
                    done[min(W, top)] += p
                    continue
                steps = self._int_steps(name, st)[1]
                work += len(steps)
                for st2, x, w in steps:
                    nxt[(st2, W + x)] += p * w
            for W, v in done.items():
                ended[clip if W >= top else W] += Fraction(v, den)
            cur = nxt
            den *= D
            if not cur or len(cur) > self.max_states or work > self.work:
                break
        running: dict = defaultdict(Fraction)
        for (st, W), p in cur.items():
            if st[0] == 0 or W >= top:
                ended[min(W, clip)] += Fraction(p, den)
            else:
                running[W] += Fraction(p, den)
        self._laws[key] = (dict(ended), dict(running))
        return self._laws[key]

    # ---------------------------------------------------------------- the round

    def start_spins(self, name: str, n: int) -> int:
        return _award({int(k): int(v) for k, v in self.features[name]["trigger"]["counts"].items()}, n)

    def base_classes(self, mode: str, gamble: bool = True):
        """The base spin's outcomes ``[(B, plays, p)]``: base win ``B`` (line-bet units), the feature
        played ``[(feature, trigger count, 1)]`` or ``[]``, probability ``p``; the mode's gamble applied
        (``gamble``: else as triggered)."""
        md = self.modes[mode]
        if "buys" in md:
            bc = {int(k): int(v) for k, v in md["buy_counts"].items()}
            tot = sum(bc.values())
            return [(0, [(md["buys"], n, Fraction(1))], Fraction(w, tot)) for n, w in bc.items() if w]
        feats = sorted(self.features, key=lambda n: "requires" not in self.features[n]["trigger"])  # stable
        gam = md.get("gamble") if gamble else None
        out: dict = defaultdict(int)
        cyc = 0
        for w in self.windows(md["reels"]):
            cyc += 1
            B = self.line_win(w)
            started = None
            for name in feats:
                tr = self.features[name]["trigger"]
                syms = set(tr["symbols"])
                n = sum(1 for col in w for x in col if x in syms)
                counts = [int(k) for k in tr["counts"]]
                req = tr.get("requires")
                if n >= min(counts) and (not req or any(x in req for col in w for x in col if x in syms)):
                    started = (name, n)
                    break
            out[(B, started)] += 1
        res = []
        for (B, started), c in out.items():
            p = Fraction(c, cyc)
            if started is None:
                res.append((B, [], p))
            elif gam and gam["policy"] == "always" and started[0] == gam["feature"]:
                q = _q(gam["win_probability"])
                if q:
                    res.append((B, [(gam["into"], started[1], Fraction(1))], p * q))
                if q != 1:
                    res.append((B, [], p * (1 - q)))  # the lost gamble: the base win alone
            else:
                res.append((B, [(started[0], started[1], Fraction(1))], p))
        return [(B, plays, p) for B, plays, p in res if p]

    def figures(self, mode: str) -> dict:
        """Intervals (total-bet multiples): mean, second moment, hit frequency, capped mean, P(R >= cap);
        exact Fractions: cost, base line RTP, feature frequencies and expected spins."""
        md = self.modes[mode]
        cost = _q(md["cost"])
        tb = self.total_bet
        C = self.cap * tb if self.cap is not None else None  # line-bet units
        m1 = [Fraction(0), Fraction(0)]
        m2 = [Fraction(0), Fraction(0)]
        hit = [Fraction(0), Fraction(0)]
        cm = [Fraction(0), Fraction(0)]
        pc = [Fraction(0), Fraction(0)]
        base_line = Fraction(0)
        freq: dict = defaultdict(Fraction)
        spins: dict = defaultdict(Fraction)
        share = {}
        for B, plays, p in self.base_classes(mode):
            base_line += p * B
            if not plays:
                for acc, v in ((m1, B), (m2, B * B), (hit, int(B > 0))):
                    acc[0] += p * v
                    acc[1] += p * v
                if C is not None:
                    for acc, v in ((cm, min(B, C)), (pc, int(B >= C))):
                        acc[0] += p * v
                        acc[1] += p * v
                continue
            (name, n, _), = plays
            k0 = self.start_spins(name, n)
            freq[name] += p
            mu, var = self.award_law(name)
            xm = self.xmax(name)
            spins[name] += p * Fraction(k0) / (1 - mu)
            (e0, e1, e2), running = self.feature_moments(name, k0)
            lo1, lo2 = e1, B * B * e0 + 2 * B * e1 + e2
            hi1, hi2 = lo1, lo2
            for k, (r0, r1, r2) in running.items():
                er = xm * Fraction(k) / (1 - mu)  # E[rest | k spins left] at most
                er2 = xm * xm * (Fraction(k) * var / (1 - mu) ** 3 + (Fraction(k) / (1 - mu)) ** 2)
                lo1 += r1
                hi1 += r1 + r0 * er
                lo2 += B * B * r0 + 2 * B * r1 + r2
                hi2 += B * B * r0 + 2 * B * r1 + r2 + 2 * er * (B * r0 + r1) + er2 * r0
            clip = max(C, Fraction(1)) if C is not None else Fraction(1)
            ended, run = self.feature_law(name, k0, clip)
            hlo = hhi = clo = chi = plo = phi = Fraction(0)
            for W, q in ended.items():
                R = B + W
                hlo += q * (R > 0)
                if C is not None:
                    clo += q * min(R, C)
                    plo += q * (R >= C)
            hhi, chi, phi = hlo, clo, plo
            for W, q in run.items():  # still playing below the clip: the rest wins at most er in the mean
                R = B + W
                hlo += q * (R > 0)
                hhi += q
                if C is not None:
                    clo += q * min(R, C)
                    chi += q * C  # crude: the rest may reach the cap
                    plo += q * (R >= C)
                    phi += q
            share.setdefault(name, [Fraction(0), Fraction(0)])
            share[name][0] += p * lo1
            share[name][1] += p * hi1
            m1[0] += p * (B + lo1)
            m1[1] += p * (B + hi1)
            m2[0] += p * lo2
            m2[1] += p * hi2
            hit[0] += p * hlo
            hit[1] += p * hhi
            cm[0] += p * clo
            cm[1] += p * chi
            pc[0] += p * plo
            pc[1] += p * phi

        def iv(pair, scale=Fraction(1)):
            lo, hi = pair[0] * scale, pair[1] * scale
            return Interval.of(lo) if lo == hi else Interval(float(lo), float(hi))

        u = 1 / tb
        return {"cost": cost, "mean": iv(m1, u), "m2": iv(m2, u * u), "hit": iv(hit),
                "rtp": iv(m1, u / cost), "base_line_rtp": base_line * u / cost,
                "capped_mean": iv(cm, u) if C is not None else None,
                "capped_rtp": iv(cm, u / cost) if C is not None else None,
                "p_reach_cap": iv(pc) if C is not None else None,
                "frequency": dict(freq), "expected_spins": {k: v / freq[k] for k, v in spins.items()},
                "share": {k: iv(v, u / cost) for k, v in share.items()}}

    def bought_capped_law(self, mode: str):
        """``(law, running)`` of a buy mode's capped round win ``min(W, C)`` (total-bet multiples):
        ``law`` {win: p} of the paths that ended or reached the cap, ``running`` the mass still playing
        below it after the last spin enumerated."""
        md = self.modes[mode]
        C = self.cap * self.total_bet
        bc = {int(k): int(v) for k, v in md["buy_counts"].items()}
        tot = sum(bc.values())
        law: dict = defaultdict(Fraction)
        run = Fraction(0)
        for n, w in bc.items():
            if not w:
                continue
            ended, running = self.feature_law(md["buys"], self.start_spins(md["buys"], n), C)
            for W, q in ended.items():
                law[W / self.total_bet] += Fraction(w, tot) * q
            run += Fraction(w, tot) * sum(running.values(), Fraction(0))
        return dict(law), run

    def tail(self, mode: str, xs) -> list:
        """``[Interval]`` of ``P(R >= x)`` for thresholds ``0 < x <= cap`` (total-bet multiples), and the
        round wins below the cap the enumeration saw (total-bet multiples, for thresholds at atoms)."""
        C = self.cap * self.total_bet
        tb = self.total_bet
        lo = [Fraction(0)] * len(xs)
        hi = [Fraction(0)] * len(xs)
        seen = set()
        for B, plays, p in self.base_classes(mode):
            if not plays:
                outs, run = {B: Fraction(1)}, {}
            else:
                (name, n, _), = plays
                ended, run = self.feature_law(name, self.start_spins(name, n), C)
                outs = {B + W: q for W, q in ended.items()}
            for R, q in outs.items():
                if R < C:
                    seen.add(R / tb)
                for i, x in enumerate(xs):
                    if R >= x * tb:
                        lo[i] += p * q
                        hi[i] += p * q
            for W, q in run.items():  # still playing at W: reaches x or not
                for i, x in enumerate(xs):
                    if B + W >= x * tb:
                        lo[i] += p * q
                    hi[i] += p * q
        return [Interval.of(a) if a == b else Interval(float(a), float(b)) for a, b in zip(lo, hi)], seen
