"""A scripted seat: its decisions read from (or written to) a script (numba only).

A person playing a seat (nop_sim.games.new_order.table) plays the batch kernel itself: the
match is replayed from its seed with the person's decisions so far as a script, and the
kernel stops where the script runs out. With ``settings[S_SCRIPTED] = seat + 1`` every
``choose_*`` of kernels.decide asks the script for that seat's decision instead of its
agent; with ``-(seat + 1)`` the agent decides and each decision is appended to the script
(what the oracle test replays). Batch runs leave the setting at 0: one comparison a
decision.

``st[ST_SCRIPT]`` (int64) is the pause record (``types.PAUSE_*``) followed by the
decisions, ``SCRIPT_WIDTH`` each: ``(kind SK_*, a, b, 0)``; ``g[G_SCRIPT_AT]`` counts the
decisions read (or written). When a decision is asked past the last one, the kernel
writes the pause (the decision's kind, seat, events written before it, hand, and the
bounds it is asked with, ``PAUSE_ARGS``) and plays the rest of the hand with a harmless
default; the match stops at the hand's end (kernels.match) and the caller keeps the log
up to ``PAUSE_EVN``. A decision of the wrong kind, or out of its bounds, is refused the
same way (``SK_ERROR``, ``PAUSE_BAD``): the kernel, not the caller, has the last word on
what is legal.
"""

from __future__ import annotations

from nop_sim.games.new_order.kernels.state import (
    CFG_SETTINGS,
    G_EVN,
    G_HAND,
    G_SCRIPT_AT,
    ST_G,
    ST_SCRIPT,
)
from nop_sim.games.new_order.types import (
    N_PAUSE,
    PAUSE_ARGS,
    PAUSE_AT,
    PAUSE_BAD,
    PAUSE_EVN,
    PAUSE_HAND,
    PAUSE_KIND,
    PAUSE_SEAT,
    S_SCRIPTED,
    SCRIPT_WIDTH,
    SK_ERROR,
)
from nop_sim.kernels.jit import jit

PAUSED = -2   # script_next: the script ran out at this decision (the pause is written)
STOPPED = -1  # script_next: it had run out or been refused before (play the default)


@jit(_nrt=False, inline="always")
def scripted(cfg, p):
    """Whether seat ``p``'s decisions are read from or written to the script."""
    s = cfg[CFG_SETTINGS][S_SCRIPTED]
    return s != 0 and (s == p + 1 or s == -(p + 1))


@jit(_nrt=False, inline="always")
def recording(cfg):
    """The scripted seat's agent decides, and its decisions are written to the script."""
    return cfg[CFG_SETTINGS][S_SCRIPTED] < 0


@jit(_nrt=False)
def script_next(st, p, kind):
    """Offset in ``st[ST_SCRIPT]`` of the next decision, which must be of ``kind`` (the
    cursor moves past it); :data:`PAUSED` when the script runs out here (the pause record
    is written, but for its arguments: the caller's), :data:`STOPPED` when it ran out or
    was refused before, or is refused now for its kind."""
    script, g = st[ST_SCRIPT], st[ST_G]
    if script[PAUSE_KIND] != 0:
        return STOPPED
    i = g[G_SCRIPT_AT]
    o = N_PAUSE + i * SCRIPT_WIDTH
    if o + SCRIPT_WIDTH > script.shape[0]:
        script[PAUSE_KIND] = kind
        script[PAUSE_SEAT] = p
        script[PAUSE_EVN] = g[G_EVN]
        script[PAUSE_HAND] = g[G_HAND]
        script[PAUSE_AT] = i
        return PAUSED
    if script[o] != kind:
        refuse(st, o)
        return STOPPED
    g[G_SCRIPT_AT] = i + 1
    return o


@jit(_nrt=False)
def refuse(st, o):
    """The decision at offset ``o`` is not legal here: stop, and say which it was."""
    script, g = st[ST_SCRIPT], st[ST_G]
    script[PAUSE_KIND] = SK_ERROR
    script[PAUSE_BAD] = (o - N_PAUSE) // SCRIPT_WIDTH
    script[PAUSE_EVN] = g[G_EVN]
    script[PAUSE_HAND] = g[G_HAND]
    script[PAUSE_AT] = script[PAUSE_BAD]


@jit(_nrt=False)
def record(st, kind, a, b):
    """Append a decision (record mode); a full script stops the match as refused."""
    script, g = st[ST_SCRIPT], st[ST_G]
    if script[PAUSE_KIND] != 0:
        return
    o = N_PAUSE + g[G_SCRIPT_AT] * SCRIPT_WIDTH
    if o + SCRIPT_WIDTH > script.shape[0]:
        refuse(st, o)
        return
    script[o] = kind
    script[o + 1] = a
    script[o + 2] = b
    g[G_SCRIPT_AT] += 1


@jit(_nrt=False, inline="always")  # a view: returned by a call only once inlined
def pause_args(st):
    """The pause's argument region (int64 view of ``N_PAUSE - PAUSE_ARGS``), to fill."""
    return st[ST_SCRIPT][PAUSE_ARGS:N_PAUSE]
