"""Summaries of an Ordered Hand run with confidence intervals and tests (pandas only).

Every function takes the run's tables (:func:`nop_sim.results.store.load_tables`)
and returns a small DataFrame, one row per sweep point (and per preset,
position or category where it says). Rates carry 95% Wilson intervals, means
Student t intervals: the functions of :mod:`nop_sim.core.stats`, as in the New Order
analysis (``*_ci`` columns hold the half width).

A *win* is a game the seat wins alone or shares; with shared wins the rates of
a game's seats can add up to more than 1, so the fair share of a seat is
``mean(n_winners) / players``, not ``1 / players``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from nop_sim.core.column import Category
from nop_sim.core.stats import mean_half_width, wilson_interval

__all__ = [
    "END_KINDS",
    "betting",
    "block_plays",
    "ends",
    "first_player",
    "game_length",
    "middle_clears",
    "point_labels",
    "position_win_rates",
    "preset_win_rates",
]

END_KINDS = ("emptied", "stock_out", "shared", "capped")


def point_labels(manifest: dict) -> dict[int, str]:
    """Short label of each sweep point: its swept values, or the scenario name."""
    out = {}
    for p in manifest["points"]:
        params = p.get("params") or {}
        out[p["point"]] = (", ".join(f"{k}={v}" for k, v in params.items())
                           if params else manifest["scenario"]["name"])
    return out


def _winner_positions(m: pd.DataFrame) -> np.ndarray:
    """Turn position (0 = first player) of a single winner."""
    return (m["winner"].to_numpy() - m["first_player"].to_numpy()) % m["players"].to_numpy()


def first_player(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """First-player advantage per point.

    ``rate``: share of games the first player wins (alone or shared);
    ``fair``: ``mean(n_winners) / players``; ``p_binomial``: two-sided exact
    binomial test of ``rate == fair``; ``chi2`` / ``p_chi2``: goodness of fit
    of the winner's turn position (games with one winner) to uniform.
    """
    seats = tables["seats"]
    rows = []
    for point, m in tables["matches"].groupby("point", sort=True):
        s = seats[(seats["point"] == point) & seats["is_first"]]
        n, wins = len(s), int(s["won"].sum())
        players = int(m["players"].iloc[0])
        fair = float(m["n_winners"].mean()) / players
        lo, hi = wilson_interval(wins, n)
        p_binom = stats.binomtest(wins, n, min(max(fair, 1e-12), 1 - 1e-12)).pvalue if n else np.nan
        single = m[m["n_winners"] == 1]
        observed = np.bincount(_winner_positions(single), minlength=players)
        if len(single) and players > 1:
            chi2, p_chi2 = stats.chisquare(observed)
        else:
            chi2, p_chi2 = np.nan, np.nan
        rows.append({"point": point, "players": players, "games": n, "first_wins": wins,
                     "rate": wins / n if n else np.nan, "ci_low": float(lo), "ci_high": float(hi),
                     "fair": fair, "advantage": wins / n - fair if n else np.nan,
                     "p_binomial": float(p_binom), "chi2": float(chi2), "dof": players - 1,
                     "p_chi2": float(p_chi2)})
    return pd.DataFrame(rows)


def position_win_rates(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Win rate by turn position (0 = first player) per point, with Wilson intervals."""
    seats = tables["seats"]
    first = tables["matches"][["point", "match", "first_player", "players"]]
    s = seats[["point", "match", "seat", "won"]].merge(first, on=["point", "match"], how="left")
    s["position"] = (s["seat"] - s["first_player"]) % s["players"]
    g = s.groupby(["point", "position"], sort=True)["won"].agg(["sum", "size"]).reset_index()
    lo, hi = wilson_interval(g["sum"], g["size"])
    return pd.DataFrame({"point": g["point"], "position": g["position"], "games": g["size"],
                         "wins": g["sum"], "rate": g["sum"] / g["size"], "ci_low": lo,
                         "ci_high": hi})


def game_length(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Turns and cards drawn per game: mean (with interval), median, quartiles, max."""
    rows = []
    for point, m in tables["matches"].groupby("point", sort=True):
        row = {"point": point, "games": len(m)}
        for col in ("turns", "cards_drawn"):
            x = m[col].to_numpy(dtype=float)
            half = mean_half_width(x.std(ddof=1) if len(x) > 1 else np.nan, len(x))
            row.update({f"{col}_mean": x.mean(), f"{col}_mean_ci": half,
                        f"{col}_median": float(np.median(x)),
                        f"{col}_q1": float(np.percentile(x, 25)),
                        f"{col}_q3": float(np.percentile(x, 75)), f"{col}_max": int(x.max())})
        rows.append(row)
    return pd.DataFrame(rows)


def ends(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """How games end per point: share of each end kind with Wilson intervals."""
    rows = []
    for point, m in tables["matches"].groupby("point", sort=True):
        n = len(m)
        for kind in END_KINDS:
            k = int((m["end"] == kind).sum())
            lo, hi = wilson_interval(k, n)
            rows.append({"point": point, "end": kind, "games": k, "share": k / n,
                         "ci_low": float(lo), "ci_high": float(hi)})
    return pd.DataFrame(rows)


def block_plays(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Blocks played by category (and so by size) per point: count, share, per game.

    One deck makes a block's size a function of its category (High Card 1,
    One Pair 2, Three of a Kind 3, Two Pair and Four of a Kind 4, the rest 5).
    """

    size_of = {Category.HIGH_CARD: 1, Category.ONE_PAIR: 2, Category.THREE_OF_A_KIND: 3,
               Category.TWO_PAIR: 4, Category.FOUR_OF_A_KIND: 4}
    a = tables["arrays"]
    a = a[(a["table"] == "plays") & (a["stat"] == "category")]
    games = tables["matches"].groupby("point").size()
    rows = []
    for (point, index, label), v in a.groupby(["point", "index", "label"], sort=True)["value"]:
        rows.append({"point": point, "category": label, "category_id": int(index),
                     "size": size_of.get(Category(int(index)), 5), "plays": int(v.sum())})
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    total = out.groupby("point")["plays"].transform("sum")
    out["share"] = out["plays"] / total.where(total > 0, 1)
    out["per_game"] = out["plays"] / out["point"].map(games)
    return out.sort_values(["point", "size", "category_id"], ignore_index=True)


def middle_clears(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """How often a round of checks clears the middle, per point."""
    rows = []
    for point, m in tables["matches"].groupby("point", sort=True):
        x = m["middle_clears"].to_numpy(dtype=float)
        n = len(x)
        k = int((x > 0).sum())
        lo, hi = wilson_interval(k, n)
        turns = float(m["turns"].sum())
        half = mean_half_width(x.std(ddof=1) if n > 1 else np.nan, n)
        rows.append({"point": point, "games": n, "clears_per_game": x.mean(),
                     "clears_ci": half, "per_100_turns": 100 * x.sum() / max(turns, 1),
                     "games_with_clear": k / n, "ci_low": float(lo), "ci_high": float(hi)})
    return pd.DataFrame(rows)


def preset_win_rates(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Win rate by preset per point, Wilson intervals, and a chi-square test of equal rates.

    ``p_equal`` (one value per point, on every row of it): chi-square test of
    independence of preset and win (a single preset gives NaN).
    """
    rows = []
    for point, s in tables["seats"].groupby("point", sort=True):
        m = tables["matches"][tables["matches"]["point"] == point]
        fair = float(m["n_winners"].mean()) / int(m["players"].iloc[0])
        g = s.groupby("preset", sort=True)["won"].agg(["sum", "size"])
        if len(g) > 1:
            table = np.c_[g["sum"], g["size"] - g["sum"]]
            p_equal = (stats.chi2_contingency(table)[1] if (table.sum(axis=0) > 0).all()
                       else np.nan)
        else:
            p_equal = np.nan
        lo, hi = wilson_interval(g["sum"], g["size"])
        for (preset, r), a, b in zip(g.iterrows(), lo, hi, strict=True):
            rows.append({"point": point, "preset": preset, "seats": int(r["size"]),
                         "wins": int(r["sum"]), "rate": r["sum"] / r["size"],
                         "ci_low": float(a), "ci_high": float(b), "fair": fair,
                         "p_equal": float(p_equal)})
    return pd.DataFrame(rows)


def betting(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The advanced rules, per point and preset (points with bets only).

    ``success``: share of bets the bettor made good (played on the answer
    turn), with a Wilson interval. ``win_if_bet`` / ``win_if_no_bet``: win
    rate of seats that bet at least once in the game vs seats that never bet;
    ``p_pays``: chi-square test of that 2x2 table. An observational contrast:
    a seat bets when it already holds a strong block.
    """
    m = tables["matches"]
    if "bets_made" not in m or not (m["bets_made"] > 0).any():
        return pd.DataFrame()
    rows = []
    seats = tables["seats"]
    for point, s in seats.groupby("point", sort=True):
        if not (s["bets_made"] > 0).any():
            continue
        for preset, g in [("all seats", s), *s.groupby("preset", sort=True)]:
            made, good = int(g["bets_made"].sum()), int(g["bets_won"].sum())
            lo, hi = wilson_interval(good, made)
            bet = g["bets_made"] > 0
            w1, n1 = int(g.loc[bet, "won"].sum()), int(bet.sum())
            w0, n0 = int(g.loc[~bet, "won"].sum()), int((~bet).sum())
            table = np.array([[w1, n1 - w1], [w0, n0 - w0]])
            p_pays = (stats.chi2_contingency(table)[1]
                      if n1 and n0 and (table.sum(axis=0) > 0).all() else np.nan)
            l1, h1 = wilson_interval(w1, n1)
            l0, h0 = wilson_interval(w0, n0)
            rows.append({"point": point, "preset": preset, "bets": made,
                         "bets_per_game": made / g["match"].nunique(), "made_good": good,
                         "success": good / made if made else np.nan, "ci_low": float(lo),
                         "ci_high": float(hi), "seats_betting": n1,
                         "win_if_bet": w1 / n1 if n1 else np.nan, "bet_ci_low": float(l1),
                         "bet_ci_high": float(h1),
                         "win_if_no_bet": w0 / n0 if n0 else np.nan, "nobet_ci_low": float(l0),
                         "nobet_ci_high": float(h0), "p_pays": float(p_pays)})
    out = pd.DataFrame(rows)
    resp = m.groupby("point")[["folds", "calls", "raises"]].sum()
    total = resp.sum(axis=1).replace(0, 1)
    for col in ("folds", "calls", "raises"):
        out[f"{col}_share"] = out["point"].map(resp[col] / total)
    return out
