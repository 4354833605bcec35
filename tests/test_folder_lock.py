"""One command at a time writes into a folder (nop_sim/run/folder_lock.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.run.folder_lock import HOLDER_FILE, LOCK_FILE, LOCK_FILES, hold_folder

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

GOOD = """
[game]
players = 4
[run]
matches = 4
chunk = 2
"""

# another process holds the folder, as a run would: the lock, and who it is
HOLDER = """
import sys, time
from nop_sim.run.folder_lock import hold_folder
with hold_folder(sys.argv[1], command="nop-sim run scenarios/baseline.toml"):
    print("held", flush=True)
    time.sleep(120)
"""


def _holder(folder: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)], stdout=subprocess.PIPE,
                            text=True, env=ENV)
    assert proc.stdout.readline().strip() == "held"
    return proc


def _invoke(*args):
    res = CliRunner().invoke(main, [str(a) for a in args])
    return res.exit_code, res.output


def _files(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and p.name not in LOCK_FILES}


def test_a_second_command_into_a_held_folder_is_refused_at_once(tmp_path):
    scenario = tmp_path / "good.toml"
    scenario.write_text(GOOD)
    out = tmp_path / "out"
    code, output = _invoke("run", scenario, "--out", out, "--workers", 1, "-q", "--no-report")
    assert code == 0, output
    assert not any((out / name).exists() for name in LOCK_FILES), "cleaned up on exit"
    before = _files(out)
    proc = _holder(out)
    try:
        for args in (("run", scenario, "--out", out, "--workers", 1, "-q"),
                     ("run", scenario, "--out", out, "--resume", "-q"),
                     ("report", out)):
            t = time.perf_counter()
            code, output = _invoke(*args)
            assert time.perf_counter() - t < 5, "refused at once, not after a run"
            assert code == 1, output
            lines = output.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith(f"Error: {out}: "), output
            assert "another nop-sim command is writing into this folder" in output, output
            assert f"pid {proc.pid}" in output, output
            assert "`nop-sim run scenarios/baseline.toml`, since " in output, output
            assert "Traceback" not in output
        assert "--out" in _invoke("run", scenario, "--out", out, "-q")[1]
        assert _files(out) == before, "nothing written is lost or changed"
    finally:
        proc.kill()  # dies holding it: the OS lock goes with it, its files stay
        proc.wait()
    assert (out / HOLDER_FILE).exists() and (out / LOCK_FILE).exists()
    code, output = _invoke("run", scenario, "--out", out, "--workers", 1, "-q", "--no-report")
    assert code == 0 and "2 reused" in output, output  # a dead holder's lock does not block
    assert not any((out / name).exists() for name in LOCK_FILES)


def test_a_fresh_folder_held_by_another_is_not_taken_nor_removed(tmp_path):
    scenario = tmp_path / "good.toml"
    scenario.write_text(GOOD)
    out = tmp_path / "new" / "out"
    proc = _holder(out)  # it made the folder
    try:
        code, output = _invoke("run", scenario, "--out", out, "-q")
        assert code == 1 and f"pid {proc.pid}" in output, output
        assert out.is_dir() and not (out / "manifest.json").exists()
    finally:
        proc.kill()
        proc.wait()


def test_the_lock_files_do_not_count_as_the_folders_content(tmp_path):
    # a run into a new folder finds its own lock there: still an empty folder to it
    scenario = tmp_path / "good.toml"
    scenario.write_text(GOOD)
    out = tmp_path / "out"
    with hold_folder(out):
        code, output = _invoke("run", scenario, "--out", out, "--workers", 1, "-q",
                               "--no-report")  # this process holds it: re-entrant
        assert code == 0, output
        holder = json.loads((out / HOLDER_FILE).read_text())
        assert holder["pid"] == os.getpid()
    assert not any((out / name).exists() for name in LOCK_FILES)
    # a folder a refused or failed command had to create is not left behind
    code, output = _invoke("report", tmp_path / "missing")
    assert code == 1 and "not a nop-sim results folder" in output, output
    assert not (tmp_path / "missing").exists()


def test_two_real_runs_into_one_folder(tmp_path):
    # the reported failure: both ran in full, the second died in the merge
    scenario = tmp_path / "long.toml"
    scenario.write_text(GOOD.replace("matches = 4", "matches = 6000").replace("chunk = 2",
                                                                              "chunk = 500"))
    out = tmp_path / "out"
    first = subprocess.Popen([sys.executable, "-m", "nop_sim", "run", str(scenario), "--out",
                              str(out), "--workers", "1", "-q", "--no-report"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=ENV)
    try:
        deadline = time.monotonic() + 120
        while not (out / HOLDER_FILE).exists():
            assert first.poll() is None and time.monotonic() < deadline, first.stdout.read()
            time.sleep(0.05)
        code, output = _invoke("run", scenario, "--out", out, "--workers", 1, "-q")
        assert code == 1 and f"pid {first.pid}" in output, output
        assert first.poll() is None, "the first run was still going when refused"
        assert first.wait(timeout=300) == 0, first.stdout.read()
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "finished" and manifest["totals"]["matches"] == 6000
