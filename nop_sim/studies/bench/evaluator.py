"""The evaluator's speed (``nop-sim bench evaluator``), beside eval7's in the same run."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

from nop_sim import DEFAULT_COLUMN, Column, evaluate
from nop_sim.evaluator import build_tables, evaluation_tables, score_with_tables
from nop_sim.kernels import evaltable as t
from nop_sim.kernels import evaluate as k

__all__ = ["bench_evaluator", "random_hands"]


def random_hands(n: int, k: int = 7, seed: int = 0, decks: int = 1) -> np.ndarray:
    """``n`` uniformly random ``k``-card hands from ``decks`` decks, int8 ``(n, k)``."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, k), np.int8)
    block = 200_000
    for start in range(0, n, block):
        m = min(block, n - start)
        keys = rng.random((m, 52 * decks))
        out[start:start + m] = (np.argpartition(keys, k, axis=1)[:, :k] % 52).astype(np.int8)
    return out


def _median_rate(fn, n_items: int, repeats: int, clock=time.perf_counter) -> float:
    times = []
    for _ in range(repeats):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return n_items / float(np.median(times))


def _median_rates(fns: dict, n_items: int, repeats: int, clock=time.perf_counter) -> dict:
    """Median rate of each of ``fns`` (name -> callable), timed in turn: they share the load."""
    times: dict = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = clock()
            fn()
            times[name].append(clock() - t0)
    return {name: n_items / float(np.median(t)) for name, t in times.items()}


_COMPILE_SNIPPET = """
import time, numpy as np
t0 = time.perf_counter()
from nop_sim import evaluate, Column
hands = np.array([[0, 5, 10, 15, 20, 25, 30]], np.int8)
evaluate(hands)
evaluate(hands, wild_ranks=1)
evaluate(np.vstack([hands, hands]), parallel=True)
print(time.perf_counter() - t0)
"""


def _compile_seconds(cold: bool) -> float:
    """Import plus first calls in a fresh process; ``cold`` uses an empty numba cache."""
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        if cold:
            env["NUMBA_CACHE_DIR"] = tmp
        out = subprocess.run([sys.executable, "-c", _COMPILE_SNIPPET], env=env, check=True,
                             capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def _eval7_rate(n_iter: int, repeats: int, clock=time.perf_counter) -> float | None:
    try:
        import eval7  # an optional peer: measured where it is installed
    except ImportError:
        return None
    hero = [eval7.Card("As"), eval7.Card("Kd")]
    villain = eval7.HandRange("QQ")
    eval7.py_hand_vs_range_monte_carlo(hero, villain, [], 1000)
    # each Monte Carlo iteration evaluates two seven-card hands
    return _median_rate(lambda: eval7.py_hand_vs_range_monte_carlo(hero, villain, [], n_iter),
                        2 * n_iter, repeats, clock=clock)


def _table_costs(hands: np.ndarray, exact_rate: float, table_rate: float, seed: int,
                 n_columns: int = 21,
                 sizes=(5_000, 10_000, 12_500, 15_000, 17_500, 20_000, 25_000, 30_000, 50_000),
                 repeats: int = 7) -> dict:
    """What the tables of a column cost, and from which batch size they pay for themselves.

    ``table_index_ms``: the column-independent perfect index of seven-card
    multisets (once per process). ``table_build_ms``: the tables of one more
    column (median over ``n_columns`` random readings). The break-even batch
    size is that build over the time the tables save per hand, both paths
    checking the hands as evaluate() does; ``table_break_even_measured`` is
    the smallest of ``sizes`` at which building fresh tables and scoring
    beat the exact path in a direct, timed-in-turn comparison (None if none).
    Times are CPU time of this thread (the rates passed in too): on a shared
    machine wall time also counts other processes.
    """

    rng = np.random.default_rng(seed + 1)
    t.multiset_index(5)  # compile outside timing
    t.multiset_index.cache_clear()
    clock = time.thread_time
    t0 = clock()
    t.multiset_index(7)
    index_s = clock() - t0
    readings = [(rng.permutation(13).astype(np.int8), bool(rng.integers(2)))
                for _ in range(n_columns)]
    build_tables(readings[0][0], False, 0, 7)  # compile outside timing
    builds = []
    for pos, inverted in readings:
        t0 = clock()
        build_tables(pos, inverted, 0, 7)
        builds.append(clock() - t0)
    build_s = float(np.median(builds))
    saved_per_hand = 1 / exact_rate - 1 / table_rate
    out = np.empty(len(hands), np.int64)
    none = np.zeros(1, np.int64)
    pays_from = None
    for size in (s for s in sizes if s <= len(hands)):
        part, out_part = hands[:size], out[:size]

        def exact(part=part, out_part=out_part):
            pos, inverted = readings[rng.integers(n_columns)]
            k.score_batch_checked(part, pos, inverted, none, none, True, 5, out_part)

        def built(part=part, out_part=out_part):
            pos, inverted = readings[rng.integers(n_columns)]
            tables = build_tables(pos, inverted, 0, 7)
            score_with_tables(part, tables, pos, inverted, none, True, False, out_part)

        rates = _median_rates({"exact": exact, "built": built}, size, repeats, clock=clock)
        if pays_from is None and rates["built"] > rates["exact"]:
            pays_from = size
    return {"table_index_ms": 1e3 * index_s, "table_build_ms": 1e3 * build_s,
            "table_break_even_hands": round(build_s / saved_per_hand) if saved_per_hand > 0
            else None,
            "table_break_even_measured": pays_from}


def bench_evaluator(n_hands: int = 2_000_000, repeats: int = 5, seed: int = 0,
                    compile_time: bool = True) -> dict:
    """Speed of the evaluator; returns the figures as a dict (see the README)."""
    hands = random_hands(n_hands, 7, seed)
    out = np.empty(n_hands, np.int64)
    none = np.zeros(1, np.int64)
    deuces = np.ones(1, np.int64)
    rng = np.random.default_rng(seed)
    moved = Column(rng.permutation(13))
    default_pos = DEFAULT_COLUMN.positions()

    cpu = {}

    def serial(pos, wild, name):
        k.score_batch(hands[:10], pos, False, wild, none, out[:10])  # compile outside timing
        # CPU time of this thread as well as wall time: on a shared machine the
        # wall figure also counts time the scheduler gave to other processes
        cpu[name + "_cpu"] = _median_rate(
            lambda: k.score_batch(hands, pos, False, wild, none, out), n_hands, repeats,
            clock=time.thread_time)
        return _median_rate(lambda: k.score_batch(hands, pos, False, wild, none, out),
                            n_hands, repeats)

    tables = evaluation_tables(DEFAULT_COLUMN, n_cards=7)

    def table_path(tables, pos, check):
        # the kernel, and the exact path for the rows it leaves (none here, but for
        # a few hands in ten thousand under some columns)
        return lambda: score_with_tables(hands, tables, pos, False, none, check, False, out)

    def kernel_and_public_api():
        # evaluate() pays for checks, allocation and the call; timed in turn with the
        # kernels (the default column), so that their ratios do not drift with the load.
        # Its tables are built above, as a caller scoring many batches under one column
        # pays for them once.
        k.score_batch(hands[:10], default_pos, False, none, none, out[:10])
        k.score_batch_checked(hands[:10], default_pos, False, none, none, True, 5, out[:10])
        score_with_tables(hands[:10], tables, default_pos, False, none, True, False, out[:10])
        evaluate(hands[:10])  # compile outside timing
        fns = {"default_column_hands_per_s":
               lambda: k.score_batch(hands, default_pos, False, none, none, out),
               "table_hands_per_s": table_path(tables, default_pos, False),
               "exact_checked_hands_per_s":
               lambda: k.score_batch_checked(hands, default_pos, False, none, none, True, 5,
                                             out),
               "table_checked_hands_per_s": table_path(tables, default_pos, True),
               "public_api_hands_per_s": lambda: evaluate(hands)}
        for name, rate in _median_rates(fns, n_hands, repeats, clock=time.thread_time).items():
            cpu[name + "_cpu"] = rate
        return _median_rates(fns, n_hands, repeats)

    def random_column_table():
        fn = table_path(evaluation_tables(moved, n_cards=7), moved.positions(), False)
        cpu["random_column_table_hands_per_s_cpu"] = _median_rate(fn, n_hands, repeats,
                                                                  clock=time.thread_time)
        return _median_rate(fn, n_hands, repeats)

    threads = numba.get_num_threads()

    def parallel():
        chunks = 4 * threads
        # the public API's parallel driver: it checks the hands as it scores them
        k.score_batch_parallel(hands[:100], default_pos, False, none, none, True, 5, 4, out[:100])
        return _median_rate(
            lambda: k.score_batch_parallel(hands, default_pos, False, none, none, True, 5, chunks,
                                           out),
            n_hands, repeats)

    # eval7 first and last, so drift in machine load shows in the ratio's inputs
    e7_before = _eval7_rate(n_hands // 2, repeats)
    e7_cpu_before = _eval7_rate(n_hands // 2, repeats, clock=time.thread_time)
    result = {
        "hands": n_hands,
        "repeats": repeats,
        **kernel_and_public_api(),
        "random_column_hands_per_s": serial(moved.positions(), none,
                                            "random_column_hands_per_s"),
        "random_column_table_hands_per_s": random_column_table(),
        "deuces_wild_hands_per_s": serial(default_pos, deuces, "deuces_wild_hands_per_s"),
        "threads": threads,
        "parallel_hands_per_s": parallel(),
    }
    e7_after = _eval7_rate(n_hands // 2, repeats)
    e7_cpu_after = _eval7_rate(n_hands // 2, repeats, clock=time.thread_time)
    result.update(cpu)
    result.update(_table_costs(hands, result["exact_checked_hands_per_s_cpu"],
                               result["table_checked_hands_per_s_cpu"], seed))
    result["public_api_ratio_vs_kernel"] = (result["public_api_hands_per_s"]
                                            / result["default_column_hands_per_s"])
    result["public_api_ratio_vs_kernel_cpu"] = (result["public_api_hands_per_s_cpu"]
                                                / result["default_column_hands_per_s_cpu"])
    result["table_ratio_vs_kernel"] = (result["table_hands_per_s"]
                                       / result["default_column_hands_per_s"])
    result["parallel_speedup"] = result["parallel_hands_per_s"] / result["default_column_hands_per_s"]
    if e7_before is not None:
        e7 = float(np.median([e7_before, e7_after]))
        result["eval7_hands_per_s"] = e7
        result["ratio_vs_eval7"] = result["default_column_hands_per_s"] / e7
        result["public_api_ratio_vs_eval7"] = result["public_api_hands_per_s"] / e7
        result["random_column_ratio_vs_eval7"] = result["random_column_hands_per_s"] / e7
        result["table_ratio_vs_eval7"] = result["table_hands_per_s"] / e7
        result["table_checked_ratio_vs_eval7"] = result["table_checked_hands_per_s"] / e7
        result["random_column_table_ratio_vs_eval7"] = (
            result["random_column_table_hands_per_s"] / e7)
        # CPU time of this thread: what eval7 and the kernels cost, whatever else runs
        e7_cpu = float(np.median([e7_cpu_before, e7_cpu_after]))
        result["eval7_hands_per_s_cpu"] = e7_cpu
        result["ratio_vs_eval7_cpu"] = result["default_column_hands_per_s_cpu"] / e7_cpu
        result["table_ratio_vs_eval7_cpu"] = result["table_hands_per_s_cpu"] / e7_cpu
        result["public_api_ratio_vs_eval7_cpu"] = result["public_api_hands_per_s_cpu"] / e7_cpu
        result["random_column_table_ratio_vs_eval7_cpu"] = (
            result["random_column_table_hands_per_s_cpu"] / e7_cpu)
        result["load_average"] = os.getloadavg()[0]
    if compile_time:
        result["compile_s"] = _compile_seconds(cold=True)
        result["cached_start_s"] = _compile_seconds(cold=False)
    result["cpu_count"] = os.cpu_count()
    return {key: (round(v, 3) if isinstance(v, float) else v) for key, v in result.items()}
