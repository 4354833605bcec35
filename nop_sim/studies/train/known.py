"""Deviations known to beat a strong field, kept beside it in ``deviations.json``.

A training's final search and every ``nop-sim exploit`` check end with a
deviation that beats the field by a checked margin. ``nop-sim value`` starts
both of each value's searches from them (the free one and the one without
the mechanic, so they stay equal efforts), so its values rest on play at
least as strong as the strongest deviation found so far (issue 20: against a
2M-match field, value's own searches, about 60,000 matches each, found
deviations gaining -2.3 points where the training's final search had found
+8.1, and valued manipulation at 0; started from that deviation as well, the
free search gained +8.6 and manipulation read +2.8 (+1.5 to +4.1)).

The file names the field it belongs to (a hash of its rows and weights, as
strong.toml reads): a field trained again or edited makes its entries
stale, and they are dropped, not used. Each entry holds the deviation's
parameters by name, its checked gain (win-rate points, 95% interval) and
what found it; the file keeps the :data:`MOST` largest gains.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from nop_sim.reporting import atomic_write
from nop_sim.studies.train.errors import TrainError
from nop_sim.studies.train.play import Field

__all__ = ["FILE", "MOST", "field_key", "known", "known_rows", "record_deviation"]

FILE = "deviations.json"
MOST = 8   # entries kept, the largest gains first


def field_key(fld: Field) -> str:
    """A hash of a field's rows and weights, to 9 significant digits: what the entries of a
    file belong to. (A weight read back from a file is normalised again, which can move
    its last bit: ``nop-sim exploit`` rewriting strong.toml's ``[training]`` must not
    make the field another.)"""
    def rounded(a) -> list:
        return [float(f"{x:.9g}") for x in np.asarray(a, float).ravel()]

    parts = [list(np.shape(fld.rows)), rounded(fld.rows), rounded(fld.weights)]
    if fld.tables is not None:  # a field that bets by tables is another field per table
        parts.append([np.asarray(fld.table_of).tolist(), hashlib.sha256(
            np.ascontiguousarray(fld.tables[1], np.float64).tobytes()).hexdigest()])
    blob = json.dumps(parts).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def _read(path: Path) -> dict:
    """The file, checked; raises :class:`TrainError` naming it when it cannot be read."""
    try:
        data = json.loads(path.read_text())
        entries = data["deviations"]
        if not isinstance(data["field"], str) or not isinstance(entries, list):
            raise ValueError("'field' must be a text and 'deviations' a list")
        for e in entries:
            if not isinstance(e["row"], dict):
                raise ValueError("each deviation's 'row' must be a table of parameters")
            float(e["gain"])
    except (ValueError, KeyError, TypeError) as exc:
        raise TrainError(f"{path}: not a deviations file ({exc}); remove it (nop-sim "
                         f"exploit finds deviations again)") from None
    return data


def known_rows(folder: Path, fld: Field, names: Sequence[str]) -> np.ndarray:
    """The rows ``(k, len(names))`` of the deviations known to beat ``fld`` (``folder``'s
    deviations.json), largest gain first; none where there is no file or it belongs to
    another field. Raises :class:`TrainError` for a file that cannot be read, or one whose
    rows lack a parameter of ``names``."""
    rows, _ = known(folder, fld, names)
    return rows


def known(folder: Path, fld: Field, names: Sequence[str]) -> tuple[np.ndarray, list[dict]]:
    """:func:`known_rows` and, beside each row, its entry of the file (``found_by``,
    ``gain``, ``low``, ``high``: what found it and how much it gains)."""
    path = Path(folder) / FILE
    none = np.zeros((0, len(names))), []
    if not path.is_file():
        return none
    data = _read(path)
    if data["field"] != field_key(fld):
        return none
    rows = []
    for e in data["deviations"]:
        missing = [n for n in names if n not in e["row"]]
        if missing:
            raise TrainError(f"{path}: a deviation lacks {', '.join(missing)}; remove the "
                             f"file (nop-sim exploit finds deviations again)")
        rows.append([float(e["row"][n]) for n in names])
    return (np.asarray(rows, float).reshape(len(rows), len(names)),
            list(data["deviations"]))


def record_deviation(folder: Path, fld: Field, names: Sequence[str], row: np.ndarray,
                     gain: float, low: float, high: float, found_by: str) -> bool:
    """Add a deviation that beats ``fld`` (``gain``, ``low``, ``high``: win-rate points) to
    ``folder``'s deviations.json; entries of another field, and an unreadable file, are
    replaced. Returns whether the file changed (a row already there is kept once, with
    the larger gain)."""
    path = Path(folder) / FILE
    key = field_key(fld)
    entries: list[dict] = []
    if path.is_file():
        try:
            data = _read(path)
        except TrainError:
            data = {"field": None, "deviations": []}
        if data["field"] == key:
            entries = data["deviations"]
    new = {"found_by": found_by, "gain": round(float(gain), 3), "low": round(float(low), 3),
           "high": round(float(high), 3),
           "row": {n: float(v) for n, v in zip(names, np.asarray(row, float), strict=True)}}
    same = [e for e in entries if e["row"] == new["row"]]
    if same and max(float(e["gain"]) for e in same) >= new["gain"]:
        return False
    entries = [e for e in entries if e["row"] != new["row"]] + [new]
    entries.sort(key=lambda e: -float(e["gain"]))
    atomic_write(path, json.dumps({"field": key, "deviations": entries[:MOST]}, indent=1))
    return True
