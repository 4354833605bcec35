"""Numba's cache never serves a kernel compiled from older sources.

Numba checks a cached kernel against its own file only. Each test copies the
package into a temporary folder (its own cache), plays there to warm the cache,
edits a kernel source that another file's cached kernel inlines, and plays
again in a fresh process: the results must follow the edit.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import nop_sim

PACKAGE = Path(nop_sim.__file__).resolve().parent

ORDERED = """
import hashlib
from nop_sim.games.ordered_hand import play_matches
r = play_matches(n_games=40, seed=1)
print(hashlib.sha1(r.games.tobytes()).hexdigest())
"""

# a pair of aces against a middle of High Card: it beats it under the default column
BEATS = """
import numpy as np
from nop_sim.games.ordered_hand.kernels.play import _beats_around
seq = np.array([[48, 49, 0, 5, 10, 15, 20]], np.int8)  # Ac Ad 2c 3d 4h 5s 7c
print(_beats_around(seq, 0, 7, 0, 2, 12, 14, np.arange(13, dtype=np.int64)))
"""

NEW_ORDER = """
import hashlib
from nop_sim.games.new_order.engine import play_matches
r = play_matches(n_matches=2, seed=1, chunk_size=1, threads=1)
print(hashlib.sha1(r.match.tobytes() + r.player.tobytes()).hexdigest())
"""


def copy_package(tmp_path: Path) -> Path:
    shutil.copytree(PACKAGE, tmp_path / "nop_sim",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    return tmp_path


def play(root: Path, script: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT")}
    env["PYTHONPATH"] = str(root)
    proc = subprocess.run([sys.executable, "-c", script], cwd=root, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip().splitlines()[-1]


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} not found once in {path}"
    path.write_text(text.replace(old, new))


def test_a_cached_ordered_kernel_follows_an_edit_of_blocks(tmp_path):
    """One small cached Ordered Hand kernel that inlines its kernels/blocks.py (seconds)."""
    root = copy_package(tmp_path)
    before = play(root, BEATS)
    assert before == "True" and play(root, BEATS) == before  # the same from the warm cache
    assert list((root / "nop_sim" / "games" / "ordered_hand" / "kernels" / "__pycache__").glob(
        "play._beats_around*.nbc"))
    edit(root / "nop_sim" / "games" / "ordered_hand" / "kernels" / "blocks.py",
         "return p < q or", "return p > q or")
    assert play(root, BEATS) == "False"


@pytest.mark.slow
def test_ordered_hand_follows_an_edit_of_blocks(tmp_path):
    """The Ordered Hand kernels inline their kernels/blocks.py (about a minute: two compiles)."""
    root = copy_package(tmp_path)
    before = play(root, ORDERED)
    assert play(root, ORDERED) == before  # the same from the warm cache
    cached = list((root / "nop_sim" / "games" / "ordered_hand" / "kernels" / "__pycache__")
                  .glob("play.*.nbc"))
    assert cached, "the Ordered Hand kernels were not cached"
    # the column read upside down: every play's legality changes
    edit(root / "nop_sim" / "games" / "ordered_hand" / "kernels" / "blocks.py",
         "return p < q or", "return p > q or")
    assert play(root, ORDERED) != before


@pytest.mark.slow
def test_new_order_follows_an_edit_of_rng(tmp_path):
    """The match kernels inline kernels/rng.py (several minutes: two cold engine compiles)."""
    root = copy_package(tmp_path)
    before = play(root, NEW_ORDER)
    edit(root / "nop_sim" / "kernels" / "rng.py", "_rotl(s3, 45)", "_rotl(s3, 44)")
    assert play(root, NEW_ORDER) != before


def test_the_digest_covers_every_module_with_kernels():
    """A module that defines kernels (imports the jit helpers) is part of the digest."""
    import nop_sim.games  # noqa: F401  (every game declares its kernel sources)
    from nop_sim.core.kernel_sources import kernel_sources

    sources = set(kernel_sources())
    assert PACKAGE / "core" / "types.py" in sources
    for path in PACKAGE.rglob("*.py"):
        if re.search(r"from nop_sim\.kernels\.jit import .*\b(jit|pjit|twin)\b", path.read_text()):
            assert path in sources, f"{path.relative_to(PACKAGE)} defines kernels outside the digest"


def test_the_digest_covers_every_module_a_kernel_module_imports():
    """Kernels freeze the constants they import: each package module that a module in the
    digest imports (its globals) must be in the digest too, or an edit there goes unseen."""
    import ast

    import nop_sim.games  # noqa: F401  (every game declares its kernel sources)
    from nop_sim.core.kernel_sources import kernel_sources

    sources = set(kernel_sources())
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(
                    "nop_sim"):
                names = [node.module + "." + a.name for a in node.names] + [node.module]
                for name in names:
                    target = PACKAGE.parent.joinpath(*name.split("."))
                    for candidate in (target.with_suffix(".py"), target / "__init__.py"):
                        if candidate.is_file() and candidate.name != "__init__.py":
                            assert candidate in sources, (
                                f"{path.relative_to(PACKAGE)} imports "
                                f"{candidate.relative_to(PACKAGE)}, which the digest misses")


def test_every_game_declares_its_kernel_sources():
    """A game with kernels names their files (``Game.kernel_sources``); each pattern
    matches files, and all of them are in the digest."""
    import nop_sim.games  # noqa: F401  (every game declares its kernel sources)
    from nop_sim.core.kernel_sources import kernel_sources
    from nop_sim.games import registered_games

    sources = set(kernel_sources())
    for game in registered_games():
        if game.kernels:
            assert game.kernel_sources, f"{game.kind} has kernels but no kernel_sources"
        for pattern in game.kernel_sources:
            files = set(PACKAGE.glob(pattern))
            assert files, f"{game.kind}: {pattern} matches no file"
            assert files <= sources, f"{game.kind}: {pattern} is not in the digest"
