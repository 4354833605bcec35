"""When a mechanic's value is a property of the rules, and when it depends on the field.

A value (:mod:`.value`) is measured against one strong field. Fields trained
with other seeds are other equilibria, or other distances from one (a game
can have families of them), and a value can differ between them. So a value
is stated as settled only when it was measured against at least two fields
that share no training seed, and

* the fields agree: its values lie within :data:`AGREE` (3 win-rate points)
  of each other, and
* each is known: every 95% interval is at most :data:`HALF` (2 points) wide
  on each side.

Then it reads "worth v (a to b)": ``v`` the mean of the fields' values, ``a``
to ``b`` the lowest and highest end of their intervals. Otherwise it reads
"depends on the field: from a to b" (the fields disagree; ``a`` to ``b`` the
range of their values), "not settled" (an interval too wide to tell), or,
against one field, its value with the note that a second field is needed.
The thresholds are in win-rate fractions and scale with the game's unit
(:attr:`~nop_sim.games.registry.PolicySpace.scale`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["AGREE", "HALF", "RANGE_COLUMNS", "field_seeds", "settle", "shared_seeds",
           "verdict", "with_range"]

AGREE = 0.03    # fields agree: their values within 3 win-rate points
HALF = 0.02     # a value is known: its 95% interval within +-2 points
RANGE_COLUMNS = ("range_low", "range_high", "settled", "fields", "verdict")


def field_seeds(training: Mapping) -> set[int]:
    """The training seeds a field came from: a pooled field's sources (``pool.seeds``) and
    the seed of the PSRO that hardened it (``pool.hardened.seed``), else its training's
    ``seed``; empty when the table names none (a hand-made file)."""
    pool = training.get("pool")
    if isinstance(pool, Mapping) and isinstance(pool.get("seeds"), list):
        hard = pool.get("hardened")
        extra = ({int(hard["seed"])} if isinstance(hard, Mapping)
                 and isinstance(hard.get("seed"), int) else set())
        return {int(s) for s in pool["seeds"]} | extra
    seed = training.get("seed")
    return {int(seed)} if isinstance(seed, int) and not isinstance(seed, bool) else set()


def shared_seeds(trainings: Sequence[Mapping]) -> set[int]:
    """Seeds that two or more of the fields were trained with (their values are then not
    independent measurements of the rules)."""
    seen: set[int] = set()
    shared: set[int] = set()
    for t in trainings:
        s = field_seeds(t)
        shared |= seen & s
        seen |= s
    return shared


def settle(tables: Sequence[pd.DataFrame], *, scale: float = 100.0, digits: int = 1,
           unit: str = "points") -> pd.DataFrame:
    """Per mechanic, from one value table per field (``mechanic``, ``loss``,
    ``loss_low``, ``loss_high`` in ``unit``): ``value`` (the fields' mean), ``low``,
    ``high`` (the lowest and highest end of their intervals), ``range_low``,
    ``range_high`` (their values' extremes), ``settled`` (the rule above), ``fields``
    (how many measured it) and ``verdict`` (the reading in words)."""
    agree, half = AGREE * scale, HALF * scale
    by: dict[str, list[tuple[float, float, float]]] = {}
    for t in tables:
        for r in t.itertuples():
            by.setdefault(r.mechanic, []).append((float(r.loss), float(r.loss_low),
                                                  float(r.loss_high)))
    rows = []
    for mechanic, vals in by.items():
        v = np.array([x[0] for x in vals])
        lo = np.array([x[1] for x in vals])
        hi = np.array([x[2] for x in vals])
        widest = float(np.max((hi - lo) / 2))
        spread = float(v.max() - v.min())
        n = len(vals)
        settled = bool(n >= 2 and spread <= agree + 1e-9 and widest <= half + 1e-9)
        row = {"mechanic": mechanic, "value": float(v.mean()), "low": float(lo.min()),
               "high": float(hi.max()), "range_low": float(v.min()),
               "range_high": float(v.max()), "settled": settled, "fields": n,
               "spread": spread, "widest": widest}
        row["verdict"] = verdict(row, agree=agree, half=half, digits=digits, unit=unit)
        rows.append(row)
    return pd.DataFrame(rows)


def verdict(row: Mapping, *, agree: float = AGREE * 100, half: float = HALF * 100,
            digits: int = 1, unit: str = "points") -> str:
    """A row of :func:`settle` in words: "worth v (a to b)" only where settled."""
    def f(x: float) -> str:
        return f"{x:+.{digits}f}"

    if row["settled"]:
        return (f"worth {f(row['value'])} {unit} ({f(row['low'])} to {f(row['high'])}), "
                f"the same against {row['fields']} fields")
    if row["fields"] < 2:
        return (f"{f(row['value'])} {unit} (95% {f(row['low'])} to {f(row['high'])}) against "
                f"one field: a second field, trained with other seeds, is needed to settle it")
    if row["spread"] > agree + 1e-9:
        return (f"depends on the field: from {f(row['range_low'])} to "
                f"{f(row['range_high'])} {unit} across {row['fields']} fields")
    return (f"not settled: from {f(row['range_low'])} to {f(row['range_high'])} {unit} across "
            f"{row['fields']} fields, an interval wider than +-{half:g} {unit}")


def with_range(table: pd.DataFrame, settled: pd.DataFrame) -> pd.DataFrame:
    """``table`` (one field's value.parquet) with :data:`RANGE_COLUMNS` from ``settled``
    (:func:`settle` over every field measured), by mechanic."""
    keep = [c for c in table.columns if c not in RANGE_COLUMNS]
    s = settled.set_index("mechanic")
    out = table[keep].copy()
    for c in RANGE_COLUMNS:
        out[c] = [s.at[m, c] if m in s.index else np.nan for m in out["mechanic"]]
    out["settled"] = [bool(s.at[m, "settled"]) if m in s.index else False
                      for m in out["mechanic"]]
    return out
