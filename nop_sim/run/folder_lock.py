"""One command at a time writes into a folder: a lock held while it writes.

Two runs into one folder at once used to both play in full and then collide
in the merge (``.matches.parquet.tmp: No such file or directory``), the
second losing its work. Every command that writes into a folder (``run``,
``sweep``, ``train``, ``value``, ``tune``, ``report``, ``compare``,
``sensitivity``) now holds the folder's lock while it writes:

* ``<folder>/.nop-sim.lock``: an operating-system lock taken with the
  ``filelock`` package. It belongs to the process, so a run that is killed
  leaves no lock behind: the next command takes it at once.
* ``<folder>/.nop-sim.lock.json``: who holds it (pid, command, start time,
  host), read to say so when a second command is refused.

A second command is refused at once (:class:`FolderBusy`, one line naming the
holder), before it reads or writes anything there. Both files go when the
holder ends, and so does a folder the lock had to create, if nothing else
was put in it. Folder checks (``--resume``, "not empty and holds no run")
ignore them (:data:`LOCK_FILES`).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import socket
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock, Timeout

from nop_sim.core.errors import FolderBusy

__all__ = ["HOLDER_FILE", "LOCK_FILE", "LOCK_FILES", "FolderBusy", "hold_folder"]

LOCK_FILE = ".nop-sim.lock"
HOLDER_FILE = ".nop-sim.lock.json"
LOCK_FILES = (LOCK_FILE, HOLDER_FILE)

_held: dict[str, int] = {}  # folders this process holds -> depth (a command, then its run)


def command_line() -> str:
    """This process's command, as a person would type it (``nop-sim run ...``)."""
    return shlex.join(["nop-sim", *sys.argv[1:]])


@contextlib.contextmanager
def hold_folder(folder: str | Path, command: str | None = None, *,
                hint: str = "wait for it to finish, or choose another folder with --out"
                ) -> Iterator[None]:
    """Hold ``folder``'s lock for the ``with`` block, creating the folder if needed.

    Raises :class:`FolderBusy` at once when another process holds it, naming
    that process (its pid, ``command``, start time) and ending with ``hint``.
    Re-entrant in one process: a command that holds its folder can call a
    function that holds it too. A path that is a file is not locked (the
    command then says what is wrong with it).
    """
    folder = Path(folder)
    key = os.path.abspath(folder)
    if key in _held:
        _held[key] += 1
        try:
            yield
        finally:
            _held[key] -= 1
        return
    if folder.exists() and not folder.is_dir():
        yield
        return
    created = None  # the topmost folder made here, removed at the end if left empty
    top = folder
    while not top.exists():
        created, top = top, top.parent
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(folder / LOCK_FILE), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise FolderBusy(_busy(folder, hint)) from None
    try:
        _held[key] = 1
        holder = {"pid": os.getpid(), "command": command or command_line(),
                  "started": datetime.now(UTC).isoformat(timespec="seconds"),
                  "host": socket.gethostname()}
        (folder / HOLDER_FILE).write_text(json.dumps(holder) + "\n")
        yield
    finally:
        del _held[key]
        # the files go while the lock is held: a process waiting on this lock file
        # then finds it unlinked and takes a fresh one
        for name in (HOLDER_FILE, LOCK_FILE):
            with contextlib.suppress(OSError):
                (folder / name).unlink()
        lock.release()
        if created is not None:
            _remove_empty(folder, created)


def _busy(folder: Path, hint: str) -> str:
    """The one line that refuses a second command: who holds ``folder``."""
    try:
        h = json.loads((folder / HOLDER_FILE).read_text())
        since = datetime.fromisoformat(h["started"]).astimezone().strftime("%Y-%m-%d %H:%M:%S")
        host = "" if h.get("host") == socket.gethostname() else f" on {h.get('host')}"
        who = f"pid {h['pid']}{host}, `{h['command']}`, since {since}"
    except (OSError, ValueError, KeyError, TypeError):  # it is just starting
        who = f"it holds {folder / LOCK_FILE}"
    return f"{folder}: another nop-sim command is writing into this folder ({who}); {hint}"


def _remove_empty(folder: Path, top: Path) -> None:
    """Remove ``folder`` and its parents up to ``top`` while they are empty."""
    path = folder
    while True:
        try:
            path.rmdir()
        except OSError:  # not empty (the command wrote there), or gone already
            if path.exists():
                return
        if path == top or path.parent == path:
            return
        path = path.parent
