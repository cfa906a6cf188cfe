"""JSON par sheet: a stable schema (``SCHEMA``), exact values beside floats.

Every exact number is written as ``{"exact": "p/q", "float": x, "label":
"exact"}`` (bounded ones add ``"error"``), so a reader can check figures to
the last digit and a diff shows any change.  The rows of a bounded win
distribution are ``{"float": x, "label": "bounded"}`` (the probability with
the table's total-variation ``"error"``).  The exceedance ladder's
probabilities are exact fractions, or ``{"low", "high", "label":
"bounded"}`` with certified ends; an interval ladder (a round without a law,
:func:`analytic.solver.exceedance.interval_exceedance`) adds ``"kind":
"interval"`` and its ``"method"``, with ``"error": null``.  Keys keep the order of the data
model (:mod:`analytic.reports.model`); there are no timestamps.
"""

from __future__ import annotations

import dataclasses
import json
import math
from fractions import Fraction
from typing import Any

from analytic.figures import Figure, fraction_text, int_text, round_outward
from analytic.reports.format import sd_interval
from analytic.reports.model import ParSheet, row_errors

__all__ = ["SCHEMA", "to_data", "render_json", "write_json"]

#: Schema name and version written as ``"schema"``; bump on a breaking change.
SCHEMA = "analytic.par_sheet/1"


#: Longest exact fraction written out (digits of numerator and denominator together).  A longer one
#: (today only the spins-played law's far rows: powers of a reel set's cycle over hundreds of spins,
#: thousands of digits) is written as its float with ``"exact": null`` and the digit counts.
JSON_FRACTION_DIGITS = 1000


def _digits(n: int) -> int:
    """Decimal digits of ``|n|`` (from its bit length: never converts a huge integer to text)."""
    n = abs(n)
    if n < 10**18:
        return len(str(n))
    d = int(n.bit_length() * 0.30102999566398120)
    return d + 1 if n >= 10**d else d


def _frac(v: Fraction) -> dict:
    nd, dd = _digits(v.numerator), _digits(v.denominator)
    if nd + dd > JSON_FRACTION_DIGITS:
        return {"exact": None, "float": float(v), "label": "exact", "exact_digits": [nd, dd]}
    return {"exact": f"{v.numerator}/{v.denominator}", "float": float(v), "label": "exact"}


def _conv(v: Any) -> Any:
    if isinstance(v, Figure):
        return v.to_json()
    if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
        return v
    if isinstance(v, Fraction):
        return _frac(v)
    if isinstance(v, float):
        return None if math.isinf(v) or math.isnan(v) else v
    if dataclasses.is_dataclass(v):
        return {f.name: _conv(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if isinstance(v, dict):
        return {str(k): _conv(x) for k, x in v.items()}
    if isinstance(v, (tuple, list)):
        return [_conv(x) for x in v]
    if isinstance(v, (set, frozenset)):
        return sorted(_conv(x) for x in v)
    return str(v)


def _q(rows) -> list:
    """Quantile rows ``(level, low, high)`` as ``{"level", "low", "high"}`` (exact fractions as text;
    ``low == high``: determined, else the certified interval)."""
    t = lambda v: fraction_text(v) if v.denominator != 1 else int_text(v.numerator)  # noqa: E731
    return [{"level": t(lv), "low": t(lo), "high": t(hi), "low_float": float(lo), "high_float": float(hi)}
            for lv, lo, hi in rows]


def _session(sec) -> dict | None:
    """The session section (see :class:`analytic.reports.model.SessionSection`)."""
    if sec is None:
        return None
    out = {"start": _frac(sec.start), "bet": _frac(sec.bet), "unit": sec.unit}
    if sec.refused:
        return {**out, "refused": sec.refused}
    out["note"] = sec.note
    out["horizons"] = [{"rounds": h.rounds, "method": h.method, "error": float(h.error),
                        "balance_mean": h.balance_mean.to_json(), "balance_quantiles": _q(h.quantiles),
                        "p_above_start": _prob(h.p_above_start), "ruin": _prob(h.ruin),
                        "rounds_to_ruin": h.rounds_to_ruin.to_json() if h.rounds_to_ruin else None}
                       for h in sec.horizons]
    out["curve"] = [{"rounds": t, "balance_quantiles": _q(q), "ruin": r} for t, q, r in sec.curve]
    out["autoplay_note"] = sec.autoplay_note
    a = sec.autoplay
    out["autoplay"] = None if a is None else {
        "setting": dict(a.setting), "method": a.method, "error": float(a.error),
        "reasons": {k: _prob(f) for k, f in a.reasons}, "rounds_mean": a.rounds_mean.to_json(),
        "rounds_quantiles": _q(tuple((lv, Fraction(lo), Fraction(hi)) for lv, lo, hi in a.rounds_quantiles)),
        "balance_mean": a.balance_mean.to_json(), "p_above_start": _prob(a.p_above_start)}
    return out


def _prob(f: Figure) -> dict:
    """A session probability as JSON, ``value +/- error`` within [0, 1]
    (:meth:`~analytic.figures.Figure.published_within`)."""
    return f.published_within().to_json()


def _bounds(lo: Fraction, hi: Fraction) -> dict:
    """A probability: the exact fraction, or certified ``low`` / ``high`` bounds rounded outwards to
    :data:`~analytic.figures.BOUND_DIGITS` significant digits (:func:`~analytic.figures.round_outward`),
    as floats (each the float whose shortest decimal is that rounded bound)."""
    if lo == hi:
        return _frac(lo)
    return {"low": float(round_outward(lo, up=False)), "high": float(round_outward(hi, up=True)), "label": "bounded"}


def _bucket_rows(table, rows: list, cost) -> None:
    """The rows ``rows`` (JSON of ``table.buckets``) with their certified errors
    (:func:`~analytic.reports.model.row_errors`): a figure with an error is bounded, one without
    stays exact; a share that cannot be certified is labelled approximate."""
    for b, bd, errs in zip(table.buckets, rows, row_errors(table, cost)):
        if errs[2] is None:  # the share not certified; the probability and RTP keep their errors
            bd["share"] = {"float": float(b.share), "label": "approximate"}
        for key, err in zip(("probability", "rtp", "share"), errs):
            if err:  # (an exact one stays as the table renders it)
                bd[key] = Figure(Fraction(getattr(b, key)), "bounded", err).to_json()


def _range(r) -> dict:
    """An expected-RTP-range row: level -> [low, high], the label, and for a certified row each
    quantile's certified interval."""
    d = {"rounds": r.rounds, **{f"{lv}%": [lo, hi] for lv, lo, hi in r.ranges},
         "truncated_at_0": [f"{lv}%" for lv in r.truncated], "label": r.label}
    if r.quantiles:
        d["quantile_bounds"] = {f"{lv}%": {"low": [a, b], "high": [c, e]} for lv, a, b, c, e in r.quantiles}
    return d


def _ladder(ex) -> dict | None:
    """The exceedance ladder (None for a mode whose round has no law: ``exceedance_note`` says why)."""
    if ex is None:
        return None
    if ex.kind == "interval":  # no law: bounds per threshold, no total-variation error
        return {"label": ex.label, "kind": ex.kind, "method": ex.method, "error": None, "gap": float(ex.gap),
                "rows": [{"x": _frac(r.threshold), "label": r.label, "probability": _bounds(r.low, r.high)}
                         for r in ex.rows],
                "max_win": None if ex.max_win is None else _frac(ex.max_win),
                "max_probability": None if ex.max_win is None else _bounds(ex.max_low, ex.max_high),
                "max_note": ex.max_note}
    return {"label": ex.label, "error": float(ex.error), "gap": float(ex.gap),
            "rows": [{"x": _frac(r.threshold), "label": r.label, "probability": _bounds(r.low, r.high)}
                     for r in ex.rows],
            "max_win": None if ex.max_win is None else _frac(ex.max_win),
            "max_probability": None if ex.max_win is None else _bounds(ex.max_low, ex.max_high),
            "max_note": ex.max_note}


def _spins_rows(rows) -> list:
    return [{"label": r.label, "low": r.low, "high": r.high, "probability": _frac(r.probability),
             "cumulative": _frac(r.cumulative)} for r in rows]


def _spins(t) -> dict:
    """A :class:`~analytic.reports.model.SpinsPlayedTable` (every probability an exact fraction)."""
    return {"feature": t.feature, "note": t.note, "expected_spins": _frac(t.expected),
            "p_at_least_one_retrigger": _frac(t.p_retrigger),
            "starts": [{"count": n, "probability": _frac(p)} for n, p in t.starts],
            "spins": _spins_rows(t.rows), "retriggers": _spins_rows(t.retriggers), "method": t.method}


def to_data(sheet: ParSheet) -> dict:
    """The JSON-ready dict of the sheet (``schema`` first)."""
    d = _conv(sheet)
    # pairs read better as objects
    d["meta"] = dict(sheet.meta)
    d["cap"] = dict(sheet.cap)
    d["design"] = dict(sheet.design)
    d["lines"] = [list(l) for l in sheet.lines]
    if not sheet.ways:
        d.pop("ways", None)  # only a ways game's sheet has the key (the lines games' schema is unchanged)
    for m, md in zip(sheet.modes, d["modes"]):
        md["components"] = [{"name": n, "rtp": f.to_json()} for n, f in m.components]
        md["volatility"] = {str(c): v for c, v in m.volatility}
        md["ranges"] = [_range(r) for r in m.ranges]
        md["bands"] = [_range(r) for r in m.bands]
        md["scatter_counts"] = [{"cells": k, "combinations": n, "probability": _frac(p)}
                                for k, n, p in m.scatter_counts]
        md["extra"] = {k: _conv(v) for k, v in m.extra}
        # "sd" and "volatility" are floats of the variance's centre; where it is bounded, their
        # certified intervals (the square roots of its ends, outward, as the Markdown prints them)
        iv = sd_interval(m)
        md["sd_bounds"] = None if iv is None else _bounds(*iv)
        md["volatility_bounds"] = None if iv is None else {
            str(c): _bounds(*sd_interval(m, x)) for c, x in m.volatility}
        _bucket_rows(m.distribution, md["distribution"]["buckets"], m.info.cost)
        md["distribution"].pop("rtp_error", None)  # (the rows carry it)
        md["methods"] = dict(m.methods)
        md["session"] = _session(m.session)
        md["exceedance"] = _ladder(m.exceedance)
        md["spins_played"] = [_spins(t) for t in m.spins_played]
        md.pop("ranges_note", None)
        md["ranges_note"] = m.ranges_note  # last, as in schema 1
    for rs, rd in zip(sheet.reel_sets, d["reel_sets"]):
        rd["counts"] = [{"symbol": s, "per_reel": list(per), "total": t} for s, per, t in rs.counts]
    d["paytable"] = [{"symbol": p.symbol, "role": p.role, "pays": {str(n): v for n, v in p.pays},
                      **({"wild": p.wild} if p.wild else {})}
                     for p in sheet.paytable]
    d["scatter_pays"] = {str(n): _frac(Fraction(p)) for n, p in sheet.scatter_pays}
    d["features"] = [{"name": f.name, "kind": f.kind, "engine": f.engine, "trigger": f.trigger,
                      "reel_set": f.reel_set, "mechanics": list(f.mechanics), "declared": _conv(dict(f.declared)),
                      "parameters": dict(f.parameters)} for f in sheet.features]
    d["line_triggers"] = [{"symbol": s, "count": n, "feature": f} for s, n, f in sheet.line_triggers]
    d["free_games"] = [{"feature": g.feature, "reel_set": g.reel_set, "cycle": g.cycle,
                        "line_wins": _conv(g.line_wins),
                        "retrigger_probability": None if g.retrigger_probability is None
                        else _frac(g.retrigger_probability),
                        "retrigger_awards": [{"spins": a, "probability": _frac(p)} for a, p in g.retrigger_awards],
                        "retrigger_note": g.retrigger_note} for g in sheet.free_games]
    return {"schema": SCHEMA, **d}


def render_json(sheet: ParSheet) -> str:
    """The JSON par sheet as text (2-space indent, trailing newline)."""
    return json.dumps(to_data(sheet), indent=2, ensure_ascii=False) + "\n"


def write_json(sheet: ParSheet, path: str) -> None:
    """Write :func:`render_json` to ``path``."""
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(render_json(sheet))
