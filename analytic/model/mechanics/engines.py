"""Engines: exact solvers registered for the mechanic combinations they can prove they solve.

A feature declares mechanics (:mod:`analytic.model.mechanics`); the loader
asks each engine of the feature's kind, in registration order, whether it
accepts the declaration (:func:`select_engine`).  The first that does builds
the parameters its solver reads (``FeatureSpec.params``) and is named in
``FeatureSpec.engine``; the solver registry
(:func:`analytic.features.result.register_solver`), the round solvers and
the simulator's players are keyed by that engine name.  A combination no
engine accepts is refused at load, naming the mechanics declared and what
each engine accepts (refuse or be right: no key is silently ignored).

Rule switches (``[rules]``) are declared by mechanics; an engine lists the
ones it honours (any allowed value).  A rule of a feature's mechanics that
its engine does not honour may only keep its default (:func:`check_rules`).

Engines (see ``docs/model-format.md``, section "Engines"):

``wald``
    Free spins in a fixed state: retrigger table, global multiplier,
    scatter pays, expanding symbol drawn at the start, or a wild's multiplier
    drawn per reel in each spin (a mixture of one spin's law; Wald's identities;
    :mod:`analytic.features.engines.wald_spins`).
``revealed_wild_reels``
    An expanding symbol drawn at the start and wild reels revealed by a
    symbol with multiplied multipliers; a fixed spin count or a retrigger
    table (:mod:`analytic.features.engines.revealed_wild_reels`).
``gift_pick``
    A gift pick without replacement setting spins, multiplier, wild reels,
    wild symbols and an expanding symbol (:mod:`analytic.features.engines.gift_pick`).
``drawn_expanding``
    Expanding symbols drawn at each award with repeat multipliers up to a
    ceiling and a per-symbol retrigger; with a ladder and golden reels the
    ladder structure (:mod:`analytic.features.engines.drawn_expanding.engine`).
``pick_bonus``
    A pick bonus (:mod:`analytic.features.engines.pick_bonus`).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, NamedTuple

from analytic.model.game import frozen_mapping, window_count_law

__all__ = ["Engine", "ENGINES", "register_engine", "select_engine", "check_rules", "check_game"]


class Engine(NamedTuple):
    """An engine: the kind it plays, the mechanics it solves, its check and its parameter builder.

    Attributes
    ----------
    name : str
    kind : str
        ``free_spins`` or ``pick_bonus``.
    required, optional : frozenset of str
        Mechanics it needs, and the others it can also solve.
    check : callable
        ``check(values, feature, ctx) -> str | None``: why it cannot solve
        these parameter values (what would make them solvable), or None.
    build : callable
        ``build(values, feature, ctx) -> dict``: the parameters its solver reads.
    honours : frozenset of str
        Rule switches it reads (any allowed value).
    accepts : str
        One line for messages and docs: the combinations it solves.
    """

    name: str
    kind: str
    required: frozenset
    optional: frozenset
    check: Callable
    build: Callable
    honours: frozenset
    accepts: str


#: engine name -> :class:`Engine`, in the order they are tried
ENGINES: dict[str, Engine] = {}

def register_engine(name: str, kind: str, required, optional, check, build, honours=(), accepts: str = "",
                    rules=None, mechanic_rules=None) -> None:
    """Register an engine (see :class:`Engine`); it is tried after those registered before.

    ``rules`` (optional): rule switches only this engine reads (not of a mechanic), known to a game
    whose features use the engine (registered as owner ``engine:NAME``).  ``mechanic_rules``
    (optional): ``{mechanic: rules}``, rule switches this engine reads only when a feature it solves
    declares that mechanic, known to such a game only (owner ``engine:NAME+MECHANIC``; elsewhere the
    rule is unknown, so refused at load rather than ignored).
    """
    from analytic.model.kinds import register_rules

    specs = dict(register_rules(f"engine:{name}", rules or {}))
    for mech, rs in (mechanic_rules or {}).items():
        specs.update(register_rules(f"engine:{name}+{mech}", rs))
    ENGINES[name] = Engine(name, kind, frozenset(required), frozenset(optional), check, build,
                           frozenset(honours) | frozenset(specs), accepts)


def _describe(decl: Mapping[str, Mapping[str, Any]]) -> str:
    parts = []
    for m, keys in decl.items():
        v = keys.get("retrigger")
        if m == "spins" and v is not None:
            parts.append("spins (retrigger per_symbol)" if isinstance(v, Mapping) else "spins (retrigger table)")
        elif m == "wild_reels":
            w = keys["wild_reels"]
            parts.append(f"wild_reels (revealed_by, combine {w['combine']})" if "revealed_by" in w
                         else "wild_reels (fixed)")
        elif m == "expanding_symbol":
            parts.append(f"expanding_symbol (draw {keys['expanding_symbol']['draw']})")
        else:
            parts.append(m + (f" ({', '.join(keys)})" if list(keys) != [m] else ""))
    return ", ".join(parts) or "none"


def select_engine(kind: str, decl: Mapping[str, Mapping[str, Any]], key: str, ctx) -> tuple[str, dict]:
    """The engine solving a feature's declared mechanics, and the parameters it builds.

    Parameters
    ----------
    kind : str
        The feature's kind.
    decl : mapping
        Mechanic name -> its normalised values by key (from the mechanics' validators).
    key : str
        ``features.NAME`` (for the error).
    ctx : ValidationContext
        ``ctx.feature`` is the feature's common part.

    Returns
    -------
    (str, dict)
        Engine name and the solver's parameters.

    Raises
    ------
    ModelError
        No engine solves the combination: the message names the mechanics
        declared and, per engine, what it accepts and why it refuses.
    """
    names = set(decl)
    values: dict = {}
    for keys in decl.values():
        values.update(keys)
    reasons = []
    for e in ENGINES.values():
        if e.kind != kind:
            continue
        missing = sorted(e.required - names)
        extra = sorted(names - e.required - e.optional)
        if missing:
            why = f"needs {', '.join(missing)}"
        elif extra:
            why = f"does not solve {', '.join(extra)}"
        else:
            why = e.check(values, ctx.feature, ctx)
        if why is None:
            return e.name, e.build(values, ctx.feature, ctx)
        reasons.append(f"{e.name} [{e.accepts}] {why}")
    ctx.fail(key, f"no engine solves the mechanics declared: {_describe(decl)}; " + "; ".join(reasons))


def check_rules(ctx, rules: Mapping[str, Any], features, declared_rules: Mapping[str, Mapping]) -> None:
    """Refuse a rule set to a non-default value that the engine of a feature reading it does not honour.

    Parameters
    ----------
    ctx : ValidationContext
    rules : mapping
        The game's rules (every known rule, with its value).
    features : iterable of FeatureSpec
    declared_rules : mapping
        Rule name -> its :class:`~analytic.model.kinds.RuleSpec`.

    Raises
    ------
    ModelError
        At ``rules.NAME``, naming the feature, its engine and the rule's default.
    """
    from analytic.model.kinds import show
    from analytic.model.mechanics import MECHANICS

    for f in features:
        e = ENGINES.get(f.engine)
        if e is None:
            continue
        for m in f.mechanics:
            for r in MECHANICS[m].rules:
                spec = declared_rules[r]
                if r not in e.honours and rules.get(r, spec.default) != spec.default:
                    ctx.fail(ctx.join("rules", r), f"engine {e.name} (features.{f.name}) solves only the default "
                                                   f"{show(spec.default)} of this rule; remove it or set it to the "
                                                   "default")


# --------------------------------------------------------------------------
# the engines


#: Largest ``max_spins`` engine wald solves together with a retrigger (its backward induction has
#: about ``max_spins**2 / 2`` states, in exact rationals).
MAX_CEILING_WITH_RETRIGGER = 200


def _no_ceiling(v) -> str | None:
    if "max_spins" in v:
        return "does not honour max_spins (engine wald does: remove it)"
    return None


def _regular_roles(v, ctx, what: str) -> str | None:
    e = v["expanding_symbol"]
    for s in e["choose_from"] or ():
        if ctx.symbols[s].role != "regular":
            return f"draws {what} from regular symbols only; {s!r} has role {ctx.symbols[s].role!r}"
    return None


def _wald_check(v, f, ctx) -> str | None:
    if isinstance(v.get("retrigger"), Mapping):
        return "needs retrigger as a table { symbols, counts } (retrigger.per_symbol: engine drawn_expanding)"
    if "max_spins" in v and v.get("retrigger") is not None and v["max_spins"] > MAX_CEILING_WITH_RETRIGGER:
        return (f"honours max_spins with a retrigger up to {MAX_CEILING_WITH_RETRIGGER} (its exact recursion over "
                f"(spins played, spins left) has max_spins^2 / 2 states); got {v['max_spins']}")
    e = v.get("expanding_symbol")
    if e is not None and e["draw"] != "at_start":
        return "needs expanding_symbol.draw = 'at_start' (draws at each award: engine drawn_expanding)"
    if "reel_wild_multipliers" in v:
        if e is not None:
            return "solves reel_wild_multipliers without an expanding_symbol only (remove one of them)"
        grown = sorted(n for n, s in ctx.symbols.items() if s.expands)
        if grown:
            return (f"solves reel_wild_multipliers in a game without expanding wilds only (symbols "
                    f"{', '.join(grown)} expand)")
    return None


def _wald_build(v, f, ctx) -> dict:
    e = v.get("expanding_symbol")
    return {
        "retrigger": v.get("retrigger"),
        "multiplier": v.get("multiplier", 1),
        "scatter_pays": v.get("scatter_pays", True),
        "max_spins": v.get("max_spins"),
        "reel_wild_multipliers": v.get("reel_wild_multipliers"),
        "expanding_symbol": None if e is None else frozen_mapping({"choose_from": e["choose_from"],
                                                                   "weights": e["weights"]}),
    }


register_engine(
    "wald", "free_spins", (), ("spins", "multiplier", "scatter_pays", "expanding_symbol", "reel_wild_multipliers"),
    _wald_check, _wald_build, honours=("expanding_count", "expanding_line_win"),
    accepts="retrigger table, multiplier, scatter_pays, expanding_symbol at_start or reel_wild_multipliers",
)


def _revealed_check(v, f, ctx) -> str | None:
    w = v["wild_reels"]
    if "revealed_by" not in w:
        return "needs wild_reels.revealed_by (fixed wild reels are not solved)"
    if w["combine"] != "multiply":
        return "needs wild_reels.combine = 'multiply'"
    role = ctx.symbols[w["revealed_by"]].role
    if role != "wild_scatter":
        return f"needs wild_reels.revealed_by to be a wild_scatter symbol; {w['revealed_by']!r} has role {role!r}"
    e = v["expanding_symbol"]
    if e["draw"] != "at_start":
        return "needs expanding_symbol.draw = 'at_start'"
    if isinstance(v.get("retrigger"), Mapping):
        return "needs retrigger as a table { symbols, counts } (retrigger.per_symbol: engine drawn_expanding)"
    why = _no_ceiling(v)
    if why:
        return why
    return _regular_roles(v, ctx, "the expanding symbol")


def _revealed_build(v, f, ctx) -> dict:
    w, e = v["wild_reels"], v["expanding_symbol"]
    return {"revealed_by": w["revealed_by"], "multipliers": w["multipliers"],
            "expanding_symbol": frozen_mapping({"choose_from": e["choose_from"], "weights": e["weights"]}),
            "retrigger": v.get("retrigger")}


register_engine(
    "revealed_wild_reels", "free_spins", ("wild_reels", "expanding_symbol"), ("spins",),
    _revealed_check, _revealed_build, honours=("wild_reels_expansion",),
    rules={"published_max_win": (
        ("cap", "theoretical"),
        "cap",
        "the game's published max win: a cap on the round win ([cap], 'cap'), or only the game's "
        "theoretical maximum ('theoretical': the round is solved uncapped)",
    )},
    mechanic_rules={"spins": {"revealed_retrigger_count": (
        ("landed", "reels"),
        "landed",
        "what a retrigger table counts in a free spin whose reels turn wild: every retrigger-symbol cell "
        "as it landed, before its reel turned wild ('landed', the trigger's count of cells anywhere), or "
        "each reel showing a retrigger symbol once ('reels')",
    )}},
    accepts="wild_reels revealed_by (multiply) + expanding_symbol at_start, optional retrigger table",
)


def _gift_drawn(v) -> bool:
    return any(e == "expanding_symbol" and val == "drawn" for e, val, _ in v["gift_pick"]["gifts"])


def _gift_check(v, f, ctx) -> str | None:
    e = v.get("expanding_symbol")
    if _gift_drawn(v) and e is None:
        return ("has an expanding_symbol gift with value 'drawn' but no expanding_symbol = { draw = 'at_start', "
                "choose_from, weights } to draw from")
    if e is not None:
        if not _gift_drawn(v):
            return ("declares expanding_symbol without an expanding_symbol gift of value 'drawn' (with a gift pick "
                    "the expanding symbol is set by a gift)")
        if e["draw"] != "at_start":
            return f"draws the gift's expanding symbol at the start only (draw = 'at_start'), got {e['draw']!r}"
        return _regular_roles(v, ctx, "the gift's expanding symbol")
    return None


def _gift_build(v, f, ctx) -> dict:
    g = v["gift_pick"]
    e = v.get("expanding_symbol")
    draw = tuple(zip(e["choose_from"], e["weights"])) if e is not None else None
    return {"wild": g["wild"], "gifts": g["gifts"], "multiplier": v.get("multiplier", 1), "draw": draw}


register_engine(
    "gift_pick", "free_spins", ("gift_pick",), ("multiplier", "expanding_symbol"),
    _gift_check, _gift_build, honours=("expanding_count",),
    accepts="gift_pick, multiplier, expanding_symbol at_start (drawn by a gift); no retrigger",
)


def _drawn_check(v, f, ctx) -> str | None:
    r = v.get("retrigger")
    if not isinstance(r, Mapping):
        return "needs retrigger = { per_symbol = N }"
    why = _no_ceiling(v)
    if why:
        return why
    e = v["expanding_symbol"]
    if e["draw"] != "at_each_award":
        return "needs expanding_symbol.draw = 'at_each_award'"
    regular = sorted(n for n, s in ctx.symbols.items() if s.role == "regular")
    if not regular:
        return "draws its expanding symbols from the regular symbols; the game has none"
    if e["choose_from"] is not None and (sorted(e["choose_from"]) != regular or len(set(e["weights"])) != 1):
        return "draws uniformly over every regular symbol: leave out expanding_symbol.choose_from and weights"
    for s in sorted(f.trigger.symbols):
        if ctx.symbols[s].role != "wild_scatter":
            return f"needs wild_scatter trigger symbols; {s!r} has role {ctx.symbols[s].role!r}"
    if ("ladder" in v) != ("golden_reels" in v):
        return "solves a ladder together with golden_reels only (declare both or neither)"
    if "golden_reels" in v:
        by = set(v["golden_reels"]["turned_by"])
        if not f.trigger.requires or by != set(f.trigger.requires):
            return ("needs golden_reels.turned_by to be the trigger's requires symbols (the feature starts "
                    "with one of them showing)")
    return None


def _drawn_build(v, f, ctx) -> dict:
    g = v.get("golden_reels")
    return {
        "ladder": v.get("ladder"),
        "spins_per_symbol": v["retrigger"]["per_symbol"],
        "golden_reels": g["reels"] if g else (),
        "golden_symbols": g["turned_by"] if g else (),
        "max_multiplier": v["expanding_symbol"]["ceiling"],
    }


register_engine(
    "drawn_expanding", "free_spins", ("spins", "expanding_symbol"), ("ladder", "golden_reels"),
    _drawn_check, _drawn_build,
    honours=("expanding_repeat_multiplier", "scatter_substitutes_for_expanding_in_line_wins",
             "golden_symbol_retriggers", "golden_immediate"),
    accepts="retrigger per_symbol + expanding_symbol at_each_award; ladder with golden_reels",
)

register_engine(
    "pick_bonus", "pick_bonus", ("pick_bonus",), (),
    lambda v, f, ctx: None, lambda v, f, ctx: dict(v),
    accepts="picks, prizes_per_pick, prizes; or board (pick until a collect tile)",
)


# --------------------------------------------------------------------------
# whole-game checks: what an engine refuses at solve time, decided here from the model alone


def check_game(game) -> None:
    """Refuse at load what a feature's engine would refuse only when solving (the same key path).

    Each check reads the built model only (sections that an engine's
    :attr:`Engine.check` does not see: ``[scatter]``, ``[cap]``, the other
    features).  The engines keep their own checks as a safety net.

    * ``revealed_wild_reels``: scatter pays are paid in whole line bets
      (``scatter.pays.K * total_bet`` an integer);
    * ``gift_pick`` and ``drawn_expanding``: no scatter pays (their free-spin
      laws hold line wins and expansions only);
    * ``drawn_expanding`` with ``[cap] total_bet_multiple``: the round
      solver caps a game with a feature drawing expanding symbols at each
      award and a feature with a ladder (both); it gives no capped law, so
      a currency cap's ``stakes`` cannot be read off it (``cap.currency``);
    * ``drawn_expanding``: the per-symbol retrigger's expected award per
      spin (``N x E[(b - 1)+]``, ``b`` the trigger symbols a window of the
      feature's reel set shows, the Power Books left out under rule
      ``golden_symbol_retriggers = false``) is below 1
      (``features.NAME.retrigger``, :class:`~analytic.errors.UnboundedFeatureError`);
    * ``revealed_wild_reels`` without retriggers, with the cap applied (rule
      ``published_max_win = "cap"``, ``[cap] total_bet_multiple``): its exact
      capped round law has no line-triggered bonuses, so ``[line_triggers]``
      that a regular mode's reel set can show are refused (``line_triggers``).

    Raises
    ------
    ModelError
        At ``scatter.pays.K``, ``scatter.pays``, ``cap.total_bet_multiple``,
        ``cap.currency``, ``line_triggers`` or ``features.NAME.retrigger``,
        naming the feature and what would make the model solvable.
    """
    from fractions import Fraction

    from analytic.errors import ModelError

    by_engine: dict[str, list[str]] = {}
    for name, f in game.features.items():
        by_engine.setdefault(f.engine, []).append(name)
    pays = dict(game.scatter.pays) if game.scatter is not None else {}
    if "revealed_wild_reels" in by_engine:
        for k, v in pays.items():
            if (Fraction(v) * game.total_bet).denominator != 1:
                raise ModelError(game.path, f"scatter.pays.{k}", (
                    f"{v} total bets is not a whole number of line bets (total bet {game.total_bet} line bets); "
                    f"engine revealed_wild_reels (features.{by_engine['revealed_wild_reels'][0]}) pays whole line "
                    "bets: make the scatter pays multiples of 1/total_bet"))
    for eng in ("gift_pick", "drawn_expanding"):
        if eng in by_engine and any(v for v in pays.values()):
            raise ModelError(game.path, "scatter.pays", (
                f"engine {eng} (features.{by_engine[eng][0]}) solves free spins paying line wins and expansions "
                "only; scatter pays (paid in its free spins too) are not solved: remove them"))
    if "drawn_expanding" in by_engine and game.cap is not None and game.cap.total_bet_multiple is not None:
        ladder = [n for n in by_engine["drawn_expanding"] if game.features[n].params.get("ladder")]
        draws = [n for n in by_engine["drawn_expanding"] if not game.features[n].params.get("ladder")]
        if not ladder or not draws:
            raise ModelError(game.path, "cap.total_bet_multiple", (
                "engine drawn_expanding caps the round of a game with a feature drawing expanding symbols at "
                f"each award and one with a ladder and golden reels; this game has {len(draws)} and {len(ladder)} "
                f"(features {', '.join(by_engine['drawn_expanding'])}): remove the [cap] (the uncapped figures "
                "are then exact) or declare both features"))
        if game.cap.currency is not None and game.cap.stakes:
            raise ModelError(game.path, "cap.currency", (
                "the capped RTP at each declared stake needs the law of the capped round win, which engine "
                f"drawn_expanding's round solver (features {', '.join(by_engine['drawn_expanding'])}) does not "
                "give (it bounds the capped RTP only); remove cap.currency (or its stakes) to solve the model "
                "with its total_bet_multiple cap"))
    for name in by_engine.get("drawn_expanding", ()):
        _check_per_symbol_award(game, name)
        _check_expansion_counts(game, name)
    _check_revealed_line_triggers(game, by_engine.get("revealed_wild_reels", ()))


def _check_expansion_counts(game, name: str) -> None:
    """Engine ``drawn_expanding`` pays an expansion on ``n`` reels from ``paytable[s][n]`` as listed: a
    symbol it may draw whose pays stop below the number of reels is refused at ``paytable.SYMBOL`` (an
    expansion on more reels than its largest listed count pays that count's pay, docs/model-format.md,
    mechanic ``expanding_symbol``, which this engine does not read yet)."""
    from analytic.errors import ModelError

    spec = game.features[name].params.get("expanding_symbol") or {}
    cands = spec.get("choose_from") or [s.name for s in game.symbols if s.role == "regular"]
    for s in cands:
        pays = {k: v for k, v in game.paytable.get(s, {}).items()}
        if any(v > 0 for v in pays.values()) and max(pays) < game.reels:
            raise ModelError(game.path, f"paytable.{s}", (
                f"engine drawn_expanding (features.{name}) may expand {s!r} on up to {game.reels} reels, but its "
                f"pays stop at {max(pays)}: an expansion on more reels pays the largest listed count's pay "
                f"(mechanic expanding_symbol), which this engine does not solve; list {s}'s pay for every count "
                f"up to {game.reels}"))


def _check_per_symbol_award(game, name: str) -> None:
    """Refuse a per-symbol retrigger whose expected award per spin is at least 1 (the feature never ends,
    or ends with an infinite expected length), from the feature's reel set alone."""
    from fractions import Fraction

    from analytic.errors import UnboundedFeatureError

    f = game.features[name]
    n = f.params["spins_per_symbol"]
    books = set(f.trigger.symbols)
    if f.params.get("ladder") and not game.rules.get("golden_symbol_retriggers", True):
        for g in game.features.values():
            if g.engine == "drawn_expanding" and g.params.get("ladder"):
                books -= set(g.params["golden_symbols"])
    law = window_count_law(game.reel_sets[f.reel_set], game.rows, books)  # trigger symbols in view -> combinations
    cycle = sum(law.values())
    ea = Fraction(sum(n * (b - 1) * c for b, c in law.items() if b >= 2), cycle)
    if ea < 1:
        return
    got = (f"feature '{name}' awards {ea} (= {float(ea):.6g}) extra spins per spin on average (retrigger "
           f"per_symbol = {n}: {n} x (b - 1) spins for b >= 2 of {', '.join(sorted(books))} in a window of "
           f"reel set '{f.reel_set}')")
    fix = "lower per_symbol or the trigger symbols' frequency so that the average is below 1 (then it is solvable)"
    if ea > 1:
        why = "more than 1, so with positive probability it never ends"
    elif all((n * (b - 1) if b >= 2 else 0) == 1 for b in law):
        why = "every spin awards exactly one more spin, so it never ends"
    else:
        why = ("exactly 1: it ends with probability 1, but its expected length, and so its expected win, is "
               "infinite (no RTP exists)")
    raise UnboundedFeatureError(game.path, f"features.{name}.retrigger", f"{got}: {why}; {fix}")


def _check_revealed_line_triggers(game, feats) -> None:
    """Refuse ``[line_triggers]`` beside engine revealed_wild_reels' exact capped round (no retriggers,
    rule ``published_max_win = "cap"``, a ``total_bet_multiple``) when a regular mode's reel set can show
    a line trigger (every reel up to its count carries the bonus symbol: some stop combination puts it on
    each payline's cells)."""
    from analytic.errors import ModelError

    if not feats or not game.line_triggers or game.cap is None or game.cap.total_bet_multiple is None:
        return
    if game.rules.get("published_max_win", "cap") != "cap":
        return
    if any(game.features[n].params.get("retrigger") is not None for n in feats):
        return  # retriggers: the round cap is applied by the generic certified law, which has line triggers
    for mode in game.modes.values():
        if mode.buys is not None:
            continue
        strips = game.reel_sets[mode.reel_set]
        for sym, counts in game.line_triggers.items():
            for k, bonus in counts.items():
                if all(sym in strips[i] for i in range(k)):
                    raise ModelError(game.path, "line_triggers", (
                        f"{sym!r} x {k} starts '{bonus}' on a payline in bet mode {mode.name!r}, and engine "
                        f"revealed_wild_reels (features.{feats[0]}) caps the round ([cap] total_bet_multiple = "
                        f"{game.cap.total_bet_multiple}) by its exact law without line-triggered bonuses: remove "
                        "the [line_triggers] or the [cap], or set rule published_max_win = \"theoretical\""))
