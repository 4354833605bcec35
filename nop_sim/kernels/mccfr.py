"""Outcome-sampling MCCFR's updates over recorded decisions (numba; any game).

Monte Carlo CFR with outcome sampling (Lanctot et al. 2009, "Monte Carlo Sampling
for Regret Minimization in Extensive Games"): an *episode* is one play of the game
to its end in which the *traverser* samples its actions from an exploring
strategy ``sigma' = eps * uniform + (1 - eps) * sigma`` over its legal actions,
while the others and chance play as they are (on-policy). The episode's recorded
decisions and the traverser's payoff are all an update needs: the others' and
chance's probabilities cancel between the counterfactual reach and the sampling
probability, so a game that cannot say how likely a deal was (New Order shuffles
a deck) can still be trained. No game state is ever copied or branched.

For the traverser's ``k``-th decision (infoset ``I``, sampled action ``a``) of an
episode with payoff ``u``, with ``tail`` the product of ``sigma / sigma'`` over its
later decisions and ``before`` the product of ``sigma'`` over its earlier ones, the
sampled counterfactual regret of every legal action ``b`` is
``w * ([b == a] - sigma(I, a))`` with ``w = u * tail / (sigma'(I, a) * before)``:
OpenSpiel's ``outcome_sampling_mccfr`` without a baseline. Its expectation over
episodes is the exact counterfactual regret of full-width CFR, which
tests/test_mccfr.py checks on three-player Kuhn poker.

The average strategy is accumulated either from the *other* seats' decisions, which
are on-policy samples of the current strategy (:func:`accumulate_average`), or from
the traverser's own, each weighted by its reach under ``sigma`` over its reach under
``sigma'`` (:func:`average_update`: what a game that traces one seat can do); the
regrets are discounted as Discounted CFR does (:func:`discount`; Brown and Sandholm
2019). Actions are bits of an int64 mask (at most 63 per infoset). Everything
works on caller-held flat arrays, in place, in the order given: the same
episodes give bit-identical tables whatever the number of workers that played them.
"""

from __future__ import annotations

from nop_sim.kernels.jit import jit

__all__ = ["accumulate_average", "average_update", "discount", "exploring", "legal_strategy",
           "pick", "regret_update"]


@jit(_nrt=False)
def legal_strategy(weights, legal, out):
    """Regret matching over the legal actions: ``out[b]`` is ``weights[b]``'s positive
    part over their sum, for every bit ``b`` of ``legal``, uniform over the legal
    actions where none is positive, 0 for an illegal action. ``weights`` and ``out``:
    float64 rows of one length (they may be the same array)."""
    total = 0.0
    n = 0
    for b in range(out.shape[0]):
        if (legal >> b) & 1:
            n += 1
            if weights[b] > 0.0:
                total += weights[b]
    for b in range(out.shape[0]):
        if not (legal >> b) & 1:
            out[b] = 0.0
        elif total > 0.0:
            out[b] = weights[b] / total if weights[b] > 0.0 else 0.0
        else:
            out[b] = 1.0 / n


@jit(_nrt=False)
def exploring(sigma, legal, eps, out):
    """The traverser's sampling strategy ``eps * uniform + (1 - eps) * sigma`` over the
    legal actions, into ``out``."""
    n = 0
    for b in range(out.shape[0]):
        if (legal >> b) & 1:
            n += 1
    for b in range(out.shape[0]):
        out[b] = (eps / n + (1.0 - eps) * sigma[b]) if (legal >> b) & 1 else 0.0


@jit(_nrt=False)
def pick(probs, u):
    """The action of a uniform draw ``u`` in [0, 1) by the cumulative ``probs``; the last
    action with a positive chance when rounding leaves ``u`` above the total."""
    acc = 0.0
    last = -1
    for b in range(probs.shape[0]):
        if probs[b] > 0.0:
            acc += probs[b]
            last = b
            if u < acc:
                return b
    return last


@jit(_nrt=False)
def regret_update(regret, ep_start, utility, infoset, action, legal, sigma, sample_p):
    """Add each episode's sampled counterfactual regrets to ``regret`` (float64
    ``(infosets, actions)``), in place.

    Episode ``e``'s traverser decisions are ``ep_start[e]`` to ``ep_start[e + 1]`` (in
    the order played) of ``infoset``, ``action`` (the sampled one), ``legal`` (int64
    mask), ``sigma`` (the current strategy's chance of that action) and ``sample_p``
    (the chance it was sampled with, ``sigma'``: positive); ``utility[e]`` is the
    traverser's payoff.
    """
    for e in range(utility.shape[0]):
        lo, hi = ep_start[e], ep_start[e + 1]
        total = 1.0
        for k in range(lo, hi):
            total *= sample_p[k]
        tail = 1.0     # sigma / sigma' over the later decisions
        suffix = 1.0   # sigma' over this decision and the later ones
        for k in range(hi - 1, lo - 1, -1):
            suffix *= sample_p[k]
            before = total / suffix
            w = utility[e] * tail / (sample_p[k] * before)
            row = regret[infoset[k]]
            mask = legal[k]
            for b in range(row.shape[0]):
                if (mask >> b) & 1:
                    row[b] -= sigma[k] * w
            row[action[k]] += w
            tail *= sigma[k] / sample_p[k]


@jit(_nrt=False)
def accumulate_average(strategy_sum, regret, infoset, legal, weight, scratch):
    """Add ``weight`` times the current strategy (regret matching of ``regret``) at each
    on-policy visit ``infoset[k]`` (legal mask ``legal[k]``) to ``strategy_sum``, in
    place. ``scratch``: float64, one row's length. Call it before the regret update of
    the same episodes: the strategy is the one they were played with."""
    for k in range(infoset.shape[0]):
        i = infoset[k]
        legal_strategy(regret[i], legal[k], scratch)
        for b in range(scratch.shape[0]):
            strategy_sum[i, b] += weight * scratch[b]


@jit(_nrt=False)
def average_update(strategy_sum, regret, ep_start, infoset, legal, sigma, sample_p, weight,
                   scratch):
    """Add each traverser decision's current strategy (regret matching of ``regret``, the
    strategy the episodes were played with) to ``strategy_sum``, times ``weight`` and the
    traverser's reach of the decision under ``sigma`` over its reach under ``sigma'``
    (stochastically weighted averaging, as OpenSpiel's outcome sampling does, with the
    others' and chance's chances left out: they are on-policy). Arguments as
    :func:`regret_update`'s; ``scratch``: float64, one row's length."""
    for e in range(ep_start.shape[0] - 1):
        reach = 1.0
        for k in range(ep_start[e], ep_start[e + 1]):
            i = infoset[k]
            legal_strategy(regret[i], legal[k], scratch)
            for b in range(scratch.shape[0]):
                strategy_sum[i, b] += weight * reach * scratch[b]
            reach *= sigma[k] / sample_p[k]


@jit(_nrt=False)
def discount(regret, t, alpha, beta):
    """Discounted CFR after iteration ``t`` (1, 2, ...), in place: positive regrets times
    ``t^alpha / (t^alpha + 1)``, negative ones times ``t^beta / (t^beta + 1)``."""
    pos = t ** alpha / (t ** alpha + 1.0)
    neg = t ** beta / (t ** beta + 1.0)
    for i in range(regret.shape[0]):
        for b in range(regret.shape[1]):
            r = regret[i, b]
            regret[i, b] = r * (pos if r > 0.0 else neg)
