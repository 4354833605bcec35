"""A first look at a finished run: one Markdown table per sweep point.

The balance report (figures, intervals, tests) builds on the same tables;
this summary is what `nop-sim run` prints and writes beside them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim.analysis import wilson_interval
from nop_sim.runner import load_tables

__all__ = ["markdown_table", "point_summary", "write_summary"]


def point_summary(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per sweep point: matches, hands, match length, unresolved share, fees."""
    matches, counts = tables["matches"], tables["counts"]
    rows = []
    for point, m in matches.groupby("point", sort=True):
        c = counts[counts["point"] == point]
        hands = int(c["hands"].sum()) if "hands" in c else int(m["hands"].sum())
        row = {"point": point, "matches": len(m), "hands": hands,
               "median_hands": float(m["hands"].median()),
               "unresolved_share": float(m["unresolved"].mean())}
        for col in ("fees", "manipulations", "hedges", "hedge_hits", "showdowns"):
            if col in c:
                row[f"{col}_per_hand"] = float(c[col].sum()) / max(hands, 1)
        rows.append(row)
    return pd.DataFrame(rows)


def _seat_table(seats: pd.DataFrame, by: str, players: int) -> pd.DataFrame:
    rows = []
    for key, g in seats.groupby(by, sort=True):
        n = len(g)
        wins = int((g["place"] == 1).sum())
        lo, hi = (float(x) for x in wilson_interval(wins, n))
        rows.append({by: key, "seats": n, "win_rate": wins / n, "ci_low": lo, "ci_high": hi,
                     "fair": 1 / players})
    return pd.DataFrame(rows)


def write_summary(out: str | Path) -> Path:
    """Write ``summary.md`` into a finished run folder and return its path."""
    out = Path(out)
    tables = load_tables(out, ("matches", "seats", "counts"))
    manifest = json.loads((out / "manifest.json").read_text())
    lines = [f"# {manifest['scenario']['name']}: run summary", "",
             f"Seed {manifest['seed']}, {manifest['matches_per_point']} matches per point, "
             f"{manifest['n_points']} point(s), {manifest['totals']['hands']:,} hands.", ""]
    summary = point_summary(tables)
    seats = tables["seats"]
    for point in manifest["points"]:
        p = point["point"]
        lines.append(f"## Point {p}" + (f": {point['params']}" if point["params"] else ""))
        lines.append("")
        lines.append(markdown_table(summary[summary["point"] == p].drop(columns="point")))
        s = seats[seats["point"] == p]
        players = int(point["settings"].get("players", s["seat"].nunique()))
        for by in ("seat", "preset"):
            table = _seat_table(s, by, players)
            lines += ["", f"Win rate by {by} (95% Wilson interval):", "",
                      markdown_table(table)]
        lines.append("")
    path = out / "summary.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def markdown_table(frame: pd.DataFrame, digits: int = 3) -> str:
    """A GitHub-flavoured Markdown table of a small DataFrame."""
    def cell(v):
        if isinstance(v, (float, np.floating)):
            return "" if np.isnan(v) else f"{v:.{digits}f}"
        return str(v)

    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *body])
