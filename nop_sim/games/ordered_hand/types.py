"""Constants the Ordered Hand kernels and their readers share (no numba here).

The event kinds, end kinds and record columns are defined once, here: the
kernels (:mod:`nop_sim.games.ordered_hand.kernels.play`) import them, and so do the referee,
the engine wrapper and the history, which must not need the kernels to read
a log.
"""

from __future__ import annotations

from nop_sim.core.types import N_CATEGORIES  # noqa: F401  (re-exported to the kernels)

MAX_PLAYERS = 6
DECK_SIZE = 52

# ---- event log: int16 rows (player, kind, a, b) ---------------------------------
EV_PLAY = 1  # a = start index, b = length
EV_CHECK = 2
EV_DRAW = 3  # a = card, b = insert position
EV_BET = 4
EV_FOLD = 5  # the opponent's Fold response, or the bettor's fold answer
EV_CALL = 6
EV_RAISE = 7
EV_MOVE = 8  # a = from index, b = to index (in the sequence after removal)
EV_CLEAR = 9  # player = who leads next
EV_END = 10  # a = END_* kind, b = winners bit mask
# One schema for the log (issue 38, item 4): kind -> (name, what ``a`` and ``b`` hold, in
# order; a kind with fewer fields writes 0 in the rest). The kernel's one writer
# (kernels.play._log) is held to it by tests/test_ordered.py; the records nop-sim hands
# --json writes name the fields from it (history.game_records).
EVENT_SCHEMA: dict[int, tuple[str, tuple[str, ...]]] = {
    EV_PLAY: ("play", ("start", "length")),
    EV_CHECK: ("check", ()),
    EV_DRAW: ("draw", ("card", "position")),
    EV_BET: ("bet", ()),
    EV_FOLD: ("fold", ()),
    EV_CALL: ("call", ()),
    EV_RAISE: ("raise", ()),
    EV_MOVE: ("move", ("from", "to")),
    EV_CLEAR: ("clear", ()),
    EV_END: ("end", ("end", "winners")),
}
EV_NAMES = {kind: name for kind, (name, _) in EVENT_SCHEMA.items()}

# ---- how a game ended -------------------------------------------------------------
END_EMPTIED = 0  # a player emptied their sequence by a play
END_STOCK_OUT = 1  # the last stock card was drawn; one winner
END_SHARED = 2  # the last stock card was drawn; several players share the win
END_CAPPED = 3  # max_turns reached; decided like a stock-out
END_NAMES = ("emptied", "stock_out", "shared", "capped")

# ---- per-game record: int32 columns of out_games ------------------------------------
F_FIRST = 0  # seat that played first
F_WINNERS = 1  # bit mask of winning seats
F_N_WINNERS = 2
F_END = 3  # END_*
F_TURNS = 4
F_DRAWN = 5  # cards drawn from the stock after the deal
F_CLEARS = 6  # times the middle was cleared by a round of checks
F_PLAYS = 7
F_CHECKS = 8
F_FOLDS = 9  # responses to bets
F_CALLS = 10
F_RAISES = 11
F_SIZE = 12  # + length - 1: plays by block size 1..5
F_CAT = F_SIZE + 5  # + category id: plays by category
F_CARDS_LEFT = F_CAT + N_CATEGORIES  # + seat: cards held at the end (-1: no seat)
F_BETS = F_CARDS_LEFT + MAX_PLAYERS  # + seat: bets made
F_BETS_WON = F_BETS + MAX_PLAYERS  # + seat: bets won
N_FIELDS = F_BETS_WON + MAX_PLAYERS
