"""The Ordered Hand report: figures and tables of a finished run, as HTML and Markdown.

:func:`write_report` reads a results folder of an ``ordered-hand``
scenario (see :mod:`nop_sim.results.store`), computes the summaries of
:mod:`nop_sim.games.ordered_hand.analysis` and writes, with the toolkit of
:mod:`nop_sim.reporting`, in the same folder:

- ``report.html``: one self-contained file, figures embedded as base64 PNG;
- ``report.md``: the same text and tables, figures as ``figures/ordered_*.png``;
- ``tables/ordered_*.csv``: the tables behind each section.

The sections are :data:`REPORT_SECTIONS`: the run, first-player advantage,
game length, how games end, block types played, middle clears, win rate by
preset and, when any point uses the advanced rules, betting. Each is one
small function of an :class:`_Ordered` context.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim import reporting as R
from nop_sim.games.ordered_hand import analysis as A
from nop_sim.reporting import CYCLE, PALETTE, Note, SectionSpec, Table, interval_err
from nop_sim.results.store import load_tables

__all__ = ["REPORT_SECTIONS", "SECTIONS", "write_report"]

END_COLOURS = {"emptied": PALETTE["green"], "stock_out": PALETTE["blue"],
               "shared": PALETTE["orange"], "capped": PALETTE["vermillion"]}
MAX_OVERLAID = 6  # points drawn as separate series before a figure switches to a summary
TICKS = 6         # value ticks of a dot-and-interval panel: its percent labels are long
_ONE_DECK_CATEGORIES = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12)


@dataclass
class _Ordered:
    """What the sections share: the run's tables, its manifest and a label per point."""

    tables: dict[str, pd.DataFrame]
    manifest: dict
    labels: dict[int, str]

    def table(self, key: str, i: int, caption: str, frame: pd.DataFrame) -> Table:
        """A raw table, shown whole and written to ``tables/ordered_<key>_<i>.csv``; its
        ``point`` column (point ids) is shown as labels."""
        if "point" in frame:
            frame = frame.assign(point=frame["point"].map(self.labels))
        return Table(frame, caption, csv=f"ordered_{key}_{i}.csv")

    def names(self, points, presets) -> list[str]:
        """Row labels ``point: preset``, or the preset alone when there is one point."""
        multi = len(set(points)) > 1
        return [f"{self.labels[p]}: {s}" if multi else s
                for p, s in zip(points, presets, strict=True)]


def _pct(v: float) -> str:
    return "" if v is None or not np.isfinite(v) else f"{100 * v:.1f}%"


def _pval(p: float) -> str:
    """``p = 0.0123``, ``p < 0.0001`` or ``p n/a``."""
    if p is None or not np.isfinite(p):
        return "p n/a"
    return "p < 0.0001" if p < 1e-4 else f"p = {p:.4f}"


def _rows_height(n: int) -> float:
    return 1.5 + 0.32 * n


def _share_hist(ax, m: pd.DataFrame, col: str, bins, labels, fill: bool) -> None:
    """One step histogram per point (shares of its games), filled under a single one."""
    points = sorted(m["point"].unique())
    for i, p in enumerate(points):
        x = m.loc[m["point"] == p, col]
        w = np.full(len(x), 1 / len(x))
        ax.hist(x, bins=bins, weights=w, histtype="step", lw=1.6, color=CYCLE[i % len(CYCLE)],
                label=labels[p])
        if fill and len(points) == 1:
            ax.hist(x, bins=bins, weights=w, color=CYCLE[0], alpha=0.3)
    ax.set_ylabel("share of games")
    R.percent_axis(ax.yaxis)


# ---------------------------------------------------------------------------
def _overview(o: _Ordered) -> list:
    m, mf = o.tables["matches"], o.manifest
    totals = mf.get("totals", {})
    blocks = [Note(f"Scenario **{mf['scenario']['name']}** (Ordered Hand), seed {mf['seed']}, "
                   f"{mf['matches_per_point']:,} games per point, {mf['n_points']} point(s), "
                   f"{totals.get('matches', len(m)):,} games and "
                   f"{totals.get('hands', int(m['turns'].sum())):,} turns in all.")]
    if mf.get("rotation"):
        blocks.append(Note("Presets rotated over the seats game by game: "
                           + ", ".join(mf["rotation"]) + "."))
    rows = [{"point": p["point"], "players": p["settings"].get("players"),
             "hand_size": p["settings"].get("hand_size"),
             "betting": p["settings"].get("betting"),
             "max_turns": p["settings"].get("max_turns"), "seats": ", ".join(p["seats"]),
             "column": p["settings"].get("column")} for p in mf["points"]]
    settings = pd.DataFrame(rows)
    table = o.table("overview", 0, "Settings per point", settings)
    if settings["column"].nunique() == 1:     # one long column: say it once, not per row
        blocks.append(Note(f"Ranking column at every point: {settings['column'].iloc[0]}."))
        table.full, table.frame = table.frame, table.frame.drop(columns="column")
    return blocks + [table]


def _first_player(o: _Ordered) -> list:
    fp = A.first_player(o.tables)
    blocks = []
    for _, r in fp.iterrows():
        verdict = ("no significant " if not r["p_binomial"] < 0.01
                   else "a significant " if r["rate"] > r["fair"] else "a significant dis")
        blocks.append(Note(
            f"**{o.labels[r['point']]}**: the first player wins {_pct(r['rate'])} "
            f"({_pct(r['ci_low'])}–{_pct(r['ci_high'])}) against a fair {_pct(r['fair'])}: "
            f"{verdict}advantage at the 1% level ({_pval(r['p_binomial'])}; position "
            f"chi-square {r['chi2']:.1f} on {int(r['dof'])} df, {_pval(r['p_chi2'])})."))
    blocks += _position_figure(o, fp)
    fig, axes = R.figure(_rows_height(len(fp)))
    ax = axes[0, 0]
    R.hbar_ci(ax, [o.labels[p] for p in fp["point"]], fp["rate"], fp["ci_low"], fp["ci_high"],
              ref=fp["fair"], ref_label="fair share", label="rate, 95% interval",
              max_ticks=TICKS)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_xlabel("first player's win rate (95% Wilson interval)")
    ax.set_title("First player's win rate against the fair share")
    return blocks + [R.png(fig, "ordered_first_player",
                           "First player's win rate per point; dashed: fair share."),
                     o.table("first_player", 0, "First player's win rate and tests", fp)]


def _position_figure(o: _Ordered, fp: pd.DataFrame) -> list:
    pos = A.position_win_rates(o.tables)
    points = sorted(pos["point"].unique())
    if len(points) > MAX_OVERLAID:
        return []
    fig, axes = R.figure(3.6)
    ax = axes[0, 0]
    width = 0.8 / len(points)
    for i, p in enumerate(points):
        d = pos[pos["point"] == p]
        x = d["position"].to_numpy() + 1 + (i - (len(points) - 1) / 2) * width
        colour = CYCLE[i % len(CYCLE)]
        ax.errorbar(x, d["rate"], yerr=interval_err(d["rate"], d["ci_low"], d["ci_high"]),
                    fmt="o", color=colour, label=o.labels[p])
        ax.hlines(fp.loc[fp["point"] == p, "fair"].iloc[0], x.min() - 0.3, x.max() + 0.3,
                  colors=colour, linestyles=":", lw=1.2)
    ax.set_xlabel("position in turn order (1 = moves first)")
    ax.set_ylabel("win rate (95% Wilson interval)")
    R.percent_axis(ax.yaxis)
    ax.set_xticks(range(1, int(pos["position"].max()) + 2))
    ax.set_title("Win rate by position in turn order (dotted: fair share)")
    ax.legend(loc="best")
    return [R.png(fig, "ordered_position_win_rate",
                  "Win rate by position in turn order, with 95% Wilson intervals.")]


def _game_length(o: _Ordered) -> list:
    gl = A.game_length(o.tables)
    m = o.tables["matches"]
    overlaid = m["point"].nunique() <= MAX_OVERLAID
    fig, axes = R.figure(3.6, ncols=2)
    for ax, col, name in ((axes[0, 0], "turns", "turns per game"),
                          (axes[0, 1], "cards_drawn", "cards drawn per game")):
        if overlaid:
            lo, hi = max(0, int(m[col].min()) - 2), int(m[col].max())
            bins = np.arange(lo - 0.5, hi + 1.5, max(1, int(np.ceil((hi - lo + 1) / 60))))
            _share_hist(ax, m, col, bins, o.labels, fill=True)
            ax.set_xlabel(name)
        else:
            _median_bars(ax, gl, col, o.labels)
            ax.set_xlabel(f"{name} (median, quartiles)")
        ax.set_title(name.capitalize())
    axes[0, 0].legend(loc="best")
    return [R.png(fig, "ordered_game_length", "Distribution of turns and cards drawn per game."),
            o.table("game_length", 0, "Turns and cards drawn per game", gl)]


def _median_bars(ax, gl: pd.DataFrame, col: str, labels) -> None:
    """Median per point as a bar, quartiles as whiskers."""
    d = gl.sort_values("point")
    y = np.arange(len(d))[::-1]
    med = d[f"{col}_median"]
    ax.barh(y, med, color=PALETTE["sky"], height=0.6, label="median")
    ax.errorbar(med, y, xerr=interval_err(med, d[f"{col}_q1"], d[f"{col}_q3"]), fmt="none",
                ecolor=PALETTE["black"], capsize=3, label="quartiles")
    ax.set_yticks(y, [labels[p] for p in d["point"]])


def _ends(o: _Ordered) -> list:
    e = A.ends(o.tables)
    wide = e.pivot(index="point", columns="end", values="share")[list(A.END_KINDS)]
    fig, axes = R.figure(_rows_height(len(wide)))
    ax = axes[0, 0]
    y = np.arange(len(wide))[::-1]
    left = np.zeros(len(wide))
    for kind in A.END_KINDS:
        v = wide[kind].to_numpy()
        ax.barh(y, v, left=left, color=END_COLOURS[kind], height=0.6, label=kind)
        left += v
    ax.set_yticks(y, [o.labels[p] for p in wide.index])
    ax.set_xlim(0, 1)
    R.percent_axis(ax.xaxis)
    ax.set_xlabel("share of games")
    ax.set_title("How games end")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="y", visible=False)
    return [R.png(fig, "ordered_ends", "Share of games by how they end."),
            o.table("ends", 0, "Share of games by end", e)]


def _blocks(o: _Ordered) -> list:
    b = A.block_plays(o.tables)
    b = b[b["category_id"].isin(_ONE_DECK_CATEGORIES)] if not b.empty else b
    by_size = b.groupby(["point", "size"])["plays"].sum().unstack(fill_value=0)
    by_size = by_size.div(by_size.sum(axis=1).replace(0, 1), axis=0)
    by_size = by_size.rename(columns=lambda s: f"{s} card(s)")
    return [_blocks_figure(o, b), o.table("blocks", 0, "Plays by category", b),
            o.table("blocks", 1, "Share of plays by block size", by_size.reset_index())]


def _blocks_figure(o: _Ordered, b: pd.DataFrame) -> R.Figure:
    points = sorted(b["point"].unique())
    cats = b.drop_duplicates("category_id").sort_values(["size", "category_id"])
    shown = points[:MAX_OVERLAID]
    width = 0.8 / max(len(shown), 1)
    x = np.arange(len(cats))
    fig, axes = R.figure(3.8)
    ax = axes[0, 0]
    for i, p in enumerate(shown):
        d = b[b["point"] == p].set_index("category_id").reindex(cats["category_id"])
        ax.bar(x + (i - (len(shown) - 1) / 2) * width, d["share"].fillna(0), width=width,
               color=CYCLE[i % len(CYCLE)], label=o.labels[p])
    ax.set_xticks(x, [f"{c} ({s})" for c, s in zip(cats["category"], cats["size"], strict=True)],
                  rotation=30, ha="right", fontsize=9)
    ax.set_xlabel("block category (cards in the block)")
    ax.set_ylabel("share of all plays")
    R.percent_axis(ax.yaxis)
    ax.set_title("Block types played" + (f" (first {len(shown)} points)"
                                         if len(points) > len(shown) else ""))
    if len(shown) > 1:
        ax.legend(loc="best")
    return R.png(fig, "ordered_blocks", "Share of plays by block category and size.")


def _clears(o: _Ordered) -> list:
    c = A.middle_clears(o.tables)
    m = o.tables["matches"]
    n_points = m["point"].nunique()
    names = [o.labels[p] for p in c["point"]]
    fig, axes = R.figure(max(3.4, _rows_height(n_points)), ncols=2)
    ax = axes[0, 0]
    if n_points <= MAX_OVERLAID:
        bins = np.arange(-0.5, int(m["middle_clears"].max()) + 1.5)
        _share_hist(ax, m, "middle_clears", bins, o.labels, fill=False)
        ax.set_xlabel("middle clears per game")
        if n_points > 1:
            ax.legend(loc="upper right", fontsize=8)
    else:
        R.hbar_ci(ax, names, c["clears_per_game"], c["clears_per_game"] - c["clears_ci"],
                  c["clears_per_game"] + c["clears_ci"], percent=False, max_ticks=TICKS)
        ax.set_xlabel("middle clears per game (mean, 95% interval)")
    ax.set_title("Clears per game")
    ax = axes[0, 1]
    R.hbar_ci(ax, names, c["games_with_clear"], c["ci_low"], c["ci_high"],
              color=PALETTE["green"], max_ticks=TICKS)
    if n_points > MAX_OVERLAID:
        ax.set_yticks([])
    ax.set_xlabel("games with at least one clear (95% Wilson)")
    ax.set_title("Games with a clear")
    return [R.png(fig, "ordered_clears", "Middle clears per game and share of games with one."),
            o.table("clears", 0, "Middle clears", c)]


def _presets(o: _Ordered) -> list:
    w = A.preset_win_rates(o.tables)
    blocks = []
    for point, d in w.groupby("point", sort=True):
        best = d.loc[d["rate"].idxmax()]
        blocks.append(Note(
            f"**{o.labels[point]}**: best preset {best['preset']} at {_pct(best['rate'])} "
            f"({_pct(best['ci_low'])}–{_pct(best['ci_high'])}), fair {_pct(best['fair'])}; "
            f"test of equal rates {_pval(d['p_equal'].iloc[0])}."))
    fig, axes = R.figure(_rows_height(len(w)))
    ax = axes[0, 0]
    R.hbar_ci(ax, o.names(w["point"], w["preset"]), w["rate"], w["ci_low"], w["ci_high"],
              ref=w["fair"], ref_label="fair share", label="rate, 95% interval",
              color=PALETTE["purple"], max_ticks=TICKS)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_xlabel("win rate (95% Wilson interval)")
    ax.set_title("Win rate by preset")
    return blocks + [R.png(fig, "ordered_presets", "Win rate by preset; dashed: fair share."),
                     o.table("presets", 0, "Win rate by preset", w)]


def _betting_verdict(r: pd.Series) -> str:
    if not r["p_pays"] < 0.01:
        return "no significant difference at the 1% level"
    return "betting pays" if r["win_if_bet"] > r["win_if_no_bet"] else "betting costs"


def _betting(o: _Ordered) -> list | None:
    b = A.betting(o.tables)
    if b.empty:
        return None
    blocks = [Note(
        f"**{o.labels[r['point']]}**: {r['bets']:,} bets, {r['bets_per_game']:.2f} per game, "
        f"made good {_pct(r['success'])} ({_pct(r['ci_low'])}–{_pct(r['ci_high'])}). "
        f"Seats that bet win {_pct(r['win_if_bet'])}, seats that do not "
        f"{_pct(r['win_if_no_bet'])}: {_betting_verdict(r)} ({_pval(r['p_pays'])}). "
        f"Responses: fold {_pct(r['folds_share'])}, call {_pct(r['calls_share'])}, "
        f"raise {_pct(r['raises_share'])}.") for _, r in b[b["preset"] == "all seats"].iterrows()]
    return blocks + [_betting_figure(o, b[b["bets"] > 0]),
                     o.table("betting", 0, "Bets, success and win rates", b)]


def _betting_figure(o: _Ordered, d: pd.DataFrame) -> R.Figure:
    names = o.names(d["point"], d["preset"])
    fig, axes = R.figure(_rows_height(len(d)) + 0.6, ncols=2)
    R.hbar_ci(axes[0, 0], names, d["success"], d["ci_low"], d["ci_high"],
              color=PALETTE["orange"], max_ticks=TICKS)
    axes[0, 0].set_xlabel("bets made good (95% Wilson)")
    axes[0, 0].set_title("Bettor's success rate")
    ax = axes[0, 1]
    R.hbar_ci(ax, names, d["win_if_bet"], d["bet_ci_low"], d["bet_ci_high"], offset=0.15,
              label="bet in game", max_ticks=TICKS)
    R.hbar_ci(ax, names, d["win_if_no_bet"], d["nobet_ci_low"], d["nobet_ci_high"],
              color=PALETTE["vermillion"], offset=-0.15, marker="s", label="no bet in game",
              max_ticks=TICKS)
    ax.set_xlabel("seat win rate (95% Wilson)")
    ax.set_title("Does betting pay?")
    ax.legend(loc="best")
    return R.png(fig, "ordered_betting", "Bettor's success rate and win rate with and without "
                 "a bet.")


REPORT_SECTIONS = [
    SectionSpec("overview", "Run", "", _overview),
    SectionSpec("first_player", "First-player advantage",
                "Share of games won (alone or shared) by the player who moves first, against "
                "the fair share mean(winners per game) / players, with 95% Wilson intervals. "
                "p (binomial): exact two-sided test of the first player's rate against the "
                "fair share. p (chi-square): the turn position of the winner (games with one "
                "winner) against a uniform spread over the positions.", _first_player),
    SectionSpec("game_length", "Game length",
                "Turns per game (every play, check, Bet, response and answer is a turn) and "
                "cards drawn from the stock after the deal.", _game_length),
    SectionSpec("ends", "How games end",
                "emptied: a player played their last card; stock_out: the last stock card was "
                "drawn and one player had fewest cards (or the best hand among the fewest); "
                "shared: still tied, the win is shared; capped: the game hit max_turns and "
                "was decided like a stock-out.", _ends),
    SectionSpec("blocks", "Block types played",
                "Blocks played, by category and size (one deck fixes a block's size by its "
                "category: High Card 1, One Pair 2, Three of a Kind 3, Two Pair and Four of a "
                "Kind 4, the rest 5 cards). Share of all plays, and plays per game.", _blocks),
    SectionSpec("clears", "How often the middle is cleared",
                "A full round of checks clears the middle and hands the lead to the first "
                "checker. Clears per game (mean, 95% interval), per 100 turns, and the share "
                "of games with at least one clear (Wilson interval).", _clears),
    SectionSpec("presets", "Win rate by preset",
                "Share of seats that win (alone or shared) by preset, with 95% Wilson "
                "intervals, against the fair share. p_equal: chi-square test that every "
                "preset at the point wins equally often.", _presets),
    SectionSpec("betting", "Betting (advanced rules)",
                "success: share of Bets the bettor made good (played a higher block on the "
                "answer turn), Wilson interval. Does betting pay: win rate of seats that bet "
                "at least once in a game against seats that never bet in it, and a chi-square "
                "test of the difference. This is observational: agents bet when they already "
                "hold a strong block.", _betting),
]
SECTIONS = tuple(s.id for s in REPORT_SECTIONS)


def build_ordered_report(out: str | Path, strict: bool = False) -> R.Report:
    """The report of a finished ``ordered-hand`` run folder, built but not written."""
    out = Path(out)
    manifest = json.loads((out / "manifest.json").read_text())
    ctx = _Ordered(load_tables(out), manifest, A.point_labels(manifest))
    sections = R.build_sections(REPORT_SECTIONS, ctx, strict=strict)
    meta = (f"Ordered Hand, {manifest['n_points']} point(s), "
            f"{manifest['matches_per_point']:,} games per point, seed {manifest['seed']}; "
            f"finished {manifest.get('ended')}.")
    return R.Report(f"{manifest['scenario']['name']}: Ordered Hand report", meta, sections)


def write_report(out: str | Path) -> Path:
    """Write ``report.html``, ``report.md``, ``figures/`` and ``tables/`` into a finished
    ``ordered-hand`` run folder; returns the HTML path."""
    return R.write_report(build_ordered_report(out), out)
