"""nop-sim: Monte Carlo balance analysis for New Order Poker."""

from nop_sim.blocks import beats, classify_block, classify_blocks
from nop_sim.cards import format_cards, make_deck, parse_cards
from nop_sim.column import DEFAULT_COLUMN, Category, Column
from nop_sim.engine import MatchResults, play_matches
from nop_sim.evaluator import BestHand, best_category, best_hand, evaluate, profile
from nop_sim.referee import check_results
from nop_sim.rules import Settings, SettingsError, load_settings

__version__ = "0.1.0"

__all__ = [
    "MatchResults",
    "Settings",
    "SettingsError",
    "check_results",
    "load_settings",
    "play_matches",
    "BestHand",
    "beats",
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
