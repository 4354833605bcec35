"""Three-player Kuhn poker's rules as data: the deals, the game tree and its infosets.

OpenSpiel's ``kuhn_poker`` with ``players=3``: a deck of four cards ``0 < 1 < 2 <
3``; each player antes 1 chip and is dealt one card (24 deals, equally likely);
player 0 acts first. A player passes (``p``) or bets 1 chip (``b``); once a chip
has been bet, each later player answers in turn, ``b`` to call (put in 1 chip) or
``p`` to fold, until the turn comes back to the bettor. The player whose turn it
is at history ``h`` is always ``len(h) % 3``. A hand ends after three passes
(a showdown of all three) or once both others have answered the bet (a showdown
of the bettor and those who called, or the bettor alone). The highest card
among the players who did not fold takes the pot.

An *infoset* is what the acting player knows: its card then the public history,
in OpenSpiel's spelling (``"0"``, ``"2pb"``, ``"1ppb"``). There are 12 decision
histories (:data:`HISTORIES`) and 4 cards, so 48 infosets, 16 per seat. A policy
row holds the chance to bet (or call) at each infoset, history-major
(:func:`column`): one row decides every seat's play, each seat reading its own
16 columns.

Everything here is plain Python and NumPy, computed once at import: the engine,
the exact oracle and the referee's independent replay read the same constants,
and the referee also rebuilds them its own way.
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = ["ANTE", "BET", "CARDS", "DEALS", "HISTORIES", "INFOSETS", "N_DEALS", "N_INFOSETS",
           "N_NODES", "NODE_OF", "PLAYERS", "TERMINALS", "TERMINAL_PAYOFF", "actor", "column",
           "column_of_infoset", "infoset", "is_terminal", "payoff"]

PLAYERS = 3
CARDS = 4          # 0 (lowest) to 3
ANTE = 1
BET = 1
PASS, BET_ACTION = "p", "b"

# every deal: the card of seat 0, 1, 2 (itertools' order: a deal's index is fixed)
DEALS = np.array(list(itertools.permutations(range(CARDS), PLAYERS)), dtype=np.int8)
N_DEALS = len(DEALS)  # 24


def actor(history: str) -> int:
    """The seat to act after ``history``: ``len(history) % 3``."""
    return len(history) % PLAYERS


def is_terminal(history: str) -> bool:
    """Three passes, or both other players have answered the first bet."""
    first_bet = history.find(BET_ACTION)
    if first_bet < 0:
        return len(history) == PLAYERS
    return len(history) == first_bet + PLAYERS


def _histories() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Decision and terminal histories, breadth first (shorter first, ``p`` before ``b``)."""
    decisions, terminals, level = [], [], [""]
    while level:
        nxt = []
        for h in level:
            if is_terminal(h):
                terminals.append(h)
            else:
                decisions.append(h)
                nxt += [h + PASS, h + BET_ACTION]
        level = nxt
    return tuple(decisions), tuple(terminals)


HISTORIES, TERMINALS = _histories()   # 12 decision histories, 13 terminal ones
N_NODES = len(HISTORIES)
N_INFOSETS = N_NODES * CARDS          # 48
NODE_OF = {h: i for i, h in enumerate(HISTORIES)}


def column(node: int, card: int) -> int:
    """The policy row's column of the infoset (card, decision history ``HISTORIES[node]``)."""
    return node * CARDS + card


def infoset(col: int) -> str:
    """OpenSpiel's infoset string of a column: the card, then the history (``"2pb"``)."""
    node, card = divmod(col, CARDS)
    return f"{card}{HISTORIES[node]}"


INFOSETS = tuple(infoset(c) for c in range(N_INFOSETS))
_COLUMN_OF = {s: c for c, s in enumerate(INFOSETS)}


def column_of_infoset(text: str) -> int:
    """The column of an OpenSpiel infoset string; ``KeyError`` for one that does not exist."""
    return _COLUMN_OF[text]


def payoff(cards, history: str) -> np.ndarray:
    """Each seat's net chips at the end of a terminal ``history`` with ``cards`` (one per
    seat): the pot goes to the highest card among those who did not fold."""
    put = np.full(PLAYERS, ANTE, dtype=np.int64)
    live = np.ones(PLAYERS, dtype=bool)
    first_bet = history.find(BET_ACTION)
    if first_bet >= 0:
        for i, a in enumerate(history[first_bet:], start=first_bet):
            seat = i % PLAYERS
            if a == BET_ACTION:
                put[seat] += BET
            else:
                live[seat] = False   # a pass after a bet is a fold
    winner = max(np.flatnonzero(live), key=lambda s: cards[s])
    out = -put
    out[winner] += put.sum()
    return out


# the payoff of every (deal, terminal history): int64 (N_DEALS, len(TERMINALS), PLAYERS)
TERMINAL_PAYOFF = np.array([[payoff(d, t) for t in TERMINALS] for d in DEALS], dtype=np.int64)
