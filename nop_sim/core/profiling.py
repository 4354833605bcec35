"""Where a run's time goes: named phases, timed per process and summed (``--profile``).

A phase is timed with :func:`phase`; the times add up per thread (a Dask worker
plays parts on several threads side by side) in a plain dict that
:func:`take` hands over and clears. Workers send theirs back with each part they
finish, so the run can add up the whole run's. Timing a phase costs two
``perf_counter`` calls, so phases are always timed.

    with phase("simulation"):
        res = play_matches(...)
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

__all__ = ["PHASES", "add", "current", "phase", "take", "format_profile"]

# The phases of a run, in the order they happen, with what each covers.
PHASES = {
    "start": "worker start and kernel load (wall clock, until every worker was ready)",
    "compile": "compiling or loading the kernels in the main process",
    "simulation": "playing the matches (the engine)",
    "tables": "building the result tables from the engine's arrays",
    "write": "Parquet writes (and fsync)",
    "checksums": "sha256 of the written files",
    "summary": "the summary",
    "report": "the report",
}

_local = threading.local()


def _totals() -> defaultdict[str, float]:
    """This thread's phase times (a part reads back its own simulation time)."""
    try:
        return _local.totals
    except AttributeError:
        _local.totals = defaultdict(float)
        return _local.totals


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Add the time spent in the ``with`` block to phase ``name`` of this thread."""
    t = time.perf_counter()
    try:
        yield
    finally:
        _totals()[name] += time.perf_counter() - t


def add(name: str, seconds: float) -> None:
    """Add ``seconds`` to phase ``name`` of this thread."""
    _totals()[name] += seconds


def current(name: str) -> float:
    """Phase ``name``'s seconds so far in this thread."""
    return _totals().get(name, 0.0)


def take() -> dict[str, float]:
    """This thread's phase times since the last call (and start again from zero)."""
    totals = _totals()
    out = dict(totals)
    totals.clear()
    return out


def format_profile(times: Mapping[str, float], wall: float) -> str:
    """The ``--profile`` table: each phase's seconds and share of the summed phases."""
    known = [k for k in PHASES if times.get(k)]
    other = sorted(k for k in times if k not in PHASES and times[k])
    total = sum(times[k] for k in known + other) or 1.0
    lines = ["profile (seconds; phases in workers are summed over workers):"]
    for k in known + other:
        what = PHASES.get(k, k)
        lines.append(f"  {k:<11} {times[k]:8.2f} s {100 * times[k] / total:5.1f}%  {what}")
    lines.append(f"  {'wall':<11} {wall:8.2f} s         the whole command, by the clock (from "
                 f"its imports; phases overlap)")
    return "\n".join(lines)
