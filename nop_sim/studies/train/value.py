"""What each mechanic is worth under strong play (restricted play), and each Disruptor.

Restricted play (Jaffe, Miller, Andersen, Liu, Karlin and Popović, 2012,
"Evaluating competitive game balance with restricted play"), measured as a
difference of two equal searches against the strong field:

    value(m) = gain of the best unrestricted deviation
             - gain of the best deviation that may not use m.

Both searches walk the same space, from the same starts, on the same seeds,
with the same budget: the restricted one pins the mechanic's parameters
(:data:`.space.MECHANICS`) in every row it plays. Where a mechanic cannot
matter, the two play the same matches the same way and the value is 0
exactly; elsewhere both deviations are checked on the same fresh matches,
and the value's interval is that of the paired differences. A value is a
difference of two lower bounds (each search may miss better deviations),
so it is an estimate of what the mechanic is worth to a player who searches
this hard, not a bound; below 0 beyond noise means the free search found
less than the restricted one, and a larger budget is needed to tell.

The Disruptor table plays the strong field in every seat and compares a
seat's win rate in the matches where it drafted a card with those where it
did not (Wilson intervals). It is an association, not an effect: a seat that
lives longer drafts more cards.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim.core.stats import mean_interval, wilson_interval
from nop_sim.games.new_order import types as T
from nop_sim.reporting import atomic_write
from nop_sim.studies.train.errors import TrainError
from nop_sim.studies.train.play import Engine, Field, duel
from nop_sim.studies.train.search import SearchConfig, SearchResult, best_response, check_gain
from nop_sim.studies.train.space import MECHANICS, Space, space_for

__all__ = ["disruptor_table", "exploit", "load_strong", "restricted_play", "value_folder"]

_SEARCH_KEY = 2 * 10**9      # every search of a value run: the same seeds
_CHECK_KEY = 2 * 10**9 + 1   # the paired check of each mechanic


def _restricted(space: Space, mechanic: str) -> Space:
    """``space`` with the mechanic's parameters pinned in every row, and nothing else
    changed: the same coordinates, so a search in it is the free search's equal."""
    return dataclasses.replace(space, fixed={**space.fixed, **MECHANICS[mechanic]})


def _starts(fld: Field) -> np.ndarray:
    from nop_sim.games.new_order.agents import agent_row, preset_names

    return np.concatenate([fld.rows, np.stack([agent_row(p) for p in preset_names()])])


def free_search(engine: Engine, settings, fld: Field, cfg: SearchConfig,
                seed: int) -> SearchResult:
    """The best unrestricted deviation against ``fld`` (the search every value shares)."""
    return best_response(engine, settings, space_for(settings), fld, _starts(fld),
                         (seed, _SEARCH_KEY), cfg, float("nan"), tag={"mechanic": "none"},
                         switches=False)


def restricted_play(engine: Engine, settings, fld: Field, mechanic: str, cfg: SearchConfig,
                    seed: int, free: SearchResult) -> dict:
    """One table row: the best deviation without ``mechanic`` against ``fld``, searched as
    ``free`` was, and the value of the mechanic (win-rate points, 95% interval) from the
    two deviations checked on the same matches. Its seeds depend on the mechanic and
    ``seed`` only, so a row never changes with the others asked for."""
    start = engine.matches
    space = _restricted(space_for(settings), mechanic)
    res = best_response(engine, settings, space, fld, _starts(fld), (seed, _SEARCH_KEY), cfg,
                        float("nan"), tag={"mechanic": mechanic}, switches=False)
    check = check_gain(engine, settings, fld, free.row,
                       (seed, _CHECK_KEY, list(MECHANICS).index(mechanic)), cfg, float("nan"),
                       rows=res.row[None, :]).check
    g = check.gain()
    full, restricted = mean_interval(g[0]), mean_interval(g[1])
    value = mean_interval(check.won[0].astype(float) - check.won[1].astype(float))
    return {"mechanic": mechanic, "pinned": json.dumps(MECHANICS[mechanic]),
            "loss": 100 * value["mean"], "loss_low": 100 * value["ci_low"],
            "loss_high": 100 * value["ci_high"],
            "gain_full": 100 * full["mean"], "gain_full_low": 100 * full["ci_low"],
            "gain_full_high": 100 * full["ci_high"],
            "gain_restricted": 100 * restricted["mean"],
            "gain_restricted_low": 100 * restricted["ci_low"],
            "gain_restricted_high": 100 * restricted["ci_high"],
            "check_matches": int(g.shape[1]), "matches": engine.matches - start,
            "search_matches": int(res.matches), "search_starts": int(res.starts),
            **{f"p_{n}": float(v) for n, v in zip(T.AGENT_PARAM_NAMES, res.row, strict=True)}}


def disruptor_table(engine: Engine, settings, fld: Field, n: int, seed: int) -> pd.DataFrame:
    """Per Disruptor of the mix: a strong seat's win rate when it drafted the card and
    when it did not, in ``n`` matches of the strong field in every seat."""
    players = settings.players
    n = max(players, -(-n // players) * players)
    d = duel(engine, settings, fld, np.zeros((0, T.N_AGENT_PARAMS)), n, (seed, 3 * 10**9))
    won = d.ref_won
    drafted = d.ref_drafted > 0
    _, mix = settings.to_arrays()
    in_mix = sorted({int(t) for t in mix.deck})
    rows = []
    for card in in_mix:
        has = drafted[:, card]
        k1, n1 = int(won[has].sum()), int(has.sum())
        k0, n0 = int(won[~has].sum()), int((~has).sum())
        lo1, hi1 = wilson_interval(k1, n1)
        lo0, hi0 = wilson_interval(k0, n0)
        rows.append({"card": T.DISRUPTOR_IDS[card], "matches_drafted": n1,
                     "win_drafted": k1 / n1 if n1 else np.nan, "win_drafted_low": float(lo1),
                     "win_drafted_high": float(hi1), "matches_not": n0,
                     "win_not": k0 / n0 if n0 else np.nan, "win_not_low": float(lo0),
                     "win_not_high": float(hi0)})
    out = pd.DataFrame(rows)
    if len(out):
        out["difference"] = out["win_drafted"] - out["win_not"]
    return out


def exploit(scn, folder: Path, *, budget: int, threads: int | None = None,
            scheduler: str | None = None,
            progress: Callable[[int, int], None] | None = None) -> SearchResult:
    """A fresh best-response search of about ``budget`` matches against ``folder``'s strong
    field, from ``scn``'s seed: an independent check of the exploitability it states."""
    from nop_sim.studies.train.trainer import rules_key

    fld, training = load_strong(folder)
    settings = scn.settings_at(scn.points()[0])
    if training.get("rules") not in (None, rules_key(settings)):
        raise TrainError(f"{Path(folder) / 'strong.toml'} was trained for other rules "
                         f"(scenario {training.get('scenario')!r}); train for {scn.source} first")
    space = space_for(settings)
    starts = _starts(fld)
    base = SearchConfig()
    cfg = base.scaled(budget / base.cost(space.dim, settings.players, len(starts)))
    engine = Engine(threads=threads, scheduler=scheduler)
    engine.on_play = (lambda: progress(min(engine.matches, budget), budget)) if progress else None
    try:
        return best_response(engine, settings, space, fld, starts, (scn.seed, 4 * 10**9), cfg,
                             float("nan"), tag={"check": "exploit"})
    finally:
        engine.close()


def load_strong(folder: Path) -> tuple[Field, dict]:
    """The strong field (a mixture) and training table of a training folder's strong.toml."""
    path = Path(folder) / "strong.toml"
    if not path.exists():
        raise ValueError(f"--strong {folder}: no strong.toml there; train first "
                         f"(nop-sim train SCENARIO --out {folder})")
    from nop_sim.games.new_order.agents import agent_row, read_agent_file

    f = read_agent_file(path)
    return Field.of(np.stack([agent_row(r) for r in f.rows]), f.weights), dict(f.training)


def value_folder(scn, folder: Path, mechanics: Sequence[str], *, budget: int,
                 threads: int | None = None, scheduler: str | None = None,
                 progress: Callable[[int, int], None] | None = None
                 ) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Restricted play and the Disruptor table for ``scn`` under ``folder``'s strong field;
    writes ``value.parquet``, ``drafts.parquet`` and ``value.json`` into ``folder``.

    The budget sizes every search alike whichever mechanics are asked (the free search
    and one per mechanic, six in all, and a draft table of a tenth), so rows asked at
    different times are equal efforts: each row is saved as soon as it is done and
    merges with the saved rows of the same field, rules, seed and search; a stopped run
    resumes, and a run for some mechanics keeps the others' rows. Rows of another
    field, rules, seed or budget are replaced; their mechanics are returned third."""
    from nop_sim.studies.train.trainer import rules_key

    folder = Path(folder)
    fld, training = load_strong(folder)
    settings = scn.settings_at(scn.points()[0])
    if training.get("rules") not in (None, rules_key(settings)):
        raise TrainError(f"{folder / 'strong.toml'} was trained for other rules (scenario "
                         f"{training.get('scenario')!r}); train for {scn.source} first")
    per = budget * 0.9 / (1 + len(MECHANICS))
    base = SearchConfig()
    cfg = base.scaled(min(1.0, per / base.cost(space_for(settings).dim, settings.players)))
    identity = json.loads(json.dumps({"rules": rules_key(settings), "seed": scn.seed,
                                      "field": [fld.rows.tolist(), fld.weights.tolist()],
                                      "search": asdict(cfg), "method": 2}))
    saved, free_row, replaced = _saved(folder, identity)
    engine = Engine(threads=threads, scheduler=scheduler)
    engine.on_play = (lambda: progress(min(engine.matches, budget), budget)) if progress else None
    rows = []
    try:
        free = None
        for name in mechanics:
            if name not in saved:
                if free is None:
                    free = free_search(engine, settings, fld, cfg, scn.seed)
                saved[name] = restricted_play(engine, settings, fld, name, cfg, scn.seed, free)
                free_row = free.row.tolist()
                _save(folder, saved, identity, free_row, scn.name, budget)
            rows.append(saved[name])
        drafts = disruptor_table(engine, settings, fld, max(int(budget * 0.1), 400), scn.seed)
    finally:
        engine.close()
    _save(folder, saved, identity, free_row, scn.name, budget)
    atomic_write(folder / "drafts.parquet", drafts.to_parquet(index=False))
    return pd.DataFrame(rows), drafts, replaced


def _save(folder: Path, saved: dict, identity: dict, free_row, scenario: str,
          budget: int) -> None:
    table = pd.DataFrame([saved[m] for m in MECHANICS if m in saved])
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
