"""The games nop-sim plays, each a descriptor plus functions (see :mod:`.registry`).

Importing this package registers the shipped games, one package each
(:mod:`.new_order`, :mod:`.ordered_hand`, :mod:`.kuhn`: three-player Kuhn poker); a new
game is one package (or module) that builds a :class:`Game` and calls :func:`register_game`, plus one import
line below (or an import wherever it is needed, as the tests' game does).
Games never import each other.
"""

from nop_sim.games import kuhn, new_order, ordered_hand  # noqa: F401  (each registers itself)
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
