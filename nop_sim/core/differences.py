"""Differences of two samples' statistics, B minus A, each row with its test's interval
at any level and the p-value that inverts it: what ``nop-sim compare`` tabulates
(:mod:`nop_sim.studies.compare`), one helper per kind of statistic, which each game's
compare metrics call (``games/<game>/compare.py``).

A row is a dict: ``a``, ``b``, ``difference``, ``ci_low``, ``ci_high`` (the 95%
interval), ``p_value``, ``method``, ``paired`` and ``interval``, alpha -> (low, high).

- :func:`rate_difference`: two rates, Newcombe's hybrid score (independent, or paired
  units where that is narrower);
- :func:`mean_difference`: two means, Welch's t (or paired t where narrower);
- :func:`ratio_difference`: two ratios of sums over units, the delta method (paired
  over the units where narrower);
- :func:`median_difference`: two medians, a percentile bootstrap (resampling pairs
  where narrower);
- :func:`estimate_difference`: two independent estimates given with 95% intervals.
"""

from __future__ import annotations

import numpy as np

from nop_sim.core.stats import (
    ALPHA,
    CONFIDENCE,
    mean_interval,
    median_draws,
    newcombe_test,
    normal_quantile,
    ratio_se,
    symmetric_test,
)

__all__ = ["estimate_difference", "mean_difference", "median_difference", "rate_difference",
           "ratio_difference"]

# Each row carries ``interval``, alpha -> (low, high): its test's two-sided
# (1 - alpha) interval, and ``p_value``: the smallest alpha whose interval
# leaves 0 out (the same test, inverted). So at any level an interval
# excludes 0 exactly when p < alpha: the 95% interval with p, and the
# interval at the level Holm's procedure holds the row to with Holm p
# (:func:`nop_sim.studies.compare.adjust_for_the_table`). Two tests side by side (a Newcombe
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


def rate_difference(ka, na, kb, nb, xa=None, xb=None) -> dict:
    """A rate's difference; paired (``xa``, ``xb`` per unit) where that is narrower."""
    row = _rate_unpaired(ka, na, kb, nb)
    if xa is not None:
        paired = _rate_paired(xa, xb)
        if _width(paired["ci_low"], paired["ci_high"]) < _width(row["ci_low"], row["ci_high"]):
            return paired
    return row


def mean_difference(va, vb, pairs: bool) -> dict:
    """Difference of two means over units: Welch's t; paired t (``pairs``, the units in
    the same order) where that is narrower."""
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


def ratio_difference(ya, xa, yb, xb, pairs: bool) -> dict:
    """Difference of two ratios of sums over units (delta method); paired over the units.

    Student t: Welch-Satterthwaite's degrees of freedom from each ratio's ``n - 1``
    (:func:`ratio_interval`'s), paired ``n - 1``."""
    ra, sa, na = ratio_se(ya, xa)
    rb, sb, nb = ratio_se(yb, xb)
    diff = rb - ra
    se = np.sqrt(sa ** 2 + sb ** 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = se ** 4 / (sa ** 4 / max(na - 1, 1) + sb ** 4 / max(nb - 1, 1))
    row = _row(ra, rb, diff, *symmetric_test(diff, se, df if np.isfinite(df) else None),
               "ratio of sums, delta method", False)
    ya, xa, yb, xb = (np.asarray(v, float) for v in (ya, xa, yb, xb))
    n = ya.size
    if pairs and n == yb.size and n > 1 and xa.sum() > 0 and xb.sum() > 0:
        # the linearised ratio of each unit, B minus A, summed like ratio_se's residuals
        d = (yb - rb * xb) / xb.sum() - (ya - ra * xa) / xa.sum()
        pse = float(np.sqrt(n / (n - 1) * np.sum(d * d)))
        if pse < se or not np.isfinite(se):
            row = _row(ra, rb, diff, *symmetric_test(diff, pse, n - 1),
                       "ratio of sums, paired delta method", True)
    return row


def estimate_difference(ea, la, ha, eb, lb, hb) -> dict:
    """Difference of two independent estimates given with symmetric-ish 95% intervals."""
    sa, sb = (ha - la) / (2 * _Z), (hb - lb) / (2 * _Z)
    diff = eb - ea
    return _row(ea, eb, diff, *symmetric_test(diff, np.sqrt(sa ** 2 + sb ** 2)),
                "difference of independent estimates (normal)", False)


def median_difference(ha, hb, pairs: bool, n_boot: int, seed: int) -> dict:
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
