"""Scenario settings: every ``config:`` name of the SPEC, validated, frozen.

A :class:`Settings` holds each setting with the SPEC's default. Build it from
keyword arguments, from a mapping (a TOML table) with
:meth:`Settings.from_mapping`, or from a TOML file with :func:`load_settings`;
change it with :meth:`Settings.replace`; hand it to the kernels with
:meth:`Settings.to_arrays` (layout in :mod:`nop_sim.games.new_order.types`).

Every bad value raises :class:`SettingsError` naming the field, the value and
what is allowed; an unknown key also suggests the closest known one.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nop_sim.core.errors import SettingsError, did_you_mean, toml_problem
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.disruptors import DisruptorArrays, MixError, mix_arrays, resolve_mix

__all__ = ["Settings", "SettingsError", "auto_chips", "load_settings"]


def auto_chips(players: int) -> int:
    """SPEC 3: ``300 // players`` clamped to 40..75."""
    return max(40, min(75, 300 // players))


# (allowed text values) for the categorical settings, index = kernel code
_CHOICES = {
    "betting": T.BETTING_NAMES,
    "fee_to": T.POT_OR_BANK,
    "hedge_from": T.POT_OR_BANK,
    "dart_reset": T.DART_RESET_NAMES,
    "hedge_scope": T.HEDGE_SCOPE_NAMES,
}

# (lowest, highest or None) for the integer settings
_RANGES = {
    "players": (T.MIN_PLAYERS, T.MAX_PLAYERS),
    "decks": (1, T.MAX_DECKS),
    "dart_start": (0, None),
    "dart_step": (0, None),
    "dart_cap": (0, None),
    "ante": (0, None),
    "max_discard": (0, 5),
    "small_bet": (1, None),
    "big_bet": (1, None),
    "max_raises": (0, None),
    "promotions_per_action": (0, T.N_CATEGORIES - 1),
    "hedge_cost": (0, None),
    "hedge_payout": (0, None),
    "max_hands": (1, None),
}


@dataclass(frozen=True)
class Settings:
    """One scenario's rules (SPEC sections 3-8); defaults are the SPEC's.

    ``chips`` is ``"auto"`` or a positive integer; ``disruptors`` is a mix
    name (``default``, ``none``, ``chaos``) or a table ``{card_id: copies}``
    (kept as a sorted tuple of pairs so that settings stay hashable).
    """

    players: int = 4
    chips: int | str = "auto"
    decks: int = 1
    dart_start: int = 1
    dart_step: int = 1
    dart_cap: int = 20
    ante: int = 1
    max_discard: int = 3
    betting: str = "limit"
    small_bet: int = 2
    big_bet: int = 4
    max_raises: int = 3
    fee_to: str = "pot"
    promotions_per_action: int = 1
    dart_reset: str = "never"
    hedge_cost: int = 5
    hedge_payout: int = 20
    hedge_from: str = "pot"
    hedge_scope: str = "hand"
    draft_without_showdown: bool = False
    max_hands: int = 1000
    disruptors: str | tuple[tuple[str, int], ...] = field(default="default")

    def __post_init__(self) -> None:
        for name, (lo, hi) in _RANGES.items():
            _check_int(name, getattr(self, name), lo, hi)
        if self.chips != "auto":
            if isinstance(self.chips, str):
                raise SettingsError(
                    f"chips = {self.chips!r} is not allowed: use 'auto' or an integer >= 1"
                )
            _check_int("chips", self.chips, 1, None)
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise SettingsError(
                    f"{name} = {value!r} is not allowed: use one of "
                    f"{', '.join(repr(a) for a in allowed)}" + did_you_mean(value, allowed)
                )
        if not isinstance(self.draft_without_showdown, (bool, np.bool_)):
            raise SettingsError(
                f"draft_without_showdown = {self.draft_without_showdown!r} is not allowed: "
                f"use true or false"
            )
        if self.dart_cap < self.dart_start:
            raise SettingsError(
                f"dart_cap = {self.dart_cap} is below dart_start = {self.dart_start}: "
                f"the cap must be at least the start"
            )
        mix = self.disruptors
        if isinstance(mix, Mapping):
            # hashable: entries {copies, amount} become sorted pairs too
            mix = tuple(sorted(
                (str(k), tuple(sorted(v.items())) if isinstance(v, Mapping) else v)
                for k, v in mix.items()
            ))
            object.__setattr__(self, "disruptors", mix)
        try:
            resolve_mix(self.disruptor_mix)
        except MixError as err:
            raise SettingsError(f"disruptors: {err}") from None
        except (TypeError, ValueError):
            raise SettingsError(
                f"disruptors = {self.disruptors!r} is not allowed: use a mix name "
                f"('default', 'none', 'chaos') or a table of card id -> copies"
            ) from None

    # -- construction -----------------------------------------------------------
    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], source: str = "settings") -> Settings:
        """Settings from a mapping such as a TOML table; unknown keys are errors.

        ``source`` names where the mapping came from in error messages.
        """
        known = cls.field_names()
        for key in data:
            if key not in known:
                raise SettingsError(
                    f"{source}: unknown setting {key!r}." + did_you_mean(key, known)
                    + f" Known settings: {', '.join(known)}"
                )
        try:
            return cls(**dict(data))
        except SettingsError as err:
            raise SettingsError(f"{source}: {err}") from None

    def replace(self, **changes: Any) -> Settings:
        """A copy with some settings changed (validated like a new one)."""
        known = self.field_names()
        for key in changes:
            if key not in known:
                raise SettingsError(
                    f"unknown setting {key!r}." + did_you_mean(key, known)
                    + f" Known settings: {', '.join(known)}"
                )
        return dataclasses.replace(self, **changes)

    # -- reading ------------------------------------------------------------------
    @property
    def starting_chips(self) -> int:
        """Chips per player, ``auto`` resolved (SPEC 3)."""
        return auto_chips(self.players) if self.chips == "auto" else int(self.chips)

    @property
    def disruptor_mix(self) -> str | dict[str, Any]:
        """The mix name, or its table ``{id: copies or {copies, amount}}``."""
        if isinstance(self.disruptors, str):
            return self.disruptors
        return {k: dict(v) if isinstance(v, tuple) else v for k, v in self.disruptors}

    def to_dict(self) -> dict[str, Any]:
        """Plain values (the disruptors table as a dict), e.g. for a manifest."""
        out = {name: getattr(self, name) for name in self.field_names()}
        out["disruptors"] = self.disruptor_mix
        return out

    def to_arrays(self) -> tuple[np.ndarray, DisruptorArrays]:
        """The settings as int64 ``(N_SETTINGS,)`` (indices ``types.S_*``) and the mix arrays."""
        s = np.zeros(T.N_SETTINGS, dtype=T.COUNT_DTYPE)
        s[T.S_PLAYERS] = self.players
        s[T.S_CHIPS] = self.starting_chips
        s[T.S_DECKS] = self.decks
        s[T.S_DART_START] = self.dart_start
        s[T.S_DART_STEP] = self.dart_step
        s[T.S_DART_CAP] = self.dart_cap
        s[T.S_ANTE] = self.ante
        s[T.S_MAX_DISCARD] = self.max_discard
        s[T.S_BETTING] = T.BETTING_NAMES.index(self.betting)
        s[T.S_SMALL_BET] = self.small_bet
        s[T.S_BIG_BET] = self.big_bet
        s[T.S_MAX_RAISES] = self.max_raises
        s[T.S_FEE_TO] = T.POT_OR_BANK.index(self.fee_to)
        s[T.S_PROMOTIONS] = self.promotions_per_action
        s[T.S_DART_RESET] = T.DART_RESET_NAMES.index(self.dart_reset)
        s[T.S_HEDGE_COST] = self.hedge_cost
        s[T.S_HEDGE_PAYOUT] = self.hedge_payout
        s[T.S_HEDGE_FROM] = T.POT_OR_BANK.index(self.hedge_from)
        s[T.S_HEDGE_SCOPE] = T.HEDGE_SCOPE_NAMES.index(self.hedge_scope)
        s[T.S_DRAFT_NO_SHOWDOWN] = int(bool(self.draft_without_showdown))
        s[T.S_MAX_HANDS] = self.max_hands
        return s, mix_arrays(self.disruptor_mix)


def load_settings(path: str | Path, table: str | None = None) -> Settings:
    """Settings from a TOML file (the whole file, or its ``[table]``)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise SettingsError(f"{path}: not valid TOML: {toml_problem(text, err)}") from None
    if table is not None:
        if table not in data:
            raise SettingsError(f"{path}: no [{table}] table")
        data = data[table]
    return Settings.from_mapping(data, source=str(path))


def _check_int(name: str, value: object, lo: int | None, hi: int | None) -> None:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise SettingsError(f"{name} = {value!r} is not allowed: use an integer{_span(lo, hi)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise SettingsError(f"{name} = {value!r} is out of range: allowed{_span(lo, hi)}")


def _span(lo: int | None, hi: int | None) -> str:
    if hi is None:
        return f" >= {lo}"
    return f" from {lo} to {hi}"
