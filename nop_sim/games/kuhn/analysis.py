"""Summaries of a Kuhn poker run with intervals (pandas only).

Every function takes the run's tables (:func:`nop_sim.results.store.load_tables`) and
returns a small DataFrame, one row per sweep point and group. Chips per hand carry
a 95% Student t interval (:func:`nop_sim.core.stats.mean_interval`); shares a 95%
Wilson interval. Beside each mean of ``chips`` stands the mean of
``expected_chips``, the exact expectation of the same seats' rows over the deal
and the cards (:mod:`.exact`): the simulation agrees with the rules when the
interval of their difference holds 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from nop_sim.core.stats import mean_interval, wilson_interval

__all__ = ["chips", "endings", "infosets", "point_labels"]


def point_labels(manifest: dict) -> dict[int, str]:
    """Short label of each sweep point: its swept values, or the scenario name."""
    return {p["point"]: (", ".join(f"{k}={v}" for k, v in (p.get("params") or {}).items())
                         or manifest["scenario"]["name"]) for p in manifest["points"]}


def chips(tables: dict[str, pd.DataFrame], by: str) -> pd.DataFrame:
    """Net chips per hand by ``by`` (``"preset"`` or ``"seat"``) per point: ``hands``,
    ``chips`` with ``ci_low``/``ci_high``, ``expected`` (the exact expectation of the
    rows played), ``gap_low``/``gap_high`` (the 95% interval of chips - expected: holds 0
    when the play matches the rules) and ``pot_share`` (pots won, Wilson interval)."""
    rows = []
    for (point, key), s in tables["seats"].groupby(["point", by], sort=True):
        x = s["chips"].to_numpy(float)
        m = mean_interval(x)
        gap = mean_interval(x - s["expected_chips"].to_numpy(float))
        won = int(s["won"].sum())
        lo, hi = wilson_interval(won, len(s))
        rows.append({"point": point, by: key, "hands": len(s), "chips": m["mean"],
                     "ci_low": m["ci_low"], "ci_high": m["ci_high"],
                     "expected": float(s["expected_chips"].mean()),
                     "gap_low": gap["ci_low"], "gap_high": gap["ci_high"],
                     "pot_share": won / len(s), "pot_low": float(lo), "pot_high": float(hi)})
    return pd.DataFrame(rows)


def endings(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """How hands end per point: the share of each final history (OpenSpiel's spelling),
    with Wilson intervals, whether it is a showdown, and the pot."""
    rows = []
    for point, m in tables["matches"].groupby("point", sort=True):
        n = len(m)
        for history, g in m.groupby("history", sort=True):
            lo, hi = wilson_interval(len(g), n)
            rows.append({"point": point, "history": history, "hands": len(g),
                         "share": len(g) / n, "ci_low": float(lo), "ci_high": float(hi),
                         "showdown": bool(g["showdown"].iloc[0]), "pot": int(g["pot"].iloc[0])})
    return pd.DataFrame(rows)


def infosets(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """How often each infoset was reached and bet (or called) at, per point, with the
    bet share's Wilson interval (NaN where never reached)."""
    a = tables["arrays"]
    a = a[a["table"] == "infosets"]
    wide = a.pivot_table(index=["point", "index", "label"], columns="stat", values="value",
                         aggfunc="sum").reset_index()
    reached = wide["reached"].to_numpy(float)
    bets = wide["bet"].to_numpy(float)
    lo, hi = wilson_interval(bets, reached)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(reached > 0, bets / reached, np.nan)
    return pd.DataFrame({"point": wide["point"], "infoset": wide["label"],
                         "reached": reached.astype(np.int64), "bets": bets.astype(np.int64),
                         "bet_share": share, "ci_low": lo, "ci_high": hi})
