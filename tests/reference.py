"""Slow, obviously-correct oracles for hand evaluation (SPEC sections 1, 2 and 9).

Nothing here is shared with ``nop_sim.evaluator`` or its kernels: the point is
a second, independent reading of the SPEC, written for clarity, against which
the fast evaluator is tested. Plain Python only; memoisation keeps it usable.

Cards use the SPEC code ``4 * (rank - 2) + suit`` (ranks 2..14, suits 0..3),
``-1`` is padding. A 13-bit rank mask has bit ``rank - 2`` for each rank.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations, combinations_with_replacement

# Category ids, in the SPEC's table order (= the default column, top first): data
# from nop_sim.core.types, their one definition; the oracles below read none of
# the evaluator's code.
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

ALL_RANKS = tuple(range(2, 15))
RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"


# -- cards ---------------------------------------------------------------------
def rank_of(card: int) -> int:
    return card // 4 + 2


def suit_of(card: int) -> int:
    return card % 4


def code(text: str) -> int:
    """'As' -> 51, 'Th'/'10h' -> 34 (a tiny parser of our own, for hand-made tests)."""
    text = text.strip()
    rank_text, suit_text = text[:-1].upper(), text[-1].lower()
    if rank_text == "10":
        rank_text = "T"
    return 4 * RANK_CHARS.index(rank_text) + SUIT_CHARS.index(suit_text)


def codes(text: str) -> list[int]:
    """'Ks Kd 7h' -> [47, 45, 22]."""
    return [code(t) for t in text.split()]


def text(card: int) -> str:
    return RANK_CHARS[card // 4] + SUIT_CHARS[card % 4]


def is_wild(card: int, wild_ranks: int) -> bool:
    return bool((wild_ranks >> (rank_of(card) - 2)) & 1)


def real_cards(cards: Iterable[int]) -> list[int]:
    """The hand's cards without ``-1`` padding; reject anything else outside 0..51."""
    out = []
    for c in cards:
        c = int(c)
        if c == -1:
            continue
        if not 0 <= c <= 51:
            raise ValueError(f"card code {c} is outside 0..51")
        out.append(c)
    return out


# -- classification of five concrete cards (SPEC section 2) --------------------
def straight_top(ranks: Sequence[int]) -> int | None:
    """Top card if the five ranks are five consecutive ranks, else None.

    A-2-3-4-5 (the wheel) counts with top card 5; A-K-Q-J-T is the highest.
    """
    distinct = sorted(set(ranks))
    if len(distinct) != 5:
        return None
    if distinct == [2, 3, 4, 5, 14]:
        return 5
    if distinct[4] - distinct[0] == 4:
        return distinct[4]
    return None


@cache
def classify_ranks(ranks: tuple[int, ...], mono: bool) -> tuple[int, tuple[int, ...]]:
    """Category and tie-break of five cards given their ranks and whether one suit.

    Classification depends on nothing else: every pattern in the SPEC table is a
    statement about the rank multiset and/or "all one suit". Patterns are tried
    in table order and the first match wins, exactly as the SPEC says.
    """
    assert len(ranks) == 5
    desc = tuple(sorted(ranks, reverse=True))
    counts = Counter(ranks)
    # Ranks ordered by (how many, rank), e.g. K K K 7 7 -> [K, 7].
    by_group = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    top = straight_top(ranks)

    # 0 Flush Five: all five the same rank and the same suit.
    if shape == [5] and mono:
        return FLUSH_FIVE, (desc[0],)
    # 1 Flush House: three of one rank + two of another, all one suit.
    if shape == [3, 2] and mono:
        return FLUSH_HOUSE, (by_group[0], by_group[1])
    # 2 Five of a Kind: all five the same rank.
    if shape == [5]:
        return FIVE_OF_A_KIND, (desc[0],)
    # 3 Royal Flush: T J Q K A, all one suit.
    if mono and sorted(ranks) == [10, 11, 12, 13, 14]:
        return ROYAL_FLUSH, ()
    # 4 Straight Flush: five consecutive ranks, all one suit.
    if mono and top is not None:
        return STRAIGHT_FLUSH, (top,)
    # 5 Four of a Kind: four of one rank (five of one rank was caught above).
    if shape[0] >= 4:
        return FOUR_OF_A_KIND, (by_group[0], by_group[1])
    # 6 Full House: three of one rank + two of another.
    if shape == [3, 2]:
        return FULL_HOUSE, (by_group[0], by_group[1])
    # 7 Flush: all one suit; tie-break the five ranks, duplicates included.
    if mono:
        return FLUSH, desc
    # 8 Straight.
    if top is not None:
        return STRAIGHT, (top,)
    # 9 Three of a Kind (shape 3-1-1 here): the triple, then two kickers.
    if shape[0] == 3:
        kickers = tuple(sorted((r for r in ranks if r != by_group[0]), reverse=True))
        return THREE_OF_A_KIND, (by_group[0],) + kickers
    # 10 Two Pair (shape 2-2-1): higher pair, lower pair, kicker.
    if shape == [2, 2, 1]:
        return TWO_PAIR, (by_group[0], by_group[1], by_group[2])
    # 11 One Pair (shape 2-1-1-1): the pair, then three kickers.
    if shape[0] == 2:
        kickers = tuple(sorted((r for r in ranks if r != by_group[0]), reverse=True))
        return ONE_PAIR, (by_group[0],) + kickers
    # 12 High Card: the five ranks, highest first.
    return HIGH_CARD, desc


def classify5(ranks: Sequence[int], suits: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """SPEC section 2 classification of exactly five concrete cards.

    Parameters
    ----------
    ranks, suits : five ints each
        Ranks 2..14 and suits 0..3; repeats are allowed (several decks).

    Returns
    -------
    (category_id, tiebreak) ; tie-breaks of one category compare as tuples.
    """
    ranks, suits = tuple(int(r) for r in ranks), tuple(int(s) for s in suits)
    if len(ranks) != 5 or len(suits) != 5:
        raise ValueError("classify5 takes exactly five cards")
    if not all(2 <= r <= 14 for r in ranks) or not all(0 <= s <= 3 for s in suits):
        raise ValueError(f"bad ranks {ranks} or suits {suits}")
    return classify_ranks(ranks, len(set(suits)) == 1)


def classify_codes(cards: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """:func:`classify5` of five card codes."""
    return classify5([rank_of(c) for c in cards], [suit_of(c) for c in cards])


# -- what a hand can make ------------------------------------------------------
@cache
def _options(natural_ranks: tuple[int, ...], n_wild: int, can_mono: bool,
             can_mixed: bool) -> dict[int, tuple[int, ...]]:
    """Best tie-break per category over every way of giving the wilds values.

    Why this enumeration is exhaustive: classification depends only on the
    rank multiset of the five cards and on whether all five share a suit
    (see :func:`classify_ranks`). A wild may take any rank and any suit,
    independently of the others and of the naturals, so the reachable rank
    multisets are exactly ``natural_ranks + W`` for every multiset ``W`` of
    ``n_wild`` ranks (order among wilds is irrelevant: combinations with
    replacement). "All one suit" is reachable iff the naturals share one suit
    (or there are none): give every wild that suit (``can_mono``). "Not all one
    suit" is reachable iff the naturals already mix suits, or there is a wild
    that can take a suit different from some other card (``can_mixed``). The
    caller works these two flags out from the actual cards.
    """
    best: dict[int, tuple[int, ...]] = {}
    monos = [m for m, ok in ((True, can_mono), (False, can_mixed)) if ok]
    for wild_values in combinations_with_replacement(ALL_RANKS, n_wild):
        ranks = tuple(sorted(natural_ranks + wild_values))
        for mono in monos:
            cat, tb = classify_ranks(ranks, mono)
            if cat not in best or tb > best[cat]:
                best[cat] = tb
    return best


def _subset_options(five: Sequence[int], wild_ranks: int) -> dict[int, tuple[int, ...]]:
    naturals = [c for c in five if not is_wild(c, wild_ranks)]
    n_wild = 5 - len(naturals)
    natural_suits = {suit_of(c) for c in naturals}
    can_mono = len(natural_suits) <= 1
    can_mixed = len(natural_suits) > 1 or n_wild >= 1
    natural_ranks = tuple(sorted(rank_of(c) for c in naturals))
    return _options(natural_ranks, n_wild, can_mono, can_mixed)


def category_options(cards: Iterable[int], wild_ranks: int = 0) -> dict[int, tuple[int, ...]]:
    """For each category the hand can make, the best tie-break it can make in it.

    Every 5-card subset of the real cards and every assignment of wild values
    is considered. This is also the oracle for ``profile``.
    """
    if not 0 <= int(wild_ranks) <= 8191:
        raise ValueError(f"wild_ranks {wild_ranks} is outside 0..8191")
    cards = real_cards(cards)
    if len(cards) < 5:
        raise ValueError(f"a hand needs at least 5 cards, got {len(cards)}")
    best: dict[int, tuple[int, ...]] = {}
    seen = set()
    for five in combinations(sorted(cards), 5):
        if five in seen:  # duplicates (several decks) repeat subsets
            continue
        seen.add(five)
        for cat, tb in _subset_options(five, int(wild_ranks)).items():
            if cat not in best or tb > best[cat]:
                best[cat] = tb
    return best


# -- the column, elevation, inversion ------------------------------------------
def positions_of(column_order: Iterable[int], inverted: bool = False) -> list[int]:
    """Position (0 = top) of each category id, with the column read bottom-up
    when ``inverted``."""
    order = [int(c) for c in column_order]
    if sorted(order) != list(range(N_CATEGORIES)):
        raise ValueError(f"column {order} is not a permutation of 0..12")
    pos = [0] * N_CATEGORIES
    for p, cat in enumerate(order):
        pos[cat] = (N_CATEGORIES - 1 - p) if inverted else p
    return pos


def category_key(cat: int, tiebreak: tuple[int, ...], positions: Sequence[int],
                 elevated: int = 0) -> tuple:
    """Showdown key of one made hand; a larger key wins, equal keys split.

    Smaller effective position wins; at equal effective position an elevated
    hand beats a natural one; then the tie-break. (effective position,
    elevated) identifies the category, so tie-breaks only ever meet tie-breaks
    of the same category.
    """
    is_elevated = bool((int(elevated) >> cat) & 1)
    effective = positions[cat] - (1 if is_elevated else 0)
    return (-effective, int(is_elevated), tiebreak)


def best_key(cards: Iterable[int], column_order: Iterable[int] = tuple(range(13)),
             wild_ranks: int = 0, elevated: int = 0, inverted: bool = False) -> tuple:
    """Key of the player's best hand under the column (larger wins, equal splits)."""
    return _best(cards, column_order, wild_ranks, elevated, inverted)[0]


def best_category(cards: Iterable[int], column_order: Iterable[int] = tuple(range(13)),
                  wild_ranks: int = 0, elevated: int = 0, inverted: bool = False) -> int:
    """Category id of the player's best hand under the column."""
    return _best(cards, column_order, wild_ranks, elevated, inverted)[1]


def _best(cards, column_order, wild_ranks, elevated, inverted):
    if not 0 <= int(elevated) <= 8191:
        raise ValueError(f"elevated {elevated} is outside 0..8191")
    positions = positions_of(column_order, inverted)
    options = category_options(cards, wild_ranks)
    # The best hand is chosen UNDER the column: the strongest option by key.
    keyed = [(category_key(cat, tb, positions, elevated), cat) for cat, tb in options.items()]
    return max(keyed)


# -- Ordered Hand blocks (SPEC section 9) -----------------------------------------
def classify_block(cards: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """Category and tie-break of a block of adjacent cards, or ``(-1, ())``.

    1 card: High Card; 2: One Pair only; 3: Three of a Kind only; 4: Two Pair
    or Four of a Kind only; 5: the five-card categories listed in SPEC 9
    (Straight, Flush, Full House, Straight Flush, Royal Flush) by the SPEC
    section 2 classification. Tie-breaks are those of section 2 over the
    played cards.
    """
    cards = [int(c) for c in cards]
    ranks = sorted((rank_of(c) for c in cards), reverse=True)
    counts = sorted(Counter(ranks).values(), reverse=True)
    n = len(cards)
    if n == 1:
        return HIGH_CARD, (ranks[0],)
    if n == 2 and counts == [2]:
        return ONE_PAIR, (ranks[0],)
    if n == 3 and counts == [3]:
        return THREE_OF_A_KIND, (ranks[0],)
    if n == 4 and counts == [4]:
        return FOUR_OF_A_KIND, (ranks[0],)
    if n == 4 and counts == [2, 2]:
        return TWO_PAIR, (ranks[0], ranks[3])
    if n == 5:
        cat, tb = classify_codes(cards)
        if cat in FIVE_CARD_BLOCKS:
            return cat, tb
    return -1, ()


FIVE_CARD_BLOCKS = frozenset({ROYAL_FLUSH, STRAIGHT_FLUSH, FULL_HOUSE, FLUSH, STRAIGHT})


# -- a person's table (nop-sim play): what they may know ----------------------------------
CARD_TEXT = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][cdhs](?![A-Za-z0-9])")


def known_cards(records, seat: int) -> set[str]:
    """The cards seat ``seat`` may have seen in a match's full log (records of
    ``events.to_records``): its own, the boards, and the hands shown at a showdown."""
    shown = {(r["hand"], r["seat"]) for r in records if r["event"] == "show"}
    known = set()
    for r in records:
        if r["event"] == "board" or (r["event"] in ("deal", "hole", "discard")
                                     and (r["seat"] == seat or (r["hand"], r["seat"]) in shown)):
            known |= set(r["cards"])
    return known


# -- New Order's betting abstraction (nop_sim.games.new_order.abstraction, kernels.table) --
def betting_infoset(abstraction, rnd: int, to_call: int, pot: int, strength: float,
                    own_start: int, others_start: Sequence[int]) -> int:
    """The information set of a betting decision, from what a logged match shows.

    ``rnd`` the betting round (0, 1, 2), ``to_call`` and ``pot`` before the turn's
    promotions, ``strength`` the judged chance to beat every live opponent,
    ``own_start`` the seat's chips at the hand's start and ``others_start`` its live
    opponents'. Buckets as abstraction.TRAIN_KEYS says, numbered phase, facing,
    strength, odds, stack (most significant first).
    """
    n_strength = abstraction.strength_buckets
    n_odds = abstraction.odds_buckets
    n_stack = abstraction.stack_buckets
    facing = 1 if to_call > 0 else 0
    strength_bucket = min(int(max(strength, 0.0) * n_strength), n_strength - 1)
    odds = to_call / (pot + to_call) if to_call > 0 else 0.0
    odds_bucket = min(int(odds * 2 * n_odds), n_odds - 1)  # slices of [0, 1/2)
    mean_others = sum(others_start) / len(others_start)
    ratio = own_start / mean_others
    edges = [2.0 ** (k - n_stack / 2) for k in range(1, n_stack)]  # 1 in the middle
    stack_bucket = sum(1 for e in edges if ratio >= e)
    digits = [(rnd, 3), (facing, 2), (strength_bucket, n_strength), (odds_bucket, n_odds),
              (stack_bucket, n_stack)]
    index = 0
    for value, radix in digits:
        assert 0 <= value < radix
        index = index * radix + value
    return index
