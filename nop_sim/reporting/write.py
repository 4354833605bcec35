"""Atomic file writes, and writing a whole report into a run folder."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from nop_sim.reporting.build import check_links
from nop_sim.reporting.model import Csv, Figure, Report, Table
from nop_sim.reporting.render import render_html, render_md

__all__ = ["atomic_write", "write_report"]


def atomic_write(path: str | Path, data: str | bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and
    :func:`os.replace`: a reader sees the old file or the new one, never a part,
    and an error leaves no temporary file behind.

    The file gets the mode :func:`open` would give it (0666 less the umask), as the
    run's Parquet files do: a report on a shared server is as readable as its results.
    """
    path = Path(path)
    fd, tmp = _create_temporary(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def _create_temporary(path: Path) -> tuple[int, Path]:
    """A new, empty ``.<name>.<random>.tmp`` beside ``path``, opened for writing.

    Not :func:`tempfile.mkstemp`: it creates 0600 files whatever the umask. Created
    with 0666, the kernel applies the umask (and a folder's default ACL) itself, with
    no need to read the umask (which only setting it can, for the whole process).
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


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
