"""The share of imports that sit inside functions, and each one outside the CLI with its reason.

STYLE.md: import at the top of a module; an import inside a function needs a one-line
reason (start-up time, a heavy optional library loaded only on the path that needs it),
and never hides a circle. Issue 38 asks for at most 5% outside the CLI. Counted by the
AST: every ``import`` and ``from ... import`` statement of ``nop_sim/`` (``__future__``
left out), and every call that imports by name (``importlib.import_module``, ``__import__``,
``lazy_loader.load``), inside a function or a method when any enclosing node is one: a
module's PEP 562 ``__getattr__`` or the registry's resolver of a game's functions by
dotted name imports inside a function as surely as an ``import`` statement there does,
while ``lazy_loader.load`` at a module's top declares its import there (SPEC 1), deferred
to first use. A reason is a comment on the import's line or the line above, or the
module's own comment ``# Imports inside functions: <why>``; tests/test_layers.py holds it
for nop_sim's own modules.

Usage::

    python scripts/inner_imports.py          # the shares, then each inner import outside the CLI
    python scripts/inner_imports.py --short  # the shares only
    python scripts/inner_imports.py --root ../other-checkout --short
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULE_REASON = "# Imports inside functions:"
# calls that import a module by name: ``importlib.import_module(...)``, ``import_module(...)``,
# ``__import__(...)``, ``lazy_loader.load(...)`` (also as ``lazy.load``)
IMPORT_CALLS = {"import_module", "__import__", "lazy.load", "lazy_loader.load"}


@dataclass(frozen=True)
class Import:
    path: str      # relative to the repository
    line: int
    names: str     # what it imports, as written
    inner: bool    # inside a function or method
    reason: str    # the comment that says why ("" where none)


def _is_cli(path: str) -> bool:
    return path == "nop_sim/cli.py" or path.startswith("nop_sim/cli/")


def _reason(lines: list[str], run: list[ast.stmt], module_reason: str) -> str:
    """The comment that says why a run of imports (consecutive import statements) sits in
    a function: on any of its lines or the line above (as tests/test_layers.py reads it),
    else the module's own reason."""
    for i in range(run[0].lineno - 2, run[-1].end_lineno):
        if 0 <= i < len(lines) and "#" in lines[i]:
            text = lines[i].split("#", 1)[1].strip()
            if text.startswith("noqa"):  # "noqa: F401 - why" or "noqa: F401  (why)"
                text = text.split(None, 2)[2].strip(" -()") if len(text.split(None, 2)) > 2 else ""
            if text:
                return text
    return module_reason


def _is_import_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    name = ast.unparse(node.func)
    return name in IMPORT_CALLS or name.rsplit(".", 1)[-1] == "import_module"


def imports_of(path: Path, root: Path = ROOT) -> list[Import]:
    """Every import statement of one file, each marked inner or not."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    module_reason = next((ln.split(":", 1)[1].strip() for ln in lines
                          if ln.startswith(MODULE_REASON)), "")
    rel = path.relative_to(root).as_posix()
    found: list[Import] = []

    def walk(node: ast.AST, inner: bool) -> None:
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            run: list[ast.stmt] = []
            for stmt in [*body, None] if isinstance(body, list) else []:
                if isinstance(stmt, ast.Import | ast.ImportFrom):
                    run.append(stmt)
                    continue
                for imp in run:
                    if isinstance(imp, ast.ImportFrom) and imp.module == "__future__":
                        continue
                    found.append(Import(rel, imp.lineno, ast.unparse(imp), inner,
                                        _reason(lines, run, module_reason) if inner else ""))
                run = []
        for child in ast.iter_child_nodes(node):
            child_inner = inner or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef
                                              | ast.Lambda)
            if _is_import_call(child):
                found.append(Import(rel, child.lineno, ast.unparse(child), child_inner,
                                    _reason(lines, [child], module_reason) if child_inner
                                    else ""))
            walk(child, child_inner)

    walk(ast.parse(text), False)
    return sorted(found, key=lambda i: i.line)


def all_imports(root: Path = ROOT) -> list[Import]:
    return [i for p in sorted((root / "nop_sim").rglob("*.py")) for i in imports_of(p, root)]


def share(imports: list[Import]) -> tuple[int, int, float]:
    inner = sum(i.inner for i in imports)
    return inner, len(imports), (inner / len(imports) if imports else 0.0)


def main(argv: list[str]) -> int:
    root = Path(argv[argv.index("--root") + 1]).resolve() if "--root" in argv else ROOT
    imports = all_imports(root)
    outside = [i for i in imports if not _is_cli(i.path)]
    for label, group in (("overall", imports), ("outside the CLI", outside),
                         ("the CLI", [i for i in imports if _is_cli(i.path)])):
        inner, total, frac = share(group)
        print(f"{label:<16} {inner:4d} of {total:4d} imports inside functions: {100 * frac:4.1f}%")
    if "--short" in argv:
        return 0
    print("\ninside functions, outside the CLI (file:line  import  # reason):")
    for i in (i for i in outside if i.inner):
        print(f"  {i.path}:{i.line}  {i.names}  # {i.reason or 'NO REASON GIVEN'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
