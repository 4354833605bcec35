"""A seat's betting decisions played from a table over an abstraction (numba only).

A seat with a table (``cfg[CFG_POLICY_SEAT][p] >= 0``) plays its betting decisions (the
action and, under pot-limit and no-limit, the size) from row :func:`infoset` of its
table, float64 ``(n_infosets, n_actions)``; every other decision stays with its agent
row. The information set is a mixed-radix number of bucket indices, most significant
first (nop_sim.games.new_order.abstraction states the same in Python):

    phase (3: Bet I, II, III) x facing a bet (2) x strength x pot odds x stack ratio

* strength: the judged chance to beat every live opponent under the live column
  (:func:`~.policy.single_strength` raised to the opponents), in ``AB_STRENGTH`` equal
  slices of [0, 1];
* pot odds: ``to_call / (pot + to_call)`` (0 when nothing is to call), in ``AB_ODDS``
  equal slices of [0, 1/2), the last slice open above;
* stack ratio: the seat's chips at the hand's start over the mean of its live
  opponents', in ``AB_STACK`` buckets a factor of two wide, the middle one (odd counts)
  or the middle edge (even counts) at 1.

Actions: 0 fold, 1 check or call, ``2 + k`` bet or raise by ``AB_SIZES + k`` of the pot
after calling (the call included, then held within the legal bounds). Legal: fold only
facing a bet (the agents never fold when they could check), check or call always, the
first size whenever a bet or raise is, each further size only where its chips differ
from the size before it (so under limit betting, one fixed bet, only the first).

The probabilities are the positive parts of the row's weights normalised over the legal
actions, uniform over them when none is positive: regret matching when the weights are
cumulative regrets, the average strategy when they are strategy sums. The traced seat
(``AB_TRACE_SEAT``) samples from ``eps / n_legal + (1 - eps) * sigma`` (``AB_EPSILON``,
outcome sampling's exploration) and each of its decisions is written to the trace
(``TR_*``): what an outcome-sampling update needs after the match, the seat's chips won
or lost over each hand included (:func:`trace_hand_end`).

One uniform draw per decision, from the seat's stream (:func:`~.policy.seat_rng`).
"""

from __future__ import annotations

import numpy as np

from nop_sim.games.new_order.kernels.common import count_live, powi, size_bounds
from nop_sim.games.new_order.kernels.policy import seat_rng
from nop_sim.games.new_order.kernels.state import (
    AB_EPSILON,
    AB_N_SIZES,
    AB_ODDS,
    AB_SIZES,
    AB_STACK,
    AB_STRENGTH,
    AB_TRACE_SEAT,
    ACT_BET,
    ACT_CALL,
    ACT_CHECK,
    ACT_FOLD,
    ACT_RAISE,
    CFG_ABSTRACTION,
    CFG_POLICY,
    CFG_POLICY_SEAT,
    CFG_SETTINGS,
    F_SAMPLE,
    F_SIGMA,
    G_BETTING,
    G_HAND,
    G_MATCH,
    G_N,
    G_ROUND,
    G_TABLE_PUT,
    G_TR_LOST,
    G_TRN,
    G_UNIT,
    P_CHIPS,
    P_FOLDED,
    P_INHAND,
    P_START_CHIPS,
    ST_FTMP,
    ST_G,
    ST_PS,
    ST_TRACE,
    TR_ACTION,
    TR_HAND,
    TR_INFOSET,
    TR_LEGAL,
    TR_MATCH,
    TR_PAYOFF,
    TR_POLICY_P,
    TR_SAMPLE_P,
    TR_SEAT,
    TR_STRENGTH,
)
from nop_sim.games.new_order.types import BET_LIMIT
from nop_sim.kernels.jit import jit
from nop_sim.kernels.mccfr import exploring, legal_strategy, pick
from nop_sim.kernels.rng import uniform

N_PHASES = 3   # betting rounds: Bet I, II, III


@jit(_nrt=False, inline="always")
def tabular(cfg, p):
    """Whether seat ``p`` plays its betting decisions from a table."""
    return cfg[CFG_POLICY_SEAT][p] >= 0


@jit(_nrt=False)
def judged(st, s1):
    """The judged chance to beat every live opponent, without noise, from ``s1``
    (:func:`~.policy.single_strength`'s chance to beat one)."""
    g, ps = st[ST_G], st[ST_PS]
    return powi(max(s1, 0.0), max(count_live(ps, g[G_N]) - 1, 1))


@jit(_nrt=False)
def infoset(st, cfg, p, to_call, pot, s):
    """The information set of ``p``'s betting decision now (the module's docstring);
    ``s``: :func:`judged`."""
    g, ps, ab = st[ST_G], st[ST_PS], cfg[CFG_ABSTRACTION]
    n_strength = np.int64(ab[AB_STRENGTH])
    n_odds = np.int64(ab[AB_ODDS])
    n_stack = np.int64(ab[AB_STACK])
    n = g[G_N]
    strength = min(np.int64(s * n_strength), n_strength - 1)
    odds = to_call / (pot + to_call) if to_call > 0 and pot + to_call > 0 else 0.0
    odds_b = min(np.int64(odds * 2.0 * n_odds), n_odds - 1)
    others = 0
    n_others = 0
    for q in range(n):
        if q != p and ps[q, P_INHAND] != 0 and ps[q, P_FOLDED] == 0:
            others += ps[q, P_START_CHIPS]
            n_others += 1
    stack = 0
    if others > 0:
        ratio = ps[p, P_START_CHIPS] * n_others / others
        for k in range(1, n_stack):
            if ratio >= 2.0 ** (k - n_stack / 2.0):
                stack += 1
    facing = 1 if to_call > 0 else 0
    return (((g[G_ROUND] * 2 + facing) * n_strength + strength) * n_odds + odds_b) * n_stack \
        + stack


@jit(_nrt=False)
def _size_put(g, settings, ab, k, is_bet, to_call, pot, chips):
    """Chips size ``k`` puts in (the call included), within the legal bounds."""
    if g[G_BETTING] == BET_LIMIT:
        return min(to_call + g[G_UNIT], chips)
    lo, hi = size_bounds(g, settings, is_bet, to_call, pot, chips)
    want = to_call + np.int64(ab[AB_SIZES + k] * (pot + to_call) + 0.5)
    return min(max(want, lo), hi)


@jit(_nrt=False)
def table_action(st, cfg, p, rng, to_call, can_check, can_bet, can_raise, pot, s1):
    """ACT_* of ``p``'s betting decision, drawn from its table (arguments as
    :func:`~.decide.choose_action`'s); a bet's or raise's chips go to ``g[G_TABLE_PUT]``
    (:func:`table_size` reads them)."""
    g, ab, settings = st[ST_G], cfg[CFG_ABSTRACTION], cfg[CFG_SETTINGS]
    chips = st[ST_PS][p, P_CHIPS]
    rng = seat_rng(st, cfg, p, rng)
    s = judged(st, s1)
    info = infoset(st, cfg, p, to_call, pot, s)
    row = cfg[CFG_POLICY][cfg[CFG_POLICY_SEAT][p], info]
    legal = 1 << 1
    if not can_check:
        legal |= 1 << 0
    if can_bet or can_raise:
        last = np.int64(-1)
        for k in range(np.int64(ab[AB_N_SIZES])):
            put = _size_put(g, settings, ab, k, can_bet, to_call, pot, chips)
            if k == 0 or put != last:
                legal |= 1 << (2 + k)
            last = put
    # regret matching over the legal actions and the traced seat's exploration: the rule
    # outcome sampling's updates assume (nop_sim.kernels.mccfr)
    n_actions = row.shape[0]
    sigma = st[ST_FTMP][F_SIGMA:F_SIGMA + n_actions]
    sample = st[ST_FTMP][F_SAMPLE:F_SAMPLE + n_actions]
    legal_strategy(row, legal, sigma)
    traced = np.int64(ab[AB_TRACE_SEAT]) == p
    exploring(sigma, legal, ab[AB_EPSILON] if traced else 0.0, sample)
    action = pick(sample, uniform(rng))
    if traced:
        _trace(st, p, info, legal, action, sample[action], sigma[action], s)
    if action == 0:
        return ACT_FOLD
    if action == 1:
        return ACT_CHECK if can_check else ACT_CALL
    g[G_TABLE_PUT] = _size_put(g, settings, ab, action - 2, can_bet, to_call, pot, chips)
    return ACT_BET if can_bet else ACT_RAISE


@jit(_nrt=False)
def _trace(st, p, info, legal, action, sample_p, policy_p, s):
    """Append one traced decision (``TR_*``); a full trace counts it in ``G_TR_LOST``."""
    g, trace = st[ST_G], st[ST_TRACE]
    i = g[G_TRN]
    if i >= trace.shape[0]:
        g[G_TR_LOST] += 1
        return
    trace[i, TR_MATCH] = g[G_MATCH]
    trace[i, TR_HAND] = g[G_HAND]
    trace[i, TR_SEAT] = p
    trace[i, TR_INFOSET] = info
    trace[i, TR_LEGAL] = legal
    trace[i, TR_ACTION] = action
    trace[i, TR_SAMPLE_P] = sample_p
    trace[i, TR_POLICY_P] = policy_p
    trace[i, TR_STRENGTH] = s
    g[G_TRN] = i + 1


@jit(_nrt=False, inline="always")
def table_size(st, lo, hi):
    """The chips of the bet or raise :func:`table_action` chose, within [lo, hi]."""
    return min(max(st[ST_G][G_TABLE_PUT], lo), hi)


@jit(_nrt=False)
def trace_hand_end(st, cfg):
    """Write the traced seat's result of the hand that ends now (its chips less its chips
    at the hand's start) into its trace rows of the hand: an outcome-sampling episode's
    payoff when a hand is the episode."""
    g, ps, trace = st[ST_G], st[ST_PS], st[ST_TRACE]
    p = np.int64(cfg[CFG_ABSTRACTION][AB_TRACE_SEAT])
    if p < 0:
        return
    payoff = ps[p, P_CHIPS] - ps[p, P_START_CHIPS]
    i = g[G_TRN] - 1
    while i >= 0 and trace[i, TR_MATCH] == g[G_MATCH] and trace[i, TR_HAND] == g[G_HAND]:
        trace[i, TR_PAYOFF] = payoff
        i -= 1
