"""The balance report: figures and tables of a finished run, as HTML and Markdown.

:func:`write_report` reads a results folder (see :mod:`nop_sim.runner`),
computes the statistics of :mod:`nop_sim.analysis` and writes, in the same
folder:

- ``report.html``: one self-contained file, figures embedded as base64 PNG,
  no external assets, no script;
- ``report.md``: the same text and tables, figures as ``figures/*.png``;
- ``tables/*.csv``: the full tables behind each section.

A run of one point gets the nine sections of a balance report (headline,
match length, seats, strategies, the Ranking Column, the Ledger, hedging,
Disruptors, chips). A sweep (more than one point) first gets the sweep
sections (targets ranking, each metric against each swept parameter,
heat maps for pairs) and then the nine sections for its best point (by the
targets, or point 0 without targets).

Figures use matplotlib's Agg renderer through :class:`matplotlib.figure.Figure`
(no pyplot state), one style (:data:`STYLE`) and the Okabe-Ito colour-blind
safe palette (:data:`PALETTE`).
"""

from __future__ import annotations

import base64
import html
import io
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure as MplFigure

from nop_sim import analysis as A

__all__ = ["PALETTE", "STYLE", "write_report", "build_report"]

# Okabe & Ito (2008), "Color Universal Design": distinguishable with every
# common colour-vision deficiency. Yellow is last: it is faint on white.
PALETTE = {"blue": "#0072B2", "orange": "#E69F00", "green": "#009E73",
           "vermillion": "#D55E00", "purple": "#CC79A7", "sky": "#56B4E9",
           "black": "#000000", "yellow": "#F0E442", "grey": "#999999"}
CYCLE = [PALETTE[c] for c in ("blue", "orange", "green", "vermillion", "purple", "sky",
                              "black", "yellow")]
DPI = 100
WIDTH = 9.0          # inches: 900 px at DPI, the report's column width
STYLE = {
    "axes.prop_cycle": matplotlib.cycler(color=CYCLE),
    "axes.spines.top": False, "axes.spines.right": False,
    "axes.grid": True, "grid.color": "#dddddd", "grid.linewidth": 0.6,
    "axes.titlesize": 11, "axes.titleweight": "bold", "axes.labelsize": 10,
    "xtick.labelsize": 9, "ytick.labelsize": 9, "legend.fontsize": 9,
    "legend.frameon": False, "font.size": 10, "figure.dpi": DPI, "savefig.dpi": DPI,
    "image.cmap": "viridis", "figure.facecolor": "white", "axes.facecolor": "white",
    "savefig.facecolor": "white", "lines.linewidth": 1.8, "errorbar.capsize": 3,
}
SEQUENTIAL = "viridis"   # perceptually uniform, colour-blind safe
DIVERGING = "PuOr"       # colour-blind safe diverging map


# ---------------------------------------------------------------------------
# Report model: sections of blocks, rendered twice (HTML, Markdown)
# ---------------------------------------------------------------------------
@dataclass
class Figure:
    name: str
    png: bytes
    caption: str
    width: int
    height: int


@dataclass
class Table:
    frame: pd.DataFrame          # already formatted: strings
    caption: str = ""
    highlight: Sequence[int] = ()
    csv: str | None = None       # file name under tables/ holding the full table


@dataclass
class Note:
    text: str
    kind: str = "p"              # "p", "warning", "muted"


@dataclass
class Bullets:
    items: list[str]
    kind: str = "p"
    links: list[str | None] | None = None   # an anchor (section id) per item, or None


@dataclass
class Section:
    id: str
    title: str
    intro: str = ""
    blocks: list = field(default_factory=list)


def _figure(name: str, caption: str, width: float = WIDTH, height: float = 3.6,
            ncols: int = 1, nrows: int = 1, **kw):
    """A constrained-layout figure and its axes (pyplot-free)."""
    fig = MplFigure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, **kw)
    fig._nop = (name, caption)   # carried to _png
    return fig, axes


def _png(fig) -> Figure:
    name, caption = fig._nop
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    w, h = fig.get_size_inches() * DPI
    return Figure(name, buf.getvalue(), caption, int(round(w)), int(round(h)))


# ---------------------------------------------------------------------------
# Number formatting
# ---------------------------------------------------------------------------
def _isnum(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and np.isfinite(x)


def pct(x, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}%" if _isnum(x) else "–"


def pct_ci(x, lo, hi, digits: int = 1) -> str:
    if not _isnum(x):
        return "–"
    if not (_isnum(lo) and _isnum(hi)):
        return pct(x, digits)
    return f"{100 * x:.{digits}f}% ({100 * lo:.{digits}f}–{100 * hi:.{digits}f})"


def num(x, digits: int = 2) -> str:
    if not _isnum(x):
        return "–"
    if float(x).is_integer() and abs(x) >= 1000:
        return f"{int(x):,}"
    return f"{x:,.{digits}f}"


def num_ci(x, lo, hi, digits: int = 2) -> str:
    if not _isnum(x):
        return "–"
    if not (_isnum(lo) and _isnum(hi)):
        return num(x, digits)
    return f"{x:,.{digits}f} ({lo:,.{digits}f} to {hi:,.{digits}f})"


def count(x) -> str:
    return f"{int(x):,}" if _isnum(x) else "–"


def pval(p) -> str:
    if not _isnum(p):
        return "–"
    if p < 1e-300:
        return "< 1e-300"
    if p < 0.001:
        return f"{p:.1e}"
    return f"{p:.3f}"


def _cell(v) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else ""
    if _isnum(v):
        return count(v) if float(v).is_integer() else num(v, 3)
    return "–" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------
CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
 color:#1d1d1f;max-width:980px;margin:0 auto;padding:1.2rem 1.4rem 4rem;line-height:1.45}
h1{font-size:1.7rem;margin:.2rem 0 .3rem}h2{font-size:1.3rem;margin-top:2.4rem;
 border-bottom:2px solid #0072B2;padding-bottom:.2rem}
.meta{color:#555;font-size:.9rem}
nav ul{columns:2;font-size:.92rem;list-style:none;padding-left:1rem}
figure{margin:1rem 0}figure img{max-width:100%;height:auto;display:block}
figcaption{font-size:.88rem;color:#444;margin-top:.3rem}
.tablewrap{overflow-x:auto;margin:.6rem 0 1rem}
table{border-collapse:collapse;font-size:.84rem;font-variant-numeric:tabular-nums}
caption{text-align:left;font-size:.88rem;color:#444;padding:.2rem 0}
th,td{padding:.22rem .55rem;border-bottom:1px solid #e3e3e3;text-align:right;
 white-space:nowrap}
th{background:#f2f6fa;border-bottom:2px solid #c9d6e3}
th:first-child,td:first-child{text-align:left}
tr:nth-child(even) td{background:#fafafa}
tr.best td{background:#fde9c9;font-weight:600}
.warning{color:#a33c00}.muted{color:#666;font-size:.9rem}
ul.warning li{margin:.15rem 0}
a{color:#0072B2}
"""


def _html_table(t: Table) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in t.frame.columns)
    rows = []
    hi = set(t.highlight)
    for i, row in enumerate(t.frame.itertuples(index=False)):
        cls = ' class="best"' if i in hi else ""
        rows.append(f"<tr{cls}>" + "".join(f"<td>{html.escape(_cell(v))}</td>" for v in row)
                    + "</tr>")
    cap = html.escape(t.caption)
    if t.csv:
        cap += f' <a href="tables/{html.escape(t.csv)}">(full table, CSV)</a>'
    caption = f"<caption>{cap}</caption>" if cap else ""
    return (f'<div class="tablewrap"><table>{caption}<thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _md_table(t: Table) -> str:
    def esc(v):
        return _cell(v).replace("|", "\\|")

    cols = list(t.frame.columns)
    lines = []
    if t.caption or t.csv:
        cap = t.caption + (f" ([full table, CSV](tables/{t.csv}))" if t.csv else "")
        lines += [f"*{cap.strip()}*", ""]
    lines.append("| " + " | ".join(esc(c) for c in cols) + " |")
    lines.append("|" + "|".join(":---" if i == 0 else "---:" for i in range(len(cols))) + "|")
    hi = set(t.highlight)
    for i, row in enumerate(t.frame.itertuples(index=False)):
        cells = [esc(v) for v in row]
        if i in hi:
            cells = [f"**{c}**" if c else c for c in cells]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _render_html(title: str, meta: str, sections: list[Section]) -> str:
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
             f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
             f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>",
             f"<h1>{html.escape(title)}</h1><p class=\"meta\">{html.escape(meta)}</p>",
             "<nav><ul>" + "".join(f'<li><a href="#{s.id}">{html.escape(s.title)}</a></li>'
                                   for s in sections) + "</ul></nav>"]
    for s in sections:
        parts.append(f'<section id="{s.id}"><h2>{html.escape(s.title)}</h2>')
        if s.intro:
            parts.append(f"<p>{html.escape(s.intro)}</p>")
        for b in s.blocks:
            if isinstance(b, Figure):
                data = base64.b64encode(b.png).decode("ascii")
                parts.append(f'<figure><img src="data:image/png;base64,{data}" '
                             f'width="{b.width}" height="{b.height}" '
                             f'alt="{html.escape(b.caption)}"><figcaption>'
                             f"{html.escape(b.caption)}</figcaption></figure>")
            elif isinstance(b, Table):
                parts.append(_html_table(b))
            elif isinstance(b, Note):
                parts.append(f'<p class="{b.kind}">{html.escape(b.text)}</p>')
            elif isinstance(b, Bullets):
                links = b.links or [None] * len(b.items)
                parts.append(f'<ul class="{b.kind}">' + "".join(
                    (f'<li><a href="#{a}">{html.escape(i)}</a></li>' if a else
                     f"<li>{html.escape(i)}</li>") for i, a in zip(b.items, links, strict=True))
                    + "</ul>")
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _render_md(title: str, meta: str, sections: list[Section]) -> str:
    out = [f"# {title}", "", f"_{meta}_", ""]
    out += [f"- [{s.title}](#{s.id})" for s in sections] + [""]
    for s in sections:
        out += [f'<a id="{s.id}"></a>', "", f"## {s.title}", ""]
        if s.intro:
            out += [s.intro, ""]
        for b in s.blocks:
            if isinstance(b, Figure):
                out += [f"![{b.caption}](figures/{b.name}.png)", "", f"*{b.caption}*", ""]
            elif isinstance(b, Table):
                out += [_md_table(b), ""]
            elif isinstance(b, Note):
                text = f"**{b.text}**" if b.kind == "warning" else b.text
                out += [text, ""]
            elif isinstance(b, Bullets):
                links = b.links or [None] * len(b.items)
                out += [f"- [{i}](#{a})" if a else f"- {i}"
                        for i, a in zip(b.items, links, strict=True)] + [""]
    return "\n".join(out)


# ---------------------------------------------------------------------------
# Plot helpers
# ---------------------------------------------------------------------------
def _hbar_ci(ax, labels, values, lows, highs, color=PALETTE["blue"], ref=None,
             ref_label=None, highlight=None, pct_axis=True, marker="o", offset=0.0,
             label=None):
    """Horizontal dot-and-interval chart, first label on top (one artist per colour)."""
    n = len(labels)
    y = np.arange(n)[::-1] + offset
    values = np.asarray(values, float)
    err = np.vstack([values - np.asarray(lows, float), np.asarray(highs, float) - values])
    err = np.nan_to_num(np.clip(err, 0, None))
    flagged = (np.zeros(n, bool) if highlight is None
               else np.asarray(highlight, bool))
    for sel, c, lab in ((~flagged, color, label),
                        (flagged, PALETTE["vermillion"], None)):
        if sel.any():
            ax.errorbar(values[sel], y[sel], xerr=err[:, sel], fmt=marker, color=c, ms=5,
                        lw=1.4, label=lab)
    if ref is not None and np.isfinite(ref):
        ax.axvline(ref, color=PALETTE["black"], ls="--", lw=1, label=ref_label)
    ax.set_yticks(np.arange(n)[::-1], labels)
    ax.set_ylim(-0.7, n - 0.3)
    ax.grid(axis="y", visible=False)
    if pct_axis:
        ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=None))


def _kind(key: str) -> str:
    """How a key metric is shown: 'share' (percent), 'points' (win-rate points), 'plain'."""
    if "advantage" in key:
        return "points"
    if key.endswith("share") or key.endswith("rate"):
        return "share"
    return "plain"


SHORT = {"median_hands": "median hands per match", "unresolved_share": "unresolved (%)",
         "max_seat_advantage": "largest seat advantage (pts)",
         "max_preset_advantage": "largest preset advantage (pts)",
         "manipulations_per_hand": "manipulations per hand",
         "fee_share": "fees / chips moved (%)",
         "hedge_hit_rate": "hedge payouts per placement (%)",
         "final_dart": "final dart (chips)"}


def _formatter(kind: str):
    """Axis tick formatter: percent for shares, percentage points for advantages."""
    if kind == "share":
        return matplotlib.ticker.PercentFormatter(1.0, decimals=None)
    if kind == "points":
        return matplotlib.ticker.FuncFormatter(lambda v, _: f"{100 * v:.3g}")
    return matplotlib.ticker.ScalarFormatter()


def _hand_limit(matches: np.ndarray, floor: int = 30) -> int:
    """Last hand with enough matches still running to show a mean (>= floor and 1%)."""
    need = max(floor, 0.01 * (matches[0] if matches.size else 0))
    ok = np.nonzero(matches >= need)[0]
    return int(ok[-1]) if ok.size else int(matches.size - 1)


def _annotate_heat(ax, data, fmt, threshold=None, norm=None, cmap=None):
    """Write each cell's value, dark or light text against the cell colour."""
    cm = matplotlib.colormaps[cmap]
    for (i, j), v in np.ndenumerate(data):
        if not np.isfinite(v) or (threshold is not None and abs(v) < threshold):
            continue
        r, g, b, _ = cm(norm(v))
        light = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
        ax.text(j, i, fmt(v), ha="center", va="center", fontsize=7.5,
                color="white" if light else "black")


# ---------------------------------------------------------------------------
# The report of one point: nine sections
# ---------------------------------------------------------------------------
class _PointReport:
    """Builds the nine sections for one sweep point of a run."""

    def __init__(self, run: A.RunData, point: int, strict: bool = False):
        self.full = run
        self.point = point
        self.run = run.subset(point) if len(run.points) > 1 else run
        self.strict = strict
        self.cache: dict[str, Any] = {}
        self.csv: dict[str, pd.DataFrame] = {}
        self.tag = f"p{point}_" if len(run.points) > 1 else ""

    # -- plumbing -------------------------------------------------------------
    def get(self, key: str, fn: Callable, *args, **kw):
        if key not in self.cache:
            try:
                self.cache[key] = fn(self.run, *args, **kw)
            except A.MissingData as exc:
                self.cache[key] = exc
        value = self.cache[key]
        if isinstance(value, A.MissingData):
            raise value
        return value

    def table(self, frame: pd.DataFrame, caption: str, full: pd.DataFrame | None = None,
              name: str | None = None, highlight: Sequence[int] = ()) -> Table:
        csv = None
        if full is not None and name:
            csv = f"{self.tag}{name}.csv"
            self.csv[csv] = full
        return Table(frame, caption, highlight, csv)

    ANCHORS = {"Match length": "length", "Seat fairness": "seats", "Strategies": "strategies",
               "The Ranking Column": "column", "The Ledger": "ledger", "Hedging": "hedging",
               "Disruptors": "disruptors", "Chips": "chips"}

    def anchor(self, section: str) -> str | None:
        sid = self.ANCHORS.get(section)
        return self.tag + sid if sid else None

    def fig(self, name: str, caption: str, **kw):
        return _figure(self.tag + name, caption, **kw)

    def section(self, sid: str, title: str, intro: str, build: Callable[[], list]) -> Section:
        try:
            blocks = build()
        except A.MissingData as exc:
            blocks = [Note(f"Not available for this run: {exc}.", "muted")]
        except Exception as exc:  # a report must not die on one section
            if self.strict:
                raise
            blocks = [Note(f"This section could not be built ({type(exc).__name__}: {exc}); "
                           f"the other sections are unaffected.", "warning"),
                      Note(traceback.format_exc(limit=2).splitlines()[-1], "muted")]
        return Section(self.tag + sid, title, intro, blocks)

    def sections(self, number_from: int = 1) -> list[Section]:
        p = self.point
        where = f" (point {p})" if len(self.full.points) > 1 else ""
        specs = [
            ("headline", "Headline", self.headline,
             "What was run, what differs from the SPEC defaults, and what looks broken. "
             "Findings are flagged automatically; each links to its section below."),
            ("length", "Match length", self.match_length,
             "How many hands a match lasts. Unresolved matches hit max_hands and were "
             "stopped; their chip leader is counted as the winner."),
            ("seats", "Seat fairness", self.seats,
             "Does sitting in a given seat win more than 1/players? Each seat's win rate has "
             "a 95% Wilson interval; the chi-square test asks whether the seats differ at all, "
             "the per-seat exact tests are Holm-corrected."),
            ("strategies", "Strategies", self.strategies,
             "Win rate and chips per agent preset. With presets rotated across seats, seat "
             "and style are not confounded."),
            ("column", "The Ranking Column", self.column,
             "Where each category ends up and which categories win, against a column nobody "
             "moved."),
            ("ledger", "The Ledger", self.ledger,
             "Manipulation: how often players pay to promote a category, what the dart "
             "does over a match, and how much of the money is fees."),
            ("hedging", "Hedging", self.hedging,
             "Hedging tokens: how often players place them, how often they pay, and whether "
             "they pay for themselves."),
            ("disruptors", "Disruptors", self.disruptors,
             "Per Disruptor card: how often it is seen and taken, and whether the players who "
             "take it win more."),
            ("chips", "Chips", self.chips,
             "How fast the table thins out, and how unequal stacks are."),
        ]
        return [self.section(sid, f"{number_from + i}. {title}{where}", intro, build)
                for i, (sid, title, build, intro) in enumerate(specs)]

    # -- 1. headline ----------------------------------------------------------
    def headline(self) -> list:
        run, p = self.run, self.point
        m = run.manifest
        length = self.get("length", A.match_length).iloc[0]
        findings = A.findings(run, cache=self._findings_cache())
        self.cache["findings"] = findings
        pm_cache = {}
        for key, fn in (("length", A.match_length), ("seat", A.seat_fairness),
                        ("preset", A.preset_results), ("ledger", A.ledger_summary),
                        ("hedging", A.hedging_summary)):
            try:
                pm_cache[key] = self.get(key, fn)
            except A.MissingData:
                pass
        metrics = A.point_metrics(run, cache=pm_cache).iloc[0]
        facts = pd.DataFrame([
            ("scenario", f"{m['scenario'].get('name', '?')} ({m['scenario'].get('source', '')})"),
            ("sweep point", f"{p} of {len(self.full.points)}: " + ", ".join(
                f"{k} = {v}" for k, v in run.params(p).items()) if run.params(p) else "single run"),
            ("matches", count(length["matches"])),
            ("hands", count(length["hands"])),
            ("seed", str(m.get("seed"))),
            ("players", str(run.players(p))),
            ("seats", ", ".join((run._points_by_id.get(p) or {}).get("seats", [])) +
             (" (rotated)" if run.rotated else "")),
            ("started / ended", f"{m.get('started')} / {m.get('ended')}"),
            ("nop-sim, git", f"{m.get('versions', {}).get('nop_sim', '?')}, "
                             f"{(m.get('git_revision') or 'no git')[:10]}"),
        ], columns=["what", "value"])
        changed = A.settings_changed(run, p)
        blocks: list = [self._scorecard(metrics)]
        warn = findings[findings["severity"] == "warning"]
        if len(warn):
            blocks.append(Note(f"{len(warn)} finding(s) need a look:", "warning"))
            blocks.append(Bullets([f"{r.section}: {r.finding}" for r in warn.itertuples()],
                                  "warning", [self.anchor(r.section) for r in warn.itertuples()]))
        else:
            blocks.append(Note("No automatic finding: seats and presets within their fairness "
                               "intervals, no outlier Disruptor, unresolved matches under 1%, "
                               "every reachable category wins, the ledger's cap is reached in "
                               "some matches but not all."))
        for r in findings[findings["severity"] == "note"].itertuples():
            blocks.append(Note(f"Note ({r.section}): {r.finding}.", "muted"))
        blocks.append(self.table(facts, "The run"))
        if len(changed):
            blocks.append(self.table(changed, "Settings that differ from the SPEC defaults"))
        else:
            blocks.append(Note("Every game setting is at its SPEC default."))
        self.csv[f"{self.tag}findings.csv"] = findings
        return blocks

    def _findings_cache(self) -> dict:
        cache = {}
        for key, fn in (("seat", A.seat_fairness), ("preset", A.preset_results),
                        ("disruptor", A.disruptor_stats), ("length", A.match_length),
                        ("winning", A.winning_categories), ("ledger", A.ledger_summary)):
            try:
                cache[key] = self.get(key, fn)
            except A.MissingData:
                cache[key] = None
        return cache

    def _scorecard(self, metrics: pd.Series) -> Figure:
        targets = self.run.targets
        rows = []
        for key, (label, target_name) in A.METRICS.items():
            if key not in metrics or not _isnum(metrics[key]):
                continue
            target = targets.get(target_name) if target_name else None
            if key == "unresolved_share" and target is None:
                target = 0.01
            rows.append((key, label, metrics[key], metrics.get(f"{key}_low"),
                         metrics.get(f"{key}_high"), target))
        fig, axes = self.fig("headline", "Key numbers with their 95% intervals; dashed line: "
                             "the scenario's target (unresolved: the 1% alarm line). "
                             "Advantages are |win rate − 1/players| of the worst seat or preset.",
                             height=0.62 * len(rows) + 0.5, nrows=len(rows))
        for ax, (key, label, v, lo, hi, target) in zip(axes[:, 0], rows, strict=True):
            kind = _kind(key)
            scale = 1 if kind == "plain" else 100
            err = None
            if _isnum(lo) and _isnum(hi):
                err = [[max(v - lo, 0) * scale], [max(hi - v, 0) * scale]]
            ax.errorbar([v * scale], [0], xerr=err, fmt="o", color=PALETTE["blue"], ms=6)
            xs = [v * scale] + ([lo * scale, hi * scale] if err else [])
            if target is not None:
                ax.axvline(target * scale, color=PALETTE["vermillion"], ls="--", lw=1.3)
                xs.append(target * scale)
            lo_x, hi_x = min(xs), max(xs)
            pad = (hi_x - lo_x) * 0.25 or max(abs(hi_x) * 0.2, 0.5 if kind != "plain" else 1e-3)
            left = lo_x - pad
            if kind != "plain" or min(xs) >= 0:
                left = max(left, 0.0)
            ax.set_xlim(left, hi_x + pad)
            ax.set_yticks([0], [label])
            ax.set_ylim(-0.6, 0.6)
            ax.grid(axis="y", visible=False)
            unit = {"share": "%", "points": " pts", "plain": ""}[kind]
            txt = f"{v * scale:.3g}{unit}"
            if target is not None:
                txt += f"   target {target * scale:.3g}{unit}"
            ax.text(1.01, 0.5, txt, transform=ax.transAxes, ha="left", va="center", fontsize=9)
        return _png(fig)

    # -- 2. match length ------------------------------------------------------
    def match_length(self) -> list:
        ml = self.get("length", A.match_length)
        r = ml.iloc[0]
        surv = A.survival(self.run)
        hands = self.run.table("matches", "hands")["hands"].to_numpy()
        fig, axes = self.fig("match_length", "Left: hands per match (bars) with the median "
                             "and its 95% bootstrap interval. Right: share of matches still "
                             "running after each hand, with a 95% Wilson band.",
                             ncols=2, height=3.4)
        ax = axes[0, 0]
        top = np.percentile(hands, 99.5)
        bins = np.histogram_bin_edges(hands[hands <= top], bins=min(50, max(int(top), 5)))
        ax.hist(np.clip(hands, None, bins[-1]), bins=bins, color=PALETTE["sky"],
                edgecolor="white", lw=0.4)
        ax.axvspan(r["median_low"], r["median_high"], color=PALETTE["orange"], alpha=0.3, lw=0)
        ax.axvline(r["median_hands"], color=PALETTE["vermillion"], lw=1.6,
                   label=f"median {r['median_hands']:g} hands")
        ax.set_xlabel("hands per match (last bin: 99.5th percentile and above)")
        ax.set_ylabel("matches")
        ax.legend()
        ax = axes[0, 1]
        ax.fill_between(surv["hands"], surv["ci_low"], surv["ci_high"],
                        color=PALETTE["blue"], alpha=0.25, lw=0, step="post")
        ax.step(surv["hands"], surv["share"], where="post", color=PALETTE["blue"])
        ax.axhline(0.5, color=PALETTE["grey"], ls=":", lw=1)
        ax.set_xlim(0, top)
        ax.set_ylim(0, 1.02)
        ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
        ax.set_xlabel("hands played")
        ax.set_ylabel("matches still running")
        t = pd.DataFrame([{
            "matches": count(r["matches"]), "hands": count(r["hands"]),
            "median hands (95% CI)": num_ci(r["median_hands"], r["median_low"],
                                            r["median_high"], 1),
            "mean hands (95% CI)": num_ci(r["mean_hands"], r["mean_low"], r["mean_high"], 1),
            "10th–90th percentile": f"{r['p10_hands']:g}–{r['p90_hands']:g}",
            "unresolved (95% CI)": pct_ci(r["unresolved_share"], r["unresolved_low"],
                                          r["unresolved_high"], 2),
            "max_hands": count(r["max_hands"]),
        }])
        return [_png(fig), self.table(t, "Match length", ml, "match_length")]

    # -- 3. seats -------------------------------------------------------------
    def seats(self) -> list:
        s = self.get("seat", A.seat_fairness)
        chi = A.seat_chi_square(self.run)
        c = chi.iloc[0] if len(chi) else None
        title = (f"chi-square = {c['chi2']:.1f}, {int(c['dof'])} df, p = {pval(c['p_value'])}"
                 if c is not None else "")
        fig, axes = self.fig("seats", "Win rate per seat (dot) with its 95% Wilson interval; "
                             "dashed: the fair 1/players. Vermillion: outside fairness after "
                             "Holm correction.", height=max(2.2, 0.42 * len(s) + 1.2))
        ax = axes[0, 0]
        _hbar_ci(ax, [f"seat {int(x)}" for x in s["seat"]], s["win_rate"], s["ci_low"],
                 s["ci_high"], ref=float(s["fair"].iloc[0]), ref_label="fair share",
                 highlight=s["outside"].to_numpy())
        ax.set_xlabel("matches won (%)")
        ax.set_title(title, loc="left", fontweight="normal", fontsize=10)
        ax.legend(loc="lower right")
        t = pd.DataFrame({
            "seat": s["seat"].astype(int).astype(str),
            "wins": [count(x) for x in s["wins"]], "matches": [count(x) for x in s["seats"]],
            "win rate (95% CI)": [pct_ci(*x) for x in zip(s["win_rate"], s["ci_low"],
                                                          s["ci_high"], strict=True)],
            "fair": [pct(x) for x in s["fair"]],
            "advantage": [f"{100 * x:+.1f} pts" for x in s["advantage"]],
            "p": [pval(x) for x in s["p_value"]], "p (Holm)": [pval(x) for x in s["p_holm"]],
            "unfair": ["yes" if x else "" for x in s["outside"]],
        })
        blocks = [_png(fig), self.table(t, "Wins per seat", s, "seats")]
        if c is not None:
            verdict = ("the seats differ" if c["p_value"] < A.ALPHA else
                       "no evidence that the seats differ")
            blocks.append(Note(f"Chi-square test of equal wins per seat: {title} — {verdict} "
                               f"at the 5% level."))
        return blocks

    # -- 4. strategies ----------------------------------------------------------
    def strategies(self) -> list:
        pr = self.get("preset", A.preset_results)
        has_net = "net_chips" in pr.columns
        fig, axes = self.fig("presets", "Left: win rate per preset (95% Wilson interval; "
                             "dashed: fair 1/players; vermillion: unfair after Holm). Right: "
                             "mean chips won or lost per seat and match (95% t interval).",
                             ncols=2 if has_net else 1, height=max(2.4, 0.42 * len(pr) + 1.3))
        labels = list(pr["preset"].astype(str))
        _hbar_ci(axes[0, 0], labels, pr["win_rate"], pr["ci_low"], pr["ci_high"],
                 ref=float(pr["fair"].iloc[0]), ref_label="fair share",
                 highlight=pr["outside"].to_numpy())
        axes[0, 0].set_xlabel("matches won (%)")
        if has_net:
            _hbar_ci(axes[0, 1], labels, pr["net_chips"], pr["net_chips_low"],
                     pr["net_chips_high"], ref=0.0, pct_axis=False)
            axes[0, 1].set_xlabel("net chips per seat and match (chips)")
            axes[0, 1].set_yticklabels([])
        t = pd.DataFrame({
            "preset": labels, "seats": [count(x) for x in pr["seats"]],
            "win rate (95% CI)": [pct_ci(*x) for x in zip(pr["win_rate"], pr["ci_low"],
                                                          pr["ci_high"], strict=True)],
            "advantage": [f"{100 * x:+.1f} pts" for x in pr["advantage"]],
            "p (Holm)": [pval(x) for x in pr["p_holm"]],
            "mean place": [num(x, 2) for x in pr["mean_place"]],
        })
        if has_net:
            t["net chips (95% CI)"] = [num_ci(*x, 1) for x in zip(
                pr["net_chips"], pr["net_chips_low"], pr["net_chips_high"], strict=True)]
        blocks = [_png(fig), self.table(t, "Results per preset", pr, "presets")]
        sk = A.skill_matrix(self.run)
        if len(sk) and sk["preset"].nunique() > 1:
            blocks += self._skill(sk)
            if not self.run.rotated:
                blocks.append(Note("Presets do not rotate across seats in this scenario, so a "
                                   "preset's results include its seats' advantage.", "muted"))
        else:
            blocks.append(Note("No head-to-head matrix: every seat plays the same preset.",
                               "muted"))
        return blocks

    def _skill(self, sk: pd.DataFrame) -> list:
        names = sorted(set(sk["preset"].astype(str)) | set(sk["opponent"].astype(str)))
        mat = np.full((len(names), len(names)), np.nan)
        for r in sk.itertuples():
            mat[names.index(str(r.preset)), names.index(str(r.opponent))] = r.rate
        n = len(names)
        fig, axes = self.fig("skill_matrix", "Head to head: share of matches in which the row "
                             "preset finished above the column preset. 50% = even; purple: the "
                             "row does better, orange: worse.",
                             width=min(WIDTH, 2.2 + 0.95 * n), height=1.4 + 0.7 * n)
        ax = axes[0, 0]
        dev = np.nanmax(np.abs(mat - 0.5)) if np.isfinite(mat).any() else 0.5
        dev = max(dev, 0.05)
        norm = matplotlib.colors.Normalize(0.5 - dev, 0.5 + dev)
        im = ax.imshow(mat, cmap=DIVERGING, norm=norm)
        _annotate_heat(ax, mat, lambda v: f"{100 * v:.0f}%", norm=norm, cmap=DIVERGING)
        for i in range(n):
            ax.text(i, i, "—", ha="center", va="center", color=PALETTE["grey"])
        ax.set_xticks(range(n), names, rotation=30, ha="right")
        ax.set_yticks(range(n), names)
        ax.set_xlabel("opponent")
        ax.set_ylabel("preset")
        ax.grid(False)
        cb = fig.colorbar(im, ax=ax, shrink=0.85)
        cb.ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
        cb.set_label("finished above (%)")
        first = sk[sk["preset"].astype(str) < sk["opponent"].astype(str)]
        t = pd.DataFrame({
            "preset": first["preset"].astype(str), "opponent": first["opponent"].astype(str),
            "meetings": [count(x) for x in first["meetings"]],
            "preset ahead (95% CI)": [pct_ci(*x) for x in zip(first["rate"], first["ci_low"],
                                                              first["ci_high"], strict=True)],
            "p (Holm)": [pval(x) for x in first["p_holm"]],
        })
        return [_png(fig), self.table(t, "Head to head (each pair once)", sk, "skill_matrix")]

    # -- 5. column --------------------------------------------------------------
    def column(self) -> list:
        blocks: list = []
        cp = A.column_positions(self.run)
        heat = cp.pivot(index="category", columns="position", values="share").to_numpy()
        labels = list(A.CATEGORY_LABELS)
        fig, axes = self.fig("column_final", "Where each category ends a match: share of "
                             "matches with the category (row) at each column position "
                             "(0 = top). A column nobody moved is the diagonal.",
                             height=4.6, width=WIDTH * 0.85)
        ax = axes[0, 0]
        norm = matplotlib.colors.Normalize(0, max(np.nanmax(heat), 1e-9))
        im = ax.imshow(heat, cmap=SEQUENTIAL, norm=norm, aspect="auto")
        _annotate_heat(ax, heat, lambda v: f"{100 * v:.0f}", threshold=0.05, norm=norm,
                       cmap=SEQUENTIAL)
        ax.set_yticks(range(13), labels)
        ax.set_xticks(range(13))
        ax.set_xlabel("position at match end (0 = top of the column)")
        ax.grid(False)
        cb = fig.colorbar(im, ax=ax)
        cb.ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
        cb.set_label("matches (%)")
        blocks.append(_png(fig))
        mean_final = (cp.assign(w=cp["position"] * cp["share"]).groupby("category")["w"].sum())
        try:
            oh = A.column_over_hands(self.run)
            wide = oh.pivot(index="category", columns="hand", values="mean_position")
            matches = oh[oh["category"] == 0].sort_values("hand")["matches"].to_numpy()
            last = _hand_limit(matches)
            wide = wide.loc[:, wide.columns <= last]
            fig, axes = self.fig("column_over_hands", f"Mean position of each category at the "
                                 f"start of each hand (0 = top), over the matches still "
                                 f"running; shown up to hand {last}, while at least "
                                 f"{int(matches[last]) if matches.size else 0} matches run.",
                                 height=4.4)
            ax = axes[0, 0]
            norm = matplotlib.colors.Normalize(0, 12)
            im = ax.imshow(wide.to_numpy(), cmap=SEQUENTIAL + "_r", norm=norm, aspect="auto",
                           interpolation="nearest",
                           extent=(-0.5, wide.shape[1] - 0.5, 12.5, -0.5))
            ax.set_yticks(range(13), labels)
            ax.set_xlabel("hand of the match")
            ax.grid(False)
            cb = fig.colorbar(im, ax=ax)
            cb.set_label("mean position (0 = top)")
            blocks.append(_png(fig))
        except A.MissingData as exc:
            blocks.append(Note(f"Positions over hands not available: {exc}.", "muted"))
        w = self.get("winning", A.winning_categories)
        fig, axes = self.fig("winning_categories", "Category of the hand that won the main "
                             f"pot (blue) against random {w['showdown_players'].iloc[0]:g}-way "
                             "showdowns under the default column (orange: no draw, no "
                             "Disruptors, nobody manipulates); 95% Wilson intervals.",
                             height=4.6)
        ax = axes[0, 0]
        _hbar_ci(ax, labels, w["share"], w["share_low"], w["share_high"],
                 color=PALETTE["blue"], offset=0.15, label="this run")
        _hbar_ci(ax, labels, w["baseline_share"], w["baseline_low"], w["baseline_high"],
                 color=PALETTE["orange"], offset=-0.15, marker="s",
                 label="default-column baseline")
        ax.set_xlabel("main pots won (%)")
        ax.legend(loc="lower right")
        blocks.append(_png(fig))
        t = pd.DataFrame({
            "category": labels,
            "mean final position": [num(mean_final.get(i, np.nan), 1) for i in range(13)],
            "at top at the end": [pct(heat[i, 0]) for i in range(13)],
            "wins": [count(x) for x in w["wins"]],
            "win share (95% CI)": [pct_ci(*x) for x in zip(w["share"], w["share_low"],
                                                           w["share_high"], strict=True)],
            "baseline share": [pct(x, 2) for x in w["baseline_share"]],
            "difference": [f"{100 * x:+.1f} pts" for x in w["difference"]],
        })
        if "elevated" in w:
            t.insert(4, "of which elevated", [count(x) for x in w["elevated"]])
        blocks.append(self.table(t, "Categories: final position, wins, baseline",
                                 w.merge(cp.pivot(index="category", columns="position",
                                                  values="count").add_prefix("final_pos_")
                                         .reset_index(), on="category"), "column"))
        blocks.append(Note(
            "Baseline: shares of the winning category when the table's mean number of players "
            f"at a showdown ({w['showdown_players'].iloc[0]:g}, from this run's showdown and "
            "muck counts) show random seven-card hands (5 hole + 2 community) under the "
            "default column, one deck, no draw, no wild (nop_sim.analysis.default_baseline, "
            "1,000,000 deals per table size). The draw makes real hands stronger, so "
            "strong categories beat the baseline even in a game where nobody manipulates.",
            "muted"))
        return blocks

    # -- 6. ledger ------------------------------------------------------------
    def ledger(self) -> list:
        led = self.get("ledger", A.ledger_summary)
        r = led.iloc[0]
        blocks: list = []
        promos = A.promotions(self.run)
        dart = None
        try:
            dart = A.dart_over_hands(self.run)
        except A.MissingData as exc:
            blocks.append(Note(f"Dart over hands not available: {exc}.", "muted"))
        fig, axes = self.fig("ledger", "Left: the dart (fee of the next manipulation) at the "
                             "start of each hand: mean (line), its 95% interval (dark band) and "
                             "mean ± one standard deviation between matches (light band); "
                             "dashed: the cap. Right: share of all promotions that moved each "
                             "category up (95% Wilson).", ncols=2, height=4.2)
        ax = axes[0, 0]
        if dart is not None and len(dart):
            last = _hand_limit(dart["matches"].to_numpy())
            d = dart[dart["hand"] <= last]
            ax.fill_between(d["hand"], d["band_low"], d["band_high"], color=PALETTE["sky"],
                            alpha=0.3, lw=0, label="± 1 sd")
            ax.fill_between(d["hand"], d["ci_low"], d["ci_high"], color=PALETTE["blue"],
                            alpha=0.45, lw=0, label="95% CI of mean")
            ax.plot(d["hand"], d["mean"], color=PALETTE["blue"], label="mean dart")
        top = 1.0
        if dart is not None and len(dart):
            top = float(np.nanmax(d["band_high"]))
        if _isnum(r.get("dart_cap", np.nan)):
            ax.axhline(r["dart_cap"], color=PALETTE["vermillion"], ls="--", lw=1.2,
                       label=f"cap {int(r['dart_cap'])}")
            top = max(top, float(r["dart_cap"]))
        ax.set_xlabel("hand of the match")
        ax.set_ylabel("dart (chips per promotion)")
        ax.set_ylim(0, top * 1.35)
        ax.legend(loc="upper right", ncol=2, fontsize=8)
        ax = axes[0, 1]
        _hbar_ci(ax, list(A.CATEGORY_LABELS), promos["share"], promos["share_low"],
                 promos["share_high"], color=PALETTE["green"])
        ax.set_xlabel("promotions (%)")
        blocks.insert(0, _png(fig))
        t = pd.DataFrame([{
            "hands": count(r["hands"]), "manipulations": count(r.get("manipulations")),
            "per hand (95% CI)": num_ci(r.get("manipulations_per_hand"),
                                        r.get("manipulations_low"),
                                        r.get("manipulations_high"), 3),
            "fees per hand (95% CI)": num_ci(r.get("fees_per_hand"), r.get("fees_low"),
                                             r.get("fees_high"), 2),
            "fees / chips moved (95% CI)": pct_ci(r.get("fee_share"), r.get("fee_share_low"),
                                                  r.get("fee_share_high"), 2),
            "fees to bank": count(r.get("fees_to_bank")),
            "mean final dart (95% CI)": num_ci(r.get("final_dart"), r.get("final_dart_low"),
                                               r.get("final_dart_high"), 1),
            "matches ending at cap (95% CI)": pct_ci(r.get("at_cap_share"),
                                                     r.get("at_cap_low"),
                                                     r.get("at_cap_high")),
        }])
        blocks.append(self.table(t, "The Ledger", led, "ledger"))
        blocks.append(Note("Chips moved = chips awarded from pots + hedge payouts + fees sent "
                           "to the bank (fees paid to the pot are inside the pots). Per-hand "
                           "intervals treat the match as the unit.", "muted"))
        try:
            bp = A.ledger_by_preset(self.run)
            tp = pd.DataFrame({
                "preset": bp["preset"].astype(str),
                "manipulations per match (95% CI)": [num_ci(*x, 2) for x in zip(
                    bp["manipulations"], bp["manipulations_low"], bp["manipulations_high"],
                    strict=True)]})
            if "fees" in bp:
                tp["fees per match (95% CI)"] = [num_ci(*x, 1) for x in zip(
                    bp["fees"], bp["fees_low"], bp["fees_high"], strict=True)]
            blocks.append(self.table(tp, "Manipulation by preset (per seat and match)", bp,
                                     "ledger_by_preset"))
        except A.MissingData:
            pass
        return blocks

    # -- 7. hedging -----------------------------------------------------------
    def hedging(self) -> list:
        hs = self.get("hedging", A.hedging_summary)
        r = hs.iloc[0]
        if not r["placements"]:
            return [Note("No hedging token was placed in this run.", "muted")]
        hc = A.hedging_by_category(self.run)
        hc = hc[hc["placements"] > 0]
        try:
            hp = A.hedging_by_preset(self.run)
        except A.MissingData:
            hp = None
        per_hit = r["paid"] / r["hits"] if r["hits"] else np.nan
        per_cost = r["cost"] / r["placements"]
        breakeven = per_cost / per_hit if _isnum(per_hit) and per_hit else np.nan
        fig, axes = self.fig("hedging", "Per category the token lay on. Left: hit rate "
                             "(payouts per placement, 95% interval); dashed: break-even = cost "
                             "per placement / payout per hit. Right: net chips per placement "
                             "(payout per hit × hit rate − cost; 95% interval); right of zero "
                             "the token earns chips.", ncols=2,
                             height=max(3.0, 0.36 * len(hc) + 1.4))
        ax = axes[0, 0]
        labels = list(hc["label"])
        _hbar_ci(ax, labels, hc["hit_rate"], hc["hit_rate_low"], hc["hit_rate_high"],
                 color=PALETTE["purple"], ref=breakeven, ref_label="break-even")
        ax.set_xlabel("hit rate (%)")
        ax.legend(loc="lower right")
        ax = axes[0, 1]
        _hbar_ci(ax, labels, hc["net_per_placement"], hc["net_low"], hc["net_high"],
                 color=PALETTE["purple"], ref=0.0, pct_axis=False,
                 highlight=(hc["net_high"] < 0).to_numpy())
        ax.set_yticklabels([])
        ax.set_xlabel("net chips per placement (chips)")
        t = pd.DataFrame([{
            "placements": count(r["placements"]),
            "per player-hand (95% CI)": num_ci(r.get("placement_rate"),
                                               r.get("placement_low"),
                                               r.get("placement_high"), 3),
            "hits": count(r["hits"]),
            "hit rate (95% CI)": pct_ci(r["hit_rate"], r["hit_low"], r["hit_high"]),
            "cost paid": count(r["cost"]), "payouts": count(r["paid"]),
            "net per placement (95% CI)": num_ci(r["net_per_placement"], r["net_low"],
                                                 r["net_high"], 2),
            "worth it?": r["worth_it"],
        }])
        tc = pd.DataFrame({
            "category": hc["label"], "placements": [count(x) for x in hc["placements"]],
            "hits": [count(x) for x in hc["hits"]],
            "hit rate (95% CI)": [pct_ci(*x) for x in zip(hc["hit_rate"], hc["hit_rate_low"],
                                                          hc["hit_rate_high"], strict=True)],
            "net chips (est.)": [num(x, 0) for x in hc["net_chips"]],
            "net per placement (95% CI)": [num_ci(*x, 2) for x in zip(
                hc["net_per_placement"], hc["net_low"], hc["net_high"], strict=True)],
        })
        verdict = {"yes": "Hedging pays: the whole interval of net chips per placement is "
                          "above zero.",
                   "no": "Hedging loses chips: the whole interval of net chips per placement "
                         "is below zero.",
                   "unclear": "Hedging roughly breaks even: the interval of net chips per "
                              "placement includes zero."}.get(r["worth_it"], "")
        blocks = [_png(fig), Note(verdict),
                  self.table(t, "Hedging overall", hs, "hedging"),
                  self.table(tc, "Hedging per category", hc, "hedging_by_category")]
        if hp is not None:
            tp = pd.DataFrame({
                "preset": hp["preset"].astype(str),
                "placements": [count(x) for x in hp["placements"]],
                "hit rate (95% CI)": [pct_ci(*x) for x in zip(
                    hp["hit_rate"], hp["hit_rate_low"], hp["hit_rate_high"], strict=True)],
                "net hedge chips per match (95% CI)": [num_ci(*x, 1) for x in zip(
                    hp["net_chips"], hp["net_chips_low"], hp["net_chips_high"], strict=True)],
            })
            blocks.append(self.table(tp, "Hedging by preset", hp, "hedging_by_preset"))
        blocks.append(Note("A placement is a token placed or moved (each costs hedge_cost). "
                           "Per-category chips are estimated from the run's actual payout per "
                           "hit and cost per placement; the overall and per-preset chips are "
                           "exact.", "muted"))
        return blocks

    # -- 8. disruptors --------------------------------------------------------
    def disruptors(self) -> list:
        d = self.get("disruptor", A.disruptor_stats)
        if d.empty:
            return [Note("No Disruptor card was drafted in this run (the mix is empty, or no "
                         "showdown drafted).", "muted")]
        d = d.sort_values("pick_rate" if "pick_rate" in d else "drafters",
                          ascending=False).reset_index(drop=True)
        cards = list(d["card"].astype(str))
        h = max(3.2, 0.27 * len(cards) + 1.3)
        fig, axes = self.fig("disruptor_picks", "Left: pick rate (picks / times revealed, "
                             "circles) and share of picks made by the best hand (squares), "
                             "95% Wilson. Right: win-rate difference of seats that drafted the "
                             "card vs seats that drafted as many other cards (Mantel-Haenszel, "
                             "95% interval); vermillion: outlier (Holm p < 0.05 and at least "
                             "5 points); grey band: ±5 points.", ncols=2, height=h)
        ax = axes[0, 0]
        if "pick_rate" in d:
            _hbar_ci(ax, cards, d["pick_rate"], d["pick_rate_low"], d["pick_rate_high"],
                     color=PALETTE["blue"], offset=0.15, label="picked when revealed")
        if "first_share" in d:
            _hbar_ci(ax, cards, d["first_share"], d["first_share_low"], d["first_share_high"],
                     color=PALETTE["orange"], marker="s", offset=-0.15,
                     label="taken by the best hand")
        ax.set_xlabel("share (%)")
        ax.set_xlim(-0.02, 1.02)
        ax.legend(loc="lower right", fontsize=8)
        ax = axes[0, 1]
        ax.axvspan(-0.05, 0.05, color=PALETTE["grey"], alpha=0.15, lw=0)
        _hbar_ci(ax, cards, d["adjusted_lift"], d["adjusted_low"], d["adjusted_high"],
                 color=PALETTE["blue"], ref=0.0, highlight=d["outlier"].to_numpy())
        ax.set_yticklabels([])
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(
            lambda v, _: f"{100 * v:+.0f}"))
        ax.set_xlabel("win-rate difference (percentage points)")
        blocks = [_png(fig)]
        fig, axes = self.fig("disruptor_effects", "Left: win rate of seats that drafted the "
                             "card at least once (blue) vs seats that did not (orange), 95% "
                             "Wilson — drafting needs a won showdown, so drafters win more "
                             "whatever the card does. Right: hands per match with the card "
                             "drafted minus without, at equal cards drafted (95% interval).",
                             ncols=2, height=h)
        ax = axes[0, 0]
        _hbar_ci(ax, cards, d["drafter_win_rate"], d["drafter_win_rate_low"],
                 d["drafter_win_rate_high"], color=PALETTE["blue"], offset=0.15,
                 label="drafted it")
        _hbar_ci(ax, cards, d["other_win_rate"], d["other_win_rate_low"],
                 d["other_win_rate_high"], color=PALETTE["orange"], marker="s", offset=-0.15,
                 label="did not")
        ax.set_xlabel("matches won (%)")
        ax.legend(loc="lower right", fontsize=8)
        ax = axes[0, 1]
        _hbar_ci(ax, cards, d["length_effect"], d["length_low"], d["length_high"],
                 color=PALETTE["green"], ref=0.0, pct_axis=False)
        ax.set_yticklabels([])
        ax.set_xlabel("effect on match length (hands)")
        blocks.append(_png(fig))
        def col(name):   # counters the engine may not record yet
            return d[name] if name in d else pd.Series(np.nan, d.index)

        t = pd.DataFrame({
            "card": cards,
            "revealed": [count(x) for x in col("revealed")],
            "pick rate": [pct_ci(*x) for x in zip(col("pick_rate"), col("pick_rate_low"),
                                                  col("pick_rate_high"), strict=True)],
            "by best hand": [pct(x) for x in col("first_share")],
            "drafters win": [pct_ci(*x) for x in zip(d["drafter_win_rate"],
                                                     d["drafter_win_rate_low"],
                                                     d["drafter_win_rate_high"], strict=True)],
            "others win": [pct(x) for x in d["other_win_rate"]],
            "p (Holm)": [pval(x) for x in d["p_holm"]],
            "adjusted lift": [f"{100 * x:+.1f} ({100 * lo:+.1f} to {100 * hi:+.1f})"
                              if _isnum(x) and _isnum(lo) and _isnum(hi) else "–"
                              for x, lo, hi in zip(d["adjusted_lift"], d["adjusted_low"],
                                                   d["adjusted_high"], strict=True)],
            "p adj. (Holm)": [pval(x) for x in d["p_adjusted_holm"]],
            "outlier": ["yes" if x else "" for x in d["outlier"]],
            "length effect (hands)": [num_ci(*x, 1) for x in zip(
                d["length_effect"], d["length_low"], d["length_high"], strict=True)],
        })
        blocks.append(self.table(t, "Disruptor cards (sorted by pick rate)", d, "disruptors",
                                 highlight=list(np.nonzero(d["outlier"].to_numpy())[0])))
        blocks.append(Note(
            "Reading the table: 'drafters win' vs 'others win' is the raw comparison the rules "
            "invite, tested with Fisher's exact test and Holm-corrected across cards; it is "
            "not causal. The adjusted lift compares drafters with seats that drafted as many "
            "other cards and is the basis for flagging outliers. For a controlled comparison "
            "run a sweep over the mix (scenarios/disruptor_mixes.toml).", "muted"))
        return blocks

    # -- 9. chips ---------------------------------------------------------------
    def chips(self) -> list:
        blocks: list = []
        et = A.elimination_timing(self.run)
        try:
            alive = A.alive_over_hands(self.run)
        except A.MissingData:
            alive = None
        s = self.run.table("seats", "place", "eliminated_hand")
        fig, axes = self.fig("chips", "Left: mean players still in at the start of each hand "
                             "(over the matches still running). Right: share of players of "
                             "each finishing place already eliminated by each hand.",
                             ncols=2, height=3.6)
        ax = axes[0, 0]
        if alive is not None and len(alive):
            last = _hand_limit(alive["matches"].to_numpy())
            a = alive[alive["hand"] <= last]
            ax.plot(a["hand"], a["mean_alive"], color=PALETTE["blue"])
            ax.set_ylim(0.9, self.run.players(self.point) + 0.2)
        ax.set_xlabel("hand of the match")
        ax.set_ylabel("players still in")
        ax = axes[0, 1]
        e = s[s["eliminated_hand"] > 0]
        top = np.percentile(e["eliminated_hand"], 99) if len(e) else 1
        for i, (place, g) in enumerate(e.groupby("place", sort=True)):
            x = np.sort(g["eliminated_hand"].to_numpy())
            ax.step(x, np.arange(1, x.size + 1) / x.size, where="post",
                    color=CYCLE[i % len(CYCLE)], label=f"place {int(place)}")
        ax.set_xlim(0, top)
        ax.set_ylim(0, 1.02)
        ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
        ax.set_xlabel("hand of elimination")
        ax.set_ylabel("eliminated by then")
        ax.legend(loc="lower right")
        blocks.append(_png(fig))
        if len(et):
            t = pd.DataFrame({
                "place": et["place"].astype(int).astype(str), "players": [count(x) for x in
                                                                         et["n"]],
                "median hand": [num(x, 1) for x in et["median"]],
                "mean hand (95% CI)": [num_ci(*x, 1) for x in zip(et["mean"], et["mean_low"],
                                                                  et["mean_high"],
                                                                  strict=True)],
                "10th–90th percentile": [f"{a:g}–{b:g}" for a, b in zip(et["p10"], et["p90"],
                                                                            strict=True)],
            })
            blocks.append(self.table(t, "Elimination timing by finishing place", et,
                                     "elimination"))
        try:
            gi = A.stack_inequality(self.run)
            tg = pd.DataFrame({
                "matches": gi["matches"], "n": [count(x) for x in gi["n"]],
                "Gini of final stacks (95% CI)": [num_ci(*x, 3) for x in zip(
                    gi["gini"], gi["ci_low"], gi["ci_high"], strict=True)],
                "one player holds all": [num(x, 3) for x in gi["gini_one_holds_all"]],
            })
            blocks.append(self.table(tg, "Stack inequality at the end of a match", gi,
                                     "stack_inequality"))
            blocks.append(Note(
                "What the Gini measures here: the engine records stacks only at the end of a "
                "match, where a finished match has one player holding everything (Gini = "
                "(players − 1)/players). It is informative for unresolved matches and when "
                "the bank adds or removes chips; stack inequality during a match is not "
                "recorded, so the players-still-in curve and elimination timing show how fast "
                "the table thins out instead.", "muted"))
        except A.MissingData:
            pass
        return blocks


# ---------------------------------------------------------------------------
# Sweep sections
# ---------------------------------------------------------------------------
def _relabel(run: A.RunData, groups: pd.Series, labels: dict[int, dict]) -> A.RunData:
    """The run with points replaced by groups of points (pooled per group).

    ``groups`` maps point -> group id; ``labels`` gives each group's params.
    Settings of a group are those of its first point, with ``players``
    dropped when the points disagree on it (fairness is then not computed).
    """
    tables = {}
    for name, t in run.tables.items():
        if "point" in t.columns and len(t):
            if "match" in t.columns:   # keep matches of merged points apart
                t = t.assign(match=t["point"].astype(np.int64) * 1_000_000_000
                             + t["match"].astype(np.int64))
            t = t.assign(point=t["point"].map(groups))
            if name == "arrays":
                t = (t.groupby(["point", "table", "stat", "index", "label"], as_index=False)
                     ["value"].sum())
        tables[name] = t
    points = []
    for gid, params in labels.items():
        members = [p for p, g in groups.items() if g == gid]
        settings = run.settings(members[0])
        players = {run.players(p) for p in members}
        if len(players) > 1:
            settings["players"] = None
        points.append({"point": gid, "params": params, "settings": settings,
                       "seats": (run._points_by_id.get(members[0]) or {}).get("seats", [])})
    manifest = dict(run.manifest)
    manifest["points"] = points
    return A.RunData(manifest, tables, run.folder)


def _axis_values(values: pd.Series, max_bins: int = 6):
    """Group labels for a swept parameter: its values, or quantile bins when continuous."""
    uniq = pd.unique(values)
    if len(uniq) <= max_bins * 2 or not np.issubdtype(np.asarray(uniq).dtype, np.number):
        return values, sorted(uniq, key=lambda v: (isinstance(v, str), v))
    bins = pd.qcut(values.astype(float), q=max_bins, duplicates="drop")
    centres = bins.map(lambda iv: round(float(iv.mid), 3)).astype(float)
    return centres, sorted(pd.unique(centres))


def _pooled_metrics(run: A.RunData, by: list[str], n_boot: int) -> pd.DataFrame:
    """:func:`analysis.point_metrics` with points pooled by the values of ``by``."""
    params = pd.DataFrame([{"point": p, **run.params(p)} for p in run.points])
    keys = []
    for name in by:
        col, _ = _axis_values(params[name])
        keys.append(col.astype(object).to_numpy())
    combos = pd.Series(list(zip(*keys, strict=True)), index=params["point"])
    ids = {c: i for i, c in enumerate(sorted(set(combos), key=lambda c: tuple(
        (isinstance(v, str), str(v) if isinstance(v, str) else v) for v in c)))}
    groups = combos.map(ids)
    labels = {i: dict(zip(by, c, strict=True)) for c, i in ids.items()}
    pooled = _relabel(run, groups, labels)
    metrics = A.point_metrics(pooled, n_boot=n_boot)
    single_players = all(pooled.setting(g, "players") is not None for g in labels)
    if not single_players:
        for k in ("max_seat_advantage", "max_preset_advantage"):
            for suffix in ("", "_low", "_high"):
                if k + suffix in metrics:
                    metrics[k + suffix] = np.nan
    return metrics


class _SweepReport:
    def __init__(self, run: A.RunData, strict: bool = False, max_pairs: int = 6,
                 n_boot: int = 300):
        self.run = run
        self.strict = strict
        self.max_pairs = max_pairs
        self.n_boot = n_boot
        self.csv: dict[str, pd.DataFrame] = {}
        self.metrics = A.point_metrics(run, n_boot=n_boot)
        self.ranked = A.rank_points(self.metrics, run.targets)
        self.best = int(self.ranked["point"].iloc[0]) if run.targets else run.points[0]

    def _keys(self, varying: bool = False) -> list[str]:
        """Key metrics present in the sweep, targeted ones first; with ``varying``, only
        those that change across points (a flat panel says nothing)."""
        present = [k for k in A.METRICS if k in self.metrics
                   and self.metrics[k].notna().any()]
        if varying:
            present = [k for k in present if self.metrics[k].nunique(dropna=True) > 1]
        targeted = [k for k in present if A.METRICS[k][1] in self.run.targets]
        return targeted + [k for k in present if k not in targeted]

    def sections(self) -> list[Section]:
        out = []
        for sid, title, build, intro in (
            ("sweep", "Sweep: points ranked", self.ranking,
             "Every sweep point with its key numbers. With [targets], points are ranked by "
             "their distance to the targets and the best one is highlighted."),
            ("sweep-params", "Sweep: metrics against each parameter", self.per_param,
             "Each key number against each swept parameter: the line and band pool all points "
             "with that value (95% interval); dots are single points."),
            ("sweep-pairs", "Sweep: pairs of parameters", self.pairs,
             "For each pair of swept parameters, the key numbers pooled over the other "
             "parameters."),
        ):
            try:
                blocks = build()
            except Exception as exc:
                if self.strict:
                    raise
                blocks = [Note(f"This section could not be built ({type(exc).__name__}: "
                               f"{exc}).", "warning")]
            out.append(Section(sid, title, intro, blocks))
        return out

    def ranking(self) -> list:
        r = self.ranked
        swept = self.run.swept
        targets = self.run.targets
        keys = self._keys()

        def fmt(k, v):
            if not _isnum(v):
                return "–"
            if _kind(k) == "share":
                return pct(v)
            if _kind(k) == "points":
                return f"{100 * v:.1f} pts"
            return num(v, 2 if abs(v) < 10 else 1)

        t = pd.DataFrame({"rank" if targets else "point":
                          [str(int(x)) for x in (r["rank"] if targets else r["point"])]})
        if targets:
            t["point"] = [str(int(x)) for x in r["point"]]
        for k in swept:
            t[k] = r[k].astype(str)
        for k in keys:
            t[A.METRICS[k][0]] = [fmt(k, v) for v in r[k]]
        if targets:
            t["distance"] = [num(x, 3) for x in r["distance"]]
        self.csv["sweep_points.csv"] = r
        blocks: list = []
        if targets:
            best = r.iloc[0]
            blocks.append(Note(
                "Best point: " + f"{int(best['point'])} (" + ", ".join(
                    f"{k} = {best[k]}" for k in swept) + "). Targets: " + ", ".join(
                    f"{k} = {v:g}" for k, v in targets.items()) + ". Distance = root of the "
                "summed squared relative misses; ceilings (max_*, unresolved_share) cost "
                "nothing when met."))
            blocks.append(self._ranking_figure(r))
        else:
            blocks.append(Note("No [targets] in the scenario: points are listed in order; the "
                               "nine sections below describe point 0.", "muted"))
        blocks.append(Table(t.head(60), "Sweep points" + (" (best 60 of "
                                                          f"{len(t)})" if len(t) > 60 else ""),
                            [0] if targets else [], "sweep_points.csv"))
        return blocks

    def _ranking_figure(self, r: pd.DataFrame) -> Figure:
        top = r.head(25)
        swept = self.run.swept
        labels = [f"{int(p)}: " + ", ".join(f"{k}={row[k]}" for k in swept)
                  for p, (_, row) in zip(top["point"], top.iterrows(), strict=True)]
        fig, axes = _figure("sweep_ranking", "Distance to the targets of the best "
                            f"{len(top)} points (0 = every target met); vermillion: the best "
                            "point.", height=0.26 * len(top) + 1.2)
        ax = axes[0, 0]
        y = np.arange(len(top))[::-1]
        colors = [PALETTE["vermillion"] if i == 0 else PALETTE["blue"] for i in range(len(top))]
        ax.barh(y, top["distance"], color=colors, height=0.7)
        ax.set_yticks(y, labels, fontsize=8)
        ax.set_xlabel("distance to targets (relative, unitless)")
        ax.grid(axis="y", visible=False)
        return _png(fig)

    def per_param(self) -> list:
        blocks = []
        keys = self._keys(varying=True)
        for name in self.run.swept:
            pooled = _pooled_metrics(self.run, [name], self.n_boot)
            self.csv[f"sweep_by_{name}.csv"] = pooled
            blocks.append(self._param_figure(name, pooled, keys))
        return blocks

    def _param_figure(self, name: str, pooled: pd.DataFrame, keys: list[str]) -> Figure:
        ncols = 3 if len(keys) > 4 else 2
        nrows = -(-len(keys) // ncols)
        fig, axes = _figure(f"sweep_{name}", f"Key numbers against {name}: blue = all points "
                            f"with that {name} pooled, with its 95% interval (band or bars); "
                            "grey dots = single points; dashed = target.", height=2.5 * nrows + 0.4,
                            ncols=ncols, nrows=nrows)
        per_point = self.metrics
        raw = per_point[name]
        categorical = not np.issubdtype(np.asarray(pd.unique(raw)).dtype, np.number)
        order = list(pooled[name])
        if categorical:
            pos = {v: i for i, v in enumerate(order)}
            x_pooled = np.array([pos[v] for v in order], float)
            x_points = raw.map(pos).to_numpy(float)
        else:
            x_pooled = pooled[name].to_numpy(float)
            x_points = raw.to_numpy(float)
        rng = np.random.default_rng(0)
        spread = (0.08 if categorical else 0.015 * (np.ptp(x_pooled) or 1))
        jitter = rng.uniform(-spread, spread, x_points.size)
        for ax, key in zip(axes.ravel(), keys, strict=False):
            _, target_name = A.METRICS[key]
            kind = _kind(key)
            y = pooled[key].to_numpy(float)
            ax.scatter(x_points + jitter, per_point[key].to_numpy(float), s=10,
                       color=PALETTE["grey"], alpha=0.6, lw=0, zorder=2)
            has_ci = f"{key}_low" in pooled
            if categorical:   # unordered values: intervals, no line between them
                err = None
                if has_ci:
                    err = np.nan_to_num(np.clip(np.vstack([
                        y - pooled[f"{key}_low"].to_numpy(float),
                        pooled[f"{key}_high"].to_numpy(float) - y]), 0, None))
                ax.errorbar(x_pooled, y, yerr=err, fmt="o", color=PALETTE["blue"], ms=5,
                            zorder=3)
                ax.set_xlim(-0.5, len(order) - 0.5)
            else:
                if has_ci:
                    ax.fill_between(x_pooled, pooled[f"{key}_low"].to_numpy(float),
                                    pooled[f"{key}_high"].to_numpy(float),
                                    color=PALETTE["blue"], alpha=0.22, lw=0, zorder=1)
                ax.plot(x_pooled, y, "-o", color=PALETTE["blue"], ms=4, zorder=3)
            target = self.run.targets.get(target_name) if target_name else None
            if target is not None:
                ax.axhline(target, color=PALETTE["vermillion"], ls="--", lw=1.1)
            ax.set_title(SHORT.get(key, key), loc="left", fontsize=9.5)
            ax.set_xlabel(name)
            ax.yaxis.set_major_formatter(_formatter(kind))
            if kind != "plain":
                ax.set_ylim(bottom=max(ax.get_ylim()[0], 0))
            if categorical:
                ax.set_xticks(x_pooled, [str(v) for v in order])
        for ax in axes.ravel()[len(keys):]:
            ax.set_visible(False)
        return _png(fig)

    def pairs(self) -> list:
        swept = self.run.swept
        pairs = [(a, b) for i, a in enumerate(swept) for b in swept[i + 1:]]
        if not pairs:
            return [Note("Only one parameter is swept: no pairs.", "muted")]
        blocks = []
        keys = self._keys(varying=True)[:4]
        for a, b in pairs[:self.max_pairs]:
            pooled = _pooled_metrics(self.run, [a, b], self.n_boot)
            self.csv[f"sweep_by_{a}_{b}.csv"] = pooled
            blocks.append(self._pair_figure(a, b, pooled, keys))
        if len(pairs) > self.max_pairs:
            blocks.append(Note(f"{len(pairs) - self.max_pairs} more pairs not drawn.", "muted"))
        return blocks

    def _pair_figure(self, a: str, b: str, pooled: pd.DataFrame, keys: list[str]) -> Figure:
        ncols = 2
        nrows = -(-len(keys) // ncols)
        xs = list(dict.fromkeys(sorted(pooled[b].tolist(), key=lambda v: (isinstance(v, str),
                                                                          v))))
        ys = list(dict.fromkeys(sorted(pooled[a].tolist(), key=lambda v: (isinstance(v, str),
                                                                          v))))
        cell_h = 0.32 * len(ys) + 1.3
        fig, axes = _figure(f"sweep_{a}_x_{b}", f"Key numbers for each {a} (rows) × {b} "
                            "(columns), pooled over the other parameters.",
                            height=cell_h * nrows + 0.3, ncols=ncols, nrows=nrows)
        for ax, key in zip(axes.ravel(), keys, strict=False):
            kind = _kind(key)
            mat = np.full((len(ys), len(xs)), np.nan)
            for _, r in pooled.iterrows():
                mat[ys.index(r[a]), xs.index(r[b])] = r[key]
            finite = mat[np.isfinite(mat)]
            lo, hi = (finite.min(), finite.max()) if finite.size else (0.0, 1.0)
            flat = not hi > lo
            norm = matplotlib.colors.Normalize(lo - 1 if flat else lo, hi + 1 if flat else hi)
            im = ax.imshow(mat, cmap=SEQUENTIAL, norm=norm, aspect="auto")
            _annotate_heat(ax, mat, (lambda v: f"{100 * v:.1f}") if kind != "plain" else
                           (lambda v: f"{v:.3g}"), norm=norm, cmap=SEQUENTIAL)
            ax.set_xticks(range(len(xs)), [str(v) for v in xs])
            ax.set_yticks(range(len(ys)), [str(v) for v in ys])
            ax.set_xlabel(b)
            ax.set_ylabel(a)
            ax.set_title(SHORT.get(key, key) + (" — the same everywhere" if flat else ""),
                         loc="left", fontsize=9.5)
            ax.grid(False)
            if not flat:
                cb = fig.colorbar(im, ax=ax, shrink=0.9)
                cb.ax.yaxis.set_major_formatter(_formatter(kind))
        for ax in axes.ravel()[len(keys):]:
            ax.set_visible(False)
        return _png(fig)


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------
def build_report(run: A.RunData, point: int | None = None, strict: bool = False):
    """The report's sections and the full tables behind them: ``(title, meta, sections,
    csv)``; :func:`write_report` writes them."""
    with matplotlib.rc_context(STYLE):
        sections: list[Section] = []
        csv: dict[str, pd.DataFrame] = {}
        if len(run.points) > 1:
            sweep = _SweepReport(run, strict=strict)
            sections += sweep.sections()
            csv.update(sweep.csv)
            point = sweep.best if point is None else point
        point = run.points[0] if point is None else int(point)
        pr = _PointReport(run, point, strict=strict)
        sections += pr.sections(number_from=1)
        csv.update(pr.csv)
    m = run.manifest
    name = m.get("scenario", {}).get("name", "run")
    kind = "sweep" if len(run.points) > 1 else "run"
    title = f"{name}: balance report"
    meta = (f"{kind} of {len(run.points)} point(s), {m.get('matches_per_point', '?')} matches "
            f"per point, seed {m.get('seed')}; finished {m.get('ended')}.")
    if kind == "sweep":
        meta += f" Sections 1–9 describe point {point}."
    return title, meta, sections, csv


def write_report(results_dir, *, point: int | None = None, strict: bool = False) -> Path:
    """Write ``report.html`` (self-contained), ``report.md`` with ``figures/*.png`` and
    ``tables/*.csv`` into a finished results folder; return the HTML path.

    ``point`` chooses the sweep point of sections 1-9 (default: the best by
    the targets, else point 0). ``strict`` re-raises a section's error
    instead of writing a note in its place (for tests).
    """
    t0 = time.perf_counter()
    folder = Path(results_dir)
    run = A.load_run(folder)
    title, meta, sections, csv = build_report(run, point=point, strict=strict)
    figures = folder / "figures"
    tables = folder / "tables"
    for sub in (figures, tables):
        sub.mkdir(exist_ok=True)
        for old in sub.glob("*.png" if sub is figures else "*.csv"):
            old.unlink()
    for s in sections:
        for b in s.blocks:
            if isinstance(b, Figure):
                (figures / f"{b.name}.png").write_bytes(b.png)
    for name, frame in csv.items():
        frame.to_csv(tables / name, index=False)
    meta += f" Report built in {time.perf_counter() - t0:.1f} s."
    html_path = folder / "report.html"
    _atomic_write(html_path, _render_html(title, meta, sections))
    _atomic_write(folder / "report.md", _render_md(title, meta, sections))
    return html_path


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
