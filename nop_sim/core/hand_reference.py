"""Five cards classified in plain Python (SPEC section 2): the referees' reference.

Both referees (:mod:`nop_sim.games.new_order.referee`, :mod:`nop_sim.games.ordered_hand.referee`) score
hands with these functions, not with the kernels they check; nothing here
imports numba, :mod:`nop_sim.kernels` or :mod:`nop_sim.evaluator`
(``tests/test_referee_independent.py``). Written to be read, not to be fast:
``collections.Counter`` over the five ranks.

Cards use the SPEC code ``4 * (rank - 2) + suit`` (ranks 2..14, suits 0..3).
A tie-break is a tuple of ranks, compared as tuples: larger wins.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from nop_sim.core import types as T

__all__ = ["card_rank", "classify_five", "classify_ranks", "grouped_ranks"]


def card_rank(card: int) -> int:
    """Rank 2..14 of a card code."""
    return card // 4 + 2


def grouped_ranks(ranks: Iterable[int]) -> tuple[int, ...]:
    """Each distinct rank once, the biggest group first, then the higher rank:
    ``(9, 9, 4, 4, 4)`` -> ``(4, 9)``. The tie-break of every grouped category."""
    counts = Counter(ranks)
    return tuple(r for r, _ in sorted(counts.items(), key=lambda rc: (-rc[1], -rc[0])))


def classify_ranks(ranks: Iterable[int], one_suit: bool) -> tuple[int, tuple[int, ...]]:
    """SPEC 2: the first pattern of the table five cards match, and its tie-break ranks.

    Every pattern reads only the five ranks (a multiset: several decks and wild
    cards repeat ranks) and whether all five share a suit, which is why the
    New Order referee can search wild-card values over ranks and one suit flag.
    """
    ranks = tuple(sorted(ranks, reverse=True))
    counts = Counter(ranks)
    shape = sorted(counts.values(), reverse=True)
    groups = grouped_ranks(ranks)
    top = None  # the straight's top card (5 for the wheel A-2-3-4-5)
    if len(counts) == 5:
        if ranks[0] - ranks[4] == 4:
            top = ranks[0]
        elif ranks == (14, 5, 4, 3, 2):
            top = 5
    if shape == [5]:
        return (T.FLUSH_FIVE if one_suit else T.FIVE_OF_A_KIND), groups
    if shape == [3, 2]:
        return (T.FLUSH_HOUSE if one_suit else T.FULL_HOUSE), groups
    if top is not None and one_suit:
        return (T.ROYAL_FLUSH, ()) if top == 14 else (T.STRAIGHT_FLUSH, (top,))
    if shape == [4, 1]:
        return T.FOUR_OF_A_KIND, groups
    if one_suit:
        return T.FLUSH, ranks
    if top is not None:
        return T.STRAIGHT, (top,)
    if shape == [3, 1, 1]:
        return T.THREE_OF_A_KIND, groups
    if shape == [2, 2, 1]:
        return T.TWO_PAIR, groups
    if shape == [2, 1, 1, 1]:
        return T.ONE_PAIR, groups
    return T.HIGH_CARD, ranks


def classify_five(cards: Iterable[int]) -> tuple[int, tuple[int, ...]]:
    """(category, tie-break ranks) of five concrete card codes, no wild cards."""
    cards = list(cards)
    return classify_ranks([card_rank(c) for c in cards], len({c % 4 for c in cards}) == 1)
