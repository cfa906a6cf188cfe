"""Engine ``drawn_expanding``: the registered feature solver and the round solver (gamble, win cap).

Rule text: the seed model's (its source named in the model file header); its clauses are quoted where they decide a reading.
Units: **total-bet multiples**; probabilities are exact fractions of a reel
set's cycle unless said otherwise.

Where the method lives
----------------------
* :mod:`analytic.features.engines.drawn_expanding.spin_stats` -- one free spin, exactly: the
  outcome class ``c = (A, P)`` (awarded spins, Power Books on golden-eligible
  reels) and the class-conditional sums of the line win ``L``, the
  expansion pay ``E_s`` per symbol and golden mask, and their products
  (``L^2``, ``E_s^2``, ``L E_s``, ``E_s E_r``), Python integers over the
  cycle from the exact line walk (docs/derivations.md s.2).
* :mod:`analytic.features.engines.drawn_expanding.moments` -- the feature moments:
  regular Free Spins by ``E[X_t X_u]`` sums over (spins left, awards) with
  exact moments of the drawn multipliers (docs/derivations.md s.4); Power Free Spins
  by a sparse absorbing chain over (ladder level, golden mask, spins left)
  (docs/derivations.md s.5).  Both return certified intervals (truncation dominated by
  an i.i.d. feature and Wald's identities, floating point by a-priori
  bounds or a residual certificate).
* this module -- model validation (engine ``drawn_expanding`` and its rules),
  :func:`solve_feature` (the registered feature solver, wrapping the
  intervals as ``bounded`` figures), :func:`fair_gamble_probability`,
  :func:`solve_drawn_expanding_round` (the registered round solver: gamble policy,
  capped RTP interval), and an independent fixed-point sweep of the mean
  (:func:`visit_sweep`, :func:`_feature_mean`) kept as a cross-check of the
  regular feature's mean.

One spin of a feature
---------------------
A free spin pays the normal line win ``L(w)`` (books substitute; rule
``scatter_substitutes_for_expanding_in_line_wins = false``: not for the
expanding symbols, docs/derivations.md s.5: with a ladder exactly, with
drawn symbols the mean exactly and the rest between two bounding games,
:mod:`analytic.features.engines.drawn_expanding.line_sets`), then for every expanding symbol ``s``
with multiplier ``m_s``: ``m_s E_s(w)``, ``E_s = pay_s(n) * lines`` when
``s`` shows on ``n`` reels (golden reels count as showing it; books are
disregarded) with ``n`` at least its smallest paying count (2 for high, 3
for low symbols in the rule text).  It awards ``A = spins_per_book * (b -
1)`` spins for ``b >= 2`` books (the trigger's symbols).

Regular Free Spins
------------------
Expanding symbols are drawn i.i.d. uniformly over the ``S`` regular symbols
(one at the start, one per award; ``S = 9`` in the rule text, the model's
``regular`` symbols here), so after ``j`` awards the multiplier of ``s`` is
``f(Binomial(j + 1, 1/S))`` (rule ``expanding_repeat_multiplier``, capped at the
feature's ``max_multiplier``, 9 in the rule text), independent of the
windows.  Means need only ``g(j) = E f``; second moments the joint
draw moments at two award levels (see ``moments``).

Power Free Spins
----------------
One expanding symbol climbs a ladder (ranks 1..S, then the top symbol at
x2, x3, ... up to ``max_multiplier``) at each award (``ladder.order =
"rank_descending"``: the same ladder over the symbols from the highest rank
down, :func:`ladder_symbols`); a Power Book (the Power
feature's ``trigger.requires``) on a reel of ``golden_reels`` turns that
reel golden for the rest of the feature (rule ``golden_immediate``: already in the
spin where it lands).  State ``(level, golden mask, spins left)``.

The gamble
----------
A bet mode's ``gamble = { feature, into, policy = "always", win_probability
}`` (``[modes.NAME]``): on that mode every trigger of ``feature`` (regular
Free Spins) is replaced, with probability ``win_probability``, by ``into``
(Power Free Spins) with the same book count, else nothing.
:func:`fair_gamble_probability` gives the ``q`` making that neutral:
``q = sum_n p_n E[V_reg(n)] / sum_n p_n E[V_pow(n)]`` (certified interval).

The cap (15,000x)
-----------------
``E[min(R, C)] = E[R] - E[(R - C)+]`` for the round win ``R``.  A base spin
alone never reaches ``C``; a spin of base win ``B`` that starts a feature
with ``n`` books has ``R = B + W_n``.  Per outcome of the base walk
(``BaseResult.joint``):

* Power Free Spins: the exact law of the feature win on the cap's grid
  (:mod:`analytic.features.engines.drawn_expanding.ladder_cap`: backward over (ladder level,
  golden mask, spins left), certified lower-bound masses plus the lost mass
  times ``C``), giving both bounds of ``E[(B + F - C)+] = B + E[F] -
  E[min(B + F, C)]`` and of ``P(B + F >= C)``.
* Power Bet with "always gamble": a regular trigger with ``n`` books is
  Power Free Spins with ``n`` books with probability ``q``, else the base win
  alone, so the round holds no regular feature and its capped mean comes
  from the exact Power law only (width about 1e-6 RTP).
* Regular Free Spins (base, Power Bet "never", buy_free_spins): upper bounds
  the smaller of two:

  - the comonotone mixture of :mod:`analytic.features.engines.drawn_expanding.draw_cap`
    (:func:`~analytic.features.engines.drawn_expanding.draw_cap.regular_cap_mixture`:
    the two most valuable symbols' draw counts exact, the other seven's
    split replaced by its comonotone quantile at 16 or 22 levels placed at
    the quantiles' steps (precision 'standard' or 'certify'; 'quick': 3 levels
    and no lower bound); line wins inside
    the spin law from one joint line walk; a convex-order spread of the win
    on a grid of ``C / 150``, exact direct convolutions; rare states carried
    on as exponential moments and bounded by Chernoff per award count; the
    rarest charged their expected remaining win);
  - the sharp mean-variance bounds from the certified moments
    (:func:`_tail_bounds`): ``E[(R - C)+] <= (sqrt(s^2 + d^2) - d) / 2``
    (Scarf; Lo) and ``P(R >= C) <= s^2 / (s^2 + d^2)`` (Cantelli), ``s^2 =
    Var W``, ``d = C - B - E[W]``, or the tangent bounds ``c_k E[R^k] /
    C^(k-1)``; 1e-3..3e-3 RTP wide on their own.

  Lower bounds (precision 'standard' and 'certify'; 'quick' solves none:
  the cut's lower end 0): the two most valuable symbols' expansions with exact draw
  counts plus the other symbols' conditional mean given the windows and
  their draw count (Jensen), pays rounded down, lower-bound masses
  (:mod:`analytic.features.engines.drawn_expanding.draw_cap_low`).  Measured per trigger
  (10 / 15 / 20 spins, precision 'certify'): the cut lies in [2.29e-5,
  9.0e-5] / [5.4e-5, 2.6e-4] / [1.08e-4, 6.6e-4] bet, and the capped RTP
  intervals are 2.7e-7 / 3.4e-7 / 8.3e-7 / 4.6e-7 wide (base, Power Bet,
  Buy Free Spins, Buy Power Free Spins); 'standard' gives 3.2e-7 / 3.6e-7 /
  9.5e-7 / 4.6e-7 in about two thirds of the time.

The hit frequency
-----------------
``P(a feature wins nothing)`` only needs which symbols expand (regular) or
the expanding symbol and the golden reels (Power), not the multipliers:
:mod:`analytic.features.engines.drawn_expanding.zero_win` bounds it within about 1e-13,
so every mode's hit frequency is certified to that width.

So ``capped_rtp = [E[R] - U, E[R] - U_lo] / cost``; ``cap_method`` states
its width.

References
----------
docs/derivations.md sections 3-8; Wald's identities for the spin count;
Kemeny and Snell, *Finite Markov Chains* (absorbing chains).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache, partial

from analytic.errors import UnboundedFeatureError, UnsupportedMechanicError
from analytic.features.laws.spins_played import hitting_law
from analytic.features.result import (FeatureResult, register_play_check, register_round_prefetch,
                                      register_round_solver, register_solver)
from analytic.model.game import Game, window_count_law
from analytic.figures import Figure
from analytic.workspace import Workspace, workspace_for

__all__ = [
    "SpinStats",
    "spin_stats",
    "multiplier_of_count",
    "draw_multiplier_mean",
    "visit_sweep",
    "solve_feature",
    "spins_law",
    "award_weights",
    "fair_gamble_probability",
    "solve_drawn_expanding_round",
    "round_law_kind",
    "zero_win_bound",
    "PREC",
]

#: Fixed-point precision (bits) of the visit sweep.
PREC = 160
#: Bound the regular feature's cap cut with the comonotone mixture (draw_cap) and the
#: lower-bound law (draw_cap_low) as well as with its two moments (the tighter is kept).
REGULAR_CAP_LAW = True
#: Target certified truncation error of a feature mean, total-bet multiples.
TAIL_TARGET = Fraction(1, 10**13)



#: The rule text's multiplier ceiling ("This multiplier may never go above 9"): the default of the
#: feature parameter ``max_multiplier``.
DEFAULT_MAX_MULTIPLIER = 9
#: The largest ``max_multiplier`` accepted at load: the Power ladder has ``regular symbols + ceiling
#: - 1`` levels and the regular cap bounds follow draw counts up to the ceiling, so their states grow
#: with it; solved and tested up to here (the tiny game's oracles at 1, 5, 9 and 12).
MAX_MULTIPLIER_SUPPORTED = 30


# --------------------------------------------------------------------------
# what the solvers read from the model (no symbol name, count or ceiling is built in)


def regular_symbols(game: Game) -> list[str]:
    """The expanding candidates: every ``regular`` symbol, by ``rank`` when each has one, else in file order.

    The rule text's "9 regular symbols" are the model's regular symbols,
    however many; draws are uniform over them, and the Power ladder climbs
    them by rank (the loader requires a rank on each for variant 'power').
    """
    regular = [s for s in game.symbols if s.role == "regular"]
    if all(s.value_rank is not None for s in regular):
        regular.sort(key=lambda s: s.value_rank)
    return [s.name for s in regular]


def ladder_symbols(game: Game, feature: str) -> list[str]:
    """The ladder's symbols in the order an award moves along them: level 1 first, the last absorbing.

    ``ladder.order = "rank_ascending"``: :func:`regular_symbols` (ascending
    ``rank``, the last the most valuable); ``"rank_descending"``: the same
    reversed (the last the least valuable, where the repeat multiplier then
    grows).  Source: the rule text's Power Free Spins ("upgraded to the next
    more valuable symbol"), docs/model-format.md (mechanic ``ladder``).

    Raises
    ------
    ValueError
        ``feature`` has no ladder, or an order this function does not know.
    """
    order = game.features[feature].params.get("ladder")
    syms = regular_symbols(game)
    if order == "rank_ascending":
        return syms
    if order == "rank_descending":
        return syms[::-1]
    raise ValueError(f"ladder_symbols: feature {feature!r} has ladder order {order!r}")


def power_book_symbols(game: Game) -> frozenset:
    """The Power Books: the ``golden_reels.turned_by`` symbols (= ``trigger.requires``) of the game's ladder features."""
    out: set = set()
    for f in game.features.values():
        if f.engine == ENGINE and f.params.get("ladder"):
            out |= set(f.params["golden_symbols"])
    return frozenset(out)


def book_symbols(game: Game, feature: str) -> frozenset:
    """The symbols counted as Books for the extra-spins award of ``feature``: its trigger's symbols.

    In Power Free Spins the Power Books are left out under rule
    ``golden_symbol_retriggers = false``.
    """
    spec = game.features[feature]
    books = set(spec.trigger.symbols)
    if spec.params["ladder"] and not game.rules.get("golden_symbol_retriggers", True):
        books -= power_book_symbols(game)
    return frozenset(books)


def expansion_need(game: Game, symbol: str) -> int:
    """Reels that must show ``symbol`` for its expansion to pay: its smallest paying count.

    The rule text's "2 for high paying symbols and 3 for low paying symbols"
    are the paytable's (a high symbol pays from 2, a low one from 3); a
    symbol without pays never pays an expansion (``reels + 1``).
    """
    pays = [k for k, v in game.paytable.get(symbol, {}).items() if v > 0]
    return min(pays) if pays else game.reels + 1


def max_multiplier(game: Game, feature: str) -> int:
    """The multiplier ceiling of ``feature`` (parameter ``max_multiplier``, default 9)."""
    return int(game.features[feature].params.get("max_multiplier", DEFAULT_MAX_MULTIPLIER))


# --------------------------------------------------------------------------
# model: engine drawn_expanding (analytic.model.mechanics.engines) builds the parameters read here
# from the mechanics spins (retrigger per_symbol), expanding_symbol (draw at_each_award, repeat
# multiplier ceiling), ladder and golden_reels: "ladder" (an order or None), "spins_per_symbol",
# "golden_reels" (1-based), "golden_symbols", "max_multiplier".

#: The engine this module solves (the key of its solver, round solver and prefetch).
ENGINE = "drawn_expanding"


# --------------------------------------------------------------------------
# per-spin exact statistics


def multiplier_of_count(c: int, reading: str = "count", ceiling: int = DEFAULT_MAX_MULTIPLIER) -> int:
    """Multiplier of an expanding symbol drawn ``c`` times (0 = not expanding).

    Parameters
    ----------
    c : int
        Number of times the symbol was drawn (or reached on the ladder).
    reading : {'count', 'count_minus_one'}
        Rule ``expanding_repeat_multiplier``.
    ceiling : int
        The feature's ``max_multiplier`` (rule text: "may never go above 9").

    Returns
    -------
    int
        0 for ``c == 0``, else in ``1..ceiling``.

    Examples
    --------
    >>> [multiplier_of_count(c) for c in range(12)]
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9]
    >>> [multiplier_of_count(c, "count_minus_one") for c in range(4)]
    [0, 1, 1, 2]
    """
    if c <= 0:
        return 0
    return min(c if reading == "count" else max(c - 1, 1), ceiling)


@lru_cache(maxsize=None)
def _binom_row(n: int, nsym: int) -> tuple[Fraction, ...]:
    q = Fraction(1, nsym)
    return tuple(Fraction(math.comb(n, k)) * q**k * (1 - q) ** (n - k) for k in range(n + 1))


def draw_multiplier_mean(j: int, reading: str = "count", nsym: int = 9,
                         ceiling: int = DEFAULT_MAX_MULTIPLIER) -> Fraction:
    """``g(j) = E[f(Binomial(j + 1, 1/nsym))]``: mean multiplier of one symbol after ``j`` awards.

    ``nsym``: the regular symbols drawn from (9 in the rule text); ``ceiling``
    the feature's ``max_multiplier``.

    Examples
    --------
    >>> draw_multiplier_mean(0)
    Fraction(1, 9)
    """
    return sum((p * multiplier_of_count(k, reading, ceiling) for k, p in enumerate(_binom_row(j + 1, nsym))),
               Fraction(0))


class SpinStats:
    """Exact per-spin figures of one ``drawn_expanding`` feature (drawn symbols or a golden-reel ladder).

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
        Regular symbols by rank (:func:`regular_symbols`); with a ladder, in
        the ladder's order (:func:`ladder_symbols`).
    mean_award : Fraction
        ``E[A]``.
    """

    def __init__(self, game: Game, feature: str):
        spec = game.features[feature]
        par = spec.params
        self.game, self.feature = game, feature
        self.variant = "ladder" if par["ladder"] else "draws"
        rules = game.rules
        #: rule ``scatter_substitutes_for_expanding_in_line_wins = false`` (see the new spin statistics)
        self.literal = not rules.get("scatter_substitutes_for_expanding_in_line_wins", True)
        #: literal reading with drawn expanding symbols: the mean line win of every set of expanding
        #: symbols (:func:`~analytic.features.engines.drawn_expanding.line_sets.set_line_means`)
        self.set_means = None
        if self.literal and self.variant != "ladder":
            from analytic.features.engines.drawn_expanding.line_sets import set_line_means

            self.set_means = set_line_means(game, feature)
        strips = game.reel_sets[spec.reel_set]
        rows = game.rows
        books = book_symbols(game, feature)
        pbooks = power_book_symbols(game)
        golden = [g - 1 for g in par["golden_reels"]] if self.variant == "ladder" else []
        self.golden = golden
        self.ng = len(golden)
        immediate = rules.get("golden_immediate", True)
        #: the ladder's order (:func:`ladder_symbols`) with a ladder, else by rank
        self.ordered = ladder_symbols(game, feature) if self.variant == "ladder" else regular_symbols(game)
        self.ceiling = max_multiplier(game, feature)
        self.reading = rules.get("expanding_repeat_multiplier", "count")
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
                pb = 1 << golden.index(i) if (i in golden and any(c in pbooks for c in w)) else 0
                step[(b, pb)] = step.get((b, pb), 0) + 1
            nd: dict = {}
            for (b0, p0), c0 in dist.items():
                for (b1, p1), c1 in step.items():
                    k = (b0 + b1, p0 | p1)
                    nd[k] = nd.get(k, 0) + c0 * c1
            dist = nd
        spb = par["spins_per_symbol"]
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
        # l by linearity: one line's mean pay times the number of lines; under the literal reading
        # per expanding symbol s (the books not substituting for s): l_s
        self.l = self._line_mean(windows) * nl / tb if not self.literal else None
        if self.set_means is not None:  # the books standing in for every symbol: the largest line mean
            self.l_upper = self.set_means[0]
            self.l_s = {}
        else:
            self.l_s = {s: (self.l if not self.literal else self._line_mean(windows, exclude=s) * nl / tb)
                        for s in self.ordered}
            self.l_upper = self.l if not self.literal else max(self.l_s.values())
        # r(s, G): per reel P(shows s or golden)
        self.r: dict = {}
        gmasks = range(1 << self.ng)
        for s in self.ordered:
            need = expansion_need(game, s)
            pays = game.paytable.get(s, {})
            for G in gmasks:
                nd = {0: 1}
                for i, ws in enumerate(windows):
                    gold = i in golden and (G >> golden.index(i)) & 1
                    hit = 0
                    for w in ws:
                        if gold or s in w or (immediate and i in golden and any(c in pbooks for c in w)):
                            hit += 1
                    miss = len(ws) - hit
                    nn: dict = {}
                    for k, c in nd.items():
                        nn[k + 1] = nn.get(k + 1, 0) + c * hit
                        nn[k] = nn.get(k, 0) + c * miss
                    nd = nn
                tot = sum(pays.get(k, 0) * c for k, c in nd.items() if k >= need)
                self.r[(s, G)] = Fraction(tot * nl, self.cycle * tb)

    def _line_mean(self, windows, exclude: str | None = None) -> Fraction:
        """Mean pay of one payline in line-bet units (exact, per-line enumeration).

        ``exclude``: a regular symbol the wild scatters (books, Power Books) do
        not substitute for (the literal reading, rule
        ``scatter_substitutes_for_expanding_in_line_wins = false``).
        """
        from dataclasses import replace

        from analytic.engine.brute import line_win

        game = self.game
        if exclude is not None:
            books = book_symbols(game, self.feature) | power_book_symbols(game)
            regular = [x.name for x in game.symbols if x.role == "regular"]
            syms = tuple(replace(x, substitutes=frozenset(y for y in (regular if x.substitutes is None
                                                                        else x.substitutes) if y != exclude))
                         if x.is_wild and x.name in books else x for x in game.symbols)
            game = replace(game, symbols=syms)
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

    def line_mean(self, j: int) -> Fraction:
        """Mean line win of a spin after ``j`` awards (total-bet multiples; regular variant).

        Under the literal reading ``E[l_{S(j)}]`` over the set ``S(j)`` of
        expanding symbols drawn so far
        (:func:`~analytic.features.engines.drawn_expanding.line_sets.drawn_line_means`),
        else ``l``.
        """
        if self.set_means is None:
            return self.l
        from analytic.features.engines.drawn_expanding.line_sets import drawn_line_means

        cache = self.__dict__.setdefault("_line_means", [])
        if len(cache) <= j:
            cache[:] = drawn_line_means(self.set_means, len(self.ordered), max(j, 2 * len(cache)))
        return cache[j]


def spin_stats(game: Game, feature: str, ws: Workspace | None = None) -> SpinStats:
    """Exact per-spin figures of a ``drawn_expanding`` feature, kept in the workspace ``ws``.

    ``ws``: the solve's :class:`analytic.workspace.Workspace` of
    ``game`` (None: a fresh one, the figures are computed again).
    """
    return workspace_for(game, ws).memo(("drawn_expanding.spin_stats.v1", feature), lambda: SpinStats(game, feature))


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
    reading, top = stats.reading, stats.ceiling
    ng = 1 << stats.ng
    nsym = len(stats.ordered)
    if stats.variant == "draws":
        R = sum((stats.r[(s, 0)] for s in stats.ordered), Fraction(0))
        return [stats.line_mean(j) + draw_multiplier_mean(j, reading, nsym, top) * R]
    out = []
    for G in range(ng):
        acc = Fraction(0)
        for rho0 in range(1, nsym + 1):  # the start rank, uniform
            level = rho0 + j
            if level <= nsym:
                s = stats.ordered[level - 1]
                acc += stats.l_s[s] + stats.r[(s, G)]
            else:  # the top symbol reached level - nsym + 1 times
                s = stats.ordered[-1]
                acc += stats.l_s[s] + multiplier_of_count(level - nsym + 1, reading, top) * stats.r[(s, G)]
        out.append(acc / nsym)
    return out


def _rate_hi(stats: SpinStats) -> Fraction:
    """A per-spin mean win no state exceeds (the ceiling ``max_multiplier`` on every symbol's best case)."""
    full = stats.full_mask()
    if stats.variant == "draws":
        return stats.l_upper + stats.ceiling * sum((stats.r[(s, 0)] for s in stats.ordered), Fraction(0))
    return max(stats.l_s.values()) + stats.ceiling * max(stats.r[(s, full)] for s in stats.ordered)


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


def feature_moments(game: Game, feature: str, count: int, ws: Workspace | None = None):
    """Certified moments of ``feature`` started with ``count`` books (kept in the workspace ``ws``).

    All start counts of a feature are solved together (regular: one set of
    ``V`` tables; Power: one sparse factorisation).  ``ws``: the solve's
    :class:`analytic.workspace.Workspace` of ``game`` (None: a fresh one).
    """
    from analytic.features.engines.drawn_expanding import moments as S
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats as new_stats

    ws = workspace_for(game, ws)

    def compute():
        from analytic.features.engines.drawn_expanding.line_sets import literal_draws

        spec = game.features[feature]
        starts = sorted(set(spec.trigger.counts.values()))
        if literal_draws(game, feature):
            return _literal_regular_moments(game, feature, starts, ws)
        st = new_stats(game, feature, ws)
        if not spec.params["ladder"]:
            return S.regular_moments(st, starts)
        return S.power_moments(st, starts)

    # the start of ``count`` trigger symbols: the largest listed count not above it (docs, trigger.counts)
    return ws.memo(("drawn_expanding.moments", feature), compute)[game.features[feature].trigger.award(count)]


def set_means(game: Game, feature: str, ws: Workspace | None = None) -> dict:
    """:func:`~analytic.features.engines.drawn_expanding.line_sets.set_line_means`, kept in the workspace ``ws``."""
    from analytic.features.engines.drawn_expanding.line_sets import set_line_means

    return workspace_for(game, ws).memo(("drawn_expanding.literal.sets", feature), lambda: set_line_means(game, feature))


def _literal_regular_moments(game: Game, feature: str, starts, ws: Workspace) -> dict:
    """Moments of a regular feature under the literal reading (rule ``scatter_substitutes_..._line_wins = false``).

    The mean exactly (its line part ``E[l_{S(j)}]`` per award level from the
    set line means, :mod:`~analytic.features.engines.drawn_expanding.line_sets`), the
    second moment between those of the bounding games (books standing in
    for every symbol, resp. for none: ``W_lower <= W <= W_upper`` path by
    path).  Returns ``{start spins: Moments}``.
    """
    from analytic.features.engines.drawn_expanding import moments as S
    from analytic.features.engines.drawn_expanding.line_sets import bounding_workspace, drawn_line_means
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats as new_stats

    wu, wl = bounding_workspace(ws, feature, "upper"), bounding_workspace(ws, feature, "lower")
    stu, stl = new_stats(wu.game, feature, wu), new_stats(wl.game, feature, wl)
    J = 40
    lm = drawn_line_means(set_means(game, feature, ws), len(stu.ordered), J + 1)
    up = S.regular_moments(stu, starts, J=J, line_means=lm)
    low = S.regular_moments(stl, starts, J=J)
    for n0, m in up.items():
        m.m2_lo = min(low[n0].m2_lo, m.m2_lo)
        m.info = {**m.info, "reading": "literal: mean exact over the sets of expanding symbols; second moment "
                  "between the features with the books standing in for every symbol and for none"}
    return up


def solve_feature(game: Game, feature: str, count: int, mode: str | None = None, *,
                  ws: Workspace | None = None) -> FeatureResult:
    """Figures of one ``drawn_expanding`` feature started with ``count`` trigger symbols (books).

    ``ws``: the solve's :class:`analytic.workspace.Workspace` of
    ``game`` (None: a fresh one).

    Returns
    -------
    FeatureResult
        ``mean`` and ``second_moment`` are certified intervals (label
        ``bounded``); ``expected_spins`` is exact (Wald's identity,
        :func:`expected_spins`).  Intervals: truncation bounded by a dominating
        i.i.d. feature (Wald), floating point by the a-priori / residual
        bounds of :mod:`analytic.features.engines.drawn_expanding.moments`.
        ``p_zero_bounds``: ``P(the feature wins nothing)`` within about
        1e-13 (:mod:`analytic.features.engines.drawn_expanding.zero_win`).
        Kept in ``ws`` per ``(feature, count)`` (a round reads it once per
        outcome of its base game); ``mode`` is not read.
    """
    ws = workspace_for(game, ws)
    return ws.memo(("drawn_expanding.feature", feature, int(count)), lambda: _solve_feature(game, feature, count, ws))


def _solve_feature(game: Game, feature: str, count: int, ws: Workspace) -> FeatureResult:
    """:func:`solve_feature`, solved."""
    m = feature_moments(game, feature, count, ws)
    spec = game.features[feature]
    variant = "ladder" if spec.params["ladder"] else "draws"
    method = ("E[X_t X_u] over (spins left, awards) with exact draw moments, truncation bounded by Wald "
              "(docs/derivations.md s.3-4)" if variant == "draws" else
              "sparse absorbing chain over (ladder level, golden reels, spins left), residual-certified, "
              "truncation bounded by Wald (docs/derivations.md s.5)")
    from analytic.features.engines.drawn_expanding.line_sets import literal_draws

    if literal_draws(game, feature):
        method += ("; literal reading (the books stand in for no drawn symbol): the mean exact over the sets of "
                   "expanding symbols, the second moment and P(no win) between the features with the books "
                   "standing in for every symbol and for none (docs/derivations.md s.5)")
    return FeatureResult(
        feature=feature,
        count=count,
        mean=_interval(max(m.m1_lo, 0), m.m1_hi),
        second_moment=_interval(max(m.m2_lo, 0), m.m2_hi),
        expected_spins=Figure(expected_spins(game, feature, count)),
        end_probabilities={"spins exhausted": Figure(Fraction(1))},
        method=method,
        details={"mean_interval": (Fraction(max(m.m1_lo, 0)), Fraction(m.m1_hi)),
                 "second_moment_interval": (Fraction(max(m.m2_lo, 0)), Fraction(m.m2_hi)), **m.info},
        p_zero_max=zero_win_bound(game, feature, ws) ** spec.trigger.award(count),
        p_zero_bounds=_zero_bounds(game, feature, spec.trigger.award(count), ws),
        spins_law_source=partial(hitting_law, spec.trigger.award(count), award_weights(game, feature)),
    )


def award_weights(game: Game, feature: str) -> dict[int, int]:
    """One free spin's award law: spins awarded -> stop combinations of the feature's reel set.

    A window showing ``b >= 2`` cells of the feature's books (:func:`book_symbols`, as landed)
    awards ``spins_per_symbol * (b - 1)`` spins (the classes of :class:`SpinStats`, summed over
    the golden mask); the count per window is convolved over the reels (exact integers), without
    the line walk.
    """
    spec = game.features[feature]
    books = book_symbols(game, feature)
    dist = window_count_law(game.reel_sets[spec.reel_set], game.rows, books)
    spb = spec.params["spins_per_symbol"]
    w: dict[int, int] = {}
    for b, c in dist.items():
        a = spb * (b - 1) if b >= 2 else 0
        w[a] = w.get(a, 0) + c
    return w


def expected_spins(game: Game, feature: str, count: int) -> Fraction:
    """Exact expected spins played by ``feature`` started with ``count`` books: ``K / (1 - mu)``.

    ``K`` the spins the start awards, ``mu`` one spin's expected award
    (:func:`award_weights`, exact integers).  The awards are i.i.d. (they
    depend only on the books a window shows), so Wald's identity gives the
    mean spin count exactly (docs/derivations.md s.3); the loader refuses
    ``mu >= 1``.
    """
    w = award_weights(game, feature)
    mu = Fraction(sum(a * c for a, c in w.items()), sum(w.values()))
    return Fraction(game.features[feature].trigger.award(count)) / (1 - mu)


def spins_law(game: Game, feature: str, count: int, ws: Workspace | None = None):
    """Exact law of the spins played and the retriggers of ``feature`` started with ``count`` books.

    A spin's award depends only on the books it shows on the feature's reel
    set (:func:`award_weights`), never on the drawn symbols, the ladder or
    the golden reels, and the engine has no ceiling on the spins: the
    awards are i.i.d., so the hitting-time theorem applies
    (:func:`analytic.features.laws.spins_played.hitting_law`).  ``ws``:
    unused (the award law needs no walk).
    """
    return hitting_law(game.features[feature].trigger.award(count), award_weights(game, feature))


def _zero_bounds(game: Game, feature: str, spins: int, ws: Workspace):
    """``(lo, hi)`` of P(the feature wins nothing) as fractions, or None where they cannot be had."""
    from analytic.features.engines.drawn_expanding.zero_win import zero_win_probabilities

    from analytic.features.engines.drawn_expanding.line_sets import bounding_workspace, literal_draws

    try:
        if literal_draws(game, feature):  # P(W_upper = 0) <= P(W = 0) <= P(W_lower = 0)
            wu, wl = bounding_workspace(ws, feature, "upper"), bounding_workspace(ws, feature, "lower")
            return (Fraction(zero_win_probabilities(wu.game, feature, wu)[spins][0]),
                    Fraction(zero_win_probabilities(wl.game, feature, wl)[spins][1]))
        return tuple(Fraction(x) for x in zero_win_probabilities(game, feature, ws)[spins])
    except ValueError:  # (a cycle beyond int64 counts): the hit frequency falls back on p_zero_max
        return None


def zero_win_bound(game: Game, feature: str, ws: Workspace | None = None) -> Fraction:
    """``q`` with ``P(a spin of the feature wins nothing | any state) <= q`` (exact fraction).

    A spin wins nothing only if its normal line win is 0 and its expanding
    symbol ``s`` (a state always has one) pays no expansion, which needs
    ``s`` on fewer reels than its minimum count (golden reels only add
    reels).  So ``q = max_s P(L = 0, E_s = 0)`` over the windows, and a
    feature starting with ``n`` spins wins nothing with probability at most
    ``q^n`` (each of the first ``n`` spins must win nothing; given the past,
    each does so with probability at most ``q``).  ``ws``: the solve's
    workspace for ``game`` (None: a fresh one).
    """
    from analytic.features.engines.drawn_expanding.line_sets import bounding_workspace, literal_draws
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats as new_stats

    if literal_draws(game, feature):  # the books standing in for no symbol: the most zero wins
        wl = bounding_workspace(workspace_for(game, ws), feature, "lower")
        st = new_stats(wl.game, feature, wl)
    else:
        st = new_stats(game, feature, ws)
    return Fraction(max(st.zero_weight.values()), st.cycle)


register_solver(ENGINE, solve_feature)

def play_check(game: Game, feature: str):
    """``(key, reason)`` when the engine refuses ``feature`` whatever the mode, else None (see
    :func:`analytic.features.result.register_play_check`): the literal reading of rule
    ``scatter_substitutes_for_expanding_in_line_wins`` for a feature drawing expanding symbols at each
    award whose line wins it does not solve (:func:`line_sets.check_literal_lines`, decided from the
    model alone)."""
    from analytic.features.engines.drawn_expanding.line_sets import RULE, check_literal_lines, literal_draws

    if not literal_draws(game, feature):
        return None
    try:
        check_literal_lines(game, feature)
    except UnsupportedMechanicError as e:
        return (f"rules.{RULE}", str(e))
    return None


register_play_check(ENGINE, play_check)


# --------------------------------------------------------------------------
# rounds, the gamble, the cap


def _regular_and_power(game: Game) -> tuple[str, str]:
    reg = [n for n, f in game.features.items() if f.engine == ENGINE and not f.params["ladder"]]
    pw = [n for n, f in game.features.items() if f.engine == ENGINE and f.params["ladder"]]
    if not reg or not pw:
        raise UnsupportedMechanicError(
            "engine drawn_expanding's round solver (gamble, cap) solves a game with one feature drawing "
            "expanding symbols at each award and one with a ladder and golden reels; this game has "
            f"{len(reg)} and {len(pw)}")
    return reg[0], pw[0]


def round_law_kind(game: Game, mode: str) -> str:
    """What :func:`solve_drawn_expanding_round` gives a bet mode besides its figures, from the model alone.

    Parameters
    ----------
    game : Game
        A game with ``drawn_expanding`` features.
    mode : str
        Bet mode name.

    Returns
    -------
    str
        ``"law"``: a certified law of the round win on the cap's grid
        (``extra["certified_law"]``), for a capped mode buying the feature with a
        ladder; ``"bounds"``: certified bounds of ``P(R >= x)`` at any threshold
        (``extra["round_tail"]``), for every other mode of a capped game;
        ``"none"``: neither (no ``[cap] total_bet_multiple``).  The solver
        decides by this function, so the two cannot disagree.

    Raises
    ------
    UnsupportedMechanicError
        A buy mode of a game without one feature of each kind (as the solve).
    """
    if game.cap is None or game.cap.total_bet_multiple is None:
        return "none"
    m = game.modes[mode]
    if m.buys is not None and m.buys == _regular_and_power(game)[1]:
        return "law"
    return "bounds"


def fair_gamble_probability(game: Game, mode: str = "power_bet", ws: Workspace | None = None) -> Figure:
    """Gamble win probability ``q`` making "always gamble" worth "never gamble".

    With the same book count ``n`` (the mode's ``gamble.count = "same"``),
    "always" pays ``q E[V_power(n)]`` where "never" pays ``E[V_regular(n)]``,
    averaged over the Power Bet's regular-trigger counts, so
    ``q = sum_n p_n V_reg(n) / sum_n p_n V_pow(n)``.

    ``ws``: the solve's workspace for ``game`` (None: a fresh one).

    Returns
    -------
    Figure
        ``bounded`` (the feature means are certified intervals).
    """
    from analytic.engine.base_game import solve_base

    ws = workspace_for(game, ws)
    reg, pw = _regular_and_power(game)
    base = solve_base(game, mode)
    num_lo = num_hi = den_lo = den_hi = Fraction(0)
    for (f, n), c in base.trigger_counts.items():
        if f != reg:
            continue
        a, b = solve_feature(game, reg, n, ws=ws).details["mean_interval"]
        x, y = solve_feature(game, pw, n, ws=ws).details["mean_interval"]
        num_lo += c * a
        num_hi += c * b
        den_lo += c * x
        den_hi += c * y
    return _interval(num_lo / den_hi, num_hi / den_lo)


def solve_drawn_expanding_round(game: Game, mode: str | None = None, gamble: str | None = None, *,
                                plain, ws: Workspace | None = None):
    """Round figures of a bet mode with ``drawn_expanding`` features, with the gamble and the cap.

    Parameters
    ----------
    game : Game
    mode : str, optional
        Bet mode (default the first).
    gamble : {'never', 'always'}, optional
        Gamble policy; default the bet mode's ``gamble.policy`` ("never"
        without a gamble).  "always" replaces every trigger of the mode's
        ``gamble.feature`` by ``gamble.into`` (same trigger count) with
        probability ``gamble.win_probability``, else nothing.
    plain : RoundResult
        The mode's round without cap or gamble
        (``analytic.solver.round.solve_round(game, mode, plain=True)``).
    ws : Workspace, optional
        The solve's workspace for ``game`` (its cap precision preset sets the
        regular cap bounds' levels and eps, its ``workers`` their worker
        processes); None: a fresh one ('standard', one process).

    Returns
    -------
    RoundResult
        Uncapped figures from :func:`analytic.solver.round.solve_round`
        (mean certified); ``extra["capped_rtp"]`` holds the capped RTP
        interval; with a cap, a mode buying the Power feature has its
        round's law in ``extra["certified_law"]`` and every other mode a
        :class:`~analytic.features.engines.drawn_expanding.round_tail.RoundTail`
        in ``extra["round_tail"]`` (certified bounds of ``P(R >= x)`` at any
        threshold, evaluated when asked).  Without a second moment only the trivial interval
        ``[0, E[W]]`` is certified for ``E[min(W, C)]`` (labelled so).
    """
    from dataclasses import replace

    ws = workspace_for(game, ws)
    res = plain
    m = game.modes[res.mode]
    gm = m.params.get("gamble")  # the mode's gamble (loader: from a draws feature into a ladder one)
    gamble = gamble or (gm["policy"] if gm else "never")
    extra = dict(res.extra)
    mean = res.mean_win
    if gamble == "always" and gm is not None and res.base is not None:
        reg, pw = gm["feature"], gm["into"]
        q = gm["win_probability"]
        lo = hi = Fraction(0)
        for (f, n), c in res.base.trigger_counts.items():
            p = Fraction(c, res.base.cycle)
            if f != reg:
                continue
            a, b = solve_feature(game, reg, n, ws=ws).details["mean_interval"]
            x, y = solve_feature(game, pw, n, ws=ws).details["mean_interval"]
            lo += p * (q * x - b)
            hi += p * (q * y - a)
        shift = _interval(lo, hi)
        mean = Figure(mean.value + shift.value, "bounded", mean.error + shift.error)
        extra["gamble_probability"] = q
        res = replace(res, **_gambled_m2_and_hit(game, res, reg, pw, q, ws))
    extra["gamble"] = gamble
    cap = game.cap.total_bet_multiple if game.cap else None
    rtp = Figure(mean.value / m.cost, mean.label, mean.error / m.cost)
    if cap is not None:
        C = Fraction(cap)
        gq = None
        if gamble == "always" and gm is not None and res.base is not None:
            # every regular trigger becomes Power Free Spins (same books) with probability q, else nothing
            gq = gm["win_probability"]
        refused: list = []
        excess, pcap, excess_lo, pcap_lo = _cap_excess(game, res, float(C), exact_power=True, gamble_q=gq, Cx=C,
                                                       refused=refused, ws=ws)
        from analytic.features.engines.drawn_expanding.draw_cap import WITH_LOWER, precision_preset

        preset = precision_preset(ws.precision)
        how = ("Power Free Spins: exact law of the win on the cap's grid, backward over (ladder level, "
               "golden reels, spins left), lower-bound masses, lost mass times C (ladder_cap)"
               + ("; gamble 'always': a regular trigger is Power Free Spins with probability q (that law), "
                  "else the base win alone" if gq is not None else
                  "; regular Free Spins per base outcome (feature, books, base win B): upper bounds "
                  "the smaller of the comonotone mixture (draw_cap: "
                  f"{_tracked_names(game)} draw counts exact, the other symbols' split by its comonotone quantile at "
                  f"{len(preset[2])} levels, precision '{preset[0]}', eps {preset[1]:g}; "
                  "line wins in the spin law, convex-order spread on the cap's grid, rare states by "
                  "Chernoff per award count, the rarest charged their expected remaining win) and the "
                  "sharp mean-variance "
                  "bounds E[(B + W - C)+] <= (sqrt(s^2 + d^2) - d) / 2, P(B + W >= C) <= s^2 / (s^2 + d^2) "
                  "(d = C - B - E[W]); "
                  + ("lower bounds from the two most valuable symbols' expansions "
                     "plus the others' conditional mean (draw_cap_low: Jensen, exact draw counts, "
                     "pays rounded down, lower-bound masses, rare states dropped)" if preset[0] in WITH_LOWER else
                     f"no lower bound at precision '{preset[0]}' (the cut's lower end 0)")))
        ex = Fraction(excess) * Fraction(1 + 10**-12)
        ex_lo = Fraction(excess_lo) * Fraction(1 - 10**-12)
        lo = (mean.value - mean.error - ex) / m.cost
        hi = (mean.value + mean.error - max(ex_lo, Fraction(0))) / m.cost
        capped = _interval(max(lo, 0), hi)
        extra["capped_rtp"] = capped
        extra["p_reach_cap"] = _interval(Fraction(pcap_lo) * Fraction(1 - 10**-12),
                                         min(Fraction(pcap) * Fraction(1 + 10**-12), Fraction(1)))
        extra["uncapped_rtp"] = rtp
        from analytic.features.engines.drawn_expanding.line_sets import literal_draws

        if gq is None and any(literal_draws(game, f) for f, spec in game.features.items() if spec.engine == ENGINE):
            how += ("; literal reading in regular Free Spins: the upper bounds those of the same feature with the "
                    "books standing in for every symbol"
                    + (", the lower bounds with the books standing in for none "
                       "(W_lower <= W <= W_upper path by path, docs/derivations.md s.5)" if preset[0] in WITH_LOWER
                       else " (W <= W_upper path by path, docs/derivations.md s.5)"))
        if refused:
            how += ("; the comonotone mixture refused (too many states) for "
                    + ", ".join(f"{n} spins" for n in sorted(set(refused)))
                    + ": the mean-variance bounds alone there")
        extra["cap_method"] = (f"E[min(R,C)] in [E[R] - U, E[R] - U_lo] with U, U_lo bounds of E[(R - C)+]: "
                               f"{how} (C = {C} total bets); "
                               f"width {float(hi - lo):.3g} of RTP")
        rtp = capped
        if round_law_kind(game, res.mode) == "law":
            extra["certified_law"] = buy_power_law(game, res.mode, ws=ws)
        else:  # no law of the round: bounds of P(R >= x) at any threshold, from the same cap bounds
            from analytic.features.engines.drawn_expanding.round_tail import RoundTail

            extra["round_tail"] = RoundTail(game, res, C, gq, ws)
    return replace(res, mean_win=mean, rtp=rtp, extra=extra)


def _shifted(fig: Figure, lo: Fraction, hi: Fraction) -> Figure:
    """``fig`` plus a shift known to lie in ``[lo, hi]``: exact only when both are."""
    if fig.label == "exact" and lo == hi:
        return Figure(fig.value + lo)
    return Figure(fig.value + (lo + hi) / 2, "bounded", fig.error + (hi - lo) / 2)


def _gambled_m2_and_hit(game: Game, res, reg: str, pw: str, q: Fraction, ws: Workspace) -> dict:
    """The round's second moment and hit frequency under gamble "always" (``res``: the plain round).

    A base spin of win ``b`` starting ``reg`` with ``n`` books plays, with
    probability ``q``, ``pw`` with ``n`` books, else no feature.  Per such
    class (``M`` the mean of its line-triggered bonuses, ``z_o`` their
    chance of winning nothing) the second moment changes by ``q E[P^2] -
    E[G^2] + 2 (b + M) (q E[P] - E[G])`` (``G``, ``P`` the two features'
    wins), and a class with ``b = 0`` changes ``P(R > 0)`` by ``z_o (z_G - 1
    + q (1 - z_P))``.  Every term from the features' certified intervals
    (means, second moments, ``P(win = 0)``), so the shifts are intervals.

    Returns
    -------
    dict
        ``{"second_moment": Figure, "hit_frequency": Figure}``.
    """
    base = res.base
    u = Fraction(1, base.units)
    line_bonus = []
    for counts in game.line_triggers.values():
        for f in counts.values():
            if f not in line_bonus:
                line_bonus.append(f)
    m_lo = m_hi = h_lo = h_hi = Fraction(0)
    for (f, n, lt, win), cnt in base.joint.items():
        if f != reg:
            continue
        p = Fraction(cnt, base.cycle)
        g, pf = solve_feature(game, reg, n, ws=ws), solve_feature(game, pw, n, ws=ws)
        (g1a, g1b), (g2a, g2b) = g.details["mean_interval"], g.details["second_moment_interval"]
        (p1a, p1b), (p2a, p2b) = pf.details["mean_interval"], pf.details["second_moment_interval"]
        Ma = Mb = Fraction(0)
        za = zb = Fraction(1)
        for b in line_bonus if lt else ():
            fr = res.feature_results[(b, 0)]
            Ma += lt * (fr.mean.value - fr.mean.error)
            Mb += lt * (fr.mean.value + fr.mean.error)
            zw = fr.zero_win()
            z0, ze = zw if zw is not None else (Fraction(0), Fraction(1))
            za *= z0**lt
            zb *= min(z0 + ze, Fraction(1)) ** lt
        b = win * u
        m_lo += p * (q * p2a - g2b + 2 * (b + Ma) * q * p1a - 2 * (b + Mb) * g1b)
        m_hi += p * (q * p2b - g2a + 2 * (b + Mb) * q * p1b - 2 * (b + Ma) * g1a)
        if win == 0:
            zg, zp = g.zero_win(), pf.zero_win()
            zga, zgb = (zg[0], zg[0] + zg[1]) if zg is not None else (Fraction(0), Fraction(1))
            zpa, zpb = (zp[0], zp[0] + zp[1]) if zp is not None else (Fraction(0), Fraction(1))
            # z_o (z_G - 1 + q (1 - z_P)): z_o >= 0 times a term of either sign
            t_lo, t_hi = zga - 1 + q * (1 - zpb), zgb - 1 + q * (1 - zpa)
            h_lo += p * min(za * t_lo, zb * t_lo)
            h_hi += p * max(za * t_hi, zb * t_hi)
    return {"second_moment": _shifted(res.second_moment, m_lo, m_hi),
            "hit_frequency": _shifted(res.hit_frequency, h_lo, h_hi)}


#: Entries of the Power feature's capped law at or below this probability are left out (into the error).
LAW_FLOOR = 1e-18


def buy_power_law(game: Game, mode: str, ws: Workspace | None = None) -> dict:
    """The certified law of the capped round win of a mode buying the Power feature.

    The round is the bought feature: the mixture over the mode's
    ``buy_counts`` of the Power feature's capped law per start
    (:class:`~analytic.features.engines.drawn_expanding.ladder_cap.PowerCapLaw`:
    every stored mass a certified lower bound of the true one, wins ``i u``
    below the cap ``C`` and the mass at ``C``).  Entries at or below
    :data:`LAW_FLOOR` are left out.  As every mass is a lower bound, the total
    variation to the true law is exactly the missing mass ``1 - sum``,
    computed in Fractions.

    Returns
    -------
    dict
        ``{"points": {win: probability}, "error": Fraction, "lower_bounds":
        True, "method": str}``: wins in total-bet multiples (Fractions, at
        most ``C``), probabilities Fractions of the stored floats (each a lower
        bound of the true mass), ``error`` the missing mass.
    """
    from collections import defaultdict

    import numpy as np

    from analytic.features.engines.drawn_expanding.ladder_cap import power_cap_law

    m = game.modes[mode]
    law = power_cap_law(game, m.buys, ws=ws)
    step = Fraction(law.u) / Fraction(law.tb)
    tot = sum(m.buy_counts.values())
    pts: dict = defaultdict(Fraction)
    for n, w in m.buy_counts.items():
        if not w:
            continue
        q = Fraction(w, tot)
        h, capm = law.start[game.features[m.buys].trigger.award(n)]
        for i in np.flatnonzero(h > LAW_FLOOR):
            pts[step * int(i)] += q * Fraction(float(h[i]))
        if capm > LAW_FLOOR:
            pts[law.C] += q * Fraction(float(capm))
    err = 1 - sum(pts.values(), Fraction(0))
    return {"points": dict(pts), "error": err, "lower_bounds": True,
            "method": ("the bought Power feature's capped law on the cap's grid (ladder_cap: backward over ladder "
                       "level, golden reels and spins left; every mass a certified lower bound, entries of 1e-18 "
                       "or less left out): the total variation to the true law is the missing mass")}


def _tracked_names(game: Game) -> str:
    """The symbols whose draw counts the regular cap bounds keep exact: the two most valuable."""
    top = regular_symbols(game)[-2:][::-1]
    return " and ".join(top)


_CK = {2: 1 / 4, 3: 4 / 27, 4: 27 / 256}


def _feature_upper_moments(game: Game, feature: str, n: int, ws: Workspace) -> list[float]:
    """Upper bounds of ``E[W^k]``, ``k = 0..kmax`` (4 for Power, 2 for regular)."""
    d = solve_feature(game, feature, n, ws=ws).details
    out = [1.0, float(d["mean_interval"][1]), float(d["second_moment_interval"][1])]
    if "m3_hi" in d:
        out += [float(d["m3_hi"]), float(d["m4_hi"])]
    return out


def _tail_bounds(B: float, mom: list[float], C: float, m1_lo: float = 0.0) -> tuple[float, float]:
    """Upper bounds of ``E[(B + W - C)+]`` and ``P(B + W >= C)`` from moment bounds of ``W``.

    ``mom[k]`` bounds ``E[W^k]`` from above, ``m1_lo <= E[W]``.  Two families,
    the smaller kept:

    * tangent bounds ``c_k E[(B + W)^k] / C^(k-1)`` and Markov ``E[(B + W)^k] / C^k``;
    * the sharp mean-variance bounds (Scarf 1958; Lo 1987; Cantelli):
      ``E[(R - C)+] <= (sqrt(s^2 + d^2) - d) / 2`` and, for ``d > 0``,
      ``P(R >= C) <= s^2 / (s^2 + d^2)``, with ``s^2 = Var R`` and ``d = C - E[R]``.
      Both grow with ``s^2`` and fall with ``d``, so ``s^2 <= mom[2] - m1_lo^2``
      (``Var(B + W) = Var W``) and ``d >= C - B - mom[1]`` give valid bounds.
    """
    from math import comb

    ex, pc = math.inf, 1.0
    for k in range(2, len(mom)):
        rk = sum(comb(k, i) * B ** (k - i) * mom[i] for i in range(k + 1))
        ex = min(ex, _CK[k] * rk / C ** (k - 1))
        pc = min(pc, rk / C ** k)
    # variance bound in exact arithmetic (no cancellation error), nudged up
    s2 = float(Fraction(mom[2]) - Fraction(max(m1_lo, 0.0)) ** 2) * (1 + 1e-12)
    s2 = max(s2, 0.0)
    d = (C - B - mom[1]) - 1e-12 * (abs(C) + abs(B) + abs(mom[1]))
    if d > 0:
        root = math.sqrt(s2 + d * d)
        ex = min(ex, s2 / (2 * (root + d)))  # (root - d) / 2 without cancellation
        pc = min(pc, s2 / (s2 + d * d))
    else:
        ex = min(ex, (math.sqrt(s2 + d * d) - d) / 2)
    return ex * (1 + 1e-12), pc * (1 + 1e-12)


def _cap_excess(game: Game, res, C: float, exact_power: bool = False, gamble_q: Fraction | None = None,
                refused: list | None = None, ws: Workspace | None = None, Cx: Fraction | None = None):
    """Bounds of the round's ``E[(R - C)+]`` and ``P(R >= C)`` (total-bet multiples).

    Returns ``(excess_hi, pcap_hi)``, or with ``exact_power``
    ``(excess_hi, pcap_hi, excess_lo, pcap_lo)``: Power Free Spins outcomes
    then use the exact capped law (:mod:`ladder_cap`),
    ``E[(B + F - C)+] = B + E[F] - E[min(B + F, C)]``, the others the moment
    bounds of :func:`_tail_bounds` (lower bound 0).  With ``gamble_q`` (the
    Power Bet's "always gamble", needs ``exact_power``) a regular trigger with
    ``n`` books is Power Free Spins with ``n`` books with probability ``q``
    and the base win alone otherwise, so no regular feature is played.
    ``refused`` (a list, optional) collects the start spin counts for which
    the comonotone mixture refused (too many states) and the moment bounds
    stood alone.  ``ws``: the solve's workspace for ``game`` (None: a fresh one).  ``Cx``: the cap
    exactly (default ``Fraction(C)``); a base win is compared with it exactly.
    """
    ws = workspace_for(game, ws)
    m = game.modes[res.mode]
    cache: dict = {}
    reg, pw = _regular_and_power(game) if exact_power else (None, None)
    if gamble_q is not None and not exact_power:
        raise ValueError("gamble_q needs exact_power")

    def mom(f, n):
        if (f, n) not in cache:
            cache[(f, n)] = _feature_upper_moments(game, f, n, ws)
        return cache[(f, n)]

    Cx = Fraction(C) if Cx is None else Cx

    def alone(Bx):
        B = float(Bx)
        return (B - C, 1.0, B - C, 1.0) if Bx >= Cx else (0.0, 0.0, 0.0, 0.0)

    def one(f, n, Bx):
        """(excess_hi, p_hi, excess_lo, p_lo) of one outcome (``Bx`` the base win, exact)."""
        B = float(Bx)
        if gamble_q is not None and f == reg:
            q = float(gamble_q)
            won, lost = one(pw, n, Bx), alone(Bx)
            return tuple(q * x + (1 - q) * y for x, y in zip(won, lost))
        if pw is not None and f == pw:
            n0 = game.features[f].trigger.award(n)
            # the base win exactly: the law's cells at or above C - B are decided in Fractions (a float B
            # just below a grid point would leave out the atom at C - B)
            e_lo, e_hi, p_lo, p_hi, _ = power_capped[(n0, Bx)]
            m1_lo, m1_hi = solve_feature(game, f, n, ws=ws).details["mean_interval"]
            return (max(B + float(m1_hi) - e_lo, 0.0) * (1 + 1e-12), p_hi,
                    max(B + float(m1_lo) - e_hi, 0.0) * (1 - 1e-12), p_lo)
        m1_lo = float(solve_feature(game, f, n, ws=ws).details["mean_interval"][0])
        e, q = _tail_bounds(B, mom(f, n), C, m1_lo)
        e_lo = q_lo = 0.0
        if REGULAR_CAP_LAW and not game.features[f].params.get("ladder"):
            if ("regcap", f) not in cache:  # every start at once: the solves run in parallel
                cache[("regcap", f)] = _regular_cap_bounds(game, f, game.features[f].trigger.counts.values(), ws)
                if refused is not None:
                    refused.extend(n0 for n0, (up, _lo) in cache[("regcap", f)].items() if up is None)
            up, low = cache[("regcap", f)][game.features[f].trigger.award(n)]
            if up is not None:  # None: too many states, the moment bounds stand alone (the caller is told)
                e, q = min(e, up.excess(B, C)), min(q, up.p_reach(B, C))
            if low is not None:  # None: too many states, the cut's lower bound stays 0
                e_lo, q_lo = low.excess(B, C), low.p_reach(B, C)
        return e, q, e_lo, q_lo

    # the Power law's capped figures of every outcome that needs them, first: one BLAS thread for
    # all of them (PowerCapLaw.capped's dot products, in fixed halves: no thread woken per call, and
    # the same sums on any machine)
    power_capped: dict = {}
    if pw is not None:
        if res.base is None:
            outcomes = [(m.buys, n, Fraction(0)) for n, w in m.buy_counts.items() if w]
        else:
            outcomes = [(feat, n, Fraction(win, res.base.units)) for (feat, n, _lt, win) in res.base.joint]
        ptrigger = game.features[pw].trigger
        need = sorted(set((ptrigger.award(n), Bx) for f, n, Bx in outcomes
                          if f == pw or (gamble_q is not None and f == reg)))
        if need:
            from threadpoolctl import threadpool_limits

            from analytic.features.engines.drawn_expanding.ladder_cap import power_cap_law

            law = power_cap_law(game, pw, ws=ws)  # built once per workspace, only where the feature occurs
            with threadpool_limits(limits=1, user_api="blas"):
                power_capped = {key: law.capped(*key) for key in need}

    acc = [0.0, 0.0, 0.0, 0.0]
    if res.base is None:
        tot = sum(m.buy_counts.values())
        for n, w in m.buy_counts.items():
            if w:
                for i, v in enumerate(one(m.buys, n, Fraction(0))):
                    acc[i] += w / tot * v
    else:
        b = res.base
        grouped: dict = {}
        for (feat, n, _lt, win), cnt in b.joint.items():
            grouped[(feat, n, win)] = grouped.get((feat, n, win), 0) + cnt
        for (feat, n, win), cnt in grouped.items():
            B = Fraction(win, b.units)
            p = cnt / b.cycle
            if feat is None:
                for i, v in enumerate(alone(B)):
                    acc[i] += p * v
                continue
            for i, v in enumerate(one(feat, n, B)):
                acc[i] += p * v
    out = (acc[0] * (1 + 1e-9), min(acc[1] * (1 + 1e-9), 1.0), acc[2] * (1 - 1e-9), acc[3] * (1 - 1e-9))
    return out if exact_power else out[:2]


def prefetch_modes(game: Game, modes, *, ws: Workspace | None = None) -> None:
    """Before the modes are solved: the regular cap bounds beside the work that does not wait for them.

    The regular Free Spins' cap bounds run in worker processes
    (:func:`~analytic.features.engines.drawn_expanding.draw_bounds.regular_cap_bounds`);
    meanwhile this process does :func:`bound_free_work`: the Power Free
    Spins' capped law (:func:`~analytic.features.engines.drawn_expanding.ladder_cap.power_cap_law`)
    where a mode needs it (a Power Bet mode, ``gamble``, or one buying the
    Power feature), then the features' moments and zero-win laws.  All of it
    is kept in the workspace ``ws`` (:class:`analytic.workspace.Workspace`
    of ``game``), so the modes solved with it then find it; every piece is
    computed as the mode's own solve computes it, so no figure changes, only
    the wall time (a base mode alone: its moments and zero-win laws no longer
    wait for the bounds, nor they for them).  Done only when a mode needs the
    regular cap bounds (base spins whose regular triggers are played, not
    gambled under policy "always", or buying the regular feature) and the
    game has a cap in total bets (a currency cap alone: the round solver
    refuses the mode, nothing to prefetch).
    """
    ws = workspace_for(game, ws)
    if game.cap is None or game.cap.total_bet_multiple is None or not REGULAR_CAP_LAW:
        return
    reg, pw = _regular_and_power(game)
    ms = [game.modes[name] for name in modes]

    def plays_regular(m) -> bool:
        # (a regular trigger gambled under "always" becomes Power Free Spins or nothing: _cap_excess,
        # RoundTail; the regular feature's cut is never bounded for that mode)
        gm = m.params.get("gamble")
        return m.buys == reg or (m.buys is None and not (gm and gm["policy"] == "always"))

    if not any(plays_regular(m) for m in ms):
        return
    power = pw if any(m.buys == pw or m.params.get("gamble") for m in ms) else None
    # the Power law takes about as long as the bounds' jobs: this process keeps a core for it; without
    # it the meanwhile is short and the pool gets every core
    _regular_cap_bounds(game, reg, game.features[reg].trigger.counts.values(), ws,
                        meanwhile=lambda: bound_free_work(game, reg, power, ws), meanwhile_core=power is not None)


def _regular_cap_bounds(game: Game, feature: str, starts, ws: Workspace, meanwhile=None,
                        meanwhile_core: bool = True) -> dict:
    """:func:`~analytic.features.engines.drawn_expanding.draw_bounds.regular_cap_bounds`, either reading.

    Under the literal reading (drawn expanding symbols) the upper bounds are
    those of the bounding game whose books stand in for every symbol, the
    lower bounds those of the one whose books stand in for none
    (:mod:`~analytic.features.engines.drawn_expanding.line_sets`: ``W_lower <= W <=
    W_upper`` path by path, and ``(B + w - C)+``, ``1{B + w >= C}`` grow with ``w``).
    ``meanwhile``, ``meanwhile_core``: as in
    :func:`~analytic.features.engines.drawn_expanding.draw_bounds.regular_cap_bounds_together`.
    """
    from analytic.features.engines.drawn_expanding.draw_bounds import regular_cap_bounds_together
    from analytic.features.engines.drawn_expanding.draw_cap import WITH_LOWER
    from analytic.features.engines.drawn_expanding.line_sets import bounding_workspace, literal_draws

    lower = ws.precision in WITH_LOWER  # (precision 'quick': no lower bound, the cut's lower end 0)
    if not literal_draws(game, feature):
        return regular_cap_bounds_together([(feature, starts, ws, ("upper", "lower") if lower else ("upper",))],
                                           meanwhile=meanwhile, meanwhile_core=meanwhile_core)[0]
    wu = bounding_workspace(ws, feature, "upper")
    tasks = [(feature, starts, wu, ("upper",))]
    if lower:
        tasks.append((feature, starts, bounding_workspace(ws, feature, "lower"), ("lower",)))
    # both games' solves in one pool (the upper bounds' run beside the lower bounds), this process
    # meanwhile on ``meanwhile``: every job is solved as it would be alone, so the figures are the same
    out = regular_cap_bounds_together(tasks, meanwhile=meanwhile, meanwhile_core=meanwhile_core)
    up = out[0]
    return {n0: (up[n0][0], out[1][n0][1] if lower else None) for n0 in up}


def bound_free_work(game: Game, reg: str, pw: str | None, ws: Workspace | None = None) -> None:
    """The work of the modes that does not wait for the regular cap bounds (all of it kept in ``ws``).

    The Power Free Spins' capped law
    (:func:`~analytic.features.engines.drawn_expanding.ladder_cap.power_cap_law`; ``pw`` None:
    no Power feature needed, nothing of it), then the features' moments
    (:func:`feature_moments`) and zero-win laws: what this process does while
    the worker processes solve the regular cap bounds.
    ``ws``: the solve's workspace for ``game`` (None: a fresh one).
    """
    from analytic.features.engines.drawn_expanding.ladder_cap import power_cap_law

    ws = workspace_for(game, ws)
    if pw is not None:
        power_cap_law(game, pw, ws=ws, threads=1)  # (the worker processes have the other cores)
    for f in [f for f in (pw, reg) if f is not None]:
        for books, spins in sorted(game.features[f].trigger.counts.items())[:1]:
            feature_moments(game, f, books, ws)  # (all starts at once)
            _zero_bounds(game, f, spins, ws)


register_round_solver(ENGINE, lambda game, mode, *, plain, ws=None: solve_drawn_expanding_round(
    game, mode, plain=plain, ws=ws))
register_round_prefetch(ENGINE, prefetch_modes)
