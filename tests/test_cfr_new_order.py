"""New Order's regret trainer (nop_sim.games.new_order.cfr): its [train] keys, its
determinism, and that what it learns points the right way.

The updates themselves are checked exactly on three-player Kuhn poker
(tests/test_mccfr.py); here the oracle is the game's own logic: facing a bet, a
table that learned from chips won and lost folds its strongest hands far less often
than its weakest, and less than a uniform table would.
"""

from __future__ import annotations

import numpy as np
import pytest

from nop_sim.core.errors import AbstractionError
from nop_sim.games.new_order.abstraction import Abstraction
from nop_sim.games.new_order.agents import agent_row
from nop_sim.games.new_order.cfr import (
    TRAINER,
    CfrSettings,
    average_table,
    episodes,
    train_settings,
)
from nop_sim.games.new_order.settings import Settings
from nop_sim.run.scenario import Scenario, ScenarioError


def _train(iterations: int, matches: int = 20, seed: int = 1, threads: int = 1,
           state=None, **keys):
    cfg = train_settings({"matches": matches, **keys}, "[train]")
    s = Settings()
    st = TRAINER.new(s, cfg) if state is None else state
    return TRAINER.run(s, cfg, st, iterations, seed=seed, threads=threads)


def test_train_keys_default_and_read():
    cfg = train_settings({}, "[train]")
    assert cfg.abstraction == Abstraction() and cfg.base == "balanced"
    assert np.array_equal(cfg.base_row, agent_row("balanced"))
    assert (cfg.matches, cfg.exploration) == (200, 0.3)
    cfg = train_settings({"base": "rock", "matches": 7, "exploration": 0.5,
                          "strength_buckets": 4}, "[train]")
    assert cfg.base == "rock" and np.array_equal(cfg.base_row, agent_row("rock"))
    assert (cfg.matches, cfg.exploration, cfg.abstraction.strength_buckets) == (7, 0.5, 4)


@pytest.mark.parametrize("table, words", [
    ({"matchs": 3}, ["unknown key 'matchs'", "matches", "base", "strength_buckets"]),
    ({"matches": 0}, ["matches = 0", "1 to 100000"]),
    ({"matches": True}, ["matches = True"]),
    ({"exploration": 0}, ["exploration = 0", "above 0"]),
    ({"exploration": 1.5}, ["exploration = 1.5"]),
    ({"base": "rocky"}, ["base = 'rocky'", "rock"]),
    ({"base": 3}, ["base = 3", "preset name"]),
    ({"bet_sizes": [0.0]}, ["bet_sizes", "above 0"]),
])
def test_bad_train_keys_say_the_key_and_what_is_allowed(table, words):
    with pytest.raises(AbstractionError) as err:
        train_settings(table, "x.toml: [train]")
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith("x.toml: [train]")
    for w in words:
        assert w in msg


def test_scenario_base_names_an_agent_file_relative_to_the_scenario(tmp_path):
    from nop_sim.games.new_order.agents import write_agent_file

    (tmp_path / "fields").mkdir()
    write_agent_file(tmp_path / "fields" / "f.toml",
                     [agent_row("rock"), agent_row("hedger")], [0.25, 0.75], {}, "two rows")
    scn = Scenario.from_mapping({"train": {"base": "@fields/f.toml"}}, source="s.toml",
                                folder=tmp_path)
    assert isinstance(scn.train, CfrSettings)
    assert np.array_equal(scn.train.base_row, agent_row("hedger"))  # the heaviest row
    assert scn.train.base == "@fields/f.toml (row 1)"
    with pytest.raises(ScenarioError, match="base.*not found"):
        Scenario.from_mapping({"train": {"base": "@fields/none.toml"}}, source="s.toml",
                              folder=tmp_path)


def test_episodes_split_the_trace_by_match_and_hand():
    from nop_sim.games.new_order.abstraction import TRACE_COLUMNS

    tr = np.zeros((6, len(TRACE_COLUMNS)))
    col = {n: i for i, n in enumerate(TRACE_COLUMNS)}
    tr[:, col["match"]] = [0, 0, 0, 1, 1, 1]
    tr[:, col["hand"]] = [1, 1, 2, 2, 2, 3]
    assert episodes(tr).tolist() == [0, 2, 3, 5, 6]


def test_same_seed_same_table_on_one_or_two_threads_and_in_two_sittings():
    one = _train(4)
    two = _train(4, threads=2)
    halves = _train(4, state=_train(2))
    other = _train(4, seed=2)
    for k in one:
        assert np.array_equal(one[k], two[k]), k
        assert np.array_equal(one[k], halves[k]), k
    assert int(one["iteration"]) == 4 and int(one["decisions"]) > 0
    assert not np.array_equal(one["regret"], other["regret"])


def test_the_learned_table_folds_strong_hands_less_than_weak_ones():
    st = _train(30, matches=40)
    a = train_settings({}, "[train]").abstraction
    ss = st["strategy_sum"].reshape(a.radices + (a.n_actions,))
    facing = ss[:, 1].sum(axis=(0, 2, 3))          # (strength, action), facing a bet
    fold = facing[:, 0] / facing.sum(axis=1)
    weak, strong = fold[:5].mean(), fold[5:].mean()
    assert strong < 0.2 < weak, (weak, strong)     # uniform over 4 actions folds 0.25
    avg = average_table(st["strategy_sum"])
    seen = st["strategy_sum"].sum(axis=1) > 0
    assert np.allclose(avg[seen].sum(axis=1), 1.0) and (avg[~seen] == 0).all()


def test_a_best_response_beats_a_uniform_table_and_a_table_ties_itself():
    from nop_sim.games.new_order.cfr import best_response, table_gain

    cfg = train_settings({"matches": 40}, "[train]")
    s = Settings()
    uniform = cfg.abstraction.new_table(1.0)
    answer = best_response(s, cfg, uniform, 10, seed=3, threads=1)
    won = table_gain(s, cfg, uniform, answer, 800, seed=9, threads=1)
    assert won["matches"] == 800 and won["low"] > 20.0, won
    tie = table_gain(s, cfg, uniform, uniform, 800, seed=9, threads=1)
    assert tie["low"] < 0.0 < tie["high"], tie
    assert tie["high"] - tie["low"] < 7.0


def _scenario(tmp_path, train: str = "matches = 10\ncurve_matches = 400") -> str:
    path = tmp_path / "small.toml"
    path.write_text('[game]\nkind = "new-order"\nmax_hands = 60\n\n[run]\nmatches = 40\n'
                    f'seed = 5\nchunk = 10\n\n[train]\n{train}\n')
    return str(path)


def test_train_method_cfr_writes_a_field_a_run_seats_and_resumes(tmp_path):
    from click.testing import CliRunner

    from nop_sim.cli import main
    from nop_sim.games.new_order.abstraction import read_table
    from nop_sim.games.new_order.agents import read_agent_file

    scn, out = _scenario(tmp_path), tmp_path / "cfr"
    res = CliRunner().invoke(main, ["train", scn, "--method", "cfr", "--iterations", "4",
                                    "--out", str(out), "--workers", "1", "-q"])
    assert res.exit_code == 0, res.output
    assert "540 information sets" in res.output and "updates/s" in res.output
    f = read_agent_file(out / "strong.toml")
    assert f.betting_table == str((out / "strong_table.npz").resolve())
    assert f.training["base"] == "balanced" and f.training["iterations"] == 4
    abstraction, table = read_table(out / "strong_table.npz")
    assert abstraction == Abstraction() and np.allclose(table[table.sum(1) > 0].sum(1), 1)
    assert (out / "report.html").exists()
    curve = (out / "curve.csv").read_text().splitlines()
    assert curve[0] == "iteration,seconds,gain,low,high,bound_matches" and len(curve) == 5
    assert "a best response within the betting abstraction" in (out / "report.md").read_text()
    # more iterations on resume: the same table as 6 in one sitting (two workers)
    res = CliRunner().invoke(main, ["train", scn, "--method", "cfr", "--iterations", "6",
                                    "--out", str(out), "--resume", "--no-report", "-q"])
    assert res.exit_code == 0, res.output
    once = tmp_path / "once"
    res = CliRunner().invoke(main, ["train", scn, "--method", "cfr", "--iterations", "6",
                                    "--out", str(once), "--workers", "2", "--no-report",
                                    "-q"])
    assert res.exit_code == 0, res.output
    assert np.array_equal(read_table(out / "strong_table.npz")[1],
                          read_table(once / "strong_table.npz")[1])
    # the field is a seat like any other
    res = CliRunner().invoke(main, ["run", scn, "--set", f"seats.all=@{out}/strong.toml",
                                    "--out", str(tmp_path / "run"), "--no-report", "-q"])
    assert res.exit_code == 0, res.output
    # a field of 6 iterations is far from strong: a check's bound reaches the report
    res = CliRunner().invoke(main, ["exploit", scn, "--strong", str(out), "--budget-matches",
                                    "4000", "--workers", "1", "-q"])
    assert res.exit_code == 0 and "recorded in" in res.output, res.output
    from nop_sim.studies.train.report import write_train_report

    write_train_report(out)
    assert "An independent check: a deviation gains at least" in (out / "report.md").read_text()


def test_train_cfr_refuses_bad_train_keys_before_writing(tmp_path):
    from click.testing import CliRunner

    from nop_sim.cli import main

    out = tmp_path / "never"
    res = CliRunner().invoke(main, ["train", _scenario(tmp_path, "strength_bucket = 4"),
                                    "--method", "cfr", "--out", str(out)])
    assert res.exit_code == 2 and "unknown key 'strength_bucket'" in res.output, res.output
    assert "Traceback" not in res.output and not out.exists()
