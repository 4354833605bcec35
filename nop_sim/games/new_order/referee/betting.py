"""The referee's betting: antes, turn order, actions, hedges, promotions and dead money."""

from __future__ import annotations

from nop_sim.core.column import parse_category
from nop_sim.games.new_order.referee.state import _Checker


class _Betting(_Checker):
    """Antes and betting rounds: who acts, what they may do, and where the chips go."""

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
        h = self.h
        self.expect(h.phase != "bet" or h.turn_seat == -1,
                    f"betting round closed while seat {h.turn_seat} still had to act")
        if h.phase == "bet":
            p, back = self.uncalled_excess()
            self.expect(back == 0, f"R10: {back} chips of seat {p}'s bet nobody matched stayed "
                        f"in the pot")

    def uncalled_excess(self) -> tuple[int, int]:
        """R10: (seat, chips) of the part of this round's highest bet that no other seat
        matched; (-1, 0) when the highest bet was matched."""
        h = self.h
        bets = sorted(((h.round_bet[p], p) for p in range(self.n) if h.in_hand[p]),
                      reverse=True)
        if not bets or (len(bets) > 1 and bets[0][0] == bets[1][0]):
            return -1, 0
        second = bets[1][0] if len(bets) > 1 else 0
        return bets[0][1], bets[0][0] - second

    def uncalled(self, r: dict) -> None:
        """R10: when a betting round ends, the part of its highest bet nobody matched goes
        back to its bettor, who is then no longer all-in."""
        h = self.h
        self.expect(h.phase == "bet" and h.turn_seat == -1,
                    "uncalled chips go back when the betting round has ended")
        p, back = self.uncalled_excess()
        self.expect(back > 0 and r["seat"] == p and r["chips"] == back,
                    f"{r['chips']} uncalled chips back to seat {r['seat']}, rules say "
                    f"{back} to seat {p}")
        self.chips[p] += back
        h.committed[p] -= back
        h.round_bet[p] -= back
        h.allin[p] = False
        h.allin_tick.pop(p, None)

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
        p = r["seat"]
        self.expect(h.phase == "bet", "actions only in a betting round")
        self.expect(h.turn_seat == p, f"seat {p} acted out of turn (seat {h.turn_seat} was next)")
        act = r["action"]
        put = r["chips"]
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
            self.wager(p, act, put, to_call, pot)
        self.expect(r["round_bet"] == h.round_bet[p] and r["level"] == h.level,
                    "round bet and level after the action")
        self.expect(bool(r["all_in"]) == h.allin[p] and r["stack"] == self.chips[p],
                    "stack after the action")
        h.acted[p] = True
        h.act_seq[p] = h.full_seq
        h.last_actor = p
        self.advance_turn()

    def wager(self, p: int, act: str, put: int, to_call: int, pot: int) -> None:
        """A call, bet or raise of ``put`` chips by seat ``p``: its legality and its chips."""
        h = self.h
        s = self.s
        chips = self.chips[p]
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
