"""Compile firewalls: kernels that call each other through compiled addresses.

Numba links every jitted callee into each caller's LLVM module, and every
caller up the chain re-optimises and re-emits machine code for all it links.
A large subtree under many levels is thus compiled many times over, and one
process must compile the whole engine in one go. Behind a firewall a subtree
is compiled once, on its own, for one explicit signature; its callers call it
through its address, which the driver receives at run time (``g[G_*_FN]``),
so cached callers stay valid in a new process. Two subtrees stand behind one:

* the evaluator (``common._player_category_compute``, :data:`CATEGORY_ARGS`);
* the Disruptor draft (``disruptor.draft``, :data:`DRAFT_ARGS`).

Neither links the match driver nor the driver them, so the runner compiles
them in a worker process while the parent compiles the driver.

The signatures are explicit: a caller whose arguments do not convert to them
fails to compile, rather than calling with a different layout. The callees
cannot raise (no bounds checks, numpy error model), so their status is unused.

Without the JIT (``NUMBA_DISABLE_JIT=1``) there are no addresses: an
"address" is then a number standing for the Python function, and the calls
are plain calls, so the engine runs (slowly) in plain Python.
"""

from __future__ import annotations

from numba.core import types
from numba.extending import intrinsic

from nop_sim.kernels._jit import JIT_ENABLED


def _c(dtype, ndim: int = 1) -> types.Array:
    return types.Array(dtype, ndim, "C")


_I64, _I8, _F64, _U64 = types.int64, types.int8, types.float64, types.uint64

# the match state tuples (kernels.match: st, cfg, out) as the driver builds them
ST = types.Tuple((_c(_I64), _c(_I64, 2), _c(_I64), _c(_I8), _c(_I8, 2), _c(_I8), _c(_I8),
                  _c(_I8), _c(_I8), _c(_I64), _c(_I64), _c(_I64), _c(_F64, 2), _c(_F64, 2),
                  _c(_I64), _c(_I64), _c(_I64), _c(_F64)))
CFG = types.Tuple((_c(_I64), _c(_I64), _c(_I64), _c(_F64), _c(_F64, 2), _c(_I64), _c(_I64),
                   _c(_F64)))
OUT = types.Tuple((_c(_I64), _c(_I64, 2), _c(_I64, 2), _c(_I64, 2), _c(_I64, 2), _c(_I64, 2),
                   _c(_I64, 2)))

# _player_category_compute(g, ps, p, colpos, hole, board, buf, key) -> category
CATEGORY_ARGS = (_c(_I64), _c(_I64, 2), _I64, _c(_I8), _c(_I8, 2), _c(_I8), _c(_I8), _I64)
# draft(st, cfg, out, rng, pickers, n_pickers, k_showdown) -> None
DRAFT_ARGS = (ST, CFG, OUT, _c(_U64), _c(_I64), _I64, _I64)


def _codegen(restype, argtypes):
    def codegen(context, builder, signature, args):
        fnty = context.call_conv.get_function_type(restype, argtypes)
        fn = builder.inttoptr(args[0], fnty.as_pointer())
        _, res = context.call_conv.call_function(builder, fn, restype, argtypes, args[1:])
        return res if restype != types.none else context.get_dummy_value()
    return codegen


@intrinsic
def call_category(typingctx, addr, g, ps, p, colpos, hole, board, buf, key):
    """``_player_category_compute(...)`` at address ``addr``."""
    return types.int64(types.int64, *CATEGORY_ARGS), _codegen(types.int64, CATEGORY_ARGS)


@intrinsic
def call_draft(typingctx, addr, st, cfg, out, rng, pickers, n_pickers, k_showdown):
    """``draft(...)`` at address ``addr``."""
    return types.none(types.int64, *DRAFT_ARGS), _codegen(types.none, DRAFT_ARGS)


# Without the JIT, address ``i`` stands for ``_PY_CALLEES[i - 1]`` (0 stays "none").
_PY_CALLEES: list = []


def _py_call(addr, *args):
    return _PY_CALLEES[addr - 1](*args)


if not JIT_ENABLED:
    call_category = call_draft = _py_call  # plain calls replace the intrinsics


def address(dispatcher, argtypes: tuple) -> int:
    """Address of ``dispatcher`` compiled (or loaded from numba's cache) for ``argtypes``."""
    if not JIT_ENABLED:
        if dispatcher not in _PY_CALLEES:
            _PY_CALLEES.append(dispatcher)
        return _PY_CALLEES.index(dispatcher) + 1
    if argtypes not in dispatcher.overloads:
        dispatcher.compile(argtypes)
    cres = dispatcher.overloads[argtypes]
    return cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
