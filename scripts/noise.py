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
        --deals 40000 --seed 5 --luck 3000

Measured (issue 36, this machine, 2 cores): a +-1 point interval on the shipped
field's 8.9-point deviation takes 8,568 plain matches, 23,540 paired and 8,770
with duplicate deals (7,016 of the deviation's own); with ``--one-stream`` the
duplicate design took 10,183. Two candidates 0.02 apart: 1.9 times less
variance than independent estimates. Control variates: the field's draws
divide the variance by 1.007, deal luck (correlation +0.056 with winning) by
1.003 at best.
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


class OneStream(Engine):
    """The engine as before issue 36: one RNG stream a match for cards and decisions."""

    def play(self, settings, tables, table_of, states):
        from nop_sim.games.new_order.policy import play_field

        out = play_field(settings, tables, table_of, states, streams=False)
        self.matches += len(table_of)
        return out


def cross_fitted(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``y`` less a control variate ``x @ beta`` (``x`` of known mean 0 by construction),
    ``beta`` fitted by least squares on the other half of the units (cross-fitting: each
    half's correction is independent of its own noise, so the mean stays unbiased)."""
    half = len(y) // 2
    out = y.astype(float).copy()
    for fit, use in ((slice(half, None), slice(None, half)), (slice(None, half), slice(half, None))):
        xc = x[fit] - x[fit].mean(axis=0)
        beta = np.linalg.lstsq(xc, y[fit] - y[fit].mean(), rcond=None)[0]
        out[use] -= x[use] @ beta
    return out


def deal_luck(settings, row: np.ndarray, n: int, seed: int) -> float:
    """The correlation of a seat's deal luck with its winning, the field's row in every
    seat (``n`` logged matches): luck = the sum over hands of the rank of its five dealt
    cards among the live seats' (ties halved), centred: 2 * rank - (live - 1), whose mean
    is exactly 0 whatever the policies (the live seats' deals are exchangeable)."""
    from nop_sim.evaluator import evaluate
    from nop_sim.games.new_order import types as T
    from nop_sim.games.new_order.engine import play_matches

    r = play_matches(settings, np.stack([row] * settings.players)[None], n_matches=n,
                     seed=seed, log_every=1, table_of=np.zeros(n, np.int64))
    ev = r.events
    deal = ev[ev[:, 2] == T.EV_DEAL]
    end = ev[ev[:, 2] == T.EV_MATCH_END]
    scores = evaluate(deal[:, 4:9])
    luck = np.zeros((n, settings.players))
    key = deal[:, 0] * 100_000 + deal[:, 1]
    for k in np.unique(key):
        idx = np.flatnonzero(key == k)
        sc = scores[idx]
        rank = (sc[:, None] > sc[None, :]).sum(1) + 0.5 * ((sc[:, None] == sc[None, :]).sum(1) - 1)
        luck[deal[idx, 0], deal[idx, 3]] += 2 * rank - (len(idx) - 1)
    won = np.zeros_like(luck)
    won[end[:, 0], end[:, 4]] = 1
    return float(np.corrcoef(luck.ravel(), won.ravel())[0, 1])


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
    ap.add_argument("--pair", type=float, default=0.02, metavar="SIGMA",
                    help="also compare two candidates SIGMA apart (in the unit cube) around "
                         "the row, as a search generation's candidates are [0.02]")
    ap.add_argument("--luck", type=int, default=0, metavar="N",
                    help="also measure the deal-luck control variate on N logged matches")
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
    engine = OneStream() if a.one_stream else Engine()
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
    # control variates of known mean 0 (chance events whose law is known)
    y = dup.block_gain()[0]
    drawn = dup.draws[::dup.block]
    x = np.stack([(drawn == j).sum(axis=1) - players * w for j, w in enumerate(fld.weights)],
                 axis=1)
    z = cross_fitted(y, x)
    print(f"control variate, the field's draws (rows drawn less their expected counts): "
          f"mean {100 * z.mean():+.2f} (plain {100 * y.mean():+.2f}), variance / "
          f"{y.var() / z.var():.3f}")
    if a.pair:
        rng = np.random.default_rng(a.seed + 1)
        unit = space.to_unit(row)
        two = space.to_rows(np.clip(unit + a.pair * rng.standard_normal((2, unit.size)), 0, 1),
                            row)
        d = duel(engine, settings, fld, two, n, (a.seed, 4))
        pay = d.payoff()
        diff = d.per_block(pay[0] - pay[1]).var()
        apart = d.per_block(pay[0]).var() + d.per_block(pay[1]).var()
        print(f"two candidates {a.pair} apart on the same duplicate deals: the variance of "
              f"their difference is {apart / diff:.2f} times smaller than of two independent "
              f"estimates")
    if a.luck:
        rho = deal_luck(settings, fld.rows[int(np.argmax(fld.weights))], a.luck, a.seed)
        print(f"control variate, deal luck ({a.luck:,} logged matches of the field): "
              f"correlation with winning {rho:+.3f}, so variance / {1 / (1 - rho**2):.3f} at "
              f"best")


if __name__ == "__main__":
    main()
