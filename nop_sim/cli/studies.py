"""Commands that study finished runs or search settings: ``compare``, ``tune`` and
``sensitivity`` (``sweep`` runs, in :mod:`nop_sim.cli.runs`)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import click

from nop_sim.cli.common import _holding, _load, _Progress, _trainable, command

# Imports inside functions: each command imports its study, the runner or the
# kernels (numba) where it runs, so `nop-sim --help` and a usage error answer
# in a fraction of a second; only the core's light modules are imported here.


@command("tune")
@click.argument("scenario", type=click.Path(path_type=Path))
@click.option("--trials", type=click.IntRange(1, 100_000), default=40, show_default=True,
              help="Finished trials (completed or pruned) the study holds at the end.")
@click.option("--matches", type=click.IntRange(1, 100_000_000), default=None,
              help="Matches of a trial that is never pruned [default: the scenario's [run] "
                   "matches].")
@click.option("--top", type=click.IntRange(1, 100), default=5, show_default=True,
              help="Trials re-run with fresh seeds and twice the matches before the best is "
                   "named.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Tune folder [default: reports/<scenario file name>-tune].")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None,
              help="Root seed (default: the scenario's [run] seed).")
@click.option("--workers", type=click.IntRange(1, 1024), default=None,
              help="Threads playing a trial's matches [default: all cores]; the result never "
                   "depends on it.")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="Play each trial's matches on a Dask cluster, e.g. tcp://10.0.0.5:8786.")
@click.option("--resume", is_flag=True, help="Continue a stopped study, keeping its trials.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--no-report", is_flag=True, help="Write best.toml and the tables only.")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a setting, e.g. --set players=6 --set tune.chips=[40,120].")
@click.option("--train", "train_first", is_flag=True,
              help="Judge every trial under strong play: train a field for its rules (each "
                   "rung twice the last's budget, warm-started from the nearest trial), value "
                   "the mechanics the [targets] name, play its matches with the field in every "
                   "seat. Needed for targets such as value_manipulation = { min = 3 }.")
@click.option("--train-budget", type=click.IntRange(1, 10**10), default=100_000,
              show_default=True, help="Training matches of a trial's last rung (--train).")
@click.option("--value-budget", type=click.IntRange(1, 10**10), default=100_000,
              show_default=True, help="Value matches of a trial's last rung (--train).")
@click.option("--train-cache", type=click.Path(path_type=Path),
              default=Path("reports") / "train-cache", show_default=True,
              help="Where trials' fields are kept and found again (--train).")
def tune_cmd(scenario, trials, matches, top, out_dir, seed, workers, scheduler, resume, quiet,
             no_report, overrides, train_first, train_budget, value_budget, train_cache):
    """Search SCENARIO's [tune] settings for the ones closest to its [targets].

    Optuna proposes settings (TPE; CMA-ES when every setting is a float
    range); each trial plays its matches in rungs (a quarter, a half, all)
    and successive halving stops the ones that fall behind. The top trials
    are re-run with fresh seeds and more matches, and the best re-run goes
    to best.toml, a scenario that runs as is. The study is kept in the
    folder: --resume continues it after a crash or Ctrl-C.

    \b
    Examples:
      nop-sim tune scenarios/chips_tune.toml
      nop-sim tune scenarios/chips_tune.toml --trials 60 --matches 800 --resume
      nop-sim run reports/chips_tune-tune/best.toml --out reports/chips_tune-best
      nop-sim tune scenarios/ledger_tune.toml --train   # targets under strong play
    """
    import os

    from nop_sim.studies.tune import TuneConfig, tune_folder
    from nop_sim.studies.tune.report import write_tune_report

    scn = _load(scenario, overrides, None, seed)
    strong = None
    if train_first:
        from nop_sim.studies.tune.strong import StrongTuning

        _trainable(scn, "tune --train")
        strong = StrongTuning(budget=train_budget, value_budget=value_budget,
                              cache=str(train_cache))
    cfg = TuneConfig(trials=trials, matches=matches or scn.matches, top=top, seed=scn.seed,
                     strong=strong)
    out = out_dir or Path("reports") / f"{scn.name}-tune"
    progress = _Progress(quiet, "matches", label="trials")
    with _holding(out):
        with contextlib.closing(progress):
            result = tune_folder(scn, out, cfg, workers=workers or os.cpu_count() or 1,
                                 scheduler=scheduler, resume=resume, progress=progress)
        report = None if no_report else write_tune_report(out)
    fresh = result.trials - result.reused
    click.echo(f"{scn.name}: {result.trials} trials ({fresh} this run, {result.pruned} pruned, "
               f"{result.sampler.upper()}), {result.matches:,} matches in "
               f"{result.seconds:.1f} s")
    click.echo("best: " + ", ".join(f"{k} = {v}" for k, v in result.best.items())
               + f"   (trial {result.trial}; distance {result.objective:.3g}, 95% interval "
                 f"{result.objective_low:.3g} to {result.objective_high:.3g}, on a fresh re-run)")
    for row in result.targets.itertuples():
        state = "met" if row.miss == 0 else f"{100 * row.miss:.1f}% off"
        click.echo(f"  {row.name:<24} {row.value:10.4g}  [{row.low:.4g}, {row.high:.4g}]   "
                   f"target {row.kind} {row.target:g}: {state}")
    click.echo(f"best settings: {result.paths['best']}")
    click.echo(f"trials:        {result.paths['trials']}")
    click.echo(f"study:         {result.paths['study']}")
    if report:
        click.echo(f"report:        {report}")


@command("compare")
@click.argument("a", metavar="A", type=click.Path(path_type=Path))
@click.argument("b", metavar="B", type=click.Path(path_type=Path))
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Where the report and compare.csv go [default: reports/compare-A-vs-B].")
@click.option("--point-a", type=click.IntRange(0), default=0, show_default=True,
              help="The sweep point of A to compare.")
@click.option("--point-b", type=click.IntRange(0), default=0, show_default=True,
              help="The sweep point of B to compare.")
@click.option("--min-effect", "min_effect", multiple=True, metavar="METRIC=VALUE",
              help="The smallest difference worth a finding, e.g. seat_win_rate=0.03 or "
                   "median_hands=10% (of A's value); see docs/compare.md.")
@click.option("--matches", type=click.IntRange(1, 100_000_000), default=None,
              help="Matches of a scenario file run on the fly.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None,
              help="Seed of a scenario file run on the fly [default: the other side's].")
@click.option("--workers", type=click.IntRange(1, 1024), default=None,
              help="Local worker processes for a scenario file [default: all cores].")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def compare_cmd(a, b, out_dir, point_a, point_b, min_effect, matches, seed, workers, quiet):
    """Compare two runs: every key metric, B minus A, with intervals and findings.

    A and B are run folders, or scenario files run on the fly (into OUT/a,
    OUT/b) with the other side's seed, so matches pair up.

    \b
    Examples:
      nop-sim compare reports/baseline reports/cap30
      nop-sim compare scenarios/baseline.toml scenarios/cap30.toml --matches 5000
      nop-sim compare reports/ledger_sweep reports/ledger_sweep --point-b 3
    """
    from nop_sim.studies.compare import parse_min_effect
    from nop_sim.studies.compare_report import compare_sources

    out = out_dir or Path("reports") / f"compare-{a.stem}-vs-{b.stem}"
    progress = _Progress(quiet)
    with _holding(out), contextlib.closing(progress):
        result = compare_sources(a, b, out, point_a=point_a, point_b=point_b,
                                 min_effect=parse_min_effect(min_effect), matches=matches,
                                 seed=seed, workers=workers, progress=progress)
    cmp = result.comparison
    findings = cmp.findings
    pairing = (f"pairing used for {int(cmp.table['paired'].sum())} metrics"
               if cmp.pairable else "pairing not used")
    click.echo(f"{len(cmp.table)} metrics compared (B - A), {len(findings)} finding(s); "
               f"{pairing}: {cmp.pairing_reason}")
    if len(findings):
        click.echo("  metric: A -> B, B - A (Holm-adjusted 95% interval), Holm p")
    for r in findings.head(8).itertuples():
        scale, unit = (100, " pts") if r.kind == "share" else (1, "")
        click.echo(f"  {r.metric}: {r.a * scale:.3g} -> {r.b * scale:.3g}, "
                   f"{r.difference * scale:+.3g}{unit} ({r.holm_low * scale:+.3g} to "
                   f"{r.holm_high * scale:+.3g}), Holm p = {r.p_holm:.2g}")
    for path in result.ran:
        click.echo(f"run:     {path}/")
    click.echo(f"table:   {result.csv}")
    if result.report:
        click.echo(f"report:  {result.report}")


@command("sensitivity")
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Output folder [default: RUN/sensitivity].")
@click.option("--resamples", type=click.IntRange(10, 100_000), default=200, show_default=True,
              help="Bootstrap resamples of every interval.")
def sensitivity_cmd(run_dir, out_dir, resamples):
    """Rank what matters for what in a finished sweep RUN.

    A mode = "sobol" sweep gives first-order and total Sobol' indices; any
    other sampled sweep (random, lhs, lhs-cd, qmc-sobol) the delta index.
    Both with 95% intervals, for every key metric.

    \b
    Example:
      nop-sim sweep scenarios/sobol_study.toml && nop-sim sensitivity reports/sobol_study
    """
    from nop_sim.studies.sensitivity import write_sensitivity

    out = out_dir if out_dir is not None else run_dir / "sensitivity"
    with _holding(out):  # a SensitivityError: exit 2 with usage (_exit_error)
        written = write_sensitivity(run_dir, out, resamples=resamples)
    for line in written.result.findings():
        click.echo(line)
    click.echo(f"table:   {written.csv}")
    click.echo(f"report:  {written.report}")


COMMANDS = [compare_cmd, tune_cmd, sensitivity_cmd]
"""What this module adds to ``nop-sim`` (:mod:`nop_sim.cli` lists the modules)."""
