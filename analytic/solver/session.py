"""Sessions and autoplay, computed from the round's law (no sampling).

A player starts with balance ``B0`` and plays rounds of one bet mode at total
bet ``s`` (price ``c * s``, ``c`` the mode's cost in total bets) until a stop
rule ends the session or ``N`` rounds are played.  The rounds are
independent, each win ``W`` (total-bet multiples) drawn from the round's law
(:func:`analytic.solver.distribution.round_law`), so the balance is a Markov
chain on the grid ``B0 + k G`` (``G`` the greatest common divisor of every
possible change ``s (w - c)``) whose step is the round's law; the stop rules
are absorbing states.  Everything the session can end with -- the reason,
the rounds played, the final balance -- is the chain's absorbed mass, read
off step by step.

Units
-----
Balance, bets and the amounts of the stop rules are in one unit, that of
``bet`` (default 1: total bets of the selected bet).  When the model caps a
round in currency (``[cap] currency``) that unit is the cap's currency and a
round at bet ``s`` pays ``min(W, cap / s)``.

Stop rules (seed rule texts: advanced autoplay; bet lowering)
-----------------------------------------------------------
Checked after every round in this order; the first that holds is the
session's end *reason*:

1. ``any win`` -- the round won anything (``W > 0``);
2. ``feature`` -- the round started a feature (any feature, line-triggered
   bonuses included; every round of a feature buy);
3. ``single win`` -- the round's win ``s W`` is at least the amount
   ("exceeds or equals", rule text);
4. ``cash up`` -- the balance rose by at least the amount since the start;
5. ``cash down`` -- the balance fell by at least the amount;
6. ``ruin`` -- the balance is below the price of the smallest bet the
   player may play (with a bet ladder: its smallest rung; else the bet);
7. ``rounds`` -- ``N`` rounds were played.

Bet ladder: when the balance falls below the price of the selected bet, the
bet is lowered to the largest rung whose price the balance covers ("lowered
to the highest applicable bet size"); nothing raises it again (the state
holds the current rung).

Methods and labels
------------------
``exact``: the round's law is exact and the chain is run in Fractions;
every figure is exact.  ``certified``: the chain is run in float64 on the
same grid, and the whole session law (reason, rounds, final balance) is
within total variation ``E`` of the true one, ``E`` summing per round the
round law's own error (``N`` times its total-variation bound), the
convolutions' rounding (direct sums of non-negative terms: ``m u`` of the
mass for ``m`` terms; FFT: the a-priori bound of
:mod:`analytic.features.laws.retrigger_law`) and the trimmed tail mass.
Each probability is then labelled ``bounded`` with error ``E``; a quantile is
an interval.  ``bounded`` (method): the round has no law, only certified
bounds of ``P(W >= x)``; the chain is run on two laws bracketing the round and
every figure is an interval (:mod:`analytic.solver.session_bounds`).  The mean final balance is Wald's identity ``B0 + sum_j s_j
(mu_j - c) A_j`` (``A_j``: expected rounds played at rung ``j``).

Cost: each round convolves the live balance vector (``K`` grid points) with
the round's law (``M`` points): ``O(K M)`` direct or ``O(K log K)`` by FFT per
round, ``N`` rounds; ``K`` grows like the balance's spread (``sqrt(N)`` times
the round's standard deviation over ``G``) up to the absorbing barriers.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Mapping

import numpy as np

from analytic.errors import AnalyticError
from analytic.figures import Figure

__all__ = ["SessionRules", "SessionLaw", "SessionResult", "SessionRefused", "REASONS", "QUANTILES",
           "session_law", "solve_session", "split_round_law", "run_session", "session_summary",
           "DEFAULT_SUMMARY", "AUTOPLAY_OPTION", "CURVE_ROUNDS", "default_autoplay", "SummaryResults",
           "summary_results", "bracketed", "round_law_kind", "check_session", "features_started",
           "certified_work", "exact_work", "CERTIFIED_LIMIT"]

#: End reasons, in the order they are checked after a round.
REASONS = ("any win", "feature", "single win", "cash up", "cash down", "ruin", "rounds")
#: Quantile levels reported.
QUANTILES = (Fraction(1, 100), Fraction(5, 100), Fraction(1, 10), Fraction(1, 4), Fraction(1, 2),
             Fraction(3, 4), Fraction(9, 10), Fraction(95, 100), Fraction(99, 100))
_U = 2.0 ** -53
#: Largest work (rounds x states x law points) run in Fractions by ``method="auto"``.
EXACT_BUDGET = 3_000_000
#: Largest work (:func:`exact_work`, 64-bit limb multiply-adds) a forced ``method="exact"`` runs:
#: about 5 minutes on the 2-core development machine (measured: Sizzling Hot from 100 bets, no stop
#: but ruin, 40 rounds, 8.8e9 units, 29 s); beyond it the session is refused (use the certified method).
EXACT_LIMIT = 10 ** 11
#: Largest work (:func:`certified_work`, float64 operations) a certified chain runs: about 5 minutes of
#: CPU on the 2-core development machine (measured: see docs/sessions.md, "Cost"); beyond it the
#: session is refused before the chain (fewer rounds, a cash up / down stop, a coarser bet unit).
CERTIFIED_LIMIT = 14 * 10 ** 11
#: Work units (:func:`certified_work`) of one point of a real FFT pair (``size log2(size)`` times this),
#: and of one live grid point's per-round bookkeeping (trim, sums, barriers).
FFT_UNIT = 5.0
POINT_UNIT = 8.0
#: Work units (:func:`certified_work`) a second of CPU at the fastest measured (a direct-sum chain of a
#: small law: 3.6e9 - 4.7e9; FFT chains 0.6e9 - 2.1e9, their heavy tails spreading wider than estimated):
#: so :data:`CERTIFIED_LIMIT` refuses only chains of at least about 5 minutes.
CERTIFIED_RATE = 4.7e9
#: Upper-tail mass dropped per round (into the error) in the certified method: this, or the
#: round law's own total-variation bound when larger (the session's bound at most doubles).
TRIM = 1e-15
#: Upper-tail mass taken out per round by ``lump_high`` (at most): the balance quantiles widen by
#: at most ``N`` times this (1e-4 in 10,000 rounds).
LUMP = 1e-8
#: Largest grid of one round's law (points from the smallest to the largest change).
MAX_LAW_GRID = 4_000_000


#: Engines whose feature-win law does not exist yet: a game with such a feature has no exact or
#: certified session (a session is never approximated); see :data:`BOUNDED_ENGINES`.
NO_LAW_ENGINES = frozenset({"drawn_expanding"})
#: Of those, engines whose round solver bounds ``P(W >= x)`` at every threshold (``extra["round_tail"]``):
#: their sessions are bracketed (:mod:`analytic.solver.session_bounds`), labelled ``bounded``.
BOUNDED_ENGINES = frozenset({"drawn_expanding"})


class SessionRefused(AnalyticError):
    """The session cannot be computed as asked (the reason says why).

    Parameters
    ----------
    reason : str
        Why, and what would make the session solvable (``str(exc)``).
    option : str, optional
        The setting at fault: a :class:`SessionRules` field or ``method``
        (the command line's ``--bet-ladder``, ``--method``, ...).
    key : str, optional
        The model key path at fault (``modes.base``, ``cap.currency``, ...).

    Neither set: not the input's fault (a limit of the solver, or a defect).
    """

    def __init__(self, reason: str, *, option: str | None = None, key: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.option = option
        self.key = key


@dataclass(frozen=True)
class SessionRules:
    """A session's setting.

    Attributes
    ----------
    balance : Fraction
        Starting balance (unit of ``bet``).
    bet : Fraction
        Selected total bet (default 1: amounts in total bets).
    rounds : int
        At most this many rounds.
    stop_on_any_win, stop_on_feature : bool
    stop_single_win_above : Fraction or None
        Stop when one round wins at least this amount.
    stop_cash_up, stop_cash_down : Fraction or None
        Stop when the balance has risen / fallen by at least this amount.
    bet_ladder : tuple of Fraction
        Bet sizes the bet may be lowered to (must hold ``bet``); empty: none.
    """

    balance: Fraction
    bet: Fraction = Fraction(1)
    rounds: int = 100
    stop_on_any_win: bool = False
    stop_on_feature: bool = False
    stop_single_win_above: Fraction | None = None
    stop_cash_up: Fraction | None = None
    stop_cash_down: Fraction | None = None
    bet_ladder: tuple = ()

    def __post_init__(self):
        for k in ("balance", "bet", "stop_single_win_above", "stop_cash_up", "stop_cash_down"):
            v = getattr(self, k)
            if v is not None:
                object.__setattr__(self, k, Fraction(v))
        object.__setattr__(self, "bet_ladder", tuple(sorted({Fraction(x) for x in self.bet_ladder})))
        if self.balance < 0:
            raise SessionRefused("the balance must be >= 0", option="balance")
        if self.bet <= 0:
            raise SessionRefused("the bet must be > 0", option="bet")
        if not isinstance(self.rounds, int) or not 1 <= self.rounds <= 10**6:
            raise SessionRefused("the rounds must be an integer 1 .. 1,000,000", option="rounds")
        for k in ("stop_single_win_above", "stop_cash_up", "stop_cash_down"):
            v = getattr(self, k)
            if v is not None and v <= 0:
                raise SessionRefused("the amount must be > 0", option=k)
        if self.bet_ladder and (self.bet not in self.bet_ladder or self.bet_ladder[0] <= 0):
            raise SessionRefused(f"the bet ladder must hold the selected bet ({self.bet}) and every rung must be > 0",
                                 option="bet_ladder")

    @property
    def levels(self) -> tuple:
        """Bets the session may play, smallest first (the selected one last)."""
        return tuple(x for x in self.bet_ladder if x <= self.bet) if self.bet_ladder else (self.bet,)


@dataclass(frozen=True)
class SessionLaw:
    """The joint law of how a session ends (the chain's absorbed mass).

    Attributes
    ----------
    rules : SessionRules
    grid : Fraction
        Balance grid ``G``: balance ``B0 + k G``.
    offset : int
        Grid index of ``final[0]``.
    final : ndarray, shape (K,)
        Final balance law (Fractions, object dtype, or float64).
    reason_time : dict str -> ndarray, shape (N + 1,)
        ``P(reason, rounds played = t)``.
    alive : list of ndarray, shape (N,) per rung
        ``P(round t + 1 is played at rung j)``.
    returns : dict or None
        Exact: ``{total won / total staked: probability}`` (sessions that
        played a round); certified: ``(bin width, histogram)``; None with a bet
        ladder.
    error : float
        Total-variation bound of the whole session law (0: exact).
    method : str
    mean_win : list of Figure
        Per rung, the mean round win (total bets) used in Wald's identity.
    cost : Fraction
    snapshots : dict int -> SessionLaw
        The same session cut at the requested round counts
        (:func:`session_law`'s ``snapshots``).
    lumped : float
        Mass taken out of the chain by ``lump_high`` (ends above the start,
        placed at its balance when taken out; the balance quantiles widen by it).
    """

    rules: SessionRules
    grid: Fraction
    offset: int
    final: np.ndarray
    reason_time: dict
    alive: list
    returns: object
    error: float
    method: str
    mean_win: list
    cost: Fraction
    snapshots: dict = field(default_factory=dict)
    lumped: float = 0.0


def _fgcd(values) -> Fraction:
    g = Fraction(0)
    for v in values:
        v = Fraction(v)
        if v:
            g = Fraction(math.gcd(g.numerator * v.denominator, v.numerator * g.denominator),
                         g.denominator * v.denominator) if g else abs(v)
    return g


def split_round_law(r, law) -> tuple[dict, dict, Fraction] | str:
    """The round's law split into rounds without / with a feature.

    Parameters
    ----------
    r : RoundResult
    law : RoundLaw
        ``round_law(r)`` (its cap is re-applied to both parts).

    Returns
    -------
    (dict, dict, Fraction) or str
        ``(no-feature law, feature law, total-variation error)``, the two
        sub-probability laws (total-bet multiples) adding up to the round's
        law; a string (why not) when the split is unavailable (a round
        solver's own law that the classes' laws do not add up to exactly).
    """
    from analytic.solver import distribution as dist
    from analytic.solver.cap import applied_cap

    if r.base is None:
        return {}, dict(law.points), law.error
    classes = dist._parts(r)
    plain = [c for c in classes if not c[2]]
    feat = [c for c in classes if c[2]]
    nof: dict = defaultdict(Fraction)
    for p, b, _ in plain:
        nof[b] += p
    own = r.extra.get("distribution") if r.extra else None
    missing = next((res.feature if res is not None else "?" for _, _, parts in feat for res, _ in parts
                    if res is None or (res.distribution is None and res.law is None)), None)
    if missing is not None and own is not None and law.points is not None and not law.error:
        # a round solver's own exact law: the feature rounds' sub-law is the round's law less the exact
        # sub-law of the rounds without a feature (P(W = w) = P(W = w, no feature) + P(W = w, feature))
        return _split_by_difference(r, law, nof, missing)
    if missing is not None:
        return f"the distribution of feature '{missing}' is not available"
    if not feat:
        fl = dist.RoundLaw({}, Fraction(0))
    elif all(res.distribution is not None for _, _, parts in feat for res, _ in parts):
        fl = dist._exact_law(feat)
    else:
        fl = dist._grid_law(feat)
    if fl.points is None:
        return fl.reason or "the feature rounds' law is not available"
    cap = applied_cap(r)
    out = []
    for part in (nof, fl.points):
        d: dict = defaultdict(Fraction)
        for w, p in part.items():
            d[min(w, cap) if cap is not None else w] += p
        out.append(dict(d))
    if r.extra and r.extra.get("distribution") is not None:
        # a round solver's own law: the split must add up to it exactly, else it is not used
        total: dict = defaultdict(Fraction)
        for part in out:
            for w, p in part.items():
                total[w] += p
        if fl.error or {w: p for w, p in total.items() if p} != {w: p for w, p in law.points.items() if p}:
            return ("the round solver's own law is not the sum of the feature / no-feature laws built from the "
                    "base spin's classes")
    return out[0], out[1], fl.error


def _split_by_difference(r, law, nof: dict, feature: str) -> tuple[dict, dict, Fraction] | str:
    """:func:`split_round_law` of a round whose solver gives its own exact law but no law of a feature.

    The rounds without a feature have an exact sub-law from the base spin's
    classes (``nof``, capped here); the feature rounds' sub-law is the round's
    law less it, point by point, exact.  Refused (a string) if a difference
    is negative or a no-feature win is not a point of the round's law (the two
    would then not be laws of one round).
    """
    from analytic.solver.cap import applied_cap

    cap = applied_cap(r)
    base: dict = defaultdict(Fraction)
    for w, p in nof.items():
        base[min(w, cap) if cap is not None else w] += p
    feat = {w: p - base.get(w, Fraction(0)) for w, p in law.points.items()}
    if all(q >= 0 for q in feat.values()) and all(w in law.points for w, p in base.items() if p):
        return dict(base), {w: q for w, q in feat.items() if q}, Fraction(0)
    return (f"the distribution of feature '{feature}' is not available, and the round's own law less its "
            f"rounds without a feature is not a law")


def _law_parts(rules: SessionRules, s: Fraction, cost: Fraction, nof: dict, feat: dict,
               cap_currency) -> dict:
    """Per end reason (and ``None``: the round does not stop the session) the sub-law of the
    change ``s (w - c)`` in currency: ``{reason: {change: p}}``."""
    parts: dict = {}
    for is_feat, law in ((False, nof), (True, feat)):
        for w, p in law.items():
            if cap_currency is not None:
                w = min(w, cap_currency / s)
            why = None
            if rules.stop_on_any_win and w > 0:
                why = "any win"
            elif rules.stop_on_feature and is_feat:
                why = "feature"
            elif rules.stop_single_win_above is not None and s * w >= rules.stop_single_win_above:
                why = "single win"
            d = parts.setdefault(why, defaultdict(Fraction))
            d[s * (w - cost)] += p
    return parts


class _Acc:
    """A growable vector on grid indices (object Fractions or float64): ``a`` from index ``off``.

    It grows with room to spare on the side it grows (a chain's lumped tail moves up round after
    round: no new array each time)."""

    def __init__(self, exact: bool):
        self.exact = exact
        self.off = 0
        self._base = 0  # grid index of _buf[0]
        self._n = 0
        self._buf = np.zeros(0, dtype=object if exact else float)

    @property
    def a(self) -> np.ndarray:
        i = self.off - self._base
        return self._buf[i: i + self._n]

    @a.setter
    def a(self, value: np.ndarray):
        self._buf, self._base, self._n = value, self.off, len(value)

    def add(self, off: int, arr: np.ndarray):
        if len(arr) == 0:
            return
        if self._n == 0:
            self.off, self.a = off, arr.copy()
            return
        lo, hi = min(self.off, off), max(self.off + self._n, off + len(arr))
        if lo < self._base or hi > self._base + len(self._buf):
            room = (hi - lo) // 2 + 16
            blo = lo - room if lo < self.off else lo
            bhi = hi + room if hi > self.off + self._n else hi
            na = np.zeros(bhi - blo, dtype=self._buf.dtype)
            if self.exact:
                na[:] = 0
            na[self.off - blo: self.off - blo + self._n] = self.a
            self._buf, self._base = na, blo
        self.off, self._n = lo, hi - lo
        self.a[off - lo: off - lo + len(arr)] += arr


def _conv(a: np.ndarray, b: np.ndarray, exact: bool, cache: dict | None = None,
          key=None, out: np.ndarray | None = None, work=None) -> tuple[np.ndarray, float]:
    """Convolution and its L1 rounding bound per unit of ``|a| |b|``.

    Direct sums (exact, or float64 of non-negative terms: ``(m + 2) u`` relative) for small
    sizes; otherwise by real FFT at a fast length (the law's transform kept in ``cache``
    under ``(key, length)``), with the a-priori bound ``sqrt(n) 50 log2(n) u`` of
    :mod:`analytic.features.laws.retrigger_law`, negative entries clipped to 0.  ``out`` (certified
    only): an array of at least ``len(a) + len(b) - 1`` entries the convolution is written to (the rest
    left as it is; returned); ``work`` (a :class:`_Work`): the FFT's arrays are taken from it.
    """
    if exact:
        return np.convolve(a, b), 0.0
    m = min(len(a), len(b))
    if len(a) * len(b) <= 1 << 20 or m < 64:
        c = np.convolve(a, b)
        if out is not None:
            out[: len(c)] = c
            c = out
        return c, (m + 2) * _U / (1 - (m + 2) * _U)
    from scipy import fft

    n = len(a) + len(b) - 1
    size = fft.next_fast_len(n, real=True)
    if cache is not None:
        fb = cache.get((key, size))
        if fb is None:
            fb = cache[(key, size)] = fft.rfft(b, size)
    else:
        fb = fft.rfft(b, size)
    if out is None:
        out = np.empty(n)
    if work is not None and _NP_FFT_OUT:  # numpy's pocketfft into reused arrays (no allocation a round)
        ca = np.fft.rfft(a, size, out=work.get(("rfft", size), size // 2 + 1, complex))
        np.multiply(ca, fb, out=ca)
        ra = np.fft.irfft(ca, size, out=work.get(("irfft", size), size))
        np.clip(ra[:n], 0.0, None, out=out[:n])
    else:
        np.clip(fft.irfft(fft.rfft(a, size) * fb, size)[:n], 0.0, None, out=out[:n])
    return out, math.sqrt(n) * 50 * math.log2(n) * _U + 4 * _U


#: numpy's FFT writes into a given array (numpy 2).
_NP_FFT_OUT = int(np.__version__.split(".")[0]) >= 2


class _Work:
    """Work arrays of one certified chain, reused round after round: the FFT's, and the convolutions'
    outputs keyed by the law part and the round's parity (a round's output is live through the next
    round only: what outlives it -- absorbed mass, snapshots, the lumped tail -- is copied)."""

    def __init__(self):
        self.d: dict = {}

    def get(self, key, n: int, dtype=float) -> np.ndarray:
        b = self.d.get(key)
        if b is None or len(b) < n:
            b = self.d[key] = np.empty(n + n // 4 + 16, dtype=dtype)
        return b[:n]


#: A far atom of a sparse round law costs about as much as this many more points of the FFT's length
#: (:func:`_split_law`).
ATOM_COST = 512
#: At most this many far atoms per law part (:func:`_split_law`).
MAX_ATOMS = 64


def _split_law(la: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """``(D, offs, probs)``: a law on the balance grid split into its dense core ``la[:D]`` and the far
    atoms ``la[offs]`` above it (at most :data:`MAX_ATOMS`), the split minimising ``D + ATOM_COST m``
    (``m`` atoms): a feature's few large wins (up to the cap) then do not stretch every round's FFT
    to the cap's length."""
    nz = np.flatnonzero(la)
    if len(nz) == 0:
        return len(la), np.zeros(0, dtype=np.int64), np.zeros(0)
    best, cut = None, len(nz)
    for c in range(max(1, len(nz) - MAX_ATOMS), len(nz) + 1):  # core: nz[:c]
        cost = int(nz[c - 1]) + 1 + ATOM_COST * (len(nz) - c)
        if best is None or cost < best:
            best, cut = cost, c
    offs = nz[cut:].astype(np.int64)
    return int(nz[cut - 1]) + 1, offs, la[offs].astype(float)


def _conv_split(a: np.ndarray, la: np.ndarray, split, cache: dict, key, work=None,
                parity: int = 0) -> tuple[np.ndarray, float]:
    """:func:`_conv` (certified) of ``a`` with a law split by :func:`_split_law`: the core by
    :func:`_conv`, the far atoms added by :func:`analytic.solver.session_kernel.scatter_atoms`.

    Rounding: the core's bound ``e`` per unit of ``|a| |core|``; each entry then adds at most ``m``
    non-negative products (``m`` atoms) to the core's clipped non-negative value: ``(m + 2) u`` of the
    exact sum more, so ``e (1 + (m + 2) u) + (m + 2) u (1 + e)`` per unit of ``|a| |law|``.
    ``work``: a :class:`_Work` whose arrays (``(key, parity)``) hold the output.
    """
    D, offs, probs = split
    n = len(a) + len(la) - 1
    out = work.get((key, parity), n) if work is not None else np.empty(n)
    if len(offs) == 0:
        return _conv(a, la, False, cache, key, out=out, work=work)
    from analytic.solver.session_kernel import scatter_atoms

    out[len(a) + D - 1:] = 0.0
    e = _conv(a, la[:D], False, cache, key, out=out, work=work)[1]
    scatter_atoms(out, a, offs, probs)
    m = len(offs)
    return out, e * (1 + (m + 2) * _U) + (m + 2) * _U * (1 + e)


def session_law(rules: SessionRules, nof: Mapping, feat: Mapping, cost: Fraction, *,
                law_error: Fraction = Fraction(0), mean_win=None, cap_currency=None,
                method: str = "auto", snapshots=(), lump_high: bool = False,
                trim: float | None = None, lump_above: int | None = None, progress=None,
                work_limit: float | None | str = "default", chains: int = 1) -> SessionLaw:
    """Run the session chain (see the module docstring).

    Parameters
    ----------
    rules : SessionRules
    nof, feat : Mapping[Fraction, Fraction]
        Sub-laws of the round win (total-bet multiples) of rounds without and
        with a feature; together a probability law.  Without the
        ``feature`` stop rule a single law may be passed as ``nof``.
    cost : Fraction
        Price of a round in total bets.
    law_error : Fraction
        Total-variation bound of the round's law (0: exact).
    mean_win : Figure, optional
        The exact (or bounded) mean round win of the law given (capped where the law is); default the
        law's.
    cap_currency : Fraction, optional
        Currency cap of a round (unit of the bet).
    method : {'auto', 'exact', 'certified'}
    snapshots : iterable of int
        Round counts ``t < rules.rounds`` at which the law of the same session
        cut at ``t`` rounds is also taken (the live mass at ``t`` ends by
        ``rounds``): it is the law of ``rules`` with ``rounds = t``, read
        off the one chain (the chain's first ``t`` rounds do not depend on
        ``N``); in :attr:`SessionLaw.snapshots` (``returns`` not tracked: None).
    lump_high : bool
        Certified method, no stop rule but ruin and the rounds, no bet ladder
        only (else ignored): after round ``t`` the mass at a balance ``b >= B0
        + (N - t) c s + G`` can be neither ruined nor end at or below the
        start in the rounds left (a round loses at most its price); the part
        of it in the upper tail of mass at most :data:`LUMP` is taken out of
        the chain: it plays every remaining round (Wald's
        ``A``), ends by ``rounds`` above the start, and is placed in the final
        law at its balance when taken out; only where above the start it
        ends is unknown, so the balance quantiles widen by its mass
        (:attr:`SessionLaw.lumped`, at most ``N`` :data:`LUMP`).  Returns
        are not tracked.  The live vector then ends where its upper tail
        falls to :data:`LUMP` (or at ``(N - t) c s / G`` grid points above
        the start), not where it falls to :data:`TRIM`: a heavy-tailed
        round law's spread of several top wins is cut.
    trim : float, optional
        Certified method: the upper-tail mass dropped each round into the
        error (default :data:`TRIM`, or the round law's own bound when
        larger).  The coarse-grid chains of
        :func:`analytic.solver.session_bounds.coarse_session` drop more
        (their bracket is far wider than the error).
    lump_above : int, optional
        With ``lump_high``: also take out, after every round, all the live
        mass above grid index ``lump_above`` (relative to the start), as if
        it survived every round left above that index.  Not the session's
        law: only an upper chain of
        :func:`analytic.solver.session_bounds.coarse_session` (more optimistic
        than the law it runs, so still above the true session) uses it.
    progress : callable, optional
        Called ``progress(t, N)`` before each round ``t`` (changes no figure).
    work_limit : float or None
        Certified method: refuse (before the chain) when :func:`certified_work` times ``chains``
        exceeds it (``"default"``: :data:`CERTIFIED_LIMIT`, about 5 minutes); None: no limit.
    chains : int
        Chains of this size the caller runs for one session (two for a bracketed or coarse one):
        the estimate is multiplied by it.

    Returns
    -------
    SessionLaw

    Raises
    ------
    SessionRefused
        ``method='exact'`` with an inexact law, or a grid too fine; a certified chain whose
        estimated work exceeds ``work_limit`` (``option`` ``rounds``).
    """
    from analytic.solver.session_kernel import tail_start, top_cut

    levels = rules.levels
    N = rules.rounds
    per_level = [_law_parts(rules, s, cost, nof, feat, cap_currency) for s in levels]
    changes = [x for parts in per_level for d in parts.values() for x in d]
    prices = [cost * s for s in levels]
    G = _fgcd(changes + prices + [rules.balance - p for p in prices]
              + [x for x in (rules.stop_cash_up, rules.stop_cash_down) if x is not None])
    if G == 0:
        G = Fraction(1)
    exact_law = law_error == 0 and all(isinstance(p, Fraction) for p in list(nof.values()) + list(feat.values()))
    kparts = []
    for parts in per_level:
        row = {}
        for why, d in parts.items():
            ks = {int(x / G): p for x, p in d.items() if p}
            if not ks:
                continue
            lo, hi = min(ks), max(ks)
            if hi - lo + 1 > MAX_LAW_GRID:
                _refuse_fine_grid(rules, per_level, prices, G, hi - lo + 1)
            row[why] = (lo, ks)
        kparts.append(row)
    width = max((max(ks) - lo + 1 for row in kparts for lo, ks in row.values()), default=1)
    if method == "auto":
        span = int(rules.balance / G) + width * min(N, 50)
        method = "exact" if exact_law and N * span * width <= EXACT_BUDGET else "certified"
    if method == "exact" and not exact_law:
        raise SessionRefused("the round's law is not exact (a grid law, within a certified error): its sessions "
                             "are never exact; use the certified method (or auto)", option="method")
    exact = method == "exact"
    zero = 0 if exact else 0.0
    kup = math.ceil(rules.stop_cash_up / G) if rules.stop_cash_up is not None else None
    kdn = -math.ceil(rules.stop_cash_down / G) if rules.stop_cash_down is not None else None
    # exact: integer weights over the common denominator D of the law; a vector after round t
    # holds numerators over D**t, every accumulator numerators over D**N (no gcd until the end)
    D = 1
    if exact:
        for d in list(nof.values()) + list(feat.values()):
            D = math.lcm(D, Fraction(d).denominator)
        work = exact_work(N, width, int(rules.balance / G), D.bit_length(), kup, kdn)
        if work > EXACT_LIMIT:
            raise SessionRefused(f"an exact session of {N:,} rounds would take about {work:.1e} multiply-adds of "
                                 f"big integers (the limit is {EXACT_LIMIT:.0e}, about 5 minutes): use the certified "
                                 "method (or auto), fewer rounds, or cash up / down stops", option="method")
    DN = D ** N if exact else 1
    arrs = []
    for row in kparts:
        ra = {}
        for why, (lo, ks) in row.items():
            a = np.zeros(max(ks) - lo + 1, dtype=object if exact else float)
            if exact:
                a[:] = 0
            for k, p in ks.items():
                a[k - lo] = int(p * D) if exact else float(p)
            ra[why] = (lo, a)
        arrs.append(ra)

    # smallest grid index that affords rung j: B0 + k G >= price_j
    ka = [math.ceil((p - rules.balance) / G) for p in prices]
    nl = len(levels)
    final = _Acc(exact)
    reason_time = {w: np.array([zero] * (N + 1), dtype=object if exact else float) for w in REASONS}
    alive = [np.array([zero] * N, dtype=object if exact else float) for _ in range(nl)]
    ret_exact: dict = defaultdict(int)
    bins = 1e-3
    ret_hist = np.zeros(0)
    lump = (lump_high and method == "certified" and nl == 1 and not (
        rules.stop_on_any_win or rules.stop_on_feature or rules.stop_single_win_above is not None
        or rules.stop_cash_up is not None or rules.stop_cash_down is not None))
    track_ret = nl == 1 and not lump
    lumped = np.zeros(N + 1)  # mass taken out after round t (lump_high)
    step = cost * levels[0] / G  # grid points a round's price spans
    step_n, step_d = step.numerator, step.denominator  # (ceil((N - t - 1) step) in integers, round by round)
    err = 0.0
    snap_at = sorted({int(x) for x in snapshots if 0 < int(x) < N})
    lump_final = _Acc(False)
    snaps: list = []

    def snapshot(t, live):
        """The session cut after round ``t``: what is absorbed so far plus the live mass (reason
        ``rounds``), in the accumulators' scale (exact: numerators over ``D**N``)."""
        acc = _Acc(exact)
        if len(final.a):
            acc.add(final.off, final.a)
        rt = {w: v[: t + 1].copy() for w, v in reason_time.items()}
        for jj in range(nl):
            if live[jj] is not None:
                off, a = live[jj]
                if exact:
                    a = a * D ** (N - t)
                acc.add(off, a)
                rt["rounds"][t] += a.sum()
        al = [v[:t].copy() for v in alive]
        if lump:
            al[0] = al[0] + np.cumsum(lumped[:t])
            if len(lump_final.a):
                acc.add(lump_final.off, lump_final.a)
            rt["rounds"][t] += lumped[: t + 1].sum()
        snaps.append((t, acc.off, acc.a, rt, al, err + t * float(law_error), float(lumped[: t + 1].sum())))

    def absorb(why, t, off, a, j):
        nonlocal ret_hist
        if len(a) == 0:
            return
        s = a.sum()
        if not s:
            return
        if exact:
            f = D ** (N - t)
            a, s = a * f, s * f
        reason_time[why][t] += s
        final.add(off, a)
        if track_ret and t > 0:
            staked = t * prices[0]
            if exact:
                for i in np.flatnonzero(a != 0):
                    ret_exact[1 + (off + int(i)) * G / staked] += a[i]
            else:
                ks = np.arange(off, off + len(a), dtype=float)
                r = 1 + ks * float(G) / float(staked)
                idx = np.clip(np.floor(np.maximum(r, 0) / bins).astype(np.int64), 0, 10**6)
                h = np.bincount(idx, weights=a)
                if len(h) > len(ret_hist):
                    ret_hist = np.concatenate([ret_hist, np.zeros(len(h) - len(ret_hist))])
                ret_hist[: len(h)] += h

    def settle(t, j, off, a, live):
        """Barriers on the continuing mass at rung j after round t; survivors into ``live``."""
        hi = off + len(a)
        if kup is not None and hi > kup:
            c = max(kup, off)
            absorb("cash up", t, c, a[c - off:], j)
            a = a[: max(c - off, 0)]
            hi = off + len(a)
        if kdn is not None and off <= kdn:
            c = min(kdn + 1, hi)
            absorb("cash down", t, off, a[: c - off], j)
            a = a[c - off:]
            off = c
        # rungs: mass that cannot afford rung j moves to the largest affordable rung below
        jj = j
        while len(a):
            if off >= ka[jj]:
                live[jj] = _merge(live[jj], off, a, exact)
                break
            c = min(ka[jj], off + len(a))
            low, high = a[: c - off], a[c - off:]
            if len(high):
                live[jj] = _merge(live[jj], c, high, exact)
            if jj == 0:
                absorb("ruin", t, off, low, 0)
                break
            a, jj = low, jj - 1

    live: list = [None] * nl
    fcache: dict = {}
    work = _Work()
    splits = {} if exact else {(j, why): _split_law(la) for j, ra in enumerate(arrs) for why, (_, la) in ra.items()}
    if work_limit == "default":
        work_limit = CERTIFIED_LIMIT
    if not exact and work_limit is not None:  # before the chain: refuse what would run far beyond minutes
        _check_certified_work(rules, kparts, splits, G, ka, kup, kdn, step if lump else None, cost * rules.bet / G,
                              chains, cap_currency, work_limit, coarse=trim is not None)
    trim = max(TRIM if trim is None else float(trim), float(law_error))
    # the start: lower the bet at once when the balance does not cover it
    start = np.array([1 if exact else 1.0], dtype=object if exact else float)
    settle(0, nl - 1, 0, start, live)
    for t in range(N):
        if progress is not None:
            progress(t, N)  # (rounds done, rounds in all: before each round)
        nxt: list = [None] * nl
        for j in range(nl):
            if live[j] is None:
                continue
            off, a = live[j]
            if not exact:
                tot = a.sum()
                if tot < trim:
                    err += float(tot)
                    continue
                # trim the upper tail
                cut, cmass = top_cut(a, trim)
                if cut:
                    err += cmass
                    a = a[: len(a) - cut]
            mass = a.sum() if exact or cut else tot  # (untrimmed: the same vector's sum, the same float)
            alive[j][t] += mass * D ** (N - t) if exact else mass
            for why, (lo, la) in arrs[j].items():
                if exact:
                    c, e = _conv(a, la, True)
                else:
                    c, e = _conv_split(a, la, splits[(j, why)], fcache, (j, why), work, t % 2)
                if not exact:
                    err += e * float(mass) + 4 * _U * float(mass)
                if why is None:
                    settle(t + 1, j, off + lo, c, nxt)
                else:
                    absorb(why, t + 1, off + lo, c, j)
        live = nxt
        if lump and live[0] is not None:
            off, a = live[0]
            k = -(-(N - t - 1) * step_n // step_d) + 1 - off  # first index safe for the rounds left
            if k < len(a):
                k = max(k, tail_start(a, LUMP))  # and the tail from k at most LUMP
            if lump_above is not None:  # an upper chain: everything above lump_above (coarse_session)
                k = min(k, lump_above + 1 - off)
            if k < len(a):
                part = a[max(k, 0):]
                lumped[t + 1] += part.sum()
                lump_final.add(off + max(k, 0), part)
                a = a[: max(k, 0)]
                live[0] = (off, a) if len(a) else None
        if snap_at and t + 1 == snap_at[0]:
            snapshot(snap_at.pop(0), live)
    for j in range(nl):
        if live[j] is not None:
            absorb("rounds", N, live[j][0], live[j][1], j)
    if lump:
        if len(lump_final.a):
            final.add(lump_final.off, lump_final.a)
        alive[0] = alive[0] + np.cumsum(lumped[:N])
        reason_time["rounds"][N] += lumped.sum()
    err += N * float(law_error)
    if exact:
        err = 0.0
        final.a = np.array([Fraction(x, DN) for x in final.a], dtype=object)
        reason_time = {w: np.array([Fraction(x, DN) for x in v], dtype=object) for w, v in reason_time.items()}
        alive = [np.array([Fraction(x, DN) for x in v], dtype=object) for v in alive]
        ret_exact = {k: Fraction(v, DN) for k, v in ret_exact.items()}
    if mean_win is None:
        mw = sum((w * p for d in (nof, feat) for w, p in d.items()), Fraction(0))
        mean_win = Figure(Fraction(mw), "exact" if exact_law else "bounded", Fraction(0))
    mws = []
    for s in levels:
        if cap_currency is not None and any(w > cap_currency / s for d in (nof, feat) for w in d):
            m = sum((min(w, cap_currency / s) * p for d in (nof, feat) for w, p in d.items()), Fraction(0))
            mws.append(Figure(m, "exact" if law_error == 0 else "bounded", law_error * cap_currency / s))
        else:
            mws.append(mean_win)
    returns = None
    if track_ret:
        returns = dict(ret_exact) if exact else (bins, ret_hist)
    cuts = {}
    for t, off, fa, rt, al, e, lm in snaps:
        if exact:
            fa = np.array([Fraction(x, DN) for x in fa], dtype=object)
            rt = {w: np.array([Fraction(x, DN) for x in v], dtype=object) for w, v in rt.items()}
            al = [np.array([Fraction(x, DN) for x in v], dtype=object) for v in al]
        cuts[t] = SessionLaw(replace(rules, rounds=t), G, off, fa, rt, al, None, 0.0 if exact else e,
                             "exact" if exact else "certified", mws, cost, {}, lm)
    return SessionLaw(rules, G, final.off, final.a, reason_time, alive, returns, err,
                      "exact" if exact else "certified", mws, cost, cuts, float(lumped.sum()))


def exact_work(rounds: int, width: int, start: int, bits: int, up: int | None = None,
               down: int | None = None) -> float:
    """Estimated work of the exact session chain, in 64-bit limb multiply-adds.

    Round ``t`` convolves the live balances (at most ``t * width`` grid
    points, within the barriers: ruin at ``-start``, cash down at ``down``,
    cash up at ``up``) with the round law's ``width`` points: products of
    integers of about ``t * bits`` bits (numerators over ``D**t``, ``bits``
    the bit length of the law's common denominator ``D``) by the law's
    ``bits``-bit weights, each about ``(1 + t * bits / 64) * max(1, bits /
    64)`` limb products: ``sum_t span_t * width * (1 + t * bits / 64) *
    max(1, bits / 64)``.

    Parameters
    ----------
    rounds, width, start, bits : int
        ``N``; the law's span on the balance grid; the start in grid steps;
        ``D``'s bit length.
    up, down : int or None
        The cash up / down barriers in grid steps from the start (``down`` negative).

    Returns
    -------
    float
    """
    lo = -start if down is None else max(down, -start)
    room = math.inf if up is None else up - lo
    t = np.arange(1, rounds + 1, dtype=float)
    return float(np.sum(np.minimum(t * width, room) * width * (1 + t * bits / 64)) * max(1.0, bits / 64))


def certified_work(rounds: int, law_lo: int, law_width: int, mean: float, sd: float, *, low: int | None = None,
                   high: int | None = None, lump_step: float | None = None, atoms: int = 0) -> float:
    """Estimated work of one certified session chain (float64 operations), before it runs.

    The live vector after round ``t`` spans ``K_t`` grid points: its bottom is
    exactly ``max(t * law_lo, low)`` (a round moves the balance down by at most
    ``-law_lo`` points and nothing trims the bottom but the lower barrier), its
    top (where the upper tail of mass :data:`TRIM` is cut) at least about ``t
    mean + 2 sd sqrt(t)`` (the walk's mean and two standard deviations: about
    its 98 % quantile, far below the cut) and at least ``2 sd sqrt(t)`` above
    the bottom (once the drift takes the mean below the lower barrier the mass
    left alive is the upper tail's, spread as widely), and at most the upper barrier
    ``high`` and, with ``lump_high``, ``(N - t) * lump_step`` above the start.  Round
    ``t`` costs what :func:`_conv` chooses for ``K_t`` and the law's
    ``law_width`` points: ``K M`` direct multiply-adds when ``K M <= 2^20`` or
    either is under 64 points, else :data:`FFT_UNIT` ``L log2 L`` for the FFT of
    length ``L = K + M - 1``; plus :data:`POINT_UNIT` ``K`` of bookkeeping and
    ``atoms K`` for the far atoms.  The estimate leaves out the upper tail's
    own spread (a heavy-tailed law's top wins), so it is a lower estimate: a
    chain it refuses would run at least that long.

    Parameters
    ----------
    rounds : int
        ``N``.
    law_lo : int
        The round law's smallest change in grid points (negative: a round's price).
    law_width : int
        The law's span (its dense core) in grid points.
    mean, sd : float
        The round's mean change and its standard deviation, grid points.
    low, high : int, optional
        Lowest and highest live grid index relative to the start (ruin or cash down; cash up).
    lump_step : float, optional
        ``lump_high``'s safe distance per round left, grid points (the par sheet's chains).
    atoms : int
        Far atoms added outside the FFT (:func:`_split_law`).

    Returns
    -------
    float
        Work units (compare :data:`CERTIFIED_LIMIT`).
    """
    N = int(rounds)
    t = np.arange(1, N + 1, dtype=float)
    bottom = t * min(law_lo, 0)
    if low is not None:
        bottom = np.maximum(bottom, float(low))
    spread = 2.0 * float(sd) * np.sqrt(t)
    top = np.maximum(t * float(mean) + spread, bottom + spread)
    if high is not None:
        top = np.minimum(top, float(high))
    if lump_step is not None:
        top = np.minimum(top, (N - t) * float(lump_step) + 1)
    K = np.maximum(top - bottom + 1, 1.0)
    M = float(max(law_width, 1))
    direct = (K * M <= float(1 << 20)) | (np.minimum(K, M) < 64)
    L = K + M - 1
    conv = np.where(direct, K * M, FFT_UNIT * L * np.log2(np.maximum(L, 2.0)))
    return float(np.sum(conv + (POINT_UNIT + atoms) * K))


def _check_certified_work(rules: SessionRules, kparts, splits, G: Fraction, ka, kup, kdn, lump_step, price,
                          chains: int, cap_currency, limit: float, coarse: bool = False) -> None:
    """SessionRefused (``option`` ``rounds``) when :func:`certified_work` of the chain about to run, times
    ``chains``, exceeds ``limit``; the reason names what would make it run."""
    lo_min = min((lo for row in kparts for lo, _ in row.values()), default=0)
    width = max((D for D, _, _ in splits.values()), default=1)
    atoms = max((len(offs) for _, offs, _ in splits.values()), default=0)
    # the mean change of the selected bet's round, in grid points (all parts: a probability law)
    mean = sum(float(p) * k for _, ks in kparts[-1].values() for k, p in ks.items())
    sd = math.sqrt(max(sum(float(p) * (k - mean) ** 2 for _, ks in kparts[-1].values() for k, p in ks.items()), 0.0))
    low = ka[0] if kdn is None else max(ka[0], kdn + 1)
    high = kup - 1 if kup is not None else None
    work = chains * certified_work(rules.rounds, lo_min, width, mean, sd, low=low, high=high,
                                   lump_step=float(lump_step) if lump_step is not None else None, atoms=atoms)
    if work <= limit:
        return
    minutes = work / CERTIFIED_RATE / 60
    ways = ["fewer rounds", "a cash-up or cash-down stop (the barriers bound the balance's spread)",
            "a coarser bet unit (amounts on a coarser grid)"]
    if (not coarse and cap_currency is None and len(rules.levels) == 1 and not rules.stop_on_any_win
            and not rules.stop_on_feature and rules.stop_single_win_above is None and rules.stop_cash_up is None
            and rules.stop_cash_down is None and price > 20):
        ways.append("--method coarse (the coarse grid's bracket)")
    raise SessionRefused(f"a certified session of {rules.rounds:,} rounds on a balance grid of {G} would take about "
                         f"{work:.1e} operations (estimated before the chain: at least about {minutes:,.0f} minutes "
                         f"of CPU; the limit is {limit:.1e}, about 5 minutes): give " + ", ".join(ways[:-1])
                         + f" or {ways[-1]}", option="rounds")


def _refuse_fine_grid(rules: SessionRules, per_level, prices, G: Fraction, points: int):
    """SessionRefused: the round's law spans ``points`` > :data:`MAX_LAW_GRID` points of the balance
    grid ``G``; naming the setting (``option``) that makes the grid finer than the round's own at the
    selected bet, when one does (else a limit of the solver: no option)."""
    own = _fgcd([x for d in per_level[-1].values() for x in d] + [prices[-1]]) or Fraction(1)
    why = f"the round's law spans {points} points of the balance grid {G} (limit {MAX_LAW_GRID})"
    if G >= own:
        raise SessionRefused(why + ": that is the round's own grid at this bet, so no amount makes it coarser; "
                                   "a session of this mode is not solved")
    culprits = []
    if ((rules.balance - prices[-1]) / own).denominator != 1:
        culprits.append("balance")
    for k in ("stop_cash_up", "stop_cash_down"):
        v = getattr(rules, k)
        if v is not None and (v / own).denominator != 1:
            culprits.append(k)
    if len(rules.levels) > 1 and any((x / own).denominator != 1 for parts in per_level[:-1]
                                     for d in parts.values() for x in list(d) + prices[:-1]):
        culprits.append("bet_ladder")
    names = ", ".join(k.replace("_", "-") for k in culprits) or "balance, stop amounts, bet ladder"
    raise SessionRefused(why + f": the amounts ({names}) are not multiples of the round's own grid {own}; give "
                               f"the balance, stop amounts and bet ladder as multiples of it",
                         option=culprits[0] if culprits else "balance")


def _merge(cur, off, a, exact):
    if cur is None:  # (a: a fresh convolution or a slice of one, written nowhere else)
        return off, a
    acc = _Acc(exact)
    acc.add(cur[0], cur[1])
    acc.add(off, a)
    return acc.off, acc.a


# ----------------------------------------------------------------------------
# figures


def _fig(v, err: float, exact: bool) -> Figure:
    if exact:
        return Figure(Fraction(v))
    return Figure(Fraction(float(v)), "bounded", Fraction(err))


def _quantiles(value, probs: np.ndarray, err: float, exact: bool) -> dict:
    """``{q: value(i)}`` exact, or ``{q: (value(lo), value(hi))}`` certified, ``i`` the first index
    where the cumulative law reaches ``q`` (``probs`` in ascending order of ``value``)."""
    out = {}
    n = len(probs)
    if exact:
        cdf = list(np.cumsum(probs)) if n else []
        import bisect

        for q in QUANTILES:
            out[q] = value(min(bisect.bisect_left(cdf, q), n - 1))
        return out
    cdf = np.cumsum(probs)
    for q in QUANTILES:
        lo = int(np.searchsorted(cdf + err, float(q)))
        hi = int(np.searchsorted(cdf - err, float(q)))
        out[q] = (value(min(lo, n - 1)), value(min(hi, n - 1)))
    return out


@dataclass(frozen=True)
class SessionResult:
    """Figures of a session (amounts in the unit of the bet; see the module docstring).

    Attributes
    ----------
    method : str
        ``exact`` or ``certified``.
    error : float
        Total-variation bound of the session's law (each probability within it).
    balance_mean : Figure
        Mean final balance (Wald's identity).
    balance_quantiles : dict
        Level -> balance (exact) or (low, high) interval.
    p_above_start : Figure
        ``P(final balance > start)``.
    reasons : dict str -> Figure
        Probability that each rule ends the session (the rules in force only).
    rounds_mean : Figure
        Expected rounds played.
    rounds_quantiles : dict
    rounds_law : ndarray
        ``P(T = t)``, t = 0 .. N.
    ruin : Figure
        ``P(ruin within N rounds)`` (balance below the smallest bet's price).
    rounds_to_ruin : Figure or None
        ``E[T | ruin]`` (None when ruin is impossible).
    return_quantiles : dict or None
        Total won / total staked, over sessions that played a round; certified:
        intervals of bin width 0.001.  None with a bet ladder.
    return_mean : Figure or None
        Exact method only.
    law : SessionLaw
    """

    method: str
    error: float
    balance_mean: Figure
    balance_quantiles: dict
    p_above_start: Figure
    reasons: dict
    rounds_mean: Figure
    rounds_quantiles: dict
    rounds_law: np.ndarray
    ruin: Figure
    rounds_to_ruin: Figure | None
    return_quantiles: dict | None
    return_mean: Figure | None
    law: SessionLaw = field(repr=False)
    #: Method ``bounded`` (:mod:`analytic.solver.session_bounds`): figure -> why it is only trivially
    #: bracketed or not given.
    notes: dict = field(default_factory=dict)
    #: Method ``bounded``: ``ruin_by_round`` (upper bound of P(ruin within t)), ``rounds_cdf`` (lower and
    #: upper bounds of P(T <= t)), ``snapshots`` (round count -> SessionResult), ``law_hi`` (the chain
    #: of the larger law; ``law`` is the smaller's).
    bracket: dict = field(default_factory=dict, repr=False)

    def to_json(self) -> dict:
        """Plain JSON-ready figures; a probability's ``value +/- error`` within [0, 1]
        (:meth:`~analytic.figures.Figure.published_within`)."""
        def q(d):
            if d is None:
                return None
            return {str(float(k)): ([float(v[0]), float(v[1])] if isinstance(v, tuple) else float(v))
                    for k, v in d.items()}
        return {
            "method": self.method, "error": self.error,
            "balance_mean": self.balance_mean.to_json(), "balance_quantiles": q(self.balance_quantiles),
            "p_above_start": self.p_above_start.published_within().to_json(),
            "reasons": {k: v.published_within().to_json() for k, v in self.reasons.items()},
            "rounds_mean": self.rounds_mean.to_json(), "rounds_quantiles": q(self.rounds_quantiles),
            "ruin": self.ruin.published_within().to_json(),
            "rounds_to_ruin": self.rounds_to_ruin.to_json() if self.rounds_to_ruin else None,
            "return_quantiles": q(self.return_quantiles),
            "return_mean": self.return_mean.to_json() if self.return_mean else None,
            **({"notes": {k: v for k, v in self.notes.items()}} if self.notes else {}),
        }


def figures(law: SessionLaw) -> SessionResult:
    """The session's figures from its law."""
    R = law.rules
    exact = law.method == "exact"
    E = law.error
    N = R.rounds
    fa = law.final
    # mass taken out by lump_high ends above the start at an unknown place: the quantiles widen by it
    bq = _quantiles(lambda i: R.balance + (law.offset + i) * law.grid, fa, E + law.lumped, exact)
    first = max(1 - law.offset, 0)  # grid index > 0: above the start
    above = fa[first:].sum() if first < len(fa) else (Fraction(0) if exact else 0.0)
    # Wald: E[B_T] = B0 + sum_j s_j (mu_j - c) A_j
    mean = R.balance
    merr = Fraction(0)
    for j, s in enumerate(R.levels):
        A = sum(law.alive[j], Fraction(0) if exact else 0.0)
        mu = law.mean_win[j]
        mean += s * (mu.value - law.cost) * Fraction(A)
        merr += s * (abs(mu.value - law.cost) * Fraction(N * E) + mu.error * N)
    exact_mean = exact and all(m.label == "exact" for m in law.mean_win)
    balance_mean = Figure(Fraction(mean)) if exact_mean else Figure(Fraction(mean), "bounded", merr)
    tl = sum(law.reason_time.values())
    reasons = {w: _fig(law.reason_time[w].sum(), E, exact) for w in REASONS if _in_force(R, w)}
    rmean = sum((t * p for t, p in enumerate(tl)), Fraction(0) if exact else 0.0)
    rq = _quantiles(lambda i: i, tl, E, exact)
    ruin_t = law.reason_time["ruin"]
    pr = ruin_t.sum()
    ttr = None
    if pr:
        m = sum((t * p for t, p in enumerate(ruin_t)), Fraction(0) if exact else 0.0) / pr
        ttr = Figure(Fraction(m)) if exact else Figure(Fraction(float(m)), "bounded",
                                                       Fraction(N * E / max(float(pr) - E, 1e-300)) if float(pr) > E
                                                       else Fraction(N))
    retq = retm = None
    if law.returns is not None:
        if exact:
            ks = sorted(law.returns)
            ps = np.array([law.returns[k] for k in ks], dtype=object)
            tot = ps.sum()
            if tot:
                retq = _quantiles(lambda i: ks[i], np.array([p / tot for p in ps], dtype=object), 0.0, True)
                retm = Figure(sum((k * p for k, p in zip(ks, ps)), Fraction(0)) / tot)
        else:
            w, h = law.returns
            tot = h.sum()
            if tot > 2 * E:
                wf = Fraction(w).limit_denominator(10**6)
                cdf = np.cumsum(h) / tot
                e2 = 2 * E / (tot - E)
                retq = {}
                n = len(h)
                for q in QUANTILES:
                    lo = int(np.searchsorted(cdf + e2, float(q)))
                    hi = int(np.searchsorted(cdf - e2, float(q)))
                    # one bin of slack each side for the float rounding of a return's bin
                    retq[q] = (wf * max(min(lo, n - 1) - 1, 0), wf * (min(hi, n - 1) + 2))
    return SessionResult(law.method, E, balance_mean, bq, _fig(above, E, exact), reasons,
                         _fig(rmean, N * E, exact), rq, tl, _fig(pr, E, exact), ttr, retq, retm, law)


def _in_force(R: SessionRules, why: str) -> bool:
    return {"any win": R.stop_on_any_win, "feature": R.stop_on_feature,
            "single win": R.stop_single_win_above is not None, "cash up": R.stop_cash_up is not None,
            "cash down": R.stop_cash_down is not None, "ruin": True, "rounds": True}[why]


# ----------------------------------------------------------------------------
# a game's session


def _refuse_early(game) -> None:
    """Refuse, before any solve, a game with a feature whose engine gives no law (and no bounds of
    the round's exceedance probabilities to bracket a session by: see :func:`_no_law`)."""
    for name, spec in game.features.items():
        if spec.engine in NO_LAW_ENGINES and spec.engine not in BOUNDED_ENGINES:
            raise SessionRefused(f"the round's law of this mode is not available: engine '{spec.engine}' "
                                 f"(feature '{name}') gives no law of the feature win yet",
                                 key=f"features.{name}.engine")


def _no_law(game) -> bool:
    """The game has a feature whose engine gives no law (its sessions are bracketed:
    :mod:`analytic.solver.session_bounds`)."""
    return any(spec.engine in NO_LAW_ENGINES for spec in game.features.values())


def features_started(game, mode: str, base=None) -> frozenset:
    """The features a round of a bet mode can start, from the model (and its base spin's combinations).

    Parameters
    ----------
    game : Game
    mode : str
    base : BaseResult, optional
        The mode's solved base spin (else solved here when needed: a spin mode of a game with
        features; :func:`analytic.engine.base_game.solve_base`, the base game's combinatorics).

    Returns
    -------
    frozenset of str
        A feature-buy mode: the feature it buys; a spin mode: the features whose trigger some stop
        combination meets, and the line-triggered bonuses when some payline can trigger one.
    """
    m = game.modes[mode]
    if m.buys is not None:
        return frozenset({m.buys})
    if not game.features:
        return frozenset()
    if base is None:
        from analytic.engine.base_game import solve_base

        base = solve_base(game, mode)
    out = {f for f, _ in base.trigger_counts}
    if any(k and c for k, c in base.line_trigger_counts.items()):
        out |= {f for counts in game.line_triggers.values() for f in counts.values()}
    return frozenset(out)


def round_law_kind(game, mode: str) -> tuple:
    """What a bet mode's solved round will give its sessions, decided from the model before any solve.

    The round has no law exactly when it can play a feature whose engine gives none
    (:data:`NO_LAW_ENGINES`); of those, a ``drawn_expanding`` round solver gives bounds of
    ``P(W >= x)`` or a certified grid law by
    :func:`analytic.features.engines.drawn_expanding.engine.round_law_kind` (the rule it solves by).
    ``tests/solver/test_session_kind.py`` checks this against :func:`bracketed` and
    :func:`analytic.solver.distribution.round_law` of the solved round on every shipped model and
    the test games.

    Parameters
    ----------
    game : Game
    mode : str

    Returns
    -------
    (str, str or None, str or None)
        ``(kind, key, reason)``; kind ``"law"`` (the engines give a law, exact or certified:
        known after the solve, which may still find the features' laws too large to combine),
        ``"grid"`` (a certified law, never exact), ``"bracketed"`` (no law, bounds of
        ``P(W >= x)``: method ``bounded``) or ``"none"`` (neither: every session refused, ``key``
        and ``reason`` say why and what would make it solvable).
    """
    if not _no_law(game):
        return "law", None, None
    played = [f for f in features_started(game, mode) if game.features[f].engine in NO_LAW_ENGINES]
    if not played:
        return "law", None, None
    for f in played:
        eng = game.features[f].engine
        if eng not in BOUNDED_ENGINES:
            return "none", f"features.{f}.engine", (f"the round's law of mode '{mode}' is not available: engine "
                                                    f"'{eng}' (feature '{f}') gives no law of the feature win yet")
    from analytic.features.engines.drawn_expanding.engine import round_law_kind as engine_kind

    k = engine_kind(game, mode)
    if k == "law":
        return "grid", None, None
    if k == "bounds":
        return "bracketed", None, None
    return "none", "cap", (f"the round of mode '{mode}' (engine 'drawn_expanding', feature '{played[0]}') has "
                           f"neither a law nor bounds of P(win >= x) without a win cap: give the game a "
                           f"[cap] total_bet_multiple (its rules' maximum win) for its sessions to be bracketed")


def check_session(game, mode: str, rules: SessionRules, method: str = "auto") -> str:
    """Refuse, before any solve, a session that :func:`solve_session` would refuse after it.

    Parameters
    ----------
    game : Game
    mode : str
    rules : SessionRules
    method : {'auto', 'exact', 'certified', 'coarse'}

    Returns
    -------
    str
        The kind of :func:`round_law_kind`.

    Raises
    ------
    SessionRefused
        With ``key`` (the model) or ``option`` (the setting) at fault: a mode whose round has
        neither a law nor bounds; ``method='exact'`` on a mode whose law is never exact
        (bracketed, or a certified grid law); a bet ladder below the bet, or a currency cap, on a
        bracketed mode (docs/sessions.md, "Rounds without a law"); ``method='coarse'`` with a setting
        the coarse chains cannot honour (:func:`analytic.solver.session_bounds.check_coarse`).
    """
    if method not in ("auto", "exact", "certified", "coarse"):
        raise SessionRefused(f"unknown method {method!r} (auto, exact, certified or coarse)", option="method")
    kind, key, why = round_law_kind(game, mode)
    if kind == "none":
        raise SessionRefused(why, key=key)
    if method == "coarse":
        from analytic.solver.session_bounds import check_coarse

        check_coarse(game, rules)
    if method == "exact" and kind in ("bracketed", "grid"):
        what = ("has no law, only certified bounds of P(win >= x): its sessions are bracketed (method "
                "'bounded', every figure an interval)" if kind == "bracketed" else
                "has a certified law (on the cap's grid, within a certified error): its sessions are certified")
        raise SessionRefused(f"mode '{mode}' {what}, never exact; use method auto or certified", option="method")
    if kind == "bracketed":
        if len(rules.levels) > 1:
            raise SessionRefused(f"a bet ladder below the bet on mode '{mode}', whose round is bounded only by its "
                                 f"exceedance probabilities: a larger balance plays a larger bet and can lose more, so "
                                 f"no session figure is monotone in the round wins and the two laws bracketing the "
                                 f"round do not bracket the session; play it without a bet ladder (or with no rung "
                                 f"below the bet)", option="bet_ladder")
        if game.cap is not None and game.cap.currency:
            raise SessionRefused(f"a currency win cap with mode '{mode}', whose round is bounded only by its "
                                 f"exceedance probabilities, is not solved (the bracket of a round capped per stake); "
                                 f"give the cap as [cap] total_bet_multiple only", key="cap.currency")
    return kind


def bracketed(game, r) -> bool:
    """Whether the sessions of the solved round ``r`` are bracketed (method ``bounded``): no law, but
    bounds of ``P(W >= x)`` (:mod:`analytic.solver.session_bounds`).  Decided before the solve, from the
    model alone, by :func:`round_law_kind` (kind ``"bracketed"``)."""
    from analytic.solver.distribution import round_law

    if not _no_law(game) or not getattr(r, "extra", None) or r.extra.get("round_tail") is None:
        return False
    return round_law(r).points is None


def _capped_mean(r) -> Figure:
    """The round's mean win with its cap applied (total bets): ``extra["capped_rtp"]`` times the cost
    where the round solver caps the RTP only (its ``mean_win`` uncapped), else ``mean_win``."""
    c = r.extra.get("capped_rtp") if r.extra else None
    if c is None:
        return r.mean_win
    return Figure(c.value * r.cost, c.label, c.error * r.cost)


def _bounded_laws(game, r):
    """The two bracketing laws of a round without a law, or SessionRefused."""
    from analytic.solver.distribution import round_law
    from analytic.solver.session_bounds import interval_laws

    law = round_law(r)
    if law.points is not None:
        return None
    if r.extra is None or r.extra.get("round_tail") is None:
        raise SessionRefused(f"the round's law of this mode is not available: {law.reason}")
    if game.cap is not None and game.cap.currency:
        raise SessionRefused("a currency win cap with a round bounded only by its exceedance probabilities",
                             key="cap.currency")
    try:
        return interval_laws(r)
    except ValueError as exc:
        raise SessionRefused(f"the round's law of this mode is not available, nor bounds to bracket it: {exc}")


def _round_law_of(game, mode, rules: SessionRules, result=None):
    """``(nof, feat, error, mean, cost, cap_currency)`` of a game's bet mode, or SessionRefused."""
    from analytic.solver.distribution import round_law
    from analytic.solver.round import solve_round

    _refuse_early(game)
    r = result if result is not None else solve_round(game, mode)
    law = round_law(r)
    if law.points is None:
        # a limit of the solver (too large to combine), not the input: kind "none" is refused before the solve
        raise SessionRefused(f"the round's law of this mode is not available: {law.reason}")
    if rules.stop_on_feature:
        sp = split_round_law(r, law)
        if isinstance(sp, str):
            raise SessionRefused(f"stop-on-feature needs the round's law of mode '{r.mode}' split by feature: {sp}; "
                                 f"play it without the feature stop", option="stop_on_feature")
        nof, feat, e = sp
        err = law.error + e
    else:
        nof, feat, err = dict(law.points), {}, law.error
    cap = game.cap.currency if game.cap is not None and game.cap.currency else None
    # the mean of the law the chain steps with: capped where the law is (drawn_expanding's mean_win is the
    # uncapped round's, its capped mean in extra['capped_rtp'])
    return nof, feat, err, _capped_mean(r), r.cost, cap


def solve_session(game, mode: str | None, rules: SessionRules, *, method: str = "auto",
                  result=None, workspace=None, progress=None) -> SessionResult:
    """Session figures of a bet mode, from its round's law.

    Parameters
    ----------
    game : Game
    mode : str or None
        Bet mode (default the first).
    rules : SessionRules
    method : {'auto', 'exact', 'certified', 'coarse'}
        ``auto``: a feature buy's session of more than :data:`~analytic.solver.session_bounds.COARSE_ROUNDS`
        rounds with no stop but ruin on the coarse grid, as the par sheet's
        (:func:`analytic.solver.session_bounds.coarse_from_law`), else exact when small, else certified;
        ``coarse``: the coarse grid whenever it can be honoured (else refused).
    result : RoundResult, optional
        The mode's solved round (else solved here).
    workspace : Workspace, optional
        The solve's :class:`analytic.workspace.Workspace` of ``game`` (its cap precision and worker
        processes; default a fresh one: precision 'standard', one process), when the round is solved here.
    progress : callable, optional
        Called ``progress(t, N)`` before round ``t`` of each chain of ``N`` rounds (several chains for
        a bracketed or coarse session); it changes no figure (the CLI's progress bar).

    Raises
    ------
    SessionRefused
        The round's law (or, for the ``feature`` stop, its split) is not
        available and the round solver gives no bounds of ``P(W >= x)`` to
        bracket it by; with such bounds (engine ``drawn_expanding``):
        ``method='exact'``, a bet ladder or a currency cap
        (:mod:`analytic.solver.session_bounds`); or the grid is too fine.
        What the model and the setting decide alone is refused before the
        solve (:func:`check_session`); ``option`` / ``key`` name the
        setting or the model key at fault.

    Returns
    -------
    SessionResult
        Method ``exact``, ``certified``, or ``bounded`` (a round without a
        law: every figure an interval between the chains of two laws
        bracketing the round, :func:`analytic.solver.session_bounds.bounded_session`; or a session
        on the coarse grid, :func:`analytic.solver.session_bounds.coarse_session`, ``bracket["coarse"]``
        set).
    """
    from analytic.solver.round import solve_rounds
    from analytic.solver.round_law_file import saved_round_law, session_from_law

    mode = mode or game.default_mode.name
    _refuse_early(game)
    check_session(game, mode, rules, method)  # what the model and the setting decide: before the solve
    # (solve_rounds: the round's prefetch too -- work side by side in the workspace's worker processes)
    r = result if result is not None else solve_rounds(game, [mode], workspace=workspace)[0]
    # the chain's inputs taken from the round exactly as a saved round law holds them (analytic session
    # --round-law): the same chain on the same numbers either way
    saved = saved_round_law(game, mode, r, split=rules.stop_on_feature, features=False)
    return session_from_law(game, saved, rules, method=method, progress=progress)


def run_session(nof, feat, cost, rules, **kw) -> SessionResult:
    """:func:`session_law` then :func:`figures` (laws given directly)."""
    return figures(session_law(rules, nof, feat, cost, **kw))


#: The par sheet's default session setting: start with 100 bets at bet 1 (amounts in
#: total bets; currency-capped models: 1 unit of the cap's currency); play 100, 1,000 and
#: 10,000 rounds with no stop but ruin; the autoplay figures stop on a feature, a single
#: win of 100 bets or more, cash up 100 bets, cash down 50 bets, or 1,000 rounds ("on any
#: win" off).
DEFAULT_SUMMARY = {"balance": 100, "bet": 1, "rounds": (100, 1000, 10000),
                   "autoplay": {"rounds": 1000, "stop_on_feature": True, "stop_single_win_above": 100,
                                "stop_cash_up": 100, "stop_cash_down": 50}}
#: Which ``[autoplay] stops`` option (model key) turns on which setting of the default autoplay.
AUTOPLAY_OPTION = {"any_win": "stop_on_any_win", "feature": "stop_on_feature",
                   "single_win": "stop_single_win_above", "cash_up": "stop_cash_up",
                   "cash_down": "stop_cash_down"}
#: Round counts (besides the horizons) at which the summary also reads the session (for plots).
CURVE_ROUNDS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)


def default_autoplay(stops) -> dict:
    """The default autoplay setting (:data:`DEFAULT_SUMMARY`) restricted to the stop options a game
    offers (``[autoplay] stops``): keyword arguments of :class:`SessionRules` besides the balance
    and bet; ``{}`` when it offers none."""
    if not stops:
        return {}
    a = DEFAULT_SUMMARY["autoplay"]
    out = {"rounds": a["rounds"]}
    for opt in stops:
        k = AUTOPLAY_OPTION[opt]
        if k in a:
            out[k] = a[k] if isinstance(a[k], bool) else Fraction(a[k])
    return out


@dataclass(frozen=True)
class SummaryResults:
    """The par sheet's session figures of one bet mode (:func:`summary_results`).

    Attributes
    ----------
    rules : SessionRules
        The longest horizon's setting (start, bet, rounds).
    horizons : dict int -> SessionResult
        Sessions of ``N`` rounds with no stop but ruin, each the one chain
        of the longest horizon cut at ``N`` (the same law as a session of
        ``N`` rounds: the chain's first ``N`` rounds do not depend on the
        horizon).
    curve : dict int -> SessionResult
        The same at :data:`CURVE_ROUNDS` (for the plots).
    ruin_by_round : ndarray, shape (N + 1,)
        ``P(ruin within t rounds)``, t = 0 .. N (the longest horizon).
    autoplay : SessionResult, str or None
        The default autoplay setting's session, a reason why not, or None
        (no autoplay stop offered).
    autoplay_rules : SessionRules or None
    """

    rules: SessionRules
    horizons: dict
    curve: dict
    ruin_by_round: np.ndarray
    autoplay: object
    autoplay_rules: SessionRules | None


def summary_results(game, mode: str | None = None, *, result=None, rounds=None, balance=None,
                    autoplay: dict | None = None, method: str = "auto") -> SummaryResults | str:
    """The par sheet's session figures of a bet mode (setting :data:`DEFAULT_SUMMARY`).

    One certified (or exact) chain of the longest horizon, read at every
    shorter horizon and at :data:`CURVE_ROUNDS`; mass that can no longer be
    ruined nor end at or below the start is taken out of the chain
    (:func:`session_law`'s ``lump_high``), which bounds its width by the
    rounds left.  Cost: ``O(N (K + M) log(K + M))`` with ``K <= N c / G``
    (see docs/sessions.md).

    Parameters
    ----------
    game : Game
    mode : str, optional
    result : RoundResult, optional
        The mode's solved round (else solved here).
    rounds : tuple of int, optional
        Horizons (default 100, 1,000, 10,000).
    balance : number, optional
        Start (default 100 bets).
    autoplay : dict, optional
        :class:`SessionRules` keywords of the autoplay setting
        (:func:`default_autoplay`); None or ``{}``: no autoplay.
    method : {'auto', 'exact', 'certified'}

    Returns
    -------
    SummaryResults, or str
        The reason when the mode's round law is not available.
    """
    from analytic.solver.round import solve_round

    d = DEFAULT_SUMMARY
    mode = mode or game.default_mode.name
    bal = Fraction(balance if balance is not None else d["balance"])
    hs = tuple(sorted(set(rounds or d["rounds"])))
    try:
        _refuse_early(game)
    except SessionRefused as exc:
        return str(exc)
    from analytic.solver.session_bounds import COARSE_ROUNDS, coarse_session, needs_coarse

    r = result if result is not None else solve_round(game, mode)
    N = hs[-1]
    rules = SessionRules(balance=bal, bet=Fraction(d["bet"]), rounds=N)
    bet = Fraction(d["bet"])

    # a feature buy's long horizons on the coarse grid (session_bounds.needs_coarse); every other mode's on its own
    buy = mode in game.modes and game.modes[mode].buys is not None

    def grid(points) -> Fraction:  # the fine chain's balance grid (session_law's G)
        return _fgcd([bet * (w - r.cost) for w in points] + [r.cost * bet, bal - r.cost * bet]) or Fraction(1)

    def split(coarse: bool):
        """(the fine chain's rounds, its snapshots, the coarse chains' snapshots)"""
        n_fine = COARSE_ROUNDS if coarse else N
        fine_snaps = {t for t in set(hs) | set(CURVE_ROUNDS) if t < n_fine}
        return n_fine, fine_snaps, {t for t in set(hs) | set(CURVE_ROUNDS) if n_fine < t < N}

    def joined(fine: dict, fine_ruin, long: dict, long_ruin):
        cut = {**fine, **long}
        ruin = np.concatenate([fine_ruin, long_ruin[len(fine_ruin):]]) if long else fine_ruin
        return cut, ruin

    if _no_law(game):
        from analytic.solver.session_bounds import bounded_summary

        try:
            laws = _bounded_laws(game, r)
        except SessionRefused as exc:
            return str(exc)
        if laws is not None:
            arules = SessionRules(balance=bal, bet=bet, **autoplay) if autoplay else None
            coarse = buy and needs_coarse(N, r.cost * bet, grid(list(laws.nof) + list(laws.lo) + list(laws.hi)))
            n_fine, fine_snaps, long_snaps = split(coarse)
            main, auto, _ = bounded_summary(r, replace(rules, rounds=n_fine), arules, fine_snaps, laws,
                                            _capped_mean(r))
            fine = dict(main.bracket["snapshots"])
            fine[n_fine] = main
            long: dict = {}
            long_ruin = None
            if coarse:
                from analytic.solver.cap import applied_cap
                from analytic.solver.session_bounds import joined_laws

                lo, hi = joined_laws(laws)
                c = coarse_session(rules, lo, hi, r.cost, _capped_mean(r), cap=applied_cap(r), snapshots=long_snaps,
                                   lump_high=True)
                long = dict(c.bracket.get("snapshots", {}))
                long[N] = c
                long_ruin = c.bracket["ruin_by_round"]
            cut, ruin = joined(fine, main.bracket["ruin_by_round"], long, long_ruin)
            return SummaryResults(rules, {t: cut[t] for t in hs}, {t: cut[t] for t in CURVE_ROUNDS if t in cut},
                                  ruin, auto, arules)
    try:
        nof, feat, err, mean, cost, cap = _round_law_of(game, mode, rules, r)
        coarse = buy and cap is None and not feat and needs_coarse(N, cost * bet, grid(nof))
        n_fine, fine_snaps, long_snaps = split(coarse)
        law = session_law(replace(rules, rounds=n_fine), nof, feat, cost, law_error=err, mean_win=mean,
                          cap_currency=cap, method=method, snapshots=fine_snaps, lump_high=True)
        long: dict = {}
        long_ruin = None
        if coarse:
            c = coarse_session(rules, nof, nof, cost, mean, snapshots=long_snaps, lump_high=True,
                               law_error=err)
            long = dict(c.bracket.get("snapshots", {}))
            long[N] = c
            long_ruin = c.bracket["ruin_by_round"]
    except SessionRefused as exc:
        return str(exc)
    cut = dict(law.snapshots)
    cut[n_fine] = law
    res = {t: figures(x) for t, x in sorted(cut.items())}
    res, ruin = joined(res, np.cumsum(law.reason_time["ruin"]), long, long_ruin)
    auto = arules = None
    if autoplay:
        arules = SessionRules(balance=bal, bet=Fraction(d["bet"]), **autoplay)
        try:
            auto = solve_session(game, mode, arules, result=r, method=method)
        except SessionRefused as exc:
            auto = str(exc)
    return SummaryResults(rules, {t: res[t] for t in hs}, {t: res[t] for t in CURVE_ROUNDS if t in res},
                          ruin, auto, arules)


def session_summary(game, mode: str | None = None, *, result=None, rounds=None,
                    balance=None, autoplay: bool = True) -> dict:
    """Session figures for the par sheet (the default setting :data:`DEFAULT_SUMMARY`) as JSON.

    Returns
    -------
    dict
        ``{"setting": ..., "sessions": {N: figures JSON}, "autoplay": figures JSON
        or {"refused": reason}}``, or ``{"refused": reason}`` when the
        round's law is unavailable.  ``autoplay``: the whole default autoplay
        setting (every stop option), whatever the game offers.
    """
    d = DEFAULT_SUMMARY
    mode = mode or game.default_mode.name
    bal = Fraction(balance if balance is not None else d["balance"])
    a = default_autoplay(tuple(AUTOPLAY_OPTION)) if autoplay else None
    if a:
        a.pop("stop_on_any_win", None)
    got = summary_results(game, mode, result=result, rounds=rounds, balance=bal, autoplay=a)
    if isinstance(got, str):
        return {"refused": got}
    out: dict = {"setting": {"balance": str(bal), "bet": str(d["bet"]), "mode": mode},
                 "sessions": {n: x.to_json() for n, x in got.horizons.items()}}
    if autoplay:
        out["setting"]["autoplay"] = dict(d["autoplay"])
        out["autoplay"] = ({"refused": got.autoplay} if isinstance(got.autoplay, str)
                           else got.autoplay.to_json())
    return out
