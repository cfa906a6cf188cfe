"""Where a line win is decided: the payline state machine.

A payline is read left to right.  Every symbol with line pays is a
*candidate* (regular symbols, a wild's own pays, bonus symbols that start a
feature).  A cell *supports* a candidate when it shows that symbol or a wild
that substitutes for it.  The run of a candidate is the number of leading
cells supporting it; its pay is ``pays[c][run]`` times the product of the
multipliers of the cells in the run.  The line pays the **highest** pay over
all candidates (rule texts: "only the highest win per line is paid").

After ``k`` reels, what matters about a line is

* the set of candidates whose run is still alive (all ``k`` cells support
  them; they share one multiplier product, that of the ``k`` cells), and
* the best pay among candidates that already dropped out.

The second item is the trap of ``docs/derivations.md`` section 2: in
``W W W A x`` the wild's own 3-run (or a high symbol's 3-run) dropped at
reel 4 may pay more than the surviving ``A`` ever will, so the best dropped
pay must be kept, not forgotten.  A candidate whose paytable row is zero for
every longer run is retired at once (its current pay folded into the best),
which keeps the number of states small.  A line with no live candidate is
*settled*: its pay is final and leaves the state (it becomes the shared
``DEAD`` state 0).

:class:`LineStateMachine` numbers the states and tabulates transitions per
reel; :mod:`analytic.engine.linewalk` combines all lines of a window.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CellRole", "LinePaytable", "LineStateMachine", "BothWaysLineMachine", "DEAD", "READINGS"]

#: Readings of a line that starts with wilds (rule ``line_wild_pay``):
#: ``highest`` pays the best candidate the leading wilds can stand for
#: ("only the highest win per line is paid"); ``first_non_wild`` lets the
#: first non-wild symbol fix the line's symbol (leading wilds may still pay
#: their own pays), the reading of Book of Ra's open-source engine and of the
#: Atkins Diet analysis.
READINGS = ("highest", "first_non_wild")

#: State id of a settled line (nothing left to decide).
DEAD = 0


@dataclass(frozen=True)
class CellRole:
    """How one kind of cell acts on a payline.

    Attributes
    ----------
    supports : frozenset of int
        Candidate indices (rows of :class:`LinePaytable`) this cell counts as.
        Empty for scatters and blanks: such a cell ends every run.
    multiplier : int
        Applied to a win whose run includes this cell (1 = none).
    wild : bool
        The cell is a wild (matters only for the ``first_non_wild`` reading).
    """

    supports: frozenset[int]
    multiplier: int = 1
    wild: bool = False


@dataclass(frozen=True)
class LinePaytable:
    """Line pays of the candidates, in integer credits.

    Attributes
    ----------
    names : tuple of str
        Candidate names (for tables and messages).
    pays : tuple of tuple of int
        ``pays[c][n]``: pay of a run of ``n`` (0..reels) of candidate ``c``.
    trigger_at : tuple of int
        ``trigger_at[c] = n > 0`` if a run of at least ``n`` of candidate ``c``
        starts a line-triggered feature instead of paying (bonus symbols);
        0 otherwise.
    wild_own : frozenset of int
        Candidates that are a wild's own pays.
    """

    names: tuple[str, ...]
    pays: tuple[tuple[int, ...], ...]
    trigger_at: tuple[int, ...]
    wild_own: frozenset[int] = frozenset()

    @property
    def reels(self) -> int:
        return len(self.pays[0]) - 1 if self.pays else 0


class LineStateMachine:
    """Numbered payline states and their per-reel transition tables.

    A live state is ``(alive, mult, best)``: a bit mask of live candidates,
    the multiplier product of the cells read so far, and the best pay of the
    candidates that dropped out.  State 0 is :data:`DEAD`.

    Parameters
    ----------
    paytable : LinePaytable
    roles : sequence of CellRole
        Indexed by role id (the cell codes of the windows).
    reading : str
        One of :data:`READINGS`.

    Notes
    -----
    ``step(k, s, r)`` reads the cell of role ``r`` on reel ``k`` (0-based)
    in state ``s`` and returns ``(s', settled_pay, settled_triggers)``; on the
    last reel it settles every line (``s' == DEAD``).
    """

    def __init__(self, paytable: LinePaytable, roles, reading: str = "highest"):
        if reading not in READINGS:
            raise ValueError(f"unknown line reading {reading!r} (known: {', '.join(READINGS)})")
        self.paytable = paytable
        self.reading = reading
        self._own = sum(1 << c for c in paytable.wild_own)
        self.roles = tuple(roles)
        self.reels = paytable.reels
        n = len(paytable.names)
        pays = paytable.pays
        # best pay of candidate c for a run of k or more (to retire dead rows)
        self._future = [
            [max(pays[c][k:], default=0) for k in range(self.reels + 1)] for c in range(n)
        ]
        self._masks = [sum(1 << c for c in r.supports) for r in self.roles]
        # a state: (alive, mult, best, fixed, pending); ``pending`` (first_non_wild only) holds
        # ``(candidate, pay)`` of substituted candidates whose run ended on a wild before the
        # line's symbol was fixed: such a run pays only if the first non-wild cell shows it
        self.states: list[tuple | None] = [None]
        self._ids: dict[tuple, int] = {}
        self.initial = self._id(((1 << n) - 1, 1, 0, reading == "highest", ()), 0)[0]

    # -- state numbering -------------------------------------------------
    def _settle_alive(self, alive: int, run: int, mult: int) -> tuple[int, int]:
        """Best pay and trigger count of the candidates in ``alive`` at ``run``."""
        best, trig = 0, 0
        pays, trig_at = self.paytable.pays, self.paytable.trigger_at
        c = 0
        while alive:
            if alive & 1:
                if trig_at[c]:
                    if run >= trig_at[c]:
                        trig = 1
                else:
                    best = max(best, pays[c][run] * mult)
            alive >>= 1
            c += 1
        return best, trig

    def _id(self, state: tuple[int, int, int], run: int) -> tuple[int, int, int]:
        """Normalise a live state after ``run`` cells; returns (id, pay, trig).

        Candidates that can never pay more with a longer run are retired
        (their pay at ``run`` goes into ``best``).  If nothing stays alive
        the line settles: id DEAD, with its pay and trigger.
        """
        alive, mult, best, fixed, pend = state
        trig_at = self.paytable.trigger_at
        retire = 0
        a, c = alive, 0
        while a:
            if a & 1:
                if trig_at[c]:
                    if run >= trig_at[c]:  # triggered already: nothing more to learn
                        retire |= 1 << c
                elif self._future[c][run] == 0:
                    retire |= 1 << c
            a >>= 1
            c += 1
        trig = 0
        if retire:
            b, trig = self._settle_alive(retire, run, mult)
            best = max(best, b)
            alive &= ~retire
        if (not alive and not pend) or run >= self.reels:  # pending runs of an all-wild line never pay
            b, t = self._settle_alive(alive if fixed else alive & self._own, run, mult)
            return DEAD, max(best, b), trig | t
        key = (alive, mult, best, fixed, pend)
        sid = self._ids.get(key)
        if sid is None:
            sid = len(self.states)
            self.states.append(key)
            self._ids[key] = sid
        return sid, 0, trig

    def step(self, k: int, sid: int, role: int) -> tuple[int, int, int]:
        """Read a cell of ``role`` on reel ``k`` in state ``sid``.

        Returns
        -------
        (next_state, settled_pay, settled_triggers)
            ``settled_pay`` (credits) and ``settled_triggers`` (0 or 1) are
            non-zero only when the line settles at this reel.
        """
        if sid == DEAD:
            return DEAD, 0, 0
        alive, mult, best, fixed, pend = self.states[sid]
        cell = self.roles[role]
        keep = alive & self._masks[role]
        dropped = alive & ~keep
        if not fixed:
            # first_non_wild: a substitution alternative dropped before the line's symbol
            # is fixed pays only when the first non-wild cell shows that symbol (its run
            # ended on a wild that does not substitute for it); a wild's own run does pay
            if cell.wild:
                pays = self.paytable.pays
                extra = tuple((c, pays[c][k] * mult) for c in _bits(dropped & ~self._own)
                              if pays[c][k] * mult > 0 and not self.paytable.trigger_at[c])
                pend = tuple(sorted(pend + extra))
            else:
                m = self._masks[role]
                best = max([best] + [p for c, p in pend if m >> c & 1])
                pend = ()
            dropped &= self._own
            fixed = not cell.wild
        trig = 0
        if dropped:
            b, trig = self._settle_alive(dropped, k, mult)
            best = max(best, b)
        if not keep and not (pend and not fixed):
            return DEAD, best, trig
        nid, pay, t = self._id((keep, mult * cell.multiplier, best, fixed, pend), k + 1)
        return nid, pay, trig | t


def _bits(mask: int):
    """Indices of the set bits of ``mask``, ascending."""
    c = 0
    while mask:
        if mask & 1:
            yield c
        mask >>= 1
        c += 1


class BothWaysLineMachine:
    """A payline read left to right and right to left (pays both ways), as one state machine.

    The left-to-right win is :class:`LineStateMachine`'s (reading
    ``"highest"``).  The right-to-left win is the highest, over the paying
    candidates, of ``pays[c][r] x`` the product of the multipliers of the
    last ``r`` cells, ``r`` the number of trailing cells supporting ``c``,
    for ``r`` below the number of reels: a run over every reel is the same
    combination read from either end and is paid once, from the left.

    Read left to right, a trailing run that starts on reel ``t`` and
    survives to the last reel has length ``N - t``, whatever comes between,
    so its pay is fixed when it starts and only its multiplier grows: the
    state keeps per candidate 0 (no open run), 1 (an open run that cannot
    pay) or ``2 + pays[c][N - t] x multiplier so far``.  A state is (the
    left-to-right state, that tuple); the left-to-right win is paid when it
    settles, the right-to-left win on the last reel.  Same interface as
    :class:`LineStateMachine` (``initial``, ``states``, ``step``).

    Parameters
    ----------
    paytable : LinePaytable
        No line-triggered candidates (refused at load with pays both ways).
    roles : sequence of CellRole
    reading : str
        Only ``"highest"`` (``first_non_wild`` with pays both ways is refused at load).

    Raises
    ------
    ValueError
        Another reading, or a line-triggered candidate.
    """

    def __init__(self, paytable: LinePaytable, roles, reading: str = "highest"):
        if reading != "highest":
            raise ValueError("pays both ways on paylines is solved for the reading 'highest' only")
        if any(paytable.trigger_at):
            raise ValueError("pays both ways on paylines: line triggers are not solved")
        self.left = LineStateMachine(paytable, roles, reading)
        self.paytable = paytable
        self.roles = tuple(roles)
        self.reels = paytable.reels
        self._cands = [c for c in range(len(paytable.names)) if any(paytable.pays[c])]
        self.states: list[tuple | None] = [None]
        self._ids: dict[tuple, int] = {}
        self.initial = self._id((self.left.initial, (0,) * len(self._cands)))

    def _id(self, key: tuple) -> int:
        sid = self._ids.get(key)
        if sid is None:
            sid = len(self.states)
            self.states.append(key)
            self._ids[key] = sid
        return sid

    def step(self, k: int, sid: int, role: int) -> tuple[int, int, int]:
        """Read a cell of ``role`` on reel ``k`` in state ``sid``: ``(next state, pay settled, 0)``."""
        if sid == DEAD:
            return DEAD, 0, 0
        lsid, trail = self.states[sid]
        nl, pay, _ = self.left.step(k, lsid, role)
        cell = self.roles[role]
        pays = self.paytable.pays
        N = self.reels
        out = []
        for c, v in zip(self._cands, trail):
            if c not in cell.supports:
                out.append(0)
            elif v == 0:  # a run starts on this reel: length N - k if it reaches the last reel
                p = pays[c][N - k] if N - k < N else 0
                out.append(2 + p * cell.multiplier if p else 1)
            elif v == 1:
                out.append(1)
            else:
                out.append(2 + (v - 2) * cell.multiplier)
        if k == N - 1:
            best = max((v - 2 for v in out if v >= 2), default=0)
            return DEAD, pay + best, 0
        return self._id((nl, tuple(out))), pay, 0
