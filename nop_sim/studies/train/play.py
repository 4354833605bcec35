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
the game's ``play_field`` (:class:`~nop_sim.games.registry.PolicySpace`: one table
per match, one RNG state per match): no Python runs per match. A :class:`Engine` plays that call in this
process (numba threads), or split into slices over a Dask cluster; each match
depends only on its table and its state, so the split never changes a number.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from nop_sim.games.agent_files import draw_rows
from nop_sim.games.registry import FieldPlay, policy_of
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
    """A symmetric mixture: ``rows`` float64 ``(K, parameters)``, ``weights`` ``(K,)``
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

    won : the candidate won the match (alone or shared); ref_won : the seat's field
        occupant won it
    hands : the game's units of work the candidate took part in (New Order: hands to
        its elimination or the match's end; Ordered Hand: turns)
    extras : name -> ``(k, n, ...)`` what else the candidate did (the game's
        :attr:`~nop_sim.games.registry.FieldPlay.extras`: New Order's ``hedges``, ``drafted``)
    seat : ``(n,)`` the candidate's seat in match ``i``; matches : matches played in all
    draws : ``(n, players)`` the field's row of each seat (the candidate replaces one)
    winner : ``(k, n)`` the winning seat of each candidate match (the first of a shared
        win); ref_winner ``(n,)``
    ref_extras : name -> ``(n, ...)`` the extras of the reference occupant of the seat
    hand_total : units of work in all matches of the duel (throughput)
    score, ref_score : ``(k, n)`` and ``(n,)`` the candidate's and the occupant's payoffs,
        for a game that measures strong play by payoff (:attr:`FieldPlay.score`); None:
        by wins
    """

    won: np.ndarray
    ref_won: np.ndarray | None
    hands: np.ndarray
    extras: dict
    seat: np.ndarray
    matches: int
    hand_total: int
    draws: np.ndarray | None = None
    winner: np.ndarray | None = None
    ref_winner: np.ndarray | None = None
    ref_extras: dict | None = None
    score: np.ndarray | None = None
    ref_score: np.ndarray | None = None

    def gain(self) -> np.ndarray:
        """``(k, n)`` paired differences won - ref_won (needs the reference); payoffs
        score - ref_score for a game that measures by payoff."""
        if self.score is not None:
            return self.score - self.ref_score[None, :]
        return self.won.astype(float) - self.ref_won.astype(float)[None, :]


class Engine:
    """Plays a game's ``play_field`` batches here (threads) or on Dask.

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

    def play(self, settings, tables: np.ndarray, table_of: np.ndarray,
             states: np.ndarray) -> FieldPlay:
        """The batch's :class:`~nop_sim.games.registry.FieldPlay`, in match order."""
        play_field = policy_of(settings).play_field
        t0 = time.perf_counter()
        if self.client is None:
            out = play_field(settings, tables, table_of, states, threads=self.threads)
        else:
            cuts = range(0, len(table_of), self.slice_size)
            futures = [self.client.submit(play_field, settings, tables,
                                          table_of[a:a + self.slice_size],
                                          states[a:a + self.slice_size], threads=1,
                                          pure=False)
                       for a in cuts]
            parts = self.client.gather(futures)
            out = FieldPlay(place=np.concatenate([p.place for p in parts]),
                            work=np.concatenate([p.work for p in parts]),
                            seat_work=np.concatenate([p.seat_work for p in parts]),
                            extras={k: np.concatenate([p.extras[k] for p in parts])
                                    for k in parts[0].extras},
                            score=(None if parts[0].score is None
                                   else np.concatenate([p.score for p in parts])))
        self.engine_seconds += time.perf_counter() - t0
        self.matches += len(table_of)
        self.hands += int(out.work.sum())
        if self.on_play is not None:
            self.on_play()
        return out


def duel(engine: Engine, settings, field: Field, cands: np.ndarray, n: int,
         key: tuple[int, ...], reference: bool = True) -> Duel:
    """Play ``n`` matches per candidate row (``cands`` ``(k, parameters)``) in one seat
    of ``field``, and the reference (the field as drawn) on the same matches.

    ``n`` should be a multiple of ``players`` for an even share of seats.
    """
    players = settings.players
    width = np.asarray(field.rows).shape[1]
    cands = np.asarray(cands, np.float64).reshape(-1, width)
    k = cands.shape[0]
    ids = np.arange(n)
    seat = ids % players
    draws = field.draw(key, n, players)
    reps = k + (1 if reference else 0)
    # match-major tables: (match i, candidate c) at i * reps + c, so the engine's threads,
    # which take contiguous ranges, each get every candidate's share of long and short
    # matches; the reference (the field as drawn) is the last of each match
    tables = np.repeat(np.asarray(field.rows, np.float64)[draws][:, None], reps, axis=1)
    tables[ids, :k, seat, :] = cands[None, :, :]
    tables = tables.reshape(n * reps, players, -1)
    states = match_states(key, n)
    r = engine.play(settings, np.ascontiguousarray(tables),
                    np.arange(n * reps, dtype=np.int64), np.repeat(states, reps, axis=0))

    def by_candidate(a):  # (n * reps, ...) in match-major order -> (reps, n, ...)
        a = np.asarray(a)
        return np.swapaxes(a.reshape(n, reps, *a.shape[1:]), 0, 1)

    place = by_candidate(r.place)
    won = place[:, ids, seat] == 1
    winner = np.argmax(place == 1, axis=2)
    total = by_candidate(r.work)
    hands = by_candidate(r.seat_work)[:, ids, seat]
    extras = {name: by_candidate(a)[:, ids, seat] for name, a in r.extras.items()}
    score = None if r.score is None else by_candidate(np.asarray(r.score, float))[:, ids, seat]
    return Duel(won=won[:k], ref_won=won[k] if reference else None, hands=hands[:k],
                extras={name: a[:k] for name, a in extras.items()}, seat=seat,
                matches=reps * n, hand_total=int(total.sum()), draws=draws, winner=winner[:k],
                ref_winner=winner[k] if reference else None,
                ref_extras={name: a[k] for name, a in extras.items()} if reference else None,
                score=None if score is None else score[:k],
                ref_score=score[k] if score is not None and reference else None)
