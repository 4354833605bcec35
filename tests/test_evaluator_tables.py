"""The evaluator's lookup tables, built in whole-array NumPy at import, against the
obvious per-mask Python loops they replaced (the reference here: bit by bit, rank by
rank, as the docstrings of ``nop_sim.kernels.evaluate`` define each table)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement

import numpy as np
import pytest

from nop_sim.kernels import evaluate as ev

ALL_RANKS = 0x1FFF
WHEEL_RUN = 0x100F


def straight_tops(m: int) -> int:
    run = m & (m >> 1) & (m >> 2) & (m >> 3) & (m >> 4)
    tops = (run << 4) & ALL_RANKS
    if m & WHEEL_RUN == WHEEL_RUN:
        tops |= 1 << 3
    return tops


def pack(bits: list[int]) -> int:
    code = 0
    for j, b in enumerate(bits[:5]):
        code |= (b + 2) << (16 - 4 * j)
    return code


def reference_tables() -> dict[str, list[int]]:
    """POP, HI, PACK, TOP5, BEST5, STRAIGHT_TOPS and NIBBLES, mask by mask."""
    out: dict[str, list[int]] = {k: [] for k in
                                 ("POP", "HI", "PACK", "TOP5", "BEST5", "STRAIGHT_TOPS",
                                  "NIBBLES")}
    for m in range(1 << 13):
        bits = [i for i in range(12, -1, -1) if m >> i & 1]  # highest first
        top5 = sum(1 << b for b in bits[:5])
        out["POP"].append(len(bits))
        out["HI"].append(bits[0] if bits else -1)
        out["PACK"].append(pack(bits))
        out["TOP5"].append(top5)
        best = -1
        if len(bits) >= 5:
            t = top5
            if straight_tops(t):  # the top four and the next lower rank, if any
                rest = m & ~t
                t = None if rest == 0 else (t & ~(t & -t)) | (1 << max(
                    i for i in range(13) if rest >> i & 1))
            if t is not None:
                best = pack([i for i in range(12, -1, -1) if t >> i & 1])
        out["BEST5"].append(best)
        out["STRAIGHT_TOPS"].append(straight_tops(m))
        out["NIBBLES"].append(sum(((m >> r) & 1) << (4 * r) for r in range(13)))
    return out


def reference_patterns():
    """Flush patterns (High Card's five distinct non-straight ranks, and 2+1+1+1, 2+2+1,
    3+1+1), best tie-break first, and the High Card ones among them."""
    flush = []
    for combo in combinations_with_replacement(range(13), 5):
        ranks = sorted(combo, reverse=True)
        shape = sorted(Counter(ranks).values(), reverse=True)
        mask = 0
        for r in ranks:
            mask |= 1 << r
        if shape == [1, 1, 1, 1, 1]:
            if straight_tops(mask):
                continue
        elif shape not in ([2, 1, 1, 1], [2, 2, 1], [3, 1, 1]):
            continue
        flush.append((pack(ranks), ranks, mask, shape == [1, 1, 1, 1, 1]))
    flush.sort(key=lambda t: -t[0])
    high = [t for t in flush if t[3]]
    return ([t[0] for t in flush], [t[1] for t in flush], [t[2] for t in flush],
            [t[0] for t in high], [t[2] for t in high])


@pytest.fixture(scope="module")
def reference():
    return reference_tables()


@pytest.mark.parametrize("name", ["POP", "HI", "PACK", "TOP5", "BEST5", "STRAIGHT_TOPS",
                                  "NIBBLES"])
def test_rank_mask_tables_equal_the_per_mask_loops(reference, name):
    table = getattr(ev, name)
    assert table.shape == (1 << 13,)
    assert np.array_equal(table, np.array(reference[name])), name


def test_rank_mask_tables_keep_their_narrow_types():
    # the compiled kernels read narrow tables (a small working set); under the JIT
    # lookup_table keeps the dtypes the builder gives
    built = ev._build_tables()
    assert [t.dtype for t in built] == [np.int8, np.int8, np.int32, np.int16, np.int32]


def test_flush_and_high_card_patterns_equal_the_multiset_loop():
    f_tb, f_ranks, f_mask, h_tb, h_mask = reference_patterns()
    assert np.array_equal(ev.FLUSH_PAT_TB, f_tb)
    assert np.array_equal(ev.FLUSH_PAT_RANKS, f_ranks)
    assert np.array_equal(ev.FLUSH_PAT_MASK, f_mask)
    assert np.array_equal(ev.HIGH_PAT_TB, h_tb)
    assert np.array_equal(ev.HIGH_PAT_MASK, h_mask)
    # 1287 sets of five distinct ranks less the 10 straights
    assert len(h_tb) == 1277
    assert ev._build_patterns()[1].dtype == np.int8  # (widened without the JIT)
