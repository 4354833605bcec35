"""Public hand evaluation: which hand is best under today's Ranking Column.

Validate, allocate, call a kernel, wrap. The kernels live in
:mod:`nop_sim.kernels.evaluate`, whose docstring defines the score.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from typing import NamedTuple

import numba
import numpy as np

from nop_sim.core.cards import CARD_DTYPE, MAX_DECKS, N_CARDS, NO_CARD, format_cards, validate_cards
from nop_sim.core.column import DEFAULT_COLUMN, N_CATEGORIES, Category, Column
from nop_sim.kernels import evaltable as _t
from nop_sim.kernels import evaluate as _k

__all__ = [
    "BestHand",
    "EvaluationTables",
    "best_category",
    "best_hand",
    "build_tables",
    "category_of_scores",
    "compile_kernels",
    "evaluate",
    "evaluation_tables",
    "profile",
    "score_with_tables",
]

MASK_LIMIT = 1 << 13
MAX_CARDS = 8
MIN_CARDS = 5
# From this many hands, evaluate() builds the tables of a column (tables already
# built serve any batch). Building them costs what the tables save on about
# 10,000 hands (`nop-sim bench evaluator`: table_break_even_hands, and
# table_break_even_measured, 12,500 when timed directly; 15,000 before the table
# kernel was twice as fast).
TABLE_MIN_HANDS = 20_000
TABLE_CACHE_SIZE = 16


def _column_positions(column) -> np.ndarray:
    """int8 positions per category id from a Column or an array of ids (top first)."""
    if isinstance(column, Column):
        return column.positions()
    arr = np.asarray(column)
    if arr.ndim != 1 or arr.shape[0] != N_CATEGORIES or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(
            f"column {arr.tolist()!r} must be a Column or 13 integer category ids, top first"
        )
    return Column.from_array(arr).positions()


def _masks(value, n: int, name: str, allowed: str) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(value))
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must be an integer 13-bit mask ({allowed}), got {value!r}")
    arr = arr.astype(np.int64)
    if arr.ndim != 1 or arr.shape[0] not in (1, n):
        raise ValueError(f"{name} must be one mask or one per hand ({n}), got shape {arr.shape}")
    bad = (arr < 0) | (arr >= MASK_LIMIT)
    if bad.any():
        raise ValueError(
            f"{name} {int(arr[bad][0])} is outside 0..8191 (a 13-bit mask: {allowed})"
        )
    return arr


def _prepare(cards, decks: int, wild_ranks, elevated=0, check_cards=True):
    arr = np.asarray(cards)
    single = arr.ndim == 1
    if single:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"cards must be one hand (1-D) or hands x cards (2-D), got {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"cards must be integer card codes 0..51 (-1 = none), got {arr.dtype}")
    if arr.shape[1] > MAX_CARDS:
        raise ValueError(f"{arr.shape[1]} cards per hand; at most {MAX_CARDS} are allowed")
    if not isinstance(decks, (int, np.integer)) or not 1 <= decks <= MAX_DECKS:
        raise ValueError(f"decks {decks!r} is not allowed: use an integer from 1 to {MAX_DECKS}")
    if arr.dtype != CARD_DTYPE and arr.size and (arr.min() < NO_CARD or arr.max() >= N_CARDS):
        validate_cards(arr, decks=int(decks), min_cards=MIN_CARDS)  # before a cast wraps the code
    arr = np.ascontiguousarray(arr, dtype=CARD_DTYPE)
    if check_cards and not _k.hands_are_valid(arr, int(decks), MIN_CARDS):
        _name_the_fault(arr, decks)
    n = arr.shape[0]
    wild = _masks(wild_ranks, n, "wild_ranks", "bit 0 = rank 2 ... bit 12 = ace")
    elev = _masks(elevated, n, "elevated", "bit i = category id i")
    return arr, single, wild, elev


def _name_the_fault(arr: np.ndarray, decks) -> None:
    """Raise the ValueError that names the first bad card or hand of a batch a kernel refused.

    The hands are checked in compiled code (numpy's checks cost several times the
    scoring); only a batch that fails there comes here.
    """
    validate_cards(arr, decks=int(decks), min_cards=MIN_CARDS)
    raise AssertionError("the kernel refused hands that validate_cards accepts")  # pragma: no cover


def _threads() -> int:
    return numba.get_num_threads()


class EvaluationTables(NamedTuple):
    """The tables of one reading of the column, for hands of ``n_cards`` cards.

    See :mod:`nop_sim.kernels.evaltable`; ``(lv_a, lv_b)`` is the reading
    (column, inversion, Elevator) they were built under.
    """

    n_cards: int
    base_hi: np.ndarray          # int32[5**6]
    rank_lo: np.ndarray          # int32[5**7]
    multiset_scores: np.ndarray  # int32[n_multisets]
    flush_scores: np.ndarray     # int32[8192]
    lv_a: int
    lv_b: int


_TABLES: dict[tuple, EvaluationTables] = {}
_TABLES_LOCK = threading.Lock()  # evaluate() may be called from several threads


def build_tables(pos: np.ndarray, inverted: bool, elevated: int, n_cards: int
                 ) -> EvaluationTables:
    """Build the tables of one reading afresh, never from the cache (:func:`evaluation_tables`
    keeps them; ``nop-sim bench evaluator`` times this).

    ``pos``: int8 ``(13,)`` each category id's position in the column (top first,
    :meth:`Column.positions`); ``inverted``; ``elevated``: the Elevator's 13-bit mask;
    ``n_cards``: the hand size (5..8).
    """
    base_hi, rank_lo, multisets = _t.multiset_index(n_cards)
    lv_a, lv_b, _ = _k.reading(pos, inverted, np.int64(elevated))
    multiset_scores = np.empty(multisets.shape[0], np.int32)
    flush_scores = np.empty(1 << N_CATEGORIES, np.int32)
    _t.build_multiset_scores(multisets, lv_a, lv_b, multiset_scores)
    _t.build_flush_scores(lv_a, lv_b, flush_scores)
    return EvaluationTables(n_cards, base_hi, rank_lo, multiset_scores, flush_scores,
                            int(lv_a), int(lv_b))


def _cached_tables(pos: np.ndarray, inverted: bool, elevated: int, n_cards: int,
                   build: bool) -> EvaluationTables | None:
    """The tables of a reading: from the cache, else built when ``build`` (else None)."""
    key = (pos.tobytes(), bool(inverted), int(elevated), int(n_cards))
    tables = _TABLES.get(key)
    if tables is None and build:
        tables = build_tables(pos, inverted, elevated, n_cards)
        with _TABLES_LOCK:
            while len(_TABLES) >= TABLE_CACHE_SIZE:
                del _TABLES[next(iter(_TABLES))]  # the oldest
            _TABLES[key] = tables
    return tables


def evaluation_tables(column=DEFAULT_COLUMN, *, elevated=0, inverted=False,
                      n_cards=7) -> EvaluationTables:
    """The tables :func:`evaluate` scores hands of ``n_cards`` cards (5..8) with.

    Built once per reading of the column (column, ``inverted`` and a shared
    ``elevated`` mask) and hand size, and kept for the next call.
    """
    pos = _column_positions(column)
    (elev,) = _masks(elevated, 1, "elevated", "bit i = category id i")
    if not isinstance(n_cards, (int, np.integer)) or not (
            _t.MIN_TABLE_CARDS <= n_cards <= _t.MAX_TABLE_CARDS):
        raise ValueError(f"n_cards {n_cards!r}: tables cover hands of "
                         f"{_t.MIN_TABLE_CARDS}..{_t.MAX_TABLE_CARDS} cards")
    return _cached_tables(pos, inverted, elev, n_cards, build=True)


def score_with_tables(arr, tables: EvaluationTables, pos, inverted, elev, check: bool,
                      parallel: bool, out) -> bool:
    """Score ``arr`` (int8 ``(n, tables.n_cards)``) into ``out`` (int64 ``(n,)``, written in
    place) from ``tables``; the rows they leave, the exact way (under ``pos``, ``inverted``
    and the Elevator mask ``elev``, int64 ``(1,)``), on several threads when ``parallel``.

    False when ``check`` and a hand fails the one-deck check. :func:`evaluate` validates
    and calls it; ``nop-sim bench evaluator`` times it.
    """
    t = tables
    args = (arr, t.n_cards, t.base_hi, t.rank_lo, t.multiset_scores, t.flush_scores, t.lv_a,
            t.lv_b, check, MIN_CARDS)
    if parallel and arr.shape[0] > 1:
        n_chunks = max(1, min(arr.shape[0], 4 * _threads()))
        n_exact = _t.score_batch_table_parallel(*args, n_chunks, out)
    else:
        n_exact = _t.score_batch_table(*args, out)
    if n_exact < 0:
        return False
    if n_exact:
        rows = np.flatnonzero(out == _t.EXACT)
        exact = np.empty(rows.shape[0], np.int64)
        _k.score_batch(arr[rows], pos, bool(inverted), np.zeros(1, np.int64), elev, exact)
        out[rows] = exact
    return True


def evaluate(cards, column=DEFAULT_COLUMN, *, wild_ranks=0, elevated=0, inverted=False,
             decks=1, parallel=False):
    """Score hands under a Ranking Column; larger wins, equal scores split.

    Parameters
    ----------
    cards : array_like of int
        ``(n, k)`` card codes with ``k`` from 5 to 8 and ``-1`` padding, or one
        hand (1-D), which returns a scalar.
    column : Column or array_like of 13 ints
        The Ranking Column, position 0 (index 0) on top.
    wild_ranks : int or array_like
        13-bit mask of wild ranks (bit 0 = rank 2), one for all or one per hand.
    elevated : int or array_like
        13-bit mask of categories the player's Elevator names (bit i = id i).
    inverted : bool
        The Inversion community card: the column is read bottom-up.
    decks : int
        Copies of the deck in play (1..4): how often one card may repeat.
    parallel : bool
        Split the batch over all cores (bit-identical to the serial result).

    Returns
    -------
    numpy.ndarray of int64, shape (n,), or an int for one hand. Scores compare
    only between hands evaluated with the same column and ``inverted``.

    Notes
    -----
    In the plain case (one deck, no wild rank, one ``elevated`` mask for all
    hands), a batch of :data:`TABLE_MIN_HANDS` or more is scored from tables
    built for the column (:func:`evaluation_tables`, kept for later calls),
    about eight times faster; the scores are the same.
    """
    # one deck (the common case): the kernel checks each hand as it scores it
    in_kernel = decks == 1
    arr, single, wild, elev = _prepare(cards, decks, wild_ranks, elevated,
                                       check_cards=not in_kernel)
    pos = _column_positions(column)
    out = np.empty(arr.shape[0], np.int64)
    tables = None
    if (in_kernel and elev.shape[0] == 1 and not wild.any()
            and _t.MIN_TABLE_CARDS <= arr.shape[1] <= _t.MAX_TABLE_CARDS):
        # the plain case: tables when already built for this reading, or worth building
        tables = _cached_tables(pos, inverted, elev[0], arr.shape[1],
                                build=arr.shape[0] >= TABLE_MIN_HANDS)
    if tables is not None:
        ok = score_with_tables(arr, tables, pos, inverted, elev, in_kernel, parallel, out)
    elif parallel and arr.shape[0] > 1:
        n_chunks = max(1, min(arr.shape[0], 4 * _threads()))
        ok = _k.score_batch_parallel(arr, pos, bool(inverted), wild, elev, in_kernel, MIN_CARDS,
                                     n_chunks, out)
    else:
        ok = _k.score_batch_checked(arr, pos, bool(inverted), wild, elev, in_kernel, MIN_CARDS,
                                    out)
    if not ok:
        _name_the_fault(arr, decks)
    return int(out[0]) if single else out


def compile_kernels() -> None:
    """Compile (or load from numba's cache) the kernels :func:`evaluate` calls, with and
    without wild ranks (``nop-sim compile``)."""
    hands = np.array([[0, 5, 10, 15, 20, 25, 30]], np.int8)
    evaluate(hands)
    evaluate(hands, wild_ranks=1)
    _k.hands_are_valid(hands, 1, MIN_CARDS)  # the check of every call that validates first


def category_of_scores(scores, column=DEFAULT_COLUMN, *, inverted=False) -> np.ndarray:
    """Category ids (int8) of scores returned by :func:`evaluate` with that column."""
    pos = _column_positions(column)
    scores = np.atleast_1d(np.asarray(scores, np.int64))
    level = scores >> 20
    elev = level & 1
    reading = 13 - (level - 3 * elev) // 2
    real = 12 - reading if inverted else reading
    order = np.argsort(pos)  # category at each position
    return order[real].astype(np.int8)


def best_category(cards, column=DEFAULT_COLUMN, *, wild_ranks=0, elevated=0, inverted=False,
                  decks=1, parallel=False):
    """Category id (int8) of each hand's best hand under the column; same arguments."""
    scores = evaluate(cards, column, wild_ranks=wild_ranks, elevated=elevated,
                      inverted=inverted, decks=decks, parallel=parallel)
    cats = category_of_scores(scores, column, inverted=inverted)
    return np.int8(cats[0]) if np.ndim(scores) == 0 else cats


def profile(cards, *, wild_ranks=0, decks=1) -> np.ndarray:
    """Which categories each hand can make, and how well.

    Returns ``(n, 13)`` int64 (or ``(13,)`` for one hand): for each category id
    the tie-break code of the best hand of that category the cards can make
    (larger is better within the category), or -1 when they cannot make it.
    One profile serves every column: the best hand under a column is the
    made category highest in it.
    """
    arr, single, wild, _ = _prepare(cards, decks, wild_ranks)
    out = np.empty((arr.shape[0], N_CATEGORIES), np.int64)
    _k.profile_batch(arr, wild, out)
    return out[0] if single else out


@dataclass(frozen=True)
class BestHand:
    """The five cards behind a score, for hand histories."""

    category: Category
    elevated: bool
    cards: np.ndarray   # int8[5], the player's own cards used
    values: np.ndarray  # int8[5], what each stands for (wild cards take a value)
    score: int

    def __str__(self) -> str:
        shown = []
        for c, v in zip(self.cards, self.values, strict=True):
            shown.append(format_cards([c]) if c == v else f"{format_cards([c])}={format_cards([v])}")
        tag = " (elevated)" if self.elevated else ""
        return f"{self.category.label}{tag}: {' '.join(shown)}"


def _target_ranks(cat: int, tb: int) -> list[int]:
    """Rank indices (0..12) of the five cards a (category, tie-break) describes."""
    r = [((tb >> (16 - 4 * j)) & 15) - 2 for j in range(5)]
    if cat in (Category.FLUSH_FIVE, Category.FIVE_OF_A_KIND):
        return [r[0]] * 5
    if cat in (Category.FLUSH_HOUSE, Category.FULL_HOUSE):
        return [r[0]] * 3 + [r[1]] * 2
    if cat == Category.ROYAL_FLUSH:
        return [12, 11, 10, 9, 8]
    if cat in (Category.STRAIGHT_FLUSH, Category.STRAIGHT):
        top = r[0]
        return [12, 3, 2, 1, 0] if top == 3 else [top - j for j in range(5)]
    if cat == Category.FOUR_OF_A_KIND:
        return [r[0]] * 4 + [r[1]]
    if cat == Category.THREE_OF_A_KIND:
        return [r[0]] * 3 + r[1:3]
    if cat == Category.TWO_PAIR:
        return [r[0]] * 2 + [r[1]] * 2 + [r[2]]
    if cat == Category.ONE_PAIR:
        return [r[0]] * 2 + r[1:4]
    return r  # Flush, High Card: the five ranks


_SUITED = {Category.FLUSH_FIVE, Category.FLUSH_HOUSE, Category.ROYAL_FLUSH,
           Category.STRAIGHT_FLUSH, Category.FLUSH}


def _classify_values(values) -> tuple[int, int]:
    v = np.asarray(values, np.int64)
    code = int(_k.classify5(v >> 2, v & 3))
    return code >> 20, code & 0xFFFFF


def _realise(cat: Category, tb: int, hand, wild_ranks: int):
    """Five of ``hand`` and values for their wilds that classify as (cat, tb).

    Every five-card subset is tried (at most 56); missing ranks of the target
    are given to the subset's wild cards, suited for the flush-type
    categories and off-suit otherwise, and the result is checked by
    classification, so what is returned is right by construction.
    """
    target = Counter(_target_ranks(int(cat), tb))
    real = sorted((int(c) for c in hand if c >= 0), key=lambda c: -c)
    for combo in combinations(real, 5):
        naturals = [c for c in combo if not (wild_ranks >> (c >> 2)) & 1]
        wilds = [c for c in combo if (wild_ranks >> (c >> 2)) & 1]
        if Counter(c >> 2 for c in naturals) - target:
            continue  # a natural card outside the target
        missing = sorted((target - Counter(c >> 2 for c in naturals)).elements(), reverse=True)
        if len(missing) != len(wilds):
            continue
        nat_suits = {c & 3 for c in naturals}
        if cat in _SUITED:
            if len(nat_suits) > 1:
                continue
            suit_options = [next(iter(nat_suits))] if nat_suits else [3]
            fill = [[s] * len(missing) for s in suit_options]
        else:
            base = next(iter(nat_suits)) if nat_suits else 3
            fill = [[(base + 1 + j) % 4 for j in range(len(missing))]]
        for suits in fill:
            values = naturals + [4 * r + s for r, s in zip(missing, suits, strict=True)]
            cards5 = naturals + wilds
            if _classify_values(values) == (int(cat), tb):
                # show in tie-break order: bigger groups first, then higher ranks
                count = Counter(v >> 2 for v in values)
                order = sorted(range(5), key=lambda i: (-count[values[i] >> 2], -(values[i] >> 2)))
                return (np.array(cards5, CARD_DTYPE)[order], np.array(values, CARD_DTYPE)[order])
    raise AssertionError(f"no five cards of {format_cards(real)} make {cat.label} {tb:#x}")


def best_hand(hand, column=DEFAULT_COLUMN, *, wild_ranks=0, elevated=0, inverted=False,
              decks=1) -> BestHand:
    """The best hand of one player under the column: category, five cards, wild values.

    Slow (plain Python around the kernel); for hand histories and the CLI.
    """
    arr = np.asarray(hand)
    if arr.ndim != 1:
        raise ValueError(f"best_hand takes one hand (1-D), got shape {arr.shape}")
    score = evaluate(arr, column, wild_ranks=wild_ranks, elevated=elevated,
                     inverted=inverted, decks=decks)
    cat = Category(int(category_of_scores(score, column, inverted=inverted)[0]))
    cards5, values5 = _realise(cat, score & 0xFFFFF, arr.astype(np.int64), int(wild_ranks))
    return BestHand(category=cat, elevated=bool((score >> 20) & 1), cards=cards5,
                    values=values5, score=score)
