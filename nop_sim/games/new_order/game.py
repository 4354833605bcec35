"""New Order Poker as a registered game: settings, seats, the runner's chunk, histories.

The chunk's tables (see :func:`play_chunk`) are the New Order store:
``matches``, ``seats``, ``drafts``, ``counts``, ``events`` (rows, appended)
and ``arrays`` (per-point counters, summed).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from functools import cache, partial

import numpy as np
import pandas as pd

from nop_sim.core.errors import did_you_mean
from nop_sim.core.profiling import phase
from nop_sim.games import registry
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.agents import (
    AgentError,
    agent_row,
    agent_table,
    draw_rows,
    preset_names,
    read_agent_file,
)
from nop_sim.games.new_order.disruptors import EFFECT_MIN_DRAFTERS
from nop_sim.games.new_order.history import EVENT_COLUMNS, render_history, to_records
from nop_sim.games.new_order.policy import POLICY
from nop_sim.games.new_order.settings import Settings
from nop_sim.games.new_order.sources import KERNEL_SOURCES
from nop_sim.games.registry import Game, register_game

# Imports inside functions: the registry imports this module to register the game, which
# must not load numba; the engine, kernels, referee and report are imported where used.

__all__ = ["EVENT_COLUMNS", "GAME", "MIX_TAG", "TARGETS", "match_tables", "mix_rows",
           "play_chunk", "play_chunks", "seat_label", "target_metrics"]

TARGETS = {
    "median_hands": "median hands per match",
    "mean_hands": "mean hands per match",
    "unresolved_share": "share of matches hitting max_hands",
    "max_seat_advantage": "largest |seat win rate - 1/players|",
    "max_preset_advantage": "largest |preset win rate - 1/players|",
    "fee_share": "Ledger fees as a share of chips moved",
    "manipulations_per_hand": "manipulations (column moves) per hand",
    "hedges_per_hand": "hedge placements per hand",
    "bluffs_per_hand": "bets and raises on the bluff draw (strength below the bet threshold) "
                       "per hand",
    "hedge_hit_rate": "share of hedges that pay",
    "net_chips_per_hedge": "chips a hedge pays back minus what it costs, per placement",
    "final_dart": "mean dart (fee per promotion) at the end of a match",
    "max_disruptor_effect": "largest |adjusted lift| of a Disruptor's drafters (win-rate "
                            "fraction; cards drafted by at least "
                            f"{EFFECT_MIN_DRAFTERS} seats)",
    **{f"disruptor_effect_{card}": f"adjusted lift of {card}'s drafters over seats that "
                                   f"drafted as many other cards (win-rate fraction)"
       for card in T.DISRUPTOR_IDS},
}
# A mixture seat's row for match g of a run with seed s, at seat k:
# ``draw_rows(weights, (s, MIX_TAG), [g], k)`` (:func:`mix_rows`); the tag keeps the
# draw apart from every other stream drawn from the run's seed.
MIX_TAG = 0x6D6978  # "mix"


# ---------------------------------------------------------------------------
# Seats
# ---------------------------------------------------------------------------
def check_seat(spec) -> None:
    """A preset name or a parameter table (an agent file's is one, and each row of a
    mixture file, overrides included, is checked here); an unknown preset name names
    the closest."""
    if isinstance(spec, str):
        names = preset_names()
        if spec not in names:
            raise ValueError(f"unknown preset {spec!r}." + did_you_mean(spec, names)
                             + f" Presets: {', '.join(names)}")
    elif not isinstance(spec, Mapping):
        raise ValueError(f"{spec!r} is not a preset name or a parameter table")
    elif isinstance(spec, registry.SeatFile):
        for k, row in enumerate(spec.rows):
            try:
                agent_row(row)
            except AgentError as exc:
                where = f", row {k}" if spec.is_mixture else ""
                raise ValueError(f"{spec.label} (agent file {spec.path}{where}): {exc}") from None


def check_seats(specs: list, players: int) -> None:
    # AgentError is a ValueError naming the parameter; a mixture's rows are checked
    # one by one (check_seat), its first stands for it here
    agent_table([_row_spec(s, 0) for s in specs], players)


def _is_mixture(spec) -> bool:
    """A seat read from an agent file of several rows."""
    return isinstance(spec, registry.SeatFile) and spec.is_mixture


def _row_spec(spec, row: int):
    """The agent a seat plays: a mixture's row ``row`` (``>= 0``), else the spec itself."""
    return spec.rows[row] if _is_mixture(spec) else spec


def mix_rows(seed: int, specs: list, match_ids: np.ndarray) -> np.ndarray:
    """The mixture row each seat plays in each match: int64 ``(n, players)``, -1 where the
    seat's agent is not a mixture.

    Seat ``k`` given a mixture plays ``draw_rows(weights, (seed, MIX_TAG),
    match_ids, k)``: a function of the run's seed, the run's match id and the seat
    alone, so chunks, workers and Dask draw alike.
    """
    match_ids = np.asarray(match_ids, dtype=np.int64)
    out = np.full((match_ids.size, len(specs)), -1, np.int64)
    for seat, spec in enumerate(specs):
        if _is_mixture(spec):
            out[:, seat] = draw_rows(spec.weights, (seed, MIX_TAG), match_ids, seat)
    return out


# a table without ``preset`` starts from ``balanced`` (:func:`nop_sim.games.new_order.agents.agent_row`)
seat_label = partial(registry.seat_label, default_preset="balanced")


# ---------------------------------------------------------------------------
# One chunk -> tidy tables
# ---------------------------------------------------------------------------
@cache
def _names(prefix: str) -> dict[int, str]:
    """Index -> column name of the ``types`` constants ``<prefix>NAME`` (``M_HANDS`` -> hands)."""

    return {getattr(T, n): n[len(prefix):].lower() for n in dir(T)
            if n.startswith(prefix) and isinstance(getattr(T, n), int)}


def _text(values):
    """A text column (``large_string``, as pandas writes it)."""
    import pyarrow as pa

    return pa.array(values, type=pa.large_string())


def _pick(labels, idx: np.ndarray):
    """``labels[idx]`` (an Arrow text array) as a text column, taken in Arrow (no Python
    string per row)."""
    import pyarrow as pa

    return labels.take(pa.array(np.asarray(idx, dtype=np.int64)))


def _const(value, n: int):
    """A swept setting's column: ``value`` repeated ``n`` times."""
    import pyarrow as pa

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
    drafts : one row per (match, seat, Disruptor drafted): ``card, count``
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
    import pyarrow as pa

    played = [_point_tables(scn, list(group))
              for _, group in itertools.groupby(chunks, key=lambda c: c.point)]
    if len(played) == 1:
        return played[0]
    return {name: pa.concat_tables([p[name] for p in played], promote_options="permissive")
            for name in played[0]}


def _point_tables(scn, chunks: list) -> dict:
    """The tables of consecutive chunks of one sweep point (see :func:`play_chunk`)."""
    import pyarrow as pa

    p = chunks[0].point
    point = scn.points()[p]
    settings = scn.settings_at(point)
    res, rotation, mix_row = _play_rotated(scn, point, settings, chunks)
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
    drafted = res["drafted"]
    mi, si, ci = np.nonzero(drafted)
    drafts = pa.table({"point": point_col[mi], "chunk": chunk_col[mi], "match": match_ids[mi],
                       "seat": si, "card": _pick(_card_ids(), ci),
                       "count": drafted[mi, si, ci]})
    counts = pa.table({"point": np.full(k, p, np.int64),
                       "chunk": np.array([c.index for c in chunks], np.int64),
                       "n_matches": sizes, **{key: _const(v, k) for key, v in point.items()},
                       **{name: res["counts"][:, idx]
                          for idx, name in sorted(_names("C_").items())}})
    events = [_events_frame(c, e) for c, e in zip(chunks, res["events"], strict=True)
              if e.shape[0]] or [_events_frame(chunks[0], np.zeros((0, T.EV_WIDTH), np.int64))]
    return {"matches": matches, "seats": seats, "drafts": drafts, "counts": counts,
            "arrays": _arrays_frame(p, res),
            "events": events[0] if len(events) == 1 else pa.concat_tables(events)}


_ROWS = ("match", "player", "drafted", "column")          # one row per match
_SUMS = ("counts", "categories", "time", "disruptors")     # counters, merged by addition


def _play_rotated(scn, point: dict, settings, chunks: list) -> tuple[dict, np.ndarray]:
    """Play consecutive chunks of one point; with a rotation, match ``g`` seats rotation
    ``g % R``.

    Each rotation's matches of a chunk are one batch with its own seed
    (:meth:`nop_sim.run.planning.Chunk.rotation_batches`), so results stay
    independent of workers and of the chunks played beside it. Batches with
    no logged match go to the engine in one call; a batch with one plays on
    its own, with its event log. Returns the arrays by name: per-match rows
    (chunk after chunk, in match order), counters per chunk (first axis), and
    ``events``, each chunk's logged rows with the run's match ids; each match's
    rotation; and the mixture row of each match and seat (int64 ``(n, players)``,
    -1 where the seat is not a mixture).

    A seat given a mixture plays, in each match, the row :func:`mix_rows` draws
    for it; the matches then seat one agent table per combination of rotation
    and rows drawn (the engine's ``table_of``), and logged batches play the same
    rows. Without a mixture every match of a rotation seats that rotation's table.
    """
    from nop_sim.games.new_order.engine import BatchResults, play_batches, play_matches

    sizes = [c.n_matches for c in chunks]
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    rotation = np.empty(starts[-1], np.int64)
    specs = [scn.seat_specs(point, r) for r in range(scn.n_rotations)]
    mix_row = np.full((starts[-1], settings.players), -1, np.int64)
    joint, logged = [], []  # (chunk position, rotation, rows in the output, seed, ...)
    for i, c in enumerate(chunks):
        rot, batches = c.rotation_batches(scn.n_rotations)
        rotation[starts[i]:starts[i + 1]] = rot
        for r, idx, seed in batches:
            # log the run's matches whose id is a multiple of log_sample, wherever they fall
            log = (np.flatnonzero((c.first_match + idx) % scn.log_sample == 0)
                   if scn.log_sample else np.zeros(0, np.int64))
            (logged if log.size else joint).append((i, r, idx, seed, log))
            if any(map(_is_mixture, specs[r])):
                mix_row[starts[i] + idx] = mix_rows(scn.seed, specs[r], c.first_match + idx)
    mixed = bool((mix_row >= 0).any())
    if mixed:
        tables, table_of = match_tables(specs, rotation, mix_row)
    out: dict = {"events": [np.zeros((0, 0), np.int64)] * len(chunks)}

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
        for name in _SUMS:
            out[name][of_chunk[first]] += np.add.reduceat(getattr(res, name), first, axis=0)

    with phase("simulation"):
        if joint:
            rows = np.concatenate([starts[i] + idx for i, _r, idx, _s, _l in joint])
            batches = ([b[1] for b in joint], [b[2].size for b in joint], [b[3] for b in joint])
            if mixed:
                res = play_batches(settings, tables, *batches, table_of=table_of[rows])
            else:
                res = play_batches(settings, np.stack([agent_table(specs[r], settings.players)
                                                       for r in range(scn.n_rotations)]),
                                   *batches)
            put(rows, np.array([b[0] for b in joint], np.int64), res)
        for i, r, idx, seed, log in logged:
            c = chunks[i]
            n = int(idx.size)
            if mixed:  # the batch's own tables, so that only those are checked
                used, local = np.unique(table_of[starts[i] + idx], return_inverse=True)
                res = play_matches(settings, tables[used], n, seed=seed, chunk_size=n,
                                   threads=1, log_matches=log, table_of=local.reshape(-1))
            else:
                res = play_matches(settings, specs[r], n, seed=seed, chunk_size=n, threads=1,
                                   log_matches=log)
            if res.events.shape[0]:  # the batch's match index -> the run's match id
                res.events[:, 0] = c.first_match + idx[res.events[:, 0]]
            out["events"][i] = (res.events if not out["events"][i].size
                                else np.concatenate([out["events"][i], res.events]))
            # one batch, its counters merged: a first axis of one
            put(starts[i] + idx, np.array([i]),
                BatchResults(**{name: getattr(res, name) for name in _ROWS},
                             **{name: getattr(res, name)[None] for name in _SUMS}))
    return out, rotation, mix_row


def match_tables(specs: list[list], rotation: np.ndarray, mix_row: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The agent tables the matches seat, one per combination of rotation and mixture rows
    drawn, and each match's table: float64 ``(k, players, N_AGENT_PARAMS)`` and int64
    ``(n,)``. ``specs[r]``: rotation ``r``'s seat specs; ``mix_row``: :func:`mix_rows`'s
    rows of each match."""
    combos, table_of = np.unique(np.column_stack([rotation, mix_row]), axis=0,
                                 return_inverse=True)
    # each seat's rows, checked once: a mixture's every row, another agent's one row
    choices = [[np.stack([agent_row(row) for row in spec.rows]) if _is_mixture(spec)
                else agent_row(spec)[None] for spec in seats] for seats in specs]
    tables = np.stack([np.stack([choices[combo[0]][seat][max(row, 0)]
                                 for seat, row in enumerate(combo[1:])]) for combo in combos])
    return tables, table_of.reshape(-1).astype(np.int64)


def _events_frame(chunk, events: np.ndarray):
    """The chunk's logged matches as rows ``point, chunk`` + :data:`EVENT_COLUMNS`.

    ``events`` are the kernel's int64 rows (``nop_sim.games.new_order.history``) with the run's
    match ids. Only whole matches are kept: a log that ran out of room
    (``events_lost``) loses the matches it cut short, never a part of one.
    """
    import pyarrow as pa

    ended = np.unique(events[events[:, 2] == T.EV_MATCH_END, 0])
    events = events[np.isin(events[:, 0], ended)]
    events = events[np.argsort(events[:, 0], kind="stable")]
    n = events.shape[0]
    return pa.table({"point": np.full(n, chunk.point, np.int64),
                     "chunk": np.full(n, chunk.index, np.int64),
                     **{name: events[:, i].astype(np.int64)
                        for i, name in enumerate(EVENT_COLUMNS)}})


def _column_text(column: np.ndarray):
    """Each match's final column as text, categories top first: ``"12 11 ... 0"``
    (joined in Arrow: a Python string per match took a tenth of a second a
    hundred thousand matches)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    codes = _numbers()
    parts = [codes.take(pa.array(column[:, j].astype(np.int64) + 128))
             for j in range(column.shape[1])]
    return pc.binary_join_element_wise(*parts, pa.scalar(" ", pa.large_string()))


@cache
def _numbers():
    """The text of every int8, at its value + 128."""
    return _text([str(i) for i in range(-128, 128)])


@cache
def _card_ids():
    return _text(list(T.DISRUPTOR_IDS))


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
    import pyarrow as pa

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


def warm_up(pool) -> None:
    """Compile into numba's cache once, here, while a worker compiles the callees.

    The workers then load the kernels instead of each compiling its own copy
    (on a cold cache behind compile firewalls, see ``kernels.firewall``).
    """
    from nop_sim.games.new_order.engine import compile_callees, compile_engine, refresh_kernel_cache

    refresh_kernel_cache()  # before the worker looks at the cache
    callees = pool.submit(compile_callees)
    compile_engine()
    callees.result()


def refresh_kernels() -> None:
    """Drop stale New Order kernels from numba's cache (the engine's cache guard)."""
    from nop_sim.games.new_order.engine import refresh_kernel_cache

    refresh_kernel_cache()


def compile_parallel() -> None:
    """Compile (or load) the parallel match driver (``play_field``, threads > 1: training)."""
    from nop_sim.games.new_order.agents import agent_table
    from nop_sim.games.new_order.engine import play_field
    from nop_sim.kernels.rng import keyed_states

    play_field(Settings(), agent_table("balanced", 4)[None], np.zeros(2, np.int64),
               keyed_states((1,), 2), threads=2)


def compile_evaluator() -> None:
    """Compile (or load) the public evaluator's kernels (``nop_sim.evaluate``)."""
    from nop_sim.evaluator import evaluate

    hands = np.array([[0, 5, 10, 15, 20, 25, 30]], np.int8)
    evaluate(hands)
    evaluate(hands, wild_ranks=1)


def compile_driver() -> None:
    """Compile (or load) the one-thread match driver (``nop-sim run``'s workers)."""
    from nop_sim.games.new_order.engine import compile_engine

    compile_engine()


def compile_engine_callees() -> None:
    """Compile (or load) the evaluator and the draft behind the drivers' firewall."""
    from nop_sim.games.new_order.engine import compile_callees

    compile_callees()


def load_kernels() -> None:
    """Load the one-thread driver and its callees (from numba's cache once warmed up)."""
    from nop_sim.games.new_order.engine import compile_callees, compile_engine

    compile_engine()
    compile_callees()


# ---------------------------------------------------------------------------
# Summary, histories, referee, report
# ---------------------------------------------------------------------------
def point_metrics(matches: pd.DataFrame, counts: pd.DataFrame) -> dict:
    hands = int(counts["hands"].sum())
    row = {"matches": len(matches), "hands": hands,
           "median_hands": float(matches["hands"].median()),
           "unresolved_share": float(matches["unresolved"].mean())}
    for col in ("fees", "manipulations", "hedges", "hedge_hits", "showdowns", "bluffs"):
        if col in counts:
            row[f"{col}_per_hand"] = float(counts[col].sum()) / max(hands, 1)
    return row


def target_metrics(tables: Mapping[str, pd.DataFrame]):
    """Every :data:`TARGETS` metric of one point's tables, as a function of chunk weights.

    Returns ``estimate(weights=None) -> {name: value}``; ``weights`` holds one
    count per chunk (ascending chunk order), so a cluster bootstrap resamples
    whole chunks (the unit the ``counts`` counters are kept in) without
    rebuilding a table. A rate whose denominator is 0 is NaN.
    """
    m, s, c = tables["matches"], tables["seats"], tables["counts"]
    chunks = np.unique(c["chunk"].to_numpy())
    mk = np.searchsorted(chunks, m["chunk"].to_numpy())
    sk = np.searchsorted(chunks, s["chunk"].to_numpy())
    ck = np.searchsorted(chunks, c["chunk"].to_numpy())
    hands = m["hands"].to_numpy(np.float64)
    unresolved = m["unresolved"].to_numpy(np.float64)
    dart = m["dart"].to_numpy(np.float64)
    players = int(m["players"].iloc[0]) if len(m) else 1
    win = (s["place"].to_numpy() == 1).astype(np.float64)
    seat = s["seat"].to_numpy(np.int64)
    preset, _ = pd.factorize(s["preset"])
    col = {k: c[k].to_numpy(np.float64) if k in c else np.zeros(len(c))
           for k in ("hands", "fees", "pot_sum", "hedge_paid", "fees_to_bank", "manipulations",
                     "hedges", "hedge_hits", "hedge_cost", "bluffs")}
    fair = 1.0 / players
    effect = _effect_counts(s, tables.get("drafts"), chunks)

    def ratio(num, den):
        return float(num / den) if den > 0 else float("nan")

    def advantage(group, w):
        n = np.bincount(group, w)
        k = np.bincount(group, w * win)
        used = n > 0
        return float(np.max(np.abs(k[used] / n[used] - fair))) if used.any() else float("nan")

    def estimate(weights=None) -> dict[str, float]:
        w = np.ones(len(chunks)) if weights is None else np.asarray(weights, np.float64)
        wm, ws, wc = w[mk], w[sk], w[ck]
        total = {k: float(np.dot(wc, v)) for k, v in col.items()}
        n_matches = wm.sum()
        # the median of the resampled matches: each match repeated by its chunk's count
        reps = wm.astype(np.int64)
        median = (float(np.median(np.repeat(hands, reps))) if reps.sum()
                  else float("nan"))
        moved = total["pot_sum"] + total["hedge_paid"] + total["fees_to_bank"]
        return {
            "median_hands": median,
            "mean_hands": ratio(np.dot(wm, hands), n_matches),
            "unresolved_share": ratio(np.dot(wm, unresolved), n_matches),
            "max_seat_advantage": advantage(seat, ws),
            "max_preset_advantage": advantage(preset, ws),
            "fee_share": ratio(total["fees"], moved),
            "manipulations_per_hand": ratio(total["manipulations"], total["hands"]),
            "hedges_per_hand": ratio(total["hedges"], total["hands"]),
            "bluffs_per_hand": ratio(total["bluffs"], total["hands"]),
            "hedge_hit_rate": ratio(total["hedge_hits"], total["hedges"]),
            "net_chips_per_hedge": ratio(total["hedge_paid"] - total["hedge_cost"],
                                         total["hedges"]),
            "final_dart": ratio(np.dot(wm, dart), n_matches),
            **_effects(effect, w),
        }

    return estimate


def _effect_counts(seats: pd.DataFrame, drafts: pd.DataFrame | None, chunks: np.ndarray):
    """Per chunk, the counts a Disruptor's adjusted lift is made of (as
    :func:`nop_sim.games.new_order.analysis.disruptor_stats` computes it: Mantel-Haenszel
    over strata of seats that drafted as many cards in the match, the thin upper tail
    pooled at the 99th percentile): ``(cards, drafters, drafter wins, seats, wins)``,
    the first two ``(chunk, card, stratum)``, the last two ``(chunk, stratum)``; None
    without drafts."""
    if drafts is None or not len(drafts) or not len(seats) or "chunk" not in drafts:
        return None
    # each draft row's seat row, by one integer key (a pandas merge took 0.2 s a point)
    cols = ("chunk", "match", "seat")
    sv = [seats[c].to_numpy(np.int64) for c in cols]
    dv = [drafts[c].to_numpy(np.int64) for c in cols]
    size = [max(int(a.max()), int(b.max())) + 1 for a, b in zip(sv, dv, strict=True)]

    def key(v):
        return (v[0] * size[1] + v[1]) * size[2] + v[2]

    skey = key(sv)
    order = np.argsort(skey, kind="stable")
    ranked, dkey = skey[order], key(dv)
    at = np.minimum(np.searchsorted(ranked, dkey), len(skey) - 1)
    found = ranked[at] == dkey
    if not found.any():
        return None
    row = order[at[found]]
    given = drafts["card"]
    if isinstance(given.dtype, pd.CategoricalDtype):  # as the store reads it: by its codes
        card, used = pd.factorize(given.cat.codes.to_numpy()[found])
        names = given.cat.categories[used]
    else:
        card, names = pd.factorize(given.to_numpy()[found])
    cards = [str(c) for c in names]
    strata = np.bincount(row, weights=drafts["count"].to_numpy()[found], minlength=len(seats))
    strata = np.minimum(strata.astype(np.int64), int(np.percentile(strata, 99)))
    k = int(strata.max()) + 1
    chunk = np.searchsorted(chunks, seats["chunk"].to_numpy())
    win = (seats["place"].to_numpy() == 1).astype(np.float64)
    # counts by one flat index (np.add.at took a tenth of a second per table): sums of
    # ones and of 0/1 wins, exact in float64
    n_c = len(chunks)
    at = chunk * k + strata
    total = np.bincount(at, minlength=n_c * k).astype(np.float64).reshape(n_c, k)
    wins = np.bincount(at, weights=win, minlength=n_c * k).reshape(n_c, k)
    at = (chunk[row] * len(cards) + card) * k + strata[row]  # a (seat, match, card): one row
    size = n_c * len(cards) * k
    drafted = np.bincount(at, minlength=size).astype(np.float64).reshape(n_c, len(cards), k)
    drafted_wins = np.bincount(at, weights=win[row], minlength=size).reshape(
        n_c, len(cards), k)
    return cards, drafted, drafted_wins, total, wins


def _effects(effect, w: np.ndarray) -> dict[str, float]:
    """``disruptor_effect_<card>`` of every card (NaN: never drafted) and
    ``max_disruptor_effect`` (the largest magnitude among cards with
    :data:`EFFECT_MIN_DRAFTERS` drafters), from :func:`_effect_counts` with chunk
    weights ``w``."""
    out = {f"disruptor_effect_{c}": float("nan") for c in T.DISRUPTOR_IDS}
    if effect is None:
        return {**out, "max_disruptor_effect": float("nan")}
    cards, drafted, drafted_wins, total, wins = effect
    n1 = np.tensordot(w, drafted, 1)
    w1 = np.tensordot(w, drafted_wins, 1)
    n0 = w @ total - n1
    w0 = w @ wins - w1
    ok = (n1 > 0) & (n0 > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        weight = np.where(ok, n1 * n0 / (n1 + n0), 0.0)
        p1 = np.where(ok, w1 / np.where(ok, n1, 1), 0.0)
        p0 = np.where(ok, w0 / np.where(ok, n0, 1), 0.0)
        lift = (weight * (p1 - p0)).sum(axis=1) / weight.sum(axis=1)
    out.update({f"disruptor_effect_{c}": float(v) for c, v in zip(cards, lift, strict=True)})
    enough = drafted.sum(axis=(0, 2)) >= EFFECT_MIN_DRAFTERS
    shown = np.abs(lift[enough & np.isfinite(lift)])
    out["max_disruptor_effect"] = float(shown.max()) if shown.size else float("nan")
    return out


def fresh_hands(scn, count: int) -> tuple[str, list[dict]]:
    """``count`` hands of the scenario's first sweep point, played match by match from its seed."""
    from nop_sim.games.new_order.engine import play_matches

    point = scn.points()[0]
    settings = scn.settings_at(point)
    specs = scn.seat_specs(point, 0)
    labels = [seat_label(s) for s in specs]
    records: list[dict] = []
    names: dict[int, list[str]] = {}  # match -> its seats' names (a mixture's row by match)
    match_seed = scn.seed
    while True:
        match = match_seed - scn.seed
        rows = mix_rows(scn.seed, specs, np.array([match]))[0]
        names[match] = registry.seat_names(labels, rows)
        res = play_matches(settings, [_row_spec(s, r) for s, r in zip(specs, rows, strict=True)],
                           1, seed=match_seed, chunk_size=1, threads=1, log_every=1)
        for rec in to_records(res.events):
            rec["match"] = match
            records.append(rec)
        n_hands = len({(r["match"], r["hand"]) for r in records if r["event"] == "hand_start"})
        if n_hands >= count:
            break
        match_seed += 1
    kept, seen = [], set()
    for rec in records:
        key = (rec["match"], rec["hand"])
        if rec["event"] == "hand_start":
            seen.add(key)
        if len(seen) > count:
            break
        kept.append(rec)
    # match by match, each with its seats' names (a history restarts its column and dart
    # at each match_start, so the parts join into the text of the whole)
    text = "\n".join(render_history([r for r in kept if r["match"] == m], names[m])
                     for m in dict.fromkeys(r["match"] for r in kept))
    return text, kept


def stored_hands(log) -> tuple[str, list[dict]]:
    records = list(to_records(log.events[list(EVENT_COLUMNS)].to_numpy(np.int64)))
    return render_history(records, log.names), records


def referee(settings, specs: list, n: int, seed: int) -> int:
    from nop_sim.games.new_order.engine import play_matches
    from nop_sim.games.new_order.referee import check_results

    rows = mix_rows(seed, specs, np.arange(n))
    if (rows < 0).all():
        res = play_matches(settings, specs, n, seed=seed, chunk_size=n, threads=1, log_every=1)
    else:  # a mixture: each match seats the rows drawn for it, as a run's would
        tables, table_of = match_tables([specs], np.zeros(n, np.int64), rows)
        res = play_matches(settings, tables, n, seed=seed, chunk_size=n, threads=1,
                           log_every=1, table_of=table_of)
    return check_results(res)


def open_table(scn, seat: int, seed: int):
    """A table where a person plays ``seat`` of one match of the scenario's first sweep
    point, the other seats the scenario's (a mixture's row drawn for match 0)."""
    from nop_sim.games.new_order.table import NewOrderTable  # start-up time: the referee

    point = scn.points()[0]
    settings = scn.settings_at(point)
    specs = scn.seat_specs(point, 0)
    rows = mix_rows(seed, specs, np.array([0]))[0]
    table = agent_table([_row_spec(s, r) for s, r in zip(specs, rows, strict=True)],
                        settings.players)
    return NewOrderTable(settings, table, seat, seed=seed,
                         labels=[seat_label(s) for s in specs], rows=rows.tolist())


def open_replay(log):
    """A logged match of a run (a ``run.match_log.MatchLog``), step by step."""
    from nop_sim.games.new_order.table import NewOrderReplay  # start-up time: the referee

    records = list(to_records(log.events[list(EVENT_COLUMNS)].to_numpy(np.int64)))
    return NewOrderReplay(log.settings, records, log.names)


def write_report(out):
    try:
        from nop_sim.games.new_order.report import write_report as write
    except ImportError:  # pragma: no cover - matplotlib is an optional extra
        return None
    return write(out)


GAME = register_game(Game(
    kind="new-order",
    title="New Order Poker",
    settings=Settings,
    sweep_fields=Settings.field_names(),
    default_seat="balanced",
    check_seat=check_seat,
    check_seats=check_seats,
    seat_label=seat_label,
    tables=("matches", "seats", "drafts", "counts", "events"),
    work="hands",
    targets=TARGETS,
    point_metrics=point_metrics,
    target_metrics=target_metrics,
    extra_metrics=("max_disruptor_effect",),
    play_chunk=play_chunk,
    play_chunks=play_chunks,
    warm_up=warm_up,
    load_kernels=load_kernels,
    kernels={"match driver": compile_driver, "evaluator and draft": compile_engine_callees,
             "parallel driver": compile_parallel, "evaluator": compile_evaluator},
    refresh_kernels=refresh_kernels,
    kernel_sources=KERNEL_SOURCES,
    agent_file=read_agent_file,
    fresh_hands=fresh_hands,
    stored_hands=stored_hands,
    referee=referee,
    write_report=write_report,
    store_version=4,  # 2: events tables; 3: seats.mix_row; 4: counts.bluffs
    policy=POLICY,
    open_table=open_table,
    open_replay=open_replay,
))
