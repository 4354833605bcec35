"""A finished run read back whole: its manifest and its tables, for any game's analysis.

:func:`load_run` reads a run folder (:func:`nop_sim.results.store.load_tables`) into a
:class:`RunData`, which answers what the manifest records of each sweep point (its
settings, swept parameters, seats) and hands out the tables, checked to hold the
columns asked for (:class:`~nop_sim.core.errors.MissingData` otherwise). A game's
analysis builds its tables on it: New Order's
(:mod:`nop_sim.games.new_order.analysis`) reads only some columns of its large
``drafts`` table.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nop_sim.core.errors import MissingData
from nop_sim.results.store import load_strong_play, load_tables

__all__ = ["RunData", "load_run"]


@dataclass
class RunData:
    """A finished run: its manifest and tables (see :mod:`nop_sim.results.store`), read
    by :func:`load_run`; what any game's analysis asks of a run's manifest."""

    manifest: dict[str, Any]
    tables: dict[str, pd.DataFrame]
    folder: Path | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def points(self) -> list[int]:
        return [int(p["point"]) for p in self.manifest.get("points", [])] or sorted(
            self.table("matches")["point"].unique().tolist())

    @cached_property
    def _points_by_id(self) -> dict[int, dict]:
        return {int(p["point"]): p for p in self.manifest.get("points", [])}

    def settings(self, point: int) -> dict[str, Any]:
        """The resolved settings of a sweep point (empty when the manifest lacks them)."""
        return dict(self._points_by_id.get(int(point), {}).get("settings", {}))

    def params(self, point: int) -> dict[str, Any]:
        """The swept parameters of a point (empty for a single run)."""
        return dict(self._points_by_id.get(int(point), {}).get("params", {}))

    def point_seats(self, point: int) -> list[str] | None:
        """The seats of a point as the manifest records them (their labels, rotation 0);
        None when it lacks them."""
        return self._points_by_id.get(int(point), {}).get("seats")

    def setting(self, point: int, name: str, default: Any = None) -> Any:
        return self.settings(point).get(name, default)

    def players(self, point: int) -> int:
        value = self.setting(point, "players")
        if value is None:
            seats = self.table("seats")
            value = seats.loc[seats["point"] == point, "seat"].nunique()
        return int(value)

    @property
    def swept(self) -> list[str]:
        """Names of the swept parameters, in manifest order."""
        names: list[str] = []
        for p in self.manifest.get("points", []):
            for k in p.get("params", {}):
                if k not in names:
                    names.append(k)
        return names

    @property
    def rotated(self) -> bool:
        return bool(self.manifest.get("rotation"))

    @property
    def targets(self) -> dict[str, float]:
        return dict(self.manifest.get("targets") or {})

    @property
    def target_kinds(self) -> dict[str, str]:
        """Each target's kind: "value" (hit it), "max" or "min" (a bound)."""
        return dict(self.manifest.get("target_kinds") or {})

    @cached_property
    def strong_play(self) -> tuple[pd.DataFrame, pd.DataFrame] | None:
        """``(strong_play, values)`` of a sweep run with ``--train`` (``--value``): each
        point's training and each point's mechanic values, in win-rate points
        (:func:`nop_sim.results.store.load_strong_play`); None for a run without."""
        return None if self.folder is None else load_strong_play(self.folder)

    def table(self, name: str, *columns: str) -> pd.DataFrame:
        """A table, checked to hold ``columns`` (raises :class:`MissingData`)."""
        frame = self.tables.get(name)
        if frame is None:
            raise MissingData(f"the run has no {name!r} table")
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise MissingData(f"the {name!r} table has no column {', '.join(missing)}")
        return frame

    def subset(self, points) -> RunData:
        """The same run restricted to some sweep points (for a per-point report)."""
        points = {int(p) for p in np.atleast_1d(points)}
        tables = {name: (t[t["point"].isin(points)] if "point" in t.columns else t)
                  for name, t in self.tables.items()}
        manifest = dict(self.manifest)
        manifest["points"] = [p for p in self.manifest.get("points", [])
                              if int(p["point"]) in points]
        return type(self)(manifest, tables, self.folder)


def load_run(folder: str | Path,
             columns: Mapping[str, Sequence[str]] | None = None) -> RunData:
    """Read ``manifest.json`` and the Parquet tables of a finished run; ``columns``: table
    -> the only columns read (a game's large tables), as :func:`load_tables` takes it."""
    folder = Path(folder)
    tables = load_tables(folder, columns=columns)
    manifest = json.loads((folder / "manifest.json").read_text())
    return RunData(manifest, tables, folder)
