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

The signatures are explicit, and the state tuples' are derived from their one
declaration in kernels.state: a caller whose arguments are not exactly these
types fails to compile (:func:`_exactly`), rather than calling with another
layout. The callees cannot raise today (no bounds checks, numpy error model),
but their error status is checked all the same and propagated to the caller
like any numba call's (an exception raised behind the firewall surfaces in
Python), at the price of one predictable branch per call.

These intrinsics use numba internals (``call_conv``, a dispatcher's compiled
library): pyproject.toml bounds numba to the versions tested, and ``make
test-numba-range`` runs the JIT tests and a golden hash on the lowest and the
highest of them.

Why not numba's documented first-class functions (``types.FunctionType``):
both routes were measured against these intrinsics in one session (numba
0.68.1, 2 shared cores, medians of 3, the engine benchmark with 5 s per
measurement and a per-group compile timer on an empty cache: today's ``nop-sim
bench engine --seconds 5`` and ``--cold``). Each passes the
evaluator in ``cfg`` and the draft as an argument down to ``_play_hand``.

* ``numba.cfunc(sig, cache=True)`` callees, passed to the driver (called
  through their C wrappers, exceptions lost): 120 550 hands/s against
  133 414, -9.6%;
* the jitted callees themselves, the driver compiled for their
  ``FunctionType`` then ``disable_compile()`` (numba's calling convention,
  exceptions propagate): 128 954 hands/s against 142 799, -9.7%; cold
  compile 58.2-60.9 CPU s against 56.1-59.2.

Both kept cached callers valid in a new process and compiled the callees
apart; both lost about a tenth of the engine's speed, where the bound is 5%.

Without the JIT (``NUMBA_DISABLE_JIT=1``) there are no addresses: an
"address" is then a number standing for the Python function, and the calls
are plain calls, so the engine runs (slowly) in plain Python.
"""

from __future__ import annotations

from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic

from nop_sim.games.new_order.kernels.state import CFG_ITEMS, OUT_ITEMS, ST_ITEMS
from nop_sim.kernels.jit import JIT_ENABLED


def _c(dtype, ndim: int = 1) -> types.Array:
    return types.Array(dtype, ndim, "C")


def _tuple(items) -> types.Tuple:
    """The numba type of a state tuple declared in kernels.state (name, dtype, ndim, what)."""
    return types.Tuple(tuple(_c(getattr(types, dtype), ndim) for _, dtype, ndim, _ in items))


_I64, _I8, _U64 = types.int64, types.int8, types.uint64

# the match state tuples (kernels.match: st, cfg, out), from their one declaration
ST, CFG, OUT = _tuple(ST_ITEMS), _tuple(CFG_ITEMS), _tuple(OUT_ITEMS)

# _player_category_compute(g, ps, p, colpos, hole, board, buf, key) -> category
CATEGORY_ARGS = (_c(_I64), _c(_I64, 2), _I64, _c(_I8), _c(_I8, 2), _c(_I8), _c(_I8), _I64)
# draft(st, cfg, out, rng, pickers, n_pickers, k_showdown) -> None
DRAFT_ARGS = (ST, CFG, OUT, _c(_U64), _c(_I64), _I64, _I64)


def _exactly(name: str, argtypes: tuple, given: tuple) -> None:
    """Refuse a call whose arguments are not exactly the callee's signature.

    Numba would otherwise convert what converts (an int8 array never, but a
    literal int, or one state tuple item for another of the same type) and
    the callee would read the wrong layout.
    """
    given = tuple(types.unliteral(t) for t in given)
    if given != tuple(argtypes):
        bad = [i for i, (a, b) in enumerate(zip(argtypes, given, strict=True)) if a != b]
        raise TypingError(f"{name}: arguments {bad} differ from the firewall signature "
                          f"(kernels.firewall; the state tuples are declared in kernels.state)")


def _codegen(restype, argtypes):
    def codegen(context, builder, signature, args):
        fnty = context.call_conv.get_function_type(restype, argtypes)
        fn = builder.inttoptr(args[0], fnty.as_pointer())
        status, res = context.call_conv.call_function(builder, fn, restype, argtypes, args[1:])
        # the callee's error status (an exception it raised) goes up to the caller, as
        # numba's own calls between jitted functions do
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return res if restype != types.none else context.get_dummy_value()
    return codegen


@intrinsic
def call_category(typingctx, addr, g, ps, p, colpos, hole, board, buf, key):
    """``_player_category_compute(...)`` at address ``addr``."""
    _exactly("call_category", CATEGORY_ARGS, (g, ps, p, colpos, hole, board, buf, key))
    return types.int64(types.int64, *CATEGORY_ARGS), _codegen(types.int64, CATEGORY_ARGS)


@intrinsic
def call_draft(typingctx, addr, st, cfg, out, rng, pickers, n_pickers, k_showdown):
    """``draft(...)`` at address ``addr``."""
    _exactly("call_draft", DRAFT_ARGS, (st, cfg, out, rng, pickers, n_pickers, k_showdown))
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
