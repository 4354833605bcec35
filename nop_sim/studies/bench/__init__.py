"""Benchmarks: speeds measured as medians, with a reference measured in the same run.

One module per command of ``nop-sim bench``; each function returns its figures
as a dict, which the command prints as JSON. They ship with the package, so an
installed nop-sim measures itself (no source checkout needed).

* :func:`bench_evaluator`: hands per second of the evaluator, against eval7;
* :func:`bench_engine`: hands and matches per second of the New Order engine;
* :func:`bench_runner`: ``nop-sim run``'s rate against the engine it drives;
* :func:`bench_ordered`: games per second of the Ordered Hand engine.

Never timed inside unit tests: the machines are shared and noisy, so each
figure is the median (or best) of several repeats and compared with a peer
measured alongside it. Compile times are measured in a fresh interpreter,
whose numba cache can start empty (``NUMBA_CACHE_DIR`` must be set before
numba is imported).
"""

from __future__ import annotations

from nop_sim.studies.bench.engine import bench_engine
from nop_sim.studies.bench.evaluator import bench_evaluator, random_hands
from nop_sim.studies.bench.ordered import bench_ordered
from nop_sim.studies.bench.runner import bench_runner

__all__ = ["bench_engine", "bench_evaluator", "bench_ordered", "bench_runner", "random_hands"]
