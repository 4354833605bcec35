"""Outcome-sampling MCCFR's updates (nop_sim.kernels.mccfr) against exact CFR on Kuhn.

Three-player Kuhn poker is small enough for full-width CFR (nop_sim.games.kuhn.cfr)
to give the exact counterfactual regrets of a profile, and for exact NashConv: the
oracles. The episodes are sampled by a small numba walker of Kuhn's tree written
here, which records what New Order's kernel will record (the traverser's infosets,
actions, legal masks and the chances of the action under sigma and sigma', the
others' visits, the traverser's payoff).
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from nop_sim.core.regret import regret_matching
from nop_sim.games.kuhn import cfr, exact
from nop_sim.games.kuhn.tree import (
    CARDS,
    DEALS,
    HISTORIES,
    N_INFOSETS,
    NODE_OF,
    PLAYERS,
    TERMINAL_PAYOFF,
    TERMINALS,
    actor,
)
from nop_sim.kernels import mccfr

_TERM = {t: i for i, t in enumerate(TERMINALS)}
# child[node, action]: the next decision node, or -1 - terminal index (action 0 pass, 1 bet)
CHILD = np.array([[NODE_OF[h + a] if h + a in NODE_OF else -1 - _TERM[h + a] for a in "pb"]
                  for h in HISTORIES], dtype=np.int64)
ACTOR = np.array([actor(h) for h in HISTORIES], dtype=np.int64)
PAYOFF = TERMINAL_PAYOFF.astype(np.float64)
BOTH = 3  # both actions legal everywhere in Kuhn


@numba.njit(cache=False)
def _episodes(regret, trav, eps, n, seed, child, actor_of, deals, payoff):
    """``n`` outcome-sampled episodes of seat ``trav`` under the regret-matching profile
    of ``regret``: (ep_start, utility, infoset, action, legal, sigma, sample_p,
    visit_infoset, visit_legal)."""
    np.random.seed(seed)
    ep_start = np.zeros(n + 1, np.int64)
    utility = np.zeros(n)
    infoset = np.zeros(2 * n, np.int64)
    action = np.zeros(2 * n, np.int64)
    sigma = np.zeros(2 * n)
    sample_p = np.zeros(2 * n)
    visits = np.zeros(4 * n, np.int64)
    strat = np.zeros(2)
    samp = np.zeros(2)
    k = 0
    v = 0
    for e in range(n):
        d = np.random.randint(0, deals.shape[0])
        node = 0
        while True:
            s = actor_of[node]
            i = node * 4 + deals[d, s]
            mccfr.legal_strategy(regret[i], 3, strat)
            if s == trav:
                mccfr.exploring(strat, 3, eps, samp)
                a = mccfr.pick(samp, np.random.random())
                infoset[k] = i
                action[k] = a
                sigma[k] = strat[a]
                sample_p[k] = samp[a]
                k += 1
            else:
                a = mccfr.pick(strat, np.random.random())
                visits[v] = i
                v += 1
            nxt = child[node, a]
            if nxt < 0:
                utility[e] = payoff[d, -1 - nxt, trav]
                break
            node = nxt
        ep_start[e + 1] = k
    legal = np.full(k, 3, np.int64)
    return (ep_start, utility, infoset[:k], action[:k], legal, sigma[:k], sample_p[:k],
            visits[:v], np.full(v, 3, np.int64))


def _exact_regret_increment(regret: np.ndarray, seat: int) -> np.ndarray:
    state = cfr.CFRState(regret.copy(), np.zeros((N_INFOSETS, 2)), 0)
    cfr._update(state, seat, 0.0)
    return state.regret - regret


def test_legal_strategy_is_regret_matching_over_the_legal_actions():
    out = np.zeros(4)
    mccfr.legal_strategy(np.array([2.0, -1.0, 6.0, 5.0]), 0b0111, out)
    np.testing.assert_allclose(out, [0.25, 0.0, 0.75, 0.0])   # action 3 is not legal
    mccfr.legal_strategy(np.array([-2.0, -1.0, 0.0, 5.0]), 0b0111, out)
    np.testing.assert_allclose(out, [1 / 3, 1 / 3, 1 / 3, 0.0])
    w = np.array([2.0, -1.0, 6.0, 0.5])   # every action legal: the core's regret matching
    mccfr.legal_strategy(w, 0b1111, out)
    np.testing.assert_allclose(out, regret_matching(w))
    mccfr.exploring(np.array([0.25, 0.0, 0.75, 0.0]), 0b0111, 0.3, out)
    np.testing.assert_allclose(out, [0.1 + 0.175, 0.1, 0.1 + 0.525, 0.0])
    assert mccfr.pick(np.array([0.5, 0.0, 0.5]), 0.49) == 0
    assert mccfr.pick(np.array([0.5, 0.0, 0.5]), 0.5) == 2
    assert mccfr.pick(np.array([0.5, 0.0, 0.49999]), 0.99999999) == 2


@pytest.mark.parametrize("seat", range(PLAYERS))
def test_sampled_regrets_average_to_the_exact_counterfactual_regrets(seat):
    """The unbiasedness that makes outcome sampling CFR: over many episodes of one
    profile, the mean sampled regret of each of the seat's 32 (infoset, action) pairs is
    full-width CFR's, within 4.5 standard errors of the batch means (and the test's
    power: those errors are far below the regrets themselves)."""
    rng = np.random.default_rng(seat)
    regret = rng.normal(0.0, 1.0, (N_INFOSETS, 2))
    exact_inc = _exact_regret_increment(regret, seat)
    batches, per = 40, 20_000
    means = np.zeros((batches, N_INFOSETS, 2))
    for b in range(batches):
        ep = _episodes(regret, seat, 0.4, per, 1000 * seat + b, CHILD, ACTOR, DEALS, PAYOFF)
        acc = np.zeros((N_INFOSETS, 2))
        mccfr.regret_update(acc, *ep[:7])
        means[b] = acc / per
    mean, se = means.mean(axis=0), means.std(axis=0, ddof=1) / np.sqrt(batches)
    own = np.zeros(N_INFOSETS, bool)
    own[[NODE_OF[h] * CARDS + c for h in HISTORIES if actor(h) == seat for c in range(CARDS)]] = True
    np.testing.assert_array_equal(exact_inc[~own], 0.0)
    np.testing.assert_array_equal(mean[~own], 0.0)
    z = np.abs(mean[own] - exact_inc[own]) / np.maximum(se[own], 1e-12)
    assert z.max() < 4.5, (z.max(), mean[own], exact_inc[own])
    # power: most regrets stand well clear of their error
    assert np.median(np.abs(exact_inc[own]) / np.maximum(se[own], 1e-12)) > 5


def _train(iterations: int, per: int, eps: float = 0.6, seed: int = 0, own: bool = False):
    regret = np.zeros((N_INFOSETS, 2))
    strategy_sum = np.zeros((N_INFOSETS, 2))
    scratch = np.zeros(2)
    for t in range(1, iterations + 1):
        snapshot = regret.copy()
        for seat in range(PLAYERS):
            ep = _episodes(snapshot, seat, eps, per, seed + 7 * t + seat, CHILD, ACTOR, DEALS,
                           PAYOFF)
            if own:   # the traverser's decisions, reach-weighted
                mccfr.average_update(strategy_sum, snapshot, ep[0], ep[2], ep[4], ep[5], ep[6],
                                     float(t) ** 2.0, scratch)
            else:     # the others' on-policy decisions
                mccfr.accumulate_average(strategy_sum, snapshot, ep[7], ep[8], float(t) ** 2.0,
                                         scratch)
            mccfr.regret_update(regret, *ep[:7])
        mccfr.discount(regret, float(t), 1.5, 0.0)
    total = strategy_sum.sum(axis=1)
    return np.where(total > 0, strategy_sum[:, 1] / np.where(total > 0, total, 1), 0.5)


@pytest.mark.parametrize("own", [False, True], ids=["others-visits", "traverser-reach"])
def test_outcome_sampling_learns_kuhn_to_a_small_nash_conv(own):
    """Uniform play has NashConv 2.0625; 400 iterations of 3 x 500 sampled episodes
    (600,000 in all, a few seconds) bring the average strategy far below it, whichever
    decisions the average is taken from."""
    nc = exact.nash_conv(_train(400, 500, own=own))
    assert nc < 0.05, nc


def test_discount_and_same_episodes_give_the_same_tables():
    r = np.array([[2.0, -2.0], [0.0, 4.0]])
    mccfr.discount(r, 1.0, 1.5, 0.0)
    np.testing.assert_allclose(r, [[1.0, -1.0], [0.0, 2.0]])
    a, b = _train(20, 200, seed=5), _train(20, 200, seed=5)
    assert np.array_equal(a, b)
