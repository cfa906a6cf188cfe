"""Book of Power: regular and Power Free Spins, the Power Bet gamble, the cap.

Rule text: ``/work/shared/seeds/000_4deab7927a3c35bb.txt`` (law for the model).
Notation: all wins in **total-bet multiples**; probabilities are exact
fractions of a reel set's cycle unless said otherwise.

One spin of a feature
---------------------
A free spin shows a window ``w`` drawn from the feature's reel set.  It pays

* the normal line win ``L(w)`` (books substitute; see rule
  ``bop_books_sub_expanding_normal``), then
* for every expanding symbol ``s`` with multiplier ``m_s`` (0 = not
  expanding): ``m_s E_s(w)``, where ``E_s(w) = pay_s(n) * lines / total_bet``
  when ``s`` shows on ``n`` reels with ``n`` at least 2 (high) or 3 (low)
  symbols (books disregarded; a golden reel counts as showing ``s``).

So ``E[X | state] = l + sum_s m_s r_s`` with ``l = E[L]`` and
``r_s = E[E_s]``: both exact by per-reel convolution (``l`` by linearity of
the line win over the 10 identically distributed paylines, MATH.md s.1).
The spin also awards ``A = spins_per_book * (b - 1)`` spins when it shows
``b >= 2`` books, and (Power Free Spins) a set ``P`` of reels 2-4 showing a
Power Book.  The joint law of ``(A, P)`` is exact (per-reel convolution).

Regular Free Spins (MATH.md s.4)
--------------------------------
Expanding symbols are drawn i.i.d. uniformly over the 9 regular symbols: one
at the start and one per award.  After ``j`` awards the draw count of a
symbol is ``Binomial(j + 1, 1/9)`` and its multiplier ``f(count)`` (rule
``bop_repeat_multiplier``).  The draws are independent of the windows, so

    E[W] = sum_j E[N_j] (l + g(j) R),   g(j) = E[f(Binomial(j+1, 1/9))],
    R = sum_s r_s,

with ``N_j`` the number of spins played after exactly ``j`` awards.  ``N_j``
depends only on the walk of (spins left ``K``, awards ``j``): from ``(K, j)``
a spin moves to ``(K - 1 + A, j + [A > 0])``.  The walk is acyclic in
``(j, K)`` order, so the expected visits are one forward sweep.

Power Free Spins (MATH.md s.5)
------------------------------
The state adds the golden reels ``G`` (subset of reels 2-4) and the ladder:
after ``j`` awards the expanding symbol has rank ``rho0 + j`` (``rho0`` the
uniformly drawn start rank); beyond rank 9 the top symbol carries multiplier
``f(rho0 + j - 8)``.  The (``A``, ``P``) law does not depend on the ladder,
so visits of ``(j, G, K)`` are one forward sweep and

    E[W] = sum_{j,G} E[N_{j,G}] (l + (1/9) sum_rho0 m(rho0, j) r_{s(rho0,j)}(G)).

Truncation and certification
----------------------------
The sweep is run to ``J`` awards.  The expected visits entering level
``J + 1`` with ``K`` spins left are known; from there the number of spins
still to play has mean ``K / (1 - E[A])`` (Wald, MATH.md s.3, since the award
law never changes), and each remaining spin has mean win between ``w_lo``
(the truncation level's win rate, win rates only grow with ``j`` and ``G``)
and ``w_hi`` (multiplier 9 on the best symbol, all reels golden).  The sweep
itself runs in fixed point (Python integers scaled by ``2**PREC``, rounded
down, every quantity non-negative), so the computed value is a lower bound
off by at most (number of roundings) x ``2**-PREC`` x (the largest factor
applied afterwards); that is added to the certified error.

Second moments and the cap
--------------------------
The feature win ``W`` is dominated path by path by the win ``W'`` of the same
spins with every symbol expanding at x9 on all golden reels, whose spin pairs
``(X', A)`` are i.i.d., so Wald gives ``E[W'^2] = E[T] Var(X' + c A) +
(E[T] E[X'])^2``.  With ``(L + 9 S)^2 <= 2 L^2 + 162 S^2`` this is an upper
bound of ``E[W^2]``; Jensen gives ``E[W]^2`` below.  The second moment is
reported ``bounded`` (centre of that interval, half its width as error).
The cap uses ``(w - C)+ <= w^2 / (4 C)`` for ``w >= 0``, so
``E[min(W, C)] in [E[W] - E[W^2] / (4 C), E[W]]``.  This is rigorous but
wide; tightening it needs the round's tail (not done yet).

References
----------
MATH.md sections 3-7 (shared notes); Wald's identities for the spin count.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any, Mapping

from analytic.errors import UnboundedFeatureError, UnsupportedMechanicError
from analytic.features.kinds import register_kind
from analytic.features.result import FeatureResult, register_round_solver, register_solver
from analytic.model.game import Game
from analytic.solver.figures import Figure

__all__ = [
    "SpinStats",
    "spin_stats",
    "multiplier_of_count",
    "draw_multiplier_mean",
    "visit_sweep",
    "solve_feature",
    "fair_gamble_probability",
    "solve_book_of_power",
    "PREC",
]

#: Fixed-point precision (bits) of the visit sweep.
PREC = 160
#: Target certified truncation error of a feature mean, total-bet multiples.
TAIL_TARGET = Fraction(1, 10**13)

RULES = {
    "bop_repeat_multiplier": (
        ("count", "count_minus_one"),
        "count",
        "multiplier of an expanding symbol drawn c times (or topped c-1 times): 'count' gives x c "
        "(first repeat x2), 'count_minus_one' gives x max(c-1, 1); capped at 9",
    ),
    "bop_books_sub_expanding_normal": (
        bool,
        True,
        "true: books substitute for the expanding symbol in NORMAL line wins (the rule's 'except' "
        "read as the expansion payout, where books are disregarded); false: they do not",
    ),
    "bop_power_book_retriggers": (
        bool,
        True,
        "whether a Power Book counts as a Book for the +5 spins award in Power Free Spins",
    ),
    "bop_golden_immediate": (
        bool,
        True,
        "whether a reel turned golden counts as golden already in the spin where its Power Book landed",
    ),
    "bop_gamble": (
        ("never", "always"),
        "never",
        "Power Bet: whether the player gambles a regular Free Spins trigger for Power Free Spins",
    ),
    "bop_gamble_count": (
        ("same",),
        "same",
        "a won gamble awards Power Free Spins with the same book count (10/15/20 spins)",
    ),
}


# --------------------------------------------------------------------------
# model validation


def _validate(params: Mapping[str, Any], key: str, ctx) -> dict:
    """Parameters of kind ``book_of_power`` (``variant``, ``spins_per_book``, ...)."""
    p = ctx.table(params, key, allowed=("variant", "spins_per_book", "golden_reels", "gamble_probability"),
                  required=("variant",))
    f = ctx.feature
    if f is None or f.reel_set is None:
        ctx.fail(ctx.join(key, "reels"), "required for kind 'book_of_power'")
    if f.trigger is None:
        ctx.fail(ctx.join(key, "trigger"), "required for kind 'book_of_power'")
    out: dict[str, Any] = {
        "variant": ctx.string(p["variant"], ctx.join(key, "variant"), choices=("regular", "power")),
        "spins_per_book": 5,
        "golden_reels": (),
        "gamble_probability": Fraction(0),
    }
    if "spins_per_book" in p:
        out["spins_per_book"] = ctx.integer(p["spins_per_book"], ctx.join(key, "spins_per_book"), min=1)
    if "golden_reels" in p:
        gk = ctx.join(key, "golden_reels")
        g = p["golden_reels"]
        if out["variant"] != "power":
            ctx.fail(gk, "only for variant 'power'")
        if not isinstance(g, list) or not g:
            ctx.fail(gk, "must be a non-empty list of reel numbers (1-based)")
        out["golden_reels"] = tuple(ctx.integer(x, ctx.join(gk, i), min=1, max=ctx.reels) for i, x in enumerate(g))
    if "gamble_probability" in p:
        out["gamble_probability"] = ctx.fraction(p["gamble_probability"], ctx.join(key, "gamble_probability"),
                                                 min=0)
        if out["gamble_probability"] > 1:
            ctx.fail(ctx.join(key, "gamble_probability"), "must be <= 1")
    return out


register_kind("book_of_power", _validate, rules=RULES)


# --------------------------------------------------------------------------
# per-spin exact statistics


def multiplier_of_count(c: int, reading: str = "count") -> int:
    """Multiplier of an expanding symbol drawn ``c`` times (0 = not expanding).

    Parameters
    ----------
    c : int
        Number of times the symbol was drawn (or reached on the ladder).
    reading : {'count', 'count_minus_one'}
        Rule ``bop_repeat_multiplier``.

    Returns
    -------
    int
        0 for ``c == 0``, else in ``1..9``.

    Examples
    --------
    >>> [multiplier_of_count(c) for c in range(12)]
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9]
    >>> [multiplier_of_count(c, "count_minus_one") for c in range(4)]
    [0, 1, 1, 2]
    """
    if c <= 0:
        return 0
    return min(c if reading == "count" else max(c - 1, 1), 9)


@lru_cache(maxsize=None)
def _binom_row(n: int) -> tuple[Fraction, ...]:
    q = Fraction(1, 9)
    return tuple(Fraction(math.comb(n, k)) * q**k * (1 - q) ** (n - k) for k in range(n + 1))


def draw_multiplier_mean(j: int, reading: str = "count") -> Fraction:
    """``g(j) = E[f(Binomial(j + 1, 1/9))]``: mean multiplier of one symbol after ``j`` awards.

    Examples
    --------
    >>> draw_multiplier_mean(0)
    Fraction(1, 9)
    """
    return sum((p * multiplier_of_count(k, reading) for k, p in enumerate(_binom_row(j + 1))), Fraction(0))


class SpinStats:
    """Exact per-spin figures of one Book of Power feature (free or power free reels).

    Attributes
    ----------
    cycle : int
        Stop combinations of the reel set.
    classes : dict
        ``(A, P) -> count``: awarded spins and the bit mask of golden-eligible
        reels showing a Power Book (bit i = i-th entry of ``golden_reels``).
    l : Fraction
        Mean normal line win, total-bet multiples.
    r : dict
        ``(symbol, G) -> mean expansion payout at x1``, total-bet multiples,
        for every golden mask ``G`` (only ``G = 0`` for the regular variant).
    ordered : list of str
        Regular symbols by rank (1..9).
    mean_award : Fraction
        ``E[A]``.
    """

    def __init__(self, game: Game, feature: str):
        spec = game.features[feature]
        par = spec.params
        self.game, self.feature = game, feature
        self.variant = par["variant"]
        rules = game.rules
        if not rules.get("bop_books_sub_expanding_normal", True):
            raise UnsupportedMechanicError(
                "rule bop_books_sub_expanding_normal = false makes the normal line win depend on the set of "
                "expanding symbols; not solved yet (set it to true)")
        strips = game.reel_sets[spec.reel_set]
        rows = game.rows
        books = {"book"} | ({"power_book"} if rules.get("bop_power_book_retriggers", True)
                            or self.variant == "regular" else set())
        books &= set(game.symbol_names)
        golden = [g - 1 for g in par["golden_reels"]] if self.variant == "power" else []
        self.golden = golden
        self.ng = len(golden)
        immediate = rules.get("bop_golden_immediate", True)
        self.ordered = sorted((s.name for s in game.symbols if s.role == "regular"),
                              key=lambda n: game.symbol(n).value_rank)
        self.cycle = game.cycle(spec.reel_set)
        windows = []
        for strip in strips:
            n = len(strip)
            windows.append([tuple(strip[(s + r) % n] for r in range(rows)) for s in range(n)])
        # (books, P) joint by convolution
        dist = {(0, 0): 1}
        for i, ws in enumerate(windows):
            step: dict = {}
            for w in ws:
                b = sum(c in books for c in w)
                pb = 1 << golden.index(i) if (i in golden and "power_book" in w) else 0
                step[(b, pb)] = step.get((b, pb), 0) + 1
            nd: dict = {}
            for (b0, p0), c0 in dist.items():
                for (b1, p1), c1 in step.items():
                    k = (b0 + b1, p0 | p1)
                    nd[k] = nd.get(k, 0) + c0 * c1
            dist = nd
        spb = par["spins_per_book"]
        self.classes: dict = {}
        for (b, pm), c in dist.items():
            a = spb * (b - 1) if b >= 2 else 0
            self.classes[(a, pm)] = self.classes.get((a, pm), 0) + c
        self.mean_award = Fraction(sum(a * c for (a, _), c in self.classes.items()), self.cycle)
        if self.mean_award >= 1:
            raise UnboundedFeatureError(game.path, f"features.{feature}",
                                        f"mean award {float(self.mean_award):.4f} spins per spin >= 1: the "
                                        "feature would never end in expectation")
        tb = game.total_bet
        nl = len(game.lines)
        # l by linearity: one line's mean pay times the number of lines
        self.l = self._line_mean(windows) * nl / tb
        # r(s, G): per reel P(shows s or golden)
        self.r: dict = {}
        gmasks = range(1 << self.ng)
        for s in self.ordered:
            sym = game.symbol(s)
            need = 2 if sym.tier == "high" else 3
            pays = game.paytable[s]
            for G in gmasks:
                nd = {0: 1}
                for i, ws in enumerate(windows):
                    gold = i in golden and (G >> golden.index(i)) & 1
                    hit = 0
                    for w in ws:
                        if gold or s in w or (immediate and i in golden and "power_book" in w):
                            hit += 1
                    miss = len(ws) - hit
                    nn: dict = {}
                    for k, c in nd.items():
                        nn[k + 1] = nn.get(k + 1, 0) + c * hit
                        nn[k] = nn.get(k, 0) + c * miss
                    nd = nn
                tot = sum(pays.get(k, 0) * c for k, c in nd.items() if k >= need)
                self.r[(s, G)] = Fraction(tot * nl, self.cycle * tb)

    def _line_mean(self, windows) -> Fraction:
        """Mean pay of one payline in line-bet units (exact, per-line enumeration)."""
        from analytic.engine.brute import line_win

        game = self.game
        line = game.lines[0]
        marg = []
        for i, ws in enumerate(windows):
            m: dict = {}
            for w in ws:
                m[w[line[i]]] = m.get(w[line[i]], 0) + 1
            marg.append(m)
        total = 0
        # enumerate symbol tuples on one line
        import itertools

        for combo in itertools.product(*[list(m.items()) for m in marg]):
            cells = [c for c, _ in combo]
            cnt = 1
            for _, n in combo:
                cnt *= n
            pay = line_win(game, cells)[0]
            if pay:
                total += pay * cnt
        return Fraction(total, self.cycle)

    def full_mask(self) -> int:
        return (1 << self.ng) - 1


def spin_stats(game: Game, feature: str) -> SpinStats:
    """Exact per-spin figures of a Book of Power feature (cached per game and feature)."""
    key = (id(game), feature)
    if key not in _STATS:
        _STATS[key] = SpinStats(game, feature)
    return _STATS[key]


_STATS: dict = {}


# --------------------------------------------------------------------------
# the visit sweep (fixed point, certified)


def visit_sweep(stats: SpinStats, n0: int, J: int):
    """Expected spins played per (awards ``j``, golden mask ``G``), ``j <= J``.

    Parameters
    ----------
    stats : SpinStats
    n0 : int
        Spins awarded at the start.
    J : int
        Last award level swept.

    Returns
    -------
    spins : dict
        ``(j, G) -> expected spins`` as Fractions, each a lower bound off by at
        most ``err`` (fixed point rounded down).
    entry : dict
        ``(G, K) -> expected entries into level J + 1`` with ``K`` spins left
        (lower bounds).
    err : Fraction
        Bound of the absolute rounding error of every spins figure and of the
        total entry mass (and of ``sum K * entry``, divided by ``Kmax``).
    kmax : int
    """
    one = 1 << PREC
    cyc = stats.cycle
    cls = [((c << PREC) // cyc, a, pm) for (a, pm), c in sorted(stats.classes.items())]
    ng = 1 << stats.ng
    amax = max(a for _, a, _ in cls)
    kmax = n0 + (J + 1) * max(amax - 1, 0) + 1
    cur = [[0] * (kmax + amax + 2) for _ in range(ng)]
    cur[0][n0] = one
    spins: dict = {}
    rounds = 0
    for j in range(J + 1):
        nxt = [[0] * (kmax + amax + 2) for _ in range(ng)]
        tot = [0] * ng
        top = max((k for g in range(ng) for k in range(len(cur[g])) if cur[g][k]), default=0)
        for k in range(top, 0, -1):
            for g in range(ng):
                x = cur[g][k]
                if not x:
                    continue
                tot[g] += x
                for p, a, pm in cls:
                    v = (x * p) >> PREC
                    rounds += 1
                    if a == 0:
                        cur[g | pm][k - 1] += v
                    else:
                        nxt[g | pm][k - 1 + a] += v
        for g in range(ng):
            spins[(j, g)] = Fraction(tot[g], one)
        cur = nxt
    entry = {(g, k): Fraction(cur[g][k], one) for g in range(ng) for k in range(len(cur[g])) if cur[g][k]}
    # each rounding loses < 2**-PREC of one visit; a lost visit mass at most carries
    # kmax spins' worth of visits forward: error of any spins figure <= rounds * kmax * 2**-PREC
    err = Fraction(rounds * (kmax + 1) * (kmax + amax + 2), one)
    return spins, entry, err, kmax


# --------------------------------------------------------------------------
# feature solver


def _rates(stats: SpinStats, j: int) -> list[Fraction]:
    """Mean spin win after ``j`` awards, per golden mask (total-bet multiples)."""
    reading = stats.game.rules.get("bop_repeat_multiplier", "count")
    ng = 1 << stats.ng
    if stats.variant == "regular":
        R = sum((stats.r[(s, 0)] for s in stats.ordered), Fraction(0))
        return [stats.l + draw_multiplier_mean(j, reading) * R]
    out = []
    for G in range(ng):
        acc = Fraction(0)
        for rho0 in range(1, 10):
            level = rho0 + j
            if level <= 9:
                acc += stats.r[(stats.ordered[level - 1], G)]
            else:
                acc += multiplier_of_count(level - 8, reading) * stats.r[(stats.ordered[-1], G)]
        out.append(stats.l + acc / 9)
    return out


def _rate_hi(stats: SpinStats) -> Fraction:
    """A per-spin mean win no state exceeds (x9 on every symbol's best case)."""
    full = stats.full_mask()
    if stats.variant == "regular":
        return stats.l + 9 * sum((stats.r[(s, 0)] for s in stats.ordered), Fraction(0))
    return stats.l + 9 * max(stats.r[(s, full)] for s in stats.ordered)


def _feature_mean(stats: SpinStats, n0: int):
    """Certified interval of the mean feature win and of the expected spins."""
    mu = stats.mean_award
    J = 24
    while True:
        spins, entry, err_r, kmax = visit_sweep(stats, n0, J)
        lo = Fraction(0)
        nspins = Fraction(0)
        for j in range(J + 1):
            rates = _rates(stats, j)
            for g, w in enumerate(rates):
                lo += spins[(j, g)] * w
                nspins += spins[(j, g)]
        tail_spins = sum((k * x for (g, k), x in entry.items()), Fraction(0)) / (1 - mu)
        rates_next = _rates(stats, J + 1)
        w_lo = Fraction(0)
        tail_lo = sum((k * x * rates_next[g] for (g, k), x in entry.items()), Fraction(0)) / (1 - mu)
        w_hi = _rate_hi(stats)
        nstates = (J + 1) * (1 << stats.ng)
        # rounding: each spins figure and the entry masses are low by <= err_r (per unit of K for entries)
        round_err = err_r * (nstates * w_hi + kmax * len(entry) * w_hi / (1 - mu) + 1) / (1 - mu)
        mean_lo = lo + tail_lo
        mean_hi = lo + tail_spins * w_hi + round_err
        if mean_hi - mean_lo <= TAIL_TARGET or J >= 400:
            break
        J *= 2
    del w_lo
    spins_lo = nspins + tail_spins
    spins_hi = spins_lo + err_r * (nstates + kmax * len(entry) / (1 - mu) + 1) / (1 - mu)
    return (mean_lo, mean_hi), (spins_lo, spins_hi), J


def _interval(lo, hi) -> Figure:
    lo, hi = Fraction(lo), Fraction(hi)
    if lo == hi:
        return Figure(lo)
    return Figure((lo + hi) / 2, "bounded", (hi - lo) / 2)


_MOMENTS: dict = {}


def feature_moments(game: Game, feature: str, count: int):
    """Certified moments of ``feature`` started with ``count`` books (cached per game, feature, count).

    All start counts of a feature are solved together (regular: one set of
    ``V`` tables; Power: one sparse factorisation).
    """
    from analytic.features import book_of_power_solve as S
    from analytic.features.book_of_power_spin import spin_stats as new_stats

    key = (id(game), feature)
    hit = _MOMENTS.get(key)
    if hit is None or hit[0] is not game:
        spec = game.features[feature]
        starts = sorted(set(spec.trigger.counts.values()))
        st = new_stats(game, feature)
        if spec.params["variant"] == "regular":
            mom = S.regular_moments(st, starts)
        else:
            mom = S.power_moments(st, starts)
        hit = _MOMENTS[key] = (game, mom)
    return hit[1][game.features[feature].trigger.counts[count]]


def solve_feature(game: Game, feature: str, count: int, mode: str | None = None) -> FeatureResult:
    """Figures of one Book of Power feature started with ``count`` books.

    Returns
    -------
    FeatureResult
        ``mean``, ``second_moment`` and ``expected_spins`` are certified
        intervals (label ``bounded``): truncation bounded by a dominating
        i.i.d. feature (Wald), floating point by the a-priori / residual
        bounds of :mod:`analytic.features.book_of_power_solve`.
    """
    m = feature_moments(game, feature, count)
    variant = game.features[feature].params["variant"]
    method = ("E[X_t X_u] over (spins left, awards) with exact draw moments, truncation bounded by Wald "
              "(MATH.md s.3-4)" if variant == "regular" else
              "sparse absorbing chain over (ladder level, golden reels, spins left), residual-certified, "
              "truncation bounded by Wald (MATH.md s.5)")
    return FeatureResult(
        feature=feature,
        count=count,
        mean=_interval(max(m.m1_lo, 0), m.m1_hi),
        second_moment=_interval(max(m.m2_lo, 0), m.m2_hi),
        expected_spins=_interval(max(m.s_lo, 0), m.s_hi),
        end_probabilities={"spins exhausted": Figure(Fraction(1))},
        method=method,
        details={"mean_interval": (Fraction(max(m.m1_lo, 0)), Fraction(m.m1_hi)),
                 "second_moment_interval": (Fraction(max(m.m2_lo, 0)), Fraction(m.m2_hi)), **m.info},
    )


register_solver("book_of_power", solve_feature)


# --------------------------------------------------------------------------
# rounds, the gamble, the cap


def _regular_and_power(game: Game) -> tuple[str, str]:
    reg = [n for n, f in game.features.items() if f.kind == "book_of_power" and f.params["variant"] == "regular"]
    pw = [n for n, f in game.features.items() if f.kind == "book_of_power" and f.params["variant"] == "power"]
    return reg[0], pw[0]


def fair_gamble_probability(game: Game, mode: str = "power_bet") -> Figure:
    """Gamble win probability ``q`` making "always gamble" worth "never gamble".

    With the same book count ``n`` (rule ``bop_gamble_count = "same"``),
    "always" pays ``q E[V_power(n)]`` where "never" pays ``E[V_regular(n)]``,
    averaged over the Power Bet's regular-trigger counts, so
    ``q = sum_n p_n V_reg(n) / sum_n p_n V_pow(n)``.

    Returns
    -------
    Figure
        ``bounded`` (the feature means are certified intervals).
    """
    from analytic.solver.base import solve_base

    reg, pw = _regular_and_power(game)
    base = solve_base(game, mode)
    num_lo = num_hi = den_lo = den_hi = Fraction(0)
    for (f, n), c in base.trigger_counts.items():
        if f != reg:
            continue
        a, b = solve_feature(game, reg, n).details["mean_interval"]
        x, y = solve_feature(game, pw, n).details["mean_interval"]
        num_lo += c * a
        num_hi += c * b
        den_lo += c * x
        den_hi += c * y
    return _interval(num_lo / den_hi, num_hi / den_lo)


def solve_book_of_power(game: Game, mode: str | None = None, gamble: str | None = None):
    """Round figures of a Book of Power bet mode, with the gamble and the cap.

    Parameters
    ----------
    game : Game
    mode : str, optional
        Bet mode (default the first).
    gamble : {'never', 'always'}, optional
        Power Bet gamble policy; default rule ``bop_gamble``.  "always"
        replaces every regular Free Spins trigger of a Power Bet round by
        Power Free Spins with probability ``gamble_probability`` (param of the
        regular feature), else nothing.

    Returns
    -------
    RoundResult
        Uncapped figures from :func:`analytic.solver.round.solve_round`
        (mean certified); ``extra["capped_rtp"]`` holds the capped RTP
        interval.  Without a second moment only the trivial interval
        ``[0, E[W]]`` is certified for ``E[min(W, C)]`` (labelled so).
    """
    from dataclasses import replace

    from analytic.solver.round import solve_round

    res = solve_round(game, mode, plain=True)
    m = game.modes[res.mode]
    gamble = gamble or game.rules.get("bop_gamble", "never")
    extra = dict(res.extra)
    mean = res.mean_win
    if gamble == "always" and m.params.get("power") and res.base is not None:
        reg, pw = _regular_and_power(game)
        q = game.features[reg].params["gamble_probability"]
        lo = hi = Fraction(0)
        for (f, n), c in res.base.trigger_counts.items():
            p = Fraction(c, res.base.cycle)
            if f != reg:
                continue
            a, b = solve_feature(game, reg, n).details["mean_interval"]
            x, y = solve_feature(game, pw, n).details["mean_interval"]
            lo += p * (q * x - b)
            hi += p * (q * y - a)
        shift = _interval(lo, hi)
        mean = Figure(mean.value + shift.value, "bounded", mean.error + shift.error)
        extra["gamble_probability"] = q
    extra["gamble"] = gamble
    cap = game.cap.total_bet_multiple if game.cap else None
    rtp = Figure(mean.value / m.cost, mean.label, mean.error / m.cost)
    if cap is not None:
        C = Fraction(cap)
        m2_hi = res.second_moment.value + res.second_moment.error
        # (w - C)+ <= w^2 / (4C) for w >= 0  (w^2 - 4C(w - C) = (w - 2C)^2);  P(W >= C) <= E[W^2] / C^2
        excess = m2_hi / (4 * C)
        lo = (mean.value - mean.error - excess) / m.cost
        hi = (mean.value + mean.error) / m.cost
        capped = _interval(max(lo, 0), hi)
        extra["capped_rtp"] = capped
        extra["p_reach_cap"] = _interval(0, min(m2_hi / (C * C), 1))
        extra["uncapped_rtp"] = rtp
        extra["cap_method"] = ("E[min(W,C)] in [E[W] - E[W^2]/(4C), E[W]], P(W >= C) <= E[W^2]/C^2 "
                               f"(C = {C} total bets); width {float(hi - lo):.3g} of RTP")
        rtp = capped
    return replace(res, mean_win=mean, rtp=rtp, extra=extra)


register_round_solver("book_of_power", lambda game, mode: solve_book_of_power(game, mode))
