"""Where parts are played: here, in local worker processes, or on a Dask cluster.

An executor is ``parts(game, scn, plan, out)``: it takes parts from the
:class:`~nop_sim.run.planning.PartPlan` and yields each :class:`PartResult` as
it finishes. The game plays each part (``Game.play_chunks``, else its
``play_chunk`` chunk by chunk, :func:`part_player`). A small run plays in the
main process; a larger one starts worker processes, forked from a fork server
that loaded the kernels once (the main process plays meanwhile), or uses a Dask
cluster. A local worker writes its part into the run folder itself
(:func:`nop_sim.results.store.write_part`) and the main process syncs it to the disk
and renames it into place (a worker waiting on the disk left its core idle); a Dask
worker, which need not share the run's disk, sends its tables back.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from nop_sim.core.errors import RunError
from nop_sim.core.profiling import add, current, phase, take
from nop_sim.games import Game, get_game
from nop_sim.results import store
from nop_sim.run.compiling import kernels_compiled, mark_compiled
from nop_sim.run.planning import Chunk, PartPlan
from nop_sim.run.scenario import Scenario
from nop_sim.run.server import start_early
from nop_sim.run.server import worker_context as _worker_context

__all__ = ["PartResult", "dask_client", "executor", "part_player", "play_part"]

WORKERS_WORTH = 1.5  # seconds of simulation workers must save to be started (their start-up)
STARTING_PART = 0.2  # seconds of play a part played here while the workers start aims at


@dataclass
class PartResult:
    """What a worker sends back for a part: its tables (None when it wrote them itself),
    the work done and its phase times (:mod:`nop_sim.core.profiling`)."""

    chunks: list[Chunk]
    tables: dict | None
    work: int
    seconds: float   # CPU seconds of the thread that played it
    profile: dict[str, float]
    # the temporary folder a local worker wrote the part into, for the run to put in place
    # (:func:`nop_sim.results.store.place_part`); None: sent as tables, or in place already
    written: Path | None = None


def chunk_tables(game: Game) -> tuple[str, ...]:
    """Every table a chunk of ``game`` writes: its row tables, then its summed ones."""
    return (*game.tables, *game.summed_tables)


def checked(game: Game, chunk: Chunk, tables: dict) -> dict:
    """The tables a game's chunk returned, refused unless they are the ones it declares."""
    if set(tables) != set(chunk_tables(game)):
        raise RuntimeError(f"game {game.kind!r}: chunk {chunk.name} returned tables "
                           f"{sorted(tables)}; its descriptor declares "
                           f"{sorted(chunk_tables(game))}")
    return tables


def _chunk_by_chunk(play_chunk: Callable, scn: Scenario, chunks: list[Chunk]) -> dict:
    """Consecutive chunks' tables, each played by ``play_chunk`` and appended (the
    ``Game.play_chunks`` of a game that has none)."""
    game = get_game(scn.kind)
    played = [checked(game, c, play_chunk(scn, c)) for c in chunks]
    return {name: store.concat([p[name] for p in played]) for name in played[0]}


def part_player(game: Game) -> Callable:
    """What plays a part of ``game``: ``(scn, chunks) -> tables`` (``Game.play_chunks``,
    else its ``play_chunk`` chunk by chunk). Picklable: executors ship it to workers."""
    return game.play_chunks or partial(_chunk_by_chunk, game.play_chunk)


def play_part(play: Callable, scn: Scenario, chunks: list[Chunk], work: str,
              out: Path | None = None, store_version: int = 0) -> PartResult:
    """Play consecutive chunks (``play`` is :func:`part_player`'s) into one set of tables.

    With ``out``, write them there as one part (:func:`nop_sim.results.store.write_part`),
    which the run puts in place (:func:`store_part`), and send back only the work done;
    without, send the tables (a Dask worker need not share the run's disk). Executors
    ship this function and ``play`` to their workers.
    """
    load_kernels(scn.kind)
    # the part's own CPU time sizes the next parts (the clock would count other
    # processes sharing the cores)
    t0 = time.thread_time()
    sim0 = current("simulation")
    t = time.perf_counter()
    tables = play(scn, chunks)
    # what the game did beside the phase it marks "simulation": its tables
    add("tables", time.perf_counter() - t - (current("simulation") - sim0))
    game = get_game(scn.kind)
    checked(game, chunks[0], tables)
    with phase("tables"):
        tables = {name: store.arrow(table) for name, table in tables.items()}
        for name in game.summed_tables:  # a part stores its counters summed
            tables[name] = store.summed(tables[name])
    seconds = time.thread_time() - t0
    done = store.column_sum(tables["counts"], work)
    written = None
    if out is not None:
        # synced and renamed into place by the run's process, while this one plays on
        written = store.write_part(out, chunks, tables, store_version, place=False)
        tables = None
    return PartResult(chunks, tables, done, seconds, take(), written)


_loaded: set[str] = set()


def load_kernels(kind: str) -> None:
    """Load the game's compiled kernels in this process, once (timed as "start")."""
    if kind not in _loaded:
        load = get_game(kind).load_kernels
        if load is not None:
            with phase("start"):
                load()
        _loaded.add(kind)


def _leave_ctrl_c_to_the_run() -> None:
    """A local worker ends quietly on Ctrl-C, as soon as its kernel call returns: the
    run reports the interruption once (a half-written part is a ``.tmp-*`` folder,
    removed later), instead of a traceback from every worker."""
    signal.signal(signal.SIGINT, lambda *_: os._exit(130))


def _worker_ready(play: Callable) -> tuple[float, tuple[str, ...]]:
    """A new worker's first task: import the game (unpickling ``play``, its
    ``play_chunk``, registers it) and Parquet (the store's import); return the
    clock, and the games whose kernels it has loaded (a fork server's workers
    have them already)."""
    return time.perf_counter(), tuple(sorted(_loaded))


def serial(game: Game, scn: Scenario, plan: PartPlan, out: Path) -> Iterator[PartResult]:
    """Parts played here, one after another (``--workers 1``)."""
    while plan:
        part = play_part(part_player(game), scn, plan.next(), game.work)
        plan.learn(part)
        yield part


def local(workers: int):
    """``parts``: ``workers`` local processes, after a first part played here."""
    def parts(game: Game, scn: Scenario, plan: PartPlan, out: Path) -> Iterator[PartResult]:
        player = part_player(game)
        compiled = game.warm_up is None or kernels_compiled(scn.kind)
        if compiled:
            # a run surely worth workers starts their server now (at once, if nop-sim run
            # did not already)
            start_early(scn.kind, scn.matches * len(scn.points()), workers, None)
            # With the kernels compiled, the first part is played here: its time says
            # whether workers would save more than their start-up costs. A small run
            # (make run) ends here without starting any.
            first = play_part(player, scn, plan.next(), game.work)
            plan.learn(first)
            yield first
            left = plan.per_match * sum(c.n_matches for c in plan.left())
            if left * (1 - 1 / workers) < WORKERS_WORTH:
                plan.workers = 1
                yield from serial(game, scn, plan, out)
                return
        # cold, the kernels compile once here, into numba's cache, while spawned
        # workers import; they load them from there
        ctx = _worker_context(scn.kind) if compiled else multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                   initializer=_leave_ctrl_c_to_the_run)
        try:
            t0 = time.perf_counter()
            # every worker starts now (one task each); starting them waits for the
            # fork server or the spawns, on a thread, while this process plays
            with ThreadPoolExecutor(1) as starter:
                ready = starter.submit(
                    lambda: [pool.submit(_worker_ready, player) for _ in range(workers)])
                if not compiled:
                    with phase("compile"):
                        game.warm_up(pool)
                    mark_compiled(scn.kind)
                while compiled and plan and not (ready.done() and all(
                        f.done() for f in ready.result())):
                    part = play_part(player, scn, plan.next(STARTING_PART), game.work)
                    plan.learn(part)
                    yield part
                ready = ready.result()
            pending = {}

            def submit():
                chunks = plan.next()
                fut = pool.submit(play_part, player, scn, chunks, game.work, out,
                                  game.store_version)
                pending[fut] = chunks

            for _ in range(2 * workers):
                if plan:
                    submit()
            if pending or all(f.done() for f in ready):  # (no wait when nothing is left)
                add("start", max(f.result()[0] for f in ready) - t0 if ready else 0.0)
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    pending.pop(fut)
                    part = fut.result()
                    plan.learn(part)
                    if plan:
                        submit()
                    yield part
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    return parts


_NO_DASK = ("--scheduler needs dask.distributed: pip install 'nop-sim[dask]' "
            "(or pip install 'dask[distributed]')")


def dask_client(address: str, error: type[Exception] | None = None):
    """A ``distributed.Client`` of the scheduler at ``address`` (``--scheduler``), or
    ``error`` (default :class:`RunError`) with one line saying what is missing.

    How long it waits for the scheduler: ``NOP_SIM_DASK_TIMEOUT`` (e.g. "30s", default 10s).
    """
    error = error or RunError
    try:
        # here, not at the top: an optional dependency, slow to import
        from distributed import Client
    except ImportError:
        raise error(_NO_DASK) from None
    try:
        return Client(address, timeout=os.environ.get("NOP_SIM_DASK_TIMEOUT", "10s"))
    except (OSError, TimeoutError) as exc:
        raise error(f"--scheduler {address}: cannot reach the Dask scheduler ({exc}); "
                    f"check the address (tcp://HOST:PORT) and that it is running") from None


def dask(address: str):
    """``parts``: the workers of the Dask scheduler at ``address``; tables come back."""
    def parts(game: Game, scn: Scenario, plan: PartPlan, out: Path) -> Iterator[PartResult]:
        from distributed import as_completed  # here: optional, slow to import

        client = dask_client(address)
        try:
            n = max(1, sum(client.nthreads().values()))
            plan.workers = n

            def submit():
                chunks = plan.next()
                return client.submit(play_part, part_player(game), scn, chunks, game.work,
                                     key=f"nop-{chunks[0].name}-{len(chunks)}-{chunks[0].seed}",
                                     pure=False)

            running = as_completed([submit() for _ in range(2 * n) if plan])
            for fut in running:
                part = fut.result()
                plan.learn(part)
                if plan:
                    running.add(submit())
                yield part
        finally:
            client.close()
    return parts


def executor(workers: int, scheduler: str | None):
    """``parts(game, scn, plan, out)``: yields each :class:`PartResult` as it finishes."""
    if scheduler:
        try:
            import distributed  # noqa: F401 - here: optional, slow to import
        except ImportError:
            raise RunError(_NO_DASK) from None
        return dask(scheduler)
    return serial if workers <= 1 else local(workers)


def store_part(out: Path, game: Game, part: PartResult) -> None:
    """Write a part the worker sent back as tables, or put in place the one it wrote."""
    if part.tables is not None:
        store.write_part(out, part.chunks, part.tables, game.store_version)
    elif part.written is not None:
        store.place_part(part.written, out / "chunks" / part.chunks[0].name)

