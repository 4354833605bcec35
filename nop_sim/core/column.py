"""The 13 hand categories and the Ranking Column (SPEC section 2).

Classification of a five-card hand never changes; the column, a permutation
of the 13 category ids with position 0 on top, only decides which category
beats which. A :class:`Column` is immutable: every move returns a new one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import IntEnum

import numpy as np

from nop_sim.core import types as T

__all__ = ["Category", "Column", "DEFAULT_COLUMN", "N_CATEGORIES", "parse_category"]

class Category(IntEnum):
    """Hand categories; the id is also the category's place in the default column.

    The ids are defined once, in :mod:`nop_sim.core.types` (the kernels read them there).
    """

    FLUSH_FIVE = T.FLUSH_FIVE
    FLUSH_HOUSE = T.FLUSH_HOUSE
    FIVE_OF_A_KIND = T.FIVE_OF_A_KIND
    ROYAL_FLUSH = T.ROYAL_FLUSH
    STRAIGHT_FLUSH = T.STRAIGHT_FLUSH
    FOUR_OF_A_KIND = T.FOUR_OF_A_KIND
    FULL_HOUSE = T.FULL_HOUSE
    FLUSH = T.FLUSH
    STRAIGHT = T.STRAIGHT
    THREE_OF_A_KIND = T.THREE_OF_A_KIND
    TWO_PAIR = T.TWO_PAIR
    ONE_PAIR = T.ONE_PAIR
    HIGH_CARD = T.HIGH_CARD

    @property
    def label(self) -> str:
        """Readable name, e.g. ``"Two Pair"``."""
        return _LABELS[self]

    def __str__(self) -> str:
        return self.label


N_CATEGORIES = T.N_CATEGORIES
assert len(Category) == N_CATEGORIES and [int(c) for c in Category] == list(range(N_CATEGORIES))

_LABELS = {
    Category.FLUSH_FIVE: "Flush Five", Category.FLUSH_HOUSE: "Flush House",
    Category.FIVE_OF_A_KIND: "Five of a Kind", Category.ROYAL_FLUSH: "Royal Flush",
    Category.STRAIGHT_FLUSH: "Straight Flush", Category.FOUR_OF_A_KIND: "Four of a Kind",
    Category.FULL_HOUSE: "Full House", Category.FLUSH: "Flush", Category.STRAIGHT: "Straight",
    Category.THREE_OF_A_KIND: "Three of a Kind", Category.TWO_PAIR: "Two Pair",
    Category.ONE_PAIR: "One Pair", Category.HIGH_CARD: "High Card",
}


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


_BY_KEY = {_key(c.name): c for c in Category}
_BY_KEY.update({"pair": Category.ONE_PAIR, "trips": Category.THREE_OF_A_KIND,
                "quads": Category.FOUR_OF_A_KIND, "highcard": Category.HIGH_CARD})


def parse_category(value: str | int) -> Category:
    """A category from its id (0..12) or name (case, spaces and ``_`` ignored)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if 0 <= int(value) < N_CATEGORIES:
            return Category(int(value))
        raise ValueError(f"category id {value} is outside 0..12")
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return parse_category(int(text))
        cat = _BY_KEY.get(_key(text))
        if cat is not None:
            return cat
    allowed = ", ".join(c.label for c in Category)
    raise ValueError(f"unknown category {value!r}; allowed: {allowed} (or ids 0..12)")


class Column:
    """A Ranking Column: a permutation of the 13 category ids, ``column[0]`` on top.

    Parameters
    ----------
    order : iterable of int, Category or str
        The categories from top to bottom.
    """

    __slots__ = ("_order", "_position")

    def __init__(self, order: Iterable[int | str | Category]):
        if isinstance(order, np.ndarray):
            if order.ndim != 1:
                raise ValueError(f"a column must be 1-D, got shape {order.shape}")
            order = order.tolist()
        items = list(order)
        cats = [parse_category(x) for x in items]
        if len(cats) != N_CATEGORIES or sorted(cats) != list(range(N_CATEGORIES)):
            raise ValueError(
                f"column {[int(c) for c in cats]} is not a permutation of the 13 "
                f"category ids 0..12 (each exactly once)"
            )
        self._order = tuple(Category(c) for c in cats)
        pos = [0] * N_CATEGORIES
        for p, c in enumerate(self._order):
            pos[c] = p
        self._position = tuple(pos)

    # -- reading -------------------------------------------------------------
    @property
    def order(self) -> tuple[Category, ...]:
        """Categories from top (position 0) to bottom (position 12)."""
        return self._order

    def position(self, category: int | str | Category) -> int:
        """Position 0..12 of a category (0 is the top)."""
        return self._position[parse_category(category)]

    def __getitem__(self, position: int) -> Category:
        return self._order[position]

    def __iter__(self):
        return iter(self._order)

    def __len__(self) -> int:
        return N_CATEGORIES

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Column) and self._order == other._order

    def __hash__(self) -> int:
        return hash(self._order)

    # -- moves (each returns a new column) ------------------------------------
    def promote(self, category: int | str | Category) -> Column:
        """Swap ``category`` with the one directly above it; the top cannot move up."""
        cat = parse_category(category)
        p = self._position[cat]
        if p == 0:
            raise ValueError(f"{cat.label} is at the top of the column and cannot be promoted")
        return self._swapped(p, p - 1)

    def demote(self, category: int | str | Category) -> Column:
        """Swap ``category`` with the one directly below it; the bottom cannot move down."""
        cat = parse_category(category)
        p = self._position[cat]
        if p == N_CATEGORIES - 1:
            raise ValueError(f"{cat.label} is at the bottom of the column and cannot be demoted")
        return self._swapped(p, p + 1)

    def swap(self, a: int | str | Category, b: int | str | Category) -> Column:
        """Swap the places of two categories."""
        return self._swapped(self.position(a), self.position(b))

    def inverted(self) -> Column:
        """The column read bottom-up (the Inversion community card)."""
        return Column(self._order[::-1])

    def _swapped(self, i: int, j: int) -> Column:
        order = list(self._order)
        order[i], order[j] = order[j], order[i]
        return Column(order)

    # -- conversion ------------------------------------------------------------
    def to_array(self) -> np.ndarray:
        """int8 array of category ids, index = position."""
        return np.array(self._order, dtype=np.int8)

    def positions(self) -> np.ndarray:
        """int8 array of positions, index = category id."""
        return np.array(self._position, dtype=np.int8)

    @classmethod
    def from_array(cls, array: np.ndarray | Iterable[int]) -> Column:
        """Column from an array of category ids, ``[0]`` the top."""
        return cls(np.asarray(array).astype(np.int64))

    @classmethod
    def parse(cls, text: str) -> Column:
        """Parse a column.

        Accepts the full order, top first, separated by ``>`` or ``,`` or new
        lines (names or ids), e.g. ``"High Card > One Pair > ..."``; or moves
        applied to the default column: ``"Two Pair>Full House"`` (a short list
        of two or more) lifts each earlier category directly above the next,
        ``"default"`` is the default column.
        """
        text = text.strip()
        if _key(text) in ("", "default"):
            return DEFAULT_COLUMN
        parts = [p for p in re.split(r"\s*(?:>|,|\n)\s*", text) if p.strip()]
        # Numbered text form ("0 Flush Five") from __str__ is accepted too.
        parts = [re.sub(r"^\s*\d+[.:)]\s+", "", p) for p in parts]
        cats = [parse_category(p) for p in parts]
        if len(cats) == N_CATEGORIES:
            return cls(cats)
        if len(cats) < 2 or len(set(cats)) != len(cats):
            raise ValueError(
                f"column {text!r}: give all 13 categories top first separated by '>', "
                f"or a chain like 'Two Pair > Full House' to place categories above others"
            )
        return DEFAULT_COLUMN.placed_above(cats)

    def placed_above(self, chain: list[Category]) -> Column:
        """Reorder so that each category in ``chain`` sits directly above the next.

        The last category of the chain keeps its place; the others are taken
        out and put above it in chain order.
        """
        anchor = chain[-1]
        rest = [c for c in self._order if c not in chain[:-1]]
        i = rest.index(anchor)
        return Column(rest[:i] + list(chain[:-1]) + rest[i:])

    def __str__(self) -> str:
        return " > ".join(c.label for c in self._order)

    def __repr__(self) -> str:
        return f"Column({[int(c) for c in self._order]})"


DEFAULT_COLUMN = Column(range(N_CATEGORIES))
