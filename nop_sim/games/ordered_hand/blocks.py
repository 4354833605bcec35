"""Blocks of adjacent cards in the Ordered Hand game (SPEC sections 2 and 9).

A block is 1..5 cards played together. It is a valid play when it forms
exactly one of: High Card (1 card), One Pair (2), Three of a Kind (3), Two Pair
or Four of a Kind (4), or a category whose pattern uses all five cards (5):
Straight, Flush, Full House, Straight Flush, Royal Flush, and with repeated
codes (several decks) Five of a Kind, Flush House, Flush Five.

>>> classify_block("As Ad")
(11, 14)
>>> classify_block("7c 7d 2h")
(-1, 0)
>>> beats("Kc Kd", "9s 9h")
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from nop_sim.core.cards import CARD_DTYPE, N_CARDS, parse_cards
from nop_sim.core.column import DEFAULT_COLUMN, Column
from nop_sim.games.ordered_hand.kernels.blocks import (
    _block_beats,
    _classify_block,
    _classify_blocks,
)

__all__ = ["MAX_BLOCK", "beats", "block_cards", "classify_block", "classify_blocks"]

MAX_BLOCK = 5

BlockLike = str | Sequence[int] | np.ndarray


def block_cards(cards: BlockLike) -> np.ndarray:
    """Validate one block and return its int8 card codes.

    Accepts text (``"As Ad"``), a sequence of codes or a 1-D array. Raises
    ``ValueError`` for a code outside 0..51 (``-1`` padding is not allowed in a
    block) or a length outside 1..5.
    """
    if isinstance(cards, str):
        codes = parse_cards(cards)
    else:
        arr = np.asarray(cards)
        if arr.ndim != 1:
            raise ValueError(f"a block must be 1-D (its cards in order), got shape {arr.shape}")
        if arr.size and not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"block card codes must be integers, got dtype {arr.dtype}")
        bad = (arr < 0) | (arr >= N_CARDS)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"card code {int(arr[i])} at position {i} is outside 0..51 "
                f"(a block holds real cards only)"
            )
        codes = arr.astype(CARD_DTYPE)
    if not 1 <= codes.size <= MAX_BLOCK:
        raise ValueError(
            f"a block has {codes.size} cards; a play is 1 to {MAX_BLOCK} adjacent cards"
        )
    return codes


def classify_block(cards: BlockLike) -> tuple[int, int]:
    """Category and tie-break of 1..5 cards played together as one block.

    Parameters
    ----------
    cards : str or 1-D int array
        The block, e.g. ``"Td Jd Qd Kd Ad"`` or int8 codes.

    Returns
    -------
    (category, tiebreak) : (int, int)
        ``category`` is the :class:`~nop_sim.core.column.Category` id (0..12) or
        ``-1`` when the cards are not a valid block. ``tiebreak`` packs the
        tie-break ranks of SPEC section 2, 4 bits each, first-compared rank
        highest (0 for an invalid block and for Royal Flush); within one
        category the larger code wins.
    """
    codes = block_cards(cards)
    cat, tb = _classify_block(codes, 0, codes.size)
    return int(cat), int(tb)


def classify_blocks(cards: np.ndarray, lengths: Iterable[int] | np.ndarray | None = None):
    """Classify many blocks at once.

    Parameters
    ----------
    cards : (n, k) int array, k <= 5
        One block per row; ``-1`` pads rows shorter than ``k``.
    lengths : (n,) ints, optional
        Block lengths; by default the count of non-negative codes per row
        (padding must then come last).

    Returns
    -------
    (categories int8 (n,), tiebreaks int64 (n,))
    """
    arr = np.asarray(cards)
    if arr.ndim != 2 or arr.shape[1] > MAX_BLOCK:
        raise ValueError(f"cards must be (n, k) with k <= {MAX_BLOCK}, got shape {arr.shape}")
    if lengths is None:
        lens = (arr >= 0).sum(axis=1).astype(np.int64)
    else:
        lens = np.asarray(lengths, dtype=np.int64)
        if lens.shape != (arr.shape[0],):
            raise ValueError(f"lengths must have shape ({arr.shape[0]},), got {lens.shape}")
    bad_len = (lens < 1) | (lens > min(MAX_BLOCK, arr.shape[1]))
    if bad_len.any():
        i = int(np.flatnonzero(bad_len)[0])
        raise ValueError(f"block {i} has length {int(lens[i])}; allowed 1..{MAX_BLOCK}")
    used = np.arange(arr.shape[1])[None, :] < lens[:, None]
    bad = used & ((arr < 0) | (arr >= N_CARDS))
    if bad.any():
        i, j = (int(x) for x in np.argwhere(bad)[0])
        raise ValueError(f"card code {int(arr[i, j])} in block {i}, position {j} is outside 0..51")
    padded = np.zeros((arr.shape[0], MAX_BLOCK), dtype=CARD_DTYPE)
    padded[:, : arr.shape[1]] = np.where(used, arr, 0)
    out_cat = np.empty(arr.shape[0], dtype=np.int8)
    out_tb = np.empty(arr.shape[0], dtype=np.int64)
    _classify_blocks(padded, lens, out_cat, out_tb)
    return out_cat, out_tb


def _as_column(column: Column | str | Iterable[int]) -> Column:
    if isinstance(column, Column):
        return column
    if isinstance(column, str):
        return Column.parse(column)
    return Column.from_array(np.asarray(column))


def beats(
    new_block: BlockLike,
    middle_block: BlockLike | None,
    column: Column | str | Iterable[int] = DEFAULT_COLUMN,
) -> bool:
    """True when ``new_block`` may be played on ``middle_block`` under ``column``.

    The category higher in the column wins; in the same category the larger
    tie-break wins; an equal block does not beat. An empty middle (``None``,
    ``""`` or no cards) is beaten by every valid block. A ``new_block`` that is
    not a valid block beats nothing (returns False); an invalid
    ``middle_block`` raises ``ValueError``, as it could never have been played.
    """
    col = _as_column(column)
    cat, tb = classify_block(new_block)
    if cat < 0:
        return False
    empty = middle_block is None or (
        (isinstance(middle_block, str) and not middle_block.strip())
        or (not isinstance(middle_block, str) and len(middle_block) == 0)
    )
    if empty:
        return True
    mid_cat, mid_tb = classify_block(middle_block)
    if mid_cat < 0:
        raise ValueError(
            f"middle block {middle_block!r} is not a valid block (pair, trips, two pair, "
            f"four of a kind, a single card or a five-card category)"
        )
    return bool(_block_beats(cat, tb, mid_cat, mid_tb, col.positions().astype(np.int64)))
