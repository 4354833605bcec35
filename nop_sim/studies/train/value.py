"""What each mechanic is worth under strong play (restricted play), and each Disruptor.

Restricted play (Jaffe, Miller, Andersen, Liu, Karlin and Popović, 2012,
"Evaluating competitive game balance with restricted play"), measured as a
difference of two equal efforts against the strong field:

    value(m) = gain of the best unrestricted deviation
             - gain of the best deviation that may not use m.

Both draw on the same two searches, walked from the same starts on the same
seeds with the same budget: the free search, and one with the mechanic's
parameters (the game's ``mechanics``) pinned in every row. The starts include
the deviations known to beat the field (:mod:`.known`: the training's final
search, ``nop-sim exploit``'s checks), so the values rest on play at least as
strong as the strongest found so far, not on what a search a sixth of a
value run's size could find alone. The search without the mechanic starts
from the same deviations with it switched off, and has no more matches to
re-tune them than the free one has to improve them: where a known deviation
came from a far larger search than the value's, a value leans high (against
one 2M-match field, manipulation read +2.8 from the training's deviation and
+7.2 once a 4M-match check's was known too). Their leaders,
and each with the mechanic switched off, are pooled (:mod:`.pool`): the free
pick is the best of the pool, the restricted pick the best of the rows that
leave the mechanic off, a part of the same pool. Both picks are checked on
the same fresh matches, and the value's interval is that of the paired
differences. So a value is below 0 only by the check's noise, and where a
mechanic cannot matter both picks play alike and its value is 0 exactly.
Each gain is a lower bound (a search may miss better deviations), so a value
is an estimate of what the mechanic is worth to a player who searches this
hard, not a bound.

A game may add tables of the strong field in every seat (its
``field_tables``): New Order's Disruptor table compares a seat's win rate in
the matches where it drafted a card with those where it did not (Wilson
intervals). It is an association, not an effect: a seat that lives longer
drafts more cards.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim.games.registry import policy_of
from nop_sim.reporting import atomic_write
from nop_sim.studies.train.errors import TrainError
from nop_sim.studies.train.known import field_key, known_rows, record_deviation
from nop_sim.studies.train.play import Engine, Field, duel, effective_matches
from nop_sim.studies.train.pool import FREE, pooled_cost, pooled_search
from nop_sim.studies.train.search import SearchConfig, SearchResult, best_response
from nop_sim.studies.train.space import Space, space_for
from nop_sim.studies.train.trainer import presets, rules_key
from nop_sim.studies.train.verdict import HALF, settle, shared_seeds, with_range

__all__ = ["HALVES", "Measured", "exploit", "field_tables", "load_strong", "record_check",
           "record_checks", "record_found", "restricted_play", "value_fields", "value_folder"]

_SEARCH_KEY = 2 * 10**9      # every search of a value run: the same seeds


def _starts(settings, fld: Field) -> np.ndarray:
    return np.concatenate([fld.rows, presets(settings)])


def free_search(engine: Engine, settings, fld: Field, cfg: SearchConfig,
                seed: int, known: np.ndarray | None = None) -> SearchResult:
    """The best unrestricted deviation against ``fld``: the search every value shares,
    unchecked (its leaders go to each mechanic's pool); ``known``: deviations known to
    beat the field (:mod:`.known`), more starts and candidates."""
    return best_response(engine, settings, space_for(settings), fld, _starts(settings, fld),
                         (seed, _SEARCH_KEY), cfg, float("nan"), tag={"mechanic": FREE},
                         known=known, switches=False, check=False)


def restricted_play(engine: Engine, settings, fld: Field, mechanic: str, cfg: SearchConfig,
                    seed: int, free: SearchResult, precision: float | None = None,
                    known: np.ndarray | None = None) -> dict:
    """One table row: the search without ``mechanic`` against ``fld``, pooled with the
    ``free`` one, and the mechanic's value (win-rate points, 95% interval) from the two
    picks checked on the same matches. Its seeds depend on the mechanic and ``seed`` only,
    so a row never changes with the others asked for. ``precision`` (points): the check
    goes on until the value's 95% interval is at most that wide on each side
    (:func:`~nop_sim.studies.train.pool.pooled_search`). ``known``: the deviations the
    ``free`` search started from, which this one starts from too (the mechanic pinned)."""
    start = engine.matches
    space = space_for(settings)
    scale = policy_of(settings).scale  # the game's unit per unit of payoff (points: 100)
    pooled = pooled_search(engine, settings, space, fld, _starts(settings, fld),
                           (seed, _SEARCH_KEY), cfg, mechanics=[mechanic],
                           tag={"mechanic": mechanic}, searches={FREE: free}, known=known,
                           precision=None if precision is None else precision / scale)
    full, without, value = pooled.gain(FREE), pooled.gain(mechanic), pooled.value(mechanic)
    res = pooled.searches[mechanic]
    return {"mechanic": mechanic, "pinned": json.dumps(space.mechanics[mechanic]),
            "loss": scale * value["mean"], "loss_low": scale * value["ci_low"],
            "loss_high": scale * value["ci_high"],
            "gain_full": scale * full["mean"], "gain_full_low": scale * full["ci_low"],
            "gain_full_high": scale * full["ci_high"],
            "gain_restricted": scale * without["mean"],
            "gain_restricted_low": scale * without["ci_low"],
            "gain_restricted_high": scale * without["ci_high"],
            "check_matches": int(pooled.check.won.shape[1]),
            "effective_matches": effective_matches(pooled.check, 0,
                                                   versus=pooled.groups.index(mechanic)),
            "matches": engine.matches - start,
            "search_matches": int(res.matches), "search_starts": int(res.starts),
            "pooled": int(pooled.candidates),
            **{f"p_{n}": float(v) for n, v in
               zip(space.columns, pooled.rows[1], strict=True)}}


def field_tables(engine: Engine, settings, fld: Field, n: int, seed: int) -> pd.DataFrame:
    """The game's tables of the strong field in every seat (its ``field_tables``: New
    Order's Disruptor table), from ``n`` matches; an empty table for a game without."""
    tables = policy_of(settings).field_tables
    if tables is None:
        return pd.DataFrame()
    players = settings.players
    n = max(players, -(-n // players) * players)
    d = duel(engine, settings, fld, np.zeros((0, fld.rows.shape[1])), n, (seed, 3 * 10**9))
    return tables(settings, d.ref_won, d.ref_extras)


def exploit(scn, folder: Path, *, budget: int, threads: int | None = None,
            scheduler: str | None = None,
            progress: Callable[[int, int], None] | None = None) -> SearchResult:
    """A fresh free search of about ``budget`` matches against ``folder``'s strong field,
    from ``scn``'s seed, its pick checked on fresh matches: an independent check of the
    exploitability it states. One search of the whole budget: against one field, a free
    search found 5.0 points on average where a pooled one of the same matches (the free
    search and one per mechanic) found 2.1 (:mod:`.trainer`)."""
    settings, fld = strong_field(scn, folder)
    space = space_for(settings)
    starts = _starts(settings, fld)
    cfg = SearchConfig().fitted(lambda s: s.cost(space.dim, settings.players, len(starts),
                                                 mechanics=len(space.mechanics)), budget)
    engine = Engine(threads=threads, scheduler=scheduler)
    engine.on_play = (lambda: progress(min(engine.matches, budget), budget)) if progress else None
    try:
        return best_response(engine, settings, space, fld, starts, (scn.seed, 4 * 10**9), cfg,
                             float("nan"), tag={"check": "exploit"})
    finally:
        engine.close()


def record_check(scn, folder: Path, found: SearchResult, budget: int) -> bool:
    """Write an independent check (``nop-sim exploit``) into ``folder``'s strong.toml when it
    found more than any claim the file holds, so every reader of the field (a run's
    report, ``[strong]``) states the largest known lower bound: ``[training]`` gets
    ``checked_exploitability``, ``checked_low``, ``checked_high``, ``checked_by``.
    A check whose deviation does not clearly gain (its 95% interval reaches 0) is not
    recorded, nor any check of a field the game knows exactly. Returns whether the file
    changed."""
    return record_claim(scn, folder, found.gain, found.low, found.high,
                        f"nop-sim exploit --seed {scn.seed} --budget-matches {budget}: a "
                        f"{found.matches:,}-match search from {found.starts} starts")


def record_claim(scn, folder: Path, gain: float, low: float, high: float, by: str) -> bool:
    """:func:`record_check` of any check's held-out gain (payoff units, its 95% interval
    ``low`` to ``high``) found as ``by`` says (e.g. the in-abstraction best response of a
    field that bets by a table)."""
    path = Path(folder) / "strong.toml"
    settings = scn.settings_at(scn.points()[0])
    policy = policy_of(settings)
    f = policy.read_agent_file(path)
    training = dict(f.training)
    s = policy.scale  # the game's unit per unit of payoff (points: 100)
    g = {"mean": s * gain, "ci_low": s * low, "ci_high": s * high}
    # the claims: the training's bound, an earlier check's, the exact gain where the game
    # computes it (a search never finds more than that, but for its noise); and a bound
    # at or below 0 says nothing
    known = max(float(training.get("exploitability", float("-inf"))),
                float(training.get("checked_exploitability", float("-inf"))), 0.0)
    # A game that knows its field's best deviation exactly (Kuhn poker) has its answer
    # in the file: a search never finds more than that, and one that reads more has
    # read its noise. Elsewhere the check's deviation must clearly gain (its interval
    # above 0), or "at least" would state noise as a bound.
    if "exact_gain_per_seat" in training or not g["ci_low"] > 0:
        return False
    if not round(g["mean"], 3) > known:
        return False
    training.update(checked_exploitability=round(g["mean"], 3),
                    checked_low=round(g["ci_low"], 3), checked_high=round(g["ci_high"], 3),
                    checked_by=by)
    said = "# an independent check found more:"  # the largest one stands; an older goes
    header = "".join(line + "\n" for line in path.read_text().splitlines()
                     if line.startswith("#") and not line.startswith(said))
    header += (f"{said} a deviation gains at least "
               f"{policy.amount(gain)} ({training['checked_by']})\n")
    _rewrite(policy, path, f, training, header)
    return True


def record_checks(scn, folder: Path, found: Sequence, budget: int) -> bool:
    """Keep every independent check of ``found`` (``nop-sim exploit``'s: each with
    ``seed``, and ``gain``, ``low``, ``high`` in the game's unit) in ``folder``'s
    strong.toml, ``[[training.checks]]`` (``seed``, ``budget``, ``gain``, ``low``,
    ``high``), in place of an earlier check of the same seed and budget: every reader of
    the field (a run's report, ``exploit``'s lines) then says what the checks found,
    also where none found more than the file claims (:func:`record_claim` keeps the
    largest bound). Returns whether the file changed."""
    path = Path(folder) / "strong.toml"
    policy = policy_of(scn.settings_at(scn.points()[0]))
    f = policy.read_agent_file(path)
    training = dict(f.training)
    new = {(int(c.seed), int(budget)): {
        "seed": int(c.seed), "budget": int(budget), "gain": round(float(c.gain), 3),
        "low": round(float(c.low), 3), "high": round(float(c.high), 3)} for c in found}
    # (an entry without its seed and budget, edited by hand, cannot be told apart: dropped)
    kept = {(int(c["seed"]), int(c["budget"])): dict(c)
            for c in training.get("checks") or []
            if isinstance(c, dict) and isinstance(c.get("seed"), int)
            and isinstance(c.get("budget"), int)}
    merged = [v for _, v in sorted({**kept, **new}.items(),
                                   key=lambda kv: (kv[0][1], kv[0][0]))]
    if merged == training.get("checks"):
        return False
    training["checks"] = merged
    header = "".join(line + "\n" for line in path.read_text().splitlines()
                     if line.startswith("#"))
    _rewrite(policy, path, f, training, header)
    return True


def _rewrite(policy, path: Path, f, training: dict, header: str) -> None:
    """Write the field ``f`` read from ``path`` back with ``training`` and ``header``
    (its ``#`` lines); a field that plays a betting table keeps naming it (New Order's
    ``[betting]``)."""
    table = getattr(f, "betting_table", None)
    kept = {} if table is None else {"betting": {"table": os.path.relpath(table, path.parent)}}
    policy.write_agent_file(path, f.rows, f.weights, training,
                            "\n".join(line[2:] for line in header.splitlines()), **kept)


def record_found(scn, folder: Path, found: SearchResult, budget: int) -> bool:
    """Keep an independent check's deviation in ``folder``'s deviations.json (:mod:`.known`)
    when it beats the field (its gain's interval lies above 0), so that ``nop-sim value``
    starts from it. Returns whether the file changed."""
    if not found.low > 0:
        return False
    settings, fld = strong_field(scn, folder)
    s = policy_of(settings).scale  # the game's unit per unit of payoff (points: 100)
    return record_deviation(folder, fld, space_for(settings).columns, found.row,
                            s * found.gain, s * found.low, s * found.high,
                            f"nop-sim exploit --seed {scn.seed} --budget-matches {budget}: a "
                            f"{found.matches:,}-match search from {found.starts} starts")


def strong_field(scn, folder: Path) -> tuple[object, Field]:
    """``scn``'s settings (its first point) and ``folder``'s strong field, refused when
    strong.toml was trained for other rules (another seed is the same rules)."""
    settings = scn.settings_at(scn.points()[0])
    fld, training = load_strong(folder, settings)
    if training.get("rules") not in (None, rules_key(settings)):
        raise TrainError(f"{Path(folder) / 'strong.toml'} was trained for other rules "
                         f"(scenario {training.get('scenario')!r}); train for {scn.source} first")
    return settings, fld


def load_strong(folder: Path, settings) -> tuple[Field, dict]:
    """The strong field (a mixture) and training table of a training folder's strong.toml,
    read as an agent file of the game ``settings`` are for."""
    path = Path(folder) / "strong.toml"
    if not path.exists():
        raise ValueError(f"--strong {folder}: no strong.toml there; train first "
                         f"(nop-sim train SCENARIO --out {folder})")
    policy = policy_of(settings)
    f = policy.read_agent_file(path)
    rows = np.stack([policy.agent_row(r) for r in f.rows])
    betting = getattr(f, "betting", None)
    if betting is None:
        return Field.of(rows, f.weights), dict(f.training)
    # every row of the file bets by its table (a field trained by --method cfr)
    train, weights = betting
    return (Field.of(rows, f.weights, tables=(train, np.asarray(weights)[None]),
                     table_of=np.zeros(len(rows), np.int64)), dict(f.training))


def value_folder(scn, folder: Path, mechanics: Sequence[str], *, budget: int,
                 threads: int | None = None, scheduler: str | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 precision: float | None = None
                 ) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Restricted play and the Disruptor table for ``scn`` under ``folder``'s strong field;
    writes ``value.parquet``, ``drafts.parquet`` and ``value.json`` into ``folder``.

    The budget sizes every search alike whichever mechanics are asked (the free search
    and one per mechanic, six in all, and a draft table of a tenth), so rows asked at
    different times are equal efforts: each row is saved as soon as it is done and
    merges with the saved rows of the same field, rules, seed and search; a stopped run
    resumes, and a run for some mechanics keeps the others' rows. Rows of another
    field, rules, seed, budget or known deviations (:mod:`.known`: every search starts
    from them too) are replaced; their mechanics are returned third.

    ``precision`` (points): each value's check plays on past its size until the value's
    95% interval is at most that wide on each side, or the check has played
    :data:`~nop_sim.studies.train.pool.LONGEST` times its size: matches beyond ``budget``.
    """
    folder = Path(folder)
    settings, fld = strong_field(scn, folder)
    space = space_for(settings)
    known = known_rows(folder, fld, space.columns)
    base = SearchConfig()

    def cost(s: SearchConfig) -> int:
        return _value_cost(s, space, settings.players, len(fld.rows) + len(known))

    cfg = base if cost(base) <= 0.9 * budget else base.fitted(cost, 0.9 * budget)
    identity = json.loads(json.dumps({"rules": rules_key(settings), "seed": scn.seed,
                                      "field": [fld.rows.tolist(), fld.weights.tolist()],
                                      **({} if fld.tables is None
                                         else {"field_key": field_key(fld)}),
                                      "search": asdict(cfg), "method": 5,
                                      "known": known.tolist(),
                                      **({} if precision is None
                                         else {"precision": float(precision)})}))
    saved, free_row, replaced = _saved(folder, identity)
    if (not replaced and all(m in saved for m in mechanics)
            and (folder / "drafts.parquet").exists()):
        # everything asked was measured with this identity: read back, nothing played
        return (pd.DataFrame([saved[m] for m in mechanics]),
                pd.read_parquet(folder / "drafts.parquet"), replaced)
    engine = Engine(threads=threads, scheduler=scheduler)
    engine.on_play = (lambda: progress(min(engine.matches, budget), budget)) if progress else None
    rows = []
    try:
        free = None
        for name in mechanics:
            if name not in saved:
                if free is None:
                    free = free_search(engine, settings, fld, cfg, scn.seed, known)
                saved[name] = restricted_play(engine, settings, fld, name, cfg, scn.seed, free,
                                              precision, known)
                free_row = free.row.tolist()
                _save(folder, saved, identity, free_row, scn.name, budget, space)
            rows.append(saved[name])
        drafts = field_tables(engine, settings, fld, max(int(budget * 0.1), 400), scn.seed)
    finally:
        engine.close()
    _save(folder, saved, identity, free_row, scn.name, budget, space)
    atomic_write(folder / "drafts.parquet", drafts.to_parquet(index=False))
    return pd.DataFrame(rows), drafts, replaced


def _value_cost(cfg: SearchConfig, space: Space, players: int, field_rows: int) -> int:
    """Matches of a value run for every mechanic: the free search once, and per mechanic
    its search pooled with the free one."""
    n_starts = field_rows + len(space.mechanics) + 8  # the field's rows and the presets
    one = cfg.cost(space.dim, players, n_starts, mechanics=len(space.mechanics), check=False)
    each = pooled_cost(cfg, space, players, n_starts, 1) - one
    return one + len(space.mechanics) * each


def _save(folder: Path, saved: dict, identity: dict, free_row, scenario: str,
          budget: int, space: Space) -> None:
    table = pd.DataFrame([saved[m] for m in space.mechanics if m in saved])
    atomic_write(folder / "value.parquet", table.to_parquet(index=False))
    atomic_write(folder / "value.json", json.dumps(
        {"scenario": scenario, "budget": budget, "identity": identity, "free_row": free_row},
        indent=1))


def _saved(folder: Path, identity: dict) -> tuple[dict[str, dict], list | None, list[str]]:
    """The rows of earlier value runs with the same identity, by mechanic, their free
    deviation, and the mechanics of saved rows that do not match (to be replaced)."""
    try:
        old = json.loads((folder / "value.json").read_text())
        frame = pd.read_parquet(folder / "value.parquet")
    except (OSError, ValueError):
        return {}, None, []
    if old.get("identity") != identity:
        return {}, None, list(frame["mechanic"]) if "mechanic" in frame else []
    return {r["mechanic"]: r for r in frame.to_dict("records")}, old.get("free_row"), []


HALVES = ("half-a", "half-b")  # a pooled training's two fields of disjoint seeds


@dataclass
class Measured:
    """What :func:`value_fields` measured: each field's folder, value table and training
    table, the values settled across them (:func:`~.verdict.settle`), the folders whose
    value.parquet was written, mechanics whose saved rows were replaced, and training
    seeds two fields share."""

    fields: list[Path]
    tables: list[pd.DataFrame]
    trainings: list[dict]
    settled: pd.DataFrame
    written: list[Path]
    replaced: list[str]
    shared: set[int]


def value_fields(scn, folders: Sequence[Path], mechanics: Sequence[str], *, budget: int,
                 threads: int | None = None, scheduler: str | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 precision: float | None = None) -> Measured:
    """Restricted play against each field of ``folders`` (:func:`value_folder`, ``budget``
    matches each), and each value settled across them (:mod:`.verdict`): every folder's
    value.parquet gains ``range_low``, ``range_high``, ``settled``, ``fields`` and
    ``verdict``. One folder that holds a pooled training's halves (:data:`HALVES`, from
    ``nop-sim train --seeds``) is measured against the two halves, and its own
    value.parquet states their combined values. ``precision`` (points) defaults, with two
    or more fields, to the rule's +-2, so that a value can settle."""
    folders = [Path(f) for f in folders]
    pool = None
    if len(folders) == 1 and all((folders[0] / h / "strong.toml").is_file() for h in HALVES):
        pool, folders = folders[0], [folders[0] / h for h in HALVES]
    settings = scn.settings_at(scn.points()[0])
    policy = policy_of(settings)
    if precision is None and len(folders) > 1:
        precision = HALF * 100   # points, as --precision takes them
    tables, trainings, replaced = [], [], []
    total = budget * len(folders)
    for i, folder in enumerate(folders):
        def step(done: int, _t: int, base: int = i * budget) -> None:
            if progress is not None:
                progress(min(base + done, total), total)

        table, _, gone = value_folder(scn, folder, mechanics, budget=budget, threads=threads,
                                      scheduler=scheduler, progress=step, precision=precision)
        tables.append(table)
        trainings.append(load_strong(folder, settings)[1])
        replaced += [m if len(folders) == 1 else f"{m} ({folder})" for m in gone]
    # every mechanic measured there, asked now or before (the rows of one identity)
    saved = [pd.read_parquet(folder / "value.parquet") for folder in folders]
    settled = settle(saved, scale=policy.scale, digits=policy.digits, unit=policy.unit)
    written = []
    for folder, table in zip(folders, saved, strict=True):
        atomic_write(folder / "value.parquet", with_range(table, settled).to_parquet(index=False))
        written.append(folder)
    if pool is not None:
        combined = settled.rename(columns={"value": "loss", "low": "loss_low",
                                           "high": "loss_high"})
        combined["check_matches"] = [int(min(t.set_index("mechanic").at[m, "check_matches"]
                                             for t in saved))
                                     for m in combined["mechanic"]]
        combined["measured_against"] = ", ".join(HALVES)
        atomic_write(pool / "value.parquet", combined.to_parquet(index=False))
        written.insert(0, pool)
    asked = settled[settled["mechanic"].isin(list(mechanics))].reset_index(drop=True)
    return Measured(fields=folders, tables=tables, trainings=trainings, settled=asked,
                    written=written, replaced=replaced, shared=shared_seeds(trainings))
