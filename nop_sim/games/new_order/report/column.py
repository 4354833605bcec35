"""The Ranking Column's section: where each category ends up, and which categories
win."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd

from nop_sim import reporting as R
from nop_sim.games.new_order import analysis as A
from nop_sim.games.new_order.report.common import _cis, _hand_limit, _Point, _pts
from nop_sim.reporting import PALETTE, Note, Table, count, num, pct


# -- the Ranking Column -----------------------------------------------------
def _column(p: _Point) -> list:
    cp = A.column_positions(p.run)
    heat = cp.pivot(index="category", columns="position", values="share").to_numpy()
    w = p.get("winning", A.winning_categories)
    blocks = [_column_final(heat), *_column_over_hands(p), _winning_figure(w)]
    labels = list(A.CATEGORY_LABELS)
    mean_final = cp.assign(w=cp["position"] * cp["share"]).groupby("category")["w"].sum()
    t = pd.DataFrame({
        "category": labels,
        "mean final position": [num(mean_final.get(i, np.nan), 1) for i in range(13)],
        "at top at the end": [pct(heat[i, 0]) for i in range(13)],
        "wins": [count(x) for x in w["wins"]],
        "win share (95% CI)": _cis(w, "share", "share_low", "share_high"),
        "baseline share": [pct(x, 2) for x in w["baseline_share"]],
        "difference": _pts(w["difference"]),
    })
    if "elevated" in w:
        t.insert(4, "of which elevated", [count(x) for x in w["elevated"]])
    full = w.merge(cp.pivot(index="category", columns="position", values="count")
                   .add_prefix("final_pos_").reset_index(), on="category")
    blocks.append(Table(t, "Categories: final position, wins, baseline", csv="column.csv",
                        full=full))
    blocks.append(Note(
        "Baseline: shares of the winning category when the table's mean number of players "
        f"at a showdown ({w['showdown_players'].iloc[0]:g}, from this run's showdown and "
        "muck counts) show random seven-card hands (5 hole + 2 community) under the "
        "default column, one deck, no draw, no wild (nop_sim.games.new_order.analysis.default_baseline, "
        "1,000,000 deals per table size). The draw makes real hands stronger, so "
        "strong categories beat the baseline even in a game where nobody manipulates.",
        "muted"))
    return blocks


def _column_final(heat: np.ndarray) -> R.Figure:
    fig, axes = R.figure(4.6, width=R.WIDTH * 0.85)
    ax = axes[0, 0]
    norm = matplotlib.colors.Normalize(0, max(np.nanmax(heat), 1e-9))
    im = ax.imshow(heat, cmap=R.SEQUENTIAL, norm=norm, aspect="auto")
    R.annotate_heat(ax, heat, lambda v: f"{100 * v:.0f}", threshold=0.05, norm=norm,
                    cmap=R.SEQUENTIAL)
    ax.set_yticks(range(13), list(A.CATEGORY_LABELS))
    ax.set_xticks(range(13))
    ax.set_xlabel("position at match end (0 = top of the column)")
    ax.grid(False)
    cb = fig.colorbar(im, ax=ax)
    R.percent_axis(cb.ax.yaxis, 0)
    cb.set_label("matches (%)")
    return R.png(fig, "column_final", "Where each category ends a match: share of matches "
                 "with the category (row) at each column position (0 = top). A column nobody "
                 "moved is the diagonal.")


def _column_over_hands(p: _Point) -> list:
    try:
        oh = A.column_over_hands(p.run)
    except A.MissingData as exc:
        return [Note(f"Positions over hands not available: {exc}.", "muted")]
    wide = oh.pivot(index="category", columns="hand", values="mean_position")
    matches = oh[oh["category"] == 0].sort_values("hand")["matches"].to_numpy()
    last = _hand_limit(matches)
    wide = wide.loc[:, wide.columns <= last]
    fig, axes = R.figure(4.4)
    ax = axes[0, 0]
    im = ax.imshow(wide.to_numpy(), cmap=R.SEQUENTIAL + "_r",
                   norm=matplotlib.colors.Normalize(0, 12), aspect="auto",
                   interpolation="nearest", extent=(-0.5, wide.shape[1] - 0.5, 12.5, -0.5))
    ax.set_yticks(range(13), list(A.CATEGORY_LABELS))
    ax.set_xlabel("hand of the match")
    ax.grid(False)
    fig.colorbar(im, ax=ax).set_label("mean position (0 = top)")
    return [R.png(fig, "column_over_hands", f"Mean position of each category at the start of "
                  f"each hand (0 = top), over the matches still running; shown up to hand "
                  f"{last}, while at least {int(matches[last]) if matches.size else 0} "
                  f"matches run.")]


def _winning_figure(w: pd.DataFrame) -> R.Figure:
    labels = list(A.CATEGORY_LABELS)
    fig, axes = R.figure(4.6)
    ax = axes[0, 0]
    R.hbar_ci(ax, labels, w["share"], w["share_low"], w["share_high"],
              color=PALETTE["blue"], offset=0.15, label="this run")
    R.hbar_ci(ax, labels, w["baseline_share"], w["baseline_low"], w["baseline_high"],
              color=PALETTE["orange"], offset=-0.15, marker="s",
              label="default-column baseline")
    ax.set_xlabel("main pots won (%)")
    R.hbar_legend(ax)
    return R.png(fig, "winning_categories", "Category of the hand that won the main pot "
                 f"(blue) against random {w['showdown_players'].iloc[0]:g}-way showdowns "
                 "under the default column (orange: no draw, no Disruptors, nobody "
                 "manipulates); 95% Wilson intervals.")
