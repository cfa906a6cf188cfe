"""Independent oracles for the free spins of engines ``revealed_wild_reels`` and ``gift_pick`` on small games.

Written for ``tests/solver/test_differential_engines.py`` from the rule text
of ``docs/model-format.md`` (engines ``revealed_wild_reels`` and
``gift_pick``, mechanics ``wild_reels``, ``expanding_symbol``,
``gift_pick``) and the readings spelled out in the simulator's players
(``analytic/simulator/features/revealed_wild_reels.py`` and ``gift_pick.py``,
their docstrings); it reads the raw TOML data and imports nothing from
``analytic``.  :class:`OracleRevealed`:  On top of :class:`oracle.Oracle` (base spins, triggers,
rounds, retrigger moments and laws) one free spin given the drawn symbol
``s`` is enumerated over every stop combination of the feature's reel set
and every multiplier drawn for each reel showing the Book:

* every reel showing the Book (``wild_reels.revealed_by``) in any row
  becomes a wild reel with a multiplier drawn from ``multipliers`` (weights),
  independently per reel; a stop combination with ``j`` such reels stands
  for ``W^(reels - j) x prod(weights drawn)`` of ``cycle x W^reels``
  equally likely outcomes (``W`` the total weight);
* each payline pays its highest candidate: for each regular symbol ``c``,
  ``paytable[c][run] x`` the product of the multipliers of the wild reels in
  the run (a wild reel stands for every regular symbol);
* scatter pays (``[scatter]``) count the scatter symbols as they landed,
  never multiplied;
* the expansion: ``k`` = reels showing ``s`` (not turned wild) plus the wild
  reels; when ``k`` reaches the smallest count of ``s`` paying above 0 the
  spin also pays ``paytable[s][k] x lines x`` the product of every wild
  reel's multiplier (``k`` above the largest listed count: that count's pay) (rule ``wild_reels_expansion = "needs_symbol"``: only
  when a reel shows ``s`` itself);
* a retrigger table counts its symbols as they landed (rule
  ``revealed_retrigger_count = "landed"``) or each reel showing one once
  (``"reels"``);
* rule ``published_max_win = "theoretical"``: the round is not capped.

Units: total-bet multiples (Fractions).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

from oracle import Oracle


class OracleRevealed(Oracle):
    def __init__(self, model: dict):
        super().__init__(model)
        rules = model.get("rules", {})
        self.needs_symbol = rules.get("wild_reels_expansion", "pays") == "needs_symbol"
        self.retrigger_count = rules.get("revealed_retrigger_count", "landed")
        if rules.get("published_max_win", "cap") == "theoretical":
            self.cap = self.law_cap = None  # the round is solved uncapped

    def free_spin_table(self, name: str, s: str | None):
        key = ("free", name, s)
        if key in self._laws:
            return self._laws[key]
        f = self.features[name]
        book = f["wild_reels"]["revealed_by"]
        mults = {int(m): int(w) for m, w in f["wild_reels"]["multipliers"].items()}
        W = sum(mults.values())
        rt = f.get("retrigger")
        rsyms = set(rt["symbols"]) if rt else set()
        pays = {c: t for c, t in self.paytable.items() if self.roles[c] == "regular"}
        epays = self.paytable[s]
        kmin = min(k for k, v in epays.items() if v > 0)
        out: Counter = Counter()
        cyc = 0
        for w in self.windows(f["reels"]):
            cyc += 1
            wild = [i for i, col in enumerate(w) if book in col]
            if rt:
                n = (sum(1 for col in w if any(c in rsyms for c in col)) if self.retrigger_count == "reels"
                     else self.count(w, rsyms))
                a = self.award(rt["counts"], n)
            else:
                a = 0
            sw = self.scatter_win(w)
            sreels = sum(1 for i, col in enumerate(w) if i not in wild and s in col)
            for drawn in itertools.product(sorted(mults), repeat=len(wild)):
                weight = W ** (self.reels - len(wild)) * math.prod(mults[m] for m in drawn)
                m_of = dict(zip(wild, drawn))
                lw = 0
                for line in self.lines:
                    best = 0
                    for c, table in pays.items():
                        run, prod = 0, 1
                        for r, row in enumerate(line):
                            if r in m_of:
                                prod *= m_of[r]
                            elif not self.supports(w[r][row], c):
                                break
                            else:
                                prod *= self.mult[w[r][row]]
                            run += 1
                        best = max(best, table.get(run, 0) * prod)
                    lw += best
                k = sreels + len(wild)
                if k >= kmin and not (self.needs_symbol and sreels == 0):
                    lw += epays.get(min(k, max(epays)), 0) * len(self.lines) * math.prod(drawn)  # above: the top count
                out[(Fraction(lw, self.total_bet) + sw, a)] += weight
        res = (out, cyc * W ** self.reels)
        self._laws[key] = res
        return res


class OracleGift(Oracle):
    """Engine ``gift_pick`` (docs: mechanic ``gift_pick``; readings as spelled out in the simulator's
    player ``analytic/simulator/features/gift_pick.py``, its docstring).

    ``c`` trigger symbols start ``counts`` (of the largest listed count not above ``c``) spins and
    open ``c`` gifts drawn uniformly without replacement (every ``c``-subset of the gift copies equally
    likely).  ``spins`` adds spins, ``multiplier`` adds to the feature's ``multiplier`` (default 1),
    which multiplies every free-spin win; ``wild_reel`` shows the wild on every row of that reel;
    ``wild_symbol`` makes a regular symbol substitute like the wild (and still pay as itself);
    ``expanding_symbol`` (a named symbol, or ``"drawn"``: one drawn by weight from the feature's
    ``expanding_symbol``) pays, after the line wins, ``paytable[s][n] x lines`` when ``n`` reels (not
    turned wild) show ``s``, ``n`` at least its smallest count paying above 0 (above the largest
    listed count: that count's pay).  The spins of one
    play are i.i.d.: the feature's law is the mixture over the picks of the spin law's convolution
    power, exact.
    """

    def _plays(self, name: str, count: int) -> list:
        """``[(probability, spins, multiplier, wild reels, wild symbols, expanding symbol)]``."""
        f = self.features[name]
        gp = f["gift_pick"]
        copies = [(g["effect"], g["value"]) for g in gp["gifts"] for _ in range(int(g["count"]))]
        n0 = self.award(f["trigger"]["counts"], count)
        subsets = list(itertools.combinations(range(len(copies)), count))
        out: Counter = Counter()
        for sub in subsets:
            picked = [copies[i] for i in sub]
            spins = n0 + sum(int(v) for e, v in picked if e == "spins")
            mult = int(f.get("multiplier", 1)) + sum(int(v) for e, v in picked if e == "multiplier")
            wr = frozenset(int(v) - 1 for e, v in picked if e == "wild_reel")
            ws = frozenset(v for e, v in picked if e == "wild_symbol")
            ex = next((v for e, v in picked if e == "expanding_symbol"), None)
            out[(spins, mult, wr, ws, ex)] += 1
        plays = []
        for (spins, mult, wr, ws, ex), c in out.items():
            p = Fraction(c, len(subsets))
            if ex == "drawn":  # one symbol drawn by weight from the feature's expanding_symbol
                for q, s in self.states(name):
                    plays.append((p * q, spins, mult, wr, ws, s))
            else:
                plays.append((p, spins, mult, wr, ws, ex))
        return plays

    def _gift_spin(self, name: str, wr, ws, ex) -> dict:
        key = ("gift spin", name, wr, ws, ex)
        if key in self._laws:
            return self._laws[key]
        f = self.features[name]
        wild = f["gift_pick"]["wild"]
        pays = {c: t for c, t in self.paytable.items() if self.roles[c] == "regular"}
        kmin = min((k for k, v in self.paytable.get(ex, {}).items() if v > 0), default=None) if ex else None
        law: dict = {}
        cyc = 0
        for w in self.windows(f["reels"]):
            cyc += 1
            w = tuple((wild,) * self.rows if i in wr else col for i, col in enumerate(w))
            lw = 0
            for line in self.lines:
                cells = self.line_cells(w, line)
                best = 0
                for c, table in pays.items():
                    run = 0
                    for x in cells:
                        if not (x == c or (x == wild or x in ws) and c in self.subs[wild]):
                            break
                        run += 1
                    best = max(best, table.get(run, 0))
                lw += best
            if ex is not None:
                n = sum(1 for i, col in enumerate(w) if i not in wr and ex in col)
                if kmin is not None and n >= kmin:
                    lw += self.paytable[ex].get(min(n, max(self.paytable[ex])), 0) * len(self.lines)
            x = Fraction(lw, self.total_bet)
            law[x] = law.get(x, 0) + 1
        law = {x: Fraction(c, cyc) for x, c in law.items()}
        self._laws[key] = law
        return law

    def feature_law(self, name: str, count: int, depth: int = 80):
        from oracle import Law, power

        key = ("gift law", name, count)
        if key not in self._laws:
            pts: dict = {}
            for p, spins, mult, wr, ws, ex in self._plays(name, count):
                one = {x * mult: q for x, q in self._gift_spin(name, wr, ws, ex).items()}
                for x, q in power(one, spins).items():
                    pts[x] = pts.get(x, 0) + p * q
            self._laws[key] = Law(pts)
        return self._laws[key]

    def feature_moments(self, name: str, count: int):
        law = self.feature_law(name, count).points
        spins = sum(p * s for p, s, *_ in self._plays(name, count))
        return sum(x * p for x, p in law.items()), sum(x * x * p for x, p in law.items()), spins
