"""What every ``nop-sim`` command shares: the one place errors map to exit codes
(:func:`_exit_error`, applied by :class:`_Command`), the command classes, the options
defined once (pip-tools' ``options.py``), loading a scenario, the progress bar and holding
a folder.

A command module declares its commands with :func:`command` (or a group with
:func:`command_group`) and lists them in its ``COMMANDS``; :mod:`nop_sim.cli` adds them to
the ``nop-sim`` group.
"""

from __future__ import annotations

import time

_STARTED = time.perf_counter()  # --profile's wall clock starts with the command

import os  # noqa: E402
import sys  # noqa: E402

# One BLAS thread a process, unless the user set otherwise: the commands spread their work
# over processes (one a core) and numba threads, and an OpenBLAS thread pool in each
# process spins on the cores they play on. Set before anything imports NumPy (OpenBLAS
# reads it once, when it loads). A 20,000-match training ran in 4.88 and 4.97 s against
# 5.13 and 5.27 s with OpenBLAS's default (2 cores), with the same result.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
from pathlib import Path  # noqa: E402

import click  # noqa: E402

from nop_sim.core.cards import RANK_CHARS  # noqa: E402
from nop_sim.core.column import Column  # noqa: E402
from nop_sim.core.errors import (  # noqa: E402
    CompareError,
    FolderBusy,
    RunError,
    TrainError,
    TuneError,
    did_you_mean,
)

# Imports inside functions: each command imports its study, the runner or the
# kernels (numba) where it runs, so `nop-sim --help` and a usage error answer
# in a fraction of a second; only the core's light modules are imported here.


CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


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


def command(name: str | None = None):
    """A ``nop-sim`` command (a :class:`_Command`: its errors end it as :func:`_exit_error`
    says), with the shared context settings; a command module lists it in ``COMMANDS``."""
    return click.command(name, cls=_Command, context_settings=CONTEXT)


def command_group(name: str | None = None):
    """A group of ``nop-sim`` commands (bench), whose commands are :class:`_Command`."""
    return click.group(name, cls=_Commands, context_settings=CONTEXT)


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


def _holding(folder: Path, hint: str | None = None):
    """Hold ``folder`` for this command (:func:`nop_sim.run.folder_lock.hold_folder`); another
    nop-sim writing there refuses it at once (exit 1, naming that one)."""
    from nop_sim.run.folder_lock import hold_folder  # here: filelock takes 0.1 s to import

    return hold_folder(folder, hint=hint) if hint else hold_folder(folder)


def _trainable(scn, command: str):
    if not scn.game_type.trainable:
        from nop_sim.games import registered_games

        kinds = [g.kind for g in registered_games() if g.trainable]
        raise click.UsageError(f"{scn.source}: nop-sim {command} trains the agents of games that "
                               f"declare a policy space ({', '.join(kinds)}); {scn.kind} does not")


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
