"""A feature's state graph, for export (``analytic graph``): the chain a regulator inspects.

:func:`feature_graph` returns the absorbing Markov chain of one feature
started by one trigger count as a :class:`networkx.DiGraph` whose attributes
are plain text and numbers (GraphML and DOT carry no Python objects):

* node ``id``: ``"k"`` (spins left), ``"STATE|k"`` (the state fixed for the
  whole feature, e.g. the drawn expanding symbol, and spins left),
  ``"L<level>|G<mask>|k"`` (a ladder's state), ``"pick"`` (a pick bonus's
  draw); ends ``"end:LABEL"``;
* node attributes ``state`` (text), ``spins_left`` (int; absent on the
  truncation end and on a pick bonus), ``expanding_symbol`` (``""`` for
  none), ``start_probability`` (exact fraction ``"p/q"``, ``"0"`` off the
  start), ``node_kind`` (``"transient"`` or ``"end"``); a gift-pick state
  also ``extra_spins``, ``multiplier`` (ints), ``wild_reels`` and
  ``wild_symbols`` (comma-separated text, ``""`` for none); a ladder state
  ``ladder_level``, ``multiplier`` (ints) and ``golden_reels`` (text);
* edge attributes ``probability`` (exact fraction ``"p/q"``),
  ``probability_float``, ``mean_win`` and ``second_moment_win`` (exact
  fractions: ``E[X | edge]`` and ``E[X^2 | edge]`` of the spin played in the
  source state, or of the bonus's prize, total-bet multiples).

Each graph is built from the very per-spin quantities its engine's solver
uses (below); only node names and attribute types are converted here, and
states the start cannot reach are left out.  Solved as an absorbing chain
from the start distribution (the expected accumulated win ``m = r + Q m``,
:mod:`analytic.features.graph.chain`) it gives the solver's mean and second
moment (tests/features/graph/test_export_engines.py solves it on its own).

Which engines have a graph
--------------------------
``wald`` and ``revealed_wild_reels``: the state is fixed for the whole
feature (no state, or the drawn expanding symbol), so the chain runs on the
number of spins left, one copy per drawn symbol
(:func:`analytic.features.engines.wald_spins.spins_left_graph` on each
state's one-spin law of (award, win):
:func:`analytic.features.engines.wald_spins.state_outcomes`, and for
``revealed_wild_reels`` :func:`analytic.features.engines.revealed_wild_reels.state_outcomes`,
the joint line walk on windows with the revealed wild reels and their
multipliers).  An edge per retrigger award: ``k -> k - 1 + award``.  The
solver evaluates this chain by Wald's closed forms (docs/derivations.md
section 3), which are its exact solution; without retriggers the chain is
finite and exported whole.  With retriggers the number of spins left is
unbounded: the graph is cut at ``max_spins_left`` (a spin that would leave
more goes to the end ``"truncated"``), the closed forms are not cut.

``gift_pick``: the gift pick fixes the *effect class* (extra spins,
multiplier, wild reels, wild symbols, expanding symbol) for the whole
feature; the start distribution is the exact law of the class
(:func:`analytic.features.engines.gift_pick.classes_of`), each class a chain
``k -> k - 1`` (no retriggers) from ``counts[count] + extra spins`` whose
edges carry the class's one-spin moments
(:func:`analytic.features.engines.gift_pick.spin_class_moments`) times the
multiplier (``M E[X]``, ``M^2 E[X^2]``).

``pick_bonus``: one draw, no spins: the node ``"pick"`` leads to one end per
distinct prize total ``x`` (``"end:win x"``, total-bet multiples) with its
exact probability (:func:`analytic.features.engines.pick_bonus.bonus_distribution`),
``mean_win = x`` and ``second_moment_win = x^2``.

``drawn_expanding`` with a ladder: the chain the solver walks
(:func:`analytic.features.engines.drawn_expanding.moments.power_chain`) over
(ladder level, golden mask, spins left), node ``"L<level>|G<mask>|k"``
(attributes ``ladder_level``, ``expanding_symbol``, ``multiplier``,
``golden_reels``: 1-based reel numbers); per spin class (spins awarded
``a``, Power Books on golden-eligible reels ``P``) an edge
``(L, G, k) -> (L + [a > 0], G | P, k - 1 + a)`` (the level capped at the
top), classes with the same target merged; edge moments exact from the
class's integer sums (:class:`analytic.features.engines.drawn_expanding.spin_stats.SpinStats`:
line win while the level's symbol expands, plus the multiplier times its
expansion pay at mask ``G``).  Start: the ranks' levels uniformly, no
golden reel.  Retriggers make it unbounded: cut as above (the solver cuts
at 240 spins left and certifies the rest); more than :data:`MAX_STATES`
states (levels x masks x cut) is refused with the count.  Without a ladder
the feature is refused (:class:`NoStateGraph`): its state would be the
spins left and how often each symbol was drawn, and its solver works with
sums over the draw counts' law, not a chain.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

from analytic.model.game import Game

__all__ = ["NoStateGraph", "GRAPH_ENGINES", "MAX_STATES", "feature_graph", "initial_spins", "check_graphable",
           "check_size", "to_dot"]

#: Engines whose chain is exported (``drawn_expanding`` only with a ladder), and why others are refused.
GRAPH_ENGINES = ("wald", "revealed_wild_reels", "gift_pick", "pick_bonus", "drawn_expanding")

_WHY_NOT: dict[str, str] = {}

#: The most transient states an exported graph may have (checked before it is built): a larger
#: ``max_spins_left`` is refused with the count.
MAX_STATES = 200_000


class NoStateGraph(ValueError):
    """The feature's solver builds no state graph (message: the feature and why)."""


def _frac(x: Fraction) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def initial_spins(game: Game, feature: str, count: int) -> int:
    """Spins awarded by ``count`` trigger symbols, as the feature's engine reads them.

    As every engine's solver reads it: :meth:`~analytic.model.game.Trigger.award`,
    the award of the largest listed count not above ``count`` (``wald``: at
    most ``max_spins``, as :func:`~analytic.features.engines.wald_spins.solve_free_spins`;
    ``gift_pick``: before the gifts' extra spins, ``count`` gifts picked);
    ``pick_bonus``: 1 (the bonus is one draw, whatever the count).

    Returns
    -------
    int
        0 when ``count`` starts no spins (below the smallest listed count).
    """
    spec = game.features[feature]
    if spec.engine == "pick_bonus":
        return 1
    trigger = spec.trigger
    if trigger is None:
        return 0
    n = trigger.award(count)
    ceiling = spec.params.get("max_spins")  # honoured by engine wald without a retrigger
    return n if ceiling is None else min(n, int(ceiling))


def check_graphable(game: Game, feature: str) -> None:
    """Raise :class:`NoStateGraph` unless ``feature``'s engine has an exported chain (cheap, no solve)."""
    engine = game.features[feature].engine
    if engine not in GRAPH_ENGINES:
        why = _WHY_NOT.get(engine, "is solved without an explicit state graph")
        raise NoStateGraph(f"feature {feature!r} (engine {engine!r}) {why}")
    p = game.features[feature].params
    if engine == "wald" and p.get("max_spins") is not None and p.get("retrigger") is not None:
        raise NoStateGraph(f"feature {feature!r} has max_spins with a retrigger: it is solved over (spins played, "
                           f"spins left), which the spins-left chain does not show")
    if engine == "drawn_expanding" and not p.get("ladder"):
        raise NoStateGraph(f"feature {feature!r} (engine 'drawn_expanding') draws its expanding symbols at each "
                           "award without a ladder: its state is (spins left, how often each symbol was drawn), "
                           "solved by sums over the draw counts' law, not as one chain; no state graph is built "
                           "(a feature with a ladder has one)")


def _ladder_shape(game: Game, feature: str) -> tuple[int, int]:
    """(ladder levels, golden masks) of a ``drawn_expanding`` feature with a ladder, from the model alone."""
    from analytic.features.engines.drawn_expanding.engine import ladder_symbols, max_multiplier
    from analytic.features.engines.drawn_expanding.moments import _ladder

    levels = _ladder(game.rules.get("expanding_repeat_multiplier", "count"), len(ladder_symbols(game, feature)),
                     max_multiplier(game, feature))
    return len(levels), 1 << len(game.features[feature].params["golden_reels"])


def _check_states(feature: str, nl: int, ng: int, cut: int) -> None:
    if nl * ng * cut > MAX_STATES:
        raise NoStateGraph(f"feature {feature!r}: the chain cut at {cut} spins left has {nl * ng * cut:,} states "
                           f"({nl} ladder levels x {ng} golden masks x {cut} spins left), more than {MAX_STATES:,}; "
                           "give a smaller --max-spins-left")


def check_size(game: Game, feature: str, count: int, max_spins_left: int | None) -> None:
    """Raise :class:`NoStateGraph` when an explicit ``max_spins_left`` makes the graph larger than
    :data:`MAX_STATES` transient states (cheap, from the model alone; engine ``drawn_expanding``:
    levels x golden masks x cut)."""
    spec = game.features[feature]
    if spec.engine != "drawn_expanding" or max_spins_left is None:
        return
    nl, ng = _ladder_shape(game, feature)
    _check_states(feature, nl, ng, max(int(max_spins_left), initial_spins(game, feature, count)))


def feature_graph(game: Game, feature: str, count: int, max_spins_left: int | None = None,
                  ws=None) -> nx.DiGraph:
    """The state graph of ``feature`` started by ``count`` trigger symbols.

    Parameters
    ----------
    game : Game
    feature : str
        A feature solved by one of :data:`GRAPH_ENGINES`.
    count : int
        Trigger-symbol count; it fixes the initial spins ``n``
        (:func:`initial_spins`; unused by ``pick_bonus``).
    max_spins_left : int, optional
        Cut of the spins-left chain when the feature retriggers (default
        ``n`` plus the largest retrigger award: one retrigger from the start
        stays inside).  Without retriggers the chain never exceeds ``n`` and
        the cut is ``n``.
    ws : Workspace, optional
        The workspace for ``game`` (:mod:`analytic.workspace`); None: a fresh one.

    Returns
    -------
    networkx.DiGraph
        Attributes as in the module text; graph attributes ``feature``,
        ``kind``, ``engine``, ``trigger_count``, ``initial_spins``, ``max_spins_left``,
        ``truncated`` (bool), ``win_unit``, ``solved_by``.

    Raises
    ------
    NoStateGraph
        The engine solves without a state graph (``drawn_expanding`` without
        a ladder), ``count`` awards no spins, or a ladder's chain would have
        more than :data:`MAX_STATES` states (checked before any walk).
    """
    import networkx as nx

    check_graphable(game, feature)
    check_size(game, feature, count, max_spins_left)  # before any walk
    engine = game.features[feature].engine
    out = nx.DiGraph()
    if engine == "pick_bonus":
        _pick_graph(out, game, feature)
        n, cut, truncated = 0, 0, False
        solved_by = "exact law of the bonus win (pick_bonus: convolutions, or the board recursion)"
    else:
        n = initial_spins(game, feature, count)
        if n <= 0:
            raise NoStateGraph(f"feature {feature!r}: {count} trigger symbols award no spins")
        if engine == "gift_pick":
            cut = _gift_graph(out, game, feature, count, n, ws)
            truncated = False
            solved_by = ("moments of i.i.d. spins per gift class (binomial convolution), the exact solution of "
                         "this chain")
        elif engine == "drawn_expanding":
            cut, truncated = _ladder_graph(out, game, feature, n, max_spins_left, ws)
            solved_by = ("one sparse float solve of this chain cut at 240 spins left (or three times the largest "
                         "start), with certified bounds for the cut paths and the rounding (docs/derivations.md "
                         "section 5)")
        else:
            cut, truncated = _fixed_state_graph(out, game, feature, n, max_spins_left, ws)
            solved_by = ("Wald closed forms per drawn state (docs/derivations.md section 3), the exact solution of "
                         "this chain" + (" without its cut at max_spins_left" if truncated else ""))
    out.graph.update(
        feature=feature, kind=game.features[feature].kind, engine=engine, trigger_count=int(count),
        initial_spins=n, max_spins_left=cut, truncated=truncated, win_unit="total bet multiples",
        solved_by=solved_by,
    )
    return out


def _end_attrs(v) -> dict:
    from analytic.features.graph import chain

    attrs = {"state": v.label, "node_kind": "end", "expanding_symbol": "", "start_probability": "0"}
    if v == chain.END:
        attrs["spins_left"] = 0
    return attrs


def _fixed_state_graph(out: nx.DiGraph, game: Game, feature: str, n: int, max_spins_left: int | None, ws
                       ) -> tuple[int, bool]:
    """Engines ``wald`` and ``revealed_wild_reels``: one spins-left chain per drawn state (cut, truncated)."""
    import networkx as nx

    from analytic.features.graph import chain
    from analytic.features.engines.wald_spins import spins_left_graph

    spec = game.features[feature]
    if spec.engine == "revealed_wild_reels":
        from analytic.features.engines.revealed_wild_reels import state_outcomes
    else:
        from analytic.features.engines.wald_spins import state_outcomes
    retrig = spec.params.get("retrigger")
    top_award = max((int(a) for a in retrig.counts.values()), default=0) if retrig is not None else 0
    if max_spins_left is None:
        max_spins_left = n + top_award
    max_spins_left = max(int(max_spins_left), n)
    states = state_outcomes(game, feature, ws)
    wsum = sum(w for w, _s, _o in states)
    truncated = False

    def name(sym, v) -> str:
        if isinstance(v, chain.End):
            return f"end:{v.label}"
        return f"{v}" if sym is None else f"{sym}|{v}"

    for w, sym, o in states:
        if not w:
            continue  # a symbol never drawn: no state the start reaches
        g = spins_left_graph(o, n, max_spins_left)
        g = g.subgraph({n} | nx.descendants(g, n))  # the states the start reaches (the builder makes 1..cut)
        for v in sorted(g, key=lambda v: (isinstance(v, chain.End), -v if isinstance(v, int) else 0, str(v))):
            nid = name(sym, v)
            if nid in out:
                continue
            if isinstance(v, chain.End):
                truncated |= v.label == "truncated"
                attrs = _end_attrs(v)
            else:
                attrs = {"state": (f"expanding {sym}, " if sym is not None else "") + f"{v} spins left",
                         "node_kind": "transient", "spins_left": int(v),
                         "expanding_symbol": sym or "",
                         "start_probability": _frac(Fraction(w, wsum)) if v == n else "0"}
            out.add_node(nid, **attrs)
        for u, v, d in g.edges(data=True):
            out.add_edge(name(sym, u), name(sym, v), probability=_frac(d["p"]), probability_float=float(d["p"]),
                         mean_win=_frac(d["m1"]), second_moment_win=_frac(d["m2"]))
    return max_spins_left, truncated


def _gift_label(extra: int, mult: int, reels: tuple, syms: tuple, exp) -> str:
    parts = [f"+{extra} spins"] if extra else []
    parts.append(f"x{mult}")
    if reels:
        parts.append("wild reels " + ",".join(map(str, reels)))
    if syms:
        parts.append("wild symbols " + ",".join(syms))
    if exp is not None:
        parts.append(f"expanding {exp}")
    return ", ".join(parts)


def _gift_graph(out: nx.DiGraph, game: Game, feature: str, count: int, n0: int, ws) -> int:
    """Engine ``gift_pick``: one countdown chain per gift class, started with the class's probability.

    Returns the largest number of spins left (the longest class's start).
    """
    from analytic.features.graph import chain
    from analytic.features.engines.gift_pick import classes_of, prefetch_tables, spin_class_moments
    from analytic.workspace import workspace_for

    ws = workspace_for(game, ws)
    classes = classes_of(game, feature, count)
    prefetch_tables(game, feature, {(r, s, e) for (_x, _m, r, s, e) in classes}, ws)
    top = n0
    for (extra, mult, reels, syms, exp), p in classes.items():
        if not p:
            continue
        m = spin_class_moments(game, feature, reels, syms, k=2, ws=ws, expanding=exp)["moments"]
        m1, m2 = mult * m[1], mult * mult * m[2]
        label = _gift_label(extra, mult, reels, syms, exp)
        n = n0 + extra
        top = max(top, n)
        for k in range(n, 0, -1):
            out.add_node(f"{label}|{k}", state=f"{label}, {k} spins left", node_kind="transient", spins_left=k,
                         expanding_symbol=exp or "", extra_spins=int(extra), multiplier=int(mult),
                         wild_reels=",".join(map(str, reels)), wild_symbols=",".join(syms),
                         start_probability=_frac(p) if k == n else "0")
            v = f"{label}|{k - 1}" if k > 1 else f"end:{chain.END.label}"
            if k == 1 and v not in out:
                out.add_node(v, **_end_attrs(chain.END))
            out.add_edge(f"{label}|{k}", v, probability="1", probability_float=1.0,
                         mean_win=_frac(m1), second_moment_win=_frac(m2))
    return top


def _ladder_graph(out: nx.DiGraph, game: Game, feature: str, n: int, max_spins_left: int | None, ws
                  ) -> tuple[int, bool]:
    """Engine ``drawn_expanding`` with a ladder: the chain over (ladder level, golden mask, spins left).

    The chain of :func:`analytic.features.engines.drawn_expanding.moments.power_chain`, with its
    edge moments in exact fractions from the same per-class integer sums
    (:class:`analytic.features.engines.drawn_expanding.spin_stats.SpinStats`): a spin of class
    ``c = (A, P)`` (spins awarded, Power Books on golden-eligible reels) in state ``(L, G, K)``
    leads to ``(L + [A > 0], G | P, K - 1 + A)`` (the level capped at the top) and wins
    ``l_c + m E_c`` (line win while the level's symbol expands, its expansion pay with mask ``G``
    times the level's multiplier ``m``).  Start: the ranks' levels uniformly, no golden reel,
    ``n`` spins.  Returns (cut, truncated).
    """

    from analytic.features.graph import chain
    from analytic.features.engines.drawn_expanding.moments import _ladder
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats

    st = spin_stats(game, feature, ws)
    levels = _ladder(st.reading, len(st.ordered), st.ceiling)
    nl, ng = len(levels), st.nmask
    amax = max((a for a, _p in st.classes), default=0)
    cut = max(int(max_spins_left), n) if max_spins_left is not None else n + amax
    _check_states(feature, nl, ng, cut)
    tb, cyc = st.tb, st.cycle
    cls = [(int(a), int(pm), int(cnt)) for (a, pm), cnt in zip(st.classes, st.count)]
    edge = {}  # (L, G) -> per class (class, count, sum of X, sum of X^2) in integers: the same for every K
    for L, (rank, m) in enumerate(levels):
        s = st.ordered[rank]
        for G in range(ng):
            edge[(L, G)] = [(c, cnt, int(st.sL_s[s][c]) + m * int(st.sE[s][c][G]),
                             int(st.sLL_s[s][c]) + 2 * m * int(st.sLE[s][c][G]) + m * m * int(st.sEE[s][c][G]))
                            for c, (_a, _pm, cnt) in enumerate(cls) if cnt]
    end, trunc = "end:" + chain.END.label, "end:truncated"
    starts = [(L, 0, n) for L in range(len(st.ordered))]
    sums: dict = {}  # state -> {next state or end name: [count, sum X, sum X^2]} (classes merged)
    todo, seen = list(starts), set(starts)
    while todo:  # only the states the start reaches
        L, G, K = u = todo.pop()
        row = sums[u] = {}
        for c, cnt, s1, s2 in edge[(L, G)]:
            a, pm, _ = cls[c]
            k2 = K - 1 + a
            v = end if k2 == 0 else trunc if k2 > cut else (min(L + 1, nl - 1) if a else L, G | pm, k2)
            acc = row.setdefault(v, [0, 0, 0])
            acc[0] += cnt
            acc[1] += s1
            acc[2] += s2
            if not isinstance(v, str) and v not in seen:
                seen.add(v)
                todo.append(v)

    def name(v) -> str:
        return v if isinstance(v, str) else f"L{v[0] + 1}|G{v[1]}|{v[2]}"

    p0 = _frac(Fraction(1, len(starts)))
    for v in sorted(seen):
        L, G, K = v
        rank, m = levels[L]
        s = st.ordered[rank]
        golden = ",".join(str(st.golden[k] + 1) for k in range(st.ng) if (G >> k) & 1)
        out.add_node(name(v), state=f"ladder level {L + 1} ({s} x{m}), golden reels {golden or 'none'}, {K} spins left",
                     node_kind="transient", spins_left=K, expanding_symbol=s, multiplier=m, ladder_level=L + 1,
                     golden_reels=golden, start_probability=p0 if v in starts else "0")
    truncated = False
    for u in sorted(seen):
        for v, (cnt, s1, s2) in sums[u].items():
            if isinstance(v, str) and v not in out:
                truncated |= v == trunc
                out.add_node(v, **_end_attrs(chain.END if v == end else chain.End("truncated")))
            p = Fraction(cnt, cyc)
            out.add_edge(name(u), name(v), probability=_frac(p), probability_float=float(p),
                         mean_win=_frac(Fraction(s1, cnt * tb)), second_moment_win=_frac(Fraction(s2, cnt * tb * tb)))
    return cut, truncated


def _pick_graph(out: nx.DiGraph, game: Game, feature: str) -> None:
    """Engine ``pick_bonus``: the draw ``"pick"`` and one end per distinct prize total."""
    from analytic.features.engines.pick_bonus import bonus_distribution

    law = bonus_distribution(game.features[feature].params)
    tb = game.total_bet
    out.add_node("pick", state="pick bonus", node_kind="transient", expanding_symbol="", start_probability="1")
    for x, p in law.items():
        if not p:
            continue
        win = Fraction(x, 1) / tb
        end = f"end:win {_frac(win)}"
        out.add_node(end, state=f"win {_frac(win)}", node_kind="end", expanding_symbol="", start_probability="0")
        out.add_edge("pick", end, probability=_frac(p), probability_float=float(p),
                     mean_win=_frac(win), second_moment_win=_frac(win * win))


def _dot_id(text) -> str:
    s = str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{s}"'


def _dot_attrs(d: dict) -> str:
    return ", ".join(f"{k}={_dot_id(v)}" for k, v in d.items())


def to_dot(g: nx.DiGraph) -> str:
    """The graph in Graphviz DOT: every attribute a quoted string, ids quoted.

    Parameters
    ----------
    g : networkx.DiGraph
        Node ids and attribute values are written with ``str``.

    Returns
    -------
    str
        ``digraph { graph [...]; "node" [...]; "u" -> "v" [...]; }``.
    """
    lines = ["digraph state_graph {"]
    if g.graph:
        lines.append(f"  graph [{_dot_attrs(g.graph)}];")
    for n, d in g.nodes(data=True):
        lines.append(f"  {_dot_id(n)}" + (f" [{_dot_attrs(d)}];" if d else ";"))
    for u, v, d in g.edges(data=True):
        lines.append(f"  {_dot_id(u)} -> {_dot_id(v)}" + (f" [{_dot_attrs(d)}];" if d else ";"))
    lines.append("}")
    return "\n".join(lines) + "\n"
