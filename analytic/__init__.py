"""analytic: exact mathematics of video slot games.

Base games are evaluated exactly over the full cycle of reel stops
(:mod:`analytic.engine`), features are solved as Markov chains
(:mod:`analytic.features`), and par sheets are rendered from one report data
model (:mod:`analytic.reports`).  The spin-by-spin simulator
(:mod:`analytic.simulator`) is an independent oracle written from the rules.
"""

__version__ = "0.1.0"
