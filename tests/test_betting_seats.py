"""Agent files that name a betting table (``[betting] table = "..."``): the file format
and its errors, the seat a scenario reads (the table loaded once, pickled with it)."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
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
from nop_sim.run.scenario import load_scenario

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
