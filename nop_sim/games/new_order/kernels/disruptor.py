"""Disruptor deck, draft and the 25 effects (SPEC 7; numba only).

The deck (``ddeck``) and discard pile (``ddisc``) persist for the match. A
reveal takes a uniformly random card of the deck (lazy Fisher-Yates); when
the deck is empty the discard pile becomes the deck. Instants resolve at the
pick; Personal and Community cards change the game from the next hand on
(their derived flags are read at each hand's start, kernels.match).
"""

from __future__ import annotations

from nop_sim.games.new_order.kernels.common import (
    draw_from_top,
    refill_from_discards,
    restore_column,
    swap_positions,
)
from nop_sim.games.new_order.kernels.decide import (
    choose_community_drop,
    choose_demote_target,
    choose_elevator_category,
    choose_personal_drop,
    choose_pick,
    choose_promote_target,
    choose_purge,
    choose_swap,
)
from nop_sim.games.new_order.kernels.eventlog import (
    log_disruptor_discard,
    log_effect,
    log_pick,
    log_reshuffle,
    log_reveal,
)
from nop_sim.games.new_order.kernels.firewall import DRAFT_ARGS, address
from nop_sim.games.new_order.kernels.state import (
    CFG_DAMOUNT,
    CFG_DTYPE,
    CFG_SETTINGS,
    G_BANK_IN,
    G_DART,
    G_DDISC_N,
    G_DN,
    G_DTOP,
    G_HAND,
    G_N,
    OUT_COUNTS,
    OUT_DIS,
    OUT_DRAFTED,
    OUT_EVENTS,
    P_ALIVE,
    P_ARG0,
    P_CHIPS,
    P_GOT0,
    P_PERS0,
    ST_COL,
    ST_COLPOS,
    ST_COMM,
    ST_DDECK,
    ST_DDISC,
    ST_G,
    ST_PS,
    ST_REVEAL,
    ST_TMP,
    TMP_OWNERS,
    TMP_SLOTS,
    TMP_TAKEN,
)
from nop_sim.games.new_order.types import (
    C_DISRUPTOR_RESHUFFLES,
    D_BULL_RUN,
    D_ELEVATOR,
    D_INSIDER_TIP,
    D_LEVY,
    D_MARKET_CRASH,
    D_PURGE,
    D_RESTORE_ORDER,
    D_SHORT_SELL,
    D_SWAP_ANY,
    D_WINDFALL,
    DS_APPLIED,
    DS_DISCARDED,
    DS_PICKS,
    DS_PICKS_FIRST,
    DS_REVEALED,
    S_DART_CAP,
    S_DART_START,
    TYPE_INSTANT,
    TYPE_PERSONAL,
)
from nop_sim.kernels.jit import jit

# reasons logged with EV_DISRUPTOR_DISCARD
WHY_LEFTOVER = 0
WHY_PERSONAL_ROOM = 1
WHY_COMMUNITY_ROOM = 2
WHY_PURGED = 3
WHY_ELIMINATED = 4
WHY_SAFETY_NET = 5
WHY_INSTANT = 6


@jit(_nrt=False)
def discard_disruptor(st, out, card, owner, why, arg, slot):
    """Put ``card`` on the Disruptor discard pile (``arg``: an Elevator's category, else -1;
    ``slot``: the Personal or Community slot it leaves, -1 for a revealed card)."""
    g, ddisc = st[ST_G], st[ST_DDISC]
    ddisc[g[G_DDISC_N]] = card
    g[G_DDISC_N] += 1
    if why != WHY_INSTANT:
        out[OUT_DIS][DS_DISCARDED, card] += 1
    log_disruptor_discard(out[OUT_EVENTS], g, owner, card, why, arg, slot)


@jit(_nrt=False)
def _reveal_one(st, out, rng):
    g, ddeck, ddisc = st[ST_G], st[ST_DDECK], st[ST_DDISC]
    if g[G_DTOP] >= g[G_DN]:
        nd = g[G_DDISC_N]
        if nd == 0:
            return -1
        refill_from_discards(g, ddeck, ddisc, G_DTOP, G_DN, G_DDISC_N)
        out[OUT_COUNTS][C_DISRUPTOR_RESHUFFLES] += 1
        log_reshuffle(out[OUT_EVENTS], g, 1, nd)
    return draw_from_top(g, ddeck, rng, G_DTOP, G_DN)


# One call site (take_card, inlined into the draft): a call passed the state tuples, about
# 300 arguments pushed each Instant. The draft compiles beside the driver (kernels.firewall),
# so its inlining costs no wait.
@jit(_nrt=False, inline="always")
def _apply_instant(st, cfg, out, rng, p, card):
    g, ps, col, colpos = st[ST_G], st[ST_PS], st[ST_COL], st[ST_COLPOS]
    settings, damount = cfg[CFG_SETTINGS], cfg[CFG_DAMOUNT]
    ev = out[OUT_EVENTS]
    amount = damount[card]
    a1 = -1
    a2 = -1
    if card == D_MARKET_CRASH:
        g[G_DART] = max(g[G_DART] - amount, settings[S_DART_START])
        a1 = g[G_DART]
    elif card == D_BULL_RUN:
        g[G_DART] = min(g[G_DART] + amount, settings[S_DART_CAP])
        a1 = g[G_DART]
    elif card == D_INSIDER_TIP:  # up ``amount`` positions (R8), no further than the top
        c = choose_promote_target(st, cfg, p, rng)
        for _ in range(amount):
            pos = colpos[c]
            if pos > 0:
                swap_positions(g, col, colpos, pos, pos - 1)
        a1 = c
        a2 = colpos[c]  # where it stopped (R13)
    elif card == D_SHORT_SELL:  # down ``amount`` positions, no further than the bottom
        c = choose_demote_target(st, cfg, p, rng)
        for _ in range(amount):
            pos = colpos[c]
            if pos < 12:
                swap_positions(g, col, colpos, pos, pos + 1)
        a1 = c
        a2 = colpos[c]  # where it stopped (R13)
    elif card == D_WINDFALL:
        ps[p, P_CHIPS] += amount
        g[G_BANK_IN] += amount
        a1 = amount
    elif card == D_LEVY:
        got = 0
        for q in range(g[G_N]):
            if q != p and ps[q, P_ALIVE] != 0:
                pay = min(amount, ps[q, P_CHIPS])
                ps[q, P_CHIPS] -= pay
                got += pay
        ps[p, P_CHIPS] += got
        a1 = got
    elif card == D_RESTORE_ORDER:
        restore_column(g, col, colpos)
    elif card == D_SWAP_ANY:
        i, j = choose_swap(st, cfg, p, rng)
        a1 = col[i]
        a2 = col[j]
        swap_positions(g, col, colpos, i, j)
    elif card == D_PURGE:
        comm = st[ST_COMM]
        owners = st[ST_TMP][TMP_OWNERS:TMP_OWNERS + 18]
        slots = st[ST_TMP][TMP_SLOTS:TMP_SLOTS + 18]
        k = 0
        for q in range(g[G_N]):
            if ps[q, P_ALIVE] != 0:
                for s in range(2):
                    if ps[q, P_PERS0 + s] >= 0:
                        owners[k] = q
                        slots[k] = s
                        k += 1
        for s in range(2):
            if comm[s] >= 0:
                owners[k] = -1
                slots[k] = s
                k += 1
        if k > 0:
            i = choose_purge(st, cfg, p, rng, owners, slots, k)
            q = owners[i]
            arg = -1
            if q < 0:
                target = comm[slots[i]]
                comm[slots[i]] = -1
            else:
                target = ps[q, P_PERS0 + slots[i]]
                arg = ps[q, P_ARG0 + slots[i]]
                ps[q, P_PERS0 + slots[i]] = -1
                ps[q, P_ARG0 + slots[i]] = -1
            a1 = target
            a2 = q
            discard_disruptor(st, out, target, q, WHY_PURGED, arg, slots[i])
    log_effect(ev, g, p, card, a1, a2, g[G_DART])


@jit(_nrt=False, inline="always")  # one call site (draft): a call passed the state tuples
def take_card(st, cfg, out, rng, p, card):
    """``p`` takes ``card``: resolve an Instant, or put a Personal / Community card in play."""
    ps, comm = st[ST_PS], st[ST_COMM]
    dtype = cfg[CFG_DTYPE]
    dstat = out[OUT_DIS]
    dstat[DS_APPLIED, card] += 1
    kind = dtype[card]
    if kind == TYPE_INSTANT:
        _apply_instant(st, cfg, out, rng, p, card)
        discard_disruptor(st, out, card, p, WHY_INSTANT, -1, -1)
        return
    if kind == TYPE_PERSONAL:
        slot = 0 if ps[p, P_PERS0] < 0 else (1 if ps[p, P_PERS0 + 1] < 0 else -1)
        if slot < 0:
            slot = choose_personal_drop(st, cfg, p, rng)
            discard_disruptor(st, out, ps[p, P_PERS0 + slot], p, WHY_PERSONAL_ROOM,
                              ps[p, P_ARG0 + slot], slot)
        arg = -1
        if card == D_ELEVATOR:
            arg = choose_elevator_category(st, cfg, p, rng)
        ps[p, P_PERS0 + slot] = card
        ps[p, P_ARG0 + slot] = arg
        ps[p, P_GOT0 + slot] = st[ST_G][G_HAND]
        log_effect(out[OUT_EVENTS], st[ST_G], p, card, arg, slot, -1)
        return
    slot = 0 if comm[0] < 0 else (1 if comm[1] < 0 else -1)
    if slot < 0:
        slot = choose_community_drop(st, cfg, p, rng)
        discard_disruptor(st, out, comm[slot], p, WHY_COMMUNITY_ROOM, -1, slot)
    comm[slot] = card
    log_effect(out[OUT_EVENTS], st[ST_G], p, card, -1, slot, -1)


@jit(_nrt=False)
def draft(st, cfg, out, rng, pickers, n_pickers, k_showdown):
    """Reveal ``k_showdown + 1`` cards; ``pickers`` (in draft order) each take one."""
    g, reveal = st[ST_G], st[ST_REVEAL]
    dstat, odrafted, ev = out[OUT_DIS], out[OUT_DRAFTED], out[OUT_EVENTS]
    n_rev = 0
    for _ in range(k_showdown + 1):
        c = _reveal_one(st, out, rng)
        if c < 0:
            break
        reveal[n_rev] = c
        dstat[DS_REVEALED, c] += 1
        n_rev += 1
    if n_rev == 0:
        return
    log_reveal(ev, g, n_rev, reveal)
    taken = st[ST_TMP][TMP_TAKEN:TMP_TAKEN + n_rev]
    taken[:] = 0
    left = n_rev
    for j in range(n_pickers):
        if left == 0:
            break
        p = pickers[j]
        i = choose_pick(st, cfg, p, rng, reveal, n_rev, taken)
        taken[i] = 1
        left -= 1
        card = reveal[i]
        dstat[DS_PICKS, card] += 1
        if j == 0:
            dstat[DS_PICKS_FIRST, card] += 1
        odrafted[p, card] += 1
        log_pick(ev, g, p, card, i, j)
        take_card(st, cfg, out, rng, p, card)
    for i in range(n_rev):
        if not taken[i]:
            discard_disruptor(st, out, reveal[i], -1, WHY_LEFTOVER, -1, -1)


def draft_address() -> int:
    """Address of :func:`draft` compiled for the match state (see kernels.firewall).

    The match driver calls the draft through it (``g[G_DRAFT_FN]``).
    """
    return address(draft, DRAFT_ARGS)
