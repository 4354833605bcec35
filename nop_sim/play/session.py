"""A scenario's table, served: what ``nop-sim play`` opens (any registered game's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nop_sim.play.save import save_match
from nop_sim.play.server import TableServer

__all__ = ["open_server"]


def open_server(scn: Any, seat: int, *, port: int = 0, pace_ms: int = 400,
                out: Path) -> TableServer:
    """Seat a person at ``seat`` of one match of ``scn`` (its game's ``open_table``) and
    serve it on 127.0.0.1:``port``; the finished match is saved into ``out``.

    Raises ``ValueError`` (one line) for a game without a table or a seat the match has
    not, ``OSError`` when the port cannot be bound."""
    game = scn.game_type
    if game.open_table is None:
        raise ValueError(f"{scn.source}: {game.title} cannot be played at the table yet")
    table = game.open_table(scn, seat, scn.seed)
    return TableServer(table, port=port, pace_ms=pace_ms,
                       on_done=lambda t: save_match(out, scn, t))
