"""A run from its scenario to its report: what ``nop-sim run``, ``sweep`` and ``report`` call.

:func:`execute` holds the run folder from the start (a second run into it is
refused at once, before anything is forked or read), plays the scenario
(:func:`nop_sim.run.runner.run_scenario`), lets ``before_report`` add its tables
(a sweep's trained points) or plays a scenario's ``[strong]`` field beside it
(:func:`strong_hook`, while a thread writes the summary, which does not read
it), writes the summary and the report, and reads back the
sweep ranking's verdict from the table the report wrote. :func:`rebuild_report`
does the last three for a finished folder.

The report's libraries (matplotlib, scipy.stats, the game's report) take a
second to import. While the run plays, a forked copy of this process imports
them on the other core and then writes the report
(:mod:`nop_sim.reporting.forked`); without one (one core, no fork, or a large
run, whose report builds here in one process for memory) a thread here imports
them.

Nothing here prints: the CLI passes ``progress(unit, label)`` (a bar: called with
``(done, total, work)``, then closed) and ``say(line)`` (a note for the
terminal), and prints what comes back. Errors keep their classes (a
:class:`~nop_sim.core.errors.RunError`, a
:class:`~nop_sim.core.errors.FolderBusy`), so the CLI maps them to exit codes
in one place.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import gc
import importlib
import importlib.util
import json
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from nop_sim.core.errors import RunError
from nop_sim.core.profiling import add, phase, take
from nop_sim.core.stats import ranking_lines
from nop_sim.games import Game
from nop_sim.games.agent_files import rules_key
from nop_sim.reporting import forked as renderer
from nop_sim.results.match_log import run_game
from nop_sim.results.store import STRONG_FOLDER, UNSETTLED
from nop_sim.results.summary import write_summary
from nop_sim.run.folder_lock import hold_folder
from nop_sim.run.runner import RunResult, run_scenario
from nop_sim.run.scenario import Scenario

__all__ = ["Ran", "Written", "execute", "rebuild_report", "strong_hook", "sweep_verdict"]


class _Silent:
    """A progress bar that shows nothing (no ``progress`` given)."""

    def __call__(self, done: int, total: int, work: int) -> None:
        pass

    def close(self) -> None:
        pass


def _silent(unit: str, label: str = "chunks") -> _Silent:
    return _Silent()


@dataclass(frozen=True)
class Written:
    """What a finished run folder's summary and report came to.

    summary : the summary's path
    report : the report's path; None without one (``--no-report``, or a game that writes none)
    ranking : the sweep ranking's verdict in words (:func:`sweep_verdict`); empty without a
        report
    findings : what the report flagged, in words (:func:`report_findings`); empty without
        a report or a findings table
    """

    summary: Path
    report: Path | None
    ranking: list[str]
    findings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Ran:
    """A run, done (:func:`execute`).

    scenario, out : what ran, and into which folder
    result : the runner's account (:class:`~nop_sim.run.runner.RunResult`): matches,
        work, chunks run and reused, seconds
    written : its summary, report and verdict
    strong_play : the folder of its ``[strong]`` field's play, when it holds one
    times : seconds per phase (``--profile``), the runner's and this process's
    """

    scenario: Scenario
    out: Path
    result: RunResult
    written: Written
    strong_play: Path | None
    times: dict[str, float]


def execute(scn: Scenario, out: Path | None = None, *, workers: int | None = None,
            scheduler: str | None = None, resume: bool = False, no_report: bool = False,
            strong: bool = False, before_report: Callable[[Path], Any] | None = None,
            progress: Callable[..., Any] = _silent,
            say: Callable[[str], None] = lambda line: None) -> Ran:
    """Run ``scn`` into ``out`` (default ``reports/<scenario name>``), held from the start
    to the report. ``strong``: also play its ``[strong]`` field (:func:`strong_hook`);
    ``before_report(out)`` adds its tables to the finished run before the report reads
    it."""
    side = None
    if strong:  # the side run writes into <out>/strong-play alone: the summary never reads it
        side = strong_hook(scn, workers=workers, scheduler=scheduler, resume=resume,
                           progress=progress, say=say)
        before_report = None
    out = out or Path("reports") / scn.name
    with hold_folder(out):
        return _execute_held(scn, out, workers, scheduler, resume, no_report, before_report,
                             side, progress)


def _execute_held(scn, out, workers, scheduler, resume, no_report, before_report, side,
                  progress) -> Ran:
    # The interpreter's last collection walks every object the run's libraries made
    # (0.4 s with the report's loaded too): there is nothing left to collect by then.
    atexit.register(gc.freeze)
    copy = preload = None
    if not no_report:
        warm = functools.partial(import_report, scn.game_type)
        if renderer.small_run(scn.matches * len(scn.points())):
            copy = renderer.ahead(warm)
        preload = _preload_report(warm) if copy is None else None
    try:
        with contextlib.closing(progress(scn.game_type.work, "chunks")) as bar:
            result = run_scenario(scn, out, workers=workers, scheduler=scheduler,
                                  resume=resume, progress=bar)
        if before_report is not None:
            before_report(out)
        if side is not None:
            summary = _summary_beside(out, side)
        if copy is not None:
            copy.submit(_report_in_copy, out)  # it works while the summary is written here
        if side is None:
            with phase("summary"):
                summary = write_summary(out)
        report = None
        if not no_report:
            with phase("report"):
                report = _report_of(out, copy, preload)
    finally:
        if copy is not None:
            copy.close()
    played = scn.strong is not None and (out / STRONG_FOLDER / "manifest.json").is_file()
    written = _written(out, summary, report)
    times = dict(result.profile)
    for k, v in take().items():
        times[k] = times.get(k, 0.0) + v
    return Ran(scn, out, result, written, out / STRONG_FOLDER if played else None, times)


def _summary_beside(out: Path, side: Callable[[Path], Any]) -> Path:
    """The summary of ``out``, written on a thread while ``side(out)`` plays the side run
    into ``<out>/strong-play`` (which the summary does not read): written after the
    side run, it kept one core alone busy for seconds (2 to 5 s of a 100,000-match
    run), now the side run's workers and it share both."""
    def timed() -> tuple[Path, float]:
        t = time.perf_counter()
        return write_summary(out), time.perf_counter() - t

    with ThreadPoolExecutor(1, thread_name_prefix="nop-sim-summary") as pool:
        summary = pool.submit(timed)
        side(out)
    path, seconds = summary.result()  # the summary's error, if any, raised here
    # timed here: the side run takes this process's phase times as it starts and ends
    add("summary", seconds)
    return path


def rebuild_report(folder: Path) -> Written:
    """The summary and report of a finished run folder, written again (held meanwhile);
    a forked copy builds half of the report."""
    with hold_folder(folder, hint="wait for it to finish"):
        summary = write_summary(folder)
        renderer.enable()
        try:
            report = _build_report(folder)
        finally:
            renderer.disable()
    return _written(folder, summary, report)


def _written(out: Path, summary: Path, report: Path | None) -> Written:
    if report is None:
        return Written(summary, None, [])
    return Written(summary, report, sweep_verdict(out), tuple(report_findings(out)))


def strong_hook(scn: Scenario, *, workers: int | None = None, scheduler: str | None = None,
                resume: bool = False, progress: Callable[..., Any] = _silent,
                say: Callable[[str], None] = lambda line: None):
    """What plays a scenario's ``[strong]`` field beside its run, into ``<out>/strong-play``
    (None without the table). A field trained for other rules (the scenario copied and
    changed, or --set) is not played: ``say`` tells why, and a stale folder is removed so
    the report never shows another rule set's strong play."""
    if scn.strong is None:
        return None
    field = scn.strong.file
    if field.training.get("rules") != rules_key(scn.settings):
        say(f"[strong] {scn.strong.given}: trained for other rules (scenario "
            f"{field.training.get('scenario')!r}), so this run's report has no 'Under "
            f"strong play' section; train a field for these rules with nop-sim train "
            f"{scn.source}")

        def drop(out):
            shutil.rmtree(Path(out) / STRONG_FOLDER, ignore_errors=True)
        return drop

    def play(out):
        sub = scn.strong_scenario()
        _drop_stale(Path(out) / STRONG_FOLDER, sub, say)
        try:
            with contextlib.closing(progress(sub.game_type.work, "strong field")) as bar:
                run_scenario(sub, Path(out) / STRONG_FOLDER, workers=workers,
                             scheduler=scheduler, resume=resume, progress=bar)
        except RunError as exc:  # says which run failed; still a RunError (the CLI's exit 1)
            raise RunError(f"[strong] {exc}") from None
    return play


def _drop_stale(folder: Path, sub: Scenario, say: Callable[[str], None]) -> None:
    """Remove a side run's folder that holds another field's or setting's play (the field
    retrained, ``[strong] log_sample`` changed): the run's own folder owns it, and a
    report must never mix two fields, so it is played again rather than refused."""
    try:
        held = json.loads((folder / "manifest.json").read_text())["scenario"]["fingerprint"]
    except (OSError, ValueError, KeyError, TypeError):
        return  # none, or damaged: run_scenario says what to do
    if held != sub.fingerprint():
        say(f"[strong] {folder}: held the play of another field or [strong] setting; "
            f"playing it again")
        shutil.rmtree(folder)


def sweep_verdict(out: Path) -> list[str]:
    """The sweep ranking's verdict, read from the table its report wrote (no table, no
    targets or no intervals: nothing): a best point only when it is told apart from
    every other, else the points that cannot be told apart."""
    table = out / "tables" / "sweep_points.csv"
    if not table.is_file():
        return []
    ranked = pd.read_csv(table)
    if "with_best" not in ranked or ranked["distance"].isna().all():
        return []
    try:
        points = json.loads((out / "manifest.json").read_text())["points"]
    except (OSError, ValueError, KeyError):
        return []
    lines = ranking_lines(ranked, list(dict.fromkeys(k for p in points for k in p["params"])))
    if "exploitability_low" in ranked:  # sweep --train: never rank an unsettled field silently
        named = ranked[ranked["with_best"].astype(bool)]
        shaky = named[named["exploitability_low"] >= UNSETTLED]["point"].astype(int).tolist()
        if shaky:
            lines.append(f"flagged: the training of point(s) {', '.join(map(str, shaky))} did "
                         f"not settle (a deviation gains at least {UNSETTLED:g} points): their "
                         f"numbers under strong play read their fields' weaknesses")
    return lines


#: the findings ``nop-sim run`` prints one by one, in the report's order (the rest are
#: counted): a screenful; the report's Headline lists them all
SHOWN_FINDINGS = 10


def report_findings(out: Path, shown: int = SHOWN_FINDINGS) -> list[str]:
    """What the report flagged, as lines for the terminal, read from the tables its
    Headlines wrote (``tables/findings.csv``, or a sweep's ``tables/p<N>_findings.csv`` of
    each point it details: ``severity, section, finding``): the first ``shown`` warnings
    of each, one a line, and how many more; a report that flagged nothing says so (its
    Headline says what was checked); no such table (a game whose report has no Headline
    findings): nothing."""
    tables = out / "tables"
    one = tables / "findings.csv"
    points = {int(t.name[1:-len("_findings.csv")]): t for t in tables.glob("p*_findings.csv")
              if t.name[1:-len("_findings.csv")].isdigit()}
    found = ([(one, "")] if one.is_file() else
             [(points[k], f" at point {k}") for k in sorted(points)])
    lines = []
    for table, where in found:
        try:
            rows = pd.read_csv(table)
            warn = rows[rows["severity"] == "warning"]
        except (OSError, ValueError, KeyError):
            continue  # the report itself is the record; a damaged table is not the run's
        if not len(warn):
            lines.append(f"findings{where}: none flagged (the report's Headline says what "
                         f"was checked)")
            continue
        lines.append(f"findings{where}: {len(warn)} flagged for a look (the report's "
                     f"Headline links each to its section):")
        lines += [f"  - {str(r.section).replace('_', ' ').capitalize()}: {r.finding}"
                  for r in warn.head(shown).itertuples()]
        if len(warn) > shown:
            lines.append(f"  - and {len(warn) - shown} more in the report")
    return lines


def import_report(game: Game) -> None:
    """Import what a report of ``game`` draws with: matplotlib, scipy.stats, the reporting
    toolkit and the game's own ``report`` module (beside the module of its
    ``write_report`` hook, as every game keeps it)."""
    # here, not at the top: they are what a copy or a thread loads while the run plays
    import matplotlib.backends.backend_agg  # noqa: F401
    import scipy.stats  # noqa: F401

    import nop_sim.reporting.build  # noqa: F401
    import nop_sim.reporting.figures  # noqa: F401
    import nop_sim.reporting.style  # noqa: F401
    import nop_sim.reporting.write  # noqa: F401

    package = game.write_report.__module__.rpartition(".")[0]
    # A game outside a package (a plug-in module of one file) has its report in the hook's
    # own module, imported already with the game
    if package and importlib.util.find_spec(f"{package}.report") is not None:
        # by name: run/ reaches a game through the registry, never its package by an import
        importlib.import_module(f"{package}.report")


def _preload_report(warm: Callable[[], None]) -> threading.Thread:
    """Import the report's libraries on a thread while the run plays (where no copy of
    this process can do it); returns the thread."""

    def load():
        try:
            warm()
        except Exception:  # noqa: BLE001 - the report imports them again and says what failed
            pass

    thread = threading.Thread(target=load, name="nop-sim-preload", daemon=True)
    thread.start()
    return thread


def _report_in_copy(out: Path):
    """The report, written by the copy :func:`nop_sim.reporting.forked.ahead` started: it forks
    once more to build half of it (:func:`nop_sim.reporting.forked.fork`)."""
    # What exists now outlives the report: the collector need not walk it again
    # (0.1-0.2 s of collections in the report), nor touch the fork's copy of it.
    gc.freeze()
    renderer.enable()
    return _build_report(out)


def _report_of(out: Path, copy, preload):
    """The report's path: written by the copy, or here if there is none or it failed."""
    if copy is not None:
        try:
            return copy.result()
        except Exception:  # noqa: BLE001 - the copy failed or died: write it here
            pass
    elif preload is not None:
        preload.join()
    return _build_report(out)


def _build_report(out: Path):
    """The report of the run's game (manifest.json's scenario.kind), or None."""
    return run_game(out).write_report(Path(out))
