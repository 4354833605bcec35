"""Imports point downward (STYLE.md): the import-linter contracts in pyproject.toml hold.

The store and the run data (:mod:`nop_sim.results.store`, :mod:`nop_sim.results.run_data`)
sit below the games: their analyses read a run folder through them, and nothing below the
runner imports the runner. Modules
import at the top wherever the layers allow; an import of nop_sim kept inside a
function says why in one line (a comment on or above it, or a module comment
``# Imports inside functions: <why>``).
"""

from __future__ import annotations

import ast
import pickle
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path

import pytest

from nop_sim.core.errors import did_you_mean
from nop_sim.games import registered_games
from nop_sim.games.registry import Deferred, RegretTrainer

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold():
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if lint is None:
        pytest.skip("import-linter is not installed")
    res = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": str(Path(sys.executable).parent)})
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]


@pytest.mark.parametrize("module", ["nop_sim.results.store", "nop_sim.results.run_data"])
def test_the_store_and_the_run_data_load_without_any_game(module):
    code = (f"import sys, {module}; "
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


MODULE_REASON = "# Imports inside functions:"


def _internal(node: ast.stmt) -> bool:
    if isinstance(node, ast.ImportFrom):
        return node.level > 0 or (node.module or "").split(".")[0] == "nop_sim"
    return isinstance(node, ast.Import) and any(
        a.name.split(".")[0] == "nop_sim" for a in node.names)


def unexplained_imports(path: Path) -> list[str]:
    """``file:line`` of each nop_sim import inside a function that gives no reason."""
    text = path.read_text()
    if MODULE_REASON in text:
        return []
    lines = text.splitlines()
    found = []
    for fn in ast.walk(ast.parse(text)):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for body in (getattr(n, f, None) for n in ast.walk(fn) for f in ("body", "orelse")):
            if not isinstance(body, list):
                continue
            run: list[ast.stmt] = []
            for stmt in [*body, None]:
                if isinstance(stmt, ast.Import | ast.ImportFrom):
                    run.append(stmt)
                    continue
                if any(_internal(s) for s in run):
                    span = lines[run[0].lineno - 2:run[-1].end_lineno]
                    if not any("#" in line for line in span):
                        found.extend(f"{path.relative_to(ROOT)}:{s.lineno}"
                                     for s in run if _internal(s))
                run = []
    return sorted(set(found))


def test_imports_inside_functions_say_why():
    missing = [m for p in sorted((ROOT / "nop_sim").rglob("*.py")) for m in unexplained_imports(p)]
    assert not missing, missing


def test_the_import_reason_check_catches_a_silent_import(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    silent = tmp_path / "silent.py"
    silent.write_text("def f():\n    x = 1\n    from nop_sim.core import cards\n    return cards\n")
    said = tmp_path / "said.py"
    said.write_text("def f():\n    x = 1\n    # numba: start-up\n    from nop_sim import evaluator\n"
                    "    import numpy\n    return evaluator\n")
    outside = tmp_path / "outside.py"
    outside.write_text("def f():\n    import numpy\n    return numpy\n")
    assert unexplained_imports(silent) == ["silent.py:3"]
    assert unexplained_imports(said) == [] and unexplained_imports(outside) == []


# Command bodies still over the limit, each with the reason it could not be cut yet (none).
LONG_COMMANDS: dict[str, str] = {}
COMMAND_LINES = 40


def _command_decorator(func: ast.expr) -> bool:
    """``@command(...)``, ``@command_group(...)`` (nop_sim/cli/common.py) or click's
    ``@x.command(...)``, ``@x.group(...)``."""
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in ("command", "group", "command_group")


def command_body_lines(path: Path) -> dict[str, int]:
    """Each click command's (or group's) body in lines, its docstring left out: a command
    parses, calls one function and prints (STYLE.md, pip-compile's 400-line ``cli()`` the
    counter-example)."""
    found = {}
    for fn in ast.walk(ast.parse(path.read_text())):
        if not isinstance(fn, ast.FunctionDef) or not any(
                isinstance(d, ast.Call) and _command_decorator(d.func) for d in fn.decorator_list):
            continue
        body = fn.body
        if (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            body = body[1:]
        found[fn.name] = body[-1].end_lineno - body[0].lineno + 1 if body else 0
    return found


def test_no_command_body_is_over_40_lines():
    lines = {}
    for path in sorted((ROOT / "nop_sim" / "cli").glob("*.py")):  # every command module
        lines.update(command_body_lines(path))
    assert len(lines) >= 15 and {"run_cmd", "sweep_cmd", "train_cmd", "value_cmd"} <= set(lines)
    long = {name: n for name, n in lines.items()
            if n > COMMAND_LINES and name not in LONG_COMMANDS}
    assert not long, f"command bodies over {COMMAND_LINES} lines: {long}"
    assert not set(LONG_COMMANDS) - {n for n, k in lines.items() if k > COMMAND_LINES}, \
        "a command listed as long is short now: take it off LONG_COMMANDS"


def test_registering_the_games_loads_no_numba_matplotlib_or_scipy():
    """A game names what loads them by dotted name (``registry.Deferred``), so asking the
    registry (``import nop_sim.games``) costs none of them."""
    code = ("import sys, nop_sim.games; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'numba', 'matplotlib', 'scipy'}))")
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT)})
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == "[]"


def _named_functions(game):
    """``(field, Deferred)`` of every function a game and its policy space name by dotted name."""
    for holder in (game, game.policy):
        for f in fields(holder) if holder is not None else ():
            value = getattr(holder, f.name)
            for v in value.values() if isinstance(value, Mapping) else (value,):
                if isinstance(v, Deferred):
                    yield f.name, v


def test_every_function_a_game_names_resolves_and_hides_no_circle():
    """A function named by its dotted name is imported on first call: it must exist, and
    its module must not import the module that declares the game (a circle that
    import-linter and the circle test above cannot see)."""
    grimp = pytest.importorskip("grimp")
    sys.path.insert(0, str(ROOT))
    try:
        graph = grimp.build_graph("nop_sim")
    finally:
        sys.path.remove(str(ROOT))
    # the shipped games, each with the module that declares it (a test may register others)
    shipped = {m: mod.GAME for m, mod in list(sys.modules.items())
               if m.startswith("nop_sim.games.") and getattr(mod, "GAME", None) in registered_games()}
    assert len(shipped) >= 3, sorted(shipped)
    named = 0
    for declared, game in shipped.items():
        for name, fn in _named_functions(game):
            named += 1
            # a function, or an object named as one is (a game's RegretTrainer)
            assert callable(fn.resolve()) or isinstance(fn.resolve(), RegretTrainer), (
                game.kind, name, fn)
            assert not graph.chain_exists(importer=fn.__module__, imported=declared), (
                game.kind, name, graph.find_shortest_chain(importer=fn.__module__,
                                                           imported=declared))
    assert named >= 20  # New Order's and Ordered Hand's hooks, Kuhn's report


def test_a_function_named_by_its_dotted_name_is_imported_on_its_first_call():
    fn = Deferred("nop_sim.core.errors:did_you_mean")
    assert (fn.__module__, fn.__name__) == ("nop_sim.core.errors", "did_you_mean")
    assert fn is Deferred("nop_sim.core.errors:did_you_mean")  # one per name
    assert pickle.loads(pickle.dumps(fn)) is fn
    assert fn("colum", ["column"]) == did_you_mean("colum", ["column"]) != ""
    assert fn.resolve() is did_you_mean
    for bad in ("nop_sim.core.errors", "nop_sim.core.errors:", ":did_you_mean", "a:b c"):
        with pytest.raises(ValueError, match="package.module:function"):
            Deferred(bad)
