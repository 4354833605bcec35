"""Is a Disruptor too strong? Per card: how often it is revealed and picked, and what
drafting it does to a seat's win rate and to the match's length.

:func:`disruptor_stats` is one of New Order's analysis tables
(:mod:`nop_sim.games.new_order.analysis` hands it on, with the conventions of its
intervals and tests); the pooled differences it takes within strata are
:func:`nop_sim.core.stats.mantel_haenszel` and
:func:`~nop_sim.core.stats.stratified_mean_difference`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from nop_sim.core.stats import (
    ALPHA,
    holm_intervals,
    mantel_haenszel,
    newcombe_test,
    rate_columns,
    stratified_mean_difference,
    symmetric_test,
)
from nop_sim.results.run_data import RunData

__all__ = ["DRAFT_COLUMNS", "disruptor_stats", "lift_test"]

#: the columns of the drafts table the statistics read (it runs to millions of rows)
DRAFT_COLUMNS = ("point", "match", "seat", "card", "count")


def _disruptor_arrays(run: RunData) -> pd.DataFrame:
    a = run.table("arrays", "point", "table", "stat", "label", "value")
    d = a[a["table"] == "disruptor"]
    if d.empty:
        return pd.DataFrame(columns=["point", "card"])
    wide = d.pivot_table(index=["point", "label"], columns="stat", values="value",
                         aggfunc="sum", fill_value=0).reset_index()
    wide.columns.name = None
    return wide.rename(columns={"label": "card"})


def lift_test(lift, se):
    """:func:`~nop_sim.core.stats.symmetric_test` of adjusted lifts (``(interval, p)``),
    the interval at any level kept within [-1, 1], where a difference of two win rates
    lies (a thin run's Wald interval reached past +100 points)."""
    interval, p = symmetric_test(lift, se)

    def within(alpha):
        low, high = interval(alpha)
        return np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)

    return within, p


def disruptor_stats(run: RunData, min_effect: float = 0.05) -> pd.DataFrame:
    """Per point and card id: how often it is revealed, picked, picked first; the win
    rate of seats that drafted it vs seats that did not, and vs seats that drafted
    other cards; its effect on match length.

    - ``pick_rate`` = picks / revealed, ``first_share`` = picks by the best hand
      / picks (the pick order: high = taken first), Wilson intervals.
    - ``drafter_win_rate`` / ``other_win_rate``: win rate (place 1) of seats of
      a match that drafted the card at least once / that did not, Wilson
      intervals. ``lift`` is their difference with Newcombe's interval
      (``lift_low``, ``lift_high``) and the test it inverts (``p_value``),
      Holm across cards (``p_holm``) with the interval at Holm's level
      (``lift_holm_low``, ``lift_holm_high``). Drafting needs a won
      showdown, so drafters are winners more often whatever the card does:
      this comparison is not causal.
    - ``adjusted_lift``: the same difference within seats that drafted the
      same number of Disruptor cards in the match (Mantel-Haenszel risk
      difference over those strata, with a Wald interval from Sato's variance,
      clipped to [-1, 1], ``adjusted_low``, ``adjusted_high`` and the test it
      inverts, ``p_adjusted``; Holm across
      cards ``p_adjusted_holm``, with the interval at Holm's level
      ``adjusted_holm_low``, ``adjusted_holm_high``). A seat that drafts many
      cards won many showdowns; comparing like with like asks whether *this*
      card adds wins. ``outlier`` when the Holm p < 0.05 (so the interval at
      Holm's level leaves 0 out) *and* the adjusted lift is at least
      ``min_effect`` (5 points of win rate) either way: with a million hands
      tiny differences are "significant" but not worth a designer's time.
    - ``length_effect``: hands per match, matches where it was drafted minus
      matches where not, stratified by total cards drafted (see
      :func:`nop_sim.core.stats.stratified_mean_difference`), with an interval.
    """
    arrays = _disruptor_arrays(run)
    drafts = run.table("drafts", *DRAFT_COLUMNS)
    seats = run.table("seats", "point", "match", "seat", "place")
    matches = run.table("matches", "point", "match", "hands")
    keys = ["point", "chunk", "match"] if all("chunk" in t.columns for t in
                                               (drafts, seats, matches)) else ["point", "match"]
    rows = []
    for point in run.points:
        ap = arrays[arrays["point"] == point] if len(arrays) else arrays
        dp = drafts[drafts["point"] == point]
        sp = seats[seats["point"] == point][keys + ["seat", "place"]]
        mp = matches[matches["point"] == point][keys + ["hands"]]
        cards = sorted(set(ap["card"].astype(str)) | set(dp["card"].astype(str)))
        if not cards:
            continue
        # seat x card presence matrix, aligned with sp
        seat_key = sp[keys + ["seat"]].reset_index(drop=True)
        seat_key["_row"] = np.arange(len(seat_key))
        dj = dp.merge(seat_key, on=keys + ["seat"], how="inner")
        card_idx = {c: i for i, c in enumerate(cards)}
        present = np.zeros((len(seat_key), len(cards)), bool)
        present[dj["_row"].to_numpy(), dj["card"].astype(str).map(card_idx).to_numpy()] = True
        win = (sp["place"].to_numpy() == 1)
        seat_drafted = np.bincount(dj["_row"].to_numpy(), weights=dj["count"].to_numpy(),
                                   minlength=len(seat_key)).astype(np.int64)
        # match-level: has card, total cards drafted
        match_key = mp[keys].reset_index(drop=True)
        match_key["_m"] = np.arange(len(match_key))
        seat_match = seat_key.merge(match_key, on=keys, how="left")["_m"].to_numpy()
        n_m = len(match_key)
        has_match = np.zeros((n_m, len(cards)), bool)
        for j in range(len(cards)):
            has_match[np.unique(seat_match[present[:, j]]), j] = True
        total_drafted = np.bincount(dj.merge(match_key, on=keys)["_m"].to_numpy(),
                                    weights=dj.merge(match_key, on=keys)["count"].to_numpy(),
                                    minlength=n_m)
        hands = mp["hands"].to_numpy(float)
        for card in cards:
            j = card_idx[card]
            row: dict[str, Any] = {"point": point, "card": card}
            arow = ap[ap["card"].astype(str) == card]
            for stat in ("revealed", "picks", "picks_first", "applied", "discarded",
                         "hands_in_play", "owner_wins"):
                if stat in arow.columns:
                    row[stat] = int(arow[stat].sum())
            has = present[:, j]
            d_n, d_w = int(has.sum()), int((has & win).sum())
            o_n, o_w = int((~has).sum()), int((~has & win).sum())
            row.update(drafters=d_n, drafter_wins=d_w, others=o_n, other_wins=o_w)
            row["adjusted_lift"], row["adjusted_se"] = mantel_haenszel(win, has, seat_drafted)
            eff, lo, hi = stratified_mean_difference(hands, has_match[:, j], total_drafted)
            row.update(matches_with=int(has_match[:, j].sum()),
                       hands_with=float(hands[has_match[:, j]].mean()) if has_match[:, j].any()
                       else np.nan,
                       hands_without=float(hands[~has_match[:, j]].mean())
                       if (~has_match[:, j]).any() else np.nan,
                       length_effect=eff, length_low=lo, length_high=hi)
            rows.append(row)
    if not rows:
        return pd.DataFrame(columns=["point", "card"])
    g = pd.DataFrame(rows)
    if {"picks", "revealed"} <= set(g.columns):
        g = rate_columns(g, "picks", "revealed", "pick_rate")
    if {"picks_first", "picks"} <= set(g.columns):
        g = rate_columns(g, "picks_first", "picks", "first_share")
    g = rate_columns(g, "drafter_wins", "drafters", "drafter_win_rate")
    g = rate_columns(g, "other_wins", "others", "other_win_rate")
    # each p-value is its interval's test inverted, and Holm's level gives the interval
    # printed beside Holm p (holm_intervals)
    interval, p = newcombe_test(g["drafter_wins"], g["drafters"], g["other_wins"], g["others"])
    g["lift"] = g["drafter_win_rate"] - g["other_win_rate"]
    g["lift_low"], g["lift_high"] = interval(ALPHA)
    g["p_value"] = p
    g["p_holm"], g["lift_holm_low"], g["lift_holm_high"] = holm_intervals(p, interval,
                                                                           g["point"])
    interval, p = lift_test(g["adjusted_lift"], g["adjusted_se"])
    g["adjusted_low"], g["adjusted_high"] = interval(ALPHA)
    g["p_adjusted"] = p
    g["p_adjusted_holm"], g["adjusted_holm_low"], g["adjusted_holm_high"] = holm_intervals(
        p, interval, g["point"])
    g["outlier"] = (g["p_adjusted_holm"] < ALPHA) & (g["adjusted_lift"].abs() >= min_effect)
    return g
