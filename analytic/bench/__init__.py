"""Benchmark commands (``python -m analytic.bench.NAME``): each prints its figures.

* :mod:`.lines` -- the line walk by payline count, base game and free spins;
* :mod:`.base_game` -- the exact base-game walk against a brute-force enumerator;
* :mod:`.ways` -- the ways walk on 243- and 3,125-ways games, one way and both ways, beside
  the brute force's projected time;
* :mod:`.book_of_ra_deluxe` -- the published Book of Ra Deluxe case, full exact analysis;
* :mod:`.drawn_expanding`, :mod:`.drawn_expanding_levels` -- every mode of a model whose
  free spins draw expanding symbols (default the shipped Book of Power model);
* :mod:`.tuner` -- tuning a detuned copy of a shipped model back to its RTP;
* :mod:`.simulator` -- rounds per second of the simulator.

Benchmarks sit above every other layer (they may import anything); no test
times anything.
"""
