"""Replay logged Ordered Hand games in plain Python and check every rule.

The referee shares nothing with the kernels but the log format: it deals from
the logged deck, keeps its own sequences, stock and middle, classifies blocks
with its own obviously-written code (``collections.Counter``), and checks

- turn order, including the three turns of a bet exchange: the Bet replaces
  the bettor's play and draw, so the opponent's response comes next (R15);
- every play: an adjacent block of the player's sequence, a valid block type
  for its size, beating the middle under the scenario's column;
- every draw: the next stock card, inserted at a position 0..len, drawn
  exactly when the rules say (after a play or check, not after a winning play,
  not for a Call, not for the bettor's winning answer, the extra card of a
  beaten Raise);
- every move of a Call or Raise: inside the sequence, and for a Raise to a
  different position (R14: putting the card back is not a move; a Call may
  move nothing);
- the round of checks (R15): a Bet, a Fold and a Call count as not playing;
  the middle is cleared exactly when every player has passed in turn since
  the last play, never inside a bet exchange (from the Bet to the bettor's
  answer) but once it has ended, and the first player who did not play in
  the last full round leads, who is the next player in turn;
- no card lost or duplicated (sequences + played cards + stock = the deck);
- the end: an emptied sequence, the last stock card, or the turn cap, and the
  winners (fewest cards, then best hand under the default column, then a
  shared win);
- the game's record row (counts of turns, draws, plays by size and category,
  clears, bets...) against what the replay saw.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np

from nop_sim.core import types as T
from nop_sim.core.errors import RuleViolation
from nop_sim.core.hand_reference import card_rank, classify_five, grouped_ranks
from nop_sim.games.ordered_hand import types as OT
from nop_sim.games.ordered_hand.settings import OrderedSettings

__all__ = ["RuleViolation", "check_game", "check_result", "py_classify_block", "py_classify_five"]

_FIVE_CARD_BLOCKS = {T.FLUSH_FIVE, T.FLUSH_HOUSE, T.FIVE_OF_A_KIND, T.ROYAL_FLUSH,
                     T.STRAIGHT_FLUSH, T.FULL_HOUSE, T.FLUSH, T.STRAIGHT}

py_classify_five = classify_five  # the name this module exported before nop_sim.core.hand_reference


def py_classify_block(cards: list[int]) -> tuple[int, tuple[int, ...]] | None:
    """(category, tie-break ranks) of a block of 1..5 cards, or None if not a play."""
    n = len(cards)
    ranks = [card_rank(c) for c in cards]
    shape = sorted(Counter(ranks).values(), reverse=True)
    if n == 1:
        return T.HIGH_CARD, tuple(ranks)
    if n == 2:
        return (T.ONE_PAIR, grouped_ranks(ranks)) if shape == [2] else None
    if n == 3:
        return (T.THREE_OF_A_KIND, grouped_ranks(ranks)) if shape == [3] else None
    if n == 4:
        if shape == [4]:
            return T.FOUR_OF_A_KIND, grouped_ranks(ranks)
        if shape == [2, 2]:
            return T.TWO_PAIR, grouped_ranks(ranks)
        return None
    if n == 5:
        cat, tb = classify_five(cards)
        return (cat, tb) if cat in _FIVE_CARD_BLOCKS else None
    return None


def pack_tiebreak(ranks: list[int]) -> int:
    """Ranks as the kernels pack them: 4 bits each, first rank highest."""
    code = 0
    for r in ranks:
        code = (code << 4) | r
    return code


def _best_hand(cards: list[int]) -> tuple[int, tuple[int, ...]]:
    """Sort key of the best poker hand from ``cards`` under the default column.

    Five or more cards: best five-card subset. Fewer: all of them as a short
    hand (Four of a Kind, Three of a Kind, Two Pair, One Pair, High Card).
    """
    if len(cards) >= 5:
        return max((-cat, tb) for cat, tb in map(classify_five, combinations(cards, 5)))
    ranks = [card_rank(c) for c in cards]
    shape = sorted(Counter(ranks).values(), reverse=True)
    if shape[0] == 4:
        cat = T.FOUR_OF_A_KIND
    elif shape[0] == 3:
        cat = T.THREE_OF_A_KIND
    elif shape[:2] == [2, 2]:
        cat = T.TWO_PAIR
    elif shape[0] == 2:
        cat = T.ONE_PAIR
    else:
        cat = T.HIGH_CARD
    return -cat, grouped_ranks(ranks)


class _Replay:
    """State of one game being replayed."""

    def __init__(self, settings: OrderedSettings, deck, events, game: int):
        self.s = settings
        self.n = settings.players
        self.pos = settings.column.positions().tolist()
        self.deck = [int(c) for c in deck]
        self.events = [tuple(int(x) for x in e) for e in events]
        self.game = game
        self.i = 0
        self.top = 0
        self.seq: list[list[int]] = [[] for _ in range(self.n)]
        self.played: list[int] = []
        self.middle: tuple[int, tuple[int, ...]] | None = None
        self.passers: list[int] = []  # who passed in turn since the last play or clear
        self.c = Counter()  # record counts

    # -- helpers -----------------------------------------------------------------
    def fail(self, msg: str):
        raise RuleViolation(f"game {self.game}, event {self.i}: {msg}")

    def peek(self):
        if self.i >= len(self.events):
            self.fail("the log ends before the game does")
        return self.events[self.i]

    def take(self, player: int, *kinds: int):
        ev = self.peek()
        if ev[1] not in kinds:
            names = "/".join(OT.EV_NAMES[k] for k in kinds)
            self.fail(f"expected {names} by seat {player}, got {OT.EV_NAMES.get(ev[1], ev[1])} "
                      f"by seat {ev[0]}")
        if ev[0] != player:
            self.fail(f"{OT.EV_NAMES[ev[1]]} by seat {ev[0]} out of turn (seat {player} to act)")
        self.i += 1
        return ev

    def stock_left(self) -> int:
        return len(self.deck) - self.top

    def check_cards(self):
        held = [c for row in self.seq for c in row]
        every = sorted(held + self.played + self.deck[self.top:])
        if every != list(range(OT.DECK_SIZE)):
            self.fail("a card was lost or duplicated")

    def beats(self, block: tuple[int, list[int]]) -> bool:
        if self.middle is None:
            return True
        p, q = self.pos[block[0]], self.pos[self.middle[0]]
        return p < q or (p == q and block[1] > self.middle[1])

    # -- actions -----------------------------------------------------------------
    def play(self, player: int, what: str) -> bool:
        """A PLAY event by ``player``; True when it emptied the sequence."""
        _, _, start, length = self.take(player, OT.EV_PLAY)
        row = self.seq[player]
        if not (0 <= start and 1 <= length <= 5 and start + length <= len(row)):
            self.fail(f"{what}: block start {start} length {length} outside a sequence of "
                      f"{len(row)} cards")
        cards = row[start : start + length]
        block = py_classify_block(cards)
        if block is None:
            self.fail(f"{what}: cards {cards} are not a valid block of {length}")
        if not self.beats(block):
            self.fail(f"{what}: block {block} does not beat the middle {self.middle}")
        del row[start : start + length]
        self.played.extend(cards)
        self.middle = block
        self.passers = []
        self.c["plays"] += 1
        self.c[f"size{length}"] += 1
        self.c[f"cat{block[0]}"] += 1
        return not row

    def draw(self, player: int) -> bool:
        """The DRAW the rules require now (if the stock has a card); True at stock-out."""
        if self.stock_left() == 0:
            return False
        _, _, card, at = self.take(player, OT.EV_DRAW)
        if card != self.deck[self.top]:
            self.fail(f"drew {card}, but the next stock card is {self.deck[self.top]}")
        if not 0 <= at <= len(self.seq[player]):
            self.fail(f"insert position {at} outside 0..{len(self.seq[player])}")
        self.seq[player].insert(at, card)
        self.top += 1
        self.c["drawn"] += 1
        return self.stock_left() == 0

    def move(self, player: int, what: str):
        """The MOVE of a Call (``what="call"``, may move nothing) or a Raise."""
        _, _, src, dst = self.take(player, OT.EV_MOVE)
        row = self.seq[player]
        if not (0 <= src < len(row) and 0 <= dst < len(row)):
            self.fail(f"move {src}->{dst} outside a sequence of {len(row)} cards")
        if what == "raise" and src == dst:
            self.fail(f"the raise's move {src}->{dst} puts the card back in its own place: "
                      f"a Raise moves a card to a different position (R14)")
        row.insert(dst, row.pop(src))
        self.c[f"{what}_moves"] += src != dst

    def passed(self, player: int):
        """A turn of ``player`` without a play: a check, a Bet, a Fold or a Call (R15)."""
        self.passers.append(player)

    def no_clear_inside_the_exchange(self, after: str):
        ev = self.peek()
        if ev[1] == OT.EV_CLEAR:
            self.fail(f"the middle is cleared after the {after}, inside a bet exchange: it is "
                      f"cleared only once the exchange has ended (R15)")

    def round_of_checks(self, next_player: int):
        """After a turn without a play (or a whole bet exchange): clear the middle when
        every player has passed in turn since the last play or clear (R15)."""
        if len(self.passers) < self.n:
            return
        # R15: the first player who did not play in the (last full) round leads.
        leader = self.passers[-self.n]
        if leader != next_player:
            self.fail(f"after a full round of checks seat {leader} leads, but seat "
                      f"{next_player} is next in turn")
        self.passers = []
        if self.middle is not None:
            ev = self.peek()
            if ev[1] != OT.EV_CLEAR:
                self.fail(f"every player has passed in turn since the last play (R15: a Bet, "
                          f"a Fold and a Call count as not playing), but the middle is not "
                          f"cleared: got {OT.EV_NAMES.get(ev[1], ev[1])} by seat {ev[0]}")
            self.take(leader, OT.EV_CLEAR)
            self.middle = None
            self.c["clears"] += 1

    # -- the game ----------------------------------------------------------------
    def run(self) -> tuple[int, int]:
        """Replay to the end; returns (END_* kind, winners mask) as the referee sees them."""
        if sorted(self.deck) != list(range(OT.DECK_SIZE)):
            self.fail("the deck is not the 52 cards once each")
        first = self.peek()[0]
        if not 0 <= first < self.n:
            self.fail(f"first player {first} is not a seat")
        self.first = first
        k = 0
        for _ in range(self.s.hand_size):
            for q in range(self.n):
                self.seq[(first + q) % self.n].append(self.deck[k])
                k += 1
        self.top = k
        p = first
        while True:
            self.check_cards()
            if self.c["turns"] >= self.s.max_turns:
                return OT.END_CAPPED, self.stock_out_winners()
            self.c["turns"] += 1
            ev = self.peek()
            if ev[1] == OT.EV_PLAY:
                if self.play(p, "play"):
                    return OT.END_EMPTIED, 1 << p
                if self.draw(p):
                    return OT.END_STOCK_OUT, self.stock_out_winners()
            elif ev[1] == OT.EV_CHECK:
                self.take(p, OT.EV_CHECK)
                self.c["checks"] += 1
                self.passed(p)
                if self.draw(p):
                    return OT.END_STOCK_OUT, self.stock_out_winners()
                self.round_of_checks((p + 1) % self.n)
            elif ev[1] == OT.EV_BET:
                end = self.bet_exchange(p)
                if end is not None:
                    return end
            elif ev[1] == OT.EV_CLEAR:
                self.fail(f"the middle is cleared after {len(self.passers)} turn(s) without a "
                          f"play: a round of checks needs {self.n} (R15)")
            else:
                self.take(p, OT.EV_PLAY, OT.EV_CHECK, OT.EV_BET)
            p = (p + 1) % self.n

    def bet_exchange(self, b: int):
        if not self.s.betting:
            self.fail("a Bet without the advanced rules")
        if self.middle is None:
            self.fail("a Bet on an empty middle")
        self.take(b, OT.EV_BET)
        self.c[f"bets{b}"] += 1
        self.passed(b)
        o = 1 - b
        self.c["turns"] += 1
        self.no_clear_inside_the_exchange("Bet")
        ev = self.peek()
        if ev[0] == b and ev[1] in (OT.EV_PLAY, OT.EV_DRAW):
            self.fail(f"seat {b} {OT.EV_NAMES[ev[1]]}s in the turn of its Bet: the Bet replaces "
                      f"the bettor's play and draw (R15)")
        resp = ev[1]
        if resp == OT.EV_FOLD:
            self.take(o, OT.EV_FOLD)
            self.c["folds"] += 1
            self.passed(o)
            if self.draw(o):
                return OT.END_STOCK_OUT, self.stock_out_winners()
        elif resp == OT.EV_CALL:
            self.take(o, OT.EV_CALL)
            self.c["calls"] += 1
            self.move(o, "call")
            self.passed(o)
        else:
            self.take(o, OT.EV_FOLD, OT.EV_CALL, OT.EV_RAISE)
            self.c["raises"] += 1
            self.move(o, "raise")
            if self.play(o, "raise"):
                return OT.END_EMPTIED, 1 << o
            if self.draw(o):
                return OT.END_STOCK_OUT, self.stock_out_winners()
        self.c["turns"] += 1
        self.no_clear_inside_the_exchange("response")
        ev = self.peek()
        if ev[1] == OT.EV_PLAY:
            self.c[f"bets_won{b}"] += 1
            if self.play(b, "answer to a bet"):
                return OT.END_EMPTIED, 1 << b
            # The bettor does not draw; a beaten raiser draws one extra card.
            if resp == OT.EV_RAISE and self.draw(o):
                return OT.END_STOCK_OUT, self.stock_out_winners()
        else:
            self.take(b, OT.EV_CHECK if resp == OT.EV_FOLD else OT.EV_FOLD)
            if resp == OT.EV_FOLD:
                self.c["checks"] += 1
            self.passed(b)
            if self.draw(b):
                return OT.END_STOCK_OUT, self.stock_out_winners()
        self.round_of_checks(o)  # only now that the exchange has ended (R15)
        return None

    def stock_out_winners(self) -> int:
        fewest = min(len(r) for r in self.seq)
        tied = [p for p in range(self.n) if len(self.seq[p]) == fewest]
        if len(tied) == 1:
            return 1 << tied[0]
        keys = {p: _best_hand(self.seq[p]) for p in tied}
        best = max(keys.values())
        return sum(1 << p for p in tied if keys[p] == best)


def check_game(settings: OrderedSettings, deck, events, record=None, game: int = 0) -> dict:
    """Replay one game; raise :class:`RuleViolation` at the first broken rule.

    Parameters
    ----------
    deck : (52,) the shuffled deck, events : (m, 4) its events,
    record : (N_FIELDS,) the game's record row, checked when given.

    Returns the referee's counts (``end``, ``winners``, ``turns`` ...).
    """
    rp = _Replay(settings, deck, events, game)
    end, winners = rp.run()
    rp.check_cards()
    ev = rp.take(-1, OT.EV_END)
    if end == OT.END_STOCK_OUT and bin(winners).count("1") > 1:
        end = OT.END_SHARED
    if (ev[2], ev[3]) != (end, winners):
        rp.fail(f"the log ends as {OT.END_NAMES[ev[2]]} won by mask {ev[3]}, the referee "
                f"finds {OT.END_NAMES[end]} won by mask {winners}")
    if rp.i != len(rp.events):
        rp.fail("events after the end of the game")
    counts = dict(rp.c)
    counts.update(end=end, winners=winners, first=rp.first)
    if record is not None:
        _check_record(rp, np.asarray(record), counts)
    return counts


def _check_record(rp: _Replay, rec: np.ndarray, c: dict) -> None:
    expect = {
        OT.F_FIRST: c["first"], OT.F_WINNERS: c["winners"],
        OT.F_N_WINNERS: bin(c["winners"]).count("1"), OT.F_END: c["end"],
        OT.F_TURNS: c.get("turns", 0), OT.F_DRAWN: c.get("drawn", 0),
        OT.F_CLEARS: c.get("clears", 0), OT.F_PLAYS: c.get("plays", 0),
        OT.F_CHECKS: c.get("checks", 0), OT.F_FOLDS: c.get("folds", 0),
        OT.F_CALLS: c.get("calls", 0), OT.F_RAISES: c.get("raises", 0),
    }
    for size in range(1, 6):
        expect[OT.F_SIZE + size - 1] = c.get(f"size{size}", 0)
    for cat in range(OT.N_CATEGORIES):
        expect[OT.F_CAT + cat] = c.get(f"cat{cat}", 0)
    for seat in range(OT.MAX_PLAYERS):
        held = len(rp.seq[seat]) if seat < rp.n else -1
        expect[OT.F_CARDS_LEFT + seat] = held
        expect[OT.F_BETS + seat] = c.get(f"bets{seat}", 0)
        expect[OT.F_BETS_WON + seat] = c.get(f"bets_won{seat}", 0)
    for f, want in expect.items():
        if int(rec[f]) != want:
            rp.fail(f"record field {f} is {int(rec[f])}, the replay counts {want}")


def check_result(result) -> int:
    """Replay every logged game of an :class:`~nop_sim.games.ordered_hand.engine.OrderedResult`.

    Returns the number of games checked; raises :class:`RuleViolation`.
    """
    if result.log is None:
        raise ValueError("the result has no event log: play it with log=True")
    for i in range(result.n_games):
        check_game(result.settings, result.log.decks[i], result.log.game_events(i),
                   result.games[i], game=result.first_game + i)
    return result.n_games
