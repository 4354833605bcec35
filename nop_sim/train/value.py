"""What each mechanic is worth under strong play (restricted play), and each Disruptor.

Restricted play (Jaffe, Miller, Andersen, Liu, Karlin and Popović, 2012,
"Evaluating competitive game balance with restricted play"): for each
mechanic, search the best agent that may not use it (:data:`.space.MECHANICS`
pins its parameters) against a field of the strong agent, and measure that
agent's win rate against the strong agent's own on the same seeds. The loss
is in win-rate points with a 95% interval: about 0 means the mechanic adds
nothing a strong player needs, a loss near the whole fair share means it
decides the game.

The Disruptor table plays the strong agent in every seat and compares its
win rate in the matches where it drafted a card with those where it did not
(Wilson intervals). It is an association, not an effect: a seat that lives
longer drafts more cards.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim import types as T
from nop_sim.reporting import atomic_write
from nop_sim.stats import wilson_interval
from nop_sim.train.errors import TrainError
from nop_sim.train.play import Engine, duel
from nop_sim.train.search import SearchConfig, best_response
from nop_sim.train.space import MECHANICS, space_for

__all__ = ["disruptor_table", "restricted_play", "value_folder"]


def restricted_play(engine: Engine, settings, strong: np.ndarray, mechanic: str,
                    cfg: SearchConfig, seed: int) -> dict:
    """The best agent without ``mechanic`` against a field of ``strong``: its loss to the
    strong agent (win-rate points, 95% interval), one table row. Its seeds depend on the
    mechanic and ``seed`` only, so a row never changes with the others asked for."""
    players = settings.players
    field = np.repeat(np.asarray(strong, float)[None, None, :], players, axis=1)
    space = space_for(settings, MECHANICS[mechanic])
    start = engine.matches
    # epsilon NaN: the check plays all of check_max, for the tightest interval
    res = best_response(engine, settings, space, field, strong,
                        (seed, 2 * 10**9, list(MECHANICS).index(mechanic)), cfg, float("nan"),
                        tag={"mechanic": mechanic})
    return {"mechanic": mechanic, "pinned": json.dumps(MECHANICS[mechanic]),
            "loss": -100 * res.gain, "loss_low": -100 * res.high, "loss_high": -100 * res.low,
            "check_matches": res.n_check, "matches": engine.matches - start,
            **{f"p_{n}": float(v) for n, v in zip(T.AGENT_PARAM_NAMES, res.row, strict=True)}}


def disruptor_table(engine: Engine, settings, strong: np.ndarray, n: int,
                    seed: int) -> pd.DataFrame:
    """Per Disruptor of the mix: the strong agent's win rate when it drafted the card and
    when it did not, in ``n`` matches of the strong agent in every seat."""
    players = settings.players
    field = np.repeat(np.asarray(strong, float)[None, None, :], players, axis=1)
    n = max(players, -(-n // players) * players)
    d = duel(engine, settings, field, np.asarray(strong, float)[None, :], n,
             (seed, 3 * 10**9), reference=False)
    won = d.won[0]
    drafted = d.drafted[0] > 0
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


def load_strong(folder: Path) -> tuple[np.ndarray, dict]:
    """The agent row and training table of a training folder's strong.toml."""
    from nop_sim.agents import load_agent_file

    path = Path(folder) / "strong.toml"
    if not path.exists():
        raise ValueError(f"--strong {folder}: no strong.toml there; train first "
                         f"(nop-sim train SCENARIO --out {folder})")
    params, training = load_agent_file(path)
    from nop_sim.agents import agent_row

    return agent_row(params), training


def value_folder(scn, folder: Path, mechanics: Sequence[str], *, budget: int,
                 threads: int | None = None, scheduler: str | None = None,
                 progress: Callable[[int, int], None] | None = None
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Restricted play and the Disruptor table for ``scn`` under ``folder``'s strong agent;
    writes ``value.parquet``, ``drafts.parquet`` and ``value.json`` into ``folder``.

    Each mechanic's row is saved as soon as it is done; asked again with the same
    agent, rules, seed and search, a saved row is reused (a stopped run resumes)."""
    folder = Path(folder)
    strong, training = load_strong(folder)
    if training.get("fingerprint") not in (None, scn.fingerprint()):
        raise TrainError(f"{folder / 'strong.toml'} was trained for another rule set "
                         f"(scenario {training.get('scenario')!r}); train for {scn.source} first")
    settings = scn.settings_at(scn.points()[0])
    # budget: one search per mechanic and a draft table of about a tenth
    per = budget * 0.9 / max(len(mechanics), 1)
    base = SearchConfig()
    cfg = base.scaled(min(1.0, per / base.cost(space_for(settings).dim, settings.players)))
    identity = json.loads(json.dumps({"fingerprint": scn.fingerprint(), "seed": scn.seed,
                                      "strong": strong.tolist(), "search": asdict(cfg)}))
    saved = _saved_rows(folder, identity)
    engine = Engine(threads=threads, scheduler=scheduler)
    engine.on_play = (lambda: progress(min(engine.matches, budget), budget)) if progress else None
    rows = []
    try:
        for name in mechanics:
            row = saved.get(name) or restricted_play(engine, settings, strong, name, cfg,
                                                     scn.seed)
            rows.append(row)
            saved[name] = row
            table = pd.DataFrame(list(saved.values()))
            atomic_write(folder / "value.parquet", table.to_parquet(index=False))
            atomic_write(folder / "value.json", json.dumps(
                {"scenario": scn.name, "budget": budget, "identity": identity}, indent=1))
        drafts = disruptor_table(engine, settings, strong, max(int(budget * 0.1), 400),
                                 scn.seed)
    finally:
        engine.close()
    table = pd.DataFrame([saved[m] for m in MECHANICS if m in saved])
    atomic_write(folder / "value.parquet", table.to_parquet(index=False))
    atomic_write(folder / "drafts.parquet", drafts.to_parquet(index=False))
    return pd.DataFrame(rows), drafts


def _saved_rows(folder: Path, identity: dict) -> dict[str, dict]:
    """The rows of an earlier value run with the same identity, by mechanic."""
    try:
        old = json.loads((folder / "value.json").read_text())
        if old.get("identity") != identity:
            return {}
        frame = pd.read_parquet(folder / "value.parquet")
    except (OSError, ValueError):
        return {}
    return {r["mechanic"]: r for r in frame.to_dict("records")}
