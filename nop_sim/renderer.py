"""A forked copy of this process that builds part of a report meanwhile.

A report's sections (tables, figure layout, Agg, PNG) hold the GIL, so a
thread cannot share them. :func:`fork` runs a function in a forked copy of
this process instead: the copy has every library this one imported and the
run it loaded, for free (a fresh process took 1.7 s of CPU to import
matplotlib, pandas, scipy.stats and the report again), and it leaves with
``os._exit``, no interpreter teardown. Only the result comes back, pickled
through a pipe.

Forking is opt-in (:func:`enable`; the ``run`` command enables it) and
never done on a one-core machine or where the platform has no ``fork``:
there :func:`fork` returns None and the caller does the work itself. Fork
only when no other thread of this process is busy (its locks would stay
taken in the copy): the ``run`` command joins its import thread first.
This module imports no matplotlib.
"""

from __future__ import annotations

import multiprocessing
import os

__all__ = ["Forked", "disable", "enable", "fork"]

_enabled = False


def enable() -> None:
    """Let :func:`fork` fork (on a machine of two cores or more with ``fork``)."""
    global _enabled
    _enabled = ((os.cpu_count() or 1) > 1
                and "fork" in multiprocessing.get_all_start_methods())


def disable() -> None:
    """Back to doing every part here."""
    global _enabled
    _enabled = False


class Forked:
    """``fn(*args)`` running in a forked copy of this process; :meth:`result` waits for
    it. The copy is a daemon: it dies with this process, and :meth:`result` (or
    :meth:`close`) reaps it."""

    def __init__(self, fn, args: tuple):
        ctx = multiprocessing.get_context("fork")
        self._recv, send = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_child, args=(send, fn, args), daemon=True,
                                 name="nop-sim-report-helper")
        self._proc.start()
        send.close()
        self._outcome = None

    def result(self):
        """What ``fn`` returned; what it raised is raised here, and a copy that died
        without an answer raises :class:`RuntimeError`."""
        if self._outcome is None:
            try:
                self._outcome = self._recv.recv()
            except EOFError:
                self._outcome = (False, RuntimeError(
                    f"the report's helper process died (exit code {self._proc.exitcode})"))
            finally:
                self.close()
        ok, value = self._outcome
        if not ok:
            raise value
        return value

    def close(self) -> None:
        """Stop waiting: the copy is ended (if still running) and reaped."""
        self._recv.close()
        if self._proc.is_alive() and self._outcome is None:
            self._proc.terminate()
        self._proc.join()


def _child(send, fn, args) -> None:
    try:
        outcome = (True, fn(*args))
    except BaseException as exc:  # noqa: BLE001 - sent back, raised by the parent
        outcome = (False, RuntimeError(f"{type(exc).__name__}: {exc}"))
    send.send(outcome)
    send.close()


def fork(fn, *args) -> Forked | None:
    """``fn(*args)`` in a forked copy of this process, or None where forking is off (the
    caller runs it itself)."""
    if not _enabled:
        return None
    try:
        return Forked(fn, args)
    except OSError:  # out of processes or memory: the caller does the work
        return None
