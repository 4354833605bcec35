"""Small shared helpers of the match kernels: seats, cards, events, evaluation."""

from __future__ import annotations

import numpy as np

from nop_sim.games.new_order.kernels.eventlog import log_reshuffle
from nop_sim.games.new_order.kernels.firewall import CATEGORY_ARGS, address, call_category
from nop_sim.games.new_order.kernels.state import (
    G_BETTING,
    G_BOARD_N,
    G_BUTTON,
    G_CARDVER,
    G_COLVER,
    G_DISC_N,
    G_EVAL_FN,
    G_INVERTED,
    G_LAST_RAISE,
    G_N,
    G_STOCK_N,
    G_STOCK_TOP,
    G_TICK,
    P_ALIVE,
    P_ALLIN,
    P_ALLIN_TICK,
    P_CAT,
    P_CAT_KEY,
    P_ELEV,
    P_ELEV_LIFT,
    P_FOLDED,
    P_INHAND,
    P_LV_A,
    P_LV_B,
    P_ORDER,
    P_READ_ELEV,
    P_READ_KEY,
    P_SCORE_C,
    P_WILDS,
)
from nop_sim.games.new_order.types import (
    BET_NO_LIMIT,
    C_STOCK_RESHUFFLES,
    MAX_PLAYERS,
    S_DECKS,
    S_SMALL_BET,
    STACK_ADD,
    STACK_MULTIPLY,
)
from nop_sim.kernels.evaluate import (
    NEED_BRUTE,
    brute_score,
    category_of_level,
    reading_lift,
    score_row_unforced,
)
from nop_sim.kernels.jit import jit
from nop_sim.kernels.rng import below


# -- Disruptor effects -------------------------------------------------------------
@jit(_nrt=False)
def stacked(rule, amount, copies, none):
    """The number of an effect with ``copies`` copies of its card in play (or held).

    ``rule`` is the card's ``stack`` in the catalog (``types.STACK_*``, SPEC R6),
    ``amount`` its number (R8), ``none`` the effect's number with no copy. A card
    that acts copy by copy (``STACK_EACH``) is never asked for one number.
    """
    if copies == 0:
        return none
    if rule == STACK_MULTIPLY:
        v = amount
        for _ in range(1, copies):
            v *= amount
        return v
    if rule == STACK_ADD:
        return amount * copies
    return amount  # STACK_ONCE


# -- betting -----------------------------------------------------------------------
@jit(_nrt=False, inline="always")
def size_bounds(g, settings, is_bet, to_call, pot, chips):
    """(lo, hi): the chips a pot-limit or no-limit bet (``is_bet``) or raise may put in now,
    the call included: at least the small bet (a bet) or the last full bet or raise (a
    raise), at most the stack (no-limit) or the pot after calling (pot-limit)."""
    min_raise = max(g[G_LAST_RAISE], settings[S_SMALL_BET])
    if is_bet:
        min_raise = settings[S_SMALL_BET]
    lo = to_call + min_raise
    if g[G_BETTING] == BET_NO_LIMIT:
        hi = chips
    else:
        hi = max(to_call + pot + to_call, lo)  # pot-limit: raise at most the pot after calling
    hi = min(hi, chips)
    lo = min(lo, hi)
    return lo, hi


# -- numbers -----------------------------------------------------------------------
@jit(_nrt=False, inline="always")
def powi(x, k):
    """``x ** k`` for a float ``x`` and an int ``0 <= k <= 0x10000``, by the very
    multiplications numba compiles ``x ** k`` into (``int_power`` of
    numba.cpython.numbers.int_power_impl): the same bits, inlined where numba's own is
    a call (1.7% of a balanced hand, issue 37), and the JIT's bits without the JIT too,
    where Python's ``**`` calls C's pow."""
    r = 1.0
    while k != 0:
        if k & 1:
            r *= x
        k >>= 1
        x *= x
    return r


# -- seats -------------------------------------------------------------------------
@jit(_nrt=False, inline="always")
def wrap_seat(q, n):
    """``q % n`` for ``0 <= q < 2 n`` (a seat a turn or a table's width past another),
    without the division that sat on the betting loop's path (issue 37)."""
    return q - n if q >= n else q


@jit(_nrt=False)
def is_live(ps, p):
    """Dealt into this hand and not folded."""
    return ps[p, P_INHAND] != 0 and ps[p, P_FOLDED] == 0


@jit(_nrt=False)
def can_act(ps, p):
    return ps[p, P_INHAND] != 0 and ps[p, P_FOLDED] == 0 and ps[p, P_ALLIN] == 0


# The seat loops below run over all MAX_PLAYERS rows, seats from n on skipped: with a
# trip count known at compile time LLVM unrolls them into plain loads. Over range(n)
# it vectorized them into AVX-512 gathers of two columns of ``ps`` (rows 8 words
# apart), whose latency sat on every decision's path: count_live, called about 44
# times a hand, took 9% of a balanced hand (issue 37; scripts/profile_engine.py).
# The obvious form: ``for p in range(n): if is_live(ps, p): k += 1``.
@jit(_nrt=False, inline="always")
def count_live(ps, n):
    k = 0
    for p in range(MAX_PLAYERS):
        if p < n:
            k += (ps[p, P_INHAND] != 0) & (ps[p, P_FOLDED] == 0)
    return k


@jit(_nrt=False, inline="always")
def count_can_act(ps, n, skip):
    k = 0
    for p in range(MAX_PLAYERS):
        if p < n:
            k += (p != skip) & (ps[p, P_INHAND] != 0) & (ps[p, P_FOLDED] == 0) & (ps[p, P_ALLIN] == 0)
    return k


@jit(_nrt=False)
def mark_allin(g, ps, p):
    """``p`` has no chips left: all-in for the rest of the hand, stamped with the hand's
    clock (side pots are formed in the order of these stamps, R1)."""
    ps[p, P_ALLIN] = 1
    ps[p, P_ALLIN_TICK] = g[G_TICK]
    g[G_TICK] += 1


@jit(_nrt=False)
def next_alive(ps, n, seat):
    """The first seat left of ``seat`` still in the match."""
    for i in range(1, n + 1):
        q = wrap_seat(seat + i, n)
        if ps[q, P_ALIVE] != 0:
            return q
    return seat


@jit(_nrt=False)
def seat_order(g, ps, out_order):
    """Seats dealt into the hand, left of the dealer first; returns how many."""
    n = g[G_N]
    k = 0
    for i in range(1, n + 1):
        q = wrap_seat(g[G_BUTTON] + i, n)
        if ps[q, P_INHAND] != 0:
            out_order[k] = q
            k += 1
    return k


# -- cards -------------------------------------------------------------------------
@jit(_nrt=False)
def reset_stock(g, settings, stock):
    """All ``decks`` x 52 cards back in the stock (shuffled lazily as dealt)."""
    n = 52 * settings[S_DECKS]
    for i in range(n):
        stock[i] = i % 52
    g[G_STOCK_TOP] = 0
    g[G_STOCK_N] = n
    g[G_DISC_N] = 0


@jit(_nrt=False)
def refill_from_discards(g, pile, disc, top_at, n_at, disc_n_at):
    """The ``g[disc_n_at]`` cards of ``disc`` become ``pile`` (in place, unshuffled: each
    draw shuffles, :func:`draw_from_top`); ``g[top_at]``, ``g[n_at]`` and ``g[disc_n_at]``
    are ``pile``'s top, its size and the discard count. Returns the pile's new size."""
    nd = g[disc_n_at]
    for i in range(nd):
        pile[i] = disc[i]
    g[top_at] = 0
    g[n_at] = nd
    g[disc_n_at] = 0
    return nd


@jit(_nrt=False)
def draw_from_top(g, pile, rng, top_at, n_at):
    """One card uniformly of ``pile[g[top_at]:g[n_at]]`` (lazy Fisher-Yates: it swaps places
    with the top card, and the top moves past it; one ``below`` draw). The stock and the
    Disruptor deck both draw this way."""
    top = g[top_at]
    r = top + below(rng, g[n_at] - top)
    c = pile[r]
    pile[r] = pile[top]
    pile[top] = c
    g[top_at] = top + 1
    return c


@jit(_nrt=False)
def _restock(g, stock, disc, counts, ev):
    """The discard pile becomes the new stock (SPEC 4.4: the stock ran out)."""
    nd = refill_from_discards(g, stock, disc, G_STOCK_TOP, G_STOCK_N, G_DISC_N)
    counts[C_STOCK_RESHUFFLES] += 1
    log_reshuffle(ev, g, 0, nd)


@jit(_nrt=False)
def deal_card(g, stock, disc, rng, counts, ev):
    """One card off a uniformly shuffled stock (lazy Fisher-Yates)."""
    if g[G_STOCK_TOP] >= g[G_STOCK_N]:
        _restock(g, stock, disc, counts, ev)
    return draw_from_top(g, stock, rng, G_STOCK_TOP, G_STOCK_N)


@jit(_nrt=False)
def fill_buf(p, hole, board, n_board, buf):
    """``buf`` (int8[8]) = the 5 hole cards of ``p`` + ``n_board`` community cards, -1 padded."""
    for i in range(5):
        buf[i] = hole[p, i]
    for i in range(3):
        buf[5 + i] = board[i] if i < n_board else -1


@jit(_nrt=False)
def player_category(g, ps, p, colpos, hole, board, buf):
    """Best category of ``p``'s cards under the live column (cached until cards or column move)."""
    key = (g[G_COLVER] << 24) | g[G_CARDVER]
    if ps[p, P_CAT_KEY] == key:
        return ps[p, P_CAT]
    return call_category(g[G_EVAL_FN], g, ps, p, colpos, hole, board, buf, key)


# Without reference counting: compiled with it, each call paid about ten atomic
# increfs/decrefs (its arguments, the reshaped view), 6% of a balanced hand. Only
# the brute force allocates; it runs behind a call of its own that has NRT.
@jit(_nrt=False)
def _player_category_compute(g, ps, p, colpos, hole, board, buf, key):
    fill_buf(p, hole, board, g[G_BOARD_N], buf)
    inverted = g[G_INVERTED] != 0
    # score_hand(buf, colpos, wilds, elevated, inverted), with the reading of the column
    # (a 13 x 13 sort) made once per player and column version instead of per hand
    elev_key = ps[p, P_ELEV] | (ps[p, P_ELEV_LIFT] << 13)  # the mask and its lift
    if ps[p, P_READ_KEY] != g[G_COLVER] or ps[p, P_READ_ELEV] != elev_key:
        lv_a, lv_b, order = reading_lift(colpos, inverted, ps[p, P_ELEV], ps[p, P_ELEV_LIFT])
        ps[p, P_LV_A] = lv_a
        ps[p, P_LV_B] = lv_b
        ps[p, P_ORDER] = order
        ps[p, P_READ_KEY] = g[G_COLVER]
        ps[p, P_READ_ELEV] = elev_key
    # buf[np.newaxis, :], not buf.reshape(1, 8): a reshape calls numba's C helper each time
    score = score_row_unforced(buf[np.newaxis, :], 0, ps[p, P_WILDS], ps[p, P_LV_A],
                               ps[p, P_LV_B], ps[p, P_ORDER])
    if score == NEED_BRUTE:
        score = brute_score(buf, ps[p, P_LV_A], ps[p, P_LV_B])
    cat = category_of_level(score, ps[p, P_LV_A], ps[p, P_LV_B])
    ps[p, P_CAT] = cat
    ps[p, P_SCORE_C] = score
    ps[p, P_CAT_KEY] = key
    return cat


def evaluator_address() -> int:
    """Address of the compiled ``_player_category_compute`` (compiled or loaded on first use).

    The kernels call the evaluator through it (see :mod:`nop_sim.games.new_order.kernels.firewall`);
    every engine driver takes it as an argument and stores it in ``g[G_EVAL_FN]``.
    """
    return address(_player_category_compute, CATEGORY_ARGS)


@jit(_nrt=False)
def player_score(g, ps, p, colpos, hole, board, buf):
    """Score of ``p``'s best hand (larger wins), from the same cache as the category."""
    key = (g[G_COLVER] << 24) | g[G_CARDVER]
    if ps[p, P_CAT_KEY] != key:
        call_category(g[G_EVAL_FN], g, ps, p, colpos, hole, board, buf, key)
    return ps[p, P_SCORE_C]


# -- column ------------------------------------------------------------------------
@jit(_nrt=False)
def swap_positions(g, col, colpos, i, j):
    """Swap the categories at positions ``i`` and ``j`` of the column."""
    a = col[i]
    b = col[j]
    col[i] = b
    col[j] = a
    colpos[a] = j
    colpos[b] = i
    g[G_COLVER] += 1


@jit(_nrt=False)
def restore_column(g, col, colpos):
    for c in range(13):
        col[c] = c
        colpos[c] = c
    g[G_COLVER] += 1
