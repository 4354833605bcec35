"""Policies as rows of a parameter table (no Python in the hot loop).

Each seat's policy is one float64 row of ``N_AGENT_PARAMS`` numbers; the
columns are named in :data:`nop_sim.types.AGENT_PARAM_NAMES`:

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
with an ``[agent]`` table of parameters, read by :func:`load_agent_file`, and
an optional ``[training]`` table of provenance (scenario, matches,
exploitability and its interval), summed up in words by :func:`training_text`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from nop_sim import types as T
from nop_sim.errors import did_you_mean

__all__ = ["AgentError", "DRAFT_VALUES", "PRESETS", "agent_bounds", "agent_row", "agent_table",
           "load_agent_file", "preset_names", "training_text"]


class AgentError(ValueError):
    """An unknown preset or policy parameter, or a parameter out of range."""


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
    names the base, default ``balanced``) or a full row of numbers.
    """
    if isinstance(spec, str):
        return _preset_row(spec).copy()
    if isinstance(spec, Mapping):
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


def load_agent_file(path: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Read a trained agent file: ``(params, training)``.

    ``params`` is the file's ``[agent]`` table (parameter -> value, optionally
    ``preset`` as the base), checked by :func:`agent_row`; ``training`` is its
    ``[training]`` table, ``{}`` when the file has none. Raises
    :class:`AgentError` naming the file for a missing or unreadable file,
    broken TOML (with tomllib's line and column), a missing ``[agent]`` table
    or a parameter :func:`agent_row` refuses.
    """
    path = Path(path)
    if not path.is_file():
        raise AgentError(f"agent file {path} not found")
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except tomllib.TOMLDecodeError as exc:
        raise AgentError(f"agent file {path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise AgentError(f"agent file {path}: cannot be read: {exc.strerror or exc}") from None
    params = data.get("agent")
    if not isinstance(params, Mapping):
        raise AgentError(f"agent file {path}: needs an [agent] table of policy parameters "
                         f"({', '.join(T.AGENT_PARAM_NAMES)})")
    try:
        agent_row(params)
    except AgentError as exc:
        raise AgentError(f"agent file {path}: [agent] {exc}") from None
    training = data.get("training", {})
    if not isinstance(training, Mapping):
        raise AgentError(f"agent file {path}: training must be a table ([training]), "
                         f"got {training!r}")
    return dict(params), dict(training)


def training_text(training: Mapping[str, Any]) -> str:
    """What an agent file's ``[training]`` table says, in plain words (one clause,
    no final stop): the scenario and matches it was trained on, and its exploitability
    with the 95% interval (win-rate points a best single-seat deviation gains over
    1/players); "unknown" where the table lacks it."""
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

