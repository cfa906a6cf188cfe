"""Benchmark of session figures from the round's law: ``python -m analytic.bench.session``.

Solves a bet mode, builds its round law, then times 1,000-round sessions
from 100 bets (:func:`analytic.solver.session.solve_session`):

* ``all stops``: stop on any win, on a feature, on a single win of 100 bets,
  on cash up 100 / cash down 50 bets, or after 1,000 rounds;
* ``autoplay``: the same without "any win" (which ends most sessions within
  a few rounds);
* ``ruin only`` (the par sheet's sessions): no stop but ruin and the round
  count, one chain of ``--rounds`` rounds read at 100 and 1,000 rounds too,
  its safe upper tail taken out
  (:func:`analytic.solver.session.summary_results`), with the risk of ruin,
  ``P(above the start)`` and the mean final balance at each horizon (a
  bracketed mode: its two laws built again inside, about 1.4 s of CPU).

Each line gives the method (exact / certified / bounded), the session law's
total-variation bound and the seconds.  The issue's target model, Book of
Power base (the default ``--model``), has no round law: its sessions are
bracketed (:mod:`analytic.solver.session_bounds`); the bench then times the
two bracketing laws (``--grid`` points of the tail bounds) apart from the
round's solve and the chains.
This is a command that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction
from pathlib import Path

from analytic.solver.session import SessionRefused, SessionRules, solve_session

__all__ = ["main"]

MODELS = Path(__file__).resolve().parents[2] / "models"


def _iv(f, method: str) -> str:
    """A figure: its value, or its interval when bracketed."""
    return (f"{float(f.value):.6f}" if method != "bounded" else
            f"[{float(f.value - f.error):.6f}, {float(f.value + f.error):.6f}]")


def main(argv=None) -> int:
    from analytic.memory import use_small_pages

    use_small_pages()  # as the analytic command does (analytic/memory.py)
    p = argparse.ArgumentParser(prog="python -m analytic.bench.session", description=__doc__.splitlines()[0])
    p.add_argument("--model", default=str(MODELS / "book_of_power.toml"))
    p.add_argument("--mode", default=None)
    p.add_argument("--rounds", type=int, default=1000)
    p.add_argument("--balance", default="100")
    p.add_argument("--grid", type=int, default=None, help="grid points of a bracketed round (default GRID_POINTS)")
    a = p.parse_args(argv)
    from analytic.model.loader import load_model
    from analytic.solver.cap import applied_cap
    from analytic.solver.distribution import round_law
    from analytic.solver.round import solve_round
    from analytic.solver.session import _capped_mean
    from analytic.solver.session_bounds import GRID_POINTS, bounded_session, interval_laws

    game = load_model(a.model)
    mode = a.mode or game.default_mode.name
    t = time.perf_counter()
    r = solve_round(game, mode)
    t1 = time.perf_counter()
    law = round_law(r)
    t2 = time.perf_counter()
    laws = None
    if law.points is None:
        if not (r.extra and r.extra.get("round_tail") is not None):
            print(f"{game.name} {mode}: refused: the round's law of this mode is not available: {law.reason}")
            return 1
        n = a.grid or GRID_POINTS
        laws = interval_laws(r, n)
        t3 = time.perf_counter()
        print(f"{game.name} {mode}: round solve {t1 - t:.1f} s; no round law: two bracketing laws on "
              f"{len(laws.points)} grid points {t3 - t2:.1f} s (largest gap of the tail bounds {float(laws.gap):.2e})")
    else:
        print(f"{game.name} {mode}: round solve {t1 - t:.1f} s, round law {t2 - t1:.1f} s "
              f"({law.method}, {len(law.points):,} points, total-variation bound {float(law.error):.1e})")
    B = Fraction(a.balance)
    stops = dict(stop_on_feature=True, stop_single_win_above=Fraction(100), stop_cash_up=Fraction(100),
                 stop_cash_down=Fraction(50))
    for name, kw in (("all stops", dict(stops, stop_on_any_win=True)), ("autoplay", stops)):
        rules = SessionRules(balance=B, rounds=a.rounds, **kw)
        t = time.perf_counter()
        try:
            if laws is not None:
                res = bounded_session(rules, laws, r.cost, _capped_mean(r), cap=applied_cap(r), method="certified")
            else:
                res = solve_session(game, mode, rules, result=r)
        except SessionRefused as exc:
            print(f"  {name}: refused: {exc}")
            continue
        dt = time.perf_counter() - t

        def iv(f, method=res.method):
            return _iv(f, method)

        reasons = ", ".join(f"{k} {iv(v)}" for k, v in res.reasons.items())
        print(f"  {name}, {a.rounds:,} rounds from {B} bets: {dt:.2f} s, {res.method}, "
              f"bound {res.error:.1e}; mean final balance {iv(res.balance_mean)}; "
              f"ends by: {reasons}")
    from analytic.solver.session import summary_results

    hs = tuple(sorted({n for n in (100, 1000) if n < a.rounds} | {a.rounds}))
    t, c = time.perf_counter(), time.process_time()
    got = summary_results(game, mode, result=r, rounds=hs, balance=B, autoplay=None)
    dt, dc = time.perf_counter() - t, time.process_time() - c
    if isinstance(got, str):
        print(f"  ruin only: refused: {got}")
        return 0
    print(f"  ruin only (the par sheet's sessions: one chain of {a.rounds:,} rounds read at "
          f"{', '.join(f'{n:,}' for n in hs)}): "
          f"{dt:.2f} s ({dc:.2f} s of CPU)")
    for n, res in got.horizons.items():
        print(f"    {n:,} rounds: {res.method}, bound {res.error:.1e}; risk of ruin {_iv(res.ruin, res.method)}; "
              f"P(above the start) {_iv(res.p_above_start, res.method)}; mean final balance "
              f"{_iv(res.balance_mean, res.method)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
