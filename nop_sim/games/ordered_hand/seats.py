"""Ordered Hand's seats: a seat's spec checked and its label."""

from __future__ import annotations

from functools import partial

from nop_sim.games import registry
from nop_sim.games.ordered_hand.policy import check_spec

__all__ = ["check_seat", "check_seats", "seat_label"]


def check_seat(spec) -> None:
    """Every spec is checked per sweep point by :func:`check_seats`."""


def check_seats(specs: list, players: int) -> None:
    for spec in specs:
        try:
            check_spec(spec)  # a mixture file's every row
        except TypeError as exc:
            raise ValueError(str(exc)) from None


# a table without ``preset`` starts from ``low`` (:func:`nop_sim.games.ordered_hand.agents.agent_from_spec`)
seat_label = partial(registry.seat_label, default_preset="low")
