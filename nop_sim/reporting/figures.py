"""The shared figure helpers: one per kind of figure the reports draw."""

from __future__ import annotations

import matplotlib
import numpy as np

from nop_sim.reporting.style import PALETTE

__all__ = ["annotate_heat", "hbar_ci", "hide_unused", "interval_err", "percent_axis"]


def percent_axis(axis, decimals: int | None = None) -> None:
    """Show shares (0..1) on ``axis`` (``ax.xaxis`` or ``ax.yaxis``) as percent."""
    axis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=decimals))


def interval_err(values, lows, highs) -> np.ndarray:
    """matplotlib's ``xerr``/``yerr`` (2, n) of intervals around ``values``: never negative
    (an interval rounded just inside its own estimate, e.g. Wilson at a rate of 1), 0 where
    unknown."""
    values = np.asarray(values, float)
    err = np.vstack([values - np.asarray(lows, float), np.asarray(highs, float) - values])
    return np.nan_to_num(np.clip(err, 0, None))


def hbar_ci(ax, labels, values, lows, highs, *, color=PALETTE["blue"], ref=None,
            ref_label=None, highlight=None, percent=True, marker="o", offset=0.0,
            label=None, max_ticks: int | None = None) -> None:
    """Horizontal dot-and-interval rows, first label on top.

    ``ref`` is a reference: a number (one dashed line across) or one value
    per row (a dashed tick on each row, e.g. each point's fair share).
    ``highlight`` (booleans per row) draws those rows in vermillion.
    ``offset`` shifts the rows, so that two series can sit side by side.
    ``max_ticks`` caps the ticks of the value axis (long percent labels crowd).
    """
    n = len(labels)
    y = np.arange(n)[::-1] + offset
    values = np.asarray(values, float)
    err = interval_err(values, lows, highs)
    flagged = np.zeros(n, bool) if highlight is None else np.asarray(highlight, bool)
    for sel, c, lab in ((~flagged, color, label), (flagged, PALETTE["vermillion"], None)):
        if sel.any():
            ax.errorbar(values[sel], y[sel], xerr=err[:, sel], fmt=marker, color=c, ms=5,
                        lw=1.4, label=lab)
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
