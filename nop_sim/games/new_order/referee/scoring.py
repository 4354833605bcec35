"""The referee's own hand scoring and the stacking of Disruptor effects (SPEC R6, R8)."""

from __future__ import annotations

from functools import cache, lru_cache
from itertools import combinations, combinations_with_replacement

from nop_sim.core.hand_reference import classify_ranks


# -- the referee's own hand scoring (five cards: nop_sim.core.hand_reference) ----------------
@cache
def _options(naturals: tuple[int, ...], n_wild: int, one_suit: bool,
             mixed: bool) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Every category five cards can make, each with its best tie-break.

    ``naturals`` are the ranks of the cards that are not wild (sorted),
    ``n_wild`` the number of wild cards, ``one_suit`` / ``mixed`` whether the
    five can be all one suit / not all one suit.

    Why this is every value the wild cards can take (SPEC 1: a wild stands for
    any rank and any suit, a card already in the hand included), though it
    tries 13 ranks and two suits rather than 52 cards per wild: the
    classification (:func:`~nop_sim.core.hand_reference.classify_ranks`) reads only the rank multiset and whether
    all five share a suit. Each wild's rank and suit are free and independent
    of the other cards, so the rank multisets reachable are exactly
    ``naturals + W`` for every multiset ``W`` of ``n_wild`` ranks
    (``combinations_with_replacement``: the order of wilds is irrelevant), and
    for each of them the suit flag can be made true iff the naturals share a
    suit or there are none (give every wild that suit, s) and false iff the
    naturals mix suits or there is a wild (give one wild a suit other than s:
    five cards always hold another). So the wild values that matter are ranks
    2..14 in suit s or one other suit, and the best of every reachable
    (multiset, flag) pair is the best of every assignment of 52 values per
    wild (``tests/test_referee.py`` checks this against that brute force).
    Under any column the best hand of a category is its best tie-break, so one
    tie-break per category is kept.
    """
    flags = ((True,) if one_suit else ()) + ((False,) if mixed else ())
    best: dict[int, tuple[int, ...]] = {}
    for extra in combinations_with_replacement(range(2, 15), n_wild):
        ranks = naturals + extra
        for flag in flags:
            cat, tb = classify_ranks(ranks, flag)
            if cat not in best or tb > best[cat]:
                best[cat] = tb
    return tuple(best.items())


def _five_options(five: tuple[int, ...], wild_ranks: int) -> tuple[tuple[int, tuple], ...]:
    """:func:`_options` of five card codes; ``wild_ranks`` has bit ``rank - 2`` per wild rank."""
    naturals = [c for c in five if not (wild_ranks >> (c // 4)) & 1]
    suits = {c % 4 for c in naturals}
    n_wild = 5 - len(naturals)
    ranks = tuple(sorted(c // 4 + 2 for c in naturals))
    if n_wild == 0:
        return _options(ranks, 0, len(suits) == 1, len(suits) > 1)
    return _options(ranks, n_wild, len(suits) <= 1, True)


@lru_cache(maxsize=200_000)
def _best(cards: tuple[int, ...], wild_ranks: int, positions: tuple[int, ...],
          elevation: tuple[int, ...], inverted: bool) -> tuple[tuple, int]:
    """(key, category) of the best five of ``cards``; see :func:`score_hand`."""
    best = None
    for five in combinations(cards, 5):
        for cat, tb in _five_options(five, wild_ranks):
            pos = 12 - positions[cat] if inverted else positions[cat]
            up = elevation[cat]
            key = (-(pos - up), int(up > 0), tb)
            if best is None or key > best[0]:
                best = (key, cat)
    return best


def score_hand(cards, column, *, wild_ranks: int = 0, elevation=None,
               inverted: bool = False) -> tuple[tuple, int]:
    """The referee's own score of a player's best hand (SPEC 1 and 2), in plain Python.

    Parameters
    ----------
    cards : 5..8 card codes 0..51 (repeats allowed: several decks)
    column : the 13 category ids, top first
    wild_ranks : 13-bit mask, bit ``rank - 2`` set for each wild rank
    elevation : 13 ints, positions each category is elevated (0: none); None = none
    inverted : the column is read bottom-up (the Inversion card)

    Returns
    -------
    (key, category): keys compare like hands (larger wins, equal splits): the
    effective position (elevation counted), then an elevated hand above a
    natural one, then the tie-break ranks. The five cards and the wild values
    are chosen to maximise the key, i.e. under the column.
    """
    positions = [0] * 13
    for i, c in enumerate(column):
        positions[int(c)] = i
    elevation = tuple(int(e) for e in elevation) if elevation is not None else (0,) * 13
    return _best(tuple(sorted(int(c) for c in cards)), int(wild_ranks), tuple(positions),
                 elevation, bool(inverted))


# -- Disruptor effects from the catalog ------------------------------------------------------


def _stacked(rule: str, amount: int, copies: int, none: int) -> int:
    """The number an effect uses with ``copies`` copies of its card in play (or held).

    ``rule`` is the card's ``stack`` in the catalog (SPEC R6, see
    ``nop_sim/games/new_order/data/disruptors.toml``), ``amount`` its catalog amount (R8) and
    ``none`` the effect's number with no copy in play.
    """
    if copies == 0:
        return none
    if rule == "multiply":
        return amount**copies
    if rule == "add":
        return amount * copies
    if rule == "once":
        return amount
    raise ValueError(f"a card that stacks {rule!r} acts copy by copy, not as one number")

