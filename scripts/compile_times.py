"""Cold compile time of each New Order kernel group, as JSON on stdout.

    NUMBA_CACHE_DIR=$(mktemp -d) python scripts/compile_times.py

Run it with an empty numba cache (the line above), or it measures cache loads.
Groups, in the order a first run meets them: the callees (evaluator and draft,
which the runner compiles in a second process meanwhile), the one-thread match
driver (``nop-sim run``), the parallel driver (``play_field`` and
``play_matches`` with more than one thread: ``nop-sim train``).
"""

from __future__ import annotations

import json
import os
import time

t0 = time.perf_counter()
import numpy as np  # noqa: E402

from nop_sim.games.new_order.agents import agent_table  # noqa: E402
from nop_sim.games.new_order.engine import compile_callees, compile_engine, play_field  # noqa: E402
from nop_sim.games.new_order.rules import Settings  # noqa: E402
from nop_sim.kernels.rng import keyed_states  # noqa: E402


def main() -> None:
    out = {"numba_cache_dir": os.environ.get("NUMBA_CACHE_DIR"),
           "import_s": time.perf_counter() - t0}
    t = time.perf_counter()
    compile_callees()
    out["callees_s"] = time.perf_counter() - t
    t = time.perf_counter()
    compile_engine()
    out["serial_driver_s"] = time.perf_counter() - t
    t = time.perf_counter()
    play_field(Settings(), agent_table("balanced", 4)[None], np.zeros(2, np.int64),
               keyed_states((1,), 2), threads=2)
    out["parallel_driver_s"] = time.perf_counter() - t
    print(json.dumps({k: round(v, 2) if isinstance(v, float) else v for k, v in out.items()},
                     indent=1))


if __name__ == "__main__":
    main()
