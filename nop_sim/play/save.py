"""A match played at the table, kept as a run folder that ``nop-sim hands`` reads.

The folder holds ``manifest.json`` (the scenario as played, with ``[run] log_sample``
set: the match was logged) and the match's ``events`` and ``seats`` tables as Parquet,
point 0, match 0: ``nop-sim hands FOLDER --match 0`` prints its history.
"""

from __future__ import annotations

import time
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from nop_sim.results.store import arrow, write_json

__all__ = ["save_match"]


def save_match(out: Path, scn: Any, table: Any) -> Path:
    """Write ``table``'s match (``table.tables()``) into the folder ``out``; returns it."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name, frame in table.tables().items():
        import pyarrow.parquet as pq  # here: start-up time (Arrow), only at a match's end

        pq.write_table(arrow(frame), out / f"{name}.parquet")
    data = tomllib.loads(scn.text)
    data.setdefault("run", {})["log_sample"] = 1  # the one match was logged
    write_json(out / "manifest.json", {
        "command": "play",
        "scenario": {"name": scn.name, "source": scn.source, "kind": scn.kind,
                     "text": tomli_w.dumps(data)},
        "n_points": 1, "seat": table.seat, "seed": table.seed,
        "saved": time.strftime("%Y-%m-%dT%H:%M:%S"),
    })
    return out
