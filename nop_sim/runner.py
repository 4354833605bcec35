"""Runs scenarios: chunks of matches, seeds, executors and the Parquet results store.

A run is a list of chunks, each ``(point, index)``: a sweep point and a
slice of its matches. A chunk's seed comes from
``SeedSequence(seed, spawn_key=(point, index))``, so a chunk's numbers do not
depend on the worker count, the order chunks finish in, or the backend
(local processes or a Dask cluster).

The store is one folder::

    manifest.json              scenario, resolved settings, seed, versions, git, times
    chunks/p0000-c000000/      one folder per finished chunk, renamed into place
        matches.parquet ...    when complete, with done.json holding checksums
    matches.parquet            merged tables, rebuilt from the chunks at the end
    seats.parquet, drafts.parquet, counts.parquet, arrays.parquet, points.parquet
    events.parquet             event logs of the matches ``[run] log_sample`` picks
                               (see :func:`load_match_log`), empty without it

A run killed at any moment leaves only whole chunk folders (plus ``.tmp-*``
folders, removed when a later run of the folder finishes); ``--resume``
checks every finished chunk's checksums, redoes damaged ones and runs the
rest. A run that fails before its first chunk is written (a disk error, an
unreachable scheduler) leaves the folder as it found it.
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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nop_sim.scenario import Scenario

__all__ = ["Chunk", "MatchLog", "RunError", "RunResult", "plan_chunks", "run_chunk",
           "run_scenario", "load_match_log", "load_tables"]

RESULT_TABLES = ("matches", "seats", "drafts", "counts", "arrays")
TABLES = (*RESULT_TABLES, "events")  # every chunk holds each of these
ROW_TABLES = ("matches", "seats", "drafts", "counts", "events")  # merged by appending rows
STORE_VERSION = 2  # 2: events tables; Ordered Hand seats rotate per game


class RunError(ValueError):
    """A run that cannot start or continue (bad output folder, changed scenario, scheduler)."""


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


def seat_label(spec) -> str:
    """A seat's agent as text: the preset name, or preset(param=value, ...)."""
    if isinstance(spec, str):
        return spec
    base = spec.get("preset", "custom")
    extra = ",".join(f"{k}={v}" for k, v in sorted(spec.items()) if k != "preset")
    return f"{base}({extra})" if extra else base


# ---------------------------------------------------------------------------
# One chunk -> tidy tables (runs in a worker: top-level, picklable arguments)
# ---------------------------------------------------------------------------
def run_chunk(scn: Scenario, chunk: Chunk) -> dict[str, pd.DataFrame]:
    """Play one chunk and return its tables (see the module docstring)."""
    if scn.kind == "ordered-hand":
        from nop_sim.ordered.engine import run_ordered_chunk

        return run_ordered_chunk(scn, chunk)
    return _new_order_chunk(scn, chunk)


def _names(prefix: str) -> dict[int, str]:
    from nop_sim import types as T

    return {getattr(T, n): n[len(prefix):].lower() for n in dir(T)
            if n.startswith(prefix) and isinstance(getattr(T, n), int)}


def _new_order_chunk(scn: Scenario, chunk: Chunk) -> dict[str, pd.DataFrame]:
    from nop_sim import types as T
    from nop_sim.engine import play_matches

    point = scn.points()[chunk.point]
    settings = scn.settings_at(point)
    res, rotation = _play_rotated(scn, point, settings, chunk, play_matches)
    n, players = res.n_matches, settings.players
    seat_labels = [[seat_label(s) for s in scn.seat_specs(point, r)] for r in range(scn.n_rotations)]
    match_ids = chunk.first_match + np.arange(n)
    base = {"point": np.full(n, chunk.point), "chunk": np.full(n, chunk.index),
            "match": match_ids, "rotation": rotation}
    params = {k: [v] * n for k, v in point.items()}
    m = res.match
    match_fields = _names("M_")
    matches = pd.DataFrame({**base, **params,
                            "players": np.full(n, players),
                            **{name: m[:, idx] for idx, name in sorted(match_fields.items())},
                            "winner_preset": [seat_labels[r][w] if 0 <= w < players else ""
                                              for r, w in zip(rotation, m[:, T.M_WINNER],
                                                              strict=True)],
                            "column": [" ".join(map(str, row)) for row in res.column.tolist()]})
    pl = res.player
    seat_fields = _names("PL_")
    seat_rows = {
        "point": np.repeat(base["point"], players), "chunk": np.repeat(base["chunk"], players),
        "match": np.repeat(match_ids, players), "seat": np.tile(np.arange(players), n),
        "preset": np.array([seat_labels[r][s] for r in rotation for s in range(players)],
                           dtype=object),
        **{k: np.repeat(np.array(v, dtype=object), players) for k, v in params.items()},
        **{name: pl[:, :, idx].reshape(-1) for idx, name in sorted(seat_fields.items())},
    }
    seats = pd.DataFrame(seat_rows)
    mi, si, ci = np.nonzero(res.drafted)
    drafts = pd.DataFrame({"point": chunk.point, "chunk": chunk.index, "match": match_ids[mi],
                           "seat": si, "card": np.array(T.DISRUPTOR_IDS, dtype=object)[ci],
                           "count": res.drafted[mi, si, ci]})
    count_names = _names("C_")
    counts = pd.DataFrame({"point": [chunk.point], "chunk": [chunk.index],
                           "n_matches": [n], **{k: [v] for k, v in point.items()},
                           **{name: [int(res.counts[idx])]
                              for idx, name in sorted(count_names.items())}})
    arrays = _arrays_frame(chunk, res)
    return {"matches": matches, "seats": seats, "drafts": drafts, "counts": counts,
            "arrays": arrays, "events": _events_frame(chunk, res.events)}


EVENT_COLUMNS = ("match", "hand", "kind", "seat", *(f"a{i}" for i in range(10)))


def _events_frame(chunk: Chunk, events: np.ndarray) -> pd.DataFrame:
    """The chunk's logged New Order matches as rows ``point, chunk`` + :data:`EVENT_COLUMNS`.

    ``events`` are the kernel's int64 rows (``nop_sim.events``) with the run's
    match ids. Only whole matches are kept: a log that ran out of room
    (``events_lost``) loses the matches it cut short, never a part of one.
    """
    from nop_sim import types as T

    ended = np.unique(events[events[:, 2] == T.EV_MATCH_END, 0])
    events = events[np.isin(events[:, 0], ended)]
    events = events[np.argsort(events[:, 0], kind="stable")]
    n = events.shape[0]
    return pd.DataFrame({"point": np.full(n, chunk.point, np.int64),
                         "chunk": np.full(n, chunk.index, np.int64),
                         **{name: events[:, i].astype(np.int64)
                            for i, name in enumerate(EVENT_COLUMNS)}})


def _play_rotated(scn: Scenario, point: dict, settings, chunk: Chunk, play_matches):
    """Play a chunk's matches; with a rotation, match ``g`` seats rotation ``g % R``.

    Rotating per match (not per chunk) puts every preset in every seat equally
    often even in short runs. Each rotation's matches of the chunk are played
    as one batch with its own seed, so results stay independent of workers.
    """
    from types import SimpleNamespace

    rotation, batches = chunk.rotation_batches(scn.n_rotations)
    parts = []
    for r, idx, seed in batches:
        # log the run's matches whose id is a multiple of log_sample, wherever they fall
        logged = (np.flatnonzero((chunk.first_match + idx) % scn.log_sample == 0)
                  if scn.log_sample else None)
        res = play_matches(settings, scn.seat_specs(point, r), int(idx.size), seed=seed,
                           chunk_size=int(idx.size), threads=1, log_matches=logged)
        if res.events.shape[0]:  # the batch's match index -> the run's match id
            res.events[:, 0] = chunk.first_match + idx[res.events[:, 0]]
        parts.append((idx, res))
    if len(parts) == 1:
        return parts[0][1], rotation
    n = chunk.n_matches
    first_res = parts[0][1]
    combined = SimpleNamespace(n_matches=n)
    for name in ("match", "player", "drafted", "column"):
        arr = np.zeros((n,) + getattr(first_res, name).shape[1:], getattr(first_res, name).dtype)
        for idx, res in parts:
            arr[idx] = getattr(res, name)
        setattr(combined, name, arr)
    for name in ("counts", "categories", "time", "disruptors"):
        setattr(combined, name, sum(getattr(res, name) for _, res in parts))
    combined.events = np.concatenate([res.events for _, res in parts])
    return combined, rotation


def _arrays_frame(chunk: Chunk, res) -> pd.DataFrame:
    from nop_sim import types as T

    parts = []
    for table, arr, names, index_names in (
        ("category", res.categories, _names("K_"), None),
        ("time", res.time.T, _names("T_"), None),
        ("disruptor", res.disruptors, _names("DS_"), T.DISRUPTOR_IDS),
    ):
        stat_idx, pos = np.nonzero(arr)
        if stat_idx.size == 0:
            continue
        stat_names = np.array([names.get(int(s), f"{table}_{s}") for s in stat_idx], dtype=object)
        parts.append(pd.DataFrame({
            "point": chunk.point, "table": table, "stat": stat_names,
            "index": pos.astype(np.int64),
            "label": (np.array(index_names, dtype=object)[pos] if index_names is not None
                      else pos.astype(str).astype(object)),
            "value": arr[stat_idx, pos].astype(np.int64)}))
    if not parts:
        return pd.DataFrame({"point": [], "table": [], "stat": [], "index": [], "label": [],
                             "value": []})
    return pd.concat(parts, ignore_index=True)


# ---------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------
def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _write_chunk(out: Path, chunk: Chunk, tables: dict[str, pd.DataFrame]) -> None:
    """Write a chunk's tables into a temporary folder, then rename it into place."""
    final = out / "chunks" / chunk.name
    tmp = out / "chunks" / f".tmp-{chunk.name}-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    done = {"chunk": chunk.name, "n_matches": chunk.n_matches, "seed": chunk.seed,
            "store_version": STORE_VERSION, "files": {}}
    try:
        for name, frame in tables.items():
            path = tmp / f"{name}.parquet"
            frame.to_parquet(path, index=False)
            with open(path, "rb") as fh:
                os.fsync(fh.fileno())
            done["files"][name] = {"rows": len(frame), "sha256": _sha256(path)}
        (tmp / "done.json").write_text(json.dumps(done, indent=1))
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if final.exists():
        shutil.rmtree(final)
    os.replace(tmp, final)


def _chunk_ok(out: Path, chunk: Chunk) -> bool:
    """True when the chunk's folder is complete and every file matches its checksum."""
    folder = out / "chunks" / chunk.name
    try:
        done = json.loads((folder / "done.json").read_text())
    except (OSError, ValueError):
        return False
    if (done.get("n_matches") != chunk.n_matches or done.get("seed") != chunk.seed
            or done.get("store_version", 1) != STORE_VERSION):
        return False  # an older store's chunk is redone, not mixed in
    files = done.get("files", {})
    if set(files) != set(TABLES):
        return False
    for name, meta in files.items():
        path = folder / f"{name}.parquet"
        if not path.is_file() or _sha256(path) != meta.get("sha256"):
            return False
    return True


def _git_revision() -> str | None:
    try:
        root = Path(__file__).resolve().parents[1]
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
    return {
        "store_version": STORE_VERSION,
        "scenario": {"name": scn.name, "source": scn.source, "kind": scn.kind,
                     "text": scn.text, "fingerprint": scn.fingerprint()},
        "seed": scn.seed, "matches_per_point": scn.matches, "chunk": scn.chunk,
        "n_points": len(points), "n_chunks": len(chunks),
        "points": [{"point": i, "params": p,
                    "settings": _settings_dict(scn.settings_at(p)),
                    "seats": [seat_label(s) for s in scn.seat_specs(p, 0)]}
                   for i, p in enumerate(points)],
        "rotation": [seat_label(s) for s in scn.seats] if scn.rotate else None,
        "targets": dict(scn.targets),
        "versions": _versions(), "git_revision": _git_revision(),
        "started": started, "ended": None, "status": "running",
    }


def _settings_dict(settings) -> dict[str, Any]:
    return settings.to_dict() if hasattr(settings, "to_dict") else dict(vars(settings))


def _prepare_folder(out: Path, scn: Scenario, resume: bool) -> dict | None:
    """Check the output folder; return the existing manifest when continuing a run."""
    if out.exists() and not out.is_dir():
        raise RunError(f"{out}: the output folder is a file; choose another --out")
    manifest_path = out / "manifest.json"
    if not manifest_path.exists():
        if resume:
            raise RunError(f"{out}: nothing to resume (no manifest.json); run without --resume")
        if out.exists() and any(p.name != ".gitkeep" for p in out.iterdir()):
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
            f"{out}: holds results of a different scenario or settings ({old['scenario'].get('name')}, "
            f"fingerprint {old_fp}; this one is {scn.fingerprint()}); "
            f"{'resuming with a changed scenario is refused' if resume else 'refusing to mix them'}"
            f": choose another --out (nothing was changed)")
    return old


@dataclass
class RunResult:
    """Where a run went and what it did."""

    out: Path
    n_chunks: int
    reused: int
    computed: int
    n_matches: int
    n_hands: int
    seconds: float


def _executor(workers: int, scheduler: str | None):
    """An iterator factory: submit(chunks) -> yields (chunk, tables) as they finish."""
    if scheduler:
        return _dask_map(scheduler)
    if workers <= 1:
        return lambda scn, chunks: ((c, run_chunk(scn, c)) for c in chunks)
    return _process_map(workers)


def _process_map(workers: int):
    def submit(scn: Scenario, chunks: list[Chunk]) -> Iterator[tuple[Chunk, dict]]:
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        ctx = multiprocessing.get_context("spawn")  # numba's thread pools do not survive fork
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            # The first chunk runs here: it compiles the kernels into numba's cache once,
            # so the workers load them instead of each compiling its own copy. On a cold
            # cache a worker compiles the evaluator and the draft meanwhile (behind compile
            # firewalls, see kernels.firewall), and starts up while this process compiles.
            if scn.kind != "ordered-hand":
                from nop_sim.engine import compile_callees, compile_engine, refresh_kernel_cache

                refresh_kernel_cache()  # before the worker looks at the cache
                callees = pool.submit(compile_callees)
                compile_engine()
                callees.result()
            yield chunks[0], run_chunk(scn, chunks[0])
            chunks = chunks[1:]
            pending = {}
            todo = iter(chunks)
            for c in itertools.islice(todo, 2 * workers):
                pending[pool.submit(run_chunk, scn, c)] = c
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    c = pending.pop(fut)
                    yield c, fut.result()
                    for nxt in itertools.islice(todo, 1):
                        pending[pool.submit(run_chunk, scn, nxt)] = nxt
    return submit


def _dask_map(address: str):
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise RunError("--scheduler needs dask.distributed: pip install 'nop-sim[dask]' "
                       "(or pip install 'dask[distributed]')") from None

    def submit(scn: Scenario, chunks: list[Chunk]) -> Iterator[tuple[Chunk, dict]]:
        try:
            client = Client(address, timeout="10s")
        except (OSError, TimeoutError) as exc:
            raise RunError(f"--scheduler {address}: cannot reach the Dask scheduler ({exc}); "
                           f"check the address (tcp://HOST:PORT) and that it is running") from None
        try:
            futures = {client.submit(run_chunk, scn, c, key=f"nop-{c.name}-{c.seed}", pure=False): c
                       for c in chunks}
            for fut in as_completed(futures):
                yield futures[fut], fut.result()
        finally:
            client.close()
    return submit


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

    ``progress(done_chunks, total_chunks, hands_so_far)`` is called after each chunk.
    A run that fails before its first chunk is written leaves ``out`` as it
    was; after that, every finished chunk is kept for ``resume``.
    """
    out = Path(out)
    t0 = time.perf_counter()
    old = _prepare_folder(out, scn, resume)
    chunks = plan_chunks(scn)
    started = old["started"] if old else datetime.now(UTC).isoformat(timespec="seconds")
    manifest = _manifest(scn, chunks, started)
    todo = [c for c in chunks if not _chunk_ok(out, c)]
    reused = len(chunks) - len(todo)
    hands = _hands_done(out, [c for c in chunks if c not in set(todo)]) if reused else 0
    done = reused
    workers = (os.cpu_count() or 1) if workers is None else int(workers)
    workers = max(1, min(workers, len(todo) - 1))
    start = _FolderStart(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "chunks").mkdir(exist_ok=True)
        _write_json(out / "manifest.json", manifest)
        if progress:
            progress(done, len(chunks), hands)
        finished = iter(_executor(workers, scheduler)(scn, todo)) if todo else iter(())
        first = next(finished, None)
        if first is not None:
            _write_chunk(out, *first)
    except BaseException:
        start.undo()
        raise
    for i, (chunk, tables) in enumerate(itertools.chain([first] if first else [], finished)):
        if i:  # the first chunk is in place already
            _write_chunk(out, chunk, tables)
        done += 1
        hands += int(tables["counts"]["hands"].sum()) if "hands" in tables["counts"] else 0
        if progress:
            progress(done, len(chunks), hands)
    n_matches, n_hands = merge_chunks(out, chunks)
    for tmp in (out / "chunks").glob(".tmp-*"):  # left by a run that was killed
        shutil.rmtree(tmp, ignore_errors=True)
    manifest["ended"] = datetime.now(UTC).isoformat(timespec="seconds")
    manifest["status"] = "finished"
    manifest["totals"] = {"matches": n_matches, "hands": n_hands}
    _write_json(out / "manifest.json", manifest)
    return RunResult(out, len(chunks), reused, len(todo), n_matches, n_hands,
                     time.perf_counter() - t0)


def _hands_done(out: Path, chunks: Iterable[Chunk]) -> int:
    total = 0
    for c in chunks:
        frame = pd.read_parquet(out / "chunks" / c.name / "counts.parquet")
        total += int(frame["hands"].sum()) if "hands" in frame else 0
    return total


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=1, default=str))
    os.replace(tmp, path)


def merge_chunks(out: Path, chunks: list[Chunk]) -> tuple[int, int]:
    """Merge chunk tables into the run's tables, streaming: memory stays bounded.

    Row tables are appended chunk by chunk to one Parquet file each; the
    per-point counters in ``arrays`` are summed as they are read.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    writers: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
    empty: dict[str, Any] = {}  # a schema per table, for one with no rows in any chunk
    arrays = None
    n_matches = n_hands = 0
    keys = ["point", "table", "stat", "index", "label"]
    try:
        for c in chunks:
            folder = out / "chunks" / c.name
            for name in ROW_TABLES:
                table = pq.read_table(folder / f"{name}.parquet")
                empty.setdefault(name, table.schema)
                if table.num_rows == 0:
                    continue
                if name not in writers:
                    schemas[name] = table.schema
                    writers[name] = pq.ParquetWriter(out / f".{name}.parquet.tmp", table.schema)
                else:
                    table = table.select(schemas[name].names).cast(schemas[name])
                writers[name].write_table(table)
                if name == "matches":
                    n_matches += table.num_rows
                if name == "counts" and "hands" in table.column_names:
                    n_hands += int(pa.compute.sum(table.column("hands")).as_py() or 0)
            part = pd.read_parquet(folder / "arrays.parquet")
            if len(part):
                part = part.groupby(keys, sort=False)["value"].sum()
                arrays = part if arrays is None else arrays.add(part, fill_value=0)
    finally:
        for w in writers.values():
            w.close()
    for name in ROW_TABLES:
        tmp = out / f".{name}.parquet.tmp"
        if name not in writers:
            if name in empty:
                pq.write_table(empty[name].empty_table(), tmp)
            else:
                pd.DataFrame().to_parquet(tmp, index=False)
        os.replace(tmp, out / f"{name}.parquet")
    frame = (arrays.astype(np.int64).reset_index().sort_values(keys[:4], kind="stable")
             if arrays is not None else pd.DataFrame(columns=keys + ["value"]))
    frame.to_parquet(out / ".arrays.parquet.tmp", index=False)
    os.replace(out / ".arrays.parquet.tmp", out / "arrays.parquet")
    return n_matches, n_hands


def _read_table(path: Path) -> pd.DataFrame:
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
    text = [f.name for f in schema if pa.types.is_string(f.type) or
            pa.types.is_large_string(f.type)]
    plain = [f for f in schema if f.name not in text]

    def simple() -> pd.DataFrame:  # for tables nop-sim does not write (other types, nulls)
        return pq.read_table(path, read_dictionary=text).to_pandas()

    if any(not (pa.types.is_integer(f.type) or pa.types.is_floating(f.type)
                or pa.types.is_boolean(f.type)) for f in plain):
        return simple()
    pf = pq.ParquetFile(path, read_dictionary=text)
    n = pf.metadata.num_rows
    data = {f.name: np.empty(n, dtype=f.type.to_pandas_dtype()) for f in plain}
    codes = {name: np.empty(n, dtype=np.int32) for name in text}
    labels: dict[str, dict[str, int]] = {name: {} for name in text}
    pos = 0
    for batch in pf.iter_batches(batch_size=1 << 16):
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


def load_tables(out: str | Path, names: Iterable[str] = RESULT_TABLES
                ) -> dict[str, pd.DataFrame]:
    """The merged tables of a finished run folder (``names``: which ones; ``events`` on request)."""
    out = Path(out)
    manifest = out / "manifest.json"
    if not manifest.exists():
        raise RunError(f"{out}: not a nop-sim results folder (no manifest.json)")
    tables = {}
    for name in names:
        path = out / f"{name}.parquet"
        if not path.exists():
            raise RunError(f"{out}: {path.name} is missing; the run did not finish — "
                           f"finish it with nop-sim run ... --resume --out {out}")
        try:
            tables[name] = _read_table(path)
        except Exception as exc:  # pyarrow raises several kinds for damaged files
            raise RunError(f"{path}: cannot be read ({exc.__class__.__name__}); "
                           f"rebuild it with --resume") from None
    return tables


@dataclass(frozen=True)
class MatchLog:
    """One logged match read back from a run folder (:func:`load_match_log`).

    ``events`` are the match's rows of ``events.parquet`` in play order: for
    New Order :data:`EVENT_COLUMNS` (the rows of :mod:`nop_sim.events`), for
    Ordered Hand ``player, kind, a, b`` with the shuffled deck as rows of kind
    ``DECK_EVENT`` (see :func:`nop_sim.ordered.engine.run_ordered_chunk`).
    """

    kind: str
    point: int
    match: int
    events: pd.DataFrame
    names: list[str]  # "Seat 1 (preset)", one per seat
    settings: Any     # the game's settings at the sweep point

    def records(self) -> list[dict[str, Any]]:
        """The events as JSON-ready dicts (what ``nop-sim hands --json`` writes)."""
        if self.kind == "ordered-hand":
            from nop_sim.ordered.history import game_records

            return game_records(self._ordered()[1], self.match)
        from nop_sim.events import to_records

        return list(to_records(self.events[list(EVENT_COLUMNS)].to_numpy(np.int64)))

    def history(self) -> str:
        """The match as a readable hand history."""
        if self.kind == "ordered-hand":
            from nop_sim.ordered.history import render_game

            deck, rows = self._ordered()
            return render_game(self.settings, deck, rows, self.names, self.match + 1)
        from nop_sim.events import render_history

        return render_history(self.records(), self.names)

    def _ordered(self) -> tuple[np.ndarray, np.ndarray]:
        from nop_sim.ordered.engine import DECK_EVENT

        ev = self.events
        is_deck = (ev["kind"] == DECK_EVENT).to_numpy()
        deck = ev[is_deck].sort_values("a")["b"].to_numpy(np.int8)
        return deck, ev.loc[~is_deck, ["player", "kind", "a", "b"]].to_numpy(np.int64)


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
    try:
        manifest = json.loads((out / "manifest.json").read_text())
        text = manifest["scenario"]["text"]
        n_points = int(manifest["n_points"])
    except FileNotFoundError:
        raise RunError(f"{out}: not a nop-sim results folder (no manifest.json)") from None
    except (OSError, ValueError, KeyError, TypeError):
        raise RunError(f"{out / 'manifest.json'}: is damaged") from None
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
    seats = pq.read_table(out / "seats.parquet", columns=["seat", "preset"],
                          filters=[("point", "==", point), ("match", "==", match)]
                          ).to_pandas().sort_values("seat")
    names = [f"Seat {s + 1} ({p})" for s, p in zip(seats["seat"], seats["preset"], strict=True)]
    scn = Scenario.from_mapping(tomllib.loads(text), source=str(out / "manifest.json"))
    settings = scn.settings_at(scn.points()[point])
    return MatchLog(manifest["scenario"]["kind"], point, match, events, names, settings)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use the nop-sim command")
