"""A bet mode's round law saved once, sessions run from it (no round solve).

A session (:mod:`analytic.solver.session`) needs of the solved round only
what its chain consumes; :class:`SavedRoundLaw` is exactly that, and
:func:`saved_round_law` takes it from a :class:`~analytic.solver.round.RoundResult`.
:func:`analytic.solver.session.solve_session` itself goes through it, so a
session from a saved law and one from a fresh solve run the same chain on the
same numbers (bit for bit).

What the chain reads, per kind:

* ``law`` (an exact or certified law, :func:`analytic.solver.distribution.round_law`):
  the points ``win -> probability`` (total bets, capped) in their order and
  their total-variation ``error``; the split into rounds without / with a
  feature (:func:`analytic.solver.session.split_round_law`) or why it is not
  available (the feature stop only); the round's price ``cost`` and mean win
  (uncapped, Wald's identity).  A currency cap is the model's
  (``[cap] currency``), read from the model.
* ``bracketed`` (no law, bounds of ``P(W >= x)``,
  :mod:`analytic.solver.session_bounds`): the two bracketing laws
  (:class:`~analytic.solver.session_bounds.IntervalLaws`), the price, the
  capped mean win and the cap (total bets).

Both also keep the features a round can start
(:func:`analytic.solver.session.features_started`): the feature stop is
refused when it can never end a session.

The file (JSON, schema ``analytic.round_law/1``) also records the model
file's SHA-256 and the solver version; :func:`read_round_law` refuses a file
made from another model file or another solver version, and validates every
value (types, probabilities in [0, 1], each law's total within its error of
1, that error below 1/2: :data:`VACUOUS_ERROR`).  Numbers keep their type:
an exact number (Fraction) is the string ``"p/q"`` (``"0xP/0xQ"`` in
hexadecimal when a part has more than 4,000 digits), a float a JSON number.  No pickle, no code.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from analytic.errors import ModelError
from analytic.figures import Figure

__all__ = ["SCHEMA", "SavedRoundLaw", "saved_round_law", "session_from_law", "law_to_json", "law_from_json",
           "read_round_law", "model_sha256"]

#: The file's schema name and version.
SCHEMA = "analytic.round_law/1"
#: A saved law's total-variation error from which it is refused (``law.error``): an error of 1/2 or more
#: puts every probability's interval ``p +- e`` over a width of at least 1, so it certifies nothing.
VACUOUS_ERROR = Fraction(1, 2)
#: Slack of a float law's total beyond its certified error (float64 rounding of the sum).
FLOAT_SLACK = 1e-9
_DIGITS = 4000
#: Largest part (numerator or denominator) of an exact number in a file, and largest common
#: denominator of a law's probabilities, in bits (about 19,700 decimal digits): the reader's exact
#: work (normalising each number, the law's exact total) stays bounded for any file under the size
#: limit.  The solver's own laws are far inside it (under 200 bits for the test models).
MAX_BITS = 2**16


@dataclass(frozen=True)
class SavedRoundLaw:
    """What the session chain reads of one bet mode's solved round.

    Attributes
    ----------
    mode : str
    kind : {'law', 'bracketed'}
    cost : Fraction
        Price of a round (total bets).
    mean_win : Figure
        ``law``: the round's mean win (uncapped); ``bracketed``: capped (total bets).
    features : frozenset of str or None
        The features a round can start (None: not taken).
    points : tuple of (win, probability) or None
        ``law``: the round's law (capped; Fractions, or floats for a certified grid law).
    error : Fraction or float
        ``law``: the law's total-variation bound (0: exact).
    split : tuple or str or None
        ``law``: ``(no-feature pairs, feature pairs, error)``, or why the split is not available;
        None when not taken (then the feature stop cannot be played from it).
    laws : IntervalLaws or None
        ``bracketed``: the two bracketing laws.
    cap : Fraction or None
        ``bracketed``: the win cap (total bets).
    """

    mode: str
    kind: str
    cost: Fraction
    mean_win: Figure
    features: frozenset
    points: tuple | None = None
    error: object = Fraction(0)
    split: object = None
    laws: object = None
    cap: Fraction | None = None


def saved_round_law(game, mode: str, r, *, split: bool = True, features: bool = True) -> SavedRoundLaw:
    """The session chain's inputs of a solved round.

    Parameters
    ----------
    game : Game
    mode : str
    r : RoundResult
        The mode's solved round (:func:`analytic.solver.round.solve_round`).
    split : bool
        Take the feature / no-feature split (needed by the feature stop only; costs a law build).
    features : bool
        Take the features a round can start (for a file: the feature stop is refused without one);
        False: ``features`` None (the chain does not read it).

    Raises
    ------
    SessionRefused
        The round has no law (a limit of the solver) and no bounds to bracket it by.
    """
    from analytic.solver import session as S
    from analytic.solver.distribution import round_law

    S._refuse_early(game)
    feats = S.features_started(game, mode, r.base) if features else None
    if S._no_law(game):
        laws = S._bounded_laws(game, r)
        if laws is not None:
            from analytic.solver.cap import applied_cap

            return SavedRoundLaw(mode, "bracketed", r.cost, S._capped_mean(r), feats, laws=laws,
                                 cap=applied_cap(r))
    law = round_law(r)
    if law.points is None:
        # a limit of the solver (too large to combine), not the input: kind "none" is refused before the solve
        raise S.SessionRefused(f"the round's law of this mode is not available: {law.reason}")
    sp = None
    if split:
        got = S.split_round_law(r, law)
        sp = got if isinstance(got, str) else (tuple(got[0].items()), tuple(got[1].items()), got[2])
    return SavedRoundLaw(mode, "law", r.cost, S._capped_mean(r), feats, points=tuple(law.points.items()),
                         error=law.error, split=sp)


def session_from_law(game, saved: SavedRoundLaw, rules, *, method: str = "auto", progress=None):
    """Session figures from a saved round law (:func:`analytic.solver.session.solve_session`'s chain).

    Parameters
    ----------
    game : Game
        The model the law was saved from (its currency cap is read from it).
    saved : SavedRoundLaw
    rules : SessionRules
    method : {'auto', 'exact', 'certified', 'coarse'}
        ``auto`` and ``coarse``: a long session on the coarse grid where
        :func:`~analytic.solver.session_bounds.coarse_from_law` takes it.
    progress : callable, optional
        As :func:`~analytic.solver.session.session_law` (every chain's rounds).

    Returns
    -------
    SessionResult

    Raises
    ------
    SessionRefused
        As :func:`~analytic.solver.session.solve_session` (checked before the chain by
        :func:`~analytic.solver.session.check_session`).
    """
    from analytic.solver.session import SessionRefused, figures, session_law
    from analytic.solver.session_bounds import coarse_from_law

    got = coarse_from_law(game, saved, rules, method, progress=progress)
    if got is not None:
        return got
    if saved.kind == "bracketed":
        from analytic.solver.session_bounds import bounded_session

        return bounded_session(rules, saved.laws, saved.cost, saved.mean_win, cap=saved.cap, method="certified",
                               progress=progress)
    if rules.stop_on_feature:
        sp = saved.split
        if sp is None:
            raise SessionRefused(f"the saved law of mode '{saved.mode}' has no feature split; save it again",
                                 option="stop_on_feature")
        if isinstance(sp, str):
            raise SessionRefused(f"stop-on-feature needs the round's law of mode '{saved.mode}' split by feature: "
                                 f"{sp}; play it without the feature stop", option="stop_on_feature")
        nof, feat, err = dict(sp[0]), dict(sp[1]), saved.error + sp[2]
    else:
        nof, feat, err = dict(saved.points), {}, saved.error
    cap = game.cap.currency if game.cap is not None and game.cap.currency else None
    law = session_law(rules, nof, feat, saved.cost, law_error=err, mean_win=saved.mean_win, cap_currency=cap,
                      method=method, progress=progress)
    return figures(law)


# ----------------------------------------------------------------------------
# JSON


def _int_text(n: int) -> str:
    return str(n) if n.bit_length() < _DIGITS * 3 else None


def _num(x):
    if isinstance(x, bool):
        raise TypeError("a bool is not a number")
    if isinstance(x, int):
        x = Fraction(x)
    if isinstance(x, Fraction):
        if max(abs(x.numerator), x.denominator).bit_length() > MAX_BITS:
            raise ValueError(f"an exact number with more than {MAX_BITS:,} bits (the files' limit)")
        a, b = _int_text(x.numerator), _int_text(x.denominator)
        if a is None or b is None:
            return f"{hex(x.numerator)}/{hex(x.denominator)}"
        return f"{a}/{b}"
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError("not a finite number")
        return x
    raise TypeError(f"not a number: {type(x).__name__}")


def _pairs(items) -> list:
    return [[_num(w), _num(p)] for w, p in items]


def _figure(f: Figure) -> dict:
    return {"value": _num(f.value), "label": f.label, "error": _num(f.error)}


def model_sha256(data: bytes) -> str:
    """SHA-256 (hex) of a model file's bytes (as the par sheets' ``model_sha256``)."""
    return hashlib.sha256(data).hexdigest()


def law_to_json(saved: SavedRoundLaw, *, model: str, sha256: str, solver_version: str) -> dict:
    """The ``analytic.round_law/1`` document of a saved law (module docstring)."""
    d = {"schema": SCHEMA, "model": str(model), "model_sha256": sha256, "solver_version": solver_version,
         "mode": saved.mode, "kind": saved.kind, "cost": _num(saved.cost), "mean_win": _figure(saved.mean_win),
         "features": sorted(saved.features or ())}
    if saved.kind == "law":
        d["law"] = {"points": _pairs(saved.points), "error": _num(saved.error)}
        sp = saved.split
        d["split"] = (None if sp is None else {"unavailable": sp} if isinstance(sp, str) else
                      {"no_feature": _pairs(sp[0]), "feature": _pairs(sp[1]), "error": _num(sp[2])})
    else:
        L = saved.laws
        d["interval_laws"] = {"nof": _pairs(L.nof.items()), "lo": _pairs(L.lo.items()), "hi": _pairs(L.hi.items()),
                              "points": [_num(x) for x in L.points], "gap": _num(L.gap),
                              "unit": None if L.unit is None else _num(L.unit)}
        d["cap"] = None if saved.cap is None else _num(saved.cap)
    return d


_FRAC = re.compile(r"(-?[0-9]{1,4000})/([0-9]{1,4000})|(-?0x[0-9a-f]{1,%d})/(0x[0-9a-f]{1,%d})"
                   % (MAX_BITS // 4, MAX_BITS // 4))


_FLOAT_MAX = Fraction(sys.float_info.max)


class _Reader:
    """Strict reading of a document; every refusal ``ModelError(file, key, reason)``."""

    def __init__(self, path: str):
        self.path = path

    def bad(self, key: str, reason: str):
        return ModelError(self.path, key, reason)

    def obj(self, v, key: str, keys: set, optional: set = frozenset()) -> dict:
        if not isinstance(v, dict):
            raise self.bad(key, f"must be a table (JSON object), got {type(v).__name__}")
        extra = set(v) - keys - optional
        if extra:
            raise self.bad(key, f"unknown key {sorted(extra)[0][:60]!r}")
        missing = keys - set(v)
        if missing:
            raise self.bad(key, f"missing key {sorted(missing)[0]!r}")
        return v

    def num(self, v, key: str, *, lo=None, hi=None, positive=False):
        if isinstance(v, str):
            m = _FRAC.fullmatch(v)
            if not m:
                raise self.bad(key, f"an exact number must be written 'p/q' (hexadecimal parts of at most "
                                    f"{MAX_BITS // 4:,} digits), got {v[:40]!r}")
            x = (Fraction(int(m.group(1)), int(m.group(2))) if m.group(1) is not None and int(m.group(2)) else
                 Fraction(int(m.group(3), 16), int(m.group(4), 16)) if m.group(3) is not None
                 and int(m.group(4), 16) else None)
            if x is None:
                raise self.bad(key, f"a zero denominator in {v[:40]!r}")
            if abs(x) > _FLOAT_MAX:  # the session works in float64 (and the refusals print float(x))
                raise self.bad(key, f"beyond the float64 range (more than {sys.float_info.max:.6g} in size), "
                                    f"got {v[:40]!r}")
        elif isinstance(v, float):
            if not math.isfinite(v):
                raise self.bad(key, "not a finite number")
            x = v
        else:
            raise self.bad(key, f"must be a number ('p/q' string or a float), got {type(v).__name__}")
        if (lo is not None and x < lo) or (hi is not None and x > hi) or (positive and x <= 0):
            where = "more than 0" if positive else f"in [{lo}, {hi}]" if hi is not None else f"at least {lo}"
            raise self.bad(key, f"must be {where}, got {float(x):.6g}")
        return x

    def pairs(self, v, key: str) -> tuple:
        if not isinstance(v, list):
            raise self.bad(key, f"must be a list of [win, probability] pairs, got {type(v).__name__}")
        out, seen = [], set()
        for i, e in enumerate(v):
            if not isinstance(e, list) or len(e) != 2:
                raise self.bad(f"{key}[{i}]", "must be a pair [win, probability]")
            w = self.num(e[0], f"{key}[{i}][0]", lo=0)
            p = self.num(e[1], f"{key}[{i}][1]", lo=0, hi=1)
            if w in seen:
                raise self.bad(f"{key}[{i}][0]", f"win {float(w):.6g} given twice")
            seen.add(w)
            out.append((w, p))
        return tuple(out)

    def exact_pairs(self, pairs, key: str, error_key: str) -> None:
        """An exact law (error 0) in exact numbers only: the writer gives it as 'p/q' strings, so a float
        there is a hand edit (and would take the law out of the exact law's checks, its total and mean)."""
        for i, pair in enumerate(pairs):
            for j, x in enumerate(pair):
                if not isinstance(x, Fraction):
                    raise self.bad(f"{key}[{i}][{j}]", f"a float ({x!r}) in an exact law ({error_key} 0): an exact "
                                                       f"law is written in exact numbers 'p/q'; save the law again")

    def total(self, parts, err, key: str, exact_sum: bool = True) -> None:
        """The parts' total within ``err`` of 1 (exactly 1 for an exact law)."""
        ps = [p for part in parts for _, p in part]
        if all(isinstance(p, Fraction) for p in ps) and err == 0:
            # cheap first: a total far from 1 is refused before any exact work
            s = math.fsum(float(p) for p in ps)
            if abs(s - 1) > 1e-6:
                raise self.bad(key, f"the probabilities add up to {s:.17g}, not 1 (an exact law)")
            # the exact total over the common denominator, refused beyond MAX_BITS (bounded work)
            den = 1
            for p in ps:
                if den % p.denominator:
                    den = math.lcm(den, p.denominator)
                    if den.bit_length() > MAX_BITS:
                        raise self.bad(key, f"the probabilities' common denominator has more than {MAX_BITS:,} "
                                            f"bits (the files' limit; the solver's laws are far below it)")
            s = Fraction(sum(p.numerator * (den // p.denominator) for p in ps), den)
            if s != 1:
                raise self.bad(key, f"the probabilities add up to {float(s):.17g}, not 1 (an exact law)")
            return
        s = math.fsum(float(p) for p in ps)
        if abs(s - 1) > float(err) + FLOAT_SLACK:
            raise self.bad(key, f"the probabilities add up to {s:.17g}, more than the error {float(err):.3g} "
                                f"away from 1")

    def figure(self, v, key: str) -> Figure:
        self.obj(v, key, {"value", "label", "error"})
        if v["label"] not in ("exact", "bounded"):
            raise self.bad(f"{key}.label", "must be 'exact' or 'bounded'")
        val = self.num(v["value"], f"{key}.value", lo=0)
        err = self.num(v["error"], f"{key}.error", lo=0)
        if not isinstance(val, Fraction) or not isinstance(err, Fraction):
            raise self.bad(key, "a figure's value and error must be exact numbers 'p/q'")
        if v["label"] == "exact" and err:
            raise self.bad(f"{key}.error", "an exact figure has error 0")
        return Figure(val, v["label"], err)


def law_from_json(doc, path: str, *, game, sha256: str, solver_version: str, mode: str) -> SavedRoundLaw:
    """A saved law from its document, validated against the model and the session asked for.

    Parameters
    ----------
    doc : object
        The parsed JSON.
    path : str
        The file (named in errors).
    game : Game
        The model given with it.
    sha256 : str
        The SHA-256 of that model file's bytes.
    solver_version : str
        This solver's version.
    mode : str
        The bet mode asked for.

    Raises
    ------
    ModelError
        ``FILE: KEY: reason``: a wrong schema, a value of the wrong type or out of range, a law
        whose probabilities do not add up as they must or whose error is 1/2 or more, an exact law
        whose mean is not the mean win (capped: above it; a certified law: above it by more than its error
        times its largest win) or whose exact split does not part it, an exact law
        (error 0) holding a float (the writer gives it in 'p/q' only), another model file or solver version, a
        mode not the one asked for (or unknown to the model).
    """
    R = _Reader(path)
    common = {"schema", "model", "model_sha256", "solver_version", "mode", "kind", "cost", "mean_win", "features"}
    if not isinstance(doc, dict):
        raise R.bad("", f"not a round-law file: the top level must be a JSON object (schema {SCHEMA})")
    if doc.get("schema") != SCHEMA:
        got = doc.get("schema")
        raise R.bad("schema", f"must be {SCHEMA!r}, got {str(got)[:60]!r}" if got is not None else
                    f"missing: not a round-law file (schema {SCHEMA})")
    kind = doc.get("kind")
    if kind not in ("law", "bracketed"):
        raise R.bad("kind", f"must be 'law' or 'bracketed', got {str(kind)[:40]!r}")
    keys = common | ({"law", "split"} if kind == "law" else {"interval_laws", "cap"})
    R.obj(doc, "", keys)
    for k in ("model", "model_sha256", "solver_version", "mode"):
        if not isinstance(doc[k], str):
            raise R.bad(k, f"must be a string, got {type(doc[k]).__name__}")
    if doc["model_sha256"] != sha256:
        raise R.bad("model_sha256", f"saved from another model file (SHA-256 {doc['model_sha256'][:64]!r}, the "
                                    f"model given has {sha256}); save the law again from this model")
    if doc["solver_version"] != solver_version:
        raise R.bad("solver_version", f"saved by analytic {doc['solver_version'][:40]!r}, this is {solver_version}; "
                                      f"save the law again")
    m = doc["mode"]
    if m not in game.modes:
        raise R.bad("mode", f"unknown bet mode {m[:60]!r} (the model's: {', '.join(game.modes)})")
    if m != mode:
        raise R.bad("mode", f"the law of bet mode {m[:60]!r}, but the session asks for mode {mode!r}")
    cost = R.num(doc["cost"], "cost", positive=True)
    if not isinstance(cost, Fraction) or cost != game.modes[m].cost:
        raise R.bad("cost", f"{doc['cost']!r} is not the cost of mode {m!r} in the model")
    mean = R.figure(doc["mean_win"], "mean_win")
    fs = doc["features"]
    if not isinstance(fs, list) or not all(isinstance(f, str) and f in game.features for f in fs):
        raise R.bad("features", "must be a list of the model's feature names")
    feats = frozenset(fs)
    if kind == "law":
        law = R.obj(doc["law"], "law", {"points", "error"})
        err = R.num(law["error"], "law.error", lo=0, hi=1)
        if err >= VACUOUS_ERROR:
            raise R.bad("law.error", f"must be below 1/2, got {float(err):.6g}: a total-variation error of 1/2 or "
                                     f"more certifies no probability (every interval would be at least [0, 1] "
                                     f"wide); save the law again")
        pts = R.pairs(law["points"], "law.points")
        if err == 0:
            R.exact_pairs(pts, "law.points", "law.error")
        R.total([pts], err, "law.points")
        exact = err == 0 and all(isinstance(x, Fraction) for pair in pts for x in pair)
        if exact and mean.label == "exact":
            # an exact law's mean is the round's mean win (capped: at most it); a hand edit that keeps
            # the total at 1 (two probabilities swapped) is caught here
            mw = sum((w * p for w, p in pts), Fraction(0))
            if mw > mean.value or (game.cap is None and mw != mean.value):
                raise R.bad("law.points", f"the law's mean win {float(mw):.17g} is not the round's mean win "
                                          f"{float(mean.value):.17g} (mean_win); save the law again")
        elif pts:
            # within total variation err of the true law L*, sum_w w (L - L*)(w) <= err * (its largest win),
            # so the law's mean is at most the round's (capped) mean plus that: a hand edit moving mass up
            # beyond it is caught (float sums: a relative slack of 1e-9)
            mw = math.fsum(float(w) * float(p) for w, p in pts)
            most = float(mean.value + mean.error) + float(err) * max(float(w) for w, _ in pts)
            if mw > most * (1 + 1e-9) + 1e-300:
                raise R.bad("law.points", f"the law's mean win {mw:.17g} is more than the round's mean win "
                                          f"(mean_win, at most {float(mean.value + mean.error):.17g}) plus the law's "
                                          f"error times its largest win ({most:.17g} in all); save the law again")
        sp = doc["split"]
        if sp is not None:
            if isinstance(sp, dict) and set(sp) == {"unavailable"}:
                if not isinstance(sp["unavailable"], str):
                    raise R.bad("split.unavailable", "must be a string (why the split is not available)")
                sp = sp["unavailable"]
            else:
                R.obj(sp, "split", {"no_feature", "feature", "error"})
                e = R.num(sp["error"], "split.error", lo=0, hi=1)
                if err + e >= VACUOUS_ERROR:  # (the split's law is within law.error + split.error)
                    raise R.bad("split.error", f"with law.error it must be below 1/2, got {float(err + e):.6g} in "
                                               f"all: that error certifies no probability; save the law again")
                a, b = R.pairs(sp["no_feature"], "split.no_feature"), R.pairs(sp["feature"], "split.feature")
                if err + e == 0:
                    R.exact_pairs(a, "split.no_feature", "split.error")
                    R.exact_pairs(b, "split.feature", "split.error")
                R.total([a, b], err + e, "split")
                if exact and e == 0:  # an exact split: the law's points, parted
                    merged: dict = {}
                    for w, p in a + b:
                        merged[w] = merged.get(w, 0) + p
                    if {w: p for w, p in merged.items() if p} != {w: p for w, p in pts if p}:
                        raise R.bad("split", "the rounds without and with a feature do not add up to the "
                                             "law (law.points); save the law again")
                sp = (a, b, e)
        return SavedRoundLaw(m, kind, cost, mean, feats, points=pts, error=err, split=sp)
    from analytic.solver.session_bounds import IntervalLaws

    il = R.obj(doc["interval_laws"], "interval_laws", {"nof", "lo", "hi", "points", "gap", "unit"})
    nof, lo, hi = (R.pairs(il[k], f"interval_laws.{k}") for k in ("nof", "lo", "hi"))
    for k, part in (("lo", lo), ("hi", hi)):
        R.total([nof, part], Fraction(0), f"interval_laws.{k}")
        if not all(isinstance(x, Fraction) for pair in nof + part for x in pair):
            raise R.bad(f"interval_laws.{k}", "the bracketing laws are exact: every number 'p/q'")
    if not isinstance(il["points"], list) or not il["points"]:
        raise R.bad("interval_laws.points", "must be a non-empty list of grid points")
    grid = tuple(R.num(x, f"interval_laws.points[{i}]", positive=True) for i, x in enumerate(il["points"]))
    if any(not isinstance(x, Fraction) for x in grid) or any(a >= b for a, b in zip(grid, grid[1:])):
        raise R.bad("interval_laws.points", "must be exact numbers, increasing")
    on = set(grid) | {Fraction(0)}
    for k, part in (("lo", lo), ("hi", hi)):
        if any(w not in on for w, _ in part):
            raise R.bad(f"interval_laws.{k}", "a feature win off the grid (0 and interval_laws.points)")
    gap = R.num(il["gap"], "interval_laws.gap", lo=0, hi=1)
    unit = None if il["unit"] is None else R.num(il["unit"], "interval_laws.unit", positive=True)
    cap = None if doc["cap"] is None else R.num(doc["cap"], "cap", positive=True)
    if cap is not None and (cap != grid[-1] or any(w > cap for w, _ in nof)):
        raise R.bad("cap", "the win cap must be the grid's last point and no win above it")
    laws = IntervalLaws(dict(nof), dict(lo), dict(hi), grid, gap, unit)
    return SavedRoundLaw(m, kind, cost, mean, feats, laws=laws, cap=cap)


def read_round_law(file: str, *, game, model_bytes: bytes, mode: str) -> SavedRoundLaw:
    """Read and validate a round-law file (size-limited, regular files only).

    Parameters
    ----------
    file : str
        The round-law file.
    game : Game
        The model given with it.
    model_bytes : bytes
        The model file's bytes (its SHA-256 must be the file's ``model_sha256``).
    mode : str
        The bet mode asked for.

    Raises
    ------
    ModelError
        ``FILE: KEY: reason`` (:func:`law_from_json`), or the file is unreadable, too large or not JSON.
    """
    from analytic import __version__
    from analytic.model.loader import read_limited

    data = read_limited(Path(file), file, "", "the round-law file")
    try:
        doc = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise ModelError(file, "", "not UTF-8 text (a round-law file is JSON)") from None
    except (ValueError, RecursionError) as exc:
        raise ModelError(file, "", f"not JSON: {str(exc)[:80]}") from None
    return law_from_json(doc, file, game=game, sha256=model_sha256(model_bytes), solver_version=__version__,
                         mode=mode)


def _no_constant(name):
    raise ValueError(f"{name} is not a number")
