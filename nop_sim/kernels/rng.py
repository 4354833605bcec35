"""xoshiro256** random numbers in a caller-held state (uint64[4] per chunk).

One state per chunk, seeded in Python from ``numpy.random.SeedSequence``:
kernels never touch a global generator, so the thread count cannot change a
result. Reference: Blackman & Vigna, "Scrambled linear pseudorandom number
generators" (2018).
"""

from __future__ import annotations

import warnings

import numpy as np

from nop_sim.kernels.jit import JIT_ENABLED, jit

_U53 = 1.0 / 9007199254740992.0  # 2**-53

if not JIT_ENABLED:
    # As plain Python, NumPy warns when a uint64 product wraps; xoshiro wants it to.
    warnings.filterwarnings("ignore", "overflow encountered in scalar multiply", RuntimeWarning,
                            r"nop_sim\.kernels\.rng")


@jit(_nrt=False)
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@jit(_nrt=False)
def next_u64(state):
    """Advance ``state`` (uint64[4], in place) and return the next uint64."""
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    return result


@jit(_nrt=False)
def uniform(state):
    """A float64 in [0, 1)."""
    return np.float64(next_u64(state) >> np.uint64(11)) * _U53


@jit(_nrt=False)
def below(state, n):
    """An int64 in [0, n) for 1 <= n < 2**32 (multiply-shift, bias < 2**-32)."""
    x = next_u64(state) >> np.uint64(32)
    return np.int64((x * np.uint64(n)) >> np.uint64(32))


@jit(_nrt=False)
def _splitmix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@jit(_nrt=False)
def derive(dst, base, a, b):
    """Write into ``dst`` (uint64[4]) a state named by ``base`` (uint64[4], unchanged) and
    two counters ``a``, ``b`` (non-negative ints), splitmix64 of each word: the same
    names, the same state, and a new stream for each pair (e.g. a hand and a seat)."""
    salt = (np.uint64(a) * np.uint64(0x9E3779B97F4A7C15)
            + np.uint64(b + 1) * np.uint64(0xD1B54A32D192ED69))
    any_set = np.uint64(0)
    for j in range(4):
        w = _splitmix(base[j] ^ salt ^ (np.uint64(j + 1) * np.uint64(0xA0761D6478BD642F)))
        dst[j] = w
        any_set |= w
    if any_set == np.uint64(0):  # the all-zero state is a fixed point
        dst[0] = np.uint64(1)


def seed_states(seed: int, n_chunks: int) -> np.ndarray:
    """uint64 ``(n_chunks, 4)`` chunk states from ``SeedSequence(seed).spawn(n_chunks)``."""
    children = np.random.SeedSequence(seed).spawn(n_chunks)
    states = np.empty((n_chunks, 4), dtype=np.uint64)
    for i, child in enumerate(children):
        words = child.generate_state(4, dtype=np.uint64)
        if not words.any():  # the all-zero state is a fixed point
            words[0] = 1
        states[i] = words
    return states


def keyed_states(key, n: int) -> np.ndarray:
    """uint64 ``(n, 4)`` states, one per match, drawn at once from ``SeedSequence(key)``
    (``key`` a sequence of ints naming a batch: the same key, the same states)."""
    words = np.random.SeedSequence([int(k) for k in key]).generate_state(4 * n, dtype=np.uint64)
    states = words.reshape(n, 4).copy()
    states[~states.any(axis=1), 0] = 1  # the all-zero state is a fixed point
    return states
