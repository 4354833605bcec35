"""The ``nop-sim`` command line: parse, call one function, say where output went.

Errors are one line, never a traceback. A wrong command line or scenario
file (a bad flag, a bad ``--set`` key or value, a bad scenario field) is a
usage error: exit 2, with click's usage hint. A sound command that cannot be
carried out (the results folder holds another scenario or is not a folder, a
disk error, an unreachable scheduler) is a runtime failure: exit 1, the one
line only. The error's class decides, in one place (``_exit_error``): command
bodies raise and leave the printing to it.

The commands live in modules by group (:mod:`~nop_sim.cli.runs`: run, sweep, report,
hands; :mod:`~nop_sim.cli.studies`: compare, tune, sensitivity;
:mod:`~nop_sim.cli.training`: train, value, exploit; :mod:`~nop_sim.cli.tools`: eval,
frequencies, compile, bench; :mod:`~nop_sim.cli.play`: play), with what they share in
:mod:`~nop_sim.cli.common`. A new command is a module with a ``COMMANDS`` list, named in
:data:`COMMAND_MODULES`.
"""

from __future__ import annotations

# first: --profile's wall clock starts with the command (common sets it on import)
from nop_sim.cli.common import CONTEXT, _Commands

# isort: split
import click

from nop_sim import __version__
from nop_sim.cli import play, runs, studies, tools, training

__all__ = ["COMMAND_MODULES", "main", "run"]

COMMAND_MODULES = (runs, studies, training, tools, play)
"""The modules whose ``COMMANDS`` make up ``nop-sim`` (--help lists them in its own order)."""


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


for _module in COMMAND_MODULES:
    for _command in _module.COMMANDS:
        main.add_command(_command)


def run():  # pragma: no cover - console entry for python -m
    main(prog_name="nop-sim")
