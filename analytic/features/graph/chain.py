r"""Features as absorbing Markov chains: exact and float solves.

A feature (free spins, a bonus ladder, ...) is a finite directed graph of
*states*.  In each transient state ``u`` one spin is played; its outcomes are
grouped into *classes*, each leading to a next state ``v``.  An edge
``u -> v`` carries

* ``p``: the probability of the classes leading there (exact Fraction),
* ``m1 = E[X | edge]`` and ``m2 = E[X^2 | edge]``: the first two moments of the
  spin's win ``X`` given that edge (the spin played in ``u``).

Several classes leading to the same ``v`` are merged by
:func:`add_outcome` (probabilities add, moments mix).  The feature ends in an
absorbing node :class:`End` carrying a label (``END`` = "spins exhausted";
``End("truncated")`` for a cut-off chain, ``End("cap")``, ...).

Let ``Q`` be the transient-to-transient block of the transition matrix.  If
every transient state reaches an end, ``I - Q`` is invertible and
``N = (I - Q)^{-1}`` is the *fundamental matrix*: ``N[u, v]`` is the
expected number of visits to ``v`` from ``u``.  Then, from state ``u``:

* expected spins ``s = N 1``, i.e. ``s(u) = 1 + sum_e p_e s(v_e)``;
* end probabilities ``P_L(u) = sum_e p_e P_L(v_e)`` with ``P_L(End(L)) = 1``;
* first moment of the accumulated win ``W(u) = X + W(v)``:
  ``m1(u) = r1(u) + sum_e p_e m1(v_e)``, ``r1(u) = sum_e p_e m1_e``,
  i.e. ``m1 = r1 + Q m1``;
* second moment: ``W(u)^2 = X^2 + 2 X W(v) + W(v)^2``.  Given the edge, the
  future ``W(v)`` depends only on ``v`` and is independent of this spin's
  win, so ``E[X W(v) | e] = m1_e m1(v_e)`` -- the covariance between a spin's
  win and where it leads enters through the per-edge ``m1_e``, not through
  the state average ``r1``.  Hence
  ``m2(u) = r2(u) + 2 sum_e p_e m1_e m1(v_e) + sum_e p_e m2(v_e)``, i.e.
  ``m2 = r2 + 2 E[X m1(next)] + Q m2``, with ``r2(u) = sum_e p_e m2_e`` and
  ``m1 = m2 = s = 0`` at the ends.

Every quantity solves ``(I - Q) x = b``.  Two solvers:

* :func:`solve_float` -- one sparse LU (``scipy.sparse.linalg.spsolve``) for
  all right-hand sides (floats; fast, for checks and large graphs);
* :func:`solve_exact` -- rationals.  The graph's strongly connected
  components are solved in reverse topological order of the condensation
  (``networkx.condensation``): when a component is reached, the values of
  every state it leads out to are known, so each component is a small
  linear system (python-flint ``fmpq_mat``), and a singleton without a
  self-loop is a plain back-substitution.  A self-loop alone is a division
  by ``1 - p``.

Adding a feature kind: build the graph with :func:`add_outcome` (states are
any hashable values), then call :func:`solve_exact` from the start state(s).

References
----------
J. G. Kemeny, J. L. Snell, *Finite Markov Chains*, ch. III (absorbing
chains, the fundamental matrix).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Hashable, Mapping, NamedTuple

import numpy as np

if TYPE_CHECKING:  # networkx is imported by the functions that use it (a cold start without chains skips it)
    import networkx as nx

__all__ = ["End", "END", "ChainResult", "add_outcome", "solve_exact", "solve_float", "check_graph"]


class End(NamedTuple):
    """Absorbing end node with a label (e.g. ``"spins exhausted"``)."""

    label: str


#: The usual end: no spins left.
END = End("spins exhausted")


@dataclass(frozen=True)
class ChainResult:
    """Figures of the accumulated win from one start state.

    Attributes
    ----------
    mean : Fraction or float
        Expected total win (unit of the edge moments, e.g. total-bet multiples).
    second_moment : Fraction or float
    expected_spins : Fraction or float
    end_probabilities : Mapping[str, Fraction or float]
        End label -> probability of ending there.
    """

    mean: Fraction | float
    second_moment: Fraction | float
    expected_spins: Fraction | float
    end_probabilities: Mapping[str, Fraction | float]

    @property
    def variance(self):
        return self.second_moment - self.mean ** 2


def add_outcome(g: nx.DiGraph, u: Hashable, v: Hashable, p, m1, m2) -> None:
    """Add an outcome class ``u -> v`` (merging with an existing edge).

    Parameters
    ----------
    g : networkx.DiGraph
    u, v : hashable
        Source state and next state (an :class:`End` to absorb).
    p : Fraction
        Probability of the class (> 0).
    m1, m2 : Fraction
        ``E[X | class]`` and ``E[X^2 | class]`` of the spin played in ``u``.
    """
    p, m1, m2 = Fraction(p), Fraction(m1), Fraction(m2)
    if p == 0:
        return
    if g.has_edge(u, v):
        d = g.edges[u, v]
        q = d["p"] + p
        d["m1"] = (d["p"] * d["m1"] + p * m1) / q
        d["m2"] = (d["p"] * d["m2"] + p * m2) / q
        d["p"] = q
    else:
        g.add_edge(u, v, p=p, m1=m1, m2=m2)


def _labels(g: nx.DiGraph) -> list[str]:
    return sorted({n.label for n in g if isinstance(n, End)})


def check_graph(g: nx.DiGraph) -> None:
    """Check the graph is a valid absorbing chain.

    Raises
    ------
    ValueError
        Out-probabilities of a transient state do not sum to 1, an end has
        out-edges, or a transient state cannot reach an end.
    """
    import networkx as nx

    ends = [n for n in g if isinstance(n, End)]
    for n in g:
        out = sum((d["p"] for _, _, d in g.out_edges(n, data=True)), Fraction(0))
        if isinstance(n, End):
            if g.out_degree(n):
                raise ValueError(f"end {n} has outgoing edges")
        elif out != 1:
            raise ValueError(f"state {n!r}: outgoing probabilities sum to {out}, not 1")
    can_end = set(ends)
    for e in ends:
        can_end |= nx.ancestors(g, e)
    stuck = [n for n in g if n not in can_end]
    if stuck:
        raise ValueError(f"states never reach an end (the feature would never stop): {stuck[:5]!r}")


def _fmpq(x: Fraction):
    import flint

    return flint.fmpq(x.numerator, x.denominator)


def _frac(x) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def _solve_block(A: list[list[Fraction]], B: list[list[Fraction]]) -> list[list[Fraction]]:
    """Exact solve of ``A X = B`` (python-flint, else sympy)."""
    n, k = len(A), len(B[0])
    try:
        import flint
    except ImportError:  # pragma: no cover - flint is a dependency
        import sympy

        X = sympy.Matrix(A).LUsolve(sympy.Matrix(B))
        return [[Fraction(int(sympy.fraction(X[i, j])[0]), int(sympy.fraction(X[i, j])[1]))
                 for j in range(k)] for i in range(n)]
    Am = flint.fmpq_mat(n, n, [_fmpq(x) for row in A for x in row])
    Bm = flint.fmpq_mat(n, k, [_fmpq(x) for row in B for x in row])
    X = Am.solve(Bm)
    return [[_frac(X[i, j]) for j in range(k)] for i in range(n)]


def solve_exact(g: nx.DiGraph, start=None, *, check: bool = True) -> dict | ChainResult:
    """Exact rational solve of an absorbing feature chain.

    Parameters
    ----------
    g : networkx.DiGraph
        Built with :func:`add_outcome`.
    start : hashable or Mapping, optional
        A start state, or ``{state: probability}``.  None: return every state.
    check : bool
        Validate the graph first (:func:`check_graph`).

    Returns
    -------
    ChainResult or dict
        From ``start`` (mixed over a start distribution), or
        ``state -> ChainResult`` for every transient state.

    Notes
    -----
    Strongly connected components in reverse topological order; each is a
    linear system of its own size (exact, python-flint ``fmpq_mat``).
    """
    import networkx as nx

    if check:
        check_graph(g)
    labels = _labels(g)
    zero = Fraction(0)
    m1: dict = {}
    m2: dict = {}
    sp: dict = {}
    pe: dict = {}
    for n in g:
        if isinstance(n, End):
            m1[n] = m2[n] = sp[n] = zero
            pe[n] = tuple(Fraction(int(n.label == L)) for L in labels)
    cond = nx.condensation(g)
    for c in reversed(list(nx.topological_sort(cond))):
        members = [n for n in cond.nodes[c]["members"] if not isinstance(n, End)]
        if not members:
            continue
        idx = {n: i for i, n in enumerate(members)}
        k = len(members)
        # first pass: m1, spins, end probabilities share the matrix I - Q_cc
        A = [[zero] * k for _ in range(k)]
        B1 = [[zero] * (2 + len(labels)) for _ in range(k)]
        for u in members:
            i = idx[u]
            A[i][i] += 1
            row = B1[i]
            row[1] += 1
            for _, v, d in g.out_edges(u, data=True):
                p = d["p"]
                row[0] += p * d["m1"]
                if v in idx:
                    A[i][idx[v]] -= p
                else:
                    row[0] += p * m1[v]
                    row[1] += p * sp[v]
                    for j, x in enumerate(pe[v]):
                        row[2 + j] += p * x
        if k == 1:
            X1 = [[x / A[0][0] for x in B1[0]]]
        else:
            X1 = _solve_block(A, B1)
        for u in members:
            r = X1[idx[u]]
            m1[u], sp[u], pe[u] = r[0], r[1], tuple(r[2:])
        B2 = [[zero] for _ in range(k)]
        for u in members:
            i = idx[u]
            for _, v, d in g.out_edges(u, data=True):
                p = d["p"]
                B2[i][0] += p * (d["m2"] + 2 * d["m1"] * m1[v])
                if v not in idx:
                    B2[i][0] += p * m2[v]
        X2 = [[B2[0][0] / A[0][0]]] if k == 1 else _solve_block(A, B2)
        for u in members:
            m2[u] = X2[idx[u]][0]
    res = {
        n: ChainResult(m1[n], m2[n], sp[n], dict(zip(labels, pe[n])))
        for n in g if not isinstance(n, End)
    }
    return _pick(res, start, labels)


def _pick(res: dict, start, labels):
    if start is None:
        return res
    if not isinstance(start, Mapping):
        return res[start]
    tot = sum(start.values())
    mix = lambda f: sum(p * f(res[s]) for s, p in start.items()) / tot  # noqa: E731
    return ChainResult(mix(lambda r: r.mean), mix(lambda r: r.second_moment), mix(lambda r: r.expected_spins),
                       {L: mix(lambda r, L=L: r.end_probabilities[L]) for L in labels})


def solve_float(g: nx.DiGraph, start=None) -> dict | ChainResult:
    """Float solve of the same chain: one sparse LU for all right-hand sides.

    Parameters
    ----------
    g : networkx.DiGraph
    start : hashable or Mapping, optional
        As in :func:`solve_exact`.

    Returns
    -------
    ChainResult or dict
        Floats (``scipy.sparse.linalg.spsolve``).
    """
    from scipy.sparse import csc_matrix, identity
    from scipy.sparse.linalg import spsolve

    labels = _labels(g)
    tr = [n for n in g if not isinstance(n, End)]
    idx = {n: i for i, n in enumerate(tr)}
    k = len(tr)
    rows, cols, vals = [], [], []
    b = np.zeros((k, 2 + len(labels)))
    r2 = np.zeros(k)
    edges = []
    for u in tr:
        i = idx[u]
        b[i, 1] = 1.0
        for _, v, d in g.out_edges(u, data=True):
            p, e1, e2 = float(d["p"]), float(d["m1"]), float(d["m2"])
            b[i, 0] += p * e1
            r2[i] += p * e2
            edges.append((i, v, p, e1))
            if v in idx:
                rows.append(i), cols.append(idx[v]), vals.append(p)
            else:
                b[i, 2 + labels.index(v.label)] += p
    Q = csc_matrix((vals, (rows, cols)), shape=(k, k))
    M = (identity(k, format="csc") - Q).tocsc()
    x = spsolve(M, b).reshape(k, -1)
    m1 = x[:, 0]
    c = r2.copy()
    for i, v, p, e1 in edges:
        if v in idx:
            c[i] += 2 * p * e1 * m1[idx[v]]
    m2 = np.atleast_1d(spsolve(M, c))
    res = {
        u: ChainResult(float(m1[idx[u]]), float(m2[idx[u]]), float(x[idx[u], 1]),
                       {L: float(x[idx[u], 2 + j]) for j, L in enumerate(labels)})
        for u in tr
    }
    return _pick(res, start, labels)
