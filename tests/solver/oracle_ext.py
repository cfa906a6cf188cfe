"""The independent oracle of ``oracle.py`` extended to the pay keys and scopes added later.

Written for ``tests/solver/test_differential_keys.py`` from the rule text of
``docs/model-format.md`` alone, reading the raw TOML data (it imports nothing
from ``analytic``).  On top of :class:`oracle.Oracle` it evaluates:

* ``[paylines] ways = true`` (per symbol, ``m_k`` = matching cells of reel
  ``k`` with each wild cell weighted by its multiplier; a run of ``n``
  leading reels pays ``paytable[s][n] x m_1 ... m_n``) and
  ``pays_both_ways`` (ways and paylines: the right-to-left run, paid unless
  the left-to-right run covers every reel);
* ``[groups]`` (a run of member cells, or wilds substituting for a regular
  member), ``[combos]`` (the first ``len(cells)`` cells; ``multiplied = false``
  paid as written), ``[anywhere_pays]``
  (exactly ``count`` cells anywhere on the line, never multiplied; wilds
  counted unless rule ``anywhere_pay_wilds = "not_counted"``), blanks;
* the line rules ``line_wild_multipliers`` (multiply / add the multipliers
  above 1 / the highest once), ``all_wild_win_multiplied`` and
  ``line_win_chosen_on`` (``final_pay`` / ``base_pay``, ties to the higher
  multiplied pay), one win per line;
* bet modes with ``coins`` / ``coin_pays`` (every line and scatter pay times
  ``coins`` unless the pay is listed) and fixed ``wild_reels``;
* ``symbols.X.expands`` (a reel whose window shows the wild shows it on every
  row for the paylines, the topmost when two differ; scatters, triggers and
  retriggers read the landed symbols, line triggers the expanded lines) in
  base spins and in free spins without an ``expanding_symbol``;
* pick bonuses with a ``board`` (picks without replacement until a collect;
  win = sum of prizes x product of multipliers);
* mechanic ``reel_wild_multipliers`` (in each free spin every listed reel
  draws a multiplier by weight, independently; the wild's cells on that reel
  carry it in place of the wild's own: one spin's law is the mixture over the
  vectors drawn, each weighted by the product of its weights);
* ``[cap] spin`` (each spin's win, base and free), ``[cap] feature`` (each
  feature play's win) before the round cap, and ``max_spins`` (spins left
  after a spin ``min(left - 1 + award, max_spins - played)``, exact laws by a
  recursion over (played, left)).

Units: total-bet multiples (Fractions).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from fractions import Fraction
from functools import lru_cache

from oracle import WILD_ROLES, Law, Oracle, frac


def cap_law(law: dict, c) -> dict:
    if c is None:
        return law
    out: dict = defaultdict(Fraction)
    for x, p in law.items():
        out[min(x, c)] += p
    return dict(out)


class OracleExt(Oracle):
    def __init__(self, model: dict):
        pl = model["paylines"]
        if pl.get("ways"):
            model = {**model, "paylines": {**pl, "lines": []}}
        super().__init__(model)
        self.ways = bool(pl.get("ways", False))
        self.both = bool(pl.get("pays_both_ways", False))
        if self.ways:
            self.lines = []
            self.total_bet = model["game"]["total_bet"]
        self.groups = {g: set(m) for g, m in model.get("groups", {}).items()}
        self.group_pays = {g: self.paytable.pop(g) for g in list(self.paytable) if g in self.groups}
        self.combos = {n: (list(c["cells"]), int(c["pay"]), c.get("multiplied", True))
                       for n, c in model.get("combos", {}).items()}
        self.anywhere = {n: {int(k): int(v) for k, v in t.items()} for n, t in model.get("anywhere_pays", {}).items()}
        rules = model.get("rules", {})
        self.wild_mult_rule = rules.get("line_wild_multipliers", "multiply")
        self.all_wild_mult = rules.get("all_wild_win_multiplied", True)
        self.chosen_on = rules.get("line_win_chosen_on", "final_pay")
        self.anywhere_wilds = rules.get("anywhere_pay_wilds", "counted") == "counted"
        self.expands = [n for n, v in model["symbols"].items() if isinstance(v, dict) and v.get("expands")]
        cap = model.get("cap") or {}
        self.spin_cap = frac(cap["spin"]) if "spin" in cap else None
        self.feature_cap = frac(cap["feature"]) if "feature" in cap else None
        self.classic = bool(self.groups and self.group_pays) or bool(self.combos) or bool(self.anywhere) or any(
            k in rules for k in ("line_wild_multipliers", "all_wild_win_multiplied", "line_win_chosen_on"))
        self._coins = None  # (coins, coin_pays) of the mode being evaluated
        self.virtual: dict = {}  # virtual wild -> the wild (mechanic reel_wild_multipliers)

    # ------------------------------------------------------------------ pays

    def pay(self, path: str, one_coin: int) -> int:
        if self._coins is None:
            return one_coin
        coins, overrides = self._coins
        return int(overrides[path]) if path in overrides else coins * one_coin

    def is_wild(self, c) -> bool:
        return self.roles[c] in WILD_ROLES

    def stands_for(self, cell, entry) -> bool:
        """A line cell counts as ``entry`` (a symbol or a group) in a run or a combo."""
        if entry in self.groups:
            mem = self.groups[entry]
            return cell in mem or (self.is_wild(cell) and any(
                self.roles[m] == "regular" and m in self.subs[cell] for m in mem))
        return self.supports(cell, entry)

    def multiplier(self, counted) -> int:
        ms = [self.mult[c] for c in counted if self.is_wild(c)]
        if not self.all_wild_mult and counted and all(self.is_wild(c) for c in counted):
            return 1
        if self.wild_mult_rule == "add":
            return sum(m for m in ms if m > 1) or 1
        if self.wild_mult_rule == "highest_once":
            return max(ms, default=1)
        return math.prod(ms)

    def candidates(self, cells):
        """``(base pay, multiplier)`` of every way the line can pay (line-bet units)."""
        out = []
        for s, table in self.paytable.items():
            run = 0
            for c in cells:
                if not self.supports(c, s):
                    break
                run += 1
            if run in table:
                out.append((self.pay(f"paytable.{s}.{run}", table[run]), self.multiplier(cells[:run])))
        for g, table in self.group_pays.items():
            run = 0
            for c in cells:
                if not self.stands_for(c, g):
                    break
                run += 1
            if run in table:
                out.append((self.pay(f"paytable.{g}.{run}", table[run]), self.multiplier(cells[:run])))
        for n, (entries, p, multiplied) in self.combos.items():
            if all(self.stands_for(c, e) for c, e in zip(cells, entries)):
                # multiplied = false: paid as written, never multiplied by the wilds among its cells
                m = self.multiplier(cells[:len(entries)]) if multiplied else 1
                out.append((self.pay(f"combos.{n}", p), m))
        for n, table in self.anywhere.items():
            mem = self.groups.get(n, {n})
            k = 0
            for c in cells:
                if c in mem or (self.anywhere_wilds and self.is_wild(c) and any(
                        self.roles[m] == "regular" and m in self.subs[c] for m in mem)):
                    k += 1
            if k in table:
                out.append((self.pay(f"anywhere_pays.{n}.{k}", table[k]), 1))
        return out

    def line_pay(self, cells: tuple) -> int:
        key = (cells, self._coins and (self._coins[0], tuple(sorted(self._coins[1].items()))))
        hit = self._line_cache.get(key)
        if hit is not None:
            return hit
        if self.line_wild_pay == "first_non_wild":
            # the base oracle's reading (classic pays and line rules are refused with it), with coin pays
            def run_pay(s):
                table = self.paytable.get(s, {})
                run = 0
                for c in cells:
                    if not self.supports(c, s):
                        break
                    run += 1
                return self.pay(f"paytable.{s}.{run}", table[run]) * self.multiplier(cells[:run]) if run in table else 0
            best = max((run_pay(s) for s in self.paytable if self.is_wild(s)), default=0)
            first = next((c for c in cells if not self.is_wild(c)), None)
            if first is not None:
                best = max(best, run_pay(first))
        else:
            cands = [(b, m) for b, m in self.candidates(cells) if b > 0]
            if not cands:
                best = 0
            elif self.chosen_on == "base_pay":
                b, m = max(cands, key=lambda t: (t[0], t[0] * t[1]))
                best = b * m
            else:
                best = max(b * m for b, m in cands)
        if self.both:
            best += self.right_to_left(cells)
        self._line_cache[key] = best
        return best

    def right_to_left(self, cells) -> int:
        best = 0
        for s, table in self.paytable.items():
            r = 0
            for c in reversed(cells):
                if not self.supports(c, s):
                    break
                r += 1
            if 0 < r < len(cells) and r in table:
                best = max(best, table[r] * math.prod(self.mult[c] for c in cells[len(cells) - r:]))
        return best

    def ways_win(self, window) -> int:
        """Ways win of a window, pay units."""
        tot = 0
        for s, table in self.paytable.items():
            m = [sum(1 if c == s else (self.mult[c] if self.is_wild(c) and s in self.subs[c]
                                       and self.roles[s] == "regular" else 0) for c in col) for col in window]
            n = 0
            while n < len(m) and m[n] > 0:
                n += 1
            tot += table.get(n, 0) * math.prod(m[:n])
            if self.both and n < len(m):
                r = 0
                while r < len(m) and m[-1 - r] > 0:
                    r += 1
                tot += table.get(r, 0) * math.prod(m[len(m) - r:])
        return tot

    # ------------------------------------------------------------------ windows

    def expand(self, window):
        if not self.expands:
            return window
        out = []
        for col in window:
            w = next((c for c in col if c in self.expands), None)
            out.append((w,) * len(col) if w else col)
        return tuple(out)

    def spin_eval(self, landed, expand: bool = True):
        """``(line / ways win in pay units, scatter multiple, line-read window)`` of a landed window."""
        lw_window = self.expand(landed) if expand else landed
        if self.ways:
            lw = self.ways_win(lw_window)
        else:
            lw = sum(self.line_pay(self.line_cells(lw_window, l)) for l in self.lines)
        sw = self.scatter_win(landed)
        if self._coins is not None:
            sw *= self._coins[0]
        return lw, sw, lw_window

    def mode_windows(self, mode: str):
        md = self.modes[mode]
        wr = md.get("wild_reels")
        for w in self.windows(md["reels"]):
            if wr:
                w = tuple((wr["wild"],) * self.rows if i + 1 in wr["reels"] else col for i, col in enumerate(w))
            yield w

    def base_table(self, mode: str):
        key = ("base", mode)
        if key not in self._laws:
            md = self.modes[mode]
            self._coins = (md["coins"], dict(md.get("coin_pays", {}))) if "coins" in md else None
            out: Counter = Counter()
            cyc = 0
            for landed in self.mode_windows(mode):
                cyc += 1
                lw, sw, lines_w = self.spin_eval(landed)
                win = Fraction(lw, self.total_bet) + sw
                if self.spin_cap is not None:
                    win = min(win, self.spin_cap)
                lts = () if self.ways else self.line_trigger_count(lines_w)
                out[(win, self.triggered(landed), lts)] += 1
            self._coins = None
            self._laws[key] = (out, cyc)
        return self._laws[key]

    def free_spin_table(self, name: str, expanding: str | None):
        key = ("free", name, expanding)
        if key in self._laws:
            return self._laws[key]
        f = self.features[name]
        if expanding is not None:
            # the base oracle's evaluation of an expanding symbol (refused with ways, expanding wilds, classic pays)
            out, cyc = Oracle.free_spin_table(self, name, expanding)
        else:
            mult = f.get("multiplier", 1)
            scat = f.get("scatter_pays", True)
            rt = f.get("retrigger")
            rsyms = set(rt["symbols"]) if rt else set()
            vectors, total = self.reel_wild_vectors(name)
            out = Counter()
            cyc = 0
            for w in self.windows(f["reels"]):
                cyc += 1
                a = self.award(rt["counts"], self.count(w, rsyms)) if rt else 0
                for swap, weight in vectors:
                    ww = tuple(tuple(swap[i].get(c, c) for c in col) for i, col in enumerate(w)) if swap else w
                    lw, sw, _ = self.spin_eval(ww)
                    win = Fraction(lw, self.total_bet) + (sw if scat else 0)
                    out[(win * mult, a)] += weight
            cyc *= total
        if self.spin_cap is not None:
            capped: Counter = Counter()
            for (x, a), c in out.items():
                capped[(min(x, self.spin_cap), a)] += c
            out = capped
        self._laws[key] = (out, cyc)
        return out, cyc

    def reel_wild_vectors(self, name: str):
        """``([(per-reel cell renaming, weight)], total weight)`` of mechanic ``reel_wild_multipliers``.

        Each vector of multipliers drawn for the listed reels (weight: the product of their
        weights) renames the wild's cells on those reels to a virtual wild carrying the drawn
        multiplier in place of its own (same role and substitutes; it counts as the wild for the
        wild's own pays, :meth:`supports`); without the mechanic one empty renaming of weight 1.
        """
        rwm = self.features[name].get("reel_wild_multipliers")
        if not rwm:
            return [(None, 1)], 1
        wild = rwm["wild"]
        tabs = [(int(r) - 1, {int(m): int(x) for m, x in t.items()}) for r, t in rwm["reels"].items()]
        vectors = []
        for combo in itertools.product(*[[(m, x) for m, x in t.items() if x] for _, t in tabs]):
            swap: list = [{} for _ in range(self.reels)]
            for (r, _), (m, _) in zip(tabs, combo):
                v = f"{wild}\x00x{m}"
                self.roles[v], self.mult[v], self.subs[v] = self.roles[wild], m, self.subs[wild]
                self.virtual[v] = wild
                swap[r] = {wild: v}
            vectors.append((swap, math.prod(x for _, x in combo)))
        return vectors, math.prod(sum(t.values()) for _, t in tabs)

    def supports(self, cell: str, cand: str) -> bool:
        return super().supports(self.virtual.get(cell, cell), cand) or super().supports(cell, cand)

    # ------------------------------------------------------------------ features

    def board_law(self, name: str) -> dict:
        b = self.features[name]["board"]
        prizes = defaultdict(int)
        for v, k in b["prizes"]:
            prizes[int(v)] += int(k)
        pv = sorted(prizes)
        mults = defaultdict(int)
        for v, k in b.get("multipliers", []):
            mults[int(v)] += int(k)
        mv = sorted(mults)

        @lru_cache(maxsize=None)
        def rest(pc: tuple, mc: tuple, collect: int) -> tuple:
            """Law of (prizes still to pick, product of multipliers still to pick)."""
            total = collect + sum(pc) + sum(mc)
            out: dict = defaultdict(Fraction)
            out[(0, 1)] += Fraction(collect, total)
            for i, n in enumerate(pc):
                if n:
                    sub = rest(pc[:i] + (n - 1,) + pc[i + 1:], mc, collect)
                    for (s, m), p in sub:
                        out[(s + pv[i], m)] += Fraction(n, total) * p
            for i, n in enumerate(mc):
                if n:
                    sub = rest(pc, mc[:i] + (n - 1,) + mc[i + 1:], collect)
                    for (s, m), p in sub:
                        out[(s, m * mv[i])] += Fraction(n, total) * p
            return tuple(out.items())

        law: dict = defaultdict(Fraction)
        for (s, m), p in rest(tuple(prizes[v] for v in pv), tuple(mults[v] for v in mv), int(b["collect"])):
            law[Fraction(s * m, self.total_bet)] += p
        return dict(law)

    def pick_law(self, name: str) -> dict:
        if "board" in self.features[name]:
            key = ("board", name)
            if key not in self._laws:
                self._laws[key] = self.board_law(name)
            return self._laws[key]
        return super().pick_law(name)

    def max_spins_law(self, name: str, n: int) -> tuple[dict, Fraction]:
        """Exact ``(win law, expected spins)`` of a free-spins feature with ``max_spins``."""
        f = self.features[name]
        ceiling = int(f["max_spins"])
        law: dict = defaultdict(Fraction)
        espins = Fraction(0)
        for w, s in self.states(name):
            tab, cyc = self.free_spin_table(name, s)
            spin = [(x, a, Fraction(c, cyc)) for (x, a), c in tab.items()]

            @lru_cache(maxsize=None)
            def go(played: int, left: int) -> tuple:
                if left == 0:
                    return ((Fraction(0), Fraction(1)),), Fraction(0)
                out: dict = defaultdict(Fraction)
                es = Fraction(1)
                for x, a, q in spin:
                    nl = min(left - 1 + a, ceiling - played - 1)
                    sub, se = go(played + 1, nl)
                    es += q * se
                    for y, p in sub:
                        out[x + y] += q * p
                return tuple(out.items()), es

            pts, es = go(0, min(n, ceiling))
            for x, p in pts:
                law[x] += w * p
            espins += w * es
        return dict(law), espins

    def exact_feature_law(self, name: str, count: int) -> tuple[dict, Fraction] | None:
        """The exact (feature-capped) law and expected spins where the oracle has one, else None."""
        f = self.features[name]
        if f["kind"] == "pick_bonus":
            return cap_law(self.pick_law(name), self.feature_cap), Fraction(0)
        n = self.award(f["trigger"]["counts"], count)
        if "max_spins" in f:
            law, es = self.max_spins_law(name, n)
            return cap_law(law, self.feature_cap), es
        if not self.has_retrigger(name):
            return cap_law(self.fixed_count_law(name, n), self.feature_cap), Fraction(n)
        return None

    def feature_moments(self, name: str, count: int):
        ex = self.exact_feature_law(name, count)
        if ex is None:
            return super().feature_moments(name, count)
        law, es = ex
        return sum(x * p for x, p in law.items()), sum(x * x * p for x, p in law.items()), es

    def feature_law(self, name: str, count: int, depth: int = 80) -> Law:
        key = ("lawx", name, count)
        if key not in self._laws:
            ex = self.exact_feature_law(name, count)
            self._laws[key] = Law(ex[0]) if ex is not None else Oracle.feature_law(self, name, count, depth)
        return self._laws[key]

    # ------------------------------------------------------------------ rounds

    def round_parts(self, mode: str):
        md = self.modes[mode]
        if "buys" in md:
            return super().round_parts(mode)
        tab, cyc = self.base_table(mode)
        out = []
        for (win, trig, lts), c in tab.items():
            parts = []
            if trig is not None:
                parts.append((trig[0], trig[1], 1))
            parts.extend((f, 0, k) for f, k in lts)
            out.append((Fraction(c, cyc), win, parts))
        return out

    def figures(self, mode: str) -> dict:
        md = self.modes[mode]
        cost = frac(md.get("cost", 1))
        s1, s2, base, freq, share, spins = self.round_sums(mode)
        return {"cost": cost, "mean": s1, "m2": s2, "rtp": s1 / cost, "base_rtp": base / cost,
                "frequency": dict(freq), "share": {f: v / cost for f, v in share.items()},
                "expected_spins": {f: spins[f] / freq[f] for f in freq}}
