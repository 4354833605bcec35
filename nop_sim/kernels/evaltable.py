"""Hand evaluation from tables built per column (numba only).

The exact paths of :mod:`nop_sim.kernels.evaluate` decide every hand from bit
tests. When many hands are scored under one reading of the column (one
column, inversion flag and Elevator), most of that work repeats: the tables
here hold it, built once per reading and hand size.

* Multiset table. Without five cards of one suit, no five of the hand is
  suited, so its best score under the reading depends only on its rank
  multiset (49,205 of them for seven cards). ``multiset_scores[index]`` is
  that score, the exact path's own (:func:`_fast_best` with no flush suit).
* Flush table. With five or more cards of one suit (at most one suit, for
  eight cards or fewer), the fives taken all in that suit are Royal, Straight
  Flush or Flush, and depend only on that suit's 13-bit rank mask:
  ``flush_scores[mask]``. Every other five holds a card of another suit, so
  it scores at most the multiset entry ``t``. Hence with ``f`` the flush
  entry: ``f > t`` gives ``f``; otherwise ``t``, provided some five making
  ``t`` is not all in the suit. A five with a repeated rank never is (one
  deck), so only a Straight or High Card ``t`` can fail that; those hands (a
  few in ten thousand, and none where the flush categories sit above
  Straight and High Card) are left to the exact path, as are rows holding
  another number of cards than the tables were built for: the kernels mark
  them :data:`EXACT` and the caller scores them with
  :func:`~nop_sim.kernels.evaluate.score_batch`. (Scoring them here would
  compile the exact path into these kernels again: 10 s more on a cold start
  for a few hands in ten thousand.)

The perfect index. A hand's rank counts, read as a base-5 number, split into
ranks 2..8 (``lo``, below 5**7) and 9..A (``hi``, below 5**6). Among
multisets of ``n`` cards, ordered by ``(hi, lo)``, the index of one is
``base_hi[hi] + rank_lo[lo]``: the multisets of smaller ``hi``, plus the rank
of ``lo`` among the ``lo`` of the same digit sum (that sum is ``n`` minus
``hi``'s). Each card adds one word of :data:`CARD_WORD`, which carries both
base-5 digits, a count per suit and the card count, so a hand is seven
additions and three loads.

The one-deck check rides along: :data:`CARD_WORD` is indexed by the byte of
the card code, and a code outside -1..51 adds :data:`POISON` to the word; a
repeated card shows as fewer distinct cards (bits of a 64-bit mask) than the
word counts.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import prange

from nop_sim.core.types import N_CATEGORIES
from nop_sim.kernels.evaluate import (
    ALL_RANKS,
    FLUSH,
    HIGH_CARD,
    NO_HAND,
    POP,
    ROYAL,
    STRAIGHT,
    STRAIGHT_FLUSH,
    _fast_best,
    _fast_tb,
    _lv,
    _run_mask,
)
from nop_sim.kernels.jit import jit, pjit, popcount

N_LO = 7  # ranks 2..8 in the low base-5 number
LO_SIZE = 5 ** N_LO
HI_SIZE = 5 ** (N_CATEGORIES - N_LO)
HI_SHIFT = 17  # the low number is below 5**7 < 2**17
HI_BITS = (1 << 14) - 1  # the high number is below 5**6 < 2**14
SUIT_SHIFT = 32  # four 4-bit suit counts
COUNT_SHIFT = 48  # the number of cards
POISON = 1 << 56  # added by a code outside -1..51: at most eight of them stay below bit 63
REAL_CARDS = (1 << 52) - 1  # the bits of cards 0..51 in a mask of cards seen
MIN_TABLE_CARDS = 5
MAX_TABLE_CARDS = 8  # one suit at most can hold five cards
EXACT = -2  # a row left to the exact path (no hand of five or more cards scores below 0)


def _card_words() -> np.ndarray:
    """int64[256]: the word of the card whose int8 code has byte ``b`` (``code & 255``).

    0 for no card (-1, byte 255) and :data:`POISON` for every byte that is not a
    code -1..51.
    """
    words = np.full(256, POISON, np.int64)
    words[-1 & 255] = 0  # no card
    for c in range(52):
        r, s = c >> 2, c & 3
        digit = 5 ** r if r < N_LO else 5 ** (r - N_LO) << HI_SHIFT
        words[c] = digit | 1 << (SUIT_SHIFT + 4 * s) | 1 << COUNT_SHIFT
    return words


CARD_WORD = _card_words()


@jit
def _digit_sum(value, n_digits):
    total = 0
    for _ in range(n_digits):
        total += value % 5
        value //= 5
    return total


@jit
def _count_masks(value, n_digits, first_rank, masks):
    """OR into ``masks`` the rank masks of held at least 1, 2, 3, 4 times, read from base 5."""
    for r in range(first_rank, first_rank + n_digits):
        count = value % 5
        value //= 5
        for k in range(count):
            masks |= np.int64(1) << (13 * k + r)
    return masks


@jit
def _build_index(n_cards, out_base_hi, out_rank_lo, out_multisets):
    """Write the perfect index over multisets of ``n_cards`` ranks (see :func:`multiset_index`).

    Obvious version: sort every (hi, lo) pair whose digits sum to ``n_cards``
    and number them. Here: a counting sort of the low numbers by digit sum
    gives each its rank within its sum; the high numbers in increasing order
    then take consecutive blocks, one low number of the right sum per row.
    """
    n_sums = 4 * N_LO + 2
    start = np.zeros(n_sums, np.int64)
    for lo in range(LO_SIZE):
        s = _digit_sum(lo, N_LO)
        out_rank_lo[lo] = start[s + 1]
        start[s + 1] += 1
    for s in range(1, n_sums):
        start[s] += start[s - 1]  # now: first position of each sum among the sorted lo
    lo_sorted = np.empty(LO_SIZE, np.int64)
    for lo in range(LO_SIZE):
        lo_sorted[start[_digit_sum(lo, N_LO)] + out_rank_lo[lo]] = lo
    row = 0
    for hi in range(HI_SIZE):
        s = _digit_sum(hi, N_CATEGORIES - N_LO)
        out_base_hi[hi] = row
        if s > n_cards:
            continue
        hi_masks = _count_masks(hi, N_CATEGORIES - N_LO, N_LO, 0)
        for j in range(start[n_cards - s], start[n_cards - s + 1]):
            out_multisets[row] = _count_masks(lo_sorted[j], N_LO, 0, hi_masks)
            row += 1
    return row


def n_multisets(n_cards: int) -> int:
    """Rank multisets of ``n_cards`` cards, at most four of a rank: [x^n] (1 + ... + x^4)^13."""
    ways = [1] + [0] * n_cards
    for _ in range(N_CATEGORIES):
        ways = [sum(ways[max(0, i - 4):i + 1]) for i in range(n_cards + 1)]
    return ways[n_cards]


@lru_cache(maxsize=MAX_TABLE_CARDS - MIN_TABLE_CARDS + 1)
def multiset_index(n_cards: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The perfect index over rank multisets of ``n_cards`` cards (one deck), and its keys.

    Returns ``(base_hi, rank_lo, multisets)``: int32[5**6] and int32[5**7]
    (index = ``base_hi[hi] + rank_lo[lo]``), and int64[n_multisets], the rank
    masks of ranks held at least 1, 2, 3, 4 times of each multiset in index
    order, packed 13 bits each (``m1 | m2 << 13 | m3 << 26 | m4 << 39``).
    Column-independent; cached per ``n_cards``.
    """
    if not MIN_TABLE_CARDS <= n_cards <= MAX_TABLE_CARDS:
        raise ValueError(f"tables cover hands of {MIN_TABLE_CARDS}..{MAX_TABLE_CARDS} cards")
    base_hi = np.empty(HI_SIZE, np.int32)
    rank_lo = np.empty(LO_SIZE, np.int32)
    multisets = np.empty(n_multisets(n_cards), np.int64)
    assert _build_index(n_cards, base_hi, rank_lo, multisets) == multisets.shape[0]
    return base_hi, rank_lo, multisets


# ---------------------------------------------------------------------------
# Building the tables of one reading
# ---------------------------------------------------------------------------
@jit
def build_multiset_scores(multisets, lv_a, lv_b, out_scores):
    """Best score of each rank multiset with no suited five, under a :func:`reading`.

    multisets : int64[m] packed count masks (:func:`multiset_index`);
    out_scores : int32[m], written.
    """
    for i in range(multisets.shape[0]):
        m = multisets[i]
        out_scores[i] = _fast_best(m & ALL_RANKS, (m >> 13) & ALL_RANKS, (m >> 26) & ALL_RANKS,
                                   (m >> 39) & ALL_RANKS, 0, lv_a, lv_b)


@jit
def build_flush_scores(lv_a, lv_b, out_scores):
    """Best score of five cards taken in one suit holding the ranks of each 13-bit mask.

    out_scores : int32[8192], written; -1 for masks of fewer than five ranks.
    """
    for fs in range(1 << N_CATEGORIES):
        best = NO_HAND
        if POP[fs] >= 5:
            for cat in (ROYAL, STRAIGHT_FLUSH, FLUSH):
                tb = _fast_tb(cat, 0, 0, 0, 0, fs)
                if tb >= 0:
                    best = max(best, (_lv(lv_a, lv_b, cat) << 20) | tb)
        out_scores[fs] = best


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------
@jit
def _suit_masks(card_bytes, i, suit):
    """Rank masks of the cards of row ``i`` in ``suit`` and in the other suits.

    card_bytes : uint8[n, k], the card codes' bytes (255 = no card), checked.
    Without a branch on the cards: a suit test per card mispredicts half the
    time, and cost every hand a tenth while a row of five suited cards in 30
    took it. No card (rank bits 63) is masked off at the end.
    """
    in_suit = 0
    off_suit = 0
    for j in range(card_bytes.shape[1]):
        c = np.int64(card_bytes[i, j])
        bit = np.int64(1) << (c >> 2)
        ours = -np.int64(c & 3 == suit)  # all ones for a card of the suit
        in_suit |= bit & ours
        off_suit |= bit & ~ours
    return in_suit & ALL_RANKS, off_suit & ALL_RANKS


@jit
def _five_ranks(cat, tb):
    """Rank mask of the five distinct ranks a Straight or High Card tie-break names."""
    if cat == STRAIGHT:
        return _run_mask(((tb >> 16) & 15) - 2)
    ranks = 0
    for j in range(5):
        ranks |= 1 << (((tb >> (16 - 4 * j)) & 15) - 2)
    return ranks


@jit
def _suited_row(card_bytes, i, suits, t, flush_scores, lv_a, lv_b):
    """Score of row ``i``, which holds five cards of one suit (``suits``: its 4-bit counts).

    ``t`` is the row's multiset entry; :data:`EXACT` when only the exact path
    can tell. See the module docstring.
    """
    high = ((suits + 0x3333) & 0x8888) >> 3  # bit 4 * s set for the suit with five or more
    suit = 0
    while (high >> (4 * suit)) & 1 == 0:
        suit += 1
    in_suit, off_suit = _suit_masks(card_bytes, i, suit)
    f = np.int64(flush_scores[in_suit])
    if f > t:
        return f
    lv = t >> 20
    cat = STRAIGHT if lv == _lv(lv_a, lv_b, STRAIGHT) else HIGH_CARD
    if cat == STRAIGHT or lv == _lv(lv_a, lv_b, HIGH_CARD):
        # the five distinct ranks of t; when each is held once, in the suit, that five
        # is suited: the best unsuited five is lower, and the exact path finds it
        only_suited = in_suit & ~off_suit
        if _five_ranks(cat, t & 0xFFFFF) & ~only_suited == 0:
            return EXACT
    return t


@jit(inline="always")
def _rows(card_bytes, k, n_cards, base_hi, rank_lo, multiset_scores, flush_scores, lv_a, lv_b,
          check, min_cards, out_scores):
    """:func:`score_batch_table` over the cards as bytes (uint8[n, k]), ``k`` to a row.

    Obvious check (kernels.evaluate._valid_row): each code in -1..51, no code
    but -1 twice, at least ``min_cards`` cards. Here: a bad code poisons the
    word, and a repeat leaves fewer distinct bits in ``seen`` than the word's
    count (no card sets bit 63, outside :data:`REAL_CARDS`). Two operations a
    card and a popcount, where the obvious check took five a card and a range
    test.
    """
    n_exact = 0
    for i in range(card_bytes.shape[0]):
        word = np.int64(0)
        seen = np.int64(0)
        for j in range(k):
            b = np.int64(card_bytes[i, j])
            word += CARD_WORD[b]
            seen |= np.int64(1) << (b & 63)
        count = (word >> COUNT_SHIFT) & 15
        if check and ((word >= POISON) | (popcount(seen & REAL_CARDS) != count)
                      | (count < min_cards)):
            return -1
        if count != n_cards:
            out_scores[i] = EXACT
            n_exact += 1
            continue
        t = np.int64(multiset_scores[base_hi[(word >> HI_SHIFT) & HI_BITS]
                                     + rank_lo[word & ((1 << HI_SHIFT) - 1)]])
        suits = (word >> SUIT_SHIFT) & 0xFFFF
        if (suits + 0x3333) & 0x8888:  # five or more of one suit (about 3% of 7-card hands)
            t = _suited_row(card_bytes, i, suits, t, flush_scores, lv_a, lv_b)
            n_exact += t == EXACT
        out_scores[i] = t
    return n_exact


@jit
def _table_rows(cards, n_cards, base_hi, rank_lo, multiset_scores, flush_scores, lv_a, lv_b,
                check, min_cards, out_scores):
    # seven cards, the common hand, get a copy of the loop with the count a constant: LLVM
    # unrolls the loop over the cards (1.3x); bytes, not int8, index CARD_WORD (1.05x)
    card_bytes = cards.view(np.uint8)
    k = cards.shape[1]
    if k == 7:
        return _rows(card_bytes, 7, n_cards, base_hi, rank_lo, multiset_scores, flush_scores,
                     lv_a, lv_b, check, min_cards, out_scores)
    return _rows(card_bytes, k, n_cards, base_hi, rank_lo, multiset_scores, flush_scores, lv_a,
                 lv_b, check, min_cards, out_scores)


@jit
def score_batch_table(cards, n_cards, base_hi, rank_lo, multiset_scores, flush_scores, lv_a,
                      lv_b, check, min_cards, out_scores):
    """Scores of one-deck hands without wild cards, from the tables of one reading.

    cards : int8[n, k]; n_cards : the hand size the tables were built for;
    base_hi, rank_lo, multiset_scores, flush_scores : see
    :func:`multiset_index`, :func:`build_multiset_scores` and
    :func:`build_flush_scores`; ``(lv_a, lv_b)`` : the :func:`reading` they
    were built under. out_scores : int64[n], written: each row's score,
    bit-identical to :func:`score_batch`'s, or :data:`EXACT` for a row the
    caller must score that way. Returns the number of :data:`EXACT` rows;
    when ``check``, -1 at the first hand that fails the one-deck check of
    :func:`score_batch_checked` (``out_scores`` then partly written).
    """
    return _table_rows(cards, n_cards, base_hi, rank_lo, multiset_scores, flush_scores, lv_a,
                       lv_b, check, min_cards, out_scores)


@pjit
def score_batch_table_parallel(cards, n_cards, base_hi, rank_lo, multiset_scores, flush_scores,
                               lv_a, lv_b, check, min_cards, n_chunks, out_scores):
    """:func:`score_batch_table` split into ``n_chunks`` contiguous chunks over threads."""
    n = cards.shape[0]
    n_exact = np.zeros(n_chunks, np.int64)
    for ch in prange(n_chunks):
        start = ch * n // n_chunks
        stop = (ch + 1) * n // n_chunks
        n_exact[ch] = _table_rows(cards[start:stop], n_cards, base_hi, rank_lo, multiset_scores,
                                  flush_scores, lv_a, lv_b, check, min_cards,
                                  out_scores[start:stop])
    if (n_exact < 0).any():
        return -1
    return n_exact.sum()

