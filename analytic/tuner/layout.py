"""Laying symbol counts out on a reel strip.

A designer tunes *counts* (how many stops of each symbol a reel has); the
strip order then decides which windows exist.  :func:`spread` places each
symbol as evenly as its count allows (the stops of a symbol of count ``c``
aim at ``L/c`` apart), so scatters and books never share a window while
``c <= L / rows``, and no symbol forms long runs unless its count forces it.
Deterministic: equal inputs give equal strips.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping

__all__ = ["spread", "strip_counts", "max_run"]


def strip_counts(strip) -> dict[str, int]:
    """Symbol -> number of stops on ``strip`` (first-seen order)."""
    out: dict[str, int] = {}
    for s in strip:
        out[s] = out.get(s, 0) + 1
    return out


def max_run(strip) -> int:
    """Longest run of one symbol on the (wrapping) strip."""
    n = len(strip)
    if n == 0:
        return 0
    if len(set(strip)) == 1:
        return n
    best = run = 1
    for i in range(1, 2 * n):
        if strip[i % n] == strip[(i - 1) % n]:
            run += 1
            best = max(best, min(run, n))
        else:
            run = 1
    return best


def spread(counts: Mapping[str, int]) -> tuple[str, ...]:
    """A strip with the given counts, each symbol spread evenly.

    Parameters
    ----------
    counts : mapping
        Symbol -> count (>= 0); the strip length is the sum.

    Returns
    -------
    tuple of str

    Notes
    -----
    Each stop ``i`` of a symbol of count ``c`` gets the ideal position
    ``(i + 1/2) L / c`` (exact fractions); stops are sorted by ideal
    position, rarer symbols first on ties.  A final pass swaps neighbours to
    break up equal adjacent symbols where a swap does not create another pair.
    """
    total = sum(counts.values())
    items = []
    for order, (sym, c) in enumerate(counts.items()):
        for i in range(c):
            items.append((Fraction(2 * i + 1, 2) * Fraction(total, c), c, order, sym))
    items.sort()
    strip = [s for *_, s in items]
    n = len(strip)
    for _ in range(2):
        for i in range(n):
            a, b = i, (i + 1) % n
            if strip[a] != strip[b]:
                continue
            for j in range(n):
                c = (b + j) % n
                cand = strip[:]
                cand[b], cand[c] = cand[c], cand[b]
                if all(cand[k] != cand[(k + 1) % n] for k in (a, b, (c - 1) % n, c)):
                    strip = cand
                    break
    return tuple(strip)
