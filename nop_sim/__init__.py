"""nop-sim: Monte Carlo balance analysis for New Order Poker."""

from nop_sim.cards import format_cards, make_deck, parse_cards
from nop_sim.column import DEFAULT_COLUMN, Category, Column

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_COLUMN",
    "Category",
    "Column",
    "__version__",
    "format_cards",
    "make_deck",
    "parse_cards",
]
