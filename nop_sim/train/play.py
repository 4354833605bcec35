"""Candidates against a field, on common seeds, through the compiled engine in one batch.

A *field* is one agent table per rotation, ``(R, players, N_AGENT_PARAMS)``.
A *duel* plays ``n`` matches per candidate: match ``i`` puts the candidate
in seat ``i % players`` of rotation ``(i // players) % R`` of the field, so
every seat and every rotation gets the same share and seat advantage
cancels. Match ``i`` of every candidate starts from the same RNG state
(common random numbers): candidates are compared on the same deals until
their choices part. The *reference* is the field itself (the seat's own
occupant plays it), so a candidate's gain is its win rate minus the
occupant's on the same matches, a paired difference.

All candidates of a duel and the reference go to the engine as one call of
:func:`nop_sim.engine.play_field` (one table per candidate, seat and
rotation, one RNG state per match): no Python runs per match. A
:class:`Engine` plays that call in this process (numba threads), or split
into slices over a Dask cluster; each match depends only on its table and
its state, so the split never changes a number.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from nop_sim import types as T
from nop_sim.kernels.rng import keyed_states

__all__ = ["Duel", "Engine", "duel", "match_states"]


def match_states(key: tuple[int, ...], n: int) -> np.ndarray:
    """uint64 ``(n, 4)`` RNG states, one per match, named by ``key`` (e.g.
    ``(seed, round, generation, stage)``): the same key gives the same states, so
    every candidate of a batch meets the same deals (common random numbers)."""
    return keyed_states(key, n)


@dataclass
class Duel:
    """Per candidate ``c`` and match ``i`` (``won`` etc. are ``(k, n)``), and the reference.

    won : the candidate won the match; ref_won : the seat's field occupant won it
    hands : hands the candidate played (to its elimination or the match's end)
    hedges : Hedging Tokens it placed; drafted : ``(k, n, 25)`` cards it drafted per id
    seat : ``(n,)`` the candidate's seat in match ``i``; matches : matches played in all
    hand_total : hands played in all matches of the duel (throughput)
    """

    won: np.ndarray
    ref_won: np.ndarray | None
    hands: np.ndarray
    hedges: np.ndarray
    drafted: np.ndarray
    seat: np.ndarray
    matches: int
    hand_total: int

    def gain(self) -> np.ndarray:
        """``(k, n)`` paired differences won - ref_won (needs the reference)."""
        return self.won.astype(float) - self.ref_won.astype(float)[None, :]


class Engine:
    """Plays :func:`~nop_sim.engine.play_field` batches here (threads) or on Dask.

    threads : numba threads in this process (default: numba's setting)
    scheduler : a Dask scheduler address; the batch is cut into ``slice_size`` slices
    """

    def __init__(self, threads: int | None = None, scheduler: str | None = None,
                 slice_size: int = 2048):
        self.threads = threads
        self.scheduler = scheduler
        self.slice_size = slice_size
        self.client = None
        self.engine_seconds = 0.0
        self.matches = 0
        self.hands = 0
        self.on_play = None  # called after every batch (progress)
        if scheduler:
            from nop_sim.runner import dask_client
            from nop_sim.train.errors import TrainError

            self.client = dask_client(scheduler, TrainError)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None

    def play(self, settings, tables: np.ndarray, table_of: np.ndarray, states: np.ndarray):
        """``(match, player, drafted)`` arrays of the batch, in match order."""
        from nop_sim.engine import play_field

        t0 = time.perf_counter()
        if self.client is None:
            r = play_field(settings, tables, table_of, states, threads=self.threads)
            out = (r.match, r.player, r.drafted)
        else:
            cuts = range(0, len(table_of), self.slice_size)
            futures = [self.client.submit(_play_slice, settings, tables,
                                          table_of[a:a + self.slice_size],
                                          states[a:a + self.slice_size], pure=False)
                       for a in cuts]
            parts = self.client.gather(futures)
            out = tuple(np.concatenate([p[i] for p in parts]) for i in range(3))
        self.engine_seconds += time.perf_counter() - t0
        self.matches += len(table_of)
        self.hands += int(out[0][:, T.M_HANDS].sum())
        if self.on_play is not None:
            self.on_play()
        return out


def _play_slice(settings, tables, table_of, states):
    from nop_sim.engine import play_field

    r = play_field(settings, tables, table_of, states, threads=1)
    return r.match, r.player, r.drafted


def duel(engine: Engine, settings, field: np.ndarray, cands: np.ndarray, n: int,
         key: tuple[int, ...], reference: bool = True) -> Duel:
    """Play ``n`` matches per candidate row (``cands`` ``(k, N_AGENT_PARAMS)``) against
    ``field`` ``(R, players, N_AGENT_PARAMS)``, and the reference on the same matches.

    ``n`` should be a multiple of ``players * R`` for an even rotation.
    """
    field = np.asarray(field, T.PARAM_DTYPE)
    cands = np.atleast_2d(np.asarray(cands, T.PARAM_DTYPE))
    n_rot, players = field.shape[0], field.shape[1]
    k = cands.shape[0]
    ids = np.arange(n)
    seat = ids % players
    rot = (ids // players) % n_rot
    # tables: candidate c at seat j of rotation r -> (c * n_rot + r) * players + j;
    # the reference (the field as it is) comes last, one table per rotation
    table_of = ((np.arange(k)[:, None] * n_rot + rot[None, :]) * players + seat[None, :])
    table_of = table_of.reshape(-1)
    full = np.repeat(np.repeat(field[None], k, axis=0)[:, :, None], players, axis=2)
    for j in range(players):
        full[:, :, j, j, :] = cands[:, None, :]
    tables = full.reshape(k * n_rot * players, players, -1)
    n_tab = tables.shape[0]
    if reference:
        tables = np.concatenate([tables, field])
        table_of = np.concatenate([table_of, n_tab + rot])
    states = match_states(key, n)
    reps = k + (1 if reference else 0)
    # match-major order: (match i, candidate c) at i * reps + c, so the engine's threads,
    # which take contiguous ranges, each get every candidate's share of long and short matches
    table_of = table_of.reshape(reps, n).T.reshape(-1)
    match, player, drafted = engine.play(settings, np.ascontiguousarray(tables),
                                         table_of.astype(np.int64), np.repeat(states, reps, axis=0))

    def by_candidate(a):  # (n * reps, ...) in match-major order -> (reps, n, ...)
        return np.swapaxes(a.reshape(n, reps, *a.shape[1:]), 0, 1)

    player, drafted = by_candidate(player), by_candidate(drafted)
    won = player[:, ids, seat, T.PL_PLACE] == 1
    elim = player[:, ids, seat, T.PL_ELIMINATED_HAND]
    total = by_candidate(match[:, T.M_HANDS])
    hands = np.where(elim > 0, elim, total)
    hedges = player[:, ids, seat, T.PL_HEDGES_PLACED]
    drafted = drafted[:, ids, seat]
    return Duel(won=won[:k], ref_won=won[k] if reference else None, hands=hands[:k],
                hedges=hedges[:k], drafted=drafted[:k], seat=seat, matches=reps * n,
                hand_total=int(total.sum()))
