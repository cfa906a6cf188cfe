"""Play whole sessions (autoplay) with simulated rounds: the oracle of the session chain.

A session starts with a balance and plays rounds of one bet mode, each
round drawn by :func:`analytic.simulator.rounds.play_rounds` (the
simulator's own evaluation; nothing here reads a round's law), until a stop
rule ends it.  The rules and their order are those of the rule texts
(advanced autoplay; the bet lowered to the highest applicable bet size when
the balance falls below it), checked after every round:

``any win`` (the round won), ``feature`` (the round played a feature),
``single win`` (the round's win >= the amount), ``cash up`` / ``cash down``
(the balance moved by >= the amount since the start), ``ruin`` (the balance
is below the price of the smallest bet allowed), ``rounds`` (the last round
was played).  With a bet ladder the bet drops to the largest rung whose price
the balance covers and stays there.

Amounts (balance, bets, stop amounts) are in the unit of the bet; a model's
win cap in currency is compiled per bet (``compile_tables(game, stake=bet)``).
Every amount is an exact integer (``1 / scale`` of that unit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from analytic.errors import AnalyticError
from analytic.limits import MAX_ROUNDS
from analytic.simulator.evaluate import compile_tables
from analytic.simulator.rounds import play_rounds

__all__ = ["SessionSample", "simulate_sessions", "check_simulation", "SessionRangeError", "REASONS", "MAX_UNITS"]

REASONS = ("any win", "feature", "single win", "cash up", "cash down", "ruin", "rounds")
#: Largest amount in the simulator's int64 units (``1 / scale`` of the bet): a balance and a round's win,
#: each at most 2^61, add up below 2^63 (numpy's int64 arithmetic wraps around silently beyond it).
MAX_UNITS = 2**61


class SessionRangeError(AnalyticError):
    """Sessions the simulator cannot play: an amount beyond its 64-bit integers, or too many rounds.

    ``option``: the setting at fault (``balance``, ``stop_cash_up``, ..., ``rounds``, ``sessions``).
    """

    def __init__(self, reason: str, option: str):
        super().__init__(reason)
        self.reason = reason
        self.option = option


def _units(game, mode, sessions, balance, bet, rounds, stops: dict, bet_ladder):
    """The simulator's integer units of a session setting, checked (:func:`check_simulation`)."""
    if sessions * rounds > MAX_ROUNDS:
        raise SessionRangeError(f"{sessions:,} sessions of up to {rounds:,} rounds play up to "
                                f"{sessions * rounds:,} rounds; the simulator plays at most {MAX_ROUNDS:,}",
                                "sessions")
    B0 = Fraction(balance)
    ladder = sorted({Fraction(x) for x in bet_ladder}) if bet_ladder else [Fraction(bet)]
    levels = [x for x in ladder if x <= Fraction(bet)]
    currency = game.cap is not None and game.cap.currency is not None
    tables = [compile_tables(game, stake=s if currency else None) for s in levels]
    tbs = [t.denom * t.total_bet for t in tables]  # ticks per total bet (per bet: a currency cap's ticks)
    cost = Fraction(tables[0].modes[mode]["cost"])
    amounts = [B0] + levels + [cost * s for s in levels] + [Fraction(x) for x in stops.values() if x is not None]
    L = 1
    for a in amounts:
        L = math.lcm(L, a.denominator)
    T = 1
    for tb in tbs:
        T = math.lcm(T, tb)
    scale = L * T

    def beyond(x, what, option):
        raise SessionRangeError(f"{what} is {float(x):.6g} units of 1/{scale:,} of the bet (the simulator's "
                                f"64-bit integers), beyond 2^61; simulate a smaller setting", option)

    for x, what, option in [(B0, "the balance", "balance")] + [
            (Fraction(v), f"the {k.replace('_', ' ')} amount", k) for k, v in stops.items() if v is not None]:
        if x * scale > MAX_UNITS:
            beyond(x * scale, what, option)
    for s in levels:
        if cost * s * scale * rounds > MAX_UNITS:
            beyond(cost * s * scale * rounds, f"the stake of {rounds:,} rounds at bet {float(s):g}", "rounds")
    return levels, tables, tbs, cost, scale


def check_simulation(game, mode: str | None, sessions: int, *, balance, bet=1, rounds: int,
                     stop_single_win_above=None, stop_cash_up=None, stop_cash_down=None, bet_ladder=()) -> None:
    """Refuse, before any work, sessions :func:`simulate_sessions` cannot play.

    Raises
    ------
    SessionRangeError
        More than :data:`~analytic.limits.MAX_ROUNDS` rounds in all (``sessions`` times ``rounds``);
        the balance, a stop amount or the stake of ``rounds`` rounds beyond :data:`MAX_UNITS` units
        of ``1 / scale`` of the bet (the simulator's int64 amounts).  :func:`simulate_sessions`
        raises it too when a balance rises beyond that while playing.
    """
    _units(game, mode or game.default_mode.name, sessions, balance, bet, rounds,
           {"stop_single_win_above": stop_single_win_above, "stop_cash_up": stop_cash_up,
            "stop_cash_down": stop_cash_down}, bet_ladder)


@dataclass(frozen=True)
class SessionSample:
    """Simulated sessions, one entry per session.

    Attributes
    ----------
    reason : ndarray of int8
        Index into :data:`REASONS`.
    rounds : ndarray of int64
        Rounds played.
    final : ndarray of int64 (or object)
        Final balance in ``1 / scale`` units.
    won, staked : ndarray
        Total won / total staked, ``1 / scale`` units.
    scale : int
    """

    reason: np.ndarray
    rounds: np.ndarray
    final: np.ndarray
    won: np.ndarray
    staked: np.ndarray
    scale: int

    def final_balance(self) -> np.ndarray:
        return self.final / self.scale

    def reason_share(self) -> dict:
        n = len(self.reason)
        return {w: float((self.reason == i).sum()) / n for i, w in enumerate(REASONS)}


def simulate_sessions(game, mode: str | None, sessions: int, seed: int = 0, *, balance, bet=1, rounds: int,
                      stop_on_any_win: bool = False, stop_on_feature: bool = False,
                      stop_single_win_above=None, stop_cash_up=None, stop_cash_down=None,
                      bet_ladder=()) -> SessionSample:
    """Play ``sessions`` independent sessions (see the module docstring).

    Parameters
    ----------
    game : Game
    mode : str or None
    sessions : int
    seed : int
        Root seed (numpy ``default_rng``).
    balance, bet : number
        Starting balance and selected total bet (unit of the bet).
    rounds : int
        At most this many rounds per session.
    stop_* : see the module docstring.
    bet_ladder : sequence of numbers
        Bets the bet may be lowered to (holding ``bet``).

    Returns
    -------
    SessionSample

    Raises
    ------
    SessionRangeError
        The setting is beyond the simulator (:func:`check_simulation`), or a balance rose beyond
        :data:`MAX_UNITS` while playing (int64 amounts; they wrapped around silently before).
    """
    mode = mode or game.default_mode.name
    rng = np.random.default_rng(seed)
    B0 = Fraction(balance)
    levels, tables, tbs, cost, scale = _units(
        game, mode, sessions, balance, bet, rounds, {"stop_single_win_above": stop_single_win_above,
                                                     "stop_cash_up": stop_cash_up, "stop_cash_down": stop_cash_down},
        bet_ladder)
    q = lambda x: int(Fraction(x) * scale)  # noqa: E731
    price = np.array([q(cost * s) for s in levels], dtype=np.int64)
    per_tick = [int(s * scale / tb) for s, tb in zip(levels, tbs)]  # 1/scale units per win tick
    b = np.full(sessions, q(B0), dtype=np.int64)
    lvl = np.full(sessions, len(levels) - 1, dtype=np.int64)
    won = np.zeros(sessions, dtype=np.int64)
    staked = np.zeros(sessions, dtype=np.int64)
    played = np.zeros(sessions, dtype=np.int64)
    reason = np.full(sessions, -1, dtype=np.int8)
    up = q(stop_cash_up) if stop_cash_up is not None else None
    dn = q(stop_cash_down) if stop_cash_down is not None else None
    single = q(stop_single_win_above) if stop_single_win_above is not None else None
    start = q(B0)

    def lower(idx):
        """Lower the bet of sessions ``idx`` that cannot afford it; end those that afford none."""
        for j in range(len(levels) - 1, -1, -1):
            short = idx[(lvl[idx] == j) & (b[idx] < price[j])]
            if short.size:
                if j == 0:
                    reason[short] = REASONS.index("ruin")
                else:
                    lvl[short] = j - 1

    live = np.arange(sessions)
    lower(live)
    live = live[reason[live] < 0]
    for t in range(rounds):
        if not live.size:
            break
        for j in range(len(levels)):
            idx = live[lvl[live] == j]
            if not idx.size:
                continue
            batch = play_rounds(tables[j], mode, idx.size, rng)
            w = batch.win.astype(np.int64)
            if w.size and int(w.max()) > MAX_UNITS // per_tick[j]:
                raise SessionRangeError(f"a round won {int(w.max()):,} ticks of 1/{tbs[j]:,} of the bet: beyond the "
                                        f"simulator's 64-bit amounts (2^61 units of 1/{scale:,}) at bet "
                                        f"{float(levels[j]):g}", "bet")
            win = w * per_tick[j]
            b[idx] += win - price[j]
            if int(b[idx].max()) > MAX_UNITS:
                raise SessionRangeError(f"a balance rose to {int(b[idx].max()) / scale:.6g} after {t + 1:,} rounds: "
                                        f"beyond the simulator's 64-bit amounts (2^61 units of 1/{scale:,} of the "
                                        "bet); simulate fewer rounds or a smaller balance", "balance")
            won[idx] += win
            staked[idx] += price[j]
            played[idx] += 1
            why = np.full(idx.size, -1, dtype=np.int8)

            def mark(cond, name):
                sel = (why < 0) & cond
                why[sel] = REASONS.index(name)

            if stop_on_any_win:
                mark(win > 0, "any win")
            if stop_on_feature:
                mark(batch.triggered, "feature")
            if single is not None:
                mark(win >= single, "single win")
            if up is not None:
                mark(b[idx] - start >= up, "cash up")
            if dn is not None:
                mark(start - b[idx] >= dn, "cash down")
            reason[idx] = why
        rest = live[reason[live] < 0]
        lower(rest)
        rest = rest[reason[rest] < 0]
        if t + 1 == rounds:
            reason[rest] = REASONS.index("rounds")
        live = rest
    return SessionSample(reason, played, b, won, staked, scale)
