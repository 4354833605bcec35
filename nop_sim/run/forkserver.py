"""What the runner's fork server loads before it forks a worker.

A local run with compiled kernels starts its workers from multiprocessing's
fork server (:func:`nop_sim.run.server.worker_context`): a clean process,
started once per run process, with no threads to break a fork. It imports
this module first, so that every worker it forks has nop-sim, Parquet and the
game's kernels (``NOP_SIM_PRELOAD``: game kinds, comma-separated) loaded
already: a worker then starts in milliseconds instead of a second. Kernels not
compiled yet are not loaded (loading would compile them here, beside the run's own
compile): ``nop-sim run`` may start the server before it knows
(:func:`nop_sim.run.server.start_early`), and a run that compiles spawns its workers.
"""

from __future__ import annotations

import os
import signal

# Ctrl-C is the run's to handle (it ends the pool, and the server leaves with it):
# the server and the workers it forks ignore it, so none prints a traceback.
signal.signal(signal.SIGINT, signal.SIG_IGN)

# pyarrow imports pandas at a worker's first table (pa.array, even of a NumPy array,
# asks whether it is a pandas object): once here (0.15 s), not once a worker
import pandas  # noqa: E402,F401
import pyarrow.parquet  # noqa: E402,F401 - every worker writes Parquet

from nop_sim.core import profiling  # noqa: E402
from nop_sim.run.compiling import kernels_compiled  # noqa: E402
from nop_sim.run.executors import load_kernels  # noqa: E402

for _kind in filter(None, os.environ.get("NOP_SIM_PRELOAD", "").split(",")):
    try:
        if kernels_compiled(_kind):
            load_kernels(_kind)
    except Exception:  # noqa: BLE001 - a worker loads them again, and says what failed
        pass
profiling.take()  # the server's time is no worker's
