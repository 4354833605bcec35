"""The best single-seat deviation against a field: starts, CMA-ES, racing and a polish.

Why CMA-ES (the ``cma`` package, Hansen's reference implementation): the
policy is a few dozen continuous parameters whose win rate is noisy, not
differentiable, and shaped by interactions (a bet threshold is worth what
the call margin lets it be). CMA-ES learns those couplings in its
covariance, needs only a ranking of each generation, and is robust to
noise; ``cma`` is a small pure-numpy package with an ask/tell interface
that lets one generation's candidates play as one engine batch and takes
our own random generator, so a seed fixes the search.

One search must be able to find a deviation anywhere in the policy box
(issue 20: a deviation far from the field, in a corner a search from the
field with a small step never reached, won 18 points). So:

1. **Screen the starts.** The caller's starts (the field's rows, every
   preset, every earlier best response), each again with every mechanic of
   the game (:attr:`.space.Space.mechanics`) switched off (corners of the box), and
   ``random_starts`` points drawn uniformly over the whole box race together
   (successive halving on common seeds: all play the first stage, the better
   half the next, ...).
2. **CMA-ES with restarts of a growing population** (IPOP, Auger and Hansen
   2005): run ``j`` starts from the ``j``-th best screened start with
   ``popsize * 2**j`` candidates a generation for ``generations / 2**j``
   generations, so each run costs about the same; the first step
   ``sigma0`` is a good part of the unit cube's width. Each generation's
   candidates race as in 1; a candidate's fitness is its mean paired gain.
   Many generations of few matches each, with a diagonal covariance
   (sep-CMA-ES, Ros and Hansen 2008: it learns a step per parameter in a
   few generations where a full covariance in 40 dimensions needs
   hundreds): against one field, at 200,000 matches a search, 8 generations
   of the full CMA-ES found deviations gaining 2.1 points on average over
   4 seeds, 48 generations of the diagonal one 9.1 (``scripts/search_power.py``).
3. **Select.** Each run's leaders and final mean, the best screened starts
   and the rows the caller knows (``known``) race on fresh seeds; the winner
   is the deviation found. The field's own rows are left out: they are the
   reference, and would "gain" exactly 0 with an interval of width 0.
4. **Polish** it one parameter at a time (a share ``polish`` of the search's
   matches, half by default: the stages before it are half what they were, so
   the search costs what it did). It starts from the pick or from a row of the
   field, whichever gains more on fresh matches (a best response is often the
   field with a few changes; a row of a mixture field is a deviation). A pass
   races every *move* (one searched parameter to its lower or its upper bound,
   ``polish_points``, everything else kept) against the row on common seeds,
   the row playing every stage of the successive halving; the best
   ``polish_keep`` moves that lead it, each and all together, then play the row
   again on fresh matches, and the one whose paired gain over the row is largest
   and ``polish_z`` standard errors above 0 is taken. A pass that takes nothing
   plays twice the matches next time; passes go on while the share lasts.
   Where CMA-ES moves every coordinate at once and judges each candidate on a
   few dozen matches, a move changes one parameter, and common random numbers
   make its difference with the row far less noisy than independent samples
   would (in Kuhn poker, a hand that never reaches the changed infoset plays
   exactly as the row's). A best response of a game of perfect recall is pure,
   a corner of the box, a handful of moves from a good row. Against three-player
   Kuhn poker's uniform field (exact best-deviation gain 0.6875 chips a seat),
   ``nop-sim exploit`` (seeds 7 to 9) found 0.532 at 200,000 matches and 0.538
   at 1,000,000 before the polish (every seed picked the ``always-bet`` preset,
   0.5417), 0.674 and 0.683 after it (98% and 99%); against six trained fields
   (exact gains 0.027 to 0.089 chips, seeds 7 to 11), the exact gain of the pick
   went from below 0 (it lost to the field's own rows) to 75% of the best at
   200,000 matches and 93% at 1,000,000 (98% at 4,000,000, seeds 7 to 9). Against
   New Order's shipped field at 400,000 matches (``scripts/search_power.py``,
   seeds 0 to 5) the mean found went from +3.5 points to +5.9.
5. **Check** it on fresh seeds again, in batches, until its gain's 95%
   interval lies above or below ``epsilon`` or the check's budget ends: the
   unbiased estimate a caller reads. It is a *lower bound* on what the best
   deviation gains: a larger search may find more (:func:`statement`).

Every stage's key derives from the search's ``key``, so a seed fixes the
search; the field's draws come from the same keys (:class:`~.play.Field`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from nop_sim.core.stats import mean_interval, wilson_interval
from nop_sim.games.registry import PolicySpace, policy_of
from nop_sim.studies.train.play import Duel, Engine, Field, duel, effective_matches
from nop_sim.studies.train.space import Space

__all__ = ["SearchConfig", "SearchResult", "best_response", "check_gain", "plays_as_field",
           "statement", "win_intervals"]


MIN_GENERATIONS = 8  # a smaller search plays fewer matches a candidate (SearchConfig.scaled)


@dataclass(frozen=True)
class SearchConfig:
    """How much one search plays (match counts are rounded up to whole seat rotations)."""

    runs: int = 2               # CMA-ES runs; run j has popsize * 2**j candidates
    generations: int = 48       # generations of run 0 (run j: generations / 2**j, at least 1)
    popsize: int = 0            # run 0's; 0: CMA-ES's default, 4 + 3 ln(dimension)
    sigma0: float = 0.3         # first step, in the unit cube (its width is 1)
    random_starts: int = 8      # starts drawn uniformly over the whole box
    # the stages before the polish are half what they were before it: the polish takes
    # half the search, and the search as a whole costs what it did (a training's rounds)
    screen: tuple[int, ...] = (24, 48, 96)  # racing stages of the starts' screen
    race: tuple[int, ...] = (6, 12, 24)     # new matches of each racing stage
    pool: int = 2               # leaders of each run that go to the selection race
    select: int = 384           # matches of the selection race
    check_batch: int = 1536     # matches per batch of the final check
    check_max: int = 12288      # most matches of the final check
    diagonal: bool = True       # sep-CMA-ES: a diagonal covariance (module docstring, 2.)
    polish: float = 0.5         # the polish's share of the search's matches (check aside)
    polish_race: tuple[int, ...] = (6, 12, 24, 48)  # a polish pass's racing stages
    polish_points: tuple[float, ...] = (0.0, 1.0)  # where a move puts its coordinate (unit)
    polish_keep: int = 4        # a pass's best moves confirmed, each and all together
    polish_z: float = 0.5       # a move is taken when its paired gain is this many SEs > 0

    def popsize_for(self, dim: int) -> int:
        return self.popsize or 4 + int(3 * math.log(max(dim, 1)))

    def plan(self, dim: int) -> list[tuple[int, int]]:
        """``(popsize, generations)`` of each CMA-ES run."""
        lam = self.popsize_for(dim)
        return [(lam * 2**j, max(1, self.generations // 2**j)) for j in range(self.runs)]

    def cost(self, dim: int, unit: int, n_starts: int = 20, *, mechanics: int,
             check: bool = True) -> int:
        """The most matches one search plays (for budgeting), with ``n_starts`` starts
        from the caller, each also with each of the game's ``mechanics`` switched off;
        ``check``: with its own final check (a pooled search checks once, for all)."""
        total = _race_cost(n_starts * (1 + mechanics) + self.random_starts, self.screen,
                           unit)
        for lam, gens in self.plan(dim):
            total += gens * _race_cost(lam, self.race, unit)
        n_pool = self.runs * (self.pool + 1) + 3 + 3
        total += (n_pool + 1) * _round_up(self.select, unit)
        total += self.polish_budget(total)
        return total + (2 * _round_up(self.check_max, unit) if check else 0)

    def polish_budget(self, before: int) -> int:
        """The most matches the polish plays after a search that played ``before``: its
        share ``polish`` of the two together."""
        if not 0 <= self.polish < 1:
            raise ValueError(f"SearchConfig.polish is a share in [0, 1), got {self.polish}")
        return int(before * self.polish / (1 - self.polish))

    def scaled(self, factor: float) -> SearchConfig:
        """The same search about ``factor`` times as large. A smaller one first plays
        fewer generations (down to ``MIN_GENERATIONS``) and only then fewer matches a
        candidate: a race of a match or two a candidate ranks noise (a 25,000-match
        training with 48 generations of 4 matches found nothing a known deviation gains);
        its polish then takes that much less of its share, down to none (a move raced on
        a match or two ranks noise, and a search at its least plays a round's matches
        whole: a 25,000-match training whose searches polished half their matches had
        no room for a round). A larger one plays more matches a candidate (at least one
        rotation each)."""
        gens = self.generations
        if factor < 1 and gens > MIN_GENERATIONS:
            gens = max(MIN_GENERATIONS, int(round(gens * factor)))
            factor *= self.generations / gens

        def f(x: int) -> int:
            return max(1, int(round(x * factor)))

        return replace(self, generations=gens, screen=tuple(f(m) for m in self.screen),
                       polish=self.polish * min(1.0, factor),
                       race=tuple(f(m) for m in self.race), select=f(self.select),
                       polish_race=tuple(f(m) for m in self.polish_race),
                       check_batch=f(self.check_batch), check_max=f(self.check_max))

    def fitted(self, cost: Callable[[SearchConfig], int], budget: float) -> SearchConfig:
        """This search scaled (:meth:`scaled`) as large as ``cost`` of it allows within
        ``budget`` (match counts round up to whole rotations, fewer generations save less
        than their share and a smaller search polishes less, so its cost is not in
        proportion: the factor is bisected). A budget below the smallest search's cost
        gets :meth:`scaled` by the ratio, every part kept in proportion."""
        factor = budget / cost(self)
        if cost(self.scaled(1e-9)) > budget:
            return self.scaled(factor)
        fits, over = 1e-9, factor
        while cost(self.scaled(over)) <= budget:
            fits, over = over, 2 * over
        for _ in range(40):  # fits: within the budget; over: not
            mid = math.sqrt(fits * over)
            if cost(self.scaled(mid)) <= budget:
                fits = mid
            else:
                over = mid
            if over / fits < 1.001:
                break
        return self.scaled(fits)


def _round_up(n: int, unit: int) -> int:
    return max(unit, -(-int(n) // unit) * unit)


def _race_cost(k: int, stages: tuple[int, ...], unit: int, keep: bool = False) -> int:
    total, alive = 0, k
    for m in stages:
        total += (alive + 1) * _round_up(m, unit)
        alive = min(alive, max(1, math.ceil(alive / 2)) + int(keep))
    return total


@dataclass
class SearchResult:
    """The deviation found and its checked gain (win-rate fraction, 95% interval).

    samples : ``(draws, outcome)`` of every reference match played (the field as
        drawn; the outcome: the winner's seat, or every seat's payoff), for a meta-game's
        table; check : the check's :class:`Duel`
    policy : the game's policy space, whose unit :meth:`statement` states the gain in
    starts : how many starts were screened; matches : matches played in all
    n_check : the check's matches of the pick (held out: deals no search saw);
    effective : the plain matches that would give its gain the same interval
        (:func:`~.play.effective_matches`; NaN without a check)
    """

    row: np.ndarray
    gain: float
    low: float
    high: float
    n_check: int
    matches: int
    history: list[dict] = field(default_factory=list)
    decided: bool = False
    starts: int = 0
    samples: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    check: Duel | None = None
    pool: np.ndarray | None = None  # the selection race's rows, best first (no check)
    policy: PolicySpace | None = None
    effective: float = float("nan")

    def statement(self) -> str:
        """The checked gain in words, with the search's size (:func:`statement`)."""
        return statement(self.gain, self.low, self.high, self.matches, self.starts,
                         self.policy)


def statement(gain: float, low: float, high: float, matches: int, starts: int,
              policy: PolicySpace | None = None) -> str:
    """A checked gain in words, as what it is: a lower bound found by a search of a size;
    in the ``policy``'s unit (:attr:`~nop_sim.games.registry.PolicySpace.unit`), win-rate
    points without one."""
    unit, scale, digits = (("points", 100, 1) if policy is None
                           else (policy.unit, policy.scale, policy.digits))

    def said(x: float, sign: str = "") -> str:
        return f"{scale * x:{sign}.{digits}f}"

    size = f"a {matches:,}-match search from {starts} starts"
    if low > 0:
        return (f"a deviation gains at least {said(gain)} {unit} (95% {said(low)} to "
                f"{said(high)}), found by {size}")
    return (f"the best deviation found by {size} gains {said(gain, '+')} {unit} (95% "
            f"{said(low, '+')} to {said(high, '+')}): none found that clearly gains; a larger "
            f"search may still find one")


def _cma(x0: np.ndarray, sigma0: float, popsize: int, key: tuple[int, ...],
         diagonal: bool = True):
    import cma  # here: cma takes most of a second to load; only a CMA-ES restart needs it

    rng = np.random.default_rng(np.random.SeedSequence([*key, 7]))
    opts = {"bounds": [0.0, 1.0], "popsize": popsize, "seed": np.nan,
            "randn": lambda *shape: rng.standard_normal(shape), "verbose": -9,
            "verb_log": 0, "verb_disp": 0, "tolflatfitness": 10**9, "tolfun": 0,
            "tolx": 0, "tolstagnation": 10**9, "maxiter": 10**9,
            "CMA_diagonal": bool(diagonal)}
    # a start on a bound (e.g. hedge = 0) is moved just inside: the bound transform needs it
    x0 = np.clip(x0, 1e-3, 1 - 1e-3)
    return cma.CMAEvolutionStrategy(x0.tolist(), sigma0, opts)


def _row_record(space: Space, row: np.ndarray, prefix: str = "p_") -> dict:
    idx = space.index()
    return {prefix + n: float(row[i]) for n, i in zip(space.names, idx, strict=True)}


def _gain_stats(gains: np.ndarray) -> dict:
    s = mean_interval(gains)
    return {"gain": s["mean"], "gain_low": s["ci_low"], "gain_high": s["ci_high"]}


class _Racer:
    """Races rows against one field; keeps the count of matches and the reference samples."""

    def __init__(self, engine: Engine, settings, fld: Field, key: tuple[int, ...]):
        self.engine, self.settings, self.field, self.key = engine, settings, fld, key
        self.unit = settings.players
        self.matches = 0
        self.samples: list[tuple[np.ndarray, np.ndarray]] = []

    def duel(self, rows: np.ndarray, n: int, key: tuple[int, ...]) -> Duel:
        d = duel(self.engine, self.settings, self.field, rows, _round_up(n, self.unit),
                 (*self.key, *key))
        self.matches += d.matches
        self.samples.append(d.reference_samples())
        return d

    def race(self, rows: np.ndarray, stages: tuple[int, ...], key: tuple[int, ...],
             keep: int | None = None):
        """Successive halving: ``(fitness, wins, matches)`` of every row (fitness: the mean
        paired gain over the matches it played); row ``keep`` (if given) plays every
        stage, beside the better half, so every survivor is compared with it on the same
        matches."""
        k = len(rows)
        alive = np.arange(k)
        sums, counts, wins = np.zeros(k), np.zeros(k), np.zeros(k)
        for stage, m in enumerate(stages):
            d = self.duel(rows[alive], m, (*key, stage))
            n = d.won.shape[1]
            sums[alive] += d.gain().sum(axis=1)
            wins[alive] += d.won.sum(axis=1)
            counts[alive] += n
            if stage + 1 < len(stages):
                means = sums[alive] / counts[alive]
                alive = alive[np.argsort(-means, kind="stable")[:max(1, math.ceil(len(alive) / 2))]]
                if keep is not None and keep not in alive:
                    alive = np.append(alive, keep)
        return sums / counts, wins, counts


def best_response(engine: Engine, settings, space: Space, fld: Field, starts: np.ndarray,
                  key: tuple[int, ...], cfg: SearchConfig, epsilon: float,
                  tag: dict | None = None, known: np.ndarray | None = None,
                  switches: bool = True, check: bool = True) -> SearchResult:
    """Search the best row to put in one seat of the field ``fld`` (see the module docstring).

    starts : rows ``(k, parameters)`` the search starts from (the field's rows, presets,
        earlier best responses); pinned to ``space`` -- rows whose switches (the game's
        ``fixed``: New Order's ``random``, ``station``) the space pins also race as they
        are when the space restricts nothing
    known : rows that beat similar fields before; they join the screen and the selection
    switches : whether starts whose switches the space pins also race as they are (when
        the space restricts nothing else); off for searches that must be equal efforts
    check : whether to check the winner on fresh matches (step 4); without, the result
        holds the selection race's rows and gains (``pool``) for a pooled check
        (:mod:`.pool`), and its gain is the selection's, biased up
    key : names every seed of this search (``(seed, round, ...)``)
    epsilon : the gain (win-rate fraction) the final check decides against
    tag : columns added to every history record (e.g. ``{"round": 3}``)
    """
    tag = dict(tag or {})
    starts = np.atleast_2d(np.asarray(starts, float))
    if known is not None and len(known):
        starts = np.concatenate([starts, np.atleast_2d(known)])
    # every start also with each mechanic switched off: corners of the box a deviation
    # often sits in (issue 20: against one field a search that could not bluff found 6.9
    # points where the free search, from the same starts, found none); a restricted
    # space pins these the same way, so its screen is as large as the free one's
    starts = np.concatenate([starts, *(space.switched_off(starts, mechanic)
                                       for mechanic in space.mechanics)])
    pinned = np.stack([space.pin(r) for r in starts])
    free = switches and set(space.fixed) <= set(space.switches)  # nothing restricted
    as_given = [r for r, p in zip(starts, pinned, strict=True) if free and not np.allclose(r, p)]
    rng = np.random.default_rng(np.random.SeedSequence([*key, 11]))
    randoms = space.random_rows(rng, cfg.random_starts, pinned[0])
    cands = np.concatenate([pinned, *([np.stack(as_given)] if as_given else []), randoms])
    racer = _Racer(engine, settings, fld, key)
    history: list[dict] = []

    def note(phase, gen, rows, fitness, wins, counts, leader, **extra):
        for c in range(len(rows)):
            history.append({**tag, "phase": phase, "generation": gen, "candidate": c,
                            "matches": int(counts[c]), "wins": int(wins[c]),
                            "win_rate": wins[c] / max(counts[c], 1), "gain": fitness[c],
                            "leader": c == leader, **extra, **_row_record(space, rows[c])})

    # 1. the screen of every start
    fit, wins, counts = racer.race(cands, cfg.screen, (5 * 10**5,))
    order = np.argsort(-fit, kind="stable")
    note("screen", -1, cands, fit, wins, counts, int(order[0]))
    pool = [cands[i] for i in order[:3]]
    # 2. CMA-ES runs from the best starts (pinned), each with a larger population. Starts
    # that played every screen match alike (the field's own row and its copies, which
    # differ only where these rules read nothing) are one start: a 2M-match training's
    # final search ran all its CMA-ES runs from copies of the field, and missed a
    # deviation near a corner that gained 10 points.
    dim = space.dim
    seen, distinct = set(), []
    for i in order:
        signature = (round(float(fit[i]), 12), int(wins[i]), int(counts[i]))
        if signature not in seen:
            seen.add(signature)
            distinct.append(i)
    run_starts = [space.pin(cands[i]) for i in distinct]
    for j, (lam, gens) in enumerate(cfg.plan(dim) if dim else []):
        base = run_starts[j % len(run_starts)]
        es = _cma(space.to_unit(base), cfg.sigma0, lam, (*key, j), cfg.diagonal)
        leaders: list[tuple[float, np.ndarray]] = []
        for gen in range(gens):
            units = np.asarray(es.ask())
            rows = space.to_rows(units, base)
            fit, wins, counts = racer.race(rows, cfg.race, (j, gen))
            es.tell(units.tolist(), (-fit).tolist())
            best = int(np.argmax(fit))
            leaders.append((float(fit[best]), rows[best]))
            note("search", gen, rows, fit, wins, counts, best, run=j, popsize=lam)
        leaders.sort(key=lambda t: -t[0])
        pool.extend(r for _, r in leaders[:cfg.pool])
        pool.append(space.to_rows(np.asarray(es.result.xfavorite)[None, :], base)[0])
    if known is not None and len(known):
        pool.extend(space.pin(row) for row in np.atleast_2d(known))
    # 3. the selection race on fresh seeds, among rows that deviate: a row of the field
    # plays the reference's own matches and would 'gain' exactly 0 +- 0, and so does a
    # row that differs from one only where the space searches nothing and pins nothing
    # (what these rules never read: an Ordered Hand Bet where there is no betting)
    deviates = [r for r in pool if not plays_as_field(r, space, fld)]
    pool = np.stack(deviates or pool)
    d = racer.duel(pool, cfg.select, (10**6,))
    g = d.block_gain()
    pick = int(np.argmax(g.mean(axis=1)))
    for c in range(len(pool)):
        history.append({**tag, "phase": "select", "generation": cfg.runs, "candidate": c,
                        "matches": d.won.shape[1], "wins": int(d.won[c].sum()),
                        "win_rate": float(d.won[c].mean()), **_gain_stats(g[c]),
                        "leader": c == pick, **_row_record(space, pool[c])})
    row = pool[pick]
    s = mean_interval(g[pick])
    ranked = pool[np.argsort(-g.mean(axis=1), kind="stable")]
    # 4. the polish: coordinate moves, from the pick or a row of the field
    budget = cfg.polish_budget(racer.matches)
    if dim and budget:
        others = [space.pin(r) for r in fld.rows]
        others += [r for r in fld.rows if free and not any(np.allclose(r, o) for o in others)]
        others = [o for o in others if not np.allclose(o, row)]
        polished, estimate = _polish(racer, space, row, others, cfg, budget,
                                     (*key, 2 * 10**6), note)
        # the row of a field of one row, left as it was, is no deviation (it gains 0
        # exactly): the pick stands; a row of a mixture is one
        if estimate is not None and not (len(fld.rows) == 1
                                         and plays_as_field(polished, space, fld)):
            row = polished
            s = estimate
            ranked = np.concatenate([row[None, :], ranked])
    if not check:
        return SearchResult(row=np.asarray(row, float), gain=s["mean"], low=s["ci_low"],
                            high=s["ci_high"], n_check=0, matches=racer.matches,
                            history=win_intervals(history), starts=len(cands),
                            samples=racer.samples, policy=policy_of(settings),
                            pool=ranked)
    # 5. the check
    res = check_gain(engine, settings, fld, row, (*key, 10**6 + 1), cfg, epsilon)
    res.matches += racer.matches
    res.samples = racer.samples + res.samples
    res.starts = len(cands)
    history.append({**tag, "phase": "check", "generation": cfg.runs + 1, "candidate": 0,
                    "matches": res.n_check, "wins": res.history[0]["wins"],
                    "win_rate": res.history[0]["win_rate"], "gain": res.gain,
                    "gain_low": res.low, "gain_high": res.high, "leader": True,
                    **_row_record(space, row)})
    res.history = win_intervals(history)
    return res


def _moves(space: Space, row: np.ndarray, points: tuple[float, ...]
           ) -> tuple[np.ndarray, list[int]]:
    """Rows that each move one searched parameter of ``row`` to one of ``points`` of its
    unit range, everything else kept (pins and switches included), and the column each
    moves. Moves that change nothing are left out, and so are the pinned parameters."""
    x, cols = space.to_unit(row), space.index()
    out, moved, seen = [], [], set()
    for i, name in enumerate(space.names):
        if name in space.fixed:
            continue
        for point in points:
            u = x.copy()
            u[i] = point
            value = float(space.to_rows(u[None, :], row)[0, cols[i]])
            if np.isclose(value, row[cols[i]]) or (i, value) in seen:
                continue
            seen.add((i, value))
            r = np.array(row, float)
            r[cols[i]] = value
            out.append(r)
            moved.append(int(cols[i]))
    return (np.stack(out) if out else np.empty((0, len(row)))), moved


def _polish(racer: _Racer, space: Space, row: np.ndarray, others: list[np.ndarray],
            cfg: SearchConfig, budget: int, key: tuple[int, ...], note
            ) -> tuple[np.ndarray, dict | None]:
    """Coordinate moves from ``row`` (module docstring, 4.), at most ``budget`` matches:
    the polished row, and its gain on the last confirmation that took a move (None when
    none was taken). ``others``: rows to start from instead when they do better on fresh
    matches (the field's own: a best response is often the field with a few changes)."""
    unit, start = racer.unit, racer.matches
    estimate = None

    def left() -> int:
        return budget - (racer.matches - start)

    if others and (len(others) + 2) * _round_up(cfg.select, unit) <= left():
        firsts = np.stack([row, *others])
        d = racer.duel(firsts, cfg.select, (*key, 0))
        g = d.gain().mean(axis=1)
        best = int(np.argmax(g))
        note("polish-start", 0, firsts, g, d.won.sum(axis=1),
             np.full(len(firsts), d.won.shape[1]), best)
        if best:
            row, estimate = firsts[best], mean_interval(d.block_gain()[best])
    rng = np.random.default_rng(np.random.SeedSequence([*key, 13]))
    stages = tuple(cfg.polish_race)
    for p in range(1, 10**6):
        moves, cols = _moves(space, row, cfg.polish_points)
        if not len(moves):
            break
        # a random order: moves that tie (a change no match reached) are cut at random,
        # not by column
        order = rng.permutation(len(moves))
        moves, cols = moves[order], [cols[i] for i in order]
        rows = np.concatenate([row[None, :], moves])

        def cost(stages: tuple[int, ...], k: int = len(rows)) -> int:
            return (_race_cost(k, stages, unit, keep=True)
                    + (cfg.polish_keep + 3) * _round_up(sum(stages), unit))

        if cost(stages) > left():
            # the last pass: what is left, if it is at least half this pass
            factor = left() / cost(stages)
            while factor >= 0.5:
                fits = tuple(max(1, int(m * factor)) for m in stages)
                if cost(fits) <= left():
                    break
                factor *= 0.95
            if factor < 0.5:
                break
            stages = fits
        confirm = sum(stages)
        fit, wins, counts = racer.race(rows, stages, (*key, p), keep=0)
        last = counts == counts.max()
        better, taken_cols = [], set()
        for c in np.argsort(-fit, kind="stable"):
            if len(better) == cfg.polish_keep or fit[c] <= fit[0]:
                break
            if c and last[c] and cols[c - 1] not in taken_cols:
                better.append(int(c))
                taken_cols.add(cols[c - 1])
        taken = -1
        if better:
            trial = [rows[c] for c in better]
            if len(better) > 1:  # every move at once
                together = np.array(row, float)
                for c in better:
                    together[cols[c - 1]] = rows[c][cols[c - 1]]
                trial.append(together)
            d = racer.duel(np.stack([row, *trial]), confirm, (*key, p, 1))
            g = d.block_gain()
            diff = g[1:] - g[:1]
            mean = diff.mean(axis=1)
            se = diff.std(axis=1, ddof=1) / math.sqrt(diff.shape[1])
            ok = mean - cfg.polish_z * se > 0
            if ok.any():
                t = int(np.argmax(np.where(ok, mean, -np.inf)))
                row, taken = trial[t], t
                estimate = mean_interval(g[1 + t])
        # the leader: the move taken (none when every move at once was)
        note("polish", p, rows, fit, wins, counts,
             better[taken] if 0 <= taken < len(better) else -1,
             moves=len(better) if taken == len(better) else int(taken >= 0))
        if taken < 0:  # nothing beat the row: the next pass plays twice the matches
            stages = tuple(2 * m for m in stages)
    return row, estimate


def win_intervals(history: list[dict]) -> list[dict]:
    """``history`` with every row's win rate's Wilson interval (``win_low``, ``win_high``)
    where it has none yet."""
    for h in history:
        if "win_low" not in h:
            lo, hi = wilson_interval(h["wins"], h["matches"])
            h["win_low"], h["win_high"] = float(lo), float(hi)
    return history


def plays_as_field(row: np.ndarray, space: Space, fld: Field) -> bool:
    """Whether ``row`` is one of the field's rows where these rules read anything (it
    differs at most where the space searches nothing and pins nothing): on the field's
    own matches it would 'gain' exactly 0 with an interval of width 0."""
    cols = np.concatenate([space.index(), [space.columns.index(n) for n in space.fixed]])
    cols = cols.astype(np.int64)
    # a row that bets by a table is not its row alone: the row is a deviation from it
    alone = (np.ones(len(fld.rows), bool) if fld.tables is None
             else np.asarray(fld.table_of) < 0)
    return any(np.allclose(row[cols], f[cols]) for f, a in zip(fld.rows, alone, strict=True)
               if a)


def check_gain(engine: Engine, settings, fld: Field, row: np.ndarray, key: tuple[int, ...],
               cfg: SearchConfig, epsilon: float, rows: np.ndarray | None = None
               ) -> SearchResult:
    """The gain of ``row`` in one seat of the field over the seat's occupant, on fresh
    seeds, in batches until its 95% interval is above or below ``epsilon`` (or
    ``cfg.check_max`` matches; ``epsilon`` NaN plays them all).

    ``rows`` (optional, ``(k, parameters)``): more rows checked on the same matches,
    whose duel is returned in ``check`` (e.g. a restricted deviation beside a free one).
    """
    unit = settings.players
    batch = _round_up(cfg.check_batch, unit)
    most = _round_up(cfg.check_max, unit)
    played = np.atleast_2d(row) if rows is None else np.concatenate([np.atleast_2d(row), rows])
    parts: list[Duel] = []
    n = 0
    decided = False
    while n < most:
        parts.append(duel(engine, settings, fld, played, batch, (*key, len(parts))))
        n += batch
        s = mean_interval(np.concatenate([p.block_gain()[0] for p in parts]))
        if s["ci_high"] < epsilon or s["ci_low"] > epsilon:
            decided = True
            break
    whole = _joined(parts)
    s = mean_interval(whole.block_gain()[0])
    return SearchResult(row=np.asarray(row, float), gain=s["mean"], low=s["ci_low"],
                        high=s["ci_high"], n_check=n, matches=whole.matches,
                        history=[{"wins": int(whole.won[0].sum()),
                                  "win_rate": float(whole.won[0].mean())}],
                        decided=decided, samples=[whole.reference_samples()],
                        check=whole, policy=policy_of(settings),
                        effective=effective_matches(whole))


def _joined(parts: list[Duel]) -> Duel:
    """Batches of one check as one duel (match after match)."""
    def cat(name, axis):
        return np.concatenate([getattr(p, name) for p in parts], axis=axis)

    def extras(name, axis):
        return {k: np.concatenate([getattr(p, name)[k] for p in parts], axis=axis)
                for k in getattr(parts[0], name)}

    return Duel(won=cat("won", 1), ref_won=cat("ref_won", 0), hands=cat("hands", 1),
                extras=extras("extras", 1), seat=cat("seat", 0),
                matches=sum(p.matches for p in parts),
                hand_total=sum(p.hand_total for p in parts), draws=cat("draws", 0),
                winner=cat("winner", 1), ref_winner=cat("ref_winner", 0),
                ref_extras=extras("ref_extras", 0),
                score=None if parts[0].score is None else cat("score", 1),
                ref_score=None if parts[0].ref_score is None else cat("ref_score", 0),
                scores=None if parts[0].scores is None else cat("scores", 1),
                ref_scores=None if parts[0].ref_scores is None else cat("ref_scores", 0),
                block=parts[0].block)
