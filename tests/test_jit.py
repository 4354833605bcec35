"""The project's numba decorators: one compilation per argument type, and the
evaluator reached through its address (the compile firewall)."""

import numba
import numpy as np
import pytest
from numba.core import types
from numba.extending import intrinsic

from nop_sim.games.new_order.kernels import firewall
from nop_sim.games.new_order.kernels.common import evaluator_address
from nop_sim.kernels.jit import TypeDispatcher, jit


@jit(_nrt=False, cache=False)  # compiled here, so signatures are seen
def _scale(x, k):
    return x * k


@jit(_nrt=False, cache=False)  # compiled here, so signatures are seen
def _caller(x):
    # three literal constants and one variable of the same type
    return _scale(x, 2) + _scale(x, 3) + _scale(x, -1) + _scale(x, x)


def test_literal_arguments_share_one_specialisation():
    assert isinstance(_scale, TypeDispatcher)
    assert _caller(5) == 10 + 15 - 5 + 25
    # plain numba would compile _scale once per literal (2, 3, -1) plus once for int64
    assert len(_scale.signatures) == 1
    assert _caller(np.int64(2)) == 4 + 6 - 2 + 4


def test_evaluator_address_is_stable():
    a = evaluator_address()
    assert a != 0 and a == evaluator_address()


def test_draft_address_is_stable():
    from nop_sim.games.new_order.kernels.disruptor import draft_address

    a = draft_address()
    assert a != 0 and a == draft_address() and a != evaluator_address()


# -- the compile firewall: callee errors reach the caller ------------------------------------
_RAISER_ARGS = (types.int64,)


@jit(cache=False)
def _raiser(x):
    if x < 0:
        raise ValueError("negative argument")
    return x + 1


@intrinsic
def _call_raiser(typingctx, addr, x):
    firewall._exactly("_call_raiser", _RAISER_ARGS, (x,))
    return (types.int64(types.int64, *_RAISER_ARGS),
            firewall._codegen(types.int64, _RAISER_ARGS))


@jit(cache=False)
def _through_firewall(addr, x):
    return _call_raiser(addr, x)


def test_firewall_propagates_the_callee_error_status():
    addr = firewall.address(_raiser, _RAISER_ARGS)
    assert _through_firewall(addr, 1) == 2
    with pytest.raises(ValueError, match="negative argument"):
        _through_firewall(addr, -1)


def test_firewall_refuses_arguments_of_another_type():
    addr = firewall.address(_raiser, _RAISER_ARGS)
    with pytest.raises(numba.core.errors.TypingError, match="firewall signature"):
        _through_firewall(addr, 1.5)
