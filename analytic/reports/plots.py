"""Par-sheet plots (matplotlib, Agg backend) as PNG bytes.

Each function draws values already in the :class:`~analytic.reports.model.ParSheet`;
nothing is computed here beyond positions on the page.
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402

from analytic.reports.format import fig_pct  # noqa: E402
from analytic.reports.model import ModeSheet, ParSheet  # noqa: E402

__all__ = ["exceedance_png", "distribution_png", "rtp_split_png", "bands_png", "paylines_png", "session_png", "autoplay_png",
           "stake_png"]


def _lit(text) -> str:
    """Text from the model file (a bet-mode or feature name) as literal matplotlib text: ``$`` escaped,
    else ``"ante $2 or $5"`` is read as mathtext (the dollars gone, the text set as math, or an
    exception on what mathtext cannot parse: ``x$\\frac{$y``).  (Mathtext stays on for the log axes'
    tick labels.)"""
    return str(text).replace("$", r"\$")


def _png(fig, dpi: int = 110) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def distribution_png(m: ModeSheet) -> bytes:
    """Bar chart of bucket probabilities on a log scale.  A row whose certified interval reaches 0
    (a grid law's far rows: centre at most its error; the table prints ``[0, p + e]``) is drawn
    hatched up to its upper bound and named so in the legend, not as a solid bar at its centre."""
    from analytic.reports.model import row_errors

    rows = [b for b in m.distribution.buckets]
    errs = [pe for pe, _, _ in row_errors(m.distribution, m.info.cost)]
    fig, ax = plt.subplots(figsize=(7, 3))
    labels = [b.label if b.low is not None else "feature rounds" for b in rows]
    loose = [bool(pe) and b.probability <= pe for b, pe in zip(rows, errs)]
    vals = [float(b.probability) for b in rows]
    ax.bar(range(len(rows)), [v if v > 0 and not lo else float("nan") for v, lo in zip(vals, loose)],
           color="#3b6ea5")
    if any(loose):
        ax.bar(range(len(rows)), [float(min(b.probability + pe, 1)) if lo else float("nan")
                                  for b, pe, lo in zip(rows, errs, loose)],
               facecolor="white", edgecolor="#3b6ea5", hatch="///", linewidth=0.8,
               label="upper bound only (certified interval reaches 0)")
        ax.legend(fontsize=7)
    ax.set_yscale("log")
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(range(len(rows)), labels, rotation=45, ha="right", fontsize=7)
    ax.set_ylabel("probability")
    ax.set_xlabel("win (x total bet)")
    ax.set_title(f"Win distribution, mode '{_lit(m.info.name)}' ({m.distribution.scope})", fontsize=9)
    ax.grid(axis="y", which="major", alpha=0.3)
    return _png(fig)


def exceedance_png(m: ModeSheet) -> bytes:
    """P(round win >= x) on the ladder, both axes log scale (the certified upper bounds drawn, the lower
    bounds too where they differ; rows of probability 0 are left off, a cap is a dashed line)."""
    ex = m.exceedance
    fig, ax = plt.subplots(figsize=(7, 3))
    xs = [float(r.threshold) for r in ex.rows if r.high > 0]
    hi = [float(r.high) for r in ex.rows if r.high > 0]
    lo = [float(r.low) if r.low > 0 else float("nan") for r in ex.rows if r.high > 0]
    ax.plot(xs, hi, marker="o", ms=3, color="#3b6ea5", drawstyle="steps-post",
            label="P(win >= x)" if ex.label == "exact" else "upper bound")
    if ex.label != "exact":
        ax.plot(xs, lo, marker="v", ms=3, ls="--", color="#c0504d", drawstyle="steps-post", label="lower bound")
    caps = [float(r.threshold) for r in ex.rows if r.label.endswith("(cap)")]
    for c in caps:
        ax.axvline(c, color="grey", ls=":", lw=1, label="win cap")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("x (multiples of the total bet)")
    ax.set_ylabel("P(round win >= x)")
    ax.set_title(f"Exceedance, mode '{_lit(m.info.name)}' ({ex.label})", fontsize=9)
    ax.grid(which="major", alpha=0.3)
    ax.legend(fontsize=7)
    return _png(fig)


def rtp_split_png(m: ModeSheet) -> bytes:
    """Horizontal bar of the RTP split by component."""
    fig, ax = plt.subplots(figsize=(7, 0.5 + 0.35 * max(len(m.components), 1)))
    names = [_lit(n) for n, _ in m.components]
    vals = [float(f.value) * 100 for _, f in m.components]
    ax.barh(range(len(names)), vals, color="#c0504d")
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.invert_yaxis()
    for i, v in enumerate(vals):
        ax.text(v, i, f" {v:.3f}%" if v >= 0 else f"{v:.3f}% ", va="center", ha="left" if v >= 0 else "right",
                fontsize=7)
    ax.set_xlabel("RTP (%)")
    lo, hi = min(vals + [0]), max(vals + [1])
    pad = 0.25 * (hi - lo)  # room for the labels beyond each end (a negative cap deduction to the left)
    ax.set_xlim(lo - pad if lo < 0 else 0, hi + pad)
    if lo < 0:
        ax.axvline(0, color="black", linewidth=0.6)
    ax.set_title(f"RTP split, mode '{_lit(m.info.name)}': {fig_pct(m.rtp)}", fontsize=9)
    return _png(fig)


def _band_segments(ax, xs, m, levels, approx_at, shades, first: int = 0) -> None:
    """Fill each level's band on ``ax`` from the ``first`` N on: a segment between two N plain where
    both ends are certified at that level, hatched where either end is the normal approximation."""
    mixed = any(a for lv in levels for a in approx_at[lv]) and not all(a for lv in levels for a in approx_at[lv])
    for k, lv in sorted(enumerate(levels), key=lambda t: -t[1]):
        lo = [r.ranges[k][1] * 100 for r in m.bands]
        hi = [r.ranges[k][2] * 100 for r in m.bands]
        shade = shades.get(lv, "#eeeeee")
        approx = approx_at[lv]
        if len(xs) == 1 or not mixed:
            ax.fill_between(xs[first:], lo[first:], hi[first:], color=shade)
            continue
        for i in range(first, len(xs) - 1):
            part = slice(i, i + 2)
            if approx[i] or approx[i + 1]:
                ax.fill_between(xs[part], lo[part], hi[part], facecolor=shade, edgecolor="#7f7f7f", hatch="///",
                                linewidth=0)
            else:
                ax.fill_between(xs[part], lo[part], hi[part], color=shade)


def bands_png(m: ModeSheet) -> bytes:
    """RTP confidence bands against rounds played (10^3 .. 10^8, log scale).

    Each level's band is plain where that level's range is certified at both ends of a segment
    (:meth:`~analytic.reports.model.RangeRow.level_label`), hatched where either end is the normal
    approximation; the legend names each level's plain and hatched fill.  Where the hatching starts
    after the first N (the N-round law's certified error grows with N), a second panel zooms on the
    bands from the last N certified at every level on: there the bands are a small fraction of the
    first N's width, and the hatched part would be a few pixels high on the full scale.

    Parameters
    ----------
    m : ModeSheet
        The mode's sheet: ``m.bands`` (:class:`~analytic.reports.model.RangeRow` per N, RTP as a
        fraction of the stake, drawn in %), ``m.rtp`` (the line and its legend), ``m.info.name``.

    Returns
    -------
    bytes
        The PNG (7 in wide; the mixed plot's legend below the panels).
    """
    from matplotlib.patches import Patch

    xs = [r.rounds for r in m.bands]
    rtp = float(m.rtp.value) * 100
    levels = [lv for lv, _, _ in m.bands[0].ranges]
    shades = {90: "#9dc3e6", 95: "#dbe9f6"}
    # a row can be certified at one level and approximate at the other (RangeRow.level_label)
    approx_at = {lv: [r.level_label(lv) != "certified" for r in m.bands] for lv in levels}
    every = [a for lv in levels for a in approx_at[lv]]
    kind = "normal approximation" if all(every) else "certified" if not any(every) else None
    # the zoom: from the last N certified at every level, when the hatching starts after the first N
    first_approx = min((i for i in range(len(xs)) if any(approx_at[lv][i] for lv in levels)), default=0)
    zoom = first_approx - 1 if kind is None and len(xs) > 2 and first_approx >= 2 else None
    if zoom is None:
        fig, ax = plt.subplots(figsize=(7, 3))
        axes = [ax]
    else:
        fig, axes = plt.subplots(1, 2, figsize=(7, 3), gridspec_kw={"width_ratios": (3, 2)})
        ax = axes[0]
    _band_segments(ax, xs, m, levels, approx_at, shades)
    ax.axhline(rtp, color="black", lw=1)
    ax.set_title(f"Expected RTP range, mode '{_lit(m.info.name)}'" + (f" ({kind})" if kind else ""), fontsize=9)
    if zoom is not None:
        z = axes[1]
        _band_segments(z, xs, m, levels, approx_at, shades, first=zoom)
        z.axhline(rtp, color="black", lw=1)
        ys = [y * 100 for r in m.bands[zoom:] for _, lo, hi in r.ranges for y in (lo, hi)] + [rtp]
        pad = 0.05 * (max(ys) - min(ys) or 1.0)
        z.set_xlim(xs[zoom], xs[-1])
        z.set_ylim(min(ys) - pad, max(ys) + pad)
        z.set_title(f"from {xs[zoom]:,.0f} rounds (zoom)", fontsize=9)
    for a in axes:
        a.set_xscale("log")
        a.set_xlabel("rounds played")
        a.grid(alpha=0.3)
    ax.set_ylabel("RTP (%)")
    plain, hatched = [], []  # (handle, name); the drawing order: the widest level first
    for lv in sorted(levels, reverse=True):
        shade = shades.get(lv, "#eeeeee")
        segs = [approx_at[lv][i] or approx_at[lv][i + 1] for i in range(len(xs) - 1)] or approx_at[lv]
        if kind is not None or not all(segs):
            plain.append((Patch(color=shade), f"{lv}% range" + (" (certified)" if kind is None else "")))
        if kind is None and any(segs):
            hatched.append((Patch(facecolor=shade, edgecolor="#7f7f7f", hatch="///", linewidth=0),
                            f"{lv}% range, normal approximation (not certified)"))
    rtp_line = (plt.Line2D([], [], color="black", lw=1), f"RTP {fig_pct(m.rtp)}")
    if kind is not None:
        handles, names = zip(*plain, rtp_line)
        ax.legend(handles, names, fontsize=7)
    else:  # up to five entries: below the panels, not over the bands; two columns (filled column by
        # column), each level's plain fill beside its hatched one, within the figure's width
        fig.tight_layout()  # the two panels' titles and tick labels apart
        handles, names = zip(*plain, rtp_line, *hatched)
        ax.legend(handles, names, fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                  bbox_transform=fig.transFigure)
    return _png(fig)


def paylines_png(s: ParSheet) -> bytes:
    """Small drawings of every payline (row 0 on top)."""
    n = len(s.lines)
    cols = min(n, 10)
    nrow = -(-n // cols)
    fig, axes = plt.subplots(nrow, cols, figsize=(cols * 0.75, nrow * 0.75 * s.rows / max(s.reels, 1) + 0.25 * nrow),
                             squeeze=False)
    for i, ax in enumerate(axes.flat):
        ax.set_axis_off()
        if i >= n:
            continue
        line = s.lines[i]
        for r in range(s.reels):
            for row in range(s.rows):
                ax.add_patch(plt.Rectangle((r, s.rows - 1 - row), 1, 1, fill=row == line[r],
                                           fc="#3b6ea5", ec="#999999", lw=0.5))
        ax.plot([r + 0.5 for r in range(s.reels)], [s.rows - 0.5 - row for row in line], color="#c0504d", lw=1)
        pad = 0.06  # the outer cells' edges lie on the grid's border: inside the limits, else clipped to half
        ax.set_xlim(-pad, s.reels + pad)
        ax.set_ylim(-pad, s.rows + pad)
        ax.set_aspect("equal")
        ax.set_title(str(i + 1), fontsize=6, pad=1)
    return _png(fig, dpi=330)  # 110 dpi drew the grid's 0.5 pt lines 0.76 px wide: some vanished


def session_png(m: ModeSheet) -> bytes:
    """Sessions: the final balance's quantile bands and the risk of ruin against the rounds played
    (log scale), from the section's curve (certified intervals: the band's outer ends)."""
    sec = m.session
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(8, 3))
    xs = [t for t, _, _ in sec.curve]
    q = [{float(lv): (float(lo), float(hi)) for lv, lo, hi in qs} for _, qs, _ in sec.curve]
    start = float(sec.start)
    for (a, b), col, lab in (((0.05, 0.95), "#dbe9f6", "5%-95%"), ((0.25, 0.75), "#9dc3e6", "25%-75%")):
        if all(a in d and b in d for d in q):
            ax.fill_between(xs, [d[a][0] for d in q], [d[b][1] for d in q], color=col, label=lab)
    if all(0.5 in d for d in q):
        ax.plot(xs, [d[0.5][0] for d in q], color="#3b6ea5", lw=1.2, label="median")
    ax.axhline(start, color="black", lw=0.8, ls="--", label=f"start {start:g}")
    ax.set_xscale("log")
    ax.set_xlabel("rounds played")
    ax.set_ylabel("final balance")
    ax.set_title(f"Balance, mode '{_lit(m.info.name)}'", fontsize=9)
    ax.legend(fontsize=6)
    ax.grid(alpha=0.3)
    bx.plot(xs, [r for _, _, r in sec.curve], color="#c0504d", marker="o", ms=3)
    bx.set_xscale("log")
    bx.set_ylim(0, 1)
    bx.set_xlabel("rounds played")
    bx.set_ylabel("P(ruin within the rounds)")
    bx.set_title(f"Risk of ruin from {start:g}", fontsize=9)
    bx.grid(alpha=0.3)
    fig.tight_layout()
    return _png(fig)


def autoplay_png(m: ModeSheet) -> bytes:
    """Bar chart: the probability that each autoplay stop ends the run."""
    a = m.session.autoplay
    fig, ax = plt.subplots(figsize=(7, 0.5 + 0.35 * len(a.reasons)))
    names = [n for n, _ in a.reasons]
    vals = [float(f.value) for _, f in a.reasons]
    ax.barh(range(len(names)), vals, color="#3b6ea5")
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.invert_yaxis()
    for i, v in enumerate(vals):
        ax.text(v, i, f" {v:.4g}", va="center", ha="left", fontsize=7)
    ax.set_xlim(0, 1.15)
    ax.set_xlabel("probability that the stop ends the autoplay run")
    ax.set_title(f"Autoplay stops, mode '{_lit(m.info.name)}'", fontsize=9)
    return _png(fig)


def stake_png(rows) -> bytes:
    """The capped RTP at each declared stake of a currency cap (``extra["currency_cap"]`` rows: ``stake``,
    ``capped_rtp``, ``binds``), stake on a log axis; a certified bracket is drawn as its two ends."""
    fig, ax = plt.subplots(figsize=(7, 2.8))
    xs = [float(r["stake"]) for r in rows]
    lo = [100 * float(r.get("lower", r["capped_rtp"].value)) for r in rows]
    hi = [100 * float(r.get("upper", r["capped_rtp"].value)) for r in rows]
    ax.plot(xs, hi, marker="o", ms=3, color="#3b6ea5", label="capped RTP" if lo == hi else "upper bound")
    if lo != hi:
        ax.plot(xs, lo, marker="v", ms=3, ls="--", color="#c0504d", label="lower bound")
    free = [x for x, r in zip(xs, rows) if r.get("binds") is False]
    if free:
        ax.axvline(max(free), color="grey", ls=":", lw=1, label="largest stake where the cap cannot bind")
    ax.set_xscale("log")
    ax.ticklabel_format(axis="y", useOffset=False)
    ax.set_xlabel("total stake per round (currency)")
    ax.set_ylabel("RTP (%)")
    ax.set_title("RTP under the currency win cap, by stake", fontsize=9)
    ax.grid(which="major", alpha=0.3)
    ax.legend(fontsize=7)
    return _png(fig)
