"""The Ordered Hand's numba kernels: the game's play (:mod:`.play`) and the block
rules it is played by (:mod:`.blocks`). Plain arrays and scalars only."""

from pathlib import Path

from nop_sim.kernels.sources import declare_kernel_sources

# what this game's kernels may inline besides the shared kernels: numba's cache of them
# is stamped with a digest of these files (and the game's Game.kernel_sources names them)
KERNEL_SOURCES = declare_kernel_sources(Path(__file__).resolve().parents[1], ("games/ordered_hand/types.py", "games/ordered_hand/kernels/*.py"))
