"""The referee's cards: the stock, the discard pile, the deal, the draw and the board."""

from __future__ import annotations

from collections import Counter

from nop_sim.core.cards import parse_card
from nop_sim.games.new_order.referee.state import _Checker


class _Piles(_Checker):
    """Playing cards: every card dealt, drawn or revealed comes from the stock (SPEC 4.4).

    ``restock`` holds (old stock, new stock) between a restock and the draw it serves.
    """

    def add_card(self, c: int) -> None:
        self.expect(0 <= c < 52, f"card code {c} out of range")
        self.in_play[c] += 1
        seen = self.in_play[c] + self.discards[c]
        self.expect(seen <= self.s.decks, f"card {c} appears {seen} times with decks={self.s.decks}")

    def draw_from_stock(self, cards: list[int], what: str) -> None:
        """``cards`` leave the stock (in any order); across a restock if one was logged.

        A restock happens only when the stock is empty and a card is wanted
        (SPEC 4.4), so the cards drawn before it are the whole old stock and the
        rest come from the new one, the discard pile of the moment.
        """
        drawn = Counter(cards)
        n = len(cards)
        if self.restock is None:
            self.expect(n <= self.stock.total(), f"{what}: {n} cards drawn from a stock of "
                        f"{self.stock.total()} without a restock")
        else:
            old, pile = self.restock
            self.restock = None
            self.expect(n > old.total(), f"{what}: restocked while the stock still held "
                        f"{old.total()} cards for {n} draws")
            self.expect(not old - drawn, f"{what}: the stock was restocked before it ran out")
            drawn -= old
            self.stock = pile
        self.expect(not drawn - self.stock, f"{what}: drew cards that are not in the stock")
        self.stock -= drawn

    def deal(self, r: dict) -> None:
        h = self.h
        p = r["seat"]
        self.expect(h.in_hand[p] and p not in h.hole, "five cards to each player once")
        cards = [self.code(c) for c in r["cards"]]
        self.draw_from_stock(cards, "the deal")
        for c in cards:
            self.add_card(c)
        h.hole[p] = cards
        if len(h.hole) == len(h.order):
            self.start_round(0)

    @staticmethod
    def code(text: str) -> int:
        return parse_card(text)

    def discard(self, r: dict) -> None:
        h = self.h
        p = r["seat"]
        if h.phase == "bet":
            self.round_over()
            h.phase = "draw"
            self.draw_i = 0
        self.expect(h.phase == "draw", "the draw follows Bet I")
        live_order = [q for q in h.order if not h.folded[q]]
        self.expect(self.draw_i < len(live_order) and live_order[self.draw_i] == p,
                    "draws in seat order left of the dealer, folded players skipped")
        self.draw_i += 1
        limit = h.seats[p].max_discard
        self.expect(r["n"] <= limit, f"{r['n']} discards, at most {limit}")
        gone = [self.code(c) for c in r["cards"]]
        self.expect(len(gone) == r["n"], "discard count")
        hand = list(h.hole[p])
        for c in gone:
            self.expect(c in hand, "a discard comes from the hand")
            hand.remove(c)
            self.in_play[c] -= 1
        # R7: these join the discard pile after the draw, so a restock during it leaves
        # them out
        self.pending_keep = (p, hand, r["n"], Counter(gone))

    def hole(self, r: dict) -> None:
        h = self.h
        p, kept, n_new, gone = self.pending_keep
        self.expect(r["seat"] == p, "the hand after the draw follows its discards")
        cards = [self.code(c) for c in r["cards"]]
        rest = list(cards)
        for c in kept:
            self.expect(c in rest, "kept cards stay in the hand")
            rest.remove(c)
        self.expect(len(rest) == n_new, "as many drawn as discarded")
        self.draw_from_stock(rest, f"the draw of seat {p}")
        for c in rest:
            self.add_card(c)
        self.discards += gone
        h.hole[p] = cards

    def reshuffle(self, r: dict) -> None:
        """Checked with the draw or reveal that follows (see :meth:`draw_from_stock`)."""
        if r["pile"] == "stock":
            self.restock_stock(r)
        else:
            self.reshuffle_disruptors(r)

    def restock_stock(self, r: dict) -> None:
        self.expect(self.restock is None, "one restock per draw")
        # the whole discard pile; during a draw, without the drawer's own discards of
        # this draw (SPEC R7: they join the pile after it)
        pile = self.discards
        self.expect(r["cards"] == pile.total() > 0,
                    f"the new stock of {r['cards']} cards is the discard pile of "
                    f"{pile.total()}")
        self.restock = (self.stock, pile)
        self.discards = Counter()

    def board(self, r: dict) -> None:
        h = self.h
        if h.phase == "bet":
            self.round_over()
        if h.phase == "draw":
            self.expect(self.draw_i == len([q for q in h.order if not h.folded[q]]),
                        "every player still in draws before the community card")
        cards = [self.code(c) for c in r["cards"]]
        self.expect(cards[: len(h.board)] == h.board, "community cards stay")
        new = cards[len(h.board):]
        want = h.third if not h.board else 1
        self.expect(len(new) == want, f"{len(new)} community cards revealed, rules say {want}")
        self.draw_from_stock(new, "the community cards")
        for c in new:
            self.add_card(c)
        h.board = cards
        self.start_round(1 if len(h.board) == h.third else 2)

