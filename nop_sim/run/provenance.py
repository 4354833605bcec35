"""Where a result came from: the versions and the git revision a manifest records.

Every command that writes a manifest (``run``, ``train``, ``tune``) records them
through these two functions.
"""

from __future__ import annotations

import platform
import subprocess
from pathlib import Path

import numba
import numpy as np
import pandas as pd
import pyarrow

from nop_sim import __version__

__all__ = ["git_revision", "versions"]


def git_revision() -> str | None:
    """The commit nop-sim runs from (None outside a git checkout)."""
    try:
        root = Path(__file__).resolve().parents[2]
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=5)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def versions() -> dict[str, str]:
    """The versions of nop-sim, Python and the libraries results depend on."""
    return {"nop_sim": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "numba": numba.__version__, "pandas": pd.__version__,
            "pyarrow": pyarrow.__version__}
