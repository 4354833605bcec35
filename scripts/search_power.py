"""How much a best-response search finds against one strong field, per search shape.

Each shape is a CMA-ES plan, ``GENERATIONSxRUNSxDIAGONAL`` (``48x2x1``: run 0
plays 48 generations, 2 IPOP runs, a diagonal covariance; ``8x3x0``: the
search before issue 20's change), optionally ``xPOLISH``, the coordinate polish's
share of the search (:attr:`SearchConfig.polish`; ``48x2x1x0``: no polish, the
search before issue 36's polish; without it, the default share); a trailing ``p``
(``48x2x1p``) makes it a pooled
search (the free search and one per mechanic, pooled and checked together, as the
final search of a training and ``nop-sim exploit`` run it) of the same budget. Every shape is fitted to the same budget
of matches (its match counts scaled, :meth:`SearchConfig.fitted`), then
searches the field of a training folder from the same starts with each of
``--seeds`` seeds, and its pick is checked on fresh matches (up to 12,288).
The gain a search finds is a lower bound on the field's exploitability, so
the shape whose mean is higher is the stronger search at that budget. One
search is a gamble (its gains spread by several points), so compare means
over seeds, not single runs. Prints one line per search and the means, in the
game's unit (:attr:`PolicySpace.unit`), and, for a game the lab solves exactly
(Kuhn poker), the field's exact best-deviation gain per seat, which every
search's gain estimates from below:

    python scripts/search_power.py reports/kuhn3-uniform --scenario \
        scenarios/kuhn3.toml --budget 200000 --shapes 48x2x1x0,48x2x1 --seeds 3

    python scripts/search_power.py reports/baseline-train \
        --budget 200000 --shapes 8x3x0,48x2x1 --seeds 4

Issue 20's figures (a 2M field trained with seed 23 by the 8x3x0 search,
200,000 matches, 4 seeds): 8x3x0 found +1.8, +4.4, +2.8, -0.5 (mean +2.1);
48x2x1 found +10.1, +11.0, +10.5, +4.7 (mean +9.1). About 20 s a search on
2 cores.

Against the shipped baseline field (scenarios/fields/baseline, 3 seeds):
at 400,000 matches, 48x2x1 found a mean of +2.7, 96x2x1 +2.2, 48x4x1 +0.6,
24x2x1 +0.3; at 1,200,000, the free search 48x2x1 found +2.8, +6.4, +5.8
(mean +5.0) and the pooled 48x2x1p +2.4, +0.7, +3.3 (mean +2.1), about 2 min a
search. So the final search of a training and nop-sim exploit are one free
search again:

    python scripts/search_power.py scenarios/fields/baseline --budget 1200000 \
        --shapes 48x2x1,48x2x1p --seeds 3

The coordinate polish (issue 36), against the same field at 400,000 matches, 6
seeds: without it (48x2x1x0) +1.0, +4.5, +4.9, +1.4, +6.2, +2.7 (mean +3.5),
with it (48x2x1, half the search) +2.6, +3.5, +5.6, +7.6, +10.0, +6.4 (mean
+5.9), about 45 s a search on 2 shared cores; against Kuhn poker's uniform field
at 200,000 matches, 3 seeds, +0.562 chips (82% of the exact +0.688) without and
+0.688 (100%) with it, about 1 s a search:

    python scripts/search_power.py scenarios/fields/baseline --budget 400000 \
        --shapes 48x2x1x0,48x2x1 --seeds 6
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from nop_sim.games.registry import policy_of
from nop_sim.run.scenario import load_scenario
from nop_sim.studies.train.play import Engine
from nop_sim.studies.train.pool import pooled_cost, pooled_search
from nop_sim.studies.train.search import SearchConfig, best_response
from nop_sim.studies.train.space import space_for
from nop_sim.studies.train.value import _starts, _strong_field


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path, help="a training folder (holds strong.toml)")
    ap.add_argument("--scenario", default="scenarios/baseline.toml")
    ap.add_argument("--budget", type=int, default=200_000, help="matches a search")
    ap.add_argument("--shapes", default="8x3x0,48x2x1")
    ap.add_argument("--seeds", type=int, default=4)
    args = ap.parse_args()
    scn = load_scenario(args.scenario)
    settings, fld = _strong_field(scn, args.folder)
    space, starts = space_for(settings), _starts(settings, fld)
    check = 2 * 12_288

    def cost(s: SearchConfig) -> int:
        return s.cost(space.dim, settings.players, len(starts),
                      mechanics=len(space.mechanics), check=False)

    def pooled(s: SearchConfig) -> int:
        return pooled_cost(s, space, settings.players, len(starts), len(space.mechanics))

    policy = policy_of(settings)
    unit, scale, digits = policy.unit, policy.scale, policy.digits
    exact = (policy.exact_exploitability(settings, fld.rows, fld.weights)["gain_per_seat"]
             if policy.exact_exploitability is not None else None)
    shapes = {}
    for shape in args.shapes.split(","):
        gens, runs, diagonal, *polish = shape.rstrip("p").split("x")
        base = replace(SearchConfig(), generations=int(gens), runs=int(runs),
                       diagonal=bool(int(diagonal)),
                       **({"polish": float(polish[0])} if polish else {}))
        if shape.endswith("p"):  # pooled: the free search and one per mechanic, one budget
            shapes[shape] = base.fitted(pooled, args.budget)
        else:
            shapes[shape] = replace(base.fitted(cost, args.budget - check),
                                    check_batch=1536, check_max=12_288)
    def said(x: float) -> str:
        return f"{scale * x:+.{digits}f}"

    engine = Engine()
    found = {s: [] for s in shapes}
    try:
        for seed in range(args.seeds):
            for shape, cfg in shapes.items():
                t = time.perf_counter()
                if shape.endswith("p"):
                    r = pooled_search(engine, settings, space, fld, starts, (200 + seed, 5),
                                      cfg, switches=True).result()
                else:
                    r = best_response(engine, settings, space, fld, starts, (200 + seed, 5),
                                      cfg, 0.01)
                found[shape].append(scale * r.gain)
                print(f"{shape} seed {seed}: gains {said(r.gain)} {unit} "
                      f"({said(r.low)} to {said(r.high)}), {r.matches:,} matches, "
                      f"{time.perf_counter() - t:.0f} s", flush=True)
    finally:
        engine.close()
    for shape, gains in found.items():
        share = f" ({100 * np.mean(gains) / (scale * exact):.0f}% of it)" if exact else ""
        print(f"{shape}: mean {np.mean(gains):+.{digits}f} {unit} over {len(gains)} seeds"
              f"{share} ({', '.join(f'{g:+.{digits}f}' for g in gains)})")
    if exact is not None:
        print(f"exactly: the best deviation gains {scale * exact:+.{digits}f} {unit} a seat")


if __name__ == "__main__":
    main()
