"""Count the best-hand category of every seven-card hand under the default column.

All C(52, 7) = 133,784,560 hands are enumerated in lexicographic order, in
chunks made of whole (first card, second card) groups, and each chunk goes
through ``nop_sim.best_category``. The textbook counts are the check: a fast
evaluator that gets any of them wrong has a bug. Prints one JSON object with
the counts, the total, whether they match, and the time taken.

    python scripts/count_seven_card_categories.py [--parallel] [--chunk-size N]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from math import comb

import numba
import numpy as np

# Textbook counts by category id (3 Royal Flush ... 12 High Card).
TEXTBOOK_COUNTS = {
    3: 4_324,  # Royal Flush
    4: 37_260,  # Straight Flush
    5: 224_848,  # Four of a Kind
    6: 3_473_184,  # Full House
    7: 4_047_644,  # Flush
    8: 6_180_020,  # Straight
    9: 6_461_620,  # Three of a Kind
    10: 31_433_400,  # Two Pair
    11: 58_627_800,  # One Pair
    12: 23_294_460,  # High Card
}


@numba.njit  # no cache: the script may be loaded under any module name
def _fill_hands(first: int, second: int, n_cards: int, out: np.ndarray, start: int) -> int:
    """Write every hand ``first < second < c3 < ... < c7 < n_cards`` into ``out``.

    Rows ``start..`` of the int8 (m, 7) ``out`` are written in lexicographic
    order; returns the index after the last row written.
    """
    row = start
    for c3 in range(second + 1, n_cards):
        for c4 in range(c3 + 1, n_cards):
            for c5 in range(c4 + 1, n_cards):
                for c6 in range(c5 + 1, n_cards):
                    for c7 in range(c6 + 1, n_cards):
                        out[row, 0] = first
                        out[row, 1] = second
                        out[row, 2] = c3
                        out[row, 3] = c4
                        out[row, 4] = c5
                        out[row, 5] = c6
                        out[row, 6] = c7
                        row += 1
    return row


def iter_hand_chunks(n_cards: int = 52, chunk_size: int = 2_000_000):
    """Yield int8 (m, 7) arrays that together hold every 7-subset of ``range(n_cards)``.

    A chunk is a run of whole (first, second) groups, flushed once it holds
    ``chunk_size`` hands or more; groups never split, so a chunk may exceed
    ``chunk_size`` by at most one group (C(n_cards - 2, 5) hands). The yielded
    array is a view of a reused buffer: consume it before the next one.
    """
    largest_group = comb(n_cards - 2, 5)
    buffer = np.empty((chunk_size + largest_group, 7), dtype=np.int8)
    filled = 0
    for first in range(n_cards):
        for second in range(first + 1, n_cards):
            filled = _fill_hands(first, second, n_cards, buffer, filled)
            if filled >= chunk_size:
                yield buffer[:filled]
                filled = 0
    if filled:
        yield buffer[:filled]


def count_categories(parallel: bool = False, chunk_size: int = 2_000_000) -> dict:
    """Category counts of all seven-card hands, with timing and the textbook check."""
    from nop_sim import Category, best_category

    best_category(np.arange(7, dtype=np.int8)[None, :], parallel=parallel)  # compile first
    counts = np.zeros(13, dtype=np.int64)
    n_hands = 0
    start = time.perf_counter()
    for chunk in iter_hand_chunks(52, chunk_size):
        counts += np.bincount(best_category(chunk, parallel=parallel), minlength=13)
        n_hands += len(chunk)
    seconds = time.perf_counter() - start
    by_id = {c: int(n) for c, n in enumerate(counts) if n}
    return {
        "hands": n_hands,
        "counts": {Category(c).label: n for c, n in by_id.items()},
        "matches_textbook": by_id == TEXTBOOK_COUNTS and n_hands == comb(52, 7),
        "seconds": round(seconds, 2),
        "hands_per_second": round(n_hands / seconds),
        "parallel": parallel,
        "numba_threads": numba.get_num_threads() if parallel else 1,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parallel", action="store_true", help="use every core")
    parser.add_argument("--chunk-size", type=int, default=2_000_000)
    args = parser.parse_args(argv)
    result = count_categories(parallel=args.parallel, chunk_size=args.chunk_size)
    print(json.dumps(result, indent=2))
    return 0 if result["matches_textbook"] else 1


if __name__ == "__main__":
    sys.exit(main())
