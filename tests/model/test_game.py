"""The model types' own rules (:mod:`analytic.model.game`)."""

from __future__ import annotations

from analytic.model.game import Trigger, frozen_mapping


def test_trigger_award_reads_the_documented_example():
    """docs/model-format.md, ``trigger.counts``: with ``{ 3 = 10, 5 = 20 }`` four symbols award 10,
    six award 20; below the smallest listed count nothing (hand count, key by key)."""
    t = Trigger(frozenset({"S"}), frozen_mapping({5: 20, 3: 10}))  # listed out of order on purpose
    assert [t.award(n) for n in range(8)] == [0, 0, 0, 10, 10, 20, 20, 20]
    assert t.min_count == 3
