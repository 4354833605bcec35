"""nop-sim: Monte Carlo balance analysis for New Order Poker.

The public names below are imported on first use (PEP 562), not when the
package is: ``import nop_sim.games.new_order.referee`` must not compile or even
import the kernels, so that the referee stays independent of the engine it checks.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> the module that defines it
_EXPORTS = {
    "MatchResults": "nop_sim.games.new_order.engine",
    "play_matches": "nop_sim.games.new_order.engine",
    "Settings": "nop_sim.games.new_order.settings",
    "SettingsError": "nop_sim.games.new_order.settings",
    "load_settings": "nop_sim.games.new_order.settings",
    "check_results": "nop_sim.games.new_order.referee",
    "BestHand": "nop_sim.evaluator",
    "best_category": "nop_sim.evaluator",
    "best_hand": "nop_sim.evaluator",
    "evaluate": "nop_sim.evaluator",
    "profile": "nop_sim.evaluator",
    "classify_block": "nop_sim.games.ordered_hand.blocks",
    "classify_blocks": "nop_sim.games.ordered_hand.blocks",
    "DEFAULT_COLUMN": "nop_sim.core.column",
    "Category": "nop_sim.core.column",
    "Column": "nop_sim.core.column",
    "format_cards": "nop_sim.core.cards",
    "make_deck": "nop_sim.core.cards",
    "parse_cards": "nop_sim.core.cards",
}

__all__ = [
    "MatchResults",
    "Settings",
    "SettingsError",
    "check_results",
    "load_settings",
    "play_matches",
    "BestHand",
    "best_category",
    "classify_block",
    "classify_blocks",
    "best_hand",
    "evaluate",
    "profile",
    "DEFAULT_COLUMN",
    "Category",
    "Column",
    "__version__",
    "format_cards",
    "make_deck",
    "parse_cards",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'nop_sim' has no attribute {name!r}")
    # PEP 562: a public name imports its module on first use (see the docstring)
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next lookup skips this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # static tools see the eager imports
    from nop_sim.core.cards import format_cards, make_deck, parse_cards
    from nop_sim.core.column import DEFAULT_COLUMN, Category, Column
    from nop_sim.evaluator import BestHand, best_category, best_hand, evaluate, profile
    from nop_sim.games.new_order.engine import MatchResults, play_matches
    from nop_sim.games.new_order.referee import check_results
    from nop_sim.games.new_order.settings import Settings, SettingsError, load_settings
    from nop_sim.games.ordered_hand.blocks import classify_block, classify_blocks
