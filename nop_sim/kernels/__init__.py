"""The numba every game shares: the jit helpers (:mod:`.jit`), the RNG (:mod:`.rng`)
and the hand evaluator (:mod:`.evaluate`, :mod:`.evaltable`). Plain arrays and scalars
only, no Python objects. Each game's own kernels live in its package."""
