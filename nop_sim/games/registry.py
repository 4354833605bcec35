"""The game registry: a game is a :class:`Game` descriptor plus functions, registered once.

Generic code (``scenario``, ``runner``, ``summary``, ``cli``) asks the
registry for a scenario's game and calls what the descriptor names; it never
branches on a game's name. A new game is one module that builds a ``Game``
and calls :func:`register_game` (the pattern of OpenSpiel's python games:
``open_spiel/python/games/kuhn_poker.py`` and its ``__init__.py``).

A game's functions receive plain, picklable arguments (a scenario and a
chunk), so the runner can ship them to worker processes or a Dask cluster;
a module-level function pickles by reference, so importing its module in a
worker registers the game there too.

A descriptor may name a function by its dotted name instead,
``"nop_sim.games.new_order.engine:play_matches"`` (as an entry point does): it is
imported on its first call (:class:`Deferred`). Registering a game then loads
what the descriptor itself needs, never the engine's numba kernels, the
referee or the report's matplotlib behind its hooks.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["DEFAULT_KIND", "CompareMetrics", "ComparedPoints", "Deferred", "EngineBench",
           "FieldPlay", "Game", "PolicySpace", "RegretTrainer", "SeatFile",
           "changed_label", "game_kinds", "game_of_folder", "get_game", "policy_of", "register_game",
           "registered_games", "seat_label", "seat_name", "seat_names"]

DEFAULT_KIND = "new-order"  # a scenario's [game] without ``kind``, a manifest without one


class Deferred:
    """A game's function given by its dotted name, ``"package.module:function"``, and
    imported on its first call (or an object so named, a trainer: imported on the first
    read of one of its attributes).

    It calls as the function does and states the function's ``__module__`` and
    ``__name__`` without importing it. There is one per name, and it pickles as its
    name, so it pickles by reference as a module-level function does (a worker imports
    the module when it first calls it). A :class:`Game` or :class:`PolicySpace` turns
    every function given by name into one.
    """

    _made: dict[str, Deferred] = {}

    def __new__(cls, target: str):
        if target not in cls._made:
            module, _, name = target.partition(":")
            if not module or not name.isidentifier():
                raise ValueError(f"{target!r} does not name a function as "
                                 f"'package.module:function'")
            made = super().__new__(cls)
            made.target, made.__module__, made.__name__ = target, module, name
            made._function = None
            cls._made[target] = made
        return cls._made[target]

    def resolve(self) -> Callable:
        """The function itself (its module imported on the first call)."""
        if self._function is None:
            # start-up: a named module loads numba or matplotlib, which registering must not
            self._function = getattr(importlib.import_module(self.__module__), self.__name__)
        return self._function

    def __call__(self, *args, **kwargs):
        return self.resolve()(*args, **kwargs)

    def __getattr__(self, name: str):
        # an object given by name (a game's RegretTrainer): its attributes, read on use
        if name.startswith("__") or name in ("target", "_function"):
            raise AttributeError(name)
        return getattr(self.resolve(), name)

    def __reduce__(self):
        return Deferred, (self.target,)

    def __repr__(self) -> str:
        return f"Deferred({self.target!r})"


def _defer_named(descriptor) -> None:
    """Turn each function of a frozen dataclass given by its dotted name (a field whose
    type is a callable, or a mapping of them) into a :class:`Deferred`."""
    for f in fields(descriptor):
        value = getattr(descriptor, f.name)
        # a trainer, too, may be named: its module (numba's kernels) loads on first use
        if "Callable" not in str(f.type) and "RegretTrainer" not in str(f.type):
            continue
        if isinstance(value, str):
            object.__setattr__(descriptor, f.name, Deferred(value))
        elif isinstance(value, Mapping) and any(isinstance(v, str) for v in value.values()):
            object.__setattr__(descriptor, f.name, {
                k: Deferred(v) if isinstance(v, str) else v for k, v in value.items()})


@dataclass(frozen=True)
class FieldPlay:
    """What a :attr:`PolicySpace.play_field` returns, per match (one table each):

    place : int ``(n, players)``, 1 for a winner (every sharer of a shared win), else
        2, 3, ... (the order the game ranks the others in)
    work : int64 ``(n,)`` the match's units of work (New Order's hands, Ordered Hand's
        turns): throughput
    seat_work : int64 ``(n, players)`` the units each seat took part in (a New Order
        seat's hands to its elimination)
    extras : name -> array ``(n, players, ...)``: what else a seat did that a game's
        ``field_tables`` reads (New Order: ``hedges``, ``drafted``); may be empty
    score : float ``(n, players)`` each seat's payoff in the game's unit (Kuhn poker's
        chips won or lost), for a game whose strong play is measured by payoff; None:
        by wins (a candidate's gain is its win rate's)
    """

    place: Any
    work: Any
    seat_work: Any
    extras: Mapping[str, Any] = field(default_factory=dict)
    score: Any = None


@dataclass(frozen=True)
class RegretTrainer:
    """A game's counterfactual-regret trainer: what ``nop-sim train --method cfr`` drives.
    Every callable is a module-level function; a state is a mapping of NumPy arrays (what
    a checkpoint stores, ``numpy.savez``), and the same iterations from the same state give
    the same state, bit for bit.

    method : the algorithm in prose, for strong.toml's header and the terminal
    iterations : the default number of iterations
    new(settings, train) : a fresh state; ``train`` is the scenario's ``[train]``
        (``Game.train_settings``; None for a game without them)
    run(settings, train, state, iterations, progress, *, seed, threads) : iterate
        ``state`` until it has done ``iterations``; ``progress(done)`` now and then;
        returns the state. A trainer that samples draws from ``seed`` alone: the same on
        any number of ``threads``
    done(state) : the iterations a state has done
    row(state) : the field's agent row (one row, weight 1): the average strategy, or
        what plays the decisions the betting table does not
    size(settings, train) : ``(information sets, actions)`` of what it learns
    default : whether ``nop-sim train`` runs it when no ``--method`` is given: where the
        figures say it trains the stronger field (Kuhn poker: exact NashConv 0.00002 in
        a second, where PSRO reaches 0.11 in a minute), PSRO otherwise
    betting(state, train, path) : optional; write the betting table the field's seats
        play (New Order) to ``path``, beside strong.toml; returns its abstraction in a line
    decisions(state) : optional; the sampled decisions the updates used (throughput)
    bound(settings, train, state, *, seed, threads) : optional, for a game without exact
        figures; a small check of the average strategy after each slice (the training's
        curve): a lower bound on a deviation's gain, ``{"gain", "low", "high"}`` in payoff
        units and ``"matches"``
    """

    method: str
    iterations: int
    new: Callable[[Any, Any], Mapping[str, Any]]
    run: Callable[..., Mapping[str, Any]]
    done: Callable[[Mapping[str, Any]], int]
    row: Callable[[Mapping[str, Any]], Any]
    size: Callable[[Any, Any], tuple[int, int]]
    default: bool = False
    betting: Callable[[Mapping[str, Any], Any, Any], str] | None = None
    decisions: Callable[[Mapping[str, Any]], int] | None = None
    bound: Callable[..., Mapping[str, float]] | None = None


@dataclass(frozen=True)
class PolicySpace:
    """A game's policies as rows of numbers: what strong play (``nop_sim.studies.train``)
    searches. Every callable is a module-level function (Dask ships ``play_field``), or
    its dotted name (:class:`Deferred`).

    names : the row's columns, in order (a row is float64 ``(len(names),)``)
    bounds() : ``(lowest, highest)`` float64 arrays over ``names``: the legal box, which a
        search spans for every parameter it moves
    searched(settings) : the names a search moves under these rules (those that can
        matter), in row order; the others keep the value of the row a search starts from
    fixed : parameters pinned in every search (switches such as a random style, which
        are styles, not skills: the presets that set them join every search as starts)
    mechanics : mechanic -> ``{parameter: value}``, the pins that switch it off (restricted
        play: ``nop-sim value``); the values must be legal
    power : parameter -> the power a search raises its unit coordinate to (1 where not
        given): a wide range that acts mostly at its low end
    discrete : parameters whose values are whole numbers (a choice among styles, a
        flag): a search rounds them
    presets() : the preset names; agent_row(spec) : a seat spec (preset name, table of
        parameters, :class:`SeatFile` of one row, or a row of numbers) as a checked row,
        raising ``ValueError`` naming what is wrong
    read_agent_file(path) : an agent file as ``rows`` (tables ``agent_row`` takes),
        ``weights``, ``training``, ``path`` (:class:`nop_sim.games.agent_files.AgentFile`)
    write_agent_file(path, rows, weights, training, header) : write rows (of numbers)
        and weights as an agent file that ``read_agent_file`` and the game's seats take
    play_field(settings, tables, table_of, states, threads) : play match ``i`` with the
        table ``tables[table_of[i]]`` (float ``(players, len(names))``, one row per seat)
        from RNG state ``states[i]`` (uint64 ``(4,)``): a :class:`FieldPlay`, matches in
        order; a match depends only on its table and state (common random numbers), so
        slicing a batch never changes it. A game whose agent files may name a betting
        table (New Order) also takes ``betting=(tables, seat_table)``: the files'
        ``betting`` payloads stacked (:attr:`Field.tables`) and, per table of ``tables``,
        the one each seat bets by (int64 ``(k, players)``, -1: its row alone)
    unit, scale : how a gain is stated: ``scale * gain`` in ``unit`` (win-rate "points",
        100 per unit of win rate, by default; Kuhn poker: "chips" per hand, 1)
    digits : the decimals a gain in ``unit`` is stated with (points: 1; Kuhn's chips: 3)
    epsilon : ``nop-sim train``'s default ``--epsilon``, in ``unit``
    exact_exploitability(settings, rows, weights) : optional; the exact figures of a field
        (a symmetric mixture of ``rows`` with ``weights``) where the game can compute them
        (Kuhn poker: full enumeration), name -> float in ``unit``, at least
        ``gain_per_seat`` (what the best single row gains in one seat over its occupant,
        averaged over the seats: what a search's gain estimates from below) and
        ``nash_conv``; None: the game has none
    write_extra(folder, rows, weights) : optional; more files of a field, written beside
        a training's ``strong.toml`` (Kuhn poker: ``policy.csv``, its behaviour policy)
    field_tables(settings, won, extras) : optional; tables of the strong field in every
        seat (``won`` bool ``(n,)`` of one seat per match, ``extras`` that seat's) such as
        New Order's Disruptor table, as a pandas DataFrame (written as
        ``drafts.parquet``); None: none
    regret : optional; the game's regret-minimisation trainer (``nop-sim train --method
        cfr``), a :class:`RegretTrainer`; None: the game has none yet
    table_response(settings, train, field, budget, *, seed, threads, progress) :
        optional; ``nop-sim exploit``'s second check of a field that bets by a table: a
        best response within the table's abstraction, learned against the field, and its
        gain on held-out deals, ``{"gain", "low", "high"}`` (payoff units, as a search's)
        and ``"matches"``, ``"held_out"``; None where the field bets by no table
    """

    names: tuple[str, ...]
    bounds: Callable[[], tuple[Any, Any]]
    searched: Callable[[Any], tuple[str, ...]]
    mechanics: Mapping[str, Mapping[str, float]]
    presets: Callable[[], tuple[str, ...]]
    agent_row: Callable[[Any], Any]
    read_agent_file: Callable[[Path], Any]
    write_agent_file: Callable[..., Any]
    play_field: Callable[..., FieldPlay]
    fixed: Mapping[str, float] = field(default_factory=dict)
    power: Mapping[str, float] = field(default_factory=dict)
    discrete: tuple[str, ...] = ()
    field_tables: Callable[[Any, Any, Mapping], Any] | None = None
    unit: str = "points"
    scale: float = 100.0
    digits: int = 1
    epsilon: float = 1.0
    exact_exploitability: Callable[[Any, Any, Any], Mapping[str, float]] | None = None
    write_extra: Callable[[Path, Any, Any], Any] | None = None
    table_response: Callable[..., Mapping[str, float] | None] | None = None
    regret: RegretTrainer | None = None

    def __post_init__(self) -> None:
        _defer_named(self)

    def amount(self, gain: float, signed: bool = False) -> str:
        """A gain (a win-rate fraction, a payoff) as the game states it: ``scale * gain``
        to ``digits`` decimals, then ``unit`` (``5.0 points``, ``+0.012 chips``)."""
        return f"{self.scale * gain:{'+' if signed else ''}.{self.digits}f} {self.unit}"


@dataclass
class ComparedPoints:
    """Two runs' compared points, as a game's :class:`CompareMetrics` groups read them.

    a, b : the runs (``RunData``), each restricted to its compared point
    point_a, point_b : those points
    pairs : match ``i`` of A and match ``i`` of B started from the same random streams
        (same seed, chunks, seats and match keys): a metric measured per match (or per
        chunk) may use paired differences
    n_boot : bootstrap resamples
    notes : what the comparison tells beside its rows; a group appends what it left out
    """

    a: Any
    b: Any
    point_a: int
    point_b: int
    pairs: bool
    n_boot: int
    notes: list[str]


@dataclass(frozen=True)
class CompareMetrics:
    """What ``nop-sim compare`` (:mod:`nop_sim.studies.compare`) reads of two runs of a game,
    from the game's module ``games/<game>/compare.py``; every callable is a module-level
    function. The comparison itself (pairing, Holm's correction, thresholds, findings,
    the report) is generic.

    families : family -> (what it is, kind): ``"share"`` (a rate or share, shown in
        points) or ``"plain"``; a metric is named ``family`` or ``family.key``
    min_effect : family -> (threshold, relative): the smallest difference worth a finding,
        in the metric's unit, or (``relative``) as a share of A's value
    groups : ``(group, title, metrics)`` in the table's order: ``metrics(points)`` yields
        ``(metric, label, row)`` for a :class:`ComparedPoints`, ``row`` one of
        :mod:`nop_sim.core.differences`' rows and ``label`` "" for the family's; it raises
        :class:`~nop_sim.core.errors.MissingData` where the runs lack what it reads
    required : the groups without which two runs are not compared (their MissingData
        refuses the comparison; another group's becomes a note)
    load_run(folder) : a finished run folder of the game, read as the metrics need it
    top : group -> the most rows its report section shows (all of them in its CSV)
    method : the report's sentence on the tests the metrics use
    """

    families: Mapping[str, tuple[str, str]]
    min_effect: Mapping[str, tuple[float, bool]]
    groups: tuple[tuple[str, str, Callable[[ComparedPoints], Any]], ...]
    required: tuple[str, ...]
    load_run: Callable[[Path], Any]
    top: Mapping[str, int] = field(default_factory=dict)
    method: str = ""


@dataclass(frozen=True)
class EngineBench:
    """What ``nop-sim bench`` times of a game's engine (:mod:`nop_sim.studies.bench`), from
    the game's module ``games/<game>/bench.py``; every callable is a module-level function.

    command : the ``nop-sim bench`` command that times the engine alone (``engine``: New
        Order's, ``ordered``: Ordered Hand's)
    measure(**options) : that command's figures, a JSON-ready dict; the options are the
        command's
    baseline : optional; the text of a scenario of the game, without a ``[sweep]``, that
        ``nop-sim bench runner`` plays when given none (the default game's, :data:`DEFAULT_KIND`)
    play_rotation(scn, point, rotation, ids, chunk_size, threads) : optional; play the
        matches ``ids`` (int64, ascending) of one seat rotation of the scenario's point
        with the engine alone, in one call on ``threads`` threads in chunks of
        ``chunk_size``, seated and seeded as the run seats them; the work done (the
        game's :attr:`Game.work` unit): ``nop-sim bench runner``'s engine side, against
        which it measures the runner. None: the runner bench refuses the game
    """

    command: str
    measure: Callable[..., dict]
    baseline: str | None = None
    play_rotation: Callable[..., int] | None = None


@dataclass(frozen=True)
class Game:
    """What a game declares; every callable is a module-level function, or its dotted
    name ``"package.module:function"``, imported on its first call (:class:`Deferred`).

    Settings and seats
    ------------------
    kind : the ``[game] kind`` that selects it, e.g. ``"new-order"``
    title : its name in prose
    settings : the settings class: ``from_mapping(values, source)`` (raises
        ``ValueError`` naming the setting), ``field_names()``, ``to_dict()``
        and a ``players`` attribute; its instances must pickle (Dask ships them)
    sweep_fields : the settings a ``[sweep]`` may vary
    default_seat : the agent of every seat when ``[seats]`` is not given
    check_seat(spec) : raise ``ValueError`` when a ``[seats]`` entry can never be
        an agent of this game (checked when the file loads)
    check_seats(specs, players) : raise ``ValueError`` when the seats of one
        sweep point and rotation cannot play
    seat_label(spec) : a seat's agent as text (the ``preset`` column)
    agent_file(path) : optional; read an agent file (the ``@path`` seat syntax,
        alone or as the base of a table: ``{preset = "@path", ...}``) into an object
        with ``rows`` (parameter tables), ``weights`` (one per row, summing to 1),
        ``training`` (a dict) and ``path``, e.g. :class:`nop_sim.games.new_order.agents.AgentFile`,
        raising ``ValueError`` naming the file; None: the game's seats cannot be
        read from files. A file of several rows is a mixture: the game's
        ``play_chunk`` draws each match's row (:attr:`SeatFile.rows`)

    Results
    -------
    tables : the tables each chunk writes, read back by appending rows; ``events``
        (the logged matches, possibly empty) is one of them
    summed_tables : long tables ``point, <keys...>, value`` whose values are
        summed over chunks (per-point counters)
    work : the ``counts`` column that measures work done and the word for its
        unit (``"hands"``, ``"turns"``): progress, totals and the CLI's rate
    targets : ``[targets]`` name -> what it measures (empty: none)
    point_metrics(matches, counts) : the summary's key metrics of one sweep
        point, a dict
    target_metrics(tables) : optional; from one point's tables (``{name: DataFrame}``,
        as ``play_chunk`` returns them, chunks appended) a function
        ``estimate(weights=None) -> {target name: value}`` for every name in
        ``targets``; ``weights`` is a float array, one weight per chunk in
        ascending chunk order (a cluster bootstrap's resampling counts), None
        for all ones. ``nop-sim tune`` scores trials with it. ``estimate.counts``,
        optional: target name -> ``(events, trials)`` of the targets that are shares of
        counted events, whose Wilson interval ``tune`` states where every resample
        gives the same value (none or all of the events: no spread to resample)
    extra_metrics : names of ``target_metrics`` that ``summary.md`` shows and ``nop-sim
        sensitivity`` analyses beside ``point_metrics`` (ones that need more of a point's
        tables than its matches and counters, e.g. New Order's ``max_disruptor_effect``)
    fair_win_rate(matches, players) : the win rate every seat would have if
        seats were equal (``1/players`` unless wins can be shared)
    summary_columns : table -> the columns ``summary.md`` reads of it (``point_metrics``,
        ``extra_metrics``, ``fair_win_rate`` and the win-rate tables: ``point``, ``seat``,
        ``preset``, ``place``, ``mix_row`` of seats); a table not named is read whole. The
        summary is written while a side run plays, on the cores its workers use: the
        columns it skips are CPU they keep
    store_version : bumped when the game's chunk tables change shape; an older
        chunk is redone on resume, never mixed in
    policy : optional; the game's :class:`PolicySpace`: its agents as rows of parameters,
        their legal box, mechanics, presets, agent files and a ``play_field`` over
        per-match tables, so ``nop-sim train``, ``value``, ``exploit`` and ``sweep
        --train`` can search them (:attr:`trainable`); None: they refuse the game

    Play, replay, report
    --------------------
    play_chunk(scn, chunk) : the chunk's tables, ``{name: table}`` (a pandas
        DataFrame or a pyarrow Table; a long table of counts may come wide, as
        :func:`nop_sim.results.store.wide_table` builds it, and reads back long)
        with exactly ``tables + summed_tables``;
        it may time its engine call as the phase "simulation"
        (:func:`nop_sim.core.profiling.phase`), for ``--profile``
    play_chunks(scn, chunks) : optional; consecutive chunks at once: the tables
        ``play_chunk`` gives for each, row tables appended in chunk order and
        summed tables added up or appended (the runner plays a stored part
        with it; a game whose chunks are cheap to play together saves the
        work around each call)
    warm_up(pool) : optional; run before a local process pool's first chunk
        (e.g. compile once into numba's cache)
    load_kernels() : optional; load the compiled kernels (from numba's cache
        after ``warm_up``): a worker calls it before its first chunk
    kernels : named groups of compiled kernels, each a function that compiles
        it into numba's cache (or loads it); ``nop-sim compile`` runs every
        game's groups at once, one process each
    run_kernels : the names of the groups a ``nop-sim run`` of the game (and its
        report) needs (None: all); ``nop-sim compile --runs`` compiles only those of
        the default game
    refresh_kernels() : optional; drop the game's stale kernels from numba's cache
        (sources changed since they were compiled); ``nop-sim compile`` calls it
        once before its workers start, so that no worker drops what another one
        has just compiled
    kernel_sources : glob patterns, relative to the ``nop_sim`` package folder, of
        the game's files that its cached kernels are compiled from or freeze
        constants of (its kernel modules, its ``types.py``); with the shared
        kernels' files they make the digest that guards numba's cache
        (:func:`nop_sim.core.kernel_sources.kernel_sources`), so an edit of any of them
        recompiles every kernel that may have inlined it
    fresh_hands(scn, count) : ``(text, records)``: readable histories of
        ``count`` fresh hands of the scenario's first sweep point and their
        JSON-ready event records (``nop-sim hands SCENARIO``)
    stored_hands(log) : ``(text, records)`` of a :class:`~nop_sim.results.match_log.MatchLog`
        read back from a run folder (``nop-sim hands RUN --match N``)
    referee(settings, specs, n, seed) : play ``n`` logged matches with these
        seat specs and replay each in plain Python; return the number checked,
        raise ``AssertionError`` at the first broken rule
    write_report(out) : write the report of a finished run folder; its path or None
    open_table(scn, seat, seed) : optional; a table where a person plays seat ``seat`` of
        one match of the scenario's first sweep point against its seats (``nop-sim
        play``): an object with ``state()`` (a JSON-ready dict), ``act(action)`` (raises
        :class:`~nop_sim.core.errors.IllegalAction`, changing nothing, for an action
        that is not legal), ``done`` and ``save(folder)`` (the match as a run folder
        that ``nop-sim hands`` reads); None: the game cannot be played in person yet
    replay_chunk(scn, chunk, ids) : optional; one chunk of a run played again with the
        run's matches ``ids`` (int64) logged: the tables ``play_chunk`` gives, its
        ``events`` those matches' (every match's rows as the run stored them: a chunk's
        play depends on its seed alone). Any match of such a game's run can be read back
        (:mod:`nop_sim.run.replay`); None: only those the run logged (``[run] log_sample``)
    open_replay(log) : optional; a logged match of a run (a ``MatchLog``) step by step
        for the same page (``nop-sim replay``): ``state(step)`` with every card shown,
        and ``n_steps``; None: the game has no replay yet
    compare() : optional; the game's :class:`CompareMetrics` (a function, given by its
        dotted name, so that registering the game loads no statistics); None: ``nop-sim
        compare`` refuses its runs
    bench() : optional; the game's :class:`EngineBench` (a function, given by its dotted
        name, so that registering the game loads no engine); None: ``nop-sim bench``
        times no engine of it
    train_settings(table, where) : optional; a scenario's ``[train]`` table (a mapping,
        empty when not given) read into the game's training settings, its defaults for
        the keys not given (New Order: the betting abstraction a regret trainer learns
        over, :class:`nop_sim.games.new_order.abstraction.Abstraction`); raises
        ``ValueError`` in one line naming ``where``, the key and what is allowed. None:
        the game takes no ``[train]`` table
    """

    kind: str
    title: str
    settings: type
    sweep_fields: tuple[str, ...]
    default_seat: str
    check_seat: Callable[[Any], None]
    check_seats: Callable[[list, int], None]
    seat_label: Callable[[Any], str]
    tables: tuple[str, ...]
    work: str
    point_metrics: Callable[[Any, Any], dict]
    play_chunk: Callable[[Any, Any], dict]
    fresh_hands: Callable[[Any, int], tuple[str, list]]
    stored_hands: Callable[[Any], tuple[str, list]]
    referee: Callable[[Any, list, int, int], int]
    write_report: Callable[[Path], Path | None]
    summed_tables: tuple[str, ...] = ("arrays",)
    targets: Mapping[str, str] = field(default_factory=dict)
    fair_win_rate: Callable[[Any, int], float] = None  # type: ignore[assignment]
    target_metrics: Callable[[dict], Callable] | None = None
    play_chunks: Callable[[Any, list], dict] | None = None
    warm_up: Callable[[Any], None] | None = None
    load_kernels: Callable[[], None] | None = None
    kernels: Mapping[str, Callable[[], None]] = field(default_factory=dict)
    run_kernels: tuple[str, ...] | None = None
    refresh_kernels: Callable[[], None] | None = None
    kernel_sources: tuple[str, ...] = ()
    agent_file: Callable[[Path], Any] | None = None
    store_version: int = 1
    policy: PolicySpace | None = None
    extra_metrics: tuple[str, ...] = ()
    summary_columns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    open_table: Callable[[Any, int, int], Any] | None = None
    replay_chunk: Callable[[Any, Any, Any], dict] | None = None
    open_replay: Callable[[Any], Any] | None = None
    compare: Callable[[], CompareMetrics] | None = None
    bench: Callable[[], EngineBench] | None = None
    train_settings: Callable[[Mapping, str], Any] | None = None

    @property
    def trainable(self) -> bool:
        """It declares a policy space: the strong-play commands can train its agents."""
        return self.policy is not None

    def extra_values(self, tables: Mapping[str, Any]) -> dict[str, float]:
        """The :attr:`extra_metrics` of one point's tables (``{name: DataFrame}``); none
        where the game has none or the tables lack the seats they need."""
        if not self.extra_metrics or self.target_metrics is None or tables.get("seats") is None:
            return {}
        more = self.target_metrics({k: v for k, v in tables.items() if v is not None})()
        return {k: more[k] for k in self.extra_metrics if k in more}

    @property
    def strong_targets(self) -> dict[str, str]:
        """The ``[targets]`` names measured under strong play (``nop-sim sweep --train
        --value``), in the policy's unit (win-rate points unless it says otherwise):
        ``exploitability`` and ``value_<mechanic>`` for each mechanic of a trainable game;
        none for another."""
        if self.policy is None:
            return {}
        unit = "win-rate points" if self.policy.unit == "points" else self.policy.unit
        return {"exploitability": f"what the best deviation found gains against the "
                                  f"trained field ({unit}, a lower bound)",
                **{f"value_{m}": f"what {m} is worth to a strong player ({unit})"
                   for m in self.policy.mechanics}}

    def __post_init__(self) -> None:
        _defer_named(self)
        if self.fair_win_rate is None:
            object.__setattr__(self, "fair_win_rate", one_winner)
        unknown = set(self.run_kernels or ()) - set(self.kernels)
        if unknown:
            raise ValueError(f"game {self.kind!r}: run_kernels names no kernel group: "
                             f"{sorted(unknown)} (its groups: {sorted(self.kernels)})")

    @property
    def result_tables(self) -> tuple[str, ...]:
        """The tables an analysis reads by default (all but ``events``)."""
        return tuple(t for t in (*self.tables, *self.summed_tables) if t != "events")


class SeatFile(dict):
    """A seat read from an agent file (``@path`` in ``[seats]``, or ``{preset = "@path",
    ...}`` with overrides): its parameter table, with where it came from.

    A one-row file's seat is the mapping of parameters itself, so a game's agent
    code takes it as any table. A mixture (several rows) plays one of its
    ``rows`` per match, drawn with ``weights``; its mapping is empty and a game
    that cannot draw rows refuses it. It pickles with its attributes, so workers
    never read the file.

    Attributes
    ----------
    given : the path as the scenario wrote it (without ``@``)
    path : the file that was read
    label : the seat's label, ``trained(<training scenario or file stem>)``, with
        ``(param=value,...)`` appended for overrides
    training : the file's ``[training]`` table (``{}`` when it has none)
    rows : the parameter tables, overrides applied, in file order (one for a
        plain file: the mapping itself)
    weights : each row's share of the matches, summing to 1 (``(1.0,)`` for one row)
    overrides : the parameters the seat set on top of the file (``{}``: none); the
        file's stated exploitability does not apply to an agent so changed
    betting : None, or the betting table the file names (its ``[betting]`` table), loaded
        once by the game's ``agent_file`` hook: ``(train, weights)``, the abstraction's
        ``[train]`` keys (a dict) and float64 (n_infosets, n_actions) weights; the seat
        plays its betting decisions from it and every other decision from its rows
    betting_table : the table's file (None: none)
    """

    def __init__(self, params, *, given: str, path: str, label: str, training: dict,
                 rows=None, weights=None, overrides=None, betting=None,
                 betting_table: str | None = None):
        super().__init__(params)
        self.betting = None if betting is None else (dict(betting[0]),
                                                     np.asarray(betting[1], np.float64))
        self.betting_table = betting_table
        # what the table plays, once: a seat's identity and equality without the weights
        self.betting_id = None if self.betting is None else hashlib.sha256(
            json.dumps(self.betting[0], sort_keys=True).encode()
            + np.ascontiguousarray(self.betting[1]).tobytes()).hexdigest()[:16]
        self.given, self.path, self.label = given, path, label
        self.training = json.loads(json.dumps(training, default=str))  # dates as text, as JSON
        self.rows = tuple(dict(r) for r in rows) if rows is not None else (dict(params),)
        self.weights = (tuple(float(w) for w in weights) if weights is not None
                        else (1.0,) * len(self.rows))
        self.overrides = dict(overrides or {})
        if len(self.rows) != len(self.weights) or not self.rows:
            raise ValueError(f"{path}: {len(self.rows)} rows and {len(self.weights)} weights")

    @classmethod
    def from_agent_file(cls, agent_file, *, given: str, label: str,
                        overrides: Mapping[str, Any] | None = None) -> SeatFile:
        """The seat of a file read by a game's ``agent_file`` hook (``rows``, ``weights``,
        ``training``, ``path``), with ``overrides`` set on every row."""
        overrides = dict(overrides or {})
        rows = tuple({**row, **overrides} for row in agent_file.rows)
        return cls(rows[0] if len(rows) == 1 else {}, given=given, path=str(agent_file.path),
                   label=label, training=agent_file.training, rows=rows,
                   weights=agent_file.weights, overrides=overrides,
                   betting=getattr(agent_file, "betting", None),
                   betting_table=getattr(agent_file, "betting_table", None))

    @property
    def is_mixture(self) -> bool:
        """More than one row: each match draws the row this seat plays."""
        return len(self.rows) > 1

    def __eq__(self, other) -> bool:
        if not isinstance(other, SeatFile):
            return dict.__eq__(self, other)
        return (dict.__eq__(self, other) and self.rows == other.rows
                and self.weights == other.weights and self.betting_id == other.betting_id)

    def __ne__(self, other) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]  # a dict: never hashable

    def identity(self) -> dict:
        """What makes its results (a scenario's fingerprint): the label and the parameters,
        with the rows and weights of a mixture, and a hash of its betting table."""
        table = {} if self.betting_id is None else {"betting_table": self.betting_id}
        if not self.is_mixture:
            return {"agent_file": self.label, **self, **table}
        return {"agent_file": self.label, "rows": [dict(r) for r in self.rows],
                "weights": list(self.weights), **table}

    def record(self) -> dict:
        """Its provenance, JSON-ready (a run's ``manifest.json`` ``agent_files``): label,
        file, the path as given, the parameters (one row), the rows and weights, the
        ``[training]`` table, and any overrides (with ``exploitability_applies`` false:
        the file's stated exploitability is of the agent as trained)."""
        out = {"label": self.label, "file": self.path, "given": self.given}
        if not self.is_mixture:
            out["params"] = dict(self)
        out.update(rows=[dict(r) for r in self.rows], weights=list(self.weights),
                   training=self.training)
        if self.betting is not None:
            out.update(betting_table=self.betting_table, betting_id=self.betting_id,
                       betting_train=dict(self.betting[0]))
        if self.overrides:
            out.update(overrides=dict(self.overrides), exploitability_applies=False)
        return out


def seat_label(spec, default_preset: str) -> str:
    """A seat's agent as text, the ``preset`` column of a store: the preset name,
    ``preset(param=value, ...)`` for a table of parameters, or the
    :class:`SeatFile`'s label (``trained(baseline)``) for an agent file.

    Names are stripped and lower-cased; a table without ``preset`` starts from
    ``default_preset`` (the game's default seat), so its label names the preset
    it really starts from. Each game binds its default with :func:`functools.partial`.
    """
    if isinstance(spec, str):
        return spec.strip().lower()
    if isinstance(spec, SeatFile):
        return spec.label
    base = str(spec.get("preset", default_preset)).strip().lower()
    return changed_label(base, {k: v for k, v in spec.items() if k != "preset"})


def changed_label(base: str, changes: Mapping[str, Any]) -> str:
    """``base(param=value,...)``, the changes sorted by name; ``base`` when there are none:
    a preset or an agent file's label with the parameters a seat sets on top of it."""
    extra = ",".join(f"{k}={v}" for k, v in sorted(changes.items()))
    return f"{base}({extra})" if extra else base


def seat_name(seat: int) -> str:
    """A seat as prose: ``Seat 0``, ``Seat 1``, ... Seats count from 0 everywhere: the
    stores' ``seat`` column, the event logs, the summary, the reports and the histories."""
    return f"Seat {int(seat)}"


def seat_names(labels, rows=None) -> list[str]:
    """The players of a hand history: ``Seat 0 (label)``, ``Seat 1 (label)``, ... in seat order.

    ``rows``: the mixture row each seat played (-1 or None: not a mixture), named
    after the label: ``Seat 2 (trained(baseline) row 1)``.
    """
    labels = list(labels)
    rows = [-1] * len(labels) if rows is None else [-1 if r is None else int(r) for r in rows]
    return [f"{seat_name(i)} ({label}{f' row {row}' if row >= 0 else ''})"
            for i, (label, row) in enumerate(zip(labels, rows, strict=True))]


def one_winner(matches, players: int) -> float:
    """The fair win rate of a game with one winner per match: ``1/players``."""
    return 1 / players


_GAMES: dict[str, Game] = {}


def register_game(game: Game) -> Game:
    """Add ``game`` under its kind; registering the same kind again replaces it."""
    if not isinstance(game, Game):
        raise TypeError(f"register_game takes a Game, got {type(game).__name__}")
    if "events" not in game.tables:
        raise ValueError(f"game {game.kind!r}: its tables must include 'events' "
                         f"(empty when nothing is logged)")
    _GAMES[game.kind] = game
    return game


def registered_games() -> tuple[Game, ...]:
    """Every registered game, in registration order."""
    return tuple(_GAMES.values())


def policy_of(settings) -> PolicySpace:
    """The policy space of the game whose settings class ``settings`` is an instance of;
    ``ValueError`` naming the game when it declares none."""
    for game in _GAMES.values():
        if isinstance(settings, game.settings):
            if game.policy is None:
                kinds = [g.kind for g in _GAMES.values() if g.policy is not None]
                raise ValueError(f"the game {game.kind!r} declares no policy space, so its "
                                 f"agents cannot be trained; games that do: "
                                 f"{', '.join(kinds) or 'none'}")
            return game.policy
    raise ValueError(f"no registered game plays settings of type {type(settings).__name__}")


def game_kinds() -> tuple[str, ...]:
    return tuple(_GAMES)


def get_game(kind: str) -> Game:
    """The game registered as ``kind``; ``KeyError`` naming the kinds there are."""
    try:
        return _GAMES[kind]
    except KeyError:
        raise KeyError(f"no game {kind!r} is registered; games: "
                       f"{', '.join(map(repr, _GAMES))}") from None


def game_of_folder(out: str | Path) -> Game:
    """The game of a run folder, read from its ``manifest.json`` (``scenario.kind``).

    A manifest from before the registry without a kind is a New Order run.
    Raises ``ValueError`` (one line) for a folder whose game is not registered.
    """
    try:
        manifest = json.loads((Path(out) / "manifest.json").read_text())
        kind = manifest["scenario"].get("kind", DEFAULT_KIND)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        kind = DEFAULT_KIND  # the readers of the folder report what is wrong with it
    if kind not in _GAMES:
        raise ValueError(f"{out}: holds a run of the game {kind!r}, which this nop-sim does not "
                         f"know; games: {', '.join(map(repr, _GAMES))}")
    return _GAMES[kind]
