"""The trainer's runtime failure (the CLI prints it on one line, exit 1)."""

from __future__ import annotations

__all__ = ["TrainError"]


class TrainError(RuntimeError):
    """A sound request that cannot be carried out: a folder of another training, an
    unreachable scheduler, a corrupt checkpoint."""
