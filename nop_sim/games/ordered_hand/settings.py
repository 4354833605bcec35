"""Settings of the Ordered Hand game (SPEC section 9), validated and frozen."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from nop_sim.core.column import DEFAULT_COLUMN, Column
from nop_sim.core.errors import SettingsError, did_you_mean

__all__ = ["DECK_SIZE", "MAX_PLAYERS", "MIN_PLAYERS", "OrderedSettings", "SettingsError"]

MIN_PLAYERS = 2
MAX_PLAYERS = 6
DECK_SIZE = 52


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class OrderedSettings:
    """One Ordered Hand scenario.

    Parameters
    ----------
    players : int
        Seats at the table, 2..6.
    hand_size : int
        Cards dealt to each player, at least 1 and at most 52 // players (a
        deal that leaves no stock is allowed: nobody draws, and the game ends
        by emptying a sequence or at ``max_turns``).
    column : Column, str or sequence of ids
        The Ranking Column that decides which block beats which (text as
        :meth:`Column.parse` reads it). The stock-out tie-break by best
        five-card hand always uses the default column, as SPEC section 9 says.
    betting : bool
        The advanced rules (Bet, Fold, Call, Raise); 2 players only.
    max_turns : int
        Safety cap on turns per game (each Bet, response and answer is a
        turn); a game that reaches it ends as ``capped`` and is decided like a
        stock-out.
    """

    players: int = 4
    hand_size: int = 7
    column: Column = field(default=DEFAULT_COLUMN)
    betting: bool = False
    max_turns: int = 1000

    def __post_init__(self) -> None:
        if not _is_int(self.players) or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise SettingsError(
                f"players={self.players!r} is not allowed: use an integer from "
                f"{MIN_PLAYERS} to {MAX_PLAYERS}"
            )
        object.__setattr__(self, "players", int(self.players))
        limit = DECK_SIZE // self.players
        if not _is_int(self.hand_size) or not 1 <= self.hand_size <= limit:
            raise SettingsError(
                f"hand_size={self.hand_size!r} is not allowed with players={self.players}: "
                f"use an integer from 1 to {limit} (52 cards // players)"
            )
        object.__setattr__(self, "hand_size", int(self.hand_size))
        object.__setattr__(self, "column", _to_column(self.column))
        if not isinstance(self.betting, (bool, np.bool_)):
            raise SettingsError(
                f"betting={self.betting!r} is not allowed: use true or false"
            )
        object.__setattr__(self, "betting", bool(self.betting))
        if self.betting and self.players != 2:
            raise SettingsError(
                f"betting=True needs players=2 (the advanced rules are for two players), "
                f"got players={self.players}"
            )
        if not _is_int(self.max_turns) or self.max_turns < 1:
            raise SettingsError(
                f"max_turns={self.max_turns!r} is not allowed: use an integer of at least 1"
            )
        object.__setattr__(self, "max_turns", int(self.max_turns))

    @property
    def stock_size(self) -> int:
        """Cards left in the stock after the deal."""
        return DECK_SIZE - self.players * self.hand_size

    def as_dict(self) -> dict:
        """Plain values (the column as its text form), for manifests and tables."""
        out = {name: getattr(self, name) for name in self.field_names()}
        out["column"] = str(self.column)
        return out

    to_dict = as_dict  # the name the runner's manifest looks for

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The settings a scenario's ``[game]`` table (or ``[sweep]``) may name."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], source: str = "") -> OrderedSettings:
        """Settings from a mapping (e.g. a scenario's TOML table); unknown keys are errors.

        ``source`` (e.g. ``"scenario.toml: [game]"``) prefixes every error message.
        """
        prefix = f"{source}: " if source else ""
        known = cls.field_names()
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise SettingsError(
                f"{prefix}unknown Ordered Hand setting(s) {', '.join(unknown)}."
                + did_you_mean(unknown[0], known)
                + f" Allowed: {', '.join(sorted(known))}"
            )
        try:
            return cls(**dict(values))
        except SettingsError as exc:
            raise SettingsError(f"{prefix}{exc}") from None


def _to_column(value: Column | str | Iterable[int]) -> Column:
    if isinstance(value, Column):
        return value
    try:
        if isinstance(value, str):
            return Column.parse(value)
        return Column.from_array(np.asarray(list(value)))
    except (ValueError, TypeError) as exc:
        raise SettingsError(
            f"column={value!r} is not allowed: give a Column, the 13 categories top first "
            f"separated by '>', or a permutation of the category ids 0..12 ({exc})"
        ) from None
