"""The ``nop-sim`` command line: parse, call one function, say where output went.

Errors are one line, never a traceback. A wrong command line or scenario
file (a bad flag, a bad ``--set`` key or value, a bad scenario field) is a
usage error: exit 2, with click's usage hint. A sound command that cannot be
carried out (the results folder holds another scenario or is not a folder, a
disk error, an unreachable scheduler) is a runtime failure: exit 1, the one
line only. The error's class decides, in one place (``_exit_error``): command
bodies raise and leave the printing to it.
"""

from __future__ import annotations

import time

_STARTED = time.perf_counter()  # --profile's wall clock starts with the command

import contextlib  # noqa: E402
import functools  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import click  # noqa: E402
import numpy as np  # noqa: E402

from nop_sim import __version__  # noqa: E402
from nop_sim.core.cards import RANK_CHARS, parse_cards  # noqa: E402
from nop_sim.core.column import DEFAULT_COLUMN, Category, Column  # noqa: E402
from nop_sim.core.errors import (  # noqa: E402
    CompareError,
    FolderBusy,
    RunError,
    TrainError,
    TuneError,
    did_you_mean,
)
from nop_sim.core.profiling import format_profile  # noqa: E402
from nop_sim.core.stats import wilson_interval  # noqa: E402

# Imports inside functions: each command imports its study, the runner or the
# kernels (numba) where it runs, so `nop-sim --help` and a usage error answer
# in a fraction of a second; only the core's light modules are imported here.

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _column_option(f):
    return click.option(
        "--column", "column_text", default="default", show_default=True,
        help="Ranking Column: 'default', all 13 categories top first separated by '>', "
             "or a chain such as 'Two Pair > Full House' (each placed directly above the next).",
    )(f)


def _wild_option(f):
    return click.option(
        "--wild", "wild_text", default="", metavar="RANKS",
        help="Wild ranks, e.g. '2' (deuces wild) or '2,J'.",
    )(f)


def _parse_column(text: str):
    try:
        return Column.parse(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--column") from None


def _parse_wild(text: str) -> int:
    mask = 0
    for token in [t for t in text.replace(" ", ",").split(",") if t]:
        t = token.upper()
        t = "T" if t == "10" else t
        if len(t) != 1 or t not in RANK_CHARS:
            raise click.BadParameter(
                f"rank {token!r} is not one of 2-9, T (or 10), J, Q, K, A", param_hint="--wild")
        mask |= 1 << RANK_CHARS.index(t)
    return mask


class _Failure(click.ClickException):
    """A runtime failure: ``Error: <message>`` on one line, exit 1, no usage hint."""

    exit_code = 1

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).splitlines()))


class _Refusal(_Failure):
    """Bad input that is not a command-line slip: ``Error: <message>`` on one line, exit 2."""

    exit_code = 2


def _os_failure(exc: OSError) -> _Failure:
    """One line for a disk error: the path and what the system said."""
    where = f"{exc.filename}: " if exc.filename else ""
    return _Failure(f"{where}{exc.strerror or exc}")


def _exit_error(exc: Exception, ctx: click.Context | None = None) -> click.ClickException | None:
    """The one line and exit code a command's error ends it with, by the error's class (the
    one place they are decided; the module docstring says which is which): a runtime
    failure or a disk error exits 1 with the line only; two runs that cannot be compared
    exit 2 with the line only; any other bad input (a ``ValueError``) exits 2 with
    ``ctx``'s usage hint. None for any other error (a bug: its traceback shows)."""
    if isinstance(exc, RunError | TrainError | TuneError | FolderBusy):  # RunError is a
        return _Failure(str(exc))                                        # ValueError: first
    if isinstance(exc, OSError):
        return _os_failure(exc)
    if isinstance(exc, CompareError):
        return _Refusal(str(exc))
    if isinstance(exc, ValueError):
        return click.UsageError(str(exc), ctx)
    return None


class _Command(click.Command):
    """A command whose errors end it as :func:`_exit_error` says: one line, no traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except Exception as exc:
            error = _exit_error(exc, ctx)
            if error is None:
                raise
            raise error from None


class _Commands(click.Group):
    """Lists the designer's path first in ``--help`` (run, compare, sweep, ...), then the
    tools (eval, frequencies, compile, bench) alphabetically. Its commands are
    :class:`_Command`, its groups (bench) are its own kind."""

    command_class = _Command
    group_class = type
    FIRST = ("run", "compare", "sweep", "report", "hands", "tune", "sensitivity", "train",
             "value", "exploit")

    def list_commands(self, ctx):
        names = super().list_commands(ctx)
        return [n for n in self.FIRST if n in names] + [n for n in names if n not in self.FIRST]


@click.group(cls=_Commands, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="nop-sim")
def main():
    """Monte Carlo balance analysis for New Order Poker.

    \b
    Start with:
      nop-sim run scenarios/baseline.toml             # -> reports/baseline/report.html
      nop-sim compare reports/baseline reports/cap30  # B - A, after running a copy cap30.toml
      nop-sim sweep scenarios/ledger_sweep.toml       # every point of a [sweep] table
      nop-sim report reports/baseline                 # rebuild a run's summary and report
      nop-sim hands scenarios/baseline.toml --count 3  # readable hand histories

    \b
    The evaluator on its own:
      nop-sim eval "As Ks 7d 7h 2c Qs Qd" --column "Two Pair > Flush"
      nop-sim frequencies --moved "Two Pair > Full House"

    Scenario files: docs/scenarios.md; comparing runs: docs/compare.md. A run is
    named after its scenario file: a copy, cap30.toml, runs into reports/cap30/.
    """


@main.command("eval", context_settings=CONTEXT)
@click.argument("cards")
@_column_option
@_wild_option
@click.option("--decks", default=1, show_default=True, type=click.IntRange(1, 4),
              help="Decks in play (repeated cards allowed up to this many copies).")
def eval_cmd(cards: str, column_text: str, wild_text: str, decks: int):
    """Show the best five-card hand of CARDS under a Ranking Column.

    CARDS are 5 to 8 cards such as "As Ks 7d 7h 2c Qs Qd" (10 or T for tens).

    \b
    Example:
      nop-sim eval "Ks Kd Kh 7c 7d Qs 2c" --column "Two Pair > Full House"
    """
    from nop_sim.evaluator import best_hand

    try:
        hand = parse_cards(cards)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="CARDS") from None
    column = _parse_column(column_text)
    wild = _parse_wild(wild_text)
    try:
        best = best_hand(hand, column, wild_ranks=wild, decks=decks)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="CARDS") from None
    click.echo(str(best))
    click.echo(f"column: {column}")


@main.command(context_settings=CONTEXT)
@click.option("--hands", "n_hands", default=1_000_000, show_default=True,
              type=click.IntRange(1000, 50_000_000), help="Random seven-card hands to deal.")
@click.option("--moved", "moved_text", default="Two Pair > Full House", show_default=True,
              help="The moved column to compare with the default (same syntax as --column).")
@_wild_option
@click.option("--seed", default=0, show_default=True, type=int, help="Random seed.")
def frequencies(n_hands: int, moved_text: str, wild_text: str, seed: int):
    """How often each category is the best hand, default column vs a moved one.

    Deals random seven-card hands (5 hole + 2 community, one deck) and shows
    which category each plays as its best hand under the default column and
    under the moved column, with the moved share's 95% Wilson interval: what a
    promotion does to the hands that win.

    \b
    Example:
      nop-sim frequencies --hands 2000000 --moved "Two Pair > Full House" --wild 2
    """
    from nop_sim.evaluator import best_category
    from nop_sim.studies.bench import random_hands

    moved = _parse_column(moved_text)
    wild = _parse_wild(wild_text)
    hands = random_hands(n_hands, 7, seed)
    base = np.bincount(best_category(hands, DEFAULT_COLUMN, wild_ranks=wild, parallel=True),
                       minlength=13)
    new = np.bincount(best_category(hands, moved, wild_ranks=wild, parallel=True), minlength=13)
    click.echo(f"{n_hands:,} random seven-card hands, seed {seed}"
               + (f", wild mask {wild:#x}" if wild else ""))
    click.echo(f"moved column: {moved}")
    click.echo(f"{'category':<16}{'default %':>12}{'moved %':>12}{'change':>10}"
               f"   moved: 95% interval (Wilson)")
    # Wilson, not Wald: a category never seen still has a non-zero upper bound
    low, high = wilson_interval(new, n_hands)
    for cat in Category:
        p0, p1 = base[cat] / n_hands, new[cat] / n_hands
        click.echo(f"{cat.label:<16}{100 * p0:>11.3f}%{100 * p1:>11.3f}%"
                   f"{100 * (p1 - p0):>+9.3f}%   [{100 * low[cat]:.3f}%, {100 * high[cat]:.3f}%]")


def _run_options(f):
    """Options shared by run and sweep (defined once)."""
    for deco in reversed([
        click.option("--matches", type=click.IntRange(1, 100_000_000), default=None,
                     help="Matches per sweep point (overrides [run] matches)."),
        click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None,
                     help="Root seed (overrides [run] seed)."),
        click.option("--workers", type=click.IntRange(1, 1024), default=None,
                     help="Local worker processes [default: all cores]."),
        click.option("--scheduler", metavar="ADDRESS", default=None,
                     help="Run on a Dask cluster, e.g. tcp://10.0.0.5:8786."),
        click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
                     help="Results folder [default: reports/<scenario file name>]."),
        click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
                     help="Override a setting, e.g. --set dart_cap=30 --set run.chunk=100."),
        click.option("--resume", is_flag=True,
                     help="Finish a run that was stopped, reusing its finished chunks."),
        click.option("--quiet", "-q", is_flag=True, help="No progress bar."),
        click.option("--no-report", is_flag=True,
                     help="Write results and summary only (nop-sim report builds it later)."),
        click.option("--profile", is_flag=True,
                     help="Print where the time went: worker start, simulation, tables, "
                          "writes, checksums, report."),
    ]):
        f = deco(f)
    return f


def _load(path: Path, overrides, matches, seed):
    from nop_sim.run.scenario import load_scenario

    extra = list(overrides)
    if matches is not None:
        extra.append(f"run.matches={matches}")
    if seed is not None:
        extra.append(f"run.seed={seed}")
    return load_scenario(path, extra)  # a ScenarioError: exit 2 with usage (_exit_error)


class _Progress:
    """A progress bar on stderr with ETA and work/s (hands/s, turns/s); silent when not a terminal."""

    def __init__(self, quiet: bool, unit: str = "hands", label: str = "chunks"):
        self.enabled = not quiet and sys.stderr.isatty()
        self.unit = unit
        self.label = label
        self.bar = None
        self.t0 = None
        self.start_work = 0
        self.rate = ""  # the bar shows it from its first render, on entering

    def __call__(self, done: int, total: int, work: int):
        if not self.enabled:
            return
        if self.bar is None:
            self.t0 = time.perf_counter()
            self.start_work = work
            self.bar = click.progressbar(length=total, label=self.label, file=sys.stderr,
                                         show_eta=True, show_percent=True,
                                         item_show_func=lambda _: self.rate)
            self.bar.__enter__()
            self.bar.update(done)
            return
        elapsed = max(time.perf_counter() - self.t0, 1e-9)
        self.rate = f"{(work - self.start_work) / elapsed:,.0f} {self.unit}/s"
        self.bar.update(done - self.bar.pos, current_item=self.rate)

    def close(self):
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


def _execute(scn, out_dir, workers, scheduler, resume, quiet, no_report=False, profile=False,
             *, strong=False, before_report=None):
    """Run ``scn`` into its folder (:func:`nop_sim.run.pipeline.execute`: held from the
    start to the report; ``strong``: its [strong] field played beside it;
    ``before_report(folder)`` adds its tables first) and print what it wrote."""
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
    rate = result.n_work / result.seconds if result.seconds > 0 else 0.0
    click.echo(f"{scn.name}: {result.n_matches:,} matches, {result.n_work:,} {result.work} "
               f"({result.computed} chunks run, {result.reused} reused) in "
               f"{result.seconds:.1f} s ({rate:,.0f} {result.work}/s)")
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
        for line in written.ranking:
            click.echo(line)


def _holding(folder: Path, hint: str | None = None):
    """Hold ``folder`` for this command (:func:`nop_sim.run.folder_lock.hold_folder`); another
    nop-sim writing there refuses it at once (exit 1, naming that one)."""
    from nop_sim.run.folder_lock import hold_folder  # here: filelock takes 0.1 s to import

    return hold_folder(folder, hint=hint) if hint else hold_folder(folder)


@main.command("run", context_settings=CONTEXT)
@click.argument("scenario", type=click.Path(path_type=Path))
@_run_options
def run_cmd(scenario, matches, seed, workers, scheduler, out_dir, overrides, resume, quiet,
            no_report, profile):
    """Run SCENARIO (a .toml file) and write results and a summary.

    Results go to reports/<file name>/ (scenarios/cap30.toml: reports/cap30/)
    unless --out says otherwise; running the same scenario again into the same
    folder reuses what is done.

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




@main.command("sweep", context_settings=CONTEXT)
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
    from nop_sim.store import UNSETTLED

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


def _train_options(f):
    """Options of train, value and exploit (defined once)."""
    for deco in reversed([
        click.option("--budget-matches", "budget", type=click.IntRange(1, 10**10),
                     default=None, help="Most matches to play, every phase counted "
                     "[train: 1,000,000; value: 400,000; exploit: 200,000]."),
        click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None,
                     help="Root seed (default: the scenario's [run] seed)."),
        click.option("--workers", type=click.IntRange(1, 1024), default=None,
                     help="Threads of this process [default: all cores]; the result never "
                          "depends on it."),
        click.option("--scheduler", metavar="ADDRESS", default=None,
                     help="Play the batches on a Dask cluster, e.g. tcp://10.0.0.5:8786."),
        click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
                     help="Override a setting, e.g. --set hedge_cost=8."),
        click.option("--quiet", "-q", is_flag=True, help="No progress bar."),
    ]):
        f = deco(f)
    return f


def _trainable(scn, command: str):
    if not scn.game_type.trainable:
        from nop_sim.games import registered_games

        kinds = [g.kind for g in registered_games() if g.trainable]
        raise click.UsageError(f"{scn.source}: nop-sim {command} trains the agents of games that "
                               f"declare a policy space ({', '.join(kinds)}); {scn.kind} does not")


@main.command("train", context_settings=CONTEXT)
@click.argument("scenario", type=click.Path(path_type=Path))
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Training folder [default: reports/<scenario file name>-train].")
@click.option("--epsilon", type=click.FloatRange(0, 100), default=None,
              help="Stop when the best deviation found gains less than this much, with 95% "
                   "confidence, in the game's unit [default: 1 win-rate point; Kuhn poker: "
                   "0.01 chips per hand].")
@click.option("--resume", is_flag=True, help="Finish a stopped training, keeping its rounds, "
                                            "or go on with a finished one given a larger "
                                            "--budget-matches or a smaller --epsilon (with "
                                            "--seeds: each training, then the pool).")
@click.option("--no-report", is_flag=True, help="Write strong.toml and the tables only.")
@click.option("--seeds", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Train this many times, with seeds --seed, --seed + 1, ..., each a full "
                   "training of --budget-matches into OUT/seed-<s>/, and pool them: OUT's "
                   "strong.toml is the field of their pooled population, half-a/ and half-b/ "
                   "the fields of each half of the seeds (two fields that share no seed); "
                   "each field is then hardened by PSRO rounds from the pool, one training's "
                   "budget for the pooled field (in pooled/) and half of one for each half, "
                   "with seeds --seed + K, + K + 1, + K + 2.")
@click.option("--method", type=click.Choice(["psro", "cfr"]), default="psro",
              show_default=True,
              help="psro: a mixture over a population of searched policies (every game with "
                   "a policy space); cfr: counterfactual regret minimisation, the average "
                   "strategy over the game's information sets (Kuhn poker: full-width "
                   "Discounted CFR over the true infosets).")
@click.option("--iterations", type=click.IntRange(1, 10**9), default=None,
              help="--method cfr: iterations to run [default: the game's, Kuhn poker 1,000].")
@_train_options
def train_cmd(scenario, out_dir, epsilon, resume, no_report, seeds, method, iterations, budget,
              seed, workers, scheduler, overrides, quiet):
    """Train a strong field for SCENARIO's rules: a mixture over a population of policies.

    PSRO: the population starts with the scenario's seats; each round a
    best-response search (many starts over the whole policy box, CMA-ES
    restarts with a growing population, racing on common seeds) looks for
    the single-seat deviation that gains most against the field, a fresh
    check measures its gain, and the deviation joins the population; the
    field is the mixture that solves the population's meta-game. Training
    stops when the gain is below --epsilon (win-rate points, or the game's unit:
    Kuhn poker's chips per hand) with 95% confidence, or
    when the budget is spent; a final search with a new seed then measures
    the field: a deviation gains at least that much (a lower bound, stated
    with the search's size). The mixture goes to strong.toml, usable as a
    seat: [seats] all = "@reports/baseline-train/strong.toml".

    With --seeds K, K trainings (seeds --seed to --seed + K - 1) are pooled:
    every distinct policy of their populations in one meta-game, its table
    their tables and a tenth of their budget played anew, solved for the
    mixture of least regret found (the rule each training's field is solved
    by). Each half of the seeds is solved the same way on its own trainings'
    policies. Each of the three fields is then hardened by PSRO rounds that
    start from it, with a population of every policy of its trainings: one
    training's budget for the pooled field (pooled/, seed --seed + K), half
    of one for each half (half-a/ and half-b/, seeds --seed + K + 1 and
    + K + 2), each ending with the trainer's final search, which states its
    exploitability. The halves are fields nop-sim value and exploit take as
    --strong.

    \b
    Examples:
      nop-sim train scenarios/baseline.toml
      nop-sim train scenarios/baseline.toml --seeds 4 --budget-matches 200000
      nop-sim train scenarios/baseline.toml --budget-matches 2000000 --epsilon 2
      nop-sim train scenarios/baseline.toml --resume          # after a crash or Ctrl-C
      nop-sim train scenarios/baseline.toml --budget-matches 4000000 --resume   # go on
      nop-sim run scenarios/baseline.toml --set seats.all=@reports/baseline-train/strong.toml
      nop-sim train scenarios/kuhn3.toml --method cfr --out reports/kuhn3-cfr
    """
    from nop_sim.studies.train import TrainConfig, train_folder
    from nop_sim.studies.train.report import write_train_report

    scn = _load(scenario, overrides, None, seed)
    _trainable(scn, "train")
    if method == "cfr":
        return _train_regret(scn, out_dir, iterations, resume, seeds, budget, epsilon, quiet,
                             no_report)
    if iterations is not None:
        raise click.BadParameter("counts CFR iterations: give it with --method cfr "
                                 "(PSRO's budget is --budget-matches)",
                                 param_hint="--iterations")
    cfg = TrainConfig(budget=budget or 1_000_000, seed=scn.seed,
                      epsilon=scn.game_type.policy.epsilon if epsilon is None else epsilon)
    out = out_dir or Path("reports") / f"{scn.name}-train"
    if seeds > 1:
        return _train_pool(scenario, overrides, scn, seeds, out, cfg, workers, scheduler,
                           resume, no_report, quiet)
    progress = _Progress(quiet, "matches", label="matches")
    with _holding(out):
        with contextlib.closing(progress):
            result = train_folder(scn, out, cfg, threads=workers, scheduler=scheduler,
                                  resume=resume, progress=lambda d, t: progress(d, t, d))
        report = None if no_report else write_train_report(out)
    _say_trained(scn, result, out, report)


def _say_trained(scn, result, out: Path, report) -> None:
    """A PSRO training's lines: rounds, the field, its exploitability, where it went."""
    state = "converged" if result.converged else "budget spent"
    rate = result.matches / result.seconds if result.seconds > 0 else 0.0
    click.echo(f"{scn.name}: {result.rounds} rounds ({state}), {result.matches:,} matches in "
               f"{result.seconds:.1f} s ({rate:,.0f} matches/s)")
    click.echo(f"strong field: a mixture of {len(result.weights)} of {result.population} "
               f"policies (weights " + ", ".join(f"{w:.2f}" for w in result.weights) + "): "
               f"{result.kept}")
    click.echo(f"exploitability: {result.statement}"
               + (f"; re-scored on {result.check_matches:,} held-out matches, as precise as "
                  f"{result.effective_matches:,.0f} plain"
                  if result.check_matches and result.effective_matches is not None else ""))
    if result.exact:  # the game knows the field's figures exactly (Kuhn poker)
        say = result.policy.amount
        click.echo(f"exactly: NashConv {say(result.exact['nash_conv'] / result.policy.scale)} "
                   f"per hand; the best single-seat deviation gains "
                   f"{say(result.exact['gain_per_seat'] / result.policy.scale)} per hand")
    bounds = result.space.at_bounds(result.row)
    if bounds:
        shown = [f"{k} ({v})" for k, v in bounds.items()]
        click.echo("at the edge of the legal range: " + ", ".join(shown[:8])
                   + (f" and {len(shown) - 8} more" if len(shown) > 8 else ""))
    click.echo(f"strong.toml:  {out / 'strong.toml'}")
    if report:
        click.echo(f"report:       {report}")


def _train_regret(scn, out_dir, iterations, resume, seeds, budget, epsilon, quiet,
                  no_report):
    """``train --method cfr``: the game's regret trainer into a folder
    (:mod:`nop_sim.studies.train.regret`)."""
    from nop_sim.studies.train.regret import regret_folder
    from nop_sim.studies.train.report import write_train_report

    for given, name in ((seeds > 1, "--seeds"), (budget is not None, "--budget-matches"),
                        (epsilon is not None, "--epsilon")):
        if given:
            raise click.BadParameter("is PSRO's; --method cfr runs --iterations",
                                     param_hint=name)
    if scn.game_type.policy.regret is None:
        raise click.UsageError(f"{scn.source}: {scn.kind} has no regret-minimisation "
                               f"trainer yet; train it with --method psro (the default)")
    out = out_dir or Path("reports") / f"{scn.name}-cfr"
    progress = _Progress(quiet, "iterations", label="CFR iterations")
    with _holding(out):
        with contextlib.closing(progress):
            result = regret_folder(scn, out, iterations, resume=resume,
                                   progress=lambda d, t: progress(d, t, d))
        report = None if no_report else write_train_report(out)
    rate = result.iterations / result.seconds if result.seconds > 0 else 0.0
    click.echo(f"{scn.name}: {result.iterations:,} iterations of {result.method} in "
               f"{result.seconds:.1f} s ({rate:,.0f} iterations/s, "
               f"{rate * result.infosets:,.0f} information-set updates/s); abstraction: "
               f"{result.infosets} information sets, {result.actions} actions each")
    if result.exact:  # the game knows the field's figures exactly (Kuhn poker)
        unit = scn.game_type.policy.unit
        click.echo(f"exactly: NashConv {result.exact['nash_conv']:.6f} {unit} per hand; the "
                   f"best single-seat deviation gains {result.exact['gain_per_seat']:.6f} "
                   f"{unit} per hand")
    click.echo(f"strong.toml:  {out / 'strong.toml'}")
    if (out / "curve.csv").exists():
        click.echo(f"curve:        {out / 'curve.csv'}")
    if report:
        click.echo(f"report:       {report}")


def _train_pool(scenario, overrides, scn, seeds, out, cfg, workers, scheduler, resume,
                no_report, quiet):
    """``train --seeds K``: K trainings pooled (:mod:`nop_sim.studies.train.pooled`)."""
    from nop_sim.studies.train.pooled import pool_folder
    from nop_sim.studies.train.report import write_train_report

    if scn.seed + seeds + 2 > 2**63 - 1:  # the trainings' seeds, then their fields' PSROs'
        raise click.BadParameter(f"seeds {scn.seed} to {scn.seed + seeds + 2} (the trainings' "
                                 f"and their fields' PSROs'): the last is above 2**63 - 1; "
                                 f"give a smaller --seed", param_hint="--seeds")
    scns = [_load(scenario, overrides, None, scn.seed + i) for i in range(seeds)]
    progress = _Progress(quiet, "matches", label=f"{seeds} trainings and their pool")
    with _holding(out):
        with contextlib.closing(progress):
            r = pool_folder(scns, out, cfg, threads=workers, scheduler=scheduler,
                            resume=resume, progress=lambda d, t: progress(d, t, d))
        reports = [] if no_report else [write_train_report(f)
                                         for f in [*r.trained, *r.hardened, out]]
    p = r.policy
    rate = r.matches / r.seconds if r.seconds > 0 else 0.0
    click.echo(f"{scn.name}: a field pooled from {seeds} trainings (seeds {r.seeds[0]} to "
               f"{r.seeds[-1]}), {r.matches:,} matches in {r.seconds:.1f} s "
               f"({rate:,.0f} matches/s); {len(r.trained)} trained now, "
               f"{seeds - len(r.trained)} read; {len(r.hardened)} of 3 fields' PSROs trained "
               f"now")
    d = p.digits
    for s in r.sources:
        e = (f"exploitability at training {s['exploitability']:+.{d}f} {p.unit} (95% "
             f"{s['exploitability_low']:+.{d}f} to {s['exploitability_high']:+.{d}f})"
             if "exploitability" in s else "exploitability unknown")
        click.echo(f"  seed {s['seed']}: a mixture of {s['mixture']} of {s['population']} "
                   f"policies; {e}"
                   + (f"; an independent check: at least {s['checked_exploitability']:.{d}f}"
                      if "checked_exploitability" in s else ""))
    h = r.harden
    click.echo(f"pooled field: a mixture of {len(r.weights)} (weights "
               + ", ".join(f"{w:.2f}" for w in r.weights) + f"), hardened by "
               f"{h['rounds']} PSRO round(s) (seed {h['seed']}, {h['matches']:,} matches) from "
               f"the pool's solution over {r.meta_members} of its {r.population} distinct "
               f"policies")
    click.echo(f"exploitability: {r.statement}")
    if r.exact:  # the game knows the field's figures exactly (Kuhn poker)
        click.echo(f"exactly: NashConv {p.amount(r.exact['nash_conv'] / p.scale)} per hand; "
                   f"the best single-seat deviation gains "
                   f"{p.amount(r.exact['gain_per_seat'] / p.scale)} per hand (the pool's "
                   f"solution it started from: NashConv "
                   f"{p.amount(h['exact_start']['nash_conv'] / p.scale)})")
    for name, h in r.halves.items():
        click.echo(f"{name}: seeds {', '.join(map(str, h['seeds']))}, a mixture of "
                   f"{len(h['weights'])} (weights "
                   + ", ".join(f"{w:.2f}" for w in h["weights"]) + f"), hardened by "
                   f"{h['rounds']} PSRO round(s) (seed {h['seed']}); its exploitability: "
                   f"{h['statement']}"
                   + (f"; exactly: NashConv {p.amount(h['exact']['nash_conv'] / p.scale)}"
                      if h["exact"] else ""))
    click.echo(f"strong.toml:  {r.path}")
    for name, h in r.halves.items():
        click.echo(f"{name + ':':<13} {h['path']}")
    click.echo(f"trainings:    {', '.join(str(f) for f in r.folders)}")
    psros = [r.harden, *r.halves.values()]
    click.echo(f"PSROs:        {', '.join(str(h['folder']) for h in psros)}")
    if reports:
        click.echo(f"report:       {reports[-1]}")


@main.command("exploit", context_settings=CONTEXT)
@click.argument("scenario", type=click.Path(path_type=Path))
@click.option("--strong", "strong_dir", type=click.Path(path_type=Path), required=True,
              help="A training folder (nop-sim train's --out) holding strong.toml.")
@click.option("--checks", type=click.IntRange(min=1), default=1, show_default=True,
              help="Independent checks, each a search of --budget-matches with a seed of its "
                   "own (--seed, --seed + 1, ...); the largest held-out gain is stated.")
@click.option("--json", "json_out", type=click.Path(path_type=Path, dir_okay=False),
              default=None, help="Also write every check's figures here, for scripts.")
@_train_options
def exploit_cmd(scenario, strong_dir, checks, json_out, budget, seed, workers, scheduler,
                overrides, quiet):
    """Check a strong field: fresh best-response searches against it.

    Each check is the trainer's final search (a free search from many starts
    over the whole policy box, CMA-ES restarts and racing on duplicate deals)
    with its own seed and the budget given; its pick is then re-scored on
    held-out deals no part of the search saw, and that held-out gain, with
    its 95% interval, is the figure stated (the search's own best reading is
    the maximum of many noisy candidates and reads high: it is never stated).
    It is a lower bound: a larger search may find more. Each line also says
    how many plain matches would give the same interval.

    Checks with other seeds find other deviations and can differ by several
    points: --checks K runs K of them (seeds --seed, --seed + 1, ...; check i
    alone is --seed + i) and states the largest. When that is more than
    strong.toml claims, it is written into the file's [training] table, so
    every run that seats the field and the training's own report state the
    largest known bound. A deviation that beats the field is kept in the
    folder's deviations.json, where nop-sim value's searches start from it.

    \b
    Example:
      nop-sim train scenarios/baseline.toml --budget-matches 2000000
      nop-sim exploit scenarios/baseline.toml --strong reports/baseline-train \\
          --seed 7 --budget-matches 2000000 --checks 3 --json checks.json
    """
    import dataclasses

    from nop_sim.studies.train.checks import checks_json, largest, run_checks
    from nop_sim.studies.train.value import record_check, record_found

    scn = _load(scenario, overrides, None, seed)
    _trainable(scn, "exploit")
    budget = budget or 200_000
    policy = scn.game_type.policy
    progress = _Progress(quiet, "matches", label="matches")
    with contextlib.closing(progress):
        found = run_checks(scn, strong_dir, budget=budget, checks=checks, threads=workers,
                           scheduler=scheduler, progress=lambda d, t: progress(d, t, d))
        _, training = _strong_training(strong_dir, scn)
    top = largest(found)
    _say_checks(scn, found, checks, top, training)
    best = dataclasses.replace(scn, seed=top.seed)
    if record_check(best, strong_dir, top.result, budget):
        click.echo(f"recorded in {strong_dir / 'strong.toml'}: it found more than the file "
                   f"claimed, so every run seating the field now states this bound")
        # a PSRO training's folder: its report too (a CFR training's has no rounds)
        if (strong_dir / "history.parquet").is_file():
            from nop_sim.studies.train.report import write_train_report

            click.echo(f"report:       {write_train_report(strong_dir)}")
    for c in found:
        if record_found(dataclasses.replace(scn, seed=c.seed), strong_dir, c.result,
                        budget):
            click.echo(f"kept in {strong_dir / 'deviations.json'}: nop-sim value starts "
                       f"its searches from seed {c.seed}'s deviation")
    if json_out is not None:
        checks_json(json_out, found, scenario=scn.name, folder=strong_dir, budget=budget,
                    unit=policy.unit)
        click.echo(f"checks:       {json_out}")


def _say_checks(scn, found, checks: int, top, training) -> None:
    """nop-sim exploit's lines: each check's held-out gain, the largest, and what the
    field's file claims."""
    # here: the agent files' module loads pandas, and --help need not wait
    from nop_sim.games.agent_files import training_text

    policy = scn.game_type.policy
    for c in found:
        eff = (f"as precise as {c.effective_matches:,.0f} plain matches"
               if np.isfinite(c.effective_matches) else "no noise: it plays as the field")
        click.echo(f"{scn.name}, seed {c.seed}: {c.result.statement()}; re-scored on "
                   f"{c.held_out:,} held-out matches ({eff})")
    if checks > 1:
        gains = ", ".join(f"{c.gain:+.{policy.digits}f}" for c in found)
        click.echo(f"largest of {checks} checks: {top.gain:+.{policy.digits}f} {policy.unit} "
                   f"(95% {top.low:+.{policy.digits}f} to {top.high:+.{policy.digits}f}), "
                   f"seed {top.seed}; every check: {gains}")
    click.echo(f"strong.toml says: {training_text(training)}")


def _strong_training(folder: Path, scn):
    from nop_sim.studies.train.value import load_strong

    return load_strong(folder, scn.settings_at(scn.points()[0]))


def _mechanics(scn, mechanics) -> tuple[str, ...]:
    """The game's mechanics; a ``--mechanic`` that is not one is a usage error naming them."""
    policy = scn.game_type.policy
    known = tuple(policy.mechanics) if policy is not None else ()
    for m in mechanics:
        if m not in known:
            raise click.BadParameter(f"no mechanic {m!r}.{did_you_mean(m, known)} "
                                     f"Allowed: {', '.join(known) or 'none'}",
                                     param_hint="--mechanic")
    return known


@main.command("value", context_settings=CONTEXT)
@click.argument("scenario", type=click.Path(path_type=Path))
@click.option("--strong", "strong_dirs", type=click.Path(path_type=Path), required=True,
              multiple=True,
              help="A training folder (nop-sim train's --out) holding strong.toml; repeat it "
                   "for fields trained with other seeds. A pooled training (nop-sim train "
                   "--seeds) is measured against its two halves.")
@click.option("--mechanic", "mechanics", multiple=True, metavar="NAME",
              help="Restrict only these (repeatable): the game's mechanics, New Order's "
                   "manipulation, hedging, drafting, drawing, bluffing; Ordered Hand's betting, "
                   "raising, repositioning [default: all].")
@click.option("--precision", type=click.FloatRange(0, min_open=True), default=None,
              help="Points: each value's check plays on until its 95% interval is at most "
                   "this wide on each side (at most 6 times its size; matches beyond "
                   "--budget-matches) [default: 2 points against two or more fields, so that "
                   "a value can settle; else the check's size alone].")
@_train_options
def value_cmd(scenario, strong_dirs, mechanics, precision, budget, seed, workers, scheduler,
              overrides, quiet):
    """What each mechanic is worth under strong play (restricted play).

    Against a strong field, two equal searches (the same starts, seeds and
    budget; the starts include every deviation known to beat the field, from
    its training's final search and from nop-sim exploit, kept in the folder's
    deviations.json), one free and one that may not use the mechanic, pool their best
    deviations: the best that leaves the mechanic off, and the free pick (the
    better of it and the pool's best, on matches of their own); the value is
    the difference of their gains, checked on the same duplicate deals (Jaffe
    et al. 2012), so it is below 0 only by noise.

    A value is a property of the rules only where fields trained with other
    seeds agree on it. With two or more fields (--strong repeated, or a pooled
    training's two halves), a value reads "worth v (a to b)" only where the
    fields' values lie within 3 points of each other and each 95% interval is
    within +-2; otherwise "depends on the field: from a to b" (or "not
    settled" where an interval is too wide to tell). Against one field, the
    value is stated with the note that a second field is needed.

    Also: a strong seat's win rate when it drafted each Disruptor, against
    when it did not. Results go into each training folder's value.parquet
    (with range_low, range_high and settled across the fields measured
    together) and its report.

    \b
    Example:
      nop-sim train scenarios/baseline.toml --seeds 4
      nop-sim value scenarios/baseline.toml --strong reports/baseline-train
      nop-sim value scenarios/baseline.toml --strong reports/a-train --strong reports/b-train
    """
    from nop_sim.studies.train.report import write_train_report
    from nop_sim.studies.train.value import value_fields

    scn = _load(scenario, overrides, None, seed)
    _trainable(scn, "value")
    MECHANICS = _mechanics(scn, mechanics)  # noqa: N806  (the game's, read once)
    policy = scn.game_type.policy
    progress = _Progress(quiet, "matches", label="matches")
    with contextlib.ExitStack() as held:
        for d in dict.fromkeys(strong_dirs):
            held.enter_context(_holding(d, "wait for it to finish"))
        # an AgentError is a ValueError: exit 2
        with contextlib.closing(progress):
            m = value_fields(scn, list(dict.fromkeys(strong_dirs)),
                             list(mechanics) or list(MECHANICS), budget=budget or 400_000,
                             threads=workers, scheduler=scheduler,
                             progress=lambda d, t: progress(d, t, d), precision=precision)
        # a folder holding only a strong.toml (copied, shipped) has no training to report
        reports = [write_train_report(d) for d in m.written if (d / "manifest.json").is_file()]
    _say_values(m, reports, policy)


def _say_values(m, reports, policy) -> None:
    """nop-sim value's lines: each mechanic's verdict, its value against each field, where
    the tables and reports went."""
    # here: the agent files' module loads pandas, and --help need not wait
    from nop_sim.games.agent_files import PLAYS_ALIKE, plays_alike, search_gap

    digits, unit = policy.digits, policy.unit
    if len(m.fields) > 1:
        click.echo(f"against {len(m.fields)} fields: {', '.join(map(str, m.fields))}")
    for row in m.settled.itertuples():
        click.echo(f"{row.mechanic:<12} {row.verdict}")
    for folder, table, training in zip(m.fields, m.tables, m.trainings, strict=True):
        if len(m.fields) > 1:
            click.echo(f"  against {folder}:")
        for row in table.itertuples():
            eff = getattr(row, "effective_matches", float("nan"))
            click.echo(f"  {row.mechanic:<12} {row.loss:+.{digits}f} {unit} (95% "
                       f"{row.loss_low:+.{digits}f} to {row.loss_high:+.{digits}f}): the best "
                       f"deviation gains {row.gain_full:+.{digits}f}, without it "
                       f"{row.gain_restricted:+.{digits}f}"
                       + (f"  ({PLAYS_ALIKE})" if plays_alike(row.loss_low, row.loss_high) else
                          "  (cannot tell from 0)" if row.loss_low <= 0 <= row.loss_high
                          else "")
                       + (f"; {int(row.check_matches):,} check matches, as precise as "
                          f"{eff:,.0f} plain a side" if np.isfinite(eff) else ""))
        gap = search_gap(table, training)
        if gap:
            click.echo(f"  read with care: {gap}")
    if m.shared:
        click.echo(f"note: these fields share training seed(s) {sorted(m.shared)}: their "
                   f"agreement is not an independent check")
    if m.replaced:
        click.echo(f"replaced the saved values of {', '.join(m.replaced)}: measured with another "
                   f"seed, budget, strong field or known deviations")
    click.echo("(values are estimates from the check matches above: a larger budget or "
               "--precision narrows them)")
    for d in m.written:
        click.echo(f"tables: {d / 'value.parquet'}"
                   + (f", {d / 'drafts.parquet'}" if (d / "drafts.parquet").exists() else ""))
    for r in reports:
        click.echo(f"report: {r}")
    if not reports:
        click.echo("report: none (the folders hold fields but no training to report on)")


@main.command("tune", context_settings=CONTEXT)
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


@main.command("hands", context_settings=CONTEXT)
@click.argument("source", metavar="SCENARIO|RUN_FOLDER", type=click.Path(path_type=Path))
@click.option("--count", default=5, show_default=True, type=click.IntRange(1, 10_000),
              help="Hands to show (a scenario).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None,
              help="Seed (a scenario; default: its [run] seed).")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a setting (a scenario), e.g. --set betting=no-limit.")
@click.option("--match", "match_id", type=click.IntRange(0), default=None,
              help="A results folder's logged match to show ([run] log_sample picks them).")
@click.option("--point", type=click.IntRange(0), default=0, show_default=True,
              help="The sweep point of --match.")
@click.option("--json", "json_path", type=click.Path(path_type=Path), default=None,
              help="Also write the raw event log as JSON lines to this file.")
@click.pass_context
def hands_cmd(ctx, source, count, seed, overrides, match_id, point, json_path):
    """Readable hand histories: fresh hands of a SCENARIO, or a match a run logged.

    With a scenario file, plays matches of its first sweep point with the event
    log on and prints COUNT hands like a poker room's hand history, with the
    column and the dart shown as they move. With a results folder, prints the
    stored history of --match N (a run keeps them with [run] log_sample).

    \b
    Examples:
      nop-sim hands scenarios/baseline.toml --count 3 --seed 7
      nop-sim hands reports/baseline --match 100
    """
    from click.core import ParameterSource

    from nop_sim.store import not_a_run  # here: start-up time (Arrow)

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
            raise click.UsageError(f"{source}: is a results folder; say which logged match "
                                   f"to show with --match N")
        _stored_hands(source, match_id, point, json_path)
        return
    if match_id is not None:
        raise click.UsageError(f"--match {match_id}: reads a results folder, and {source} is "
                               f"not one; for a scenario file use --count")
    _fresh_hands(source, count, seed, overrides, json_path)


def _stored_hands(out: Path, match_id: int, point: int, json_path) -> None:
    """The stored history of one logged match of a results folder."""
    from nop_sim.run.match_log import load_match_log  # here: start-up time (the games)

    log = load_match_log(out, match_id, point)
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


@main.command("report", context_settings=CONTEXT)
@click.argument("results_dir", type=click.Path(path_type=Path))
def report_cmd(results_dir):
    """Regenerate the summary and report of a finished results folder.

    \b
    Example:
      nop-sim report reports/baseline
    """
    from nop_sim.run.pipeline import rebuild_report  # here: start-up time (Arrow, the games)

    _say_written(rebuild_report(results_dir))


@main.command("compare", context_settings=CONTEXT)
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


@main.command("sensitivity", context_settings=CONTEXT)
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


@main.command("compile", context_settings=CONTEXT)
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="Processes compiling at once [default: all cores].")
def compile_cmd(workers):
    """Compile every simulation kernel into numba's cache now, in parallel.

    Numba otherwise compiles each kernel on first use, so the first run after
    an install or an update waits for it. A cold compile of the six kernel
    groups takes 40 s to 4 minutes on 2 cores (measured: 42 to 44 s with both
    cores free, 135 to 245 s with other work running); make install runs this once,
    and afterwards a run loads the kernels in about a second. A line says when each group
    starts and ends (with its time and how many are done), and every 15 s
    what is still compiling. Running it again only loads them (seconds).

    \b
    Example:
      nop-sim compile
    """
    from nop_sim.run.compiling import COMPILE_TIME, compile_all

    click.echo(f"compiling the simulation kernels into numba's cache, once ({COMPILE_TIME}; "
               f"runs then load them in about a second)...", err=True)
    t0 = time.perf_counter()
    times = compile_all(workers, progress=lambda e: click.echo(_compile_line(e), err=True))
    click.echo(f"kernels ready in {time.perf_counter() - t0:.1f} s ({len(times)} groups); "
               f"runs now load them from the cache")


def _compile_line(e) -> str:
    """One line of ``nop-sim compile``'s progress (a :class:`nop_sim.run.compiling.CompileEvent`)."""
    clock = f"[{int(e.elapsed) // 60:2d}:{int(e.elapsed) % 60:02d}]"
    if e.kind == "start":
        return f"{clock} start  {e.group}   ({e.done}/{e.total} done, {len(e.running)} compiling)"
    if e.kind == "done":
        return f"{clock} done   {e.group} in {e.seconds:.1f} s   ({e.done}/{e.total} done)"
    queued = f"; {e.queued} more to start" if e.queued else ""
    return (f"{clock} still compiling {', '.join(e.running)}{queued}   "
            f"({e.done}/{e.total} done)")


@main.group(context_settings=CONTEXT)
def bench():
    """Speed benchmarks (medians, with a peer measured in the same run), as JSON.

    They ship with the package: an installed nop-sim measures itself.

    \b
    Examples:
      nop-sim bench evaluator --hands 1000000
      nop-sim bench engine --seconds 5 --cold
      nop-sim bench runner --matches 100000 --workers 2
      nop-sim bench ordered --games 50000
    """


@bench.command("evaluator", context_settings=CONTEXT)
@click.option("--hands", "n_hands", default=2_000_000, show_default=True,
              type=click.IntRange(10_000, 100_000_000), help="Pre-generated random hands.")
@click.option("--repeats", default=5, show_default=True, type=click.IntRange(1, 50))
@click.option("--no-compile", is_flag=True, help="Skip the cold-cache compile measurement.")
def bench_evaluator_cmd(n_hands: int, repeats: int, no_compile: bool):
    """Hands per second of the evaluator, as JSON on stdout.

    Single-core rates for the default column, a random column and deuces
    wild; the all-core rate; compile time with an empty numba cache; and
    eval7's compiled rate with the ratio, when eval7 is installed.

    \b
    Example:
      nop-sim bench evaluator --hands 1000000
    """
    from nop_sim.studies.bench import bench_evaluator

    click.echo(json.dumps(bench_evaluator(n_hands, repeats, compile_time=not no_compile),
                          indent=2))


@bench.command("engine", context_settings=CONTEXT)
@click.option("--seconds", default=5.0, show_default=True, type=click.FloatRange(0.001, 3600),
              help="Time per measurement.")
@click.option("--cold", is_flag=True, help="Time a full compile (an empty numba cache).")
@click.option("--rounds", default=5, show_default=True, type=click.IntRange(1, 100),
              help="Rounds of a second each (or --seconds, if less), OpenSpiel's playouts "
                   "then the engine's hands, for the median ratio (with OpenSpiel installed).")
def bench_engine_cmd(seconds: float, cold: bool, rounds: int):
    """Hands and matches per second of the New Order engine, as JSON on stdout.

    One core and all cores, balanced then random agents, and the compile
    time of a fresh process (loading the cache, or a full compile with
    --cold). With OpenSpiel installed (pip install 'nop-sim[bench]', as make
    bench does), the engine's hands per CPU-second against OpenSpiel's
    4-player limit hold'em random playouts on the same thread, interleaved:
    ratio_vs_openspiel, the median of --rounds rounds.

    \b
    Examples:
      nop-sim bench engine
      nop-sim bench engine --seconds 5 --cold
    """
    from nop_sim.studies.bench import bench_engine

    click.echo(json.dumps(bench_engine(seconds, cold=cold, rounds=rounds)))


@bench.command("runner", context_settings=CONTEXT)
@click.option("--scenario", type=click.Path(path_type=Path, dir_okay=False),
              help="A New Order scenario without a [sweep]  [default: the baseline's game "
                   "and seats]")
@click.option("--matches", "n_matches", default=21_000, show_default=True,
              type=click.IntRange(1, None), help="Matches per repeat.")
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 256))
@click.option("--repeats", default=3, show_default=True, type=click.IntRange(1, 50))
def bench_runner_cmd(scenario: Path | None, n_matches: int, workers: int, repeats: int):
    """The runner's rate against the in-process engine's on the same cores
    (runner_share), a whole `nop-sim run` command's in a fresh process (command_share),
    its phases and start-up cost, as JSON on stdout.

    \b
    Examples:
      nop-sim bench runner
      nop-sim bench runner --matches 100000 --workers 2
    """
    from nop_sim.studies.bench import bench_runner

    figures = bench_runner(scenario, n_matches, workers, repeats)
    click.echo(json.dumps(figures, indent=2))


@bench.command("ordered", context_settings=CONTEXT)
@click.option("--games", "n_games", default=200_000, show_default=True,
              type=click.IntRange(1, None), help="Games per set-up (half for the extra mixes).")
@click.option("--no-compile", is_flag=True, help="Skip the cold-cache compile measurement.")
def bench_ordered_cmd(n_games: int, no_compile: bool):
    """Games per second of the Ordered Hand engine on one core, as JSON on stdout.

    \b
    Examples:
      nop-sim bench ordered
      nop-sim bench ordered --games 50000 --no-compile
    """
    from nop_sim.studies.bench import bench_ordered

    click.echo(json.dumps(bench_ordered(n_games, compile_time=not no_compile)))


def run():  # pragma: no cover - console entry for python -m
    main(prog_name="nop-sim")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
