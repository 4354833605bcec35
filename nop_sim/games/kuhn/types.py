"""The event log of a Kuhn poker hand: what ``play_chunk`` stores, the history renders and
the referee replays (no NumPy here, so the referee needs nothing else of the game).

A logged hand is rows ``player, kind, a, b``, in order: one :data:`EV_DEAL` per seat
(``a`` its card), one :data:`EV_PASS` or :data:`EV_BET` per action (``a`` the action's
place in the history, from 0; ``b`` the infoset's column of the policy row), then one
:data:`EV_RESULT` per seat (``a`` its net chips, ``b`` its place: 1 for the pot's
winner, else 2).
"""

from __future__ import annotations

__all__ = ["EVENT_COLUMNS", "EVENT_SCHEMA", "EV_BET", "EV_DEAL", "EV_NAMES", "EV_PASS",
           "EV_RESULT"]

EV_DEAL = 1
EV_PASS = 2    # a pass, or after a bet a fold
EV_BET = 3     # a bet, or after a bet a call
EV_RESULT = 4
# One schema for the log (issue 38, item 4): kind -> (name, what ``a`` and ``b`` hold)
EVENT_SCHEMA: dict[int, tuple[str, tuple[str, ...]]] = {
    EV_DEAL: ("deal", ("card",)),
    EV_PASS: ("pass", ("step", "infoset")),
    EV_BET: ("bet", ("step", "infoset")),
    EV_RESULT: ("result", ("chips", "place")),
}
EV_NAMES = {kind: name for kind, (name, _) in EVENT_SCHEMA.items()}
EVENT_COLUMNS = ("match", "player", "kind", "a", "b")
