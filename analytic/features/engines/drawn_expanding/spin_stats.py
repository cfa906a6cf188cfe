"""Engine ``drawn_expanding``: exact per-spin moments of one free spin, per outcome class.

A free spin on the feature's reel set shows a window ``w``.  Its *class*
``c = (A, P)`` is what moves the feature: ``A`` the awarded spins
(``spins_per_symbol * (b - 1)`` for ``b >= 2`` books) and ``P`` the bit mask
of golden-eligible reels showing a Power Book.  The spin pays the normal line
win ``L(w)`` and, for an expanding symbol ``s`` with multiplier ``m``,
``m E_s(w, H)`` where ``H`` is the effective golden mask (the golden reels
``G`` of the state, plus ``P`` under rule ``golden_immediate``):
``E_s = pay_s(n) * lines`` when ``n`` (reels showing ``s``, golden reels
counted) reaches the smallest paying count of ``s`` (2 for high, 3 for low
symbols in the rule text); books are disregarded.  Books, Power Books and
regular symbols are read from the model (the trigger's symbols, the Power
feature's ``requires``, the ``regular`` role).

Everything the feature solvers need is a class-conditional moment:

* ``L1[c] = E[L; c]``, ``L2[c] = E[L^2; c]`` (``E[Y; c] = E[Y 1{class c}]``),
* ``E1[s][c, G]``, ``E2[s][c, G]``, ``LE[s][c, G]``: ``E_s``, ``E_s^2`` and
  ``L E_s`` with golden mask ``G`` (``H = G | P``),
* ``EE[s, r][c]`` (``s != r``, regular variant, no golden reels): ``E_s E_r``;
* Power variant: ``mix[s][a, b][c, G] = E[L^a E_s^b; c]`` for ``a + b <= 4``
  (floats; non-negative sums), giving ``E[X^i | c]`` of ``X = L + m E_s``
  for the third and fourth moments (:meth:`SpinStats.moment_x`).

The joint law of the ten paylines with the per-reel indicators is the exact
line walk (:func:`analytic.engine.linewalk.walk`, docs/derivations.md s.2) run once per
symbol with hand-made per-reel counters (books, Power Books per golden reel,
reels showing ``s``); the pair terms are per-reel convolutions (they do not
involve the lines).  Rule ``scatter_substitutes_for_expanding_in_line_wins =
false`` (the literal reading: while ``s`` expands the books do not stand in
for ``s`` in the line win; docs/derivations.md s.5): the walk of ``s`` runs
with ``s`` out of the books' substitution set, so the line win is ``L_s``
and ``L1``, ``L2`` are kept per symbol (``sL_s``, ``sLL_s``; ``sL``, ``sLL``
and ``line_law`` are then None); built for the ladder variant only (the
regular variant's line win depends on the set of drawn symbols: its
figures come from :mod:`~analytic.features.engines.drawn_expanding.line_sets` and
two bounding games, ``UnsupportedMechanicError`` here).  All sums are Python integers over the cycle; ``.prob``,
``.f(...)`` give Fractions and float arrays in total-bet multiples.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from analytic.engine.linewalk import ReelWindows, walk
from analytic.engine.spin import build_spin, strip_windows
from analytic.errors import ModelError, UnboundedFeatureError, UnsupportedMechanicError

__all__ = ["SpinStats", "spin_stats"]

_I64 = 1 << 63


def _gsum(idx: np.ndarray, w: np.ndarray, size: int) -> np.ndarray:
    """Exact sums of ``w`` per group ``idx`` (``0 <= idx < size``), shape ``(size,)``.

    ``w`` int64 (the caller guarantees every group sum is below 2^63) or
    object (Python integers): the result has the same dtype.
    """
    out = np.zeros(size, dtype=w.dtype)
    np.add.at(out, idx, w)
    return out


def spin_stats(game, feature: str, ws=None) -> "SpinStats":
    """Per-spin statistics of a ``drawn_expanding`` feature, kept in the workspace ``ws``.

    Parameters
    ----------
    game : Game
    feature : str
        A ``drawn_expanding`` feature.
    ws : Workspace, optional
        The solve's workspace for ``game`` (:mod:`analytic.workspace`);
        None: a fresh one (the statistics are built again).

    Returns
    -------
    SpinStats
    """
    from analytic.workspace import workspace_for

    return workspace_for(game, ws).memo(("drawn_expanding.spin_stats", feature), lambda: SpinStats(game, feature))


class SpinStats:
    """Exact class-conditional per-spin moments (see the module docstring).

    Attributes
    ----------
    cycle : int
    classes : list of (A, P)
        Outcome classes, index ``c``; ``count[c]`` their integer weights.
    ordered : list of str
        Regular symbols by rank (:func:`~analytic.features.engines.drawn_expanding.engine.regular_symbols`);
        with a ladder in the ladder's order
        (:func:`~analytic.features.engines.drawn_expanding.engine.ladder_symbols`).
    ceiling : int
        The feature's ``max_multiplier``.
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
        self.variant = "ladder" if par["ladder"] else "draws"
        if game.scatter is not None and any(v > 0 for v in game.scatter.pays.values()):
            # the simulator pays them in every free spin; the spin law here is line wins and expansions
            raise ModelError(game.path, "scatter.pays",
                             "engine 'drawn_expanding' solves free spins paying line wins and expansions only; "
                             "scatter pays (also paid in its free spins) are not solved: remove them")
        #: rule ``scatter_substitutes_for_expanding_in_line_wins = false``: in this feature the books
        #: do not substitute for the expanding symbol in line wins, so the line win depends on it
        self.literal = not rules.get("scatter_substitutes_for_expanding_in_line_wins", True)
        if self.literal and self.variant != "ladder":
            raise UnsupportedMechanicError(
                f"rule scatter_substitutes_for_expanding_in_line_wins = false: in features.{feature} (expanding "
                "symbols drawn at each award) the normal line win depends on the whole set of expanding symbols "
                "drawn so far; these per-spin statistics are built for the bounding games of "
                "analytic.features.engines.drawn_expanding.line_sets (bounding_game), not for the model itself")
        self.reel_set = spec.reel_set
        strips = game.reel_sets[spec.reel_set]
        self.nreels = len(strips)
        from analytic.features.engines.drawn_expanding.engine import (book_symbols, expansion_need, ladder_symbols,
                                                     max_multiplier, power_book_symbols, regular_symbols)

        books = book_symbols(game, feature)
        pbooks = power_book_symbols(game)
        self.golden = [g - 1 for g in par["golden_reels"]] if self.variant == "ladder" else []
        self.ng = len(self.golden)
        self.immediate = bool(rules.get("golden_immediate", True)) and self.ng > 0
        # with a ladder: in the ladder's order (level 1 first, the last absorbing)
        self.ordered = ladder_symbols(game, feature) if self.variant == "ladder" else regular_symbols(game)
        #: reels an expansion needs (the smallest paying count: 2 for high, 3 for low symbols)
        self.need = {s: expansion_need(game, s) for s in self.ordered}
        #: the multiplier ceiling (param ``max_multiplier``) and rule ``expanding_repeat_multiplier``
        self.ceiling = max_multiplier(game, feature)
        self.reading = rules.get("expanding_repeat_multiplier", "count")
        self.pays = {s: dict(game.paytable.get(s, {})) for s in self.ordered}
        self.nl = len(game.lines)
        self.tb = game.total_bet
        self.spb = par["spins_per_symbol"]
        self.windows = [strip_windows(st, game.rows) for st in strips]
        self.cycle = game.cycle(spec.reel_set)
        self.books = books
        self.power_books = pbooks
        # per reel: window -> (books, pb bit)
        gi = {r: i for i, r in enumerate(self.golden)}
        self._wb = [{w: (sum(c in books for c in w),
                         (1 << gi[i]) if (i in gi and any(c in pbooks for c in w)) else 0) for w in ws}
                    for i, ws in enumerate(self.windows)]
        self.nmask = 1 << self.ng
        self._walks()
        self.mean_award = Fraction(sum(a * n for (a, _), n in zip(self.classes, self.count)), self.cycle)
        if self.mean_award >= 1:
            raise UnboundedFeatureError(game.path, f"features.{feature}",
                                        f"mean award {float(self.mean_award):.4f} spins per spin >= 1: the "
                                        "feature would never end in expectation")
        if self.variant == "draws":
            self._pairs()

    # ------------------------------------------------------------------
    def _award(self, b: int) -> int:
        return self.spb * (b - 1) if b >= 2 else 0

    def _epay(self, s: str, n: int) -> int:
        return self.pays[s].get(n, 0) * self.nl if n >= self.need[s] else 0

    def _spin_for(self, s: str):
        """The line-walk spin of symbol ``s``'s walk: under the literal reading the wild scatters
        (books and Power Books) substitute for every symbol but ``s``, else the model's roles."""
        game = self.game
        if not self.literal:
            return build_spin(game, self.reel_set, ())
        from analytic.engine.spin import cell_roles, line_paytable

        pt, index = line_paytable(game)
        regular = [x.name for x in game.symbols if x.role == "regular"]
        subs = {}
        for sym in game.symbols:
            if sym.is_wild and sym.name in (self.books | self.power_books):
                own = regular if sym.substitutes is None else sym.substitutes
                subs[sym.name] = frozenset(x for x in own if x != s)
        return build_spin(game, self.reel_set, (), roles=cell_roles(game, index, substitutes=subs), paytable=pt)

    def _walks(self) -> None:
        game = self.game
        base = build_spin(game, self.reel_set, ()) if not self.literal else None
        ng = self.ng
        per_s = {}
        for s in self.ordered:
            if self.literal:
                base = self._spin_for(s)
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
            dist = walk(sp, load_kernel=len(self.ordered) > 1)  # one walk per symbol: the load pays back
            keys = list(dist.table)
            rows = np.array([k[:-2] for k in keys], dtype=np.int64).reshape(len(keys), -1)
            lw = [k[-1] for k in keys]
            cnt = list(dist.table.values())
            per_s[s] = (rows, lw, cnt)
        # exact integer arithmetic: every sum below is a sum of counts ``n`` or of ``L n`` over rows
        # (each at most ``cycle`` resp. ``max L * cycle``), taken in int64 only when that bound is
        # below 2^63 (checked); else on Python integers (object arrays).  The products with the pays
        # (E, E^2, L E, L^2) are then taken on the few group totals, in Python integers.
        int64_ok = self.cycle < _I64 and all(
            min(lw, default=0) >= 0 and max(lw, default=0) * self.cycle < _I64 for _, lw, _ in per_s.values())
        arr = {}
        for s, (rows, lw, cnt) in per_s.items():
            if int64_ok:
                L = np.array(lw, dtype=np.int64)
                n = np.array(cnt, dtype=np.int64)
                Ln = L * n
            else:
                L = np.array(lw, dtype=object)
                n = np.array(cnt, dtype=object)
                Ln = L * n
            arr[s] = (L, n, Ln)
        # classes from the first walk (all walks share the class law)
        rows, lw, cnt = per_s[self.ordered[0]]
        L, n, Ln = arr[self.ordered[0]]
        b = rows[:, 0]
        P = self._pmask(rows)
        award_b = np.array([self._award(x) for x in range(int(b.max(initial=0)) + 1)], dtype=np.int64)
        A = award_b[b]
        AP = np.unique(np.stack([A, P], axis=1), axis=0) if len(rows) else np.zeros((0, 2), dtype=np.int64)
        self.classes = sorted({(int(a), int(p)) for a, p in AP})
        nc = len(self.classes)
        #: joint law of (awarded spins, line win) over the cycle: {(A, L): stop combinations}
        #: (keys in order of first appearance in the walk's table)
        Lu, Linv = np.unique(L, return_inverse=True)
        Linv = Linv.reshape(-1)
        Au, Ainv = np.unique(A, return_inverse=True)
        code = Ainv.reshape(-1).astype(np.int64) * len(Lu) + Linv
        ucode, first, inv = np.unique(code, return_index=True, return_inverse=True)
        tot = _gsum(inv.reshape(-1), n, len(ucode))
        self.line_law: dict = {}
        for j in np.argsort(first, kind="stable"):
            cd = int(ucode[j])
            self.line_law[(int(Au[cd // len(Lu)]), int(Lu[cd % len(Lu)]))] = int(tot[j])
        # count, sL, sLL per class from the (class, line win) group totals
        self.count, self.sL, self.sLL = self._line_sums(rows, L, n)
        #: per symbol ``s``: per-class ``sum L_s`` and ``sum L_s^2`` of the line win while ``s``
        #: expands (the same lists for every symbol unless :attr:`literal`)
        self.sL_s: dict = {}
        self.sLL_s: dict = {}
        for s in self.ordered:
            if self.literal:
                cnt_s, self.sL_s[s], self.sLL_s[s] = self._line_sums(per_s[s][0], arr[s][0], arr[s][1])
                assert cnt_s == self.count
            else:
                self.sL_s[s], self.sLL_s[s] = self.sL, self.sLL
        if self.literal:
            # the line win depends on the expanding symbol: no symbol-free line figures
            self.sL = self.sLL = self.line_law = None
        self.sE: dict = {}
        self.sEE: dict = {}
        self.sLE: dict = {}
        #: per symbol: stop combinations with no line win and no expansion pay of s on its own
        #: reels (golden reels only add reels, so this bounds every state's zero-win weight)
        self.zero_weight: dict = {}
        R = self.nreels + 1
        if ng:
            self.mix: dict = {}
        for s in self.ordered:
            rows, lw, cnt = per_s[s]
            L, n, Ln = arr[s]
            epay = [self._epay(s, k) for k in range(R)]
            eo = np.array(epay, dtype=object)
            plain = rows[:, 1 + ng]
            zero = np.array([e == 0 for e in epay], dtype=bool)[plain] & (L == 0)
            self.zero_weight[s] = int(n[zero].sum()) if zero.any() else 0
            ci = self._class_index(rows)
            P = self._pmask(rows)
            gb = rows[:, 2 + ng: 2 + 2 * ng]
            E = np.zeros((nc, self.nmask), dtype=object)
            EE = np.zeros((nc, self.nmask), dtype=object)
            LE = np.zeros((nc, self.nmask), dtype=object)
            ks = []
            for G in range(self.nmask):
                k = self._reels_showing(G, P, plain, gb)
                ks.append(k)
                idx = ci.astype(np.int64) * R + k
                Nk = _gsum(idx, n, nc * R).astype(object).reshape(nc, R)
                LNk = _gsum(idx, Ln, nc * R).astype(object).reshape(nc, R)
                E[:, G] = (Nk * eo).sum(axis=1)
                EE[:, G] = (Nk * (eo * eo)).sum(axis=1)
                LE[:, G] = (LNk * eo).sum(axis=1)
            self.sE[s] = [[int(x) for x in row] for row in E]
            self.sEE[s] = [[int(x) for x in row] for row in EE]
            self.sLE[s] = [[int(x) for x in row] for row in LE]
            if ng:
                self.mix[s] = self._mixed(L, n, ci, ks, epay)
        assert sum(self.count) == self.cycle
        if ng:
            #: per symbol: (counter rows, line wins, counts) of the walk, kept for the cap's exact law
            self.walk_rows = per_s

    def _line_sums(self, rows: np.ndarray, L: np.ndarray, n: np.ndarray):
        """Per class: ``(count, sum L, sum L^2)`` over the walk rows (Python integer lists)."""
        nc = len(self.classes)
        Lu, Linv = np.unique(L, return_inverse=True)
        Linv = Linv.reshape(-1)
        ci = self._class_index(rows)
        NcL = _gsum(ci.astype(np.int64) * len(Lu) + Linv, n, nc * len(Lu)).astype(object).reshape(nc, len(Lu))
        Lo = np.array([int(x) for x in Lu], dtype=object)
        if not nc:
            return [], [], []
        return ([int(x) for x in NcL.sum(axis=1)], [int(x) for x in (NcL * Lo).sum(axis=1)],
                [int(x) for x in (NcL * (Lo * Lo)).sum(axis=1)])

    def _pmask(self, rows: np.ndarray) -> np.ndarray:
        """Power Book mask ``P`` per walk row (int64, shape ``(rows,)``)."""
        P = np.zeros(len(rows), dtype=np.int64)
        for k in range(self.ng):
            P |= rows[:, 1 + k].astype(np.int64) << k
        return P

    def _class_index(self, rows: np.ndarray) -> np.ndarray:
        """Class index ``c`` of each walk row (int64, shape ``(rows,)``); KeyError for an unknown class."""
        b = rows[:, 0]
        P = self._pmask(rows)
        nb = int(b.max(initial=0)) + 1
        lut = np.full((nb, self.nmask), -1, dtype=np.int64)
        pos = {k: i for i, k in enumerate(self.classes)}
        for bb in range(nb):
            for p in range(self.nmask):
                lut[bb, p] = pos.get((self._award(bb), p), -1)
        ci = lut[b, P]
        if len(ci) and int(ci.min()) < 0:
            j = int(np.flatnonzero(ci < 0)[0])
            raise KeyError((self._award(int(b[j])), int(P[j])))
        return ci

    def _reels_showing(self, G: int, P: np.ndarray, plain: np.ndarray, gb: np.ndarray) -> np.ndarray:
        """Reels counted for the expanding symbol per row with golden mask ``G`` (int64)."""
        H = (G | P) if self.immediate else np.full(len(P), G, dtype=np.int64)
        k = plain.astype(np.int64)
        for q in range(self.ng):
            k = k + np.where((H >> q) & 1, 1, gb[:, q])
        return k

    #: highest order of the mixed sums ``L^a E_s^b`` kept for the Power variant
    ORDER = 4

    def _mixed(self, L, n, cls, ks, epay) -> np.ndarray:
        """Float sums ``mix[s][a, b][c, G] = sum L^a E_s^b`` over class ``c`` (``a + b <= ORDER``).

        ``L``, ``n``: line wins and counts per walk row, ``cls`` the row's class,
        ``ks[G]`` the reels counted for ``s`` under golden mask ``G``, ``epay``
        the expansion pay per count.  Returns shape ``(ORDER+1, ORDER+1, classes, 2^ng)``.

        Floats (the integers would overflow int64): every term is non-negative,
        so each sum carries a relative error below ``rows * 2^-53`` (rows < 10^7
        here), far inside the solver's ``REL`` widening.  Rows whose term is
        exactly ``+0.0`` are left out of the sums (adding ``+0.0`` to a
        non-negative sum changes nothing, so the sums are bitwise those over all rows).
        """
        nc = len(self.classes)
        K = self.ORDER
        Lf = L.astype(float) if L.dtype != object else np.array([float(x) for x in L])
        nf = n.astype(float) if n.dtype != object else np.array([float(x) for x in n])
        table = np.array(epay, dtype=float)
        nLa = [nf * Lf ** a for a in range(K + 1)]
        out = np.zeros((K + 1, K + 1, nc, self.nmask))
        for G in range(self.nmask):
            e = table[ks[G]]
            for a in range(K + 1):
                out[a, 0, :, G] = np.bincount(cls, weights=nLa[a] * e ** 0, minlength=nc)
            live = np.flatnonzero(e != 0)
            if not len(live):
                continue
            cl, el = cls[live], e[live]
            for a in range(K + 1):
                w = nLa[a][live]
                for bb in range(1, K + 1 - a):
                    out[a, bb, :, G] = np.bincount(cl, weights=w * el ** bb, minlength=nc)
        return out

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
    def _need_symbol(self, what: str, s: str | None) -> None:
        if what in ("L1", "L2") and s is None and self.literal:
            raise ValueError(f"SpinStats.{what}: under the literal reading the line win depends on the "
                             "expanding symbol; pass s")

    def probs(self) -> np.ndarray:
        return np.array([n / self.cycle for n in self.count])

    def f(self, what: str, s: str | None = None, G: int = 0, r: str | None = None) -> np.ndarray:
        """Float per-class moments ``E[Y; c] / P(c)`` (conditional on the class), total-bet multiples.

        ``what``: ``L1``, ``L2`` (line win while ``s`` expands; ``s`` may be
        None unless :attr:`literal`, where ``ValueError`` is raised), ``E1``,
        ``E2``, ``LE`` (symbol ``s``, golden mask ``G``), ``EE`` (``s``, ``r``).
        """
        self._need_symbol(what, s)
        tb = self.tb
        cnt = np.array(self.count, dtype=float)
        if what == "L1":
            num, sc = (self.sL if s is None else self.sL_s[s]), tb
        elif what == "L2":
            num, sc = (self.sLL if s is None else self.sLL_s[s]), tb * tb
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
        """Unconditional exact mean ``E[Y]`` (total-bet multiples) of L1, L2, E1, E2, LE (see :meth:`f`)."""
        self._need_symbol(what, s)
        tb = self.tb
        if what == "L1":
            return Fraction(sum(self.sL if s is None else self.sL_s[s]), self.cycle * tb)
        if what == "L2":
            return Fraction(sum(self.sLL if s is None else self.sLL_s[s]), self.cycle * tb * tb)
        src = {"E1": (self.sE, tb), "E2": (self.sEE, tb * tb), "LE": (self.sLE, tb * tb)}[what]
        return Fraction(sum(x[G] for x in src[0][s]), self.cycle * src[1])

    @property
    def l(self) -> Fraction:
        return self.exact("L1")

    def r(self, s: str, G: int = 0) -> Fraction:
        return self.exact("E1", s, G)
