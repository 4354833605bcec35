"""Training through the Game interface: every game that declares a policy space trains.

Parametrized over the registry (OpenSpiel's games_sim_test): each trainable game
trains for a tiny budget from one of its scenarios, and what it writes is checked
as a user meets it: ``strong.toml`` read back by the game's own agent-file hook and
seated in a run, the stated exploitability line printed. Oracles for Ordered Hand's
policy: its fixed answers to a Bet are corners of the parameterised one (the same
games, bit for bit), a mixture of two copies of one agent plays as that agent, and
where the advanced rules are off no mechanic of the Bet can be worth anything.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.games import registered_games
from nop_sim.games.registry import SeatFile
from nop_sim.run.scenario import load_scenario

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
TRAINABLE = [g for g in registered_games() if g.trainable]


def _scenario_of(kind: str) -> Path:
    """The first scenario file of the game with one rule set (no [sweep])."""
    for path in sorted(SCENARIOS.glob("*.toml")):
        scn = load_scenario(path)
        if scn.kind == kind and len(scn.points()) == 1 and not scn.agent_files:
            return path
    raise AssertionError(f"no scenario of {kind!r} without a sweep in {SCENARIOS}")


def test_policy_spaces_are_consistent():
    """Each declared space: bounds over its names, legal pins, mechanics of known names."""
    assert TRAINABLE, "no game declares a policy space"
    for game in TRAINABLE:
        p = game.policy
        lo, hi = p.bounds()
        assert lo.shape == hi.shape == (len(p.names),) and (lo <= hi).all(), game.kind
        scn = load_scenario(_scenario_of(game.kind))
        assert set(p.searched(scn.settings_at(scn.points()[0]))) <= set(p.names)
        for pins in [p.fixed, *p.mechanics.values()]:
            for name, value in pins.items():
                i = p.names.index(name)
                assert lo[i] <= value <= hi[i], (game.kind, name, value)
        for name in p.presets():
            assert p.agent_row(name).shape == (len(p.names),)


@pytest.mark.parametrize("game", TRAINABLE, ids=lambda g: g.kind)
def test_every_trainable_game_trains_and_its_strong_field_seats(game, tmp_path):
    scenario = _scenario_of(game.kind)
    out = tmp_path / "train"
    runner = CliRunner()
    r = runner.invoke(main, ["train", str(scenario), "--method", "psro", "--budget-matches",
                             "3000", "--out",
                             str(out), "--no-report", "-q", "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert "exploitability: " in r.output and "-match search from " in r.output, r.output
    strong = out / "strong.toml"
    # the game's own agent-file hook reads it; every row is an agent of the game
    f = game.agent_file(strong)
    assert len(f.rows) >= 1 and abs(sum(f.weights) - 1) < 1e-9
    for row in f.rows:
        game.policy.agent_row(row)
    assert f.training["exploitability_is"].startswith("a lower bound")
    # its seats accept it, and a run plays it
    scn = load_scenario(scenario, overrides=[f"seats.all=@{strong}"])
    specs = scn.seat_specs(scn.points()[0], 0)
    assert all(isinstance(s, SeatFile) for s in specs)
    game.check_seats(specs, scn.settings_at(scn.points()[0]).players)
    r = runner.invoke(main, ["run", str(scenario), "--set", f"seats.all=@{strong}",
                             "--matches", "16", "--set", "run.chunk=16", "--out",
                             str(tmp_path / "run"), "-q", "--no-report"])
    assert r.exit_code == 0, r.output
    assert "trained(" in r.output


# -- Ordered Hand's policy ------------------------------------------------------------------
def test_ordered_hand_constants_match_the_kernel():
    from nop_sim.games.ordered_hand import policy as P
    from nop_sim.games.ordered_hand.kernels import play as K

    assert [getattr(K, f"A_{n.upper()}") for n in P.NAMES] == list(range(K.N_AGENT_PARAMS))
    assert (P.PLAY_LOW, P.PLAY_STRONG) == (K.PLAY_LOW, K.PLAY_STRONG)
    assert (P.INSERT_RANDOM, P.INSERT_BUILDER) == (K.INSERT_RANDOM, K.INSERT_BUILDER)
    assert (P.RESPOND_RANDOM, P.RESPOND_CHANCE) == (K.RESPOND_RANDOM, K.RESPOND_CHANCE)


@pytest.mark.parametrize("respond, chance", [
    ("raise_else_call", (1.0, 1.0, True)),
    ("raise_else_fold", (1.0, 0.0, False)),
    ("fold", (0.0, 0.0, False)),
])
def test_fixed_answers_are_corners_of_the_chance_answer(respond, chance):
    """The same games bit for bit: presets keep their play, and a search over the
    chance answer holds every fixed one."""
    from nop_sim.games.ordered_hand import OrderedSettings, play_matches
    from nop_sim.games.ordered_hand.agents import OrderedAgent
    from nop_sim.games.ordered_hand.kernels import play as K

    s = OrderedSettings(players=2, betting=True)
    fixed = OrderedAgent(play="low", insert="builder", respond=respond)
    raise_prob, call_prob, call_move = chance
    param = OrderedAgent(play="low", insert="builder", respond="chance", raise_prob=raise_prob,
                         call_prob=call_prob, call_move=call_move)
    a = play_matches(s, ["bettor", fixed], 600, seed=5).games
    b = play_matches(s, ["bettor", param], 600, seed=5).games
    assert np.array_equal(a, b)
    # the fixed answer's row carries its corner: pinned to "chance" it plays the same
    others = [i for i in range(K.N_AGENT_PARAMS) if i != K.A_RESPOND]
    assert np.array_equal(fixed.row()[others], param.row()[others])


def test_a_mixture_of_one_agent_twice_plays_as_that_agent():
    from nop_sim.games.ordered_hand import OrderedSettings, play_matches
    from nop_sim.games.ordered_hand.policy import play_seats

    s = OrderedSettings(players=3)
    twice = SeatFile({}, given="m", path="m", label="trained(m)", training={},
                     rows=[{"preset": "builder"}, {"preset": "builder"}], weights=[1, 3])
    mixed = play_seats(s, [twice, "low", "high"], 300, seed=9).games
    plain = play_matches(s, ["builder", "low", "high"], 300, seed=9, workers=1).games
    assert np.array_equal(mixed, plain)


def test_ordered_hand_play_field_never_depends_on_threads():
    from nop_sim.games.ordered_hand import OrderedSettings
    from nop_sim.games.ordered_hand.policy import agent_row, play_field
    from nop_sim.kernels.rng import keyed_states

    s = OrderedSettings(players=2, betting=True)
    tables = np.stack([np.stack([agent_row("bettor"), agent_row("raiser")]),
                       np.stack([agent_row("raiser"), agent_row("random")])])
    table_of = np.arange(200) % 2
    states = keyed_states((4,), 200)
    one = play_field(s, tables, table_of, states, threads=1)
    two = play_field(s, tables, table_of, states, threads=2)
    assert np.array_equal(one.place, two.place) and np.array_equal(one.work, two.work)
    # a match is its table and its state: played alone it is the same
    alone = play_field(s, tables, table_of[7:8], states[7:8])
    assert np.array_equal(alone.place[0], one.place[7])


def test_a_mechanic_of_the_bet_is_worth_nothing_without_the_advanced_rules(tmp_path):
    """Without betting no Bet is made, so raising cannot matter: its value holds 0."""
    from nop_sim.studies.train import TrainConfig, train_folder
    from nop_sim.studies.train.value import value_folder

    scn = load_scenario(_scenario_of("ordered-hand"))
    assert not scn.settings_at(scn.points()[0]).betting
    train_folder(scn, tmp_path, TrainConfig(budget=3000, seed=1), threads=1)
    table, _, _ = value_folder(scn, tmp_path, ["raising"], budget=6000, threads=1)
    row = table.iloc[0]
    assert row["loss_low"] <= 0 <= row["loss_high"]
