"""``analytic verify``'s z-scores use the standard error under the exact figures (analytic/cli/verify.py:
compare): a simulated sample whose own standard error is 0 (every round lost, no feature started) is
not a reason to flag a true solver."""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

from analytic.cli.verify import Z_LIMIT, compare
from analytic.figures import Figure


def _exact(rtp, hit, feat, var):
    return SimpleNamespace(rtp=Figure(rtp), hit_frequency=Figure(hit), base=object(),
                           features=(SimpleNamespace(frequency=Figure(feat)),), variance_figure=Figure(var))


def _sim(n, rtp, rtp_se, hit, feat):
    se = lambda p: math.sqrt(p * (1 - p) / n)  # noqa: E731  (the sample's own: 0 for a share of 0)
    return SimpleNamespace(rounds=n, rtp=rtp, rtp_se=rtp_se, hit_frequency=hit, hit_frequency_se=se(hit),
                           feature_frequency=feat, feature_frequency_se=se(feat))


def test_ten_lost_rounds_are_no_evidence_against_the_solver():
    # hit frequency 0.29: ten losses in a row have probability 0.71^10 = 0.033 > 0.001 (the test's level)
    hit = Fraction(29, 100)
    assert (1 - hit) ** 10 > Fraction(1, 1000)
    rows = compare(_exact(Fraction(95, 100), hit, Fraction(1, 180), Fraction(25)), _sim(10, 0.0, 0.0, 0.0, 0.0))
    assert [r["verdict"] for r in rows] == ["ok", "ok", "ok"], rows
    assert all(math.isfinite(r["z"]) for r in rows)


def test_no_feature_in_150_rounds_is_no_evidence_against_the_solver():
    p = Fraction(1, 180)
    assert (1 - p) ** 150 > Fraction(4, 10)
    rows = compare(_exact(Fraction(95, 100), Fraction(29, 100), p, Fraction(25)),
                   _sim(150, 0.36, 0.111, 0.27, 0.0))
    assert [r["verdict"] for r in rows] == ["ok", "ok", "ok"], rows


def test_a_far_off_simulation_is_still_flagged():
    # 1,000 rounds all lost at hit frequency 0.29 (probability 0.71^1000 < 1e-148): the hit frequency is flagged
    rows = compare(_exact(Fraction(95, 100), Fraction(29, 100), Fraction(1, 180), Fraction(25)),
                   _sim(1000, 0.0, 0.0, 0.0, 0.0))
    hit = next(r for r in rows if r["figure"] == "hit frequency")
    assert hit["verdict"] == "CHECK" and abs(hit["z"]) > Z_LIMIT


def test_a_share_that_cannot_happen_is_a_check_and_valid_json():
    """A feature the exact figures say never starts, started in the sample (spread 0 both ways):
    CHECK, with z null, so the JSON output has no Infinity."""
    import json

    rows = compare(_exact(Fraction(95, 100), Fraction(29, 100), Fraction(0), Fraction(25)),
                   SimpleNamespace(rounds=100, rtp=0.95, rtp_se=0.5, hit_frequency=0.29, hit_frequency_se=0.045,
                                   feature_frequency=0.01, feature_frequency_se=0.0))
    feat = rows[2]
    assert feat["verdict"] == "CHECK" and feat["z"] is None
    assert "Infinity" not in json.dumps(rows, allow_nan=False)
