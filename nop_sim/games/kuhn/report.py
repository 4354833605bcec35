"""The Kuhn poker report: chips per hand with intervals, how hands end, play by infoset.

:func:`write_report` reads a results folder of a ``kuhn3`` scenario and writes, with
the toolkit of :mod:`nop_sim.reporting`, ``report.html``, ``report.md``,
``figures/kuhn_*.png`` and ``tables/kuhn_*.csv`` into it. The sections are
:data:`REPORT_SECTIONS`; each is one small function of a :class:`_Kuhn` context.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim import reporting as R
from nop_sim.games.kuhn import analysis as A
from nop_sim.reporting import PALETTE, Note, SectionSpec, Table
from nop_sim.results.store import load_tables

__all__ = ["REPORT_SECTIONS", "write_report"]


@dataclass
class _Kuhn:
    """What the sections share: the run's tables, its manifest and a label per point."""

    tables: dict[str, pd.DataFrame]
    manifest: dict
    labels: dict[int, str]

    def table(self, key: str, caption: str, frame: pd.DataFrame) -> Table:
        if "point" in frame:
            frame = frame.assign(point=frame["point"].map(self.labels))
        return Table(frame, caption, csv=f"kuhn_{key}.csv")

    def names(self, points, keys) -> list[str]:
        multi = len(set(points)) > 1
        return [f"{self.labels[p]}: {k}" if multi else str(k)
                for p, k in zip(points, keys, strict=True)]


def _height(n: int) -> float:
    return 1.5 + 0.32 * n


def _overview(k: _Kuhn) -> list:
    mf = k.manifest
    blocks = [Note(f"Scenario **{mf['scenario']['name']}** (three-player Kuhn poker, "
                   f"OpenSpiel's rules: cards 0 to 3, ante 1, bet 1), seed {mf['seed']}, "
                   f"{mf['matches_per_point']:,} hands per point, {mf['n_points']} point(s).")]
    if mf.get("rotation"):
        blocks.append(Note("Seats rotated hand by hand: " + ", ".join(mf["rotation"]) + "."))
    seats = pd.DataFrame([{"point": p["point"], "seats": ", ".join(p["seats"])}
                          for p in mf["points"]])
    return blocks + [k.table("overview", "Seats per point", seats)]


def _chips_section(k: _Kuhn, by: str) -> list:
    c = A.chips(k.tables, by)
    labels = k.names(c["point"], [f"seat {s}" if by == "seat" else s for s in c[by]])
    off = c[(c["gap_low"] > 0) | (c["gap_high"] < 0)]
    blocks = [Note(f"Every {by}'s chips per hand agree with the exact expectation of the "
                   f"rows it played (the 95% interval of their difference holds 0)."
                   if off.empty else
                   f"**{len(off)} of {len(c)}** rows differ from their exact expectation "
                   f"beyond the 95% interval (about 1 in 20 does by chance).",
                   "muted" if off.empty else "warning")]
    fig, axes = R.figure(_height(len(c)))
    ax = axes[0, 0]
    R.hbar_ci(ax, labels, c["chips"], c["ci_low"], c["ci_high"], ref=0.0,
              ref_label="even", label="chips per hand, 95% interval", percent=False,
              color=PALETTE["blue"] if by == "preset" else PALETTE["green"])
    ax.plot(c["expected"], np.arange(len(c))[::-1], "x", color=PALETTE["black"],
            label="exact expectation")
    R.hbar_legend(ax)
    ax.set_xlabel("net chips per hand (mean, 95% t interval)")
    frame = c.assign(chips=[R.num_ci(a, b, d, 3) for a, b, d in
                            zip(c["chips"], c["ci_low"], c["ci_high"], strict=True)],
                     expected=[R.num(x, 3) for x in c["expected"]],
                     pot_share=[R.pct_ci(a, b, d) for a, b, d in
                                zip(c["pot_share"], c["pot_low"], c["pot_high"], strict=True)])
    shown = frame[["point", by, "hands", "chips", "expected", "pot_share"]]
    table = k.table(f"chips_by_{by}", f"Chips per hand by {by}", shown)
    table.full = c
    return blocks + [R.png(fig, f"kuhn_chips_{by}", f"Net chips per hand by {by}, 95% "
                                                    f"intervals; x: the exact expectation."),
                     table]


def _presets(k: _Kuhn) -> list:
    return _chips_section(k, "preset")


def _seats(k: _Kuhn) -> list:
    return _chips_section(k, "seat")


def _endings(k: _Kuhn) -> list:
    e = A.endings(k.tables)
    shown = e.assign(share=[R.pct_ci(a, b, c) for a, b, c in
                            zip(e["share"], e["ci_low"], e["ci_high"], strict=True)])
    return [k.table("endings", "Hands by final history",
                    shown[["point", "history", "hands", "share", "showdown", "pot"]])]


def _infosets(k: _Kuhn) -> list:
    i = A.infosets(k.tables)
    shown = i.assign(bet_share=[R.pct_ci(a, b, c) for a, b, c in
                                zip(i["bet_share"], i["ci_low"], i["ci_high"], strict=True)])
    return [k.table("infosets", "Bets (or calls) by infoset",
                    shown[["point", "infoset", "reached", "bets", "bet_share"]])]


REPORT_SECTIONS = [
    SectionSpec("overview", "Run", "", _overview),
    SectionSpec("presets", "Chips per hand by preset",
                "Net chips won per hand (the pot less what the seat put in), averaged over "
                "every seat the preset sat in, with a 95% Student t interval; x marks the "
                "exact expectation of the rows played (full enumeration of the deals). The "
                "table adds the share of pots won (Wilson interval).", _presets),
    SectionSpec("seats", "Chips per hand by seat",
                "Seat 0 acts first. With presets rotated over the seats, each seat's "
                "figure mixes the presets alike.", _seats),
    SectionSpec("endings", "How hands end",
                "The final history of each hand (p: pass or fold, b: bet or call), its "
                "share of hands with a Wilson interval, whether it is a showdown and the "
                "pot.", _endings),
    SectionSpec("infosets", "Play by infoset",
                "Each infoset (the acting player's card, then the history) with how often "
                "it was reached and the share of bets (before a bet) or calls (after one).",
                _infosets),
]


def build_kuhn_report(out: str | Path, strict: bool = False) -> R.Report:
    """The report of a finished ``kuhn3`` run folder, built but not written."""
    out = Path(out)
    manifest = json.loads((out / "manifest.json").read_text())
    ctx = _Kuhn(load_tables(out), manifest, A.point_labels(manifest))
    sections = R.build_sections(REPORT_SECTIONS, ctx, strict=strict)
    meta = (f"Three-player Kuhn poker, {manifest['n_points']} point(s), "
            f"{manifest['matches_per_point']:,} hands per point, seed {manifest['seed']}; "
            f"finished {manifest.get('ended')}.")
    return R.Report(f"{manifest['scenario']['name']}: Kuhn poker report", meta, sections)


def write_report(out: str | Path) -> Path:
    """Write ``report.html``, ``report.md``, ``figures/`` and ``tables/`` into a finished
    ``kuhn3`` run folder; returns the HTML path."""
    return R.write_report(build_kuhn_report(out), out)
