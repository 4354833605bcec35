"""Balance statistics of a finished run: tidy pandas tables with intervals and tests.

Every function takes a run (``load_run(folder)``, a :class:`RunData`) and returns a
tidy :class:`pandas.DataFrame`, one row per (sweep point, thing measured),
so a notebook can filter, join and plot without the report::

    from nop_sim.games.new_order import analysis as A
    run = A.load_run("reports/baseline")
    A.seat_fairness(run)          # win rate per seat, Wilson interval, Holm-corrected test
    A.disruptor_stats(run).query("outlier")

Conventions
-----------
- A *rate* (k successes out of n trials) comes with a 95% Wilson interval
  (``ci_low``, ``ci_high``); a count per unit of exposure that can exceed one
  (hedge payouts per placement with ``hedge_scope = "match"``) gets an exact
  Poisson interval instead.
- A *mean* comes with a Student t interval over its independent units
  (matches, or seats of matches); a ratio of two sums over matches
  (manipulations per hand) with a delta-method interval that treats the
  match as the unit, so hands of one match are not counted as independent.
- The match-length median has a bootstrap interval (resampling matches).
- A family of tests (one per seat, preset, card, pair) is corrected with
  Holm's method (``p_holm``); ``outside`` / ``outlier`` means ``p_holm < 0.05``.
  Each p-value is its interval's test inverted (``p_value < 0.05`` exactly
  when the 95% interval leaves the tested value out), and ``holm_low`` /
  ``holm_high`` (``<name>_holm_low`` / ``_holm_high``) is that test's interval
  at the level Holm's procedure holds the row to: it leaves the tested value
  out exactly when ``p_holm < 0.05`` (:func:`~nop_sim.core.stats.holm_intervals`). The report
  prints that interval beside Holm p, never the 95% one.
- Names that the engine may add later are read dynamically; a table whose
  columns are missing raises :class:`MissingData`, which the report turns
  into "not available for this run".
- The intervals, tests and the ranking of a sweep's points are :mod:`nop_sim.core.stats`'s;
  the Disruptor statistics and the baseline have modules of their own, handed on here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from nop_sim.core.column import N_CATEGORIES
from nop_sim.core.errors import MissingData
from nop_sim.core.stats import (
    ALPHA,
    CONFIDENCE,
    best_points,
    bootstrap_median,
    gini_rows,
    holm_intervals,
    mean_half_width,
    mean_interval,
    normal_quantile,
    rank_points,
    ranking_lines,
    rate_columns,
    ratio_interval,
    wilson_interval,
    wilson_test,
)
from nop_sim.games import agent_files
from nop_sim.games.new_order.baseline import (
    CATEGORY_LABELS,
    default_baseline,
    simulate_baseline_wins,
)
from nop_sim.games.new_order.disruptor_stats import (
    DRAFT_COLUMNS,
    disruptor_stats,
    lift_test,
)
from nop_sim.games.new_order.disruptors import EFFECT_MIN_DRAFTERS
from nop_sim.games.new_order.policy import MECHANICS
from nop_sim.games.new_order.settings import Settings, auto_chips
from nop_sim.results import run_data
from nop_sim.results.run_data import RunData

# The notebook's names (docs/notebook.md): New Order's tables, those of its sections
# with a module of their own (the baseline, the Disruptors), and the ranking of a
# sweep's points against its targets (nop_sim.core.stats), on one run.
__all__ = [
    "MissingData", "RunData", "load_run", "per_match_sums", "chips_moved",
    "settings_changed", "match_length", "survival", "seat_fairness", "seat_chi_square",
    "preset_results", "mixture_rows", "skill_matrix", "column_positions", "column_over_hands",
    "default_baseline", "simulate_baseline_wins", "showdown_size", "winning_categories",
    "ledger_summary", "ledger_by_preset", "mechanic_use", "dart_over_hands", "promotions",
    "hedging_summary", "hedging_by_category", "hedging_by_preset", "disruptor_stats",
    "stack_inequality", "elimination_timing", "alive_over_hands", "point_metrics",
    "rank_points", "best_points", "ranking_lines", "findings", "CATEGORY_LABELS", "METRICS",
]

# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------
def load_run(folder: str | Path) -> RunData:
    """Read ``manifest.json`` and the Parquet tables of a finished New Order run
    (:func:`nop_sim.results.run_data.load_run`); the drafts run to millions of rows,
    so only the columns the analysis reads."""
    return run_data.load_run(folder, columns={"drafts": DRAFT_COLUMNS})


def _starting_chips(run: RunData, point: int) -> int:
    chips = run.setting(point, "chips", "auto")
    return auto_chips(run.players(point)) if chips in (None, "auto") else int(chips)


# ---------------------------------------------------------------------------
# Intervals and tests
# ---------------------------------------------------------------------------
def _grouped_mean(frame: pd.DataFrame, by, column: str, prefix: str,
                  confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Mean of ``column`` per group with a t interval: ``prefix``, ``prefix_low``, ``_high``."""
    g = frame.groupby(by, sort=True)[column].agg(["count", "mean", "std"])
    half = mean_half_width(g["std"].to_numpy(float), g["count"].to_numpy(float), confidence)
    return pd.DataFrame({prefix: g["mean"], f"{prefix}_low": g["mean"] - half,
                         f"{prefix}_high": g["mean"] + half}, index=g.index).reset_index()


# ---------------------------------------------------------------------------
# Headline
# ---------------------------------------------------------------------------
def settings_changed(run: RunData, point: int) -> pd.DataFrame:
    """Settings of a point that differ from the SPEC defaults: setting, value, default."""

    defaults = Settings().to_dict()
    rows = []
    for name, value in run.settings(point).items():
        if name in defaults and _norm(value) != _norm(defaults[name]):
            rows.append({"setting": name, "value": _fmt(value), "default": _fmt(defaults[name])})
    return pd.DataFrame(rows, columns=["setting", "value", "default"])


def _norm(value):
    return json.dumps(value, sort_keys=True, default=str)


def _fmt(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in sorted(value.items())) or "(none)"
    return str(value)


# ---------------------------------------------------------------------------
# 2. Match length
# ---------------------------------------------------------------------------
def match_length(run: RunData, n_boot: int = 2000) -> pd.DataFrame:
    """Per point: median hands with a bootstrap interval, mean with a t interval,
    10th/90th percentiles and the unresolved share (Wilson)."""
    m = run.table("matches", "point", "hands", "unresolved")
    rows = []
    for point, g in m.groupby("point", sort=True):
        hands = g["hands"].to_numpy()
        med, lo, hi = bootstrap_median(hands, n_boot=n_boot, seed=int(point))
        mi = mean_interval(hands)
        unresolved = int(g["unresolved"].astype(bool).sum())
        ulo, uhi = wilson_interval(unresolved, len(g))
        rows.append({"point": point, "matches": len(g), "hands": int(hands.sum()),
                     "median_hands": med, "median_low": lo, "median_high": hi,
                     "mean_hands": mi["mean"], "mean_low": mi["ci_low"],
                     "mean_high": mi["ci_high"],
                     "p10_hands": float(np.percentile(hands, 10)),
                     "p90_hands": float(np.percentile(hands, 90)),
                     "unresolved": unresolved, "unresolved_share": unresolved / len(g),
                     "unresolved_low": float(ulo), "unresolved_high": float(uhi),
                     "max_hands": run.setting(point, "max_hands")})
    return pd.DataFrame(rows)


def survival(run: RunData) -> pd.DataFrame:
    """Share of matches still running after each number of hands, with Wilson bands.

    Unresolved matches stop at ``max_hands``; they count as running up to it.
    """
    m = run.table("matches", "point", "hands")
    parts = []
    for point, g in m.groupby("point", sort=True):
        hands = np.sort(g["hands"].to_numpy())
        n = hands.size
        grid = np.arange(0, int(hands.max()) + 1)
        alive = n - np.searchsorted(hands, grid, side="right")
        lo, hi = wilson_interval(alive, n)
        parts.append(pd.DataFrame({"point": point, "hands": grid, "running": alive,
                                   "share": alive / n, "ci_low": lo, "ci_high": hi}))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


# ---------------------------------------------------------------------------
# 3. Seats and 4. strategies
# ---------------------------------------------------------------------------
def seat_fairness(run: RunData, tests: bool = True) -> pd.DataFrame:
    """Win rate per seat against 1/players: Wilson interval, its score test, Holm.

    ``ci_low``/``ci_high`` is the seat's 95% Wilson interval and ``p_value``
    the score test it inverts; ``p_holm`` is Holm-corrected across the seats
    of the point and ``holm_low``/``holm_high`` the Wilson interval at Holm's
    level, which leaves 1/players out exactly when ``outside``.
    Unresolved matches count for the chip leader the engine names as winner.
    ``tests=False`` skips the p-values (NaN), for sweeps that need only rates.
    """
    s = run.table("seats", "point", "seat", "place")
    g = (s.assign(win=(s["place"] == 1).astype(int))
         .groupby(["point", "seat"], sort=True)["win"].agg(wins="sum", seats="count")
         .reset_index())
    g["fair"] = 1.0 / np.array([run.players(p) for p in g["point"]])
    g = rate_columns(g, "wins", "seats", "win_rate")
    g = g.rename(columns={"win_rate_low": "ci_low", "win_rate_high": "ci_high"})
    return _fairness_tests(g, tests)


def _fairness_tests(g: pd.DataFrame, tests: bool) -> pd.DataFrame:
    """Each win rate against ``fair``: the score test Wilson's interval inverts, Holm
    within the point, and the interval at Holm's level (NaN without ``tests``)."""
    g["advantage"] = g["win_rate"] - g["fair"]
    g["p_value"] = g["p_holm"] = g["holm_low"] = g["holm_high"] = np.nan
    if tests and len(g):
        interval, p = wilson_test(g["wins"], g["seats"], g["fair"])
        g["p_value"] = p
        g["p_holm"], g["holm_low"], g["holm_high"] = holm_intervals(p, interval, g["point"])
    g["outside"] = g["p_holm"] < ALPHA
    return g


def seat_chi_square(run: RunData) -> pd.DataFrame:
    """Chi-square goodness of fit of wins per seat to equal shares, per point."""
    s = run.table("seats", "point", "seat", "place")
    rows = []
    for point, g in s.groupby("point", sort=True):
        players = run.players(point)
        wins = np.bincount(g.loc[g["place"] == 1, "seat"].to_numpy(), minlength=players)
        n = int(wins.sum())
        if n == 0:
            continue
        res = stats.chisquare(wins)
        rows.append({"point": point, "matches": n, "players": players,
                     "chi2": float(res.statistic), "dof": players - 1,
                     "p_value": float(res.pvalue)})
    return pd.DataFrame(rows)


def preset_results(run: RunData, tests: bool = True) -> pd.DataFrame:
    """Win rate and chip result per preset (agent style).

    ``win_rate`` is wins per seat occupied (fair = 1/players, tested exactly,
    Holm within the point); ``net_chips`` is final chips minus starting
    chips per seat and match, with a t interval; ``mean_place`` 1 = first.
    """
    s = run.table("seats", "point", "preset", "place")
    s = s.assign(win=(s["place"] == 1).astype(int))
    g = (s.groupby(["point", "preset"], sort=True)
         .agg(seats=("win", "count"), wins=("win", "sum"), mean_place=("place", "mean"))
         .reset_index())
    g["fair"] = 1.0 / np.array([run.players(p) for p in g["point"]])
    g = rate_columns(g, "wins", "seats", "win_rate")
    g = g.rename(columns={"win_rate_low": "ci_low", "win_rate_high": "ci_high"})
    g = _fairness_tests(g, tests)
    if "final_chips" in s.columns:
        start = s["point"].map({p: _starting_chips(run, p) for p in s["point"].unique()})
        net = _grouped_mean(s.assign(net=s["final_chips"] - start), ["point", "preset"],
                            "net", "net_chips")
        g = g.merge(net, on=["point", "preset"], how="left")
    return g


def mixture_rows(run: RunData) -> pd.DataFrame:
    """The rows of every mixture seated (an agent file of several ``[[agent]]`` tables):
    how often each row played and how it did (:func:`nop_sim.games.agent_files.mixture_rows`,
    the same for every game). Empty for a run without a mixture, or a store from before
    mixtures (no ``mix_row`` column)."""
    return agent_files.mixture_rows(run.tables.get("seats"), run.manifest.get("agent_files"),
                                    run.players)


def skill_matrix(run: RunData) -> pd.DataFrame:
    """Head to head: how often ``preset`` finished above ``opponent`` in the same match.

    One row per ordered pair of distinct presets that met; ``rate`` with a
    Wilson interval, the score test against 0.5 it inverts, and Holm across the
    point's pairs (each unordered pair tested once) with the Wilson interval at
    Holm's level (``holm_low``, ``holm_high``). Seats of the same preset in one
    match are not compared. Meaningful when presets rotate across seats;
    otherwise seat and style are confounded.
    """
    s = run.table("seats", "point", "match", "preset", "place")
    keys = ["point", "chunk", "match"] if "chunk" in s.columns else ["point", "match"]
    base = s[keys + ["preset", "place"]]
    pairs = base.merge(base, on=keys, suffixes=("", "_opp"))
    pairs = pairs[pairs["preset"] != pairs["preset_opp"]]
    if pairs.empty:
        return pd.DataFrame(columns=["point", "preset", "opponent", "meetings", "ahead",
                                     "rate", "ci_low", "ci_high", "p_value", "p_holm",
                                     "holm_low", "holm_high"])
    pairs = pairs.assign(ahead=(pairs["place"] < pairs["place_opp"]).astype(float)
                         + 0.5 * (pairs["place"] == pairs["place_opp"]))
    g = (pairs.groupby(["point", "preset", "preset_opp"], sort=True)["ahead"]
         .agg(meetings="count", ahead="sum").reset_index()
         .rename(columns={"preset_opp": "opponent"}))
    g = rate_columns(g, "ahead", "meetings")
    interval, p = wilson_test(g["ahead"], g["meetings"], 0.5)
    g["p_value"] = p
    first = (g["preset"].astype(str) < g["opponent"].astype(str)).to_numpy()
    g["p_holm"], g["holm_low"], g["holm_high"] = holm_intervals(
        np.where(first, p, np.nan), interval, g["point"])
    # the mirror row: the pair's test; its rate is 1 - the pair's, so is its interval
    mirror = g[first][["point", "preset", "opponent", "p_holm", "holm_low", "holm_high"]]
    mirror = mirror.rename(columns={"preset": "opponent", "opponent": "preset",
                                    "p_holm": "p_mirror"})
    mirror = mirror.assign(low_mirror=1 - mirror.pop("holm_high"),
                           high_mirror=1 - mirror.pop("holm_low"))
    g = g.merge(mirror, on=["point", "preset", "opponent"], how="left")
    g["p_holm"] = g["p_holm"].fillna(g.pop("p_mirror"))
    g["holm_low"] = g["holm_low"].fillna(g.pop("low_mirror"))
    g["holm_high"] = g["holm_high"].fillna(g.pop("high_mirror"))
    return g


# ---------------------------------------------------------------------------
# 5. The Ranking Column
# ---------------------------------------------------------------------------
def _columns_matrix(column: pd.Series) -> np.ndarray:
    """(matches, 13) int array of the final columns (category ids, top first)."""
    text = column.astype(str).str.split(" ", expand=True)
    return text.to_numpy().astype(np.int64)


def column_positions(run: RunData) -> pd.DataFrame:
    """Category x final position counts (from ``matches.column``), per point.

    ``share`` is the share of the point's matches that ended with the
    category at that position (0 = top of the column).
    """
    m = run.table("matches", "point", "column")
    parts = []
    for point, g in m.groupby("point", sort=True):
        cols = _columns_matrix(g["column"])
        n = cols.shape[0]
        counts = np.zeros((N_CATEGORIES, N_CATEGORIES), np.int64)
        for pos in range(N_CATEGORIES):
            counts[:, pos] = np.bincount(cols[:, pos], minlength=N_CATEGORIES)
        cat, pos = np.meshgrid(np.arange(N_CATEGORIES), np.arange(N_CATEGORIES), indexing="ij")
        parts.append(pd.DataFrame({"point": point, "category": cat.ravel(),
                                   "label": np.array(CATEGORY_LABELS)[cat.ravel()],
                                   "position": pos.ravel(), "count": counts.ravel(),
                                   "share": counts.ravel() / n}))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


_POS_NAME = re.compile(r"^(?:pos_?|time_)(\d+)$")


def _time_table(run: RunData) -> pd.DataFrame:
    """The per-hand time stats, wide: one row per (point, hand), one column per stat.

    The runner names the position sums ``pos0`` then ``time_1`` .. ``time_12``
    (``T_POS0 + category``); both those and ``posK`` are read as ``pos_K``.
    """
    if "time" in run._cache:
        return run._cache["time"]
    a = run.table("arrays", "point", "table", "stat", "index", "value")
    t = a[a["table"] == "time"]
    if t.empty:
        raise MissingData("the run recorded no per-hand (time) statistics")

    def rename(stat: str) -> str:
        match = _POS_NAME.match(stat)
        if match and int(match.group(1)) < N_CATEGORIES:
            return f"pos_{int(match.group(1))}"
        return stat

    wide = (t.assign(stat=t["stat"].astype(str).map(rename))
            .pivot_table(index=["point", "index"], columns="stat", values="value",
                         aggfunc="sum", fill_value=0)
            .reset_index().rename(columns={"index": "hand"}))
    wide.columns.name = None
    run._cache["time"] = wide
    return wide


def column_over_hands(run: RunData) -> pd.DataFrame:
    """Mean column position of each category at the start of each hand (0 = top)."""
    w = _time_table(run)
    if "matches" not in w.columns:
        raise MissingData("the time statistics have no 'matches' count")
    w = w[w["matches"] > 0]
    parts = []
    for cat in range(N_CATEGORIES):
        col = f"pos_{cat}"
        if col not in w.columns:
            continue
        parts.append(pd.DataFrame({"point": w["point"], "hand": w["hand"],
                                   "matches": w["matches"], "category": cat,
                                   "label": CATEGORY_LABELS[cat],
                                   "mean_position": w[col] / w["matches"]}))
    if not parts:
        raise MissingData("the time statistics have no column positions")
    return pd.concat(parts, ignore_index=True)


def _category_stat(run: RunData, stat: str) -> pd.DataFrame:
    """(point, category) -> value for one 'category' stat; zeros filled in."""
    a = run.table("arrays", "point", "table", "stat", "index", "value")
    c = a[(a["table"] == "category") & (a["stat"] == stat)]
    points = run.points
    full = pd.MultiIndex.from_product([points, range(N_CATEGORIES)], names=["point", "category"])
    return (c.groupby(["point", "index"])["value"].sum()
            .rename_axis(["point", "category"]).reindex(full, fill_value=0).rename(stat)
            .reset_index())


def showdown_size(run: RunData, point: int) -> float:
    """Mean players at a showdown ((hands shown + mucked) / showdowns), at least 2;
    the table size when the counters are missing."""
    try:
        s = run.table("seats", "point", "showdowns")
        c = run.table("counts", "point", "showdowns")
        shown = s.loc[s["point"] == point, "showdowns"].sum()
        if "mucks" in c.columns:
            shown += c.loc[c["point"] == point, "mucks"].sum()
        hands = c.loc[c["point"] == point, "showdowns"].sum()
        if hands > 0 and shown > 0:
            return float(np.clip(shown / hands, 2, run.players(point)))
    except MissingData:
        pass
    return float(run.players(point))


def winning_categories(run: RunData, baseline_deals: int | None = None) -> pd.DataFrame:
    """Category of the main pot's winning hand per point vs the default-column baseline.

    ``wins`` counts natural and elevated wins (``wins_elevated``); ``share``
    has a Wilson interval; ``baseline_share`` comes from
    :func:`default_baseline` with the point's mean showdown size; ``shown``
    is how often the category was shown down at all.
    """
    wins = _category_stat(run, "wins")
    try:
        elevated = _category_stat(run, "wins_elevated")["wins_elevated"].to_numpy()
    except MissingData:
        elevated = 0
    wins["wins"] = wins["wins"].to_numpy() + elevated
    wins["elevated"] = elevated
    try:
        wins["shown"] = _category_stat(run, "showdown_hands")["showdown_hands"].to_numpy()
    except MissingData:
        pass
    wins["label"] = np.array(CATEGORY_LABELS)[wins["category"]]
    wins["total"] = wins.groupby("point")["wins"].transform("sum")
    wins = rate_columns(wins, "wins", "total", "share")
    parts = []
    cache: dict[float, pd.DataFrame] = {}
    for point, g in wins.groupby("point", sort=True):
        size = round(showdown_size(run, point), 2)
        if size not in cache:
            decks = int(run.setting(point, "decks", 1) or 1)
            cache[size] = default_baseline(size, decks=decks, n_deals=baseline_deals)
        base = cache[size]
        g = g.copy()
        g["showdown_players"] = size
        g["baseline_share"] = base["share"].to_numpy()
        g["baseline_low"] = base["share_low"].to_numpy()
        g["baseline_high"] = base["share_high"].to_numpy()
        g["difference"] = g["share"] - g["baseline_share"]
        parts.append(g)
    return pd.concat(parts, ignore_index=True)


# ---------------------------------------------------------------------------
# 6. The Ledger
# ---------------------------------------------------------------------------
def per_match_sums(run: RunData, column: str) -> pd.DataFrame:
    """Per match: the sum over seats of a seat column, beside the match's hands."""
    s = run.table("seats", "point", "match", column)
    m = run.table("matches", "point", "match", "hands")
    keys = ["point", "chunk", "match"] if "chunk" in s.columns and "chunk" in m.columns \
        else ["point", "match"]
    per = s.groupby(keys, sort=False)[column].sum().reset_index()
    return m[keys + ["hands"]].merge(per, on=keys, how="left").fillna({column: 0})


def chips_moved(c: pd.DataFrame) -> pd.Series:
    """Chips that changed hands: pots awarded + hedge payouts + fees sent to the bank.

    Fees paid to the pot are inside the pots already.
    """
    moved = c["pot_sum"].astype(float)
    for extra in ("hedge_paid", "fees_to_bank"):
        if extra in c.columns:
            moved = moved + c[extra]
    return moved


def ledger_summary(run: RunData) -> pd.DataFrame:
    """Per point: manipulations and fees per hand (match-clustered intervals), the fees'
    share of all chips moved (interval over chunks, the unit the counters are kept
    in), the final dart (t interval) and how often it ends at the cap (Wilson)."""
    c = run.table("counts", "point", "hands")
    rows = []
    manip = per_match_sums(run, "manipulations")
    fees = per_match_sums(run, "fees") if "fees" in run.tables["seats"].columns else None
    m = run.table("matches", "point", "dart")
    for point in sorted(c["point"].unique()):
        cp = c[c["point"] == point]
        hands = int(cp["hands"].sum())
        row: dict[str, Any] = {"point": point, "hands": hands}
        mp = manip[manip["point"] == point]
        r = ratio_interval(mp["manipulations"], mp["hands"])
        row.update(manipulations=int(mp["manipulations"].sum()),
                   manipulations_per_hand=r["ratio"], manipulations_low=r["ci_low"],
                   manipulations_high=r["ci_high"])
        if fees is not None:
            fp = fees[fees["point"] == point]
            r = ratio_interval(fp["fees"], fp["hands"])
            row.update(fees=int(fp["fees"].sum()), fees_per_hand=r["ratio"],
                       fees_low=r["ci_low"], fees_high=r["ci_high"])
        if "fees" in cp.columns and "pot_sum" in cp.columns:
            # chunks are independent units: their ratio gives the interval
            share = ratio_interval(cp["fees"], chips_moved(cp))
            row["chips_moved"] = float(chips_moved(cp).sum())
            row.update(fee_share=share["ratio"], fee_share_low=share["ci_low"],
                       fee_share_high=share["ci_high"])
            if "fees_to_bank" in cp.columns:
                row["fees_to_bank"] = int(cp["fees_to_bank"].sum())
        mm = m[m["point"] == point]
        cap = run.setting(point, "dart_cap")
        fd = mean_interval(mm["dart"])
        row.update(final_dart=fd["mean"], final_dart_low=fd["ci_low"],
                   final_dart_high=fd["ci_high"])
        row["dart_cap"] = cap
        if cap is not None:
            at_cap = int((mm["dart"] >= cap).sum())
            lo, hi = wilson_interval(at_cap, len(mm))
            row.update(at_cap=at_cap, at_cap_share=at_cap / len(mm) if len(mm) else np.nan,
                       at_cap_low=float(lo), at_cap_high=float(hi), at_cap_of=len(mm))
        rows.append(row)
    return pd.DataFrame(rows)


def ledger_by_preset(run: RunData) -> pd.DataFrame:
    """Manipulations and fees per seat and match, by preset, with t intervals."""
    s = run.table("seats", "point", "preset", "manipulations")
    out = _grouped_mean(s, ["point", "preset"], "manipulations", "manipulations")
    if "fees" in s.columns:
        out = out.merge(_grouped_mean(s, ["point", "preset"], "fees", "fees"),
                        on=["point", "preset"])
    return out


def dart_over_hands(run: RunData) -> pd.DataFrame:
    """The dart at each hand's start over matches still running: mean, standard deviation
    (``band_low``/``band_high`` = mean -/+ sd, the spread between matches) and the
    95% interval of the mean."""
    w = _time_table(run)
    for col in ("dart", "matches"):
        if col not in w.columns:
            raise MissingData(f"the time statistics have no {col!r}")
    w = w[w["matches"] > 0]
    n = w["matches"].to_numpy(float)
    mean = w["dart"].to_numpy(float) / n
    if "dart_sq" in w.columns:
        var = np.clip(w["dart_sq"].to_numpy(float) / n - mean * mean, 0, None)
        var = var * n / np.maximum(n - 1, 1)
    else:
        var = np.full(mean.shape, np.nan)
    sd = np.sqrt(var)
    half = mean_half_width(sd, n)
    return pd.DataFrame({"point": w["point"].to_numpy(), "hand": w["hand"].to_numpy(),
                         "matches": n.astype(np.int64), "mean": mean, "sd": sd,
                         "band_low": mean - sd, "band_high": mean + sd,
                         "ci_low": mean - half, "ci_high": mean + half})


def promotions(run: RunData) -> pd.DataFrame:
    """Which categories get promoted: promotions per category and their share (Wilson)."""
    p = _category_stat(run, "manipulations").rename(columns={"manipulations": "promotions"})
    p["label"] = np.array(CATEGORY_LABELS)[p["category"]]
    p["total"] = p.groupby("point")["promotions"].transform("sum")
    return rate_columns(p, "promotions", "total", "share")


# ---------------------------------------------------------------------------
# 7. Hedging
# ---------------------------------------------------------------------------
def _player_hands(run: RunData, point: int) -> float:
    try:
        w = _time_table(run)
        if "alive" in w.columns:
            return float(w.loc[w["point"] == point, "alive"].sum())
    except MissingData:
        pass
    return np.nan


def mechanic_use(run: RunData) -> pd.DataFrame:
    """Per point: how often each mechanic is used, per hand, with match-clustered 95%
    intervals (the match is the unit): manipulations (column moves), hedges (tokens
    placed or moved) and bluffs (bets and raises made on the bluff draw, the strength
    alone below the bet threshold). A rate the run did not record is left out (bluffs:
    runs stored before store version 4)."""
    seats = run.tables["seats"].columns
    rows: dict[int, dict[str, Any]] = {}
    for name, column in (("manipulations", "manipulations"), ("hedges", "hedges_placed"),
                         ("bluffs", "bluffs")):
        if column not in seats:
            continue
        per = per_match_sums(run, column)
        for point, g in per.groupby("point", sort=True):
            r = ratio_interval(g[column], g["hands"])
            rows.setdefault(int(point), {"point": int(point)}).update({
                name: int(g[column].sum()), f"{name}_per_hand": r["ratio"],
                f"{name}_per_hand_low": r["ci_low"], f"{name}_per_hand_high": r["ci_high"]})
    return pd.DataFrame(list(rows.values()))


def hedging_summary(run: RunData) -> pd.DataFrame:
    """Per point: placements per player-hand, hit rate (payouts per placement) and the
    chips: cost paid, payouts received, net per placement with an interval.

    The placement rate divides tokens placed or moved by player-hands (players
    still in at each hand's start). The net per placement is
    ``paid/hits x hit_rate - hedge_cost``, its interval from the hit rate's.
    """
    c = run.table("counts", "point", "hedges", "hedge_hits")
    rows = []
    for point, cp in c.groupby("point", sort=True):
        hedges, hits = int(cp["hedges"].sum()), int(cp["hedge_hits"].sum())
        cost = float(cp["hedge_cost"].sum()) if "hedge_cost" in cp else np.nan
        paid = float(cp["hedge_paid"].sum()) if "hedge_paid" in cp else np.nan
        row: dict[str, Any] = {"point": point, "placements": hedges, "hits": hits,
                               "cost": cost, "paid": paid, "net": paid - cost}
        ph = _player_hands(run, point)
        row["player_hands"] = ph
        if ph and np.isfinite(ph):
            r = rate_columns(pd.DataFrame({"k": [hedges], "n": [ph]}), "k", "n", "x")
            row.update(placement_rate=r["x"].iloc[0], placement_low=r["x_low"].iloc[0],
                       placement_high=r["x_high"].iloc[0])
        r = rate_columns(pd.DataFrame({"k": [hits], "n": [hedges]}), "k", "n", "x")
        row.update(hit_rate=r["x"].iloc[0], hit_low=r["x_low"].iloc[0],
                   hit_high=r["x_high"].iloc[0])
        per_cost = cost / hedges if hedges else float(run.setting(point, "hedge_cost", np.nan))
        per_hit = paid / hits if hits else float(run.setting(point, "hedge_payout", np.nan))
        row["net_per_placement"] = per_hit * row["hit_rate"] - per_cost if hedges else np.nan
        row["net_low"] = per_hit * row["hit_low"] - per_cost if hedges else np.nan
        row["net_high"] = per_hit * row["hit_high"] - per_cost if hedges else np.nan
        row["worth_it"] = ("yes" if row["net_low"] > 0 else
                           "no" if row["net_high"] < 0 else "unclear") if hedges else "no data"
        rows.append(row)
    return pd.DataFrame(rows)


def hedging_by_category(run: RunData) -> pd.DataFrame:
    """Per point and category: placements, hits, hit rate and estimated net chips.

    Per-category chips are not counted by the engine; they are estimated as
    ``hits x (paid per hit) - placements x (cost per placement)`` with the
    point's actual paid-per-hit (which includes doubling cards and partial
    payouts) and cost-per-placement.
    """
    placed = _category_stat(run, "hedges").rename(columns={"hedges": "placements"})
    hits = _category_stat(run, "hedge_hits").rename(columns={"hedge_hits": "hits"})
    g = placed.merge(hits, on=["point", "category"])
    g["label"] = np.array(CATEGORY_LABELS)[g["category"]]
    g = rate_columns(g, "hits", "placements", "hit_rate")
    summary = hedging_summary(run).set_index("point")
    per_hit = (summary["paid"] / summary["hits"].replace(0, np.nan))
    per_cost = (summary["cost"] / summary["placements"].replace(0, np.nan))
    ph, pc = g["point"].map(per_hit).astype(float), g["point"].map(per_cost).astype(float)
    g["net_chips"] = g["hits"] * ph - g["placements"] * pc
    g["net_per_placement"] = g["hit_rate"] * ph - pc
    g["net_low"] = g["hit_rate_low"] * ph - pc
    g["net_high"] = g["hit_rate_high"] * ph - pc
    return g


def hedging_by_preset(run: RunData) -> pd.DataFrame:
    """Per preset: placements, hit rate and net hedge chips per seat and match (t interval).

    Net = chips collected from hedges - placements x hedge_cost.
    """
    s = run.table("seats", "point", "preset", "hedges_placed", "hedges_won", "hedge_chips")
    cost = s["point"].map({p: float(run.setting(p, "hedge_cost", 0)) for p in
                           s["point"].unique()})
    s = s.assign(net=s["hedge_chips"] - s["hedges_placed"] * cost)
    g = (s.groupby(["point", "preset"], sort=True)
         .agg(seats=("net", "count"), placements=("hedges_placed", "sum"),
              hits=("hedges_won", "sum")).reset_index())
    g = rate_columns(g, "hits", "placements", "hit_rate")
    return g.merge(_grouped_mean(s, ["point", "preset"], "net", "net_chips"),
                   on=["point", "preset"])


# ---------------------------------------------------------------------------
# 9. Chips
# ---------------------------------------------------------------------------
def stack_inequality(run: RunData) -> pd.DataFrame:
    """Gini of the final stacks per match, summarised per point (t interval).

    What is measured: the engine records chips per seat only at the end of a
    match. A finished match ends with one player holding every chip, so its
    Gini is (players - 1) / players by construction; the number is
    informative for unresolved matches (stopped at ``max_hands``) and for
    chips that left or entered through the bank. ``all_matches`` and
    ``unresolved`` rows are given separately. Inequality *during* a match is
    not recorded; :func:`alive_over_hands` and :func:`elimination_timing`
    show how fast the table thins out instead.
    """
    s = run.table("seats", "point", "match", "seat", "final_chips")
    m = run.table("matches", "point", "match", "unresolved")
    keys = ["point", "chunk", "match"] if "chunk" in s.columns and "chunk" in m.columns \
        else ["point", "match"]
    rows = []
    for point, sp in s.groupby("point", sort=True):
        wide = sp.pivot_table(index=keys, columns="seat", values="final_chips", fill_value=0)
        g = gini_rows(wide.to_numpy())
        unresolved = (wide.reset_index()[keys]
                      .merge(m[keys + ["unresolved"]], on=keys, how="left")["unresolved"]
                      .fillna(0).astype(bool).to_numpy())
        players = run.players(point)
        for subset, sel in (("all matches", np.ones(g.size, bool)), ("unresolved", unresolved)):
            mi = mean_interval(g[sel])
            rows.append({"point": point, "matches": subset, "n": int(sel.sum()),
                         "gini": mi["mean"], "ci_low": mi["ci_low"], "ci_high": mi["ci_high"],
                         "gini_one_holds_all": (players - 1) / players})
    return pd.DataFrame(rows)


def elimination_timing(run: RunData) -> pd.DataFrame:
    """Hand of elimination per finishing place (place 1 is never eliminated): count,
    median, mean with a t interval, 10th and 90th percentiles."""
    s = run.table("seats", "point", "place", "eliminated_hand")
    e = s[s["eliminated_hand"] > 0]
    if e.empty:
        return pd.DataFrame(columns=["point", "place", "n", "median", "mean"])
    g = (e.groupby(["point", "place"], sort=True)["eliminated_hand"]
         .agg(n="count", median="median", p10=lambda x: np.percentile(x, 10),
              p90=lambda x: np.percentile(x, 90)).reset_index())
    return g.merge(_grouped_mean(e, ["point", "place"], "eliminated_hand", "mean"),
                   on=["point", "place"])


def alive_over_hands(run: RunData) -> pd.DataFrame:
    """Mean players still in at each hand's start, over the matches still running."""
    w = _time_table(run)
    if "alive" not in w.columns or "matches" not in w.columns:
        raise MissingData("the time statistics have no 'alive' count")
    w = w[w["matches"] > 0]
    return pd.DataFrame({"point": w["point"], "hand": w["hand"], "matches": w["matches"],
                         "mean_alive": w["alive"] / w["matches"]})


# ---------------------------------------------------------------------------
# Sweep: key metrics per point, ranking against targets
# ---------------------------------------------------------------------------
#: key metric -> (label with unit, target name it answers or None)
METRICS = {
    "median_hands": ("median match length (hands)", "median_hands"),
    "unresolved_share": ("unresolved matches (%)", "unresolved_share"),
    "max_seat_advantage": ("largest seat advantage (win-rate points)", "max_seat_advantage"),
    "max_preset_advantage": ("largest preset advantage (win-rate points)",
                             "max_preset_advantage"),
    "manipulations_per_hand": ("manipulations per hand", None),
    "hedges_per_hand": ("hedges per hand", "hedges_per_hand"),
    "bluffs_per_hand": ("bluffs per hand", "bluffs_per_hand"),
    "fee_share": ("fees / chips moved (%)", "fee_share"),
    "hedge_hit_rate": ("hedge hit rate (payouts per placement, %)", "hedge_hit_rate"),
    "final_dart": ("final dart (chips)", None),
    "max_disruptor_effect": ("largest Disruptor effect (adjusted lift, win-rate points)",
                             "max_disruptor_effect"),
    # under strong play (sweep --train --value), in win-rate points
    "exploitability": ("exploitability of the trained field (points, a lower bound)",
                       "exploitability"),
    **{f"value_{m}": (f"value of {m} to a strong player (points)", f"value_{m}")
       for m in MECHANICS},
}


def point_metrics(run: RunData, n_boot: int = 500,
                  cache: dict[str, Any] | None = None) -> pd.DataFrame:
    """One row per sweep point: its swept parameters and the key :data:`METRICS`,
    each with ``_low``/``_high`` interval columns where one is defined.

    The two "largest advantage" metrics are maxima over seats or presets of
    ``|win rate - 1/players|``; their interval is the band the seats' (presets')
    Wilson intervals at Bonferroni's level reach (all of a point's at once at 95%):
    it holds the largest advantage with at least 95% probability, and its low end
    leaves 0 exactly when the seat (preset) table's Holm correction flags one (both
    test the smallest p against 0.05 / k). Each seat's own 95% interval, as before,
    left 0 out in about one fair run in five (four seats), where no seat was
    flagged. ``cache`` may hold already computed tables (keys: length,
    seat, preset, ledger, hedging, disruptor, use) so the report computes them once.
    """
    cache = cache if cache is not None else {}

    def get(key, fn, **kw):
        if cache.get(key) is None:
            cache[key] = fn(run, **kw)
        return cache[key]

    rows = {p: {"point": p, **run.params(p)} for p in run.points}

    def put(frame: pd.DataFrame, mapping: dict[str, str]):
        for _, r in frame.iterrows():
            for src, dst in mapping.items():
                if src in r and int(r["point"]) in rows:
                    rows[int(r["point"])][dst] = r[src]

    ml = get("length", match_length, n_boot=n_boot)
    put(ml, {"matches": "matches", "hands": "hands", "median_hands": "median_hands",
             "median_low": "median_hands_low", "median_high": "median_hands_high",
             "unresolved_share": "unresolved_share", "unresolved_low": "unresolved_share_low",
             "unresolved_high": "unresolved_share_high"})
    for name, fn, key in (("max_seat_advantage", seat_fairness, "seat"),
                          ("max_preset_advantage", preset_results, "preset")):
        try:
            t = get(key, fn, tests=False)
        except MissingData:
            continue
        dist = (t["win_rate"] - t["fair"]).abs()
        # every seat's (preset's) Wilson interval at Bonferroni's level, 95% for all of a
        # point's at once: the largest advantage lies in the band they reach with at
        # least 95% probability
        size = t.groupby("point")["win_rate"].transform("size").to_numpy(float)
        z = np.array([normal_quantile(1 - ALPHA / k) for k in size])
        low, high = wilson_interval(t["wins"].to_numpy(), t["seats"].to_numpy(), z=z)
        fair = t["fair"].to_numpy(float)
        far = np.maximum(np.abs(low - fair), np.abs(high - fair))
        near = np.where((low <= fair) & (fair <= high), 0.0,
                        np.minimum(np.abs(low - fair), np.abs(high - fair)))
        agg = (t.assign(d=dist, far=far, near=near).groupby("point")
               .agg(d=("d", "max"), far=("far", "max"), near=("near", "max")).reset_index())
        put(agg, {"d": name, "near": f"{name}_low", "far": f"{name}_high"})
    try:
        led = get("ledger", ledger_summary)
        put(led, {"manipulations_per_hand": "manipulations_per_hand",
                  "manipulations_low": "manipulations_per_hand_low",
                  "manipulations_high": "manipulations_per_hand_high",
                  "fee_share": "fee_share", "fee_share_low": "fee_share_low",
                  "fee_share_high": "fee_share_high", "final_dart": "final_dart",
                  "final_dart_low": "final_dart_low", "final_dart_high": "final_dart_high",
                  "at_cap_share": "at_cap_share"})
    except MissingData:
        pass
    try:
        d = get("disruptor", disruptor_stats)
    except MissingData:
        d = pd.DataFrame()
    for r in _effect_rows(d):
        if r["point"] in rows:
            rows[r["point"]].update({k: v for k, v in r.items() if k != "point"})
    use = get("use", mechanic_use)
    put(use, {f"{k}{end}": f"{k}{end}" for k in ("hedges_per_hand", "bluffs_per_hand")
              for end in ("", "_low", "_high")})
    try:
        h = get("hedging", hedging_summary)
        put(h, {"hit_rate": "hedge_hit_rate", "hit_low": "hedge_hit_rate_low",
                "hit_high": "hedge_hit_rate_high"})
    except MissingData:
        pass
    strong = run.strong_play
    if strong is not None:
        trained, values = strong
        put(trained, {k: k for k in ("exploitability", "exploitability_low",
                                     "exploitability_high")})
        for mech, g in values.groupby("mechanic", sort=False):
            put(g, {"value": f"value_{mech}", "low": f"value_{mech}_low",
                    "high": f"value_{mech}_high"})
    return pd.DataFrame(list(rows.values()))


def _effect_rows(d: pd.DataFrame) -> list[dict]:
    """Per point, each Disruptor's adjusted lift as ``disruptor_effect_<card>`` (with its
    ``_low``/``_high``) and ``max_disruptor_effect``: the largest magnitude among cards
    drafted by at least ``EFFECT_MIN_DRAFTERS`` seats, its interval the nearest and
    farthest distance from 0 that those cards' intervals at Bonferroni's level reach
    (95% for the point's tested cards at once, as the largest seat advantage's band):
    each card's own 95% interval, among 20 cards, left 0 out for some card in most
    runs where no card differs."""
    if not len(d) or "adjusted_lift" not in d:
        return []
    out = []
    for point, g in d.groupby("point", sort=True):
        row: dict[str, Any] = {"point": int(point)}
        for r in g.itertuples():
            row[f"disruptor_effect_{r.card}"] = r.adjusted_lift
            row[f"disruptor_effect_{r.card}_low"] = r.adjusted_low
            row[f"disruptor_effect_{r.card}_high"] = r.adjusted_high
        e = g[(g["drafters"] >= EFFECT_MIN_DRAFTERS) & g["adjusted_lift"].notna()]
        if len(e):
            interval, _p = lift_test(e["adjusted_lift"].to_numpy(float),
                                     e["adjusted_se"].to_numpy(float))
            lo, hi = interval(ALPHA / max(int(g["p_adjusted"].notna().sum()), 1))
            near = np.where((lo <= 0) & (0 <= hi), 0.0, np.minimum(np.abs(lo), np.abs(hi)))
            far = np.maximum(np.abs(lo), np.abs(hi))
            row.update(max_disruptor_effect=float(e["adjusted_lift"].abs().max()),
                       max_disruptor_effect_low=float(np.nanmax(near)),
                       max_disruptor_effect_high=float(np.nanmax(far)))
        out.append(row)
    return out


# ---------------------------------------------------------------------------
# Findings
# ---------------------------------------------------------------------------
def findings(run: RunData, *, unresolved_limit: float = 0.01,
             cache: dict[str, pd.DataFrame] | None = None) -> pd.DataFrame:
    """What looks broken, per point: one row per finding (severity, section, text).

    ``section`` is the id of the report section the finding belongs to
    (:data:`nop_sim.games.new_order.report.POINT_SECTIONS`): length, seats, strategies,
    column, ledger or disruptors.

    - a seat or preset whose win rate differs from 1/players (Holm p < 0.05,
      so its Holm-adjusted interval, printed with it, leaves 1/players out);
    - a Disruptor whose drafters' win rate is an outlier against drafters of
      as many other cards (Holm p < 0.05 and at least 5 points, its
      Holm-adjusted interval printed with it);
    - unresolved matches above ``unresolved_limit`` (1%);
    - a category that never wins although the default-column baseline
      expects at least 5 wins in as many showdowns;
    - a ledger that never reaches its cap, or always ends there;
    - presets meant to rotate across seats that did not visit every seat
      order (too few chunks), which confounds seat and preset.

    ``cache`` may hold already computed tables (keys: seat, preset,
    disruptor, length, winning, ledger) so the report computes them once.
    """
    cache = cache if cache is not None else {}

    def get(key, fn):
        if key not in cache:
            try:
                cache[key] = fn(run)
            except MissingData:
                cache[key] = None
        return cache[key]

    rows: list[dict[str, Any]] = []

    def add(point, severity, section, text, value=np.nan):
        rows.append({"point": int(point), "severity": severity, "section": section,
                     "finding": text, "value": value})

    rotation = run.manifest.get("rotation") or []
    m = run.tables.get("matches")
    if len(rotation) > 1 and m is not None and "rotation" in m.columns:
        chunk = run.manifest.get("chunk")
        for point, g in m.groupby("point", sort=True):
            seen = g["rotation"].nunique()
            if seen < len(rotation):
                add(point, "warning", "strategies",
                    f"presets sat in only {seen} of {len(rotation)} seat orders (the rotation "
                    f"moves once per chunk of {chunk} matches): seat and preset are confounded. "
                    f"Run at least {len(rotation) * (chunk or 1)} matches per point, or lower "
                    f"run.chunk", seen)
    for key, fn, what, section in (("seat", seat_fairness, "seat", "seats"),
                                   ("preset", preset_results, "preset", "strategies")):
        t = get(key, fn)
        if t is None:
            continue
        for _, r in t[t["outside"]].iterrows():
            add(r["point"], "warning", section,
                f"{what} {r[what]} wins {100 * r['win_rate']:.1f}% (Holm-adjusted 95% interval "
                f"{100 * r['holm_low']:.1f}-{100 * r['holm_high']:.1f}%) against a fair "
                f"{100 * r['fair']:.1f}% (Holm p = {r['p_holm']:.2g})", r["win_rate"] - r["fair"])
    d = get("disruptor", disruptor_stats)
    if d is not None and len(d) and "outlier" in d:
        for _, r in d[d["outlier"]].iterrows():
            add(r["point"], "warning", "disruptors",
                f"Disruptor {r['card']}: drafting it goes with "
                f"{100 * r['adjusted_lift']:+.1f} points of win rate against seats that drafted "
                f"as many other cards (Holm-adjusted 95% interval "
                f"{100 * r['adjusted_holm_low']:+.1f} to {100 * r['adjusted_holm_high']:+.1f}; "
                f"Holm p = {r['p_adjusted_holm']:.2g})",
                r["adjusted_lift"])
    ml = get("length", match_length)
    if ml is not None:
        for _, r in ml[ml["unresolved_share"] > unresolved_limit].iterrows():
            add(r["point"], "warning", "length",
                f"{100 * r['unresolved_share']:.1f}% of matches unresolved after "
                f"{r['max_hands']} hands (95% CI {100 * r['unresolved_low']:.1f}-"
                f"{100 * r['unresolved_high']:.1f}%; limit {100 * unresolved_limit:g}%)",
                r["unresolved_share"])
    w = cache.get("winning")
    if w is not None:
        expected = w["baseline_share"] * w["total"]
        never = w[(w["wins"] == 0) & (expected >= 5)]
        for _, r in never.iterrows():
            add(r["point"], "warning", "column",
                f"{r['label']} never wins, although the default-column baseline expects "
                f"about {r['baseline_share'] * r['total']:.0f} wins in {int(r['total'])} "
                f"showdowns", 0)
        for point, g in w[(w["wins"] == 0) & (expected < 5)].groupby("point"):
            add(point, "note", "column",
                "never won (rare or impossible with these cards): "
                + ", ".join(g["label"]), len(g))
    led = get("ledger", ledger_summary)
    if led is not None and "at_cap_share" in led:
        for _, r in led.iterrows():
            if not np.isfinite(r.get("at_cap_share", np.nan)):
                continue
            # "never" in a few matches is what a cap reached now and then also gives: the
            # bound says how rare the data show it to be
            n = int(r["at_cap_of"])
            if r["at_cap"] == 0:
                add(r["point"], "warning", "ledger",
                    f"the dart never ends a match at its cap ({r['dart_cap']:g}) in "
                    f"{n:,} matches (so in at most {100 * r['at_cap_high']:.1f}% of "
                    f"matches, 95% Wilson bound); the mean final dart is "
                    f"{r['final_dart']:.1f}", r["at_cap_share"])
            elif r["at_cap_share"] == 1:
                add(r["point"], "warning", "ledger",
                    f"the dart ends every one of {n:,} matches at its cap "
                    f"({r['dart_cap']:g}) (so at least {100 * r['at_cap_low']:.1f}% of matches, "
                    f"95% Wilson bound)", r["at_cap_share"])
    return pd.DataFrame(rows, columns=["point", "severity", "section", "finding", "value"])
