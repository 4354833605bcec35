"""The Ordered Hand game (SPEC section 9) as a registered game.

The engine, agents, referee and report live beside it in
:mod:`nop_sim.games.ordered_hand`; this module declares them, naming by dotted name
what would load numba or matplotlib (imported on first call,
:class:`nop_sim.games.registry.Deferred`): the runner's chunk (:mod:`.chunks`), the
histories and the referee's games (:mod:`.hands`), the kernels and the report.
A game can be won by several players at once (a shared win), so a fair seat
wins more than ``1/players`` of its games: :func:`fair_win_rate`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nop_sim.games.ordered_hand.policy import POLICY, read_agent_file
from nop_sim.games.ordered_hand.seats import check_seat, check_seats, seat_label
from nop_sim.games.ordered_hand.settings import OrderedSettings
from nop_sim.games.ordered_hand.sources import KERNEL_SOURCES
from nop_sim.games.registry import Game, register_game

if TYPE_CHECKING:  # pandas loads where a function needs it (the kernels' compile does not)
    import pandas as pd

__all__ = ["GAME", "fair_win_rate", "seat_label"]


def point_metrics(matches: pd.DataFrame, counts: pd.DataFrame) -> dict:
    return {"games": len(matches), "turns": int(counts["turns"].sum()),
            "median_turns": float(matches["turns"].median()),
            "shared_share": float(matches["shared"].mean()),
            "capped_share": float((matches["end"] == "capped").mean())}


def fair_win_rate(matches: pd.DataFrame, players: int) -> float:
    """A seat's win rate if every seat were equal: mean winners per game / players.

    Every sharer of a shared win counts it as a win (``place`` 1), so the
    seats' win rates add up to the mean number of winners, not to 1.
    """
    return float(matches["n_winners"].mean()) / players if len(matches) else 1 / players


GAME = register_game(Game(
    kind="ordered-hand",
    title="Ordered Hand",
    settings=OrderedSettings,
    sweep_fields=OrderedSettings.field_names(),
    default_seat="low",
    check_seat=check_seat,
    check_seats=check_seats,
    seat_label=seat_label,
    tables=("matches", "seats", "counts", "events"),
    work="turns",
    point_metrics=point_metrics,
    fair_win_rate=fair_win_rate,
    play_chunk="nop_sim.games.ordered_hand.chunks:play_chunk",
    fresh_hands="nop_sim.games.ordered_hand.hands:fresh_hands",
    stored_hands="nop_sim.games.ordered_hand.hands:stored_hands",
    referee="nop_sim.games.ordered_hand.hands:referee",
    write_report="nop_sim.games.ordered_hand.report:write_report",
    store_version=3,  # 3: no drafts table, no stand-in hands/unresolved columns
    kernels={"engine": "nop_sim.games.ordered_hand.engine:compile_kernels",
             "field driver": "nop_sim.games.ordered_hand.policy:compile_field_driver"},
    kernel_sources=KERNEL_SOURCES,
    agent_file=read_agent_file,
    policy=POLICY,
    open_table="nop_sim.games.ordered_hand.table:open_table",
    open_replay="nop_sim.games.ordered_hand.table:open_replay",
    bench="nop_sim.games.ordered_hand.bench:engine_bench",
))
