"""``analytic solve MODEL [--mode NAME] [--format table|json] [--save-law FILE]``.

Prints the exact round figures of one bet mode (or every mode with
``--mode all``).  The table reads like the top of a par sheet; the JSON
schema (``"schema": "analytic.solve/1"``) is documented in
``docs/solve-json.md``: each exact value is ``{"exact": "p/q", "float": x,
"label": "exact"|"bounded"[, "error": e]}``.

``--save-law FILE`` also writes the mode's round law -- what a session's
chain reads of the solved round (:mod:`analytic.solver.round_law_file`) --
as JSON (schema ``analytic.round_law/1``, with the model file's SHA-256 and
the solver version), for ``analytic session MODEL --round-law FILE`` to run
sessions without solving the round again.  One mode at a time; a mode whose
sessions are refused whatever the setting (no law and no bounds) is refused
before the solve, exit 2; the file is written whole or not at all.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction

from analytic.figures import Figure, exact_format, fraction_text, int_text, round_decimals, shown
from analytic.reports.format import bound_text, centre_text, cost_text, covers, pct_bound
from analytic.solver.cap import applied_cap
from analytic.solver.round import extra_unit

__all__ = ["add_parser", "run", "result_to_json", "format_table"]


def add_parser(sub):
    p = sub.add_parser("solve", help="exact figures of a model's bet modes",
                       description="Solve a model exactly: RTP and its split, hit frequency, "
                                   "feature frequency, variance and volatility, per bet mode.")
    p.add_argument("model", help="model file (TOML)")
    p.add_argument("--mode", default=None, help="bet mode name, or 'all' (default: the first mode)")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.add_argument("--save-law", default=None, metavar="FILE",
                   help="also write the mode's round law to FILE (JSON, schema analytic.round_law/1) for "
                        "'analytic session MODEL --round-law FILE' (one mode; see docs/sessions.md)")
    from analytic.cli.args import add_solve_options

    add_solve_options(p)
    return p


def _pct(f: Figure | Fraction) -> str:
    """A percentage with 6 decimals; a bounded figure with its certified error, the printed
    interval containing the certified one (:func:`analytic.figures.shown`)."""
    if isinstance(f, Figure) and f.label != "exact":
        c, e, d = shown(f, 6, 100)
        return f"{centre_text(c, d, sep=False)} %  (bounded, +/- {exact_format(e, '.2g')} %)"
    v = f.value if isinstance(f, Figure) else f
    return f"{exact_format(Fraction(v) * 100, '.6f')} %"  # (its exact digits: no float, whatever its size)




def _is_rtp(key: str) -> bool:
    """Whether a solver's extra figure is an RTP (``capped_rtp``, ``uncapped_rtp``: a fraction of the
    stake, printed in percent as the RTP rows)."""
    return key == "rtp" or key.endswith("_rtp")


def _rtp_text(v: Figure | Fraction) -> str:
    """An RTP as the RTP rows print it (:func:`_pct`, then its label); a bounded one whose printed
    interval would reach below 0 as its certified ends, the low one cut at 0 (an RTP is >= 0) and
    rounded outward, as the hit frequency's."""
    f = v if isinstance(v, Figure) else Figure(Fraction(v))
    if f.label != "exact" and f.error:
        c, e, _ = shown(f, 6, 100)
        if c - e < 0:
            return (f"between {pct_bound(max(f.value - f.error, Fraction(0)), False, 6)} % and "
                    f"{pct_bound(f.value + f.error, True, 6)} %   [{f.label}]")
    return f"{_pct(f)}   [{f.label}]"


def _one_in(f: Figure, sep: str = "") -> str:
    """``1 in N`` of a probability to 4 decimals; of a bounded one the same where it is within half a
    unit of its last digit of ``1 / p`` for every ``p`` in the certified interval, else the certified
    range ``1 in A .. B`` (``A`` rounded down, ``B`` up; ``1 in A or rarer`` where ``p`` can be 0);
    ``1 in inf`` of a probability exactly 0.  ``sep`` ``","``: with thousands separators."""
    t = f"1 in {exact_format(1 / Fraction(f.value), f'{sep}.4f')}" if f.value else "1 in inf"
    if f.label == "exact" or not f.error:
        return t
    lo, hi = max(f.value - f.error, Fraction(0)), min(f.value + f.error, Fraction(1))
    if lo > 0 and covers(t, 1 / hi, 1 / lo, Fraction(1, 2)):
        return t
    a = f"1 in {exact_format(round_decimals(1 / hi, 4, up=False), f'{sep}.4f')}"
    return f"{a} or rarer" if lo <= 0 else f"{a} .. {exact_format(round_decimals(1 / lo, 4, up=True), f'{sep}.4f')}"


def _val(f: Figure, decimals: int) -> str:
    """A figure with ``decimals`` decimals; a bounded one with its certified error (the printed
    interval containing the certified one, :func:`analytic.figures.shown`)."""
    if f.label == "exact" or not f.error:
        return exact_format(f.value, f",.{decimals}f")
    c, e, d = shown(f, decimals)
    return f"{centre_text(c, d)} +/- {exact_format(e, '.2g')}"


def _sd_text(v: Figure) -> str:
    """The standard deviation ``sqrt(variance)`` to 6 decimals; of a bounded variance the interval
    ``sqrt`` of its certified ends, rounded outward (exactly, with integer square roots)."""
    from math import isqrt

    if v.label == "exact" or not v.error:  # sqrt to the nearest 1e-6, exactly (a float keeps 17 digits)
        x = max(v.value, Fraction(0)) * 10**12
        a = isqrt(x.numerator // x.denominator)  # floor(sqrt(x))
        half = (2 * a + 1) ** 2  # sqrt(x) against a + 1/2: 4 x against (2 a + 1)^2; a tie to even
        a += 4 * x > half or (4 * x == half and a % 2 == 1)
        return exact_format(Fraction(a, 10**6), ".6f")
    lo, hi = max(v.value - v.error, Fraction(0)) * 10**12, (v.value + v.error) * 10**12
    a = isqrt(lo.numerator // lo.denominator)  # floor(sqrt(lo)) in units of 1e-6
    n = -((-hi.numerator) // hi.denominator)
    b = isqrt(n) + (isqrt(n) ** 2 < n)  # ceil(sqrt(hi))
    return f"between {a // 10**6}.{a % 10**6:06d} and {b // 10**6}.{b % 10**6:06d}"


def _fr(x: Fraction) -> dict:
    return Figure(Fraction(x)).to_json()


def result_to_json(res) -> dict:
    """The ``analytic.solve/1`` record of a :class:`~analytic.solver.round.RoundResult`."""
    d = {
        "mode": res.mode,
        "cost_total_bet_multiples": _fr(res.cost),
        "rtp": res.rtp.to_json(),
        "mean_win_total_bet_multiples": res.mean_win.to_json(),
        "hit_frequency": res.hit_frequency.to_json(),
        "variance_per_unit_staked": res.variance_figure.to_json(),
        "sd_per_unit_staked": res.sd,
        "volatility_index": {str(c): res.volatility_index(c) for c in (90, 95, 99)},
        "rtp_split": [{"name": c.name, "rtp": c.rtp.to_json()} for c in res.components],
        "features": [
            {
                "name": f.name,
                "frequency": f.frequency.to_json(),
                "one_in": f.one_in,
                "average_win_total_bet_multiples": f.average_win.to_json(),
                "sd_total_bet_multiples": f.sd,
                "expected_spins": f.expected_spins.to_json(),
                "rtp": f.rtp.to_json(),
                "method": f.method,
            }
            for f in res.features
        ],
        "methods": dict(res.methods),
    }
    if res.base is not None:
        b = res.base
        d["base"] = {
            "reel_set": b.reel_set,
            "cycle": b.cycle,
            "line_rtp": _fr(b.line_rtp),
            "scatter_rtp": _fr(b.scatter_rtp),
            "hit_frequency": _fr(b.figures.hit_frequency),
            "variance": _fr(b.figures.variance),
            "top_win_total_bet_multiples": _fr(b.figures.top_win),
            "top_win_combinations": b.figures.top_weight,
            "top_win_paid_total_bet_multiples": _fr(min(b.figures.top_win, cap))
            if (cap := applied_cap(res)) is not None else _fr(b.figures.top_win),
            "scatter_counts": {str(k): v for k, v in b.scatter_counts.items()},
            "trigger_counts": [{"feature": f, "count": n, "combinations": c}
                               for (f, n), c in b.trigger_counts.items()],
            "combinations": [
                {"symbol": c.symbol, "count": c.count, "multiplier": c.multiplier,
                 "pay_line_bets": c.pay, "hits": c.hits}
                for c in b.combinations
            ],
            "distribution_units_per_total_bet": b.units,
            "distribution": [[w, n] for w, n in b.distribution.items()],
        }
    for k, v in res.extra.items():
        if k == "round_tail":  # an evaluator of P(R >= x) for the par sheet and verify, not a figure
            continue
        d.setdefault("extra", {})[k] = _jsonable(v)
    return d


def _jsonable(v):
    """JSON form of a mechanic-specific extra: Figures and Fractions as exact
    figures, a distribution ``{win: probability}`` as ``[[win, p], ...]``."""
    if isinstance(v, Figure):
        return v.to_json()
    if isinstance(v, Fraction):
        return _fr(v)
    if isinstance(v, dict):
        if v and all(isinstance(k, (Fraction, int)) and not isinstance(k, bool) for k in v):
            return [[_jsonable(k), _jsonable(x)] for k, x in sorted(v.items())]
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return str(v)


def format_table(res) -> str:
    """Human-readable table of a RoundResult (the top of a par sheet)."""
    g = res.game
    out = []
    w = out.append
    unit = "pay units" if getattr(g, "ways", False) else "line bets"  # a ways game's paytable is per way
    w(f"{g.name} — bet mode '{res.mode}' (cost {cost_text(res.cost)}x total bet, total bet = {g.total_bet} {unit})")
    if res.base is not None:
        b = res.base
        w(f"  reel set '{b.reel_set}': cycle {b.cycle:,} stop combinations")
    w(f"  {'RTP':<34}{_pct(res.rtp)}   [{res.rtp.label}]")
    for c in res.components:
        w(f"    {c.name:<32}{_pct(c.rtp)}")
    hf, he = res.hit_frequency.value, float(res.hit_frequency.error)  # (hf exact: a float can be 0)
    c, e, _ = shown(res.hit_frequency, 6, 100)
    # an interval too wide to print as a number (a feature whose zero-win probability is unknown), or
    # one whose centre +/- error would leave [0 %, 100 %]: its ends, cut there
    if he >= 0.01 or (res.hit_frequency.label != "exact" and (c - e < 0 or c + e > 100)):
        h = res.hit_frequency
        w(f"  {'hit frequency':<34}between {pct_bound(max(h.value - h.error, 0), False, 4)} % and "
          f"{pct_bound(min(h.value + h.error, 1), True, 4)} %"
          "   [bounded]")
    else:
        w(f"  {'hit frequency':<34}{_pct(res.hit_frequency)}   ({_one_in(res.hit_frequency)})   [{res.hit_frequency.label}]"
          if hf else f"  hit frequency 0   [{res.hit_frequency.label}]")
    for f in res.features:  # a bounded frequency, average win or expected spins with its error (never a bare centre)
        lab = "exact" if f.frequency.label == f.average_win.label == f.expected_spins.label == "exact" else "bounded"
        w(f"  feature {f.name:<26}{_one_in(f.frequency, ',')}   average win {_val(f.average_win, 6)}x"
          f"   expected spins {_val(f.expected_spins, 6)}   [{lab}]")
    var = res.variance_figure
    w(f"  {'standard deviation (per unit bet)':<34}{_sd_text(var)}   [{var.label}]")
    if var.label == "exact" or not var.error:
        w(f"  {'volatility index 90/95/99 %':<34}{res.volatility_index(90):.4f} / "
          f"{res.volatility_index(95):.4f} / {res.volatility_index(99):.4f}")
    else:  # z * sd over the bounded variance's certified interval, outward
        from types import SimpleNamespace

        from analytic.reports.format import sd_text

        m = SimpleNamespace(variance=var, sd=res.sd)
        w(f"  {'volatility index 90/95/99 %':<34}"
          + " / ".join(sd_text(m, res.volatility_index(c)).replace(" (bounded)", "") for c in (90, 95, 99))
          + "   [bounded]")
    if res.base is not None:
        b = res.base
        tw = b.figures.top_win
        cap = applied_cap(res)
        paid = f", paid {exact_format(cap, ',.4f')}x: the win cap" if cap is not None and tw > cap else ""
        w(f"  {'top base-spin win':<34}{exact_format(tw, ',.4f')}x total bet   ({b.figures.top_weight:,} combinations, "
          f"1 in {exact_format(Fraction(b.cycle, b.figures.top_weight), ',.0f')}{paid})")
    for k, v in res.extra.items():
        u = extra_unit(k, res.extra)  # the key as in the JSON, its unit beside ("before the cap" only with a cap)
        unit = f"   ({u})" if u else ""
        if _is_rtp(k) and isinstance(v, (Figure, Fraction)):  # capped_rtp ...: as the RTP rows, in percent
            w(f"  {k:<34}{_rtp_text(v)}")
        elif isinstance(v, Figure) and v.error:  # an interval: print its ends, not a centre that looks like a value
            lo, hi = v.value - v.error, v.value + v.error
            if k.startswith("p_"):  # a probability (p_reach_cap): its certified interval cut to [0, 1]
                lo, hi = max(lo, Fraction(0)), min(hi, Fraction(1))
            w(f"  {k:<34}between {bound_text(lo, False, 10)} and {bound_text(hi, True, 10)}   [{v.label}]{unit}")
        elif isinstance(v, Figure):
            w(f"  {k:<34}{exact_format(v.value, '.10g')}   [{v.label}]{unit}")
        elif isinstance(v, Fraction):
            w(f"  {k:<34}{exact_format(v, '.10g')}   (exact {v}){unit}" if v.denominator < 10**12
              else f"  {k:<34}{exact_format(v, '.10g')}{unit}")
    rows = res.extra.get("currency_cap")
    if rows:
        w(f"  RTP under the currency win cap by stake ({len(rows)} stakes; the capped rows only, "
          f"the others are the RTP above):" if any(r.get("binds") is not False for r in rows) else
          f"  currency win cap: cannot bind at any of the {len(rows)} declared stakes")
        for r in rows:
            if r.get("binds") is not False:  # True, or None: cannot tell
                f, p = r["capped_rtp"], r.get("p_reach_cap")
                iv = (f"{exact_format(f.value * 100, '.8f')} %" if not f.error else
                      f"{pct_bound(f.value - f.error, False, 8)} .. {pct_bound(f.value + f.error, True, 8)} %")
                reach = ("" if p is None else f"   P(reach cap) {exact_format(p.value, '.4g')}" if p.label == "exact" or not p.error
                         else f"   P(reach cap) {bound_text(max(p.value - p.error, 0), False, 4)} .. "
                              f"{bound_text(min(p.value + p.error, 1), True, 4)}")
                stake, cm = exact_format(Fraction(r["stake"]), ",.2f"), exact_format(Fraction(r["cap_multiple"]), ",.2f")
                w(f"    stake {stake:>10}   cap {cm:>12}x   "
                  f"RTP {iv}   [{f.label}]{reach}")
    if res.rtp.label != "exact":
        # a fraction of the stake, then in percentage points as the RTP rows
        w(f"  RTP certified within +/- {bound_text(res.rtp.error, True, 3)} of the stake "
          f"(+/- {bound_text(res.rtp.error * 100, True, 3)} percentage points)")
    elif len(int_text(res.rtp.value.denominator)) <= 40:
        w(f"  exact RTP = {fraction_text(res.rtp.value)}")
    else:
        w(f"  exact RTP: a fraction with a {len(int_text(res.rtp.value.denominator))}-digit denominator "
          f"(--format json prints it)")
    return "\n".join(out)


def run(args) -> int:
    from analytic.model.loader import load_model
    from analytic.solver.round import solve_rounds

    from analytic.cli.args import solve_workspace

    game = load_model(args.model)
    modes = list(game.modes) if args.mode == "all" else [game.default_mode.name if args.mode is None else args.mode]
    for m in modes:
        if m not in game.modes:
            from analytic.errors import ModelError  # one line, escaped, exit 2 (cli.main)

            raise ModelError(args.model, "modes", f"unknown bet mode {m!r} (known: {', '.join(game.modes)})")
    saving = _check_save(args, game, modes) if args.save_law is not None else None
    results = solve_rounds(game, modes, workspace=solve_workspace(game, args))
    if saving is not None:
        _save_law(args, game, results[0], saving)
    if args.format == "json":
        doc = {"schema": "analytic.solve/1", "game": game.name, "model": str(args.model),
               "modes": [result_to_json(r) for r in results]}
        text = json.dumps(doc, indent=1)  # whole document first: never half a JSON on stdout
        print(text)
    else:
        print("\n\n".join(format_table(r) for r in results))
    return 0


def _check_save(args, game, modes) -> bytes:
    """``--save-law``'s checks before the solve; returns the model file's bytes (its SHA-256 goes in the file)."""
    import os
    from pathlib import Path

    from analytic.cli.args import UsageError, check_not_an_input, check_out_file
    from analytic.errors import ModelError
    from analytic.model.loader import read_limited
    from analytic.solver.session import SessionRefused, _refuse_early, round_law_kind

    if len(modes) != 1:
        raise UsageError("--save-law: one bet mode at a time (give --mode NAME, not 'all')")
    if args.save_law == "-":
        raise UsageError("--save-law: '-' would be a file named '-' (the law is not written to standard output); "
                         "give a file name, e.g. round_law.json")
    check_out_file(args.save_law, "--save-law", example="round_law.json")
    if os.path.exists(args.save_law) and os.path.samefile(args.save_law, args.model):
        raise UsageError(f"--save-law: {args.save_law!r} is the model file (it would be replaced by the law); "
                         f"choose another file such as 'round_law.json'")
    check_not_an_input(args.save_law, args.model, "--save-law")  # a CSV file of the model's reels
    try:
        _refuse_early(game)
    except SessionRefused as exc:
        raise ModelError(args.model, exc.key or "", exc.reason) from None
    kind, key, why = round_law_kind(game, modes[0])
    if kind == "none":
        raise ModelError(args.model, key or "", why)
    return read_limited(Path(args.model), args.model, "", "the model file")


def _save_law(args, game, r, model_bytes: bytes) -> None:
    """Write the round law of the solved ``r`` to ``--save-law`` (whole or not at all)."""
    from analytic import __version__
    from analytic.solver.round_law_file import law_to_json, model_sha256, saved_round_law
    from analytic.solver.session import SessionRefused
    from analytic.tuner.write import atomic_write

    try:
        saved = saved_round_law(game, r.mode, r)
    except SessionRefused as exc:  # a limit of the solver (a law too large to combine): exit 1
        raise SessionRefused(f"{args.model}: mode {r.mode!r}: --save-law: {exc.reason}") from None
    try:
        doc = law_to_json(saved, model=args.model, sha256=model_sha256(model_bytes), solver_version=__version__)
    except ValueError as exc:  # a number beyond the files' limit (a limit, not the input): exit 1
        raise SessionRefused(f"{args.model}: mode {r.mode!r}: --save-law: {exc}") from None
    atomic_write(args.save_law, json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"wrote {args.save_law}: the round law of mode '{r.mode}' (analytic session --round-law)", file=sys.stderr)
