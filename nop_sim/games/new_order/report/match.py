"""How long a match lasts and how fast the table thins out: the sections on match
length and chips."""

from __future__ import annotations

import numpy as np
import pandas as pd

from nop_sim import reporting as R
from nop_sim.games.new_order import analysis as A
from nop_sim.games.new_order.report.common import _cis, _hand_limit, _Point
from nop_sim.reporting import PALETTE, Note, Table, count, num, num_ci, pct_ci


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
