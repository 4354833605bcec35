"""The match event log's writers: one per event kind (numba only).

Each writer takes the arguments of its kind by name, as nop_sim.games.new_order.history'
``EVENT_SCHEMA`` lists them (tests/test_kernel_state.py checks the names),
and writes one int64 row ``(match, hand, kind, seat, a0 .. a9)`` with the
unused arguments -1, the format the referee and stored logs read. A match
that is not logged pays one branch per event (``g[G_LOG]``).

Table events (a seat of -1 in the row) take no ``seat``. A list field
(``cards*``, ``chips*``) is an array and its length (``n_cards``, ``n_seats``).
"""

from __future__ import annotations

from nop_sim.games.new_order.kernels.state import G_EV_LOST, G_EVN, G_HAND, G_LOG, G_MATCH
from nop_sim.games.new_order.types import (
    EV_ACTION,
    EV_ANTE,
    EV_AWARD,
    EV_BOARD,
    EV_DEAL,
    EV_DISCARD,
    EV_DISRUPTOR_DISCARD,
    EV_DRAWN,
    EV_EFFECT,
    EV_ELIMINATED,
    EV_FOLD_WIN,
    EV_HAND_END,
    EV_HAND_START,
    EV_HEDGE,
    EV_HEDGE_PAY,
    EV_MATCH_END,
    EV_MATCH_START,
    EV_MUCK,
    EV_PICK,
    EV_POT,
    EV_PROMOTE,
    EV_RESHUFFLE,
    EV_REVEAL,
    EV_SAFETY,
    EV_SHOW,
    EV_UNCALLED,
    EV_WIDTH,
)
from nop_sim.kernels.jit import jit

A = 4  # column of the first argument


@jit(_nrt=False)
def _row(ev, g, kind, seat):
    """A new row with its head written and every argument -1; its index, or -1 (and
    counted in ``g[G_EV_LOST]``) when the buffer is full."""
    i = g[G_EVN]
    if i >= ev.shape[0]:
        g[G_EV_LOST] += 1
        return -1
    ev[i, 0] = g[G_MATCH]
    ev[i, 1] = g[G_HAND]
    ev[i, 2] = kind
    ev[i, 3] = seat
    for k in range(A, EV_WIDTH):
        ev[i, k] = -1
    g[G_EVN] = i + 1
    return i


@jit(_nrt=False)
def _cards(ev, i, first, cards, n_cards):
    """``cards[:n_cards]`` into row ``i`` from argument column ``first``."""
    for k in range(n_cards):
        ev[i, first + k] = cards[k]


# -- match and hand ---------------------------------------------------------------------
@jit(_nrt=False)
def log_match_start(ev, g, players, chips, button, dart, disruptor_cards):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_MATCH_START, -1)
        if i >= 0:
            ev[i, A] = players
            ev[i, A + 1] = chips
            ev[i, A + 2] = button
            ev[i, A + 3] = dart
            ev[i, A + 4] = disruptor_cards


@jit(_nrt=False)
def log_hand_start(ev, g, button, dart, inverted, betting, community_cards_i, ante, frozen,
                   fee_ceiling, dart_step_mult, hedge_mult):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_HAND_START, -1)
        if i >= 0:
            ev[i, A] = button
            ev[i, A + 1] = dart
            ev[i, A + 2] = inverted
            ev[i, A + 3] = betting
            ev[i, A + 4] = community_cards_i
            ev[i, A + 5] = ante
            ev[i, A + 6] = frozen
            ev[i, A + 7] = fee_ceiling
            ev[i, A + 8] = dart_step_mult
            ev[i, A + 9] = hedge_mult


@jit(_nrt=False)
def log_hand_end(ev, g, chips, n_seats, dart, bank_net):
    """``chips[:n_seats]`` the stacks per seat (then -1 to 8 seats)."""
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_HAND_END, -1)
        if i >= 0:
            _cards(ev, i, A, chips, n_seats)
            ev[i, A + 8] = dart
            ev[i, A + 9] = bank_net


@jit(_nrt=False)
def log_match_end(ev, g, winner, hands, unresolved):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_MATCH_END, -1)
        if i >= 0:
            ev[i, A] = winner
            ev[i, A + 1] = hands
            ev[i, A + 2] = unresolved


# -- cards ----------------------------------------------------------------------------------
@jit(_nrt=False)
def log_ante(ev, g, seat, amount, all_in):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_ANTE, seat)
        if i >= 0:
            ev[i, A] = amount
            ev[i, A + 1] = all_in


@jit(_nrt=False)
def log_deal(ev, g, seat, cards):
    """``cards``: the 5 hole cards."""
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_DEAL, seat)
        if i >= 0:
            _cards(ev, i, A, cards, 5)


@jit(_nrt=False)
def log_discard(ev, g, seat, n, cards):
    """``cards``: 5 slots, the discarded cards in theirs, -1 in the others."""
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_DISCARD, seat)
        if i >= 0:
            ev[i, A] = n
            _cards(ev, i, A + 1, cards, 5)


@jit(_nrt=False)
def log_hole(ev, g, seat, cards):
    """``cards``: the 5 hole cards after the draw."""
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_DRAWN, seat)
        if i >= 0:
            _cards(ev, i, A, cards, 5)


@jit(_nrt=False)
def log_board(ev, g, cards, n_cards):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_BOARD, -1)
        if i >= 0:
            _cards(ev, i, A, cards, n_cards)


@jit(_nrt=False)
def log_reshuffle(ev, g, pile, cards):
    """``pile`` 0 the stock, 1 the Disruptor deck; ``cards`` how many it now holds."""
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_RESHUFFLE, -1)
        if i >= 0:
            ev[i, A] = pile
            ev[i, A + 1] = cards


# -- betting --------------------------------------------------------------------------------
@jit(_nrt=False)
def log_hedge(ev, g, seat, category, cost, previous, all_in):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_HEDGE, seat)
        if i >= 0:
            ev[i, A] = category
            ev[i, A + 1] = cost
            ev[i, A + 2] = previous
            ev[i, A + 3] = all_in


@jit(_nrt=False)
def log_action(ev, g, seat, action, chips, round_bet, level, all_in, stack):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_ACTION, seat)
        if i >= 0:
            ev[i, A] = action
            ev[i, A + 1] = chips
            ev[i, A + 2] = round_bet
            ev[i, A + 3] = level
            ev[i, A + 4] = all_in
            ev[i, A + 5] = stack


@jit(_nrt=False)
def log_promote(ev, g, seat, category, fee, dart, fee_to, swapped_with):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_PROMOTE, seat)
        if i >= 0:
            ev[i, A] = category
            ev[i, A + 1] = fee
            ev[i, A + 2] = dart
            ev[i, A + 3] = fee_to
            ev[i, A + 4] = swapped_with


# -- showdown -------------------------------------------------------------------------------
@jit(_nrt=False)
def log_show(ev, g, seat, score, category, elevated):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_SHOW, seat)
        if i >= 0:
            ev[i, A] = score
            ev[i, A + 1] = category
            ev[i, A + 2] = elevated


@jit(_nrt=False)
def log_muck(ev, g, seat):
    if g[G_LOG] != 0:
        _row(ev, g, EV_MUCK, seat)


@jit(_nrt=False)
def log_hedge_pay(ev, g, seat, paid, from_, category, due):
    """``from_``: the schema's ``from`` (where the payout comes from, settings' fee_to codes)."""
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_HEDGE_PAY, seat)
        if i >= 0:
            ev[i, A] = paid
            ev[i, A + 1] = from_
            ev[i, A + 2] = category
            ev[i, A + 3] = due


@jit(_nrt=False)
def log_pot(ev, g, index, amount, eligible, winners):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_POT, -1)
        if i >= 0:
            ev[i, A] = index
            ev[i, A + 1] = amount
            ev[i, A + 2] = eligible
            ev[i, A + 3] = winners


@jit(_nrt=False)
def log_award(ev, g, seat, chips, pot):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_AWARD, seat)
        if i >= 0:
            ev[i, A] = chips
            ev[i, A + 1] = pot


@jit(_nrt=False)
def log_uncalled(ev, g, seat, chips):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_UNCALLED, seat)
        if i >= 0:
            ev[i, A] = chips


@jit(_nrt=False)
def log_fold_win(ev, g, seat, chips):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_FOLD_WIN, seat)
        if i >= 0:
            ev[i, A] = chips


@jit(_nrt=False)
def log_eliminated(ev, g, seat, hand):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_ELIMINATED, seat)
        if i >= 0:
            ev[i, A] = hand


@jit(_nrt=False)
def log_safety_net(ev, g, seat, chips, slot):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_SAFETY, seat)
        if i >= 0:
            ev[i, A] = chips
            ev[i, A + 1] = slot


# -- Disruptors -----------------------------------------------------------------------------
@jit(_nrt=False)
def log_reveal(ev, g, n, cards):
    """``cards[:n]``: the Disruptors revealed (at most 9)."""
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_REVEAL, -1)
        if i >= 0:
            ev[i, A] = n
            _cards(ev, i, A + 1, cards, n)


@jit(_nrt=False)
def log_pick(ev, g, seat, card, index, order):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_PICK, seat)
        if i >= 0:
            ev[i, A] = card
            ev[i, A + 1] = index
            ev[i, A + 2] = order


@jit(_nrt=False)
def log_effect(ev, g, seat, card, a, b, dart):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_EFFECT, seat)
        if i >= 0:
            ev[i, A] = card
            ev[i, A + 1] = a
            ev[i, A + 2] = b
            ev[i, A + 3] = dart


@jit(_nrt=False)
def log_disruptor_discard(ev, g, seat, card, why, named, slot):
    if g[G_LOG] != 0:
        i = _row(ev, g, EV_DISRUPTOR_DISCARD, seat)
        if i >= 0:
            ev[i, A] = card
            ev[i, A + 1] = why
            ev[i, A + 2] = named
            ev[i, A + 3] = slot


@jit(_nrt=False)
def scatter_columns(rows, dest, out):
    """``out[j, dest[i]] = rows[i, j]`` for each row with ``dest[i] >= 0`` (the others are
    left out): one piece of logged rows (int64 ``(n, EV_WIDTH)``, a row an event) put in
    place among all of a part's, column by column (``out``: ``(EV_WIDTH, rows kept)``), as
    a table takes them. Piece by piece, the pieces need not be appended first (a copy of
    every row, 52 MB a part of 12,500 baseline matches); NumPy's transpose and take made
    two passes more, of strided writes."""
    width = rows.shape[1]
    for i in range(rows.shape[0]):
        d = dest[i]
        if d >= 0:
            for j in range(width):
                out[j, d] = rows[i, j]
