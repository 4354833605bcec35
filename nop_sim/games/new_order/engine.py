"""Play matches: settings + agents -> the match kernel -> raw results.

:func:`play_matches` turns a :class:`~nop_sim.games.new_order.settings.Settings` and one agent
spec per seat into arrays, splits the matches into chunks seeded from
``numpy.random.SeedSequence(seed).spawn(n_chunks)``, runs the kernel
(threads over chunks) and returns a :class:`MatchResults`: one row per match,
and per-hand counters already merged over chunks (they are sums and counts).

The same seed, settings, agents, ``n_matches`` and ``chunk_size`` give
identical results whatever the number of threads.

How the engine plays the SPEC's rulings (section 8b) and reads what the SPEC
leaves open (the referee, :mod:`nop_sim.games.new_order.referee`, checks the same):

- R1 Dead money: fees paid to the pot and hedge costs go to the main pot
  until a player of the hand is all-in; after that each payment forms a pot
  that only the seats neither folded nor all-in when it was paid may win
  (payments with the same such seats share one pot). A pot none of whose
  seats shows down joins the main pot, as does a layer of bets that only
  mucked hands reached. Hedge payouts from the pot come out of the main pot
  first, then the other pots in the order they formed (the layer above an
  all-in forms when the first player goes all-in at its floor).
- R2 A Personal or Community card acts from the next hand; a safety_net
  drafted in the hand its owner reaches 0 does not save them.
- R3 Fee first: the fee of a promotion is paid before the action's chips; a
  promotion needs the fee and one more chip; an action the rest no longer
  covers is all-in for the rest (a raise that no longer exceeds the call is
  a call). With several promotions each pays the fee of the dart then.
- R4 An all-in bet or raise smaller than a full one (limit: the round's bet
  size; pot-limit, no-limit: the last full bet or raise, at first small_bet)
  neither counts toward ``max_raises`` nor reopens the betting: a seat that
  acted since the last full bet or raise may only call or fold. An all-in
  bet below small_bet counts the same way (the round's start is the
  reference).
- R5 A player may hedge with exactly ``hedge_cost``; the last chip leaves
  them all-in and they take no action that turn.
- R6 Stacking (see ``data/disruptors.toml``): inflation, double_ante,
  hedge_boom and hedge_fund multiply by their amount per copy, broker
  subtracts its amount per copy, each safety_net saves once; the other cards
  hold or not. The fee is ``max(0, min(dart, price ceiling) - broker
  amount * brokers)``.
- R7 When the stock runs out during a player's draw, the new stock is the
  discard pile without that player's discards of this draw, which join the
  pile after the draw. Folded hands are dead: only Draw discards are
  reshuffled into a new stock.
- R8 Every card's number is its ``amount`` in the catalog or the mix:
  positions moved (insider_tip, short_sell, elevator), the wild rank
  (wild_deuces, deuces_wild), cards at Community Card I (third_card), chips,
  dart steps, multipliers.
- R9 Side pots are cut at the commitments of all-in players only, antes
  included; a seat neither folded nor all-in contests every pot whatever it
  paid (a seat with ante_exempt wins the others' antes).
- R10 When a betting round ends, the part of its highest bet that no other
  seat matched (everyone else folded to it or was all-in for less) goes back
  to its bettor (logged as ``uncalled``), before any hedge payout or award; a
  bettor who was all-in is no longer. The comparison is within the round, so
  an ante is never returned.
- R11 k of "a showdown with k players" counts every seat that reached the
  showdown, muckers included: k + 1 Disruptors are revealed.
- R12 A seat neither folded nor all-in gets a turn only while another seat
  can still act or while it faces a bet to call; a lone seat whose bet is
  matched gets no turn (no hedge, no promotion).
- R13 insider_tip and short_sell move a category by their ``amount`` (R8)
  and stop at the top or the bottom of the column.
- Pot-limit: the largest raise is the pot (fees and hedge costs included, as
  paid before the action) after calling.
- Agents never fold when they could check (a dominated choice); the rules
  would allow it.
- Muck: offered in seat order left of the dealer to a hand that cannot beat
  the best shown; the agents muck only when that hand also contests every pot
  theirs does.
- purge must take a card when any is in play (its owner's own included).
- Players eliminated in one hand: more chips at that hand's start rank
  better, then seat order left of that hand's dealer. An unresolved match
  ranks the players still in by chips.
"""

from __future__ import annotations

import csv
import io
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import numba
import numpy as np

from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.abstraction import (
    BettingTables,
    empty_trace,
    no_tables,
    trace_buffer,
    trace_rows,
)
from nop_sim.games.new_order.agents import AgentError, agent_bounds, agent_row, agent_table
from nop_sim.games.new_order.settings import Settings
from nop_sim.kernels.rng import keyed_states, seed_states, spawned_states

__all__ = ["BatchResults", "FieldResults", "MatchResults", "ScriptedMatch", "compile_callees",
           "compile_engine", "compile_parallel", "load_kernels", "match_states", "play_batches", "play_field", "play_matches",
           "play_scripted", "refresh_kernel_cache", "strength_tables", "warm_up"]

DEFAULT_CHUNK = 32
DEFAULT_HORIZON = 1000
# A thread's event-log buffer, kept between play_batches calls up to this size (address
# space: only the rows written are touched); see _log_buffer.
KEPT_LOG_BYTES = 1 << 30
_kept = threading.local()


def refresh_kernel_cache() -> None:
    """Drop stale cached kernels before this process (or a worker) reads numba's cache.

    The guard is :func:`nop_sim.kernels.jit._guard_cache`: it runs as each kernel
    folder's first kernel is defined, so importing the match kernels is enough.
    """
    import nop_sim.games.new_order.kernels.match  # noqa: F401 - the import is the refresh


@lru_cache(maxsize=1)
def strength_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start int64 (N_TABLES+1,), mask int64, freq float64) from strength_tables.csv."""
    text = resources.files("nop_sim.games.new_order").joinpath("data/strength_tables.csv").read_text()
    rows: dict[str, list[tuple[int, int]]] = {name: [] for name in T.STRENGTH_TABLES}
    reader = csv.DictReader(line for line in io.StringIO(text) if not line.startswith("#"))
    for row in reader:
        rows[row["table"]].append((int(row["mask"]), int(row["count"])))
    start = [0]
    masks: list[int] = []
    freqs: list[float] = []
    for name in T.STRENGTH_TABLES:
        entries = rows[name]
        if not entries:
            raise RuntimeError(f"strength_tables.csv has no rows for table {name!r}")
        total = sum(c for _, c in entries)
        masks += [m for m, _ in entries]
        freqs += [c / total for _, c in entries]
        start.append(len(masks))
    return (np.array(start, np.int64), np.array(masks, np.int64), np.array(freqs, np.float64))


@dataclass(kw_only=True)
class _Played:
    """The engine's arrays: per match ``match`` int64 (n, N_MATCH_FIELDS), ``player``
    int64 (n, players, N_PLAYER_FIELDS), ``drafted`` int64 (n, players, 25) cards
    drafted per id, ``column`` int8 (n, 13) final column, top first; per-hand
    counters ``counts`` (N_COUNTS,), ``categories`` (N_CAT_STATS, 13), ``time``
    (horizon, N_TIME_STATS), ``disruptors`` (N_DISRUPTOR_STATS, 25)."""

    match: np.ndarray
    player: np.ndarray
    drafted: np.ndarray
    column: np.ndarray
    counts: np.ndarray
    categories: np.ndarray
    time: np.ndarray
    disruptors: np.ndarray


@dataclass(kw_only=True)
class MatchResults(_Played):
    """What :func:`play_matches` returns (layouts in :mod:`nop_sim.games.new_order.types`): the
    arrays of :class:`_Played`, counters merged over chunks, with the ``settings``,
    ``agents`` and ``seed`` played. ``events``: int64 (n_events, EV_WIDTH) rows of
    the logged matches, in match order (empty when the log is off).
    """

    settings: Settings
    agents: np.ndarray
    seed: int
    events: np.ndarray = field(default_factory=lambda: np.zeros((0, T.EV_WIDTH), np.int64))
    events_lost: int = 0
    # the traced seat's tabular decisions, float64 (n, N_TR) (abstraction.TRACE_COLUMNS)
    trace: np.ndarray = field(default_factory=empty_trace)
    trace_lost: int = 0

    @property
    def n_matches(self) -> int:
        return self.match.shape[0]

    def count(self, name: str) -> int:
        """A merged counter by its name in types (``"hands"`` -> ``C_HANDS``)."""
        return int(self.counts[getattr(T, "C_" + name.upper())])

    def matches_frame(self):
        """One row per match: winner, hands, unresolved, final dart and column, per-seat places."""
        import pandas as pd  # here: pandas loads slowly, and a worker playing matches never needs it

        n_players = self.player.shape[1]
        data: dict[str, Any] = {
            "winner": self.match[:, T.M_WINNER],
            "hands": self.match[:, T.M_HANDS],
            "unresolved": self.match[:, T.M_UNRESOLVED].astype(bool),
            "dart": self.match[:, T.M_DART],
            "button_start": self.match[:, T.M_BUTTON_START],
            "bank_in": self.match[:, T.M_BANK_IN],
            "bank_out": self.match[:, T.M_BANK_OUT],
            "column": [" ".join(map(str, row)) for row in self.column.tolist()],
        }
        fields = [("place", T.PL_PLACE), ("eliminated_hand", T.PL_ELIMINATED_HAND),
                  ("manipulations", T.PL_MANIPULATIONS), ("fees", T.PL_FEES),
                  ("hedges_placed", T.PL_HEDGES_PLACED), ("hedges_won", T.PL_HEDGES_WON)]
        for seat in range(n_players):
            for name, idx in fields:
                data[f"{name}_{seat}"] = self.player[:, seat, idx]
        return pd.DataFrame(data)


def play_matches(
    settings: Settings | None = None,
    agents: str | Sequence = "balanced",
    n_matches: int = 100,
    seed: int = 0,
    *,
    chunk_size: int = DEFAULT_CHUNK,
    check: bool = False,
    log_every: int = 0,
    log_matches: Sequence[int] | np.ndarray | None = None,
    log_capacity: int = 200_000,
    horizon: int | None = None,
    threads: int | None = None,
    table_of: Sequence[int] | np.ndarray | None = None,
    betting: BettingTables | None = None,
) -> MatchResults:
    """Play ``n_matches`` matches.

    Parameters
    ----------
    settings : the scenario (default: the SPEC's defaults)
    agents : one agent spec for every seat, or one per seat (see :mod:`nop_sim.games.new_order.agents`);
        with ``table_of``, float64 (k, players, N_AGENT_PARAMS) agent tables instead
    seed : root seed; chunk ``i`` is seeded by ``SeedSequence(seed).spawn(n_chunks)[i]``
    chunk_size : matches per chunk (part of the result's identity, like the seed)
    check : check chip conservation and card accounting after every hand;
        failures are counted in ``counts[C_INVARIANT_ERRORS]``
    log_every : write the event log of every ``log_every``-th match (0: no log)
    log_matches : indices of further matches to log (e.g. a runner's own rule)
    log_capacity : event rows kept per chunk (more are counted in ``events_lost``)
    horizon : hands tracked by the time series (default ``min(max_hands, 1000)``)
    threads : numba threads for this call (default: numba's current setting)
    table_of : int64 (n_matches,), the table of ``agents`` each match seats (a seat
        that draws its row of a mixture per match); None: every match seats
        ``agents``, as one table. The same tables and the same ``table_of`` play
        exactly what one table per call would: the kernel reads ``agents[table_of[m]]``
        for match ``m`` and nothing else changes
    betting : seats that play their betting decisions from tables, and the seat whose
        tabular decisions are traced (:class:`~nop_sim.games.new_order.abstraction.BettingTables`);
        None: every seat plays its agent row
    """
    settings = settings or Settings()
    if n_matches < 1:
        raise ValueError(f"n_matches = {n_matches} must be >= 1")
    if chunk_size < 1:
        raise ValueError(f"chunk_size = {chunk_size} must be >= 1")
    if table_of is None:
        table = agent_table(agents, settings.players)
        tables, agent_of = table[None], np.zeros(n_matches, np.int64)
    else:
        tables = table = _check_tables(agents, settings.players)
        agent_of = _check_table_of(table_of, tables.shape[0], n_matches)
    n_chunks = -(-n_matches // chunk_size)
    horizon = min(settings.max_hands, DEFAULT_HORIZON) if horizon is None else int(horizon)
    log_mask = np.zeros(n_matches, np.int8)
    if log_every > 0:
        log_mask[::log_every] = 1
    if log_matches is not None:
        log_mask[np.asarray(log_matches, dtype=np.int64)] = 1
    cap = log_capacity if log_mask.any() else 0
    bounds = np.minimum(np.arange(n_chunks + 1, dtype=np.int64) * chunk_size, n_matches)
    b = _buffers(settings, tables, agent_of, bounds, seed_states(seed, n_chunks), horizon, cap,
                 check, log_mask, betting)
    b["eval_fn"], b["draft_fn"] = _callee_addresses()
    _drive(b, n_chunks, threads)
    events, ev_counts, n_players = b["events"], b["ev_counts"], settings.players
    ev = np.concatenate([events[c, : ev_counts[c, 0]] for c in range(n_chunks)]) if cap else (
        np.zeros((0, T.EV_WIDTH), np.int64))
    return MatchResults(
        settings=settings, agents=table, seed=seed, match=b["out_match"],
        player=b["out_player"][:, :n_players], drafted=b["out_drafted"][:, :n_players],
        column=b["out_column"], counts=b["out_counts"].sum(axis=0),
        categories=b["out_cat"].sum(axis=0), time=b["out_time"].sum(axis=0),
        disruptors=b["out_dis"].sum(axis=0), events=ev,
        events_lost=int(ev_counts[:, 1].sum()),
        trace=trace_rows(b["traces"], ev_counts[:, 2]), trace_lost=int(ev_counts[:, 3].sum()),
    )


@dataclass(kw_only=True)
class BatchResults(_Played):
    """What :func:`play_batches` returns: the arrays of :class:`_Played`, rows batch
    after batch (or where its ``rows`` put them), and each counter per batch (a first
    axis of one entry a batch, or a slot of its ``slots``).
    ``events``: one int64 (n_events, EV_WIDTH) array a batch, its logged matches' rows
    numbered by the match's position in its batch (empty when the log is off);
    ``events_lost``: int64 (n_batches,) rows each batch's log had no room for."""

    events: list[np.ndarray] = field(default_factory=list)
    events_lost: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))


def play_batches(settings: Settings, tables: np.ndarray, batch_table: Sequence[int],
                 sizes: Sequence[int], seeds: Sequence[int], *, horizon: int | None = None,
                 threads: int | None = 1,
                 table_of: Sequence[int] | np.ndarray | None = None,
                 log_mask: np.ndarray | None = None,
                 log_capacity: int = 200_000,
                 betting: BettingTables | None = None,
                 rows: np.ndarray | None = None,
                 slots: Sequence[int] | np.ndarray | None = None) -> BatchResults:
    """Play several small batches of matches in one engine call.

    Batch ``b`` is ``sizes[b]`` matches seated with ``tables[batch_table[b]]``
    and played as one chunk seeded by ``seeds[b]``: exactly what
    ``play_matches(settings, tables[batch_table[b]], sizes[b], seed=seeds[b],
    chunk_size=sizes[b])`` plays, rows and counters alike. One call instead
    of one per batch saves the work around the kernel (buffers, checks,
    dispatch: about 0.8 ms a call), which outweighs the play of a runner's
    rotated batches of a few dozen matches. No invariant check.

    ``tables``: float64 (k, players, N_AGENT_PARAMS) rows of
    :func:`nop_sim.games.new_order.agents.agent_table`. ``table_of``: int64 (sum(sizes),), the
    table of each match, batch after batch, in place of ``batch_table``'s one
    per batch (seats that draw their row of a mixture per match); None: each
    batch's matches seat ``tables[batch_table[b]]``. ``log_mask``: int8 or bool
    (sum(sizes),), the matches whose events are written, batch after batch, as
    ``play_matches``'s ``log_matches`` logs them, ``log_capacity`` rows a batch (the
    log of a batch ``play_matches`` plays as one chunk); None: no log. The log's
    buffer takes ``log_capacity * EV_WIDTH * 8`` bytes of address space a batch, of
    which only the rows written are touched, and is kept for the thread's next call
    (:func:`_log_buffer`). ``betting``: seats that play their betting
    decisions from tables (as :func:`play_matches`; a ``seat_table`` of one row per table
    of ``tables``); no trace is returned.

    ``rows``: int64 (sum(sizes),), a permutation: the row of ``match``, ``player``,
    ``drafted`` and ``column`` each match is written to, batch after batch (the caller's
    order: a runner's chunk interleaves its rotations' batches), where None keeps them
    batch after batch. ``slots``: int (n_batches,), the counter row each batch adds to,
    rows ``0 .. max(slots)`` (a runner's chunk, whose rotations' batches it sums), where
    None gives each batch its own; only on one thread. Both save the copies that put
    the rows and counters in place after the call (a tenth of what a runner's part spends
    beside the engine).
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    batch_table = np.asarray(batch_table, dtype=np.int64)
    if sizes.ndim != 1 or sizes.size < 1 or sizes.min() < 1:
        raise ValueError(f"sizes must be one positive match count per batch, got {sizes}")
    if batch_table.shape != sizes.shape or len(seeds) != sizes.size:
        raise ValueError("batch_table, sizes and seeds need one entry per batch")
    horizon = min(settings.max_hands, DEFAULT_HORIZON) if horizon is None else int(horizon)
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    states = spawned_states(seeds)
    n = int(bounds[-1])
    agent_of = (np.repeat(batch_table, sizes) if table_of is None
                else _check_table_of(table_of, np.asarray(tables).shape[0], n))
    if log_mask is None:
        log_mask = np.zeros(n, np.int8)
    elif np.shape(log_mask) != (n,):
        raise ValueError(f"log_mask must be ({n},), one entry per match, got shape "
                         f"{np.shape(log_mask)}")
    log_mask = np.ascontiguousarray(log_mask, dtype=np.int8)
    cap = log_capacity if log_mask.any() else 0
    dest = None
    if rows is not None:
        dest = np.ascontiguousarray(rows, dtype=np.int64)
        if dest.shape != (n,) or not (np.bincount(dest, minlength=n) == 1).all():
            raise ValueError(f"rows must be a permutation of 0 .. {n - 1}, one entry a match")
    slot = n_slots = None
    if slots is not None:
        slot = np.ascontiguousarray(slots, dtype=np.int64)
        if slot.shape != sizes.shape or slot.min() < 0 or threads != 1:
            raise ValueError("slots must be one counter row >= 0 a batch, on one thread "
                             "(threads=1)")
        n_slots = int(slot.max()) + 1
    b = _buffers(settings, tables, agent_of, bounds, states, horizon, cap, False, log_mask,
                 betting, keep_log=True, dest=dest, slot=slot, n_slots=n_slots)
    b["eval_fn"], b["draft_fn"] = _callee_addresses()
    _drive(b, sizes.size, threads)
    players = settings.players
    ev_counts = b["ev_counts"]
    events = []
    for k in range(sizes.size):
        logged = b["events"][k, :ev_counts[k, 0]].copy()
        logged[:, 0] -= bounds[k]  # the kernel numbers matches across the call
        events.append(logged)
    return BatchResults(match=b["out_match"], player=b["out_player"][:, :players],
                        drafted=b["out_drafted"][:, :players], column=b["out_column"],
                        counts=b["out_counts"], categories=b["out_cat"], time=b["out_time"],
                        disruptors=b["out_dis"], events=events, events_lost=ev_counts[:, 1])


@dataclass
class FieldResults:
    """What :func:`play_field` returns: per match ``match`` int64 (n, N_MATCH_FIELDS),
    ``player`` int64 (n, players, N_PLAYER_FIELDS), ``drafted`` int64 (n, players, 25);
    ``counts`` int64 (N_COUNTS,) merged over all matches."""

    match: np.ndarray
    player: np.ndarray
    drafted: np.ndarray
    counts: np.ndarray
    # the traced seat's tabular decisions, float64 (n, N_TR) (abstraction.TRACE_COLUMNS)
    trace: np.ndarray = field(default_factory=empty_trace)

    @property
    def n_matches(self) -> int:
        return self.match.shape[0]


def match_states(seed: int, n: int) -> np.ndarray:
    """uint64 (n, 4) one RNG state per match for :func:`play_field`, from
    ``SeedSequence(seed).spawn(n)``: the states :func:`play_matches` gives its chunks, so
    ``play_matches(..., chunk_size=1)`` plays match ``i`` from ``match_states(seed, n)[i]``."""
    return seed_states(seed, n)


def _check_tables(tables: np.ndarray, players: int) -> np.ndarray:
    tables = np.asarray(tables)
    if tables.ndim != 3 or tables.shape[0] < 1 or tables.shape[1:] != (players,
                                                                        T.N_AGENT_PARAMS):
        raise ValueError(
            f"tables must be float64 (k >= 1, players = {players}, N_AGENT_PARAMS = "
            f"{T.N_AGENT_PARAMS}), got shape {tables.shape}")
    lo, hi = agent_bounds()
    values = np.asarray(tables, float)
    bad = ~((values >= lo) & (values <= hi)).all(axis=2)  # NaN fails too
    for k, seat in zip(*np.nonzero(bad), strict=True):  # the first offender, named
        try:
            agent_row(tables[k, seat])
        except AgentError as err:
            raise AgentError(f"tables[{k}, {seat}]: {err}") from None
    return np.ascontiguousarray(tables, dtype=T.PARAM_DTYPE)


def _check_table_of(table_of, n_tables: int, n_matches: int) -> np.ndarray:
    """``table_of`` as int64 (n_matches,), every entry a table in ``[0, n_tables)``."""
    table_of = np.asarray(table_of)
    if table_of.shape != (n_matches,) or not np.issubdtype(table_of.dtype, np.integer):
        raise ValueError(f"table_of must be int64 ({n_matches},), one table per match, got "
                         f"{table_of.dtype} shape {table_of.shape}")
    if n_matches and (table_of.min() < 0 or table_of.max() >= n_tables):
        raise ValueError(f"table_of values must lie in [0, {n_tables}) (the tables given), "
                         f"got {table_of.min()} to {table_of.max()}")
    return table_of.astype(np.int64)


def play_field(settings: Settings, tables: np.ndarray, table_of: np.ndarray,
               rng_states: np.ndarray, *, threads: int | None = None,
               streams: bool = False, betting: BettingTables | None = None) -> FieldResults:
    """Play one match per entry of ``table_of``: a batch of candidate policies in one call.

    Match ``i`` seats the policies ``tables[table_of[i]]`` and is its own chunk, played from
    ``rng_states[i]``: two matches with the same state and the same table play identically,
    so candidates given the same states meet the same cards (common random numbers). No
    event log, no time series, no invariant check.

    Parameters
    ----------
    settings : the rules (``settings.players`` seats)
    tables : float64 (k, players, N_AGENT_PARAMS) policy tables (rows as
        :func:`nop_sim.games.new_order.agents.agent_row` gives them, within its bounds)
    table_of : int64 (n,) the table of each match, in ``[0, k)``
    rng_states : uint64 (n, 4) each match's RNG state (:func:`match_states`); not modified
    threads : numba threads (default: numba's current setting); results never depend on it
    streams : draw each hand's cards from a stream derived from the match's state and the
        hand's number, and each seat's decisions from a stream of its own (kernels.match,
        Streams): matches from one state whose tables differ in one seat stay on the same
        cards and the same noise of the other seats. False: one stream, as
        :func:`play_matches` plays a chunk of one match
    betting : seats that play their betting decisions from tables (as :func:`play_matches`)
    """
    tables = _check_tables(tables, settings.players)
    table_of = np.asarray(table_of)
    if table_of.ndim != 1 or table_of.shape[0] < 1 or not np.issubdtype(table_of.dtype,
                                                                          np.integer):
        raise ValueError(f"table_of must be int64 (n >= 1,), got {table_of.dtype} "
                         f"shape {table_of.shape}")
    if table_of.min() < 0 or table_of.max() >= tables.shape[0]:
        raise ValueError(f"table_of values must lie in [0, {tables.shape[0]}) (k tables), "
                         f"got {table_of.min()} to {table_of.max()}")
    n = table_of.shape[0]
    rng_states = np.asarray(rng_states)
    if rng_states.shape != (n, 4) or rng_states.dtype != np.uint64:
        raise ValueError(f"rng_states must be uint64 (n = {n}, 4), one per match, got "
                         f"{rng_states.dtype} shape {rng_states.shape}")
    b = _buffers(settings, tables, table_of, np.arange(n + 1, dtype=np.int64),
                 rng_states.copy(), 1, 0, False, np.zeros(n, np.int8), betting)
    b["settings"][T.S_STREAMS] = int(bool(streams))
    b["eval_fn"], b["draft_fn"] = _callee_addresses()
    _drive(b, n, threads)
    players = settings.players
    return FieldResults(match=b["out_match"], player=b["out_player"][:, :players],
                        drafted=b["out_drafted"][:, :players],
                        counts=b["out_counts"].sum(axis=0),
                        trace=trace_rows(b["traces"], b["ev_counts"][:, 2]))


@dataclass
class ScriptedMatch:
    """What :func:`play_scripted` returns.

    ``events`` int64 (n, EV_WIDTH): the log up to the pause (the whole match when the
    script did not run out); ``pause`` int64 (N_PAUSE,): the pause record (``types.PAUSE_*``:
    the decision asked where the script ran out, and its bounds); ``decisions`` int64
    (n_used, SCRIPT_WIDTH): the script's decisions the match read (or, recording, wrote);
    ``match`` (N_MATCH_FIELDS,) and ``player`` (players, N_PLAYER_FIELDS): the match's rows,
    meaningful once it is over (``not paused``).
    """

    events: np.ndarray
    pause: np.ndarray
    decisions: np.ndarray
    match: np.ndarray
    player: np.ndarray

    @property
    def kind(self) -> int:
        """``types.SK_*`` of the pause (SK_NONE: the match is over; SK_ERROR: refused)."""
        return int(self.pause[T.PAUSE_KIND])

    @property
    def paused(self) -> bool:
        return self.kind != T.SK_NONE


def play_scripted(settings: Settings, table: np.ndarray, rng_state: np.ndarray, seat: int,
                  script: np.ndarray | None = None, *, record: bool = False,
                  log_capacity: int = 400_000, max_record: int = 200_000) -> ScriptedMatch:
    """Play one logged match in which seat ``seat``'s decisions come from ``script``.

    The batch kernel plays it (kernels.script): every decision of ``seat`` is read from
    ``script``, int64 (n, SCRIPT_WIDTH) rows ``(kind SK_*, a, b, 0)``, and checked against
    the rules; where the script runs out the kernel records a pause (the decision's kind
    and bounds) and the match stops. The same script replays the same match: the table
    plays with split streams (``play_field(..., streams=True)``), so the cards and the
    other seats' noise never depend on what the scripted seat decided, and a person's
    next decision only adds a row. ``record=True``: ``seat``'s agent (its row of
    ``table``) decides, and its decisions are returned as ``decisions``.

    ``table``: float64 (players, N_AGENT_PARAMS) one row per seat (``seat``'s row is its
    agent when recording, else unused but for its ``random`` flag: a random row skips the
    strength judged for it); ``rng_state``: uint64 (4,) the match's state
    (:func:`match_states`).
    """
    tables = _check_tables(np.asarray(table)[None], settings.players)
    if not 0 <= seat < settings.players:
        raise ValueError(f"seat {seat} is not a seat of a {settings.players}-player match")
    rows = (np.zeros((max_record, T.SCRIPT_WIDTH), np.int64) if record
            else np.asarray(script if script is not None else
                            np.zeros((0, T.SCRIPT_WIDTH)), np.int64).reshape(-1, T.SCRIPT_WIDTH))
    buf = np.concatenate([np.zeros(T.N_PAUSE, np.int64), rows.ravel()])
    state = np.asarray(rng_state, np.uint64).reshape(1, 4).copy()
    b = _buffers(settings, tables, np.zeros(1, np.int64), np.array([0, 1], np.int64), state, 1,
                 log_capacity, False, np.ones(1, np.int8))
    b["settings"][T.S_STREAMS] = 1
    b["settings"][T.S_SCRIPTED] = -(seat + 1) if record else seat + 1
    b["script"] = buf
    b["eval_fn"], b["draft_fn"] = _callee_addresses()
    _drive(b, 1, 1)
    if b["ev_counts"][0, 1]:
        raise RuntimeError(f"{b['ev_counts'][0, 1]} events dropped: raise log_capacity")
    pause = buf[:T.N_PAUSE].copy()
    n_ev = int(pause[T.PAUSE_EVN]) if pause[T.PAUSE_KIND] else int(b["ev_counts"][0, 0])
    used = int(pause[T.PAUSE_AT])
    decisions = buf[T.N_PAUSE:].reshape(-1, T.SCRIPT_WIDTH)[:used].copy()
    return ScriptedMatch(events=b["events"][0, :n_ev].copy(), pause=pause, decisions=decisions,
                         match=b["out_match"][0].copy(),
                         player=b["out_player"][0, :settings.players].copy())


def _log_buffer(n_chunks: int, cap: int, keep: bool) -> np.ndarray:
    """The (n_chunks, cap, EV_WIDTH) event log a driver call writes into. ``keep``: this
    thread's buffer of an earlier call where it is large enough (and it is kept for the
    next), so that the pages a log touched stay mapped: a fresh 22 MB a batch, faulted
    in again each call, cost a runner's logged calls 3% of their play. The kernel writes
    every column of the rows it logs, and every reader copies those rows out."""
    shape = (n_chunks, cap, T.EV_WIDTH)
    if not keep or cap == 0 or n_chunks * cap * T.EV_WIDTH * 8 > KEPT_LOG_BYTES:
        return np.empty(shape, np.int64)
    buf = getattr(_kept, "events", None)
    if buf is None or buf.shape[0] < n_chunks or buf.shape[1] != cap:
        buf = _kept.events = np.empty(shape, np.int64)
    return buf[:n_chunks]


def _buffers(settings: Settings, tables: np.ndarray, agent_of: np.ndarray, bounds: np.ndarray,
             rng_states: np.ndarray, horizon: int, cap: int, check: bool,
             log_mask: np.ndarray, betting: BettingTables | None = None,
             keep_log: bool = False, dest: np.ndarray | None = None,
             slot: np.ndarray | None = None, n_slots: int | None = None) -> dict[str, Any]:
    """Every argument of the match drivers, by name (the caller sets ``eval_fn``, ``draft_fn``).

    ``tables`` (n_tables, players, N_AGENT_PARAMS), ``agent_of`` (n,) the table of each
    match; chunk ``c`` plays matches ``bounds[c]:bounds[c+1]`` from ``rng_states[c]``,
    match ``m`` writing row ``dest[m]`` (default: ``m``) and chunk ``c`` adding its
    counters to row ``slot[c]`` of ``n_slots`` (default: ``c``, one row a chunk).
    """
    arr, mix = settings.to_arrays()
    n_matches = int(bounds[-1])
    n_chunks = bounds.shape[0] - 1
    if slot is None:
        slot, n_slots = np.arange(n_chunks, dtype=np.int64), n_chunks
    tab_start, tab_mask, tab_freq = strength_tables()
    n_tables = np.shape(tables)[0]
    policy, policy_seat, abstraction, tr_cap = (
        no_tables(n_tables) if betting is None else betting.arrays(settings.players, n_tables))
    return dict(
        bounds=bounds, rng_states=rng_states, settings=arr, dtype=mix.type, damount=mix.amount,
        dstack=mix.stack, deck0=mix.deck,
        agents=np.ascontiguousarray(tables, dtype=T.PARAM_DTYPE),
        agent_of=np.ascontiguousarray(agent_of, dtype=np.int64),
        tab_start=tab_start, tab_mask=tab_mask, tab_freq=tab_freq, eval_fn=0, draft_fn=0,
        check=int(bool(check)), log_mask=log_mask,
        # the kernel writes every column of each row it logs, and readers take the first
        # ev_counts rows: left unzeroed, the untouched pages of a large log cost nothing
        events=_log_buffer(n_chunks, cap, keep_log),
        ev_counts=np.zeros((n_chunks, 4), np.int64),  # events written, lost; trace the same
        dest=np.arange(n_matches, dtype=np.int64) if dest is None else dest, slot=slot,
        out_match=np.zeros((n_matches, T.N_MATCH_FIELDS), np.int64),
        out_player=np.zeros((n_matches, T.MAX_PLAYERS, T.N_PLAYER_FIELDS), np.int64),
        out_drafted=np.zeros((n_matches, T.MAX_PLAYERS, T.N_DISRUPTORS), np.int64),
        out_column=np.zeros((n_matches, T.N_CATEGORIES), np.int8),
        out_counts=np.zeros((n_slots, T.N_COUNTS), np.int64),
        out_cat=np.zeros((n_slots, T.N_CAT_STATS, T.N_CATEGORIES), np.int64),
        out_time=np.zeros((n_slots, horizon, T.N_TIME_STATS), np.int64),
        out_dis=np.zeros((n_slots, T.N_DISRUPTOR_STATS, T.N_DISRUPTORS), np.int64),
        script=np.zeros(T.N_PAUSE, np.int64),  # no scripted seat (play_scripted sets one)
        betting=(policy, policy_seat, abstraction), traces=trace_buffer(n_chunks, tr_cap),
    )


def _drive(bufs: dict[str, Any], n_chunks: int, threads: int | None) -> None:
    refresh_kernel_cache()
    # after the refresh, so a stale cache is dropped before numba loads these kernels
    from nop_sim.games.new_order.kernels.match import play_chunks, play_chunks_serial

    previous = numba.get_num_threads()
    n_threads = previous if threads is None else max(
        1, min(int(threads), numba.config.NUMBA_NUM_THREADS))
    # One thread or one chunk: the serial driver, which compiles much faster.
    driver = play_chunks_serial if n_threads == 1 or n_chunks <= 1 else play_chunks
    numba.set_num_threads(n_threads)
    try:
        driver(**bufs)
    finally:
        numba.set_num_threads(previous)


def _callee_addresses() -> tuple[int, int]:
    refresh_kernel_cache()
    # after the refresh, so a stale cache is dropped before numba loads these kernels
    from nop_sim.games.new_order.kernels.common import evaluator_address
    from nop_sim.games.new_order.kernels.disruptor import draft_address

    return evaluator_address(), draft_address()


def compile_engine() -> None:
    """Compile (or load from numba's cache) the one-thread match driver, playing nothing,
    and the scatter a run's event log is stored with.

    It does not need the kernels it calls through addresses (the evaluator and
    the draft, see :mod:`nop_sim.games.new_order.kernels.firewall`): a caller with two cores
    can run :func:`compile_callees` in another process meanwhile, as the
    runner does before a run's first chunk.
    """
    bufs = _buffers(Settings(), agent_table("balanced", 4)[None], np.zeros(1, np.int64),
                    np.array([0, 1], np.int64), seed_states(0, 1), 1, 0, False,
                    np.zeros(1, np.int8))
    bufs["bounds"] = bufs["bounds"][:1]  # no chunk: the driver's loop runs zero times
    _drive(bufs, 0, 1)
    # and what a run's tables take its logged rows with (chunks._events_frame)
    from nop_sim.games.new_order.kernels.eventlog import scatter_columns

    scatter_columns(np.zeros((1, T.EV_WIDTH), np.int64), np.zeros(1, np.int64),
                    np.zeros((T.EV_WIDTH, 1), np.int64))


def compile_callees() -> None:
    """Compile (or load from numba's cache) the evaluator and the draft the driver calls."""
    _callee_addresses()


def compile_parallel() -> None:
    """Compile (or load) the parallel match driver (``play_field``, threads > 1: training)."""
    play_field(Settings(), agent_table("balanced", 4)[None], np.zeros(2, np.int64),
               keyed_states((1,), 2), threads=2)


def load_kernels() -> None:
    """Load the one-thread driver and its callees (from numba's cache once warmed up)."""
    compile_engine()
    compile_callees()


def warm_up(pool) -> None:
    """Compile into numba's cache once, here, while a worker of ``pool`` compiles the
    callees.

    The workers then load the kernels instead of each compiling its own copy
    (on a cold cache behind compile firewalls, see ``kernels.firewall``).
    """
    refresh_kernel_cache()  # before the worker looks at the cache
    callees = pool.submit(compile_callees)
    compile_engine()
    callees.result()
