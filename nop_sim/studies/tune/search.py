"""The tuning study: Optuna over ``[tune]``, trials played in rungs, re-runs, outputs.

How a trial is scored
---------------------
A trial is the scenario with the trial's settings in ``[game]`` (no sweep).
Its ``matches`` are split into chunks of the runner (:func:`nop_sim.run.planning.plan_chunks`,
chunk size ``max(8, ceil(matches / 16))``) and played by the game's own ``play_chunk``: seats rotate exactly
as ``nop-sim run`` rotates them, and a chunk's numbers depend only on its seed.
Every trial plays the same seeds (common random numbers: two trials differ by
their settings, not by their luck). After each rung (``matches / 4``,
``/ 2``, all of them for 3 rungs) the objective goes to the pruner
(``SuccessiveHalvingPruner``, reduction factor 2), which stops trials that
fall behind the others at the same rung.

With ``--train`` (``TuneConfig.strong``), every rung of a trial first trains a strong
field for its rules, values the mechanics the targets name and plays the rung's matches
with the field in every seat (:mod:`nop_sim.studies.tune.strong`).

The objective is the distance to the targets: the root of the weighted sum
of squared relative misses (:meth:`nop_sim.run.scenario.Target.miss`, 0 when a
bound holds), the sweep ranking's distance with weights. Its interval, and
each target metric's, is a cluster bootstrap over chunks (chunks are
independent blocks of matches; the game's ``target_metrics`` reweights them). A share
of counted events that every resample gives alike (none of the matches unresolved) gets
its count's Wilson interval instead (``estimate.counts``): [0, 0] would read as certainty.

Determinism and resume
----------------------
Trials run one after another; the parallelism (``workers`` threads, numba
releasing the GIL, or a Dask cluster) is inside a trial's batch of chunks,
so the worker count never changes a number. The sampler of the k-th finished
trial is built with a seed drawn from ``(seed, k)``, and samplers keep no
other state than the study's trials, so a study resumed after a kill asks
exactly what an unkilled one would. The study is Optuna's RDB storage on
SQLite, ``DIR/study.db``; a trial killed while it ran is marked failed on
resume and its k is asked again.
"""

from __future__ import annotations

import importlib.util
import json
import math
import time
import tomllib
import warnings
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import pandas as pd
import tomli_w
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.trial import TrialState

from nop_sim.core.errors import TuneError
from nop_sim.core.stats import CONFIDENCE, normal_quantile, wilson_interval
from nop_sim.games import get_game
from nop_sim.reporting import atomic_write
from nop_sim.results.store import concat_tables
from nop_sim.run.executors import dask_client
from nop_sim.run.planning import Chunk, plan_chunks
from nop_sim.run.provenance import git_revision, versions
from nop_sim.run.scenario import Scenario, Target, TuneAxis
from nop_sim.studies.resume import same_study
from nop_sim.studies.tune.strong import (
    StrongTuning,
    draw,
    field_scenario,
    train_trial,
    value_again,
    warm_source,
)

__all__ = ["TuneConfig", "TuneError", "TuneResult", "objective", "tune_folder"]

STUDY = "tune"
_TRIAL_KEY, _RERUN_KEY, _SAMPLER_KEY, _BOOT_KEY = 0x7472, 0x7265, 0x7361, 0x626F


@dataclass(frozen=True)
class TuneConfig:
    """How much to search.

    trials : finished trials (completed or pruned) the study holds at the end
    matches : matches of a trial that reaches the last rung
    rungs : rungs of successive halving; rung r plays ``matches / 2**(rungs-1-r)``
    top : trials re-run with fresh seeds before the best is named
    rerun_factor : a re-run plays ``rerun_factor * matches``
    n_boot : bootstrap resamples for every interval
    seed : root seed (samplers, trial seeds, re-run seeds)
    startup : trials drawn at random before the sampler models the others (not tied to
        ``trials``, which may grow on resume: the k-th trial must not depend on it)
    strong : with ``tune --train``, how each trial's strong field is trained and valued
        (:mod:`nop_sim.studies.tune.strong`); None: the scenario's seats play
    """

    trials: int = 40
    matches: int = 400
    rungs: int = 3
    top: int = 5
    rerun_factor: int = 2
    n_boot: int = 200
    seed: int = 0
    startup: int = 5
    strong: StrongTuning | None = None   # tune --train: each trial under its own field

    def __post_init__(self) -> None:
        for name, low in (("trials", 1), ("matches", 1), ("rungs", 1), ("top", 1),
                          ("rerun_factor", 1), ("n_boot", 20), ("startup", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"tune {name} = {value!r} is not allowed: use an integer "
                                 f">= {low}")
        if self.matches < 2 ** (self.rungs - 1):
            raise ValueError(f"tune matches = {self.matches} is too few for {self.rungs} rungs: "
                             f"use at least {2 ** (self.rungs - 1)}")


@dataclass
class TuneResult:
    """What :func:`tune_folder` found and where it wrote it."""

    out: Path
    best: dict[str, Any]              # the best settings
    trial: int                        # the trial they came from
    objective: float                  # measured on the re-run
    objective_low: float
    objective_high: float
    targets: pd.DataFrame             # name, kind, target, weight, value, low, high, miss
    trials: int                       # finished trials in the study
    reused: int                       # of which finished before this call (--resume)
    pruned: int
    matches: int                      # played by this call
    seconds: float
    sampler: str
    paths: dict[str, Path] = field(default_factory=dict)


# ---------------------------------------------------------------------------
# The objective
# ---------------------------------------------------------------------------
def objective(specs: Sequence[Target], metrics: Mapping[str, float]) -> float:
    """Distance to the targets: ``sqrt(sum weight * miss**2)``; a metric that could
    not be measured (NaN, e.g. a hit rate without hedges) misses by 1000."""
    total = 0.0
    for t in specs:
        value = metrics.get(t.name, float("nan"))
        miss = 1000.0 if value is None or not math.isfinite(value) else t.miss(value)
        total += t.weight * miss * miss
    return math.sqrt(total)


def _estimate(game, specs, tables: list[dict], n_boot: int, seed: int,
              strong: Mapping[str, tuple[float, float, float]] | None = None) -> dict[str, Any]:
    """Point estimates and bootstrap intervals (over chunks) of every target metric and
    the objective, from a trial's chunk tables; ``strong`` adds the strong-play metrics
    (value, low, high), each replicate drawing them from their intervals."""
    names = [n for n in (*game.tables, *game.summed_tables) if n != "events"]
    merged = concat_tables(tables, names)
    estimate = game.target_metrics(merged)
    strong = dict(strong or {})
    point = {**estimate(), **{k: v[0] for k, v in strong.items()}}
    n_chunks = len(tables)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_BOOT_KEY,)))
    z = normal_quantile(CONFIDENCE)
    boots = []
    for _ in range(n_boot):
        w = rng.multinomial(n_chunks, np.full(n_chunks, 1.0 / n_chunks)).astype(np.float64)
        m = {**estimate(w), **draw(strong, rng, z)}
        m["objective"] = objective(specs, m)
        boots.append(m)
    frame = pd.DataFrame(boots)
    out: dict[str, Any] = {"objective": objective(specs, point)}
    for name, value in point.items():
        out[name] = value
    counts = getattr(estimate, "counts", {})  # the share targets' (events, trials)
    for name in frame.columns:
        col = frame[name].to_numpy(np.float64)
        col = col[np.isfinite(col)]
        lo, hi = (np.quantile(col, [0.025, 0.975]) if col.size else (np.nan, np.nan))
        counted = counts.get(name)
        if counted is not None and counted[1] > 0 and lo == hi:
            # every resample the same (none or all of the events): resampling chunks says
            # nothing of the share's uncertainty, its count does
            lo, hi = wilson_interval(*counted)
        out[f"{name}_low"], out[f"{name}_high"] = float(lo), float(hi)
    out["hands"] = int(merged["counts"][game.work].sum()) if game.work in merged["counts"] else 0
    return out


# ---------------------------------------------------------------------------
# Playing a trial's chunks: threads of this process, or a Dask cluster
# ---------------------------------------------------------------------------
class _Player:
    """Plays chunks of one scenario and returns their tables in chunk order.

    Locally, chunks run on ``workers`` threads (the kernels release the GIL);
    with a scheduler, each batch of chunks is mapped over the Dask cluster. The
    order of the returned tables is the chunks' order, whoever played them.
    """

    def __init__(self, workers: int, scheduler: str | None):
        self.workers, self.scheduler = max(1, workers), scheduler
        self.pool = self.client = None
        if scheduler:
            self.client = dask_client(scheduler, TuneError)
        elif self.workers > 1:
            self.pool = ThreadPoolExecutor(max_workers=self.workers)

    def play(self, scn: Scenario, chunks: list[Chunk]) -> list[dict]:
        play = get_game(scn.kind).play_chunk
        if self.client is not None:
            futures = self.client.map(play, [scn] * len(chunks), chunks, pure=False)
            return self.client.gather(futures)
        if self.pool is not None:
            return list(self.pool.map(partial(play, scn), chunks))
        return [play(scn, c) for c in chunks]

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()
        if self.client is not None:
            self.client.close()


# ---------------------------------------------------------------------------
# Trials
# ---------------------------------------------------------------------------
def _derived_seed(seed: int, *key: int) -> int:
    ss = np.random.SeedSequence(seed, spawn_key=key)
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def _chunk_size(cfg: TuneConfig) -> int:
    """16 chunks a trial (a bootstrap over chunks needs a few), at least 8 matches each (a
    chunk costs a few milliseconds of tables beside its matches)."""
    return max(8, math.ceil(cfg.matches / 16))


def _rungs(cfg: TuneConfig) -> list[int]:
    """Matches played by the end of each rung (multiples of the chunk size, the last
    one ``matches``)."""
    size = _chunk_size(cfg)
    ends = [min(cfg.matches, size * math.ceil(cfg.matches / 2 ** (cfg.rungs - 1 - r) / size))
            for r in range(cfg.rungs)]
    return sorted(set(ends))


def point_data(scn: Scenario, params: Mapping[str, Any]) -> dict:
    """The scenario as TOML data with ``params`` in ``[game]``, without [tune] and [sweep];
    ``"@path"`` seats point at the file that was read (absolute), so the data runs from
    any folder."""
    data = tomllib.loads(scn.text)
    data.pop("tune", None)
    data.pop("sweep", None)
    data.pop("strong", None)  # a field is trained for one rule set, not a trial's
    data["game"] = {**data.get("game", {}), **params}
    paths = {f"@{f.given}": f"@{Path(f.path).resolve()}" for f in scn.agent_files}

    def absolute(spec):  # "@path", or a table based on one ({preset = "@path", ...})
        if isinstance(spec, str):
            return paths.get(spec, spec)
        if isinstance(spec, dict) and isinstance(spec.get("preset"), str):
            return {**spec, "preset": paths.get(spec["preset"].strip(), spec["preset"])}
        return spec

    seats = data.get("seats", {})
    for key, value in seats.items():
        seats[key] = [absolute(v) for v in value] if isinstance(value, list) else absolute(value)
    return data


def _trial_scenario(scn: Scenario, params: Mapping[str, Any], seed: int, matches: int,
                    chunk: int) -> Scenario:
    data = point_data(scn, params)
    data["run"] = {**data.get("run", {}), "seed": seed, "matches": matches, "chunk": chunk,
                   "log_sample": 0}
    return Scenario.from_mapping(data, source=f"{scn.source} [tune] {dict(params)}",
                                 name=scn.name)


def _distributions(axes: Sequence[TuneAxis]) -> dict:
    out = {}
    for a in axes:
        if a.kind == "int":
            out[a.name] = IntDistribution(int(a.low), int(a.high))
        elif a.kind == "float":
            out[a.name] = FloatDistribution(float(a.low), float(a.high))
        else:
            out[a.name] = CategoricalDistribution(list(a.choices))
    return out


def sampler_name(axes: Sequence[TuneAxis]) -> str:
    """``"cmaes"`` when every setting is a float range (two or more), else ``"tpe"``."""
    return "cmaes" if len(axes) >= 2 and all(a.kind == "float" for a in axes) else "tpe"


def _sampler(name: str, seed: int, cfg: TuneConfig):
    startup = cfg.startup
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        if name == "cmaes":
            return optuna.samplers.CmaEsSampler(seed=seed, n_startup_trials=startup)
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup, multivariate=True)


def _config_key(scn: Scenario, cfg: TuneConfig) -> dict:
    """What a resumed study must share with the one in the folder (not the trial count)."""
    return {"scenario": scn.fingerprint(), "seed": cfg.seed, "matches": cfg.matches,
            "rungs": cfg.rungs, "n_boot": cfg.n_boot, "startup": cfg.startup,
            "tune": [asdict(a) for a in scn.tune],
            "targets": [asdict(t) for t in scn.target_specs],
            **({"strong": cfg.strong.key()} if cfg.strong is not None else {})}


def _open_study(out: Path, scn: Scenario, cfg: TuneConfig, resume: bool):
    db = out / "study.db"
    manifest_path = out / "manifest.json"
    key = json.loads(json.dumps(_config_key(scn, cfg), default=str))
    if db.exists():
        if not resume:
            raise TuneError(f"{out}: holds a tune study already; --resume continues it, or "
                            f"choose another --out")
        same_study(manifest_path, "key", key, TuneError,
                   unreadable="{folder}: study.db has no readable manifest.json beside it; "
                              "choose another --out",
                   differs="{folder}: its study was tuned with other {keys}; resume with the "
                           "same scenario and flags, or choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(
        storage=f"sqlite:///{db.resolve()}", study_name=STUDY, direction="minimize",
        load_if_exists=True,
        pruner=_CountedOnly(optuna.pruners.SuccessiveHalvingPruner(min_resource=1,
                                                                   reduction_factor=2)))
    for t in study.get_trials(deepcopy=False):  # killed while running: ask its k again
        if t.state == optuna.trial.TrialState.RUNNING:
            study.tell(t.number, state=optuna.trial.TrialState.FAIL)
    return study, key


class _CountedOnly(optuna.pruners.BasePruner):
    """A pruner that sees only the trials that count: one killed mid-way (failed on
    resume) must not compete at the rungs it reached, or a resumed study would prune
    differently from one never killed."""

    def __init__(self, inner):
        self.inner = inner

    def prune(self, study, trial) -> bool:
        return self.inner.prune(_StudyView(study), trial)


class _StudyView:
    def __init__(self, study):
        self._study = study

    def get_trials(self, deepcopy: bool = True, states=None):
        keep = [s for s in (states or tuple(TrialState)) if s != TrialState.FAIL]
        return self._study.get_trials(deepcopy=deepcopy, states=keep)

    def __getattr__(self, name):
        return getattr(self._study, name)


def _finished(study) -> list:
    return [t for t in study.get_trials(deepcopy=False)
            if t.state in (TrialState.COMPLETE, TrialState.PRUNED)]


def _run_trial(study, scn: Scenario, cfg: TuneConfig, player: _Player, index: int,
               distributions: dict, sampler: str) -> int:
    """Ask, play in rungs, tell. Returns the matches played."""
    game = get_game(scn.kind)
    study.sampler = _sampler(sampler, _derived_seed(cfg.seed, _SAMPLER_KEY, index) % 2**32,
                             cfg)  # numpy's RandomState takes 32 bits
    trial = study.ask(distributions)
    trial.set_user_attr("index", index)
    params = dict(trial.params)
    key = json.dumps(params, sort_keys=True, default=str)
    same = next((t for t in _finished(study)
                 if t.state == TrialState.COMPLETE and t.user_attrs.get("key") == key), None)
    trial.set_user_attr("key", key)
    if same is not None:  # common seeds: the same settings give the same numbers
        for step, value in same.intermediate_values.items():
            trial.report(value, step)
        for k, v in same.user_attrs.items():
            if k not in ("index", "key"):
                trial.set_user_attr(k, v)
        trial.set_user_attr("repeat_of", same.number)
        trial.set_user_attr("seconds", 0.0)
        study.tell(trial, same.value)
        return 0
    t0 = time.perf_counter()
    tscn = _trial_scenario(scn, params, cfg.seed, cfg.matches, _chunk_size(cfg))
    chunks = plan_chunks(tscn)
    tables: list[dict] = []
    state, played = TrialState.COMPLETE, 0
    rungs = _rungs(cfg)
    field = None
    if cfg.strong is not None:  # rung 0 starts from the nearest trial's field
        trained = sorted((t for t in _finished(study) if "field" in t.user_attrs),
                         key=lambda t: t.user_attrs["index"])
        source = warm_source([(t.params, t.user_attrs["field"]) for t in trained], params)
    for r, end in enumerate(rungs):
        if cfg.strong is not None:  # a field for this rung, and every match played again by it
            field = train_trial(tscn, cfg.strong, len(rungs), r,
                                source if field is None else field.folder,
                                workers=player.workers, scheduler=player.scheduler)
            fscn = field_scenario(tscn, field.folder)
            tables = player.play(fscn, [c for c in chunks if c.first_match < end])
            played += sum(c.n_matches for c in chunks[:len(tables)])
        else:
            todo = [c for c in chunks[len(tables):] if c.first_match < end]
            tables += player.play(tscn, todo)
            played = sum(c.n_matches for c in chunks[:len(tables)])
        est = game.target_metrics(concat_tables(tables, ("matches", "seats", "counts")))()
        if field is not None:
            est.update({k: v[0] for k, v in field.metrics.items()})
        trial.report(objective(scn.target_specs, est), 2 ** r)  # the pruner's resource
        if r < len(rungs) - 1 and trial.should_prune():
            state = TrialState.PRUNED
            break
    found = _estimate(game, scn.target_specs, tables, cfg.n_boot,
                      _derived_seed(cfg.seed, _BOOT_KEY, index),
                      None if field is None else field.metrics)
    if field is not None:
        trial.set_user_attr("field", str(field.folder))
        trial.set_user_attr("strong", {k: list(v) for k, v in field.metrics.items()})
    trial.set_user_attr("matches", played)
    trial.set_user_attr("seconds", time.perf_counter() - t0)
    trial.set_user_attr("metrics", {k: (None if isinstance(v, float) and not math.isfinite(v)
                                        else v) for k, v in found.items()})
    if state == TrialState.PRUNED:
        study.tell(trial, state=TrialState.PRUNED)
    else:
        study.tell(trial, found["objective"])
    return played


def _rerun(scn: Scenario, cfg: TuneConfig, player: _Player, candidates: list) -> pd.DataFrame:
    """The top trials again, on fresh seeds (one for all, so they race fairly) and
    ``rerun_factor`` times the matches."""
    game = get_game(scn.kind)
    seed = _derived_seed(cfg.seed, _RERUN_KEY)
    rows = []
    for t in candidates:
        tscn = _trial_scenario(scn, t.params, seed, cfg.matches * cfg.rerun_factor,
                               _chunk_size(cfg))
        strong = None
        if cfg.strong is not None:  # its last field, valued again on a fresh seed
            field = Path(t.user_attrs["field"])
            strong = {"exploitability": tuple(t.user_attrs["strong"]["exploitability"]),
                      **value_again(tscn, field, cfg.strong, seed, workers=player.workers,
                                    scheduler=player.scheduler)}
            tscn = field_scenario(tscn, field)
        tables = player.play(tscn, plan_chunks(tscn))
        found = _estimate(game, scn.target_specs, tables, cfg.n_boot,
                          _derived_seed(seed, _BOOT_KEY, t.user_attrs["index"]), strong)
        rows.append({"trial": t.number, **{f"param_{k}": v for k, v in t.params.items()},
                     "trial_objective": t.value, "matches": cfg.matches * cfg.rerun_factor,
                     "seed": seed, **found})
    frame = pd.DataFrame(rows)
    return frame.sort_values(["objective", "trial"], kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------------------
# The folder
# ---------------------------------------------------------------------------
def trials_frame(study, scn: Scenario) -> pd.DataFrame:
    """One row per trial: number, k (``index``), state, ``param_*``, objective with
    interval, every target metric with interval, matches, seconds, repeat_of."""
    rows = []
    for t in study.get_trials(deepcopy=False):
        metrics = dict(t.user_attrs.get("metrics") or {})
        rows.append({"trial": t.number, "index": t.user_attrs.get("index"),
                     "state": t.state.name.lower(),
                     **{f"param_{a.name}": t.params.get(a.name) for a in scn.tune},
                     "objective": metrics.get("objective", t.value),
                     **{k: v for k, v in metrics.items() if k != "objective"},
                     "matches": t.user_attrs.get("matches"),
                     "seconds": t.user_attrs.get("seconds"),
                     "repeat_of": t.user_attrs.get("repeat_of")})
    return pd.DataFrame(rows)


def _importances(study) -> tuple[dict[str, float], str]:
    """Parameter importances and the method: fANOVA when scikit-learn is there (Optuna's
    default), else PED-ANOVA (no extra dependency)."""
    if importlib.util.find_spec("sklearn") is not None:
        evaluator, method = optuna.importance.FanovaImportanceEvaluator(seed=0), "fANOVA"
    else:
        evaluator, method = optuna.importance.PedAnovaImportanceEvaluator(), "PED-ANOVA"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = optuna.importance.get_param_importances(study, evaluator=evaluator)
        return {k: float(v) for k, v in found.items()}, method
    except Exception:  # noqa: BLE001 - too few trials, one value only
        return {}, method


def target_table(specs: Sequence[Target], found: Mapping[str, Any]) -> pd.DataFrame:
    """name, kind, target, weight, value, low, high, miss (0: met) of each target."""
    rows = []
    for t in specs:
        value = found.get(t.name)
        value = float("nan") if value is None else float(value)
        rows.append({"name": t.name, "kind": t.kind, "target": t.value, "weight": t.weight,
                     "value": value, "low": found.get(f"{t.name}_low"),
                     "high": found.get(f"{t.name}_high"),
                     "miss": t.miss(value) if math.isfinite(value) else float("nan")})
    return pd.DataFrame(rows)


def best_toml(scn: Scenario, params: Mapping[str, Any], note: str,
              field: str | None = None) -> str:
    """A complete scenario file with ``params`` in ``[game]`` (no [tune], no [sweep]);
    ``field``: the strong field it was judged under (``tune --train``), its ``[strong]``."""
    data = point_data(scn, params)
    data.pop("name", None)  # a file's run is named after the file (Scenario.from_mapping)
    data["description"] = note
    if field is not None:
        data["strong"] = {"field": str((Path(field) / "strong.toml").resolve())}
    header = (f"# Written by nop-sim tune from {scn.source}: {note}\n"
              f"# Run it as is: nop-sim run <this file> --out reports/{scn.name}-best\n")
    return header + tomli_w.dumps(data)


def _jsonable(value):
    return json.loads(json.dumps(value, default=lambda v: v.item() if hasattr(v, "item")
                                 else str(v)))


def tune_folder(scn: Scenario, out: str | Path, cfg: TuneConfig, *, workers: int | None = None,
                scheduler: str | None = None, resume: bool = False,
                progress: Callable[[int, int, int], None] | None = None) -> TuneResult:
    """Tune ``scn``'s ``[tune]`` settings toward its ``[targets]``; write the folder.

    ``progress(done, total, matches)`` is called after each trial and re-run
    (``total = trials + top``). Raises :class:`ValueError` for a scenario that
    cannot be tuned, :class:`TuneError` for a folder or scheduler that stops it.
    """
    game = get_game(scn.kind)
    if not scn.tune:
        raise ValueError(f"{scn.source}: has no [tune] table: add the settings to search, "
                         f"e.g. [tune] chips = [20, 200]")
    if not scn.target_specs:
        raise ValueError(f"{scn.source}: has no [targets] table: tune needs the aim, e.g. "
                         f"[targets] median_hands = 60")
    if game.target_metrics is None:
        raise ValueError(f"{scn.source}: the {game.title} game measures no targets; "
                         f"nop-sim tune cannot score its trials")
    strong = [t.name for t in scn.target_specs if t.name in game.strong_targets]
    if strong and cfg.strong is None:
        raise ValueError(f"{scn.source}: [targets] {', '.join(strong)}: measured under strong "
                         f"play: tune with --train (each trial trains a field)")
    if cfg.strong is not None:
        if not game.trainable:
            raise ValueError(f"{scn.source}: the {game.title} game has no policy space; "
                             f"tune --train cannot train its trials")
        needed = tuple(n[len("value_"):] for n in strong if n.startswith("value_"))
        cfg = replace(cfg, strong=replace(cfg.strong, mechanics=needed))
    if scn.sweep:
        raise ValueError(f"{scn.source}: [sweep] and [tune] together: tune searches the "
                         f"[tune] settings itself; remove [sweep] (or --set it away)")
    out = Path(out)
    t0 = time.perf_counter()
    started = datetime.now(UTC).isoformat(timespec="seconds")
    if (out / "manifest.json").exists() and not (out / "study.db").exists():
        raise TuneError(f"{out}: holds another run's results; choose another --out")
    player = _Player(workers or 1, scheduler)  # an unreachable scheduler stops here
    try:
        study, key = _open_study(out, scn, cfg, resume)
    except BaseException:
        player.close()
        raise
    manifest_path = out / "manifest.json"
    if manifest_path.exists():
        started = json.loads(manifest_path.read_text()).get("started", started)
    sampler = sampler_name(scn.tune)
    manifest = {"command": "tune", "key": key, "status": "running", "started": started,
                "scenario": {"name": scn.name, "source": scn.source, "kind": scn.kind,
                             "fingerprint": scn.fingerprint(), "text": scn.text},
                "config": asdict(cfg), "sampler": sampler, "pruner": "successive halving",
                "rungs": _rungs(cfg), "chunk": _chunk_size(cfg),
                "versions": versions(), "git": git_revision()}
    atomic_write(manifest_path, json.dumps(_jsonable(manifest), indent=2))
    reused = len(_finished(study))
    distributions = _distributions(scn.tune)
    total = cfg.trials + cfg.top
    played = 0
    try:
        if progress:
            progress(min(reused, cfg.trials), total, 0)
        while (done := len(_finished(study))) < cfg.trials:
            played += _run_trial(study, scn, cfg, player, done, distributions, sampler)
            if progress:
                progress(done + 1, total, played)

        complete = sorted((t for t in _finished(study) if t.state == TrialState.COMPLETE),
                          key=lambda t: (t.value, t.number))
        seen, candidates = set(), []
        for t in complete:
            if t.user_attrs.get("key") not in seen:
                seen.add(t.user_attrs.get("key"))
                candidates.append(t)
        candidates = candidates[:cfg.top]
        if not candidates:
            raise TuneError("every trial was pruned or failed; nothing to re-run")
        reruns = _rerun(scn, cfg, player, candidates)
        played += int(reruns["matches"].sum())
        if progress:
            progress(total, total, played)
    finally:
        player.close()
    best = reruns.iloc[0]
    chosen = next(t for t in candidates if t.number == int(best["trial"]))
    params = {a.name: chosen.params[a.name] for a in scn.tune}  # as Optuna gave them: ints stay ints
    targets = target_table(scn.target_specs, best.to_dict())
    trials = trials_frame(study, scn)
    trials["rerun_objective"] = trials["trial"].map(dict(zip(reruns["trial"],
                                                             reruns["objective"], strict=True)))
    trials.to_parquet(out / "trials.parquet", index=False)
    reruns.to_parquet(out / "reruns.parquet", index=False)
    note = (f"best of {len(_finished(study))} trials after re-running the top {len(reruns)} on fresh "
            f"seeds: distance to targets {best['objective']:.3g} "
            f"(95% interval {best['objective_low']:.3g} to {best['objective_high']:.3g})")
    atomic_write(out / "best.toml", best_toml(scn, params, note, chosen.user_attrs.get("field")))
    importances, method = _importances(study)
    seconds = time.perf_counter() - t0
    n_pruned = int((trials["state"] == "pruned").sum())
    manifest.update(
        status="finished", ended=datetime.now(UTC).isoformat(timespec="seconds"),
        best={"params": params, "trial": int(best["trial"]), "objective": best["objective"],
              "objective_low": best["objective_low"], "objective_high": best["objective_high"]},
        targets=targets.to_dict("records"), importances=importances,
        importance_method=method,
        totals={"trials": int(len(_finished(study))), "pruned": n_pruned, "reused": reused,
                "matches_this_call": played, "seconds_this_call": seconds})
    atomic_write(manifest_path, json.dumps(_jsonable(manifest), indent=2))
    return TuneResult(out, params, int(best["trial"]), float(best["objective"]),
                      float(best["objective_low"]), float(best["objective_high"]), targets,
                      len(_finished(study)), reused, n_pruned, played, seconds, sampler,
                      {"best": out / "best.toml", "trials": out / "trials.parquet",
                       "reruns": out / "reruns.parquet", "manifest": manifest_path,
                       "study": out / "study.db"})
