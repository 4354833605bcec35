"""The table path of the evaluator (kernels.evaltable) gives the exact path's scores.

Each table entry is checked against the exact kernel on a hand that reaches
it (every rank multiset, every suit mask); the rule that combines them on
suited hands against the exact kernel (hypothesis, with columns that put
High Card or Straight on top, where it needs the fallback), the plain-Python
oracle and phevaluator. Table scores must be bit-identical, not merely
ordered alike: evaluate() mixes both paths in one program.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import reference as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_evaluator import (
    assert_same_order,
    assert_same_order_numeric,
    load_count_script,
    phevaluator_ranks,
    random_hands,
)

from nop_sim import Category, Column, evaluate
from nop_sim import evaluator as ev
from nop_sim.core.cards import parse_cards, validate_cards
from nop_sim.kernels import evaltable as t
from nop_sim.kernels.evaluate import score_batch

ROOT = Path(__file__).resolve().parents[1]
NONE = np.zeros(1, np.int64)
HAND_SIZES = range(t.MIN_TABLE_CARDS, t.MAX_TABLE_CARDS + 1)


def column_with_on_top(*cats) -> np.ndarray:
    """The default column with ``cats`` moved to the top, in that order."""
    rest = [c for c in range(13) if c not in cats]
    return np.array([*cats, *rest], np.int64)


# readings that stress the suited rule: High Card or Straight above every flush category
HARD_COLUMNS = [column_with_on_top(Category.HIGH_CARD),
                column_with_on_top(Category.STRAIGHT),
                column_with_on_top(Category.STRAIGHT, Category.HIGH_CARD),
                column_with_on_top(Category.HIGH_CARD, Category.ONE_PAIR, Category.STRAIGHT)]


def readings(rng, n):
    """``n`` (column, inverted, elevated) triples: the default, the hard ones, random ones."""
    out = [(np.arange(13), False, 0)] + [(c, False, 0) for c in HARD_COLUMNS]
    while len(out) < n:
        out.append((rng.permutation(13), bool(rng.integers(2)),
                    int(rng.integers(8192)) if rng.random() < 0.5 else 0))
    return out[:n]


def exact_scores(hands, column, inverted=False, elevated=0) -> np.ndarray:
    out = np.empty(len(hands), np.int64)
    score_batch(hands, Column(column).positions(), inverted, NONE,
                np.array([elevated], np.int64), out)
    return out


@pytest.fixture
def tables_always(monkeypatch):
    """evaluate() takes the table path for every plain batch, however small."""
    monkeypatch.setattr(ev, "TABLE_MIN_HANDS", 1)


def coefficient(n: int) -> int:
    """Multisets of ``n`` of 13 ranks, at most four of each: [x^n] (1 + ... + x^4)^13."""
    return int(np.polynomial.polynomial.polypow(np.ones(5, np.int64), 13)[n])


def unsuited_hands(multisets: np.ndarray, n_cards: int) -> np.ndarray:
    """One hand per packed count mask, suits dealt round the ranks: no suit holds five."""
    counts = np.zeros((len(multisets), 13), np.int64)
    for k in range(4):
        counts += (multisets[:, None] >> (13 * k + np.arange(13))) & 1
    ranks = np.repeat(np.tile(np.arange(13), len(multisets)), counts.ravel())
    ranks = ranks.reshape(-1, n_cards)  # sorted by rank within a hand
    suits = np.arange(n_cards) % 4      # copies of a rank are neighbours: distinct suits
    return (4 * ranks + suits).astype(np.int8)


# -- the index and the tables, entry by entry -------------------------------------------------
@pytest.mark.parametrize("n_cards", HAND_SIZES)
def test_multiset_index_is_perfect(n_cards):
    base_hi, rank_lo, multisets = t.multiset_index(n_cards)
    assert len(multisets) == coefficient(n_cards) == len(np.unique(multisets))
    hands = unsuited_hands(multisets, n_cards).astype(np.int64)
    word = t.CARD_WORD[hands & 255].sum(axis=1)
    index = base_hi[(word >> t.HI_SHIFT) & t.HI_BITS] + rank_lo[word & ((1 << t.HI_SHIFT) - 1)]
    assert (index == np.arange(len(multisets))).all()


def test_multiset_index_refuses_other_sizes():
    with pytest.raises(ValueError, match="5..8 cards"):
        t.multiset_index(9)
    with pytest.raises(ValueError, match="n_cards 4"):
        ev.evaluation_tables(n_cards=4)


@pytest.mark.parametrize("n_cards", HAND_SIZES)
def test_every_multiset_entry_is_the_exact_score(n_cards):
    rng = np.random.default_rng(n_cards)
    _, _, multisets = t.multiset_index(n_cards)
    hands = unsuited_hands(multisets, n_cards)
    for column, inverted, elevated in readings(rng, 4):
        tables = ev.evaluation_tables(column, inverted=inverted, elevated=elevated,
                                      n_cards=n_cards)
        expected = exact_scores(hands, column, inverted, elevated)
        assert (tables.multiset_scores == expected).all()


def test_every_flush_entry_is_the_exact_score():
    """A hand all in one suit makes only suited fives: its score is the flush entry."""
    masks = np.array([m for m in range(1 << 13) if 5 <= m.bit_count() <= 8])
    hands = np.full((len(masks), 8), -1, np.int8)
    for i, m in enumerate(masks):
        ranks = [r for r in range(13) if m >> r & 1]
        hands[i, :len(ranks)] = [4 * r + 2 for r in ranks]
    rng = np.random.default_rng(1)
    for column, inverted, elevated in readings(rng, 6):
        tables = ev.evaluation_tables(column, inverted=inverted, elevated=elevated)
        assert (tables.flush_scores[masks] == exact_scores(hands, column, inverted,
                                                            elevated)).all()
        small = np.array([m for m in range(1 << 13) if m.bit_count() < 5])
        assert (tables.flush_scores[small] == -1).all()


# -- suited hands: the combining rule ------------------------------------------------------------
def suited_hands(rng, n, n_cards, n_suited=5):
    """Hands of ``n_cards`` with at least ``n_suited`` in one suit (random otherwise)."""
    out = np.empty((n, n_cards), np.int8)
    for i in range(n):
        suit = rng.integers(4)
        k = rng.integers(n_suited, n_cards + 1)
        same = rng.choice(13, k, replace=False) * 4 + suit
        others = np.setdiff1d(np.arange(52), np.arange(suit, 52, 4))
        out[i] = np.concatenate([same, rng.choice(others, n_cards - k, replace=False)])
    return rng.permuted(out, axis=1)


def plain_batch(rng, n):
    """Plain hands of one width with -1 padding in some: random, suited, near-straights."""
    n_cards = int(rng.integers(5, 9))
    hands = np.concatenate([random_hands(rng, n // 2, n_cards),
                            suited_hands(rng, n - n // 2, n_cards)])
    if n_cards > 5:
        hands[rng.random(n) < 0.1, 0] = -1  # padded rows take the exact path
    return rng.permuted(hands, axis=1)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), hard=st.sampled_from([None, *range(len(HARD_COLUMNS))]),
       inverted=st.booleans(), elevated=st.one_of(st.just(0), st.integers(0, 8191)),
       parallel=st.booleans())
def test_table_path_equals_exact_path(seed, hard, inverted, elevated, parallel):
    rng = np.random.default_rng(seed)
    column = rng.permutation(13) if hard is None else HARD_COLUMNS[hard]
    hands = plain_batch(rng, 200)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ev, "TABLE_MIN_HANDS", 1)
        ours = evaluate(hands, column, inverted=inverted, elevated=elevated, parallel=parallel)
    assert (ours == exact_scores(hands, column, inverted, elevated)).all()


@pytest.mark.parametrize(("column", "hand", "best"), [
    # High Card on top: the best five distinct ranks are all spades (a Flush); the best
    # High Card takes the off-suit 3 instead of the 9
    (HARD_COLUMNS[0], "As Ks Qs Js 9s 3d 2c", (Category.HIGH_CARD, "As Ks Qs Js 3d")),
    # Straight on top: the 9-high straight is all spades; the 8-high one is off-suit
    (HARD_COLUMNS[1], "9s 8s 7s 6s 5s 4d Kc", (Category.STRAIGHT, "8s 7s 6s 5s 4d")),
    # the suited five is not the only one of its ranks: the 9 of hearts breaks the suit
    (HARD_COLUMNS[0], "As Ks Qs Js 9s 9h 2c", (Category.HIGH_CARD, "As Ks Qs Js 9h")),
])
def test_the_suited_only_five_is_not_played(tables_always, column, hand, best):
    hands = np.array([parse_cards(hand)], np.int8)
    score = evaluate(hands, column)
    cat, five = best
    expected = evaluate(np.array([parse_cards(five)], np.int8), column)
    assert score[0] == expected[0] == exact_scores(hands, column)[0]
    assert ref.best_category(parse_cards(hand), column.tolist()) == cat


def test_plain_batches_against_the_oracle(tables_always):
    """30 batches x 150 hands, each with its own reading, against tests/reference.py."""
    rng = np.random.default_rng(77)
    for column, inverted, elevated in readings(rng, 30):
        hands = plain_batch(rng, 150)
        scores = evaluate(hands, column, inverted=inverted, elevated=elevated)
        keys = [ref.best_key(h, column.tolist(), 0, elevated, inverted) for h in hands.tolist()]
        def context(i, hands=hands, column=column):
            return f"{hands[i].tolist()} column={column.tolist()}"

        assert_same_order(scores, keys, context)


@pytest.mark.parametrize("n_cards", [5, 6, 7])
def test_default_column_orders_as_phevaluator(tables_always, n_cards):
    rng = np.random.default_rng(n_cards)
    hands = np.concatenate([random_hands(rng, 20_000, n_cards),
                            suited_hands(rng, 2_000, n_cards)])
    assert_same_order_numeric(evaluate(hands), -phevaluator_ranks(hands), hands)


# -- the public call --------------------------------------------------------------------------
def test_tables_are_kept_per_reading():
    a = ev.evaluation_tables(HARD_COLUMNS[0], n_cards=6)
    assert ev.evaluation_tables(Column(HARD_COLUMNS[0]), n_cards=6) is a
    assert ev.evaluation_tables(HARD_COLUMNS[0], n_cards=6, inverted=True) is not a
    assert ev.evaluation_tables(HARD_COLUMNS[0], n_cards=6, elevated=4) is not a
    for i in range(ev.TABLE_CACHE_SIZE + 2):  # the cache stays bounded
        ev.evaluation_tables(np.roll(np.arange(13), i), n_cards=5)
    assert len(ev._TABLES) <= ev.TABLE_CACHE_SIZE


def test_a_bad_hand_is_named_on_the_table_path(tables_always):
    hands = random_hands(np.random.default_rng(0), 50, 7)
    hands[31, 4] = hands[31, 2]
    with pytest.raises(ValueError, match="hand 31"):
        evaluate(hands)
    with pytest.raises(ValueError, match="hand 31"):
        evaluate(hands, parallel=True)


@pytest.mark.parametrize("k", HAND_SIZES)
def test_the_table_check_agrees_with_validate_cards(k):
    """Every fault the check reads from a card's byte and a mask of cards seen: each
    int8 code in each place, a card two to four times (card 51 three times carries
    past bit 52 in a sum of bits), padding repeated, one card short."""
    rng = np.random.default_rng(k)
    tables = ev.evaluation_tables(n_cards=k)
    out = np.empty(1, np.int64)
    base = random_hands(rng, 1, k)[0]
    cases = []
    for code in range(-128, 128):
        for j in (0, k - 1):
            hand = base.copy()
            hand[j] = code
            cases.append(hand)
    for card in (0, 3, 48, 51):
        for copies in (2, 3, 4):
            hand = base.copy()
            hand[:copies] = card
            cases.append(hand)
    for n_none in range(k - 3):  # k - 5 is the last valid one
        hand = base.copy()
        hand[:n_none] = -1
        cases.append(hand)
    for hand in cases:
        hands = hand[None, :].astype(np.int8)
        try:
            validate_cards(hands, decks=1, min_cards=5)
            expected = 0
        except ValueError:
            expected = -1
        got = t.score_batch_table(hands, k, tables.base_hi, tables.rank_lo,
                                  tables.multiset_scores, tables.flush_scores, tables.lv_a,
                                  tables.lv_b, True, 5, out)
        assert min(got, 0) == expected, hand.tolist()


def test_wilds_decks_and_per_hand_elevators_keep_the_exact_path(tables_always, monkeypatch):
    def refuse(*args):
        raise AssertionError("the table path was taken")

    monkeypatch.setattr(t, "score_batch_table", refuse)
    hands = random_hands(np.random.default_rng(1), 20, 7)
    evaluate(hands, wild_ranks=1)
    evaluate(hands, decks=2)
    evaluate(hands, elevated=np.arange(20))
    with pytest.raises(AssertionError, match="table path"):
        evaluate(hands)


def test_tables_without_the_jit():
    """The table kernels run as plain Python too (NUMBA_DISABLE_JIT=1), with the same scores."""
    rng = np.random.default_rng(3)
    hands = np.concatenate([random_hands(rng, 100, 5), suited_hands(rng, 100, 5)])
    column = HARD_COLUMNS[0]
    script = (
        "import sys, numpy as np\n"
        "from nop_sim import evaluator as ev\n"
        "ev.TABLE_MIN_HANDS = 1\n"
        f"hands = np.array({hands.tolist()}, np.int8)\n"
        f"print(ev.evaluate(hands, np.array({column.tolist()})).tolist())\n")
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", script], env=env, check=True,
                         capture_output=True, text=True)
    assert eval(out.stdout) == exact_scores(hands, column).tolist()


@pytest.mark.slow
@pytest.mark.parametrize("column", [np.arange(13), *HARD_COLUMNS[:2],
                                    np.random.default_rng(14).permutation(13)],
                         ids=["default", "high-card-top", "straight-top", "random"])
def test_all_seven_card_hands(column):
    """Every one of the 133,784,560 seven-card hands: the table score is the exact one."""
    script = load_count_script()
    tables = ev.evaluation_tables(column)
    out = np.empty(0, np.int64)
    for hands in script.iter_hand_chunks(chunk_size=4_000_000):
        if out.shape[0] < len(hands):
            out = np.empty(len(hands), np.int64)
        scores = out[:len(hands)]
        ev.score_with_tables(hands, tables, Column(column).positions(), False, NONE, False,
                             False, scores)
        assert (scores == exact_scores(hands, column)).all()
