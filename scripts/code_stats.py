"""Lines per module and the longest functions and classes of nop_sim (for refactoring notes).

    python scripts/code_stats.py            # this checkout
    python scripts/code_stats.py --rev HEAD~5   # another revision, read from git

Prints JSON: ``modules`` (path -> lines), ``longest_functions`` and
``longest_classes`` (the top five of each, with their line counts).
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _sources(rev: str | None) -> dict[str, str]:
    if rev is None:
        return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
                for p in sorted((ROOT / "nop_sim").rglob("*.py"))}
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "nop_sim"], cwd=ROOT,
                           check=True, capture_output=True, text=True).stdout.split()
    return {n: subprocess.run(["git", "show", f"{rev}:{n}"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout
            for n in names if n.endswith(".py")}


def stats(rev: str | None = None, top: int = 5) -> dict:
    modules, functions, classes = {}, [], []
    for path, text in _sources(rev).items():
        modules[path] = len(text.splitlines())
        for node in ast.walk(ast.parse(text)):
            size = (node.end_lineno or node.lineno) - node.lineno + 1 if hasattr(
                node, "lineno") else 0
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.append((size, f"{path}::{node.name}"))
            elif isinstance(node, ast.ClassDef):
                classes.append((size, f"{path}::{node.name}"))
    return {
        "modules": modules,
        "total_lines": sum(modules.values()),
        "longest_functions": [{"name": n, "lines": s} for s, n in sorted(functions)[::-1][:top]],
        "longest_classes": [{"name": n, "lines": s} for s, n in sorted(classes)[::-1][:top]],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", help="a git revision instead of the working tree")
    args = parser.parse_args()
    print(json.dumps(stats(args.rev), indent=1))


if __name__ == "__main__":
    main()
