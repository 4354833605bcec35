"""New Order's policy space: what ``nop-sim train``, ``value`` and ``exploit`` search.

Declared as a :class:`~nop_sim.games.registry.PolicySpace` (the Game's ``policy``):
the agent rows of :mod:`nop_sim.games.new_order.agents`, their whole legal
box, the parameters that matter under a rule set (bet sizes only where the
betting is pot-limit or no-limit, ``nl_scale`` only under no-limit, a draft
value only for a Disruptor the mix holds), the mechanics restricted play
takes away, and :func:`play_field` over per-match tables.

``random`` and ``station`` are switches (the random and calling-station
styles), not skills: a search keeps them at 0, and the presets that set
them join every search as starts. Where a wide range matters mostly at its
low end (a weight of 100 acts much like one of 20), the search raises the
unit coordinate to a power (:data:`SEARCH_POWER`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from nop_sim.core.stats import wilson_interval
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.agents import (
    agent_bounds,
    agent_row,
    preset_names,
    read_agent_file,
    write_agent_file,
)
from nop_sim.games.registry import FieldPlay, PolicySpace

if TYPE_CHECKING:  # pandas loads where a function needs it (the kernels' compile does not)
    import pandas as pd

__all__ = ["MECHANICS", "POLICY", "SEARCH_POWER", "play_field", "searched"]

# the unit coordinate's power per parameter (1 where not listed)
SEARCH_POWER: dict[str, float] = {
    "manipulate": 3.0, "hedge": 3.0, "bet_fraction": 2.0, "manipulate_hurt": 2.0,
    "nl_scale": 2.0, "hedge_own": 2.0,
}

# restricted play (Jaffe et al. 2012): a mechanic, and the parameters that take it away
MECHANICS: dict[str, dict[str, float]] = {
    "manipulation": {"manipulate": 0.0},
    "hedging": {"hedge": 0.0},
    "drafting": {"draft_skill": 0.0},     # a random pick instead of a chosen one
    "drawing": {"draw_aim": 0.0},         # keep pairs, else high cards
    "bluffing": {"bluff": 0.0},
}

_SWITCHES = {"random": 0.0, "station": 0.0}
_SIZE = ("bet_fraction", "size_strength")


def searched(settings) -> tuple[str, ...]:
    """The parameters that can matter under ``settings`` (a
    :class:`~nop_sim.games.new_order.settings.Settings`), in row order."""
    arr, mix = settings.to_arrays()
    betting = T.BETTING_NAMES[int(arr[T.S_BETTING])]
    in_mix = {T.DISRUPTOR_IDS[int(t)] for t in np.unique(mix.deck)} if mix.deck.size else set()
    no_limit = betting == "no-limit" or "no_limit" in in_mix  # the card makes it so
    names = []
    for name in T.AGENT_PARAM_NAMES:
        if name in _SIZE and betting == "limit" and not no_limit:
            continue
        if name == "nl_scale" and not no_limit:
            continue
        if name.startswith("draft_") and name != "draft_skill" and name[6:] not in in_mix:
            continue
        if name == "draft_skill" and not in_mix:
            continue
        names.append(name)
    return tuple(names)


def play_field(settings, tables: np.ndarray, table_of: np.ndarray, states: np.ndarray,
               threads: int | None = None, streams: bool = True, betting=None) -> FieldPlay:
    """:func:`nop_sim.games.new_order.engine.play_field` as a :class:`FieldPlay`: places,
    hands per match, each seat's hands (to its elimination), and the extras ``hedges``
    (tokens placed, ``(n, players)``) and ``drafted`` (``(n, players, 25)``).

    ``betting``: ``(tables, seat_table)``, the betting tables some seats bet by
    (:func:`field_tables`' ``(train keys, float64 (m, infosets, actions))``) and each
    agent table's seats' table, int64 ``(k, players)`` (-1: the row alone)."""
    # here, not at the top: the engine loads numba's kernels, which reading a policy needs not
    from nop_sim.games.new_order.abstraction import Abstraction, BettingTables
    from nop_sim.games.new_order.engine import play_field as play

    bt = None
    if betting is not None:
        (train, weights), seat_table = betting
        bt = BettingTables(Abstraction.from_train(train), weights, seat_table)
    # split streams: a candidate and the field's occupant of its seat see the same cards
    # at every hand that starts alike, and the other seats the same noise
    r = play(settings, tables, table_of, states, threads=threads, streams=streams, betting=bt)
    total = r.match[:, T.M_HANDS]
    elim = r.player[:, :, T.PL_ELIMINATED_HAND]
    return FieldPlay(place=r.player[:, :, T.PL_PLACE], work=total,
                     seat_work=np.where(elim > 0, elim, total[:, None]),
                     extras={"hedges": r.player[:, :, T.PL_HEDGES_PLACED],
                             "drafted": r.drafted})


def disruptor_table(settings, won: np.ndarray, extras) -> pd.DataFrame:
    """Per Disruptor of the mix: a strong seat's win rate when it drafted the card and
    when it did not (``won`` ``(n,)`` of one seat per match, ``extras["drafted"]`` that
    seat's ``(n, 25)`` drafts)."""
    import pandas as pd  # not at import: the kernels' compile must not need it (install_order.py)
    drafted = np.asarray(extras["drafted"]) > 0
    _, mix = settings.to_arrays()
    in_mix = sorted({int(t) for t in mix.deck})
    rows = []
    for card in in_mix:
        has = drafted[:, card]
        k1, n1 = int(won[has].sum()), int(has.sum())
        k0, n0 = int(won[~has].sum()), int((~has).sum())
        lo1, hi1 = wilson_interval(k1, n1)
        lo0, hi0 = wilson_interval(k0, n0)
        rows.append({"card": T.DISRUPTOR_IDS[card], "matches_drafted": n1,
                     "win_drafted": k1 / n1 if n1 else np.nan, "win_drafted_low": float(lo1),
                     "win_drafted_high": float(hi1), "matches_not": n0,
                     "win_not": k0 / n0 if n0 else np.nan, "win_not_low": float(lo0),
                     "win_not_high": float(hi0)})
    out = pd.DataFrame(rows)
    if len(out):
        out["difference"] = out["win_drafted"] - out["win_not"]
    return out


POLICY = PolicySpace(
    names=T.AGENT_PARAM_NAMES,
    bounds=agent_bounds,
    searched=searched,
    mechanics=MECHANICS,
    presets=preset_names,
    agent_row=agent_row,
    read_agent_file=read_agent_file,
    write_agent_file=write_agent_file,
    play_field=play_field,
    fixed=_SWITCHES,
    power=SEARCH_POWER,
    field_tables=disruptor_table,
    # by name: the trainer and its check load the betting abstraction (the kernels'
    # layout), which registering the game, and the referee, must not
    regret="nop_sim.games.new_order.cfr:TRAINER",
    table_response="nop_sim.games.new_order.cfr:field_response",
)
