"""Play batches of Ordered Hand games: settings + agents -> kernel -> records.

Games are grouped in fixed chunks of :data:`GAMES_PER_CHUNK`; chunk ``c``
draws from the stream of ``numpy.random.SeedSequence(seed).spawn(...)[c]``
(:func:`nop_sim.kernels.rng.seed_states`, as New Order's chunks). Game ``g`` is
therefore the same game whether it is played alone, in a larger batch, in
another call starting at ``first_game``, serially or on several threads.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from nop_sim.core.column import Category
from nop_sim.games.ordered_hand.agents import OrderedAgent, agent_table, resolve_agents
from nop_sim.games.ordered_hand.kernels import play as K
from nop_sim.games.ordered_hand.settings import OrderedSettings
from nop_sim.kernels.rng import seed_states

__all__ = ["DECK_EVENT", "GAMES_PER_CHUNK", "OrderedLog", "OrderedResult", "ScriptedGame",
           "compile_kernels", "play_matches", "play_scripted", "stored_game"]

GAMES_PER_CHUNK = 256
DECK_EVENT = -1  # a stored log's deck row: a = position in the deck (dealt from 0), b = card
_EVENTS_PER_GAME_GUESS = 160


def _chunk_states(seed: int, first_chunk: int, n_chunks: int) -> np.ndarray:
    """uint64 (n_chunks, 4) states of chunks ``first_chunk ..``: New Order's
    :func:`~nop_sim.kernels.rng.seed_states` (child ``c`` of ``SeedSequence(seed)``),
    the chunks before ``first_chunk`` seeded and dropped (a few microseconds each)."""
    return seed_states(seed, first_chunk + n_chunks)[first_chunk:]


@dataclass(frozen=True)
class OrderedLog:
    """Event log of a batch: what :mod:`nop_sim.games.ordered_hand.referee` replays.

    Attributes
    ----------
    decks : (n_games, 52) int8, each game's shuffled deck (dealt from index 0)
    events : (n_events, 4) int16 rows ``player, kind, a, b`` (kinds ``K.EV_*``)
    starts : (n_games + 1,) int64, game ``i`` is ``events[starts[i]:starts[i + 1]]``
    """

    decks: np.ndarray
    events: np.ndarray
    starts: np.ndarray

    def game_events(self, i: int) -> np.ndarray:
        """Events of the ``i``-th game of the batch."""
        return self.events[self.starts[i] : self.starts[i + 1]]


@dataclass(frozen=True)
class OrderedResult:
    """Per-game records of a batch.

    Attributes
    ----------
    settings, agent_names, seed, first_game
    games : (n_games, K.N_FIELDS) int32, columns ``K.F_*``
    log : OrderedLog or None
    """

    settings: OrderedSettings
    agent_names: tuple[str, ...]
    agents: tuple[OrderedAgent, ...]
    seed: int
    first_game: int
    games: np.ndarray
    log: OrderedLog | None = field(default=None, repr=False)

    @property
    def n_games(self) -> int:
        return self.games.shape[0]

    def winners(self) -> np.ndarray:
        """bool (n_games, players): seat won (alone or shared)."""
        seats = np.arange(self.settings.players)
        return ((self.games[:, K.F_WINNERS, None] >> seats) & 1).astype(bool)

    def records(self):
        """One row per game as a pandas DataFrame (every count beside its game)."""
        import pandas as pd  # here: pandas loads slowly, and a worker playing games never needs it

        g = self.games
        players = self.settings.players
        mask = g[:, K.F_WINNERS]
        single = g[:, K.F_N_WINNERS] == 1
        winner = np.where(single, np.log2(np.maximum(mask, 1)).astype(np.int64), -1)
        cols: dict[str, np.ndarray] = {
            "game": np.arange(self.first_game, self.first_game + self.n_games, dtype=np.int64),
            "first_player": g[:, K.F_FIRST].astype(np.int8),
            "winner": winner.astype(np.int8),
            "winners_mask": mask.astype(np.int16),
            "n_winners": g[:, K.F_N_WINNERS].astype(np.int8),
            "end": pd.Categorical.from_codes(g[:, K.F_END], categories=list(K.END_NAMES)),
            "turns": g[:, K.F_TURNS],
            "cards_drawn": g[:, K.F_DRAWN].astype(np.int16),
            "middle_clears": g[:, K.F_CLEARS].astype(np.int16),
            "plays": g[:, K.F_PLAYS].astype(np.int16),
            "checks": g[:, K.F_CHECKS].astype(np.int16),
        }
        for size in range(1, 6):
            cols[f"plays_size_{size}"] = g[:, K.F_SIZE + size - 1].astype(np.int16)
        for cat in Category:
            cols[f"plays_{cat.name.lower()}"] = g[:, K.F_CAT + int(cat)].astype(np.int16)
        won = self.winners()
        for seat in range(players):
            cols[f"won_p{seat}"] = won[:, seat]
            cols[f"cards_left_p{seat}"] = g[:, K.F_CARDS_LEFT + seat].astype(np.int8)
        if self.settings.betting:
            cols["bets_made"] = g[:, K.F_BETS : K.F_BETS + players].sum(axis=1).astype(np.int16)
            cols["bets_won"] = (
                g[:, K.F_BETS_WON : K.F_BETS_WON + players].sum(axis=1).astype(np.int16)
            )
            cols["folds"] = g[:, K.F_FOLDS].astype(np.int16)
            cols["calls"] = g[:, K.F_CALLS].astype(np.int16)
            cols["raises"] = g[:, K.F_RAISES].astype(np.int16)
            for seat in range(players):
                cols[f"bets_made_p{seat}"] = g[:, K.F_BETS + seat].astype(np.int16)
                cols[f"bets_won_p{seat}"] = g[:, K.F_BETS_WON + seat].astype(np.int16)
        df = pd.DataFrame(cols)
        df.attrs["agents"] = list(self.agent_names)
        df.attrs["settings"] = self.settings.as_dict()
        df.attrs["seed"] = self.seed
        return df


def _play_unlogged(args: tuple, states: np.ndarray, games: np.ndarray, workers: int) -> None:
    """Run the serial kernel on ``workers`` threads, each on a run of whole chunks."""

    def run(c0: int, c1: int) -> None:
        lo, hi = c0 * GAMES_PER_CHUNK, min(games.shape[0], c1 * GAMES_PER_CHUNK)
        K._play_games(*args, states[c0:c1], games[lo:hi], False,
                      np.zeros((0, 4), dtype=np.int16), np.zeros(1, dtype=np.int64),
                      np.zeros(1, dtype=np.int64), np.zeros((0, K.DECK_SIZE), dtype=np.int8))

    if workers <= 1:
        run(0, states.shape[0])
        return
    bounds = np.linspace(0, states.shape[0], workers + 1).astype(int)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(run, bounds[:-1], bounds[1:]))


def play_matches(
    settings: OrderedSettings | None = None,
    agents: str | OrderedAgent | Sequence[str | OrderedAgent] = "random",
    n_games: int = 1000,
    seed: int = 0,
    *,
    first_game: int = 0,
    log: bool = False,
    workers: int | None = 1,
) -> OrderedResult:
    """Play ``n_games`` Ordered Hand games.

    Parameters
    ----------
    settings : OrderedSettings, default ``OrderedSettings()``
    agents : preset name, OrderedAgent, or one per seat
    n_games : int >= 0
    seed : int >= 0, the root of every random stream
    first_game : int, a multiple of GAMES_PER_CHUNK; plays games
        ``first_game .. first_game + n_games - 1`` of this seed's sequence
    log : bool, keep the event log for the referee (serial, slower)
    workers : int or None, threads sharing the chunks (None: every core); the
        kernel releases the GIL, and each chunk owns its random stream and its
        rows, so the worker count never changes a result
    """
    settings = OrderedSettings() if settings is None else settings
    if not isinstance(settings, OrderedSettings):
        raise TypeError(f"settings must be OrderedSettings, got {type(settings).__name__}")
    if not isinstance(n_games, (int, np.integer)) or n_games < 0:
        raise ValueError(f"n_games={n_games!r} is not allowed: use an integer >= 0")
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed={seed!r} is not allowed: use an integer >= 0")
    if not isinstance(first_game, (int, np.integer)) or first_game < 0 or (
        first_game % GAMES_PER_CHUNK
    ):
        raise ValueError(
            f"first_game={first_game!r} is not allowed: use a multiple of {GAMES_PER_CHUNK} >= 0"
        )
    names, policies = resolve_agents(agents, settings.players)
    table = agent_table(policies)
    position_of = settings.column.positions().astype(np.int64)
    n_games = int(n_games)
    n_chunks = -(-n_games // GAMES_PER_CHUNK)
    first_chunk = int(first_game) // GAMES_PER_CHUNK
    args = (GAMES_PER_CHUNK, settings.players, settings.hand_size, settings.betting,
            settings.max_turns, position_of, table)
    games = np.zeros((n_games, K.N_FIELDS), dtype=np.int32)
    game_log = None
    if log:
        cap = max(1024, n_games * _EVENTS_PER_GAME_GUESS)
        while True:
            states = _chunk_states(int(seed), first_chunk, n_chunks)
            events = np.zeros((cap, 4), dtype=np.int16)
            n_events = np.zeros(1, dtype=np.int64)
            starts = np.zeros(n_games + 1, dtype=np.int64)
            decks = np.zeros((n_games, K.DECK_SIZE), dtype=np.int8)
            K._play_games(*args, states, games, True, events, n_events, starts, decks)
            if n_events[0] <= cap:
                break
            cap = int(n_events[0])  # the same games again, now with room for every event
        game_log = OrderedLog(decks=decks, events=events[: n_events[0]].copy(), starts=starts)
    else:
        states = _chunk_states(int(seed), first_chunk, n_chunks)
        n_workers = (os.cpu_count() or 1) if workers is None else int(workers)
        if n_workers < 1:
            raise ValueError(f"workers={workers!r} is not allowed: use an integer >= 1 or None")
        _play_unlogged(args, states, games, min(n_workers, max(n_chunks, 1)))
    return OrderedResult(
        settings=settings,
        agent_names=tuple(names),
        agents=tuple(policies),
        seed=int(seed),
        first_game=int(first_game),
        games=games,
        log=game_log,
    )


def stored_game(events) -> tuple[np.ndarray, np.ndarray]:
    """A stored game's deck (int8 (52,), dealt from 0) and its events (int64 rows ``player,
    kind, a, b``) from its rows of a run's ``events`` table: the deck rows (kind
    :data:`DECK_EVENT`) first, then the events."""
    is_deck = (events["kind"] == DECK_EVENT).to_numpy()
    deck = events[is_deck].sort_values("a")["b"].to_numpy(np.int8)
    rows = events.loc[~is_deck, ["player", "kind", "a", "b"]].to_numpy(np.int64)
    return deck, rows


def compile_kernels() -> None:
    """Compile (or load) the Ordered Hand engine: one game, unlogged and logged. The
    scripted seat's specialisation (``nop-sim play``) compiles on a first play instead,
    and is cached then: the first report on a fresh clone does not wait for it."""
    play_matches(n_games=1, workers=1)
    play_matches(n_games=1, workers=1, log=True)


@dataclass(frozen=True)
class ScriptedGame:
    """One game with a person's seat played from a script (:func:`play_scripted`).

    Attributes
    ----------
    deck : (52,) int8, the shuffled deck (dealt from index 0)
    events : (n, 4) int16 rows ``player, kind, a, b``: the whole game once done, else the
        events before the pause
    record : (K.N_FIELDS,) int32, the game's record (meaningful once done)
    paused : the decision asked (``K.SK_*``) where the script ran out, or -1 (done)
    bounds : int64, the pause's bounds (``K.SC_ARGS`` onwards: the module's layout)
    refused : the first script row the rules refused, or -1
    """

    deck: np.ndarray
    events: np.ndarray
    record: np.ndarray
    paused: int
    bounds: np.ndarray
    refused: int


def play_scripted(settings: OrderedSettings, table: np.ndarray, rng_state: np.ndarray,
                  seat: int, script: np.ndarray) -> ScriptedGame:
    """Play one game from ``rng_state`` (uint64 (4,), not advanced) with the agents of
    ``table`` (float64 (players, K.N_AGENT_PARAMS)) and seat ``seat`` deciding by ``script``
    (int64 (k, K.SCRIPT_WIDTH) rows ``kind, x, y, z``): the batch kernel itself, stopped
    where the script runs out (the step mode of ``nop-sim play``)."""
    position_of = settings.column.positions().astype(np.int64)
    sc = np.full(K.N_SC, -1, dtype=np.int64)
    sc[K.SC_SEAT] = seat
    sc[K.SC_CURSOR] = 0
    cap = 4096
    while True:
        games = np.zeros((1, K.N_FIELDS), dtype=np.int32)
        events = np.zeros((cap, 4), dtype=np.int16)
        n_events = np.zeros(1, dtype=np.int64)
        decks = np.zeros((1, K.DECK_SIZE), dtype=np.int8)
        run = sc.copy()
        K._play_scripted(settings.players, settings.hand_size, settings.betting,
                         settings.max_turns, position_of, np.ascontiguousarray(table,
                                                                                np.float64),
                         np.array(rng_state, dtype=np.uint64), games, events, n_events, decks,
                         run, np.ascontiguousarray(script, dtype=np.int64).reshape(
                             -1, K.SCRIPT_WIDTH))
        if n_events[0] <= cap:
            break
        cap = int(n_events[0])
    paused = int(run[K.SC_PAUSED])
    end = int(run[K.SC_PAUSE_EV]) if paused >= 0 else int(n_events[0])
    return ScriptedGame(deck=decks[0], events=events[:end].copy(), record=games[0],
                        paused=paused, bounds=run[K.SC_ARGS:].copy(),
                        refused=int(run[K.SC_REFUSED]))
