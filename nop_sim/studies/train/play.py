"""Candidates against a field, on common seeds, through the compiled engine in one batch.

A *field* (:class:`Field`) is a symmetric mixture over policy rows: in every
match each seat draws its row from the mixture's weights, independently (a
single row is a mixture of one). A *duel* plays ``n`` matches per candidate:
match ``i`` puts the candidate in seat ``i % players`` and draws the other
seats' rows; every candidate meets the same draws and starts from the same
RNG state (common random numbers), so candidates are compared on the same
deals and the same opponents until their choices part. The *reference* is
the field itself: the row drawn for the candidate's seat plays it, so a
candidate's gain is its win rate minus that occupant's on the same matches,
a paired difference whose expectation is the candidate's win rate minus
1/players (the field's seats are exchangeable).

All candidates of a duel and the reference go to the engine as one call of
:func:`nop_sim.games.new_order.engine.play_field` (one table per match, one RNG state per
match): no Python runs per match. A :class:`Engine` plays that call in this
process (numba threads), or split into slices over a Dask cluster; each match
depends only on its table and its state, so the split never changes a number.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.agents import draw_rows
from nop_sim.kernels.rng import keyed_states
from nop_sim.run.executors import dask_client
from nop_sim.studies.train.errors import TrainError

__all__ = ["Duel", "Engine", "Field", "duel", "match_states"]


def match_states(key: tuple[int, ...], n: int) -> np.ndarray:
    """uint64 ``(n, 4)`` RNG states, one per match, named by ``key`` (e.g.
    ``(seed, round, generation, stage)``): the same key gives the same states, so
    every candidate of a batch meets the same deals (common random numbers)."""
    return keyed_states(key, n)


_DRAW_TAG = 0x6D6978  # "mix": a field's draws have keys of their own


@dataclass(frozen=True)
class Field:
    """A symmetric mixture: ``rows`` float64 ``(K, N_AGENT_PARAMS)``, ``weights`` ``(K,)``
    summing to 1, and ``ids``, each row's index in a training's population (or -1)."""

    rows: np.ndarray
    weights: np.ndarray
    ids: np.ndarray | None = None

    @classmethod
    def pure(cls, row) -> Field:
        return cls(np.asarray(row, float)[None, :], np.ones(1))

    @classmethod
    def of(cls, rows, weights, ids=None) -> Field:
        w = np.asarray(weights, float)
        keep = w > 0
        rows = np.asarray(rows, float)[keep]
        ids = None if ids is None else np.asarray(ids, np.int64)[keep]
        return cls(rows, w[keep] / w[keep].sum(), ids)

    def draw(self, key: tuple[int, ...], n: int, players: int) -> np.ndarray:
        """int64 ``(n, players)``: the row each seat of match ``i`` plays."""
        ids = np.arange(n)
        return np.stack([draw_rows(self.weights, (*key, _DRAW_TAG), ids, s)
                         for s in range(players)], axis=1)


@dataclass
class Duel:
    """Per candidate ``c`` and match ``i`` (``won`` etc. are ``(k, n)``), and the reference.

    won : the candidate won the match; ref_won : the seat's field occupant won it
    hands : hands the candidate played (to its elimination or the match's end)
    hedges : Hedging Tokens it placed; drafted : ``(k, n, 25)`` cards it drafted per id
    seat : ``(n,)`` the candidate's seat in match ``i``; matches : matches played in all
    draws : ``(n, players)`` the field's row of each seat (the candidate replaces one)
    winner : ``(k, n)`` the winning seat of each candidate match; ref_winner ``(n,)``
    ref_drafted : ``(n, 25)`` what the reference occupant of the seat drafted
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
    draws: np.ndarray | None = None
    winner: np.ndarray | None = None
    ref_winner: np.ndarray | None = None
    ref_drafted: np.ndarray | None = None

    def gain(self) -> np.ndarray:
        """``(k, n)`` paired differences won - ref_won (needs the reference)."""
        return self.won.astype(float) - self.ref_won.astype(float)[None, :]


class Engine:
    """Plays :func:`~nop_sim.games.new_order.engine.play_field` batches here (threads) or on Dask.

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
            self.client = dask_client(scheduler, TrainError)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None

    def play(self, settings, tables: np.ndarray, table_of: np.ndarray, states: np.ndarray):
        """``(match, player, drafted)`` arrays of the batch, in match order."""
        from nop_sim.games.new_order.engine import play_field

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
    from nop_sim.games.new_order.engine import play_field

    r = play_field(settings, tables, table_of, states, threads=1)
    return r.match, r.player, r.drafted


def duel(engine: Engine, settings, field: Field, cands: np.ndarray, n: int,
         key: tuple[int, ...], reference: bool = True) -> Duel:
    """Play ``n`` matches per candidate row (``cands`` ``(k, N_AGENT_PARAMS)``) in one seat
    of ``field``, and the reference (the field as drawn) on the same matches.

    ``n`` should be a multiple of ``players`` for an even share of seats.
    """
    players = settings.players
    cands = np.atleast_2d(np.asarray(cands, T.PARAM_DTYPE))
    k = cands.shape[0]
    ids = np.arange(n)
    seat = ids % players
    draws = field.draw(key, n, players)
    reps = k + (1 if reference else 0)
    # match-major tables: (match i, candidate c) at i * reps + c, so the engine's threads,
    # which take contiguous ranges, each get every candidate's share of long and short
    # matches; the reference (the field as drawn) is the last of each match
    tables = np.repeat(np.asarray(field.rows, T.PARAM_DTYPE)[draws][:, None], reps, axis=1)
    tables[ids, :k, seat, :] = cands[None, :, :]
    tables = tables.reshape(n * reps, players, -1)
    states = match_states(key, n)
    match, player, drafted = engine.play(settings, np.ascontiguousarray(tables),
                                         np.arange(n * reps, dtype=np.int64),
                                         np.repeat(states, reps, axis=0))

    def by_candidate(a):  # (n * reps, ...) in match-major order -> (reps, n, ...)
        return np.swapaxes(a.reshape(n, reps, *a.shape[1:]), 0, 1)

    player, drafted = by_candidate(player), by_candidate(drafted)
    won = player[:, ids, seat, T.PL_PLACE] == 1
    winner = np.argmax(player[:, :, :, T.PL_PLACE] == 1, axis=2)
    elim = player[:, ids, seat, T.PL_ELIMINATED_HAND]
    total = by_candidate(match[:, T.M_HANDS])
    hands = np.where(elim > 0, elim, total)
    hedges = player[:, ids, seat, T.PL_HEDGES_PLACED]
    drafted = drafted[:, ids, seat]
    return Duel(won=won[:k], ref_won=won[k] if reference else None, hands=hands[:k],
                hedges=hedges[:k], drafted=drafted[:k], seat=seat, matches=reps * n,
                hand_total=int(total.sum()), draws=draws, winner=winner[:k],
                ref_winner=winner[k] if reference else None,
                ref_drafted=drafted[k] if reference else None)
