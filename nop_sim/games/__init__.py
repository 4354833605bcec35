"""The games nop-sim plays, each a descriptor plus functions (see :mod:`.registry`).

Importing this package registers the shipped games; a new game is one
module that builds a :class:`Game` and calls :func:`register_game`, plus one
import line below (or an import wherever it is needed, as the tests' game does).
"""

from nop_sim.games import new_order, ordered_hand  # noqa: F401  (each registers itself)
from nop_sim.games.registry import (
    DEFAULT_KIND,
    Game,
    SeatFile,
    game_kinds,
    game_of_folder,
    get_game,
    register_game,
    registered_games,
)

__all__ = ["DEFAULT_KIND", "Game", "SeatFile", "game_kinds", "game_of_folder", "get_game", "register_game",
           "registered_games"]
