"""RTP shares of a win-distribution table whose RTP is bounded (analytic/reports/json_.py: _bucket_rows)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.figures import Figure
from analytic.reports.json_ import _bucket_rows
from analytic.reports.model import Bucket, DistributionTable


def _interval(d):
    # a JSON number is decimal text: the error as JSON writes it (the float's shortest repr, the
    # published decimal), not the binary float's exact value (which may lie an ulp below it)
    v, e = Fraction(d["exact"]), Fraction(repr(d.get("error", 0)))
    return v - e, v + e


@settings(max_examples=200, deadline=None)
@given(st.lists(st.fractions(min_value=0, max_value=2, max_denominator=1000), min_size=1, max_size=5),
       st.fractions(min_value=Fraction(1, 10), max_value=2, max_denominator=1000),
       st.fractions(min_value=Fraction(1, 10 ** 9), max_value=Fraction(1, 100), max_denominator=10 ** 12),
       st.fractions(min_value=-1, max_value=1, max_denominator=1000))
def test_published_shares_hold_for_every_rtp_within_the_error(exact_rtps, feature_rtp, e, where):
    # the exact rows' RTPs a_i, the feature row's a_f = v - sum a_i; true RTP t = v + where * e
    v = sum(exact_rtps, Fraction(0)) + feature_rtp
    buckets = [Bucket(f"row {i}", Fraction(i), Fraction(i + 1), Fraction(1, 10), a, a / v)
               for i, a in enumerate(exact_rtps)]
    buckets.append(Bucket("rounds with a feature (base spin + feature win)", None, None, Fraction(1, 2),
                          feature_rtp, feature_rtp / v))
    table = DistributionTable("base spin only", "", "bounded", Fraction(0), tuple(buckets), e)
    rows = [{"rtp": {"exact": f"{b.rtp.numerator}/{b.rtp.denominator}", "label": "exact"},
             "share": {"exact": f"{b.share.numerator}/{b.share.denominator}", "label": "exact"}} for b in buckets]
    _bucket_rows(table, rows, 1)
    t = v + where * e
    for b, r in zip(buckets, rows):
        true_rtp = b.rtp if b.low is not None else t - (v - feature_rtp)
        lo, hi = _interval(r["rtp"])
        assert lo <= true_rtp <= hi
        assert r["share"]["label"] == ("exact" if b.rtp == 0 else "bounded")  # 0 / t is 0 for any t
        lo, hi = _interval(r["share"])
        assert lo <= true_rtp / t <= hi
    assert rows[-1]["rtp"]["label"] == "bounded" and all(r["rtp"]["label"] == "exact" for r in rows[:-1])


def test_exact_rtp_leaves_the_rows_exact():
    b = (Bucket("0", Fraction(0), Fraction(0), Fraction(1, 2), Fraction(0), Fraction(0)),
         Bucket("(0, 1]", Fraction(0), Fraction(1), Fraction(1, 2), Fraction(1, 2), Fraction(1)))
    rows = [{"share": {"label": "exact"}} for _ in b]
    _bucket_rows(DistributionTable("round", "", "exact", Fraction(0), b), rows, 1)
    assert all(r == {"share": {"label": "exact"}} for r in rows)


def test_json_sd_and_volatility_bounds_hold_the_square_roots():
    """A mode whose variance is bounded: the JSON's ``sd_bounds`` and ``volatility_bounds`` hold
    ``z sqrt(v +- e)`` (squared, exactly); an exact variance has none."""
    import json
    from types import SimpleNamespace

    from analytic.reports import json_ as J

    v, e = Fraction(114113, 1000), Fraction(2995, 1000)
    sd = float(v) ** 0.5
    z = 1.6448536269514722
    m = SimpleNamespace(variance=Figure(v, "bounded", e), sd=sd, volatility=((90, z * sd),))
    iv = J.sd_interval(m)
    b = json.loads(json.dumps(J._bounds(*iv)))
    assert Fraction(b["low"]) ** 2 <= v - e and v + e <= Fraction(b["high"]) ** 2
    lo, hi = J.sd_interval(m, z * sd)
    zz = Fraction(z) ** 2
    assert lo ** 2 <= zz * (v - e) * (1 + Fraction(1, 2 ** 49)) and zz * (v + e) * (1 - Fraction(1, 2 ** 49)) <= hi ** 2
    assert J.sd_interval(SimpleNamespace(variance=Figure(v), sd=sd, volatility=())) is None


def test_rows_whose_share_cannot_be_certified_keep_their_rtp_errors():
    """An RTP centre v = 1/100 within eR = 1/10 (not certified away from 0): the shares are
    approximate, but the feature row's RTP (v less the exact rows') is still only known within eR,
    and a grid law's rows' RTPs within e * hi / cost; they were labelled exact before."""
    from analytic.reports.json_ import _conv

    v, eR = Fraction(1, 100), Fraction(1, 10)
    exact_rtp = Fraction(1, 200)
    base = (Bucket("(0, 1]", Fraction(0), Fraction(1), Fraction(1, 2), exact_rtp, exact_rtp / v),
            Bucket("rounds with a feature (base spin + feature win)", None, None, Fraction(1, 2),
                   v - exact_rtp, (v - exact_rtp) / v))
    rows = [_conv(b) for b in base]
    _bucket_rows(DistributionTable("base spin only", "", "bounded", Fraction(0), base, eR), rows, 1)
    assert [r["share"]["label"] for r in rows] == ["approximate", "approximate"]
    assert rows[0]["rtp"]["label"] == "exact"
    for t in (v - eR, v + eR):  # any true RTP within the error: the feature row's RTP is t - 1/200
        lo, hi = _interval(rows[1]["rtp"])
        assert lo <= t - exact_rtp <= hi

    e = Fraction(1, 1000)  # a grid law within total variation e, RTP again not away from 0
    grid = (Bucket("(0, 1]", Fraction(0), Fraction(1), Fraction(1, 2), exact_rtp, exact_rtp / v),
            Bucket("(1, 2]", Fraction(1), Fraction(2), Fraction(1, 2), exact_rtp, exact_rtp / v))
    rows = [_conv(b) for b in grid]
    _bucket_rows(DistributionTable("round", "", "bounded", e, grid, eR), rows, 1)
    for b, r in zip(grid, rows):
        # a true law moving mass e into the row at its top win: its RTP is higher by e * hi
        lo, hi = _interval(r["rtp"])
        assert r["rtp"]["label"] == "bounded" and lo <= b.rtp + e * b.high <= hi
        lo, hi = _interval(r["probability"])
        assert lo <= b.probability + e <= hi
