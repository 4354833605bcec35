"""The fast evaluator against outside truth: textbook counts, phevaluator, and
the slow oracle in tests/reference.py (SPEC sections 1, 2 and 9).

Scores are only compared by order: a score is meaningful against another
score computed with the same column and inversion flag, so every check is
"these hands order exactly as the oracle (or phevaluator) orders them", with
equal meaning a split.
"""

from __future__ import annotations

import importlib.util
import random
from itertools import chain, combinations, pairwise
from pathlib import Path

import numpy as np
import pytest
import reference as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nop_sim import (
    Category,
    Column,
    best_category,
    best_hand,
    classify_block,
    evaluate,
    profile,
)
from nop_sim.core.cards import format_cards, make_deck
from nop_sim.core.column import DEFAULT_COLUMN

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = tuple(range(13))
DEUCES = 1

FIVE_CARD_COUNTS = {
    Category.ROYAL_FLUSH: 4, Category.STRAIGHT_FLUSH: 36, Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3_744, Category.FLUSH: 5_108, Category.STRAIGHT: 10_200,
    Category.THREE_OF_A_KIND: 54_912, Category.TWO_PAIR: 123_552,
    Category.ONE_PAIR: 1_098_240, Category.HIGH_CARD: 1_302_540,
}
SEVEN_CARD_COUNTS = {
    Category.ROYAL_FLUSH: 4_324, Category.STRAIGHT_FLUSH: 37_260,
    Category.FOUR_OF_A_KIND: 224_848, Category.FULL_HOUSE: 3_473_184,
    Category.FLUSH: 4_047_644, Category.STRAIGHT: 6_180_020,
    Category.THREE_OF_A_KIND: 6_461_620, Category.TWO_PAIR: 31_433_400,
    Category.ONE_PAIR: 58_627_800, Category.HIGH_CARD: 23_294_460,
}


@pytest.fixture(scope="session", autouse=True)
def compiled():
    """Compile every entry point once, before any timed or hypothesis test."""
    hand = np.array([[0, 5, 10, 15, 20, 25, 30, -1]], dtype=np.int8)
    evaluate(hand)
    evaluate(hand, parallel=True)
    best_category(hand)
    best_category(hand, parallel=True)
    evaluate(hand[0])
    best_hand(hand[0])
    profile(hand)
    classify_block(hand[0, :2])
    return True


# -- helpers ---------------------------------------------------------------------
def describe(cards) -> str:
    return f"[{format_cards(cards)}] {np.asarray(cards).tolist()}"


def assert_same_order(scores, keys, context=lambda i: str(i)):
    """``scores`` order the items exactly as the comparable ``keys`` do.

    Items are sorted by key; neighbours with equal keys must have equal scores
    and neighbours with increasing keys strictly increasing scores. That is
    the whole order, ties included, in n log n.
    """
    scores = np.asarray(scores)
    order = sorted(range(len(keys)), key=keys.__getitem__)
    for a, b in pairwise(order):
        if keys[a] == keys[b]:
            ok = scores[a] == scores[b]
        else:
            ok = scores[a] < scores[b]
        if not ok:
            raise AssertionError(
                f"order differs from the reference:\n"
                f"  {context(a)}: reference {keys[a]}, score {scores[a]}\n"
                f"  {context(b)}: reference {keys[b]}, score {scores[b]}"
            )


def assert_same_order_numeric(ours, theirs_higher_better, hands):
    """Vectorised :func:`assert_same_order` when the reference is numeric."""
    ours = np.asarray(ours)
    theirs = np.asarray(theirs_higher_better)
    order = np.argsort(theirs, kind="stable")
    t, o = theirs[order], ours[order]
    equal = t[1:] == t[:-1]
    ok = np.where(equal, o[1:] == o[:-1], o[1:] > o[:-1])
    if not ok.all():
        j = int(np.flatnonzero(~ok)[0])
        a, b = order[j], order[j + 1]
        raise AssertionError(
            f"order differs from phevaluator:\n  {describe(hands[a])}: ours {ours[a]} "
            f"theirs {theirs[a]}\n  {describe(hands[b])}: ours {ours[b]} theirs {theirs[b]}"
        )


def random_hands(rng: np.random.Generator, n: int, n_cards: int, decks: int = 1) -> np.ndarray:
    """``n`` hands of ``n_cards`` distinct deck positions (duplicates only across decks)."""
    deck = make_deck(decks)
    out = np.empty((n, n_cards), dtype=np.int8)
    for start in range(0, n, 50_000):
        m = min(50_000, n - start)
        idx = rng.random((m, deck.size)).argpartition(n_cards, axis=1)[:, :n_cards]
        out[start:start + m] = deck[idx]
    return out


def padded_hands(rng, n, decks, max_cards=8):
    """Hands of 5..``max_cards`` real cards, -1 padding at random places."""
    hands = random_hands(rng, n, max_cards, decks)
    n_real = rng.integers(5, max_cards + 1, size=n)
    hands[np.arange(max_cards)[None, :] >= n_real[:, None]] = -1
    return rng.permuted(hands, axis=1)


def phevaluator_ranks(hands: np.ndarray) -> np.ndarray:
    """phevaluator ranks (1 = royal flush, lower is better) of 5..7-card hands.

    phevaluator numbers cards its own way; map ours to theirs through text.
    """
    from phevaluator import Card, _pheval

    to_theirs = [Card(format_cards([c])).id_ for c in range(52)]
    fn = {5: _pheval.evaluate_5cards, 6: _pheval.evaluate_6cards,
          7: _pheval.evaluate_7cards}[hands.shape[1]]
    mapped = np.asarray(to_theirs, dtype=np.int64)[hands].tolist()
    return np.fromiter((fn(*h) for h in mapped), dtype=np.int64, count=len(mapped))


def phevaluator_category(ranks: np.ndarray) -> np.ndarray:
    """Our category id of each phevaluator rank (its ten rank bands)."""
    uppers = np.array([1, 10, 166, 322, 1599, 1609, 2467, 3325, 6185, 7462])
    cats = np.array([3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    return cats[np.searchsorted(uppers, ranks)]


# -- (a) all five-card hands ----------------------------------------------------------
@pytest.fixture(scope="module")
def all_five_card_hands() -> np.ndarray:
    flat = chain.from_iterable(combinations(range(52), 5))
    return np.fromiter(flat, dtype=np.int8, count=2_598_960 * 5).reshape(-1, 5)


def test_all_five_card_hands_category_counts(all_five_card_hands):
    cats = best_category(all_five_card_hands)
    assert cats.shape == (2_598_960,)
    counts = np.bincount(cats, minlength=13)
    expected = np.zeros(13, dtype=np.int64)
    for c, n in FIVE_CARD_COUNTS.items():
        expected[c] = n
    assert counts.tolist() == expected.tolist()


def test_all_five_card_hands_order_as_phevaluator(all_five_card_hands):
    hands = all_five_card_hands
    scores = evaluate(hands)
    assert scores.dtype == np.int64 and scores.shape == (len(hands),)
    theirs = phevaluator_ranks(hands)
    assert_same_order_numeric(scores, -theirs, hands)
    assert len(np.unique(scores)) == 7462
    assert (best_category(hands) == phevaluator_category(theirs)).all()


# -- (b) random seven-card hands vs phevaluator ------------------------------------------
def check_seven_card_hands_vs_phevaluator(n_hands: int, seed: int):
    rng = np.random.default_rng(seed)
    hands = random_hands(rng, n_hands, 7)
    scores = evaluate(hands)
    theirs = phevaluator_ranks(hands)
    # Random pairs, as a showdown would compare them ...
    other = rng.permutation(n_hands)
    same_sign = np.sign(scores - scores[other]) == np.sign(theirs[other] - theirs)
    assert same_sign.all(), describe(hands[np.flatnonzero(~same_sign)[0]])
    # ... and the whole order, ties included.
    assert_same_order_numeric(scores, -theirs, hands)
    cats = best_category(hands)
    wrong = np.flatnonzero(cats != phevaluator_category(theirs))
    assert wrong.size == 0, describe(hands[wrong[0]])


def test_seven_card_hands_order_as_phevaluator():
    check_seven_card_hands_vs_phevaluator(1_000_000, seed=1)


def test_six_card_hands_order_as_phevaluator():
    rng = np.random.default_rng(6)
    hands = random_hands(rng, 200_000, 6)
    assert_same_order_numeric(evaluate(hands), -phevaluator_ranks(hands), hands)


@pytest.mark.slow
def test_seven_card_hands_order_as_phevaluator_more():
    for seed in range(2, 12):
        check_seven_card_hands_vs_phevaluator(1_000_000, seed=seed)


# -- (c) random cases vs the oracle ----------------------------------------------------------
def random_wild_masks(rng, n):
    """Mostly no wilds or deuces wild, else sparse or uniform random rank masks."""
    kind = rng.integers(0, 5, size=n)
    sparse = (rng.random((n, 13)) < 0.15) @ (1 << np.arange(13))
    uniform = rng.integers(0, 8192, size=n)
    return np.select([kind == 0, kind == 1, kind == 2, kind == 3], [0, DEUCES, sparse, uniform],
                     default=DEUCES | (1 << 12)).astype(np.int64)


def random_elevated_masks(rng, n):
    kind = rng.integers(0, 3, size=n)
    single = 1 << rng.integers(0, 13, size=n)
    uniform = rng.integers(0, 8192, size=n)
    return np.select([kind == 0, kind == 1], [0, single], default=uniform).astype(np.int64)


def four_deuces_hands(rng, n, decks, width=8):
    """All four 2s plus 1..``width - 4`` other cards (deuces wild: Flush Fives).

    ``decks`` is accepted for symmetry; one copy of each card always fits.
    """
    hands = np.full((n, width), -1, dtype=np.int8)
    hands[:, :4] = [0, 1, 2, 3]
    n_slots = width - 4
    others = rng.random((n, 48)).argpartition(n_slots, axis=1)[:, :n_slots] + 4  # non-deuces
    n_other = rng.integers(1, n_slots + 1, size=n)
    others[np.arange(n_slots)[None, :] >= n_other[:, None]] = -1
    hands[:, 4:] = others
    return rng.permuted(hands, axis=1)


def oracle_batch(seed: int, n: int):
    """One batch of hands that share a column, inversion flag, deck count and width
    (5..8 columns, -1 padding anywhere); wild and elevation masks are per hand."""
    rng = np.random.default_rng(seed)
    decks = int(rng.choice([1, 2, 1, 2, 3, 4]))
    column = np.arange(13) if seed % 7 == 0 else rng.permutation(13)
    inverted = bool(rng.integers(0, 2))
    hands = padded_hands(rng, n, decks, max_cards=int(rng.integers(5, 9)))
    wild = random_wild_masks(rng, n)
    elevated = random_elevated_masks(rng, n)
    n_deuces = n // 10
    hands[:n_deuces] = four_deuces_hands(rng, n_deuces, decks, hands.shape[1])
    wild[:n_deuces] = DEUCES
    return hands, column, inverted, decks, wild, elevated


def check_against_oracle(seed: int, n: int):
    hands, column, inverted, decks, wild, elevated = oracle_batch(seed, n)
    # Half the batches pass a Column, half a plain array.
    col_arg = Column(column) if seed % 2 else column.astype(np.int64)
    kw = dict(wild_ranks=wild, elevated=elevated, inverted=inverted, decks=decks)
    scores = evaluate(hands, col_arg, **kw)
    cats = best_category(hands, col_arg, **kw)
    keys, ref_cats = [], []
    for h, w, e in zip(hands.tolist(), wild.tolist(), elevated.tolist(), strict=True):
        k, c = ref._best(h, column.tolist(), w, e, inverted)
        keys.append(k)
        ref_cats.append(c)

    def context(i):
        return (f"{describe(hands[i])} column={column.tolist()} inverted={inverted} "
                f"decks={decks} wild_ranks={wild[i]} elevated={elevated[i]}")

    wrong = np.flatnonzero(cats != np.array(ref_cats))
    assert wrong.size == 0, (
        f"best_category {cats[wrong[0]]}, reference {ref_cats[wrong[0]]}: {context(wrong[0])}")
    assert_same_order(scores, keys, context)


def test_against_oracle_random_cases():
    """40 batches x 500 = 20,000 hands, each batch its own column and settings."""
    for seed in range(40):
        check_against_oracle(seed, 500)


@pytest.mark.slow
def test_against_oracle_many_random_cases():
    for seed in range(1000, 1100):
        check_against_oracle(seed, 2000)


@pytest.mark.parametrize("decks", [1, 2])
def test_four_deuces_wild_make_flush_five(decks):
    rng = np.random.default_rng(decks)
    hands = four_deuces_hands(rng, 300, decks)
    cats = best_category(hands, wild_ranks=DEUCES, decks=decks)
    assert (cats == Category.FLUSH_FIVE).all()
    # Flush Five of the best natural rank; a higher one wins.
    scores = evaluate(hands, wild_ranks=DEUCES, decks=decks)
    keys = [ref.best_key(h, DEFAULT, DEUCES) for h in hands.tolist()]
    assert_same_order(scores, keys, lambda i: describe(hands[i]))


def test_spec_example_two_pair_above_full_house():
    hand = ref.codes("Kc Kd Kh 7s 7c Qd 2h")
    moved = Column.parse("Two Pair>Full House")
    assert best_category(np.array([hand], dtype=np.int8))[0] == Category.FULL_HOUSE
    assert best_category(np.array([hand], dtype=np.int8), moved)[0] == Category.TWO_PAIR
    played = best_hand(np.array(hand, dtype=np.int8), moved)
    assert played.category == Category.TWO_PAIR
    assert ref.classify_codes(played.values.tolist()) == (ref.TWO_PAIR, (13, 7, 12))


def test_column_forms_agree():
    rng = np.random.default_rng(5)
    hands = padded_hands(rng, 300, 1)
    perm = rng.permutation(13)
    base = evaluate(hands, Column(perm))
    for form in (perm.astype(np.int8), perm.astype(np.int64), perm.tolist(),
                 Column(perm).to_array()):
        assert (evaluate(hands, form) == base).all()
    assert (evaluate(hands) == evaluate(hands, DEFAULT_COLUMN)).all()


def test_reading_order_is_the_levels_sorted():
    """reading_lift's counting sort == the obvious 13 x 13 selection of the highest level."""
    from nop_sim.kernels.evaluate import _lv, reading_lift

    rng = np.random.default_rng(11)
    for k in range(2000):
        column_pos = rng.permutation(13).astype(np.int8)
        elevated = int(rng.integers(0, 1 << 13)) if k % 2 else int(1 << rng.integers(13))
        lv_a, lv_b, order = reading_lift(column_pos, bool(k % 3 == 0), elevated,
                                         int(rng.integers(0, 3)))
        placed = expected = 0
        for i in range(13):
            best_cat = max((c for c in range(13) if not (placed >> c) & 1),
                           key=lambda c: _lv(lv_a, lv_b, c))
            placed |= 1 << best_cat
            expected |= best_cat << (4 * i)
        assert order == expected


def test_scalar_and_per_hand_masks_agree():
    rng = np.random.default_rng(8)
    hands = padded_hands(rng, 300, 1)
    for wild, elevated in ((DEUCES, 0), (0, 1 << 10), (4097, 8191)):
        a = evaluate(hands, wild_ranks=wild, elevated=elevated)
        b = evaluate(hands, wild_ranks=np.full(300, wild), elevated=np.full(300, elevated))
        assert (a == b).all()


# -- (d) best_hand -------------------------------------------------------------------
def test_best_hand_is_a_played_five_of_the_hand():
    rng = np.random.default_rng(13)
    n_checked = 0
    for seed in range(6):
        hands, column, inverted, decks, wild, elevated = oracle_batch(100 + seed, 300)
        scores = evaluate(hands, column, wild_ranks=wild, elevated=elevated,
                          inverted=inverted, decks=decks)
        for i in rng.permutation(len(hands))[:200]:
            hand, w, e = hands[i], int(wild[i]), int(elevated[i])
            played = best_hand(hand, column, wild_ranks=w, elevated=e, inverted=inverted,
                               decks=decks)
            where = f"{describe(hand)} column={column.tolist()} wild={w} elevated={e} inv={inverted}"
            cards, values = np.asarray(played.cards), np.asarray(played.values)
            assert cards.dtype == np.int8 and cards.shape == (5,), where
            assert values.dtype == np.int8 and values.shape == (5,), where
            # The cards are the player's own: a sub-multiset of the real cards.
            have = np.bincount(hand[hand >= 0], minlength=52)
            used = np.bincount(cards, minlength=52)
            assert (used <= have).all(), where
            # Only wild cards may stand for something else.
            for c, v in zip(cards.tolist(), values.tolist(), strict=True):
                assert 0 <= v <= 51, where
                assert c == v or ref.is_wild(c, w), where
            # The values make the reported category, and it is the best hand.
            cat, tb = ref.classify_codes(values.tolist())
            assert played.category == cat and isinstance(played.category, Category), where
            assert bool(played.elevated) == bool((e >> cat) & 1), where
            positions = ref.positions_of(column.tolist(), inverted)
            assert ref.category_key(cat, tb, positions, e) == \
                ref.best_key(hand.tolist(), column.tolist(), w, e, inverted), where
            assert played.score == scores[i], where
            assert played.score == evaluate(hand, column, wild_ranks=w, elevated=e,
                                            inverted=inverted, decks=decks), where
            n_checked += 1
    assert n_checked == 1200


# -- (e) profile ----------------------------------------------------------------------------
def test_profile_against_oracle():
    rng = np.random.default_rng(17)
    for decks in (1, 2):
        n = 1500
        hands = padded_hands(rng, n, decks)
        wild = random_wild_masks(rng, n)
        prof = profile(hands, wild_ranks=wild, decks=decks)
        assert prof.shape == (n, 13) and prof.dtype == np.int64
        options = [ref.category_options(h, w)
                   for h, w in zip(hands.tolist(), wild.tolist(), strict=True)]
        for i, opts in enumerate(options):
            can = [c in opts for c in range(13)]
            assert ((prof[i] >= 0) == np.array(can)).all(), (
                f"{describe(hands[i])} wild={wild[i]}: profile {prof[i].tolist()}, "
                f"reference categories {sorted(opts)}")
            assert (prof[i][~np.array(can)] == -1).all()
        for c in range(13):
            rows = [i for i, o in enumerate(options) if c in o]
            assert_same_order(prof[rows, c], [options[i][c] for i in rows],
                              lambda j, rows=rows, c=c, hands=hands, wild=wild:
                              f"category {c}: {describe(hands[rows[j]])} wild={wild[rows[j]]}")


def test_profile_scalar_mask_and_deuces():
    hands = np.array([ref.codes("2c 2d 2h 2s 7c 9d Kh")], dtype=np.int8)
    prof = profile(hands, wild_ranks=DEUCES)
    assert (prof[0] >= 0).all()  # four wilds and anything else: every category
    prof = profile(hands)
    assert prof[0, Category.FOUR_OF_A_KIND] >= 0 and prof[0, Category.FLUSH] == -1


# -- (f) classify_block -------------------------------------------------------------------------
def check_blocks(blocks):
    expected = [ref.classify_block(b) for b in blocks]
    got = [classify_block(np.array(b, dtype=np.int8)) for b in blocks]
    cats = np.array([int(g[0]) for g in got])
    ref_cats = np.array([e[0] for e in expected])
    wrong = np.flatnonzero(cats != ref_cats)
    assert wrong.size == 0, (
        f"{describe(blocks[wrong[0]])}: classify_block {got[wrong[0]]}, "
        f"reference {expected[wrong[0]]}")
    for c in set(ref_cats.tolist()) - {-1}:
        rows = np.flatnonzero(ref_cats == c)
        assert_same_order([int(got[i][1]) for i in rows], [expected[i][1] for i in rows],
                          lambda j, rows=rows: describe(blocks[rows[j]]))


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_classify_block_exhaustive_small(size):
    rng = random.Random(size)
    blocks = []
    for combo in combinations(range(52), size):
        block = list(combo)
        rng.shuffle(block)  # a block is a sequence; order must not matter here
        blocks.append(block)
    check_blocks(blocks)


def test_classify_block_random_five_and_longer():
    rng = np.random.default_rng(19)
    blocks = random_hands(rng, 20_000, 5).tolist()
    # Make the rarer plays common enough to be tested: straights, flushes, full houses.
    for _ in range(3000):
        top = int(rng.integers(5, 15))
        ranks = [14 if r == 1 else r for r in range(top - 4, top + 1)]
        suits = rng.integers(0, 4, size=5) if rng.random() < 0.5 else [int(rng.integers(4))] * 5
        blocks.append([4 * (r - 2) + int(s) for r, s in zip(ranks, suits, strict=True)])
        suit = int(rng.integers(4))
        blocks.append((4 * rng.choice(13, 5, replace=False) + suit).tolist())
        a, b = rng.choice(13, 2, replace=False)
        blocks.append([4 * a + s for s in rng.choice(4, 3, replace=False)]
                      + [4 * b + s for s in rng.choice(4, 2, replace=False)])
    check_blocks(blocks)


def test_classify_block_rejects_or_refuses_longer_blocks():
    """Six or more cards are never a play: -1, or a ValueError naming the length."""
    rng = np.random.default_rng(20)
    for block in random_hands(rng, 200, 6).tolist() + random_hands(rng, 200, 7).tolist():
        try:
            result = classify_block(np.array(block, dtype=np.int8))
        except ValueError as err:
            assert str(len(block)) in str(err)
        else:
            assert int(result[0]) == -1, (describe(block), result)


def test_public_api():
    import nop_sim

    for name in ("evaluate", "best_category", "best_hand", "profile", "classify_block"):
        assert hasattr(nop_sim, name), f"nop_sim.{name} is not exported"


# -- (g) bad input ---------------------------------------------------------------------------------
GOOD = np.array([[0, 5, 10, 15, 20, 25, 30]], dtype=np.int8)


@pytest.mark.parametrize("fn", [evaluate, best_category])
@pytest.mark.parametrize(
    "cards, kwargs, pattern",
    [
        ([[0, 5, 10, 15, 52, -1, -1]], {}, r"52"),
        ([[0, 5, 10, 15, -3, 30, 31]], {}, r"-3"),
        ([[0, 5, 10, 15, -1, -1, -1]], {}, r"4"),
        ([[0, 0, 10, 15, 20, 25, 30]], {}, r"2c|copies|decks"),
        ([[7, 7, 7, 15, 20, 25, 30]], {"decks": 2}, r"3|copies|decks"),
        ([[0, 5, 10, 15, 20, 25, 30, 35, 40]], {}, r"9|8"),
        (GOOD, {"wild_ranks": 8192}, r"8192"),
        (GOOD, {"wild_ranks": -1}, r"-1"),
        (GOOD, {"elevated": 8192}, r"8192"),
        (GOOD, {"elevated": np.array([-5])}, r"-5"),
        (GOOD, {"column": [0] * 13}, r"permutation"),
        (GOOD, {"column": list(range(12))}, r"permutation|13"),
        (GOOD, {"column": list(range(1, 14))}, r"permutation|13"),
    ],
)
def test_bad_input_raises_value_error(fn, cards, kwargs, pattern):
    kwargs = dict(kwargs)
    column = kwargs.pop("column", DEFAULT_COLUMN)
    with pytest.raises(ValueError, match=pattern):
        fn(np.asarray(cards, dtype=np.int8), column, **kwargs)


def test_bad_input_single_hand_best_hand_profile():
    with pytest.raises(ValueError, match="52"):
        evaluate(np.array([0, 5, 10, 15, 52], dtype=np.int8))
    with pytest.raises(ValueError, match="4"):
        best_hand(np.array([0, 5, 10, 15, -1], dtype=np.int8))
    with pytest.raises(ValueError, match="2c|copies|decks"):
        best_hand(np.array([0, 0, 10, 15, 20], dtype=np.int8))
    with pytest.raises(ValueError, match="8192"):
        best_hand(GOOD[0], wild_ranks=8192)
    with pytest.raises(ValueError, match="permutation"):
        best_hand(GOOD[0], [1] * 13)
    with pytest.raises(ValueError, match="8192"):
        profile(GOOD, wild_ranks=8192)
    with pytest.raises(ValueError, match="52"):
        profile(np.array([[0, 5, 10, 15, 52]], dtype=np.int8))


def test_a_code_that_int8_would_wrap_is_still_named():
    with pytest.raises(ValueError, match="300"):
        evaluate(np.array([[0, 5, 10, 15, 300, 25, 30]], dtype=np.int64))
    ok = np.array([[0, 5, 10, 15, 20, 25, 30]])
    assert evaluate(ok.astype(np.int64)) == evaluate(ok.astype(np.int8))[0]


def test_a_valid_batch_is_checked_by_the_compiled_pass_alone(monkeypatch):
    """numpy's validate_cards cost several times the scoring: only a bad batch reaches it."""
    import nop_sim.evaluator as ev

    def numpy_checks(*args, **kwargs):
        raise AssertionError("validate_cards ran on a valid batch")

    monkeypatch.setattr(ev, "validate_cards", numpy_checks)
    hands = random_hands(np.random.default_rng(3), 1000, 7, decks=2)
    evaluate(hands, decks=2)
    best_category(hands, decks=2)
    profile(hands, decks=2)


@pytest.mark.parametrize("decks", [1, 2, 3])
def test_compiled_checks_agree_with_validate_cards(decks):
    """Random batches, some with one fault (bad code, short hand, a card too often)."""
    from nop_sim.core.cards import validate_cards
    from nop_sim.kernels.evaluate import hands_are_valid

    rng = np.random.default_rng(decks)
    for trial in range(300):
        k = int(rng.integers(5, 9))
        hands = padded_hands(rng, 4, decks, max_cards=k)
        i, j = int(rng.integers(4)), int(rng.integers(k))
        fault = trial % 4
        if fault == 1:
            hands[i, j] = rng.choice([-2, -128, 52, 127])
        elif fault == 2:
            hands[i, j] = -1
        elif fault == 3:
            hands[i, :] = np.where(hands[i] >= 0, hands[i, np.argmax(hands[i] >= 0)], -1)
        try:
            validate_cards(hands, decks=decks, min_cards=5)
            expected = True
        except ValueError:
            expected = False
        assert hands_are_valid(hands, decks, 5) == expected, (hands.tolist(), decks)


# -- (h) properties ------------------------------------------------------------------------------
@st.composite
def scenarios(draw, max_hands=12):
    """A batch of hands with shared column/inversion/decks and per-hand masks."""
    decks = draw(st.sampled_from([1, 2]))
    n = draw(st.integers(1, max_hands))
    k = draw(st.integers(5, 8))
    deck = list(range(52)) * decks
    hands = []
    for _ in range(n):
        n_real = draw(st.integers(5, k))
        picks = draw(st.lists(st.integers(0, len(deck) - 1), min_size=n_real,
                              max_size=n_real, unique=True))
        hands.append([deck[p] for p in picks] + [-1] * (k - n_real))
    masks = st.one_of(st.just(0), st.just(DEUCES), st.integers(0, 8191))
    wild = draw(st.lists(masks, min_size=n, max_size=n))
    elevated = draw(st.lists(st.one_of(st.just(0), st.integers(0, 8191)), min_size=n,
                             max_size=n))
    return dict(
        cards=np.array(hands, dtype=np.int8),
        column=np.array(draw(st.permutations(range(13))), dtype=np.int64),
        wild_ranks=np.array(wild, dtype=np.int64),
        elevated=np.array(elevated, dtype=np.int64),
        inverted=draw(st.booleans()),
        decks=decks,
    )


def call(fn, sc, cards=None, **over):
    kw = {k: v for k, v in sc.items() if k not in ("cards", "column")}
    kw.update(over)
    return fn(sc["cards"] if cards is None else cards, sc["column"], **kw)


PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@PROPERTY
@given(sc=scenarios(), perm=st.permutations(range(4)))
def test_relabelling_suits_changes_no_score(sc, perm):
    cards = sc["cards"]
    relabelled = np.where(cards >= 0, cards // 4 * 4 + np.array(perm)[cards % 4], -1)
    assert (call(evaluate, sc) == call(evaluate, sc, relabelled.astype(np.int8))).all()


@PROPERTY
@given(sc=scenarios(), seed=st.integers(0, 2**32 - 1))
def test_card_order_changes_no_score(sc, seed):
    shuffled = np.random.default_rng(seed).permuted(sc["cards"], axis=1)
    assert (call(evaluate, sc) == call(evaluate, sc, shuffled)).all()
    assert (call(best_category, sc) == call(best_category, sc, shuffled)).all()


@PROPERTY
@given(sc=scenarios())
def test_batch_equals_one_at_a_time(sc):
    batch = call(evaluate, sc)
    cats = call(best_category, sc)
    assert batch.dtype == np.int64
    for i, hand in enumerate(sc["cards"]):
        one = evaluate(hand, sc["column"], wild_ranks=int(sc["wild_ranks"][i]),
                       elevated=int(sc["elevated"][i]), inverted=sc["inverted"],
                       decks=sc["decks"])
        assert np.ndim(one) == 0 and int(one) == batch[i]
        row = call(evaluate, sc, sc["cards"][i:i + 1], wild_ranks=sc["wild_ranks"][i:i + 1],
                   elevated=sc["elevated"][i:i + 1])
        assert row.shape == (1,) and row[0] == batch[i]
        c = best_category(hand, sc["column"], wild_ranks=int(sc["wild_ranks"][i]),
                          elevated=int(sc["elevated"][i]), inverted=sc["inverted"],
                          decks=sc["decks"])
        assert int(c) == cats[i]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sc=scenarios(max_hands=40))
def test_parallel_equals_serial(sc):
    assert (call(evaluate, sc, parallel=True) == call(evaluate, sc)).all()
    assert (call(best_category, sc, parallel=True) == call(best_category, sc)).all()


def test_parallel_equals_serial_large_batch():
    rng = np.random.default_rng(23)
    hands = padded_hands(rng, 100_000, 2)
    wild = random_wild_masks(rng, len(hands))
    elevated = random_elevated_masks(rng, len(hands))
    column = Column(rng.permutation(13))
    kw = dict(wild_ranks=wild, elevated=elevated, inverted=True, decks=2)
    assert (evaluate(hands, column, parallel=True, **kw) == evaluate(hands, column, **kw)).all()


# -- all seven-card hands ---------------------------------------------------------------------
def load_count_script():
    path = ROOT / "scripts" / "count_seven_card_categories.py"
    spec = importlib.util.spec_from_file_location("count_seven_card_categories", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_seven_card_enumeration_small_deck():
    """The script's enumerator on a tiny range: every 7-subset once, in order."""
    script = load_count_script()
    hands = np.concatenate([c.copy() for c in script.iter_hand_chunks(n_cards=10, chunk_size=50)])
    expected = np.array(list(combinations(range(10), 7)), dtype=np.int8)
    assert hands.tolist() == expected.tolist()


@pytest.mark.slow
def test_all_seven_card_hands_category_counts():
    script = load_count_script()
    result = script.count_categories(parallel=True)
    assert result["hands"] == 133_784_560
    assert result["counts"] == {c.label: n for c, n in SEVEN_CARD_COUNTS.items()}
    assert result["matches_textbook"]
