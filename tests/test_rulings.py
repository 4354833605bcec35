"""SPEC section 8b, ruling by ruling: each test finds the situation in seeded, logged
matches and checks the chips and cards there (the referee checks every hand as well,
tests/test_referee.py)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.engine import play_matches
from nop_sim.games.new_order.history import to_records
from nop_sim.games.new_order.referee import check_results
from nop_sim.games.new_order.settings import Settings


def _logged(n=24, seed=5, agents="random", **changes):
    s = Settings().replace(**{"max_hands": 120, **changes})
    r = play_matches(s, agents, n_matches=n, seed=seed, log_every=1, log_capacity=3_000_000,
                     check=True, chunk_size=8)
    assert r.count("invariant_errors") == 0 and r.events_lost == 0
    return r


def _hands(r):
    """Records grouped by (match, hand), in order."""
    out = defaultdict(list)
    for rec in to_records(r.events):
        out[rec["match"], rec["hand"]].append(rec)
    return out


# -- R1 ------------------------------------------------------------------------------------
def test_r1_dead_money_after_an_all_in_never_reaches_the_all_in_player():
    """Fees and hedge costs paid after an all-in form a pot the all-in player cannot win:
    nobody is ever awarded more than the bets they matched plus the dead money paid
    while they could still win it. Before any all-in, all of it is in the one pot."""
    r = _logged(n=40, players=4, betting="no-limit", hedge_from="bank", seed=11)
    n = r.settings.players
    situations = 0
    dead_pots = 0
    no_allin_showdowns = 0
    for (_m, _h), recs in _hands(r).items():
        committed = [0] * n
        allin = [False] * n
        folded = [False] * n
        dead = []  # (chips, seats that may win them; None: the main pot)
        any_allin = False
        awarded = [0] * n
        showdown = False
        shown: set[int] = set()
        pots = []
        for rec in recs:
            ev, p = rec["event"], rec["seat"]
            if ev == "ante":
                committed[p] += rec["amount"]
                allin[p] = allin[p] or bool(rec["all_in"])
                any_allin = any_allin or bool(rec["all_in"])
            elif ev in ("hedge", "promote"):
                paid = rec["cost"] if ev == "hedge" else (rec["fee"] if rec["fee_to"] == "pot"
                                                          else 0)
                # the payer is not all-in yet when paying (a hedge's last chip: R5)
                active = {q for q in range(n) if not allin[q] and not folded[q]}
                dead.append((paid, active if any_allin else None))
                if any_allin and paid:
                    situations += 1
                if ev == "hedge" and rec["all_in"]:
                    allin[p] = any_allin = True
            elif ev == "action":
                committed[p] += rec["chips"]
                folded[p] = rec["action"] == "fold"
                if rec["all_in"]:
                    allin[p] = any_allin = True
            elif ev == "uncalled":  # R10: back to the bettor, who has chips again
                committed[p] -= rec["chips"]
                allin[p] = False
            elif ev == "show":
                showdown = True
                shown.add(p)
            elif ev == "pot" and any(allin[q] and q not in rec["eligible"] for q in range(n)
                                     if not folded[q]):
                dead_pots += 1
            if ev == "pot":
                pots.append(rec)
            elif ev == "award":
                awarded[p] += rec["chips"]
        if not showdown:
            continue
        if not any_allin:  # every bet in the pots, and all the dead money in the main one
            assert sum(x["amount"] for x in pots) == sum(committed) + sum(x for x, _ in dead)
            assert pots[0]["amount"] >= sum(x for x, _ in dead)
            assert set(pots[0]["eligible"]) == shown
            no_allin_showdowns += 1
            continue
        live = [q for q in range(n) if not folded[q]]
        for q in live:
            # R9: only an all-in limits the bets a seat can win (not the folded bets above
            # its level, issue 37); a dead pot none of whose seats shows down joins the main
            # pot
            cap = committed[q] if allin[q] else max(committed)
            bound = sum(min(c, cap) for c in committed) + sum(
                paid for paid, seats in dead
                if seats is None or q in seats or not seats & shown)
            assert awarded[q] <= bound, (_m, _h, q)
    assert situations >= 10 and dead_pots >= 5 and no_allin_showdowns >= 10


# -- R2 ------------------------------------------------------------------------------------
def test_r2_a_safety_net_drafted_this_hand_does_not_save():
    r = _logged(n=40, players=4, disruptors={"safety_net": 30, "windfall": 2}, seed=3)
    held: dict[tuple[int, int], list[int]] = defaultdict(list)  # (match, seat) -> hands got
    fresh_eliminations = 0
    saves = 0
    for (m, h), recs in _hands(r).items():
        picked_now = set()
        for rec in recs:
            ev, p = rec["event"], rec["seat"]
            if ev == "effect" and rec["card"] == "safety_net":
                held[m, p].append(h)
                picked_now.add(p)
            elif ev == "disruptor_discard" and rec["card"] == "safety_net" and p >= 0:
                got = held[m, p]
                if rec["why"] == "safety_net":  # used: an old one, never this hand's
                    old = [x for x in got if x < h]
                    assert old, (m, h, p)
                    got.remove(old[0])
                    saves += 1
                else:
                    got.remove(min(got) if rec["why"] != "eliminated" else got[0])
            elif ev == "eliminated":
                if p in picked_now:
                    fresh_eliminations += 1
                held[m, p].clear()
    assert saves >= 5 and fresh_eliminations >= 3


# -- R3 and R5 -------------------------------------------------------------------------------
def _walk_stacks(r, on_event):
    """Follow every seat's stack through the log and call ``on_event(rec, before, stack)``."""
    n = r.settings.players
    end: dict[int, list[int]] = {}
    for (m, h), recs in _hands(r).items():
        if h == 0:
            continue
        stack = list(end.get(m, [r.settings.starting_chips] * n))
        for rec in recs:
            ev, p = rec["event"], rec["seat"]
            before = list(stack)
            if ev == "ante":
                stack[p] -= rec["amount"]
            elif ev == "hedge":
                stack[p] -= rec["cost"]
            elif ev == "promote":
                stack[p] -= rec["fee"]
            elif ev == "action":
                stack[p] -= rec["chips"]
                assert stack[p] == rec["stack"], (m, h, rec)
            elif ev == "uncalled":
                stack[p] += rec["chips"]
            on_event(rec, before, stack)
            if ev == "hand_end":
                end[m] = list(rec["chips"])
                stack = list(rec["chips"])


def test_r3_fee_first_then_the_action_with_what_is_left():
    r = _logged(n=40, players=4, agents="manipulator", chips=30, dart_start=6, seed=8)
    last_promote: dict[int, int] = {}
    seen = {"promote": 0, "all_in_after_fee": 0}

    def check(rec, before, stack):
        ev, p = rec["event"], rec["seat"]
        if ev == "promote":
            # only when the fee is paid in full and a chip is left for the action
            assert before[p] >= rec["fee"] + 1
            last_promote[p] = stack[p]
            seen["promote"] += 1
        elif ev == "action" and p in last_promote:
            left = last_promote.pop(p)
            assert rec["action"] in ("bet", "call", "raise") and 1 <= rec["chips"] <= left
            if rec["all_in"]:
                seen["all_in_after_fee"] += 1
                assert rec["chips"] == left

    _walk_stacks(r, check)
    assert seen["promote"] >= 50 and seen["all_in_after_fee"] >= 3


def test_r5_hedging_with_exactly_the_cost_leaves_the_player_all_in():
    r = _logged(n=40, players=4, agents="hedger", chips=12, hedge_cost=4, seed=6)
    seen = {"exact": 0}
    pending: set[int] = set()

    def check(rec, before, stack):
        ev, p = rec["event"], rec["seat"]
        if ev == "hedge":
            assert before[p] >= rec["cost"]
            if stack[p] == 0:
                seen["exact"] += 1
                pending.add(p)
        elif ev == "action":
            assert p not in pending, "an all-in hedger took an action"
        elif ev == "hand_end":
            pending.clear()

    _walk_stacks(r, check)
    assert seen["exact"] >= 3


# -- R4 ------------------------------------------------------------------------------------
def test_r4_an_incomplete_all_in_raise_does_not_reopen_the_betting():
    r = _logged(n=60, players=5, agents="maniac", chips=14, max_raises=2, seed=4)
    unit = {0: r.settings.small_bet, 1: r.settings.big_bet, 2: r.settings.big_bet}
    incomplete = 0
    closed_to_caller = 0
    for (_m, _h), recs in _hands(r).items():
        rnd = -1
        level = 0
        for rec in recs:
            ev = rec["event"]
            if ev == "hand_start":
                limit = rec["betting"] == "limit"  # a no_limit card in play: R4's sizes differ
            if ev in ("hand_start", "board"):
                rnd += 1
                level = 0
                full_raises = 0
                acted_since_full: set[int] = set()
            elif ev == "action" and limit:
                p = rec["seat"]
                if rec["action"] == "raise" and p in acted_since_full:
                    pytest.fail(f"seat {p} re-raised after an incomplete raise: {rec}")
                if rec["level"] > level:
                    full = rec["level"] - level >= unit[rnd]
                    if full and level > 0:
                        full_raises += 1
                    if full:
                        acted_since_full = set()
                    else:
                        incomplete += 1
                        closed_to_caller += len(acted_since_full)
                    level = rec["level"]
                assert full_raises <= r.settings.max_raises
                acted_since_full.add(p)
    assert incomplete >= 5 and closed_to_caller >= 5


# -- R6 ------------------------------------------------------------------------------------
def test_r6_stacking_card_by_card():
    mix = {"inflation": 8, "hedge_boom": 8, "double_ante": 8, "price_ceiling": 8,
           "third_card": 8, "broker": 12}
    r = _logged(n=24, players=4, disruptors=mix, agents="random", dart_start=14,
                dart_cap=40, seed=9)
    pairs = defaultdict(int)
    in_play = _community_by_hand(r)
    for (m, h), recs in _hands(r).items():
        if h == 0:
            continue
        comm = in_play[m, h]
        start = next(x for x in recs if x["event"] == "hand_start")
        k = {c: comm.count(c) for c in mix}
        for c, v in k.items():
            if v == 2:
                pairs[c] += 1
        assert start["dart_step_mult"] == 2 ** k["inflation"]
        assert start["hedge_mult"] == 2 ** k["hedge_boom"]
        assert start["ante"] == r.settings.ante * 2 ** k["double_ante"]
        assert start["fee_ceiling"] == (10 if k["price_ceiling"] else 0)
        assert start["community_cards_i"] == (2 if k["third_card"] else 1)
    assert min(pairs[c] for c in ("inflation", "hedge_boom", "double_ante", "price_ceiling",
                                  "third_card")) >= 1


def _community_by_hand(r):
    """Community cards in play at the start of each (match, hand), from the log alone."""
    from nop_sim.games.new_order.disruptors import load_catalog

    community = {c.id for c in load_catalog().cards if c.type == "community"}
    slots: dict[int, list] = defaultdict(lambda: [None, None])
    at: dict[tuple[int, int], list] = {}
    for rec in to_records(r.events):
        m = rec["match"]
        if rec["event"] == "hand_start":
            at[m, rec["hand"]] = [c for c in slots[m] if c]
        elif rec["event"] == "effect" and rec["card"] in community:
            slots[m][rec["b"]] = rec["card"]  # b: the slot taken (a third replaces one)
        elif rec["event"] == "disruptor_discard" and rec["why"] == "purged" and rec["seat"] < 0:
            slots[m][slots[m].index(rec["card"])] = None
    return at


# -- R7 ------------------------------------------------------------------------------------
def test_r7_a_restock_during_a_draw_leaves_out_the_drawers_own_discards():
    r = _logged(n=30, players=8, max_discard=5, disruptors="none", seed=12)
    mid_draw = 0
    for (_m, _h), recs in _hands(r).items():
        pile = 0  # cards in the discard pile
        mine = None  # the drawing player's discards
        restocked = False
        for rec in recs:
            ev = rec["event"]
            if ev == "discard":
                mine = set(rec["cards"])
            elif ev == "reshuffle" and rec["pile"] == "stock" and mine is not None:
                assert rec["cards"] == pile  # the pile without this draw's discards
                pile = 0
                mid_draw += 1
                restocked = True
            elif ev == "hole" and mine is not None:
                if restocked:
                    assert not mine & set(rec["cards"])  # one deck: never a card just thrown
                restocked = False
                pile += len(mine)
                mine = None
    assert mid_draw >= 10


# -- R8 ------------------------------------------------------------------------------------
def test_r8_amounts_come_from_the_mix():
    base = {"third_card": 20, "elevator": 10, "deuces_wild": 6, "insider_tip": 6}
    changed = {"third_card": {"copies": 20, "amount": 1},
               "elevator": {"copies": 10, "amount": 2},
               "deuces_wild": {"copies": 6, "amount": 14},
               "insider_tip": {"copies": 6, "amount": 3}}
    a = _logged(n=16, disruptors=base, seed=13)
    b = _logged(n=16, disruptors=changed, seed=13)
    starts_a = [x for x in to_records(a.events) if x["event"] == "hand_start"]
    starts_b = [x for x in to_records(b.events) if x["event"] == "hand_start"]
    assert any(x["community_cards_i"] == 2 for x in starts_a)
    assert all(x["community_cards_i"] == 1 for x in starts_b)
    boards_b = [x for x in to_records(b.events) if x["event"] == "board"]
    assert max(len(x["cards"]) for x in boards_b) == 2
    assert a.match.tobytes() != b.match.tobytes()
    assert check_results(b) == 16


def test_r8_amounts_are_validated_against_the_catalog_range():
    from nop_sim.games.new_order.settings import SettingsError

    with pytest.raises(SettingsError, match=r"third_card.*allowed 1\.\.2"):
        Settings(disruptors={"third_card": {"copies": 3, "amount": 3}})
    with pytest.raises(SettingsError, match="unknown field 'amout'"):
        Settings(disruptors={"elevator": {"copies": 3, "amout": 1}})
    s = Settings(disruptors={"elevator": {"copies": 3, "amount": 2}, "levy": 2})
    assert s.disruptor_mix == {"elevator": {"copies": 3, "amount": 2}, "levy": 2}
    arr = s.to_arrays()[1]
    assert arr.amount[T.DISRUPTOR_IDS.index("elevator")] == 2
    assert len(arr.deck) == 5
    assert hash(s) == hash(Settings(disruptors={"levy": 2,
                                                "elevator": {"amount": 2, "copies": 3}}))


def test_r8_an_elevator_of_two_positions_beats_the_category_two_above():
    from nop_sim.kernels.evaluate import reading_lift, score_row

    colpos = np.arange(13, dtype=np.int8)
    pair = np.array([[0, 1, 20, 30, 44]], np.int8)         # 2c 2d 7h Th Ac: One Pair
    two_pair = np.array([[0, 1, 20, 21, 44]], np.int8)     # 2c 2d 7h 7d Ac: Two Pair
    trips = np.array([[0, 1, 2, 21, 44]], np.int8)         # 2c 2d 2h 7d Ac: Three of a Kind
    quads = np.array([[0, 1, 2, 3, 44]], np.int8)
    nat = reading_lift(colpos, False, 0, 1)
    one = reading_lift(colpos, False, 1 << 11, 1)
    two = reading_lift(colpos, False, 1 << 11, 2)

    def score(cards, rd):
        return score_row(cards, 0, 0, rd[0], rd[1], rd[2])

    assert score(pair, one) > score(two_pair, nat) and score(pair, one) < score(trips, nat)
    assert score(pair, two) > score(trips, nat) and score(pair, two) < score(quads, nat)


# -- the referee holds the engine to the rulings -------------------------------------------
def _violates(r, edit) -> str:
    """The referee's message on the log of ``r`` after ``edit(records)``."""
    from nop_sim.games.new_order.referee import RuleViolation, check_log

    records = list(to_records(r.events))
    edit(records)
    with pytest.raises(RuleViolation) as err:
        check_log(records, r.settings)
    return str(err.value)


def test_referee_refuses_dead_money_given_to_the_all_in_player():
    r = _logged(n=40, players=4, betting="no-limit", hedge_from="bank", seed=11)
    recs = list(to_records(r.events))
    # a dead-money pot: its seats leave out an all-in player who showed down
    i = next(i for i, x in enumerate(recs) if x["event"] == "pot" and x["index"] > 0
             and len(x["eligible"]) == 1)

    def merge_into_main(records):
        main = next(j for j in range(i, 0, -1) if records[j]["event"] == "pot"
                    and records[j]["index"] == 0)
        records[main]["amount"] += records[i]["amount"]

    assert "rules say pot 0 of" in _violates(r, merge_into_main)


def test_referee_refuses_a_restock_that_takes_back_the_drawers_discards():
    r = _logged(n=30, players=8, max_discard=5, disruptors="none", seed=12)
    recs = list(to_records(r.events))
    i = next(i for i, x in enumerate(recs) if x["event"] == "reshuffle"
             and x["pile"] == "stock" and recs[i - 1]["event"] == "discard")

    def with_own_discards(records):
        records[i]["cards"] += records[i - 1]["n"]

    assert "is the discard pile of" in _violates(r, with_own_discards)


# -- R9 ------------------------------------------------------------------------------------
def _seat_states(recs, n):
    """Per record: (committed, all-in, folded) of every seat just after it, from the log."""
    committed, allin, folded = [0] * n, [False] * n, [False] * n
    for rec in recs:
        ev, p = rec["event"], rec["seat"]
        if ev == "ante":
            committed[p] += rec["amount"]
            allin[p] = bool(rec["all_in"])
        elif ev == "hedge":
            allin[p] = allin[p] or bool(rec["all_in"])
        elif ev == "action":
            committed[p] += rec["chips"]
            folded[p] = rec["action"] == "fold"
            allin[p] = allin[p] or bool(rec["all_in"])
        elif ev == "uncalled":
            committed[p] -= rec["chips"]
            allin[p] = False
        yield rec, committed, allin, folded


def test_r9_only_an_all_in_limits_what_a_seat_can_win():
    """A seat neither folded nor all-in may win every pot whatever it paid: with
    ante_exempt in play, a seat that paid no ante wins the others' antes too."""
    r = _logged(n=40, players=4, disruptors={"ante_exempt": 30, "windfall": 5}, seed=3)
    n = r.settings.players
    short = short_wins = no_allin = 0
    for (_m, _h), recs in _hands(r).items():
        shown: set[int] = set()
        pots = []
        for rec, committed, allin, folded in _seat_states(recs, n):
            if rec["event"] == "show":
                shown.add(rec["seat"])
            elif rec["event"] == "pot":
                pots.append(rec)
                live = [q for q in range(n) if not folded[q]]
                top = max(committed[q] for q in live)
                for q in shown:
                    if not allin[q]:  # contests every pot
                        assert q in rec["eligible"], rec
                        if committed[q] < top:
                            short += 1
                            short_wins += q in rec["winners"]
                if not any(allin[q] for q in live):
                    no_allin += 1
                    # nobody all-in: one pot of every bet, whatever each paid
                    assert rec["index"] == 0 and len(pots) == 1, rec
    assert short >= 50 and short_wins >= 10 and no_allin >= 100


def test_referee_refuses_a_pot_closed_to_a_seat_that_is_not_all_in():
    r = _logged(n=40, players=4, disruptors={"ante_exempt": 30, "windfall": 5}, seed=3)
    recs = list(to_records(r.events))
    n = r.settings.players
    target = None
    for (_m, _h), hand in _hands(r).items():
        for rec, committed, allin, folded in _seat_states(hand, n):
            live = [q for q in range(n) if not folded[q]]
            if rec["event"] == "pot" and target is None:
                top = max(committed[q] for q in live)
                losers = [q for q in rec["eligible"] if q not in rec["winners"]
                          and not allin[q] and committed[q] < top]
                if losers:
                    target = (recs.index(rec), losers[0])
    assert target is not None
    i, seat = target

    def shut_out(records):  # the engine's old layering: a pot only up to what it paid
        records[i]["eligible"] = [q for q in records[i]["eligible"] if q != seat]

    assert "side pot eligibility" in _violates(r, shut_out)


def _issue_37_hand():
    """Issue 37's hand (match 9, hand 12): seat 0 paid no ante (ante_exempt) and is not
    all-in, seat 1 is all-in for 2, seat 2 folded with 3 in, 6 in hedges before the all-in."""
    s = Settings(chips=20, hedge_cost=2, hedge_payout=6)
    r = play_matches(s, ["hedger", "hedger", "balanced", "random"], n_matches=60, seed=3,
                     log_every=1, threads=1, chunk_size=8)
    return r, _hands(r)[9, 12]


def test_r9_the_folded_chip_above_an_all_in_is_contested_by_the_seat_not_all_in_only():
    """Committed [2, 2, 3, 0] after the uncalled 2 went back: seat 1's all-in cuts a layer
    at 2, and seat 2's folded third chip lies above it, where only seat 0 (neither folded
    nor all-in, R9) may win it. The hedges (12) drain the main pot (6 + 6 hedge costs)
    first (R1), so that chip is what is left: pot 1, eligible [0]."""
    r, recs = _issue_37_hand()
    n = r.settings.players
    for rec, committed, allin, folded in _seat_states(recs, n):
        if rec["event"] == "show":
            assert committed == [2, 2, 3, 0] and allin[1] and not allin[0] and folded[2]
    assert [x["paid"] for x in recs if x["event"] == "hedge_pay"] == [6, 6]
    pots = [(x["index"], x["amount"], x["eligible"], x["winners"]) for x in recs
            if x["event"] == "pot"]
    assert pots == [(1, 1, [0], [0])]
    assert check_results(r) == 60


def test_referee_refuses_the_folded_chip_above_an_all_in_given_to_it():
    r, recs = _issue_37_hand()
    records = list(to_records(r.events))
    i = records.index(next(x for x in recs if x["event"] == "pot"))

    def old_layers(records):  # the engine's old top layer: the highest live commitment
        records[i]["index"], records[i]["eligible"] = 0, [0, 1]

    assert "rules say pot 1 of 1" in _violates(r, old_layers)


def test_r9_an_all_in_seat_is_eligible_only_for_chips_it_could_win():
    """Every pot that names an all-in seat eligible holds only what that seat could win:
    from each seat at most what it committed itself, and the dead money paid before any
    all-in or while it could still win it (R1). Hedges come from the bank, so the logged
    pots are whole. Hands where a folded seat committed more than every live seat and a
    live seat is all-in at the top live level (issue 37's shape) must be among them."""
    # a big ante and many ante_exempt seats make issue 37's shape common (22 in 200 matches)
    r = _logged(n=200, players=4, chips=20, ante=3, hedge_from="bank",
                disruptors={"ante_exempt": 30, "windfall": 5}, seed=3)
    n = r.settings.players
    checked = folded_above = 0
    for (_m, _h), recs in _hands(r).items():
        dead = []  # (chips, seats that may win them; None: the main pot)
        any_allin = False
        shown: set[int] = set()
        # committed, allin, folded: after the loop, the state after the hand's last record
        for rec, committed, allin, folded in _seat_states(recs, n):  # noqa: B007
            ev = rec["event"]
            if ev in ("hedge", "promote"):
                paid = rec["cost"] if ev == "hedge" else (rec["fee"] if rec["fee_to"] == "pot"
                                                          else 0)
                # the payer is not all-in yet when paying (a hedge's last chip: R5); the
                # state after the record marks it, so leave it in
                active = {q for q in range(n) if not folded[q]
                          and (not allin[q] or q == rec["seat"])}
                dead.append((paid, active if any_allin else None))
            any_allin = any_allin or any(allin)
            if ev == "show":
                shown.add(rec["seat"])
        pots = [x for x in recs if x["event"] == "pot"]
        if not pots:
            continue
        live = [q for q in range(n) if not folded[q]]
        top_live = max(committed[q] for q in live)
        if (max(committed) > top_live and any(not allin[q] for q in live)
                and any(allin[q] and committed[q] == top_live for q in live)):
            folded_above += 1
        for q in shown:
            if not allin[q]:
                continue
            bound = sum(min(c, committed[q]) for c in committed) + sum(
                paid for paid, seats in dead
                if seats is None or q in seats or not seats & shown)
            held = sum(x["amount"] for x in pots if q in x["eligible"])
            assert held <= bound, (_m, _h, q, committed, pots)
            checked += 1
    assert checked >= 100 and folded_above >= 10, (checked, folded_above)


# -- R10 -----------------------------------------------------------------------------------
def test_r10_uncalled_chips_go_back_before_hedges_and_awards():
    """At every round's end the highest bet is matched by another seat's; the unmatched
    part went back to its bettor first, so no hedge payout or pot ever holds it."""
    r = _logged(n=40, players=4, seed=3)
    n = r.settings.players
    returned = at_showdown = 0
    for (_m, _h), recs in _hands(r).items():
        round_bet = [0] * n
        dead = 0
        paid_out = 0
        in_round = False
        for rec, committed, _allin, _folded in _seat_states(recs, n):
            ev, p = rec["event"], rec["seat"]
            if ev in ("hedge", "promote"):
                dead += rec["cost"] if ev == "hedge" else (
                    rec["fee"] if rec["fee_to"] == "pot" else 0)
            if ev == "action":
                round_bet[p] += rec["chips"]
                in_round = True
            elif ev == "uncalled":
                ranked = sorted(round_bet, reverse=True)
                assert round_bet[p] == ranked[0] > ranked[1], rec
                assert rec["chips"] == ranked[0] - ranked[1], rec
                round_bet[p] -= rec["chips"]
                returned += 1
                at_showdown += any(x["event"] == "show" for x in recs)
            elif ev in ("discard", "board", "show", "fold_win") and in_round:
                ranked = sorted(round_bet, reverse=True)
                assert ranked[0] == ranked[1], ("unmatched chips left in the pot", rec)
                round_bet = [0] * n
                in_round = False
            if ev in ("fold_win", "show") and not paid_out:  # the betting is over
                pot = sum(committed) + dead
            if ev in ("award", "fold_win") or (ev == "hedge_pay" and rec["from"] == "pot"):
                paid_out += rec["paid"] if ev == "hedge_pay" else rec["chips"]
            if ev == "hand_end" and paid_out:
                assert paid_out == pot, recs  # hedges and awards share what was matched
    assert returned >= 200 and at_showdown >= 20


def test_referee_refuses_uncalled_chips_left_in_the_pot():
    r = _logged(n=40, players=4, seed=3)
    recs = list(to_records(r.events))
    i = next(i for i, x in enumerate(recs) if x["event"] == "uncalled"
             and recs[i + 1]["event"] in ("board", "show"))

    def keep_them_in(records):
        del records[i]

    assert "R10" in _violates(r, keep_them_in)


# -- R11 -----------------------------------------------------------------------------------
def test_r11_muckers_count_in_k():
    r = _logged(n=40, players=4, agents="balanced", seed=3)
    counted = 0
    for (_m, _h), recs in _hands(r).items():
        k = sum(x["event"] in ("show", "muck") for x in recs)
        mucks = sum(x["event"] == "muck" for x in recs)
        reveal = [x for x in recs if x["event"] == "reveal"]
        if mucks and reveal:
            assert len(reveal[0]["cards"]) == k + 1  # the deck never runs dry here
            assert not any(x["event"] == "pick" and x["seat"] in
                           {y["seat"] for y in recs if y["event"] == "muck"} for x in recs)
            counted += 1
    assert counted >= 50


def test_referee_refuses_a_draft_that_leaves_muckers_out_of_k():
    r = _logged(n=40, players=4, agents="balanced", seed=3)
    recs = list(to_records(r.events))
    i = next(i for i, x in enumerate(recs) if x["event"] == "reveal"
             and any(y["event"] == "muck" and y["hand"] == x["hand"] and y["match"] == x["match"]
                     for y in recs[i - 30:i]))

    def k_without_muckers(records):
        records[i]["cards"] = records[i]["cards"][:-1]

    assert "revealed, rules say" in _violates(r, k_without_muckers)


# -- R12 -----------------------------------------------------------------------------------
def _lone_rounds(r):
    """(index in the log, seat): a round's start (a board) where exactly one seat is
    neither folded nor all-in and another is still live (all-in)."""
    n = r.settings.players
    recs = list(to_records(r.events))
    out = []
    start = 0
    for (_m, _h), hand in _hands(r).items():
        for j, (rec, _c, allin, folded) in enumerate(_seat_states(hand, n)):
            if rec["event"] == "board":
                in_hand = {x["seat"] for x in hand if x["event"] == "ante"}
                able = [q for q in in_hand if not folded[q] and not allin[q]]
                live = [q for q in in_hand if not folded[q]]
                if len(able) == 1 and len(live) > 1:
                    out.append((start + j, able[0]))
        start += len(hand)
    assert [recs[i]["event"] for i, _ in out] == ["board"] * len(out)
    return recs, out


def test_r12_a_lone_seat_with_nothing_to_call_gets_no_turn():
    r = _logged(n=60, players=4, betting="no-limit", agents="maniac", chips=20, seed=3)
    recs, lone = _lone_rounds(r)
    for i, _seat in lone:
        j = i + 1
        while recs[j]["event"] not in ("board", "show", "hand_end"):
            assert recs[j]["event"] not in ("action", "hedge", "promote"), recs[j]
            j += 1
    assert len(lone) >= 20


def test_referee_refuses_a_turn_for_a_lone_seat():
    r = _logged(n=60, players=4, betting="no-limit", agents="maniac", chips=20, seed=3)
    recs, lone = _lone_rounds(r)
    i, seat = lone[0]
    hand = [x for x in recs[:i] if x["match"] == recs[i]["match"] and x["hand"] == recs[i]["hand"]]
    stack = next(x["stack"] for x in reversed(hand) if x["event"] == "action" and x["seat"] == seat)

    def give_a_turn(records):
        records.insert(i + 1, {**records[i], "event": "action", "seat": seat, "action": "check",
                               "chips": 0, "round_bet": 0, "level": 0, "all_in": 0,
                               "stack": stack})

    assert "acted out of turn" in _violates(r, give_a_turn)


# -- R13 -----------------------------------------------------------------------------------
_FAR = {"insider_tip": {"copies": 20, "amount": 5}, "short_sell": {"copies": 20, "amount": 5}}


def test_r13_moves_stop_at_the_ends_of_the_column():
    """An independent replay of the column: promotions, swaps and restores as logged,
    insider_tip and short_sell by 5 places clamped to the column's ends."""
    from nop_sim.core.column import parse_category

    r = _logged(n=30, players=4, disruptors=_FAR, seed=13)
    column: dict[int, list[int]] = {}
    clamped = moved = 0
    for rec in to_records(r.events):
        m, ev = rec["match"], rec["event"]
        if ev == "match_start":
            column[m] = list(range(13))
        elif ev == "promote":
            col, c = column[m], int(parse_category(rec["category"]))
            i = col.index(c)
            col[i - 1], col[i] = col[i], col[i - 1]
        elif ev == "effect" and rec["card"] in _FAR:
            col, c = column[m], rec["a"]
            i = col.index(c)
            want = i - 5 if rec["card"] == "insider_tip" else i + 5
            j = min(max(want, 0), 12)
            col.insert(j, col.pop(i))
            assert rec["b"] == j, rec
            moved += 1
            clamped += want != j
    assert moved >= 50 and clamped >= 10


def test_referee_refuses_a_move_past_the_end_of_the_column():
    r = _logged(n=30, players=4, disruptors=_FAR, seed=13)
    recs = list(to_records(r.events))
    i = next(i for i, x in enumerate(recs) if x["event"] == "effect"
             and x["card"] == "insider_tip" and x["b"] == 0)

    def past_the_top(records):
        records[i]["b"] = 1

    assert "R13" in _violates(r, past_the_top)
