"""Pooled searches: the best deviation over several searches, and restricted play from it.

One best-response search is a gamble: from the same starts, with the same
budget, two seeds found 0 and 11 points against one field (issue 20). A
deviation that a search in a smaller space finds is still a legal deviation,
so the searches that restricted play runs anyway (one per mechanic, each
with the mechanic switched off) are more starts for the free question too.
A *pooled search* runs the free search and one search per mechanic, then:

1. **Pool.** Each search's best rows (its selection race's leaders), and
   each of them with every asked mechanic switched off (a projection into
   that mechanic's restricted space), form one pool of candidates. Every
   row without mechanic ``m`` is also a legal row, so the rows a restricted
   player may choose from are a part of the free player's: both draw on the
   same searches, the same effort.
2. **Select** on fresh matches, in two stages (every candidate, then each
   group's leaders again): the pick without ``m`` is the best of the rows
   that leave ``m`` switched off, and a first free pick the best of all.
3. **Decide** the free pick among every group's pick, on fresh matches of
   their own as large as the check: each pick is a legal free deviation, so
   the free pick is the best of them, and a value cannot go below 0 because
   the selection ranked a small pool by noise. (``nop-sim value`` pools one
   mechanic at a time, so the free pick is the better of two: where the pick
   without ``m`` wins, the value is 0 exactly.)
4. **Check** every pick on the same fresh matches: the free pick's gain is
   the exploitability found (a lower bound: a larger search may find more),
   and ``value(m)`` = gain(free pick) - gain(pick without m) is a paired
   difference (Jaffe et al. 2012), below 0 only by the check's noise; where
   the free pick is the pick without ``m`` (a mechanic that cannot matter
   among others), the two play alike and its value is 0 exactly.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from nop_sim.core.stats import mean_interval
from nop_sim.studies.train.play import Duel, Engine, Field, duel, effective_matches
from nop_sim.studies.train.search import (
    SearchConfig,
    SearchResult,
    _joined,
    _round_up,
    best_response,
    plays_as_field,
    statement,
    win_intervals,
)
from nop_sim.studies.train.space import Space

__all__ = ["FREE", "Pooled", "pooled_cost", "pooled_search", "restricted"]

FREE = "none"   # the free search's name (no mechanic taken away)
LEADERS = 3     # rows each search brings to the pool
FINALISTS = 4   # rows of each group that race the selection's second stage
LONGEST = 6     # a check played to a precision: at most this many times its size


def _widest(check: Duel, asked: int) -> float:
    """The widest half-width of the values' 95% intervals (win-rate fractions): group
    ``1 + i``'s pick against the free pick, on the check's matches."""
    pay = check.payoff()
    intervals = [mean_interval(check.per_block(pay[0] - pay[1 + i])) for i in range(asked)]
    return max((s["ci_high"] - s["ci_low"]) / 2 for s in intervals)


def restricted(space: Space, mechanic: str) -> Space:
    """``space`` with the mechanic's parameters pinned in every row, and nothing else
    changed: the same coordinates, so a search in it is the free search's equal."""
    return dataclasses.replace(space, fixed={**space.fixed, **space.mechanics[mechanic]})


def pooled_cost(cfg: SearchConfig, space: Space, unit: int, n_starts: int,
                mechanics: int) -> int:
    """The most matches a pooled search over ``mechanics`` mechanics plays."""
    searches = (1 + mechanics) * cfg.cost(space.dim, unit, n_starts,
                                          mechanics=len(space.mechanics), check=False)
    pool = (1 + mechanics) * LEADERS * (1 + mechanics)
    select = ((pool + 1) * _round_up(cfg.select // 2, unit)
              + ((1 + mechanics) * FINALISTS + 1) * _round_up(cfg.select, unit))
    return searches + select + 2 * (2 + mechanics) * _round_up(cfg.check_max, unit)


@dataclass
class Pooled:
    """The picks of a pooled search, checked on the same fresh matches.

    groups : ``FREE`` and each mechanic asked; rows : ``(len(groups), width)`` each
    group's pick (a group's pick may be the free pick itself); check : the picks' duel
    (row ``i`` of ``check.won`` is group ``i``'s pick); searches : name -> the search
    """

    groups: list[str]
    rows: np.ndarray
    check: Duel
    searches: dict[str, SearchResult]
    matches: int
    starts: int
    candidates: int
    history: list[dict] = field(default_factory=list)

    def gain(self, group: str = FREE) -> dict:
        """The group's pick's gain over the field's occupant: mean, ci_low, ci_high
        (win-rate fractions, 95%)."""
        return mean_interval(self.check.block_gain()[self.groups.index(group)])

    def value(self, mechanic: str) -> dict:
        """gain(free pick) - gain(pick without ``mechanic``), paired on the check's matches."""
        pay = self.check.payoff()
        return mean_interval(self.check.per_block(pay[0] - pay[self.groups.index(mechanic)]))

    @property
    def row(self) -> np.ndarray:
        return self.rows[0]

    def result(self) -> SearchResult:
        """The free pick as a :class:`SearchResult`: its checked gain, the search's size."""
        g = self.gain()
        return SearchResult(row=self.row, gain=g["mean"], low=g["ci_low"], high=g["ci_high"],
                            n_check=int(self.check.won.shape[1]), matches=self.matches,
                            history=self.history, decided=True, starts=self.starts,
                            check=self.check, effective=effective_matches(self.check))

    def statement(self) -> str:
        g = self.gain()
        return (statement(g["mean"], g["ci_low"], g["ci_high"], self.matches, self.starts)
                + f" ({len(self.searches)} searches pooled)")


def pooled_search(engine: Engine, settings, space: Space, fld: Field, starts: np.ndarray,
                  key: tuple[int, ...], cfg: SearchConfig, *, mechanics=None,
                  tag: dict | None = None, known: np.ndarray | None = None,
                  switches: bool = False,
                  searches: dict[str, SearchResult] | None = None,
                  precision: float | None = None) -> Pooled:
    """The free search and one per mechanic asked (default: all of the space's), pooled
    and checked (see the module docstring). Every search plays the same seeds (``key``);
    ``searches`` passes ones already run (e.g. the free search a value run shares).
    ``precision`` (a win-rate fraction): the check goes on, in batches of half its size,
    until every value's 95% interval is at most that wide on each side, or it has played
    :data:`LONGEST` times its size; its first batch is the check without it."""
    tag = dict(tag or {})
    asked = list(space.mechanics) if mechanics is None else list(mechanics)
    done = dict(searches or {})
    matches = 0
    for name in [FREE, *asked]:
        if name in done:
            continue
        sub = space if name == FREE else restricted(space, name)
        res = best_response(engine, settings, sub, fld, starts, key, cfg, float("nan"),
                            tag={**tag, "search": name}, known=known,
                            switches=switches and name == FREE, check=False)
        matches += res.matches
        done[name] = res
    used = {name: done[name] for name in [FREE, *asked]}
    history = [h for r in used.values() for h in r.history]
    # 1. the pool: each search's leaders, and each with every asked mechanic switched off
    leaders = np.concatenate([r.pool[:LEADERS] for r in used.values()])
    rows = np.concatenate([leaders, *(space.switched_off(leaders, m) for m in asked)])
    rows = rows[np.sort(np.unique(rows, axis=0, return_index=True)[1])]
    apart = [not plays_as_field(r, space, fld) for r in rows]
    rows = rows[apart] if any(apart) else rows
    members = {FREE: np.arange(len(rows))}
    for m in asked:
        off = space.switched_off(rows, m)
        members[m] = np.flatnonzero(np.all(np.isclose(rows, off), axis=1))
    # 2. the selection: every candidate, then each group's leaders again
    unit = settings.players
    first = duel(engine, settings, fld, rows, _round_up(cfg.select // 2, unit),
                 (*key, 3 * 10**6))
    matches += first.matches
    sums, counts = first.gain().sum(axis=1), np.full(len(rows), first.won.shape[1], float)
    wins = first.won.sum(axis=1)
    finalists = np.unique(np.concatenate(
        [idx[np.argsort(-sums[idx], kind="stable")[:FINALISTS]]
         for idx in members.values() if len(idx)]))
    second = duel(engine, settings, fld, rows[finalists], _round_up(cfg.select, unit),
                  (*key, 3 * 10**6 + 1))
    matches += second.matches
    sums[finalists] += second.gain().sum(axis=1)
    counts[finalists] += second.won.shape[1]
    wins[finalists] += second.won.sum(axis=1)
    means = np.where(np.isin(np.arange(len(rows)), finalists), sums / counts, -np.inf)
    picks = []
    for name in [FREE, *asked]:
        idx = members[name]
        if not len(idx):  # no candidate leaves it off: the restricted search's own pick
            picks.append(space.switched_off(used[name].row[None, :], name)[0])
            continue
        picks.append(rows[idx[np.argmax(means[idx])]])
    for c in range(len(rows)):
        history.append({**tag, "phase": "pool-select", "generation": -2, "candidate": c,
                        "matches": int(counts[c]), "wins": int(wins[c]),
                        "win_rate": float(wins[c] / counts[c]),
                        "gain": float(sums[c] / counts[c]),
                        "leader": bool(np.allclose(rows[c], picks[0]))})
    # 3. the decision: every pick is a legal free deviation, so the free pick is the best
    # of them on fresh matches of their own -- a selection too small to rank the pool
    # once picked a free row that then lost 2.4 points to the pick without bluffing on
    # the check, a value below 0 beyond noise
    picks = np.stack(picks)
    size = _round_up(cfg.check_max, unit)
    decide = duel(engine, settings, fld, picks, size, (*key, 3 * 10**6 + 4))
    matches += decide.matches
    decided = decide.gain().mean(axis=1)
    best = int(np.argmax(decided))
    history.append({**tag, "phase": "pool-decide", "generation": -1, "candidate": best,
                    "search": [FREE, *asked][best], "matches": size,
                    "wins": int(decide.won[best].sum()),
                    "win_rate": float(decide.won[best].mean()),
                    "gain": float(decided[best]), "leader": True})
    picks[0] = picks[best]
    # 4. the check: every pick on the same fresh matches; with ``precision``, more
    # batches until every value asked is known to it (or the check is LONGEST times its size)
    parts = [duel(engine, settings, fld, picks, size, (*key, 3 * 10**6 + 2))]
    if precision is not None and asked:
        batch = _round_up(size // 2, unit)
        while (_widest(_joined(parts), len(asked)) > precision
               and sum(p.won.shape[1] for p in parts) + batch <= LONGEST * size):
            parts.append(duel(engine, settings, fld, picks, batch,
                              (*key, 3 * 10**6 + 3, len(parts))))
    check = _joined(parts) if len(parts) > 1 else parts[0]
    matches += sum(p.matches for p in parts)
    g = check.block_gain()
    for i, name in enumerate([FREE, *asked]):
        s = mean_interval(g[i])
        history.append({**tag, "phase": "pool-check", "generation": -1, "candidate": i,
                        "search": name, "matches": int(check.won.shape[1]),
                        "wins": int(check.won[i].sum()),
                        "win_rate": float(check.won[i].mean()), "gain": s["mean"],
                        "gain_low": s["ci_low"], "gain_high": s["ci_high"], "leader": i == 0})
    return Pooled(groups=[FREE, *asked], rows=picks, check=check, searches=used,
                  matches=matches, starts=sum(r.starts for r in used.values()),
                  candidates=len(rows), history=win_intervals(history))
