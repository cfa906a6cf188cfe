"""Shipped games' reel sets visited stop by stop: the solver's tables against a full-cycle brute force (issue 18 item 5).

Every stop combination of a shipped base reel set is visited by a compiled
(numba) loop with its own evaluation code, written from
``docs/model-format.md`` and reading the raw TOML (not the loaded model):

* a payline reads one cell per reel; rule ``line_wild_pay = "highest"`` (the
  rule of every shipped model, asserted): each paying symbol's run is the
  leading cells that are the symbol or a wild standing for it, the line pays
  the highest ``paytable[symbol][run]``; on a tie the test books the longer
  run, then the symbol declared first (the order the solver's table uses).
  The win of every 5-tuple of symbols is worked out once, in Python, before
  the loop; the loop looks each line's tuple up;
* the trigger symbols' (and ``requires`` symbols') visible cells are summed
  over the reels; the feature started is the one with ``requires`` first,
  then the first declared (rule ``simultaneous_triggers``).

Compared integer for integer with :func:`analytic.engine.base_game.solve_base`:
the combination table (hits per symbol, count and multiplier), the trigger
counts per (feature, count), the total line win, and the joint law
``(feature, count, line triggers, spin win) -> combinations`` (which holds
the win distribution and the trigger counts together).  No shipped model has
a ``[scatter]`` table or ``[line_triggers]`` (asserted), so no scatter pays
enter.

Reel sets visited (cycle; seconds measured on the busy 2-core machine, one
``ANALYTIC_SLOW=1`` run; the README gives the total):

* base reel sets: Book of Power ``base`` (1.0e8, 5-8 s, in CI), Secrets of
  Christmas ``base`` (1.5e8, 9-17 s), Book of Power ``power`` (7.8e8, 21-22 s),
  Book of Christmas Eve ``base`` (1.3e9, 33-35 s);
* free spins, against the per-spin tables the feature solvers consume:
  Book of Power's regular Free Spins on ``free`` (1.0e8, 9-13 s, in CI:
  :class:`~analytic.features.engines.drawn_expanding.spin_stats.SpinStats`' classes, line
  and expansion sums), Power Free Spins on ``power_free`` (2.1e10, 45-46 s: the
  classes of award and golden-eligible Power Books only, no line wins),
  Book of Christmas Eve on ``free`` with every Book multiplier (45-58 s),
  Secrets of Christmas on ``free`` per gift class (62-72 s).

No shipped model uses engine ``wald`` (the generic free spins), so its outcome
classes (:mod:`analytic.features.graph.spin_outcomes`) are not checked here (the
differential harness checks the figures built on them, on random games).
"""

from __future__ import annotations

import math
import os
import tomllib
from collections import Counter
from itertools import combinations, product
from pathlib import Path

import numba
import numpy as np
import pytest

from analytic.model.loader import load_model
from analytic.engine.base_game import solve_base

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
SLOW = os.environ.get("ANALYTIC_SLOW") == "1"
slow = pytest.mark.skipif(not SLOW, reason="full-cycle brute force over 1e8-1.3e9 stops: set ANALYTIC_SLOW=1")

WILD_ROLES = ("wild", "wild_scatter")


# ---------------------------------------------------------------------------
# the model, read from the raw TOML


class Raw:
    """What the brute force needs from a model file, read with ``tomllib`` only."""

    def __init__(self, path: Path):
        self.raw = raw = tomllib.loads(path.read_text())
        g = raw["game"]
        self.reels, self.rows = g["reels"], g["rows"]
        self.symbols = list(raw["symbols"])
        self.index = {s: i for i, s in enumerate(self.symbols)}
        self.role = {s: (v if isinstance(v, str) else v["role"]) for s, v in raw["symbols"].items()}
        self.spec = {s: ({} if isinstance(v, str) else v) for s, v in raw["symbols"].items()}
        self.pays = {s: {int(k): v for k, v in t.items()} for s, t in raw["paytable"].items()}
        self.lines = raw["paylines"]["lines"]
        self.rules = raw.get("rules", {})
        self.features = raw.get("features", {})
        self.modes = raw.get("modes", {"base": {"cost": 1, "reels": "base"}})
        #: symbol -> the wild it stands in as besides itself (Secrets of Christmas's wild-symbol gifts)
        self.extra_wild: dict[str, str] = {}

    def strips(self, name: str) -> list[list[str]]:
        v = self.raw["reels"][name]
        v = v["strips"] if isinstance(v, dict) else v
        assert isinstance(v, list), "a CSV reel set: this test reads inline strips only"
        return v

    def stands_for(self, cell: str, sym: str) -> bool:
        """Whether ``cell`` counts as ``sym`` on a payline (``[symbols]`` roles, ``substitutes`` / ``except``)."""
        if cell == sym:
            return True
        if cell in self.extra_wild:
            return self.stands_for(self.extra_wild[cell], sym)
        if self.role[cell] not in WILD_ROLES or self.role[sym] != "regular":
            return False
        sp = self.spec[cell]
        if "substitutes" in sp:
            return sym in sp["substitutes"]
        return sym not in sp.get("except", [])

    def line_win(self, cells: tuple[str, ...]):
        """``(symbol, run, multiplier, pay)`` a payline showing ``cells`` pays, or None (rule ``highest``)."""
        best = None
        for s in self.symbols:
            if not self.pays.get(s):
                continue
            run, mult = 0, 1
            for c in cells:
                if not self.stands_for(c, s):
                    break
                run += 1
                mult *= self.spec[c].get("multiplier", 1)
            pay = self.pays[s].get(run, 0) * mult
            if pay > 0:
                key = (pay, run, -self.index[s])
                if best is None or key > best[0]:
                    best = (key, (s, run, mult, pay))
        return None if best is None else best[1]


# ---------------------------------------------------------------------------
# the compiled loop over every stop combination (5 reels)


@numba.njit(cache=True, nogil=True)
def _visit(part, trig, outcome_of, pay_of, cls_of, nclass, maxwin, nthreads, t):
    """Histograms of one thread's share (first-reel stops ``t, t + nthreads, ...``).

    ``part[k][s, l]``: code of reel ``k``'s cell on line ``l`` at stop ``s``
    (tuple codes add up over the reels); ``trig[k][s]``: reel ``k``'s counter
    code at stop ``s`` (counter codes add up too); ``outcome_of[code]``: the
    line outcome of a tuple code (0 = no win); ``cls_of[code]``: the started
    feature's class of a counter code.
    """
    p0, p1, p2, p3, p4 = part
    g0, g1, g2, g3, g4 = trig
    nlines = p0.shape[1]
    outcomes = np.zeros(pay_of.shape[0], np.int64)
    joint = np.zeros((nclass, maxwin + 1), np.int64)
    base3 = np.empty(nlines, np.int64)
    for a in range(t, p0.shape[0], nthreads):
        for b in range(p1.shape[0]):
            for c in range(p2.shape[0]):
                for d in range(p3.shape[0]):
                    for l in range(nlines):
                        base3[l] = p0[a, l] + p1[b, l] + p2[c, l] + p3[d, l]
                    g = g0[a] + g1[b] + g2[c] + g3[d]
                    for e in range(p4.shape[0]):
                        win = 0
                        for l in range(nlines):
                            o = outcome_of[base3[l] + p4[e, l]]
                            outcomes[o] += 1
                            win += pay_of[o]
                        joint[cls_of[g + g4[e]], win] += 1
    return outcomes, joint


def brute_force(m: Raw, reel_set: str):
    """Visit every stop combination of ``reel_set``.

    Returns
    -------
    combos : Counter
        ``(symbol, count, multiplier) -> (combination, payline) pairs``.
    joint : Counter
        ``(feature or None, count, 0, spin win in line-bet units) -> combinations``.
    """
    strips = m.strips(reel_set)
    assert m.reels == 5 and len(strips) == 5
    n_sym = len(m.symbols)
    # every 5-tuple of symbols -> outcome id (0 = nothing)
    outcomes = [None]
    oid = {}
    outcome_of = np.zeros(n_sym**5, np.int32)
    for tup in product(range(n_sym), repeat=5):
        w = m.line_win(tuple(m.symbols[i] for i in tup))
        if w is None:
            continue
        if w not in oid:
            oid[w] = len(outcomes)
            outcomes.append(w)
        code = 0
        for i in tup:
            code = code * n_sym + i
        outcome_of[code] = oid[w]
    pay_of = np.array([0] + [w[3] for w in outcomes[1:]], np.int64)
    part = []
    for k, strip in enumerate(strips):
        L = len(strip)
        a = np.empty((L, len(m.lines)), np.int64)
        for s in range(L):
            for li, line in enumerate(m.lines):
                a[s, li] = m.index[strip[(s + line[k]) % L]] * n_sym ** (4 - k)
        part.append(a)
    # counters: per triggered feature its trigger cells and required cells
    feats = [(name, f["trigger"]) for name, f in m.features.items() if "trigger" in f]
    sets = []
    for _, t in feats:
        sets.append(set(t["symbols"]))
        sets.append(set(t.get("requires", ())))
    radix = m.reels * m.rows + 1
    trig = []
    for strip in strips:
        L = len(strip)
        trig.append(np.array([sum(sum(1 for r in range(m.rows) if strip[(s + r) % L] in st) * radix**j
                                  for j, st in enumerate(sets)) for s in range(L)], np.int64))
    classes = [(None, 0)]
    cls_of = np.zeros(radix ** len(sets), np.int32)
    for code in range(radix ** len(sets)):
        vals = [(code // radix**j) % radix for j in range(len(sets))]
        met = []
        for i, (name, t) in enumerate(feats):
            cnt, req = vals[2 * i], vals[2 * i + 1]
            if cnt >= min(int(k) for k in t["counts"]) and (not t.get("requires") or req > 0):
                met.append((0 if t.get("requires") else 1, i, name, cnt))
        key = (None, 0)
        if met:
            met.sort()
            key = (met[0][2], met[0][3])
        if key not in classes:
            classes.append(key)
        cls_of[code] = classes.index(key)
    maxwin = int(pay_of.max()) * len(m.lines)
    nthreads = numba.get_num_threads()
    combos: Counter = Counter()
    joint: Counter = Counter()
    # one job per thread, each with its own histograms
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(nthreads) as ex:
        res = list(ex.map(lambda t: _visit(tuple(part), tuple(trig), outcome_of, pay_of, cls_of,
                                           len(classes), maxwin, nthreads, t), range(nthreads)))
    for oc, jt in res:
        for o in range(1, len(outcomes)):
            if oc[o]:
                combos[outcomes[o][:3]] += int(oc[o])
        for c, w in zip(*np.nonzero(jt)):
            joint[(classes[c][0], classes[c][1], 0, int(w))] += int(jt[c, w])
    assert sum(joint.values()) == math.prod(len(s) for s in strips)
    return combos, joint


def _check(stem: str, mode: str):
    path = MODELS_DIR / f"{stem}.toml"
    m = Raw(path)
    assert m.rules.get("line_wild_pay", "highest") == "highest"
    assert "scatter" not in m.raw and "line_triggers" not in m.raw
    assert all(m.role[s] == "regular" for s in m.pays), "wild pays: not written here"
    reel_set = m.modes[mode]["reels"]
    combos, joint = brute_force(m, reel_set)
    base = solve_base(load_model(path), mode)
    got = {(c.symbol, c.count, c.multiplier): c.hits for c in base.combinations if c.hits}
    assert len(combos) > 10 and got == dict(combos)
    trig = Counter()
    for (f, n, _, _), c in joint.items():
        if f is not None:
            trig[(f, n)] += c
    assert {k: v for k, v in base.trigger_counts.items() if v} == dict(trig)
    assert base.line_total == sum(k[3] * c for k, c in joint.items())
    assert {k: v for k, v in base.joint.items() if v} == dict(joint)


#: (model, bet mode, cycle); the README gives the run time.
#: Book of Power's base set (about 8 s) runs in CI, the others with ANALYTIC_SLOW=1.
REEL_SETS = [
    pytest.param("book_of_power", "base", 40**5, id="book_of_power-base"),
    pytest.param("secrets_of_christmas", "base", 43**5, id="secrets_of_christmas-base", marks=slow),
    pytest.param("book_of_power", "power_bet", 42 * 84 * 63 * 84 * 42, id="book_of_power-power_bet", marks=slow),
    pytest.param("book_of_christmas_eve", "base", 65 * 67 * 67 * 68 * 65, id="book_of_christmas_eve-base", marks=slow),
]


@pytest.mark.parametrize("stem,mode,cycle", REEL_SETS)
def test_base_reel_set_brute_force(stem, mode, cycle):
    _check(stem, mode)


# ---------------------------------------------------------------------------
# Book of Power's regular Free Spins: one free spin's outcome classes


@numba.njit(cache=True, nogil=True)
def _visit_free(part, books, shows, outcome_of, pay_of, need, maxwin, maxb, nsym, nthreads, t):
    """One thread's histograms over the free reel set (first-reel stops ``t, t + nthreads, ...``).

    ``books[k][s]``: book cells of reel ``k`` at stop ``s``; ``shows[k][s]``:
    bit ``3 j`` set when symbol ``j`` (of the expanding candidates) shows in
    the window (3 bits per symbol: the sum over 5 reels fits).
    Returns ``line[b, L]``, ``n[j, b, k]``, ``sl[j, b, k]`` (sum of ``L``) and
    ``pair[i, j, b, k_i, k_j]`` for ``k_i >= need[i]``, ``k_j >= need[j]``.
    """
    p0, p1, p2, p3, p4 = part
    b0, b1, b2, b3, b4 = books
    h0, h1, h2, h3, h4 = shows
    nlines = p0.shape[1]
    line = np.zeros((maxb + 1, maxwin + 1), np.int64)
    n = np.zeros((nsym, maxb + 1, 6), np.int64)
    sl = np.zeros((nsym, maxb + 1, 6), np.int64)
    pair = np.zeros((nsym, nsym, maxb + 1, 6, 6), np.int64)
    base3 = np.empty(nlines, np.int64)
    ks = np.empty(nsym, np.int64)
    for a in range(t, p0.shape[0], nthreads):
        for b in range(p1.shape[0]):
            for c in range(p2.shape[0]):
                for d in range(p3.shape[0]):
                    for l in range(nlines):
                        base3[l] = p0[a, l] + p1[b, l] + p2[c, l] + p3[d, l]
                    bk4 = b0[a] + b1[b] + b2[c] + b3[d]
                    sh4 = h0[a] + h1[b] + h2[c] + h3[d]
                    for e in range(p4.shape[0]):
                        win = 0
                        for l in range(nlines):
                            win += pay_of[outcome_of[base3[l] + p4[e, l]]]
                        bk = bk4 + b4[e]
                        sh = sh4 + h4[e]
                        line[bk, win] += 1
                        for j in range(nsym):
                            k = (sh >> (3 * j)) & 7
                            ks[j] = k
                            n[j, bk, k] += 1
                            sl[j, bk, k] += win
                        for i in range(nsym):
                            if ks[i] >= need[i]:
                                for j in range(i + 1, nsym):
                                    if ks[j] >= need[j]:
                                        pair[i, j, bk, ks[i], ks[j]] += 1
    return line, n, sl, pair


def draws_free_brute(m: Raw, feature: str):
    """Every stop combination of a regular Book of Power feature's reel set.

    Returns ``(line, n, sl, pair, regular, need)``: the histograms of
    :func:`_visit_free` summed over the threads, the regular symbols (file
    order) and their smallest paying counts.
    """
    f = m.features[feature]
    strips = m.strips(f["reels"])
    n_sym = len(m.symbols)
    outcome_of = np.zeros(n_sym**5, np.int32)
    pays = [0]
    for tup in product(range(n_sym), repeat=5):
        w = m.line_win(tuple(m.symbols[i] for i in tup))
        if w is not None:
            code = 0
            for i in tup:
                code = code * n_sym + i
            outcome_of[code] = len(pays)
            pays.append(w[3])
    pay_of = np.array(pays, np.int64)
    regular = [s for s in m.symbols if m.role[s] == "regular"]
    need = np.array([min(k for k, v in m.pays[s].items() if v > 0) for s in regular], np.int64)
    books = set(f["trigger"]["symbols"])
    part, bk, sh = [], [], []
    for k, strip in enumerate(strips):
        L = len(strip)
        a = np.empty((L, len(m.lines)), np.int64)
        for s in range(L):
            for li, line in enumerate(m.lines):
                a[s, li] = m.index[strip[(s + line[k]) % L]] * n_sym ** (4 - k)
        part.append(a)
        win = [[strip[(s + r) % L] for r in range(m.rows)] for s in range(L)]
        bk.append(np.array([sum(c in books for c in w) for w in win], np.int64))
        sh.append(np.array([sum(1 << (3 * j) for j, x in enumerate(regular) if x in w) for w in win], np.int64))
    maxb = m.reels * m.rows
    maxwin = int(pay_of.max()) * len(m.lines)
    nthreads = numba.get_num_threads()
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(nthreads) as ex:
        res = list(ex.map(lambda t: _visit_free(tuple(part), tuple(bk), tuple(sh), outcome_of, pay_of, need,
                                                maxwin, maxb, len(regular), nthreads, t), range(nthreads)))
    tot = [sum(r[i] for r in res) for i in range(4)]
    assert int(tot[0].sum()) == math.prod(len(s) for s in strips)
    return (*tot, regular, [int(x) for x in need])


def test_book_of_power_free_spin_classes_brute_force():
    """Book of Power's ``free`` reel set (40^5 = 1.0e8 stops): :class:`SpinStats` of regular Free Spins.

    Per free spin, from the visit: the books ``b`` shown (the trigger's
    symbols, cells), the award ``retrigger.per_symbol * (b - 1)`` for ``b >= 2``,
    the normal line win ``L``, and for every regular symbol the reels showing
    it ``k`` (expansion pay ``paytable[s][k] * lines`` from its smallest
    paying count on).  Compared integer for integer: the classes and their
    weights, ``sum L`` and ``sum L^2`` per class, the law of (award, L), and
    per symbol and class ``sum E``, ``sum E^2``, ``sum L E`` and, per pair of
    symbols, ``sum E_s E_r``.  (The regular variant has no golden reels, so
    the Power Book mask ``P`` is 0; Power Free Spins' classes are
    :func:`test_book_of_power_power_free_spin_classes_brute_force`.)
    """
    from analytic.features.engines.drawn_expanding.spin_stats import SpinStats
    from analytic.model.loader import load_model_text

    path = MODELS_DIR / "book_of_power.toml"
    m = Raw(path)
    f = m.features["free_spins"]
    assert "ladder" not in f and f["expanding_symbol"]["draw"] == "at_each_award"
    line, n, sl, pair, regular, need = draws_free_brute(m, "free_spins")
    # the shipped model reads the substitution clause literally (the books stand in for no expanding
    # symbol): its per-spin statistics are those of the bounding game whose books stand in for every
    # symbol (line_sets.bounding_game "upper"), i.e. the model under the other reading, visited here
    text = path.read_text(encoding="utf-8")
    assert text.count("scatter_substitutes_for_expanding_in_line_wins = false") == 1
    st = SpinStats(load_model_text(text.replace("scatter_substitutes_for_expanding_in_line_wins = false",
                                                "scatter_substitutes_for_expanding_in_line_wins = true"),
                                   path=str(path)), "free_spins")
    spb = f["retrigger"]["per_symbol"]
    nl = len(m.lines)

    def award(b):
        return spb * (b - 1) if b >= 2 else 0

    def epay(s, k):
        return m.pays[s].get(k, 0) * nl if k >= need[regular.index(s)] else 0

    law, count, sL, sLL = Counter(), Counter(), Counter(), Counter()
    for b, L in zip(*np.nonzero(line)):
        c = int(line[b, L])
        law[(award(int(b)), int(L))] += c
        count[award(int(b))] += c
        sL[award(int(b))] += c * int(L)
        sLL[award(int(b))] += c * int(L) ** 2
    assert st.classes == [(a, 0) for a in sorted(count)]
    assert st.count == [count[a] for a, _ in st.classes]
    assert st.sL == [sL[a] for a, _ in st.classes] and st.sLL == [sLL[a] for a, _ in st.classes]
    assert st.line_law == dict(law)
    assert sorted(st.ordered) == sorted(regular)
    for j, s in enumerate(regular):
        sE, sEE, sLE = Counter(), Counter(), Counter()
        for b in range(n.shape[1]):
            for k in range(6):
                e = epay(s, k)
                sE[award(b)] += int(n[j, b, k]) * e
                sEE[award(b)] += int(n[j, b, k]) * e * e
                sLE[award(b)] += int(sl[j, b, k]) * e
        assert st.sE[s] == [[sE[a]] for a, _ in st.classes], s
        assert st.sEE[s] == [[sEE[a]] for a, _ in st.classes], s
        assert st.sLE[s] == [[sLE[a]] for a, _ in st.classes], s
    for i, s in enumerate(regular):
        for j in range(i + 1, len(regular)):
            r = regular[j]
            acc = Counter()
            for b, ki, kj in zip(*np.nonzero(pair[i, j])):
                acc[award(int(b))] += int(pair[i, j, b, ki, kj]) * epay(s, int(ki)) * epay(r, int(kj))
            key = (s, r) if (s, r) in st.sPair else (r, s)
            assert st.sPair[key] == [acc[a] for a, _ in st.classes], key


# ---------------------------------------------------------------------------
# Secrets of Christmas's free spins: one free spin's win per gift class


def _line_win_histogram(m: Raw, strips: list[list[str]]) -> Counter:
    """``line win (line-bet units) -> stop combinations`` over every stop combination of ``strips``."""
    n_sym = len(m.symbols)
    outcome_of = np.zeros(n_sym**5, np.int32)
    pays = [0]
    for tup in product(range(n_sym), repeat=5):
        w = m.line_win(tuple(m.symbols[i] for i in tup))
        if w is not None:
            code = 0
            for i in tup:
                code = code * n_sym + i
            outcome_of[code] = len(pays)
            pays.append(w[3])
    pay_of = np.array(pays, np.int64)
    part, trig = [], []
    for k, strip in enumerate(strips):
        L = len(strip)
        a = np.empty((L, len(m.lines)), np.int64)
        for s in range(L):
            for li, line in enumerate(m.lines):
                a[s, li] = m.index[strip[(s + line[k]) % L]] * n_sym ** (4 - k)
        part.append(a)
        trig.append(np.zeros(L, np.int64))
    maxwin = int(pay_of.max()) * len(m.lines)
    nthreads = numba.get_num_threads()
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(nthreads) as ex:
        res = list(ex.map(lambda t: _visit(tuple(part), tuple(trig), outcome_of, pay_of, np.zeros(1, np.int32),
                                           1, maxwin, nthreads, t), range(nthreads)))
    hist = sum(r[1][0] for r in res)
    return Counter({int(w): int(hist[w]) for w in np.nonzero(hist)[0]})


@slow
def test_secrets_of_christmas_free_spin_classes_brute_force():
    """Secrets of Christmas's ``free`` reel set (35^5 = 5.3e7 stops), every gift class.

    A class is the set of wild reels and of symbols turned wild the picked
    gifts give (rule text: a wild reel shows the wild on every row; a symbol
    turned wild stands in for what the wild stands in for, and still pays as
    itself).  Per class, the law of one free spin's line win (multiplier 1,
    line-bet units) is the histogram of the line wins over the stop
    combinations: a wild reel's strip is read as showing the wild at every
    stop (its length kept, so the weights are stop combinations).  Compared
    integer for integer with the table the feature solver consumes
    (``analytic.features.engines.gift_pick._class_table``), for all 16
    combinations of the model's wild-reel and wild-symbol gifts.
    """
    from analytic.features.engines.gift_pick import _class_table

    path = MODELS_DIR / "secrets_of_christmas.toml"
    game = load_model(path)
    m = Raw(path)
    f = m.features["free_spins"]
    wild = f["gift_pick"]["wild"]
    wreels = sorted(g["value"] for g in f["gift_pick"]["gifts"] if g["effect"] == "wild_reel")
    wsyms = sorted(g["value"] for g in f["gift_pick"]["gifts"] if g["effect"] == "wild_symbol")
    assert wreels and wsyms
    strips = m.strips(f["reels"])
    for nsy in range(len(wsyms) + 1):
        for syms in combinations(wsyms, nsy):
            m.extra_wild = {s: wild for s in syms}
            for nr in range(len(wreels) + 1):
                for reels in combinations(wreels, nr):
                    st = [[wild] * len(strip) if r in reels else strip for r, strip in enumerate(strips, start=1)]
                    want = _line_win_histogram(m, st)
                    got = _class_table(game, "free_spins", tuple(reels), tuple(syms))
                    assert len(want) > 20
                    assert {k: v for k, v in got.items() if v} == dict(want), (reels, syms)


# ---------------------------------------------------------------------------
# Book of Christmas Eve's free spins: one free spin's (line win, expansion) law per special symbol


@numba.njit(cache=True, nogil=True)
def _visit_boce(part, wt, mult, shows, outcome_of, pay_of, epay, nthreads, t):
    """One thread's sums over every combination of (stop, multiplier of each Book reel).

    ``wt[k][s]``: weight of reel ``k``'s virtual stop ``s`` (a window without
    a Book: the multipliers' total weight; a Book window revealing ``m``: the
    weight of ``m``); ``mult[k][s]``: ``m`` (1 without a Book); ``shows[k][s]``:
    3 bits per special-symbol candidate ``j``, 1 when the window shows it or
    is a Book reel; ``epay[j, k]``: the expansion pay of ``j`` on ``k`` reels
    before the Book multipliers.  Returns ``all[L]`` (weight per line win) and
    ``pos[(L, E, j)]`` (weight per line win and positive expansion pay of ``j``),
    keys packed as ``L << 27 | E << 4 | j``.
    """
    p0, p1, p2, p3, p4 = part
    w0, w1, w2, w3, w4 = wt
    m0, m1, m2, m3, m4 = mult
    h0, h1, h2, h3, h4 = shows
    nlines = p0.shape[1]
    nsym = epay.shape[0]
    alll = numba.typed.Dict.empty(key_type=numba.types.int64, value_type=numba.types.int64)
    pos = numba.typed.Dict.empty(key_type=numba.types.int64, value_type=numba.types.int64)
    base3 = np.empty(nlines, np.int64)
    for a in range(t, p0.shape[0], nthreads):
        for b in range(p1.shape[0]):
            for c in range(p2.shape[0]):
                for d in range(p3.shape[0]):
                    for l in range(nlines):
                        base3[l] = p0[a, l] + p1[b, l] + p2[c, l] + p3[d, l]
                    w4_ = w0[a] * w1[b] * w2[c] * w3[d]
                    mp4 = m0[a] * m1[b] * m2[c] * m3[d]
                    sh4 = h0[a] + h1[b] + h2[c] + h3[d]
                    for e in range(p4.shape[0]):
                        win = 0
                        for l in range(nlines):
                            win += pay_of[outcome_of[base3[l] + p4[e, l]]]
                        w = w4_ * w4[e]
                        mp = mp4 * m4[e]
                        sh = sh4 + h4[e]
                        alll[win] = alll.get(win, 0) + w
                        for j in range(nsym):
                            ex = epay[j, (sh >> (3 * j)) & 7] * mp
                            if ex > 0:
                                key = (win << 27) | (ex << 4) | j
                                pos[key] = pos.get(key, 0) + w
    return alll, pos


@slow
def test_book_of_christmas_eve_free_spin_tables_brute_force():
    """Book of Christmas Eve's ``free`` reel set (34^5 = 4.5e7 stops) with every Book reel's multiplier.

    Rule text (``docs/model-format.md``, mechanic ``wild_reels``): in a
    free spin every Book expands over its reel and reveals a multiplier ``m``
    (weights ``multipliers``), independently per reel; the expanded reels are
    wilds whose multipliers multiply along a line's run; then the special
    symbol ``s`` pays ``paytable[s][k] * lines * prod(m)`` when ``k`` = reels
    showing ``s`` or a Book reaches its smallest paying count (rule
    ``wild_reels_expansion = "pays"``: Book reels alone count).  Every
    (stop combination, multiplier of each Book reel) is visited, weighted by
    the multipliers' weights (a reel without a Book by their total, so the
    weights sum to ``cycle * total^5``).  Compared integer for integer, for
    every candidate ``s``, with the table the feature solver consumes
    (``analytic.features.engines.revealed_wild_reels._walk_free_spin_table``:
    ``(line win, expansion win) -> weight``).
    """
    from analytic.features.engines.revealed_wild_reels import _walk_free_spin_table

    path = MODELS_DIR / "book_of_christmas_eve.toml"
    m = Raw(path)
    assert m.rules.get("wild_reels_expansion", "pays") == "pays"
    f = m.features["free_spins"]
    book = f["wild_reels"]["revealed_by"]
    mw = {int(k): v for k, v in f["wild_reels"]["multipliers"].items()}
    wtot = sum(mw.values())
    cands = f["expanding_symbol"]["choose_from"]
    strips = m.strips(f["reels"])
    # the expanded Book reels as wild cells with their multiplier
    for mm in mw:
        name = f"{book}*{mm}"
        m.symbols.append(name)
        m.index[name] = len(m.symbols) - 1
        m.role[name] = m.role[book]
        m.spec[name] = {**m.spec[book], "multiplier": mm}
    windows = []
    for strip in strips:
        L = len(strip)
        out = []
        for s in range(L):
            w = tuple(strip[(s + r) % L] for r in range(m.rows))
            if book in w:
                out += [((f"{book}*{mm}",) * m.rows, v, mm, True) for mm, v in mw.items() if v]
            else:
                out.append((w, wtot, 1, False))
        windows.append(out)
    alpha = sorted({c for ws in windows for w, *_ in ws for c in w}, key=m.index.get)
    ai = {c: i for i, c in enumerate(alpha)}
    na = len(alpha)
    outcome_of = np.zeros(na**5, np.int32)
    pays = [0]
    for tup in product(range(na), repeat=5):
        lw = m.line_win(tuple(alpha[i] for i in tup))
        if lw is not None:
            code = 0
            for i in tup:
                code = code * na + i
            outcome_of[code] = len(pays)
            pays.append(lw[3])
    pay_of = np.array(pays, np.int64)
    nl = len(m.lines)
    part, wt, mult, shows = [], [], [], []
    for k, ws in enumerate(windows):
        part.append(np.array([[ai[w[line[k]]] * na ** (4 - k) for line in m.lines] for w, *_ in ws], np.int64))
        wt.append(np.array([x[1] for x in ws], np.int64))
        mult.append(np.array([x[2] for x in ws], np.int64))
        shows.append(np.array([sum(1 << (3 * j) for j, s in enumerate(cands) if isbook or s in w)
                               for w, _, _, isbook in ws], np.int64))
    minc = [min(k for k, v in m.pays[s].items() if v > 0) for s in cands]
    epay = np.array([[m.pays[s].get(k, 0) * nl if k >= minc[j] else 0 for k in range(8)]
                     for j, s in enumerate(cands)], np.int64)
    nthreads = numba.get_num_threads()
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(nthreads) as ex:
        res = list(ex.map(lambda t: _visit_boce(tuple(part), tuple(wt), tuple(mult), tuple(shows), outcome_of,
                                                pay_of, epay, nthreads, t), range(nthreads)))
    alll, pos = Counter(), [Counter() for _ in cands]
    for a, p in res:
        for k, v in a.items():
            alll[k] += v
        for k, v in p.items():
            pos[k & 15][(k >> 27, (k >> 4) & ((1 << 23) - 1))] += v
    assert sum(alll.values()) == math.prod(len(s) for s in strips) * wtot**5
    game = load_model(path)
    for j, s in enumerate(cands):
        want = Counter({(lw, 0): v for lw, v in alll.items()})
        for (lw, e), v in pos[j].items():
            want[(lw, 0)] -= v
            want[(lw, e)] += v
        got = _walk_free_spin_table(game, "free_spins", s)
        assert len(got) > 100
        assert {k: v for k, v in got.items() if v} == {k: v for k, v in want.items() if v}, s


# ---------------------------------------------------------------------------
# Book of Power's Power Free Spins: the classes (award, golden-eligible Power Books) over 2.1e10 stops


@numba.njit(cache=True, nogil=True)
def _visit_classes(bk, pm, maxb, nmask, nthreads, t):
    """One thread's histogram ``[books, Power Book mask]`` (first-reel stops ``t, t + nthreads, ...``)."""
    b0, b1, b2, b3, b4 = bk
    q0, q1, q2, q3, q4 = pm
    hist = np.zeros((maxb + 1, nmask), np.int64)
    for a in range(t, b0.shape[0], nthreads):
        for b in range(b1.shape[0]):
            for c in range(b2.shape[0]):
                for d in range(b3.shape[0]):
                    bb = b0[a] + b1[b] + b2[c] + b3[d]
                    pp = q0[a] | q1[b] | q2[c] | q3[d]
                    for e in range(b4.shape[0]):
                        hist[bb + b4[e], pp | q4[e]] += 1
    return hist


@slow
def test_book_of_power_power_free_spin_classes_brute_force():
    """Book of Power's ``power_free`` reel set (40 x 235^3 x 40 = 2.1e10 stops): the outcome classes.

    Per free spin of Power Free Spins: the Books shown (cells of the
    trigger's symbols; a Power Book counts under rule
    ``golden_symbol_retriggers = true``), the award ``retrigger.per_symbol * (b - 1)``
    for ``b >= 2``, and the mask ``P`` of golden-eligible reels
    (``golden_reels``, bit ``i`` for the ``i``-th listed) showing a Power
    Book.  Every stop combination is visited (the line wins are not: 10
    lines x 2.1e10 stops is beyond this test's budget).  Compared integer for
    integer with :class:`SpinStats`' ``classes`` and ``count``.
    """
    from analytic.features.engines.drawn_expanding.spin_stats import SpinStats

    path = MODELS_DIR / "book_of_power.toml"
    m = Raw(path)
    f = m.features["power_free_spins"]
    assert f["ladder"] == {"order": "rank_ascending"}
    pbooks = set(f["golden_reels"]["turned_by"])
    books = set(f["trigger"]["symbols"])
    if not m.rules.get("golden_symbol_retriggers", True):
        books -= pbooks
    golden = [g - 1 for g in f["golden_reels"]["reels"]]
    strips = m.strips(f["reels"])
    bk, pm = [], []
    for k, strip in enumerate(strips):
        L = len(strip)
        win = [[strip[(s + r) % L] for r in range(m.rows)] for s in range(L)]
        bk.append(np.array([sum(c in books for c in w) for w in win], np.int64))
        pm.append(np.array([(1 << golden.index(k)) if k in golden and any(c in pbooks for c in w) else 0
                            for w in win], np.int64))
    nthreads = numba.get_num_threads()
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(nthreads) as ex:
        res = list(ex.map(lambda t: _visit_classes(tuple(bk), tuple(pm), m.reels * m.rows, 1 << len(golden),
                                                   nthreads, t), range(nthreads)))
    hist = sum(res)
    assert int(hist.sum()) == math.prod(len(s) for s in strips)
    spb = f["retrigger"]["per_symbol"]
    want = Counter()
    for b, p in zip(*np.nonzero(hist)):
        want[(spb * (int(b) - 1) if b >= 2 else 0, int(p))] += int(hist[b, p])
    st = SpinStats(load_model(path), "power_free_spins")
    assert len(want) > 10 and any(p for _, p in want)
    assert st.classes == sorted(want)
    assert st.count == [want[c] for c in st.classes]
