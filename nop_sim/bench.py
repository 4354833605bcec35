"""Benchmarks: speeds measured as medians, with a reference measured in the same run.

Never timed inside unit tests: the machines are shared and noisy, so each
figure is the median of several repeats and compared with a peer measured
alongside it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

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


def _eval7_rate(n_iter: int, repeats: int) -> float | None:
    try:
        import eval7
    except ImportError:
        return None
    hero = [eval7.Card("As"), eval7.Card("Kd")]
    villain = eval7.HandRange("QQ")
    eval7.py_hand_vs_range_monte_carlo(hero, villain, [], 1000)
    # each Monte Carlo iteration evaluates two seven-card hands
    return _median_rate(lambda: eval7.py_hand_vs_range_monte_carlo(hero, villain, [], n_iter),
                        2 * n_iter, repeats)


def bench_evaluator(n_hands: int = 2_000_000, repeats: int = 5, seed: int = 0,
                    compile_time: bool = True) -> dict:
    """Speed of the evaluator; returns the figures as a dict (see the README)."""
    import numba

    from nop_sim import DEFAULT_COLUMN, Column, evaluate
    from nop_sim.kernels import evaluate as k

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

    def kernel_and_public_api():
        # evaluate() pays for checks, allocation and the call; timed in turn with its
        # kernel (the default column), so that their ratio does not drift with the load
        k.score_batch(hands[:10], default_pos, False, none, none, out[:10])
        evaluate(hands[:10])  # compile outside timing
        fns = {"default_column_hands_per_s":
               lambda: k.score_batch(hands, default_pos, False, none, none, out),
               "public_api_hands_per_s": lambda: evaluate(hands)}
        for name, rate in _median_rates(fns, n_hands, repeats, clock=time.thread_time).items():
            cpu[name + "_cpu"] = rate
        return _median_rates(fns, n_hands, repeats)

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
    result = {
        "hands": n_hands,
        "repeats": repeats,
        **kernel_and_public_api(),
        "random_column_hands_per_s": serial(moved.positions(), none,
                                            "random_column_hands_per_s"),
        "deuces_wild_hands_per_s": serial(default_pos, deuces, "deuces_wild_hands_per_s"),
        "threads": threads,
        "parallel_hands_per_s": parallel(),
    }
    e7_after = _eval7_rate(n_hands // 2, repeats)
    result.update(cpu)
    result["public_api_ratio_vs_kernel"] = (result["public_api_hands_per_s"]
                                            / result["default_column_hands_per_s"])
    result["public_api_ratio_vs_kernel_cpu"] = (result["public_api_hands_per_s_cpu"]
                                                / result["default_column_hands_per_s_cpu"])
    result["parallel_speedup"] = result["parallel_hands_per_s"] / result["default_column_hands_per_s"]
    if e7_before is not None:
        e7 = float(np.median([e7_before, e7_after]))
        result["eval7_hands_per_s"] = e7
        result["ratio_vs_eval7"] = result["default_column_hands_per_s"] / e7
        result["public_api_ratio_vs_eval7"] = result["public_api_hands_per_s"] / e7
        result["random_column_ratio_vs_eval7"] = result["random_column_hands_per_s"] / e7
        result["load_average"] = os.getloadavg()[0]
    if compile_time:
        result["compile_s"] = _compile_seconds(cold=True)
        result["cached_start_s"] = _compile_seconds(cold=False)
    result["cpu_count"] = os.cpu_count()
    return {key: (round(v, 3) if isinstance(v, float) else v) for key, v in result.items()}


if __name__ == "__main__":  # pragma: no cover
    print(json.dumps(bench_evaluator(), indent=2))
