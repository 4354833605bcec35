"""Runs scenarios: chunks of matches, seeds, executors and the Parquet results store.

A run is a list of chunks, each ``(point, index)``: a sweep point and a
slice of its matches. A chunk's seed comes from
``SeedSequence(seed, spawn_key=(point, index))``, so a chunk's numbers do not
depend on the worker count, the order chunks finish in, or the backend
(local processes or a Dask cluster).

The runner knows no game: the scenario's :class:`~nop_sim.games.Game` plays
each chunk (``play_chunk``, or several at once: ``play_chunks``) and declares
the tables it writes. Consecutive chunks are played and stored together as a
*part* of about a second of play
(:class:`_PartPlan`): the unit a worker plays and writes, the merge reads and a
resume redoes. Parts change how chunks are stored, never a chunk's rows. A
small run plays in the main process; a larger one starts worker processes,
forked from a fork server that loaded the kernels once (the main process
plays meanwhile), or uses a Dask cluster. The store is one folder::

    manifest.json              scenario (and its game's kind), resolved settings,
                               seed, versions, git, times
    chunks/p0000-c000000/      one folder per finished part, named after its first
        matches.parquet ...    chunk, renamed into place when complete; done.json
                               lists its chunks (seeds, sizes) and files (checksums)
    <table>.parquet            the game's tables (``Game.tables``: e.g. matches,
                               seats, counts), merged from the parts as they come
                               (:class:`Merger`), in plan order
    arrays.parquet             the game's summed per-point counters (``summed_tables``)
    events.parquet             event logs of the matches ``[run] log_sample`` picks
                               (see :func:`load_match_log`), empty without it

A run killed at any moment leaves only whole part folders (plus ``.tmp-*``
folders, removed when a later run of the folder finishes); ``--resume``
checks every finished part's checksums, redoes damaged ones and runs the
rest. A run that fails before its first part is written (a disk error, an
unreachable scheduler) leaves the folder as it found it. Where the time goes:
``nop-sim run --profile`` (:mod:`nop_sim.core.profiling`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nop_sim.core.errors import RunError
from nop_sim.games import Game, game_of_folder, get_game
from nop_sim.games.registry import seat_names
from nop_sim.run.folder_lock import LOCK_FILES, hold_folder
from nop_sim.run.scenario import Scenario

__all__ = ["Chunk", "MatchLog", "RunError", "RunResult", "not_a_run", "plan_chunks", "run_chunk",
           "run_scenario", "load_match_log", "load_tables"]



@dataclass(frozen=True)
class Chunk:
    """A slice of one sweep point's matches."""

    point: int
    index: int
    first_match: int
    n_matches: int
    rotation: int  # rotation of the chunk's first match (seats rotate per match)
    seed: int

    @property
    def name(self) -> str:
        return f"p{self.point:04d}-c{self.index:06d}"

    def rotation_batches(self, n_rotations: int
                         ) -> tuple[np.ndarray, list[tuple[int, np.ndarray, int]]]:
        """Seat rotation of each match, and the batches that play them.

        Match ``g`` of the run sits rotation ``g % n_rotations`` (seats rotate
        per match, not per chunk, so every preset sits in every seat equally
        often whatever the chunk size). Each rotation's matches of the chunk
        are one batch with its own seed, so a chunk's rows depend only on the
        chunk, never on the worker count.

        Returns
        -------
        rotation : int64 (n_matches,), the rotation of each of the chunk's matches
        batches : ``(r, idx, seed)`` per rotation present: the positions in the
            chunk of rotation ``r``'s matches (ascending) and the batch's seed
        """
        rotation = (self.first_match + np.arange(self.n_matches, dtype=np.int64)) % n_rotations
        batches = []
        for r in range(n_rotations):
            idx = np.flatnonzero(rotation == r)
            if idx.size:
                seed = self.seed if n_rotations == 1 else chunk_seed(self.seed, self.point, r)
                batches.append((r, idx, seed))
        return rotation, batches


def chunk_seed(seed: int, point: int, index: int) -> int:
    """The chunk's own seed: independent streams keyed by (point, chunk index)."""
    ss = np.random.SeedSequence(seed, spawn_key=(point, index))
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def plan_chunks(scn: Scenario) -> list[Chunk]:
    """Every chunk of the run, sweep point by sweep point."""
    chunks = []
    for p, _point in enumerate(scn.points()):
        n_chunks = -(-scn.matches // scn.chunk)
        for i in range(n_chunks):
            first = i * scn.chunk
            chunks.append(Chunk(p, i, first, min(scn.chunk, scn.matches - first),
                                first % scn.n_rotations, chunk_seed(scn.seed, p, i)))
    return chunks


# ---------------------------------------------------------------------------
# One chunk -> tidy tables (runs in a worker: top-level, picklable arguments)
# ---------------------------------------------------------------------------
def run_chunk(scn: Scenario, chunk: Chunk) -> dict[str, pd.DataFrame]:
    """Play one chunk with the scenario's game: its tables (``Game.play_chunk``).

    Executors ship ``Game.play_chunk`` itself to their workers: a module-level
    function pickles by reference, so a worker that unpickles it imports (and
    so registers) the game, whichever module defines it.
    """
    return get_game(scn.kind).play_chunk(scn, chunk)


def _checked(game: Game, chunk: Chunk, tables: dict[str, pd.DataFrame]
             ) -> dict[str, pd.DataFrame]:
    """The tables a game's chunk returned, refused unless they are the ones it declares."""
    if set(tables) != set(_chunk_tables(game)):
        raise RuntimeError(f"game {game.kind!r}: chunk {chunk.name} returned tables "
                           f"{sorted(tables)}; its descriptor declares "
                           f"{sorted(_chunk_tables(game))}")
    return tables


def _chunk_tables(game: Game) -> tuple[str, ...]:
    return (*game.tables, *game.summed_tables)


# ---------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------
def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _arrow(table):
    """A chunk table as a ``pyarrow.Table`` (games may return pandas or Arrow tables)."""
    import pyarrow as pa

    return table if isinstance(table, pa.Table) else pa.Table.from_pandas(table,
                                                                         preserve_index=False)


def _concat(tables: list):
    """Chunk tables of one name, appended; empty ones (whose text columns have no type
    yet) give way to the others."""
    import pyarrow as pa

    tables = [_arrow(t) for t in tables]
    full = [t for t in tables if t.num_rows] or tables[:1]
    if len(full) == 1:
        return full[0]
    schema = full[0].schema
    return pa.concat_tables([t.select(schema.names).cast(schema) for t in full])


def _summed(table):
    """A summed table's rows with equal keys added up (first-seen key order)."""
    keys = [k for k in table.column_names if k != "value"]
    if table.num_rows == 0 or not keys:
        return table
    out = table.group_by(keys, use_threads=False).aggregate([("value", "sum")])
    return out.rename_columns([*keys, "value"]).select(table.column_names).cast(table.schema)


def concat_tables(parts: list[dict], names: Iterable[str] | None = None
                  ) -> dict[str, pd.DataFrame]:
    """Several chunks' tables (as ``Game.play_chunk`` returns them), appended, as pandas:
    every table, or those of ``names``."""
    names = list(parts[0]) if names is None else list(names)
    return {name: _concat([p[name] for p in parts]).to_pandas() for name in names}


def _write_part(out: Path, chunks: list[Chunk], tables: dict, store_version: int) -> None:
    """Write a part's tables into a temporary folder, then rename it into place.

    A part is a run of consecutive chunks stored together (one file per table):
    its folder is named after its first chunk, and ``done.json`` lists every
    chunk it holds with its seed, and every file with its rows and checksum.
    """
    import pyarrow.parquet as pq

    from nop_sim.core.profiling import phase

    final = out / "chunks" / chunks[0].name
    tmp = out / "chunks" / f".tmp-{chunks[0].name}-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    done = {"chunk": chunks[0].name, "n_matches": sum(c.n_matches for c in chunks),
            "chunks": [{"name": c.name, "n_matches": c.n_matches, "seed": c.seed} for c in chunks],
            "store_version": store_version, "files": {}}
    try:
        for name, table in tables.items():
            path = tmp / f"{name}.parquet"
            with phase("write"):
                pq.write_table(table, path)
                with open(path, "rb") as fh:
                    os.fsync(fh.fileno())
            with phase("checksums"):
                done["files"][name] = {"rows": table.num_rows, "sha256": _sha256(path)}
        (tmp / "done.json").write_text(json.dumps(done, indent=1))
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if final.exists():
        shutil.rmtree(final)
    os.replace(tmp, final)


@dataclass
class PartResult:
    """What a worker sends back for a part: its tables (None when it wrote them itself),
    the work done and its phase times (:mod:`nop_sim.core.profiling`)."""

    chunks: list[Chunk]
    tables: dict | None
    work: int
    seconds: float   # CPU seconds of the thread that played it
    profile: dict[str, float]


def _chunk_by_chunk(play_chunk: Callable, scn: Scenario, chunks: list[Chunk]) -> dict:
    """Consecutive chunks' tables, each played by ``play_chunk`` and appended (the
    ``Game.play_chunks`` of a game that has none)."""
    game = get_game(scn.kind)
    played = [_checked(game, c, play_chunk(scn, c)) for c in chunks]
    return {name: _concat([p[name] for p in played]) for name in played[0]}


def part_player(game: Game) -> Callable:
    """What plays a part of ``game``: ``(scn, chunks) -> tables`` (``Game.play_chunks``,
    else its ``play_chunk`` chunk by chunk). Picklable: executors ship it to workers."""
    return game.play_chunks or partial(_chunk_by_chunk, game.play_chunk)


def play_part(play: Callable, scn: Scenario, chunks: list[Chunk], work: str,
              out: Path | None = None, store_version: int = 0) -> PartResult:
    """Play consecutive chunks (``play`` is :func:`part_player`'s) into one set of tables.

    With ``out``, write them there as one part (:func:`_write_part`) and send back
    only the work done; without, send the tables (a Dask worker need not share
    the run's disk). Executors ship this function and ``play`` to their workers.
    """
    from nop_sim.core.profiling import add, current, phase, take

    _load_kernels(scn.kind)
    # the part's own CPU time sizes the next parts (the clock would count other
    # processes sharing the cores)
    t0 = time.thread_time()
    sim0 = current("simulation")
    t = time.perf_counter()
    tables = play(scn, chunks)
    # what the game did beside the phase it marks "simulation": its tables
    add("tables", time.perf_counter() - t - (current("simulation") - sim0))
    game = get_game(scn.kind)
    _checked(game, chunks[0], tables)
    with phase("tables"):
        tables = {name: _arrow(table) for name, table in tables.items()}
        for name in game.summed_tables:  # a part stores its counters summed
            tables[name] = _summed(tables[name])
    seconds = time.thread_time() - t0
    done = _column_sum(tables["counts"], work)
    if out is not None:
        _write_part(out, chunks, tables, store_version)
        tables = None
    return PartResult(chunks, tables, done, seconds, take())


_loaded: set[str] = set()


def _load_kernels(kind: str) -> None:
    """Load the game's compiled kernels in this process, once (timed as "start")."""
    from nop_sim.core.profiling import phase

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
    import signal

    signal.signal(signal.SIGINT, lambda *_: os._exit(130))


def _worker_ready(play: Callable) -> tuple[float, tuple[str, ...]]:
    """A new worker's first task: import the game (unpickling ``play``, its
    ``play_chunk``, registers it) and Parquet; return the clock, and the games
    whose kernels it has loaded (a fork server's workers have them already)."""
    import pyarrow.parquet  # noqa: F401

    return time.perf_counter(), tuple(sorted(_loaded))


def _read_part(path: Path, columns: Sequence[str] | None = None):
    """One stored part's table, read whole on this thread.

    ``pq.read_table`` goes through the dataset layer and Arrow's thread pool:
    about six times the CPU of a plain ``ParquetFile.read`` for the small
    files a part holds, taken from the workers' cores during a run.
    """
    import pyarrow.parquet as pq

    with pq.ParquetFile(path) as f:
        return f.read(columns=columns, use_threads=False)


def _column_sum(table, column: str) -> int:
    """The sum of an Arrow table's integer column (0 when empty)."""
    import pyarrow.compute as pc

    return int(pc.sum(table.column(column)).as_py() or 0)


def _part_meta(folder: Path, plan: dict[str, Chunk], game: Game) -> list[Chunk] | None:
    """The chunks a part folder holds, or None unless it is complete and matches the plan
    (every file's checksum, every chunk's seed and size, the game's store version)."""
    try:
        done = json.loads((folder / "done.json").read_text())
        listed = done.get("chunks") or [{"name": done["chunk"], "n_matches": done["n_matches"],
                                         "seed": done["seed"]}]  # a one-chunk folder
        chunks = [plan.get(c["name"]) for c in listed]
        if any(c is None or (c.n_matches, c.seed) != (m["n_matches"], m["seed"])
               for c, m in zip(chunks, listed, strict=True)):
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if done.get("store_version", 1) != game.store_version:
        return None  # an older store's chunk is redone, not mixed in
    files = done.get("files", {})
    if set(files) != set(_chunk_tables(game)):
        return None
    for name, meta in files.items():
        path = folder / f"{name}.parquet"
        if not path.is_file() or _sha256(path) != meta.get("sha256"):
            return None
    return chunks


def _finished_parts(out: Path, chunks: list[Chunk], game: Game
                    ) -> tuple[dict[str, list[Chunk]], list[Path]]:
    """The part folders whose chunks can be reused (folder name -> chunks), and the
    folders that cannot (damaged, stale or overlapping: removed once the run starts)."""
    plan = {c.name: c for c in chunks}
    parts: dict[str, list[Chunk]] = {}
    stale: list[Path] = []
    claimed: set[str] = set()
    folders = sorted(p for p in (out / "chunks").glob("p*") if p.is_dir()) \
        if (out / "chunks").is_dir() else []
    for folder in folders:
        held = _part_meta(folder, plan, game)
        if held is None or claimed & {c.name for c in held}:
            stale.append(folder)
            continue
        claimed |= {c.name for c in held}
        parts[folder.name] = held
    return parts, stale


def _git_revision() -> str | None:
    try:
        root = Path(__file__).resolve().parents[2]
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=5)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _versions() -> dict[str, str]:
    import numba
    import pyarrow

    from nop_sim import __version__

    return {"nop_sim": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "numba": numba.__version__, "pandas": pd.__version__,
            "pyarrow": pyarrow.__version__}


def _manifest(scn: Scenario, chunks: list[Chunk], started: str) -> dict[str, Any]:
    points = scn.points()
    game = get_game(scn.kind)
    return {
        "store_version": game.store_version,
        "scenario": {"name": scn.name, "source": scn.source, "kind": scn.kind,
                     "text": scn.text, "fingerprint": scn.fingerprint()},
        "seed": scn.seed, "matches_per_point": scn.matches, "chunk": scn.chunk,
        "n_points": len(points), "n_chunks": len(chunks),
        "points": [{"point": i, "params": p,
                    "settings": _settings_dict(scn.settings_at(p)),
                    "seats": [game.seat_label(s) for s in scn.seat_specs(p, 0)]}
                   for i, p in enumerate(points)],
        "rotation": [game.seat_label(s) for s in scn.seats] if scn.rotate else None,
        "targets": dict(scn.targets),
        # the seats read from agent files: label, file, parameters, [training] provenance
        "agent_files": [f.record() for f in scn.agent_files],
        "versions": _versions(), "git_revision": _git_revision(),
        "started": started, "ended": None, "status": "running",
    }


def _settings_dict(settings) -> dict[str, Any]:
    return settings.to_dict() if hasattr(settings, "to_dict") else dict(vars(settings))


def not_a_run(out: str | Path) -> str | None:
    """What a folder another nop-sim command wrote is, when it is not a run, and what to
    do with it, as one line (None for anything else: a run folder, an empty one).

    The folders of ``nop-sim train`` (``strong.toml``, ``state.json``, a manifest
    of kind ``train``), ``tune`` (``study.db``, ``best.toml``), ``compare``
    (``compare.csv``) and ``sensitivity`` (``sensitivity.csv``) hold no match
    tables; a command that reads or writes a run names them instead of calling
    them an unfinished or damaged run.
    """
    out = Path(out)
    try:
        manifest = json.loads((out / "manifest.json").read_text())
        manifest = manifest if isinstance(manifest, dict) else {}
    except (OSError, ValueError):
        manifest = {}
    scenario = (manifest.get("scenario") or {}) if isinstance(manifest.get("scenario"),
                                                                dict) else {}
    source = scenario.get("source") or "SCENARIO"
    if manifest.get("kind") == "train" or ((out / "state.json").is_file()
                                          and "points" not in manifest):
        strong = out / "strong.toml"
        if strong.is_file():
            return (f"{out}: is a training folder (nop-sim train), not a run: it holds a "
                    f"trained agent, {strong}, and no match tables; play the agent with "
                    f"nop-sim run {source} --set seats.all=@{strong} (every seat) and read "
                    f"that run, or read the training's report, {out / 'report.html'}")
        return (f"{out}: is a training folder (nop-sim train) whose training has not "
                f"finished (no strong.toml yet), not a run: finish it with nop-sim train "
                f"{source} --resume --out {out}, then play the agent with nop-sim run "
                f"{source} --set seats.all=@{strong}")
    if manifest.get("command") == "tune" or (out / "study.db").is_file():
        best = out / "best.toml"
        return (f"{out}: is a tune folder (nop-sim tune), not a run: its best settings are "
                f"{best}; run them with nop-sim run {best} and read that run, or read the "
                f"study's report, {out / 'report.html'}")
    if not manifest:
        for name, command in (("compare.csv", "compare"), ("sensitivity.csv", "sensitivity")):
            if (out / name).is_file():
                return (f"{out}: is the output of nop-sim {command} ({out / name}, "
                        f"{out / 'report.html'}), not a run; give the run folder it was "
                        f"made from")
    return None


def _prepare_folder(out: Path, scn: Scenario, resume: bool) -> dict | None:
    """Check the output folder; return the existing manifest when continuing a run."""
    if out.exists() and not out.is_dir():
        raise RunError(f"{out}: the output folder is a file; choose another --out")
    other = not_a_run(out) if out.is_dir() else None
    if other is not None:  # never a run written into another command's folder
        raise RunError(f"{other}. Run into another folder with --out DIR (nothing was "
                       f"changed)")
    manifest_path = out / "manifest.json"
    if not manifest_path.exists():
        if resume:
            raise RunError(f"{out}: nothing to resume (no manifest.json); run without --resume")
        if out.exists() and any(p.name not in (".gitkeep", *LOCK_FILES) for p in out.iterdir()):
            raise RunError(f"{out}: the folder is not empty and holds no nop-sim run; choose "
                           f"another --out (nothing was changed)")
        return None
    try:
        old = json.loads(manifest_path.read_text())
        old_fp = old["scenario"]["fingerprint"]
    except (OSError, ValueError, KeyError, TypeError):
        raise RunError(f"{manifest_path}: is damaged; move the folder away or choose another "
                       f"--out (nothing was changed)") from None
    if old_fp != scn.fingerprint():
        raise RunError(
            f"{out}: holds results of a different scenario or settings "
            f"({old['scenario'].get('name')}, fingerprint {old_fp}; this one is "
            f"{scn.fingerprint()}); "
            f"{'resuming with a changed scenario is refused' if resume else 'refusing to mix them'}"
            f": run into another folder with --out DIR, or move or delete {out} to start it "
            f"again (nothing was changed)")
    return old


@dataclass
class RunResult:
    """Where a run went and what it did."""

    out: Path
    n_chunks: int
    reused: int
    computed: int
    n_matches: int
    n_work: int      # the game's unit of work done (``Game.work``: hands, turns)
    work: str
    seconds: float
    profile: dict[str, float] = field(default_factory=dict)  # phase -> seconds (--profile)


# The CPU seconds of play a stored part aims at: the unit of writing, merging and
# redoing after a crash. NOP_SIM_PART_SECONDS overrides it (e.g. 0 for one chunk a part).
PART_SECONDS = float(os.environ.get("NOP_SIM_PART_SECONDS", "1.0"))


class _PartPlan:
    """Cuts the chunks still to play into parts of about :data:`PART_SECONDS` each.

    A part is a run of chunks consecutive in the plan (so the merged tables
    keep the plan's order); its size adapts to the seconds per match measured
    so far, starting at one chunk, and shrinks near the end so that every
    worker has work until the last part. Parts change only how chunks are
    stored and scheduled: every chunk keeps its own seed.
    """

    def __init__(self, todo: list[Chunk], order: dict[str, int], workers: int):
        self.todo = list(todo)
        self.order = order
        self.workers = workers
        self.pos = 0
        self.per_match: float | None = None  # seconds per match, averaged

    def __bool__(self) -> bool:
        return self.pos < len(self.todo)

    def learn(self, part: PartResult) -> None:
        n = sum(c.n_matches for c in part.chunks)
        rate = part.seconds / max(n, 1)
        self.per_match = rate if self.per_match is None else 0.5 * (self.per_match + rate)

    def next(self, seconds: float | None = None) -> list[Chunk]:
        """The next part: about ``seconds`` of play (default :data:`PART_SECONDS`)."""
        seconds = PART_SECONDS if seconds is None else seconds
        left = len(self.todo) - self.pos
        if self.per_match is None:
            size = 1
        else:
            size = int(seconds / max(self.per_match * self.todo[self.pos].n_matches, 1e-9))
        if self.workers > 1:  # keep every worker busy until the last part
            size = min(size, -(-left // (2 * self.workers)))
        size = max(1, min(size, left))
        part = [self.todo[self.pos]]
        while len(part) < size and self.order[self.todo[self.pos + len(part)].name] \
                == self.order[part[-1].name] + 1:
            part.append(self.todo[self.pos + len(part)])
        self.pos += len(part)
        return part


def _serial(game: Game, scn: Scenario, plan: _PartPlan, out: Path) -> Iterator[PartResult]:
    """Parts played here, one after another (``--workers 1``)."""
    while plan:
        part = play_part(part_player(game), scn, plan.next(), game.work)
        plan.learn(part)
        yield part


WORKERS_WORTH = 1.5  # seconds of simulation workers must save to be started (their start-up)
STARTING_PART = 0.2  # seconds of play a part played here while the workers start aims at
# A run of this many matches or more starts the workers' fork server at once, while
# this process loads its kernels: even cheap matches (50 us) then save WORKERS_WORTH.
EARLY_SERVER_MATCHES = 60_000


_server_env: tuple | None = None  # what the fork server was started with (None: not started)


def _environment() -> tuple:
    """The settings a worker inherits from its parent's environment (numba's, nop-sim's)."""
    return tuple(sorted((k, v) for k, v in os.environ.items()
                        if k.startswith(("NUMBA_", "NOP_SIM_", "PYTHON"))))


def _worker_context(kind: str):
    """How a local run starts its workers.

    Forked from multiprocessing's fork server where the platform has one: a
    clean process, started once, that imports nop-sim and loads the game's
    compiled kernels (:mod:`nop_sim.run.forkserver`), so each worker starts in
    milliseconds instead of importing and loading for a second. Spawned
    elsewhere (Windows), and when this process's environment no longer is the
    one the server was started with (another numba cache, say). Never a
    plain fork: numba's thread pools and Arrow's do not survive it.
    """
    import multiprocessing
    from multiprocessing import forkserver

    global _server_env
    env = _environment()
    if "forkserver" not in multiprocessing.get_all_start_methods() or (
            _server_env is not None and _server_env != env):
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    if _server_env is None:
        ctx.set_forkserver_preload(["nop_sim.run.forkserver"])
        import signal
        import threading

        previous = os.environ.get("NOP_SIM_PRELOAD")
        os.environ["NOP_SIM_PRELOAD"] = kind  # read by the server as it starts
        # the server starts with Ctrl-C ignored (an ignored signal stays ignored
        # through exec): the run handles it, never a traceback from the server
        main = threading.current_thread() is threading.main_thread()
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            forkserver.ensure_running()
        finally:
            if main:
                signal.signal(signal.SIGINT, handler)
            if previous is None:
                os.environ.pop("NOP_SIM_PRELOAD", None)
            else:
                os.environ["NOP_SIM_PRELOAD"] = previous
        _server_env = env
    return ctx


def _local(workers: int):
    def parts(game: Game, scn: Scenario, plan: _PartPlan, out: Path) -> Iterator[PartResult]:
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        from concurrent.futures.thread import ThreadPoolExecutor

        from nop_sim.core.profiling import add, phase
        from nop_sim.run.compiling import kernels_compiled, mark_compiled

        player = part_player(game)
        compiled = game.warm_up is None or kernels_compiled(scn.kind)
        if compiled and scn.matches * len(scn.points()) >= EARLY_SERVER_MATCHES:
            _worker_context(scn.kind)  # surely worth workers: their server starts now
        if compiled:
            # With the kernels compiled, the first part is played here: its time says
            # whether workers would save more than their start-up costs. A small run
            # (make run) ends here without starting any.
            first = play_part(player, scn, plan.next(), game.work)
            plan.learn(first)
            yield first
            left = plan.per_match * sum(c.n_matches for c in plan.todo[plan.pos:])
            if left * (1 - 1 / workers) < WORKERS_WORTH:
                plan.workers = 1
                yield from _serial(game, scn, plan, out)
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


def dask_client(address: str, error: type[Exception] | None = None):
    """A ``distributed.Client`` of the scheduler at ``address`` (``--scheduler``), or
    ``error`` (default :class:`RunError`) with one line saying what is missing.

    How long it waits for the scheduler: ``NOP_SIM_DASK_TIMEOUT`` (e.g. "30s", default 10s).
    """
    error = error or RunError
    try:
        from distributed import Client
    except ImportError:
        raise error("--scheduler needs dask.distributed: pip install 'nop-sim[dask]' "
                    "(or pip install 'dask[distributed]')") from None
    try:
        return Client(address, timeout=os.environ.get("NOP_SIM_DASK_TIMEOUT", "10s"))
    except (OSError, TimeoutError) as exc:
        raise error(f"--scheduler {address}: cannot reach the Dask scheduler ({exc}); "
                    f"check the address (tcp://HOST:PORT) and that it is running") from None


def _dask(address: str):
    def parts(game: Game, scn: Scenario, plan: _PartPlan, out: Path) -> Iterator[PartResult]:
        from distributed import as_completed

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


def _executor(workers: int, scheduler: str | None):
    """``parts(game, scn, plan, out)``: yields each :class:`PartResult` as it finishes."""
    if scheduler:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise RunError("--scheduler needs dask.distributed: pip install 'nop-sim[dask]' "
                           "(or pip install 'dask[distributed]')") from None
        return _dask(scheduler)
    return _serial if workers <= 1 else _local(workers)


class _FolderStart:
    """What starting a run adds to its output folder, to take back if the run fails to start.

    A run has started once its first chunk is in place; before that, a
    failure (a disk error, an unreachable scheduler, Ctrl-C during the first
    compile) leaves the folder as it was found, so the same command can be
    run again.
    """

    def __init__(self, out: Path):
        self.out = out
        top = out
        while not top.parent.exists() and top.parent != top:
            top = top.parent
        self.created = None if out.exists() else top  # the topmost folder the run creates
        self.chunks_created = not (out / "chunks").exists()
        manifest = out / "manifest.json"
        self.manifest = manifest.read_bytes() if manifest.is_file() else None

    def undo(self) -> None:
        if self.created is not None:
            shutil.rmtree(self.created, ignore_errors=True)
            return
        if self.chunks_created:
            shutil.rmtree(self.out / "chunks", ignore_errors=True)
        manifest = self.out / "manifest.json"
        try:
            manifest.with_suffix(".json.tmp").unlink(missing_ok=True)
            if self.manifest is None:
                manifest.unlink(missing_ok=True)
            else:
                tmp = manifest.with_suffix(".json.tmp")
                tmp.write_bytes(self.manifest)
                os.replace(tmp, manifest)
        except OSError:
            pass  # the disk is failing: the original error says more


def run_scenario(scn: Scenario, out: str | Path, *, workers: int | None = None,
                 scheduler: str | None = None, resume: bool = False,
                 progress: Callable[[int, int, int], None] | None = None) -> RunResult:
    """Run every chunk not already finished in ``out`` and merge the tables.

    ``progress(done_chunks, total_chunks, work_so_far)`` is called after each chunk
    (work in the game's unit, ``Game.work``: hands, turns).
    A run that fails before its first chunk is written leaves ``out`` as it
    was; after that, every finished chunk is kept for ``resume``. The run
    holds ``out`` (:func:`nop_sim.run.folder_lock.hold_folder`): a second run into
    it meanwhile is refused at once (:class:`nop_sim.core.errors.FolderBusy`).
    """
    out = Path(out)
    start = _FolderStart(out)  # before the lock makes the folder: a failed start removes it
    with hold_folder(out):
        return _run_held(scn, out, start, workers, scheduler, resume, progress)


def _run_held(scn: Scenario, out: Path, start: _FolderStart, workers: int | None,
              scheduler: str | None, resume: bool, progress) -> RunResult:
    """:func:`run_scenario` with its folder held."""
    from nop_sim.core.profiling import take

    t0 = time.perf_counter()
    take()  # this process's phase times start here
    game = get_game(scn.kind)
    old = _prepare_folder(out, scn, resume)
    chunks = plan_chunks(scn)
    order = {c.name: i for i, c in enumerate(chunks)}
    started = old["started"] if old else datetime.now(UTC).isoformat(timespec="seconds")
    manifest = _manifest(scn, chunks, started)
    parts, stale = _finished_parts(out, chunks, game)
    held = {c.name for held in parts.values() for c in held}
    todo = [c for c in chunks if c.name not in held]
    reused = len(chunks) - len(todo)
    work = _work_done(out, parts, game)
    done = reused
    workers = (os.cpu_count() or 1) if workers is None else int(workers)
    workers = max(1, min(workers, len(todo)))
    plan = _PartPlan(todo, order, workers)
    profile: dict[str, float] = {}
    finished = iter(())
    moved: list[Path] = []
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "chunks").mkdir(exist_ok=True)
        _write_json(out / "manifest.json", manifest)
        # damaged or superseded parts step aside (their names may be written again),
        # to be put back should the run fail to start
        for folder in stale:
            os.replace(folder, folder.with_name(f".stale-{folder.name}"))
            moved.append(folder)
        if progress:
            progress(done, len(chunks), work)
        if todo:
            finished = iter(_executor(workers, scheduler)(game, scn, plan, out))
        first = next(finished, None)
        if first is not None:
            _store(out, game, first)
    except BaseException:
        close = getattr(finished, "close", None)
        if close is not None:
            close()  # stop the workers before taking back what they wrote
        for folder in moved:
            if not folder.exists():
                os.replace(folder.with_name(f".stale-{folder.name}"), folder)
        start.undo()
        raise
    for folder in moved:  # the run has started: they are redone
        shutil.rmtree(folder.with_name(f".stale-{folder.name}"), ignore_errors=True)
    # parts merge as soon as every part before them in the plan is in: the merge
    # streams along with the run instead of waiting for its end
    merger = Merger(out, game)
    by_first = {order[name]: held for name, held in parts.items()}
    next_pos = 0

    def merge_ready() -> None:
        nonlocal next_pos
        while next_pos in by_first:
            held = by_first.pop(next_pos)
            merger.add(held)
            next_pos += len(held)

    try:
        merge_ready()
        for i, part in enumerate(itertools.chain([first] if first else [], finished)):
            if i:  # the first part is in place already
                _store(out, game, part)
            by_first[order[part.chunks[0].name]] = part.chunks
            for k, v in part.profile.items():
                profile[k] = profile.get(k, 0.0) + v
            done += len(part.chunks)
            work += part.work
            if progress:
                progress(done, len(chunks), work)
            merge_ready()
        if by_first or next_pos != len(chunks):
            raise RunError(f"{out}: parts do not cover the plan's chunks (from chunk "
                           f"{next_pos}); run again with --resume")
        n_matches, n_work = merger.finish()
    except BaseException:
        merger.abort()
        raise
    for tmp in (out / "chunks").glob(".tmp-*"):  # left by a run that was killed
        shutil.rmtree(tmp, ignore_errors=True)
    manifest["ended"] = datetime.now(UTC).isoformat(timespec="seconds")
    manifest["status"] = "finished"
    manifest["totals"] = {"matches": n_matches, game.work: n_work}
    _write_json(out / "manifest.json", manifest)
    for k, v in take().items():
        profile[k] = profile.get(k, 0.0) + v
    return RunResult(out, len(chunks), reused, len(todo), n_matches, n_work, game.work,
                     time.perf_counter() - t0, profile)


def _store(out: Path, game: Game, part: PartResult) -> None:
    """Write a part the worker sent back as tables (a worker with ``out`` wrote it already)."""
    if part.tables is not None:
        _write_part(out, part.chunks, part.tables, game.store_version)


def _work_done(out: Path, parts: dict[str, list[Chunk]], game: Game) -> int:
    return sum(_column_sum(_read_part(out / "chunks" / name / "counts.parquet",
                                      columns=[game.work]), game.work) for name in parts)


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=1, default=str))
    os.replace(tmp, path)


MERGE_ROWS = 1 << 16  # rows per row group of a merged table
SUM_ROWS = 1 << 20    # summed-table rows held before they are added up by key


class Merger:
    """Merges parts into the run's tables as they come, in plan order; memory stays bounded.

    The game's row tables are appended part by part to one Parquet file each,
    in row groups of :data:`MERGE_ROWS` rows whatever the parts were (so the
    merged bytes depend on the rows only); its summed tables (``point,
    <keys...>, value``) are summed by key as they are read. The files are
    written as ``.<table>.parquet.tmp`` and renamed into place by :meth:`finish`.
    """

    def __init__(self, out: Path, game: Game):
        self.out, self.game = out, game
        self.writers: dict[str, Any] = {}
        self.schemas: dict[str, Any] = {}
        self.empty: dict[str, Any] = {}  # a schema per table, for one with no rows at all
        self.sums: dict[str, list] = {name: [] for name in game.summed_tables}
        self.columns: dict[str, list[str]] = {}
        self.pending: dict[str, list] = {name: [] for name in game.tables}
        self.n_matches = self.n_work = 0

    def _flush(self, name: str, final: bool = False) -> None:
        import pyarrow as pa

        if not self.pending[name]:
            return
        rows = pa.concat_tables(self.pending[name])
        whole = rows.num_rows if final else rows.num_rows - rows.num_rows % MERGE_ROWS
        for start in range(0, whole, MERGE_ROWS):
            # one contiguous chunk a row group: the writer's pages follow its input's
            # chunks, and those are the parts, which differ from run to run
            group = rows.slice(start, min(MERGE_ROWS, whole - start)).combine_chunks()
            self.writers[name].write_table(group)
        self.pending[name] = [rows.slice(whole)] if whole < rows.num_rows else []

    def add(self, part: list[Chunk]) -> None:
        """Append the part stored under ``chunks/<first chunk>``."""
        import pyarrow.parquet as pq

        from nop_sim.core.profiling import phase

        with phase("merge"):
            folder = self.out / "chunks" / part[0].name
            for name in self.game.tables:
                table = _read_part(folder / f"{name}.parquet")
                self.empty.setdefault(name, table.schema)
                if table.num_rows == 0:
                    continue
                if name not in self.writers:
                    self.schemas[name] = table.schema
                    self.writers[name] = pq.ParquetWriter(self.out / f".{name}.parquet.tmp",
                                                          table.schema)
                else:
                    table = table.select(self.schemas[name].names).cast(self.schemas[name])
                self.pending[name].append(table)
                if sum(t.num_rows for t in self.pending[name]) >= MERGE_ROWS:
                    self._flush(name)
                if name == "matches":
                    self.n_matches += table.num_rows
                if name == "counts":
                    self.n_work += _column_sum(table, self.game.work)
            for name in self.game.summed_tables:
                table = _read_part(folder / f"{name}.parquet")
                self.columns.setdefault(name, [k for k in table.column_names if k != "value"])
                if table.num_rows:
                    self.sums[name].append(table)
                    if sum(t.num_rows for t in self.sums[name]) > SUM_ROWS:
                        self._reduce(name)

    def _reduce(self, name: str) -> None:
        """Add up the summed table's rows held so far by key (Arrow's hash aggregate)."""
        if self.sums[name]:
            self.sums[name] = [_summed(_concat(self.sums[name]))]

    def abort(self) -> None:
        """Close and remove the temporary files (a run that failed keeps its parts)."""
        for w in self.writers.values():
            w.close()
        self.writers = {}
        for tmp in self.out.glob(".*.parquet.tmp"):
            tmp.unlink(missing_ok=True)

    def finish(self) -> tuple[int, int]:
        """Write what is left and rename every table into place; (matches, work)."""
        import pyarrow.parquet as pq

        from nop_sim.core.profiling import phase

        with phase("merge"):
            try:
                for name in self.writers:
                    self._flush(name, final=True)
            finally:
                for w in self.writers.values():
                    w.close()
            out = self.out
            for name in self.game.tables:
                tmp = out / f".{name}.parquet.tmp"
                if name not in self.writers:
                    if name in self.empty:
                        pq.write_table(self.empty[name].empty_table(), tmp)
                    else:
                        pd.DataFrame().to_parquet(tmp, index=False)
                os.replace(tmp, out / f"{name}.parquet")
            for name in self.sums:
                keys = self.columns.get(name, [])
                self._reduce(name)
                if self.sums[name]:
                    frame = self.sums[name][0].select([*keys, "value"]).to_pandas()
                    frame["value"] = frame["value"].astype(np.int64)
                    frame = frame.sort_values(keys, kind="stable").reset_index(drop=True)
                else:
                    frame = pd.DataFrame(columns=keys + ["value"])
                frame.to_parquet(out / f".{name}.parquet.tmp", index=False)
                os.replace(out / f".{name}.parquet.tmp", out / f"{name}.parquet")
        return self.n_matches, self.n_work


def _text_columns(schema) -> list[str]:
    """The text columns of an Arrow schema (read as pandas categories)."""
    import pyarrow as pa

    return [f.name for f in schema if pa.types.is_string(f.type) or
            pa.types.is_large_string(f.type)]


def _read_table(path: Path, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """A Parquet table with text columns as pandas categories.

    The drafts of a ten-million-hand sweep run to millions of rows in
    thousands of row groups (one per chunk). Reading them whole and then
    converting held the Arrow table, its chunks and the pandas frame at once,
    three times the frame's size; here the columns are preallocated and
    filled one batch at a time, and card ids stay category codes.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    if columns is not None:
        schema = pa.schema([f for f in schema if f.name in set(columns)])
    text = _text_columns(schema)
    plain = [f for f in schema if f.name not in text]

    def simple() -> pd.DataFrame:  # for tables nop-sim does not write (other types, nulls)
        return pq.read_table(path, columns=schema.names, read_dictionary=text).to_pandas()

    if any(not (pa.types.is_integer(f.type) or pa.types.is_floating(f.type)
                or pa.types.is_boolean(f.type)) for f in plain):
        return simple()
    pf = pq.ParquetFile(path, read_dictionary=text)
    n = pf.metadata.num_rows
    data = {f.name: np.empty(n, dtype=f.type.to_pandas_dtype()) for f in plain}
    codes = {name: np.empty(n, dtype=np.int32) for name in text}
    labels: dict[str, dict[str, int]] = {name: {} for name in text}
    pos = 0
    for batch in pf.iter_batches(batch_size=1 << 16, columns=schema.names):
        k = batch.num_rows
        for name in data:
            col = batch.column(name)
            if col.null_count:
                return simple()
            data[name][pos:pos + k] = col.to_numpy(zero_copy_only=False)
        for name in text:
            col = batch.column(name)
            index = labels[name]
            remap = np.array([index.setdefault(v, len(index))
                              for v in col.dictionary.to_pylist()] or [0], dtype=np.int32)
            idx = col.indices.to_numpy(zero_copy_only=False)
            out = codes[name][pos:pos + k]
            if col.null_count:
                valid = ~np.asarray(col.is_null())
                out[:] = -1
                out[valid] = remap[idx[valid].astype(np.int64)]
            else:
                out[:] = remap[idx]
        pos += k
    frame = {}
    for f in schema:
        if f.name in text:
            cats = list(labels[f.name])
            frame[f.name] = pd.Categorical.from_codes(codes[f.name], categories=cats)
        else:
            frame[f.name] = data[f.name]
    return pd.DataFrame(frame, copy=False)


def _read_point(path: Path, point: int) -> pd.DataFrame:
    """One sweep point's rows of a merged table, text columns as pandas categories."""
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    text = _text_columns(schema)
    if "point" not in schema.names:
        return pq.read_table(path, read_dictionary=text).to_pandas()
    return pq.read_table(path, filters=[("point", "==", point)],
                         read_dictionary=text).to_pandas()


def load_tables(out: str | Path, names: Iterable[str] | None = None,
                point: int | None = None,
                columns: Mapping[str, Sequence[str]] | None = None) -> dict[str, pd.DataFrame]:
    """The merged tables of a finished run folder.

    ``names``: which ones; by default every table of the folder's game but
    ``events`` (``Game.result_tables``). ``point``: only that sweep point's
    rows (read from the row groups that hold them: memory stays that of one
    point however many there are). ``columns``: table -> the columns to read
    (every column of a table not named).
    """
    out = Path(out)
    other = not_a_run(out)
    if other is not None:
        raise RunError(other)
    manifest = out / "manifest.json"
    if not manifest.exists():
        raise RunError(f"{out}: not a nop-sim results folder (no manifest.json)")
    if names is None:
        names = run_game(out).result_tables
    tables = {}
    for name in names:
        path = out / f"{name}.parquet"
        if not path.exists():
            raise RunError(f"{out}: {path.name} is missing; the run did not finish — "
                           f"finish it with nop-sim run ... --resume --out {out}")
        try:
            wanted = (columns or {}).get(name)
            tables[name] = (_read_table(path, wanted) if point is None
                            else _read_point(path, point))
        except Exception as exc:  # pyarrow raises several kinds for damaged files
            raise RunError(f"{path}: cannot be read ({exc.__class__.__name__}); "
                           f"rebuild it with --resume") from None
    return tables


def run_game(out: str | Path) -> Game:
    """The game of a run folder (its manifest's ``scenario.kind``); :class:`RunError` if unknown."""
    try:
        return game_of_folder(out)
    except ValueError as exc:
        raise RunError(str(exc)) from None


@dataclass(frozen=True)
class MatchLog:
    """One logged match read back from a run folder (:func:`load_match_log`).

    ``events`` are the match's rows of ``events.parquet`` in play order, in
    the columns its game logs (``Game.play_chunk`` documents them); the game's
    ``stored_hands`` reads them back.
    """

    kind: str
    point: int
    match: int
    events: pd.DataFrame
    names: list[str]  # "Seat 0 (preset)", one per seat
    settings: Any     # the game's settings at the sweep point

    def records(self) -> list[dict[str, Any]]:
        """The events as JSON-ready dicts (what ``nop-sim hands --json`` writes)."""
        return get_game(self.kind).stored_hands(self)[1]

    def history(self) -> str:
        """The match as a readable hand history."""
        return get_game(self.kind).stored_hands(self)[0]


def _list_ids(ids: list[int], limit: int = 20) -> str:
    text = ", ".join(map(str, ids[:limit]))
    return text + (f", ... ({len(ids)} matches)" if len(ids) > limit else "")


def load_match_log(out: str | Path, match: int, point: int = 0) -> MatchLog:
    """The stored event log of match ``match`` at sweep point ``point`` of a run folder.

    Raises :class:`RunError` (one line) when the folder holds no such log,
    naming the matches that were logged.
    """
    import tomllib

    import pyarrow.parquet as pq

    out = Path(out)
    other = not_a_run(out)
    if other is not None:
        raise RunError(other)
    try:
        manifest = json.loads((out / "manifest.json").read_text())
        text = manifest["scenario"]["text"]
        n_points = int(manifest["n_points"])
    except FileNotFoundError:
        raise RunError(f"{out}: not a nop-sim results folder (no manifest.json)") from None
    except (OSError, ValueError, KeyError, TypeError):
        raise RunError(f"{out / 'manifest.json'}: is damaged") from None
    game = run_game(out)
    if not 0 <= point < n_points:
        raise RunError(f"{out}: --point {point} is not a sweep point of this run: "
                       + (f"use 0 to {n_points - 1}" if n_points > 1
                          else "it has none, leave --point out"))
    log_sample = tomllib.loads(text).get("run", {}).get("log_sample", 0)
    path = out / "events.parquet"
    if not log_sample:
        raise RunError(f"{out}: no match was logged ([run] log_sample = 0); to keep one match "
                       f"in N, run again with --set run.log_sample=N into a new --out")
    if not path.exists():
        raise RunError(f"{out}: {path.name} is missing (a run from before event logs were "
                       f"stored, or one that did not finish: finish it with --resume)")
    ids = pq.read_table(path, columns=["point", "match"]).to_pandas()
    logged = sorted(set(ids.loc[ids["point"] == point, "match"].tolist()))
    where = f" of point {point}" if n_points > 1 else ""
    if match not in logged:
        raise RunError(f"{out}: match {match}{where} was not logged; logged: "
                       + (_list_ids(logged) if logged else "none"))
    events = pq.read_table(path, filters=[("point", "==", point), ("match", "==", match)]
                           ).to_pandas()
    stored = pq.read_schema(out / "seats.parquet").names  # mix_row: stores since mixtures
    seats = pq.read_table(out / "seats.parquet",
                          columns=["seat", "preset", *(["mix_row"] if "mix_row" in stored else [])],
                          filters=[("point", "==", point), ("match", "==", match)]
                          ).to_pandas().sort_values("seat")
    # one row per seat 0..players-1, sorted; a mixture's seat named with the row it played
    names = seat_names(seats["preset"], seats["mix_row"] if "mix_row" in seats else None)
    data = tomllib.loads(text)
    # the settings only: the stored seats table names the seats, and an agent file a
    # [seats] entry names ("@path", relative to where the run started) need not be there now
    data.pop("seats", None)
    scn = Scenario.from_mapping(data, source=str(out / "manifest.json"))
    settings = scn.settings_at(scn.points()[point])
    return MatchLog(game.kind, point, match, events, names, settings)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use the nop-sim command")
