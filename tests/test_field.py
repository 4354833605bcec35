"""play_field: a batch of policy tables through the compiled engine, one RNG state per
match (common random numbers); and the policy parameters that change what agents do."""

from __future__ import annotations

import numpy as np
import pytest

from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.agents import AgentError, agent_bounds, agent_row, agent_table
from nop_sim.games.new_order.engine import match_states, play_field, play_matches
from nop_sim.games.new_order.history import to_records
from nop_sim.games.new_order.settings import Settings
from nop_sim.kernels.rng import seed_states

SETTINGS = Settings(max_hands=80)


@pytest.fixture(scope="module", autouse=True)
def compiled():
    play_matches(SETTINGS, "balanced", n_matches=1, seed=0)


def _same(a, b):
    return (np.array_equal(a.match, b.match) and np.array_equal(a.player, b.player)
            and np.array_equal(a.drafted, b.drafted))


# -- play_field -----------------------------------------------------------------------------
def test_match_states_are_the_chunk_states_of_play_matches():
    assert np.array_equal(match_states(7, 5), seed_states(7, 5))


def test_one_table_plays_as_play_matches_with_one_match_per_chunk():
    agents = ["balanced", "hedger", "manipulator", "rock"]
    r = play_matches(SETTINGS, agents, n_matches=6, seed=3, chunk_size=1)
    f = play_field(SETTINGS, agent_table(agents, 4)[None], np.zeros(6, np.int64),
                   match_states(3, 6))
    assert _same(r, f)
    assert np.array_equal(r.counts, f.counts)


def test_two_tables_alternating_play_as_each_alone():
    a = agent_table("balanced", 4)
    b = agent_table(["hedger", "maniac", "rock", "station"], 4)
    states = match_states(11, 8)
    both = play_field(SETTINGS, np.stack([a, b]), np.arange(8) % 2, states)
    only_a = play_field(SETTINGS, a[None], np.zeros(4, np.int64), states[0::2])
    only_b = play_field(SETTINGS, b[None], np.zeros(4, np.int64), states[1::2])
    for got, want, sl in ((only_a, both, slice(0, None, 2)), (only_b, both, slice(1, None, 2))):
        assert np.array_equal(got.match, want.match[sl])
        assert np.array_equal(got.player, want.player[sl])
        assert np.array_equal(got.drafted, want.drafted[sl])
    assert np.array_equal(only_a.counts + only_b.counts, both.counts)


def test_same_state_same_table_same_match():
    """Common random numbers: one state twice plays the same match twice, and the
    caller's states are not advanced."""
    states = np.repeat(match_states(5, 1), 3, axis=0)
    before = states.copy()
    f = play_field(SETTINGS, agent_table("balanced", 4)[None], np.zeros(3, np.int64), states)
    assert np.array_equal(states, before)
    assert (f.match == f.match[0]).all() and (f.player == f.player[0]).all()


def test_threads_change_nothing():
    tables = np.stack([agent_table("balanced", 4), agent_table("hedger", 4)])
    table_of = np.array([0, 1, 1, 0, 1], np.int64)
    one = play_field(SETTINGS, tables, table_of, match_states(2, 5), threads=1)
    two = play_field(SETTINGS, tables, table_of, match_states(2, 5), threads=2)
    assert _same(one, two) and np.array_equal(one.counts, two.counts)


def test_bad_inputs_say_what_is_wrong():
    good = agent_table("balanced", 4)[None]
    states = match_states(0, 2)
    with pytest.raises(ValueError, match="tables must be"):
        play_field(SETTINGS, good[0], np.zeros(2, np.int64), states)
    with pytest.raises(ValueError, match="players = 4"):
        play_field(SETTINGS, good[:, :3], np.zeros(2, np.int64), states)
    with pytest.raises(ValueError, match=r"in \[0, 1\)"):
        play_field(SETTINGS, good, np.array([0, 1]), states)
    with pytest.raises(ValueError, match="table_of must be"):
        play_field(SETTINGS, good, np.zeros((2, 1), np.int64), states)
    with pytest.raises(ValueError, match="rng_states must be"):
        play_field(SETTINGS, good, np.zeros(2, np.int64), states[:1])
    bad = good.copy()
    bad[0, 2, T.A_HEDGE_MOVE] = 2.0
    with pytest.raises(AgentError, match=r"tables\[0, 2\].*hedge_move"):
        play_field(SETTINGS, bad, np.zeros(2, np.int64), states)


# -- the policy row -------------------------------------------------------------------------
def test_bounds_hold_every_preset_and_the_draft_values():
    lo, hi = agent_bounds()
    assert lo.shape == hi.shape == (T.N_AGENT_PARAMS,) and (lo < hi).all()
    assert len(T.AGENT_PARAM_NAMES) == T.N_AGENT_PARAMS
    row = agent_row("balanced")
    assert row[T.A_DRAFT0 + T.D_WILD_DEUCES] == 7.0
    assert row[T.AGENT_PARAM_NAMES.index("draft_windfall")] == 5.0
    with pytest.raises(AgentError, match="nl_scale"):
        agent_row({"nl_scale": 0.0})


def _records(settings, agents, n=12, seed=1):
    r = play_matches(settings, agents, n_matches=n, seed=seed, log_every=1,
                     log_capacity=2_000_000, check=True)
    assert r.count("invariant_errors") == 0 and r.events_lost == 0
    return r, list(to_records(r.events))


def _with_board(records):
    """(record, board cards dealt when it happened) for every record."""
    board = 0
    for rec in records:
        if rec["event"] == "hand_start":
            board = 0
        elif rec["event"] == "board":
            board = len(rec["cards"])
        yield rec, board


def test_hedge_street_waits_for_the_board():
    _, base = _records(SETTINGS, "hedger")
    assert any(b < 2 for rec, b in _with_board(base) if rec["event"] == "hedge")
    _, late = _records(SETTINGS, {"preset": "hedger", "hedge_street": 2})
    boards = [b for rec, b in _with_board(late) if rec["event"] == "hedge"]
    assert boards and min(boards) >= 2
    _, last = _records(SETTINGS, {"preset": "hedger", "hedge_street": 3})
    # three board cards only after a third_card hand's Community Card I
    assert all(b == 3 for rec, b in _with_board(last) if rec["event"] == "hedge")


def test_hedge_move_zero_never_moves_a_token():
    s = SETTINGS.replace(hedge_scope="match")
    _, base = _records(s, "hedger")
    assert any(rec["event"] == "hedge" and rec["previous"] is not None for rec in base)
    _, fixed = _records(s, {"preset": "hedger", "hedge_move": 0.0})
    hedges = [rec for rec in fixed if rec["event"] == "hedge"]
    assert hedges and all(rec["previous"] is None for rec in hedges)


def test_hedge_own_changes_the_hedges():
    base, _ = _records(SETTINGS, "hedger")
    own, _ = _records(SETTINGS, {"preset": "hedger", "hedge_own": 4.0})
    assert not np.array_equal(base.categories[T.K_HEDGES], own.categories[T.K_HEDGES])


def test_manipulate_street_waits_for_the_board():
    _, base = _records(SETTINGS, "manipulator")
    assert any(b < 2 for rec, b in _with_board(base) if rec["event"] == "promote")
    _, late = _records(SETTINGS, {"preset": "manipulator", "manipulate_street": 2})
    boards = [b for rec, b in _with_board(late) if rec["event"] == "promote"]
    assert boards and min(boards) >= 2


def test_manipulate_hurt_promotes_against_the_likely_winner():
    base, _ = _records(SETTINGS, "manipulator")
    hurt, _ = _records(SETTINGS, {"preset": "manipulator", "manipulate_hurt": 10.0})
    assert hurt.count("manipulations") != base.count("manipulations")


def test_a_high_draft_value_is_always_taken():
    agents = {"preset": "balanced", "draft_windfall": 20.0}
    _, recs = _records(SETTINGS.replace(disruptors={"windfall": 8}), agents, n=10)
    seen = 0
    for i, rec in enumerate(recs):
        if rec["event"] == "reveal" and "windfall" in rec["cards"]:
            pick = next(r for r in recs[i + 1:] if r["event"] == "pick")
            assert pick["card"] == "windfall"
            seen += 1
    assert seen > 0


def _sizes(records):
    return [rec["chips"] for rec in records
            if rec["event"] == "action" and rec["action"] in ("bet", "raise")]


def test_size_strength_and_nl_scale_change_no_limit_sizes():
    s = SETTINGS.replace(betting="no-limit")
    _, base = _records(s, "balanced")
    _, strong = _records(s, {"preset": "balanced", "size_strength": 3.0})
    _, big = _records(s, {"preset": "balanced", "nl_scale": 3.0})
    assert _sizes(base) != _sizes(strong)
    assert np.mean(_sizes(big)) > np.mean(_sizes(base))


def test_nl_scale_leaves_pot_limit_alone():
    s = SETTINGS.replace(betting="pot-limit", disruptors="none")
    base, _ = _records(s, "balanced", n=6)
    scaled, _ = _records(s, {"preset": "balanced", "nl_scale": 3.0}, n=6)
    assert np.array_equal(base.match, scaled.match)
    assert np.array_equal(base.player, scaled.player)
