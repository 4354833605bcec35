"""Policies as rows of a parameter table (no Python in the hot loop).

Each seat's policy is one float64 row of ``N_AGENT_PARAMS`` numbers; the
columns are named in :data:`nop_sim.games.new_order.types.AGENT_PARAM_NAMES`:

=============  ===============================================================
random         1: every choice uniform over the legal ones (actions, sizes,
               promotions, hedges, discards, mucks, drafts, targets); 0: use
               the parameters below
call_margin    call when judged strength >= pot odds + call_margin
               (negative = looser); strength is the chance to beat all live
               opponents under the LIVE column, wilds and elevation
bet_threshold  bet or raise when strength >= bet_threshold
bluff          probability of betting / raising whatever the strength
station        1: never fold and never bet or raise (calls everything)
bet_fraction   pot-limit / no-limit bet size as a fraction of the pot
manipulate     promote your own category when manipulate * (gain in win
               chance) * pot exceeds the fee (0 = never manipulate)
hedge          hedge when hedge * expected payout exceeds the cost
               (0 = never hedge)
draw_aim       probability of drawing for the plan the column rewards most
               (else the classic "keep pairs, else high cards")
muck           probability of mucking a shown-down hand that cannot win
draft_skill    probability of drafting the most valuable Disruptor (else
               uniformly)
noise          width of uniform noise added to judged strength
manipulate_    promote only once at least this many board cards are dealt
 street        (0 to 3, read to the nearest whole card: 0.4 is 0, 0.6 is 1)
manipulate_    also weigh promoting the category just below the one likeliest
 hurt          to beat you, pushing it down a place: taken when manipulate *
               manipulate_hurt * (its estimated drop in that category's
               chance to win) * pot exceeds the fee and the own promotion
hedge_street   place or move the token only once at least this many board
               cards are dealt (0 to 3, to the nearest whole card)
hedge_move     move a placed token only when hedge * hedge_move * gain
               exceeds the cost (0 = never move once placed)
hedge_own      weight on the chance that your own category wins, in the
               hedge estimate (1 = as judged)
size_strength  pot-limit / no-limit size = pot * (bet_fraction +
               size_strength * (strength - 0.5)); strength here is without
               noise
nl_scale       multiplies the bet size under no-limit (the rules' or the
               no_limit card's)
draft_<id>     draft value of each Disruptor, one parameter per card id
               (``draft_windfall``...), in rough chips; the kernels add
               what depends on the seat (broker for manipulators,
               hedge_fund for hedgers, levy by the number of players)
=============  ===============================================================

Every parameter added after ``noise`` defaults to the value that plays as
the agents did before it existed, so the presets keep their results.

Presets: ``random``, ``station``, ``rock``, ``maniac``, ``manipulator``,
``hedger``, ``balanced``. A seat is a preset name, a mapping of parameters
(optionally with ``preset`` as the base), or a row of numbers.

A trained agent is a TOML file (``nop-sim train`` writes ``strong.toml``)
with an ``[agent]`` table of parameters and an optional ``[training]`` table of
provenance (scenario, matches, exploitability and its interval), summed up in
words by :func:`training_text`. A *mixture* of policies (a PSRO field) is an
array of ``[[agent]]`` tables instead, each with a ``weight``: a seat given
such a file plays one of its rows per match, row ``k`` with probability
``weight_k / sum(weights)``, drawn by :func:`draw_rows`. :func:`read_agent_file`
reads either form (an :class:`AgentFile`), :func:`write_agent_file` writes one,
and :func:`load_agent_file` reads a one-row file as ``(params, training)``. A file
may name a betting table (``[betting] table = "strong_table.npz"``): its seat plays
its betting decisions from that table, its row(s) every other decision.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from nop_sim.core.errors import AbstractionError, AgentError, did_you_mean
from nop_sim.games.agent_files import AgentFile, draw_rows, read_rows, training_text, write_rows
from nop_sim.games.new_order import types as T

__all__ = ["AgentError", "AgentFile", "DRAFT_VALUES", "PRESETS", "agent_bounds", "agent_row",
           "agent_table", "draw_rows", "load_agent_file", "preset_names", "read_agent_file",
           "training_text", "write_agent_file"]


# What a Disruptor card is worth to a heuristic drafter, in rough chips: the
# defaults of the ``draft_<id>`` parameters; the kernels add what depends on
# the seat (broker for manipulators, hedge_fund for hedgers, levy by the
# number of players).
DRAFT_VALUES = {
    "market_crash": 3.0, "insider_tip": 3.0, "short_sell": 2.0, "windfall": 5.0,
    "levy": 0.0, "bull_run": 1.0, "restore_order": 1.0, "swap_any": 4.0, "purge": 2.0,
    "elevator": 6.0, "wild_deuces": 7.0, "broker": 2.0, "deep_draw": 3.0, "hedge_fund": 1.0,
    "ante_exempt": 3.0, "safety_net": 6.0, "deuces_wild": 1.0, "inflation": 0.5,
    "price_ceiling": 1.0, "double_ante": 0.5, "third_card": 1.0, "frozen_market": 1.0,
    "hedge_boom": 1.0, "inversion": 1.0, "no_limit": 1.0,
}
assert tuple(DRAFT_VALUES) == T.DISRUPTOR_IDS


def _row(**values: float) -> dict[str, float]:
    base = dict(
        random=0.0, call_margin=0.0, bet_threshold=0.7, bluff=0.02, station=0.0,
        bet_fraction=0.6, manipulate=0.0, hedge=0.0, draw_aim=1.0, muck=1.0,
        draft_skill=1.0, noise=0.05,
        manipulate_street=0.0, manipulate_hurt=0.0, hedge_street=0.0, hedge_move=1.0,
        hedge_own=1.0, size_strength=0.0, nl_scale=1.0,
    )
    base.update({f"draft_{card}": v for card, v in DRAFT_VALUES.items()})
    base.update(values)
    return base


PRESETS: dict[str, dict[str, float]] = {
    "random": _row(random=1.0, draw_aim=0.0, muck=0.5, draft_skill=0.0, noise=0.0),
    "station": _row(station=1.0, bet_threshold=2.0, bluff=0.0, call_margin=-1.0,
                    muck=0.0, draft_skill=0.5),
    "rock": _row(call_margin=0.15, bet_threshold=0.8, bluff=0.0, bet_fraction=0.5),
    "maniac": _row(call_margin=-0.25, bet_threshold=0.35, bluff=0.3, bet_fraction=1.0,
                   manipulate=0.5, hedge=0.3, noise=0.2),
    "manipulator": _row(call_margin=0.0, bet_threshold=0.65, bluff=0.05, manipulate=3.0),
    "hedger": _row(call_margin=0.0, bet_threshold=0.65, bluff=0.05, hedge=2.0),
    "balanced": _row(call_margin=0.02, bet_threshold=0.65, bluff=0.05, manipulate=1.0,
                     hedge=1.0),
}

# (lowest, highest) of each parameter
_BOUNDS = {
    "random": (0.0, 1.0), "call_margin": (-1.0, 1.0), "bet_threshold": (0.0, 2.0),
    "bluff": (0.0, 1.0), "station": (0.0, 1.0), "bet_fraction": (0.0, 10.0),
    "manipulate": (0.0, 100.0), "hedge": (0.0, 100.0), "draw_aim": (0.0, 1.0),
    "muck": (0.0, 1.0), "draft_skill": (0.0, 1.0), "noise": (0.0, 1.0),
    "manipulate_street": (0.0, 3.0), "manipulate_hurt": (0.0, 10.0),
    "hedge_street": (0.0, 3.0), "hedge_move": (0.0, 1.0), "hedge_own": (0.0, 5.0),
    "size_strength": (-5.0, 5.0), "nl_scale": (0.1, 5.0),
    **{f"draft_{card}": (-10.0, 20.0) for card in T.DISRUPTOR_IDS},
}
assert tuple(_BOUNDS) == T.AGENT_PARAM_NAMES


def agent_bounds() -> tuple[np.ndarray, np.ndarray]:
    """(lowest, highest) float64 ``(N_AGENT_PARAMS,)`` of each parameter, in row order
    (the box a search over policies stays in)."""
    lo, hi = zip(*(_BOUNDS[name] for name in T.AGENT_PARAM_NAMES), strict=True)
    return np.array(lo, T.PARAM_DTYPE), np.array(hi, T.PARAM_DTYPE)


def preset_names() -> tuple[str, ...]:
    return tuple(PRESETS)


def _preset(name: str) -> dict[str, float]:
    if name not in PRESETS:
        raise AgentError(f"unknown agent preset {name!r}.{did_you_mean(name, PRESETS)} "
                         f"Allowed: {', '.join(PRESETS)}")
    return dict(PRESETS[name])


def agent_row(spec: str | Mapping[str, Any] | Sequence[float]) -> np.ndarray:
    """One seat's parameter row, float64 ``(N_AGENT_PARAMS,)``.

    ``spec`` is a preset name, a mapping of parameter -> value (``preset``
    names the base, default ``balanced``) or a full row of numbers. A seat that
    holds a mixture of rows (a mapping with ``rows``, more than one: a seat read
    from a mixture file) is no one row: it is refused, naming the file.
    """
    if isinstance(spec, str):
        return _preset_row(spec).copy()
    if isinstance(spec, Mapping):
        rows = getattr(spec, "rows", ())
        if len(rows) > 1:
            raise AgentError(
                f"{getattr(spec, 'label', 'the agent')} (file {getattr(spec, 'path', '?')}) is "
                f"a mixture of {len(rows)} rows, which plays one row per match (nop-sim run), "
                f"not one fixed row: seat one row of it, or a one-row agent file")
        spec = dict(spec)
        values = _preset(str(spec.pop("preset", "balanced")))
        for key, value in spec.items():
            if key not in values:
                raise AgentError(
                    f"unknown agent parameter {key!r}.{did_you_mean(key, values)} Allowed: "
                    f"preset, {', '.join(T.AGENT_PARAM_NAMES)}"
                )
            values[key] = value
    else:
        row = np.asarray(spec, dtype=float)
        if row.shape != (T.N_AGENT_PARAMS,):
            raise AgentError(
                f"an agent row needs {T.N_AGENT_PARAMS} numbers "
                f"({', '.join(T.AGENT_PARAM_NAMES)}), got shape {row.shape}"
            )
        values = dict(zip(T.AGENT_PARAM_NAMES, row.tolist(), strict=True))
    out = np.empty(T.N_AGENT_PARAMS, dtype=T.PARAM_DTYPE)
    for i, name in enumerate(T.AGENT_PARAM_NAMES):
        value = values[name]
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
            raise AgentError(f"agent parameter {name} = {value!r} is not a number")
        lo, hi = _BOUNDS[name]
        if not lo <= float(value) <= hi:
            raise AgentError(
                f"agent parameter {name} = {value!r} is out of range: allowed {lo} to {hi}"
            )
        out[i] = float(value)
    return out


@lru_cache(maxsize=64)
def _preset_row(name: str) -> np.ndarray:
    """A preset's checked row, built once (a runner plays thousands of batches)."""
    return agent_row(_preset(name))


def agent_table(seats: str | Sequence, players: int) -> np.ndarray:
    """The parameter table, float64 ``(players, N_AGENT_PARAMS)``.

    ``seats`` is one spec for every seat or a list of one spec per seat.
    """
    if isinstance(seats, (str, Mapping)):
        seats = [seats] * players
    seats = list(seats)
    if len(seats) != players:
        raise AgentError(f"{len(seats)} agents given for {players} players: give one per seat")
    return np.stack([agent_row(s) for s in seats]).astype(T.PARAM_DTYPE)


def read_agent_file(path: str | Path) -> AgentFile:
    """Read an agent file: one ``[agent]`` table, or a mixture of ``[[agent]]`` tables
    (:func:`nop_sim.games.agent_files.read_rows`), every row checked by :func:`agent_row`,
    and the betting table its ``[betting]`` table names, if any, loaded once
    (``betting``: the abstraction's ``[train]`` keys and the weights, float64
    (n_infosets, n_actions); :func:`~nop_sim.games.new_order.abstraction.read_table`).
    Raises :class:`AgentError`, one line naming the file (and the table and row)."""
    f = read_rows(path, agent_row, T.AGENT_PARAM_NAMES, AgentError, betting=True)
    if f.betting_table is None:
        return f
    # here: the abstraction reads the kernels' layout, which a referee must not load
    from nop_sim.games.new_order.abstraction import read_table

    try:
        abstraction, weights = read_table(f.betting_table)
    except AbstractionError as exc:
        raise AgentError(f"agent file {path}: [betting] table: {exc}") from None
    return dataclasses.replace(f, betting=(abstraction.to_train(), weights))


def load_agent_file(path: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Read a one-row agent file: ``(params, training)``.

    ``params`` is the file's ``[agent]`` table (parameter -> value, optionally
    ``preset`` as the base; a one-row ``[[agent]]`` array's row, without its
    weight), checked by :func:`agent_row`; ``training`` is its ``[training]``
    table, ``{}`` when the file has none. Raises :class:`AgentError` as
    :func:`read_agent_file` does, and for a mixture of several rows (read it
    with :func:`read_agent_file`).
    """
    agent = read_agent_file(path)
    if agent.is_mixture:
        raise AgentError(f"agent file {path}: holds a mixture of {len(agent.rows)} rows "
                         f"([[agent]] tables), not one agent: read it with read_agent_file, "
                         f"or seat it (\"@{path}\") to play one row per match")
    return dict(agent.rows[0]), dict(agent.training)


def write_agent_file(path: str | Path, rows: Sequence, weights: Sequence[float],
                     training: Mapping[str, Any], header: str = "", *,
                     betting: Mapping[str, Any] | None = None) -> Path:
    """Write an agent file atomically (:func:`nop_sim.games.agent_files.write_rows`); a row
    is a parameter table or a full row of ``N_AGENT_PARAMS`` numbers, written as every
    parameter by name, checked by :func:`agent_row`. ``betting``: the ``[betting]``
    table, ``{"table": "strong_table.npz"}`` (a file :func:`~nop_sim.games.new_order.
    abstraction.write_table` wrote, named relative to ``path``'s folder): the seat then
    plays its betting decisions from that table, its rows the others. Raises
    :class:`AgentError`."""
    return write_rows(path, rows, weights, training, header, agent_row, T.AGENT_PARAM_NAMES,
                      AgentError, betting=betting)
