"""The files the Ordered Hand's numba kernels may inline besides the shared kernels.

Declared when the game's package is imported, before any kernel of it is defined:
numba's cache of them is stamped with a digest of these files
(:mod:`nop_sim.core.kernel_sources`), and the game's ``Game.kernel_sources`` names them.
"""

from pathlib import Path

from nop_sim.core.kernel_sources import declare_kernel_sources

KERNEL_SOURCES = declare_kernel_sources(Path(__file__).resolve().parent,
                                        ("games/ordered_hand/types.py", "games/ordered_hand/kernels/*.py"))
