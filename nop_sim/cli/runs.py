"""Commands that run a scenario and read its folder: ``run``, ``sweep``, ``report``
and ``hands``."""

from __future__ import annotations

import contextlib
import functools
import json
import time
from pathlib import Path

import click

from nop_sim.cli.common import (
    _STARTED,
    _Failure,
    _load,
    _mechanics,
    _Progress,
    _run_options,
    _trainable,
    command,
)
from nop_sim.core.profiling import format_profile

# Imports inside functions: each command imports its study, the runner or the
# kernels (numba) where it runs, so `nop-sim --help` and a usage error answer
# in a fraction of a second; only the core's light modules are imported here.


def _execute(scn, out_dir, workers, scheduler, resume, quiet, no_report=False, profile=False,
             *, strong=False, before_report=None):
    """Run ``scn`` into its folder (:func:`nop_sim.run.pipeline.execute`: held from the
    start to the report; ``strong``: its [strong] field played beside it;
    ``before_report(folder)`` adds its tables first) and print what it wrote."""
    from nop_sim.run import server

    # the workers' fork server loads the kernels on the other core while this process
    # imports the runner (0.5 s), not after
    server.start_early(scn.kind, scn.matches * len(scn.points()), workers, scheduler)
    from nop_sim.run import pipeline  # here: numba and Arrow load slowly, and --help need not wait

    ran = pipeline.execute(scn, out_dir, workers=workers, scheduler=scheduler, resume=resume,
                           no_report=no_report, strong=strong, before_report=before_report,
                           progress=functools.partial(_Progress, quiet),
                           say=lambda line: click.echo(line, err=True))
    _say_ran(ran, profile)


def _say_ran(ran, profile: bool) -> None:
    """A run's lines: what it played and how fast, whom it seated, where it wrote."""
    # here: the agent files' module loads pandas, and --help need not wait
    from nop_sim.games.agent_files import training_text

    result, scn = ran.result, ran.scenario
    # a rate only where every chunk was played here: reused chunks took no time
    rate = (f" ({result.n_work / result.seconds:,.0f} {result.work}/s)"
            if result.seconds > 0 and not result.reused else "")
    click.echo(f"{scn.name}: {result.n_matches:,} matches, {result.n_work:,} {result.work} "
               f"({result.computed} chunks run, {result.reused} reused) in "
               f"{result.seconds:.1f} s{rate}")
    for f in scn.agent_files:  # whom the results are about: the trained agents seated
        mixture = (f" (a mixture of {len(f.rows)} rows, weights "
                   f"{', '.join(f'{w:.3g}' for w in f.weights)})" if f.is_mixture else "")
        click.echo(f"{f.label}: {f.path}{mixture}, {training_text(f.training, f.overrides)}")
    click.echo(f"results: {ran.out}/")
    if ran.strong_play is not None:
        click.echo(f"strong play: {ran.strong_play}/ (every seat the field of "
                   f"{scn.strong.given}, {scn.strong.matches:,} matches)")
    _say_written(ran.written)
    if profile:
        click.echo(format_profile(ran.times, time.perf_counter() - _STARTED))


def _say_written(written) -> None:
    """Where a run's summary and report went, and the sweep ranking's verdict."""
    click.echo(f"summary: {written.summary}")
    if written.report:
        click.echo(f"report:  {written.report}")
        for line in (*written.ranking, *written.findings):
            click.echo(line)


@command("run")
@click.argument("scenario", type=click.Path(path_type=Path))
@_run_options
def run_cmd(scenario, matches, seed, workers, scheduler, out_dir, overrides, resume, quiet,
            no_report, profile):
    """Run SCENARIO (a .toml file) and write results and a summary.

    Results go to reports/<file name>/ (scenarios/cap30.toml: reports/cap30/)
    unless --out says otherwise; running the same scenario again into the same
    folder reuses what is done. It ends with where everything went and what the
    report's Headline flagged, one finding a line.

    \b
    Examples:
      nop-sim run scenarios/baseline.toml
      nop-sim run scenarios/baseline.toml --matches 5000 --set dart_cap=30 --out reports/cap30
      nop-sim run scenarios/baseline.toml --resume            # after a crash or Ctrl-C
      nop-sim run scenarios/baseline.toml --profile --no-report  # where the time goes
      nop-sim run scenarios/baseline.toml --scheduler tcp://127.0.0.1:8786
    """
    scn = _load(scenario, overrides, matches, seed)
    _execute(scn, out_dir, workers, scheduler, resume, quiet, no_report, profile, strong=True)


@command("sweep")
@click.argument("scenario", type=click.Path(path_type=Path))
@_run_options
@click.option("--train", "train_first", is_flag=True,
              help="First train a strong agent for every point (cached by the point's "
                   "settings), then play each point with it in every seat.")
@click.option("--train-budget", type=click.IntRange(1, 10**10), default=100_000,
              show_default=True, help="Matches to train each point with (--train).")
@click.option("--train-cache", type=click.Path(path_type=Path),
              default=Path("reports") / "train-cache", show_default=True,
              help="Where trained points are kept and found again (--train).")
@click.option("--value", "value_too", is_flag=True,
              help="With --train: also value each mechanic at every point under its field "
                   "(restricted play, as nop-sim value): values.csv and a report section "
                   "'What each mechanic is worth'.")
@click.option("--value-budget", type=click.IntRange(1, 10**10), default=100_000,
              show_default=True, help="Matches to value each point's mechanics with (--value).")
@click.option("--value-precision", type=click.FloatRange(0, min_open=True), default=1.5,
              show_default=True,
              help="Points: each value's check plays on until its 95% interval is at most this "
                   "wide on each side (at most 6 times its size; matches beyond --value-budget).")
@click.option("--mechanic", "mechanics", multiple=True, metavar="NAME",
              help="Value only these (repeatable) [default: all the game's mechanics].")
def sweep_cmd(scenario, matches, seed, workers, scheduler, out_dir, overrides, resume, quiet,
              no_report, profile, train_first, train_budget, train_cache, value_too,
              value_budget, value_precision, mechanics):
    """Run every point of SCENARIO's [sweep] table.

    A grid runs every combination; mode = "random", "lhs" (Latin
    hypercube), "lhs-cd" or "qmc-sobol" draws `samples` points, and "sobol"
    Saltelli's design for nop-sim sensitivity (docs/scenarios.md). With --train, each point is first
    played by a field trained for its rules (nop-sim train with a smaller
    budget, each point warm-started from the nearest point trained before it),
    so every point reports under strong play. With --value too, each
    mechanic's worth to a strong player is measured at every point (nop-sim
    value): values.csv, and the report's "What each mechanic is worth".

    \b
    Examples:
      nop-sim sweep scenarios/ledger_sweep.toml --matches 500
      nop-sim sweep scenarios/ledger_sweep.toml --train --train-budget 50000
      nop-sim sweep scenarios/ledger_sweep.toml --train --value
    """
    scn = _load(scenario, overrides, matches, seed)
    if not scn.sweep:
        raise click.UsageError(f"{scenario}: has no [sweep] table; use nop-sim run, or add "
                               f"e.g. [sweep] dart_cap = [10, 20, 30]")
    if value_too and not train_first:
        raise click.UsageError("--value measures each point under its trained field: add "
                               "--train")
    if mechanics and not value_too:
        raise click.UsageError("--mechanic names what --value measures: add --train --value")
    _mechanics(scn, mechanics)
    _strong_targets(scn, ("exploitability",) * train_first + ("value_",) * value_too)
    trained = None
    if train_first:
        trained = _train_points(scn, train_budget, train_cache, workers, scheduler, quiet,
                                value_budget if value_too else None, mechanics,
                                value_precision)
        scn = trained.scenario
    click.echo(f"{len(scn.points())} sweep points x {scn.matches:,} matches", err=True)
    _execute(scn, out_dir, workers, scheduler, resume, quiet, no_report, profile,
             before_report=trained.write if trained is not None else None)
    if trained is not None and len(trained.values):
        for line in _value_lines(trained.values, trained.strong_play):
            click.echo(line)
    if scn.strong is not None:
        click.echo(f"[strong] is played by nop-sim run only (a field is trained for one rule "
                   f"set); a sweep under strong play: nop-sim sweep {scenario} --train", err=True)


def _strong_targets(scn, measured: tuple[str, ...]) -> None:
    """Refuse [targets] on strong-play metrics that this sweep does not measure
    (``measured``: name prefixes; exploitability needs --train, value_* --value too)."""
    missing = [t for t in scn.targets if t in scn.game_type.strong_targets
               and not t.startswith(measured)]
    if missing:
        raise click.UsageError(f"{scn.source}: [targets] {', '.join(missing)} "
                               f"{'is' if len(missing) == 1 else 'are'} measured under strong "
                               f"play: run nop-sim sweep --train --value")


def _value_lines(values, trained) -> list[str]:
    """Each mechanic's values across the points whose training settled, as the terminal's
    last lines (the report flags the others)."""
    from nop_sim.results.store import UNSETTLED

    unsettled = set(trained.loc[trained["exploitability_low"] >= UNSETTLED, "point"])
    lines = ["what each mechanic is worth to a strong player (win-rate points, 95%)"
             + (f", {len(unsettled)} point(s) whose training did not settle left out "
                f"(points {', '.join(str(p) for p in sorted(unsettled))}; the report "
                f"flags them):" if unsettled else ":")]
    values = values[~values["point"].isin(unsettled)]
    for mech, g in values.groupby("mechanic", sort=False):
        pays = g[g["low"] > 0]
        lines.append(f"  {mech:<12} {g['value'].min():+5.1f} to {g['value'].max():+5.1f} over "
                     f"{len(g)} points; pays (interval above 0) at {len(pays)}"
                     + (f": points {', '.join(str(p) for p in pays['point'])}"
                        if 0 < len(pays) <= 8 else ""))
    if "settled" in values and len(values) and not values["settled"].astype(bool).any():
        lines.append("  (each point's values were measured against one field: none is settled "
                     "as a property of the rules; nop-sim value with two fields, trained with "
                     "other seeds, settles one)")
    return lines


def _train_points(scn, budget, cache, workers, scheduler, quiet, value_budget=None,
                  mechanics=(), value_precision=None):
    from nop_sim.studies.train import TrainConfig
    from nop_sim.studies.train.sweep import train_points

    _trainable(scn, "sweep --train")
    progress = _Progress(quiet, "matches", label="training points")
    with contextlib.closing(progress):
        return train_points(scn, TrainConfig(budget=budget, seed=scn.seed), cache=cache,
                            value_budget=value_budget, mechanics=list(mechanics) or None,
                            value_precision=value_precision, threads=workers,
                            scheduler=scheduler, progress=lambda d, t, i: progress(d, t, d),
                            say=lambda line: click.echo(line, err=True))


@command("hands")
@click.argument("source", metavar="SCENARIO|RUN_FOLDER", type=click.Path(path_type=Path))
@click.option("--count", default=5, show_default=True, type=click.IntRange(1, 10_000),
              help="Hands to show (a scenario).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None,
              help="Seed (a scenario; default: its [run] seed).")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a setting (a scenario), e.g. --set betting=no-limit.")
@click.option("--match", "match_id", type=click.IntRange(0), default=None,
              help="A results folder's match to show: any of a New Order run (played "
                   "again from its seed); of another game's, one [run] log_sample logged.")
@click.option("--point", type=click.IntRange(0), default=0, show_default=True,
              help="The sweep point of --match.")
@click.option("--json", "json_path", type=click.Path(path_type=Path), default=None,
              help="Also write the raw event log as JSON lines to this file.")
@click.pass_context
def hands_cmd(ctx, source, count, seed, overrides, match_id, point, json_path):
    """Readable hand histories: fresh hands of a SCENARIO, or a match of a run.

    With a scenario file, plays matches of its first sweep point with the event
    log on and prints COUNT hands like a poker room's hand history, with the
    column and the dart shown as they move. With a results folder, prints the
    history of --match N: any match of a New Order run, played again from the
    run's seed exactly as the run played it; of another game's run, a match
    [run] log_sample logged.

    \b
    Examples:
      nop-sim hands scenarios/baseline.toml --count 3 --seed 7
      nop-sim hands reports/baseline --match 100
    """
    from click.core import ParameterSource

    from nop_sim.results.store import not_a_run  # here: start-up time (Arrow)

    if source.is_dir():
        other = not_a_run(source)
        if other is not None:  # a training or tune folder: no match was logged there
            raise _Failure(other)
        given = [f"--{name}" for name in ("count", "seed", "set")
                 if ctx.get_parameter_source("overrides" if name == "set" else name)
                 == ParameterSource.COMMANDLINE]
        if given:
            raise click.UsageError(f"{' and '.join(given)}: not for a results folder "
                                   f"({source}); they apply to a scenario file")
        if match_id is None:
            raise click.UsageError(f"{source}: is a results folder; say which match to "
                                   f"show with --match N")
        _stored_hands(source, match_id, point, json_path)
        return
    if match_id is not None:
        raise click.UsageError(f"--match {match_id}: reads a results folder, and {source} is "
                               f"not one; for a scenario file use --count")
    _fresh_hands(source, count, seed, overrides, json_path)


def _stored_hands(out: Path, match_id: int, point: int, json_path) -> None:
    """The history of one match of a results folder: logged, or played again."""
    from nop_sim.results.match_log import load_match_log  # here: start-up time (the games)
    from nop_sim.run.replay import replay_events

    log = load_match_log(out, match_id, point, replay=replay_events)
    click.echo(log.history())
    if json_path is not None:
        _write_records(json_path, log.records())


def _write_records(json_path: Path, records) -> None:
    with json_path.open("w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec) + "\n")
    click.echo(f"event log: {json_path}", err=True)


def _fresh_hands(scenario: Path, count: int, seed, overrides, json_path) -> None:
    """Histories of COUNT fresh hands of a scenario's first sweep point (its game's own)."""
    scn = _load(scenario, overrides, None, seed)
    text, records = scn.game_type.fresh_hands(scn, count)
    click.echo(text)
    if json_path is not None:
        _write_records(json_path, records)


@command("report")
@click.argument("results_dir", type=click.Path(path_type=Path))
def report_cmd(results_dir):
    """Regenerate the summary and report of a finished results folder, and print
    what the report's Headline flagged.

    \b
    Example:
      nop-sim report reports/baseline
    """
    from nop_sim.run.pipeline import rebuild_report  # here: start-up time (Arrow, the games)

    _say_written(rebuild_report(results_dir))


COMMANDS = [run_cmd, sweep_cmd, report_cmd, hands_cmd]
"""What this module adds to ``nop-sim`` (:mod:`nop_sim.cli` lists the modules)."""
