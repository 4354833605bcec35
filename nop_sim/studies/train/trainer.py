"""PSRO: a population of policies, a mixture over it, and best responses to the mixture.

``nop-sim train``'s loop (Lanctot et al. 2017, "A Unified Game-Theoretic
Approach to Multiagent Reinforcement Learning"):

1. The population starts with the scenario's seats (its presets or
   parameter tables, each once). Matches with every seat drawn from the
   population fill the meta-game's table (:mod:`.meta`), which is solved for
   a symmetric mixture: the field.
2. Round ``r`` searches the best single-seat deviation against that field
   (:func:`~nop_sim.studies.train.search.best_response`: many starts, CMA-ES
   restarts, racing, a fresh check). Its checked gain is the field's
   exploitability, as found by that search. When its 95% interval lies
   below ``epsilon``, the next round searches again with twice the matches
   at every stage, as long as the budget holds such a round and the final
   search; training stops when the largest search it affords finds nothing
   (a small search misses what a larger one finds: a 2M-match training that
   stopped at its first quiet round was beaten by 5 points by a 400,000-match
   search).
3. Otherwise the deviation joins the population and the meta-game is
   solved again, twice measured where it matters: every member plays one
   seat against the field's draws (a duel on common seeds), those matches go
   into the table, and it is solved anew. The last solution is the next
   field.

The strong field is the least exploitable of the fields the training solved
(:func:`_least_exploitable`): each round's field and the mixture after the last
round. A field is ranked only by a figure that can rank it: where the game
computes a field's exploitability exactly (``PolicySpace.exact_exploitability``,
Kuhn poker's NashConv), the field of least exact figure, the later on a tie;
where it cannot, the mixture after the last round, over the whole population,
which every best response so far has joined. A round's check is a lower bound
from a search that finds part of what a deviation gains, so it does not rank
fields: on Kuhn poker, keeping the round whose check found least kept a field
of higher exact NashConv than the last round's in 4 of 9 trainings (lower in 3;
1M to 4M matches), while the exact rule kept 0.111, 0.125 and 0.146 chips where
the last round's field had 0.263, 0.125 and 0.146 (three 1M trainings). A
final search with a new seed measures it: one free search
(:func:`~nop_sim.studies.train.search.best_response`), at least twice a round's
size, taking the matches the rounds left of the budget. Its pick, checked on
fresh matches, is a lower bound on what a deviation can win against the field;
it goes into ``strong.toml`` with the search's size
(:func:`~nop_sim.studies.train.search.statement`). (A pooled search, the free
one and one per mechanic sharing the same matches, found less than half as
much against one field: each of its searches is a sixth the size.) Training
has converged only when that search, too, finds nothing that gains
``epsilon``.

Averaging parameters is not mixing strategies: the average of two best
responses in parameter space plays like neither (the last closing note saw
an averaged field's exploitability climb back to 10-25 points after round
30); a mixture plays each of them in its share of matches.

The folder (default ``reports/<scenario file name>-train/``): ``strong.toml``
(the mixture: ``[[agent]]`` tables with weights), ``deviations.json`` (the final
search's pick, where it beats the field: :mod:`.known`), ``history.parquet`` (every
candidate of every generation, screen, selection and check), ``manifest.json``,
``state.json`` (the checkpoint after each round: population, table, mixture)
and the report. Every seed derives from ``(seed, round, ...)``, so a resumed
training plays exactly what an uninterrupted one would have. A finished
training asked for more (a larger budget, a smaller epsilon) with
``--resume`` goes on from its last round; first, the deviations that
``nop-sim exploit`` checks kept against its field (``deviations.json``) join
its population as a round's pick would (:func:`_admit_checked`): a check is
a larger search than a round's, and a field it beat is answered, not kept.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim.games.agent_files import rules_key
from nop_sim.games.registry import PolicySpace, SeatFile, policy_of, seat_label
from nop_sim.reporting import atomic_write
from nop_sim.run.provenance import versions
from nop_sim.studies.resume import same_study
from nop_sim.studies.train.errors import TrainError
from nop_sim.studies.train.known import known, record_deviation
from nop_sim.studies.train.meta import ProfileTable, max_members, regret, solve
from nop_sim.studies.train.play import Engine, Field, duel
from nop_sim.studies.train.search import SearchConfig, best_response, statement
from nop_sim.studies.train.space import Space, space_for

__all__ = ["TrainConfig", "TrainResult", "check_folder", "first_state", "rules_key",
           "start_population", "train_folder", "train_settings"]

STATE_VERSION = 6  # 3: the final search is pooled; 4: sep-CMA-ES, 48 generations; 5: the
# final search is one free search again, of the whole rest of the budget; 6: the meta-game
# is solved for the least regret (meta.solve)


@dataclass(frozen=True)
class TrainConfig:
    """What a training is asked. ``budget`` and ``epsilon`` are limits: a finished training
    resumed with a larger budget or a smaller epsilon goes on."""

    budget: int = 1_000_000       # matches, every phase counted
    epsilon: float = 1.0          # the game's unit (PolicySpace.unit): win-rate points
    seed: int = 0
    search: SearchConfig = field(default_factory=SearchConfig)
    meta_matches: int = 16000     # matches for the meta-game's table each round
    max_rounds: int = 1000

    def __post_init__(self):
        if self.budget < 1:
            raise ValueError(f"--budget-matches = {self.budget}: give at least 1")
        if not self.epsilon >= 0 or not math.isfinite(self.epsilon):
            raise ValueError(f"--epsilon = {self.epsilon}: give a gain >= 0 (win-rate points, "
                             f"or the game's unit)")


@dataclass
class TrainResult:
    rows: np.ndarray              # the strong field's rows (K, parameters)
    weights: np.ndarray           # and its mixture (K,)
    rounds: int
    converged: bool
    matches: int
    exploitability: float         # the game's unit (points), the final search's checked gain
    exploitability_low: float
    exploitability_high: float
    history: pd.DataFrame
    strong_round: int = 0         # the round whose field the strong field is
    seconds: float = 0.0
    engine_seconds: float = 0.0
    hands: int = 0
    search: SearchConfig | None = None
    space: Space | None = None
    final_matches: int = 0        # the final search's size
    final_starts: int = 0
    final_searches: int = 1       # searches the final one pooled
    population: int = 0
    deviation: np.ndarray | None = None  # the final search's pick
    policy: PolicySpace | None = None    # the game's: the unit its gains are stated in
    exact: dict | None = None            # the field's exact figures, where the game has them
    check_matches: int = 0               # the final search's held-out re-scoring of its pick
    effective_matches: float | None = None  # plain matches that would give its interval
    ranked: list | None = None           # [round, exact figure] of the fields ranked for it

    @property
    def row(self) -> np.ndarray:
        """The heaviest row of the mixture."""
        return self.rows[int(np.argmax(self.weights))]

    @property
    def kept(self) -> str:
        """Which of the training's fields the strong field is, and by what rule
        (:func:`_least_exploitable`)."""
        if not self.ranked:
            return (f"the mixture after the last round (round {self.strong_round}'s field: "
                    f"no exact figure, and lower bounds do not rank fields)")
        figure = dict((int(r), f) for r, f in self.ranked)
        say = self.policy.amount if self.policy is not None else (lambda g: f"{g:.3f}")
        scale = 1.0 if self.policy is None else self.policy.scale
        last = self.ranked[-1]
        return (f"round {self.strong_round}'s field, the least exploitable exactly of the "
                f"{len(self.ranked)} fields the training solved (NashConv "
                f"{say(figure[self.strong_round] / scale)}; after the last round "
                f"{say(last[1] / scale)})")

    @property
    def statement(self) -> str:
        scale = 100.0 if self.policy is None else self.policy.scale
        said = statement(self.exploitability / scale, self.exploitability_low / scale,
                         self.exploitability_high / scale, self.final_matches,
                         self.final_starts, self.policy)
        return said + (f" ({self.final_searches} searches pooled)"
                       if self.final_searches > 1 else "")


def start_population(scn, point=None) -> tuple[np.ndarray, list[str], np.ndarray]:
    """The scenario's seats as a first population: ``(rows, labels, weights)``, each
    distinct row once, in seat order; a seat given a mixture file brings all its rows, with
    their weights (the others weigh one seat's share)."""
    point = scn.points()[0] if point is None else point
    agent_row = policy_of(scn.settings_at(point)).agent_row
    rows: list[list[float]] = []
    labels: list[str] = []
    weights: list[float] = []
    for r in range(scn.n_rotations):
        for spec in scn.seat_specs(point, r):
            if isinstance(spec, SeatFile) and len(spec.rows) > 1:
                parts = [(agent_row(row).tolist(), f"{spec.label} row {i}", w)
                         for i, (row, w) in enumerate(zip(spec.rows, spec.weights,
                                                          strict=True))]
            else:
                parts = [(agent_row(spec).tolist(),
                          seat_label(spec, scn.game_type.default_seat), 1.0)]
            for row, label, w in parts:
                if row in rows:
                    weights[rows.index(row)] += w
                else:
                    rows.append(row)
                    labels.append(label)
                    weights.append(w)
    w = np.asarray(weights)
    return np.asarray(rows, float), labels, w / w.sum()


def presets(settings) -> np.ndarray:
    """The rows of the game's presets, every search's starts."""
    policy = policy_of(settings)
    return np.stack([policy.agent_row(name) for name in policy.presets()])


def _meta_matches(cfg: TrainConfig, players: int) -> int:
    """Matches for the table each round: ``cfg.meta_matches``, at most a 25th of the
    budget."""
    return min(cfg.meta_matches, max(players * 50, cfg.budget // 25))


# the final search's least share of the budget: a 1M training whose rounds left its final
# search 116,000 matches stated 0.4 points, and a 1.9M-match check found 19.9
FINAL_BUDGET = 0.3
# the final search at its least, as a share of a round's
FINAL_SHARE = 2.0


def _search_cost(search: SearchConfig, space: Space, players: int, n_starts: int) -> int:
    return search.cost(space.dim, players, n_starts, mechanics=len(space.mechanics))


def _fit_budget(cfg: TrainConfig, space: Space, players: int, n_starts: int) -> SearchConfig:
    """The search, shrunk when the budget cannot hold three rounds and the final search."""
    meta = _meta_matches(cfg, players)

    def total(s: SearchConfig) -> int:
        rounds = 3 * (_search_cost(s, space, players, n_starts) + meta)
        final = _search_cost(s.scaled(FINAL_SHARE), space, players, n_starts)
        return max(rounds + final, int(rounds / (1 - FINAL_BUDGET)))

    s = cfg.search
    return s.fitted(total, cfg.budget) if total(s) > cfg.budget else s


class _Population:
    """The population's rows, the meta-game's table and the members it is solved over."""

    def __init__(self, state: dict, players: int, scale: float = 100.0):
        self.state = state
        self.players = players
        self.scale = scale  # the game's unit per unit of payoff (points: 100)
        self.table = ProfileTable.from_json(players, state["table"])

    @property
    def rows(self) -> np.ndarray:
        return np.asarray(self.state["population"], float)

    def field(self) -> Field:
        members = self.state["members"]
        return Field.of(self.rows[members], self.state["sigma"], members)

    def add_samples(self, fld: Field, samples) -> None:
        for draws, winner in samples:
            self.table.add(fld.ids[draws], winner)

    def add_check(self, fld: Field, check, new_id: int) -> None:
        """The check of a deviation that joined as ``new_id``: its matches are profiles."""
        members = fld.ids[check.draws].copy()
        members[np.arange(len(members)), check.seat] = new_id
        self.table.add(members, check.outcome()[0])

    def solve(self) -> None:
        members = self.state["members"]
        u = self.table.tensor(members)
        sigma = solve(u)
        self.state["sigma"] = sigma.tolist()
        self.state["meta_regret"] = self.scale * regret(u, sigma)
        self.state["table"] = self.table.to_json()

    def sample(self, engine: Engine, settings, n: int, key: tuple[int, ...]) -> int:
        """About ``n`` matches where the field's payoffs are read: every member in one seat
        against the field's draws (a duel, on common seeds), so each member's payoff
        against the mixture now is measured, not inferred from profiles far from it;
        every match goes into the table. Returns the matches played."""
        members = np.asarray(self.state["members"])
        fld = Field.of(self.rows[members], self.state["sigma"], members)
        per = max(self.players, -(-n // ((len(members) + 1) * self.players)) * self.players)
        d = duel(engine, settings, fld, self.rows[members], per, key)
        draws, ref_winner = d.reference_samples()
        self.table.add(fld.ids[draws], ref_winner)
        for c, member in enumerate(members):
            seated = fld.ids[d.draws].copy()
            seated[np.arange(per), d.seat] = member
            self.table.add(seated, d.outcome()[c])
        self.state["table"] = self.table.to_json()
        return d.matches

    def admit(self, row: np.ndarray, label: str) -> int:
        """A new member; the members the meta-game holds are capped (the newest and the
        heaviest stay)."""
        st = self.state
        st["population"].append(np.asarray(row, float).tolist())
        st["labels"].append(label)
        new = len(st["population"]) - 1
        cap = max_members(self.players)
        weight = dict(zip(st["members"], st["sigma"], strict=True))
        keep = sorted(st["members"], key=lambda m: -weight.get(m, 0.0))[:cap - 1]
        st["members"] = sorted(keep) + [new]
        st["sigma"] = [weight.get(m, 0.0) for m in st["members"]]
        return new


def first_state(population: tuple[np.ndarray, list[str], np.ndarray], *,
                members: list[int] | None = None, table: ProfileTable | None = None) -> dict:
    """A training's checkpoint before its first round: ``population`` (rows, labels,
    weights), its meta-game over ``members`` (default: every row) with the mixture
    ``weights`` (one per member), and ``table``, matches already played between its rows
    (default none: the first round's table is played first). A pooled training's
    fields go on from their pool this way (:mod:`.pooled`)."""
    first, labels, weights = population
    return {"version": STATE_VERSION, "round": 0,
            "population": np.asarray(first, float).tolist(), "labels": list(labels),
            "members": list(range(len(first))) if members is None else [int(m) for m in members],
            "sigma": np.asarray(weights, float).tolist(),
            "table": [] if table is None else table.to_json(), "spent": 0,
            "converged": False, "final": None, "rounds": [],
            "seconds": 0.0, "engine_seconds": 0.0, "hands": 0}


def train_settings(settings, population: tuple[np.ndarray, list[str], np.ndarray],
                   cfg: TrainConfig, engine: Engine, *, state: dict | None = None,
                   save: Callable[[dict, pd.DataFrame], None] = None,
                   progress: Callable[[int, int], None] | None = None,
                   restrict: dict | None = None,
                   responses: Sequence[tuple[np.ndarray, str]] = ()) -> TrainResult:
    """Train from a first ``population`` (rows, labels, weights: :func:`start_population`)
    under ``settings``; ``state`` resumes a checkpoint, ``save`` is called with the
    checkpoint and the history after every round. ``responses``: ``(row, found_by)`` of
    deviations an independent check found to beat the checkpoint's field, which join
    its population before the next round (:func:`_admit_checked`)."""
    t0 = time.perf_counter()
    space = space_for(settings, restrict)
    players = settings.players
    policy = policy_of(settings)
    scale = policy.scale  # gains are stated as scale * gain, in the game's unit
    eps = cfg.epsilon / scale
    starting = presets(settings)
    if state is None:
        state = first_state(population)
        frames: list[pd.DataFrame] = []
    else:
        frames = [state.pop("_history")] if "_history" in state else []
    if "search" in state:
        search = SearchConfig(**{k: tuple(v) if isinstance(v, list) else v
                                 for k, v in state["search"].items()})
    else:
        search = _fit_budget(cfg, space, players, len(state["population"]) + len(starting) + 4)
        state["search"] = asdict(search)
    pop = _Population(state, players, scale)
    base = (state["seconds"], state["engine_seconds"], state["hands"], engine.engine_seconds,
            engine.hands)
    state.setdefault("sessions", []).append({"first_round": state["round"],
                                             "budget": cfg.budget, "epsilon": cfg.epsilon})
    def tick():
        if progress is not None:
            progress(min(state["spent"] + engine.matches, cfg.budget), cfg.budget)

    engine.on_play = tick

    def round_cost(scale: float | None = None) -> int:
        scale = state.get("scale", 1) if scale is None else scale
        return search.scaled(scale).cost(space.dim, players,
                                         len(state["population"]) + len(starting),
                                         mechanics=len(space.mechanics))

    def final_cost(scale: float) -> int:
        return _search_cost(search.scaled(scale * FINAL_SHARE), space, players,
                            len(state["population"]) + len(starting))

    def affordable(scale: float) -> bool:
        """Room for a round at ``scale`` and the final search after it."""
        return (state["spent"] + round_cost(scale) + meta + final_reserve(scale)
                <= cfg.budget)

    def final_reserve(scale: float) -> int:
        """What the rounds leave the final search: its least size, and at least
        ``FINAL_BUDGET`` of the budget (its claim is the training's)."""
        return max(final_cost(scale), int(FINAL_BUDGET * cfg.budget))

    def spend(matches: int) -> None:
        state["spent"] += matches

    meta = state.setdefault("meta_matches", _meta_matches(cfg, players))
    state.setdefault("scale", 1)
    # a finished training asked for more goes on (its rounds and table are kept): a smaller
    # epsilon its last round no longer meets, or a budget with room for a larger search
    if state["rounds"]:  # points: the last round and the final search found nothing
        fin = state["final"]
        state["converged"] = bool(state["rounds"][-1]["high"] < cfg.epsilon
                                  and (fin is None or fin["high"] < cfg.epsilon))
    if state["final"] is not None and (affordable(2 * state["scale"]) if state["converged"]
                                       else affordable(state["scale"])):
        state["final"] = None
    if state["round"] == 0 and not state["table"]:
        engine.matches = 0
        spend(pop.sample(engine, settings, meta, (cfg.seed, 0, 7)))
        pop.solve()
    _admit_checked(pop, state, responses or (), engine, settings, meta, cfg.seed, spend)
    # a round: a search and the table's matches; the final search is kept room for. A
    # round whose search finds nothing that gains epsilon does not end the training while
    # the budget holds a search twice as large: a small search misses deviations a larger
    # one finds (issue 20), so the claim of convergence is made at the largest search
    # the budget affords.
    while state["final"] is None and state["round"] < cfg.max_rounds:
        if state["converged"]:
            if not affordable(2 * state["scale"]):
                break
            state["scale"] *= 2
            state["converged"] = False
        if not affordable(state["scale"]):
            break
        r = state["round"]
        fld = pop.field()
        engine.matches = 0
        starts = np.concatenate([pop.rows, starting])
        res = best_response(engine, settings, space, fld, starts, (cfg.seed, r),
                            search.scaled(state["scale"]), eps, tag={"round": r})
        spend(res.matches)
        pop.add_samples(fld, res.samples)
        frames.append(pd.DataFrame(res.history))
        converged = res.high < eps
        state["rounds"].append({
            "round": r, "exploitability": scale * res.gain, "low": scale * res.low,
            "high": scale * res.high, "check_matches": res.n_check, "matches": res.matches,
            "starts": res.starts, "scale": state["scale"], "members": list(state["members"]),
            "sigma": list(state["sigma"]), "meta_regret": state.get("meta_regret", 0.0),
            "mixture_size": int(np.count_nonzero(state["sigma"]))})
        if converged:
            state["converged"] = True
        else:
            new = pop.admit(res.row, f"response {r}")
            pop.add_check(fld, res.check, new)
            for i in range(2):
                pop.solve()
                engine.matches = 0
                spend(pop.sample(engine, settings, meta // 2, (cfg.seed, r, 8, i)))
            pop.solve()
        state["round"] = r + 1
        _clock(state, base, t0, engine)
        if save is not None:
            save(state, pd.concat(frames, ignore_index=True))
    if state["final"] is None:
        exact = None if policy.exact_exploitability is None else (
            lambda members, sigma: float(policy.exact_exploitability(
                settings, pop.rows[members], np.asarray(sigma, float))["nash_conv"]))
        strong_round, members, sigma, ranked = _least_exploitable(state, exact)
        fld = Field.of(pop.rows[members], sigma, members)
        engine.matches = 0
        starts = np.concatenate([pop.rows, starting])
        # the final search is one free search, twice a round's at least, of what the rounds
        # left of the budget: against one field, at 1.2M matches, a free search found a
        # deviation gaining 5.0 points on average over 3 seeds where a pooled search (the
        # free one and one per mechanic, each a sixth of the matches) found 2.1
        # (scripts/search_power.py); a search a sixth the size finds too little
        least = search.scaled(state["scale"] * FINAL_SHARE)

        def cost(s: SearchConfig) -> int:
            return _search_cost(s, space, players, len(starts))

        final = max(least, search.fitted(cost, 0.95 * (cfg.budget - state["spent"])), key=cost)
        res = best_response(engine, settings, space, fld, starts, (cfg.seed, 10**9), final,
                            float("nan"), tag={"round": state["round"]})
        spend(res.matches)
        hist = pd.DataFrame(res.history)
        hist["phase"] = "final-" + hist["phase"]
        frames.append(hist)
        # converged means the final, largest search found nothing either
        state["converged"] = bool(state["converged"] and res.high < eps)
        state["final"] = {"exploitability": scale * res.gain, "low": scale * res.low,
                          "high": scale * res.high, "check_matches": res.n_check,
                          "matches": res.matches, "starts": res.starts,
                          "searches": 1,
                          # plain matches that would give the check's interval (None: no
                          # noise, the pick plays as the field)
                          "effective": (float(res.effective) if np.isfinite(res.effective)
                                        else None),
                          "round": strong_round, "members": [int(m) for m in fld.ids],
                          # the fields ranked for it, [round, exact figure] (empty: the last
                          # mixture kept, no figure ranks fields)
                          "ranked": ranked,
                          "weights": fld.weights.tolist(), "deviation": res.row.tolist()}
        _clock(state, base, t0, engine)
        if save is not None:
            save(state, pd.concat(frames, ignore_index=True))
    history = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    fin = state["final"]
    return TrainResult(rows=pop.rows[fin["members"]], weights=np.asarray(fin["weights"]),
                       rounds=state["round"], converged=state["converged"],
                       matches=state["spent"], exploitability=fin["exploitability"],
                       exploitability_low=fin["low"], exploitability_high=fin["high"],
                       history=history, seconds=state["seconds"],
                       engine_seconds=state["engine_seconds"], hands=state["hands"],
                       search=search, space=space, strong_round=fin["round"],
                       final_matches=fin["matches"], final_starts=fin["starts"],
                       final_searches=fin.get("searches", 1),
                       population=len(state["population"]),
                       deviation=np.asarray(fin["deviation"], float), policy=policy,
                       check_matches=int(fin.get("check_matches", 0)),
                       effective_matches=fin.get("effective"),
                       ranked=fin.get("ranked") or None)


def _admit_checked(pop: _Population, state: dict, responses, engine: Engine, settings,
                   meta: int, seed: int, spend: Callable[[int], None]) -> None:
    """Admit deviations that independent checks (``nop-sim exploit``) found to beat the
    field, as a round admits its search's pick: the check was a best-response oracle
    stronger than the training's own searches (the shipped baseline field's final search,
    3.5M matches, found +0.0 points; one of three 2M-match checks found a deviation gaining
    +7.5 on held-out deals). Each row not in the population already joins it, the table
    is sampled where the new mixture is read (the round's two half-samples, keyed
    ``(seed, round, 9, i)``), and the training is no longer finished: its rounds go on
    from the new field with whatever budget is left. Recorded in ``state["admitted"]``;
    a row admitted before (a resumed resume) is not admitted again."""
    have = {tuple(np.round(r, 12)) for r in pop.rows}
    fresh = [(np.asarray(row, float), by) for row, by in responses
             if tuple(np.round(np.asarray(row, float), 12)) not in have]
    if not fresh:
        return
    r = state["round"]
    for row, by in fresh:
        new = pop.admit(row, f"checked response {r}")
        state.setdefault("admitted", []).append({"round": r, "member": new, "found_by": by})
    for i in range(2):
        pop.solve()
        engine.matches = 0
        spend(pop.sample(engine, settings, meta // 2, (seed, r, 9, i)))
    pop.solve()
    # a new field: its rounds start again at the first search size (a large search is for
    # confirming convergence; the baseline field, its new mixture solved from a table
    # that had barely met the admitted rows and no round after, was beaten by 12.5 points)
    state["final"] = None
    state["converged"] = False
    state["scale"] = 1


def _least_exploitable(state: dict, exact: Callable[[list[int], list[float]], float] | None
                       = None) -> tuple[int, list[int], list[float], list[list[float]]]:
    """The strong field, as ``(round, members, weights, ranked)``.

    The candidates are the fields the training solved: the field each round searched
    (round ``r``) and the mixture now (round ``state["round"]``, the one a next round
    would search; a last round that found nothing left it as it was). With ``exact``
    (the field's exact exploitability from its members and weights: the game computes
    it), the candidate of least figure is kept, the later on a tie, and ``ranked`` lists
    ``[round, figure]`` of every candidate. Without it the mixture now is kept (``ranked``
    empty): a round's check is a lower bound from a search of its own size, and lower
    bounds do not rank fields (the module docstring gives the measurement).
    """
    now = (int(state["round"]), [int(m) for m in state["members"]],
           [float(w) for w in state["sigma"]])
    if exact is None:
        return (*now, [])
    fields = [(int(r["round"]), [int(m) for m in r["members"]],
               [float(w) for w in r["sigma"]]) for r in state["rounds"]]
    if not fields or fields[-1][1:] != now[1:]:
        fields.append(now)
    figures = [exact(members, sigma) for _, members, sigma in fields]
    best = min(range(len(fields)), key=lambda i: (figures[i], -i))
    return (*fields[best], [[r, f] for (r, _, _), f in zip(fields, figures, strict=True)])


def _clock(state: dict, base: tuple, t0: float, engine: Engine) -> None:
    """Cumulative seconds, engine seconds and hands, over every session of the training."""
    seconds, engine_seconds, hands, eng0, hands0 = base
    state["seconds"] = seconds + (time.perf_counter() - t0)
    state["engine_seconds"] = engine_seconds + (engine.engine_seconds - eng0)
    state["hands"] = hands + (engine.hands - hands0)


# -- the folder ----------------------------------------------------------------------------
def _identity(scn, cfg: TrainConfig) -> dict:
    """What must match for a checkpoint to go on: not the budget nor epsilon (limits)."""
    return {"fingerprint": scn.fingerprint(), "seed": cfg.seed, "search": asdict(cfg.search),
            "meta_matches": cfg.meta_matches, "max_rounds": cfg.max_rounds,
            "version": STATE_VERSION}


def training_checkpoint(out: Path, identity: dict) -> dict | None:
    """The checkpoint (``state.json``) of the training ``identity`` in ``out``, or None where
    ``out`` holds no training yet (no folder, or one empty but for nop-sim's lock files).
    :class:`TrainError` where ``out`` holds anything else: a file, a run or other folder,
    another training. Every trainer's folder (:mod:`.regret` too) opens through here."""
    state_path = out / "state.json"
    if out.exists() and not out.is_dir():
        raise TrainError(f"{out} is not a folder")
    manifest = out / "manifest.json"
    if manifest.exists() and not state_path.exists():
        try:
            kind = json.loads(manifest.read_text()).get("kind", "run")
        except ValueError:
            kind = "unreadable"
        raise TrainError(f"{out} holds a {kind} folder, not a training; train into another "
                         f"--out")
    if not state_path.exists():
        if out.exists() and any(p for p in out.glob("*") if not p.name.startswith(".nop-sim")):
            raise TrainError(f"{out} is not empty and holds no training; give another --out")
        return None
    return same_study(
        state_path, "identity", identity, TrainError,
        unreadable="{path}: not a training checkpoint ({reason}); remove the folder or train "
                   "into another --out",
        differs="{folder} holds another training (differs in {keys}); train into another "
                "--out, or remove the folder")


def _load_checkpoint(out: Path, identity: dict, resume: bool, cfg: TrainConfig) -> dict | None:
    state = training_checkpoint(out, identity)
    if state is None:
        return None
    finished = state.get("final") is not None
    limits = state.get("limits", {})
    more = (cfg.budget > limits.get("budget", cfg.budget)
            or cfg.epsilon < limits.get("epsilon", cfg.epsilon))
    if not resume and not finished:
        raise TrainError(f"{out} holds an unfinished training: add --resume to finish it, "
                         f"or train into another --out")
    if not resume and more:
        raise TrainError(f"{out} holds a finished training of {limits.get('budget'):,} matches "
                         f"at epsilon {limits.get('epsilon'):g}: add --resume to go on with "
                         f"this budget and epsilon, or train into another --out")
    hist_path = out / "history.parquet"
    if hist_path.exists():
        state["_history"] = pd.read_parquet(hist_path)
    elif state.get("round", 0) > 0:
        raise TrainError(f"{hist_path} is missing: the checkpoint cannot be resumed; "
                         f"remove the folder and train again")
    return state


def check_folder(scn, out: Path, cfg: TrainConfig, resume: bool = False) -> dict | None:
    """The checkpoint :func:`train_folder` would go on from in ``out`` (None: none yet),
    read without writing anything; raises :class:`TrainError` where ``out`` cannot take
    this training (not a training, another training, unfinished without ``resume``): a
    pooled training checks all its folders before it trains any (:mod:`.pooled`)."""
    identity = json.loads(json.dumps(_identity(scn, cfg)))  # as the checkpoint stores it
    return _load_checkpoint(Path(out), identity, resume, cfg)


def _checked(out: Path, state: dict | None, settings,
             budget: int) -> list[tuple[np.ndarray, str]]:
    """The deviations ``nop-sim exploit`` kept in ``out``'s deviations.json against the
    field a finished checkpoint ``state`` wrote (:mod:`.known`), with what found each:
    what a training resumed with a larger ``budget`` admits (with none left for rounds,
    a field re-solved from the admitted rows alone would be stated, and may be weaker).
    The training's own final pick is not one (it was measured by the training, and a
    round would find it again)."""
    if state is None or state.get("final") is None:
        return []
    if budget <= state.get("limits", {}).get("budget", budget):
        return []
    fin = state["final"]
    rows = np.asarray(state["population"], float)
    fld = Field.of(rows[fin["members"]], fin["weights"], fin["members"])
    found, entries = known(out, fld, space_for(settings).columns)
    return [(row, e["found_by"]) for row, e in zip(found, entries, strict=True)
            if e["found_by"].startswith("nop-sim exploit") and float(e["low"]) > 0]


def train_folder(scn, out: Path, cfg: TrainConfig, *, threads: int | None = None,
                 scheduler: str | None = None, resume: bool = False,
                 progress: Callable[[int, int], None] | None = None,
                 population: tuple[np.ndarray, list[str], np.ndarray] | None = None,
                 start: dict | None = None) -> TrainResult:
    """Train on ``scn``'s first point into ``out`` (see the module docstring), from
    ``population`` (default: :func:`start_population`, the scenario's seats), or from
    ``start`` (:func:`first_state`'s checkpoint) where ``out`` holds no checkpoint yet."""
    out = Path(out)
    if len(scn.points()) > 1:
        raise ValueError(f"{scn.source}: has a [sweep] of {len(scn.points())} points; train "
                         f"one rule set (remove [sweep]) or use nop-sim sweep --train")
    identity = json.loads(json.dumps(_identity(scn, cfg)))  # as the checkpoint stores it
    state = _load_checkpoint(out, identity, resume, cfg)
    out.mkdir(parents=True, exist_ok=True)
    started = state.get("started") if state else None
    started = started or dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    point = scn.points()[0]
    settings = scn.settings_at(point)
    def save(st: dict, history: pd.DataFrame) -> None:
        clean = {k: v for k, v in st.items() if not k.startswith("_")}
        clean.update(identity=identity, started=started,
                     limits={"budget": cfg.budget, "epsilon": cfg.epsilon})
        atomic_write(out / "history.parquet", history.to_parquet(index=False))
        atomic_write(out / "state.json", json.dumps(clean, indent=1))

    engine = Engine(threads=threads, scheduler=scheduler)
    try:
        first = start_population(scn, point) if population is None else population
        if state is None and start is not None:
            state = json.loads(json.dumps(start))  # a copy: the training writes into it
        result = train_settings(settings, first, cfg, engine, state=state, save=save,
                                progress=progress, responses=_checked(out, state, settings,
                                                          cfg.budget))
    finally:
        engine.close()
    policy = policy_of(settings)
    if policy.exact_exploitability is not None:  # the game knows its field's exact figures
        result.exact = dict(policy.exact_exploitability(settings, result.rows, result.weights))
    training = {
        "scenario": scn.name, "fingerprint": scn.fingerprint(), "rules": rules_key(settings),
        "seed": cfg.seed, "matches": int(result.matches), "rounds": int(result.rounds),
        "round": int(result.strong_round), "mixture": int(len(result.weights)),
        "kept": ("least exact" if result.ranked else "last"),
        "population": int(result.population),
        "exploitability": round(result.exploitability, 3),
        "exploitability_low": round(result.exploitability_low, 3),
        "exploitability_high": round(result.exploitability_high, 3),
        "search_matches": int(result.final_matches), "search_starts": int(result.final_starts),
        "searches_pooled": int(result.final_searches),
        # the final check: its pick re-scored on held-out matches, and the plain matches
        # that would give the same interval
        **({"exploitability_check_matches": result.check_matches}
           if result.check_matches else {}),
        **({"exploitability_effective_matches": round(result.effective_matches)}
           if result.effective_matches is not None else {}),
        "exploitability_is": "a lower bound: the gain of the best deviation a fresh search "
                             "found, checked on fresh matches",
        "epsilon": cfg.epsilon, "converged": bool(result.converged),
        # the unit the gains above are in, where it is not win-rate points (readers of the
        # file state it: nop_sim.games.agent_files.training_text)
        **({"unit": policy.unit, "unit_digits": policy.digits}
           if (policy.unit, policy.scale) != ("points", 100.0) else {}),
        **{f"exact_{k}": round(float(v), 6) for k, v in (result.exact or {}).items()},
    }
    exactly = "" if not result.exact else (
        f"Exactly: NashConv {policy.amount(result.exact['nash_conv'] / policy.scale)} per "
        f"hand; the best single-seat deviation gains "
        f"{policy.amount(result.exact['gain_per_seat'] / policy.scale)} per hand.\n")
    policy.write_agent_file(out / "strong.toml", result.rows, result.weights, training,
                     f"The strong field for {scn.name}, written by nop-sim train: a mixture of "
                     f"{len(result.weights)} policy row(s),\n"
                     + textwrap.fill(f"{result.kept};", 88) + "\n"
                     f"each seat given this file draws its row for each match by weight.\n"
                     f"{result.statement}.\n{exactly}"
                     f"Use it as a seat: [seats] all = \"@<path of this file>\", or\n"
                     f"nop-sim run SCENARIO --set seats.all=@<path of this file>")
    if policy.write_extra is not None:  # the game's own files of the field (Kuhn: policy.csv)
        policy.write_extra(out, result.rows, result.weights)
    if result.exploitability_low > 0:  # value's searches start from it (.known)
        record_deviation(out, Field.of(result.rows, result.weights), result.space.columns,
                         result.deviation, result.exploitability, result.exploitability_low,
                         result.exploitability_high,
                         f"nop-sim train --seed {cfg.seed} --budget-matches {cfg.budget}: its "
                         f"final {result.final_matches:,}-match search from "
                         f"{result.final_starts} starts")
    manifest = {
        "kind": "train", "scenario": {"name": scn.name, "source": scn.source, "kind": scn.kind,
                                      "text": scn.text, "fingerprint": scn.fingerprint()},
        "seed": cfg.seed, "config": {**asdict(cfg), "search_used": asdict(result.search)},
        "space": {"columns": list(result.space.columns),
                  "names": list(result.space.names), "low": result.space.lo.tolist(),
                  "high": result.space.hi.tolist(), "fixed": dict(result.space.fixed),
                  "power": result.space._power().tolist()},
        "training": training,
        "exact": result.exact,
        "at_bounds": result.space.at_bounds(result.row),
        "throughput": {"seconds": result.seconds, "engine_seconds": result.engine_seconds,
                       "matches": int(result.matches), "hands": int(result.hands)},
        "versions": versions(), "started": started,
        "ended": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "status": "finished",
    }
    atomic_write(out / "manifest.json", json.dumps(manifest, indent=1, default=float))
    return result

