"""The forward law (``draw_law``) on variants of the tiny game: other multiplier rules and ceilings
(a law that read neither rule ``expanding_repeat_multiplier`` nor the ceiling would pass the shipped
rule's checks), the literal reading, and the round's bounds in base mode.

Oracle: the path recursion of ``test_draw_cap_law._oracle`` over (spins left, draw counts of the 9
symbols), every draw enumerated, with the multiplier rule written from the rule text (``_mult``);
under the literal reading it pays the line win of the set of expanding symbols drawn so far
(``_table``), which the laws of the two bounding games must bracket.
"""

from __future__ import annotations


import pytest

from test_drawn_oracles import TINY
from test_draw_cap_law import _oracle

from analytic.model import load_model_text


def _game(reading: str, ceiling: int, literal: bool = False):
    rule = 'expanding_repeat_multiplier = "count"\n'
    text = TINY.replace("CAP", str(10**6)).replace("ceiling = 9", f"ceiling = {ceiling}")
    assert text.count(rule) == 1 and text.count(f"ceiling = {ceiling}") == 2
    new = f'expanding_repeat_multiplier = "{reading}"\n'
    new += f"scatter_substitutes_for_expanding_in_line_wins = {'false' if literal else 'true'}\n"
    return load_model_text(text.replace(rule, new), path="tiny_bop.toml")


def _paths(game, n0: int, reading: str, ceiling: int, jmax: int) -> dict:
    """Law of the whole win (line bets) over the paths with at most ``jmax`` awards (the rest dropped):
    the path recursion of ``test_draw_cap_law`` with the multiplier rule ``reading``, ``ceiling``."""
    return _oracle(game, n0, lines=True, limit=10**12, jmax=jmax, reading=reading, ceiling=ceiling)


def _law(game, n0, draws, cells=60):
    from analytic.features.engines.drawn_expanding.draw_law import draw_law
    from analytic.features.engines.drawn_expanding.spin_stats import spin_stats
    from analytic.workspace import Workspace

    return draw_law(spin_stats(game, "free_spins", Workspace(game)), n0, draws=draws, reach_cells=cells)


@pytest.mark.parametrize("reading, ceiling", [("count_minus_one", 9), ("count", 2), ("count", 1)])
def test_finished_paths_follow_the_multiplier_rule(reading, ceiling):
    game = _game(reading, ceiling)
    law = _law(game, 2, 3)
    same = _paths(game, 2, reading, ceiling, jmax=2)  # the paths the law finishes
    for k in range(law.M + 1):
        want = sum(q for w, q in same.items() if w >= k * law.u)
        got = float(law.F[k:].sum())
        assert want - 1e-9 <= got <= want + 1e-13, (k, got, want)
    # not vacuous: the tolerance above tells this law from the default rule's (count, ceiling 9)
    other = _paths(game, 2, "count", 9, jmax=2)
    assert max(abs(sum(q for w, q in same.items() if w >= c) - sum(q for w, q in other.items() if w >= c))
               for c in range(1, 61)) > 1e-8  # (repeat draws: rare on 2 spins)


def test_literal_reading_bracketed_by_the_bounding_games():
    from analytic.features.engines.drawn_expanding.line_sets import bounding_game

    game = _game("count", 9, literal=True)
    lower, upper = (_law(bounding_game(game, "free_spins", side), 2, 2) for side in ("lower", "upper"))
    full = _paths(game, 2, "count", 9, jmax=4)
    lost = 1 - sum(full.values())
    assert lost < 1e-6
    cs = list(range(1, 61))
    lo, _ = lower.tail_bounds(cs)
    _, hi = upper.tail_bounds(cs)
    for c, a, b in zip(cs, lo, hi):
        p = sum(q for w, q in full.items() if w >= c)
        assert a <= p + lost + 1e-12 and p - 1e-12 <= b, (c, a, p, b)
    # not vacuous: both ends say something
    assert lo[0] > 0.1 and hi[-1] < 0.01


def test_round_tail_with_the_forward_law_holds_paths_to_four_awards():
    """RoundTail at 'standard' (the forward law on) for the base mode, every base outcome (books, B)
    enumerated, against the recursion dropping only the paths with more than 4 awards (about 1e-8;
    ``test_round_tail`` drops those beyond 1), ceiling 2 and reading count_minus_one."""
    from fractions import Fraction

    from test_round_tail import _base_outcomes

    from analytic.solver.round import solve_round
    from analytic.workspace import Workspace

    C = 30
    rule = 'expanding_repeat_multiplier = "count"\n'
    text = TINY.replace("CAP", str(C)).replace("ceiling = 9", "ceiling = 2")
    game = load_model_text(text.replace(rule, 'expanding_repeat_multiplier = "count_minus_one"\n'
                                        "scatter_substitutes_for_expanding_in_line_wins = true\n"),
                           path="tiny_bop.toml")
    r = solve_round(game, "base", workspace=Workspace(game, precision="standard"))
    xs = [Fraction(k, 4) for k in range(1, 4 * C + 1)]
    bounds = r.extra["round_tail"].bounds(xs)
    counts = game.features["free_spins"].trigger.counts
    laws = {n: _paths(game, a, "count_minus_one", 2, jmax=4) for n, a in counts.items()}
    outs = _base_outcomes(game)
    widest = 0.0
    for x, (lo, hi) in zip(xs, bounds):
        p = lost = 0.0
        for (b, B), q in outs.items():
            if b == 0:
                p += q * (min(B, C) >= x)
            else:
                p += q * sum(w for v, w in laws[b].items() if min(B + v, C) >= x)
                lost += q * (1 - sum(laws[b].values()))
        assert float(lo) <= p + lost + 1e-12 and p - 1e-12 <= float(hi), (x, float(lo), p, float(hi))
        widest = max(widest, float(hi - lo))
    assert widest < 1e-4  # (not vacuous: the forward law closes the bracket on this game)
