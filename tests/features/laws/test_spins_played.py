"""The law of the spins played and the retriggers (analytic.features.laws.spins_played).

Oracles: brute-force enumeration of every sequence of awards (exact
fractions, written here), Wald's expected spins of the feature solvers (a
different method), and the simulator (behind ANALYTIC_SLOW=1).
"""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from analytic.features.laws.spins_played import ceiling_law, count_law, fixed_law, hitting_law, mix

ROOT = Path(__file__).resolve().parents[3]


def brute(n0: int, w: dict, depth: int, ceiling: int | None = None) -> dict:
    """``(N, R) -> probability`` over every award sequence of at most ``depth`` spins (plays cut at
    ``depth`` are left out), with the ceiling rule ``min(left - 1 + a, ceiling - played)``."""
    C = sum(w.values())
    out: dict = {}

    def rec(left, played, r, p):
        if left == 0:
            out[(played, r)] = out.get((played, r), 0) + p
            return
        if played >= depth:
            return
        for a, c in w.items():
            nl = left - 1 + a
            if ceiling is not None:
                nl = min(nl, ceiling - played - 1)
            rec(nl, played + 1, r + (a > 0), p * Fraction(c, C))

    rec(n0, 0, 0, Fraction(1))
    return out


def marginal(joint: dict, i: int) -> dict:
    m: dict = {}
    for k, p in joint.items():
        m[k[i]] = m.get(k[i], 0) + p
    return m


LAWS = [
    (1, {0: 3, 1: 1}),             # geometric-like: every award one spin
    (2, {0: 5, 1: 2, 3: 1}),       # mixed awards
    (3, {0: 9, 2: 1}),             # gcd 2: only every other count
    (2, {0: 7, 2: 2, 4: 1}),       # gcd 2, two awards
    (1, {0: 1, 1: 1, 2: 0}),       # a zero weight (ignored), mean 1/2
]


@pytest.mark.parametrize("n0,w", LAWS)
def test_hitting_law_against_enumeration(n0, w):
    depth = 9
    amax = max(a for a, c in w.items() if c)
    L = hitting_law(n0, w, n_max=depth, r_limit=(depth - n0) // amax)
    b = brute(n0, {a: c for a, c in w.items() if c}, depth)
    want_n = {n: p for n, p in marginal(b, 0).items() if p}
    assert dict(L.spins) == want_n
    assert L.n_max <= depth
    # the tail is the exact mass beyond the rows
    assert L.tail == 1 - sum(want_n.values())
    # R = r is complete in the enumeration when n0 + r a_max <= depth
    assert L.r_max == (depth - n0) // amax
    want_r = {r: p for r, p in marginal(b, 1).items() if r <= L.r_max and p}
    assert dict(L.retriggers) == want_r
    assert L.p_retrigger == 1 - Fraction(w[0], sum(w.values())) ** n0
    EA = Fraction(sum(a * c for a, c in w.items()), sum(w.values()))
    assert L.expected == n0 / (1 - EA)


def test_hitting_law_tail_target_and_mean():
    w = {0: 1000, 5: 40, 10: 3}
    L = hitting_law(10, w)
    assert 0 < L.tail <= Fraction(1, 10**12)
    assert L.tail == 1 - sum(p for _, p in L.spins)
    s = sum(n * p for n, p in L.spins)
    # the rows' mean is below E[N] by the (tiny) tail's share only
    assert s < L.expected < s + Fraction(1, 10**6)
    assert all(n % 5 == 0 for n, _ in L.spins)
    assert 0 < L.retrigger_tail <= Fraction(1, 10**12)
    # the retriggers' law on its own agrees with the joint rows: P(R = 0) = P(N = 10),
    # and P(R = 1) = P(N = 15) + P(N = 20) (one award of 5 or 10 spins, then no award)
    r, n = dict(L.retriggers), dict(L.spins)
    assert r[0] == n[10] == Fraction(1000, 1043) ** 10
    p0, p5, p10 = Fraction(1000, 1043), Fraction(40, 1043), Fraction(3, 1043)
    assert r[1] == 10 * p5 * p0 ** 14 + 10 * p10 * p0 ** 19


def test_slow_feature_stops_at_the_step_limit_with_an_exact_tail():
    """A feature that ends slowly (E[A] = 3/4): the rows stop at n0 + step_limit g spins and the tail
    row holds the rest exactly; the rows agree with the same law taken further."""
    w = {0: 11, 1: 6, 3: 3}  # E[A] = 15/20
    L = hitting_law(2, w, step_limit=20, r_limit=10)
    assert L.n_max == 2 + 20 and L.tail > Fraction(1, 10**12)
    assert L.tail == 1 - sum(p for _, p in L.spins)
    longer = hitting_law(2, w, step_limit=40, r_limit=10)
    assert dict(longer.spins).items() >= dict(L.spins).items()
    assert L.tail == longer.tail + sum(p for n, p in longer.spins if n > L.n_max)


def test_no_award_is_a_fixed_countdown():
    assert hitting_law(7, {0: 3}) == fixed_law(7)
    assert fixed_law(7).spins == ((7, Fraction(1)),) and fixed_law(7).p_retrigger == 0


def test_infinite_mean_refused():
    with pytest.raises(ValueError, match="no finite mean"):
        hitting_law(3, {0: 1, 2: 1})


@pytest.mark.parametrize("n0,w,ceiling", [(2, {0: 2, 1: 1, 3: 1}, 6), (3, {0: 1, 2: 1}, 7), (1, {1: 1}, 4)])
def test_ceiling_law_against_enumeration(n0, w, ceiling):
    L = ceiling_law(n0, w, ceiling)
    b = brute(n0, w, ceiling + 1, ceiling)
    assert sum(b.values()) == 1  # every play ends by the ceiling
    assert dict(L.spins) == {n: p for n, p in marginal(b, 0).items() if p}
    assert dict(L.retriggers) == {r: p for r, p in marginal(b, 1).items() if p}
    assert L.tail == 0 and L.expected == sum(n * p for n, p in marginal(b, 0).items())
    assert L.n_max <= ceiling


def test_mix_and_count_law():
    a, b = fixed_law(10), count_law({12: Fraction(1, 3), 15: Fraction(2, 3)})
    m = mix([(Fraction(1, 2), a), (Fraction(1, 2), b)])
    assert dict(m.spins) == {10: Fraction(1, 2), 12: Fraction(1, 6), 15: Fraction(1, 3)} and m.tail == 0
    assert m.expected == Fraction(10 + 14, 2)
    h = hitting_law(10, {0: 30, 5: 1})
    m = mix([(1, h), (1, count_law({200: Fraction(1)}))])  # the finite part beyond the rows goes to the tail
    assert m.n_max == h.n_max < 200 and m.tail == Fraction(1, 2) + h.tail / 2


def _wald_case():
    import analytic.features.catalog  # noqa: F401  (registers the engines)
    from analytic.features.result import feature_solver
    from analytic.model.loader import load_model

    g = load_model(str(ROOT / "tests" / "cases" / "book_of_ra_deluxe_95.toml"))
    return g, feature_solver("wald")(g, "free_spins", 3, "base")


def test_wald_engine_spins_law_against_wald_expected_spins():
    """Engine wald (a retrigger table): the law's exact mean is Wald's expected spins of the solver, and
    the rows' mean is within the tail of it."""
    import pickle

    _g, fr = _wald_case()
    pickle.dumps(fr)  # the law's source is plain data (results may cross processes)
    L = fr.spins_law
    assert pickle.loads(pickle.dumps(fr)).spins_law == L
    assert L.expected == fr.expected_spins.value
    s = sum(n * p for n, p in L.spins)
    assert 0 <= L.expected - s < Fraction(1, 10**6)
    assert L.spins[0][0] == 10 and L.tail <= Fraction(1, 10**12)


def test_drawn_expanding_award_law_against_the_spin_classes():
    """Book of Power's free spins: the award law the spins law reads (a window count of books) is the
    one of the engine's per-spin outcome classes (SpinStats, summed over the golden mask)."""
    from analytic.features.engines.drawn_expanding.engine import SpinStats, award_weights, spins_law
    from analytic.model.loader import load_model

    g = load_model(str(ROOT / "models" / "book_of_power.toml"))
    st = SpinStats(g, "free_spins")
    w: dict = {}
    for (a, _mask), c in st.classes.items():
        w[a] = w.get(a, 0) + c
    assert award_weights(g, "free_spins") == w and st.cycle == sum(w.values())
    L = spins_law(g, "free_spins", 3)
    assert L.expected == 10 / (1 - st.mean_award)


def test_gift_pick_spins_law_against_hand_count():
    """Engine gift_pick: 10 spins plus the extra spins of the gifts; the law's mean is the solver's expected
    spins, and P(no extra spins) is the hypergeometric count of picking no spins gift."""
    from math import comb

    from analytic.features.engines.gift_pick import spins_law
    from analytic.model.loader import load_model

    g = load_model(str(ROOT / "models" / "secrets_of_christmas.toml"))
    gifts = g.features["free_spins"].params["gifts"]
    total = sum(n for *_, n in gifts)
    spins_gifts = sum(n for e, _, n in gifts if e == "spins")
    n0 = g.features["free_spins"].trigger.counts[3]
    L = spins_law(g, "free_spins", 3)
    assert dict(L.spins)[n0] == Fraction(comb(total - spins_gifts, 3), comb(total, 3))
    mean_extra = sum(Fraction(3 * n, total) * v for e, v, n in gifts if e == "spins")  # linearity
    assert L.expected == n0 + mean_extra
    assert L.p_retrigger == 0 and L.tail == 0


def test_spins_played_table_in_every_format(tmp_path, monkeypatch):
    """The par sheet's spins-played table (toy game with a retrigger, the real wald solver): mixed over
    the trigger counts, its mean is the features table's expected spins; the rows add up to 1; it is
    in the Markdown, JSON, XLSX and PDF, the buy mode's too."""
    import json

    from openpyxl import load_workbook

    from analytic.model.loader import load_model
    from analytic.reports.json_ import render_json
    from analytic.reports.markdown import render_markdown
    from analytic.reports.model import build_sheet
    from analytic.reports.pdf import write_pdf
    from analytic.reports.xlsx import write_xlsx

    text = (ROOT / "tests" / "reports" / "data" / "toyfs.toml").read_text()
    text = text.replace("[cap]\ntotal_bet_multiple = 1000\n", "")  # no certified law needed here
    old = 'retrigger = { symbols = ["star"], counts = { 3 = 10 } }'
    assert old in text
    text = text.replace(old, 'retrigger = { symbols = ["star"], counts = { 3 = 2 } }')  # E[A] < 1
    path = tmp_path / "toyfs.toml"
    path.write_text(text)
    g = load_model(str(path))
    import analytic.solver.nround as nround

    monkeypatch.setattr(nround, "n_round_quantiles", lambda *a, **k: {})  # RTP ranges: not tested here (time)
    sheet = build_sheet(g, session=False)
    assert len(sheet.modes) == 2
    for m in sheet.modes:
        (t,) = m.spins_played
        (f,) = [f for f in m.features if f.name == "free_spins"]
        assert t.expected == f.expected_spins.value and f.expected_spins.label == "exact"
        assert sum(x.probability for x in t.rows) == 1 and t.rows[-1].cumulative == 1
        assert t.rows[0].label == "10" and 0 < t.p_retrigger < 1
    md = render_markdown(sheet)
    assert md.count("### Spins played: free") == 2 and "| retriggers |" in md
    d = json.loads(render_json(sheet))
    js = d["modes"][0]["spins_played"][0]
    assert Fraction(js["expected_spins"]["exact"]) == sheet.modes[0].features[0].expected_spins.value
    assert sum(Fraction(x["probability"]["exact"]) for x in js["spins"]) == 1
    write_xlsx(sheet, str(tmp_path / "s.xlsx"))
    wb = load_workbook(tmp_path / "s.xlsx")
    found = [c for ws in wb for row in ws.iter_rows() for c in row if c.value == "expected spins played"]
    assert len(found) == 2 and isinstance(found[0].offset(0, 1).value, float)
    # the PDF: the plots are not what is tested here (time); its tables are written with the
    # Markdown's rows (analytic.reports.format.spins_rows), so check the PDF calls them per mode
    import io

    import analytic.reports.format as fmt
    import analytic.reports.pdf as pdf
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (2, 2)).save(buf, format="PNG")
    for name in dir(pdf.plots):
        if name.endswith("_png"):
            monkeypatch.setattr(pdf.plots, name, lambda *a, **k: buf.getvalue())
    seen = []
    monkeypatch.setattr(pdf, "spins_rows", lambda rows: seen.append(rows) or fmt.spins_rows(rows))
    write_pdf(sheet, str(tmp_path / "s.pdf"))
    assert (tmp_path / "s.pdf").stat().st_size > 0
    assert seen == [x for m in sheet.modes for t in m.spins_played for x in (t.rows, t.retriggers)]


@pytest.mark.skipif(os.environ.get("ANALYTIC_SLOW") != "1", reason="simulator check (about 2 min): ANALYTIC_SLOW=1")
def test_spins_law_against_the_simulator():
    """Book of Power's regular free spins (books retrigger +5 per book beyond one): the simulator's spins
    played per feature against the exact law by a chi-square test, and Book of Ra's (wald)."""
    from scipy.stats import chisquare

    from analytic.features.engines.drawn_expanding.engine import spins_law
    from analytic.model.loader import load_model
    from analytic.simulator.evaluate import compile_tables
    from analytic.simulator.features import get_player

    g = load_model(str(ROOT / "models" / "book_of_power.toml"))
    cases = [(g, "free_spins", "drawn_expanding", spins_law(g, "free_spins", 3), 3)]
    g2, fr = _wald_case()
    cases.append((g2, "free_spins", "wald", fr.spins_law, 3))
    for game, name, engine, L, count in cases:
        tables = compile_tables(game)
        prep = tables.features[name]
        n0 = L.spins[0][0]
        m = 100_000
        b = get_player(engine).play(tables, name, prep, np.full(m, count), np.full(m, n0),
                                    np.random.default_rng(7), 100_000)
        assert not b.limited.any()
        # bins: each n while its expected count is >= 20, the rest together
        obs, exp = [], []
        rest_o, rest_e = m, float(m)
        for n, p in L.spins:
            e = float(p) * m
            if e < 20:
                break
            k = int((b.spins == n).sum())
            obs.append(k)
            exp.append(e)
            rest_o -= k
            rest_e -= e
        obs.append(rest_o)
        exp.append(rest_e)
        assert sum(obs) == m
        stat, pv = chisquare(obs, exp)
        assert pv > 1e-4, (name, engine, stat, pv, obs, exp)
        assert abs(b.spins.mean() - float(L.expected)) < 6 * b.spins.std() / np.sqrt(m)
    # Book of Power's solver brackets the expected spins (a truncated sweep, certified): the exact mean
    # of the law lies inside
    from analytic.features.engines.drawn_expanding.engine import solve_feature

    fr = solve_feature(g, "free_spins", 3)
    e = fr.expected_spins
    assert e.value - e.error <= fr.spins_law.expected <= e.value + e.error


def test_cumulative_just_below_1_is_not_printed_1():
    """A cumulative probability of exactly 1 - 5e-7 (a tie at six decimals: rounded half to even it is
    1.000000) printed '1.000000' for a law not yet complete; it prints '1 - 5.00e-07', as any
    cumulative whose six decimals would read 1. 1 - 4.9e-7 likewise; 1 - 6e-7 is 0.999999. By hand."""
    from fractions import Fraction
    from types import SimpleNamespace

    from analytic.reports.format import spins_rows

    def cum(c):
        (row,) = spins_rows([SimpleNamespace(label="10", probability=Fraction(1, 4), cumulative=c)])
        return row[3]

    assert cum(1 - Fraction(5, 10**7)) == "1 - 5.00e-07"
    assert cum(1 - Fraction(49, 10**8)) == "1 - 4.90e-07"
    assert cum(1 - Fraction(6, 10**7)) == "0.999999"
    assert cum(Fraction(1)) == "1"
