"""The catalogue of engines, kinds and mechanics: importing it registers every one.

Each engine's solver lives in one module of :mod:`analytic.features` that, on
import, registers its exact solver under the engine's name
(:func:`analytic.features.result.register_solver`); the kinds
(:mod:`analytic.features.kinds`), the mechanics
(:mod:`analytic.features.mechanics`) and the engines' acceptance
(:mod:`analytic.features.mechanics.engines`) are registered by the last
imports.  Add one import line here per new solver module.  The loader imports
this module before validating ``[features.*]``.
"""

# one line per kind module, e.g.:
# from analytic.features import free_spins  # noqa: F401
from analytic.features import free_spins  # noqa: F401,E402
from analytic.features import pick_bonus  # noqa: F401,E402
from analytic.features import book_of_power  # noqa: F401
from analytic.features import book_of_christmas_eve  # noqa: F401,E402
from analytic.features import secrets_of_christmas  # noqa: F401,E402
from analytic.features import mechanics  # noqa: F401,E402  (the mechanics' validators and rules)
from analytic.features.mechanics import engines  # noqa: F401,E402  (the engines the loader selects from)
