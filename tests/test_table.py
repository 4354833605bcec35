"""A person's seat at a New Order table (issue 40): the batch kernel plays it from a script.

- the oracle: a seat whose agent's decisions are written to a script as the match is
  logged, then replayed from that script, plays the same match event for event (and the
  referee accepts it), across betting structures and Disruptor mixes;
- every legal entry is accepted as it stands, and out-of-bounds amounts are refused with
  the state unchanged;
- no state ever holds another seat's unshown card, nor the deck;
- whole matches play to their end on random legal actions.
"""

import copy
import json
import random

import numpy as np
import pytest
from reference import CARD_TEXT, known_cards

from nop_sim.core.errors import IllegalAction
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.agents import agent_table
from nop_sim.games.new_order.engine import match_states, play_scripted
from nop_sim.games.new_order.history import to_records
from nop_sim.games.new_order.referee import check_log
from nop_sim.games.new_order.settings import Settings
from nop_sim.games.new_order.table import NewOrderTable

VARIANTS = {
    "limit": dict(chips=30),
    "pot-limit": dict(chips=30, betting="pot-limit", hedge_cost=3),
    "no-limit": dict(chips=30, betting="no-limit", promotions_per_action=2),
    "disruptor-heavy": dict(chips=25, players=5, disruptors=(
        ("insider_tip", 4), ("short_sell", 4), ("swap_any", 4), ("purge", 4), ("elevator", 4),
        ("broker", 3), ("deep_draw", 3), ("no_limit", 2), ("inversion", 2), ("third_card", 2),
        ("frozen_market", 1), ("windfall", 2), ("safety_net", 2), ("hedge_fund", 3),
        ("wild_deuces", 3))),
}


def _settings(name: str) -> Settings:
    return Settings(**VARIANTS[name])


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("agent", ["random", "maniac", "balanced"])
def test_a_seat_fed_its_agents_decisions_replays_the_match(variant, agent):
    s = _settings(variant)
    table = agent_table(["balanced", agent, "maniac", "hedger", "random"][:s.players], s.players)
    for seed in range(2):
        state = match_states(seed, 1)[0]
        logged = play_scripted(s, table, state, 1, record=True)
        assert not logged.paused and len(logged.decisions) > 0
        # recording changes nothing: seat 3 recorded plays the same match
        assert np.array_equal(play_scripted(s, table, state, 3, record=True).events,
                              logged.events)
        replay = play_scripted(s, table, state, 1, logged.decisions)
        assert not replay.paused
        assert np.array_equal(replay.events, logged.events)
        assert np.array_equal(replay.player, logged.player)
        assert check_log(list(to_records(replay.events)), s) == 1
        # the same script cut anywhere pauses at the decision cut off, the log a prefix
        cut = len(logged.decisions) // 2
        part = play_scripted(s, table, state, 1, logged.decisions[:cut])
        assert part.kind == logged.decisions[cut, 0]
        assert int(part.pause[T.PAUSE_AT]) == cut
        assert np.array_equal(part.events, logged.events[:len(part.events)])


def test_the_oracle_reaches_every_kind_of_decision():
    s = Settings(**{**VARIANTS["disruptor-heavy"], "betting": "pot-limit", "chips": 60})
    table = agent_table("random", s.players)
    want = set(range(T.SK_ACTION, T.SK_PURGE + 1))
    kinds = set()
    for seed in range(40):
        kinds |= set(play_scripted(s, table, match_states(seed, 1)[0], seed % s.players,
                                   record=True).decisions[:, 0].tolist())
        if kinds >= want:
            break
    assert kinds >= want, [T.SCRIPT_KINDS[k] for k in want - kinds]


def test_a_refused_decision_stops_the_match_and_is_named():
    s = _settings("limit")
    table = agent_table("balanced", s.players)
    state = match_states(1, 1)[0]
    logged = play_scripted(s, table, state, 0, record=True)
    bad = logged.decisions.copy()
    bad[0, 0] = T.SK_PICK if bad[0, 0] != T.SK_PICK else T.SK_ACTION  # the wrong kind
    m = play_scripted(s, table, state, 0, bad)
    assert m.kind == T.SK_ERROR and int(m.pause[T.PAUSE_BAD]) == 0


def _random_action(rnd: random.Random, st: dict) -> dict:
    e = dict(rnd.choice(st["legal"]))
    if "min" in e:
        e["amount"] = rnd.randint(e["min"], e["max"])
    if e["action"] == "discard":
        e["cards"] = rnd.sample(st["hand"], rnd.randint(0, e["max_cards"]))
    return e


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_random_legal_play_reaches_the_end_and_hides_other_hands(variant):
    s = Settings(**{**VARIANTS[variant], "max_hands": 25})
    t = NewOrderTable(s, agent_table("maniac", s.players), 1, seed=3)
    rnd = random.Random(variant)
    st = t.state()
    steps = 0
    while not st["done"]:
        text = json.dumps(st)
        assert not {"deck", "stock"} & set(st)
        known = known_cards(t.records(hidden=False), t.seat)
        assert set(CARD_TEXT.findall(text)) <= known, "an unshown card in the state"
        if steps % 5 == 0:  # the table as it was after an earlier event, as the page steps
            past = t.state(step=st["events"] // 2)
            assert past["legal"] == [] and past["step"] == st["events"] // 2
            assert set(CARD_TEXT.findall(json.dumps(past))) <= known
        for q, seat in enumerate(st["seats"]):
            if q != t.seat and seat["cards"]:
                assert st["showdown"] and str(q) in {str(k) for k in st["last_showdown"]["cards"]}
        st = t.act(_random_action(rnd, st))
        steps += 1
    assert steps > 0 and st["phase"] == "over" and sorted(st["places"]) == list(range(1, s.players + 1))
    assert check_log(t.records(hidden=False), s) == 1


def test_every_legal_entry_is_accepted_and_bad_amounts_are_refused():
    s = Settings(chips=30, betting="no-limit", max_hands=12)
    t = NewOrderTable(s, agent_table("balanced", s.players), 0, seed=11)
    rnd = random.Random(0)
    seen = set()
    st = t.state()
    while not st["done"]:
        for entry in st["legal"]:
            seen.add(entry["action"])
            trial = copy.deepcopy(t)
            trial.act(dict(entry, amount=entry["min"]) if "min" in entry else entry)
            if "min" in entry:
                before = t.state()
                for amount in (entry["min"] - 1, entry["max"] + 1, "ten"):
                    with pytest.raises(IllegalAction, match="amount|bounds"):
                        t.act(dict(entry, amount=amount))
                    assert t.state() == before
        st = t.act(_random_action(rnd, st))
    assert {"hedge", "check", "call", "fold", "discard"} <= seen
    with pytest.raises(IllegalAction, match="over"):
        t.act({"action": "check"})


def test_a_limit_bet_takes_its_one_amount_only():
    s = Settings(chips=30)
    t = NewOrderTable(s, agent_table("maniac", s.players), 1, seed=2)
    st = t.state()
    sized = next(e for e in st["legal"] if "min" in e)
    assert sized["min"] == sized["max"]
    for amount in (sized["max"] + 1, sized["min"] - 1):
        with pytest.raises(IllegalAction, match="out of bounds"):
            t.act(dict(sized, amount=amount))
        assert t.state() == st
    t.act({"action": sized["action"]})  # the one amount may be left out


def test_an_action_that_is_not_legal_changes_nothing():
    s = Settings(chips=30)
    t = NewOrderTable(s, agent_table("balanced", s.players), 2, seed=4)
    before = t.state()
    for bad in ({"action": "dance"}, {"action": "hedge", "category": "Six of a Kind"}, {},
                {"action": "pick", "index": 0}, "check"):
        with pytest.raises(IllegalAction):
            t.act(bad)
        assert t.state() == before
    with pytest.raises(IllegalAction, match="seat 7"):
        NewOrderTable(s, agent_table("balanced", s.players), 7)


def test_past_steps_walked_in_order_equal_those_replayed_afresh():
    s = Settings(chips=30, max_hands=20)
    t = NewOrderTable(s, agent_table("maniac", s.players), 0, seed=6)
    rnd = random.Random(6)
    for _ in range(15):
        st = t.state()
        if st["done"]:
            break
        t.act(_random_action(rnd, st))
    n = t.state()["events"]
    for k in [*range(0, n - 1, max(1, n // 9)), 3, n - 2]:  # forward, then back, then on
        fresh = copy.copy(t)
        fresh._past_ref = None  # its referee replays the steps from the first event
        assert t.state(step=k) == fresh.state(step=k)


def test_the_side_pots_show_as_they_stand_during_the_betting():
    """An all-in cuts a layer at once (or dead money paid after it, R1, forms a pot of its
    own): the table's pots, the referee's among the live seats, add up to the pot, no
    folded seat may win one, and some pot excludes an all-in seat."""
    import random

    from nop_sim.games.new_order.agents import agent_table
    from nop_sim.games.new_order.settings import Settings
    from nop_sim.games.new_order.table import NewOrderTable

    found = 0
    for seed in range(40):
        s = Settings(chips=12, max_hands=15, betting="no-limit")
        t = NewOrderTable(s, agent_table("maniac", s.players), 0, seed=seed)
        rnd = random.Random(seed)
        st = t.state()
        while not st["done"]:
            pots = st["pots"]
            if st["pot"]:
                assert sum(p["amount"] for p in pots) == st["pot"], pots
            if len(pots) > 1 and not st["showdown"]:
                found += 1
                unfolded = {x["seat"] for x in st["seats"] if not x["folded"]}
                allin = {x["seat"] for x in st["seats"] if x["all_in"]}
                for pot in pots:
                    assert pot["eligible"] and set(pot["eligible"]) <= unfolded, pots
                # a seat all-in now may win only the pots that formed before it went all-in:
                # some pot excludes one
                assert any(allin - set(p["eligible"]) for p in pots), (pots, allin)
            e = dict(rnd.choice(st["legal"]))
            if "min" in e:
                e["amount"] = rnd.choice([e["min"], e["max"]])
            st = t.act(e)
        if found >= 3:
            break
    assert found >= 3
