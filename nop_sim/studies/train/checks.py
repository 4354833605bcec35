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
from nop_sim.studies.train.value import exploit

__all__ = ["Check", "checks_json", "run_checks"]


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

    def record(self) -> dict:
        """JSON-ready: ``seed``, ``matches``, ``held_out_matches``, ``effective_matches``
        (None where infinite), ``gain``, ``low``, ``high``."""
        eff = self.effective_matches
        return {"seed": self.seed, "matches": self.matches, "held_out_matches": self.held_out,
                "effective_matches": round(eff) if math.isfinite(eff) else None,
                "gain": self.gain, "low": self.low, "high": self.high}


def run_checks(scn, folder: Path, *, budget: int, checks: int, threads: int | None = None,
               scheduler: str | None = None,
               progress: Callable[[int, int], None] | None = None) -> list[Check]:
    """``checks`` independent checks of ``folder``'s strong field, ``budget`` matches each
    (a search of about that size and its held-out re-scoring), check ``i`` with seed
    ``scn.seed + i``. ``progress(done, total)`` counts matches over all checks."""
    if checks < 1:
        raise ValueError(f"checks must be at least 1, got {checks}")
    settings = scn.settings_at(scn.points()[0])
    scale = policy_of(settings).scale
    total = budget * checks
    out: list[Check] = []
    for i in range(checks):
        seed = scn.seed + i
        base = i * budget

        def step(done: int, _total: int, base=base) -> None:
            if progress is not None:
                progress(min(base + done, total), total)

        res = exploit(dataclasses.replace(scn, seed=seed), folder, budget=budget,
                      threads=threads, scheduler=scheduler, progress=step)
        out.append(Check(seed=seed, matches=int(res.matches), held_out=int(res.n_check),
                         effective_matches=float(res.effective),
                         gain=scale * res.gain, low=scale * res.low, high=scale * res.high,
                         result=res))
    if progress is not None:
        progress(total, total)
    return out


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
