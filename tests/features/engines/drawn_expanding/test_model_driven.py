"""Book of Power: everything from the model (issue 18, items 2 and 3).

No symbol name, regular-symbol count or multiplier ceiling is built into the
solvers or the simulator's player: the tiny game of
``test_drawn_oracles`` is varied (every symbol renamed; parameter
``max_multiplier``; two regular symbols fewer; rule ``count_minus_one``) and
solved against oracles written here, which take the Books, the ranks, the
ceiling and the symbol count from a spec the test states itself (never from
the solver), and enumerate windows and feature paths with their own code.
What the solvers cannot take is refused at load, with the key path.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

import test_drawn_oracles as base
from analytic.errors import ModelError
from analytic.model import load_model_text

ORDER = tuple(base.ORDER)  # the tiny game's regular symbols by rank

from analytic.solver.round import solve_round as _solve_round


def _plain_round(game, mode, workspace=None):
    """The mode's round without cap or gamble (what the round solver hands its delegate)."""
    return _solve_round(game, mode, plain=True, workspace=workspace)


@dataclass(frozen=True)
class Spec:
    """What an oracle knows of a variant of the tiny game (stated by the test)."""

    order: tuple = ORDER          # regular symbols by rank
    books: frozenset = frozenset({"book", "power_book"})   # the Books (wild in line wins)
    power_books: frozenset = frozenset({"power_book"})
    ceiling: int = 9              # expanding_symbol.repeat_multiplier.ceiling
    reading: str = "count"        # expanding_repeat_multiplier
    golden: tuple = (1, 2, 3)     # 0-based golden-eligible reels

    def mult(self, c: int) -> int:
        if c <= 0:
            return 0
        return min(c if self.reading == "count" else max(c - 1, 1), self.ceiling)

    def rename(self, names: dict) -> "Spec":
        return Spec(tuple(names[s] for s in self.order), frozenset(names[b] for b in self.books),
                    frozenset(names[b] for b in self.power_books), self.ceiling, self.reading, self.golden)


# --------------------------------------------------------------------------
# variants of the tiny game (text edits of its TOML)

#: every symbol renamed (also the Books); ranks and roles unchanged
RENAME = {"ten": "ruby", "jack": "opal", "queen": "jade", "king": "onyx", "ace": "pearl", "beetle": "scarab",
          "statue": "sphinx", "pharaoh": "ramses", "explorer": "adventurer", "book": "tome",
          "power_book": "seal"}


def _text(cap: int = 10**6) -> str:
    return base.TINY.replace("CAP", str(cap))


def renamed_text(text: str, names: dict = RENAME) -> str:
    """The TOML with every symbol name replaced (whole words: ``power_book`` is not ``book``)."""
    pat = re.compile(r"\b(" + "|".join(sorted(names, key=len, reverse=True)) + r")\b")
    return pat.sub(lambda m: names[m.group(1)], text)


def with_ceiling(text: str, ceiling: int) -> str:
    """Both features with ``expanding_symbol.repeat_multiplier.ceiling = ceiling``."""
    return text.replace("repeat_multiplier = { ceiling = 9 }", f"repeat_multiplier = {{ ceiling = {ceiling} }}")


def without(text: str, gone: dict) -> str:
    """Regular symbols ``gone`` removed: declarations and pays dropped, strip cells replaced by ``gone[s]``."""
    out = []
    for line in text.splitlines():
        if any(re.match(rf"{s} = \{{", line) for s in gone):
            continue
        out.append(line)
    text = "\n".join(out) + "\n"
    for s, by in gone.items():
        text = text.replace(f'"{s}"', f'"{by}"')
    return text


def load(text: str, name: str = "variant_bop.toml"):
    return load_model_text(text, path=name)


# --------------------------------------------------------------------------
# oracles: windows and feature paths, with the spec's names, count and ceiling


def _pays(game, spec: Spec):
    return {s: dict(game.paytable.get(s, {})) for s in spec.order}


def _line(spec: Spec, pays, cells) -> int:
    """Best pay of the single payline: leftmost run of s or a Book, highest over s."""
    best = 0
    for s in spec.order:
        run = 0
        for c in cells:
            if c == s or c in spec.books:
                run += 1
            else:
                break
        best = max(best, pays[s].get(run, 0))
    return best


def _expand(pays, s, n) -> int:
    """Expansion pay of s on n reels: from its smallest paying count (2 high, 3 low in the tiny game)."""
    need = min(k for k, v in pays[s].items() if v > 0)
    return pays[s].get(n, 0) if n >= need else 0


def _award(spec: Spec, cells, spb: int = 1) -> int:
    b = sum(c in spec.books for c in cells)
    return spb * (b - 1) if b >= 2 else 0


def _pmask(spec: Spec, cells) -> int:
    return sum(1 << k for k, r in enumerate(spec.golden) if cells[r] in spec.power_books)


def _windows(game, reel_set):
    return list(itertools.product(*game.reel_sets[reel_set]))


def mean_award(game, spec: Spec, reel_set: str) -> Fraction:
    wins = _windows(game, reel_set)
    return Fraction(sum(_award(spec, w) for w in wins), len(wins))


def regular_oracle(game, spec: Spec, n0: int, jmax: int = 4):
    """``(m1_lo, m1_hi)`` of the regular feature: recursion over (spins left, draw counts of every symbol).

    Per spin: ``E[L] + sum_s m_s E[E_s]`` (the draws are independent of the
    window) plus, per award ``a``, the mean over the next draw of the rest.
    A path cut after ``jmax`` awards adds 0 below and, above, ``xmax`` per
    remaining spin (Wald: ``K / (1 - mu)`` spins), ``xmax`` the line pay plus
    every symbol's top pay at the ceiling.
    """
    pays = _pays(game, spec)
    S = len(spec.order)
    wins = _windows(game, "free")
    n = len(wins)
    EL = Fraction(sum(_line(spec, pays, w) for w in wins), n)
    ES = [Fraction(sum(_expand(pays, s, w.count(s)) for w in wins), n) for s in spec.order]
    pa = Counter(_award(spec, w) for w in wins)
    pa = {a: Fraction(c, n) for a, c in pa.items()}
    mu = float(sum(a * p for a, p in pa.items()))
    xmax = max(_line(spec, pays, w) for w in wins) + spec.ceiling * sum(max(pays[s].values()) for s in spec.order)
    el, es = float(EL), [float(x) for x in ES]

    @lru_cache(maxsize=None)
    def go(K, counts, hi):
        if K == 0:
            return 0.0
        if sum(counts) > jmax + 1:
            return xmax * K / (1 - mu) if hi else 0.0
        m1 = el + sum(spec.mult(c) * e for c, e in zip(counts, es))
        for a, p in pa.items():
            if a:
                f1 = sum(go(K - 1 + a, tuple(c + (i == d) for i, c in enumerate(counts)), hi)
                         for d in range(S)) / S
            else:
                f1 = go(K - 1, counts, hi)
            m1 += float(p) * f1
        return m1

    return tuple(sum(go(n0, tuple(int(i == d) for i in range(S)), hi) for d in range(S)) / S
                 for hi in (False, True))


_POWER: dict = {}


def power_oracle(game, spec: Spec, n0: int, jmax: int = 30) -> float:
    """``E[W]`` of the Power feature: recursion over (start rank, awards, golden mask, spins left).

    A path is cut after ``jmax`` awards (a lower bound; the tests use a tail far below their tolerance).
    """
    key = (id(game), spec, jmax)
    if key not in _POWER or _POWER[key][0] is not game:
        _POWER[key] = (game, _power_recursion(game, spec, jmax))
    go = _POWER[key][1]
    S = len(spec.order)
    return sum(go(r, 0, 0, n0) for r in range(1, S + 1)) / S


def _power_recursion(game, spec: Spec, jmax: int):
    pays = _pays(game, spec)
    S = len(spec.order)
    wins = _windows(game, "power_free")
    n = len(wins)
    ng = len(spec.golden)

    A = np.array([_award(spec, w) for w in wins])
    P = np.array([_pmask(spec, w) for w in wins])
    L = np.array([_line(spec, pays, w) for w in wins], dtype=float)
    gold_of = np.array([sum(1 << spec.golden[k] for k in range(ng) if (h >> k) & 1) for h in range(1 << ng)])
    keys = sorted(set(zip(A.tolist(), P.tolist())))

    @lru_cache(maxsize=None)
    def shows(s):
        """Bit mask of the reels showing s, per window."""
        return np.array([sum(1 << i for i, x in enumerate(w) if x == s) for w in wins])

    @lru_cache(maxsize=None)
    def classes(s, G):
        """(award, Power Book mask, P(class), E[L; class], E[E_s; class]) with golden reels G."""
        show = shows(s)
        reels = show | gold_of[G | P]  # golden already in the spin its Power Book lands (rule default)
        k = np.array([bin(int(v)).count("1") for v in reels])
        E = np.array([_expand(pays, s, int(v)) for v in k], dtype=float)
        out = []
        for a, pm in keys:
            sel = (A == a) & (P == pm)
            out.append((a, pm, sel.sum() / n, L[sel].sum() / n, E[sel].sum() / n))
        return tuple(out)

    def ladder(level):  # level 1..S: the ranks at x1; beyond, the top symbol reached level - S + 1 times
        return (spec.order[level - 1], 1) if level <= S else (spec.order[-1], spec.mult(level - S + 1))

    @lru_cache(maxsize=None)
    def go(rho, j, G, K):
        if K == 0 or j > jmax:
            return 0.0
        s, m = ladder(rho + j)
        m1 = 0.0
        for a, P, p, sl, se in classes(s, G):
            m1 += sl + m * se + p * go(rho, j + (a > 0), G | P, K - 1 + a)
        return m1

    assert ng <= 8
    return go


def _mean(game, feature, count):
    from analytic.features.engines.drawn_expanding.engine import solve_feature

    return solve_feature(game, feature, count).details["mean_interval"]


def _overlap(lo, hi, olo, ohi, rel=1e-9):
    tol = rel * max(abs(ohi), 1.0)
    return float(lo) <= ohi + tol and olo - tol <= float(hi)


def _inside(lo, hi, x, rel=1e-7):
    tol = rel * max(abs(x), 1.0)
    return float(lo) - tol <= x <= float(hi) + tol


def check_against_oracles(game, spec: Spec, starts=(2, 3)):
    """Both features' certified means hold the oracles' (starts: the tiny game's spins for 3 / 4 books)."""
    books = {2: 3, 3: 4, 4: 5}
    for n0 in starts:
        lo, hi = _mean(game, "free_spins", books[n0])
        olo, ohi = regular_oracle(game, spec, n0)
        assert ohi - olo < 2e-5 * olo  # the oracle is sharp enough
        assert _overlap(lo, hi, olo, ohi), ("regular", n0, (float(lo), float(hi)), (olo, ohi))
        lo, hi = _mean(game, "power_free_spins", books[n0])
        o = power_oracle(game, spec, n0)
        assert _inside(lo, hi, o), ("power", n0, (float(lo), float(hi)), o)


# --------------------------------------------------------------------------
# symbol names come from the model


@pytest.fixture(scope="module")
def tiny_and_renamed():
    return load(_text()), load(renamed_text(_text()), "renamed_bop.toml")


def test_renamed_books_still_award(tiny_and_renamed):
    """Renaming the Books (``book`` -> ``tome``) keeps the award law: 1/64 spins per free spin, not 0."""
    from analytic.features.engines.drawn_expanding.spin_stats import SpinStats

    _, game = tiny_and_renamed
    spec = Spec().rename(RENAME)
    for feature, reels in (("free_spins", "free"), ("power_free_spins", "power_free")):
        assert SpinStats(game, feature).mean_award == mean_award(game, spec, reels)
    assert mean_award(game, spec, "free") == Fraction(1, 64)
    # Wald: a 2-spin start plays 2 / (1 - 1/64) = 2.03 spins
    from analytic.features.engines.drawn_expanding.engine import solve_feature

    es = solve_feature(game, "free_spins", 3).expected_spins
    assert abs(es.value - Fraction(2) / (1 - Fraction(1, 64))) <= es.error + Fraction(1, 10**9)


def test_renamed_game_same_figures(tiny_and_renamed):
    """Every feature figure of the renamed game equals the original's, and both hold the oracles."""
    from analytic.features.engines.drawn_expanding.engine import solve_feature

    game, ren = tiny_and_renamed
    for feature in ("free_spins", "power_free_spins"):
        for count in (3, 4, 5):
            a, b = solve_feature(game, feature, count), solve_feature(ren, feature, count)
            for fig in ("mean", "second_moment", "expected_spins"):
                assert getattr(a, fig) == getattr(b, fig), (feature, count, fig)
            assert a.p_zero_bounds == b.p_zero_bounds
    check_against_oracles(ren, Spec().rename(RENAME), starts=(2,))


def test_renamed_game_same_capped_rounds():
    """The capped round figures (cap bounds of both features) do not depend on the names."""
    from analytic.features.engines.drawn_expanding.engine import solve_drawn_expanding_round

    C = 40
    game, ren = load(_text(C)), load(renamed_text(_text(C)), "renamed_bop.toml")
    for mode in ("buy_free_spins", "buy_power_free_spins"):
        a, b = solve_drawn_expanding_round(game, mode, plain=_plain_round(game, mode)), solve_drawn_expanding_round(ren, mode, plain=_plain_round(ren, mode))
        assert a.rtp == b.rtp and a.extra["p_reach_cap"] == b.extra["p_reach_cap"], mode
        assert a.extra["cap_method"].replace("explorer and pharaoh", "adventurer and ramses") \
            == b.extra["cap_method"]


# --------------------------------------------------------------------------
# the multiplier ceiling is the model's max_multiplier


@pytest.mark.parametrize("ceiling", [1, 5, 12])
def test_max_multiplier_against_oracles(ceiling):
    game = load(with_ceiling(_text(), ceiling))
    assert all(f.params["max_multiplier"] == ceiling for f in game.features.values())
    spec = Spec(ceiling=ceiling)
    check_against_oracles(game, spec)
    if ceiling < 9:  # the ceiling matters here: the Power oracle at 9 is far outside the solver's interval
        lo, hi = _mean(game, "power_free_spins", 4)
        o9 = power_oracle(game, Spec(ceiling=9), 3)
        assert not _inside(lo, hi, o9, 1e-4)


def test_max_multiplier_one_regular_repeats_pay_x1():
    """At ``max_multiplier = 1`` a symbol drawn twice stays x1: the regular mean drops, as its oracle's."""
    game = load(with_ceiling(_text(), 1))
    lo, hi = _mean(game, "free_spins", 3)
    olo, ohi = regular_oracle(game, Spec(ceiling=1), 2)
    nlo, nhi = regular_oracle(game, Spec(ceiling=9), 2)
    assert ohi < nlo and _overlap(lo, hi, olo, ohi) and float(hi) < nlo


def test_ceiling_is_required_and_read():
    game = load(_text())
    assert all(f.params["max_multiplier"] == 9 for f in game.features.values())  # the rule text's 9, declared
    with pytest.raises(ModelError) as err:
        load(_text().replace(", repeat_multiplier = { ceiling = 9 }", ""))
    assert err.value.key == "features.free_spins.expanding_symbol.repeat_multiplier"


# --------------------------------------------------------------------------
# the number of regular symbols comes from the model

#: queen and statue removed (their cells become ten and beetle): 7 regular symbols
GONE = {"queen": "ten", "statue": "beetle"}


def test_seven_regular_symbols_against_oracles():
    game = load(without(_text(), GONE))
    order = tuple(s for s in ORDER if s not in GONE)
    assert len(order) == 7
    check_against_oracles(game, Spec(order=order))


def test_seven_regular_symbols_and_ceiling_four_capped_power_law():
    """The Power cap law (ranks averaged over the model's symbols, ladder to the model's ceiling) holds a
    brute-force capped mean."""
    from analytic.features.engines.drawn_expanding.ladder_cap import PowerCapLaw

    C = 40
    game = load(with_ceiling(without(_text(C), GONE), 4))
    spec = Spec(order=tuple(s for s in ORDER if s not in GONE), ceiling=4)
    law = PowerCapLaw(game, "power_free_spins", Kmax=60, J=8)
    for n0 in (2,):
        e = power_capped_oracle(game, spec, n0, C)
        e_lo, e_hi, _, _, _ = law.capped(n0)
        assert e_lo <= e <= e_hi and e_hi - e_lo < 1e-7, (n0, e_lo, e, e_hi)


def power_capped_oracle(game, spec: Spec, n0: int, C: int, jmax: int = 10) -> float:
    """``E[min(W, C)]`` of the Power feature (line bet = total bet here): recursion carrying the win."""
    pays = _pays(game, spec)
    S = len(spec.order)
    wins = _windows(game, "power_free")
    ng = len(spec.golden)

    @lru_cache(maxsize=None)
    def outcomes(s, m, G):
        merged: dict = {}
        for w in wins:
            a, P = _award(spec, w), _pmask(spec, w)
            H = G | P
            k = sum(1 for i, x in enumerate(w) if x == s or (i in spec.golden and (H >> spec.golden.index(i)) & 1))
            key = (_line(spec, pays, w) + m * _expand(pays, s, k), a, H)
            merged[key] = merged.get(key, 0) + 1
        return tuple((x, a, H, c / len(wins)) for (x, a, H), c in merged.items())

    def ladder(level):
        return (spec.order[level - 1], 1) if level <= S else (spec.order[-1], spec.mult(level - S + 1))

    @lru_cache(maxsize=None)
    def go(rho, j, G, K, w):
        if w >= C:
            return float(C)
        if K == 0 or j > jmax:
            return float(w)
        s, m = ladder(rho + j)
        return sum(p * go(rho, j + (a > 0), H, K - 1 + a, w + x) for x, a, H, p in outcomes(s, m, G))

    assert ng <= 8
    return sum(go(r, 0, 0, n0, 0) for r in range(1, S + 1)) / S


# --------------------------------------------------------------------------
# rule count_minus_one on the Power ladder: the top symbol's second arrival is still x1


def test_count_minus_one_power_ladder_against_oracle():
    text = _text().replace('expanding_repeat_multiplier = "count"', 'expanding_repeat_multiplier = "count_minus_one"')
    game = load(text)
    assert game.rules["expanding_repeat_multiplier"] == "count_minus_one"
    check_against_oracles(game, Spec(reading="count_minus_one"))


# --------------------------------------------------------------------------
# the simulator's player reads the same


def test_simulator_player_reads_ceiling_and_every_regular_symbol():
    from analytic.simulator.features.drawn_expanding import prepare, repeat_multiplier

    assert list(repeat_multiplier(np.arange(8), "count", 5)) == [0, 1, 2, 3, 4, 5, 5, 5]
    assert list(repeat_multiplier(np.arange(5), "count_minus_one", 2)) == [0, 1, 1, 2, 2]
    game = load(with_ceiling(renamed_text(_text()), 3))
    prep = prepare(game, game.features["power_free_spins"])
    assert prep.max_multiplier == 3 and prep.symbols == Spec().rename(RENAME).order
    assert prep.power_books == ("seal",) and set(prep.books) == {"tome", "seal"}


def test_simulator_honours_the_ceiling():
    """Power Free Spins at ``max_multiplier = 1``: the simulated mean holds the oracle's, not the x9 one."""
    from analytic.simulator import simulate

    game = load(with_ceiling(_text(), 1))
    sim = simulate(game, "buy_power_free_spins", rounds=200_000, seed=18, progress=False)
    w = game.modes["buy_power_free_spins"].buy_counts
    tot = sum(w.values())
    starts = game.features["power_free_spins"].trigger.counts
    cost = float(game.modes["buy_power_free_spins"].cost)
    exact = {M: sum(c / tot * power_oracle(game, Spec(ceiling=M), starts[b]) for b, c in w.items()) / cost
             for M in (1, 9)}
    se = sim.rtp_se
    assert abs(sim.rtp - exact[1]) <= 4.5 * se and abs(sim.rtp - exact[9]) > 8 * se, (sim.rtp, se, exact)


# --------------------------------------------------------------------------
# refused at load, with the key path


@pytest.mark.parametrize("edit, key", [
    (lambda t: with_ceiling(t, 0), "features.free_spins.expanding_symbol.repeat_multiplier.ceiling"),
    (lambda t: with_ceiling(t, 31), "features.free_spins.expanding_symbol.repeat_multiplier.ceiling"),
    (lambda t: with_ceiling(t, '"9"'), "features.free_spins.expanding_symbol.repeat_multiplier.ceiling"),
    (lambda t: t.replace(', requires = ["power_book"]', ""), "features.power_free_spins"),
    (lambda t: t.replace('golden_reels = { reels = [2, 3, 4], turned_by = ["power_book"] }\n', ""),
     "features.power_free_spins"),
    (lambda t: t.replace("reels = [2, 3, 4]", "reels = [2, 2]"),
     "features.power_free_spins.golden_reels.reels"),
    (lambda t: t.replace('king = { role = "regular", tier = "low", rank = 4 }', 'king = { role = "regular" }'),
     "symbols.king.rank"),
    (lambda t: t.replace('symbols = ["book", "power_book"], counts = { 3 = 2, 4 = 3, 5 = 4 } }',
                         'symbols = ["book", "ten"], counts = { 3 = 2, 4 = 3, 5 = 4 } }'),
     "features.free_spins"),
])
def test_refused_at_load(edit, key):
    text = edit(_text())
    assert text != _text()
    with pytest.raises(ModelError) as err:
        load(text)
    assert err.value.key == key and "unknown key" not in err.value.reason, str(err.value)


def test_scatter_pays_refused_at_load():
    """Scatter pays would be paid in free spins by the simulator; the engine does not solve them: refused
    at load with the key path (the feature solver's own check: tests/model/mechanics/test_check_game.py)."""
    text = _text().replace("[paylines]", '[scatter]\nsymbols = ["book"]\npays = { 3 = 2 }\n\n[paylines]')
    with pytest.raises(ModelError) as err:
        load(text)
    assert err.value.key == "scatter.pays"


@pytest.mark.parametrize("mode, feature", [("buy_free_spins", "free_spins"),
                                           ("buy_power_free_spins", "power_free_spins")])
def test_simulator_agrees_on_seven_symbols_renamed_ceiling_two(mode, feature):
    """Seven regular symbols, every name changed, ``max_multiplier = 2``: the simulator's player (its own
    evaluator) and the solver agree on the bought feature's RTP."""
    from analytic.features.engines.drawn_expanding.engine import solve_feature
    from analytic.simulator import simulate

    names = {**RENAME, "ten": "ruby", "beetle": "scarab"}
    game = load(renamed_text(with_ceiling(without(_text(), GONE), 2), names), "seven_bop.toml")
    m = game.modes[mode]
    tot = sum(m.buy_counts.values())
    mean = sum(Fraction(c, tot) * solve_feature(game, feature, b).mean.value for b, c in m.buy_counts.items())
    exact = float(mean / m.cost)
    sim = simulate(game, mode, rounds=200_000, seed=1807, progress=False)
    assert sim.limited_rounds == 0
    assert abs(sim.rtp - exact) <= 4.5 * sim.rtp_se, (sim.rtp, sim.rtp_se, exact)
