"""Readable histories of logged Ordered Hand games (what ``nop-sim hands`` prints).

The history is rebuilt from the event log alone (the deck and the events of
:class:`nop_sim.games.ordered_hand.engine.OrderedLog`): the deal, then one line per turn
with the sequence as it stands after the turn, the middle, the clears, and the
end with every player's cards.
"""

from __future__ import annotations

from collections.abc import Sequence

from nop_sim.core.cards import format_card
from nop_sim.core.column import Category
from nop_sim.games.ordered_hand.kernels import play as K
from nop_sim.games.ordered_hand.referee import py_classify_block
from nop_sim.games.ordered_hand.types import EVENT_SCHEMA

__all__ = ["game_records", "render_history"]

_END_TEXT = {K.END_EMPTIED: "a sequence was emptied", K.END_STOCK_OUT: "the stock ran out",
             K.END_SHARED: "the stock ran out, win shared", K.END_CAPPED: "the turn cap was hit"}


def _cards(cards: Sequence[int]) -> str:
    return " ".join(format_card(c) for c in cards) if cards else "(empty)"


def render_history(settings, deck, events, names: Sequence[str], number: int = 1) -> str:
    """The history of one logged game as text.

    Parameters
    ----------
    settings : OrderedSettings of the game
    deck : (52,) int8, the shuffled deck (dealt from index 0)
    events : (n, 4) int16 rows ``player, kind, a, b`` of this game
    names : a label per seat, e.g. ``"Seat 0 (low)"``
    number : the game's number in the header
    """
    n = settings.players
    events = [tuple(int(x) for x in e) for e in events]
    first = events[0][0]
    seq: list[list[int]] = [[] for _ in range(n)]
    k = 0
    for _ in range(settings.hand_size):
        for q in range(n):
            seq[(first + q) % n].append(int(deck[k]))
            k += 1
    width = max(len(s) for s in names)
    lines = [f"Game {number}: {n} players, {settings.hand_size} cards each, stock "
             f"{settings.stock_size}{', advanced rules' if settings.betting else ''}; "
             f"{names[first]} moves first",
             f"column: {settings.column}", "Deal (each sequence in order):"]
    lines += [f"  {names[p]:<{width}}  {_cards(seq[p])}" for p in range(n)]
    turn = 0
    in_raise = False
    line: list[str] = []
    who = first

    def flush():
        if line:
            lines.append(f"  {turn:>3}. {names[who]:<{width}}  " + "; ".join(line)
                         + f"  -> {_cards(seq[who])}")
            line.clear()

    for player, kind, a, b in events:
        if kind in (K.EV_PLAY, K.EV_CHECK, K.EV_BET, K.EV_FOLD, K.EV_CALL, K.EV_RAISE) and not (
                kind == K.EV_PLAY and in_raise):
            flush()
            turn += 1
            who = player
        if kind == K.EV_PLAY:
            cards = seq[player][a : a + b]
            block = py_classify_block(cards)
            label = Category(block[0]).label if block else "?"
            line.append(f"plays {label} [{_cards(cards)}] from position {a + 1}")
            del seq[player][a : a + b]
            in_raise = False
        elif kind == K.EV_CHECK:
            line.append("checks")
        elif kind == K.EV_BET:
            line.append("BETS to beat the middle next turn")
        elif kind == K.EV_FOLD:
            line.append("folds")
        elif kind == K.EV_CALL:
            line.append("calls")
        elif kind == K.EV_RAISE:
            line.append("raises")
            in_raise = True
        elif kind == K.EV_MOVE:
            card = seq[player].pop(a)
            seq[player].insert(b, card)
            # a Call may move nothing (R14): its MOVE then leaves the card in its place
            line.append(f"moves {format_card(card)} to position {b + 1}" if a != b
                        else "moves no card")
        elif kind == K.EV_DRAW:
            seq[player].insert(b, a)
            line.append(f"draws {format_card(a)} into position {b + 1}")
            if player != who:  # a beaten raiser's extra card, drawn in the bettor's turn
                line[-1] = f"{names[player]} {line[-1]} (extra card)"
        elif kind == K.EV_CLEAR:
            flush()
            lines.append(f"       -- a full round of checks clears the middle; {names[player]} "
                         f"leads")
        elif kind == K.EV_END:
            flush()
            winners = [p for p in range(n) if (b >> p) & 1]
            lines.append(f"End after {turn} turns: {_END_TEXT.get(a, str(a))}; winner"
                         f"{'s' if len(winners) > 1 else ''}: "
                         + ", ".join(names[p] for p in winners))
            lines += [f"  {names[p]:<{width}}  {len(seq[p]):>2} card(s)  {_cards(seq[p])}"
                      for p in range(n)]
    flush()
    return "\n".join(lines)


def game_records(events, game: int) -> list[dict]:
    """The raw events of one game as JSON-ready dicts."""
    out = []
    for p, k, a, b in events:
        name, fields = EVENT_SCHEMA[int(k)]
        out.append({"game": game, "player": int(p), "event": name,
                    **dict(zip(fields, (int(a), int(b)), strict=False))})
    return out
