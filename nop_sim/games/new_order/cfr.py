"""New Order's regret trainer: outcome-sampling MCCFR over the betting abstraction.

What ``nop-sim train SCENARIO --method cfr`` learns for New Order: a betting table
(:mod:`nop_sim.games.new_order.abstraction`), the average strategy over the
abstraction's information sets, which every seat of the field plays; the seats' other
decisions (promotions, hedges, draws, the draft, Disruptor targets) are the ``base``
agent row's, a preset or the heaviest row of an agent file (``[train] base``).

Why outcome sampling: the compiled engine cannot branch a match state or say how
likely a shuffle was, and outcome sampling needs neither (:mod:`nop_sim.kernels.mccfr`).
An *episode* is one hand: the traced seat's payoff is its chips at the hand's end less
at its start, over the starting stack. Every iteration plays, for each seat in turn,
``[train] matches`` matches in which every seat bets by regret matching over the
shared table and the traced seat explores (``[train] exploration``); its decisions
update the regrets (OpenSpiel's outcome sampling without a baseline) and the average
strategy (stochastically weighted, each iteration's share growing as ``t**2``), and
the regrets are discounted as Discounted CFR does (alpha 1.5, beta 0, gamma 2: Brown
and Sandholm 2019). The matches of iteration ``t`` and seat ``s`` are seeded by the
scenario's seed, ``t`` and ``s``; their chunks are seeded apart, so the trace, and
the table, are the same on any number of threads.

The ``[train]`` keys (:data:`CFR_KEYS`, beside the abstraction's
:data:`~nop_sim.games.new_order.abstraction.TRAIN_KEYS`)::

    [train]
    base = "balanced"        # a preset, or "@agent file" (its heaviest row)
    matches = 200            # matches per seat per iteration
    exploration = 0.3        # the traced seat's uniform share (outcome sampling's epsilon)
    curve_matches = 20000    # the small best response checking each twentieth (the curve)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from nop_sim.core.errors import AbstractionError, did_you_mean
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.abstraction import (
    TRACE_COLUMNS,
    TRAIN_KEYS,
    Abstraction,
    BettingTables,
    write_table,
)
from nop_sim.games.new_order.agents import AgentError, agent_row
from nop_sim.games.registry import RegretTrainer

__all__ = ["CFR_KEYS", "TRAINER", "CfrSettings", "episodes", "train_settings"]

ALPHA, BETA, GAMMA = 1.5, 0.0, 2.0
SEED_TAG = 0x636672            # "cfr": keeps the trainer's streams apart from a run's
BR_TAG, GAIN_TAG = 0x6272, 0x676169  # "br", "gai": a best response's, its held-out deals
TRACE_PER_MATCH = 2_000        # trace rows a chunk keeps per match (more: refused, not lost)
CHUNK = 8                      # matches per chunk (part of the identity, as a run's chunk)
_COL = {name: i for i, name in enumerate(TRACE_COLUMNS)}

# [train] key -> (what it sets, its default), the regret trainer's own
CFR_KEYS: dict[str, tuple[str, Any]] = {
    "base": ("the agent whose row plays every decision but the bets (promotions, hedges, "
             "draws, the draft): a preset name or \"@agent file\" (its heaviest row)",
             "balanced"),
    "matches": ("matches each seat plays per iteration, 1 to 100,000", 200),
    "exploration": ("the traced seat's uniform share when it samples its bets (outcome "
                    "sampling's epsilon), above 0 and at most 1", 0.3),
    "curve_matches": ("matches of the small best response that checks the average strategy "
                      "after each twentieth of a training (the curve), 100 to 10,000,000",
                      20_000),
}


# the trainer's numeric keys: (types, the test of a value, what a message allows)
_RANGES = {
    "matches": (int, lambda v: 1 <= v <= 100_000, "an integer from 1 to 100000"),
    "exploration": (int | float, lambda v: 0.0 < v <= 1.0, "a number above 0 and at most 1"),
    "curve_matches": (int, lambda v: 100 <= v <= 10**7, "an integer from 100 to 10000000"),
}


@dataclass(frozen=True, eq=False)
class CfrSettings:
    """A scenario's ``[train]`` for New Order: the abstraction and the trainer's keys."""

    abstraction: Abstraction = field(default_factory=Abstraction)
    base: str = "balanced"            # as given (a preset or "@path"), for the header
    base_row: np.ndarray = field(default_factory=lambda: agent_row("balanced"))
    matches: int = 200
    exploration: float = 0.3
    curve_matches: int = 20_000

    def describe(self) -> str:
        return (f"base {self.base}, {self.matches:,} matches a seat an iteration, "
                f"exploration {self.exploration:g}")

    def identity(self) -> dict:
        """What a training's checkpoint must share to be resumed with these settings."""
        return {**self.abstraction.to_train(), "base": self.base,
                "base_row": [float(v) for v in self.base_row], "matches": self.matches,
                "exploration": self.exploration, "curve_matches": self.curve_matches}


def _base(value, where: str) -> tuple[str, np.ndarray]:
    """(label, row) of ``[train] base``: a preset name, or a seat read from an agent
    file (the scenario reads ``"@path"``; a mixture gives its heaviest row)."""
    rows = getattr(value, "rows", None)
    if rows is not None:  # a SeatFile: its heaviest row
        heaviest = int(np.argmax(value.weights))
        label = f"@{value.given}" + (f" (row {heaviest})" if len(rows) > 1 else "")
        spec = rows[heaviest]
    elif isinstance(value, str):
        label = spec = value
    else:
        raise AbstractionError(f"{where} base = {value!r} is not allowed: give a preset name "
                               f"or \"@agent file\"")
    try:
        return label, agent_row(spec)
    except (AgentError, ValueError, KeyError) as exc:
        raise AbstractionError(f"{where} base = {label!r} is not allowed: {exc}") from None


def train_settings(table: Mapping[str, Any], where: str) -> CfrSettings:
    """``Game.train_settings``: a scenario's ``[train]`` table (the abstraction's keys and
    :data:`CFR_KEYS`); one line naming ``where``, the key and what is allowed."""
    table = dict(table or {})
    known = list(TRAIN_KEYS) + list(CFR_KEYS)
    for key in table:
        if key not in known:
            raise AbstractionError(f"{where}: unknown key {key!r}; use one of "
                                   f"{', '.join(known)}" + did_you_mean(key, known))
    abstraction = Abstraction.from_train({k: v for k, v in table.items() if k in TRAIN_KEYS},
                                         where)
    label, row = _base(table.get("base", CFR_KEYS["base"][1]), where)
    values = {key: table.get(key, CFR_KEYS[key][1]) for key in _RANGES}
    for key, (kinds, holds, allowed) in _RANGES.items():
        v = values[key]
        if isinstance(v, bool) or not isinstance(v, kinds) or not holds(v):
            raise AbstractionError(f"{where} {key} = {v!r} is not allowed: use {allowed}")
    return CfrSettings(abstraction, label, row, values["matches"],
                       float(values["exploration"]), values["curve_matches"])


def _config(train) -> CfrSettings:
    if isinstance(train, CfrSettings):
        return train
    return train_settings({} if train is None else train, "[train]")


def episodes(trace: np.ndarray) -> np.ndarray:
    """int64 (n_episodes + 1,) the first row of each episode (one hand of one match) in a
    trace, rows of a hand being consecutive, and the number of rows last."""
    match, hand = trace[:, _COL["match"]], trace[:, _COL["hand"]]
    new = np.ones(trace.shape[0], bool)
    new[1:] = (match[1:] != match[:-1]) | (hand[1:] != hand[:-1])
    return np.append(np.flatnonzero(new), trace.shape[0]).astype(np.int64)


def _seed(seed: int, iteration: int, seat: int) -> int:
    return int(np.random.SeedSequence([seed & (2**63 - 1), SEED_TAG, iteration, seat])
               .generate_state(1, np.uint64)[0] >> np.uint64(1))


# -- what nop-sim train --method cfr drives (nop_sim.games.registry.RegretTrainer) ----------
def _new(settings, train) -> dict:
    cfg = _config(train)
    a = cfg.abstraction
    return {"regret": a.new_table(), "strategy_sum": a.new_table(),
            "base": cfg.base_row.copy(), "iteration": np.array(0, np.int64),
            "decisions": np.array(0, np.int64)}


def _sample(settings, cfg: CfrSettings, tables: np.ndarray, seat_table, seat: int,
            seed: int, regret: np.ndarray, strategy_sum: np.ndarray, weight: float,
            threads: int | None) -> int:
    """Play ``cfg.matches`` matches with ``seat`` traced (it bets by ``tables[seat_table
    [seat]]``, which is ``regret``, exploring), and add its episodes' sampled regrets to
    ``regret`` and its reach-weighted strategy, times ``weight``, to ``strategy_sum``, in
    place; the decisions used."""
    # here, not at the top: the engine and the updates load numba, which reading a
    # scenario's [train] needs not
    from nop_sim.games.new_order.engine import play_matches
    from nop_sim.kernels.mccfr import average_update, regret_update

    players = settings.players
    bt = BettingTables(cfg.abstraction, tables, tuple(seat_table), trace_seat=seat,
                       epsilon=cfg.exploration, trace_capacity=TRACE_PER_MATCH * CHUNK)
    res = play_matches(settings, [cfg.base_row] * players, cfg.matches, seed=seed,
                       chunk_size=CHUNK, threads=threads, betting=bt)
    if res.trace_lost:
        raise RuntimeError(f"the trace lost {res.trace_lost:,} decisions (more than "
                           f"{TRACE_PER_MATCH:,} a match): the update would be biased")
    tr = res.trace
    if tr.shape[0] == 0:
        return 0
    starts = episodes(tr)
    infoset = tr[:, _COL["infoset"]].astype(np.int64)
    legal = tr[:, _COL["legal"]].astype(np.int64)
    sigma = np.ascontiguousarray(tr[:, _COL["policy_p"]])
    sample_p = np.ascontiguousarray(tr[:, _COL["sample_p"]])
    utility = np.ascontiguousarray(tr[starts[:-1], _COL["payoff"]] / settings.starting_chips)
    # the average first: the strategy the episodes were played with
    average_update(strategy_sum, regret, starts, infoset, legal, sigma, sample_p, weight,
                   np.zeros(regret.shape[1], np.float64))
    regret_update(regret, starts, utility, infoset, tr[:, _COL["action"]].astype(np.int64),
                  legal, sigma, sample_p)
    return int(tr.shape[0])


def _discount(regret: np.ndarray, t: int) -> None:
    from nop_sim.kernels.mccfr import discount  # numba: loaded where training runs

    discount(regret, float(t), ALPHA, BETA)


def iterate(settings, cfg: CfrSettings, regret: np.ndarray, strategy_sum: np.ndarray,
            t: int, seed: int, threads: int | None) -> int:
    """Iteration ``t`` (1, 2, ...) in place: each seat in turn traced over
    ``cfg.matches`` matches, its regrets and average updated, then the regrets
    discounted; the traced decisions it used."""
    players = settings.players
    used = sum(_sample(settings, cfg, regret[None], (0,) * players, seat,
                       _seed(seed, t, seat), regret, strategy_sum, float(t) ** GAMMA, threads)
               for seat in range(players))
    _discount(regret, t)
    return used


def _run(settings, train, arrays, iterations: int, progress: Callable | None = None, *,
         seed: int = 0, threads: int | None = None) -> dict:
    cfg = _config(train)
    regret = np.array(arrays["regret"], np.float64)
    strategy_sum = np.array(arrays["strategy_sum"], np.float64)
    t = int(arrays["iteration"])
    decisions = int(arrays["decisions"])
    start = t
    while t < iterations:
        t += 1
        decisions += iterate(settings, cfg, regret, strategy_sum, t, seed, threads)
        if progress is not None:
            progress(t - start)
    return {"regret": regret, "strategy_sum": strategy_sum,
            "base": np.array(arrays["base"], np.float64), "iteration": np.array(t, np.int64),
            "decisions": np.array(decisions, np.int64)}


def _done(arrays) -> int:
    return int(arrays["iteration"])


def _row(arrays) -> np.ndarray:
    return np.array(arrays["base"], np.float64)


def average_table(strategy_sum: np.ndarray) -> np.ndarray:
    """The average strategy: each information set's row of ``strategy_sum`` over its sum
    (zeros where never reached: the seat then plays uniformly over the legal actions)."""
    total = strategy_sum.sum(axis=1, keepdims=True)
    return np.divide(strategy_sum, total, out=np.zeros_like(strategy_sum), where=total > 0)


def _betting(arrays, train, path) -> str:
    abstraction = _config(train).abstraction
    write_table(path, abstraction, average_table(np.asarray(arrays["strategy_sum"])))
    return abstraction.describe()


def _size(settings, train) -> tuple[int, int]:
    a = _config(train).abstraction
    return a.n_infosets, a.n_actions


def _decisions(arrays) -> int:
    return int(arrays["decisions"])


def _bound(settings, train, arrays, *, seed: int, threads: int | None = None) -> dict:
    """The curve's check after a slice: :func:`respond` to the average strategy so far,
    ``[train] curve_matches`` matches (a quarter of them held out)."""
    cfg = replace(_config(train), base_row=np.asarray(arrays["base"], np.float64))
    return respond(settings, cfg, average_table(np.asarray(arrays["strategy_sum"])),
                   cfg.curve_matches, seed=seed, threads=threads)


TRAINER = RegretTrainer(
    method=(f"outcome-sampling MCCFR over the betting abstraction, one hand an episode, "
            f"discounted as DCFR (alpha {ALPHA}, beta {BETA:g}, gamma {GAMMA:g})"),
    iterations=300,
    new=_new, run=_run, done=_done, row=_row, size=_size, betting=_betting,
    decisions=_decisions, bound=_bound,
)


# -- a best response within the abstraction (the second check of a tabular field) -----------
def best_response(settings, cfg: CfrSettings, field: np.ndarray, iterations: int, *,
                  seed: int, threads: int | None = None,
                  progress: Callable[[int], None] | None = None) -> np.ndarray:
    """A betting table that answers ``field`` (float64 ``(n_infosets, n_actions)``, what
    every other seat bets by), learned by the same outcome-sampling updates for one seat
    against the fixed field: the seat in turn is each seat, its other decisions the
    field's row (``cfg.base_row``). Returns its average strategy; the same for a seed
    on any number of threads."""
    players = settings.players
    field = np.asarray(field, np.float64)
    regret = np.zeros_like(field)
    strategy_sum = np.zeros_like(field)
    for t in range(1, iterations + 1):
        for seat in range(players):
            _sample(settings, cfg, np.stack([field, regret]),
                    tuple(1 if k == seat else 0 for k in range(players)), seat,
                    _seed(seed ^ BR_TAG, t, seat), regret, strategy_sum, float(t) ** GAMMA,
                    threads)
        _discount(regret, t)
        if progress is not None:
            progress(t)
    return average_table(strategy_sum)


def table_gain(settings, cfg: CfrSettings, field: np.ndarray, answer: np.ndarray,
               n_matches: int, *, seed: int, threads: int | None = None) -> dict:
    """What ``answer`` (a betting table) gains against ``field`` in match wins, on deals
    of its own seed (held out from any training): it bets in each seat in turn, every
    other seat bets by ``field``, all play ``cfg.base_row`` otherwise. The field in
    every seat wins ``1 / players`` of the matches by symmetry, so the gain is the win
    rate less that, in points, with a 95% normal interval: ``{"matches", "gain", "low",
    "high"}``."""
    from nop_sim.games.new_order.engine import play_matches  # numba, where it plays

    players = settings.players
    per_seat = -(-int(n_matches) // players)
    wins = []
    for seat in range(players):
        seat_table = tuple(1 if k == seat else 0 for k in range(players))
        bt = BettingTables(cfg.abstraction, np.stack([np.asarray(field, np.float64),
                                                      np.asarray(answer, np.float64)]),
                           seat_table)
        res = play_matches(settings, [cfg.base_row] * players, per_seat,
                           seed=_seed(seed ^ GAIN_TAG, 0, seat), threads=threads, betting=bt)
        wins.append(res.player[:, seat, T.PL_PLACE] == 1)
    won = np.concatenate(wins).astype(float)
    rate, se = float(won.mean()), float(won.std(ddof=1) / np.sqrt(won.size))
    gain = 100.0 * (rate - 1.0 / players)
    return {"matches": int(won.size), "gain": gain, "low": gain - 196.0 * se,
            "high": gain + 196.0 * se}


def field_response(settings, train, field, budget: int, *, seed: int,
                   threads: int | None = None,
                   progress: Callable[[int], None] | None = None) -> dict | None:
    """``PolicySpace.table_response``: the in-abstraction check of a field of one row that
    bets by a table (a field ``--method cfr`` trained). Three quarters of ``budget``
    (matches) train a :func:`best_response` (its other decisions the field's row, the
    trainer's ``matches`` and ``exploration`` from ``train``), the last quarter measures
    it on deals of their own (:func:`respond`). None for a field without a table, or a
    mixture (whose rows would each need their own answer)."""
    if field.tables is None or len(field.rows) != 1 or int(field.table_of[0]) < 0:
        return None
    keys, weights = field.tables
    trainer = train if isinstance(train, CfrSettings) else CfrSettings()
    cfg = CfrSettings(Abstraction.from_train(keys), "the field's row",
                      np.asarray(field.rows[0], np.float64), trainer.matches,
                      trainer.exploration, trainer.curve_matches)
    return respond(settings, cfg, np.asarray(weights[int(field.table_of[0])], np.float64),
                   budget, seed=seed, threads=threads, progress=progress)


def respond(settings, cfg: CfrSettings, table: np.ndarray, budget: int, *, seed: int,
            threads: int | None = None,
            progress: Callable[[int], None] | None = None) -> dict:
    """Answer ``table`` (every other seat bets by it, all play ``cfg.base_row`` otherwise):
    three quarters of ``budget`` (matches) train a :func:`best_response`, the last quarter
    measures it on deals of their own (:func:`table_gain`). ``{"gain", "low", "high"}``
    in payoff units, ``"matches"``, ``"held_out"``, ``"iterations"``."""
    players = settings.players
    held_out = max(players, budget // 4)
    iterations = max(1, (budget - held_out) // (players * cfg.matches))
    answer = best_response(settings, cfg, table, iterations, seed=seed, threads=threads,
                           progress=None if progress is None else
                           (lambda t: progress(t * players * cfg.matches)))
    g = table_gain(settings, cfg, table, answer, held_out, seed=seed, threads=threads)
    if progress is not None:
        progress(iterations * players * cfg.matches + g["matches"])
    return {"gain": g["gain"] / 100.0, "low": g["low"] / 100.0, "high": g["high"] / 100.0,
            "matches": iterations * players * cfg.matches + g["matches"],
            "held_out": g["matches"], "iterations": iterations}
