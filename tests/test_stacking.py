"""Disruptor stacking is data: the catalog's ``stack`` per card is read by the engine
(``DisruptorArrays.stack`` -> the kernels' ``cfg``) and by the referee alike, so a
changed rule changes the results, and the referee agrees with the new ones."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import nop_sim.games.new_order.disruptors as disruptors
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.engine import play_matches
from nop_sim.games.new_order.history import to_records
from nop_sim.games.new_order.kernels.common import stacked
from nop_sim.games.new_order.referee import RuleViolation, _stacked, check_log
from nop_sim.games.new_order.settings import Settings


@pytest.fixture
def restack(monkeypatch):
    """Replace cards' ``stack`` rules in the catalog for one test (engine and referee)."""
    catalog = disruptors.load_catalog()

    def apply(**rules):
        cards = tuple(dataclasses.replace(c, stack=rules.get(c.id, c.stack))
                      for c in catalog.cards)
        monkeypatch.setattr(disruptors, "load_catalog",
                            lambda: dataclasses.replace(catalog, cards=cards))
    return apply


def _play(mix, seed=5):
    s = Settings().replace(max_hands=60, disruptors=mix)
    return play_matches(s, "random", n_matches=8, seed=seed, log_every=1,
                        log_capacity=2_000_000, check=True, chunk_size=4)


def test_mix_arrays_carry_the_catalog_stack_codes(restack):
    codes = disruptors.mix_arrays("default").stack
    cards = disruptors.load_catalog().cards
    assert [T.STACK_NAMES[k] for k in codes] == [c.stack for c in cards]
    restack(inflation="add")
    assert disruptors.mix_arrays("default").stack[T.D_INFLATION] == T.STACK_ADD


@pytest.mark.parametrize("rule", T.STACK_NAMES[:3])
def test_kernel_stacking_matches_the_referee(rule):
    code = T.STACK_NAMES.index(rule)
    for amount in (0, 1, 2, 3):
        for copies in (0, 1, 2):
            assert stacked(code, amount, copies, 7) == _stacked(rule, amount, copies, 7)


def _hand_flags(result, field):
    return [x[field] for x in to_records(result.events) if x["event"] == "hand_start"]


# amount 3, so that two copies give 9 multiplied, 6 added, 3 once
MIX = {"inflation": {"copies": 8, "amount": 3}, "hedge_boom": {"copies": 8, "amount": 3}}


@pytest.mark.parametrize("card, rule, field, two_copies", [
    ("inflation", "add", "dart_step_mult", 6),
    ("hedge_boom", "once", "hedge_mult", 3),
])
def test_flipping_a_stack_rule_changes_the_engine_as_the_referee_expects(
        restack, card, rule, field, two_copies):
    before = _play(MIX)
    assert 9 in _hand_flags(before, field)  # two copies multiply (the catalog's rule)
    restack(**{card: rule})
    after = _play(MIX)
    flags = _hand_flags(after, field)
    assert 9 not in flags and two_copies in flags
    assert not np.array_equal(before.events, after.events)
    check_log(list(to_records(after.events)), after.settings)  # the referee reads the same rule
    restack()  # and the referee holds the engine to the rule: the old log breaks the new one
    with pytest.raises(RuleViolation, match=field):
        check_log(list(to_records(after.events)), after.settings)


def test_broker_stacking_moves_the_fee(restack):
    mix = {"broker": 30, "inflation": 4}
    before = _play(mix, seed=11)
    restack(broker="once")  # two brokers take 2 off the fee, not 2 + 2
    after = _play(mix, seed=11)
    assert not np.array_equal(before.events, after.events)
    check_log(list(to_records(after.events)), after.settings)
