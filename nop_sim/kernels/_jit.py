"""One place for numba options: every kernel uses these decorators.

Compile time is part of a user's wait, so the decorators also keep the number
of compiled specialisations down. Numba compiles a jitted callee once per
tuple of argument types *as the caller sees them*, and a constant argument
is seen as its literal value: ``log_event(ev, g, EV_DEAL, ...)`` and
``log_event(ev, g, EV_DRAW, ...)`` would be two compilations, each of which
every caller up the chain then links, re-optimises and re-emits. The
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
"""

from __future__ import annotations

import numba
import numpy as np
from numba.core import types
from numba.core.registry import CPUDispatcher

JIT_OPTIONS = dict(cache=True, nogil=True, fastmath=False, error_model="numpy")

# NUMBA_DISABLE_JIT=1 runs every kernel as plain Python (slowly: for a debugger).
JIT_ENABLED = not numba.config.DISABLE_JIT


class TypeDispatcher(CPUDispatcher):
    """A CPU dispatcher that specialises on argument types, never on literal values."""

    def get_call_template(self, args, kws):
        args = tuple(types.unliteral(a) for a in args)
        kws = {k: types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)


def _typed(dispatcher):
    # With NUMBA_DISABLE_JIT=1, numba.njit returns the plain Python function: keep
    # it as it is, so that kernels run (slowly) in Python and a debugger can step in.
    if isinstance(dispatcher, CPUDispatcher):
        dispatcher.__class__ = TypeDispatcher
    return dispatcher


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
