"""Player of engine ``drawn_expanding``: free spins drawing expanding symbols at awards, with an optional
ladder of golden reels (e.g. the seed model models/book_of_power.toml, its regular and Power Free Spins).

Written from the rule text of the seed model (its clauses are quoted where they decide a reading; the model file names its source)
and the kind's documented params and rule switches; it shares no code with
the solver.

Books
-----
The *books* are the trigger symbols of the feature; the *Power Books* are
the ``golden_reels.turned_by`` symbols of the game's ladder features.

Rules played (both variants)
----------------------------
* The trigger awards ``counts[n]`` spins (10/15/20) on the feature's reel set.
* A spin pays its normal line wins first: the books are wilds standing in
  for every regular symbol (the simulator's own line evaluator).  Rule
  ``scatter_substitutes_for_expanding_in_line_wins = false``: a book does not stand in for a
  symbol that is currently expanding (its candidate is evaluated without the
  books); ``true`` (default): it does.
* Then, for every expanding symbol ``s`` with multiplier ``m_s``: with ``k``
  the number of reels showing ``s`` (books disregarded; a golden reel counts
  as showing ``s``), when ``k`` reaches the smallest paying count of ``s``
  (2 for high, 3 for low symbols; a regular symbol without pays never pays)
  the spin pays
  ``paytable[s][k] * number of paylines * m_s``.
* A spin showing ``b >= 2`` books awards ``retrigger.per_symbol * (b - 1)`` more
  spins (cells counted).  In Power Free Spins a Power Book counts as a book
  for this unless rule ``golden_symbol_retriggers = false``.
* Changes of the expanding symbols, multipliers and golden reels take effect
  from the following spin (except rule ``golden_immediate``, below).

Draws at each award (no ladder)
    One of the regular symbols (every symbol of role ``regular``) is drawn
    uniformly at the start; each spin that awards spins draws one more,
    uniformly.  A symbol drawn ``c`` times expands with multiplier ``f(c)``:
    rule ``expanding_repeat_multiplier`` ``"count"`` gives ``min(c, M)``,
    ``"count_minus_one"`` gives ``min(max(c - 1, 1), M)``, ``M`` the
    feature's ``expanding_symbol.repeat_multiplier.ceiling`` (default 9, the rule text's ceiling).

Ladder with golden reels (``ladder``, ``golden_reels``)
    One expanding symbol, drawn uniformly at the start; each spin that awards
    spins upgrades it to the next symbol by ``value_rank`` (``ladder.order =
    "rank_descending"``: to the next LOWER one, the ladder's top being the
    lowest rank); at the top it stays and its count grows instead: after reaching the top ``c - 1`` extra
    times it has multiplier ``f(c)`` (below the top: x1).  A Power Book
    landing on a reel of ``golden_reels`` (1-based) turns that reel golden
    for the rest of the feature; rule ``golden_immediate = true``
    (default) makes it count as golden already in the spin it lands in.

Bet-mode gamble (``[modes.NAME] gamble``)
    ``policy = "always"``: in that bet mode, a trigger of ``gamble.feature``
    is gambled: with probability ``gamble.win_probability`` the round plays
    ``gamble.into`` with the same book count (``gamble.count = "same"``),
    else no feature.  The
    prepared regular feature carries ``gamble = (power feature, probability,
    modes)``, played by :mod:`analytic.simulator.rounds`.

A window that starts both variants (books including a Power Book) starts only
the Power Free Spins: the prepared power feature lists the regular ones in
``preempts`` (read by :mod:`analytic.simulator.rounds`).

Wins are in ticks (``1 / tables.denom`` line-bet units).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from analytic.errors import ModelError
from analytic.simulator.evaluate import candidate_line_pays, evaluate_windows, line_symbols, plain
from analytic.simulator.features import FeatureBatch
from analytic.simulator.features.common import block_sizes, feature_params, reel_expansion_pays, retire_limited

__all__ = ["DrawnExpandingFeature", "prepare", "play", "repeat_multiplier"]


@dataclass(frozen=True)
class DrawnExpandingFeature:
    """Parameters of a ``drawn_expanding`` feature (plain data)."""

    reel_set: str
    variant: str  # "regular" | "power"
    spins_per_book: int
    golden_reels: tuple  # 0-based reel indices that a Power Book gilds
    books: tuple  # symbol names counted as books for the +spins award
    power_books: tuple  # Power Book symbol names
    symbols: tuple  # expanding candidates, ascending value rank (a ladder: in its order, the last absorbing)
    repeat: str  # "count" | "count_minus_one"
    max_multiplier: int  # the multiplier ceiling (param max_multiplier)
    books_sub_expanding: bool
    golden_immediate: bool
    segment: int  # spins tried per instance and block (performance only)
    preempts: tuple = ()  # feature names this one replaces when both trigger
    gamble: tuple | None = None  # (target feature, Fraction probability, modes)
    denom: int = 1


def repeat_multiplier(c, reading: str = "count", ceiling: int = 9):
    """Multiplier of an expanding symbol drawn (or topped) ``c`` times; 0 when ``c == 0``.

    ``ceiling``: the feature's ``expanding_symbol.repeat_multiplier.ceiling`` ("may never go above 9").
    Works on ints and numpy arrays.
    """
    c = np.asarray(c)
    m = c if reading == "count" else np.maximum(c - 1, 1)
    return np.where(c > 0, np.minimum(m, ceiling), 0)


ENGINE = "drawn_expanding"


def _power_books(game) -> set:
    """The symbols turning reels golden: ``golden_reels.turned_by`` of the game's ladder features."""
    out = set()
    for f in game.features.values():
        if f.engine == ENGINE and f.params.get("ladder"):
            out |= set(f.params.get("golden_symbols", ()))
    return out


def prepare(game, spec) -> DrawnExpandingFeature:
    """Read the parameters of ``spec`` (a FeatureSpec of engine ``drawn_expanding``).

    Raises
    ------
    ModelError
        A parameter the player cannot use, naming its key path.
    """
    p, key = feature_params(game, spec)
    if spec.trigger is None:
        raise ModelError(game.path, f"{key}.trigger", "required")
    variant = "power" if p.get("ladder") else "regular"  # a ladder (with golden reels), or draws at each award
    rules = plain(game.rules)
    pbooks = _power_books(game)
    books = set(spec.trigger.symbols)
    if variant == "power" and not rules.get("golden_symbol_retriggers", True):
        books -= pbooks
    regular = [s for s in game.symbols if s.role == "regular"]  # every one can be drawn, paying or not
    if any(s.value_rank is None for s in regular):
        if variant == "power":
            raise ModelError(game.path, "symbols", "Power Free Spins need a rank on every regular symbol")
    else:
        regular.sort(key=lambda s: s.value_rank)
    if variant == "power" and p.get("ladder") == "rank_descending":
        regular.reverse()  # the ladder moves down: from the drawn symbol towards the lowest rank
    elif variant == "power" and p.get("ladder") != "rank_ascending":
        raise ModelError(game.path, f"{key}.ladder.order", f"the player knows rank_ascending and rank_descending, "
                                                            f"not {p.get('ladder')!r}")
    golden = tuple(int(r) - 1 for r in p.get("golden_reels", ()) or ())
    preempts, gamble = (), None
    if variant == "power":
        preempts = tuple(n for n, f in game.features.items()
                         if f.engine == ENGINE and not f.params.get("ladder"))
    else:
        gambles = {(g["into"], Fraction(g["win_probability"])): [] for m in game.modes.values()
                   for g in [m.params.get("gamble")] if g and g["policy"] == "always" and g["feature"] == spec.name}
        for m in game.modes.values():
            g = m.params.get("gamble")
            if g and g["policy"] == "always" and g["feature"] == spec.name:
                gambles[(g["into"], Fraction(g["win_probability"]))].append(m.name)
        if len(gambles) > 1:
            raise ModelError(game.path, "modes", f"the modes gambling {spec.name!r} differ in gamble.into or "
                                                 "gamble.win_probability; the simulator plays one gamble per feature")
        for (into, q), modes in gambles.items():
            gamble = (into, q, tuple(modes))
    # expected spins between state changes, for the block size only
    seg = _segment(game, spec.reel_set, books, pbooks if variant == "power" else set())
    return DrawnExpandingFeature(
        reel_set=spec.reel_set,
        variant=variant,
        spins_per_book=int(p["spins_per_symbol"]),
        golden_reels=golden,
        books=tuple(sorted(books)),
        power_books=tuple(sorted(pbooks)),
        symbols=tuple(s.name for s in regular),
        repeat=str(rules.get("expanding_repeat_multiplier", "count")),
        max_multiplier=int(p["max_multiplier"]),
        books_sub_expanding=bool(rules.get("scatter_substitutes_for_expanding_in_line_wins", True)),
        golden_immediate=bool(rules.get("golden_immediate", True)),
        segment=seg,
        preempts=preempts,
        gamble=gamble,
    )


def _segment(game, reel_set, books, pbooks) -> int:
    """Rough number of spins per state change (2 books, or a Power Book), clipped to [2, 32]."""
    p_none = 1.0
    p_le1 = None
    q = []
    pb_none = 1.0
    for strip in game.reel_sets[reel_set]:
        L = len(strip)
        shows = sum(1 for s in range(L) if any(strip[(s + r) % L] in books for r in range(game.rows))) / L
        q.append(shows)
        pb = sum(1 for s in range(L) if any(strip[(s + r) % L] in pbooks for r in range(game.rows))) / L
        pb_none *= 1 - pb
    for x in q:
        p_none *= 1 - x
    p_le1 = p_none + sum(x / (1 - x) * p_none for x in q if x < 1)
    p_change = max(1e-9, 1 - p_le1 + (1 - pb_none))
    return int(min(32, max(2, round(1.5 / p_change))))


def _expansion_pays(tables, names) -> tuple:
    """:func:`reel_expansion_pays` of ``names``; a symbol without pays gets zeros and ``kmin = reels + 1``."""
    paying = [n for n in names if any(v > 0 for v in tables.paytable.get(n, {}).values())]
    pay = np.zeros((len(names), tables.reels + 1), dtype=np.int64)
    kmin = np.full(len(names), tables.reels + 1, dtype=np.int64)
    if paying:
        pp, kk = reel_expansion_pays(tables, paying)
        for j, n in enumerate(paying):
            i = names.index(n)
            pay[i], kmin[i] = pp[j], kk[j]
    return pay, kmin


def _candidate_pays(tables, per_reel, support, mults):
    """Pay of every candidate on every line, in ticks: shape (C, N, L)."""
    return np.stack([candidate_line_pays(tables, c, per_reel, mults, support[c])
                     for c in range(len(tables.cand_names))])


def play(tables, name, prep: DrawnExpandingFeature, counts, awards, rng, max_spins: int = 10**6) -> FeatureBatch:
    """Play ``len(awards)`` drawn-expanding features at once.

    The instances advance together in blocks: each active instance draws up
    to ``prep.segment`` spins with its current state; the spins up to and
    including its first state change (an award, or a new golden reel) are
    kept, the later ones discarded (the windows are i.i.d., and which spins
    are kept depends only on the kept ones).

    Parameters
    ----------
    tables : Tables
    name : str
    prep : DrawnExpandingFeature
    counts : ndarray of int, shape (m,)
        Trigger counts (unused: the award gives the spins).
    awards : ndarray of int, shape (m,)
        Initial spins.
    rng : numpy.random.Generator
    max_spins : int

    Returns
    -------
    FeatureBatch
    """
    m = len(awards)
    R = tables.reels
    S = len(prep.symbols)
    sym_idx = np.array([tables.index(s) for s in prep.symbols], dtype=np.int16)
    # pay of the expansion in ticks, [symbol position, reels counted]; smallest paying count
    exp_pay, kmin = _expansion_pays(tables, prep.symbols)
    book_mask = tables.mask(prep.books)
    pbook_mask = tables.mask(prep.power_books) if prep.power_books else np.zeros(len(tables.symbol_names), bool)
    gild_ok = np.zeros(R, dtype=bool)
    gild_ok[list(prep.golden_reels)] = True
    power = prep.variant == "power"
    # candidates of the expanding symbols, and the support without books (rule books_sub_expanding = false)
    cand_pos = np.full(S, -1)
    for i, s in enumerate(prep.symbols):
        if s in tables.cand_names:
            cand_pos[i] = tables.cand_names.index(s)
    all_books = tables.mask(set(prep.books) | set(prep.power_books))
    support_nobook = tables.cand_support & ~all_books[None, :]

    left = np.asarray(awards, dtype=np.int64).copy()
    played = np.zeros(m, dtype=np.int64)
    win = np.zeros(m, dtype=np.int64)
    limited = np.zeros(m, dtype=bool)
    golden = np.zeros((m, R), dtype=bool)
    if power:
        pos = rng.integers(0, S, size=m)  # rank position (0-based), grows by one per award
    else:
        drawn = np.zeros((m, S), dtype=np.int64)
        drawn[np.arange(m), rng.integers(0, S, size=m)] += 1

    active = np.nonzero(left > 0)[0]
    while active.size:
        block = block_sizes(active, left, played, max_spins, most=prep.segment)
        owner = np.repeat(active, block)
        n = owner.size
        first = np.cumsum(block) - block  # start of each active instance's spins in the block
        w = tables.spin(prep.reel_set, n, rng)
        flat = w.reshape(n, -1)
        # state of each spin (that of its instance at the block start)
        if power:
            p = pos[owner]
            top = S - 1
            sp = np.minimum(p, top)  # symbol position
            mult_s = repeat_multiplier(np.maximum(p - top + 1, 1), prep.repeat, prep.max_multiplier)
            exp_mult = np.zeros((n, S), dtype=np.int64)
            exp_mult[np.arange(n), sp] = mult_s
        else:
            exp_mult = repeat_multiplier(drawn[owner], prep.repeat, prep.max_multiplier).astype(np.int64)
        # golden reels effective in this spin
        lands = pbook_mask[w].any(axis=2) & gild_ok[None, :] if power else np.zeros((n, R), dtype=bool)
        g_eff = golden[owner] | lands if prep.golden_immediate else golden[owner]
        new_gold = lands & ~golden[owner]

        # normal line wins
        if prep.books_sub_expanding:
            ev = evaluate_windows(tables, w)
            spin_win = ev.line_win + ev.scatter_win
        else:
            per_reel, mults = line_symbols(tables, w)
            with_b = _candidate_pays(tables, per_reel, tables.cand_support, mults)
            without = _candidate_pays(tables, per_reel, support_nobook, mults)
            is_exp = np.zeros((len(tables.cand_names), n), dtype=bool)
            for i in range(S):
                if cand_pos[i] >= 0:
                    is_exp[cand_pos[i]] = exp_mult[:, i] > 0
            pays = np.where(is_exp[:, :, None], without, with_b)
            spin_win = pays.max(axis=0).sum(axis=1)
            spin_win += tables.scatter_pays[tables.scatter_mask[flat].sum(axis=1)]
        # expansions
        for i in range(S):
            mi = exp_mult[:, i]
            if not mi.any():
                continue
            k = ((w == sym_idx[i]).any(axis=2) | g_eff).sum(axis=1)
            spin_win += np.where(k >= kmin[i], exp_pay[i, k], 0) * mi

        # awards and state changes
        b = book_mask[flat].sum(axis=1)
        award = np.where(b >= 2, prep.spins_per_book * (b - 1), 0)
        change = (award > 0) | new_gold.any(axis=1)
        # keep each instance's spins up to and including its first change
        idx_in = np.arange(n) - np.repeat(first, block)
        big = 1 << 40  # "no change in this block"
        first_change = np.full(active.size, big)
        np.minimum.at(first_change, np.searchsorted(active, owner), np.where(change, idx_in, big))
        kept_n = np.minimum(block, first_change + 1)
        keep = idx_in < np.repeat(kept_n, block)
        np.add.at(win, owner[keep], spin_win[keep])
        played[active] += kept_n
        left[active] -= kept_n
        # apply the change spin of each instance that has one
        has = first_change < big
        ci = first[has] + first_change[has]  # spin index of the change
        inst = active[has]
        a = award[ci]
        left[inst] += a
        got = a > 0
        if power:
            pos[inst[got]] += 1
            golden[inst] |= new_gold[ci]
        elif got.any():
            drawn[inst[got], rng.integers(0, S, size=int(got.sum()))] += 1
        active = retire_limited(active, left, played, limited, max_spins)
    return FeatureBatch(win, played, limited)
