"""Two runs side by side: every key metric of the balance report, B minus A, with a
95% interval, a Holm-corrected p-value and a practical threshold.

The metrics are the game's: its ``compare`` hook
(:class:`~nop_sim.games.registry.CompareMetrics`, e.g. New Order's
``games/new_order/compare.py``) names their families, thresholds and groups, and
yields their rows (:mod:`nop_sim.core.differences`); which runs compare, the
pairing, Holm's correction and the findings are here, for every game. A game
without compare metrics is refused in one line naming it.

::

    from nop_sim.games.new_order import analysis as A
    from nop_sim.studies.compare import compare
    table = compare(A.load_run("reports/baseline"), A.load_run("reports/cap30"))
    table[table["finding"]]

One row per metric (:data:`COLUMNS`; :func:`compare_runs` adds ``family``,
``label``, ``kind``, ``method``, ``paired`` and ``min_effect``):

- intervals are 95%: Newcombe's hybrid score (from the two Wilson
  intervals) for differences of rates, a bootstrap for the difference of
  medians, Welch or paired t for means, the delta method for ratios of sums
  (New Order's fees / chips moved, manipulations per hand, net chips per hedge);
- each p-value is its interval's test inverted (the smallest level whose
  interval leaves 0 out), so ``ci_low``/``ci_high`` excludes 0 exactly when
  ``p_value < 0.05``: both about the metric alone;
- p-values are corrected with Holm's method across every metric of the
  table (``p_holm``), and ``holm_low``/``holm_high`` is the same test's
  interval at the level Holm's procedure holds the metric to: it excludes 0
  exactly when ``p_holm < 0.05`` (:func:`adjust_for_the_table`). The report
  and the terminal show this pair, so an interval never contradicts the
  p-value beside it;
- a *finding* needs ``p_holm < 0.05`` **and** ``|difference| >= min_effect``,
  a threshold per metric family (the game's ``min_effect``, overridable: a number
  in the metric's unit, or ``"5%"`` of A's value);
- common random numbers: when A and B share the seed, the chunk size, the
  seats and the matches' keys (point, chunk, index), match ``i`` of A and
  match ``i`` of B started from the same random streams. Those metrics
  measured per match (or per chunk) are then also computed from paired
  differences, and the paired interval is used where it is narrower (a
  positive correlation between the pairs). Each row says which it used.

Runs of two different games, or with different player counts at the compared
points, are refused (:class:`CompareError`): their seats, fair shares and
match lengths do not mean the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from nop_sim.core.errors import CompareError, MissingData, did_you_mean
from nop_sim.core.stats import ALPHA, holm_intervals
from nop_sim.games import DEFAULT_KIND, Game, get_game, registered_games
from nop_sim.games.registry import ComparedPoints, CompareMetrics
from nop_sim.results.run_data import RunData

__all__ = ["COLUMNS", "CompareError", "Comparison", "adjust_for_the_table", "compare",
           "compare_metrics", "compare_runs", "families", "parse_min_effect"]

COLUMNS = ("metric", "a", "b", "difference", "ci_low", "ci_high", "p_value", "holm_low",
           "holm_high", "p_holm", "finding")


@dataclass
class Comparison:
    """The comparison of point ``point_a`` of run A with ``point_b`` of run B."""

    table: pd.DataFrame
    run_a: RunData
    run_b: RunData
    point_a: int
    point_b: int
    pairable: bool
    pairing_reason: str
    notes: list[str] = field(default_factory=list)
    metrics: CompareMetrics | None = None  # the game's: its groups' titles, thresholds

    @property
    def csv(self) -> pd.DataFrame:
        """The table with exactly :data:`COLUMNS` (``compare.csv``)."""
        return self.table[list(COLUMNS)]

    @property
    def findings(self) -> pd.DataFrame:
        """Rows flagged as findings, most significant first, then largest relative size."""
        f = self.table[self.table["finding"]].copy()
        f["_size"] = (f["difference"].abs() / f["min_effect"]).replace(np.inf, np.nan)
        return f.sort_values(["p_holm", "_size"], ascending=[True, False]).drop(columns="_size")


# ---------------------------------------------------------------------------
# The game's metrics
# ---------------------------------------------------------------------------
def compare_metrics(game: Game) -> CompareMetrics:
    """What ``nop-sim compare`` reads of ``game``'s runs; :class:`CompareError`, one line
    naming the game, where it declares none."""
    if game.compare is None:
        able = [g.kind for g in registered_games() if g.compare is not None]
        raise CompareError(f"{game.title} runs ({game.kind!r}) cannot be compared: the game "
                           f"declares no compare metrics; games that do: "
                           f"{', '.join(able) or 'none'}")
    return game.compare()


def families() -> dict[str, tuple[str, str]]:
    """Every metric family of every game with compare metrics, in registration order:
    family -> (what it is, kind)."""
    out: dict[str, tuple[str, str]] = {}
    for game in registered_games():
        if game.compare is not None:
            out.update(game.compare().families)
    return out


# ---------------------------------------------------------------------------
# Thresholds
# ---------------------------------------------------------------------------
def parse_min_effect(items) -> dict[str, tuple[float, bool]]:
    """``["seat_win_rate=0.03", "median_hands=10%"]`` -> overrides of a game's ``min_effect``.

    A key is a metric family (:func:`families`: before the runs are read, any game's)
    or one metric's full name (``preset_win_rate.hedger``); a value is a number in the
    metric's unit (shares as fractions: 0.02 = 2 points) or a percentage of A's value.
    """
    known = families() if items else {}
    out: dict[str, tuple[float, bool]] = {}
    for item in items or ():
        key, sep, text = str(item).partition("=")
        key, text = key.strip(), text.strip()
        if not sep or not key or not text:
            raise CompareError(f"--min-effect {item!r}: use METRIC=VALUE, e.g. "
                               f"seat_win_rate=0.03 or median_hands=10%")
        family = key.split(".", 1)[0]
        if family not in known:
            raise CompareError(f"--min-effect {key!r}: unknown metric."
                               + did_you_mean(family, tuple(known))
                               + f" Families: {', '.join(known)}")
        relative = text.endswith("%")
        try:
            value = float(text[:-1]) / 100 if relative else float(text)
        except ValueError:
            raise CompareError(f"--min-effect {item!r}: {text!r} is not a number (or "
                               f"a percentage such as 5%)") from None
        if not np.isfinite(value) or value < 0:
            raise CompareError(f"--min-effect {item!r}: the threshold must be >= 0")
        out[key] = (value, relative)
    return out


def _threshold(metric: str, family: str, a: float, overrides: dict[str, tuple[float, bool]],
               defaults: Mapping[str, tuple[float, bool]]) -> float:
    value, relative = overrides.get(metric) or overrides.get(family) or defaults[family]
    if relative:
        return value * abs(a) if np.isfinite(a) else np.nan
    return value


# ---------------------------------------------------------------------------
# Which runs compare, and whether they pair
# ---------------------------------------------------------------------------
def _kind(run: RunData) -> str:
    return str((run.manifest.get("scenario") or {}).get("kind", DEFAULT_KIND))


def _name(run: RunData) -> str:
    return str(run.folder) if run.folder is not None else \
        str((run.manifest.get("scenario") or {}).get("name", "run"))


def check_comparable(run_a: RunData, run_b: RunData, point_a: int = 0,
                     point_b: int = 0) -> None:
    """Refuse (:class:`CompareError`) two games, two player counts, or a missing point."""
    for run, point, flag in ((run_a, point_a, "--point-a"), (run_b, point_b, "--point-b")):
        if point not in run.points:
            raise CompareError(f"{flag} {point}: {_name(run)} has points "
                               f"{', '.join(map(str, run.points))}")
    if _kind(run_a) != _kind(run_b):
        raise CompareError(f"cannot compare a {_kind(run_a)} run ({_name(run_a)}) with a "
                           f"{_kind(run_b)} run ({_name(run_b)}): different games")
    pa, pb = run_a.players(point_a), run_b.players(point_b)
    if pa != pb:
        raise CompareError(f"cannot compare {pa} players ({_name(run_a)}) with {pb} players "
                           f"({_name(run_b)}): seats and fair shares differ; compare runs "
                           f"with the same player count")


def _match_keys(run: RunData, point: int) -> pd.DataFrame:
    m = run.table("matches", "point", "chunk", "match")
    return m[m["point"] == point].sort_values(["chunk", "match"], kind="stable")


def pairing(run_a: RunData, run_b: RunData, point_a: int,
            point_b: int) -> tuple[bool, str]:
    """Whether match i of A and match i of B share their random numbers, and why (not)."""
    ma, mb = run_a.manifest, run_b.manifest
    checks = [
        (point_a == point_b, f"different sweep points ({point_a} and {point_b}) draw "
                             f"different random streams"),
        (ma.get("seed") == mb.get("seed"), f"different seeds ({ma.get('seed')} and "
                                           f"{mb.get('seed')})"),
        (ma.get("chunk") == mb.get("chunk"), f"different chunk sizes ({ma.get('chunk')} and "
                                             f"{mb.get('chunk')})"),
        (ma.get("rotation") == mb.get("rotation")
         and run_a.point_seats(point_a) == run_b.point_seats(point_b), "different seats"),
    ]
    for ok, why in checks:
        if not ok:
            return False, why
    ka, kb = _match_keys(run_a, point_a), _match_keys(run_b, point_b)
    if len(ka) != len(kb) or not (
            np.array_equal(ka["chunk"].to_numpy(), kb["chunk"].to_numpy())
            and np.array_equal(ka["match"].to_numpy(), kb["match"].to_numpy())):
        return False, "the runs hold different matches (another match count or chunk layout)"
    return True, (f"same seed ({ma.get('seed')}), chunk size ({ma.get('chunk')}), seats and "
                  f"{len(ka):,} matches: matches pair up by (point, chunk, index)")


def adjust_for_the_table(table: pd.DataFrame) -> pd.DataFrame:
    """Holm's correction across every row of ``table``, and intervals that agree with it.

    ``table`` holds rows of :mod:`nop_sim.core.differences` (``p_value`` and ``interval``).
    Adds ``p_holm`` and ``holm_low``, ``holm_high``: each row's interval at the
    level Holm's procedure holds it to (:func:`nop_sim.core.stats.holm_intervals`),
    which excludes 0 exactly when ``p_holm < 0.05``. Returns a copy without
    ``interval``.
    """
    t = table.copy()

    def at(levels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        bounds = [interval(level) for interval, level in zip(t["interval"], levels,
                                                             strict=True)]
        return (np.array([float(lo) for lo, _ in bounds]),
                np.array([float(hi) for _, hi in bounds]))

    t["p_holm"], t["holm_low"], t["holm_high"] = holm_intervals(
        t["p_value"].to_numpy(float), at)
    return t.drop(columns="interval")


def compare_runs(run_a: RunData, run_b: RunData, *, point_a: int = 0, point_b: int = 0,
                 min_effect: dict[str, tuple[float, bool]] | None = None,
                 n_boot: int = 2000) -> Comparison:
    """Compare point ``point_a`` of ``run_a`` (A) with ``point_b`` of ``run_b`` (B).

    Returns a :class:`Comparison` whose ``table`` has one row per metric:
    :data:`COLUMNS`, then ``family``, ``label``, ``kind``, ``group``,
    ``method``, ``paired``, ``min_effect``. Raises :class:`CompareError` for
    runs that cannot be compared.
    """
    point_a, point_b = int(point_a), int(point_b)
    check_comparable(run_a, run_b, point_a, point_b)
    try:
        metrics = compare_metrics(get_game(_kind(run_a)))
    except KeyError as exc:  # a game this nop-sim does not know
        raise CompareError(f"cannot compare {_name(run_a)}: {exc.args[0]}") from None
    overrides = min_effect or {}
    try:
        pairable, reason = pairing(run_a, run_b, point_a, point_b)
    except MissingData as exc:
        raise CompareError(f"cannot compare {_name(run_a)} with {_name(run_b)}: {exc}") from None
    notes: list[str] = []
    points = ComparedPoints(run_a.subset([point_a]), run_b.subset([point_b]), point_a, point_b,
                            pairable, n_boot, notes)
    rows: list[dict[str, Any]] = []
    for group, _title, fn in metrics.groups:
        try:
            for metric, label, stat in fn(points):
                family = metric.split(".", 1)[0]
                rows.append({"metric": metric, **stat, "family": family,
                             "label": label or metrics.families[family][0], "group": group,
                             "kind": metrics.families[family][1]})
        except MissingData as exc:
            if group in metrics.required:
                raise CompareError(f"cannot compare {_name(run_a)} with {_name(run_b)}: "
                                   f"{exc}") from None
            notes.append(f"{group}: not compared ({exc})")
    table = adjust_for_the_table(pd.DataFrame(rows))
    table["min_effect"] = [_threshold(m, f, a, overrides, metrics.min_effect) for m, f, a in
                           zip(table["metric"], table["family"], table["a"], strict=True)]
    table["finding"] = ((table["p_holm"] < ALPHA)
                        & (table["difference"].abs() >= table["min_effect"])
                        & np.isfinite(table["min_effect"])).astype(bool)
    table = table[[*COLUMNS, "family", "label", "kind", "group", "method", "paired",
                   "min_effect"]]
    return Comparison(table, run_a, run_b, point_a, point_b, pairable, reason, notes, metrics)


def compare(run_a: RunData, run_b: RunData, *, point_a: int = 0, point_b: int = 0,
            min_effect: dict[str, tuple[float, bool]] | None = None,
            n_boot: int = 2000) -> pd.DataFrame:
    """The comparison table of :func:`compare_runs` (what ``compare.csv`` holds, plus the
    columns ``family``, ``label``, ``kind``, ``group``, ``method``, ``paired``, ``min_effect``)."""
    return compare_runs(run_a, run_b, point_a=point_a, point_b=point_b,
                        min_effect=min_effect, n_boot=n_boot).table
