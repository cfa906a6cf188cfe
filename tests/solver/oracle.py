"""An independent oracle for the round figures of small games.

Written for the differential harness (``tests/solver/test_differential.py``)
from the rule text of ``docs/model-format.md`` alone.  It reads the model as
**raw TOML data** (the dict a model file parses to, before the loader), so it
shares nothing with the loader, the engine, the solver or the simulator:
defaults (``total_bet`` = number of paylines, the default ``base`` mode,
"substitutes for every regular symbol", rule defaults) are applied here from
the format's tables.

What it does
------------
* Every stop combination of a reel set is visited (``itertools.product``) and
  the window evaluated cell by cell: line wins (rule ``line_wild_pay``),
  scatter pays, the feature trigger, line triggers.
* A free spin is evaluated the same way in each feature state (the drawn
  expanding symbol), giving the joint law of its win ``X`` and the spins it
  awards ``A``.
* Without retriggers a feature's law is the ``n``-fold convolution of the
  spin law (exact fractions); a pick bonus is the compound sum of its prizes.
* With retriggers the moments come from the branching identity (each spin
  left starts an independent copy of the one-spin-left feature ``G``):
  ``E[G] = E[X] / (1 - E[A])`` and
  ``E[G^2] (1 - E[A]) = E[X^2] + 2 E[G] E[XA] + E[G]^2 E[A(A - 1)]``;
  ``n`` spins give ``n E[G^2] + n (n - 1) E[G]^2``.  The law is a
  brute-force recursion over (spins left, win so far) for ``depth`` spins in
  floats; whatever is still playing after ``depth`` spins is kept as missing
  mass, so every figure taken from it is an interval.
* The round law is the mixture over the base spin's outcomes of the base win
  plus the started feature's law (plus ``k`` independent line-triggered
  bonuses).  Capped figures: ``E[min(R, C)]``, ``E[min(R, C)^2]``,
  ``P(R >= C)``.

Units: total-bet multiples (Fractions), as the solver reports.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

WILD_ROLES = ("wild", "wild_scatter")


def frac(x) -> Fraction:
    return Fraction(x) if not isinstance(x, str) else Fraction(x)


def decimal(x) -> Fraction:
    """A currency amount: an integer, a ``"p/q"`` / decimal string, or a float read as the decimal
    written (docs: ``0.1`` means exactly 1/10)."""
    return Fraction(repr(x)) if isinstance(x, float) else Fraction(x)


@dataclass
class Interval:
    """A certified enclosure ``[lo, hi]`` (floats), or an exact value."""

    lo: float
    hi: float
    exact: Fraction | None = None

    @classmethod
    def of(cls, v: Fraction) -> "Interval":
        return cls(float(v), float(v), v)


@dataclass
class Law:
    """A win law: exact ``points`` (Fractions), or a truncated float law.

    ``points`` maps win (total-bet multiples, Fraction) -> probability.  For a
    truncated law the probabilities are floats and ``missing`` is the mass of
    plays still running at the recursion's depth (their win is unknown).
    """

    points: dict
    missing: float = 0.0
    coarse: bool = False  # wins at or above the cap (or any positive win, uncapped) merged into one point

    @property
    def exact(self) -> bool:
        return self.missing == 0.0 and all(isinstance(p, Fraction) for p in self.points.values())


def convolve(a: dict, b: dict) -> dict:
    out: dict = defaultdict(int)
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] += p * q
    return dict(out)


def power(law: dict, n: int) -> dict:
    out = {Fraction(0): Fraction(1)}
    for _ in range(n):
        out = convolve(out, law)
    return out


class Oracle:
    """The rules of one raw model (the parsed TOML dict)."""

    def __init__(self, model: dict):
        self.m = model
        g = model["game"]
        self.reels = g["reels"]
        self.rows = g["rows"]
        self.roles = {}
        self.mult = {}
        self.subs = {}
        for name, v in model["symbols"].items():
            if isinstance(v, str):
                v = {"role": v}
            self.roles[name] = v["role"]
            self.mult[name] = v.get("multiplier", 1)
        regular = {n for n, r in self.roles.items() if r == "regular"}
        for name, v in model["symbols"].items():
            if self.roles[name] in WILD_ROLES:
                v = v if isinstance(v, dict) else {}
                if "substitutes" in v:
                    self.subs[name] = set(v["substitutes"])
                else:
                    self.subs[name] = regular - set(v.get("except", ()))
        self.paytable = {s: {int(k): int(p) for k, p in row.items()} for s, row in model["paytable"].items()}
        self.lines = [tuple(l) for l in model["paylines"]["lines"]]
        self.total_bet = g.get("total_bet", len(self.lines))
        sc = model.get("scatter")
        self.scatter_syms = set(sc["symbols"]) if sc else set()
        self.scatter_pays = {int(k): frac(v) for k, v in sc["pays"].items()} if sc else {}
        self.reel_sets = {}
        for name, v in model["reels"].items():
            self.reel_sets[name] = v["strips"] if isinstance(v, dict) else v
        self.features = model.get("features", {})
        self.line_triggers = {s: {int(k): f for k, f in t.items()} for s, t in model.get("line_triggers", {}).items()}
        self.modes = model.get("modes") or {"base": {"cost": 1, "reels": "base"}}
        rules = model.get("rules", {})
        self.line_wild_pay = rules.get("line_wild_pay", "highest")
        self.expanding_count = rules.get("expanding_count", "reels")
        self.expanding_line_win = rules.get("expanding_line_win", "paid")
        cap = model.get("cap")
        self.cap = frac(cap["total_bet_multiple"]) if cap and "total_bet_multiple" in cap else None
        # a currency cap at each declared stake s: min(currency / s, total_bet_multiple) total bets
        # (docs: "A currency cap depends on the stake"); a float is the decimal written
        self.stake_caps = []
        if cap and "currency" in cap:
            cur = decimal(cap["currency"])
            for s in cap.get("stakes", []):
                c = cur / decimal(s)
                self.stake_caps.append((decimal(s), c if self.cap is None else min(c, self.cap)))
        caps = ([self.cap] if self.cap is not None else []) + [c for _, c in self.stake_caps]
        self.law_cap = max(caps) if caps else None  # the truncated laws are exact below it
        self._line_cache: dict = {}
        self._laws: dict = {}

    # ------------------------------------------------------------------ one window

    def windows(self, reel_set: str):
        """Every window of a reel set: ``(window[reel][row])``, each once per stop combination."""
        per_reel = []
        for strip in self.reel_sets[reel_set]:
            L = len(strip)
            per_reel.append([tuple(strip[(s + r) % L] for r in range(self.rows)) for s in range(L)])
        return itertools.product(*per_reel)

    def supports(self, cell: str, cand: str) -> bool:
        if cell == cand:
            return True
        return self.roles[cell] in WILD_ROLES and self.roles[cand] == "regular" and cand in self.subs[cell]

    def run_pay(self, cells, cand) -> int:
        pays = self.paytable.get(cand)
        if not pays:
            return 0
        run, mult = 0, 1
        for c in cells:
            if not self.supports(c, cand):
                break
            run += 1
            mult *= self.mult[c]
        return pays.get(run, 0) * mult

    def line_pay(self, cells: tuple) -> int:
        """Pay of one payline's cells, line-bet units (docs: paytable, rule line_wild_pay)."""
        hit = self._line_cache.get(cells)
        if hit is not None:
            return hit
        cands = [s for s, r in self.roles.items() if r in ("regular", "wild", "wild_scatter")]
        if self.line_wild_pay == "first_non_wild":
            first = next((c for c in cells if self.roles[c] not in WILD_ROLES), None)
            # the first non-wild symbol fixes the line's symbol; the wilds still pay their own
            # runs (the rule's text in the loader's rule table; the line pays the higher)
            best = max((self.run_pay(cells, s) for s in cands if self.roles[s] in WILD_ROLES), default=0)
            if first is not None:
                best = max(best, self.run_pay(cells, first))
        else:
            best = max((self.run_pay(cells, s) for s in cands), default=0)
        self._line_cache[cells] = best
        return best

    def line_cells(self, window, line):
        return tuple(window[r][row] for r, row in enumerate(line))

    def count(self, window, symbols) -> int:
        return sum(1 for col in window for c in col if c in symbols)

    def scatter_win(self, window) -> Fraction:
        if not self.scatter_syms:
            return Fraction(0)
        return self.scatter_pays.get(self.count(window, self.scatter_syms), Fraction(0))

    @staticmethod
    def award(counts: dict, n: int) -> int:
        """Award of ``n`` symbols: the largest listed count not above ``n`` (0 below the smallest)."""
        table = {int(k): int(v) for k, v in counts.items()}
        keys = [k for k in table if k <= n]
        return table[max(keys)] if keys else 0

    def triggered(self, window):
        """``(feature, count)`` started by this base window, or None (one triggered feature per game)."""
        for name, f in self.features.items():
            t = f.get("trigger")
            if not t:
                continue
            n = self.count(window, set(t["symbols"]))
            if n < min(int(k) for k in t["counts"]):
                continue
            req = t.get("requires")
            if req and self.count(window, set(req)) == 0:
                continue
            return name, n
        return None

    def line_trigger_count(self, window) -> tuple:
        """Line-triggered features of a window: ``((feature, plays), ...)``."""
        out: Counter = Counter()
        for line in self.lines:
            cells = self.line_cells(window, line)
            for b, counts in self.line_triggers.items():
                run = 0
                for c in cells:
                    if c != b:
                        break
                    run += 1
                hits = [k for k in counts if k <= run]
                if hits:
                    out[counts[max(hits)]] += 1
        return tuple(sorted(out.items()))

    # ------------------------------------------------------------------ base spin

    def base_table(self, reel_set: str) -> tuple[Counter, int]:
        """``(line win units, scatter multiple, trigger, line triggers) -> stop combinations``."""
        key = ("base", reel_set)
        if key not in self._laws:
            out: Counter = Counter()
            cyc = 0
            for w in self.windows(reel_set):
                cyc += 1
                lw = sum(self.line_pay(self.line_cells(w, l)) for l in self.lines)
                out[(lw, self.scatter_win(w), self.triggered(w), self.line_trigger_count(w))] += 1
            self._laws[key] = (out, cyc)
        return self._laws[key]

    # ------------------------------------------------------------------ features

    def free_spin_table(self, name: str, expanding: str | None) -> tuple[Counter, int]:
        """One free spin in a state: ``(win in total-bet multiples, spins awarded) -> combinations``."""
        key = ("free", name, expanding)
        if key in self._laws:
            return self._laws[key]
        f = self.features[name]
        mult = f.get("multiplier", 1)
        scat = f.get("scatter_pays", True)
        rt = f.get("retrigger")
        rsyms = set(rt["symbols"]) if rt else set()
        epays = self.paytable.get(expanding, {}) if expanding else {}
        kmin = min((k for k, v in epays.items() if v > 0), default=None)
        out: Counter = Counter()
        cyc = 0
        for w in self.windows(f["reels"]):
            cyc += 1
            lw = 0
            for line in self.lines:
                cells = self.line_cells(w, line)
                if expanding and self.expanding_line_win == "wild_led_only" and cells[0] == expanding:
                    continue  # left to the expansion
                lw += self.line_pay(cells)
            win = Fraction(lw, self.total_bet)
            if scat:
                win += self.scatter_win(w)
            if expanding:
                if self.expanding_count == "reels":
                    k = sum(1 for col in w if expanding in col)
                else:
                    k = self.count(w, {expanding})
                if kmin is not None and k >= kmin:
                    win += Fraction(epays.get(min(k, max(epays)), 0) * len(self.lines), self.total_bet)
            a = self.award(rt["counts"], self.count(w, rsyms)) if rt else 0
            out[(win * mult, a)] += 1
        self._laws[key] = (out, cyc)
        return out, cyc

    def states(self, name: str):
        e = self.features[name].get("expanding_symbol")
        if not e:
            return [(Fraction(1), None)]
        ws = e.get("weights", [1] * len(e["choose_from"]))
        tot = sum(ws)
        return [(Fraction(w, tot), s) for w, s in zip(ws, e["choose_from"])]

    def feature_moments(self, name: str, count: int) -> tuple[Fraction, Fraction, Fraction]:
        """Exact ``(E[F], E[F^2], E[spins])`` of a feature started with ``count`` symbols."""
        f = self.features[name]
        if f["kind"] == "pick_bonus":
            law = self.pick_law(name)
            return (sum(x * p for x, p in law.items()), sum(x * x * p for x, p in law.items()), Fraction(0))
        n = self.award(f["trigger"]["counts"], count)
        m1 = m2 = sp = Fraction(0)
        for w, s in self.states(name):
            tab, cyc = self.free_spin_table(name, s)
            ex = sum(x * c for (x, a), c in tab.items()) / cyc
            ex2 = sum(x * x * c for (x, a), c in tab.items()) / cyc
            ea = sum(a * c for (x, a), c in tab.items()) / Fraction(cyc)
            exa = sum(x * a * c for (x, a), c in tab.items()) / cyc
            eaa = sum(a * (a - 1) * c for (x, a), c in tab.items()) / Fraction(cyc)
            assert ea < 1, "the harness draws features that end"
            g1 = ex / (1 - ea)
            g2 = (ex2 + 2 * g1 * exa + g1 * g1 * eaa) / (1 - ea)
            m1 += w * n * g1
            m2 += w * (n * g2 + n * (n - 1) * g1 * g1)
            sp += w * n / (1 - ea)
        return m1, m2, sp

    def pick_law(self, name: str) -> dict:
        key = ("pick", name)
        if key in self._laws:
            return self._laws[key]
        f = self.features[name]
        prizes = f["prizes"]
        tot = sum(w for _, w in prizes)
        prize = defaultdict(Fraction)
        for v, w in prizes:
            prize[Fraction(v, self.total_bet)] += Fraction(w, tot)

        def mixture(weights: dict, law: dict) -> dict:
            ws = {int(k): v for k, v in weights.items()}
            t = sum(ws.values())
            out: dict = defaultdict(Fraction)
            for k, w in ws.items():
                if w:
                    for x, p in power(law, k).items():
                        out[x] += Fraction(w, t) * p
            return dict(out)

        pick = mixture(f.get("prizes_per_pick", {1: 1}), dict(prize))
        law = mixture(f["picks"], pick)
        self._laws[key] = law
        return law

    def has_retrigger(self, name: str) -> bool:
        f = self.features[name]
        return f["kind"] == "free_spins" and bool(f.get("retrigger"))

    def fixed_count_law(self, name: str, n: int) -> dict:
        """The law of the win of ``n`` free spins of feature ``name`` without retriggers: per drawn
        state (weight ``w``) one spin's law raised to the ``n``-th convolution power, mixed."""
        pts: dict = defaultdict(Fraction)
        for w, s in self.states(name):
            tab, cyc = self.free_spin_table(name, s)
            one: dict = defaultdict(Fraction)
            for (x, a), c in tab.items():
                one[x] += Fraction(c, cyc)
            for x, p in power(dict(one), n).items():
                pts[x] += w * p
        return dict(pts)

    def feature_law(self, name: str, count: int, depth: int = 80) -> Law:
        key = ("law", name, count)
        if key in self._laws:
            return self._laws[key]
        f = self.features[name]
        if f["kind"] == "pick_bonus":
            law = Law(self.pick_law(name))
        else:
            n = self.award(f["trigger"]["counts"], count)
            if not self.has_retrigger(name):
                law = Law(self.fixed_count_law(name, n))
            else:
                law = self._truncated_law(name, n, depth)
        self._laws[key] = law
        return law

    def _truncated_law(self, name: str, n: int, depth: int, max_left: int = 48) -> Law:
        """Brute-force recursion over (spins left, win so far), floats.

        The win so far is kept exactly (integer units) below the cap ``C``
        (without a cap: only ``0`` or positive), and collapsed to one
        bucket ``>= C`` above; that is all the capped figures and the hit
        frequency read.  Plays still running after ``depth`` spins, or with
        more than ``max_left`` spins left, are missing mass.
        """
        xs = set()
        for _, s in self.states(name):
            xs.update(x for x, _ in self.free_spin_table(name, s)[0])
        den = 1
        for x in xs:
            den = math.lcm(den, x.denominator)
        unit = Fraction(1, den)
        K = math.ceil(self.law_cap / unit) if self.law_cap is not None else 1  # exact for acc < K units
        pts: dict = defaultdict(float)
        missing = 0.0
        for w, s in self.states(name):
            tab, cyc = self.free_spin_table(name, s)
            outs = [(int(x / unit), a, c / cyc) for (x, a), c in tab.items()]
            P = np.zeros((max_left + 1, K + 1))  # column K: acc >= K units
            P[min(n, max_left), 0] = 1.0 if n <= max_left else 0.0
            lost = 0.0 if n <= max_left else 1.0
            done = np.zeros(K + 1)
            if n == 0:
                done[0] = 1.0
                P[:] = 0
            for _ in range(depth):
                src = P[1:]  # rows: spins left 1 .. max_left
                if not src.any():
                    break
                new = np.zeros_like(P)
                for xu, a, q in outs:
                    sh = np.zeros_like(src)
                    if xu >= K:
                        sh[:, K] = src.sum(axis=1)
                    else:
                        sh[:, xu:K] = src[:, : K - xu]
                        sh[:, K] = src[:, K - xu:].sum(axis=1)
                    # spins left after this spin: (1 .. max_left) - 1 + a
                    lo = a  # row of left = 1
                    keep = min(max_left, max_left + 1 - lo)
                    new[lo: lo + keep] += q * sh[:keep]
                    lost += q * float(sh[keep:].sum())
                done += new[0]
                new[0] = 0
                P = new
            lost += float(P.sum())
            top = max(self.law_cap, K * unit) if self.law_cap is not None else unit  # stands for every win >= K units
            for k in range(K + 1):
                if done[k]:
                    pts[k * unit if k < K else top] += float(w) * done[k]
            missing += float(w) * lost
        return Law(dict(pts), missing + 1e-12, coarse=True)  # 1e-12: the floats' own rounding, generously

    # ------------------------------------------------------------------ rounds

    def round_parts(self, mode: str):
        """``[(probability, base win, [(feature, count, plays)])]`` of a mode's rounds."""
        md = self.modes[mode]
        if "buys" in md:
            bc = md.get("buy_counts") or {"0": 1}
            tot = sum(bc.values())
            return [(Fraction(w, tot), Fraction(0), [(md["buys"], int(k), 1)]) for k, w in bc.items() if w]
        tab, cyc = self.base_table(md["reels"])
        out = []
        for (lw, sw, trig, lts), c in tab.items():
            parts = []
            if trig is not None:
                parts.append((trig[0], trig[1], 1))
            parts.extend((f, 0, k) for f, k in lts)
            out.append((Fraction(c, cyc), Fraction(lw, self.total_bet) + sw, parts))
        return out

    def round_sums(self, mode: str) -> tuple:
        """``(E[R], E[R^2], E[base win], P(feature), E[feature win; feature], E[spins; feature])`` of a
        mode's round by total expectation over :meth:`round_parts` (the last three per feature,
        unnormalised; a feature played ``k`` times in one round counts ``k`` i.i.d. plays)."""
        s1 = s2 = base = Fraction(0)
        freq: dict = defaultdict(Fraction)
        share: dict = defaultdict(Fraction)
        spins: dict = defaultdict(Fraction)
        for p, b, parts in self.round_parts(mode):
            mu = m2 = Fraction(0)
            base += p * b
            for f, n, k in parts:
                fm, f2, fs = self.feature_moments(f, n)
                pm, p2 = k * fm, k * f2 + k * (k - 1) * fm * fm
                m2 += p2 + 2 * mu * pm
                mu += pm
                freq[f] += p
                share[f] += p * pm
                spins[f] += p * k * fs
            s1 += p * (b + mu)
            s2 += p * (b * b + 2 * b * mu + m2)
        return s1, s2, base, freq, share, spins

    def figures(self, mode: str) -> dict:
        """The exact uncapped figures of a mode (moments by total expectation)."""
        cost = frac(self.modes[mode].get("cost", 1))
        line = scat = Fraction(0)
        md = self.modes[mode]
        if "buys" not in md:
            tab, cyc = self.base_table(md["reels"])
            for (lw, sw, trig, lts), c in tab.items():
                line += Fraction(lw * c, self.total_bet * cyc)
                scat += sw * c / cyc
        s1, s2, _, freq, share, spins = self.round_sums(mode)
        return {"cost": cost, "mean": s1, "m2": s2, "rtp": s1 / cost, "line_rtp": line / cost,
                "scatter_rtp": scat / cost, "frequency": dict(freq), "share": {f: v / cost for f, v in share.items()},
                "expected_spins": {f: spins[f] / freq[f] for f in freq}}

    def round_law(self, mode: str) -> Law:
        """The law of the round win (exact unless a feature retriggers)."""
        pts: dict = defaultdict(int)
        missing = 0.0
        coarse = False
        for p, b, parts in self.round_parts(mode):
            law: dict = {Fraction(0): Fraction(1)}
            for f, n, k in parts:
                fl = self.feature_law(f, n)
                for _ in range(k):
                    law = convolve(law, fl.points)
                missing += float(p) * k * fl.missing
                coarse |= fl.coarse
            for x, q in law.items():
                pts[b + x] += p * q
        if missing:
            return Law({x: float(q) for x, q in pts.items()}, missing, coarse)
        return Law(dict(pts))

    def law_figures(self, mode: str, cap: Fraction | None) -> dict:
        """Hit frequency and (with a cap) E[min(R,C)], E[min(R,C)^2], P(R >= C) as Intervals."""
        law = self.round_law(mode)
        out = {}
        if law.exact:
            p0 = law.points.get(Fraction(0), Fraction(0))
            out["hit"] = Interval.of(1 - p0)
            if cap is not None:
                z = Fraction(0)
                out["capped_mean"] = Interval.of(sum((min(x, cap) * p for x, p in law.points.items()), z))
                out["capped_m2"] = Interval.of(sum((min(x, cap) ** 2 * p for x, p in law.points.items()), z))
                out["p_reach_cap"] = Interval.of(sum((p for x, p in law.points.items() if x >= cap), z))
            out["law"] = law
            return out
        m = law.missing
        hit = sum(p for x, p in law.points.items() if x > 0)
        out["hit"] = Interval(hit, hit + m)
        if cap is not None:
            c = float(cap)
            e1 = sum(min(float(x), c) * p for x, p in law.points.items())
            e2 = sum(min(float(x), c) ** 2 * p for x, p in law.points.items())
            r = sum(p for x, p in law.points.items() if x >= cap)
            out["capped_mean"] = Interval(e1, e1 + m * c)
            out["capped_m2"] = Interval(e2, e2 + m * c * c)
            out["p_reach_cap"] = Interval(r, r + m)
        out["law"] = law
        return out
