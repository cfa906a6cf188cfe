"""The feature stop on a round whose solver gives its own exact law but no law of its feature.

Book of Christmas Eve's base mode: the capped round law comes from the round
solver (``extra["distribution"]``), its free spins carry no law of their own;
the feature rounds' sub-law is the round's law less the exact sub-law of the
rounds without a feature (``session._split_by_difference``).  Oracles: the
identity ``nof + feat = law`` point by point, the feature rounds' mass equal
to the base spin's trigger probability counted from its classes, and the
closed form of a session that only the feature stop can end (a balance too
large to be ruined within the rounds): P(ended by the feature within N rounds)
= 1 - (1 - p)^N.
"""

from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import pytest

from analytic.model.loader import load_model
from analytic.solver.distribution import _parts, round_law
from analytic.solver.round import solve_round
from analytic.solver.session import SessionRules, solve_session, split_round_law

MODEL = Path(__file__).resolve().parents[2] / "models" / "book_of_christmas_eve.toml"


@pytest.fixture(scope="module")
def solved():
    game = load_model(MODEL)
    return game, solve_round(game, "base")


def test_split_adds_up_and_carries_the_trigger_probability(solved):
    game, r = solved
    assert r.extra.get("distribution") is not None  # the case under test: the round solver's own law
    law = round_law(r)
    got = split_round_law(r, law)
    assert not isinstance(got, str), got
    nof, feat, err = got
    assert err == 0
    total = dict(nof)
    for w, p in feat.items():
        total[w] = total.get(w, F(0)) + p
    assert {w: p for w, p in total.items() if p} == {w: p for w, p in law.points.items() if p}
    p_feature = sum((p for p, _, parts in _parts(r) if parts), F(0))
    assert 0 < p_feature < 1 and sum(feat.values()) == p_feature
    assert all(p > 0 for p in feat.values()) and all(p >= 0 for p in nof.values())


def test_feature_stop_closed_form(solved):
    game, r = solved
    p_feature = sum((p for p, _, parts in _parts(r) if parts), F(0))
    n = 60
    rules = SessionRules(balance=F(n * 2), bet=F(1), rounds=n, stop_on_feature=True)
    res = solve_session(game, "base", rules, result=r)
    want = 1 - (1 - p_feature) ** n
    got = res.reasons["feature"]
    assert abs(F(got.value) - want) <= F(got.error) + F(1, 10**12)
    assert F(res.reasons["ruin"].value) <= F(res.reasons["ruin"].error)  # a start of 2N cannot be ruined
