"""Benchmark the Ordered Hand engine on one core; prints one JSON object.

    .venv/bin/python scripts/bench_ordered.py [--games 200000]

``games_per_s_4p``: 4 players, default rules, ``random`` agents.
``games_per_s_2p_advanced``: 2 players with the advanced (betting) rules,
``bettor`` against ``raiser``. ``compile_s``: the first games of both set-ups in
a fresh process with an empty numba cache. The serial driver runs on one
thread; ``extra`` adds other agent mixes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

_COMPILE_SNIPPET = """
import time, warnings
warnings.simplefilter("ignore")
t = time.perf_counter()
from nop_sim.ordered import OrderedSettings, play_ordered
play_ordered(OrderedSettings(), "random", 10, seed=0)
play_ordered(OrderedSettings(players=2, betting=True), ["bettor", "raiser"], 10, seed=0)
print(time.perf_counter() - t)
"""


def compile_seconds() -> float:
    """Import + first games in a child process whose numba cache starts empty."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = subprocess.run([sys.executable, "-c", _COMPILE_SNIPPET], env=env, check=True,
                             capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def games_per_second(settings, agents, n_games: int, repeats: int = 3) -> float:
    from nop_sim.ordered import play_ordered

    play_ordered(settings, agents, 512, seed=1)  # compiled (or loaded from cache) here
    best = float("inf")
    for r in range(repeats):
        t = time.perf_counter()
        play_ordered(settings, agents, n_games, seed=100 + r)
        best = min(best, time.perf_counter() - t)
    return n_games / best


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--no-compile", action="store_true", help="skip the compile_s child")
    args = parser.parse_args(argv)
    import warnings

    warnings.simplefilter("ignore")
    from nop_sim.ordered import OrderedSettings

    four = OrderedSettings(players=4)
    two_bet = OrderedSettings(players=2, betting=True)
    out = {
        "games_per_s_4p": round(games_per_second(four, "random", args.games)),
        "games_per_s_2p_advanced": round(
            games_per_second(two_bet, ["bettor", "raiser"], args.games)),
        "extra": {
            "4p_builder": round(games_per_second(four, "builder", args.games // 2)),
            "4p_low_high_builder_random": round(
                games_per_second(four, ["low", "high", "builder", "random"], args.games // 2)),
            "2p_advanced_random": round(games_per_second(two_bet, "random", args.games // 2)),
            "2p_plain_random": round(
                games_per_second(OrderedSettings(players=2), "random", args.games // 2)),
        },
        "games": args.games,
        "threads": 1,
    }
    if not args.no_compile:
        out["compile_s"] = round(compile_seconds(), 2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
