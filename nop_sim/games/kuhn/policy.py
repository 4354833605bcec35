"""Kuhn poker's policy space: what ``nop-sim train``, ``value`` and ``exploit`` search.

An agent is one row of 48 numbers, the chance to bet (or, facing a bet, to call)
at each infoset (:mod:`.tree`), named ``bet_<infoset>`` in OpenSpiel's spelling:
``bet_0`` (card 0, first to act), ``bet_2pb`` (card 2 after a pass and a bet: call?),
``bet_1ppbp``. A row decides every seat's play (each seat reads its own 16
columns), so a symmetric field of rows is a strategy profile and the exact oracle
(:mod:`.exact`) measures it.

Presets (their exact NashConv, chips per hand, in ``scenarios/kuhn3.toml``):

===============  =================================================================
``uniform``      bets or passes, calls or folds, at even chances (OpenSpiel's
                 uniform random policy)
``always-bet``   bets and calls everything
``check-fold``   never bets, folds to every bet
``tight``        bets and calls with card 3 only
``bluffer``      opens with 3 and (a bluff) with 0, calls with 3 and 2
===============  =================================================================

Mechanics (restricted play): ``betting`` (never opens a bet: every infoset before
the first bet pinned to 0) and ``calling`` (never calls: every answer to a bet
pinned to 0, a fold).

Files: an agent file is the shared ``[agent]`` / ``[[agent]]`` TOML
(:mod:`nop_sim.games.agent_files`); ``policy.csv`` (columns ``infoset,p_bet``, one
row per infoset) is OpenSpiel's view of a policy, which ``nop-sim train`` writes
beside ``strong.toml`` (the field's behaviour policy, :func:`~.exact.behaviour`)
and which a seat reads as ``@path/policy.csv`` (:func:`read_policy_csv`).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nop_sim.core.errors import AgentError, did_you_mean
from nop_sim.games.agent_files import AgentFile, read_rows, write_rows
from nop_sim.games.kuhn import cfr, exact
from nop_sim.games.kuhn.engine import play_hands
from nop_sim.games.kuhn.tree import (
    CARDS,
    HISTORIES,
    INFOSETS,
    N_INFOSETS,
    NODE_OF,
    column,
    column_of_infoset,
)
from nop_sim.games.registry import FieldPlay, PolicySpace, SeatFile

__all__ = ["MECHANICS", "NAMES", "POLICY", "POLICY_CSV", "PRESETS", "agent_row", "check_spec",
           "exact_exploitability", "play_field", "read_agent_file", "read_policy_csv",
           "spec_of", "write_agent_file", "write_policy", "write_policy_csv"]

NAMES = tuple(f"bet_{s}" for s in INFOSETS)
POLICY_CSV = "policy.csv"
CSV_COLUMNS = ("infoset", "p_bet")

_OPENING = tuple(h for h in HISTORIES if "b" not in h)   # no bet yet: a bet opens
MECHANICS: dict[str, dict[str, float]] = {
    "betting": {NAMES[column(NODE_OF[h], c)]: 0.0 for h in _OPENING for c in range(CARDS)},
    "calling": {NAMES[column(NODE_OF[h], c)]: 0.0 for h in HISTORIES if h not in _OPENING
                for c in range(CARDS)},
}


def _by_card(opening: Sequence[float], calling: Sequence[float]) -> np.ndarray:
    """A row that bets with ``opening[card]`` before any bet and calls with
    ``calling[card]`` after one, whatever the history."""
    row = np.empty(N_INFOSETS)
    for h in HISTORIES:
        chance = opening if h in _OPENING else calling
        for c in range(CARDS):
            row[column(NODE_OF[h], c)] = chance[c]
    return row


PRESETS: dict[str, np.ndarray] = {
    "uniform": np.full(N_INFOSETS, 0.5),
    "always-bet": np.ones(N_INFOSETS),
    "check-fold": np.zeros(N_INFOSETS),
    "tight": _by_card((0, 0, 0, 1), (0, 0, 0, 1)),
    "bluffer": _by_card((1, 0, 0, 1), (0, 0, 1, 1)),
}


def preset_names() -> tuple[str, ...]:
    return tuple(PRESETS)


def bounds() -> tuple[np.ndarray, np.ndarray]:
    """Every chance lies in [0, 1]."""
    return np.zeros(N_INFOSETS), np.ones(N_INFOSETS)


def searched(settings) -> tuple[str, ...]:
    """Every infoset can matter."""
    return NAMES


def spec_of(row) -> dict[str, float]:
    """A row of numbers as the table an agent file holds (``bet_<infoset>`` -> chance)."""
    return {name: float(v) for name, v in zip(NAMES, np.asarray(row, float), strict=True)}


def _check_chance(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
            or not math.isfinite(float(value)) or not 0.0 <= float(value) <= 1.0:
        raise AgentError(f"agent parameter {name} = {value!r} is out of range: give the "
                         f"chance to bet (or call) there, a number from 0 to 1")
    return float(value)


def agent_row(spec: str | Mapping[str, Any] | Sequence[float]) -> np.ndarray:
    """One seat's row, float64 ``(48,)``, from a preset name, a table of ``bet_<infoset>``
    chances (optionally ``preset`` as its base; a one-row :class:`SeatFile` too) or 48
    numbers; :class:`~nop_sim.core.errors.AgentError` (a ``ValueError``) naming what is
    wrong (a mixture is no one row)."""
    if isinstance(spec, str):
        name = spec.strip().lower()
        if name not in PRESETS:
            raise AgentError(f"unknown Kuhn poker preset {spec!r}."
                             f"{did_you_mean(name, PRESETS)} Presets: {', '.join(PRESETS)}")
        return PRESETS[name].copy()
    if isinstance(spec, Mapping):
        rows = getattr(spec, "rows", ())
        if len(rows) > 1:
            raise AgentError(f"{getattr(spec, 'label', 'the agent')} (file "
                             f"{getattr(spec, 'path', '?')}) is a mixture of {len(rows)} "
                             f"rows, which plays one row per hand, not one fixed agent")
        params = dict(spec)
        row = agent_row(params.pop("preset", "uniform"))
        for key, value in params.items():
            if key not in NAMES:
                raise AgentError(f"unknown Kuhn poker agent parameter {key!r}."
                                 f"{did_you_mean(key, NAMES)} Allowed: preset and bet_<infoset> "
                                 f"for the 48 infosets (card then history: bet_0, bet_2pb, "
                                 f"bet_1ppbp, ...)")
            row[NAMES.index(key)] = _check_chance(key, value)
        return row
    row = np.asarray(spec, dtype=float)
    if row.shape != (N_INFOSETS,):
        raise AgentError(f"a Kuhn poker agent row needs {N_INFOSETS} numbers (the chance to "
                         f"bet at each infoset), got shape {row.shape}")
    for name, value in zip(NAMES, row, strict=True):
        _check_chance(name, float(value))
    return row.copy()


def check_spec(spec) -> None:
    """Raise ``ValueError`` when a seat spec (a mixture: every row) is no agent."""
    for k, row in enumerate(spec.rows if isinstance(spec, SeatFile) else [spec]):
        try:
            agent_row(row)
        except AgentError as exc:
            if isinstance(spec, SeatFile):
                where = f", row {k}" if spec.is_mixture else ""
                raise AgentError(f"{spec.label} (agent file {spec.path}{where}): {exc}") from None
            raise


def read_policy_csv(path: str | Path) -> np.ndarray:
    """A ``policy.csv`` (columns ``infoset,p_bet``, one row per infoset in OpenSpiel's
    spelling) as a row, float64 ``(48,)``. Raises ``ValueError``, one line naming the
    file and the row, for a file that is missing or not such a table, an infoset that
    does not exist or comes twice, a ``p_bet`` that is no number from 0 to 1, or an
    infoset left out."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"policy file {path} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"policy file {path}: cannot be read: {exc}") from None
    lines = list(csv.reader(text.splitlines()))
    if not lines or tuple(c.strip() for c in lines[0]) != CSV_COLUMNS:
        raise ValueError(f"policy file {path}: its first line must be the header "
                         f"{','.join(CSV_COLUMNS)}")
    row = np.full(N_INFOSETS, np.nan)
    for number, cells in enumerate(lines[1:], start=2):
        if not cells or not "".join(cells).strip():
            continue
        where = f"policy file {path}, line {number}"
        if len(cells) != 2:
            raise ValueError(f"{where}: needs 2 cells (infoset,p_bet), got {len(cells)}")
        name, chance = cells[0].strip(), cells[1].strip()
        try:
            col = column_of_infoset(name)
        except KeyError:
            raise ValueError(f"{where}: no infoset {name!r} in three-player Kuhn poker; an "
                             f"infoset is the card (0 to 3) then the history "
                             f"({', '.join(repr(h) for h in HISTORIES)})"
                             + did_you_mean(name, INFOSETS)) from None
        if not np.isnan(row[col]):
            raise ValueError(f"{where}: infoset {name!r} is given twice")
        try:
            value = float(chance)
        except ValueError:
            value = float("nan")
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{where}: p_bet = {chance!r} for infoset {name!r} is not "
                             f"allowed: give the chance to bet (or call), a number from 0 to 1")
        row[col] = value
    missing = [INFOSETS[c] for c in np.flatnonzero(np.isnan(row))]
    if missing:
        raise ValueError(f"policy file {path}: {len(missing)} infoset(s) missing, e.g. "
                         f"{', '.join(repr(m) for m in missing[:4])}: give all {N_INFOSETS}")
    return row


def write_policy_csv(path: str | Path, row) -> Path:
    """Write a row as ``policy.csv`` (``infoset,p_bet``, OpenSpiel's infosets in row order,
    each chance to 17 significant digits), atomically; :func:`read_policy_csv` reads it
    back exactly."""
    # start-up: nop_sim.reporting loads pandas, which a worker playing hands never needs
    from nop_sim.reporting.write import atomic_write

    row = agent_row(np.asarray(row, float))
    text = ",".join(CSV_COLUMNS) + "\n" + "".join(
        f"{name},{float(v)!r}\n" for name, v in zip(INFOSETS, row, strict=True))
    return atomic_write(path, text)


def read_agent_file(path: str | Path) -> AgentFile:
    """A Kuhn poker agent file: the shared TOML (:func:`nop_sim.games.agent_files.read_rows`)
    or, for a ``.csv`` file, a ``policy.csv`` (:func:`read_policy_csv`), one row."""
    path = Path(path)
    if path.suffix.lower() == ".csv":
        return AgentFile(rows=(spec_of(read_policy_csv(path)),), weights=(1.0,),
                         training={}, path=str(path))
    return read_rows(path, agent_row, NAMES)


def write_agent_file(path: str | Path, rows: Sequence, weights: Sequence[float],
                     training: Mapping[str, Any], header: str = "") -> Path:
    """Write rows (of numbers, or tables) as an agent file :func:`read_agent_file` reads."""
    tables = [dict(r) if isinstance(r, Mapping) else spec_of(r) for r in rows]
    return write_rows(path, tables, weights, training, header, agent_row, NAMES)


def play_field(settings, tables: np.ndarray, table_of: np.ndarray, states: np.ndarray,
               threads: int | None = None) -> FieldPlay:
    """Play hand ``i`` with the rows ``tables[table_of[i]]`` from ``states[i]``
    (:func:`~.engine.play_hands`): each seat's net chips (``score``), the pot's winner
    (place 1, the others 2), one hand of work each. NumPy, vectorised: ``threads`` is
    not used."""
    hands = play_hands(tables, table_of, states)
    score = hands.score
    n = score.shape[0]
    ones = np.ones(n, dtype=np.int64)
    return FieldPlay(place=np.where(score > 0, 1, 2), work=ones,
                     seat_work=np.ones((n, settings.players), dtype=np.int64),
                     score=score.astype(np.float64))


def exact_exploitability(settings, rows, weights) -> dict[str, float]:
    """The field's exact figures, chips per hand (:func:`~.exact.exploitability`)."""
    return exact.exploitability(np.asarray(rows, float), np.asarray(weights, float))


def write_policy(folder: str | Path, rows, weights) -> Path:
    """Write the field's behaviour policy (:func:`~.exact.behaviour`) as ``policy.csv`` in
    ``folder`` (beside a training's strong.toml)."""
    return write_policy_csv(Path(folder) / POLICY_CSV,
                            exact.behaviour(np.asarray(rows, float), np.asarray(weights, float)))


POLICY = PolicySpace(
    names=NAMES,
    bounds=bounds,
    searched=searched,
    mechanics=MECHANICS,
    presets=preset_names,
    agent_row=agent_row,
    read_agent_file=read_agent_file,
    write_agent_file=write_agent_file,
    play_field=play_field,
    unit="chips",
    scale=1.0,
    digits=3,
    epsilon=0.01,
    exact_exploitability=exact_exploitability,
    write_extra=write_policy,
    regret=cfr.TRAINER,
)
