"""Sensitivity: the design sweep modes and ``nop-sim sensitivity`` (issue 13, section 3)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.run.runner import run_scenario
from nop_sim.run.scenario import DESIGN_MODES, ScenarioError, SweepAxis, _from_unit, load_scenario
from nop_sim.studies.sensitivity import Study, sensitivity, sensitivity_indices

BASE = """
name = "sens"
[game]
players = {players}
{game}
[seats]
rotate = ["balanced", "maniac", "hedger"]
[run]
matches = {matches}
chunk = {chunk}
seed = 7
"""

AXES = """
chips = {from = 20, to = 200}
hedge_cost = {from = 0, to = 15}
fee_to = ["pot", "bank"]
dart_step = [0, 1, 2]
"""


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def scenario(tmp_path, sweep: str, matches: int = 2, chunk: int = 2, name: str = "s.toml",
             game: str = "", players: int = 3):
    text = BASE.format(matches=matches, chunk=chunk, players=players, game=game)
    return load_scenario(write(tmp_path, text + "[sweep]\n" + sweep, name))


def run(tmp_path, sweep: str, folder: str, **kwargs) -> Path:
    out = tmp_path / folder
    run_scenario(scenario(tmp_path, sweep, name=f"{folder}.toml", **kwargs), out, workers=1)
    return out


def invoke(*args):
    res = CliRunner().invoke(main, [str(a) for a in args])
    return res.exit_code, res.output


# -- sweep modes ----------------------------------------------------------------------------
def _digest(points) -> str:
    return hashlib.sha256(json.dumps(points, sort_keys=True).encode()).hexdigest()[:16]


def test_lhs_and_random_points_of_a_fixed_seed_never_change(tmp_path):
    """Resumed runs find their points again: lhs and random draw exactly as before the
    design modes were added (digests taken on main before the change)."""
    lhs = scenario(tmp_path, "mode = 'lhs'\nsamples = 6\n" + AXES)
    rnd = scenario(tmp_path, "mode = 'random'\nsamples = 6\n" + AXES)
    assert _digest(lhs.points()) == LHS_DIGEST, lhs.points()
    assert _digest(rnd.points()) == RANDOM_DIGEST, rnd.points()


LHS_DIGEST = "2cc843f0df07bbe1"
RANDOM_DIGEST = "4aa070b81f820f66"


@pytest.mark.parametrize("mode", DESIGN_MODES)
def test_design_modes_give_deterministic_points_within_bounds(tmp_path, mode):
    scn = scenario(tmp_path, f"mode = '{mode}'\nsamples = 8\n" + AXES)
    points = scn.points()
    assert len(points) == {"sobol": 8 * (4 + 2)}.get(mode, 8)
    assert points == scenario(tmp_path, f"mode = '{mode}'\nsamples = 8\n" + AXES).points()
    other = load_scenario(write(tmp_path, scn.text.replace("seed = 7", "seed = 8")))
    assert other.points() != points
    for p in points:
        assert isinstance(p["chips"], int) and 20 <= p["chips"] <= 200
        assert isinstance(p["hedge_cost"], int) and 0 <= p["hedge_cost"] <= 15
        assert p["fee_to"] in ("pot", "bank") and p["dart_step"] in (0, 1, 2)
    unit = scn.unit_design()
    assert unit.shape == (len(points), 4) and ((unit >= 0) & (unit < 1)).all()
    if mode != "sobol":  # both are Latin: each eighth of every axis holds one point
        for column in unit.T:
            assert sorted((column * 8).astype(int)) == list(range(8))


def test_a_real_range_maps_like_lhs():
    axis = SweepAxis("x", (), 5.0, 30.0, integer=False)
    assert _from_unit(axis, np.array([0.0, 0.5, 0.999])) == [5.0, 17.5, pytest.approx(29.975)]
    ints = SweepAxis("n", (), 1, 4, integer=True)
    assert _from_unit(ints, np.array([0.0, 0.249, 0.25, 0.999])) == [1, 1, 2, 4]


def test_sobol_sample_counts_and_rounding(tmp_path):
    assert len(scenario(tmp_path, "mode = 'qmc-sobol'\nsamples = 5\n" + AXES).points()) == 8
    assert len(scenario(tmp_path, "mode = 'lhs-cd'\nsamples = 5\n" + AXES).points()) == 5
    second = scenario(tmp_path, "mode = 'sobol'\nsamples = 4\nsecond_order = true\n" + AXES)
    assert len(second.points()) == 4 * (2 * 4 + 2)
    with pytest.raises(ScenarioError, match="second_order"):
        scenario(tmp_path, "mode = 'lhs'\nsamples = 4\nsecond_order = true\n" + AXES)
    with pytest.raises(ScenarioError, match="true or false"):
        scenario(tmp_path, "mode = 'sobol'\nsamples = 4\nsecond_order = 'yes'\n" + AXES)
    with pytest.raises(ScenarioError, match="Did you mean 'sobol'"):
        scenario(tmp_path, "mode = 'sobl'\nsamples = 4\n" + AXES)
    with pytest.raises(ScenarioError, match="samples"):
        scenario(tmp_path, "mode = 'sobol'\n" + AXES)


# -- indices --------------------------------------------------------------------------------
# dart_step is inert when no promotion is ever allowed: the dart never moves
INERT = "mode = 'sobol'\nsamples = 8\nchips = {from = 20, to = 120}\ndart_step = {from = 1, to = 4}\n"


@pytest.fixture(scope="module")
def sobol_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sobol")
    return run(tmp, INERT, "inert", matches=100, chunk=50, game="promotions_per_action = 0")


def test_an_inert_knob_has_a_total_index_whose_interval_includes_0(sobol_run):
    s = sensitivity(sobol_run, resamples=200)
    t = s.table.set_index(["metric", "knob", "index"])
    inert = t.loc[("median_hands", "dart_step", "ST")]
    assert inert["ci_low"] <= 0 <= inert["ci_high"], inert
    chips = t.loc[("median_hands", "chips", "ST")]
    assert chips["ci_low"] > 0, chips
    assert s.findings()[0].startswith("chips matters most for")
    total = s.table[(s.table["knob"] == "dart_step") & (s.table["index"] == "ST")]
    assert not (total["verdict"] == "matters").any(), total


def test_cli_writes_table_and_report(sobol_run, tmp_path):
    code, output = invoke("sensitivity", sobol_run, "--out", tmp_path / "sens",
                          "--resamples", 50)
    assert code == 0, output
    assert "chips matters most for median_hands" in output
    table = (tmp_path / "sens" / "sensitivity.csv").read_text().splitlines()
    assert table[0] == ("metric,knob,index,value,ci_low,ci_high,noise_share,noise_level,"
                        "verdict")
    html = (tmp_path / "sens" / "report.html").read_text()
    assert "What matters for what" in html and "Simulation noise" in html
    assert "could not be built" not in html
    assert (tmp_path / "sens" / "figures" / "indices_median_hands.png").exists()


def test_delta_index_ranks_a_knob_that_drives_the_metric_first():
    """The delta path on a synthetic sweep: y follows knob a, knob b is noise."""
    rng = np.random.default_rng(3)
    x = rng.random((60, 2))
    metrics = pd.DataFrame({"y": 5 * x[:, 0] + 0.1 * rng.random(60)})
    study = Study(Path("."), "synthetic", "lhs", "delta", ["a", "b"], x, metrics,
                  pd.Series({"y": np.nan}), pd.Series({"y": np.nan}), 0, 10, False, 1)
    table, skipped = sensitivity_indices(study, resamples=10)
    assert not skipped
    t = table.set_index(["knob", "index"])
    assert t.loc[("a", "delta"), "ci_low"] > t.loc[("b", "delta"), "ci_high"]
    assert t.loc[("a", "delta"), "verdict"] == "matters"


@pytest.mark.slow
def test_delta_index_on_a_latin_hypercube(tmp_path):
    out = run(tmp_path, "mode = 'lhs-cd'\nsamples = 40\nchips = {from = 20, to = 120}\n"
              "fee_to = ['pot', 'bank']\n", "lhs", matches=4, chunk=2)
    s = sensitivity(out, resamples=20)
    assert set(s.table["index"]) == {"delta", "S1"}
    assert set(s.table["knob"]) == {"chips", "fee_to"}
    chips = s.table.set_index(["metric", "knob", "index"]).loc[("median_hands", "chips",
                                                                 "delta")]
    assert chips["ci_low"] > 0, chips
    # the game's extra_metrics are outputs too (here left out: too few drafters at
    # some points for any card to count, and said so)
    assert "bluffs_per_hand" in set(s.table["metric"])
    assert "max_disruptor_effect" in s.skipped


def test_bad_input_is_one_line_exit_2(tmp_path):
    no_sweep = tmp_path / "plain"
    run_scenario(load_scenario(write(tmp_path, BASE.format(matches=2, chunk=2, players=3, game=""),
                                              "p.toml")),
                 no_sweep, workers=1)
    one_knob = run(tmp_path, "mode = 'random'\nsamples = 3\nchips = {from = 20, to = 40}\n"
                   "dart_step = [1]\n", "one")
    few = run(tmp_path, "mode = 'random'\nsamples = 4\nchips = {from = 20, to = 40}\n"
              "dart_step = [1, 2]\n", "few")
    few_sobol = run(tmp_path, "mode = 'sobol'\nsamples = 2\nchips = {from = 20, to = 40}\n"
                    "dart_step = [1, 2]\n", "fewsobol")
    grid = run(tmp_path, "chips = [20, 40]\ndart_step = [1, 2]\n", "grid")
    unfinished = tmp_path / "unfinished"
    shutil.copytree(few, unfinished)
    manifest = json.loads((unfinished / "manifest.json").read_text())
    manifest["status"] = "running"
    (unfinished / "manifest.json").write_text(json.dumps(manifest))
    cases = [(tmp_path / "nothing", "not a nop-sim results folder"),
             (no_sweep, "without a [sweep]"),
             (one_knob, "varies 1 setting(s) (chips)"),
             (few, "needs at least 40"),
             (few_sobol, "samples >= 8"),
             (grid, "a grid sweep"),
             (unfinished, "did not finish")]
    for folder, needle in cases:
        code, output = invoke("sensitivity", folder)
        assert code == 2, output
        assert needle in output, output
        assert "Traceback" not in output
        assert len([ln for ln in output.splitlines() if ln.startswith("Error")]) == 1, output


@pytest.mark.slow
def test_four_knob_sobol_study_separates_inert_from_mattering_knobs(tmp_path):
    """A bigger study: dart_step is inert (no promotions), chips drives match length."""
    out = run(tmp_path, "mode = 'sobol'\nsamples = 32\nchips = {from = 20, to = 120}\n"
              "dart_step = {from = 1, to = 4}\nhedge_cost = {from = 1, to = 15}\n"
              "hedge_payout = {from = 5, to = 40}\n", "big", matches=40, chunk=20,
              game="promotions_per_action = 0")
    s = sensitivity(out, resamples=500)
    t = s.table.set_index(["metric", "knob", "index"])
    for metric in s.table["metric"].unique():
        st = t.loc[(metric, "dart_step", "ST")]
        assert st["ci_low"] <= max(0.0, st["noise_share"]) + 0.02, (metric, st)
    assert t.loc[("median_hands", "chips", "ST")]["ci_low"] > 0.2
    assert any(f.startswith("chips matters most for median_hands") for f in s.findings())
    assert np.isfinite(s.table["value"]).all()
