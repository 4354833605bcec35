"""One style, one colour-blind-safe palette, and figures drawn without pyplot.

Figures are :class:`matplotlib.figure.Figure` objects, never pyplot's: no
global figure state, no backend chosen at import. :func:`png` renders them
with Agg's ``print_png``, the bytes ``savefig`` writes, drawn once: with a
layout engine ``savefig`` first draws the whole figure without output, then
again (a fifth of the time).
"""

from __future__ import annotations

import io
from contextlib import contextmanager

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure as MplFigure

from nop_sim.reporting.model import Figure

__all__ = ["CYCLE", "DIVERGING", "DPI", "PAD", "PALETTE", "SEQUENTIAL", "STYLE", "TICK", "WIDTH",
           "figure", "margins", "png", "styled", "text_size"]

# Okabe & Ito (2008), "Color Universal Design": distinguishable with every
# common colour-vision deficiency. Yellow is last: it is faint on white.
PALETTE = {"blue": "#0072B2", "orange": "#E69F00", "green": "#009E73",
           "vermillion": "#D55E00", "purple": "#CC79A7", "sky": "#56B4E9",
           "black": "#000000", "yellow": "#F0E442", "grey": "#999999"}
CYCLE = [PALETTE[c] for c in ("blue", "orange", "green", "vermillion", "purple", "sky",
                              "black", "yellow")]
DPI = 100
WIDTH = 9.0          # inches: 900 px at DPI, the report's column width
SEQUENTIAL = "viridis"   # perceptually uniform, colour-blind safe
DIVERGING = "PuOr"       # colour-blind safe diverging map
STYLE = {
    "axes.prop_cycle": matplotlib.cycler(color=CYCLE),
    "axes.spines.top": False, "axes.spines.right": False,
    "axes.grid": True, "grid.color": "#dddddd", "grid.linewidth": 0.6,
    "axes.titlesize": 11, "axes.titleweight": "bold", "axes.labelsize": 10,
    "xtick.labelsize": 9, "ytick.labelsize": 9, "legend.fontsize": 9,
    "legend.frameon": False, "font.size": 10, "figure.dpi": DPI, "savefig.dpi": DPI,
    "image.cmap": SEQUENTIAL, "figure.facecolor": "white", "axes.facecolor": "white",
    "savefig.facecolor": "white", "lines.linewidth": 1.8, "errorbar.capsize": 3,
}


@contextmanager
def styled():
    """Draw inside this: the report style for every artist created in it."""
    with matplotlib.rc_context(STYLE):
        yield


def figure(height: float = 3.6, *, ncols: int = 1, nrows: int = 1, width: float = WIDTH,
           layout: str | None = "constrained",
           **subplot_kw) -> tuple[MplFigure, np.ndarray]:
    """A constrained-layout figure and its ``(nrows, ncols)`` array of axes.

    ``layout=None`` leaves the margins to the caller (:func:`margins`): constrained
    layout measures every axis twice before it draws, a third of a simple figure's time.
    """
    with styled():
        fig = MplFigure(figsize=(width, height), dpi=DPI, layout=layout)
        axes = fig.subplots(nrows, ncols, squeeze=False, **subplot_kw)
    return fig, axes


# Fixed margins as constrained layout would lay them out, in inches: its padding
# around each axes, and what a tick takes beside its label (length and pad).
PAD = matplotlib.rcParams["figure.constrained_layout.w_pad"]
TICK = (matplotlib.rcParams["xtick.major.size"] + matplotlib.rcParams["xtick.major.pad"]) / 72


def text_size(texts, fontsize: float) -> tuple[float, float]:
    """Width of the widest and height of the tallest of ``texts`` (inches), as matplotlib
    lays them out (what constrained layout measures) in the report's font."""
    with styled():
        fig = MplFigure(dpi=DPI)
        renderer = FigureCanvasAgg(fig).get_renderer()
        boxes = [fig.text(0, 0, t, fontsize=fontsize).get_window_extent(renderer)
                 for t in texts]
    return (max((b.width for b in boxes), default=0.0) / DPI,
            max((b.height for b in boxes), default=0.0) / DPI)


def margins(fig: MplFigure, *, left: float, right: float, bottom: float, top: float,
            hgap: float = 0.0, wgap: float = 0.0) -> None:
    """Place the figure's grid of axes by fixed margins and gaps between them (inches)."""
    w, h = fig.get_size_inches()
    gs = fig.axes[0].get_subplotspec().get_gridspec()
    nrows, ncols = gs.get_geometry()
    ax_h = (h - bottom - top - (nrows - 1) * hgap) / nrows
    ax_w = (w - left - right - (ncols - 1) * wgap) / ncols
    fig.subplots_adjust(left=left / w, right=1 - right / w, bottom=bottom / h, top=1 - top / h,
                        hspace=hgap / ax_h, wspace=wgap / ax_w)


def _render(fig: MplFigure) -> bytes:
    buf = io.BytesIO()
    with styled():  # the figure's own dpi and white face: what savefig would pick
        FigureCanvasAgg(fig).print_png(buf)
    return buf.getvalue()


def png(fig: MplFigure, name: str, caption: str) -> Figure:
    """Render ``fig`` to a :class:`~nop_sim.reporting.model.Figure` block."""
    w, h = fig.get_size_inches() * DPI
    return Figure(name, _render(fig), caption, int(round(w)), int(round(h)))
