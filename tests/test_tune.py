"""nop-sim tune: the chips answer, determinism over workers, resume after SIGKILL, bad input."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.run.scenario import Scenario, ScenarioError, Target, load_scenario
from nop_sim.studies.tune import TuneConfig, objective, tune_folder

ROOT = Path(__file__).resolve().parents[1]
CHIPS = """
name = "chips_tune"
[game]
players = 4
max_hands = 1000
[seats]
all = "balanced"
[run]
seed = 12
[tune]
chips = [20, 200]
[targets]
median_hands = 60
"""


def _scenario(tmp_path: Path, text: str = CHIPS, name: str = "chips.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# -- the grammar -------------------------------------------------------------------------
def test_targets_take_values_bounds_and_weights():
    scn = Scenario.from_mapping({
        "tune": {"chips": [20, 200], "fee_to": ["pot", "bank"]},
        "targets": {"median_hands": 60, "max_preset_advantage": {"max": 0.03, "weight": 2},
                    "hedge_hit_rate": {"min": 0.2}}})
    assert scn.targets == {"median_hands": 60.0, "max_preset_advantage": 0.03,
                           "hedge_hit_rate": 0.2}  # what sweeps rank by, as before
    kinds = {t.name: (t.kind, t.weight) for t in scn.target_specs}
    assert kinds == {"median_hands": ("value", 1.0), "max_preset_advantage": ("max", 2.0),
                     "hedge_hit_rate": ("min", 1.0)}
    assert [(a.name, a.kind) for a in scn.tune] == [("chips", "int"), ("fee_to", "choice")]
    bound = Target("max_preset_advantage", "max", 0.03)
    assert bound.miss(0.01) == 0 and bound.miss(0.06) == pytest.approx(1.0)
    assert Target("hedge_hit_rate", "min", 0.2).miss(0.1) == pytest.approx(0.5)
    assert objective([Target("median_hands", "value", 60), bound],
                     {"median_hands": 66, "max_preset_advantage": 0.0}) == pytest.approx(0.1)


def test_old_scenarios_still_load_and_rank():
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        load_scenario(path)
    scn = load_scenario(ROOT / "scenarios" / "chips_sweep.toml")
    assert scn.targets == {"median_hands": 60.0, "unresolved_share": 0.0}


def test_target_metrics_agree_with_the_balance_report(tmp_path):
    """Every [targets] name is measured, and the report's key metrics match the analysis."""
    from nop_sim.games import get_game
    from nop_sim.games.new_order import analysis as A
    from nop_sim.results.store import load_tables
    from nop_sim.run.runner import run_scenario

    scn = Scenario.from_mapping({"game": {"chips": 30},
                                 "seats": {"rotate": ["balanced", "maniac", "rock", "station"]},
                                 "run": {"matches": 40, "chunk": 10, "seed": 5}})
    run_scenario(scn, tmp_path / "r", workers=1)
    game = get_game(scn.kind)
    found = game.target_metrics(load_tables(tmp_path / "r"))()
    assert set(found) == set(game.targets)
    row = A.point_metrics(A.load_run(tmp_path / "r"), n_boot=20).iloc[0]
    for name in ("median_hands", "unresolved_share", "max_seat_advantage",
                 "max_preset_advantage", "fee_share", "hedge_hit_rate"):
        assert found[name] == pytest.approx(float(row[name]), nan_ok=True), name


def test_a_share_no_match_reached_gets_the_interval_of_its_count_not_zero_width():
    """Resampling chunks cannot give an interval for a share that is 0 in every chunk: the
    trial states its count's (Wilson: 0 of 64 is at most 5.7%), never [0, 0]."""
    from nop_sim.core.stats import wilson_interval
    from nop_sim.games import get_game
    from nop_sim.run.planning import plan_chunks
    from nop_sim.studies.tune.search import _estimate

    scn = Scenario.from_mapping({"game": {"chips": 30}, "seats": {"all": "balanced"},
                                 "run": {"matches": 64, "chunk": 8, "seed": 3}})
    game = get_game(scn.kind)
    tables = [game.play_chunk(scn, c) for c in plan_chunks(scn)]
    got = _estimate(game, [], tables, n_boot=50, seed=1)
    assert got["unresolved_share"] == 0
    low, high = wilson_interval(0, 64)
    assert got["unresolved_share_low"] == 0
    assert got["unresolved_share_high"] == pytest.approx(float(high)) and high > 0.05
    # a metric that varies across chunks keeps its resampled interval
    assert got["median_hands_low"] < got["median_hands"] < got["median_hands_high"]


def test_disruptor_effects_and_use_rates_agree_with_the_report(tmp_path):
    """Two codes for one number: the tune objective's chunk-weighted Disruptor effects
    (counts per chunk) and the report's (seat by seat, disruptor_stats), and the use
    rates (counters per chunk against per-match sums)."""
    from nop_sim.games import get_game
    from nop_sim.games.new_order import analysis as A
    from nop_sim.results.store import load_tables
    from nop_sim.run.runner import run_scenario

    scn = Scenario.from_mapping({
        "game": {"chips": 30, "disruptors": {"deuces_wild": 6, "windfall": 6, "levy": 6}},
        "seats": {"rotate": ["balanced", "maniac", "rock", "hedger"]},
        "run": {"matches": 60, "chunk": 10, "seed": 5}})
    run_scenario(scn, tmp_path / "r", workers=1)
    estimate = get_game(scn.kind).target_metrics(load_tables(tmp_path / "r"))
    found = estimate()
    row = A.point_metrics(A.load_run(tmp_path / "r"), n_boot=20).iloc[0]
    measured = [k for k in found if k.startswith("disruptor_effect_") and np.isfinite(found[k])]
    assert len(measured) == 3 and np.isfinite(found["max_disruptor_effect"])
    for name in (*measured, "max_disruptor_effect", "hedges_per_hand", "bluffs_per_hand"):
        assert found[name] == pytest.approx(float(row[name])), name
    assert found["bluffs_per_hand"] > 0 and found["hedges_per_hand"] > 0
    assert row["max_disruptor_effect_low"] <= row["max_disruptor_effect"] \
        <= row["max_disruptor_effect_high"]
    # a chunk weighted twice counts twice: the same as its rows played twice
    twice = estimate(np.r_[2.0, np.ones(5)])
    assert twice["max_disruptor_effect"] != found["max_disruptor_effect"]


# -- bad input: one line, exit 2 -----------------------------------------------------------
@pytest.mark.parametrize("edit, args, says", [
    (("median_hands = 60", "median_hand = 60"), [], "median_hand"),
    (("chips = [20, 200]", "chip = [20, 200]"), [], "'chip'"),
    (("chips = [20, 200]", "chips = [200, 20]"), [], "low end is above"),
    (("chips = [20, 200]", "fee_to = []"), [], "fee_to = [] has no choices"),
    (("chips = [20, 200]", "hedge_payout = [5.0, 30.0]"), [], "hedge_payout = 5.0"),
    (('all = "balanced"', 'seat = ["balanced", "rock", "rock", "maniac"]'),
     ["--set", "tune.players=[2, 6]"], "players = 2 cannot be played"),
    (None, ["--trials", "0"], "--trials"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, edit, args, says):
    text = CHIPS if edit is None else CHIPS.replace(*edit)
    res = CliRunner().invoke(main, ["tune", str(_scenario(tmp_path, text)), "-q", *args,
                                    "--out", str(tmp_path / "out")])
    assert res.exit_code == 2, res.output
    errors = [line for line in res.output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and says in errors[0], res.output
    assert "Traceback" not in res.output
    assert not (tmp_path / "out").exists()


def test_a_scenario_without_tune_or_targets_is_refused(tmp_path):
    for cut in ("chips = [20, 200]", "median_hands = 60"):
        res = CliRunner().invoke(main, ["tune", str(_scenario(tmp_path, CHIPS.replace(cut, ""))),
                                        "-q", "--out", str(tmp_path / "o")])
        assert res.exit_code == 2 and "has no [" in res.output, res.output


# -- the search ----------------------------------------------------------------------------
def _trials(out: Path) -> pd.DataFrame:
    t = pd.read_parquet(out / "trials.parquet")
    return t[["trial", "index", "state", "param_chips", "objective", "matches"]]


def test_same_seed_same_trials_with_1_and_2_workers(tmp_path):
    scn = load_scenario(_scenario(tmp_path))
    cfg = TuneConfig(trials=5, matches=64, top=2, n_boot=40, seed=3)
    one = tune_folder(scn, tmp_path / "w1", cfg, workers=1)
    two = tune_folder(scn, tmp_path / "w2", cfg, workers=2)
    pd.testing.assert_frame_equal(_trials(tmp_path / "w1"), _trials(tmp_path / "w2"))
    assert one.best == two.best and one.objective == two.objective
    assert (tmp_path / "w1" / "best.toml").read_text() == (tmp_path / "w2" / "best.toml").read_text()


def test_tune_writes_a_best_scenario_that_runs_as_is(tmp_path):
    """The whole command, small: outputs, terminal, report, and best.toml runs as it is."""
    from nop_sim.run.runner import run_scenario

    out = tmp_path / "tune"
    res = CliRunner().invoke(main, ["tune", str(_scenario(tmp_path)), "--trials", "8",
                                    "--matches", "128", "--top", "2", "--workers", "2",
                                    "-q", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "best: chips = " in res.output and "median_hands" in res.output
    assert "report:" in res.output
    for name in ("best.toml", "trials.parquet", "reruns.parquet", "manifest.json",
                 "report.html", "report.md", "study.db"):
        assert (out / name).exists(), name
    trials = pd.read_parquet(out / "trials.parquet")
    assert len(trials) == 8 and trials["objective_low"].le(trials["objective"]).all()
    best = load_scenario(out / "best.toml", ["run.matches=20"])
    assert not best.tune and 40 <= best.settings.chips <= 130  # 60 hands: about 75 chips
    run_scenario(best, tmp_path / "check", workers=1)


@pytest.mark.slow
def test_chips_toward_60_hands_holds_on_another_seed(tmp_path):
    """Tuning chips alone toward median_hands = 60 (match length grows with chips): the best
    chips, run as best.toml with another seed, gives a median within 10% of 60."""
    from nop_sim.results.store import load_tables
    from nop_sim.run.runner import run_scenario

    out = tmp_path / "tune"
    res = CliRunner().invoke(main, ["tune", str(_scenario(tmp_path)), "--trials", "20",
                                    "--matches", "400", "--top", "5", "--workers", "2",
                                    "-q", "--no-report", "--out", str(out)])
    assert res.exit_code == 0, res.output
    check = load_scenario(out / "best.toml", ["run.seed=987654", "run.matches=2000"])
    run_scenario(check, tmp_path / "check", workers=2)
    median = float(load_tables(tmp_path / "check", ["matches"])["matches"]["hands"].median())
    assert abs(median - 60) <= 6, (median, check.settings.chips)


def _finished_trials(db: Path) -> int:
    """Complete or pruned trials in an optuna SQLite study, read without writing."""
    import sqlite3

    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as con:
            return con.execute("SELECT count(*) FROM trials WHERE state IN "
                               "('COMPLETE', 'PRUNED')").fetchone()[0]
    except sqlite3.Error:  # not created yet, or locked for a moment
        return 0


def test_resume_after_sigkill_redoes_no_finished_trial(tmp_path):
    import optuna

    scenario = _scenario(tmp_path)
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "nop_sim", "tune", str(scenario), "--trials", "200",
           "--matches", "32", "--workers", "1", "-q", "--no-report", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    storage = f"sqlite:///{(out / 'study.db').resolve()}"
    finished_states = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)
    done = 0
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
            # read the SQLite file directly, read-only: optuna.load_study would run the
            # schema's migrations and race the tuner creating the study
            done = _finished_trials(out / "study.db")
            if done >= 6:  # past the random start: the sampler models them
                break
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert done >= 6, proc.stderr.read().decode()[-2000:]
    study = optuna.load_study(study_name="tune", storage=storage)
    before = {t.number: t for t in study.trials if t.state in finished_states}
    wanted = len(before) + 2
    res = CliRunner().invoke(main, ["tune", str(scenario), "--trials", str(wanted), "--matches",
                                    "32", "--top", "2", "--workers", "1", "-q", "--no-report",
                                    "--resume", "--out", str(out)])
    assert res.exit_code == 0, res.output
    after = optuna.load_study(study_name="tune", storage=storage).trials
    done = [t for t in after if t.state in finished_states]
    assert len(done) == wanted
    assert sorted(t.user_attrs["index"] for t in done) == list(range(wanted))  # none twice
    for number, t in before.items():  # finished trials kept as they were
        assert after[number].params == t.params and after[number].value == t.value
    # a resumed study asks what an unkilled one would have asked
    tune_folder(load_scenario(scenario), tmp_path / "whole",
                TuneConfig(trials=wanted, matches=32, top=2, seed=12), workers=1)
    whole = _trials(tmp_path / "whole").query("state != 'fail'").sort_values("index")
    resumed = _trials(out).query("state != 'fail'").sort_values("index")
    assert whole["param_chips"].tolist() == resumed["param_chips"].tolist()
    assert whole["objective"].tolist() == resumed["objective"].tolist()
    assert (out / "best.toml").read_text() == (tmp_path / "whole" / "best.toml").read_text()


def test_a_folder_with_a_study_needs_resume(tmp_path):
    scn = load_scenario(_scenario(tmp_path))
    cfg = TuneConfig(trials=3, matches=16, top=1, n_boot=20)
    tune_folder(scn, tmp_path / "o", cfg, workers=1)
    res = CliRunner().invoke(main, ["tune", str(_scenario(tmp_path)), "-q", "--trials", "3",
                                    "--matches", "16", "--out", str(tmp_path / "o")])
    assert res.exit_code == 1 and "--resume" in res.output
    with pytest.raises(ScenarioError):
        load_scenario(_scenario(tmp_path, CHIPS.replace("[20, 200]", "[20, 20]")))


@pytest.mark.slow  # a cluster's start and stop cost ~15 s; the fast suite keeps ~15 s for tune
def test_dask_gives_the_local_trials(tmp_path, dask_cluster):
    scn = load_scenario(_scenario(tmp_path))
    cfg = TuneConfig(trials=4, matches=32, top=1, n_boot=20, seed=3)
    local = tune_folder(scn, tmp_path / "local", cfg, workers=1)
    remote = tune_folder(scn, tmp_path / "dask", cfg, scheduler=dask_cluster)
    pd.testing.assert_frame_equal(_trials(tmp_path / "local"), _trials(tmp_path / "dask"))
    assert local.best == remote.best and local.objective == remote.objective
