"""Settings of three-player Kuhn poker: OpenSpiel's rules, of which only the seats are named.

The deck (cards 0 to 3), the ante (1 chip) and the bet (1 chip) are the game's
rules, not settings: the exact oracle (:mod:`.exact`) and the published figures
it is checked against are for them. ``players`` is the one setting, and it must be
3 (two-player Kuhn poker is another game).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from nop_sim.core.errors import SettingsError, did_you_mean
from nop_sim.games.kuhn.tree import PLAYERS

__all__ = ["KuhnSettings", "SettingsError"]


@dataclass(frozen=True)
class KuhnSettings:
    """One Kuhn poker scenario.

    Parameters
    ----------
    players : int
        Seats at the table: 3 (OpenSpiel's ``kuhn_poker(players=3)``).
    """

    players: int = PLAYERS

    def __post_init__(self) -> None:
        ok = isinstance(self.players, (int, np.integer)) and not isinstance(self.players, bool)
        if not ok or self.players != PLAYERS:
            raise SettingsError(f"players={self.players!r} is not allowed: three-player Kuhn "
                                f"poker has {PLAYERS} seats")
        object.__setattr__(self, "players", int(self.players))

    def to_dict(self) -> dict:
        """Plain values, for manifests and tables."""
        return {name: getattr(self, name) for name in self.field_names()}

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The settings a scenario's ``[game]`` table may name."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], source: str = "") -> KuhnSettings:
        """Settings from a mapping (a scenario's ``[game]`` table); an unknown key is an
        error naming the source, the key and the settings there are."""
        prefix = f"{source}: " if source else ""
        known = cls.field_names()
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise SettingsError(
                f"{prefix}unknown Kuhn poker setting(s) {', '.join(unknown)}."
                + did_you_mean(unknown[0], known)
                + f" Allowed: {', '.join(known)} (the deck, ante and bet are fixed: cards 0 "
                  f"to 3, ante 1, bet 1)")
        try:
            return cls(**dict(values))
        except SettingsError as exc:
            raise SettingsError(f"{prefix}{exc}") from None
