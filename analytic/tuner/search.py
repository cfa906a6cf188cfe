"""Reel-strip tuning: change symbol counts until the exact figures hit targets.

The designer's loop made a search.  The state is the symbol counts of each
reel of one reel set; a *move* takes one stop from symbol ``a`` and gives it
to ``b`` on one reel (length kept), or adds/removes one stop of a symbol
(length changes within bounds).  Every candidate is solved exactly
(:func:`analytic.solver.round.solve_round`), so a reported figure is never a
prediction.

Search: at each step the effect of every elementary change (one more stop of
``s`` on reel ``r``) is measured exactly once; moves and pairs of moves are
ranked by the linear prediction of the weighted squared error, and the best
few are solved exactly; the best improvement is taken.  The search stops when
every target is within tolerance, or when no candidate improves (it then
reports the closest result it found).  Symbols are only ever placed on reels
whose strip already shows them, and never taken off a reel entirely (the
rules' placement is kept); locked ``reel/symbol`` counts never change.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import MappingProxyType
from typing import Callable, Iterable, Mapping

from analytic.model.game import Game
from analytic.tuner.layout import edit, spread, strip_counts

__all__ = ["Targets", "Metrics", "TuneResult", "tune", "tune_with_cap", "evaluate", "with_counts",
           "tuned_reel_set", "modes_sharing", "reel_sets_read"]


@dataclass(frozen=True)
class Targets:
    """What the tuning aims at, with tolerances (absolute, as fractions).

    Attributes
    ----------
    rtp : Fraction
        Target RTP of the mode (1 = 100 %).
    hit_frequency, feature_frequency : Fraction or None
        Optional targets (probabilities per round).
    rtp_tolerance : Fraction
        Default 0.00005 (0.005 percentage points).
    hit_tolerance, feature_tolerance : Fraction
        Default 0.001 and 0.0001.
    """

    rtp: Fraction
    hit_frequency: Fraction | None = None
    feature_frequency: Fraction | None = None
    rtp_tolerance: Fraction = Fraction(5, 100000)
    hit_tolerance: Fraction = Fraction(1, 1000)
    feature_tolerance: Fraction = Fraction(1, 10000)

    def pairs(self):
        out = [("rtp", self.rtp, self.rtp_tolerance)]
        if self.hit_frequency is not None:
            out.append(("hit_frequency", self.hit_frequency, self.hit_tolerance))
        if self.feature_frequency is not None:
            out.append(("feature_frequency", self.feature_frequency, self.feature_tolerance))
        return out


@dataclass(frozen=True)
class Metrics:
    """Exact figures of one candidate (probabilities and RTP as fractions)."""

    rtp: Fraction
    hit_frequency: Fraction
    feature_frequency: Fraction
    label: str = "exact"

    def get(self, name: str) -> Fraction:
        return getattr(self, name)


@dataclass(frozen=True)
class TuneResult:
    """Outcome of :func:`tune`.

    Attributes
    ----------
    game : Game
        The model with the tuned reel set laid out (never written to disk here).
    reel_set : str
    metrics : Metrics
        Exact figures of ``game`` for the mode.
    met : bool
        True when every target is within tolerance.
    steps : int
    evaluations : int
        Exact solves performed.
    changes : list of str
        Human-readable count changes per reel (``reel 2: book 4 -> 5``).
    """

    game: Game
    reel_set: str
    metrics: Metrics
    met: bool
    steps: int
    evaluations: int
    changes: list[str] = field(default_factory=list)


def tuned_reel_set(game: Game, mode: str) -> str:
    """The reel set a mode's figures depend on most: the base set of a spin
    mode, the bought feature's set for a buy."""
    m = game.modes[mode]
    if m.reel_set is not None:
        return m.reel_set
    return game.features[m.buys].reel_set


def reel_sets_read(game: Game, mode: str) -> list[str]:
    """The reel sets whose strips a bet mode's figures can depend on, in model order.

    A spin mode reads its base reel set and the reel set of every feature a spin can
    start: one with a trigger, one a line trigger starts, or the ``into`` of the mode's
    gamble.  A feature buy reads its bought feature's reel set.  Like
    :func:`modes_sharing` the list may name a set a feature's own conditions never
    reach, never leave one out; a set outside it cannot change the mode's figures,
    so tuning it cannot move them.

    Parameters
    ----------
    game : Game
        The loaded model.
    mode : str
        A bet mode of ``game``.

    Returns
    -------
    list of str
        Reel set names (keys of ``game.reel_sets``).

    Raises
    ------
    KeyError
        Unknown mode.
    """
    m = game.modes[mode]
    if m.reel_set is None:
        read = {game.features[m.buys].reel_set}
    else:
        started = {n for n, f in game.features.items() if f.trigger is not None}
        started |= {n for by_count in game.line_triggers.values() for n in by_count.values()}
        gamble = m.params.get("gamble")
        if gamble is not None:
            started.add(gamble["into"])
        read = {m.reel_set} | {game.features[n].reel_set for n in started}
    return [rs for rs in game.reel_sets if rs in read]


def modes_sharing(game: Game, reel_set: str, mode: str) -> list[tuple[str, str]]:
    """The bet modes other than ``mode`` whose figures can change with the strips of ``reel_set``.

    A mode reads a reel set when it is the mode's base reel set, when the mode buys a feature
    played on it, or when the mode's base spin can trigger such a feature (a feature with a
    trigger; its own conditions, e.g. ``requires``, are not looked at: the list may name a
    mode the feature never reaches, never leave one out).

    Returns
    -------
    list of (str, str)
        ``(mode name, how it reads the set)`` in model order, e.g. ``("base", "through feature
        'free_spins'")``.
    """
    feats = [n for n, f in game.features.items() if f.reel_set == reel_set]
    out = []
    for name, m in game.modes.items():
        if name == mode:
            continue
        if m.reel_set == reel_set:
            out.append((name, "its base reel set"))
        elif m.buys is not None and m.buys in feats:
            out.append((name, f"the bought feature '{m.buys}'"))
        elif m.buys is None:
            hit = [n for n in feats if game.features[n].trigger is not None]
            if hit:
                out.append((name, "through feature " + ", ".join(f"'{n}'" for n in hit)))
    return out


def with_counts(game: Game, reel_set: str, counts: list[Mapping[str, int]], *, relayout: bool = False) -> Game:
    """A copy of ``game`` whose reel set has the given counts.

    By default each strip is the original changed as little as possible
    (:func:`analytic.tuner.layout.edit`: stacks and spacing kept); with
    ``relayout`` every symbol is spread evenly (:func:`analytic.tuner.layout.spread`).
    """
    if relayout:
        strips = tuple(spread({s: c for s, c in cnt.items() if c > 0}) for cnt in counts)
    else:
        strips = tuple(edit(st, {s: c for s, c in cnt.items() if c > 0})
                       for st, cnt in zip(game.reel_sets[reel_set], counts))
    sets = dict(game.reel_sets)
    sets[reel_set] = strips
    return replace(game, reel_sets=MappingProxyType(sets))


def evaluate(game: Game, mode: str, feature_cache: dict | None = None, *, plain: bool = False) -> Metrics:
    """Exact RTP, hit frequency and total feature frequency of a mode.

    ``feature_cache`` is handed to :func:`analytic.solver.round.solve_round`
    (valid only while the features' inputs do not change); ``plain`` skips a
    kind's round solver (no win cap, no gamble).
    """
    from analytic.solver.round import solve_round

    res = solve_round(game, mode, feature_cache=feature_cache, plain=plain)
    feat = sum((f.frequency.value for f in res.features), Fraction(0)) if res.base is not None else Fraction(1)
    return Metrics(res.rtp.value, res.hit_frequency.value, feat, res.rtp.label)


def _score(m: Metrics, targets: Targets) -> float:
    return sum((float(m.get(n) - t) / float(tol)) ** 2 for n, t, tol in targets.pairs())


def _met(m: Metrics, targets: Targets) -> bool:
    return all(abs(m.get(n) - t) <= tol for n, t, tol in targets.pairs())


def tune(
    game: Game,
    mode: str,
    targets: Targets,
    *,
    reel_set: str | None = None,
    locks: Iterable[str] = (),
    length_slack: int = 4,
    max_steps: int = 60,
    candidates: int = 6,
    progress: Callable[[int, Metrics, float], None] | None = None,
    evaluator: Callable[[Game, str], Metrics] | None = None,
    plain: bool = False,
    relayout: bool = False,
    allow_removal: bool = False,
) -> TuneResult:
    """Change symbol counts of a reel set until the mode's targets hold.

    Parameters
    ----------
    game : Game
    mode : str
        Bet mode whose figures are tuned.
    targets : Targets
    reel_set : str, optional
        Reel set to change (default :func:`tuned_reel_set`).
    locks : iterable of str
        ``"R/SYMBOL"`` (1-based reel) or ``"SYMBOL"`` (every reel): counts
        that must not change.
    length_slack : int
        A strip may grow or shrink by at most this many stops.
    max_steps : int
    candidates : int
        Exact solves per step among the best-predicted moves.
    progress : callable, optional
        ``progress(step, metrics, score)`` after each step.
    evaluator : callable, optional
        ``evaluator(game, mode) -> Metrics``.  Default: the exact solver,
        reusing feature results across candidates when the tuned reel set is
        not one a feature plays on.
    plain : bool
        With the default evaluator: solve without a kind's round solver
        (uncapped; see :func:`tune_with_cap`).
    relayout : bool
        Spread every symbol evenly instead of editing the designer's strips
        as little as possible.
    allow_removal : bool
        Let a symbol's count on a reel fall to 0 (default: every symbol a
        strip shows keeps at least one stop).

    Returns
    -------
    TuneResult
        ``met`` says whether every target holds; otherwise the closest
        candidate found.

    Raises
    ------
    KeyError
        Unknown mode or reel set.
    """
    rs = reel_set or tuned_reel_set(game, mode)
    if evaluator is None:
        feature_sets = {f.reel_set for f in game.features.values()}
        shared = {} if rs not in feature_sets else None
        evaluator = lambda g, m: evaluate(g, m, shared, plain=plain)  # noqa: E731
    strips = game.reel_sets[rs]
    start = [strip_counts(s) for s in strips]
    lengths0 = [len(s) for s in strips]
    locked: set[tuple[int, str]] = set()
    for lk in locks:
        if "/" in lk:
            r, s = lk.split("/", 1)
            locked.add((int(r) - 1, s))
        else:
            locked.update((r, lk) for r in range(len(strips)))
    free = [[s for s in c if (r, s) not in locked] for r, c in enumerate(start)]
    cache: dict = {}
    evals = 0

    def key(counts):
        return tuple(tuple(sorted(c.items())) for c in counts)

    def run(counts) -> Metrics:
        nonlocal evals
        k = key(counts)
        if k not in cache:
            cache[k] = evaluator(with_counts(game, rs, counts, relayout=relayout), mode)
            evals += 1
        return cache[k]

    def ok(counts) -> bool:
        for r, c in enumerate(counts):
            n = sum(c.values())
            if abs(n - lengths0[r]) > length_slack or n < game.rows:
                return False
            if any(v < 0 for v in c.values()):
                return False
            # a symbol the strip showed keeps at least one stop (found in review: the top symbol
            # could be tuned off a reel, which changes the game, not its weights)
            if not allow_removal and any(start[r].get(s, 0) > 0 and c.get(s, 0) == 0 for s in c):
                return False
        return True

    def apply(counts, delta):
        out = [dict(c) for c in counts]
        for (r, s), d in delta.items():
            out[r][s] = out[r].get(s, 0) + d
        return out

    cur = [dict(c) for c in start]
    m = run(cur)
    best_score = _score(m, targets)
    steps = 0
    names = [n for n, _, _ in targets.pairs()]
    while not _met(m, targets) and steps < max_steps:
        steps += 1
        # exact effect of one more stop of each free symbol on each reel
        grad = {}
        for r, syms in enumerate(free):
            for s in syms:
                cand = apply(cur, {(r, s): 1})
                if ok(cand):
                    mm = run(cand)
                    grad[(r, s)] = [float(mm.get(n) - m.get(n)) for n in names]
        moves = []
        for r, syms in enumerate(free):
            for a, b in itertools.permutations(syms, 2):
                if (r, a) in grad and (r, b) in grad and cur[r].get(a, 0) > 0:
                    moves.append({(r, a): -1, (r, b): 1})
            for s in syms:
                moves.append({(r, s): 1})
                if cur[r].get(s, 0) > (0 if allow_removal else 1):
                    moves.append({(r, s): -1})
        base = [float(m.get(n)) for n in names]
        tgt = [(float(t), float(tol)) for _, t, tol in targets.pairs()]

        def predict(delta):
            v = list(base)
            for (r, s), d in delta.items():
                g = grad.get((r, s))
                if g is None:
                    return float("inf")
                for i in range(len(v)):
                    v[i] += d * g[i]
            return sum(((x - t) / tol) ** 2 for x, (t, tol) in zip(v, tgt))

        moves = [mv for mv in moves if ok(apply(cur, mv))]
        moves.sort(key=predict)
        top = moves[:30]
        pairs = []
        for a, b in itertools.combinations(top, 2):
            d = dict(a)
            for k, v in b.items():
                d[k] = d.get(k, 0) + v
            d = {k: v for k, v in d.items() if v}
            if d and ok(apply(cur, d)):
                pairs.append(d)
        ranked = sorted(top + pairs, key=predict)[:candidates]
        improved = False
        for mv in ranked:
            cand = apply(cur, mv)
            mm = run(cand)
            sc = _score(mm, targets)
            if sc < best_score:
                best_score, best = sc, (cand, mm)
                improved = True
        if not improved:
            break
        cur, m = best
        if progress:
            progress(steps, m, best_score)
    changes = []
    for r, (a, b) in enumerate(zip(start, cur)):
        for s in sorted(set(a) | set(b)):
            if a.get(s, 0) != b.get(s, 0):
                changes.append(f"reel {r + 1}: {s} {a.get(s, 0)} -> {b.get(s, 0)}")
    return TuneResult(with_counts(game, rs, cur, relayout=relayout), rs, m, _met(m, targets), steps, evals, changes)


def tune_with_cap(game: Game, mode: str, targets: Targets, *, rounds: int = 4, progress=None, **kw) -> TuneResult:
    """:func:`tune` for a mode whose full solve (win cap, gamble) is slow.

    The search runs on the fast plain solve (no cap) aiming at the target
    plus the cap's correction ``delta = plain RTP - full RTP``, measured
    exactly on the starting point; the result is then solved in full and,
    while it misses the target, ``delta`` is re-measured there and the search
    repeated (at most ``rounds`` times).  Every reported figure comes from the
    full solve.  Without a kind's round solver this is one plain search.

    Parameters
    ----------
    game, mode, targets
        As :func:`tune`.
    rounds : int
    progress : callable, optional
    **kw
        Passed to :func:`tune`.
    """
    from analytic.features.result import round_solver_for

    if round_solver_for(game) is None:
        return tune(game, mode, targets, progress=progress, **kw)
    cur = game
    total_steps = total_evals = 0
    result = None
    for _ in range(rounds):
        full = evaluate(cur, mode)
        plain_m = evaluate(cur, mode, plain=True)
        delta = plain_m.rtp - full.rtp
        aim = replace(targets, rtp=targets.rtp + delta, rtp_tolerance=targets.rtp_tolerance / 2)
        result = tune(cur, mode, aim, plain=True, progress=progress, **kw)
        total_steps += result.steps
        total_evals += result.evaluations + 2
        cur = result.game
        full = evaluate(cur, mode)
        result = replace(result, metrics=full, met=_met(full, targets))
        if result.met:
            break
    changes = []
    rs = result.reel_set
    for r, (a, b) in enumerate(zip(game.reel_sets[rs], cur.reel_sets[rs])):
        ca, cb = strip_counts(a), strip_counts(b)
        for s in sorted(set(ca) | set(cb)):
            if ca.get(s, 0) != cb.get(s, 0):
                changes.append(f"reel {r + 1}: {s} {ca.get(s, 0)} -> {cb.get(s, 0)}")
    return replace(result, steps=total_steps, evaluations=total_evals, changes=changes)
