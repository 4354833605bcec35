"""The one-time compile: saying so while it happens, and doing it ahead (``nop-sim compile``).

Numba compiles a kernel the first time it is called and keeps the machine
code in its cache; later processes load it in a fraction of a second. The
first run after an install (or after an update of the kernels) therefore
waits for a compile. Two things keep that wait from being a silent pause:

* :func:`announce_compiles` prints one line to stderr (a terminal) when a
  nop-sim kernel starts compiling in this process; kernels.jit installs it. It listens to numba's documented event
  API (``numba.core.event``, event ``"numba:compile"``, broadcast on a real
  compile, never on a cache load).
* :func:`compile_all` compiles every registered game's kernel groups
  (``Game.kernels``) into the cache at once, one process per group, as many
  at a time as there are cores, and reports each group's start and end (and,
  while none starts or ends, what is still compiling): a cold compile takes
  minutes on two cores. ``make install`` runs it (``nop-sim compile``), so
  that the first ``make run`` finds the kernels compiled.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

import numba

import nop_sim.kernels
from nop_sim.core.kernel_sources import kernel_digest
from nop_sim.games import DEFAULT_KIND, get_game, registered_games

# the note and its listener live with the numba options (kernels.jit installs it)
from nop_sim.kernels.jit import COMPILE_NOTE, COMPILE_TIME, announce_compiles

__all__ = ["COMPILE_NOTE", "COMPILE_TIME", "CompileEvent", "announce_compiles", "compile_all",
           "kernels_compiled", "mark_compiled"]

HEARTBEAT = 15.0  # seconds without a group starting or ending before a "still compiling" event


def _marker(kind: str):
    """The file that says game ``kind``'s kernels are in numba's cache (None: no cache)."""
    folder = (Path(numba.config.CACHE_DIR) if numba.config.CACHE_DIR
              else Path(nop_sim.kernels.__file__).resolve().parent / "__pycache__")
    if not os.access(folder if folder.exists() else folder.parent, os.W_OK):
        return None
    return folder / f"nop_sim-{kind}.compiled"


def _stamp() -> str:
    return f"{kernel_digest()} numba {numba.__version__}"


def kernels_compiled(kind: str) -> bool:
    """True when game ``kind``'s kernels were compiled into this cache, for these sources
    and this numba (``nop-sim compile``, or a run's first compile)."""
    marker = _marker(kind)
    try:
        return marker is not None and marker.read_text() == _stamp()
    except OSError:
        return False


def mark_compiled(kind: str) -> None:
    """Record that game ``kind``'s kernels are in numba's cache now."""
    marker = _marker(kind)
    if marker is not None:
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text(_stamp())
        except OSError:
            pass  # a read-only cache: runs take the cautious path


def _compile_group(kind: str, name: str) -> float:
    """Compile one kernel group of a game in this (worker) process; its seconds."""

    t = time.perf_counter()
    get_game(kind).kernels[name]()
    return time.perf_counter() - t


@dataclass(frozen=True)
class CompileEvent:
    """What :func:`compile_all` reports as it goes.

    kind : ``"start"`` (``group`` handed to a worker), ``"done"`` (``group``
        compiled, in ``seconds``) or ``"wait"`` (no group started or ended for
        :data:`HEARTBEAT` seconds; ``running`` are still compiling)
    elapsed : seconds since the compile started
    done, total : groups finished so far, and all groups
    running : the groups compiling now; ``queued``: how many wait for a worker
    """

    kind: str
    group: str | None
    seconds: float
    elapsed: float
    done: int
    total: int
    running: tuple[str, ...]
    queued: int


def compile_all(workers: int | None = None,
                progress: Callable[[CompileEvent], None] | None = None,
                runs: bool = False) -> dict[str, float]:
    """Compile (or load) every registered game's kernel groups, ``workers`` processes at once.

    Returns ``"<game>: <group>" -> seconds``. ``progress(event)`` hears each
    group start and finish, and every :data:`HEARTBEAT` seconds without either
    (:class:`CompileEvent`). A group starts when a worker is free for it, so
    the events say which groups run and how many are left. ``runs``: only the groups
    a run of the default game needs (its ``Game.run_kernels``: what ``make run`` plays),
    so that a first run starts sooner and no other group takes a core from them; the
    others compile on first use, or in a later call without it (which loads these).
    """

    t0 = time.perf_counter()
    games = [get_game(DEFAULT_KIND)] if runs else registered_games()
    for game in games:  # drop stale kernels once, before the workers look
        if game.refresh_kernels is not None:
            game.refresh_kernels()
    queue = [(g.kind, name) for g in games for name in g.kernels
             if not runs or g.run_kernels is None or name in g.run_kernels]
    total = len(queue)
    workers = max(1, min(workers or os.cpu_count() or 1, total))
    times: dict[str, float] = {}
    running: dict = {}  # future -> "<game>: <group>"

    def say(kind: str, group: str | None = None, seconds: float = 0.0) -> None:
        if progress:
            progress(CompileEvent(kind, group, seconds, time.perf_counter() - t0, len(times),
                                  total, tuple(running.values()), len(queue)))

    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        def start_next() -> None:
            kind, name = queue.pop(0)
            running[pool.submit(_compile_group, kind, name)] = label = f"{kind}: {name}"
            say("start", label)

        while queue and len(running) < workers:
            start_next()
        while running:
            finished, _ = wait(running, timeout=HEARTBEAT, return_when=FIRST_COMPLETED)
            if not finished:
                say("wait")
            for fut in finished:
                label = running.pop(fut)
                times[label] = fut.result()
                say("done", label, times[label])
                if queue:
                    start_next()
    for g in games:
        mark_compiled(g.kind)
    return times
