#!/usr/bin/env python
"""What share of the match engine's time is hand evaluation; prints one JSON object.

The engine reaches the evaluator through one address (``g[G_EVAL_FN]``, see
kernels.firewall). This script hands it, in turn, wrappers that evaluate
each player's hand ``k`` times (``k`` = 1, 2, 3) and return the same result,
and times one-thread matches with each (CPU time of the process, medians of
repeats taken in turn): engine time is ``T(k) = rest + k * evaluation``, so
the slope of ``T`` over ``k`` is the evaluator's time and ``slope / T(1)``
its share. The games are the same whatever ``k`` (checked by digest).

A counting wrapper reports what tables would face in the engine: evaluations
per hand, how many are plain (no wild rank: the tables' case), their hand
sizes (5 to 8 cards), and how often the column version (``G_COLVER``) moves
between two evaluations, each move asking for new tables. With the time
tables save per hand of each size and their build (measured here, CPU
time), that gives what tables would gain the engine: at most
``table_gain_bound_free`` of its time were they free, and
``table_gain_with_builds`` (negative: a loss) when built once per column
version, one size each (the least it could be).

    python scripts/engine_eval_share.py [--matches 200] [--repeats 5]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time

import numba
import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic

from nop_sim.games.new_order.engine import play_matches
from nop_sim.games.new_order.kernels import common
from nop_sim.games.new_order.kernels.common import _player_category_compute
from nop_sim.games.new_order.kernels.firewall import CATEGORY_ARGS, address
from nop_sim.games.new_order.kernels.state import G_COLVER, P_WILDS
from nop_sim.games.new_order.rules import Settings


def _repeated(k: int):
    @numba.njit(cache=False)
    def evaluate_k_times(g, ps, p, colpos, hole, board, buf, key):
        cat = _player_category_compute(g, ps, p, colpos, hole, board, buf, key)
        for _ in range(k - 1):
            # the same player, cards and column: the same category, recomputed
            again = _player_category_compute(g, ps, p, colpos, hole, board, buf, key)
            if again != cat:
                cat = -100  # never: the games' digests show it
        return cat

    return address(evaluate_k_times, CATEGORY_ARGS)


@intrinsic
def _voidptr(typingctx, addr):
    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return types.voidptr(types.int64), codegen


# calls, plain calls, column moves, last column version, then plain calls by card count
COUNTS = np.zeros(16, np.int64)
_COUNTS_AT = COUNTS.ctypes.data


@numba.njit(cache=False)
def _counting(g, ps, p, colpos, hole, board, buf, key):
    c = numba.carray(_voidptr(_COUNTS_AT), 16, np.int64)
    c[0] += 1
    if g[G_COLVER] != c[3]:
        c[2] += 1
        c[3] = g[G_COLVER]
    cat = _player_category_compute(g, ps, p, colpos, hole, board, buf, key)
    if ps[p, P_WILDS] == 0:
        c[1] += 1
        n_cards = 0
        for card in buf:  # the hand just evaluated
            n_cards += card >= 0
        c[4 + n_cards] += 1
    return cat


def _play(evaluator_at, n_matches, seed):
    import nop_sim.games.new_order.engine as engine

    saved = engine._callee_addresses
    from nop_sim.games.new_order.kernels.disruptor import draft_address

    engine._callee_addresses = lambda: (evaluator_at, draft_address())
    try:
        c0 = time.process_time()
        r = play_matches(Settings(), "balanced", n_matches=n_matches, seed=seed, threads=1,
                         chunk_size=32)
        cpu = time.process_time() - c0
    finally:
        engine._callee_addresses = saved
    h = hashlib.sha1()
    for a in (r.match, r.player, r.counts, r.categories):
        h.update(np.ascontiguousarray(a).tobytes())
    return cpu, r.count("hands"), h.hexdigest()


def _table_costs(n_hands: int = 200_000, repeats: int = 7) -> tuple[dict, dict]:
    """Nanoseconds the tables save per plain hand, and ms to build them, per hand size."""
    from nop_sim import DEFAULT_COLUMN
    from nop_sim.evaluator import _build_tables, _score_with_tables
    from nop_sim.kernels.evaluate import score_batch
    from nop_sim.studies.bench import _median_rates, random_hands

    pos = DEFAULT_COLUMN.positions()
    none = np.zeros(1, np.int64)
    saved, build = {}, {}
    for n in range(5, 9):
        hands = random_hands(n_hands, n, seed=n)
        out = np.empty(n_hands, np.int64)
        tables = _build_tables(pos, False, 0, n)
        fns = {"exact": lambda h=hands, o=out: score_batch(h, pos, False, none, none, o),
               "table": lambda h=hands, o=out, tb=tables: _score_with_tables(
                   h, tb, pos, False, none, False, False, o)}
        for fn in fns.values():
            fn()
        rates = _median_rates(fns, n_hands, repeats, clock=time.thread_time)
        saved[n] = 1e9 * (1 / rates["exact"] - 1 / rates["table"])
        times = []
        for _ in range(repeats):
            c0 = time.thread_time()
            _build_tables(pos, False, 0, n)
            times.append(time.thread_time() - c0)
        build[n] = 1e3 * float(np.median(times))
    return saved, build


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    ks = (1, 2, 3)
    addresses = {k: _repeated(k) for k in ks}
    plain = common.evaluator_address()
    for at in [plain, *addresses.values()]:
        _play(at, 2, 0)  # compile and load outside timing
    times = {k: [] for k in ("plain", *ks)}
    digests = set()
    for _ in range(args.repeats):
        for k in times:
            cpu, hands, digest = _play(plain if k == "plain" else addresses[k], args.matches,
                                       args.seed)
            times[k].append(cpu)
            digests.add(digest)
    t = {k: float(np.median(v)) for k, v in times.items()}
    slope, rest = np.polyfit(ks, [t[k] for k in ks], 1)
    COUNTS[:] = 0
    COUNTS[3] = -1
    _play(address(_counting, CATEGORY_ARGS), args.matches, args.seed)
    calls, plain_calls, moves = int(COUNTS[0]), int(COUNTS[1]), int(COUNTS[2])
    saved, build = _table_costs()
    free = sum(int(COUNTS[4 + n]) * saved[n] for n in range(5, 9)) * 1e-9
    builds = moves * min(build.values()) * 1e-3
    out = {
        "matches": args.matches, "hands": hands, "repeats": args.repeats,
        "same_games": len(digests) == 1,
        "engine_s": t["plain"], "engine_s_by_evaluations": {k: t[k] for k in ks},
        "evaluation_s": float(slope), "rest_s": float(rest),
        "evaluation_share": float(slope / t[1]),
        "evaluation_ns_per_call": float(1e9 * slope / calls),
        "evaluations_per_hand": calls / hands,
        "plain_share_of_evaluations": plain_calls / calls,
        "plain_hand_sizes": {n: int(COUNTS[4 + n]) for n in range(5, 9)},
        "column_moves_per_hand": moves / hands,
        "evaluations_per_column_move": calls / max(moves, 1),
        "table_saved_ns_per_hand": saved, "table_build_ms": build,
        "table_gain_bound_free": free / t["plain"],
        "table_gain_with_builds": (free - builds) / t["plain"],
    }
    def rounded(v):
        if isinstance(v, dict):
            return {k: rounded(x) for k, x in v.items()}
        return round(v, 4) if isinstance(v, float) else v

    print(json.dumps(rounded(out), indent=2))


if __name__ == "__main__":
    main()
