"""The catalogue of feature kinds: importing it registers every kind.

Each kind lives in one module of :mod:`analytic.features` that, on import,
registers its parameter validator (:func:`analytic.features.kinds.register_kind`)
and its exact solver (:func:`analytic.features.result.register_solver`).
Add one import line here per new kind module.  The loader imports this
module before validating ``[features.*]``.
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
