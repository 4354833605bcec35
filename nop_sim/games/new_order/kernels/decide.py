"""Whose decision it is: the seat's agent's, or a person's script (numba only).

Each ``choose_*`` is what the engine calls for one decision the rules give: one
comparison (:func:`~.script.scripted`), then the agent's choice (:mod:`.policy`,
the parameter row's play); a betting decision (action and size) of a seat with a
betting table is the table's (:mod:`.table`), one more comparison. A scripted seat (``nop-sim play``) takes its decision
from the script and checks it against the bounds it is asked with (:mod:`.script`:
a refused one stops the match); where the script runs out, the bounds are
written to the pause and a harmless default is played (the caller keeps the log
up to the pause). In record mode the agent decides and its decision is written to
the script. Kept apart from the policy, which is the agents' play only.
"""

from __future__ import annotations

import numpy as np

from nop_sim.core.types import N_CATEGORIES
from nop_sim.games.new_order.kernels.common import size_bounds
from nop_sim.games.new_order.kernels.policy import (
    _agent_action,
    _agent_community_drop,
    _agent_demote_target,
    _agent_elevator_category,
    _agent_hedge,
    _agent_keep,
    _agent_muck,
    _agent_personal_drop,
    _agent_pick,
    _agent_promote_target,
    _agent_promotion,
    _agent_purge,
    _agent_size,
    _agent_swap,
    _keep_count,
)
from nop_sim.games.new_order.kernels.script import (
    PAUSED,
    pause_args,
    record,
    recording,
    refuse,
    script_next,
    scripted,
)
from nop_sim.games.new_order.kernels.state import (
    ACT_BET,
    ACT_BLUFF,
    ACT_CALL,
    ACT_CHECK,
    ACT_FOLD,
    ACT_RAISE,
    CFG_SETTINGS,
    G_BETTING,
    G_UNIT,
    P_CHIPS,
    P_HEDGE,
    P_PERS0,
    ST_COL,
    ST_COLPOS,
    ST_COMM,
    ST_G,
    ST_PS,
    ST_SCRIPT,
)
from nop_sim.games.new_order.kernels.table import table_action, table_size, tabular
from nop_sim.games.new_order.types import (
    BET_LIMIT,
    S_HEDGE_COST,
    SK_ACTION,
    SK_COMMUNITY_DROP,
    SK_ELEVATOR,
    SK_HEDGE,
    SK_KEEP,
    SK_MUCK,
    SK_PERSONAL_DROP,
    SK_PICK,
    SK_PROMOTE,
    SK_PURGE,
    SK_SHORT,
    SK_SIZE,
    SK_SWAP,
    SK_TIP,
)
from nop_sim.kernels.jit import jit


# -- every decision: a scripted seat's from its script, else its agent's ---------------------
# Each choose_* below is what the engine calls: one comparison (kernels.script.scripted),
# then the agent's choice as before. A scripted seat's decision is read from the script
# and checked against the bounds it is asked with (kernels.script: a refused one stops the
# match); where the script runs out, the bounds are written to the pause and a harmless
# default is played (the caller keeps the log up to the pause). In record mode the agent
# decides and its decision is written to the script.
@jit(_nrt=False, inline="always")
def choose_action(st, cfg, p, rng, to_call, can_check, can_bet, can_raise, pot, s1):
    """One of ACT_* (0 fold, 1 check, 2 call, 3 bet, 4 raise) among the legal ones
    (``s1``: :func:`single_strength` of ``p`` now), plus ``ACT_BLUFF`` on a bet or raise
    the strength alone would not have made (the bluff draw made it)."""
    if scripted(cfg, p):
        return _scripted_action(st, cfg, p, rng, to_call, can_check, can_bet, can_raise, pot, s1)
    if tabular(cfg, p):
        return table_action(st, cfg, p, rng, to_call, can_check, can_bet, can_raise, pot, s1)
    return _agent_action(st, cfg, p, rng, to_call, can_check, can_bet, can_raise, pot)


@jit(_nrt=False)
def _scripted_action(st, cfg, p, rng, to_call, can_check, can_bet, can_raise, pot, s1):
    if recording(cfg):
        a = _agent_action(st, cfg, p, rng, to_call, can_check, can_bet, can_raise, pot)
        record(st, SK_ACTION, a, 0)
        return a
    o = script_next(st, p, SK_ACTION)
    if o >= 0:
        a = st[ST_SCRIPT][o + 1]
        act = a - ACT_BLUFF if a >= ACT_BLUFF else a
        if ((act == ACT_FOLD and not can_check) or (act == ACT_CHECK and can_check)
                or (act == ACT_CALL and not can_check) or (act == ACT_BET and can_bet)
                or (act == ACT_RAISE and can_raise)) and (a < ACT_BLUFF or act >= ACT_BET):
            return a
        refuse(st, o)
    elif o == PAUSED:
        _action_pause(st, cfg, p, to_call, can_check, can_bet, can_raise, pot)
    return ACT_CHECK if can_check else ACT_FOLD


@jit(_nrt=False)
def _action_pause(st, cfg, p, to_call, can_check, can_bet, can_raise, pot):
    """The bounds of a betting decision: to_call, can_check, can_bet, can_raise, pot, the
    stack, then the chips a bet may put in (lo, hi) and a raise (lo, hi), the call included
    (limit: the call and the round's unit; a short stack puts in what it has)."""
    g = st[ST_G]
    chips = st[ST_PS][p, P_CHIPS]
    args = pause_args(st)
    args[0] = to_call
    args[1] = 1 if can_check else 0
    args[2] = 1 if can_bet else 0
    args[3] = 1 if can_raise else 0
    args[4] = pot
    args[5] = chips
    for k in range(2):
        if g[G_BETTING] == BET_LIMIT:
            lo = min(to_call + g[G_UNIT], chips)
            hi = lo
        else:
            lo, hi = size_bounds(g, cfg[CFG_SETTINGS], k == 0, to_call, pot, chips)
        args[6 + 2 * k] = lo
        args[7 + 2 * k] = hi


@jit(_nrt=False, inline="always")
def choose_size(st, cfg, p, rng, lo, hi, pot):
    """Chips for a pot-limit / no-limit bet or raise, within [lo, hi]."""
    if hi <= lo:
        return hi
    if scripted(cfg, p):
        return _scripted_size(st, cfg, p, rng, lo, hi, pot)
    if tabular(cfg, p):
        return table_size(st, lo, hi)
    return _agent_size(st, cfg, p, rng, lo, hi, pot)


@jit(_nrt=False)
def _scripted_size(st, cfg, p, rng, lo, hi, pot):
    if recording(cfg):
        a = _agent_size(st, cfg, p, rng, lo, hi, pot)
        record(st, SK_SIZE, a, 0)
        return a
    o = script_next(st, p, SK_SIZE)
    if o >= 0:
        a = st[ST_SCRIPT][o + 1]
        if lo <= a <= hi:
            return a
        refuse(st, o)
    elif o == PAUSED:
        args = pause_args(st)
        args[0] = lo
        args[1] = hi
        args[2] = pot
    return lo


@jit(_nrt=False, inline="always")
def choose_promotion(st, cfg, p, rng, fee, pot, s1, cat, e):
    """Category to promote with this action, or -1 (the caller checks the fee is payable).

    ``s1, cat, e``: :func:`single_strength` of ``p`` under the column now."""
    if scripted(cfg, p):
        return _scripted_promotion(st, cfg, p, rng, fee, pot, s1, cat, e)
    return _agent_promotion(st, cfg, p, rng, fee, pot, s1, cat, e)


@jit(_nrt=False)
def _scripted_promotion(st, cfg, p, rng, fee, pot, s1, cat, e):
    if recording(cfg):
        a = _agent_promotion(st, cfg, p, rng, fee, pot, s1, cat, e)
        record(st, SK_PROMOTE, a, 0)
        return a
    o = script_next(st, p, SK_PROMOTE)
    if o >= 0:
        a = st[ST_SCRIPT][o + 1]
        if a == -1 or (0 <= a < N_CATEGORIES and st[ST_COLPOS][a] > 0):
            return a
        refuse(st, o)
    elif o == PAUSED:
        args = pause_args(st)
        args[0] = fee
        args[1] = st[ST_PS][p, P_CHIPS]
    return -1


@jit(_nrt=False, inline="always")
def choose_hedge(st, cfg, p, rng, settings, cat, e):
    """Category to put the Hedging Token on now (place or move), or -1.

    ``cat, e``: :func:`single_strength`'s of ``p`` now."""
    if scripted(cfg, p):
        return _scripted_hedge(st, cfg, p, rng, settings, cat, e)
    return _agent_hedge(st, cfg, p, rng, settings, cat, e)


@jit(_nrt=False)
def _scripted_hedge(st, cfg, p, rng, settings, cat, e):
    if recording(cfg):
        a = _agent_hedge(st, cfg, p, rng, settings, cat, e)
        record(st, SK_HEDGE, a, 0)
        return a
    current = st[ST_PS][p, P_HEDGE]
    o = script_next(st, p, SK_HEDGE)
    if o >= 0:
        a = st[ST_SCRIPT][o + 1]
        if a == -1 or (0 <= a < N_CATEGORIES and a != current):
            return a
        refuse(st, o)
    elif o == PAUSED:
        args = pause_args(st)
        args[0] = current
        args[1] = settings[S_HEDGE_COST]
        args[2] = st[ST_PS][p, P_CHIPS]
    return -1


@jit(_nrt=False, inline="always")
def choose_keep(st, cfg, p, rng, max_discard):
    """Bit mask of the hole cards ``p`` keeps in the Draw (bit i = hole card i)."""
    if max_discard <= 0:
        return 31
    # The others' pattern with the agent's one call site here, record mode included, so
    # that _agent_keep is inlined: a call passed the state tuples, about 250 arguments
    # pushed (2.2% of a balanced hand, scripts/profile_engine.py). As the others: scripted
    # and recording -> the agent decides, its decision recorded; scripted ->
    # _scripted_keep; else the agent.
    if scripted(cfg, p) and not recording(cfg):
        return _scripted_keep(st, cfg, p, rng, max_discard)
    a = _agent_keep(st, cfg, p, rng, max_discard)
    if scripted(cfg, p):
        record(st, SK_KEEP, a, 0)
    return a


@jit(_nrt=False)
def _scripted_keep(st, cfg, p, rng, max_discard):
    """A script's keep (never in record mode: :func:`choose_keep` has the agent decide)."""
    o = script_next(st, p, SK_KEEP)
    if o >= 0:
        a = st[ST_SCRIPT][o + 1]
        if 0 <= a < 32 and 5 - _keep_count(a) <= max_discard:
            return a
        refuse(st, o)
    elif o == PAUSED:
        pause_args(st)[0] = max_discard
    return 31


@jit(_nrt=False, inline="always")
def choose_muck(st, cfg, p, rng):
    """Muck a hand that cannot win? (asked only when mucking is allowed)."""
    if scripted(cfg, p):
        return _scripted_muck(st, cfg, p, rng)
    return _agent_muck(st, cfg, p, rng)


@jit(_nrt=False)
def _scripted_muck(st, cfg, p, rng):
    if recording(cfg):
        m = _agent_muck(st, cfg, p, rng)
        record(st, SK_MUCK, 1 if m else 0, 0)
        return m
    o = script_next(st, p, SK_MUCK)
    if o >= 0:
        a = st[ST_SCRIPT][o + 1]
        if a == 0 or a == 1:
            return a == 1
        refuse(st, o)
    return False


@jit(_nrt=False, inline="always")
def choose_pick(st, cfg, p, rng, reveal, n_reveal, taken):
    """Index into ``reveal`` of the card ``p`` drafts (mandatory)."""
    if scripted(cfg, p):
        return _scripted_pick(st, cfg, p, rng, reveal, n_reveal, taken)
    return _agent_pick(st, cfg, p, rng, reveal, n_reveal, taken)


@jit(_nrt=False)
def _scripted_pick(st, cfg, p, rng, reveal, n_reveal, taken):
    if recording(cfg):
        a = _agent_pick(st, cfg, p, rng, reveal, n_reveal, taken)
        record(st, SK_PICK, a, 0)
        return a
    o = script_next(st, p, SK_PICK)
    if o >= 0:
        a = st[ST_SCRIPT][o + 1]
        if 0 <= a < n_reveal and taken[a] == 0:
            return a
        refuse(st, o)
    elif o == PAUSED:
        args = pause_args(st)
        args[0] = n_reveal
        for i in range(n_reveal):
            args[1 + i] = reveal[i]
            args[10 + i] = taken[i]
    for i in range(n_reveal):
        if taken[i] == 0:
            return i
    return 0


@jit(_nrt=False, inline="always")
def choose_personal_drop(st, cfg, p, rng):
    """Which of its two Personal cards ``p`` discards (0 or 1) to take a third."""
    if scripted(cfg, p):
        return _scripted_drop(st, cfg, p, rng, SK_PERSONAL_DROP)
    return _agent_personal_drop(st, cfg, p, rng)


@jit(_nrt=False, inline="always")
def choose_community_drop(st, cfg, p, rng):
    """Which of the two Community cards in play (0 or 1) ``p`` discards to add a third."""
    if scripted(cfg, p):
        return _scripted_drop(st, cfg, p, rng, SK_COMMUNITY_DROP)
    return _agent_community_drop(st, cfg, p, rng)


@jit(_nrt=False)
def _scripted_drop(st, cfg, p, rng, kind):
    personal = kind == SK_PERSONAL_DROP
    if recording(cfg):
        a = (_agent_personal_drop(st, cfg, p, rng) if personal
             else _agent_community_drop(st, cfg, p, rng))
        record(st, kind, a, 0)
        return a
    o = script_next(st, p, kind)
    if o >= 0:
        a = st[ST_SCRIPT][o + 1]
        if a == 0 or a == 1:
            return a
        refuse(st, o)
    elif o == PAUSED:
        args = pause_args(st)
        for s in range(2):
            args[s] = st[ST_PS][p, P_PERS0 + s] if personal else st[ST_COMM][s]
    return 0


@jit(_nrt=False, inline="always")
def choose_promote_target(st, cfg, p, rng):
    """insider_tip: a category not at the top."""
    if scripted(cfg, p):
        return _scripted_category(st, cfg, p, rng, SK_TIP)
    return _agent_promote_target(st, cfg, p, rng)


@jit(_nrt=False, inline="always")
def choose_demote_target(st, cfg, p, rng):
    """short_sell: a category not at the bottom."""
    if scripted(cfg, p):
        return _scripted_category(st, cfg, p, rng, SK_SHORT)
    return _agent_demote_target(st, cfg, p, rng)


@jit(_nrt=False, inline="always")
def choose_elevator_category(st, cfg, p, rng):
    """The category an Elevator names: most often held times what a step up is worth."""
    if scripted(cfg, p):
        return _scripted_category(st, cfg, p, rng, SK_ELEVATOR)
    return _agent_elevator_category(st, cfg, p, rng)


@jit(_nrt=False)
def _scripted_category(st, cfg, p, rng, kind):
    """A category an instant moves (insider_tip, short_sell) or an Elevator names."""
    colpos = st[ST_COLPOS]
    if recording(cfg):
        if kind == SK_TIP:
            a = _agent_promote_target(st, cfg, p, rng)
        elif kind == SK_SHORT:
            a = _agent_demote_target(st, cfg, p, rng)
        else:
            a = _agent_elevator_category(st, cfg, p, rng)
        record(st, kind, a, 0)
        return a
    o = script_next(st, p, kind)
    if o >= 0:
        a = st[ST_SCRIPT][o + 1]
        if 0 <= a < N_CATEGORIES and (
                (kind == SK_TIP and colpos[a] > 0) or (kind == SK_SHORT and colpos[a] < 12)
                or kind == SK_ELEVATOR):
            return a
        refuse(st, o)
    col = st[ST_COL]
    return col[1] if kind == SK_TIP else col[0]


@jit(_nrt=False, inline="always")
def choose_swap(st, cfg, p, rng):
    """swap_any: two different positions of the column."""
    if scripted(cfg, p):
        return _scripted_swap(st, cfg, p, rng)
    return _agent_swap(st, cfg, p, rng)


@jit(_nrt=False)
def _scripted_swap(st, cfg, p, rng):
    if recording(cfg):
        i, j = _agent_swap(st, cfg, p, rng)
        record(st, SK_SWAP, i, j)
        return i, j
    o = script_next(st, p, SK_SWAP)
    if o >= 0:
        script = st[ST_SCRIPT]
        i = script[o + 1]
        j = script[o + 2]
        if 0 <= i < N_CATEGORIES and 0 <= j < N_CATEGORIES and i != j:
            return i, j
        refuse(st, o)
    return np.int64(0), np.int64(1)


@jit(_nrt=False, inline="always")
def choose_purge(st, cfg, p, rng, owners, slots, n_targets):
    """purge: index of the target among ``n_targets`` cards in play (owner -1 = community)."""
    if scripted(cfg, p):
        return _scripted_purge(st, cfg, p, rng, owners, slots, n_targets)
    return _agent_purge(st, cfg, p, rng, owners, slots, n_targets)


@jit(_nrt=False)
def _scripted_purge(st, cfg, p, rng, owners, slots, n_targets):
    if recording(cfg):
        a = _agent_purge(st, cfg, p, rng, owners, slots, n_targets)
        record(st, SK_PURGE, a, 0)
        return a
    o = script_next(st, p, SK_PURGE)
    if o >= 0:
        a = st[ST_SCRIPT][o + 1]
        if 0 <= a < n_targets:
            return a
        refuse(st, o)
    elif o == PAUSED:
        args = pause_args(st)
        args[0] = n_targets
        for i in range(n_targets):
            q = owners[i]
            args[1 + i] = q
            args[19 + i] = slots[i]
            args[37 + i] = st[ST_COMM][slots[i]] if q < 0 else st[ST_PS][q, P_PERS0 + slots[i]]
    return 0
