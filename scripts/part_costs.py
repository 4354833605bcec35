"""Where a run's CPU goes beside the engine, per part a worker plays (issue 37, item 4).

``nop-sim bench runner`` shows the whole command bound by CPU (``command_busy`` near 1),
so its share of the engine's rate is the engine's CPU over the command's. This script
plays parts here exactly as a local worker does (:func:`nop_sim.run.executors.play_part`,
written into a scratch folder) and prints, for the run and its ``[strong]`` side run, the
median CPU of a part and its phases (``simulation``: the engine; ``tables`` and ``write``:
what the run stores), for

* parts of one chunk: nearly all of it is the fixed cost of a part (six Parquet files,
  ``done.json``, the tables' set-up; since 6 December the run's own process syncs a
  part to the disk and renames it into place, not the worker);
* parts of ``--chunks`` chunks (about one second of play, as the runner cuts them), with
  the scenario's ``log_sample`` and with none: the difference, times the parts of a run,
  is what keeping the event log costs.

    python scripts/part_costs.py scenarios/baseline.toml

Measured (5 December 2026, 2-core machine, nothing else running; two runs): a part of
one chunk costs 32 to 33 ms (run) and 30 ms (side run), of which 21 and 14 ms are its
engine call: a part's fixed cost is 13 to 17 ms. A part of 42 chunks (5,250 matches)
takes 0.93 to 0.96 s of CPU with the baseline's log (one match in 50) and 0.84 s
without: the log costs 0.23 to 0.28 s per 12,500 matches, 1.8 to 2.2 s of a
100,000-match run (its Parquet file 0.034 to 0.041 s a part, its table 0.020 to 0.060,
the engine's logging 0.016 to 0.018). Played alone here, a part's event table pays for
fresh pages more often than in a worker: the whole command spent about 1.2 CPU s less
without the log (``nop-sim bench runner`` on a copy of the baseline with ``log_sample =
0``: 32.7 CPU s against 33.9).

Measured again on 6 December 2026 (``--log-sample 0``): after the worker stopped syncing
its part, part files delta-encoded their integers, a part's seeds were computed at once
and the engine wrote its rows in place, a part of one chunk took 26 ms (run) and 25.5 ms
(side run), of which 20 and 15 ms its engine call, and a part of 42 chunks 0.90 s (run:
tables 27 ms, write 17 ms) and 0.59 s (side run: tables 21 ms, write 18 ms); with the
drafts stored wide too, a part of 42 chunks 0.875 s (run: tables 18.7 ms, write 13.9 ms)
and 0.595 s (side run: tables 17.1 ms, write 14.0 ms).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from nop_sim.games import get_game
from nop_sim.run.executors import load_kernels, part_player, play_part
from nop_sim.run.planning import plan_chunks
from nop_sim.run.scenario import load_scenario


def part_cpu(scn, chunks: list, out: Path) -> dict[str, float]:
    """One part's CPU and phase seconds, played and written as a local worker does."""
    game = get_game(scn.kind)
    t = time.process_time()
    part = play_part(part_player(game), scn, chunks, game.work, out, game.store_version)
    return {"cpu": time.process_time() - t,
            "simulation": part.profile.get("simulation", 0.0),
            "tables": part.profile.get("tables", 0.0),
            "write": part.profile.get("write", 0.0) + part.profile.get("checksums", 0.0)}


def medians(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: statistics.median(r[k] for r in rows) for k in rows[0]}


def show(label: str, m: dict[str, float]) -> None:
    print(f"  {label:34s} cpu {m['cpu'] * 1e3:7.1f} ms  simulation {m['simulation'] * 1e3:7.1f}"
          f"  tables {m['tables'] * 1e3:6.1f}  write {m['write'] * 1e3:6.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenario", type=Path)
    ap.add_argument("--matches", type=int, default=100_000)
    ap.add_argument("--chunks", type=int, default=42, help="chunks in a part (default 42)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--log-sample", type=int, default=50,
                    help="the event log weighed against none (default one match in 50, "
                         "what the baseline kept before any match could be played again)")
    args = ap.parse_args()
    base = load_scenario(args.scenario, [f"run.matches={args.matches}",
                                         f"run.log_sample={args.log_sample}"])
    quiet = load_scenario(args.scenario, [f"run.matches={args.matches}", "run.log_sample=0"])
    runs = [("run", base, quiet)]
    if base.strong:
        runs.append(("side run", base.strong_scenario(), quiet.strong_scenario()))
    load_kernels(base.kind)
    with tempfile.TemporaryDirectory(prefix="nop-part-costs-") as tmp:
        for name, scn, plain_scn in runs:
            chunks = plan_chunks(scn)
            part_cpu(scn, chunks[:2], Path(tmp))  # the scenario's tables, outside the clock
            one = medians([part_cpu(scn, [chunks[10 + k]], Path(tmp) / name)
                           for k in range(4 * args.repeats)])
            n = args.chunks
            logged, plain = [], []
            for k in range(args.repeats):  # interleaved: a drifting machine slows both alike
                part = chunks[100 + k * n:100 + (k + 1) * n]
                logged.append(part_cpu(scn, part, Path(tmp) / name / "logged"))
                if scn.log_sample:
                    plain.append(part_cpu(plain_scn, part, Path(tmp) / name / "plain"))
            logged = medians(logged)
            per = sum(c.n_matches for c in chunks[100:100 + n])
            print(f"{name} ({scn.log_sample and f'log_sample {scn.log_sample}' or 'no log'}):")
            show("a part of 1 chunk", one)
            show(f"a part of {n} chunks ({per:,} matches)", logged)
            if scn.log_sample:
                plain = medians(plain)
                show("the same, log_sample 0", plain)
                cost = (logged["cpu"] - plain["cpu"]) / per
                print(f"  the event log: {cost * 12_500:.3f} s of CPU per 12,500 matches, "
                      f"{cost * args.matches:.2f} s for the run's {args.matches:,}")


if __name__ == "__main__":
    main()
