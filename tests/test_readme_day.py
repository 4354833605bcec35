"""The README's "A designer's day", run as written on a fresh copy of the project.

Every line of its first code block runs in order with bash in a copy of the
tracked files (no reports/ but what the day makes), after the baseline run
that ``make run`` makes; then the Dask line of the next block runs against a
local cluster, its address put in for the README's example one. A README
whose commands fail is a bug like any other (issue 23). Slow: ``make
test-readme`` runs it (and ``.ci/run``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

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


@pytest.mark.slow
def test_the_designers_day_runs_as_written(tmp_path, dask_cluster):
    day, dask = day_blocks(README.read_text())
    work = _fresh_copy(tmp_path / "nop-sim")
    # the installed nop-sim (this checkout's code, its compiled kernels) first on the PATH
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    steps = [("nop-sim run scenarios/baseline.toml", "make run")]
    steps += [(c, c) for c in day]
    steps += [(c.replace("tcp://10.0.0.5:8786", dask_cluster), c) for c in dask]
    took = []
    for command, as_written in steps:
        t0 = time.perf_counter()
        proc = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True,
                              text=True, timeout=1800)
        took.append((round(time.perf_counter() - t0, 1), as_written))
        assert proc.returncode == 0, (f"README line failed: {as_written}\n"
                                      f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
        assert "Traceback" not in proc.stderr, as_written
    print("\n".join(f"{s:7.1f} s  {c}" for s, c in took))
    reports = work / "reports"
    for made in ("cap30/report.html", "cap30b/report.html", "baseline-train/strong.toml",
                 "baseline-strong/report.html", "chips_tune-tune/best.toml",
                 "ledger_hedge_lhs/report.html", "baseline-dask/report.html"):
        assert (reports / made).exists(), made
    assert "dart_cap = 30" in (work / "scenarios/cap30.toml").read_text()
