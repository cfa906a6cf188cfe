"""The shipped seed models meet their targets (issue: tuning).

Targets are the published figures of the rule texts (../shared/seeds) or,
where the rules publish none, the target the model declares in [design];
tolerance 0.005 percentage points.  The expected values are those targets,
never the solver's own output.
"""

import hashlib
import json
from fractions import Fraction
from pathlib import Path


from analytic.model.loader import load_model
from analytic.solver.round import solve_round

MODELS = Path(__file__).resolve().parents[2] / "models"
REPORTS = Path(__file__).resolve().parents[2] / "reports"
TOL = Fraction(5, 100000)  # 0.005 percentage points


def test_secrets_of_christmas_published_rtp_where_the_cap_cannot_bind():
    game = load_model(MODELS / "secrets_of_christmas.toml")
    # published: "The theoretical return to player for this game is 96.7%"
    res = solve_round(game, "base", plain=True)  # no cap: the stakes where it cannot bind
    assert res.rtp.label == "exact"
    assert abs(res.rtp.value - Fraction(967, 1000)) <= TOL
    # the cap (GBP 250,000) cannot bind at the smallest stakes: max win x stake below it
    assert game.cap.currency == 250000
    assert min(game.cap.stakes) * 21680 < 250000


def test_book_of_christmas_eve_declared_target_and_cap():
    game = load_model(MODELS / "book_of_christmas_eve.toml")
    assert "96.00 %" in game.design["target.rtp"]
    # published "up to 20,168x" read as a cap on the round (rule switch), declared in [cap]
    assert game.rules["published_max_win"] == "cap"
    assert game.cap.total_bet_multiple == 20168
    res = solve_round(game, "base")  # capped, exact
    assert res.rtp.label == "exact"
    assert abs(res.rtp.value - Fraction(96, 100)) <= TOL


# The shipped Book of Power takes minutes to solve (its regular cap bounds).  Its committed par
# sheet is regenerated and compared byte for byte with a fresh solve by
# tests/reports/test_committed.py, so the published targets are checked here on that sheet (same
# model file by its SHA-256) instead of solving the model a second time in another xdist worker.
PUBLISHED = {"base": Fraction(94, 100), "power_bet": Fraction(94, 100),
             "buy_free_spins": Fraction(9461, 10000), "buy_power_free_spins": Fraction(9461, 10000)}


def _committed_rtps(stem: str) -> dict:
    """``{mode: (value, error)}`` of the committed JSON sheet, after checking it is of the shipped model."""
    sheet = json.loads((REPORTS / f"{stem}.json").read_text(encoding="utf-8"))
    digest = hashlib.sha256((MODELS / f"{stem}.toml").read_bytes()).hexdigest()
    assert sheet["model_sha256"] == digest, "reports are stale: regenerate with analytic report"
    return {m["info"]["name"]: (Fraction(m["rtp"]["exact"]), Fraction(m["rtp"].get("error", 0)))
            for m in sheet["modes"]}


def test_book_of_power_published_rtps_meet_the_certified_capped_intervals():
    """Per mode: the whole certified capped interval lies within 0.005 points of the published
    RTP, i.e. every value in it prints as the published figure (94.00 %, 94.61 %)."""
    rtps = _committed_rtps("book_of_power")
    assert set(rtps) == set(PUBLISHED)
    failures = []
    for mode, target in PUBLISHED.items():
        value, error = rtps[mode]
        lo, hi = value - error, value + error
        if abs(value - target) + error > TOL:
            failures.append(f"{mode}: [{float(lo):.8f}, {float(hi):.8f}] not within 0.005 points of "
                            f"the published {float(target):.4f}")
        if not error < Fraction(2, 10**6):  # the certified intervals are narrow (issue 5: 1e-6 bet)
            failures.append(f"{mode}: interval {float(2 * error):.3g} wide")
    assert not failures, "\n".join(failures)
