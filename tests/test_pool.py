"""Pooled searches (nop_sim.studies.train.pool): the free pick is the best of a pool that
holds every restricted pick's candidates, so a value is below 0 only by the check's
noise, a mechanic that cannot matter is worth exactly 0, and a deviation that only a
restricted search reaches still counts against the field.

Oracles: free hedging that pays 50 is worth a lot (hedging every hand is the known best
response); with no promotion allowed manipulation cannot change a match (common random
numbers make the two picks play alike); a field that never bets and folds to any bet
is beaten by betting, far from the field in the box.
"""

from __future__ import annotations

import numpy as np

from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.agents import agent_row
from nop_sim.games.new_order.settings import Settings
from nop_sim.studies.train import Engine, Field, SearchConfig, space_for
from nop_sim.studies.train.pool import FREE, pooled_cost, pooled_search, restricted

SMALL = SearchConfig(runs=2, generations=6, random_starts=4, screen=(16, 32), race=(8, 16),
                     select=64, check_batch=256, check_max=512)
FREE_HEDGE = Settings(players=4, chips=40, max_hands=40, hedge_cost=0, hedge_payout=50,
                      promotions_per_action=0, disruptors="none")
NEVER_HEDGE = Field.pure(agent_row({"preset": "balanced", "hedge": 0.0}))


def test_values_are_never_below_zero_and_a_mechanic_that_cannot_matter_is_worth_zero():
    s = FREE_HEDGE
    space = space_for(s)
    engine = Engine()
    p = pooled_search(engine, s, space, NEVER_HEDGE, NEVER_HEDGE.rows, (5,), SMALL,
                      mechanics=["hedging", "manipulation"])
    assert p.groups == [FREE, "hedging", "manipulation"]
    # the pick without hedging never hedges; free hedging is worth a lot
    assert p.rows[1][T.A_HEDGE] == 0.0
    assert p.value("hedging")["ci_low"] > 0.1, p.value("hedging")
    # no promotion is ever allowed: manipulation changes nothing, to the bit
    v = p.value("manipulation")
    assert v["mean"] == 0.0 and v["ci_low"] == 0.0 and v["ci_high"] == 0.0, v
    # by construction the free pick led the selection among every group's candidates
    sel = [h for h in p.history if h["phase"] == "pool-select"]
    most = max(h["matches"] for h in sel)  # the finalists raced both stages
    best = max(h["gain"] for h in sel if h["matches"] == most)
    lead = [h for h in sel if h["leader"]]
    assert lead and np.isclose(lead[0]["gain"], best)
    # the free gain is the exploitability found, stated as a pooled lower bound
    assert p.gain()["ci_low"] > 0.1
    assert "3 searches pooled" in p.statement() and "search from" in p.statement()
    # every search and the pooled stages were counted, within what the budget plans
    assert p.matches == engine.matches
    assert p.matches <= pooled_cost(SMALL, space, s.players, 1, 2)


def test_a_deviation_only_a_restricted_search_sees_counts_against_the_field():
    """The pool holds each search's leaders with every mechanic switched off: a row the
    restricted search found is a legal free row, so the free pick gains at least what
    the restricted pick gains, on the same matches, up to the check's noise."""
    s = Settings(players=4, chips=40, max_hands=60, disruptors="none")
    passive = Field.pure(agent_row({"preset": "balanced", "bet_threshold": 2.0, "bluff": 0.0,
                                    "call_margin": 1.0, "hedge": 0.0, "manipulate": 0.0}))
    p = pooled_search(Engine(), s, space_for(s), passive, passive.rows, (6,), SMALL)
    free = p.gain()
    assert free["mean"] >= 0.15, free
    for m in p.groups[1:]:
        assert p.value(m)["ci_high"] >= 0.0, (m, p.value(m))
        off = restricted(space_for(s), m)
        assert np.allclose(off.pin(p.rows[p.groups.index(m)]),
                           p.rows[p.groups.index(m)])  # the pick without m leaves m off


def test_a_check_to_a_precision_plays_on_until_every_value_is_that_narrow():
    """``precision`` only adds matches: the check's first batch is the check without it,
    and it stops as soon as every value's 95% interval is that wide on each side (or at
    LONGEST times its size)."""
    from nop_sim.core.stats import mean_interval
    from nop_sim.studies.train.play import duel
    from nop_sim.studies.train.pool import LONGEST

    s, engine = FREE_HEDGE, Engine()
    p = pooled_search(engine, s, space_for(s), NEVER_HEDGE, NEVER_HEDGE.rows, (5,), SMALL,
                      mechanics=["hedging", "manipulation"], precision=0.03)
    n = p.check.won.shape[1]
    assert 512 < n <= LONGEST * 512
    first = duel(Engine(), s, NEVER_HEDGE, p.rows, 512, (5, 3 * 10**6 + 2))
    assert np.array_equal(first.won, p.check.won[:, :512])

    def half(won):  # a value's interval: on the blocks of duplicate deals
        v = mean_interval(p.check.per_block(won[0] - won[1]))
        return (v["ci_high"] - v["ci_low"]) / 2

    assert half(p.check.won[:2].astype(float)) <= 0.03 < half(first.won[:2].astype(float))
    assert half(p.check.won[:2, :n - 256].astype(float)) > 0.03  # it stopped when it got there
    assert p.value("manipulation")["ci_high"] == 0.0              # still exactly 0
    assert p.matches == engine.matches
