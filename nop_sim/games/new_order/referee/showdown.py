"""The referee's showdown: scores, side and dead-money pots, hedge payouts, awards."""

from __future__ import annotations

from nop_sim.games.new_order.referee.scoring import score_hand
from nop_sim.games.new_order.referee.state import _Checker


class _Showdown(_Checker):
    """Shown and mucked hands, the pots the referee computes, and their payouts."""

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
        pots = self.side_pots()
        self.expect(sum(a for a, _, _ in pots) == self.pot_total(), "pots add up to the pot")
        h.hedge_due = self.hedges_due(pots, win_cats)
        h.awards_due = self.awards(pots)
        h.phase = "payout"
        h.pickers = self.draft_order()
        h.drafting = True

    def side_pots(self, among=None) -> list[list]:
        """The pots as [chips, seats that may win them, when the pot formed], in the order
        they formed, the main pot first; dead-money pots (R1) included. ``among``: the
        seats that may still win (default: those that showed down; the table passes the
        live seats to show the pots as they stand during the betting)."""
        h = self.h
        live = self.live()
        contest = h.shown.keys() if among is None else set(among)
        # R9: layers are cut at all-in commitments only; the rest contest every pot. The top
        # is the highest commitment of anyone, folded or not: the folded chips above a live
        # all-in's level are a layer it cannot win, even where no live seat committed more
        top = max(h.committed)
        levels = sorted({h.committed[p] for p in live if h.allin[p] and h.committed[p] < top})
        levels.append(top)
        pots = []  # [chips, seats that may win them, when the pot formed]
        prev = 0
        for j, lv in enumerate(levels):
            amt = sum(min(max(c - prev, 0), lv - prev) for c in h.committed)
            if j == 0:  # the main pot: the dead money paid before any all-in (R1)
                amt += h.dead - sum(a for a, _, _ in h.dead_pots)
            elig = {p for p in contest if not h.allin[p] or h.committed[p] >= lv}
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
            if seats & contest:
                pots.append([amt, seats & contest, formed])
            else:  # nobody who may win it shows down: it joins the main pot
                pots[0][0] += amt
        pots.sort(key=lambda pot: pot[2])  # the order they formed, the main pot first
        return pots

    def hedges_due(self, pots: list[list], win_cats: set[int]) -> list[tuple[int, int, int]]:
        """(seat, paid, due) per winning hedge in seat order; from the pots if hedge_from
        is "pot" (taken out of ``pots``, partial when they run dry), else from the bank."""
        h = self.h
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
        return hedge_due

    def awards(self, pots: list[list]) -> list[tuple]:
        """(pot index, chips, eligible, winners, shares) per pot with chips and a claimant;
        odd chips first left of the dealer."""
        h = self.h
        awards = []
        for j, (amt, elig, _) in enumerate(pots):
            if not elig or amt == 0:
                continue
            top = max(h.shown[p][0] for p in elig)
            winners = [p for p in h.order if p in elig and h.shown[p][0] == top]
            share, odd = divmod(amt, len(winners))
            awards.append((j, amt, set(elig), winners,
                           [share + (1 if i < odd else 0) for i in range(len(winners))]))
        return awards

    def draft_order(self) -> list[int]:
        """Draft order: best first, equal hands in seat order left of the dealer."""
        h = self.h
        shown_order = [p for p in h.order if p in h.shown]
        ranked = []
        for p in shown_order:
            i = 0
            while i < len(ranked) and h.shown[ranked[i]][0] >= h.shown[p][0]:
                i += 1
            ranked.insert(i, p)
        return ranked

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

