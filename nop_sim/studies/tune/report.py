"""The tuning report: the objective over trials, the targets of the top trials, what mattered.

Built with the shared toolkit (:mod:`nop_sim.reporting`) from a tune folder:
``manifest.json``, ``trials.parquet`` and ``reruns.parquet``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim import reporting as R

__all__ = ["SECTIONS", "write_tune_report"]


@dataclass
class _Tuning:
    folder: Path
    manifest: dict
    trials: pd.DataFrame
    reruns: pd.DataFrame

    @property
    def params(self) -> list[str]:
        return [c[len("param_"):] for c in self.trials.columns if c.startswith("param_")]

    @property
    def targets(self) -> list[dict]:
        return self.manifest.get("targets") or []


def _load(folder: Path) -> _Tuning:
    return _Tuning(folder, json.loads((folder / "manifest.json").read_text()),
                   pd.read_parquet(folder / "trials.parquet"),
                   pd.read_parquet(folder / "reruns.parquet"))


def _settings_text(params: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in params.items())


# -- sections ------------------------------------------------------------------------------
def _findings(t: _Tuning):
    best = t.manifest["best"]
    tot = t.manifest["totals"]
    items = [f"**Best: {_settings_text(best['params'])}** (trial {best['trial']}), distance to "
             f"the targets {best['objective']:.3g} (95% interval {best['objective_low']:.3g} to "
             f"{best['objective_high']:.3g}), measured on a re-run with fresh seeds.",
             f"{tot['trials']} trials ({tot['pruned']} stopped early by successive halving), "
             f"sampler {t.manifest['sampler'].upper()}; the top {len(t.reruns)} were re-run "
             f"with {int(t.reruns['matches'].iloc[0]):,} matches each."]
    links = ["best", "trials"]
    missed = [r for r in t.targets if r["miss"] is not None and r["miss"] > 0.05]
    if missed:
        items.append("Targets still more than 5% away: " + ", ".join(
            f"{r['name']} {r['value']:.3g} (target {r['kind']} {r['target']:g})"
            for r in missed) + ".")
        links.append("targets")
    imp = t.manifest.get("importances") or {}
    if imp:
        top = max(imp, key=imp.get)
        items.append(f"The setting that mattered most for the objective: **{top}** "
                     f"({100 * imp[top]:.0f}% of the importance).")
        links.append("importance")
    return [R.Bullets(items, links=links)]


def _best(t: _Tuning):
    rows = pd.DataFrame(t.targets)
    if rows.empty:
        return [R.Note("No targets.")]
    table = pd.DataFrame({
        "target": rows["name"], "aim": [f"{k} {v:g}" for k, v in zip(rows["kind"], rows["target"],
                                                                        strict=True)],
        "weight": rows["weight"],
        "reached": [R.num_ci(v, lo, hi, 3) for v, lo, hi in zip(rows["value"], rows["low"],
                                                                rows["high"], strict=True)],
        "miss": [R.pct(m) if R.isnum(m) else "" for m in rows["miss"]]})
    return [R.Note(f"`best.toml` holds these settings: {_settings_text(t.manifest['best']['params'])}. "
                   f"Run it as is with `nop-sim run`."),
            R.Table(table, "Each target at the best settings (re-run), 95% interval",
                    csv="best_targets.csv", full=rows)]


def _trials(t: _Tuning):
    tr = t.trials[t.trials["state"].isin(["complete", "pruned"])].sort_values("trial")
    fig, axes = R.figure(3.2)
    ax = axes[0, 0]
    for state, color, label in (("complete", R.PALETTE["blue"], "trial (all rungs)"),
                                ("pruned", R.PALETTE["grey"], "pruned (stopped early)")):
        sel = tr[tr["state"] == state]
        if len(sel):
            ax.errorbar(sel["trial"], sel["objective"],
                        yerr=R.interval_err(sel["objective"], sel["objective_low"],
                                            sel["objective_high"]),
                        fmt="o", ms=4, color=color, label=label, alpha=0.85)
    done = tr[tr["state"] == "complete"]
    if len(done):
        ax.step(done["trial"], np.minimum.accumulate(done["objective"].to_numpy()), where="post",
                color=R.PALETTE["vermillion"], label="best so far")
    ax.set_xlabel("trial")
    ax.set_ylabel("distance to targets")
    ax.legend(loc="upper right")
    cols = ["trial", "state", *[f"param_{p}" for p in t.params], "objective", "objective_low",
            "objective_high", "matches", "rerun_objective"]
    top = tr.sort_values("objective").head(10)[[c for c in cols if c in tr.columns]]
    top = top.rename(columns={f"param_{p}": p for p in t.params})
    return [R.png(fig, "objective", "Distance to the targets per trial (95% bootstrap interval "
                  "over chunks); a pruned trial shows its estimate at the rung it stopped."),
            R.Table(top, "The ten best trials", csv="trials.csv", full=t.trials)]


def _targets(t: _Tuning):
    names = [r["name"] for r in t.targets]
    if not names:
        return [R.Note("No targets.")]
    rr = t.reruns
    labels = [f"trial {int(n)}: " + _settings_text({p: rr[f"param_{p}"].iloc[i]
                                                    for p in t.params})
              for i, n in enumerate(rr["trial"])]
    fig, axes = R.figure(1.0 + 0.35 * len(rr) * len(names) + 0.6 * len(names),
                         nrows=len(names))
    for ax, spec in zip(axes[:, 0], t.targets, strict=True):
        name = spec["name"]
        R.hbar_ci(ax, labels, rr[name], rr[f"{name}_low"], rr[f"{name}_high"],
                  ref=spec["target"], ref_label=f"target ({spec['kind']})", percent=False)
        ax.set_title(name, loc="left")
        ax.legend(loc="lower right")
    return [R.png(fig, "targets", "Each target for the re-run top trials (fresh seeds, more "
                  "matches), 95% interval; the dashed line is the target or bound.")]


def _importance(t: _Tuning):
    imp = t.manifest.get("importances") or {}
    if not imp:
        return [R.Note("Too few finished trials with varied settings to rank them.")]
    names = sorted(imp, key=imp.get, reverse=True)
    fig, axes = R.figure(0.8 + 0.4 * len(names))
    vals = [imp[n] for n in names]
    R.hbar_ci(axes[0, 0], names, vals, vals, vals)
    R.percent_axis(axes[0, 0].xaxis)
    method = t.manifest.get("importance_method", "fANOVA")
    axes[0, 0].set_xlabel(f"importance ({method}, sums to 100%)")
    return [R.png(fig, "importance", f"Parameter importances (optuna.importance, {method}) over "
                  "the finished trials.")]


def _slices(t: _Tuning):
    tr = t.trials[t.trials["state"] == "complete"]
    params = t.params
    if tr.empty or not params:
        return [R.Note("No finished trials.")]
    fig, axes = R.figure(3.0, ncols=len(params), width=min(R.WIDTH, 3.2 * len(params) + 1))
    for ax, p in zip(axes[0], params, strict=True):
        x = tr[f"param_{p}"]
        numeric = pd.api.types.is_numeric_dtype(x)
        xs = x.to_numpy() if numeric else pd.Categorical(x.astype(str)).codes
        sc = ax.scatter(xs, tr["objective"], c=tr["trial"], cmap=R.SEQUENTIAL, s=18)
        if not numeric:
            cats = pd.Categorical(x.astype(str)).categories
            ax.set_xticks(range(len(cats)), cats)
        ax.set_xlabel(p)
        ax.set_ylabel("distance to targets")
    fig.colorbar(sc, ax=axes[0, -1], label="trial")
    return [R.png(fig, "slices", "Slice plots: the objective against each setting; colour is "
                  "the trial number (later trials are darker).")]


SECTIONS = [
    R.SectionSpec("findings", "Findings", "", _findings),
    R.SectionSpec("best", "Best settings", "The settings of the best re-run trial, and how "
                  "close each target came.", _best),
    R.SectionSpec("trials", "Objective over trials", "Each trial's distance to the targets.",
                  _trials),
    R.SectionSpec("targets", "Targets of the top trials", "The top trials re-run on fresh "
                  "seeds: a trial that looked best by luck does not win.", _targets),
    R.SectionSpec("importance", "What mattered", "", _importance),
    R.SectionSpec("slices", "Slices", "", _slices),
]


def write_tune_report(folder: str | Path) -> Path:
    """Write ``report.html`` and ``report.md`` of a tune folder; the HTML path."""
    folder = Path(folder)
    t = _load(folder)
    sections = R.build_sections(SECTIONS, t, number_from=1)
    m = t.manifest
    meta = (f"scenario {m['scenario']['name']} (fingerprint {m['scenario']['fingerprint']}), "
            f"seed {m['config']['seed']}, {m['totals']['trials']} trials, "
            f"{len(sections)} sections")
    return R.write_report(R.Report(f"nop-sim tune: {m['scenario']['name']}", meta, sections),
                          folder)
