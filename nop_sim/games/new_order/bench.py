"""New Order's engine as ``nop-sim bench`` times it (:data:`BENCH`, the game's ``bench``
hook): the engine alone (``nop-sim bench engine``, :func:`bench_engine`), and the
pieces ``nop-sim bench runner`` plays (:data:`BASELINE`, :func:`play_rotation`).

The engine's speed (``nop-sim bench engine``).

One core: 4 players, default settings, every rule and Disruptor in play,
``balanced`` agents in every seat (then the same with ``random`` agents).
``hands_per_s`` / ``matches_per_s`` count per CPU-second of the one working
thread (``time.process_time``), so a machine shared with other jobs does not
halve them; ``wall_hands_per_s`` is the same run by the wall clock.
``parallel_hands_per_s`` uses every core numba sees (wall clock).

The compile figures come from a fresh interpreter: ``compile_s`` is its first
one-thread call's time, loading from numba's cache when it is warm, a full
compile with ``cold`` (a fresh, temporary cache directory);
``callees_compile_s`` (the evaluator and the draft) and ``engine_compile_s``
(the match driver) are its two independent parts, which the runner compiles
in two processes at once. The parallel driver is compiled only when a call
asks for more than one thread; ``parallel_compile_s`` is that first call's
extra time.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

from nop_sim.games.new_order import bench_reference as reference
from nop_sim.games.new_order.engine import play_matches
from nop_sim.games.new_order.seats import match_tables, mix_rows
from nop_sim.games.new_order.settings import Settings
from nop_sim.games.registry import EngineBench

__all__ = ["BASELINE", "BENCH", "bench_engine", "engine_bench", "play_rotation"]

# scenarios/baseline.toml without its comments and targets (tests/test_cli.py checks
# that the two agree): what nop-sim bench runner plays when given no scenario. Its kind
# is written out: game.py names this module's hook, and the module must not import it
BASELINE = """\
description = "SPEC defaults, 4 players, presets rotated across seats"

[game]
kind = "new-order"
players = 4
chips = "auto"
dart_start = 1
dart_step = 1
dart_cap = 20
fee_to = "pot"
hedge_cost = 5
hedge_payout = 20
disruptors = "default"

[seats]
rotate = ["balanced", "manipulator", "hedger", "rock"]

[run]
matches = 2000
seed = 20261129
chunk = 125
"""

# Run in a fresh interpreter (imports not timed); prints the compile figures as JSON.
_COMPILE_SNIPPET = """
import json, time
import numba
from nop_sim.games.new_order.engine import compile_callees, compile_engine, play_matches
from nop_sim.games.new_order.settings import Settings

settings = Settings()
t = time.perf_counter()
compile_callees()
callees_s = time.perf_counter() - t
compile_engine()
engine_s = time.perf_counter() - t - callees_s
play_matches(settings, "balanced", n_matches=1, seed=0, threads=1)
compile_s = time.perf_counter() - t
t = time.perf_counter()
play_matches(settings, "balanced", n_matches=2, seed=0,
             threads=numba.config.NUMBA_NUM_THREADS, chunk_size=1)
print(json.dumps({"compile_s": compile_s, "callees_compile_s": callees_s,
                  "engine_compile_s": engine_s,
                  "parallel_compile_s": time.perf_counter() - t}))
"""


def _compile_times(cold: bool) -> dict:
    """The compile figures of a fresh interpreter; ``cold``: with an empty numba cache."""
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="nop_sim_bench_") as cache:
        if cold:
            env["NUMBA_CACHE_DIR"] = cache
        out = subprocess.run([sys.executable, "-c", _COMPILE_SNIPPET], env=env, check=True,
                             capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


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


def bench_engine(seconds: float = 5.0, cold: bool = False, rounds: int = 5) -> dict:
    """Hands and matches per second of the engine, ``seconds`` per measurement.

    ``cold``: the compile figures are of a full compile (an empty numba cache).

    With OpenSpiel installed (:mod:`.bench_reference`), ``rounds`` rounds of (at most) one second
    each of its random playouts then one of the engine's ``balanced`` hands, in turn on this
    thread: ``openspiel_playouts_per_s`` and ``ratio_vs_openspiel`` are their medians
    (the ratio's over the rounds' own ratios, in ``ratio_rounds``), so a machine whose
    load changes slows both alike. Without OpenSpiel those keys are None and
    ``reference`` says how to add it.
    """
    compiled = _compile_times(cold)
    settings = Settings()
    cores = numba.config.NUMBA_NUM_THREADS
    # load both drivers outside the clock (the child above filled the cache unless cold)
    play_matches(settings, "balanced", n_matches=1, seed=0, threads=1)
    play_matches(settings, "balanced", n_matches=2, seed=0, threads=cores, chunk_size=1)
    out = {"players": settings.players, "settings": "default",
           **{k: round(v, 2) for k, v in compiled.items()}, "cold_compile": cold,
           "cores": cores}
    for agents in ("balanced", "random"):
        whps, _, hps, mps = _measure(play_matches, settings, agents, seconds, 1, 32)
        phps, _, _, _ = _measure(play_matches, settings, agents, seconds, cores, 8)
        key = "" if agents == "balanced" else "random_"
        out[f"{key}hands_per_s"] = round(hps)
        out[f"{key}matches_per_s"] = round(mps, 1)
        out[f"{key}wall_hands_per_s"] = round(whps)
        out[f"{key}parallel_hands_per_s"] = round(phps)
    out.update(_against_openspiel(settings, rounds, min(1.0, seconds)))
    out["python"] = sys.version.split()[0]
    out["numba"] = numba.__version__
    return out


def _against_openspiel(settings, rounds: int, seconds: float) -> dict:
    """The engine's hands against OpenSpiel's playouts per CPU-second, interleaved, each
    measured for ``seconds`` a round."""
    if not reference.available():
        return {"reference": "OpenSpiel is not installed: pip install 'nop-sim[bench]' (make "
                             "bench does)", "openspiel_playouts_per_s": None,
                "ratio_vs_openspiel": None, "ratio_rounds": []}
    ours, theirs = [], []
    for r in range(rounds):
        theirs.append(reference.playouts_per_s(seconds, seed=r))
        ours.append(_measure(play_matches, settings, "balanced", seconds, 1, 32,
                             seed=100 + r)[2])
    ratios = [o / t for o, t in zip(ours, theirs, strict=True)]
    return {"reference": "OpenSpiel universal_poker, 4-player limit hold'em, random playouts "
                         "(every action uniform over legal_actions())",
            "openspiel_playouts_per_s": round(statistics.median(theirs)),
            "ratio_vs_openspiel": round(statistics.median(ratios), 2),
            "ratio_rounds": [round(x, 2) for x in ratios]}


def play_rotation(scn, point, rotation: int, ids: np.ndarray, chunk_size: int,
                  threads: int) -> int:
    """The hands of matches ``ids`` of rotation ``rotation`` of the scenario's ``point``,
    played by the engine alone in one call on ``threads`` threads (``nop-sim bench
    runner``'s engine side); a mixture seat plays the row the run draws for each match."""
    settings = scn.settings_at(point)
    specs = scn.seat_specs(point, rotation)
    mix = mix_rows(scn.seed, specs, ids)
    tables = table_of = None
    if (mix >= 0).any():
        tables, table_of = match_tables([specs], np.zeros(ids.size, np.int64), mix)
    res = play_matches(settings, specs if tables is None else tables, ids.size, seed=rotation,
                       table_of=table_of, chunk_size=chunk_size, threads=threads)
    return res.count("hands")


BENCH = EngineBench(command="engine", measure=bench_engine, baseline=BASELINE,
                    play_rotation=play_rotation)


def engine_bench() -> EngineBench:
    """The game's ``bench`` hook (named by the descriptor, so that registering the game loads
    no engine): what ``nop-sim bench engine`` and ``bench runner`` time."""
    return BENCH
