"""The sections of a sweep: points ranked by their targets, each metric against each
swept parameter, heat maps for pairs (:data:`SWEEP_SECTIONS`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import matplotlib
import numpy as np
import pandas as pd
from scipy import stats

from nop_sim import reporting as R
from nop_sim.core.stats import (
    ALPHA,
    CONFIDENCE,
    best_points,
    normal_quantile,
    pool_estimates,
    rank_points,
    ranking_lines,
)
from nop_sim.games.new_order import analysis as A
from nop_sim.games.new_order.report.common import (
    QUIET_KEYS,
    SHORT,
    STRONG_KEYS,
    _formatter,
    _kind,
    _metric_text,
)
from nop_sim.games.new_order.report.point import POINT_SECTIONS
from nop_sim.reporting import (
    PALETTE,
    Csv,
    Note,
    SectionSpec,
    Table,
    interval_err,
    isnum,
    num_ci,
    pct,
)
from nop_sim.results.run_data import RunData
from nop_sim.results.store import UNSETTLED


def _relabel(run: RunData, groups: pd.Series, labels: dict[int, dict]) -> RunData:
    """The run with points replaced by groups of points (pooled per group).

    ``groups`` maps point -> group id; ``labels`` gives each group's params.
    Settings of a group are those of its first point, with ``players``
    dropped when the points disagree on it (fairness is then not computed).
    """
    tables = {}
    for name, t in run.tables.items():
        if "point" in t.columns and len(t):
            if "match" in t.columns:   # keep matches of merged points apart
                t = t.assign(match=t["point"].astype(np.int64) * 1_000_000_000
                             + t["match"].astype(np.int64))
            t = t.assign(point=t["point"].map(groups))
            if name == "arrays":
                t = (t.groupby(["point", "table", "stat", "index", "label"], as_index=False)
                     ["value"].sum())
        tables[name] = t
    points = []
    for gid, params in labels.items():
        members = [p for p, g in groups.items() if g == gid]
        settings = run.settings(members[0])
        players = {run.players(p) for p in members}
        if len(players) > 1:
            settings["players"] = None
        points.append({"point": gid, "params": params, "settings": settings,
                       "seats": (run._points_by_id.get(members[0]) or {}).get("seats", [])})
    manifest = dict(run.manifest)
    manifest["points"] = points
    pooled = RunData(manifest, tables, run.folder)
    strong = run.strong_play
    if strong is not None:  # each group's trainings and values, pooled alike
        trained, values = strong
        pooled.__dict__["strong_play"] = (
            pool_estimates(trained, groups, "exploitability", "exploitability_low",
                             "exploitability_high"),
            pool_estimates(values, groups, "value", "low", "high", by=["mechanic"]))
    return pooled


def _axis_values(values: pd.Series, max_bins: int = 6):
    """Group labels for a swept parameter: its values, or quantile bins when continuous."""
    uniq = pd.unique(values)
    if len(uniq) <= max_bins * 2 or not np.issubdtype(np.asarray(uniq).dtype, np.number):
        return values, sorted(uniq, key=lambda v: (isinstance(v, str), v))
    bins = pd.qcut(values.astype(float), q=max_bins, duplicates="drop")
    centres = bins.map(lambda iv: round(float(iv.mid), 3)).astype(float)
    return centres, sorted(pd.unique(centres))


def _pooled_metrics(run: RunData, by: list[str], n_boot: int) -> pd.DataFrame:
    """:func:`analysis.point_metrics` with points pooled by the values of ``by``."""
    params = pd.DataFrame([{"point": p, **run.params(p)} for p in run.points])
    keys = []
    for name in by:
        col, _ = _axis_values(params[name])
        keys.append(col.astype(object).to_numpy())
    combos = pd.Series(list(zip(*keys, strict=True)), index=params["point"])
    ids = {c: i for i, c in enumerate(sorted(set(combos), key=lambda c: tuple(
        (isinstance(v, str), str(v) if isinstance(v, str) else v) for v in c)))}
    groups = combos.map(ids)
    labels = {i: dict(zip(by, c, strict=True)) for c, i in ids.items()}
    pooled = _relabel(run, groups, labels)
    metrics = A.point_metrics(pooled, n_boot=n_boot)
    single_players = all(pooled.setting(g, "players") is not None for g in labels)
    if not single_players:
        for k in ("max_seat_advantage", "max_preset_advantage"):
            for suffix in ("", "_low", "_high"):
                if k + suffix in metrics:
                    metrics[k + suffix] = np.nan
    return metrics


@dataclass
class _Sweep:
    """What the sweep sections share: the run, its per-point metrics and their ranking."""

    run: RunData
    n_boot: int = 300
    max_pairs: int = 6
    metrics: pd.DataFrame = field(init=False)
    ranked: pd.DataFrame = field(init=False)
    best: int = field(init=False)

    def __post_init__(self):
        self.metrics = A.point_metrics(self.run, n_boot=self.n_boot)
        self.ranked = rank_points(self.metrics, self.run.targets,
                                    kinds=self.run.target_kinds)
        self.best = (int(self.ranked["point"].iloc[0]) if self.run.targets
                     else self.run.points[0])

    def keys(self, varying: bool = False) -> list[str]:
        """Key metrics present in the sweep, targeted ones first; with ``varying``, only
        those that change across points (a flat panel says nothing), and the strong-play
        metrics only where targeted (their own section draws them)."""
        present = [k for k in A.METRICS if k in self.metrics
                   and self.metrics[k].notna().any()]
        targeted = [k for k in present if A.METRICS[k][1] in self.run.targets]
        if varying:
            present = [k for k in present if self.metrics[k].nunique(dropna=True) > 1
                       and (k in targeted or k not in (*STRONG_KEYS, *QUIET_KEYS))]
        return targeted + [k for k in present if k not in targeted]


def _ranking(s: _Sweep) -> list:
    r, swept, targets = s.ranked, s.run.swept, s.run.targets
    t = pd.DataFrame({"rank" if targets else "point":
                      [str(int(x)) for x in (r["rank"] if targets else r["point"])]})
    if targets:
        t["point"] = [str(int(x)) for x in r["point"]]
    for k in swept:
        t[k] = r[k].astype(str)
    if targets:  # first: what the ranking rests on, and whether it can tell the point apart
        t["distance (95% CI)"] = [num_ci(x, lo, hi, 3) for x, lo, hi in zip(
            r["distance"], r["distance_low"], r["distance_high"], strict=True)]
        t["told apart from rank 1"] = ["–" if i == 0 else "no" if w else "yes"
                                       for i, w in enumerate(r["with_best"])]
    for k in s.keys():
        if k in QUIET_KEYS and A.METRICS[k][1] not in targets:
            continue  # in the CSV and summary.md: the table stays readable
        t[A.METRICS[k][0]] = [_metric_text(k, v) for v in r[k]]
    flags = _flags(s) if s.run.strong_play is not None else {}
    if flags:  # never silently ranked: what makes a point's strong-play numbers unsafe
        t["flag"] = [flags.get(int(p), "") for p in r["point"]]
    if targets:
        lines = ranking_lines(r, swept)
        tied = best_points(r)
        blocks: list = [Note(
            (lines[0][0].upper() + lines[0][1:] + ". " if lines else "")
            + (f"{lines[1][0].upper() + lines[1][1:]}; the numbered sections below describe "
               f"it. " if len(lines) > 1 else "")
            + "Targets: " + ", ".join(f"{k} = {v:g}" for k, v in targets.items())
            + ". Distance = root of the summed squared relative misses; ceilings (max_*, "
            "unresolved_share, a { max = ... }) and floors ({ min = ... }) cost nothing when "
            "met. Its 95% interval comes from each "
            "targeted metric's own interval (seeded draws); a point is told apart from the "
            "best only when the interval of the difference of their distances leaves 0 out.",
            "warning" if len(tied) > 1 else "p"), _ranking_figure(s)]
        highlight = [i for i, w in enumerate(r["with_best"]) if w] or [0]
    else:
        blocks = [Note(f"No [targets] in the scenario: points are listed in order; the "
                       f"{len(POINT_SECTIONS)} numbered sections below describe point "
                       f"{s.best}.", "muted")]
        highlight = []
    caption = "Sweep points" + (f" (best 60 of {len(t)})" if len(t) > 60 else "")
    blocks.append(Table(t.head(60), caption, highlight[:60], "sweep_points.csv", r))
    return blocks


def _ranking_figure(s: _Sweep) -> R.Figure:
    top = s.ranked.head(25)
    labels = [f"{int(p)}: " + ", ".join(f"{k}={row[k]}" for k in s.run.swept)
              for p, (_, row) in zip(top["point"], top.iterrows(), strict=True)]
    fig, axes = R.figure(0.26 * len(top) + 1.2)
    ax = axes[0, 0]
    y = np.arange(len(top))[::-1]
    tied = top["with_best"].astype(bool).to_numpy()
    colors = [PALETTE["vermillion"] if t else PALETTE["blue"] for t in tied]
    ax.barh(y, top["distance"], color=colors, height=0.7)
    if top["distance_low"].notna().any():
        ax.errorbar(top["distance"], y, xerr=interval_err(
            top["distance"].to_numpy(float), top["distance_low"].to_numpy(float),
            top["distance_high"].to_numpy(float)), fmt="none", ecolor="black", lw=0.9,
            capsize=2)
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel("distance to targets (relative, unitless)")
    ax.grid(axis="y", visible=False)
    which = ("vermillion: the best point, told apart from every other" if tied.sum() == 1 else
             f"vermillion: the {int(tied.sum())} points shown that cannot be told apart from "
             f"the closest")
    return R.png(fig, "sweep_ranking", f"Distance to the targets of the best {len(top)} "
                 f"points (0 = every target met) with 95% intervals; {which}.")


def _per_param(s: _Sweep) -> list:
    blocks = []
    keys = s.keys(varying=True)
    for name in s.run.swept:
        pooled = _pooled_metrics(s.run, [name], s.n_boot)
        blocks += [_param_figure(s, name, pooled, keys), Csv(f"sweep_by_{name}.csv", pooled)]
    return blocks


def _param_x(s: _Sweep, name: str, pooled: pd.DataFrame):
    """x of the pooled values and of each point; categorical values get positions."""
    raw = s.metrics[name]
    categorical = not np.issubdtype(np.asarray(pd.unique(raw)).dtype, np.number)
    order = list(pooled[name])
    if categorical:
        pos = {v: i for i, v in enumerate(order)}
        return categorical, order, np.array([pos[v] for v in order], float), \
            raw.map(pos).to_numpy(float)
    return categorical, order, pooled[name].to_numpy(float), raw.to_numpy(float)


def _param_figure(s: _Sweep, name: str, pooled: pd.DataFrame, keys: list[str]) -> R.Figure:
    ncols = 3 if len(keys) > 4 else 2
    nrows = -(-len(keys) // ncols)
    fig, axes = R.figure(2.5 * nrows + 0.4, ncols=ncols, nrows=nrows)
    categorical, order, x_pooled, x_points = _param_x(s, name, pooled)
    spread = 0.08 if categorical else 0.015 * (np.ptp(x_pooled) or 1)
    jitter = np.random.default_rng(0).uniform(-spread, spread, x_points.size)
    for ax, key in zip(axes.ravel(), keys, strict=False):
        ax.scatter(x_points + jitter, s.metrics[key].to_numpy(float), s=10,
                   color=PALETTE["grey"], alpha=0.6, lw=0, zorder=2)
        _pooled_panel(ax, pooled, key, x_pooled, categorical)
        target_name = A.METRICS[key][1]
        target = s.run.targets.get(target_name) if target_name else None
        if target is not None:
            ax.axhline(target, color=PALETTE["vermillion"], ls="--", lw=1.1)
        ax.set_title(SHORT.get(key, key), loc="left", fontsize=9.5)
        ax.set_xlabel(name)
        ax.yaxis.set_major_formatter(_formatter(_kind(key)))
        if _kind(key) != "plain":
            ax.set_ylim(bottom=max(ax.get_ylim()[0], 0))
        if categorical:
            ax.set_xlim(-0.5, len(order) - 0.5)
            ax.set_xticks(x_pooled, [str(v) for v in order])
    R.hide_unused(axes, len(keys))
    return R.png(fig, f"sweep_{name}", f"Key numbers against {name}: blue = all points with "
                 f"that {name} pooled, with its 95% interval (band or bars); grey dots = "
                 "single points; dashed = target.")


def _pooled_panel(ax, pooled: pd.DataFrame, key: str, x: np.ndarray, categorical: bool):
    """The pooled value of ``key`` with its interval: bars for unordered values (no line
    between them), a line and band for numbers."""
    y = pooled[key].to_numpy(float)
    has_ci = f"{key}_low" in pooled
    lo = pooled[f"{key}_low"].to_numpy(float) if has_ci else None
    hi = pooled[f"{key}_high"].to_numpy(float) if has_ci else None
    if categorical:
        err = interval_err(y, lo, hi) if has_ci else None
        ax.errorbar(x, y, yerr=err, fmt="o", color=PALETTE["blue"], ms=5, zorder=3)
        return
    if has_ci:
        ax.fill_between(x, lo, hi, color=PALETTE["blue"], alpha=0.22, lw=0, zorder=1)
    ax.plot(x, y, "-o", color=PALETTE["blue"], ms=4, zorder=3)


def _pairs(s: _Sweep) -> list:
    swept = s.run.swept
    pairs = [(a, b) for i, a in enumerate(swept) for b in swept[i + 1:]]
    if not pairs:
        return [Note("Only one parameter is swept: no pairs.", "muted")]
    blocks = []
    keys = s.keys(varying=True)[:4]
    for a, b in pairs[:s.max_pairs]:
        pooled = _pooled_metrics(s.run, [a, b], s.n_boot)
        blocks += [_pair_figure(a, b, pooled, keys), Csv(f"sweep_by_{a}_{b}.csv", pooled)]
    if len(pairs) > s.max_pairs:
        blocks.append(Note(f"{len(pairs) - s.max_pairs} more pairs not drawn.", "muted"))
    return blocks


def _sorted_values(values) -> list:
    return list(dict.fromkeys(sorted(values, key=lambda v: (isinstance(v, str), v))))


def _pair_figure(a: str, b: str, pooled: pd.DataFrame, keys: list[str]) -> R.Figure:
    xs, ys = _sorted_values(pooled[b].tolist()), _sorted_values(pooled[a].tolist())
    nrows = -(-len(keys) // 2)
    fig, axes = R.figure((0.32 * len(ys) + 1.3) * nrows + 0.3, ncols=2, nrows=nrows)
    notes = []
    for ax, key in zip(axes.ravel(), keys, strict=False):
        mat, low, high = (np.full((len(ys), len(xs)), np.nan) for _ in range(3))
        for _, r in pooled.iterrows():
            at = ys.index(r[a]), xs.index(r[b])
            mat[at] = r[key]
            low[at], high[at] = r.get(f"{key}_low", np.nan), r.get(f"{key}_high", np.nan)
        notes.append(_pair_heat(fig, ax, mat, low, high, key))
        ax.set_xticks(range(len(xs)), [str(v) for v in xs])
        ax.set_yticks(range(len(ys)), [str(v) for v in ys])
        ax.set_xlabel(b)
        ax.set_ylabel(a)
    R.hide_unused(axes, len(keys))
    return R.png(fig, f"sweep_{a}_x_{b}", f"Key numbers for each {a} (rows) × {b} (columns), "
                 "pooled over the other parameters. The colour scale is never narrower than "
                 "the cells' typical 95% interval, so noise does not show as a gradient. "
                 + " ".join(notes))


def heat_noise(mat: np.ndarray, low: np.ndarray, high: np.ndarray) -> dict[str, float | bool]:
    """How the spread of a heat map's cells compares with their noise.

    ``half``: the typical (median) half-width of the cells' 95% intervals; ``span``:
    highest minus lowest cell; ``p``: Cochran's test that every cell holds one value
    (``Q = sum ((v - weighted mean) / se)^2`` against chi-square with cells - 1 degrees of
    freedom, ``se`` each cell's interval width / 3.92); ``within``: ``p`` > 0.05, the cells
    cannot be told apart. Comparing only the highest and lowest cells would not do: the
    extremes of many cells of pure noise lie further apart than two cells' intervals.
    ``known`` is False where a cell has no interval (then ``within`` is False too).
    """
    ok = np.isfinite(mat)
    v, width = mat[ok], (high - low)[ok]
    known = bool(ok.sum() > 1 and np.isfinite(width).all())
    out = {"half": float(np.median(width) / 2) if known else np.nan,
           "span": float(np.ptp(v)) if v.size else np.nan, "p": np.nan, "within": False,
           "known": known}
    if not known:
        return out
    se = np.clip(width / (2 * normal_quantile(CONFIDENCE)), 1e-12, None)
    w = 1 / se**2
    q = float(np.sum(w * (v - np.sum(w * v) / np.sum(w)) ** 2))
    out["p"] = float(stats.chi2.sf(q, v.size - 1))
    out["within"] = out["p"] > ALPHA
    return out


def _pair_heat(fig, ax, mat: np.ndarray, low: np.ndarray, high: np.ndarray, key: str) -> str:
    """Draw one heat map; return the caption's sentence on its noise."""
    kind = _kind(key)
    finite = mat[np.isfinite(mat)]
    lo, hi = (finite.min(), finite.max()) if finite.size else (0.0, 1.0)
    noise = heat_noise(mat, low, high)
    flat = not hi > lo
    # the colours never span less than a typical interval: a spread within noise stays pale
    width = max(hi - lo, 2 * noise["half"]) if np.isfinite(noise["half"]) else hi - lo
    mid = (lo + hi) / 2
    norm = matplotlib.colors.Normalize(mid - width / 2 if width > 0 else lo - 1,
                                       mid + width / 2 if width > 0 else hi + 1)
    cmap = R.SEQUENTIAL
    if noise["within"]:
        # a neutral scale: the lightest quarter of the greys, no colour bar to read off
        cmap = "Greys"
        norm = matplotlib.colors.Normalize(norm.vmin, norm.vmin + 4 * (norm.vmax - norm.vmin))
    im = ax.imshow(mat, cmap=cmap, norm=norm, aspect="auto")
    R.annotate_heat(ax, mat, (lambda v: f"{100 * v:.1f}") if kind != "plain" else
                    (lambda v: f"{v:.3g}"), norm=norm, cmap=cmap)
    title = SHORT.get(key, key)
    if flat:
        title += " — the same everywhere"
    elif noise["within"]:
        title += " — within noise"
    ax.set_title(title, loc="left", fontsize=9.5)
    ax.grid(False)
    if not flat and not noise["within"]:
        cb = fig.colorbar(im, ax=ax, shrink=0.9)
        cb.ax.yaxis.set_major_formatter(_formatter(kind))
    name = SHORT.get(key, key)
    if flat or not finite.size:
        return f"{name}: the same in every cell."
    spread = (f"{name}: cells span {_metric_text(key, hi - lo)}, typical 95% interval "
              f"±{_metric_text(key, noise['half'])}")
    if not noise["known"]:
        return spread + " (no interval for some cells: cannot tell whether this is noise)."
    if noise["within"]:
        return spread + f": within noise, the cells cannot be told apart (test that all " \
                        f"hold one value: p = {noise['p']:.2g}; drawn in pale grey, no " \
                        f"colour scale)."
    return spread + f": the cells differ beyond noise (test that all hold one value: " \
                    f"p = {noise['p']:.2g})."


MOSTLY_UNRESOLVED = 0.5


def _flags(s: _Sweep) -> dict[int, str]:
    """Points whose values cannot be read as the rules' (point -> why): the training did not
    settle (a deviation gains at least :data:`UNSETTLED` points), or most of its matches
    ran out of hands."""
    flags: dict[int, list[str]] = {}
    for _, r in s.metrics.iterrows():
        why = []
        low = r.get("exploitability_low", np.nan)
        if isnum(low) and low >= UNSETTLED:
            why.append(f"its training did not settle (a deviation gains at least "
                       f"{low:.1f} points)")
        share = r.get("unresolved_share", np.nan)
        if isnum(share) and share > MOSTLY_UNRESOLVED:
            why.append(f"{pct(share)} of its matches were unresolved")
        if why:
            flags[int(r["point"])] = " and ".join(why)
    return flags


SWEEP_SECTIONS = [
    SectionSpec("sweep", "Sweep: points ranked",
                "Every sweep point with its key numbers. With [targets], points are ranked by "
                "their distance to the targets; the best one is highlighted, or every point "
                "that cannot be told apart from it.", _ranking),
    SectionSpec("sweep-params", "Sweep: metrics against each parameter",
                "Each key number against each swept parameter: the line and band pool all "
                "points with that value (95% interval); dots are single points.", _per_param),
    SectionSpec("sweep-pairs", "Sweep: pairs of parameters",
                "For each pair of swept parameters, the key numbers pooled over the other "
                "parameters.", _pairs),
]
