"""Folders other nop-sim commands write (training, tune) are not runs: every command that
reads or writes a run says what the folder is and what to do with it, in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.games.new_order import analysis as A
from nop_sim.games.new_order.agents import write_agent_file
from nop_sim.run.runner import RunError

TRAINING = {"scenario": "baseline", "matches": 5000, "exploitability": 0.8}
SCENARIO = """
name = "small"
[game]
players = 3
max_hands = 12
[run]
matches = 4
chunk = 4
"""


def invoke(*args):
    res = CliRunner().invoke(main, [str(a) for a in args])
    return res.exit_code, res.output


def training_folder(folder: Path, finished: bool = True) -> Path:
    """A folder as nop-sim train leaves it: strong.toml, state.json, a manifest of kind
    train (only once finished)."""
    folder.mkdir(parents=True)
    (folder / "state.json").write_text(json.dumps({"round": 1}))
    if finished:
        write_agent_file(folder / "strong.toml", [{"preset": "hedger"}], [1.0], TRAINING)
        (folder / "manifest.json").write_text(json.dumps({
            "kind": "train", "status": "finished",
            "scenario": {"name": "baseline", "source": "scenarios/baseline.toml",
                         "kind": "new-order", "text": "", "fingerprint": "x"}}))
    return folder


def test_a_training_folder_read_as_a_run_says_what_it_is_and_what_to_do(tmp_path):
    folder = training_folder(tmp_path / "baseline-train")
    strong = folder / "strong.toml"
    with pytest.raises(RunError) as err:
        A.load_run(folder)
    message = str(err.value)
    assert "training folder" in message and "did not finish" not in message
    assert f"--set seats.all=@{strong}" in message and "scenarios/baseline.toml" in message
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    scn = tmp_path / "s.toml"
    scn.write_text(SCENARIO)
    for args, code in ((("report", folder), 1), (("hands", folder, "--match", 0), 1),
                       (("hands", folder), 1),
                       (("compare", folder, folder, "--out", tmp_path / "cmp"), 2),
                       (("sensitivity", folder, "--out", tmp_path / "sens"), 2),
                       (("run", scn, "--out", folder), 1)):
        got, output = invoke(*args)
        assert got == code, (args, output)
        assert "training folder" in output and "did not finish" not in output, (args, output)
        assert "Traceback" not in output and len(output.strip().splitlines()) <= 4, output
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    # one still training: no strong.toml yet, no manifest: finish it first
    running = training_folder(tmp_path / "running-train", finished=False)
    with pytest.raises(RunError, match="has not finished .*--resume"):
        A.load_run(running)
    # a tune folder names its best.toml
    tune = tmp_path / "chips-tune"
    tune.mkdir()
    (tune / "manifest.json").write_text(json.dumps({"command": "tune", "status": "finished"}))
    with pytest.raises(RunError, match=r"tune folder .*best\.toml"):
        A.load_run(tune)


def test_a_real_training_folder_is_named_as_one(tmp_path):
    path = tmp_path / "free.toml"
    path.write_text("""
name = "free"
[game]
players = 3
chips = 40
max_hands = 40
[run]
seed = 2
""")
    out = tmp_path / "free-train"
    code, output = invoke("train", path, "--budget-matches", 2000, "--out", out, "--workers", 1,
                          "--quiet", "--no-report")
    assert code == 0, output
    with pytest.raises(RunError, match=f"training folder .*seats.all=@{out / 'strong.toml'}"):
        A.load_run(out)
    # and what it says to do works: the trained agent in every seat
    code, output = invoke("run", path, "--set", f"seats.all=@{out / 'strong.toml'}", "--out",
                          tmp_path / "strong-run", "--matches", 6, "--workers", 1, "-q",
                          "--no-report")
    assert code == 0, output
