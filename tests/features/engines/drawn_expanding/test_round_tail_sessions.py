"""Bracketed sessions of a round without a law (issue 23), on the tiny one-row game of ``test_drawn_oracles``.

Oracle written here: the round's law by enumeration -- the base game's 1,024 windows
(``test_round_tail._base_outcomes``) and the regular feature's win by the path recursion
(``test_draw_cap_law._oracle``, every draw enumerated, paths beyond one award dropped) -- gives
two laws, the dropped mass and the 5-book trigger (not recursed) put at 0 and at the cap: the true
round law lies between them in the usual order.  The session chain
(:func:`analytic.solver.session.run_session`, itself checked against every path in
``tests/solver/test_session.py``) on each gives an interval holding every monotone figure of the
true session.  The certified figures of ``solve_session`` (the engine's bounds, the two grid laws,
the coupling) must meet each such interval, for each stop rule; a bet ladder is refused.
"""

from __future__ import annotations

from fractions import Fraction as F
from functools import lru_cache

import pytest

from test_round_tail import PRECISIONS, C, _base_outcomes, _feature, _rounds

from analytic.solver.session import QUANTILES, SessionRefused, SessionRules, run_session, solve_session


@lru_cache(maxsize=None)
def _oracle_laws():
    """``(no-feature law, feature law with the unknown at 0, the same at the cap)`` (Fractions)."""
    r = _rounds()["base"]
    counts = r.game.features["free_spins"].trigger.counts
    nof: dict = {}
    lo: dict = {}
    hi: dict = {}

    def add(d, w, p):
        d[w] = d.get(w, F(0)) + p

    for (books, B), p in _base_outcomes(r.game).items():
        p = F(p)
        if books == 0:
            add(nof, F(min(B, C)), p)
            continue
        if counts[books] > 3:  # not recursed: anywhere in [0, C]
            add(lo, F(0), p)
            add(hi, F(C), p)
            continue
        law, lost = _feature(counts[books])
        for w, q in law.items():
            add(lo, F(min(B + w, C)), p * F(q))
            add(hi, F(min(B + w, C)), p * F(q))
        add(lo, F(0), p * F(lost))
        add(hi, F(C), p * F(lost))
    return nof, lo, hi


SETTINGS = [
    dict(),
    dict(stop_on_feature=True, stop_single_win_above=F(6), stop_cash_up=F(8), stop_cash_down=F(4)),
    dict(stop_on_any_win=True),
    dict(stop_on_any_win=True, stop_on_feature=True),
    dict(stop_single_win_above=F(6)),
    dict(stop_cash_up=F(8)),
    dict(stop_cash_down=F(3)),
]


def _meet(fig, a, b, tol=1e-9):
    lo, hi = min(a, b) - tol, max(a, b) + tol
    return float(fig.value - fig.error) <= hi and lo <= float(fig.value + fig.error)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("setting", range(len(SETTINGS)))
def test_certified_session_meets_the_enumerated_law(setting, precision):
    r = _rounds(precision)["base"]
    rules = SessionRules(balance=F(6), rounds=25, **SETTINGS[setting])
    got = solve_session(r.game, "base", rules, result=r)
    assert got.method == "bounded"
    nof, lo, hi = _oracle_laws()
    assert abs(sum(nof.values()) + sum(lo.values()) - 1) < 1e-12
    oa = run_session(nof, lo, F(1), rules, method="certified")
    ob = run_session(nof, hi, F(1), rules, method="certified")
    tol = 1e-9 + oa.error + ob.error
    for why, fig in got.reasons.items():
        assert _meet(fig, float(oa.reasons[why].value), float(ob.reasons[why].value), tol), (why, fig)
    assert _meet(got.ruin, float(oa.ruin.value), float(ob.ruin.value), tol)
    assert _meet(got.rounds_mean, float(oa.rounds_mean.value), float(ob.rounds_mean.value), 1e-6)
    assert _meet(got.balance_mean, float(oa.balance_mean.value), float(ob.balance_mean.value), 1e-6)
    if "final balance" not in got.notes:
        assert _meet(got.p_above_start, float(oa.p_above_start.value), float(ob.p_above_start.value), tol)
        for q in QUANTILES:
            a_lo, _ = oa.balance_quantiles[q]
            _, b_hi = ob.balance_quantiles[q]
            g_lo, g_hi = got.balance_quantiles[q]
            assert g_lo <= max(a_lo, b_hi) and min(a_lo, b_hi) <= g_hi, (q, got.balance_quantiles[q])
    for q in QUANTILES:
        (a_lo, a_hi), (b_lo, b_hi), (g_lo, g_hi) = oa.rounds_quantiles[q], ob.rounds_quantiles[q], \
            got.rounds_quantiles[q]
        assert g_lo <= max(a_hi, b_hi) and min(a_lo, b_lo) <= g_hi
    # the command's table says what the figures are, and why some are only trivially bracketed
    from analytic.cli.session import format_table

    txt = format_table(got, rules)
    assert "(two chains bracketing a round without a law)" in txt and txt.split()[1] == "bounded"
    assert all(f"note: {k}" in txt for k in got.notes if k != "return experienced")
    # not vacuous: the reasons' brackets are narrower than the trigger's probability allows
    if SETTINGS[setting].get("stop_on_feature"):
        assert all(f.error < 0.05 for f in got.reasons.values())


def test_bet_ladder_and_exact_method_refused():
    r = _rounds()["base"]
    with pytest.raises(SessionRefused, match="bet ladder"):
        solve_session(r.game, "base", SessionRules(balance=F(6), bet=F(2), bet_ladder=(F(1), F(2))), result=r)
    with pytest.raises(SessionRefused, match="never exact"):
        solve_session(r.game, "base", SessionRules(balance=F(6)), result=r, method="exact")


def test_par_sheet_session_section_is_bounded():
    """The tiny game's sheet: the session section of a mode without a law holds bracketed figures
    (horizons shortened by tests/conftest.py), labelled bounded, in Markdown and JSON; its widest
    horizon's risk of ruin meets the enumerated laws' chains."""
    import json

    from analytic.reports.json_ import render_json
    from analytic.reports.markdown import render_markdown
    from analytic.reports.model import build_sheet

    r = _rounds()["base"]
    sheet = build_sheet(r.game, {"base": r})
    sec = sheet.modes[0].session
    assert not sec.refused and sec.horizons and "bounded: the round has no law" in sec.note
    h = sec.horizons[-1]
    assert h.method == "bounded" and h.ruin.label == "bounded"
    nof, lo, hi = _oracle_laws()
    rules = SessionRules(balance=sec.start, rounds=h.rounds)
    oa = run_session(nof, lo, F(1), rules, method="certified")
    ob = run_session(nof, hi, F(1), rules, method="certified")
    assert _meet(h.ruin, float(oa.ruin.value), float(ob.ruin.value), 1e-9)
    assert all(lv_lo <= lv_hi for _, lv_lo, lv_hi in h.quantiles)
    md = render_markdown(sheet)
    assert "bounded: the round has no law" in md
    d = json.loads(render_json(sheet))
    assert d["modes"][0]["session"]["horizons"][-1]["method"] == "bounded"


def _variant(cap: bool = True):
    """The tiny game with a mode ``plain`` on the base strips with every book a ten (it can start no
    feature), and without its win cap when ``cap`` is false."""
    from test_drawn_oracles import TINY, with_reading

    from analytic.model.loader import load_model_text

    text = with_reading(TINY.replace("CAP", str(C)), False)
    base = text.split("base = [", 1)[1].split("\n]", 1)[0]
    plain = base.replace('"power_book"', '"ten"').replace('"book"', '"ten"')
    text = text.replace("\nfree = [", f"\nplain = [{plain}\n]\nfree = [", 1)
    text = text.replace("[modes.buy_free_spins]", '[modes.plain]\ncost = 1\nreels = "plain"\n\n[modes.buy_free_spins]', 1)
    if not cap:
        text = text.replace(f"[cap]\ntotal_bet_multiple = {C}\n", "", 1)
    return load_model_text(text, path="tiny_bop_variant.toml")


@pytest.mark.parametrize("cap", [True, False])
def test_kind_before_the_solve_agrees_with_the_solved_round(cap):
    """``round_law_kind`` (from the model alone) against the solved round of every mode: bracketed
    (``bracketed(game, r)``), a certified grid law (the Power buy), a law (a mode starting no feature)
    or, without a win cap, neither (``round_law`` gives no points, nothing to bracket by)."""
    from analytic.solver.distribution import round_law
    from analytic.solver.round import solve_round
    from analytic.solver.session import bracketed, round_law_kind
    from analytic.workspace import Workspace

    game = _variant(cap)
    ws = Workspace(game)
    want = ({"base": "bracketed", "plain": "law", "buy_free_spins": "bracketed", "buy_power_free_spins": "grid"}
            if cap else {"base": "none", "plain": "law", "buy_free_spins": "none", "buy_power_free_spins": "none"})
    assert list(game.modes) == ["base", "plain", "buy_free_spins", "buy_power_free_spins"]
    for mode in game.modes:
        kind, key, why = round_law_kind(game, mode)
        assert kind == want[mode], mode
        r = solve_round(game, mode, workspace=ws)
        law = round_law(r)
        assert bracketed(game, r) == (kind == "bracketed"), mode
        assert (law.points is None) == (kind in ("bracketed", "none")), mode
        if kind == "grid":
            assert law.error > 0 or law.method == "grid"
        if kind == "law":
            assert law.points is not None and law.error == 0 and set(law.points) - {F(0)}
        if kind == "none":
            assert key == "cap" and "total_bet_multiple" in why


def test_cli_session_workers_same_figures(tmp_path, capsys):
    """``analytic session`` solves the round as ``solve`` does (its prefetch; the cap bounds' worker processes
    with ``--workers 2``): the same JSON as with one process; ``--cap-precision`` beside a saved law refused."""
    import json

    from test_drawn_oracles import TINY, with_reading

    from analytic.cli import main

    path = tmp_path / "tiny_bop.toml"
    path.write_text(with_reading(TINY.replace("CAP", str(C)), False), encoding="utf-8")
    argv = ["session", str(path), "--balance", "20", "--rounds", "30", "--stop-cash-up", "8", "--format", "json"]
    outs = []
    for w in ("1", "2"):
        rc = main(argv + ["--workers", w])
        cap = capsys.readouterr()
        assert rc == 0, cap.err
        outs.append(cap.out)
    assert outs[0] == outs[1]
    assert json.loads(outs[0])["method"] == "bounded"
    rc = main(argv + ["--round-law", str(tmp_path / "law.json"), "--cap-precision", "certify"])
    cap = capsys.readouterr()
    assert rc == 2 and not cap.out and cap.err.startswith("error: --cap-precision: "), cap.err
