"""The shared figure helpers: one per kind of figure the reports draw."""

from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.lines import Line2D

from nop_sim.reporting.style import PALETTE

__all__ = ["annotate_heat", "hbar_ci", "hbar_legend", "hide_unused", "interval_err",
           "percent_axis"]


def percent_axis(axis, decimals: int | None = None) -> None:
    """Show shares (0..1) on ``axis`` (``ax.xaxis`` or ``ax.yaxis``) as percent."""
    axis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=decimals))


def interval_err(values, lows, highs) -> np.ndarray:
    """matplotlib's ``xerr``/``yerr`` (2, n) of intervals around ``values``: never negative
    (an interval rounded just inside its own estimate, e.g. Wilson at a rate of 1), 0 where
    unknown or unbounded (an infinite bound drawn as the largest float broke the axes:
    :func:`hbar_ci` draws such a side to the axes' edge)."""
    values = np.asarray(values, float)
    err = np.vstack([values - np.asarray(lows, float), np.asarray(highs, float) - values])
    return np.nan_to_num(np.clip(err, 0, None), posinf=0.0, neginf=0.0)


def hbar_ci(ax, labels, values, lows, highs, *, color=PALETTE["blue"], ref=None,
            ref_label=None, highlight=None, percent=True, marker="o", offset=0.0,
            label=None, max_ticks: int | None = None, few=None, few_label=None) -> None:
    """Horizontal dot-and-interval rows, first label on top.

    ``ref`` is a reference: a number (one dashed line across) or one value
    per row (a dashed tick on each row, e.g. each point's fair share).
    ``highlight`` (booleans per row) draws those rows in vermillion.
    ``few`` (booleans per row) marks rows with too few observations to read:
    drawn hollow in grey with a dotted interval and left out of the axis range
    (cut at its edge; a dot beyond it becomes a triangle there), so that one
    placement's 21-100% interval does not squeeze the others; ``few_label``
    names them in a legend. Say so in the caption. When every row of the axes
    is few, they set the range after all. A row whose interval has an infinite side
    is drawn so too, that side dotted past the axes' edge ("no bound at this level"
    unless ``few_label`` names few rows already).
    ``offset`` shifts the rows, so that two series can sit side by side.
    ``max_ticks`` caps the ticks of the value axis (long percent labels crowd).
    Its legend: :func:`hbar_legend`, once every series is drawn.
    """
    n = len(labels)
    y = np.arange(n)[::-1] + offset
    values = np.asarray(values, float)
    lows, highs = np.asarray(lows, float), np.asarray(highs, float)
    flagged = np.zeros(n, bool) if highlight is None else np.asarray(highlight, bool)
    few = np.zeros(n, bool) if few is None else np.asarray(few, bool)
    # a side with no bound (a bootstrap interval at a level its resamples cannot reach):
    # the row is drawn as a few row, that side running past the edge of what the other
    # rows span
    unbounded = np.isfinite(values) & (np.isinf(lows) | np.isinf(highs))
    if unbounded.any():
        ends = np.concatenate([values, lows, highs])
        ends = ends[np.isfinite(ends)]
        width = float(np.ptp(ends)) or max(1.0, float(np.abs(ends).max()))
        lows = np.where(np.isneginf(lows), ends.min() - 10 * width, lows)
        highs = np.where(np.isposinf(highs), ends.max() + 10 * width, highs)
        if not few.any() and few_label is None:
            few_label = "no bound at this level"
        few = few | unbounded
    err = interval_err(values, lows, highs)
    for sel, c, lab in ((~flagged & ~few, color, label),
                        (flagged & ~few, PALETTE["vermillion"], None)):
        if sel.any():
            ax.errorbar(values[sel], y[sel], xerr=err[:, sel], fmt=marker, color=c, ms=5,
                        lw=1.4, label=lab)
    if few.any():
        _few_rows(ax, values[few], err[:, few], y[few], marker, few_label)
    if ref is not None:
        ref_arr = np.asarray(ref, float)
        if ref_arr.ndim and n and not np.allclose(ref_arr, ref_arr[0], equal_nan=True):
            ax.vlines(ref_arr, y - offset - 0.35, y - offset + 0.35, colors=PALETTE["black"],
                      linestyles="--", lw=1.2, label=ref_label)
        else:
            first = float(ref_arr.ravel()[0]) if ref_arr.size else np.nan
            if np.isfinite(first):
                ax.axvline(first, color=PALETTE["black"], ls="--", lw=1, label=ref_label)
    ax.set_yticks(np.arange(n)[::-1], labels)
    ax.set_ylim(-0.7, n - 0.3)
    ax.grid(axis="y", visible=False)
    if max_ticks:
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(max_ticks))
    if percent:
        percent_axis(ax.xaxis)


def hbar_legend(ax, **kwargs) -> None:
    """The legend of :func:`hbar_ci`'s axes, in one row above them at the right, where
    it covers no row: inside, at the lower right, it lay over the bottom rows' dots
    (the hedging chart's High Card, a seat's interval). Constrained layout makes room
    for it; a title at the left shares its line. None when nothing is labelled."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, loc="lower right", bbox_to_anchor=(1.0, 1.0),
                  ncols=len(handles), borderaxespad=0.2, **kwargs)


def _few_rows(ax, values, err, y, marker, label) -> None:
    """:func:`hbar_ci`'s rows with few observations: hollow grey dots, dotted intervals,
    added as plain artists, which leave the data limits (the axis range) alone. A dot
    beyond the range is drawn at its edge as a triangle pointing out."""
    grey = PALETTE["grey"]
    seg_x = np.column_stack([values - err[0], values + err[1], np.full(values.size, np.nan)])
    seg_y = np.column_stack([y, y, np.full(y.size, np.nan)])
    hollow = {"ls": "none", "ms": 5, "mfc": "none", "mec": grey, "mew": 1.2,
              "clip_on": False}    # a triangle at the edge shows whole; the dots lie inside
    lines = [Line2D(seg_x.ravel(), seg_y.ravel(), color=grey, lw=1.0, ls=(0, (2, 2))),
             _AtEdge(values, y, 0, marker=marker, label=label, **hollow),
             _AtEdge(values, y, -1, marker="<", **hollow),
             _AtEdge(values, y, 1, marker=">", **hollow)]
    counted = not ax.ignore_existing_data_limits      # other rows on these axes
    for line in lines:
        if counted:
            ax.add_artist(line)    # clipped to the axes, not counted in its range
        else:
            ax.add_line(line)      # nothing else on these axes: they set the range
    if not counted:
        ax.autoscale_view()


class _AtEdge(Line2D):
    """The markers of ``x`` inside the x range (``side`` 0), or of those beyond its left
    (-1) or right (1) edge, drawn at that edge: the range is final only when drawn."""

    def __init__(self, x, y, side: int, **kwargs):
        super().__init__(x, y, **kwargs)
        self.set_in_layout(False)   # where it lies is known when drawn, after the layout
        self._all = np.asarray(x, float), np.asarray(y, float)
        self._side = side

    def draw(self, renderer):
        x, y = self._all
        lo, hi = sorted(self.axes.get_xlim())
        keep = {0: (x >= lo) & (x <= hi), -1: x < lo, 1: x > hi}[self._side]
        self.set_data(np.clip(x[keep], lo, hi), y[keep])
        super().draw(renderer)


def annotate_heat(ax, data, fmt, *, norm, cmap, threshold=None) -> None:
    """Write each cell's value on a heat map, dark or light text against the cell colour;
    cells under ``threshold`` (absolute) stay blank."""
    cm = matplotlib.colormaps[cmap]
    for (i, j), v in np.ndenumerate(data):
        if not np.isfinite(v) or (threshold is not None and abs(v) < threshold):
            continue
        r, g, b, _ = cm(norm(v))
        light = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
        ax.text(j, i, fmt(v), ha="center", va="center", fontsize=7.5,
                color="white" if light else "black")


def hide_unused(axes, used: int) -> None:
    """Hide the panels of a grid past the first ``used``."""
    for ax in np.ravel(axes)[used:]:
        ax.set_visible(False)
