"""The Ordered Hand report: figures and tables of a finished run, as HTML and Markdown.

:func:`write_ordered_report` reads a results folder of an ``ordered-hand``
scenario (see :mod:`nop_sim.runner`), computes the summaries of
:mod:`nop_sim.ordered.analysis` and writes, in the same folder:

- ``report.html``: one self-contained file, figures embedded as base64 PNG;
- ``report.md``: the same text and tables, figures as ``figures/ordered_*.png``;
- ``tables/ordered_*.csv``: the table behind each section.

Sections: first-player advantage, game length, how games end, block types
played, middle clears, win rate by preset and, when any point uses the
advanced rules, betting. Figures use matplotlib's Agg renderer through
:class:`matplotlib.figure.Figure` (no pyplot state) and the Okabe-Ito
colour-blind safe palette.
"""

from __future__ import annotations

import base64
import html
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from nop_sim.ordered import analysis as A

__all__ = ["PALETTE", "SECTIONS", "write_ordered_report"]

matplotlib.use("Agg")

# Okabe & Ito (2008): distinguishable with every common colour-vision deficiency.
PALETTE = {"blue": "#0072B2", "orange": "#E69F00", "green": "#009E73",
           "vermillion": "#D55E00", "purple": "#CC79A7", "sky": "#56B4E9",
           "black": "#000000", "yellow": "#F0E442", "grey": "#999999"}
CYCLE = [PALETTE[c] for c in ("blue", "orange", "green", "vermillion", "purple", "sky", "black")]
END_COLOURS = {"emptied": PALETTE["green"], "stock_out": PALETTE["blue"],
               "shared": PALETTE["orange"], "capped": PALETTE["vermillion"]}
STYLE = {
    "axes.prop_cycle": matplotlib.cycler(color=CYCLE),
    "axes.spines.top": False, "axes.spines.right": False,
    "axes.grid": True, "grid.color": "#dddddd", "grid.linewidth": 0.6,
    "axes.titlesize": 11, "axes.labelsize": 10, "legend.fontsize": 9,
    "legend.frameon": False, "font.size": 10,
}
WIDTH = 9.0
DPI = 100
MAX_OVERLAID = 6  # points drawn as separate series before a figure switches to a summary

SECTIONS = ("overview", "first_player", "game_length", "ends", "blocks", "clears", "presets",
            "betting")


@dataclass
class _Section:
    key: str
    title: str
    text: list[str] = field(default_factory=list)
    tables: list[tuple[str, pd.DataFrame]] = field(default_factory=list)
    figures: list[tuple[str, str, Figure]] = field(default_factory=list)  # name, caption, fig


# ---------------------------------------------------------------------------
def _figure(height: float, ncols: int = 1) -> tuple[Figure, list]:
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(WIDTH, height), dpi=DPI, layout="constrained")
        axes = fig.subplots(1, ncols, squeeze=False)[0]
    return fig, list(axes)


def _pct(v: float) -> str:
    return "" if v is None or not np.isfinite(v) else f"{100 * v:.1f}%"


def _pval(p: float) -> str:
    """``p = 0.0123``, ``p < 0.0001`` or ``p n/a``."""
    if p is None or not np.isfinite(p):
        return "p n/a"
    return "p < 0.0001" if p < 1e-4 else f"p = {p:.4f}"


def _hbar_ci(ax, labels, rates, lows, highs, fair=None, colour=PALETTE["blue"], legend=True,
            percent=True):
    """Dot-and-whisker rows (rate, 95% interval), with a dashed fair-share tick per row."""
    y = np.arange(len(labels))[::-1]
    rates = np.asarray(rates, dtype=float)
    err = np.clip(np.vstack([rates - np.asarray(lows, dtype=float),
                             np.asarray(highs, dtype=float) - rates]), 0, None)
    ax.errorbar(rates, y, xerr=err, fmt="o", color=colour, ecolor=colour, capsize=4, ms=6,
                lw=1.6, label="rate, 95% interval")
    if fair is not None:
        fair = np.asarray(fair, dtype=float)
        ax.vlines(fair, y - 0.35, y + 0.35, colors=PALETTE["vermillion"], linestyles="--",
                  lw=1.6, label="fair share")
    if legend:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.6, len(labels) - 0.4)
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(6))
    if percent:
        ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.grid(axis="y", visible=False)


def _rows_height(n: int) -> float:
    return 1.5 + 0.32 * n


# ---------------------------------------------------------------------------
def _first_player(tables, labels) -> _Section:
    sec = _Section("first_player", "First-player advantage")
    fp = A.first_player(tables)
    pos = A.position_win_rates(tables)
    sec.text.append("Share of games won (alone or shared) by the player who moves first, "
                    "against the fair share mean(winners per game) / players, with 95% Wilson "
                    "intervals. p (binomial): exact two-sided test of the first player's rate "
                    "against the fair share. p (chi-square): the turn position of the winner "
                    "(games with one winner) against a uniform spread over the positions.")
    for _, r in fp.iterrows():
        verdict = ("no significant " if not r["p_binomial"] < 0.01
                   else "a significant " if r["rate"] > r["fair"] else "a significant dis")
        sec.text.append(f"**{labels[r['point']]}**: the first player wins {_pct(r['rate'])} "
                        f"({_pct(r['ci_low'])}–{_pct(r['ci_high'])}) against a fair "
                        f"{_pct(r['fair'])}: {verdict}advantage at the 1% level "
                        f"({_pval(r['p_binomial'])}; position chi-square "
                        f"{r['chi2']:.1f} on {int(r['dof'])} df, {_pval(r['p_chi2'])}).")
    table = fp.assign(point=fp["point"].map(labels))
    sec.tables.append(("First player's win rate and tests", table))
    points = sorted(pos["point"].unique())
    if len(points) <= MAX_OVERLAID:
        fig, (ax,) = _figure(3.6)
        width = 0.8 / len(points)
        for i, p in enumerate(points):
            d = pos[pos["point"] == p]
            x = d["position"].to_numpy() + 1 + (i - (len(points) - 1) / 2) * width
            ax.errorbar(x, d["rate"], yerr=[d["rate"] - d["ci_low"], d["ci_high"] - d["rate"]],
                        fmt="o", capsize=3, color=CYCLE[i % len(CYCLE)], label=labels[p])
            fair = fp.loc[fp["point"] == p, "fair"].iloc[0]
            ax.hlines(fair, x.min() - 0.3, x.max() + 0.3, colors=CYCLE[i % len(CYCLE)],
                      linestyles=":", lw=1.2)
        ax.set_xlabel("position in turn order (1 = moves first)")
        ax.set_ylabel("win rate (95% Wilson interval)")
        ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
        ax.set_xticks(range(1, int(pos["position"].max()) + 2))
        ax.set_title("Win rate by position in turn order (dotted: fair share)")
        ax.legend(loc="best")
        sec.figures.append(("ordered_position_win_rate",
                            "Win rate by position in turn order, with 95% Wilson intervals.", fig))
    fig, (ax,) = _figure(_rows_height(len(fp)))
    _hbar_ci(ax, [labels[p] for p in fp["point"]], fp["rate"], fp["ci_low"], fp["ci_high"],
             fair=fp["fair"])
    ax.set_xlabel("first player's win rate (95% Wilson interval)")
    ax.set_title("First player's win rate against the fair share")
    sec.figures.append(("ordered_first_player",
                        "First player's win rate per point; dashed: fair share.", fig))
    return sec


def _game_length(tables, labels) -> _Section:
    sec = _Section("game_length", "Game length")
    gl = A.game_length(tables)
    m = tables["matches"]
    sec.text.append("Turns per game (every play, check, Bet, response and answer is a turn) "
                    "and cards drawn from the stock after the deal.")
    sec.tables.append(("Turns and cards drawn per game", gl.assign(point=gl["point"].map(labels))))
    points = sorted(m["point"].unique())
    fig, axes = _figure(3.6, 2)
    for ax, col, name in ((axes[0], "turns", "turns per game"),
                          (axes[1], "cards_drawn", "cards drawn per game")):
        if len(points) <= MAX_OVERLAID:
            lo, hi = int(m[col].min()), int(m[col].max())
            lo = max(0, lo - 2)
            bins = np.arange(lo - 0.5, hi + 1.5, max(1, int(np.ceil((hi - lo + 1) / 60))))
            for i, p in enumerate(points):
                x = m.loc[m["point"] == p, col]
                ax.hist(x, bins=bins, weights=np.full(len(x), 1 / len(x)), histtype="step",
                        lw=1.6, color=CYCLE[i % len(CYCLE)], label=labels[p])
                if len(points) == 1:
                    ax.hist(x, bins=bins, weights=np.full(len(x), 1 / len(x)),
                            color=CYCLE[0], alpha=0.3)
            ax.set_xlabel(name)
            ax.set_ylabel("share of games")
            ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
        else:
            d = gl.sort_values("point")
            y = np.arange(len(d))[::-1]
            ax.barh(y, d[f"{col}_median"], color=PALETTE["sky"], height=0.6, label="median")
            ax.errorbar(d[f"{col}_median"], y,
                        xerr=[d[f"{col}_median"] - d[f"{col}_q1"],
                              d[f"{col}_q3"] - d[f"{col}_median"]],
                        fmt="none", ecolor=PALETTE["black"], capsize=3, label="quartiles")
            ax.set_yticks(y, [labels[p] for p in d["point"]])
            ax.set_xlabel(f"{name} (median, quartiles)")
        ax.set_title(name.capitalize())
    axes[0].legend(loc="best")
    sec.figures.append(("ordered_game_length",
                        "Distribution of turns and cards drawn per game.", fig))
    return sec


def _ends(tables, labels) -> _Section:
    sec = _Section("ends", "How games end")
    e = A.ends(tables)
    sec.text.append("emptied: a player played their last card; stock_out: the last stock card "
                    "was drawn and one player had fewest cards (or the best hand among the "
                    "fewest); shared: still tied, the win is shared; capped: the game hit "
                    "max_turns and was decided like a stock-out.")
    wide = e.pivot(index="point", columns="end", values="share")[list(A.END_KINDS)]
    sec.tables.append(("Share of games by end", e.assign(point=e["point"].map(labels))))
    fig, (ax,) = _figure(_rows_height(len(wide)))
    y = np.arange(len(wide))[::-1]
    left = np.zeros(len(wide))
    for kind in A.END_KINDS:
        v = wide[kind].to_numpy()
        ax.barh(y, v, left=left, color=END_COLOURS[kind], height=0.6, label=kind)
        left += v
    ax.set_yticks(y, [labels[p] for p in wide.index])
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set_xlabel("share of games")
    ax.set_title("How games end")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="y", visible=False)
    sec.figures.append(("ordered_ends", "Share of games by how they end.", fig))
    return sec


def _blocks(tables, labels) -> _Section:
    sec = _Section("blocks", "Block types played")
    b = A.block_plays(tables)
    sec.text.append("Blocks played, by category and size (one deck fixes a block's size by its "
                    "category: High Card 1, One Pair 2, Three of a Kind 3, Two Pair and Four of "
                    "a Kind 4, the rest 5 cards). Share of all plays, and plays per game.")
    b = b[b["category_id"].isin(_ONE_DECK_CATEGORIES)] if not b.empty else b
    sec.tables.append(("Plays by category", b.assign(point=b["point"].map(labels))))
    by_size = b.groupby(["point", "size"])["plays"].sum().unstack(fill_value=0)
    by_size = by_size.div(by_size.sum(axis=1).replace(0, 1), axis=0)
    sec.tables.append(("Share of plays by block size",
                       by_size.rename(index=labels).rename(columns=lambda s: f"{s} card(s)")
                       .reset_index()))
    points = sorted(b["point"].unique())
    cats = (b.drop_duplicates("category_id").sort_values(["size", "category_id"]))
    fig, (ax,) = _figure(3.8)
    shown = points[:MAX_OVERLAID]
    width = 0.8 / max(len(shown), 1)
    x = np.arange(len(cats))
    for i, p in enumerate(shown):
        d = b[b["point"] == p].set_index("category_id").reindex(cats["category_id"])
        ax.bar(x + (i - (len(shown) - 1) / 2) * width, d["share"].fillna(0), width=width,
               color=CYCLE[i % len(CYCLE)], label=labels[p])
    ax.set_xticks(x, [f"{c} ({s})" for c, s in zip(cats["category"], cats["size"], strict=True)],
                  rotation=30, ha="right", fontsize=9)
    ax.set_xlabel("block category (cards in the block)")
    ax.set_ylabel("share of all plays")
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set_title("Block types played" + (f" (first {len(shown)} points)"
                                         if len(points) > len(shown) else ""))
    if len(shown) > 1:
        ax.legend(loc="best")
    sec.figures.append(("ordered_blocks", "Share of plays by block category and size.", fig))
    return sec


def _clears(tables, labels) -> _Section:
    sec = _Section("clears", "How often the middle is cleared")
    c = A.middle_clears(tables)
    sec.text.append("A full round of checks clears the middle and hands the lead to the first "
                    "checker. Clears per game (mean, 95% interval), per 100 turns, and the share "
                    "of games with at least one clear (Wilson interval).")
    sec.tables.append(("Middle clears", c.assign(point=c["point"].map(labels))))
    m = tables["matches"]
    points = sorted(m["point"].unique())
    fig, axes = _figure(max(3.4, _rows_height(len(points))), 2)
    ax = axes[0]
    if len(points) <= MAX_OVERLAID:
        bins = np.arange(-0.5, int(m["middle_clears"].max()) + 1.5)
        for i, p in enumerate(points):
            x = m.loc[m["point"] == p, "middle_clears"]
            ax.hist(x, bins=bins, weights=np.full(len(x), 1 / len(x)), histtype="step", lw=1.6,
                    color=CYCLE[i % len(CYCLE)], label=labels[p])
        ax.set_xlabel("middle clears per game")
        ax.set_ylabel("share of games")
        ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
        ax.set_title("Clears per game")
        if len(points) > 1:
            ax.legend(loc="upper right", fontsize=8)
    else:
        _hbar_ci(ax, [labels[p] for p in c["point"]], c["clears_per_game"],
                 c["clears_per_game"] - c["clears_ci"], c["clears_per_game"] + c["clears_ci"],
                 colour=PALETTE["blue"], legend=False, percent=False)
        ax.set_xlabel("middle clears per game (mean, 95% interval)")
        ax.set_title("Clears per game")
    _hbar_ci(axes[1], [labels[p] for p in c["point"]], c["games_with_clear"], c["ci_low"],
             c["ci_high"], colour=PALETTE["green"], legend=False)
    if len(points) > MAX_OVERLAID:
        axes[1].set_yticks([])
    axes[1].set_xlabel("games with at least one clear (95% Wilson)")
    axes[1].set_title("Games with a clear")
    sec.figures.append(("ordered_clears", "Middle clears per game and share of games with one.",
                        fig))
    return sec


def _presets(tables, labels) -> _Section:
    sec = _Section("presets", "Win rate by preset")
    w = A.preset_win_rates(tables)
    sec.text.append("Share of seats that win (alone or shared) by preset, with 95% Wilson "
                    "intervals, against the fair share. p_equal: chi-square test that every "
                    "preset at the point wins equally often.")
    for point, d in w.groupby("point", sort=True):
        best = d.loc[d["rate"].idxmax()]
        sec.text.append(f"**{labels[point]}**: best preset {best['preset']} at "
                        f"{_pct(best['rate'])} ({_pct(best['ci_low'])}–{_pct(best['ci_high'])}), "
                        f"fair {_pct(best['fair'])}; test of equal rates {_pval(d['p_equal'].iloc[0])}.")
    sec.tables.append(("Win rate by preset", w.assign(point=w["point"].map(labels))))
    multi = w["point"].nunique() > 1
    names = [f"{labels[p]}: {s}" if multi else s for p, s in zip(w["point"], w["preset"],
                                                                   strict=True)]
    fig, (ax,) = _figure(_rows_height(len(w)))
    _hbar_ci(ax, names, w["rate"], w["ci_low"], w["ci_high"], fair=w["fair"],
             colour=PALETTE["purple"])
    ax.set_xlabel("win rate (95% Wilson interval)")
    ax.set_title("Win rate by preset")
    sec.figures.append(("ordered_presets", "Win rate by preset; dashed: fair share.", fig))
    return sec


def _betting(tables, labels) -> _Section | None:
    b = A.betting(tables)
    if b.empty:
        return None
    sec = _Section("betting", "Betting (advanced rules)")
    sec.text.append("success: share of Bets the bettor made good (played a higher block on the "
                    "answer turn), Wilson interval. Does betting pay: win rate of seats that bet "
                    "at least once in a game against seats that never bet in it, and a "
                    "chi-square test of the difference. This is observational: agents bet when "
                    "they already hold a strong block.")
    for _, r in b[b["preset"] == "all seats"].iterrows():
        if not r["p_pays"] < 0.01:
            verdict = "no significant difference at the 1% level"
        elif r["win_if_bet"] > r["win_if_no_bet"]:
            verdict = "betting pays"
        else:
            verdict = "betting costs"
        sec.text.append(
            f"**{labels[r['point']]}**: {r['bets']:,} bets, {r['bets_per_game']:.2f} per game, "
            f"made good {_pct(r['success'])} ({_pct(r['ci_low'])}–{_pct(r['ci_high'])}). "
            f"Seats that bet win {_pct(r['win_if_bet'])}, seats that do not "
            f"{_pct(r['win_if_no_bet'])}: {verdict} ({_pval(r['p_pays'])}). "
            f"Responses: fold {_pct(r['folds_share'])}, call {_pct(r['calls_share'])}, "
            f"raise {_pct(r['raises_share'])}.")
    sec.tables.append(("Bets, success and win rates", b.assign(point=b["point"].map(labels))))
    d = b[b["bets"] > 0]
    multi = d["point"].nunique() > 1
    names = [f"{labels[p]}: {s}" if multi else s for p, s in zip(d["point"], d["preset"],
                                                                   strict=True)]
    fig, axes = _figure(_rows_height(len(d)) + 0.6, 2)
    _hbar_ci(axes[0], names, d["success"], d["ci_low"], d["ci_high"], colour=PALETTE["orange"],
             legend=False)
    axes[0].set_xlabel("bets made good (95% Wilson)")
    axes[0].set_title("Bettor's success rate")
    y = np.arange(len(d))[::-1]
    ax = axes[1]
    for off, col, lo, hi, colour, lab in (
            (0.15, "win_if_bet", "bet_ci_low", "bet_ci_high", PALETTE["blue"], "bet in game"),
            (-0.15, "win_if_no_bet", "nobet_ci_low", "nobet_ci_high", PALETTE["vermillion"],
             "no bet in game")):
        v = d[col].to_numpy(dtype=float)
        xerr = np.clip([v - d[lo].to_numpy(), d[hi].to_numpy() - v], 0, None)
        ax.errorbar(v, y + off, xerr=xerr, fmt="o",
                    color=colour, capsize=3, label=lab)
    ax.set_yticks(y, names)
    ax.set_ylim(-0.6, len(d) - 0.4)
    ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set_xlabel("seat win rate (95% Wilson)")
    ax.set_title("Does betting pay?")
    ax.legend(loc="best")
    sec.figures.append(("ordered_betting", "Bettor's success rate and win rate with and "
                                           "without a bet.", fig))
    return sec


def _overview(tables, labels, manifest) -> _Section:
    sec = _Section("overview", "Run")
    m = tables["matches"]
    totals = manifest.get("totals", {})
    sec.text.append(f"Scenario **{manifest['scenario']['name']}** (Ordered Hand), seed "
                    f"{manifest['seed']}, {manifest['matches_per_point']:,} games per point, "
                    f"{manifest['n_points']} point(s), {totals.get('matches', len(m)):,} games and "
                    f"{totals.get('hands', int(m['turns'].sum())):,} turns in all.")
    rows = []
    for p in manifest["points"]:
        s = p["settings"]
        rows.append({"point": labels[p["point"]], "players": s.get("players"),
                     "hand_size": s.get("hand_size"), "betting": s.get("betting"),
                     "max_turns": s.get("max_turns"), "seats": ", ".join(p["seats"]),
                     "column": s.get("column")})
    if manifest.get("rotation"):
        sec.text.append("Presets rotated over the seats game by game: "
                        + ", ".join(manifest["rotation"]) + ".")
    sec.tables.append(("Settings per point", pd.DataFrame(rows)))
    return sec


_ONE_DECK_CATEGORIES = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12)


# ---------------------------------------------------------------------------
def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()


def _fmt(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (float, np.floating)):
        if not np.isfinite(v):
            return ""
        return f"{v:.4g}" if abs(v) < 1e5 else f"{v:,.0f}"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}" if abs(int(v)) >= 10_000 else str(int(v))
    return str(v)


def _md_table(frame: pd.DataFrame) -> str:
    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(_fmt(v).replace("|", "/") for v in row) + " |"
            for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def _html_table(frame: pd.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(v))}</td>" for v in row) + "</tr>"
                   for row in frame.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _inline_md(text: str) -> str:
    """Escape, then turn **bold** into <strong>."""
    parts = html.escape(text).split("**")
    return "".join(f"<strong>{p}</strong>" if i % 2 else p for i, p in enumerate(parts))


_CSS = """body{font-family:system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}table{border-collapse:collapse;font-size:.85em;margin:.6em 0 1.2em;
display:block;overflow-x:auto}th,td{border:1px solid #ccc;padding:.25em .5em;text-align:right}
th{background:#f2f2f2}td:first-child,th:first-child{text-align:left}img{max-width:100%}
figure{margin:1em 0}figcaption{font-size:.85em;color:#555}h2{border-bottom:1px solid #ddd}"""


def write_ordered_report(out: str | Path) -> Path:
    """Write ``report.html``, ``report.md``, ``figures/`` and ``tables/`` into a finished
    ``ordered-hand`` run folder; returns the HTML path."""
    from nop_sim.runner import load_tables

    out = Path(out)
    tables = load_tables(out)
    manifest = json.loads((out / "manifest.json").read_text())
    labels = A.point_labels(manifest)
    sections = [_overview(tables, labels, manifest), _first_player(tables, labels),
                _game_length(tables, labels), _ends(tables, labels), _blocks(tables, labels),
                _clears(tables, labels), _presets(tables, labels)]
    bet = _betting(tables, labels)
    if bet is not None:
        sections.append(bet)
    (out / "figures").mkdir(exist_ok=True)
    (out / "tables").mkdir(exist_ok=True)
    title = f"{manifest['scenario']['name']}: Ordered Hand report"
    md = [f"# {title}", ""]
    body = [f"<h1>{html.escape(title)}</h1>"]
    for sec in sections:
        md += [f"## {sec.title}", ""]
        body.append(f'<h2 id="{sec.key}">{html.escape(sec.title)}</h2>')
        for para in sec.text:
            md += [para, ""]
            body.append(f"<p>{_inline_md(para)}</p>")
        for name, caption, fig in sec.figures:
            data = _png(fig)
            (out / "figures" / f"{name}.png").write_bytes(data)
            md += [f"![{caption}](figures/{name}.png)", "", f"*{caption}*", ""]
            b64 = base64.b64encode(data).decode("ascii")
            body.append(f'<figure><img alt="{html.escape(caption)}" '
                        f'src="data:image/png;base64,{b64}"><figcaption>'
                        f"{html.escape(caption)}</figcaption></figure>")
        for i, (caption, frame) in enumerate(sec.tables):
            frame.to_csv(out / "tables" / f"ordered_{sec.key}_{i}.csv", index=False)
            md += [f"**{caption}**", "", _md_table(frame), ""]
            body.append(f"<h3>{html.escape(caption)}</h3>{_html_table(frame)}")
    (out / "report.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    page = (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
            + "\n".join(body) + "</body></html>\n")
    path = out / "report.html"
    path.write_text(page, encoding="utf-8")
    return path
