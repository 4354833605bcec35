"""``nop-sim compare``: two runs (or scenario files run on the fly) side by side.

:func:`compare_sources` turns each source into a finished run folder (a
scenario file is run into ``OUT/a`` or ``OUT/b`` with the other side's seed,
chunk size and match count, so that matches pair up), compares them with
:func:`nop_sim.studies.compare.compare_runs` and writes into ``OUT``:

- ``compare.csv``: one row per metric, the columns of :data:`nop_sim.studies.compare.COLUMNS`;
- ``report.html`` / ``report.md`` (with ``figures/`` and ``tables/``), built
  with the shared toolkit :mod:`nop_sim.reporting`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim import reporting as R
from nop_sim.core.errors import MissingData, RunError
from nop_sim.games import game_of_folder, get_game
from nop_sim.games.registry import CompareMetrics
from nop_sim.results.run_data import RunData
from nop_sim.results.store import damaged_manifest, not_a_run
from nop_sim.run.runner import run_scenario
from nop_sim.run.scenario import ScenarioError, load_scenario
from nop_sim.studies.compare import CompareError, Comparison, compare_metrics, compare_runs

__all__ = ["CompareResult", "compare_sources", "load_finished", "sections", "write_compare"]


# ---------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------
def load_finished(path: str | Path) -> RunData:
    """A finished run folder, or :class:`CompareError` saying in one line why not."""
    path = Path(path)
    if not path.exists():
        raise CompareError(f"{path}: no such run folder or scenario file")
    if not path.is_dir():
        raise CompareError(f"{path}: is not a run folder (nor a scenario .toml file)")
    other = not_a_run(path)
    if other is not None:  # a training or tune folder: say so, not "did not finish"
        raise CompareError(other)
    manifest = path / "manifest.json"
    if not manifest.exists():
        raise CompareError(f"{path}: not a nop-sim run folder (no manifest.json)")
    try:
        status = json.loads(manifest.read_text()).get("status")
    except (OSError, ValueError, AttributeError):
        raise CompareError(damaged_manifest(path)) from None
    if status != "finished":
        raise CompareError(f"{path}: the run did not finish (status {status!r}); finish it "
                           f"with nop-sim run SCENARIO --resume --out {path}")
    try:
        game = game_of_folder(path)
    except ValueError as exc:  # a game this nop-sim does not know
        raise CompareError(str(exc)) from None
    metrics = compare_metrics(game)  # or one line naming a game without compare metrics
    try:
        return metrics.load_run(path)
    except RunError as exc:
        raise CompareError(str(exc)) from None


def _is_scenario(path: Path) -> bool:
    return path.suffix == ".toml" and path.is_file()


def _run_scenario(path: Path, out: Path, like: RunData | None, matches, seed, workers,
                  progress) -> Path:
    """Run a scenario file into ``out``, with ``like``'s seed, chunk and matches if given."""
    extra = []
    if like is not None:
        extra += [f"run.seed={like.manifest['seed']}", f"run.chunk={like.manifest['chunk']}",
                  f"run.matches={like.manifest['matches_per_point']}"]
    if matches is not None:
        extra.append(f"run.matches={matches}")
    if seed is not None:
        extra.append(f"run.seed={seed}")
    try:
        scn = load_scenario(path, extra)
    except ScenarioError as exc:
        raise CompareError(str(exc)) from None
    compare_metrics(get_game(scn.kind))  # a game without compare metrics: refused before it runs
    run_scenario(scn, out, workers=workers, progress=progress)
    return out


@dataclass
class CompareResult:
    comparison: Comparison
    out: Path
    csv: Path
    report: Path | None
    ran: list[Path]


def compare_sources(a: str | Path, b: str | Path, out: str | Path, *, point_a: int = 0,
                    point_b: int = 0, min_effect=None, matches: int | None = None,
                    seed: int | None = None, workers: int | None = None,
                    progress: Callable | None = None, report: bool = True) -> CompareResult:
    """Compare sources ``a`` and ``b`` (run folders or scenario files) into ``out``.

    A scenario file is run into ``out/a`` (``out/b``); when the other side is
    a folder it takes that run's seed, chunk size and match count, and when
    both are files B takes A's, so the matches pair up. ``matches`` and
    ``seed`` override both. A run already finished there is reused.
    """
    a, b, out = Path(a), Path(b), Path(out)
    ran: list[Path] = []
    run_a = None if _is_scenario(a) else load_finished(a)
    run_b = None if _is_scenario(b) else load_finished(b)
    if run_a is None:
        ran.append(_run_scenario(a, out / "a", run_b, matches, seed, workers, progress))
        run_a = load_finished(out / "a")
    if run_b is None:
        ran.append(_run_scenario(b, out / "b", run_a, matches, seed, workers, progress))
        run_b = load_finished(out / "b")
    cmp = compare_runs(run_a, run_b, point_a=point_a, point_b=point_b, min_effect=min_effect)
    return write_compare(cmp, out, report=report, ran=ran)


def write_compare(cmp: Comparison, out: str | Path, *, report: bool = True,
                  ran: list[Path] | None = None) -> CompareResult:
    """Write ``compare.csv`` and the compare report of ``cmp`` into ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    csv = R.atomic_write(out / "compare.csv", cmp.csv.to_csv(index=False))
    html = None
    if report:
        built = R.build_sections(sections(cmp.metrics), cmp, number_from=1,
                                 unavailable=(MissingData,))
        meta = (f"A = {_source(cmp.run_a, cmp.point_a)}; B = {_source(cmp.run_b, cmp.point_b)}; "
                f"{len(cmp.table)} metrics, {int(cmp.table['finding'].sum())} findings")
        html = R.write_report(R.Report("nop-sim compare", meta, built), out)
    return CompareResult(cmp, out, csv, html, ran or [])


def _source(run: RunData, point: int) -> str:
    name = (run.manifest.get("scenario") or {}).get("name", "?")
    where = f" ({run.folder})" if run.folder is not None else ""
    sweep = f", point {point}" if len(run.points) > 1 else ""
    return f"{name}{where}{sweep}"


# ---------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------
def _fmt(kind: str, x) -> str:
    return R.pct(x, 2) if kind == "share" else R.num(x, 3 if R.isnum(x) and abs(x) < 1 else 2)


def _diff(kind: str, d, lo, hi) -> str:
    """The difference with an interval; one the bootstrap's resamples cannot bound at its
    level reads "no bound"."""
    if not (R.isnum(d) and not np.isnan(lo) and not np.isnan(hi)):
        return "–"
    if np.isinf(lo) or np.isinf(hi):
        return f"{100 * d:+.2f} pts (no bound)" if kind == "share" else f"{d:+.3f} (no bound)"
    if kind == "share":
        return f"{100 * d:+.2f} pts ({100 * lo:+.2f} to {100 * hi:+.2f})"
    return f"{d:+.3f} ({lo:+.3f} to {hi:+.3f})"


HOLM_INTERVAL = "B - A (Holm-adjusted 95% interval)"


def _shown(t: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "metric": t["label"],
        "A": [_fmt(k, v) for k, v in zip(t["kind"], t["a"], strict=True)],
        "B": [_fmt(k, v) for k, v in zip(t["kind"], t["b"], strict=True)],
        # the interval and the p-value beside it are the same test's, at the level Holm
        # holds the metric to: the interval excludes 0 exactly when Holm p < 0.05
        HOLM_INTERVAL: [_diff(k, d, lo, hi) for k, d, lo, hi in
                        zip(t["kind"], t["difference"], t["holm_low"], t["holm_high"],
                            strict=True)],
        "Holm p": [R.pval(p) for p in t["p_holm"]],
        "threshold": [(f"{100 * v:.3g} pts" if R.isnum(v) else "–") if k == "share"
                      else _fmt(k, v) for k, v in zip(t["kind"], t["min_effect"], strict=True)],
        "finding": ["yes" if f else "" for f in t["finding"]],
        "paired": ["yes" if p else "" for p in t["paired"]],
    })


def _diff_figure(t: pd.DataFrame, name: str, title: str) -> R.Figure:
    kinds = [k for k in ("share", "plain") if (t["kind"] == k).any()]
    fig, axes = R.figure(0.9 + 0.32 * len(t), ncols=len(kinds))
    for ax, kind in zip(axes[0], kinds, strict=True):
        s = t[t["kind"] == kind]
        R.hbar_ci(ax, list(s["label"]), s["difference"], s["holm_low"], s["holm_high"], ref=0.0,
                  ref_label="no difference", highlight=s["finding"].to_numpy(bool),
                  percent=kind == "share", max_ticks=6 if len(kinds) == 1 else 4)
        ax.set_xlabel("B - A" + (" (win-rate or share points)" if kind == "share" else ""))
    unbounded = ~(np.isfinite(t["holm_low"]) & np.isfinite(t["holm_high"])) \
        & np.isfinite(t["difference"])
    return R.png(fig, name, f"{title}: B minus A with its Holm-adjusted 95% interval (it "
                            f"excludes 0 exactly when Holm p < 0.05); findings (significant "
                            f"after Holm and at least the threshold) in vermillion."
                 + (" Hollow grey, dotted: no bound at that level (a bootstrap whose "
                    "resamples cannot reach it)." if unbounded.any() else ""))


def _group(group: str, title: str, top: int | None = None):
    def build(cmp: Comparison):
        t = cmp.table[cmp.table["group"] == group]
        if t.empty:
            notes = [n for n in cmp.notes if n.startswith(f"{group}:")]
            return [R.Note(notes[0] if notes else "Not compared.", "muted")]
        shown = t
        blocks = []
        if top is not None and len(t) > top:
            order = (t["difference"].abs() / (t["ci_high"] - t["ci_low"]).replace(0, np.nan))
            shown = t.loc[order.fillna(0).sort_values(ascending=False).index[:top]]
            blocks.append(R.Note(f"The {top} of {len(t)} with the largest difference for "
                                 f"their interval; all of them in the CSV.", "muted"))
        blocks.insert(0, _diff_figure(shown, f"diff-{group}", title))
        blocks.append(R.Table(_shown(shown), f"{title} (findings "
                              f"highlighted)", csv=f"{group}.csv", full=t,
                              highlight=np.flatnonzero(shown["finding"].to_numpy(bool))
                              .tolist()))
        return blocks
    return build


def _findings(cmp: Comparison):
    f = cmp.findings
    blocks: list = []
    if len(f):
        blocks += [R.Note(f"{len(f)} finding(s): significant after Holm's correction across "
                          f"{len(cmp.table)} metrics and at least the metric's threshold.",
                          "warning"),
                   R.Bullets([f"{r.label}: {_fmt(r.kind, r.a)} -> {_fmt(r.kind, r.b)}, "
                              f"{_diff(r.kind, r.difference, r.holm_low, r.holm_high)} "
                              f"(Holm-adjusted 95%), Holm p = {R.pval(r.p_holm)}"
                              for r in f.head(15).itertuples()],
                             links=[r.group for r in f.head(15).itertuples()])]
        if len(f) > 15:
            blocks.append(R.Note(f"... and {len(f) - 15} more (see the sections and "
                                 f"compare.csv).", "muted"))
    else:
        blocks.append(R.Note("No finding: no metric differs significantly (Holm) by at least "
                             "its threshold."))
    if cmp.pairable:
        used = int(cmp.table["paired"].sum())
        blocks.append(R.Note(f"**Pairing used** for {used} of {len(cmp.table)} metrics: "
                             f"{cmp.pairing_reason}. Paired intervals were used where they are "
                             f"narrower (the rows marked paired)."))
    else:
        blocks.append(R.Note(f"**Pairing not used**: {cmp.pairing_reason}; every interval "
                             f"treats A and B as independent samples."))
    for n in cmp.notes:
        blocks.append(R.Note(n, "muted"))
    return blocks


def _runs(cmp: Comparison):
    rows = []
    for side, run, point in (("A", cmp.run_a, cmp.point_a), ("B", cmp.run_b, cmp.point_b)):
        m = run.manifest
        rows.append({"run": side, "scenario": (m.get("scenario") or {}).get("name", "?"),
                     "folder": str(run.folder or ""), "point": f"{point} of {len(run.points)}",
                     "matches": R.count(int((run.table("matches")["point"] == point).sum())),
                     "seed": str(m.get("seed")), "chunk": str(m.get("chunk")),
                     "players": str(run.players(point))})
    sa, sb = cmp.run_a.settings(cmp.point_a), cmp.run_b.settings(cmp.point_b)
    diff = [{"setting": k, "A": str(sa.get(k, "–")), "B": str(sb.get(k, "–"))}
            for k in sorted(set(sa) | set(sb)) if sa.get(k) != sb.get(k)]
    blocks = [R.Table(pd.DataFrame(rows), "The runs compared")]
    if diff:
        blocks.append(R.Table(pd.DataFrame(diff), "Settings that differ"))
    else:
        blocks.append(R.Note("The two points have the same settings."))
    return blocks


def _method(cmp: Comparison):
    families, min_effect = cmp.metrics.families, cmp.metrics.min_effect
    thr = pd.DataFrame([{"family": f, "what": families[f][0],
                         "default threshold": (f"{100 * v:g}% of A's value" if rel else
                                               (f"{100 * v:g} points" if families[f][1] == "share"
                                                else f"{v:g}"))}
                        for f, (v, rel) in min_effect.items()])
    return [R.Note(f"{cmp.metrics.method} "
                   "Each p-value is that test's, inverted: the smallest level whose interval "
                   "leaves 0 out. p-values are Holm-corrected across all "
                   f"{len(cmp.table)} metrics of the table, and the interval shown beside "
                   "Holm p is the test's interval at the level Holm's procedure held the "
                   "metric to (the Holm-adjusted 95% interval): it excludes 0 exactly when "
                   "Holm p < 0.05, so the two never tell different stories. compare.csv also "
                   "holds each metric's plain 95% interval and p-value (ci_low, ci_high, "
                   "p_value: the metric alone, which may exclude 0 where, among this many "
                   "metrics, the difference is not shown). A bootstrap interval at a level "
                   "its resamples cannot reach has no bound. A finding needs Holm p < 0.05 "
                   "and |difference| at least the threshold (override with --min-effect "
                   "FAMILY=VALUE or FAMILY=5%)."),
            R.Table(thr, "Thresholds (defaults)"),
            R.Csv("thresholds_used.csv", cmp.table[["metric", "min_effect"]])]


def sections(metrics: CompareMetrics) -> list[R.SectionSpec]:
    """The compare report's sections for a game's metrics: the findings, the runs, one
    section per group of metrics (in the game's order), the method."""
    return [
        R.SectionSpec("findings", "Findings",
                      "What differs between A and B, by enough to matter.", _findings),
        R.SectionSpec("runs", "The runs", "", _runs),
        *[R.SectionSpec(g, title, "", _group(g, title, metrics.top.get(g)))
          for g, title, _fn in metrics.groups],
        R.SectionSpec("method", "Method", "", _method),
    ]
