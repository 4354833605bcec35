"""Card codes, text form and decks (SPEC section 1).

A card is ``4 * (rank - 2) + suit`` with ranks 2..14 (J=11, Q=12, K=13, A=14)
and suits c=0, d=1, h=2, s=3, so ``0`` is ``2c`` and ``51`` is ``As``. Every
public array of cards is ``int8`` and uses ``-1`` for "no card".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

__all__ = [
    "CARD_DTYPE",
    "NO_CARD",
    "N_CARDS",
    "RANK_CHARS",
    "SUIT_CHARS",
    "card_code",
    "card_rank",
    "card_suit",
    "format_card",
    "format_cards",
    "make_deck",
    "parse_card",
    "parse_cards",
    "validate_cards",
]

CARD_DTYPE = np.int8
NO_CARD = -1
N_CARDS = 52
MAX_DECKS = 4
RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"

_CARD_RE = re.compile(r"^(10|[2-9tjqka])([cdhs])$", re.IGNORECASE)


def card_code(rank: int, suit: int) -> int:
    """Code of the card of ``rank`` (2..14) and ``suit`` (0..3)."""
    if not 2 <= rank <= 14:
        raise ValueError(f"rank {rank!r} is outside 2..14")
    if not 0 <= suit <= 3:
        raise ValueError(f"suit {suit!r} is outside 0..3 (c, d, h, s)")
    return 4 * (rank - 2) + suit


def card_rank(card: int) -> int:
    """Rank 2..14 of a card code."""
    return int(card) // 4 + 2


def card_suit(card: int) -> int:
    """Suit 0..3 of a card code."""
    return int(card) % 4


def parse_card(text: str) -> int:
    """Parse one card such as ``"As"``, ``"td"`` or ``"10h"`` into its code."""
    m = _CARD_RE.match(text.strip())
    if m is None:
        raise ValueError(
            f"card {text!r} does not parse: expected a rank (2-9, T or 10, J, Q, K, A) "
            f"followed by a suit (c, d, h, s), e.g. 'As' or '10h'"
        )
    rank_text, suit_text = m.group(1).upper(), m.group(2).lower()
    rank = RANK_CHARS.index("T" if rank_text == "10" else rank_text) + 2
    return card_code(rank, SUIT_CHARS.index(suit_text))


def parse_cards(text: str | Iterable[str]) -> np.ndarray:
    """Parse ``"As Kd 2c"`` (spaces or commas) or a list of card texts into int8 codes."""
    tokens = re.split(r"[\s,]+", text.strip()) if isinstance(text, str) else list(text)
    tokens = [t for t in tokens if t]
    return np.array([parse_card(t) for t in tokens], dtype=CARD_DTYPE)


def format_card(card: int) -> str:
    """Text form of one card code (``-1`` formats as ``"--"``)."""
    card = int(card)
    if card == NO_CARD:
        return "--"
    if not 0 <= card < N_CARDS:
        raise ValueError(f"card code {card} is outside 0..51 (or -1 for no card)")
    return RANK_CHARS[card // 4] + SUIT_CHARS[card % 4]


def format_cards(cards: Iterable[int]) -> str:
    """Space-separated text of card codes, skipping ``-1`` padding."""
    return " ".join(format_card(c) for c in np.asarray(cards).ravel() if int(c) != NO_CARD)


def make_deck(decks: int = 1) -> np.ndarray:
    """The ordered stock of ``decks`` copies (1..4) of the 52 cards, int8."""
    if not isinstance(decks, (int, np.integer)) or not 1 <= decks <= MAX_DECKS:
        raise ValueError(f"decks {decks!r} is not allowed: use an integer from 1 to {MAX_DECKS}")
    return np.tile(np.arange(N_CARDS, dtype=CARD_DTYPE), int(decks))


def validate_cards(cards: np.ndarray, *, decks: int = 1, min_cards: int = 5) -> None:
    """Check a (n, k) array of card codes; raise ``ValueError`` naming the bad value.

    Codes must be 0..51 or -1 padding, each hand needs ``min_cards`` real cards,
    and no card may appear more often than ``decks`` copies allow.
    """
    cards = np.asarray(cards)
    if cards.ndim != 2:
        raise ValueError(f"cards must be 2-D (hands x cards), got shape {cards.shape}")
    bad = (cards < NO_CARD) | (cards >= N_CARDS)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(
            f"card code {int(cards[i, j])} at hand {i}, position {j} is outside 0..51 "
            f"(use -1 for no card)"
        )
    n_real = (cards >= 0).sum(axis=1)
    short = np.flatnonzero(n_real < min_cards)
    if short.size:
        i = short[0]
        raise ValueError(
            f"hand {i} has {int(n_real[i])} cards; at least {min_cards} are needed"
        )
    if cards.shape[0] and cards.shape[1] > decks:
        # Count copies per (hand, card) with one bincount over offset codes.
        n, k = cards.shape
        offsets = (np.arange(n, dtype=np.int64) * N_CARDS)[:, None]
        real = cards >= 0
        flat = (cards.astype(np.int64) + offsets)[real]
        counts = np.bincount(flat, minlength=n * N_CARDS)
        over = np.flatnonzero(counts > decks)
        if over.size:
            i, c = divmod(int(over[0]), N_CARDS)
            raise ValueError(
                f"hand {i} holds {int(counts[over[0]])} copies of {format_card(c)}; "
                f"with decks={decks} at most {decks} are allowed"
            )
