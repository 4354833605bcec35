"""Agent files, the same for every game: one ``[agent]`` table, or a mixture of ``[[agent]]``.

A game's agent is a row of parameters; a file holds one row (a plain
``[agent]`` table) or a mixture (``[[agent]]`` tables, each with a
``weight``), and a ``[training]`` table of provenance. The format and the
draw of a mixture's row per match are shared here; what a row may hold is
the game's: every reader and writer takes the game's ``check_row`` (raise
the game's error for a row it refuses) and its parameter names (named in
messages, and the keys a row of numbers is written under).

A game whose seats may play their betting decisions from a table (New Order) lets a
file name one in a ``[betting]`` table: ``table = "strong_table.npz"``, a path relative
to the agent file's folder (:data:`BETTING_KEYS`); the rows stay the seat's other
decisions. The game loads the table (:attr:`AgentFile.betting`).

:func:`draw_rows` draws the row each match of a mixture seat plays,
counter-based, so workers, chunks and Dask draw the same rows; :func:`mixture_rows`
reads back from a run's seats how each row played.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from nop_sim.core.errors import MissingData, toml_problem
from nop_sim.core.stats import rate_columns

if TYPE_CHECKING:  # pandas loads where a function needs it (the kernels' compile does not)
    import pandas as pd

__all__ = ["AgentFile", "BETTING_KEYS", "MIXTURE_COLUMNS", "PLAYS_ALIKE", "checked_bound", "draw_rows",
           "gain_unit", "mixture_rows", "plays_alike", "read_rows", "rules_key",
           "search_gap", "training_text", "write_rows"]


def rules_key(settings) -> str:
    """A hash of the rules alone (not the seats, seed or run size): what a strong field is
    for (``value`` refuses a field trained for other rules; a run plays its ``[strong]``
    field only where the key matches)."""
    blob = json.dumps(dataclasses.asdict(settings), sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


@dataclass(frozen=True)
class AgentFile:
    """An agent file as read by :func:`read_rows`.

    Attributes
    ----------
    rows : the parameter tables, one per row in file order (row 0 first), each
        as written (parameter -> value, optionally ``preset`` as the base),
        without ``weight``; checked by the game's row check
    weights : each row's share of the matches, float, normalised to sum 1
        (``(1.0,)`` for a plain ``[agent]`` file)
    training : the ``[training]`` table, ``{}`` when the file has none
    path : the file read
    betting_table : the betting table its ``[betting]`` table names, resolved against
        the file's folder (None: the seat plays its rows alone)
    betting : what the game loaded from ``betting_table`` (New Order: the abstraction's
        ``[train]`` keys and the weights, float64 (n_infosets, n_actions)); None when
        there is none or the reader loads none
    """

    rows: tuple[dict, ...]
    weights: tuple[float, ...]
    training: dict
    path: str
    betting_table: str | None = None
    betting: Any = None

    @property
    def is_mixture(self) -> bool:
        """More than one row: a seat draws its row per match."""
        return len(self.rows) > 1


# [betting] key -> what it holds
BETTING_KEYS = {"table": "the betting table's file (write_table's .npz), relative to the "
                         "agent file's folder"}

# the two ways of writing the agent in one file, which TOML refuses as a redefinition
_ONE_TABLE = re.compile(r"^[ \t]*\[[ \t]*agent[ \t]*\]", re.MULTILINE)
_ROW_TABLE = re.compile(r"^[ \t]*\[\[[ \t]*agent[ \t]*\]\]", re.MULTILINE)


def read_rows(path: str | Path, check_row: Callable[[Any], Any], names: Sequence[str],
              error: type[Exception] = ValueError, *, betting: bool = False) -> AgentFile:
    """Read an agent file: one ``[agent]`` table, or a mixture of ``[[agent]]`` tables.

    Each ``[[agent]]`` table is one row of the mixture: ``weight`` (a positive
    number, its share of the matches relative to the other rows) and its
    parameters, as an ``[agent]`` table takes them (all of them, or some with
    ``preset`` as the base). A plain ``[agent]`` table is one row of weight 1
    (a ``weight`` there is allowed and means nothing). Raises ``error``, one
    line naming the file (and the table and row), for a missing or unreadable
    file, broken TOML (with tomllib's line and column), ``[agent]`` and
    ``[[agent]]`` in one file, no agent, an empty ``[[agent]]`` array, a row
    without a weight or with a weight that is not a positive number, a row
    ``check_row`` refuses (it raises ``error``), or a ``[training]`` that is not
    a table. ``betting``: whether the game's seats may play a betting table, which a
    ``[betting]`` table names (:data:`BETTING_KEYS`; :attr:`AgentFile.betting_table`);
    a ``[betting]`` table where none may be, with other keys, a ``table`` that is not
    text, or a table file that does not exist raises ``error`` too.
    """
    path = Path(path)
    if not path.is_file():
        raise error(f"agent file {path} not found")
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except OSError as exc:
        raise error(f"agent file {path}: cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise error(f"agent file {path}: not UTF-8 text (a TOML file is)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        if _ONE_TABLE.search(text) and _ROW_TABLE.search(text):
            raise error(
                f"agent file {path}: holds both an [agent] table and [[agent]] tables: write "
                f"one [agent] table (one agent), or only [[agent]] tables (a mixture, each "
                f"with a weight)") from None
        raise error(f"agent file {path}: not valid TOML: {toml_problem(text, exc)}") from None
    agent = data.get("agent")
    if isinstance(agent, Mapping):
        given, mixture = [agent], False
    elif isinstance(agent, list) and not agent:
        raise error(f"agent file {path}: its [[agent]] array is empty (agent = []): give "
                    f"one [agent] table, or one [[agent]] table per row of a mixture, "
                    f"each with a weight")
    elif isinstance(agent, list):
        given, mixture = agent, True
    else:
        raise error(f"agent file {path}: needs an [agent] table of policy parameters "
                    f"({', '.join(names)}), or [[agent]] tables of a "
                    f"mixture, each with a weight")
    rows, weights = [], []
    for k, row in enumerate(given):
        where = f"[[agent]] row {k}" if mixture else "[agent]"
        if not isinstance(row, Mapping):
            raise error(f"agent file {path}: {where} is not a table of parameters, got "
                        f"{row!r}")
        params = dict(row)
        weight = params.pop("weight", None)
        if weight is None and mixture:
            raise error(f"agent file {path}: {where} has no weight: give every [[agent]] "
                        f"row weight = a positive number (its share of the matches, "
                        f"relative to the other rows)")
        if weight is not None:
            _check_weight(weight, f"agent file {path}: {where}", error)
        try:
            check_row(params)
        except error as exc:
            raise error(f"agent file {path}: {where}: {exc}") from None
        rows.append(params)
        weights.append(float(weight) if mixture else 1.0)
    training = data.get("training", {})
    if not isinstance(training, Mapping):
        raise error(f"agent file {path}: training must be a table ([training]), "
                    f"got {training!r}")
    total = math.fsum(weights)
    return AgentFile(rows=tuple(rows), weights=tuple(w / total for w in weights),
                     training=dict(training), path=str(path),
                     betting_table=_betting_table(data, path, betting, error))


def _betting_table(data: Mapping[str, Any], path: Path, allowed: bool,
                   error: type[Exception]) -> str | None:
    """The table file a ``[betting]`` table names, resolved against ``path``'s folder."""
    if "betting" not in data:
        return None
    where = f"agent file {path}: [betting]"
    table = data["betting"]
    if not allowed:
        raise error(f"{where}: this game's seats play no betting tables: remove the "
                    f"[betting] table")
    if not isinstance(table, Mapping):
        raise error(f"{where} must be a table with table = \"<file>.npz\", got {table!r}")
    unknown = sorted(set(table) - set(BETTING_KEYS))
    if unknown:
        raise error(f"{where}: unknown key {unknown[0]!r}; the one key allowed is table "
                    f"({BETTING_KEYS['table']})")
    name = table.get("table")
    if not isinstance(name, str) or not name.strip():
        raise error(f"{where} table = {name!r} is not allowed: give the betting table's "
                    f"file name as text, relative to the agent file's folder")
    found = path.parent / Path(name).expanduser()
    if not found.is_file():
        raise error(f"{where} table = {name!r}: no file {found} (a path relative to the "
                    f"agent file's folder)")
    return str(found)


def _check_weight(weight: Any, where: str, error: type[Exception]) -> None:
    """Refuse a weight that is not a positive, finite number; ``where`` starts the message."""
    if isinstance(weight, bool) or not isinstance(weight, (int, float, np.number)):
        raise error(f"{where}: weight = {weight!r} is not a number: use a positive "
                    f"number (the row's share of the matches)")
    if not (math.isfinite(float(weight)) and float(weight) > 0):
        raise error(f"{where}: weight = {weight!r} is not allowed: use a positive, "
                    f"finite number (the row's share of the matches)")


def write_rows(path: str | Path, rows: Sequence, weights: Sequence[float],
               training: Mapping[str, Any], header: str, check_row: Callable[[Any], Any],
               names: Sequence[str], error: type[Exception] = ValueError,
               betting: Mapping[str, Any] | None = None) -> Path:
    """Write an agent file atomically; :func:`read_rows` reads back the same rows,
    the weights normalised to sum 1, the training table and the betting table.

    ``rows`` holds one parameter table per row (a mapping as an ``[agent]``
    table takes it, or a full row of numbers, written under ``names``);
    ``weights`` one positive number per row (relative shares, written as
    given). One row is written as a plain ``[agent]`` table (no weight), which
    every reader of agent files takes; more as ``[[agent]]`` tables, ``weight``
    first. ``header`` becomes ``#`` comment lines at the top; ``training`` the
    ``[training]`` table (left out when empty); ``betting`` the ``[betting]`` table
    (:data:`BETTING_KEYS`: ``{"table": "strong_table.npz"}``, the file's name relative to
    ``path``'s folder; None: none). Raises ``error`` for rows and
    weights that do not pair up, a weight that is not a positive number, a row
    with a ``weight`` key, or a row ``check_row`` refuses; returns ``path``.
    """
    import tomli_w  # not at import: the kernels' compile must not need it (install_order.py)

    # start-up: nop_sim.reporting loads pandas, which a worker (the engine) never needs
    from nop_sim.reporting.write import atomic_write

    rows, weights = list(rows), list(weights)
    if not rows or len(rows) != len(weights):
        raise error(f"write_agent_file: {len(rows)} rows and {len(weights)} weights: "
                    f"give one weight per row, at least one row")
    tables = []
    for k, (row, weight) in enumerate(zip(rows, weights, strict=True)):
        _check_weight(weight, f"write_agent_file {path}: row {k}", error)
        if isinstance(row, Mapping):
            if "weight" in row:
                raise error(f"write_agent_file {path}: row {k} has a weight key: give "
                            f"the weights as weights")
            table = {key: float(v) if isinstance(v, np.number) else v for key, v in row.items()}
        else:
            table = dict(zip(names, np.asarray(row, dtype=float).tolist(), strict=False))
        try:
            check_row(table if isinstance(row, Mapping) else row)
        except error as exc:
            raise error(f"write_agent_file {path}: row {k}: {exc}") from None
        tables.append(table)
    if betting is not None:
        unknown = sorted(set(betting) - set(BETTING_KEYS))
        name = betting.get("table")
        if unknown or not isinstance(name, str) or not name.strip():
            raise error(f"write_agent_file {path}: betting = {dict(betting)!r} is not "
                        f"allowed: give {{'table': '<file>.npz'}} ({BETTING_KEYS['table']})")
    text = "".join(f"# {line}\n" for line in header.splitlines())
    if len(tables) == 1:
        text += tomli_w.dumps({"agent": tables[0]})
    else:
        text += "\n".join("[[agent]]\n" + tomli_w.dumps({"weight": float(w), **t})
                          for t, w in zip(tables, weights, strict=True))
    if betting is not None:
        text += "\n" + tomli_w.dumps({"betting": {"table": betting["table"]}})
    if training:
        text += "\n" + tomli_w.dumps({"training": dict(training)})
    return atomic_write(path, text)


def draw_rows(weights: Sequence[float], key: tuple[int, ...], match_ids: np.ndarray,
              seat: int) -> np.ndarray:
    """The row of a mixture each match plays at one seat: int64 ``(n,)``, in ``[0, len(weights))``.

    Counter-based: match ``i``'s row depends only on ``key``, ``match_ids[i]``
    and ``seat``, never on the other ids, their order or how they are cut into
    chunks, so workers, chunking and Dask draw the same rows. The rule:

    1. ``base = SeedSequence(key).generate_state(1, uint64)[0]`` (``key``: a
       tuple of non-negative ints naming the draw, e.g. a run's ``(seed, tag)``);
    2. ``h = mix(base + id * 0x9E3779B97F4A7C15)``, then
       ``h = mix(h ^ ((seat + 1) * 0xD1B54A32D192ED69))``, in uint64 arithmetic
       (wrapping), where ``mix`` is splitmix64's finaliser
       (``z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27;
       z *= 0x94D049BB133111EB; z ^= z >> 31``);
    3. ``u = (h >> 11) * 2**-53``, uniform in [0, 1);
    4. the row is the first ``k`` with ``u < cumsum(w)[k] / sum(w)``
       (``searchsorted(..., side="right")``).

    ``weights``: positive numbers (need not sum to 1); ``match_ids``: non-negative
    integers; ``seat``: a non-negative integer.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.size < 1 or not (np.isfinite(w).all() and (w > 0).all()):
        raise ValueError(f"weights must be one positive number per row, got {weights!r}")
    ids = np.asarray(match_ids)
    if ids.ndim != 1 or not (ids.size == 0 or np.issubdtype(ids.dtype, np.integer)):
        raise ValueError(f"match_ids must be a 1-d array of integers, got {ids.dtype} "
                         f"shape {ids.shape}")
    if ids.size and ids.min() < 0:
        raise ValueError(f"match_ids must be non-negative, got {ids.min()}")
    if int(seat) < 0:
        raise ValueError(f"seat must be non-negative, got {seat}")
    base = np.random.SeedSequence([int(k) for k in key]).generate_state(1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        h = _splitmix(base + ids.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
        h = _splitmix(h ^ (np.uint64(int(seat) + 1) * np.uint64(0xD1B54A32D192ED69)))
    u = (h >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    cum = np.cumsum(w)
    cum /= cum[-1]
    return np.minimum(np.searchsorted(cum, u, side="right"), w.size - 1).astype(np.int64)


def _splitmix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, element-wise on uint64 (wrapping)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


MIXTURE_COLUMNS = ["point", "preset", "row", "weight", "seats", "share", "share_low",
                   "share_high", "wins", "win_rate", "ci_low", "ci_high", "fair"]


def mixture_rows(seats: pd.DataFrame | None, records: Sequence[Mapping] | None,
                 players: Callable[[int], int]) -> pd.DataFrame:
    """The rows of every mixture seated (an agent file of several ``[[agent]]`` tables):
    how often each row played and how it did, in any game whose seats table has
    ``mix_row`` (the row a seat played, -1 outside a mixture).

    ``seats``: a run's seats table (``point``, ``preset``, ``mix_row``, ``place``);
    ``records``: its manifest's ``agent_files`` (each with ``label`` and ``weights``);
    ``players(point)``: the point's player count. One row per (point, ``preset``: the
    file's label, ``row``: its row, from 0 in file order): ``weight``, the file's share
    for the row (normalised); ``seats``, the seats that played it; ``share`` of the
    label's seats, with a Wilson interval (``share_low``, ``share_high``), which should
    hold ``weight``; ``wins`` and ``win_rate`` with its Wilson interval (``ci_low``,
    ``ci_high``), beside ``fair`` (1/players). A row never drawn has 0 seats. Empty for
    a run without a mixture, or a store from before mixtures (no ``mix_row`` column).
    """
    import pandas as pd  # not at import: the kernels' compile must not need it (install_order.py)
    s = seats
    if s is None or "mix_row" not in s.columns or not (s["mix_row"] >= 0).any():
        return pd.DataFrame(columns=MIXTURE_COLUMNS)
    missing = [c for c in ("point", "preset", "place") if c not in s.columns]
    if missing:
        raise MissingData(f"the 'seats' table has no column {', '.join(missing)}")
    s = s[s["mix_row"] >= 0]
    weights = {str(f["label"]): f.get("weights") or [1.0] for f in records or []}
    played = (s.assign(win=(s["place"] == 1).astype(int), preset=s["preset"].astype(str))
              .groupby(["point", "preset", "mix_row"], sort=True)
              .agg(seats=("win", "count"), wins=("win", "sum")).reset_index()
              .rename(columns={"mix_row": "row"}))
    # every row of each file, drawn or not, at each point it sits at
    files = played[["point", "preset"]].drop_duplicates()
    every = pd.DataFrame([{"point": p, "preset": label, "row": k, "weight": w}
                          for p, label in files.itertuples(index=False)
                          for k, w in enumerate(weights.get(label, []))],
                         columns=["point", "preset", "row", "weight"])
    g = every.merge(played, on=["point", "preset", "row"], how="outer").fillna(
        {"seats": 0, "wins": 0})
    g = g.astype({"seats": np.int64, "wins": np.int64, "row": np.int64})
    g["of"] = g.groupby(["point", "preset"])["seats"].transform("sum")
    g = rate_columns(g, "seats", "of", "share")
    g = rate_columns(g, "wins", "seats", "win_rate").rename(
        columns={"win_rate_low": "ci_low", "win_rate_high": "ci_high"})
    g["fair"] = 1.0 / np.array([players(p) for p in g["point"]], dtype=float)
    return g.sort_values(["point", "preset", "row"])[MIXTURE_COLUMNS].reset_index(drop=True)


def _number(training: Mapping[str, Any], key: str) -> float | None:
    value = training.get(key)
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return float(value) if ok else None


def checked_bound(training: Mapping[str, Any]
                  ) -> tuple[float, float | None, float | None, str | None] | None:
    """The independent check ``nop-sim exploit`` recorded in a ``[training]`` table when it
    found more than the training (the largest known lower bound): ``(gain, low, high,
    checked_by)`` in the table's unit (:func:`gain_unit`), the last three None where
    missing; None without one."""
    c = _number(training, "checked_exploitability")
    if c is None:
        return None
    return (c, _number(training, "checked_low"), _number(training, "checked_high"),
            training.get("checked_by") or None)


def gain_unit(training: Mapping[str, Any]) -> tuple[str, int]:
    """The unit a ``[training]`` table's gains are in and the decimals they are stated
    with: its ``unit`` and ``unit_digits`` (Kuhn poker: chips, 3), else win-rate points, 1."""
    digits = training.get("unit_digits", 1)
    ok = isinstance(digits, int) and not isinstance(digits, bool) and 0 <= digits <= 9
    return str(training.get("unit") or "points"), digits if ok else 1


def training_text(training: Mapping[str, Any], overrides: Mapping[str, Any] | None = None
                  ) -> str:
    """What an agent file's ``[training]`` table says, in plain words (one clause,
    no final stop): the scenario and matches it was trained on, and its exploitability
    with the 95% interval (win-rate points a best single-seat deviation gains over
    1/players); "unknown" where the table lacks it.

    ``overrides``: the parameters a seat changed on top of the file (``{preset =
    "@file", manipulate = 0}``); the agent played is then not the one trained, so
    the text names the changes and states no exploitability for it.
    """
    def number(key: str) -> float | None:
        return _number(training, key)

    unit, d = gain_unit(training)
    made = []
    if training.get("scenario"):
        made.append(f"for scenario {training['scenario']}")
    matches = number("matches")
    if matches is not None:
        made.append(f"on {int(matches):,} matches")
    iterations = number("iterations")
    if training.get("method") == "cfr" and iterations is not None:
        made.append(f"by regret minimisation ({int(iterations):,} CFR iterations)")
    text = f"trained {' '.join(made)}" if made else "no training record"
    if overrides:
        changed = ", ".join(f"{k}={v}" for k, v in sorted(overrides.items()))
        return (f"{text}, then changed here ({changed}): the file's exploitability was "
                f"measured for the agent as trained and does not apply to this one, so how "
                f"much a seat that deviates from it could gain is unknown")
    e, lo, hi = number("exploitability"), number("exploitability_low"), number(
        "exploitability_high")
    exact, nash = number("exact_gain_per_seat"), number("exact_nash_conv")
    if e is None and exact is not None and nash is not None:  # known exactly, not searched
        return (f"{text}; exactly, the best single-seat deviation gains {exact:.{d}f} {unit} "
                f"over it (NashConv {nash:.{d}f})")
    if e is None:
        return (f"{text}; its exploitability is unknown, so is how much a seat that "
                f"deviates from it could gain")
    text += f"; its exploitability at training: {e:.{d}f} {unit}"
    if lo is not None and hi is not None:
        text += f" (95% interval {lo:.{d}f} to {hi:.{d}f})"
    held, plain = number("exploitability_check_matches"), number(
        "exploitability_effective_matches")
    if held and plain:  # the final check's size, and its plain equivalent
        text += f" on {held:,.0f} held-out matches (as precise as {plain:,.0f} plain)"
    if training.get("converged") is False:
        text += ", training had not converged"
    text += (f" — the best single-seat deviation a fresh search found gains that much "
             f"{'win rate' if unit == 'points' else unit} over it (a lower bound: a stronger "
             f"search may find more)")
    if exact is not None and nash is not None:  # a game that knows its fields exactly
        text += (f"; exactly, the best deviation gains {exact:.{d}f} {unit} (NashConv "
                 f"{nash:.{d}f})")
    checked = checked_bound(training)
    if checked is not None:  # nop-sim exploit found more since: the largest known lower bound
        c, clo, chi, by = checked
        text += (f"; an independent check found more: a deviation gains at least {c:.{d}f} "
                 f"{unit}" + (f" (95% interval {clo:.{d}f} to {chi:.{d}f})"
                              if clo is not None and chi is not None else "")
                 + (f", {by}" if by else ""))
    return text + _checks_text(training.get("checks"), unit, d)


def _checks_text(checks, unit: str, d: int) -> str:
    """The clause on the independent checks ``nop-sim exploit`` kept in ``[training]``
    (``[[training.checks]]``, each ``seed``, ``budget``, ``gain``): how many, their size,
    and the range of their held-out gains; "" for none."""
    try:
        gains = [float(c["gain"]) for c in checks]
        budgets = sorted({int(c["budget"]) for c in checks})
    except (KeyError, TypeError, ValueError):
        return ""
    if not gains:
        return ""
    n = len(gains)
    size = (f"{budgets[0]:,}" if len(budgets) == 1
            else f"{budgets[0]:,} to {budgets[-1]:,}")
    found = (f"{gains[0]:+.{d}f}" if n == 1
             else f"from {min(gains):+.{d}f} to {max(gains):+.{d}f}")
    return (f"; {n} independent check{'s' * (n > 1)} (nop-sim exploit, {size} matches "
            f"each) found {found} {unit} on held-out deals")


# a value's reading where its two picks played alike: exactly 0 with an interval of width 0
# is no estimate near 0 but the best deviation found not using the mechanic at all
PLAYS_ALIKE = "the best deviation found plays the same without it"


def plays_alike(low: float, high: float) -> bool:
    """Whether a value's 95% interval ``(low, high)`` is exactly 0 to 0 (:data:`PLAYS_ALIKE`)."""
    return low == high == 0


def search_gap(table, training: Mapping) -> str | None:
    """A warning when ``nop-sim value``'s searches (``table``: its value.parquet) found
    less than a deviation is known to gain against the field (``training``: strong.toml's
    ``[training]``, with any check ``nop-sim exploit`` recorded): the largest upper end of
    the free picks' gains lies below the largest known lower bound. Then the searches could not play as a strong
    deviator does, and a value of 0 may be what they could not find (issue 20: a
    400,000-match value run's best deviation gained +0.1 against a field a deviation
    beat by 16, and that deviation used manipulation, which the run valued at 0)."""
    if table is None or not len(table) or "gain_full_high" not in table:
        return None
    known = []
    for key, what in (("exploitability_low", "its training's final search"),
                      ("checked_low", "an independent check, nop-sim exploit")):
        try:
            known.append((float(training[key]), what))
        except (KeyError, TypeError, ValueError):
            continue
    if not known:
        return None
    bound, what = max(known)
    found = float(table["gain_full_high"].max())
    if found >= bound:
        return None
    return (f"these searches found no deviation gaining more than {found:+.1f} points (the "
            f"upper end of its 95% interval), where a deviation is known to gain at least "
            f"{bound:.1f} against this field ({what}): they are too small to play as a "
            f"strong deviator would, so a value near 0 says they found no use for the "
            f"mechanic, not that it has none; a larger --budget-matches searches harder")
