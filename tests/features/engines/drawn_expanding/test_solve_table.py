"""What `analytic solve` prints for Book of Power's interval figures (the tiny game)."""

from __future__ import annotations

import re
from fractions import Fraction

from test_drawn_oracles import tiny

from analytic.solver.round import solve_round as _solve_round


def _plain_round(game, mode, workspace=None):
    """The mode's round without cap or gamble (what the round solver hands its delegate)."""
    return _solve_round(game, mode, plain=True, workspace=workspace)


def test_interval_extras_print_both_ends():
    """capped_rtp and p_reach_cap are intervals: the table shows them as intervals (capped_rtp in percent
    with its error, as the RTP row; p_reach_cap by its ends), not only the centre."""
    from analytic.cli.solve import format_table
    from analytic.features.engines.drawn_expanding.engine import solve_drawn_expanding_round

    res = solve_drawn_expanding_round(tiny(40), "buy_free_spins", plain=_plain_round(tiny(40), "buy_free_spins"))
    text = format_table(res)
    for key in ("capped_rtp", "p_reach_cap"):
        f = res.extra[key]
        assert f.error > 0
        line = next(ln for ln in text.splitlines() if ln.strip().startswith(key))
        if key == "capped_rtp":  # in percent as the RTP rows: centre +/- error, the interval certified
            m = re.search(r"capped_rtp\s+(\S+) %  \(bounded, \+/- (\S+) %\)", line)
            c, e = Fraction(m.group(1)), Fraction(m.group(2))
            lo, hi = (c - e) / 100, (c + e) / 100
            assert hi - lo <= 2 * f.error * Fraction(11, 10)  # the error to 2 significant digits, up
        else:
            m = re.search(r"between (\S+) and (\S+)", line)  # the ends, rounded outward to 10 digits
            lo, hi = Fraction(m.group(1)), Fraction(m.group(2))
            assert hi - lo <= 2 * f.error + abs(f.value) * Fraction(2, 10 ** 9)
        assert lo <= f.value - f.error and f.value + f.error <= hi
        assert "[bounded]" in line
