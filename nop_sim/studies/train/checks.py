"""Independent checks of a strong field: several searches, each stated by its held-out gain.

One check (``nop-sim exploit``) is one best-response search against the
field with a seed of its own, and its pick re-scored on deals no part of the
search saw (:func:`~.search.check_gain`): the figure it states is that
held-out estimate with its interval. The search's own best reading is the
maximum of many noisy candidates, biased upward, and is never stated.

Searches with other seeds find other deviations, so ``K`` checks (seeds
``seed, seed + 1, ...``: check ``i`` is ``nop-sim exploit --seed seed+i``
alone) state the largest held-out gain as the field's lower bound, with
every check's figure beside it: how far apart they lie says how much one
check can be trusted.

A field that bets by a table (trained by ``--method cfr``) gets a second check
in each: a best response within the table's abstraction, learned by regret
minimisation against the fixed field and measured on deals of its own (the
game's ``table_response``). The check states the larger of the two held-out
gains, and says which found it.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from nop_sim.games.registry import policy_of
from nop_sim.reporting import atomic_write
from nop_sim.studies.train.search import SearchResult
from nop_sim.studies.train.value import exploit, record_check, record_claim, strong_field

__all__ = ["Check", "checks_json", "record_largest", "run_checks"]


@dataclass(frozen=True)
class Check:
    """One check: its seed, the matches it played (search and held-out re-scoring), the
    held-out matches of its pick, their plain equivalent, and the pick's held-out gain
    in the game's unit (win-rate points for New Order) with its 95% interval."""

    seed: int
    matches: int
    held_out: int
    effective_matches: float
    gain: float
    low: float
    high: float
    result: SearchResult
    # the in-abstraction best response's figures (game units), for a field that bets by a
    # table; gain, low and high above are then the larger of it and the search
    table: dict | None = None
    by: str = "search"

    def record(self) -> dict:
        """JSON-ready: ``seed``, ``matches``, ``held_out_matches``, ``effective_matches``
        (None where infinite), ``gain``, ``low``, ``high`` (the figure stated), ``by``
        (``search`` or ``table response``, which found it) and, for a field that bets by
        a table, ``search`` and ``table_response`` (each ``gain``, ``low``, ``high``,
        ``matches``)."""
        eff = self.effective_matches
        out = {"seed": self.seed, "matches": self.matches, "held_out_matches": self.held_out,
               "effective_matches": round(eff) if math.isfinite(eff) else None,
               "gain": self.gain, "low": self.low, "high": self.high, "by": self.by}
        if self.table is not None:
            scale = self.result.policy.scale
            r = self.result
            out["search"] = {"gain": scale * r.gain, "low": scale * r.low,
                             "high": scale * r.high, "matches": int(r.matches)}
            out["table_response"] = dict(self.table)
        return out


def run_checks(scn, folder: Path, *, budget: int, checks: int, threads: int | None = None,
               scheduler: str | None = None,
               progress: Callable[[int, int], None] | None = None) -> list[Check]:
    """``checks`` independent checks of ``folder``'s strong field, ``budget`` matches each
    (a search of about that size and its held-out re-scoring), check ``i`` with seed
    ``scn.seed + i``. ``progress(done, total)`` counts matches over all checks."""
    if checks < 1:
        raise ValueError(f"checks must be at least 1, got {checks}")
    settings, fld = strong_field(scn, folder)
    policy = policy_of(settings)
    scale = policy.scale
    # a field that bets by a table: each check's second half, the in-abstraction answer
    tabled = policy.table_response is not None and fld.tables is not None
    per = budget * (2 if tabled else 1)
    total = per * checks
    out: list[Check] = []
    for i in range(checks):
        seed = scn.seed + i
        base = i * per

        def step(done: int, _total: int, base=base) -> None:
            if progress is not None:
                progress(min(base + done, total), total)

        res = exploit(dataclasses.replace(scn, seed=seed), folder, budget=budget,
                      threads=threads, scheduler=scheduler, progress=step)
        check = Check(seed=seed, matches=int(res.matches), held_out=int(res.n_check),
                      effective_matches=float(res.effective),
                      gain=scale * res.gain, low=scale * res.low, high=scale * res.high,
                      result=res)
        answer = None if not tabled else policy.table_response(
            settings, scn.train, fld, budget, seed=seed, threads=threads,
            progress=lambda done, step=step: step(budget + min(done, budget), 0))
        if answer is not None:
            table = {"gain": scale * answer["gain"], "low": scale * answer["low"],
                     "high": scale * answer["high"], "matches": int(answer["matches"]),
                     "held_out_matches": int(answer["held_out"])}
            check = dataclasses.replace(check, table=table, matches=check.matches
                                        + table["matches"])
            if table["gain"] > check.gain:
                check = dataclasses.replace(check, gain=table["gain"], low=table["low"],
                                            high=table["high"], by="table response")
        out.append(check)
    if progress is not None:
        progress(total, total)
    return out


def record_largest(scn, folder: Path, top: Check, budget: int) -> bool:
    """Write the largest check into ``folder``'s strong.toml where it found more than the
    file claims (:func:`~.value.record_check`), by whichever part of it found it: the
    search, or the in-abstraction best response. Returns whether the file changed."""
    best = dataclasses.replace(scn, seed=top.seed)
    if top.by == "search":
        return record_check(best, folder, top.result, budget)
    s = top.result.policy.scale
    return record_claim(best, folder, top.gain / s, top.low / s, top.high / s,
                        f"nop-sim exploit --seed {top.seed} --budget-matches {budget}: a "
                        f"best response within the table's abstraction, "
                        f"{top.table['matches']:,} matches")


def largest(found: list[Check]) -> Check:
    """The check whose held-out gain is largest (the first of equals)."""
    return max(found, key=lambda c: c.gain)


def checks_json(path: Path, found: list[Check], *, scenario: str, folder: Path,
                budget: int, unit: str) -> None:
    """Write the checks for scripts: ``checks`` (each :meth:`Check.record`), ``largest``
    (the largest held-out gain), ``largest_seed``, ``unit``, the scenario, field folder
    and budget a check."""
    top = largest(found)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    atomic_write(Path(path), json.dumps({
        "scenario": scenario, "strong": str(folder), "unit": unit,
        "budget_matches_per_check": budget,
        "checks": [c.record() for c in found],
        "largest": top.gain, "largest_seed": top.seed}, indent=1) + "\n")
