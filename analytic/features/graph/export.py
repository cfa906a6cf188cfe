"""A feature's state graph, for export (``analytic graph``): the chain a regulator inspects.

:func:`feature_graph` returns the absorbing Markov chain of one feature
started by one trigger count as a :class:`networkx.DiGraph` whose attributes
are plain text and numbers (GraphML and DOT carry no Python objects):

* node ``id``: ``"k"`` (spins left) or ``"SYMBOL|k"`` (the drawn expanding
  symbol and spins left); ends ``"end:LABEL"``;
* node attributes ``state`` (text), ``spins_left`` (int; absent on the
  truncation end), ``expanding_symbol`` (``""`` for none), ``start_probability``
  (exact fraction ``"p/q"``, ``"0"`` off the start), ``node_kind``
  (``"transient"`` or ``"end"``);
* edge attributes ``probability`` (exact fraction ``"p/q"``),
  ``probability_float``, ``mean_win`` and ``second_moment_win`` (exact
  fractions: ``E[X | edge]`` and ``E[X^2 | edge]`` of the spin played in the
  source state, total-bet multiples).

The graph is built by the very code the chain tests solve
(:func:`analytic.features.engines.wald_spins.spins_left_graph`, one copy per drawn
expanding symbol, from :func:`analytic.features.engines.wald_spins.state_outcomes`);
only node names and attribute types are converted here, and states the
start cannot reach are left out.

Which engines have a graph
--------------------------
``wald``: the state is fixed for the whole feature (the drawn
expanding symbol), so the chain runs on the number of spins left.  The
solver evaluates this chain by Wald's closed forms (docs/derivations.md
section 3), which are its exact solution; without retriggers the chain is
finite and exported whole.  With retriggers the number of spins left is
unbounded: the graph is cut at ``max_spins_left`` (a spin that would leave
more goes to the end ``"truncated"``), the closed forms are not cut.
Every other engine is solved without an explicit graph and is refused
(:class:`NoStateGraph`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

from analytic.model.game import Game

__all__ = ["NoStateGraph", "GRAPH_ENGINES", "feature_graph", "initial_spins", "to_dot"]

#: Engines whose chain is exported, and why the others are refused.
GRAPH_ENGINES = ("wald",)

_WHY_NOT = {
    "pick_bonus": "is solved as a law of picks (one draw, no chain), no state graph is built",
    "drawn_expanding": "is solved by its own sums and sparse array chains over (ladder level, golden mask, "
                       "spins left), no networkx state graph is built",
    "revealed_wild_reels": "is solved by closed forms per drawn symbol (i.i.d. spins; Wald's identities with a "
                           "retrigger table), no state graph is built",
    "gift_pick": "is solved by moments of i.i.d. spins per gift class, no state graph is built",
}


class NoStateGraph(ValueError):
    """The feature's solver builds no state graph (message: the feature and why)."""


def _frac(x: Fraction) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def initial_spins(game: Game, feature: str, count: int) -> int:
    """Spins awarded by ``count`` trigger symbols (as :func:`~analytic.features.engines.wald_spins.solve_free_spins`).

    Returns
    -------
    int
        0 when ``count`` is below the smallest listed trigger count.
    """
    from analytic.features.graph.spin_outcomes import award_of

    spec = game.features[feature]
    n = award_of(spec.trigger.counts, count) if spec.trigger else 0
    ceiling = spec.params.get("max_spins")  # honoured by engine wald without a retrigger
    return n if ceiling is None else min(n, int(ceiling))


def check_graphable(game: Game, feature: str) -> None:
    """Raise :class:`NoStateGraph` unless ``feature``'s engine has an exported chain (cheap, no solve)."""
    engine = game.features[feature].engine
    if engine not in GRAPH_ENGINES:
        why = _WHY_NOT.get(engine, "is solved without an explicit state graph")
        raise NoStateGraph(f"feature {feature!r} (engine {engine!r}) {why}")
    p = game.features[feature].params
    if p.get("max_spins") is not None and p.get("retrigger") is not None:
        raise NoStateGraph(f"feature {feature!r} has max_spins with a retrigger: it is solved over (spins played, "
                           f"spins left), which the spins-left chain does not show")


def feature_graph(game: Game, feature: str, count: int, max_spins_left: int | None = None) -> nx.DiGraph:
    """The state graph of ``feature`` started by ``count`` trigger symbols.

    Parameters
    ----------
    game : Game
    feature : str
        A feature solved by engine ``wald``.
    count : int
        Trigger-symbol count; it fixes the initial spins ``n``.
    max_spins_left : int, optional
        Cut of the spins-left chain when the feature retriggers (default
        ``n`` plus the largest retrigger award: one retrigger from the start
        stays inside).  Without retriggers the chain never exceeds ``n`` and
        the cut is ``n``.

    Returns
    -------
    networkx.DiGraph
        Attributes as in the module text; graph attributes ``feature``,
        ``kind``, ``engine``, ``trigger_count``, ``initial_spins``, ``max_spins_left``,
        ``truncated`` (bool), ``win_unit``, ``solved_by``.

    Raises
    ------
    NoStateGraph
        The engine solves without a state graph, or ``count`` awards no spins.
    """
    import networkx as nx

    from analytic.features.graph import chain
    from analytic.features.engines.wald_spins import spins_left_graph, state_outcomes

    check_graphable(game, feature)
    n = initial_spins(game, feature, count)
    if n <= 0:
        raise NoStateGraph(f"feature {feature!r}: {count} trigger symbols award no spins")
    retrig = game.features[feature].params.get("retrigger")
    top_award = max((int(a) for a in retrig.counts.values()), default=0) if retrig is not None else 0
    if max_spins_left is None:
        max_spins_left = n + top_award
    max_spins_left = max(int(max_spins_left), n)
    states = state_outcomes(game, feature)
    wsum = sum(w for w, _s, _o in states)
    out = nx.DiGraph()
    truncated = False

    def name(sym, v) -> str:
        if isinstance(v, chain.End):
            return f"end:{v.label}"
        return f"{v}" if sym is None else f"{sym}|{v}"

    for w, sym, o in states:
        g = spins_left_graph(o, n, max_spins_left)
        g = g.subgraph({n} | nx.descendants(g, n))  # the states the start reaches (the builder makes 1..cut)
        for v in sorted(g, key=lambda v: (isinstance(v, chain.End), -v if isinstance(v, int) else 0, str(v))):
            nid = name(sym, v)
            if nid in out:
                continue
            if isinstance(v, chain.End):
                truncated |= v.label == "truncated"
                attrs = {"state": v.label, "node_kind": "end", "expanding_symbol": "", "start_probability": "0"}
                if v == chain.END:
                    attrs["spins_left"] = 0
            else:
                attrs = {"state": (f"expanding {sym}, " if sym is not None else "") + f"{v} spins left",
                         "node_kind": "transient", "spins_left": int(v),
                         "expanding_symbol": sym or "",
                         "start_probability": _frac(Fraction(w, wsum)) if v == n else "0"}
            out.add_node(nid, **attrs)
        for u, v, d in g.edges(data=True):
            out.add_edge(name(sym, u), name(sym, v), probability=_frac(d["p"]), probability_float=float(d["p"]),
                         mean_win=_frac(d["m1"]), second_moment_win=_frac(d["m2"]))
    out.graph.update(
        feature=feature, kind=game.features[feature].kind, engine=game.features[feature].engine, trigger_count=int(count), initial_spins=n,
        max_spins_left=max_spins_left, truncated=truncated, win_unit="total bet multiples",
        solved_by=("Wald closed forms per drawn state (docs/derivations.md section 3), the exact solution of "
                   "this chain" + (" without its cut at max_spins_left" if truncated else "")),
    )
    return out


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
