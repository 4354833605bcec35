"""Agent decisions: every choice the rules give, driven by a parameter row (numba only).

A row of ``agents`` (columns ``types.A_*``) is the whole policy. With
``A_RANDOM == 1`` each choice is uniform over the legal ones; otherwise the
choices follow the judged strength: the chance to beat every live opponent
under the LIVE column, wilds and elevation (kernels.strength), with no
rollouts.

State tuples (see kernels.match): ``st`` holds the match state arrays, ``cfg``
the read-only inputs.
"""

from __future__ import annotations

import numpy as np

from nop_sim.core.types import N_CATEGORIES
from nop_sim.games.new_order.kernels.common import count_live, player_category, powi
from nop_sim.games.new_order.kernels.state import (
    ACT_BLUFF,
    CFG_AGENTS,
    CFG_DTYPE,
    CFG_SETTINGS,
    F_BEAT_ALL,
    G_BETTING,
    G_BOARD_N,
    G_HEDGE_MULT,
    G_INVERTED,
    G_N,
    G_THIRD,
    P_ALIVE,
    P_ARG0,
    P_ARG1,
    P_ELEV,
    P_ELEV_LIFT,
    P_HEDGE,
    P_HFUND,
    P_LAST_CAT,
    P_PERS0,
    P_PERS1,
    P_WILDS,
    SH_FLUSH3,
    SH_FLUSH4,
    SH_FLUSH5,
    SH_FULL_HOUSE,
    SH_GUTSHOT,
    SH_HIGH1,
    SH_HIGH2,
    SH_NOTHING,
    SH_OESD,
    SH_PAIR,
    SH_QUADS,
    SH_SF_DRAW,
    SH_STRAIGHT5,
    SH_TRIPS,
    SH_TWO_PAIR,
    ST_BOARD,
    ST_BUF,
    ST_COL,
    ST_COLPOS,
    ST_COMM,
    ST_DIST,
    ST_FTMP,
    ST_G,
    ST_HOLE,
    ST_PS,
    ST_SRNG,
    ST_TAIL,
    ST_TMP,
    TAB_R5,
    TAB_R7,
    TMP_OPTS,
    TMP_RANKS,
    TMP_RCOUNT,
    TMP_SCOUNT,
    TMP_SUITS,
)
from nop_sim.games.new_order.kernels.strength import (
    beat_one,
    eff_position,
    ensure_table,
    shape_value,
    winner_categories,
    winner_positions,
)
from nop_sim.games.new_order.types import (
    A_BET_FRACTION,
    A_BET_THRESHOLD,
    A_BLUFF,
    A_CALL_MARGIN,
    A_DRAFT0,
    A_DRAFT_SKILL,
    A_DRAW_AIM,
    A_HEDGE,
    A_HEDGE_MOVE,
    A_HEDGE_OWN,
    A_HEDGE_STREET,
    A_MANIPULATE,
    A_MANIPULATE_HURT,
    A_MANIPULATE_STREET,
    A_MUCK,
    A_NL_SCALE,
    A_NOISE,
    A_RANDOM,
    A_SIZE_STRENGTH,
    A_STATION,
    BET_NO_LIMIT,
    D_BROKER,
    D_ELEVATOR,
    D_HEDGE_FUND,
    D_LEVY,
    S_HEDGE_COST,
    S_HEDGE_PAYOUT,
    S_STREAMS,
    TYPE_PERSONAL,
)
from nop_sim.kernels.jit import jit
from nop_sim.kernels.rng import below, uniform


# -- whose random numbers ------------------------------------------------------------
@jit(inline="always")
def seat_rng(st, cfg, p, rng):
    """The stream seat ``p``'s decisions draw from: its own (``st[ST_SRNG][p]``) when the
    match plays with split streams (``S_STREAMS``: a candidate's choices then never shift
    another seat's noise or the cards), else the match's one stream ``rng``."""
    if cfg[CFG_SETTINGS][S_STREAMS] != 0:
        return st[ST_SRNG][p]
    return rng


# -- judged strength -------------------------------------------------------------------
@jit(_nrt=False)
def single_strength(st, cfg, p):
    """(chance to beat ONE random hand with as many cards, own category, effective position)."""
    g, ps, colpos = st[ST_G], st[ST_PS], st[ST_COLPOS]
    hole, board, buf = st[ST_HOLE], st[ST_BOARD], st[ST_BUF]
    dist, tail = st[ST_DIST], st[ST_TAIL]
    t = TAB_R5 + g[G_BOARD_N]
    ensure_table(st, cfg, t)
    cat = player_category(g, ps, p, colpos, hole, board, buf)
    e = eff_position(colpos, g[G_INVERTED] != 0, cat)
    elev = (ps[p, P_ELEV] >> cat) & 1
    if elev:
        e -= ps[p, P_ELEV_LIFT]
    return beat_one(dist, tail, t, e, elev != 0), cat, e


@jit(_nrt=False, inline="always")
def judge_turn(st, s1):
    """Keep ``s1 ** (live opponents)`` (at least one), the chance to beat them all, for the
    choices of a turn (``s1``: :func:`single_strength`'s chance to beat one hand).

    The turn judges ``s1`` once (kernels.betting) and this once with it, where the
    hedge, the action, its size and the promotion each counted the live seats and raised
    ``s1`` to that power: about 20 powers and 30 counts a balanced hand (issue 37).
    """
    st[ST_FTMP][F_BEAT_ALL] = powi(s1, max(count_live(st[ST_PS], st[ST_G][G_N]) - 1, 1))


@jit(_nrt=False, inline="always")
def strength(st, agent, rng):
    """Judged chance to beat every live opponent (:func:`judge_turn`), with the agent's noise."""
    s = st[ST_FTMP][F_BEAT_ALL]
    noise = agent[A_NOISE]
    if noise > 0.0:
        s += noise * (uniform(rng) - 0.5)
    return s


# -- betting ---------------------------------------------------------------------------
@jit(_nrt=False, inline="always")
def _agent_action(st, cfg, p, rng, to_call, can_check, can_bet, can_raise, pot):
    """One of ACT_* (0 fold, 1 check, 2 call, 3 bet, 4 raise) among the legal ones (the
    strength: :func:`judge_turn`'s), plus ``ACT_BLUFF`` on a bet or raise the strength
    alone would not have made (the bluff draw made it)."""
    rng = seat_rng(st, cfg, p, rng)
    agent = cfg[CFG_AGENTS][p]
    if agent[A_RANDOM] >= 0.5:
        # uniform over the legal action types
        opts = st[ST_TMP][TMP_OPTS:TMP_OPTS + 3]
        k = 0
        if can_check:
            opts[k] = 1
            k += 1
        else:
            opts[k] = 0
            opts[k + 1] = 2
            k += 2
        if can_bet:
            opts[k] = 3
            k += 1
        elif can_raise:
            opts[k] = 4
            k += 1
        return opts[below(rng, k)]
    if agent[A_STATION] >= 0.5:
        return 1 if can_check else 2
    s = strength(st, agent, rng)
    strong = s >= agent[A_BET_THRESHOLD]
    aggressive = strong or uniform(rng) < agent[A_BLUFF]  # the draw only when not strong
    bluff = 0 if strong else ACT_BLUFF
    if can_check:
        if aggressive and can_bet:
            return 3 + bluff
        return 1
    if aggressive and can_raise:
        return 4 + bluff
    odds = to_call / (pot + to_call) if pot + to_call > 0 else 0.0
    if s >= odds + agent[A_CALL_MARGIN]:
        return 2
    return 0


@jit(_nrt=False)
def _agent_size(st, cfg, p, rng, lo, hi, pot):
    """Chips for a pot-limit / no-limit bet or raise, within [lo, hi] (the strength:
    :func:`judge_turn`'s)."""
    rng = seat_rng(st, cfg, p, rng)
    if hi <= lo:
        return hi
    agent = cfg[CFG_AGENTS][p]
    if agent[A_RANDOM] >= 0.5:
        return lo + below(rng, hi - lo + 1)
    fraction = agent[A_BET_FRACTION]
    if agent[A_SIZE_STRENGTH] != 0.0:
        # strength without the noise: sizing draws nothing from the RNG
        fraction += agent[A_SIZE_STRENGTH] * (st[ST_FTMP][F_BEAT_ALL] - 0.5)
    size = fraction * pot
    if st[ST_G][G_BETTING] == BET_NO_LIMIT:
        size *= agent[A_NL_SCALE]  # exact at the default 1.0
    want = np.int64(size + 0.5) if size > 0.0 else np.int64(0)
    return min(max(want, lo), hi)


@jit(_nrt=False, inline="always")
def _agent_promotion(st, cfg, p, rng, fee, pot, s1, cat, e):
    """Category to promote with this action, or -1 (the caller checks the fee is payable).

    ``s1, cat, e``: :func:`single_strength` of ``p`` under the column now."""
    rng = seat_rng(st, cfg, p, rng)
    g, ps, col, colpos = st[ST_G], st[ST_PS], st[ST_COL], st[ST_COLPOS]
    agent = cfg[CFG_AGENTS][p]
    if agent[A_RANDOM] >= 0.5:
        if uniform(rng) < 0.5:
            return col[1 + below(rng, N_CATEGORIES - 1)]
        return -1
    w = agent[A_MANIPULATE]
    if w <= 0.0:
        return -1
    if g[G_BOARD_N] + 0.5 < agent[A_MANIPULATE_STREET]:  # nearest street: a search reaches 0
        return -1
    pos = np.int64(colpos[cat])
    inverted = g[G_INVERTED] != 0
    own = -1
    own_v = -1.0
    # read bottom-up (inverted), a category gains by the one below it moving up
    if (pos > 0 if not inverted else pos < N_CATEGORIES - 1) and e > 0:
        target = cat if not inverted else col[pos + 1]
        dist = st[ST_DIST]
        t = TAB_R5 + g[G_BOARD_N]
        gain = 0.5 * (dist[t, e - 1] + dist[t, e])
        n_opp = max(count_live(ps, g[G_N]) - 1, 1)
        before = st[ST_FTMP][F_BEAT_ALL]  # powi(s1, n_opp), judged with s1
        after = powi(min(1.0, s1 + gain), n_opp)
        v = w * (after - before) * pot
        if v > fee:
            own = target
            own_v = v
    hurt = agent[A_MANIPULATE_HURT]
    if hurt > 0.0:
        target, drop = _hurt_promotion(st, cfg, cat)
        v = w * hurt * drop * pot
        if target >= 0 and v > fee and v > own_v:
            return target
    return own


@jit(_nrt=False)
def _hurt_promotion(st, cfg, cat):
    """(category to promote, estimated drop in its chance to win) that pushes the category
    likeliest to win against ``cat`` down one place; (-1, 0) when none can move down.

    The drop is the chance the best hand of the table sits at the likely winner's position
    less the chance at the position below (winner_positions, the final tables): what that
    category would lose by trading places, read off one cached distribution."""
    g, ps, col, colpos = st[ST_G], st[ST_PS], st[ST_COL], st[ST_COLPOS]
    lw = _likely_winner(st, cfg, cat)
    if lw < 0:
        return -1, 0.0
    pos = np.int64(colpos[lw])
    if g[G_INVERTED] == 0:
        if pos == N_CATEGORIES - 1:
            return -1, 0.0
        target = col[pos + 1]  # it moves up past lw
    else:
        if pos == 0:
            return -1, 0.0
        target = lw  # read bottom-up: moving lw up the column pushes it down
    m = 0
    for q in range(g[G_N]):
        if ps[q, P_ALIVE] != 0:
            m += 1
    o = winner_positions(st, cfg, TAB_R7, max(m, 2))  # cached: _likely_winner just built it
    win = st[ST_FTMP]
    k = eff_position(colpos, g[G_INVERTED] != 0, lw)
    if k >= N_CATEGORIES - 1:
        return -1, 0.0
    return target, max(win[o + k] - win[o + k + 1], 0.0)


@jit(_nrt=False, inline="always")
def _agent_hedge(st, cfg, p, rng, settings, cat, e):
    """Category to put the Hedging Token on now (place or move), or -1.

    ``cat, e``: :func:`single_strength`'s of ``p`` now (the strength: :func:`judge_turn`'s)."""
    rng = seat_rng(st, cfg, p, rng)
    g, ps = st[ST_G], st[ST_PS]
    agent = cfg[CFG_AGENTS][p]
    current = ps[p, P_HEDGE]
    if agent[A_RANDOM] >= 0.5:
        if uniform(rng) < 0.5:
            c = below(rng, N_CATEGORIES - 1 if current >= 0 else N_CATEGORIES)
            if current >= 0 and c >= current:
                c += 1
            return c
        return -1
    w = agent[A_HEDGE]
    if w <= 0.0:
        return -1
    if g[G_BOARD_N] + 0.5 < agent[A_HEDGE_STREET]:  # nearest street: a search reaches 0
        return -1
    if current >= 0 and agent[A_HEDGE_MOVE] <= 0.0:
        return -1
    own_w = agent[A_HEDGE_OWN]
    s = strength(st, agent, rng)
    s = min(max(s, 0.0), 1.0)
    t_final = TAB_R7 + (1 if g[G_THIRD] > 1 else 0)
    n_opp = max(count_live(ps, g[G_N]) - 1, 1)
    payout = settings[S_HEDGE_PAYOUT] * g[G_HEDGE_MULT] * ps[p, P_HFUND]
    o = winner_categories(st, cfg, t_final, n_opp)
    # a view of the row: its constant indices need no check for negative ones
    win = st[ST_FTMP][o:o + N_CATEGORIES]
    best_c = -1
    best_v = -1.0
    for c in range(N_CATEGORIES):
        v = _hedge_value(win, c, s, cat, own_w, payout)
        if v > best_v:
            best_v = v
            best_c = c
    if best_c == current:
        return -1
    cur_v = 0.0
    if current >= 0:
        cur_v = _hedge_value(win, current, s, cat, own_w, payout)
        w *= agent[A_HEDGE_MOVE]  # a move; exact at the default 1.0
    if w * (best_v - cur_v) > settings[S_HEDGE_COST]:
        return best_c
    return -1


@jit(_nrt=False, inline="always")
def _hedge_value(win, c, s, cat, own_w, payout):
    """The hedge's value of the token on category ``c``: the chance ``c`` wins the
    showdown (``win``: by category, :func:`winner_categories`) when ``p``'s own hand
    (category ``cat``, judged strength ``s``) does not, plus ``own_w * s`` on its own."""
    prob = (1.0 - s) * win[c]
    if c == cat:
        prob += own_w * s  # own_w == 1.0 (the default) adds s exactly
        if own_w != 1.0:
            prob = min(prob, 1.0)
    return prob * payout


# -- draw --------------------------------------------------------------------------------
@jit(_nrt=False)
def _keep_count(keep):
    k = 0
    for i in range(5):
        if (keep >> i) & 1:
            k += 1
    return k


@jit(_nrt=False)
def _fill_keep(keep, ranks, max_discard):
    """Keep more cards (highest ranks first) until at most ``max_discard`` are discarded."""
    while 5 - _keep_count(keep) > max_discard:
        best = -1
        for i in range(5):
            if not (keep >> i) & 1 and (best < 0 or ranks[i] > ranks[best]):
                best = i
        keep |= 1 << best
    return keep


@jit(_nrt=False, inline="always")  # one call site: kernels.decide.choose_keep
def _agent_keep(st, cfg, p, rng, max_discard):
    """Bit mask of the hole cards ``p`` keeps in the Draw (bit i = hole card i)."""
    rng = seat_rng(st, cfg, p, rng)
    ps, hole = st[ST_PS], st[ST_HOLE]
    agent = cfg[CFG_AGENTS][p]
    if max_discard <= 0:
        return 31
    if agent[A_RANDOM] >= 0.5:
        n_disc = below(rng, max_discard + 1)
        keep = 31
        while 5 - _keep_count(keep) < n_disc:
            keep &= ~(1 << below(rng, 5))
        return keep
    wilds = ps[p, P_WILDS]
    tmp = st[ST_TMP]
    ranks = tmp[TMP_RANKS:TMP_RANKS + 5]
    suits = tmp[TMP_SUITS:TMP_SUITS + 5]
    wild_keep = 0
    rcount = tmp[TMP_RCOUNT:TMP_RCOUNT + 15]
    scount = tmp[TMP_SCOUNT:TMP_SCOUNT + 4]
    rcount[:] = 0
    scount[:] = 0
    for i in range(5):
        c = np.int64(hole[p, i])
        ranks[i] = c // 4 + 2
        suits[i] = c % 4
        if (wilds >> (c // 4)) & 1:
            wild_keep |= 1 << i
        else:
            rcount[ranks[i]] += 1
            scount[suits[i]] += 1
    dist, tail = st[ST_DIST], st[ST_TAIL]
    s1, cat, e = single_strength(st, cfg, p)
    # 1. classic plan: keep rank groups, else the high cards
    keep = wild_keep
    n_pairs = 0
    n_trips = 0
    n_quads = 0
    for r in range(2, 15):
        if rcount[r] == 2:
            n_pairs += 1
        elif rcount[r] == 3:
            n_trips += 1
        elif rcount[r] >= 4:
            n_quads += 1
    for i in range(5):
        if not (wild_keep >> i) & 1 and rcount[ranks[i]] >= 2:
            keep |= 1 << i
    if n_quads > 0:
        shape = SH_QUADS
    elif n_trips > 0 and n_pairs > 0:
        shape = SH_FULL_HOUSE
    elif n_trips > 0:
        shape = SH_TRIPS
    elif n_pairs >= 2:
        shape = SH_TWO_PAIR
    elif n_pairs == 1:
        shape = SH_PAIR
    else:
        shape = SH_HIGH2
        n_high = 2 if max_discard >= 3 else 5 - max_discard
        for _ in range(n_high):
            best = -1
            for i in range(5):
                if not (keep >> i) & 1 and (best < 0 or ranks[i] > ranks[best]):
                    best = i
            keep |= 1 << best
    keep = _fill_keep(keep, ranks, max_discard)
    classic = keep
    if uniform(rng) >= agent[A_DRAW_AIM]:
        return classic
    ensure_table(st, cfg, TAB_R7)
    best_keep = classic
    best_v = shape_value(st, cfg, shape)
    # 2. stand pat: the present category, improved by nothing
    v = beat_one(dist, tail, TAB_R7, max(e, 0), False)
    if v > best_v:
        best_v = v
        best_keep = 31
    # 3. fewer kept high cards (deep draws)
    if shape == SH_HIGH2 and max_discard >= 4:
        sh = SH_HIGH1 if max_discard == 4 else SH_NOTHING
        v = shape_value(st, cfg, sh)
        if v > best_v:
            best_v = v
            k1 = wild_keep
            if sh == SH_HIGH1:
                hi = 0
                for i in range(5):
                    if ranks[i] > ranks[hi]:
                        hi = i
                k1 |= 1 << hi
            best_keep = k1
    # 4. flush plan: the longest suit
    fs = 0
    for s in range(4):
        if scount[s] > scount[fs]:
            fs = s
    if scount[fs] >= 3 and 5 - scount[fs] - _keep_count(wild_keep) <= max_discard:
        k2 = wild_keep
        for i in range(5):
            if suits[i] == fs and not (wild_keep >> i) & 1:
                k2 |= 1 << i
        sh = SH_FLUSH3 if scount[fs] == 3 else (SH_FLUSH4 if scount[fs] == 4 else SH_FLUSH5)
        if 5 - _keep_count(k2) <= max_discard:
            v = shape_value(st, cfg, sh)
            if v > best_v:
                best_v = v
                best_keep = k2
    # 5. straight plan: the five-rank window holding most ranks (ace high or low)
    best_low = -1
    best_n = 0
    for low in range(1, 11):
        n_in = 0
        for r in range(low, low + 5):
            rr = 14 if r == 1 else r
            if rcount[rr] > 0:
                n_in += 1
        if n_in > best_n:
            best_n = n_in
            best_low = low
    if best_n >= 4:
        k3 = wild_keep
        seen = 0
        same_suit = -1
        suited = True
        lo_in = 99
        hi_in = -1
        for i in range(5):
            if (wild_keep >> i) & 1:
                continue
            r = ranks[i]
            rel = -1
            if best_low <= r <= best_low + 4:
                rel = r - best_low
            elif r == 14 and best_low == 1:
                rel = 0
            if rel >= 0 and not (seen >> rel) & 1:
                seen |= 1 << rel
                k3 |= 1 << i
                lo_in = min(lo_in, rel)
                hi_in = max(hi_in, rel)
                if same_suit < 0:
                    same_suit = suits[i]
                elif suits[i] != same_suit:
                    suited = False
        if best_n == 5:
            sh = SH_STRAIGHT5
        elif suited:
            sh = SH_SF_DRAW
        elif hi_in - lo_in == 3 and best_low + lo_in >= 2 and best_low + hi_in <= 13:
            sh = SH_OESD
        else:
            sh = SH_GUTSHOT
        if 5 - _keep_count(k3) <= max_discard:
            v = shape_value(st, cfg, sh)
            if v > best_v:
                best_v = v
                best_keep = k3
    return best_keep


# -- showdown --------------------------------------------------------------------------------
@jit(_nrt=False)
def _agent_muck(st, cfg, p, rng):
    """Muck a hand that cannot win? (asked only when mucking is allowed)."""
    return uniform(rng) < cfg[CFG_AGENTS][p, A_MUCK]


# -- Disruptors ----------------------------------------------------------------------------
@jit(_nrt=False)
def card_value(st, cfg, p, card):
    """How much ``p`` wants a Disruptor card (drafting, discarding to make room)."""
    g, ps = st[ST_G], st[ST_PS]
    dtype, agent = cfg[CFG_DTYPE], cfg[CFG_AGENTS][p]
    v = agent[A_DRAFT0 + card]
    if card == D_BROKER:
        v += 2.0 * agent[A_MANIPULATE]
    elif card == D_HEDGE_FUND:
        v += 3.0 * agent[A_HEDGE]
    elif card == D_LEVY:
        v += g[G_N] - 1
    if dtype[card] == TYPE_PERSONAL and ps[p, P_PERS0] >= 0 and ps[p, P_PERS1] >= 0:
        v -= 1.0
    return v


# The draft's choices are inlined where the draft calls them (and in the scripted
# seats' recorders): each call passed the state tuples, about 250 arguments. The draft
# compiles beside the driver, so this costs no wait (issue 37).
@jit(_nrt=False, inline="always")
def _agent_pick(st, cfg, p, rng, reveal, n_reveal, taken):
    """Index into ``reveal`` of the card ``p`` drafts (mandatory)."""
    rng = seat_rng(st, cfg, p, rng)
    n_left = 0
    for i in range(n_reveal):
        if not taken[i]:
            n_left += 1
    if cfg[CFG_AGENTS][p, A_RANDOM] >= 0.5 or uniform(rng) >= cfg[CFG_AGENTS][p, A_DRAFT_SKILL]:
        j = below(rng, n_left)
        for i in range(n_reveal):
            if not taken[i]:
                if j == 0:
                    return i
                j -= 1
    best = -1
    best_v = -1e18
    for i in range(n_reveal):
        if not taken[i]:
            v = card_value(st, cfg, p, reveal[i])
            if v > best_v:
                best_v = v
                best = i
    return best


@jit(_nrt=False)
def _agent_personal_drop(st, cfg, p, rng):
    """Which of its two Personal cards ``p`` discards (0 or 1) to take a third."""
    rng = seat_rng(st, cfg, p, rng)
    ps = st[ST_PS]
    if cfg[CFG_AGENTS][p, A_RANDOM] >= 0.5:
        return below(rng, 2)
    v0 = card_value(st, cfg, p, ps[p, P_PERS0])
    v1 = card_value(st, cfg, p, ps[p, P_PERS1])
    return 0 if v0 <= v1 else 1


@jit(_nrt=False)
def _agent_community_drop(st, cfg, p, rng):
    """Which of the two Community cards in play (0 or 1) ``p`` discards to add a third."""
    rng = seat_rng(st, cfg, p, rng)
    comm = st[ST_COMM]
    if cfg[CFG_AGENTS][p, A_RANDOM] >= 0.5:
        return below(rng, 2)
    v0 = card_value(st, cfg, p, comm[0])
    v1 = card_value(st, cfg, p, comm[1])
    return 0 if v0 <= v1 else 1


@jit(_nrt=False)
def _likely_winner(st, cfg, exclude):
    """The category most likely to win a showdown of every live seat, other than ``exclude``."""
    g, ps, colpos = st[ST_G], st[ST_PS], st[ST_COLPOS]
    m = 0
    for q in range(g[G_N]):
        if ps[q, P_ALIVE] != 0:
            m += 1
    o = winner_positions(st, cfg, TAB_R7, max(m, 2))
    win = st[ST_FTMP]
    best = -1
    best_v = -1.0
    for c in range(N_CATEGORIES):
        if c == exclude:
            continue
        k = eff_position(colpos, g[G_INVERTED] != 0, c)
        v = win[o + k]
        if v > best_v:
            best_v = v
            best = c
    return best


@jit(_nrt=False)
def _own_category(st, p):
    """The category ``p`` cares for: its Elevator's, else the one it last showed."""
    ps = st[ST_PS]
    if ps[p, P_PERS0] == D_ELEVATOR:
        return ps[p, P_ARG0]
    if ps[p, P_PERS1] == D_ELEVATOR:
        return ps[p, P_ARG1]
    return ps[p, P_LAST_CAT]


@jit(_nrt=False, inline="always")
def _agent_promote_target(st, cfg, p, rng):
    """insider_tip: a category not at the top."""
    rng = seat_rng(st, cfg, p, rng)
    col, colpos = st[ST_COL], st[ST_COLPOS]
    if cfg[CFG_AGENTS][p, A_RANDOM] < 0.5:
        c = _own_category(st, p)
        if c >= 0 and colpos[c] > 0:
            return c
    return col[1 + below(rng, N_CATEGORIES - 1)]


@jit(_nrt=False, inline="always")
def _agent_demote_target(st, cfg, p, rng):
    """short_sell: a category not at the bottom."""
    rng = seat_rng(st, cfg, p, rng)
    col, colpos = st[ST_COL], st[ST_COLPOS]
    if cfg[CFG_AGENTS][p, A_RANDOM] < 0.5:
        c = _likely_winner(st, cfg, _own_category(st, p))
        if c >= 0 and colpos[c] < N_CATEGORIES - 1:
            return c
    return col[below(rng, N_CATEGORIES - 1)]


@jit(_nrt=False)
def _agent_swap(st, cfg, p, rng):
    """swap_any: two different positions of the column."""
    rng = seat_rng(st, cfg, p, rng)
    colpos = st[ST_COLPOS]
    if cfg[CFG_AGENTS][p, A_RANDOM] < 0.5:
        c = _own_category(st, p)
        if c >= 0 and colpos[c] > 0:
            return 0, np.int64(colpos[c])
        return 11, 12
    i = below(rng, N_CATEGORIES)
    j = below(rng, N_CATEGORIES - 1)
    if j >= i:
        j += 1
    return i, j


@jit(_nrt=False, inline="always")
def _agent_elevator_category(st, cfg, p, rng):
    """The category an Elevator names: most often held times what a step up is worth."""
    rng = seat_rng(st, cfg, p, rng)
    g, colpos, dist, tail = st[ST_G], st[ST_COLPOS], st[ST_DIST], st[ST_TAIL]
    if cfg[CFG_AGENTS][p, A_RANDOM] >= 0.5:
        return below(rng, N_CATEGORIES)
    ensure_table(st, cfg, TAB_R7)
    best = N_CATEGORIES - 1
    best_v = -1.0
    for c in range(N_CATEGORIES):
        k = eff_position(colpos, g[G_INVERTED] != 0, c)
        gain = beat_one(dist, tail, TAB_R7, k - 1, True) - beat_one(dist, tail, TAB_R7, k, False)
        v = dist[TAB_R7, k] * gain
        if v > best_v:
            best_v = v
            best = c
    return best


@jit(_nrt=False)
def _agent_purge(st, cfg, p, rng, owners, slots, n_targets):
    """purge: index of the target among ``n_targets`` cards in play (owner -1 = community)."""
    rng = seat_rng(st, cfg, p, rng)
    ps, comm = st[ST_PS], st[ST_COMM]
    if cfg[CFG_AGENTS][p, A_RANDOM] >= 0.5:
        return below(rng, n_targets)
    best = 0
    best_v = -1e18
    for i in range(n_targets):
        q = owners[i]
        if q < 0:
            card = comm[slots[i]]
            v = -card_value(st, cfg, p, card) * 0.5 + 1.0
        elif q == p:
            card = ps[q, P_PERS0 + slots[i]]
            v = -card_value(st, cfg, p, card)
        else:
            card = ps[q, P_PERS0 + slots[i]]
            v = card_value(st, cfg, q, card) + 2.0
        if v > best_v:
            best_v = v
            best = i
    return best
