"""``nop-sim tune --train``: each trial judged under strong play.

A trial's rules get a strong field of their own before they are scored:

- **Training, rung by rung.** Rung ``r`` of ``R`` trains a field (:mod:`nop_sim.studies.train`)
  with ``budget / 2**(R-1-r)`` matches, so successive halving prunes on the cheap fields
  and only the trials that keep up pay for the large ones. Rung 0 starts from the field
  of the nearest trial trained before (over the ``[tune]`` settings, as ``sweep --train``
  warm-starts its points), each later rung from the trial's field of the rung before
  (its mixture as the first population). Every field trains into
  ``<cache>/<fingerprint>-<budget>-e<epsilon>-psro-w<source>/``, named by its rules,
  budget and start, so a study resumed or run again reads it back; the results depend
  on the seed alone.
- **Values.** Where a ``value_<mechanic>`` target asks, the field's mechanics are valued
  (restricted play) with ``value_budget / 2**(R-1-r)`` matches.
- **Play.** The rung's matches are played with the field in every seat, so every other
  target (match length, seat advantage, manipulations per hand...) is measured under
  strong play too.

A rung's :class:`TrialField` holds its ``exploitability`` and ``value_<mechanic>`` (win-rate
points) with their 95% intervals; the objective's bootstrap draws them from normals of
those widths. The re-runs of the top trials play fresh seeds with the trial's last
field, and value it again with a fresh seed (in a folder of its own beside the field),
so a trial that looked best by the luck of its value check does not win.
"""

from __future__ import annotations

import shutil
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nop_sim.run.scenario import Scenario
from nop_sim.studies.train.sweep import field_folder, nearest, warm_population
from nop_sim.studies.train.trainer import TrainConfig, start_population, train_folder
from nop_sim.studies.train.value import value_folder

__all__ = ["StrongTuning", "TrialField", "draw", "field_scenario", "rung_budget",
           "train_trial", "value_again", "warm_source"]


@dataclass(frozen=True)
class StrongTuning:
    """How a trial is trained: the last rung's training and value budgets (0: no values),
    the mechanics the targets value, and the cache of fields."""

    budget: int = 100_000
    value_budget: int = 100_000
    mechanics: tuple[str, ...] = ()
    cache: str = "reports/train-cache"
    epsilon: float = 1.0

    def key(self) -> dict:
        """What a resumed study must share (the cache is where, not what)."""
        return {"budget": self.budget, "value_budget": self.value_budget,
                "mechanics": list(self.mechanics), "epsilon": self.epsilon}


@dataclass
class TrialField:
    """A trial's field at one rung: its folder and its strong-play metrics."""

    folder: Path
    metrics: dict[str, tuple[float, float, float]]   # name -> (value, low, high), points


def rung_budget(total: int, rungs: int, r: int) -> int:
    """Rung ``r``'s share of a last-rung budget: halved for each rung before the last."""
    return max(1, total // 2 ** (rungs - 1 - r))


def warm_source(previous: Sequence[tuple[Mapping[str, Any], str]],
                params: Mapping[str, Any]) -> Path | None:
    """The last field of the trial nearest to ``params`` among ``previous`` (``(params,
    field folder)`` of the trials trained before, in order), or None for the first."""
    if not previous:
        return None
    points = [dict(p) for p, _ in previous] + [dict(params)]
    return Path(previous[nearest(points, len(previous))][1])


def train_trial(tscn: Scenario, tuning: StrongTuning, rungs: int, r: int,
                source: Path | None, *, workers: int | None = None,
                scheduler: str | None = None) -> TrialField:
    """Train rung ``r``'s field for the trial scenario ``tscn`` from ``source`` (a field
    folder; None: the scenario's seats), value it where asked, and read its metrics."""
    cfg = TrainConfig(budget=rung_budget(tuning.budget, rungs, r), epsilon=tuning.epsilon,
                      seed=tscn.seed)
    folder = field_folder(Path(tuning.cache), tscn, cfg, source)
    first = start_population(tscn) if source is None else warm_population(tscn, source)
    result = train_folder(tscn, folder, cfg, threads=workers, scheduler=scheduler,
                          resume=True, population=first)
    metrics = {"exploitability": (result.exploitability, result.exploitability_low,
                                  result.exploitability_high)}
    if tuning.mechanics and tuning.value_budget:
        table, _, _ = value_folder(tscn, folder, list(tuning.mechanics),
                                   budget=rung_budget(tuning.value_budget, rungs, r),
                                   threads=workers, scheduler=scheduler)
        metrics.update(_value_metrics(table))
    return TrialField(folder, metrics)


def _value_metrics(table) -> dict[str, tuple[float, float, float]]:
    return {f"value_{row.mechanic}": (float(row.loss), float(row.loss_low),
                                      float(row.loss_high)) for row in table.itertuples()}


def value_again(tscn: Scenario, field: Path, tuning: StrongTuning, seed: int, *,
                workers: int | None = None, scheduler: str | None = None
                ) -> dict[str, tuple[float, float, float]]:
    """The field in ``field`` valued again with ``seed`` (a re-run's fresh check), in
    ``field/rerun-<seed>/`` so the trial's own values stay."""
    if not (tuning.mechanics and tuning.value_budget):
        return {}
    again = field / f"rerun-{seed}"
    again.mkdir(exist_ok=True)
    shutil.copyfile(field / "strong.toml", again / "strong.toml")
    data = tomllib.loads(tscn.text)
    data["run"] = {**data.get("run", {}), "seed": seed}
    scn = Scenario.from_mapping(data, source=tscn.source, name=tscn.name)
    table, _, _ = value_folder(scn, again, list(tuning.mechanics), budget=tuning.value_budget,
                               threads=workers, scheduler=scheduler)
    return _value_metrics(table)


def field_scenario(tscn: Scenario, field: Path) -> Scenario:
    """The trial scenario with ``field``'s strong.toml in every seat."""
    data = tomllib.loads(tscn.text)
    data["seats"] = {"all": "@" + str((field / "strong.toml").resolve())}
    return Scenario.from_mapping(data, source=tscn.source, name=tscn.name)


def draw(metrics: Mapping[str, tuple[float, float, float]], rng: np.random.Generator,
         z: float) -> dict[str, float]:
    """One bootstrap draw of each strong-play metric: a split normal whose sides' spreads
    are its interval's."""
    out = {}
    for name, (v, lo, hi) in metrics.items():
        e = rng.standard_normal()
        out[name] = v + e * (max(v - lo, 0.0) if e < 0 else max(hi - v, 0.0)) / z
    return out
