"""Ordered Hand's hands to read and to check: fresh games played from a scenario, a run's
stored ones and the referee's logged games: the registry's ``fresh_hands``,
``stored_hands`` and ``referee``.
"""

from __future__ import annotations

from nop_sim.games import registry
from nop_sim.games.ordered_hand.agents import agent_from_spec
from nop_sim.games.ordered_hand.engine import play_matches, stored_game
from nop_sim.games.ordered_hand.history import game_records, render_history
from nop_sim.games.ordered_hand.referee import check_result
from nop_sim.games.ordered_hand.seats import seat_label

__all__ = ["fresh_hands", "referee", "stored_hands"]


def fresh_hands(scn, count: int) -> tuple[str, list[dict]]:
    """``count`` games (one game is one "hand" here) of the first sweep point."""
    point = scn.points()[0]
    settings = scn.settings_at(point)
    specs = scn.seat_specs(point, 0)
    names = registry.seat_names(map(seat_label, specs))
    log = play_matches(settings, [agent_from_spec(s) for s in specs], count, seed=scn.seed,
                       log=True).log
    text = "\n\n".join(render_history(settings, log.decks[i], log.game_events(i), names, i + 1)
                       for i in range(count))
    return text, [rec for i in range(count) for rec in game_records(log.game_events(i), i)]


def stored_hands(log) -> tuple[str, list[dict]]:
    """A stored game: its deck rows (kind ``DECK_EVENT``) then its events."""
    deck, rows = stored_game(log.events)
    return (render_history(log.settings, deck, rows, log.names, log.match + 1),
            game_records(rows, log.match))


def referee(settings, specs: list, n: int, seed: int) -> int:
    res = play_matches(settings, [agent_from_spec(s) for s in specs], n, seed=seed, log=True)
    return check_result(res)
