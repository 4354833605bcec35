"""A first look at a finished run: one Markdown table per sweep point.

The balance report (figures, intervals, tests) builds on the same tables;
this summary is what `nop-sim run` prints and writes beside them. The run's
game (:mod:`nop_sim.games`) names its key metrics (``Game.point_metrics``)
and what a fair win rate is (``Game.fair_win_rate``: ``1/players``, or more
when wins can be shared).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from nop_sim.core.stats import holm_intervals, wilson_test
from nop_sim.games import Game
from nop_sim.games.agent_files import mixture_rows
from nop_sim.reporting.format import pval
from nop_sim.reporting.render import md_table
from nop_sim.results.match_log import run_game
from nop_sim.results.store import load_strong_play, load_tables

__all__ = ["point_summary", "write_summary"]


def point_summary(tables: dict[str, pd.DataFrame], game: Game) -> pd.DataFrame:
    """One row per sweep point: the game's key metrics (``Game.point_metrics``, and its
    ``extra_metrics`` where the tables hold what they need)."""
    matches, counts = tables["matches"], tables["counts"]
    rows = []
    for point, m in matches.groupby("point", sort=True):
        row = {"point": point, **game.point_metrics(m, _of_point(counts, point))}
        if game.extra_metrics:
            row.update(game.extra_values({name: _of_point(t, point)
                                          for name, t in tables.items()}))
        rows.append(row)
    return pd.DataFrame(rows)


def _of_point(table: pd.DataFrame, point) -> pd.DataFrame:
    """The table's rows of sweep point ``point``: the table itself where they are all its
    (one point's tables, as :func:`write_summary` reads them: a filtered copy of the 3.5M
    drafts of 100,000 matches took a tenth of a second)."""
    at = table["point"].to_numpy() == point
    return table if at.all() else table[at]


def _seat_table(seats: pd.DataFrame, by: str, fair: float) -> pd.DataFrame:
    """Win rate (``place`` 1, a shared win included) by seat or preset, beside the fair rate,
    tested as the balance report does: the score test Wilson's interval inverts, Holm across
    the seats (or presets), and the Wilson interval at Holm's level, which leaves the fair
    rate out exactly when Holm p < 0.05. A 95% interval of each row alone could leave it
    out while the report, among that many rows, finds nothing."""
    won = (seats["place"] == 1).groupby(seats[by], sort=True, observed=True)
    table = pd.DataFrame({"seats": won.size(), "wins": won.sum()})
    interval, p = wilson_test(table["wins"].to_numpy(), table["seats"].to_numpy(), fair)
    p_holm, low, high = holm_intervals(p, interval)
    return pd.DataFrame({by: table.index.to_numpy(), "seats": table["seats"].to_numpy(),
                         "win_rate": (table["wins"] / table["seats"]).to_numpy(),
                         "holm_low": low, "holm_high": high, "p_holm": p_holm, "fair": fair})


def _mixture_table(manifest: dict, seats: pd.DataFrame, players: int) -> pd.DataFrame:
    """:func:`nop_sim.games.agent_files.mixture_rows` of one point's seats."""
    table = mixture_rows(seats, manifest.get("agent_files"), lambda point: players)
    return table[["preset", "row", "weight", "seats", "share", "win_rate", "ci_low", "ci_high"]]


def _strong_lines(strong: tuple[pd.DataFrame, pd.DataFrame], point: int) -> list[str]:
    """A point's field and mechanic values (``sweep --train --value``), in points."""
    trained, values = strong
    t = trained[trained["point"] == point]
    if not len(t):
        return []
    r = t.iloc[0]
    lines = [f"Under strong play (a field trained for this point): a deviation gains at least "
             f"{r['exploitability']:+.1f} points ({r['exploitability_low']:+.1f} to "
             f"{r['exploitability_high']:+.1f}), found by a fresh search."]
    v = values[values["point"] == point]
    if len(v):
        lines += ["", "What each mechanic is worth to a strong player (win-rate points, 95% "
                  "interval):", "",
                  md_table(v[["mechanic", "value", "low", "high"]], digits=3)]
    return lines


def write_summary(out: str | Path) -> Path:
    """Write ``summary.md`` into a finished run folder and return its path."""
    out = Path(out)
    load_tables(out, ())  # a folder that is not a run: one clear line
    game = run_game(out)
    manifest = json.loads((out / "manifest.json").read_text())
    totals = manifest["totals"]
    work = totals.get(game.work, totals.get("hands"))  # "hands": a store before the registry
    lines = [f"# {manifest['scenario']['name']}: run summary", "",
             f"Seed {manifest['seed']}, {manifest['matches_per_point']} matches per point, "
             f"{manifest['n_points']} point(s), {work:,} {game.work}.", ""]
    strong = load_strong_play(out)
    for point in manifest["points"]:
        p = point["point"]
        # one point's rows at a time: memory stays flat however large the sweep
        tables = load_tables(out, tuple(t for t in ("matches", "seats", "counts", "drafts")
                                        if t in game.tables), point=p,
                             columns=game.summary_columns or None)
        matches, s = tables["matches"], tables["seats"]
        summary = point_summary(tables, game)
        lines.append(f"## Point {p}" + (f": {point['params']}" if point["params"] else ""))
        lines.append("")
        lines.append(md_table(summary.drop(columns="point"), digits=3))
        if strong is not None:
            lines += ["", *_strong_lines(strong, p)]
        players = int(point["settings"].get("players", s["seat"].nunique()))
        fair = game.fair_win_rate(matches, players)
        for by in ("seat", "preset"):
            table = _seat_table(s, by, fair)
            table["p_holm"] = [pval(x) for x in table["p_holm"]]   # never "0.000"
            lines += ["", f"Win rate by {by}: Holm-adjusted 95% interval (Wilson, at the level "
                          f"Holm's correction across the {by}s holds it to) and Holm p; the "
                          f"interval leaves the fair rate out exactly when Holm p < 0.05:", "",
                      md_table(table, digits=3)]
        if "mix_row" in s.columns and (s["mix_row"] >= 0).any():
            lines += ["", "Mixture rows: the row of a mixture agent file each seat played "
                      "(its share of the file's seats beside its weight; win rate, 95% "
                      "Wilson interval):", "", md_table(_mixture_table(manifest, s, players), digits=3)]
        lines.append("")
    path = out / "summary.md"
    path.write_text("\n".join(lines) + "\n")
    return path

