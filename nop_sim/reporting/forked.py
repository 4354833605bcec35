"""Forked copies of this process that build a report, or part of one.

A report's sections (tables, figure layout, Agg, PNG) hold the GIL, so a
thread cannot share them, and importing the report's libraries on a thread
while a run plays slowed the run by 0.8 s of 1.3 s (the two threads took
turns at the GIL). So:

- :func:`ahead` forks a copy when a command starts: it imports the report's
  libraries on the other core while the run plays here, then waits for its
  one job (:meth:`Copy.submit`), e.g. writing the report of the finished
  run; this process never loads matplotlib.
- :func:`fork` runs a function in a forked copy of the calling process: the
  copy has every library it imported and the run it loaded, for free, and
  sends back only the result, pickled through a pipe. The report forks one
  to build half of its sections (:func:`nop_sim.games.new_order.report.build_report`).

Copies leave with ``os._exit``, no interpreter teardown. Forking is opt-in
and done on Linux only, never on a one-core machine (macOS has ``fork``, but
its system libraries may not survive one without ``exec``):
there :func:`ahead` and :func:`fork` return None and the caller does the
work itself. Fork only when no other thread of the process is busy (its
locks would stay taken in the copy). This module imports no matplotlib.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import signal
import sys

__all__ = ["SMALL_RUN_MATCHES", "Copy", "ahead", "disable", "enable", "fork", "small_run"]

_enabled = False


def _can_fork() -> bool:
    # Linux only: macOS has fork, but system libraries (Accelerate behind NumPy, the
    # Objective-C runtime) may crash a forked copy that goes on without exec
    return ((os.cpu_count() or 1) > 1 and sys.platform.startswith("linux")
            and "fork" in multiprocessing.get_all_start_methods())


# A report of more matches than this builds in one process. Its tables dominate
# then: a forked copy would hold a second copy of every page it touches (a
# 10-million-hand sweep: 1.07 GiB in all against 0.95 in one process) for no
# time saved (17.3 s against 16.8).
SMALL_RUN_MATCHES = 50_000


def small_run(matches: int) -> bool:
    """Whether a report of ``matches`` matches (every point) is worth forked copies."""
    return matches <= SMALL_RUN_MATCHES


def enable() -> None:
    """Let :func:`fork` fork (on a machine of two cores or more with ``fork``)."""
    global _enabled
    _enabled = _can_fork()


def disable() -> None:
    """Back to doing every part here."""
    global _enabled
    _enabled = False


class Copy:
    """A forked copy of this process with one job, ``fn(*args)``: given at the start
    (``job``, inherited, nothing pickled), or after ``warm()`` (imports) by
    :meth:`submit` (pickled: a function of a module and small arguments).
    :meth:`result` waits for what it returned, raising what it raised, or
    :class:`RuntimeError` if it died. :meth:`close` ends it (:meth:`result` does once
    answered); one whose parent is gone ends by itself.

    A ``daemon`` copy is ended when its parent exits, but may not fork in turn.
    """

    def __init__(self, warm=None, *, job: tuple | None = None, daemon: bool = False):
        ctx = multiprocessing.get_context("fork")
        self._conn, conn = ctx.Pipe()
        self._proc = ctx.Process(target=_serve, args=(conn, warm, job), daemon=daemon,
                                 name="nop-sim-report")
        self._proc.start()
        conn.close()
        self._outcome = None

    def submit(self, fn, *args) -> Copy:
        try:
            self._conn.send((fn, args))
        except OSError:  # it died: result() says so
            pass
        return self

    def result(self):
        if self._outcome is None:
            try:
                self._outcome = self._conn.recv()
            except (EOFError, OSError):
                self._outcome = (False, RuntimeError(
                    f"the report's copy process died (exit code {self._proc.exitcode})"))
            finally:
                self.close()
        ok, value = self._outcome
        if not ok:
            raise value
        return value

    def close(self) -> None:
        """End the copy (SIGTERM, unless it answered) and reap it; its own daemon copies
        end with it. A copy still alive seconds later (one that did not act on the
        SIGTERM: a refused run once waited for ever on a copy still importing) is killed."""
        if self._conn.closed:
            return
        if self._outcome is None and self._proc.is_alive():
            self._proc.terminate()
        self._conn.close()
        self._proc.join(5.0)
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join()


def _serve(conn, warm, job) -> None:
    """The copy: warm up, take its job, send back ``(True, result)`` or ``(False, error)``."""
    # Ctrl-C is the parent's to handle (it ends the copy); SIGTERM unwinds, so that
    # multiprocessing ends this copy's own daemon copies, instead of killing it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    if warm is not None:
        try:
            warm()
        except Exception:  # noqa: BLE001 - the job imports again and says what failed
            pass
    if job is None:
        try:
            job = conn.recv()
        except EOFError:  # the parent is gone
            return
    fn, args = job
    try:
        outcome = (True, fn(*args))
    except BaseException as exc:  # noqa: BLE001 - sent back, raised by the parent
        outcome = (False, RuntimeError(f"{type(exc).__name__}: {exc}"))
    conn.send(outcome)


def ahead(warm) -> Copy | None:
    """A copy started now that runs ``warm()`` and waits for its job (it may fork in
    turn); None on one core or without ``fork`` (the caller then works itself).
    :meth:`Copy.close` it in a ``finally``."""
    if not _can_fork():
        return None
    try:
        copy = Copy(warm)
    except OSError:  # out of processes or memory: the caller does the work
        return None

    atexit.register(copy.close)  # before multiprocessing's exit would wait for it
    return copy


def fork(fn, *args) -> Copy | None:
    """``fn(*args)`` in a forked (daemon) copy of this process, with everything this
    process holds; None where forking is off (:func:`enable`): the caller runs it."""
    if not _enabled:
        return None
    try:
        return Copy(job=(fn, args), daemon=True)
    except OSError:
        return None
