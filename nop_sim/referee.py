"""Replay New Order Poker event logs in plain Python and check every rule.

The referee shares nothing with the match kernels but the log format
(:mod:`nop_sim.events`): it keeps its own chips, pots, column, dart, tokens,
hands, piles and Disruptors, and checks each logged transition against the
SPEC (sections 3-7):

- each hand's effects, derived from the Disruptor catalog as data: every
  card's amount and its ``stack`` rule (SPEC R6, R8), checked against the
  logged hand flags;
- antes (exemptions, double_ante, short stacks all-in);
- cards: no card more often than ``decks`` copies among hands, board and the
  discard pile; discards come from the hand; the stock counted card by card
  (``decks`` x 52 at the deal, every card dealt or drawn comes from it),
  rebuilt from the whole discard pile only when it ran out;
- betting: turn order (first able player left of the dealer, round over when
  everyone able has acted and matched), legal actions and amounts for limit,
  pot-limit and no-limit, raise caps, all-ins;
- manipulation: only with a bet, call or raise, at most
  ``promotions_per_action``, never the top category, never in a frozen
  market, the fee (dart, price ceiling, brokers) paid in full to the pot or the
  bank, the dart's step (inflation) and cap;
- hedging: on the player's turn, before the action, paying the cost, moving
  only to another category; payouts at showdown on the main pot's winning
  category, in seat order, from the pot (partial) or the bank, doubled by
  hedge_fund / hedge_boom, for folded players too;
- showdown: shown hands re-scored by the referee's own best-of-five search
  under the column, elevation and inversion, wild cards and several decks
  included (:func:`score_hand`), mucks only by beaten hands, side pots and
  their winners, odd chips;
- the draft: k + 1 reveals (fewer when the piles run dry) drawn from the
  Disruptor deck, its discard pile reshuffled in only when the deck ran out,
  every Disruptor card in the deck, its discard pile or play; pick order, mucked
  hands skipped, mandatory picks, Personal (2) and Community (2) limits, and
  every effect's result;
- eliminations (safety_net), chips after every hand against the log, chip
  conservation with bank flows, the button, the match end and its winner.

Use :func:`check_results` on the output of ``play_matches(..., log_every=k)``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cache, lru_cache
from itertools import combinations, combinations_with_replacement
from typing import Any

from nop_sim import types as T
from nop_sim.disruptors import mix_arrays
from nop_sim.errors import RuleViolation
from nop_sim.hand_reference import classify_ranks
from nop_sim.rules import Settings

__all__ = ["RuleViolation", "check_log", "check_results", "score_hand"]

ACTIONS = ("fold", "check", "call", "bet", "raise")


# -- the referee's own hand scoring (five cards: nop_sim.hand_reference) ----------------
@cache
def _options(naturals: tuple[int, ...], n_wild: int, one_suit: bool,
             mixed: bool) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Every category five cards can make, each with its best tie-break.

    ``naturals`` are the ranks of the cards that are not wild (sorted),
    ``n_wild`` the number of wild cards, ``one_suit`` / ``mixed`` whether the
    five can be all one suit / not all one suit.

    Why this is every value the wild cards can take (SPEC 1: a wild stands for
    any rank and any suit, a card already in the hand included), though it
    tries 13 ranks and two suits rather than 52 cards per wild: the
    classification (:func:`~nop_sim.hand_reference.classify_ranks`) reads only the rank multiset and whether
    all five share a suit. Each wild's rank and suit are free and independent
    of the other cards, so the rank multisets reachable are exactly
    ``naturals + W`` for every multiset ``W`` of ``n_wild`` ranks
    (``combinations_with_replacement``: the order of wilds is irrelevant), and
    for each of them the suit flag can be made true iff the naturals share a
    suit or there are none (give every wild that suit, s) and false iff the
    naturals mix suits or there is a wild (give one wild a suit other than s:
    five cards always hold another). So the wild values that matter are ranks
    2..14 in suit s or one other suit, and the best of every reachable
    (multiset, flag) pair is the best of every assignment of 52 values per
    wild (``tests/test_referee.py`` checks this against that brute force).
    Under any column the best hand of a category is its best tie-break, so one
    tie-break per category is kept.
    """
    flags = ((True,) if one_suit else ()) + ((False,) if mixed else ())
    best: dict[int, tuple[int, ...]] = {}
    for extra in combinations_with_replacement(range(2, 15), n_wild):
        ranks = naturals + extra
        for flag in flags:
            cat, tb = classify_ranks(ranks, flag)
            if cat not in best or tb > best[cat]:
                best[cat] = tb
    return tuple(best.items())


def _five_options(five: tuple[int, ...], wild_ranks: int) -> tuple[tuple[int, tuple], ...]:
    """:func:`_options` of five card codes; ``wild_ranks`` has bit ``rank - 2`` per wild rank."""
    naturals = [c for c in five if not (wild_ranks >> (c // 4)) & 1]
    suits = {c % 4 for c in naturals}
    n_wild = 5 - len(naturals)
    ranks = tuple(sorted(c // 4 + 2 for c in naturals))
    if n_wild == 0:
        return _options(ranks, 0, len(suits) == 1, len(suits) > 1)
    return _options(ranks, n_wild, len(suits) <= 1, True)


@lru_cache(maxsize=200_000)
def _best(cards: tuple[int, ...], wild_ranks: int, positions: tuple[int, ...],
          elevation: tuple[int, ...], inverted: bool) -> tuple[tuple, int]:
    """(key, category) of the best five of ``cards``; see :func:`score_hand`."""
    best = None
    for five in combinations(cards, 5):
        for cat, tb in _five_options(five, wild_ranks):
            pos = 12 - positions[cat] if inverted else positions[cat]
            up = elevation[cat]
            key = (-(pos - up), int(up > 0), tb)
            if best is None or key > best[0]:
                best = (key, cat)
    return best


def score_hand(cards, column, *, wild_ranks: int = 0, elevation=None,
               inverted: bool = False) -> tuple[tuple, int]:
    """The referee's own score of a player's best hand (SPEC 1 and 2), in plain Python.

    Parameters
    ----------
    cards : 5..8 card codes 0..51 (repeats allowed: several decks)
    column : the 13 category ids, top first
    wild_ranks : 13-bit mask, bit ``rank - 2`` set for each wild rank
    elevation : 13 ints, positions each category is elevated (0: none); None = none
    inverted : the column is read bottom-up (the Inversion card)

    Returns
    -------
    (key, category): keys compare like hands (larger wins, equal splits): the
    effective position (elevation counted), then an elevated hand above a
    natural one, then the tie-break ranks. The five cards and the wild values
    are chosen to maximise the key, i.e. under the column.
    """
    positions = [0] * 13
    for i, c in enumerate(column):
        positions[int(c)] = i
    elevation = tuple(int(e) for e in elevation) if elevation is not None else (0,) * 13
    return _best(tuple(sorted(int(c) for c in cards)), int(wild_ranks), tuple(positions),
                 elevation, bool(inverted))


# -- Disruptor effects from the catalog ------------------------------------------------------


def _stacked(rule: str, amount: int, copies: int, none: int) -> int:
    """The number an effect uses with ``copies`` copies of its card in play (or held).

    ``rule`` is the card's ``stack`` in the catalog (SPEC R6, see
    ``nop_sim/data/disruptors.toml``), ``amount`` its catalog amount (R8) and
    ``none`` the effect's number with no copy in play.
    """
    if copies == 0:
        return none
    if rule == "multiply":
        return amount**copies
    if rule == "add":
        return amount * copies
    if rule == "once":
        return amount
    raise ValueError(f"a card that stacks {rule!r} acts copy by copy, not as one number")


@dataclass(frozen=True)
class _Seat:
    """One player's Personal cards as this hand's effects (read at the hand's start)."""

    wild_ranks: int  # bit rank - 2 per wild rank (deuces_wild counted in)
    elevation: tuple[int, ...]  # positions each category is elevated (elevator)
    fee_off: int  # taken off the manipulation fee (broker)
    max_discard: int  # cards that may be discarded in the Draw (deep_draw)
    ante_exempt: bool
    hedge_fund: int  # hedge payout multiplier


# -- state -------------------------------------------------------------------------------------
@dataclass
class _Hand:
    number: int
    button: int
    order: list[int]
    ante: int
    betting: str
    inverted: bool
    third: int
    frozen: bool
    ceiling: int
    inflation: int
    hedge_mult: int
    seats: list[_Seat]
    committed: list[int]
    folded: list[bool]
    allin: list[bool]
    in_hand: list[bool]
    hole: dict[int, list[int]] = field(default_factory=dict)
    board: list[int] = field(default_factory=list)
    dead: int = 0
    dead_pots: list[list] = field(default_factory=list)  # [chips, seats, tick] (R1)
    tick: int = 0  # formation clock of all-ins and dead-money pots
    allin_tick: dict[int, int] = field(default_factory=dict)
    phase: str = "ante"
    # betting round
    rnd: int = -1
    level: int = 0
    n_raises: int = 0
    last_raise: int = 0
    full_seq: int = 0  # full bets and raises this round (R4)
    act_seq: list[int] = field(default_factory=list)
    round_bet: list[int] = field(default_factory=list)
    acted: list[bool] = field(default_factory=list)
    last_actor: int = -1
    turn_seat: int = -1
    turn_promotions: int = 0
    turn_hedged: bool = False
    drew: set = field(default_factory=set)
    # showdown
    shown: dict[int, tuple] = field(default_factory=dict)
    scores: dict[int, int] = field(default_factory=dict)
    cats: dict[int, int] = field(default_factory=dict)
    mucked: set = field(default_factory=set)
    best_shown: int = -1
    pots: list[list] = field(default_factory=list)  # [amount, eligible set]
    pot_i: int = 0
    awards_due: list = field(default_factory=list)
    hedge_due: list = field(default_factory=list)
    k_showdown: int = 0
    pickers: list[int] = field(default_factory=list)
    reveal: list[int] = field(default_factory=list)
    taken: list[bool] = field(default_factory=list)
    n_picks: int = 0
    drafting: bool = False


class _Referee:
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

    # -- helpers ----------------------------------------------------------------
    def fail(self, msg: str) -> None:
        raise RuleViolation(f"{self.where}: {msg}")

    def expect(self, cond: bool, msg: str) -> None:
        if not cond:
            self.fail(msg)

    def ids(self, name: str) -> int:
        return T.DISRUPTOR_IDS.index(name)

    def held(self, p: int, card: str) -> int:
        c = self.ids(card)
        return sum(1 for x, _ in self.personal[p] if x == c)

    def effect_of(self, copies: Counter, card: str, none: int) -> int:
        """The number of ``card``'s effect with ``copies[card id]`` copies (:func:`_stacked`)."""
        c = self.ids(card)
        return _stacked(self.stack[c], self.amount[c], copies[c], none)

    def wild_bit(self, card: str, copies: Counter) -> int:
        """The wild_ranks bit (rank - 2) of a wild card's rank, its amount (R8), if in play."""
        c = self.ids(card)
        return 1 << (self.amount[c] - 2) if copies[c] else 0

    def pay_dead(self, amount: int) -> None:
        """R1: a fee or hedge cost joins the main pot until someone in the hand is all-in;
        after that it forms a pot only the seats neither folded nor all-in now may win."""
        h = self.h
        h.dead += amount
        if amount == 0 or not any(h.allin[q] for q in self.live()):
            return
        seats = {q for q in self.live() if not h.allin[q]}
        if h.dead_pots and h.dead_pots[-1][1] == seats:
            h.dead_pots[-1][0] += amount
        else:
            h.dead_pots.append([amount, seats, h.tick])
            h.tick += 1

    def go_allin(self, p: int) -> None:
        h = self.h
        h.allin[p] = True
        h.allin_tick[p] = h.tick
        h.tick += 1

    def seat_effects(self, p: int, everyone_wild: int) -> _Seat:
        own = Counter(c for c, _ in self.personal[p])
        elevator = self.ids("elevator")
        named = Counter(arg for c, arg in self.personal[p] if c == elevator)  # per category
        return _Seat(
            wild_ranks=everyone_wild | self.wild_bit("wild_deuces", own),
            elevation=tuple(_stacked(self.stack[elevator], self.amount[elevator], named[cat], 0)
                            for cat in range(13)),
            fee_off=self.effect_of(own, "broker", 0),
            max_discard=min(self.effect_of(own, "deep_draw", self.s.max_discard), 5),
            ante_exempt=own[self.ids("ante_exempt")] > 0,
            hedge_fund=self.effect_of(own, "hedge_fund", 1),
        )

    def pot_total(self) -> int:
        return self.h.dead + sum(self.h.committed)

    def can_act(self, p: int) -> bool:
        h = self.h
        return h.in_hand[p] and not h.folded[p] and not h.allin[p]

    def live(self) -> list[int]:
        h = self.h
        return [p for p in range(self.n) if h.in_hand[p] and not h.folded[p]]

    def fee(self, p: int) -> int:
        """SPEC R6: min(dart, the price ceiling if in play) less the brokers, never below 0."""
        f = self.dart
        if self.h.ceiling > 0:
            f = min(f, self.h.ceiling)
        return max(f - self.h.seats[p].fee_off, 0)

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
            b = self.button
            for i in range(1, self.n + 1):
                q = (b + i) % self.n
                if self.alive[q]:
                    self.button = q
                    break
        self.expect(r["button"] == self.button, "the button moves to the next player still in")
        if s.dart_reset == "hand":
            self.dart = s.dart_start
        self.expect(r["dart"] == self.dart, f"dart {r['dart']} != {self.dart}")
        # the cards in play now act for the whole hand, stacked as the catalog says
        comm = Counter(self.community)
        inverted = comm[self.ids("inversion")] > 0
        betting = "no-limit" if comm[self.ids("no_limit")] else s.betting
        third = self.effect_of(comm, "third_card", 1)  # cards at Community Card I
        frozen = comm[self.ids("frozen_market")] > 0
        ceiling = self.effect_of(comm, "price_ceiling", 0)
        inflation = self.effect_of(comm, "inflation", 1)
        ante_mult = self.effect_of(comm, "double_ante", 1)
        hedge_mult = self.effect_of(comm, "hedge_boom", 1)
        everyone_wild = self.wild_bit("deuces_wild", comm)
        expected = dict(inverted=int(inverted), betting=betting, community_cards_i=third,
                        ante=s.ante * ante_mult, frozen=int(frozen), fee_ceiling=ceiling,
                        dart_step_mult=inflation, hedge_mult=hedge_mult)
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
            number=self.hand_no, button=self.button, order=order, ante=s.ante * ante_mult,
            betting=betting, inverted=inverted, third=third, frozen=frozen, ceiling=ceiling,
            inflation=inflation, hedge_mult=hedge_mult,
            seats=[self.seat_effects(p, everyone_wild) for p in range(self.n)],
            committed=[0] * self.n,
            folded=[False] * self.n, allin=[False] * self.n,
            in_hand=[self.alive[p] for p in range(self.n)],
        )
        self.ante_i = 0

    # -- phases -----------------------------------------------------------------------
    def ante(self, r: dict) -> None:
        h = self.h
        p = r["seat"]
        self.expect(h.phase == "ante" and self.ante_i < len(h.order)
                    and h.order[self.ante_i] == p, "antes in seat order left of the dealer")
        self.ante_i += 1
        due = 0 if h.seats[p].ante_exempt else min(h.ante, self.chips[p])
        self.expect(r["amount"] == due, f"ante {r['amount']} != {due}")
        self.chips[p] -= due
        h.committed[p] += due
        if self.chips[p] == 0:
            self.go_allin(p)
        self.expect(bool(r["all_in"]) == h.allin[p], "all-in after the ante")

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
        from nop_sim.cards import parse_card

        return parse_card(text)

    # -- betting ---------------------------------------------------------------------
    def start_round(self, rnd: int) -> None:
        h = self.h
        h.phase = "bet"
        h.rnd = rnd
        h.level = 0
        h.n_raises = 0
        h.last_raise = self.s.small_bet
        h.full_seq = 0
        h.act_seq = [0] * self.n
        h.round_bet = [0] * self.n
        h.acted = [False] * self.n
        h.last_actor = h.button
        h.turn_seat = -1
        self.advance_turn(first=True)

    def advance_turn(self, first: bool = False) -> None:
        """Find who acts next (left of the last actor), or close the round."""
        h = self.h
        able = [p for p in range(self.n) if self.can_act(p)]
        if len(self.live()) <= 1 or (first and len(able) < 2):
            h.turn_seat = -1
            return
        for i in range(1, self.n + 1):
            p = (h.last_actor + i) % self.n
            if self.can_act(p) and (not h.acted[p] or h.round_bet[p] < h.level):
                if h.round_bet[p] >= h.level and not any(self.can_act(q) for q in able if q != p):
                    h.acted[p] = True  # nobody left to bet against and nothing to call
                    continue
                h.turn_seat = p
                h.turn_promotions = 0
                h.turn_hedged = False
                return
        h.turn_seat = -1

    def round_over(self) -> None:
        self.expect(self.h.phase != "bet" or self.h.turn_seat == -1,
                    f"betting round closed while seat {self.h.turn_seat} still had to act")

    def hedge_ev(self, r: dict) -> None:
        h = self.h
        p = r["seat"]
        self.expect(h.phase == "bet" and h.turn_seat == p, "hedges only on one's turn")
        self.expect(not h.turn_hedged and h.turn_promotions == 0,
                    "one hedge per turn, before the action")
        cost = self.s.hedge_cost
        self.expect(r["cost"] == cost, "hedge cost")
        self.expect(self.chips[p] >= cost, "the hedge is paid in full")
        cat = self.cat_id(r["category"])
        self.expect(cat != self.hedge[p], "a move goes to another category")
        prev = self.cat_id(r["previous"]) if r["previous"] is not None else -1
        self.expect(prev == self.hedge[p], "the token moves from where it lay")
        self.chips[p] -= cost
        self.pay_dead(cost)
        self.hedge[p] = cat
        h.turn_hedged = True
        allin = cost > 0 and self.chips[p] == 0  # R5: hedging with the last chip
        self.expect(bool(r["all_in"]) == allin, "all-in after the hedge")
        if allin:  # no action follows
            self.go_allin(p)
            h.acted[p] = True
            h.act_seq[p] = h.full_seq
            h.last_actor = p
            self.advance_turn()

    @staticmethod
    def cat_id(label: str) -> int:
        from nop_sim.column import parse_category

        return int(parse_category(label))

    def promote(self, r: dict) -> None:
        h = self.h
        p = r["seat"]
        self.expect(h.phase == "bet" and h.turn_seat == p, "promotions only on one's turn")
        self.expect(not h.frozen, "no manipulation in a frozen market")
        self.expect(h.turn_promotions < self.s.promotions_per_action,
                    "at most promotions_per_action promotions")
        fee = self.fee(p)
        self.expect(r["fee"] == fee, f"fee {r['fee']} != {fee} (dart {self.dart})")
        self.expect(self.chips[p] - fee >= 1, "the fee is paid in full, with a chip left to act")
        cat = self.cat_id(r["category"])
        pos = self.column.index(cat)
        self.expect(pos > 0, "the top category cannot be promoted")
        self.expect(self.cat_id(r["swapped_with"]) == self.column[pos - 1], "swap partner")
        self.column[pos - 1], self.column[pos] = self.column[pos], self.column[pos - 1]
        self.chips[p] -= fee
        if self.s.fee_to == "bank":
            self.bank_out += fee
        else:
            self.pay_dead(fee)
        self.expect(r["fee_to"] == self.s.fee_to, "fee_to")
        self.dart = min(self.dart + self.s.dart_step * h.inflation, self.s.dart_cap)
        self.expect(r["dart"] == self.dart, f"dart after the promotion {r['dart']} != {self.dart}")
        h.turn_promotions += 1

    def action(self, r: dict) -> None:
        h = self.h
        s = self.s
        p = r["seat"]
        self.expect(h.phase == "bet", "actions only in a betting round")
        self.expect(h.turn_seat == p, f"seat {p} acted out of turn (seat {h.turn_seat} was next)")
        act = r["action"]
        put = r["chips"]
        chips = self.chips[p]
        to_call = max(h.level - h.round_bet[p], 0)
        pot = self.pot_total()
        if act in ("fold", "check"):
            self.expect(h.turn_promotions == 0, "promotions only with a bet, call or raise")
            self.expect(put == 0, "fold and check put in nothing")
            if act == "check":
                self.expect(to_call == 0, "check only with nothing to call")
            if act == "fold":
                h.folded[p] = True
        else:
            self.expect(0 < put <= chips, f"{act} of {put} with {chips} chips")
            new = h.round_bet[p] + put
            allin = put == chips
            if act == "call":
                self.expect(new <= h.level and (new == h.level or allin),
                            f"a call matches the bet ({put} vs {to_call}) or is all-in")
            else:
                self.expect(new > h.level, f"a {act} must raise the level")
                size = new - h.level
                if act == "bet":
                    self.expect(h.level == 0, "a bet opens the round")
                else:
                    self.expect(h.level > 0, "a raise follows a bet")
                if act == "raise":  # R4: not after an incomplete raise to who already acted
                    self.expect(not h.acted[p] or h.act_seq[p] < h.full_seq,
                                f"seat {p} raised though nobody made a full bet or raise since "
                                f"it acted")
                unit = s.small_bet if h.rnd == 0 else s.big_bet
                if h.betting == "limit":
                    self.expect(size == unit or (allin and size < unit),
                                f"limit {act} is {unit}, got {size}")
                    if act == "raise":
                        self.expect(h.n_raises < s.max_raises, "at most max_raises raises")
                else:
                    least = s.small_bet if act == "bet" else max(h.last_raise, s.small_bet)
                    self.expect(size >= least or allin, f"{act} of {size} below the minimum {least}")
                    if h.betting == "pot-limit":
                        most = max(pot + to_call, s.small_bet if act == "bet" else 0)
                        self.expect(size <= max(most, least),
                                    f"pot-limit {act} of {size} above the pot {most}")
                # R4: only a full bet or raise counts toward max_raises and reopens betting
                full = size >= (unit if h.betting == "limit" else h.last_raise)
                if full:
                    h.last_raise = size
                    h.full_seq += 1
                    if act == "raise":
                        h.n_raises += 1
                h.level = new
            self.chips[p] -= put
            h.committed[p] += put
            h.round_bet[p] = new
            if self.chips[p] == 0:
                self.go_allin(p)
        self.expect(r["round_bet"] == h.round_bet[p] and r["level"] == h.level,
                    "round bet and level after the action")
        self.expect(bool(r["all_in"]) == h.allin[p] and r["stack"] == self.chips[p],
                    "stack after the action")
        h.acted[p] = True
        h.act_seq[p] = h.full_seq
        h.last_actor = p
        self.advance_turn()

    # -- draw and board ------------------------------------------------------------------
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
            self.expect(self.restock is None, "one restock per draw")
            # the whole discard pile; during a draw, without the drawer's own discards of
            # this draw (SPEC R7: they join the pile after it)
            pile = self.discards
            self.expect(r["cards"] == pile.total() > 0,
                        f"the new stock of {r['cards']} cards is the discard pile of "
                        f"{pile.total()}")
            self.restock = (self.stock, pile)
            self.discards = Counter()
        else:
            h = self.h
            self.expect(h.drafting and not h.reveal and self.d_reshuffle is None,
                        "the Disruptor discard pile is reshuffled only in a reveal, once")
            self.expect(r["cards"] == self.d_discard.total() > 0,
                        f"the new Disruptor deck of {r['cards']} cards is its discard pile of "
                        f"{self.d_discard.total()}")
            self.d_reshuffle = (self.d_deck, self.d_discard)

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

    # -- showdown --------------------------------------------------------------------------
    def _score(self, p: int) -> tuple[tuple, int]:
        h = self.h
        cards = h.hole[p] + h.board
        seat = h.seats[p]
        return score_hand(cards, self.column, wild_ranks=seat.wild_ranks,
                          elevation=seat.elevation, inverted=h.inverted)

    def show(self, r: dict, mucked: bool) -> None:
        h = self.h
        p = r["seat"]
        if h.phase == "bet":
            self.round_over()
            h.phase = "showdown"
            self.show_i = 0
            h.k_showdown = len(self.live())
            self.expect(h.k_showdown > 1, "a showdown needs two hands")
        self.expect(h.phase == "showdown", "showdown after Bet III")
        live_order = [q for q in h.order if not h.folded[q]]
        self.expect(self.show_i < len(live_order) and live_order[self.show_i] == p,
                    "hands are shown in seat order left of the dealer")
        self.show_i += 1
        key, cat = self._score(p)
        if mucked:
            self.expect(h.best_shown >= 0 and key < h.shown[h.best_shown][0],
                        "only a hand that cannot beat the best shown may muck")
            h.mucked.add(p)
            if len(h.shown) + len(h.mucked) == h.k_showdown:
                self.settle()
            return
        self.expect(cat == self.cat_id(r["category"]), f"seat {p} shows {r['category']}, "
                    f"the referee finds {cat}")
        for q, (k2, _) in h.shown.items():
            s1, s2 = r["score"], h.scores[q]
            self.expect((key > k2) == (s1 > s2) and (key == k2) == (s1 == s2),
                        f"seats {p} and {q}: logged scores disagree with the referee's")
        h.shown[p] = (key, cat)
        h.scores[p] = r["score"]
        h.cats[p] = cat
        if h.best_shown < 0 or key > h.shown[h.best_shown][0]:
            h.best_shown = p
        if len(h.shown) + len(h.mucked) == h.k_showdown:
            self.settle()

    def settle(self) -> None:
        """Compute hedge payouts and pots the referee's way; later events are compared."""
        h = self.h
        best = max(k for k, _ in h.shown.values())
        win_cats = {h.cats[p] for p, (k, _) in h.shown.items() if k == best}
        live = self.live()
        levels = sorted({h.committed[p] for p in live})
        pots = []  # [chips, seats that may win them, when the pot formed]
        prev = 0
        for j, lv in enumerate(levels):
            amt = sum(min(max(c - prev, 0), lv - prev) for c in h.committed)
            if j == len(levels) - 1:
                amt += sum(max(c - lv, 0) for c in h.committed)
            if j == 0:  # the main pot: the dead money paid before any all-in (R1)
                amt += h.dead - sum(a for a, _, _ in h.dead_pots)
            elig = {p for p in h.shown if h.committed[p] >= lv}
            # a layer above an all-in formed when the first player went all-in at its floor
            formed = -1 if j == 0 else min((h.allin_tick[p] for p in live
                                            if h.allin[p] and h.committed[p] == prev),
                                           default=1 << 40)
            pots.append([amt, elig, formed])
            prev = lv
        for j in range(len(pots) - 1, 0, -1):
            if not pots[j][1]:
                pots[j - 1][0] += pots[j][0]
                pots[j][0] = 0
        for amt, seats, formed in h.dead_pots:  # R1: dead money paid after an all-in
            if seats & h.shown.keys():
                pots.append([amt, seats & h.shown.keys(), formed])
            else:  # nobody who may win it shows down: it joins the main pot
                pots[0][0] += amt
        pots.sort(key=lambda pot: pot[2])  # the order they formed, the main pot first
        self.expect(sum(a for a, _, _ in pots) == self.pot_total(), "pots add up to the pot")
        hedge_due = []
        for p in h.order:
            if self.hedge[p] in win_cats:
                due = self.s.hedge_payout * h.hedge_mult * h.seats[p].hedge_fund
                paid = due
                if self.s.hedge_from == "pot":
                    paid = 0
                    for pot in pots:
                        take = min(due - paid, pot[0])
                        pot[0] -= take
                        paid += take
                hedge_due.append((p, paid, due))
        h.hedge_due = hedge_due
        awards = []
        for j, (amt, elig, _) in enumerate(pots):
            if not elig or amt == 0:
                continue
            top = max(h.shown[p][0] for p in elig)
            winners = [p for p in h.order if p in elig and h.shown[p][0] == top]
            share, odd = divmod(amt, len(winners))
            awards.append((j, amt, set(elig), winners,
                           [share + (1 if i < odd else 0) for i in range(len(winners))]))
        h.awards_due = awards
        h.phase = "payout"
        # draft order: best first, equal hands in seat order left of the dealer
        shown_order = [p for p in h.order if p in h.shown]
        ranked = []
        for p in shown_order:
            i = 0
            while i < len(ranked) and h.shown[ranked[i]][0] >= h.shown[p][0]:
                i += 1
            ranked.insert(i, p)
        h.pickers = ranked
        h.drafting = True

    def hedge_pay(self, r: dict) -> None:
        h = self.h
        self.expect(h.phase == "payout" and h.hedge_due, "hedges pay at showdown only")
        p, paid, due = h.hedge_due.pop(0)
        self.expect(r["seat"] == p and r["paid"] == paid and r["due"] == due,
                    f"hedge payout to {r['seat']} of {r['paid']}/{r['due']}, "
                    f"rules say seat {p} gets {paid}/{due}")
        self.chips[p] += paid
        if self.s.hedge_from == "bank":
            self.bank_in += paid

    def pot(self, r: dict) -> None:
        h = self.h
        self.expect(h.phase == "payout" and not h.hedge_due, "pots after every hedge payout")
        self.expect(h.awards_due, "no more pots to award")
        j, amt, elig, winners, shares = h.awards_due[0]
        self.expect(r["index"] == j and r["amount"] == amt, f"pot {r['index']} of {r['amount']},"
                    f" rules say pot {j} of {amt}")
        self.expect(set(r["eligible"]) == elig and r["winners"] == sorted(winners),
                    "side pot eligibility and winners")
        self.award_queue = list(zip(winners, shares, strict=True))
        h.awards_due.pop(0)

    def award(self, r: dict) -> None:
        p, share = self.award_queue.pop(0)
        self.expect(r["seat"] == p and r["chips"] == share,
                    f"award {r['chips']} to {r['seat']}, rules say {share} to {p} (odd chips "
                    f"first left of the dealer)")
        self.chips[p] += share

    def fold_win(self, r: dict) -> None:
        h = self.h
        self.round_over()
        live = self.live()
        self.expect(len(live) == 1 and live[0] == r["seat"], "the last player takes the pot")
        self.expect(r["chips"] == self.pot_total(), "the whole pot")
        self.chips[r["seat"]] += r["chips"]
        h.phase = "payout"
        h.k_showdown = 1
        h.pickers = [r["seat"]] if self.s.draft_without_showdown else []
        h.drafting = self.s.draft_without_showdown

    # -- Disruptors -----------------------------------------------------------------------
    def reveal(self, r: dict) -> None:
        h = self.h
        self.expect(h.drafting and not h.awards_due and not h.hedge_due,
                    "Disruptors are revealed after the pot, after a showdown")
        cards = [self.ids(c) for c in r["cards"]]
        want = min(h.k_showdown + 1, self.d_deck.total() + self.d_discard.total())
        self.expect(len(cards) == want, f"{len(cards)} revealed, rules say {want}")
        deck = self.d_deck
        if self.d_reshuffle is not None:
            # the reshuffle came when the deck ran out: the cards revealed before it
            # are the whole old deck, the rest come from the reshuffled discard pile
            old, pile = self.d_reshuffle
            self.d_reshuffle = None
            k = old.total()
            self.expect(len(cards) > k, f"the Disruptor discard pile was reshuffled while the "
                        f"deck still held {k} cards for {len(cards)} reveals")
            self.expect(Counter(cards[:k]) == old, "the revealed cards before the reshuffle are "
                        "the rest of the deck")
            cards_after = Counter(cards[k:])
            self.d_discard = Counter()
            deck = pile
        else:
            self.expect(len(cards) <= deck.total(), f"{len(cards)} revealed from a Disruptor deck "
                        f"of {deck.total()} without reshuffling its discard pile")
            cards_after = Counter(cards)
        self.expect(not cards_after - deck, "a revealed card comes from the Disruptor deck")
        self.d_deck = deck - cards_after
        h.reveal = cards
        h.taken = [False] * len(cards)
        h.n_picks = 0

    def pick(self, r: dict) -> None:
        h = self.h
        self.expect(h.n_picks < len(h.pickers), "more picks than drafters")
        p = h.pickers[h.n_picks]
        self.expect(r["seat"] == p, f"seat {r['seat']} picked, seat {p} was next")
        i = r["index"]
        self.expect(0 <= i < len(h.reveal) and not h.taken[i]
                    and h.reveal[i] == self.ids(r["card"]), "a pick takes a revealed card")
        h.taken[i] = True
        h.n_picks += 1
        self.picking = (p, h.reveal[i])
        self.last_purged = None

    def effect(self, r: dict) -> None:
        p, card = self.picking
        name = r["card"]
        self.expect(self.ids(name) == card and r["seat"] == p, "the effect is the picked card's")
        kind = self.kind[card]
        a, b = r["a"], r["b"]
        amt = self.amount[card]
        s = self.s
        if kind == "instant":
            if name == "market_crash":
                self.dart = max(self.dart - amt, s.dart_start)
                self.expect(a == self.dart, "market_crash")
            elif name == "bull_run":
                self.dart = min(self.dart + amt, s.dart_cap)
                self.expect(a == self.dart, "bull_run")
            elif name in ("insider_tip", "short_sell"):
                step = -1 if name == "insider_tip" else 1
                for _ in range(amt):  # amount positions (R8), no further than the end
                    pos = self.column.index(a)
                    if 0 <= pos + step < 13:
                        j = pos + step
                        self.column[pos], self.column[j] = self.column[j], self.column[pos]
            elif name == "windfall":
                self.expect(a == amt, "windfall")
                self.chips[p] += amt
                self.bank_in += amt
            elif name == "levy":
                got = 0
                for q in range(self.n):
                    if q != p and self.alive[q]:
                        pay = min(amt, self.chips[q])
                        self.chips[q] -= pay
                        got += pay
                self.expect(a == got, f"levy collected {a}, rules say {got}")
                self.chips[p] += got
            elif name == "restore_order":
                self.column = list(range(13))
            elif name == "swap_any":
                self.expect(a != b, "swap_any swaps two categories")
                i, j = self.column.index(a), self.column.index(b)
                self.column[i], self.column[j] = self.column[j], self.column[i]
            elif name == "purge":
                if a == -1:
                    in_play = sum(len(x) for x in self.personal) + len(self.community)
                    self.expect(in_play == 0 and self.last_purged is None,
                                "purge discards a card whenever one is in play")
                else:
                    self.expect(self.last_purged == (a, b), "purge names the card it discarded")
            self.expect(r["dart"] == self.dart, "dart after the effect")
            self.pending_instant = card
        elif kind == "personal":
            if len(self.personal[p]) >= 2:
                self.fail("a third Personal card without discarding one")
            if name == "elevator":
                self.expect(0 <= a < 13, "the Elevator names a category")
            self.personal[p].append((card, a))
            self.expect(self.slots[p][b] is None, "a Personal card goes to a free slot")
            self.slots[p][b] = (card, self.hand_no)
        else:
            self.expect(len(self.community) < 2, "a third Community card without discarding one")
            self.community.append(card)

    def d_discard_ev(self, r: dict) -> None:
        h = self.h
        card = self.ids(r["card"])
        why = r["why"]
        seat = r["seat"]
        if why == "instant":
            self.expect(getattr(self, "pending_instant", None) == card, "an instant is discarded")
            self.pending_instant = None
        elif why == "leftover":
            idx = [i for i, c in enumerate(h.reveal) if c == card and not h.taken[i]]
            self.expect(h.n_picks == min(len(h.pickers), len(h.reveal)) and idx,
                        "only cards nobody picked are left over; picking is mandatory")
            h.taken[idx[0]] = True
        elif why == "personal_room":
            held = [i for i, ca in enumerate(self.personal[seat]) if ca == (card, r["named"])]
            self.expect(len(self.personal[seat]) == 2 and held,
                        "a Personal card is discarded only to make room for a third")
            self.personal[seat].pop(held[0])
        elif why == "community_room":
            self.expect(len(self.community) == 2 and card in self.community,
                        "a Community card is discarded only to make room for a third")
            self.community.remove(card)
        elif why == "purged":
            owner = seat
            self.expect(self.picking[1] == self.ids("purge") and self.last_purged is None,
                        "only purge discards a card from play, one")
            self.last_purged = (card, owner)
            if owner < 0:
                self.expect(card in self.community, "purged community card in play")
                self.community.remove(card)
            else:
                held = [i for i, ca in enumerate(self.personal[owner]) if ca == (card, r["named"])]
                self.expect(bool(held), "purged personal card in play")
                self.personal[owner].pop(held[0])
        elif why == "eliminated":
            held = [i for i, ca in enumerate(self.personal[seat]) if ca == (card, r["named"])]
            self.expect(bool(held), "an eliminated player's card")
            self.expect(self.chips[seat] == 0 and not self.saving_slots(seat),
                        "a player with a safety_net drafted before this hand is not eliminated")
            self.personal[seat].pop(held[0])
        elif why == "safety_net":
            pass  # removed in safety()
        if seat >= 0 and self.kind[card] == "personal" and why != "instant":
            slot = r["slot"]
            self.expect(self.slots[seat][slot] is not None and self.slots[seat][slot][0] == card,
                        f"the discarded {r['card']} was in slot {slot}")
            self.slots[seat][slot] = None
        self.d_discard[card] += 1

    # -- end of hand and match ----------------------------------------------------------------
    def saving_slots(self, p: int) -> list[int]:
        """Slots holding a safety_net drafted before this hand (R2: only those save)."""
        net = self.ids("safety_net")
        return [k for k, held in enumerate(self.slots[p])
                if held is not None and held[0] == net and held[1] < self.hand_no]

    def safety(self, r: dict) -> None:
        p = r["seat"]
        self.expect(self.chips[p] == 0, "the safety net catches a player with 0 chips")
        saving = self.saving_slots(p)
        self.expect(bool(saving) and r["slot"] == saving[0],
                    "only a safety_net drafted before this hand saves (SPEC R2), the first one")
        held = [i for i, (c, _) in enumerate(self.personal[p])
                if T.DISRUPTOR_IDS[c] == "safety_net"]
        self.expect(bool(held), "a safety net only for its holder")
        self.personal[p].pop(held[0])
        amt = self.amount[self.ids("safety_net")]
        self.expect(r["chips"] == amt, "safety_net chips")
        self.chips[p] += amt
        self.bank_in += amt

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

    # -- dispatch ----------------------------------------------------------------------------
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
            "award": self.award, "fold_win": self.fold_win, "reveal": self.reveal,
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
    """Replay the records of logged matches (dicts of :func:`nop_sim.events.to_records`).

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
    """Replay every logged match of a :class:`~nop_sim.engine.MatchResults`."""
    from nop_sim.events import to_records

    if results.events_lost:
        raise RuleViolation(f"{results.events_lost} events were dropped: raise log_capacity")
    return check_log(list(to_records(results.events)), results.settings)

