"""``analytic session MODEL [--mode M] --balance B [--bet S] --rounds N [stop rules] [--bet-ladder S1,S2,...]``.

Session (autoplay) figures computed from the round's law
(:mod:`analytic.solver.session`): the final balance's mean, quantiles and
P(ending above the start), the probability that each stop rule ends the
session, the law of the rounds played, the risk of ruin and the expected
rounds until ruin, and the return experienced (total won / total staked).
Amounts are in the unit of ``--bet`` (default 1: total bets); a model with a
win cap in currency reads them in that currency.  With ``--simulate K`` the
independent simulator also plays ``K`` sessions and prints its figures
beside.

A feature buy's session of more than 1,000 rounds with no stop but ruin
(``--method auto``) is bracketed on a coarse balance grid (the price over 20),
as the par sheet's long horizons
(:func:`analytic.solver.session_bounds.coarse_from_law`): labelled
``bounded``, the method line and the JSON's ``coarse`` object name the grid,
the chains' starts, the coupling's failure probability and its bound
(Hoeffding's maximal inequality).  ``--method coarse`` asks for it at any
horizon (refused with a stop rule, a bet ladder or a currency cap, before the
solve; after it where the grid would be no coarser); ``--method certified``
keeps the chain on the mode's own grid (minutes for such a session).

Refusals (never approximated): what the model and the options decide alone
-- a mode whose round has neither a law nor bounds of ``P(win >= x)``,
``--method exact`` or a bet ladder on a mode whose round is only bracketed,
``--stop-on-feature`` on a mode that can start no feature -- is one line
``error: MODEL: WHERE: reason``, exit 2, before the round's solve
(:func:`analytic.solver.session.check_session`); a refusal known only after
the solve and due to the input (a balance grid made too fine by the amounts,
``--method exact`` on a certified law, the feature stop on a mode starting no
feature, a chain whose estimated work is beyond about 5 minutes of CPU --
``--rounds``, :func:`analytic.solver.session.certified_work`) likewise names
the option, exit 2, before the chain; exit 1 when the solver cannot
(a round law too large to combine).

``--round-law FILE`` reads the mode's round law saved by ``analytic solve
MODEL --mode M --save-law FILE`` instead of solving the round
(:mod:`analytic.solver.round_law_file`): the same figures, bit for bit.  The
file is read size-limited and validated strictly; one saved from another
model file (SHA-256), another solver version or another mode, or with a value
out of place, is refused ``error: FILE: KEY: reason``, exit 2, never used.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from fractions import Fraction

from analytic.cli import args as args_
from analytic.figures import bound_text, exact_format, round_outward

__all__ = ["add_parser", "run"]


def _amount(text: str) -> Fraction:
    v = args_._exact(text, "amount")
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text[:40]!r}")
    return v


def _balance(text: str) -> Fraction:
    v = args_._exact(text, "balance")
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {text[:40]!r}")
    return v


def _ladder(text: str) -> tuple:
    parts = [t for t in text.split(",")]
    if not 1 <= len(parts) <= 100:
        raise argparse.ArgumentTypeError("a ladder is 1 to 100 bets separated by commas")
    return tuple(_amount(t) for t in parts)


def add_parser(sub):
    p = sub.add_parser("session", help="session / autoplay figures from the round's law",
                       description="Exact (or certified) figures of a session of at most N rounds of one bet "
                                   "mode with the advanced-autoplay stop rules and a bet ladder, from the round's "
                                   "law (the mode's round is solved first: seconds to minutes).  Amounts (balance, "
                                   "stop amounts) are in the unit of --bet (default 1 = total bets; a model with a "
                                   "currency cap: its currency); a round costs the mode's cost times the bet.  "
                                   "Settings the mode cannot honour are refused before the solve (exit 2).  "
                                   "See docs/sessions.md.")
    p.add_argument("model", help="model file (TOML)")
    p.add_argument("--mode", default=None, help="bet mode (default: the model's first)")
    p.add_argument("--balance", type=_balance, required=True,
                   help="starting balance (unit of --bet; the session ends by ruin when it no longer pays a round)")
    p.add_argument("--bet", type=_amount, default=Fraction(1), help="selected total bet (default 1)")
    p.add_argument("--rounds", type=args_.int_type(1, 10**6, "rounds"), required=True,
                   help="at most this many rounds (1 .. 1,000,000)")
    p.add_argument("--stop-on-any-win", action="store_true", help="stop when a round wins anything")
    p.add_argument("--stop-on-feature", action="store_true", help="stop when a round starts a feature")
    p.add_argument("--stop-single-win-above", type=_amount, default=None, metavar="X",
                   help="stop when one round wins X or more")
    p.add_argument("--stop-cash-up", type=_amount, default=None, metavar="X",
                   help="stop when the balance has risen by X or more")
    p.add_argument("--stop-cash-down", type=_amount, default=None, metavar="X",
                   help="stop when the balance has fallen by X or more")
    p.add_argument("--bet-ladder", type=_ladder, default=(), metavar="S1,S2,...",
                   help="bets the bet is lowered to when the balance falls below it (must hold --bet)")
    p.add_argument("--method", choices=("auto", "exact", "certified", "coarse"), default="auto",
                   help="exact (Fractions; slow beyond a few dozen rounds of a large law), certified (float64 with "
                        "a total-variation bound), coarse (two shifted chains on a balance grid of the price over "
                        "20, every figure an interval; no stop but ruin, one bet) or auto (a feature buy's session "
                        "of more than 1,000 rounds with no stop but ruin: coarse, as the par sheet's; else exact "
                        "when small, else certified); a round without a law, only bounds of P(win >= x), is "
                        "bracketed (method 'bounded', every figure an interval) under auto, certified or coarse")
    p.add_argument("--round-law", default=None, metavar="FILE",
                   help="the mode's round law saved by 'analytic solve MODEL --mode M --save-law FILE': "
                        "no round solve (refused unless saved from this very model file and solver version)")
    p.add_argument("--simulate", type=args_.int_type(1, 10**7, "sessions"), default=None, metavar="K",
                   help="also play K sessions with the simulator and print its figures beside")
    p.add_argument("--seed", type=args_.seed, default=None, help="seed of --simulate (default 0; only with --simulate)")
    args_.add_solve_options(p, precision_default=None)
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="a table of figures (default) or JSON (schema analytic.session/1)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (shown on a terminal when a chain runs longer than 2 s)")
    return p


class _ChainBar:
    """A progress bar of the session's chains on stderr (tqdm), one bar per chain (a bracketed or coarse
    session runs two); shown only on a terminal and after 2 s, so a quick session prints nothing."""

    def __init__(self):
        self.bar, self.chain = None, 0

    def __call__(self, t: int, total: int) -> None:
        if self.bar is None or t == 0:  # a new chain
            from tqdm import tqdm

            self.close()
            self.chain += 1
            self.bar = tqdm(total=total, unit="rounds", unit_scale=total >= 10_000, desc=f"session chain {self.chain}",
                            delay=2.0, leave=False, smoothing=0.1, mininterval=0.5)
        self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _rules(args):
    from analytic.solver.session import SessionRefused, SessionRules

    try:
        return SessionRules(balance=args.balance, bet=args.bet, rounds=args.rounds,
                            stop_on_any_win=args.stop_on_any_win, stop_on_feature=args.stop_on_feature,
                            stop_single_win_above=args.stop_single_win_above, stop_cash_up=args.stop_cash_up,
                            stop_cash_down=args.stop_cash_down, bet_ladder=args.bet_ladder)
    except SessionRefused as exc:
        raise _usage(args, exc) from None


#: The command-line option of each setting a refusal may name (:attr:`SessionRefused.option`).
_OPTIONS = {"balance": "--balance", "bet": "--bet", "rounds": "--rounds", "stop_on_any_win": "--stop-on-any-win",
            "stop_on_feature": "--stop-on-feature", "stop_single_win_above": "--stop-single-win-above",
            "stop_cash_up": "--stop-cash-up", "stop_cash_down": "--stop-cash-down", "bet_ladder": "--bet-ladder",
            "method": "--method"}


def _usage(args, exc, mode=None):
    """A refusal at the input's fault (the option or the model key it names) as the one-line usage error
    ``MODEL: WHERE: reason`` (exit 2); any other (a limit of the solver) ``MODEL: mode 'M': reason``, exit 1."""
    where = _OPTIONS.get(exc.option, exc.option) if exc.option else exc.key
    if not where:
        from analytic.solver.session import SessionRefused

        return SessionRefused(f"{args.model}: mode {mode!r}: {exc.reason}" if mode else f"{args.model}: {exc.reason}")
    return args_.UsageError(f"{args.model}: {where}: {exc.reason}")


def _sim_usage(args, exc) -> args_.UsageError:
    """A :class:`~analytic.simulator.session.SessionRangeError` as ``MODEL: --simulate: reason (OPTION)``."""
    opt = _OPTIONS.get(exc.option)
    return args_.UsageError(f"{args.model}: --simulate: {exc.reason}" + (f" ({opt})" if opt else ""))


def _check_simulation(args, game, mode: str, rules) -> None:
    """Refuse ``--simulate`` beyond the simulator before the round's solve
    (:func:`analytic.simulator.session.check_simulation`): more than 10^10 rounds in all, or an amount
    beyond its 64-bit integers."""
    from analytic.simulator.session import SessionRangeError, check_simulation

    try:
        check_simulation(game, mode, args.simulate, balance=rules.balance, bet=rules.bet, rounds=rules.rounds,
                         stop_single_win_above=rules.stop_single_win_above, stop_cash_up=rules.stop_cash_up,
                         stop_cash_down=rules.stop_cash_down, bet_ladder=rules.bet_ladder)
    except SessionRangeError as exc:
        raise _sim_usage(args, exc) from None


def _no_feature_stop(args, game, mode: str) -> args_.UsageError:
    why = ("the game has no feature" if not game.features else
           "its base spin meets no feature's trigger and it buys none")
    return args_.UsageError(f"{args.model}: --stop-on-feature: bet mode {mode!r} can start no feature ({why}), so "
                            f"this stop can never end a session; leave it out")


def _num(x) -> str:
    """A quantile: its value (10 significant digits), or ``[low, high]`` when only the interval is
    certified; an interval whose two ends print alike is one value."""
    if isinstance(x, tuple):  # each end rounded outward
        lo, hi = (exact_format(round_outward(v, up=up), ",.10g") for v, up in ((x[0], False), (x[1], True)))
        return lo if lo == hi else f"[{lo}, {hi}]"
    return exact_format(x, ",.10g")  # (an exact value's own digits, a float's as before)


def _fig(f) -> str:
    """A figure to 10 significant digits; a bounded one as its published centre (at most 13 digits,
    exactly) with its error rounded up to 3 digits, so the printed interval holds the certified one."""
    if f.label == "exact":
        return f"{exact_format(f.value, '.10g')}  (exact)"
    p = f.published()
    return f"{exact_format(p.value, '.13g')}  +/- {bound_text(p.error, sci=True)}"


def _pfig(f) -> str:
    """A probability as :func:`_fig` prints it; a bounded one whose printed ``value +/- error`` would
    reach below 0 or above 1 (a bracket's end at 0 or 1, the error rounded up) as its certified
    interval cut to ``[0, 1]``, each end rounded outward (:func:`~analytic.reports.format.prob_bracket`)."""
    if f.label != "exact":
        p = f.published()
        c, e = Fraction(exact_format(p.value, ".13g")), round_outward(p.error, up=True, digits=3)
        if c - e < 0 or c + e > 1:
            from analytic.reports.format import prob_bracket

            return prob_bracket(f.value - f.error, f.value + f.error)
    return _fig(f)


def _setting(rules, mode, cost) -> str:
    """One line of what is computed: the mode, the start, the bet and a round's price, the stops."""
    stops = [name for name, on in (("any win", rules.stop_on_any_win), ("a feature", rules.stop_on_feature))
             if on]
    stops += [f"{name} {_num(v)}" for name, v in (("single win >=", rules.stop_single_win_above),
                                                   ("cash up", rules.stop_cash_up),
                                                   ("cash down", rules.stop_cash_down)) if v is not None]
    ladder = (f", lowered to {' then '.join(_num(x) for x in reversed(rules.levels[:-1]))} as the balance falls"
              if len(rules.levels) > 1 else "")
    return (f"mode '{mode}': start {_num(rules.balance)}, at most {rules.rounds:,} rounds at bet {_num(rules.bet)} "
            f"(a round costs {_num(cost * rules.bet)}){ladder}; stops: {', '.join(stops + ['ruin'])}")


def _coarse_line(c: dict) -> str:
    """The coarse grid's method line: the grid, the chains' starts, the failure probability and the bound."""
    starts = (f"started {_num(c['shift'])} below and above the start" if "start_low" not in c else
              f"started at {_num(c['start_low'])} and {_num(c['start_high'])} ({_num(c['shift'])} below and above "
              f"the start, moved out to the grid)")
    return (f"coarse grid {_num(c['grid'])} (the price over {c['steps']}), two chains {starts}: the rounded walk "
            f"stays that close to the true one except with probability {c['fail']:g} (Hoeffding's maximal "
            f"inequality), added to each chain's error")


def _method(res) -> str:
    if "coarse" in res.bracket:
        return f"bounded ({_coarse_line(res.bracket['coarse'])}; chain error {bound_text(res.error, sci=True)})"
    return (f"{res.method}" + (f" (total-variation bound {bound_text(res.error, sci=True)})" if res.error else "")
            + (" (two chains bracketing a round without a law)" if res.method == "bounded" else ""))


def coarse_json(res) -> dict | None:
    """``bracket["coarse"]`` of a session on the coarse grid as JSON (None: not on the coarse grid)."""
    c = res.bracket.get("coarse")
    if c is None:
        return None
    out = {"grid": float(c["grid"]), "steps": c["steps"], "shift": float(c["shift"]), "fail": c["fail"],
           "bound": "Hoeffding's maximal inequality"}
    for k in ("start_low", "start_high"):
        if k in c:
            out[k] = float(c[k])
    return out


def format_table(res, rules, sim=None, mode=None) -> str:
    rows = [("session", _setting(rules, mode, res.law.cost))] if mode is not None else []
    rows += [("method", _method(res)),
            ("final balance: mean", _fig(res.balance_mean)),
            ("P(final balance > start)", _pfig(res.p_above_start))]
    for q, v in res.balance_quantiles.items():
        rows.append((f"  balance quantile {float(q):g}", _num(v)))
    for why, f in res.reasons.items():
        rows.append((f"ends by '{why}'", _pfig(f)))
    rows.append(("rounds played: mean", _fig(res.rounds_mean)))
    for q in (Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)):
        rows.append((f"  rounds quantile {float(q):g}", _num(res.rounds_quantiles[q])))
    rows.append(("risk of ruin", _pfig(res.ruin)))
    if res.rounds_to_ruin is not None:
        rows.append(("  rounds until ruin (mean, ruined)", _fig(res.rounds_to_ruin)))
    if res.return_mean is not None:
        rows.append(("return experienced: mean", _fig(res.return_mean)))
    if res.return_quantiles is not None:
        if res.return_mean is None:  # else the quantiles read as if under "risk of ruin"
            rows.append(("return experienced", "total won / total staked in a session (docs/sessions.md):"))
        for q in (Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)):
            rows.append((f"  return quantile {float(q):g}", _num(res.return_quantiles[q])))
    elif res.method == "bounded":
        rows.append(("return experienced", res.notes.get("return experienced", "not given")))
    elif getattr(res.law, "returns", None) is None:
        rows.append(("return experienced", "not given with a bet ladder (the stake depends on the path)"))
    elif res.method == "exact":  # no session played a round: a start below one round's price
        rows.append(("return experienced", "not given: no session played a round (the start does not pay one)"))
    else:
        # no session played a round (a start below one round's price), or too little mass played one
        rows.append(("return experienced", "not given: no session played a round (or too few, within the "
                                           "certified error)"))
    if "coarse" in res.bracket:
        rows.append(("bracket", "every figure an interval [low, high] (value +/- half-width) between the two "
                                "coarse chains (docs/sessions.md, 'Long sessions of a feature buy'); not exact"))
    elif res.method == "bounded":
        rows.append(("bracket", "every figure an interval [low, high] (value +/- half-width) from the two laws "
                                "bracketing the round (docs/sessions.md)"))
    if res.method == "bounded":
        for k, v in res.notes.items():
            if k not in ("return experienced", "coarse grid"):  # (the coarse grid: the method line)
                rows.append((f"  note: {k}", v))
    if sim is not None:
        n = len(sim.reason)
        fb = sim.final_balance().astype(float)
        rows.append(("simulated sessions", f"{n:,}"))
        rows.append(("  sim: final balance mean", f"{fb.mean():.6g} +/- {fb.std() / math.sqrt(n):.2g} (1 SE)"))
        for why, share in sim.reason_share().items():
            if why in res.reasons:
                rows.append((f"  sim: ends by '{why}'", f"{share:.6g}"))
        rows.append(("  sim: rounds played mean", f"{sim.rounds.mean():.6g}"))
    w = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{w}}  {v}" for k, v in rows)


def _read_law(args, game, mode: str):
    """The saved round law of ``--round-law`` (:func:`analytic.solver.round_law_file.read_round_law`),
    checked against the model file given (its bytes read again, size-limited, for the SHA-256)."""
    from pathlib import Path

    from analytic.model.loader import read_limited
    from analytic.solver.round_law_file import read_round_law

    model_bytes = read_limited(Path(args.model), args.model, "", "the model file")
    return read_round_law(args.round_law, game=game, model_bytes=model_bytes, mode=mode)


def run(args) -> int:
    from analytic.model.loader import load_model
    from analytic.solver.session import SessionRefused, check_session, features_started, solve_session

    if args.seed is not None and not args.simulate:  # the figures are exact: nothing is drawn without --simulate
        raise args_.UsageError("--seed: the session's figures are exact or certified, never sampled: the seed is "
                               "that of --simulate K; give --simulate too, or leave --seed out")
    rules = _rules(args)
    if rules.stop_cash_down is not None and rules.stop_cash_down > rules.balance:
        # a round is played only when the balance pays its price, and wins are >= 0: it never falls below 0
        raise args_.UsageError(f"{args.model}: --stop-cash-down: the balance never falls by more than the start "
                               f"({exact_format(rules.balance, ',.10g')}), so this stop can never end a session; "
                               f"give at most the start, or leave it out")
    game = load_model(args.model)
    top = game.cap.total_bet_multiple if game.cap is not None else None
    if rules.stop_single_win_above is not None and top is not None and rules.stop_single_win_above > rules.bet * top:
        # every round of every mode pays min(R, C) total bets, at most C times the bet (a ladder only lowers it)
        raise args_.UsageError(f"{args.model}: --stop-single-win-above: a round wins at most the win cap, "
                               f"{exact_format(top, ',.10g')} total bets "
                               f"({exact_format(rules.bet * top, ',.10g')} at bet {exact_format(rules.bet, ',.10g')}), "
                               f"so this stop can never end a session; give at most that, or leave it out")
    mode = game.default_mode.name if args.mode is None else args.mode
    if mode not in game.modes:
        raise args_.UsageError(f"{args.model}: modes: unknown bet mode {mode!r} (known: {', '.join(game.modes)})")
    if args.round_law is not None and args.cap_precision is not None:
        raise args_.UsageError("--cap-precision: the round is not solved with --round-law (the saved law is the "
                               "solve's: give --cap-precision to 'analytic solve --save-law')")
    if args.simulate:  # before the round's solve: the simulator's integers and the rounds it plays
        _check_simulation(args, game, mode, rules)
    saved = _read_law(args, game, mode) if args.round_law is not None else None
    ws = args_.solve_workspace(game, args)  # (the round's solve: its precision and worker processes)
    # what the model and the options decide alone: refused before the round's solve (which can take minutes)
    if rules.stop_on_feature and not game.features:
        raise _no_feature_stop(args, game, mode)
    try:
        from analytic.solver.round import check_round

        check_round(game, mode, ws)
        kind = check_session(game, mode, rules, args.method)
    except SessionRefused as exc:
        raise _usage(args, exc) from None
    if saved is not None and saved.kind != ("bracketed" if kind == "bracketed" else "law"):
        from analytic.errors import ModelError

        what = "no law, only bracketing laws" if kind == "bracketed" else "a law"
        raise ModelError(args.round_law, "kind", f"{saved.kind!r}, but the model's mode {mode!r} gives its "
                                                 f"sessions {what}")
    result = None
    if saved is not None:
        if rules.stop_on_feature and game.modes[mode].buys is None and not saved.features:
            raise _no_feature_stop(args, game, mode)
    elif rules.stop_on_feature and game.modes[mode].buys is None:
        from analytic.solver.round import solve_rounds

        result = solve_rounds(game, [mode], workspace=ws)[0]  # (the solve's path: its prefetch, as `solve`)
        if not features_started(game, mode, result.base):
            raise _no_feature_stop(args, game, mode)
    bar = _ChainBar() if not args.no_progress and sys.stderr.isatty() else None
    try:
        if saved is not None:
            from analytic.solver.round_law_file import session_from_law

            res = session_from_law(game, saved, rules, method=args.method, progress=bar)
        else:
            res = solve_session(game, mode, rules, method=args.method, result=result, workspace=ws, progress=bar)
    except SessionRefused as exc:
        raise _usage(args, exc, mode) from None
    finally:
        if bar is not None:
            bar.close()
    sim = None
    if args.simulate:
        from analytic.simulator.session import simulate_sessions

        from analytic.simulator.session import SessionRangeError

        try:
            sim = simulate_sessions(game, mode, args.simulate, args.seed or 0, balance=rules.balance, bet=rules.bet,
                                    rounds=rules.rounds, stop_on_any_win=rules.stop_on_any_win,
                                    stop_on_feature=rules.stop_on_feature,
                                    stop_single_win_above=rules.stop_single_win_above,
                                    stop_cash_up=rules.stop_cash_up, stop_cash_down=rules.stop_cash_down,
                                    bet_ladder=rules.bet_ladder)
        except SessionRangeError as exc:
            raise _sim_usage(args, exc) from None
    if args.format == "json":
        d = {"schema": "analytic.session/1", "model": str(args.model), "mode": mode}
        d.update(res.to_json())
        if coarse_json(res) is not None:
            d["coarse"] = coarse_json(res)
        if sim is not None:
            d["simulated"] = {"sessions": len(sim.reason), "reasons": sim.reason_share(),
                              "balance_mean": float(sim.final_balance().astype(float).mean()),
                              "rounds_mean": float(sim.rounds.mean())}
        print(json.dumps(d, indent=2))
    else:
        print(format_table(res, rules, sim, mode))
    return 0
