"""How many matches a ±1 point interval on one deviation's gain takes, per design.

Plays one known deviation (the first kept in a field folder's deviations.json,
or the field's own row with ``--row field``) against the field of a training
folder, ``--deals`` deals per design, and prints for each design the standard
deviation of its independent unit, the matches it plays for that (the
reference's included), and the matches a 95% interval of ±1 win-rate point
needs:

* ``plain``: independent matches, the deviation's win rate alone (its gain is
  the win rate minus 1/players);
* ``paired``: each match also played by the field as drawn on the same deal
  (common random numbers), the gain the paired difference (the design before
  issue 36);
* ``duplicate``: blocks of ``players`` matches on one deal and one draw of the
  field, the deviation in each seat once, the reference once a block (the
  design every comparison of ``nop_sim.studies.train`` now uses).

    python scripts/noise.py scenarios/baseline.toml scenarios/fields/baseline \
        --deals 40000 --seed 5
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from nop_sim.run.scenario import load_scenario
from nop_sim.studies.train.known import known_rows
from nop_sim.studies.train.play import Engine, duel
from nop_sim.studies.train.space import space_for
from nop_sim.studies.train.value import load_strong


def needed(sd: float, unit_matches: float, half: float = 0.01) -> float:
    """Matches for a 95% interval of ``half`` on a mean of units of sd ``sd``, each
    costing ``unit_matches`` matches."""
    return unit_matches * (1.96 * sd / half) ** 2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", type=Path)
    ap.add_argument("folder", type=Path, help="a folder holding strong.toml")
    ap.add_argument("--deals", type=int, default=40_000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--row", choices=["known", "near", "field"], default="known",
                    help="known: the first deviation kept in deviations.json; near: the "
                         "field's first row moved by 0.05 of each searched parameter's range "
                         "(as a search's candidates near the field are); field: its own row")
    ap.add_argument("--one-stream", action="store_true",
                    help="play with one RNG stream a match (before issue 36)")
    a = ap.parse_args()
    scn = load_scenario(a.scenario)
    settings = scn.settings_at(scn.points()[0])
    fld, _ = load_strong(a.folder, settings)
    players = settings.players
    space = space_for(settings)
    if a.row == "known":
        row = known_rows(a.folder, fld, space.columns)[0]
    elif a.row == "near":
        rng = np.random.default_rng(a.seed)
        unit = space.to_unit(fld.rows[0])
        row = space.to_rows(np.clip(unit + 0.05 * rng.standard_normal(unit.shape), 0, 1)[None],
                            fld.rows[0])[0]
    else:
        row = fld.rows[0]
    engine = Engine()
    if a.one_stream:
        play = engine.play

        def one_stream(settings, tables, table_of, states):
            from nop_sim.games.new_order.policy import play_field
            return play_field(settings, tables, table_of, states, streams=False)

        engine.play = lambda *args: (setattr(engine, "_f", one_stream), one_stream(*args))[1]
        del play
    n = a.deals - a.deals % players
    t0 = time.perf_counter()
    plain = duel(engine, settings, fld, row, n, (a.seed, 1), reference=False, duplicate=False)
    paired = duel(engine, settings, fld, row, n, (a.seed, 2), duplicate=False)
    dup = duel(engine, settings, fld, row, n, (a.seed, 3))
    wall = time.perf_counter() - t0
    designs = [("plain", plain.won[0].astype(float), 1.0),
               ("paired", paired.gain()[0], 2.0),
               ("duplicate", dup.block_gain()[0], players + 1.0)]
    base = None
    print(f"{n:,} matches a design, {wall:.0f} s; gain read as the mean of each design's units")
    for name, units, cost in designs:
        sd = float(np.std(units, ddof=1))
        mean = float(np.mean(units)) - (1 / players if name == "plain" else 0.0)
        need = needed(sd, cost)
        cand = needed(sd, cost - (cost - 1 if name == "paired" else 1 if name == "duplicate"
                                  else 0))
        base = base or need
        print(f"{name:<10} gain {100 * mean:+5.2f}  sd {sd:.3f} per unit of {cost:g} matches: "
              f"{need:9,.0f} matches for +-1 point ({cand:,.0f} of the deviation's own), "
              f"{base / need:4.1f}x fewer than plain")


if __name__ == "__main__":
    main()
