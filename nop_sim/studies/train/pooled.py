"""A strong field pooled from several trainings: ``nop-sim train --seeds K``.

One training's field is one equilibrium of its own population's meta-game,
found from one seed; another seed finds another (a game can have families of
equilibria), and a value measured against one field may be that field's, not
the rules'. So ``--seeds K`` trains K times, with seeds ``seed, seed + 1, ...,
seed + K - 1``, each a full training of ``--budget-matches`` into
``OUT/seed-<s>/`` (an ordinary training folder: ``nop-sim train --seed s --out
OUT/seed-<s>`` writes the same), then pools them:

1. The pool: every distinct row of every training's population (the
   scenario's seats, which start every training, once).
2. Its meta-game's table: every training's own table (a match whose seats all
   played population rows is a sample of a profile of pooled members, whoever
   played it), and :data:`POOL_TABLE` of the trainings' budget played anew
   where the solution is read: every member in one seat against the
   solution's draws (the trainer's sampling), :data:`STEPS` times, solved
   after each. A meta-game holds at most :func:`meta_cap` members (its tensor
   has ``members ** players`` cells): the members of the trainings' fields
   first, heaviest in the mean of those fields, then each training's newest
   responses in turn.
3. The rule, :data:`RULE`: the symmetric mixture of least regret found on the
   table (:func:`~nop_sim.studies.train.meta.solve`), the rule each training's
   own field is solved by. Not replicator dynamics, projected or not: its
   time average left 2 to 7 points of regret in a training's own tables (a
   member beat the field by that much). Not a correlated equilibrium
   (JPSRO's maximum-entropy one): it is a joint draw of all seats, and a
   strong.toml is a mixture each seat draws from alone.
4. Two halves: the trainings of the first ``ceil(K / 2)`` seeds (``half-a``)
   and of the others (``half-b``), each the meta-game of its own trainings'
   members only, sampled where its own solution is read and solved by the same
   rule on the same table (its profiles of those members): two fields that
   share no training seed (the scenario's seats, which start every training,
   may be in both).
5. The pooled field is measured as a training's is: one free search with a
   seed of its own (:func:`~nop_sim.studies.train.search.best_response`) of
   :data:`~nop_sim.studies.train.trainer.FINAL_BUDGET` of one training's
   budget, the least a training's own final search is given; its pick's
   checked gain, a lower bound, goes into ``strong.toml``. The halves are not
   searched: ``nop-sim exploit SCENARIO --strong OUT/half-a`` measures one.

So the pool plays ``POOL_TABLE * K + FINAL_BUDGET`` budgets beyond its
trainings' (0.7 of one training's budget at K = 4).

A pooled field is no better hardened than its table: a training's last field has met
the best responses to its forerunners, a mixture of the pool found afterwards has met
none. Measured on the baseline at 2 x 100,000 matches: the trainings' own final
searches found 2.4 and 7.8 points, the pooled field's 14.2 (95% 13.0 to 15.5, a
26,834-match search). On three-player Kuhn poker at 2 x 20,000 (exact figures), the
pool's exact restricted equilibrium gained 0.073 chips a seat where the trainings'
fields gained 0.122 and 0.240, but the mixture solved from the sampled table gained
0.382: the table, not the pool, was the limit.

The folder: ``strong.toml`` (the pooled field; its ``[training.pool]`` names
the rule, the seeds, their folders and each one's stated exploitability),
``half-a/strong.toml`` and ``half-b/strong.toml`` (fields ``nop-sim exploit``
and ``nop-sim value`` take as they take a training folder; ``[training.pool]``
names their seeds), ``deviations.json`` (the final search's pick, where it
beats the pooled field: :mod:`.known`), ``pool.json`` (the checkpoint: the pool,
its table, each field's solution), ``manifest.json`` (kind ``train-pool``) and
the report. Each training resumes as a training does, and one that is finished
is read, not replayed; the pool's steps are checkpointed in ``pool.json`` and
seeded by ``(seed, POOL_KEY, step, ...)``, so a resumed pool plays what an
uninterrupted one would have. Trainings that went on (a larger budget) are
pooled again.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from nop_sim.games.registry import PolicySpace, policy_of
from nop_sim.reporting import atomic_write
from nop_sim.run.provenance import versions
from nop_sim.studies.train.errors import TrainError
from nop_sim.studies.train.known import field_key, record_deviation
from nop_sim.studies.train.meta import ProfileTable, max_members
from nop_sim.studies.train.play import Engine, Field
from nop_sim.studies.train.search import SearchConfig, best_response, statement
from nop_sim.studies.train.space import space_for
from nop_sim.studies.train.trainer import (
    FINAL_BUDGET,
    FINAL_SHARE,
    TrainConfig,
    _Population,  # a pool's meta-game is sampled and solved as a training's is
    check_folder,
    presets,
    rules_key,
    start_population,
    train_folder,
)
from nop_sim.studies.train.value import HALVES

__all__ = ["KIND", "POOL_TABLE", "RULE", "PoolResult", "meta_cap", "pool_folder",
           "seed_folder", "source_statement"]

KIND = "train-pool"       # manifest.json's kind
POOL_VERSION = 1
POOL_TABLE = 0.10         # the pool's new table matches, a share of the trainings' budget
STEPS = 3                 # samples of each meta-game, each solved after
POOL_KEY = 3 * 10**9      # the pool's seeds (seed, POOL_KEY, ...): no training's or value's
POOL_CELLS = 400_000      # a pooled meta-game's tensor at most: 24 members at 4 seats,
# whose table and solution take about 4 s (32 members took 30 s)
RULE = ("the symmetric mixture of least regret found on the meta-game's table "
        "(nop_sim.studies.train.meta.solve: Nash's function minimised by L-BFGS-B from 8 "
        "starts, the uniform mixture, replicator dynamics' time average and 6 seeded random "
        "ones; weights under 0.02 dropped), the rule each training's own field is solved by")
RULE_LINES = ("the symmetric mixture of least regret found on the meta-game's table\n"
              "(meta.solve: Nash's function minimised from 8 starts, the uniform mixture, "
              "replicator dynamics'\ntime average and 6 seeded random ones; weights under "
              "0.02 dropped), as each training's field is solved")
_SEED_DIR = re.compile(r"seed-\d+")


def seed_folder(out: Path, seed: int) -> Path:
    """The folder of the pool's training of ``seed``."""
    return Path(out) / f"seed-{seed}"


def meta_cap(players: int) -> int:
    """How many members a pooled meta-game holds: at most 24, and its tensor
    (``members ** players`` cells) at most :data:`POOL_CELLS`; never fewer than a training's
    (:func:`~nop_sim.studies.train.meta.max_members`)."""
    return max(max_members(players), min(24, int(math.floor(POOL_CELLS ** (1.0 / players)))))


def halves(seeds: Sequence[int]) -> dict[str, list[int]]:
    """The seeds of each half: the first ``ceil(K / 2)`` and the others."""
    cut = (len(seeds) + 1) // 2
    return {HALVES[0]: list(seeds[:cut]), HALVES[1]: list(seeds[cut:])}


@dataclass
class _Source:
    """One training of the pool: its seed, folder, checkpoint and strong.toml's
    ``[training]`` (with any check ``nop-sim exploit`` recorded there since)."""

    seed: int
    folder: Path
    state: dict
    training: dict

    def field(self) -> tuple[list[int], list[float]]:
        fin = self.state["final"]
        return [int(m) for m in fin["members"]], [float(w) for w in fin["weights"]]

    def digest(self) -> dict:
        """What the pool built from it depends on: a training that went on is another."""
        fin = self.state["final"]
        return {"seed": self.seed, "spent": int(self.state["spent"]),
                "round": int(self.state["round"]), "population": len(self.state["population"]),
                "final": [fin["exploitability"], fin["low"], fin["high"], fin["members"],
                          fin["weights"]]}

    def summary(self, out: Path) -> dict:
        """Its line of the pool's ``[training.pool]``: its stated exploitability (and any
        independent check's), its field and its size."""
        tr = self.training
        said = {"seed": self.seed, "folder": _relative(self.folder, out),
                "matches": int(self.state["spent"]), "rounds": int(self.state["round"]),
                "mixture": len(self.field()[0]), "population": len(self.state["population"]),
                "converged": bool(self.state["converged"])}
        for key in ("exploitability", "exploitability_low", "exploitability_high",
                    "search_matches", "search_starts", "checked_exploitability", "checked_low", "checked_high",
                    "checked_by", "exact_gain_per_seat", "exact_nash_conv"):
            if tr.get(key) is not None:
                said[key] = tr[key]
        return said


def _kept_checks(path: Path, policy: PolicySpace, fld: Field) -> dict:
    """The independent check ``nop-sim exploit`` recorded in ``path`` (``checked_*``), where
    the file still holds the field ``fld``: a pool read back rewrites its files and must not
    drop what was found against them since."""
    try:
        f = policy.read_agent_file(path)
        old = Field.of(np.stack([policy.agent_row(r) for r in f.rows]), f.weights)
    except (OSError, ValueError):
        return {}
    if field_key(old) != field_key(fld):
        return {}
    return {k: v for k, v in f.training.items() if k.startswith("checked_")}


def _checked_line(training: dict) -> str:
    if "checked_exploitability" not in training:
        return ""
    unit = training.get("unit", "points")
    d = training.get("unit_digits", 1)
    by = training.get("checked_by")
    return (f"\nAn independent check found: a deviation gains at least "
            f"{training['checked_exploitability']:.{d}f} {unit}" + (f" ({by})" if by else ""))


def _relative(path: Path, out: Path) -> str:
    try:
        return Path(path).relative_to(out).as_posix()
    except ValueError:
        return Path(path).as_posix()


@dataclass
class PoolResult:
    """The pooled field and its halves, as :func:`pool_folder` wrote them."""

    seeds: list[int]
    folders: list[Path]
    trained: list[Path]           # the trainings that played this time (the rest were read)
    rows: np.ndarray              # the pooled field (K, parameters) and its weights
    weights: np.ndarray
    halves: dict[str, dict]       # name -> {"seeds", "rows", "weights", "path"}
    population: int               # distinct rows in the pool
    meta_members: int             # of them in the pooled meta-game
    exploitability: float         # the game's unit, the final search's checked gain
    exploitability_low: float
    exploitability_high: float
    final_matches: int
    final_starts: int
    sources: list[dict]           # each training's line of [training.pool]
    matches: int                  # every match, the trainings' and the pool's
    seconds: float
    converged: bool
    policy: PolicySpace
    path: Path                    # the pooled strong.toml
    exact: dict | None = None

    @property
    def statement(self) -> str:
        s = self.policy.scale
        return statement(self.exploitability / s, self.exploitability_low / s,
                         self.exploitability_high / s, self.final_matches, self.final_starts,
                         self.policy)


# -- checks before anything is written --------------------------------------------------------
def _identity(scns: Sequence, cfg: TrainConfig) -> dict:
    """What a pool asked is: the scenario (its first seed's fingerprint), the seeds and
    what the trainings and the pool are asked."""
    return {"fingerprint": scns[0].fingerprint(), "seeds": [int(s.seed) for s in scns],
            "budget": cfg.budget, "epsilon": cfg.epsilon, "search": asdict(cfg.search),
            "meta_matches": cfg.meta_matches, "version": POOL_VERSION}


def _check_out(out: Path, identity: dict, resume: bool) -> dict | None:
    """``out``'s pool checkpoint (None: none yet); raises :class:`TrainError` where ``out``
    holds something else, or a pool asked otherwise that ``resume`` does not allow."""
    if out.exists() and not out.is_dir():
        raise TrainError(f"{out} is not a folder")
    manifest = out / "manifest.json"
    if manifest.is_file():
        try:
            kind = json.loads(manifest.read_text()).get("kind", "run")
        except (ValueError, AttributeError):
            kind = "unreadable"
        if kind != KIND:
            what = ("a training of one seed (nop-sim train without --seeds)" if kind == "train"
                    else f"a {kind} folder")
            raise TrainError(f"{out} holds {what}, not a pooled training; train into another "
                             f"--out")
    path = out / "pool.json"
    if not path.is_file():
        stray = sorted(p.name for p in out.iterdir()
                       if not p.name.startswith(".nop-sim")
                       and not (p.is_dir() and _SEED_DIR.fullmatch(p.name))) \
            if out.is_dir() else []
        if stray:
            raise TrainError(f"{out} is not empty and holds no pooled training ("
                             f"{', '.join(stray[:3])}{', ...' if len(stray) > 3 else ''}); "
                             f"give another --out")
        return None
    try:
        state = json.loads(path.read_text())
        old = state["identity"]
        if not isinstance(old.get("seeds"), list) or "fingerprint" not in old:
            raise KeyError("identity")
    except (ValueError, KeyError, TypeError) as exc:
        raise TrainError(f"{path}: not a pooled training's checkpoint ({exc}); remove the "
                         f"folder or train into another --out") from None
    fixed = ("fingerprint", "search", "meta_matches", "version")
    diff = [k for k in fixed if old.get(k) != identity[k]]
    if old["seeds"][:1] != identity["seeds"][:1]:
        diff.insert(1, "seed")
    if diff:
        raise TrainError(f"{out} holds another pooled training (differs in {', '.join(diff)}); "
                         f"train into another --out, or remove the folder")
    if not resume and state.get("final") is None:
        raise TrainError(f"{out} holds an unfinished pooled training: add --resume to finish "
                         f"it, or train into another --out")
    if not resume and old != identity:
        raise TrainError(f"{out} holds a pooled training of seeds {_seeds_said(old['seeds'])} "
                         f"at {old['budget']:,} matches each, epsilon {old['epsilon']:g}: add "
                         f"--resume to pool again with these seeds, budget and epsilon, or "
                         f"train into another --out")
    return state


def _seeds_said(seeds: Sequence[int]) -> str:
    return ", ".join(str(s) for s in seeds)


# -- the pool ---------------------------------------------------------------------------------
def _pool(sources: Sequence[_Source], start: np.ndarray) -> dict:
    """Every distinct row of the sources' populations, in their order: ``population``,
    ``origin`` (each row's labels, ``"seed s: label"``), ``seeds`` (the trainings that hold
    it), ``start`` (a seat of the scenario, which starts every training) and ``ids`` (each
    source's population as pool members)."""
    rows: list[list[float]] = []
    where: dict[tuple, int] = {}
    origin: list[list[str]] = []
    held: list[list[int]] = []
    ids: list[list[int]] = []
    for src in sources:
        mine = []
        for row, label in zip(src.state["population"], src.state["labels"], strict=True):
            key = tuple(float(x) for x in row)
            if key not in where:
                where[key] = len(rows)
                rows.append(list(key))
                origin.append([])
                held.append([])
            i = where[key]
            origin[i].append(f"seed {src.seed}: {label}")
            if src.seed not in held[i]:
                held[i].append(src.seed)
            mine.append(i)
        ids.append(mine)
    starts = {tuple(float(x) for x in r) for r in np.asarray(start, float).tolist()}
    return {"population": rows, "origin": origin, "seeds": held,
            "start": [tuple(r) in starts for r in rows], "ids": ids}


def _meta_members(sources: Sequence[_Source], ids: Sequence[Sequence[int]], cap: int
                  ) -> tuple[list[int], dict[int, float]]:
    """The members a meta-game of ``sources`` holds (pool ids, sorted), and the mean of
    the sources' fields: their field members first, heaviest in that mean, then each
    source's newest responses in turn, ``cap`` at most."""
    mean: dict[int, float] = {}
    for src, mine in zip(sources, ids, strict=True):
        for m, w in zip(*src.field(), strict=True):
            mean[mine[m]] = mean.get(mine[m], 0.0) + w / len(sources)
    order = sorted((i for i in mean if mean[i] > 0), key=lambda i: (-mean[i], i))
    for depth in range(max(len(m) for m in ids)):
        order += [mine[-1 - depth] for mine in ids if depth < len(mine)]
    return sorted(list(dict.fromkeys(order))[:cap]), mean


def _sample_and_solve(pop: _Population, members: list[int], engine: Engine, settings,
                      n: int, key: tuple[int, ...]) -> dict:
    """The meta-game of ``members`` on ``pop``'s table: solved, then :data:`STEPS` times
    sampled where its solution is read (``n`` matches in all) and solved again; the
    matches played go into ``pop.state["spent"]``."""
    st = pop.state
    st["members"] = [int(m) for m in members]
    st["sigma"] = [1.0 / len(members)] * len(members)
    pop.solve()
    before = st["spent"]
    for i in range(STEPS):
        engine.matches = 0
        st["spent"] += pop.sample(engine, settings, max(1, n // STEPS), (*key, i))
        pop.solve()
    return {"members": list(st["members"]), "sigma": [float(x) for x in st["sigma"]],
            "meta_regret": float(st["meta_regret"]), "matches": int(st["spent"] - before)}


def _read_source(seed: int, folder: Path) -> _Source:
    state = json.loads((folder / "state.json").read_text())
    try:
        training = tomllib.loads((folder / "strong.toml").read_text()).get("training", {})
    except (OSError, ValueError):
        training = {}
    return _Source(seed, folder, state, dict(training))


def pool_folder(scns: Sequence, out: Path, cfg: TrainConfig, *, threads: int | None = None,
                scheduler: str | None = None, resume: bool = False,
                progress: Callable[[int, int], None] | None = None) -> PoolResult:
    """Train one training per scenario of ``scns`` (the same scenario with seeds ``seed,
    seed + 1, ...``: each ``scn.seed``) into ``out/seed-<s>/``, pool them and write the
    pooled field and its halves into ``out`` (see the module docstring). ``cfg``: each
    training's budget, epsilon and search (its seed is each scenario's). Every folder is
    checked before anything is written: a folder that holds something else, another
    training, or an unfinished one without ``resume`` raises :class:`TrainError`."""
    out = Path(out)
    if len(scns) < 2:
        raise ValueError(f"--seeds {len(scns)}: a pool needs at least 2 trainings")
    if len(scns[0].points()) > 1:
        raise ValueError(f"{scns[0].source}: has a [sweep] of {len(scns[0].points())} points; "
                         f"train one rule set (remove [sweep]) or use nop-sim sweep --train")
    seeds = [int(s.seed) for s in scns]
    cfgs = [TrainConfig(budget=cfg.budget, epsilon=cfg.epsilon, seed=s, search=cfg.search,
                        meta_matches=cfg.meta_matches, max_rounds=cfg.max_rounds)
            for s in seeds]
    folders = [seed_folder(out, s) for s in seeds]
    identity = json.loads(json.dumps(_identity(scns, cfg)))
    saved = _check_out(out, identity, resume)
    # every training's folder, before any is written: one that cannot take its training
    # stops the pool here, with nothing written over
    todo = []
    for scn, c, folder in zip(scns, cfgs, folders, strict=True):
        state = check_folder(scn, folder, c, resume)
        limits = (state or {}).get("limits", {})
        done = (state is not None and state.get("final") is not None
                and c.budget <= limits.get("budget", c.budget)
                and c.epsilon >= limits.get("epsilon", c.epsilon))
        todo.append(not done)
    out.mkdir(parents=True, exist_ok=True)
    k, budget = len(scns), cfg.budget
    table_total = int(POOL_TABLE * k * budget)
    total = k * budget + table_total + int(FINAL_BUDGET * budget)

    def say(done: int) -> None:
        if progress is not None:
            progress(min(done, total), total)

    trained = []
    for i, (scn, c, folder) in enumerate(zip(scns, cfgs, folders, strict=True)):
        if todo[i]:
            train_folder(scn, folder, c, threads=threads, scheduler=scheduler, resume=resume,
                         progress=lambda d, _t, base=i * budget: say(base + d))
            trained.append(folder)
        say((i + 1) * budget)
    sources = [_read_source(s, f) for s, f in zip(seeds, folders, strict=True)]
    settings = scns[0].settings_at(scns[0].points()[0])
    digests = [src.digest() for src in sources]
    state = saved if saved is not None and saved.get("sources") == digests \
        and saved["identity"] == identity else None
    engine = Engine(threads=threads, scheduler=scheduler)
    try:
        state = _pool_steps(scns[0], sources, settings, cfg, engine, out, identity, digests,
                            table_total, state, lambda spent: say(k * budget + spent))
    finally:
        engine.close()
    return _write(scns[0], out, cfg, sources, state, settings, trained)


def _pool_steps(scn, sources: list[_Source], settings, cfg: TrainConfig, engine: Engine,
                out: Path, identity: dict, digests: list[dict], table_total: int,
                state: dict | None, tick: Callable[[int], None]) -> dict:
    """The pool's steps, each checkpointed in ``pool.json``: the pooled meta-game, each
    half's, the final search; a step done is read, not played again. ``tick`` is told
    the pool's matches as they are played."""
    players = settings.players
    policy = policy_of(settings)
    scale = policy.scale
    seeds = [src.seed for src in sources]
    seed0 = seeds[0]
    if state is None:
        pool = _pool(sources, start_population(scn)[0])
        state = {"identity": identity, "sources": digests, "rule": RULE,
                 **{key: pool[key] for key in ("population", "origin", "seeds", "start",
                                               "ids")},
                 "members": [], "sigma": [], "table": [], "fields": {}, "final": None,
                 "spent": 0, "seconds": 0.0, "engine_seconds": 0.0, "hands": 0,
                 "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
        merged = ProfileTable(players)
        for src, mine in zip(sources, pool["ids"], strict=True):
            merged.absorb(ProfileTable.from_json(players, src.state["table"]), mine)
        state["table"] = merged.to_json()
    pop = _Population(state, players, scale)
    engine.on_play = lambda: tick(state["spent"] + engine.matches)
    cap = meta_cap(players)
    path = out / "pool.json"

    def save() -> None:
        atomic_write(path, json.dumps(state, indent=1))

    def clocked(step: Callable[[], None]) -> None:
        e0, h0, t0 = engine.engine_seconds, engine.hands, time.perf_counter()
        step()
        state["seconds"] += time.perf_counter() - t0  # the pool's own (a training keeps its)
        state["engine_seconds"] += engine.engine_seconds - e0
        state["hands"] += engine.hands - h0
        save()

    groups = {"pool": list(range(len(sources))),
              **{name: [seeds.index(s) for s in part]
                 for name, part in halves(seeds).items()}}
    shares = {"pool": 0.5, HALVES[0]: 0.25, HALVES[1]: 0.25}
    for step, (name, which) in enumerate(groups.items()):
        if name in state["fields"]:
            continue
        members, mean = _meta_members([sources[i] for i in which],
                                      [state["ids"][i] for i in which], cap)

        def solve_group(name=name, members=members, mean=mean, which=which, step=step):
            got = _sample_and_solve(pop, members, engine, settings,
                                    int(shares[name] * table_total), (seed0, POOL_KEY, step))
            state["fields"][name] = {**got, "seeds": [seeds[i] for i in which],
                                     "fields_mean": {str(m): w for m, w in sorted(mean.items())}}

        clocked(solve_group)
    if state["final"] is None:
        clocked(lambda: _final_search(state, sources, settings, cfg, engine, seed0))
    return state


def _final_search(state: dict, sources: list[_Source], settings, cfg: TrainConfig,
                  engine: Engine, seed0: int) -> None:
    """The pooled field's check, as a training's final search: one free search from every
    row of the pool and the presets, :data:`FINAL_BUDGET` of one training's budget."""
    policy = policy_of(settings)
    space = space_for(settings)
    fld = _field_of(state, "pool")
    rows = np.asarray(state["population"], float)
    starts = np.concatenate([rows, presets(settings)])
    search = SearchConfig(**{k: tuple(v) if isinstance(v, list) else v
                             for k, v in sources[0].state["search"].items()})

    def cost(s: SearchConfig) -> int:
        return s.cost(space.dim, settings.players, len(starts), mechanics=len(space.mechanics))

    final = max(search.scaled(FINAL_SHARE), search.fitted(cost, FINAL_BUDGET * cfg.budget),
                key=cost)
    engine.matches = 0
    res = best_response(engine, settings, space, fld, starts, (seed0, POOL_KEY, 10**9), final,
                        float("nan"), tag={"round": "pool"})
    scale = policy.scale
    state["spent"] += res.matches
    state["final"] = {"exploitability": scale * res.gain, "low": scale * res.low,
                      "high": scale * res.high, "check_matches": res.n_check,
                      "matches": res.matches, "starts": res.starts,
                      "deviation": res.row.tolist()}


def _field_of(state: dict, name: str) -> Field:
    f = state["fields"][name]
    rows = np.asarray(state["population"], float)
    return Field.of(rows[f["members"]], f["sigma"], f["members"])


# -- the files ---------------------------------------------------------------------------------
def _write(scn, out: Path, cfg: TrainConfig, sources: list[_Source], state: dict, settings,
           trained: list[Path]) -> PoolResult:
    policy = policy_of(settings)
    unit, d = policy.unit, policy.digits
    seeds = [src.seed for src in sources]
    units = ({"unit": policy.unit, "unit_digits": policy.digits}
             if (policy.unit, policy.scale) != ("points", 100.0) else {})
    said = [src.summary(out) for src in sources]
    fin = state["final"]
    fld = _field_of(state, "pool")
    pooled = state["fields"]["pool"]
    exact = None
    if policy.exact_exploitability is not None:  # the game knows its fields exactly
        exact = dict(policy.exact_exploitability(settings, fld.rows, fld.weights))
    matches = sum(src.state["spent"] for src in sources) + state["spent"]
    converged = bool(all(src.state["converged"] for src in sources)
                     and fin["high"] < cfg.epsilon)
    training = {
        "scenario": scn.name, "fingerprint": scn.fingerprint(), "rules": rules_key(settings),
        "matches": int(matches), "mixture": int(len(fld.weights)),
        "population": len(state["population"]),
        "exploitability": round(fin["exploitability"], 3),
        "exploitability_low": round(fin["low"], 3),
        "exploitability_high": round(fin["high"], 3),
        "search_matches": int(fin["matches"]), "search_starts": int(fin["starts"]),
        "searches_pooled": 1,
        "exploitability_is": "a lower bound: the gain of the best deviation a fresh search "
                             "found, checked on fresh matches",
        "epsilon": cfg.epsilon, "converged": converged, **units,
        **{f"exact_{k}": round(float(v), 6) for k, v in (exact or {}).items()},
        "pool": {"rule": RULE, "seeds": seeds, "folders": [s["folder"] for s in said],
                 "meta_members": len(pooled["members"]),
                 "table_matches": int(ProfileTable.from_json(settings.players,
                                                             state["table"]).matches()),
                 "meta_regret": round(pooled["meta_regret"], 6),
                 "halves": {h: state["fields"][h]["seeds"] for h in HALVES},
                 "sources": said},
    }
    head = (f"The strong field for {scn.name}, pooled by nop-sim train --seeds {len(seeds)}: a "
            f"mixture of {len(fld.weights)} policy row(s)\n"
            f"of a pool of {len(state['population'])} distinct policies from {len(seeds)} "
            f"trainings, each seat drawing its row for each match by weight.\n"
            f"Rule: {RULE_LINES}.\n"
            f"The meta-game holds {len(pooled['members'])} of the pool's policies; the "
            f"mixture's regret on its table: {pooled['meta_regret']:.{d + 1}f} {unit}.\n"
            f"Sources (each one's stated exploitability):\n"
            + "".join(f"  seed {s['seed']} ({s['folder']}/): {source_statement(s, policy)}\n"
                      for s in said)
            + f"Pooled field: {_pooled_statement(fin, policy)}.\n"
            + ("" if not exact else
               f"Exactly: NashConv {policy.amount(exact['nash_conv'] / policy.scale)} per hand; "
               f"the best single-seat deviation gains "
               f"{policy.amount(exact['gain_per_seat'] / policy.scale)} per hand.\n")
            + "Its halves share no training seed: "
            + "; ".join(f"{h}/ (seeds {_seeds_said(state['fields'][h]['seeds'])})"
                        for h in HALVES) + ".\n"
            "Use it as a seat: [seats] all = \"@<path of this file>\", or\n"
            "nop-sim run SCENARIO --set seats.all=@<path of this file>")
    path = out / "strong.toml"
    training.update(_kept_checks(path, policy, fld))
    policy.write_agent_file(path, fld.rows, fld.weights, training, head + _checked_line(training))
    if policy.write_extra is not None:  # the game's own files of the field (Kuhn: policy.csv)
        policy.write_extra(out, fld.rows, fld.weights)
    if fin["low"] > 0:  # value's searches start from it (.known)
        record_deviation(out, fld, space_for(settings).columns,
                         np.asarray(fin["deviation"], float), fin["exploitability"],
                         fin["low"], fin["high"],
                         f"nop-sim train --seeds {len(seeds)} --seed {seeds[0]} "
                         f"--budget-matches {cfg.budget}: the pooled field's "
                         f"{fin['matches']:,}-match search from {fin['starts']} starts")
    half_out = {}
    for h in HALVES:
        half_out[h] = _write_half(scn, out, h, state, sources, settings, units)
    manifest = {
        "kind": KIND, "scenario": {"name": scn.name, "source": scn.source, "kind": scn.kind,
                                   "text": scn.text, "fingerprint": scn.fingerprint()},
        "seeds": seeds, "config": asdict(cfg), "rule": RULE,
        "training": training, "exact": exact,
        "pool": {"population": len(state["population"]), "meta_cap": meta_cap(settings.players),
                 "origin": state["origin"],
                 "seeds": state["seeds"], "start": state["start"],
                 "fields": {name: {k: f[k] for k in ("members", "sigma", "meta_regret",
                                                     "matches", "seeds")}
                            for name, f in state["fields"].items()},
                 "final": {k: v for k, v in fin.items() if k != "deviation"}},
        "throughput": {"seconds": sum(src.state["seconds"] for src in sources)
                       + state["seconds"],
                       "engine_seconds": sum(src.state["engine_seconds"] for src in sources)
                       + state["engine_seconds"],
                       "matches": int(matches),
                       "hands": int(sum(src.state["hands"] for src in sources)
                                    + state["hands"])},
        "versions": versions(), "started": state["started"],
        "ended": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "status": "finished",
    }
    atomic_write(out / "manifest.json", json.dumps(manifest, indent=1, default=float))
    return PoolResult(seeds=seeds, folders=[src.folder for src in sources], trained=trained,
                      rows=fld.rows, weights=fld.weights, halves=half_out,
                      population=len(state["population"]),
                      meta_members=len(pooled["members"]),
                      exploitability=fin["exploitability"], exploitability_low=fin["low"],
                      exploitability_high=fin["high"], final_matches=int(fin["matches"]),
                      final_starts=int(fin["starts"]), sources=said, matches=int(matches),
                      seconds=float(manifest["throughput"]["seconds"]), converged=converged,
                      policy=policy, path=path, exact=exact)


def source_statement(s: dict, policy: PolicySpace) -> str:
    """A source's stated exploitability (its line of ``[training.pool]``) in words: its
    final search's, and any independent check's that found more."""
    if "exploitability" not in s:
        return "its exploitability is unknown"
    sc = policy.scale
    text = statement(s["exploitability"] / sc, s.get("exploitability_low", np.nan) / sc,
                     s.get("exploitability_high", np.nan) / sc, int(s.get("search_matches", 0)),
                     int(s.get("search_starts", 0)), policy)
    if "checked_exploitability" in s:
        text += (f"; an independent check found more: a deviation gains at least "
                  f"{policy.amount(s['checked_exploitability'] / sc)}")
    return text


def _pooled_statement(fin: dict, policy: PolicySpace) -> str:
    s = policy.scale
    return statement(fin["exploitability"] / s, fin["low"] / s, fin["high"] / s,
                     int(fin["matches"]), int(fin["starts"]), policy)


def _write_half(scn, out: Path, name: str, state: dict, sources: list[_Source], settings,
                units: dict) -> dict:
    """``out/<name>/strong.toml``: the half's field, with a ``[training]`` naming its
    seeds; no exploitability (no search was made against it)."""
    policy = policy_of(settings)
    f = state["fields"][name]
    fld = _field_of(state, name)
    mine = [src for src in sources if src.seed in f["seeds"]]
    members = {m for i, src in enumerate(sources) if src.seed in f["seeds"]
               for m in state["ids"][i]}
    exact = None
    if policy.exact_exploitability is not None:
        exact = dict(policy.exact_exploitability(settings, fld.rows, fld.weights))
    training = {
        "scenario": scn.name, "fingerprint": scn.fingerprint(), "rules": rules_key(settings),
        "matches": int(sum(src.state["spent"] for src in mine)),
        "mixture": int(len(fld.weights)), "population": len(members),
        "exploitability_is": "not measured: no search was made against this field; "
                             "nop-sim exploit measures it",
        **units, **{f"exact_{k}": round(float(v), 6) for k, v in (exact or {}).items()},
        "pool": {"rule": RULE, "half": name, "seeds": list(f["seeds"]),
                 "folders": [f"../{_relative(src.folder, out)}" for src in mine],
                 "meta_members": len(f["members"]),
                 "meta_regret": round(f["meta_regret"], 6)},
    }
    folder = out / name
    folder.mkdir(exist_ok=True)
    path = folder / "strong.toml"
    training.update(_kept_checks(path, policy, fld))
    head = (f"A strong field for {scn.name}: {name} of a pooled training (nop-sim train --seeds, "
            f"the folder above), a mixture\nof {len(fld.weights)} policy row(s) from the "
            f"training(s) of seed(s) {_seeds_said(f['seeds'])} alone: the other half shares "
            f"none of its seeds.\n"
            f"Rule, on its own policies: {RULE_LINES}.\n"
            + ("" if "checked_exploitability" in training else
               "Its exploitability is not measured: nop-sim exploit SCENARIO --strong "
               "<this folder> measures it.\n")
            + "Use it as a seat: [seats] all = \"@<path of this file>\"")
    policy.write_agent_file(path, fld.rows, fld.weights, training, head + _checked_line(training))
    if policy.write_extra is not None:
        policy.write_extra(folder, fld.rows, fld.weights)
    return {"seeds": list(f["seeds"]), "rows": fld.rows, "weights": fld.weights, "path": path,
            "exact": exact}
