"""A second process that builds part of a report, started ahead.

A report's sections (tables, figure layout, Agg, PNG) hold the GIL, so a
thread cannot share them. :func:`start_renderer` starts one helper process
early (the ``run`` command starts it while the matches play, so that it has
imported matplotlib, pandas and the report by the time the report starts);
:func:`submit` then hands it a function, e.g. building some sections of the
report from the run folder (:func:`nop_sim.report.build_report`), and
returns a future of its result. Without a helper (one core, or not
started) :func:`submit` returns None and the caller does the work itself.
This module imports no matplotlib.
"""

from __future__ import annotations

import os

__all__ = ["start_renderer", "stop_renderer", "submit"]

_helper = None


def _exit_fast() -> None:
    import sys

    for f in (sys.stdout, sys.stderr):
        f.flush()
    os._exit(0)


def _init() -> None:
    """In the helper, first: leave without tearing the interpreter down (its matplotlib
    and pandas took 0.2-0.3 s to unload, waited for by ``stop_renderer``): the atexit
    hooks run before that teardown, and it holds nothing to save."""
    import atexit

    atexit.register(_exit_fast)


def _warm() -> None:
    import matplotlib.backends.backend_agg  # noqa: F401
    import scipy.stats  # noqa: F401

    import nop_sim.report  # noqa: F401
    import nop_sim.reporting.build  # noqa: F401
    import nop_sim.reporting.figures  # noqa: F401


def start_renderer() -> None:
    """Start the helper process (once; not on a one-core machine)."""
    global _helper
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if _helper is None and (os.cpu_count() or 1) > 1:
        import atexit

        _helper = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                      initializer=_init)
        _helper.submit(_warm)  # it starts now and imports meanwhile
        atexit.register(stop_renderer)  # before the interpreter tears the pool down


def stop_renderer() -> None:
    """Stop the helper process (work is done here again); what it has not started is
    cancelled."""
    global _helper
    if _helper is not None:
        _helper.shutdown(wait=True, cancel_futures=True)
        _helper = None


def submit(fn, *args):
    """A future of ``fn(*args)`` run by the helper process; None without a helper (or
    when it cannot take work: a broken pool), and the caller runs it itself."""
    if _helper is None:
        return None
    try:
        return _helper.submit(fn, *args)
    except Exception:  # noqa: BLE001 - a broken or stopped pool: the caller does the work
        return None
