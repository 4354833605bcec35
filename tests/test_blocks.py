"""classify_block and beats (SPEC sections 2 and 9)."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nop_sim.core.cards import parse_cards
from nop_sim.core.column import DEFAULT_COLUMN, Category, Column
from nop_sim.games.ordered_hand.blocks import beats, classify_block, classify_blocks
from nop_sim.games.ordered_hand.referee import pack_tiebreak, py_classify_block

C = Category


@pytest.mark.parametrize(
    "text, category, tiebreak",
    [
        ("As", C.HIGH_CARD, 14),
        ("2c", C.HIGH_CARD, 2),
        ("Kc Kd", C.ONE_PAIR, 13),
        ("Kc Qd", -1, 0),
        ("7c 7d 7h", C.THREE_OF_A_KIND, 7),
        ("7c 7d 2h", -1, 0),
        ("7c 8d 7h 8s", C.TWO_PAIR, 0x87),
        ("8c 8d 7h 7s", C.TWO_PAIR, 0x87),
        ("8c 8d 8h 8s", C.FOUR_OF_A_KIND, 8),
        ("8c 8d 8h 7s", -1, 0),
        ("8c 9d Th 7s", -1, 0),
        ("Td Jd Qd Kd Ad", C.ROYAL_FLUSH, 0),
        ("9d Td Jd Qd Kd", C.STRAIGHT_FLUSH, 13),
        ("Ad 2d 3d 4d 5d", C.STRAIGHT_FLUSH, 5),
        ("5d 4c 3d 2h Ad", C.STRAIGHT, 5),
        ("Tc Jd Qh Ks Ac", C.STRAIGHT, 14),
        ("Kc Kd Ks 2c 2d", C.FULL_HOUSE, 0xD2),
        ("2c Kd 2s Kc Kh", C.FULL_HOUSE, 0xD2),
        ("2c 5c 9c Jc Kc", C.FLUSH, 0xDB952),
        # Five cards that only hold a smaller category are not a play.
        ("8c 8d 8h 8s 9c", -1, 0),
        ("7c 7d 7h 9s Tc", -1, 0),
        ("7c 7d 9h 9s Tc", -1, 0),
        ("7c 7d 8h 9s Tc", -1, 0),
        ("2c 4d 6h 8s Tc", -1, 0),
        ("Qc Kd Ah 2s 3c", -1, 0),  # no wrap-around straight
        # Repeated codes (several decks).
        ("As As", C.ONE_PAIR, 14),
        ("As As As As As", C.FLUSH_FIVE, 14),
        ("As As Ks Ks Ks", C.FLUSH_HOUSE, 0xDE),
        ("Ah As Ad Ac Ah", C.FIVE_OF_A_KIND, 14),
        ("As As Ks Qs Js", C.FLUSH, 0xEEDCB),
    ],
)
def test_known_blocks(text, category, tiebreak):
    assert classify_block(text) == (int(category), tiebreak)
    assert classify_block(parse_cards(text)) == (int(category), tiebreak)
    assert classify_block(list(parse_cards(text).tolist())) == (int(category), tiebreak)


def test_random_blocks_match_the_plain_python_oracle():
    rng = np.random.default_rng(7)
    n = 20_000
    # Two decks' worth of codes so duplicates happen; small rank ranges make
    # pairs, trips and full houses common.
    lengths = rng.integers(1, 6, size=n)
    cards = np.full((n, 5), -1, dtype=np.int8)
    for i in range(n):
        if rng.random() < 0.5:
            ranks = rng.integers(0, 13, size=lengths[i])
        else:
            ranks = rng.integers(0, 3, size=lengths[i]) + rng.integers(0, 11)
        suits = rng.integers(0, 4, size=lengths[i]) if rng.random() < 0.7 else np.zeros(
            lengths[i], dtype=np.int64
        ) + rng.integers(0, 4)
        cards[i, : lengths[i]] = 4 * ranks + suits
    cats, tbs = classify_blocks(cards)
    for i in range(n):
        block = [int(c) for c in cards[i, : lengths[i]]]
        want = py_classify_block(block)
        got = (int(cats[i]), int(tbs[i]))
        if want is None:
            assert got == (-1, 0), block
        else:
            assert got == (want[0], pack_tiebreak(want[1])), block


@numba.njit(cache=True)
def _all_combinations(k):
    """Every k-subset of the 52 codes (ascending), one per row."""
    n = 1
    for i in range(k):
        n = n * (52 - i) // (i + 1)
    out = np.empty((n, 5), dtype=np.int8)
    idx = np.arange(k)
    for row in range(n):
        for j in range(5):
            out[row, j] = idx[j] if j < k else 0
        i = k - 1
        while i >= 0 and idx[i] == 52 - k + i:
            i -= 1
        if i < 0:
            break
        idx[i] += 1
        for j in range(i + 1, k):
            idx[j] = idx[j - 1] + 1
    return out


@pytest.mark.parametrize(
    "k, counts",
    [
        (1, {C.HIGH_CARD: 52}),
        (2, {C.ONE_PAIR: 78}),
        (3, {C.THREE_OF_A_KIND: 52}),
        (4, {C.FOUR_OF_A_KIND: 13, C.TWO_PAIR: 2808}),
        (5, {C.ROYAL_FLUSH: 4, C.STRAIGHT_FLUSH: 36, C.FULL_HOUSE: 3744, C.FLUSH: 5108,
             C.STRAIGHT: 10200}),
    ],
)
def test_every_block_of_one_deck(k, counts):
    cards = _all_combinations(k)
    cats, _ = classify_blocks(cards, np.full(cards.shape[0], k))
    found = {int(c): int(n) for c, n in zip(*np.unique(cats, return_counts=True), strict=True)}
    want = {int(c): n for c, n in counts.items()}
    invalid = cards.shape[0] - sum(want.values())
    if invalid:
        want[-1] = invalid
    assert found == want


def test_tiebreaks_order_within_categories():
    assert classify_block("Ac Ad")[1] > classify_block("Kc Kd")[1]
    assert classify_block("Ac Ad Kc Kd")[1] > classify_block("Ac Ad Qc Qd")[1]
    assert classify_block("Kc Kd Qc Qd")[1] < classify_block("Ac Ad 2c 2d")[1]
    assert classify_block("2c 2d 2h Ac Ad")[1] < classify_block("3c 3d 3h 2c 2d")[1]
    assert classify_block("Ad 2c 3d 4d 5d")[1] < classify_block("2c 3d 4d 5d 6h")[1]
    assert classify_block("2c 4c 6c 8c Kc")[1] < classify_block("3d 4d 6d 8d Kd")[1]


@pytest.mark.parametrize(
    "bad, match",
    [
        ("", "0 cards"),
        ("As Ks Qs Js Ts 9s", "6 cards"),
        ([], "0 cards"),
        ([52], "card code 52"),
        ([3, -1], "card code -1"),
        ("Zz", "does not parse"),
        (np.zeros((2, 2), dtype=np.int8), "1-D"),
        (np.array([1.5]), "integers"),
    ],
)
def test_bad_blocks(bad, match):
    with pytest.raises(ValueError, match=match):
        classify_block(bad)


def test_beats_under_columns():
    assert beats("Kc Kd", "9s 9h")
    assert not beats("9c 9d", "9s 9h")  # equal does not beat
    assert not beats("9c 9d", "Ts Th")
    assert beats("2c", None) and beats("2c", "") and beats("2c", [])
    assert beats("2c 2d", "As")  # default: One Pair above High Card
    moved = Column.parse("High Card > One Pair")
    assert not beats("2c 2d", "As", moved)
    assert beats("3c", "2c 2d", moved)
    assert beats("3c", "2c 2d", "High Card > One Pair")
    assert beats("3c", "2c 2d", moved.to_array())
    assert beats("Kc Kd Ks 2c 2d", "2c 4c 6c 8c Kc", DEFAULT_COLUMN)
    assert not beats("Kc Kd Ks 2c 2d", "2c 4c 6c 8c Kc", DEFAULT_COLUMN.swap("Flush", "Full House"))
    assert not beats("7c 7d 2h", "2s")  # not a block: beats nothing
    with pytest.raises(ValueError, match="not a valid block"):
        beats("Kc Kd", "7c 8d")


@st.composite
def _blocks(draw):
    n = draw(st.integers(1, 5))
    low = draw(st.integers(0, 9))
    ranks = draw(st.lists(st.integers(low, low + 3), min_size=n, max_size=n))
    suits = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return [4 * r + s for r, s in zip(ranks, suits, strict=True)]


@settings(deadline=None, max_examples=300)
@given(_blocks(), st.randoms(use_true_random=False), st.permutations([0, 1, 2, 3]))
def test_card_order_and_suit_names_change_nothing(block, rnd, suit_map):
    shuffled = block[:]
    rnd.shuffle(shuffled)
    relabelled = [4 * (c // 4) + suit_map[c % 4] for c in block]
    assert classify_block(shuffled) == classify_block(block)
    assert classify_block(relabelled) == classify_block(block)
