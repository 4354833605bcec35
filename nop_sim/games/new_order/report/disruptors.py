"""The Disruptors' section: per card, how often it is seen and taken, and whether its
drafters win more."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd

from nop_sim import reporting as R
from nop_sim.games.new_order import analysis as A
from nop_sim.games.new_order.report.common import HOLM, _cis, _lift_ci, _Point
from nop_sim.reporting import PALETTE, Note, Table, count, num_ci, pct, pct_ci, pval


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
                 "cards (Mantel-Haenszel, a Wald interval with Sato's variance, and its "
                 "test) and is the basis for "
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
