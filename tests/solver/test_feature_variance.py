"""The feature win's variance (``FeatureFigures.variance``) where the feature's figures are bounded.

Oracle: the same game solved exactly with the feature's true mean and second moment, for true
values at either end of the certified errors the bounded solve was given (``_feature`` wrapped: the
bounded solve sees centres moved from the truth by up to the error, with that error).  The exact
solve's variance must lie in the bounded one's interval, in the base mode (the feature started by
the base spin) and in the buy mode.  Before, the variance's error was not carried: the par sheets
printed the feature's sd from the centre with no error.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from pathlib import Path

import pytest

import analytic.solver.round as R
from analytic.figures import Figure
from analytic.model.loader import load_model_text

#: The tiny free-spins game (retriggers, a pick bonus) with a buy of its free spins.
TINY = (Path(__file__).resolve().parents[1] / "data" / "tiny_free_spins.toml.in").read_text().format(award=1, extra="")
BUY = '\n[modes.buy]\ncost = 20\nbuys = "fs"\nbuy_counts = { 2 = 1, 3 = 1 }\n'


def _solve(monkeypatch, game, shift):
    """Every mode solved with each feature's (mean, second moment) moved by ``shift(fr)`` =
    ``(dm, em, d2, e2)``: centre + d, labelled bounded with error e (exact when both are 0)."""
    orig = R._feature

    def moved(*a, **k):
        fr = orig(*a, **k)
        dm, em, d2, e2 = shift(fr)
        lab = "exact" if not (em or e2) else "bounded"
        return dataclasses.replace(fr, mean=Figure(fr.mean.value + dm, lab, em),
                                   second_moment=Figure(fr.second_moment.value + d2, lab, e2))

    monkeypatch.setattr(R, "_feature", moved)
    try:
        return {m: R.solve_round(game, m) for m in game.modes}
    finally:
        monkeypatch.setattr(R, "_feature", orig)


@pytest.mark.parametrize("sm, s2", [(1, 1), (1, -1), (-1, 1), (-1, -1)])
def test_the_feature_variance_interval_holds_the_true_one(monkeypatch, tmp_path, sm, s2):
    game = load_model_text(TINY + BUY, str(tmp_path / "tiny.toml"))
    truth = _solve(monkeypatch, game, lambda fr: (0, 0, 0, 0))

    def off(fr):  # the bounded solve's centres: the truth moved by the whole error, either way
        em, e2 = fr.mean.value / 1000, fr.second_moment.value / 500
        return -sm * em, em, -s2 * e2, e2

    bounded = _solve(monkeypatch, game, off)
    for mode in game.modes:
        for ft, fb in zip(truth[mode].features, bounded[mode].features):
            assert ft.variance.label == "exact" and fb.variance.label == "bounded", mode
            v, e = fb.variance.value, fb.variance.error
            assert v - e <= ft.variance.value <= v + e, (mode, ft.variance, fb.variance)
            assert abs(Fraction(ft.sd) ** 2 - ft.variance.value) < Fraction(1, 10 ** 9) * (1 + ft.variance.value)


def test_the_markdown_feature_sd_is_the_interval_of_the_true_sds(monkeypatch, tmp_path):
    """The Markdown features table prints a bounded feature's sd as ``low .. high (bounded)``, holding
    the exact solve's sd (it printed the centre's square root, "137.7419" in Book of Power)."""
    import re

    from analytic.reports.markdown import render_markdown
    from analytic.reports.model import build_sheet

    game = load_model_text(TINY + BUY, str(tmp_path / "tiny.toml"))
    truth = _solve(monkeypatch, game, lambda fr: (0, 0, 0, 0))
    bounded = _solve(monkeypatch, game, lambda fr: (fr.mean.value / 1000, fr.mean.value / 1000,
                                                    -fr.second_moment.value / 500, fr.second_moment.value / 500))
    md = render_markdown(build_sheet(game, bounded, session=False))
    for mode in game.modes:
        sec = md.split(f"## Bet mode `{mode}`", 1)[1].split("### Features", 1)[1].split("###", 1)[0]
        for f in truth[mode].features:
            row = next(line for line in sec.splitlines() if line.startswith(f"| {f.name} |"))
            m = re.search(r"\| ([0-9,.]+) \.\. ([0-9,.]+) \(bounded\) \|", row)
            assert m, row
            lo, hi = (Fraction(x.replace(",", "")) for x in m.groups())
            assert lo * lo <= f.variance.value <= hi * hi, (row, f.variance)
