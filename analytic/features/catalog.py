"""The catalogue of feature engines: importing it registers every engine's solvers.

Each engine module of :mod:`analytic.features.engines`, on import, registers
its exact solver (:func:`analytic.features.result.register_solver`) and, where
it has them, its round solver, capped law and prefetch under its engine name
(the name :mod:`analytic.model.mechanics.engines` selects at load).  Add one
import line here per new engine module.  The loader does not need this
module: the declarations it validates live in :mod:`analytic.model`.
"""

from analytic.features.engines import wald_spins  # noqa: F401
from analytic.features.engines import pick_bonus  # noqa: F401
from analytic.features.engines import revealed_wild_reels  # noqa: F401
from analytic.features.engines import gift_pick  # noqa: F401
from analytic.features.engines.drawn_expanding import engine  # noqa: F401
