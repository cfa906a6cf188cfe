"""The par sheet's session section against hand-counted laws, every path, and an independent chain.

Tiny game: 2 reels, 1 row, one payline, each reel ``[a, b, s]`` (9 stop
combinations, total bet 1): ``a a`` pays 3 (1/9); ``s s`` starts a pick
bonus paying 5 or 10 (1/18 each); else 0 (7/9).  Hand count of the round's
law: ``NOF`` (rounds without a feature) and ``FEAT`` (with one).

Oracles, none of them the session code: ``brute`` of
``tests/solver/test_session.py`` (every sequence of round outcomes) for short
horizons; ``_chain`` below (a dictionary of balances stepped in Fractions,
written here from the rules of docs/sessions.md) for 60 rounds, where the
section's certified chain takes mass out of its upper tail.
"""

from __future__ import annotations

import bisect
import math
import dataclasses
import json
import shutil
import subprocess
from collections import defaultdict
from fractions import Fraction as F
from types import SimpleNamespace
from pathlib import Path

import pytest

from analytic.errors import ModelError
from analytic.model.loader import load_model, load_model_text
from analytic.reports.model import build_sheet, session_section
from analytic.solver.round import solve_round
from analytic.solver.session import SessionRules, summary_results
from tests.solver.test_session import brute

TINY = """
[game]
name = "tiny sessions"
reels = 2
rows = 1
[symbols]
a = "regular"
b = "blank"
s = "scatter"
[paytable]
a = { 2 = 3 }
[paylines]
lines = [[0, 0]]
[scatter]
symbols = ["s"]
pays = { 2 = 0 }
[reels]
base = [["a", "b", "s"], ["a", "b", "s"]]
[modes.base]
cost = 1
reels = "base"
[features.pick]
kind = "pick_bonus"
trigger = { symbols = ["s"], counts = { 2 = 1 } }
picks = { 1 = 1 }
prizes = [[5, 1], [10, 1]]
"""
AUTOPLAY = '\n[autoplay]\nstops = ["feature", "cash_down", "single_win", "cash_up", "any_win"]\n'
NOF = {F(0): F(7, 9), F(3): F(1, 9)}
FEAT = {F(5): F(1, 18), F(10): F(1, 18)}
LAW = {**NOF, **FEAT}
MODELS = Path(__file__).resolve().parents[2] / "models"


def _game(autoplay=True):
    return load_model_text(TINY + (AUTOPLAY if autoplay else ""), "tiny.toml")


def _quantile(law: dict, q: F):
    """Smallest x with P(B <= x) >= q."""
    xs = sorted(law)
    cdf, acc = [], F(0)
    for x in xs:
        acc += law[x]
        cdf.append(acc)
    return xs[bisect.bisect_left(cdf, q)]


def _final(paths: dict) -> dict:
    out: dict = defaultdict(F)
    for k, p in paths.items():
        out[k[2]] += p
    return out


def _check_horizon(h, final: dict, ruin: F, ruin_mean, start: F):
    E = F(h.error)
    near = (lambda a, b: a == b) if h.method == "exact" else (lambda a, b: abs(F(a) - b) <= E + F(1, 10**14))
    assert near(h.ruin.value, ruin)
    assert near(h.p_above_start.value, sum((p for b, p in final.items() if b > start), F(0)))
    mean = sum((b * p for b, p in final.items()), F(0))
    assert abs(h.balance_mean.value - mean) <= h.balance_mean.error + (0 if h.method == "exact" else F(1, 10**9))
    for lv, lo, hi in h.quantiles:
        assert lo <= _quantile(final, lv) <= hi, (h.rounds, lv, lo, hi)
        if h.method == "exact":
            assert lo == hi
    if ruin_mean is not None and h.method == "exact":
        assert h.rounds_to_ruin.value == ruin_mean


def test_round_law_is_the_hand_count():
    from analytic.solver.distribution import round_law

    law = round_law(solve_round(_game(), "base"))
    assert {w: p for w, p in law.points.items() if p} == LAW and law.error == 0


def test_horizons_and_autoplay_against_every_path():
    game = _game()
    auto = dict(rounds=4, stop_on_feature=True, stop_single_win_above=F(4), stop_cash_up=F(4),
                stop_cash_down=F(2))
    sec = session_section(game, solve_round(game, "base"), {"balance": 3, "rounds": (1, 3, 5), "autoplay": auto})
    assert not sec.refused and sec.start == 3
    assert [h.rounds for h in sec.horizons] == [1, 3, 5]
    for h in sec.horizons:
        paths = brute(SessionRules(balance=F(3), rounds=h.rounds), LAW, {}, F(1))
        pr = sum((p for k, p in paths.items() if k[0] == "ruin"), F(0))
        rm = sum((k[1] * p for k, p in paths.items() if k[0] == "ruin"), F(0)) / pr if pr else None
        assert h.method == "exact"
        _check_horizon(h, _final(paths), pr, rm, F(3))
    # the curve's risk of ruin at 1 .. 5 rounds: every path of that many rounds
    for t, _, r in sec.curve:
        paths = brute(SessionRules(balance=F(3), rounds=t), LAW, {}, F(1))
        assert r == pytest.approx(float(sum((p for k, p in paths.items() if k[0] == "ruin"), F(0))), abs=1e-15)
    # autoplay: the probability of each stop, every path of the feature / no-feature law
    a = sec.autoplay
    paths = brute(SessionRules(balance=F(3), **auto), NOF, FEAT, F(1))
    names = {"if a feature is won": "feature", "if a single win reaches": "single win",
             "if cash increases by": "cash up", "if cash decreases by": "cash down",
             "ruin (balance below one bet)": "ruin", "rounds played out": "rounds"}
    assert a.method == "exact"
    got = {names[n]: f.value for n, f in a.reasons}
    assert got == {w: sum((p for k, p in paths.items() if k[0] == w), F(0)) for w in got}
    assert sum(got.values()) == 1 and got["feature"] > 0 and got["cash down"] > 0
    assert a.rounds_mean.value == sum((k[1] * p for k, p in paths.items()), F(0))
    assert dict(a.setting)["if cash decreases by"] == "2"
    # "on any win" is offered by the rules but off in the default setting: named in the note
    assert "offered but off in this setting: any win" in sec.autoplay_note


def _chain(start: F, rounds: int, law: dict) -> tuple[dict, F, list]:
    """Final balance law, P(ruin), P(ruin within t) for t = 0 .. rounds: the balance stepped round by
    round in Fractions (a round costs 1; ruin when the balance is below 1)."""
    live = {start: F(1)}
    final: dict = defaultdict(F)
    ruin, by_t = F(0), [F(0)]
    for _ in range(rounds):
        nxt: dict = defaultdict(F)
        for b, p in live.items():
            for w, q in law.items():
                nb = b - 1 + w
                if nb < 1:
                    final[nb] += p * q
                    ruin += p * q
                else:
                    nxt[nb] += p * q
        live = nxt
        by_t.append(ruin)
    for b, p in live.items():
        final[b] += p
    return dict(final), ruin, by_t


def test_certified_long_horizon_against_an_independent_chain():
    """60 rounds from 3: the certified chain (tail taken out, every horizon read off one chain)
    against the exact balance law of the oracle chain."""
    game = _game(autoplay=False)
    got = summary_results(game, "base", result=solve_round(game, "base"), rounds=(10, 25, 60), balance=3,
                          method="certified")
    assert got.autoplay is None
    long = got.horizons[60]
    assert 0 < long.law.lumped < 60 * 1e-8  # the upper tail was taken out, at most LUMP a round
    for n, x in got.horizons.items():
        final, ruin, by_t = _chain(F(3), n, LAW)
        assert x.method == "certified" and 0 < x.error < 1e-9
        h = session_section.__globals__["_horizon"](n, x)
        _check_horizon(h, final, ruin, None, F(3))
    _, _, by_t = _chain(F(3), 60, LAW)
    for t in range(61):
        assert abs(float(got.ruin_by_round[t]) - float(by_t[t])) <= long.error + 1e-15


def test_refusals_in_one_line(monkeypatch):
    # a round without a law nor bounds to bracket it (engine drawn_expanding): the reason in one line
    import analytic.solver.session as session

    def refuse(game, r):
        raise session.SessionRefused("the round's law of this mode is not available: no bounds (a test)")

    monkeypatch.setattr(session, "_bounded_laws", refuse)
    bop = load_model(MODELS / "book_of_power.toml")
    sec = session_section(bop, SimpleNamespace(mode="base", cost=F(1)))
    assert sec.refused.startswith("No session figures: the round's law of this mode is not available")
    assert "no bounds (a test)" in sec.refused and "\n" not in sec.refused
    assert sec.horizons == () and sec.autoplay is None
    # a start below one round's price
    game = _game()
    sec = session_section(game, solve_round(game, "base"), {"balance": F(1, 2), "rounds": (2,)})
    assert "does not pay one round" in sec.refused and sec.horizons == ()


def test_autoplay_key():
    game = _game(autoplay=False)
    sec = session_section(game, solve_round(game, "base"), {"balance": 3, "rounds": (2,)})
    assert sec.autoplay is None and "no autoplay stop options" in sec.autoplay_note
    for bad, where in (('stops = ["sometimes"]', "autoplay.stops[0]"), ('stops = ["feature", "feature"]',
                                                                          "autoplay.stops[1]"),
                       ('stops = "feature"', "autoplay.stops"), ('stop = ["feature"]', "autoplay")):
        with pytest.raises(ModelError, match=f"tiny.toml: {where.replace('[', '.').replace(']', '')}|"
                                             f"tiny.toml: {where}".replace("[", r"\[").replace("]", r"\]")):
            load_model_text(TINY + "\n[autoplay]\n" + bad + "\n", "tiny.toml")
    # a feature stop in a game without features was accepted, its probability printed as [0, 1.6e-12]
    # (session --stop-on-feature refuses the same setting)
    no_features = TINY[:TINY.index("[features.pick]")]
    with pytest.raises(ModelError, match=r"tiny\.toml: autoplay\.stops\[1\]: 'feature' .* no \[features\]"):
        load_model_text(no_features + '\n[autoplay]\nstops = ["cash_up", "feature"]\n', "tiny.toml")
    assert load_model_text(no_features + '\n[autoplay]\nstops = ["cash_up"]\n', "tiny.toml").autoplay_stops == (
        "cash_up",)
    # the key's options turn the default setting's stops on (cash down only: no feature stop)
    game = load_model_text(TINY + '\n[autoplay]\nstops = ["cash_down"]\n', "tiny.toml")
    sec = session_section(game, solve_round(game, "base"), {"balance": 3, "rounds": (2,)})
    assert dict(sec.autoplay.setting) == {"rounds (at most)": "1,000", "if cash decreases by": "50"}


def test_every_format_has_the_section(tmp_path):
    from analytic.reports.markdown import render_markdown
    from analytic.reports.write import write_reports

    game = load_model_text(TINY + AUTOPLAY, str(tmp_path / "tiny.toml"))
    sheet = build_sheet(game, session={"balance": 3, "rounds": (2, 4)})
    write_reports(sheet, str(tmp_path / "out"))
    md = (tmp_path / "out" / "tiny.md").read_text()
    for text in ("### Sessions", "| rounds | mean balance | 5% quantile", "#### Autoplay", "| if a feature is won | on |",
                 "| if cash decreases by | 50 |", "rounds played out"):
        assert text in md, text
    d = json.loads((tmp_path / "out" / "tiny.json").read_text())["modes"][0]["session"]
    assert [h["rounds"] for h in d["horizons"]] == [2, 4]
    assert d["horizons"][0]["ruin"]["label"] == "exact" and d["autoplay"]["reasons"]["if a feature is won"]
    import openpyxl

    ws = openpyxl.load_workbook(tmp_path / "out" / "tiny.xlsx")["Sessions"]
    cells = [c.value for row in ws.iter_rows() for c in row if c.value is not None]
    assert "if a feature is won" in cells and 4 in cells
    pdf = tmp_path / "out" / "tiny.pdf"
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
        assert "Sessions" in text and "Autoplay" in text and "if a feature is won" in text
    # a refused mode: its one line in place of the tables
    m = sheet.modes[0]
    refused = dataclasses.replace(m.session, refused="No session figures: because.", horizons=(), autoplay=None)
    md = render_markdown(dataclasses.replace(sheet, modes=(dataclasses.replace(m, session=refused),)))
    part = md[md.index("### Sessions"):md.index("### Methods")]
    assert part.strip().splitlines() == ["### Sessions", "", "No session figures: because."]


def test_tail_taken_out_only_where_it_can_no_longer_fall_to_the_start():
    """A walk of +-1 bet whose upper tail (mass at most 1e-8 after 3 rounds) could still fall back to
    ruin within the rounds left: nothing may be taken out there."""
    from analytic.solver.session import run_session

    law = {F(0): F(999, 1000), F(2): F(1, 1000)}
    for n in (6, 20):
        x = run_session(law, {}, F(1), SessionRules(balance=F(4), rounds=n), method="certified", lump_high=True)
        final, ruin, _ = _chain(F(4), n, law)
        h = session_section.__globals__["_horizon"](n, x)
        _check_horizon(h, final, ruin, None, F(4))
        assert x.error < 1e-12


def test_feature_buy_sessions_start_at_100_buys(monkeypatch):
    """A feature-buy mode's sessions start from 100 buys' price and keep every horizon, the one above
    COARSE_ROUNDS on the coarse grid (bounded); each buy pays 5 or 10 (1/2 each) for a price of 7, so no
    session of at most 30 rounds is ruined and the balance after n rounds is 700 + sum of n (win - 7):
    mean 700 + n/2, P(above the start) a binomial tail."""
    import analytic.solver.session as session
    import analytic.solver.session_bounds as sb

    monkeypatch.setitem(session.DEFAULT_SUMMARY, "rounds", (10, 20, 30))
    monkeypatch.setattr(sb, "COARSE_ROUNDS", 20)
    monkeypatch.setattr(sb, "COARSE_STEPS", 2)  # the price of 7 spans 7 points of the fine grid: above 2
    game = load_model_text(TINY + '\n[modes.buy]\ncost = 7\nbuys = "pick"\nbuy_counts = { 2 = 1 }\n', "tiny.toml")
    sec = session_section(game, solve_round(game, "buy"))
    assert not sec.refused and sec.start == 700
    assert [h.rounds for h in sec.horizons] == [10, 20, 30]
    assert [h.method for h in sec.horizons] == ["exact", "exact", "bounded"]  # the fine chain: exact (small)
    assert "100 buys' price" in sec.note and "30 rounds bounded on a coarse grid" in sec.note
    assert "grid of 3.5 (the price over 2)" in sec.note
    for h in sec.horizons:
        n = h.rounds
        # k wins of 10 among n: balance 700 + 3k - 2(n - k) = 700 + 5k - 2n > 700  <=>  k > 2n/5
        above = sum((F(math.comb(n, k), 2**n) for k in range(n + 1) if 5 * k > 2 * n), F(0))
        E = F(h.error) + F(1, 10**12)
        tol = E if h.method != "bounded" else F(1, 10**12)  # a bracket: its half-width holds the error
        assert abs(h.balance_mean.value - (700 + F(n, 2))) <= h.balance_mean.error + tol
        assert abs(h.p_above_start.value - above) <= h.p_above_start.error + tol
        assert h.ruin.value - h.ruin.error <= tol
    # the base mode keeps its start of 100 bets and every horizon on its fine grid (a price of 1 point)
    base = session_section(game, solve_round(game, "base"))
    assert base.start == 100 and [h.rounds for h in base.horizons] == [10, 20, 30]
    assert "coarse" not in base.note and {h.method for h in base.horizons} != {"bounded"}


def test_a_bracketed_probability_is_printed_inside_0_and_1():
    """A session probability certified as ``0 +/- e`` (or ``1 +/- e``) is the interval [0, e] ([1 - e, 1]):
    a probability's bracket never shows a negative end or one above 1 (hand-made figures)."""
    from fractions import Fraction

    from analytic.figures import Figure
    from analytic.reports.format import prob_text

    e = Fraction(11, 10**7)
    assert prob_text(Figure(Fraction(0), "bounded", e)) == "[0, 1.1e-06]"
    assert prob_text(Figure(Fraction(999, 1000), "bounded", Fraction(1, 100))) == "[0.989, 1]"
    assert prob_text(Figure(Fraction(1, 2), "bounded", Fraction(1, 10))) == "[0.4, 0.6]"


def test_an_interval_whose_ends_print_alike_is_never_shown_as_two_equal_ends():
    """A bracket narrower than 4 digits shows as many digits as keep it tight (never
    ``[0.353, 0.353]``); a quantile interval whose ends print alike, and a "1 in" range likewise, are
    one value; every end rounded outward (hand-made figures)."""
    from fractions import Fraction

    from analytic.figures import Figure
    from analytic.reports.format import _one_in_range, prob_text, quantile_text

    # 0.35302 +/- 2e-6: [0.353018, 0.353022]
    assert prob_text(Figure(Fraction(35302, 10**5), "bounded", Fraction(2, 10**6))) == "[0.353018, 0.353022]"
    assert quantile_text(Fraction(19, 2), Fraction(19, 2)) == "9.50"
    assert quantile_text(Fraction(9501, 1000), Fraction(9502, 1000)) == "9.50 .. 9.51"  # not "9.50": outside
    assert quantile_text(Fraction(19, 2), Fraction(10)) == "9.50 .. 10"
    # 1 / 0.1749263303 = 5.7167..., 1 / 0.1749406641 = 5.7162...: 5.71 .. 5.72 outward ("5.72" alone
    # would leave the interval out)
    assert _one_in_range(Fraction(1749263303, 10**10), Fraction(1749406641, 10**10)) == "1 in 5.71 .. 5.72"
    assert _one_in_range(Fraction(1, 4), Fraction(1, 4)) == "1 in 4.00"
    assert _one_in_range(Fraction(1, 10), Fraction(1, 5)) == "1 in 5.00 .. 10.00"
    assert _one_in_range(Fraction(0), Fraction(1, 5)) == "1 in 5.00 or rarer"


def test_a_bracketed_horizon_is_labelled_bounded_not_certified():
    """The horizons table's label of a bracketed session (method ``bounded``) says so; a certified one
    keeps its error (hand-made horizons)."""
    from fractions import Fraction
    from types import SimpleNamespace

    from analytic.figures import Figure
    from analytic.reports.format import session_rows

    fig = Figure(Fraction(1, 2), "bounded", Fraction(1, 10))
    rows = [SimpleNamespace(rounds=10, method=m, error=Fraction(1, 10**6), balance_mean=fig,
                            quantiles=((Fraction(1, 2), Fraction(3), Fraction(3)),), p_above_start=fig, ruin=fig,
                            rounds_to_ruin=None) for m in ("bounded", "certified")]
    _, out = session_rows(SimpleNamespace(horizons=rows), (Fraction(1, 2),))
    assert out[0][-1] == "bounded (bracket)" and out[1][-1] == "certified ± 1e-06"
    assert out[0][2] == "3"  # the quantile interval [3, 3]: one value
