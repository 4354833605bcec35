"""Every Python example of docs/notebook.md (and the notebook snippets of README.md and
docs/compare.md) runs, against small runs of the scenarios the doc names: the doc
cannot rot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nop_sim.run.runner import run_scenario
from nop_sim.run.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]
FOLDER = re.compile(r"([\"'])reports/(\w+)\1")


def _blocks(doc: Path, only_with: str | None = None) -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", doc.read_text(encoding="utf-8"), re.DOTALL)
    return [b for b in blocks if only_with is None or only_with in b]


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    """The folders the doc reads, small: name -> folder."""
    root = tmp_path_factory.mktemp("notebook")
    small = ["run.matches=60", "run.chunk=20"]
    made = {
        "baseline": ("baseline.toml", [*small, "run.log_sample=10"]),
        "cap30": ("baseline.toml", [*small, "dart_cap=30"]),
        "ledger_sweep": ("ledger_sweep.toml", ["run.matches=6", "run.chunk=6"]),
    }
    out = {}
    for name, (scenario, overrides) in made.items():
        out[name] = root / name
        run_scenario(load_scenario(ROOT / "scenarios" / scenario, overrides), out[name],
                     workers=1)
    return out


def _run_blocks(blocks: list[str], reports: dict[str, Path], where: str) -> None:
    assert blocks, f"{where}: no Python example found"
    def folder(m: re.Match) -> str:
        assert m.group(2) in reports, f"{where}: an example reads reports/{m.group(2)}"
        return repr(str(reports[m.group(2)]))

    namespace: dict = {}  # one notebook: later examples use what earlier ones made
    for i, block in enumerate(blocks):
        exec(compile(FOLDER.sub(folder, block), f"{where} example {i + 1}", "exec"),
             namespace)


def test_every_example_of_the_notebook_doc_runs(reports, capsys):
    blocks = _blocks(ROOT / "docs" / "notebook.md")
    assert len(blocks) >= 12
    _run_blocks(blocks, reports, "docs/notebook.md")
    # every public table function of the analysis is shown at least once
    from nop_sim.games.new_order import analysis as A

    text = "\n".join(blocks)
    tables = [n for n in A.__all__ if callable(getattr(A, n)) and n not in (
        "RunData", "MissingData", "default_baseline", "simulate_baseline_wins", "showdown_size",
        "column_positions")]
    missing = [n for n in tables if f"A.{n}(" not in text]
    assert not missing, f"docs/notebook.md shows no example of {missing}"


def test_the_readme_and_compare_doc_notebook_snippets_run(reports):
    _run_blocks(_blocks(ROOT / "README.md", "analysis"), reports, "README.md")
    _run_blocks(_blocks(ROOT / "docs" / "compare.md", "analysis"), reports, "docs/compare.md")
    readme = (ROOT / "README.md").read_text()
    assert "docs/notebook.md" in readme
