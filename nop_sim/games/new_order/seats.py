"""New Order's seats: a seat's spec checked, its label, and the row a mixture seat plays.

A seat is a preset name, a table of parameters or an agent file
(:class:`nop_sim.games.registry.SeatFile`); a file of several rows is a mixture, which
plays in each match the row :func:`mix_rows` draws for it, and :func:`match_tables`
gives every combination of rotation and rows drawn its agent table.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

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

__all__ = ["MIX_TAG", "check_seat", "check_seats", "is_mixture", "match_tables", "mix_rows",
           "row_spec", "seat_label"]

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
    combos, table_of = np.unique(np.column_stack([rotation, mix_row]), axis=0,
                                 return_inverse=True)
    # each seat's rows, checked once: a mixture's every row, another agent's one row
    choices = [[np.stack([agent_row(row) for row in spec.rows]) if is_mixture(spec)
                else agent_row(spec)[None] for spec in seats] for seats in specs]
    tables = np.stack([np.stack([choices[combo[0]][seat][max(row, 0)]
                                 for seat, row in enumerate(combo[1:])]) for combo in combos])
    return tables, table_of.reshape(-1).astype(np.int64)
