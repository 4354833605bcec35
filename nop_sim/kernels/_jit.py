"""One place for numba options: every kernel uses these decorators."""

from __future__ import annotations

import numba

JIT_OPTIONS = dict(cache=True, nogil=True, fastmath=False, error_model="numpy")


def jit(*args, **overrides):
    """``numba.njit`` with the project's options (``cache=True``, ``nogil``...)."""
    opts = {**JIT_OPTIONS, **overrides}
    if args and callable(args[0]):
        return numba.njit(**opts)(args[0])
    return numba.njit(*args, **opts)


def pjit(*args, **overrides):
    """Like :func:`jit` with ``parallel=True``, for array drivers split by chunk."""
    return jit(*args, parallel=True, **overrides)
