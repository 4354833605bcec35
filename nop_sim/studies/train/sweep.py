"""``nop-sim sweep --train``: a strong agent for every sweep point, cached by its settings.

Each point becomes a scenario of its own (:func:`~nop_sim.run.scenario.point_scenario`)
and trains into ``<cache>/<fingerprint>-<budget>-e<epsilon>-psro/``, where the fingerprint is the
point's: its settings, starting seats and seed. A point trained before with the
same budget is read back, not trained again, whichever sweep it was part of.
The sweep then seats that point's agent in every seat of the point
(:attr:`~nop_sim.run.scenario.Scenario.point_seats`), so every point reports under
strong play.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from nop_sim.games import SeatFile
from nop_sim.games.registry import policy_of
from nop_sim.run.scenario import Scenario, point_key, point_scenario
from nop_sim.studies.train.trainer import TrainConfig, train_folder

__all__ = ["DEFAULT_CACHE", "train_points"]

DEFAULT_CACHE = Path("reports") / "train-cache"


def train_points(scn: Scenario, cfg: TrainConfig, *, cache: Path = DEFAULT_CACHE,
                 threads: int | None = None, scheduler: str | None = None,
                 progress: Callable[[int, int, int], None] | None = None,
                 say: Callable[[str], None] | None = None) -> Scenario:
    """``scn`` with every point's seats taken by the agent trained for that point."""
    points = scn.points()
    seats = {}
    for i, point in enumerate(points):
        sub = point_scenario(scn, i)
        folder = Path(cache) / f"{sub.fingerprint()}-{cfg.budget}-e{cfg.epsilon:g}-psro"
        reused = (folder / "state.json").exists()

        def tick(done, total, i=i):
            if progress is not None:
                progress(i * total + done, len(points) * total, i)

        result = train_folder(sub, folder, cfg, threads=threads, scheduler=scheduler,
                              resume=True, progress=tick)
        read_agent_file = policy_of(sub.settings_at(sub.points()[0])).read_agent_file
        seats[point_key(point)] = SeatFile.from_agent_file(
            read_agent_file(folder / "strong.toml"), given=str(folder / "strong.toml"),
            label=f"trained(point {i})")
        if say is not None:
            say(f"point {i} {dict(point)}: {'reused' if reused else 'trained'} {folder}, "
                f"exploitability {result.exploitability:+.1f} points")
    files = tuple(scn.agent_files) + tuple(seats.values())
    return dataclasses.replace(scn, point_seats=seats, agent_files=files)
