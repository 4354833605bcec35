"""Benchmark the New Order Poker match engine; prints one JSON object.

One core: 4 players, default settings, every rule and Disruptor in play,
``balanced`` agents in every seat (then the same with ``random`` agents).
``hands_per_s`` / ``matches_per_s`` count per CPU-second of the one working
thread (``time.process_time``), so a machine shared with other jobs does not
halve them; ``wall_hands_per_s`` is the same run by the wall clock.
``parallel_hands_per_s`` uses every core numba sees (wall clock).
``compile_s`` is the first one-thread call's time: loading from numba's cache
when it is warm, a full compile with ``--cold`` (a fresh, temporary cache
directory); ``callees_compile_s`` (the evaluator and the draft) and
``engine_compile_s`` (the match driver) are its two independent parts, which
the runner compiles in two processes at once. The parallel driver is compiled only when a call asks for more
than one thread; ``parallel_compile_s`` is that first call's extra time.

    python scripts/bench_engine.py [--seconds 5] [--cold]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time


def _measure(play, settings, agents, seconds, threads, chunk_size, seed=1):
    """(hands/s, matches/s, hands per CPU-second, matches per CPU-second)."""
    n = 64
    hands = matches = 0
    elapsed = cpu = 0.0
    while elapsed < seconds:
        t = time.perf_counter()
        c = time.process_time()
        r = play(settings, agents, n_matches=n, seed=seed, threads=threads, chunk_size=chunk_size)
        cpu += time.process_time() - c
        dt = time.perf_counter() - t
        elapsed += dt
        hands += r.count("hands")
        matches += r.n_matches
        seed += 1
        if dt < seconds / 4:
            n *= 2
    return hands / elapsed, matches / elapsed, hands / cpu, matches / cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    ap.add_argument("--cold", action="store_true", help="compile from scratch (fresh cache)")
    args = ap.parse_args()
    if args.cold:
        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="nop_sim_bench_")
    import numba

    from nop_sim.games.new_order.engine import compile_callees, compile_engine, play_matches
    from nop_sim.games.new_order.rules import Settings

    settings = Settings()
    t = time.perf_counter()
    compile_callees()
    callees_s = time.perf_counter() - t
    compile_engine()
    engine_s = time.perf_counter() - t - callees_s
    play_matches(settings, "balanced", n_matches=1, seed=0, threads=1)
    compile_s = time.perf_counter() - t
    cores = numba.config.NUMBA_NUM_THREADS
    t = time.perf_counter()
    play_matches(settings, "balanced", n_matches=2, seed=0, threads=cores, chunk_size=1)
    parallel_compile_s = time.perf_counter() - t
    out = {"players": settings.players, "settings": "default", "compile_s": round(compile_s, 2),
           "callees_compile_s": round(callees_s, 2),
           "engine_compile_s": round(engine_s, 2), "parallel_compile_s": round(parallel_compile_s, 2), "cold_compile": args.cold,
           "cores": cores}
    for agents in ("balanced", "random"):
        whps, _, hps, mps = _measure(play_matches, settings, agents, args.seconds, 1, 32)
        phps, _, _, _ = _measure(play_matches, settings, agents, args.seconds, cores, 8)
        key = "" if agents == "balanced" else "random_"
        out[f"{key}hands_per_s"] = round(hps)
        out[f"{key}matches_per_s"] = round(mps, 1)
        out[f"{key}wall_hands_per_s"] = round(whps)
        out[f"{key}parallel_hands_per_s"] = round(phps)
    out["python"] = sys.version.split()[0]
    out["numba"] = numba.__version__
    print(json.dumps(out))


if __name__ == "__main__":
    main()
