"""The fork server a local run's workers start from, and its start ahead of the run.

A local run with compiled kernels forks its workers from multiprocessing's fork
server (:func:`worker_context`): a clean process, started once per run process,
that imports nop-sim and loads the game's kernels (:mod:`nop_sim.run.forkserver`),
so each worker starts in milliseconds instead of importing and loading for a
second. Loading takes the server about a second of one core; :func:`start_early`
lets ``nop-sim run`` start it as soon as the scenario is read, while this process
imports the runner (half a second of one core, the other idle until now).

Light on purpose: nothing here imports numba, Arrow or pandas, so the server can
start before they load.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from multiprocessing import forkserver

__all__ = ["EARLY_SERVER_MATCHES", "start_early", "worker_context"]

# A run of this many matches or more starts the workers' fork server at once, while
# this process loads its kernels: even cheap matches (50 us) then save the workers'
# start-up (executors.WORKERS_WORTH).
EARLY_SERVER_MATCHES = 60_000

_server_env: tuple | None = None  # what the fork server was started with (None: not started)


def _environment() -> tuple:
    """The settings a worker inherits from its parent's environment (numba's, nop-sim's)."""
    return tuple(sorted((k, v) for k, v in os.environ.items()
                        if k.startswith(("NUMBA_", "NOP_SIM_", "PYTHON"))))


def worker_context(kind: str):
    """How a local run starts its workers.

    Forked from multiprocessing's fork server where the platform has one: a
    clean process, started once, that imports nop-sim and loads game ``kind``'s
    compiled kernels (:mod:`nop_sim.run.forkserver`; none when they are not
    compiled yet: a run then spawns its workers). Spawned elsewhere (Windows),
    and when this process's environment no longer is the one the server was
    started with (another numba cache, say). Never a plain fork: numba's thread
    pools and Arrow's do not survive it.
    """
    global _server_env
    env = _environment()
    if "forkserver" not in multiprocessing.get_all_start_methods() or (
            _server_env is not None and _server_env != env):
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    if _server_env is None:
        ctx.set_forkserver_preload(["nop_sim.run.forkserver"])
        previous = os.environ.get("NOP_SIM_PRELOAD")
        os.environ["NOP_SIM_PRELOAD"] = kind  # read by the server as it starts
        # the server starts with Ctrl-C ignored (an ignored signal stays ignored
        # through exec): the run handles it, never a traceback from the server
        main = threading.current_thread() is threading.main_thread()
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            forkserver.ensure_running()
        finally:
            if main:
                signal.signal(signal.SIGINT, handler)
            if previous is None:
                os.environ.pop("NOP_SIM_PRELOAD", None)
            else:
                os.environ["NOP_SIM_PRELOAD"] = previous
        _server_env = env
    return ctx


def start_early(kind: str, matches: int, workers: int | None, scheduler: str | None) -> bool:
    """Start the fork server now when a local run of ``matches`` matches on ``workers``
    processes (None: one a core) will surely want it; True if it was started.

    A run that turns out not to use it (its kernels not compiled yet, every chunk
    done already) leaves it idle: a second of one core, against the second it saves a
    run that does.
    """
    n = (os.cpu_count() or 1) if workers is None else workers
    if scheduler or n <= 1 or matches < EARLY_SERVER_MATCHES:
        return False
    return worker_context(kind).get_start_method() == "forkserver"
