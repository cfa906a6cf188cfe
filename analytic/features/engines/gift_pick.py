"""Engine ``gift_pick``: free spins whose effects are picked from gifts.

Mechanic
--------
``c`` trigger symbols (scatters anywhere) award ``n0 = trigger.award(c)`` free spins
(no retriggers).  Before they start the player opens ``c`` of the ``G``
gifts (without replacement).  Each gift holds one effect:

* ``spins``: ``+v`` free spins;
* ``multiplier``: ``+v`` added to the initial multiplier (``multiplier``,
  default x1) of every free-spin win;
* ``wild_reel``: reel ``v`` is wild for the whole feature;
* ``wild_symbol``: symbol ``v`` is a wild during the feature;
* ``expanding_symbol``: symbol ``v`` expands for the whole feature, or with
  ``v = "drawn"`` a symbol drawn (weighted) from the feature's
  ``expanding_symbol`` declaration does.

The contents of the gifts are a model design (``gifts``).  The seed model
models/secrets_of_christmas.toml plays this mechanic (10 spins, 20 gifts;
its rule text and source are named in the model file).

Exact method
------------
*Pick state.*  Gifts with the same effect are interchangeable; with type
``t`` held by ``N_t`` gifts, a pick of ``k_t`` of each type (sum ``c``) has
probability ``prod_t C(N_t, k_t) / C(G, c)`` (multivariate hypergeometric).
Picks with the same *effect class* (extra spins, multiplier, wild reels,
wild symbols, expanding symbol) are merged, adding probabilities (exact
fractions).  A drawn expanding symbol splits its class by the drawn symbol
``s``, with probability ``w_s / sum w`` (the draw is independent of the pick).

*Spin class.*  Given the class, the spins are i.i.d.; one spin's law comes
from the joint line walk on the free reel set with each wild reel's windows
replaced by an all-wild window (same weight) and the wild symbols' cell
roles overridden to substitute like the wild; with an expanding symbol
``s`` a counter of the reels (rule ``expanding_count``: or cells) showing
``s`` adds ``paytable[s][k] * lines`` when ``k`` reaches the smallest paying
count (an all-wild reel shows no ``s``).  Its exact raw moments
``E[X^j]`` feed ``W = M * (X_1 + ... + X_n)`` with ``n = n0 + extra``:
``E[W^j] = M^j E[S_n^j]`` (binomial convolution of i.i.d. moments), and the
feature mixes over the classes.  Units: **total-bet multiples**.

*Currency cap.*  The round win is capped at ``C`` currency (``[cap] currency``), so
at total stake ``S`` at ``C / S`` total bets.  Where the theoretical maximum
round win ``Mx`` satisfies ``Mx * S <= C`` the cap cannot bind and the capped
RTP equals the exact one; elsewhere :func:`currency_cap_report` brackets it
with the certified moment bound of
:func:`analytic.features.engines.revealed_wild_reels.round_tail_bound` (per base
class and gift class).
"""

from __future__ import annotations

from fractions import Fraction
from functools import partial
from math import comb, lcm

from analytic.engine.linewalk import walk
from analytic.engine.linewin import CellRole
from analytic.engine.spin import CounterDef, build_spin, cell_roles, line_paytable, strip_windows
from analytic.errors import UnsupportedMechanicError
from analytic.features.engines.revealed_wild_reels import iid_sum_moments
from analytic.features.laws.capped import stake_row
from analytic.features.laws.spins_played import count_law
from analytic.features.result import FeatureResult, register_solver
from analytic.model.game import Game
from analytic.figures import Figure
from analytic.workspace import Workspace, workspace_for

__all__ = [
    "KIND",
    "EFFECTS",
    "gift_classes",
    "spin_class_moments",
    "feature_moments",
    "solve_feature",
    "feature_law",
    "max_round_win",
    "currency_cap_report",
]

#: The engine this module solves (the key of its solver and round solver).
KIND = "gift_pick"
EFFECTS = ("spins", "multiplier", "wild_reel", "wild_symbol", "expanding_symbol")
K_MOMENTS = 4


# parameters: built by engine gift_pick from the mechanics gift_pick and multiplier
# (analytic.model.mechanics.engines): "wild", "gifts", "multiplier"


# --------------------------------------------------------------------------
# the pick


def gift_classes(gifts, picks: int, base_multiplier: int = 1, draw=None) -> dict[tuple, Fraction]:
    """Exact law of the effect class after ``picks`` picks without replacement.

    Parameters
    ----------
    gifts : sequence of (effect, value, count)
        The gift types and how many gifts hold each.
    picks : int
        Number of gifts opened.
    base_multiplier : int
        Initial free-spin multiplier.
    draw : sequence of (str, int), optional
        ``(symbol, weight)`` pairs an ``expanding_symbol`` gift of value
        ``"drawn"`` draws from (required when such a gift exists).

    Returns
    -------
    dict
        ``(extra spins, multiplier, wild reels (sorted tuple), wild symbols
        (sorted tuple), expanding symbol or None) -> probability`` (Fractions
        summing to 1).

    Raises
    ------
    ValueError
        A ``"drawn"`` gift without ``draw``.
    """
    total = sum(n for _, _, n in gifts)
    denom = comb(total, picks)
    # gift entry by gift entry, the classes of the gifts picked so far: (picked, spins, multiplier, wild
    # reels, wild symbols, expanding) -> the number of ways (products of binomials), merged as they meet;
    # the product over every entry's pick count ((picks + 1) ^ entries tuples: 20 spin gifts picked 3 at a
    # time never ended) is never enumerated
    cur: dict[tuple, int] = {(0, 0, base_multiplier, (), (), None): 1}
    for eff, val, n in gifts:
        nxt: dict[tuple, int] = {}
        for (got, spins, mult, reels, syms, exp), w in cur.items():
            for k in range(min(n, picks - got) + 1):
                s2, m2, r2, y2, e2 = spins, mult, reels, syms, exp
                if k:
                    if eff == "spins":
                        s2 = spins + k * val
                    elif eff == "multiplier":
                        m2 = mult + k * val
                    elif eff == "wild_reel":
                        r2 = tuple(sorted(set(reels) | {val}))
                    elif eff == "expanding_symbol":
                        e2 = val
                    else:
                        y2 = tuple(sorted(set(syms) | {val}))
                key = (got + k, s2, m2, r2, y2, e2)
                nxt[key] = nxt.get(key, 0) + w * comb(n, k)
        cur = nxt
    out: dict[tuple, int] = {}
    for (got, *key), w in cur.items():
        if got == picks:
            out[tuple(key)] = out.get(tuple(key), 0) + w
    res: dict[tuple, Fraction] = {}
    for k, w in out.items():
        if k[4] != "drawn":
            res[k] = res.get(k, 0) + Fraction(w, denom)
            continue
        if not draw:
            raise ValueError("an expanding_symbol gift of value 'drawn' needs the symbols to draw from")
        wt = sum(x for _, x in draw)
        for sym, x in draw:
            kk = k[:4] + (sym,)
            res[kk] = res.get(kk, 0) + Fraction(w * x, denom * wt)
    return dict(sorted(res.items(), key=lambda kv: kv[0][:4] + (kv[0][4] or "",)))


# --------------------------------------------------------------------------
# one free spin of a class


def _class_table(game: Game, feature: str, reels: tuple, symbols: tuple, expanding: str | None = None
                 ) -> dict[int, int]:
    """Exact law of one free spin's win (line-bet units, multiplier 1) of a class: win -> weight.

    ``expanding``: the class's expanding symbol (None: none); its pay is
    ``paytable[s][min(k, top)] * lines`` for ``k`` (rule ``expanding_count``)
    at least the smallest paying count, added to the line wins.
    """
    f = game.features[feature]
    if game.scatter is not None and any(v for v in game.scatter.pays.values()):
        raise UnsupportedMechanicError(f"engine '{KIND}' models no scatter pays; remove [scatter] pays")
    wild = f.params["wild"]
    pt, index = line_paytable(game)
    roles = dict(cell_roles(game, index))
    wr = roles[wild]
    for s in symbols:
        roles[s] = CellRole(wr.supports | roles[s].supports, wr.multiplier)
    windows = []
    for r, strip in enumerate(game.reel_sets[f.reel_set], start=1):
        if r in reels:
            windows.append({(wild,) * game.rows: len(strip)})
        else:
            windows.append(strip_windows(strip, game.rows))
    counters = ()
    epay: dict[int, int] = {}
    if expanding is not None:
        counters = (CounterDef("expanding", frozenset({expanding}), str(game.rules.get("expanding_count", "reels"))),)
        row = game.paytable[expanding]
        kmin, kmax = min(k for k, v in row.items() if v > 0), max(row)
        epay = {k: row.get(min(k, kmax), 0) * len(game.lines) for k in range(kmin, game.reels * game.rows + 1)}
    spec = build_spin(game, counters=counters, windows=windows, roles=roles, paytable=pt)
    dist = walk(spec)
    out: dict[int, int] = {}
    for key, c in dist.table.items():
        x = key[-1] + (epay.get(key[0], 0) if expanding is not None else 0)
        out[x] = out.get(x, 0) + c
    return out


def _table(game: Game, feature: str, reels: tuple, symbols: tuple, ws: Workspace | None = None,
           expanding: str | None = None) -> dict[int, int]:
    """:func:`_class_table`, walked once per workspace and class."""
    return workspace_for(game, ws).memo(("gift_pick.table", feature, reels, symbols, expanding),
                                        lambda: _class_table(game, feature, reels, symbols, expanding))


#: In a worker process of :func:`prefetch_tables` only: the game it was started with (by the
#: pool's initializer, inherited through ``fork``, never pickled); never set in the parent.
_WORKER_GAME: list = []


def _init_worker(game: Game) -> None:
    _WORKER_GAME[:] = [game]


def _walk_job(args):
    feature, reels, symbols, expanding = args
    return _class_table(_WORKER_GAME[0], feature, reels, symbols, expanding)


def prefetch_tables(game: Game, feature: str, classes, ws: Workspace | None = None) -> None:
    """Walk the spin classes ``(reels, symbols, expanding)`` not yet in the workspace, on ``ws.workers`` processes.

    The walks are independent and exact; a class without wild reels and with
    more wild symbols is the costliest, so those start first.  Runs in this
    process where ``fork`` is unavailable or ``ws.workers`` is 1 (a fresh
    workspace when ``ws`` is None); the tables are the same either way.
    """
    import multiprocessing as mp

    ws = workspace_for(game, ws)
    todo = sorted({tuple(c) for c in classes if ("gift_pick.table", feature) + tuple(c) not in ws},
                  key=lambda c: (len(c[0]), -len(c[1])))
    if not todo:
        return
    procs = min(ws.workers, len(todo))
    if procs > 1 and "fork" in mp.get_all_start_methods():
        with mp.get_context("fork").Pool(procs, initializer=_init_worker, initargs=(game,)) as pool:
            tables = pool.map(_walk_job, [(feature, r, s, e) for r, s, e in todo], chunksize=1)
    else:
        tables = [_class_table(game, feature, r, s, e) for r, s, e in todo]
    for (r, s, e), t in zip(todo, tables):
        ws.put(("gift_pick.table", feature, r, s, e), t)


def spin_class_moments(game: Game, feature: str, reels: tuple, symbols: tuple, k: int = K_MOMENTS,
                       ws: Workspace | None = None, expanding: str | None = None) -> dict:
    """Exact raw moments of one free spin's win (multiplier 1) of a class.

    Parameters
    ----------
    game : Game
    feature : str
    reels : tuple of int
        Wild reels (1-based).
    symbols : tuple of str
        Symbols turned wild.
    expanding : str, optional
        The class's expanding symbol (None: none).
    k : int
    ws : Workspace, optional
        The solve's workspace for ``game`` (None: a fresh one).

    Returns
    -------
    dict
        ``moments`` (``E[X^j]``, j = 0..k, total-bet multiples), ``max``
        (largest spin win, total-bet multiples), ``hit`` (P(X > 0)).
    """
    table = _table(game, feature, reels, symbols, ws, expanding)
    tb = game.total_bet
    cycle = sum(table.values())
    sums = [0] * (k + 1)
    hit = top = 0
    for x, c in table.items():
        p = 1
        for j in range(k + 1):
            sums[j] += p * c
            p *= x
        hit += c if x else 0
        top = max(top, x)
    return {"moments": [Fraction(sums[j], cycle * tb**j) for j in range(k + 1)],
            "max": Fraction(top, tb), "hit": Fraction(hit, cycle)}


def _spin(game: Game, feature: str, reels: tuple, symbols: tuple, ws: Workspace, expanding: str | None = None
          ) -> dict:
    return ws.memo(("gift_pick.spin", feature, reels, symbols, expanding),
                   lambda: spin_class_moments(game, feature, reels, symbols, ws=ws, expanding=expanding))


def classes_of(game: Game, feature: str, count: int) -> dict[tuple, Fraction]:
    """:func:`gift_classes` of ``feature`` started by ``count`` trigger symbols (its declared gifts and draw)."""
    p = game.features[feature].params
    return gift_classes(p["gifts"], count, p["multiplier"], p.get("draw"))


def feature_moments(game: Game, feature: str, count: int, k: int = K_MOMENTS, ws: Workspace | None = None) -> dict:
    """Exact raw moments of the feature win started by ``count`` scatters.

    ``ws``: the solve's workspace for ``game`` (None: a fresh one).

    Returns
    -------
    dict
        ``moments`` (``E[W^j]``, j = 0..k, total-bet multiples),
        ``expected_spins``, ``max`` (largest feature win), ``classes``
        (effect class -> dict of ``probability``, ``spins``, ``multiplier``,
        ``mean``, ``second_moment``, ``spin_mean``, ``max``).
    """
    ws = workspace_for(game, ws)
    return ws.memo(("gift_pick.feature", feature, count, k), lambda: _feature_moments(game, feature, count, k, ws))


def _start_spins(f, count: int) -> int:
    """Spins a feature starts with for ``count`` trigger symbols: ``trigger.counts`` of the largest listed
    count not above it (docs/model-format.md, ``trigger.counts``); the gifts picked are ``count``."""
    return f.trigger.award(count)


def _feature_moments(game: Game, feature: str, count: int, k: int, ws: Workspace) -> dict:
    f = game.features[feature]
    n0 = _start_spins(f, count)
    classes = classes_of(game, feature, count)
    allc = set()
    for c in f.trigger.counts:  # every count's spin classes at once, walked in parallel
        allc |= {(r, sy, e) for (_, _, r, sy, e) in classes_of(game, feature, c)}
    prefetch_tables(game, feature, allc, ws)
    mom = [Fraction(0)] * (k + 1)
    spins = Fraction(0)
    top = Fraction(0)
    p_zero = Fraction(0)  # every spin of the feature wins nothing
    det = {}
    for (extra, mult, reels, syms, exp), p in classes.items():
        sm = _spin(game, feature, reels, syms, ws, exp)
        n = n0 + extra
        wm = [mult**j * v for j, v in enumerate(iid_sum_moments(sm["moments"][:k + 1], n))]
        for j in range(k + 1):
            mom[j] += p * wm[j]
        spins += p * n
        p_zero += p * (1 - sm["hit"]) ** n
        mx = mult * n * sm["max"]
        top = max(top, mx)
        det[(extra, mult, reels, syms, exp)] = {
            "probability": p, "spins": n, "multiplier": mult, "wild_reels": reels, "wild_symbols": syms,
            "expanding_symbol": exp,
            "mean": wm[1], "second_moment": wm[2], "spin_mean": sm["moments"][1], "max": mx, "raw_moments": wm,
        }
    return {"moments": mom, "expected_spins": spins, "max": top, "classes": det, "p_zero": p_zero}


def feature_law(game: Game, feature: str, count: int, ws: Workspace | None = None):
    """Certified law of the feature win started by ``count`` trigger symbols, on a grid.

    Per gift class the ``n`` spins are i.i.d.; the classes sharing a spin
    law and a multiplier differ only in ``n``, so each such group is one
    mixture of i.i.d. sums (:func:`analytic.features.laws.iid_sums.iid_sums_law`:
    one Fourier transform of the class's exact one-spin law, one inverse for
    every ``n``), scaled by the multiplier; the groups are mixed with their
    probabilities (:func:`analytic.features.laws.retrigger_law.mix_laws`).

    Returns
    -------
    GridLaw or None
        Wins in total-bet multiples with a certified total-variation error;
        None when some group's law does not fit the grid.
    """
    from analytic.features.laws.iid_sums import iid_sums_laws
    from analytic.features.laws.retrigger_law import GridLaw, mix_laws

    ws = workspace_for(game, ws)

    def build():
        n0 = _start_spins(game.features[feature], count)
        groups: dict[tuple, dict[int, dict[int, Fraction]]] = {}  # spin law -> multiplier -> {n: p}
        for (extra, mult, reels, syms, exp), p in classes_of(game, feature, count).items():
            g = groups.setdefault((reels, syms, exp), {}).setdefault(mult, {})
            g[n0 + extra] = g.get(n0 + extra, 0) + p
        parts = []
        for (reels, syms, exp), by_mult in groups.items():
            tots = {m: sum(ns.values()) for m, ns in by_mult.items()}
            laws = iid_sums_laws(_table(game, feature, reels, syms, ws, exp), game.total_bet,
                                 {m: {n: p / tots[m] for n, p in ns.items()} for m, ns in by_mult.items()})
            for mult, law in laws.items():
                if law is None:
                    return None
                parts.append((tots[mult], GridLaw(law.step * mult, law.probs, law.error, law.method)))
        return mix_laws(parts)

    return ws.memo(("gift_pick.law", feature, count), build)


def solve_feature(game: Game, feature: str, count: int, mode: str, *, ws: Workspace | None = None) -> FeatureResult:
    """Exact figures of gift-pick free spins started by ``count`` scatters.

    Parameters
    ----------
    game : Game
    feature : str
    count : int
        Scatters that triggered (= gifts picked).
    mode : str
        Bet mode (unused: free spins play at the triggering bet).
    ws : Workspace, optional
        The solve's workspace for ``game`` (None: a fresh one).

    Returns
    -------
    FeatureResult
        Exact mean and second moment (total-bet multiples), expected spins,
        ``details["classes"]`` per gift effect class, ``law`` the certified
        grid law of the feature win (:func:`feature_law`; None when it cannot
        be certified).
    """
    ws = workspace_for(game, ws)
    fm = feature_moments(game, feature, count, ws=ws)
    law = feature_law(game, feature, count, ws)
    return FeatureResult(
        feature=feature,
        count=count,
        mean=Figure(fm["moments"][1]),
        second_moment=Figure(fm["moments"][2]),
        expected_spins=Figure(fm["expected_spins"]),
        end_probabilities={"spins exhausted": Figure(Fraction(1))},
        method=(f"gift pick enumerated exactly ({count} of {sum(n for *_, n in game.features[feature].params['gifts'])}"
                " without replacement, merged by effect class); per class a fixed countdown of i.i.d. spins "
                "(no retriggers) with exact per-spin moments from the joint line walk (wild reels = all-wild "
                "windows, wild symbols = role override)"
                + (f"; win distribution: i.i.d. powers on a Fourier grid, certified error {law.error:.1e}"
                   if law is not None else "; win distribution not certifiable on the grid")),
        details={"classes": fm["classes"], "max_feature_win": fm["max"], "raw_moments": fm["moments"]},
        p_zero=fm["p_zero"],
        law=law,
        spins_law_source=partial(count_law, *_spins_counts(game, feature, count)),
    )


def _spins_counts(game: Game, feature: str, count: int) -> tuple[dict, str]:
    n0 = _start_spins(game.features[feature], count)
    law: dict[int, Fraction] = {}
    for (extra, *_), p in classes_of(game, feature, count).items():
        law[n0 + extra] = law.get(n0 + extra, Fraction(0)) + p
    return law, (f"{n0} spins plus the extra spins of the {count} gifts opened (exact pick law), "
                 "no retriggers")


def spins_law(game: Game, feature: str, count: int):
    """Exact law of the spins played: ``n0`` plus the extra spins of the gifts opened (no retriggers).

    From the exact law of the gift classes (:func:`classes_of`), merged by
    their extra spins.

    Returns
    -------
    analytic.features.laws.spins_played.SpinsLaw
    """
    return count_law(*_spins_counts(game, feature, count))


register_solver(KIND, solve_feature)


# --------------------------------------------------------------------------
# max win and the currency cap


def max_round_win(game: Game, mode: str | None = None, base=None, ws: Workspace | None = None) -> Fraction:
    """Theoretical maximum round win (total-bet multiples, uncapped).

    Largest base win among spins starting the feature with a given count plus
    that count's largest feature win (best class, every spin the best
    outcome), or the largest base win.  ``base`` reuses a solved base spin;
    ``ws`` is the solve's workspace for ``game`` (None: a fresh one).
    """
    from analytic.engine.base_game import solve_base

    ws = workspace_for(game, ws)
    m = game.modes[mode] if mode else game.default_mode
    if m.buys is not None:
        return max(feature_moments(game, m.buys, c, ws=ws)["max"] for c, w in m.buy_counts.items() if w)
    base = base if base is not None else solve_base(game, m.name)
    best = Fraction(0)
    for (feat, n, lt, win), cnt in base.joint.items():
        v = Fraction(win, base.units)
        if feat is not None:
            v += feature_moments(game, feat, n, ws=ws)["max"]
        best = max(best, v)
    return best


def _tail_terms(game: Game, m, base, ws: Workspace) -> list[tuple[Fraction, Fraction, list]]:
    """``(probability, largest win, raw moments of the win)`` per base class and gift class.

    Cap-independent, so built once for every stake.
    """

    out = []
    if m.buys is not None:
        tot = sum(m.buy_counts.values())
        for c, w in m.buy_counts.items():
            for d in feature_moments(game, m.buys, c, ws=ws)["classes"].values():
                if w:
                    out.append((Fraction(w, tot) * d["probability"], d["max"], d["raw_moments"]))
        return out
    k = K_MOMENTS
    for (feat, n, lt, win), cnt in base.joint.items():
        p = Fraction(cnt, base.cycle)
        b = Fraction(win, base.units)
        if feat is None:
            out.append((p, b, [b**j for j in range(k + 1)]))
            continue
        bm = [b**j for j in range(k + 1)]
        for d in feature_moments(game, feat, n, ws=ws)["classes"].values():
            out.append((p * d["probability"], b + d["max"], (bm, d["raw_moments"])))
    return out


def _round_tail_bound(terms, cap: Fraction) -> Fraction:
    """Certified upper bound of ``E[(R - C)+]`` per base class and gift class.

    Same bound as :func:`analytic.features.engines.revealed_wild_reels.round_tail_bound`
    (:func:`~analytic.features.engines.revealed_wild_reels.tail_bound` of each
    class's exact moments); classes whose largest win is at most ``C``
    contribute exactly 0.
    """
    from analytic.features.engines.revealed_wild_reels import add_independent, tail_bound

    out = Fraction(0)
    for i, (p, top, mom) in enumerate(terms):
        if top <= cap:
            continue
        if isinstance(mom, tuple):
            mom = add_independent(*mom)
            terms[i] = (p, top, mom)  # cached for the next stakes
        out += p * tail_bound(mom, cap)
    return out


def currency_cap_report(game: Game, mode: str | None = None, base=None, ws: Workspace | None = None,
                        exact_stakes: bool = True) -> list[dict]:
    """The RTP under the currency cap at each declared stake.

    Parameters
    ----------
    game : Game
        With ``cap.currency`` and ``cap.stakes`` (total stake per round).
    mode : str, optional
    base : BaseResult, optional
        The mode's solved base spin (solved here when omitted).
    ws : Workspace, optional
        The solve's workspace for ``game`` (None: a fresh one).
    exact_stakes : bool
        True (default): the capped RTP and ``P(R >= c)`` at every binding
        stake exactly, from ONE exact law of the round win truncated at the
        largest binding cap (:func:`capped_rtp_exact`, read at each stake's
        cap through its prefix sums, :class:`~analytic.features.laws.capped.Prefix`);
        each exact figure is checked to lie in its moment bracket.  False:
        the moment brackets only (cheaper).

    Returns
    -------
    list of dict
        Per stake: ``stake`` (currency), ``cap_multiple`` (cap in total-bet
        multiples, ``currency / stake``), ``binds`` (whether the theoretical
        maximum round win exceeds it, i.e. the cap can bind),
        ``lower``/``upper`` (the capped RTP's certified bracket; both the
        exact figure where it is computed), ``capped_rtp`` (Figure: exact
        where the cap cannot bind or ``exact_stakes``, else the bracket,
        label ``bounded``), ``p_reach_cap`` (exact Figure, binding rows with
        ``exact_stakes``), ``max_win`` (total-bet multiples).

    Notes
    -----
    Cost of the exact rows: the truncated powers of each spin law, of
    length ``cap / grid`` at the largest binding cap (Secrets of Christmas:
    100,000 points of a fifth of a bet below 20,000 bets, about 35 s of CPU).
    ``stake`` is the total bet of a regular spin in currency; a feature buy
    costs ``cost * stake`` and wins are total-bet multiples times ``stake``.
    """
    from analytic.engine.base_game import solve_base

    ws = workspace_for(game, ws)
    m = game.modes[mode] if mode else game.default_mode
    if m.buys is None and base is None:
        base = solve_base(game, m.name)
    mom = round_raw_moments_from(game, m, base, ws)
    mx = max_round_win(game, m.name, base, ws)
    rtp = mom / m.cost
    terms = _tail_terms(game, m, base, ws)
    caps = [game.cap.currency / s for s in game.cap.stakes]
    binding = [c for c in caps if mx > c]
    exact = None
    if binding and exact_stakes:
        from analytic.features.laws.capped import Prefix

        exact = Prefix(capped_rtp_exact(game, m.name, max(binding), base=base, ws=ws)["law"])
    out = []
    for s, c in zip(game.cap.stakes, caps):
        if mx <= c:
            reach = Figure(Fraction(0)) if exact is not None and mx < c else None
            out.append(stake_row(s, c, Figure(rtp), False, reach, mx))
            continue
        lo = rtp - _round_tail_bound(terms, c) / m.cost
        if exact is None:
            out.append(stake_row(s, c, Figure((lo + rtp) / 2, "bounded", (rtp - lo) / 2), True, max_win=mx))
            continue
        mean, reach = exact.capped(0, c)
        if not lo <= mean / m.cost <= rtp:  # the moment bracket is certified: an exact figure outside is a defect
            raise AssertionError(f"exact capped RTP at stake {s} outside its certified bracket")
        out.append(stake_row(s, c, Figure(mean / m.cost), True, Figure(reach), mx))
    return out


def round_raw_moments_from(game: Game, m, base, ws: Workspace | None = None) -> Fraction:
    """Exact mean round win (total-bet multiples) from a solved base spin (``ws``: the solve's workspace)."""
    ws = workspace_for(game, ws)
    if m.buys is not None:
        tot = sum(m.buy_counts.values())
        return sum((Fraction(w, tot) * feature_moments(game, m.buys, c, ws=ws)["moments"][1]
                    for c, w in m.buy_counts.items() if w), Fraction(0))
    out = Fraction(0)
    for (feat, n, lt, win), cnt in base.joint.items():
        v = Fraction(win, base.units)
        if feat is not None:
            v += feature_moments(game, feat, n, ws=ws)["moments"][1]
        out += cnt * v
    return out / base.cycle


def solve_round_with_cap_report(game: Game, mode: str, *, plain, ws: Workspace | None = None):
    """Plain exact round figures plus the currency-cap report per stake.

    ``plain``: the mode's round without cap (``solve_round(game, mode, plain=True)``); ``ws``: the
    solve's workspace for ``game`` (None: a fresh one).

    Returns
    -------
    RoundResult
        ``rtp`` is the exact uncapped RTP (the cap depends on the stake);
        ``extra["currency_cap"]`` is :func:`currency_cap_report`,
        ``extra["max_win"]`` the theoretical maximum round win (total-bet
        multiples) and ``extra["cap_free_stake_limit"]`` the stake below
        which the cap can never bind (``currency / max_win``).
    """
    from dataclasses import replace

    ws = workspace_for(game, ws)
    res = plain
    extra = dict(res.extra)
    mx = max_round_win(game, res.mode, res.base, ws)
    extra["max_win"] = mx
    if game.cap is not None and game.cap.currency is not None:
        extra["cap_free_stake_limit"] = game.cap.currency / mx if mx else None
        extra["currency_cap"] = currency_cap_report(game, res.mode, res.base, ws)
        if any(r["binds"] for r in extra["currency_cap"]):
            return replace(res, extra=extra, methods={**res.methods, "currency cap (exact)": (
                "every binding stake exactly: one exact law of the round win below the largest binding cap "
                "(truncated polynomial powers of each spin law in integers), read at each stake's cap by its "
                "prefix sums; each figure checked inside its certified moment bracket")})
    return replace(res, extra=extra)


def _register_round() -> None:
    from analytic.features.result import register_round_solver

    register_round_solver(KIND, solve_round_with_cap_report)


_register_round()


def capped_rtp_exact(game: Game, mode: str | None, cap: Fraction, base=None, ws: Workspace | None = None) -> dict:
    """Exact RTP with the round win capped at ``cap`` total bets (truncated polynomial powers).

    Per count and gift class the spin law (integer weights) is raised to the
    spins below ``cap / multiplier`` (:mod:`analytic.features.laws.capped`), the
    classes are mixed and combined with the base spin's joint law.  Classes
    whose largest round win stays below ``cap`` are included all the same
    (the method is exact either way).  Cost grows with ``cap`` (polynomial
    length ``cap / grid``): meant for a few stakes, not the whole table.
    ``ws``: the solve's workspace for ``game`` (None: a fresh one).

    Returns
    -------
    dict
        ``capped_rtp``, ``p_reach_cap`` (Fractions), ``law`` (the capped
        round law, :class:`~analytic.features.laws.capped.TruncatedLaw`).
    """
    from analytic.features.laws import capped
    from analytic.engine.base_game import solve_base

    ws = workspace_for(game, ws)
    m = game.modes[mode] if mode else game.default_mode
    cap = Fraction(cap)
    tb = game.total_bet

    def flaws(wanted) -> dict:
        """``(feature, count) -> TruncatedLaw`` of one feature play, for every key in ``wanted``.

        Classes sharing a spin law (feature, reel set, symbols, expansion) share its
        powers, across trigger counts too: the sums of ``n`` spins for every ``n`` the
        classes need come from one chain of truncated products
        (:func:`~analytic.features.laws.capped.iid_sums`) at the length the smallest
        multiplier needs; a class with multiplier ``m`` reads the first
        ``ceil(cap / (m g))`` points (the law of ``m S_n`` below the cap).  Each sum is
        added to its feature's mixture as soon as it is made (the weights' common
        denominator and grid are known beforehand), so memory holds one sum per
        spin law, not one per class.
        """
        from math import gcd

        by_law: dict = {}
        for feature, count in wanted:
            n0 = _start_spins(game.features[feature], count)
            classes = classes_of(game, feature, count)
            prefetch_tables(game, feature, {(r, s, e) for (_, _, r, s, e) in classes}, ws)
            den = 1
            for p in classes.values():
                den = den * p.denominator // gcd(den, p.denominator)
            for (extra, mult, reels, syms, exp), p in classes.items():
                if p:
                    by_law.setdefault((feature, reels, syms, exp), []).append(
                        ((feature, count), n0 + extra, mult, int(p * den)))
        spin = {}
        grid, total, weight = {}, {}, {}
        for (feature, reels, syms, exp), items in by_law.items():
            t = _table(game, feature, reels, syms, ws, exp)
            sl = spin[(feature, reels, syms, exp)] = capped.law_from_weights(
                {Fraction(x, tb): c for x, c in t.items()}, cap / min(m for _, _, m, _ in items))
            for key, n, mult, w in items:
                grid[key] = capped._frac_gcd(grid.get(key, Fraction(0)), sl.grid * mult)
                total[key] = lcm(total.get(key, 1), sl.total**n)
                weight[key] = weight.get(key, 0) + w
        acc = {key: None for key in grid}
        for lk, items in by_law.items():
            for n, power in capped.iid_sums(spin[lk], sorted({n for _, n, _, _ in items})):
                for key, n_i, mult, w in items:
                    if n_i != n:
                        continue
                    g = power.grid * mult
                    L = capped.TruncatedLaw(power.poly, power.total, g, cap).length
                    part = capped.regrid(capped.TruncatedLaw(power.poly.truncate(L), power.total, g, cap),
                                         grid[key]).poly * (w * (total[key] // power.total))
                    acc[key] = part if acc[key] is None else acc[key] + part
        return {key: capped.TruncatedLaw(acc[key], total[key] * weight[key], grid[key], cap) for key in acc}

    if m.buys is not None:
        got = flaws([(m.buys, c) for c, w in m.buy_counts.items() if w])
        law = capped.mixture([(w, got[(m.buys, c)]) for c, w in m.buy_counts.items() if w])
    else:
        base = base if base is not None else solve_base(game, m.name)
        feats = flaws(sorted({(feat, n) for (feat, n, _lt, _win) in base.joint if feat is not None}))
        classes = [(cnt, Fraction(win, base.units), None if feat is None else (feat, n))
                   for (feat, n, lt, win), cnt in base.joint.items()]
        law = capped.round_law(classes, feats, cap)
    mean, _, reach = law.capped_moments()
    return {"capped_rtp": mean / m.cost, "p_reach_cap": reach, "law": law}
