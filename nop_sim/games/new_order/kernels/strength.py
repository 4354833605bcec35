"""Cheap hand strength under the live column (numba only).

Each strength table is a histogram of *achievable-category sets* (13-bit
masks) of random hands (see scripts/make_strength_tables.py). Under any
column a hand presents the highest category of its set, so for the live
column and reading we get, per table, the distribution of the best effective
position: ``dist[t, k] = P(best effective position == k)`` and its upper tail
``tail[t, k] = P(position >= k)``. They are recomputed only when the column or
its reading changes (a few hundred masks), never per decision, and never by
rollouts; each table is brought up to date only when a decision needs it.
"""

from __future__ import annotations

import numpy as np

from nop_sim.core.types import N_CATEGORIES
from nop_sim.games.new_order.kernels.common import powi
from nop_sim.games.new_order.kernels.state import (
    CFG_TAB_FREQ,
    CFG_TAB_MASK,
    CFG_TAB_START,
    F_SHAPE,
    F_WIN,
    F_WIN_CAT,
    G_COLVER,
    G_INVERTED,
    ST_COLPOS,
    ST_DIST,
    ST_FTMP,
    ST_G,
    ST_TAIL,
    ST_TMP,
    TAB_R7,
    TMP_EPOS,
    TMP_SVER,
    TMP_TVER,
    TMP_WKEY,
)
from nop_sim.kernels.jit import jit, lowest_bit


@jit(_nrt=False)
def eff_position(colpos, inverted, cat):
    """Position of ``cat`` as read (0 = strongest), Inversion counted."""
    p = np.int64(colpos[cat])
    return 12 - p if inverted else p


# Inlined, though called from several places: it is one comparison, and a call that
# passes the state tuples costs about 200 stores (kernels.jit), several a turn.
@jit(_nrt=False, inline="always")
def ensure_table(st, cfg, t):
    """Make ``dist[t]`` / ``tail[t]`` current for the live column (lazily, per table)."""
    g, tmp = st[ST_G], st[ST_TMP]
    if tmp[TMP_TVER + t] != g[G_COLVER]:
        _compute_table(g, st[ST_COLPOS], t, cfg[CFG_TAB_START], cfg[CFG_TAB_MASK],
                       cfg[CFG_TAB_FREQ], st[ST_DIST], st[ST_TAIL], tmp)


@jit(_nrt=False)
def _compute_table(g, colpos, t, tab_start, tab_mask, tab_freq, dist, tail, tmp):
    """``dist[t, k]`` = P(best effective position == k), ``tail[t, k]`` = P(position >= k)."""
    inverted = g[G_INVERTED] != 0
    for c in range(N_CATEGORIES):
        tmp[TMP_EPOS + c] = eff_position(colpos, inverted, c)
    for k in range(N_CATEGORIES):
        dist[t, k] = 0.0
    for i in range(tab_start[t], tab_start[t + 1]):
        # the best position among the mask's categories, visiting its set bits (about
        # three) rather than scanning positions 0.. for the first category it holds;
        # lowest first (the minimum is the same in any order; highest first by the HI
        # table, ``c = HI[m]; m ^= 1 << c``, put a load between one bit and the next)
        m = tab_mask[i]
        best = N_CATEGORIES
        while m:
            c = lowest_bit(m)
            m &= m - 1
            best = min(best, tmp[TMP_EPOS + c])
        if best < N_CATEGORIES:
            dist[t, best] += tab_freq[i]
    tail[t, N_CATEGORIES] = 0.0
    for k in range(N_CATEGORIES - 1, -1, -1):
        tail[t, k] = tail[t, k + 1] + dist[t, k]
    tmp[TMP_TVER + t] = g[G_COLVER]


@jit(_nrt=False, inline="always")  # a cache check on the hedge's path: see ensure_table
def winner_positions(st, cfg, t, m):
    """Offset ``o`` into ``st[ST_FTMP]`` such that ``st[ST_FTMP][o + k]`` is the chance that
    the best of ``m`` (1..8) random hands of table ``t`` sits at effective position ``k``.

    One row per ``m``, each cached until the column or ``t`` change: a fold changes ``m``
    for the players after it, and the rows of the other counts stay good. The same
    chances in category order come with it (:func:`winner_categories`).
    """
    g, tmp = st[ST_G], st[ST_TMP]
    key = (g[G_COLVER] << 8) | t
    o = F_WIN + N_CATEGORIES * m
    if tmp[TMP_WKEY + m] != key:
        ensure_table(st, cfg, t)
        _winner_row(st[ST_TAIL], t, m, st[ST_FTMP], o, st[ST_COLPOS], g[G_INVERTED] != 0)
        tmp[TMP_WKEY + m] = key
    return o


@jit(_nrt=False, inline="always")  # a cache check on the hedge's path: see ensure_table
def winner_categories(st, cfg, t, m):
    """Offset ``o`` into ``st[ST_FTMP]`` such that ``st[ST_FTMP][o + c]`` is the chance that
    the best of ``m`` random hands of table ``t`` is of category ``c`` (as read now):
    :func:`winner_positions`' row at each category's effective position, a copy.

    The hedge weighs every category each turn, about ten times a hand; read by position
    it looked up each category's position and its row entry, 2.5 times the instructions
    of its loop (issue 37). The row is copied once per column, count and table."""
    return winner_positions(st, cfg, t, m) + (F_WIN_CAT - F_WIN)


@jit(_nrt=False)
def _winner_row(tail, t, m, fs, o, colpos, inverted):
    hi = powi(tail[t, 0], m)
    for k in range(N_CATEGORIES):
        lo = powi(tail[t, k + 1], m)
        fs[o + k] = hi - lo
        hi = lo
    for c in range(N_CATEGORIES):
        fs[o + (F_WIN_CAT - F_WIN) + c] = fs[o + eff_position(colpos, inverted, c)]


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
def shape_value(st, cfg, sh):
    """Expected :func:`beat_one` against a random seven-card hand after keeping shape ``sh``.

    A function of the column alone, kept per shape until the column changes: the
    draw asks for two to four shapes per player, mostly the same ones.
    """
    g, tmp, fs = st[ST_G], st[ST_TMP], st[ST_FTMP]
    if tmp[TMP_SVER + sh] == g[G_COLVER]:
        return fs[F_SHAPE + sh]
    ensure_table(st, cfg, sh)
    ensure_table(st, cfg, TAB_R7)
    dist, tail = st[ST_DIST], st[ST_TAIL]
    v = 0.0
    for k in range(N_CATEGORIES):
        if dist[sh, k] > 0.0:
            v += dist[sh, k] * beat_one(dist, tail, TAB_R7, k, False)
    fs[F_SHAPE + sh] = v
    tmp[TMP_SVER + sh] = g[G_COLVER]
    return v
