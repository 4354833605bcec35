"""Policies as rows of a parameter table (no Python in the hot loop).

Each seat's policy is one float64 row of ``N_AGENT_PARAMS`` numbers; the
columns are named in :data:`nop_sim.games.new_order.types.AGENT_PARAM_NAMES`:

=============  ===============================================================
random         1: every choice uniform over the legal ones (actions, sizes,
               promotions, hedges, discards, mucks, drafts, targets); 0: use
               the parameters below
call_margin    call when judged strength >= pot odds + call_margin
               (negative = looser); strength is the chance to beat all live
               opponents under the LIVE column, wilds and elevation
bet_threshold  bet or raise when strength >= bet_threshold
bluff          probability of betting / raising whatever the strength
station        1: never fold and never bet or raise (calls everything)
bet_fraction   pot-limit / no-limit bet size as a fraction of the pot
manipulate     promote your own category when manipulate * (gain in win
               chance) * pot exceeds the fee (0 = never manipulate)
hedge          hedge when hedge * expected payout exceeds the cost
               (0 = never hedge)
draw_aim       probability of drawing for the plan the column rewards most
               (else the classic "keep pairs, else high cards")
muck           probability of mucking a shown-down hand that cannot win
draft_skill    probability of drafting the most valuable Disruptor (else
               uniformly)
noise          width of uniform noise added to judged strength
manipulate_    promote only once at least this many board cards are dealt
 street        (0 to 3, read to the nearest whole card: 0.4 is 0, 0.6 is 1)
manipulate_    also weigh promoting the category just below the one likeliest
 hurt          to beat you, pushing it down a place: taken when manipulate *
               manipulate_hurt * (its estimated drop in that category's
               chance to win) * pot exceeds the fee and the own promotion
hedge_street   place or move the token only once at least this many board
               cards are dealt (0 to 3, to the nearest whole card)
hedge_move     move a placed token only when hedge * hedge_move * gain
               exceeds the cost (0 = never move once placed)
hedge_own      weight on the chance that your own category wins, in the
               hedge estimate (1 = as judged)
size_strength  pot-limit / no-limit size = pot * (bet_fraction +
               size_strength * (strength - 0.5)); strength here is without
               noise
nl_scale       multiplies the bet size under no-limit (the rules' or the
               no_limit card's)
draft_<id>     draft value of each Disruptor, one parameter per card id
               (``draft_windfall``...), in rough chips; the kernels add
               what depends on the seat (broker for manipulators,
               hedge_fund for hedgers, levy by the number of players)
=============  ===============================================================

Every parameter added after ``noise`` defaults to the value that plays as
the agents did before it existed, so the presets keep their results.

Presets: ``random``, ``station``, ``rock``, ``maniac``, ``manipulator``,
``hedger``, ``balanced``. A seat is a preset name, a mapping of parameters
(optionally with ``preset`` as the base), or a row of numbers.

A trained agent is a TOML file (``nop-sim train`` writes ``strong.toml``)
with an ``[agent]`` table of parameters and an optional ``[training]`` table of
provenance (scenario, matches, exploitability and its interval), summed up in
words by :func:`training_text`. A *mixture* of policies (a PSRO field) is an
array of ``[[agent]]`` tables instead, each with a ``weight``: a seat given
such a file plays one of its rows per match, row ``k`` with probability
``weight_k / sum(weights)``, drawn by :func:`draw_rows`. :func:`read_agent_file`
reads either form (an :class:`AgentFile`), :func:`write_agent_file` writes one,
and :func:`load_agent_file` reads a one-row file as ``(params, training)``.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from nop_sim.core.errors import AgentError, did_you_mean
from nop_sim.games.new_order import types as T

__all__ = ["AgentError", "AgentFile", "DRAFT_VALUES", "PRESETS", "agent_bounds", "agent_row",
           "agent_table", "draw_rows", "load_agent_file", "preset_names", "read_agent_file",
           "training_text", "write_agent_file"]


# What a Disruptor card is worth to a heuristic drafter, in rough chips: the
# defaults of the ``draft_<id>`` parameters; the kernels add what depends on
# the seat (broker for manipulators, hedge_fund for hedgers, levy by the
# number of players).
DRAFT_VALUES = {
    "market_crash": 3.0, "insider_tip": 3.0, "short_sell": 2.0, "windfall": 5.0,
    "levy": 0.0, "bull_run": 1.0, "restore_order": 1.0, "swap_any": 4.0, "purge": 2.0,
    "elevator": 6.0, "wild_deuces": 7.0, "broker": 2.0, "deep_draw": 3.0, "hedge_fund": 1.0,
    "ante_exempt": 3.0, "safety_net": 6.0, "deuces_wild": 1.0, "inflation": 0.5,
    "price_ceiling": 1.0, "double_ante": 0.5, "third_card": 1.0, "frozen_market": 1.0,
    "hedge_boom": 1.0, "inversion": 1.0, "no_limit": 1.0,
}
assert tuple(DRAFT_VALUES) == T.DISRUPTOR_IDS


def _row(**values: float) -> dict[str, float]:
    base = dict(
        random=0.0, call_margin=0.0, bet_threshold=0.7, bluff=0.02, station=0.0,
        bet_fraction=0.6, manipulate=0.0, hedge=0.0, draw_aim=1.0, muck=1.0,
        draft_skill=1.0, noise=0.05,
        manipulate_street=0.0, manipulate_hurt=0.0, hedge_street=0.0, hedge_move=1.0,
        hedge_own=1.0, size_strength=0.0, nl_scale=1.0,
    )
    base.update({f"draft_{card}": v for card, v in DRAFT_VALUES.items()})
    base.update(values)
    return base


PRESETS: dict[str, dict[str, float]] = {
    "random": _row(random=1.0, draw_aim=0.0, muck=0.5, draft_skill=0.0, noise=0.0),
    "station": _row(station=1.0, bet_threshold=2.0, bluff=0.0, call_margin=-1.0,
                    muck=0.0, draft_skill=0.5),
    "rock": _row(call_margin=0.15, bet_threshold=0.8, bluff=0.0, bet_fraction=0.5),
    "maniac": _row(call_margin=-0.25, bet_threshold=0.35, bluff=0.3, bet_fraction=1.0,
                   manipulate=0.5, hedge=0.3, noise=0.2),
    "manipulator": _row(call_margin=0.0, bet_threshold=0.65, bluff=0.05, manipulate=3.0),
    "hedger": _row(call_margin=0.0, bet_threshold=0.65, bluff=0.05, hedge=2.0),
    "balanced": _row(call_margin=0.02, bet_threshold=0.65, bluff=0.05, manipulate=1.0,
                     hedge=1.0),
}

# (lowest, highest) of each parameter
_BOUNDS = {
    "random": (0.0, 1.0), "call_margin": (-1.0, 1.0), "bet_threshold": (0.0, 2.0),
    "bluff": (0.0, 1.0), "station": (0.0, 1.0), "bet_fraction": (0.0, 10.0),
    "manipulate": (0.0, 100.0), "hedge": (0.0, 100.0), "draw_aim": (0.0, 1.0),
    "muck": (0.0, 1.0), "draft_skill": (0.0, 1.0), "noise": (0.0, 1.0),
    "manipulate_street": (0.0, 3.0), "manipulate_hurt": (0.0, 10.0),
    "hedge_street": (0.0, 3.0), "hedge_move": (0.0, 1.0), "hedge_own": (0.0, 5.0),
    "size_strength": (-5.0, 5.0), "nl_scale": (0.1, 5.0),
    **{f"draft_{card}": (-10.0, 20.0) for card in T.DISRUPTOR_IDS},
}
assert tuple(_BOUNDS) == T.AGENT_PARAM_NAMES


def agent_bounds() -> tuple[np.ndarray, np.ndarray]:
    """(lowest, highest) float64 ``(N_AGENT_PARAMS,)`` of each parameter, in row order
    (the box a search over policies stays in)."""
    lo, hi = zip(*(_BOUNDS[name] for name in T.AGENT_PARAM_NAMES), strict=True)
    return np.array(lo, T.PARAM_DTYPE), np.array(hi, T.PARAM_DTYPE)


def preset_names() -> tuple[str, ...]:
    return tuple(PRESETS)


def _preset(name: str) -> dict[str, float]:
    if name not in PRESETS:
        raise AgentError(f"unknown agent preset {name!r}.{did_you_mean(name, PRESETS)} "
                         f"Allowed: {', '.join(PRESETS)}")
    return dict(PRESETS[name])


def agent_row(spec: str | Mapping[str, Any] | Sequence[float]) -> np.ndarray:
    """One seat's parameter row, float64 ``(N_AGENT_PARAMS,)``.

    ``spec`` is a preset name, a mapping of parameter -> value (``preset``
    names the base, default ``balanced``) or a full row of numbers. A seat that
    holds a mixture of rows (a mapping with ``rows``, more than one: a seat read
    from a mixture file) is no one row: it is refused, naming the file.
    """
    if isinstance(spec, str):
        return _preset_row(spec).copy()
    if isinstance(spec, Mapping):
        rows = getattr(spec, "rows", ())
        if len(rows) > 1:
            raise AgentError(
                f"{getattr(spec, 'label', 'the agent')} (file {getattr(spec, 'path', '?')}) is "
                f"a mixture of {len(rows)} rows, which plays one row per match (nop-sim run), "
                f"not one fixed row: seat one row of it, or a one-row agent file")
        spec = dict(spec)
        values = _preset(str(spec.pop("preset", "balanced")))
        for key, value in spec.items():
            if key not in values:
                raise AgentError(
                    f"unknown agent parameter {key!r}.{did_you_mean(key, values)} Allowed: "
                    f"preset, {', '.join(T.AGENT_PARAM_NAMES)}"
                )
            values[key] = value
    else:
        row = np.asarray(spec, dtype=float)
        if row.shape != (T.N_AGENT_PARAMS,):
            raise AgentError(
                f"an agent row needs {T.N_AGENT_PARAMS} numbers "
                f"({', '.join(T.AGENT_PARAM_NAMES)}), got shape {row.shape}"
            )
        values = dict(zip(T.AGENT_PARAM_NAMES, row.tolist(), strict=True))
    out = np.empty(T.N_AGENT_PARAMS, dtype=T.PARAM_DTYPE)
    for i, name in enumerate(T.AGENT_PARAM_NAMES):
        value = values[name]
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
            raise AgentError(f"agent parameter {name} = {value!r} is not a number")
        lo, hi = _BOUNDS[name]
        if not lo <= float(value) <= hi:
            raise AgentError(
                f"agent parameter {name} = {value!r} is out of range: allowed {lo} to {hi}"
            )
        out[i] = float(value)
    return out


@lru_cache(maxsize=64)
def _preset_row(name: str) -> np.ndarray:
    """A preset's checked row, built once (a runner plays thousands of batches)."""
    return agent_row(_preset(name))


def agent_table(seats: str | Sequence, players: int) -> np.ndarray:
    """The parameter table, float64 ``(players, N_AGENT_PARAMS)``.

    ``seats`` is one spec for every seat or a list of one spec per seat.
    """
    if isinstance(seats, (str, Mapping)):
        seats = [seats] * players
    seats = list(seats)
    if len(seats) != players:
        raise AgentError(f"{len(seats)} agents given for {players} players: give one per seat")
    return np.stack([agent_row(s) for s in seats]).astype(T.PARAM_DTYPE)


@dataclass(frozen=True)
class AgentFile:
    """An agent file as read by :func:`read_agent_file`.

    Attributes
    ----------
    rows : the parameter tables, one per row in file order (row 0 first), each
        as written (parameter -> value, optionally ``preset`` as the base),
        without ``weight``; checked by :func:`agent_row`
    weights : each row's share of the matches, float, normalised to sum 1
        (``(1.0,)`` for a plain ``[agent]`` file)
    training : the ``[training]`` table, ``{}`` when the file has none
    path : the file read
    """

    rows: tuple[dict, ...]
    weights: tuple[float, ...]
    training: dict
    path: str

    @property
    def is_mixture(self) -> bool:
        """More than one row: a seat draws its row per match."""
        return len(self.rows) > 1


# the two ways of writing the agent in one file, which TOML refuses as a redefinition
_ONE_TABLE = re.compile(r"^[ \t]*\[[ \t]*agent[ \t]*\]", re.MULTILINE)
_ROW_TABLE = re.compile(r"^[ \t]*\[\[[ \t]*agent[ \t]*\]\]", re.MULTILINE)


def read_agent_file(path: str | Path) -> AgentFile:
    """Read an agent file: one ``[agent]`` table, or a mixture of ``[[agent]]`` tables.

    Each ``[[agent]]`` table is one row of the mixture: ``weight`` (a positive
    number, its share of the matches relative to the other rows) and its
    parameters, as an ``[agent]`` table takes them (all of them, or some with
    ``preset`` as the base). A plain ``[agent]`` table is one row of weight 1
    (a ``weight`` there is allowed and means nothing). Raises
    :class:`AgentError`, one line naming the file (and the table and row), for a
    missing or unreadable file, broken TOML (with tomllib's line and column),
    ``[agent]`` and ``[[agent]]`` in one file, no agent, an empty ``[[agent]]``
    array, a row without a weight or with a weight that is not a positive
    number, a parameter :func:`agent_row` refuses, or a ``[training]`` that is
    not a table.
    """
    path = Path(path)
    if not path.is_file():
        raise AgentError(f"agent file {path} not found")
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except OSError as exc:
        raise AgentError(f"agent file {path}: cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise AgentError(f"agent file {path}: not UTF-8 text (a TOML file is)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        if _ONE_TABLE.search(text) and _ROW_TABLE.search(text):
            raise AgentError(
                f"agent file {path}: holds both an [agent] table and [[agent]] tables: write "
                f"one [agent] table (one agent), or only [[agent]] tables (a mixture, each "
                f"with a weight)") from None
        raise AgentError(f"agent file {path}: not valid TOML: {exc}") from None
    agent = data.get("agent")
    if isinstance(agent, Mapping):
        given, mixture = [agent], False
    elif isinstance(agent, list) and not agent:
        raise AgentError(f"agent file {path}: its [[agent]] array is empty (agent = []): give "
                         f"one [agent] table, or one [[agent]] table per row of a mixture, "
                         f"each with a weight")
    elif isinstance(agent, list):
        given, mixture = agent, True
    else:
        raise AgentError(f"agent file {path}: needs an [agent] table of policy parameters "
                         f"({', '.join(T.AGENT_PARAM_NAMES)}), or [[agent]] tables of a "
                         f"mixture, each with a weight")
    rows, weights = [], []
    for k, row in enumerate(given):
        where = f"[[agent]] row {k}" if mixture else "[agent]"
        if not isinstance(row, Mapping):
            raise AgentError(f"agent file {path}: {where} is not a table of parameters, got "
                             f"{row!r}")
        params = dict(row)
        weight = params.pop("weight", None)
        if weight is None and mixture:
            raise AgentError(f"agent file {path}: {where} has no weight: give every [[agent]] "
                             f"row weight = a positive number (its share of the matches, "
                             f"relative to the other rows)")
        if weight is not None:
            _check_weight(weight, f"agent file {path}: {where}")
        try:
            agent_row(params)
        except AgentError as exc:
            raise AgentError(f"agent file {path}: {where}: {exc}") from None
        rows.append(params)
        weights.append(float(weight) if mixture else 1.0)
    training = data.get("training", {})
    if not isinstance(training, Mapping):
        raise AgentError(f"agent file {path}: training must be a table ([training]), "
                         f"got {training!r}")
    total = math.fsum(weights)
    return AgentFile(rows=tuple(rows), weights=tuple(w / total for w in weights),
                     training=dict(training), path=str(path))


def _check_weight(weight: Any, where: str) -> None:
    """Refuse a weight that is not a positive, finite number; ``where`` starts the message."""
    if isinstance(weight, bool) or not isinstance(weight, (int, float, np.number)):
        raise AgentError(f"{where}: weight = {weight!r} is not a number: use a positive "
                         f"number (the row's share of the matches)")
    if not (math.isfinite(float(weight)) and float(weight) > 0):
        raise AgentError(f"{where}: weight = {weight!r} is not allowed: use a positive, "
                         f"finite number (the row's share of the matches)")


def load_agent_file(path: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Read a one-row agent file: ``(params, training)``.

    ``params`` is the file's ``[agent]`` table (parameter -> value, optionally
    ``preset`` as the base; a one-row ``[[agent]]`` array's row, without its
    weight), checked by :func:`agent_row`; ``training`` is its ``[training]``
    table, ``{}`` when the file has none. Raises :class:`AgentError` as
    :func:`read_agent_file` does, and for a mixture of several rows (read it
    with :func:`read_agent_file`).
    """
    agent = read_agent_file(path)
    if agent.is_mixture:
        raise AgentError(f"agent file {path}: holds a mixture of {len(agent.rows)} rows "
                         f"([[agent]] tables), not one agent: read it with read_agent_file, "
                         f"or seat it (\"@{path}\") to play one row per match")
    return dict(agent.rows[0]), dict(agent.training)


def write_agent_file(path: str | Path, rows: Sequence, weights: Sequence[float],
                     training: Mapping[str, Any], header: str = "") -> Path:
    """Write an agent file atomically; :func:`read_agent_file` reads back the same rows,
    the weights normalised to sum 1, and the training table.

    ``rows`` holds one parameter table per row (a mapping as an ``[agent]``
    table takes it, or a full row of ``N_AGENT_PARAMS`` numbers, written as
    every parameter by name); ``weights`` one positive number per row
    (relative shares, written as given). One row is written as a plain
    ``[agent]`` table (no weight), which every reader of agent files takes;
    more as ``[[agent]]`` tables, ``weight`` first. ``header`` becomes ``#``
    comment lines at the top; ``training`` the ``[training]`` table (left out
    when empty). Raises :class:`AgentError` for rows and weights that do not
    pair up, a weight that is not a positive number, a row with a ``weight``
    key, or a parameter :func:`agent_row` refuses; returns ``path``.
    """
    import tomli_w

    # here, not at the top: the reporting package loads pandas, which the engine (and
    # so every worker) importing this module never needs
    from nop_sim.reporting.write import atomic_write

    rows, weights = list(rows), list(weights)
    if not rows or len(rows) != len(weights):
        raise AgentError(f"write_agent_file: {len(rows)} rows and {len(weights)} weights: "
                         f"give one weight per row, at least one row")
    tables = []
    for k, (row, weight) in enumerate(zip(rows, weights, strict=True)):
        _check_weight(weight, f"write_agent_file {path}: row {k}")
        if isinstance(row, Mapping):
            if "weight" in row:
                raise AgentError(f"write_agent_file {path}: row {k} has a weight key: give "
                                 f"the weights as weights")
            table = {key: float(v) if isinstance(v, np.number) else v for key, v in row.items()}
        else:
            table = dict(zip(T.AGENT_PARAM_NAMES, np.asarray(row, dtype=float).tolist(),
                             strict=False))
        try:
            agent_row(table if isinstance(row, Mapping) else row)
        except AgentError as exc:
            raise AgentError(f"write_agent_file {path}: row {k}: {exc}") from None
        tables.append(table)
    text = "".join(f"# {line}\n" for line in header.splitlines())
    if len(tables) == 1:
        text += tomli_w.dumps({"agent": tables[0]})
    else:
        text += "\n".join("[[agent]]\n" + tomli_w.dumps({"weight": float(w), **t})
                          for t, w in zip(tables, weights, strict=True))
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
        value = training.get(key)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return float(value) if ok else None

    made = []
    if training.get("scenario"):
        made.append(f"for scenario {training['scenario']}")
    matches = number("matches")
    if matches is not None:
        made.append(f"on {int(matches):,} matches")
    text = f"trained {' '.join(made)}" if made else "no training record"
    if overrides:
        changed = ", ".join(f"{k}={v}" for k, v in sorted(overrides.items()))
        return (f"{text}, then changed here ({changed}): the file's exploitability was "
                f"measured for the agent as trained and does not apply to this one, so how "
                f"much a seat that deviates from it could gain is unknown")
    e, lo, hi = number("exploitability"), number("exploitability_low"), number(
        "exploitability_high")
    if e is None:
        return (f"{text}; its exploitability is unknown, so is how much a seat that "
                f"deviates from it could gain")
    text += f"; its exploitability at training: {e:.1f} points"
    if lo is not None and hi is not None:
        text += f" (95% interval {lo:.1f} to {hi:.1f})"
    if training.get("converged") is False:
        text += ", training had not converged"
    return text + (" — the best single-seat deviation a fresh search found gains that much "
                   "win rate over it (a lower bound: a stronger search may find more)")

