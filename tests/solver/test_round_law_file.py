"""Sessions from a saved round law (``analytic.solver.round_law_file``) equal the fresh solve's, bit for bit.

The oracle: the session chain run straight on the solved round, as the session solver ran it before
round laws could be saved -- ``session_law`` on ``round_law(r).points`` (or
``split_round_law(r, ...)`` with the feature stop), ``mean_win`` and ``cost`` of the RoundResult --
written out here, not through :func:`~analytic.solver.round_law_file.saved_round_law`.  The saved
law goes through its JSON text (``json.dumps`` / ``json.loads``) and the strict reader; every
figure, and the chain's arrays, must be equal (``==``, not close).

Games: ``tests/cases/sizzling_hot_95.toml`` and ``red_white_blue.toml`` (exact laws, no feature),
``book_of_ra_deluxe_95.toml`` (a certified law with a feature: the feature stop reads the split).
The certified grid law and the bracketed modes (engine ``drawn_expanding``):
``tests/features/engines/drawn_expanding/test_round_law_file.py``.
"""

from __future__ import annotations

import json
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

from analytic import __version__
from analytic.model.loader import load_model
from analytic.solver.distribution import round_law
from analytic.solver.round import solve_round
from analytic.solver.round_law_file import law_from_json, law_to_json, saved_round_law, session_from_law
from analytic.solver.session import SessionRules, figures, session_law, solve_session, split_round_law

CASES = Path(__file__).resolve().parents[1] / "cases"
SHA = "0" * 64

#: Stop settings (besides balance and rounds); the feature stop only where the mode starts a feature.
STOPS = [
    {},
    {"stop_on_any_win": True},
    {"stop_single_win_above": F(20), "stop_cash_up": F(30), "stop_cash_down": F(15)},
    {"stop_cash_up": F(25), "bet_ladder": (F(1, 2), F(1))},
]
FEATURE_STOPS = [{"stop_on_feature": True}, {"stop_on_feature": True, "stop_on_any_win": True,
                                             "stop_single_win_above": F(50), "stop_cash_up": F(40),
                                             "stop_cash_down": F(20)}]


def _direct(game, r, rules, method="auto"):
    """The chain on the solved round itself (the oracle, see the module docstring)."""
    law = round_law(r)
    if rules.stop_on_feature:
        nof, feat, e = split_round_law(r, law)
        err = law.error + e
    else:
        nof, feat, err = dict(law.points), {}, law.error
    cap = game.cap.currency if game.cap is not None and game.cap.currency else None
    return figures(session_law(rules, nof, feat, r.cost, law_error=err, mean_win=r.mean_win, cap_currency=cap,
                               method=method))


def _through_file(game, r, mode):
    saved = saved_round_law(game, mode, r)
    text = json.dumps(law_to_json(saved, model="m.toml", sha256=SHA, solver_version=__version__))
    back = law_from_json(json.loads(text), "law.json", game=game, sha256=SHA, solver_version=__version__,
                         mode=mode)
    assert back == saved
    return back


def same(a, b) -> None:
    """Every figure and every array of the two results equal (bit for bit)."""
    assert a.to_json() == b.to_json()
    assert a.method == b.method and a.error == b.error
    for x, y in ((a.law, b.law),) + (((a.bracket["law_hi"], b.bracket["law_hi"]),) if a.bracket else ()):
        assert x.offset == y.offset and x.grid == y.grid
        assert np.array_equal(x.final, y.final)
        for k in x.reason_time:
            assert np.array_equal(x.reason_time[k], y.reason_time[k]), k
    assert np.array_equal(a.rounds_law, b.rounds_law)
    assert a.balance_quantiles == b.balance_quantiles and a.rounds_quantiles == b.rounds_quantiles


@pytest.fixture(scope="module")
def solved():
    out = {}
    for name in ("sizzling_hot_95", "red_white_blue", "book_of_ra_deluxe_95"):
        g = load_model(CASES / f"{name}.toml")
        m = g.default_mode.name
        r = solve_round(g, m)
        out[name] = (g, m, r, _through_file(g, r, m))
    return out


@pytest.mark.parametrize("name", ["sizzling_hot_95", "red_white_blue", "book_of_ra_deluxe_95"])
@pytest.mark.parametrize("stops", STOPS + FEATURE_STOPS)
def test_saved_law_gives_the_fresh_solves_figures(solved, name, stops):
    game, mode, r, back = solved[name]
    if stops.get("stop_on_feature") and not game.features:
        pytest.skip("no feature")
    rules = SessionRules(balance=F(30), rounds=60, **stops)
    want = _direct(game, r, rules)
    same(session_from_law(game, back, rules), want)
    same(solve_session(game, mode, rules, result=r), want)


def test_exact_method_kept_and_the_law_kind(solved):
    game, mode, r, back = solved["sizzling_hot_95"]
    assert back.kind == "law" and back.error == 0 and all(isinstance(p, F) for _, p in back.points)
    assert sum(p for _, p in back.points) == 1
    rules = SessionRules(balance=F(10), rounds=20, stop_cash_up=F(10))
    got = session_from_law(game, back, rules, method="exact")
    assert got.method == "exact"
    same(got, _direct(game, r, rules, method="exact"))


def test_certified_law_with_its_split(solved):
    game, mode, r, back = solved["book_of_ra_deluxe_95"]
    assert back.error > 0 and back.features == {"free_spins"} and isinstance(back.split, tuple)
    assert len(back.split[1]) > 0  # the feature rounds' law


def test_numbers_beyond_python_s_decimal_limit_round_trip(solved):
    """A probability whose denominator has 5,726 digits (Python refuses to print an int of more than
    4,300 in decimal): written in hexadecimal, read back equal."""
    from analytic.figures import Figure
    from analytic.solver.round_law_file import SavedRoundLaw

    game, mode, _, _ = solved["sizzling_hot_95"]
    x = F(1, 3 ** 12000)
    saved = SavedRoundLaw(mode, "law", F(1), Figure(2 * x), frozenset(), points=((F(0), 1 - x), (F(2), x)),
                          error=F(0), split=None)
    d = law_to_json(saved, model="m.toml", sha256=SHA, solver_version=__version__)
    assert d["law"]["points"][1][1].startswith("0x1/0x")
    assert law_from_json(json.loads(json.dumps(d)), "law.json", game=game, sha256=SHA,
                         solver_version=__version__, mode=mode) == saved


def _edited(solved, points):
    game, mode, _, saved = solved["sizzling_hot_95"]
    d = law_to_json(saved, model="m.toml", sha256=SHA, solver_version=__version__)
    d["law"]["points"], d["split"] = points, None
    return lambda: law_from_json(json.loads(json.dumps(d)), "law.json", game=game, sha256=SHA,
                                 solver_version=__version__, mode=mode)


def test_a_huge_hexadecimal_number_is_refused_before_any_arithmetic(solved):
    """A part of 80,000 bits (20,000 hex digits; a file of 4 MB with 2 million digits took over 40 s to
    normalise by gcd before): refused by its size, naming the value."""
    from analytic.errors import ModelError
    from analytic.solver.round_law_file import MAX_BITS

    big = 3 ** 50_500  # 80,039 bits: the law (1 - 3^-500, 3^-500) adds up to 1 (accepted before)
    assert big.bit_length() > MAX_BITS
    small = 3 ** 50_000
    read = _edited(solved, [["0/1", f"{hex(big - small)}/{hex(big)}"], ["2/1", f"{hex(small)}/{hex(big)}"]])
    with pytest.raises(ModelError) as e:
        read()
    assert e.value.key == "law.points[0][1]" and "hexadecimal parts of at most" in e.value.reason


def test_a_law_whose_common_denominator_explodes_is_refused_before_its_exact_total(solved):
    """40 probabilities over distinct 600-digit primes-like denominators, adding up to 1 within 1e-12 in
    floats: their exact total needs a common denominator of ~80,000 bits (a file of 5,000 such took more
    than 2 minutes before); refused by the denominator's size."""
    import random

    from analytic.errors import ModelError

    rng = random.Random(7)
    n, pts = 40, []
    for i in range(n):
        q = rng.randrange(10 ** 599, 10 ** 600) | 1
        pts.append([f"{i}/1", f"{q // n}/{q}"])
    with pytest.raises(ModelError) as e:
        _edited(solved, pts)()
    assert e.value.key == "law.points" and "common denominator has more than" in e.value.reason


def test_the_writer_refuses_a_number_the_reader_would_refuse():
    from analytic.solver.round_law_file import MAX_BITS, _num

    assert _num(F(1, 2 ** MAX_BITS - 1)) == f"0x1/{hex(2 ** MAX_BITS - 1)}"
    with pytest.raises(ValueError):
        _num(F(1, 2 ** MAX_BITS))


@pytest.mark.parametrize("where", ["win", "negative win", "mean_win"])
def test_a_number_beyond_the_float64_range_is_refused_not_a_traceback(solved, where):
    """A hand-edited win (or mean win) of 10^400 (a decimal part within the 4,000 digits allowed):
    formatting it in the refusal (float(x)) raised OverflowError before; now refused by its size."""
    from analytic.errors import ModelError

    game, mode, _, saved = solved["sizzling_hot_95"]
    d = law_to_json(saved, model="m.toml", sha256=SHA, solver_version=__version__)
    big = f"{10 ** 400}/1"
    if where == "mean_win":
        d["mean_win"]["value"], key = big, "mean_win.value"
    else:
        d["law"]["points"][1][0] = ("-" if where == "negative win" else "") + big
        key = "law.points[1][0]"
    with pytest.raises(ModelError) as e:
        law_from_json(json.loads(json.dumps(d)), "law.json", game=game, sha256=SHA,
                      solver_version=__version__, mode=mode)
    assert e.value.key == key
