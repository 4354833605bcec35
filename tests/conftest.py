"""Fixtures shared by test modules."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

# One BLAS thread a process, as the nop-sim command sets (nop_sim.cli.common), here for the
# tests that call the library directly: `make test` runs one pytest worker a core, and each
# worker's OpenBLAS pool spun on the other's core (a sensitivity study's 672 small
# triangular solves took 2.1 s, against 0.01 s alone). Set before anything imports NumPy.
# The suite took 277 s against 325 s without it, on 2 cores.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def dask_cluster(tmp_path_factory):
    """The address of a local Dask scheduler with two one-thread worker processes, one for
    the whole session (starting one takes seconds; each test's tasks carry all they need)."""
    pytest.importorskip("distributed")
    tmp_path = tmp_path_factory.mktemp("dask")
    port = _free_port()
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    procs = [subprocess.Popen([str(bin_dir / "dask"), "scheduler", "--host", "127.0.0.1",
                               "--port", str(port), "--no-dashboard"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)]
    try:
        for _ in range(2):
            procs.append(subprocess.Popen(
                [str(bin_dir / "dask"), "worker", f"tcp://127.0.0.1:{port}", "--nthreads", "1",
                 "--no-dashboard", "--host", "127.0.0.1"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path))
        from distributed import Client

        with Client(f"tcp://127.0.0.1:{port}", timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        yield f"tcp://127.0.0.1:{port}"
    finally:  # the test is over: no need to wait out the workers' graceful shutdown
        for p in procs[::-1]:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=1)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


@pytest.fixture
def real_workers(monkeypatch):
    """Runs with --workers N > 1 start their N worker processes even when small.

    (A small run otherwise plays here after its first part: starting workers
    would cost more than they save; see ``executors.WORKERS_WORTH``.)
    """
    from nop_sim.run import executors

    monkeypatch.setattr(executors, "WORKERS_WORTH", 0.0)
