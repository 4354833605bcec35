"""One runner chunk of New Order as the store's tables (pyarrow Tables: no pandas on
this path), the registry's ``play_chunk`` and ``play_chunks``.

The chunk's tables (see :func:`play_chunk`) are the New Order store:
``matches``, ``seats``, ``drafts``, ``counts``, ``events`` (rows, appended)
and ``arrays`` (per-point counters, summed).
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from nop_sim.core.profiling import phase
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.agents import agent_table
from nop_sim.games.new_order.engine import play_batches
from nop_sim.games.new_order.history import EVENT_COLUMNS
from nop_sim.games.new_order.seats import (
    is_mixture,
    match_tables,
    mix_rows,
    seat_betting,
    seat_label,
)
from nop_sim.results import store

__all__ = ["play_chunk", "play_chunks", "replay_chunk"]


@cache
def _names(prefix: str) -> dict[int, str]:
    """Index -> column name of the ``types`` constants ``<prefix>NAME`` (``M_HANDS`` -> hands)."""

    return {getattr(T, n): n[len(prefix):].lower() for n in dir(T)
            if n.startswith(prefix) and isinstance(getattr(T, n), int)}


def _text(values):
    """A text column (``large_string``, as pandas writes it)."""
    return pa.array(values, type=pa.large_string())


def _pick(labels, idx: np.ndarray):
    """``labels[idx]`` (an Arrow text array) as a text column, taken in Arrow (no Python
    string per row)."""
    return labels.take(pa.array(np.asarray(idx, dtype=np.int64)))


def _const(value, n: int):
    """A swept setting's column: ``value`` repeated ``n`` times."""
    if isinstance(value, str):
        return _pick(_text([value]), np.zeros(n, np.int64))
    return pa.array([value] * n)


def play_chunk(scn, chunk) -> dict:
    """Play one runner chunk; the store's tables (pyarrow Tables: no pandas on this path).

    matches : one row per match: ``point, chunk, match, rotation``, the swept
        settings, ``players``, every ``types.M_*`` field, ``winner_preset``, ``column``
    seats : one row per (match, seat): ``preset`` (the seat's label), ``mix_row`` (the
        row of a mixture agent file the seat played, -1 for a seat that is not a
        mixture: :func:`mix_rows`) and every ``types.PL_*`` field
    drafts : one row per (match, seat, Disruptor drafted): ``card, count`` (stored a row
        a seat, a column a card: :func:`nop_sim.results.store.wide_table`)
    counts : one row per chunk: ``n_matches`` and every ``types.C_*`` counter
    arrays : long ``point, table, stat, index, label, value``: categories,
        time and Disruptor counters (summed over chunks)
    events : the logged matches (``[run] log_sample``), ``point, chunk`` +
        :data:`EVENT_COLUMNS`
    """
    return play_chunks(scn, [chunk])


def play_chunks(scn, chunks) -> dict:
    """Play consecutive chunks at once: the tables :func:`play_chunk` gives for each,
    appended in chunk order, with ``arrays`` added up per point.

    Every chunk still plays its own seeded batches (one per seat rotation,
    :meth:`nop_sim.run.planning.Chunk.rotation_batches`), so a chunk's rows never
    depend on which others share its call; the chunks of one sweep point go
    to the engine in one call (:func:`nop_sim.games.new_order.engine.play_batches`) and their
    tables are built once.
    """
    played = [_point_tables(scn, list(group))
              for _, group in itertools.groupby(chunks, key=lambda c: c.point)]
    if len(played) == 1:
        return played[0]
    return {name: pa.concat_tables([p[name] for p in played], promote_options="permissive")
            for name in played[0]}


def replay_chunk(scn, chunk, ids: np.ndarray) -> dict:
    """One chunk of a run played again with the run's matches ``ids`` (int64) logged: the
    tables :func:`play_chunk` gives, the ``events`` those matches' (the registry's
    ``replay_chunk``)."""
    return _point_tables(scn, [chunk], np.asarray(ids, np.int64))


def _point_tables(scn, chunks: list, log_ids: np.ndarray | None = None) -> dict:
    """The tables of consecutive chunks of one sweep point (see :func:`play_chunk`);
    ``log_ids``: the matches logged (:func:`_play_rotated`)."""
    p = chunks[0].point
    point = scn.points()[p]
    settings = scn.settings_at(point)
    res, rotation, mix_row = _play_rotated(scn, point, settings, chunks, log_ids)
    n, players, k = res["match"].shape[0], settings.players, len(chunks)
    sizes = np.array([c.n_matches for c in chunks], np.int64)
    seat_labels = np.array([[seat_label(s) for s in scn.seat_specs(point, r)]
                            for r in range(scn.n_rotations)], dtype=object)
    match_ids = np.concatenate([c.first_match + np.arange(c.n_matches, dtype=np.int64)
                                for c in chunks])
    point_col = np.full(n, p, np.int64)
    chunk_col = np.repeat(np.array([c.index for c in chunks], np.int64), sizes)
    m = res["match"]
    winner = m[:, T.M_WINNER]
    valid = (winner >= 0) & (winner < players)
    # preset of the winner, "" for none: index into the seat labels plus one "" entry
    flat = _text([*seat_labels.reshape(-1), ""])
    winner_idx = np.where(valid, rotation * players + np.where(valid, winner, 0), len(flat) - 1)
    matches = pa.table({
        "point": point_col, "chunk": chunk_col, "match": match_ids,
        "rotation": rotation.astype(np.int64),
        **{key: _const(v, n) for key, v in point.items()},
        "players": np.full(n, players, np.int64),
        **{name: m[:, idx] for idx, name in sorted(_names("M_").items())},
        "winner_preset": _pick(flat, winner_idx),
        "column": _column_text(res["column"])})
    pl = res["player"]
    seats = pa.table({
        "point": np.repeat(point_col, players), "chunk": np.repeat(chunk_col, players),
        "match": np.repeat(match_ids, players), "seat": np.tile(np.arange(players), n),
        "preset": _pick(flat, (rotation[:, None] * players + np.arange(players)).reshape(-1)),
        "mix_row": mix_row.reshape(-1),
        **{key: _const(v, n * players) for key, v in point.items()},
        **{name: pl[:, :, idx].reshape(-1) for idx, name in sorted(_names("PL_").items())},
    })
    # stored wide, a row a seat and a column a card, read back long (a row a card drafted:
    # built and written so, the drafts took a third of what a part spends beside the engine)
    drafts = store.wide_table(
        {"point": np.repeat(point_col, players), "chunk": np.repeat(chunk_col, players),
         "match": np.repeat(match_ids, players), "seat": np.tile(np.arange(players), n)},
        res["drafted"].reshape(n * players, -1), "card", "count", T.DISRUPTOR_IDS)
    counts = pa.table({"point": np.full(k, p, np.int64),
                       "chunk": np.array([c.index for c in chunks], np.int64),
                       "n_matches": sizes, **{key: _const(v, k) for key, v in point.items()},
                       **{name: res["counts"][:, idx]
                          for idx, name in sorted(_names("C_").items())}})
    return {"matches": matches, "seats": seats, "drafts": drafts, "counts": counts,
            "arrays": _arrays_frame(p, res), "events": _events_frame(chunks, res["events"])}


_ROWS = ("match", "player", "drafted", "column")          # one row per match
_SUMS = ("counts", "categories", "time", "disruptors")     # counters, merged by addition
# Logged batches one engine call plays: each reserves its log's room (22 MB of address
# space at play_batches' log_capacity, only the rows written touched, kept for the next)
LOGGED_PER_CALL = 16


def _play_rotated(scn, point: dict, settings, chunks: list,
                  log_ids: np.ndarray | None = None) -> tuple[dict, np.ndarray]:
    """Play consecutive chunks of one point; with a rotation, match ``g`` seats rotation
    ``g % R``.

    Each rotation's matches of a chunk are one batch with its own seed
    (:meth:`nop_sim.run.planning.Chunk.rotation_batches`), so results stay
    independent of workers and of the chunks played beside it. Batches with
    no logged match go to the engine in one call, batches with one in calls of
    at most :data:`LOGGED_PER_CALL`, with their event log
    (:func:`nop_sim.games.new_order.engine.play_batches` plays each batch as
    its own chunk either way). Returns the arrays by name: per-match rows
    (chunk after chunk, in match order), counters per chunk (first axis), and
    ``events``, each chunk's logged rows with the run's match ids (a list per chunk of
    its batches' pieces); each match's rotation; and the mixture row of each match and
    seat (int64 ``(n, players)``, -1 where the seat is not a mixture).

    A seat given a mixture plays, in each match, the row :func:`mix_rows` draws
    for it; the matches then seat one agent table per combination of rotation
    and rows drawn (the engine's ``table_of``). Without a mixture every match of
    a rotation seats that rotation's table. A seat whose agent file names a betting
    table plays its betting decisions from it (:func:`seat_betting`).

    The matches logged are the run's ids that are multiples of ``[run] log_sample``, or
    those of ``log_ids`` (int64 run match ids) where given: a match played again with
    its log on (:func:`replay_chunk`) plays as the run played it, since
    logging changes no match's rows and each batch keeps its seed.
    """
    sizes = [c.n_matches for c in chunks]
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    rotation = np.empty(starts[-1], np.int64)
    specs = [scn.seat_specs(point, r) for r in range(scn.n_rotations)]
    mix_row = np.full((starts[-1], settings.players), -1, np.int64)
    joint, logged = [], []  # (chunk position, rotation, rows in the chunk, seed, logged)
    for i, c in enumerate(chunks):
        rot, batches = c.rotation_batches(scn.n_rotations)
        rotation[starts[i]:starts[i + 1]] = rot
        for r, idx, seed in batches:
            # log the run's matches whose id is a multiple of log_sample, wherever they fall
            if log_ids is not None:
                log = np.flatnonzero(np.isin(c.first_match + idx, log_ids))
            else:
                log = (np.flatnonzero((c.first_match + idx) % scn.log_sample == 0)
                       if scn.log_sample else np.zeros(0, np.int64))
            (logged if log.size else joint).append((i, r, idx, seed, log))
    # a match's rows depend on its id alone (mix_rows): drawn once a rotation, not a batch
    ids = np.concatenate([c.first_match + np.arange(c.n_matches, dtype=np.int64)
                          for c in chunks])
    for r in range(scn.n_rotations):
        if any(map(is_mixture, specs[r])):
            mine = np.flatnonzero(rotation == r)
            mix_row[mine] = mix_rows(scn.seed, specs[r], ids[mine])
    if (mix_row >= 0).any():
        tables, table_of = match_tables(specs, rotation, mix_row)
        table_rotation = np.zeros(tables.shape[0], np.int64)
        table_rotation[table_of] = rotation  # every table seats one rotation
    else:
        tables, table_of = np.stack([agent_table(specs[r], settings.players)
                                     for r in range(scn.n_rotations)]), None
        table_rotation = np.arange(scn.n_rotations)
    betting = seat_betting(specs, table_rotation)  # None: no seat plays a betting table
    # each chunk's logged rows, a piece a batch (appended once, in _events_frame)
    out: dict = {"events": [[] for _ in chunks]}

    def put(rows: np.ndarray, of_chunk: np.ndarray, res) -> None:
        """Batches' rows into place (``rows``: their positions in the output) and their
        counters (first axis: one entry a batch) onto their chunks (``of_chunk``,
        ascending, one a batch)."""
        for names, size in ((_ROWS, starts[-1]), (_SUMS, len(chunks))):
            for name in names:
                arr = getattr(res, name)
                if name not in out:
                    out[name] = np.zeros((size,) + arr.shape[1:], arr.dtype)
        for name in _ROWS:
            out[name][rows] = getattr(res, name)
        first = np.flatnonzero(np.diff(of_chunk, prepend=-1))  # a chunk's first batch
        # the time series' rows past the call's longest match are zeros: not read (1000
        # rows a batch, most of them beyond every match, were half of this function's time)
        used = int(res.match[:, T.M_HANDS].max(initial=0))
        for name in _SUMS:
            arr = getattr(res, name)
            if name == "time":
                out[name][of_chunk[first], :used] += np.add.reduceat(arr[:, :used], first,
                                                                     axis=0)
            else:
                out[name][of_chunk[first]] += np.add.reduceat(arr, first, axis=0)

    def play(batches: list, log: bool, alone: bool = False) -> None:
        """Batches (``joint``'s or ``logged``'s entries, in chunk order) in one engine call;
        ``alone``: every batch of the chunks, whose rows and counters the engine then
        writes in place (no copy after it)."""
        rows = np.concatenate([starts[i] + idx for i, _r, idx, _s, _l in batches])
        of_chunk = np.array([b[0] for b in batches], np.int64)
        mask = None
        if log:
            mask = np.zeros(rows.size, np.int8)
            at = np.cumsum([0] + [b[2].size for b in batches])
            for k, b in enumerate(batches):
                mask[at[k] + b[4]] = 1
        res = play_batches(settings, tables, [b[1] for b in batches],
                           [b[2].size for b in batches], [b[3] for b in batches],
                           table_of=None if table_of is None else table_of[rows],
                           log_mask=mask, betting=betting,
                           rows=rows if alone else None, slots=of_chunk if alone else None)
        if alone:
            out.update({name: getattr(res, name) for name in (*_ROWS, *_SUMS)})
        else:
            put(rows, of_chunk, res)
        for (i, _r, idx, _s, _l), events in zip(batches, res.events, strict=True):
            if events.shape[0]:  # the batch's match index -> the run's match id
                events[:, 0] = chunks[i].first_match + idx[events[:, 0]]
                out["events"][i].append(events)

    with phase("simulation"):
        if joint:
            play(joint, log=False, alone=not logged)
        for k in range(0, len(logged), LOGGED_PER_CALL):
            play(logged[k:k + LOGGED_PER_CALL], log=True)
    return out, rotation, mix_row


def _events_frame(chunks: list, events: list[list[np.ndarray]]):
    """Consecutive chunks' logged matches as rows ``point, chunk`` + :data:`EVENT_COLUMNS`,
    chunk after chunk, each match's rows together and in match order.

    ``events``: each chunk's kernel rows, int64 (n, EV_WIDTH) (``nop_sim.games.new_order.history``),
    with the run's match ids, in pieces (a batch's). Only whole matches are kept: a log that
    ran out of room (``events_lost``) loses the matches it cut short, never a part of one.
    Built once for the chunks (a table a chunk, appended, took 2 ms a chunk), each piece
    put straight into its place in the columns (appending the pieces first copied every
    row once more).
    """
    pieces = [e for of_chunk in events for e in of_chunk]
    sizes = [len(e) for e in pieces]
    ids = (np.concatenate([e[:, 0] for e in pieces]) if pieces else np.zeros(0, np.int64))
    kind = (np.concatenate([e[:, 2] for e in pieces]) if pieces else np.zeros(0, np.int64))
    chunk = np.repeat(np.array([c.index for c in chunks], np.int64),
                      [sum(len(e) for e in of_chunk) for of_chunk in events])
    # the chunks' match ids ascend chunk after chunk: one stable sort by match id keeps
    # each chunk's rows together, in chunk order
    order = np.argsort(ids, kind="stable")
    ranked = ids[order]
    ended = np.unique(ids[kind == T.EV_MATCH_END])
    if ended.size < np.count_nonzero(np.diff(ranked)) + (ranked.size > 0):  # a match cut short
        order = order[np.isin(ranked, ended)]
    dest = np.full(ids.size, -1, np.int64)  # each row's place among those kept
    dest[order] = np.arange(order.size)
    # here, not at the top: the kernels load after engine.refresh_kernel_cache (which
    # play_batches ran)
    from nop_sim.games.new_order.kernels.eventlog import scatter_columns

    # the columns, each contiguous (Arrow takes them without a copy)
    cols = np.empty((T.EV_WIDTH, order.size), np.int64)
    at = 0
    for e, n in zip(pieces, sizes, strict=True):
        scatter_columns(e, dest[at:at + n], cols)
        at += n
    return pa.table({"point": np.full(order.size, chunks[0].point, np.int64),
                     "chunk": chunk[order],
                     **{name: cols[i] for i, name in enumerate(EVENT_COLUMNS)}})


def _column_text(column: np.ndarray):
    """Each match's final column as text, categories top first: ``"12 11 ... 0"``
    (joined in Arrow: a Python string per match took a tenth of a second a
    hundred thousand matches)."""
    codes = _numbers()
    parts = [codes.take(pa.array(column[:, j].astype(np.int64) + 128))
             for j in range(column.shape[1])]
    return pc.binary_join_element_wise(*parts, pa.scalar(" ", pa.large_string()))


@cache
def _numbers():
    """The text of every int8, at its value + 128."""
    return _text([str(i) for i in range(-128, 128)])


@cache
def _labels(table: str, size: int):
    """The ``stat`` and ``label`` text of every row and column of an ``arrays`` counter."""

    prefix, index_names = {"category": ("K_", None), "time": ("T_", None),
                           "disruptor": ("DS_", T.DISRUPTOR_IDS)}[table]
    names = _names(prefix)
    top = max(names, default=-1) + 1
    stats = _text([names.get(i, f"{table}_{i}") for i in range(max(top, 64))])
    labels = _text(list(index_names) if index_names is not None else
                   [str(i) for i in range(size)])
    return stats, labels


def _arrays_frame(point: int, res: dict):
    """Chunks' counters as long rows ``point, table, stat, index, label, value``, added up.

    ``res`` holds each counter per chunk (first axis). A cell is a row when
    some chunk's count there is not zero: the rows that summing each chunk's
    own nonzero rows would give.
    """
    parts = []
    for table, per_chunk in (("category", res["categories"]),
                             ("time", res["time"].transpose(0, 2, 1)),
                             ("disruptor", res["disruptors"])):
        stats, labels = _labels(table, per_chunk.shape[2])
        stat_idx, pos = np.nonzero((per_chunk != 0).any(axis=0))
        k = stat_idx.size
        parts.append(pa.table({
            "point": np.full(k, point, np.int64),
            "table": _const(table, k),
            "stat": _pick(stats, stat_idx), "index": pos.astype(np.int64),
            "label": _pick(labels, pos),
            "value": per_chunk.sum(axis=0)[stat_idx, pos].astype(np.int64)}))
    return pa.concat_tables(parts)
