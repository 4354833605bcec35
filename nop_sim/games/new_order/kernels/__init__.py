"""New Order Poker's numba kernels: plain arrays and scalars only, no Python objects."""

from pathlib import Path

from nop_sim.kernels.sources import declare_kernel_sources

# what this game's kernels may inline besides the shared kernels: numba's cache of them
# is stamped with a digest of these files (and the game's Game.kernel_sources names them)
KERNEL_SOURCES = declare_kernel_sources(Path(__file__).resolve().parents[1], ("games/new_order/types.py", "games/new_order/kernels/*.py"))
