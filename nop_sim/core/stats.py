"""Confidence intervals, the one place both games take them from.

- a rate ``k / n``: :func:`wilson_interval` (Wilson score); a table's rate column with
  its interval: :func:`rate_columns`;
- a count per unit of exposure that can exceed one: :func:`poisson_interval`
  (exact, Garwood);
- a mean: :func:`mean_interval` / :func:`mean_half_width` (Student t over the
  independent units: matches, games, seats of matches);
- a ratio of two sums over units: :func:`ratio_interval` (delta method);
- a median: :func:`bootstrap_median` (percentile bootstrap; :func:`median_draws`
  gives the resampled medians themselves);
- a difference of two rates: :func:`newcombe_interval` (hybrid score from the
  two Wilson intervals, independent or paired samples).

A test and its interval come from one place too: :func:`wilson_test` (a rate
against a given value), :func:`newcombe_test` (two rates),
:func:`symmetric_test` (an estimate with its standard error, normal or
Student t) each return the interval at any level and the p-value of the test
that interval inverts, so that the ``(1 - a)`` interval leaves the null value
out exactly when ``p < a``: at 95% beside p, and at the level Holm's procedure
holds a row to beside its Holm p (:func:`holm_intervals`, with :func:`holm` and
:func:`holm_levels`).

Corrections for a family of tests besides Holm's: :func:`benjamini_hochberg` (the
false discovery rate). Inequality: :func:`gini` (and :func:`gini_rows`, per row).
Differences pooled over strata: :func:`mantel_haenszel` (a rate's), and
:func:`stratified_mean_difference` (a mean's).

Sweep points ranked by their distance to the targets, with its interval
(:func:`rank_points`), are told apart here too: :func:`best_points` and
:func:`ranking_lines` (in words: what the report and the terminal say);
:func:`pool_estimates` pools the estimates of points that share a group.

NumPy and SciPy only; :mod:`nop_sim.games.new_order.analysis` (New Order) and
:mod:`nop_sim.games.ordered_hand.analysis` (Ordered Hand) build their tables on these.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ALPHA", "CONFIDENCE", "benjamini_hochberg", "best_points", "bootstrap_median",
           "gini", "gini_rows", "holm", "holm_intervals", "holm_levels", "mantel_haenszel",
           "mean_half_width", "mean_interval", "median_draws", "newcombe_interval",
           "newcombe_test", "normal_quantile", "poisson_interval", "pool_estimates",
           "rank_points", "ranking_lines", "rate_columns", "ratio_interval", "ratio_se",
           "stratified_mean_difference", "symmetric_test", "wilson_interval",
           "wilson_test"]

CONFIDENCE = 0.95
ALPHA = 0.05     # the level a test is read at: 1 - CONFIDENCE, written as people read it


def normal_quantile(confidence: float = CONFIDENCE) -> float:
    """Two-sided normal quantile: 1.96 for 95% (the standard library's, within an ulp of
    scipy's, without the half second scipy.stats takes to import)."""
    from statistics import NormalDist  # here: statistics loads fractions and decimal (8 ms)

    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(k, n, confidence: float = CONFIDENCE, *, z: float | None = None):
    """Wilson score interval of a binomial proportion ``k / n`` (vectorised).

    Returns ``(low, high)`` arrays (NaN where ``n == 0``). For k = 81, n = 263
    it gives 0.2553..0.3662 (Newcombe 1998, table I). ``z``, when given, is the
    normal quantile itself instead of ``confidence``'s (levels too close to 1
    for ``1 - confidence`` to be held in a float: a test inverted to its p-value),
    one for all or one per rate.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    z = normal_quantile(confidence) if z is None else np.asarray(z, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(np.clip(p * (1 - p), 0, None) / n + z * z / (4 * n * n)) / denom
        low = np.where(n > 0, np.clip(centre - half, 0, 1), np.nan)
        high = np.where(n > 0, np.clip(centre + half, 0, 1), np.nan)
    return low, high


def poisson_interval(k, exposure, confidence: float = CONFIDENCE):
    """Exact (Garwood) interval of a rate ``k / exposure`` for Poisson counts."""
    from scipy import stats  # imported when first needed: scipy.stats takes 0.5 s

    k = np.asarray(k, dtype=float)
    exposure = np.asarray(exposure, dtype=float)
    a = 1 - confidence
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(k > 0, stats.chi2.ppf(a / 2, 2 * k) / 2, 0.0) / exposure
        high = stats.chi2.ppf(1 - a / 2, 2 * k + 2) / 2 / exposure
        bad = exposure <= 0
    return np.where(bad, np.nan, low), np.where(bad, np.nan, high)


def rate_columns(frame: pd.DataFrame, k: str, n: str, name: str = "rate",
                 confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Add ``name``, ``name_low``, ``name_high`` (``ci_low``/``ci_high`` when name is "rate").

    Wilson where ``k <= n``; an exact Poisson interval where a unit can count
    more than once (``k > n``).
    """
    frame = frame.copy()
    kk, nn = frame[k].to_numpy(float), frame[n].to_numpy(float)
    lo, hi = wilson_interval(np.minimum(kk, nn), nn, confidence)
    plo, phi = poisson_interval(kk, nn, confidence)
    over = kk > nn
    with np.errstate(invalid="ignore", divide="ignore"):
        frame[name] = np.where(nn > 0, kk / nn, np.nan)
    low_name, high_name = ("ci_low", "ci_high") if name == "rate" else (f"{name}_low",
                                                                        f"{name}_high")
    frame[low_name] = np.where(over, plo, lo)
    frame[high_name] = np.where(over, phi, hi)
    return frame


def mean_interval(values, confidence: float = CONFIDENCE) -> dict[str, float]:
    """Mean with a Student t interval: ``{n, mean, sd, ci_low, ci_high}``."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    n = x.size
    if n == 0:
        return {"n": 0, "mean": np.nan, "sd": np.nan, "ci_low": np.nan, "ci_high": np.nan}
    mean = float(x.mean())
    if n == 1:
        return {"n": 1, "mean": mean, "sd": np.nan, "ci_low": np.nan, "ci_high": np.nan}
    sd = float(x.std(ddof=1))
    half = mean_half_width(sd, n, confidence)
    return {"n": n, "mean": mean, "sd": sd, "ci_low": mean - half, "ci_high": mean + half}


def mean_half_width(sd, n, confidence: float = CONFIDENCE):
    """Half width of the Student t interval of a mean: ``t(n-1) * sd / sqrt(n)`` (vectorised).

    ``sd`` is the sample standard deviation (``ddof=1``); NaN where ``n < 2``.
    What :func:`mean_interval` uses, for callers that hold ``(n, sd)`` already
    (grouped tables, sums of squares).
    """
    from scipy import stats  # imported when first needed: scipy.stats takes 0.5 s

    sd = np.asarray(sd, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = stats.t.ppf(0.5 + confidence / 2, np.maximum(n - 1, 1))
        half = np.where(n > 1, t * sd / np.sqrt(n), np.nan)
    return half if half.ndim else float(half)


def bootstrap_median(values, n_boot: int = 2000, seed: int = 0,
                     confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """Median and percentile-bootstrap interval: ``(median, low, high)``.

    The resampled medians come from :func:`median_draws`.
    """
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    n = x.size
    if n == 0:
        return (np.nan, np.nan, np.nan)
    med = float(np.median(x))
    if n == 1:
        return (med, np.nan, np.nan)
    meds = median_draws(x, n_boot, np.random.default_rng(seed))
    a = (1 - confidence) / 2
    low, high = np.quantile(meds, [a, 1 - a])
    return med, float(low), float(high)


def median_draws(values, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Medians of ``n_boot`` resamples (with replacement) of finite ``values``: (n_boot,).

    Resampling ``n`` values with replacement is the same as drawing a
    multinomial count for each distinct value, so the bootstrap costs
    O(n_boot x distinct values), not O(n_boot x n): match lengths are
    integers with few distinct values, and a 100 000-match run bootstraps in
    milliseconds. The median of a resample is the lower-middle order
    statistic averaged with the upper-middle one, as :func:`numpy.median`.
    """
    x = np.asarray(values, dtype=float)
    n = x.size
    uniq, counts = np.unique(x, return_counts=True)
    draws = rng.multinomial(n, counts / n, size=n_boot)        # (n_boot, distinct)
    cum = np.cumsum(draws, axis=1)
    lo_idx = np.argmax(cum >= (n + 1) // 2, axis=1)             # 1-based rank (n+1)//2
    hi_idx = np.argmax(cum >= n // 2 + 1, axis=1)               # 1-based rank n//2 + 1
    return (uniq[lo_idx] + uniq[hi_idx]) / 2


def newcombe_interval(k1, n1, k2, n2, phi=0.0, confidence: float = CONFIDENCE, *,
                      z: float | None = None):
    """Interval of the difference of two rates ``k1/n1 - k2/n2`` (vectorised).

    Newcombe's hybrid score method (Newcombe 1998, method 10): the Wilson
    intervals ``(l1, u1)``, ``(l2, u2)`` of the two rates give
    ``low = d - sqrt((p1 - l1)^2 - 2 phi (p1 - l1)(u2 - p2) + (u2 - p2)^2)`` and
    ``high = d + sqrt((u1 - p1)^2 - 2 phi (u1 - p1)(p2 - l2) + (p2 - l2)^2)``.
    ``phi = 0`` for independent samples; for paired binary data (both rates
    over the same ``n`` units) ``phi`` is the correlation of the pairs
    (Newcombe 1998b), which narrows the interval when positive. For
    k1/n1 = 56/70, k2/n2 = 48/80 (independent) it gives 0.0524..0.3339.
    Returns ``(low, high)``; NaN where a sample is empty. ``z``: as
    :func:`wilson_interval`'s.
    """
    k1, n1, k2, n2, phi = (np.asarray(a, dtype=float) for a in (k1, n1, k2, n2, phi))
    l1, u1 = wilson_interval(k1, n1, confidence, z=z)
    l2, u2 = wilson_interval(k2, n2, confidence, z=z)
    with np.errstate(invalid="ignore", divide="ignore"):
        p1, p2 = k1 / n1, k2 / n2
        d = p1 - p2
        below = (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
        above = (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
        low = d - np.sqrt(np.clip(below, 0, None))
        high = d + np.sqrt(np.clip(above, 0, None))
    return low, high


def ratio_se(numerator, denominator) -> tuple[float, float, int]:
    """``(ratio, se, n)``: ``sum(num) / sum(den)`` over ``n`` independent units and its
    delta-method standard error (NaN with fewer than two units, nothing to divide by)."""
    y = np.asarray(numerator, dtype=float)
    x = np.asarray(denominator, dtype=float)
    n = y.size
    sx = x.sum()
    if n == 0 or sx <= 0:
        return np.nan, np.nan, n
    r = float(y.sum() / sx)
    if n == 1:
        return r, np.nan, n
    resid = y - r * x
    return r, float(np.sqrt(n / (n - 1) * np.sum(resid * resid)) / sx), n


def ratio_interval(numerator, denominator, confidence: float = CONFIDENCE) -> dict[str, float]:
    """``sum(num) / sum(den)`` over independent units, with a delta-method interval.

    Used for per-hand rates: the unit is the match (``num`` = manipulations in
    the match, ``den`` = its hands), so correlated hands of one match are not
    treated as independent. The quantile is Student t's at ``n - 1`` degrees of
    freedom, as for a mean (equal denominators give :func:`mean_interval`): with
    the normal one, a ratio over 16 chunks (a fee share of 2,000 matches) covered
    its true value in 90% of simulated runs, with t's 92%, and over 8 units 85.5%
    against 90.5% (the delta method's own skew is the rest).
    """
    r, se, n = ratio_se(numerator, denominator)
    if not np.isfinite(se):
        return {"ratio": r, "ci_low": np.nan, "ci_high": np.nan}
    half = float(mean_half_width(se * np.sqrt(n), n, confidence))
    return {"ratio": r, "ci_low": r - half, "ci_high": r + half}


# ---------------------------------------------------------------------------
# Inequality
# ---------------------------------------------------------------------------
def gini(stacks) -> float:
    """Gini coefficient of non-negative amounts (0 = equal, (n-1)/n = one holds all).

    ``sum_i sum_j |x_i - x_j| / (2 n^2 mean)``, computed from the sorted
    values as ``sum_i (2 i - n - 1) x_(i) / (n sum x)``.
    """
    x = np.sort(np.asarray(stacks, dtype=float))
    n = x.size
    total = x.sum()
    if n == 0 or total <= 0:
        return np.nan
    i = np.arange(1, n + 1)
    return float(np.sum((2 * i - n - 1) * x) / (n * total))


def gini_rows(matrix: np.ndarray) -> np.ndarray:
    """:func:`gini` of each row of a (matches, seats) array."""
    x = np.sort(np.asarray(matrix, dtype=float), axis=1)
    n = x.shape[1]
    i = np.arange(1, n + 1)
    total = x.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, (x * (2 * i - n - 1)).sum(axis=1) / (n * total), np.nan)


# ---------------------------------------------------------------------------
# Differences within strata
# ---------------------------------------------------------------------------
def stratified_mean_difference(values: np.ndarray, has: np.ndarray, strata: np.ndarray):
    """Mean of ``values`` where ``has`` minus where not, at equal ``strata``.

    The units (matches, say) are grouped by their integer stratum (the thin top 1%
    pooled); within each group holding at least two units on each side the
    difference of means is taken, and the groups are averaged with the ``has``
    units as weights, with a Student t interval from the groups' sample variances
    (Welch-Satterthwaite's degrees of freedom); NaN bounds where every group's values
    are all equal.
    New Order's Disruptor statistics compare match lengths with and without a card
    at equal cards drafted, since longer matches draft more. Returns
    ``(effect, low, high)``, NaN where no group has both sides.
    """
    s = np.asarray(strata, np.int64)
    if s.size == 0:
        return np.nan, np.nan, np.nan
    s = np.minimum(s, int(np.percentile(s, 99)))
    k = s.max() + 1
    n1 = np.bincount(s[has], minlength=k).astype(float)
    n0 = np.bincount(s[~has], minlength=k).astype(float)
    sum1 = np.bincount(s[has], weights=values[has], minlength=k)
    sum0 = np.bincount(s[~has], weights=values[~has], minlength=k)
    sq1 = np.bincount(s[has], weights=values[has] ** 2, minlength=k)
    sq0 = np.bincount(s[~has], weights=values[~has] ** 2, minlength=k)
    ok = (n1 >= 2) & (n0 >= 2)
    if not ok.any():
        return np.nan, np.nan, np.nan
    n1, n0, sum1, sum0, sq1, sq0 = (a[ok] for a in (n1, n0, sum1, sum0, sq1, sq0))
    m1, m0 = sum1 / n1, sum0 / n0
    v1 = np.clip(sq1 - n1 * m1 * m1, 0, None) / (n1 - 1)
    v0 = np.clip(sq0 - n0 * m0 * m0, 0, None) / (n0 - 1)
    effect = float(np.sum(n1 * (m1 - m0)) / n1.sum())
    # each group's share of the variance, with its degrees of freedom: Student's t at
    # Welch-Satterthwaite's (the normal quantile covered 0 in 93% of no-effect samples
    # of 60 matches in 8 strata; this, 95%)
    terms = np.concatenate([n1 * v1, n1 * n1 * v0 / n0])
    var = terms.sum()
    if var <= 0:
        return effect, np.nan, np.nan
    df = var ** 2 / np.sum(terms ** 2 / np.concatenate([n1 - 1, n0 - 1]))
    from scipy import stats  # imported when first needed: scipy.stats takes 0.5 s

    half = float(stats.t.ppf(0.5 + CONFIDENCE / 2, df)) * np.sqrt(var) / n1.sum()
    return effect, effect - half, effect + half


def mantel_haenszel(win: np.ndarray, has: np.ndarray, strata: np.ndarray):
    """Risk difference of ``win`` between ``has`` and not, pooled over strata.

    Mantel-Haenszel weights ``n1 n0 / N`` per stratum, and the standard error of a
    Wald interval from Sato's variance (Sato 1989, Biometrics 45:1323; the "Sato
    variance" of R's cardx and epiR), which holds both with few large strata and with
    many thin ones. The per-stratum binomial variances it replaced vanish in a
    stratum whose rates are 0 or 1, and thin strata are mostly such: under no effect
    at all, 80 seats in 10 strata read p < 0.05 in 11.6% of samples (5.8% with
    Sato's), and a 20-match report stated a Disruptor lead at p = 1e-71. With one
    stratum it is the Wald variance of a difference of two rates. NaN when it is 0
    (every stratum's rates at 0 and 1, the same lead in each: nothing tells the
    noise). Strata with only one group carry no information and drop out. Returns
    (diff, se): :func:`symmetric_test` gives the interval and the test it inverts,
    so that they agree (the Cochran-Mantel-Haenszel test with its continuity
    correction, beside this interval, did not: an interval of +0.1 to +4.9 points
    sat beside p = 0.055).
    """
    s = np.asarray(strata, np.int64)
    cap = int(np.percentile(s, 99)) if s.size else 0
    s = np.minimum(s, cap)            # pool the thin upper tail
    k = s.max() + 1 if s.size else 1
    n1 = np.bincount(s[has], minlength=k).astype(float)
    n0 = np.bincount(s[~has], minlength=k).astype(float)
    w1 = np.bincount(s[has & win], minlength=k).astype(float)
    w0 = np.bincount(s[~has & win], minlength=k).astype(float)
    ok = (n1 > 0) & (n0 > 0)
    if not ok.any():
        return (np.nan, np.nan)
    n1, n0, w1, w0 = n1[ok], n0[ok], w1[ok], w0[ok]
    n = n1 + n0
    weight = n1 * n0 / n
    diff = float(np.sum(weight * (w1 / n1 - w0 / n0)) / weight.sum())
    # Sato's P and Q of each stratum (wins w1 of n1 with the card, w0 of n0 without)
    p = (n1 * n1 * w0 - n0 * n0 * w1 + n1 * n0 * (n0 - n1) / 2) / (n * n)
    q = (w1 * (n0 - w0) + w0 * (n1 - w1)) / (2 * n)
    var = (diff * p.sum() + q.sum()) / weight.sum() ** 2
    # (a variance 0 that rounding left a hair above or below it is 0)
    return (diff, float(np.sqrt(var)) if var > 1e-12 * q.sum() / weight.sum() ** 2 else np.nan)


# ---------------------------------------------------------------------------
# Tests with their intervals at any level
# ---------------------------------------------------------------------------
# Each returns ``(interval, p)``: ``interval(alpha)`` gives the two-sided
# ``(1 - alpha)`` interval (``alpha`` one level for all, or one per row), and
# ``p`` the smallest ``alpha`` whose interval leaves the null value out. All
# vectorised; NaN where a row cannot be tested.
def _two_sided_z(alpha):
    """The normal quantile of a two-sided level ``alpha`` (vectorised): 1.96 at 0.05; inf at
    0, NaN outside [0, 2]. The standard library's (within an ulp of scipy's ``norm.isf(alpha
    / 2)``, without the 0.2 s scipy.special takes to import in a summary)."""
    from statistics import NormalDist  # here: statistics loads fractions and decimal (8 ms)

    half = np.asarray(alpha, dtype=float) / 2
    z = np.full(half.shape, np.nan)
    inside = (half > 0) & (half < 1)
    inv = NormalDist().inv_cdf
    z[inside] = [-inv(float(a)) for a in half[inside]]
    z[half == 0] = np.inf
    z[half == 1] = -np.inf
    return z


def _erfc(x) -> np.ndarray:
    """``math.erfc`` of each element (NaN stays NaN): a test's p-value without scipy."""
    x = np.asarray(x, dtype=float)
    return np.array([math.erfc(v) for v in x.ravel()], dtype=float).reshape(x.shape)


def wilson_test(k, n, p0):
    """A rate ``k / n`` against ``p0``: Wilson's interval at any level, and the score test.

    Wilson's ``(1 - a)`` interval holds exactly the ``p0`` with
    ``|k - n p0| <= z(a) sqrt(n p0 (1 - p0))``, so the p-value it inverts is the
    score test's, ``2 (1 - Phi(|k - n p0| / sqrt(n p0 (1 - p0))))``: for
    k = 130, n = 400, p0 = 0.25, z = 3.46 and p = 0.00053. NaN where ``n = 0``
    or ``p0`` is not inside (0, 1).
    """
    k, n, p0 = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (k, n, p0)))
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.abs(k - n * p0) / np.sqrt(n * p0 * (1 - p0))
    ok = (n > 0) & (p0 > 0) & (p0 < 1)
    p = np.where(ok, _erfc(z / np.sqrt(2)), np.nan)

    def interval(alpha):
        return wilson_interval(k, n, z=_two_sided_z(alpha))

    return interval, p


def symmetric_test(estimate, se, df=None):
    """``estimate +- q se``, ``q`` the normal quantile (``df`` None) or Student t's with
    ``df`` degrees of freedom, and the p-value of ``estimate = 0`` it inverts.

    ``se = 0`` is an estimate without noise (every pair of matches differs by
    the same amount): its interval is the estimate alone and its p is 0, or 1
    for an estimate of 0. NaN where ``estimate`` or ``se`` is not finite, or
    ``df`` not positive.
    """
    from scipy import stats  # imported when first needed: scipy.stats takes 0.5 s

    est, se = np.broadcast_arrays(np.asarray(estimate, dtype=float),
                                  np.asarray(se, dtype=float))
    dist = stats.norm if df is None else stats.t(df)
    ok = np.isfinite(est) & np.isfinite(se) & (True if df is None else np.asarray(df) > 0)
    exact = ok & (se <= 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(exact, np.where(est == 0, 1.0, 0.0),
                     2 * dist.sf(np.abs(est) / np.where(exact, 1.0, se)))
    p = np.where(ok, p, np.nan)

    def interval(alpha):
        half = dist.isf(np.asarray(alpha, dtype=float) / 2) * np.where(exact, 0.0, se)
        return np.where(ok, est - half, np.nan), np.where(ok, est + half, np.nan)

    return interval, p


def newcombe_test(k1, n1, k2, n2, phi=0.0):
    """Newcombe's interval of ``k1/n1 - k2/n2`` at any level (:func:`newcombe_interval`),
    and its p-value: the level of the widest interval that still leaves 0 out, found by
    bisection on the normal quantile (to the last bit of a float)."""
    from scipy import stats  # imported when first needed: scipy.stats takes 0.5 s

    k1, n1, k2, n2, phi = np.broadcast_arrays(*(np.asarray(a, dtype=float)
                                                for a in (k1, n1, k2, n2, phi)))

    def at_z(z):
        return newcombe_interval(k1, n1, k2, n2, phi, z=z)

    def interval(alpha):
        return at_z(_two_sided_z(alpha))

    def covers_0(z):
        lo, hi = at_z(z)
        return (lo <= 0) & (0 <= hi)

    lo, hi = at_z(np.zeros(k1.shape))   # z = 0: the difference itself
    ok = np.isfinite(lo) & np.isfinite(hi)
    inside, outside = np.full(k1.shape, 40.0), np.zeros(k1.shape)
    search = ok & ~covers_0(outside) & covers_0(inside)
    while True:
        mid = (inside + outside) / 2
        search &= (mid != inside) & (mid != outside)
        if not search.any():
            break
        covered = covers_0(mid)
        inside = np.where(search & covered, mid, inside)
        outside = np.where(search & ~covered, mid, outside)
    p = np.where(covers_0(np.zeros(k1.shape)), 1.0,       # 0 inside at every level
                 np.where(covers_0(np.full(k1.shape, 40.0)), 2 * stats.norm.sf(inside),
                          0.0))                            # beyond any level a float holds
    return interval, np.where(ok, p, np.nan)


# ---------------------------------------------------------------------------
# Holm's correction, and the intervals that agree with it
# ---------------------------------------------------------------------------
def _by_rank(pvalues, adjust) -> np.ndarray:
    """``adjust`` applied to the finite p-values sorted ascending (a stable sort), its
    results put back in the input order; NaN stays NaN and is not counted in the family.
    Holm's and Benjamini-Hochberg's corrections are each one such ``adjust``."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    if not ok.any():
        return out
    q = p[ok]
    order = np.argsort(q, kind="stable")
    res = np.empty(q.size)
    res[order] = adjust(q[order])
    out[ok] = res
    return out


def holm(pvalues) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (NaN stays NaN, not counted in the family).

    For p = (0.01, 0.04, 0.03, 0.005): sorted 0.005, 0.01, 0.03, 0.04 times
    4, 3, 2, 1 -> 0.02, 0.03, 0.06, 0.04 -> running maximum 0.02, 0.03, 0.06,
    0.06, returned in the input order (0.03, 0.06, 0.06, 0.02).
    """
    def adjust(q):
        m = q.size
        return np.minimum(np.maximum.accumulate((m - np.arange(m)) * q), 1.0)

    return _by_rank(pvalues, adjust)


def holm_levels(pvalues, alpha: float = ALPHA) -> np.ndarray:
    """The level Holm's step-down procedure holds each p-value to (NaN stays NaN).

    The i-th smallest of m (from 0) is tested at ``alpha / (m - i)`` while the
    steps reject; the first that does not stops the procedure, and it and every
    larger one are held to its level. A p-value is below its level exactly when
    its :func:`holm` p-value is below ``alpha``, so an interval at that level
    agrees with the Holm p beside it. For p = (0.01, 0.04, 0.03, 0.005) and
    alpha 0.05: 0.005 < 0.05/4 and 0.01 < 0.05/3 reject, 0.03 >= 0.05/2 stops:
    levels (0.0167, 0.025, 0.025, 0.0125).
    """
    def adjust(q):
        m = q.size
        steps = m - np.arange(m)
        # rejected as holm() decides: the running maximum of (m - i) p_(i) below alpha
        rejected = np.maximum.accumulate(steps * q) < alpha
        levels = alpha / steps
        stop = int(np.argmin(rejected)) if not rejected.all() else m
        levels[stop:] = levels[stop] if stop < m else levels[stop:]
        return levels

    return _by_rank(pvalues, adjust)


def benjamini_hochberg(pvalues) -> np.ndarray:
    """Benjamini-Hochberg false-discovery-rate adjusted p-values (NaN stays NaN): the
    i-th smallest of m (from 1) times m / i, then the running minimum from the largest."""
    def adjust(q):
        m = q.size
        ranked = q * m / np.arange(1, m + 1)
        return np.minimum(np.minimum.accumulate(ranked[::-1])[::-1], 1.0)

    return _by_rank(pvalues, adjust)


def holm_intervals(pvalues, interval, groups=None,
                   alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Holm p-values, and each test's interval at the level Holm's procedure holds it to.

    ``interval(levels)`` gives the tests' two-sided ``(1 - level)`` intervals,
    row by row, as ``(low, high)`` arrays: the ``interval`` of
    :func:`wilson_test`, :func:`newcombe_test` or :func:`symmetric_test`, whose
    p-values invert it. Holm's
    correction runs within each group of ``groups`` (one family per sweep
    point; all rows one family when None); a NaN p-value is in no family.
    Returns ``(p_holm, low, high)``: the interval excludes the tested value
    exactly when ``p_holm < alpha`` (:func:`holm_levels`), so it can be
    printed beside Holm p; an interval at 95% beside it could exclude the
    value while Holm p says that is what chance gives among that many tests.
    """
    p = np.asarray(pvalues, dtype=float)
    p_holm, levels = np.full(p.shape, np.nan), np.full(p.shape, np.nan)
    keys = np.zeros(p.shape) if groups is None else np.asarray(groups)
    for key in np.unique(keys):
        family = keys == key
        p_holm[family] = holm(p[family])
        levels[family] = holm_levels(p[family], alpha)
    tested = np.isfinite(levels)
    low, high = interval(np.where(tested, levels, alpha))
    return (p_holm, np.where(tested, np.asarray(low, dtype=float), np.nan),
            np.where(tested, np.asarray(high, dtype=float), np.nan))


# ---------------------------------------------------------------------------
# Sweep points: pooled, ranked against the targets, told apart
# ---------------------------------------------------------------------------
def pool_estimates(frame: pd.DataFrame, groups: pd.Series, value: str, low: str, high: str,
                   by: Sequence[str] = ()) -> pd.DataFrame:
    """Estimates of independent points (``value`` with its interval ``low``-``high``)
    pooled by group: ``groups`` maps point -> group id, which becomes ``point``; within a
    group (and ``by``) the mean, with the interval of a mean of independent estimates
    (each side's half-widths added in quadrature, divided by their count)."""
    f = frame.assign(point=frame["point"].map(groups)).dropna(subset=["point"])
    f = f.assign(_lo=(f[value] - f[low]) ** 2, _hi=(f[high] - f[value]) ** 2)
    g = f.groupby(["point", *by], sort=True)
    out = g[value].mean().to_frame()
    n = g[value].count()
    out[low] = out[value] - np.sqrt(g["_lo"].sum()) / n
    out[high] = out[value] + np.sqrt(g["_hi"].sum()) / n
    return out.reset_index()


def rank_points(metrics: pd.DataFrame, targets: dict[str, float], *, n_draws: int = 4000,
                seed: int = 0, kinds: dict[str, str] | None = None) -> pd.DataFrame:
    """Sweep points ordered by distance to the ``[targets]`` (best first), with intervals.

    Each target contributes a relative miss: ``|value - target| / scale``
    where scale is the target itself (or, for targets at 0, the spread of the
    metric across points, else 1). ``max_*`` and ``unresolved_share``
    targets are ceilings: being under them costs nothing; so is a target of kind "max"
    (``kinds``, name -> "value", "max" or "min"), and one of kind "min" a floor. ``distance`` is
    the root of the summed squares; ``rank`` 1 is the best point (the smallest
    distance, as estimated).

    Intervals (95%) come from ``n_draws`` seeded draws of every targeted metric
    of every point: a normal on each side of the estimate whose spread is what
    the metric's own ``<name>_low``/``<name>_high`` interval gives (a split
    normal, for asymmetric intervals), independent across metrics and points
    (points play their own seeds). A draw's distance is computed as above, so
    ceilings and the kink at 0 are handled as they are. Columns added:

    - ``distance_low``, ``distance_high``: the distance's interval;
    - ``behind``, ``behind_low``, ``behind_high``: the point's distance minus rank
      1's, and its interval from the same draws;
    - ``with_best``: the interval of ``behind`` reaches 0, so the point cannot be
      told apart from rank 1 (True for rank 1 itself). Without an interval for
      some targeted metric the intervals are NaN and ``with_best`` is True: then
      nothing can be told apart. :func:`best_points` lists the points.
    """
    metrics = metrics.copy()
    used = [t for t in targets if t in metrics.columns]
    if not used:
        for col in ("distance", "rank", "distance_low", "distance_high", "behind",
                    "behind_low", "behind_high", "with_best"):
            metrics[col] = np.nan
        return metrics
    n = len(metrics)
    z = normal_quantile(CONFIDENCE)
    rng = np.random.default_rng(seed)
    total = np.zeros(n)
    drawn = np.zeros((n_draws, n))
    known = np.ones(n, bool)
    for name in used:
        target = float(targets[name])
        value = metrics[name].astype(float).to_numpy()
        kind = (kinds or {}).get(name, "value")
        ceiling = kind == "max" or (kind == "value" and (name.startswith("max_")
                                                         or name == "unresolved_share"))
        floor = kind == "min"
        scale = abs(target) if target else (np.nanstd(value) or 1.0)

        def relative(v, target=target, ceiling=ceiling, floor=floor, scale=scale):
            miss = v - target
            if ceiling:
                miss = np.clip(miss, 0, None)
            elif floor:
                miss = np.clip(miss, None, 0)
            return np.abs(miss) / scale

        rel = relative(value)
        metrics[f"miss_{name}"] = rel
        total += np.nan_to_num(rel, nan=1e6) ** 2
        low, high = (metrics[c].astype(float).to_numpy() if c in metrics.columns
                     else np.full(n, np.nan) for c in (f"{name}_low", f"{name}_high"))
        below = np.clip(value - low, 0, None) / z
        above = np.clip(high - value, 0, None) / z
        known &= ~np.isfinite(value) | (np.isfinite(below) & np.isfinite(above))
        e = rng.standard_normal((n_draws, n))
        drawn += np.nan_to_num(relative(value + e * np.where(e < 0, below, above)),
                               nan=1e6) ** 2
    metrics["distance"] = np.sqrt(total)
    drawn = np.sqrt(drawn)
    a = (1 - CONFIDENCE) / 2
    lo, hi = np.quantile(drawn, [a, 1 - a], axis=0)
    # a percentile interval of a distance near a kink can miss its own estimate: keep it in
    metrics["distance_low"] = np.where(known, np.minimum(lo, metrics["distance"]), np.nan)
    metrics["distance_high"] = np.where(known, np.maximum(hi, metrics["distance"]), np.nan)
    order = np.lexsort((metrics["point"].to_numpy(), metrics["distance"].to_numpy()))
    best = order[0]
    behind = drawn - drawn[:, [best]]
    lo, hi = np.quantile(behind, [a, 1 - a], axis=0)
    both = known & known[best]
    metrics["behind"] = metrics["distance"] - metrics["distance"].iloc[best]
    metrics["behind_low"] = np.where(both, lo, np.nan)
    metrics["behind_high"] = np.where(both, hi, np.nan)
    metrics["with_best"] = ~(metrics["behind_low"] > 0)
    metrics = metrics.iloc[order].reset_index(drop=True)
    metrics["rank"] = np.arange(1, n + 1)
    return metrics


def best_points(ranked: pd.DataFrame) -> list[int]:
    """The points that cannot be told apart from the best by their distance to the targets
    (the best first): one point when it is separable. ``ranked``: sweep points best first,
    with ``point``, ``distance`` and ``with_best`` (as :func:`rank_points` ranks them)."""
    if "with_best" not in ranked or ranked["distance"].isna().all():
        return []
    return [int(p) for p in ranked.loc[ranked["with_best"].astype(bool), "point"]]


def ranking_lines(ranked: pd.DataFrame, swept: list[str]) -> list[str]:
    """What the ranking can say, in words: the best point when its distance is separable
    from every other's, else the points that cannot be told apart from it."""
    tied = best_points(ranked)
    if not tied:
        return []
    best = ranked.iloc[0]

    def settings(row) -> str:
        return ", ".join(f"{k} = {row[k]}" for k in swept if k in row)

    def dist(row) -> str:
        if not np.isfinite(row["distance_low"]):
            return f"{row['distance']:.3g}, no interval"
        return f"{row['distance']:.3g}, 95% interval {row['distance_low']:.3g} to " \
               f"{row['distance_high']:.3g}"

    if not np.isfinite(best["distance_low"]):
        return [f"closest to the targets by its estimate: point {int(best['point'])} "
                f"({settings(best)}; distance {dist(best)}); the metrics have no intervals, "
                f"so no point can be told apart from the others"]
    if len(tied) == 1:
        line = (f"best point: {int(best['point'])} ({settings(best)}; distance "
                f"{dist(best)})")
        if len(ranked) > 1:
            nxt = ranked.iloc[1]
            line += (f"; the next, point {int(nxt['point'])}, is {nxt['behind']:.3g} further "
                     f"(95% interval {nxt['behind_low']:.3g} to {nxt['behind_high']:.3g})")
        return [line]
    shown = ", ".join(str(p) for p in tied[:12]) + (", ..." if len(tied) > 12 else "")
    return [f"no single best point: {len(tied)} of {len(ranked)} points cannot be told apart "
            f"by their distance to the targets (the interval of each one's difference from "
            f"the closest reaches 0): points {shown}",
            f"closest by its estimate: point {int(best['point'])} ({settings(best)}; distance "
            f"{dist(best)})"]
