"""The runner against the engine it drives (``nop-sim bench runner``).

The same matches are played twice, in turn, ``repeats`` times:

* ``engine``: in-process, the game's engine alone on ``W`` threads per seat rotation,
  in the run's chunks (the engine's rate with nothing around it: the game's bench hook,
  :attr:`~nop_sim.games.registry.EngineBench.play_rotation`);
* ``runner``: ``run_scenario`` with ``W`` local worker processes into a fresh
  folder (no report): planning, workers, tables, Parquet, checksums;
* ``command``: the whole command a user waits for, ``nop-sim run SCENARIO
  --matches N --workers W --no-report`` in a fresh process: start-up (imports,
  loading the cached kernels, the fork server) included.

The three are interleaved, one of each per repeat, so that a machine whose
load changes meanwhile slows them alike. ``runner_share`` and ``command_share``
are the median runner and command rates over the median engine rate (the
goal: the command keeps at least 0.85 on a run of 5M hands, 100,000 matches,
with 2 workers); ``runner_shares`` and ``command_shares`` are each repeat's,
against the engine of the same repeat (their spread is the noise on the medians).
``load`` is the machine's load average (1 minute) before
and after. ``engine_cpu_s`` and ``command_cpu_s`` are the CPU seconds every core spent
(user and system, the whole machine's, from ``/proc/stat``: run the bench on a quiet
machine; absent where there is no ``/proc/stat``) while each repeat's engine and command
ran; ``cpu_share`` is the engine's CPU per hand over the command's (medians), and
``command_busy`` the command's CPU over its wall time on ``W`` cores: near 1, the command
is bound by CPU, so its share can rise only by spending less of it (start-up, tables,
Parquet, the summary), never by waiting less. ``startup_s`` is the fixed
cost of a run: the median wall time of ``nop-sim run`` for one match per
worker in a fresh process (imports, loading the cached kernels, writing and
merging; so small a run plays in the main process). ``workers_start_s`` is
the first long run's phase "start": from asking for workers until every one
is ready (wall), which includes starting the fork server that loads the
kernels once (later runs of the same process reuse it; the main process
plays meanwhile); ``profile`` is all phases of the last long run
(``nop-sim run --profile``).

A scenario whose ``[strong]`` table names a field trained for its rules (as
scenarios/baseline.toml does) has ``nop-sim run`` play that field in every seat
beside it, into ``<out>/strong-play/``: the engine then plays those matches too,
the runner runs both folders as the command does, and every rate counts the
hands of both (``strong_hands``: the side run's share of them).

Without a scenario the bench plays the default game's :func:`baseline`, the game and
seats of scenarios/baseline.toml, which an installed nop-sim does not ship (nor its
field: no side run). The figures count the game's unit of work (New Order's hands).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from nop_sim.core.errors import ScenarioError
from nop_sim.games import DEFAULT_KIND, get_game, registered_games
from nop_sim.games.agent_files import rules_key
from nop_sim.games.registry import EngineBench
from nop_sim.results.store import STRONG_FOLDER
from nop_sim.run.planning import plan_chunks
from nop_sim.run.runner import run_scenario
from nop_sim.run.scenario import load_scenario

__all__ = ["baseline", "bench_runner"]


def _engine_bench(kind: str) -> EngineBench | None:
    """The bench of game ``kind`` where it can play a run's matches with its engine alone."""
    game = get_game(kind)
    bench = game.bench() if game.bench is not None else None
    return bench if bench is not None and bench.play_rotation is not None else None


def baseline() -> str:
    """The scenario the bench plays when given none: the baseline of the default game's
    bench (:data:`~nop_sim.games.registry.DEFAULT_KIND`): scenarios/baseline.toml's game
    and seats."""
    bench = _engine_bench(DEFAULT_KIND)
    if bench is None or bench.baseline is None:
        raise ScenarioError(f"the default game {DEFAULT_KIND!r} has no baseline to bench: "
                            f"name a scenario")
    return bench.baseline


def _busy_cpu() -> float | None:
    """CPU seconds all cores have been busy since boot (user, nice, system, irq, softirq;
    not idle, iowait or steal), from ``/proc/stat``; None where it cannot be read."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = fh.readline().split()
        ticks = [int(x) for x in fields[1:8]]
    except (OSError, ValueError):
        return None
    if fields[0] != "cpu" or len(ticks) < 7:
        return None
    user, nice, system, _idle, _iowait, irq, softirq = ticks
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def _cpu_figures(hands: dict, cpu: dict, wall: list[float], workers: int) -> dict:
    """``engine_cpu_s``, ``command_cpu_s`` (each repeat's), ``cpu_share`` and
    ``command_busy`` (see :func:`bench_runner`); empty where the CPU could not be read."""
    if any(v is None for k in ("engine", "command") for v in cpu[k]):
        return {}
    engine, command = np.median(cpu["engine"]), np.median(cpu["command"])
    if command <= 0:  # the clock's ticks missed it (a command takes a second at least)
        return {}
    return {"engine_cpu_s": [round(v, 2) for v in cpu["engine"]],
            "command_cpu_s": [round(v, 2) for v in cpu["command"]],
            "cpu_share": round((engine / hands["engine"]) / (command / hands["command"]), 3),
            "command_busy": round(float(command / (np.median(wall) * workers)), 3)}


def _shares(hands: dict, times: dict, name: str) -> list[float]:
    """Each repeat's rate of ``name`` over the engine's rate in the same repeat."""
    return [round((hands[name] / t) / (hands["engine"] / e), 3)
            for t, e in zip(times[name], times["engine"], strict=True)]


def bench_runner(scenario: str | Path | None = None, n_matches: int = 21_000,
                 workers: int = 2, repeats: int = 3) -> dict:
    """The runner's rate against the engine's on ``workers`` cores, and its start-up cost.

    ``scenario``: a scenario file without a ``[sweep]`` of a game whose bench plays a run's
    matches with its engine alone (:attr:`~nop_sim.games.registry.EngineBench.play_rotation`;
    default :func:`baseline`), played with ``n_matches`` matches.
    """

    work = Path(tempfile.mkdtemp(prefix="nop-bench-runner-"))
    try:
        if scenario is None:
            scenario = work / "baseline.toml"
            scenario.write_text(baseline(), encoding="utf-8")
        scn = load_scenario(scenario, [f"run.matches={n_matches}"])
        bench = _engine_bench(scn.kind)
        unit = get_game(scn.kind).work  # the totals the command counts
        if bench is None or len(scn.points()) != 1:  # the engine played below
            titles = [g.title for g in registered_games() if _engine_bench(g.kind) is not None]
            raise ScenarioError(f"{scenario}: bench runner takes a {' or '.join(titles)} "
                                f"scenario without a [sweep]")
        # the run, and the strong field's side run where nop-sim run plays one
        plays_strong = (scn.strong is not None and
                        scn.strong.file.training.get("rules") == rules_key(scn.settings))
        runs = [scn] + ([scn.strong_scenario()] if plays_strong else [])
        side: dict[str, int] = {}

        def engine_threads() -> int:
            # the engine on W threads: each rotation's matches as one call, in the run's
            # chunks, for the run and its strong side run
            hands = side_hands = 0
            for k, one in enumerate(runs):
                point = one.points()[0]
                chunks = plan_chunks(one)
                ids = np.concatenate([c.first_match + np.arange(c.n_matches) for c in chunks])
                for r in range(one.n_rotations):
                    mine = ids[ids % one.n_rotations == r]
                    played = bench.play_rotation(one, point, r, mine,
                                                 max(1, one.chunk // one.n_rotations), workers)
                    hands += played
                    side_hands += played if k else 0
            side["hands"] = side_hands
            return hands

        def runner(out: Path):
            # the run and its side run, as nop-sim run plays them (one pool of workers)
            res = run_scenario(scn, out, workers=workers)
            n = res.n_work
            if len(runs) > 1:
                n += run_scenario(runs[1], out / STRONG_FOLDER, workers=workers).n_work
            return res, n

        def command(out: Path) -> int:
            # the whole command in a fresh process; its hands, from the manifests it wrote
            subprocess.run([sys.executable, "-m", "nop_sim", "run", str(scenario), "--matches",
                            str(n_matches), "--workers", str(workers), "--no-report",
                            "--quiet", "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
            return sum(json.loads((d / "manifest.json").read_text())["totals"][unit]
                       for d in (out, out / STRONG_FOLDER) if (d / "manifest.json").exists())

        load = [round(os.getloadavg()[0], 2)]
        engine_threads()  # compile or load the parallel driver outside the clock
        times: dict[str, list[float]] = {"engine": [], "runner": [], "command": []}
        cpu: dict[str, list[float | None]] = {"engine": [], "command": []}

        def spent(since: float | None) -> float | None:
            now = _busy_cpu()
            return None if since is None or now is None else now - since
        hands = {}
        profile = None
        first_start = None
        for i in range(repeats):
            t, c = time.perf_counter(), _busy_cpu()
            hands["engine"] = engine_threads()
            times["engine"].append(time.perf_counter() - t)
            cpu["engine"].append(spent(c))
            out = work / f"run{i}"
            t = time.perf_counter()
            res, hands["runner"] = runner(out)
            times["runner"].append(time.perf_counter() - t)
            profile = res.profile
            if first_start is None:
                first_start = profile.get("start", 0.0)
            shutil.rmtree(out)
            out = work / f"command{i}"
            t, c = time.perf_counter(), _busy_cpu()
            hands["command"] = command(out)
            times["command"].append(time.perf_counter() - t)
            cpu["command"].append(spent(c))
            shutil.rmtree(out)
        # the fixed cost a user waits for: a one-match-per-worker run in a fresh process
        startup = []
        for i in range(repeats):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "nop_sim", "run", str(scenario), "--matches",
                            str(workers), "--set", "run.chunk=1", "--workers", str(workers),
                            "--no-report", "--quiet", "--out", str(work / f"tiny{i}")],
                           check=True, stdout=subprocess.DEVNULL)
            startup.append(time.perf_counter() - t)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rate = {k: hands[k] / float(np.median(v)) for k, v in times.items()}
    return {
        "scenario": scn.name, "matches": n_matches, "workers": workers, "repeats": repeats,
        "engine_hands_per_s": round(rate["engine"]),
        "runner_hands_per_s": round(rate["runner"]),
        "runner_share": round(rate["runner"] / rate["engine"], 3),
        "command_hands_per_s": round(rate["command"]),
        "command_share": round(rate["command"] / rate["engine"], 3),
        # each repeat's own shares (its engine, runner and command ran back to back): the
        # spread a machine whose speed drifts puts on the medians above
        "runner_shares": _shares(hands, times, "runner"),
        "command_shares": _shares(hands, times, "command"),
        # hands each played (a repeat's; the runner's and the command's are the same run's),
        # and the side run's among the engine's (0: the scenario plays no strong field)
        "hands": hands,
        "strong_hands": side["hands"],
        "load": load + [round(os.getloadavg()[0], 2)],
        "engine_s": [round(t, 2) for t in times["engine"]],
        "runner_s": [round(t, 2) for t in times["runner"]],
        "command_s": [round(t, 2) for t in times["command"]],
        **_cpu_figures(hands, cpu, times["command"], workers),
        "startup_s": round(float(np.median(startup)), 2),
        "workers_start_s": round(first_start or 0.0, 2),
        "profile": {k: round(v, 2) for k, v in (profile or {}).items()},
    }
