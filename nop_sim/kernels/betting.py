"""Betting rounds with hedging and manipulation (SPEC 5 and 6; numba only).

State tuples: ``st`` = match state arrays, ``cfg`` = read-only inputs, ``out``
= this match's output rows and the chunk's counters (see kernels.match).
"""

from __future__ import annotations

from nop_sim.kernels._jit import jit
from nop_sim.kernels.common import can_act, count_can_act, count_live, log_event, swap_positions
from nop_sim.kernels.policy import choose_action, choose_hedge, choose_promotion, choose_size
from nop_sim.kernels.state import (
    ACT_BET,
    ACT_CALL,
    ACT_CHECK,
    ACT_FOLD,
    ACT_RAISE,
    G_BANK_OUT,
    G_BETTING,
    G_BUTTON,
    G_CEILING,
    G_DART,
    G_DEAD,
    G_FROZEN,
    G_INFLATION,
    G_LAST_RAISE,
    G_LEVEL,
    G_N,
    G_N_RAISES,
    G_ROUND,
    G_UNIT,
    P_ACTED,
    P_ALLIN,
    P_BROKERS,
    P_CHIPS,
    P_COMMITTED,
    P_FOLDED,
    P_HEDGE,
    P_ROUND_BET,
)
from nop_sim.types import (
    BET_LIMIT,
    BET_NO_LIMIT,
    C_ALL_INS,
    C_BETS,
    C_CALLS,
    C_CHECKS,
    C_FEES,
    C_FEES_TO_BANK,
    C_FOLDS,
    C_HEDGE_COST,
    C_HEDGES,
    C_MANIPULATIONS,
    C_RAISES,
    D_BROKER,
    EV_ACTION,
    EV_HEDGE,
    EV_PROMOTE,
    K_HEDGES,
    K_MANIPULATIONS,
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


@jit(_nrt=False)
def pot_total(g, ps):
    """Chips in the pot now: bets and antes of everyone plus fees and hedge costs."""
    t = g[G_DEAD]
    for p in range(g[G_N]):
        t += ps[p, P_COMMITTED]
    return t


@jit(_nrt=False)
def manipulation_fee(g, ps, p, damount):
    """The fee ``p`` pays now: the dart, at most the price ceiling, less 2 per broker."""
    f = g[G_DART]
    if g[G_CEILING] > 0 and f > g[G_CEILING]:
        f = g[G_CEILING]
    f -= ps[p, P_BROKERS] * damount[D_BROKER]
    return max(f, 0)


@jit(_nrt=False)
def promote(g, col, colpos, cat):
    """Swap ``cat`` with the category directly above it (caller checks it is not on top)."""
    pos = colpos[cat]
    swap_positions(g, col, colpos, pos, pos - 1)


@jit(_nrt=False, inline="always")
def _hedge_turn(st, cfg, out, rng, p):
    g, ps = st[0], st[1]
    settings = cfg[0]
    cost = settings[S_HEDGE_COST]
    if ps[p, P_CHIPS] <= cost:
        return
    h = choose_hedge(st, cfg, p, rng, settings)
    if h < 0 or h == ps[p, P_HEDGE]:
        return
    counts, catst, oplayer, ev = out[0], out[1], out[4], out[6]
    prev = ps[p, P_HEDGE]
    ps[p, P_CHIPS] -= cost
    g[G_DEAD] += cost
    ps[p, P_HEDGE] = h
    counts[C_HEDGES] += 1
    counts[C_HEDGE_COST] += cost
    catst[K_HEDGES, h] += 1
    oplayer[p, PL_HEDGES_PLACED] += 1
    log_event(ev, g, EV_HEDGE, p, h, cost, prev, -1, -1, -1, -1, -1, -1, -1)


@jit(_nrt=False, inline="always")
def _manipulate(st, cfg, out, rng, p, stake):
    """Promotions that go with a bet, call or raise; returns how many were made."""
    g, ps, col, colpos = st[0], st[1], st[2], st[3]
    settings, damount = cfg[0], cfg[2]
    counts, catst, oplayer, ev = out[0], out[1], out[4], out[6]
    made = 0
    while made < settings[S_PROMOTIONS]:
        fee = manipulation_fee(g, ps, p, damount)
        if ps[p, P_CHIPS] - fee < 1:  # the fee is paid in full and the action still needs a chip
            break
        cat = choose_promotion(st, cfg, p, rng, fee, pot_total(g, ps) + stake)
        if cat < 0 or colpos[cat] == 0:
            break
        above = col[colpos[cat] - 1]
        ps[p, P_CHIPS] -= fee
        if settings[S_FEE_TO] == TO_BANK:
            g[G_BANK_OUT] += fee
            counts[C_FEES_TO_BANK] += fee
        else:
            g[G_DEAD] += fee
        promote(g, col, colpos, cat)
        g[G_DART] = min(g[G_DART] + settings[S_DART_STEP] * g[G_INFLATION], settings[S_DART_CAP])
        counts[C_MANIPULATIONS] += 1
        counts[C_FEES] += fee
        catst[K_MANIPULATIONS, cat] += 1
        oplayer[p, PL_MANIPULATIONS] += 1
        oplayer[p, PL_FEES] += fee
        log_event(ev, g, EV_PROMOTE, p, cat, fee, g[G_DART], settings[S_FEE_TO], above,
                  -1, -1, -1, -1, -1)
        made += 1
    return made


@jit(_nrt=False, inline="always")
def _take_turn(st, cfg, out, rng, p):
    g, ps = st[0], st[1]
    settings = cfg[0]
    counts, ev = out[0], out[6]
    n = g[G_N]
    _hedge_turn(st, cfg, out, rng, p)
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
    if to_call == 0:
        can_bet = level == 0 and chips > 0 and others > 0
        can_raise = level > 0 and chips > 0 and others > 0 and raise_room
    else:
        can_bet = False
        can_raise = chips > to_call and others > 0 and raise_room
    act = choose_action(st, cfg, p, rng, to_call, can_check, can_bet, can_raise, pot)
    put = 0
    if act == ACT_CALL:
        put = min(to_call, chips)
    elif act == ACT_BET or act == ACT_RAISE:
        if structure == BET_LIMIT:
            put = to_call + g[G_UNIT]
        else:
            min_raise = max(g[G_LAST_RAISE], settings[S_SMALL_BET])
            if act == ACT_BET:
                min_raise = settings[S_SMALL_BET]
            lo = to_call + min_raise
            if structure == BET_NO_LIMIT:
                hi = chips
            else:
                hi = max(to_call + pot + to_call, lo)  # pot-limit: raise at most the pot after calling
            hi = min(hi, chips)
            lo = min(lo, hi)
            put = choose_size(cfg, p, rng, lo, hi, pot + to_call)
        put = min(put, chips)
    if act == ACT_CALL or act == ACT_BET or act == ACT_RAISE:
        if g[G_FROZEN] == 0 and settings[S_PROMOTIONS] > 0:
            if _manipulate(st, cfg, out, rng, p, put) > 0:
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
            if size >= g[G_LAST_RAISE]:
                g[G_LAST_RAISE] = size
            g[G_LEVEL] = new
            if level > 0:
                g[G_N_RAISES] += 1
                counts[C_RAISES] += 1
                act = ACT_RAISE
            else:
                counts[C_BETS] += 1
                act = ACT_BET
        else:
            counts[C_CALLS] += 1
            act = ACT_CALL
        if ps[p, P_CHIPS] == 0:
            ps[p, P_ALLIN] = 1
            counts[C_ALL_INS] += 1
    ps[p, P_ACTED] = 1
    log_event(ev, g, EV_ACTION, p, act, put, ps[p, P_ROUND_BET], g[G_LEVEL], ps[p, P_ALLIN],
              ps[p, P_CHIPS], -1, -1, -1, -1)


@jit(_nrt=False)
def betting_round(st, cfg, out, rng, rnd):
    """Play Bet I, II or III (``rnd`` 0, 1, 2) until every player still able has matched."""
    g, ps = st[0], st[1]
    settings = cfg[0]
    n = g[G_N]
    for p in range(n):
        ps[p, P_ROUND_BET] = 0
        ps[p, P_ACTED] = 0
    g[G_ROUND] = rnd
    g[G_LEVEL] = 0
    g[G_N_RAISES] = 0
    g[G_UNIT] = settings[S_SMALL_BET] if rnd == 0 else settings[S_BIG_BET]
    g[G_LAST_RAISE] = settings[S_SMALL_BET]
    if count_live(ps, n) <= 1 or count_can_act(ps, n, -1) < 2:
        return
    p = (g[G_BUTTON] + 1) % n
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
                    return
        else:
            idle += 1
        p = (p + 1) % n
