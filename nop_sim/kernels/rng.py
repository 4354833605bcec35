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


def spawned_states(seeds) -> np.ndarray:
    """uint64 ``(len(seeds), 4)``: row ``i`` is ``seed_states(seeds[i], 1)[0]``, all at once
    (:func:`sequence_words`: 200 seeds a runner part took 3 ms one by one)."""
    seeds = np.asarray(seeds, dtype=np.uint64).reshape(-1)
    states = sequence_words(seeds, np.zeros((seeds.size, 1), np.uint64), 4)
    states[~states.any(axis=1), 0] = 1  # the all-zero state is a fixed point
    return states


# numpy.random.SeedSequence's constants (numpy/random/bit_generator.pyx)
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_POOL = 4
_MASK = 0xFFFFFFFF


def sequence_words(entropy: np.ndarray, spawn_key: np.ndarray, n_words: int) -> np.ndarray:
    """uint64 ``(n, n_words)``: row ``i`` is ``numpy.random.SeedSequence(int(entropy[i]),
    spawn_key=tuple(spawn_key[i])).generate_state(n_words, np.uint64)``, computed for
    every row at once with numpy's algorithm (its hash and mix of 32-bit words, whose
    constants do not depend on the data).

    ``entropy``: uint64 ``(n,)``; ``spawn_key``: ``(n, k)``, ``k >= 1`` and every entry
    below 2**32 (one 32-bit word each, as numpy reads it). With a spawn key numpy pads
    the entropy's words to the pool's four, so an entropy below 2**32 reads as one of
    two words whose second is 0: one layout serves every row. Tested against numpy.
    """
    entropy = np.asarray(entropy, dtype=np.uint64).reshape(-1)
    key = np.asarray(spawn_key, dtype=np.uint64)
    if key.ndim != 2 or key.shape[0] != entropy.size or key.shape[1] < 1 or (
            key >= np.uint64(1 << 32)).any():
        raise ValueError(f"spawn_key must be ({entropy.size}, k >= 1) words below 2**32, got "
                         f"shape {key.shape}")
    words = [(entropy & np.uint64(_MASK)).astype(np.uint32),
             (entropy >> np.uint64(32)).astype(np.uint32)]
    zero = np.zeros(entropy.size, np.uint32)
    words += [zero, zero] + [key[:, j].astype(np.uint32) for j in range(key.shape[1])]
    const = _INIT_A

    def hashmix(value: np.ndarray) -> np.ndarray:
        nonlocal const
        value = value ^ np.uint32(const)
        const = (const * _MULT_A) & _MASK
        value = value * np.uint32(const)
        return value ^ (value >> np.uint32(16))

    def mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        out = np.uint32(_MIX_L) * x - np.uint32(_MIX_R) * y
        return out ^ (out >> np.uint32(16))

    pool = [hashmix(words[i]) for i in range(_POOL)]
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    for src in range(_POOL, len(words)):
        for dst in range(_POOL):
            pool[dst] = mix(pool[dst], hashmix(words[src]))
    out = np.empty((entropy.size, 2 * n_words), np.uint32)
    const = _INIT_B
    for i in range(2 * n_words):
        value = pool[i % _POOL] ^ np.uint32(const)
        const = (const * _MULT_B) & _MASK
        value = value * np.uint32(const)
        out[:, i] = value ^ (value >> np.uint32(16))
    # little-endian word pairs, low word first (numpy's view as '<u8')
    return out[:, 0::2].astype(np.uint64) | (out[:, 1::2].astype(np.uint64) << np.uint64(32))


def keyed_states(key, n: int) -> np.ndarray:
    """uint64 ``(n, 4)`` states, one per match, drawn at once from ``SeedSequence(key)``
    (``key`` a sequence of ints naming a batch: the same key, the same states)."""
    words = np.random.SeedSequence([int(k) for k in key]).generate_state(4 * n, dtype=np.uint64)
    states = words.reshape(n, 4).copy()
    states[~states.any(axis=1), 0] = 1  # the all-zero state is a fixed point
    return states
