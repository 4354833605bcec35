"""The Ordered Hand game (SPEC section 9): settings, agents, engine, referee.

The public names are imported on first use (PEP 562), so that
``import nop_sim.ordered.referee`` does not import the kernels.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# public name -> the module that defines it
_EXPORTS = {
    "PRESETS": "nop_sim.ordered.agents",
    "OrderedAgent": "nop_sim.ordered.agents",
    "OrderedLog": "nop_sim.ordered.engine",
    "OrderedResult": "nop_sim.ordered.engine",
    "play_ordered": "nop_sim.ordered.engine",
    "OrderedSettings": "nop_sim.ordered.settings",
    "SettingsError": "nop_sim.ordered.settings",
}

__all__ = [
    "PRESETS",
    "OrderedAgent",
    "OrderedLog",
    "OrderedResult",
    "OrderedSettings",
    "SettingsError",
    "play_ordered",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'nop_sim.ordered' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:
    from nop_sim.ordered.agents import PRESETS, OrderedAgent
    from nop_sim.ordered.engine import OrderedLog, OrderedResult, play_ordered
    from nop_sim.ordered.settings import OrderedSettings, SettingsError
