"""Benchmarks: speeds measured as medians, with a reference measured in the same run.

One function per command of ``nop-sim bench``; each returns its figures as a
dict, which the command prints as JSON. They ship with the package, so an
installed nop-sim measures itself (no source checkout needed).

* :func:`bench_evaluator`: hands per second of the evaluator, against eval7;
* :func:`bench_game`: a game's engine alone, by the command its ``bench`` hook
  names (:class:`~nop_sim.games.registry.EngineBench`, from ``games/<game>/bench.py``):
  ``engine``, New Order's hands and matches per second, against OpenSpiel;
  ``ordered``, Ordered Hand's games per second;
* :func:`bench_runner`: ``nop-sim run``'s rate against the engine it drives.

Never timed inside unit tests: the machines are shared and noisy, so each
figure is the median (or best) of several repeats and compared with a peer
measured alongside it. Compile times are measured in a fresh interpreter,
whose numba cache can start empty (``NUMBA_CACHE_DIR`` must be set before
numba is imported).
"""

from __future__ import annotations

from nop_sim.games import registered_games
from nop_sim.games.registry import EngineBench
from nop_sim.studies.bench.evaluator import bench_evaluator, random_hands
from nop_sim.studies.bench.runner import bench_runner

__all__ = ["bench_evaluator", "bench_game", "bench_runner", "engine_benches", "random_hands"]


def engine_benches() -> dict[str, EngineBench]:
    """command -> the bench of the game whose engine ``nop-sim bench <command>`` times, for
    every registered game with a ``bench`` hook (this loads their engines)."""
    return {b.command: b for b in (game.bench() for game in registered_games()
                                   if game.bench is not None)}


def bench_game(command: str, **options) -> dict:
    """The figures of ``nop-sim bench <command>``: the engine of the game whose bench that
    command is, timed with ``options`` (the command's)."""
    benches = engine_benches()
    if command not in benches:
        raise ValueError(f"no game's engine is benched as {command!r}; benches: "
                         f"{', '.join(benches) or 'none'}")
    return benches[command].measure(**options)
