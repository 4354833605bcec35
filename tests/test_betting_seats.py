"""Agent files that name a betting table (``[betting] table = "..."``): the file format
and its errors, the seat a scenario reads (the table loaded once, pickled with it), and
runs in which such a seat plays its betting decisions from the table, alike on any
worker count.

Oracles: a table that always folds when facing a bet, against the same row without the
table (it must win clearly fewer matches); the same run on one and two workers.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nop_sim.games import SeatFile
from nop_sim.games.agent_files import read_rows
from nop_sim.games.new_order.abstraction import Abstraction, write_table
from nop_sim.games.new_order.agents import (
    AgentError,
    agent_row,
    read_agent_file,
    write_agent_file,
)
from nop_sim.games.new_order.seats import seat_betting
from nop_sim.results.store import load_tables
from nop_sim.run.runner import run_scenario
from nop_sim.run.scenario import ScenarioError, load_scenario

ROW = {"preset": "balanced"}
SMALL = Abstraction(strength_buckets=3, odds_buckets=2, stack_buckets=1)

SCENARIO = """
name = "tabular"
[game]
players = 3
max_hands = 60
[seats]
{seats}
[run]
matches = {matches}
chunk = 10
seed = 3
"""


def fold_table(a: Abstraction = SMALL) -> np.ndarray:
    """The seat folds whenever it faces a bet (all weight on fold) and checks otherwise
    (fold is not legal there: all weight on check, or it would bet with the uniform
    weights the others get, and win pots by it)."""
    table = a.new_table()
    by_facing = table.reshape(3, 2, -1, a.n_actions)  # phase, facing a bet, the rest
    by_facing[:, 0, :, 1] = 1.0
    by_facing[:, 1, :, 0] = 1.0
    return table


def tabular_file(folder: Path, name: str = "fold", table: np.ndarray | None = None,
                 a: Abstraction = SMALL) -> Path:
    write_table(folder / f"{name}_table.npz", a, fold_table(a) if table is None else table)
    return write_agent_file(folder / f"{name}.toml", [ROW], [1.0], {},
                            betting={"table": f"{name}_table.npz"})


def scenario(folder: Path, seats: str, matches: int = 60, name: str = "s.toml") -> Path:
    path = folder / name
    path.write_text(SCENARIO.format(seats=seats, matches=matches))
    return path


# ---------------------------------------------------------------------------
# The file
# ---------------------------------------------------------------------------
def test_betting_table_round_trips_through_the_agent_file(tmp_path):
    path = tabular_file(tmp_path)
    assert '[betting]\ntable = "fold_table.npz"' in path.read_text()
    f = read_agent_file(path)
    assert f.betting_table == str(tmp_path / "fold_table.npz")
    train, weights = f.betting
    assert train == SMALL.to_train() and np.array_equal(weights, fold_table())
    assert f.rows == (ROW,)
    # a mixture names one too; a file without [betting] has none
    mix = write_agent_file(tmp_path / "mix.toml", [ROW, {"preset": "rock"}], [1, 2], {"a": 1},
                           betting={"table": "fold_table.npz"})
    m = read_agent_file(mix)
    assert m.is_mixture and m.betting_table == f.betting_table and m.training == {"a": 1}
    plain = read_agent_file(write_agent_file(tmp_path / "plain.toml", [ROW], [1.0], {}))
    assert plain.betting_table is None and plain.betting is None


@pytest.mark.parametrize("text, words", [
    ('[betting]\ntable = "t.npz"\nsize = 3\n',
     "[betting]: unknown key 'size'; the one key allowed is table"),
    ("[betting]\ntable = 3\n", "[betting] table = 3 is not allowed: give the betting table's "
                               "file name as text"),
    ('[betting]\ntable = "gone.npz"\n', "[betting] table = 'gone.npz': no file"),
    ('betting = "t.npz"\n', "[betting] must be a table"),
    ('[betting]\ntable = "junk.npz"\n', "[betting] table: "),
])
def test_a_bad_betting_table_is_one_line_naming_the_file(tmp_path, text, words):
    write_table(tmp_path / "t.npz", SMALL, fold_table())
    (tmp_path / "junk.npz").write_text("no table")
    path = tmp_path / "a.toml"
    path.write_text(text + '[agent]\npreset = "balanced"\n')
    with pytest.raises(AgentError) as err:
        read_agent_file(path)
    message = str(err.value)
    assert message.startswith(f"agent file {path}") and words in message, message
    assert "\n" not in message


def test_games_without_betting_tables_refuse_one(tmp_path):
    path = tmp_path / "a.toml"
    path.write_text('[agent]\npreset = "balanced"\n[betting]\ntable = "t.npz"\n')
    with pytest.raises(ValueError, match=r"a.toml: \[betting\]: this game's seats play no "
                                         r"betting tables"):
        read_rows(path, agent_row, ["x"])
    with pytest.raises(AgentError, match=r"betting = .* is not allowed"):
        write_agent_file(tmp_path / "b.toml", [ROW], [1.0], {}, betting={"file": "t.npz"})


# ---------------------------------------------------------------------------
# The seat
# ---------------------------------------------------------------------------
def test_a_seat_carries_its_table_and_pickles_with_it(tmp_path):
    tabular_file(tmp_path)
    scn = load_scenario(scenario(tmp_path, 'seat = ["@fold.toml", "balanced", "balanced"]'))
    seat = scn.seat_specs({}, 0)[0]
    assert isinstance(seat, SeatFile) and np.array_equal(seat.betting[1], fold_table())
    back = pickle.loads(pickle.dumps(seat))
    assert back == seat and back.betting_id == seat.betting_id
    assert np.array_equal(back.betting[1], seat.betting[1])
    record = seat.record()
    assert record["betting_table"] == seat.betting_table and record["betting_id"]
    # the table is part of what the seat plays: another table, another fingerprint
    before = scn.fingerprint()
    write_table(tmp_path / "fold_table.npz", SMALL, SMALL.new_table())
    assert load_scenario(tmp_path / "s.toml").fingerprint() != before
    # the engine's tables: the seat's table at its seat, one row per agent table
    bt = seat_betting([scn.seat_specs({}, 0)], np.zeros(2, np.int64))
    assert bt.abstraction == SMALL and bt.tables.shape == (1, SMALL.n_infosets, 4)
    assert bt.seat_table.tolist() == [[0, -1, -1], [0, -1, -1]]


def test_tables_over_two_abstractions_are_refused_naming_both(tmp_path):
    tabular_file(tmp_path, "one")
    tabular_file(tmp_path, "two", a=Abstraction())
    with pytest.raises(ScenarioError) as err:
        load_scenario(scenario(tmp_path, 'seat = ["@one.toml", "@two.toml", "balanced"]'))
    message = str(err.value)
    assert "two abstractions" in message and "one_table.npz" in message
    assert "two_table.npz" in message and "\n" not in message


# ---------------------------------------------------------------------------
# Runs
# ---------------------------------------------------------------------------
def _wins(out: Path, label: str) -> int:
    seats = load_tables(out, ["seats"])["seats"]
    mine = seats[seats["preset"] == label]
    assert len(mine)
    return int((mine["place"] == 1).sum())


def test_a_seat_that_always_folds_to_a_bet_wins_clearly_less(tmp_path, real_workers):
    tabular_file(tmp_path)
    write_agent_file(tmp_path / "plain.toml", [ROW], [1.0], {})
    # rotated: the tabular seat sits at every seat, so each agent table seats it elsewhere
    folds = load_scenario(scenario(tmp_path, 'rotate = ["@fold.toml", "balanced", "rock"]',
                                   name="fold-s.toml"))
    plain = load_scenario(scenario(tmp_path, 'rotate = ["@plain.toml", "balanced", "rock"]',
                                   name="plain-s.toml"))
    run_scenario(folds, tmp_path / "fold1", workers=1)
    run_scenario(plain, tmp_path / "plain1", workers=1)
    folded, played = _wins(tmp_path / "fold1", "trained(fold)"), _wins(tmp_path / "plain1",
                                                                        "trained(plain)")
    assert folded + 10 < played, (folded, played)
    # one worker or two: the same rows
    run_scenario(folds, tmp_path / "fold2", workers=2)
    for name in ("matches", "seats", "counts"):
        a, b = (load_tables(tmp_path / out, [name])[name] for out in ("fold1", "fold2"))
        keys = [c for c in ("point", "chunk", "match", "seat") if c in a.columns]
        pd.testing.assert_frame_equal(a.sort_values(keys).reset_index(drop=True),
                                      b.sort_values(keys).reset_index(drop=True), obj=name)


def test_a_mixture_with_a_table_plays_it_in_every_row_and_the_referee_agrees(tmp_path):
    from nop_sim.games.new_order.hands import referee

    write_table(tmp_path / "fold_table.npz", SMALL, fold_table())
    write_agent_file(tmp_path / "mix.toml", [ROW, {"preset": "rock"}], [1.0, 1.0], {},
                     betting={"table": "fold_table.npz"})
    write_agent_file(tmp_path / "plainmix.toml", [ROW, {"preset": "rock"}], [1.0, 1.0], {})
    wins = {}
    for name in ("mix", "plainmix"):
        scn = load_scenario(scenario(tmp_path, f'rotate = ["@{name}.toml", "balanced", '
                                               f'"maniac"]', name=f"{name}-s.toml"))
        run_scenario(scn, tmp_path / name, workers=1)
        seats = load_tables(tmp_path / name, ["seats"])["seats"]
        mine = seats[seats["preset"] == f"trained({name})"]
        assert set(mine["mix_row"]) == {0, 1}  # both rows drawn
        wins[name] = int((mine["place"] == 1).sum())
    assert wins["mix"] + 10 < wins["plainmix"], wins
    # the referee replays a tabular seat's logged matches and accepts every one
    scn = load_scenario(tmp_path / "mix-s.toml")
    point = scn.points()[0]
    assert referee(scn.settings_at(point), scn.seat_specs(point, 0), 6, 1) == 6


def test_an_independent_check_rewrites_strong_toml_and_keeps_its_table(tmp_path):
    from nop_sim.studies.train.value import record_check

    class Found:  # what nop-sim exploit's search returns, as far as the record reads
        matches, starts, gain, low, high = 1_000, 2, 0.6, 0.5, 0.7

    path = tabular_file(tmp_path, "strong")
    scn = load_scenario(scenario(tmp_path, 'all = "balanced"'))
    assert record_check(scn, tmp_path, Found(), 10_000)
    f = read_agent_file(path)
    assert f.training["checked_exploitability"] == 60.0
    assert f.betting_table == str(tmp_path / "strong_table.npz")
