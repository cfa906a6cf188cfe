"""``analytic session``'s table: every block of rows has its heading."""

from fractions import Fraction
from types import SimpleNamespace

from analytic.cli.session import format_table
from analytic.figures import Figure


def _res(return_mean):
    half, tenth = Fraction(1, 2), Fraction(1, 10)
    qs = {Fraction(1, 10): Fraction(59, 100), Fraction(1, 2): Fraction(93, 100), Fraction(9, 10): Fraction(262, 100)}
    return SimpleNamespace(
        bracket={}, method="exact", error=0, law=SimpleNamespace(cost=Fraction(1), returns=True),
        balance_mean=Figure(Fraction(95)), p_above_start=Figure(half), balance_quantiles={half: Fraction(92)},
        reasons={"ruin": Figure(Fraction(0)), "rounds": Figure(Fraction(1))}, rounds_mean=Figure(Fraction(120)),
        rounds_quantiles={tenth: 22, half: 116, Fraction(9, 10): 225}, ruin=Figure(Fraction(0)),
        rounds_to_ruin=None, return_mean=return_mean, return_quantiles=qs, notes={})


def test_return_quantiles_have_their_heading():
    """Without a mean of the return experienced its quantiles followed "risk of ruin" with no
    heading, reading as quantiles of the ruin; a heading row now says what they are."""
    lines = format_table(_res(None), rules=None).splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.lstrip().startswith("return quantile 0.1"))
    assert lines[i - 1].startswith("return experienced") and "total won / total staked" in lines[i - 1]
    assert lines[i].split()[-1] == "0.59"


def test_return_mean_is_the_heading_when_given():
    lines = format_table(_res(Figure(Fraction(96, 100))), rules=None).splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.lstrip().startswith("return quantile 0.1"))
    assert lines[i - 1].startswith("return experienced: mean")
    assert sum(ln.startswith("return experienced") for ln in lines) == 1


def test_exact_figures_print_their_own_digits():
    """An exact figure went through a float: a risk of ruin of 10^-400 (exact, below the smallest
    float) printed '0  (exact)'; by hand it is 1e-400, and 1 - 10^-400 is 1 to 10 digits."""
    r = _res(None)
    r.ruin = Figure(Fraction(1, 10**400))
    r.reasons = {"ruin": Figure(Fraction(1, 10**400)), "rounds": Figure(1 - Fraction(1, 10**400))}
    lines = format_table(r, rules=None).splitlines()
    ruin = next(ln for ln in lines if ln.startswith("risk of ruin"))
    assert ruin.split()[-2:] == ["1e-400", "(exact)"], ruin
    rounds = next(ln for ln in lines if ln.startswith("ends by 'rounds'"))
    assert rounds.split()[-2:] == ["1", "(exact)"], rounds  # 1 - 1e-400 to 10 digits
