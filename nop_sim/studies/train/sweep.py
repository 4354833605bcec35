"""``nop-sim sweep --train [--value]``: a strong field for every sweep point, and what each
mechanic is worth there.

Each point becomes a scenario of its own (:func:`~nop_sim.run.scenario.point_scenario`)
and trains into ``<cache>/<fingerprint>-<budget>-e<epsilon>-psro[-w<source>]/``, where
the fingerprint is the point's: its settings, starting seats and seed.

**Warm starts.** Points train one after another in point order. A point after the first
starts from the nearest point already trained (distance over the swept knobs, each
scaled to its range in the sweep; a categorical knob counts 0 or 1; ties go to the
earlier point): its first population is that point's strong mixture, rows and weights,
followed by the point's own seats (an equal share each). Neighbouring rule sets have
neighbouring equilibria, so a warm point spends its budget refining rather than
rediscovering. The source is part of the folder's name (``-w`` and a hash of the
source folder's name), so a cached point is reused only where it was trained from the
same start; the chain is fixed by the sweep, so the results depend on the seed alone,
not on workers, Dask or a resume.

A point trained before with the same budget and start is read back, not trained
again, whichever sweep it was part of. The sweep then seats that point's field in
every seat of the point (:attr:`~nop_sim.run.scenario.Scenario.point_seats`), so
every point reports under strong play.

**Values.** With ``value_budget``, each point's mechanics are valued against its field
(:func:`~nop_sim.studies.train.value.value_folder`, kept in the point's folder, so a
stopped sweep resumes there). :func:`strong_tables` gathers the points' trainings and
values into the two tables the sweep folder keeps: ``strong_play.csv`` (a row a point:
the training's stated exploitability, rounds, matches, whether it settled) and
``values.csv`` (a row a point and mechanic: ``point``, the swept knobs, ``mechanic``,
``value``, ``low``, ``high``, in win-rate points), and ``drafts.csv`` (a row a point and
Disruptor: its drafted ``lead`` under the point's field, ``low``, ``high``, in points).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim.core.stats import newcombe_interval
from nop_sim.games import SeatFile
from nop_sim.games.registry import policy_of
from nop_sim.reporting import atomic_write
from nop_sim.results.store import DRAFTS_FILE, STRONG_PLAY_FILE, VALUES_FILE
from nop_sim.run.scenario import Scenario, point_key, point_scenario
from nop_sim.studies.train.trainer import TrainConfig, start_population, train_folder
from nop_sim.studies.train.value import value_folder
from nop_sim.studies.train.verdict import RANGE_COLUMNS, settle

__all__ = ["DEFAULT_CACHE", "TrainedPoints", "field_folder", "nearest", "train_points",
           "warm_population"]

DEFAULT_CACHE = Path("reports") / "train-cache"


@dataclass
class TrainedPoints:
    """What :func:`train_points` returns: the scenario with every point's seats taken by
    its field, and the tables of the trainings and values (written by :meth:`write`)."""

    scenario: Scenario
    strong_play: pd.DataFrame
    values: pd.DataFrame = field(default_factory=pd.DataFrame)
    drafts: pd.DataFrame = field(default_factory=pd.DataFrame)

    def write(self, folder: Path) -> list[Path]:
        """``strong_play.csv`` and, where values were measured, ``values.csv`` and
        ``drafts.csv`` (each Disruptor's drafted lead under the point's field)."""
        folder = Path(folder)
        out = [folder / STRONG_PLAY_FILE]
        atomic_write(out[0], self.strong_play.to_csv(index=False))
        for name, table in ((VALUES_FILE, self.values), (DRAFTS_FILE, self.drafts)):
            if len(table):
                out.append(folder / name)
                atomic_write(out[-1], table.to_csv(index=False))
        return out


def nearest(points: Sequence[dict], index: int) -> int | None:
    """The point before ``index`` nearest to it over the swept knobs (each scaled to its
    range; unequal categories count 1), the earlier on a tie; None for the first."""
    if index == 0:
        return None
    names = list(points[0])
    dist = np.zeros(index)
    for name in names:
        values = [p[name] for p in points]
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            span = (max(values) - min(values)) or 1.0
            dist += np.array([((values[j] - values[index]) / span) ** 2
                              for j in range(index)])
        else:
            dist += np.array([float(values[j] != values[index]) for j in range(index)])
    return int(np.argmin(dist))  # argmin takes the first of equal distances


def warm_population(sub: Scenario, source: Path):
    """``sub``'s first population started from the trained folder ``source``: its strong
    mixture (rows, weights), then ``sub``'s own seats not in it, an equal share each."""
    settings = sub.settings_at(sub.points()[0])
    policy = policy_of(settings)
    f = policy.read_agent_file(source / "strong.toml")
    rows = [policy.agent_row(r) for r in f.rows]
    weights = list(np.asarray(f.weights, float))
    labels = [f"warm start row {i}" for i in range(len(rows))]
    own, own_labels, _ = start_population(sub)
    known = [r.tolist() for r in rows]
    extra = [(r, lab) for r, lab in zip(own, own_labels, strict=True) if r.tolist() not in known]
    share = 1.0 / (len(rows) + len(extra))
    weights = [w * (1 - share * len(extra)) for w in weights] + [share] * len(extra)
    rows += [r for r, _ in extra]
    labels += [lab for _, lab in extra]
    w = np.asarray(weights)
    return np.asarray(rows, float), labels, w / w.sum()


def field_folder(cache: Path, sub: Scenario, cfg: TrainConfig, source: Path | None) -> Path:
    """Where ``sub``'s field trains in ``cache``: named by its fingerprint (rules, seats,
    seed), budget and epsilon, and the hash of its warm start's folder name, so a cached
    field is read back only where it was trained from the same start."""
    name = f"{sub.fingerprint()}-{cfg.budget}-e{cfg.epsilon:g}-psro"
    if source is not None:
        name += "-w" + hashlib.sha256(source.name.encode()).hexdigest()[:8]
    return Path(cache) / name


def train_points(scn: Scenario, cfg: TrainConfig, *, cache: Path = DEFAULT_CACHE,
                 value_budget: int | None = None, mechanics: Sequence[str] | None = None,
                 value_precision: float | None = None,
                 threads: int | None = None, scheduler: str | None = None,
                 progress: Callable[[int, int, int], None] | None = None,
                 say: Callable[[str], None] | None = None) -> TrainedPoints:
    """Train every point of ``scn`` (warm-started, cached; see the module docstring) and,
    with ``value_budget``, value ``mechanics`` (default: all the game's) at each, each
    value's check played on to ``value_precision`` points where given (beyond the budget:
    :func:`~nop_sim.studies.train.value.value_folder`)."""
    points = scn.points()
    params = [dict(p) for p in points]
    per_point = cfg.budget + (value_budget or 0)
    seats, folders, rows, values, drafts = {}, [], [], [], []
    for i, point in enumerate(points):
        sub = point_scenario(scn, i)
        src = nearest(params, i)
        source = folders[src] if src is not None else None
        folder = field_folder(cache, sub, cfg, source)
        reused = (folder / "state.json").exists()

        def tick(done, total, i=i, offset=0):
            if progress is not None:
                progress(i * per_point + offset + min(done, total), len(points) * per_point, i)

        first = start_population(sub) if source is None else warm_population(sub, source)
        result = train_folder(sub, folder, cfg, threads=threads, scheduler=scheduler,
                              resume=True, progress=tick, population=first)
        folders.append(folder)
        settings = sub.settings_at(sub.points()[0])
        policy = policy_of(settings)
        seats[point_key(point)] = SeatFile.from_agent_file(
            policy.read_agent_file(folder / "strong.toml"), given=str(folder / "strong.toml"),
            label=f"trained(point {i})")
        rows.append({"point": i, **params[i],
                     "exploitability": result.exploitability,
                     "exploitability_low": result.exploitability_low,
                     "exploitability_high": result.exploitability_high,
                     "converged": bool(result.converged), "rounds": int(result.rounds),
                     "train_matches": int(result.matches), "mixture": len(result.weights),
                     "warm_from": -1 if src is None else int(src), "folder": str(folder)})
        said = (f"point {i} {params[i]}: {'reused' if reused else 'trained'} {folder.name}"
                + ("" if src is None else f" (from point {src})")
                + f", a deviation gains at least {result.exploitability:+.1f} points")
        if value_budget:
            names = list(mechanics or policy.mechanics)
            table, fields, _ = value_folder(
                sub, folder, names, budget=value_budget, threads=threads, scheduler=scheduler,
                precision=value_precision,
                progress=lambda d, t, tick=tick: tick(d, t, offset=cfg.budget))
            # one field a point: the statement rule (.verdict) cannot settle a value here,
            # and values.csv says so in its range columns as value.parquet does
            settled = settle([table], scale=policy.scale, digits=policy.digits,
                             unit=policy.unit).set_index("mechanic")
            for r in table.itertuples():
                values.append({"point": i, **params[i], "mechanic": r.mechanic,
                               "value": r.loss, "low": r.loss_low, "high": r.loss_high,
                               "gain_full": r.gain_full, "gain_restricted": r.gain_restricted,
                               "check_matches": int(r.check_matches),
                               **{c: settled.at[r.mechanic, c] for c in RANGE_COLUMNS}})
            said += "; " + ", ".join(f"{r.mechanic} {r.loss:+.1f}" for r in table.itertuples())
            drafts += _leads(fields, i, params[i])
        if say is not None:
            say(said)
    files = tuple(scn.agent_files) + tuple(seats.values())
    return TrainedPoints(dataclasses.replace(scn, point_seats=seats, agent_files=files),
                         pd.DataFrame(rows), pd.DataFrame(values), pd.DataFrame(drafts))


def _leads(fields: pd.DataFrame, point: int, params: dict) -> list[dict]:
    """Each Disruptor's drafted lead in the field's own matches (the game's field table:
    win rate of a seat that drafted the card minus one that did not, in points, with
    Newcombe's interval); none for a game without the table."""
    if not {"card", "win_drafted", "matches_drafted", "win_not", "matches_not"} \
            <= set(fields.columns):
        return []
    k1 = (fields["win_drafted"] * fields["matches_drafted"]).round()
    k2 = (fields["win_not"] * fields["matches_not"]).round()
    low, high = newcombe_interval(k1, fields["matches_drafted"], k2, fields["matches_not"])
    return [{"point": point, **params, "card": c, "lead": 100 * (a - b), "low": 100 * lo,
             "high": 100 * hi, "matches_drafted": int(n)}
            for c, a, b, lo, hi, n in zip(fields["card"], fields["win_drafted"],
                                          fields["win_not"], low, high,
                                          fields["matches_drafted"], strict=True)]

