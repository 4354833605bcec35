"""Logged matches replayed by the plain-Python referee, and the log's readable forms."""

from __future__ import annotations

import itertools
import json
import random

import numpy as np
import pytest

from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.engine import play_matches
from nop_sim.games.new_order.history import render_history, to_records, write_json_lines
from nop_sim.games.new_order.referee import RuleViolation, check_log, check_results, score_hand
from nop_sim.games.new_order.settings import Settings

CASES = [
    ({"players": 2}, "random"),
    ({"players": 3, "betting": "pot-limit"}, "random"),
    ({"players": 5, "betting": "no-limit"}, "random"),
    ({"players": 8}, "random"),
    ({"players": 6, "betting": "no-limit"}, "maniac"),
    ({"players": 7, "betting": "pot-limit"}, "balanced"),
    ({"fee_to": "bank", "hedge_from": "bank"}, "random"),
    ({"hedge_scope": "match"}, "hedger"),
    ({"hedge_scope": "match"}, "random"),
    ({"decks": 2, "players": 6}, "random"),
    ({"disruptors": "chaos"}, "random"),
    ({"dart_reset": "hand", "promotions_per_action": 3}, "random"),
    ({"draft_without_showdown": True}, "maniac"),
    ({"max_discard": 5, "disruptors": "none"}, "random"),
    ({"chips": 3, "ante": 2}, "random"),
    ({}, ["random", "station", "rock", "maniac"]),
    # R9 and R10: seats that paid no ante, all-ins for less, uncalled bets
    ({"disruptors": {"ante_exempt": 20, "windfall": 4}},
     ["balanced", "manipulator", "hedger", "rock"]),
    ({"hedge_from": "bank", "chips": 20}, ["balanced", "manipulator", "hedger", "maniac"]),
    ({"players": 7}, ["random", "station", "rock", "maniac", "manipulator", "hedger",
                      "balanced"]),
]


def _play(changes, agents, n, max_hands, seed=3):
    s = Settings().replace(max_hands=max_hands, **changes)
    return play_matches(s, agents, n_matches=n, seed=seed, log_every=1,
                        log_capacity=2_000_000, check=True, chunk_size=4)


@pytest.mark.parametrize("changes, agents", CASES, ids=[f"{c}-{a}" for c, a in CASES])
def test_referee_accepts_logged_matches(changes, agents):
    r = _play(changes, agents, n=16, max_hands=80)
    assert check_results(r) == 16


@pytest.mark.parametrize("card", T.DISRUPTOR_IDS)
def test_referee_checks_every_effect(card):
    r = _play({"disruptors": {card: 12}}, "random", n=10, max_hands=60)
    assert check_results(r) == 10
    assert any(rec["event"] == "pick" and rec["card"] == card for rec in to_records(r.events))


@pytest.mark.slow
@pytest.mark.parametrize("changes, agents", CASES + [({"disruptors": {c: 12}}, "random")
                                                     for c in T.DISRUPTOR_IDS])
def test_referee_thousands_of_matches(changes, agents):
    r = _play(changes, agents, n=100, max_hands=300, seed=17)
    assert check_results(r) == 100


def test_referee_catches_tampering():
    r = _play({}, "random", n=2, max_hands=30)
    records = list(to_records(r.events))
    check_log(records, r.settings)
    for i, rec in enumerate(records):
        if rec["event"] == "award":
            bad = [dict(x) for x in records]
            bad[i]["chips"] += 1
            with pytest.raises(RuleViolation, match="award"):
                check_log(bad, r.settings)
            break
    for i, rec in enumerate(records):
        if rec["event"] == "action" and rec["action"] == "call":
            bad = [dict(x) for x in records]
            bad[i]["seat"] = (bad[i]["seat"] + 1) % r.settings.players
            with pytest.raises(RuleViolation):
                check_log(bad, r.settings)
            break


def test_log_is_off_by_default_and_sampled():
    r = play_matches(Settings(max_hands=40), "random", n_matches=6, seed=1)
    assert r.events.shape == (0, T.EV_WIDTH)
    r = play_matches(Settings(max_hands=40), "random", n_matches=6, seed=1, log_every=3)
    assert set(np.unique(r.events[:, 0]).tolist()) == {0, 3}
    quiet = play_matches(Settings(max_hands=40), "random", n_matches=6, seed=1)
    assert quiet.match.tobytes() == r.match.tobytes()  # logging changes nothing


def test_json_lines_and_history(tmp_path):
    r = _play({"players": 3}, "balanced", n=1, max_hands=20)
    path = write_json_lines(r.events, tmp_path / "log.jsonl")
    lines = path.read_text().splitlines()
    assert len(lines) == r.events.shape[0]
    first = json.loads(lines[0])
    assert first["event"] == "match_start" and first["players"] == 3
    text = render_history(to_records(r.events), names=["Ann", "Bob", "Cy"])
    assert "Hand #1" in text and "Column:" in text and "dart" in text
    assert "=== Match 0 over" in text


# -- the referee's own scoring, wilds and several decks included ---------------------------
def _brute_key(cards, column, wild_ranks, elevation, inverted):
    """Best key by trying every one of the 52 cards for every wild card (slow, obvious)."""
    import reference

    pos = {c: i for i, c in enumerate(column)}
    wild_at = [i for i, c in enumerate(cards) if (wild_ranks >> (c // 4)) & 1]
    best = None
    for values in itertools.product(range(52), repeat=len(wild_at)):
        hand = list(cards)
        for i, v in zip(wild_at, values, strict=True):
            hand[i] = v
        for five in itertools.combinations(hand, 5):
            cat, tb = reference.classify_codes(five)
            p = 12 - pos[cat] if inverted else pos[cat]
            up = elevation[cat]
            key = (-(p - up), int(up > 0), tuple(tb))
            if best is None or key > best:
                best = key
    return best


def _random_case(rng, n_cards, decks, n_wild):
    """A hand of ``n_cards`` with ``n_wild`` deuces (wild), a random column and elevation."""
    deck = [c for c in range(4, 52) for _ in range(decks)]
    deuces = [c for c in range(4) for _ in range(decks)]
    cards = rng.sample(deuces, n_wild) + rng.sample(deck, n_cards - n_wild)
    column = list(range(13))
    rng.shuffle(column)
    elevation = [0] * 13
    for c in rng.sample(range(13), rng.randint(0, 2)):
        elevation[c] = 1
    return cards, column, elevation, rng.random() < 0.3


@pytest.mark.parametrize("n_cards, n_wild", [(5, 1), (5, 2), (5, 3), (6, 1), (7, 1), (7, 2)])
def test_wild_scoring_equals_trying_every_card_for_every_wild(n_cards, n_wild):
    rng = random.Random(n_cards * 10 + n_wild)
    n_cases = {1: 40, 2: 6, 3: 1}[n_wild] if n_cards > 5 else {1: 60, 2: 30, 3: 2}[n_wild]
    for _ in range(n_cases):
        cards, column, elevation, inverted = _random_case(rng, n_cards, rng.choice([1, 2]),
                                                          n_wild)
        key, _ = score_hand(cards, column, wild_ranks=1, elevation=elevation, inverted=inverted)
        assert key == _brute_key(cards, column, 1, elevation, inverted), (cards, column)


def test_wild_scoring_spec_cases():
    default = list(range(13))
    # a wild may copy a card already in the hand (one deck): Five of a Kind, Flush Five
    assert score_hand([0, 1, 48, 49, 50], default, wild_ranks=1)[1] == 2  # 2c 2d Ac Ad Ah
    four_deuces = [0, 1, 2, 3, 51]
    assert score_hand(four_deuces, default, wild_ranks=1)[1] == 0  # Flush Five of aces
    assert score_hand(four_deuces, default)[1] == 5  # no wilds: Four of a Kind
    # under a column with Two Pair on top, a wild makes Two Pair, not Three of a Kind
    top_two_pair = [10] + [c for c in range(13) if c != 10]
    key, cat = score_hand([0, 51, 50, 47, 43], top_two_pair, wild_ranks=1)  # 2c As Ah Ks Qs
    assert cat == 10 and key[2] == (14, 13, 12)
    # several decks without wilds: Flush Five
    assert score_hand([51, 51, 51, 51, 51], default)[1] == 0


def test_scoring_agrees_with_the_engine_evaluator():
    from nop_sim.core.column import Column
    from nop_sim.evaluator import category_of_scores, evaluate

    rng = random.Random(7)
    for i in range(400):
        n_cards = rng.choice([5, 6, 7, 8])
        decks = rng.choice([1, 1, 2, 3])
        deck = [c for c in range(52) for _ in range(decks)]
        cards = rng.sample(deck, n_cards)
        wild = rng.choice([0, 1, 1, 1 << rng.randrange(13), rng.getrandbits(13) & rng.getrandbits(13)])
        column = list(range(13))
        rng.shuffle(column)
        elevated = rng.getrandbits(13) & rng.getrandbits(13) & rng.getrandbits(13)
        inverted = rng.random() < 0.3
        arr = np.full(8, -1, np.int8)
        arr[:n_cards] = cards
        col = Column(column)
        score = int(evaluate(arr[None, :], col, wild_ranks=wild, elevated=elevated,
                             inverted=inverted, decks=decks)[0])
        cat = int(category_of_scores(np.array([score]), col, inverted=inverted)[0])
        # the evaluator's score, level << 20 | tie-break nibbles, as the referee's key
        level = score >> 20
        e = level & 1
        p = 13 - (level - 3 * e) // 2
        tb = tuple(r for r in ((score >> (16 - 4 * k)) & 15 for k in range(5)) if r)
        elevation = [(elevated >> c) & 1 for c in range(13)]
        key, ref_cat = score_hand(cards, column, wild_ranks=wild, elevation=elevation,
                                  inverted=inverted)
        assert (key, ref_cat) == ((-(p - e), e, tb), cat), (i, cards, wild, column)


# -- the stock and the Disruptor deck are counted ------------------------------------------
@pytest.fixture(scope="module")
def reshuffling_log():
    """Logged matches with restocks of the stock and reshuffles of the Disruptor deck."""
    mix = {"deuces_wild": 3, "wild_deuces": 3, "market_crash": 3, "elevator": 2}
    s = Settings(max_hands=60, players=8, max_discard=5, disruptors=mix)
    r = play_matches(s, "random", n_matches=2, seed=5, log_every=1, log_capacity=500_000)
    records = list(to_records(r.events))
    check_log(records, r.settings)
    return records, r.settings


def _first(records, pile):
    return next(i for i, x in enumerate(records)
                if x["event"] == "reshuffle" and x["pile"] == pile)


@pytest.mark.parametrize("pile", ["stock", "disruptors"])
def test_a_missing_or_miscounted_reshuffle_is_caught(reshuffling_log, pile):
    records, settings = reshuffling_log
    i = _first(records, pile)
    with pytest.raises(RuleViolation, match="without"):
        check_log(records[:i] + records[i + 1:], settings)
    bad = [dict(x) for x in records]
    bad[i]["cards"] += 1
    with pytest.raises(RuleViolation, match="discard pile"):
        check_log(bad, settings)


def test_a_restock_before_the_stock_ran_out_is_caught(reshuffling_log):
    records, settings = reshuffling_log
    # a restock logged in the second draw of a hand: a discard pile (the first drawer's
    # cards) but a stock still full
    first = next(i for i, x in enumerate(records) if x["event"] == "discard" and x["n"] > 0)
    x = records[first]
    i = next(i for i, y in enumerate(records) if i > first and y["event"] == "discard"
             and y["n"] > 0 and (y["match"], y["hand"]) == (x["match"], x["hand"]))
    fake = {"match": x["match"], "hand": x["hand"], "event": "reshuffle", "seat": -1,
            "pile": "stock", "cards": x["n"]}
    bad = records[: i + 1] + [fake] + records[i + 1:]
    with pytest.raises(RuleViolation, match="still held"):
        check_log(bad, settings)


def test_a_disruptor_reshuffle_before_the_deck_ran_out_is_caught(reshuffling_log):
    records, settings = reshuffling_log
    i = _first(records, "disruptors")
    assert records[i + 1]["event"] == "reveal"
    # the same reshuffle one reveal earlier, when the deck still held cards
    j = max(k for k in range(i) if records[k]["event"] == "reveal")
    pile = sum(1 for x in records[:j] if x["event"] == "disruptor_discard"
               and x["match"] == records[i]["match"])
    moved = dict(records[i], hand=records[j]["hand"], cards=pile)
    bad = records[:j] + [moved] + records[j:i] + records[i + 1:]
    with pytest.raises(RuleViolation, match="still held"):
        check_log(bad, settings)


def test_reveals_after_a_reshuffle_come_from_the_old_deck_first(reshuffling_log):
    records, settings = reshuffling_log
    i = _first(records, "disruptors")
    cards = records[i + 1]["cards"]
    for k in range(1, len(cards)):
        bad = [dict(x) for x in records]
        bad[i + 1]["cards"] = cards[k:] + cards[:k]  # rotate the reveal order
        if sorted(bad[i + 1]["cards"][:k]) != sorted(cards[:k]):
            with pytest.raises(RuleViolation, match="rest of the deck|comes from"):
                check_log(bad, settings)
            return
    pytest.skip("this reveal's order cannot be told apart")


def test_a_drawn_card_must_be_in_the_stock(reshuffling_log):
    records, settings = reshuffling_log
    # the first draw of a hand that takes a card: one drawn card becomes a discarded one
    i = next(i for i, x in enumerate(records) if x["event"] == "discard" and x["n"] > 0)
    gone, hole = records[i], records[i + 1]
    dealt = next(x for x in records[:i] if x["event"] == "deal" and x["seat"] == gone["seat"]
                 and (x["match"], x["hand"]) == (gone["match"], gone["hand"]))
    kept = list(dealt["cards"])
    for c in gone["cards"]:
        kept.remove(c)
    cards = list(hole["cards"])
    drawn = next(k for k, c in enumerate(cards) if c not in kept)
    cards[drawn] = gone["cards"][0]
    bad = records[: i + 1] + [dict(hole, cards=cards)] + records[i + 2:]
    with pytest.raises(RuleViolation, match="not in the stock"):
        check_log(bad, settings)


# -- the hand's effects come from the catalog's amounts and stacking rules -----------------
def test_referee_stacks_cards_as_the_catalog_says(monkeypatch):
    import dataclasses

    import nop_sim.games.new_order.disruptors as disruptors
    from nop_sim.games.new_order.disruptors import load_catalog

    r = _play({"disruptors": {"inflation": 8, "hedge_boom": 8}}, "random", n=6, max_hands=60)
    records = list(to_records(r.events))
    starts = [x for x in records if x["event"] == "hand_start"]
    assert any(x["dart_step_mult"] == 4 for x in starts)  # two inflations: x2 x2 (R6)
    assert any(x["hedge_mult"] == 4 for x in starts)
    check_log(records, r.settings)
    i = next(i for i, x in enumerate(records)
             if x["event"] == "hand_start" and x["dart_step_mult"] == 4)
    bad = [dict(x) for x in records]
    bad[i]["dart_step_mult"] = 2
    with pytest.raises(RuleViolation, match="dart_step_mult"):
        check_log(bad, r.settings)
    # the referee reads the rule from the catalog: with inflation stacking "once",
    # the same log breaks the rules (tests/test_stacking.py: the engine follows too)
    catalog = load_catalog()
    once = tuple(dataclasses.replace(c, stack="once") if c.id == "inflation" else c
                 for c in catalog.cards)
    monkeypatch.setattr(disruptors, "load_catalog",
                        lambda: dataclasses.replace(catalog, cards=once))
    with pytest.raises(RuleViolation, match="dart_step_mult: logged 4, rules say 2"):
        check_log(records, r.settings)


def test_stacking_rules_table():
    from nop_sim.games.new_order.referee import _stacked

    assert [_stacked("multiply", 2, n, 1) for n in range(3)] == [1, 2, 4]
    assert [_stacked("add", 2, n, 0) for n in range(3)] == [0, 2, 4]
    assert [_stacked("once", 10, n, 0) for n in range(3)] == [0, 10, 10]
    with pytest.raises(ValueError):
        _stacked("each", 5, 2, 0)
