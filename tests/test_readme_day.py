"""The README's "A designer's day", run as written on a fresh copy of the project.

Every line of its first code block runs in order with bash in a copy of the
tracked files (no reports/ but what the day makes), after the baseline run
that ``make run`` makes; then the Dask line of the next block runs against a
local cluster, its address put in for the README's example one. Before the
day, on the same baseline run, the replay line of "Play a hand" opens its
match as written, and so does every replay line the baseline's report prints
(issue 40). A README whose commands fail is a bug like any other (issue 23).
Slow: ``make test-readme`` runs it (and ``.ci/run``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def day_blocks(text: str) -> tuple[list[str], list[str]]:
    """The commands of the day's block and of the Dask block after it, one string each
    (backslash continuations joined, comments and blank lines dropped)."""
    section = text[text.index("## A designer's day"):]
    section = section[:section.index("\n## ", 3)]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 2, "the day's block and the Dask block"

    def commands(block: str) -> list[str]:
        joined = re.sub(r"\\\n\s*", "", block)
        out = []
        for line in joined.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line and not line.startswith("#"):
                out.append(line)
        return out

    return commands(blocks[0]), commands(blocks[1])


def test_the_day_parses_into_commands():
    day, dask = day_blocks(README.read_text())
    assert day[0].startswith("cp scenarios/baseline.toml") and len(day) >= 15
    assert all(c.split()[0] in ("cp", "sed", "nop-sim") for c in day), day
    assert len(dask) == 1 and "--scheduler tcp://" in dask[0]


def _fresh_copy(dest: Path) -> Path:
    """The project's tracked and new (not ignored) files, as a fresh clone has them."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file() and not name.startswith("reports/"):
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


def _run(command: str, as_written: str, work: Path, env: dict, took: list) -> None:
    """One README line in bash in ``work``; it must exit 0 without a traceback."""
    t0 = time.perf_counter()
    proc = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True,
                          text=True, timeout=1800)
    took.append((round(time.perf_counter() - t0, 1), as_written))
    assert proc.returncode == 0, (f"README line failed: {as_written}\n"
                                  f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    assert "Traceback" not in proc.stderr, as_written


@pytest.fixture(scope="module")
def made_run(tmp_path_factory) -> tuple[Path, dict, list]:
    """A fresh copy after ``make run``: the folder, the environment its lines run in (the
    installed nop-sim, this checkout's code and compiled kernels, first on the PATH) and
    the seconds each line took."""
    work = _fresh_copy(tmp_path_factory.mktemp("readme") / "nop-sim")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    took: list = []
    _run("nop-sim run scenarios/baseline.toml", "make run", work, env, took)
    return work, env, took


def _replay_opens(command: str, work: Path, env: dict) -> dict:
    """``command`` (a nop-sim replay line) run in ``work`` with --no-browser: the state its
    page answers once the URL is printed; the server is stopped then."""
    proc = subprocess.Popen([*shlex.split(command), "--no-browser"], cwd=work, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert m, (command, line)
        with urllib.request.urlopen(m.group(0) + "api/state", timeout=60) as r:
            return json.loads(r.read())
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.slow
def test_the_replay_lines_open_make_runs_matches(made_run):
    """README's "Play a hand" replay line as written, and each line the baseline's report
    prints under "Matches to replay", on the run make run made."""
    work, env, _ = made_run
    block = README.read_text().split("## Play a hand", 1)[1].split("```sh", 1)[1]
    lines = [line.split("#", 1)[0].strip() for line in block.split("```", 1)[0].splitlines()]
    replays = [line for line in lines if line.startswith("nop-sim replay ")]
    assert len(replays) == 1, lines
    printed = list(pd.read_csv(work / "reports/baseline/tables/replays.csv")["command"])
    assert printed and all(c.startswith("nop-sim replay reports/baseline --match ")
                           for c in printed)
    assert all(c in (work / "reports/baseline/report.md").read_text() for c in printed)
    for command in replays + printed:
        state = _replay_opens(command, work, env)
        assert state["replay"] and state["seats"] and state["n_steps"] > 0, command


@pytest.mark.slow
def test_the_designers_day_runs_as_written(made_run, dask_cluster):
    day, dask = day_blocks(README.read_text())
    work, env, took = made_run
    steps = [(c, c) for c in day]
    steps += [(c.replace("tcp://10.0.0.5:8786", dask_cluster), c) for c in dask]
    for command, as_written in steps:
        _run(command, as_written, work, env, took)
    print("\n".join(f"{s:7.1f} s  {c}" for s, c in took))
    reports = work / "reports"
    for made in ("cap30/report.html", "cap30b/report.html", "baseline-train/strong.toml",
                 "baseline-strong/report.html", "chips_tune-tune/best.toml",
                 "ledger_hedge_lhs/report.html", "baseline-dask/report.html"):
        assert (reports / made).exists(), made
    assert "dart_cap = 30" in (work / "scenarios/cap30.toml").read_text()
