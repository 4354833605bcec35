"""The balance report of New Order Poker: figures and tables of a finished run.

:func:`write_report` reads a results folder (see :mod:`nop_sim.store`),
computes the statistics of :mod:`nop_sim.games.new_order.analysis` and writes, with the
toolkit of :mod:`nop_sim.reporting`, in the same folder:

- ``report.html``: one self-contained file, figures embedded as base64 PNG,
  no external assets, no script;
- ``report.md``: the same text and tables, figures as ``figures/*.png``;
- ``tables/*.csv``: the full tables behind each section.

A run of one point gets the numbered sections of :data:`POINT_SECTIONS`
(headline, match length, seats, strategies, the Ranking Column, the Ledger,
hedging, Disruptors, chips). A sweep (more than one point) first gets
:data:`SWEEP_SECTIONS` (targets ranking, each metric against each swept
parameter, heat maps for pairs) and then the point sections for its best
point (by the targets, or point 0 without targets). Each section is one
small function of a context (:class:`_Point` or :class:`_Sweep`);
findings link to sections by id.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd

from nop_sim import reporting as R
from nop_sim.core.stats import ALPHA, CONFIDENCE, normal_quantile
from nop_sim.games.agent_files import PLAYS_ALIKE, plays_alike, search_gap
from nop_sim.games.new_order import analysis as A
from nop_sim.games.new_order.agents import training_text
from nop_sim.games.registry import seat_name
from nop_sim.reporting import (
    PALETTE,
    STYLE,
    Bullets,
    Csv,
    Note,
    SectionSpec,
    Table,
    count,
    interval_err,
    isnum,
    num,
    num_ci,
    pct,
    pct_ci,
    pval,
)
from nop_sim.reporting import forked as renderer
from nop_sim.store import STRONG_FOLDER, UNSETTLED, load_strong_drafts

__all__ = ["PALETTE", "POINT_SECTIONS", "STYLE", "SWEEP_SECTIONS", "build_report",
           "write_report"]

SHORT = {"median_hands": "median hands per match", "unresolved_share": "unresolved (%)",
         "exploitability": "exploitability (pts)",
         **{f"value_{m}": f"value of {m} (pts)" for m in A.MECHANICS},
         "max_seat_advantage": "largest seat advantage (pts)",
         "max_preset_advantage": "largest preset advantage (pts)",
         "manipulations_per_hand": "manipulations per hand",
         "hedges_per_hand": "hedges per hand", "bluffs_per_hand": "bluffs per hand",
         "max_disruptor_effect": "largest Disruptor effect (pts)",
         "fee_share": "fees / chips moved (%)",
         "hedge_hit_rate": "hedge payouts per placement (%)",
         "final_dart": "final dart (chips)"}


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------
def _kind(key: str) -> str:
    """How a key metric is shown: 'share' (percent), 'points' (win-rate points), 'plain'."""
    if "advantage" in key or "disruptor_effect" in key:
        return "points"
    if key.endswith("share") or key.endswith("rate"):
        return "share"
    return "plain"


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


def _cis(frame: pd.DataFrame, value: str, low: str, high: str, fmt=pct_ci, *args) -> list:
    """``fmt(value, low, high, *args)`` per row of three columns."""
    return [fmt(*x, *args) for x in zip(frame[value], frame[low], frame[high], strict=True)]


def _pts(values) -> list[str]:
    return [f"{100 * x:+.1f} pts" for x in values]


HOLM = "Holm-adjusted 95% interval"
"""What an interval printed beside a Holm p is: the test's interval at the level Holm's
procedure holds the row to (:func:`nop_sim.core.stats.holm_intervals`), which leaves the tested
value out exactly when Holm p < 0.05. A row's own 95% interval there could leave it out
while Holm p said that is what chance gives among that many rows; the tables' CSV files
keep that pair too (``ci_low``, ``ci_high``, ``p_value``)."""


def _lift_ci(values, lows, highs) -> list[str]:
    """Win-rate differences in points with an interval: "+13.4 (+6.7 to +20.0)"."""
    return [f"{100 * x:+.1f} ({100 * lo:+.1f} to {100 * hi:+.1f})"
            if isnum(x) and isnum(lo) and isnum(hi) else "–"
            for x, lo, hi in zip(values, lows, highs, strict=True)]


# ---------------------------------------------------------------------------
# The point sections
# ---------------------------------------------------------------------------
@dataclass
class _Point:
    """What the point sections share: the run cut to one point, and computed tables."""

    full: A.RunData
    point: int
    run: A.RunData = field(init=False)
    cache: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        self.run = self.full.subset(self.point) if len(self.full.points) > 1 else self.full

    def get(self, key: str, fn: Callable) -> pd.DataFrame:
        """``fn(run)``, computed once; a :class:`~nop_sim.games.new_order.analysis.MissingData` is kept
        and raised again at each ask."""
        if key not in self.cache:
            try:
                self.cache[key] = fn(self.run)
            except A.MissingData as exc:
                self.cache[key] = exc
        value = self.cache[key]
        if isinstance(value, A.MissingData):
            raise value
        return value

    def tables(self, *pairs: tuple[str, Callable]) -> dict[str, pd.DataFrame | None]:
        """Each ``(key, fn)`` computed once; None where the data is missing."""
        out = {}
        for key, fn in pairs:
            try:
                out[key] = self.get(key, fn)
            except A.MissingData:
                out[key] = None
        return out


# -- headline ---------------------------------------------------------------
def _headline(p: _Point) -> list:
    findings = A.findings(p.run, cache=p.tables(
        ("seat", A.seat_fairness), ("preset", A.preset_results),
        ("disruptor", A.disruptor_stats), ("length", A.match_length),
        ("winning", A.winning_categories), ("ledger", A.ledger_summary)))
    pm_cache = {k: v for k, v in p.tables(
        ("length", A.match_length), ("seat", A.seat_fairness), ("preset", A.preset_results),
        ("ledger", A.ledger_summary), ("hedging", A.hedging_summary)).items() if v is not None}
    metrics = A.point_metrics(p.run, cache=pm_cache).iloc[0]
    blocks: list = [_scorecard(p, metrics), *_finding_blocks(findings),
                    Table(_run_facts(p), "The run")]
    changed = A.settings_changed(p.run, p.point)
    if len(changed):
        blocks.append(Table(changed, "Settings that differ from the SPEC defaults"))
    else:
        blocks.append(Note("Every game setting is at its SPEC default."))
    blocks.append(Csv("findings.csv", findings))
    return blocks


def _finding_blocks(findings: pd.DataFrame) -> list:
    """Warnings as a list linked to their sections, notes as muted lines."""
    titles = {s.id: s.title for s in POINT_SECTIONS}
    warn = findings[findings["severity"] == "warning"]
    if len(warn):
        blocks = [Note(f"{len(warn)} finding(s) need a look:", "warning"),
                  Bullets([f"{titles.get(r.section, r.section)}: {r.finding}"
                           for r in warn.itertuples()], "warning",
                          [r.section if r.section in titles else None
                           for r in warn.itertuples()])]
    else:
        blocks = [Note("No automatic finding: seats and presets within their fairness "
                       "intervals, no outlier Disruptor, unresolved matches under 1%, every "
                       "reachable category wins, the ledger's cap is reached in some matches "
                       "but not all.")]
    for r in findings[findings["severity"] == "note"].itertuples():
        blocks.append(Note(f"Note ({titles.get(r.section, r.section)}): {r.finding}.", "muted"))
    return blocks


def _run_facts(p: _Point) -> pd.DataFrame:
    run, m = p.run, p.run.manifest
    length = p.get("length", A.match_length).iloc[0]
    params = run.params(p.point)
    return pd.DataFrame([
        ("scenario", f"{m['scenario'].get('name', '?')} ({m['scenario'].get('source', '')})"),
        ("sweep point", f"{p.point} of {len(p.full.points)}: " + ", ".join(
            f"{k} = {v}" for k, v in params.items()) if params else "single run"),
        ("matches", count(length["matches"])),
        ("hands", count(length["hands"])),
        ("seed", str(m.get("seed"))),
        ("players", str(run.players(p.point))),
        ("seats", ", ".join((run._points_by_id.get(p.point) or {}).get("seats", [])) +
         (" (rotated)" if run.rotated else "")),
        ("started / ended", f"{m.get('started')} / {m.get('ended')}"),
        ("nop-sim, git", f"{m.get('versions', {}).get('nop_sim', '?')}, "
                         f"{(m.get('git_revision') or 'no git')[:10]}"),
    ], columns=["what", "value"])


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


# -- match length -----------------------------------------------------------
def _match_length(p: _Point) -> list:
    ml = p.get("length", A.match_length)
    r = ml.iloc[0]
    surv = A.survival(p.run)
    hands = p.run.table("matches", "hands")["hands"].to_numpy()
    fig, axes = R.figure(3.4, ncols=2)
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
    R.percent_axis(ax.yaxis, 0)
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
    return [R.png(fig, "match_length", "Left: hands per match (bars) with the median and its "
                  "95% bootstrap interval. Right: share of matches still running after each "
                  "hand, with a 95% Wilson band."),
            Table(t, "Match length", csv="match_length.csv", full=ml)]


# -- seats ------------------------------------------------------------------
def _seats(p: _Point) -> list:
    s = p.get("seat", A.seat_fairness)
    chi = A.seat_chi_square(p.run)
    c = chi.iloc[0] if len(chi) else None
    title = (f"chi-square = {c['chi2']:.1f}, {int(c['dof'])} df, p = {pval(c['p_value'])}"
             if c is not None else "")
    fig, axes = R.figure(max(2.2, 0.42 * len(s) + 1.2))
    ax = axes[0, 0]
    R.hbar_ci(ax, [f"seat {int(x)}" for x in s["seat"]], s["win_rate"], s["holm_low"],
              s["holm_high"], ref=float(s["fair"].iloc[0]), ref_label="fair share",
              highlight=s["outside"].to_numpy())
    ax.set_xlabel("matches won (%)")
    ax.set_title(title, loc="left", fontweight="normal", fontsize=10)
    R.hbar_legend(ax)
    t = pd.DataFrame({
        "seat": s["seat"].astype(int).astype(str),
        "wins": [count(x) for x in s["wins"]], "matches": [count(x) for x in s["seats"]],
        f"win rate ({HOLM})": _cis(s, "win_rate", "holm_low", "holm_high"),
        "fair": [pct(x) for x in s["fair"]],
        "advantage": _pts(s["advantage"]),
        "Holm p": [pval(x) for x in s["p_holm"]],
        "unfair": ["yes" if x else "" for x in s["outside"]],
    })
    blocks = [R.png(fig, "seats", f"Win rate per seat (dot) with its {HOLM} (Wilson, at the "
                    "level Holm's correction across the seats holds it to: it leaves the fair "
                    "share out exactly when Holm p < 0.05); dashed: the fair 1/players. "
                    "Vermillion: outside fairness after Holm correction."),
              Table(t, "Wins per seat", csv="seats.csv", full=s)]
    if c is not None:
        verdict = ("the seats differ" if c["p_value"] < A.ALPHA else
                   "no evidence that the seats differ")
        blocks.append(Note(f"Chi-square test of equal wins per seat: {title} — {verdict} "
                           f"at the 5% level."))
    return blocks


# -- strategies -------------------------------------------------------------
def _strategies(p: _Point) -> list:
    pr = p.get("preset", A.preset_results)
    has_net = "net_chips" in pr.columns
    fig, axes = R.figure(max(2.4, 0.42 * len(pr) + 1.3), ncols=2 if has_net else 1)
    labels = list(pr["preset"].astype(str))
    R.hbar_ci(axes[0, 0], labels, pr["win_rate"], pr["holm_low"], pr["holm_high"],
              ref=float(pr["fair"].iloc[0]), ref_label="fair share",
              highlight=pr["outside"].to_numpy())
    axes[0, 0].set_xlabel("matches won (%)")
    if has_net:
        R.hbar_ci(axes[0, 1], labels, pr["net_chips"], pr["net_chips_low"],
                  pr["net_chips_high"], ref=0.0, percent=False)
        axes[0, 1].set_xlabel("net chips per seat and match (chips)")
        axes[0, 1].set_yticklabels([])
    t = pd.DataFrame({
        "preset": labels, "seats": [count(x) for x in pr["seats"]],
        f"win rate ({HOLM})": _cis(pr, "win_rate", "holm_low", "holm_high"),
        "advantage": _pts(pr["advantage"]),
        "Holm p": [pval(x) for x in pr["p_holm"]],
        "mean place": [num(x, 2) for x in pr["mean_place"]],
    })
    if has_net:
        t["net chips (95% CI)"] = _cis(pr, "net_chips", "net_chips_low", "net_chips_high",
                                       num_ci, 1)
    blocks = [R.png(fig, "presets", f"Left: win rate per preset ({HOLM}, Wilson: it leaves "
                    "the fair share out exactly when Holm p < 0.05; dashed: fair 1/players; "
                    "vermillion: unfair after Holm). Right: mean chips won or lost per seat "
                    "and match (95% t interval)."),
              Table(t, "Results per preset", csv="presets.csv", full=pr),
              *_mixture_rows(p)]
    sk = A.skill_matrix(p.run)
    if len(sk) and sk["preset"].nunique() > 1:
        blocks += _skill(sk)
        if not p.run.rotated:
            blocks.append(Note("Presets do not rotate across seats in this scenario, so a "
                               "preset's results include its seats' advantage.", "muted"))
    else:
        blocks.append(Note("No head-to-head matrix: every seat plays the same preset.",
                           "muted"))
    return _trained_agents(p) + blocks


def _mixture_rows(p: _Point) -> list:
    """The rows of each mixture seated: weight, seats played, share and win rate."""
    mx = A.mixture_rows(p.run)
    if not len(mx):
        return []
    t = pd.DataFrame({
        "agent": mx["preset"].astype(str), "row": mx["row"].astype(str),
        "weight": [pct(x) for x in mx["weight"]],
        "seats played": [count(x) for x in mx["seats"]],
        "share of its seats (95% CI)": _cis(mx, "share", "share_low", "share_high"),
        "win rate (95% CI)": _cis(mx, "win_rate", "ci_low", "ci_high"),
        "fair": [pct(x) for x in mx["fair"]],
    })
    off = mx[(mx["weight"] < mx["share_low"]) | (mx["weight"] > mx["share_high"])]
    drawn = ("Every row's share of its seats holds its weight (95% Wilson interval)."
             if off.empty else
             f"Rows whose share of seats misses their weight: "
             f"{', '.join(f'{a} row {r}' for a, r in zip(off['preset'], off['row'], strict=True))}"
             f" (1 in 20 rows may, by chance).")
    return [Table(t, "Mixture rows", csv="mixture_rows.csv", full=mx),
            Note("A seat given a mixture agent file plays one of its rows per match, drawn "
                 "with the file's weights from the run's seed and the match number (the "
                 "seats table's mix_row). " + drawn, "muted")]


def _trained_agents(p: _Point) -> list:
    """A note per agent file seated (``@path`` in ``[seats]``): where it sits, what it
    was trained for, and how exploitable it was at training."""
    m = p.full.manifest
    labels = next((q.get("seats", []) for q in m.get("points", [])
                   if int(q["point"]) == p.point), [])
    notes = []
    for f in m.get("agent_files") or []:
        if m.get("rotation"):
            who = "In rotation, every seat in turn plays"
        else:
            seats = [i for i, label in enumerate(labels) if label == f["label"]]
            if not seats:  # another sweep point's agent (nop-sim sweep --train)
                continue
            who = ("Every seat plays" if len(seats) == len(labels) else
                   f"{seat_name(seats[0])} plays" if len(seats) == 1 else
                   f"Seats {', '.join(map(str, seats))} play")
        rows = f.get("weights") or [1.0]
        mixture = (f", a mixture of {len(rows)} rows drawn per match (weights "
                   f"{', '.join(f'{w:.3g}' for w in rows)}; see Mixture rows)"
                   if len(rows) > 1 else "")
        notes.append(Note(f"{who} a trained agent, **{f['label']}** (file {f['file']}"
                          f"{mixture}), "
                          f"{training_text(f.get('training') or {}, f.get('overrides'))}."))
    return notes


def _skill(sk: pd.DataFrame) -> list:
    names = sorted(set(sk["preset"].astype(str)) | set(sk["opponent"].astype(str)))
    n = len(names)
    mat = np.full((n, n), np.nan)
    for r in sk.itertuples():
        mat[names.index(str(r.preset)), names.index(str(r.opponent))] = r.rate
    fig, axes = R.figure(1.4 + 0.7 * n, width=min(R.WIDTH, 2.2 + 0.95 * n))
    ax = axes[0, 0]
    dev = np.nanmax(np.abs(mat - 0.5)) if np.isfinite(mat).any() else 0.5
    dev = max(dev, 0.05)
    norm = matplotlib.colors.Normalize(0.5 - dev, 0.5 + dev)
    im = ax.imshow(mat, cmap=R.DIVERGING, norm=norm)
    R.annotate_heat(ax, mat, lambda v: f"{100 * v:.0f}%", norm=norm, cmap=R.DIVERGING)
    for i in range(n):
        ax.text(i, i, "—", ha="center", va="center", color=PALETTE["grey"])
    ax.set_xticks(range(n), names, rotation=30, ha="right")
    ax.set_yticks(range(n), names)
    ax.set_xlabel("opponent")
    ax.set_ylabel("preset")
    ax.grid(False)
    cb = fig.colorbar(im, ax=ax, shrink=0.85)
    R.percent_axis(cb.ax.yaxis, 0)
    cb.set_label("finished above (%)")
    first = sk[sk["preset"].astype(str) < sk["opponent"].astype(str)]
    t = pd.DataFrame({
        "preset": first["preset"].astype(str), "opponent": first["opponent"].astype(str),
        "meetings": [count(x) for x in first["meetings"]],
        f"preset ahead ({HOLM})": _cis(first, "rate", "holm_low", "holm_high"),
        "Holm p": [pval(x) for x in first["p_holm"]],
    })
    return [R.png(fig, "skill_matrix", "Head to head: share of matches in which the row "
                  "preset finished above the column preset. 50% = even; purple: the row does "
                  "better, orange: worse."),
            Table(t, "Head to head (each pair once)", csv="skill_matrix.csv", full=sk)]


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


# -- the Ledger -------------------------------------------------------------
def _ledger(p: _Point) -> list:
    led = p.get("ledger", A.ledger_summary)
    r = led.iloc[0]
    try:
        dart, missing = A.dart_over_hands(p.run), []
    except A.MissingData as exc:
        dart, missing = None, [Note(f"Dart over hands not available: {exc}.", "muted")]
    fig, axes = R.figure(4.2, ncols=2)
    _dart_panel(axes[0, 0], dart, r)
    promos = A.promotions(p.run)
    R.hbar_ci(axes[0, 1], list(A.CATEGORY_LABELS), promos["share"], promos["share_low"],
              promos["share_high"], color=PALETTE["green"])
    axes[0, 1].set_xlabel("promotions (%)")
    t = pd.DataFrame([{
        "hands": count(r["hands"]), "manipulations": count(r.get("manipulations")),
        "per hand (95% CI)": num_ci(r.get("manipulations_per_hand"),
                                    r.get("manipulations_low"), r.get("manipulations_high"), 3),
        "fees per hand (95% CI)": num_ci(r.get("fees_per_hand"), r.get("fees_low"),
                                         r.get("fees_high"), 2),
        "fees / chips moved (95% CI)": pct_ci(r.get("fee_share"), r.get("fee_share_low"),
                                              r.get("fee_share_high"), 2),
        "fees to bank": count(r.get("fees_to_bank")),
        "mean final dart (95% CI)": num_ci(r.get("final_dart"), r.get("final_dart_low"),
                                           r.get("final_dart_high"), 1),
        "matches ending at cap (95% CI)": pct_ci(r.get("at_cap_share"), r.get("at_cap_low"),
                                                 r.get("at_cap_high")),
    }])
    return [R.png(fig, "ledger", "Left: the dart (fee of the next manipulation) at the start "
                  "of each hand: mean (line), its 95% interval (dark band) and mean ± one "
                  "standard deviation between matches (light band); dashed: the cap. Right: "
                  "share of all promotions that moved each category up (95% Wilson)."),
            *missing,
            Table(t, "The Ledger", csv="ledger.csv", full=led),
            Note("Chips moved = chips awarded from pots + hedge payouts + fees sent to the "
                 "bank (fees paid to the pot are inside the pots). Per-hand intervals treat "
                 "the match as the unit.", "muted"),
            *_ledger_by_preset(p)]


def _dart_panel(ax, dart: pd.DataFrame | None, r: pd.Series) -> None:
    top = 1.0
    if dart is not None and len(dart):
        d = dart[dart["hand"] <= _hand_limit(dart["matches"].to_numpy())]
        ax.fill_between(d["hand"], d["band_low"], d["band_high"], color=PALETTE["sky"],
                        alpha=0.3, lw=0, label="± 1 sd")
        ax.fill_between(d["hand"], d["ci_low"], d["ci_high"], color=PALETTE["blue"],
                        alpha=0.45, lw=0, label="95% CI of mean")
        ax.plot(d["hand"], d["mean"], color=PALETTE["blue"], label="mean dart")
        top = float(np.nanmax(d["band_high"]))
    if isnum(r.get("dart_cap", np.nan)):
        ax.axhline(r["dart_cap"], color=PALETTE["vermillion"], ls="--", lw=1.2,
                   label=f"cap {int(r['dart_cap'])}")
        top = max(top, float(r["dart_cap"]))
    ax.set_xlabel("hand of the match")
    ax.set_ylabel("dart (chips per promotion)")
    ax.set_ylim(0, top * 1.35)
    ax.legend(loc="upper right", ncol=2, fontsize=8)


def _ledger_by_preset(p: _Point) -> list:
    try:
        bp = A.ledger_by_preset(p.run)
    except A.MissingData:
        return []
    tp = pd.DataFrame({
        "preset": bp["preset"].astype(str),
        "manipulations per match (95% CI)": _cis(bp, "manipulations", "manipulations_low",
                                                 "manipulations_high", num_ci, 2)})
    if "fees" in bp:
        tp["fees per match (95% CI)"] = _cis(bp, "fees", "fees_low", "fees_high", num_ci, 1)
    return [Table(tp, "Manipulation by preset (per seat and match)",
                  csv="ledger_by_preset.csv", full=bp)]


# -- hedging ----------------------------------------------------------------
HEDGE_VERDICT = {
    "yes": "Hedging pays: the whole interval of net chips per placement is above zero.",
    "no": "Hedging loses chips: the whole interval of net chips per placement is below zero.",
    "unclear": "Hedging roughly breaks even: the interval of net chips per placement "
               "includes zero."}


def _hedging(p: _Point) -> list:
    hs = p.get("hedging", A.hedging_summary)
    r = hs.iloc[0]
    if not r["placements"]:
        return [Note("No hedging token was placed in this run.", "muted")]
    hc = A.hedging_by_category(p.run)
    hc = hc[hc["placements"] > 0]
    t = pd.DataFrame([{
        "placements": count(r["placements"]),
        "per player-hand (95% CI)": num_ci(r.get("placement_rate"), r.get("placement_low"),
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
        "hit rate (95% CI)": _cis(hc, "hit_rate", "hit_rate_low", "hit_rate_high"),
        "net chips (est.)": [num(x, 0) for x in hc["net_chips"]],
        "net per placement (95% CI)": _cis(hc, "net_per_placement", "net_low", "net_high",
                                           num_ci, 2),
    })
    return [_hedging_figure(r, hc), Note(HEDGE_VERDICT.get(r["worth_it"], "")),
            Table(t, "Hedging overall", csv="hedging.csv", full=hs),
            Table(tc, "Hedging per category", csv="hedging_by_category.csv", full=hc),
            *_hedging_by_preset(p),
            Note("A placement is a token placed or moved (each costs hedge_cost). "
                 "Per-category chips are estimated from the run's actual payout per hit and "
                 "cost per placement; the overall and per-preset chips are exact.", "muted")]


FEW_PLACEMENTS = 30
"""A category with fewer hedging placements is drawn hollow and left out of the axis range:
one placement (hit rate 0 or 100%, a Wilson interval half the axis wide) squeezed the rest."""


def _hedging_figure(r: pd.Series, hc: pd.DataFrame) -> R.Figure:
    per_hit = r["paid"] / r["hits"] if r["hits"] else np.nan
    per_cost = r["cost"] / r["placements"]
    breakeven = per_cost / per_hit if isnum(per_hit) and per_hit else np.nan
    fig, axes = R.figure(max(3.0, 0.36 * len(hc) + 1.4), ncols=2)
    labels = list(hc["label"])
    few = (hc["placements"] < FEW_PLACEMENTS).to_numpy()
    few_text = f"fewer than {FEW_PLACEMENTS} placements"
    ax = axes[0, 0]
    R.hbar_ci(ax, labels, hc["hit_rate"], hc["hit_rate_low"], hc["hit_rate_high"],
              color=PALETTE["purple"], ref=breakeven, ref_label="break-even", few=few,
              few_label=few_text)
    ax.set_xlabel("hit rate (%)")
    R.hbar_legend(ax)
    ax = axes[0, 1]
    R.hbar_ci(ax, labels, hc["net_per_placement"], hc["net_low"], hc["net_high"],
              color=PALETTE["purple"], ref=0.0, percent=False,
              highlight=(hc["net_high"] < 0).to_numpy(), few=few)
    ax.set_yticklabels([])
    ax.set_xlabel("net chips per placement (chips)")
    caption = ("Per category the token lay on. Left: hit rate (payouts per placement, 95% "
               "interval); dashed: break-even = cost per placement / payout per hit. Right: "
               "net chips per placement (payout per hit × hit rate − cost; 95% interval); "
               "right of zero the token earns chips.")
    if few.any():
        caption += (f" Hollow grey: {few_text}, too few to read; they are left out of the "
                    "axis range and cut at its edge (their numbers are in the table).")
    return R.png(fig, "hedging", caption)


def _hedging_by_preset(p: _Point) -> list:
    try:
        hp = A.hedging_by_preset(p.run)
    except A.MissingData:
        return []
    tp = pd.DataFrame({
        "preset": hp["preset"].astype(str),
        "placements": [count(x) for x in hp["placements"]],
        "hit rate (95% CI)": _cis(hp, "hit_rate", "hit_rate_low", "hit_rate_high"),
        "net hedge chips per match (95% CI)": _cis(hp, "net_chips", "net_chips_low",
                                                   "net_chips_high", num_ci, 1),
    })
    return [Table(tp, "Hedging by preset", csv="hedging_by_preset.csv", full=hp)]


# -- Disruptors -------------------------------------------------------------
def _disruptors(p: _Point) -> list:
    d = p.get("disruptor", A.disruptor_stats)
    if d.empty:
        return [Note("No Disruptor card was drafted in this run (the mix is empty, or no "
                     "showdown drafted).", "muted")]
    d = d.sort_values("pick_rate" if "pick_rate" in d else "drafters",
                      ascending=False).reset_index(drop=True)
    return [_disruptor_picks(d), _disruptor_effects(d),
            Table(_disruptor_table(d), "Disruptor cards (sorted by pick rate)",
                  list(np.nonzero(d["outlier"].to_numpy())[0]), "disruptors.csv", d),
            Note("Reading the table: drafters' vs others' win rate is the raw comparison the "
                 "rules invite (the raw lift, drafters minus others, with Newcombe's interval "
                 "and the test it inverts, Holm-corrected across cards); it is not causal. "
                 "The adjusted lift compares drafters with seats that drafted as many other "
                 "cards (Mantel-Haenszel, a Wald interval and its test) and is the basis for "
                 f"flagging outliers. Each lift's interval is the {HOLM}: at the level "
                 "Holm's correction holds the card to, so it leaves 0 out exactly when the "
                 "Holm p beside it is below 0.05 (disruptors.csv also keeps each card's "
                 "own 95% intervals and p-values). For a controlled comparison run a sweep "
                 "over the mix (scenarios/disruptor_mixes.toml).", "muted")]


def _disruptor_height(d: pd.DataFrame) -> float:
    return max(3.2, 0.27 * len(d) + 1.3)


def _disruptor_picks(d: pd.DataFrame) -> R.Figure:
    cards = list(d["card"].astype(str))
    fig, axes = R.figure(_disruptor_height(d), ncols=2)
    ax = axes[0, 0]
    if "pick_rate" in d:
        R.hbar_ci(ax, cards, d["pick_rate"], d["pick_rate_low"], d["pick_rate_high"],
                  color=PALETTE["blue"], offset=0.15, label="picked when revealed")
    if "first_share" in d:
        R.hbar_ci(ax, cards, d["first_share"], d["first_share_low"], d["first_share_high"],
                  color=PALETTE["orange"], marker="s", offset=-0.15,
                  label="taken by the best hand")
    ax.set_xlabel("share (%)")
    ax.set_xlim(-0.02, 1.02)
    R.hbar_legend(ax, fontsize=8)
    ax = axes[0, 1]
    ax.axvspan(-0.05, 0.05, color=PALETTE["grey"], alpha=0.15, lw=0)
    R.hbar_ci(ax, cards, d["adjusted_lift"], d["adjusted_holm_low"], d["adjusted_holm_high"],
              color=PALETTE["blue"], ref=0.0, highlight=d["outlier"].to_numpy())
    ax.set_yticklabels([])
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(
        lambda v, _: f"{100 * v:+.0f}"))
    ax.set_xlabel("win-rate difference (percentage points)")
    return R.png(fig, "disruptor_picks", "Left: pick rate (picks / times revealed, circles) "
                 "and share of picks made by the best hand (squares), 95% Wilson. Right: "
                 "win-rate difference of seats that drafted the card vs seats that drafted as "
                 f"many other cards (Mantel-Haenszel, {HOLM}: it leaves 0 out exactly when "
                 "Holm p < 0.05); vermillion: outlier (Holm p < 0.05 and at least 5 points); "
                 "grey band: ±5 points.")


def _disruptor_effects(d: pd.DataFrame) -> R.Figure:
    cards = list(d["card"].astype(str))
    fig, axes = R.figure(_disruptor_height(d), ncols=2)
    ax = axes[0, 0]
    R.hbar_ci(ax, cards, d["drafter_win_rate"], d["drafter_win_rate_low"],
              d["drafter_win_rate_high"], color=PALETTE["blue"], offset=0.15,
              label="drafted it")
    R.hbar_ci(ax, cards, d["other_win_rate"], d["other_win_rate_low"],
              d["other_win_rate_high"], color=PALETTE["orange"], marker="s", offset=-0.15,
              label="did not")
    ax.set_xlabel("matches won (%)")
    R.hbar_legend(ax, fontsize=8)
    ax = axes[0, 1]
    R.hbar_ci(ax, cards, d["length_effect"], d["length_low"], d["length_high"],
              color=PALETTE["green"], ref=0.0, percent=False)
    ax.set_yticklabels([])
    ax.set_xlabel("effect on match length (hands)")
    return R.png(fig, "disruptor_effects", "Left: win rate of seats that drafted the card at "
                 "least once (blue) vs seats that did not (orange), 95% Wilson — drafting "
                 "needs a won showdown, so drafters win more whatever the card does. Right: "
                 "hands per match with the card drafted minus without, at equal cards drafted "
                 "(95% interval).")


def _disruptor_table(d: pd.DataFrame) -> pd.DataFrame:
    def col(name):   # counters the engine may not record yet
        return d[name] if name in d else pd.Series(np.nan, d.index)

    return pd.DataFrame({
        "card": list(d["card"].astype(str)),
        "revealed": [count(x) for x in col("revealed")],
        "pick rate": [pct_ci(*x) for x in zip(col("pick_rate"), col("pick_rate_low"),
                                              col("pick_rate_high"), strict=True)],
        "by best hand": [pct(x) for x in col("first_share")],
        "drafters / others win": [f"{pct(a)} / {pct(b)}" for a, b in
                                  zip(d["drafter_win_rate"], d["other_win_rate"], strict=True)],
        f"raw lift, pts ({HOLM})": _lift_ci(d["lift"], d["lift_holm_low"],
                                            d["lift_holm_high"]),
        "Holm p": [pval(x) for x in d["p_holm"]],
        f"adjusted lift, pts ({HOLM})": _lift_ci(d["adjusted_lift"], d["adjusted_holm_low"],
                                                 d["adjusted_holm_high"]),
        "Holm p (adjusted)": [pval(x) for x in d["p_adjusted_holm"]],
        "outlier": ["yes" if x else "" for x in d["outlier"]],
        "length effect (hands)": _cis(d, "length_effect", "length_low", "length_high",
                                      num_ci, 1),
    })


# -- chips ------------------------------------------------------------------
def _chips(p: _Point) -> list:
    blocks = [_chips_figure(p)]
    et = A.elimination_timing(p.run)
    if len(et):
        t = pd.DataFrame({
            "place": et["place"].astype(int).astype(str),
            "players": [count(x) for x in et["n"]],
            "median hand": [num(x, 1) for x in et["median"]],
            "mean hand (95% CI)": _cis(et, "mean", "mean_low", "mean_high", num_ci, 1),
            "10th–90th percentile": [f"{a:g}–{b:g}" for a, b in zip(et["p10"], et["p90"],
                                                                        strict=True)],
        })
        blocks.append(Table(t, "Elimination timing by finishing place", csv="elimination.csv",
                            full=et))
    return blocks + _stack_inequality(p)


def _chips_figure(p: _Point) -> R.Figure:
    try:
        alive = A.alive_over_hands(p.run)
    except A.MissingData:
        alive = None
    fig, axes = R.figure(3.6, ncols=2)
    ax = axes[0, 0]
    if alive is not None and len(alive):
        a = alive[alive["hand"] <= _hand_limit(alive["matches"].to_numpy())]
        ax.plot(a["hand"], a["mean_alive"], color=PALETTE["blue"])
        ax.set_ylim(0.9, p.run.players(p.point) + 0.2)
    ax.set_xlabel("hand of the match")
    ax.set_ylabel("players still in")
    ax = axes[0, 1]
    s = p.run.table("seats", "place", "eliminated_hand")
    e = s[s["eliminated_hand"] > 0]
    for i, (place, g) in enumerate(e.groupby("place", sort=True)):
        x = np.sort(g["eliminated_hand"].to_numpy())
        ax.step(x, np.arange(1, x.size + 1) / x.size, where="post",
                color=R.CYCLE[i % len(R.CYCLE)], label=f"place {int(place)}")
    ax.set_xlim(0, np.percentile(e["eliminated_hand"], 99) if len(e) else 1)
    ax.set_ylim(0, 1.02)
    R.percent_axis(ax.yaxis, 0)
    ax.set_xlabel("hand of elimination")
    ax.set_ylabel("eliminated by then")
    ax.legend(loc="lower right")
    return R.png(fig, "chips", "Left: mean players still in at the start of each hand (over "
                 "the matches still running). Right: share of players of each finishing place "
                 "already eliminated by each hand.")


def _stack_inequality(p: _Point) -> list:
    try:
        gi = A.stack_inequality(p.run)
    except A.MissingData:
        return []
    tg = pd.DataFrame({
        "matches": gi["matches"], "n": [count(x) for x in gi["n"]],
        "Gini of final stacks (95% CI)": _cis(gi, "gini", "ci_low", "ci_high", num_ci, 3),
    })
    # The reference is one number per player count, not a column: as a column it read
    # 0.750 on every row, like a share of matches.
    ref = " or ".join(num(x, 3) for x in gi["gini_one_holds_all"].unique())
    return [Table(tg, f"Stack inequality at the end of a match (reference: Gini = {ref} if "
                  "one player holds every chip)", csv="stack_inequality.csv", full=gi),
            Note("What the Gini measures here: the engine records stacks only at the end of a "
                 "match, where a finished match has one player holding everything (Gini = "
                 "(players − 1)/players). It is informative for unresolved matches and when "
                 "the bank adds or removes chips; stack inequality during a match is not "
                 "recorded, so the players-still-in curve and elimination timing show how "
                 "fast the table thins out instead.", "muted")]


POINT_SECTIONS = [
    SectionSpec("headline", "Headline",
                "What was run, what differs from the SPEC defaults, and what looks broken. "
                "Findings are flagged automatically; each links to its section below.",
                _headline),
    SectionSpec("length", "Match length",
                "How many hands a match lasts. Unresolved matches hit max_hands and were "
                "stopped; their chip leader is counted as the winner.", _match_length),
    SectionSpec("seats", "Seat fairness",
                "Does sitting in a given seat win more than 1/players? The chi-square test asks "
                "whether the seats differ at all; each seat's win rate is tested against "
                "1/players (the score test its Wilson interval inverts), Holm-corrected across "
                f"the seats, and shown with its {HOLM}, which leaves 1/players out exactly "
                "when the seat is flagged.", _seats),
    SectionSpec("strategies", "Strategies",
                "Win rate and chips per agent preset. With presets rotated across seats, seat "
                "and style are not confounded.", _strategies),
    SectionSpec("column", "The Ranking Column",
                "Where each category ends up and which categories win, against a column "
                "nobody moved.", _column),
    SectionSpec("ledger", "The Ledger",
                "Manipulation: how often players pay to promote a category, what the dart "
                "does over a match, and how much of the money is fees.", _ledger),
    SectionSpec("hedging", "Hedging",
                "Hedging tokens: how often players place them, how often they pay, and "
                "whether they pay for themselves.", _hedging),
    SectionSpec("disruptors", "Disruptors",
                "Per Disruptor card: how often it is seen and taken, and whether the players "
                "who take it win more.", _disruptors),
    SectionSpec("chips", "Chips",
                "How fast the table thins out, and how unequal stacks are.", _chips),
]
"""The sections of one point, in order; :func:`analysis.findings` names them by id."""


# ---------------------------------------------------------------------------
# The sweep sections
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
    pooled = A.RunData(manifest, tables, run.folder)
    strong = run.strong_play
    if strong is not None:  # each group's trainings and values, pooled alike
        trained, values = strong
        pooled.__dict__["strong_play"] = (
            A.pool_estimates(trained, groups, "exploitability", "exploitability_low",
                             "exploitability_high"),
            A.pool_estimates(values, groups, "value", "low", "high", by=["mechanic"]))
    return pooled


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



@dataclass
class _Sweep:
    """What the sweep sections share: the run, its per-point metrics and their ranking."""

    run: A.RunData
    n_boot: int = 300
    max_pairs: int = 6
    metrics: pd.DataFrame = field(init=False)
    ranked: pd.DataFrame = field(init=False)
    best: int = field(init=False)

    def __post_init__(self):
        self.metrics = A.point_metrics(self.run, n_boot=self.n_boot)
        self.ranked = A.rank_points(self.metrics, self.run.targets,
                                    kinds=self.run.target_kinds)
        self.best = (int(self.ranked["point"].iloc[0]) if self.run.targets
                     else self.run.points[0])

    def keys(self, varying: bool = False) -> list[str]:
        """Key metrics present in the sweep, targeted ones first; with ``varying``, only
        those that change across points (a flat panel says nothing), and the strong-play
        metrics only where targeted (their own section draws them)."""
        present = [k for k in A.METRICS if k in self.metrics
                   and self.metrics[k].notna().any()]
        targeted = [k for k in present if A.METRICS[k][1] in self.run.targets]
        if varying:
            present = [k for k in present if self.metrics[k].nunique(dropna=True) > 1
                       and (k in targeted or k not in (*STRONG_KEYS, *QUIET_KEYS))]
        return targeted + [k for k in present if k not in targeted]


def _metric_text(key: str, v) -> str:
    if not isnum(v):
        return "–"
    if _kind(key) == "share":
        return pct(v)
    if _kind(key) == "points":
        return f"{100 * v:.1f} pts"
    return num(v, 2 if abs(v) < 10 else 1)


def _ranking(s: _Sweep) -> list:
    r, swept, targets = s.ranked, s.run.swept, s.run.targets
    t = pd.DataFrame({"rank" if targets else "point":
                      [str(int(x)) for x in (r["rank"] if targets else r["point"])]})
    if targets:
        t["point"] = [str(int(x)) for x in r["point"]]
    for k in swept:
        t[k] = r[k].astype(str)
    if targets:  # first: what the ranking rests on, and whether it can tell the point apart
        t["distance (95% CI)"] = [num_ci(x, lo, hi, 3) for x, lo, hi in zip(
            r["distance"], r["distance_low"], r["distance_high"], strict=True)]
        t["told apart from rank 1"] = ["–" if i == 0 else "no" if w else "yes"
                                       for i, w in enumerate(r["with_best"])]
    for k in s.keys():
        if k in QUIET_KEYS and A.METRICS[k][1] not in targets:
            continue  # in the CSV and summary.md: the table stays readable
        t[A.METRICS[k][0]] = [_metric_text(k, v) for v in r[k]]
    flags = _flags(s) if s.run.strong_play is not None else {}
    if flags:  # never silently ranked: what makes a point's strong-play numbers unsafe
        t["flag"] = [flags.get(int(p), "") for p in r["point"]]
    if targets:
        lines = A.ranking_lines(r, swept)
        tied = A.best_points(r)
        blocks: list = [Note(
            (lines[0][0].upper() + lines[0][1:] + ". " if lines else "")
            + (f"{lines[1][0].upper() + lines[1][1:]}; the numbered sections below describe "
               f"it. " if len(lines) > 1 else "")
            + "Targets: " + ", ".join(f"{k} = {v:g}" for k, v in targets.items())
            + ". Distance = root of the summed squared relative misses; ceilings (max_*, "
            "unresolved_share, a { max = ... }) and floors ({ min = ... }) cost nothing when "
            "met. Its 95% interval comes from each "
            "targeted metric's own interval (seeded draws); a point is told apart from the "
            "best only when the interval of the difference of their distances leaves 0 out.",
            "warning" if len(tied) > 1 else "p"), _ranking_figure(s)]
        highlight = [i for i, w in enumerate(r["with_best"]) if w] or [0]
    else:
        blocks = [Note(f"No [targets] in the scenario: points are listed in order; the "
                       f"{len(POINT_SECTIONS)} numbered sections below describe point "
                       f"{s.best}.", "muted")]
        highlight = []
    caption = "Sweep points" + (f" (best 60 of {len(t)})" if len(t) > 60 else "")
    blocks.append(Table(t.head(60), caption, highlight[:60], "sweep_points.csv", r))
    return blocks


def _ranking_figure(s: _Sweep) -> R.Figure:
    top = s.ranked.head(25)
    labels = [f"{int(p)}: " + ", ".join(f"{k}={row[k]}" for k in s.run.swept)
              for p, (_, row) in zip(top["point"], top.iterrows(), strict=True)]
    fig, axes = R.figure(0.26 * len(top) + 1.2)
    ax = axes[0, 0]
    y = np.arange(len(top))[::-1]
    tied = top["with_best"].astype(bool).to_numpy()
    colors = [PALETTE["vermillion"] if t else PALETTE["blue"] for t in tied]
    ax.barh(y, top["distance"], color=colors, height=0.7)
    if top["distance_low"].notna().any():
        ax.errorbar(top["distance"], y, xerr=interval_err(
            top["distance"].to_numpy(float), top["distance_low"].to_numpy(float),
            top["distance_high"].to_numpy(float)), fmt="none", ecolor="black", lw=0.9,
            capsize=2)
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel("distance to targets (relative, unitless)")
    ax.grid(axis="y", visible=False)
    which = ("vermillion: the best point, told apart from every other" if tied.sum() == 1 else
             f"vermillion: the {int(tied.sum())} points shown that cannot be told apart from "
             f"the closest")
    return R.png(fig, "sweep_ranking", f"Distance to the targets of the best {len(top)} "
                 f"points (0 = every target met) with 95% intervals; {which}.")


def _per_param(s: _Sweep) -> list:
    blocks = []
    keys = s.keys(varying=True)
    for name in s.run.swept:
        pooled = _pooled_metrics(s.run, [name], s.n_boot)
        blocks += [_param_figure(s, name, pooled, keys), Csv(f"sweep_by_{name}.csv", pooled)]
    return blocks


def _param_x(s: _Sweep, name: str, pooled: pd.DataFrame):
    """x of the pooled values and of each point; categorical values get positions."""
    raw = s.metrics[name]
    categorical = not np.issubdtype(np.asarray(pd.unique(raw)).dtype, np.number)
    order = list(pooled[name])
    if categorical:
        pos = {v: i for i, v in enumerate(order)}
        return categorical, order, np.array([pos[v] for v in order], float), \
            raw.map(pos).to_numpy(float)
    return categorical, order, pooled[name].to_numpy(float), raw.to_numpy(float)


def _param_figure(s: _Sweep, name: str, pooled: pd.DataFrame, keys: list[str]) -> R.Figure:
    ncols = 3 if len(keys) > 4 else 2
    nrows = -(-len(keys) // ncols)
    fig, axes = R.figure(2.5 * nrows + 0.4, ncols=ncols, nrows=nrows)
    categorical, order, x_pooled, x_points = _param_x(s, name, pooled)
    spread = 0.08 if categorical else 0.015 * (np.ptp(x_pooled) or 1)
    jitter = np.random.default_rng(0).uniform(-spread, spread, x_points.size)
    for ax, key in zip(axes.ravel(), keys, strict=False):
        ax.scatter(x_points + jitter, s.metrics[key].to_numpy(float), s=10,
                   color=PALETTE["grey"], alpha=0.6, lw=0, zorder=2)
        _pooled_panel(ax, pooled, key, x_pooled, categorical)
        target_name = A.METRICS[key][1]
        target = s.run.targets.get(target_name) if target_name else None
        if target is not None:
            ax.axhline(target, color=PALETTE["vermillion"], ls="--", lw=1.1)
        ax.set_title(SHORT.get(key, key), loc="left", fontsize=9.5)
        ax.set_xlabel(name)
        ax.yaxis.set_major_formatter(_formatter(_kind(key)))
        if _kind(key) != "plain":
            ax.set_ylim(bottom=max(ax.get_ylim()[0], 0))
        if categorical:
            ax.set_xlim(-0.5, len(order) - 0.5)
            ax.set_xticks(x_pooled, [str(v) for v in order])
    R.hide_unused(axes, len(keys))
    return R.png(fig, f"sweep_{name}", f"Key numbers against {name}: blue = all points with "
                 f"that {name} pooled, with its 95% interval (band or bars); grey dots = "
                 "single points; dashed = target.")


def _pooled_panel(ax, pooled: pd.DataFrame, key: str, x: np.ndarray, categorical: bool):
    """The pooled value of ``key`` with its interval: bars for unordered values (no line
    between them), a line and band for numbers."""
    y = pooled[key].to_numpy(float)
    has_ci = f"{key}_low" in pooled
    lo = pooled[f"{key}_low"].to_numpy(float) if has_ci else None
    hi = pooled[f"{key}_high"].to_numpy(float) if has_ci else None
    if categorical:
        err = interval_err(y, lo, hi) if has_ci else None
        ax.errorbar(x, y, yerr=err, fmt="o", color=PALETTE["blue"], ms=5, zorder=3)
        return
    if has_ci:
        ax.fill_between(x, lo, hi, color=PALETTE["blue"], alpha=0.22, lw=0, zorder=1)
    ax.plot(x, y, "-o", color=PALETTE["blue"], ms=4, zorder=3)


def _pairs(s: _Sweep) -> list:
    swept = s.run.swept
    pairs = [(a, b) for i, a in enumerate(swept) for b in swept[i + 1:]]
    if not pairs:
        return [Note("Only one parameter is swept: no pairs.", "muted")]
    blocks = []
    keys = s.keys(varying=True)[:4]
    for a, b in pairs[:s.max_pairs]:
        pooled = _pooled_metrics(s.run, [a, b], s.n_boot)
        blocks += [_pair_figure(a, b, pooled, keys), Csv(f"sweep_by_{a}_{b}.csv", pooled)]
    if len(pairs) > s.max_pairs:
        blocks.append(Note(f"{len(pairs) - s.max_pairs} more pairs not drawn.", "muted"))
    return blocks


def _sorted_values(values) -> list:
    return list(dict.fromkeys(sorted(values, key=lambda v: (isinstance(v, str), v))))


def _pair_figure(a: str, b: str, pooled: pd.DataFrame, keys: list[str]) -> R.Figure:
    xs, ys = _sorted_values(pooled[b].tolist()), _sorted_values(pooled[a].tolist())
    nrows = -(-len(keys) // 2)
    fig, axes = R.figure((0.32 * len(ys) + 1.3) * nrows + 0.3, ncols=2, nrows=nrows)
    notes = []
    for ax, key in zip(axes.ravel(), keys, strict=False):
        mat, low, high = (np.full((len(ys), len(xs)), np.nan) for _ in range(3))
        for _, r in pooled.iterrows():
            at = ys.index(r[a]), xs.index(r[b])
            mat[at] = r[key]
            low[at], high[at] = r.get(f"{key}_low", np.nan), r.get(f"{key}_high", np.nan)
        notes.append(_pair_heat(fig, ax, mat, low, high, key))
        ax.set_xticks(range(len(xs)), [str(v) for v in xs])
        ax.set_yticks(range(len(ys)), [str(v) for v in ys])
        ax.set_xlabel(b)
        ax.set_ylabel(a)
    R.hide_unused(axes, len(keys))
    return R.png(fig, f"sweep_{a}_x_{b}", f"Key numbers for each {a} (rows) × {b} (columns), "
                 "pooled over the other parameters. The colour scale is never narrower than "
                 "the cells' typical 95% interval, so noise does not show as a gradient. "
                 + " ".join(notes))


def heat_noise(mat: np.ndarray, low: np.ndarray, high: np.ndarray) -> dict[str, float | bool]:
    """How the spread of a heat map's cells compares with their noise.

    ``half``: the typical (median) half-width of the cells' 95% intervals; ``span``:
    highest minus lowest cell; ``p``: Cochran's test that every cell holds one value
    (``Q = sum ((v - weighted mean) / se)^2`` against chi-square with cells - 1 degrees of
    freedom, ``se`` each cell's interval width / 3.92); ``within``: ``p`` > 0.05, the cells
    cannot be told apart. Comparing only the highest and lowest cells would not do: the
    extremes of many cells of pure noise lie further apart than two cells' intervals.
    ``known`` is False where a cell has no interval (then ``within`` is False too).
    """
    from scipy import stats  # imported when first needed, as nop_sim.core.stats does

    ok = np.isfinite(mat)
    v, width = mat[ok], (high - low)[ok]
    known = bool(ok.sum() > 1 and np.isfinite(width).all())
    out = {"half": float(np.median(width) / 2) if known else np.nan,
           "span": float(np.ptp(v)) if v.size else np.nan, "p": np.nan, "within": False,
           "known": known}
    if not known:
        return out
    se = np.clip(width / (2 * normal_quantile(CONFIDENCE)), 1e-12, None)
    w = 1 / se**2
    q = float(np.sum(w * (v - np.sum(w * v) / np.sum(w)) ** 2))
    out["p"] = float(stats.chi2.sf(q, v.size - 1))
    out["within"] = out["p"] > ALPHA
    return out


def _pair_heat(fig, ax, mat: np.ndarray, low: np.ndarray, high: np.ndarray, key: str) -> str:
    """Draw one heat map; return the caption's sentence on its noise."""
    kind = _kind(key)
    finite = mat[np.isfinite(mat)]
    lo, hi = (finite.min(), finite.max()) if finite.size else (0.0, 1.0)
    noise = heat_noise(mat, low, high)
    flat = not hi > lo
    # the colours never span less than a typical interval: a spread within noise stays pale
    width = max(hi - lo, 2 * noise["half"]) if np.isfinite(noise["half"]) else hi - lo
    mid = (lo + hi) / 2
    norm = matplotlib.colors.Normalize(mid - width / 2 if width > 0 else lo - 1,
                                       mid + width / 2 if width > 0 else hi + 1)
    cmap = R.SEQUENTIAL
    if noise["within"]:
        # a neutral scale: the lightest quarter of the greys, no colour bar to read off
        cmap = "Greys"
        norm = matplotlib.colors.Normalize(norm.vmin, norm.vmin + 4 * (norm.vmax - norm.vmin))
    im = ax.imshow(mat, cmap=cmap, norm=norm, aspect="auto")
    R.annotate_heat(ax, mat, (lambda v: f"{100 * v:.1f}") if kind != "plain" else
                    (lambda v: f"{v:.3g}"), norm=norm, cmap=cmap)
    title = SHORT.get(key, key)
    if flat:
        title += " — the same everywhere"
    elif noise["within"]:
        title += " — within noise"
    ax.set_title(title, loc="left", fontsize=9.5)
    ax.grid(False)
    if not flat and not noise["within"]:
        cb = fig.colorbar(im, ax=ax, shrink=0.9)
        cb.ax.yaxis.set_major_formatter(_formatter(kind))
    name = SHORT.get(key, key)
    if flat or not finite.size:
        return f"{name}: the same in every cell."
    spread = (f"{name}: cells span {_metric_text(key, hi - lo)}, typical 95% interval "
              f"±{_metric_text(key, noise['half'])}")
    if not noise["known"]:
        return spread + " (no interval for some cells: cannot tell whether this is noise)."
    if noise["within"]:
        return spread + f": within noise, the cells cannot be told apart (test that all " \
                        f"hold one value: p = {noise['p']:.2g}; drawn in pale grey, no " \
                        f"colour scale)."
    return spread + f": the cells differ beyond noise (test that all hold one value: " \
                    f"p = {noise['p']:.2g})."


# -- under strong play (sweep --train --value) ------------------------------------------------
STRONG_KEYS = ("exploitability", *(f"value_{m}" for m in A.MECHANICS))
# key metrics the ranking table shows only where targeted (its CSV holds them all)
QUIET_KEYS = ("hedges_per_hand", "bluffs_per_hand", "max_disruptor_effect")
MOSTLY_UNRESOLVED = 0.5


def _flags(s: _Sweep) -> dict[int, str]:
    """Points whose values cannot be read as the rules' (point -> why): the training did not
    settle (a deviation gains at least :data:`UNSETTLED` points), or most of its matches
    ran out of hands."""
    flags: dict[int, list[str]] = {}
    for _, r in s.metrics.iterrows():
        why = []
        low = r.get("exploitability_low", np.nan)
        if isnum(low) and low >= UNSETTLED:
            why.append(f"its training did not settle (a deviation gains at least "
                       f"{low:.1f} points)")
        share = r.get("unresolved_share", np.nan)
        if isnum(share) and share > MOSTLY_UNRESOLVED:
            why.append(f"{pct(share)} of its matches were unresolved")
        if why:
            flags[int(r["point"])] = " and ".join(why)
    return flags


def _point_text(s: _Sweep, point: int) -> str:
    params = s.run.params(point)
    return f"point {point} (" + ", ".join(f"{k} = {v}" for k, v in params.items()) + ")"


def _worth_answer(s: _Sweep, values: pd.DataFrame, flags: dict[int, str]) -> list[str]:
    """A sentence per mechanic: where it pays (interval above 0), where it cannot be told
    from 0, its largest value; flagged points set aside."""
    lines = []
    for mech, g in values.groupby("mechanic", sort=False):
        ok = g[~g["point"].isin(list(flags))]
        if not len(ok):
            lines.append(f"**{mech}**: every point is flagged; nothing can be read.")
            continue
        pays, zero = ok[ok["low"] > 0], ok[(ok["low"] <= 0) & (ok["high"] >= 0)]
        top = ok.loc[ok["value"].idxmax()]
        text = (f"**{mech}** pays a strong player (95% interval above 0) at {len(pays)} of "
                f"{len(ok)} points and cannot be told from 0 at {len(zero)}; ")
        text += (f"most at {_point_text(s, int(top['point']))}: {top['value']:+.1f} points "
                 f"({top['low']:+.1f} to {top['high']:+.1f})." if len(pays) else
                 f"its largest estimate is {top['value']:+.1f} points "
                 f"({top['low']:+.1f} to {top['high']:+.1f}).")
        lines.append(text)
    return lines


def _worth(s: _Sweep) -> list:
    trained, values = s.run.strong_play
    flags = _flags(s)
    halves = (values["high"] - values["low"]) / 2
    blocks: list = [Bullets(_worth_answer(s, values, flags)), Note(
        f"A mechanic's value is what the best deviation against the point's trained field "
        f"gains over the best deviation that may not use it (restricted play, Jaffe et al. "
        f"2012): two equal searches, checked on the same matches. About 0: dead weight to a "
        f"strong player; large: it dominates. 95% intervals: ±{halves.median():.1f} points "
        f"typically, ±{halves.max():.1f} at most. "
        f"Each field was trained with its own budget, so a value also reads what its "
        f"field gets wrong: a point is flagged when its training did not settle "
        f"(exploitability {UNSETTLED:g} points or more) or most matches were unresolved.",
        "muted")]
    if flags:
        blocks.append(Note("Flagged, drawn hollow and left out of the pooled lines: "
                           + "; ".join(f"{_point_text(s, p)}: {why}"
                                       for p, why in flags.items()) + ".", "warning"))
    for name in s.run.swept:
        blocks.append(_worth_figure(s, name, values, flags))
    numeric = [k for k in s.run.swept
               if np.issubdtype(np.asarray(pd.unique(s.metrics[k])).dtype, np.number)]
    if len(numeric) >= 2:
        blocks.append(_worth_heat(s, numeric[0], numeric[1], values, flags))
    leads = _lead_table(s, flags)
    if leads is not None:
        blocks.append(leads)
    table = values.pivot(index="point", columns="mechanic", values="value")
    t = pd.DataFrame({"point": [str(p) for p in table.index]})
    for k in s.run.swept:
        t[k] = [str(s.run.params(p).get(k)) for p in table.index]
    ex = trained.set_index("point")
    t["exploitability"] = [num_ci(ex.loc[p, "exploitability"], ex.loc[p, "exploitability_low"],
                                  ex.loc[p, "exploitability_high"], 1) for p in table.index]
    by = values.set_index(["point", "mechanic"])
    for mech in pd.unique(values["mechanic"]):
        t[mech] = [num_ci(by.loc[(p, mech), "value"], by.loc[(p, mech), "low"],
                          by.loc[(p, mech), "high"], 1) if (p, mech) in by.index else "–"
                   for p in table.index]
    t["flag"] = [flags.get(int(p), "") for p in table.index]
    highlight = [i for i, p in enumerate(table.index) if int(p) in flags]
    blocks.append(Table(t.head(60), "Each point's field and mechanic values (win-rate points, "
                        "95% interval); flagged rows highlighted" +
                        (f" (first 60 of {len(t)})" if len(t) > 60 else ""),
                        highlight[:60], "values_by_point.csv", values))
    return blocks


def _lead_table(s: _Sweep, flags: dict[int, str]) -> Table | None:
    """The Disruptor whose drafters lead most under each point's field (drafts.csv)."""
    drafts = load_strong_drafts(s.run.folder) if s.run.folder is not None else None
    if drafts is None or not len(drafts):
        return None
    top = drafts.loc[drafts.groupby("point")["lead"].idxmax()].sort_values("point")
    t = pd.DataFrame({"point": top["point"].astype(int).astype(str)})
    for k in s.run.swept:
        t[k] = [str(s.run.params(int(p)).get(k)) for p in top["point"]]
    t["card"] = top["card"].to_numpy()
    t["lead, points (95%)"] = [num_ci(v, lo, hi, 1) for v, lo, hi in zip(
        top["lead"], top["low"], top["high"], strict=True)]
    t["flag"] = [flags.get(int(p), "") for p in top["point"]]
    return Table(t.head(60), "The Disruptor whose drafters lead most under each point's "
                 "field: win rate of a seat that drafted it minus one that did not (Newcombe "
                 "95% interval; an association, not an effect: drafting needs a won showdown)",
                 csv="drafted_leads.csv", full=drafts)


def _worth_figure(s: _Sweep, name: str, values: pd.DataFrame, flags: dict[int, str]
                  ) -> R.Figure:
    mechs = list(pd.unique(values["mechanic"]))
    ncols = 3 if len(mechs) > 4 else 2
    nrows = -(-len(mechs) // ncols)
    fig, axes = R.figure(2.5 * nrows + 0.4, ncols=ncols, nrows=nrows)
    x_of = {int(p): s.run.params(int(p)).get(name) for p in s.metrics["point"]}
    order = _sorted_values(x_of.values())
    categorical = not all(isinstance(v, int | float) for v in order)
    pos = {v: (i if categorical else float(v)) for i, v in enumerate(order)}
    spread = 0.08 if categorical else 0.015 * (np.ptp([pos[v] for v in order]) or 1)
    ok = values[~values["point"].isin(list(flags))]
    groups = pd.Series({p: order.index(v) for p, v in x_of.items()})
    pooled = A.pool_estimates(ok, groups, "value", "low", "high", by=["mechanic"])
    for ax, mech in zip(axes.ravel(), mechs, strict=False):
        g = values[values["mechanic"] == mech]
        x = np.array([pos[x_of[int(p)]] for p in g["point"]], float)
        x += np.random.default_rng(0).uniform(-spread, spread, x.size)
        hollow = g["point"].isin(list(flags)).to_numpy()
        for sel, face in ((~hollow, PALETTE["grey"]), (hollow, "none")):
            if sel.any():
                ax.errorbar(x[sel], g["value"].to_numpy()[sel],
                            yerr=interval_err(g["value"].to_numpy()[sel], g["low"].to_numpy()[sel],
                                              g["high"].to_numpy()[sel]),
                            fmt="o", ms=3.5, color=PALETTE["grey"], mfc=face, lw=0.8,
                            alpha=0.7, zorder=2)
        pm = pooled[pooled["mechanic"] == mech]
        if len(pm):
            px = np.array([pos[order[int(i)]] for i in pm["point"]], float)
            y, lo, hi = (pm[c].to_numpy(float) for c in ("value", "low", "high"))
            if categorical:
                ax.errorbar(px, y, yerr=interval_err(y, lo, hi), fmt="o",
                            color=PALETTE["blue"], ms=5, zorder=3)
            else:
                ax.fill_between(px, lo, hi, color=PALETTE["blue"], alpha=0.22, lw=0, zorder=1)
                ax.plot(px, y, "-o", color=PALETTE["blue"], ms=4, zorder=3)
        ax.axhline(0, color=PALETTE["black"], lw=0.8, ls="--")
        ax.set_title(f"value of {mech} (points)", loc="left", fontsize=9.5)
        ax.set_xlabel(name)
        if categorical:
            ax.set_xlim(-0.5, len(order) - 0.5)
            ax.set_xticks(range(len(order)), [str(v) for v in order])
        elif len(order) <= 12:  # the swept values themselves, not ticks between them
            ax.set_xticks([float(v) for v in order], [str(v) for v in order])
    R.hide_unused(axes, len(mechs))
    return R.png(fig, f"worth_{name}", f"What each mechanic is worth to a strong player "
                 f"against {name}: grey = single points with their 95% interval (hollow: "
                 f"flagged); blue = the points with that {name} pooled, with the interval of "
                 f"their mean; dashed = 0, where a mechanic is worth nothing.")


def _worth_heat(s: _Sweep, a: str, b: str, values: pd.DataFrame, flags: dict[int, str]
                ) -> R.Figure:
    """Each mechanic's value for each ``a`` (rows) x ``b`` (columns), pooled over the other
    knobs, unflagged points only; a cell whose interval holds 0 is marked."""
    mechs = list(pd.unique(values["mechanic"]))
    ys = _sorted_values(s.run.params(int(p))[a] for p in s.metrics["point"])
    xs = _sorted_values(s.run.params(int(p))[b] for p in s.metrics["point"])
    cells = {int(p): ys.index(s.run.params(int(p))[a]) * len(xs)
             + xs.index(s.run.params(int(p))[b]) for p in s.metrics["point"]}
    ok = values[~values["point"].isin(list(flags))]
    pooled = A.pool_estimates(ok, pd.Series(cells), "value", "low", "high", by=["mechanic"])
    nrows = -(-len(mechs) // 2)
    fig, axes = R.figure((0.32 * len(ys) + 1.3) * nrows + 0.3, ncols=2, nrows=nrows)
    notes = []
    for ax, mech in zip(axes.ravel(), mechs, strict=False):
        mat, low, high = (np.full((len(ys), len(xs)), np.nan) for _ in range(3))
        for _, r in pooled[pooled["mechanic"] == mech].iterrows():
            at = divmod(int(r["point"]), len(xs))
            mat[at], low[at], high[at] = r["value"], r["low"], r["high"]
        notes.append(_pair_heat(fig, ax, mat, low, high, f"value_{mech}"))
        for (i, j), v in np.ndenumerate(mat):
            if np.isfinite(v) and low[i, j] <= 0 <= high[i, j]:
                ax.text(j, i + 0.32, "≈0", ha="center", va="center", fontsize=6.5,
                        color=PALETTE["grey"])
            elif not np.isfinite(v) and i * len(xs) + j in set(cells.values()):
                ax.text(j, i, "flagged", ha="center", va="center", fontsize=7,
                        color=PALETTE["vermillion"])
        ax.set_xticks(range(len(xs)), [str(v) for v in xs])
        ax.set_yticks(range(len(ys)), [str(v) for v in ys])
        ax.set_xlabel(b)
        ax.set_ylabel(a)
    R.hide_unused(axes, len(mechs))
    return R.png(fig, f"worth_{a}_x_{b}", f"What each mechanic is worth (points) for each "
                 f"{a} (rows) × {b} (columns), pooled over the other knobs (flagged points "
                 f"left out); ≈0 marks a cell whose 95% interval holds 0. " + " ".join(notes))


WORTH_SECTION = SectionSpec(
    "worth", "What each mechanic is worth",
    "Under strong play: at every point, each mechanic's value to a player who searches as "
    "hard as the point's training, against each swept knob.", _worth)

SWEEP_SECTIONS = [
    SectionSpec("sweep", "Sweep: points ranked",
                "Every sweep point with its key numbers. With [targets], points are ranked by "
                "their distance to the targets; the best one is highlighted, or every point "
                "that cannot be told apart from it.", _ranking),
    SectionSpec("sweep-params", "Sweep: metrics against each parameter",
                "Each key number against each swept parameter: the line and band pool all "
                "points with that value (95% interval); dots are single points.", _per_param),
    SectionSpec("sweep-pairs", "Sweep: pairs of parameters",
                "For each pair of swept parameters, the key numbers pooled over the other "
                "parameters.", _pairs),
]


# ---------------------------------------------------------------------------
# Under strong play: the scenario's [strong] field in every seat, beside the run
# ---------------------------------------------------------------------------


def strong_run(folder: Path | None) -> A.RunData | None:
    """The finished run of a scenario's ``[strong]`` field inside a run folder, or None."""
    if folder is None:
        return None
    sub = Path(folder) / STRONG_FOLDER
    try:
        manifest = json.loads((sub / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    return A.load_run(sub) if manifest.get("status") == "finished" else None


@dataclass
class _Strong:
    """What the strong-play section reads: this run (the styles) and the field's run."""

    styles: _Point
    strong: A.RunData

    @property
    def field(self) -> dict:
        files = self.strong.manifest.get("agent_files") or [{}]
        return files[0]


def _under_strong(c: _Strong) -> list:
    f = c.field
    rows = len(f.get("rows") or [1])
    matches = int(c.strong.manifest.get("totals", {}).get("matches", 0))
    blocks: list = [Note(
        f"Every seat played the strong field of {f.get('given', '?')} (a mixture of {rows} "
        f"policy row{'s' * (rows > 1)}: {training_text(f.get('training') or {})}) in "
        f"{count(matches)} matches of these rules, seed {c.strong.manifest.get('seed')}. "
        f"The other sections describe the styles this scenario seats. The field is as strong "
        f"as its stated exploitability says: where a deviation gains several points, what "
        f"it does is strong play as far as its training got.")]
    keys = [k for k in A.METRICS if k not in STRONG_KEYS and k != "max_preset_advantage"]
    both = [A.point_metrics(run, n_boot=300).iloc[0] for run in (c.styles.run, c.strong)]
    t = pd.DataFrame({"metric": [A.METRICS[k][0] for k in keys]})
    for label, m in zip(("styles (this run)", "strong field"), both, strict=True):
        t[label] = [_metric_ci(k, m) for k in keys]
    blocks.append(Table(t, "What strong players do, beside the styles (95% intervals)",
                        csv="strong_metrics.csv"))
    s = A.seat_fairness(c.strong)
    blocks.append(Table(pd.DataFrame({
        "seat": s["seat"].astype(int).astype(str),
        f"win rate ({HOLM})": _cis(s, "win_rate", "holm_low", "holm_high"),
        "advantage": _pts(s["advantage"]), "Holm p": [pval(x) for x in s["p_holm"]],
        "unfair": ["yes" if x else "" for x in s["outside"]]}),
        "Seat fairness under strong play: every seat the same field",
        csv="strong_seats.csv", full=s))
    values = _field_values(f)
    if values is not None:
        blocks.append(Table(pd.DataFrame({
            "mechanic": values["mechanic"],
            "value, points (95%)": [num_ci(v, lo, hi, 1) for v, lo, hi in zip(
                values["loss"], values["loss_low"], values["loss_high"], strict=True)],
            "reading": [PLAYS_ALIKE if plays_alike(lo, hi) else
                        "cannot be told from 0" if lo <= 0 <= hi else
                        "pays against this field" if lo > 0 else "below 0 (noise)"
                        for lo, hi in zip(values["loss_low"], values["loss_high"],
                                          strict=True)],
            "across fields": _across_fields(values)}),
            "What each mechanic is worth to a strong player (nop-sim value against this "
            "field: the best deviation's gain minus the best deviation's without it, both "
            "searched from the deviations known to beat the field as well)",
            csv="strong_values.csv", full=values))
        blocks.append(Note(
            "A value is a property of the rules only where fields trained with other seeds "
            "agree on it: it reads \"worth v (a to b)\" only where two or more such fields "
            "give values within 3 points of each other, each 95% interval within +-2; "
            "otherwise \"depends on the field\" or \"not settled\". Against one field "
            "it is that field's value (nop-sim value --strong A --strong B measures two).",
            "muted"))
        gap = search_gap(values, f.get("training") or {})
        if gap:
            blocks.append(Note(f"**Read these values with care:** {gap}.", "warning"))
    else:
        blocks.append(Note(f"No values beside {f.get('given', 'the field')}: measure them with "
                           f"nop-sim value SCENARIO --strong <its training folder>.", "muted"))
    d = A.disruptor_stats(c.strong)
    if not d.empty:
        d = d.reindex(d["adjusted_lift"].abs().sort_values(ascending=False).index).head(8)
        short = _disruptor_table(d.reset_index(drop=True))[[
            "card", "pick rate", "drafters / others win", f"adjusted lift, pts ({HOLM})",
            "Holm p (adjusted)", "outlier"]]
        blocks.append(Table(short,
                            "Disruptors under strong play: the 8 largest adjusted leads of "
                            "drafters over seats that drafted as many other cards (Holm "
                            "intervals; an association, not an effect)",
                            list(np.nonzero(d["outlier"].to_numpy())[0]),
                            "strong_disruptors.csv", d))
    return blocks


def _across_fields(values: pd.DataFrame) -> list[str]:
    """Each value's verdict across the fields it was measured against (nop-sim value with
    several fields, or a pooled training's halves): "worth v (a to b)" only where they
    agree (nop_sim.studies.train.verdict); one field cannot settle a value."""
    one = "one field: not settled"
    if "verdict" not in values:
        return [one] * len(values)
    return [v if isinstance(v, str) and n >= 2 else one
            for v, n in zip(values["verdict"], values["fields"].fillna(1), strict=True)]


def _metric_ci(key: str, m: pd.Series) -> str:
    v, lo, hi = m.get(key), m.get(f"{key}_low"), m.get(f"{key}_high")
    if not isnum(v):
        return "–"
    if isnum(lo) and isnum(hi):
        return f"{_metric_text(key, v)} ({_metric_text(key, lo)} to {_metric_text(key, hi)})"
    return _metric_text(key, v)


def _field_values(field: dict) -> pd.DataFrame | None:
    """``value.parquet`` beside the field's file (``nop-sim value`` writes it into the
    training folder), or None."""
    path = Path(field.get("file") or "").parent / "value.parquet"
    try:
        return pd.read_parquet(path) if field.get("file") and path.is_file() else None
    except (OSError, ValueError):
        return None


STRONG_SECTION = SectionSpec(
    "strong", "Under strong play",
    "The same rules with a strong field (the scenario's [strong], trained by nop-sim train) "
    "in every seat: what strong players do, how fair the seats are, what each mechanic is "
    "worth to them, which Disruptors lead.", _under_strong)


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------
# Sections a forked copy of this process builds while this one builds the others
# (nop_sim.reporting.forked), about half the work each. Measured on the baseline (s; the
# tables the headline needs are computed here anyway): headline 0.60, length 0.15,
# seats 0.07, Disruptors 0.40 here; strategies 0.26, the column 0.50, the ledger
# 0.18, hedging 0.18, chips 0.15 there, their tables computed again (the headline's
# 0.2 s Disruptor table stays here with its section).
ELSEWHERE = ("strategies", "column", "ledger", "hedging", "chips")


def _build_elsewhere(run: A.RunData, point: int, strict: bool) -> dict[str, list | None]:
    """The blocks of the point sections of :data:`ELSEWHERE` (in the forked copy)."""
    p = _Point(run, point)
    return {spec.id: R.build_blocks(spec, p, strict=strict, unavailable=(A.MissingData,))
            for spec in POINT_SECTIONS if spec.id in ELSEWHERE}


def _elsewhere(run: A.RunData, point: int, strict: bool) -> dict[str, Callable]:
    """Fork a copy to build :data:`ELSEWHERE`, where forking is on and the run is small
    (:func:`nop_sim.reporting.forked.small_run`): spec id -> a callable waiting for its blocks
    (for :func:`~nop_sim.reporting.build_sections`)."""
    matches = int(run.manifest.get("totals", {}).get("matches", 0))
    forked = (renderer.fork(_build_elsewhere, run, point, strict)
              if renderer.small_run(matches) else None)
    if forked is None:
        return {}
    return {i: (lambda i=i: forked.result()[i]) for i in ELSEWHERE}


def build_report(run: A.RunData, point: int | None = None, strict: bool = False) -> R.Report:
    """The report of a loaded run, built but not written (see :func:`write_report`).

    Where forking is on (:func:`nop_sim.reporting.forked.enable`), a forked copy of
    this process builds the sections of :data:`ELSEWHERE` meanwhile.
    """
    sections: list[R.Section] = []
    sweep = _Sweep(run) if len(run.points) > 1 else None
    if sweep is not None:
        point = sweep.best if point is None else point
    point = run.points[0] if point is None else int(point)
    elsewhere = _elsewhere(run, point, strict)
    if sweep is not None:
        strong = run.strong_play
        specs = SWEEP_SECTIONS[:1] + ([WORTH_SECTION] if strong is not None and len(strong[1])
                                      else []) + SWEEP_SECTIONS[1:]
        sections += R.build_sections(specs, sweep, strict=strict)
    sweeping = sweep is not None
    strong = None if sweeping else strong_run(run.folder)
    if strong is not None:
        sections += R.build_sections([STRONG_SECTION], _Strong(_Point(run, point), strong),
                                     strict=strict, unavailable=(A.MissingData,))
    sections += R.build_sections(POINT_SECTIONS, _Point(run, point), strict=strict,
                                 prefix=f"p{point}_" if sweeping else "", number_from=1,
                                 suffix=f" (point {point})" if sweeping else "",
                                 unavailable=(A.MissingData,), elsewhere=elsewhere)
    m = run.manifest
    meta = (f"{'sweep' if sweeping else 'run'} of {len(run.points)} point(s), "
            f"{m.get('matches_per_point', '?')} matches per point, seed {m.get('seed')}; "
            f"finished {m.get('ended')}.")
    if sweeping:
        meta += f" Sections 1–{len(POINT_SECTIONS)} describe point {point}."
    return R.Report(f"{m.get('scenario', {}).get('name', 'run')}: balance report", meta,
                    sections)


def write_report(results_dir, *, point: int | None = None, strict: bool = False) -> Path:
    """Write ``report.html`` (self-contained), ``report.md`` with ``figures/*.png`` and
    ``tables/*.csv`` into a finished results folder; return the HTML path.

    ``point`` chooses the sweep point of the numbered sections (default: the
    best by the targets, else point 0). ``strict`` re-raises a section's
    error instead of writing a note in its place (for tests).
    """
    t0 = time.perf_counter()
    folder = Path(results_dir)
    report = build_report(A.load_run(folder), point=point, strict=strict)
    report.meta += f" Report built in {time.perf_counter() - t0:.1f} s."
    return R.write_report(report, folder)
