"""The combination table: hits and pays per (symbol, count) over the cycle.

Line figures are linear: every payline is evaluated on its own, using the
distribution of the cell in that payline's row on each reel (reels are
independent).  For each line the walk keeps ``(live candidates, multiplier
product, best dropped combination) -> count`` and credits the winning
combination when the line settles.  Summed over lines this gives, for every
combination, the number of (stop combination, payline) pairs that pay it.
The sum of all pays equals the line-win total of the joint walk, an
independent check of its mean.

Ties between candidates paying the same are credited to the longer run,
then to the candidate listed first in the model.  Groups, combos
(``combo:NAME``, ``count`` = its length) and anywhere pays
(``anywhere:NAME``, ``count`` = the cells counted) are candidates like the
symbols; the rules ``line_wild_multipliers``, ``all_wild_win_multiplied``
and ``line_win_chosen_on`` decide the multiplier and the win paid, as in
:mod:`analytic.engine.linewin`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from analytic.engine.linewalk import SpinSpec

__all__ = ["Combination", "combination_table"]


@dataclass(frozen=True)
class Combination:
    """One row of the combination table.

    Attributes
    ----------
    symbol : str
        Candidate that pays (a regular symbol, or a wild paying its own pay).
    count : int
        Length of the run.
    multiplier : int
        Multiplier of the wilds in the run (their product by default, rule
        ``line_wild_multipliers``; 1 = none).
    pay : int
        Pay per occurrence in line-bet units (multiplier and the spin's line
        multiplier included).
    hits : int
        Number of (stop combination, payline) pairs paying it.
    """

    symbol: str
    count: int
    multiplier: int
    pay: int
    hits: int

    @property
    def total_pay(self) -> int:
        return self.pay * self.hits


def combination_table(spec: SpinSpec) -> list[Combination]:
    """Hits per paying combination, summed over all paylines.

    Parameters
    ----------
    spec : SpinSpec

    Returns
    -------
    list of Combination
        Sorted by symbol (model order), count, multiplier.
    """
    if spec.ways:
        return _ways_combination_table(spec)
    if spec.both_ways:
        # right to left: the same per-line count on the reversed reels and lines, a run over
        # every reel paying nothing there (it is paid once, from the left); rows added up
        import dataclasses

        nreels = len(spec.reels)
        pays_r = tuple(tuple(p[:nreels]) + (0,) for p in spec.paytable.pays)
        rev = dataclasses.replace(spec, both_ways=False, reels=spec.reels[::-1],
                                  lines=tuple(tuple(l[::-1]) for l in spec.lines),
                                  paytable=dataclasses.replace(spec.paytable, pays=pays_r))
        total: dict = defaultdict(int)
        for c in combination_table(dataclasses.replace(spec, both_ways=False)) + combination_table(rev):
            total[(c.symbol, c.count, c.multiplier, c.pay)] += c.hits
        order = {n: i for i, n in enumerate(spec.paytable.names)}
        return [Combination(sy, n, mu, pay, hits)
                for (sy, n, mu, pay), hits in sorted(total.items(), key=lambda x: (order[x[0][0]],) + x[0][1:])]
    pt = spec.paytable
    nreels = len(spec.reels)
    roles = spec.roles
    lm = spec.line_multiplier
    ncand = len(pt.names)
    highest = spec.reading == "highest"
    own = sum(1 << c for c in pt.wild_own)
    anyw = tuple(sorted(pt.anywhere))
    anyw_mask = sum(1 << c for c in anyw)
    combine = spec.combine
    base_choice = spec.chosen_on == "base_pay"
    acc0 = 0 if combine == "add" else 1
    total: dict[tuple[int, int, int], int] = defaultdict(int)

    def eff(acc: int, allw: bool) -> int:  # the multiplier of a run (rules line_wild_multipliers, all_wild_...)
        if allw and not spec.all_wild_multiplied:
            return 1
        return max(acc, 1) if combine == "add" else acc

    def grow(acc: int, m: int) -> int:
        if combine == "multiply":
            return acc * m
        if combine == "add":
            return acc + m if m > 1 else acc
        return max(acc, m)

    def key(x):  # order of combinations (pay, candidate, run, mult): the one paid, ties as documented
        p, c, run, mu = x
        base = pt.pays[c][run]
        return (base, p, run, -c) if base_choice else (p, run, -c)

    def best_of(alive: int, run: int, mult: int, best):
        c = 0
        while alive:
            if alive & 1 and not pt.trigger_at[c]:
                mu = 1 if c in pt.unmultiplied else mult
                p = pt.pays[c][run] * mu
                if p > 0 and (best is None or key((p, c, run, mu)) > key(best)):
                    best = (p, c, run, mu)
            alive >>= 1
            c += 1
        return best

    # support mask per reel and role (combo positions on their reel only)
    masks = [[sum(1 << c for c in cell.supports)
              | (sum(1 << c for c in cell.supports_at[k]) if k < len(cell.supports_at) else 0)
              for cell in roles] for k in range(nreels)]
    plain = combine == "multiply" and spec.all_wild_multiplied  # the default rules: the product

    for line in spec.lines:
        # marginal of the role in this line's row, per reel
        margs = []
        for k, reel in enumerate(spec.reels):
            m: dict[int, int] = defaultdict(int)
            for cells, w in zip(reel.cells, reel.weights):
                m[cells[line[k]]] += w
            margs.append(m)
        # state: (alive, acc, all_wild, best, fixed, pending, counts); pending (first_non_wild): the
        # best (pay, candidate, run, mult) of substituted runs that ended on a wild before the line's
        # symbol was fixed; one pays only if the first non-wild cell shows its symbol; counts: the
        # anywhere candidates' counts
        zero = tuple(0 for _ in anyw)
        states = {(((1 << ncand) - 1) & ~anyw_mask, acc0, True, None, highest, (), zero): 1}
        for k in range(nreels):
            nxt: dict = defaultdict(int)
            for (alive, acc, allw, best, fixed, pend, counts), cnt in states.items():
                mult = acc if plain else eff(acc, allw)
                mk = masks[k]
                for role, w in margs[k].items():
                    cell = roles[role]
                    mask = mk[role]
                    cn = tuple(n + (mask >> c & 1) for c, n in zip(anyw, counts)) if anyw else counts
                    if alive == 0 and (fixed or not pend):
                        nxt[(0, acc0, True, best, True, (), cn)] += cnt * w
                        continue
                    keep = alive & mask
                    dropped = alive & ~keep
                    fx, pd, b0 = fixed, pend, best
                    if not fixed:  # first_non_wild: wilds' own runs pay; the others wait for the symbol
                        if cell.wild:
                            d, c = dropped & ~own, 0
                            while d:
                                if d & 1:
                                    x = best_of(1 << c, k, mult, None)
                                    if x is not None:
                                        pd = pd + (x,)
                                d >>= 1
                                c += 1
                        else:
                            for x in pend:
                                if mask >> x[1] & 1:
                                    b0 = x if b0 is None or key(x) > key(b0) else b0
                            pd = ()
                        dropped &= own
                        fx = not cell.wild
                    b = best_of(dropped, k, mult, b0)
                    if keep or (pd and not fx):
                        if plain:
                            nxt[(keep, acc * cell.multiplier, True, b, fx, pd, cn)] += cnt * w
                            continue
                        aw = allw and cell.wild if not spec.all_wild_multiplied else True
                        nxt[(keep, grow(acc, cell.multiplier), aw, b, fx, pd, cn)] += cnt * w
                    else:
                        nxt[(0, acc0, True, b, True, (), cn)] += cnt * w
            states = nxt
        for (alive, acc, allw, best, fixed, pend, counts), cnt in states.items():
            b = best_of(alive if fixed else alive & own, nreels, eff(acc, allw), best)
            for c, n in zip(anyw, counts):  # anywhere pays: on the count, unmultiplied
                p = pt.pays[c][n]
                if p > 0 and (b is None or key((p, c, n, 1)) > key(b)):
                    b = (p, c, n, 1)
            if b is not None:
                p, c, run, mu = b
                total[(c, run, mu, p * lm)] += cnt
    rows = [
        Combination(pt.names[c], run, mu, pay, hits)
        for (c, run, mu, pay), hits in sorted(total.items())
    ]
    return rows


def _ways_combination_table(spec: SpinSpec) -> list[Combination]:
    """Hits per paying ways combination: ``hits`` counts (stop combination, way, direction) triples.

    A way of candidate ``c`` over reels ``1..n`` picks one cell showing
    ``c`` or a wild substituting for it on each of those reels; its
    multiplier is the product of its wild cells' multipliers.  Reels are
    independent, so the number of ways of run exactly ``n`` with multiplier
    ``mu`` is the product over reels ``1..n`` of the per-reel polynomials
    ``sum_w n_k(w) * sum_{matching cells} x^mult`` (multiplicative
    convolution), times the weight of reel ``n + 1``'s windows without a
    match, times the other reels' total weights.  With pays both ways the
    runs from the right of fewer than all reels are added the same way.
    Linear per candidate: an independent check of the joint walk's mean.
    """
    pt = spec.paytable
    roles = spec.roles
    N = len(spec.reels)
    lm = spec.line_multiplier
    totals = [sum(r.weights) for r in spec.reels]
    total: dict[tuple[int, int, int, int], int] = defaultdict(int)
    for c in range(len(pt.names)):
        if not any(pt.pays[c]):
            continue
        poly, zero = [], []
        for reel in spec.reels:
            p: dict[int, int] = defaultdict(int)
            z = 0
            for cells, w in zip(reel.cells, reel.weights):
                hit = False
                for r in cells:
                    if c in roles[r].supports:
                        p[roles[r].multiplier] += w
                        hit = True
                if not hit:
                    z += w
            poly.append(p)
            zero.append(z)

        def runs(order):
            acc = {1: 1}
            for n in range(1, N + 1):
                k = order[n - 1]
                nxt: dict[int, int] = defaultdict(int)
                for a, x in acc.items():
                    for b, y in poly[k].items():
                        nxt[a * b] += x * y
                acc = nxt
                if n < N:
                    stop = order[n]
                    rest = 1
                    for j in order[n + 1:]:
                        rest *= totals[j]
                    yield n, acc, zero[stop] * rest
                else:
                    yield n, acc, 1

        directions = [list(range(N))] + ([list(range(N - 1, -1, -1))] if spec.both_ways else [])
        for d, order in enumerate(directions):
            for n, acc, factor in runs(order):
                if d == 1 and n == N:
                    continue  # a run over every reel is paid once, from the left
                pay = pt.pays[c][n]
                if pay <= 0 or factor == 0:
                    continue
                for mu, ways in acc.items():
                    if ways:
                        total[(c, n, mu, pay * mu * lm)] += ways * factor
    return [Combination(pt.names[c], n, mu, pay, hits) for (c, n, mu, pay), hits in sorted(total.items())]
