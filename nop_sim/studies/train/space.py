"""The policy space a search walks: which parameters move, over the whole legal box.

A :class:`Space` maps a full agent row (every parameter of the game's
:class:`~nop_sim.games.registry.PolicySpace`) to a point of the unit cube
over the parameters that matter for a rule set, and back. What matters
depends on the rules, and the game says what (its ``searched``). Its
switches (``fixed``: a random style, say) are styles, not skills: a search
keeps them pinned, and the presets that set them join every search as
starts (:mod:`.search`). A *restriction* (restricted play) pins parameters
at a value and takes them out of the search; the mechanics a game declares
are such pins.

The cube spans every legal value: a field is strong only against every
legal policy, so no search may be kept from a deviation by a box narrower
than the policy's (issue 20: a deviation that bluffed and played noisily
beyond a box that stopped at 0.5 won 18 points a search could not see).
Where a wide range matters mostly at its low end, the unit coordinate is
raised to a power (the game's ``power``): ``value = low + (high - low) *
x ** power``. A discrete parameter (a choice of style, a flag) is rounded
to the nearest whole value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from nop_sim.games.registry import PolicySpace, policy_of

__all__ = ["Space", "space_for"]


@dataclass(frozen=True)
class Space:
    """The searched parameters of one rule set, and the values pinned for the rest.

    columns : every parameter of a row, in row order (the game's ``names``)
    names : the searched ones; lo, hi : their bounds; power : their powers (None: 1)
    fixed : parameter -> value pinned in every row; mechanics : the game's mechanics
    discrete : the parameters rounded to whole values
    switches : the game's own pins (``fixed`` less any restriction)
    """

    names: tuple[str, ...]
    lo: np.ndarray
    hi: np.ndarray
    fixed: Mapping[str, float] = field(default_factory=dict)
    power: np.ndarray | None = None  # per searched parameter (None: all 1)
    columns: tuple[str, ...] = ()
    mechanics: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    discrete: tuple[str, ...] = ()
    switches: tuple[str, ...] = ()

    def _power(self) -> np.ndarray:
        return np.ones(self.dim) if self.power is None else np.asarray(self.power, float)

    @property
    def dim(self) -> int:
        return len(self.names)

    @property
    def width(self) -> int:
        """Parameters in a full row."""
        return len(self.columns)

    def index(self) -> np.ndarray:
        """Column of each searched parameter in an agent row."""
        return np.array([self.columns.index(n) for n in self.names], np.int64)

    def to_unit(self, row: np.ndarray) -> np.ndarray:
        """The searched parameters of ``row`` scaled to [0, 1] (clipped to the search bounds)."""
        x = (np.asarray(row, float)[self.index()] - self.lo) / (self.hi - self.lo)
        return np.clip(x, 0.0, 1.0) ** (1.0 / self._power())

    def to_rows(self, units: np.ndarray, base: np.ndarray) -> np.ndarray:
        """Agent rows ``(k, width)``: ``base`` with the searched parameters set from
        ``units`` ``(k, dim)``, the discrete ones rounded, and the pinned ones applied."""
        units = np.clip(np.atleast_2d(np.asarray(units, float)), 0.0, 1.0)
        rows = np.repeat(np.asarray(base, float)[None, :], units.shape[0], axis=0)
        rows[:, self.index()] = self.lo + units ** self._power() * (self.hi - self.lo)
        for name in self.discrete:
            if name in self.names:
                col = self.columns.index(name)
                rows[:, col] = np.round(rows[:, col])
        for name, value in self.fixed.items():
            rows[:, self.columns.index(name)] = value
        return rows

    def random_rows(self, rng: np.random.Generator, k: int, base: np.ndarray) -> np.ndarray:
        """``k`` rows drawn uniformly over the unit cube (the whole legal box)."""
        return self.to_rows(rng.random((k, self.dim)), base)

    def pin(self, row: np.ndarray) -> np.ndarray:
        """``row`` with the pinned parameters applied (a copy)."""
        return self.to_rows(self.to_unit(row)[None, :], row)[0]

    def switched_off(self, rows: np.ndarray, mechanic: str) -> np.ndarray:
        """``rows`` with the mechanic's parameters set to the values that switch it off."""
        out = np.array(rows, float)
        for name, value in self.mechanics[mechanic].items():
            out[:, self.columns.index(name)] = value
        return out

    def at_bounds(self, row: np.ndarray, tol: float = 0.02) -> dict[str, str]:
        """Searched parameters within ``tol`` (of the range) of a bound: name -> 'low'/'high'."""
        x = self.to_unit(row)
        out = {}
        for name, v in zip(self.names, x, strict=True):
            if v <= tol:
                out[name] = "low"
            elif v >= 1.0 - tol:
                out[name] = "high"
        return out


def space_for(settings, restrict: Mapping[str, float] | None = None) -> Space:
    """The space of a rule set (any trainable game's settings), minus ``restrict``'s
    pinned parameters (``{name: value}``; see the game's ``mechanics``)."""
    policy: PolicySpace = policy_of(settings)
    restrict = dict(restrict or {})
    for name in restrict:
        if name not in policy.names:
            raise ValueError(f"cannot pin unknown agent parameter {name!r}")
    names = [n for n in policy.searched(settings)
             if n not in policy.fixed and n not in restrict]
    lows, highs = policy.bounds()
    idx = [policy.names.index(n) for n in names]
    power = np.array([policy.power.get(n, 1.0) for n in names])
    fixed = {**policy.fixed, **restrict}
    lows, highs = np.asarray(lows, float), np.asarray(highs, float)
    for name, value in fixed.items():  # every pinned value must be a legal one
        i = policy.names.index(name)
        if not lows[i] <= value <= highs[i]:
            raise ValueError(f"cannot pin {name} = {value}: allowed {lows[i]} to {highs[i]}")
    return Space(tuple(names), lows[idx], highs[idx], fixed, power, tuple(policy.names),
                 dict(policy.mechanics), tuple(policy.discrete), tuple(policy.fixed))
