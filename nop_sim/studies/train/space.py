"""The policy space a search walks: which parameters move, over the whole legal box.

A :class:`Space` maps a full agent row (``nop_sim.games.new_order.agents``, every parameter)
to a point of the unit cube over the parameters that matter for a rule set,
and back. What matters depends on the rules: bet sizes only where the
betting is pot-limit or no-limit, ``nl_scale`` only under no-limit, a draft
value only for a Disruptor the mix holds. ``random`` and ``station`` are
switches (the random and calling-station styles), not skills: a search
keeps them at 0, and the presets that set them join every search as starts
(:mod:`.search`). A *restriction* (restricted play) pins parameters at a
value and takes them out of the search.

The cube spans every value :func:`~nop_sim.games.new_order.agents.agent_row` accepts: a
field is strong only against every legal policy, so no search may be kept
from a deviation by a box narrower than the policy's (issue 20: a deviation
that bluffed and played noisily beyond a box that stopped at 0.5 won 18
points a search could not see). Where a wide range matters mostly at its
low end (a weight of 100 acts much like one of 20), the unit coordinate
is raised to a power (:data:`SEARCH_POWER`): ``value = low + (high - low) *
x ** power``, so half the cube's width covers the values below an eighth of
the range for a cube (power 3), a quarter for a square (power 2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.agents import AgentError, agent_bounds, agent_row

__all__ = ["MECHANICS", "SEARCH_POWER", "Space", "space_for"]

# the unit coordinate's power per parameter (1 where not listed): see the module docstring
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

_ALWAYS_FIXED = {"random": 0.0, "station": 0.0}
_SIZE = ("bet_fraction", "size_strength")


@dataclass(frozen=True)
class Space:
    """The searched parameters of one rule set, and the values pinned for the rest."""

    names: tuple[str, ...]
    lo: np.ndarray
    hi: np.ndarray
    fixed: Mapping[str, float] = field(default_factory=dict)
    power: np.ndarray | None = None  # per searched parameter (None: all 1)

    def _power(self) -> np.ndarray:
        return np.ones(self.dim) if self.power is None else np.asarray(self.power, float)

    @property
    def dim(self) -> int:
        return len(self.names)

    def index(self) -> np.ndarray:
        """Column of each searched parameter in an agent row."""
        return np.array([T.AGENT_PARAM_NAMES.index(n) for n in self.names], np.int64)

    def to_unit(self, row: np.ndarray) -> np.ndarray:
        """The searched parameters of ``row`` scaled to [0, 1] (clipped to the search bounds)."""
        x = (np.asarray(row, float)[self.index()] - self.lo) / (self.hi - self.lo)
        return np.clip(x, 0.0, 1.0) ** (1.0 / self._power())

    def to_rows(self, units: np.ndarray, base: np.ndarray) -> np.ndarray:
        """Agent rows ``(k, N_AGENT_PARAMS)``: ``base`` with the searched parameters set from
        ``units`` ``(k, dim)`` and the pinned ones applied."""
        units = np.clip(np.atleast_2d(np.asarray(units, float)), 0.0, 1.0)
        rows = np.repeat(np.asarray(base, float)[None, :], units.shape[0], axis=0)
        rows[:, self.index()] = self.lo + units ** self._power() * (self.hi - self.lo)
        for name, value in self.fixed.items():
            rows[:, T.AGENT_PARAM_NAMES.index(name)] = value
        return rows

    def random_rows(self, rng: np.random.Generator, k: int, base: np.ndarray) -> np.ndarray:
        """``k`` rows drawn uniformly over the unit cube (the whole legal box)."""
        return self.to_rows(rng.random((k, self.dim)), base)

    def pin(self, row: np.ndarray) -> np.ndarray:
        """``row`` with the pinned parameters applied (a copy)."""
        return self.to_rows(self.to_unit(row)[None, :], row)[0]

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
    """The space of a rule set (:class:`~nop_sim.games.new_order.rules.Settings`), minus ``restrict``'s
    pinned parameters (``{name: value}``; see :data:`MECHANICS`)."""
    restrict = dict(restrict or {})
    for name in restrict:
        if name not in T.AGENT_PARAM_NAMES:
            raise AgentError(f"cannot pin unknown agent parameter {name!r}")
    arr, mix = settings.to_arrays()
    betting = T.BETTING_NAMES[int(arr[T.S_BETTING])]
    in_mix = {T.DISRUPTOR_IDS[int(t)] for t in np.unique(mix.deck)} if mix.deck.size else set()
    names = []
    for name in T.AGENT_PARAM_NAMES:
        if name in _ALWAYS_FIXED or name in restrict:
            continue
        no_limit = betting == "no-limit" or "no_limit" in in_mix  # the card makes it so
        if name in _SIZE and betting == "limit" and not no_limit:
            continue
        if name == "nl_scale" and not no_limit:
            continue
        if name.startswith("draft_") and name != "draft_skill" and name[6:] not in in_mix:
            continue
        if name == "draft_skill" and not in_mix:
            continue
        names.append(name)
    lows, highs = agent_bounds()
    idx = [T.AGENT_PARAM_NAMES.index(n) for n in names]
    power = np.array([SEARCH_POWER.get(n, 1.0) for n in names])
    fixed = {**_ALWAYS_FIXED, **restrict}
    agent_row({**fixed, "preset": "balanced"})  # every pinned value must be a legal one
    return Space(tuple(names), np.asarray(lows)[idx], np.asarray(highs)[idx], fixed, power)

