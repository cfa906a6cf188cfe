"""What a feature solver returns, and the registry of feature solvers.

A feature solver evaluates one feature started with a given trigger count
(or by a buy) and returns a :class:`FeatureResult`: the moments of its total
win, its expected number of spins, how it can end, and (when it can) its
win distribution.  The round solver (:mod:`analytic.solver.round`) combines
these with the base spin.  Each *engine* (the solver a feature's declared
mechanics select, :mod:`analytic.model.mechanics.engines`) registers one
solver with :func:`register_solver`; an engine that cannot handle a mechanic raises
:class:`~analytic.errors.UnsupportedMechanicError` instead of approximating.

Units: all wins in **total-bet multiples** (Fractions).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from fractions import Fraction
from typing import Any, Callable, Mapping

from analytic.errors import UnsupportedMechanicError
from analytic.figures import Figure

__all__ = ["FeatureResult", "register_solver", "feature_solver", "SOLVERS", "ROUND_SOLVERS",
           "register_round_solver", "round_solver_for", "CAPPED_LAWS", "register_capped_law", "capped_law_for",
           "LAW_CHECKS", "register_law_check", "law_check_for", "PLAY_CHECKS", "register_play_check",
           "play_check_for"]


@dataclass(frozen=True)
class FeatureResult:
    """Exact (or certified-bounded) figures of one feature play.

    Attributes
    ----------
    feature : str
        Feature name in the model.
    count : int
        Trigger count it was started with (0 for a start without count).
    mean : Figure
        Expected total feature win, total-bet multiples.
    second_moment : Figure
        Expected square of the total feature win.
    expected_spins : Figure
        Expected number of spins played (0 for a bonus without spins).
    end_probabilities : Mapping[str, Figure]
        Probability of each way the feature ends (e.g. ``"spins exhausted"``).
    distribution : Mapping[Fraction, Fraction] or None
        ``win -> probability`` when known; ``distribution_mass_error`` bounds
        the probability mass missing from it (0 when exact).
    method : str
        One line naming the method (e.g. "Wald closed form", "exact rational
        solve of the state graph").
    details : Mapping
        Kind-specific figures for reports (per drawn symbol, per gift, ...).
    p_zero : Fraction or None
        Exact probability that the feature wins nothing, when known without
        the whole distribution (used for hit frequencies).
    p_zero_max : Fraction or None
        An upper bound of ``P(win = 0)`` when nothing better is known.
    p_zero_bounds : (Fraction, Fraction) or None
        Certified lower and upper bounds of ``P(win = 0)`` (before ``p_zero_max``).
    law : GridLaw or None
        The win law as float probabilities on a grid with a certified total
        error (:class:`analytic.features.laws.retrigger_law.GridLaw`), for
        features whose law is too large for exact fractions (unbounded
        retriggers); ``distribution`` is then None.
    """

    feature: str
    count: int
    mean: Figure
    second_moment: Figure
    expected_spins: Figure
    end_probabilities: Mapping[str, Figure] = field(default_factory=dict)
    distribution: Mapping[Fraction, Fraction] | None = None
    distribution_mass_error: Fraction = Fraction(0)
    method: str = ""
    details: Mapping = field(default_factory=dict)
    p_zero: Fraction | None = None
    law: Any = field(default=None, compare=False)
    p_zero_max: Fraction | None = None
    p_zero_bounds: tuple | None = None
    spins_law_source: Any = field(default=None, compare=False, repr=False)

    @cached_property
    def spins_law(self):
        """Exact law of the spins played and of the retriggers
        (:class:`analytic.features.laws.spins_played.SpinsLaw`), None for a bonus without spins
        (computed once, from :attr:`spins_law_source`)."""
        return None if self.spins_law_source is None else self.spins_law_source()

    @property
    def variance(self) -> Fraction:
        return self.second_moment.value - self.mean.value ** 2

    def zero_win(self) -> tuple[Fraction, Fraction] | None:
        """``(z, w)`` with ``P(win = 0)`` in ``[z, z + w]``, from what is known, else None.

        ``p_zero`` is exact (``w = 0``); a distribution gives its zero mass
        and its missing mass, a grid law its zero mass within its error.
        """
        if self.p_zero is not None:
            return self.p_zero, Fraction(0)
        if self.distribution is not None:
            return self.distribution.get(Fraction(0), Fraction(0)), self.distribution_mass_error
        if self.law is not None:
            e = Fraction(self.law.error)
            return max(Fraction(float(self.law.probs[0])) - e, Fraction(0)), 2 * e
        if self.p_zero_bounds is not None:
            lo, hi = self.p_zero_bounds
            return lo, hi - lo
        if self.p_zero_max is not None:
            return Fraction(0), self.p_zero_max
        return None


#: engine -> solver(game, feature_name, count, mode_name, *, ws) -> FeatureResult (``ws``: the solve's
#: :class:`analytic.workspace.Workspace` of ``game``, where the solver keeps its tables)
SOLVERS: dict[str, Callable] = {}


def register_solver(kind: str, solver: Callable) -> None:
    """Register the solver of an engine (``kind``: the engine's name, ``FeatureSpec.engine``; one per engine):
    ``solver(game, feature, count, mode, *, ws)``, ``ws`` the solve's
    :class:`analytic.workspace.Workspace` (keyword, may be None)."""
    SOLVERS[kind] = solver


def feature_solver(kind: str) -> Callable:
    """The solver of engine ``kind`` (``FeatureSpec.engine``).

    Raises
    ------
    UnsupportedMechanicError
        No solver is registered for ``kind``.
    """
    # importing the engines' modules registers them
    import analytic.features.catalog  # noqa: F401

    try:
        return SOLVERS[kind]
    except KeyError:
        raise UnsupportedMechanicError(
            f"no exact solver for engine '{kind}' (known: {', '.join(sorted(SOLVERS)) or 'none'})"
        ) from None


#: kind -> capped_law(game, feature, count, cap, *, ws) -> TruncatedLaw or None: the exact law of one play
#: held below a cap (:mod:`analytic.features.laws.capped`), None when the kind has none for this feature.
CAPPED_LAWS: dict[str, Callable] = {}


def register_capped_law(kind: str, fn: Callable) -> None:
    """Register ``fn(game, feature, count, cap, *, ws) -> TruncatedLaw | None``: the exact law of one
    play of a feature of ``kind`` (total-bet multiples) held below ``cap``, used by the win cap
    of any game (:mod:`analytic.solver.cap`) when the feature gives no exact distribution."""
    CAPPED_LAWS[kind] = fn


def capped_law_for(kind: str) -> Callable | None:
    """The capped-law function registered for ``kind``, if any."""
    import analytic.features.catalog  # noqa: F401

    return CAPPED_LAWS.get(kind)


#: kind -> check(game, feature, *, ws) -> str or None: why the feature's win law is certainly unavailable
#: (so a win cap on a round playing it is refused), decided before the feature's long work.
LAW_CHECKS: dict[str, Callable] = {}


def register_law_check(kind: str, fn: Callable) -> None:
    """Register ``fn(game, feature, *, ws) -> str | None`` for engine ``kind``: a reason (one clause,
    naming what makes it so) when neither an exact nor a certified law of the feature's win can be
    given, else None.  It must be cheap next to the feature's solve (its tables are kept in the
    workspace ``ws`` for the solve that follows) and never wrong: None when in doubt.  Used by
    :func:`analytic.solver.cap.check_round_cap` to refuse a capped round before the long work."""
    LAW_CHECKS[kind] = fn


def law_check_for(kind: str) -> Callable | None:
    """The law check registered for ``kind`` (:func:`register_law_check`), if any."""
    import analytic.features.catalog  # noqa: F401

    return LAW_CHECKS.get(kind)


#: kind -> check(game, feature) -> (key, reason) or None: why the engine refuses to solve the feature
#: at all (a combination of model sections its load-time check does not see), decided from the model.
PLAY_CHECKS: dict[str, Callable] = {}


def register_play_check(kind: str, fn: Callable) -> None:
    """Register ``fn(game, feature) -> (key, reason) | None`` for engine ``kind``: the key path and
    reason (with what would make it solvable) for which the engine's solver refuses the feature
    whenever it is played, decided from the model alone; None otherwise.  Used by
    :func:`analytic.solver.round.check_round` to refuse a bet mode playing the feature before any
    long work (a mode that never plays it still solves)."""
    PLAY_CHECKS[kind] = fn


def play_check_for(kind: str) -> Callable | None:
    """The play check registered for ``kind`` (:func:`register_play_check`), if any."""
    import analytic.features.catalog  # noqa: F401

    return PLAY_CHECKS.get(kind)


#: kind -> round solver(game, mode, *, ws) -> RoundResult, for kinds whose round needs
#: more than the law of total expectation (a win cap on the whole round, a gamble).
ROUND_SOLVERS: dict[str, Callable] = {}


def register_round_solver(kind: str, solver: Callable) -> None:
    """Make :func:`analytic.solver.round.solve_round` delegate games with a
    feature of ``kind`` to ``solver(game, mode, *, ws) -> RoundResult`` (``ws`` the solve's
    workspace).  The delegate computes the plain figures with
    ``solve_round(..., plain=True, workspace=ws)``, passed in as ``plain``: the delegate is called
    ``solver(game, mode, *, plain, ws)`` and never calls the round solver back."""
    ROUND_SOLVERS[kind] = solver


#: kind -> prefetch(game, modes, *, ws): work a round solver can share across several modes, done once
#: before they are solved one by one (e.g. two independent solves run side by side).
ROUND_PREFETCH: dict[str, Callable] = {}


def register_round_prefetch(kind: str, prefetch: Callable) -> None:
    """Run ``prefetch(game, modes, *, ws)`` before :func:`analytic.solver.round.solve_rounds` solves
    several modes of a game with a feature of ``kind`` (it should only fill the workspace ``ws``)."""
    ROUND_PREFETCH[kind] = prefetch


def round_prefetch_for(game) -> Callable | None:
    """The prefetch registered for one of ``game``'s features' engines, if any."""
    if not game.features:  # nothing to look up: the engines stay unimported (a cold start)
        return None
    import analytic.features.catalog  # noqa: F401

    for f in game.features.values():
        if f.engine in ROUND_PREFETCH:
            return ROUND_PREFETCH[f.engine]
    return None


def round_solver_for(game) -> Callable | None:
    """The round solver registered for one of ``game``'s features' engines, if any."""
    if not game.features:  # nothing to look up: the engines stay unimported (a cold start)
        return None
    import analytic.features.catalog  # noqa: F401

    for f in game.features.values():
        if f.engine in ROUND_SOLVERS:
            return ROUND_SOLVERS[f.engine]
    return None
