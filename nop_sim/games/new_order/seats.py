"""New Order's seats: a seat's spec checked, its label, and the row a mixture seat plays.

A seat is a preset name, a table of parameters or an agent file
(:class:`nop_sim.games.registry.SeatFile`); a file of several rows is a mixture, which
plays in each match the row :func:`mix_rows` draws for it, and :func:`match_tables`
gives every combination of rotation and rows drawn its agent table. An agent file that
names a betting table (``SeatFile.betting``) plays its betting decisions from it:
:func:`seat_betting` gives the engine those tables beside the agent tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from nop_sim.core.errors import did_you_mean
from nop_sim.games import registry
from nop_sim.games.new_order.agents import (
    AgentError,
    agent_row,
    agent_table,
    draw_rows,
    preset_names,
)

if TYPE_CHECKING:  # the abstraction reads the kernels' layout: imported where used
    from nop_sim.games.new_order.abstraction import BettingTables

__all__ = ["MIX_TAG", "check_seat", "check_seats", "is_mixture", "match_tables", "mix_rows",
           "row_spec", "seat_betting", "seat_label"]

# A mixture seat's row for match g of a run with seed s, at seat k:
# ``draw_rows(weights, (s, MIX_TAG), [g], k)`` (:func:`mix_rows`); the tag keeps the
# draw apart from every other stream drawn from the run's seed.
MIX_TAG = 0x6D6978  # "mix"


def check_seat(spec) -> None:
    """A preset name or a parameter table (an agent file's is one, and each row of a
    mixture file, overrides included, is checked here); an unknown preset name names
    the closest."""
    if isinstance(spec, str):
        names = preset_names()
        if spec not in names:
            raise ValueError(f"unknown preset {spec!r}." + did_you_mean(spec, names)
                             + f" Presets: {', '.join(names)}")
    elif not isinstance(spec, Mapping):
        raise ValueError(f"{spec!r} is not a preset name or a parameter table")
    elif isinstance(spec, registry.SeatFile):
        for k, row in enumerate(spec.rows):
            try:
                agent_row(row)
            except AgentError as exc:
                where = f", row {k}" if spec.is_mixture else ""
                raise ValueError(f"{spec.label} (agent file {spec.path}{where}): {exc}") from None


def check_seats(specs: list, players: int) -> None:
    # AgentError is a ValueError naming the parameter; a mixture's rows are checked
    # one by one (check_seat), its first stands for it here
    agent_table([row_spec(s, 0) for s in specs], players)
    seat_betting([specs], np.zeros(1, np.int64))  # the betting tables: one abstraction


def is_mixture(spec) -> bool:
    """A seat read from an agent file of several rows."""
    return isinstance(spec, registry.SeatFile) and spec.is_mixture


def row_spec(spec, row: int):
    """The agent a seat plays: a mixture's row ``row`` (``>= 0``), else the spec itself."""
    return spec.rows[row] if is_mixture(spec) else spec


def mix_rows(seed: int, specs: list, match_ids: np.ndarray) -> np.ndarray:
    """The mixture row each seat plays in each match: int64 ``(n, players)``, -1 where the
    seat's agent is not a mixture.

    Seat ``k`` given a mixture plays ``draw_rows(weights, (seed, MIX_TAG),
    match_ids, k)``: a function of the run's seed, the run's match id and the seat
    alone, so chunks, workers and Dask draw alike.
    """
    match_ids = np.asarray(match_ids, dtype=np.int64)
    out = np.full((match_ids.size, len(specs)), -1, np.int64)
    for seat, spec in enumerate(specs):
        if is_mixture(spec):
            out[:, seat] = draw_rows(spec.weights, (seed, MIX_TAG), match_ids, seat)
    return out


# a table without ``preset`` starts from ``balanced`` (:func:`nop_sim.games.new_order.agents.agent_row`)
seat_label = partial(registry.seat_label, default_preset="balanced")


def match_tables(specs: list[list], rotation: np.ndarray, mix_row: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The agent tables the matches seat, one per combination of rotation and mixture rows
    drawn, and each match's table: float64 ``(k, players, N_AGENT_PARAMS)`` and int64
    ``(n,)``. ``specs[r]``: rotation ``r``'s seat specs; ``mix_row``: :func:`mix_rows`'s
    rows of each match."""
    combos, table_of = _distinct_rows(np.column_stack([rotation, mix_row]).astype(np.int64))
    # each seat's rows, checked once: a mixture's every row, another agent's one row
    choices = [[np.stack([agent_row(row) for row in spec.rows]) if is_mixture(spec)
                else agent_row(spec)[None] for spec in seats] for seats in specs]
    tables = np.stack([np.stack([choices[combo[0]][seat][max(row, 0)]
                                 for seat, row in enumerate(combo[1:])]) for combo in combos])
    return tables, table_of.reshape(-1).astype(np.int64)


def _distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(rows, axis=0, return_inverse=True)`` for int64 rows of values >= -1:
    each row read as one number (its entries the digits, the first most significant, so
    the numbers sort as the rows do). ``axis=0`` sorts the rows as records: 5 ms for a
    part of the strong field's matches, a tenth of that as numbers."""
    digits = rows + 1
    radix = digits.max(axis=0, initial=0) + 1
    if rows.size == 0 or np.log2(radix.astype(float)).sum() > 62:  # would not fit an int64
        return np.unique(rows, axis=0, return_inverse=True)
    weight = np.concatenate([np.cumprod(radix[::-1])[::-1][1:], [1]]).astype(np.int64)
    _, first, inverse = np.unique(digits @ weight, return_index=True, return_inverse=True)
    return rows[first], inverse


def seat_betting(specs: list[list], table_rotation: np.ndarray) -> BettingTables | None:
    """The betting tables the seats play, beside the agent tables: None when no seat's
    agent file names one (``SeatFile.betting``).

    ``specs[r]``: rotation ``r``'s seat specs; ``table_rotation``: int (k,), the rotation
    each agent table seats (``match_tables``' tables, or one table a rotation:
    ``arange(R)``). The distinct tables (one per file's weights) are stacked in the order
    first seated; ``seat_table`` (k, players) gives each agent table's seats theirs, -1
    for a seat without one. Every table must be over one abstraction: two are refused in
    one line (``ValueError``) naming both files.
    """
    index: dict[str, int] = {}   # a table's betting_id -> its place in the stack
    tables = []
    first = None                 # (the abstraction's [train] keys, its file)
    rows = np.full((len(table_rotation), len(specs[0])), -1, np.int64)
    for r, seats in enumerate(specs):
        for seat, spec in enumerate(seats):
            train_weights = getattr(spec, "betting", None)
            if train_weights is None:
                continue
            train, weights = train_weights
            if first is None:
                first = (train, spec.betting_table)
            elif train != first[0]:
                raise ValueError(f"betting tables over two abstractions cannot play in one "
                                 f"run: {first[1]} ({_train_text(first[0])}) and "
                                 f"{spec.betting_table} ({_train_text(train)})")
            if spec.betting_id not in index:
                index[spec.betting_id] = len(tables)
                tables.append(weights)
            rows[np.asarray(table_rotation) == r, seat] = index[spec.betting_id]
    if first is None:
        return None
    # here: the abstraction reads the kernels' layout, which a referee must not load
    from nop_sim.games.new_order.abstraction import Abstraction, BettingTables

    return BettingTables(Abstraction.from_train(first[0], f"{first[1]}: abstraction"),
                         np.stack(tables), rows)


def _train_text(train: Mapping) -> str:
    return ", ".join(f"{k} = {v}" for k, v in train.items())
