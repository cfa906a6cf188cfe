"""Imports every feature-kind solver module so that each registers itself.

Add one line per new kind module (see :mod:`analytic.features.result`).
"""

# (each import registers a solver with analytic.features.result.register_solver)
