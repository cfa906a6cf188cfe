"""Book of Ra Deluxe (case 09, slotopol reel sets): free spins and set RTPs.

Case reading: total bet = 10 lines; scatter pays x total bet; 10 spins per
trigger and per retrigger; expanding symbol counted per cell
(``expanding_count = "cells"``) and a line led by it paid only through the
expansion (``expanding_line_win = "wild_led_only"``).

Slotopol fixes a wild-led line's symbol at its first non-wild cell and pays
nothing for a line of only books: the model sets the rule
``line_wild_pay = "first_non_wild"``.  An independent per-line enumeration
(``_line_mean``, docs/derivations.md section 1: every payline has the same win law)
checks the solver's line return under both readings.
"""

import itertools
from collections import Counter
from fractions import Fraction as F

import pytest

from analytic.features.engines.wald_spins import state_outcomes
from analytic.model.loader import load_model_text
from analytic.engine.base_game import solve_base
from analytic.solver.round import solve_round
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bor_gen import NAMES, bor_toml, load_case  # noqa: E402

CASE = load_case()
SYMS = [NAMES[i] for i in range(1, 10)]


@pytest.fixture(scope="module")
def game95():
    return load_model_text(bor_toml(3), "bor95.toml")


def _line_mean(game, strips, reading, es=None) -> F:
    """Exact mean win of ONE payline (line-bet units) by enumerating row symbols."""
    freqs = [Counter(s) for s in strips]
    lens = [len(s) for s in strips]
    pays = game.paytable
    tot = F(0)
    for combo in itertools.product(*[list(f) for f in freqs]):
        if es is not None and combo[0] == es:
            continue  # wild_led_only: a line led by the expanding symbol pays no normal win
        if reading == "slotopol":
            first = next((c for c in combo if c != "book"), None)
            if first is None:
                continue
            run = 0
            for c in combo:
                if c in ("book", first):
                    run += 1
                else:
                    break
            pay = pays.get(first, {}).get(run, 0)
        else:  # engine reading: the best candidate's pay
            pay = 0
            for cand in SYMS:
                run = 0
                for c in combo:
                    if c in ("book", cand):
                        run += 1
                    else:
                        break
                pay = max(pay, pays[cand].get(run, 0))
        if pay:
            w = 1
            for f, c in zip(freqs, combo):
                w *= f[c]
            tot += pay * w
    d = 1
    for n in lens:
        d *= n
    return tot / d


@pytest.mark.parametrize("reading", ["slotopol", "engine"])
def test_line_return_matches_per_line_enumeration(reading):
    from dataclasses import replace
    from types import MappingProxyType

    g = load_model_text(bor_toml(3, CASE), "bor95.toml")
    if reading == "engine":
        g = replace(g, rules=MappingProxyType({**g.rules, "line_wild_pay": "highest"}))
    # 10 lines / total bet 10: the line return equals one line's mean
    assert solve_base(g).line_rtp == _line_mean(g, g.reel_sets["base"], reading)


@pytest.mark.parametrize("i", range(9))
def test_free_spin_rtp_per_symbol(game95, i):
    pub = CASE["free_spin_reported"]["per_expanding_symbol"][i]
    (_, s, o), = [x for x in state_outcomes(game95, "free_spins") if x[1] == NAMES[pub["expanding_symbol"]]]
    x = o.mean_win
    assert f"{float(x) * 100:.6f}" == f"{pub['sym_rtp_pct_per_free_spin']:.6f}"
    incl = x / (1 - o.mean_award)  # Wald: per initial free spin, retriggers included
    assert f"{float(incl) * 100:.6f}" == f"{pub['rtp_per_free_spin_incl_retriggers_pct']:.6f}"
    assert f"{float(o.mean_award) / 10:.5f}" == f"{pub['q'] / 10:.5f}"


def test_free_spin_average(game95):
    st = state_outcomes(game95, "free_spins")
    avg = sum(o.mean_win / (1 - o.mean_award) for _, _, o in st) / 9
    assert f"{float(avg) * 100:.6f}" == "779.285363"
    # the study's independent exact value, printed to 30 digits
    assert abs(avg - F("7.79285363192544904118535888228")) < F(1, 10**28)


@pytest.mark.parametrize("k", range(7))
def test_set_total_rtp(k):
    rs = CASE["regular_reel_sets"][k]
    g = load_model_text(bor_toml(k, CASE), f"bor{k}.toml")
    r = solve_round(g)
    assert f"{float(r.rtp.value) * 100:.6f}" == f"{rs['rtp_key_pct']:.6f}"


def test_set95_exact_value(game95):
    # the study's independent exact computation, printed to 30 digits
    assert abs(solve_round(game95).rtp.value - F("0.951119669463629403125394721063")) < F(1, 10**29)
