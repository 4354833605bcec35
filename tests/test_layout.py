"""The package layout holds: one package per game, shared layers below them
(STYLE.md, "Layout"). Read from the sources (imports inside functions count too)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "nop_sim"
GAMES = sorted(p.name for p in (PACKAGE / "games").iterdir()
               if (p / "__init__.py").is_file())


def _imports(path: Path) -> set[str]:
    """The nop_sim modules ``path`` imports, anywhere in it."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m == "nop_sim" or m.startswith("nop_sim.")}


def _modules(folder: Path):
    for path in sorted(folder.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), _imports(path)


def test_no_game_module_at_the_top_level():
    top = {p.name for p in PACKAGE.glob("*.py")}
    assert top == {"__init__.py", "__main__.py", "evaluator.py"}
    assert sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()) == [
        "cli", "core", "games", "kernels", "play", "reporting", "results", "run", "studies"]


def test_the_shipped_games_each_have_a_package():
    assert GAMES == ["kuhn", "new_order", "ordered_hand"]


@pytest.mark.parametrize("game", GAMES)
def test_games_never_import_each_other(game):
    others = [f"nop_sim.games.{g}" for g in GAMES if g != game]
    for name, imported in _modules(PACKAGE / "games" / game):
        bad = sorted(m for m in imported for o in others if m == o or m.startswith(o + "."))
        assert not bad, f"{name} imports another game: {bad}"


def test_core_imports_only_core():
    for name, imported in _modules(PACKAGE / "core"):
        bad = sorted(m for m in imported
                     if m != "nop_sim.core" and not m.startswith("nop_sim.core."))
        assert not bad, f"{name} imports above core: {bad}"


def test_the_shared_kernels_import_only_core_and_kernels():
    """The one exception: the cache digest asks the registry which files the games'
    kernels are compiled from (kernels/jit.py, when first needed)."""
    for name, imported in _modules(PACKAGE / "kernels"):
        allowed = {"nop_sim.games"} if name == "kernels/jit.py" else set()
        bad = sorted(m for m in imported - allowed
                     if not m.startswith(("nop_sim.core.", "nop_sim.kernels.")))
        assert not bad, f"{name} imports above the shared kernels: {bad}"


# The jobs every game does, by the module name each game gives them (issue 38, item 5):
# a reader who knows one game's package finds the same job under the same name in another.
SHARED_JOBS = {
    "game": "the registry's descriptor",
    "settings": "the validated, frozen settings of a scenario's [game] table",
    "engine": "plays matches in batches",
    "policy": "the agents' parameters as a policy space",
    "history": "logged events as records and readable histories",
    "referee": "replays a log and checks every rule",
    "analysis": "the run's tables into findings",
    "report": "the balance report",
    "types": "the constants the kernels and Python share",
}


@pytest.mark.parametrize("game", GAMES)
def test_every_game_names_the_shared_jobs_alike(game):
    folder = PACKAGE / "games" / game
    have = {p.stem for p in folder.glob("*.py")} | {
        p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}
    assert not set(SHARED_JOBS) - have, f"{game} lacks {sorted(set(SHARED_JOBS) - have)}"
    # the old names of these jobs, one game's each, are gone
    assert not {"rules", "events"} & have, f"{game} keeps an old name: {sorted({'rules', 'events'} & have)}"
