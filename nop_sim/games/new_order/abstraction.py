"""New Order's betting abstraction, as data: what a tabular betting policy is over.

A seat may play its betting decisions (fold, check or call, bet or raise, and the size
under pot-limit and no-limit) from a table of weights, float64 ``(n_infosets,
n_actions)``, one row per information set of an :class:`Abstraction`; its other
decisions (promotions, hedges, draws, the draft, Disruptor targets) stay with its agent
row. The engine reads the table in the kernel (kernels.table, which states the buckets
and the legal actions exactly); :class:`BettingTables` says which seat plays which
table, and which seat's decisions are traced for an outcome-sampling update.

An information set is a mixed-radix number of bucket indices, most significant first::

    phase (3) x facing a bet (2) x strength x pot odds x stack ratio

The buckets and bet sizes are settings of a scenario's ``[train]`` table
(:data:`TRAIN_KEYS`, :meth:`Abstraction.from_train`)::

    [train]
    strength_buckets = 10        # the judged chance to beat every live opponent, in slices
    odds_buckets = 3             # the pot odds faced, in slices of [0, 1/2)
    stack_buckets = 3            # the chip-stack ratio, in buckets a factor of two wide
    bet_sizes = [0.5, 1.0]       # bets and raises, fractions of the pot after calling

The default abstraction: 3 x 2 x 10 x 3 x 3 = 540 information sets x 4 actions (fold,
check/call, bet/raise 0.5 and 1 pot) = 2,160 weights.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nop_sim.core.errors import AbstractionError, did_you_mean
from nop_sim.games.new_order.kernels.state import (
    AB_EPSILON,
    AB_N_SIZES,
    AB_ODDS,
    AB_SIZES,
    AB_STACK,
    AB_STRENGTH,
    AB_TRACE_SEAT,
    MAX_BET_SIZES,
    N_AB,
    N_TR,
    TR_FIELDS,
)
from nop_sim.games.new_order.types import MAX_PLAYERS

__all__ = ["N_PHASES", "TRACE_COLUMNS", "TRAIN_KEYS", "Abstraction", "AbstractionError",
           "BettingTables", "empty_trace", "no_tables", "trace_buffer", "trace_rows",
           "train_settings", "read_table", "write_table"]

N_PHASES = 3           # Bet I, II, III
N_FACING = 2           # nothing to call, a bet to call
MAX_WEIGHTS = 50_000_000  # information sets x actions: 400 MB of float64 per table
# the trace's columns (float64 (n, N_TR) rows, kernels.state TR_*), in order
TRACE_COLUMNS = tuple(name.lower() for name, _, _ in TR_FIELDS)

# [train] key -> (what it sets, its default); every key has a default
TRAIN_KEYS: dict[str, tuple[str, Any]] = {
    "strength_buckets": ("buckets of the judged chance to beat every live opponent under the "
                         "live column (equal slices of [0, 1]), 1 to 100", 10),
    "odds_buckets": ("buckets of the pot odds faced, to_call / (pot + to_call) (equal "
                     "slices of [0, 1/2), the last open above), 1 to 20", 3),
    "stack_buckets": ("buckets of the seat's chips at the hand's start over its live "
                      "opponents' mean (a factor of two wide, centred on 1), 1 to 10", 3),
    "bet_sizes": ("bet and raise sizes, fractions of the pot after calling, increasing, 1 to "
                  f"{MAX_BET_SIZES} of them above 0 and at most 10 (limit betting plays the "
                  "one fixed bet)", (0.5, 1.0)),
}
_INT_RANGES = {"strength_buckets": (1, 100), "odds_buckets": (1, 20), "stack_buckets": (1, 10)}


@dataclass(frozen=True)
class Abstraction:
    """The buckets and actions of New Order's betting decision (module docstring)."""

    strength_buckets: int = 10
    odds_buckets: int = 3
    stack_buckets: int = 3
    bet_sizes: tuple[float, ...] = (0.5, 1.0)

    def __post_init__(self) -> None:
        values = _valid({key: getattr(self, key) for key in TRAIN_KEYS}, "Abstraction:")
        object.__setattr__(self, "bet_sizes", values["bet_sizes"])

    # -- size ----------------------------------------------------------------------
    @property
    def radices(self) -> tuple[int, ...]:
        """Bucket counts, most significant first: phase, facing, strength, odds, stack."""
        return (N_PHASES, N_FACING, self.strength_buckets, self.odds_buckets,
                self.stack_buckets)

    @property
    def n_infosets(self) -> int:
        return int(np.prod(self.radices))

    @property
    def n_actions(self) -> int:
        return 2 + len(self.bet_sizes)

    @property
    def size(self) -> int:
        """Weights of one table: information sets x actions."""
        return self.n_infosets * self.n_actions

    @property
    def action_names(self) -> tuple[str, ...]:
        return ("fold", "check/call") + tuple(f"bet/raise {f:g} pot" for f in self.bet_sizes)

    def describe(self) -> str:
        """One line for a report: the size and what it is made of."""
        return (f"{self.n_infosets:,} information sets ({' x '.join(map(str, self.radices))}: "
                f"phase, facing a bet, strength, pot odds, stack ratio) x {self.n_actions} "
                f"actions ({', '.join(self.action_names)}) = {self.size:,} weights")

    def infoset(self, phase: int, facing: int, strength: int, odds: int, stack: int) -> int:
        """The information set of one set of bucket indices (the kernel's numbering)."""
        index = 0
        for value, radix in zip((phase, facing, strength, odds, stack), self.radices,
                                strict=True):
            if not 0 <= value < radix:
                raise AbstractionError(f"bucket {value} is outside 0..{radix - 1}")
            index = index * radix + value
        return index

    # -- data ------------------------------------------------------------------------
    def to_train(self) -> dict[str, Any]:
        """The ``[train]`` keys that give this abstraction (what a field file records)."""
        return {"strength_buckets": self.strength_buckets, "odds_buckets": self.odds_buckets,
                "stack_buckets": self.stack_buckets, "bet_sizes": list(self.bet_sizes)}

    def to_array(self, *, epsilon: float = 0.0, trace_seat: int = -1) -> np.ndarray:
        """float64 (N_AB,) as the kernel reads it (kernels.state AB_*)."""
        out = np.zeros(N_AB, np.float64)
        out[AB_STRENGTH] = self.strength_buckets
        out[AB_ODDS] = self.odds_buckets
        out[AB_STACK] = self.stack_buckets
        out[AB_N_SIZES] = len(self.bet_sizes)
        out[AB_SIZES:AB_SIZES + len(self.bet_sizes)] = self.bet_sizes
        out[AB_EPSILON] = epsilon
        out[AB_TRACE_SEAT] = trace_seat
        return out

    def new_table(self, fill: float = 0.0) -> np.ndarray:
        """A table of this abstraction, float64 (n_infosets, n_actions), every weight ``fill``."""
        return np.full((self.n_infosets, self.n_actions), fill, np.float64)

    @classmethod
    def from_train(cls, table: Mapping[str, Any] | None, where: str = "[train]") -> Abstraction:
        """The abstraction a scenario's ``[train]`` table gives (defaults for keys not given).

        Raises :class:`AbstractionError` with one line naming ``where``, the key, the value
        and what is allowed (an unknown key: the keys known).
        """
        table = dict(table or {})
        unknown = sorted(set(table) - set(TRAIN_KEYS))
        if unknown:
            raise AbstractionError(f"{where}: unknown key {unknown[0]!r}; use one of "
                                   f"{', '.join(TRAIN_KEYS)}" + did_you_mean(unknown[0],
                                                                             list(TRAIN_KEYS)))
        values = {key: table.get(key, default) for key, (_, default) in TRAIN_KEYS.items()}
        return cls(**_valid(values, where))


def train_settings(table: Mapping[str, Any], where: str) -> Abstraction:
    """``Game.train_settings``: a scenario's ``[train]`` table as an :class:`Abstraction`."""
    return Abstraction.from_train(table, where)


def _valid(values: dict[str, Any], where: str) -> dict[str, Any]:
    """``values`` (the :data:`TRAIN_KEYS`) checked, ``bet_sizes`` as a tuple of floats;
    raises :class:`AbstractionError`, one line naming ``where``, the key and what is allowed."""
    for key, (lo, hi) in _INT_RANGES.items():
        v = values[key]
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or not lo <= v <= hi:
            raise AbstractionError(f"{where} {key} = {v!r} is not allowed: use an integer "
                                   f"from {lo} to {hi}")
    sizes = values["bet_sizes"]
    if (isinstance(sizes, str | bytes) or not isinstance(sizes, Sequence)
            or not all(isinstance(f, int | float) and not isinstance(f, bool) for f in sizes)):
        raise AbstractionError(f"{where} bet_sizes = {sizes!r} is not allowed: use a list of "
                               f"pot fractions, e.g. [0.5, 1.0]")
    sizes = tuple(float(f) for f in sizes)
    if not 1 <= len(sizes) <= MAX_BET_SIZES:
        raise AbstractionError(f"{where} bet_sizes = {list(sizes)!r} is not allowed: give 1 to "
                               f"{MAX_BET_SIZES} pot fractions")
    if any(not 0.0 < f <= 10.0 for f in sizes):
        raise AbstractionError(f"{where} bet_sizes = {list(sizes)!r} is not allowed: each size "
                               f"is a fraction of the pot above 0 and at most 10 (below the "
                               f"minimum bet it would be no size)")
    if any(b <= a for a, b in zip(sizes, sizes[1:], strict=False)):
        raise AbstractionError(f"{where} bet_sizes = {list(sizes)!r} is not allowed: the sizes "
                               f"must increase")
    n = (N_PHASES * N_FACING * values["strength_buckets"] * values["odds_buckets"]
         * values["stack_buckets"] * (2 + len(sizes)))
    if n > MAX_WEIGHTS:  # cannot happen within the ranges above; a guard for wider ones
        raise AbstractionError(f"{where}: {n:,} weights ({8 * n / 1e9:.1f} GB a table) is too "
                               f"large; at most {MAX_WEIGHTS:,}")
    return {**values, "bet_sizes": sizes}


@dataclass(frozen=True)
class BettingTables:
    """Seats that play their betting decisions from tables: an engine input.

    abstraction : what the tables are over
    tables : float64 (k, n_infosets, n_actions) weights; each seat's probabilities are
        the positive parts of its row normalised over the legal actions (uniform when
        none is positive): cumulative regrets play regret matching, strategy sums the
        average strategy
    seat_table : one entry per seat: the index of its table in ``tables``, or -1 (the
        seat plays its agent row, exactly as without tables); int (players,) for every
        agent table of the call, or int (k_agent_tables, players), one row per agent table
        (match ``m`` reads the row of its agent table ``table_of[m]``)
    trace_seat : the seat whose tabular decisions are written to the trace (-1: none)
    epsilon : the traced seat samples from ``epsilon / n_legal + (1 - epsilon) * sigma``
        (outcome sampling's exploration); the trace gives both chances
    trace_capacity : trace rows kept per chunk (more are counted as lost)
    """

    abstraction: Abstraction
    tables: np.ndarray
    seat_table: tuple[int, ...] | np.ndarray
    trace_seat: int = -1
    epsilon: float = 0.0
    trace_capacity: int = 200_000

    def arrays(self, players: int, n_agent_tables: int = 1
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """(policy (k, n_infosets, n_actions), policy_seat int64 (n_agent_tables,
        MAX_PLAYERS), abstraction float64 (N_AB,), trace rows per chunk) for the kernel,
        checked; ``n_agent_tables``: the agent tables of the call (``table_of``'s range)."""
        a = self.abstraction
        tables = np.asarray(self.tables)
        want = (a.n_infosets, a.n_actions)
        if tables.ndim == 2:
            tables = tables[None]
        if tables.ndim != 3 or tables.shape[0] < 1 or tables.shape[1:] != want:
            raise AbstractionError(f"betting tables must be float64 (k >= 1, {want[0]}, "
                                   f"{want[1]}) for this abstraction, got shape {tables.shape}")
        if not np.isfinite(tables).all():
            raise AbstractionError("betting tables hold a NaN or an infinite weight")
        seat_table = np.asarray(self.seat_table, np.int64)
        if seat_table.shape == (players,):
            seat_table = np.broadcast_to(seat_table, (n_agent_tables, players))
        if seat_table.shape != (n_agent_tables, players):
            raise AbstractionError(f"seat_table needs one entry per seat ({players},) or one "
                                   f"row per agent table ({n_agent_tables}, {players}), got "
                                   f"shape {seat_table.shape}")
        if (seat_table < -1).any() or (seat_table >= tables.shape[0]).any():
            raise AbstractionError(f"seat_table entries must be -1 or a table in 0.."
                                   f"{tables.shape[0] - 1}, got {seat_table.tolist()}")
        if not -1 <= self.trace_seat < players:
            raise AbstractionError(f"trace_seat = {self.trace_seat} is not -1 or a seat")
        if self.trace_seat >= 0 and (seat_table[:, self.trace_seat] < 0).any():
            raise AbstractionError(f"trace_seat = {self.trace_seat} plays no table (in some "
                                   f"agent table)")
        if not 0.0 <= self.epsilon <= 1.0:
            raise AbstractionError(f"epsilon = {self.epsilon} must lie in [0, 1]")
        policy_seat = np.full((n_agent_tables, MAX_PLAYERS), -1, np.int64)
        policy_seat[:, :players] = seat_table
        cap = self.trace_capacity if self.trace_seat >= 0 else 0
        return (np.ascontiguousarray(tables, np.float64), policy_seat,
                a.to_array(epsilon=self.epsilon, trace_seat=self.trace_seat), cap)


def write_table(path: str | Path, abstraction: Abstraction, table: np.ndarray) -> Path:
    """Write a betting table (float64 (n_infosets, n_actions)) with the abstraction it is
    over, as ``.npz``: ``weights`` and ``abstraction`` (the ``[train]`` keys as JSON), the
    sibling file a tabular field's agent file will name (issue 39, item 3)."""
    path = Path(path)
    table = np.asarray(table, np.float64)
    if table.shape != (abstraction.n_infosets, abstraction.n_actions):
        raise AbstractionError(f"{path}: a table of shape {table.shape} is not over this "
                               f"abstraction ({abstraction.n_infosets}, "
                               f"{abstraction.n_actions})")
    with path.open("wb") as f:  # the name as given: numpy.savez would add .npz to a str
        np.savez(f, weights=table, abstraction=np.array(json.dumps(abstraction.to_train())))
    return path


def read_table(path: str | Path, expected: Abstraction | None = None
               ) -> tuple[Abstraction, np.ndarray]:
    """(the abstraction, the table) of a file :func:`write_table` wrote.

    ``expected``: the abstraction the reader plays (a scenario's ``[train]``); a table
    over another is refused in one line that names both, as is a file that is no table.
    """
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            settings = json.loads(str(data["abstraction"]))
            table = np.array(data["weights"], np.float64)
    except (OSError, ValueError, KeyError) as exc:
        raise AbstractionError(f"{path}: not a betting table ({exc})") from None
    abstraction = Abstraction.from_train(settings, f"{path}: abstraction")
    if table.shape != (abstraction.n_infosets, abstraction.n_actions):
        raise AbstractionError(f"{path}: weights of shape {table.shape} are not over its "
                               f"abstraction ({abstraction.n_infosets}, {abstraction.n_actions})")
    if expected is not None and abstraction != expected:
        theirs = ", ".join(f"{k} = {v}" for k, v in abstraction.to_train().items())
        ours = ", ".join(f"{k} = {v}" for k, v in expected.to_train().items())
        raise AbstractionError(f"{path}: the table is over another abstraction ({theirs}) "
                               f"than [train] gives ({ours}); train it again or set [train] "
                               f"to its values")
    return abstraction, table


def no_tables(n_agent_tables: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The kernel's arrays for matches without betting tables (every seat its agent row):
    policy_seat int64 (n_agent_tables, MAX_PLAYERS) of -1, one row per agent table."""
    return (np.zeros((1, 1, 1), np.float64),
            np.full((n_agent_tables, MAX_PLAYERS), -1, np.int64), Abstraction().to_array(), 0)


def trace_buffer(n_chunks: int, capacity: int) -> np.ndarray:
    """float64 (n_chunks, capacity, N_TR): where each chunk's kernel writes its trace."""
    return np.zeros((n_chunks, capacity, N_TR), np.float64)


def empty_trace() -> np.ndarray:
    """A trace of no decisions, float64 (0, N_TR)."""
    return np.zeros((0, N_TR), np.float64)


def trace_rows(traces: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The rows the chunks wrote (``counts[c]`` of chunk ``c``), float64 (n, N_TR), chunk
    after chunk (match order)."""
    if traces.shape[1] == 0:
        return empty_trace()
    return np.concatenate([traces[c, :counts[c]] for c in range(traces.shape[0])])
