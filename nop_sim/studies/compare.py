"""Two runs side by side: every key metric of the balance report, B minus A, with a
95% interval, a Holm-corrected p-value and a practical threshold.

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
  (fees / chips moved, manipulations per hand, net chips per hedge);
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
  a threshold per metric family (:data:`MIN_EFFECT`, overridable: a number in
  the metric's unit, or ``"5%"`` of A's value);
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

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from nop_sim.core.errors import CompareError, did_you_mean
from nop_sim.core.stats import (
    ALPHA,
    CONFIDENCE,
    gini_rows,
    holm_intervals,
    mean_interval,
    median_draws,
    newcombe_test,
    normal_quantile,
    ratio_interval,
    symmetric_test,
)
from nop_sim.games import DEFAULT_KIND
from nop_sim.games.new_order import analysis as A
from nop_sim.results.run_data import RunData

__all__ = ["COLUMNS", "FAMILIES", "MIN_EFFECT", "CompareError", "Comparison",
           "adjust_for_the_table", "compare", "compare_runs", "parse_min_effect"]

COLUMNS = ("metric", "a", "b", "difference", "ci_low", "ci_high", "p_value", "holm_low",
           "holm_high", "p_holm", "finding")

#: family -> (what it is, kind: share/points/plain)
FAMILIES = {
    "median_hands": ("median match length (hands)", "plain"),
    "mean_hands": ("mean match length (hands)", "plain"),
    "unresolved_share": ("matches unresolved at max_hands", "share"),
    "seat_win_rate": ("win rate of a seat", "share"),
    "preset_win_rate": ("win rate of a preset", "share"),
    "fee_share": ("Ledger fees / chips moved", "share"),
    "manipulations_per_hand": ("column manipulations per hand", "plain"),
    "hedges_per_hand": ("hedge placements per hand", "plain"),
    "bluffs_per_hand": ("bets and raises on the bluff draw per hand", "plain"),
    "hedge_hit_rate": ("hedge payouts per placement", "share"),
    "hedge_net_per_placement": ("net chips per hedge placed", "plain"),
    "disruptor_effect": ("a Disruptor's drafted effect on win rate (adjusted lift)", "share"),
    "stack_gini": ("Gini of the final stacks (mean per match)", "plain"),
    "category_share": ("share of main pots won by a category", "share"),
    "exploitability": ("what the best deviation found gains against the trained field, "
                       "points (a lower bound)", "plain"),
    "strong_value": ("what a mechanic is worth to a strong player, points", "plain"),
}

#: family -> (threshold, relative): relative thresholds are a share of A's value
MIN_EFFECT: dict[str, tuple[float, bool]] = {
    "median_hands": (0.05, True),
    "mean_hands": (0.05, True),
    "unresolved_share": (0.01, False),
    "seat_win_rate": (0.02, False),
    "preset_win_rate": (0.02, False),
    "fee_share": (0.01, False),
    "manipulations_per_hand": (0.10, True),
    "hedges_per_hand": (0.10, True),
    "bluffs_per_hand": (0.10, True),
    "hedge_hit_rate": (0.02, False),
    "hedge_net_per_placement": (0.5, False),
    "disruptor_effect": (0.05, False),
    "stack_gini": (0.02, False),
    "category_share": (0.01, False),
    "exploitability": (2.0, False),
    "strong_value": (1.5, False),
}


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
# Thresholds
# ---------------------------------------------------------------------------
def parse_min_effect(items) -> dict[str, tuple[float, bool]]:
    """``["seat_win_rate=0.03", "median_hands=10%"]`` -> overrides of :data:`MIN_EFFECT`.

    A key is a family of :data:`FAMILIES` or one metric's full name
    (``preset_win_rate.hedger``); a value is a number in the metric's unit
    (shares as fractions: 0.02 = 2 points) or a percentage of A's value.
    """
    out: dict[str, tuple[float, bool]] = {}
    for item in items or ():
        key, sep, text = str(item).partition("=")
        key, text = key.strip(), text.strip()
        if not sep or not key or not text:
            raise CompareError(f"--min-effect {item!r}: use METRIC=VALUE, e.g. "
                               f"seat_win_rate=0.03 or median_hands=10%")
        family = key.split(".", 1)[0]
        if family not in FAMILIES:
            raise CompareError(f"--min-effect {key!r}: unknown metric."
                               + did_you_mean(family, tuple(FAMILIES))
                               + f" Families: {', '.join(FAMILIES)}")
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


def _threshold(metric: str, family: str, a: float,
               overrides: dict[str, tuple[float, bool]]) -> float:
    value, relative = overrides.get(metric) or overrides.get(family) or MIN_EFFECT[family]
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
    m = run.table("matches", "point", "chunk", "match", "hands", "unresolved")
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


# ---------------------------------------------------------------------------
# Differences with intervals: one helper per kind of statistic
# ---------------------------------------------------------------------------
# Each row carries ``interval``, alpha -> (low, high): its test's two-sided
# (1 - alpha) interval, and ``p_value``: the smallest alpha whose interval
# leaves 0 out (the same test, inverted). So at any level an interval
# excludes 0 exactly when p < alpha: the 95% interval with p, and the
# interval at the level Holm's procedure holds the row to with Holm p
# (:func:`adjust_for_the_table`). Two tests side by side (a Newcombe
# interval beside Fisher's exact p) could disagree near the boundary. The
# tests are :mod:`nop_sim.core.stats`'s (:func:`~nop_sim.core.stats.newcombe_test`,
# :func:`~nop_sim.core.stats.symmetric_test`), which the balance report's tables
# share; the bootstrap's is here.
_Z = normal_quantile(CONFIDENCE)


def _nan_bounds(alpha: float) -> tuple[float, float]:
    return np.nan, np.nan


def _row(a, b, diff, interval, p: float, method: str, paired: bool) -> dict:
    lo, hi = interval(ALPHA)
    return {"a": a, "b": b, "difference": diff, "ci_low": float(lo), "ci_high": float(hi),
            "p_value": float(p), "method": method, "paired": paired, "interval": interval}


def _width(lo, hi) -> float:
    w = hi - lo
    return w if np.isfinite(w) else np.inf


def _bootstrap(draws: np.ndarray):
    """The percentile interval of bootstrap ``draws`` at any level, and its p-value.

    The ``(1 - alpha)`` interval runs from the r-th smallest draw to the r-th
    largest, r the largest integer below ``(n + 1) alpha / 2``; with r < 1 the
    resamples cannot bound it (infinite). Its p-value, ``2 (k + 1) / (n + 1)``
    with k the draws on the far side of 0, never claims more than the
    resamples show; the interval excludes 0 exactly when p < alpha.
    """
    d = np.sort(np.asarray(draws, float)[np.isfinite(draws)])
    n = d.size
    if n == 0:
        return _nan_bounds, np.nan

    def interval(alpha: float) -> tuple[float, float]:
        r = int(np.ceil((n + 1) * alpha / 2)) - 1
        if r < 1:
            return -np.inf, np.inf
        return float(d[r - 1]), float(d[n - r])

    k = min(int(np.sum(d <= 0)), int(np.sum(d >= 0)))
    return interval, min(1.0, 2 * (k + 1) / (n + 1))


def _rate_unpaired(ka, na, kb, nb) -> dict:
    a = ka / na if na else np.nan
    b = kb / nb if nb else np.nan
    interval, p = newcombe_test(kb, nb, ka, na)
    return _row(a, b, b - a, interval, p, "Newcombe hybrid score", False)


def _rate_paired(xa: np.ndarray, xb: np.ndarray) -> dict:
    """Paired binary outcomes (one per unit): Newcombe's paired interval."""
    xa, xb = np.asarray(xa, bool), np.asarray(xb, bool)
    n = xa.size
    both, only_b = int((xa & xb).sum()), int((xb & ~xa).sum())
    only_a, neither = int((xa & ~xb).sum()), int((~xa & ~xb).sum())
    denom = float(both + only_b) * (only_a + neither) * (both + only_a) * (only_b + neither)
    cross = float(both) * neither - float(only_b) * only_a
    if cross > 0:  # Newcombe's correction, so the interval does not get too narrow
        cross = max(cross - n / 2, 0.0)
    phi = cross / np.sqrt(denom) if denom > 0 else 0.0
    interval, p = newcombe_test(both + only_b, n, both + only_a, n, phi)
    a, b = (both + only_a) / n, (both + only_b) / n
    return _row(a, b, b - a, interval, p, f"Newcombe paired (phi = {phi:.2f})", True)


def _rate(ka, na, kb, nb, xa=None, xb=None) -> dict:
    """A rate's difference; paired (``xa``, ``xb`` per unit) where that is narrower."""
    row = _rate_unpaired(ka, na, kb, nb)
    if xa is not None:
        paired = _rate_paired(xa, xb)
        if _width(paired["ci_low"], paired["ci_high"]) < _width(row["ci_low"], row["ci_high"]):
            return paired
    return row


def _mean(va, vb, pairs: bool) -> dict:
    va, vb = np.asarray(va, float), np.asarray(vb, float)
    ma, mb = mean_interval(va), mean_interval(vb)
    diff = mb["mean"] - ma["mean"]
    interval, p = _nan_bounds, np.nan
    if ma["n"] > 1 and mb["n"] > 1:
        va_n, vb_n = ma["sd"] ** 2 / ma["n"], mb["sd"] ** 2 / mb["n"]
        se = np.sqrt(va_n + vb_n)
        # Welch-Satterthwaite degrees of freedom (scipy's ttest_ind(equal_var=False))
        df = (va_n + vb_n) ** 2 / (va_n ** 2 / (ma["n"] - 1) + vb_n ** 2 / (mb["n"] - 1)) \
            if se > 0 else np.inf
        interval, p = symmetric_test(diff, se, df)
    row = _row(ma["mean"], mb["mean"], diff, interval, p, "Welch t", False)
    if pairs and va.size == vb.size and va.size > 1:
        both = np.isfinite(va) & np.isfinite(vb)
        d = mean_interval(vb[both] - va[both])
        if d["n"] > 1:
            pinterval, pp = symmetric_test(d["mean"], d["sd"] / np.sqrt(d["n"]), d["n"] - 1)
            paired = _row(row["a"], row["b"], diff, pinterval, pp, "paired t", True)
            if _width(paired["ci_low"], paired["ci_high"]) < _width(row["ci_low"],
                                                                   row["ci_high"]):
                row = paired
    return row


def _ratio_se(y, x) -> tuple[float, float]:
    r = ratio_interval(y, x)
    return r["ratio"], (r["ci_high"] - r["ratio"]) / _Z


def _ratio(ya, xa, yb, xb, pairs: bool) -> dict:
    """Difference of two ratios of sums over units (delta method); paired over the units."""
    ra, sa = _ratio_se(ya, xa)
    rb, sb = _ratio_se(yb, xb)
    diff = rb - ra
    se = np.sqrt(sa ** 2 + sb ** 2)
    row = _row(ra, rb, diff, *symmetric_test(diff, se), "ratio of sums, delta method", False)
    ya, xa, yb, xb = (np.asarray(v, float) for v in (ya, xa, yb, xb))
    n = ya.size
    if pairs and n == yb.size and n > 1 and xa.sum() > 0 and xb.sum() > 0:
        # the linearised ratio of each unit, B minus A, summed like ratio_interval's residuals
        d = (yb - rb * xb) / xb.sum() - (ya - ra * xa) / xa.sum()
        pse = float(np.sqrt(n / (n - 1) * np.sum(d * d)))
        if pse < se or not np.isfinite(se):
            row = _row(ra, rb, diff, *symmetric_test(diff, pse),
                       "ratio of sums, paired delta method", True)
    return row


def _estimates(ea, la, ha, eb, lb, hb) -> dict:
    """Difference of two independent estimates given with symmetric-ish 95% intervals."""
    sa, sb = (ha - la) / (2 * _Z), (hb - lb) / (2 * _Z)
    diff = eb - ea
    return _row(ea, eb, diff, *symmetric_test(diff, np.sqrt(sa ** 2 + sb ** 2)),
                "difference of independent estimates (normal)", False)


def _median(ha, hb, pairs: bool, n_boot: int, seed: int) -> dict:
    """Difference of medians: percentile bootstrap, paired (resampling pairs) if narrower."""
    ha, hb = np.asarray(ha, float), np.asarray(hb, float)
    rng = np.random.default_rng(seed)
    diff = float(np.median(hb) - np.median(ha))
    draws = median_draws(hb, n_boot, rng) - median_draws(ha, n_boot, rng)
    row = _row(float(np.median(ha)), float(np.median(hb)), diff, *_bootstrap(draws),
               f"bootstrap ({n_boot} resamples)", False)
    if pairs and ha.size == hb.size:
        n = ha.size
        parts = []
        for start in range(0, n_boot, 100):  # blocks keep memory at 100 x matches
            idx = rng.integers(0, n, size=(min(100, n_boot - start), n))
            parts.append(np.median(hb[idx], axis=1) - np.median(ha[idx], axis=1))
        paired = _row(row["a"], row["b"], diff, *_bootstrap(np.concatenate(parts)),
                      f"paired bootstrap ({n_boot} resamples of match pairs)", True)
        if _width(paired["ci_low"], paired["ci_high"]) < _width(row["ci_low"], row["ci_high"]):
            row = paired
    return row


def adjust_for_the_table(table: pd.DataFrame) -> pd.DataFrame:
    """Holm's correction across every row of ``table``, and intervals that agree with it.

    ``table`` holds rows of the helpers above (``p_value`` and ``interval``).
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


# ---------------------------------------------------------------------------
# The metrics, family by family
# ---------------------------------------------------------------------------
@dataclass
class _Ctx:
    a: RunData           # each restricted to its compared point
    b: RunData
    point_a: int
    point_b: int
    pairs: bool
    n_boot: int
    notes: list[str]

    def matches(self, run: RunData, point: int) -> pd.DataFrame:
        return _match_keys(run, point)


def _length(c: _Ctx):
    ma, mb = c.matches(c.a, c.point_a), c.matches(c.b, c.point_b)
    ha, hb = ma["hands"].to_numpy(float), mb["hands"].to_numpy(float)
    yield "median_hands", "", _median(ha, hb, c.pairs, c.n_boot, seed=0)
    yield "mean_hands", "", _mean(ha, hb, c.pairs)
    ua, ub = ma["unresolved"].astype(bool).to_numpy(), mb["unresolved"].astype(bool).to_numpy()
    yield "unresolved_share", "", _rate(ua.sum(), ua.size, ub.sum(), ub.size,
                                         *((ua, ub) if c.pairs else ()))


def _wins_per_match(run: RunData, point: int, by: str) -> pd.DataFrame:
    """(chunk, match) x ``by`` table of wins, and of seats held (for presets), sorted."""
    s = run.table("seats", "point", "chunk", "match", "seat", "place", by)
    s = s[s["point"] == point]
    s = s.assign(win=(s["place"] == 1).astype(int), held=1, key=s[by].astype(str))
    return s.pivot_table(index=["chunk", "match"], columns="key", values=["win", "held"],
                         aggfunc="sum", fill_value=0, observed=True).sort_index()


def _win_rates(c: _Ctx, family: str, by: str, fn):
    ta, tb = fn(c.a, tests=False), fn(c.b, tests=False)
    ta = ta[ta["point"] == c.point_a].assign(key=lambda t: t[by].astype(str))
    tb = tb[tb["point"] == c.point_b].assign(key=lambda t: t[by].astype(str))
    keys = [k for k in ta["key"] if k in set(tb["key"])]
    only = sorted(set(ta["key"]) ^ set(tb["key"]))
    if only:
        c.notes.append(f"{by}s in only one of the runs are not compared: {', '.join(only)}")
    wa = wb = None
    if c.pairs:
        wa, wb = _wins_per_match(c.a, c.point_a, by), _wins_per_match(c.b, c.point_b, by)
    for key in keys:
        ra, rb = ta[ta["key"] == key].iloc[0], tb[tb["key"] == key].iloc[0]
        xs = ()
        if wa is not None:
            held_a, held_b = wa["held"][key].to_numpy(), wb["held"][key].to_numpy()
            if (held_a == 1).all() and (held_b == 1).all():  # one seat per match: binary pairs
                xs = (wa["win"][key].to_numpy() > 0, wb["win"][key].to_numpy() > 0)
        label = f"seat {key} win rate" if by == "seat" else f"{key} win rate"
        yield f"{family}.{key}", label, _rate(int(ra["wins"]), int(ra["seats"]),
                                              int(rb["wins"]), int(rb["seats"]), *xs)


def _seats(c: _Ctx):
    yield from _win_rates(c, "seat_win_rate", "seat", A.seat_fairness)


def _presets(c: _Ctx):
    yield from _win_rates(c, "preset_win_rate", "preset", A.preset_results)


def _chunk_counts(run: RunData, point: int) -> pd.DataFrame:
    cnt = run.table("counts", "point", "chunk")
    return cnt[cnt["point"] == point].sort_values("chunk", kind="stable")


def _ledger(c: _Ctx):
    ca, cb = _chunk_counts(c.a, c.point_a), _chunk_counts(c.b, c.point_b)
    chunk_pairs = c.pairs and np.array_equal(ca["chunk"].to_numpy(), cb["chunk"].to_numpy())
    if {"fees", "pot_sum"} <= set(ca.columns) & set(cb.columns):
        yield "fee_share", "", _ratio(ca["fees"], A.chips_moved(ca), cb["fees"],
                                      A.chips_moved(cb), chunk_pairs)
    yield "manipulations_per_hand", "", _per_hand(c, "manipulations")


def _per_hand(c: _Ctx, column: str):
    """Per-match sums of a seat counter and the matches' hands, of each side's point."""
    pa, pb = A.per_match_sums(c.a, column), A.per_match_sums(c.b, column)
    pa = pa[pa["point"] == c.point_a].sort_values(["chunk", "match"], kind="stable")
    pb = pb[pb["point"] == c.point_b].sort_values(["chunk", "match"], kind="stable")
    return _ratio(pa[column], pa["hands"], pb[column], pb["hands"], c.pairs)


def _bluffing(c: _Ctx):
    if not ("bluffs" in c.a.tables["seats"].columns and "bluffs" in c.b.tables["seats"].columns):
        raise A.MissingData("a run has no bluff counter (stored before nop-sim counted bluffs; "
                            "run it again)")
    yield "bluffs_per_hand", "", _per_hand(c, "bluffs")


def _hedging(c: _Ctx):
    ca, cb = _chunk_counts(c.a, c.point_a), _chunk_counts(c.b, c.point_b)
    need = {"hedges", "hedge_hits", "hedge_paid", "hedge_cost"}
    if not need <= set(ca.columns) & set(cb.columns):
        raise A.MissingData("the runs have no hedge counters")
    ka, na = int(ca["hedge_hits"].sum()), int(ca["hedges"].sum())
    kb, nb = int(cb["hedge_hits"].sum()), int(cb["hedges"].sum())
    if ka <= na and kb <= nb:
        yield "hedge_hit_rate", "", _rate(ka, na, kb, nb)
    else:  # hedge_scope = "match": a placement can pay more than once
        yield "hedge_hit_rate", "", _ratio(ca["hedge_hits"], ca["hedges"], cb["hedge_hits"],
                                           cb["hedges"], False)
    if "hedges_placed" in c.a.tables["seats"].columns \
            and "hedges_placed" in c.b.tables["seats"].columns:
        yield "hedges_per_hand", "", _per_hand(c, "hedges_placed")
    chunk_pairs = c.pairs and np.array_equal(ca["chunk"].to_numpy(), cb["chunk"].to_numpy())
    yield "hedge_net_per_placement", "", _ratio(
        ca["hedge_paid"] - ca["hedge_cost"], ca["hedges"], cb["hedge_paid"] - cb["hedge_cost"],
        cb["hedges"], chunk_pairs)


def _disruptors(c: _Ctx):
    da, db = A.disruptor_stats(c.a), A.disruptor_stats(c.b)
    if "adjusted_lift" not in da.columns or "adjusted_lift" not in db.columns:
        raise A.MissingData("no Disruptor was drafted in one of the runs")
    da = da.set_index(da["card"].astype(str))
    db = db.set_index(db["card"].astype(str))
    for card in [k for k in da.index if k in db.index]:
        ra, rb = da.loc[card], db.loc[card]
        yield f"disruptor_effect.{card}", f"{card} drafted", _estimates(
            ra["adjusted_lift"], ra["adjusted_low"], ra["adjusted_high"],
            rb["adjusted_lift"], rb["adjusted_low"], rb["adjusted_high"])


def _gini_per_match(run: RunData, point: int) -> np.ndarray:
    s = run.table("seats", "point", "chunk", "match", "seat", "final_chips")
    s = s[s["point"] == point]
    wide = s.pivot_table(index=["chunk", "match"], columns="seat", values="final_chips",
                         fill_value=0).sort_index()
    return gini_rows(wide.to_numpy())


def _chips(c: _Ctx):
    yield "stack_gini", "", _mean(_gini_per_match(c.a, c.point_a),
                                  _gini_per_match(c.b, c.point_b), c.pairs)


def _categories(c: _Ctx):
    wa, wb = A.winning_categories(c.a), A.winning_categories(c.b)
    wa = wa[wa["point"] == c.point_a].set_index("category")
    wb = wb[wb["point"] == c.point_b].set_index("category")
    for cat in wa.index:
        ra, rb = wa.loc[cat], wb.loc[cat]
        slug = str(ra["label"]).lower().replace(" ", "_")
        yield f"category_share.{slug}", f"{ra['label']} wins", _rate(
            int(ra["wins"]), int(ra["total"]), int(rb["wins"]), int(rb["total"]))


def _strong(c: _Ctx):
    """Under strong play (two sweeps run with ``--train [--value]``): the fields'
    exploitability and each mechanic's value, as independent estimates."""
    sa, sb = c.a.strong_play, c.b.strong_play
    if sa is None and sb is None:
        return
    if sa is None or sb is None:
        raise A.MissingData("only one run was played by fields trained for its rules "
                            "(nop-sim sweep --train)")
    ta = sa[0][sa[0]["point"] == c.point_a]
    tb = sb[0][sb[0]["point"] == c.point_b]
    if len(ta) and len(tb):
        ra, rb = ta.iloc[0], tb.iloc[0]
        yield "exploitability", "", _estimates(
            ra["exploitability"], ra["exploitability_low"], ra["exploitability_high"],
            rb["exploitability"], rb["exploitability_low"], rb["exploitability_high"])
    va = sa[1][sa[1]["point"] == c.point_a].set_index("mechanic")
    vb = sb[1][sb[1]["point"] == c.point_b].set_index("mechanic")
    for mech in [m for m in va.index if m in vb.index]:
        ra, rb = va.loc[mech], vb.loc[mech]
        yield f"strong_value.{mech}", f"value of {mech}", _estimates(
            ra["value"], ra["low"], ra["high"], rb["value"], rb["low"], rb["high"])


#: (family group, function): the order of the table
_GROUPS = (("length", _length), ("seats", _seats), ("presets", _presets),
           ("ledger", _ledger), ("hedging", _hedging), ("bluffing", _bluffing),
           ("disruptors", _disruptors),
           ("chips", _chips), ("categories", _categories), ("strong play", _strong))
_REQUIRED = ("length", "seats")


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
    overrides = min_effect or {}
    try:
        pairable, reason = pairing(run_a, run_b, point_a, point_b)
    except A.MissingData as exc:  # e.g. two Ordered Hand runs: no hands per match
        raise CompareError(f"cannot compare {_name(run_a)} with {_name(run_b)}: {exc} "
                           f"(compare reads New Order Poker runs)") from None
    notes: list[str] = []
    ctx = _Ctx(run_a.subset([point_a]), run_b.subset([point_b]), point_a, point_b, pairable,
               n_boot, notes)
    rows: list[dict[str, Any]] = []
    for group, fn in _GROUPS:
        try:
            for metric, label, stat in fn(ctx):
                family = metric.split(".", 1)[0]
                rows.append({"metric": metric, **stat, "family": family,
                             "label": label or FAMILIES[family][0], "group": group,
                             "kind": FAMILIES[family][1]})
        except A.MissingData as exc:
            if group in _REQUIRED:
                raise CompareError(f"cannot compare {_name(run_a)} with {_name(run_b)}: "
                                   f"{exc}") from None
            notes.append(f"{group}: not compared ({exc})")
    table = adjust_for_the_table(pd.DataFrame(rows))
    table["min_effect"] = [_threshold(m, f, a, overrides) for m, f, a in
                           zip(table["metric"], table["family"], table["a"], strict=True)]
    table["finding"] = ((table["p_holm"] < ALPHA)
                        & (table["difference"].abs() >= table["min_effect"])
                        & np.isfinite(table["min_effect"])).astype(bool)
    table = table[[*COLUMNS, "family", "label", "kind", "group", "method", "paired",
                   "min_effect"]]
    return Comparison(table, run_a, run_b, point_a, point_b, pairable, reason, notes)


def compare(run_a: RunData, run_b: RunData, *, point_a: int = 0, point_b: int = 0,
            min_effect: dict[str, tuple[float, bool]] | None = None,
            n_boot: int = 2000) -> pd.DataFrame:
    """The comparison table of :func:`compare_runs` (what ``compare.csv`` holds, plus the
    columns ``family``, ``label``, ``kind``, ``group``, ``method``, ``paired``, ``min_effect``)."""
    return compare_runs(run_a, run_b, point_a=point_a, point_b=point_b,
                        min_effect=min_effect, n_boot=n_boot).table
