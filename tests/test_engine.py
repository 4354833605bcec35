"""Invariants of whole matches: chips and cards add up, same seed same bytes, every effect."""

from __future__ import annotations

import numpy as np
import pytest

from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.agents import AgentError, agent_row, agent_table
from nop_sim.games.new_order.engine import MatchResults, play_batches, play_matches
from nop_sim.games.new_order.settings import Settings, SettingsError


@pytest.fixture(scope="module", autouse=True)
def compiled():
    """Compile (or load from cache) the match kernel once, before the examples."""
    play_matches(Settings(), "balanced", n_matches=1, seed=0)


def _assert_sound(r: MatchResults) -> None:
    n = r.settings.players
    assert r.count("invariant_errors") == 0
    assert (r.match[:, T.M_INVARIANT_ERRORS] == 0).all()
    places = np.sort(r.player[:, :, T.PL_PLACE], axis=1)
    assert (places == np.arange(1, n + 1)).all()
    winners = r.match[:, T.M_WINNER]
    assert (r.player[np.arange(r.n_matches), winners, T.PL_PLACE] == 1).all()
    hands = r.match[:, T.M_HANDS]
    assert (hands >= 1).all() and (hands <= r.settings.max_hands).all()
    unresolved = r.match[:, T.M_UNRESOLVED] == 1
    assert (hands[unresolved] == r.settings.max_hands).all()
    elim = r.player[:, :, T.PL_ELIMINATED_HAND]
    assert (elim <= hands[:, None]).all()
    # a resolved match: everyone but the winner was eliminated, the winner holds every chip
    resolved = ~unresolved
    assert ((elim[resolved] > 0).sum(axis=1) == n - 1).all()
    total = (n * r.settings.starting_chips + r.match[:, T.M_BANK_IN] - r.match[:, T.M_BANK_OUT])
    assert (r.player[:, :, T.PL_FINAL_CHIPS].sum(axis=1) == total).all()
    assert r.count("matches") == r.n_matches
    assert r.count("hands") == hands.sum()
    assert r.time[0, T.T_MATCHES] == r.n_matches
    col = np.sort(r.column.astype(np.int64), axis=1)
    assert (col == np.arange(13)).all()


SCENARIOS = [
    ("default balanced", {}, "balanced"),
    ("random 2p", {"players": 2}, "random"),
    ("random 3p pot-limit", {"players": 3, "betting": "pot-limit"}, "random"),
    ("random 5p no-limit", {"players": 5, "betting": "no-limit"}, "random"),
    ("random 8p", {"players": 8}, "random"),
    ("fee to bank, hedges from bank", {"fee_to": "bank", "hedge_from": "bank"}, "random"),
    ("hedge scope match", {"hedge_scope": "match"}, "hedger"),
    ("two decks", {"decks": 2, "players": 6}, "random"),
    ("chaos", {"disruptors": "chaos"}, "random"),
    ("dart reset, 2 promotions", {"dart_reset": "hand", "promotions_per_action": 2},
     "manipulator"),
    ("draft without showdown", {"draft_without_showdown": True}, "maniac"),
    ("no disruptors, deep discards", {"disruptors": "none", "max_discard": 5}, "rock"),
    ("mixed table", {"players": 7}, ["random", "station", "rock", "maniac", "manipulator",
                                     "hedger", "balanced"]),
    ("tiny stacks", {"chips": 3, "ante": 2}, "random"),
]


@pytest.mark.parametrize("name, changes, agents", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_invariants_hold_after_every_hand(name, changes, agents):
    settings = Settings().replace(max_hands=300, **changes)
    r = play_matches(settings, agents, n_matches=12, seed=7, check=True, chunk_size=4)
    _assert_sound(r)


def test_same_seed_same_bytes_whatever_the_threads():
    s = Settings(players=5, disruptors="chaos", max_hands=200)
    # threads=1 runs the serial driver, threads=2 the prange one: same bytes
    seats = ["random", "balanced", "hedger", "manipulator", "maniac"]
    a = play_matches(s, seats, n_matches=16, seed=11, chunk_size=3, threads=1)
    b = play_matches(s, seats, n_matches=16, seed=11, chunk_size=3, threads=2)
    for name in ("match", "player", "drafted", "column", "counts", "categories", "time",
                 "disruptors"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes(), name
    c = play_matches(s, seats, n_matches=16, seed=12, chunk_size=3)
    assert a.match.tobytes() != c.match.tobytes()


def test_a_kept_event_buffer_gives_each_call_its_own_log_and_nothing_of_the_last():
    """play_batches keeps its thread's log buffer between calls: a call after a longer log
    (rows left in the buffer) returns exactly what a fresh buffer gives, and the logs a
    first call returned are not overwritten by the next."""
    from nop_sim.games.new_order import engine as E

    s = Settings(players=4, max_hands=150)
    tables = agent_table(["rock", "maniac", "manipulator", "hedger"], 4)[None]
    long_mask, short_mask = np.ones(12, np.int8), np.zeros(12, np.int8)
    short_mask[[3, 10]] = 1
    first = E.play_batches(s, tables, [0, 0], [6, 6], [5, 6], log_mask=long_mask)
    kept = [e.copy() for e in first.events]
    second = E.play_batches(s, tables, [0, 0], [6, 6], [7, 8], log_mask=short_mask)
    assert all(np.array_equal(a, b) for a, b in zip(first.events, kept, strict=True))
    assert E._kept.events.shape[0] >= 2  # the second call did use the kept buffer
    E._kept.events = None  # a fresh buffer: the oracle
    fresh = E.play_batches(s, tables, [0, 0], [6, 6], [7, 8], log_mask=short_mask)
    assert [len(e) for e in second.events] == [len(e) for e in fresh.events]
    assert all(np.array_equal(a, b) for a, b in zip(second.events, fresh.events, strict=True))
    assert sum(len(e) for e in kept) > sum(len(e) for e in fresh.events) > 0


def test_play_batches_plays_what_play_matches_plays_batch_by_batch():
    # the oracle: one play_matches call per batch, each batch its own seeded chunk
    s = Settings(players=4, disruptors="chaos", max_hands=150)
    specs = [["rock", "maniac", "manipulator", "hedger"], ["hedger", "balanced", "rock", "random"]]
    tables = np.stack([agent_table(spec, 4) for spec in specs])
    sizes, which, seeds = [7, 1, 12, 5], [0, 1, 1, 0], [3, 99, 3, 2**62]
    # batch 1 logs its one match, batch 2 two of its own, the others none
    logged = [[], [0], [4, 11], []]
    mask = np.concatenate([np.isin(np.arange(n), log) for n, log in zip(sizes, logged, strict=True)])
    for log_mask in (None, mask):
        got = play_batches(s, tables, which, sizes, seeds, log_mask=log_mask)
        start = 0
        for b, n in enumerate(sizes):
            log = logged[b] if log_mask is not None else None
            want = play_matches(s, specs[which[b]], n, seed=seeds[b], chunk_size=n, threads=1,
                                log_matches=log)
            rows = slice(start, start + n)
            start += n
            for name in ("match", "player", "drafted", "column"):
                assert np.array_equal(getattr(got, name)[rows], getattr(want, name)), (b, name)
            for name in ("counts", "categories", "time", "disruptors"):
                assert np.array_equal(getattr(got, name)[b], getattr(want, name)), (b, name)
            # the log is the one play_matches writes, matches numbered within the batch
            assert np.array_equal(got.events[b], want.events), b
            assert got.events_lost[b] == want.events_lost == 0
        assert all(e.shape[0] == 0 for e in got.events) == (log_mask is None)
    assert {int(m) for m in got.events[2][:, 0]} == {4, 11}
    with pytest.raises(ValueError, match="log_mask"):
        play_batches(s, tables, which, sizes, seeds, log_mask=np.zeros(3, np.int8))
    with pytest.raises(ValueError, match="one entry per batch"):
        play_batches(s, tables, [0], sizes, seeds)
    with pytest.raises(ValueError, match="positive"):
        play_batches(s, tables, [0, 0], [3, 0], [1, 2])
    # rows and slots: the engine writes each match's rows where the caller wants them and
    # adds each batch's counters into its slot (a runner's chunk sums its rotations'
    # batches): the same numbers as the copies a caller made after the call
    rows = np.random.default_rng(4).permutation(sum(sizes))
    slots = [1, 0, 1, 2]
    placed = play_batches(s, tables, which, sizes, seeds, log_mask=mask, rows=rows,
                          slots=slots)
    for name in ("match", "player", "drafted", "column"):
        assert np.array_equal(getattr(placed, name)[rows], getattr(got, name)), name
    for name in ("counts", "categories", "time", "disruptors"):
        want = np.stack([getattr(got, name)[[b for b, k in enumerate(slots) if k == slot]]
                         .sum(axis=0) for slot in range(3)])
        assert np.array_equal(getattr(placed, name), want), name
    assert all(np.array_equal(a, b) for a, b in zip(placed.events, got.events, strict=True))
    with pytest.raises(ValueError, match="permutation"):
        play_batches(s, tables, which, sizes, seeds, rows=np.zeros(sum(sizes), np.int64))
    with pytest.raises(ValueError, match="one thread"):
        play_batches(s, tables, which, sizes, seeds, slots=slots, threads=2)


def test_seeds_computed_at_once_are_numpys_seed_sequence_word_for_word():
    # the runner seeds a part's 200 batches at once (rng.sequence_words, numpy's algorithm
    # redone over arrays): every word must be SeedSequence's own, for seeds of one and two
    # 32-bit words and spawn keys of any length, or every run would change
    from nop_sim.kernels.rng import seed_states, sequence_words, spawned_states
    from nop_sim.run.planning import chunk_seed, chunk_seeds

    rng = np.random.default_rng(2)
    entropy = np.concatenate([rng.integers(0, 2**63, 120, dtype=np.uint64),
                              rng.integers(0, 2**32, 40, dtype=np.uint64),
                              np.array([0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1],
                                       np.uint64)])
    for k in (1, 2, 3):
        key = rng.integers(0, 2**32, (entropy.size, k), dtype=np.uint64)
        key[:4] = 0
        key[4:8] = 2**32 - 1
        for n_words in (1, 4):
            want = np.stack([np.random.SeedSequence(int(e), spawn_key=tuple(map(int, kk)))
                             .generate_state(n_words, np.uint64)
                             for e, kk in zip(entropy, key, strict=True)])
            assert np.array_equal(sequence_words(entropy, key, n_words), want), (k, n_words)
    seeds = entropy[entropy < 2**63]
    assert np.array_equal(spawned_states(seeds),
                          np.concatenate([seed_states(int(s), 1) for s in seeds]))
    for seed, point in [(0, 0), (7, 3), (2**63 - 1, 1), (2**32 + 5, 0)]:
        assert chunk_seeds(seed, point, np.arange(50)).tolist() == [
            chunk_seed(seed, point, i) for i in range(50)]
    with pytest.raises(ValueError, match="spawn_key"):
        sequence_words(entropy[:2], np.zeros((2, 0), np.uint64), 1)


def test_max_hands_cap_flags_unresolved():
    r = play_matches(Settings(max_hands=5), "station", n_matches=6, seed=3, check=True)
    assert (r.match[:, T.M_HANDS] == 5).all()
    assert (r.match[:, T.M_UNRESOLVED] == 1).all()
    assert r.count("unresolved") == 6
    _assert_sound(r)
    # the recorded winner is the chip leader
    chips = r.player[:, :, T.PL_FINAL_CHIPS]
    assert (chips[np.arange(6), r.match[:, T.M_WINNER]] == chips.max(axis=1)).all()


def test_bluffs_are_the_bets_and_raises_the_strength_alone_would_not_make():
    s = Settings(max_hands=60)
    # never strong enough to bet: every bet and raise is a bluff
    always = play_matches(s, {"preset": "balanced", "bet_threshold": 2.0, "bluff": 0.5},
                          n_matches=8, seed=6)
    assert always.count("bluffs") == always.count("bets") + always.count("raises") > 0
    # never bluffing, or always strong enough: none is
    for agent in ({"preset": "balanced", "bluff": 0.0},
                  {"preset": "balanced", "bet_threshold": 0.0, "noise": 0.0, "bluff": 1.0}):
        r = play_matches(s, agent, n_matches=8, seed=6)
        assert r.count("bluffs") == 0 < r.count("bets")
    # a mixed table: some are, counted by seat too, and a rock never bluffs
    mixed = play_matches(s, ["balanced", "maniac", "rock", "hedger"], n_matches=8, seed=6)
    by_seat = mixed.player[:, :4, T.PL_BLUFFS].sum(axis=0)
    assert 0 < mixed.count("bluffs") < mixed.count("bets") + mixed.count("raises")
    assert by_seat.sum() == mixed.count("bluffs") and by_seat[2] == 0


def test_no_disruptors_means_no_drafts():
    r = play_matches(Settings(disruptors="none", max_hands=200), "random", n_matches=6, seed=4)
    assert r.drafted.sum() == 0 and r.disruptors.sum() == 0


def test_frozen_market_blocks_manipulation():
    s = Settings(disruptors={"frozen_market": 30}, max_hands=200)
    r = play_matches(s, "random", n_matches=8, seed=5, check=True)
    free = play_matches(Settings(disruptors="none", max_hands=200), "random", n_matches=8,
                        seed=5)
    per_hand = r.count("manipulations") / r.count("hands")
    assert per_hand < 0.5 * free.count("manipulations") / free.count("hands")


# every one of the 25 effects, forced on: a mix holding only that card
EFFECT_SIGNS = {
    "windfall": lambda r: r.match[:, T.M_BANK_IN].sum() > 0,
    "safety_net": lambda r: r.player[:, :, T.PL_SAFETY_SAVES].sum() > 0,
    "deuces_wild": lambda r: r.count("wild_hands") > 0,
    "wild_deuces": lambda r: r.count("wild_hands") > 0,
    "inversion": lambda r: r.count("inverted_hands") > 0,
    "elevator": lambda r: r.count("elevated_wins") > 0,
}


@pytest.mark.parametrize("card", T.DISRUPTOR_IDS)
def test_every_effect_is_reached(card):
    s = Settings(disruptors={card: 12}, max_hands=300)
    r = play_matches(s, "random", n_matches=10, seed=9, check=True)
    _assert_sound(r)
    i = T.DISRUPTOR_IDS.index(card)
    assert r.disruptors[T.DS_PICKS, i] > 0
    assert r.disruptors[T.DS_APPLIED, i] > 0
    assert r.drafted[:, :, i].sum() == r.disruptors[T.DS_PICKS, i]
    if card in EFFECT_SIGNS:
        assert EFFECT_SIGNS[card](r), card


def test_bad_input_is_one_clear_error():
    with pytest.raises(SettingsError, match="players"):
        play_matches(Settings().replace(players=9))
    with pytest.raises(AgentError, match="preset"):
        play_matches(Settings(), "shark", n_matches=1)
    with pytest.raises(AgentError, match="one per seat"):
        play_matches(Settings(players=3), ["rock", "rock"], n_matches=1)
    with pytest.raises(ValueError, match="n_matches"):
        play_matches(Settings(), n_matches=0)


def test_the_engine_plays_a_table_per_match_as_it_plays_one_table_per_call():
    settings = Settings(players=3, max_hands=12)
    a = np.stack([agent_row(r) for r in ("rock", "hedger", "maniac")])
    tables = np.stack([a[[0, 1, 2]], a[[2, 2, 1]]])
    # play_matches: table_of all 1 is the second table given as the agents
    one = play_matches(settings, ["maniac", "maniac", "hedger"], 9, seed=4, chunk_size=3)
    per = play_matches(settings, tables, 9, seed=4, chunk_size=3, table_of=np.ones(9, int))
    for name in ("match", "player", "drafted", "column", "counts", "time"):
        np.testing.assert_array_equal(getattr(one, name), getattr(per, name), err_msg=name)
    # a table per match: match i (its own chunk) plays as in a call with its table alone
    table_of = np.array([0, 1, 1, 0, 1, 0, 0, 1, 1])
    mixed = play_matches(settings, tables, 9, seed=4, chunk_size=1, table_of=table_of)
    for t, specs in enumerate((["rock", "hedger", "maniac"], ["maniac", "maniac", "hedger"])):
        alone = play_matches(settings, specs, 9, seed=4, chunk_size=1)
        at = table_of == t
        for name in ("match", "player", "drafted", "column"):
            np.testing.assert_array_equal(getattr(mixed, name)[at], getattr(alone, name)[at])
    # play_batches: table_of equal to each batch's table changes nothing
    sizes, seeds, which = [4, 5], [11, 12], [1, 0]
    by_batch = play_batches(settings, tables, which, sizes, seeds)
    by_match = play_batches(settings, tables, which, sizes, seeds,
                            table_of=np.repeat(which, sizes))
    for name in ("match", "player", "drafted", "column", "counts", "time", "disruptors"):
        np.testing.assert_array_equal(getattr(by_batch, name), getattr(by_match, name))
    with pytest.raises(ValueError, match="table_of"):
        play_batches(settings, tables, which, sizes, seeds, table_of=np.full(9, 2))
    with pytest.raises(ValueError, match="table_of"):
        play_matches(settings, tables, 9, table_of=np.zeros(8, int))


def test_logged_rows_are_scattered_into_columns_at_their_places():
    # the event log's store (chunks._events_frame) puts each piece of rows into its
    # columns with this kernel: NumPy's transpose and take are the reference, for a subset
    # of rows in any order, put piece by piece
    from nop_sim.games.new_order.kernels.eventlog import scatter_columns

    rng = np.random.default_rng(3)
    rows = rng.integers(-1, 1 << 40, size=(1000, T.EV_WIDTH))
    order = rng.permutation(1000)[:700].astype(np.int64)   # the rows kept, in their order
    dest = np.full(1000, -1, np.int64)
    dest[order] = np.arange(order.size)
    out = np.full((T.EV_WIDTH, order.size), -7, np.int64)
    for a, b in ((0, 300), (300, 301), (301, 1000)):
        scatter_columns(np.ascontiguousarray(rows[a:b]), dest[a:b], out)
    assert np.array_equal(out, np.take(rows.T, order, axis=1))
