"""The obvious versions of two Ordered Hand kernels, for the tests to compare.

They used to be compiled inside ``nop_sim/games/ordered_hand/kernels/play.py``; they are test
oracles, so they live here (issue 11). Jitted, because the tests call them
thousands of times; they reuse the kernels' block classifier, which
``tests/test_blocks.py`` checks against the plain-Python reference.
"""

from __future__ import annotations

import numba
import numpy as np

from nop_sim.games.ordered_hand.kernels import play as K
from nop_sim.games.ordered_hand.kernels.blocks import _classify_five

_classify_block = K._classify_block
_block_beats = K._block_beats
_store = K._store
_short_hand_strength = K._short_hand_strength
N_CATEGORIES = K.N_CATEGORIES


@numba.njit(cache=False)
def legal_blocks_reference(seq, p, length, mid_cat, mid_tb, position_of, blocks):
    """The obvious ``K._legal_blocks``: classify every window."""
    row = seq[p]
    n = 0
    for s in range(length):
        for ln in range(1, min(5, length - s) + 1):
            cat, tb = _classify_block(row, s, ln)
            if cat >= 0 and _block_beats(cat, tb, mid_cat, mid_tb, position_of):
                n = _store(blocks, n, s, ln, cat, tb)
    return n


@numba.njit(cache=False)
def hand_strength_reference(seq, p, n, five, counts):
    """Strength of the best poker hand from ``seq[p, :n]`` under the default column.

    Five or more cards: every five-card subset is classified and the best kept
    (the obvious ``K._hand_strength``). Fewer: ``K._short_hand_strength``.
    Larger is better.
    """
    if n < 5:
        return _short_hand_strength(seq, p, n, counts)
    best = np.int64(-1)
    for i0 in range(n - 4):
        five[0] = seq[p, i0]
        for i1 in range(i0 + 1, n - 3):
            five[1] = seq[p, i1]
            for i2 in range(i1 + 1, n - 2):
                five[2] = seq[p, i2]
                for i3 in range(i2 + 1, n - 1):
                    five[3] = seq[p, i3]
                    for i4 in range(i3 + 1, n):
                        five[4] = seq[p, i4]
                        cat, tb = _classify_five(five, 0)
                        s = (np.int64(N_CATEGORIES - 1 - cat) << 24) | tb
                        if s > best:
                            best = s
    return best
