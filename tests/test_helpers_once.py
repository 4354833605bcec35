"""Each shared helper exists once (STYLE.md: "Two copies that differ slightly are
the worst kind"). A second definition anywhere in ``nop_sim`` fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "nop_sim"

# pattern -> the one module (relative to nop_sim/) allowed to hold it
ONCE = {
    r"get_close_matches": "core/errors.py",
    r"^\s*class\s+SettingsError\b": "core/errors.py",
    r"^\s*class\s+RuleViolation\b": "core/errors.py",
    r"^\s*def\s+\w*(md|markdown)_table\b|:---|\"---\"": "reporting/render.py",
    r"^\s*def\s+(wilson\w*|\w*_interval|mean_half_width|_z)\s*\(|Z95|1\.959": "core/stats.py",
    r"^\s*FLUSH_FIVE\s*=\s*\d|^\s*HIGH_CARD\s*=\s*\d|N_CATEGORIES\s*=\s*13": "core/types.py",
    # the plain-Python five-card classifier (the kernels have their own, checked against it)
    r"^\s*def\s+(py_)?classify_(five|ranks)\b|== \(14, 5, 4, 3, 2\)|== \[2, 3, 4, 5, 14\]":
        "core/hand_reference.py",
    r"^\s*def\s+_?(rand_)?below\b": "kernels/rng.py",
    r"^\s*def\s+_?\w*_reference\b": "",  # oracles live in tests/, not in the package
    r"\.generate_state\(4\b": "kernels/rng.py",  # xoshiro chunk states: seed_states
    r"^\s*def\s+seat_label\b|\.get\(\"preset\", \"": "games/registry.py",
    # seats are named one way, counting from 0 as the tables do
    r"^\s*def\s+seat_names?\b|Seat \{": "games/registry.py",
    r"^\s*class\s+FolderBusy\b": "core/errors.py",
    # what a TOML file the user wrote gets wrong (a key given twice named with its table)
    r"^\s*def\s+toml_problem\b|Cannot overwrite a value": "core/errors.py",
}


def _holders(pattern: str) -> list[str]:
    rx = re.compile(pattern, re.MULTILINE)
    return sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                  if rx.search(p.read_text(encoding="utf-8")))


@pytest.mark.parametrize("pattern", list(ONCE))
def test_a_shared_helper_is_defined_in_one_module(pattern):
    assert _holders(pattern) == ([ONCE[pattern]] if ONCE[pattern] else [])


def _exception_classes(path: Path) -> list[str]:
    """Classes in ``path`` whose bases name an exception (``...Error``, ``...Exception``,
    ``MissingData`` style subclasses of ours are caught by their ``Error`` base)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            bases = [ast.unparse(b) for b in node.bases]
            if any(re.search(r"(Error|Exception|Warning)$", b) for b in bases):
                found.append(node.name)
    return found


def test_every_error_class_lives_in_core_errors():
    # cli/common.py's click exceptions (_Failure) are how the command line prints an error, not
    # errors the package raises; core/errors.py cannot import click.
    outside = {str(p.relative_to(PACKAGE)): _exception_classes(p) for p in PACKAGE.rglob("*.py")
               if p.relative_to(PACKAGE).as_posix() not in ("core/errors.py", "cli/common.py")}
    assert {k: v for k, v in outside.items() if v} == {}
    from nop_sim.core import errors

    for name in errors.__all__:
        obj = getattr(errors, name)
        assert not isinstance(obj, type) or issubclass(obj, Exception), name


def test_old_import_paths_still_work():
    from nop_sim.core import errors
    from nop_sim.games.new_order.referee import RuleViolation
    from nop_sim.games.new_order.settings import SettingsError
    from nop_sim.games.ordered_hand import SettingsError as OrderedSettingsError
    from nop_sim.games.ordered_hand.referee import RuleViolation as OrderedRuleViolation
    from nop_sim.games.ordered_hand.settings import SettingsError as OrderedSettingsError2

    assert SettingsError is OrderedSettingsError is OrderedSettingsError2 is errors.SettingsError
    assert RuleViolation is OrderedRuleViolation is errors.RuleViolation
    assert issubclass(errors.SettingsError, ValueError)
    assert issubclass(errors.RuleViolation, AssertionError)

    from nop_sim.games.new_order.agents import AgentError
    from nop_sim.games.new_order.analysis import MissingData
    from nop_sim.games.new_order.disruptors import MixError
    from nop_sim.run.runner import RunError
    from nop_sim.run.scenario import ScenarioError
    from nop_sim.studies.compare import CompareError
    from nop_sim.studies.sensitivity import SensitivityError
    from nop_sim.studies.train import TrainError
    from nop_sim.studies.tune import TuneError

    assert (AgentError, MissingData, MixError, RunError, ScenarioError, CompareError,
            SensitivityError, TrainError, TuneError) == (
        errors.AgentError, errors.MissingData, errors.MixError, errors.RunError,
        errors.ScenarioError, errors.CompareError, errors.SensitivityError, errors.TrainError,
        errors.TuneError)
    assert str(MissingData("no table")) == "no table"  # a sentence, not KeyError's repr


def test_did_you_mean():
    from nop_sim.core.errors import did_you_mean

    assert did_you_mean("playerz", ("players", "chips")) == " Did you mean 'players'?"
    assert did_you_mean("zzz", ("players", "chips")) == ""


def test_seat_labels_agree_across_games():
    from nop_sim.games import get_game

    for kind, base in (("new-order", "balanced"), ("ordered-hand", "low")):
        label = get_game(kind).seat_label
        assert label(" High ") == "high"
        assert label({"bluff": 0.1}) == f"{base}(bluff=0.1)"
        assert label({"preset": "Maniac", "x": 1}) == "maniac(x=1)"
        assert label({"preset": "tight"}) == "tight"


def test_both_games_take_mean_intervals_from_stats():
    import numpy as np
    import pandas as pd

    from nop_sim.core.stats import mean_interval
    from nop_sim.games.ordered_hand.analysis import game_length

    x = np.array([3.0, 5.0, 9.0, 4.0])
    m = pd.DataFrame({"point": 0, "turns": x, "cards_drawn": x})
    row = game_length({"matches": m}).iloc[0]
    want = mean_interval(x)
    assert row["turns_mean_ci"] == pytest.approx(want["ci_high"] - want["mean"], rel=1e-12)


def test_the_referees_share_the_five_card_reference():
    from nop_sim.core import hand_reference
    from nop_sim.games.new_order import referee
    from nop_sim.games.ordered_hand import referee as ordered_referee

    assert ordered_referee.py_classify_five is hand_reference.classify_five
    assert referee.classify_ranks is hand_reference.classify_ranks
