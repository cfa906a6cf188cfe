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

__all__ = ["spread", "edit", "strip_counts", "max_run"]


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


def _circ(i: int, j: int, n: int) -> int:
    d = abs(i - j) % n
    return min(d, n - d)


def edit(strip, counts: Mapping[str, int]) -> tuple[str, ...]:
    """``strip`` changed as little as possible to hold ``counts``.

    The designer's order (stacks, spacing) is kept: a removed stop is taken
    from the longest run of its symbol (else where that symbol is most
    crowded); an added stop goes into the gap farthest from the other stops
    of its symbol, never next to one where another gap allows it.
    Deterministic.

    Parameters
    ----------
    strip : sequence of str
    counts : mapping
        Symbol -> wanted count (symbols absent from the mapping are removed).
    """
    out = list(strip)
    have = strip_counts(out)
    for sym in sorted(have):
        while have.get(sym, 0) > counts.get(sym, 0):
            n = len(out)
            pos = [i for i, s in enumerate(out) if s == sym]

            def crowd(i):
                run = 1
                j = i - 1
                while out[j % n] == sym and run < n:
                    run += 1
                    j -= 1
                j = i + 1
                while out[j % n] == sym and run < n:
                    run += 1
                    j += 1
                near = min((_circ(i, k, n) for k in pos if k != i), default=n)
                return (-run, near, i)

            out.pop(min(pos, key=crowd))
            have[sym] -= 1
    for sym in sorted(counts):
        while have.get(sym, 0) < counts[sym]:
            n = len(out)
            pos = [i for i, s in enumerate(out) if s == sym]
            best = None
            for g in range(n + 1 if n == 0 else n):  # insert before index g (g = n wraps to 0)
                left, right = out[(g - 1) % n] if n else None, out[g % n] if n else None
                adjacent = sym in (left, right)
                far = min((min(_circ(g, k, n + 1), _circ(g, k + 1, n + 1)) for k in pos), default=n + 1)
                key = (adjacent, -far, g)
                if best is None or key < best[0]:
                    best = (key, g)
            out.insert(best[1], sym)
            have[sym] = have.get(sym, 0) + 1
    return tuple(out)
