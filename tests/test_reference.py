"""Tests of the oracle itself (tests/reference.py) on hand-made SPEC examples.

The oracle is what the fast evaluator is judged against, so it is checked here
against the SPEC's own examples, textbook counts and an outside evaluator
(phevaluator), without touching nop_sim's evaluator.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations_with_replacement, pairwise
from math import comb

import pytest
import reference as ref
from reference import codes

DEFAULT = tuple(range(13))


def column_above(upper: int, lower: int) -> tuple[int, ...]:
    """Default column with ``upper`` taken out and put directly above ``lower``."""
    order = [c for c in DEFAULT if c != upper]
    order.insert(order.index(lower), upper)
    return tuple(order)


def key(text, column=DEFAULT, **kw):
    return ref.best_key(codes(text), column, **kw)


def cat(text, column=DEFAULT, **kw):
    return ref.best_category(codes(text), column, **kw)


def deuces() -> int:
    return 1 << 0


# -- classify5 ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "hand, category, tiebreak",
    [
        ("Ts Js Qs Ks As", ref.ROYAL_FLUSH, ()),
        ("9s Ts Js Qs Ks", ref.STRAIGHT_FLUSH, (13,)),
        ("Ah 2h 3h 4h 5h", ref.STRAIGHT_FLUSH, (5,)),
        ("Ad 2h 3h 4h 5h", ref.STRAIGHT, (5,)),
        ("Td Jh Qc Ks Ah", ref.STRAIGHT, (14,)),
        ("Kd Ah 2c 3s 4h", ref.HIGH_CARD, (14, 13, 4, 3, 2)),
        ("9c 9d 9h 9s 2c", ref.FOUR_OF_A_KIND, (9, 2)),
        ("Kc Kd Kh 7s 7c", ref.FULL_HOUSE, (13, 7)),
        ("7c 7d 7h Ks Kc", ref.FULL_HOUSE, (7, 13)),
        ("2h 9h Jh Kh 4h", ref.FLUSH, (13, 11, 9, 4, 2)),
        ("5c 6d 7h 8s 9c", ref.STRAIGHT, (9,)),
        ("Qc Qd Qh 3s 8c", ref.THREE_OF_A_KIND, (12, 8, 3)),
        ("Jc Jd 4h 4s Ac", ref.TWO_PAIR, (11, 4, 14)),
        ("4c 4d Jh Js 2c", ref.TWO_PAIR, (11, 4, 2)),
        ("Tc Td 3h 8s Ac", ref.ONE_PAIR, (10, 14, 8, 3)),
        ("Ac Qd 9h 5s 3c", ref.HIGH_CARD, (14, 12, 9, 5, 3)),
        # Several decks: repeated cards.
        ("Ah Ah Ah Ah Ah", ref.FLUSH_FIVE, (14,)),
        ("Kh Kh Kh Qh Qh", ref.FLUSH_HOUSE, (13, 12)),
        ("Ks Ks Kd Kd Kh", ref.FIVE_OF_A_KIND, (13,)),
        ("Kh Kh Kh Kh Qh", ref.FOUR_OF_A_KIND, (13, 12)),  # quads come before Flush
        ("Kh Kh Qh Qh 9h", ref.FLUSH, (13, 13, 12, 12, 9)),  # flush before two pair
        ("Kh Kh Kh Qh 9h", ref.FLUSH, (13, 13, 13, 12, 9)),  # flush before trips
        ("As As Kd Qc Jh", ref.ONE_PAIR, (14, 13, 12, 11)),
    ],
)
def test_classify5_examples(hand, category, tiebreak):
    cards = codes(hand)
    got = ref.classify5([ref.rank_of(c) for c in cards], [ref.suit_of(c) for c in cards])
    assert got == (category, tiebreak)


def test_classify5_rejects_bad_input():
    with pytest.raises(ValueError):
        ref.classify5([2, 3, 4, 5], [0, 0, 0, 0])
    with pytest.raises(ValueError):
        ref.classify5([1, 3, 4, 5, 6], [0, 0, 0, 0, 0])
    with pytest.raises(ValueError):
        ref.classify5([2, 3, 4, 5, 6], [0, 0, 0, 0, 4])


def test_five_card_category_counts_match_textbook():
    """Every one-deck five-card hand, counted by rank multiset x suit choices.

    A rank multiset with multiplicities c_r has prod C(4, c_r) suit choices; of
    those exactly 4 are one suit when all ranks differ, none otherwise.
    """
    counts = Counter()
    for ranks in combinations_with_replacement(ref.ALL_RANKS, 5):
        mult = Counter(ranks)
        if max(mult.values()) > 4:
            continue
        n_ways = 1
        for c in mult.values():
            n_ways *= comb(4, c)
        n_mono = 4 if len(mult) == 5 else 0
        counts[ref.classify_ranks(ranks, True)[0]] += n_mono
        counts[ref.classify_ranks(ranks, False)[0]] += n_ways - n_mono
    counts = {c: n for c, n in counts.items() if n}
    assert counts == {
        ref.ROYAL_FLUSH: 4, ref.STRAIGHT_FLUSH: 36, ref.FOUR_OF_A_KIND: 624,
        ref.FULL_HOUSE: 3744, ref.FLUSH: 5108, ref.STRAIGHT: 10200,
        ref.THREE_OF_A_KIND: 54912, ref.TWO_PAIR: 123552, ref.ONE_PAIR: 1098240,
        ref.HIGH_CARD: 1302540,
    }


def test_distinct_five_card_ranks_default_column():
    """7,462 distinct one-deck hand values, and tie-break tuples per category
    have one length."""
    values = set()
    lengths = {}
    for ranks in combinations_with_replacement(ref.ALL_RANKS, 5):
        if max(Counter(ranks).values()) > 4:
            continue
        for mono in ((True, False) if len(set(ranks)) == 5 else (False,)):
            c, tb = ref.classify_ranks(ranks, mono)
            values.add((c, tb))
            assert lengths.setdefault(c, len(tb)) == len(tb)
    assert len(values) == 7462


# -- best hand under the column -----------------------------------------------------
def test_spec_example_two_pair_above_full_house():
    hand = "Kc Kd Kh 7s 7c Qd 2h"
    assert cat(hand) == ref.FULL_HOUSE
    column = column_above(ref.TWO_PAIR, ref.FULL_HOUSE)
    assert cat(hand, column) == ref.TWO_PAIR
    assert key(hand, column)[2] == (13, 7, 12)  # plays K K 7 7 Q


def test_wheel_and_six_high_straight():
    assert key("As 2d 3h 4c 5s 9d Jc")[2] == (5,)
    assert cat("As 2d 3h 4c 5s 9d Jc") == ref.STRAIGHT
    assert key("6s 2d 3h 4c 5s 9d Jc") > key("As 2d 3h 4c 5s 9d Jc")
    # A wheel that could also be a six-high straight plays six-high.
    assert key("As 2d 3h 4c 5s 6d Jc")[2] == (6,)


def test_royal_beats_straight_flush_and_is_never_one():
    royal = key("Ts Js Qs Ks As 2d 3c")
    king_sf = key("9s Ts Js Qs Ks 2d 3c")
    assert cat("Ts Js Qs Ks As 2d 3c") == ref.ROYAL_FLUSH
    assert cat("9s Ts Js Qs Ks As 3c") == ref.ROYAL_FLUSH
    assert royal > king_sf
    # With Straight Flush promoted above Royal Flush, a hand holding both
    # plays its straight flush, and a bare royal loses to any straight flush.
    column = column_above(ref.STRAIGHT_FLUSH, ref.ROYAL_FLUSH)
    assert cat("9s Ts Js Qs Ks As 3c", column) == ref.STRAIGHT_FLUSH
    assert key("9s Ts Js Qs Ks As 3c", column)[2] == (13,)
    assert cat("Ts Js Qs Ks As 2d 3c", column) == ref.ROYAL_FLUSH  # still above Flush
    assert key("Ah 2h 3h 4h 5h 9c 9d", column) > key("Ts Js Qs Ks As 2d 3c", column)


def test_five_of_a_kind_and_flush_five_with_wilds():
    # Two deuces wild + three aces of different suits: five aces.
    hand = "2c 2d Ah Ad As 7c 9d"
    assert cat(hand, wild_ranks=deuces()) == ref.FIVE_OF_A_KIND
    assert key(hand, wild_ranks=deuces())[2] == (14,)
    assert cat(hand) == ref.FULL_HOUSE  # deuces natural: A A A 2 2
    # All four 2s wild + one natural: Flush Five of the best natural rank.
    hand = "2c 2d 2h 2s 7c 9d Kh"
    assert cat(hand, wild_ranks=deuces()) == ref.FLUSH_FIVE
    assert key(hand, wild_ranks=deuces())[2] == (13,)
    # A wild may copy a card already in the hand: Ah + 2 wilds + 2 more.
    assert cat("Ah 2h 2s 9c 4d", wild_ranks=deuces()) == ref.THREE_OF_A_KIND
    assert key("Ah 2h 2s 9c 4d", wild_ranks=deuces())[2] == (14, 9, 4)
    # ... and two wilds with A 3 4 complete the wheel.
    assert key("Ah 2h 2s 3c 4d", wild_ranks=deuces())[2] == (5,)
    assert cat("Ah 2h 2s 3c 4d", wild_ranks=deuces()) == ref.STRAIGHT
    # Wild twos may also stand for themselves (or any other rank): 2 2 + 3 4 5 6 straight.
    assert key("2h 3c 4d 5s 6h", wild_ranks=deuces())[2] == (7,)  # wild plays 7: 3-7


def test_wilds_choose_suits_and_ranks():
    # Four hearts + a wild king: a king-high straight flush (a royal needs two).
    assert cat("9h Th Jh Qh Kc 3d 4c", wild_ranks=1 << (13 - 2)) == ref.STRAIGHT_FLUSH
    assert key("9h Th Jh Qh Kc 3d 4c", wild_ranks=1 << (13 - 2))[2] == (13,)
    assert cat("9h Th Jh Qh Kc Ks 4c", wild_ranks=1 << (13 - 2)) == ref.ROYAL_FLUSH
    # A wild cannot repair naturals of mixed suits into a flush.
    assert cat("9h Th Jc Qh Kc", wild_ranks=1 << (13 - 2)) == ref.STRAIGHT
    # Ace-wild: A stands for anything including another ace.
    assert key("Ac Kd Kh 5s 6c", wild_ranks=1 << 12)[2] == (13, 6, 5)
    assert cat("Ac Kd Kh 5s 6c", wild_ranks=1 << 12) == ref.THREE_OF_A_KIND
    # Five wilds: the top of the column, whatever it is.
    for top in range(13):
        column = [top] + [c for c in DEFAULT if c != top]
        assert cat("2c 2d 2h 2s 2c", column, wild_ranks=deuces()) == top


def test_flush_house_with_two_decks():
    # Two decks, two wild deuces: Kh Kh Qh Qh + a wild playing Kh.
    hand = "Kh Kh Qh Qh 2c 9s 3d"
    assert cat(hand, wild_ranks=deuces()) == ref.FLUSH_HOUSE
    assert key(hand, wild_ranks=deuces())[2] == (13, 12)
    # Without wilds the same two decks give only a flush or two pair.
    assert cat(hand) == ref.TWO_PAIR  # flush needs five hearts; only four
    assert cat("Kh Kh Qh Qh 9h 2s 3d") == ref.FLUSH
    assert cat("Kh Kh Kd Qh Qh 2s 3d") == ref.FULL_HOUSE
    assert cat("Ks Ks Kd Kd Kh 2s 3d") == ref.FIVE_OF_A_KIND
    assert cat("Kh Kh Kh Qh Qh 2s 3d") == ref.FLUSH_HOUSE  # three decks


def test_elevation_counts_in_choice_and_comparison():
    hand = "5h 6h 7h 8h 9c Kh 2d"  # a flush and a straight
    assert cat(hand) == ref.FLUSH
    # Straight elevated: effective position 7 = Flush's, and elevated beats natural.
    assert cat(hand, elevated=1 << ref.STRAIGHT) == ref.STRAIGHT
    assert key(hand, elevated=1 << ref.STRAIGHT) == (-7, 1, (9,))
    # Both elevated: the flush (now 6) is better again.
    assert cat(hand, elevated=(1 << ref.STRAIGHT) | (1 << ref.FLUSH)) == ref.FLUSH
    # Showdown: an elevated flush ties a natural full house's position and wins.
    flush = key("2h 5h 9h Jh Kh 3c 4d", elevated=1 << ref.FLUSH)
    full_house = key("Ac Ad Ah Ks Kc 3c 4d")
    assert flush > full_house
    assert key("2h 5h 9h Jh Kh 3c 4d") < full_house
    # Elevating the top category gives effective position -1.
    assert key("2c 2d 2h 2s 7c", wild_ranks=deuces(), elevated=1) == (1, 1, (7,))


def test_inversion_reads_column_bottom_up():
    # Inverted default column: High Card on top. K K K 7 7 Q 2 cannot make a
    # High Card (only four ranks), so it plays its best One Pair.
    hand = "Kc Kd Kh 7s 7c Qd 2h"
    assert cat(hand, inverted=True) == ref.ONE_PAIR
    assert key(hand, inverted=True) == (-1, 0, (13, 12, 7, 2))
    assert cat("As Kd 9h 5c 3s 2d 2h", inverted=True) == ref.HIGH_CARD
    assert key("As Kd 9h 5c 3s 2d 2h", inverted=True)[2] == (14, 13, 9, 5, 3)
    # Inversion of a moved column equals the default of the reversed order.
    column = column_above(ref.TWO_PAIR, ref.FULL_HOUSE)
    for hand in ("Kc Kd Kh 7s 7c Qd 2h", "5h 6h 7h 8h 9c Kh 2d", "As Kd 9h 5c 3s 2d 2h"):
        assert key(hand, column, inverted=True) == key(hand, column[::-1])
    # Elevation still moves one step toward the reading's top: an elevated
    # pair ties high card's effective position 0 and wins.
    pair = key(hand := "Kc Kd Kh 7s 7c Qd 2h", inverted=True, elevated=1 << ref.ONE_PAIR)
    high = key("As Kd 9h 5c 3s 2d 2h", inverted=True)
    assert cat(hand, inverted=True, elevated=1 << ref.ONE_PAIR) == ref.ONE_PAIR
    assert pair == (0, 1, (13, 12, 7, 2)) and pair > high


def test_padding_and_bad_input():
    assert key("As Kd 9h 5c 3s") == ref.best_key(codes("As Kd 9h 5c 3s") + [-1, -1, -1])
    with pytest.raises(ValueError):
        ref.best_key([0, 1, 2, 3])
    with pytest.raises(ValueError):
        ref.best_key([0, 1, 2, 3, 52])
    with pytest.raises(ValueError):
        ref.best_key([0, 1, 2, 3, 4], [0] * 13)
    with pytest.raises(ValueError):
        ref.best_key([0, 1, 2, 3, 4], wild_ranks=8192)


def test_oracle_agrees_with_phevaluator_on_random_seven_card_hands():
    """Default column, one deck, no wilds: same category and same order."""
    from phevaluator import evaluate_cards

    rng = random.Random(7)
    hands = [rng.sample(range(52), 7) for _ in range(1500)]
    ours = [ref.best_key(h) for h in hands]
    theirs = [evaluate_cards(*(ref.text(c) for c in h)) for h in hands]  # lower wins
    for h, r in zip(hands, theirs, strict=True):
        assert ref.best_category(h) == phevaluator_category(r), [ref.text(c) for c in h]
    order_ours = sorted(range(len(hands)), key=lambda i: ours[i])
    for i, j in pairwise(order_ours):
        assert (ours[i] < ours[j]) == (theirs[i] > theirs[j])
        assert (ours[i] == ours[j]) == (theirs[i] == theirs[j])


def phevaluator_category(rank: int) -> int:
    """Our category of a phevaluator rank (1 = royal flush ... 7462)."""
    bounds = [(1, ref.ROYAL_FLUSH), (10, ref.STRAIGHT_FLUSH), (166, ref.FOUR_OF_A_KIND),
              (322, ref.FULL_HOUSE), (1599, ref.FLUSH), (1609, ref.STRAIGHT),
              (2467, ref.THREE_OF_A_KIND), (3325, ref.TWO_PAIR), (6185, ref.ONE_PAIR),
              (7462, ref.HIGH_CARD)]
    for upper, category in bounds:
        if rank <= upper:
            return category
    raise ValueError(rank)


# -- Ordered Hand blocks ------------------------------------------------------------
@pytest.mark.parametrize(
    "block, expected",
    [
        ("Ah", (ref.HIGH_CARD, (14,))),
        ("7c 7d", (ref.ONE_PAIR, (7,))),
        ("7c 8d", (-1, ())),
        ("7c 7d 7h", (ref.THREE_OF_A_KIND, (7,))),
        ("7c 7d 8h", (-1, ())),
        ("7c 7d 8h 8c", (ref.TWO_PAIR, (8, 7))),
        ("7c 7d 7h 7s", (ref.FOUR_OF_A_KIND, (7,))),
        ("7c 7d 7h 8s", (-1, ())),
        ("7c 8d 9h Ts Jc", (ref.STRAIGHT, (11,))),
        ("Ac 2d 3h 4s 5c", (ref.STRAIGHT, (5,))),
        ("2c 8c 9c Tc Jc", (ref.FLUSH, (11, 10, 9, 8, 2))),
        ("Tc Td Th 2s 2c", (ref.FULL_HOUSE, (10, 2))),
        ("9d Td Jd Qd Kd", (ref.STRAIGHT_FLUSH, (13,))),
        ("Td Jd Qd Kd Ad", (ref.ROYAL_FLUSH, ())),
        ("Tc Td Th 2s 3c", (-1, ())),  # trips + two cards is no five-card play
        ("Tc Td Th Ts 3c", (-1, ())),  # quads are a four-card play
        ("2c 4d 6h 8s Tc", (-1, ())),
        ("2c 4d 6h 8s Tc 9d", (-1, ())),
    ],
)
def test_classify_block_examples(block, expected):
    assert ref.classify_block(codes(block)) == expected


def literal_options(cards, wild_ranks):
    """The definition, unreduced: every 5-subset, every wild as each of 52 cards."""
    from itertools import combinations, product

    best = {}
    for five in combinations(cards, 5):
        choices = [range(52) if ref.is_wild(c, wild_ranks) else (c,) for c in five]
        for values in product(*choices):
            c, tb = ref.classify_codes(values)
            if c not in best or tb > best[c]:
                best[c] = tb
    return best


def test_wild_reduction_equals_literal_enumeration():
    """The rank-multiset + one-suit reduction in ``_options`` loses nothing."""
    rng = random.Random(11)
    deck = list(range(52)) * 2
    n_checked = 0
    while n_checked < 120:
        n = rng.choice((5, 6))
        hand = rng.sample(deck, n)
        wild_ranks = rng.randrange(8192) & rng.randrange(8192) & rng.randrange(8192)
        n_wild = sum(ref.is_wild(c, wild_ranks) for c in hand)
        if n_wild > 2:
            continue
        assert ref.category_options(hand, wild_ranks) == literal_options(hand, wild_ranks)
        n_checked += 1
