"""The referee's hand and match lifecycle, and the dispatch of logged events."""

from __future__ import annotations

from collections import Counter
from typing import Any

from nop_sim.core.errors import RuleViolation
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.disruptors import mix_arrays
from nop_sim.games.new_order.history import to_records
from nop_sim.games.new_order.referee.betting import _Betting
from nop_sim.games.new_order.referee.draft import _Draft
from nop_sim.games.new_order.referee.piles import _Piles
from nop_sim.games.new_order.referee.showdown import _Showdown
from nop_sim.games.new_order.referee.state import _Hand
from nop_sim.games.new_order.settings import Settings


class _Referee(_Piles, _Betting, _Showdown, _Draft):
    """One match replayed: the match and hand state, and each event sent to its part."""

    def __init__(self, settings: Settings):
        self.s = settings
        mix = mix_arrays(settings.disruptor_mix)
        self.deck0 = Counter(int(c) for c in mix.deck)
        self.kind = [T.TYPE_NAMES[int(t)] for t in mix.type]
        self.amount = [int(a) for a in mix.amount]
        self.stack = [T.STACK_NAMES[int(k)] for k in mix.stack]  # the engine's codes
        self.where = ""
        self.restock = None  # (old stock, new stock) between a restock and its draw
        self.d_reshuffle = None  # (old deck, new deck) between a reshuffle and its reveal

    # -- match ----------------------------------------------------------------------
    def match_start(self, r: dict) -> None:
        s = self.s
        self.n = s.players
        self.expect(r["players"] == self.n, "players")
        self.expect(r["chips"] == s.starting_chips, "starting chips")
        self.expect(r["dart"] == s.dart_start, "dart starts at dart_start")
        self.expect(r["disruptor_cards"] == sum(self.deck0.values()), "Disruptor deck size")
        self.expect(0 <= r["button"] < self.n, "button seat")
        self.chips = [s.starting_chips] * self.n
        self.alive = [True] * self.n
        self.total0 = s.starting_chips * self.n
        self.bank_in = 0
        self.bank_out = 0
        self.dart = s.dart_start
        self.column = list(range(13))
        self.personal: list[list[tuple[int, int]]] = [[] for _ in range(self.n)]
        # per seat and Personal slot: (card, hand it was drafted in) or None (R2)
        self.slots: list[list] = [[None, None] for _ in range(self.n)]
        self.community: list[int] = []
        self.d_deck = Counter(self.deck0)  # the Disruptor deck, face down
        self.d_discard: Counter = Counter()  # and its discard pile
        self.hedge = [-1] * self.n
        self.button = r["button"]
        self.hand_no = 0
        self.elim_hand = [0] * self.n
        self.start_chips = [0] * self.n
        self.picking = (-1, -1)
        self.last_purged = None
        self.pending_instant = None

    def hand_start(self, r: dict) -> None:
        s = self.s
        self.hand_no += 1
        self.expect(r["hand"] == self.hand_no, "hands are numbered in order")
        self.expect(sum(self.alive) > 1, "a hand starts only with two or more players")
        if self.hand_no > 1:
            self.move_button()
        self.expect(r["button"] == self.button, "the button moves to the next player still in")
        if s.dart_reset == "hand":
            self.dart = s.dart_start
        self.expect(r["dart"] == self.dart, f"dart {r['dart']} != {self.dart}")
        # the cards in play now act for the whole hand, stacked as the catalog says
        fields, everyone_wild = self.community_effects()
        expected = dict(inverted=int(fields["inverted"]), betting=fields["betting"],
                        community_cards_i=fields["third"], ante=fields["ante"],
                        frozen=int(fields["frozen"]), fee_ceiling=fields["ceiling"],
                        dart_step_mult=fields["inflation"], hedge_mult=fields["hedge_mult"])
        for k, v in expected.items():
            self.expect(r[k] == v, f"hand flag {k}: logged {r[k]}, rules say {v}")
        order = [(self.button + i) % self.n for i in range(1, self.n + 1)]
        order = [p for p in order if self.alive[p]]
        if s.hedge_scope == "hand":
            self.hedge = [-1] * self.n
        self.start_chips = list(self.chips)
        self.in_play = Counter()
        self.discards = Counter()
        self.stock = Counter({c: s.decks for c in range(52)})  # decks x 52 at each deal
        self.h = _Hand(
            number=self.hand_no, button=self.button, order=order, **fields,
            seats=[self.seat_effects(p, everyone_wild) for p in range(self.n)],
            committed=[0] * self.n,
            folded=[False] * self.n, allin=[False] * self.n,
            in_hand=[self.alive[p] for p in range(self.n)],
        )
        self.ante_i = 0

    def move_button(self) -> None:
        """The button moves to the next player still in."""
        b = self.button
        for i in range(1, self.n + 1):
            q = (b + i) % self.n
            if self.alive[q]:
                self.button = q
                break

    # -- end of hand and match ----------------------------------------------------------------
    def eliminated(self, r: dict) -> None:
        p = r["seat"]
        self.expect(self.alive[p] and self.chips[p] == 0, "only players with 0 chips are out")
        self.expect(not self.saving_slots(p), "a safety net drafted before this hand saves")
        self.alive[p] = False
        self.elim_hand[p] = self.hand_no
        self.hedge[p] = -1

    def hand_end(self, r: dict) -> None:
        h = self.h
        self.expect(not h.awards_due and not h.hedge_due, "every pot awarded")
        if h.drafting and h.reveal:
            self.expect(all(h.taken), "every revealed card picked or discarded")
        if h.drafting and not h.reveal:
            self.expect(self.d_deck.total() + self.d_discard.total() == 0,
                        "a draft reveals cards when any are left")
        in_play = Counter(c for held in self.personal for c, _ in held) + Counter(self.community)
        self.expect(self.d_deck + self.d_discard + in_play == self.deck0,
                    "Disruptor cards are conserved: deck, discard pile and cards in play")
        for p in range(self.n):
            if self.alive[p]:
                self.expect(self.chips[p] > 0, f"seat {p} has 0 chips and is still in")
        self.expect(r["chips"] == self.chips, f"chips {r['chips']} != referee's {self.chips}")
        self.expect(sum(self.chips) == self.total0 + self.bank_in - self.bank_out,
                    "chips are conserved (bank flows counted)")
        self.expect(r["dart"] == self.dart and r["bank_net"] == self.bank_in - self.bank_out,
                    "dart and bank at the hand's end")
        self.expect(1 <= self.dart <= self.s.dart_cap or self.dart == self.s.dart_start,
                    "the dart stays within its range")
        for p in range(self.n):
            self.expect(len(self.personal[p]) <= 2, "at most 2 Personal cards")
        self.expect(len(self.community) <= 2, "at most 2 Community cards")

    def match_end(self, r: dict) -> None:
        alive = [p for p in range(self.n) if self.alive[p]]
        unresolved = len(alive) > 1
        self.expect(bool(r["unresolved"]) == unresolved, "unresolved flag")
        if unresolved:
            self.expect(self.hand_no == self.s.max_hands, "only the max_hands cap leaves it open")
            most = max(self.chips[p] for p in alive)
            self.expect(self.chips[r["winner"]] == most and self.alive[r["winner"]],
                        "an unresolved match goes to the chip leader")
        else:
            self.expect(r["winner"] == alive[0], "the last player in wins")
        self.expect(r["hands"] == self.hand_no, "hands played")

    def event(self, r: dict) -> None:
        ev = r["event"]
        self.where = f"match {r['match']}, hand {r['hand']}, {ev} seat {r['seat']}"
        if self.restock is not None and ev not in ("deal", "hole", "board"):
            self.fail("a restock not followed by a draw from the new stock")
        if self.d_reshuffle is not None and ev != "reveal":
            self.fail("a Disruptor reshuffle not followed by a reveal")
        handler = {
            "match_start": self.match_start, "hand_start": self.hand_start, "ante": self.ante,
            "deal": self.deal, "hedge": self.hedge_ev, "promote": self.promote,
            "action": self.action, "discard": self.discard, "hole": self.hole,
            "board": self.board, "hedge_pay": self.hedge_pay, "pot": self.pot,
            "award": self.award, "fold_win": self.fold_win, "uncalled": self.uncalled, "reveal": self.reveal,
            "pick": self.pick, "effect": self.effect, "disruptor_discard": self.d_discard_ev,
            "eliminated": self.eliminated, "safety_net": self.safety,
            "reshuffle": self.reshuffle, "hand_end": self.hand_end, "match_end": self.match_end,
        }.get(ev)
        if ev == "show":
            self.show(r, mucked=False)
        elif ev == "muck":
            self.show(r, mucked=True)
        elif handler is None:
            self.fail(f"unknown event {ev!r}")
        else:
            handler(r)


def check_log(records: list[dict[str, Any]], settings: Settings) -> int:
    """Replay the records of logged matches (dicts of :func:`nop_sim.games.new_order.history.to_records`).

    Returns the number of matches checked; raises :class:`RuleViolation` at the
    first broken rule.
    """
    ref = None
    n = 0
    for r in records:
        if r["event"] == "match_start":
            ref = _Referee(settings)
            n += 1
        if ref is None:
            raise RuleViolation("the log does not start with match_start")
        ref.event(r)
    return n


def check_results(results) -> int:
    """Replay every logged match of a :class:`~nop_sim.games.new_order.engine.MatchResults`."""

    if results.events_lost:
        raise RuleViolation(f"{results.events_lost} events were dropped: raise log_capacity")
    return check_log(list(to_records(results.events)), results.settings)


