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
then to the candidate listed first in the model.
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
        Product of wild multipliers in the run (1 = none).
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
    pt = spec.paytable
    nreels = len(spec.reels)
    roles = spec.roles
    lm = spec.line_multiplier
    ncand = len(pt.names)
    highest = spec.reading == "highest"
    own = sum(1 << c for c in pt.wild_own)
    total: dict[tuple[int, int, int], int] = defaultdict(int)

    def best_of(alive: int, run: int, mult: int, best):
        c = 0
        while alive:
            if alive & 1 and not pt.trigger_at[c]:
                p = pt.pays[c][run] * mult
                if p > 0 and (best is None or (p, run, -c) > (best[0], best[2], -best[1])):
                    best = (p, c, run, mult)
            alive >>= 1
            c += 1
        return best

    for line in spec.lines:
        # marginal of the role in this line's row, per reel
        margs = []
        for k, reel in enumerate(spec.reels):
            m: dict[int, int] = defaultdict(int)
            for cells, w in zip(reel.cells, reel.weights):
                m[cells[line[k]]] += w
            margs.append(m)
        # state: (alive, mult, best, fixed, pending); pending (first_non_wild): the best
        # (pay, candidate, run, mult) of substituted runs that ended on a wild before the
        # line's symbol was fixed; one pays only if the first non-wild cell shows its symbol
        states = {((1 << ncand) - 1, 1, None, highest, ()): 1}
        for k in range(nreels):
            nxt: dict = defaultdict(int)
            for (alive, mult, best, fixed, pend), cnt in states.items():
                for role, w in margs[k].items():
                    if alive == 0 and (fixed or not pend):
                        nxt[(0, 1, best, True, ())] += cnt * w
                        continue
                    cell = roles[role]
                    mask = sum(1 << c for c in cell.supports)
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
                                    b0 = x if b0 is None or (x[0], x[2], -x[1]) > (b0[0], b0[2], -b0[1]) else b0
                            pd = ()
                        dropped &= own
                        fx = not cell.wild
                    b = best_of(dropped, k, mult, b0)
                    if keep or (pd and not fx):
                        nxt[(keep, mult * cell.multiplier, b, fx, pd)] += cnt * w
                    else:
                        nxt[(0, 1, b, True, ())] += cnt * w
            states = nxt
        for (alive, mult, best, fixed, pend), cnt in states.items():
            b = best_of(alive if fixed else alive & own, nreels, mult, best)
            if b is not None:
                p, c, run, mu = b
                total[(c, run, mu, p * lm)] += cnt
    rows = [
        Combination(pt.names[c], run, mu, pay, hits)
        for (c, run, mu, pay), hits in sorted(total.items())
    ]
    return rows
