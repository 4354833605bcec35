"""Play batches of three-player Kuhn poker hands, vectorised over the batch (NumPy).

Hand ``i`` is played by the policy rows ``tables[table_of[i]]`` (float ``(3, 48)``,
one per seat: the chance to bet or call at each infoset, :mod:`.tree`) from the
RNG state ``states[i]`` (uint64 ``(4,)``, xoshiro256**, :mod:`nop_sim.kernels.rng`),
which is not modified. The state's first 13 outputs, as uniforms in [0, 1), are
the hand's draws: the first picks the deal (one of the 24, equally likely), and
draw ``1 + node`` decides the action at the decision history ``HISTORIES[node]``
(bet when it is below the acting row's chance). Each decision history has a draw
of its own, so two hands from one state that part at some decision still share
the deal and every later draw of a history they both reach (common random
numbers: a candidate and the field's occupant of its seat meet the same luck).

A hand depends only on its rows and its state: slicing a batch changes nothing.
At most five decisions are made in a hand, so the batch takes five vectorised
steps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nop_sim.games.kuhn.tree import (
    CARDS,
    DEALS,
    HISTORIES,
    N_DEALS,
    N_INFOSETS,
    N_NODES,
    NODE_OF,
    PLAYERS,
    TERMINAL_PAYOFF,
    TERMINALS,
    actor,
)

__all__ = ["Hands", "draws", "play_hands"]

N_DRAWS = 1 + N_NODES
MAX_DECISIONS = max(len(t) for t in TERMINALS)  # 5
_U53 = 2.0 ** -53

# the tree as arrays: the history after each action, decisions 0..11 then terminals
# 12..24 (N_NODES + index in TERMINALS)
_ID = {**NODE_OF, **{t: N_NODES + i for i, t in enumerate(TERMINALS)}}
NEXT = np.array([[_ID[h + "p"], _ID[h + "b"]] for h in HISTORIES], dtype=np.int64)
ACTOR = np.array([actor(h) for h in HISTORIES], dtype=np.int64)


@dataclass(frozen=True)
class Hands:
    """A batch of played hands.

    deal : int64 ``(n,)`` index into :data:`~.tree.DEALS` (each seat's card)
    terminal : int64 ``(n,)`` index into :data:`~.tree.TERMINALS` (the whole history)
    """

    deal: np.ndarray
    terminal: np.ndarray

    @property
    def cards(self) -> np.ndarray:
        """int8 ``(n, 3)``: each seat's card."""
        return DEALS[self.deal]

    @property
    def score(self) -> np.ndarray:
        """int64 ``(n, 3)``: each seat's net chips (they sum to 0)."""
        return TERMINAL_PAYOFF[self.deal, self.terminal]

    def history(self, i: int) -> str:
        """The actions of hand ``i``, OpenSpiel's spelling (``"pbp"``...)."""
        return TERMINALS[int(self.terminal[i])]


def _rotl(x: np.ndarray, k: int) -> np.ndarray:
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


def draws(states: np.ndarray, k: int) -> np.ndarray:
    """float64 ``(n, k)``: the first ``k`` uniforms of each xoshiro256** state (uint64
    ``(n, 4)``, not modified), as :func:`nop_sim.kernels.rng.uniform` draws them."""
    s = np.array(states, dtype=np.uint64).T.copy()   # (4, n): one word per row
    out = np.empty((s.shape[1], k))
    with np.errstate(over="ignore"):
        for j in range(k):
            out[:, j] = (_rotl(s[1] * np.uint64(5), 7) * np.uint64(9) >> np.uint64(11)) * _U53
            t = s[1] << np.uint64(17)
            s[2] ^= s[0]
            s[3] ^= s[1]
            s[1] ^= s[2]
            s[0] ^= s[3]
            s[2] ^= t
            s[3] = _rotl(s[3], 45)
    return out


def play_hands(tables: np.ndarray, table_of: np.ndarray, states: np.ndarray) -> Hands:
    """Play hand ``i`` with the rows ``tables[table_of[i]]`` from ``states[i]`` (see the
    module docstring). ``tables``: float ``(k, 3, 48)``; ``table_of``: int ``(n,)``;
    ``states``: uint64 ``(n, 4)``."""
    tables = np.asarray(tables, dtype=np.float64)
    if tables.ndim != 3 or tables.shape[1:] != (PLAYERS, N_INFOSETS):
        raise ValueError(f"tables must be float64 (k, {PLAYERS}, {N_INFOSETS}), got shape "
                         f"{tables.shape}")
    table_of = np.asarray(table_of, dtype=np.int64)
    n = table_of.shape[0]
    if np.shape(states) != (n, 4):
        raise ValueError(f"states must be uint64 ({n}, 4), got shape {np.shape(states)}")
    u = draws(states, N_DRAWS)
    deal = np.minimum((u[:, 0] * N_DEALS).astype(np.int64), N_DEALS - 1)
    cards = DEALS[deal].astype(np.int64)
    at = np.zeros(n, dtype=np.int64)                    # every hand starts at the root
    for _ in range(MAX_DECISIONS):
        live = np.flatnonzero(at < N_NODES)
        if not live.size:
            break
        node = at[live]
        seat = ACTOR[node]
        chance = tables[table_of[live], seat, node * CARDS + cards[live, seat]]
        bets = u[live, 1 + node] < chance
        at[live] = NEXT[node, bets.astype(np.int64)]
    return Hands(deal=deal, terminal=at - N_NODES)
