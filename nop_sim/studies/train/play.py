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
from typing import Any

import numpy as np

from nop_sim.games.agent_files import draw_rows
from nop_sim.games.registry import FieldPlay, policy_of
from nop_sim.kernels.rng import keyed_states
from nop_sim.run.executors import dask_client
from nop_sim.studies.train.errors import TrainError

__all__ = ["Duel", "Engine", "Field", "duel", "effective_matches", "match_states"]


def match_states(key: tuple[int, ...], n: int) -> np.ndarray:
    """uint64 ``(n, 4)`` RNG states, one per match, named by ``key`` (e.g.
    ``(seed, round, generation, stage)``): the same key gives the same states, so
    every candidate of a batch meets the same deals (common random numbers)."""
    return keyed_states(key, n)


_DRAW_TAG = 0x6D6978  # "mix": a field's draws have keys of their own


@dataclass(frozen=True)
class Field:
    """A symmetric mixture: ``rows`` float64 ``(K, parameters)``, ``weights`` ``(K,)``
    summing to 1, and ``ids``, each row's index in a training's population (or -1).

    A row may bet by a table (a field trained by ``--method cfr``): ``tables`` is the
    game's stack of betting tables, as its ``play_field`` takes them (New Order: the
    abstraction's ``[train]`` keys and float64 ``(m, infosets, actions)``), and
    ``table_of`` int64 ``(K,)`` each row's table, -1 for a row that plays alone."""

    rows: np.ndarray
    weights: np.ndarray
    ids: np.ndarray | None = None
    tables: Any = None
    table_of: np.ndarray | None = None

    @classmethod
    def pure(cls, row) -> Field:
        return cls(np.asarray(row, float)[None, :], np.ones(1))

    @classmethod
    def of(cls, rows, weights, ids=None, tables=None, table_of=None) -> Field:
        w = np.asarray(weights, float)
        keep = w > 0
        rows = np.asarray(rows, float)[keep]
        ids = None if ids is None else np.asarray(ids, np.int64)[keep]
        table_of = None if tables is None else np.asarray(table_of, np.int64)[keep]
        return cls(rows, w[keep] / w[keep].sum(), ids, tables, table_of)

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
    scores, ref_scores : ``(k, n, players)`` and ``(n, players)`` every seat's payoff in
        those matches (the meta-game's samples of a game measured by payoff); None: by wins
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
    scores: np.ndarray | None = None
    ref_scores: np.ndarray | None = None
    block: int = 1

    def per_block(self, a: np.ndarray) -> np.ndarray:
        """``(..., n)`` per match -> ``(..., n / block)`` the mean of each block of duplicate
        deals: the independent units an interval is computed on."""
        a = np.asarray(a, float)
        return a.reshape(*a.shape[:-1], -1, self.block).mean(axis=-1)

    def block_gain(self) -> np.ndarray:
        """``(k, blocks)`` each candidate's mean paired gain per block of duplicate deals."""
        return self.per_block(self.gain())

    def reference_samples(self) -> tuple[np.ndarray, np.ndarray]:
        """``(draws, winner seat)`` of each reference match played, once (a block's matches
        share one reference): the meta-game's samples of the field as drawn."""
        return self.draws[::self.block], self.ref_outcome()[::self.block]

    def payoff(self) -> np.ndarray:
        """``(k, n)`` what the candidate scored per match: its payoff, or 1 for a win."""
        return self.score if self.score is not None else self.won.astype(float)

    def outcome(self) -> np.ndarray:
        """What the meta-game reads of each candidate match: ``(k, n)`` the winning seat,
        or ``(k, n, players)`` every seat's payoff for a game measured by payoff."""
        return self.winner if self.scores is None else self.scores

    def ref_outcome(self) -> np.ndarray:
        """:meth:`outcome` of the reference matches: ``(n,)`` or ``(n, players)``."""
        return self.ref_winner if self.ref_scores is None else self.ref_scores

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
             states: np.ndarray, betting=None) -> FieldPlay:
        """The batch's :class:`~nop_sim.games.registry.FieldPlay`, in match order;
        ``betting``: the betting tables and each table's seats' (the game's
        ``play_field``), None where no seat bets by a table."""
        play_field = policy_of(settings).play_field
        more = {} if betting is None else {"betting": betting}
        t0 = time.perf_counter()
        if self.client is None:
            out = play_field(settings, tables, table_of, states, threads=self.threads, **more)
        else:  # betting's seat_table is per table, not per match: every slice takes it all
            cuts = range(0, len(table_of), self.slice_size)
            futures = [self.client.submit(play_field, settings, tables,
                                          table_of[a:a + self.slice_size],
                                          states[a:a + self.slice_size], threads=1,
                                          pure=False, **more)
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
         key: tuple[int, ...], reference: bool = True, duplicate: bool = True) -> Duel:
    """Play ``n`` matches per candidate row (``cands`` ``(k, parameters)``) in one seat
    of ``field``, and the reference (the field as drawn) on the same matches.

    ``n`` should be a multiple of ``players`` for an even share of seats. With
    ``duplicate`` (the default), the matches come in blocks of ``players``: a block's
    matches share one deal (RNG state) and one draw of the field's rows, and the
    candidate sits in each seat once (duplicate deals: a seat's cards are not the
    verdict); the reference is played once a block, so each seat's occupant is compared
    on its own seat. Without, every match has its own deal and draw (match ``i``: the
    candidate in seat ``i % players``). Intervals come from :meth:`Duel.block_gain`.
    """
    players = settings.players
    width = np.asarray(field.rows).shape[1]
    cands = np.asarray(cands, np.float64).reshape(-1, width)
    k = cands.shape[0]
    block = players if duplicate else 1
    if n % block:
        raise ValueError(f"duel: {n} matches are not whole blocks of {block}")
    n_deals = n // block
    ids = np.arange(n)
    seat = ids % players
    deal = ids // block                       # match i plays deal ``deal[i]``
    deal_draws = field.draw(key, n_deals, players)
    draws = deal_draws[deal]
    states = match_states(key, n_deals)
    rows = np.asarray(field.rows, np.float64)
    # deal-major tables: deal d holds its block's (seat, candidate) matches, candidate
    # fastest, then its reference (the field as drawn), so the engine's threads, which
    # take contiguous ranges, each get every candidate's share of long and short matches
    per = block * k + (1 if reference else 0)
    drawn = rows[deal_draws]                                    # (n_deals, players, w)
    cand_part = np.broadcast_to(drawn[:, None, None],
                                (n_deals, block, k, players, width)).copy()
    d_idx, c_idx = np.arange(n_deals)[:, None], np.arange(k)[None, :]
    for r in range(block):  # the candidate's seat in the block's r-th match
        cand_part[d_idx, r, c_idx, seat[d_idx * block + r], :] = cands[None, :, :]
    parts = [cand_part.reshape(n_deals, block * k, players, width)]
    if reference:
        parts.append(drawn[:, None])
    tables = np.concatenate(parts, axis=1).reshape(n_deals * per, players, width)
    betting = None
    if field.tables is not None:  # each seat bets by its drawn row's table; the candidate
        bets = field.table_of[deal_draws]                        # by its own row: -1
        cand_bets = np.broadcast_to(bets[:, None, None], (n_deals, block, k, players)).copy()
        for r in range(block):
            cand_bets[d_idx, r, c_idx, seat[d_idx * block + r]] = -1
        bet_parts = [cand_bets.reshape(n_deals, block * k, players)]
        if reference:
            bet_parts.append(bets[:, None])
        betting = (field.tables,
                   np.concatenate(bet_parts, axis=1).reshape(n_deals * per, players))
    r = engine.play(settings, np.ascontiguousarray(tables),
                    np.arange(n_deals * per, dtype=np.int64), np.repeat(states, per, axis=0),
                    betting)

    def split(a):  # (n_deals * per, ...) -> candidates (k, n, ...) and reference (n, ...)
        a = np.asarray(a).reshape(n_deals, per, *np.shape(a)[1:])
        c = a[:, :block * k].reshape(n_deals, block, k, *a.shape[2:])
        c = np.moveaxis(c, 2, 0).reshape(k, n, *a.shape[2:])
        ref = a[:, block * k][deal] if reference else None
        return c, ref

    def at_seat(c, ref):  # the candidate's seat of each match
        return c[:, ids, seat], (ref[ids, seat] if ref is not None else None)

    place, ref_place = split(r.place)
    won, ref_won = at_seat(place == 1, None if ref_place is None else ref_place == 1)
    winner = np.argmax(place == 1, axis=2)
    ref_winner = np.argmax(ref_place == 1, axis=1) if reference else None  # (n,) as draws
    hands, _ = at_seat(*split(r.seat_work))
    extras, ref_extras = {}, {}
    for name, a in r.extras.items():
        extras[name], ref_extras[name] = at_seat(*split(a))
    score = ref_score = scores = ref_scores = None
    if r.score is not None:
        scores, ref_scores = split(np.asarray(r.score, float))
        score, ref_score = at_seat(scores, ref_scores)
    return Duel(won=won, ref_won=ref_won, hands=hands, extras=extras, seat=seat,
                matches=n_deals * per, hand_total=int(np.asarray(r.work).sum()), draws=draws,
                winner=winner, ref_winner=ref_winner,
                ref_extras=ref_extras if reference else None, score=score,
                ref_score=ref_score, block=block, scores=scores, ref_scores=ref_scores)


def effective_matches(d: Duel, c: int = 0, versus: int | None = None) -> float:
    """The plain matches that would give candidate ``c``'s gain the interval this duel
    gives it: independent matches of the candidate alone, each as noisy as one of its
    matches here (the variance of its payoff, a win or a score), against the variance of
    the duel's estimate (its blocks' mean gains). With ``versus``, the same for the
    difference of two candidates' payoffs (a value): plain matches *per side*, the two
    sides independent. Infinite where the estimate has no noise (a copy of the field)."""
    pay = d.payoff()
    if versus is None:
        plain = float(np.var(pay[c], ddof=1))
        est = d.block_gain()[c]
    else:
        plain = float(np.var(pay[c], ddof=1) + np.var(pay[versus], ddof=1))
        est = d.per_block(pay[c] - pay[versus])
    var = float(np.var(est, ddof=1)) / est.size
    return float("inf") if var == 0 else plain / var
