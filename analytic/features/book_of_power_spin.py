"""Book of Power: exact per-spin moments of one free spin, per outcome class.

A free spin on the feature's reel set shows a window ``w``.  Its *class*
``c = (A, P)`` is what moves the feature: ``A`` the awarded spins
(``spins_per_book * (b - 1)`` for ``b >= 2`` books) and ``P`` the bit mask
of golden-eligible reels showing a Power Book.  The spin pays the normal line
win ``L(w)`` and, for an expanding symbol ``s`` with multiplier ``m``,
``m E_s(w, H)`` where ``H`` is the effective golden mask (the golden reels
``G`` of the state, plus ``P`` under rule ``bop_golden_immediate``):
``E_s = pay_s(n) * lines`` when ``n`` (reels showing ``s``, golden reels
counted) reaches 2 (high) or 3 (low) symbols; books are disregarded.

Everything the feature solvers need is a class-conditional moment:

* ``L1[c] = E[L; c]``, ``L2[c] = E[L^2; c]`` (``E[Y; c] = E[Y 1{class c}]``),
* ``E1[s][c, G]``, ``E2[s][c, G]``, ``LE[s][c, G]``: ``E_s``, ``E_s^2`` and
  ``L E_s`` with golden mask ``G`` (``H = G | P``),
* ``EE[s, r][c]`` (``s != r``, regular variant, no golden reels): ``E_s E_r``;
* Power variant: ``mix[s][a, b][c, G] = E[L^a E_s^b; c]`` for ``a + b <= 4``
  (floats; non-negative sums), giving ``E[X^i | c]`` of ``X = L + m E_s``
  for the third and fourth moments (:meth:`SpinStats.moment_x`).

The joint law of the ten paylines with the per-reel indicators is the exact
line walk (:func:`analytic.engine.linewalk.walk`, MATH.md s.2) run once per
symbol with hand-made per-reel counters (books, Power Books per golden reel,
reels showing ``s``); the pair terms are per-reel convolutions (they do not
involve the lines).  All sums are Python integers over the cycle; ``.prob``,
``.f(...)`` give Fractions and float arrays in total-bet multiples.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from analytic.engine.linewalk import ReelWindows, walk
from analytic.engine.spin import build_spin, strip_windows
from analytic.errors import UnboundedFeatureError, UnsupportedMechanicError

__all__ = ["SpinStats", "spin_stats", "clear_cache"]

_CACHE: dict = {}


def clear_cache() -> None:
    _CACHE.clear()


def spin_stats(game, feature: str) -> "SpinStats":
    """Per-spin statistics of a Book of Power feature (cached per game object and feature)."""
    key = (id(game), feature)
    hit = _CACHE.get(key)
    if hit is None or hit.game is not game:
        hit = _CACHE[key] = SpinStats(game, feature)
    return hit


class SpinStats:
    """Exact class-conditional per-spin moments (see the module docstring).

    Attributes
    ----------
    cycle : int
    classes : list of (A, P)
        Outcome classes, index ``c``; ``count[c]`` their integer weights.
    ordered : list of str
        Regular symbols by rank 1..9.
    ng : int
        Number of golden-eligible reels (0 for the regular variant).
    mean_award : Fraction
    sums : dict
        Integer sums over the cycle, line-bet units (see :meth:`f`).
    """

    def __init__(self, game, feature: str):
        spec = game.features[feature]
        par = spec.params
        rules = game.rules
        self.game, self.feature = game, feature
        self.variant = par["variant"]
        if not rules.get("bop_books_sub_expanding_normal", True):
            raise UnsupportedMechanicError(
                "rule bop_books_sub_expanding_normal = false makes the normal line win depend on the set of "
                "expanding symbols; not solved yet (set it to true)")
        self.reel_set = spec.reel_set
        strips = game.reel_sets[spec.reel_set]
        self.nreels = len(strips)
        books = {"book"} | ({"power_book"} if rules.get("bop_power_book_retriggers", True)
                            or self.variant == "regular" else set())
        books &= set(game.symbol_names)
        self.golden = [g - 1 for g in par["golden_reels"]] if self.variant == "power" else []
        self.ng = len(self.golden)
        self.immediate = bool(rules.get("bop_golden_immediate", True)) and self.ng > 0
        self.ordered = sorted((s.name for s in game.symbols if s.role == "regular"),
                              key=lambda n: game.symbol(n).value_rank)
        self.need = {s: 2 if game.symbol(s).tier == "high" else 3 for s in self.ordered}
        self.pays = {s: dict(game.paytable.get(s, {})) for s in self.ordered}
        self.nl = len(game.lines)
        self.tb = game.total_bet
        self.spb = par["spins_per_book"]
        self.windows = [strip_windows(st, game.rows) for st in strips]
        self.cycle = game.cycle(spec.reel_set)
        self.books = books
        # per reel: window -> (books, pb bit)
        gi = {r: i for i, r in enumerate(self.golden)}
        self._wb = [{w: (sum(c in books for c in w),
                         (1 << gi[i]) if (i in gi and "power_book" in w) else 0) for w in ws}
                    for i, ws in enumerate(self.windows)]
        self.nmask = 1 << self.ng
        self._walks()
        self.mean_award = Fraction(sum(a * n for (a, _), n in zip(self.classes, self.count)), self.cycle)
        if self.mean_award >= 1:
            raise UnboundedFeatureError(game.path, f"features.{feature}",
                                        f"mean award {float(self.mean_award):.4f} spins per spin >= 1: the "
                                        "feature would never end in expectation")
        if self.variant == "regular":
            self._pairs()

    # ------------------------------------------------------------------
    def _award(self, b: int) -> int:
        return self.spb * (b - 1) if b >= 2 else 0

    def _epay(self, s: str, n: int) -> int:
        return self.pays[s].get(n, 0) * self.nl if n >= self.need[s] else 0

    def _walks(self) -> None:
        game = self.game
        base = build_spin(game, self.reel_set, ())
        ng = self.ng
        cls_index: dict = {}
        self.classes: list = []
        per_s = {}
        for s in self.ordered:
            reels = []
            for i, ws in enumerate(self.windows):
                items = sorted(ws.items())
                rw = base.reels[i]
                assert len(rw.cells) == len(items)
                ctr = []
                for w, _ in items:
                    b, pb = self._wb[i][w]
                    shows = int(s in w)
                    pbits = tuple((pb >> k) & 1 for k in range(ng))
                    gbits = tuple(shows if self.golden[k] == i else 0 for k in range(ng))
                    plain = 0 if i in self.golden else shows
                    ctr.append((b,) + pbits + (plain,) + gbits)
                reels.append(ReelWindows(cells=rw.cells, weights=rw.weights, counters=tuple(ctr)))
            from dataclasses import replace

            sp = replace(base, reels=tuple(reels),
                         counter_names=("books",) + tuple(f"pb{k}" for k in range(ng)) + ("plain",)
                         + tuple(f"g{k}" for k in range(ng)))
            dist = walk(sp)
            rows = np.array([k[:-2] for k in dist.table], dtype=np.int64).reshape(len(dist.table), -1)
            lw = [k[-1] for k in dist.table]
            cnt = list(dist.table.values())
            per_s[s] = (rows, lw, cnt)
        # classes from the first walk (all walks share the class law)
        rows, lw, cnt = per_s[self.ordered[0]]
        #: joint law of (awarded spins, line win) over the cycle: {(A, L): stop combinations}
        self.line_law: dict = {}
        for r, L, n in zip(rows, lw, cnt):
            key = (self._award(int(r[0])), int(L))
            self.line_law[key] = self.line_law.get(key, 0) + n
        for r in rows:
            b = int(r[0])
            P = sum(int(r[1 + k]) << k for k in range(ng))
            key = (self._award(b), P)
            if key not in cls_index:
                cls_index[key] = len(self.classes)
                self.classes.append(key)
        order = sorted(range(len(self.classes)), key=lambda i: self.classes[i])
        self.classes = [self.classes[i] for i in order]
        cls_index = {k: i for i, k in enumerate(self.classes)}
        nc = len(self.classes)
        self.count = [0] * nc
        self.sL = [0] * nc
        self.sLL = [0] * nc
        self.sE: dict = {}
        self.sEE: dict = {}
        self.sLE: dict = {}
        first = True
        #: per symbol: stop combinations with no line win and no expansion pay of s on its own
        #: reels (golden reels only add reels, so this bounds every state's zero-win weight)
        self.zero_weight: dict = {}
        for s in self.ordered:
            rows, lw, cnt = per_s[s]
            self.zero_weight[s] = sum(n for r, L, n in zip(rows, lw, cnt)
                                      if L == 0 and self._epay(s, int(r[1 + ng])) == 0)
            E = [[0] * self.nmask for _ in range(nc)]
            EE = [[0] * self.nmask for _ in range(nc)]
            LE = [[0] * self.nmask for _ in range(nc)]
            for r, L, n in zip(rows, lw, cnt):
                b = int(r[0])
                P = sum(int(r[1 + k]) << k for k in range(ng))
                c = cls_index[(self._award(b), P)]
                if first:
                    self.count[c] += n
                    self.sL[c] += L * n
                    self.sLL[c] += L * L * n
                plain = int(r[1 + ng])
                gb = [int(r[2 + ng + k]) for k in range(ng)]
                for G in range(self.nmask):
                    H = G | P if self.immediate else G
                    k = plain + sum(1 if ((H >> q) & 1) else gb[q] for q in range(ng))
                    e = self._epay(s, k)
                    if e:
                        E[c][G] += e * n
                        EE[c][G] += e * e * n
                        LE[c][G] += L * e * n
            first = False
            self.sE[s], self.sEE[s], self.sLE[s] = E, EE, LE
        assert sum(self.count) == self.cycle
        if ng:
            self._mixed(per_s, cls_index)
            #: per symbol: (counter rows, line wins, counts) of the walk, kept for the cap's exact law
            self.walk_rows = per_s

    #: highest order of the mixed sums ``L^a E_s^b`` kept for the Power variant
    ORDER = 4

    def _mixed(self, per_s, cls_index) -> None:
        """Float sums ``mix[s][a, b][c, G] = sum L^a E_s^b`` over class ``c`` (``a + b <= ORDER``).

        Floats (the integers would overflow int64): every term is non-negative,
        so each sum carries a relative error below ``rows * 2^-53`` (rows < 10^7
        here), far inside the solver's ``REL`` widening.
        """
        ng, nc = self.ng, len(self.classes)
        K = self.ORDER
        self.mix: dict = {}
        for s in self.ordered:
            rows, lw, cnt = per_s[s]
            L = np.array(lw, dtype=float)
            n = np.array([float(x) for x in cnt])
            b = rows[:, 0]
            P = np.zeros(len(rows), dtype=np.int64)
            for k in range(ng):
                P |= rows[:, 1 + k].astype(np.int64) << k
            cls = np.array([cls_index[(self._award(int(bb)), int(pp))] for bb, pp in zip(b, P)])
            plain = rows[:, 1 + ng]
            gb = rows[:, 2 + ng: 2 + 2 * ng]
            table = np.array([self._epay(s, k) for k in range(self.nreels + 1)], dtype=float)
            out = np.zeros((K + 1, K + 1, nc, self.nmask))
            for G in range(self.nmask):
                H = (G | P) if self.immediate else np.full(len(rows), G)
                k = plain.copy()
                for q in range(ng):
                    k = k + np.where((H >> q) & 1, 1, gb[:, q])
                e = table[k]
                for a in range(K + 1):
                    for bb in range(K + 1 - a):
                        out[a, bb, :, G] = np.bincount(cls, weights=n * L ** a * e ** bb, minlength=nc)
            self.mix[s] = out

    def moment_x(self, s: str, m: int, G: int, i: int) -> np.ndarray:
        """``E[X^i | c]`` per class, ``X = L + m E_s`` with golden mask ``G`` (total-bet multiples, floats)."""
        from math import comb

        mx = self.mix[s]
        tot = sum(comb(i, r) * float(m) ** r * mx[i - r, r, :, G] for r in range(i + 1))
        return tot / np.array(self.count, dtype=float) / float(self.tb) ** i

    def _pairs(self) -> None:
        """``sum E_s E_r`` per class for s != r (no golden reels), per-reel convolution."""
        nc = len(self.classes)
        cls_index = {k: i for i, k in enumerate(self.classes)}
        self.sPair: dict = {}
        for ia, s in enumerate(self.ordered):
            for r in self.ordered[ia + 1:]:
                dist = {(0, 0, 0): 1}
                for i, ws in enumerate(self.windows):
                    step: dict = {}
                    for w, n in ws.items():
                        k = (self._wb[i][w][0], int(s in w), int(r in w))
                        step[k] = step.get(k, 0) + n
                    nd: dict = {}
                    for (b0, x0, y0), c0 in dist.items():
                        for (b1, x1, y1), c1 in step.items():
                            k = (b0 + b1, x0 + x1, y0 + y1)
                            nd[k] = nd.get(k, 0) + c0 * c1
                    dist = nd
                acc = [0] * nc
                for (b, x, y), n in dist.items():
                    v = self._epay(s, x) * self._epay(r, y)
                    if v:
                        acc[cls_index[(self._award(b), 0)]] += v * n
                self.sPair[(s, r)] = acc

    # ------------------------------------------------------------------
    def probs(self) -> np.ndarray:
        return np.array([n / self.cycle for n in self.count])

    def f(self, what: str, s: str | None = None, G: int = 0, r: str | None = None) -> np.ndarray:
        """Float per-class moments ``E[Y; c] / P(c)`` (conditional on the class), total-bet multiples."""
        tb = self.tb
        cnt = np.array(self.count, dtype=float)
        if what == "L1":
            num, sc = self.sL, tb
        elif what == "L2":
            num, sc = self.sLL, tb * tb
        elif what == "E1":
            num, sc = [x[G] for x in self.sE[s]], tb
        elif what == "E2":
            num, sc = [x[G] for x in self.sEE[s]], tb * tb
        elif what == "LE":
            num, sc = [x[G] for x in self.sLE[s]], tb * tb
        elif what == "EE":
            key = (s, r) if (s, r) in self.sPair else (r, s)
            num, sc = self.sPair[key], tb * tb
        else:
            raise KeyError(what)
        return np.array([float(Fraction(x, sc)) for x in num]) / cnt

    def exact(self, what: str, s: str | None = None, G: int = 0) -> Fraction:
        """Unconditional exact mean ``E[Y]`` (total-bet multiples) of L1, L2, E1, E2, LE."""
        tb = self.tb
        if what == "L1":
            return Fraction(sum(self.sL), self.cycle * tb)
        if what == "L2":
            return Fraction(sum(self.sLL), self.cycle * tb * tb)
        src = {"E1": (self.sE, tb), "E2": (self.sEE, tb * tb), "LE": (self.sLE, tb * tb)}[what]
        return Fraction(sum(x[G] for x in src[0][s]), self.cycle * src[1])

    @property
    def l(self) -> Fraction:
        return self.exact("L1")

    def r(self, s: str, G: int = 0) -> Fraction:
        return self.exact("E1", s, G)
