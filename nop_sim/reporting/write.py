"""Atomic file writes, and writing a whole report into a run folder."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from nop_sim.reporting.build import check_links
from nop_sim.reporting.model import Csv, Figure, Report, Table
from nop_sim.reporting.render import render_html, render_md

__all__ = ["atomic_write", "write_report"]


def atomic_write(path: str | Path, data: str | bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and
    :func:`os.replace`: a reader sees the old file or the new one, never a part,
    and an error leaves no temporary file behind."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_report(report: Report, folder: str | Path) -> Path:
    """Write ``report.html``, ``report.md``, ``figures/*.png`` and ``tables/*.csv``
    into ``folder``; figures and CSVs of an earlier report there are removed
    first. Returns the HTML path."""
    check_links(report.sections)
    folder = Path(folder)
    figures, tables = folder / "figures", folder / "tables"
    for sub, pattern in ((figures, "*.png"), (tables, "*.csv")):
        sub.mkdir(parents=True, exist_ok=True)
        for old in sub.glob(pattern):
            old.unlink()
    for b in report.blocks(Figure):
        atomic_write(figures / f"{b.name}.png", b.png)
    for b in report.blocks((Table, Csv)):
        if isinstance(b, Csv):
            atomic_write(tables / b.name, b.frame.to_csv(index=False))
        elif b.csv:
            full = b.frame if b.full is None else b.full
            atomic_write(tables / b.csv, full.to_csv(index=False))
    atomic_write(folder / "report.md", render_md(report))
    return atomic_write(folder / "report.html", render_html(report))
