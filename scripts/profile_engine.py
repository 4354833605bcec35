"""Profile the match engine's cached kernels with perf, function by function (issue 37).

perf sees numba's compiled code as anonymous addresses. This script keeps the object
code numba loads from its cache, writes ``/tmp/perf-<pid>.map`` naming every function
in it (each object's text section is one block: a function's address is the block's
base plus its offset), then plays matches on one thread::

    perf record -F 4000 -o perf.data python scripts/profile_engine.py --seconds 8
    perf report -i perf.data --no-children --sort symbol

``--objects DIR`` also writes each loaded library's object file (``DIR/<library>.o``),
for ``objdump -d`` beside ``perf script -F ip,sym,symoff`` (per-instruction counts: how
issue 37 found the AVX-512 gathers of count_live and the stack pushes of calls that
pass the state tuples). Linux with perf only; the kernels must be in numba's cache
(run any engine call once first).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

from numba.core import codegen

_loaded: list = []  # (library, object code) of every library numba loads from its cache
_unserialize = codegen.JITCodeLibrary._unserialize.__func__


def _keep_object(cls, cg, state):
    library = _unserialize(cls, cg, state)
    if state[1] == "object":
        _loaded.append((library, state[2][0]))
    return library


codegen.JITCodeLibrary._unserialize = classmethod(_keep_object)


def write_perf_map(objects: Path | None = None) -> int:
    """Name every function of the loaded libraries in perf's map; returns how many."""
    lines = []
    for library, code in _loaded:
        with tempfile.NamedTemporaryFile(suffix=".o", delete=False) as f:
            f.write(code)
        if objects is not None:
            objects.mkdir(parents=True, exist_ok=True)
            (objects / f"{library.name}.o").write_bytes(code)
        table = subprocess.run(["nm", "-S", "--defined-only", f.name], capture_output=True,
                               text=True, check=True).stdout
        os.unlink(f.name)
        symbols = [(int(p[0], 16), int(p[1], 16), p[2], p[3]) for p in map(str.split, table.splitlines())
                   if len(p) == 4 and p[2] in "tTWw"]
        base = None
        for offset, _, kind, name in symbols:  # an exported function anchors the block
            address = library._codegen._engine.get_function_address(name) if kind == "T" else 0
            if address:
                base = address - offset
                break
        if base is not None:
            lines += [f"{base + off:x} {size:x} {library.name}:{name}\n"
                      for off, size, _, name in symbols]
    Path(f"/tmp/perf-{os.getpid()}.map").write_text("".join(lines))
    return len(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agents", default="balanced")
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--objects", type=Path, default=None)
    args = ap.parse_args()
    from nop_sim.games.new_order.engine import play_matches  # after the patch above
    from nop_sim.games.new_order.settings import Settings

    settings = Settings()
    play_matches(settings, args.agents, n_matches=2, seed=0, threads=1)  # load the kernels
    print(f"perf map: {write_perf_map(args.objects)} functions")
    hands, seed, t = 0, 1, time.process_time()
    while time.process_time() - t < args.seconds:
        hands += play_matches(settings, args.agents, n_matches=256, seed=seed, threads=1,
                              chunk_size=32).count("hands")
        seed += 1
    print(f"{args.agents}: {hands / (time.process_time() - t):,.0f} hands per CPU-second")


if __name__ == "__main__":
    main()
