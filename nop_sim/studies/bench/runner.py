"""The runner against the engine it drives (``nop-sim bench runner``).

The same matches are played twice, in turn, ``repeats`` times:

* ``engine``: in-process, ``play_matches(..., threads=W)`` per seat rotation,
  in the run's chunks (the engine's rate with nothing around it);
* ``runner``: ``run_scenario`` with ``W`` local worker processes into a fresh
  folder (no report): planning, workers, tables, Parquet, checksums;
* ``command``: the whole command a user waits for, ``nop-sim run SCENARIO
  --matches N --workers W --no-report`` in a fresh process: start-up (imports,
  loading the cached kernels, the fork server) included.

The three are interleaved, one of each per repeat, so that a machine whose
load changes meanwhile slows them alike. ``runner_share`` and ``command_share``
are the median runner and command rates over the median engine rate (the
goal: the command keeps at least 0.85 on a run of 5M hands, 100,000 matches,
with 2 workers). ``load`` is the machine's load average (1 minute) before
and after. ``startup_s`` is the fixed
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

Without a scenario the bench plays :data:`BASELINE`, the game and seats of
scenarios/baseline.toml, which an installed nop-sim does not ship (nor its field:
no side run).
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
from nop_sim.games.agent_files import rules_key
from nop_sim.games.new_order.engine import play_matches
from nop_sim.games.new_order.game import GAME, match_tables, mix_rows
from nop_sim.results.store import STRONG_FOLDER
from nop_sim.run.planning import plan_chunks
from nop_sim.run.runner import run_scenario
from nop_sim.run.scenario import load_scenario

__all__ = ["BASELINE", "bench_runner"]

# scenarios/baseline.toml without its comments and targets (tests/test_cli.py checks
# that the two agree); its game is the one whose engine the bench drives
BASELINE = f"""\
description = "SPEC defaults, 4 players, presets rotated across seats"

[game]
kind = "{GAME.kind}"
players = 4
chips = "auto"
dart_start = 1
dart_step = 1
dart_cap = 20
fee_to = "pot"
hedge_cost = 5
hedge_payout = 20
disruptors = "default"

[seats]
rotate = ["balanced", "manipulator", "hedger", "rock"]

[run]
matches = 2000
seed = 20261129
chunk = 125
log_sample = 50
"""


def bench_runner(scenario: str | Path | None = None, n_matches: int = 21_000,
                 workers: int = 2, repeats: int = 3) -> dict:
    """The runner's rate against the engine's on ``workers`` cores, and its start-up cost.

    ``scenario``: a New Order scenario file without a ``[sweep]`` (default
    :data:`BASELINE`), played with ``n_matches`` matches.
    """

    work = Path(tempfile.mkdtemp(prefix="nop-bench-runner-"))
    try:
        if scenario is None:
            scenario = work / "baseline.toml"
            scenario.write_text(BASELINE, encoding="utf-8")
        scn = load_scenario(scenario, [f"run.matches={n_matches}"])
        if scn.kind != GAME.kind or len(scn.points()) != 1:  # the engine played below
            raise ScenarioError(f"{scenario}: bench runner takes a {GAME.title} scenario "
                                f"without a [sweep]")
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
                settings = one.settings_at(point)
                chunks = plan_chunks(one)
                ids = np.concatenate([c.first_match + np.arange(c.n_matches) for c in chunks])
                for r in range(one.n_rotations):
                    mine = ids[ids % one.n_rotations == r]
                    specs = one.seat_specs(point, r)
                    # a mixture seat plays the row the run draws for each match
                    mix = mix_rows(one.seed, specs, mine)
                    tables = table_of = None
                    if (mix >= 0).any():
                        tables, table_of = match_tables([specs], np.zeros(mine.size, np.int64),
                                                        mix)
                    res = play_matches(settings, specs if tables is None else tables,
                                       mine.size, seed=r, table_of=table_of,
                                       chunk_size=max(1, one.chunk // one.n_rotations),
                                       threads=workers)
                    hands += res.count("hands")
                    side_hands += res.count("hands") if k else 0
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
            return sum(json.loads((d / "manifest.json").read_text())["totals"]["hands"]
                       for d in (out, out / STRONG_FOLDER) if (d / "manifest.json").exists())

        load = [round(os.getloadavg()[0], 2)]
        engine_threads()  # compile or load the parallel driver outside the clock
        times: dict[str, list[float]] = {"engine": [], "runner": [], "command": []}
        hands = {}
        profile = None
        first_start = None
        for i in range(repeats):
            t = time.perf_counter()
            hands["engine"] = engine_threads()
            times["engine"].append(time.perf_counter() - t)
            out = work / f"run{i}"
            t = time.perf_counter()
            res, hands["runner"] = runner(out)
            times["runner"].append(time.perf_counter() - t)
            profile = res.profile
            if first_start is None:
                first_start = profile.get("start", 0.0)
            shutil.rmtree(out)
            out = work / f"command{i}"
            t = time.perf_counter()
            hands["command"] = command(out)
            times["command"].append(time.perf_counter() - t)
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
        # hands each played (a repeat's; the runner's and the command's are the same run's),
        # and the side run's among the engine's (0: the scenario plays no strong field)
        "hands": hands,
        "strong_hands": side["hands"],
        "load": load + [round(os.getloadavg()[0], 2)],
        "engine_s": [round(t, 2) for t in times["engine"]],
        "runner_s": [round(t, 2) for t in times["runner"]],
        "command_s": [round(t, 2) for t in times["command"]],
        "startup_s": round(float(np.median(startup)), 2),
        "workers_start_s": round(first_start or 0.0, 2),
        "profile": {k: round(v, 2) for k, v in (profile or {}).items()},
    }
