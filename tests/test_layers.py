"""Imports point downward (STYLE.md): the import-linter contracts in pyproject.toml hold.

The store (:mod:`nop_sim.store`) sits below the games: their analyses read a run
folder through it, and nothing below the runner imports the runner.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold():
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if lint is None:
        pytest.skip("import-linter is not installed")
    res = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": str(Path(sys.executable).parent)})
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]


def test_the_store_loads_without_any_game():
    code = ("import sys, nop_sim.store; "
            "sys.exit(any(m.startswith(('nop_sim.games', 'nop_sim.run')) for m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT)}).returncode == 0


def test_no_import_circle_counting_imports_inside_functions():
    grimp = pytest.importorskip("grimp")
    sys.path.insert(0, str(ROOT))
    try:
        graph = grimp.build_graph("nop_sim")
    finally:
        sys.path.remove(str(ROOT))
    circles = [(m, i) for m in sorted(graph.modules)
               for i in graph.find_modules_directly_imported_by(m)
               if graph.chain_exists(importer=i, imported=m)]
    assert not circles, [graph.find_shortest_chain(importer=i, imported=m) for m, i in circles[:3]]
