"""Generic code reaches the games through the registry (issue 38, item 3: a plugin
boundary that holds): no module of ``nop_sim`` takes a private name (``_x``) out of
another package, and none outside ``nop_sim/games/`` writes a registered game's kind as
a literal.

The check reads the source (``ast``), as tests/test_layers.py does for its rules:

* an import (``from nop_sim.p import _x``, ``import nop_sim.p._m``) whose private name
  lives in a package other than the importer's own;
* an attribute ``A._x`` of a name ``A`` that such an import bound (a module, a class),
  or of a module named in full (``nop_sim.p.m._x``);
* a string (not a docstring) that is a registered kind, or holds one in quotes (a
  scenario's ``kind = "..."`` written into a text).

A package is the folder of the module, its subpackages apart (``studies/train/`` is not
``studies/``), with one exception: a game's package is one package with its subpackages,
since it holds everything of that one game (STYLE.md, "Layout"), its kernels included,
which stay private to the game's engine (STYLE.md, "Naming": "kernels stay private").
Names with two underscores on both sides (``__version__``) are not private.

That generic code imports no game's own package is an import-linter contract
(pyproject.toml, run by tests/test_layers.py). Which games there are comes from the
registry, so a game added later is covered without editing this file.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from nop_sim.games import game_kinds, get_game

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT / "nop_sim" / "games"

def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_of(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _unit(package: str) -> str:
    """The package whose own a private name is: a game's whole package for any of its
    subpackages (``nop_sim.games.new_order.kernels`` -> ``nop_sim.games.new_order``), else
    the package itself."""
    parts = package.split(".")
    if parts[:2] == ["nop_sim", "games"] and len(parts) > 2 \
            and (GAMES / parts[2] / "__init__.py").exists():
        return ".".join(parts[:3])
    return package


def _home(source: str) -> str:
    """The package whose names ``from source import ...`` takes: ``source`` itself when it
    is a package of this tree, else the package of the module ``source``."""
    folder = ROOT.joinpath(*source.split("."))
    return source if (folder / "__init__.py").exists() else source.rpartition(".")[0]


def _resolve(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[:len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _docstrings(tree: ast.Module) -> set[int]:
    """ids of the string nodes that are docstrings (module, class, function)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                found.add(id(body[0].value))
    return found


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` of an attribute chain of plain names, else None."""
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(names)])


def boundary_faults(path: Path, root: Path, kinds: tuple[str, ...]) -> list[str]:
    """``file:line what`` for each private name taken across packages and each kind literal
    (none checked where ``kinds`` is empty)."""
    module = _module_of(path, root)
    package = _package_of(module, path)
    tree = ast.parse(path.read_text())
    where = path.relative_to(root)
    faults: list[str] = []
    bound: dict[str, str] = {}  # a name an import of nop_sim bound -> the package it came from

    def foreign(source: str) -> bool:
        return source.split(".")[0] == "nop_sim" and _unit(source) != _unit(package)

    def private_module(dotted: str, line: int) -> None:
        parts = dotted.split(".")
        for i, part in enumerate(parts):
            if _private(part):
                name = ".".join(parts[:i + 1])
                if foreign(".".join(parts[:i])):
                    faults.append(f"{where}:{line} imports the private module {name}")
                return

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _resolve(node, package)
            if source.split(".")[0] != "nop_sim":
                continue
            private_module(source, node.lineno)
            home = _home(source)
            for alias in node.names:
                if _private(alias.name) and foreign(home):
                    faults.append(f"{where}:{node.lineno} imports {source}.{alias.name}")
                bound[alias.asname or alias.name] = home
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] != "nop_sim":
                    continue
                private_module(alias.name, node.lineno)
                if alias.asname:
                    bound[alias.asname] = alias.name.rpartition(".")[0]
    docs = _docstrings(tree)
    quoted = tuple(f'"{k}"' for k in kinds) + tuple(f"'{k}'" for k in kinds)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) \
                and isinstance(node.value, ast.Name) and node.value.id in bound \
                and foreign(bound[node.value.id]):
            faults.append(f"{where}:{node.lineno} reads {node.value.id}.{node.attr} "
                          f"({bound[node.value.id]})")
        elif isinstance(node, ast.Attribute) and _private(node.attr) \
                and (owner := _dotted(node.value)) and owner.startswith("nop_sim.") \
                and foreign(_home(owner)):  # a module named in full: nop_sim.p.m._x
            faults.append(f"{where}:{node.lineno} reads {owner}.{node.attr}")
        elif kinds and isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docs \
                and (node.value in kinds or any(q in node.value for q in quoted)):
            faults.append(f"{where}:{node.lineno} names the game {node.value[:40]!r}")
    return faults


def _files() -> list[Path]:
    return sorted((ROOT / "nop_sim").rglob("*.py"))


def test_no_private_name_crosses_a_package():
    faults = [f for p in _files() for f in boundary_faults(p, ROOT, ())]
    assert len(_files()) > 100  # the whole package is read
    assert not faults, "private names taken from another package:\n" + "\n".join(faults)


def test_no_game_is_named_outside_the_games():
    kinds = game_kinds()
    assert kinds, "no game is registered"
    outside = [p for p in _files() if GAMES not in p.parents]
    assert any(p.parts[-2] == "cli" for p in outside)  # the CLI, the results, ... are read
    faults = [f for p in outside for f in boundary_faults(p, ROOT, kinds)
              if "names the game" in f]
    assert not faults, "game kinds written outside nop_sim/games/:\n" + "\n".join(faults)


@pytest.mark.parametrize("source, expected", [
    ("from nop_sim.evaluator import _build_tables\n", ["imports nop_sim.evaluator._build_tables"]),
    ("from nop_sim.games.new_order import analysis as A\nA._gini_rows(1)\n",
     ["reads A._gini_rows (nop_sim.games.new_order)"]),
    ("import nop_sim.games.new_order.analysis as A\nA._per_match(1, 2)\n",
     ["reads A._per_match (nop_sim.games.new_order)"]),
    ("from nop_sim.games.new_order.analysis import RunData\nRunData._points_by_id\n",
     ["reads RunData._points_by_id (nop_sim.games.new_order)"]),
    ("from nop_sim.studies.train.search import _joined\n",  # a subpackage is another
     ["imports nop_sim.studies.train.search._joined"]),
    ("from nop_sim.games import _private_module\n", ["imports nop_sim.games._private_module"]),
    ("import nop_sim.games._secret.rules\n", ["imports the private module nop_sim.games._secret"]),
    ("from nop_sim.kernels._jit import jit\n", ["imports the private module nop_sim.kernels._jit"]),
    ("KIND = 'new-order'\n", ["names the game 'new-order'"]),
    ('TOML = """[game]\\nkind = "ordered-hand"\\n"""\n', ["names the game"]),
    ('def f(run):\n    return run.get("kind", "kuhn3")\n', ["names the game 'kuhn3'"]),
    # what stays allowed: its own package's private names, a docstring, a kind of no game
    ("from nop_sim.studies.compare import _threshold\n", []),
    ("from ._helpers import _x\n", []),
    ('"""Plays new-order and "kuhn3" runs."""\nX = "new-order-ish"\n', []),
    ("from nop_sim.kernels.jit import COMPILE_NOTE\n", []),
])
def test_the_boundary_check_catches_a_leak(tmp_path, source, expected):
    _probe(tmp_path, "nop_sim/studies/probe.py", source, expected)


def _probe(tmp_path: Path, where: str, source: str, expected: list[str]) -> None:
    path = tmp_path / where
    path.parent.mkdir(parents=True)
    path.write_text(source)
    faults = boundary_faults(path, tmp_path, ("new-order", "ordered-hand", "kuhn3"))
    assert len(faults) == len(expected), faults
    for fault, want in zip(faults, expected, strict=True):
        assert want in fault, faults


@pytest.mark.parametrize("where, source, expected", [
    # a game's kernels (and referee) are its own: its engine calls their private kernels
    ("nop_sim/games/ordered_hand/engine.py",
     "from nop_sim.games.ordered_hand import kernels as K\nK._play_games()\n", []),
    ("nop_sim/games/ordered_hand/blocks.py",
     "from nop_sim.games.ordered_hand.kernels.blocks import _classify_block\n", []),
    ("nop_sim/games/new_order/table.py",
     "from nop_sim.games.new_order.referee.match import _Referee\n", []),
    # ... but another game's, the shared kernels' and the registry's are not
    ("nop_sim/games/kuhn/engine.py",
     "from nop_sim.games.ordered_hand import kernels as K\nK._play_games()\n",
     ["reads K._play_games (nop_sim.games.ordered_hand)"]),
    ("nop_sim/games/new_order/engine.py", "from nop_sim.kernels.evaluate import _lv\n",
     ["imports nop_sim.kernels.evaluate._lv"]),
    ("nop_sim/games/new_order/game.py", "from nop_sim.games.registry import _GAMES\n",
     ["imports nop_sim.games.registry._GAMES"]),
    # a module named in full, from anywhere
    ("nop_sim/cli/probe.py",
     "import nop_sim.games.new_order.analysis\nnop_sim.games.new_order.analysis._x()\n",
     ["reads nop_sim.games.new_order.analysis._x"]),
    ("nop_sim/results/probe.py", "import nop_sim.core.stats\nnop_sim.core.stats._by_rank\n",
     ["reads nop_sim.core.stats._by_rank"]),
    # the shared kernels' own private names, among themselves
    ("nop_sim/kernels/evaltable.py", "from nop_sim.kernels.evaluate import _lv\n", []),
])
def test_the_boundary_check_knows_a_games_package_from_the_others(tmp_path, where, source,
                                                                 expected):
    _probe(tmp_path, where, source, expected)


@pytest.mark.parametrize("kind", game_kinds())
def test_a_runs_report_is_preloaded_through_the_registry(kind):
    """run/pipeline.py imports a game's report while its run plays, by the name of the module
    beside its ``write_report`` hook (run/ imports no game's package): every game keeps one
    there, or its reports would silently wait for the import."""
    from nop_sim.run.pipeline import import_report  # the runner and Arrow: this test only

    game = get_game(kind)
    import_report(game)
    module = game.write_report.__module__
    if module.startswith("nop_sim."):  # a shipped game keeps its report beside the hook
        assert f"{module.rpartition('.')[0]}.report" in sys.modules
    else:  # a one-file plug-in (the tests' "high-card") holds its report in that file
        assert module in sys.modules
