"""The run folder: write parts, read tables back. Below every game and its analysis.

A run folder holds each row once::

    manifest.json              scenario (and its game's kind), resolved settings, seed,
                               versions, git, times, and the tables its parts hold
                               (``tables``: ``rows`` appended, ``summed`` added up)
    chunks/p0000-c000000/      one folder per finished part, named after its first
        matches.parquet ...    chunk, renamed into place when complete; done.json
                               lists its chunks (seeds, sizes) and files (checksums)

The parts are the store: :func:`load_tables` reads a table's part files in plan
order (their folder names sort so), appending rows and adding up the summed
tables (``point, <keys...>, value``) by key, so the rows read back depend on the
run's chunks only, never on how they were cut into parts, the worker count or
the backend. Nothing is merged or written again when a run ends.

A part is written into a ``.tmp-*`` folder, synced and renamed into place
(:func:`write_part`, :func:`place_part`): a run killed at any moment leaves only whole parts;
``--resume`` checks every part's checksums (:func:`finished_parts`), redoes
damaged ones and runs the rest. Folders of an older store hold merged tables
(``<table>.parquet`` beside the manifest, no ``tables`` in it): they are read as
they are, and a run that resumes one removes them when it finishes.

A table of counts may be stored wide, a row a key and a column a label
(:func:`wide_table`: its long layout in the file's schema metadata); every reader here
reads it back long, as if it had been stored so.

Plain data only: no game, no scenario. What a game stores is passed in (its
table names, its store version); the game of a folder and its match logs are
read one layer up (:mod:`nop_sim.results.match_log`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from nop_sim.core.errors import RunError
from nop_sim.core.profiling import phase

__all__ = ["DRAFTS_FILE", "STRONG_FOLDER", "STRONG_PLAY_FILE", "UNSETTLED", "VALUES_FILE", "RunError", "concat_tables", "damaged_manifest",
           "finished_parts",
           "load_strong_drafts", "load_strong_play", "load_tables", "logged_matches",
           "no_match_logged", "not_a_run", "replayable",
           "part_chunks", "read_manifest", "read_rows", "remove_merged", "write_json",
           "place_part", "write_part"]

DONE = "done.json"


# ---------------------------------------------------------------------------
# Arrow helpers
# ---------------------------------------------------------------------------
def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def arrow(table) -> pa.Table:
    """A chunk table as a ``pyarrow.Table`` (games may return pandas or Arrow tables)."""
    return table if isinstance(table, pa.Table) else pa.Table.from_pandas(table,
                                                                         preserve_index=False)


def concat(tables: list) -> pa.Table:
    """Chunk tables of one name, appended; empty ones (whose text columns have no type
    yet) give way to the others."""
    tables = [arrow(t) for t in tables]
    full = [t for t in tables if t.num_rows] or tables[:1]
    if len(full) == 1:
        return full[0]
    schema = full[0].schema
    return pa.concat_tables([t.select(schema.names).cast(schema) for t in full])


def summed(table: pa.Table) -> pa.Table:
    """A summed table's rows with equal keys added up (first-seen key order)."""
    keys = [k for k in table.column_names if k != "value"]
    if table.num_rows == 0 or not keys:
        return table
    out = table.group_by(keys, use_threads=False).aggregate([("value", "sum")])
    return out.rename_columns([*keys, "value"]).select(table.column_names).cast(table.schema)


def concat_tables(parts: list[dict], names: Iterable[str] | None = None
                  ) -> dict[str, pd.DataFrame]:
    """Several chunks' tables (as ``Game.play_chunk`` returns them), appended, as pandas:
    every table, or those of ``names``; a table stored wide, long (as the store reads it
    back)."""
    names = list(parts[0]) if names is None else list(names)
    return {name: _long(concat([p[name] for p in parts])).to_pandas() for name in names}


def column_sum(table: pa.Table, column: str) -> int:
    """The sum of an Arrow table's integer column (0 when empty)."""
    return int(pc.sum(table.column(column)).as_py() or 0)


def read_part(path: Path, columns: Sequence[str] | None = None) -> pa.Table:
    """One stored part's table, read whole on this thread.

    ``pq.read_table`` goes through the dataset layer and Arrow's thread pool:
    about six times the CPU of a plain ``ParquetFile.read`` for the small
    files a part holds, taken from the workers' cores during a run.
    """
    with pq.ParquetFile(path) as f:
        return f.read(columns=columns, use_threads=False)


def write_json(path: Path, data: dict) -> None:
    """Write ``data`` as JSON through a temporary file renamed into place."""
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=1, default=str))
    os.replace(tmp, path)


# ---------------------------------------------------------------------------
# Writing parts, and finding the ones a run can keep
# ---------------------------------------------------------------------------
#: the columns reads filter rows on (:func:`read_rows`, :func:`load_tables` by point): the
#: ones whose Parquet statistics let a read skip a file's row groups
FILTERED_COLUMNS = ("point", "match")


def _write_options(schema: pa.Schema) -> dict:
    """How a part's table is written: statistics only of the columns reads filter on
    (every column's took a tenth of the write's CPU); integer columns delta-encoded and
    text dictionary-encoded (a dictionary of every integer column took a quarter of
    the write's CPU, and its files were larger)."""
    ints = [f.name for f in schema if pa.types.is_integer(f.type)]
    return {"write_statistics": [c for c in FILTERED_COLUMNS if c in schema.names],
            "use_dictionary": [f.name for f in schema if f.name not in ints],
            "column_encoding": dict.fromkeys(ints, "DELTA_BINARY_PACKED")}


def write_part(out: Path, chunks: Sequence, tables: Mapping[str, pa.Table],
               store_version: int, place: bool = True) -> Path | None:
    """Write a part's tables into a temporary folder, then put it in place
    (:func:`place_part`); with ``place=False``, return the temporary folder instead, for
    the run's own process to place (a worker then spends no time waiting on the disk).

    A part is a run of consecutive chunks (each with ``name``, ``n_matches`` and
    ``seed``) stored together, one file per table: its folder is named after its
    first chunk, and ``done.json`` lists every chunk it holds with its seed, and
    every file with its rows and checksum.
    """
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
                table = _counted(table)
                pq.write_table(table, path, **_write_options(table.schema))
            with phase("checksums"):
                done["files"][name] = {"rows": table.num_rows, "sha256": sha256(path)}
        (tmp / DONE).write_text(json.dumps(done, indent=1))
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if not place:
        return tmp
    place_part(tmp, final)
    return None


def place_part(tmp: Path, final: Path) -> None:
    """A part written into ``tmp`` (:func:`write_part`), made durable (every file synced
    to the disk) and renamed to ``final``, replacing an older part of that name.

    Until then the part is a ``.tmp-*`` folder, which a run ignores and removes: a crash
    before the rename loses the part, never half of it. A resume checks every file's
    checksum as well, so a file the disk lost after the rename is redone.
    """
    try:
        with phase("write"):
            for path in sorted(tmp.iterdir()):
                with open(path, "rb") as fh:
                    os.fsync(fh.fileno())
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _listed_chunks(done: dict) -> list[dict]:
    """The chunks a part's ``done.json`` lists (an old one-chunk folder lists itself)."""
    return done.get("chunks") or [{"name": done["chunk"], "n_matches": done["n_matches"],
                                   "seed": done["seed"]}]


def part_chunks(folder: Path, plan: Mapping[str, Any], tables: Iterable[str],
                store_version: int) -> list | None:
    """The chunks of ``plan`` (name -> chunk) a part folder holds, or None unless it is
    complete and matches the plan: every file of ``tables`` there with its checksum,
    every chunk's seed and size, the game's ``store_version``."""
    try:
        done = json.loads((folder / DONE).read_text())
        listed = _listed_chunks(done)
        chunks = [plan.get(c["name"]) for c in listed]
        if any(c is None or (c.n_matches, c.seed) != (m["n_matches"], m["seed"])
               for c, m in zip(chunks, listed, strict=True)):
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if done.get("store_version", 1) != store_version:
        return None  # an older store's chunk is redone, not mixed in
    files = done.get("files", {})
    if set(files) != set(tables):
        return None
    for name, meta in files.items():
        path = folder / f"{name}.parquet"
        if not path.is_file() or sha256(path) != meta.get("sha256"):
            return None
    return chunks


def _part_folders(out: Path) -> list[Path]:
    """The part folders of a run, in plan order (their names sort so)."""
    chunks = out / "chunks"
    return sorted(p for p in chunks.glob("p*") if p.is_dir()) if chunks.is_dir() else []


def finished_parts(out: Path, chunks: Sequence, tables: Iterable[str], store_version: int
                   ) -> tuple[dict[str, list], list[Path]]:
    """The part folders whose chunks can be reused (folder name -> chunks), and the
    folders that cannot (damaged, stale or overlapping: removed once the run starts)."""
    plan = {c.name: c for c in chunks}
    tables = tuple(tables)
    parts: dict[str, list] = {}
    stale: list[Path] = []
    claimed: set[str] = set()
    for folder in _part_folders(out):
        held = part_chunks(folder, plan, tables, store_version)
        if held is None or claimed & {c.name for c in held}:
            stale.append(folder)
            continue
        claimed |= {c.name for c in held}
        parts[folder.name] = held
    return parts, stale


def remove_merged(out: Path, tables: Iterable[str]) -> None:
    """Remove an older store's merged tables (``<table>.parquet`` beside the manifest):
    once a run of the folder finishes, its parts are the store."""
    for name in tables:
        (out / f"{name}.parquet").unlink(missing_ok=True)


# ---------------------------------------------------------------------------
# What a folder is
# ---------------------------------------------------------------------------
def not_a_run(out: str | Path) -> str | None:
    """What a folder another nop-sim command wrote is, when it is not a run, and what to
    do with it, as one line (None for anything else: a run folder, an empty one).

    The folders of ``nop-sim train`` (``strong.toml``, ``state.json``, a manifest
    of kind ``train``, or ``train-pool`` for ``--seeds``), ``tune`` (``study.db``, ``best.toml``), ``compare``
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
    if manifest.get("kind") in ("train", "train-pool") or ((out / "state.json").is_file()
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


# the tables ``nop-sim sweep --train [--value]`` adds to a sweep's folder: each point's
# training (``strong_play.csv``) and each point's mechanic values (``values.csv``)
STRONG_PLAY_FILE = "strong_play.csv"
VALUES_FILE = "values.csv"
DRAFTS_FILE = "drafts.csv"      # each Disruptor's drafted lead under each point's field
# points: a point whose training a deviation beats by at least this much (the low end of
# its stated exploitability) did not settle; its values read its field's weaknesses
UNSETTLED = 10.0
# the folder inside a run where nop-sim run plays the scenario's [strong] field beside it
STRONG_FOLDER = "strong-play"
VALUE_COLUMNS = ("point", "mechanic", "value", "low", "high")


def _strong_table(path: Path, need: Sequence[str]) -> pd.DataFrame | None:
    """One of the tables ``sweep --train [--value]`` writes, or None where it is not
    there; unreadable or missing a column: :class:`RunError` naming the file."""
    if not path.exists():
        return None
    try:
        frame = pd.read_csv(path)
    except (OSError, ValueError) as exc:
        raise RunError(f"{path}: cannot be read ({exc}); run the sweep again with "
                       f"--train --value --resume") from None
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise RunError(f"{path}: has no column {', '.join(missing)}; run the sweep again "
                       f"with --train --value --resume")
    return frame


def load_strong_play(out: str | Path) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """``(strong_play, values)`` of a sweep folder run with ``--train`` (``--value``): a
    row per point's training, a row per point and mechanic (an empty table without
    ``--value``); None for a run without. A table that cannot be read raises
    :class:`RunError` naming it."""
    trained = _strong_table(Path(out) / STRONG_PLAY_FILE, ("point", "exploitability"))
    if trained is None:
        return None
    values = _strong_table(Path(out) / VALUES_FILE, VALUE_COLUMNS)
    return trained, (pd.DataFrame(columns=list(VALUE_COLUMNS)) if values is None else values)


def load_strong_drafts(out: str | Path) -> pd.DataFrame | None:
    """``drafts.csv`` of a sweep folder run with ``--train --value`` (each point's
    Disruptor leads under its field), or None; unreadable: :class:`RunError`."""
    return _strong_table(Path(out) / DRAFTS_FILE, ("point", "card", "lead", "low", "high"))


def damaged_manifest(out: str | Path) -> str:
    """The one line for a run folder whose ``manifest.json`` cannot be read, saying what to
    do. The manifest holds the scenario and the plan, so nothing rebuilds it from the folder
    (``run --resume`` refuses it too): the run is made again, and nothing is deleted."""
    return (f"{Path(out) / 'manifest.json'}: is damaged, so the run cannot be read or "
            f"resumed; run its scenario again into another folder (nop-sim run SCENARIO --out "
            f"DIR), or move this folder away and run into it again (nothing was changed)")


def replayable(manifest: dict) -> bool:
    """Any match of the run folder whose manifest this is can be played again
    (:mod:`nop_sim.run.replay`): a run wrote it (its manifest names the seed, the chunks
    and the scenario's fingerprint, where a match ``nop-sim play`` saved does not) for a
    game that declares ``replay_chunk`` (named in the manifest's ``replayable``)."""
    scenario = manifest.get("scenario")
    return (manifest.get("replayable") is True and isinstance(scenario, dict)
            and "fingerprint" in scenario
            and all(k in manifest for k in ("seed", "chunk", "matches_per_point")))


def no_match_logged(out: str | Path) -> str:
    """The one line for a run folder that logged no match, saying how to log some: what
    ``nop-sim replay`` and ``nop-sim hands`` answer, and what the report says in place of
    the matches it would cite."""
    return (f"{out}: no match was logged ([run] log_sample = 0); to keep one match in N, "
            f"run again with --set run.log_sample=N into a new --out")


def read_manifest(out: str | Path) -> dict:
    """The manifest of a run folder; :class:`RunError` (one line) for any other folder,
    one without a manifest, or a damaged one."""
    out = Path(out)
    other = not_a_run(out)
    if other is not None:
        raise RunError(other)
    try:
        manifest = json.loads((out / "manifest.json").read_text())
    except FileNotFoundError:
        raise RunError(f"{out}: not a nop-sim results folder (no manifest.json)") from None
    except (OSError, ValueError):
        raise RunError(damaged_manifest(out)) from None
    if not isinstance(manifest, dict):
        raise RunError(damaged_manifest(out))
    return manifest


# ---------------------------------------------------------------------------
# Reading tables back
# ---------------------------------------------------------------------------
class _Parts:
    """The part files of a finished run, in plan order, and the tables they hold."""

    def __init__(self, out: Path, manifest: dict):
        self.out = out
        try:
            layout = manifest["tables"]
            self.rows = tuple(layout["rows"])
            self.summed = tuple(layout["summed"])
            finished = manifest.get("status") == "finished"
            n_chunks = int(manifest["n_chunks"])
        except (KeyError, TypeError, ValueError):
            raise RunError(damaged_manifest(out)) from None
        if not finished:
            raise RunError(f"{out}: the run did not finish — finish it with nop-sim run ... "
                           f"--resume --out {out}")
        self.folders: list[Path] = []
        self.points: list[set[int]] = []  # the sweep points of each part's chunks
        held = 0
        for folder in _part_folders(out):
            try:
                listed = _listed_chunks(json.loads((folder / DONE).read_text()))
                self.points.append({int(c["name"][1:5]) for c in listed})
            except (OSError, ValueError, KeyError, TypeError):
                raise RunError(f"{folder / DONE}: is damaged; rebuild it with nop-sim run ... "
                               f"--resume --out {out}") from None
            self.folders.append(folder)
            held += len(listed)
        if held != n_chunks:
            raise RunError(f"{out}: its parts hold {held} of the run's {n_chunks} chunks; "
                           f"rebuild them with nop-sim run ... --resume --out {out}")

    def files(self, name: str, point: int | None = None) -> list[Path]:
        return [f / f"{name}.parquet" for f, points in zip(self.folders, self.points, strict=True)
                if point is None or point in points]


#: a part file's schema metadata that marks a table stored wide (:func:`wide_table`)
WIDE = b"nop_sim.wide"


def wide_table(keys: Mapping[str, Any], values: np.ndarray, column: str, value: str,
               labels: Sequence[str]) -> pa.Table:
    """A long table (``keys...``, ``column``, ``value``: a row for each nonzero count) as
    it is stored: one row a key, one column a label (``<value>.<label>``), the long
    layout in the schema's metadata. Every reader of the store reads it back long
    (:func:`_long`), the rows in key order and then label order, ``column`` as text: the
    rows the long table would have. A game's drafts (35 rows a match) took a part 20 to
    30 ms to build and write long, 9 ms so.

    ``keys``: name -> int64 array (n,); ``values``: int64 (n, len(labels)).
    """
    values = np.asarray(values)
    table = pa.table({**keys, **{f"{value}.{label}": values[:, i]
                                 for i, label in enumerate(labels)}})
    layout = {"keys": list(keys), "column": column, "value": value, "labels": list(labels)}
    return table.replace_schema_metadata({WIDE: json.dumps(layout).encode()})


def _counted(table: pa.Table) -> pa.Table:
    """A table as written: one stored wide carries the rows it reads back with (its
    nonzero counts), so that a read can size its columns before it reads them."""
    layout = _layout(table.schema)
    if layout is None:
        return table
    layout["rows"] = sum(int(np.count_nonzero(table.column(f"{layout['value']}.{label}")
                                              .to_numpy(zero_copy_only=False)))
                         for label in layout["labels"])
    return table.replace_schema_metadata({WIDE: json.dumps(layout).encode()})


def _layout(schema: pa.Schema) -> dict | None:
    """The long layout of a table stored wide (:func:`wide_table`), or None."""
    meta = schema.metadata or {}
    return json.loads(meta[WIDE]) if WIDE in meta else None


def _long_schema(schema: pa.Schema) -> pa.Schema:
    """The schema a file's table reads back with (a wide table's long one)."""
    layout = _layout(schema)
    if layout is None:
        return schema
    value_type = schema.field(f"{layout['value']}.{layout['labels'][0]}").type
    return pa.schema([*(schema.field(k) for k in layout["keys"]),
                      pa.field(layout["column"], pa.large_string()),
                      pa.field(layout["value"], value_type)])


def _stored_columns(schema: pa.Schema, columns: Sequence[str] | None) -> list[str] | None:
    """The columns of a file to read for ``columns`` of its table read back (a wide
    table's counts, for any column of its long layout but the keys: they say which rows
    there are)."""
    layout = _layout(schema)
    if layout is None or columns is None:
        return None if columns is None else list(columns)
    return ([k for k in layout["keys"] if k in columns] +
            [f"{layout['value']}.{label}" for label in layout["labels"]])


def _long(table: pa.Table | pa.RecordBatch, columns: Sequence[str] | None = None
          ) -> pa.Table | pa.RecordBatch:
    """A table or batch as read from a file, long where it was stored wide; ``columns``:
    those only. The text column is a dictionary of the labels present, in the order
    they first appear (as a long table's Parquet dictionary reads)."""
    layout = _layout(table.schema)
    if layout is None:
        return table
    labels = layout["labels"]
    counts = np.column_stack([table.column(f"{layout['value']}.{label}").to_numpy(
        zero_copy_only=False) for label in labels]) if table.num_rows else np.zeros(
        (0, len(labels)), np.int64)
    at = np.flatnonzero(counts)
    row, label = np.divmod(at, len(labels))
    present, first = np.unique(label, return_index=True)
    order = present[np.argsort(first, kind="stable")]  # labels in the order first met
    code = np.empty(len(labels), np.int32)
    code[order] = np.arange(order.size, dtype=np.int32)
    names = pa.array([labels[i] for i in order], pa.large_string())
    out = {k: table.column(k).take(pa.array(row)) for k in layout["keys"]
           if columns is None or k in columns}
    out[layout["column"]] = pa.DictionaryArray.from_arrays(pa.array(code[label]), names)
    out[layout["value"]] = pa.array(counts.reshape(-1)[at])
    if columns is not None:
        out = {k: v for k, v in out.items() if k in columns}
    return (pa.RecordBatch.from_pydict(out) if isinstance(table, pa.RecordBatch)
            else pa.table(out))


def _read_file(path: Path, columns: Sequence[str] | None, text: Sequence[str],
               filters=None) -> pa.Table:
    """A part file's table as stored (wide where it was written so: :func:`_long` reads
    it long), ``columns`` of its table read back, ``text`` columns as dictionaries."""
    schema = pq.read_schema(path)
    return pq.read_table(path, columns=_stored_columns(schema, columns), filters=filters,
                         read_dictionary=[c for c in text if c in schema.names])


def _rows(meta: pq.FileMetaData, schema: pa.Schema) -> int:
    """The rows a part file's table reads back with (its footer ``meta``, its ``schema``)."""
    layout = _layout(schema)
    return meta.num_rows if layout is None else int(layout["rows"])


def _text_columns(schema: pa.Schema) -> list[str]:
    """The text columns of an Arrow schema (read as pandas categories)."""
    return [f.name for f in schema if pa.types.is_string(f.type) or
            pa.types.is_large_string(f.type)]


def _plain(paths: Sequence[Path], schema: pa.Schema, text: list[str]) -> pd.DataFrame:
    """The files' rows appended, the general way (any type, nulls)."""
    tables = [_long(_read_file(p, schema.names, text), schema.names) for p in paths]
    return concat(tables).unify_dictionaries().to_pandas()


def _read_table(paths: Path | Sequence[Path], columns: Sequence[str] | None = None
                ) -> pd.DataFrame:
    """Parquet files' rows appended in order, text columns as pandas categories.

    The drafts of a ten-million-hand sweep run to millions of rows in
    thousands of row groups. Reading them whole and then converting held the
    Arrow tables, their chunks and the pandas frame at once, three times the
    frame's size; here the columns are preallocated and filled one batch at a
    time, and card ids stay category codes (categories in the order first met).
    """
    paths = [paths] if isinstance(paths, Path) else list(paths)
    metas = [pq.read_metadata(p) for p in paths]  # each file's footer, read once
    stored = [m.schema.to_arrow_schema() for m in metas]
    counts = [_rows(m, s) for m, s in zip(metas, stored, strict=True)]
    # the first file with rows types the table (an empty part's text columns may have none)
    schema = _long_schema(stored[next((i for i, n in enumerate(counts) if n), 0)])
    if columns is not None:
        schema = pa.schema([f for f in schema if f.name in set(columns)])
    text = _text_columns(schema)
    plain = [f for f in schema if f.name not in text]
    if any(not (pa.types.is_integer(f.type) or pa.types.is_floating(f.type)
                or pa.types.is_boolean(f.type)) for f in plain):
        return _plain(paths, schema, text)
    n = sum(counts)
    data = {f.name: np.empty(n, dtype=f.type.to_pandas_dtype()) for f in plain}
    codes = {name: np.empty(n, dtype=np.int32) for name in text}
    labels: dict[str, dict[str, int]] = {name: {} for name in text}
    pos = 0
    for path, meta, stored_schema, count in zip(paths, metas, stored, counts, strict=True):
        if not count:
            continue
        pf = pq.ParquetFile(path, metadata=meta,
                            read_dictionary=[c for c in text if c in stored_schema.names])
        wanted = _stored_columns(stored_schema, schema.names)
        for batch in pf.iter_batches(batch_size=1 << 16, columns=wanted):
            batch = _long(batch, schema.names)
            k = batch.num_rows
            for name in data:
                col = batch.column(name)
                if col.null_count:
                    return _plain(paths, schema, text)
                data[name][pos:pos + k] = col.to_numpy(zero_copy_only=False)
            for name in text:
                col = batch.column(name)
                if not pa.types.is_dictionary(col.type):
                    return _plain(paths, schema, text)
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


def _read_point(paths: Sequence[Path], point: int) -> pd.DataFrame:
    """One sweep point's rows of a table's files, text columns as pandas categories."""
    schema = _long_schema(pq.read_schema(paths[0]))
    text = _text_columns(schema)
    filters = [("point", "==", point)] if "point" in schema.names else None
    def read(path):
        return _long(_read_file(path, None, text, filters))

    if len(paths) > 1:  # pyarrow reads without the GIL: the parts on every core, in order
        with ThreadPoolExecutor(max_workers=min(len(paths), os.cpu_count() or 1)) as pool:
            tables = list(pool.map(read, paths))
    else:
        tables = [read(p) for p in paths]
    return concat(tables).unify_dictionaries().to_pandas()


def _read_summed(paths: Sequence[Path], point: int | None) -> pd.DataFrame:
    """A summed table: every part's rows added up by key, sorted by key, values int64."""
    table = concat([read_part(p) for p in paths])
    keys = [k for k in table.column_names if k != "value"]
    if point is not None and "point" in keys:
        table = table.filter(pc.equal(table.column("point"), point))
    if table.num_rows == 0:
        return pd.DataFrame(columns=[*keys, "value"])
    frame = summed(table).select([*keys, "value"]).to_pandas()
    frame["value"] = frame["value"].astype(np.int64)
    frame = frame.sort_values(keys, kind="stable").reset_index(drop=True)
    for name in _text_columns(table.schema):  # as every other table's: categories, first met
        frame[name] = pd.Categorical(frame[name], categories=pd.unique(frame[name]))
    return frame


def _read_merged(out: Path, name: str, point: int | None,
                 columns: Sequence[str] | None) -> pd.DataFrame:
    """A table of an older store's folder, merged beside the manifest."""
    path = out / f"{name}.parquet"
    if not path.exists():
        raise RunError(f"{out}: {path.name} is missing; the run did not finish — "
                       f"finish it with nop-sim run ... --resume --out {out}")
    return _read_table(path, columns) if point is None else _read_point([path], point)


def load_tables(out: str | Path, names: Iterable[str] | None = None,
                point: int | None = None,
                columns: Mapping[str, Sequence[str]] | None = None) -> dict[str, pd.DataFrame]:
    """The tables of a finished run folder, each row once, in plan order.

    ``names``: which ones; by default every table the folder holds but
    ``events`` (the game's ``result_tables``). ``point``: only that sweep
    point's rows (read from the parts that hold them: memory stays that of one
    point however many there are). ``columns``: table -> the columns to read
    (every column of a table not named). Raises :class:`RunError` (one line)
    for a folder that is not a finished run, or a part that cannot be read.
    """
    out = Path(out)
    manifest = read_manifest(out)
    merged = "tables" not in manifest  # an older store: merged tables beside the manifest
    if point is not None and [p.get("point") for p in manifest.get("points", ())] == [point]:
        # every row is this point's: read whole, on this thread (the point's filter reads
        # through Arrow's dataset layer, on a thread a part: twice the CPU, taken from
        # the workers' cores while a side run plays)
        point = None
    parts = None if merged else _Parts(out, manifest)
    if names is None:
        names = ([p.stem for p in sorted(out.glob("*.parquet")) if p.stem != "events"]
                 if merged else [t for t in (*parts.rows, *parts.summed) if t != "events"])
    tables = {}
    for name in names:
        if parts is not None and name not in (*parts.rows, *parts.summed):
            raise RunError(f"{out}: holds no table {name!r}; its tables: "
                           f"{', '.join((*parts.rows, *parts.summed))}")
        wanted = (columns or {}).get(name)
        try:
            if parts is None:
                tables[name] = _read_merged(out, name, point, wanted)
            elif name in parts.summed:
                tables[name] = _read_summed(parts.files(name, point), point)
            else:
                files = parts.files(name, point)
                if not files:  # a point no part holds: the table's columns, no rows
                    files = parts.files(name)[:1]
                    tables[name] = _read_point(files, -1 if point is None else point)
                else:
                    tables[name] = (_read_table(files, wanted) if point is None
                                    else _read_point(files, point))
        except RunError:
            raise
        except Exception as exc:  # pyarrow raises several kinds for damaged files
            raise RunError(f"{out}: its table {name} cannot be read ({exc.__class__.__name__}); "
                           f"rebuild it with nop-sim run ... --resume --out {out}") from None
    return tables


def logged_matches(out: str | Path, point: int) -> list[int]:
    """The ids of the matches whose events a run folder logged at sweep ``point``, sorted;
    empty for a folder without an ``events`` table. Raises :class:`RunError` as
    :func:`read_rows` does."""
    layout = read_manifest(out).get("tables")
    held = (layout.get("rows", ()) if isinstance(layout, dict)
            else ["events"] if (Path(out) / "events.parquet").exists() else [])  # older store
    if "events" not in held:
        return []
    ids = read_rows(out, "events", point, columns=["point", "match"])
    return sorted(set(ids["match"].astype(int).tolist()))


def read_rows(out: str | Path, name: str, point: int, match: int | None = None,
              columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Table ``name``'s rows at sweep ``point`` (and of match ``match`` only, when
    given), read with Parquet filters from the parts that hold the point.
    ``columns``: those only. Raises :class:`RunError` as :func:`load_tables` does."""
    out = Path(out)
    manifest = read_manifest(out)
    if "tables" in manifest:
        parts = _Parts(out, manifest)
        if name not in (*parts.rows, *parts.summed):
            raise RunError(f"{out}: holds no table {name!r}")
        paths = parts.files(name, point) or parts.files(name)[:1]
    else:
        paths = [out / f"{name}.parquet"]
        if not paths[0].exists():
            raise RunError(f"{out}: {paths[0].name} is missing; the run did not finish — "
                           f"finish it with nop-sim run ... --resume --out {out}")
    filters = [("point", "==", point)] + ([("match", "==", match)] if match is not None else [])
    try:
        tables = [_long(_read_file(p, columns, (), filters), columns) for p in paths]
        # text as a table stored long reads here: plain strings, not categories
        tables = [t.cast(pa.schema([pa.field(f.name, pa.large_string())
                                    if pa.types.is_dictionary(f.type) else f for f in t.schema]))
                  for t in tables]
    except Exception as exc:  # pyarrow raises several kinds for damaged files
        raise RunError(f"{out}: its table {name} cannot be read ({exc.__class__.__name__}); "
                       f"rebuild it with nop-sim run ... --resume --out {out}") from None
    return concat(tables).to_pandas()
