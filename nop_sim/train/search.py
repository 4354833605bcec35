"""The best single-seat deviation against a field: CMA-ES with racing, then a fresh check.

Why CMA-ES (the ``cma`` package, Hansen's reference implementation): the
policy is a few dozen continuous parameters whose win rate is noisy, not
differentiable, and shaped by interactions (a bet threshold is worth what
the call margin lets it be). CMA-ES learns those couplings in its
covariance, needs only a ranking of each generation, and is robust to
noise; ``cma`` is a small pure-numpy package with an ask/tell interface
that lets one generation's candidates play as one engine batch and takes
our own random generator, so a seed fixes the search. Optuna's CMA sampler
wraps the same algorithm behind a study and storage layer we do not need.

One search:

1. Each generation, CMA-ES proposes ``popsize`` candidates. They race
   (successive halving): all of them and the reference play the first
   stage's matches on common seeds, the better half plays the next stage's
   new matches, and so on. A candidate's fitness is its mean paired gain
   over the matches it played, so the leaders are judged on the most.
2. The best generation leaders, CMA-ES's final mean and the rows the caller
   knows beat similar fields (the trainer's last best responses) go to a
   selection race on fresh seeds; its winner is the deviation found. (Not deviating
   is the reference every race measures against, so a gain below 0 means
   the search found nothing better than the field.)
3. The deviation is checked on fresh seeds again, in batches, until its
   gain's 95% interval lies above or below ``epsilon`` or the check's
   budget ends: the unbiased estimate the stopping rule reads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from nop_sim.stats import mean_interval, wilson_interval
from nop_sim.train.play import Duel, Engine, duel
from nop_sim.train.space import Space

__all__ = ["SearchConfig", "SearchResult", "best_response", "check_gain"]


@dataclass(frozen=True)
class SearchConfig:
    """How much one search plays (match counts are rounded up to whole rotations)."""

    generations: int = 10
    popsize: int = 0            # 0: CMA-ES's default, 4 + 3 ln(dimension)
    sigma0: float = 0.25        # first step size, in the unit cube of the space
    race: tuple[int, ...] = (48, 96, 192)   # new matches of each racing stage
    pool: int = 3               # generation leaders that go to the selection race
    select: int = 768           # matches of the selection race
    check_batch: int = 1536     # matches per batch of the final check
    check_max: int = 12288      # most matches of the final check

    def popsize_for(self, dim: int) -> int:
        return self.popsize or 4 + int(3 * math.log(max(dim, 1)))

    def cost(self, dim: int, unit: int) -> int:
        """The most matches one search plays (for budgeting)."""
        lam = self.popsize_for(dim)
        per_gen, alive = 0, lam
        for m in self.race:
            per_gen += (alive + 1) * _round_up(m, unit)
            alive = max(1, math.ceil(alive / 2))
        # the selection race: the leaders, CMA-ES's mean and up to 3 known rows
        select = (min(self.pool, self.generations) + 5) * _round_up(self.select, unit)
        check = 2 * _round_up(self.check_max, unit)
        return self.generations * per_gen + select + check

    def scaled(self, factor: float) -> SearchConfig:
        """The same search with every match count times ``factor`` (at least one rotation)."""
        from dataclasses import replace

        def f(x: int) -> int:
            return max(1, int(round(x * factor)))

        return replace(self, race=tuple(f(m) for m in self.race), select=f(self.select),
                       check_batch=f(self.check_batch), check_max=f(self.check_max))


@dataclass
class SearchResult:
    """The deviation found and its checked gain (win-rate fraction, 95% interval)."""

    row: np.ndarray
    gain: float
    low: float
    high: float
    n_check: int
    matches: int
    history: list[dict] = field(default_factory=list)
    decided: bool = False


def _round_up(n: int, unit: int) -> int:
    return max(unit, -(-int(n) // unit) * unit)


def _cma(x0: np.ndarray, cfg: SearchConfig, key: tuple[int, ...]):
    import cma

    rng = np.random.default_rng(np.random.SeedSequence([*key, 7]))
    opts = {"bounds": [0.0, 1.0], "popsize": cfg.popsize_for(x0.size), "seed": np.nan,
            "randn": lambda *shape: rng.standard_normal(shape), "verbose": -9,
            "verb_log": 0, "verb_disp": 0, "tolflatfitness": 10**9, "tolfun": 0,
            "tolx": 0, "tolstagnation": 10**9, "maxiter": 10**9}
    # a start on a bound (e.g. hedge = 0) is moved just inside: the bound transform needs it
    x0 = np.clip(x0, 1e-3, 1 - 1e-3)
    return cma.CMAEvolutionStrategy(x0.tolist(), cfg.sigma0, opts)


def _row_record(space: Space, row: np.ndarray, prefix: str = "p_") -> dict:
    idx = space.index()
    return {prefix + n: float(row[i]) for n, i in zip(space.names, idx, strict=True)}


def _gain_stats(gains: np.ndarray) -> dict:
    s = mean_interval(gains)
    return {"gain": s["mean"], "gain_low": s["ci_low"], "gain_high": s["ci_high"]}


def best_response(engine: Engine, settings, space: Space, field_tables: np.ndarray,
                  start: np.ndarray, key: tuple[int, ...], cfg: SearchConfig,
                  epsilon: float, tag: dict | None = None,
                  known: np.ndarray | None = None) -> SearchResult:
    """Search the best row to put in one seat of ``field_tables`` (see :mod:`.play`).

    start : the row the search starts from (its pinned parameters kept)
    known : rows that beat similar fields before (e.g. the last best responses); they
        join the selection race, so a search that finds nothing better cannot hide them
    key : names every seed of this search (``(seed, round, ...)``)
    epsilon : the gain (win-rate fraction) the final check decides against
    tag : columns added to every history record (e.g. ``{"round": 3}``)
    """
    tag = dict(tag or {})
    base = space.pin(start)
    players, n_rot = field_tables.shape[1], field_tables.shape[0]
    unit = players * n_rot
    es = _cma(space.to_unit(base), cfg, key)
    history: list[dict] = []
    matches = 0
    leaders: list[tuple[float, np.ndarray]] = []
    for gen in range(cfg.generations):
        units = np.asarray(es.ask())
        rows = space.to_rows(units, base)
        alive = np.arange(len(rows))
        sums = np.zeros(len(rows))
        counts = np.zeros(len(rows))
        wins = np.zeros(len(rows))
        for stage, m in enumerate(cfg.race):
            n = _round_up(m, unit)
            d = duel(engine, settings, field_tables, rows[alive], n, (*key, gen, stage))
            matches += d.matches
            g = d.gain()
            sums[alive] += g.sum(axis=1)
            wins[alive] += d.won.sum(axis=1)
            counts[alive] += n
            if stage + 1 < len(cfg.race):
                means = sums[alive] / counts[alive]
                keep = max(1, math.ceil(len(alive) / 2))
                alive = alive[np.argsort(-means, kind="stable")[:keep]]
        fitness = sums / counts
        es.tell(units.tolist(), (-fitness).tolist())
        best = int(np.argmax(fitness))
        leaders.append((float(fitness[best]), rows[best]))
        for c in range(len(rows)):
            history.append({**tag, "phase": "search", "generation": gen, "candidate": c,
                            "matches": int(counts[c]), "wins": int(wins[c]),
                            "win_rate": wins[c] / counts[c], "gain": fitness[c],
                            "leader": c == best, **_row_record(space, rows[c])})
    # selection race: generation leaders and CMA-ES's mean, on fresh seeds
    leaders.sort(key=lambda t: -t[0])
    pool = [r for _, r in leaders[:cfg.pool]]
    pool.append(space.to_rows(np.asarray(es.result.xfavorite)[None, :], base)[0])
    if known is not None and len(known):
        pool.extend(space.pin(row) for row in np.atleast_2d(known))
    pool = np.stack(pool)
    n = _round_up(cfg.select, unit)
    d = duel(engine, settings, field_tables, pool, n, (*key, 10**6))
    matches += d.matches
    g = d.gain()
    pick = int(np.argmax(g.mean(axis=1)))
    for c in range(len(pool)):
        history.append({**tag, "phase": "select", "generation": cfg.generations, "candidate": c,
                        "matches": n, "wins": int(d.won[c].sum()),
                        "win_rate": float(d.won[c].mean()), **_gain_stats(g[c]),
                        "leader": c == pick, **_row_record(space, pool[c])})
    row = pool[pick]
    res = check_gain(engine, settings, field_tables, row, (*key, 10**6 + 1), cfg, epsilon)
    res.matches += matches
    history.append({**tag, "phase": "check", "generation": cfg.generations + 1, "candidate": 0,
                    "matches": res.n_check, "wins": res.history[0]["wins"],
                    "win_rate": res.history[0]["win_rate"], "gain": res.gain,
                    "gain_low": res.low, "gain_high": res.high, "leader": True,
                    **_row_record(space, row)})
    for h in history:  # every row's win rate with its Wilson interval
        lo, hi = wilson_interval(h["wins"], h["matches"])
        h["win_low"], h["win_high"] = float(lo), float(hi)
    res.history = history
    return res


def check_gain(engine: Engine, settings, field_tables: np.ndarray, row: np.ndarray,
               key: tuple[int, ...], cfg: SearchConfig, epsilon: float) -> SearchResult:
    """The gain of ``row`` in one seat of the field over the seat's occupant, on fresh
    seeds, in batches until its 95% interval is above or below ``epsilon`` (or
    ``cfg.check_max`` matches)."""
    unit = field_tables.shape[1] * field_tables.shape[0]
    batch = _round_up(cfg.check_batch, unit)
    most = _round_up(cfg.check_max, unit)
    parts: list[Duel] = []
    n = 0
    decided = False
    while n < most:
        d = duel(engine, settings, field_tables, row[None, :], batch, (*key, len(parts)))
        parts.append(d)
        n += batch
        s = mean_interval(np.concatenate([p.gain()[0] for p in parts]))
        if s["ci_high"] < epsilon or s["ci_low"] > epsilon:
            decided = True
            break
    gains = np.concatenate([p.gain()[0] for p in parts])
    won = np.concatenate([p.won[0] for p in parts])
    s = mean_interval(gains)
    return SearchResult(row=row, gain=s["mean"], low=s["ci_low"], high=s["ci_high"],
                        n_check=n, matches=sum(p.matches for p in parts),
                        history=[{"wins": int(won.sum()), "win_rate": float(won.mean())}],
                        decided=decided)
