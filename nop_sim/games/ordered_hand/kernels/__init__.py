"""The Ordered Hand's numba kernels: the game's play (:mod:`.play`) and the block
rules it is played by (:mod:`.blocks`). Plain arrays and scalars only."""
