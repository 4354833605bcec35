"""One place for numba options: every kernel uses these decorators.

Compile time is part of a user's wait, so the decorators also keep the number
of compiled specialisations down. Numba compiles a jitted callee once per
tuple of argument types *as the caller sees them*, and a constant argument
is seen as its literal value: ``_row(ev, g, EV_DEAL, seat)`` and
``_row(ev, g, EV_DRAWN, seat)`` (New Order's kernels.eventlog) would be two compilations,
each of which every caller up the chain then links, re-optimises and
re-emits. The
dispatcher below erases literal values before asking for a specialisation,
so one compilation serves every constant of a type. (No kernel here relies
on a literal argument; LLVM still propagates constants after inlining.)

Calls cost too. The match kernels pass their state as tuples of about 26
arrays, and numba flattens every array into 7 to 9 scalars at each call that
LLVM does not inline (it rarely inlines: numba links callees as
``linkonce_odr``, so LLVM cannot tell a function has one caller). A call on
the per-turn path thus cost about 200 stores. The functions of that path that
have one call site (``_take_turn`` down to ``choose_promotion``) are therefore
inlined by numba (``inline="always"``): 1.5 times the hands per second for
about 10% more cold compile time. Inlining callees with several call sites
as well bought little more speed for much more compile time.

Why the dispatcher is not numba's documented one. The documented way to keep
one specialisation per type is explicit signatures (numba-stats'
``_util._jit``). Counted on one cold engine run (one thread, then two;
numba 0.68.1): of 187 kernels (25 inlined, which compile in their callers),
114 were compiled, in 120 specialisations (5 kernels with 2 or 3 types,
e.g. ``eventlog._cards``); their callers asked for 190 type tuples with
literals, each of which plain numba would compile. Explicit signatures would
mean writing those 120 (and those of 48 kernels only the evaluator API and
the Ordered Hand use), and an eager compile of all of them at import: the
parallel driver alone, which today compiles only when a call asks for
threads, took 15.8 s median cold (6 runs, 2 shared cores), against 27.4 s for
the one-thread driver that ``nop-sim run`` needs. :class:`TypeDispatcher`
overrides one private method instead (``get_call_template``) on dispatchers
made by ``numba.njit``. Because that is an internal, pyproject.toml bounds
numba to the range tested, and ``make test-numba-range`` runs
tests/test_jit.py (which fails if the override stops taking effect) and a
golden hash on the lowest and the highest numba of it.
The compile firewall (games/new_order/kernels/firewall.py) is in the same position.

Two more duties live here, next to ``cache=True``: numba's cache is guarded
by a digest over the kernel sources (:func:`_guard_cache`), and with
``NUMBA_DISABLE_JIT=1`` the decorators hand back the plain Python functions,
so that a debugger can step through any kernel (:func:`lookup_table`).
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable
from pathlib import Path

import numba
import numpy as np
from llvmlite import ir
from numba.core import event, types
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic

from nop_sim.core.kernel_sources import kernel_digest, kernel_sources

JIT_OPTIONS = dict(cache=True, nogil=True, fastmath=False, error_model="numpy")

# NUMBA_DISABLE_JIT=1 runs every kernel as plain Python (slowly: for a debugger).
JIT_ENABLED = not numba.config.DISABLE_JIT



class TypeDispatcher(CPUDispatcher):
    """A CPU dispatcher that specialises on argument types, never on literal values."""

    def get_call_template(self, args, kws):
        args = tuple(types.unliteral(a) for a in args)
        kws = {k: types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)


# What a cold compile costs, said once: README.md, nop-sim compile (its help and first
# line) and a run's first compile all state COMPILE_TIME (tests/test_runner.py checks).
# Measured with an empty cache (NUMBA_CACHE_DIR an empty folder, nop-sim compile) on a
# 2-core machine: 64 s, 66 s and 67 s with both cores free (about 115 s of CPU), 135 s, 164 s,
# 220 s and 245 s with other work running on them; on fresh clones (issue 37,
# scripts/first_report.sh) 42.0, 42.6, 43.1 and 43.8 s with both cores free.
COMPILE_TIME = "40 s to 4 minutes on 2 cores"
COMPILE_NOTE = (f"compiling the simulation kernels into numba's cache: {COMPILE_TIME}, once "
                f"after an install or an update (nop-sim compile does it ahead)...")


def announce_compiles(echo: Callable[[str], None] | None = None):
    """Print :data:`COMPILE_NOTE` (once) when a nop-sim kernel starts compiling; returns
    the listener (``numba.core.event.unregister("numba:compile", it)`` stops it)."""
    def say(text: str) -> None:
        if multiprocessing.parent_process() is not None:
            return  # a worker: its parent has said it
        if sys.stderr is not None and sys.stderr.isatty():  # a person is waiting
            print(text, file=sys.stderr, flush=True)

    echo = echo or say

    class _Note(event.Listener):
        said = False

        def on_start(self, ev):
            fn = getattr(ev.data.get("dispatcher"), "py_func", None)
            if not self.said and getattr(fn, "__module__", "").startswith("nop_sim."):
                self.said = True
                echo(COMPILE_NOTE)

        def on_end(self, ev):
            pass

    listener = _Note()
    event.register("numba:compile", listener)
    return listener


announce_compiles()  # a compile's wait is never a silent pause (on a terminal)


def _typed(dispatcher):
    # With NUMBA_DISABLE_JIT=1, numba.njit returns the plain Python function: keep
    # it as it is, so that kernels run (slowly) in Python and a debugger can step in.
    if isinstance(dispatcher, CPUDispatcher):
        dispatcher.__class__ = TypeDispatcher
        _guard_cache(dispatcher)
    return dispatcher


# -- numba's cache, guarded by a digest of the sources its kernels may inline ------
# A cached kernel inlines the kernels it calls and freezes the constants it reads (a
# kernel the constants of core/types.py and its game's types.py). A digest over those
# sources stamps each cache folder; when it differs, the folder's kernels are dropped
# before the first kernel of that folder is even defined, so nothing stale can be
# loaded. The shared kernels (this package) inline only SHARED_KERNEL_SOURCES; a game's
# kernels inline those and the files its kernels package declares (its
# ``Game.kernel_sources`` is that declaration). The games sit above this module and
# declare themselves to it: nothing here imports a game.
_STAMP = "nop_sim_kernels.stamp"
_guarded: set[str] = set()


def _guard_cache(dispatcher) -> None:
    """Drop stale cached kernels of ``dispatcher``'s cache folder (once per folder and process)."""
    folder = getattr(getattr(dispatcher, "_cache", None), "_cache_path", None)
    if folder is None or folder in _guarded:  # caching off, or already checked
        return
    _guarded.add(folder)
    cache_dir = Path(folder)
    source_dir = Path(dispatcher.py_func.__code__.co_filename).resolve().parent
    stamp = cache_dir / _STAMP
    try:
        digest = kernel_digest(source_dir)
        if stamp.exists() and stamp.read_text() == digest:
            return
        for src in kernel_sources(source_dir):
            if src.parent == source_dir:
                for f in [*cache_dir.glob(f"{src.stem}.*.nbi"), *cache_dir.glob(f"{src.stem}.*.nbc")]:
                    f.unlink(missing_ok=True)
        cache_dir.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass  # a read-only or shared cache: numba copes, at worst by recompiling


def lookup_table(table):
    """A kernel's lookup table: as given under the JIT, widened to int64 without it.

    Numba computes ``HI[m] + 2`` in int64 whatever the table's dtype; NumPy keeps
    an int8 scalar int8 and overflows. Narrow tables keep the compiled kernels'
    working set small; plain Python gets the same results from wide ones.
    """
    if JIT_ENABLED or table.dtype.kind not in "iu":
        return table
    return table.astype(np.int64)


def jit(*args, **overrides):
    """``numba.njit`` with the project's options (``cache=True``, ``nogil``...)."""
    opts = {**JIT_OPTIONS, **overrides}
    if args and callable(args[0]):
        return _typed(numba.njit(**opts)(args[0]))
    wrap = numba.njit(*args, **opts)
    return lambda fn: _typed(wrap(fn))


def twin(kernel, **overrides):
    """Another kernel compiled from ``kernel``'s Python function (e.g. not inlined).

    Without the JIT, ``kernel`` is that function already.
    """
    return jit(getattr(kernel, "py_func", kernel), **overrides)


def pjit(*args, **overrides):
    """Like :func:`jit` with ``parallel=True``, for array drivers split by chunk."""
    return jit(*args, parallel=True, **overrides)


@intrinsic
def _popcount_llvm(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])  # one popcnt instruction on x86-64

    return x(x), codegen


def _popcount_py(x):
    return int(x).bit_count()


# Set bits of a non-negative integer, in kernels. Numba has no function for it, and a
# table of 13-bit counts (kernels.evaluate._n_bits) takes four loads: the table path's
# check of a hand was 1.1 times slower with it. numba.extending.intrinsic (documented)
# emits LLVM's ctpop; without the JIT, Python's int.bit_count.
popcount = _popcount_llvm if JIT_ENABLED else _popcount_py


@intrinsic
def _lowest_bit_llvm(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        # one tzcnt instruction on x86-64; x == 0 is the caller's to rule out
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return x(x), codegen


def _lowest_bit_py(x):
    x = int(x)
    return (x & -x).bit_length() - 1


# The index of the lowest set bit of a positive integer, in kernels (LLVM's cttz; without
# the JIT, Python ints). A loop over the set bits of a mask, ``c = lowest_bit(m); m &= m
# - 1``, carries one instruction from one bit to the next, where a table of highest bits
# (kernels.evaluate.HI: ``c = HI[m]; m ^= 1 << c``) carries a load.
lowest_bit = _lowest_bit_llvm if JIT_ENABLED else _lowest_bit_py
