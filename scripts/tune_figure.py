"""The tune figure issue #13 asks for, as JSON on stdout: trials and wall time to reach the
chips answer (median_hands = 60) on this machine.

    python scripts/tune_figure.py scenarios/chips_tune.toml --trials 30 --matches 300

Runs ``nop-sim tune`` into a fresh folder (timed as a whole), then reads
``trials.parquet``: the first trial whose own estimate of the median (on
the study's common seeds) is within 10% (and 5%) of 60, the trial that first
proposed the setting finally named best, with the time spent in trials by
then, and checks
the named best by playing ``best.toml`` with another seed (``--check``
matches): its median must be within 10% of 60.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from nop_sim.store import load_tables


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", type=Path)
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--matches", type=int, default=300)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--check", type=int, default=1000, help="matches of the check run")
    ap.add_argument("--target", type=float, default=60.0)
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="tune-figure-"))
    out = folder / "tune"
    cmd = [sys.executable, "-m", "nop_sim", "tune", str(args.scenario), "--trials",
           str(args.trials), "--matches", str(args.matches), "--workers", str(args.workers),
           "-q", "--no-report", "--out", str(out)]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    trials = pd.read_parquet(out / "trials.parquet").sort_values("trial")
    trials["elapsed"] = trials["seconds"].fillna(0).cumsum()
    first = {}
    for tol in (0.10, 0.05):
        hit = trials[(trials["median_hands"] - args.target).abs() <= tol * args.target]
        first[f"within_{int(tol * 100)}pct"] = (
            {"trials": int(hit["trial"].iloc[0]) + 1,
             "seconds_in_trials": round(float(hit["elapsed"].iloc[0]), 2),
             "chips": int(hit["param_chips"].iloc[0])} if len(hit) else None)
    manifest = json.loads((out / "manifest.json").read_text())
    chips = manifest["best"]["params"]["chips"]
    found = trials[trials["param_chips"] == chips].iloc[0]
    first["best_first_proposed"] = {"trials": int(found["trial"]) + 1,
                                    "seconds_in_trials": round(float(found["elapsed"]), 2)}
    check_out = folder / "check"
    subprocess.run([sys.executable, "-m", "nop_sim", "run", str(out / "best.toml"), "--seed",
                    "424242", "--matches", str(args.check), "--workers", str(args.workers),
                    "-q", "--no-report", "--out", str(check_out)], check=True,
                   stdout=subprocess.DEVNULL)
    median = float(load_tables(check_out, ["matches"])["matches"]["hands"].median())
    print(json.dumps({
        "command": "nop-sim " + " ".join(cmd[3:-2]), "wall_seconds": round(wall, 1),
        "trials": args.trials, "pruned": manifest["totals"]["pruned"],
        "matches_played": manifest["totals"]["matches_this_call"],
        "best": manifest["best"], "first_trial": first,
        "check": {"seed": 424242, "matches": args.check, "median_hands": median,
                  "within_10pct": abs(median - args.target) <= 0.1 * args.target},
    }, indent=2, default=str))
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
