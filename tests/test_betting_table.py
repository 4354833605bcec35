"""A seat that plays its betting decisions from a table over the abstraction (issue 39,
step 1): the kernel's information sets against a plain-Python reading of the log, the
legal actions, the probabilities and their trace, the referee on such games, and seats
without a table exactly as before."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nop_sim.games.new_order.abstraction import (
    TRACE_COLUMNS,
    Abstraction,
    AbstractionError,
    BettingTables,
    read_table,
    write_table,
)
from nop_sim.games.new_order.engine import play_batches, play_field, play_matches
from nop_sim.games.new_order.history import to_records
from nop_sim.games.new_order.referee import check_results
from nop_sim.games.new_order.referee.match import _Referee
from nop_sim.games.new_order.settings import Settings
from nop_sim.run.scenario import Scenario, ScenarioError
from tests.reference import betting_infoset

COL = {name: i for i, name in enumerate(TRACE_COLUMNS)}
STRUCTURES = ("limit", "pot-limit", "no-limit")


def _play(betting, structure="limit", agents="balanced", n=24, seed=5, rules=None, **kw):
    s = Settings().replace(max_hands=60, betting=structure, players=4, **(rules or {}))
    return play_matches(s, agents, n_matches=n, seed=seed, chunk_size=8, betting=betting,
                        **kw)


def _trace(r) -> dict[str, np.ndarray]:
    return {name: r.trace[:, i] for name, i in COL.items()}


class _Watch(_Referee):
    """The referee, noting what each betting decision of ``seat`` saw before its turn's
    promotions and action changed the pot (the kernel decides before either)."""

    def __init__(self, settings, seat, seen):
        super().__init__(settings)
        self.seat, self.seen = seat, seen

    def _note(self, r):
        h = self.h
        if r["seat"] != self.seat or h.turn_promotions:
            return  # not the seat, or a later event of a turn already noted
        p = self.seat
        others = [self.start_chips[q] for q in range(self.n)
                  if q != p and h.in_hand[q] and not h.folded[q]]
        self.seen.append((r["match"], r["hand"], h.rnd, max(h.level - h.round_bet[p], 0),
                          self.pot_total(), self.start_chips[p], others))

    def promote(self, r):
        self._note(r)
        super().promote(r)

    def action(self, r):
        self._note(r)
        super().action(r)


def _seen_by_referee(r, seat):
    seen, ref = [], None
    for rec in to_records(r.events):
        if rec["event"] == "match_start":
            ref = _Watch(r.settings, seat, seen)
        ref.event(rec)
    return seen


@pytest.mark.parametrize("structure", STRUCTURES)
def test_infoset_matches_the_reference_on_logged_decisions(structure):
    a = Abstraction(strength_buckets=7, odds_buckets=4, stack_buckets=4, bet_sizes=(0.5, 1.5))
    bt = BettingTables(a, a.new_table(1.0)[None], (0, -1, 0, -1), trace_seat=0)
    r = _play(bt, structure, log_every=1, log_capacity=2_000_000, check=True)
    assert check_results(r) == r.n_matches  # the referee accepts every game
    assert r.trace_lost == 0 and r.count("invariant_errors") == 0
    t = _trace(r)
    assert (t["seat"] == 0).all() and len(t["seat"]) > 100
    seen = _seen_by_referee(r, 0)
    assert len(seen) == len(t["seat"])  # one traced decision per turn of the seat
    for i, (match, hand, rnd, to_call, pot, own, others) in enumerate(seen):
        assert (t["match"][i], t["hand"][i]) == (match, hand)
        assert t["infoset"][i] == betting_infoset(a, rnd, to_call, pot, t["strength"][i], own,
                                                  others), f"decision {i}"
    # each traced row holds the seat's result of its hand, as the log's chips say
    chips, result = {}, {}
    for rec in to_records(r.events):
        if rec["event"] == "match_start":
            chips[rec["match"]] = rec["chips"]
        elif rec["event"] == "hand_end":
            result[rec["match"], rec["hand"]] = rec["chips"][0] - chips[rec["match"]]
            chips[rec["match"]] = rec["chips"][0]
    assert [result[int(m), int(h)] for m, h in zip(t["match"], t["hand"], strict=True)] \
        == t["payoff"].tolist()
    assert (t["payoff"] != 0).any()
    # every bucket of every digit is reached somewhere, and the index stays in range
    assert t["infoset"].min() >= 0 and t["infoset"].max() < a.n_infosets
    assert len(np.unique(t["infoset"])) > 30


@pytest.mark.parametrize("structure", STRUCTURES)
def test_all_weight_on_check_call_never_folds_or_bets(structure):
    a = Abstraction()
    table = a.new_table()
    table[:, 1] = 1.0
    table[:, 0] = -5.0  # a negative weight is no weight
    bt = BettingTables(a, table[None], (-1, 0, -1, -1), trace_seat=1)
    r = _play(bt, structure, agents=["maniac", "balanced", "random", "rock"], log_every=1,
              log_capacity=2_000_000, check=True)
    assert check_results(r) == r.n_matches
    acts = [rec["action"] for rec in to_records(r.events)
            if rec["event"] == "action" and rec["seat"] == 1]
    assert len(acts) > 100 and set(acts) <= {"check", "call"}
    assert {"check", "call"} <= set(acts)
    t = _trace(r)
    assert (t["action"] == 1).all() and (t["policy_p"] == 1.0).all()
    others = {rec["action"] for rec in to_records(r.events) if rec["event"] == "action"
              and rec["seat"] != 1}
    assert {"fold", "bet", "raise"} <= others  # the others still play their rows


def _legal(mask: int) -> list[int]:
    return [a for a in range(8) if (mask >> a) & 1]


@pytest.mark.parametrize("structure", STRUCTURES)
def test_a_uniform_table_plays_each_legal_action_equally_often(structure):
    a = Abstraction(bet_sizes=(0.5, 1.0, 2.0))
    bt = BettingTables(a, a.new_table()[None], (0, 0, 0, 0), trace_seat=2)
    # without Disruptors: the no_limit card would make a limit match's hand no-limit
    rules = {"disruptors": "none"} if structure == "limit" else None
    t = _trace(_play(bt, structure, n=64, rules=rules))
    for mask in np.unique(t["legal"]).astype(int):
        legal = _legal(mask)
        assert 1 in legal and (0 in legal) == (mask & 1 == 1)
        if structure == "limit":
            assert not {3, 4} & set(legal)  # one fixed bet
        rows = t["legal"] == mask
        n = int(rows.sum())
        counts = np.bincount(t["action"][rows].astype(int), minlength=8)
        assert counts[[x for x in range(8) if x not in legal]].sum() == 0
        p = 1 / len(legal)
        assert np.allclose(t["policy_p"][rows], p) and np.allclose(t["sample_p"][rows], p)
        half = 4.5 * math.sqrt(n * p * (1 - p))  # a binomial interval, 4.5 sigma
        for x in legal:
            assert abs(counts[x] - n * p) <= half + 1, (structure, mask, x, counts, n)
    if structure != "limit":
        assert (t["legal"].astype(int) & 0b11100 == 0b11100).any()  # all three sizes offered


def test_trace_gives_the_tables_normalised_weights():
    a = Abstraction()
    rng = np.random.default_rng(7)
    table = rng.normal(size=(a.n_infosets, a.n_actions))
    table[rng.random(a.n_infosets) < 0.2] = -1.0  # rows with no positive weight: uniform
    eps = 0.3
    bt = BettingTables(a, np.stack([a.new_table(), table]), (1, 0, -1, -1), trace_seat=0,
                       epsilon=eps)
    t = _trace(_play(bt, "no-limit"))
    assert len(t["seat"]) > 100
    for i in range(len(t["seat"])):
        legal = _legal(int(t["legal"][i]))
        w = np.maximum(table[int(t["infoset"][i]), legal], 0.0)
        sigma = w / w.sum() if w.sum() > 0 else np.full(len(legal), 1 / len(legal))
        k = legal.index(int(t["action"][i]))
        assert t["policy_p"][i] == pytest.approx(sigma[k], rel=1e-12, abs=1e-15)
        assert t["sample_p"][i] == pytest.approx(eps / len(legal) + (1 - eps) * sigma[k],
                                                 rel=1e-12)
        assert sigma[k] > 0 or eps > 0


def test_seats_without_a_table_play_exactly_as_before():
    a = Abstraction()
    s = Settings().replace(max_hands=80)
    plain = play_matches(s, "balanced", n_matches=16, seed=3, chunk_size=8)
    untabled = play_matches(s, "balanced", n_matches=16, seed=3, chunk_size=8,
                            betting=BettingTables(a, a.new_table()[None], (-1,) * 4))
    for name in ("match", "player", "drafted", "column", "counts", "time", "disruptors"):
        assert np.array_equal(getattr(plain, name), getattr(untabled, name)), name
    assert untabled.trace.shape == (0, len(TRACE_COLUMNS))
    # a table at one seat changes that seat's play, not the cards' stream of a split-stream
    # match before its first decision: the field plays it with streams as the trainer will
    states = np.array([[1, 2, 3, 4]], np.uint64)
    from nop_sim.games.new_order.agents import agent_table

    field = play_field(s, agent_table("balanced", 4)[None], np.zeros(1, np.int64), states,
                       streams=True, threads=1,
                       betting=BettingTables(a, a.new_table()[None], (0, -1, -1, -1),
                                             trace_seat=0))
    assert field.trace.shape[0] > 0 and (field.trace[:, COL["seat"]] == 0).all()


def test_each_agent_table_seats_its_own_tabular_seats():
    """A call of two agent tables whose seat_table differs per agent table (table 0: a
    tabular seat 0, table 1: a tabular seat 2) plays exactly what a call per agent table
    plays: match m reads its agent table's row of seat_table."""
    from nop_sim.games.new_order.agents import agent_table
    from nop_sim.games.new_order.engine import match_states

    a = Abstraction(strength_buckets=4, odds_buckets=2, stack_buckets=1)
    rng = np.random.default_rng(7)
    policies = rng.normal(size=(2, a.n_infosets, a.n_actions))
    s = Settings().replace(max_hands=60, players=4)
    agents = np.stack([agent_table("balanced", 4), agent_table(["rock", "maniac", "balanced",
                                                                "random"], 4)])
    n = 12
    table_of = np.arange(n, dtype=np.int64) % 2
    states = match_states(11, n)
    seats = np.array([[0, -1, -1, -1], [-1, -1, 1, -1]])
    both = play_field(s, agents, table_of, states, threads=1,
                      betting=BettingTables(a, policies, seats))
    for k in range(2):
        mine = table_of == k
        alone = play_field(s, agents[k:k + 1], np.zeros(mine.sum(), np.int64), states[mine],
                           threads=1, betting=BettingTables(a, policies, tuple(seats[k])))
        assert np.array_equal(both.match[mine], alone.match), k
        assert np.array_equal(both.player[mine], alone.player), k
    # and the tables change play: without them the same matches differ
    plain = play_field(s, agents, table_of, states, threads=1)
    assert not np.array_equal(plain.player, both.player)
    # play_batches reads the same per-table seats
    batches = play_batches(s, agents, [0] * n, [1] * n, [0] * n, table_of=table_of,
                           betting=BettingTables(a, policies, seats))
    ref = play_batches(s, agents, [0] * n, [1] * n, [0] * n, table_of=table_of)
    assert batches.player.shape == ref.player.shape
    assert not np.array_equal(batches.player, ref.player)
    with pytest.raises(AbstractionError, match=r"one row per agent table \(2, 4\)"):
        BettingTables(a, policies, seats[:, :3]).arrays(4, 2)


def test_tables_of_the_wrong_shape_or_seats_are_refused():
    a = Abstraction()
    with pytest.raises(AbstractionError, match="540, 4"):
        BettingTables(a, np.zeros((1, 10, 4)), (0,) * 4).arrays(4)
    with pytest.raises(AbstractionError, match="one entry per seat"):
        BettingTables(a, a.new_table(), (0, 0)).arrays(4)
    with pytest.raises(AbstractionError, match="plays no table"):
        BettingTables(a, a.new_table(), (0, -1, -1, -1), trace_seat=1).arrays(4)
    with pytest.raises(AbstractionError, match="NaN"):
        BettingTables(a, a.new_table(np.nan), (0,) * 4).arrays(4)


def test_the_default_abstraction_states_its_size():
    a = Abstraction()
    assert (a.n_infosets, a.n_actions, a.size) == (540, 4, 2160)
    assert "540 information sets" in a.describe() and "2,160 weights" in a.describe()
    assert a.infoset(2, 1, 9, 2, 2) == a.n_infosets - 1
    assert Abstraction.from_train(a.to_train()) == a


@pytest.mark.parametrize("train, words", [
    ({"strength_buckets": 0}, "[train] strength_buckets = 0 is not allowed: use an integer "
                              "from 1 to 100"),
    ({"odds_buckets": 2.5}, "[train] odds_buckets = 2.5 is not allowed"),
    ({"stack_buckets": True}, "[train] stack_buckets = True is not allowed"),
    ({"bet_sizes": [1.0, 0.5]}, "the sizes must increase"),
    ({"bet_sizes": [0.0, 1.0]}, "above 0"),
    ({"bet_sizes": []}, "give 1 to 3 pot fractions"),
    ({"bet_sizes": [0.5, 1, 2, 3]}, "give 1 to 3 pot fractions"),
    ({"bet_sizes": "pot"}, "use a list of pot fractions"),
    ({"strenght_buckets": 5}, "unknown key 'strenght_buckets'"),
])
def test_bad_train_values_get_one_clear_line(train, words):
    with pytest.raises(ScenarioError) as err:
        Scenario.from_mapping({"train": train}, source="x.toml")
    message = str(err.value)
    assert message.startswith("x.toml: [train]") and words in message
    assert "\n" not in message


def test_train_table_defaults_and_games_without_one():
    scn = Scenario.from_mapping({"train": {"bet_sizes": [0.33, 0.75, 1.5]}}, source="x.toml")
    assert scn.train.abstraction == Abstraction(bet_sizes=(0.33, 0.75, 1.5))
    assert Scenario.from_mapping({}, source="x.toml").train.abstraction == Abstraction()
    assert (Scenario.from_mapping({"train": {"odds_buckets": 5}}).fingerprint()
            == Scenario.from_mapping({}).fingerprint())  # what a trainer learns over
    with pytest.raises(ScenarioError, match=r"x.toml: \[train\]: the .* game has no training"):
        Scenario.from_mapping({"game": {"kind": "kuhn3"}, "train": {"odds_buckets": 5}},
                              source="x.toml")


def test_a_table_file_round_trips_and_names_a_mismatch(tmp_path):
    a = Abstraction(strength_buckets=5, bet_sizes=(0.4, 1.2))
    table = np.random.default_rng(1).normal(size=(a.n_infosets, a.n_actions))
    path = write_table(tmp_path / "strong-table.npz", a, table)
    back, weights = read_table(path, expected=a)
    assert back == a and np.array_equal(weights, table)
    with pytest.raises(AbstractionError, match=r"strong-table.npz: the table is over another "
                                               r"abstraction .*strength_buckets = 5.* than "
                                               r"\[train\] gives .*strength_buckets = 10"):
        read_table(path, expected=Abstraction())
    (tmp_path / "junk.npz").write_text("no table")
    with pytest.raises(AbstractionError, match="junk.npz: not a betting table"):
        read_table(tmp_path / "junk.npz")
