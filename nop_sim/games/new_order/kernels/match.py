"""Whole matches of New Order Poker, in chunks (SPEC 3-7; numba only).

Array drivers:

* :func:`play_chunks` -- ``prange`` over chunks; chunk ``c`` plays matches
  ``bounds[c]:bounds[c+1]`` with its own RNG state ``rng_states[c]`` and
  writes its own counter rows, so the thread count never changes a result.
* :func:`play_chunks_serial` -- the same loop on the calling thread. The
  runner and any one-thread call use it: it compiles in a fraction of the
  parallel driver's time (no parfor lowering, no gufunc), and the parallel
  driver is compiled only when a call asks for more than one thread.

Match ``m`` writes its rows at ``dest[m]`` and chunk ``c`` adds its counters to row
``slot[c]``: a runner's part plays a chunk's seat rotations as separate chunks (each
its own seed) whose matches interleave, and they land in match order, each chunk's
counters summed, with no copy after the call (``engine.play_batches``' ``rows`` and
``slots``; other callers pass ``arange``).

Inside, the state of one match travels as three tuples of arrays, declared
item by item in kernels.state (``ST_ITEMS``, ``CFG_ITEMS``, ``OUT_ITEMS``) and
read by name (``st[ST_G]``, ``cfg[CFG_SETTINGS]``, ``out[OUT_EVENTS]``):

``st``  = (g, ps, col, colpos, hole, board, buf, stock, disc, ddeck, ddisc,
           comm, dist, tail, reveal, deck0, tmp, ftmp, srng, script, trace)
``cfg`` = (settings, dtype, damount, dstack, agents, tab_start, tab_mask,
           tab_freq, policy, policy_seat, abstraction)
``out`` = (counts, cat, time, dis, player, drafted, events)

(tests/test_kernel_state.py checks this list and the tuples :func:`_play_chunk`
builds against the declarations; layouts: nop_sim.games.new_order.types for inputs and
outputs, kernels.state for ``g``/``ps`` and the scratch). The drivers take
several agent tables and pick one per match (``agents[agent_of[m]]``), so one
call can play a batch of candidate policies; ``cfg``'s ``agents`` is that
match's table, and ``cfg``'s ``policy_seat`` its row of the betting tables'
seats (``policy_seat[agent_of[m]]``: which seat of that table plays which
betting table).

Streams. A run draws everything from its chunk's one stream. With the setting
``S_STREAMS`` (``engine.play_field(..., streams=True)``: the strong-play
searches), a match draws its cards and Disruptors from a chance stream derived
anew at each hand from the match's first state and the hand's number, and each
seat's decisions from a stream of its own (``st[ST_SRNG]``, derived from the
same state, the hand and the seat): two matches from one state whose tables
differ in one seat deal the same cards at every hand that starts alike, and the
other seats draw the same noise (common random numbers that last past the first
decision that parts them).

Why one module of about 1,150 lines (issue 38 lets a kernel file pass 1,000
lines where it says why): it is one match in the order of SPEC 3-7 (ante, deal,
draws, community cards, hedges, showdown with its pots, folds, elimination,
places) and the drivers that loop over matches; the steps that are jobs of their
own already live apart (betting, the Disruptors, the agents' policy, the
evaluator, the event log). What stays are the steps of one hand, several of them
inlined into ``_play_hand`` and ``play_match`` (``inline='always'``), which a
reader checks against the SPEC in one pass.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from nop_sim.core.types import N_CATEGORIES
from nop_sim.games.new_order.kernels.betting import betting_round, pot_total
from nop_sim.games.new_order.kernels.common import (
    count_live,
    deal_card,
    is_live,
    mark_allin,
    next_alive,
    player_category,
    player_score,
    reset_stock,
    seat_order,
    stacked,
)
from nop_sim.games.new_order.kernels.decide import choose_keep, choose_muck
from nop_sim.games.new_order.kernels.disruptor import (
    WHY_ELIMINATED,
    WHY_SAFETY_NET,
    discard_disruptor,
)
from nop_sim.games.new_order.kernels.eventlog import (
    log_ante,
    log_award,
    log_board,
    log_deal,
    log_discard,
    log_eliminated,
    log_fold_win,
    log_hand_end,
    log_hand_start,
    log_hedge_pay,
    log_hole,
    log_match_end,
    log_match_start,
    log_muck,
    log_pot,
    log_safety_net,
    log_show,
)
from nop_sim.games.new_order.kernels.firewall import call_draft
from nop_sim.games.new_order.kernels.policy import seat_rng
from nop_sim.games.new_order.kernels.state import (
    CFG_DAMOUNT,
    CFG_DSTACK,
    CFG_SETTINGS,
    G_ALIVE,
    G_ANTE_MULT,
    G_BANK_IN,
    G_BANK_OUT,
    G_BETTING,
    G_BOARD_N,
    G_BUTTON,
    G_CARDVER,
    G_CEILING,
    G_COLVER,
    G_DART,
    G_DDISC_N,
    G_DEAD,
    G_DEUCES,
    G_DISC_N,
    G_DN,
    G_DRAFT_FN,
    G_DTOP,
    G_ERRORS,
    G_EV_LOST,
    G_EVAL_FN,
    G_EVN,
    G_FROZEN,
    G_HAND,
    G_HEDGE_MULT,
    G_INFLATION,
    G_INVERTED,
    G_LOG,
    G_MATCH,
    G_N,
    G_SCRIPT_AT,
    G_SIDE_DEAD_N,
    G_STOCK_N,
    G_STOCK_TOP,
    G_THIRD,
    G_TICK,
    G_TOTAL0,
    G_TR_LOST,
    G_TRN,
    MAX_POTS,
    N_FTMP,
    N_G,
    N_P,
    N_TABLES,
    N_TMP,
    OUT_CAT,
    OUT_COUNTS,
    OUT_DIS,
    OUT_EVENTS,
    OUT_PLAYER,
    OUT_TIME,
    P_ALIVE,
    P_ALLIN,
    P_ALLIN_TICK,
    P_ARG0,
    P_ARG1,
    P_CAT_KEY,
    P_CHIPS,
    P_COMMITTED,
    P_ELEV,
    P_ELEV_LIFT,
    P_ELIM_HAND,
    P_ELIM_KEY,
    P_EXEMPT,
    P_FEE_OFF,
    P_FOLDED,
    P_GOT0,
    P_HEDGE,
    P_HFUND,
    P_INHAND,
    P_LAST_CAT,
    P_MAX_DISCARD,
    P_MUCKED,
    P_PERS0,
    P_PERS1,
    P_READ_KEY,
    P_ROUND_BET,
    P_SCORE,
    P_SHOWN,
    P_START_CHIPS,
    P_WILDS,
    ST_BOARD,
    ST_BUF,
    ST_COL,
    ST_COLPOS,
    ST_COMM,
    ST_DDECK,
    ST_DDISC,
    ST_DECK0,
    ST_DISC,
    ST_G,
    ST_HOLE,
    ST_PS,
    ST_SCRIPT,
    ST_SRNG,
    ST_STOCK,
    ST_TMP,
    ST_TRACE,
    TMP_DPOT_AMT,
    TMP_DPOT_MASK,
    TMP_DPOT_TICK,
    TMP_DSEEN,
    TMP_ELIG,
    TMP_GONE,
    TMP_LEVELS,
    TMP_ORDER,
    TMP_PICKERS,
    TMP_PLACES,
    TMP_PORDER,
    TMP_POTS,
    TMP_PTICK,
    TMP_SEEN,
    TMP_SVER,
    TMP_TVER,
    TMP_WKEY,
)
from nop_sim.games.new_order.kernels.table import trace_hand_end
from nop_sim.games.new_order.types import (
    BET_NO_LIMIT,
    C_DRAWN,
    C_ELEVATED_WINS,
    C_ELIMINATIONS,
    C_FOLDED_WINS,
    C_HANDS,
    C_HEDGE_HITS,
    C_HEDGE_PAID,
    C_INVARIANT_ERRORS,
    C_INVERTED_HANDS,
    C_MATCHES,
    C_MUCKS,
    C_POT_SQ,
    C_POT_SUM,
    C_SHOWDOWNS,
    C_SIDE_POTS,
    C_SPLITS,
    C_UNRESOLVED,
    C_WILD_HANDS,
    D_ANTE_EXEMPT,
    D_BROKER,
    D_DEEP_DRAW,
    D_DEUCES_WILD,
    D_DOUBLE_ANTE,
    D_ELEVATOR,
    D_FROZEN_MARKET,
    D_HEDGE_BOOM,
    D_HEDGE_FUND,
    D_INFLATION,
    D_INVERSION,
    D_NO_LIMIT,
    D_PRICE_CEILING,
    D_SAFETY_NET,
    D_THIRD_CARD,
    D_WILD_DEUCES,
    DS_HANDS_IN_PLAY,
    DS_OWNER_WINS,
    K_HEDGE_HITS,
    K_SHOWDOWN_HANDS,
    K_WINS,
    K_WINS_ELEVATED,
    M_BANK_IN,
    M_BANK_OUT,
    M_BUTTON_START,
    M_DART,
    M_HANDS,
    M_INVARIANT_ERRORS,
    M_INVERTED,
    M_UNRESOLVED,
    M_WINNER,
    MAX_PLAYERS,
    N_DISRUPTORS,
    PAUSE_AT,
    PAUSE_KIND,
    PL_ELIMINATED_HAND,
    PL_FINAL_CHIPS,
    PL_HEDGE_CHIPS,
    PL_HEDGES_WON,
    PL_PLACE,
    PL_POTS_WON,
    PL_SAFETY_SAVES,
    PL_SHOWDOWNS,
    RESET_HAND,
    S_ANTE,
    S_BETTING,
    S_CHIPS,
    S_DART_RESET,
    S_DART_START,
    S_DECKS,
    S_DRAFT_NO_SHOWDOWN,
    S_HEDGE_FROM,
    S_HEDGE_PAYOUT,
    S_HEDGE_SCOPE,
    S_MAX_DISCARD,
    S_MAX_HANDS,
    S_PLAYERS,
    S_SCRIPTED,
    S_STREAMS,
    SCOPE_HAND,
    T_ALIVE,
    T_DART,
    T_DART_SQ,
    T_MATCHES,
    T_POS0,
    TO_BANK,
)
from nop_sim.kernels.jit import jit, pjit
from nop_sim.kernels.rng import below, derive


# -- hand start ------------------------------------------------------------------------
@jit(_nrt=False)
def _hand_flags(st, cfg, out):
    """Read the Disruptors in play into this hand's flags (effects start the hand after)."""
    g, ps, comm = st[ST_G], st[ST_PS], st[ST_COMM]
    settings, damount, dstack = cfg[CFG_SETTINGS], cfg[CFG_DAMOUNT], cfg[CFG_DSTACK]
    dstat = out[OUT_DIS]
    inverted = 0
    deuces = 0  # mask of the ranks wild for everyone (deuces_wild: bit amount - 2)
    third = 1
    frozen = 0
    betting = settings[S_BETTING]
    inflation = 1
    ceiling = 0
    ante_mult = 1
    hedge_mult = 1
    # the numbers of the cards in play, their copies stacked as the catalog says (R6)
    for s in range(2):
        c = comm[s]
        if c < 0:
            continue
        dstat[DS_HANDS_IN_PLAY, c] += 1
        if s == 1 and comm[0] == c:
            continue  # both copies were counted at slot 0
        k = 2 if s == 0 and comm[1] == c else 1
        if c == D_INVERSION:
            inverted = 1
        elif c == D_DEUCES_WILD:
            deuces |= 1 << (damount[c] - 2)
        elif c == D_THIRD_CARD:
            third = stacked(dstack[c], damount[c], k, 1)
        elif c == D_FROZEN_MARKET:
            frozen = 1
        elif c == D_NO_LIMIT:
            betting = BET_NO_LIMIT
        elif c == D_INFLATION:
            inflation = stacked(dstack[c], damount[c], k, 1)
        elif c == D_PRICE_CEILING:
            ceiling = stacked(dstack[c], damount[c], k, 0)
        elif c == D_DOUBLE_ANTE:
            ante_mult = stacked(dstack[c], damount[c], k, 1)
        elif c == D_HEDGE_BOOM:
            hedge_mult = stacked(dstack[c], damount[c], k, 1)
    if inverted != g[G_INVERTED]:
        g[G_COLVER] += 1
    g[G_INVERTED] = inverted
    g[G_DEUCES] = deuces
    g[G_THIRD] = third
    g[G_FROZEN] = frozen
    g[G_BETTING] = betting
    g[G_INFLATION] = inflation
    g[G_CEILING] = ceiling
    g[G_ANTE_MULT] = ante_mult
    g[G_HEDGE_MULT] = hedge_mult
    any_wild = 1 if deuces else 0
    for p in range(g[G_N]):
        wild = deuces
        elev = 0
        lift = 0
        fee_off = 0
        max_discard = settings[S_MAX_DISCARD]
        exempt = 0
        hfund = 1
        if ps[p, P_ALIVE] != 0:
            for s in range(2):
                c = ps[p, P_PERS0 + s]
                if c < 0:
                    continue
                dstat[DS_HANDS_IN_PLAY, c] += 1
                if s == 1 and ps[p, P_PERS0] == c:
                    if c != D_ELEVATOR or ps[p, P_ARG0] == ps[p, P_ARG1]:
                        continue  # both copies were counted at slot 0
                k = 2 if s == 0 and ps[p, P_PERS1] == c else 1
                if c == D_WILD_DEUCES:
                    wild |= 1 << (damount[c] - 2)
                    any_wild = 1
                elif c == D_ELEVATOR:
                    # copies stack per named category; two Elevators naming two
                    # categories lift each by one copy's amount
                    if k == 2 and ps[p, P_ARG0] != ps[p, P_ARG1]:
                        k = 1
                    elev |= 1 << ps[p, P_ARG0 + s]
                    lift = stacked(dstack[c], damount[c], k, 0)
                elif c == D_BROKER:
                    fee_off = stacked(dstack[c], damount[c], k, 0)
                elif c == D_DEEP_DRAW:
                    max_discard = stacked(dstack[c], damount[c], k, max_discard)
                elif c == D_ANTE_EXEMPT:
                    exempt = 1
                elif c == D_HEDGE_FUND:
                    hfund = stacked(dstack[c], damount[c], k, 1)
        ps[p, P_WILDS] = wild
        ps[p, P_ELEV] = elev
        ps[p, P_ELEV_LIFT] = lift
        ps[p, P_FEE_OFF] = fee_off
        ps[p, P_MAX_DISCARD] = max_discard
        ps[p, P_EXEMPT] = exempt
        ps[p, P_HFUND] = hfund
    return any_wild


# -- phases ----------------------------------------------------------------------------
@jit(_nrt=False)
def _ante(st, cfg, out, order, n_order):
    g, ps = st[ST_G], st[ST_PS]
    base = cfg[CFG_SETTINGS][S_ANTE] * g[G_ANTE_MULT]
    for i in range(n_order):
        p = order[i]
        a = 0 if ps[p, P_EXEMPT] else min(base, ps[p, P_CHIPS])
        ps[p, P_CHIPS] -= a
        ps[p, P_COMMITTED] += a
        if ps[p, P_CHIPS] == 0:
            mark_allin(g, ps, p)
        log_ante(out[OUT_EVENTS], g, p, a, ps[p, P_ALLIN])


@jit(_nrt=False)
def _deal(st, cfg, out, rng, order, n_order):
    g, hole, stock, disc = st[ST_G], st[ST_HOLE], st[ST_STOCK], st[ST_DISC]
    reset_stock(g, cfg[CFG_SETTINGS], stock)
    for k in range(5):
        for i in range(n_order):
            hole[order[i], k] = deal_card(g, stock, disc, rng, out[OUT_COUNTS], out[OUT_EVENTS])
    g[G_CARDVER] += 1
    if g[G_LOG]:
        for i in range(n_order):
            p = order[i]
            log_deal(out[OUT_EVENTS], g, p, hole[p])


@jit(_nrt=False)
def _draw(st, cfg, out, rng, order, n_order):
    g, ps, hole, stock, disc = st[ST_G], st[ST_PS], st[ST_HOLE], st[ST_STOCK], st[ST_DISC]
    counts, ev = out[OUT_COUNTS], out[OUT_EVENTS]
    for i in range(n_order):
        p = order[i]
        if not is_live(ps, p):
            continue
        max_d = min(ps[p, P_MAX_DISCARD], 5)
        keep = choose_keep(st, cfg, p, rng, max_d)
        gone = st[ST_TMP][TMP_GONE:TMP_GONE + 5]
        gone[:] = -1
        n_gone = 0
        for k in range(5):
            if not (keep >> k) & 1:
                gone[k] = hole[p, k]
                n_gone += 1
        log_discard(ev, g, p, n_gone, gone)
        for k in range(5):
            if not (keep >> k) & 1:
                hole[p, k] = deal_card(g, stock, disc, rng, counts, ev)
        # R7: a restock during this draw leaves these out; they join the pile after it
        for k in range(5):
            if gone[k] >= 0:
                disc[g[G_DISC_N]] = gone[k]
                g[G_DISC_N] += 1
        counts[C_DRAWN] += n_gone
        if n_gone > 0:
            ps[p, P_CAT_KEY] = -1  # only p's cards changed: the others' categories stand
        log_hole(ev, g, p, hole[p])


@jit(_nrt=False)
def _community(st, out, rng, n_cards):
    g, board, stock, disc = st[ST_G], st[ST_BOARD], st[ST_STOCK], st[ST_DISC]
    for _ in range(n_cards):
        board[g[G_BOARD_N]] = deal_card(g, stock, disc, rng, out[OUT_COUNTS], out[OUT_EVENTS])
        g[G_BOARD_N] += 1
    g[G_CARDVER] += 1
    log_board(out[OUT_EVENTS], g, board, g[G_BOARD_N])


# -- showdown ----------------------------------------------------------------------------
@jit(_nrt=False)
def _pay_hedges(st, cfg, out, order, n_order, win_cats, pots, porder, n_pots):
    """Hedge payouts before the pot is awarded (SPEC 6), in seat order left of the dealer;
    from the pot they come out of the main pot first, then the others as they formed (R1)."""
    g, ps = st[ST_G], st[ST_PS]
    settings = cfg[CFG_SETTINGS]
    counts, catst, oplayer, ev = out[OUT_COUNTS], out[OUT_CAT], out[OUT_PLAYER], out[OUT_EVENTS]
    for i in range(n_order):
        p = order[i]
        h = ps[p, P_HEDGE]
        if h < 0 or not (win_cats >> h) & 1:
            continue
        due = settings[S_HEDGE_PAYOUT] * g[G_HEDGE_MULT] * ps[p, P_HFUND]
        paid = 0
        if settings[S_HEDGE_FROM] == TO_BANK:
            paid = due
            g[G_BANK_IN] += due
        else:
            for jj in range(n_pots):
                j = porder[jj]
                take = min(due - paid, pots[j])
                pots[j] -= take
                paid += take
                if paid == due:
                    break
        ps[p, P_CHIPS] += paid
        counts[C_HEDGE_HITS] += 1
        counts[C_HEDGE_PAID] += paid
        catst[K_HEDGE_HITS, h] += 1
        oplayer[p, PL_HEDGES_WON] += 1
        oplayer[p, PL_HEDGE_CHIPS] += paid
        log_hedge_pay(ev, g, p, paid, settings[S_HEDGE_FROM], h, due)


@jit(_nrt=False)
def _contests_all(g, ps, tmp, q, p):
    """Whether seat ``q`` may win every pot seat ``p`` may win: the layers of bets (R9:
    only an all-in limits them) and the dead-money pots of R1."""
    if ps[q, P_ALLIN] != 0 and (ps[p, P_ALLIN] == 0 or ps[p, P_COMMITTED] > ps[q, P_COMMITTED]):
        return False
    for k in range(g[G_SIDE_DEAD_N]):
        mask = tmp[TMP_DPOT_MASK + k]
        if (mask >> p) & 1 and not (mask >> q) & 1:
            return False
    return True


@jit(_nrt=False, inline="always")  # one call site: no library level of its own
def _show_hands(st, cfg, out, rng, order, n_order):
    """Each live hand in seat order shows or mucks; tallies the winning categories.

    Writes ``P_SCORE``, ``P_SHOWN`` / ``P_MUCKED`` and ``P_LAST_CAT`` of the live
    seats. Returns (live hands, bit mask of the categories of the main pot's
    winning hands).
    """
    g, ps, colpos = st[ST_G], st[ST_PS], st[ST_COLPOS]
    hole, board, buf = st[ST_HOLE], st[ST_BOARD], st[ST_BUF]
    counts, catst = out[OUT_COUNTS], out[OUT_CAT]
    oplayer, ev = out[OUT_PLAYER], out[OUT_EVENTS]
    n_live = 0
    best = np.int64(-1)
    best_p = -1
    for i in range(n_order):
        p = order[i]
        if not is_live(ps, p):
            continue
        n_live += 1
        sc = player_score(g, ps, p, colpos, hole, board, buf)
        ps[p, P_SCORE] = sc
        # muck only a hand beaten by a shown hand that contests every pot this one does
        if (best_p >= 0 and sc < best and _contests_all(g, ps, st[ST_TMP], best_p, p)
                and choose_muck(st, cfg, p, seat_rng(st, cfg, p, rng))):
            ps[p, P_MUCKED] = 1
            counts[C_MUCKS] += 1
            log_muck(ev, g, p)
            continue
        ps[p, P_SHOWN] = 1
        cat = player_category(g, ps, p, colpos, hole, board, buf)
        ps[p, P_LAST_CAT] = cat
        catst[K_SHOWDOWN_HANDS, cat] += 1
        oplayer[p, PL_SHOWDOWNS] += 1
        elev = (ps[p, P_ELEV] >> cat) & 1
        log_show(ev, g, p, sc, cat, elev)
        if sc > best:
            best = sc
            best_p = p
    counts[C_SHOWDOWNS] += 1
    # categories of the main pot's winning hands (hedges, stats)
    win_cats = 0
    elevated = 0
    for i in range(n_order):
        p = order[i]
        if ps[p, P_SHOWN] and ps[p, P_SCORE] == best:
            c = ps[p, P_LAST_CAT]
            win_cats |= 1 << c
            if (ps[p, P_ELEV] >> c) & 1:
                elevated = 1
    first_cat = ps[best_p, P_LAST_CAT]
    if elevated:
        catst[K_WINS_ELEVATED, first_cat] += 1
        counts[C_ELEVATED_WINS] += 1
    else:
        catst[K_WINS, first_cat] += 1
    return n_live, win_cats


@jit(_nrt=False, inline="always")  # one call site: no library level of its own
def _form_pots(g, ps, tmp):
    """The pots of a showdown, in ``tmp``; returns how many.

    Writes the regions ``TMP_POTS`` (chips), ``TMP_ELIG`` (bit mask of the
    shown seats that may win each), ``TMP_PTICK`` (when each formed) and
    ``TMP_PORDER`` (the pots in the order they formed: the main pot first).
    """
    # pots (SPEC 5, R9): a layer per distinct commitment of a live all-in player below the
    # highest commitment in the hand, folded ones included, and the top layer; only an
    # all-in limits what a player wins, so the folded chips above a live all-in's level form
    # a layer of their own for the seats that are not all-in (one that paid no ante may have
    # committed no more than the all-in: it still contests those chips, the all-in does not)
    levels = tmp[TMP_LEVELS:TMP_LEVELS + MAX_PLAYERS]
    top = 0
    for p in range(g[G_N]):
        if ps[p, P_INHAND] and ps[p, P_COMMITTED] > top:
            top = ps[p, P_COMMITTED]
    n_lv = 0
    for p in range(g[G_N]):
        if is_live(ps, p) and ps[p, P_ALLIN] != 0 and ps[p, P_COMMITTED] < top:
            c = ps[p, P_COMMITTED]
            j = 0
            while j < n_lv and levels[j] < c:
                j += 1
            if j < n_lv and levels[j] == c:
                continue
            for k in range(n_lv, j, -1):
                levels[k] = levels[k - 1]
            levels[j] = c
            n_lv += 1
    levels[n_lv] = top
    n_lv += 1
    pots = tmp[TMP_POTS:TMP_POTS + MAX_POTS]
    elig = tmp[TMP_ELIG:TMP_ELIG + MAX_POTS]
    ptick = tmp[TMP_PTICK:TMP_PTICK + MAX_POTS]
    pots[:] = 0
    elig[:] = 0
    n_dead = g[G_SIDE_DEAD_N]
    main_dead = g[G_DEAD]
    for k in range(n_dead):
        main_dead -= tmp[TMP_DPOT_AMT + k]
    shown = 0
    for p in range(g[G_N]):
        if ps[p, P_SHOWN]:
            shown |= 1 << p
    prev = 0
    for j in range(n_lv):
        lv = levels[j]
        amt = 0
        for p in range(g[G_N]):
            if ps[p, P_INHAND]:
                c = ps[p, P_COMMITTED]
                amt += min(max(c - prev, 0), lv - prev)
                if ps[p, P_SHOWN] and (ps[p, P_ALLIN] == 0 or c >= lv):
                    elig[j] |= 1 << p
        if j == 0:
            amt += main_dead
        pots[j] = amt
        # the layer above an all-in formed when the first player went all-in at its floor
        ptick[j] = -1
        if j > 0:
            ptick[j] = np.int64(1) << 40
            for p in range(g[G_N]):
                if (is_live(ps, p) and ps[p, P_ALLIN] != 0 and ps[p, P_COMMITTED] == prev
                        and ps[p, P_ALLIN_TICK] < ptick[j]):
                    ptick[j] = ps[p, P_ALLIN_TICK]
        prev = lv
    for j in range(n_lv - 1, 0, -1):
        if elig[j] == 0:  # only muckers reached this layer: it falls to the layer below
            pots[j - 1] += pots[j]
            pots[j] = 0
    # R1: dead money paid after an all-in, a pot of its own; to the main pot when none
    # of the seats that may win it shows down
    n_pots = n_lv
    for k in range(n_dead):
        amt = tmp[TMP_DPOT_AMT + k]
        can_win = tmp[TMP_DPOT_MASK + k] & shown
        if can_win == 0:
            pots[0] += amt
        else:
            pots[n_pots] = amt
            elig[n_pots] = can_win
            ptick[n_pots] = tmp[TMP_DPOT_TICK + k]
            n_pots += 1
    # the pots in the order they formed: the main pot first (hedge payouts, awards)
    porder = tmp[TMP_PORDER:TMP_PORDER + MAX_POTS]
    for j in range(n_pots):
        i = j
        while i > 0 and ptick[porder[i - 1]] > ptick[j]:
            porder[i] = porder[i - 1]
            i -= 1
        porder[i] = j
    return n_pots


@jit(_nrt=False, inline="always")  # one call site: no library level of its own
def _award_pots(st, out, order, n_order, n_pots):
    """Split each pot of :func:`_form_pots` among its best eligible hands, in the order
    the pots formed; odd chips go one each in seat order left of the dealer."""
    g, ps, tmp = st[ST_G], st[ST_PS], st[ST_TMP]
    counts, dstat = out[OUT_COUNTS], out[OUT_DIS]
    oplayer, ev = out[OUT_PLAYER], out[OUT_EVENTS]
    pots = tmp[TMP_POTS:TMP_POTS + MAX_POTS]
    elig = tmp[TMP_ELIG:TMP_ELIG + MAX_POTS]
    porder = tmp[TMP_PORDER:TMP_PORDER + MAX_POTS]
    n_awarded = 0
    for jj in range(n_pots):
        j = porder[jj]
        amt = pots[j]
        if elig[j] == 0 or amt == 0:
            continue
        top = np.int64(-1)
        for p in range(g[G_N]):
            if (elig[j] >> p) & 1 and ps[p, P_SCORE] > top:
                top = ps[p, P_SCORE]
        n_win = 0
        winners = 0
        for p in range(g[G_N]):
            if (elig[j] >> p) & 1 and ps[p, P_SCORE] == top:
                n_win += 1
                winners |= 1 << p
        share = amt // n_win
        odd = amt - share * n_win
        log_pot(ev, g, jj, amt, elig[j], winners)
        for i in range(n_order):
            p = order[i]
            if (winners >> p) & 1:
                won = share + (1 if odd > 0 else 0)
                odd -= 1
                ps[p, P_CHIPS] += won
                oplayer[p, PL_POTS_WON] += 1
                log_award(ev, g, p, won, jj)
                if jj == 0:
                    for s in range(2):
                        if ps[p, P_PERS0 + s] >= 0:
                            dstat[DS_OWNER_WINS, ps[p, P_PERS0 + s]] += 1
        if n_win > 1:
            counts[C_SPLITS] += 1
        if n_awarded > 0:
            counts[C_SIDE_POTS] += 1
        n_awarded += 1
        counts[C_POT_SUM] += amt
        counts[C_POT_SQ] += amt * amt


# Inlined into the hand (one call site), unlike the hand's other phases: the engine
# plays 1.04 to 1.06 times the hands (issue 37, interleaved rounds), for about 6 s more
# of the driver's cold compile. Inlining the draw, the deal, the ante, the community
# cards and the elimination as well gave those hands back (play_match grew too large).
@jit(_nrt=False, inline="always")
def _showdown(st, cfg, out, rng, order, n_order, pickers):
    """Show, muck, pay hedges, split the pots; returns how many may draft (``pickers``)."""
    ps, tmp = st[ST_PS], st[ST_TMP]
    n_live, win_cats = _show_hands(st, cfg, out, rng, order, n_order)
    n_pots = _form_pots(st[ST_G], ps, tmp)
    _pay_hedges(st, cfg, out, order, n_order, win_cats, tmp[TMP_POTS:TMP_POTS + MAX_POTS],
                tmp[TMP_PORDER:TMP_PORDER + MAX_POTS], n_pots)
    _award_pots(st, out, order, n_order, n_pots)
    # draft order: shown hands best first, equal hands in seat order left of the dealer
    n_pick = 0
    for i in range(n_order):
        p = order[i]
        if not ps[p, P_SHOWN]:
            continue
        j = n_pick
        while j > 0 and ps[pickers[j - 1], P_SCORE] < ps[p, P_SCORE]:
            pickers[j] = pickers[j - 1]
            j -= 1
        pickers[j] = p
        n_pick += 1
    return n_pick, n_live


@jit(_nrt=False)
def _fold_win(st, cfg, out, order, n_order):
    g, ps = st[ST_G], st[ST_PS]
    counts, oplayer = out[OUT_COUNTS], out[OUT_PLAYER]
    for i in range(n_order):
        p = order[i]
        if is_live(ps, p):
            amt = pot_total(g, ps)
            ps[p, P_CHIPS] += amt
            counts[C_FOLDED_WINS] += 1
            counts[C_POT_SUM] += amt
            counts[C_POT_SQ] += amt * amt
            oplayer[p, PL_POTS_WON] += 1
            log_fold_win(out[OUT_EVENTS], g, p, amt)
            return p
    return -1


@jit(_nrt=False)
def _eliminate(st, cfg, out, order, n_order):
    """After the hand and its draft: out with 0 chips, unless a safety_net saves (SPEC 3, 7)."""
    g, ps = st[ST_G], st[ST_PS]
    damount = cfg[CFG_DAMOUNT]
    counts, oplayer, ev = out[OUT_COUNTS], out[OUT_PLAYER], out[OUT_EVENTS]
    for i in range(n_order):
        p = order[i]
        if ps[p, P_ALIVE] == 0 or ps[p, P_CHIPS] > 0:
            continue
        saved = False
        for s in range(2):
            # R2: a safety_net drafted in this very hand does not save its owner
            if ps[p, P_PERS0 + s] == D_SAFETY_NET and ps[p, P_GOT0 + s] < g[G_HAND]:
                ps[p, P_PERS0 + s] = -1
                amount = damount[D_SAFETY_NET]
                ps[p, P_CHIPS] += amount
                g[G_BANK_IN] += amount
                oplayer[p, PL_SAFETY_SAVES] += 1
                log_safety_net(ev, g, p, amount, s)
                discard_disruptor(st, out, D_SAFETY_NET, p, WHY_SAFETY_NET, -1, s)
                saved = True
                break
        if saved:
            continue
        ps[p, P_ALIVE] = 0
        ps[p, P_ELIM_HAND] = g[G_HAND]
        # same hand: more chips at its start ranks better, then seat order left of the dealer
        ps[p, P_ELIM_KEY] = ps[p, P_START_CHIPS] * 16 + (15 - i)
        ps[p, P_HEDGE] = -1
        for s in range(2):
            c = ps[p, P_PERS0 + s]
            if c >= 0:
                ps[p, P_PERS0 + s] = -1
                discard_disruptor(st, out, c, p, WHY_ELIMINATED, ps[p, P_ARG0 + s], s)
        g[G_ALIVE] -= 1
        counts[C_ELIMINATIONS] += 1
        log_eliminated(ev, g, p, g[G_HAND])


@jit(_nrt=False)
def _check_invariants(st, cfg, out):
    """Chips add up with bank flows; every card and Disruptor is somewhere exactly once."""
    g, ps, hole = st[ST_G], st[ST_PS], st[ST_HOLE]
    board, stock, disc = st[ST_BOARD], st[ST_STOCK], st[ST_DISC]
    ddeck, ddisc, comm = st[ST_DDECK], st[ST_DDISC], st[ST_COMM]
    settings = cfg[CFG_SETTINGS]
    errors = 0
    total = 0
    for p in range(g[G_N]):
        total += ps[p, P_CHIPS]
        if ps[p, P_CHIPS] < 0:
            errors += 1
    if total != g[G_TOTAL0] + g[G_BANK_IN] - g[G_BANK_OUT]:
        errors += 1
    seen = st[ST_TMP][TMP_SEEN:TMP_SEEN + 52]
    seen[:] = 0
    for i in range(g[G_STOCK_TOP], g[G_STOCK_N]):
        seen[stock[i]] += 1
    for i in range(g[G_DISC_N]):
        seen[disc[i]] += 1
    for p in range(g[G_N]):
        if ps[p, P_INHAND]:
            for k in range(5):
                seen[hole[p, k]] += 1
    for i in range(g[G_BOARD_N]):
        seen[board[i]] += 1
    for c in range(52):
        if seen[c] != settings[S_DECKS]:
            errors += 1
            break
    dseen = st[ST_TMP][TMP_DSEEN:TMP_DSEEN + N_DISRUPTORS]
    dseen[:] = 0
    for i in range(g[G_DTOP], g[G_DN]):
        dseen[ddeck[i]] += 1
    for i in range(g[G_DDISC_N]):
        dseen[ddisc[i]] += 1
    for s in range(2):
        if comm[s] >= 0:
            dseen[comm[s]] += 1
    for p in range(g[G_N]):
        for s in range(2):
            if ps[p, P_PERS0 + s] >= 0:
                dseen[ps[p, P_PERS0 + s]] += 1
    n_cards = 0
    for c in range(N_DISRUPTORS):
        n_cards += dseen[c]
    deck0 = st[ST_DECK0]
    if n_cards != deck0.shape[0]:
        errors += 1
    else:
        for i in range(deck0.shape[0]):
            dseen[deck0[i]] -= 1
        for c in range(N_DISRUPTORS):
            if dseen[c] != 0:
                errors += 1
                break
    if errors:
        g[G_ERRORS] += 1
        out[OUT_COUNTS][C_INVARIANT_ERRORS] += 1


# -- one hand, one match -----------------------------------------------------------------
@jit(_nrt=False, inline="always")  # one call site: no library level of its own
def _play_hand(st, cfg, out, rng, check):
    g, ps, colpos = st[ST_G], st[ST_PS], st[ST_COLPOS]
    settings = cfg[CFG_SETTINGS]
    counts, timest, ev = out[OUT_COUNTS], out[OUT_TIME], out[OUT_EVENTS]
    n = g[G_N]
    g[G_HAND] += 1
    if g[G_HAND] > 1:
        g[G_BUTTON] = next_alive(ps, n, g[G_BUTTON])
    if settings[S_DART_RESET] == RESET_HAND:
        g[G_DART] = settings[S_DART_START]
    any_wild = _hand_flags(st, cfg, out)
    for p in range(n):
        alive = ps[p, P_ALIVE]
        ps[p, P_INHAND] = alive
        ps[p, P_FOLDED] = 0
        ps[p, P_ALLIN] = 0
        ps[p, P_COMMITTED] = 0
        ps[p, P_ROUND_BET] = 0
        ps[p, P_MUCKED] = 0
        ps[p, P_SHOWN] = 0
        ps[p, P_SCORE] = -1
        ps[p, P_CAT_KEY] = -1
        ps[p, P_START_CHIPS] = ps[p, P_CHIPS]
        ps[p, P_ALLIN_TICK] = -1
        if settings[S_HEDGE_SCOPE] == SCOPE_HAND or not alive:
            ps[p, P_HEDGE] = -1
    g[G_DEAD] = 0
    g[G_TICK] = 0
    g[G_SIDE_DEAD_N] = 0
    g[G_BOARD_N] = 0
    counts[C_HANDS] += 1
    counts[C_INVERTED_HANDS] += g[G_INVERTED]
    counts[C_WILD_HANDS] += any_wild
    h = g[G_HAND] - 1
    if h < timest.shape[0]:
        for c in range(N_CATEGORIES):
            timest[h, T_POS0 + c] += colpos[c]
        timest[h, T_DART] += g[G_DART]
        timest[h, T_DART_SQ] += g[G_DART] * g[G_DART]
        timest[h, T_MATCHES] += 1
        timest[h, T_ALIVE] += g[G_ALIVE]
    log_hand_start(ev, g, g[G_BUTTON], g[G_DART], g[G_INVERTED], g[G_BETTING], g[G_THIRD],
                   settings[S_ANTE] * g[G_ANTE_MULT], g[G_FROZEN], g[G_CEILING],
                   g[G_INFLATION], g[G_HEDGE_MULT])
    order = st[ST_TMP][TMP_ORDER:TMP_ORDER + MAX_PLAYERS]
    n_order = seat_order(g, ps, order)
    _ante(st, cfg, out, order, n_order)
    _deal(st, cfg, out, rng, order, n_order)
    # Bet I; with two live hands or more, the Draw, the community cards and Bet II; again,
    # the last community card and Bet III. One call site of betting_round, inlined here:
    # three calls that passed the state tuples cost about 300 stores each
    for rnd in range(3):
        if rnd > 0:
            if count_live(ps, n) <= 1:
                break
            if rnd == 1:
                _draw(st, cfg, out, rng, order, n_order)
            _community(st, out, rng, g[G_THIRD] if rnd == 1 else 1)
        betting_round(st, cfg, out, rng, rnd)
    pickers = st[ST_TMP][TMP_PICKERS:TMP_PICKERS + MAX_PLAYERS]
    if count_live(ps, n) > 1:
        n_pick, k = _showdown(st, cfg, out, rng, order, n_order, pickers)
        call_draft(g[G_DRAFT_FN], st, cfg, out, rng, pickers, n_pick, k)
    else:
        w = _fold_win(st, cfg, out, order, n_order)
        if settings[S_DRAFT_NO_SHOWDOWN] and w >= 0:
            pickers[0] = w
            call_draft(g[G_DRAFT_FN], st, cfg, out, rng, pickers, 1, 1)
    for p in range(n):
        ps[p, P_COMMITTED] = 0
    g[G_DEAD] = 0
    g[G_SIDE_DEAD_N] = 0
    _eliminate(st, cfg, out, order, n_order)
    if check:
        _check_invariants(st, cfg, out)
    if st[ST_TRACE].shape[0] > 0:  # a traced tabular seat (kernels.table)
        trace_hand_end(st, cfg)
    log_hand_end(ev, g, ps[:, P_CHIPS], n, g[G_DART], g[G_BANK_IN] - g[G_BANK_OUT])


@jit(_nrt=False)
def _places(st, out_match_row, out_player_rows):
    g, ps = st[ST_G], st[ST_PS]
    n = g[G_N]
    order = st[ST_TMP][TMP_PLACES:TMP_PLACES + MAX_PLAYERS]
    k = 0
    for i in range(1, n + 1):  # still in: chips, then seat order left of the dealer
        p = (g[G_BUTTON] + i) % n
        if ps[p, P_ALIVE]:
            j = k
            while j > 0 and ps[order[j - 1], P_CHIPS] < ps[p, P_CHIPS]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = p
            k += 1
    n_alive = k
    for p in range(n):  # out: later elimination, then the hand-start chips
        if not ps[p, P_ALIVE]:
            j = k
            while j > n_alive and (
                ps[order[j - 1], P_ELIM_HAND] < ps[p, P_ELIM_HAND]
                or (ps[order[j - 1], P_ELIM_HAND] == ps[p, P_ELIM_HAND]
                    and ps[order[j - 1], P_ELIM_KEY] < ps[p, P_ELIM_KEY])
            ):
                order[j] = order[j - 1]
                j -= 1
            order[j] = p
            k += 1
    for i in range(n):
        p = order[i]
        out_player_rows[p, PL_PLACE] = i + 1
        out_player_rows[p, PL_ELIMINATED_HAND] = ps[p, P_ELIM_HAND]
        out_player_rows[p, PL_FINAL_CHIPS] = ps[p, P_CHIPS]
    out_match_row[M_WINNER] = order[0]
    out_match_row[M_UNRESOLVED] = 1 if n_alive > 1 else 0
    return order[0], n_alive


# Not inlined: inlined into the drivers, whose reference counting is on (they
# allocate), every array taken out of a state tuple per hand cost an atomic
# incref/decref pair (13% of a balanced hand). Called once per match, out of line.
@jit(_nrt=False)
def play_match(st, cfg, out, rng, out_match_row, out_column_row, check):
    """Play one match from the first ante to one player left or ``max_hands``."""
    g, ps, col = st[ST_G], st[ST_PS], st[ST_COL]
    colpos, ddeck, comm = st[ST_COLPOS], st[ST_DDECK], st[ST_COMM]
    settings = cfg[CFG_SETTINGS]
    counts, oplayer = out[OUT_COUNTS], out[OUT_PLAYER]
    n = settings[S_PLAYERS]
    chips = settings[S_CHIPS]
    evn = g[G_EVN]
    lost = g[G_EV_LOST]
    trn = g[G_TRN]
    tr_lost = g[G_TR_LOST]
    log = g[G_LOG]
    match = g[G_MATCH]
    eval_fn = g[G_EVAL_FN]
    draft_fn = g[G_DRAFT_FN]
    for i in range(N_G):
        g[i] = 0
    g[G_EVAL_FN] = eval_fn
    g[G_DRAFT_FN] = draft_fn
    g[G_EVN] = evn
    g[G_EV_LOST] = lost
    g[G_TRN] = trn
    g[G_TR_LOST] = tr_lost
    g[G_LOG] = log
    g[G_MATCH] = match
    g[G_N] = n
    g[G_DART] = settings[S_DART_START]
    g[G_TOTAL0] = n * chips
    g[G_ALIVE] = n
    g[G_THIRD] = 1
    tmp = st[ST_TMP]
    for t in range(N_TABLES):
        tmp[TMP_TVER + t] = -1  # strength tables of the last match are stale
        tmp[TMP_SVER + t] = -1  # and their shape values
    for m in range(MAX_PLAYERS + 1):
        tmp[TMP_WKEY + m] = -1
    for p in range(n):
        for f in range(N_P):
            ps[p, f] = 0
        ps[p, P_CHIPS] = chips
        ps[p, P_ALIVE] = 1
        ps[p, P_HEDGE] = -1
        ps[p, P_PERS0] = -1
        ps[p, P_PERS0 + 1] = -1
        ps[p, P_ARG0] = -1
        ps[p, P_ARG0 + 1] = -1
        ps[p, P_LAST_CAT] = -1
        ps[p, P_CAT_KEY] = -1
        ps[p, P_READ_KEY] = -1  # column versions restart with each match
        ps[p, P_HFUND] = 1
    for c in range(N_CATEGORIES):
        col[c] = c
        colpos[c] = c
    comm[0] = -1
    comm[1] = -1
    deck0 = st[ST_DECK0]
    for i in range(deck0.shape[0]):
        ddeck[i] = deck0[i]
    g[G_DTOP] = 0
    g[G_DN] = deck0.shape[0]
    g[G_DDISC_N] = 0
    streams = settings[S_STREAMS] != 0
    srng = st[ST_SRNG]
    if streams:  # the match's first state names every stream it derives
        for j in range(4):
            srng[MAX_PLAYERS, j] = rng[j]
    g[G_BUTTON] = below(rng, n)
    out_match_row[M_BUTTON_START] = g[G_BUTTON]
    log_match_start(out[OUT_EVENTS], g, n, chips, g[G_BUTTON], g[G_DART], deck0.shape[0])
    script = st[ST_SCRIPT]
    # a scripted seat's script ran out (or was refused): the match stops at the hand's end
    while g[G_ALIVE] > 1 and g[G_HAND] < settings[S_MAX_HANDS] and script[PAUSE_KIND] == 0:
        if streams:
            derive(rng, srng[MAX_PLAYERS], g[G_HAND], 0)
            for p in range(n):
                derive(srng[p], srng[MAX_PLAYERS], g[G_HAND], p + 1)
        _play_hand(st, cfg, out, rng, check)
    if settings[S_SCRIPTED] != 0 and script[PAUSE_KIND] == 0:
        script[PAUSE_AT] = g[G_SCRIPT_AT]
    winner, n_alive = _places(st, out_match_row, oplayer)
    out_match_row[M_HANDS] = g[G_HAND]
    out_match_row[M_DART] = g[G_DART]
    out_match_row[M_INVERTED] = 1 if (comm[0] == D_INVERSION or comm[1] == D_INVERSION) else 0
    out_match_row[M_BANK_IN] = g[G_BANK_IN]
    out_match_row[M_BANK_OUT] = g[G_BANK_OUT]
    out_match_row[M_INVARIANT_ERRORS] = g[G_ERRORS]
    for c in range(N_CATEGORIES):
        out_column_row[c] = col[c]
    counts[C_MATCHES] += 1
    if n_alive > 1:
        counts[C_UNRESOLVED] += 1
    log_match_end(out[OUT_EVENTS], g, winner, g[G_HAND], 1 if n_alive > 1 else 0)


# -- drivers --------------------------------------------------------------------------------
@jit(inline="always")  # one call site per driver: no library level of its own
def _play_chunk(start, stop, rng, settings, dtype, damount, dstack, deck0, agents, agent_of,
                tab_start, tab_mask, tab_freq, eval_fn, draft_fn, check, log_mask, events,
                ev_count, rows, counts, cat_stats, time_stats, dis_stats, script, betting,
                trace):
    # rows: (dest, out_match, out_player, out_drafted, out_column), one tuple (a function
    # of more than 30 arguments is not inlined)
    dest, out_match, out_player, out_drafted, out_column = rows
    n_cards = 52 * settings[S_DECKS]
    g = np.zeros(N_G, np.int64)
    g[G_EVAL_FN] = eval_fn
    g[G_DRAFT_FN] = draft_fn
    ps = np.zeros((MAX_PLAYERS, N_P), np.int64)
    col = np.arange(N_CATEGORIES).astype(np.int64)
    colpos = np.arange(N_CATEGORIES).astype(np.int8)
    hole = np.full((MAX_PLAYERS, 5), -1, np.int8)
    board = np.full(3, -1, np.int8)
    buf = np.full(8, -1, np.int8)
    stock = np.zeros(n_cards, np.int8)
    disc = np.zeros(n_cards, np.int8)
    ddeck = np.zeros(max(deck0.shape[0], 1), np.int64)
    ddisc = np.zeros(max(deck0.shape[0], 1), np.int64)
    comm = np.full(2, -1, np.int64)
    dist = np.zeros((N_TABLES, N_CATEGORIES), np.float64)
    tail = np.zeros((N_TABLES, N_CATEGORIES + 1), np.float64)
    reveal = np.full(MAX_PLAYERS + 1, -1, np.int64)
    tmp = np.zeros(N_TMP, np.int64)
    ftmp = np.zeros(N_FTMP, np.float64)
    srng = np.zeros((MAX_PLAYERS + 1, 4), np.uint64)
    st = (g, ps, col, colpos, hole, board, buf, stock, disc, ddeck, ddisc, comm, dist, tail,
          reveal, deck0, tmp, ftmp, srng, script, trace)
    policy, policy_seat, abstraction = betting
    for m in range(start, stop):
        # C-contiguous views (2-D agents, 1-D seat tables): cfg's type is the same
        # whatever the table
        cfg = (settings, dtype, damount, dstack, agents[agent_of[m]], tab_start, tab_mask,
               tab_freq, policy, policy_seat[agent_of[m]], abstraction)
        g[G_MATCH] = m
        g[G_LOG] = log_mask[m]
        row = dest[m]  # where the match's rows go (the caller's order)
        out = (counts, cat_stats, time_stats, dis_stats, out_player[row], out_drafted[row],
               events)
        play_match(st, cfg, out, rng, out_match[row], out_column[row], check)
    ev_count[0] = g[G_EVN]
    ev_count[1] = g[G_EV_LOST]
    ev_count[2] = g[G_TRN]
    ev_count[3] = g[G_TR_LOST]


@jit
def play_chunks_serial(bounds, rng_states, settings, dtype, damount, dstack, deck0, agents,
                       agent_of, tab_start, tab_mask, tab_freq, eval_fn, draft_fn, check,
                       log_mask, events, ev_counts, dest, slot, out_match, out_player,
                       out_drafted, out_column, out_counts, out_cat, out_time, out_dis, script,
                       betting, traces):
    """:func:`play_chunks` on one thread, chunk after chunk (same arguments, same results);
    chunks may share a ``slot`` of the counters here (one thread adds to each at a time)."""
    for c in range(bounds.shape[0] - 1):
        k = slot[c]
        _play_chunk(bounds[c], bounds[c + 1], rng_states[c], settings, dtype, damount, dstack,
                    deck0, agents, agent_of, tab_start, tab_mask, tab_freq, eval_fn, draft_fn, check,
                    log_mask, events[c], ev_counts[c],
                    (dest, out_match, out_player, out_drafted, out_column), out_counts[k],
                    out_cat[k], out_time[k], out_dis[k], script, betting, traces[c])


@pjit
def play_chunks(bounds, rng_states, settings, dtype, damount, dstack, deck0, agents, agent_of,
                tab_start, tab_mask, tab_freq, eval_fn, draft_fn, check, log_mask, events,
                ev_counts, dest, slot, out_match, out_player, out_drafted, out_column, out_counts,
                out_cat, out_time, out_dis, script, betting, traces):
    """Play matches ``0 .. bounds[-1]`` in ``len(bounds) - 1`` chunks, in parallel.

    bounds : int64 (n_chunks + 1,) first match of each chunk
    rng_states : uint64 (n_chunks, 4), advanced in place
    settings : int64 (N_SETTINGS,)
    dtype, damount, dstack : int64 (25,) the Disruptors' types, amounts and stack rules
    (nop_sim.games.new_order.disruptors.DisruptorArrays)
    deck0 : int64 (n_disruptor_cards,)
    agents : float64 (n_tables, players, N_AGENT_PARAMS) C-contiguous, policy tables
    agent_of : int64 (n,) the table each match plays with (values in [0, n_tables))
    tab_start, tab_mask, tab_freq : strength tables (kernels.strength)
    eval_fn, draft_fn : addresses of the evaluator and of the draft (kernels.firewall)
    check : 1 to check chips and cards after every hand (counted in C_INVARIANT_ERRORS)
    log_mask : int8 (n,), 1 for the matches whose events are written
    events : int64 (n_chunks, cap, EV_WIDTH); ev_counts : int64 (n_chunks, 4) written: event
    rows written and dropped, then trace rows written and dropped
    dest : int64 (n,) the row of the outputs below each match writes (a permutation of
    ``0 .. n-1``; ``arange(n)``: in play order)
    slot : int64 (n_chunks,) the row of the counters below each chunk adds to (``arange``
    here: chunks on other threads never share one; the serial driver lets them)
    out_match (n, N_MATCH_FIELDS), out_player (n, 8, N_PLAYER_FIELDS),
    out_drafted (n, 8, 25), out_column int8 (n, 13): written per match
    out_counts (n_slots, N_COUNTS), out_cat (n_slots, N_CAT_STATS, 13),
    out_time (n_slots, horizon, N_TIME_STATS), out_dis (n_slots, N_DISRUPTOR_STATS, 25):
    accumulated per slot (sum over axis 0 to merge)
    script : int64 (N_PAUSE + SCRIPT_WIDTH * n,) a scripted seat's pause record and decisions
    (kernels.script; settings[S_SCRIPTED] names the seat), N_PAUSE zeros when none is
    betting : (policy float64 (n_policies, n_infosets, n_actions) betting tables,
    policy_seat int64 (n_tables, MAX_PLAYERS) each seat's table or -1 for its agent row, per
    agent table (match ``m`` reads row ``agent_of[m]``), abstraction
    float64 (N_AB,) what the tables are over): kernels.table; one tuple, as a driver of
    more than about 30 arguments no longer inlines its chunk (numba)
    traces : float64 (n_chunks, cap, N_TR) the traced seat's tabular decisions (cap 0: off)
    """
    n_chunks = bounds.shape[0] - 1
    for c in prange(n_chunks):
        k = slot[c]
        _play_chunk(bounds[c], bounds[c + 1], rng_states[c], settings, dtype, damount, dstack,
                    deck0, agents, agent_of, tab_start, tab_mask, tab_freq, eval_fn, draft_fn, check,
                    log_mask, events[c], ev_counts[c],
                    (dest, out_match, out_player, out_drafted, out_column), out_counts[k],
                    out_cat[k], out_time[k], out_dis[k], script, betting, traces[c])
