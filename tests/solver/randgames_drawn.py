"""A hypothesis strategy drawing tiny games of engine ``drawn_expanding`` (and the gamble).

:func:`drawn_models` draws the raw TOML data of a small game
(``docs/model-format.md``: engine ``drawn_expanding``, mechanics ``spins``
with ``retrigger = { per_symbol = N }``, ``expanding_symbol`` with ``draw =
"at_each_award"`` and ``repeat_multiplier``, ``ladder``, ``golden_reels``,
the symbols' ``rank``, the modes' ``gamble``) small enough that
:class:`oracle_drawn.OracleDrawn` can enumerate every draw, spin and award:

* 3-4 reels, 1-2 rows, 1-2 paylines, 2-3 regular symbols (renamed; ranks
  shuffled), a Book (``wild_scatter``), a Power Book (``wild_scatter``) when
  the game has a ladder feature, an optional blank;
* a feature ``fs`` drawing expanding symbols at each award, a feature
  ``pfs`` with a ladder (``rank_ascending`` / ``rank_descending``) and
  golden reels turned by the Power Book (the trigger's ``requires``), or
  both; per-symbol retriggers of 1-2 spins, ceilings 1-4;
* rules ``expanding_repeat_multiplier``,
  ``scatter_substitutes_for_expanding_in_line_wins``,
  ``golden_symbol_retriggers``, ``golden_immediate``;
* a feature buy with a count law, a gamble mode (``policy`` always / never,
  ``win_probability`` a ``"p/q"`` or decimal string) when both features
  exist, a ``[cap] total_bet_multiple``, an optional ``game.total_bet``.

Now and then the draw is one the format refuses (a cap on a game without
both features, a gamble from the ladder feature, a per-symbol retrigger
awarding 1 or more spins per spin,
line pays falling with the count under the literal reading): the test then
checks the refusal's key path.

Strips are short: a reel set's cycle is at most :data:`MAX_CYCLE`.
"""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import strategies as st

from randgames import NAME_POOL, _count_table, _max_cells

#: Largest number of stop combinations of one reel set.
MAX_CYCLE = 60


def _award_mean(strips, books, rows: int, per_symbol: int):
    """``N x E[(b - 1)+]`` over the windows of ``strips`` (``b`` the cells of ``books``): exact Fraction."""
    from fractions import Fraction

    law = {0: 1}
    for s in strips:
        L = len(s)
        step: dict = {}
        for i in range(L):
            b = sum(1 for r in range(rows) if s[(i + r) % L] in books)
            step[b] = step.get(b, 0) + 1
        new: dict = {}
        for b0, c0 in law.items():
            for b1, c1 in step.items():
                new[b0 + b1] = new.get(b0 + b1, 0) + c0 * c1
        law = new
    return Fraction(sum(per_symbol * (b - 1) * c for b, c in law.items() if b >= 2), sum(law.values()))


@st.composite
def drawn_models(draw):
    """Raw data of a tiny random game with ``drawn_expanding`` features (see the module docstring)."""
    reels, rows = draw(st.integers(3, 4)), draw(st.integers(1, 2))
    names = iter(draw(st.permutations(NAME_POOL)))
    nreg = draw(st.integers(2, 3))
    regs = [next(names) for _ in range(nreg)]
    book = next(names)
    which = draw(st.sampled_from(["draws", "ladder", "both", "both"]))
    ladder = which in ("ladder", "both")
    pbook = next(names) if ladder else None
    blank = next(names) if draw(st.integers(0, 3)) == 3 else None
    ranks = draw(st.permutations(list(range(1, nreg + 1))))
    symbols: dict = {}
    for r, k in zip(regs, ranks):
        symbols[r] = {"role": "regular", "rank": k} if ladder or draw(st.booleans()) else "regular"
    symbols[book] = {"role": "wild_scatter"}
    if pbook:
        symbols[pbook] = "wild_scatter"
    if blank:
        symbols[blank] = "blank"
    literal = draw(st.integers(0, 2)) == 2
    falling = literal and draw(st.integers(0, 5)) == 5  # pays falling with the count: refused under literal
    paytable: dict = {}
    for r in regs:
        lo = draw(st.integers(1, 3))
        vals = sorted(draw(st.lists(st.integers(0, 8), min_size=reels - lo + 1, max_size=reels - lo + 1)))
        if falling and r == regs[0] and len(vals) > 1 and vals[-1] > 0:
            vals = vals[::-1]
        paytable[r] = {str(k): v for k, v in zip(range(lo, reels + 1), vals)}
    if not any(v for t in paytable.values() for v in t.values()):
        paytable[regs[0]][str(reels)] = 5
    lines = draw(st.lists(st.lists(st.integers(0, rows - 1), min_size=reels, max_size=reels),
                          min_size=1, max_size=2, unique_by=tuple))
    regpool = regs + ([blank] if blank else [])

    def strips(pool, cap=MAX_CYCLE):
        lens = [draw(st.integers(rows, rows + 2)) for _ in range(reels)]
        while math.prod(lens) > cap:
            lens[lens.index(max(lens))] -= 1
        return [[draw(st.sampled_from(pool)) for _ in range(n)] for n in lens]

    base = strips(regpool + [book] + ([pbook] if pbook else []))
    base[draw(st.integers(0, reels - 1))][0] = book
    if pbook:
        base[draw(st.integers(0, reels - 1))][-1] = pbook
    books = [book] + ([pbook] if pbook else [])
    reach = _max_cells(base, set(books), rows)
    model: dict = {"game": {"name": "random", "reels": reels, "rows": rows}, "symbols": symbols,
                   "paytable": paytable, "paylines": {"lines": lines}, "reels": {"base": base}}
    if draw(st.booleans()):
        model["game"]["total_bet"] = draw(st.integers(1, 3))
    ceiling = draw(st.integers(1, 4))
    unbounded_ok = draw(st.integers(0, 9)) == 9  # keep a retrigger awarding 1 or more spins per spin

    def feature_reels(pool, golden_reels=()):
        s = strips(pool)
        for r in golden_reels:  # the Power Book on the golden-eligible reels now and then
            if pbook and draw(st.booleans()):
                s[r - 1][draw(st.integers(0, len(s[r - 1]) - 1))] = pbook
        return s

    def bounded(s, counted, n):
        """Books replaced by regular symbols until the expected award per spin is at most 3/4 (longer
        features make the solver's cap bounds slow: 5/6 took 35 s of CPU)."""
        while not unbounded_ok and _award_mean(s, counted, rows, n) > Fraction(3, 4):
            for strip in s:
                for i, c in enumerate(strip):
                    if c in counted:
                        strip[i] = regs[0]
                        break
                else:
                    continue
                break
        return s

    features: dict = {}
    rules: dict = {}
    if which in ("draws", "both"):
        n = draw(st.integers(1, 2))
        free = bounded(feature_reels(regpool + [book, book]), set(books), n)
        model["reels"]["free"] = free
        features["fs"] = {"kind": "free_spins", "reels": "free",
                          "trigger": {"symbols": books, "counts": _count_table(draw, reach, st.integers(1, 3))},
                          "retrigger": {"per_symbol": n},
                          "expanding_symbol": {"draw": "at_each_award",
                                               "repeat_multiplier": {"ceiling": ceiling}}}
    if ladder:
        n = draw(st.integers(1, 2))
        golden = sorted(draw(st.lists(st.integers(1, reels), min_size=1, max_size=2, unique=True)))
        pfree = feature_reels(regpool + [book, pbook], golden)
        gsr = draw(st.sampled_from([None, True, False]))
        if gsr is not None:
            rules["golden_symbol_retriggers"] = gsr
        counted = {book} if gsr is False else set(books)
        model["reels"]["pfree"] = bounded(pfree, counted, n)
        if draw(st.booleans()):
            rules["golden_immediate"] = draw(st.booleans())
        pcounts = _count_table(draw, reach, st.integers(1, 3))
        if "fs" in features:  # the gamble's count = "same": every trigger count of fs is one of pfs's
            pcounts = {k: draw(st.integers(1, 3)) for k in features["fs"]["trigger"]["counts"]}
        features["pfs"] = {"kind": "free_spins", "reels": "pfree",
                           "trigger": {"symbols": books, "counts": pcounts, "requires": [pbook]},
                           "retrigger": {"per_symbol": n},
                           "expanding_symbol": {"draw": "at_each_award",
                                                "repeat_multiplier": {"ceiling": draw(st.integers(1, 4))}},
                           "ladder": {"order": draw(st.sampled_from(["rank_ascending", "rank_descending"]))},
                           "golden_reels": {"reels": golden, "turned_by": [pbook]}}
    model["features"] = features
    if draw(st.booleans()):
        rules["expanding_repeat_multiplier"] = draw(st.sampled_from(["count", "count_minus_one"]))
    if literal:
        rules["scatter_substitutes_for_expanding_in_line_wins"] = False
    elif draw(st.integers(0, 3)) == 3:
        rules["scatter_substitutes_for_expanding_in_line_wins"] = True
    modes: dict = {"base": {"cost": 1, "reels": "base"}}
    if which == "both" and draw(st.booleans()):
        q = draw(st.sampled_from(["1/3", "1/2", "0.25", "2/7", "1"]))
        modes["gamble"] = {"cost": draw(st.sampled_from([1, 2, "3/2"])), "reels": "base",
                           "gamble": {"feature": "fs", "into": "pfs", "policy": draw(st.sampled_from(
                               ["always", "always", "never"])), "win_probability": q, "count": "same"}}
        if draw(st.integers(0, 9)) == 9:  # from the ladder feature into the other: refused at load
            modes["gamble"]["gamble"].update(feature="pfs", into="fs")
    for name in features:
        if draw(st.integers(0, 2)) == 2:
            ks = list(features[name]["trigger"]["counts"])
            bc = {k: draw(st.integers(0, 2)) for k in ks}
            if not any(bc.values()):
                bc[ks[0]] = 1
            modes[f"buy-{name}"] = {"cost": draw(st.integers(5, 40)), "buys": name, "buy_counts": bc}
    if len(modes) > 1 or draw(st.booleans()):
        model["modes"] = modes
    if (which == "both" and draw(st.booleans())) or draw(st.integers(0, 9)) == 9:
        model["cap"] = {"total_bet_multiple": draw(st.one_of(st.integers(2, 30), st.sampled_from(["5/2", "15/4"])))}
    if rules:
        model["rules"] = rules
    return model
