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
   rule on the same table (its profiles of those members).
5. Hardening, :data:`HARDEN`: a mixture solved from the pool afterwards has met no
   best response, so each of the three fields goes on as a PSRO (the trainer's
   rounds, :func:`~nop_sim.studies.train.trainer.train_folder`) whose first
   checkpoint is the pool's (:func:`~nop_sim.studies.train.trainer.first_state`): its
   population every policy of its own trainings (the pooled field's: of all), its
   table the pool's matches between those policies, its mixture the pool's solution.
   The pooled field's PSRO plays one training's budget (``OUT/pooled/``), each half's
   half of one (``OUT/half-a/``, ``OUT/half-b/``); each is an ordinary training
   folder, whose rounds add best responses to the field and solve it again, and whose
   final search (at least :data:`~nop_sim.studies.train.trainer.FINAL_BUDGET` of its
   budget, a seed of its own) states the field's exploitability, a lower bound, in its
   ``strong.toml``. Their seeds come after the trainings': ``seed + K`` (the pooled
   field's), ``seed + K + 1`` (half-a's), ``seed + K + 2`` (half-b's)
   (:func:`harden_seeds`), so the halves share no seed, training or PSRO (the
   scenario's seats, which start every training, may be in both).

So the pool plays ``POOL_TABLE * K + 2`` budgets beyond its trainings' (2.4 of one
training's budget at K = 4).

Measured with the search of commit 855edb5, each field checked by ``nop-sim exploit
scenarios/baseline.toml --strong F --seed S --budget-matches 200000`` (a lower bound
each; checks with other seeds differ by up to 14 points). The baseline at 2 x 100,000
matches (``nop-sim train scenarios/baseline.toml --seeds 2 --budget-matches 100000``,
seeds 20261129 and 20261130): both trainings' fields were checked at 39.1 points
(seed 7); with S = 7, 8, 9, the pooled field solved from the pool alone at 32.4, 39.5
and 25.7, hardened at 22.9, 24.9 and 21.9 (its own final search stated 1.3, a
33,106-match search); half-b at 39.1, 48.9 and 42.3, hardened at 27.7, 41.6 and 32.3;
half-a's PSRO found nothing to add and kept its field (32.4, 39.5, 25.7). With
``--seed 5`` (S = 7, 8): the pooled field at 38.8 and 31.6, hardened at 19.2 and 8.5;
half-b at 38.8 and 33.3, hardened at 17.1 and 13.3; half-a kept. Half those PSRO
budgets (0.5 and 0.25 of one training's) left the first pool's fields as exploitable
as before, or more: the pooled field 36.6, 26.8, 24.1; half-a 45.1, 43.6, 44.9;
half-b 51.8, 50.8, 39.9. On three-player Kuhn poker (``nop-sim train
scenarios/kuhn3.toml --seeds K --budget-matches 200000``, K = 2 and 4, ``--seed``
20261203 and 1 to 6: 14 pools, exact NashConv), the pooled field's PSRO kept its field
every time (its rounds' searches found no deviation gaining epsilon; those fields'
NashConv 0.16 to 0.51 chips a hand, the trainings' 0.19 to 0.52); of the 28 halves,
19 were kept, 6 improved (the worst most: 1.00 to 0.49, 0.83 to 0.20, 0.67 to 0.32
and to 0.38) and 3 got worse (0.21 to 0.42, 0.22 to 0.42, 0.23 to 0.24): their mean
NashConv went from 0.39 to 0.34, their median from 0.28 to 0.29.

The folder: ``strong.toml`` (the pooled field; its ``[training.pool]`` names
the rule, the hardening, the seeds, their folders and each one's stated
exploitability), ``pooled/``, ``half-a/`` and ``half-b/`` (each field's PSRO, a
training folder ``nop-sim exploit`` and ``nop-sim value`` take; its
``strong.toml``'s ``[training.pool]`` names the field's training seeds and its PSRO),
``deviations.json`` (the pooled field's final search's pick, where it beats the
field: :mod:`.known`), ``pool.json`` (the checkpoint: the pool, its table, each
field's solution, the PSROs), ``manifest.json`` (kind ``train-pool``) and the report.
Each training and each PSRO resumes as a training does, and one that is finished is
read, not replayed; the pool's steps are checkpointed in ``pool.json`` and seeded by
``(seed, POOL_KEY, step, ...)``, so a resumed pool plays what an uninterrupted one
would have. Trainings that went on (a larger budget) are pooled again, and the
fields' PSROs, which name the pool they started from (``pooled_from`` in their
``state.json``), start again from the new pool.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import re
import shutil
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
from nop_sim.studies.train.search import statement
from nop_sim.studies.train.space import space_for
from nop_sim.studies.train.trainer import (
    TrainConfig,
    _Population,  # a pool's meta-game is sampled and solved as a training's is
    check_folder,
    first_state,
    rules_key,
    start_population,
    train_folder,
)
from nop_sim.studies.train.value import HALVES

__all__ = ["FIELD_DIRS", "HARDEN", "KIND", "POOL_TABLE", "RULE", "PoolResult",
           "field_psro_seed", "harden_seeds", "meta_cap", "pool_folder", "seed_folder",
           "source_statement"]

KIND = "train-pool"       # manifest.json's kind
POOL_VERSION = 2          # 2: each field is hardened by PSRO rounds from the pool
POOL_TABLE = 0.10         # the pool's new table matches, a share of the trainings' budget
STEPS = 3                 # samples of each meta-game, each solved after
POOL_KEY = 3 * 10**9      # the pool's seeds (seed, POOL_KEY, ...): no training's or value's
# each field's PSRO from the pool, a share of one training's budget: one training's budget
# for the pooled field, half of one for each half (0.5 and 0.25 left the baseline's fields
# as exploitable as before: see the module docstring)
HARDEN = {"pool": 1.0, HALVES[0]: 0.5, HALVES[1]: 0.5}
FIELD_DIRS = {"pool": "pooled", HALVES[0]: HALVES[0], HALVES[1]: HALVES[1]}  # their folders
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
HARDENING = ("PSRO rounds (nop-sim train's) from the pool: each field's population starts as "
             "every policy of its trainings, its meta-game and table as the pool's, its "
             "mixture as the pool's solution; one training's budget for the pooled field and "
             "half of one for each half, seeded after the trainings (seed + K, seed + K + 1, "
             "seed + K + 2)")
HARDENING_LINES = ("PSRO rounds from the pool (a population of every policy of its "
                   "trainings, started at the pool's\n"
                   "solution), one training's budget for the pooled field and half of one "
                   "for each half,\nseeded after the trainings")
_SEED_DIR = re.compile(r"seed-\d+")


def seed_folder(out: Path, seed: int) -> Path:
    """The folder of the pool's training of ``seed``."""
    return Path(out) / f"seed-{seed}"


def meta_cap(players: int) -> int:
    """How many members a pooled meta-game holds: at most 24, and its tensor
    (``members ** players`` cells) at most :data:`POOL_CELLS`; never fewer than a training's
    (:func:`~nop_sim.studies.train.meta.max_members`)."""
    return max(max_members(players), min(24, int(math.floor(POOL_CELLS ** (1.0 / players)))))


def harden_seeds(seeds: Sequence[int]) -> dict[str, int]:
    """Each field's PSRO seed: the seeds after the trainings' (``seed + K`` the pooled
    field's, ``seed + K + 1`` half-a's, ``seed + K + 2`` half-b's), so that no two share
    one and none is a training's."""
    after = max(seeds) + 1
    return {name: after + i for i, name in enumerate(HARDEN)}


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
    hardened: list[Path]          # the fields' PSROs that played this time
    rows: np.ndarray              # the pooled field (K, parameters) and its weights
    weights: np.ndarray
    halves: dict[str, dict]       # name -> {"seeds", "rows", "weights", "path", "exact",
    #                               "statement", "seed", "rounds", "folder", ...}
    population: int               # distinct rows in the pool
    meta_members: int             # of them in the pooled meta-game
    exploitability: float         # the game's unit, the final search's checked gain
    exploitability_low: float
    exploitability_high: float
    final_matches: int
    final_starts: int
    sources: list[dict]           # each training's line of [training.pool]
    matches: int                  # every match, the trainings', the pool's and the PSROs'
    seconds: float
    converged: bool
    policy: PolicySpace
    path: Path                    # the pooled strong.toml
    exact: dict | None = None
    harden: dict | None = None    # the pooled field's PSRO: seed, folder, rounds, matches,
    #                               population, and the exact figures of where it started

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
            "meta_matches": cfg.meta_matches, "harden": dict(HARDEN), "version": POOL_VERSION}


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
    fixed = ("fingerprint", "search", "meta_matches", "harden", "version")
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
    seed + 1, ...``: each ``scn.seed``) into ``out/seed-<s>/``, pool them, harden the pooled
    field and each half by PSRO rounds from the pool (:data:`HARDEN`, into
    ``out/<FIELD_DIRS>/``) and write the fields into ``out`` (see the module docstring).
    ``cfg``: each training's budget, epsilon and search (its seed is each scenario's).
    Every folder is checked before anything is written: a folder that holds something
    else, another training, or an unfinished one without ``resume`` raises
    :class:`TrainError`."""
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
    hardening = _harden_configs(cfg, seeds)
    for name in hardening:
        _check_field_folder(out / FIELD_DIRS[name])
    out.mkdir(parents=True, exist_ok=True)
    k, budget = len(scns), cfg.budget
    table_total = int(POOL_TABLE * k * budget)
    total = k * budget + table_total + sum(c.budget for c in hardening.values())
    shown = 0

    def say(done: int) -> None:
        nonlocal shown
        shown = max(shown, min(done, total))  # one bar, never going back
        if progress is not None:
            progress(shown, total)

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
        state = _pool_steps(scns[0], sources, settings, engine, out, identity, digests,
                            table_total, state, lambda spent: say(k * budget + spent))
    finally:
        engine.close()
    say(k * budget + table_total)
    played, fields = _harden(scns[0], out, state, hardening, settings, threads=threads,
                             scheduler=scheduler,
                             tick=lambda d: say(k * budget + table_total + d))
    return _write(scns[0], out, cfg, sources, state, settings, trained, played, fields)


def _harden_configs(cfg: TrainConfig, seeds: Sequence[int]) -> dict[str, TrainConfig]:
    """Each field's PSRO (:data:`HARDEN`): its share of one training's budget, its seed
    (:func:`harden_seeds`), the trainings' epsilon and search."""
    return {name: TrainConfig(budget=max(1, int(HARDEN[name] * cfg.budget)),
                              epsilon=cfg.epsilon, seed=seed, search=cfg.search,
                              meta_matches=cfg.meta_matches, max_rounds=cfg.max_rounds)
            for name, seed in harden_seeds(seeds).items()}


def _own_state(folder: Path) -> dict | None:
    """The checkpoint of a field's PSRO this pool trained into ``folder`` (None: none)."""
    try:
        state = json.loads((Path(folder) / "state.json").read_text())
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) and "pooled_from" in state else None


def field_psro_seed(folder: Path) -> int | None:
    """The seed of the field's PSRO a pool trained into ``folder`` (its ``pooled/``,
    ``half-a/`` or ``half-b/``: seeded after the trainings, not by the scenario), None
    where ``folder`` holds none. ``train --out`` such a folder ``--resume`` goes on under
    it, first admitting the deviations ``nop-sim exploit`` kept against the field;
    ``train --seeds K --resume`` then writes the pool's fields from it."""
    own = _own_state(folder)
    try:
        return None if own is None else int(own["identity"]["seed"])
    except (KeyError, TypeError, ValueError):
        return None


def _check_field_folder(folder: Path) -> None:
    """Raise :class:`TrainError` where ``folder``, a field's PSRO, holds something a pool
    did not train there (what a PSRO killed before its first checkpoint leaves is its:
    its history, temporary files)."""
    if not folder.exists():
        return
    if not folder.is_dir():
        raise TrainError(f"{folder} is not a folder")
    left = [p for p in folder.iterdir()
            if not p.name.startswith(".") and p.name != "history.parquet"]
    if _own_state(folder) is None and left:
        raise TrainError(f"{folder} holds something else than a pooled training's field; "
                         f"move it away, or train into another --out")


def _start(state: dict, name: str, players: int) -> dict:
    """The checkpoint the PSRO of the field ``name`` starts from (:func:`first_state`): its
    population every row of the pool that its trainings hold (the pooled field's: every
    row), its meta-game the pool's members and solution of that field, its table the
    pool's matches between those rows (the trainings' own and the pool's)."""
    f = state["fields"][name]
    mine = set(f["seeds"])
    rows = [i for i, held in enumerate(state["seeds"]) if mine & set(held)]
    new = {m: j for j, m in enumerate(rows)}  # increasing: a profile's order is kept
    whole = ProfileTable.from_json(players, state["table"])
    table = ProfileTable(players, {tuple(new[m] for m in key): st
                                   for key, st in whole.stats.items()
                                   if all(m in new for m in key)})
    population = (np.asarray(state["population"], float)[rows],
                  ["; ".join(state["origin"][m]) for m in rows],
                  np.asarray(f["sigma"], float))
    return first_state(population, members=[new[m] for m in f["members"]], table=table)


def _harden(scn, out: Path, state: dict, hardening: dict[str, TrainConfig], settings, *,
            threads: int | None, scheduler: str | None, tick: Callable[[int], None]
            ) -> tuple[list[Path], dict[str, dict]]:
    """Each field's PSRO from the pool, trained into ``out/<FIELD_DIRS>/`` as a training
    is (resumed where it stopped; read where finished; started again where the pool has
    changed since); its checkpoint names what it started from (``pooled_from``). Returns
    the folders trained now and each field's checkpoint; ``pool.json`` then names the
    pooled field's final search (the pool is finished). ``tick``: matches played so far."""
    played, fields, base = [], {}, 0
    for name, c in hardening.items():
        folder = out / FIELD_DIRS[name]
        start = _start(state, name, settings.players)
        start["pooled_from"] = hashlib.sha256(json.dumps(
            {"start": start, "config": asdict(c)}, sort_keys=True).encode()).hexdigest()[:16]
        own = _own_state(folder)
        if folder.exists() and (own is None or own["pooled_from"] != start["pooled_from"]):
            # the pool it started from has changed, or it was killed before its first
            # checkpoint (:func:`_check_field_folder`): start again
            shutil.rmtree(folder)
            own = None
        if own is None or own.get("final") is None or not (folder / "manifest.json").is_file():
            train_folder(scn, folder, c, threads=threads, scheduler=scheduler, resume=True,
                         start=start, progress=lambda d, _t, b=base: tick(b + d))
            played.append(folder)
            own = _own_state(folder)
        base += c.budget
        tick(base)
        fields[name] = own
    hardened = {name: {"folder": FIELD_DIRS[name], "seed": int(c.seed), "budget": c.budget,
                       "pooled_from": fields[name]["pooled_from"],
                       "matches": int(fields[name]["spent"]),
                       "rounds": int(fields[name]["round"])}
                for name, c in hardening.items()}
    if state.get("hardened") != hardened or state["final"] is None:
        state["hardened"] = hardened
        state["final"] = dict(fields["pool"]["final"])
        atomic_write(out / "pool.json", json.dumps(state, indent=1))
    return played, fields


def _pool_steps(scn, sources: list[_Source], settings, engine: Engine, out: Path,
                identity: dict, digests: list[dict], table_total: int, state: dict | None,
                tick: Callable[[int], None]) -> dict:
    """The pool's steps, each checkpointed in ``pool.json``: the pooled meta-game and each
    half's, sampled and solved; a step done is read, not played again. ``tick`` is told
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
                 "members": [], "sigma": [], "table": [], "fields": {}, "hardened": {},
                 "final": None, "spent": 0, "seconds": 0.0, "engine_seconds": 0.0,
                 "hands": 0, "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
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
    return state


def _field_of(state: dict, name: str) -> Field:
    """The pool's solution of the field ``name``: where its PSRO started."""
    f = state["fields"][name]
    rows = np.asarray(state["population"], float)
    return Field.of(rows[f["members"]], f["sigma"], f["members"])


def _hardened_field(own: dict) -> Field:
    """A field's PSRO's strong field: its final mixture."""
    fin = own["final"]
    rows = np.asarray(own["population"], float)
    return Field.of(rows[fin["members"]], fin["weights"], fin["members"])


def _final_statement(fin: dict, policy: PolicySpace) -> str:
    s = policy.scale
    return statement(fin["exploitability"] / s, fin["low"] / s, fin["high"] / s,
                     int(fin["matches"]), int(fin["starts"]), policy)


def _psro_said(own: dict, c: dict) -> str:
    return (f"seed {c['seed']}, {own['round']} round(s), {int(own['spent']):,} matches; its "
            f"population {len(own['population'])} policies")


# -- the files ---------------------------------------------------------------------------------
def _went_on(own: dict) -> str:
    """The header's line for a pooled field whose PSRO went on after the pool
    (``train --out OUT/pooled --resume`` with a larger budget), admitting the deviations
    ``nop-sim exploit`` kept against it; "" for one the pool alone trained."""
    admitted = own.get("admitted") or []
    if not admitted:
        return ""
    rounds = sorted({int(a["round"]) for a in admitted})
    return (f"It went on to {int(own['limits']['budget']):,} matches (nop-sim train --out "
            f"{FIELD_DIRS['pool']} --resume), first admitting the {len(admitted)} deviation(s) "
            f"nop-sim exploit had kept against it (round {', '.join(map(str, rounds))}).\n")


def _pooled_budget(own: dict, cfg: TrainConfig) -> str:
    """The pool's --budget-matches, and the pooled field's own where its PSRO went on."""
    went = int(own.get("limits", {}).get("budget", 0))
    if own.get("admitted") and went > cfg.budget:
        return f"{cfg.budget}, its pooled field gone on to {went}"
    return str(cfg.budget)


def _write(scn, out: Path, cfg: TrainConfig, sources: list[_Source], state: dict, settings,
           trained: list[Path], played: list[Path], fields: dict[str, dict]) -> PoolResult:
    policy = policy_of(settings)
    unit, d = policy.unit, policy.digits
    seeds = [src.seed for src in sources]
    units = ({"unit": policy.unit, "unit_digits": policy.digits}
             if (policy.unit, policy.scale) != ("points", 100.0) else {})
    said = [src.summary(out) for src in sources]
    own = fields["pool"]
    fin = own["final"]
    fld = _hardened_field(own)
    pooled = state["fields"]["pool"]
    hard = state["hardened"]
    exact = exact_start = None
    if policy.exact_exploitability is not None:  # the game knows its fields exactly
        exact = dict(policy.exact_exploitability(settings, fld.rows, fld.weights))
        begun = _field_of(state, "pool")
        exact_start = dict(policy.exact_exploitability(settings, begun.rows, begun.weights))
    matches = (sum(src.state["spent"] for src in sources) + state["spent"]
               + sum(int(f["spent"]) for f in fields.values()))
    converged = bool(own["converged"])
    psro = {"seed": hard["pool"]["seed"], "folder": hard["pool"]["folder"],
            "matches": hard["pool"]["matches"], "rounds": hard["pool"]["rounds"],
            "population": len(own["population"])}
    training = {
        "scenario": scn.name, "fingerprint": scn.fingerprint(), "rules": rules_key(settings),
        "matches": int(matches), "mixture": int(len(fld.weights)),
        "population": len(own["population"]),
        "exploitability": round(fin["exploitability"], 3),
        "exploitability_low": round(fin["low"], 3),
        "exploitability_high": round(fin["high"], 3),
        "search_matches": int(fin["matches"]), "search_starts": int(fin["starts"]),
        "searches_pooled": 1,
        **({"exploitability_check_matches": int(fin["check_matches"])}
           if fin.get("check_matches") else {}),
        **({"exploitability_effective_matches": round(fin["effective"])}
           if fin.get("effective") is not None else {}),
        "exploitability_is": "a lower bound: the gain of the best deviation a fresh search "
                             "found, checked on fresh matches",
        "epsilon": cfg.epsilon, "converged": converged, **units,
        **{f"exact_{k}": round(float(v), 6) for k, v in (exact or {}).items()},
        "pool": {"rule": RULE, "hardening": HARDENING, "seeds": seeds,
                 "folders": [s["folder"] for s in said],
                 "meta_members": len(pooled["members"]),
                 "table_matches": int(ProfileTable.from_json(settings.players,
                                                             state["table"]).matches()),
                 "meta_regret": round(pooled["meta_regret"], 6),
                 "hardened": psro,
                 "halves": {h: state["fields"][h]["seeds"] for h in HALVES},
                 "halves_hardened_seeds": {h: hard[h]["seed"] for h in HALVES},
                 "sources": said},
    }
    head = (f"The strong field for {scn.name}, pooled by nop-sim train --seeds {len(seeds)}: a "
            f"mixture of {len(fld.weights)} policy row(s),\n"
            f"each seat drawing its row for each match by weight: the field of a PSRO "
            f"({FIELD_DIRS['pool']}/: {_psro_said(own, hard['pool'])})\n"
            f"that started from the pool of {len(state['population'])} distinct policies of "
            f"{len(seeds)} trainings and the pool's solution (its meta-game held "
            f"{len(pooled['members'])} of them;\nthe solution's regret on its table: "
            f"{pooled['meta_regret']:.{d + 1}f} {unit}).\n"
            f"Rule: {RULE_LINES}.\n"
            f"Hardening: {HARDENING_LINES}.\n"
            f"Sources (each one's stated exploitability):\n"
            + "".join(f"  seed {s['seed']} ({s['folder']}/): {source_statement(s, policy)}\n"
                      for s in said)
            + f"Pooled field: {_final_statement(fin, policy)}.\n"
            + _went_on(own)
            + ("" if not exact else
               f"Exactly: NashConv {policy.amount(exact['nash_conv'] / policy.scale)} per hand; "
               f"the best single-seat deviation gains "
               f"{policy.amount(exact['gain_per_seat'] / policy.scale)} per hand (the pool's "
               f"solution it started from: NashConv "
               f"{policy.amount(exact_start['nash_conv'] / policy.scale)}).\n")
            + "Its halves share no seed: "
            + "; ".join(f"{h}/ (trainings of seeds {_seeds_said(state['fields'][h]['seeds'])}, "
                        f"PSRO seed {hard[h]['seed']})" for h in HALVES) + ".\n"
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
                         f"--budget-matches {_pooled_budget(own, cfg)}: the pooled field's "
                         f"{fin['matches']:,}-match search from {fin['starts']} starts")
    written = {name: _write_field(scn, out, name, state, fields[name], sources, settings)
               for name in FIELD_DIRS}
    manifest = {
        "kind": KIND, "scenario": {"name": scn.name, "source": scn.source, "kind": scn.kind,
                                   "text": scn.text, "fingerprint": scn.fingerprint()},
        "seeds": seeds, "config": asdict(cfg), "rule": RULE, "hardening": HARDENING,
        "training": training, "exact": exact,
        "pool": {"population": len(state["population"]), "meta_cap": meta_cap(settings.players),
                 "origin": state["origin"],
                 "seeds": state["seeds"], "start": state["start"],
                 "fields": {name: {k: f[k] for k in ("members", "sigma", "meta_regret",
                                                     "matches", "seeds")}
                            for name, f in state["fields"].items()},
                 "hardened": {name: {**hard[name], **written[name]["summary"]}
                              for name in FIELD_DIRS},
                 "final": {k: v for k, v in fin.items() if k != "deviation"}},
        "throughput": {"seconds": sum(src.state["seconds"] for src in sources)
                       + state["seconds"] + sum(f["seconds"] for f in fields.values()),
                       "engine_seconds": sum(src.state["engine_seconds"] for src in sources)
                       + state["engine_seconds"]
                       + sum(f["engine_seconds"] for f in fields.values()),
                       "matches": int(matches),
                       "hands": int(sum(src.state["hands"] for src in sources)
                                    + state["hands"] + sum(f["hands"] for f in fields.values()))},
        "versions": versions(), "started": state["started"],
        "ended": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "status": "finished",
    }
    atomic_write(out / "manifest.json", json.dumps(manifest, indent=1, default=float))
    return PoolResult(seeds=seeds, folders=[src.folder for src in sources], trained=trained,
                      hardened=played, rows=fld.rows, weights=fld.weights,
                      halves={h: written[h] for h in HALVES},
                      population=len(state["population"]),
                      meta_members=len(pooled["members"]),
                      exploitability=fin["exploitability"], exploitability_low=fin["low"],
                      exploitability_high=fin["high"], final_matches=int(fin["matches"]),
                      final_starts=int(fin["starts"]), sources=said, matches=int(matches),
                      seconds=float(manifest["throughput"]["seconds"]), converged=converged,
                      policy=policy, path=path, exact=exact,
                      harden={**psro, "folder": written["pool"]["folder"],
                              "exact_start": exact_start})


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


def _write_field(scn, out: Path, name: str, state: dict, own: dict, sources: list[_Source],
                 settings) -> dict:
    """``out/<FIELD_DIRS[name]>/strong.toml``, the field's PSRO's own (a training folder's),
    with a ``[training.pool]`` naming the pool, the field's training seeds and its PSRO;
    what the file says of its training (its final search's statement, any check recorded
    since) is kept."""
    policy = policy_of(settings)
    f = state["fields"][name]
    hard = state["hardened"][name]
    fld = _hardened_field(own)
    folder = out / FIELD_DIRS[name]
    path = folder / "strong.toml"
    try:
        training = dict(policy.read_agent_file(path).training)
    except (OSError, ValueError):
        training = {}
    exact = None
    if policy.exact_exploitability is not None:
        exact = dict(policy.exact_exploitability(settings, fld.rows, fld.weights))
        training.update({f"exact_{k}": round(float(v), 6) for k, v in exact.items()})
    begun = _field_of(state, name)
    exact_start = (dict(policy.exact_exploitability(settings, begun.rows, begun.weights))
                   if exact is not None else None)
    mine = [src for src in sources if src.seed in f["seeds"]]
    psro = {"seed": hard["seed"], "matches": hard["matches"], "rounds": hard["rounds"],
            "population": len(own["population"])}
    training["pool"] = {
        "rule": RULE, "hardening": HARDENING,
        **({"half": name} if name in HALVES else {"field": "pooled"}),
        "seeds": list(f["seeds"]),
        "folders": [f"../{_relative(src.folder, out)}" for src in mine],
        "meta_members": len(f["members"]), "meta_regret": round(f["meta_regret"], 6),
        "hardened": psro}
    fin = own["final"]
    said = _final_statement(fin, policy)
    what = (f"{name} of a pooled training (nop-sim train --seeds, the folder above), a "
            f"mixture\nof {len(fld.weights)} policy row(s): the field of a PSRO "
            f"({_psro_said(own, hard)})\nthat started from the policies of the training(s) "
            f"of seed(s) {_seeds_said(f['seeds'])} alone and the pool's solution of them: "
            f"the other half shares none of its seeds.\n"
            if name in HALVES else
            f"the pooled field of a pooled training (nop-sim train --seeds, the folder "
            f"above; its strong.toml is this field), a mixture\nof {len(fld.weights)} policy "
            f"row(s): the field of a PSRO ({_psro_said(own, hard)})\nthat started from the "
            f"policies of the trainings of seeds {_seeds_said(f['seeds'])} and the pool's "
            f"solution of them.\n")
    head = (f"A strong field for {scn.name}: {what}"
            f"Rule: {RULE_LINES}.\n"
            f"Hardening: {HARDENING_LINES}.\n"
            f"Its exploitability at training: {said}.\n"
            + ("" if not exact else
               f"Exactly: NashConv {policy.amount(exact['nash_conv'] / policy.scale)} per hand "
               f"(the pool's solution it started from: "
               f"{policy.amount(exact_start['nash_conv'] / policy.scale)}).\n")
            + "Use it as a seat: [seats] all = \"@<path of this file>\"")
    policy.write_agent_file(path, fld.rows, fld.weights, training, head + _checked_line(training))
    if policy.write_extra is not None:
        policy.write_extra(folder, fld.rows, fld.weights)
    summary = {"population": len(own["population"]), "mixture": len(fld.weights),
               "labels": [own["labels"][m] for m in fld.ids], "weights": fld.weights.tolist(),
               "exploitability": fin["exploitability"], "low": fin["low"], "high": fin["high"],
               "search_matches": int(fin["matches"]), "search_starts": int(fin["starts"]),
               "converged": bool(own["converged"]), "exact": exact, "exact_start": exact_start,
               "start_exploitability": (own["rounds"][0]["exploitability"] if own["rounds"]
                                        else None)}
    return {"seeds": list(f["seeds"]), "rows": fld.rows, "weights": fld.weights, "path": path,
            "exact": exact, "exact_start": exact_start, "statement": said,
            "seed": hard["seed"], "rounds": hard["rounds"], "folder": folder,
            "summary": summary}
