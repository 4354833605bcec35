"""The error classes every part of nop-sim raises, and the did-you-mean hint.

Each exists once (``tests/test_helpers_once.py`` checks it): the settings of
both games raise :class:`SettingsError`, both referees raise
:class:`RuleViolation`. The modules that used to define them re-export them
(``nop_sim.games.new_order.rules.SettingsError``, ``nop_sim.games.ordered_hand.SettingsError``,
``nop_sim.games.new_order.referee.RuleViolation``, ``nop_sim.games.ordered_hand.referee.RuleViolation``),
so ``except`` clauses written against those names keep working.

Plain Python, no imports from the rest of the package: the referees import it
and must stay independent of the engines (``tests/test_referee_independent.py``).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["FolderBusy", "RuleViolation", "RunError", "SettingsError", "did_you_mean"]


class SettingsError(ValueError):
    """A game setting is unknown or its value is not allowed; the message names the
    source (file and table, when there is one), the field, the value and what is allowed."""


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
