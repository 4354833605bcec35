"""The Ordered Hand game (SPEC section 9): everything of this one game.

Settings, agents, the engine and its numba kernels (:mod:`.kernels`: the game's
play and the block rules), hand histories, the plain-Python referee, analysis
and the report; :mod:`.blocks` is the public block API (:func:`beats`,
:func:`classify_block`, re-exported here). The entry points have New Order's
names: :func:`play_matches`, ``history.render_history``, ``report.write_report``.
:mod:`.game` declares it to the registry; importing this package registers it.

The public names are imported on first use (PEP 562), so that
``import nop_sim.games.ordered_hand.referee`` does not import the kernels.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import nop_sim.games.ordered_hand.sources  # noqa: F401  (first: declares the kernels' sources)
from nop_sim.games.ordered_hand import game  # noqa: F401  (registers it)

# public name -> the module that defines it
_EXPORTS = {
    "PRESETS": "nop_sim.games.ordered_hand.agents",
    "OrderedAgent": "nop_sim.games.ordered_hand.agents",
    "OrderedLog": "nop_sim.games.ordered_hand.engine",
    "OrderedResult": "nop_sim.games.ordered_hand.engine",
    "beats": "nop_sim.games.ordered_hand.blocks",
    "classify_block": "nop_sim.games.ordered_hand.blocks",
    "classify_blocks": "nop_sim.games.ordered_hand.blocks",
    "play_matches": "nop_sim.games.ordered_hand.engine",
    "OrderedSettings": "nop_sim.games.ordered_hand.settings",
    "SettingsError": "nop_sim.games.ordered_hand.settings",
}

__all__ = [
    "PRESETS",
    "OrderedAgent",
    "OrderedLog",
    "OrderedResult",
    "OrderedSettings",
    "SettingsError",
    "beats",
    "classify_block",
    "classify_blocks",
    "play_matches",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'nop_sim.games.ordered_hand' has no attribute {name!r}")
    # PEP 562: a public name imports its module on first use (see the docstring)
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:
    from nop_sim.games.ordered_hand.agents import PRESETS, OrderedAgent
    from nop_sim.games.ordered_hand.blocks import beats, classify_block, classify_blocks
    from nop_sim.games.ordered_hand.engine import OrderedLog, OrderedResult, play_matches
    from nop_sim.games.ordered_hand.settings import OrderedSettings, SettingsError
