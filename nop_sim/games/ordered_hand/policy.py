"""Ordered Hand's policy space: what ``nop-sim train``, ``value`` and ``exploit`` search.

An agent is the kernels' parameter row (:mod:`nop_sim.games.ordered_hand.kernels.play`,
columns ``A_*``), named here in column order (:data:`NAMES`):

=============  ===============================================================
play           which block to play: 1 low (weakest that beats), 2 high (most
               cards), 3 strong (strongest); 0, random, is a style (below)
check_prob     chance to check although a play exists
insert         where a drawn card goes: 0 random, 1 end, 2 builder
bet            1: bet when holding a block that beats a non-empty middle
bet_prob       chance to bet when ``bet`` applies
respond        the answer to a Bet; searches pin it to 4, ``chance``
take_win       1: always play a block that empties the sequence
raise_prob     chance to raise when a raise is found (after a one-card move)
call_prob      chance to call, when not raising (else fold)
call_move      1: a call moves a card (the first move the raise search tried)
=============  ===============================================================

The box a search spans is every legal value of these, except the random
style: ``play`` = random (and ``respond`` = random) choose uniformly among
legal moves, Bet included whatever ``bet`` says, so they are a switch like
New Order's ``random``, not a skill; the ``random`` preset joins every free
search as a start, as it is. Choices and flags are rounded (``discrete``).
Only the advanced rules (``betting``, two players) read ``bet`` to
``call_move``, so a search moves them only there.

Mechanics (restricted play): ``betting`` (``bet`` = 0: never bets),
``raising`` (``raise_prob`` = 0: never raises) and ``repositioning``
(``raise_prob`` = 0 and ``call_move`` = 0: never moves a card of its
sequence; a Raise needs a move, so it never raises either).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from nop_sim.games.agent_files import AgentFile, draw_rows, read_rows, write_rows
from nop_sim.games.ordered_hand.settings import OrderedSettings
from nop_sim.games.registry import FieldPlay, PolicySpace, SeatFile

# Imports inside functions: start-up, registering the game must not load numba (see below)
# The agents and the kernels are imported where they are used, never at the top: the
# game registers this module on import, and importing the referee must load no kernel
# (tests/test_referee_independent.py). The kernel's constants are therefore written
# out here; tests/test_policy_spaces.py checks them against the kernel's.

__all__ = ["MECHANICS", "NAMES", "POLICY", "agent_row", "check_spec", "compile_field_driver",
           "play_field",
           "play_seats", "read_agent_file", "spec_of", "write_agent_file"]

NAMES = ("play", "check_prob", "insert", "bet", "bet_prob", "respond", "take_win",
         "raise_prob", "call_prob", "call_move")  # the kernel's A_* columns, in order
N_AGENT_PARAMS = len(NAMES)
PLAY_LOW, PLAY_STRONG = 1, 3            # K.PLAY_*; 0 is PLAY_RANDOM
INSERT_RANDOM, INSERT_BUILDER = 0, 2    # K.INSERT_*
RESPOND_RANDOM, RESPOND_CHANCE = 0, 4   # K.RESPOND_*
_RESPOND = NAMES.index("respond")

MECHANICS: dict[str, dict[str, float]] = {
    "betting": {"bet": 0.0},
    "raising": {"raise_prob": 0.0},
    "repositioning": {"raise_prob": 0.0, "call_move": 0.0},
}

_BOUNDS = {"play": (PLAY_LOW, PLAY_STRONG), "check_prob": (0.0, 1.0),
           "insert": (INSERT_RANDOM, INSERT_BUILDER), "bet": (0.0, 1.0),
           "bet_prob": (0.0, 1.0), "respond": (RESPOND_RANDOM, RESPOND_CHANCE),
           "take_win": (0.0, 1.0), "raise_prob": (0.0, 1.0), "call_prob": (0.0, 1.0),
           "call_move": (0.0, 1.0)}
_BETTING = ("bet", "bet_prob", "raise_prob", "call_prob", "call_move")
_FLAGS = ("bet", "take_win", "call_move")


def _choices() -> dict[str, dict[str, int]]:
    """name -> {choice: kernel value} of the parameters that choose among styles."""
    from nop_sim.games.ordered_hand.agents import _INSERT, _PLAY, _RESPOND

    return {"play": _PLAY, "insert": _INSERT, "respond": _RESPOND}


def preset_names() -> tuple[str, ...]:
    from nop_sim.games.ordered_hand.agents import PRESETS

    return tuple(PRESETS)


def bounds() -> tuple[np.ndarray, np.ndarray]:
    """(lowest, highest) float64 over :data:`NAMES`: the box a search spans."""
    lo, hi = zip(*(_BOUNDS[n] for n in NAMES), strict=True)
    return np.array(lo, np.float64), np.array(hi, np.float64)


def searched(settings) -> tuple[str, ...]:
    """The parameters that can matter under ``settings``: the Bet's only under betting."""
    return tuple(n for n in NAMES if n != "respond" and (settings.betting or n not in _BETTING))


def spec_of(row) -> dict[str, Any]:
    """A row of numbers as an agent table :class:`OrderedAgent` takes (choices by name,
    flags as booleans): what an agent file holds."""
    row = np.asarray(row, float)
    choices = _choices()
    out: dict[str, Any] = {}
    for i, name in enumerate(NAMES):
        if name in choices:
            out[name] = next(k for k, v in choices[name].items() if v == int(round(row[i])))
        elif name in _FLAGS:
            out[name] = bool(row[i] > 0)
        else:
            out[name] = float(row[i])
    return out


def agent_row(spec: str | Mapping[str, Any] | Sequence[float]) -> np.ndarray:
    """One seat's parameter row, float64 ``(N_AGENT_PARAMS,)``, from a preset name, a table
    of :class:`OrderedAgent` fields (a one-row :class:`SeatFile` too) or a row of numbers;
    ``ValueError`` naming what is wrong (a mixture is no one row)."""
    from nop_sim.games.ordered_hand.agents import OrderedAgent, agent_from_spec

    if isinstance(spec, (str, Mapping, OrderedAgent)):
        return _as_chance(agent_from_spec(spec).row())  # refuses a mixture: no one row
    row = np.asarray(spec, dtype=float)
    if row.shape != (N_AGENT_PARAMS,):
        raise ValueError(f"an Ordered Hand agent row needs {N_AGENT_PARAMS} numbers "
                         f"({', '.join(NAMES)}), got shape {row.shape}")
    choices = _choices()
    for i, name in enumerate(NAMES):
        if name in choices and (row[i] != round(row[i])
                                or int(row[i]) not in choices[name].values()):
            raise ValueError(f"agent parameter {name} = {row[i]} is not one of "
                             f"{sorted(choices[name].values())}")
        if name not in choices and not 0.0 <= row[i] <= 1.0:
            raise ValueError(f"agent parameter {name} = {row[i]} is out of range: "
                             f"allowed 0 to 1")
    return _as_chance(agent_from_spec(spec_of(row)).row())


def _as_chance(row: np.ndarray) -> np.ndarray:
    """``row`` with a fixed answer to a Bet other than random written as the chance answer
    it is a corner of (the same games, bit for bit: its row carries the corner), so a
    preset's row is the row a search pinned to ``respond = chance`` plays as it."""
    if int(row[_RESPOND]) != RESPOND_RANDOM:
        row = row.copy()
        row[_RESPOND] = RESPOND_CHANCE
    return row


def read_agent_file(path: str | Path) -> AgentFile:
    """An Ordered Hand agent file: ``[agent]`` or ``[[agent]]`` tables of
    :class:`OrderedAgent` fields (:func:`nop_sim.games.agent_files.read_rows`)."""
    return read_rows(path, agent_row, NAMES)


def write_agent_file(path: str | Path, rows: Sequence, weights: Sequence[float],
                     training: Mapping[str, Any], header: str = "") -> Path:
    """Write rows (of numbers, or tables) as an agent file :func:`read_agent_file` and the
    game's seats take: each row as its :class:`OrderedAgent` fields."""
    tables = [dict(r) if isinstance(r, Mapping) else spec_of(r) for r in rows]
    return write_rows(path, tables, weights, training, header, agent_row, NAMES)


def _threads(threads: int | None, n: int) -> int:
    return max(1, min(n, (os.cpu_count() or 1) if threads is None else int(threads)))


def play_field(settings, tables: np.ndarray, table_of: np.ndarray, states: np.ndarray,
               threads: int | None = None) -> FieldPlay:
    """Play game ``i`` with the table ``tables[table_of[i]]`` from RNG state ``states[i]``
    (not modified): places (winners 1, every sharer of a shared win; the others 2) and
    turns. Threads each take a run of games; the count never changes a result."""
    from nop_sim.games.ordered_hand.kernels import play as K

    tables = np.ascontiguousarray(tables, dtype=np.float64)
    if tables.ndim != 3 or tables.shape[1:] != (settings.players, K.N_AGENT_PARAMS):
        raise ValueError(f"tables must be float64 (k, players = {settings.players}, "
                         f"{K.N_AGENT_PARAMS}), got shape {tables.shape}")
    table_of = np.asarray(table_of, np.int64)
    states = np.array(states, dtype=np.uint64)  # a copy: the kernel advances it
    n = table_of.shape[0]
    games = np.zeros((n, K.N_FIELDS), dtype=np.int32)
    args = (1, settings.players, settings.hand_size, settings.betting, settings.max_turns,
            settings.column.positions().astype(np.int64), tables)

    def run(a: int, b: int) -> None:
        K._play_tables(*args, table_of[a:b], states[a:b], games[a:b])

    workers = _threads(threads, n)
    cuts = np.linspace(0, n, workers + 1).astype(int)
    if workers == 1:
        run(0, n)
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(run, cuts[:-1], cuts[1:]))
    seats = np.arange(settings.players)
    won = (games[:, K.F_WINNERS, None] >> seats) & 1
    turns = games[:, K.F_TURNS].astype(np.int64)
    return FieldPlay(place=np.where(won == 1, 1, 2), work=turns,
                     seat_work=np.repeat(turns[:, None], settings.players, axis=1))


def compile_field_driver() -> None:
    """Compile (or load) the per-game-table driver (training, mixture seats)."""
    from nop_sim.kernels.rng import keyed_states

    s = OrderedSettings(players=2, betting=True)
    play_field(s, np.stack([agent_row("bettor"), agent_row("raiser")])[None],
               np.zeros(1, np.int64), keyed_states((0,), 1), threads=1)


_MIX_TAG = 0x6D6978  # "mix": a mixture seat's draws have keys of their own


def seat_table(specs: list, seed: int) -> np.ndarray:
    """float64 (seats, N_AGENT_PARAMS): the agents of game 0 of ``seed`` (a mixture seat's
    row drawn as :func:`play_seats` draws it): the table ``nop-sim play`` seats."""
    rows = []
    for seat, spec in enumerate(specs):
        if isinstance(spec, SeatFile) and spec.is_mixture:
            k = draw_rows(spec.weights, (seed, _MIX_TAG), np.zeros(1, np.int64), seat)[0]
            rows.append(agent_row(spec.rows[k]))
        else:
            rows.append(agent_row(spec))
    return np.stack(rows).astype(np.float64)


def play_seats(settings, specs: list, n_games: int, seed: int, log: bool = False):
    """A runner batch: ``n_games`` games of one rotation's seat ``specs`` from ``seed``.

    Without a mixture seat it is :func:`~nop_sim.games.ordered_hand.engine.play_matches`.
    A mixture seat (an agent file of several rows) plays row ``k`` of game ``g`` drawn
    by :func:`nop_sim.games.agent_files.draw_rows` from ``(seed, "mix")``; the deals are
    those ``play_matches`` gives for ``seed``. Logging mixtures is not supported.
    """
    from nop_sim.games.ordered_hand.agents import agent_from_spec
    from nop_sim.games.ordered_hand.engine import (
        GAMES_PER_CHUNK,
        OrderedResult,
        _chunk_states,
        play_matches,
    )
    from nop_sim.games.ordered_hand.kernels import play as K

    mixed = [isinstance(s, SeatFile) and s.is_mixture for s in specs]
    if not any(mixed):
        return play_matches(settings, [agent_from_spec(s) for s in specs], n_games,
                            seed=seed, workers=1, log=log)
    if log:
        raise ValueError("an Ordered Hand seat given a mixture file cannot be logged: set "
                         "[run] log_sample = 0")
    ids = np.arange(n_games)
    tables = np.empty((n_games, settings.players, K.N_AGENT_PARAMS))
    for seat, spec in enumerate(specs):
        if mixed[seat]:
            rows = np.stack([agent_row(r) for r in spec.rows])
            tables[:, seat] = rows[draw_rows(spec.weights, (seed, _MIX_TAG), ids, seat)]
        else:
            tables[:, seat] = agent_row(spec)
    games = np.zeros((n_games, K.N_FIELDS), dtype=np.int32)
    states = _chunk_states(int(seed), 0, -(-n_games // GAMES_PER_CHUNK))
    K._play_tables(GAMES_PER_CHUNK, settings.players, settings.hand_size, settings.betting,
                   settings.max_turns, settings.column.positions().astype(np.int64), tables,
                   ids.astype(np.int64), states, games)
    return OrderedResult(settings=settings, agent_names=(), agents=(), seed=int(seed),
                         first_game=0, games=games)


def check_spec(spec) -> None:
    """Raise ``ValueError`` when a seat spec (a mixture: every row) is no agent."""
    for row in spec.rows if isinstance(spec, SeatFile) else [spec]:
        agent_row(row)


POLICY = PolicySpace(
    names=NAMES,
    bounds=bounds,
    searched=searched,
    mechanics=MECHANICS,
    presets=preset_names,
    agent_row=agent_row,
    read_agent_file=read_agent_file,
    write_agent_file=write_agent_file,
    play_field=play_field,
    fixed={"respond": float(RESPOND_CHANCE)},
    discrete=("play", "insert", "bet", "respond", "take_win", "call_move"),
)
