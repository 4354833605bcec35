"""Building sections from their specs: numbering, namespacing, one style, and a
report that survives one broken section."""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from nop_sim.reporting.model import Bullets, Csv, Figure, Note, Section, SectionSpec, Table
from nop_sim.reporting.style import styled

__all__ = ["build_blocks", "build_sections", "check_links"]


def build_blocks(spec: SectionSpec, ctx: Any, *, strict: bool = False,
                 unavailable: tuple[type[BaseException], ...] = ()) -> list | None:
    """``spec.build(ctx)`` in the report style: its blocks, or None (no section).

    An exception in ``unavailable`` becomes a muted "Not available" note, any
    other a warning (or, with ``strict``, is raised: for tests).
    """
    try:
        with styled():
            return spec.build(ctx)
    except unavailable as exc:
        return [Note(f"Not available for this run: {exc}.", "muted")]
    except Exception as exc:  # a report must not die on one section
        if strict:
            raise
        return [Note(f"This section could not be built ({type(exc).__name__}: {exc}); "
                     f"the other sections are unaffected.", "warning"),
                Note(traceback.format_exc(limit=2).splitlines()[-1], "muted")]


def build_sections(specs: Sequence[SectionSpec], ctx: Any, *, prefix: str = "",
                   number_from: int | None = None, suffix: str = "", strict: bool = False,
                   unavailable: tuple[type[BaseException], ...] = (),
                   elsewhere: Mapping[str, Callable[[], list | None]] | None = None,
                   ) -> list[Section]:
    """Build each spec with ``ctx``; one failing section does not stop the others.

    ``prefix`` namespaces everything a group of sections writes: section
    ids, figure names, CSV names and in-report links. With ``number_from``
    the titles are numbered from it; ``suffix`` is appended to each title.
    Errors are handled as in :func:`build_blocks`.

    ``elsewhere`` maps spec ids to a callable returning the blocks another
    process built (with :func:`build_blocks`): those are asked for after the
    other specs are built here, so that both work at once; a callable that
    raises (the other process failed) has its spec built here instead.
    """
    elsewhere = elsewhere or {}
    blocks = {spec.id: build_blocks(spec, ctx, strict=strict, unavailable=unavailable)
              for spec in specs if spec.id not in elsewhere}
    for spec in specs:
        if spec.id in elsewhere:
            try:
                blocks[spec.id] = elsewhere[spec.id]()
            except Exception:  # noqa: BLE001 - the other process's failure: build it here
                blocks[spec.id] = build_blocks(spec, ctx, strict=strict,
                                               unavailable=unavailable)
    out = []
    for spec in specs:
        if blocks[spec.id] is None:
            continue
        number = f"{number_from + len(out)}. " if number_from is not None else ""
        out.append(Section(prefix + spec.id, f"{number}{spec.title}{suffix}", spec.intro,
                           [_prefixed(b, prefix) for b in blocks[spec.id]]))
    return out


def _prefixed(block, prefix: str):
    if not prefix:
        return block
    if isinstance(block, Figure):
        return replace(block, name=prefix + block.name)
    if isinstance(block, Table) and block.csv:
        return replace(block, csv=prefix + block.csv)
    if isinstance(block, Csv):
        return replace(block, name=prefix + block.name)
    if isinstance(block, Bullets) and block.links:
        return replace(block, links=[prefix + a if a else None for a in block.links])
    return block


def check_links(sections: Sequence[Section]) -> None:
    """Raise ``ValueError`` when a link points at no section, or two sections share an id."""
    ids = [s.id for s in sections]
    if len(set(ids)) != len(ids):
        raise ValueError(f"duplicate section ids: {ids}")
    for s in sections:
        for b in s.blocks:
            if isinstance(b, Bullets):
                for a in b.links or []:
                    if a is not None and a not in ids:
                        raise ValueError(f"section {s.id!r} links to #{a}, which is no "
                                         f"section (have: {', '.join(ids)})")
