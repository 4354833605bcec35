"""Scenario files: TOML -> a validated, frozen :class:`Scenario`.

A scenario names the game (``[game] kind``, one of the registered
:mod:`nop_sim.games`) and its settings (``[game]``), who sits where
(``[seats]``; ``"@path"`` seats a trained agent read from a file), how much to run (``[run]``), what to sweep (``[sweep]``),
optionally what the designer is aiming for (``[targets]``) and the settings
``nop-sim tune`` searches for it (``[tune]``). Settings resolve
as defaults < scenario file < ``--set`` overrides. Every problem is a
:class:`ScenarioError` naming the file, the field, the value and what is
allowed. What differs between games (the settings class, seat checks, the
fields a sweep may vary, the ``[targets]`` names) comes from the game's
descriptor. The full reference is ``docs/scenarios.md``.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import itertools
import json
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import tomli_w

from nop_sim.core.errors import ScenarioError, did_you_mean, toml_problem
from nop_sim.games import DEFAULT_KIND, Game, SeatFile, game_kinds, get_game
from nop_sim.games.registry import changed_label

__all__ = ["Scenario", "ScenarioError", "SweepAxis", "Target", "TuneAxis", "load_scenario",
           "parse_override", "point_key", "point_scenario"]

SWEEP_MODES = ("grid", "random", "lhs", "lhs-cd", "qmc-sobol", "sobol")
# modes whose points are a design in the unit cube (scipy.stats.qmc, SALib), mapped onto each
# axis as lhs maps its strata; "sobol" is Saltelli's design for Sobol' indices
DESIGN_MODES = ("lhs-cd", "qmc-sobol", "sobol")
SWEEP_OPTIONS = ("mode", "samples", "second_order")  # [sweep] keys that are not settings
TOP_KEYS = ("name", "description", "game", "seats", "run", "sweep", "targets", "tune",
            "strong", "train")
STRONG_KEYS = ("field", "matches", "log_sample")
RUN_KEYS = {"matches": (1, 100_000_000), "seed": (0, 2**63 - 1), "chunk": (1, 1_000_000),
            "log_sample": (0, 100_000_000)}
RUN_DEFAULTS = {"matches": 1000, "seed": 0, "chunk": 250, "log_sample": 0}
SEAT_KEYS = ("all", "seat", "rotate")


@dataclass(frozen=True)
class SweepAxis:
    """One swept setting and the values it takes (grid) or is drawn from (random, lhs)."""

    name: str
    values: tuple
    low: float | None = None   # a continuous or integer range, for random / lhs
    high: float | None = None
    integer: bool = True


@dataclass(frozen=True)
class TuneAxis:
    """One setting ``nop-sim tune`` searches: an integer or float range, or a list of choices."""

    name: str
    kind: str                 # "int", "float" or "choice"
    low: float | None = None
    high: float | None = None
    choices: tuple = ()


@dataclass(frozen=True)
class Target:
    """One ``[targets]`` entry: hit ``value``, or stay under ``max`` / over ``min``."""

    name: str
    kind: str                 # "value", "max" or "min"
    value: float
    weight: float = 1.0

    def miss(self, metric: float) -> float:
        """How far ``metric`` is from the target, relative to the target's size (0: met).

        The scale is ``|value|`` (1 for a target at 0), as the sweep ranking's.
        """
        scale = abs(self.value) or 1.0
        gap = metric - self.value
        if self.kind == "max":
            gap = max(gap, 0.0)
        elif self.kind == "min":
            gap = min(gap, 0.0)
        return abs(gap) / scale


@dataclass(frozen=True)
class Scenario:
    """A validated scenario; build it with :func:`load_scenario` or :meth:`from_mapping`."""

    name: str
    source: str                      # the file (or "<string>") errors are reported against
    text: str                        # the scenario as TOML after overrides (for the manifest)
    kind: str
    game: Mapping[str, Any]          # the [game] table as given, without ``kind``
    settings: Any                    # the game's settings class (``Game.settings``)
    seats: tuple                     # agent specs, one per seat, or the rotation list
    rotate: bool
    matches: int
    seed: int
    chunk: int
    log_sample: int
    sweep: tuple[SweepAxis, ...] = ()
    sweep_mode: str = "grid"
    samples: int = 0
    second_order: bool = False       # mode "sobol": also the design for second-order indices
    # target name -> its number (a value, or a bound's limit): what sweeps rank by
    targets: Mapping[str, float] = field(default_factory=dict)
    target_specs: tuple[Target, ...] = ()   # the same targets with their kind and weight
    tune: tuple[TuneAxis, ...] = ()          # what nop-sim tune searches ([tune])
    description: str = ""
    agent_files: tuple[SeatFile, ...] = ()  # the "@path" seats, read once, in [seats] order
    # every seat's agent at some sweep points (point_key -> spec), e.g. the agent
    # nop-sim sweep --train trained for that point; other points use [seats]
    point_seats: Mapping[str, Any] = field(default_factory=dict)
    # [strong]: a strong field for these rules (an agent file) and the matches it plays in
    # every seat beside the run (:meth:`strong_scenario`); None without the table
    strong: StrongField | None = None
    # [train]: the game's training settings, its defaults where keys are not given (New
    # Order: the betting abstraction, Game.train_settings); None for a game without them
    train: Any = None

    # -- construction ------------------------------------------------------------
    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], source: str = "<string>",
                     name: str | None = None, folder: str | Path | None = None) -> Scenario:
        """Validate a parsed TOML document.

        ``name`` names the run (its default folders, titles and manifest): a
        scenario file's stem, given by :func:`load_scenario`, wins over a
        ``name`` key, so that a copy of a file (``cap30.toml`` still saying
        ``name = "baseline"``) is a run of its own. Without it, the ``name``
        key, else ``"scenario"``. ``folder`` is the scenario file's folder: an
        ``"@path"`` seat is looked for relative to the current folder first,
        then relative to it.
        """
        _check_keys(data, TOP_KEYS, source, "the top level")
        game = dict(_table(data, "game", source))
        kind = game.pop("kind", DEFAULT_KIND)
        kinds = game_kinds()
        if kind not in kinds:
            raise ScenarioError(f"{source}: [game] kind = {kind!r} is not allowed: use one of "
                                f"{', '.join(map(repr, kinds))}" + did_you_mean(kind, kinds))
        played = get_game(kind)
        settings = _settings(played, game, source)
        run = _table(data, "run", source)
        _check_keys(run, tuple(RUN_KEYS), source, "[run]")
        run_values = {}
        for key, default in RUN_DEFAULTS.items():
            value = run.get(key, default)
            lo, hi = RUN_KEYS[key]
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise ScenarioError(f"{source}: [run] {key} = {value!r} is not allowed: "
                                    f"use an integer from {lo} to {hi}")
            run_values[key] = value
        seats, rotate, files = _seats(_table(data, "seats", source), source, played, folder)
        axes, mode, samples, second_order = _sweep(_table(data, "sweep", source), source,
                                                   played)
        specs = _targets(_table(data, "targets", source), source, played)
        tune = _tune(_table(data, "tune", source), source, played)
        strong = _strong(_table(data, "strong", source), source, played, folder,
                         run_values["matches"])
        train = _train(_table(data, "train", source), source, played, folder)
        text = tomli_w.dumps(data)  # any text, emoji included; comments are not kept
        scn = cls(
            name=str(name or data.get("name") or "scenario"), source=source, text=text,
            kind=kind, game=game, settings=settings, seats=seats, rotate=rotate,
            matches=run_values["matches"], seed=run_values["seed"], chunk=run_values["chunk"],
            log_sample=run_values["log_sample"], sweep=axes, sweep_mode=mode, samples=samples,
            second_order=second_order,
            targets={t.name: t.value for t in specs}, target_specs=specs, tune=tune,
            description=str(data.get("description", "")), agent_files=files, strong=strong,
            train=train,
        )
        # every sweep point must give valid settings and seats
        for point in scn.points():
            scn.settings_at(point)
            scn.seat_specs(point, 0)
        for point in scn.tune_corners():  # each end and choice must play
            _settings(played, {**game, **point}, f"{source}: [tune]", table="")
            try:
                scn.seat_specs(point, 0)
            except ScenarioError as exc:
                (name, value), = point.items()
                why = str(exc).split("[seats] ", 1)[-1]
                raise ScenarioError(f"{source}: [tune] {name} = {value!r} cannot be played "
                                    f"with these [seats]: {why}") from None
        return scn

    # -- reading -------------------------------------------------------------------
    @property
    def game_type(self) -> Game:
        """The registered game this scenario plays (its descriptor)."""
        return get_game(self.kind)

    def points(self) -> list[dict[str, Any]]:
        """The sweep points, each a mapping of swept setting -> value ([{}] without a sweep)."""
        if not self.sweep:
            return [{}]
        if self.sweep_mode == "grid":
            names = [a.name for a in self.sweep]
            return [dict(zip(names, combo, strict=True))
                    for combo in itertools.product(*(a.values for a in self.sweep))]
        if self.sweep_mode in DESIGN_MODES:
            unit = self.unit_design()
            columns = {axis.name: _from_unit(axis, unit[:, j])
                       for j, axis in enumerate(self.sweep)}
            return [{name: columns[name][i] for name in columns} for i in range(len(unit))]
        # random and lhs: kept exactly as they were, so a resumed run keeps its points
        rng = np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(2**31 - 1,)))
        n = self.samples
        columns = {}
        for axis in self.sweep:
            if axis.values:
                if self.sweep_mode == "lhs":
                    strata = (rng.permutation(n) + rng.random(n)) / n
                    idx = np.minimum((strata * len(axis.values)).astype(int), len(axis.values) - 1)
                else:
                    idx = rng.integers(0, len(axis.values), n)
                columns[axis.name] = [axis.values[i] for i in idx]
            else:
                u = ((rng.permutation(n) + rng.random(n)) / n if self.sweep_mode == "lhs"
                     else rng.random(n))
                if axis.integer:
                    vals = np.floor(axis.low + u * (axis.high - axis.low + 1)).astype(int)
                    columns[axis.name] = [int(min(v, axis.high)) for v in vals]
                else:
                    columns[axis.name] = [float(axis.low + x * (axis.high - axis.low)) for x in u]
        return [{name: columns[name][i] for name in columns} for i in range(n)]

    def tune_corners(self) -> list[dict[str, Any]]:
        """Each ``[tune]`` setting alone at each end of its range and at each choice: the
        values a file is checked at when it loads."""
        return [{a.name: v} for a in self.tune
                for v in (a.choices if a.kind == "choice" else (a.low, a.high))]

    def unit_design(self) -> np.ndarray:
        """The design of a ``DESIGN_MODES`` sweep in the unit cube, ``(n_points, n_axes)`` float64,
        one row per point in :meth:`points` order, drawn from the scenario's seed.

        The Sobol' modes round ``samples`` up to a power of two (the sequence is balanced
        only there). ``qmc-sobol``: the scrambled Sobol' sequence, ``samples`` points;
        ``lhs-cd``: a Latin hypercube optimised for centred discrepancy (``random-cd``),
        ``samples`` points; ``sobol``: Saltelli's design (SALib), ``samples * (n_axes + 2)``
        points, or ``samples * (2 * n_axes + 2)`` with ``second_order``.
        """
        if self.sweep_mode not in DESIGN_MODES:
            raise ValueError(f"mode {self.sweep_mode!r} has no unit-cube design")
        return _unit_design(self.sweep_mode, len(self.sweep), self.samples, self.seed,
                            self.second_order).copy()

    def settings_at(self, point: Mapping[str, Any]):
        """The game's settings at a sweep point (an instance of ``Game.settings``)."""
        if not point:
            return self.settings
        return _settings(self.game_type, {**self.game, **point},
                         f"{self.source}: [sweep] point {dict(point)}")

    def seat_specs(self, point: Mapping[str, Any], rotation: int) -> list:
        """Agent spec of each seat at a sweep point and rotation (validated)."""
        players = self.settings_at(point).players
        own = self.point_seats.get(point_key(point)) if self.point_seats else None
        if own is not None:
            specs = [own] * players
        elif self.rotate:
            specs = [self.seats[(s + rotation) % len(self.seats)] for s in range(players)]
        elif len(self.seats) == 1:
            specs = [self.seats[0]] * players
        else:
            specs = list(self.seats)
            if len(specs) != players:
                raise ScenarioError(
                    f"{self.source}: [seats] seat lists {len(specs)} agents but players = "
                    f"{players}{' at sweep point ' + str(dict(point)) if point else ''}: give one "
                    f"per seat, or use rotate = [...] to cycle presets across seats")
        try:
            self.game_type.check_seats(specs, players)
        except ValueError as exc:
            raise ScenarioError(f"{self.source}: [seats] {exc}") from None
        return specs

    def strong_scenario(self) -> Scenario:
        """The ``[strong]`` field's own run: these rules with the field in every seat, its
        matches and event log, this seed, named ``<name>-strong`` (no sweep, targets or
        tune)."""
        if self.strong is None:
            raise ValueError(f"{self.source}: has no [strong] table")
        data = tomllib.loads(self.text)
        for key in ("strong", "targets", "tune", "sweep"):
            data.pop(key, None)
        data["seats"] = {"all": "@" + self.strong.file.path}
        data["run"] = {**data.get("run", {}), "matches": self.strong.matches,
                       "log_sample": self.strong.log_sample}
        return Scenario.from_mapping(data, source=f"{self.source} [strong]",
                                     name=f"{self.name}-strong")

    @property
    def n_rotations(self) -> int:
        return len(self.seats) if self.rotate else 1

    def fingerprint(self, log_sample: Any = ...) -> str:
        """Hash of everything that changes results (not the run's size).

        An ``"@path"`` seat counts as the parameters and label read from its
        file, not its path: a retrained file is a different scenario. ``log_sample``:
        the hash with ``[run] log_sample`` as given instead (None: not written), which
        changes no result (:func:`nop_sim.run.runner` continues a folder whose run
        differs in it alone).
        """
        data = tomllib.loads(self.text)
        if self.agent_files:  # [seats] holds one key: all (one spec), seat or rotate (a list)
            seats = [s.identity() if isinstance(s, SeatFile) else s for s in self.seats]
            data["seats"] = {k: seats if isinstance(v, list) else seats[0]
                             for k, v in data["seats"].items()}
        if self.point_seats:
            data["point_seats"] = {k: s.identity() if isinstance(s, SeatFile)
                                   else {"agent_file": None, **s}
                                   for k, s in sorted(self.point_seats.items())}
        data.pop("name", None)
        data.pop("description", None)
        data.pop("strong", None)  # played beside the run, in a folder of its own
        # what a trainer learns over, not what a run plays: a trainer keeps it in its own
        # identity (a training resumed under another abstraction is another training)
        data.pop("train", None)
        data.pop("targets", None)
        data.pop("tune", None)
        run = dict(data.get("run", {}))
        run.pop("matches", None)
        if log_sample is None:
            run.pop("log_sample", None)
        elif log_sample is not ...:
            run["log_sample"] = log_sample
        data["run"] = run
        blob = json.dumps(data, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


@functools.lru_cache(maxsize=16)  # points() is asked often; random-cd takes a while
def _unit_design(mode: str, d: int, samples: int, seed: int, second_order: bool) -> np.ndarray:
    """See :meth:`Scenario.unit_design`."""
    # here: scipy.stats takes most of a second to load, and a grid never needs it
    from scipy.stats import qmc

    n = samples if mode == "lhs-cd" else _power_of_two(samples)
    # an own stream per mode, apart from random/lhs (spawn key 2**31 - 1)
    rng = np.random.default_rng(np.random.SeedSequence(
        seed, spawn_key=(2**31 - 2, DESIGN_MODES.index(mode))))
    if mode == "sobol":
        # here: SALib loads slowly, and only a Saltelli design needs it
        from SALib.sample import sobol as saltelli

        problem = {"num_vars": d, "names": [f"x{j}" for j in range(d)],
                   "bounds": [[0.0, 1.0]] * d}
        return saltelli.sample(problem, n, calc_second_order=second_order, scramble=True,
                               seed=rng)
    if mode == "qmc-sobol":
        return _qmc(qmc.Sobol, d, rng, scramble=True).random_base2(int(np.log2(n)))
    return _qmc(qmc.LatinHypercube, d, rng, optimization="random-cd").random(n)


def _power_of_two(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


def _qmc(engine, d: int, rng: np.random.Generator, **kwargs):
    """A scipy.stats.qmc engine seeded with ``rng`` (``rng=`` since scipy 1.15, ``seed=`` before)."""
    try:
        return engine(d, rng=rng, **kwargs)
    except TypeError:
        return engine(d, seed=rng, **kwargs)


def _from_unit(axis: SweepAxis, u: np.ndarray) -> list:
    """An axis's values at unit-cube coordinates ``u``, mapped as ``lhs`` maps its strata: a
    list of values in equal slices, an integer range floor(low + u * (high - low + 1))."""
    if axis.values:
        idx = np.minimum((u * len(axis.values)).astype(int), len(axis.values) - 1)
        return [axis.values[i] for i in idx]
    if axis.integer:
        vals = np.floor(axis.low + u * (axis.high - axis.low + 1)).astype(int)
        return [int(min(v, axis.high)) for v in vals]
    return [float(axis.low + x * (axis.high - axis.low)) for x in u]


def point_key(point: Mapping[str, Any]) -> str:
    """A sweep point as text, the key of :attr:`Scenario.point_seats`."""
    return json.dumps(dict(point), sort_keys=True, default=str)


def point_scenario(scn: Scenario, index: int) -> Scenario:
    """Sweep point ``index`` of ``scn`` as a scenario of its own (no ``[sweep]``), named
    ``<name>-point<index>``."""
    point = scn.points()[index]
    data = tomllib.loads(scn.text)
    data.pop("sweep", None)
    data.pop("strong", None)  # a sweep never plays [strong] (sweep --train trains points)
    data["game"] = {**data.get("game", {}), **point}
    data["name"] = f"{scn.name}-point{index}"
    folder = Path(scn.source).parent if scn.source != "<string>" else None
    return Scenario.from_mapping(data, source=f"{scn.source} (sweep point {index})",
                                 folder=folder)


# ---------------------------------------------------------------------------
def load_scenario(path: str | Path, overrides: Sequence[str] = ()) -> Scenario:
    """Read a scenario file and apply ``--set key=value`` overrides."""
    path = Path(path)
    if not path.exists():
        raise ScenarioError(f"{path}: no such scenario file")
    if path.is_dir():
        raise ScenarioError(f"{path}: is a folder; give a scenario .toml file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"{path}: cannot be read: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{path}: not valid TOML: {toml_problem(text, exc)}") from None
    items = [(item, *parse_override(item)) for item in overrides]
    full = copy.deepcopy(data)
    for _item, key, value in items:
        _apply_override(full, key, value, str(path))
    try:
        return Scenario.from_mapping(full, source=str(path), name=path.stem, folder=path.parent)
    except ScenarioError:
        if items:
            _blame_override(data, items, path)
        raise


def _blame_override(data: dict, items: list[tuple[str, str, Any]], path: Path) -> None:
    """Raise the error of the first ``--set`` that breaks a file that is valid alone.

    Its message names the flag (``--set dart_cap=abc: ...``), not the file.
    Returns when the file alone is invalid: the file's own error stands.
    """
    try:
        Scenario.from_mapping(copy.deepcopy(data), source=str(path), name=path.stem,
                              folder=path.parent)
    except ScenarioError:
        return
    partial = copy.deepcopy(data)
    for item, key, value in items:
        _apply_override(partial, key, value, f"--set {item}")
        try:
            Scenario.from_mapping(copy.deepcopy(partial), source=f"--set {item}",
                                  name=path.stem, folder=path.parent)
        except ScenarioError as exc:
            raise ScenarioError(str(exc)) from None


def parse_override(item: str) -> tuple[str, Any]:
    """``"dart_cap=30"`` -> ``("dart_cap", 30)``; the value is read as TOML, else as text."""
    if "=" not in item:
        raise ScenarioError(f"--set {item!r}: use key=value, e.g. --set dart_cap=30")
    key, raw = item.split("=", 1)
    key, raw = key.strip(), raw.strip()
    if not key:
        raise ScenarioError(f"--set {item!r}: the key is empty")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value


def _apply_override(data: dict, key: str, value: Any, source: str) -> None:
    parts = key.split(".")
    if len(parts) == 1:
        table = "run" if key in RUN_KEYS else "game"
        parts = [table, key]
    if parts[0] not in ("game", "run", "targets", "seats", "sweep", "tune", "strong",
                        "train") or len(parts) != 2:
        raise ScenarioError(f"--set {key}: use a setting name (dart_cap), or table.key with a "
                            f"table of game, run, seats, sweep, targets, tune, strong, train")
    node = data.setdefault(parts[0], {})
    if not isinstance(node, dict):
        raise ScenarioError(f"{source}: [{parts[0]}] is not a table")
    if parts[0] == "seats" and parts[1] in SEAT_KEYS:
        for other in SEAT_KEYS:  # all, seat and rotate are alternatives: one replaces another
            node.pop(other, None)
    node[parts[1]] = value


def _table(data: Mapping, name: str, source: str) -> Mapping:
    value = data.get(name, {})
    if not isinstance(value, Mapping):
        raise ScenarioError(f"{source}: {name} must be a table ([{name}]), got {value!r}")
    return value


def _check_keys(table: Mapping, allowed: Sequence[str], source: str, where: str) -> None:
    for key in table:
        if key not in allowed:
            raise ScenarioError(f"{source}: unknown key {key!r} in {where}."
                                + did_you_mean(key, allowed)
                                + f" Allowed: {', '.join(allowed)}")


def _settings(played: Game, game: Mapping, source: str, table: str = ": [game]"):
    """The game's settings from a ``[game]`` table (without ``kind``); errors name
    ``source`` + ``table``."""
    try:
        return played.settings.from_mapping(game, source=f"{source}{table}")
    except ValueError as exc:  # the settings' own errors name the file and the setting
        raise ScenarioError(str(exc)) from None
    except TypeError as exc:  # e.g. a table where a number belongs
        raise ScenarioError(f"{source}{table} {exc}") from None


def _seats(table: Mapping, source: str, played: Game,
           folder: str | Path | None) -> tuple[tuple, bool, tuple[SeatFile, ...]]:
    _check_keys(table, SEAT_KEYS, source, "[seats]")
    given = [k for k in SEAT_KEYS if k in table]
    if len(given) > 1:
        raise ScenarioError(f"{source}: [seats] give one of all, seat or rotate, not "
                            f"{' and '.join(given)}")
    key = given[0] if given else "all"
    value = table.get(key, played.default_seat)
    if key == "all":
        specs = [value]
    else:
        if isinstance(value, (str, Mapping)) or not isinstance(value, Sequence) or not value:
            raise ScenarioError(f"{source}: [seats] {key} must be a non-empty list of presets "
                                f"or parameter tables, got {value!r}")
        specs = list(value)
    files: dict[str, SeatFile] = {}  # resolved path (and overrides) -> the seat, made once
    for i, spec in enumerate(specs):
        where = f"{source}: [seats] {key}"
        if isinstance(spec, str) and spec.startswith("@"):
            specs[i] = spec = _seat_file(spec, where, played, folder, files)
        elif isinstance(spec, Mapping) and _names_file(spec.get("preset")):
            # an agent file as the base of a table: the file's rows with these overrides
            overrides = {k: v for k, v in spec.items() if k != "preset"}
            specs[i] = spec = _seat_file(str(spec["preset"]).strip(), where, played, folder,
                                         files, overrides)
        try:
            played.check_seat(spec)
        except ValueError as exc:
            raise ScenarioError(f"{source}: [seats] {exc}") from None
    return tuple(_freeze(s) for s in specs), key == "rotate", tuple(files.values())


def _seat_file(spec: str, where: str, played: Game, folder: str | Path | None,
               files: dict[str, SeatFile], overrides: Mapping[str, Any] | None = None
               ) -> SeatFile:
    """An ``"@path"`` seat read from its file (relative paths: the current folder first,
    then the scenario's ``folder``), with ``overrides`` set on every row of it (a table
    ``{preset = "@path", ...}``); ``files`` holds the seats made so far, by path and
    overrides, so each is made once."""
    given = spec[1:].strip()
    if played.agent_file is None:
        raise ScenarioError(f"{where}: {spec!r} names an agent file, but {played.title} seats "
                            f"cannot be read from files; give a preset or a parameter table")
    if not given:
        raise ScenarioError(f"{where}: '@' needs the agent file's path, e.g. "
                            f"'@reports/baseline-train/strong.toml'")
    path = Path(given).expanduser()
    looked = [path] if path.is_absolute() or folder is None else [path, Path(folder) / path]
    found = next((p for p in looked if p.is_file()), None)
    if found is None:
        raise ScenarioError(f"{where}: agent file {given} not found (looked for "
                            f"{' and '.join(map(str, dict.fromkeys(looked)))})")
    resolved = str(found.resolve())
    overrides = dict(overrides or {})
    key = resolved + (json.dumps(overrides, sort_keys=True, default=str) if overrides else "")
    if key in files:
        return files[key]
    try:
        agent = played.agent_file(found)
    except ValueError as exc:
        raise ScenarioError(f"{where}: {exc}") from None
    label = f"trained({agent.training.get('scenario') or found.stem})"
    # two files, one name: say which file (the same file with other overrides is the same name)
    if any(changed_label(label, f.overrides) == f.label for f in files.values()
           if str(Path(f.path).resolve()) != resolved):
        label = f"trained({given})"
    files[key] = SeatFile.from_agent_file(agent, given=given, overrides=overrides,
                                          label=changed_label(label, overrides))
    return files[key]


@dataclass(frozen=True)
class StrongField:
    """``[strong]``: a strong field trained for the scenario's rules (``nop-sim train``'s
    ``strong.toml``), played in every seat for ``matches`` matches beside the run, so the
    report can say what strong players do under these rules."""

    given: str            # the path as written (without "@")
    file: SeatFile        # the field, read once
    matches: int
    # the side run's event log ([run] log_sample's meaning): none by default, since no
    # section of the report reads it, and logging every 50th match cost its play 8 to 12%
    log_sample: int = 0


def _strong(table: Mapping, source: str, played: Game, folder: str | Path | None,
            matches: int) -> StrongField | None:
    if not table:
        return None
    _check_keys(table, STRONG_KEYS, source, "[strong]")
    where = f"{source}: [strong]"
    if played.policy is None:
        raise ScenarioError(f"{where}: the {played.title} game has no trained fields; remove "
                            f"the table")
    given = table.get("field")
    if not isinstance(given, str) or not given.strip().lstrip("@").strip():
        raise ScenarioError(f"{where} field = {given!r}: give the field's agent file, e.g. "
                            f"field = \"fields/baseline/strong.toml\"")
    spec = given.strip() if given.strip().startswith("@") else "@" + given.strip()
    seat = _seat_file(spec, f"{where} field", played, folder, {})
    n = table.get("matches", matches)
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= RUN_KEYS["matches"][1]:
        raise ScenarioError(f"{where} matches = {n!r} is not allowed: use an integer from 1 "
                            f"to {RUN_KEYS['matches'][1]}")
    log, top = table.get("log_sample", 0), RUN_KEYS["log_sample"][1]
    if isinstance(log, bool) or not isinstance(log, int) or not 0 <= log <= top:
        raise ScenarioError(f"{where} log_sample = {log!r} is not allowed: use an integer from "
                            f"0 (no event log, the default) to {top}")
    return StrongField(spec[1:].strip(), seat, n, log)


def _train(table: Mapping, source: str, played: Game, folder: str | Path | None):
    """``[train]``: the game's training settings (``Game.train_settings``), defaults for
    the keys not given; None for a game without them (which refuses the table). A
    ``base`` that names an agent file (``"@path"``) is given to the game as the seat read
    from it, found as a seat's file is."""
    where = f"{source}: [train]"
    if played.train_settings is None:
        if table:
            raise ScenarioError(f"{where}: the {played.title} game has no training settings; "
                                f"remove the table")
        return None
    if _names_file(table.get("base")):
        table = {**table, "base": _seat_file(table["base"].strip(), f"{where} base", played,
                                             folder, {})}
    try:
        return played.train_settings(table, where)
    except ValueError as exc:  # one line naming the file, the key and what is allowed
        raise ScenarioError(str(exc)) from None


def _names_file(preset) -> bool:
    """A table's ``preset`` that names an agent file (``"@path"``) as its base."""
    return isinstance(preset, str) and preset.strip().startswith("@")


def _freeze(spec):
    return spec if isinstance(spec, (str, SeatFile)) else dict(spec)


def _sweep(table: Mapping, source: str, played: Game):
    table = dict(table)
    mode = table.pop("mode", "grid")
    samples = table.pop("samples", 0)
    second_order = table.pop("second_order", False)
    if mode not in SWEEP_MODES:
        raise ScenarioError(f"{source}: [sweep] mode = {mode!r} is not allowed: use one of "
                            f"{', '.join(map(repr, SWEEP_MODES))}" + did_you_mean(mode, SWEEP_MODES))
    if mode != "grid" and (isinstance(samples, bool) or not isinstance(samples, int)
                           or not 1 <= samples <= 100_000):
        raise ScenarioError(f"{source}: [sweep] samples = {samples!r}: mode {mode!r} needs "
                            f"samples, an integer from 1 to 100000")
    if not isinstance(second_order, bool):
        raise ScenarioError(f"{source}: [sweep] second_order = {second_order!r} must be true "
                            f"or false")
    if second_order and mode != "sobol":
        raise ScenarioError(f"{source}: [sweep] second_order = true needs mode = \"sobol\" "
                            f"(Saltelli's design), not {mode!r}")
    known = played.sweep_fields
    axes = []
    for name, spec in table.items():
        if name not in known:
            raise ScenarioError(f"{source}: [sweep] {name!r} is not a setting that can be swept."
                                + did_you_mean(name, known) + f" Settings: {', '.join(known)}")
        if isinstance(spec, list):
            if not spec:
                raise ScenarioError(f"{source}: [sweep] {name} = [] is empty: give at least one "
                                    f"value")
            axes.append(SweepAxis(name, tuple(spec)))
        elif isinstance(spec, Mapping):
            axes.append(_range_axis(name, spec, source, mode))
        else:
            raise ScenarioError(f"{source}: [sweep] {name} = {spec!r}: give a list of values or "
                                f"a range table {{from = .., to = .., step = ..}}")
    if mode in DESIGN_MODES and not axes:
        raise ScenarioError(f"{source}: [sweep] mode {mode!r} needs at least one setting to vary")
    return tuple(axes), mode, int(samples) if mode != "grid" else 0, second_order


def _range_axis(name: str, spec: Mapping, source: str, mode: str) -> SweepAxis:
    _check_keys(spec, ("from", "to", "step"), source, f"[sweep] {name}")
    if "from" not in spec or "to" not in spec:
        raise ScenarioError(f"{source}: [sweep] {name} range needs from and to, e.g. "
                            f"{{from = 10, to = 30, step = 5}}")
    lo, hi = spec["from"], spec["to"]
    step = spec.get("step")
    for label, v in (("from", lo), ("to", hi), ("step", step)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise ScenarioError(f"{source}: [sweep] {name} {label} = {v!r} must be a number")
    if hi < lo:
        raise ScenarioError(f"{source}: [sweep] {name} range from {lo} to {hi} is empty: "
                            f"'to' must be at least 'from'")
    integer = all(isinstance(v, int) for v in (lo, hi, step) if v is not None)
    if step is None:
        if mode == "grid":
            if not integer:
                raise ScenarioError(f"{source}: [sweep] {name}: a grid over a non-integer "
                                    f"range needs a step")
            step = 1
        else:
            return SweepAxis(name, (), float(lo), float(hi), integer)
    if step <= 0:
        raise ScenarioError(f"{source}: [sweep] {name} step = {step} must be positive")
    n = int(np.floor((hi - lo) / step + 1e-9)) + 1
    if n > 10_000:
        raise ScenarioError(f"{source}: [sweep] {name} range has {n} values; at most 10000")
    values = tuple(lo + i * step for i in range(n))
    return SweepAxis(name, tuple(int(v) for v in values) if integer else values)


def _targets(table: Mapping, source: str, played: Game) -> tuple[Target, ...]:
    """``name = number`` (hit it) or ``name = {max|min|value = number, weight = w}``."""
    known = {**played.targets, **played.strong_targets}
    if table and not known:
        raise ScenarioError(f"{source}: [targets]: the {played.kind} game has no targets; "
                            f"remove the table")
    names = tuple(known)
    _check_keys(table, names, source, "[targets]")
    out = []
    for key, spec in table.items():
        weight = 1.0
        if isinstance(spec, Mapping):
            _check_keys(spec, ("value", "max", "min", "weight"), source, f"[targets] {key}")
            kinds = [k for k in ("value", "max", "min") if k in spec]
            if len(kinds) != 1:
                raise ScenarioError(f"{source}: [targets] {key} = {dict(spec)!r}: give exactly "
                                    f"one of value, max or min, e.g. {{ max = 0.03 }}")
            kind, value = kinds[0], spec[kinds[0]]
            weight = spec.get("weight", 1.0)
            if (isinstance(weight, bool) or not isinstance(weight, (int, float))
                    or not weight > 0):
                raise ScenarioError(f"{source}: [targets] {key} weight = {weight!r} must be a "
                                    f"positive number")
        else:
            kind, value = "value", spec
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ScenarioError(f"{source}: [targets] {key} = {value!r} must be a number "
                                f"({known[key]}), or a table such as "
                                f"{{ max = 0.03, weight = 2 }}")
        out.append(Target(key, kind, float(value), float(weight)))
    return tuple(out)


def _tune(table: Mapping, source: str, played: Game) -> tuple[TuneAxis, ...]:
    """``name = [low, high]`` (integers: an integer range, else a float range) or
    ``name = {choices = [...]}``; a list of anything but two numbers is a list of
    choices too (``fee_to = ["pot", "bank"]``)."""
    known = played.sweep_fields
    axes = []
    for name, spec in table.items():
        if name not in played.settings.field_names():
            raise ScenarioError(f"{source}: [tune] {name!r} is not a {played.title} setting."
                                + did_you_mean(name, known) + f" Settings: {', '.join(known)}")
        if name not in known:
            raise ScenarioError(f"{source}: [tune] {name!r} cannot vary; settings that can: "
                                f"{', '.join(known)}")
        if isinstance(spec, Mapping):
            _check_keys(spec, ("choices",), source, f"[tune] {name}")
            spec = spec.get("choices")
            if not isinstance(spec, list):
                raise ScenarioError(f"{source}: [tune] {name}: choices must be a list")
            axes.append(_choices(name, spec, source))
            continue
        if not isinstance(spec, list):
            raise ScenarioError(f"{source}: [tune] {name} = {spec!r}: give a range [low, high] "
                                f"or a list of choices, e.g. fee_to = [\"pot\", \"bank\"]")
        numbers = [v for v in spec if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if len(spec) == 2 and len(numbers) == 2:
            low, high = spec
            if low > high:
                raise ScenarioError(f"{source}: [tune] {name} = [{low}, {high}]: the range's "
                                    f"low end is above its high end; write [{high}, {low}]")
            if low == high:
                raise ScenarioError(f"{source}: [tune] {name} = [{low}, {high}] holds one "
                                    f"value: set it in [game] instead")
            kind = "int" if all(isinstance(v, int) for v in spec) else "float"
            axes.append(TuneAxis(name, kind, low, high))
        else:
            axes.append(_choices(name, spec, source))
    return tuple(axes)


def _choices(name: str, spec: list, source: str) -> TuneAxis:
    if not spec:
        raise ScenarioError(f"{source}: [tune] {name} = [] has no choices: give at least two "
                            f"values, or a range [low, high]")
    if len(set(map(repr, spec))) < 2:
        raise ScenarioError(f"{source}: [tune] {name} = {spec!r} gives one choice: set it in "
                            f"[game] instead")
    if any(isinstance(v, (list, dict)) for v in spec):
        raise ScenarioError(f"{source}: [tune] {name}: each choice must be a number, text or "
                            f"true/false, got {spec!r}")
    return TuneAxis(name, "choice", choices=tuple(spec))
