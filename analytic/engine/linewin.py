"""Where a line win is decided: the payline state machine.

A payline is read left to right.  Every symbol with line pays is a
*candidate* (regular symbols, a wild's own pays, bonus symbols that start a
feature), and so is every group with pays, every ordered combo and every
anywhere pay (``docs/model-format.md``).  A cell *supports* a candidate when
it shows that symbol (a member of that group) or a wild that substitutes for
it; a combo's support depends on the reel (its entry there).  The run of a
candidate is the number of leading cells supporting it; its pay is
``pays[c][run]`` times the multiplier of the cells in the run (their
product, the sum of those above 1, or the largest: rule
``line_wild_multipliers``; 1 for a run of wilds only under
``all_wild_win_multiplied = false``).  An anywhere candidate counts its
supporting cells over the whole line instead and is paid unmultiplied at the
end.  The line pays **one** win, the highest over all candidates (rule
texts: "only the highest win per line is paid"), compared after the
multiplier or, under ``line_win_chosen_on = "base_pay"``, on the paytable
pay first.

After ``k`` reels, what matters about a line is

* the set of candidates whose run is still alive (all ``k`` cells support
  them; they share one multiplier, that of the ``k`` cells),
* the best pay among candidates that already dropped out, and
* the counts of the anywhere candidates.

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

__all__ = ["CellRole", "LinePaytable", "LineStateMachine", "BothWaysLineMachine", "DEAD", "READINGS", "COMBINES",
           "CHOICES"]

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
        Candidate indices (rows of :class:`LinePaytable`) this cell counts as
        on every reel: a symbol, a group it belongs to, a symbol a wild
        substitutes for, an anywhere-pay candidate it counts for.  Empty for
        scatters and blanks outside groups: such a cell ends every run.
    multiplier : int
        Applied to a win whose run includes this cell (1 = none).
    wild : bool
        The cell is a wild (the ``first_non_wild`` reading, rule
        ``all_wild_win_multiplied``).
    supports_at : tuple of frozenset of int
        Per reel (0-based), further candidates this cell counts as there only:
        the positions of ordered combinations (``[combos]``).  Empty: none.
    """

    supports: frozenset[int]
    multiplier: int = 1
    wild: bool = False
    supports_at: tuple = ()


@dataclass(frozen=True)
class LinePaytable:
    """Line pays of the candidates, in integer credits.

    Attributes
    ----------
    names : tuple of str
        Candidate names (for tables and messages).
    pays : tuple of tuple of int
        ``pays[c][n]``: pay of a run of ``n`` (0..reels) of candidate ``c``
        (of ``n`` counted cells for an anywhere candidate).
    trigger_at : tuple of int
        ``trigger_at[c] = n > 0`` if a run of at least ``n`` of candidate ``c``
        starts a line-triggered feature instead of paying (bonus symbols);
        0 otherwise.
    wild_own : frozenset of int
        Candidates that are a wild's own pays.
    anywhere : frozenset of int
        Candidates paid on the number of supporting cells anywhere on the
        line (``[anywhere_pays]``), not on a run from the left.
    unmultiplied : frozenset of int
        Run candidates paid as written, never multiplied by the wilds of
        their cells (combos with ``multiplied = false``).
    """

    names: tuple[str, ...]
    pays: tuple[tuple[int, ...], ...]
    trigger_at: tuple[int, ...]
    wild_own: frozenset[int] = frozenset()
    anywhere: frozenset[int] = frozenset()
    unmultiplied: frozenset[int] = frozenset()

    @property
    def reels(self) -> int:
        return len(self.pays[0]) - 1 if self.pays else 0


#: Values of rule ``line_wild_multipliers``: how the multipliers of several wilds in a run combine.
COMBINES = ("multiply", "add", "highest_once")
#: Values of rule ``line_win_chosen_on``.
CHOICES = ("final_pay", "base_pay")


class LineStateMachine:
    """Numbered payline states and their per-reel transition tables.

    A live state is ``(alive, acc, best, fixed, pending, all_wild, counts)``:
    a bit mask of live run candidates, the multiplier accumulator of the
    cells read so far (their product, their sum or their largest, rule
    ``line_wild_multipliers``), the best pay of the candidates that dropped
    out (a tuple compared lexically: ``(final,)``, or ``(base, final)``
    under ``line_win_chosen_on = "base_pay"``), the ``first_non_wild``
    bookkeeping, whether every cell read so far is a wild (only tracked when
    ``all_wild_win_multiplied`` is false) and the counts of the anywhere
    candidates.  State 0 is :data:`DEAD`.

    Parameters
    ----------
    paytable : LinePaytable
    roles : sequence of CellRole
        Indexed by role id (the cell codes of the windows).
    reading : str
        One of :data:`READINGS`.
    combine : str
        One of :data:`COMBINES`.
    all_wild_multiplied : bool
        Whether a win whose counted cells are all wilds takes their multipliers.
    chosen_on : str
        One of :data:`CHOICES`.

    Notes
    -----
    ``step(k, s, r)`` reads the cell of role ``r`` on reel ``k`` (0-based)
    in state ``s`` and returns ``(s', settled_pay, settled_triggers)``; on the
    last reel it settles every line (``s' == DEAD``).  The settled pay is the
    final pay (after multipliers) of the one win chosen.
    """

    def __init__(self, paytable: LinePaytable, roles, reading: str = "highest", combine: str = "multiply",
                 all_wild_multiplied: bool = True, chosen_on: str = "final_pay"):
        if reading not in READINGS:
            raise ValueError(f"unknown line reading {reading!r} (known: {', '.join(READINGS)})")
        if combine not in COMBINES:
            raise ValueError(f"unknown multiplier combination {combine!r} (known: {', '.join(COMBINES)})")
        if chosen_on not in CHOICES:
            raise ValueError(f"unknown line win choice {chosen_on!r} (known: {', '.join(CHOICES)})")
        self.paytable = paytable
        self.reading = reading
        self.combine = combine
        self.all_wild_multiplied = bool(all_wild_multiplied)
        self.base_choice = chosen_on == "base_pay"
        self._zero = (0, 0) if self.base_choice else (0,)
        self._own = sum(1 << c for c in paytable.wild_own)
        self.roles = tuple(roles)
        self.reels = paytable.reels
        n = len(paytable.names)
        pays = paytable.pays
        # best pay of candidate c for a run of k or more (to retire dead rows)
        self._future = [
            [max(pays[c][k:], default=0) for k in range(self.reels + 1)] for c in range(n)
        ]
        self._anyw = tuple(sorted(paytable.anywhere))
        anyw_mask = sum(1 << c for c in self._anyw)
        base_masks = [sum(1 << c for c in r.supports) for r in self.roles]
        # support mask per reel and role (combo positions added on their reel)
        self._masks = [[m | sum(1 << c for c in (r.supports_at[k] if k < len(r.supports_at) else ()))
                        for m, r in zip(base_masks, self.roles)] for k in range(max(self.reels, 1))]
        # a state: (alive, acc, best, fixed, pending, all_wild, counts); ``pending`` (first_non_wild
        # only) holds ``(candidate, value)`` of substituted candidates whose run ended on a wild before
        # the line's symbol was fixed: such a run pays only if the first non-wild cell shows it
        self.states: list[tuple | None] = [None]
        self._ids: dict[tuple, int] = {}
        acc0 = 0 if combine == "add" else 1
        self._acc0 = acc0
        self.initial = self._id((((1 << n) - 1) & ~anyw_mask, acc0, self._zero, reading == "highest", (),
                                 True, tuple(0 for _ in self._anyw)), 0)[0]

    # -- pays ------------------------------------------------------------
    def _mult(self, acc: int, all_wild: bool) -> int:
        """Multiplier of a run with accumulator ``acc`` (all cells wild: ``all_wild``)."""
        if all_wild and not self.all_wild_multiplied:
            return 1
        return max(acc, 1) if self.combine == "add" else acc

    def _acc(self, acc: int, m: int) -> int:
        if self.combine == "multiply":
            return acc * m
        if self.combine == "add":
            return acc + m if m > 1 else acc
        return max(acc, m)

    def _value(self, base: int, mult: int) -> tuple:
        """Comparable value of a pay: ``(final,)`` or ``(base, final)``."""
        if not base:
            return self._zero
        return (base, base * mult) if self.base_choice else (base * mult,)

    # -- state numbering -------------------------------------------------
    def _settle_alive(self, alive: int, run: int, mult: int) -> tuple[tuple, int]:
        """Best value and trigger count of the candidates in ``alive`` at ``run``."""
        best, trig = self._zero, 0
        pays, trig_at = self.paytable.pays, self.paytable.trigger_at
        flat = self.paytable.unmultiplied
        c = 0
        while alive:
            if alive & 1:
                if trig_at[c]:
                    if run >= trig_at[c]:
                        trig = 1
                else:
                    best = max(best, self._value(pays[c][run], 1 if c in flat else mult))
            alive >>= 1
            c += 1
        return best, trig

    def _id(self, state: tuple, run: int) -> tuple[int, int, int]:
        """Normalise a live state after ``run`` cells; returns (id, pay, trig).

        Candidates that can never pay more with a longer run are retired
        (their pay at ``run`` goes into ``best``).  If nothing stays alive
        the line settles: id DEAD, with its (final) pay and trigger.
        """
        alive, acc, best, fixed, pend, allw, counts = state
        mult = self._mult(acc, allw)
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
        if run >= self.reels or (not alive and not pend and not self._anyw):  # pending runs of an all-wild line never pay
            b, t = self._settle_alive(alive if fixed else alive & self._own, run, mult)
            best = max(best, b)
            pays = self.paytable.pays
            for c, n in zip(self._anyw, counts):
                best = max(best, self._value(pays[c][n], 1))
            return DEAD, best[-1], trig | t
        if not alive:  # only anywhere counts left: the multiplier no longer matters
            acc, allw = self._acc0, True
        key = (alive, acc, best, fixed, pend, allw, counts)
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
            ``settled_pay`` (credits, after multipliers) and
            ``settled_triggers`` (0 or 1) are non-zero only when the line
            settles at this reel.
        """
        if sid == DEAD:
            return DEAD, 0, 0
        alive, acc, best, fixed, pend, allw, counts = self.states[sid]
        mult = self._mult(acc, allw)
        cell = self.roles[role]
        mask = self._masks[k][role]
        keep = alive & mask
        dropped = alive & ~keep
        if not fixed:
            # first_non_wild: a substitution alternative dropped before the line's symbol
            # is fixed pays only when the first non-wild cell shows that symbol (its run
            # ended on a wild that does not substitute for it); a wild's own run does pay
            if cell.wild:
                pays = self.paytable.pays
                extra = tuple((c, self._value(pays[c][k], mult)) for c in _bits(dropped & ~self._own)
                              if pays[c][k] * mult > 0 and not self.paytable.trigger_at[c])
                pend = tuple(sorted(pend + extra))
            else:
                best = max([best] + [v for c, v in pend if mask >> c & 1])
                pend = ()
            dropped &= self._own
            fixed = not cell.wild
        trig = 0
        if dropped:
            b, trig = self._settle_alive(dropped, k, mult)
            best = max(best, b)
        if self._anyw:
            counts = tuple(n + (mask >> c & 1) for c, n in zip(self._anyw, counts))
        elif not keep and not (pend and not fixed):
            return DEAD, best[-1], trig
        allw = allw and cell.wild if not self.all_wild_multiplied else True
        nid, pay, t = self._id((keep, self._acc(acc, cell.multiplier), best, fixed, pend, allw, counts), k + 1)
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
