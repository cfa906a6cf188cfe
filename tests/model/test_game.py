"""The model types' own rules (:mod:`analytic.model.game`)."""

from __future__ import annotations

from analytic.model.game import Trigger, frozen_mapping


def test_trigger_award_reads_the_documented_example():
    """docs/model-format.md, ``trigger.counts``: with ``{ 3 = 10, 5 = 20 }`` four symbols award 10,
    six award 20; below the smallest listed count nothing (hand count, key by key)."""
    t = Trigger(frozenset({"S"}), frozen_mapping({5: 20, 3: 10}))  # listed out of order on purpose
    assert [t.award(n) for n in range(8)] == [0, 0, 0, 10, 10, 20, 20, 20]
    assert t.min_count == 3


def test_window_count_law_by_hand():
    """Two reels, two rows: reel 1 ``[B, x, x]`` shows B at stops 0 and 2 (windows B x, x x, x B),
    reel 2 ``[B, B]`` shows two Bs at both stops: counts 2 (1 x 2 combinations) and 3 (2 x 2)."""
    from analytic.model.game import window_count_law

    assert window_count_law([["B", "x", "x"], ["B", "B"]], 2, {"B"}) == {2: 2, 3: 4}
    assert window_count_law([["B", "x", "x"]], 1, {"B"}) == {0: 2, 1: 1}
