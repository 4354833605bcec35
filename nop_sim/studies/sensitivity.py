"""What matters for what: sensitivity indices of a finished sweep (``nop-sim sensitivity``).

Two methods, chosen by the sweep's design:

- ``mode = "sobol"`` (Saltelli's design): first-order (``S1``) and total (``ST``)
  Sobol' indices of every key metric, with 95% bootstrap intervals, from
  ``SALib.analyze.sobol``. ``ST`` is the share of a metric's variance across
  points that goes away when the setting is fixed; ``S1`` the share the
  setting explains alone.
- any other sampled sweep (``random``, ``lhs``, ``lhs-cd``, ``qmc-sobol``):
  the delta moment-independent index (``delta``, Borgonovo's) and a
  first-order estimate (``S1``) from the points as they are, with 95%
  bootstrap intervals, from ``SALib.analyze.delta``; no special design needed.

Key metrics per point are the game's own (``Game.point_metrics``, the rows of
:func:`nop_sim.results.summary.point_summary`), the mean work per match, and the
largest seat and preset advantage (``|win rate - fair|``); the game is never
named here.

A knob is said to **matter** for a metric only when its index clearly exceeds
what noise alone gives. On a delta study that is a test against knobs with no
effect: :data:`DUMMIES` dummy knobs, random orders of the points drawn from the
run's seed (a dummy column of a Latin hypercube is a random order of the
points, and the delta index reads a knob through its ranks only), are put
through the same estimator (SALib's dummy-parameter idea, as a permutation
distribution). The *noise level* is their ``1 - 0.05 / m`` quantile, ``m`` the
number of (metric, knob) pairs analysed; a knob matters when its index is above
it. The dummies' indices carry the estimator's bias and spread at this many
points, so this is a permutation test, all pairs counted together
(Bonferroni): a knob with no effect is called "matters" for any metric at most
5% of the time. At 50 points the delta index of a dummy is about 0.1 to 0.25,
so an interval that merely excludes 0 says nothing. Otherwise a knob is **too
noisy to tell** (its interval reaches above the level: an effect beyond noise
is not ruled out) or **within noise** (its whole interval lies at or below
it); a metric where no knob matters is reported as too noisy to tell. A Sobol'
study has no such null distribution: there a knob matters only when the lower
end of its 95% interval lies above the level.

Every point is a Monte Carlo estimate, so simulation noise adds to the
variance across points. Its size per point is estimated by a delete-one-chunk
jackknife over (up to :data:`NOISE_POINTS`) points. Its share of the variance
across points is what a setting with no effect at all shows as a raw total
index (Jansen's estimator compares two independent estimates), so the total
index ``ST`` is reported with that share taken off and its interval widened
by the share's standard error; ``ST_raw`` is SALib's as it comes. On a Sobol'
study the noise level of ``ST`` and ``S1`` is :data:`MATTERS` (the noise is
already taken off), of ``ST_raw`` the noise share plus :data:`MATTERS`.
"""

from __future__ import annotations

import json
import math
import tomllib
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim import reporting as R
from nop_sim.core.errors import RunError, SensitivityError
from nop_sim.core.stats import ALPHA, CONFIDENCE, normal_quantile
from nop_sim.games import Game
from nop_sim.results.match_log import run_game
from nop_sim.results.store import load_strong_play, load_tables, not_a_run
from nop_sim.run.scenario import SWEEP_OPTIONS

__all__ = ["DUMMIES", "MIN_DELTA_POINTS", "MIN_SOBOL_SAMPLES", "NOISE_POINTS", "Sensitivity",
           "delta_null", "noise_quantile",
           "SensitivityError", "Study", "Written", "load_study", "sensitivity",
           "sensitivity_indices", "write_sensitivity"]

MIN_SOBOL_SAMPLES = 8   # base samples of a Saltelli design; fewer make the bootstrap meaningless
MIN_DELTA_POINTS = 40   # SALib's delta bins each setting into classes of at least 10 points
NOISE_POINTS = 64       # points the noise estimate looks at, spread over the sweep
MATTERS = 0.05          # Sobol': an index (noise taken off) whose interval starts above this matters
DUMMIES = 400           # delta: knobs with no effect the noise level is measured on
DUMMY_RESAMPLES = 5     # bootstrap of each dummy's bias reduction (fewer than a knob's: the
                        # dummies' spread only grows, which raises the level, never lowers it)
_DUMMY_KEY = 0x64756D   # spawn key of the dummies' random stream ("dum")
Z = normal_quantile(CONFIDENCE)
TOO_NOISY = 0.5         # Sobol': a metric whose variance across points is mostly noise: no verdict
# the index a knob is ranked by, per method, and what the report calls it
PRIMARY = {"sobol": "ST", "delta": "delta"}
INDEX_NAMES = {"ST": "total (ST)", "ST_raw": "total, noise kept", "S1": "first order (S1)",
               "delta": "delta"}


@dataclass
class Study:
    """A finished sweep, read for sensitivity analysis (:func:`load_study`)."""

    folder: Path
    name: str
    mode: str                  # the sweep's mode
    method: str                # "sobol" or "delta"
    knobs: list[str]           # the swept settings analysed, in [sweep] order
    x: np.ndarray              # (n_points, n_knobs) float: values, a choice as its index
    metrics: pd.DataFrame      # one row per point, one column per key metric
    noise: pd.Series           # metric -> mean per-point noise variance (NaN: unknown)
    noise_se: pd.Series        # metric -> its standard error (across the points used)
    noise_points: int          # points the noise estimate used
    matches_per_point: int
    second_order: bool
    seed: int


@dataclass
class Sensitivity:
    """Indices of every key metric: ``table`` has one row per (metric, knob, index) with
    ``metric, knob, index, value, ci_low, ci_high, noise_share, noise_level, verdict``
    (``noise_level``: the index a knob with no effect reaches, see the module's text;
    ``verdict``: matters, too noisy to tell, within noise or not computed)."""

    study: Study
    table: pd.DataFrame
    skipped: dict[str, str] = field(default_factory=dict)  # metric -> why it has no indices

    @property
    def primary(self) -> str:
        return PRIMARY[self.study.method]

    def findings(self) -> list[str]:
        """One line per metric, strongest first: the knob that matters most for it, or
        that it is too noisy to tell; then the knobs that matter for nothing."""
        t = self.table[self.table["index"] == self.primary]
        name = INDEX_NAMES[self.primary]
        lines, noisy = [], []
        for metric, g in t.groupby("metric", sort=False):
            top = g.sort_values("value", ascending=False).iloc[0]
            mattering = g[g["verdict"] == "matters"].sort_values("value", ascending=False)
            if len(mattering):
                m = mattering.iloc[0]
                lines.append((m["value"], f"{m['knob']} matters most for {metric}: {name} "
                              f"{m['value']:.2f} ({m['ci_low']:.2f} to {m['ci_high']:.2f}; "
                              f"noise level {m['noise_level']:.2f})"))
            elif np.isfinite(top["noise_level"]):
                noisy.append(f"{metric}: too noisy to tell (no knob's {name} clears "
                             f"the noise level {top['noise_level']:.2f}; largest: "
                             f"{top['knob']} {top['value']:.2f}, {top['ci_low']:.2f} to "
                             f"{top['ci_high']:.2f})")
            else:
                noisy.append(f"{metric}: too noisy to tell ({top['verdict']})")
        out = [text for _, text in sorted(lines, key=lambda v: -v[0])] + noisy
        idle = [k for k in self.study.knobs
                if not (t[(t["knob"] == k)]["verdict"] == "matters").any()]
        if idle:
            out.append(f"Shown to matter for no metric: {', '.join(idle)}")
        return out


# -- reading a sweep ------------------------------------------------------------------------
def load_study(folder: str | Path) -> Study:
    """Read a finished sweep folder; :class:`SensitivityError` when it cannot be analysed."""
    folder = Path(folder)
    other = not_a_run(folder)
    if other is not None:
        raise SensitivityError(other)
    path = folder / "manifest.json"
    if not path.is_file():
        raise SensitivityError(f"{folder}: not a nop-sim results folder (no manifest.json)")
    try:
        manifest = json.loads(path.read_text())
        sweep = tomllib.loads(manifest["scenario"]["text"]).get("sweep", {})
        points = manifest["points"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SensitivityError(f"{path}: cannot be read ({exc.__class__.__name__})") from None
    if manifest.get("status") != "finished":
        raise SensitivityError(f"{folder}: the run did not finish (status "
                               f"{manifest.get('status')!r}); finish it with nop-sim sweep "
                               f"SCENARIO --resume --out {folder}")
    knobs = [k for k in sweep if k not in SWEEP_OPTIONS]
    if not knobs or len(points) < 2:
        raise SensitivityError(f"{folder}: a run without a [sweep]; sensitivity needs a sampled "
                               f"sweep of 2 or more settings, e.g. [sweep] mode = \"sobol\"")
    mode = sweep.get("mode", "grid")
    if mode == "grid":
        raise SensitivityError(f"{folder}: a grid sweep; sensitivity needs a sampled design: "
                               f"[sweep] mode = \"sobol\" (Sobol' indices), or \"lhs\", "
                               f"\"lhs-cd\", \"qmc-sobol\", \"random\" (delta index)")
    x = np.column_stack([_knob_values([p["params"][k] for p in points], sweep[k])
                         for k in knobs])
    varying = [k for j, k in enumerate(knobs) if np.ptp(x[:, j]) > 0]
    if len(varying) < 2:
        raise SensitivityError(f"{folder}: the sweep varies {len(varying)} setting(s) "
                               f"({', '.join(varying) or 'none'}); sensitivity ranks settings "
                               f"against each other: vary at least 2")
    n = len(points)
    second = bool(sweep.get("second_order", False))
    if mode == "sobol":
        per = (2 if second else 1) * len(knobs) + 2
        if n % per or n // per < MIN_SOBOL_SAMPLES:
            raise SensitivityError(f"{folder}: {n} points are {n / per:g} Saltelli samples of "
                                   f"{len(knobs)} settings; Sobol' indices need samples >= "
                                   f"{MIN_SOBOL_SAMPLES}")
        method = "sobol"
    else:
        if n < MIN_DELTA_POINTS:
            raise SensitivityError(f"{folder}: {n} points; the delta index needs at least "
                                   f"{MIN_DELTA_POINTS} (SALib bins each setting into classes "
                                   f"of 10 or more points)")
        method = "delta"
        x = x[:, [knobs.index(k) for k in varying]]
        knobs = varying
    try:
        game = run_game(folder)
        names = [t for t in ("matches", "counts", "seats", "drafts") if t in game.tables]
        tables = load_tables(folder, names)
    except RunError as exc:
        raise SensitivityError(str(exc)) from None
    players = [p["settings"].get("players") for p in points]
    metrics, noise, noise_se, used = _metrics(tables, game, players)
    try:
        strong = load_strong_play(folder)
    except RunError as exc:
        raise SensitivityError(str(exc)) from None
    if strong is not None:
        metrics, noise, noise_se = _with_strong(strong, len(points), metrics, noise, noise_se)
    return Study(folder, manifest["scenario"]["name"], mode, method, knobs, x, metrics, noise,
                 noise_se, used, int(manifest["matches_per_point"]), second, int(manifest["seed"]))


def _with_strong(strong: tuple[pd.DataFrame, pd.DataFrame], n: int, metrics: pd.DataFrame,
                 noise: pd.Series, noise_se: pd.Series):
    """The strong-play metrics of a sweep run with ``--train [--value]`` added to the
    point metrics: ``exploitability`` and ``value_<mechanic>`` (points), their noise the
    mean variance their 95% intervals give (and its standard error over the points)."""
    trained, values = strong
    frames = [trained.rename(columns={"exploitability": "value", "exploitability_low": "low",
                                      "exploitability_high": "high"}).assign(name="exploitability")]
    frames += [g.assign(name=f"value_{m}") for m, g in values.groupby("mechanic", sort=False)]
    metrics, noise, noise_se = metrics.copy(), noise.copy(), noise_se.copy()
    for f in frames:
        f = f.set_index("point").reindex(range(n))
        name = str(f["name"].dropna().iloc[0]) if f["name"].notna().any() else None
        if name is None:
            continue
        metrics[name] = f["value"].to_numpy(float)
        var = ((f["high"] - f["low"]).to_numpy(float) / (2 * Z)) ** 2
        noise[name] = float(np.nanmean(var))
        noise_se[name] = float(np.nanstd(var, ddof=1) / math.sqrt(max(n, 1))) if n > 1 else np.nan
    return metrics, noise, noise_se


def _knob_values(values: list, spec) -> np.ndarray:
    """A swept setting's values as numbers: themselves, or a choice's index in its list."""
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return np.asarray(values, float)
    choices = list(spec) if isinstance(spec, list) else sorted(set(map(str, values)))
    keys = [json.dumps(c, sort_keys=True, default=str) for c in choices]
    return np.array([keys.index(json.dumps(v, sort_keys=True, default=str)) for v in values],
                    float)


def _metric_row(game: Game, matches: pd.DataFrame, counts: pd.DataFrame,
                seats: pd.DataFrame | None, players,
                drafts: pd.DataFrame | None = None) -> dict:
    """The key metrics of one point's matches (and the game's ``extra_metrics``)."""
    row = dict(game.point_metrics(matches, counts))
    row.update(game.extra_values({"matches": matches, "counts": counts, "seats": seats,
                                  "drafts": drafts}))
    row.pop("matches", None)
    work = row.pop(game.work, None)
    if work is not None and len(matches):
        row[f"mean_{game.work}"] = work / len(matches)
    if seats is not None and len(seats) and "place" in seats:
        fair = game.fair_win_rate(matches, int(players or seats["seat"].nunique()))
        won = seats["place"] == 1
        for by in ("seat", "preset"):
            if by in seats:
                rates = won.groupby(seats[by], observed=True).mean()
                row[f"max_{by}_advantage"] = float((rates - fair).abs().max())
    return {k: float(v) for k, v in row.items()}


def _metrics(tables: dict, game: Game, players: list
             ) -> tuple[pd.DataFrame, pd.Series, pd.Series, int]:
    """Key metrics per point; the mean per-point noise variance of each (jackknife) and its
    standard error; the number of points the noise was measured on."""
    by_point = {name: dict(tuple(t.groupby("point", sort=True, observed=True)))
                for name, t in tables.items()}
    empty = {name: t.iloc[:0] for name, t in tables.items()}
    n = len(players)

    def part(name, p):
        return by_point[name].get(p, empty[name]) if name in tables else None

    rows = [_metric_row(game, part("matches", p), part("counts", p), part("seats", p),
                        players[p], part("drafts", p)) for p in range(n)]
    metrics = pd.DataFrame(rows)
    spread = np.unique(np.linspace(0, n - 1, min(n, NOISE_POINTS)).round().astype(int))
    variances, used = [], 0
    for p in spread:
        m, c, s, d = (part(t, p) for t in ("matches", "counts", "seats", "drafts"))
        chunks = np.unique(m["chunk"]) if "chunk" in m else []
        if len(chunks) < 2:
            continue
        leave_out = pd.DataFrame([
            _metric_row(game, m[m["chunk"] != k], c[c["chunk"] != k],
                        None if s is None else s[s["chunk"] != k], players[p],
                        None if d is None else d[d["chunk"] != k])
            for k in chunks])
        k = len(chunks)
        variances.append((k - 1) / k * ((leave_out - leave_out.mean()) ** 2).sum())
        used += 1
    per_point = pd.DataFrame(variances, columns=metrics.columns)
    noise_se = per_point.std(ddof=1) / math.sqrt(used) if used > 1 else per_point.sum() * np.nan
    return metrics, per_point.mean(), noise_se, used


# -- indices --------------------------------------------------------------------------------
def sensitivity_indices(study: Study, *, resamples: int = 200
                        ) -> tuple[pd.DataFrame, dict[str, str]]:
    """The indices of every key metric (see :class:`Sensitivity`) and the metrics left out
    (metric -> why). Bootstrap intervals are 95%, seeded from the run's seed."""
    rows, skipped = [], {}
    seed = study.seed % (2**32 - 1) + 1  # SALib draws unseeded for a seed of 0
    dummies = (_dummy_ranks(len(study.metrics), study.seed) if study.method == "delta"
               else None)
    for metric in study.metrics.columns:
        y = study.metrics[metric].to_numpy(float)
        if not np.isfinite(y).all():
            skipped[metric] = "not a number at some points"
        elif np.std(y) <= 1e-12 * (1 + abs(np.mean(y))):
            skipped[metric] = "the same at every point"
    analysed = [m for m in study.metrics.columns if m not in skipped]
    quantile = noise_quantile(len(analysed) * len(study.knobs))
    for number, metric in enumerate(study.metrics.columns):
        if metric in skipped:
            continue
        y = study.metrics[metric].to_numpy(float)
        share = float(study.noise[metric] / np.var(y))
        share_se = float(study.noise_se[metric] / np.var(y))
        if dummies is not None:
            rng = np.random.default_rng(np.random.SeedSequence(
                study.seed, spawn_key=(_DUMMY_KEY, number)))
            null_delta, null_s1 = delta_null(y, dummies, DUMMY_RESAMPLES, rng)
            levels = {"delta": float(np.quantile(null_delta, quantile)),
                      "S1": float(np.quantile(null_s1, quantile))}
        else:
            levels = {"ST": MATTERS, "S1": MATTERS,
                      "ST_raw": (share if np.isfinite(share) else 0.0) + MATTERS}
        for index, knob, value, half in _analyze(study, y, resamples, seed):
            if index == "ST" and np.isfinite(share):
                # Jansen's ST of a knob with no effect is the noise share, not 0: two
                # independent estimates differ by their noise. Take it off, and widen the
                # interval by the share's own uncertainty.
                rows.append(_row(metric, knob, "ST_raw", value, half, share,
                                 levels["ST_raw"]))
                value, half = value - share, math.hypot(half, Z * np.nan_to_num(share_se))
            rows.append(_row(metric, knob, index, value, half, share, levels[index]))
    table = pd.DataFrame(rows, columns=["metric", "knob", "index", "value", "ci_low", "ci_high",
                                        "noise_share", "noise_level"])
    tested = study.method == "delta"
    table["verdict"] = [
        _verdict(lo, v, hi, level, np.nan if tested else ns, tested)
        for lo, v, hi, level, ns in zip(table["ci_low"], table["value"], table["ci_high"],
                                        table["noise_level"], table["noise_share"],
                                        strict=True)]
    return table, skipped


def _row(metric, knob, index, value, half, share, level) -> dict:
    return {"metric": metric, "knob": knob, "index": index, "value": value,
            "ci_low": value - half, "ci_high": value + half, "noise_share": share,
            "noise_level": level}


def _analyze(study: Study, y: np.ndarray, resamples: int, seed: int):
    """``(index, knob, value, half width)`` for each index and knob."""
    d = len(study.knobs)
    names = [f"x{j}" for j in range(d)]  # SALib's delta refuses names ending in _step
    fmt, state = warnings.formatwarning, np.random.get_state()  # SALib sets both globally
    try:
        with warnings.catch_warnings(record=True):  # SALib's delta resets the filters itself
            warnings.simplefilter("ignore")
            if study.method == "sobol":
                from SALib.analyze import sobol  # here: SALib loads slowly; one analysis is asked

                problem = {"num_vars": d, "names": names, "bounds": [[0.0, 1.0]] * d}
                res = sobol.analyze(problem, y, calc_second_order=study.second_order,
                                    num_resamples=resamples, conf_level=CONFIDENCE, seed=seed)
                pairs = (("ST", "ST"), ("S1", "S1"))
            else:
                from SALib.analyze import delta  # here: SALib loads slowly; one analysis is asked

                bounds = [[float(c.min()), float(c.max())] for c in study.x.T]
                problem = {"num_vars": d, "names": names, "bounds": bounds}
                res = delta.analyze(problem, study.x, y, num_resamples=resamples,
                                    conf_level=CONFIDENCE, seed=seed)
                # SALib 1.6 calls the classic index delta_raw (beside balanced and step)
                pairs = (("delta", "delta_raw" if "delta_raw" in res else "delta"), ("S1", "S1"))
    finally:
        warnings.formatwarning = fmt
        np.random.set_state(state)
    for index, key in pairs:
        for j in range(d):
            yield index, study.knobs[j], float(res[key][j]), float(res[f"{key}_conf"][j])


def _verdict(low: float, value: float, high: float, level: float, noise_share: float,
             tested: bool) -> str:
    """``matters``: above the noise level, the index itself when the level is a tested null
    quantile (``tested``: delta, the dummies), else the whole interval (Sobol')."""
    if not all(np.isfinite(v) for v in (low, value, high, level)):
        return "not computed"
    if noise_share > TOO_NOISY:  # NaN (delta: the dummies measure the noise) never is
        return "too noisy to tell"
    if (value if tested else low) > level:
        return "matters"
    return "too noisy to tell" if (high if tested else value) > level else "within noise"


# -- the noise level of the delta index: knobs with no effect --------------------------------
def noise_quantile(pairs: int) -> float:
    """The quantile of the dummies' indices the noise level is: ``1 - 0.05 / pairs``
    (0.95 for one pair, 0.9979 for 8 metrics x 3 knobs)."""
    return 1 - ALPHA / max(pairs, 1)


def _dummy_ranks(n_points: int, seed: int) -> np.ndarray:
    """:data:`DUMMIES` dummy knobs, each a random order of the points (ranks 0..n-1):
    (DUMMIES, n_points) int, drawn from the run's seed."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_DUMMY_KEY,)))
    return np.stack([rng.permutation(n_points) for _ in range(DUMMIES)])


def delta_null(y: np.ndarray, dummies: np.ndarray, resamples: int,
               rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The delta index (bias-reduced, raw bootstrap) and first-order estimate of each dummy
    knob in ``dummies`` (k, n), as SALib's ``delta.analyze`` computes them for a real knob:
    ``2 d(one resample) - d(each of resamples more)`` averaged, and S1 on one resample.

    Vectorised over the resamples (SALib's own loop takes about 10 ms per resample, 50
    dummies x 200 resamples would take minutes); :func:`_delta_hat` equals SALib's
    ``calc_delta`` (a test holds them together). Returns two (k,) arrays.
    """
    n = y.size
    # SALib's equal-frequency partition of the ranks and its grid of outputs
    exp = 2.0 / (7.0 + np.tanh((1500.0 - n) / 500.0))
    m = np.linspace(0, n, int(np.round(min(int(np.ceil(n ** exp)), 48))) + 1)
    grid = np.linspace(y.min(), y.max(), 100)
    k, b = len(dummies), resamples + 1
    idx = rng.integers(n, size=(k, b, n))
    ys = y[idx].reshape(k * b, n)
    xs = np.take_along_axis(dummies[:, None, :], idx, axis=2).reshape(k * b, n)
    rows = max(1, 4_000_000 // (100 * n))  # (rows, n, grid) floats at a time: 32 MB
    d = np.concatenate([_delta_hat(ys[i:i + rows], xs[i:i + rows], grid, m)
                        for i in range(0, k * b, rows)]).reshape(k, b)
    deltas = np.mean(2.0 * d[:, :1] - d[:, 1:], axis=1)
    one = rng.integers(n, size=(k, n))
    firsts = np.array([_first_order(y[o], x[o], m) for x, o in zip(dummies, one, strict=True)])
    return deltas, firsts


def _classes(x: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, list[slice]]:
    """Sort order of each row of ``x`` (b, n) by ordinal rank (ties in order of appearance,
    as scipy's ``rankdata(method="ordinal")``), and the slices of that order that fall in
    each class ``m[j] < rank <= m[j + 1]``."""
    order = np.argsort(x, axis=-1, kind="stable")
    edges = np.floor(m).astype(int)
    return order, [slice(a, b) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def _kde(y: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Gaussian kernel density of each row of ``y`` (b, k) on ``grid``, Silverman's
    bandwidth as scipy's ``gaussian_kde(bw_method="silverman")``: (b, len(grid))."""
    k = y.shape[1]
    h = (k * 3.0 / 4.0) ** (-1.0 / 5.0) * y.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (grid[None, None, :] - y[:, :, None]) / h[:, None, None]
        return np.exp(-0.5 * z * z).sum(axis=1) / (k * h[:, None] * math.sqrt(2 * math.pi))


def _delta_hat(y: np.ndarray, x: np.ndarray, grid: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Plischke et al.'s estimator (SALib's ``calc_delta``) of each row of ``y``, ``x``
    (b, n): half the distance between the density of y and its density within each class
    of x's ranks, weighted by the class's size; a class where y is constant is skipped."""
    n = y.shape[1]
    order, classes = _classes(x, m)
    ys = np.take_along_axis(y, order, axis=1)
    fy = _kde(y, grid)
    d = np.zeros(len(y))
    for cls in classes:
        yc = ys[:, cls]
        if yc.shape[1] == 0:
            continue
        varies = np.ptp(yc, axis=1) != 0
        part = np.trapezoid(np.abs(fy - _kde(yc, grid)), grid, axis=1)
        d += np.where(varies, yc.shape[1] / (2 * n) * np.nan_to_num(part), 0.0)
    return d


def _first_order(y: np.ndarray, x: np.ndarray, m: np.ndarray) -> float:
    """SALib's ``sobol_first``: the share of y's variance its class means explain."""
    if np.ptp(y) == 0:
        return 0.0
    order, classes = _classes(x[None, :], m)
    ys = y[order[0]]
    return float(sum(len(ys[c]) / len(y) * (ys[c].mean() - y.mean()) ** 2
                     for c in classes if len(ys[c])) / np.var(y))


def sensitivity(folder: str | Path, *, resamples: int = 200) -> Sensitivity:
    """Read a finished sweep and compute its indices (no files written)."""
    study = load_study(folder)
    table, skipped = sensitivity_indices(study, resamples=resamples)
    if table.empty:
        raise SensitivityError(f"{folder}: no key metric varies across the points "
                               f"({'; '.join(f'{k}: {v}' for k, v in skipped.items())})")
    return Sensitivity(study, table, skipped)


# -- report ---------------------------------------------------------------------------------
def _ranked(s: Sensitivity) -> pd.DataFrame:
    """What matters for what: per metric (strongest first), knobs by their primary index."""
    t = s.table
    primary = t[t["index"] == s.primary].set_index(["metric", "knob"])
    first = t[t["index"] == "S1"].set_index(["metric", "knob"])
    order = primary.groupby(level="metric", sort=False)["value"].max().sort_values(
        ascending=False).index
    rows = []
    for metric in order:
        g = primary.loc[metric].sort_values("value", ascending=False)
        for rank, (knob, r) in enumerate(g.iterrows(), 1):
            f = first.loc[(metric, knob)]
            rows.append({"metric": metric, "rank": rank, "knob": knob,
                         INDEX_NAMES[s.primary]: R.num_ci(r["value"], r["ci_low"], r["ci_high"]),
                         "noise level": R.num(r["noise_level"]),
                         INDEX_NAMES["S1"]: R.num_ci(f["value"], f["ci_low"], f["ci_high"]),
                         "noise share": R.pct(r["noise_share"]), "verdict": r["verdict"]})
    return pd.DataFrame(rows)


def _findings(s: Sensitivity):
    items = s.findings()
    return [R.Bullets(items, links=["ranked"] * len(items)), R.Note(_rule(s), "muted")]


def _rule(s: Sensitivity) -> str:
    """What the verdicts mean, for this study's method."""
    name = INDEX_NAMES[s.primary]
    if s.study.method == "delta":
        pairs = s.table.groupby(["metric", "knob"]).ngroups
        level = (f"the **noise level**: the {name} index that {DUMMIES:,} dummy knobs with no "
                 f"effect stay below with probability {noise_quantile(pairs):.4g} (random "
                 f"orders of the points, seeded from the run, put through the same "
                 f"estimator): 1 - 5% / {pairs}, for the {pairs} metric-knob pairs tested, so "
                 f"that a knob with no effect is called **matters** for any metric at most 5% "
                 f"of the time")
    else:
        level = (f"the **noise level**: {MATTERS:.0%}, the noise share being taken off the "
                 f"total index already")
    if s.study.method == "delta":
        return (f"A knob **matters** for a metric only when its {name} index lies above "
                f"{level}. **Too noisy to tell**: not above it, but its 95% interval reaches "
                f"above it; **within noise**: its whole interval lies at or below what a knob "
                f"with no effect gets. Neither says the knob has no effect: more matches per "
                f"point, or more points, can show one.")
    return (f"A knob **matters** for a metric only when its whole 95% {name} interval lies "
            f"above {level}. **Too noisy to tell**: the index is above the noise level but "
            f"its interval reaches it"
            + (f", or simulation noise is more than {TOO_NOISY:.0%} of the metric's "
               f"variance across points" if s.study.method == "sobol" else "")
            + "; **within noise**: no larger than what a knob with no effect gets. Neither "
            "says the knob has no effect: more matches per point, or more points, can "
            "show one.")


def _ranked_section(s: Sensitivity):
    full = s.table.copy()
    return [R.Table(_ranked(s), "Knobs ranked per metric, 95% bootstrap intervals",
                    csv="ranked.csv", full=full)]


def _indices(s: Sensitivity):
    blocks = []
    knobs = s.study.knobs
    second = s.primary
    for metric, g in s.table.groupby("metric", sort=False):
        fig, axes = R.figure(0.9 + 0.42 * len(knobs))
        ax = axes[0, 0]
        for index, color, offset in ((second, R.PALETTE["blue"], 0.15),
                                     ("S1", R.PALETTE["orange"], -0.15)):
            r = g[g["index"] == index].set_index("knob").loc[knobs]
            R.hbar_ci(ax, knobs, r["value"], r["ci_low"], r["ci_high"], color=color,
                      offset=offset, label=INDEX_NAMES[index], percent=False)
        ax.axvline(0, color="black", lw=0.6)
        level = g.loc[g["index"] == second, "noise_level"].iloc[0]
        if np.isfinite(level):
            ax.axvline(level, color=R.PALETTE["blue"], ls="--", lw=1,
                       label=f"noise level of {INDEX_NAMES[second]}")
        ax.set_xlabel("index (share of the variance across points)" if s.study.method == "sobol"
                      else "index")
        ax.set_title(metric, fontsize=10, loc="left")
        R.hbar_legend(ax, fontsize=8)
        blocks.append(R.png(fig, f"indices_{metric}",
                            f"{metric}: {INDEX_NAMES[second]} and first-order indices of each "
                            f"knob, 95% bootstrap intervals; dashed: the noise level a knob's "
                            f"interval must clear to matter."))
    if s.skipped:
        blocks.append(R.Note("No indices for: " + "; ".join(f"{k} ({v})"
                                                            for k, v in s.skipped.items()),
                             "muted"))
    return blocks


def _noise(s: Sensitivity):
    st = s.study
    if not st.noise_points:
        dummies = (" The noise level of every index is measured with dummy knobs all the "
                   "same." if st.method == "delta" else "")
        return [R.Note("Simulation noise adds to the variance across points, but its size "
                       "per point could not be estimated here: every point is one chunk. Set "
                       "[run] chunk below matches to measure it." + dummies, "warning")]
    rows = []
    for metric in st.metrics.columns:
        if metric in s.skipped:
            continue
        y = st.metrics[metric].to_numpy(float)
        rows.append({"metric": metric, "sd across points": R.num(np.std(y), 3),
                     "noise sd per point": R.num(math.sqrt(st.noise[metric]), 3),
                     "noise share": R.pct(st.noise[metric] / np.var(y))})
    fixed = (" Total indices are shown with the noise share taken off (`ST`; as SALib gives "
             "them: `ST_raw` in sensitivity.csv), their intervals widened by the share's own "
             "uncertainty." if st.method == "sobol" else
             f" The delta index is not corrected for it; it is compared with the noise level "
             f"instead, what {DUMMIES} dummy knobs with no effect reach (the `noise level` "
             f"column), which holds the noise of the points and the estimator's own bias at "
             f"{len(st.metrics)} points.")
    text = (f"Each point is {st.matches_per_point:,} matches, an estimate with its own noise, "
            f"which adds to the variance across points. Noise per point is estimated by a "
            f"delete-one-chunk jackknife over {st.noise_points} points. Its share of the "
            f"variance is what a knob with no effect at all shows as a raw total index, and "
            f"what no knob can explain.{fixed} Where the share is large, run more matches "
            f"per point.")
    return [R.Note(text), R.Table(pd.DataFrame(rows), "Simulation noise per metric",
                                  csv="noise.csv")]


def _design(s: Sensitivity):
    st = s.study
    how = ("Sobol' indices from Saltelli's design (SALib `sobol.analyze`)"
           if st.method == "sobol" else
           "the delta moment-independent index and a first-order estimate from the points "
           "as they are (SALib `delta.analyze`)")
    return [R.Note(f"Sweep mode `{st.mode}`: {len(st.metrics)} points x "
                   f"{st.matches_per_point:,} matches, knobs {', '.join(st.knobs)}; {how}.")]


SECTIONS = [
    R.SectionSpec("findings", "What matters", "The knob that matters most for each metric.",
                  _findings),
    R.SectionSpec("ranked", "What matters for what", "Every knob for every metric, ranked.",
                  _ranked_section),
    R.SectionSpec("indices", "Indices per metric", "One chart per key metric.", _indices),
    R.SectionSpec("noise", "Simulation noise", "How much of the variance is Monte Carlo noise.",
                  _noise),
    R.SectionSpec("design", "Design", "", _design),
]


@dataclass
class Written:
    """What :func:`write_sensitivity` wrote, and the findings it printed."""

    result: Sensitivity
    csv: Path
    report: Path


def write_sensitivity(folder: str | Path, out: str | Path | None = None, *,
                      resamples: int = 200) -> Written:
    """Compute the indices of a finished sweep and write ``sensitivity.csv`` and the report
    (``report.html``, ``report.md``) into ``out`` (default ``<folder>/sensitivity``)."""
    s = sensitivity(folder, resamples=resamples)
    out = Path(out) if out is not None else Path(folder) / "sensitivity"
    out.mkdir(parents=True, exist_ok=True)
    csv = R.atomic_write(out / "sensitivity.csv", s.table.to_csv(index=False))
    sections = R.build_sections(SECTIONS, s, number_from=1)
    st = s.study
    meta = (f"{st.name}: {len(st.metrics)} points x {st.matches_per_point:,} matches, "
            f"mode {st.mode}, {len(sections)} sections")
    report = R.write_report(R.Report(f"nop-sim sensitivity: {st.name}", meta, sections), out)
    return Written(s, csv, report)
