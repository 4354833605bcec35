"""Split pyproject.toml's requirements for make's install: what the kernels' compile
imports first, the rest to install while it compiles (issue 37: the first report).

``nop-sim compile --runs`` is the longest step of a fresh clone's first ``make run``
(the match driver alone compiles for over a minute on one core). It imports only
:data:`COMPILE_NEEDS` (and the standard library), so make installs those and nop-sim
itself (``--no-deps``) first, starts the compile, and installs the rest beside it:

    python scripts/install_order.py DIR   # writes DIR/compile.txt and DIR/rest.txt

``compile.txt``: the runtime requirements named in :data:`COMPILE_NEEDS`, as
pyproject.toml states them. ``rest.txt``: every other runtime requirement and the
``dev`` extra's (installed by name: reinstalling nop-sim itself under a compile
that imports it is not safe). tests/test_runner.py checks that the compile imports
nothing else.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

# the distributions the compile's import chain loads (their own dependencies follow):
# numba imports scipy when it is there, so scipy comes first rather than half-installed
# under an import; pandas, pyarrow and tomli-w (6.7 of the 16 s these took) load only
# inside the functions that use them
COMPILE_NEEDS = ("numpy", "numba", "scipy", "click")


def name_of(requirement: str) -> str:
    """A requirement's distribution name, normalised (``tomli_w>=1`` -> ``tomli-w``)."""
    return re.split(r"[\s\[<>=!~;]", requirement.strip(), maxsplit=1)[0].lower().replace(
        "_", "-")


def split(pyproject: Path) -> tuple[list[str], list[str]]:
    project = tomllib.loads(pyproject.read_text())["project"]
    runtime = project["dependencies"]
    first = [r for r in runtime if name_of(r) in COMPILE_NEEDS]
    missing = set(COMPILE_NEEDS) - {name_of(r) for r in first}
    if missing:
        raise SystemExit(f"{pyproject}: [project] dependencies lack {sorted(missing)}, which "
                         f"scripts/install_order.py's COMPILE_NEEDS names")
    rest = [r for r in runtime if name_of(r) not in COMPILE_NEEDS]
    return first, rest + project["optional-dependencies"]["dev"]


def main() -> None:
    out = Path(sys.argv[1])
    first, rest = split(Path(__file__).resolve().parents[1] / "pyproject.toml")
    (out / "compile.txt").write_text("\n".join(first) + "\n")
    (out / "rest.txt").write_text("\n".join(rest) + "\n")


if __name__ == "__main__":
    main()
