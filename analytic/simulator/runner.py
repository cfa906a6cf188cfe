"""Run a simulation: chunks of rounds, exact sums, confidence intervals.

Reproducibility
---------------
Rounds are played in chunks of a fixed size (``chunk``, default
:data:`CHUNK`).  Chunk ``i`` draws from its own stream,
``numpy.random.default_rng(SeedSequence(seed, spawn_key=(i,)))`` (the ``i``-th
child of ``SeedSequence(seed).spawn``), so a result depends only on
``(seed, rounds, chunk)``, never on the number of workers or the order in
which chunks finish.

Sums
----
Each chunk returns Python-integer sums (wins in ticks, squared wins, hits,
triggers, ...); they add exactly.  The statistics follow from them:

* RTP = total win / (rounds x cost x total bet), all in line-bet units;
* the sample standard deviation ``s`` of the round win (from the sum and
  the sum of squares) gives the standard error ``s / sqrt(n)`` of the RTP
  and the normal-approximation intervals ``RTP +- z s / sqrt(n)``
  (z = 1.959964, 2.575829, 3.290527 for 95%, 99%, 99.9%), their low end
  clipped at 0 (an RTP cannot be negative; a low end below 0 means the
  approximation is poor, as with few rounds of a game of rare big wins);
* frequencies ``p`` (hit, feature) have standard error ``sqrt(p (1 - p) / n)``.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import asdict, dataclass, field
from fractions import Fraction

import numpy as np

from analytic.errors import AnalyticError, ModelError
from analytic.model.game import Game
from analytic.simulator.evaluate import Tables, compile_tables
from analytic.simulator.rounds import DEFAULT_MAX_SPINS, play_rounds

__all__ = ["CHUNK", "CI_METHOD", "Z", "ChunkStats", "SimulationResult", "simulate", "run_chunks"]

#: Rounds per random stream (part of what a result depends on).
CHUNK = 10_000

#: Two-sided normal quantiles of the reported confidence levels.
Z = {"95%": 1.959963984540054, "99%": 2.5758293035489004, "99.9%": 3.2905267314918945}

#: How the RTP intervals are made (``to_dict``'s ``rtp_ci_method``).
CI_METHOD = "normal approximation RTP +- z SE, low end clipped at 0 (an RTP cannot be negative)"


@dataclass
class ChunkStats:
    """Exact integer sums over some rounds (wins in ticks).

    Attributes
    ----------
    rounds, hits, triggered, capped, limited : int
        Rounds played; with a win > 0; that played a feature; capped; with a
        feature stopped at the spin limit.
    win, win2, base_win, feature_win, max_win : int
        Sum of round wins, of their squares, of base and feature wins, and the
        largest round win (ticks).
    features : dict of str -> list of int
        Feature -> [instances, spins, win in ticks].
    win_counts : dict of int -> int
        Round win (ticks) -> number of rounds (the simulated win distribution).
    """

    rounds: int = 0
    win: int = 0
    win2: int = 0
    base_win: int = 0
    feature_win: int = 0
    hits: int = 0
    triggered: int = 0
    capped: int = 0
    limited: int = 0
    max_win: int = 0
    features: dict = field(default_factory=dict)
    win_counts: dict = field(default_factory=dict)

    def add(self, other: "ChunkStats") -> "ChunkStats":
        """Add ``other`` into ``self`` (returns ``self``)."""
        for k in ("rounds", "win", "win2", "base_win", "feature_win", "hits", "triggered", "capped", "limited"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.max_win = max(self.max_win, other.max_win)
        for f, v in other.features.items():
            s = self.features.setdefault(f, [0, 0, 0])
            for i in range(3):
                s[i] += v[i]
        for w, c in other.win_counts.items():
            self.win_counts[w] = self.win_counts.get(w, 0) + c
        return self


def _chunk_stats(tables: Tables, mode: str, index: int, n: int, seed: int, max_spins: int) -> ChunkStats:
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))
    b = play_rounds(tables, mode, n, rng, max_spins)
    vals, cnt = np.unique(b.win, return_counts=True)
    return ChunkStats(
        rounds=n,
        win=sum(int(v) * int(c) for v, c in zip(vals, cnt)),
        win2=sum(int(v) * int(v) * int(c) for v, c in zip(vals, cnt)),
        base_win=int(b.base_win.sum()),
        feature_win=int(b.feature_win.sum()),
        hits=int((b.win > 0).sum()),
        triggered=int(b.triggered.sum()),
        capped=int(b.capped.sum()),
        limited=int(b.limited.sum()),
        max_win=int(vals[-1]) if len(vals) else 0,
        features={f: list(v) for f, v in b.features.items()},
        win_counts={int(v): int(c) for v, c in zip(vals, cnt)},
    )


def run_chunks(tables: Tables, mode: str, chunks, seed: int, max_spins: int = DEFAULT_MAX_SPINS) -> ChunkStats:
    """Play the chunks ``[(index, rounds), ...]`` and add their sums.

    This is the unit of work sent to a dask worker.
    """
    total = ChunkStats()
    for index, n in chunks:
        total.add(_chunk_stats(tables, mode, index, n, seed, max_spins))
    return total


@dataclass(frozen=True)
class SimulationResult:
    """Figures of a simulation (a *simulated* result: estimates with intervals).

    Attributes
    ----------
    game, mode : str
    rounds : int
    seed : int
    cost : Fraction
        Price of one round in total-bet multiples.
    total_cost : Fraction
        ``rounds * cost`` in total-bet multiples.
    total_win : Fraction
        Sum of round wins in total-bet multiples.
    rtp : float
        ``total_win / total_cost``.
    rtp_se : float
        Standard error of ``rtp``.
    rtp_ci95, rtp_ci99, rtp_ci999 : tuple of float
        Normal-approximation confidence intervals of the RTP, ``rtp +- z *
        rtp_se``, the low end clipped at 0 (:data:`CI_METHOD`;
        :meth:`clipped` says at which levels).
    hit_frequency, hit_frequency_se : float
        Share of rounds with a win > 0, and its standard error.
    feature_frequency, feature_frequency_se : float
        Share of rounds that played a feature, and its standard error.
    avg_feature_win : float
        Mean feature win per round that played a feature, total-bet multiples.
    base_rtp, feature_rtp : float
        Shares of the RTP from base spins and from features (before the cap).
    win_sd : float
        Sample standard deviation of the round win, total-bet multiples.
    max_win : Fraction
        Largest round win seen, total-bet multiples.
    capped_rounds : int
        Rounds whose win was cut to the cap.
    limited_rounds : int
        Rounds with a feature stopped at the spin limit (should be 0).
    features : dict
        Feature -> {"instances", "spins", "spins_per_instance",
        "win_per_instance"} (win in total-bet multiples).
    seconds, rounds_per_second : float
    workers, chunk : int
    win_counts : dict of Fraction -> int
        Round win (total-bet multiples) -> rounds; left out of :meth:`to_dict`
        (use :meth:`bucket_counts`).
    """

    game: str
    mode: str
    rounds: int
    seed: int
    cost: Fraction
    total_cost: Fraction
    total_win: Fraction
    rtp: float
    rtp_se: float
    rtp_ci95: tuple
    rtp_ci99: tuple
    rtp_ci999: tuple
    hit_frequency: float
    hit_frequency_se: float
    feature_frequency: float
    feature_frequency_se: float
    avg_feature_win: float
    base_rtp: float
    feature_rtp: float
    win_sd: float
    max_win: Fraction
    capped_rounds: int
    limited_rounds: int
    features: dict
    seconds: float
    rounds_per_second: float
    workers: int
    chunk: int
    win_counts: dict = field(default_factory=dict, repr=False)

    def bucket_counts(self, edges) -> list[int]:
        """Rounds per bucket ``(edges[i-1], edges[i]]`` (the first bucket: wins ``<= edges[0]``;
        wins above the last edge are counted in one more bucket)."""
        import bisect

        out = [0] * (len(edges) + 1)
        for w, c in self.win_counts.items():
            out[bisect.bisect_left(edges, w)] += c
        return out

    def interval(self, level: str = "99.9%") -> tuple:
        """RTP confidence interval at ``level`` (``"95%"``, ``"99%"``, ``"99.9%"``)."""
        return {"95%": self.rtp_ci95, "99%": self.rtp_ci99, "99.9%": self.rtp_ci999}[level]

    def clipped(self, level: str) -> bool:
        """Whether the normal approximation's low end ``rtp - z * rtp_se`` at ``level`` was below 0
        (and the interval's low end is the clipped 0)."""
        return self.rtp - Z[level] * self.rtp_se < 0

    def to_dict(self) -> dict:
        """JSON-ready dict (exact fractions as strings next to floats; ``rtp_ci_method`` says how
        the intervals are made, ``rtp_ci_clipped`` the levels whose low end was clipped at 0)."""
        d = asdict(self)
        d.pop("win_counts", None)
        for k in ("cost", "total_cost", "total_win", "max_win"):
            d[k] = str(getattr(self, k))
        d["max_win_float"] = float(self.max_win)
        for k in ("rtp_ci95", "rtp_ci99", "rtp_ci999"):
            d[k] = list(d[k])
        d["rtp_ci_method"] = CI_METHOD
        d["rtp_ci_clipped"] = [lv for lv in Z if self.clipped(lv)]
        return d

    @classmethod
    def from_stats(cls, tables: Tables, mode: str, s: ChunkStats, seed: int, seconds: float, workers: int, chunk: int):
        """Build the figures from exact sums (wins in ticks)."""
        n = s.rounds
        cost = tables.modes[mode]["cost"]
        tb = tables.denom * tables.total_bet  # ticks per total bet
        total_win = Fraction(s.win, tb)
        total_cost = cost * n
        rtp = float(total_win / total_cost) if n else math.nan
        var = Fraction(s.win2 * n - s.win * s.win, n * (n - 1) * tb * tb) if n > 1 else Fraction(0)
        sd = math.sqrt(var)  # total-bet multiples
        se = sd / float(cost) / math.sqrt(n) if n else math.nan
        # an RTP is >= 0: the normal approximation's low end is clipped there
        ci = {k: (max(rtp - z * se, 0.0), rtp + z * se) for k, z in Z.items()}
        p = s.hits / n if n else math.nan
        q = s.triggered / n if n else math.nan
        feats = {}
        for f, (inst, spins, w) in sorted(s.features.items()):
            feats[f] = {
                "instances": inst,
                "spins": spins,
                "spins_per_instance": spins / inst if inst else math.nan,
                "win_per_instance": float(Fraction(w, tb) / inst) if inst else math.nan,
            }
        return cls(
            game=tables.name,
            mode=mode,
            rounds=n,
            seed=seed,
            cost=cost,
            total_cost=total_cost,
            total_win=total_win,
            rtp=rtp,
            rtp_se=se,
            rtp_ci95=ci["95%"],
            rtp_ci99=ci["99%"],
            rtp_ci999=ci["99.9%"],
            hit_frequency=p,
            hit_frequency_se=math.sqrt(p * (1 - p) / n) if n else math.nan,
            feature_frequency=q,
            feature_frequency_se=math.sqrt(q * (1 - q) / n) if n else math.nan,
            avg_feature_win=float(Fraction(s.feature_win, tb) / s.triggered) if s.triggered else 0.0,
            base_rtp=float(Fraction(s.base_win, tb) / total_cost) if n else math.nan,
            feature_rtp=float(Fraction(s.feature_win, tb) / total_cost) if n else math.nan,
            win_sd=sd,
            max_win=Fraction(s.max_win, tb),
            capped_rounds=s.capped,
            limited_rounds=s.limited,
            features=feats,
            seconds=seconds,
            rounds_per_second=n / seconds if seconds > 0 else math.inf,
            workers=workers,
            chunk=chunk,
            win_counts={Fraction(w, tb): c for w, c in s.win_counts.items()},
        )


def _progress_bar(total: int, progress):
    from tqdm import tqdm

    disable = (not sys.stderr.isatty()) if progress is None else not progress
    return tqdm(total=total, unit="rounds", unit_scale=True, disable=disable, desc="simulate", smoothing=0.1)


def simulate(
    game: Game,
    mode: str | None = None,
    rounds: int = 1_000_000,
    seed: int = 0,
    *,
    workers: int = 1,
    scheduler: str | None = None,
    chunk: int = CHUNK,
    progress: bool | None = None,
    max_spins: int = DEFAULT_MAX_SPINS,
    stake=None,
) -> SimulationResult:
    """Play ``rounds`` rounds of a bet mode and estimate its figures.

    Parameters
    ----------
    game : Game
    mode : str, optional
        Bet mode name (default: the game's first mode).
    rounds : int
        Number of rounds.
    seed : int
        Root seed; the result depends only on ``(seed, rounds, chunk)``.
    workers : int
        Number of processes.  More than 1 without ``scheduler`` starts a
        local dask cluster of that many single-threaded worker processes.
    scheduler : str, optional
        Address of a running dask scheduler (``tcp://host:8786``); the work
        is sent there.
    chunk : int
        Rounds per random stream (changing it changes the draws).
    progress : bool, optional
        Show a tqdm bar (default: only when stderr is a terminal).
    max_spins : int
        Spin limit of one feature instance; rounds that reach it are counted
        in ``limited_rounds``.
    stake : number, optional
        Total stake per round in currency, for a model whose win cap is in
        currency (``cap.currency``): the round win is capped at
        ``cap.currency / stake`` total bets.

    Returns
    -------
    SimulationResult
        RTP in units of the bet paid; wins in total-bet multiples.

    Raises
    ------
    ModelError
        Unknown bet mode.
    UnsupportedMechanicError
        A feature kind the simulator cannot play.
    """
    if mode is None:
        mode = game.default_mode.name
    if mode not in game.modes:
        raise ModelError(game.path, "modes", f"no bet mode {mode!r}; the model has {', '.join(game.modes)}")
    if rounds < 1 or chunk < 1:
        raise ValueError(f"rounds and chunk must be positive, got rounds={rounds}, chunk={chunk}")
    tables = compile_tables(game, stake)
    # lazily: a long run's chunk list would fill the memory before the first round is played
    chunks = ((i, min(chunk, rounds - i * chunk)) for i in range((rounds + chunk - 1) // chunk))
    t0 = time.perf_counter()
    total = ChunkStats()
    with _progress_bar(rounds, progress) as bar:
        if workers <= 1 and scheduler is None:
            for c in chunks:
                total.add(run_chunks(tables, mode, [c], seed, max_spins))
                bar.update(c[1])
        else:
            total = _run_dask(tables, mode, list(chunks), seed, max_spins, workers, scheduler, bar)
    seconds = time.perf_counter() - t0
    return SimulationResult.from_stats(tables, mode, total, seed, seconds, max(workers, 1), chunk)


def _run_dask(tables, mode, chunks, seed, max_spins, workers, scheduler, bar) -> ChunkStats:
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler is None:
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    else:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as exc:
            raise AnalyticError(f"--scheduler: cannot reach the dask scheduler at {scheduler}: {exc}") from None
    try:
        n_workers = max(1, len(client.scheduler_info().get("workers", {})) or workers)
        per_task = max(1, math.ceil(len(chunks) / (n_workers * 8)))
        groups = [chunks[i : i + per_task] for i in range(0, len(chunks), per_task)]
        remote = client.scatter(tables, broadcast=True)
        futures = [client.submit(run_chunks, remote, mode, g, seed, max_spins, pure=False) for g in groups]
        total = ChunkStats()
        for fut in as_completed(futures):
            s = fut.result()
            total.add(s)
            bar.update(s.rounds)
        return total
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
