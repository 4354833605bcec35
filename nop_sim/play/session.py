"""A scenario's table, or a run's logged match, served: what ``nop-sim play`` and ``nop-sim
replay`` open (any registered game's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nop_sim.games import get_game
from nop_sim.play.save import save_match
from nop_sim.play.server import TableServer
from nop_sim.results.match_log import load_match_log
from nop_sim.run.replay import replay_events

__all__ = ["open_replay_server", "open_server"]


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


def open_replay_server(out: Path, match: int, point: int = 0, *, port: int = 0) -> TableServer:
    """Serve match ``match`` (sweep point ``point``) of the run folder ``out``, step by step.

    Any match of a run whose game plays matches again (:mod:`nop_sim.run.replay`);
    else a logged one. Raises ``RunError`` (one line) for a match that cannot be played
    again (saying why) or, in another run, a folder that logged no match (saying how to
    log one) or did not log this one (naming those it did), ``ValueError`` for a game without
    a replay, ``OSError`` when the port cannot be bound."""
    log = load_match_log(out, match, point, replay=replay_events)
    game = get_game(log.kind)
    if game.open_replay is None:
        raise ValueError(f"{out}: {game.title} has no replay yet")
    return TableServer(game.open_replay(log), port=port, pace_ms=0)
