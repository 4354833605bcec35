"""New Order Poker as a registered game: the descriptor, its targets and the summary's
metrics.

What registering the game must not load, it names by dotted name, imported on first
call (:class:`nop_sim.games.registry.Deferred`): the runner's chunk
(:mod:`.chunks`, the engine's numba kernels behind it), the histories and the
referee's matches (:mod:`.hands`), a person's table (:mod:`.table`), the kernels
(:mod:`.engine`) and the report (:mod:`.report`, matplotlib). The seats live in
:mod:`.seats`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.agents import read_agent_file
from nop_sim.games.new_order.disruptors import EFFECT_MIN_DRAFTERS
from nop_sim.games.new_order.policy import POLICY
from nop_sim.games.new_order.seats import (  # match_tables, mix_rows, MIX_TAG: re-exported
    MIX_TAG,
    check_seat,
    check_seats,
    match_tables,
    mix_rows,
    seat_label,
)
from nop_sim.games.new_order.settings import Settings
from nop_sim.games.new_order.sources import KERNEL_SOURCES
from nop_sim.games.registry import Game, register_game

if TYPE_CHECKING:  # pandas loads where a function needs it (the kernels' compile does not)
    import pandas as pd

__all__ = ["GAME", "MIX_TAG", "TARGETS", "match_tables", "mix_rows", "seat_label",
           "target_metrics"]

TARGETS = {
    "median_hands": "median hands per match",
    "mean_hands": "mean hands per match",
    "unresolved_share": "share of matches hitting max_hands",
    "max_seat_advantage": "largest |seat win rate - 1/players|",
    "max_preset_advantage": "largest |preset win rate - 1/players|",
    "fee_share": "Ledger fees as a share of chips moved",
    "manipulations_per_hand": "manipulations (column moves) per hand",
    "hedges_per_hand": "hedge placements per hand",
    "bluffs_per_hand": "bets and raises on the bluff draw (strength below the bet threshold) "
                       "per hand",
    "hedge_hit_rate": "share of hedges that pay",
    "net_chips_per_hedge": "chips a hedge pays back minus what it costs, per placement",
    "final_dart": "mean dart (fee per promotion) at the end of a match",
    "max_disruptor_effect": "largest |adjusted lift| of a Disruptor's drafters (win-rate "
                            "fraction; cards drafted by at least "
                            f"{EFFECT_MIN_DRAFTERS} seats)",
    **{f"disruptor_effect_{card}": f"adjusted lift of {card}'s drafters over seats that "
                                   f"drafted as many other cards (win-rate fraction)"
       for card in T.DISRUPTOR_IDS},
}


# ---------------------------------------------------------------------------
# Summary, histories, referee, report
# ---------------------------------------------------------------------------
def point_metrics(matches: pd.DataFrame, counts: pd.DataFrame) -> dict:
    hands = int(counts["hands"].sum())
    row = {"matches": len(matches), "hands": hands,
           "median_hands": float(matches["hands"].median()),
           "unresolved_share": float(matches["unresolved"].mean())}
    for col in ("fees", "manipulations", "hedges", "hedge_hits", "showdowns", "bluffs"):
        if col in counts:
            row[f"{col}_per_hand"] = float(counts[col].sum()) / max(hands, 1)
    return row


def target_metrics(tables: Mapping[str, pd.DataFrame]):
    """Every :data:`TARGETS` metric of one point's tables, as a function of chunk weights.

    Returns ``estimate(weights=None) -> {name: value}``; ``weights`` holds one
    count per chunk (ascending chunk order), so a cluster bootstrap resamples
    whole chunks (the unit the ``counts`` counters are kept in) without
    rebuilding a table. A rate whose denominator is 0 is NaN.
    """
    import pandas as pd  # not at import: the kernels' compile must not need it (install_order.py)
    m, s, c = tables["matches"], tables["seats"], tables["counts"]
    chunks = np.unique(c["chunk"].to_numpy())
    mk = np.searchsorted(chunks, m["chunk"].to_numpy())
    sk = np.searchsorted(chunks, s["chunk"].to_numpy())
    ck = np.searchsorted(chunks, c["chunk"].to_numpy())
    hands = m["hands"].to_numpy(np.float64)
    unresolved = m["unresolved"].to_numpy(np.float64)
    dart = m["dart"].to_numpy(np.float64)
    players = int(m["players"].iloc[0]) if len(m) else 1
    win = (s["place"].to_numpy() == 1).astype(np.float64)
    seat = s["seat"].to_numpy(np.int64)
    preset, _ = pd.factorize(s["preset"])
    col = {k: c[k].to_numpy(np.float64) if k in c else np.zeros(len(c))
           for k in ("hands", "fees", "pot_sum", "hedge_paid", "fees_to_bank", "manipulations",
                     "hedges", "hedge_hits", "hedge_cost", "bluffs")}
    fair = 1.0 / players
    effect = _effect_counts(s, tables.get("drafts"), chunks)

    def ratio(num, den):
        return float(num / den) if den > 0 else float("nan")

    def advantage(group, w):
        n = np.bincount(group, w)
        k = np.bincount(group, w * win)
        used = n > 0
        return float(np.max(np.abs(k[used] / n[used] - fair))) if used.any() else float("nan")

    def estimate(weights=None) -> dict[str, float]:
        w = np.ones(len(chunks)) if weights is None else np.asarray(weights, np.float64)
        wm, ws, wc = w[mk], w[sk], w[ck]
        total = {k: float(np.dot(wc, v)) for k, v in col.items()}
        n_matches = wm.sum()
        # the median of the resampled matches: each match repeated by its chunk's count
        reps = wm.astype(np.int64)
        median = (float(np.median(np.repeat(hands, reps))) if reps.sum()
                  else float("nan"))
        moved = total["pot_sum"] + total["hedge_paid"] + total["fees_to_bank"]
        return {
            "median_hands": median,
            "mean_hands": ratio(np.dot(wm, hands), n_matches),
            "unresolved_share": ratio(np.dot(wm, unresolved), n_matches),
            "max_seat_advantage": advantage(seat, ws),
            "max_preset_advantage": advantage(preset, ws),
            "fee_share": ratio(total["fees"], moved),
            "manipulations_per_hand": ratio(total["manipulations"], total["hands"]),
            "hedges_per_hand": ratio(total["hedges"], total["hands"]),
            "bluffs_per_hand": ratio(total["bluffs"], total["hands"]),
            "hedge_hit_rate": ratio(total["hedge_hits"], total["hedges"]),
            "net_chips_per_hedge": ratio(total["hedge_paid"] - total["hedge_cost"],
                                         total["hedges"]),
            "final_dart": ratio(np.dot(wm, dart), n_matches),
            **_effects(effect, w),
        }

    # the targets that are shares of counted events: (events, trials) of all chunks, for a
    # count's interval where resampling chunks cannot give one (none of 2,500 matches
    # unresolved: every resample 0, an interval [0, 0] that would read as certainty)
    estimate.counts = {"unresolved_share": (int(unresolved.sum()), len(unresolved)),
                       "hedge_hit_rate": (int(col["hedge_hits"].sum()), int(col["hedges"].sum()))}
    return estimate


def _effect_counts(seats: pd.DataFrame, drafts: pd.DataFrame | None, chunks: np.ndarray):
    """Per chunk, the counts a Disruptor's adjusted lift is made of (as
    :func:`nop_sim.games.new_order.analysis.disruptor_stats` computes it: Mantel-Haenszel
    over strata of seats that drafted as many cards in the match, the thin upper tail
    pooled at the 99th percentile): ``(cards, drafters, drafter wins, seats, wins)``,
    the first two ``(chunk, card, stratum)``, the last two ``(chunk, stratum)``; None
    without drafts."""
    import pandas as pd  # not at import: the kernels' compile must not need it (install_order.py)
    if drafts is None or not len(drafts) or not len(seats):
        return None
    found, row = _seat_rows(seats, drafts)
    if not found.any():
        return None
    given = drafts["card"]
    if isinstance(given.dtype, pd.CategoricalDtype):  # as the store reads it: by its codes
        card, used = pd.factorize(given.cat.codes.to_numpy()[found])
        names = given.cat.categories[used]
    else:
        card, names = pd.factorize(given.to_numpy()[found])
    cards = [str(c) for c in names]
    strata = np.bincount(row, weights=drafts["count"].to_numpy()[found], minlength=len(seats))
    strata = np.minimum(strata.astype(np.int64), int(np.percentile(strata, 99)))
    k = int(strata.max()) + 1
    chunk = np.searchsorted(chunks, seats["chunk"].to_numpy())
    win = (seats["place"].to_numpy() == 1).astype(np.float64)
    # counts by one flat index (np.add.at took a tenth of a second per table): sums of
    # ones and of 0/1 wins, exact in float64
    n_c = len(chunks)
    at = chunk * k + strata
    total = np.bincount(at, minlength=n_c * k).astype(np.float64).reshape(n_c, k)
    wins = np.bincount(at, weights=win, minlength=n_c * k).reshape(n_c, k)
    at = (chunk[row] * len(cards) + card) * k + strata[row]  # a (seat, match, card): one row
    size = n_c * len(cards) * k
    drafted = np.bincount(at, minlength=size).astype(np.float64).reshape(n_c, len(cards), k)
    drafted_wins = np.bincount(at, weights=win[row], minlength=size).reshape(
        n_c, len(cards), k)
    return cards, drafted, drafted_wins, total, wins


def _seat_rows(seats: pd.DataFrame, drafts: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each draft row's seat row: ``found`` (bool, per draft row) and ``row`` (the seat row
    of each found draft row, in draft order).

    A point's match ids are unique, so ``(match, seat)`` names a seat row: where the ids are
    dense enough, one lookup array finds them all (the effect counts of 100,000 baseline
    matches, 3.5M drafts, took 0.17 to 0.34 s so, against 0.52 to 0.63 s by sorting keys
    and searching them); otherwise, or where ``(match, seat)`` repeats (tables of several
    points), by ``(chunk, match, seat)`` keys."""
    sm, ss = seats["match"].to_numpy(np.int64), seats["seat"].to_numpy(np.int64)
    dm, ds = drafts["match"].to_numpy(np.int64), drafts["seat"].to_numpy(np.int64)
    lo = min(int(sm.min()), int(dm.min()))
    span = max(int(sm.max()), int(dm.max())) - lo + 1
    players = max(int(ss.max()), int(ds.max())) + 1
    if min(int(ss.min()), int(ds.min())) >= 0 and span * players <= 4 * len(seats) + 4096:
        lookup = np.full(span * players, -1, np.int64)
        at, rows = (sm - lo) * players + ss, np.arange(len(seats))
        lookup[at] = rows
        if np.array_equal(lookup[at], rows):  # no (match, seat) twice
            row = lookup[(dm - lo) * players + ds]
            found = row >= 0
            return found, row[found]
    # each draft row's seat row, by one integer key (a pandas merge took 0.2 s a point)
    cols = (("chunk", "match", "seat") if "chunk" in drafts and "chunk" in seats
            else ("match", "seat"))
    sv = [seats[c].to_numpy(np.int64) for c in cols]
    dv = [drafts[c].to_numpy(np.int64) for c in cols]
    size = [max(int(a.max()), int(b.max())) + 1 for a, b in zip(sv, dv, strict=True)]

    def key(v):
        k = v[0]
        for a, n in zip(v[1:], size[1:], strict=True):
            k = k * n + a
        return k

    skey = key(sv)
    order = np.argsort(skey, kind="stable")
    ranked, dkey = skey[order], key(dv)
    at = np.minimum(np.searchsorted(ranked, dkey), len(skey) - 1)
    found = ranked[at] == dkey
    return found, order[at[found]]


def _effects(effect, w: np.ndarray) -> dict[str, float]:
    """``disruptor_effect_<card>`` of every card (NaN: never drafted) and
    ``max_disruptor_effect`` (the largest magnitude among cards with
    :data:`EFFECT_MIN_DRAFTERS` drafters), from :func:`_effect_counts` with chunk
    weights ``w``."""
    out = {f"disruptor_effect_{c}": float("nan") for c in T.DISRUPTOR_IDS}
    if effect is None:
        return {**out, "max_disruptor_effect": float("nan")}
    cards, drafted, drafted_wins, total, wins = effect
    n1 = np.tensordot(w, drafted, 1)
    w1 = np.tensordot(w, drafted_wins, 1)
    n0 = w @ total - n1
    w0 = w @ wins - w1
    ok = (n1 > 0) & (n0 > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        weight = np.where(ok, n1 * n0 / (n1 + n0), 0.0)
        p1 = np.where(ok, w1 / np.where(ok, n1, 1), 0.0)
        p0 = np.where(ok, w0 / np.where(ok, n0, 1), 0.0)
        lift = (weight * (p1 - p0)).sum(axis=1) / weight.sum(axis=1)
    out.update({f"disruptor_effect_{c}": float(v) for c, v in zip(cards, lift, strict=True)})
    enough = drafted.sum(axis=(0, 2)) >= EFFECT_MIN_DRAFTERS
    shown = np.abs(lift[enough & np.isfinite(lift)])
    out["max_disruptor_effect"] = float(shown.max()) if shown.size else float("nan")
    return out


GAME = register_game(Game(
    kind="new-order",
    title="New Order Poker",
    settings=Settings,
    sweep_fields=Settings.field_names(),
    default_seat="balanced",
    check_seat=check_seat,
    check_seats=check_seats,
    seat_label=seat_label,
    tables=("matches", "seats", "drafts", "counts", "events"),
    work="hands",
    targets=TARGETS,
    point_metrics=point_metrics,
    target_metrics=target_metrics,
    extra_metrics=("max_disruptor_effect",),
    # point_metrics and target_metrics' (max_disruptor_effect): 0.3 of the summary's 1.7
    # core-seconds went to columns it never reads (each match's column as text, above all)
    summary_columns={
        "matches": ("point", "chunk", "match", "players", "hands", "unresolved", "dart"),
        "seats": ("point", "chunk", "match", "seat", "preset", "mix_row", "place"),
        "drafts": ("point", "match", "seat", "card", "count")},
    play_chunk="nop_sim.games.new_order.chunks:play_chunk",
    play_chunks="nop_sim.games.new_order.chunks:play_chunks",
    warm_up="nop_sim.games.new_order.engine:warm_up",
    load_kernels="nop_sim.games.new_order.engine:load_kernels",
    kernels={"match driver": "nop_sim.games.new_order.engine:compile_engine",
             "evaluator and draft": "nop_sim.games.new_order.engine:compile_callees",
             "parallel driver": "nop_sim.games.new_order.engine:compile_parallel",
             "evaluator": "nop_sim.evaluator:compile_kernels"},
    # a run and its report play through the match driver and its callees; the parallel
    # driver (training, play_matches on threads) and the public evaluate() compile later
    run_kernels=("match driver", "evaluator and draft"),
    refresh_kernels="nop_sim.games.new_order.engine:refresh_kernel_cache",
    kernel_sources=KERNEL_SOURCES,
    agent_file=read_agent_file,
    fresh_hands="nop_sim.games.new_order.hands:fresh_hands",
    stored_hands="nop_sim.games.new_order.hands:stored_hands",
    referee="nop_sim.games.new_order.hands:referee",
    write_report="nop_sim.games.new_order.report:write_report",
    store_version=5,  # 2: events tables; 3: seats.mix_row; 4: counts.bluffs; 5: drafts wide
    policy=POLICY,
    open_table="nop_sim.games.new_order.table:open_table",
    replay_chunk="nop_sim.games.new_order.chunks:replay_chunk",
    open_replay="nop_sim.games.new_order.table:open_replay",
    compare="nop_sim.games.new_order.compare:compare_metrics",
    bench="nop_sim.games.new_order.bench:engine_bench",
    train_settings="nop_sim.games.new_order.cfr:train_settings",
))
