"""Betting rounds with hedging and manipulation (SPEC 5 and 6; numba only).

State tuples: ``st`` = match state arrays, ``cfg`` = read-only inputs, ``out``
= this match's output rows and the chunk's counters (see kernels.match).
"""

from __future__ import annotations

from nop_sim.games.new_order.kernels.common import (
    can_act,
    count_can_act,
    count_live,
    mark_allin,
    size_bounds,
    swap_positions,
    wrap_seat,
)
from nop_sim.games.new_order.kernels.decide import (
    choose_action,
    choose_hedge,
    choose_promotion,
    choose_size,
)
from nop_sim.games.new_order.kernels.eventlog import (
    log_action,
    log_hedge,
    log_promote,
    log_uncalled,
)
from nop_sim.games.new_order.kernels.policy import judge_turn, single_strength
from nop_sim.games.new_order.kernels.state import (
    ACT_BET,
    ACT_BLUFF,
    ACT_CALL,
    ACT_CHECK,
    ACT_FOLD,
    ACT_RAISE,
    CFG_AGENTS,
    CFG_SETTINGS,
    G_BANK_OUT,
    G_BETTING,
    G_BUTTON,
    G_CEILING,
    G_DART,
    G_DEAD,
    G_FROZEN,
    G_FULL_SEQ,
    G_INFLATION,
    G_LAST_RAISE,
    G_LEVEL,
    G_N,
    G_N_RAISES,
    G_ROUND,
    G_SIDE_DEAD_N,
    G_TICK,
    G_UNIT,
    MAX_DEAD_POTS,
    OUT_CAT,
    OUT_COUNTS,
    OUT_EVENTS,
    OUT_PLAYER,
    P_ACT_SEQ,
    P_ACTED,
    P_ALLIN,
    P_ALLIN_TICK,
    P_CHIPS,
    P_COMMITTED,
    P_FEE_OFF,
    P_FOLDED,
    P_HEDGE,
    P_INHAND,
    P_ROUND_BET,
    ST_COL,
    ST_COLPOS,
    ST_G,
    ST_PS,
    ST_TMP,
    TMP_DPOT_AMT,
    TMP_DPOT_MASK,
    TMP_DPOT_TICK,
)
from nop_sim.games.new_order.kernels.table import tabular
from nop_sim.games.new_order.types import (
    A_RANDOM,
    BET_LIMIT,
    C_ALL_INS,
    C_BETS,
    C_BLUFFS,
    C_CALLS,
    C_CHECKS,
    C_FEES,
    C_FEES_TO_BANK,
    C_FOLDS,
    C_HEDGE_COST,
    C_HEDGES,
    C_MANIPULATIONS,
    C_RAISES,
    K_HEDGES,
    K_MANIPULATIONS,
    MAX_PLAYERS,
    PL_BLUFFS,
    PL_FEES,
    PL_HEDGES_PLACED,
    PL_MANIPULATIONS,
    S_BIG_BET,
    S_DART_CAP,
    S_DART_STEP,
    S_FEE_TO,
    S_HEDGE_COST,
    S_MAX_RAISES,
    S_PROMOTIONS,
    S_SMALL_BET,
    TO_BANK,
)
from nop_sim.kernels.jit import jit


@jit(_nrt=False)
def pot_total(g, ps):
    """Chips in the pot now: bets and antes of everyone plus fees and hedge costs."""
    t = g[G_DEAD]
    n = g[G_N]
    for p in range(MAX_PLAYERS):  # not range(n): see kernels.common.count_live
        if p < n:
            t += ps[p, P_COMMITTED]
    return t


@jit(_nrt=False)
def pay_dead(g, ps, tmp, amount):
    """Chips that are not a bet (a fee to the pot, a hedge cost) go into the pot (R1).

    Before any all-in they join the main pot. Once a player of the hand is
    all-in they form a pot of their own that only the seats neither folded nor
    all-in now may win; payments with the same such seats share one pot (the
    set only shrinks during a hand, so they are consecutive).
    """
    g[G_DEAD] += amount
    mask = 0
    any_allin = False
    for q in range(g[G_N]):
        if ps[q, P_INHAND] != 0 and ps[q, P_FOLDED] == 0:
            if ps[q, P_ALLIN] != 0:
                any_allin = True
            else:
                mask |= 1 << q
    if not any_allin or amount == 0:
        return
    k = g[G_SIDE_DEAD_N]
    if k > 0 and tmp[TMP_DPOT_MASK + k - 1] == mask:
        tmp[TMP_DPOT_AMT + k - 1] += amount
        return
    if k >= MAX_DEAD_POTS:  # cannot happen: at most one mask per fold or all-in
        tmp[TMP_DPOT_AMT + k - 1] += amount
        return
    tmp[TMP_DPOT_AMT + k] = amount
    tmp[TMP_DPOT_MASK + k] = mask
    tmp[TMP_DPOT_TICK + k] = g[G_TICK]
    g[G_TICK] += 1
    g[G_SIDE_DEAD_N] = k + 1


@jit(_nrt=False)
def ledger_fee(g, ps, p):
    """The fee ``p`` pays now: the dart, at most the price ceiling, less what ``p``'s
    brokers take off (their amount, stacked as the catalog says: 2 per broker)."""
    f = g[G_DART]
    if g[G_CEILING] > 0 and f > g[G_CEILING]:
        f = g[G_CEILING]
    f -= ps[p, P_FEE_OFF]
    return max(f, 0)


@jit(_nrt=False)
def promote(g, col, colpos, cat):
    """Swap ``cat`` with the category directly above it (caller checks it is not on top)."""
    pos = colpos[cat]
    swap_positions(g, col, colpos, pos, pos - 1)


@jit(_nrt=False, inline="always")
def _hedge_turn(st, cfg, out, rng, p, cat, e):
    g, ps = st[ST_G], st[ST_PS]
    settings = cfg[CFG_SETTINGS]
    cost = settings[S_HEDGE_COST]
    if ps[p, P_CHIPS] < cost:  # R5: exactly the cost will do
        return
    h = choose_hedge(st, cfg, p, rng, settings, cat, e)
    if h < 0 or h == ps[p, P_HEDGE]:
        return
    counts, catst, oplayer, ev = out[OUT_COUNTS], out[OUT_CAT], out[OUT_PLAYER], out[OUT_EVENTS]
    prev = ps[p, P_HEDGE]
    ps[p, P_CHIPS] -= cost
    pay_dead(g, ps, st[ST_TMP], cost)
    ps[p, P_HEDGE] = h
    counts[C_HEDGES] += 1
    counts[C_HEDGE_COST] += cost
    catst[K_HEDGES, h] += 1
    oplayer[p, PL_HEDGES_PLACED] += 1
    all_in = ps[p, P_CHIPS] == 0 and cost > 0
    if all_in:  # paying the last chip leaves the player all-in (R5)
        mark_allin(g, ps, p)
        counts[C_ALL_INS] += 1
    log_hedge(ev, g, p, h, cost, prev, 1 if all_in else 0)


@jit(_nrt=False, inline="always")
def _manipulate(st, cfg, out, rng, p, stake, s1, cat, e):
    """Promotions that go with a bet, call or raise; returns how many were made.

    ``s1, cat, e``: ``p``'s :func:`single_strength` under the column at the call,
    judged again after each promotion."""
    g, ps, col, colpos = st[ST_G], st[ST_PS], st[ST_COL], st[ST_COLPOS]
    settings = cfg[CFG_SETTINGS]
    counts, catst, oplayer, ev = out[OUT_COUNTS], out[OUT_CAT], out[OUT_PLAYER], out[OUT_EVENTS]
    made = 0
    while made < settings[S_PROMOTIONS]:
        fee = ledger_fee(g, ps, p)
        if ps[p, P_CHIPS] - fee < 1:  # the fee is paid in full and the action still needs a chip
            break
        if made > 0 and cfg[CFG_AGENTS][p, A_RANDOM] < 0.5:  # the column moved
            s1, cat, e = single_strength(st, cfg, p)
            judge_turn(st, s1)
        target = choose_promotion(st, cfg, p, rng, fee, pot_total(g, ps) + stake, s1, cat, e)
        if target < 0 or colpos[target] == 0:
            break
        above = col[colpos[target] - 1]
        ps[p, P_CHIPS] -= fee
        if settings[S_FEE_TO] == TO_BANK:
            g[G_BANK_OUT] += fee
            counts[C_FEES_TO_BANK] += fee
        else:
            pay_dead(g, ps, st[ST_TMP], fee)
        promote(g, col, colpos, target)
        g[G_DART] = min(g[G_DART] + settings[S_DART_STEP] * g[G_INFLATION], settings[S_DART_CAP])
        counts[C_MANIPULATIONS] += 1
        counts[C_FEES] += fee
        catst[K_MANIPULATIONS, target] += 1
        oplayer[p, PL_MANIPULATIONS] += 1
        oplayer[p, PL_FEES] += fee
        log_promote(ev, g, p, target, fee, g[G_DART], settings[S_FEE_TO], above)
        made += 1
    return made


@jit(_nrt=False, inline="always")
def _take_turn(st, cfg, out, rng, p):
    g, ps = st[ST_G], st[ST_PS]
    settings = cfg[CFG_SETTINGS]
    counts, ev = out[OUT_COUNTS], out[OUT_EVENTS]
    n = g[G_N]
    # p's strength under the live column, judged once for the hedge, the action, its
    # size and the first promotion (neither hedging nor betting moves cards or column)
    s1 = 0.0
    cat = -1
    e = -1
    if cfg[CFG_AGENTS][p, A_RANDOM] < 0.5 or tabular(cfg, p):  # a table buckets it
        s1, cat, e = single_strength(st, cfg, p)
        judge_turn(st, s1)
    _hedge_turn(st, cfg, out, rng, p, cat, e)
    if ps[p, P_ALLIN] != 0:  # the hedge took the last chip: no action left to take
        ps[p, P_ACTED] = 1
        ps[p, P_ACT_SEQ] = g[G_FULL_SEQ]
        return
    chips = ps[p, P_CHIPS]
    level = g[G_LEVEL]
    to_call = level - ps[p, P_ROUND_BET]
    if to_call < 0:
        to_call = 0
    pot = pot_total(g, ps)
    structure = g[G_BETTING]
    others = count_can_act(ps, n, p)
    can_check = to_call == 0
    raise_room = structure != BET_LIMIT or g[G_N_RAISES] < settings[S_MAX_RAISES]
    # R4: who has acted since the last full bet or raise may only call or fold
    raise_room = raise_room and (ps[p, P_ACTED] == 0 or ps[p, P_ACT_SEQ] < g[G_FULL_SEQ])
    if to_call == 0:
        can_bet = level == 0 and chips > 0 and others > 0
        can_raise = level > 0 and chips > 0 and others > 0 and raise_room
    else:
        can_bet = False
        can_raise = chips > to_call and others > 0 and raise_room
    act = choose_action(st, cfg, p, rng, to_call, can_check, can_bet, can_raise, pot, s1)
    bluffed = act >= ACT_BLUFF
    if bluffed:
        act -= ACT_BLUFF
    put = 0
    if act == ACT_CALL:
        put = min(to_call, chips)
    elif act == ACT_BET or act == ACT_RAISE:
        if structure == BET_LIMIT:
            put = to_call + g[G_UNIT]
        else:
            lo, hi = size_bounds(g, settings, act == ACT_BET, to_call, pot, chips)
            put = choose_size(st, cfg, p, rng, lo, hi, pot + to_call)
        put = min(put, chips)
    if act == ACT_CALL or act == ACT_BET or act == ACT_RAISE:
        if g[G_FROZEN] == 0 and settings[S_PROMOTIONS] > 0:
            if _manipulate(st, cfg, out, rng, p, put, s1, cat, e) > 0:
                put = min(put, ps[p, P_CHIPS])
                if act == ACT_RAISE and put <= to_call:
                    act = ACT_CALL
    if act == ACT_FOLD:
        ps[p, P_FOLDED] = 1
        counts[C_FOLDS] += 1
    elif act == ACT_CHECK:
        counts[C_CHECKS] += 1
    else:
        ps[p, P_CHIPS] -= put
        ps[p, P_COMMITTED] += put
        ps[p, P_ROUND_BET] += put
        new = ps[p, P_ROUND_BET]
        if new > level:
            size = new - level
            # R4: a full bet or raise is the round's unit (limit) or at least the last full
            # one (pot-limit, no-limit); a smaller (all-in) one neither counts toward
            # max_raises nor reopens the betting
            full = size >= (g[G_UNIT] if structure == BET_LIMIT else g[G_LAST_RAISE])
            if full:
                g[G_LAST_RAISE] = size
                g[G_FULL_SEQ] += 1
            g[G_LEVEL] = new
            if level > 0:
                if full:
                    g[G_N_RAISES] += 1
                counts[C_RAISES] += 1
                act = ACT_RAISE
            else:
                counts[C_BETS] += 1
                act = ACT_BET
            if bluffed:
                counts[C_BLUFFS] += 1
                out[OUT_PLAYER][p, PL_BLUFFS] += 1
        else:
            counts[C_CALLS] += 1
            act = ACT_CALL
        if ps[p, P_CHIPS] == 0:
            mark_allin(g, ps, p)
            counts[C_ALL_INS] += 1
    ps[p, P_ACTED] = 1
    ps[p, P_ACT_SEQ] = g[G_FULL_SEQ]
    log_action(ev, g, p, act, put, ps[p, P_ROUND_BET], g[G_LEVEL], ps[p, P_ALLIN],
               ps[p, P_CHIPS])


@jit(_nrt=False)
def return_uncalled(g, ps, ev):
    """R10: the part of the round's highest bet that no other player matched goes back
    to its bettor when the round ends (everyone else folded to it or was all-in for
    less); it never forms a pot. Returns the chips given back.

    Compared within the round (``P_ROUND_BET``), so an ante is never "uncalled". A
    bettor who was all-in has chips again and is no longer all-in; nobody can act
    after such a round, so no later payment can depend on it.
    """
    top = -1
    top_bet = 0
    second = 0
    for p in range(g[G_N]):
        if ps[p, P_INHAND] == 0:
            continue
        b = ps[p, P_ROUND_BET]
        if b > top_bet:
            second = top_bet
            top_bet = b
            top = p
        elif b > second:
            second = b
    if top < 0 or top_bet <= second:
        return 0
    back = top_bet - second
    ps[top, P_CHIPS] += back
    ps[top, P_COMMITTED] -= back
    ps[top, P_ROUND_BET] -= back
    ps[top, P_ALLIN] = 0
    ps[top, P_ALLIN_TICK] = -1
    log_uncalled(ev, g, top, back)
    return back


@jit(_nrt=False, inline="always")  # one call site: kernels.match._play_hand
def betting_round(st, cfg, out, rng, rnd):
    """Play Bet I, II or III (``rnd`` 0, 1, 2) until every player still able has matched."""
    g, ps = st[ST_G], st[ST_PS]
    settings = cfg[CFG_SETTINGS]
    n = g[G_N]
    for p in range(n):
        ps[p, P_ROUND_BET] = 0
        ps[p, P_ACTED] = 0
        ps[p, P_ACT_SEQ] = 0
    g[G_ROUND] = rnd
    g[G_LEVEL] = 0
    g[G_N_RAISES] = 0
    g[G_FULL_SEQ] = 0
    g[G_UNIT] = settings[S_SMALL_BET] if rnd == 0 else settings[S_BIG_BET]
    g[G_LAST_RAISE] = settings[S_SMALL_BET]
    if count_live(ps, n) <= 1 or count_can_act(ps, n, -1) < 2:
        return
    p = wrap_seat(g[G_BUTTON] + 1, n)
    idle = 0
    while idle < n:
        if can_act(ps, p) and (ps[p, P_ACTED] == 0 or ps[p, P_ROUND_BET] < g[G_LEVEL]):
            if ps[p, P_ROUND_BET] >= g[G_LEVEL] and count_can_act(ps, n, p) == 0:
                # nobody left to bet against and nothing to call
                ps[p, P_ACTED] = 1
                idle += 1
            else:
                _take_turn(st, cfg, out, rng, p)
                idle = 0
                if count_live(ps, n) <= 1:
                    break
        else:
            idle += 1
        p = wrap_seat(p + 1, n)
    return_uncalled(g, ps, out[OUT_EVENTS])
