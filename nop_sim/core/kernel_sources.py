"""Which source files numba's cached kernels may inline, and their digest.

The jit helpers (:mod:`nop_sim.kernels.jit`) stamp each cache folder with :func:`kernel_digest` of
its kernels' sources. Standard library only: a game's kernels package declares its
sources here (:func:`declare_kernel_sources`) without loading numba.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

__all__ = ["SHARED_KERNEL_SOURCES", "declare_kernel_sources", "kernel_digest",
           "kernel_patterns", "kernel_sources"]

_PACKAGE = Path(__file__).resolve().parent.parent  # the nop_sim package folder
SHARED_KERNEL_SOURCES = ("core/types.py", "core/kernel_sources.py", "kernels/*.py")
_declared: dict[Path, tuple[str, ...]] = {}  # a game's package folder -> its source patterns


def declare_kernel_sources(game_folder: str | Path, patterns: tuple[str, ...]
                           ) -> tuple[str, ...]:
    """Declare the files (glob patterns relative to the ``nop_sim`` package) that the
    kernels under ``game_folder`` may inline besides the shared ones; a game's kernels
    package calls it before any kernel of the game is defined. Returns ``patterns``
    (what the game's ``Game.kernel_sources`` names)."""
    _declared[Path(game_folder).resolve()] = tuple(patterns)
    kernel_sources.cache_clear()
    kernel_digest.cache_clear()
    return tuple(patterns)


def _owner(folder: Path) -> Path | None:
    """The declared game folder ``folder`` lies in, if any."""
    for game in _declared:
        if folder == game or game in folder.parents:
            return game
    return None


def kernel_patterns(folder: Path | None = None) -> tuple[str, ...]:
    """The glob patterns of :func:`kernel_sources`: the shared kernels' files, then those
    the game owning ``folder`` declared (every declared game's when ``folder`` is None)."""
    if folder is None:
        return SHARED_KERNEL_SOURCES + tuple(p for ps in _declared.values() for p in ps)
    owner = _owner(Path(folder).resolve())
    return SHARED_KERNEL_SOURCES + (_declared[owner] if owner is not None else ())


@cache
def kernel_sources(folder: Path | None = None) -> tuple[Path, ...]:
    """Every source file a cached kernel of ``folder`` may inline (of every kernel
    declared so far when None: import :mod:`nop_sim.games` first for all of them)."""
    return tuple(sorted({f for pattern in kernel_patterns(folder)
                         for f in _PACKAGE.glob(pattern)}))


@cache
def kernel_digest(folder: Path | None = None) -> str:
    """sha1 over the names and bytes of :func:`kernel_sources` of ``folder``."""
    digest = hashlib.sha1()
    for f in kernel_sources(folder):
        digest.update(f"{f.relative_to(_PACKAGE).as_posix()}\0".encode())
        digest.update(f.read_bytes())
    return digest.hexdigest()
