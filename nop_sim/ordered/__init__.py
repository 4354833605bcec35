"""The Ordered Hand game (SPEC section 9): settings, agents, engine, referee."""

from nop_sim.ordered.agents import PRESETS, OrderedAgent
from nop_sim.ordered.engine import OrderedLog, OrderedResult, play_ordered
from nop_sim.ordered.settings import OrderedSettings, SettingsError

__all__ = [
    "PRESETS",
    "OrderedAgent",
    "OrderedLog",
    "OrderedResult",
    "OrderedSettings",
    "SettingsError",
    "play_ordered",
]
