"""``analytic graph MODEL --feature NAME [--count N] [--out FILE] [--format graphml|dot]``.

Writes the state graph of one feature (:func:`analytic.features.graph.export.feature_graph`:
states, spins left, per edge the exact probability and the first two moments
of the spin win) so that the chain behind the figures can be inspected.
GraphML is written by networkx (:func:`networkx.generate_graphml`), DOT by
:func:`analytic.features.graph.export.to_dot`.  Without ``--out`` the text goes to
standard output (whole, after the graph is built).  Every argument is
checked before the graph is built; the file is written through
``.<name>.partial`` and renamed, so an error leaves nothing half-written.
A feature whose solver builds no state graph is refused (exit 2, one line);
which engines have a graph: :mod:`analytic.features.graph.export`.
"""

from __future__ import annotations

import os
import sys

from analytic.cli.args import int_type

__all__ = ["add_parser", "run"]

_SUFFIX = {".graphml": "graphml", ".xml": "graphml", ".dot": "dot", ".gv": "dot"}


def add_parser(sub):
    from analytic.features.graph.export import MAX_STATES

    p = sub.add_parser("graph", help="export a feature's state graph (GraphML or DOT)",
                       description="Write the Markov chain of one feature started by one trigger count: "
                                   "nodes are states (with spins left), edges carry the exact probability "
                                   "and the mean and second moment of the spin win (total-bet multiples).")
    p.add_argument("model", help="model file (TOML)")
    p.add_argument("--feature", required=True, help="feature name ([features.NAME] of the model)")
    p.add_argument("--count", type=int_type(1, 10**6, "count"), default=None,
                   help="trigger-symbol count that starts the feature (default: the smallest listed; "
                        "unused by a pick bonus)")
    p.add_argument("--max-spins-left", type=int_type(1, 10**5, "max-spins-left"), default=None,
                   help="cut of the spins-left chain of a retriggering feature (default: the initial spins "
                        "plus the largest retrigger award); a spin leaving more goes to the end 'truncated'; "
                        f"a ladder's chain of more than {MAX_STATES:,} states is refused")
    p.add_argument("--out", default=None, help="output file (default: standard output)")
    p.add_argument("--format", choices=("graphml", "dot"), default=None,
                   help="graphml or dot (default: from the --out suffix .graphml/.xml or .dot/.gv; "
                        "graphml on standard output)")
    return p


def run(args) -> int:
    from analytic.cli.args import UsageError, check_not_an_input, check_out_file
    from analytic.errors import ModelError
    from analytic.features.graph.export import (NoStateGraph, check_graphable, check_size, feature_graph,
                                                 initial_spins, to_dot)
    from analytic.model.loader import load_model

    fmt = args.format
    if args.out is not None:
        suffix = os.path.splitext(args.out)[1].lower()
        if fmt is None:
            fmt = _SUFFIX.get(suffix)
            if fmt is None:
                raise UsageError(f"--out: cannot tell the format from the suffix {suffix or '(none)'!r} of "
                                 f"{args.out!r}; name the file .graphml or .dot, or give --format")
        check_out_file(args.out, example=f"graph.{fmt}")
        if os.path.exists(args.out) and os.path.samefile(args.out, args.model):
            raise UsageError(f"--out: {args.out!r} is the model file; choose another file")
        check_not_an_input(args.out, args.model)  # a CSV file of the model's reels
    fmt = fmt or "graphml"
    game = load_model(args.model)
    name = args.feature
    if name not in game.features:
        raise UsageError(f"--feature: unknown feature {name!r} (known: {', '.join(game.features) or 'none'})")
    key = f"features.{name}"
    try:
        check_graphable(game, name)
    except NoStateGraph as exc:
        raise ModelError(args.model, key, str(exc)) from None
    spec = game.features[name]
    counts = sorted(spec.trigger.counts) if spec.trigger is not None else []
    count = args.count if args.count is not None else (counts[0] if counts else None)
    if count is None and spec.engine == "pick_bonus":
        count = 0  # a pick bonus is one draw whatever started it
    if count is None or initial_spins(game, name, count) <= 0:
        listed = ", ".join(map(str, counts)) or "none"
        raise UsageError(f"--count: {count} trigger symbols do not start feature {name!r} "
                         f"(listed trigger counts: {listed})")
    if count > game.reels * game.rows:
        raise UsageError(f"--count: {count} trigger symbols cannot show in a {game.reels}x{game.rows} window")
    if args.max_spins_left is not None:  # a cut the graph would not honour: refused, never silently changed
        n = initial_spins(game, name, count)
        retriggers = spec.engine == "drawn_expanding" or spec.params.get("retrigger") is not None  # (per symbol)
        if spec.engine in ("pick_bonus", "gift_pick") or not retriggers:
            what = ("is one draw" if spec.engine == "pick_bonus" else
                    f"does not retrigger: its chain ends after the {n} spins it starts with")
            raise UsageError(f"--max-spins-left: feature {name!r} {what}, so it has no spins-left chain to cut; "
                             "leave the option out")
        if args.max_spins_left < n:
            raise UsageError(f"--max-spins-left: {args.max_spins_left} is below the {n} spins feature {name!r} "
                             f"starts with ({count} trigger symbols): the chain starts there; give at least {n}")
    try:
        check_size(game, name, count, args.max_spins_left)
    except NoStateGraph as exc:
        raise UsageError(f"--max-spins-left: {exc}") from None
    g = feature_graph(game, name, count, args.max_spins_left)
    if fmt == "dot":
        text = to_dot(g)
    else:
        import networkx as nx

        text = "\n".join(nx.generate_graphml(g)) + "\n"
    if args.out is None:
        sys.stdout.write(text)
        return 0
    from analytic.tuner.write import atomic_write

    try:
        atomic_write(args.out, text)
    except OSError as exc:
        print(f"error: --out: cannot write {args.out!r}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    n_tr = sum(1 for _, d in g.nodes(data=True) if d["node_kind"] == "transient")
    print(f"{args.out}: {n_tr} states, {g.number_of_nodes() - n_tr} ends, {g.number_of_edges()} edges"
          + (f" (cut at {g.graph['max_spins_left']} spins left)" if g.graph["truncated"] else ""))
    return 0
