"""Benchmark: exact analysis of Book of Ra Deluxe (set 95) with its free spins.

``python -m analytic.bench.book_of_ra_deluxe`` loads the model, solves the
base game and the free spins (9 drawn expanding symbols, Wald closed forms)
exactly, builds the round's win distribution (certified grid laws of the
retriggering feature, :mod:`analytic.solver.distribution`) and prints the
RTP, the exact round variance, a few distribution figures and the wall time.
"""

import sys
import time
from pathlib import Path

import analytic
from analytic.model.loader import load_model
from analytic.solver.distribution import round_law
from analytic.solver.round import solve_round

MODEL = Path(analytic.__file__).resolve().parents[1] / "tests" / "cases" / "book_of_ra_deluxe_95.toml"


def main() -> int:
    from analytic.memory import use_small_pages

    if not MODEL.is_file():  # (the case ships with the repository's tests, not with an installed package)
        print(f"error: {MODEL}: the Book of Ra Deluxe case is not there: run this benchmark from a checkout of "
              "the repository (python -m analytic.bench.book_of_ra_deluxe in its root)", file=sys.stderr)
        return 2
    use_small_pages()  # as the analytic command does (analytic/memory.py)
    t0 = time.perf_counter()
    game = load_model(MODEL)
    r = solve_round(game)
    law = round_law(r)
    dt = time.perf_counter() - t0
    print(f"model         {MODEL.name}")
    print(f"RTP           {float(r.rtp.value) * 100:.6f} % ({r.rtp.label})")
    print(f"variance      {float(r.variance):.6f} (exact rational, denominator {r.variance.denominator.bit_length()} bits)")
    print(f"sd            {r.sd:.6f} per unit staked")
    for x in (100, 1000, 5000):
        tail = sum(float(p) for w, p in law.points.items() if w > x)
        print(f"P(win > {x:>4}x) {tail:.6e} (+/- {float(law.error):.1e})")
    print(f"time          {dt:.3f} s (load + base walk + 9 free-spin walks + Wald + win distribution)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
