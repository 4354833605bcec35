"""What every section of the report shares: the point context, the formats of key
metrics and of intervals."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import matplotlib
import numpy as np
import pandas as pd

from nop_sim.games.new_order import analysis as A
from nop_sim.reporting import isnum, num, pct, pct_ci
from nop_sim.results.run_data import RunData

SHORT = {"median_hands": "median hands per match", "unresolved_share": "unresolved (%)",
         "exploitability": "exploitability (pts)",
         **{f"value_{m}": f"value of {m} (pts)" for m in A.MECHANICS},
         "max_seat_advantage": "largest seat advantage (pts)",
         "max_preset_advantage": "largest preset advantage (pts)",
         "manipulations_per_hand": "manipulations per hand",
         "hedges_per_hand": "hedges per hand", "bluffs_per_hand": "bluffs per hand",
         "max_disruptor_effect": "largest Disruptor effect (pts)",
         "fee_share": "fees / chips moved (%)",
         "hedge_hit_rate": "hedge payouts per placement (%)",
         "final_dart": "final dart (chips)"}


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------
def _kind(key: str) -> str:
    """How a key metric is shown: 'share' (percent), 'points' (win-rate points), 'plain'."""
    if "advantage" in key or "disruptor_effect" in key:
        return "points"
    if key.endswith("share") or key.endswith("rate"):
        return "share"
    return "plain"


def _formatter(kind: str):
    """Axis tick formatter: percent for shares, percentage points for advantages."""
    if kind == "share":
        return matplotlib.ticker.PercentFormatter(1.0, decimals=None)
    if kind == "points":
        return matplotlib.ticker.FuncFormatter(lambda v, _: f"{100 * v:.3g}")
    return matplotlib.ticker.ScalarFormatter()


def _hand_limit(matches: np.ndarray, floor: int = 30) -> int:
    """Last hand with enough matches still running to show a mean (>= floor and 1%)."""
    need = max(floor, 0.01 * (matches[0] if matches.size else 0))
    ok = np.nonzero(matches >= need)[0]
    return int(ok[-1]) if ok.size else int(matches.size - 1)


def _cis(frame: pd.DataFrame, value: str, low: str, high: str, fmt=pct_ci, *args) -> list:
    """``fmt(value, low, high, *args)`` per row of three columns."""
    return [fmt(*x, *args) for x in zip(frame[value], frame[low], frame[high], strict=True)]


def _pts(values) -> list[str]:
    return [f"{100 * x:+.1f} pts" for x in values]


HOLM = "Holm-adjusted 95% interval"
"""What an interval printed beside a Holm p is: the test's interval at the level Holm's
procedure holds the row to (:func:`nop_sim.core.stats.holm_intervals`), which leaves the tested
value out exactly when Holm p < 0.05. A row's own 95% interval there could leave it out
while Holm p said that is what chance gives among that many rows; the tables' CSV files
keep that pair too (``ci_low``, ``ci_high``, ``p_value``)."""


def _lift_ci(values, lows, highs) -> list[str]:
    """Win-rate differences in points with an interval: "+13.4 (+6.7 to +20.0)"."""
    return [f"{100 * x:+.1f} ({100 * lo:+.1f} to {100 * hi:+.1f})"
            if isnum(x) and isnum(lo) and isnum(hi) else "–"
            for x, lo, hi in zip(values, lows, highs, strict=True)]


# What point_metrics reads, by its cache keys, beside the sections that read the same
# tables (computed once a point); the match length is not here: the strong section's
# bootstrap draws 300 samples, the headline's 500.
METRIC_TABLES = (("seat", A.seat_fairness), ("preset", A.preset_results),
                 ("ledger", A.ledger_summary), ("hedging", A.hedging_summary),
                 ("disruptor", A.disruptor_stats))


@dataclass
class _Point:
    """What the point sections share: the run cut to one point, and computed tables."""

    full: RunData
    point: int
    run: RunData = field(init=False)
    cache: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        self.run = self.full.subset(self.point) if len(self.full.points) > 1 else self.full

    def get(self, key: str, fn: Callable) -> pd.DataFrame:
        """``fn(run)``, computed once; a :class:`~nop_sim.games.new_order.analysis.MissingData` is kept
        and raised again at each ask."""
        if key not in self.cache:
            try:
                self.cache[key] = fn(self.run)
            except A.MissingData as exc:
                self.cache[key] = exc
        value = self.cache[key]
        if isinstance(value, A.MissingData):
            raise value
        return value

    def tables(self, *pairs: tuple[str, Callable]) -> dict[str, pd.DataFrame | None]:
        """Each ``(key, fn)`` computed once; None where the data is missing."""
        out = {}
        for key, fn in pairs:
            try:
                out[key] = self.get(key, fn)
            except A.MissingData:
                out[key] = None
        return out

    def metric_cache(self, *more: tuple[str, Callable]) -> dict[str, pd.DataFrame]:
        """:data:`METRIC_TABLES` and ``more``, computed once, for
        :func:`~nop_sim.games.new_order.analysis.point_metrics`' ``cache`` (a table whose
        data is missing left out: point_metrics tries it and skips it)."""
        return {k: v for k, v in self.tables(*METRIC_TABLES, *more).items() if v is not None}


def _metric_text(key: str, v) -> str:
    if not isnum(v):
        return "–"
    if _kind(key) == "share":
        return pct(v)
    if _kind(key) == "points":
        return f"{100 * v:.1f} pts"
    return num(v, 2 if abs(v) < 10 else 1)


STRONG_KEYS = ("exploitability", *(f"value_{m}" for m in A.MECHANICS))
# key metrics the ranking table shows only where targeted (its CSV holds them all)
QUIET_KEYS = ("hedges_per_hand", "bluffs_per_hand", "max_disruptor_effect")
