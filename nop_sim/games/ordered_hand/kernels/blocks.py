"""Classify blocks of adjacent cards for the Ordered Hand game (SPEC sections 2, 9).

A block is ``cards[start:start + length]`` with ``length`` 1..5 and card codes
0..51 (``rank = code // 4 + 2``, ``suit = code % 4``). Duplicated codes are
allowed (several decks): they make Five of a Kind, Flush House and Flush Five
reachable.

Every function returns ``(category, tiebreak)``: ``category`` is the id 0..12
of :class:`nop_sim.core.column.Category` or ``-1`` when the block is not a valid
play; ``tiebreak`` packs the tie-break ranks of SPEC section 2, 4 bits each,
the first-compared rank in the highest nibble, so within one category the
larger code wins. Every category has one block length in this game (One Pair
is always 2 cards, Four of a Kind always 4, ...), so codes of one category are
always comparable.

Valid blocks by length (SPEC section 9):

=======  ====================================================================
length   valid categories
=======  ====================================================================
1        High Card (tie-break: the rank)
2        One Pair (the rank)
3        Three of a Kind (the rank)
4        Two Pair (higher pair, lower pair) or Four of a Kind (the rank)
5        the categories whose pattern uses all five cards: Flush Five, Flush
         House, Five of a Kind, Royal Flush, Straight Flush, Full House,
         Flush, Straight (tie-breaks of SPEC section 2). A five-card block
         that classifies as Four of a Kind + kicker, Three of a Kind, Two
         Pair, One Pair or High Card is not a play: the player plays the
         smaller block instead ("you only play the relevant cards").
=======  ====================================================================
"""

from __future__ import annotations

import numpy as np

from nop_sim.core.types import (  # noqa: F401  (re-exported for the Ordered Hand kernels)
    FIVE_OF_A_KIND,
    FLUSH,
    FLUSH_FIVE,
    FLUSH_HOUSE,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    ONE_PAIR,
    ROYAL_FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
)
from nop_sim.kernels.jit import jit

NO_BLOCK = -1

# Five-card categories that are valid five-card blocks (bit i = category id i).
FIVE_CARD_BLOCKS_MASK = (
    (1 << FLUSH_FIVE) | (1 << FLUSH_HOUSE) | (1 << FIVE_OF_A_KIND) | (1 << ROYAL_FLUSH)
    | (1 << STRAIGHT_FLUSH) | (1 << FULL_HOUSE) | (1 << FLUSH) | (1 << STRAIGHT)
)


@jit
def _sort5_desc(a, b, c, d, e):
    """Five ints sorted high to low (a 9-comparator sorting network)."""
    if a < b:
        a, b = b, a
    if d < e:
        d, e = e, d
    if c < e:
        c, e = e, c
    if c < d:
        c, d = d, c
    if a < d:
        a, d = d, a
    if a < c:
        a, c = c, a
    if b < e:
        b, e = e, b
    if b < d:
        b, d = d, b
    if b < c:
        b, c = c, b
    return a, b, c, d, e


@jit
def _sort4_desc(a, b, c, d):
    """Four ints sorted high to low (a 5-comparator sorting network)."""
    if a < b:
        a, b = b, a
    if c < d:
        c, d = d, c
    if a < c:
        a, c = c, a
    if b < d:
        b, d = d, b
    if b < c:
        b, c = c, b
    return a, b, c, d


@jit
def _classify_five_ranks(a, b, c, d, e, flush):
    """SPEC section 2 classification of five ranks sorted high to low.

    The first pattern of the SPEC table that matches wins; returns
    ``(category, tiebreak)`` for every five cards (never -1).
    """
    if a == e:
        if flush:
            return FLUSH_FIVE, np.int64(a)
        return FIVE_OF_A_KIND, np.int64(a)
    # Full house shapes: XXXYY or XXYYY (sorted, X > Y).
    trip = -1
    pair = -1
    if a == c and d == e:
        trip, pair = a, d
    elif a == b and c == e:
        trip, pair = c, a
    if trip >= 0 and flush:
        return FLUSH_HOUSE, np.int64((trip << 4) | pair)
    distinct = a > b and b > c and c > d and d > e
    if distinct:
        top = -1
        if a - e == 4:
            top = a
        elif a == 14 and b == 5:  # the wheel A-2-3-4-5, top card 5
            top = 5
        if top >= 0:
            if flush:
                if top == 14:
                    return ROYAL_FLUSH, np.int64(0)
                return STRAIGHT_FLUSH, np.int64(top)
            return STRAIGHT, np.int64(top)
    # Four of a kind: XXXXY or YXXXX.
    if a == d:
        return FOUR_OF_A_KIND, np.int64((a << 4) | e)
    if b == e:
        return FOUR_OF_A_KIND, np.int64((b << 4) | a)
    if trip >= 0:
        return FULL_HOUSE, np.int64((trip << 4) | pair)
    if flush:
        return FLUSH, np.int64((a << 16) | (b << 12) | (c << 8) | (d << 4) | e)
    if a == c:
        return THREE_OF_A_KIND, np.int64((a << 8) | (d << 4) | e)
    if b == d:
        return THREE_OF_A_KIND, np.int64((b << 8) | (a << 4) | e)
    if c == e:
        return THREE_OF_A_KIND, np.int64((c << 8) | (a << 4) | b)
    if a == b and c == d:
        return TWO_PAIR, np.int64((a << 8) | (c << 4) | e)
    if a == b and d == e:
        return TWO_PAIR, np.int64((a << 8) | (d << 4) | c)
    if b == c and d == e:
        return TWO_PAIR, np.int64((b << 8) | (d << 4) | a)
    if a == b:
        return ONE_PAIR, np.int64((a << 12) | (c << 8) | (d << 4) | e)
    if b == c:
        return ONE_PAIR, np.int64((b << 12) | (a << 8) | (d << 4) | e)
    if c == d:
        return ONE_PAIR, np.int64((c << 12) | (a << 8) | (b << 4) | e)
    if d == e:
        return ONE_PAIR, np.int64((d << 12) | (a << 8) | (b << 4) | c)
    return HIGH_CARD, np.int64((a << 16) | (b << 12) | (c << 8) | (d << 4) | e)


@jit
def _classify_five(cards, start):
    """SPEC classification of the five cards ``cards[start:start + 5]``."""
    c0 = np.int64(cards[start])
    c1 = np.int64(cards[start + 1])
    c2 = np.int64(cards[start + 2])
    c3 = np.int64(cards[start + 3])
    c4 = np.int64(cards[start + 4])
    s = c0 & 3
    flush = (c1 & 3) == s and (c2 & 3) == s and (c3 & 3) == s and (c4 & 3) == s
    a, b, c, d, e = _sort5_desc((c0 >> 2) + 2, (c1 >> 2) + 2, (c2 >> 2) + 2,
                                (c3 >> 2) + 2, (c4 >> 2) + 2)
    return _classify_five_ranks(a, b, c, d, e, flush)


@jit
def _classify_block(cards, start, length):
    """Category and tie-break of the block ``cards[start:start + length]``.

    Parameters
    ----------
    cards : 1-D int8 array of card codes 0..51
    start, length : int, ``1 <= length <= 5`` and ``start + length <= len(cards)``

    Returns
    -------
    (int64 category or -1, int64 tiebreak); tiebreak is 0 when category is -1.
    """
    r0 = (np.int64(cards[start]) >> 2) + 2
    if length == 1:
        return HIGH_CARD, r0
    r1 = (np.int64(cards[start + 1]) >> 2) + 2
    if length == 2:
        if r0 == r1:
            return ONE_PAIR, r0
        return NO_BLOCK, np.int64(0)
    r2 = (np.int64(cards[start + 2]) >> 2) + 2
    if length == 3:
        if r0 == r1 and r1 == r2:
            return THREE_OF_A_KIND, r0
        return NO_BLOCK, np.int64(0)
    if length == 4:
        r3 = (np.int64(cards[start + 3]) >> 2) + 2
        a, b, c, d = _sort4_desc(r0, r1, r2, r3)
        if a == d:
            return FOUR_OF_A_KIND, a
        if a == b and c == d:
            return TWO_PAIR, (a << 4) | c
        return NO_BLOCK, np.int64(0)
    cat, tb = _classify_five(cards, start)
    if (FIVE_CARD_BLOCKS_MASK >> cat) & 1:
        return cat, tb
    return NO_BLOCK, np.int64(0)


@jit
def _classify_blocks(cards, lengths, out_category, out_tiebreak):
    """Batch driver: classify ``cards[i, :lengths[i]]`` for every row ``i``.

    Parameters
    ----------
    cards : (n, 5) int8 card codes (entries past ``lengths[i]`` are ignored)
    lengths : (n,) int64, each 1..5
    out_category : (n,) int8, written in place (-1 for no valid block)
    out_tiebreak : (n,) int64, written in place
    """
    for i in range(cards.shape[0]):
        cat, tb = _classify_block(cards[i], 0, lengths[i])
        out_category[i] = cat
        out_tiebreak[i] = tb


@jit
def _block_beats(category, tiebreak, middle_category, middle_tiebreak, position_of):
    """True when a valid block beats the middle under a column.

    ``position_of[c]`` is the column position of category ``c`` (0 the top);
    ``middle_category == -1`` is an empty middle, which every block beats.
    Smaller position wins; at equal position the larger tie-break wins.
    """
    if middle_category < 0:
        return True
    p = position_of[category]
    q = position_of[middle_category]
    return p < q or (p == q and tiebreak > middle_tiebreak)
