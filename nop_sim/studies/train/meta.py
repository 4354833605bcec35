"""The meta-game of a population of policies: payoffs estimated by play, and its solution.

PSRO (Lanctot et al. 2017, "A Unified Game-Theoretic Approach to Multiagent
Reinforcement Learning") keeps a population of policy rows and a mixture
over them. Here the game is symmetric with ``n`` seats, so its payoffs are
a *heuristic payoff table* (Walsh, Das, Tesauro and Kephart 2002): for each
profile -- a multiset of ``n`` population members, seats disregarded -- how
often each member wins, or, for a game that measures strong play by payoff
(:attr:`~nop_sim.games.registry.FieldPlay.score`: Kuhn poker's chips), what each
member scores. Every match whose seats all play population rows is
a sample of its profile (the reference matches of every duel, the checks of
best responses once they join, and matches drawn for the table itself), so
:class:`ProfileTable` gathers them all.

The payoff of member ``i`` against a mixture ``sigma`` is its expected win
chance in one seat when the other ``n - 1`` seats draw from ``sigma``:
``f_i(sigma) = sum over opponent tuples (a, b, ...) of sigma_a sigma_b ...
u(i | {i, a, b, ...})``, where ``u`` is the per-seat win chance (or payoff) of
``i`` in that profile, estimated from its matches with a prior of ``prior``
matches at the fair share: what a seat gets on average over every match the
table holds (``1/n`` of wins, as every match has one; 0 chips in a zero-sum
game); a profile never played reads the fair share. The
mixture is the least-regret point found (:func:`solve`): Nash's function
minimised over the simplex from several starts, one of them replicator
dynamics' time average.

The solution is an approximate equilibrium *of the estimated table*; what
the designer reads is measured differently: a best-response search against
the mixture, in the full policy space, on fresh matches (:mod:`.trainer`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

__all__ = ["ProfileTable", "payoffs", "regret", "solve"]


class ProfileTable:
    """Matches of profiles of population members: ``{sorted member tuple: [matches,
    wins (or payoffs) of each distinct member, in tuple order]}``."""

    def __init__(self, players: int, stats: dict | None = None):
        self.players = players
        self.stats: dict[tuple[int, ...], np.ndarray] = dict(stats or {})

    def add(self, members: np.ndarray, outcome: np.ndarray) -> None:
        """Record matches: ``members`` int ``(m, players)`` the population member in each
        seat; ``outcome`` either int ``(m,)``, the seat that won (-1 for none), or float
        ``(m, players)``, each seat's payoff (a game measured by payoff)."""
        members = np.asarray(members, np.int64)
        if members.size == 0:
            return
        outcome = np.asarray(outcome)
        if outcome.ndim == 2:     # payoffs: each seat's, summed per member below
            pay = outcome.astype(float)
        else:                     # a win: 1 for the winner's seat
            winner_seat = outcome.astype(np.int64)
            pay = (np.arange(self.players)[None, :] == winner_seat[:, None]).astype(float)
        keys = np.sort(members, axis=1)
        uniq, inv = np.unique(keys, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        for j, key in enumerate(map(tuple, uniq.tolist())):
            rows = inv == j
            st = self.stats.setdefault(key, np.zeros(1 + self.players))
            st[0] += rows.sum()
            for pos, member in enumerate(key):
                if pos == 0 or key[pos - 1] != member:
                    st[1 + pos] += pay[rows][members[rows] == member].sum()

    def absorb(self, other: ProfileTable, ids) -> None:
        """Add ``other``'s matches, its member ``m`` being member ``ids[m]`` here (a pool
        of several trainings' populations: :mod:`.pooled`); members given one id count as
        one."""
        ids = np.asarray(ids, np.int64)
        for key, st in other.stats.items():
            new = tuple(sorted(int(ids[m]) for m in key))
            out = self.stats.setdefault(new, np.zeros(1 + self.players))
            out[0] += st[0]
            for pos, member in enumerate(key):
                if pos == 0 or key[pos - 1] != member:  # a member's wins sit at its first seat
                    out[1 + new.index(int(ids[member]))] += st[1 + pos]

    def matches(self) -> int:
        return int(sum(st[0] for st in self.stats.values()))

    def fair(self) -> float:
        """What a seat gets on average over every match held: the prior's centre (``1/n``
        of wins, every match having one winner; ``1/n`` with no match)."""
        played = sum(st[0] for st in self.stats.values())
        if not played:
            return 1.0 / self.players
        return float(sum(st[1:].sum() for st in self.stats.values())) / (played * self.players)

    def tensor(self, members: list[int], prior: float = 2.0) -> np.ndarray:
        """``U`` of shape ``(S,) * players``: ``U[i, a, b, ...]`` the per-seat win chance
        (or payoff) of ``members[i]`` against ``members[a], members[b], ...``."""
        n, s = self.players, len(members)
        idx = np.indices((s,) * n).reshape(n, -1).T
        pop = np.asarray(members, np.int64)[idx]
        keys = np.sort(pop, axis=1)
        uniq, inv = np.unique(keys, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        focal = pop[:, 0]
        out = np.empty(len(idx))
        fair = self.fair()
        for j, key in enumerate(map(tuple, uniq.tolist())):
            rows = np.flatnonzero(inv == j)
            st = self.stats.get(key)
            for member in set(key):
                mult = key.count(member)
                pos = key.index(member)
                wins = 0.0 if st is None else st[1 + pos]
                played = 0.0 if st is None else st[0]
                u = (wins + prior * fair * mult) / (played + prior) / mult
                out[rows[focal[rows] == member]] = u
        return out.reshape((s,) * n)

    def to_json(self) -> list:
        return [[list(k), v.tolist()] for k, v in sorted(self.stats.items())]

    @classmethod
    def from_json(cls, players: int, data: list) -> ProfileTable:
        return cls(players, {tuple(k): np.asarray(v, float) for k, v in data})


def payoffs(u: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """``f_i(sigma)`` of every member of the tensor ``u``."""
    out = u
    for _ in range(u.ndim - 1):
        out = out @ sigma
    return out


def regret(u: np.ndarray, sigma: np.ndarray) -> float:
    """What the best member gains over the mixture against the mixture (win chance, or
    payoff)."""
    f = payoffs(u, sigma)
    return float(f.max() - f @ sigma)


def solve(u: np.ndarray, floor: float = 0.02, starts: int = 8, seed: int = 0) -> np.ndarray:
    """A symmetric mixture of the meta-game ``u`` with the least regret found.

    An equilibrium is a mixture no member beats: its regret (:func:`regret`) is 0. The
    mixture minimises Nash's function, the sum of the squared positive gains
    ``max(0, f_i - f . sigma) ** 2`` (zero exactly at an equilibrium), over the simplex
    (a softmax of free logits, scipy's L-BFGS-B) from ``starts`` points: the uniform
    mixture, replicator dynamics' time average (:func:`replicator`) and random logits
    (seeded by ``seed``); the least regret wins. Weights below ``floor`` are dropped (the
    rest renormalised, or polished again over what is left, whichever leaves less regret)
    when that costs at most a tenth of a point of regret (else only those below 0.001).
    Replicator dynamics alone left 2 to 7 points of regret in a 2M-match training's own
    tables: a member of the population beat the field by that much, and the next round's
    search found it again instead of something new.
    """
    s = u.shape[0]
    if s == 1:
        return np.ones(1)
    rep = replicator(u)
    rng = np.random.default_rng(seed)
    firsts = [np.zeros(s), np.log(np.maximum(rep, 1e-6))]
    firsts += [rng.normal(0.0, 2.0, s) for _ in range(max(0, starts - 2))]
    best = min([rep, *(_nash_min(u, z) for z in firsts)], key=lambda x: regret(u, x))
    kept = best >= floor
    if kept.all():
        return best
    dropped = np.where(kept, best, 0.0) / best[kept].sum()
    polished = _nash_min(u, np.log(best[kept]), kept)
    floored = min([dropped, polished], key=lambda x: regret(u, x))
    if regret(u, floored) <= regret(u, best) + 0.001:
        return floored
    trace = np.where(best >= 0.001, best, 0.0)  # a softmax is never exactly 0
    return trace / trace.sum()


def _nash_min(u: np.ndarray, z0: np.ndarray, support: np.ndarray | None = None
              ) -> np.ndarray:
    """A local minimum of Nash's function from the logits ``z0``, over mixtures of the
    members in ``support`` (a boolean mask; default: all): the others weigh 0, but their
    gains count."""
    from scipy.optimize import minimize  # here: scipy.optimize loads slowly; a solve needs it

    support = np.ones(u.shape[0], bool) if support is None else support

    def mix(z):
        x = np.zeros(u.shape[0])
        x[support] = np.exp(z - z.max())
        return x / x.sum()

    def nash(z):
        x = mix(z)
        f = payoffs(u, x)
        return float(np.sum(np.maximum(0.0, f - f @ x) ** 2))

    return mix(minimize(nash, z0, method="L-BFGS-B").x)


def replicator(u: np.ndarray, iterations: int = 4000, rate: float = 40.0) -> np.ndarray:
    """Replicator dynamics' time average, a first guess for :func:`solve`.

    From the uniform mixture, ``sigma <- sigma * exp(rate * (f - f . sigma))``,
    renormalised, with a little mutation (1e-4) so that no member dies for good
    on noise; the answer is the mean of the second half of the iterates.
    """
    s = u.shape[0]
    sigma = np.full(s, 1.0 / s)
    mean = np.zeros(s)
    half = iterations // 2
    for t in range(iterations):
        f = payoffs(u, sigma)
        sigma = sigma * np.exp(np.clip(rate * (f - f @ sigma), -50, 50))
        sigma = 0.9999 * sigma / sigma.sum() + 1e-4 / s
        if t >= half:
            mean += sigma
    return mean / (iterations - half)


def max_members(players: int, cells: int = 2_000_000) -> int:
    """How many members a meta-game of ``players`` seats may hold: its tensor has
    ``members ** players`` cells."""
    return max(2, min(16, int(math.floor(cells ** (1.0 / players)))))


def profiles_of(members: list[int], players: int) -> list[tuple[int, ...]]:
    """Every profile (sorted multiset) of ``members`` in ``players`` seats."""
    return [tuple(p) for p in itertools.combinations_with_replacement(sorted(members), players)]
