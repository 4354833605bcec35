"""Forked copies of this process that build a report, or part of one.

A report's sections (tables, figure layout, Agg, PNG) hold the GIL, so a
thread cannot share them, and importing the report's libraries on a thread
while a run plays slowed the run by 0.8 s of 1.3 s (the two threads took
turns at the GIL). So:

- :func:`ahead` forks a copy when a command starts: it imports the report's
  libraries on the other core while the run plays here, then waits for its
  one job (:meth:`Ahead.submit`), e.g. writing the report of the finished
  run; this process never loads matplotlib.
- :func:`fork` runs a function in a forked copy of the calling process: the
  copy has every library it imported and the run it loaded, for free, and
  sends back only the result, pickled through a pipe. The report forks one
  to build half of its sections (:func:`nop_sim.report.build_report`).

Copies leave with ``os._exit``, no interpreter teardown. Forking is opt-in
and never done on a one-core machine or where the platform has no ``fork``:
there :func:`ahead` and :func:`fork` return None and the caller does the
work itself. Fork only when no other thread of the process is busy (its
locks would stay taken in the copy). This module imports no matplotlib.
"""

from __future__ import annotations

import multiprocessing
import os

__all__ = ["Ahead", "Forked", "ahead", "disable", "enable", "fork"]

_enabled = False


def _can_fork() -> bool:
    return (os.cpu_count() or 1) > 1 and "fork" in multiprocessing.get_all_start_methods()


def enable() -> None:
    """Let :func:`fork` fork (on a machine of two cores or more with ``fork``)."""
    global _enabled
    _enabled = _can_fork()


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
    _quiet_copy()
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


class Ahead:
    """A forked copy of this process that runs ``warm()`` (imports) at once, then waits
    for one job: :meth:`submit` hands it ``fn(*args)``, :meth:`result` waits for what
    it returned (raising what it raised, or :class:`RuntimeError` if it died).
    :meth:`close` ends it; a copy whose parent is gone ends by itself."""

    def __init__(self, warm):
        ctx = multiprocessing.get_context("fork")
        self._conn, conn = ctx.Pipe()
        # not a daemon: a daemon may not fork, and its job forks (fork() above)
        self._proc = ctx.Process(target=_serve, args=(conn, warm), name="nop-sim-report")
        self._proc.start()
        conn.close()
        self._outcome = None
        self._submitted = False

    def submit(self, fn, *args) -> Ahead:
        try:
            self._conn.send((fn, args))
        except OSError:  # it died: result() says so
            pass
        self._submitted = True
        return self

    def result(self):
        if self._outcome is None:
            try:
                self._outcome = self._conn.recv()
            except (EOFError, OSError):
                self._outcome = (False, RuntimeError(
                    f"the report process died (exit code {self._proc.exitcode})"))
            finally:
                self.close()
        ok, value = self._outcome
        if not ok:
            raise value
        return value

    def close(self) -> None:
        """End the copy (SIGTERM, unless it answered) and reap it; its own forked copy,
        if any, ends with it."""
        if self._conn.closed:
            return
        if self._outcome is None and self._proc.is_alive():
            self._proc.terminate()
        self._conn.close()
        self._proc.join()


def _quiet_copy() -> None:
    """In a copy: Ctrl-C is the parent's to handle (it ends the copy), and SIGTERM unwinds
    (so that multiprocessing ends the copy's own daemon copies) instead of killing."""
    import signal
    import sys

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))


def _serve(conn, warm) -> None:
    _quiet_copy()
    try:
        warm()
    except Exception:  # noqa: BLE001 - the job imports again and says what failed
        pass
    try:
        job = conn.recv()
    except EOFError:  # the parent is gone
        return
    if job is not None:
        _child(conn, *job)


def ahead(warm) -> Ahead | None:
    """A copy started now that runs ``warm()`` and waits for its job; None on one core or
    without ``fork`` (the caller then works itself). :meth:`Ahead.close` it in a
    ``finally``."""
    if not _can_fork():
        return None
    try:
        copy = Ahead(warm)
    except OSError:
        return None
    import atexit

    atexit.register(copy.close)  # before multiprocessing's exit joins it
    return copy
