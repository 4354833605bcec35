"""Runs scenarios: plans the chunks, hands parts to an executor, keeps the folder whole.

The runner knows no game: the scenario's :class:`~nop_sim.games.Game` plays
each chunk and declares the tables it writes. :mod:`.planning` cuts the run into
chunks (each with its own seed) and parts; :mod:`.executors` plays the parts
here, in local worker processes or on a Dask cluster; :mod:`nop_sim.results.store`
writes and reads the folder, whose parts are the results (nothing is merged
when the run ends). This module holds what ties them together
(:func:`run_scenario`): checking the output folder, the manifest, reusing
finished parts, and taking back what a run that failed to start wrote.

A run killed at any moment leaves only whole part folders (plus ``.tmp-*``
folders, removed when a later run of the folder finishes); ``--resume``
checks every finished part's checksums, redoes damaged ones and runs the
rest, and a run with more matches than the folder's keeps every chunk whose
seed and size are unchanged. A run that fails before its first part is
written (a disk error, an unreachable scheduler) leaves the folder as it found
it. Where the time goes: ``nop-sim run --profile`` (:mod:`nop_sim.core.profiling`).

The names other modules used from here before the executors and the planning had
their own modules are re-exported (``Chunk``, ``plan_chunks``, ``play_part``...); the
folder's readers live in :mod:`nop_sim.results`.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from nop_sim.core.errors import RunError
from nop_sim.core.profiling import take
from nop_sim.games import get_game
from nop_sim.results import store
from nop_sim.results.store import damaged_manifest, not_a_run
from nop_sim.run import executors
from nop_sim.run.executors import PartResult, dask_client, part_player, play_part
from nop_sim.run.folder_lock import LOCK_FILES, hold_folder
from nop_sim.run.planning import PART_SECONDS, Chunk, PartPlan, chunk_seed, plan_chunks
from nop_sim.run.provenance import git_revision, versions
from nop_sim.run.scenario import Scenario

__all__ = ["PART_SECONDS", "Chunk", "PartResult", "RunError", "RunResult", "chunk_seed",
           "dask_client", "part_player", "plan_chunks", "play_part", "run_chunk",
           "run_scenario"]


def run_chunk(scn: Scenario, chunk: Chunk) -> dict[str, pd.DataFrame]:
    """Play one chunk with the scenario's game: its tables (``Game.play_chunk``).

    Executors ship ``Game.play_chunk`` itself to their workers: a module-level
    function pickles by reference, so a worker that unpickles it imports (and
    so registers) the game, whichever module defines it.
    """
    return get_game(scn.kind).play_chunk(scn, chunk)


def _manifest(scn: Scenario, chunks: list[Chunk], started: str) -> dict[str, Any]:
    points = scn.points()
    game = get_game(scn.kind)
    return {
        "store_version": game.store_version,
        "scenario": {"name": scn.name, "source": scn.source, "kind": scn.kind,
                     "text": scn.text, "fingerprint": scn.fingerprint()},
        "seed": scn.seed, "matches_per_point": scn.matches, "chunk": scn.chunk,
        "n_points": len(points), "n_chunks": len(chunks),
        # what the parts hold: the store reads them back without the game
        "tables": {"rows": list(game.tables), "summed": list(game.summed_tables)},
        "points": [{"point": i, "params": p,
                    "settings": _settings_dict(scn.settings_at(p)),
                    "seats": [game.seat_label(s) for s in scn.seat_specs(p, 0)]}
                   for i, p in enumerate(points)],
        "rotation": [game.seat_label(s) for s in scn.seats] if scn.rotate else None,
        "targets": dict(scn.targets),
        "target_kinds": {t.name: t.kind for t in scn.target_specs},
        # any match can be played again from the seed (nop_sim.run.replay), logged or not
        "replayable": game.replay_chunk is not None,
        # the seats read from agent files: label, file, parameters, [training] provenance
        "agent_files": [f.record() for f in scn.agent_files],
        "versions": versions(), "git_revision": git_revision(),
        "started": started, "ended": None, "status": "running",
    }


def _settings_dict(settings) -> dict[str, Any]:
    return settings.to_dict() if hasattr(settings, "to_dict") else dict(vars(settings))


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
        raise RunError(damaged_manifest(out)) from None
    if old_fp != scn.fingerprint() and not _differs_in_log_alone(scn, old, old_fp):
        raise RunError(
            f"{out}: holds results of a different scenario or settings "
            f"({old['scenario'].get('name')}, fingerprint {old_fp}; this one is "
            f"{scn.fingerprint()}); "
            f"{'resuming with a changed scenario is refused' if resume else 'refusing to mix them'}"
            f": run into another folder with --out DIR, or move or delete {out} to start it "
            f"again (nothing was changed)")
    return old


def _differs_in_log_alone(scn: Scenario, old: dict, old_fp: str) -> bool:
    """The folder's run is ``scn`` but for ``[run] log_sample``: the same matches (a log
    changes no result), so the run goes on in it, its parts kept (the baseline logged one
    match in 50 before any match could be played again)."""
    try:
        logged = tomllib.loads(old["scenario"]["text"]).get("run", {}).get("log_sample")
    except (KeyError, TypeError, ValueError):
        return False
    return scn.fingerprint(log_sample=logged) == old_fp


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
    """Run every chunk not already finished in ``out``.

    ``progress(done_chunks, total_chunks, work_so_far)`` is called after each part
    (work in the game's unit, ``Game.work``: hands, turns).
    A run that fails before its first part is written leaves ``out`` as it
    was; after that, every finished part is kept for ``resume``. The run
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
    t0 = time.perf_counter()
    take()  # this process's phase times start here
    game = get_game(scn.kind)
    tables = executors.chunk_tables(game)
    old = _prepare_folder(out, scn, resume)
    chunks = plan_chunks(scn)
    order = {c.name: i for i, c in enumerate(chunks)}
    started = old["started"] if old else datetime.now(UTC).isoformat(timespec="seconds")
    manifest = _manifest(scn, chunks, started)
    parts, stale = store.finished_parts(out, chunks, tables, game.store_version)
    held = {c.name for held in parts.values() for c in held}
    todo = [c for c in chunks if c.name not in held]
    reused = len(chunks) - len(todo)
    n_matches = sum(c.n_matches for c in chunks if c.name in held)
    work = _work_done(out, parts, game)
    done = reused
    workers = (os.cpu_count() or 1) if workers is None else int(workers)
    workers = max(1, min(workers, len(todo)))
    plan = PartPlan(todo, order, workers)
    profile: dict[str, float] = {}
    finished = iter(())
    moved: list[Path] = []
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "chunks").mkdir(exist_ok=True)
        store.write_json(out / "manifest.json", manifest)
        # damaged or superseded parts step aside (their names may be written again),
        # to be put back should the run fail to start
        for folder in stale:
            os.replace(folder, folder.with_name(f".stale-{folder.name}"))
            moved.append(folder)
        if progress:
            progress(done, len(chunks), work)
        if todo:
            finished = iter(executors.executor(workers, scheduler)(game, scn, plan, out))
        first = next(finished, None)
        if first is not None:
            executors.store_part(out, game, first)
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
    covered = set(held)
    for i, part in enumerate(_chain(first, finished)):
        if i:  # the first part is in place already
            executors.store_part(out, game, part)
        covered |= {c.name for c in part.chunks}
        for k, v in part.profile.items():
            profile[k] = profile.get(k, 0.0) + v
        done += len(part.chunks)
        work += part.work
        n_matches += sum(c.n_matches for c in part.chunks)
        if progress:
            progress(done, len(chunks), work)
    if len(covered) != len(chunks):
        raise RunError(f"{out}: parts do not cover the plan's chunks; run again with --resume")
    for tmp in (out / "chunks").glob(".tmp-*"):  # left by a run that was killed
        shutil.rmtree(tmp, ignore_errors=True)
    store.remove_merged(out, tables)  # an older store's copy: the parts are the store now
    manifest["ended"] = datetime.now(UTC).isoformat(timespec="seconds")
    manifest["status"] = "finished"
    manifest["totals"] = {"matches": n_matches, game.work: work}
    store.write_json(out / "manifest.json", manifest)
    for k, v in take().items():
        profile[k] = profile.get(k, 0.0) + v
    return RunResult(out, len(chunks), reused, len(todo), n_matches, work, game.work,
                     time.perf_counter() - t0, profile)


def _chain(first: PartResult | None, rest):
    """The first part (played before the run counted as started), then the others."""
    if first is not None:
        yield first
    yield from rest


def _work_done(out: Path, parts: dict[str, list[Chunk]], game) -> int:
    """The work (``Game.work``) the reused parts hold."""
    return sum(store.column_sum(store.read_part(out / "chunks" / name / "counts.parquet",
                                                columns=[game.work]), game.work)
               for name in parts)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use the nop-sim command")
