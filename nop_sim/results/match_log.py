"""A run folder read through its game: the game of a folder, and its logged matches.

:mod:`nop_sim.results.store` reads a folder's tables without knowing the game; here the
registry names the folder's game (:func:`run_game`) and rebuilds a logged match
with its seats and settings (:func:`load_match_log`), for ``nop-sim hands RUN``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from nop_sim.core.errors import RunError
from nop_sim.games import Game, game_of_folder, get_game
from nop_sim.games.registry import seat_names
from nop_sim.results.store import (
    damaged_manifest,
    logged_matches,
    no_match_logged,
    read_manifest,
    read_rows,
    replayable,
)

__all__ = ["MatchLog", "load_match_log", "run_game"]


def run_game(out: str | Path) -> Game:
    """The game of a run folder (its manifest's ``scenario.kind``); :class:`RunError` if unknown."""
    try:
        return game_of_folder(out)
    except ValueError as exc:
        raise RunError(str(exc)) from None


@dataclass(frozen=True)
class MatchLog:
    """One logged match read back from a run folder (:func:`load_match_log`).

    ``events`` are the match's rows of the ``events`` table in play order, in
    the columns its game logs (``Game.play_chunk`` documents them); the game's
    ``stored_hands`` reads them back.
    """

    kind: str
    point: int
    match: int
    events: pd.DataFrame
    names: list[str]  # "Seat 0 (preset)", one per seat
    settings: Any     # the game's settings at the sweep point

    def records(self) -> list[dict[str, Any]]:
        """The events as JSON-ready dicts (what ``nop-sim hands --json`` writes)."""
        return get_game(self.kind).stored_hands(self)[1]

    def history(self) -> str:
        """The match as a readable hand history."""
        return get_game(self.kind).stored_hands(self)[0]


def _list_ids(ids: list[int], limit: int = 20) -> str:
    text = ", ".join(map(str, ids[:limit]))
    return text + (f", ... ({len(ids)} matches)" if len(ids) > limit else "")


def load_match_log(out: str | Path, match: int, point: int = 0,
                   replay: Callable[[Path, dict, int, int], pd.DataFrame] | None = None
                   ) -> MatchLog:
    """The event log of match ``match`` at sweep point ``point`` of a run folder: the
    one the run stored, or, given ``replay`` (:func:`nop_sim.run.replay.replay_events`:
    ``replay(out, manifest, point, match)`` -> the match's event rows) and a folder whose
    manifest says its matches can be played again
    (:func:`~nop_sim.results.store.replayable`), any match
    of the run played again from its seed.

    Raises :class:`RunError` (one line) when the folder holds no such log and it cannot
    be played again, naming the matches that were logged.
    """
    out = Path(out)
    manifest = read_manifest(out)
    try:
        text = manifest["scenario"]["text"]
        n_points = int(manifest["n_points"])
    except (ValueError, KeyError, TypeError):
        raise RunError(damaged_manifest(out)) from None
    game = run_game(out)
    if not 0 <= point < n_points:
        raise RunError(f"{out}: --point {point} is not a sweep point of this run: "
                       + (f"use 0 to {n_points - 1}" if n_points > 1
                          else "it has none, leave --point out"))
    data = tomllib.loads(text)
    logged = logged_matches(out, point)
    if match in logged:
        events = read_rows(out, "events", point, match)
    elif replay is not None and replayable(manifest):
        events = replay(out, manifest, point, match)  # any match, played again
    elif not data.get("run", {}).get("log_sample", 0):
        raise RunError(no_match_logged(out))
    else:
        where = f" of point {point}" if n_points > 1 else ""
        raise RunError(f"{out}: match {match}{where} was not logged; logged: "
                       + (_list_ids(logged) if logged else "none"))
    seats = read_rows(out, "seats", point, match).sort_values("seat")
    # one row per seat 0..players-1, sorted; a mixture's seat named with the row it played
    # (mix_row: stores since mixtures)
    names = seat_names(seats["preset"], seats["mix_row"] if "mix_row" in seats else None)
    # the game's settings at the point: its [game] table with the point's swept values,
    # as the run built them (the stored seats table names the seats)
    table = dict(data.get("game", {}))
    table.pop("kind", None)
    try:  # a match nop-sim play saved records no sweep points: its one point has no params
        params = dict((manifest.get("points") or [{"params": {}}])[point]["params"])
    except (IndexError, KeyError, TypeError, ValueError):
        raise RunError(damaged_manifest(out)) from None
    settings = game.settings.from_mapping({**table, **params},
                                          source=f"{out / 'manifest.json'}: [game]")
    return MatchLog(game.kind, point, match, events, names, settings)
