"""Hand evaluation under any Ranking Column (numba only).

Scores
------
A score is ``level << 20 | tiebreak``; between hands scored under the same
column and inversion, the larger score wins and equal scores split.

* ``level = 2 * (13 - p) + 3 * e`` where ``p`` is the category's position in
  the column as read (``12 - p`` under Inversion) and ``e`` is 1 when the
  player's Elevator names that category. Elevation adds 3: the hand jumps
  over the natural category directly above (``+2``) and wins the tie at the
  same effective position (``+1``), but not over the one above that
  (``+4``), exactly SPEC section 2.
* ``tiebreak`` packs the SPEC tie-break ranks (2..14), 4 bits each,
  left-aligned from bit 16: ``r1 << 16 | r2 << 12 | ...``. Royal is 0.

The best five cards are chosen under the column: categories are tried from
the top of the (elevated) reading order and the first one the hand can make
wins, with the best tie-break the hand achieves *in that category* (a
five-card choice is of category X only if X is the FIRST pattern it matches).

Three exact paths compute "best tie-break of category c, or -1":

* fast: one deck, no wild card in the hand -- rank and suit bit masks;
* wild: at least one wild card -- rank counts and greedy choices with exact
  feasibility (a wild may be any card, duplicates included);
* brute: duplicate cards and no wild -- every five-card subset classified.

The brute path doubles as the rare fallback of the fast path (a High Card
hand whose best five ranks could only be taken in one suit).

Why one module of about 1,100 lines (issue 38 lets a kernel file pass 1,000
lines where it says why): it has one job, a hand's score under a column, and
its parts are read together. ``score_row`` picks one of the three paths and
falls back to the brute one; the paths share the reading, level and
straight helpers (``_lv``, ``_straight_tops``, ``_run_mask``, ``_nib``); the
batch drivers validate rows with the same checks and inline ``score_row``.
Split by path, each part would import most of the others' helpers, and one
score would be followed across files against SPEC section 2. The other
evaluation kernels already live apart (:mod:`nop_sim.kernels.evaltable`).
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np
from numba import prange

from nop_sim.core.types import (
    FIVE_OF_A_KIND,
    FLUSH,
    FLUSH_FIVE,
    FLUSH_HOUSE,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    N_CATEGORIES,
    ONE_PAIR,
    ROYAL_FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
)
from nop_sim.kernels.jit import jit, lookup_table, pjit

ALL_RANKS = 0x1FFF
ROYAL_RUN = 0x1F00
WHEEL_RUN = 0x100F
NO_HAND = -1
NEED_BRUTE = -2  # the fast path cannot decide; classify every subset

# short names for this module's category ids (defined once in nop_sim.core.types)
FIVE_KIND = FIVE_OF_A_KIND
ROYAL = ROYAL_FLUSH
FOUR_KIND = FOUR_OF_A_KIND
THREE_KIND = THREE_OF_A_KIND


# ---------------------------------------------------------------------------
# Tables over 13-bit rank masks (bit i = rank i + 2), built once at import, in
# whole-array NumPy (the per-mask Python loops, kept in tests/test_evaluator_tables.py
# as the reference, took 50 ms of every process's start-up).
# ---------------------------------------------------------------------------
_RANK = np.arange(13, dtype=np.int64)


def _straight_tops_np(m):
    """Bit t set when the ranks of ``m`` (an int64 array) hold a straight topped by rank
    t: five consecutive bits, or the wheel (A-2-3-4-5, top 3)."""
    run = m & (m >> 1) & (m >> 2) & (m >> 3) & (m >> 4)
    return ((run << 4) & ALL_RANKS) | np.where(m & WHEEL_RUN == WHEEL_RUN, 1 << 3, 0)


def _pack(ranks, place):
    """Ranks (+ 2) packed 4 bits each from bit 16 at their ``place`` (1 = highest;
    0 = not packed), summed over the last axis."""
    shift = np.clip(16 - 4 * (place - 1), 0, None)
    return np.where(place > 0, (ranks + 2) << shift, 0).sum(-1)


def _build_tables():
    m = np.arange(1 << 13, dtype=np.int64)
    bits = (m[:, None] >> _RANK) & 1
    pop = bits.sum(1)
    hi = np.where(m > 0, 12 - np.argmax(bits[:, ::-1], axis=1), -1)
    # each set bit's place among the set bits, from the top (1: the highest)
    place = np.cumsum(bits[:, ::-1], axis=1)[:, ::-1] * bits
    top = np.where(place > 5, 0, place)
    pack = _pack(_RANK, top)
    top5 = np.where(top > 0, 1 << _RANK, 0).sum(1)
    # best five distinct ranks that are not a straight, as a tie-break: the top
    # five, or when they are a straight the top four and the next lower rank
    rest = m & ~top5
    straight = _straight_tops_np(top5) != 0
    below = np.where(rest > 0, 1 << hi[rest].clip(0), 0)
    best = np.where(straight, (top5 & ~(top5 & -top5)) | below, top5)
    best5 = np.where((pop >= 5) & ~(straight & (rest == 0)), pack[best], -1)
    return (pop.astype(np.int8), hi.astype(np.int8), pack.astype(np.int32),
            top5.astype(np.int16), best5.astype(np.int32))


# POP: set bits; HI: highest bit (-1 for 0); PACK: the top five ranks as a
# tie-break (rank + 2, 4 bits each, highest first from bit 16); TOP5: mask of
# the top five bits; BEST5: PACK of the best five distinct ranks that are not
# a straight (-1 when there are none), i.e. PACK[_best_distinct5(m)].
POP, HI, PACK, TOP5, BEST5 = map(lookup_table, _build_tables())
STRAIGHT_TOPS = lookup_table(_straight_tops_np(np.arange(1 << 13, dtype=np.int64))
                             .astype(np.int16))
# a 13-bit rank mask spread to one 4-bit count per rank
NIBBLES = (((np.arange(1 << 13, dtype=np.int64)[:, None] >> _RANK) & 1) << (4 * _RANK)).sum(1)
# bit of each card code in a mask of 16 bits per suit: suit s, rank bit r at 16 * s + r
CARD_BIT = np.array([1 << (16 * (c & 3) + (c >> 2)) for c in range(52)], np.int64)


def _build_patterns():
    """Flush and High Card rank patterns, best first.

    High Card: five distinct ranks that are not a straight. Flush (possible
    with wilds or several decks): those, plus 2+1+1+1, 2+2+1 and 3+1+1
    multisets (3+2, 4+1 and 5 are Flush House, Four and Flush Five).
    """
    # every multiset of five ranks, its ranks highest first
    ranks = np.array(list(combinations_with_replacement(range(13), 5)), np.int64)[:, ::-1]
    counts = (ranks[:, :, None] == _RANK).sum(1)
    shape = -np.sort(-counts, axis=1)[:, :5]  # rank counts, largest first
    mask = np.bitwise_or.reduce(1 << ranks, axis=1)
    distinct = (shape == [1, 1, 1, 1, 1]).all(1)
    keep = ((distinct & (_straight_tops_np(mask) == 0))
            | (shape == [2, 1, 1, 1, 0]).all(1) | (shape == [2, 2, 1, 0, 0]).all(1)
            | (shape == [3, 1, 1, 0, 0]).all(1))
    tb = _pack(ranks, np.arange(1, 6))
    order = np.flatnonzero(keep)[np.argsort(-tb[keep], kind="stable")]
    hc = order[distinct[order]]
    return tb[order], ranks[order].astype(np.int8), mask[order], tb[hc], mask[hc]


FLUSH_PAT_TB, FLUSH_PAT_RANKS, FLUSH_PAT_MASK, HIGH_PAT_TB, HIGH_PAT_MASK = map(
    lookup_table, _build_patterns())


# ---------------------------------------------------------------------------
# Small scalar helpers
# ---------------------------------------------------------------------------
@jit
def _straight_tops(m):
    """Bit t set when the ranks of ``m`` hold a straight topped by rank t (wheel: t=3).

    Obvious version: ``run = m & m>>1 & m>>2 & m>>3 & m>>4``, tops ``run << 4``,
    plus the wheel; read here from the table built that way at import.
    """
    return np.int64(STRAIGHT_TOPS[m])


@jit
def _run_mask(top):
    """Rank mask of the straight topped by rank index ``top`` (3 = the wheel)."""
    if top == 3:
        return WHEEL_RUN
    return 0x1F << (top - 4)


@jit
def _top2(m):
    """Mask of the two highest set bits of ``m`` (which has at least two)."""
    b = 1 << HI[m]
    return b | (1 << HI[m ^ b])


@jit
def _best_distinct5(m):
    """Best five distinct ranks of ``m`` that are not a straight, as a mask; 0 if none.

    Obvious version: max over all 5-subsets. Fast version: the top five, and
    when they are a straight, the top four plus the next lower rank (any
    lower rank breaks the run; nothing else beats it lexicographically).
    """
    if POP[m] < 5:
        return 0
    t = TOP5[m]
    if _straight_tops(t) == 0:
        return t
    rest = m & ~t
    if rest == 0:
        return 0
    return (t & ~(t & -t)) | (1 << HI[rest])


@jit
def _level(cat, column_pos, inverted, elevated, lift):
    """Level of a category (larger wins): 2 per position; an elevated one stands ``lift``
    positions higher and above a natural one there (odd). Fits 5 bits for lift <= 2."""
    p = np.int64(column_pos[cat])
    if inverted:
        p = 12 - p
    return 2 * (13 - p) + (2 * lift + 1) * ((elevated >> cat) & 1)


@jit
def _lv(lv_a, lv_b, cat):
    if cat < 7:
        return (lv_a >> (5 * cat)) & 31
    return (lv_b >> (5 * (cat - 7))) & 31


@jit
def reading(column_pos, inverted, elevated):
    """:func:`reading_lift` with the catalog's one-position Elevator."""
    return reading_lift(column_pos, inverted, elevated, 1)


@jit
def reading_lift(column_pos, inverted, elevated, lift):
    """How the column is read for one player, packed into three int64 scalars.

    Returns ``(lv_a, lv_b, order)``: the level of categories 0..6 (5 bits
    each) in ``lv_a`` and of 7..12 in ``lv_b``; ``order`` the 13 category
    ids, 4 bits each, highest level first. Scalars, not arrays, so hot
    loops pass them around for free.
    """
    lv_a = 0
    lv_b = 0
    # the levels are distinct (two per position, an elevated one odd), so ``order`` is a
    # counting sort: the category at each level (4 bits per level, 32 levels in two
    # words), read from the highest level down. The obvious way, 13 x 13 steps:
    #     for i in range(N_CATEGORIES):  # the highest level not yet placed
    #         best_cat = argmax(_lv(lv_a, lv_b, cat) for cat not in placed)
    #         placed |= 1 << best_cat
    #         order |= best_cat << (4 * i)
    present = 0
    at_lo = 0  # levels 0..15
    at_hi = 0  # levels 16..31
    for cat in range(N_CATEGORIES):
        lv = _level(cat, column_pos, inverted, elevated, lift)
        if cat < 7:
            lv_a |= lv << (5 * cat)
        else:
            lv_b |= lv << (5 * (cat - 7))
        present |= np.int64(1) << lv
        if lv < 16:
            at_lo |= np.int64(cat) << (4 * lv)
        else:
            at_hi |= np.int64(cat) << (4 * (lv - 16))
    order = 0
    i = 0
    for lv in range(31, -1, -1):
        if (present >> lv) & 1:
            cat = (at_lo >> (4 * lv)) & 15 if lv < 16 else (at_hi >> (4 * (lv - 16))) & 15
            order |= np.int64(cat) << (4 * i)
            i += 1
    return lv_a, lv_b, order


# ---------------------------------------------------------------------------
# Classification of five concrete cards (brute path, histories, blocks)
# ---------------------------------------------------------------------------
@jit
def classify5(ranks, suits):
    """Category id and tie-break of five concrete cards (SPEC section 2).

    ranks : int64[5] rank indices 0..12 (rank - 2); suits : int64[5] 0..3.
    Duplicates allowed (several decks). Returns ``cat << 20 | tiebreak``.
    """
    mono = True
    for i in range(1, 5):
        if suits[i] != suits[0]:
            mono = False
    # a 4-bit count per rank in one integer, not an array: the brute path classifies up to
    # 56 fives a hand, and an allocation each was most of its time
    cnt = 0
    mask = 0
    for i in range(5):
        cnt += np.int64(1) << (4 * ranks[i])
        mask |= 1 << ranks[i]
    # groups ordered by (count desc, rank desc) give both shape and tie-break
    tb = 0
    slot = 0
    shape0 = 0
    shape1 = 0
    for c in range(5, 0, -1):
        for r in range(12, -1, -1):
            if (cnt >> (4 * r)) & 15 == c:
                if shape0 == 0:
                    shape0 = c
                elif shape1 == 0:
                    shape1 = c
                tb |= (r + 2) << (16 - 4 * slot)
                slot += 1
    # full-rank tie-break (duplicates included) for Flush / High Card
    full = 0
    slot = 0
    for r in range(12, -1, -1):
        for _ in range((cnt >> (4 * r)) & 15):
            full |= (r + 2) << (16 - 4 * slot)
            slot += 1
    tops = _straight_tops(mask) if POP[mask] == 5 else 0
    if shape0 == 5:
        return ((FLUSH_FIVE if mono else FIVE_KIND) << 20) | tb
    if shape0 == 3 and shape1 == 2 and mono:
        return (FLUSH_HOUSE << 20) | tb
    if tops != 0 and mono:
        top = HI[tops]
        if top == 12:
            return ROYAL << 20
        return (STRAIGHT_FLUSH << 20) | ((top + 2) << 16)
    if shape0 == 4:
        return (FOUR_KIND << 20) | tb
    if shape0 == 3 and shape1 == 2:
        return (FULL_HOUSE << 20) | tb
    if mono:
        return (FLUSH << 20) | full
    if tops != 0:
        return (STRAIGHT << 20) | ((HI[tops] + 2) << 16)
    if shape0 == 3:
        return (THREE_KIND << 20) | tb
    if shape0 == 2 and shape1 == 2:
        return (TWO_PAIR << 20) | tb
    if shape0 == 2:
        return (ONE_PAIR << 20) | tb
    return (HIGH_CARD << 20) | full


@jit
def _brute_profile(cards, wild_ranks, out_tb):
    """Best tie-break per category over every 5-card subset (no wild cards used).

    Wild cards, if any, are treated as the cards they are; only called when
    the hand holds no wild card. Writes ``out_tb[13]`` (-1 = not made).
    """
    n = 0
    real = np.empty(cards.shape[0], np.int64)
    for c8 in cards:
        c = np.int64(c8)
        if c >= 0:
            real[n] = c
            n += 1
    for cat in range(N_CATEGORIES):
        out_tb[cat] = NO_HAND
    ranks = np.empty(5, np.int64)
    suits = np.empty(5, np.int64)
    idx = np.arange(5)
    while True:
        for j in range(5):
            ranks[j] = real[idx[j]] >> 2
            suits[j] = real[idx[j]] & 3
        code = classify5(ranks, suits)
        cat = code >> 20
        tb = code & 0xFFFFF
        if tb > out_tb[cat]:
            out_tb[cat] = tb
        # next combination of 5 indices out of n
        j = 4
        while j >= 0 and idx[j] == n - 5 + j:
            j -= 1
        if j < 0:
            break
        idx[j] += 1
        for t in range(j + 1, 5):
            idx[t] = idx[t - 1] + 1


# ---------------------------------------------------------------------------
# Fast path: one deck, no wild card in the hand
# ---------------------------------------------------------------------------
@jit
def _fast_tb(cat, m1, m2, m3, m4, fs):
    """Best tie-break of ``cat`` for a hand of distinct natural cards, or -1.

    m1..m4 : rank masks of ranks held at least 1..4 times.
    fs : rank mask of the flush suit (a suit with 5 or more cards), else 0.
    """
    if cat <= FIVE_KIND:
        return NO_HAND
    if cat == ROYAL:
        return 0 if (fs & ROYAL_RUN) == ROYAL_RUN else NO_HAND
    if cat == STRAIGHT_FLUSH:
        tops = _straight_tops(fs) & ~(1 << 12)
        return (HI[tops] + 2) << 16 if tops else NO_HAND
    if cat == FOUR_KIND:
        if m4 == 0:
            return NO_HAND
        q = HI[m4]
        return (q + 2) << 16 | (HI[m1 & ~(1 << q)] + 2) << 12
    if cat == FULL_HOUSE:
        if m3 == 0:
            return NO_HAND
        t = HI[m3]
        rest = m2 & ~(1 << t)
        return (t + 2) << 16 | (HI[rest] + 2) << 12 if rest else NO_HAND
    if cat == FLUSH:
        t = _best_distinct5(fs) if fs else 0
        return PACK[t] if t else NO_HAND
    if cat == STRAIGHT:
        tops = _straight_tops(m1)
        while tops:
            top = HI[tops]
            run = _run_mask(top)
            # one card per rank, all in the flush suit: only a straight flush
            if not ((fs & run) == run and (m2 & run) == 0):
                return (top + 2) << 16
            tops ^= 1 << top
        return NO_HAND
    if cat == THREE_KIND:
        if m3 == 0 or POP[m1] < 3:
            return NO_HAND
        t = HI[m3]
        # PACK of a mask lists its top five ranks; keep the first two
        return (t + 2) << 16 | (PACK[m1 & ~(1 << t)] & 0xFF000) >> 4
    if cat == TWO_PAIR:
        if POP[m2] < 2 or POP[m1] < 3:
            return NO_HAND
        pairs = _top2(m2)
        return PACK[pairs] | (HI[m1 & ~pairs] + 2) << 8
    if cat == ONE_PAIR:
        if m2 == 0 or POP[m1] < 4:
            return NO_HAND
        p = HI[m2]
        return (p + 2) << 16 | (PACK[m1 & ~(1 << p)] & 0xFFF00) >> 4
    # HIGH_CARD
    t = _best_distinct5(m1)
    if t == 0:
        return NO_HAND
    if (fs & t) == t and (m2 & t) == 0:
        # every card of these ranks is in one suit: that is a Flush (rare)
        return NEED_BRUTE
    return PACK[t]


# ---------------------------------------------------------------------------
# Wild path: at least one wild card in the hand
# ---------------------------------------------------------------------------
@jit
def _nib(word, r):
    return (word >> (4 * r)) & 15


@jit
def _kickers(avail, excl, k, wl):
    """Best ``k`` distinct kicker ranks outside ``excl`` (packed from bit 16), or -1.

    avail : ranks held naturally (free); any other rank costs one wild from ``wl``.
    Greedy from the top, keeping enough ranks below for the rest.
    """
    chosen = 0
    for i in range(k):
        rem = k - i - 1
        found = False
        for r in range(12, -1, -1):
            b = 1 << r
            if excl & b or chosen & b:
                continue
            cost = 0 if avail & b else 1
            if cost > wl:
                continue
            below = (b - 1) & ~excl & ~chosen & ALL_RANKS
            nat_below = POP[avail & below]
            if min(POP[below], nat_below + wl - cost) >= rem:
                chosen |= b
                wl -= cost
                found = True
                break
        if not found:
            return NO_HAND
    return PACK[chosen]


@jit
def _wild_tb(cat, w, crank, m1, sm, cs0, cs1, cs2, cs3, c1, c2, maxsc, multi):
    """Best tie-break of ``cat`` with ``w >= 1`` wild cards, or -1.

    crank : rank counts of the natural cards, 4 bits per rank.
    m1 : rank mask of natural cards; sm : per-suit rank masks, 16 bits a suit.
    cs0..cs3 : per-suit rank counts (4 bits per rank); c1 >= c2 the two
    largest rank counts; maxsc the largest (suit, rank) count; multi: a
    natural card repeats (several decks). Each category first rejects on a
    lower bound of the wilds it needs, so most calls cost a few operations. A wild may be any card, so "not all one suit" is
    always achievable here: a wild left unused can replace a natural of the
    same rank in another suit.
    """
    if cat == FLUSH_FIVE:
        if maxsc + w < 5:
            return NO_HAND
        for r in range(12, -1, -1):
            if (max(max(_nib(cs0, r), _nib(cs1, r)), max(_nib(cs2, r), _nib(cs3, r)))
                    + w >= 5):
                return (r + 2) << 16
        return NO_HAND
    if cat == FLUSH_HOUSE:
        if max(0, 3 - maxsc) + max(0, 2 - maxsc) > w:
            return NO_HAND
        for t in range(12, -1, -1):
            best_p = -1
            for s in range(4):
                cs = cs0 if s == 0 else cs1 if s == 1 else cs2 if s == 2 else cs3
                dt = max(0, 3 - _nib(cs, t))
                if dt > w:
                    continue
                for p in range(12, best_p, -1):
                    if p != t and _nib(cs, p) + w - dt >= 2:
                        best_p = p
                        break
            if best_p >= 0:
                return (t + 2) << 16 | (best_p + 2) << 12
        return NO_HAND
    if cat == FIVE_KIND:
        if c1 + w < 5:
            return NO_HAND
        for r in range(12, -1, -1):
            if _nib(crank, r) + w >= 5:
                return (r + 2) << 16
        return NO_HAND
    if cat == ROYAL or cat == STRAIGHT_FLUSH:
        best = -1
        for s in range(4):
            smask = (sm >> (16 * s)) & ALL_RANKS
            if POP[smask] + w < 5:
                continue
            if cat == ROYAL:
                if 5 - POP[smask & ROYAL_RUN] <= w:
                    return 0
            else:
                for top in range(11, max(best, 2), -1):
                    if 5 - POP[smask & _run_mask(top)] <= w:
                        best = top
                        break
        if cat == ROYAL or best < 0:
            return NO_HAND
        return (best + 2) << 16
    if cat == FOUR_KIND:
        if c1 + w < 4:
            return NO_HAND
        for q in range(12, -1, -1):
            dq = max(0, 4 - _nib(crank, q))
            if dq > w:
                continue
            kick = _kickers(m1, 1 << q, 1, w - dq)
            if kick >= 0:
                return (q + 2) << 16 | kick >> 4
        return NO_HAND
    if cat == FULL_HOUSE:
        if max(0, 3 - c1) + max(0, 2 - c2) > w:
            return NO_HAND
        for t in range(12, -1, -1):
            dt = max(0, 3 - _nib(crank, t))
            if dt > w:
                continue
            for p in range(12, -1, -1):
                if p != t and _nib(crank, p) + w - dt >= 2:
                    return (t + 2) << 16 | (p + 2) << 12
        return NO_HAND
    if cat == FLUSH:
        suits = 0  # suits holding enough cards, wilds included
        for s in range(4):
            if multi:
                cs = cs0 if s == 0 else cs1 if s == 1 else cs2 if s == 2 else cs3
                total = 0
                for r in range(13):
                    total += _nib(cs, r)
            else:
                total = POP[(sm >> (16 * s)) & ALL_RANKS]
            if total + w >= 5:
                suits |= 1 << s
        if suits == 0:
            return NO_HAND
        for i in range(FLUSH_PAT_TB.shape[0]):
            pmask = FLUSH_PAT_MASK[i]
            for s in range(4):
                if (suits >> s) & 1 == 0:
                    continue
                smask = (sm >> (16 * s)) & ALL_RANKS
                if not multi:
                    deficit = 5 - POP[smask & pmask]
                else:
                    cs = cs0 if s == 0 else cs1 if s == 1 else cs2 if s == 2 else cs3
                    deficit = 0
                    j = 0
                    while j < 5:
                        r = FLUSH_PAT_RANKS[i, j]
                        need = 1
                        while j + need < 5 and FLUSH_PAT_RANKS[i, j + need] == r:
                            need += 1
                        deficit += max(0, need - _nib(cs, r))
                        j += need
                if deficit <= w:
                    return FLUSH_PAT_TB[i]
        return NO_HAND
    if cat == STRAIGHT:
        for top in range(12, 2, -1):
            if 5 - POP[m1 & _run_mask(top)] <= w:
                return (top + 2) << 16
        return NO_HAND
    if cat == THREE_KIND:
        if c1 + w < 3:
            return NO_HAND
        for t in range(12, -1, -1):
            dt = max(0, 3 - _nib(crank, t))
            if dt > w:
                continue
            kick = _kickers(m1, 1 << t, 2, w - dt)
            if kick >= 0:
                return (t + 2) << 16 | kick >> 4
        return NO_HAND
    if cat == TWO_PAIR:
        if max(0, 2 - c1) + max(0, 2 - c2) > w:
            return NO_HAND
        for p1 in range(12, 0, -1):
            d1 = max(0, 2 - _nib(crank, p1))
            if d1 > w:
                continue
            for p2 in range(p1 - 1, -1, -1):
                d2 = max(0, 2 - _nib(crank, p2))
                if d1 + d2 > w:
                    continue
                kick = _kickers(m1, (1 << p1) | (1 << p2), 1, w - d1 - d2)
                if kick >= 0:
                    return (p1 + 2) << 16 | (p2 + 2) << 12 | kick >> 8
        return NO_HAND
    if cat == ONE_PAIR:
        for p in range(12, -1, -1):
            dp = max(0, 2 - _nib(crank, p))
            if dp > w:
                continue
            kick = _kickers(m1, 1 << p, 3, w - dp)
            if kick >= 0:
                return (p + 2) << 16 | kick >> 4
        return NO_HAND
    # HIGH_CARD: five distinct ranks, not a straight
    for i in range(HIGH_PAT_TB.shape[0]):
        if 5 - POP[m1 & HIGH_PAT_MASK[i]] <= w:
            return HIGH_PAT_TB[i]
    return NO_HAND


# ---------------------------------------------------------------------------
# One hand
# ---------------------------------------------------------------------------
@jit
def _flush_suit(sm):
    """Rank mask of a suit holding five or more of the cards (at most one can), else 0."""
    for s in range(4):
        smask = (sm >> (16 * s)) & ALL_RANKS
        if POP[smask] >= 5:
            return smask
    return 0


@jit
def _key(lv_a, lv_b, cat, made):
    """``level << 4 | cat`` when ``made`` (0/1), else 0: maxima pick the best made category."""
    return ((_lv(lv_a, lv_b, cat) << 4) | cat) & -made


@jit(inline="always")
def _fast_best(m1, m2, m3, m4, fs, lv_a, lv_b):
    """Score of distinct natural cards, or NEED_BRUTE.

    Decides which categories the cards can make with bit tests, keeps the
    one read highest (branch-free maxima: random hands defeat branch
    prediction), then computes the tie-break of that category alone.
    """
    pc = np.int64(POP[m1])
    p2 = np.int64(POP[m2])
    st = _straight_tops(m1)
    has3 = np.int64(m3 != 0)
    straight = np.int64(st != 0)
    high = np.int64(pc >= 6) | (np.int64(pc == 5) & (1 - straight))
    best = _key(lv_a, lv_b, FOUR_KIND, np.int64(m4 != 0))
    best = max(best, _key(lv_a, lv_b, FULL_HOUSE, has3 & np.int64(p2 >= 2)))
    best = max(best, _key(lv_a, lv_b, THREE_KIND, has3 & np.int64(pc >= 3)))
    best = max(best, _key(lv_a, lv_b, TWO_PAIR, np.int64(p2 >= 2) & np.int64(pc >= 3)))
    best = max(best, _key(lv_a, lv_b, ONE_PAIR, np.int64(m2 != 0) & np.int64(pc >= 4)))
    if fs:
        # rare (about 3% of seven-card hands): decide the suited categories and
        # whether a straight or high card can be taken off-suit
        tops = _straight_tops(fs)
        best = max(best, _key(lv_a, lv_b, ROYAL, np.int64((tops >> 12) & 1)))
        best = max(best, _key(lv_a, lv_b, STRAIGHT_FLUSH, np.int64((tops & 0xFFF) != 0)))
        best = max(best, _key(lv_a, lv_b, FLUSH, np.int64(POP[fs] >= 6 or tops == 0)))
        if straight:
            straight = np.int64(_fast_tb(STRAIGHT, m1, m2, m3, m4, fs) >= 0)
    best = max(best, _key(lv_a, lv_b, STRAIGHT, straight))
    best = max(best, _key(lv_a, lv_b, HIGH_CARD, high))
    if best == 0:
        return NO_HAND
    cat = best & 15
    if cat >= THREE_KIND and fs == 0:
        # the common categories (about 90% of hands): every tie-break from table
        # lookups, then a select, so the category does not steer a branch
        p1 = HI[m2] if m2 else 0
        p2 = HI[m2 & ~(1 << p1)] if POP[m2] >= 2 else 0
        t3 = HI[m3] if m3 else 0
        pairs = (1 << p1) | (1 << p2)
        tb_trips = (t3 + 2) << 16 | (PACK[m1 & ~(1 << t3)] & 0xFF000) >> 4
        tb_two = (p1 + 2) << 16 | (p2 + 2) << 12 | (HI[m1 & ~pairs] + 2) << 8
        tb_pair = (p1 + 2) << 16 | (PACK[m1 & ~(1 << p1)] & 0xFFF00) >> 4
        tb_high = BEST5[m1]
        tb = (tb_high if cat == HIGH_CARD else tb_pair if cat == ONE_PAIR
              else tb_two if cat == TWO_PAIR else tb_trips)
        return ((best >> 4) << 20) | tb
    tb = _fast_tb(cat, m1, m2, m3, m4, fs)
    if tb < 0:
        return NEED_BRUTE
    return ((best >> 4) << 20) | tb


@jit
def _wild_counts(cards, i, wild_ranks):
    """Wild count and packed counts of the natural cards of row ``i`` (see :func:`_wild_tb`)."""
    w = 0
    crank = 0
    sm = 0
    multi = False
    for j in range(cards.shape[1]):
        c = np.int64(cards[i, j])
        if c < 0:
            continue
        r = c >> 2
        if (wild_ranks >> r) & 1:
            w += 1
            continue
        crank += np.int64(1) << (4 * r)
        bit = CARD_BIT[c]
        multi |= (sm & bit) != 0
        sm |= bit
    m1 = (sm | (sm >> 16) | (sm >> 32) | (sm >> 48)) & ALL_RANKS
    if multi:
        cs0 = cs1 = cs2 = cs3 = 0
        for j in range(cards.shape[1]):
            c = np.int64(cards[i, j])
            if c < 0 or (wild_ranks >> (c >> 2)) & 1:
                continue
            inc = np.int64(1) << (4 * (c >> 2))
            s = c & 3
            if s == 0:
                cs0 += inc
            elif s == 1:
                cs1 += inc
            elif s == 2:
                cs2 += inc
            else:
                cs3 += inc
        maxsc = 0
        for r in range(13):
            maxsc = max(maxsc, max(max(_nib(cs0, r), _nib(cs1, r)),
                                   max(_nib(cs2, r), _nib(cs3, r))))
    else:
        cs0 = NIBBLES[sm & ALL_RANKS]
        cs1 = NIBBLES[(sm >> 16) & ALL_RANKS]
        cs2 = NIBBLES[(sm >> 32) & ALL_RANKS]
        cs3 = NIBBLES[(sm >> 48) & ALL_RANKS]
        maxsc = 1 if m1 else 0
    c1 = 0
    c2 = 0
    x = crank
    while x:
        v = x & 15
        if v > c1:
            c2 = c1
            c1 = v
        elif v > c2:
            c2 = v
        x >>= 4
    return w, crank, m1, sm, cs0, cs1, cs2, cs3, c1, c2, maxsc, multi


@jit
def _wild_best(cards, i, wild_ranks, lv_a, lv_b, order):
    """Score of row ``i`` holding wild cards: first made category in reading order."""
    w, crank, m1, sm, cs0, cs1, cs2, cs3, c1, c2, maxsc, multi = _wild_counts(cards, i,
                                                                               wild_ranks)
    for j in range(N_CATEGORIES):
        cat = (order >> (4 * j)) & 15
        tb = _wild_tb(cat, w, crank, m1, sm, cs0, cs1, cs2, cs3, c1, c2, maxsc, multi)
        if tb >= 0:
            return (_lv(lv_a, lv_b, cat) << 20) | tb
    return NO_HAND


@jit
def _brute_best(cards, i, lv_a, lv_b):
    tbs = np.empty(N_CATEGORIES, np.int64)
    _brute_profile(cards[i], 0, tbs)
    best = NO_HAND
    for cat in range(N_CATEGORIES):
        if tbs[cat] >= 0:
            best = max(best, (_lv(lv_a, lv_b, cat) << 20) | tbs[cat])
    return best


@jit(_nrt=True)  # it allocates; callers without NRT would otherwise pass theirs on
def brute_score(cards, lv_a, lv_b):
    """Score of one hand ``cards`` (int8[k], -1 ignored) by classifying every five-card
    subset: :func:`score_row`'s last resort, for callers compiled without NRT."""
    return _brute_best(cards.reshape(1, cards.shape[0]), 0, lv_a, lv_b)


@jit(inline="always")
def score_row(cards, i, wild_ranks, lv_a, lv_b, order):
    """Score of hand ``cards[i]`` (int8[n, k], -1 ignored) under a :func:`reading`."""
    score = score_row_unforced(cards, i, wild_ranks, lv_a, lv_b, order)
    if score == NEED_BRUTE:
        return _brute_best(cards, i, lv_a, lv_b)
    return score


@jit(inline="always")
def score_row_unforced(cards, i, wild_ranks, lv_a, lv_b, order):
    """:func:`score_row` but ``NEED_BRUTE`` where that would classify every five-card
    subset (a card repeats: several decks; or a rare pattern the tables leave open).

    The brute force allocates, this does not: it runs without reference counting
    (New Order's kernels.common evaluator, the match's hottest callee, thus pays no atomic
    incref/decref per call).
    """
    sm = 0
    n = 0
    # the first eight columns (a hand has at most eight cards) in a loop of fixed length,
    # which LLVM unrolls into plain loads: over range(cards.shape[1]) it vectorized the
    # loop into AVX-512 gathers of CARD_BIT, whose latency sat on every evaluation of New
    # Order's engine (issue 37). The obvious form: ``for j in range(cards.shape[1])``.
    n_cols = cards.shape[1]
    for j in range(8):
        if j < n_cols:
            c = cards[i, j]
            if c >= 0:
                sm |= CARD_BIT[c]
                n += 1
    for j in range(8, n_cols):
        c = cards[i, j]
        if c >= 0:
            sm |= CARD_BIT[c]
            n += 1
    s0 = sm & ALL_RANKS
    s1 = (sm >> 16) & ALL_RANKS
    s2 = (sm >> 32) & ALL_RANKS
    s3 = (sm >> 48) & ALL_RANKS
    lo = s0 | s1
    hi = s2 | s3
    m1 = lo | hi
    if m1 & wild_ranks:
        return _wild_best(cards, i, wild_ranks, lv_a, lv_b, order)
    p0 = POP[s0]
    p1 = POP[s1]
    p2 = POP[s2]
    p3 = POP[s3]
    if p0 + p1 + p2 + p3 != n:
        return NEED_BRUTE  # a card repeats: several decks
    # ranks held in at least 2, 3, 4 suits (one deck: rank counts)
    a = s0 & s1
    b = s2 & s3
    m2 = a | b | (lo & hi)
    m3 = (a & hi) | (b & lo)
    m4 = a & b
    fs = 0
    if p0 >= 5:
        fs = s0
    elif p1 >= 5:
        fs = s1
    elif p2 >= 5:
        fs = s2
    elif p3 >= 5:
        fs = s3
    return _fast_best(m1, m2, m3, m4, fs, lv_a, lv_b)


@jit
def score_hand(cards, column_pos, wild_ranks, elevated, inverted):
    """Score of one hand, for use inside other kernels.

    cards : int8[k] (5..8 cards, -1 ignored); column_pos : int8[13] position
    of each category id; wild_ranks / elevated : 13-bit masks. Kernels that
    score many hands under one reading should call :func:`reading` once and
    :func:`score_row` per hand instead.
    """
    lv_a, lv_b, order = reading(column_pos, inverted, elevated)
    return score_row(cards.reshape(1, cards.shape[0]), 0, wild_ranks, lv_a, lv_b, order)


@jit
def category_of_level(score, lv_a, lv_b):
    """Category id of a score made under the reading ``(lv_a, lv_b)`` (any lift)."""
    lv = score >> 20
    for cat in range(N_CATEGORIES):
        if _lv(lv_a, lv_b, cat) == lv:
            return cat
    return -1


@jit
def category_of_score(score, column_pos, inverted):
    """Category id of a score produced under ``column_pos`` / ``inverted``."""
    lv = score >> 20
    elevated = lv & 1  # natural levels are even, elevated ones odd
    p = 13 - (lv - 3 * elevated) // 2
    if inverted:
        p = 12 - p
    for cat in range(N_CATEGORIES):
        if column_pos[cat] == p:
            return cat
    return -1


@jit
def best_category_hand(cards, column_pos, wild_ranks, elevated, inverted):
    """Category id of the best hand of one player (for use inside kernels)."""
    return category_of_score(score_hand(cards, column_pos, wild_ranks, elevated, inverted),
                             column_pos, inverted)


@jit
def hand_profile(cards, wild_ranks, out_tb):
    """Best tie-break of every category for one hand; -1 where not made.

    cards : int8[k], -1 entries ignored. out_tb : int64[13], written.
    """
    rows = cards.reshape(1, cards.shape[0])
    w, crank, m1, sm, cs0, cs1, cs2, cs3, c1, c2, maxsc, multi = _wild_counts(rows, 0,
                                                                               wild_ranks)
    if w > 0:
        for cat in range(N_CATEGORIES):
            out_tb[cat] = _wild_tb(cat, w, crank, m1, sm, cs0, cs1, cs2, cs3, c1, c2, maxsc,
                                   multi)
        return
    m1 = m2 = m3 = m4 = 0
    sm = 0
    dup = False
    for c8 in cards:
        c = np.int64(c8)
        if c < 0:
            continue
        b = 1 << (c >> 2)
        sb = b << (16 * (c & 3))
        dup |= (sm & sb) != 0
        sm |= sb
        m4 |= m3 & b
        m3 |= m2 & b
        m2 |= m1 & b
        m1 |= b
    if not dup:
        fs = _flush_suit(sm)
        for cat in range(N_CATEGORIES):
            out_tb[cat] = _fast_tb(cat, m1, m2, m3, m4, fs)
            if out_tb[cat] == NEED_BRUTE:
                dup = True
    if dup:
        _brute_profile(cards, wild_ranks, out_tb)


# ---------------------------------------------------------------------------
# Array drivers
# ---------------------------------------------------------------------------
@jit(inline="always")
def _n_bits(m):
    """Set bits of a mask of at most 52 bits."""
    return (np.int64(POP[m & ALL_RANKS]) + np.int64(POP[(m >> 13) & ALL_RANKS])
            + np.int64(POP[(m >> 26) & ALL_RANKS]) + np.int64(POP[(m >> 39) & ALL_RANKS]))


@jit(inline="always")
def _valid_row(cards, i, min_cards):
    """True when hand ``cards[i]`` (int8[n, k]) may be scored with one deck.

    Codes are 0..51 or -1 (no card), no card repeats, and the hand holds at
    least ``min_cards`` cards. No branch on the cards (and no call: either
    would double the cost); a caller that gets False names the fault.
    """
    bad = False
    seen = 0  # bit c + 1 for card c, bit 0 for "no card"
    twice = 0  # those bits seen again
    for j in range(cards.shape[1]):
        c1 = np.int64(cards[i, j]) + 1
        bad |= np.uint64(c1) > np.uint64(52)
        bit = np.int64(1) << (c1 & 63)
        twice |= seen & bit
        seen |= bit
    # "no card" may repeat
    return not bad and (twice & ~np.int64(1)) == 0 and _n_bits(seen >> 1) >= min_cards


@jit
def _valid_row_decks(cards, i, decks, min_cards):
    """:func:`_valid_row` where each card may be there ``decks`` times."""
    k = cards.shape[1]
    n_real = 0
    for j in range(k):
        c = np.int64(cards[i, j])
        if c < -1 or c > 51:
            return False
        if c >= 0:
            n_real += 1
            copies = 0
            for t in range(k):
                copies += np.int64(cards[i, t]) == c
            if copies > decks:
                return False
    return n_real >= min_cards


@jit
def hands_are_valid(cards, decks, min_cards):
    """True when every hand of ``cards`` (int8[n, k]) may be scored with ``decks`` decks.

    Codes are 0..51 or -1 (no card), each hand holds at least ``min_cards``
    cards and no card more than ``decks`` times.
    """
    for i in range(cards.shape[0]):
        if decks == 1:
            if not _valid_row(cards, i, min_cards):
                return False
        elif not _valid_row_decks(cards, i, decks, min_cards):
            return False
    return True


@jit
def _score_rows(cards, column_pos, inverted, wild, elev, check, min_cards, out_scores):
    # one call site of the inlined score_row keeps compile time down; the loop runs over
    # range(cards.shape[0]) (a chunk is a slice): LLVM then makes the check a tenth cheaper
    n_wild = wild.shape[0]
    n_elev = elev.shape[0]
    last = elev[0]
    lv_a, lv_b, order = reading(column_pos, inverted, last)
    for i in range(cards.shape[0]):
        # each hand checked just before it is scored: the checks overlap the scoring's
        # waits on its table lookups (a pass over the batch first cost a fifth more)
        if check and not _valid_row(cards, i, min_cards):
            return False
        if n_elev > 1 and elev[i] != last:
            last = elev[i]
            lv_a, lv_b, order = reading(column_pos, inverted, last)
        out_scores[i] = score_row(cards, i, wild[i if n_wild > 1 else 0], lv_a, lv_b, order)
    return True


@jit
def score_batch(cards, column_pos, inverted, wild, elev, out_scores):
    """Scores of many hands, serially, unchecked (see :func:`hands_are_valid`).

    cards : int8[n, k]; column_pos : int8[13]; wild, elev : int64[1] (shared)
    or int64[n] (per hand); out_scores : int64[n], written in place.
    """
    _score_rows(cards, column_pos, inverted, wild, elev, False, 0, out_scores)


@jit
def score_batch_checked(cards, column_pos, inverted, wild, elev, check, min_cards, out_scores):
    """:func:`score_batch` that, when ``check``, checks each hand for one deck as it goes.

    Returns False, leaving ``out_scores`` partly written, at the first hand
    that fails :func:`_valid_row`.
    """
    return _score_rows(cards, column_pos, inverted, wild, elev, check, min_cards, out_scores)


@pjit
def score_batch_parallel(cards, column_pos, inverted, wild, elev, check, min_cards, n_chunks,
                         out_scores):
    """:func:`score_batch_checked` split into ``n_chunks`` contiguous chunks over threads.

    Each chunk writes only its own rows, so the result is bit-identical to
    the serial driver whatever the thread count.
    """
    n = cards.shape[0]
    ok = np.ones(n_chunks, np.bool_)
    for ch in prange(n_chunks):
        start = ch * n // n_chunks
        stop = (ch + 1) * n // n_chunks
        ok[ch] = _score_rows(cards[start:stop], column_pos, inverted,
                             wild[start:stop] if wild.shape[0] > 1 else wild,
                             elev[start:stop] if elev.shape[0] > 1 else elev,
                             check, min_cards, out_scores[start:stop])
    return ok.all()


@jit
def profile_batch(cards, wild, out_profile):
    """Per-category best tie-break of many hands.

    cards : int8[n, k]; wild : int64[1] or int64[n]; out_profile : int64[n, 13].
    """
    n_wild = wild.shape[0]
    for i in range(cards.shape[0]):
        hand_profile(cards[i], wild[i if n_wild > 1 else 0], out_profile[i])
