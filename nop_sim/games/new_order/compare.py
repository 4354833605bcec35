"""What ``nop-sim compare`` reads of two New Order runs (:data:`COMPARE`, the game's
``compare`` hook): every key metric of the balance report, family by family, as rows of
:mod:`nop_sim.core.differences`. The comparison itself (which runs compare, pairing,
Holm's correction, thresholds, findings, the report) is :mod:`nop_sim.studies.compare`'s.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from nop_sim.core.differences import (
    estimate_difference,
    mean_difference,
    median_difference,
    rate_difference,
    ratio_difference,
)
from nop_sim.core.errors import MissingData
from nop_sim.core.stats import gini_rows
from nop_sim.games.new_order import analysis as A
from nop_sim.games.registry import ComparedPoints, CompareMetrics
from nop_sim.results.run_data import RunData

__all__ = ["COMPARE", "FAMILIES", "MIN_EFFECT", "compare_metrics"]

#: family -> (what it is, kind: share/points/plain)
FAMILIES = {
    "median_hands": ("median match length (hands)", "plain"),
    "mean_hands": ("mean match length (hands)", "plain"),
    "unresolved_share": ("matches unresolved at max_hands", "share"),
    "seat_win_rate": ("win rate of a seat", "share"),
    "preset_win_rate": ("win rate of a preset", "share"),
    "fee_share": ("Ledger fees / chips moved", "share"),
    "manipulations_per_hand": ("column manipulations per hand", "plain"),
    "hedges_per_hand": ("hedge placements per hand", "plain"),
    "bluffs_per_hand": ("bets and raises on the bluff draw per hand", "plain"),
    "hedge_hit_rate": ("hedge payouts per placement", "share"),
    "hedge_net_per_placement": ("net chips per hedge placed", "plain"),
    "disruptor_effect": ("a Disruptor's drafted effect on win rate (adjusted lift)", "share"),
    "stack_gini": ("Gini of the final stacks (mean per match)", "plain"),
    "category_share": ("share of main pots won by a category", "share"),
    "exploitability": ("what the best deviation found gains against the trained field, "
                       "points (a lower bound)", "plain"),
    "strong_value": ("what a mechanic is worth to a strong player, points", "plain"),
}

#: family -> (threshold, relative): relative thresholds are a share of A's value
MIN_EFFECT: dict[str, tuple[float, bool]] = {
    "median_hands": (0.05, True),
    "mean_hands": (0.05, True),
    "unresolved_share": (0.01, False),
    "seat_win_rate": (0.02, False),
    "preset_win_rate": (0.02, False),
    "fee_share": (0.01, False),
    "manipulations_per_hand": (0.10, True),
    "hedges_per_hand": (0.10, True),
    "bluffs_per_hand": (0.10, True),
    "hedge_hit_rate": (0.02, False),
    "hedge_net_per_placement": (0.5, False),
    "disruptor_effect": (0.05, False),
    "stack_gini": (0.02, False),
    "category_share": (0.01, False),
    "exploitability": (2.0, False),
    "strong_value": (1.5, False),
}


def _matches(run: RunData, point: int) -> pd.DataFrame:
    """The point's matches with their length, in (chunk, match) order."""
    m = run.table("matches", "point", "chunk", "match", "hands", "unresolved")
    return m[m["point"] == point].sort_values(["chunk", "match"], kind="stable")


def _length(c: ComparedPoints):
    ma, mb = _matches(c.a, c.point_a), _matches(c.b, c.point_b)
    ha, hb = ma["hands"].to_numpy(float), mb["hands"].to_numpy(float)
    yield "median_hands", "", median_difference(ha, hb, c.pairs, c.n_boot, seed=0)
    yield "mean_hands", "", mean_difference(ha, hb, c.pairs)
    ua, ub = ma["unresolved"].astype(bool).to_numpy(), mb["unresolved"].astype(bool).to_numpy()
    yield "unresolved_share", "", rate_difference(ua.sum(), ua.size, ub.sum(), ub.size,
                                         *((ua, ub) if c.pairs else ()))


def _wins_per_match(run: RunData, point: int, by: str) -> pd.DataFrame:
    """(chunk, match) x ``by`` table of wins, and of seats held (for presets), sorted."""
    s = run.table("seats", "point", "chunk", "match", "seat", "place", by)
    s = s[s["point"] == point]
    s = s.assign(win=(s["place"] == 1).astype(int), held=1, key=s[by].astype(str))
    return s.pivot_table(index=["chunk", "match"], columns="key", values=["win", "held"],
                         aggfunc="sum", fill_value=0, observed=True).sort_index()


def _win_rates(c: ComparedPoints, family: str, by: str, fn):
    ta, tb = fn(c.a, tests=False), fn(c.b, tests=False)
    ta = ta[ta["point"] == c.point_a].assign(key=lambda t: t[by].astype(str))
    tb = tb[tb["point"] == c.point_b].assign(key=lambda t: t[by].astype(str))
    keys = [k for k in ta["key"] if k in set(tb["key"])]
    only = sorted(set(ta["key"]) ^ set(tb["key"]))
    if only:
        c.notes.append(f"{by}s in only one of the runs are not compared: {', '.join(only)}")
    wa = wb = None
    if c.pairs:
        wa, wb = _wins_per_match(c.a, c.point_a, by), _wins_per_match(c.b, c.point_b, by)
    for key in keys:
        ra, rb = ta[ta["key"] == key].iloc[0], tb[tb["key"] == key].iloc[0]
        xs = ()
        if wa is not None:
            held_a, held_b = wa["held"][key].to_numpy(), wb["held"][key].to_numpy()
            if (held_a == 1).all() and (held_b == 1).all():  # one seat per match: binary pairs
                xs = (wa["win"][key].to_numpy() > 0, wb["win"][key].to_numpy() > 0)
        label = f"seat {key} win rate" if by == "seat" else f"{key} win rate"
        yield f"{family}.{key}", label, rate_difference(int(ra["wins"]), int(ra["seats"]),
                                              int(rb["wins"]), int(rb["seats"]), *xs)


def _seats(c: ComparedPoints):
    yield from _win_rates(c, "seat_win_rate", "seat", A.seat_fairness)


def _presets(c: ComparedPoints):
    yield from _win_rates(c, "preset_win_rate", "preset", A.preset_results)


def _chunk_counts(run: RunData, point: int) -> pd.DataFrame:
    cnt = run.table("counts", "point", "chunk")
    return cnt[cnt["point"] == point].sort_values("chunk", kind="stable")


def _ledger(c: ComparedPoints):
    ca, cb = _chunk_counts(c.a, c.point_a), _chunk_counts(c.b, c.point_b)
    chunk_pairs = c.pairs and np.array_equal(ca["chunk"].to_numpy(), cb["chunk"].to_numpy())
    if {"fees", "pot_sum"} <= set(ca.columns) & set(cb.columns):
        yield "fee_share", "", ratio_difference(ca["fees"], A.chips_moved(ca), cb["fees"],
                                      A.chips_moved(cb), chunk_pairs)
    yield "manipulations_per_hand", "", _per_hand(c, "manipulations")


def _per_hand(c: ComparedPoints, column: str):
    """Per-match sums of a seat counter and the matches' hands, of each side's point."""
    pa, pb = A.per_match_sums(c.a, column), A.per_match_sums(c.b, column)
    pa = pa[pa["point"] == c.point_a].sort_values(["chunk", "match"], kind="stable")
    pb = pb[pb["point"] == c.point_b].sort_values(["chunk", "match"], kind="stable")
    return ratio_difference(pa[column], pa["hands"], pb[column], pb["hands"], c.pairs)


def _bluffing(c: ComparedPoints):
    if not ("bluffs" in c.a.tables["seats"].columns and "bluffs" in c.b.tables["seats"].columns):
        raise MissingData("a run has no bluff counter (stored before nop-sim counted bluffs; "
                            "run it again)")
    yield "bluffs_per_hand", "", _per_hand(c, "bluffs")


def _hedging(c: ComparedPoints):
    ca, cb = _chunk_counts(c.a, c.point_a), _chunk_counts(c.b, c.point_b)
    need = {"hedges", "hedge_hits", "hedge_paid", "hedge_cost"}
    if not need <= set(ca.columns) & set(cb.columns):
        raise MissingData("the runs have no hedge counters")
    ka, na = int(ca["hedge_hits"].sum()), int(ca["hedges"].sum())
    kb, nb = int(cb["hedge_hits"].sum()), int(cb["hedges"].sum())
    if ka <= na and kb <= nb:
        yield "hedge_hit_rate", "", rate_difference(ka, na, kb, nb)
    else:  # hedge_scope = "match": a placement can pay more than once
        yield "hedge_hit_rate", "", ratio_difference(ca["hedge_hits"], ca["hedges"], cb["hedge_hits"],
                                           cb["hedges"], False)
    if "hedges_placed" in c.a.tables["seats"].columns \
            and "hedges_placed" in c.b.tables["seats"].columns:
        yield "hedges_per_hand", "", _per_hand(c, "hedges_placed")
    chunk_pairs = c.pairs and np.array_equal(ca["chunk"].to_numpy(), cb["chunk"].to_numpy())
    yield "hedge_net_per_placement", "", ratio_difference(
        ca["hedge_paid"] - ca["hedge_cost"], ca["hedges"], cb["hedge_paid"] - cb["hedge_cost"],
        cb["hedges"], chunk_pairs)


def _disruptors(c: ComparedPoints):
    da, db = A.disruptor_stats(c.a), A.disruptor_stats(c.b)
    if "adjusted_lift" not in da.columns or "adjusted_lift" not in db.columns:
        raise MissingData("no Disruptor was drafted in one of the runs")
    da = da.set_index(da["card"].astype(str))
    db = db.set_index(db["card"].astype(str))
    for card in [k for k in da.index if k in db.index]:
        ra, rb = da.loc[card], db.loc[card]
        yield f"disruptor_effect.{card}", f"{card} drafted", estimate_difference(
            ra["adjusted_lift"], ra["adjusted_low"], ra["adjusted_high"],
            rb["adjusted_lift"], rb["adjusted_low"], rb["adjusted_high"])


def _gini_per_match(run: RunData, point: int) -> np.ndarray:
    s = run.table("seats", "point", "chunk", "match", "seat", "final_chips")
    s = s[s["point"] == point]
    wide = s.pivot_table(index=["chunk", "match"], columns="seat", values="final_chips",
                         fill_value=0).sort_index()
    return gini_rows(wide.to_numpy())


def _chips(c: ComparedPoints):
    yield "stack_gini", "", mean_difference(_gini_per_match(c.a, c.point_a),
                                  _gini_per_match(c.b, c.point_b), c.pairs)


def _categories(c: ComparedPoints):
    wa, wb = A.winning_categories(c.a), A.winning_categories(c.b)
    wa = wa[wa["point"] == c.point_a].set_index("category")
    wb = wb[wb["point"] == c.point_b].set_index("category")
    for cat in wa.index:
        ra, rb = wa.loc[cat], wb.loc[cat]
        slug = str(ra["label"]).lower().replace(" ", "_")
        yield f"category_share.{slug}", f"{ra['label']} wins", rate_difference(
            int(ra["wins"]), int(ra["total"]), int(rb["wins"]), int(rb["total"]))


def _strong(c: ComparedPoints):
    """Under strong play (two sweeps run with ``--train [--value]``): the fields'
    exploitability and each mechanic's value, as independent estimates."""
    sa, sb = c.a.strong_play, c.b.strong_play
    if sa is None and sb is None:
        return
    if sa is None or sb is None:
        raise MissingData("only one run was played by fields trained for its rules "
                            "(nop-sim sweep --train)")
    ta = sa[0][sa[0]["point"] == c.point_a]
    tb = sb[0][sb[0]["point"] == c.point_b]
    if len(ta) and len(tb):
        ra, rb = ta.iloc[0], tb.iloc[0]
        yield "exploitability", "", estimate_difference(
            ra["exploitability"], ra["exploitability_low"], ra["exploitability_high"],
            rb["exploitability"], rb["exploitability_low"], rb["exploitability_high"])
    va = sa[1][sa[1]["point"] == c.point_a].set_index("mechanic")
    vb = sb[1][sb[1]["point"] == c.point_b].set_index("mechanic")
    for mech in [m for m in va.index if m in vb.index]:
        ra, rb = va.loc[mech], vb.loc[mech]
        yield f"strong_value.{mech}", f"value of {mech}", estimate_difference(
            ra["value"], ra["low"], ra["high"], rb["value"], rb["low"], rb["high"])


#: (family group, its report section's title, function): the order of the table
GROUPS = (("length", "Match length", _length), ("seats", "Seat win rates", _seats),
          ("presets", "Preset win rates", _presets), ("ledger", "The Ledger", _ledger),
          ("hedging", "Hedging", _hedging), ("bluffing", "Bluffing", _bluffing),
          ("disruptors", "Disruptors", _disruptors), ("chips", "Chips", _chips),
          ("categories", "Winning categories", _categories),
          ("strong play", "Under strong play", _strong))

COMPARE = CompareMetrics(
    families=FAMILIES, min_effect=MIN_EFFECT, groups=GROUPS, required=("length", "seats"),
    load_run=A.load_run, top={"disruptors": 25},
    method="Every difference is B minus A, with an interval from one test: Newcombe's "
           "hybrid score (from the two Wilson intervals) for rates, a percentile "
           "bootstrap for the median, Welch or paired t for means, the delta method "
           "for ratios of sums (over matches, or over chunks for the counters kept per "
           "chunk), a normal combination of the two intervals for Disruptor effects.")


def compare_metrics() -> CompareMetrics:
    """The game's ``compare`` hook (named by the descriptor, so that registering the game
    loads no statistics): what ``nop-sim compare`` reads of two New Order runs."""
    return COMPARE
