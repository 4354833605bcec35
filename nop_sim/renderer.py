"""A second process that renders every other report figure (PNG), started ahead.

Rendering (layout, Agg, PNG) is about half of a report's time, and it holds
the GIL, so a thread cannot share it. :func:`start_renderer` starts one
helper process early (the ``run`` command starts it while the matches play,
so that it has imported matplotlib by the time the report draws);
:func:`offload` then sends every other figure there, pickled, and returns a
future of its PNG bytes. Without a helper (one core, or not started) every
figure renders in the calling process. This module imports no matplotlib.
"""

from __future__ import annotations

import os
import pickle

__all__ = ["offload", "start_renderer", "stop_renderer"]

_helper = None
_count = 0


def _warm() -> None:
    import matplotlib.backends.backend_agg  # noqa: F401

    import nop_sim.reporting.style  # noqa: F401


def _render_pickled(data: bytes) -> bytes:
    from nop_sim.reporting.style import _render

    return _render(pickle.loads(data))


def start_renderer() -> None:
    """Start the helper process (once; not on a one-core machine)."""
    global _helper
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if _helper is None and (os.cpu_count() or 1) > 1:
        import atexit

        _helper = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        _helper.submit(_warm)  # it starts now and imports matplotlib meanwhile
        atexit.register(stop_renderer)  # before the interpreter tears the pool down


def stop_renderer() -> None:
    """Stop the helper process (figures render here again)."""
    global _helper
    if _helper is not None:
        _helper.shutdown(wait=True)
        _helper = None


def offload(fig):
    """A future of ``fig``'s PNG bytes rendered by the helper, for every other figure;
    None when this process should render it."""
    global _count
    if _helper is None:
        return None
    _count += 1
    if _count % 2 == 0:
        return None
    try:
        return _helper.submit(_render_pickled, pickle.dumps(fig))
    except Exception:  # noqa: BLE001 - a figure that does not pickle renders here
        return None
