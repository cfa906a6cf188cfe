"""Shipped games' base reel sets: the solver's tables against independent exact counts (issue 18 item 5, part).

For every regular bet mode's reel set of every shipped model, counted here
with code of its own (the line rule of ``docs/model-format.md`` via the
differential harness's :class:`oracle.Oracle`, which reads the raw TOML):

* **line wins per symbol, count and multiplier**: a payline reads one cell
  per reel, so the number of stop combinations on which it shows the cells
  ``(c_1, ..., c_5)`` is ``prod_k #{stops of reel k showing c_k on the
  line's row}``; every tuple of distinct symbols is evaluated once and
  weighted per line.  Must equal ``BaseResult.combinations`` integer for
  integer (on a tie between candidates the solver lists the higher pay, then
  the longer run, then the earlier symbol of the model; this test does the same).
* **scatter counts** and **trigger counts** (per feature and count; a feature
  with ``requires`` takes precedence, then model order, as
  :func:`analytic.engine.base_game.trigger_outcome` documents): the per-reel laws
  of (trigger cells, required cells shown) convolved over the reels.  Must
  equal ``BaseResult.scatter_counts`` / ``trigger_counts``.

Not done here (left for the slow brute force of item 5): visiting every
stop combination, and the free-spin outcome classes the feature solvers
consume.
"""

from __future__ import annotations

import itertools
import sys
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from analytic.model.loader import load_model
from analytic.engine.base_game import solve_base

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solver"))
from oracle import WILD_ROLES, Oracle  # noqa: E402

MODELS = sorted((Path(__file__).resolve().parents[2] / "models").glob("*.toml"))


def _best_combo(o: Oracle, cells: tuple):
    """``(symbol, count, multiplier, pay)`` the line pays (None when nothing), solver's tie order."""
    order = list(o.roles)
    best = None
    cands = [s for s, r in o.roles.items() if r in ("regular",) + WILD_ROLES and o.paytable.get(s)]
    if o.line_wild_pay == "first_non_wild":
        first = next((c for c in cells if o.roles[c] not in WILD_ROLES), None)
        cands = [s for s in cands if o.roles[s] in WILD_ROLES or s == first]
    for s in cands:
        run, mult = 0, 1
        for c in cells:
            if not o.supports(c, s):
                break
            run += 1
            mult *= o.mult[c]
        p = o.paytable[s].get(run, 0) * mult
        if p > 0:
            key = (p, run, -order.index(s))
            if best is None or key > best[0]:
                best = (key, (s, run, mult, p))
    return best[1] if best else None


def _line_combinations(o: Oracle, strips) -> Counter:
    rows = o.rows
    # per reel and row: symbol -> stops showing it there
    marg = [[Counter(strip[(s + r) % len(strip)] for s in range(len(strip))) for r in range(rows)] for strip in strips]
    combos: Counter = Counter()
    per_tuple = {}
    for line in o.lines:
        ms = [marg[k][row] for k, row in enumerate(line)]
        for t in itertools.product(*[sorted(m) for m in ms]):
            if t not in per_tuple:
                per_tuple[t] = _best_combo(o, t)
            b = per_tuple[t]
            if b is None:
                continue
            n = 1
            for m, c in zip(ms, t):
                n *= m[c]
            combos[b] += n
    return combos


def _trigger_tables(o: Oracle, strips) -> tuple[Counter, Counter]:
    """``(scatter cells -> combinations, (feature, count) -> combinations)``."""
    feats = [(n, f["trigger"]) for n, f in o.features.items() if f.get("trigger")]
    sets = [set(o.scatter_syms)] + [s for _, t in feats for s in (set(t["symbols"]), set(t.get("requires", ())))]
    law = {tuple(0 for _ in sets): 1}
    for strip in strips:
        L = len(strip)
        reel = Counter(tuple(sum(1 for r in range(o.rows) if strip[(s + r) % L] in st) for st in sets) for s in range(L))
        new: dict = defaultdict(int)
        for a, p in law.items():
            for b, q in reel.items():
                new[tuple(x + y for x, y in zip(a, b))] += p * q
        law = new
    scat, trig = Counter(), Counter()
    for vals, n in law.items():
        scat[vals[0]] += n
        met = []
        for i, (name, t) in enumerate(feats):
            cnt, req = vals[1 + 2 * i], vals[2 + 2 * i]
            if cnt >= min(int(k) for k in t["counts"]) and (not t.get("requires") or req > 0):
                met.append((0 if t.get("requires") else 1, i, name, cnt))
        if met:
            met.sort()
            trig[(met[0][2], met[0][3])] += n
    return scat, trig


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.stem)
def test_base_tables_match_independent_counts(path):
    raw = tomllib.loads(path.read_text())
    game = load_model(path)
    o = Oracle(raw)
    done = set()
    for mode in game.modes.values():
        if mode.reel_set is None or mode.reel_set in done:
            continue
        done.add(mode.reel_set)
        strips = game.reel_sets[mode.reel_set]  # the strips as data (CSV files read by the loader)
        base = solve_base(game, mode.name)
        got = {(c.symbol, c.count, c.multiplier): c.hits for c in base.combinations}
        want = {k[:3]: v for k, v in _line_combinations(o, strips).items()}
        assert len(want) > 10 and got == want, mode.reel_set
        scat, trig = _trigger_tables(o, strips)
        if o.scatter_syms:
            assert {k: v for k, v in base.scatter_counts.items() if v} == {k: v for k, v in scat.items() if v}
        assert {k: v for k, v in base.trigger_counts.items() if v} == dict(trig)
