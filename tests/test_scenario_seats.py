"""Trained agents in seats: ``@path`` in [seats] and --set, provenance in manifest and report."""

from __future__ import annotations

import json
import pickle
import tomllib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.games import SeatFile, get_game
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.agents import AgentError, agent_row, load_agent_file, training_text
from nop_sim.run.scenario import ScenarioError, load_scenario

ROOT = Path(__file__).resolve().parents[1]

TRAINING = """
[training]
scenario = "baseline"
fingerprint = "abc123"
seed = 1
matches = 123456
exploitability = 0.8
exploitability_low = 0.2
exploitability_high = 1.4
epsilon = 1.0
converged = true
"""

SCENARIO = """
name = "tiny"
[game]
players = 3
[seats]
{seats}
[run]
matches = 8
chunk = 4
seed = 1
"""


def agent_text(**changes: float) -> str:
    """A strong.toml as ``nop-sim train`` writes it: every parameter, then [training]."""
    values = dict(zip(T.AGENT_PARAM_NAMES, agent_row("hedger").tolist(), strict=True))
    values.update(changes)
    lines = ["# written by nop-sim train: test", "[agent]"]
    lines += [f"{k} = {float(v)!r}" for k, v in values.items()]
    return "\n".join(lines) + "\n" + TRAINING


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def strong(tmp_path) -> Path:
    return write(tmp_path / "train" / "strong.toml", agent_text(hedge=3.2, bluff=0.11))


def expected_row(path: Path) -> np.ndarray:
    with path.open("rb") as f:
        return agent_row(tomllib.load(f)["agent"])


def test_agent_row_takes_the_agent_table_and_load_agent_file_reads_both_tables(strong):
    row = expected_row(strong)
    assert row[T.AGENT_PARAM_NAMES.index("hedge")] == 3.2
    params, training = load_agent_file(strong)
    np.testing.assert_array_equal(agent_row(params), row)
    assert training["exploitability"] == 0.8 and training["matches"] == 123456
    hand_written = write(strong.parent / "mine.toml", "[agent]\nhedge = 2\n")
    assert load_agent_file(hand_written) == ({"hedge": 2}, {})


@pytest.mark.parametrize("seats, trained_seats", [
    ('all = "@{p}"', [0, 1, 2]),
    ('seat = ["@{p}", "balanced", "rock"]', [0]),
    ('rotate = ["@{p}", "balanced"]', [0, 2]),  # rotation 0 of a list of two over 3 seats
])
def test_an_at_path_seat_plays_the_files_parameters(tmp_path, strong, seats, trained_seats):
    scn_path = write(tmp_path / "s.toml", SCENARIO.format(seats=seats.format(p=strong)))
    scn = load_scenario(scn_path)
    specs = scn.seat_specs({}, 0)
    assert [i for i, s in enumerate(specs) if isinstance(s, SeatFile)] == trained_seats
    for i in trained_seats:
        np.testing.assert_array_equal(agent_row(specs[i]), expected_row(strong))
    (agent,) = scn.agent_files
    assert agent.label == "trained(baseline)" and agent.training["exploitability"] == 0.8
    assert get_game(scn.kind).seat_label(specs[trained_seats[0]]) == "trained(baseline)"
    back = pickle.loads(pickle.dumps(scn))  # what a worker gets: no file needed
    assert back.agent_files[0].label == agent.label and back.seats == scn.seats


def test_relative_paths_look_in_the_current_folder_then_the_scenarios(tmp_path, monkeypatch):
    folder = tmp_path / "study"
    write(folder / "agents" / "strong.toml", agent_text(hedge=5.0))
    scn_path = write(folder / "s.toml", SCENARIO.format(seats='all = "@agents/strong.toml"'))
    monkeypatch.chdir(tmp_path)
    scn = load_scenario(scn_path)
    assert scn.agent_files[0].path == str(folder / "agents" / "strong.toml")
    assert scn.seats[0]["hedge"] == 5.0
    write(tmp_path / "agents" / "strong.toml", agent_text(hedge=7.0))  # the current folder wins
    assert load_scenario(scn_path).seats[0]["hedge"] == 7.0


def test_the_readmes_word_on_relative_paths_holds(tmp_path, monkeypatch):
    """README: baseline.toml's [strong] field is scenarios/fields/baseline/strong.toml from
    wherever it runs; a copy elsewhere names both places it looked, and runs from the
    project's folder with the path the README gives."""
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert ("is looked for from the folder you run in first, then from the scenario file's "
            "own folder") in readme
    base = ROOT / "scenarios" / "baseline.toml"
    assert 'field = "fields/baseline/strong.toml"' in base.read_text()
    shipped = ROOT / "scenarios" / "fields" / "baseline" / "strong.toml"
    monkeypatch.chdir(tmp_path)
    assert Path(load_scenario(base).strong.file.path).resolve() == shipped.resolve()
    copy = write(tmp_path / "elsewhere" / "copy.toml", base.read_text())
    with pytest.raises(ScenarioError) as err:
        load_scenario(copy)
    assert str(err.value) == (
        f"{copy}: [strong] field: agent file fields/baseline/strong.toml not found (looked "
        f"for fields/baseline/strong.toml and {copy.parent / 'fields/baseline/strong.toml'})")
    copy.write_text(base.read_text().replace('"fields/baseline/strong.toml"',
                                             '"scenarios/fields/baseline/strong.toml"'))
    monkeypatch.chdir(ROOT)
    assert Path(load_scenario(copy).strong.file.path).resolve() == shipped.resolve()


def test_the_strong_side_run_keeps_an_event_log_only_when_asked(tmp_path, monkeypatch):
    """[strong] log_sample: 0 by default (no section reads the side run's log, which cost
    its play 8 to 12% at the baseline's 50), the run's own log untouched; any other
    value is the side run's, and a bad one is one line naming the table."""
    monkeypatch.chdir(ROOT)
    base = ROOT / "scenarios" / "baseline.toml"
    scn = load_scenario(base, ["run.log_sample=50"])  # the baseline logs none (any replays)
    assert scn.log_sample == 50 and scn.strong.log_sample == 0
    assert scn.strong_scenario().log_sample == 0
    asked = load_scenario(base, ["run.log_sample=50", "strong.log_sample=7"])
    assert asked.strong_scenario().log_sample == 7 and asked.log_sample == 50
    for bad in ("-1", "true", "2.5"):
        with pytest.raises(ScenarioError, match=r"\[strong\] log_sample = .* is not allowed: "
                                                r"use an integer from 0"):
            load_scenario(base, [f"strong.log_sample={bad}"])


def test_set_seats_to_an_agent_file(tmp_path, strong):
    base = ROOT / "scenarios" / "baseline.toml"  # its [seats] is a rotation: --set replaces it
    scn = load_scenario(base, [f"seats.all=@{strong}"])
    assert not scn.rotate and len(scn.seats) == 1
    np.testing.assert_array_equal(agent_row(scn.seats[0]), expected_row(strong))
    scn = load_scenario(base, [f'seats.seat=["@{strong}", "balanced", "balanced", "balanced"]'])
    assert [get_game(scn.kind).seat_label(s) for s in scn.seat_specs({}, 0)] == [
        "trained(baseline)", "balanced", "balanced", "balanced"]


def test_labels_and_fingerprints_follow_the_file(tmp_path):
    one = write(tmp_path / "a" / "strong.toml", agent_text(hedge=1.0))
    other = write(tmp_path / "b" / "strong.toml", agent_text(hedge=2.0))
    plain = write(tmp_path / "c" / "weak.toml", "[agent]\nhedge = 1.0\n")
    scn_path = write(tmp_path / "s.toml", SCENARIO.format(
        seats=f'seat = ["@{one}", "@{other}", "@{plain}"]'))
    scn = load_scenario(scn_path)
    # two files trained for one scenario: the second says which file it is
    assert [f.label for f in scn.agent_files] == [
        "trained(baseline)", f"trained({other})", "trained(weak)"]
    assert "unknown" in training_text(scn.agent_files[2].training)
    before = scn.fingerprint()
    write(one, agent_text(hedge=1.5))  # retrained in place: a different scenario
    assert load_scenario(scn_path).fingerprint() != before


def test_the_ordered_hand_game_refuses_a_new_order_agent_file(strong):
    """Ordered Hand reads its own agent files (tests/test_policy_spaces.py), not New
    Order's: the file and the parameter it does not know are named."""
    with pytest.raises(ScenarioError, match="unknown Ordered Hand agent parameter"):
        load_scenario(ROOT / "scenarios" / "ordered_hand.toml", [f"seats.all=@{strong}"])


def test_load_agent_file_errors_name_the_file(tmp_path):
    with pytest.raises(AgentError, match="agent file .*nope.toml not found"):
        load_agent_file(tmp_path / "nope.toml")


def test_a_run_with_a_trained_seat_records_and_reports_its_exploitability(tmp_path, strong):
    scn_path = write(tmp_path / "s.toml", SCENARIO.format(
        seats='seat = ["@train/strong.toml", "balanced", "rock"]'))
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(scn_path), "--out", str(out), "--workers", "1",
                                    "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "trained(baseline)" in res.output and "exploitability at training: 0.8" in res.output
    manifest = json.loads((out / "manifest.json").read_text())
    (record,) = manifest["agent_files"]
    assert record["label"] == "trained(baseline)" and record["given"] == "train/strong.toml"
    assert record["training"]["exploitability_high"] == 1.4
    assert manifest["points"][0]["seats"] == ["trained(baseline)", "balanced", "rock"]
    report = (out / "report.md").read_text()
    assert ("Seat 0 plays a trained agent, **trained(baseline)**" in report
            and "exploitability at training: 0.8 points (95% interval 0.2 to 1.4)" in report)


@pytest.mark.parametrize("name, text, needle", [
    ("missing", None, "not found"),
    ("unknown", "[agent]\nbluf = 0.1\n", "Did you mean 'bluff'"),
    ("no_agent", TRAINING, "needs an [agent] table"),
    ("broken", "[agent]\nbluff = = 0.1\n", "line 2, column"),
])
def test_a_bad_agent_file_is_one_line_exit_2(tmp_path, name, text, needle):
    agent = tmp_path / f"{name}.toml"
    if text is not None:
        write(agent, text)
    scn_path = write(tmp_path / "s.toml", SCENARIO.format(seats=f'all = "@{agent}"'))
    res = CliRunner().invoke(main, ["run", str(scn_path), "--out", str(tmp_path / "out")])
    assert res.exit_code == 2, res.output
    errors = [line for line in res.output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and "Traceback" not in res.output, res.output
    assert needle in errors[0] and str(scn_path) in errors[0] and "[seats]" in errors[0]
    assert str(agent) in errors[0]
    assert not (tmp_path / "out").exists()
