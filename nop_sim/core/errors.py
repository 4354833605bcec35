"""The error classes every part of nop-sim raises, the did-you-mean hint, and what a TOML
file the user wrote gets wrong (:func:`toml_problem`: a key given twice, named).

Each exists once, here (``tests/test_helpers_once.py`` checks that no other
module defines an exception class): the settings of both games raise
:class:`SettingsError`, both referees raise :class:`RuleViolation`. The
modules that raise the others import them from here and re-export them under
their old names (``nop_sim.games.new_order.settings.SettingsError``,
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
import re
import tomllib
from collections.abc import Iterable

__all__ = ["AbstractionError", "AgentError", "CompareError", "FolderBusy", "IllegalAction", "MissingData", "MixError",
           "RuleViolation",
           "RunError", "ScenarioError", "SensitivityError", "SettingsError", "TrainError",
           "TuneError", "did_you_mean", "toml_problem"]


class SettingsError(ValueError):
    """A game setting is unknown or its value is not allowed; the message names the
    source (file and table, when there is one), the field, the value and what is allowed."""


class AgentError(ValueError):
    """An unknown preset or policy parameter, or a parameter out of range
    (:mod:`nop_sim.games.new_order.agents`)."""


class AbstractionError(ValueError):
    """A betting abstraction's setting (``[train]``) or table that cannot be used; the
    message names it and what is allowed (one line)."""


class MixError(ValueError):
    """A Disruptor mix names an unknown card or a bad number of copies
    (:mod:`nop_sim.games.new_order.disruptors`)."""


class IllegalAction(ValueError):
    """A person's action at a table (``nop-sim play``) that the rules do not allow now, or
    a seat the match has not; the message says what is allowed (one line)."""


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


_TOML_AT = re.compile(r"\(at line (\d+), column \d+\)$")
# tomllib's words for a key or table given a second time
_TOML_TWICE = re.compile(r"^(Cannot overwrite a value|Cannot declare .* twice) \(at line")


def toml_problem(text: str, exc: tomllib.TOMLDecodeError) -> str:
    """What is wrong with the TOML ``text`` that tomllib refused with ``exc``, for a message
    that names the file before it.

    tomllib says ``Cannot overwrite a value (at line 17, column 14)`` for a key given twice,
    naming neither; this says ``duplicate key [run] matches at line 17 (first given at line
    15): give each key once``, and ``duplicate table [run] at line 20 (first given at line
    3): ...`` for a table declared twice. Any other problem: tomllib's own message.
    """
    message = str(exc)
    at = _TOML_AT.search(message)
    if not at or not _TOML_TWICE.match(message):
        return message
    lines = text.splitlines()
    start = _statement_start(lines, int(at.group(1)))  # tomllib points past a key's value
    if start is None:
        return message
    head = lines[start - 1].strip()
    if head.startswith("["):
        header, rows_from = [], 1
        path = _key_path(head.split("#")[0].strip("[] \t"))
    else:
        header, rows_from = _header_before(lines, start)
        path = header + _key_path(_key_text(head))
    # the part of the path given before: "matches" of "matches.x = 2" after "matches = 1"
    before = tomllib.loads("\n".join(lines[:start - 1]))
    while len(path) > 1 and not _holds(before, path):
        path = path[:-1]
    if not path or not _holds(before, path):
        return message
    if len(path) > len(header) and header:
        kind, name = "key", f"[{'.'.join(header)}] {'.'.join(path[len(header):])}"
    elif head.startswith("["):
        kind, name = "table", f"[{'.'.join(path)}]"
    else:
        kind, name = "key", ".".join(path)
    first = next((t for t in range(rows_from, start)
                  if _parses(lines[:t]) and _holds(tomllib.loads("\n".join(lines[:t])), path)),
                 None)
    said = f" (first given at line {_statement_start(lines, first)})" if first else ""
    advice = ("give each key once" if kind == "key"
              else "declare each table once, with all its keys under it")
    return f"duplicate {kind} {name} at line {start}{said}: {advice}"


def _statement_start(lines: list[str], end: int) -> int | None:
    """The line on which the statement that ends on line ``end`` begins: the last line from
    which the text up to ``end`` is TOML of its own, after TOML that parses."""
    return next((s for s in range(end, 0, -1)
                 if _parses(lines[s - 1:end]) and _parses(lines[:s - 1])), None)


def _parses(lines: list[str]) -> bool:
    try:
        tomllib.loads("\n".join(lines))
    except tomllib.TOMLDecodeError:
        return False
    return True


def _key_text(line: str) -> str:
    """The key of a ``key = value`` line: the text before its first ``=`` outside quotes."""
    quote, escaped = "", False
    for i, ch in enumerate(line):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "=":
            return line[:i]
    return ""


def _key_path(key: str) -> list[str]:
    """``run.matches`` (quoted parts too) as ``["run", "matches"]``; [] if it is no key."""
    try:
        node = tomllib.loads(f"{key} = 0")
    except tomllib.TOMLDecodeError:
        return []
    path = []
    while isinstance(node, dict) and len(node) == 1:
        (name, node), = node.items()
        path.append(name)
    return path


def _header_before(lines: list[str], start: int) -> tuple[list[str], int]:
    """The table header a statement on line ``start`` falls under ([] for the top level),
    and the line from which its keys are searched (an ``[[array]]`` row's own header)."""
    for h in range(start - 1, 0, -1):
        head = lines[h - 1].strip()
        if head.startswith("[") and _parses(lines[:h - 1]) and _parses([lines[h - 1]]):
            path = _key_path(head.split("#")[0].strip("[] \t"))
            return path, (h if head.startswith("[[") else 1)
    return [], 1


def _holds(data: object, path: list[str]) -> bool:
    """Whether ``path`` is given in parsed ``data`` (an array of tables: in its last row)."""
    for name in path:
        if isinstance(data, list) and data and isinstance(data[-1], dict):
            data = data[-1]
        if not isinstance(data, dict) or name not in data:
            return False
        data = data[name]
    return True


class RunError(ValueError):
    """A run that cannot start or continue, or a run folder that cannot be read (bad
    output folder, changed scenario, scheduler, an unfinished or damaged store); the
    message is one line saying what to do (:mod:`nop_sim.results.store`, :mod:`nop_sim.run.runner`)."""
