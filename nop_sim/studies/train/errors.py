"""The trainer's runtime failure (the CLI prints it on one line, exit 1); defined,
with every other error class, in :mod:`nop_sim.core.errors`."""

from __future__ import annotations

from nop_sim.core.errors import TrainError

__all__ = ["TrainError"]
