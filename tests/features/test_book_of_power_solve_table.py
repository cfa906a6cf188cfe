"""What `analytic solve` prints for Book of Power's interval figures (the tiny game)."""

from __future__ import annotations

from test_book_of_power_oracles import tiny


def test_interval_extras_print_both_ends():
    """capped_rtp and p_reach_cap are intervals: the table shows their ends, not only the centre."""
    from analytic.cli.solve import format_table
    from analytic.features.book_of_power import solve_book_of_power

    res = solve_book_of_power(tiny(40), "buy_free_spins")
    text = format_table(res)
    for key in ("capped_rtp", "p_reach_cap"):
        f = res.extra[key]
        assert f.error > 0
        line = next(ln for ln in text.splitlines() if ln.strip().startswith(key))
        assert f"between {float(f.value - f.error):.10g} and {float(f.value + f.error):.10g}" in line
        assert "[bounded]" in line
