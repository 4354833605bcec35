"""The error classes every part of nop-sim raises, and the did-you-mean hint.

Each exists once, here (``tests/test_helpers_once.py`` checks that no other
module defines an exception class): the settings of both games raise
:class:`SettingsError`, both referees raise :class:`RuleViolation`. The
modules that raise the others import them from here and re-export them under
their old names (``nop_sim.games.new_order.rules.SettingsError``,
``nop_sim.games.ordered_hand.SettingsError``, ``nop_sim.games.new_order.referee.RuleViolation``,
``nop_sim.games.ordered_hand.referee.RuleViolation``, ``nop_sim.run.runner.RunError``,
``nop_sim.run.scenario.ScenarioError``, ``nop_sim.games.new_order.analysis.MissingData``, ...),
so ``except`` clauses written against those names keep working.

The command line turns the user errors (the ``ValueError`` family below) into
exit code 2 and the runtime failures (``RuntimeError``) into exit code 1.

Plain Python, no imports from the rest of the package: the referees import it
and must stay independent of the engines (``tests/test_referee_independent.py``).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["AgentError", "CompareError", "FolderBusy", "MissingData", "MixError", "RuleViolation",
           "RunError", "ScenarioError", "SensitivityError", "SettingsError", "TrainError",
           "TuneError", "did_you_mean"]


class SettingsError(ValueError):
    """A game setting is unknown or its value is not allowed; the message names the
    source (file and table, when there is one), the field, the value and what is allowed."""


class AgentError(ValueError):
    """An unknown preset or policy parameter, or a parameter out of range
    (:mod:`nop_sim.games.new_order.agents`)."""


class MixError(ValueError):
    """A Disruptor mix names an unknown card or a bad number of copies
    (:mod:`nop_sim.games.new_order.disruptors`)."""


class ScenarioError(ValueError):
    """A scenario file, field or override that cannot be used; the message says why
    (:mod:`nop_sim.run.scenario`)."""


class CompareError(ValueError):
    """Two runs that cannot be compared, or a source that is no finished run (one line)
    (:mod:`nop_sim.studies.compare`)."""


class SensitivityError(ValueError):
    """A folder or sweep sensitivity indices cannot be computed for; the message says why
    (:mod:`nop_sim.studies.sensitivity`)."""


class MissingData(KeyError):
    """The run's tables lack what a statistic needs (an older engine, another game kind)
    (:mod:`nop_sim.games.new_order.analysis`); reports show it as a note, not a failure."""

    def __str__(self) -> str:  # KeyError quotes its message; this one is a sentence
        return str(self.args[0]) if self.args else "missing data"


class TuneError(RuntimeError):
    """A study that cannot start or continue (the folder holds another one, the scheduler)
    (:mod:`nop_sim.studies.tune`)."""


class TrainError(RuntimeError):
    """A sound request that cannot be carried out: a folder of another training, an
    unreachable scheduler, a corrupt checkpoint (:mod:`nop_sim.studies.train`)."""


class FolderBusy(RuntimeError):
    """Another process is writing into the folder a command would write into; the
    message names it (:mod:`nop_sim.run.folder_lock`). The command line exits 1."""


class RuleViolation(AssertionError):
    """A logged match or game broke a rule; the message names the match (or game),
    hand, event and rule."""


def did_you_mean(value: object, allowed: Iterable[object]) -> str:
    """``" Did you mean 'x'?"`` for the allowed value closest to ``value``, or ``""``.

    The leading space lets callers append it to a sentence:
    ``f"unknown setting {key!r}." + did_you_mean(key, known)``.
    """
    close = difflib.get_close_matches(str(value), [str(a) for a in allowed], n=1)
    return f" Did you mean {close[0]!r}?" if close else ""


class RunError(ValueError):
    """A run that cannot start or continue, or a run folder that cannot be read (bad
    output folder, changed scenario, scheduler, an unfinished or damaged store); the
    message is one line saying what to do (:mod:`nop_sim.store`, :mod:`nop_sim.run.runner`)."""
