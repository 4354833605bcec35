"""The report model: blocks, sections, section specs and the report itself.

The blocks a section's build function returns (:class:`Figure`,
:class:`Table`, :class:`Note`, :class:`Bullets`, :class:`Csv`) are rendered
once to HTML and once to Markdown by :mod:`nop_sim.reporting.render`.
Nothing here draws, builds or writes files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["Bullets", "Csv", "Figure", "Note", "Report", "Section", "SectionSpec", "Table"]


@dataclass
class Figure:
    """A drawn figure: PNG bytes, written to ``figures/<name>.png`` and embedded in HTML."""

    name: str
    png: bytes
    caption: str
    width: int
    height: int


@dataclass
class Table:
    """A table shown in the report; ``frame`` is shown as is (strings, or raw values
    formatted by :func:`nop_sim.reporting.format.cell`).

    With ``csv``, the full table (``full``, default ``frame``) is written to
    ``tables/<csv>`` and the caption links to it. ``highlight`` lists rows
    (0-based) drawn as the best.
    """

    frame: pd.DataFrame
    caption: str = ""
    highlight: Sequence[int] = ()
    csv: str | None = None
    full: pd.DataFrame | None = None


@dataclass
class Note:
    """A paragraph; ``kind`` is "p", "warning" or "muted". ``**bold**`` is allowed."""

    text: str
    kind: str = "p"


@dataclass
class Bullets:
    """A list; ``links`` gives a section id per item (or None) to link the item to."""

    items: list[str]
    kind: str = "p"
    links: list[str | None] | None = None


@dataclass
class Csv:
    """A table written to ``tables/<name>`` only (not shown)."""

    name: str
    frame: pd.DataFrame


Block = Figure | Table | Note | Bullets | Csv


@dataclass
class Section:
    """A built section: its anchor id, heading, intro paragraph and blocks."""

    id: str
    title: str
    intro: str = ""
    blocks: list = field(default_factory=list)


@dataclass(frozen=True)
class SectionSpec:
    """What a report shows, before it is built.

    ``build(ctx)`` returns the section's blocks, or None to leave the
    section out (for example betting, when no point bets).
    """

    id: str
    title: str
    intro: str
    build: Callable[[Any], list | None]


@dataclass
class Report:
    """A whole report: ``title``, a one-line ``meta`` under it, the sections."""

    title: str
    meta: str
    sections: list[Section]

    def blocks(self, kind: type | tuple[type, ...]):
        """Every block of ``kind``, in order."""
        return [b for s in self.sections for b in s.blocks if isinstance(b, kind)]
