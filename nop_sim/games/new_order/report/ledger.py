"""Manipulation and hedging: the sections on the Ledger and on hedging tokens."""

from __future__ import annotations

import numpy as np
import pandas as pd

from nop_sim import reporting as R
from nop_sim.games.new_order import analysis as A
from nop_sim.games.new_order.report.common import _cis, _hand_limit, _Point
from nop_sim.reporting import PALETTE, Note, Table, count, isnum, num, num_ci, pct_ci


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
