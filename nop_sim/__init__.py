"""nop-sim: Monte Carlo balance analysis for New Order Poker."""

from nop_sim.blocks import beats, classify_block, classify_blocks
from nop_sim.cards import format_cards, make_deck, parse_cards
from nop_sim.column import DEFAULT_COLUMN, Category, Column
from nop_sim.evaluator import BestHand, best_category, best_hand, evaluate, profile

__version__ = "0.1.0"

__all__ = [
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
