"""Engine ``drawn_expanding``: free spins whose awards draw (or upgrade) the expanding symbol.

* :mod:`.engine` -- the registered solvers (feature, round with the gamble and the win cap);
* :mod:`.spin_stats` -- per-spin exact statistics from the joint line walk;
* :mod:`.moments` -- the feature's moments over (spins left, awards) or the ladder chain;
* :mod:`.kernel` -- compiled per-spin steps shared by the cap bounds;
* :mod:`.ladder_cap` -- the exact capped law of the ladder with golden reels;
* :mod:`.draw_cap`, :mod:`.draw_cap_low`, :mod:`.draw_bounds` -- certified upper and lower
  bounds of the capped win with drawn symbols, and their parallel runs;
* :mod:`.zero_win` -- the probability that the feature wins nothing.

Derivations: ``docs/derivations.md`` sections 4-6.
"""
