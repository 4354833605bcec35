"""Cheap hand strength under the live column (numba only).

Each strength table is a histogram of *achievable-category sets* (13-bit
masks) of random hands (see scripts/make_strength_tables.py). Under any
column a hand presents the highest category of its set, so for the live
column and reading we get, per table, the distribution of the best effective
position: ``dist[t, k] = P(best effective position == k)`` and its upper tail
``tail[t, k] = P(position >= k)``. They are recomputed only when the column or
its reading changes (a few hundred masks), never per decision, and never by
rollouts.
"""

from __future__ import annotations

import numpy as np

from nop_sim.kernels._jit import jit
from nop_sim.kernels.state import G_COLVER, G_DISTVER, G_INVERTED, N_TABLES, TAB_R7

N_CAT = 13


@jit(_nrt=False)
def eff_position(colpos, inverted, cat):
    """Position of ``cat`` as read (0 = strongest), Inversion counted."""
    p = np.int64(colpos[cat])
    return 12 - p if inverted else p


@jit(_nrt=False)
def update_tables(g, colpos, tab_start, tab_mask, tab_freq, dist, tail):
    """Recompute ``dist`` (N_TABLES, 13) and ``tail`` (N_TABLES, 14) if the column moved."""
    if g[G_DISTVER] != g[G_COLVER]:
        _compute_tables(g, colpos, tab_start, tab_mask, tab_freq, dist, tail)


@jit(_nrt=True)  # allocates; explicit so that callers without NRT do not pass theirs on
def _compute_tables(g, colpos, tab_start, tab_mask, tab_freq, dist, tail):
    inverted = g[G_INVERTED] != 0
    cat_at = np.empty(N_CAT, np.int64)
    for c in range(N_CAT):
        cat_at[eff_position(colpos, inverted, c)] = c
    for t in range(N_TABLES):
        for k in range(N_CAT):
            dist[t, k] = 0.0
        for i in range(tab_start[t], tab_start[t + 1]):
            m = tab_mask[i]
            for k in range(N_CAT):
                if (m >> cat_at[k]) & 1:
                    dist[t, k] += tab_freq[i]
                    break
        tail[t, N_CAT] = 0.0
        for k in range(N_CAT - 1, -1, -1):
            tail[t, k] = tail[t, k + 1] + dist[t, k]
    g[G_DISTVER] = g[G_COLVER]


@jit(_nrt=False)
def beat_one(dist, tail, t, e, elevated):
    """Chance that a hand at effective position ``e`` beats one random hand of table ``t``.

    Equal positions count one half (tie-breaks unknown), or win outright for
    an elevated hand (SPEC 2). ``e == -1`` (elevated from the top) always wins.
    """
    if e < 0:
        return 1.0
    if elevated:
        return tail[t, e + 1] + dist[t, e]
    return tail[t, e + 1] + 0.5 * dist[t, e]


@jit(_nrt=False)
def shape_value(dist, tail, sh):
    """Expected :func:`beat_one` against a random seven-card hand after keeping shape ``sh``."""
    v = 0.0
    for k in range(N_CAT):
        if dist[sh, k] > 0.0:
            v += dist[sh, k] * beat_one(dist, tail, TAB_R7, k, False)
    return v


@jit(_nrt=False)
def best_of_many(tail, t, k, m):
    """Chance that the best of ``m`` random hands of table ``t`` sits at position ``k``."""
    return tail[t, k] ** m - tail[t, k + 1] ** m
