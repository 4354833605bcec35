"""The referee's Disruptors: effects in play, the draft, effects, discards and safety nets."""

from __future__ import annotations

from collections import Counter

from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.referee.scoring import _stacked
from nop_sim.games.new_order.referee.state import _Checker, _Seat


class _Draft(_Checker):
    """Disruptor cards: the deck and its discard pile, Personal and Community cards."""

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

    def community_effects(self) -> tuple[dict, int]:
        """The Community cards in play as this hand's settings (the :class:`_Hand` fields
        they set) and the wild_ranks bit they give everyone, stacked as the catalog says."""
        comm = Counter(self.community)
        fields = dict(
            inverted=comm[self.ids("inversion")] > 0,
            betting="no-limit" if comm[self.ids("no_limit")] else self.s.betting,
            third=self.effect_of(comm, "third_card", 1),  # cards at Community Card I
            frozen=comm[self.ids("frozen_market")] > 0,
            ceiling=self.effect_of(comm, "price_ceiling", 0),
            inflation=self.effect_of(comm, "inflation", 1),
            ante=self.s.ante * self.effect_of(comm, "double_ante", 1),
            hedge_mult=self.effect_of(comm, "hedge_boom", 1),
        )
        return fields, self.wild_bit("deuces_wild", comm)

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

    def reshuffle_disruptors(self, r: dict) -> None:
        """Checked with the reveal that follows (see :meth:`reveal`)."""
        h = self.h
        self.expect(h.drafting and not h.reveal and self.d_reshuffle is None,
                    "the Disruptor discard pile is reshuffled only in a reveal, once")
        self.expect(r["cards"] == self.d_discard.total() > 0,
                    f"the new Disruptor deck of {r['cards']} cards is its discard pile of "
                    f"{self.d_discard.total()}")
        self.d_reshuffle = (self.d_deck, self.d_discard)

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
        if kind == "instant":
            self.instant(r, p, card)
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

    def instant(self, r: dict, p: int, card: int) -> None:
        """An instant Disruptor's effect, drafted by seat ``p``; the card is discarded next."""
        name = r["card"]
        a, b = r["a"], r["b"]
        amt = self.amount[card]
        s = self.s
        if name == "market_crash":
            self.dart = max(self.dart - amt, s.dart_start)
            self.expect(a == self.dart, "market_crash")
        elif name == "bull_run":
            self.dart = min(self.dart + amt, s.dart_cap)
            self.expect(a == self.dart, "bull_run")
        elif name in ("insider_tip", "short_sell"):
            step = -1 if name == "insider_tip" else 1
            # R8: amount positions; R13: a move past the end stops at the end
            pos = self.column.index(a)
            j = min(max(pos + step * amt, 0), 12)
            self.column.insert(j, self.column.pop(pos))
            self.expect(b == j, f"R13: {name} moves category {a} from position {pos} by {amt} "
                        f"to {j}, logged {b}")
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
