"""Published bounded figures (analytic/figures.py: Figure.published, publication_quantum)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.figures import ERROR_DIGITS, VALUE_DIGITS, Figure, publication_quantum

values = st.fractions(min_value=-10**6, max_value=10**6, max_denominator=10**30)
errors = st.fractions(min_value=0, max_value=10**3, max_denominator=10**30)


def _is_power_of_ten(q: Fraction) -> bool:
    n, d = q.numerator, q.denominator
    return (n == 1 and str(d).strip("0") == "1") or (d == 1 and str(n).strip("0") == "1")


@settings(max_examples=300, deadline=None)
@given(values, errors)
def test_published_interval_contains_the_computed_one(v, e):
    f = Figure(v, "bounded", e)
    g = f.published()
    q = g.quantum
    assert q >= publication_quantum(v, e) and q == publication_quantum(g.value, g.error)
    assert g.published() is g  # published once: as it is
    assert _is_power_of_ten(q)
    assert g.label == "bounded"
    assert g.value - g.error <= v - e and v + e <= g.value + g.error
    assert (g.value / q).denominator == 1 and (g.error / q).denominator == 1  # multiples of the quantum
    assert g.error - (e + abs(v - g.value)) < q  # raised by less than one quantum
    assert abs(g.value - v) <= q / 2


@settings(max_examples=300, deadline=None)
@given(values.filter(lambda v: v != 0), errors.filter(lambda e: e != 0))
def test_quantum_against_decimal_logarithms(v, e):
    # the decade of x is floor(log10 x), computed here by Decimal's correctly rounded log10 away from
    # exact powers of ten (where the float-free definition decides: 10^k has decade k)
    def decade(x: Fraction) -> int:
        d = (Decimal(x.numerator) / Decimal(x.denominator)).log10()
        k = int(d.to_integral_value(rounding="ROUND_FLOOR"))
        if Fraction(10) ** (k + 1) <= x:
            k += 1
        if Fraction(10) ** k > x:
            k -= 1
        return k

    q = publication_quantum(v, e)
    assert q == Fraction(10) ** max(decade(e) - ERROR_DIGITS, decade(abs(v)) - VALUE_DIGITS + 1)


def test_exact_figures_are_published_unchanged():
    f = Figure(Fraction(1, 3))
    assert f.published() is f
    assert f.to_json() == {"exact": "1/3", "float": 1 / 3, "label": "exact"}


def test_centres_a_few_units_apart_publish_alike():
    # centres of Book of Power's figures computed on two machines (OpenBLAS's Haswell and SkylakeX
    # kernels sum the same dot products in other orders): the published figures agree
    pairs = [("0.94000146375085059311", "0.94000146375085062434", "1.82e-07"),
             ("3.4826949201723991685E-10", "3.4826949201723996854E-10", "2.17e-10"),
             ("114.99649170566429620", "114.99649170566429617", "2.99"),
             ("-0.030423831613005205893", "-0.030423831613005206", "1.87e-07")]
    for a, b, e in pairs:
        fa = Figure(Fraction(a), "bounded", Fraction(e)).published()
        fb = Figure(Fraction(b), "bounded", Fraction(e)).published()
        assert fa == fb, (a, b)
    # and what is published: the centre to about a thousandth of the error, the error widened
    got = Figure(Fraction("0.94000146375085059311"), "bounded", Fraction("1.82e-07")).published()
    assert got == Figure(Fraction("0.9400014638"), "bounded", Fraction("1.821e-07"))
    assert got.to_json() == {"exact": "4700007319/5000000000", "float": 0.9400014638, "label": "bounded",
                             "error": 1.821e-07}


def test_a_zero_error_keeps_the_centre_to_its_digits():
    g = Figure(Fraction(5, 4), "bounded", Fraction(0)).published()
    assert g == Figure(Fraction(5, 4), "bounded", Fraction(0))
    # a centre beyond 13 significant digits with no error: rounded, and the error covers the rounding
    v = Fraction(1, 3)
    g = Figure(v, "bounded", Fraction(0)).published()
    assert g.value == Fraction("0.3333333333333") and g.error == Fraction("1e-13")


@settings(max_examples=300, deadline=None)
@given(values, st.integers(min_value=1, max_value=15))
def test_round_outward_is_a_bound_with_the_digits_asked(x, digits):
    from analytic.figures import round_outward

    lo, hi = round_outward(x, up=False, digits=digits), round_outward(x, up=True, digits=digits)
    assert lo <= x <= hi
    for b in (lo, hi):  # at most ``digits`` significant digits
        if b:
            d = abs(b)
            while d.denominator != 1:
                d *= 10
            n = d.numerator
            while n % 10 == 0:
                n //= 10
            assert len(str(n)) <= digits
    if lo != hi:  # one step of the last digit apart
        assert (hi - lo) * 10 ** (digits - 1) <= 10 * max(abs(lo), abs(hi))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(values, errors, st.booleans()), min_size=1, max_size=5))
def test_published_split_adds_up_and_holds_each_part(parts):
    from analytic.figures import published_split

    figs = [("p%d" % i, Figure(v, "exact") if ex else Figure(v, "bounded", e)) for i, (v, e, ex) in enumerate(parts)]
    total = Figure(sum((f.value for _n, f in figs), Fraction(0)),
                   "exact" if all(f.label == "exact" for _n, f in figs) else "bounded",
                   sum((f.error for _n, f in figs), Fraction(0)))
    out = published_split(figs, total)
    t = total.published()
    assert sum((f.published().value for _n, f in out), Fraction(0)) == t.value  # as the renderers show them
    for (_n, f), (_m, g) in zip(figs, out):
        g = g.published()
        assert g.label == f.label
        assert g.value - g.error <= f.value - f.error and f.value + f.error <= g.value + g.error


def _written_ends(g: Figure) -> tuple[Fraction, Fraction]:
    """The ends ``value -/+ error`` as the JSON writes them (:meth:`Figure.to_json`: the exact centre,
    the error as a float, read back as the shortest decimal JSON prints)."""
    d = g.to_json()
    return Fraction(d["exact"]) - Fraction(repr(d["error"])), Fraction(d["exact"]) + Fraction(repr(d["error"]))


def test_published_probability_by_hand():
    """The committed Book of Power sheet's ruin within 100 rounds, 7.269e-10 +/- 7.27e-10: its low
    end -1e-13, a probability below 0 by one rounding step; a centre 0 with error 1.872e-12 reached
    -1.872e-12; 0.9999999999997 +/- 2e-12 passed 1. Within [0, 1], each holding its interval cut to
    [0, 1]: [0, 1.4538e-9], [0, 1.872e-12], [0.9999999999977, 1]."""
    for v, e in ((Fraction("7.269e-10"), Fraction("7.27e-10")), (Fraction(0), Fraction("1.872e-12")),
                 (Fraction("0.9999999999997"), Fraction("2e-12"))):
        f = Figure(v, "bounded", e)
        lo, hi = _written_ends(f.published_within())
        assert 0 <= lo <= max(v - e, 0) and min(v + e, 1) <= hi <= 1, (v, e, lo, hi)
    assert _written_ends(Figure(Fraction(0), "bounded", Fraction("1.872e-12")).published_within()) == (
        0, Fraction("1.872e-12"))
    assert _written_ends(Figure(Fraction("0.9999999999997"), "bounded", Fraction("2e-12")).published_within()) == (
        Fraction("0.9999999999977"), 1)
    # one already inside is published as before; an exact one as it is
    f = Figure(Fraction(1, 3), "bounded", Fraction(1, 10**6))
    assert f.published_within() == f.published()
    assert Figure(Fraction(1, 3)).published_within() == Figure(Fraction(1, 3))


@settings(max_examples=300, deadline=None)
@given(st.fractions(min_value=0, max_value=1, max_denominator=10**30),
       st.fractions(min_value=0, max_value=1, max_denominator=10**30).filter(lambda e: e > 0))
def test_published_probability_within_0_1_and_holding_its_interval(v, e):
    f = Figure(v, "bounded", e)
    g = f.published_within()
    lo, hi = _written_ends(g)
    assert 0 <= lo and hi <= 1
    assert lo <= max(v - e, 0) and min(v + e, 1) <= hi  # the certified interval, cut to [0, 1], kept
    assert g.published() is g


def test_exact_format_against_decimal_digits_by_hand():
    """exact_format prints a Fraction's own digits: 3/4 x 10^32 (an RTP of 7.5e31 %; the float printed
    74999999999999990513822771183616), numbers beyond a float's range (1e-400 became 0, 1e400 inf)."""
    from analytic.figures import exact_format

    assert exact_format(Fraction(3, 4) * 10**32, ".6f") == "75" + "0" * 30 + ".000000"
    assert exact_format(Fraction(3, 4) * 10**32, ",.0f") == "75," + ",".join(["000"] * 10)
    assert exact_format(Fraction(1, 3 * 10**400), ".4e") == "3.3333e-401"
    assert exact_format(Fraction(2, 3) * 10**400, ".4e") == "6.6667e+399"
    assert exact_format(Fraction(1, 10**400), ".10g") == "1e-400"
    assert exact_format(Fraction(-1, 8), ".2f") == "-0.12"  # a tie: half to even, as format() of 0.125
    assert exact_format(Fraction(9999995, 10**7), ".6f") == "1.000000"  # the half carried into the units
    assert exact_format(Fraction(99995, 10), ".4g") == "1e+04" and exact_format(Fraction(1, 7), ".3%") == "14.286%"


@settings(max_examples=500, deadline=None)
@given(st.floats(min_value=-1e15, max_value=1e15, allow_nan=False),
       st.sampled_from([".6f", ",.4f", ".4e", ".10g", ".4g", ".2f", ",.0f", ".0e", ".1g"]))
def test_exact_format_is_format_of_a_float_within_its_digits(x, spec):
    """Of a float (an exact binary fraction), format() prints the exact value's correctly rounded
    digits: exact_format of the same value must print the same text."""
    from analytic.figures import exact_format

    x += 0.0  # (-0.0 prints '-0.00'; its Fraction is 0)
    assert exact_format(Fraction(x), spec) == format(x, spec)


def test_exact_format_of_more_than_4300_digits():
    """format(n, ",") refuses an integer of more than 4,300 digits, as str(n) does. 10^5000 + 1/3 to 2
    decimals with separators, by hand: 5,001 digits, '100' then 1,666 groups ',000', then '.33'."""
    from analytic.figures import exact_format

    assert exact_format(Fraction(10**5000) + Fraction(1, 3), ",.2f") == "100" + ",000" * 1666 + ".33"
