"""The headline's scorecard: each key metric on its own axis, with its interval and
target."""

from __future__ import annotations

import pandas as pd

from nop_sim import reporting as R
from nop_sim.games.new_order import analysis as A
from nop_sim.games.new_order.report.common import _kind, _Point
from nop_sim.reporting import PALETTE, STYLE, isnum


def _scorecard_rows(p: _Point, metrics: pd.Series) -> list[tuple]:
    """``(key, label, value, low, high, target)`` per key metric present, the rows that
    share an axis (:func:`_score_axis`) together, in the order each axis first comes."""
    rows = []
    for key, (label, target_name) in A.METRICS.items():
        if key not in metrics or not isnum(metrics[key]):
            continue
        target = p.run.targets.get(target_name) if target_name else None
        if key == "unresolved_share" and target is None:
            target = 0.01
        rows.append((key, label, metrics[key], metrics.get(f"{key}_low"),
                     metrics.get(f"{key}_high"), target))
    order = list(dict.fromkeys(_score_axis(row[0]) for row in rows))
    return sorted(rows, key=lambda row: order.index(_score_axis(row[0])))


def _score_axis(key: str) -> str:
    """Which axis a key number is drawn on: one per kind of quantity (all percentages,
    all win-rate points, all uses per hand), its own for another plain number (hands,
    chips: units differ)."""
    kind = _kind(key)
    if key.endswith("_per_hand"):
        return "per hand"
    return key if kind == "plain" else kind


def _score_scale(key: str) -> int:
    return 1 if _kind(key) == "plain" else 100


def _score_limits(rows: list[tuple]) -> dict[str, tuple[float, float]]:
    """The x range of each axis: from zero (or the lowest value, if below) to past the
    highest value, interval end or target of its rows. From zero, because a range
    zoomed to 0.320-0.340 drew a 0.016-wide interval as wide as the axis."""
    xs: dict[str, list[float]] = {}
    for key, _, v, lo, hi, target in rows:
        xs.setdefault(_score_axis(key), []).extend(
            x * _score_scale(key) for x in (v, lo, hi, target) if isnum(x))
    limits = {}
    for axis, values in xs.items():
        low, high = min(0.0, *values), max(0.0, *values)
        span = high - low or 1.0
        limits[axis] = (low - 0.08 * span if low < 0 else 0.0, high + 0.08 * span)
    return limits


def _scorecard(p: _Point, metrics: pd.Series) -> R.Figure:
    rows = _scorecard_rows(p, metrics)
    limits = _score_limits(rows)
    fig, axes = R.figure(0.62 * len(rows) + 0.5, nrows=len(rows), layout=None)
    values = [_score_row(ax, *row, limits[_score_axis(row[0])])
              for ax, row in zip(axes[:, 0], rows, strict=True)]
    # The margins constrained layout gave it (a third of its drawing time): the labels
    # on the left, the values on the right (from 1% past the axes), a row of ticks below.
    label_w, _ = R.text_size([row[1] for row in rows], STYLE["ytick.labelsize"])
    value_w, _ = R.text_size(values, 9)
    _, tick_h = R.text_size(["0"], STYLE["xtick.labelsize"])  # one line of tick labels
    left = R.PAD + label_w + R.TICK
    right = (0.01 * (fig.get_size_inches()[0] - left) + value_w + R.PAD) / 1.01
    below = R.TICK + tick_h + R.PAD
    R.margins(fig, left=left, right=right, bottom=below, top=R.PAD, hgap=below + R.PAD)
    return R.png(fig, "headline", "Key numbers with their 95% intervals; dashed line: the "
                 "scenario's target (unresolved: the 1% alarm line). Every axis starts at "
                 "zero, and all percentages share one axis, as do all advantages (win-rate "
                 "points), so that an interval is drawn as wide as it is. Advantages are "
                 "|win rate − 1/players| of the worst seat or preset.")


def _score_row(ax, key, label, v, lo, hi, target, xlim) -> str:
    """One key number on its axis (x range ``xlim``): dot, interval, target line and the
    value (the text it writes right of the axis, returned)."""
    kind = _kind(key)
    scale = _score_scale(key)
    err = None
    if isnum(lo) and isnum(hi):
        err = [[max(v - lo, 0) * scale], [max(hi - v, 0) * scale]]
    ax.errorbar([v * scale], [0], xerr=err, fmt="o", color=PALETTE["blue"], ms=6,
                clip_on=False)   # a dot at zero shows whole, on the axis start
    if target is not None:
        ax.axvline(target * scale, color=PALETTE["vermillion"], ls="--", lw=1.3)
    ax.set_xlim(*xlim)
    ax.set_yticks([0], [label])
    ax.set_ylim(-0.6, 0.6)
    ax.grid(axis="y", visible=False)
    unit = {"share": "%", "points": " pts", "plain": ""}[kind]
    txt = f"{v * scale:.3g}{unit}"
    if target is not None:
        txt += f"   target {target * scale:.3g}{unit}"
    ax.text(1.01, 0.5, txt, transform=ax.transAxes, ha="left", va="center", fontsize=9)
    return txt
