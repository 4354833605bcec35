"""Ordered Hand agents as rows of a parameter table (the kernels read the rows).

Presets
-------
``random``
    Uniform over the legal moves (every block that beats the middle, check,
    and Bet when allowed) and over the insert positions; answers a Bet
    with a random real one-card move (a card to one of the other positions,
    uniformly; none when it holds one card) and uniformly Fold, Call (making
    that move) or Raise (when a block beats the middle after it).
``low``
    Plays the weakest block that beats the middle; inserts drawn cards at the
    end; never bets; raises a Bet when it can, else folds.
``high``
    Plays the block with the most cards (to shed fast; the weakest of those);
    inserts at the end; otherwise as ``low``.
``builder``
    Inserts each drawn card next to a card of its rank, of a neighbouring rank
    or of its suit, never splitting a group; plays like ``high``.
``bettor``
    Bets whenever it holds a block that beats a non-empty middle, then plays
    the weakest block that still beats it; builds like ``builder``.
``raiser``
    The caller/raiser: answers a Bet by raising when a block beats the middle
    after a real one-card move (R14: when one already does, the first move
    after which its strongest block is as strong as before; else a card moved
    next to a card of its rank), else calls with the first such move tried,
    or with none; plays like ``low`` and builds.

Every preset except ``random`` plays a block that empties its sequence when it
has one.

A parameterised answer to a Bet, ``respond = "chance"``, is what training
searches (:mod:`nop_sim.games.ordered_hand.policy`): raise with ``raise_prob``
when a raise is found, else call with ``call_prob`` (moving a card when
``call_move``: the first move the raise search tried), else fold. The fixed
answers are its corners: ``fold`` is (0, 0, off), ``raise_else_fold`` (1, 0,
off), ``raise_else_call`` (1, 1, on); their rows carry those values, so a
preset's row plays the same with ``respond`` set to ``chance``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from nop_sim.core.errors import did_you_mean
from nop_sim.games.ordered_hand.kernels import play as K

__all__ = ["PRESETS", "OrderedAgent", "agent_from_spec", "agent_table", "resolve_agents"]

_PLAY = {"random": K.PLAY_RANDOM, "low": K.PLAY_LOW, "high": K.PLAY_HIGH, "strong": K.PLAY_STRONG}
_INSERT = {"random": K.INSERT_RANDOM, "end": K.INSERT_END, "builder": K.INSERT_BUILDER}
_RESPOND = {
    "random": K.RESPOND_RANDOM,
    "fold": K.RESPOND_FOLD,
    "raise_else_call": K.RESPOND_RAISE_ELSE_CALL,
    "raise_else_fold": K.RESPOND_RAISE_ELSE_FOLD,
    "chance": K.RESPOND_CHANCE,
}
# (raise_prob, call_prob, call_move) a fixed answer plays as under "chance"
_RESPOND_AS_CHANCE = {"random": (1.0, 1.0, 1.0), "fold": (0.0, 0.0, 0.0),
                      "raise_else_call": (1.0, 1.0, 1.0), "raise_else_fold": (1.0, 0.0, 0.0)}


@dataclass(frozen=True)
class OrderedAgent:
    """One policy; :meth:`row` turns it into the kernels' parameter row.

    Parameters
    ----------
    play : {"random", "low", "high", "strong"}
    insert : {"random", "end", "builder"}
    check_prob : float in [0, 1], chance to check when a play exists
    bet : bool, bet when holding a block that beats a non-empty middle
    bet_prob : float in [0, 1], chance to bet when ``bet`` applies
    respond : {"random", "fold", "raise_else_call", "raise_else_fold", "chance"}
    take_win : bool, always play a block that empties the sequence
    raise_prob, call_prob : float in [0, 1], read under ``respond = "chance"``: the
        chance to raise when a raise is found, else to call (else fold)
    call_move : bool, read under ``respond = "chance"``: a call moves a card
    """

    play: str = "low"
    insert: str = "end"
    check_prob: float = 0.0
    bet: bool = False
    bet_prob: float = 1.0
    respond: str = "raise_else_fold"
    take_win: bool = True
    raise_prob: float = 1.0
    call_prob: float = 0.0
    call_move: bool = False

    def __post_init__(self) -> None:
        for name, table in (("play", _PLAY), ("insert", _INSERT), ("respond", _RESPOND)):
            value = getattr(self, name)
            if value not in table:
                raise ValueError(
                    f"agent {name}={value!r} is not allowed: use one of {', '.join(table)}"
                )
        for name in ("check_prob", "bet_prob", "raise_prob", "call_prob"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
                raise ValueError(f"agent {name}={value!r} is not allowed: use a number in [0, 1]")

    def row(self) -> np.ndarray:
        """float64 (N_AGENT_PARAMS,) row of the parameter table."""
        out = np.zeros(K.N_AGENT_PARAMS, dtype=np.float64)
        out[K.A_PLAY] = _PLAY[self.play]
        out[K.A_CHECK_PROB] = self.check_prob
        out[K.A_INSERT] = _INSERT[self.insert]
        out[K.A_BET] = 1.0 if self.bet else 0.0
        out[K.A_BET_PROB] = self.bet_prob
        out[K.A_RESPOND] = _RESPOND[self.respond]
        out[K.A_TAKE_WIN] = 1.0 if self.take_win else 0.0
        chance = ((self.raise_prob, self.call_prob, 1.0 if self.call_move else 0.0)
                  if self.respond == "chance" else _RESPOND_AS_CHANCE[self.respond])
        out[K.A_RAISE_PROB], out[K.A_CALL_PROB], out[K.A_CALL_MOVE] = chance
        return out

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


PRESETS: dict[str, OrderedAgent] = {
    "random": OrderedAgent(play="random", insert="random", respond="random", take_win=False),
    "low": OrderedAgent(play="low", insert="end"),
    "high": OrderedAgent(play="high", insert="end"),
    "builder": OrderedAgent(play="high", insert="builder"),
    "bettor": OrderedAgent(play="low", insert="builder", bet=True, bet_prob=1.0),
    "raiser": OrderedAgent(play="low", insert="builder", respond="raise_else_call"),
}


def agent_from_spec(spec: str | Mapping[str, Any] | OrderedAgent) -> OrderedAgent:
    """A policy from a scenario's seat spec: a preset name, or a table of parameters.

    A table may start from a preset (``{preset = "low", check_prob = 0.2}``);
    its other keys are :class:`OrderedAgent` fields. Raises ValueError naming
    the bad key or value.
    """
    if isinstance(spec, OrderedAgent):
        return spec
    if isinstance(spec, str):
        name = spec.strip().lower()
        if name not in PRESETS:
            raise ValueError(f"unknown Ordered Hand preset {spec!r}.{did_you_mean(name, PRESETS)} "
                             f"Presets: {', '.join(PRESETS)}")
        return PRESETS[name]
    if not isinstance(spec, Mapping):
        raise ValueError(f"{spec!r} is not a preset name or a table of agent parameters")
    rows = getattr(spec, "rows", ())  # a seat read from a mixture file is no one agent
    if len(rows) > 1:
        raise ValueError(f"{getattr(spec, 'label', 'the agent')} (file "
                         f"{getattr(spec, 'path', '?')}) is a mixture of {len(rows)} rows, "
                         f"which plays one row per game (nop-sim run), not one fixed agent")
    params = dict(spec)
    base = agent_from_spec(params.pop("preset", "low")).as_dict()
    known = list(base)
    for key in params:
        if key not in known:
            raise ValueError(f"unknown Ordered Hand agent parameter {key!r}.{did_you_mean(key, known)} "
                             f"Allowed: preset, {', '.join(known)}")
    return OrderedAgent(**{**base, **params})


def resolve_agents(
    agents: str | OrderedAgent | Sequence[str | OrderedAgent], players: int
) -> tuple[list[str], list[OrderedAgent]]:
    """Names and policies for each seat.

    ``agents`` is one preset name or agent for every seat, or one per seat.
    """
    if isinstance(agents, (str, OrderedAgent)):
        agents = [agents] * players
    agents = list(agents)
    if len(agents) != players:
        raise ValueError(f"{len(agents)} agents given for players={players}: give one per seat")
    names, policies = [], []
    for seat, a in enumerate(agents):
        if isinstance(a, OrderedAgent):
            names.append("custom")
            policies.append(a)
        elif isinstance(a, str) and a.strip().lower() in PRESETS:
            names.append(a.strip().lower())
            policies.append(PRESETS[a.strip().lower()])
        else:
            raise ValueError(
                f"agent {a!r} for seat {seat} is not allowed: use one of "
                f"{', '.join(PRESETS)} or an OrderedAgent"
            )
    return names, policies


def agent_table(policies: Sequence[OrderedAgent]) -> np.ndarray:
    """float64 (seats, N_AGENT_PARAMS) parameter table, one row per seat."""
    return np.stack([p.row() for p in policies]).astype(np.float64)
