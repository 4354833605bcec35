"""Golden hashes: any change to how hands rank, how matches play or how Ordered Hand
games go shows up here.

Like pokerkit's md5 over the order of all five-card hands. When a change of
results is deliberate (a ruling, a fix), update the hash in the same commit
and say why in the commit message.
"""

from __future__ import annotations

import hashlib
from itertools import combinations

import numpy as np
import pytest

from nop_sim.core.column import DEFAULT_COLUMN, Column
from nop_sim.evaluator import evaluate
from nop_sim.games import ordered_hand
from nop_sim.games.new_order.engine import play_matches
from nop_sim.games.new_order.settings import Settings
from nop_sim.games.ordered_hand import OrderedSettings


def _md5(*arrays: np.ndarray) -> str:
    h = hashlib.md5()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def five_card_hands() -> np.ndarray:
    """All C(52, 5) = 2,598,960 hands, in lexicographic order of card codes."""
    flat = np.fromiter((c for five in combinations(range(52), 5) for c in five), np.int8,
                       count=2_598_960 * 5)
    return flat.reshape(-1, 5)


# The dense rank of every hand (0 = weakest class of equal hands) under each column: it
# depends on the order only, not on how the evaluator encodes a score.
FIVE_CARD_ORDER = {
    "default": "05722ba807e99d18fd1a18db734e4cf0",
    "Two Pair > Full House": "1a4469c63fb8adfab752cc6b69dcf22e",
    "Flush > Four of a Kind > Straight Flush": "8721fbc4f622367c793449a46816d9ea",
}


@pytest.mark.parametrize("column", list(FIVE_CARD_ORDER))
def test_order_of_all_five_card_hands(five_card_hands, column):
    scores = evaluate(five_card_hands, Column.parse(column))
    assert len(five_card_hands) == 2_598_960
    dense = np.unique(scores, return_inverse=True)[1].astype(np.int32)
    assert _md5(dense) == FIVE_CARD_ORDER[column]


def test_default_column_has_the_textbook_number_of_distinct_hands(five_card_hands):
    # 7,462 classes of equal five-card hands under the standard ranking: an oracle that
    # does not depend on this project's hash
    scores = evaluate(five_card_hands, DEFAULT_COLUMN)
    assert len(np.unique(scores)) == 7462


HEAVY_WILD_INVERSION = {"deuces_wild": 8, "wild_deuces": 8, "inversion": 8, "elevator": 4,
                        "third_card": 4, "market_crash": 2}
MATCH_CONFIGS = {
    "default rules": ({}, "balanced"),
    "no-limit, fees to the bank": ({"betting": "no-limit", "fee_to": "bank"}, "random"),
    "wilds and inversion": ({"disruptors": HEAVY_WILD_INVERSION},
                            ["balanced", "manipulator", "hedger", "rock"]),
}
MATCH_HASHES = {
    "default rules": "7166a437376c2aa03668e5d07e8c31fb",
    "no-limit, fees to the bank": "2c1b8258089f8457836fe51bd8961c88",
    "wilds and inversion": "1e47f6678244efd4d8dbbb74a65fe230",
}


@pytest.mark.parametrize("name", list(MATCH_CONFIGS))
def test_play_matches_output_hash(name):
    settings, agents = MATCH_CONFIGS[name]
    r = play_matches(Settings(**settings), agents, n_matches=48, seed=0, chunk_size=16)
    digest = _md5(r.match, r.player, r.drafted, r.column, r.counts, r.categories, r.time,
                  r.disruptors)
    assert digest == MATCH_HASHES[name]


# Ordered Hand: the records and the whole event log of logged games (the plain rules with
# every preset, and the advanced rules with both seat line-ups of bettor and raiser).
ORDERED_CONFIGS = {
    "plain rules, four presets": ({}, ["random", "low", "high", "builder"]),
    "advanced rules, random": ({"players": 2, "betting": True}, "random"),
    "advanced rules, bettor v raiser": ({"players": 2, "betting": True}, ["bettor", "raiser"]),
    "advanced rules, raiser v bettor": ({"players": 2, "betting": True}, ["raiser", "bettor"]),
}
ORDERED_HASHES = {
    "plain rules, four presets": "e906bc93c47be1e72001835c22297e18",
    "advanced rules, random": "c10c7c270b772afca1776117b223c2fa",
    "advanced rules, bettor v raiser": "e3b4f67c11105c1261a1ad4dc7485177",
    "advanced rules, raiser v bettor": "4881d9307278eba0f8ea21b35b0720bf",
}


@pytest.mark.parametrize("name", list(ORDERED_CONFIGS))
def test_ordered_hand_output_hash(name):
    settings, agents = ORDERED_CONFIGS[name]
    r = ordered_hand.play_matches(OrderedSettings(**settings), agents, 300, seed=0, log=True)
    digest = _md5(r.games, r.log.decks, r.log.events, r.log.starts)
    assert digest == ORDERED_HASHES[name]
