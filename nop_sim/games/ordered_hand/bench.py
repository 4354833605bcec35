"""The Ordered Hand engine's speed on one core (``nop-sim bench ordered``): :data:`BENCH`,
the game's ``bench`` hook.

``games_per_s_4p``: 4 players, default rules, ``random`` agents.
``games_per_s_2p_advanced``: 2 players with the advanced (betting) rules,
``bettor`` against ``raiser``. Both are games per CPU second of the serial
driver (one thread, so one core); ``wall_*`` give the wall-clock rates, which
a busy machine lowers. ``compile_s``: import and the first games of both
set-ups in a fresh process with an empty numba cache. ``extra_games_per_s``
adds other agent mixes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import warnings

from nop_sim.games.ordered_hand.engine import play_matches
from nop_sim.games.ordered_hand.settings import OrderedSettings
from nop_sim.games.registry import EngineBench

__all__ = ["BENCH", "bench_ordered", "engine_bench"]

_COMPILE_SNIPPET = """
import time, warnings
warnings.simplefilter("ignore")
t = time.perf_counter()
from nop_sim.games.ordered_hand import OrderedSettings, play_matches
play_matches(OrderedSettings(), "random", 10, seed=0)
play_matches(OrderedSettings(players=2, betting=True), ["bettor", "raiser"], 10, seed=0)
print(time.perf_counter() - t)
"""


def _compile_seconds() -> float:
    """Import + first games in a child process whose numba cache starts empty."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = subprocess.run([sys.executable, "-c", _COMPILE_SNIPPET], env=env, check=True,
                             capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def _games_per_second(settings, agents, n_games: int, repeats: int = 3) -> tuple[float, float]:
    """(games per CPU second, games per wall second), best of ``repeats`` runs.

    The serial driver runs on one thread, so CPU time is the time of one
    core; on a busy machine it is the steadier of the two figures.
    """

    play_matches(settings, agents, 512, seed=1)  # compiled (or loaded from cache) here
    best_cpu = best_wall = float("inf")
    for r in range(repeats):
        t_wall, t_cpu = time.perf_counter(), time.process_time()
        play_matches(settings, agents, n_games, seed=100 + r)
        best_cpu = min(best_cpu, time.process_time() - t_cpu)
        best_wall = min(best_wall, time.perf_counter() - t_wall)
    # max(): a tiny run can finish inside the CPU clock's resolution
    return n_games / max(best_cpu, 1e-9), n_games / max(best_wall, 1e-9)


def bench_ordered(n_games: int = 200_000, compile_time: bool = True) -> dict:
    """Games per second of the serial driver (``n_games`` per set-up; half for the extras);
    ``compile_time``: also time a cold compile in a child process."""
    warnings.simplefilter("ignore")
    four = OrderedSettings(players=4)
    two_bet = OrderedSettings(players=2, betting=True)
    half = max(1, n_games // 2)
    runs = {
        "4p": (four, "random", n_games),
        "2p_advanced": (two_bet, ["bettor", "raiser"], n_games),
        "4p_builder": (four, "builder", half),
        "4p_low_high_builder_random": (four, ["low", "high", "builder", "random"], half),
        "2p_advanced_random": (two_bet, "random", half),
        "2p_plain_random": (OrderedSettings(players=2), "random", half),
    }
    rates = {k: _games_per_second(*v) for k, v in runs.items()}
    out = {
        "games_per_s_4p": round(rates["4p"][0]),
        "games_per_s_2p_advanced": round(rates["2p_advanced"][0]),
        "wall_games_per_s_4p": round(rates["4p"][1]),
        "wall_games_per_s_2p_advanced": round(rates["2p_advanced"][1]),
        "extra_games_per_s": {k: round(v[0]) for k, v in rates.items()
                              if k not in ("4p", "2p_advanced")},
        "games": n_games,
        "threads": 1,
        "load_average_1min": round(os.getloadavg()[0], 2),
    }
    if compile_time:
        out["compile_s"] = round(_compile_seconds(), 2)
    return out


BENCH = EngineBench(command="ordered", measure=bench_ordered)


def engine_bench() -> EngineBench:
    """The game's ``bench`` hook (named by the descriptor, so that registering the game loads
    no engine): what ``nop-sim bench ordered`` times."""
    return BENCH
