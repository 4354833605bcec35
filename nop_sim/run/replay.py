"""Any match of a run, played again from the run's seed with its event log on: what
``nop-sim hands RUN --match N`` and ``nop-sim replay`` read for a match the run did not
log (issue 37, item 4), for a game that can (``Game.replay_chunk``: New Order).

A run need not keep an event log as it plays (one New Order match in 50 cost about 1.2
of the baseline's 33 CPU seconds): a match's rows depend only on its chunk's seed, seats
and settings, all in the folder's manifest, so the chunk that holds the match is played
again with that match logged, exactly as the run played it. The replay is checked
against the row the run stored: a seat's agent file changed since the run, or a nop-sim
whose play has changed, ends the match otherwise, and the replay says so rather than
show another match.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim.core.errors import RunError, ScenarioError
from nop_sim.games import get_game
from nop_sim.results.store import read_rows
from nop_sim.run.planning import plan_chunks
from nop_sim.run.scenario import Scenario

__all__ = ["replay_events"]


def _scenario(out: Path, manifest: dict, cannot: str) -> Scenario:
    """The scenario the run played, rebuilt from its manifest (its ``@path`` seats read
    again: relative to the current folder, then to the scenario file's)."""
    stored = manifest["scenario"]
    data = tomllib.loads(stored["text"])
    for key in ("strong", "train", "tune", "targets"):  # beside what the run played
        data.pop(key, None)
    data["run"] = {**data.get("run", {}), "seed": int(manifest["seed"]),
                   "chunk": int(manifest["chunk"]),
                   "matches": int(manifest["matches_per_point"])}
    source = str(stored.get("source", "")).split(" [", 1)[0]  # "x.toml [strong]": x.toml's
    try:
        scn = Scenario.from_mapping(data, source=str(out / "manifest.json"),
                                    name=stored.get("name"),
                                    folder=Path(source).parent if source else None)
    except ScenarioError as exc:
        raise RunError(f"{cannot}: {exc}") from None
    if scn.fingerprint() != stored["fingerprint"]:
        files = ", ".join(sorted({f.path for f in scn.agent_files})) or "its seats"
        raise RunError(f"{cannot}: {files} changed since the run; run the scenario again "
                       f"to watch its matches")
    return scn


def replay_events(out: str | Path, manifest: dict, point: int, match: int) -> pd.DataFrame:
    """The event rows of match ``match`` at sweep point ``point`` of the run folder ``out``
    (its ``manifest``), played again: the ``events`` table's rows a run that logged the
    match stores.

    Raises :class:`RunError` (one line) for a game that cannot play a match again, a match
    the run has not, a scenario whose agent files changed or cannot be read, or a replay
    that ends otherwise than the stored match.
    """
    out = Path(out)
    game = get_game(manifest["scenario"]["kind"])
    if game.replay_chunk is None:
        raise RunError(f"{out}: {game.title} cannot play a match again")
    matches = int(manifest["matches_per_point"])
    if not 0 <= match < matches:
        raise RunError(f"{out}: match {match} is not a match of this run: use 0 to "
                       f"{matches - 1}")
    cannot = f"{out}: match {match} cannot be played again"
    scn = _scenario(out, manifest, cannot)
    chunk = next(c for c in plan_chunks(scn)
                 if c.point == point and c.first_match <= match < c.first_match + c.n_matches)
    tables = game.replay_chunk(scn, chunk, np.array([match], np.int64))
    stored = read_rows(out, "matches", point, match)
    played = tables["matches"].to_pandas()
    played = played[played["match"] == match]
    shared = [c for c in stored.columns if c in played.columns]
    if len(stored) != 1 or len(played) != 1 or (
            stored[shared].iloc[0].tolist() != played[shared].iloc[0].tolist()):
        raise RunError(f"{cannot}: played again it ends otherwise than the run stored it "
                       f"(this nop-sim plays differently from the one that ran it); run the "
                       f"scenario again to watch its matches")
    events = tables["events"].to_pandas()
    events = events[events["match"] == match].reset_index(drop=True)
    if events.empty:  # longer than the log's room
        raise RunError(f"{cannot}: its event log is longer than a log holds")
    return events
