"""The Ordered Hand engine: referee replays, determinism, settings and agents."""

from __future__ import annotations

import numpy as np
import ordered_reference
import pytest

from nop_sim.core.column import Column
from nop_sim.games.ordered_hand import OrderedAgent, OrderedSettings, SettingsError, play_matches
from nop_sim.games.ordered_hand.engine import GAMES_PER_CHUNK, _chunk_states
from nop_sim.games.ordered_hand.kernels import play as K
from nop_sim.games.ordered_hand.referee import RuleViolation, check_game, check_result
from nop_sim.kernels.rng import seed_states

TWO_BET = OrderedSettings(players=2, betting=True)

# (settings, agents): every rule path — plain and advanced rules, every preset,
# moved columns, short stocks, no stock, the turn cap.
SCENARIOS = [
    (OrderedSettings(), "random"),
    (OrderedSettings(), ["low", "high", "builder", "random"]),
    (OrderedSettings(players=3, column=Column.parse("High Card > One Pair")), "random"),
    (OrderedSettings(players=5, hand_size=5), ["builder", "low", "high", "random", "random"]),
    (TWO_BET, "random"),
    (TWO_BET, ["bettor", "raiser"]),
    (TWO_BET, ["raiser", "random"]),
    (OrderedSettings(players=2, betting=True, hand_size=2,
                     column=Column(list(range(13))[::-1])), ["bettor", "random"]),
    (OrderedSettings(players=2, hand_size=1), "random"),
    (OrderedSettings(players=4, hand_size=13), ["low", "random", "high", "builder"]),
    (OrderedSettings(players=6, hand_size=8), "random"),
    (OrderedSettings(players=3, max_turns=6), "random"),
]


@pytest.mark.parametrize("settings, agents", SCENARIOS)
def test_referee_replays_logged_games(settings, agents):
    n = 300
    result = play_matches(settings, agents, n, seed=11, log=True)
    assert check_result(result) == n
    # The log-free run plays exactly the same games.
    plain = play_matches(settings, agents, n, seed=11)
    np.testing.assert_array_equal(plain.games, result.games)


# Two players holding 25 cards each: the stock of 2 runs out at once, card
# counts always tie, and equal best hands (a shared win) are common.
LONG_HANDS = (OrderedSettings(players=2, hand_size=25), "low")


def test_referee_checks_tied_and_shared_stock_outs():
    settings, agents = LONG_HANDS
    result = play_matches(settings, agents, 64, seed=11, log=True)
    shared = np.flatnonzero(result.games[:, K.F_END] == K.END_SHARED)
    assert shared.size >= 2
    # The referee tries every five-card subset of 25 cards: check a few games only.
    for i in [0, 1, *shared[:2].tolist()]:
        counts = check_game(settings, result.log.decks[i], result.log.game_events(i),
                            result.games[i], game=i)
        assert counts["end"] == result.games[i, K.F_END]


def test_scenarios_reach_every_ending_and_bet_response():
    ends = set()
    totals = np.zeros(K.N_FIELDS, dtype=np.int64)
    for settings, agents in [*SCENARIOS, LONG_HANDS]:
        g = play_matches(settings, agents, 300, seed=11).games
        ends.update(np.unique(g[:, K.F_END]).tolist())
        totals += g.sum(axis=0)
    assert ends == {K.END_EMPTIED, K.END_STOCK_OUT, K.END_SHARED, K.END_CAPPED}
    for f in (K.F_CLEARS, K.F_FOLDS, K.F_CALLS, K.F_RAISES):
        assert totals[f] > 0
    assert totals[K.F_SIZE : K.F_SIZE + 5].min() > 0
    assert totals[K.F_BETS_WON] > 0


def _tamper(result, game, mutate):
    events = result.log.game_events(game).copy()
    mutate(events)
    return check_game(result.settings, result.log.decks[game], events, game=game)


def test_referee_catches_broken_rules():
    result = play_matches(OrderedSettings(), "random", 40, seed=3, log=True)
    ev = result.log.game_events(0)
    draws = np.flatnonzero(ev[:, 1] == K.EV_DRAW)
    plays = np.flatnonzero(ev[:, 1] == K.EV_PLAY)
    clears = np.flatnonzero(ev[:, 1] == K.EV_CLEAR)

    def bad_insert(e):
        e[draws[0], 3] = 60

    def wrong_card(e):
        e[draws[0], 2] = (e[draws[0], 2] + 1) % 52

    def out_of_turn(e):
        e[plays[0], 0] = (e[plays[0], 0] + 1) % 4

    def no_clear(e):
        e[clears[0], 1] = K.EV_CHECK

    def wrong_winner(e):
        e[-1, 3] ^= 0b11

    def bad_block(e):
        e[plays[1], 2] = 0
        e[plays[1], 3] = 5

    for mutate in (bad_insert, wrong_card, out_of_turn, no_clear, wrong_winner, bad_block):
        with pytest.raises(RuleViolation):
            _tamper(result, 0, mutate)
    # A wrong record row is caught too.
    rec = result.games[0].copy()
    rec[K.F_TURNS] += 1
    with pytest.raises(RuleViolation, match="record field"):
        check_game(result.settings, result.log.decks[0], ev, rec)
    # A duplicated card in the deck is caught.
    deck = result.log.decks[0].copy()
    deck[1] = deck[0]
    with pytest.raises(RuleViolation, match="deck"):
        check_game(result.settings, deck, ev)


def test_a_bet_without_advanced_rules_is_caught():
    result = play_matches(TWO_BET, ["bettor", "raiser"], 20, seed=5, log=True)
    i = next(i for i in range(20) if (result.log.game_events(i)[:, 1] == K.EV_BET).any())
    plain = OrderedSettings(players=2)
    with pytest.raises(RuleViolation, match="Bet without"):
        check_game(plain, result.log.decks[i], result.log.game_events(i))


def test_same_seed_same_games_whatever_the_chunking():
    n = 2 * GAMES_PER_CHUNK + 37
    whole = play_matches(OrderedSettings(), "random", n, seed=42).games
    again = play_matches(OrderedSettings(), "random", n, seed=42).games
    assert whole.tobytes() == again.tobytes()
    head = play_matches(OrderedSettings(), "random", GAMES_PER_CHUNK, seed=42).games
    tail = play_matches(OrderedSettings(), "random", n - GAMES_PER_CHUNK, seed=42,
                        first_game=GAMES_PER_CHUNK).games
    np.testing.assert_array_equal(np.concatenate([head, tail]), whole)
    for workers in (2, 3, None):
        par = play_matches(OrderedSettings(), "random", n, seed=42, workers=workers).games
        np.testing.assert_array_equal(par, whole)
    other = play_matches(OrderedSettings(), "random", n, seed=43).games
    assert other.tobytes() != whole.tobytes()


def test_chunk_streams_are_seed_sequence_children():
    states = _chunk_states(9, 0, 3)
    kids = np.random.SeedSequence(9).spawn(3)
    for i, kid in enumerate(kids):
        np.testing.assert_array_equal(states[i], kid.generate_state(4, dtype=np.uint64))
        # the chunk states of before, built from spawn_key directly
        direct = np.random.SeedSequence(9, spawn_key=(i,)).generate_state(4, dtype=np.uint64)
        np.testing.assert_array_equal(states[i], direct)
    np.testing.assert_array_equal(_chunk_states(9, 2, 1)[0], states[2])
    np.testing.assert_array_equal(states, seed_states(9, 3))


def test_records_dataframe():
    result = play_matches(TWO_BET, ["bettor", "raiser"], 500, seed=1)
    df = result.records()
    assert len(df) == 500
    assert set(df["end"].cat.categories) == set(K.END_NAMES)
    assert (df["won_p0"] | df["won_p1"]).all()
    assert (df[["plays_size_1", "plays_size_2", "plays_size_3", "plays_size_4",
                "plays_size_5"]].sum(axis=1) == df["plays"]).all()
    assert (df["bets_won"] <= df["bets_made"]).all() and df["bets_made"].sum() > 0
    single = df["n_winners"] == 1
    assert (df.loc[single, "winner"] >= 0).all() and (df.loc[~single, "winner"] == -1).all()
    assert df.attrs["agents"] == ["bettor", "raiser"]
    # The stock is used up exactly, unless someone emptied their sequence first.
    stock = 52 - 2 * 7
    assert (df.loc[df["end"] != "emptied", "cards_drawn"] == stock).all()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(hand_size=0), "hand_size=0"),
        (dict(players=1), "players=1"),
        (dict(players=7), "players=7"),
        (dict(players=3, betting=True), "betting=True needs players=2"),
        (dict(column=[0, 1, 2]), "column="),
        (dict(column="Two Pair > Nonsense"), "column="),
        (dict(players=6, hand_size=9), "hand_size=9"),
        (dict(max_turns=0), "max_turns=0"),
        (dict(betting="yes"), "betting='yes'"),
        (dict(players=2.5), "players=2.5"),
    ],
)
def test_bad_settings(kwargs, match):
    with pytest.raises(SettingsError, match=match):
        OrderedSettings(**kwargs)


def test_settings_accept_text_columns_and_mappings():
    s = OrderedSettings.from_mapping({"players": 2, "column": "Two Pair > Full House"})
    assert s.column.position("Two Pair") < s.column.position("Full House")
    assert s.as_dict()["column"].startswith("Flush Five")
    with pytest.raises(SettingsError, match="unknown"):
        OrderedSettings.from_mapping({"player": 3})


def test_bad_agents_and_arguments():
    with pytest.raises(ValueError, match="agent 'nobody'"):
        play_matches(OrderedSettings(), "nobody", 1)
    with pytest.raises(ValueError, match="3 agents"):
        play_matches(OrderedSettings(), ["low"] * 3, 1)
    with pytest.raises(ValueError, match="play='best'"):
        OrderedAgent(play="best")
    with pytest.raises(ValueError, match="first_game"):
        play_matches(OrderedSettings(), "low", 1, first_game=3)
    with pytest.raises(ValueError, match="seed"):
        play_matches(OrderedSettings(), "low", 1, seed=-1)
    with pytest.raises(ValueError, match="workers"):
        play_matches(OrderedSettings(), "low", 1, workers=0)


def test_custom_agents_and_zero_games():
    cautious = OrderedAgent(play="low", insert="builder", check_prob=0.5)
    result = play_matches(OrderedSettings(players=2), [cautious, "high"], 200, seed=2, log=True)
    assert check_result(result) == 200
    assert result.agent_names == ("custom", "high")
    assert play_matches(OrderedSettings(), "low", 0).games.shape == (0, K.N_FIELDS)


def test_fast_legal_blocks_equal_the_obvious_enumeration():
    rng = np.random.default_rng(5)
    fast = np.zeros((K.MAX_BLOCKS, 4), dtype=np.int64)
    slow = np.zeros((K.MAX_BLOCKS, 4), dtype=np.int64)
    columns = [np.arange(13), np.arange(13)[::-1], *[rng.permutation(13) for _ in range(6)]]
    for trial in range(3000):
        length = int(rng.integers(1, 25))
        # One deck, as in the game: no repeated codes.
        if trial % 2:
            row = rng.permutation(52)[:length]
        else:  # few ranks and suits: pairs, runs, flushes and full houses
            pool = np.arange(4 * int(rng.integers(0, 9)), 52)[:20]
            pool = pool[(pool % 4) < int(rng.integers(1, 5))]
            length = min(length, pool.size)
            row = rng.permutation(pool)[:length]
        seq = row.astype(np.int8)[None, :]
        position_of = np.argsort(columns[trial % len(columns)]).astype(np.int64)
        mid_cat = int(rng.integers(-1, 13))
        mid_tb = int(rng.integers(0, 1 << 20)) if mid_cat >= 0 else 0
        n_fast = K._legal_blocks(seq, 0, length, mid_cat, mid_tb, position_of, fast)
        n_slow = ordered_reference.legal_blocks_reference(seq, 0, length, mid_cat, mid_tb, position_of, slow)
        assert n_fast == n_slow
        np.testing.assert_array_equal(fast[:n_fast], slow[:n_slow])


def test_fast_hand_strength_equals_every_five_card_subset():
    rng = np.random.default_rng(8)
    five = np.zeros(K.MAX_SEQ + 1, dtype=np.int8)
    counts = np.zeros(23, dtype=np.int64)
    for trial in range(4000):
        n = int(rng.integers(1, 16))
        if trial % 3 == 0:  # one or two suits: flushes and straight flushes
            pool = np.flatnonzero(np.isin(np.arange(52) % 4, rng.choice(4, 2, replace=False)))
        elif trial % 3 == 1:  # few ranks: quads, full houses, pairs
            pool = np.arange(4 * int(rng.integers(0, 8)), 4 * 13)[:24]
        else:
            pool = np.arange(52)
        row = rng.choice(pool, size=min(n, pool.size), replace=False).astype(np.int8)
        seq = row[None, :]
        fast = K._hand_strength(seq, 0, row.size, counts)
        slow = ordered_reference.hand_strength_reference(seq, 0, row.size, five, counts)
        assert fast == slow, row


@pytest.mark.parametrize("players, betting", [(4, False), (2, True)])
def test_the_kernels_log_writes_what_the_event_schema_says(players, betting):
    """Issue 38, item 4: every event the kernel logs is a kind of types.EVENT_SCHEMA and
    writes 0 where the schema names no field, and the records nop-sim hands --json writes
    carry the schema's field names."""
    from nop_sim.games.ordered_hand.history import game_records
    from nop_sim.games.ordered_hand.types import EVENT_SCHEMA

    s = OrderedSettings(players=players, betting=betting)
    res = play_matches(s, "random", 200, seed=4, log=True)
    seen = set()
    for g in range(res.n_games):
        ev = res.log.game_events(g).astype(int)
        for _p, k, a, b in ev.tolist():
            assert k in EVENT_SCHEMA, k
            n = len(EVENT_SCHEMA[k][1])
            assert (a, b)[n:] == (0, 0)[n:], (EVENT_SCHEMA[k], a, b)
            seen.add(k)
        for rec, (_, k, a, b) in zip(game_records(ev, g), ev.tolist(), strict=True):
            name, fields = EVENT_SCHEMA[k]
            assert rec["event"] == name
            assert [rec[f] for f in fields] == [a, b][:len(fields)]
    assert seen == set(EVENT_SCHEMA) - ({K.EV_BET, K.EV_FOLD, K.EV_CALL, K.EV_RAISE, K.EV_MOVE}
                                        if not betting else set())
